#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A live wire fuzzer: mutated corpus packets at a device's QPs.

    fuzz.py targets DEV GID4 GID6 PEER4 PEER6 SECONDS
    fuzz.py inject IFACE DST_MAC SRC4 DST4 SRC6 DST6 SEED COUNT TARGETS CORPUS

targets (run where DEV is) makes the QPs the packets aim at and keeps them
busy: RC QPs in RESET, INIT, RTR, RTS, SQD and ERR, RC QPs on an SRQ, a UC
and a UD QP, connected to the addresses PEER4 and PEER6 (from DEV's sgid
indexes GID4 and GID6) at PSN 0; an MR with every remote right and a type 2 memory window
bound to part of it. It prints one JSON line (the QPNs, the MR's and the
window's VA, length and rkeys), then polls the CQ and reposts receives until
its standard input closes or SECONDS pass, and prints a second JSON line with
its completions by status. It exits 1 when a QP can no longer be queried
afterwards.

inject (run on the peer's side) sends COUNT Ethernet frames from IFACE (MTU
9000) to DST_MAC with an AF_PACKET socket. Each is a RoCE v2 packet of the corpus's
pcaps (CORPUS, a directory), mutated, seeded by SEED and the packet's index,
so a failing seed reproduces:
  * the BTH's destination QP is mostly a live one of TARGETS (the first JSON
    line of targets), sent mostly over the family a connected one expects,
    the PSN mostly near 0, RETH and AtomicETH VA, rkey and
    length mostly the MR's or the window's, or past their ends;
  * then bit flips, opcode swaps, truncation and extension, pad, P_Key and
    Q_Key edits;
  * 9 in 10 get a valid ICRC; 1 in 8 a malformed IPv4, IPv6 or UDP header
    (bad version, length, header length, checksum, protocol, fragment).
It prints a JSON line: frames sent, and of them how many were well-formed
IP/UDP to port 4791 (which reach the device) and how many had a valid ICRC.
"""
import json
import os
import random
import select
import socket
import struct
import sys
import time

from wire import ICRC_SEED, crc32_le

ROCE_PORT = 4791
ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86DD
MAX_ROCE = 9000 - 48
# Opcodes to swap in: RC, UC and UD ones rxe knows, and a few reserved.
OPCODES = list(range(0x00, 0x19)) + [0x1C, 0x1D] + list(range(0x20, 0x2C)) + \
    [0x64, 0x65, 0x19, 0x1F, 0x2C, 0x40, 0x66, 0xFF]


def icrc(iphdr, udphdr, roce):
    """ICRC of roce (BTH through the 4 ICRC bytes) as rdma_rxe computes it: the
    IP and UDP headers with their variant fields masked, the BTH with resv8a
    masked, then the rest."""
    ip = bytearray(iphdr)
    if ip[0] >> 4 == 4:
        ip[1] = 0xFF          # TOS
        ip[8] = 0xFF          # TTL
        ip[10:12] = b"\xff\xff"  # checksum
    else:
        ip[0] |= 0x0F         # traffic class and flow label
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF          # hop limit
    udp = bytearray(udphdr)
    udp[6:8] = b"\xff\xff"
    bth = bytearray(roce[:12])
    bth[4] = 0xFF
    crc = crc32_le(ICRC_SEED, bytes(ip) + bytes(udp) + bytes(bth))
    crc = crc32_le(crc, roce[12:-4])
    return struct.pack("<I", ~crc & 0xFFFFFFFF)


def csum16(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def read_corpus(path):
    """The UDP payloads to port 4791 in every pcap of the directory path."""
    out = []
    for name in sorted(os.listdir(path)):
        if not name.endswith(".pcap"):
            continue
        with open(os.path.join(path, name), "rb") as f:
            d = f.read()
        if len(d) < 24 or struct.unpack("<I", d[:4])[0] != 0xA1B2C3D4:
            continue
        off = 24
        while off + 16 <= len(d):
            incl = struct.unpack("<IIII", d[off:off + 16])[2]
            frame = d[off + 16:off + 16 + incl]
            off += 16 + incl
            etype = struct.unpack("!H", frame[12:14])[0] if len(frame) >= 14 else 0
            if etype == ETH_P_IP and len(frame) >= 42:
                ihl = (frame[14] & 0xF) * 4
                udp = frame[14 + ihl:]
            elif etype == ETH_P_IPV6 and len(frame) >= 62:
                udp = frame[54:]
            else:
                continue
            if len(udp) >= 8 + 16 and struct.unpack("!H", udp[2:4])[0] == ROCE_PORT:
                out.append(bytes(udp[8:]))
    return out


def mutate(rnd, pkt, tg):
    """pkt (BTH .. ICRC) aimed at a live QP, then mutated, and the address
    family to send it over: mostly the one a connected target QP expects
    its peer on (its name ends in _v4 or _v6), so that it passes the address
    check and reaches the QP's engines."""
    p = bytearray(pkt)
    qpns = tg["qpns"]
    r = rnd.random()
    fam = rnd.choice([4, 6])
    if r < 0.75:
        name = rnd.choice(sorted(qpns))
        qpn = qpns[name]
        if name[-3:] in ("_v4", "_v6") and rnd.random() < 0.85:
            fam = int(name[-1])
    elif r < 0.85:
        qpn = 1
    else:
        qpn = rnd.choice([0, 0xFFFFFF, rnd.randrange(1 << 24)])
    p[5:8] = qpn.to_bytes(3, "big")
    if rnd.random() < 0.7:
        psn = rnd.choice([0, 0, 1, 2, 3, rnd.randrange(64), 0xFFFFFF, 0x800000, 0x7FFFFF])
        p[9:12] = psn.to_bytes(3, "big")
    if rnd.random() < 0.5:
        p[8] = rnd.choice([0x80, 0x00, 0x80, rnd.randrange(256)])  # AckReq
    op = p[0]
    # RETH (WRITE FIRST/ONLY, READ request) and AtomicETH share VA and rkey at
    # the BTH's end; a DETH's Q_Key is there for UD.
    if len(p) >= 28 and rnd.random() < 0.6:
        win = rnd.choice([("mr_va", "mr_len", "mr_rkey"), ("mw_va", "mw_len", "mw_rkey")])
        va, length, rkey = tg[win[0]], tg[win[1]], tg[win[2]]
        off = rnd.choice([0, 0, 8, length - 8, length - 1, length, length + 8,
                          rnd.randrange(length + 1), 1 << 63, (1 << 64) - va - 1])
        p[12:20] = ((va + off) % (1 << 64)).to_bytes(8, "big")
        p[20:24] = (rkey if rnd.random() < 0.8 else rnd.randrange(1 << 32)).to_bytes(4, "big")
        if len(p) >= 32 and rnd.random() < 0.6:
            dma = rnd.choice([0, 1, 4, 8, 1024, 4096, length - off if length > off else 0,
                              1 << 31, 0xFFFFFFFF, rnd.randrange(1 << 32)])
            p[24:28] = (dma % (1 << 32)).to_bytes(4, "big")
    if 0x64 <= op <= 0x65 and len(p) >= 20 and rnd.random() < 0.7:
        p[12:16] = (0x11111111).to_bytes(4, "big")
    for _ in range(rnd.choice([0, 0, 1, 1, 2, 3])):
        kind = rnd.randrange(8)
        if kind == 0 and p:  # bit flip, mostly in the headers
            i = rnd.randrange(min(len(p), 48)) if rnd.random() < 0.8 else rnd.randrange(len(p))
            p[i] ^= 1 << rnd.randrange(8)
        elif kind == 1 and p:
            p[0] = rnd.choice(OPCODES)
        elif kind == 2:  # truncate
            del p[rnd.randrange(len(p) + 1):]
        elif kind == 3:  # extend
            p += bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 4, 16, 1024, 4096])))
        elif kind == 4 and len(p) > 1:  # pad count, migration, TVer
            p[1] = rnd.randrange(256)
        elif kind == 5 and len(p) > 3:  # P_Key
            p[2:4] = rnd.choice([b"\xff\xff", b"\x7f\xff", b"\x00\x00", b"\x12\x34"])
        elif kind == 6 and len(p) >= 16:  # AETH / DETH / length words
            i = 12 + 4 * rnd.randrange((len(p) - 12) // 4)
            p[i:i + 4] = rnd.choice([0, 0xFFFFFFFF, 0x80000000, rnd.randrange(1 << 32)]).to_bytes(4, "big")
        elif kind == 7 and len(p) > 4:  # resv and BTH bits
            p[4] = rnd.randrange(256)
    # Within the veths' MTU (9000) with the IPv6 and UDP headers.
    return bytes(p[:MAX_ROCE]), fam


def frame(rnd, roce, fam, addrs, mac_src, mac_dst, good_icrc, bad_hdr):
    """An Ethernet frame carrying roce over UDP to port 4791; roce's ICRC is
    made valid if good_icrc. bad_hdr: one IP or UDP header field broken."""
    sport = rnd.randrange(49152, 65536)
    ulen = 8 + len(roce)
    if fam == 4:
        src, dst = addrs["src4"], addrs["dst4"]
        ident = rnd.randrange(1 << 16)
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, ident, 0x4000, 64, 17, 0,
                                   src, dst))
        udp = bytearray(struct.pack("!HHHH", sport, ROCE_PORT, ulen, 0))
        if good_icrc and len(roce) >= 16:
            roce = roce[:-4] + icrc(ip, udp, roce)
        ip[10:12] = struct.pack("!H", csum16(bytes(ip)))
    else:
        src, dst = addrs["src6"], addrs["dst6"]
        ip = bytearray(struct.pack("!IHBB16s16s", 0x60000000 | rnd.randrange(1 << 20), ulen, 17, 64,
                                   src, dst))
        udp = bytearray(struct.pack("!HHHH", sport, ROCE_PORT, ulen, 0))
        if good_icrc and len(roce) >= 16:
            roce = roce[:-4] + icrc(ip, udp, roce)
        pseudo = src + dst + struct.pack("!IxxxB", ulen, 17)
        c = csum16(pseudo + bytes(udp) + roce) or 0xFFFF
        udp[6:8] = struct.pack("!H", c)
    if bad_hdr:
        k = rnd.randrange(7)
        if fam == 4:
            if k == 0:
                ip[0] = rnd.choice([0x40, 0x44, 0x46, 0x4F, 0x55, 0x65])  # version, IHL
            elif k == 1:
                ip[2:4] = struct.pack("!H", rnd.choice([0, 19, 20 + ulen + 1, 0xFFFF]))
            elif k == 2:
                ip[10] ^= 0x5A  # checksum
            elif k == 3:
                ip[9] = rnd.choice([6, 0, 255])  # protocol
            elif k == 4:
                ip[6:8] = struct.pack("!H", rnd.choice([0x2000, 0x2001, 0x0008]))  # fragments
            if k in (0, 1, 3, 4):
                ip[10:12] = b"\0\0"
                ip[10:12] = struct.pack("!H", csum16(bytes(ip)))
        else:
            if k == 0:
                ip[0] = (ip[0] & 0x0F) | rnd.choice([0x40, 0x70, 0x00])
            elif k == 1:
                ip[4:6] = struct.pack("!H", rnd.choice([0, 7, ulen + 1, 0xFFFF]))
            elif k == 2:
                ip[6] = rnd.choice([0, 44, 59, 6])  # next header
            elif k in (3, 4):
                udp[6] ^= 0x5A  # checksum
        if k == 5:
            udp[4:6] = struct.pack("!H", rnd.choice([0, 7, 8, ulen + 1, ulen - 1, 0xFFFF]))
        elif k == 6:
            udp = udp[:rnd.randrange(8)]
            roce = b""
    etype = ETH_P_IP if fam == 4 else ETH_P_IPV6
    return mac_dst + mac_src + struct.pack("!H", etype) + bytes(ip) + bytes(udp) + roce


def inject(argv):
    iface, dst_mac, src4, dst4, src6, dst6 = argv[:6]
    seed, count, targets, corpus = int(argv[6]), int(argv[7]), argv[8], argv[9]
    with open(targets) as f:
        tg = json.loads(f.readline())
    base = read_corpus(corpus)
    if not base:
        sys.exit(f"no RoCE v2 packets in {corpus}")
    addrs = {"src4": socket.inet_pton(socket.AF_INET, src4), "dst4": socket.inet_pton(socket.AF_INET, dst4),
             "src6": socket.inet_pton(socket.AF_INET6, src6), "dst6": socket.inet_pton(socket.AF_INET6, dst6)}
    with open(f"/sys/class/net/{iface}/address") as f:
        mac_src = bytes.fromhex(f.read().strip().replace(":", ""))
    mac_dst = bytes.fromhex(dst_mac.replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    sent = wellformed = icrc_ok = 0
    t0 = time.monotonic()
    for i in range(count):
        rnd = random.Random(seed * 1000003 + i)
        roce, fam = mutate(rnd, rnd.choice(base), tg)
        good_icrc = rnd.random() < 0.9
        bad_hdr = rnd.random() < 0.125
        fr = frame(rnd, roce, fam, addrs, mac_src, mac_dst, good_icrc, bad_hdr)
        try:
            s.send(fr)
        except OSError as ex:
            sys.exit(f"frame {i}: send failed: {ex}")
        sent += 1
        wellformed += not bad_hdr
        icrc_ok += good_icrc and not bad_hdr and len(roce) >= 16
        # Let the receiver keep up: the veth's backlog holds 1,000 frames.
        if i % 64 == 63:
            time.sleep(0.002)
    print(json.dumps({"sent": sent, "wellformed": wellformed, "good_icrc": icrc_ok,
                      "seed": seed, "seconds": round(time.monotonic() - t0, 1)}), flush=True)


def targets(argv):
    import pyverbs.enums as e
    from pyverbs.addr import GID, AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR, MW, MWBindInfo
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    from pyverbs.wr import SGE, RecvWR, SendWR

    dev, gid4, gid6, secs = argv[0], int(argv[1]), int(argv[2]), float(argv[5])

    def gid_of(addr):
        """The RoCE v2 GID of an IPv4 or IPv6 address, as pyverbs spells one."""
        if ":" in addr:
            raw = socket.inet_pton(socket.AF_INET6, addr)
        else:
            raw = bytes(10) + b"\xff\xff" + socket.inet_pton(socket.AF_INET, addr)
        return GID(":".join(raw[i:i + 2].hex() for i in range(0, 16, 2)))
    peer4, peer6 = gid_of(argv[3]), gid_of(argv[4])
    ctx = Context(name=dev)
    pd = PD(ctx)
    size = 1 << 16
    access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
              e.IBV_ACCESS_REMOTE_ATOMIC | e.IBV_ACCESS_MW_BIND)
    mr = MR(pd, size, access)
    rmr = MR(pd, 1 << 16, e.IBV_ACCESS_LOCAL_WRITE)  # receive buffers
    cq = CQ(ctx, 4096)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=1)))
    qps = {}

    def make(kind, on_srq=False):
        t = {"rc": e.IBV_QPT_RC, "uc": e.IBV_QPT_UC, "ud": e.IBV_QPT_UD}[kind]
        cap = QPCap(max_send_wr=16, max_recv_wr=0 if on_srq else 64, max_send_sge=1,
                    max_recv_sge=0 if on_srq else 1)
        init = QPInitAttr(qp_type=t, scq=cq, rcq=cq, cap=cap, sq_sig_all=1)
        if on_srq:
            init.srq = srq
        return QP(pd, init)

    def to_init(qp, kind):
        a = QPAttr()
        a.qp_state = e.IBV_QPS_INIT
        a.pkey_index = 0
        a.port_num = 1
        mask = e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
        if kind == "ud":
            a.qkey = 0x11111111
            mask |= e.IBV_QP_QKEY
        else:
            a.qp_access_flags = access & ~e.IBV_ACCESS_MW_BIND if kind == "rc" else e.IBV_ACCESS_REMOTE_WRITE
            mask |= e.IBV_QP_ACCESS_FLAGS
        qp.modify(a, mask)

    def to_rtr(qp, kind, fam):
        a = QPAttr()
        a.qp_state = e.IBV_QPS_RTR
        mask = e.IBV_QP_STATE
        if kind != "ud":
            a.path_mtu = e.IBV_MTU_1024
            a.dest_qp_num = 0x11 + len(qps)
            a.rq_psn = 0
            a.ah_attr = AHAttr(port_num=1, is_global=1,
                               gr=GlobalRoute(dgid=peer4 if fam == 4 else peer6, hop_limit=64,
                                              sgid_index=gid4 if fam == 4 else gid6))
            mask |= e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN
            if kind == "rc":
                a.max_dest_rd_atomic = 16
                a.min_rnr_timer = 1
                mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
        qp.modify(a, mask)

    def to_rts(qp, kind):
        a = QPAttr()
        a.qp_state = e.IBV_QPS_RTS
        a.sq_psn = 0
        mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
        if kind == "rc":
            # Few, short retries: the peer QPNs do not exist.
            a.timeout, a.retry_cnt, a.rnr_retry, a.max_rd_atomic = 8, 1, 1, 16
            mask |= e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC
        qp.modify(a, mask)

    def post_recvs(qp, n):
        for _ in range(n):
            qp.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(rmr.buf, 4096, rmr.lkey)]))

    for fam in (4, 6):
        for state in ("reset", "init", "rtr", "rts", "sqd", "err"):
            qp = make("rc")
            if state != "reset":
                to_init(qp, "rc")
                post_recvs(qp, 32)
            if state in ("rtr", "rts", "sqd"):
                to_rtr(qp, "rc", fam)
            if state in ("rts", "sqd"):
                to_rts(qp, "rc")
            if state == "sqd":
                a = QPAttr()
                a.qp_state = e.IBV_QPS_SQD
                qp.modify(a, e.IBV_QP_STATE)
            if state == "err":
                a = QPAttr()
                a.qp_state = e.IBV_QPS_ERR
                qp.modify(a, e.IBV_QP_STATE)
            qps[f"rc_{state}_v{fam}"] = qp
        for kind in ("srq", "uc"):
            qp = make("rc" if kind == "srq" else "uc", on_srq=kind == "srq")
            to_init(qp, "rc" if kind == "srq" else "uc")
            if kind == "uc":
                post_recvs(qp, 32)
            to_rtr(qp, "rc" if kind == "srq" else "uc", fam)
            to_rts(qp, "rc" if kind == "srq" else "uc")
            qps[f"{kind}_v{fam}"] = qp
    ud = make("ud")
    to_init(ud, "ud")
    post_recvs(ud, 32)
    to_rtr(ud, "ud", 0)
    to_rts(ud, "ud")
    qps["ud"] = ud
    for _ in range(64):
        srq.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(rmr.buf, 4096, rmr.lkey)]))
    # A type 2 window over the MR's second half, bound by the v6 RTS QP.
    mw = MW(pd, e.IBV_MW_TYPE_2)
    bind = SendWR(wr_id=9, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    bind.set_bind_wr(mw, MWBindInfo(mr, mr.buf + size // 2, size // 2,
                                    e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ))
    qps["rc_rts_v6"].post_send(bind)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        n, wcs = cq.poll(1)
        if n:
            break
        time.sleep(0.01)
    print(json.dumps({"qpns": {k: q.qp_num for k, q in qps.items()},
                      "mr_va": mr.buf, "mr_len": size, "mr_rkey": mr.rkey,
                      "mw_va": mr.buf + size // 2, "mw_len": size // 2, "mw_rkey": bind.rkey}),
          flush=True)

    statuses = {}
    recv_qps = {q.qp_num: q for k, q in qps.items() if not k.startswith(("srq", "rc_reset"))}
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if select.select([sys.stdin], [], [], 0)[0] and not sys.stdin.readline():
            break
        n, wcs = cq.poll(32)
        if not n:
            time.sleep(0.005)
            continue
        for wc in wcs[:n]:
            statuses[wc.status] = statuses.get(wc.status, 0) + 1
            # Receives used up are posted again where the QP still takes them.
            try:
                if wc.wr_id == 2:
                    srq.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(rmr.buf, 4096, rmr.lkey)]))
                elif wc.wr_id == 1 and wc.qp_num in recv_qps and wc.status == 0:
                    post_recvs(recv_qps[wc.qp_num], 1)
            except Exception:
                pass
    # The objects still answer: every QP is queried.
    bad = []
    for k, q in qps.items():
        try:
            q.query(e.IBV_QP_STATE)
        except Exception as ex:
            bad.append(f"{k}: {ex}")
    print(json.dumps({"completions": {str(k): v for k, v in sorted(statuses.items())},
                      "failed": bad}), flush=True)
    mw.close()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "inject" and len(sys.argv) == 12:
        inject(sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "targets" and len(sys.argv) == 8:
        targets(sys.argv[2:])
    else:
        sys.exit(__doc__)
