// SPDX-License-Identifier: GPL-2.0

//! Helpers shared by the integration tests: packet generators, IP/UDP framing and
//! an independent, deliberately naive ICRC reference.

#![allow(dead_code)]

pub mod pcap;

use proptest::prelude::*;
use rrxe_proto::icrc::{self, NetHdr, SoftCrc32};
use rrxe_proto::opcode::ICRC_BYTES;
use rrxe_proto::opcode::{self, OpInfo};
use rrxe_proto::packet::{self, HeaderFields, Packet};

/// Bit-at-a-time reflected CRC-32 (zlib convention: init and final inversion).
pub fn crc32_bitwise(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// ICRC by the IBTA/RoCE v2 Annex A17 wording, written independently of the crate:
/// one buffer of 8 x 0xff (masked LRH), IP header with the variant fields replaced
/// by ones, UDP header with checksum replaced by ones, BTH with the resv8a byte
/// replaced by ones, then the rest of the packet without the ICRC; CRC-32 of it.
pub fn icrc_reference(ip: &[u8], udp: &[u8], pkt: &[u8]) -> u32 {
    let mut buf = vec![0xff; 8];
    let mut ip = ip.to_vec();
    if ip[0] >> 4 == 4 {
        ip[1] = 0xff; // type of service
        ip[8] = 0xff; // time to live
        ip[10..12].fill(0xff); // header checksum
    } else {
        // version (4 bits) | traffic class (8) | flow label (20)
        let w = u32::from_be_bytes(ip[0..4].try_into().unwrap()) | 0x0fff_ffff;
        ip[0..4].copy_from_slice(&w.to_be_bytes());
        ip[7] = 0xff; // hop limit
    }
    buf.extend_from_slice(&ip);
    let mut udp = udp.to_vec();
    udp[6..8].fill(0xff);
    buf.extend_from_slice(&udp);
    let mut bth = pkt[..12].to_vec();
    bth[4] = 0xff;
    buf.extend_from_slice(&bth);
    buf.extend_from_slice(&pkt[12..pkt.len() - 4]);
    crc32_bitwise(&buf)
}

/// IPv4 header (no options) for a UDP datagram of `udp_len` bytes.
pub fn ipv4_header(udp_len: usize, tos: u8, ttl: u8, id: u16) -> [u8; 20] {
    let total = (20 + udp_len) as u16;
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[1] = tos;
    h[2..4].copy_from_slice(&total.to_be_bytes());
    h[4..6].copy_from_slice(&id.to_be_bytes());
    h[6] = 0x40; // DF
    h[8] = ttl;
    h[9] = 17;
    h[12..16].copy_from_slice(&[192, 168, 7, 1]);
    h[16..20].copy_from_slice(&[192, 168, 7, 2]);
    let mut sum = 0u32;
    for w in h.chunks(2) {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    h[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    h
}

/// IPv6 header for a UDP datagram of `udp_len` bytes.
pub fn ipv6_header(udp_len: usize, tclass: u8, flow: u32, hops: u8) -> [u8; 40] {
    let mut h = [0u8; 40];
    let w = (6u32 << 28) | (u32::from(tclass) << 20) | (flow & 0xf_ffff);
    h[0..4].copy_from_slice(&w.to_be_bytes());
    h[4..6].copy_from_slice(&(udp_len as u16).to_be_bytes());
    h[6] = 17;
    h[7] = hops;
    h[8..24].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    h[24..40].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    h
}

/// UDP header to port 4791 for a payload of `len` bytes.
pub fn udp_header(sport: u16, len: usize, csum: u16) -> [u8; 8] {
    let mut h = [0u8; 8];
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&4791u16.to_be_bytes());
    h[4..6].copy_from_slice(&((len + 8) as u16).to_be_bytes());
    h[6..8].copy_from_slice(&csum.to_be_bytes());
    h
}

/// A RoCE v2 packet with its network headers.
#[derive(Clone, Debug)]
pub struct Frame {
    /// IPv4 (20 bytes) or IPv6 (40 bytes) header.
    pub ip: Vec<u8>,
    /// UDP header.
    pub udp: [u8; 8],
    /// UDP payload: BTH through ICRC.
    pub pkt: Vec<u8>,
}

impl Frame {
    /// Network header view for the ICRC functions.
    pub fn net(&self) -> NetHdr<'_> {
        NetHdr::from_ip(&self.ip).expect("valid IP header")
    }

    /// Ethernet + IP + UDP + payload bytes, as captured on the wire.
    pub fn ethernet(&self) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
        f.extend_from_slice(if self.ip[0] >> 4 == 4 {
            &[0x08, 0x00]
        } else {
            &[0x86, 0xdd]
        });
        f.extend_from_slice(&self.ip);
        f.extend_from_slice(&self.udp);
        f.extend_from_slice(&self.pkt);
        f
    }
}

/// Builds a complete packet (headers from `f`, `payload`, ICRC) in IPv4 or IPv6.
pub fn frame(f: &HeaderFields, payload: &[u8], v6: bool) -> Frame {
    let info = opcode::lookup(f.bth.opcode).expect("known opcode");
    let len = packet::packet_len(info, payload.len()).unwrap();
    let mut pkt = vec![0u8; len];
    assert_eq!(packet::build_packet(&mut pkt, f, payload), Ok(len));
    let udp = udp_header(0xc000 | (f.bth.dest_qpn as u16 & 0x3fff), len, 0x1234);
    let ip = if v6 {
        ipv6_header(len + 8, 0x28, 0x12345, 64).to_vec()
    } else {
        ipv4_header(len + 8, 0x02, 64, 0x4242).to_vec()
    };
    let mut fr = Frame { ip, udp, pkt };
    let net_ip = fr.ip.clone();
    let net = NetHdr::from_ip(&net_ip).unwrap();
    icrc::generate(&SoftCrc32, net, &fr.udp, &mut fr.pkt).unwrap();
    fr
}

/// Payload length that `parse` accepts for `info` with path MTU `mtu`.
pub fn valid_payload_len(info: &OpInfo, mtu: usize, want: usize) -> usize {
    if !info.has_payload() {
        0
    } else if info.opcode == opcode::RC_ATOMIC_WRITE {
        8
    } else if info.is_first() || info.is_middle() {
        mtu
    } else if info.is_last() {
        1 + want % mtu
    } else {
        want % (mtu + 1)
    }
}

/// Strategy for all header fields of a given opcode (every bit random, TVer 0).
pub fn arb_fields(op: u8) -> impl Strategy<Value = HeaderFields> {
    (
        (
            any::<[bool; 6]>(),
            any::<u16>(),
            any::<[u32; 4]>(),
            any::<u8>(),
        ),
        (any::<[u64; 5]>(), any::<[u32; 8]>(), any::<[u8; 3]>()),
    )
        .prop_map(move |((b, pkey, w, small), (q, d, bytes))| {
            let mut f = HeaderFields::default();
            f.bth.opcode = op;
            f.bth.se = b[0];
            f.bth.mig = b[1];
            f.bth.fecn = b[2];
            f.bth.becn = b[3];
            f.bth.ack_req = b[4];
            f.bth.pkey = pkey;
            f.bth.resv6a = small & 0x3f;
            f.bth.resv7 = bytes[0] & 0x7f;
            f.bth.dest_qpn = w[0] & 0xff_ffff;
            f.bth.psn = w[1] & 0xff_ffff;
            f.rdeth.resv8 = bytes[1];
            f.rdeth.een = w[2] & 0xff_ffff;
            f.deth.qkey = d[0];
            f.deth.resv8 = bytes[2];
            f.deth.src_qpn = w[3] & 0xff_ffff;
            f.feth.bits = d[1];
            f.reth.va = q[0];
            f.reth.rkey = d[2];
            f.reth.len = d[3];
            f.aeth.syndrome = (d[4] >> 24) as u8;
            f.aeth.msn = d[4] & 0xff_ffff;
            f.atmack.orig = q[1];
            f.atmeth.va = q[2];
            f.atmeth.rkey = d[5];
            f.atmeth.swap_add = q[3];
            f.atmeth.compare = q[4];
            f.ieth.rkey = d[6];
            f.immdt.imm = d[7];
            f
        })
}

/// Strategy for any known opcode.
pub fn arb_opcode() -> impl Strategy<Value = u8> {
    let known: Vec<u8> = (0..=255u8)
        .filter(|&o| opcode::lookup(o).is_some())
        .collect();
    proptest::sample::select(known)
}

/// Fields of `f` that `parse` gives back (only the headers the opcode has).
pub fn present_fields(f: &HeaderFields) -> HeaderFields {
    let info = opcode::lookup(f.bth.opcode).unwrap();
    let mut out = HeaderFields {
        bth: f.bth,
        ..Default::default()
    };
    use rrxe_proto::opcode::Mask;
    if info.mask.contains(Mask::RDETH) {
        out.rdeth = f.rdeth;
    }
    if info.mask.contains(Mask::DETH) {
        out.deth = f.deth;
    }
    if info.mask.contains(Mask::FETH) {
        out.feth = f.feth;
    }
    if info.mask.contains(Mask::RETH) {
        out.reth = f.reth;
    }
    if info.mask.contains(Mask::AETH) {
        out.aeth = f.aeth;
    }
    if info.mask.contains(Mask::ATMACK) {
        out.atmack = f.atmack;
    }
    if info.mask.contains(Mask::ATMETH) {
        out.atmeth = f.atmeth;
    }
    if info.mask.contains(Mask::IETH) {
        out.ieth = f.ieth;
    }
    if info.mask.contains(Mask::IMMDT) {
        out.immdt = f.immdt;
    }
    out
}

/// One valid packet of every known opcode, in IPv4 and IPv6, for mutation tests.
pub fn synthetic_frames() -> Vec<Frame> {
    let mut out = Vec::new();
    for info in opcode::OPCODES.iter().flatten() {
        for (i, v6) in [false, true].into_iter().enumerate() {
            let mut f = HeaderFields::default();
            f.bth.opcode = info.opcode;
            f.bth.pkey = 0xffff;
            f.bth.dest_qpn = 0x11 + u32::from(info.opcode);
            f.bth.psn = 0xff_fff0 + i as u32;
            f.bth.ack_req = true;
            f.reth = rrxe_proto::hdr::RethFields {
                va: 0x1000,
                rkey: 0x77,
                len: 1030,
            };
            f.aeth.syndrome = 0x1f;
            f.aeth.msn = 3;
            f.deth.qkey = 0x8001_0000;
            f.deth.src_qpn = 1;
            f.immdt.imm = 0xdead_beef;
            let n = valid_payload_len(info, 256, 1027 + i);
            let payload: Vec<u8> = (0..n).map(|k| (k * 7 + 3) as u8).collect();
            out.push(frame(&f, &payload, v6));
        }
    }
    out
}

/// Invariants any successful parse must satisfy.
pub fn check_consistent(buf: &[u8], p: &Packet<'_>) {
    let info = p.info;
    assert_eq!(info.opcode, buf[0]);
    assert_eq!(p.raw.len(), buf.len());
    let hl = info.header_len();
    assert_eq!(
        hl + p.payload.len() + p.pad.len() + ICRC_BYTES,
        buf.len(),
        "{}",
        info.name
    );
    assert_eq!(p.pad.len(), usize::from(p.bth.pad()));
    assert_eq!(p.headers(), &buf[..hl]);
    assert_eq!(p.payload, &buf[hl..hl + p.payload.len()]);
    assert_eq!(buf.len() % 4, 0);
    if !info.has_payload() {
        assert!(p.payload.is_empty() && p.pad.is_empty());
    }
    assert_eq!(p.reth.is_some(), info.mask.contains(opcode::Mask::RETH));
    assert_eq!(p.aeth.is_some(), info.mask.contains(opcode::Mask::AETH));
    assert_eq!(p.deth.is_some(), info.mask.contains(opcode::Mask::DETH));
    assert_eq!(p.immdt.is_some(), info.mask.contains(opcode::Mask::IMMDT));
    // Rebuilding the headers from the parsed fields is byte-exact.
    let mut again = vec![0u8; hl];
    assert_eq!(packet::build_headers(&mut again, &p.fields()), Ok(hl));
    assert_eq!(again, &buf[..hl]);
}
