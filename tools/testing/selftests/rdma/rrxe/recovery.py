#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RC error and loss recovery between two RDMA devices, driven from one process
through pyverbs: the requester side is DEV_A, the responder side DEV_B (each may be
rrxe or rdma_rxe; the calling script sets up the network and any netem).

Cases (each prints "PASS CASE" or "FAIL CASE" on stdout, details on stderr; the
exit status is 0 when all passed):
  transfer MIB [MTU [READ_KIB]]
                WRITE MIB MiB, then SEND it again into posted receives, in 1 MiB
                messages, then READ its first min(MIB, 16) MiB back over the
                cleared source in READ_KIB KiB READs (default 1024), at path
                MTU MTU (default 1024); all three copies must hash the same as
                the source. An rrxe requester must queue READ response data
                for its QP's receive work item
                (rcv_deferred moves). Then WRITEs and READs in turn over
                min(MIB, 16) MiB, the READs copying back what the WRITEs
                wrote.
  atomics       1024 FETCH_ADDs of 1 to one word of DEV_B's memory, 128 in
                flight (max_rd_atomic 128), ACK timeout 14: each returns a
                distinct original value, 0 to 1023, and the word ends at 1024.
                Through loss a requester asks again for an atomic whose answer
                was lost, after up to 127 newer ones: the responder must answer
                it with the value it returned first, not execute it again.
  rnr           no receive posted: the SEND is RNR NAKed and retried
                (rnr_retry 7) until a receive is posted 0.5 s later; then it
                completes and the data arrived.
  rnr0          as rnr, with rnr_retry 0: the SEND fails with RNR_RETRY_EXC_ERR.
  tail          three unsignaled WRITEs and nothing after them: rrxe asks for
                no ACK at their ends, so its tail probe must get it well before
                the ACK timeout (1 s): 0.3 s later the data is there and moving
                the QP to error flushes nothing (they were retired).
  handoff       a SEND that DEV_B RNR NAKs (no receive yet, min_rnr_timer 491
                ms), and behind it (rrxe requesters only) a WRITE, which the
                doorbell hands to the QP's work item (post_handoffs moves by
                exactly 1); a SEND, which it sends itself (by 0) when DEV_B is
                an rrxe device, this QP the device's only busy one, and hands
                over (by 1) to rdma_rxe; a 12 KiB SEND (12 packets), handed
                over (by 1) to either; then, with a second QP pair's SEND
                held the same way, a SEND, handed over (by 1). Once receives
                are posted all complete in order, data intact. Two tries: a
                post that finds the requester running (the held SEND's RNR
                retry, every 491 ms) only tells it to look again, and under a
                slow TCG one did (rdma_rxe peer, 2026-11-29).
  unsignaled_read
                an unsignaled 64 B READ on an idle QP (rrxe requesters
                only): the doorbell hands it to the QP's work item
                (post_handoffs moves by exactly 1), since sent from the
                doorbell it would run the peer's responder, and over a veth
                its whole round trip, in the syscall: a stream of them would
                never have two in flight. The data arrives and the WQE is
                retired. Then a signaled READ, which a user waits for, is
                sent from the doorbell (post_handoffs does not move) and
                completes.
  worker_read   an unsignaled 8 KiB READ (8 responses at MTU 1024) on an idle
                QP (rrxe requesters only), which the doorbell hands to the QP's
                work item: its responses are received in the softirq that the
                work item's transmit runs, in that worker, and their data is
                placed there, not queued for the receive work item
                (rcv_deferred does not move). A softirq that ksoftirqd runs is
                outside any worker, so one of three tries must see it.
  write_read    40 times, an unsignaled 4 KiB WRITE and a signaled READ of what it
                wrote (32 times) or FETCH_ADD of 1 to one word of DEV_B (8
                times), posted together at MTU 1024, ACK timeout 18 (1.07 s),
                on a clean path (rrxe requesters only): the WRITE asks for no
                ACK, so the READ's first response or the atomic's ACK is the
                first answer, and it acknowledges the WRITE too (the responder
                executes requests in order). In one of two tries (TCG may
                stall the guest past the timeout), no response is taken as
                out of sequence and nothing is sent again (rcv_out_of_seq and
                retransmits do not move). Every READ brings back what its
                WRITE wrote, and the FETCH_ADDs return 0 to 7.
  read_backlog  16 signaled 64 KiB READs at MTU 1024, all 16 in flight
                (max_rd_atomic 16), ACK timeout 16 (268 ms), on a clean path
                (rrxe requesters only): all complete with the right data and,
                in one of two tries (TCG may stall the guest for 268 ms), no
                local ACK time-out asks for a READ again (retry_timeouts does
                not move, 1024 responses are received, no more). With
                $BACKLOG_NETEM ("NS DEV", DEV_B's netdev; DEV_B rrxe), the
                posts go out while every unbound work queue is confined to CPU
                1, where a SCHED_FIFO spinner runs for 0.9 s, and netem delays
                DEV_B's answers by 350 ms: DEV_A's ACK deadline passes first,
                its timer queues the QP's work item, and then the responses
                arrive and wait in the receive queue. That expiry must be put
                off (ack_timeouts_put_off moves), not resend the READs
                (retry_timeouts does not move). The responses are not counted
                then: the delayed ones and the later ones come in through two
                CPUs' backlogs, and a reordered one asks for the rest of its
                READ again.
  ack_spacing   16 signaled 64 KiB WRITEs at MTU 1024, ACK timeout 12 (16.8
                ms), on a clean path (rrxe requesters only). A stream of large
                messages asks for an ACK once in 64 packets, and under TCG with
                the debug kernel 64 packets take far longer than 16.8 ms (100
                to 250 ms): only an answer asked for may time out, not the gap
                between two ACKs. In one of two tries at most 2 local ACK
                time-outs send anything again (retry_timeouts; none on a
                steady guest, but TCG may stall the responder past 16.8 ms);
                the data lands either way. With the timeout run from the last
                ACK, a try met 84 to 102.
  retry         the responder never answers (the caller drops every packet): a
                3-packet SEND fails with RETRY_EXC_ERR after retry_cnt 2 local
                ACK timeouts (timeout 17, 537 ms). An rrxe requester sent it
                again exactly twice (retry_timeouts), and after each timeout
                its 2 packets filled the reduced window, which got one window
                probe 1 ms later (window_probes moves by retry_cnt). With no
                progress since the resend, that probe sent the oldest packet
                of the two first, then the last (resend_probes moves by
                retry_cnt).
  retry7        as retry, with retry_cnt 7 (rrxe requesters only): 7 is a count,
                not "for ever" as in rdma_rxe, so the SEND fails after exactly
                7 resends.
  retry_silence as retry, at timeout 12 (16.8 ms; rrxe requesters only): the
                retries run out only once the peer has been silent for 1 s, so
                the SEND fails no sooner than 1 s after it was posted, after
                more than 2 resends.
  bad_rkey      a WRITE with a wrong rkey: REM_ACCESS_ERR at the requester, the
                next WR is flushed, and the responder's QP goes to error and
                flushes its posted receive.
  out_of_range  as bad_rkey, for a WRITE past the end of the MR.
  no_read       as bad_rkey, for a READ of an MR without remote read access.
  mw_window     DEV_B binds a type 2 memory window over the first 4 KiB of its MR
                (a BIND_MW work request): a WRITE through the window lands;
                deregistering the MR under the bound window fails with EBUSY; a
                WRITE inside the MR but past the window gets REM_ACCESS_ERR (rrxe
                only: rdma_rxe checks the MR's range, not the window's).
  details       four 4 KiB WRITEs and an 8 KiB READ at MTU 1024 (24 PSNs),
                then `rdma resource show qp -dd` of each rrxe side: the
                requester's next, unacknowledged and highest sent PSNs are the
                start + 24, with nothing pending, no READ credit taken and no
                ACK awaited; the responder expects the start + 24 and counted 5
                messages.
  shaped        512 KiB WRITE in 64 KiB WRs at MTU 1024, then READ back in 256
                KiB READs, through the tbf shapers the caller puts on the
                veths, whose 96 KiB queue holds fewer packets than an RC
                window (128) or a READ's responses (256) but more than a QP
                may have in the stack (64); both copies must hash the same,
                and every rrxe side must have stopped at the limit
                (tx_limit_waits moves). The caller checks that the shapers
                dropped nothing.
  srq_error     DEV_B's QP takes its receives from an SRQ with two posted. A
                SEND_FIRST that wire.py sends as DEV_A (from the namespace
                $SENDER_NS, IPv6 GIDs) takes the first; then DEV_B's QP goes to
                the error state. The taken receive completes with WR_FLUSH_ERR,
                the other stays in the SRQ, and the QP_LAST_WQE_REACHED event
                arrives (rrxe only: rdma_rxe loses the taken receive).
  slow_peer     24 signaled 4 KiB WRITEs and READs, one at a time, over a path
                whose round trip (the caller's netem delay, 20 ms each way) is
                longer than the ACK timeout (timeout 12, 16.8 ms; rrxe
                requesters only): the requester measures how long answers
                take and stretches its ACK timeout (at most 8 times), so after
                the first few no WR times out and is sent again; at most 8
                retry_timeouts (a third of the WRs; every WR times out at
                least once without the stretch), the QP details show an
                answer time and an ACK timeout of at least 40 ms, and the
                READ copies are right.
  tail_wait     over the same slow path (rrxe requesters only), ACK timeout 15
                (134 ms): 8 signaled 64 B WRITEs, one at a time, teach the
                requester the answer time (40 ms); then 10 times, 4 unsignaled
                64 B WRITEs (no ACK asked), 5 ms later a signaled one (asked),
                and its completion. The tail probe waits twice the answer time
                (at most half the ACK timeout), so it does not send a WRITE
                again whose ACK request is only on its way: at most 2 tail
                probes in the 10 rounds (TCG may stall the guest past the
                wait; with a fixed 1 ms wait 23 and 24 were met). Then 3
                unsignaled WRITEs with nothing after: exactly one tail probe
                asks for their ACK, before the ACK timeout (retry_timeouts does
                not move), and the QP details show them acknowledged.
  write_forged  wire.py, as DEV_A (from $SENDER_NS, IPv6 GIDs), sends DEV_B's
                QP a WRITE_ONLY of 4 bytes with DEV_B's rkey, which lands; then
                a WRITE_ONLY_WITH_IMMEDIATE whose RETH says 4096 bytes, with no
                payload and a wrong rkey: DEV_B's QP answers with a NAK and
                goes to the error state, and its posted receive is flushed
                (rrxe only: it had completed with success and 4096 bytes).
  read_forged   DEV_A's QP goes to the error state, and DEV_B's QP READs 2500
                bytes from it at MTU 1024 (3 PSNs). wire.py, as DEV_A, answers
                first with a READ_RESPONSE_ONLY without data at each PSN, then
                with well-formed responses under a wrong P_Key: neither
                completes the READ (both did). Then the well-formed responses
                with the right P_Key complete it, with their bytes.
  read_repeat   DEV_A's QP READs 4 KiB from DEV_B at MTU 1024 (4 PSNs).
                wire.py, as DEV_A, then repeats READ requests at PSNs before
                the one DEV_B expects: DEV_B answers the whole READ again (4
                responses) and its rest from the third PSN (2), but not a
                repeat that asks for more bytes, another rkey or a PSN the
                READ did not take (none: the first was answered, the rkey
                failed the QP). Then DEV_B's QP is still in RTS and DEV_A's
                next READ gets the bytes.
  deep_sq       DEV_A's QP has a 10,000-WQE send queue. One post_send call posts
                a chain of 10,000 one-byte WRITEs (every 1000th signaled) while
                DEV_B's QP is still in RESET, so all of them wait in DEV_A's
                pending list at once (past 8,192 rrxe's list outgrew kmalloc);
                then DEV_B connects, and all 10 completions succeed and every
                byte lands.

Usage: recovery.py DEV_A GID_A DEV_B GID_B CASE[,CASE...] [MIB [MTU]]
"""
import contextlib
import errno
import gc
import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from wire import read_data

MIB = 1 << 20
DEPTH = 128
# Past where rrxe's list of pending WQEs outgrew kmalloc (8,192); 20,000 took
# 92 s of a slow day's guest run.
DEEP_SQ = 10000
# FETCH_ADDs in the atomics case; stream() keeps DEPTH (128, the devices'
# max_qp_rd_atom) of them in flight, and max_rd_atomic is DEPTH too.
ATOMICS = 1024
# IB_WC_* statuses.
WC_SUCCESS, WC_WR_FLUSH_ERR, WC_REM_ACCESS_ERR = 0, 5, 10
WC_RETRY_EXC_ERR, WC_RNR_RETRY_EXC_ERR = 12, 13
PATH_MTUS = {256: e.IBV_MTU_256, 512: e.IBV_MTU_512, 1024: e.IBV_MTU_1024,
             2048: e.IBV_MTU_2048, 4096: e.IBV_MTU_4096}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Side:
    def __init__(self, dev, gid_index, size, access, srq=False, depth=DEPTH):
        self.dev = dev
        self.ctx = Context(name=dev)
        self.gid_index = gid_index
        self.gid = self.ctx.query_gid(1, gid_index)
        self.pd = PD(self.ctx)
        self.mr = MR(self.pd, size, access)
        self.cq = CQ(self.ctx, 2 * DEPTH)
        self.srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1))) if srq else None
        cap = QPCap(max_send_wr=depth, max_recv_wr=0 if srq else DEPTH, max_send_sge=1,
                    max_recv_sge=0 if srq else 1)
        # pyverbs defaults sq_sig_all to 1, which would make every WQE signaled and
        # hide what the 'tail' case tests: unsignaled WQEs.
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap,
                          sq_sig_all=0)
        if srq:
            init.srq = self.srq
        self.qp = QP(self.pd, init)

    def connect(self, peer, timeout=14, retry_cnt=7, rnr_retry=7, min_rnr_timer=14,
                path_mtu=e.IBV_MTU_1024, rd_atomic=1):
        a = QPAttr()
        a.qp_state = e.IBV_QPS_INIT
        a.pkey_index = 0
        a.port_num = 1
        a.qp_access_flags = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                             e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                       e.IBV_QP_ACCESS_FLAGS)
        a = QPAttr()
        a.qp_state = e.IBV_QPS_RTR
        a.path_mtu = path_mtu
        a.dest_qp_num = peer.qp.qp_num
        a.rq_psn = 0x1234
        a.max_dest_rd_atomic = rd_atomic
        a.min_rnr_timer = min_rnr_timer
        a.ah_attr = AHAttr(port_num=1, is_global=1,
                           gr=GlobalRoute(dgid=peer.gid, sgid_index=self.gid_index))
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                       e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
                       e.IBV_QP_MIN_RNR_TIMER)
        a = QPAttr()
        a.qp_state = e.IBV_QPS_RTS
        a.timeout = timeout
        a.retry_cnt = retry_cnt
        a.rnr_retry = rnr_retry
        a.sq_psn = 0x1234
        a.max_rd_atomic = rd_atomic
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                       e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)

    def post_recv(self, wr_id, off, length):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                                 sg=[SGE(self.mr.buf + off, length, self.mr.lkey)]))

    def wr(self, wr_id, opcode, off, length, raddr=0, rkey=0, signaled=True, next_wr=None):
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                    sg=[SGE(self.mr.buf + off, length, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED if signaled else 0, next_wr=next_wr)
        if opcode in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
            wr.set_wr_rdma(rkey, raddr)
        return wr

    def post(self, *args, **kw):
        self.qp.post_send(self.wr(*args, **kw))

    def poll(self, n, secs):
        """Up to n completions, waiting at most secs: a list of (wr_id, status)."""
        out, end = [], time.monotonic() + secs
        while len(out) < n and time.monotonic() < end:
            got, wcs = self.cq.poll(min(n - len(out), 16))
            if got:
                out += [(w.wr_id, w.status) for w in wcs[:got]]
            else:
                time.sleep(0.002)
        return out


def expect(what, got, want):
    if got != want:
        log(f"{what}: got {got}, want {want}")
        return False
    return True


def digest(mr, length, start=0):
    h = hashlib.sha256()
    for off in range(start, start + length, 8 * MIB):
        h.update(mr.read(min(8 * MIB, start + length - off), off))
    return h.hexdigest()


def stream(a, b, name, count, chunk, post):
    """`count` WRs of `chunk` bytes, WR i posted by `post(i)` with wr_id i, at
    most DEPTH outstanding; False (with both QPs' details) after an error, two
    minutes without a completion, or a completion out of order (a work queue
    completes its WRs in the order they were posted)."""
    posted = done = 0
    while done < count:
        while posted < count and posted - done < DEPTH:
            post(posted)
            posted += 1
        wcs = a.poll(posted - done, 120)
        ids = [i for i, _ in wcs]
        if not wcs or any(s != WC_SUCCESS for _, s in wcs) or \
                ids != list(range(done, done + len(wcs))):
            size = f"{chunk // 1024} KiB" if chunk >= 1024 else f"{chunk} B"
            log(f"{name}: {done}/{count} of {size} done, then "
                f"{wcs or 'nothing for 120 s'}")
            for side in (a, b):
                log(f"{side.dev} QP {side.qp.qp_num}: {qp_details(side) or 'no details'}")
            return False
        done += len(wcs)
    return True


def one_sided(a, b, opcode, name, size, chunk):
    """`size` bytes from A's MR to B's (WRITE) or back (READ), at the same offsets,
    in `chunk`-byte WRs."""
    return stream(a, b, name, size // chunk, chunk,
                  lambda i: a.post(i, opcode, i * chunk, chunk, b.mr.buf + i * chunk, b.mr.rkey))


def mixed(a, b, size, chunk):
    """WRITEs and READs in turn, `chunk` bytes each: A's first half to B's, and
    B's back to A's second half, which must then equal the first."""
    half = size // 2

    def post(i):
        off = (i // 2) * chunk
        if i % 2 == 0:
            a.post(i, e.IBV_WR_RDMA_WRITE, off, chunk, b.mr.buf + off, b.mr.rkey)
        else:
            a.post(i, e.IBV_WR_RDMA_READ, half + off, chunk, b.mr.buf + off, b.mr.rkey)

    return (stream(a, b, "mixed", size // chunk, chunk, post) and
            expect("mixed READ copy sha256", digest(a.mr, half, half), digest(a.mr, half)))


# What an rrxe requester's recovery did in each phase of the transfer.
PHASE_STATS = ("retransmits", "rcvd_seq_nak", "retry_timeouts", "window_probes",
               "read_resp_ahead")


def phase_stats(dev):
    """PHASE_STATS of `dev`'s port 1 (an empty dict for rdma_rxe)."""
    if not dev.startswith("rrxe"):
        return {}
    return {k: v for k, v in counters(dev).items() if k in PHASE_STATS}


def phase_moved(dev, before):
    """How far PHASE_STATS moved since `before`, for the log."""
    after = phase_stats(dev)
    return " (" + ", ".join(f"{k} {after[k] - v}" for k, v in before.items()) + ")" if before else ""


def transfer(a, b, mib, dev_a, read_kib):
    size = mib * MIB
    src = os.urandom(size)
    for off in range(0, size, 8 * MIB):
        a.mr.write(src[off:off + 8 * MIB], min(8 * MIB, size - off), off)
    want = hashlib.sha256(src).hexdigest()
    s0 = phase_stats(dev_a)
    t0 = time.monotonic()
    if not one_sided(a, b, e.IBV_WR_RDMA_WRITE, "WRITE", size, MIB):
        return False
    t1 = time.monotonic()
    log(f"WRITE {mib} MiB in {t1 - t0:.1f} s{phase_moved(dev_a, s0)}")
    s0 = phase_stats(dev_a)
    if not expect("WRITE copy sha256", digest(b.mr, size), want):
        return False
    # SEND the same data again, into fresh receives over the cleared copy.
    zero = bytes(8 * MIB)
    for off in range(0, size, 8 * MIB):
        b.mr.write(zero, min(8 * MIB, size - off), off)
    for i in range(mib):
        b.post_recv(i, i * MIB, MIB)
    posted = done = recvd = 0
    while done < mib or recvd < mib:
        while posted < mib and posted - done < DEPTH:
            a.post(posted, e.IBV_WR_SEND, posted * MIB, MIB)
            posted += 1
        wcs = a.poll(posted - done, 0.05) if done < mib else []
        rcs = b.poll(mib - recvd, 0.05) if recvd < mib else []
        bad = [w for w in wcs + rcs if w[1] != WC_SUCCESS]
        if bad:
            log(f"SEND: {done}/{mib} sent, {recvd}/{mib} received, then {bad}")
            return False
        done, recvd = done + len(wcs), recvd + len(rcs)
        if time.monotonic() - t1 > 600:
            log(f"SEND: {done}/{mib} sent, {recvd}/{mib} received after 600 s")
            return False
    t2 = time.monotonic()
    log(f"SEND {mib} MiB in {t2 - t1:.1f} s{phase_moved(dev_a, s0)}")
    s0 = phase_stats(dev_a)
    if not expect("SEND copy sha256", digest(b.mr, size), want):
        return False
    # READ it back over the cleared source: 16 MiB of it, as the READs and WRITEs
    # in turn below, since 64 MiB of READs took ~100 s of the guest run.
    read_mib = min(mib, 16)
    read_size = read_mib * MIB
    for off in range(0, read_size, 8 * MIB):
        a.mr.write(zero, min(8 * MIB, read_size - off), off)
    deferred = stat(dev_a, "rcv_deferred") if dev_a.startswith("rrxe") else None
    if not one_sided(a, b, e.IBV_WR_RDMA_READ, "READ", read_size, read_kib * 1024):
        return False
    t3 = time.monotonic()
    log(f"READ {read_mib} MiB in {t3 - t2:.1f} s{phase_moved(dev_a, s0)}")
    s0 = phase_stats(dev_a)
    if deferred is not None and not stat(dev_a, "rcv_deferred") > deferred:
        log("rcv_deferred did not move: READ response data was not queued")
        return False
    if not expect("READ copy sha256", digest(a.mr, read_size),
                  hashlib.sha256(src[:read_size]).hexdigest()):
        return False
    # READs between WRITEs: the WRITEs' ACKs and NAKs must not pass a READ
    # whose responses were lost.
    mixed_mib = min(mib, 16)
    if not mixed(a, b, mixed_mib * MIB, read_kib * 1024):
        return False
    log(f"WRITE and READ in turn, {mixed_mib} MiB, in {time.monotonic() - t3:.1f} s"
        f"{phase_moved(dev_a, s0)}")
    return True


SHAPED_KIB = 512


def shaped(a, b):
    size = SHAPED_KIB * 1024
    src = os.urandom(size)
    a.mr.write(src, size, 0)
    want = hashlib.sha256(src).hexdigest()
    rrxe = [s for s in (a, b) if s.dev.startswith("rrxe")]
    waits = {s.dev: stat(s.dev, "tx_limit_waits") for s in rrxe}
    t0 = time.monotonic()
    # A window of 64 KiB WRITEs, and 256 KiB READs: 256 responses each, more
    # than the shaper's queue holds.
    if not (one_sided(a, b, e.IBV_WR_RDMA_WRITE, "shaped WRITE", size, 64 * 1024) and
            expect("shaped WRITE copy sha256", digest(b.mr, size), want)):
        return False
    a.mr.write(bytes(size), size, 0)
    t1 = time.monotonic()
    if not (one_sided(a, b, e.IBV_WR_RDMA_READ, "shaped READ", size, 256 * 1024) and
            expect("shaped READ copy sha256", digest(a.mr, size), want)):
        return False
    log(f"shaped: WRITE {SHAPED_KIB} KiB in {t1 - t0:.1f} s, READ in {time.monotonic() - t1:.1f} s")
    moved = {s.dev: stat(s.dev, "tx_limit_waits") > waits[s.dev] for s in rrxe}
    return expect("tx_limit_waits moved", moved, {s.dev: True for s in rrxe})


def rnr(a, b, retries):
    a.mr.write(b"rnr-payload" * 100, 1100, 0)
    a.post(1, e.IBV_WR_SEND, 0, 1100)
    early = a.poll(1, 0.5)
    if retries == 0:
        return expect("SEND with rnr_retry 0", early, [(1, WC_RNR_RETRY_EXC_ERR)])
    if not expect("completions before a receive was posted", early, []):
        return False
    b.post_recv(7, 0, 4096)
    return (expect("SEND after the receive came", a.poll(1, 30), [(1, WC_SUCCESS)]) and
            expect("receive", b.poll(1, 30), [(7, WC_SUCCESS)]) and
            expect("data", b.mr.read(1100, 0), b"rnr-payload" * 100))


def tail(a, b):
    payload = b"unsignaled-tail!" * 4
    a.mr.write(payload, 64, 0)
    for i in range(3):
        a.post(i, e.IBV_WR_RDMA_WRITE, 0, 64, b.mr.buf + 64 * i, b.mr.rkey, signaled=False)
    time.sleep(0.3)
    landed = all(b.mr.read(64, 64 * i) == payload for i in range(3))
    err = QPAttr()
    err.qp_state = e.IBV_QPS_ERR
    a.qp.modify(err, e.IBV_QP_STATE)
    return (expect("the WRITEs landed", landed, True) and
            expect("completions after moving to error", a.poll(3, 1), []))


def deep_sq(a, b):
    """DEEP_SQ WRITEs of one byte each, posted as one chain while B's QP is not
    ready: every one of them waits in A's kernel list of pending WQEs at once.
    Then B connects, A's retries deliver them, and every byte lands."""
    pattern = bytes(i % 251 for i in range(DEEP_SQ))
    a.mr.write(pattern, DEEP_SQ, 0)
    wrs = []
    for i in range(DEEP_SQ):
        wr = a.wr(i, e.IBV_WR_RDMA_WRITE, i, 1, b.mr.buf + i, b.mr.rkey,
                  signaled=i % 1000 == 999)
        if wrs:
            wrs[-1].next_wr = wr
        wrs.append(wr)
    a.qp.post_send(wrs[0])
    b.connect(a)
    got = a.poll(DEEP_SQ // 1000, 120)
    want = [(i, e.IBV_WC_SUCCESS) for i in range(999, DEEP_SQ, 1000)]
    return (expect("completions", got, want) and
            expect("the bytes landed", b.mr.read(DEEP_SQ, 0) == pattern, True))


def qp_details(side):
    """rrxe's own state of `side`'s QP (`rdma resource show qp -dd`), as a dict
    without the "drv_" prefix; {} for a device without driver details."""
    r = subprocess.run(["rdma", "-j", "-dd", "resource", "show", "qp", "link",
                        f"{side.dev}/1", "lqpn", str(side.qp.qp_num)],
                       capture_output=True, text=True, check=False)
    try:
        entries = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else []
    except ValueError:
        entries = []
    return {k[4:]: v for q in entries for k, v in q.items() if k.startswith("drv_")}


def details(a, b):
    start, psns = 0x1234, 4 * 4 + 8
    a.mr.write(os.urandom(6 * 4096), 6 * 4096, 0)
    for i in range(4):
        a.post(i, e.IBV_WR_RDMA_WRITE, 4096 * i, 4096, b.mr.buf + 4096 * i, b.mr.rkey)
    a.post(4, e.IBV_WR_RDMA_READ, 4 * 4096, 8192, b.mr.buf, b.mr.rkey)
    if not expect("completions", a.poll(5, 30), [(i, WC_SUCCESS) for i in range(5)]):
        return False
    # The ACK timer, once it fires (timeout 14: 67 ms), finds nothing outstanding.
    time.sleep(0.5)
    ok = True
    if a.dev.startswith("rrxe"):
        got = qp_details(a)
        want = {"sq_psn": start + psns, "unacked_psn": start + psns, "sent_psn": start + psns,
                "send_pending": 0, "rd_atomic_out": 0, "ack_wait": 0}
        ok &= expect("requester details", {k: got.get(k) for k in want}, want)
    if b.dev.startswith("rrxe"):
        got = qp_details(b)
        want = {"rq_psn": start + psns, "msn": 5, "answers_queued": 0}
        ok &= expect("responder details", {k: got.get(k) for k in want}, want)
    return ok


def counters(dev):
    """Every counter of `dev`'s port 1, from `rdma statistic`."""
    words = subprocess.run(["rdma", "statistic", "show", "link", f"{dev}/1"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {k: int(v) for k, v in zip(words, words[1:]) if v.isdigit()}


def stat(dev, name):
    """Counter `name` of `dev`'s port 1."""
    return counters(dev)[name]


def handoff(a, b, dev_a, dev_b):
    # The first SEND meets no receive: B's RNR NAK holds it (491 ms a try, B's
    # min_rnr_timer 31) until receives are posted at the end, so each later post
    # finds an unfinished WQE ahead of it and, with nothing running the
    # requester, the doorbell may hand it to the QP's work item.
    msgs = [b"first-send-in-rnr" * 4, b"handed-off-write!" * 4, b"third-send-here!!" * 4,
            b"fourth-send-2busy" * 4]
    size = len(msgs[0])
    assert all(len(m) == size for m in msgs)
    for i, m in enumerate(msgs):
        a.mr.write(m, size, i * size)
    moved = []

    def post(wr_id, opcode, i, **kw):
        before = stat(dev_a, "post_handoffs")
        a.post(wr_id, opcode, i * size, size, **kw)
        moved.append(stat(dev_a, "post_handoffs") - before)

    post(1, e.IBV_WR_SEND, 0)
    time.sleep(0.05)
    # A WRITE behind it: handed off.
    post(2, e.IBV_WR_RDMA_WRITE, 1, raddr=b.mr.buf + 12288, rkey=b.mr.rkey)
    # A SEND behind it, this the device's only busy QP: to an rrxe device on this
    # host it is sent from the doorbell (its receiver's work shares these CPUs);
    # to rdma_rxe it is handed off. A busy count that the QPs of earlier runs
    # (failed, flushed, destroyed) left wrong would hand it off here.
    post(3, e.IBV_WR_SEND, 2)
    # A long SEND (12 packets at MTU 1024, more than the doorbell sends itself
    # to a local peer) is handed off to either.
    long = bytes(range(256)) * 48
    a.mr.write(long, len(long), 65536)
    before = stat(dev_a, "post_handoffs")
    a.post(5, e.IBV_WR_SEND, 65536, len(long))
    moved.append(stat(dev_a, "post_handoffs") - before)
    # A second QP of the device held the same way: now a SEND is handed off.
    c = Side(dev_a, a.gid_index, MIB, e.IBV_ACCESS_LOCAL_WRITE)
    d = Side(dev_b, b.gid_index, MIB, e.IBV_ACCESS_LOCAL_WRITE)
    c.connect(d)
    d.connect(c, min_rnr_timer=31)
    c.mr.write(b"other-qp-send!!!", 16, 0)
    c.post(21, e.IBV_WR_SEND, 0, 16)
    time.sleep(0.05)
    post(4, e.IBV_WR_SEND, 3)
    # In order: the first SEND, the third, the long one, the fourth.
    b.post_recv(11, 0, 4096)
    b.post_recv(12, 4096, 4096)
    b.post_recv(13, 16384, 16384)
    b.post_recv(14, 8192, 4096)
    d.post_recv(31, 0, 4096)
    third = 0 if dev_b.startswith("rrxe") else 1
    return (expect("post_handoffs for a WRITE, a lone SEND stream, a long SEND and a SEND "
                   "with two QPs busy", moved, [0, 1, third, 1, 1]) and
            expect("sends, in order", a.poll(5, 30),
                   [(1, WC_SUCCESS), (2, WC_SUCCESS), (3, WC_SUCCESS), (5, WC_SUCCESS),
                    (4, WC_SUCCESS)]) and
            expect("receives, in order", b.poll(4, 30),
                   [(11, WC_SUCCESS), (12, WC_SUCCESS), (13, WC_SUCCESS), (14, WC_SUCCESS)]) and
            expect("the other QP's SEND", (c.poll(1, 30), d.poll(1, 30)),
                   ([(21, WC_SUCCESS)], [(31, WC_SUCCESS)])) and
            expect("data", [b.mr.read(size, 0), b.mr.read(size, 12288), b.mr.read(size, 4096),
                            b.mr.read(len(long), 16384), b.mr.read(size, 8192), d.mr.read(16, 0)],
                   [msgs[0], msgs[1], msgs[2], long, msgs[3], b"other-qp-send!!!"]))


def wait_retired(a, off, want):
    """Waits (30 s at most) until A's MR holds `want` at `off` and A's QP has no
    WQE pending: a READ's data lands before the completer retires its WQE."""
    end = time.monotonic() + 30
    while ((a.mr.read(len(want), off) != want or qp_details(a).get("send_pending") != 0)
           and time.monotonic() < end):
        time.sleep(0.01)


def unsignaled_read(a, b, dev_a):
    a.mr.write(bytes(128), 128, 0)
    b.mr.write(b"unsignaled-read!" * 4 + b"signaled--read!!" * 4, 128, 0)
    before = stat(dev_a, "post_handoffs")
    a.post(1, e.IBV_WR_RDMA_READ, 0, 64, b.mr.buf, b.mr.rkey, signaled=False)
    handed = stat(dev_a, "post_handoffs") - before
    # So the signaled READ finds nothing unfinished ahead of it.
    wait_retired(a, 0, b.mr.read(64, 0))
    ok = (expect("post_handoffs for an unsignaled READ", handed, 1) and
          expect("unsignaled READ's data", a.mr.read(64, 0), b.mr.read(64, 0)) and
          expect("WQEs pending after it", qp_details(a).get("send_pending"), 0))
    before = stat(dev_a, "post_handoffs")
    a.post(2, e.IBV_WR_RDMA_READ, 64, 64, b.mr.buf + 64, b.mr.rkey)
    handed = stat(dev_a, "post_handoffs") - before
    return (ok and expect("post_handoffs for a signaled READ", handed, 0) and
            expect("signaled READ", a.poll(1, 30), [(2, WC_SUCCESS)]) and
            expect("signaled READ's data", a.mr.read(64, 64), b.mr.read(64, 64)))


def worker_read(a, b, dev_a):
    size = 8 * 1024
    for attempt in range(3):
        src = os.urandom(size)
        b.mr.write(src, size, 0)
        a.mr.write(bytes(size), size, 0)
        deferred, handed = stat(dev_a, "rcv_deferred"), stat(dev_a, "post_handoffs")
        a.post(10 + attempt, e.IBV_WR_RDMA_READ, 0, size, b.mr.buf, b.mr.rkey, signaled=False)
        wait_retired(a, 0, src)
        if not (expect("post_handoffs for an unsignaled READ",
                       stat(dev_a, "post_handoffs") - handed, 1) and
                expect("8 KiB READ's data", a.mr.read(size, 0) == src, True)):
            return False
        moved = stat(dev_a, "rcv_deferred") - deferred
        if moved == 0:
            return True
        log(f"try {attempt + 1}: rcv_deferred moved by {moved}")
    log("READ data received in the work item was queued in all three tries")
    return False


# Run as its own process (a fork would share the verbs process's pinned pages):
# spins at SCHED_FIFO on CPU 1 for argv[1] seconds, saying when it started.
SPINNER = """
import os, sys, time
os.sched_setaffinity(0, {1})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
end = time.monotonic() + float(sys.argv[1])
print("spinning", flush=True)
while time.monotonic() < end:
    pass
"""
WQ_CPUMASK = "/sys/devices/virtual/workqueue/cpumask"


@contextlib.contextmanager
def held_workers(seconds):
    """Confines every unbound work queue (rrxe's, rdma_rxe's) to CPU 1 and
    spins there at SCHED_FIFO for `seconds`, while this process runs on CPU 0:
    no work item runs until the spinner ends. The fair server, which gives
    normal tasks 50 ms a second under RT load, defers that until they have
    waited 0.95 s."""
    affinity = os.sched_getaffinity(0)
    with open(WQ_CPUMASK) as f:
        cpumask = f.read().strip()
    os.sched_setaffinity(0, {0})
    spinner = None
    try:
        with open(WQ_CPUMASK, "w") as f:
            f.write("2")
        spinner = subprocess.Popen([sys.executable, "-c", SPINNER, str(seconds)],
                                   stdout=subprocess.PIPE, text=True)
        if spinner.stdout.readline().strip() != "spinning":
            raise RuntimeError("the spinner did not start")
        yield
    finally:
        if spinner:
            spinner.wait(timeout=60)
            spinner.stdout.close()
        with open(WQ_CPUMASK, "w") as f:
            f.write(cpumask)
        os.sched_setaffinity(0, affinity)


def held_reads(a, b, count, chunk, netem):
    """Posts `count` READs of `chunk` bytes while the work queues are held
    (held_workers) and DEV_B's answers are delayed by netem on `netem` ("NS
    DEV"), past DEV_A's ACK deadline: the timer's work item is queued first,
    then the responses arrive and wait in DEV_A's receive queue, whose work
    item is queued behind it. Then the delay goes, so that the rest flows as
    on a clean path. True if all completed."""
    ns, dev = netem.split()
    tc = ["tc", "-n", ns, "qdisc"]
    subprocess.run(tc + ["replace", "dev", dev, "root", "netem", "delay", "350ms"], check=True)
    try:
        with held_workers(0.9):
            for i in range(count):
                a.post(i, e.IBV_WR_RDMA_READ, i * chunk, chunk, b.mr.buf + i * chunk, b.mr.rkey)
            # The deadline (268 ms) passes, then the first answers arrive.
            time.sleep(0.45)
            subprocess.run(tc + ["change", "dev", dev, "root", "netem", "delay", "0ms"], check=True)
        wcs = a.poll(count, 120)
    finally:
        subprocess.run(tc + ["del", "dev", dev, "root"])
    return expect("held READs", sorted(wcs), [(i, WC_SUCCESS) for i in range(count)])


def write_read(a, b, dev_a):
    chunk, count, atomics = 4096, 32, 8
    half = count * chunk
    word = 2 * half
    names = ("retransmits", "rcv_out_of_seq")
    for attempt in range(2):
        src = os.urandom(half)
        a.mr.write(src + bytes(half + 8 * atomics), word + 8 * atomics, 0)
        b.mr.write(bytes(8), 8, word)
        before = {n: stat(dev_a, n) for n in names}
        for i in range(count + atomics):
            off = i % count * chunk
            if i < count:
                answered = a.wr(2 * i + 1, e.IBV_WR_RDMA_READ, half + off, chunk,
                                b.mr.buf + off, b.mr.rkey)
            else:
                answered = a.wr(2 * i + 1, e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                                word + 8 * (i - count), 8)
                answered.set_wr_atomic(b.mr.rkey, b.mr.buf + word, 1, 0)
            # One post: the READ or atomic follows before the tail probe could
            # ask for the WRITE's ACK.
            a.qp.post_send(a.wr(2 * i, e.IBV_WR_RDMA_WRITE, off, chunk, b.mr.buf + off,
                                b.mr.rkey, signaled=False, next_wr=answered))
            if not expect(f"WR {2 * i + 1} after its WRITE", a.poll(1, 30),
                          [(2 * i + 1, WC_SUCCESS)]):
                return False
        moved = {n: stat(dev_a, n) - before[n] for n in names}
        log(f"write_read try {attempt + 1}: {moved}")
        fetched = list(struct.unpack(f"={atomics}Q", a.mr.read(8 * atomics, word)))
        if not (expect("READ copies", a.mr.read(half, half) == src, True) and
                expect("FETCH_ADD originals", fetched, list(range(atomics)))):
            return False
        if not any(moved.values()):
            return True
    log("in both tries, a response was taken as out of sequence")
    return False


def read_backlog(a, b, dev_a):
    """16 signaled 64 KiB READs, 16 in flight at MTU 1024 (ACK timeout 16, 268
    ms): 1024 responses on a clean path. Posted from the system call, their
    responses from rrxe are queued for A's receive work item; an ACK deadline
    that passes while they wait there is no loss, and must be put off, not
    resend the READs (that fed a storm of time-outs and resends, and hung
    ib_read_bw). With $BACKLOG_NETEM ("NS DEV", DEV_B's netdev), held_reads
    makes that happen every time."""
    chunk, count = 64 * 1024, 16
    netem = os.environ.get("BACKLOG_NETEM")
    names = ("rcvd_pkts", "retry_timeouts", "ack_timeouts_put_off", "rcv_deferred",
             "retransmits", "rcv_out_of_seq")
    # When the held work queues are let go, the receive work item may run
    # before the timer's, and then no deadline waits behind queued packets:
    # nothing is resent, but nothing was put off either. Three tries make a
    # run without the case rare (two tries once lost the race in both).
    for attempt in range(3):
        src = os.urandom(count * chunk)
        b.mr.write(src, len(src), 0)
        a.mr.write(bytes(len(src)), len(src), 0)
        before = {n: stat(dev_a, n) for n in names}
        if netem:
            done = held_reads(a, b, count, chunk, netem)
        else:
            # All 16 are posted at once (fewer than DEPTH).
            done = one_sided(a, b, e.IBV_WR_RDMA_READ, "read_backlog", len(src), chunk)
        moved = {n: stat(dev_a, n) - before[n] for n in names}
        log(f"read_backlog try {attempt + 1}: {moved}")
        if not (done and expect("READ data", a.mr.read(len(src), 0) == src, True)):
            return False
        if moved["retry_timeouts"] == 0 and (
                moved["ack_timeouts_put_off"] > 0 if netem
                else moved["rcvd_pkts"] == count * chunk // 1024):
            return True
    log("in every try, an ACK time-out asked for READs again" +
        (", or none was put off" if netem else ""))
    return False


ACK_SPACING_STALLS = 2


def ack_spacing(a, b, dev_a):
    """16 signaled 64 KiB WRITEs at MTU 1024, ACK timeout 12: no time-out
    between the ACKs of a clean stream."""
    chunk, count = 64 * 1024, 16
    # Tries on the same QPs (not TRIES' fresh ones): the second keeps the
    # answer time the first taught the ACK timeout.
    for attempt in range(2):
        src = os.urandom(count * chunk)
        a.mr.write(src, len(src), 0)
        b.mr.write(bytes(len(src)), len(src), 0)
        before = stat(dev_a, "retry_timeouts")
        done = one_sided(a, b, e.IBV_WR_RDMA_WRITE, "ack_spacing", len(src), chunk)
        timeouts = stat(dev_a, "retry_timeouts") - before
        log(f"ack_spacing try {attempt + 1}: retry_timeouts +{timeouts}")
        if not (done and expect("WRITE data", b.mr.read(len(src), 0) == src, True)):
            return False
        # A timer run from the last ACK met 84 to 102 here; one run from the
        # ACK asked for meets none, or one or two where TCG stalled the
        # responder past 16.8 ms (CI met +1 in both tries of a slow run).
        if timeouts <= ACK_SPACING_STALLS:
            return True
    log(f"in every try, more than {ACK_SPACING_STALLS} ACK time-outs sent a clean stream again")
    return False


SLOW_PEER_WRS = 24


def slow_peer(a, b, dev_a):
    """SLOW_PEER_WRS signaled 4 KiB WRITEs and READs in turn, one at a time, on
    a path slower than the ACK timeout: only the first few may time out."""
    chunk = 4096
    half = SLOW_PEER_WRS // 2 * chunk
    src = os.urandom(half)
    a.mr.write(src + bytes(half), 2 * half, 0)
    before = stat(dev_a, "retry_timeouts")
    t0 = time.monotonic()
    for i in range(SLOW_PEER_WRS):
        off = i // 2 * chunk
        if i % 2 == 0:
            a.post(i, e.IBV_WR_RDMA_WRITE, off, chunk, b.mr.buf + off, b.mr.rkey)
        else:
            a.post(i, e.IBV_WR_RDMA_READ, half + off, chunk, b.mr.buf + off, b.mr.rkey)
        if not expect(f"WR {i}", a.poll(1, 30), [(i, WC_SUCCESS)]):
            return False
    timeouts = stat(dev_a, "retry_timeouts") - before
    got = qp_details(a)
    ack_us, answer_us = got.get("ack_timeout_us"), got.get("answer_time_us")
    log(f"slow_peer: {SLOW_PEER_WRS} WRs in {time.monotonic() - t0:.2f} s, retry_timeouts "
        f"{timeouts}, ACK timeout now {ack_us} us, answer time {answer_us} us")
    most = SLOW_PEER_WRS // 3
    return (expect("READ copies", a.mr.read(half, half) == src, True) and
            expect(f"at most {most} retry_timeouts", timeouts <= most, True) and
            expect("an answer time past the round trip", (answer_us or 0) >= 40000, True) and
            expect("an ACK timeout past the round trip", (ack_us or 0) >= 40000, True))


# Rounds judged, and the most run to find that many on time.
TAIL_WAIT_ROUNDS = 10
TAIL_WAIT_MAX_ROUNDS = 50


def tail_wait(a, b, dev_a):
    """On a path with a 40 ms round trip, unsignaled WRITEs followed 5 ms
    later by a signaled one get no tail probe; a tail with nothing after it
    gets exactly one, before the ACK timeout.

    A round is judged only if its posts, from the first to the signaled one's
    return, took less than the answer time, half the probe's wait: on a slow
    TCG day four 64-byte posts and a 5 ms sleep took longer, and a probe then
    is right. Each round's probes are counted on their own."""
    a.mr.write(os.urandom(4096), 4096, 0)
    for i in range(8):
        a.post(i, e.IBV_WR_RDMA_WRITE, 64 * i, 64, b.mr.buf + 64 * i, b.mr.rkey)
        if not expect(f"answer-time WRITE {i}", a.poll(1, 30), [(i, WC_SUCCESS)]):
            return False
    answer_s = (qp_details(a).get("answer_time_us") or 0) / 1e6
    timeouts = stat(dev_a, "retry_timeouts")
    judged = rounds_probed = late = late_probed = 0
    for r in range(TAIL_WAIT_MAX_ROUNDS):
        if judged == TAIL_WAIT_ROUNDS:
            break
        slot = r % TAIL_WAIT_ROUNDS
        probes = stat(dev_a, "tail_ack_probes")
        t0 = time.monotonic()
        for i in range(4):
            a.post(100 + i, e.IBV_WR_RDMA_WRITE, 64 * i, 64, b.mr.buf + 256 * slot + 64 * i,
                   b.mr.rkey, signaled=False)
        time.sleep(0.005)
        a.post(r, e.IBV_WR_RDMA_WRITE, 256, 64, b.mr.buf + 4096 + 64 * slot, b.mr.rkey)
        span = time.monotonic() - t0
        if not expect(f"round {r}", a.poll(1, 30), [(r, WC_SUCCESS)]):
            return False
        probed = stat(dev_a, "tail_ack_probes") - probes
        if span < answer_s:
            judged += 1
            rounds_probed += probed
        else:
            late += 1
            late_probed += probed
    start = qp_details(a).get("sq_psn")
    probes = stat(dev_a, "tail_ack_probes")
    for i in range(3):
        a.post(200 + i, e.IBV_WR_RDMA_WRITE, 64 * i, 64, b.mr.buf + 8192 + 64 * i, b.mr.rkey,
               signaled=False)
    # The probe goes after 67 ms (half the ACK timeout), its ACK 40 ms later.
    acked_at = {"unacked_psn": ((start or 0) + 3) & 0xffffff, "ack_wait": 0}
    end = time.monotonic() + 3
    while True:
        time.sleep(0.1)
        got = qp_details(a)
        acked = {k: got.get(k) for k in acked_at}
        if acked == acked_at or time.monotonic() > end:
            break
    tail_probed = stat(dev_a, "tail_ack_probes") - probes
    timed_out = stat(dev_a, "retry_timeouts") - timeouts
    log(f"tail_wait: {rounds_probed} tail probes in {judged} rounds on time, {late_probed} "
        f"in {late} late, {tail_probed} for the tail, retry_timeouts +{timed_out}, answer "
        f"time {got.get('answer_time_us')} us, ACK timeout {got.get('ack_timeout_us')} us")
    landed = all(b.mr.read(256, 256 * r) == a.mr.read(256, 0) for r in range(TAIL_WAIT_ROUNDS))
    landed &= b.mr.read(64 * TAIL_WAIT_ROUNDS, 4096) == a.mr.read(64, 256) * TAIL_WAIT_ROUNDS
    return (expect("WRITE data", landed and b.mr.read(192, 8192) == a.mr.read(192, 0), True) and
            expect(f"{TAIL_WAIT_ROUNDS} rounds on time in {TAIL_WAIT_MAX_ROUNDS}",
                   judged, TAIL_WAIT_ROUNDS) and
            expect(f"at most 2 tail probes in {TAIL_WAIT_ROUNDS} rounds", rounds_probed <= 2,
                   True) and
            expect("tail probes for the tail", tail_probed, 1) and
            expect("retry_timeouts", timed_out, 0) and
            expect("the tail acknowledged", acked, acked_at))


def atomics(a, b):
    """ATOMICS FETCH_ADDs of 1 to B's first word, DEPTH at a time:
    every original value from 0 to ATOMICS - 1 comes back exactly once."""
    b.mr.write(bytes(8), 8, 0)
    a.mr.write(bytes(8 * ATOMICS), 8 * ATOMICS, 0)

    def post(i):
        wr = a.wr(i, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 8 * i, 8)
        wr.set_wr_atomic(b.mr.rkey, b.mr.buf, 1, 0)
        a.qp.post_send(wr)

    if not stream(a, b, "atomics", ATOMICS, 8, post):
        return False
    got = sorted(struct.unpack(f"={ATOMICS}Q", a.mr.read(8 * ATOMICS, 0)))
    final = struct.unpack("=Q", b.mr.read(8, 0))[0]
    if got != list(range(ATOMICS)):
        missing = sorted(set(range(ATOMICS)) - set(got))
        log(f"atomics: {len(missing)} original values missing (first {missing[:8]}), "
            f"{len(got) - len(set(got))} repeated")
        return False
    return expect("the word after the atomics", final, ATOMICS)


def retry(a, b, dev_a, retry_cnt, silence):
    """A 3-packet SEND to a silent peer: RETRY_EXC_ERR after retry_cnt resends,
    each with one window probe of its oldest packet, or, if `silence`, after 1 s
    of silence and more resends than that."""
    names = ("retry_timeouts", "retry_exceeded_err", "window_probes", "resend_probes")
    rrxe = dev_a.startswith("rrxe")
    before = {n: stat(dev_a, n) for n in names} if rrxe else {}
    t0 = time.monotonic()
    a.post(1, e.IBV_WR_SEND, 0, 3 * 1024)
    if not expect("SEND to a silent peer", a.poll(1, 60), [(1, WC_RETRY_EXC_ERR)]):
        return False
    took = time.monotonic() - t0
    if not rrxe:
        return True
    moved = {n: stat(dev_a, n) - before[n] for n in names}
    log(f"RETRY_EXC_ERR after {took:.2f} s: {moved}")
    if silence:
        return (expect("failed no sooner than 1 s", took >= 1.0, True) and
                expect("more resends than retry_cnt", moved["retry_timeouts"] > retry_cnt, True) and
                expect("exhausted retries", moved["retry_exceeded_err"], 1))
    return expect("resends, window probes and exhausted retries", moved,
                  {"retry_timeouts": retry_cnt, "retry_exceeded_err": 1,
                   "window_probes": retry_cnt, "resend_probes": retry_cnt})


def remote_error(a, b, case):
    b.post_recv(9, 0, 64)
    if case == "bad_rkey":
        a.post(1, e.IBV_WR_RDMA_WRITE, 0, 64, b.mr.buf, b.mr.rkey ^ 0x5a5a00)
    elif case == "out_of_range":
        a.post(1, e.IBV_WR_RDMA_WRITE, 0, 64, b.mr.buf + MIB - 32, b.mr.rkey)
    else:
        a.post(1, e.IBV_WR_RDMA_READ, 0, 64, b.mr.buf, b.mr.rkey)
    a.post(2, e.IBV_WR_SEND, 0, 64)
    return (expect("requester", a.poll(2, 30), [(1, WC_REM_ACCESS_ERR), (2, WC_WR_FLUSH_ERR)])
            and expect("responder's receive", b.poll(1, 30), [(9, WC_WR_FLUSH_ERR)]))


def mw_window(a, b):
    mw = MW(b.pd, e.IBV_MW_TYPE_2)
    try:
        bind = SendWR(wr_id=5, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        bind.set_bind_wr(mw, MWBindInfo(b.mr, b.mr.buf, 4096, e.IBV_ACCESS_REMOTE_WRITE))
        b.qp.post_send(bind)
        if not expect("BIND_MW", b.poll(1, 30), [(5, WC_SUCCESS)]):
            return False
        rkey = bind.rkey
        a.mr.write(b"window" * 8, 48, 0)
        a.post(1, e.IBV_WR_RDMA_WRITE, 0, 48, b.mr.buf + 4096 - 48, rkey)
        if not (expect("WRITE inside the window", a.poll(1, 30), [(1, WC_SUCCESS)]) and
                expect("data", b.mr.read(48, 4096 - 48), b"window" * 8)):
            return False
        try:
            b.mr.close()
            log("the MR was deregistered under a bound window")
            return False
        except PyverbsRDMAError as ex:
            if ex.error_code != errno.EBUSY:
                log(f"dereg_mr under a bound window: {ex!r}, want EBUSY")
                return False
        a.post(2, e.IBV_WR_RDMA_WRITE, 0, 48, b.mr.buf + 4096, rkey)
        return expect("WRITE past the window, inside the MR", a.poll(1, 30),
                      [(2, WC_REM_ACCESS_ERR)])
    finally:
        mw.close()


def wire(a, b, kind, count, psn, va=0, rkey=0):
    """Sends wire.py's KIND packets to DEV_B's QP as DEV_A (from $SENDER_NS)."""
    r = subprocess.run(["ip", "netns", "exec", os.environ["SENDER_NS"], "python3",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py"),
                        str(b.gid), kind, str(count), str(b.qp.qp_num), str(a.gid),
                        hex(psn), hex(va), hex(rkey)],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        log(f"wire.py {kind} failed: {r.stderr.strip()}")
    return r.returncode == 0


def srq_error(a, b):
    for wr_id in (1, 2):
        b.srq.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                               sg=[SGE(b.mr.buf + wr_id * 4096, 4096, b.mr.lkey)]))
    if not wire(a, b, "rc-send-first", 1, 0x1234):
        return False
    # Until the responder has taken the first receive for the message.
    time.sleep(1)
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_ERR
    b.qp.modify(attr, e.IBV_QP_STATE)

    def late(signum, frame):
        raise TimeoutError("no async event in 20 s")
    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(20)
    try:
        ev = b.ctx.get_async_event()
        ev.ack()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return (expect("async event", ev.event_type, e.IBV_EVENT_QP_LAST_WQE_REACHED) and
            expect("receive completions", b.poll(2, 2), [(1, WC_WR_FLUSH_ERR)]))


def write_forged(a, b):
    b.post_recv(1, 0, 4096)
    b.mr.write(bytes(4), 4, 8192)
    if not wire(a, b, "rc-write", 1, 0x1234, b.mr.buf + 8192, b.mr.rkey):
        return False
    end = time.monotonic() + 10
    while b.mr.read(4, 8192) != b"rrxe" and time.monotonic() < end:
        time.sleep(0.05)
    if not expect("the well-formed WRITE's bytes", b.mr.read(4, 8192), b"rrxe"):
        return False
    if not wire(a, b, "rc-write-imm-empty", 1, 0x1235, 0, b.mr.rkey ^ 0xFF00):
        return False
    got = b.poll(1, 10)
    attr, _ = b.qp.query(e.IBV_QP_STATE)
    return (expect("receive completion", got, [(1, WC_WR_FLUSH_ERR)]) and
            expect("DEV_B's QP state", attr.qp_state, e.IBV_QPS_ERR))


def read_forged(a, b):
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_ERR
    a.qp.modify(attr, e.IBV_QP_STATE)
    length = 2500
    b.mr.write(bytes(length), length, 0)
    b.qp.post_send(b.wr(1, e.IBV_WR_RDMA_READ, 0, length, a.mr.buf, a.mr.rkey))
    if not (wire(a, b, "rc-read-resp-empty", length, 0x1234) and
            wire(a, b, "rc-read-resp-pkey", length, 0x1234)):
        return False
    if not expect("completions after malformed responses", b.poll(1, 1), []):
        return False
    if not wire(a, b, "rc-read-resp", length, 0x1234):
        return False
    return (expect("READ completion", b.poll(1, 10), [(1, WC_SUCCESS)]) and
            expect("READ data", b.mr.read(length, 0) == read_data(length), True))


def read_repeat(a, b, dev_b):
    length = 4096
    b.mr.write(read_data(2 * length), 2 * length, 0)
    a.post(1, e.IBV_WR_RDMA_READ, 0, length, b.mr.buf, b.mr.rkey)
    if not expect("the READ", a.poll(1, 10), [(1, WC_SUCCESS)]):
        return False

    def answers(psn, va, rkey, count, want):
        """DEV_B's packets sent for one repeated READ request; None if DEV_B
        did not take it as a repeat (then a drop would prove nothing)."""
        sent, dup = stat(dev_b, "sent_pkts"), stat(dev_b, "rcv_duplicate")
        if not wire(a, b, "rc-read-req", count, psn, va, rkey):
            return None
        end = time.monotonic() + 10
        while stat(dev_b, "rcv_duplicate") == dup and time.monotonic() < end:
            time.sleep(0.05)
        if stat(dev_b, "rcv_duplicate") == dup:
            log("the repeated READ was not counted in rcv_duplicate")
            return None
        # The responses go once the responder's lock is dropped: wait for the
        # ones expected, then a while for any more.
        while stat(dev_b, "sent_pkts") - sent < want and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.5)
        return stat(dev_b, "sent_pkts") - sent

    buf, rkey = b.mr.buf, b.mr.rkey
    for what, args, want in (("the whole READ", (0x1234, buf, rkey, length), 4),
                             ("its rest from the third PSN",
                              (0x1236, buf + 2048, rkey, length - 2048), 2),
                             ("more bytes", (0x1234, buf, rkey, 2 * length), 0),
                             ("another rkey", (0x1234, buf, rkey ^ 0xFF00, length), 0),
                             ("a PSN the READ did not take", (0x1233, buf, rkey, length), 0)):
        if not expect(f"responses to a repeat of {what}", answers(*args, want), want):
            return False
    attr, _ = b.qp.query(e.IBV_QP_STATE)
    if not expect("DEV_B's QP state", attr.qp_state, e.IBV_QPS_RTS):
        return False
    a.mr.write(bytes(length), length, 0)
    a.post(2, e.IBV_WR_RDMA_READ, 0, length, b.mr.buf + length, b.mr.rkey)
    return (expect("the next READ", a.poll(1, 10), [(2, WC_SUCCESS)]) and
            expect("its bytes", a.mr.read(length, 0) == read_data(2 * length)[length:], True))


def run_case(dev_a, gid_a, dev_b, gid_b, case, arg, mtu, read_kib):
    """One case on a fresh QP pair (an error leaves the QPs in the error state)."""
    rw = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
          e.IBV_ACCESS_REMOTE_ATOMIC)
    size = (int(arg) if case == "transfer" else 1) * MIB
    a = Side(dev_a, int(gid_a), size, rw, depth=DEEP_SQ if case == "deep_sq" else DEPTH)
    b_access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE if case == "no_read" else rw
    if case == "mw_window":
        b_access |= e.IBV_ACCESS_MW_BIND
    b = Side(dev_b, int(gid_b), size, b_access, srq=case == "srq_error")
    kw = {}
    if case == "rnr0":
        kw = {"rnr_retry": 0}
    elif case in ("retry", "retry7", "retry_silence"):
        # At 537 ms a try, retry_cnt 2 passes the 1 s of silence too.
        kw = {"timeout": 12 if case == "retry_silence" else 17,
              "retry_cnt": 7 if case == "retry7" else 2}
    elif case in ("tail", "shaped", "deep_sq", "write_read"):
        # shaped: a full shaper queue is ~0.8 s behind; no ACK timeout then.
        # deep_sq: the first packets go before DEV_B's QP is ready.
        kw = {"timeout": 18}
    elif case == "ack_spacing":
        # 16.8 ms: far shorter than 64 packets take under TCG with KASAN.
        kw = {"timeout": 12}
    elif case == "tail_wait":
        # 134 ms: the probe waits at most half of it.
        kw = {"timeout": 15}
    elif case in ("transfer", "slow_peer"):
        kw = {"timeout": 12}
        if case == "transfer":
            kw["path_mtu"] = PATH_MTUS[mtu]
    elif case == "read_backlog":
        kw = {"timeout": 16, "rd_atomic": 16}
    elif case == "atomics":
        # The answers may be delayed by 20 ms; timeout 14 is 67 ms.
        kw = {"timeout": 14, "rd_atomic": DEPTH}
    a.connect(b, **kw)
    if case == "deep_sq":
        return deep_sq(a, b)
    # read_forged: DEV_B's READ waits 2.1 s a try, and outlives three wire.py
    # runs under TCG.
    b.connect(a, path_mtu=kw.get("path_mtu", e.IBV_MTU_1024),
              timeout=19 if case == "read_forged" else 14,
              min_rnr_timer=31 if case == "handoff" else 14, rd_atomic=kw.get("rd_atomic", 1))
    if case == "transfer":
        return transfer(a, b, int(arg), dev_a, read_kib)
    if case == "atomics":
        return atomics(a, b)
    if case in ("rnr", "rnr0"):
        return rnr(a, b, 0 if case == "rnr0" else 7)
    if case in ("retry", "retry7", "retry_silence"):
        return retry(a, b, dev_a, kw["retry_cnt"], case == "retry_silence")
    if case == "details":
        return details(a, b)
    if case == "shaped":
        return shaped(a, b)
    if case == "tail":
        return tail(a, b)
    if case == "handoff":
        return handoff(a, b, dev_a, dev_b)
    if case == "unsignaled_read":
        return unsignaled_read(a, b, dev_a)
    if case == "worker_read":
        return worker_read(a, b, dev_a)
    if case == "read_backlog":
        return read_backlog(a, b, dev_a)
    if case == "write_read":
        return write_read(a, b, dev_a)
    if case == "slow_peer":
        return slow_peer(a, b, dev_a)
    if case == "ack_spacing":
        return ack_spacing(a, b, dev_a)
    if case == "tail_wait":
        return tail_wait(a, b, dev_a)
    if case in ("bad_rkey", "out_of_range", "no_read"):
        return remote_error(a, b, case)
    if case == "mw_window":
        return mw_window(a, b)
    if case == "srq_error":
        return srq_error(a, b)
    if case == "write_forged":
        return write_forged(a, b)
    if case == "read_forged":
        return read_forged(a, b)
    if case == "read_repeat":
        return read_repeat(a, b, dev_b)
    raise ValueError(f"unknown case {case}")


# Cases whose check can meet a race that the test cannot rule out (see the
# case's description): tries before it fails.
TRIES = {"handoff": 2}


def main():
    if len(sys.argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    dev_a, gid_a, dev_b, gid_b, cases = sys.argv[1:6]
    arg = sys.argv[6] if len(sys.argv) > 6 else "0"
    mtu = int(sys.argv[7]) if len(sys.argv) > 7 else 1024
    read_kib = int(sys.argv[8]) if len(sys.argv) > 8 else 1024
    if read_kib <= 0 or 1024 % read_kib:
        print(f"READ_KIB {read_kib} does not divide 1024", file=sys.stderr)
        return 2
    if mtu not in PATH_MTUS:
        print(f"MTU {mtu} is not one of {sorted(PATH_MTUS)}", file=sys.stderr)
        return 2
    failed = 0
    # Several cases in one process save the interpreter's start-up under TCG.
    for case in cases.split(","):
        for attempt in range(TRIES.get(case, 1)):
            if attempt:
                gc.collect()  # the last try's QPs are gone before the next
                log(f"{case}: try {attempt + 1}")
            try:
                passed = run_case(dev_a, gid_a, dev_b, gid_b, case, arg, mtu, read_kib)
            except Exception as ex:  # a verbs error fails this case only
                log(f"{case}: {ex!r}")
                passed = False
            if passed:
                break
        print(f"{'PASS' if passed else 'FAIL'} {case}", flush=True)
        failed += not passed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
