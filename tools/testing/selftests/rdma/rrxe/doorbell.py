#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No lost wake-up: bursts of posts through rrxe's doorbell
(uapi/rdma/rdma_user_rrxe.h), from one process through the rxe provider.

    doorbell.py [--dev-a DEV] [--dev-b DEV] [--seed S] [--stock] [--forge-at K]
                [--trace] CASE [N]

One RC QP pair, DEV_A (default rrxe0) -> DEV_B (default rrxe1; name the same
device twice for a loopback pair), at path MTU 1024. DEV_B keeps 64 receives
posted. Each burst is 1 to 3 WQEs (random, seeded), each posted alone (one
ibv_post_send each, so that each post decides for itself whether to ring): an
RDMA WRITE or a SEND of 8, 64 or 512 bytes; either all signaled or only the
last. The burst is then awaited by polling DEV_A's CQ, for at most 5 s: a
burst not complete by then is a lost wake-up (a WQE posted without a system
call that the kernel never took). The run stops there and prints both QPs'
`rdma resource show qp -dd`, the send ring's sq_flags and indices and the
counters, then rings (a raw POST_SEND) and says whether that completed the
burst, i.e. whether the WQEs were stranded in the ring.

CASE:
  bursts    N bursts (default $RRXE_DOORBELL_BURSTS, else 1000: about 45 s
            under TCG, 2026-12; make soak passes more);
  jittered  the same, the poster waiting a random 0-200 us (busy) between the
            posts of a burst, so that posts land while the kernel withdraws
            its promise (db_races counts those the re-read found);
  all       both, N each;
  destroys  N QP pairs, made anew for each: one WRITE awaited, a pause of
            0-2 ms (in which a poller may take the idle QP), a burst of 1
            to 3 WRITEs (one post each), and DEV_A's QP destroyed at once:
            the destroy races the kernel's re-check of the ring and its
            poller. Each destroy must succeed within 5 s, and once idle
            every promise is withdrawn and no QP is left but the first
            pair's.

With the doorbell provider (the default) each case also requires that DEV_A
took the doorbell (db_contexts moved when it was opened) and re-checked the
ring (db_rechecks moved: WQEs taken without a system call), and that once idle
every promise was withdrawn (drv_db_watched 0, db_arms = db_disarms). With
--stock (the stock provider, RDMAV_DRIVERS naming it) it requires the
opposite: no doorbell, one write() per post.

--forge-at K is a self-check of the detection: before burst K, once the kernel
has withdrawn its promise, RRXE_SQ_WATCHED is written into the send ring by
hand, so the provider skips the system call the kernel needs; the case must
fail there, and the POST_SEND must complete the burst.

Besides the counters, each case prints the time from a burst's first post to
its last completion (p50, p99, max), for all bursts and by kind: every post
made the system call; a post skipped it behind an unsignaled WQE; a post
skipped it with every WQE signaled. (The kernel promises a re-read only while
an answer is due, so a post behind an unsignaled WQE that asked for no ACK
rings: had it skipped, only the tail probe, a millisecond or more later, would
have taken it.) --trace adds, from the sysfs counters read around each
burst, the recovery counters that moved per kind, and the slowest bursts.

The seed is printed (by default it is taken from the clock): --seed repeats a
run's bursts.

Prints one "PASS CASE ..." or "FAIL CASE ..." line per case, details as "# "
lines; exits 0 when every case passed.
"""
import argparse
import ctypes as C
import mmap
import os
import random
import struct
import subprocess
import sys
import time

import hostile_ring as hr

ibv = hr.ibv
MR_SIZE = 1 << 16
RECV_OFF, RECV_SLOT = 1 << 15, 512
SQ_DEPTH, RQ_DEPTH, CQE = 16, 64, 256
LENGTHS = (8, 64, 512)
WAIT = 5.0
ACCESS = 1 | 2 | 4  # local write, remote write, remote read
COUNTERS = ("db_contexts", "db_arms", "db_disarms", "db_rechecks", "db_races", "db_rings",
            "db_cq_events", "cq_notify_calls", "post_handoffs")


def log(*a):
    for line in " ".join(str(x) for x in a).splitlines():
        print("# " + line)
    sys.stdout.flush()


def syscw():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("syscw:"):
                return int(line.split()[1])
    return 0


def gid_index(dev):
    """The RoCE v2 IPv4 GID of DEV's port 1."""
    d = f"/sys/class/infiniband/{dev}/ports/1"
    for i in range(16):
        try:
            with open(f"{d}/gids/{i}") as f:
                g = f.read().strip()
            with open(f"{d}/gid_attrs/types/{i}") as f:
                ty = f.read().strip()
        except OSError:
            continue
        if ty == "RoCE v2" and g.startswith("0000:0000:0000:0000:0000:ffff:"):
            return i
    sys.exit(f"doorbell.py: {dev} has no RoCE v2 IPv4 GID")


class Side:
    """One device's end: a context, an MR, a CQ and an RC QP."""

    def __init__(self, dev):
        self.dev = dev
        n = C.c_int()
        lst = ibv.ibv_get_device_list(C.byref(n))
        devp = next((lst[i] for i in range(n.value)
                     if ibv.ibv_get_device_name(lst[i]).decode() == dev), None)
        if not devp:
            sys.exit(f"doorbell.py: no device {dev}")
        before = hr.dev_stats(dev).get("db_contexts", 0)
        fds = hr.uverbs_fds()
        self.ctx = ibv.ibv_open_device(devp)
        assert self.ctx, "ibv_open_device"
        self.took = hr.dev_stats(dev).get("db_contexts", 0) > before
        self.fd = (hr.uverbs_fds() - fds).pop()
        self.v = hr.Verbs(self.ctx)
        self.pd = ibv.ibv_alloc_pd(self.ctx)
        self.buf = mmap.mmap(-1, MR_SIZE)
        self.addr = C.addressof(C.c_char.from_buffer(self.buf))
        self.mr = ibv.ibv_reg_mr(self.pd, self.addr, MR_SIZE, ACCESS)
        assert self.mr, f"ibv_reg_mr: {os.strerror(C.get_errno())}"
        self.lkey, self.rkey = struct.unpack_from("<II", C.string_at(self.mr + 36, 8))
        self.cq = ibv.ibv_create_cq(self.ctx, CQE, None, None, 0)
        assert self.cq, "ibv_create_cq"
        maps0 = set(hr.uverbs_maps())
        a = hr.QpInitAttr(send_cq=self.cq, recv_cq=self.cq,
                          cap=hr.QpCap(SQ_DEPTH, RQ_DEPTH, 1, 1, 0), qp_type=hr.QPT_RC,
                          sq_sig_all=0)
        self.qp = ibv.ibv_create_qp(self.pd, C.byref(a))
        assert self.qp, f"ibv_create_qp: {os.strerror(C.get_errno())}"
        m = hr.uverbs_maps()
        # The QP's rings, in creation order: the receive ring, then the send ring.
        rq, sq = sorted(set(m) - maps0, key=lambda x: m[x][0])[:2]
        self.sq = hr.Ring(sq, m[sq][1])
        self.handle, self.qpn = struct.unpack_from("<II", C.string_at(self.qp + 48, 8))
        self.gid_index = gid_index(dev)
        self.gid = hr.Gid()
        if ibv.ibv_query_gid(self.ctx, 1, self.gid_index, C.byref(self.gid)):
            sys.exit(f"doorbell.py: ibv_query_gid {dev}")

    def modify(self, mask, **kw):
        a = hr.QpAttr()
        for k, v in kw.items():
            if k == "ah":
                a.ah_attr = v
            else:
                setattr(a, k, v)
        r = ibv.ibv_modify_qp(self.qp, C.byref(a), mask)
        if r:
            sys.exit(f"doorbell.py: modify_qp {self.dev}: {os.strerror(r)}")

    def connect(self, peer):
        ah = hr.AhAttr(grh=hr.GlobalRoute(dgid=peer.gid, sgid_index=self.gid_index,
                                          hop_limit=64), is_global=1, port_num=1)
        self.modify(hr.M_STATE | hr.M_PKEY | hr.M_PORT | hr.M_ACCESS, qp_state=hr.INIT,
                    port_num=1, qp_access_flags=ACCESS)
        self.modify(hr.M_STATE | hr.M_AV | hr.M_MTU | hr.M_DEST_QPN | hr.M_RQ_PSN
                    | hr.M_DEST_RD_ATOMIC | hr.M_MIN_RNR, qp_state=hr.RTR, ah=ah, path_mtu=3,
                    dest_qp_num=peer.qpn, rq_psn=0, max_dest_rd_atomic=1, min_rnr_timer=12)
        self.modify(hr.M_STATE | hr.M_TIMEOUT | hr.M_RETRY | hr.M_RNR | hr.M_SQ_PSN
                    | hr.M_RD_ATOMIC, qp_state=hr.RTS, timeout=14, retry_cnt=7, rnr_retry=7,
                    sq_psn=0, max_rd_atomic=1)

    def sender(self, peer):
        """One work request per opcode, reused: the provider copies it."""
        self.sges = {op: hr.sge(self.addr, 0, self.lkey) for op in (hr.WR_RDMA_WRITE, hr.WR_SEND)}
        self.wrs = {op: hr.send_wr(0, op, 0, s, raddr=peer.addr, rkey=peer.rkey)
                    for op, s in self.sges.items()}

    def post(self, wr_id, op, length, signaled):
        w = self.wrs[op]
        struct.pack_into("<Q", w, 0, wr_id)
        struct.pack_into("<I", w, 32, hr.SEND_SIGNALED if signaled else 0)
        struct.pack_into("<I", self.sges[op], 8, length)
        return self.v.post_send(self.qp, w)

    def receiver(self):
        """RQ_DEPTH receives, each reposted as it completes (wr_id = its slot)."""
        self.rsges = [hr.sge(self.addr + RECV_OFF + i * RECV_SLOT, RECV_SLOT, self.lkey)
                      for i in range(RQ_DEPTH)]
        self.rwrs = [hr.recv_wr(i, s) for i, s in enumerate(self.rsges)]
        for w in self.rwrs:
            if self.v.post_recv(self.qp, w):
                sys.exit("doorbell.py: post_recv")

    def take_receives(self):
        """Completed receives now, each reposted: (count, [bad statuses])."""
        n, bad = 0, []
        while True:
            got = self.v.poll(self.cq)
            if not got:
                return n, bad
            for wr_id, st in got:
                n += 1
                if st != hr.WC_SUCCESS or wr_id >= RQ_DEPTH:
                    bad.append((wr_id, st))
                elif self.v.post_recv(self.qp, self.rwrs[wr_id]):
                    bad.append((wr_id, "repost"))

    def wait(self, want, secs):
        """Up to `want` completions, polling for at most secs."""
        got, end, idle = [], time.monotonic() + secs, 0
        while len(got) < want:
            c = self.v.poll(self.cq, want - len(got))
            if c:
                got += c
                continue
            idle += 1
            if idle > 32:
                if time.monotonic() > end:
                    break
                time.sleep(0.00005)
        return got

    def details(self):
        r = subprocess.run(["rdma", "resource", "show", "qp", "link", f"{self.dev}/1", "lqpn",
                            str(self.qpn), "-dd"], capture_output=True, text=True, check=False)
        return (r.stdout + r.stderr).strip()


def spread(secs):
    """A list of times as "n, p50, p99, max" in ms."""
    if not secs:
        return "none"
    s = sorted(secs)

    def pct(p):
        return s[min(len(s) - 1, int(p * len(s)))] * 1000
    return f"{len(s)}, p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms, max {s[-1] * 1000:.0f} ms"


def spin(secs):
    end = time.perf_counter() + secs
    while time.perf_counter() < end:
        pass


def counters(devs):
    return {d: hr.dev_stats(d) for d in devs}


def moved(before, after):
    """The doorbell's counters, and every other one that moved."""
    out = []
    for d in after:
        m = {k: after[d].get(k, 0) - before[d].get(k, 0) for k in after[d]}
        out.append(f"{d}: " + " ".join(f"{k} +{v}" for k, v in m.items()
                                       if k in COUNTERS or v))
    return "\n".join(out)


class Trace:
    """--trace: each device's counters (sysfs hw_counters) around each burst:
    the recovery counters that moved, per kind of burst, and the slowest
    bursts in full. Slow: the reads cost ~100 file reads a burst."""
    KEYS = ("tail_ack_probes", "retry_timeouts", "window_probes", "rcvd_seq_nak",
            "rcvd_rnr_nak", "db_rechecks", "db_races", "post_handoffs")

    def __init__(self, devs):
        hw = "/sys/class/infiniband/{}/ports/1/hw_counters"
        self.files = {d: [(k, open(f"{hw.format(d)}/{k}"))
                          for k in sorted(os.listdir(hw.format(d))) if k != "lifespan"]
                      for d in devs}
        self.bursts = []

    def snap(self):
        out = {}
        for d, fs in self.files.items():
            for k, f in fs:
                f.seek(0)
                out[(d, k)] = int(f.read() or 0)
        return out

    def note(self, i, burst, secs, rang, s0, s1):
        self.bursts.append((secs, i, burst, rang, {f"{d}.{k}": s1[(d, k)] - s0[(d, k)]
                                                   for d, k in s1 if s1[(d, k)] != s0[(d, k)]}))

    def report(self, dev):
        groups = {}
        for secs, i, burst, rang, m in self.bursts:
            g = groups.setdefault(kind(burst, rang), [[], {}])
            g[0].append(secs)
            for k in self.KEYS:
                g[1][k] = g[1].get(k, 0) + m.get(f"{dev}.{k}", 0)
        for name, (secs, m) in groups.items():
            log(f"{name}: {spread(secs)}; {dev}: " + " ".join(f"{k} +{v}" for k, v in m.items()
                                                              if v))
        log("slowest bursts (ms, burst, posts that rang, (wr_id, opcode, length, signaled), "
            "counters that moved):")
        for secs, i, burst, rang, m in sorted(self.bursts, key=lambda b: -b[0])[:12]:
            log(f"{secs * 1000:.0f} {i} {rang}/{len(burst)} {burst} {m}")


def kind(burst, rang):
    """A burst as the latency report groups them."""
    if rang >= len(burst):
        return "every post rang"
    if all(b[3] for b in burst):
        return "a post skipped the system call, every WQE signaled"
    return "a post skipped the system call, behind an unsignaled WQE"


def stranded(a, b, i, burst, want, got, before):
    """Diagnoses a burst that did not complete in time."""
    devs = list(dict.fromkeys([a.dev, b.dev]))
    log(f"lost wake-up? burst {i}: posted {burst} (wr_id, opcode, length, signaled); "
        f"waited {WAIT:.0f} s for {want}, got {got}")
    log(f"{a.dev} send ring: sq_flags {hr.u32(a.sq.base + hr.DB_WORD):#x}, producer "
        f"{hr.u32(a.sq.base + hr.PROD)}, consumer {hr.u32(a.sq.base + hr.CONS)}, mask "
        f"{a.sq.mask}")
    log(f"{a.dev} QP {a.qpn}:\n{a.details()}")
    log(f"{b.dev} QP {b.qpn}:\n{b.details()}")
    log(moved(before, counters(devs)))
    hr.ring(a.fd, a.handle)
    more = a.wait(len(want) - len(got), WAIT)
    if got + more and [w for w, _ in got + more] == want:
        log(f"a POST_SEND then completed it ({more}): its WQEs were stranded in the send "
            "ring, posted without a system call and never taken")
    else:
        log(f"a POST_SEND did not complete it either (got {more}); {a.dev} QP now:\n"
            f"{a.details()}")


def run_case(name, a, b, n, seed, jitter, stock, forge_at, trace):
    rng = random.Random(seed)
    devs = list(dict.fromkeys([a.dev, b.dev]))
    tr = Trace(devs) if trace else None
    before = counters(devs)
    w0, t0 = syscw(), time.monotonic()
    wr_id = posts = sends = writes = recvs = 0
    # Burst times, by whether every post of the burst made the system call.
    bad, lat, by_kind = [], [], {}
    ok = True
    for i in range(n):
        if i == forge_at:
            # The self-check: a promise the kernel did not make.
            wait = time.monotonic() + 3
            while (hr.qp_dd(a.dev, a.qpn).get("db_watched", 1) != 0
                   and time.monotonic() < wait):
                time.sleep(0.01)
            hr.put32(a.sq.base + hr.DB_WORD, hr.SQ_WATCHED)
        k = rng.randint(1, 3)
        all_signaled = rng.random() < 0.5
        burst, want = [], []
        s0 = tr.snap() if tr else None
        b_w0 = syscw()
        t1 = time.monotonic()
        for j in range(k):
            op = hr.WR_SEND if rng.random() < 0.5 else hr.WR_RDMA_WRITE
            length = rng.choice(LENGTHS)
            signaled = all_signaled or j == k - 1
            wr_id += 1
            r = a.post(wr_id, op, length, signaled)
            if r:
                log(f"burst {i}: post_send: {os.strerror(r)}")
                ok = False
                break
            burst.append((wr_id, op, length, signaled))
            posts += 1
            if op == hr.WR_SEND:
                sends += 1
            else:
                writes += 1
            if signaled:
                want.append(wr_id)
            if jitter and j < k - 1:
                spin(rng.random() * 200e-6)
        if not ok:
            break
        got = a.wait(len(want), WAIT)
        secs = time.monotonic() - t1
        rang = syscw() - b_w0
        lat.append(secs)
        by_kind.setdefault(kind(burst, rang), []).append(secs)
        if tr:
            tr.note(i, burst, secs, rang, s0, tr.snap())
        if [w for w, _ in got] != want:
            stranded(a, b, i, burst, want, got, before)
            ok = False
            break
        if any(st != hr.WC_SUCCESS for _, st in got):
            log(f"burst {i}: error completions {got}")
            ok = False
            break
        r, rb = b.take_receives()
        recvs += r
        bad += rb
    secs = time.monotonic() - t0
    writes_made = syscw() - w0
    end = time.monotonic() + WAIT
    while ok and recvs < sends and time.monotonic() < end:
        r, rb = b.take_receives()
        recvs += r
        bad += rb
    # Every promise withdrawn once idle.
    idle = hr.wait_until(5, lambda: hr.qp_dd(a.dev, a.qpn).get("db_watched", 0) == 0
                         and all(s.get("db_arms") == s.get("db_disarms")
                                 for s in counters(devs).values()))
    after = counters(devs)
    da = {k: after[a.dev].get(k, 0) - before[a.dev].get(k, 0) for k in COUNTERS}
    log(f"{name}: {len(lat)} of {n} bursts, {posts} WQEs ({writes} WRITEs, {sends} SENDs, "
        f"{recvs} received) in {secs:.1f} s; seed {seed}; {writes_made} write() calls, "
        f"{writes_made / max(posts, 1):.3f} per post")
    log(f"burst time (n, p50, p99, max), all: {spread(lat)}")
    for what, ls in sorted(by_kind.items()):
        log(f"  {what}: {spread(ls)}")
    log(moved(before, after))
    if tr:
        tr.report(a.dev)
    why = []
    if not ok:
        why.append("a burst failed")
    if recvs != sends or bad:
        why.append(f"{recvs} receives completed for {sends} SENDs, bad {bad[:4]}")
    if stock:
        if a.took or da["db_rechecks"] or da["db_rings"] or writes_made < posts:
            why.append(f"the stock provider: took the doorbell {a.took}, db_rechecks "
                       f"+{da['db_rechecks']}, db_rings +{da['db_rings']}, {writes_made} "
                       f"write() for {posts} posts")
    else:
        if not a.took:
            why.append(f"{a.dev} did not take the doorbell (db_contexts did not move)")
        elif da["db_rechecks"] == 0:
            why.append("db_rechecks did not move: no post was taken without a system call")
        if not idle:
            why.append(f"not idle: {a.dev} QP {hr.db_brief(hr.qp_dd(a.dev, a.qpn))}; "
                       + ", ".join(f"{d} db_arms {s.get('db_arms')} db_disarms "
                                   f"{s.get('db_disarms')}" for d, s in after.items()))
    print(f"{'FAIL' if why else 'PASS'} {name}: {len(lat)} bursts of 1-3 WQEs, {a.dev} -> "
          f"{b.dev}" + (f" ({'; '.join(why)})" if why else ""))
    sys.stdout.flush()
    return not why


def new_qp(side):
    """Another RC QP of side's context, PD and CQ: (qp, qpn)."""
    attr = hr.QpInitAttr(send_cq=side.cq, recv_cq=side.cq,
                         cap=hr.QpCap(SQ_DEPTH, 1, 1, 1, 0), qp_type=hr.QPT_RC, sq_sig_all=0)
    qp = ibv.ibv_create_qp(side.pd, C.byref(attr))
    if not qp:
        return None, f"ibv_create_qp: {os.strerror(C.get_errno())}"
    return qp, struct.unpack_from("<II", C.string_at(qp + 48, 8))[1]


def run_destroys(a, b, n, seed):
    """The destroys case: QPs destroyed with posts in flight."""
    rng = random.Random(seed)
    before = counters([a.dev])
    t0 = time.monotonic()
    why, slow, posts = [], 0.0, 0
    saved = (a.qp, a.qpn, b.qp, b.qpn)
    for i in range(n):
        qa, qpn_a = new_qp(a)
        qb, qpn_b = new_qp(b)
        if not qa or not qb:
            why.append(f"QP {i}: {qpn_a if not qa else qpn_b}")
            break
        a.qp, a.qpn, b.qp, b.qpn = qa, qpn_a, qb, qpn_b
        try:
            a.connect(b)
            b.connect(a)
            # One WRITE awaited, so the QP is idle (and, with the poller,
            # watched); then a burst, and the destroy at once.
            if a.post(i * 4, hr.WR_RDMA_WRITE, 8, True) or len(a.wait(1, WAIT)) != 1:
                why.append(f"QP {i}: the first WRITE did not complete")
            time.sleep(rng.random() * 0.002)
            for j in range(rng.randint(1, 3)):
                if a.post(i * 4 + 1 + j, hr.WR_RDMA_WRITE, rng.choice(LENGTHS),
                          rng.random() < 0.5):
                    why.append(f"QP {i}: post_send failed")
                spin(rng.random() * 50e-6)
                posts += 1
        finally:
            a.qp, a.qpn, b.qp, b.qpn = saved
        t1 = time.monotonic()
        r = ibv.ibv_destroy_qp(qa)
        slow = max(slow, time.monotonic() - t1)
        if r or ibv.ibv_destroy_qp(qb):
            why.append(f"QP {i}: ibv_destroy_qp failed")
        # Completions of the destroyed QP's WRITEs, if any, are dropped.
        while a.v.poll(a.cq, 16):
            pass
        if why:
            break
    secs = time.monotonic() - t0
    idle = hr.wait_until(10, lambda: all(s.get("db_arms") == s.get("db_disarms")
                                         for s in counters([a.dev]).values()))
    qps = subprocess.run(["rdma", "resource", "show", "qp", "link", f"{a.dev}/1"],
                         capture_output=True, text=True, check=False).stdout
    left = [ln for ln in qps.splitlines() if "type RC" in ln and f"lqpn {a.qpn} " not in ln]
    after = counters([a.dev])
    log(f"destroys: {n} QPs, {posts} WQEs in bursts in {secs:.1f} s; seed {seed}; slowest "
        f"destroy {slow * 1000:.1f} ms")
    log(moved(before, after))
    if slow > WAIT:
        why.append(f"a destroy took {slow:.1f} s")
    if not idle:
        why.append(f"not idle: db_arms {after[a.dev].get('db_arms')}, db_disarms "
                   f"{after[a.dev].get('db_disarms')}")
    if left:
        why.append(f"{len(left)} RC QPs left besides the pair's")
    print(f"{'FAIL' if why else 'PASS'} destroys: {n} QPs destroyed with posts in flight, "
          f"{a.dev} -> {b.dev}" + (f" ({'; '.join(why)})" if why else ""))
    sys.stdout.flush()
    return not why


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", choices=("bursts", "jittered", "all", "destroys"))
    p.add_argument("n", nargs="?", type=int,
                   default=int(os.environ.get("RRXE_DOORBELL_BURSTS", "1000")))
    p.add_argument("--dev-a", default="rrxe0")
    p.add_argument("--dev-b", default="rrxe1")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--stock", action="store_true",
                   help="the stock provider: expect no doorbell, one write() per post")
    p.add_argument("--forge-at", type=int, default=None,
                   help="self-check: forge RRXE_SQ_WATCHED before this burst")
    p.add_argument("--trace", action="store_true",
                   help="the counters that moved in each slow burst (sysfs, per burst)")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    a, b = Side(args.dev_a), Side(args.dev_b)
    a.connect(b)
    b.connect(a)
    a.sender(b)
    b.receiver()
    if args.case == "destroys":
        sys.exit(0 if run_destroys(a, b, args.n, seed) else 1)
    cases = ["bursts", "jittered"] if args.case == "all" else [args.case]
    good = True
    for i, name in enumerate(cases):
        good &= run_case(name, a, b, args.n, seed + i, name == "jittered", args.stock,
                         args.forge_at, args.trace)
        if not good:
            break
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
