#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile user of an rxe-ABI device: it creates objects through libibverbs, then
writes its mmapped rings itself, behind the provider's and the kernel's back, and
rings the kernel doorbell (uverbs POST_SEND with no WRs) directly.

Every case must end with the process still in control: the doorbell and modify_qp
return, bad WQEs come back as error completions, flushes stop at the ring's capacity.
The kernel side (KASAN, lockdep, kmemleak) is checked by the test framework.

Usage: hostile_ring.py DEVICE   (TAP on stdout)
"""
import ctypes as C
import errno
import mmap
import os
import random
import struct
import sys
import threading
import time

ibv = C.CDLL("libibverbs.so.1", use_errno=True)
vp = C.c_void_p


class Gid(C.Structure):
    _fields_ = [("raw", C.c_uint8 * 16)]


class GlobalRoute(C.Structure):
    _fields_ = [("dgid", Gid), ("flow_label", C.c_uint32), ("sgid_index", C.c_uint8),
                ("hop_limit", C.c_uint8), ("traffic_class", C.c_uint8)]


class AhAttr(C.Structure):
    _fields_ = [("grh", GlobalRoute), ("dlid", C.c_uint16), ("sl", C.c_uint8),
                ("src_path_bits", C.c_uint8), ("static_rate", C.c_uint8),
                ("is_global", C.c_uint8), ("port_num", C.c_uint8)]


class QpCap(C.Structure):
    _fields_ = [(n, C.c_uint32) for n in
                ("max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge", "max_inline_data")]


class QpInitAttr(C.Structure):
    _fields_ = [("qp_context", vp), ("send_cq", vp), ("recv_cq", vp), ("srq", vp),
                ("cap", QpCap), ("qp_type", C.c_int), ("sq_sig_all", C.c_int)]


class QpAttr(C.Structure):
    _fields_ = [("qp_state", C.c_int), ("cur_qp_state", C.c_int), ("path_mtu", C.c_int),
                ("path_mig_state", C.c_int), ("qkey", C.c_uint32), ("rq_psn", C.c_uint32),
                ("sq_psn", C.c_uint32), ("dest_qp_num", C.c_uint32),
                ("qp_access_flags", C.c_uint), ("cap", QpCap), ("ah_attr", AhAttr),
                ("alt_ah_attr", AhAttr), ("pkey_index", C.c_uint16),
                ("alt_pkey_index", C.c_uint16)] + [
                (n, C.c_uint8) for n in
                ("en_sqd_async_notify", "sq_draining", "max_rd_atomic", "max_dest_rd_atomic",
                 "min_rnr_timer", "port_num", "timeout", "retry_cnt", "rnr_retry",
                 "alt_port_num", "alt_timeout")] + [("rate_limit", C.c_uint32)]


class AsyncEvent(C.Structure):
    _fields_ = [("element", vp), ("event_type", C.c_int)]


class SrqAttr(C.Structure):
    _fields_ = [("max_wr", C.c_uint32), ("max_sge", C.c_uint32), ("srq_limit", C.c_uint32)]


class SrqInitAttr(C.Structure):
    _fields_ = [("srq_context", vp), ("attr", SrqAttr)]


for fn, res, args in [
        ("ibv_get_device_list", C.POINTER(vp), [C.POINTER(C.c_int)]),
        ("ibv_get_device_name", C.c_char_p, [vp]),
        ("ibv_open_device", vp, [vp]),
        ("ibv_close_device", C.c_int, [vp]),
        ("ibv_alloc_pd", vp, [vp]),
        ("ibv_dealloc_pd", C.c_int, [vp]),
        ("ibv_create_cq", vp, [vp, C.c_int, vp, vp, C.c_int]),
        ("ibv_destroy_cq", C.c_int, [vp]),
        ("ibv_create_qp", vp, [vp, C.POINTER(QpInitAttr)]),
        ("ibv_modify_qp", C.c_int, [vp, C.POINTER(QpAttr), C.c_int]),
        ("ibv_query_qp", C.c_int, [vp, C.POINTER(QpAttr), C.c_int, C.POINTER(QpInitAttr)]),
        ("ibv_destroy_qp", C.c_int, [vp]),
        ("ibv_create_srq", vp, [vp, C.POINTER(SrqInitAttr)]),
        ("ibv_modify_srq", C.c_int, [vp, C.POINTER(SrqAttr), C.c_int]),
        ("ibv_destroy_srq", C.c_int, [vp]),
        ("ibv_query_gid", C.c_int, [vp, C.c_uint8, C.c_int, C.POINTER(Gid)]),
        ("ibv_get_async_event", C.c_int, [vp, C.POINTER(AsyncEvent)]),
        ("ibv_ack_async_event", None, [C.POINTER(AsyncEvent)])]:
    f = getattr(ibv, fn)
    f.restype, f.argtypes = res, args

# enum values (verbs.h)
QPT_RC, QPT_UD = 2, 4
RESET, INIT, RTR, RTS, ERR = 0, 1, 2, 3, 6
M_CUR_STATE = 2
EV_CQ_ERR = 0
M_STATE, M_ACCESS, M_PKEY, M_PORT, M_QKEY, M_AV, M_MTU, M_TIMEOUT, M_RETRY, M_RNR, \
    M_RQ_PSN, M_RD_ATOMIC, M_MIN_RNR, M_SQ_PSN, M_DEST_RD_ATOMIC, M_DEST_QPN = (
        1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 1 << 15, 1 << 16, 1 << 17,
        1 << 20)
WC_SUCCESS, WC_LOC_QP_OP_ERR, WC_LOC_PROT_ERR, WC_FLUSH = 0, 2, 4, 5
PROD, CONS, DATA = 128, 256, 384

n_case = 0
failed = 0


def tap(good, name, why=""):
    global n_case, failed
    n_case += 1
    if not good:
        failed += 1
    print(f"{'ok' if good else 'not ok'} {n_case} {name}")
    if why and not good:
        print("# " + why)
    sys.stdout.flush()


def u32(addr):
    return C.c_uint32.from_address(addr).value


def put32(addr, v):
    C.c_uint32.from_address(addr).value = v & 0xffffffff


def uverbs_maps():
    out = {}
    with open("/proc/self/maps") as f:
        for line in f:
            if "/dev/infiniband/uverbs" in line:
                rng, _perm, off = line.split()[:3]
                lo, hi = (int(x, 16) for x in rng.split("-"))
                out[lo] = (int(off, 16), hi - lo)
    return out


def uverbs_fds(target="/dev/infiniband/uverbs"):
    fds = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith(target):
                fds.add(int(fd))
        except OSError:
            pass
    return fds


class Ring:
    """A mapped rxe_queue_buf, addressed like the provider does, but without trust."""

    def __init__(self, base, size):
        self.base, self.size = base, size
        self.log2 = u32(base)
        self.mask = u32(base + 4)

    def slot(self, i):
        return self.base + DATA + ((i & self.mask) << self.log2)

    def write_slot(self, i, data):
        assert len(data) <= (1 << self.log2)
        C.memmove(self.slot(i), data, len(data))


class Ctx:
    def __init__(self, devname):
        n = C.c_int()
        lst = ibv.ibv_get_device_list(C.byref(n))
        dev = next(lst[i] for i in range(n.value)
                   if ibv.ibv_get_device_name(lst[i]).decode() == devname)
        before = uverbs_fds()
        events_before = uverbs_fds("anon_inode:[infinibandevent]")
        self.ctx = ibv.ibv_open_device(dev)
        assert self.ctx, "ibv_open_device"
        self.fd = (uverbs_fds() - before).pop()
        self.event_fd = (uverbs_fds("anon_inode:[infinibandevent]") - events_before).pop()
        self.pd = ibv.ibv_alloc_pd(self.ctx)
        self.maps0 = set(uverbs_maps())
        self.cq = ibv.ibv_create_cq(self.ctx, 63, None, None, 0)
        assert self.cq, "ibv_create_cq"
        self.cq_ring = self.new_rings()[0]
        self.cq_cons = u32(self.cq_ring.base + CONS)

    def mark(self):
        """Remembers the current mappings: later ones are the next object's rings."""
        self.maps0 = set(uverbs_maps())

    def new_rings(self):
        # Keyed by address: mappings of closed contexts stay in the process and
        # reuse offsets. New rings sort by offset, i.e. in creation order.
        m = uverbs_maps()
        new = sorted(set(m) - self.maps0, key=lambda a: m[a][0])
        self.maps0 |= set(new)
        return [Ring(a, m[a][1]) for a in new]

    def create_qp(self, qpt, srq=None, sges=1, wr=8):
        a = QpInitAttr(send_cq=self.cq, recv_cq=self.cq, srq=srq,
                       cap=QpCap(wr, 0 if srq else wr, sges, 0 if srq else sges, 0),
                       qp_type=qpt, sq_sig_all=1)
        self.mark()
        qp = ibv.ibv_create_qp(self.pd, C.byref(a))
        assert qp, f"ibv_create_qp: {os.strerror(C.get_errno())}"
        rings = self.new_rings()
        # Offsets are handed out in creation order: the RQ (if any), then the SQ.
        rq, sq = (None, rings[0]) if srq else (rings[0], rings[1])
        handle, qpn = struct.unpack_from("<II", C.string_at(qp + 48, 8))
        return qp, handle, qpn, sq, rq

    def modify(self, qp, mask, **kw):
        a = QpAttr()
        for k, v in kw.items():
            if k == "ah":
                a.ah_attr = v
            else:
                setattr(a, k, v)
        return ibv.ibv_modify_qp(qp, C.byref(a), mask)

    def state(self, qp):
        a, i = QpAttr(), QpInitAttr()
        if ibv.ibv_query_qp(qp, C.byref(a), M_STATE, C.byref(i)):
            return -1
        return a.qp_state

    def ud_rts(self, qp):
        return (self.modify(qp, M_STATE | M_PKEY | M_PORT | M_QKEY, qp_state=INIT, port_num=1,
                            qkey=0x11111111)
                or self.modify(qp, M_STATE, qp_state=RTR)
                or self.modify(qp, M_STATE | M_SQ_PSN, qp_state=RTS, sq_psn=0))

    def rc_rts(self, qp, qpn):
        gid = Gid()
        if ibv.ibv_query_gid(self.ctx, 1, 1, C.byref(gid)):
            return -1
        ah = AhAttr(grh=GlobalRoute(dgid=gid, sgid_index=1, hop_limit=64), is_global=1,
                    port_num=1)
        return (self.modify(qp, M_STATE | M_PKEY | M_PORT | M_ACCESS, qp_state=INIT,
                            port_num=1, qp_access_flags=7)
                or self.modify(qp, M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN
                               | M_DEST_RD_ATOMIC | M_MIN_RNR, qp_state=RTR, ah=ah, path_mtu=3,
                               dest_qp_num=qpn, rq_psn=0, max_dest_rd_atomic=1,
                               min_rnr_timer=12)
                or self.modify(qp, M_STATE | M_TIMEOUT | M_RETRY | M_RNR | M_SQ_PSN
                               | M_RD_ATOMIC, qp_state=RTS, timeout=14, retry_cnt=7,
                               rnr_retry=7, sq_psn=0, max_rd_atomic=1))

    def doorbell(self, handle):
        resp = C.create_string_buffer(4)
        cmd = struct.pack("<IHHQIIII", 28, 8, 1, C.addressof(resp), handle, 0, 0, 128)
        os.write(self.fd, cmd)

    def poll(self, want, secs=5.0):
        """Reads completions straight from the CQ ring."""
        r, got, end = self.cq_ring, [], time.monotonic() + secs
        while len(got) < want and time.monotonic() < end:
            prod = u32(r.base + PROD)
            while self.cq_cons != prod:
                wr_id, status = struct.unpack_from("<QI", C.string_at(r.slot(self.cq_cons), 12))
                got.append((wr_id, status))
                self.cq_cons = (self.cq_cons + 1) & r.mask
                put32(r.base + CONS, self.cq_cons)
            time.sleep(0.01)
        return got

    def close(self):
        # Closing the device destroys every object the process left behind.
        return ibv.ibv_close_device(self.ctx)


def send_wqe(wr_id, opcode=2, flags=2, num_sge=1, length=8, lkey=0, extra=b""):
    w = bytearray(256)
    struct.pack_into("<QIIII", w, 0, wr_id, 0, opcode, flags, 0)
    w[24:24 + len(extra)] = extra
    struct.pack_into("<IIIII", w, 184, length, length, 0, num_sge, 0)
    struct.pack_into("<QII", w, 208, 0x1000, length, lkey)
    return bytes(w)


def post(sq, wqes):
    p = u32(sq.base + PROD)
    for w in wqes:
        sq.write_slot(p, w)
        p = (p + 1) & sq.mask
    put32(sq.base + PROD, p)


def main():
    dev = sys.argv[1]
    print("TAP version 13")
    print("1..17")

    # 1. Random bytes in every SQ slot of a UD QP, then the doorbell.
    c = Ctx(dev)
    qp, h, qpn, sq, rq = c.create_qp(QPT_UD)
    tap(c.ud_rts(qp) == 0, "UD QP reaches RTS")
    cap = sq.mask
    post(sq, [bytes(random.getrandbits(8) for _ in range(1 << sq.log2)) for _ in range(cap)])
    c.doorbell(h)
    got = c.poll(cap)
    tap(len(got) == cap and all(s != WC_SUCCESS for _, s in got) and c.state(qp) == ERR,
        f"random WQEs: {cap} error completions, QP in error",
        f"got {len(got)} completions {got[:4]}, state {c.state(qp)}")
    c.close()

    # 2. A producer index far outside the ring, then the doorbell and a flush.
    c = Ctx(dev)
    qp, h, qpn, sq, rq = c.create_qp(QPT_UD)
    c.ud_rts(qp)
    put32(sq.base + PROD, 0xfffffff3)
    put32(rq.base + PROD, 0x7fffffff)
    c.doorbell(h)
    err = c.modify(qp, M_STATE, qp_state=ERR)
    got = c.poll(2 * cap, secs=2)
    tap(err == 0 and len(got) <= 2 * cap and all(s != WC_SUCCESS for _, s in got),
        "producer index beyond the ring: bounded by the capacity",
        f"modify {err}, {len(got)} completions")
    c.close()

    # RC cases share one context and create a fresh QP each.
    c = Ctx(dev)

    def rc():
        qp, h, qpn, sq, rq = c.create_qp(QPT_RC, sges=2)
        return qp, h, sq, rq, c.rc_rts(qp, qpn)

    # 3. In-ring progress fields (state, cur_sge, resid, sge_offset) are ignored:
    # the requester works from the kernel copy, whose one SGE (lkey 0, no MR)
    # fails with a local protection error; rxe would index sge[999].
    qp, h, sq, rq, e = rc()
    tap(e == 0, "RC QP reaches RTS (loopback AV)", os.strerror(e) if e > 0 else str(e))
    w = bytearray(send_wqe(0x3333))
    struct.pack_into("<IIIIII", w, 144, 0, 7, 0, 0, 0, 0)      # status, state
    struct.pack_into("<IIIII", w, 184, 8, 0xffffffff, 999, 1, 0x7fffffff)
    post(sq, [bytes(w)])
    c.doorbell(h)
    got = c.poll(1, secs=2)
    tap(got == [(0x3333, WC_LOC_PROT_ERR)] and c.state(qp) == ERR,
        "bogus cur_sge/resid/state: ignored, the WQE's own SGE fails (LOC_PROT_ERR)",
        f"got {got}, state {c.state(qp)}")
    ibv.ibv_destroy_qp(qp)

    # 4-6. Refused WQEs: each completes with an error and the QP goes to error.
    for name, wqe in [
            ("kernel-only REG_MR opcode with a pointer in the ring",
             send_wqe(0x4444, opcode=0x20, extra=struct.pack("<Q", 0xffff888000001000))),
            ("num_sge beyond the QP's max_sge", send_wqe(0x5555, num_sge=1000)),
            ("inline length beyond max_inline", send_wqe(0x6666, flags=2 | 8, length=0x7fffffff)),
    ]:
        qp, h, sq, rq, e = rc()
        post(sq, [wqe, send_wqe(0x7777)])
        c.doorbell(h)
        got = c.poll(2)
        ids = [w for w, _ in got]
        tap(len(got) == 2 and got[0][1] == WC_LOC_QP_OP_ERR and got[1][1] == WC_FLUSH
            and ids[1] == 0x7777 and c.state(qp) == ERR, name, f"got {got}")
        ibv.ibv_destroy_qp(qp)

    # 7. A thread rewrites the slots while WQEs are posted and the doorbell rung.
    # A rewrite soon makes a WQE the kernel refuses, and the QP goes to error; a
    # new QP then takes its place, so many doorbells race with the rewrites. The
    # lock keeps the thread off a ring while its QP is destroyed (unmapped).
    lock = threading.Lock()
    cur = {}
    stop = threading.Event()

    def scribble():
        while not stop.is_set():
            with lock:
                s = cur["sq"]
                i = random.randrange(s.mask + 1)
                C.memset(s.slot(i) + random.randrange(1 << s.log2), random.getrandbits(8), 1)
                put32(s.slot(i) + 196, random.choice([1, 2, 3, 0xffffffff]))
            time.sleep(0.002)

    qp, h, sq, rq, e = rc()
    cur["sq"] = sq
    t = threading.Thread(target=scribble)
    t.start()
    rings, qps, setup_ok = 0, 1, e == 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 3 and rings < 300:
        if c.state(qp) == ERR:
            with lock:
                ibv.ibv_destroy_qp(qp)
                # The shared CQ holds 63: take the flushed completions.
                c.poll(64, secs=0.02)
                qp, h, sq, rq, e = rc()
                cur["sq"] = sq
            qps += 1
            setup_ok &= e == 0
        # A zero-length WRITE needs no memory and completes, so a QP lasts
        # until a rewrite hits the WQE the kernel is about to take.
        post(sq, [send_wqe(rings, opcode=0, num_sge=0, length=0)])
        c.doorbell(h)
        rings += 1
        c.poll(8, secs=0.001)
    stop.set()
    t.join()
    c.modify(qp, M_STATE, qp_state=ERR)
    c.poll(64, secs=0.2)
    tap(c.state(qp) == ERR and setup_ok and rings >= 10,
        f"concurrent rewrites during {rings} doorbells on {qps} QPs: process in control",
        f"state {c.state(qp)}, QPs set up {setup_ok}")
    ibv.ibv_destroy_qp(qp)

    # 8. The producer index moved back below WQEs the kernel already took and
    # that still wait for their ACK (the peer QP does not exist): the next
    # doorbell takes nothing new and returns, and the modify flushes them.
    qp, h, qpn, sq, rq = c.create_qp(QPT_RC, sges=2)
    e = c.rc_rts(qp, 0xabcde)
    post(sq, [send_wqe(0xa000 + i, num_sge=0, length=0) for i in range(4)])
    c.doorbell(h)
    put32(sq.base + PROD, (u32(sq.base + PROD) - 3) & sq.mask)
    c.doorbell(h)
    err = c.modify(qp, M_STATE, qp_state=ERR)
    got = c.poll(4, secs=3)
    tap(e == 0 and err == 0 and [w for w, _ in got[:4]] == [0xa000 + i for i in range(4)]
        and all(s != WC_SUCCESS for _, s in got) and len(got) <= 4 + sq.mask,
        "producer index moved back below taken WQEs: nothing new, they flush",
        f"rts {e}, modify {err}, got {got[:6]}")
    ibv.ibv_destroy_qp(qp)

    # 9. Garbage receive queue entries and producer: the flush is bounded.
    qp, h, sq, rq, e = rc()
    for i in range(rq.mask + 1):
        rq.write_slot(i, bytes(random.getrandbits(8) for _ in range(1 << rq.log2)))
    put32(rq.base + PROD, 0xffffffff)
    c.modify(qp, M_STATE, qp_state=ERR)
    got = c.poll(rq.mask + 1, secs=1)
    tap(0 < len(got) <= rq.mask and all(s == WC_FLUSH for _, s in got),
        "garbage RQ: flush bounded by the capacity", f"{len(got)} completions")
    ibv.ibv_destroy_qp(qp)

    # 10. A CQ consumer index outside the ring.
    qp, h, sq, rq, e = rc()
    # Same slot as the kernel's producer, with garbage in the high bits.
    prod = u32(c.cq_ring.base + PROD)
    put32(c.cq_ring.base + CONS, prod | 0xdead0000)
    c.cq_cons = prod & c.cq_ring.mask
    post(sq, [send_wqe(0x9999, opcode=1000)])
    c.doorbell(h)
    got = c.poll(1)
    tap(got[:1] == [(0x9999, WC_LOC_QP_OP_ERR)], "CQ consumer index outside the ring",
        f"got {got}")
    ibv.ibv_destroy_qp(qp)

    # 11. modify_qp with a current state and no new one: the QP stays in the
    # state it is in. It went to the one claimed: a QP in RESET said to be in
    # RTS became RTS (now RTS -> RESET, which takes no current state: EINVAL).
    # The current state is accepted where a transition takes it (RTS -> RTS).
    qp, h, qpn, sq, rq = c.create_qp(QPT_RC)
    lie = c.modify(qp, M_CUR_STATE, cur_qp_state=RTS)
    after_lie = c.state(qp)
    e = c.rc_rts(qp, qpn)
    truth = c.modify(qp, M_CUR_STATE | M_STATE, cur_qp_state=RTS, qp_state=RTS)
    tap(lie == errno.EINVAL and after_lie == RESET and e == 0 and truth == 0
        and c.state(qp) == RTS,
        "modify_qp with only a current state, not the QP's: EINVAL, state kept",
        f"wrong current state: {lie}, state {after_lie}; to RTS {e}; right one: {truth}")
    ibv.ibv_destroy_qp(qp)

    # 12. The consumer index keeps the CQ full while a QP's WQEs fail and flush
    # into it: the completions are lost, and IB_EVENT_CQ_ERR comes once, not once
    # per completion (uverbs keeps every event in memory until it is read).
    c2 = Ctx(dev)
    os.set_blocking(c2.event_fd, False)
    qp, h, qpn, sq, rq = c2.create_qp(QPT_RC, sges=2)
    e = c2.rc_rts(qp, qpn)
    r = c2.cq_ring
    prod = u32(r.base + PROD)
    put32(r.base + CONS, (prod + 1) & r.mask)
    post(sq, [send_wqe(0xb000 + i, opcode=1000) for i in range(6)])
    c2.doorbell(h)
    events, ev, end = [], AsyncEvent(), time.monotonic() + 2
    while time.monotonic() < end:
        if ibv.ibv_get_async_event(c2.ctx, C.byref(ev)) == 0:
            events.append(ev.event_type)
            ibv.ibv_ack_async_event(C.byref(ev))
        else:
            time.sleep(0.05)
    put32(r.base + CONS, prod)
    tap(e == 0 and events.count(EV_CQ_ERR) == 1 and c2.state(qp) == ERR
        and u32(r.base + PROD) == prod,
        "a CQ kept full: its 6 lost completions raise one CQ_ERR event",
        f"rts {e}, events {events}, state {c2.state(qp)}")
    # Left to the process's exit: libibverbs' destroy waits for every event to
    # be acknowledged, and one that came after the wait would hang it.

    # 13. Mapping a ring with the wrong size or at an unknown offset fails cleanly.
    bad = []
    for off, size in [(0, 8192 * 64), (1 << 40, 4096)]:
        try:
            mmap.mmap(c.fd, size, mmap.MAP_SHARED, mmap.PROT_READ, offset=off)
            bad.append((off, size))
        except OSError as ex:
            if ex.errno != errno.EINVAL:
                bad.append((off, size, ex.errno))
    tap(not bad, "mmap of a wrong size or unknown offset: EINVAL", str(bad))

    # 14. SRQ: garbage ring, bogus producer, then a resize and destroy.
    c.mark()
    srq = ibv.ibv_create_srq(c.pd, C.byref(SrqInitAttr(attr=SrqAttr(15, 1, 0))))
    ring = c.new_rings()[0]
    for i in range(ring.mask + 1):
        ring.write_slot(i, bytes(random.getrandbits(8) for _ in range(1 << ring.log2)))
    put32(ring.base + PROD, 0xfffffff7)
    r = ibv.ibv_modify_srq(srq, C.byref(SrqAttr(max_wr=31)), 1)
    tap(srq is not None and r == 0 and ibv.ibv_destroy_srq(srq) == 0,
        "SRQ with a garbage ring resizes and is destroyed", f"modify_srq {r}")
    tap(c.close() == 0, "closing the device cleans up every object")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
