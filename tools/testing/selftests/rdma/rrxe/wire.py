#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sends hand-made RoCE v2 packets to a device's address over UDP/IPv6.

    wire.py ADDR KIND [COUNT [QPN SRC [PSN]]]

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


def main():
    addr, kind = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    qpn = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0
    src = sys.argv[5] if len(sys.argv) > 5 else "::"
    psn = int(sys.argv[6], 0) if len(sys.argv) > 6 else 0
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((src, SPORT))
    s.connect((addr, 4791))
    saddr = socket.inet_pton(socket.AF_INET6, s.getsockname()[0])
    daddr = socket.inet_pton(socket.AF_INET6, addr)
    rnd = random.Random(4791)
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
