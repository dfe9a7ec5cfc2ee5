#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""On-demand-paging MRs (IB_ACCESS_ON_DEMAND) on one device, two RC QPs
connected to each other, with the MRs over anonymous mmaps that the process
changes behind the device's back.

The device copies to and from an ODP MR's pages only once it has faulted them
in, and must forget them when the process's mm takes them away: after
MADV_DONTNEED the old pages are freed, and data placed in them would be lost
(the buffer reads zeros) or land in someone else's memory (KASAN). Each case
checks the bytes that arrive and that the device ran page faults for them
(the odp_faults counter). The last ones make a target unreachable
(PROT_NONE) and expect a remote access error for a WRITE and a FETCH_ADD,
not a hang.

Usage: odp.py DEVICE   (TAP on stdout)
"""
import ctypes as C
import mmap
import os
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

SIZE = 256 * 1024
CHUNK = 16 * 1024
WC_SUCCESS, WC_REM_ACCESS_ERR = 0, 10
MADV_DONTNEED = 4
MAP_FIXED = 0x10
PROT_NONE = 0
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
libc = C.CDLL(None, use_errno=True)
libc.madvise.argtypes = [C.c_void_p, C.c_size_t, C.c_int]
libc.munmap.argtypes = [C.c_void_p, C.c_size_t]
libc.mmap.restype = C.c_void_p
libc.mmap.argtypes = [C.c_void_p, C.c_size_t, C.c_int, C.c_int, C.c_int, C.c_long]
DEV = sys.argv[1]
failed = 0
case = 0


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def ok(good, what):
    global case, failed
    case += 1
    print(f"{'ok' if good else 'not ok'} {case} {what}", flush=True)
    failed += not good


def counter(name):
    out = subprocess.run(["rdma", "statistic", "show", "link", f"{DEV}/1"],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[out.index(name) + 1])


class Buf:
    """An anonymous private mapping of `size` bytes, never touched here: its
    pages do not exist until someone writes (or reads) them."""

    def __init__(self, size):
        self.size = size
        self.addr = libc.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE,
                              mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        assert self.addr not in (None, C.c_void_p(-1).value)

    def read(self, off=0, n=None):
        return C.string_at(self.addr + off, self.size - off if n is None else n)

    def write(self, data, off=0):
        C.memmove(self.addr + off, data, len(data))

    def drop(self):
        """MADV_DONTNEED: the pages are freed; the next access gets zero pages."""
        assert libc.madvise(self.addr, self.size, MADV_DONTNEED) == 0

    def protect(self):
        """Replaces the range with a PROT_NONE mapping: the mm invalidates the
        old pages, and a fault there fails. (Unmapping it instead would let the
        next mapping, the interpreter's own perhaps, land there.)"""
        p = libc.mmap(self.addr, self.size, PROT_NONE,
                      mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_FIXED, -1, 0)
        assert p == self.addr


class Side:
    def __init__(self, ctx, pd, gid_index):
        self.ctx, self.gid_index = ctx, gid_index
        self.gid = ctx.query_gid(1, gid_index)
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1, max_recv_sge=1)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                    cap=cap, sq_sig_all=1))

    def connect(self, peer):
        a = QPAttr()
        a.qp_state, a.pkey_index, a.port_num, a.qp_access_flags = e.IBV_QPS_INIT, 0, 1, ACCESS
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                       e.IBV_QP_ACCESS_FLAGS)
        a = QPAttr()
        a.qp_state, a.path_mtu, a.dest_qp_num = e.IBV_QPS_RTR, e.IBV_MTU_1024, peer.qp.qp_num
        a.rq_psn, a.max_dest_rd_atomic, a.min_rnr_timer = 0, 4, 1
        a.ah_attr = AHAttr(port_num=1, is_global=1,
                           gr=GlobalRoute(dgid=peer.gid, sgid_index=self.gid_index))
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                       e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
                       e.IBV_QP_MIN_RNR_TIMER)
        a = QPAttr()
        a.qp_state, a.timeout, a.retry_cnt, a.rnr_retry = e.IBV_QPS_RTS, 14, 7, 7
        a.sq_psn, a.max_rd_atomic = 0, 4
        self.qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                       e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)

    def poll(self, secs=30):
        """One completion, waited for at most `secs`: (wr_id, status, opcode) or None."""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            n, wcs = self.cq.poll(1)
            if n:
                return wcs[0].wr_id, wcs[0].status, wcs[0].opcode
            time.sleep(0.001)
        return None


def rdma(side, opcode, local, lkey, remote, rkey, n, wr_id=1):
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[SGE(local, n, lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, remote)
    side.qp.post_send(wr)


def transfer(side, opcode, local, lkey, remote, rkey, size=SIZE):
    """`size` bytes in CHUNK-byte WRs, one at a time; the statuses that were
    not success."""
    bad = []
    for off in range(0, size, CHUNK):
        rdma(side, opcode, local + off, lkey, remote + off, rkey, CHUNK, off)
        wc = side.poll()
        if wc is None or wc[1] != WC_SUCCESS:
            bad.append(wc)
            break
    return bad


def pattern(seed, n=SIZE):
    return bytes((i * 7 + seed) & 0xff for i in range(n))


def main():
    ctx = Context(name=DEV)
    gid_index = int(os.environ.get("RRXE_GID_INDEX", "1"))
    attr = ctx.query_device_ex()
    caps = attr.odp_caps
    want_rc = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV | e.IBV_ODP_SUPPORT_WRITE |
               e.IBV_ODP_SUPPORT_READ | e.IBV_ODP_SUPPORT_ATOMIC |
               e.IBV_ODP_SUPPORT_SRQ_RECV)
    print("TAP version 13")
    print("1..9", flush=True)
    ok(caps.general_caps & e.IBV_ODP_SUPPORT and
       caps.rc_odp_caps & want_rc == want_rc,
       f"the device offers ODP (general {caps.general_caps:#x}, "
       f"rc {caps.rc_odp_caps:#x})")

    pd = PD(ctx)
    a, b = Side(ctx, pd, gid_index), Side(ctx, pd, gid_index)
    a.connect(b)
    b.connect(a)
    src, dst = Buf(SIZE), Buf(SIZE)
    # The source is an ordinary (pinned) MR; the target, untouched, is ODP.
    src.write(pattern(1))
    src_mr = MR(pd, SIZE, ACCESS, address=src.addr)
    dst_mr = MR(pd, SIZE, ACCESS | e.IBV_ACCESS_ON_DEMAND, address=dst.addr)

    faults = counter("odp_faults")
    bad = transfer(a, e.IBV_WR_RDMA_WRITE, src.addr, src_mr.lkey, dst.addr, dst_mr.rkey)
    got = counter("odp_faults") - faults
    ok(not bad and dst.read() == pattern(1) and got > 0,
       f"WRITE into an untouched ODP MR arrives whole ({got} faults) {bad or ''}")

    # The pages WRITE filled are freed; the device must not write to them again.
    dst.drop()
    src.write(pattern(2))
    faults = counter("odp_faults")
    bad = transfer(a, e.IBV_WR_RDMA_WRITE, src.addr, src_mr.lkey, dst.addr, dst_mr.rkey)
    got = counter("odp_faults") - faults
    ok(not bad and dst.read() == pattern(2) and got > 0,
       f"after MADV_DONTNEED a WRITE faults the new pages in and lands in them ({got} faults) "
       f"{bad or ''}")

    # READ: the responder reads the ODP MR (dropped: zero pages, then written by
    # the CPU), the requester places into a second, dropped ODP MR.
    dst.drop()
    dst.write(pattern(3)[:SIZE // 2])
    back = Buf(SIZE)
    back_mr = MR(pd, SIZE, ACCESS | e.IBV_ACCESS_ON_DEMAND, address=back.addr)
    back.write(b"\xee" * SIZE)
    back.drop()
    bad = transfer(a, e.IBV_WR_RDMA_READ, back.addr, back_mr.lkey, dst.addr, dst_mr.rkey)
    want = pattern(3)[:SIZE // 2] + bytes(SIZE // 2)
    ok(not bad and back.read() == want,
       f"READ from an ODP MR into an ODP MR, both after MADV_DONTNEED {bad or ''}")

    # WRITE sourced from a dropped ODP MR: the requester faults its own pages.
    back.drop()
    back.write(pattern(4))
    back.drop()
    back.write(pattern(5)[:CHUNK], 0)
    bad = transfer(a, e.IBV_WR_RDMA_WRITE, back.addr, back_mr.lkey, dst.addr, dst_mr.rkey)
    want = pattern(5)[:CHUNK] + bytes(SIZE - CHUNK)
    ok(not bad and dst.read() == want,
       f"WRITE from an ODP MR after MADV_DONTNEED sends what the memory holds now {bad or ''}")

    # SEND into an ODP receive buffer that was dropped.
    dst.drop()
    b.qp.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(dst.addr, CHUNK, dst_mr.lkey)]))
    src.write(pattern(6)[:CHUNK])
    a.qp.post_send(SendWR(wr_id=8, opcode=e.IBV_WR_SEND, num_sge=1,
                          sg=[SGE(src.addr, CHUNK, src_mr.lkey)],
                          send_flags=e.IBV_SEND_SIGNALED))
    sent, recvd = a.poll(), b.poll()
    ok(sent and sent[1] == WC_SUCCESS and recvd and recvd[1] == WC_SUCCESS and
       dst.read(0, CHUNK) == pattern(6)[:CHUNK],
       f"SEND into a dropped ODP receive buffer arrives (send {sent}, recv {recvd})")

    # FETCH_ADD on a dropped ODP MR: the old value is 0, the new one lands.
    dst.drop()
    wr = SendWR(wr_id=9, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                sg=[SGE(src.addr, 8, src_mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey=dst_mr.rkey, addr=dst.addr + 64, compare_add=5, swap=0)
    src.write(b"\xff" * 8)
    a.qp.post_send(wr)
    wc = a.poll()
    ok(wc and wc[1] == WC_SUCCESS and src.read(0, 8) == bytes(8) and
       int.from_bytes(dst.read(64, 8), "little") == 5,
       f"FETCH_ADD on a dropped ODP MR returns 0 and adds {wc}")

    # The target cannot be reached any more: the fault fails, the WRITE gets a
    # remote access error (and its QP fails).
    errors = counter("odp_fault_errors")
    dst.protect()
    rdma(a, e.IBV_WR_RDMA_WRITE, src.addr, src_mr.lkey, dst.addr, dst_mr.rkey, CHUNK)
    wc = a.poll()
    got = counter("odp_fault_errors") - errors
    ok(wc and wc[1] == WC_REM_ACCESS_ERR and got > 0,
       f"WRITE into an unreachable ODP range fails with a remote access error {wc}, "
       f"{got} failed faults")

    # So does an atomic, on a new pair of QPs.
    c, d = Side(ctx, pd, gid_index), Side(ctx, pd, gid_index)
    c.connect(d)
    d.connect(c)
    errors = counter("odp_fault_errors")
    wr = SendWR(wr_id=10, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                sg=[SGE(src.addr, 8, src_mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey=dst_mr.rkey, addr=dst.addr + 64, compare_add=5, swap=0)
    c.qp.post_send(wr)
    wc = c.poll()
    got = counter("odp_fault_errors") - errors
    ok(wc and wc[1] == WC_REM_ACCESS_ERR and got > 0,
       f"FETCH_ADD on an unreachable ODP range fails with a remote access error {wc}, "
       f"{got} failed faults")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
