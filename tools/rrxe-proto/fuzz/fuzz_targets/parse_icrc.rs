// SPDX-License-Identifier: GPL-2.0

//! Fuzzes `packet::parse` and the ICRC functions on arbitrary bytes.
//!
//! Input layout: 1 control byte (bit 0: IPv6; bits 1..3: MTU choice), then the IP
//! header (20 or 40 bytes, version/IHL forced), the UDP header (8 bytes) and the
//! UDP payload. Besides "no panic", it asserts that successful parses are
//! self-consistent, that headers rebuild byte-exactly, and that a regenerated ICRC
//! verifies.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rrxe_proto::icrc::{self, NetHdr, SoftCrc32};
use rrxe_proto::opcode::ICRC_BYTES;
use rrxe_proto::packet;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let v6 = ctl & 1 != 0;
    let mtu = match (ctl >> 1) & 7 {
        0 => None,
        1 => Some(256),
        2 => Some(1024),
        3 => Some(4096),
        4 => Some(0),
        n => Some(u32::from(n) * 1000 + u32::from(ctl)),
    };
    let ip_len = if v6 { 40 } else { 20 };
    let Some((ip, rest)) = rest.split_at_checked(ip_len) else {
        return;
    };
    let mut ip = ip.to_vec();
    ip[0] = if v6 { 0x60 | (ip[0] & 0x0f) } else { 0x45 };
    let Some((udp, pkt)) = rest.split_first_chunk::<8>() else {
        return;
    };
    let net = NetHdr::from_ip(&ip).expect("forced valid IP header");

    let parsed = packet::parse(pkt, mtu);
    let verified = icrc::verify(&SoftCrc32, net, udp, pkt);
    let _ = icrc::compute_ibta(&SoftCrc32, net, udp, pkt);

    if let Ok(p) = parsed {
        let hl = p.header_len();
        assert_eq!(hl + p.payload.len() + p.pad.len() + ICRC_BYTES, pkt.len());
        assert_eq!(p.pad.len(), usize::from(p.bth.pad()));
        let mut again = vec![0u8; hl];
        assert_eq!(packet::build_headers(&mut again, &p.fields()), Ok(hl));
        assert_eq!(&again[..], &pkt[..hl]);

        // Every well-formed packet has a computable ICRC; after regenerating it,
        // verification succeeds and matches the plain IBTA rule unless the opcode
        // is one of rxe's double-hashing quirks.
        let mut fixed = pkt.to_vec();
        let icrc = icrc::generate(&SoftCrc32, net, udp, &mut fixed).expect("generate");
        assert_eq!(icrc::verify(&SoftCrc32, net, udp, &fixed), Ok(()));
        assert_eq!(verified.is_ok(), fixed == pkt);
        if usize::from(p.info.rxe_payload_offset) == hl {
            assert_eq!(icrc::compute_ibta(&SoftCrc32, net, udp, &fixed), Ok(icrc));
        }
    }
});
