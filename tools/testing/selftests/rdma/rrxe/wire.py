#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sends hand-made RoCE v2 packets to a device's address over UDP/IPv6.

    wire.py ADDR KIND [COUNT [QPN SRC [PSN [VA RKEY]]]]

KIND is one of:
  valid      UD SEND_ONLY to QPN 0x123456 (no such QP) with a correct ICRC
  bad-icrc   the same with one ICRC bit flipped
  short      8 bytes (shorter than a BTH and ICRC)
  bad-opcode a correct-length packet with a reserved opcode
  fuzz       COUNT packets of random length and bytes (seeded, reproducible)
  gsi        UD SEND_ONLY of 256 zero bytes to QP1 with the GSI Q_Key
  rc-send    RC SEND_ONLY to QPN, sent from the local address SRC
  rc-send-first
             RC SEND_FIRST with 1024 bytes to QPN at PSN, from SRC: the start
             of a message whose rest never comes
  rc-write   RC RDMA WRITE_ONLY of the 4 bytes "rrxe" to VA with RKEY (RETH
             length 4) to QPN at PSN, from SRC, asking for an ACK
  rc-write-imm-empty
             RC RDMA WRITE_ONLY_WITH_IMMEDIATE with a RETH length of 4096 and
             no payload, to VA with RKEY
  rc-read-req
             RC RDMA READ_REQUEST for COUNT bytes at VA with RKEY, to QPN at
             PSN, from SRC
  rc-read-resp
             the READ responses to a READ of COUNT bytes at MTU 1024, FIRST to
             LAST (or ONLY) from PSN on, with the bytes of read_data(COUNT)
  rc-read-resp-empty
             READ_RESPONSE_ONLY without data at each of that READ's PSNs
  rc-read-resp-pkey
             rc-read-resp with the P_Key 0x1234

The ICRC is computed as rdma_rxe does over IPv6: the masked IPv6 and UDP
headers and the BTH (resv8a masked), then the rest of the packet.
"""
import random
import socket
import struct
import sys
import zlib

ICRC_SEED = 0xDEBB20E3
SPORT = 49999


def crc32_le(crc, data):
    """The kernel's raw crc32_le (no inversions), via zlib's inverted one."""
    return ~zlib.crc32(data, ~crc & 0xFFFFFFFF) & 0xFFFFFFFF


def icrc(saddr, daddr, pkt):
    """ICRC of pkt (BTH through the 4 ICRC bytes) sent saddr -> daddr over UDP."""
    udp_len = 8 + len(pkt)
    ip6 = struct.pack("!IHBB", 0x6FFFFFFF, udp_len, 17, 0xFF) + saddr + daddr
    udp = struct.pack("!HHHH", SPORT, 4791, udp_len, 0xFFFF)
    bth = bytearray(pkt[:12])
    bth[4] = 0xFF
    crc = crc32_le(ICRC_SEED, ip6 + udp + bytes(bth))
    crc = crc32_le(crc, pkt[12:-4])
    return struct.pack("<I", ~crc & 0xFFFFFFFF)


def ud_send(qpn, payload, qkey=0x11111111):
    """A UD SEND_ONLY packet with a zeroed ICRC: BTH, DETH, payload, pad."""
    pad = -len(payload) & 3
    bth = struct.pack("!BBHII", 0x64, pad << 4, 0xFFFF, qpn, 0)
    deth = struct.pack("!II", qkey, 0x000001)
    return bth + deth + payload + bytes(pad) + bytes(4)


def rc_send(qpn, psn, payload, opcode=0x04):
    """An RC SEND packet (SEND_ONLY unless opcode says otherwise) with a zeroed
    ICRC: BTH, payload, pad."""
    pad = -len(payload) & 3
    bth = struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, qpn, psn)
    return bth + payload + bytes(pad) + bytes(4)


def read_data(length):
    """The bytes an rc-read-resp READ of length bytes brings."""
    return bytes((7 * i + 1) & 0xFF for i in range(length))


def rc_read_responses(qpn, psn, length, kind, mtu=1024):
    """The READ responses (ICRC zeroed) that answer a READ of length bytes."""
    data = read_data(length)
    n = max(1, -(-length // mtu))
    aeth = struct.pack("!I", 0x1F << 24)
    out = []
    for k in range(n):
        if kind == "rc-read-resp-empty":
            opcode, payload = 0x10, b""
        else:
            payload = data[k * mtu:(k + 1) * mtu]
            opcode = 0x10 if n == 1 else 0x0D if k == 0 else 0x0F if k == n - 1 else 0x0E
        pad = -len(payload) & 3
        pkey = 0x1234 if kind == "rc-read-resp-pkey" else 0xFFFF
        bth = struct.pack("!BBHII", opcode, pad << 4, pkey, qpn, (psn + k) & 0xFFFFFF)
        out.append(bth + (b"" if opcode == 0x0E else aeth) + payload + bytes(pad) + bytes(4))
    return out


def main():
    addr, kind = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    qpn = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0
    src = sys.argv[5] if len(sys.argv) > 5 else "::"
    psn = int(sys.argv[6], 0) if len(sys.argv) > 6 else 0
    va = int(sys.argv[7], 0) if len(sys.argv) > 7 else 0
    rkey = int(sys.argv[8], 0) if len(sys.argv) > 8 else 0
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((src, SPORT))
    s.connect((addr, 4791))
    saddr = socket.inet_pton(socket.AF_INET6, s.getsockname()[0])
    daddr = socket.inet_pton(socket.AF_INET6, addr)
    rnd = random.Random(4791)
    if kind == "rc-read-req":
        pkt = bytearray(struct.pack("!BBHII", 0x0C, 0, 0xFFFF, qpn, psn)
                        + struct.pack("!QII", va, rkey, count) + bytes(4))
        pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        s.send(bytes(pkt))
        return 0
    if kind.startswith("rc-read-resp"):
        for pkt in rc_read_responses(qpn, psn, count, kind):
            pkt = bytearray(pkt)
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
            s.send(bytes(pkt))
        return 0
    for _ in range(count):
        if kind in ("valid", "bad-icrc"):
            pkt = bytearray(ud_send(0x123456, b"rrxe wire test"))
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
            if kind == "bad-icrc":
                pkt[-1] ^= 0x40
        elif kind == "gsi":
            pkt = bytearray(ud_send(1, bytes(256), qkey=0x80010000))
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        elif kind == "short":
            pkt = bytes(8)
        elif kind == "bad-opcode":
            pkt = bytearray(ud_send(0x123456, b"abcd"))
            pkt[0] = 0x1E  # reserved RC opcode
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        elif kind == "rc-send":
            pkt = bytearray(rc_send(qpn, rnd.randrange(1 << 24), b"not from the peer"))
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        elif kind == "rc-send-first":
            pkt = bytearray(rc_send(qpn, psn, bytes(1024), opcode=0x00))
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        elif kind in ("rc-write", "rc-write-imm-empty"):
            ack_req = 1 << 31
            if kind == "rc-write":
                opcode, reth_len, rest = 0x0A, 4, b"rrxe"
            else:
                opcode, reth_len, rest = 0x0B, 4096, struct.pack("!I", 0x1234567)
            pkt = bytearray(struct.pack("!BBHII", opcode, 0, 0xFFFF, qpn, ack_req | psn)
                            + struct.pack("!QII", va, rkey, reth_len) + rest + bytes(4))
            pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        elif kind == "fuzz":
            n = rnd.choice([0, 1, 12, 16, 20, 28, 40, 64, 300, 1100])
            pkt = bytearray(rnd.randbytes(n))
            if n >= 12 and rnd.random() < 0.7:
                # Mostly plausible BTHs, so the checks past the first are reached.
                pkt[0] = rnd.choice([0x04, 0x0A, 0x0C, 0x11, 0x13, 0x24, 0x64, 0x65])
                pkt[1] &= 0x30
                pkt[2:4] = b"\xff\xff"
                pkt[5:8] = rnd.choice([b"\x00\x00\x01", b"\x00\x00\x11", b"\xff\xff\xff"])
            if n >= 16 and rnd.random() < 0.5:
                pkt[-4:] = icrc(saddr, daddr, bytes(pkt))
        else:
            sys.exit(f"unknown kind {kind}")
        s.send(bytes(pkt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
