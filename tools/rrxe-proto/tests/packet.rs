// SPDX-License-Identifier: GPL-2.0

//! Parser and builder properties: round trips for every opcode, error cases, and
//! no panics on arbitrary input.

mod common;

use common::*;
use proptest::prelude::*;
use rrxe_proto::hdr::{Bth, BthMut, FethFields, Syndrome};
use rrxe_proto::opcode;
use rrxe_proto::packet::{self, BuildError, HeaderFields, ParseError};

#[test]
fn every_opcode_round_trips() {
    for fr in synthetic_frames() {
        let p = packet::parse(&fr.pkt, Some(256))
            .unwrap_or_else(|e| panic!("{:#04x}: {e:?}", fr.pkt[0]));
        check_consistent(&fr.pkt, &p);
    }
}

#[test]
fn views_decode_fields() {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_FLUSH;
    f.feth = FethFields::new(1, 2);
    f.reth.len = 64;
    let fr = frame(&f, &[], false);
    let p = packet::parse(&fr.pkt, None).unwrap();
    let feth = p.feth.unwrap();
    assert_eq!((feth.plt(), feth.sel()), (1, 2));

    f = HeaderFields::default();
    f.bth.opcode = opcode::RC_ATOMIC_ACKNOWLEDGE;
    f.aeth.syndrome = 0x2e;
    f.aeth.msn = 0xab_cdef;
    f.atmack.orig = 0x1122_3344_5566_7788;
    let fr = frame(&f, &[], true);
    let p = packet::parse(&fr.pkt, None).unwrap();
    assert_eq!(p.aeth.unwrap().decode(), Syndrome::RnrNak { timer: 14 });
    assert_eq!(p.aeth.unwrap().msn(), 0xab_cdef);
    assert_eq!(p.atmack.unwrap().orig(), 0x1122_3344_5566_7788);
    assert_eq!(&fr.pkt[16..24], &0x1122_3344_5566_7788u64.to_be_bytes());

    f = HeaderFields::default();
    f.bth.opcode = opcode::RC_COMPARE_SWAP;
    f.atmeth.va = 1;
    f.atmeth.rkey = 2;
    f.atmeth.swap_add = 3;
    f.atmeth.compare = 4;
    let fr = frame(&f, &[], false);
    let a = packet::parse(&fr.pkt, None).unwrap().atmeth.unwrap();
    assert_eq!((a.va(), a.rkey(), a.swap_add(), a.compare()), (1, 2, 3, 4));

    f = HeaderFields::default();
    f.bth.opcode = opcode::UD_SEND_ONLY_WITH_IMMEDIATE;
    f.deth.qkey = 0x8001_0000;
    f.deth.src_qpn = 0xfe_dcba;
    f.immdt.imm = 0x0102_0304;
    let fr = frame(&f, b"hello", false);
    let p = packet::parse(&fr.pkt, Some(1024)).unwrap();
    assert_eq!(p.deth.unwrap().qkey(), 0x8001_0000);
    assert_eq!(p.deth.unwrap().src_qpn(), 0xfe_dcba);
    assert_eq!(p.immdt.unwrap().raw(), [1, 2, 3, 4]);
    assert_eq!(p.payload, b"hello");
    assert_eq!(p.pad, &[0, 0, 0]);
}

#[test]
fn bth_mut_setters() {
    let mut b = [0u8; 12];
    let mut m = BthMut::new(&mut b).unwrap();
    m.set_opcode(0x0a);
    m.set_se(true);
    m.set_mig(true);
    m.set_pad(3);
    m.set_pkey(0x8001);
    m.set_fecn(true);
    m.set_becn(true);
    m.set_dest_qpn(0x1ab_cdef);
    m.set_ack_req(true);
    m.set_psn(0xff_ffff);
    let v = m.as_view().fields();
    assert_eq!(
        (v.opcode, v.se, v.mig, v.pad, v.pkey, v.fecn, v.becn, v.dest_qpn, v.ack_req, v.psn),
        (0x0a, true, true, 3, 0x8001, true, true, 0xab_cdef, true, 0xff_ffff)
    );
    m.set_se(false);
    m.set_pad(0);
    m.set_fecn(false);
    m.set_ack_req(false);
    let v = Bth::new(&b).unwrap();
    assert!(!v.se() && v.mig() && v.pad() == 0 && !v.fecn() && v.becn() && !v.ack_req());
    assert_eq!(
        b,
        [0x0a, 0x40, 0x80, 0x01, 0x40, 0xab, 0xcd, 0xef, 0x00, 0xff, 0xff, 0xff]
    );
    assert!(BthMut::new(&mut [0u8; 11]).is_none());
}

#[test]
fn build_errors() {
    let mut f = HeaderFields::default();
    f.bth.opcode = 0x15;
    assert_eq!(
        packet::build_headers(&mut [0; 64], &f),
        Err(BuildError::UnknownOpcode(0x15))
    );
    f.bth.opcode = opcode::RC_ACKNOWLEDGE;
    assert_eq!(
        packet::build_headers(&mut [0; 15], &f),
        Err(BuildError::BufferTooSmall {
            needed: 16,
            available: 15
        })
    );
    assert_eq!(
        packet::build_packet(&mut [0; 64], &f, b"x"),
        Err(BuildError::PayloadNotAllowed)
    );
    f.bth.opcode = opcode::RC_SEND_ONLY;
    assert_eq!(
        packet::build_packet(&mut [0; 20], &f, b"hello"),
        Err(BuildError::BufferTooSmall {
            needed: 24,
            available: 20
        })
    );
}

#[test]
fn parse_error_cases() {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_SEND_ONLY;
    let fr = frame(&f, b"abcde", false); // 5 bytes + pad 3
    let ok = packet::parse(&fr.pkt, None).unwrap();
    assert_eq!(ok.payload, b"abcde");
    // pad larger than what is there
    let mut short = fr.pkt[..16].to_vec();
    short[1] |= 0x30;
    assert_eq!(
        packet::parse(&short, None),
        Err(ParseError::TooShort {
            needed: 19,
            got: 16
        })
    );
    // header incomplete
    f.bth.opcode = opcode::RC_RDMA_READ_REQUEST;
    let fr = frame(&f, &[], false);
    assert_eq!(
        packet::parse(&fr.pkt[..28], None),
        Err(ParseError::TooShort {
            needed: 32,
            got: 28
        })
    );
    // tver
    let mut bad = fr.pkt.clone();
    bad[1] = 0x0f;
    assert_eq!(packet::parse(&bad, None), Err(ParseError::BadTVer(15)));
    // unknown opcodes are rejected whatever follows
    for op in (0..=255u8).filter(|&o| opcode::lookup(o).is_none()) {
        bad[0] = op;
        assert_eq!(
            packet::parse(&bad, None),
            Err(ParseError::UnknownOpcode(op))
        );
    }
    assert_eq!(
        packet::parse(&[], None),
        Err(ParseError::TooShort { needed: 12, got: 0 })
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// builder -> parser -> fields is the identity for every opcode and payload size.
    #[test]
    fn builder_parser_round_trip(
        (op, f) in arb_opcode().prop_flat_map(|op| (Just(op), arb_fields(op))),
        mtu_exp in 1u8..=5, want in 0usize..5000, v6 in any::<bool>(),
    ) {
        let info = opcode::lookup(op).unwrap();
        let mtu = 128usize << mtu_exp;
        let n = valid_payload_len(info, mtu, want);
        let payload: Vec<u8> = (0..n).map(|i| (i ^ want) as u8).collect();
        let fr = frame(&f, &payload, v6);
        let p = packet::parse(&fr.pkt, Some(mtu as u32)).unwrap();
        check_consistent(&fr.pkt, &p);
        let mut expect = present_fields(&f);
        expect.bth.pad = packet::pad_for(n);
        prop_assert_eq!(p.fields(), expect);
        prop_assert_eq!(p.payload, &payload[..]);
        prop_assert!(p.pad.iter().all(|&b| b == 0));
        prop_assert_eq!(p.icrc(), rrxe_proto::icrc::compute(&rrxe_proto::icrc::SoftCrc32, fr.net(), &fr.udp, &fr.pkt).unwrap());
    }

    /// Arbitrary bytes never panic, and any Ok result is self-consistent.
    #[test]
    fn parse_arbitrary_bytes(buf in proptest::collection::vec(any::<u8>(), 0..200), mtu in proptest::option::of(any::<u32>())) {
        if let Ok(p) = packet::parse(&buf, mtu) {
            check_consistent(&buf, &p);
        }
    }

    /// Arbitrary bytes behind a valid-looking BTH (known opcode, TVer 0, any pad).
    #[test]
    fn parse_plausible_bytes(op in arb_opcode(), flags in any::<u8>(), mut buf in proptest::collection::vec(any::<u8>(), 12..120), mtu in proptest::option::of(prop_oneof![Just(256u32), Just(1024), any::<u32>()])) {
        buf[0] = op;
        buf[1] = flags & 0xf0;
        match packet::parse(&buf, mtu) {
            Ok(p) => check_consistent(&buf, &p),
            Err(ParseError::TooShort { needed, got }) => prop_assert!(needed > got && got == buf.len()),
            Err(_) => {}
        }
    }
}
