// SPDX-License-Identifier: GPL-2.0

//! ICRC known answers and cross-checks against an independent naive implementation.

mod common;

#[allow(dead_code, clippy::identity_op)]
#[path = "rxe_ref/opcode_table.rs"]
mod rxe;

use common::*;
use proptest::prelude::*;
use rrxe_proto::icrc::{self, Crc32, IcrcError, NetHdr, SoftCrc32, ICRC_SEED};
use rrxe_proto::opcode;
use rrxe_proto::packet::HeaderFields;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A CNP captured on a ConnectX-4 Lx (Ethernet frame from scapy's RoCE tests); the
/// ICRC was computed by the NIC.
const CX4_CNP_FRAME: &str = "e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2 003c 718c 4000 4011 9161 \
    0a00 1101 0a00 1201 0000 12b7 0028 0000 8100 ffff 4000 0118 0000 0000 0000 0000 0000 0000 \
    0000 0000 0000 0000 0000 0000 82fd 002a";

#[test]
fn hardware_cnp_known_answer() {
    let frame = hex(CX4_CNP_FRAME);
    let d = common::pcap::roce_datagram(common::pcap::LINKTYPE_ETHERNET, &frame).unwrap();
    let net = NetHdr::from_ip(&d.ip).unwrap();
    let ours = icrc::compute_ibta(&SoftCrc32, net, &d.udp, &d.payload).unwrap();
    assert_eq!(ours.to_le_bytes(), [0x82, 0xfd, 0x00, 0x2a]);
    assert_eq!(icrc_reference(&d.ip, &d.udp, &d.payload), ours);
}

#[test]
fn scapy_uc_send_only_known_answer() {
    // IP(tos=1, id=1144, DF, ttl=64, 192.168.0.7 -> 192.168.0.7) / UDP(49152 -> 4791)
    // / BTH(UC_SEND_ONLY, migreq=1, padcount=2, dqpn=211, psn=13571856) / 20 bytes;
    // scapy's ICRC field reads 0x78f353f3 (big-endian view of the wire bytes).
    let ip = hex("4501 0040 0478 4000 4011 b4d5 c0a8 0007 c0a8 0007");
    let udp: [u8; 8] = hex("c000 12b7 002c aca2").try_into().unwrap();
    let pkt = hex(
        "2460 ffff 0000 00d3 00cf 1710 4630 818b e289 35d9 0e9a 9550 5401 be88 5e50 0000 78f3 53f3",
    );
    let net = NetHdr::from_ip(&ip).unwrap();
    icrc::verify(&SoftCrc32, net, &udp, &pkt).unwrap();
    assert_eq!(icrc_reference(&ip, &udp, &pkt), 0xf353_f378);
}

#[test]
fn seed_is_masked_lrh() {
    assert_eq!(SoftCrc32.update(0xffff_ffff, &[0xff; 8]), ICRC_SEED);
    // zlib convention agrees with the raw update plus inversions.
    assert_eq!(
        !SoftCrc32.update(!0, b"The quick brown fox"),
        crc32_bitwise(b"The quick brown fox")
    );
}

/// rxe's payload offset from the transcribed table (0 where rxe leaves it unset).
fn rxe_payload_offset(op: u8) -> usize {
    let e = rxe::RXE_OPCODE.iter().find(|e| e.opcode == op).unwrap();
    e.offset
        .iter()
        .find(|&&(h, _)| h == rxe::RXE_PAYLOAD)
        .map_or(0, |&(_, o)| o)
}

/// For every opcode in both IP versions: `compute` equals the naive IBTA reference
/// except for the opcodes rxe hashes differently, where it equals a naive rendering
/// of rxe's `rxe_icrc_hdr` + `payload_addr` computation.
#[test]
fn every_opcode_matches_reference() {
    for fr in synthetic_frames() {
        let op = fr.pkt[0];
        let info = opcode::lookup(op).unwrap();
        let ours = icrc::compute(&SoftCrc32, fr.net(), &fr.udp, &fr.pkt).unwrap();
        let ibta = icrc_reference(&fr.ip, &fr.udp, &fr.pkt);
        let off = rxe_payload_offset(op);
        if off == info.header_len() {
            assert_eq!(ours, ibta, "{}", info.name);
        } else {
            // rxe: pseudo header + headers, then paylen - off - 4 bytes from off.
            let end = fr.pkt.len() - 4;
            let mut whole = fr.pkt[..info.header_len()].to_vec();
            whole.extend_from_slice(&fr.pkt[off..end]);
            whole.extend_from_slice(&[0; 4]);
            let expect = icrc_reference(&fr.ip, &fr.udp, &whole);
            assert_eq!(ours, expect, "{}", info.name);
            assert_ne!(ours, ibta, "{}", info.name);
        }
        icrc::verify(&SoftCrc32, fr.net(), &fr.udp, &fr.pkt).unwrap();
    }
}

#[test]
fn errors() {
    let ip = ipv4_header(40, 0, 64, 1);
    let udp = udp_header(1, 32, 0);
    let net = NetHdr::V4(&ip);
    assert_eq!(
        icrc::compute(&SoftCrc32, net, &udp, &[0u8; 11]),
        Err(IcrcError::TooShort)
    );
    // RC_ACKNOWLEDGE needs 16 header bytes plus the ICRC.
    assert_eq!(
        icrc::compute(&SoftCrc32, net, &udp, &[0x11; 19]),
        Err(IcrcError::TooShort)
    );
    assert_eq!(
        icrc::compute(&SoftCrc32, net, &udp, &[0x81; 32]),
        Err(IcrcError::UnknownOpcode(0x81))
    );
    let mut opts = ip;
    opts[0] = 0x46;
    assert_eq!(NetHdr::from_ip(&opts), Err(IcrcError::BadIpHeader));
    assert_eq!(NetHdr::from_ip(&[0x60; 39]), Err(IcrcError::BadIpHeader));
    assert_eq!(NetHdr::from_ip(&[]), Err(IcrcError::BadIpHeader));
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_SEND_ONLY;
    let fr = frame(&f, b"abc", false);
    let mut bad = fr.pkt.clone();
    *bad.last_mut().unwrap() ^= 0x80;
    assert!(matches!(
        icrc::verify(&SoftCrc32, fr.net(), &fr.udp, &bad),
        Err(IcrcError::Mismatch { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Slice-by-8 equals the bitwise CRC for any data and any split point.
    #[test]
    fn soft_crc_matches_bitwise(data in proptest::collection::vec(any::<u8>(), 0..300), cut in any::<prop::sample::Index>()) {
        prop_assert_eq!(!SoftCrc32.update(!0, &data), crc32_bitwise(&data));
        let k = cut.index(data.len() + 1);
        let (a, b) = data.split_at(k);
        prop_assert_eq!(!SoftCrc32.update(SoftCrc32.update(!0, a), b), crc32_bitwise(&data));
    }

    /// Random header fields, payloads and variant IP/UDP fields: generate, verify,
    /// and compare with the reference; variant fields do not change the ICRC.
    #[test]
    fn random_packets_match_reference(
        (op, f) in arb_opcode().prop_flat_map(|op| (Just(op), arb_fields(op))),
        len in 0usize..600, v6 in any::<bool>(), tos in any::<u8>(), ttl in any::<u8>(),
        flow in any::<u32>(), csum in any::<u16>(),
    ) {
        let info = opcode::lookup(op).unwrap();
        let n = valid_payload_len(info, 512, len);
        let payload: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(31)).collect();
        let fr = frame(&f, &payload, v6);
        if rxe_payload_offset(op) == info.header_len() {
            prop_assert_eq!(icrc::stored(&fr.pkt), Some(icrc_reference(&fr.ip, &fr.udp, &fr.pkt)));
        }
        // Rewrite the variant fields and the BTH resv8a byte: still valid.
        let mut fr2 = fr.clone();
        if v6 {
            fr2.ip = ipv6_header(fr.pkt.len() + 8, tos, flow, ttl).to_vec();
        } else {
            fr2.ip = ipv4_header(fr.pkt.len() + 8, tos, ttl, 0x4242).to_vec();
            fr2.ip[10] ^= csum as u8;
        }
        fr2.udp[6..8].copy_from_slice(&csum.to_be_bytes());
        if rxe_payload_offset(op) == info.header_len() {
            fr2.pkt[4] = tos;
        }
        prop_assert!(icrc::verify(&SoftCrc32, fr2.net(), &fr2.udp, &fr2.pkt).is_ok());
    }
}
