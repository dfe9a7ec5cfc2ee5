#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile user of an rxe-ABI device: it creates objects through libibverbs, then
writes its mmapped rings itself, behind the provider's and the kernel's back, and
rings the kernel doorbell (uverbs POST_SEND with no WRs) directly.

Every case must end with the process still in control: the doorbell and modify_qp
return, bad WQEs come back as error completions, flushes stop at the ring's capacity.
The kernel side (KASAN, lockdep, kmemleak) is checked by the test framework.

The last cases are about rrxe's doorbell (uapi/rdma/rdma_user_rrxe.h): the word at
byte 320 of a ring's header, sq_flags in a send ring (the kernel's promise,
RRXE_SQ_WATCHED, to read the producer index again without a POST_SEND) and
cq_arm in a CQ ring (the provider's arm). The kernel never trusts either: a
forged promise stalls only the forger's own QP until it rings, a producer index
scribbled while the QP is armed is bounded, header words are ignored, and a
forged arm raises at most one event per completion. With the stock provider
(RDMAV_DRIVERS naming it) no context takes the doorbell: the cases still run,
and what needs an armed QP or ring-armed events is not asked for.
RRXE_EXPECT_DOORBELL=1 (or 0) says whether the provider must take the doorbell,
instead of the guess from RDMAV_DRIVERS.

Usage: hostile_ring.py DEVICE   (TAP on stdout)
"""
import ctypes as C
import errno
import json
import mmap
import os
import random
import select
import struct
import subprocess
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
        ("ibv_ack_async_event", None, [C.POINTER(AsyncEvent)]),
        ("ibv_create_comp_channel", vp, [vp]),
        ("ibv_destroy_comp_channel", C.c_int, [vp]),
        ("ibv_get_cq_event", C.c_int, [vp, C.POINTER(vp), C.POINTER(vp)]),
        ("ibv_ack_cq_events", None, [vp, C.c_uint]),
        ("ibv_reg_mr", vp, [vp, vp, C.c_size_t, C.c_int])]:
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
# ibv_wr_opcode, ibv_send_flags
WR_RDMA_WRITE, WR_SEND, SEND_SIGNALED = 0, 2, 2
# rrxe's doorbell word in a ring header (rdma_user_rrxe.h; the offsets its
# GET_CONTEXT response gives), and its bits.
DB_WORD = 320
SQ_WATCHED = 1 << 0
CQ_ARM_SOLICITED, CQ_ARM_NEXT = 1 << 0, 1 << 1

# The provider's data path, which verbs.h's inline ibv_post_send() and co. call
# through the context's ops (struct ibv_context_ops, after the device pointer).
POST_FN = C.CFUNCTYPE(C.c_int, vp, vp, C.POINTER(vp))
POLL_FN = C.CFUNCTYPE(C.c_int, vp, C.c_int, vp)
NOTIFY_FN = C.CFUNCTYPE(C.c_int, vp, C.c_int)
OP_POLL_CQ, OP_REQ_NOTIFY_CQ, OP_POST_SEND, OP_POST_RECV = 11, 12, 25, 26
WC_SIZE = 48  # struct ibv_wc

n_case = 0
failed = 0


def tap(good, name, why="", skip=""):
    global n_case, failed
    n_case += 1
    if not good:
        failed += 1
    print(f"{'ok' if good else 'not ok'} {n_case} {name}" + (f" # SKIP {skip}" if skip else ""))
    if why and not good:
        print("# " + why)
    sys.stdout.flush()


def diag(text):
    print("\n".join("# " + line for line in str(text).splitlines()))
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


def ring(fd, handle):
    """The kernel doorbell: uverbs POST_SEND with no WRs for QP `handle`."""
    resp = C.create_string_buffer(4)
    cmd = struct.pack("<IHHQIIII", 28, 8, 1, C.addressof(resp), handle, 0, 0, 128)
    os.write(fd, cmd)


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
    def __init__(self, devname, cqe=63, channel=False):
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
        # A completion channel makes the CQ one that can be armed.
        self.channel = ibv.ibv_create_comp_channel(self.ctx) if channel else None
        self.cq = ibv.ibv_create_cq(self.ctx, cqe, None, self.channel, 0)
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
        ring(self.fd, handle)

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

    def drain(self):
        """The completions in the CQ ring now, without waiting."""
        r, got = self.cq_ring, []
        prod = u32(r.base + PROD) & r.mask
        while self.cq_cons != prod:
            wr_id, status = struct.unpack_from("<QI", C.string_at(r.slot(self.cq_cons), 12))
            got.append((wr_id, status))
            self.cq_cons = (self.cq_cons + 1) & r.mask
        put32(r.base + CONS, self.cq_cons)
        return got

    def close(self):
        # Closing the device destroys every object the process left behind,
        # but an open completion channel keeps them until the process exits:
        # its CQ goes first (the caller destroyed the QPs).
        if self.channel:
            ibv.ibv_destroy_cq(self.cq)
            ibv.ibv_destroy_comp_channel(self.channel)
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


libc = C.CDLL(None, use_errno=True)
_fence_lock = C.c_int(0)
libc.pthread_spin_init(C.byref(_fence_lock), 0)


def full_fence():
    """A full memory barrier between a store to a ring and a later load: taking
    a spinlock is a locked instruction (x86), as the provider's seq_cst fence."""
    libc.pthread_spin_lock(C.byref(_fence_lock))
    libc.pthread_spin_unlock(C.byref(_fence_lock))


def db_post(c, sq, h, wqes, prod):
    """Posts as the doorbell provider does (rdma_user_rrxe.h): the WQEs, the
    producer index, a full barrier, then POST_SEND only if RRXE_SQ_WATCHED is
    clear. `prod` is the poster's own index (the ring's may be scribbled).
    Returns the new index and whether it rang."""
    for w in wqes:
        sq.write_slot(prod, w)
        prod = (prod + 1) & sq.mask
    put32(sq.base + PROD, prod)
    full_fence()
    if u32(sq.base + DB_WORD) & SQ_WATCHED:
        return prod, False
    c.doorbell(h)
    return prod, True


class Verbs:
    """The provider's data path of one context: what verbs.h's inline
    ibv_post_send(), ibv_post_recv(), ibv_poll_cq() and ibv_req_notify_cq()
    call. With the doorbell provider a post skips POST_SEND while the kernel
    watches, and an arm is a write to the CQ ring."""

    def __init__(self, ctx):
        def op(i, proto):
            return proto(C.c_void_p.from_address(ctx + 8 + 8 * i).value)
        self._send = op(OP_POST_SEND, POST_FN)
        self._recv = op(OP_POST_RECV, POST_FN)
        self._poll = op(OP_POLL_CQ, POLL_FN)
        self._notify = op(OP_REQ_NOTIFY_CQ, NOTIFY_FN)
        self._bad = vp()
        self._wc = C.create_string_buffer(WC_SIZE * 16)

    def post_send(self, qp, wr):
        return self._send(qp, C.addressof(wr), C.byref(self._bad))

    def post_recv(self, qp, wr):
        return self._recv(qp, C.addressof(wr), C.byref(self._bad))

    def poll(self, cq, n=16):
        """Up to n completions now: a list of (wr_id, status)."""
        got = self._poll(cq, min(n, 16), C.addressof(self._wc))
        return [struct.unpack_from("<QI", self._wc, WC_SIZE * i) for i in range(max(got, 0))]

    def req_notify(self, cq, solicited_only=0):
        return self._notify(cq, solicited_only)


def send_wr(wr_id, opcode=WR_RDMA_WRITE, flags=SEND_SIGNALED, sge=None, raddr=0, rkey=0):
    """A struct ibv_send_wr (128 bytes), with at most one struct ibv_sge."""
    w = C.create_string_buffer(128)
    struct.pack_into("<QQQiII", w, 0, wr_id, 0, C.addressof(sge) if sge else 0,
                     1 if sge else 0, opcode, flags)
    struct.pack_into("<QI", w, 40, raddr, rkey)
    return w


def recv_wr(wr_id, sge=None):
    """A struct ibv_recv_wr, with at most one struct ibv_sge."""
    w = C.create_string_buffer(32)
    struct.pack_into("<QQQi", w, 0, wr_id, 0, C.addressof(sge) if sge else 0, 1 if sge else 0)
    return w


def sge(addr, length, lkey):
    s = C.create_string_buffer(16)
    struct.pack_into("<QII", s, 0, addr, length, lkey)
    return s


def dev_stats(dev):
    """The counters of DEV's port 1 (`rdma statistic`); {} if there are none."""
    r = subprocess.run(["rdma", "statistic", "show", "link", f"{dev}/1"],
                       capture_output=True, text=True, check=False)
    words = r.stdout.split()
    return {k: int(v) for k, v in zip(words, words[1:]) if v.isdigit()}


def stats_moved(before, after, prefix=("db_", "cq_notify")):
    return {k: after[k] - before.get(k, 0) for k in sorted(after)
            if k.startswith(prefix) and after[k] != before.get(k, 0)}


def qp_dd(dev, qpn):
    """rrxe's own state of QP `qpn` (`rdma resource show qp -dd`), without the
    "drv_" prefix; {} if there is none."""
    r = subprocess.run(["rdma", "-j", "-dd", "resource", "show", "qp", "link", f"{dev}/1",
                        "lqpn", str(qpn)], capture_output=True, text=True, check=False)
    try:
        qps = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else []
    except ValueError:
        qps = []
    return {k[4:]: v for q in qps for k, v in q.items() if k.startswith("drv_")}


def db_brief(d):
    return " ".join(f"{k} {d.get(k)}" for k in
                    ("db_watched", "db_arms", "db_disarms", "db_rechecks", "db_races", "db_rings")
                    if k in d)


def wait_until(secs, cond, step=0.05):
    end = time.monotonic() + secs
    while True:
        v = cond()
        if v or time.monotonic() >= end:
            return v
        time.sleep(step)


def zero_write(wr_id):
    """A zero-length RDMA WRITE: it needs no memory and completes."""
    return send_wqe(wr_id, opcode=WR_RDMA_WRITE, num_sge=0, length=0)


def forged_flag(dev, took):
    """(a) The user sets RRXE_SQ_WATCHED itself in an idle QP's send ring and
    posts without a POST_SEND: the kernel, which never reads the word, does not
    take the WQE, while another QP of the context completes its own posts (made
    through the provider); a POST_SEND then takes it."""
    c = Ctx(dev, cqe=1023)
    fqp, fh, fqpn, fsq, _ = c.create_qp(QPT_RC)
    oqp, oh, oqpn, osq, _ = c.create_qp(QPT_RC)
    e = c.rc_rts(fqp, fqpn) or c.rc_rts(oqp, oqpn)
    v = Verbs(c.ctx)
    # Make the forger's QP idle: one WQE through a POST_SEND, completed, and
    # the kernel's promise withdrawn.
    post(fsq, [zero_write(0xa0000)])
    c.doorbell(fh)
    first = c.poll(1, secs=5)
    idle = wait_until(3, lambda: qp_dd(dev, fqpn).get("db_watched", 0) == 0)
    put32(fsq.base + DB_WORD, SQ_WATCHED)
    post(fsq, [zero_write(0xa0001)])
    # Another QP's traffic, posted through the provider, for 1 s.
    wrs = [send_wr(0xb0000 + i) for i in range(4)]
    o_posted, o_got, f_got, errs = 0, [], [], []
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        for w in wrs[:random.randint(1, 4)]:
            struct.pack_into("<Q", w, 0, 0xb0000 + o_posted)
            r = v.post_send(oqp, w)
            if r:
                errs.append(r)
                break
            o_posted += 1
        t = time.monotonic() + 5
        while len(o_got) < o_posted and time.monotonic() < t:
            for wr_id, st in c.drain():
                (f_got if wr_id >> 16 == 0xa else o_got).append((wr_id, st))
            time.sleep(0.001)
    for wr_id, st in c.drain():
        (f_got if wr_id >> 16 == 0xa else o_got).append((wr_id, st))
    flag = u32(fsq.base + DB_WORD)
    dd = qp_dd(dev, fqpn)
    tap(e == 0 and first == [(0xa0000, WC_SUCCESS)] and idle and not f_got and not errs
        and o_posted > 0 and o_got == [(0xb0000 + i, WC_SUCCESS) for i in range(o_posted)],
        f"doorbell: a forged RRXE_SQ_WATCHED stalls only the forger: its WQE waits 1 s "
        f"while another QP completes {len(o_got)} posts",
        f"rts {e}, first {first}, idle {idle}, forger got {f_got}, other posted {o_posted} "
        f"got {len(o_got)} (errors {errs}, last {o_got[-2:]}); sq_flags {flag:#x}; "
        f"{db_brief(dd)}")
    c.doorbell(fh)
    got = c.poll(1, secs=5)
    dd2 = qp_dd(dev, fqpn)
    rings = dd2.get("db_rings", 0) - dd.get("db_rings", 0)
    tap(got == [(0xa0001, WC_SUCCESS)] and (not took or rings == 1),
        "doorbell: the forger's POST_SEND then takes its WQE, which completes",
        f"got {got}, POST_SENDs counted {rings}; {db_brief(dd2)}")
    ibv.ibv_destroy_qp(fqp)
    ibv.ibv_destroy_qp(oqp)
    c.close()


def producer_garbage(dev, took):
    """(b) While a QP is armed, another thread writes garbage, backward and huge
    producer indices for ~3 s: every system call returns, the flush of the QP's
    queues is bounded by their capacity and the QP is destroyed."""
    c = Ctx(dev, cqe=4095)
    qp, h, qpn, sq, rq = c.create_qp(QPT_RC, wr=64)
    e = c.rc_rts(qp, qpn)
    v = Verbs(c.ctx)
    # The head is a SEND to the QP itself, which has no receive: RNR NAKed and
    # retried for ever (rnr_retry 7), every 0.64 ms (min_rnr_timer 12). Every
    # WQE behind it is unfinished, so the kernel keeps its promise and takes
    # what is posted at each retry, without a POST_SEND.
    prod, rang = db_post(c, sq, h, [send_wqe(0xc0000, opcode=WR_SEND, num_sge=0, length=0)], 0)
    posted, rings, got = 1, int(rang), []

    def stream(secs):
        nonlocal prod, posted, rings
        end = time.monotonic() + secs
        while time.monotonic() < end:
            # Only while the ring has room by the kernel's consumer index.
            if (prod + 1) & sq.mask != u32(sq.base + CONS) & sq.mask:
                prod, r = db_post(c, sq, h, [zero_write(0xc0000 + (posted & 0xffff))], prod)
                posted += 1
                rings += r
            got.extend(c.drain())
            time.sleep(0.0005)

    stream(0.7)
    armed = qp_dd(dev, qpn)
    stop = threading.Event()
    writes = [0]

    def garbage():
        while not stop.is_set():
            cur = u32(sq.base + PROD)
            put32(sq.base + PROD, random.choice([
                random.getrandbits(32), 0xffffffff, 0x80000000, 1 << 31 | cur,
                cur - random.randint(1, 64), cur + random.randint(1 << 8, 1 << 30),
                cur + sq.mask + 1, cur + random.randint(1, sq.mask)]))
            writes[0] += 1
            if writes[0] % 16 == 0:
                time.sleep(0.0002)

    t = threading.Thread(target=garbage)
    t0 = time.monotonic()
    t.start()
    stream(1.3)
    # Release the head: a receive for the SEND (the provider posts it; the
    # receive ring is not scribbled), then more of the stream.
    r_rc = v.post_recv(qp, recv_wr(0xc1000))
    stream(1.5)
    stop.set()
    t.join()
    scribbled = time.monotonic() - t0
    before = len(got)
    got.extend(c.drain())
    t1 = time.monotonic()
    err = c.modify(qp, M_STATE, qp_state=ERR)
    t_modify = time.monotonic() - t1
    # The flush: what the kernel took from the send ring and the receive ring,
    # at most their capacities, whatever the producer indices said.
    flushed = c.poll(sq.mask + rq.mask + 64, secs=2)
    state = c.state(qp)
    t1 = time.monotonic()
    d = ibv.ibv_destroy_qp(qp)
    t_destroy = time.monotonic() - t1
    after = c.drain()
    if took:
        tap(e == 0 and armed.get("db_watched") == 1 and armed.get("db_rechecks", 0) > 0,
            "doorbell: a SEND held by RNR keeps the QP armed; WQEs behind it are taken "
            f"without a POST_SEND ({armed.get('db_rechecks', 0)} re-checked)",
            f"rts {e}, {posted} posted, {rings} POST_SENDs; {db_brief(armed)}")
    else:
        tap(True, "doorbell: a SEND held by RNR keeps the QP armed", skip="no doorbell offered")
    tap(err == 0 and state == ERR and d == 0 and len(flushed) <= sq.mask + rq.mask
        and not after and t_modify < 5 and t_destroy < 5,
        f"doorbell: {writes[0]} garbage producer indices from a thread in {scribbled:.1f} s "
        f"while armed: the flush is bounded ({len(flushed)} <= {sq.mask + rq.mask}), the QP "
        "is destroyed",
        f"modify {err} in {t_modify:.2f} s, state {state}, destroy {d} in {t_destroy:.2f} s, "
        f"recv post {r_rc}; {before} completions during the stream, {len(flushed)} after "
        f"the modify ({sorted(set(s for _, s in flushed))}), {len(after)} after the destroy")
    c.close()


def header_scribble(dev):
    """(c) Random values in every header word of a context's send, receive and
    completion rings (but those its own posting and polling read) while it
    and another context post: the other context's WQEs all complete, in order;
    the scribbler's QP is destroyed."""
    f = Ctx(dev, cqe=1023, channel=True)
    b = Ctx(dev, cqe=1023)
    fqp, fh, fqpn, fsq, frq = f.create_qp(QPT_RC, wr=16)
    bqp, bh, bqpn, bsq, brq = b.create_qp(QPT_RC, wr=16)
    e = f.rc_rts(fqp, fqpn) or b.rc_rts(bqp, bqpn)
    fv, bv = Verbs(f.ctx), Verbs(b.ctx)
    # The provider computes slot addresses from the ring's log2 and mask, and
    # (unmasked) from the send ring's producer index: a scribble there would
    # only crash this process. The CQ ring's are read here.
    targets = [(fsq, [o for o in range(0, DATA, 4) if o not in (0, 4, PROD)]),
               (frq, [o for o in range(0, DATA, 4) if o not in (0, 4)]),
               (f.cq_ring, [o for o in range(0, DATA, 4) if o not in (0, 4, PROD, CONS)])]
    stop = threading.Event()
    writes = [0]

    def scribble():
        while not stop.is_set():
            ring, words = random.choice(targets)
            put32(ring.base + random.choice(words), random.choice(
                [0, 1, 2, 3, 0xffffffff, random.getrandbits(32)]))
            writes[0] += 1
            if writes[0] % 16 == 0:
                time.sleep(0.0002)

    t = threading.Thread(target=scribble)
    t.start()
    fwr, bwr = send_wr(0), send_wr(0)
    b_posted, b_got, b_bad, f_posted, f_done, f_rang, slowest = 0, [], [], 0, 0, 0, 0.0
    last_f = time.monotonic()
    end = time.monotonic() + 3
    while time.monotonic() < end:
        for _ in range(random.randint(1, 4)):
            struct.pack_into("<Q", fwr, 0, 0xd0000 + (f_posted & 0xffff))
            if fv.post_send(fqp, fwr) == 0:
                f_posted += 1
        n = random.randint(1, 4)
        t1 = time.monotonic()
        for i in range(n):
            struct.pack_into("<Q", bwr, 0, 0xe0000 + b_posted)
            r = bv.post_send(bqp, bwr)
            if r:
                b_bad.append(("post", r))
                break
            b_posted += 1
        while len(b_got) < b_posted and time.monotonic() < t1 + 5:
            b_got.extend(b.drain())
        slowest = max(slowest, time.monotonic() - t1)
        fresh = f.drain()
        f_done += len(fresh)
        if fresh:
            last_f = time.monotonic()
        elif time.monotonic() - last_f > 0.1:
            # A forged RRXE_SQ_WATCHED may hold the scribbler's posts: ring.
            f.doorbell(fh)
            f_rang += 1
            last_f = time.monotonic()
        if len(b_got) < b_posted:
            break
    stop.set()
    t.join()
    f_err = f.modify(fqp, M_STATE, qp_state=ERR)
    f_destroy = ibv.ibv_destroy_qp(fqp)
    b_state = b.state(bqp)
    tap(e == 0 and not b_bad and b_posted > 0 and b_state == RTS
        and b_got == [(0xe0000 + i, WC_SUCCESS) for i in range(b_posted)]
        and f_err == 0 and f_destroy == 0,
        f"doorbell: {writes[0]} scribbles of the send, receive and CQ ring headers: "
        f"another context's {b_posted} WQEs complete in order (slowest batch "
        f"{slowest * 1000:.0f} ms), the scribbler's QP is destroyed",
        f"rts {e}; bystander: posted {b_posted}, got {len(b_got)} {b_got[-2:]}, errors "
        f"{b_bad}, state {b_state}; scribbler: posted {f_posted}, completed {f_done}, "
        f"rang {f_rang}, modify {f_err}, destroy {f_destroy}")
    ibv.ibv_destroy_qp(bqp)
    b.close()
    f.close()


def forged_arm(dev, took):
    """(d) A thread writes arm bits into a CQ ring's cq_arm while WQEs complete:
    no more completion events than completions. Then a real arm (the
    provider's ibv_req_notify_cq) and one completion give an event within 5 s,
    whatever the word held before."""
    c = Ctx(dev, cqe=1023, channel=True)
    qp, h, qpn, sq, rq = c.create_qp(QPT_RC, wr=64)
    e = c.rc_rts(qp, qpn)
    v = Verbs(c.ctx)
    ch_fd = C.c_int.from_address(c.channel + 8).value
    os.set_blocking(ch_fd, False)
    ev_cq, ev_ctx = vp(), vp()

    def events():
        n = 0
        while ibv.ibv_get_cq_event(c.channel, C.byref(ev_cq), C.byref(ev_ctx)) == 0:
            ibv.ibv_ack_cq_events(ev_cq, 1)
            n += 1
        return n

    before = dev_stats(dev)
    stop = threading.Event()
    writes = [0]

    def arms():
        while not stop.is_set():
            put32(c.cq_ring.base + DB_WORD, random.choice(
                [CQ_ARM_NEXT, CQ_ARM_SOLICITED, CQ_ARM_NEXT | CQ_ARM_SOLICITED,
                 random.getrandbits(32)]))
            writes[0] += 1
            if writes[0] % 16 == 0:
                time.sleep(0.0002)

    t = threading.Thread(target=arms)
    t.start()
    wr = send_wr(0)
    posted, done, n_ev, bad = 0, 0, 0, []
    end = time.monotonic() + 2
    while time.monotonic() < end:
        for _ in range(4):
            struct.pack_into("<Q", wr, 0, posted)
            r = v.post_send(qp, wr)
            if r:
                bad.append(r)
                break
            posted += 1
        t1 = time.monotonic()
        while done < posted and time.monotonic() < t1 + 5:
            got = c.drain()
            done += len(got)
            bad += [s for _, s in got if s != WC_SUCCESS]
        n_ev += events()
        if done < posted or bad:
            break
    stop.set()
    t.join()
    time.sleep(0.2)
    done += len(c.drain())
    n_ev += events()
    moved = stats_moved(before, dev_stats(dev))
    ring_events = moved.get("db_cq_events", 0)
    tap(e == 0 and not bad and done == posted and n_ev <= done
        and (not took or 0 < ring_events <= done),
        f"doorbell: {writes[0]} forged cq_arm writes: {n_ev} events for {done} completions, "
        "no more",
        f"rts {e}, posted {posted}, completed {done}, errors {bad}, events {n_ev}; {moved}")
    # A real arm. The word may hold anything the forger left: garbage without
    # an arm bit, or nothing.
    ok, why = e == 0, []
    for i, left in enumerate([0xfffffff0 & ~(CQ_ARM_NEXT | CQ_ARM_SOLICITED), 0]):
        put32(c.cq_ring.base + DB_WORD, left)
        c.drain()
        stale = events()
        r = v.req_notify(c.cq, 0)
        post(sq, [zero_write(0xf000 + i)])
        c.doorbell(h)
        t1 = time.monotonic()
        ready = select.select([ch_fd], [], [], 5)[0]
        waited = time.monotonic() - t1
        n = events()
        got = c.poll(1, secs=2)
        good = r == 0 and ready and n == 1 and got == [(0xf000 + i, WC_SUCCESS)]
        ok &= good
        why.append(f"word {left:#x}: arm {r}, {stale} stale events, event after "
                   f"{waited:.2f} s: {n}, completion {got}")
    tap(ok, "doorbell: after a real arm, a completion brings its event (get_cq_event "
        "does not block)", "; ".join(why))
    ibv.ibv_destroy_qp(qp)
    c.close()


def doorbell_cases(dev):
    """The doorbell's cases. Those that need the doorbell check it where the
    provider is expected to take it."""
    # The scribbling threads and the posting one take turns on the interpreter
    # lock: short turns, so that the poster's waits measure the kernel.
    sys.setswitchinterval(0.0005)
    # RRXE_EXPECT_DOORBELL=1 or 0 overrides the guess (e.g. to see the
    # doorbell's cases fail with the stock provider).
    expect = os.environ.get("RRXE_EXPECT_DOORBELL", "")
    expect = (expect == "1" if expect in ("0", "1") else
              "/stock/" not in os.environ.get("RDMAV_DRIVERS", "")
              and os.environ.get("RRXE_DOORBELL") != "0")
    before = dev_stats(dev)
    c = Ctx(dev)
    took = dev_stats(dev).get("db_contexts", 0) > before.get("db_contexts", 0)
    c.close()
    tap(took == expect, "doorbell: the provider " + ("took" if took else "did not take")
        + " the doorbell", f"expected {'the doorbell' if expect else 'none'} "
        f"(RDMAV_DRIVERS={os.environ.get('RDMAV_DRIVERS', '')})")
    forged_flag(dev, expect)
    producer_garbage(dev, expect)
    header_scribble(dev)
    forged_arm(dev, expect)
    diag(f"{dev}: {stats_moved(before, dev_stats(dev))}")
    return took


def main():
    dev = sys.argv[1]
    print("TAP version 13")
    print("1..26")

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
    before = dev_stats(dev).get("rdma_sends", 0)
    post(sq, [bytes(w)])
    c.doorbell(h)
    got = c.poll(1, secs=2)
    # A refused SEND is retired with its error: rdma_rxe counts it in rdma_sends.
    sends = dev_stats(dev).get("rdma_sends", 0) - before
    tap(got == [(0x3333, WC_LOC_PROT_ERR)] and c.state(qp) == ERR and sends == 1,
        "bogus cur_sge/resid/state: ignored, the WQE's own SGE fails (LOC_PROT_ERR), "
        "one more in rdma_sends",
        f"got {got}, state {c.state(qp)}, rdma_sends +{sends}")
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

    doorbell_cases(dev)
    # Every promise is withdrawn once no QP has work (c2's is in the error
    # state): as many disarms as arms.
    s = wait_until(5, lambda: (lambda d: d.get("db_arms") == d.get("db_disarms") and d)(
        dev_stats(dev)))
    d = dev_stats(dev)
    tap(bool(s), "doorbell: every promise withdrawn (db_arms = db_disarms)",
        f"db_arms {d.get('db_arms')}, db_disarms {d.get('db_disarms')}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
