// SPDX-License-Identifier: GPL-2.0

//! The rrxe opcode table must equal rxe's `rxe_opcode[]` entry by entry: name,
//! mask, length, every header offset and the payload offset.

#[allow(dead_code, clippy::identity_op)]
#[path = "rxe_ref/opcode_table.rs"]
mod rxe;

use rrxe_proto::opcode::{self, Mask};
use rxe::*;

/// rxe header type index -> rrxe extension header mask.
fn ext_mask(hdr: usize) -> Option<Mask> {
    Some(match hdr {
        RXE_RETH => Mask::RETH,
        RXE_AETH => Mask::AETH,
        RXE_ATMETH => Mask::ATMETH,
        RXE_ATMACK => Mask::ATMACK,
        RXE_IETH => Mask::IETH,
        RXE_RDETH => Mask::RDETH,
        RXE_DETH => Mask::DETH,
        RXE_IMMDT => Mask::IMMDT,
        RXE_FETH => Mask::FETH,
        _ => return None,
    })
}

#[test]
fn table_matches_rxe_entry_by_entry() {
    assert_eq!(RXE_OPCODE.len(), 60);
    for op in 0..=255u8 {
        let ours = opcode::lookup(op);
        let theirs = RXE_OPCODE.iter().find(|e| e.opcode == op);
        let (ours, theirs) = match (ours, theirs) {
            (None, None) => continue,
            (Some(o), Some(t)) => (o, t),
            (o, t) => panic!(
                "opcode {op:#04x}: rrxe {:?} vs rxe {:?}",
                o.map(|o| o.name),
                t.map(|t| t.name)
            ),
        };
        assert_eq!(ours.opcode, op);
        assert_eq!(ours.name, theirs.name, "name of {op:#04x}");
        assert_eq!(ours.mask.0, theirs.mask, "mask of {}", theirs.name);
        assert_eq!(
            usize::from(ours.length),
            theirs.length,
            "length of {}",
            theirs.name
        );

        // Offsets rxe lists must match ours; headers rxe does not list must be absent.
        let mut payload = 0; // C leaves unlisted offsets at 0
        for &(hdr, off) in theirs.offset {
            match hdr {
                RXE_BTH => assert_eq!(off, 0),
                RXE_PAYLOAD => payload = off,
                _ => {
                    let m = ext_mask(hdr).expect("known header type");
                    assert_eq!(
                        ours.offset(m),
                        Some(off),
                        "{} offset of hdr {hdr}",
                        theirs.name
                    );
                }
            }
        }
        for hdr in 0..NUM_HDR_TYPES {
            if let Some(m) = ext_mask(hdr) {
                let listed = theirs.offset.iter().any(|&(h, _)| h == hdr);
                assert_eq!(
                    ours.offset(m).is_some(),
                    listed,
                    "{} has hdr {hdr}",
                    theirs.name
                );
                assert_eq!(
                    ours.mask.contains(m),
                    listed,
                    "{} mask bit of hdr {hdr}",
                    theirs.name
                );
            }
        }
        assert_eq!(
            usize::from(ours.rxe_payload_offset),
            payload,
            "payload offset of {}",
            theirs.name
        );
    }
}

#[test]
fn rxe_masks_use_rrxe_bit_positions() {
    let pairs = [
        (Mask::RETH, RXE_RETH_MASK),
        (Mask::AETH, RXE_AETH_MASK),
        (Mask::ATMETH, RXE_ATMETH_MASK),
        (Mask::ATMACK, RXE_ATMACK_MASK),
        (Mask::IETH, RXE_IETH_MASK),
        (Mask::RDETH, RXE_RDETH_MASK),
        (Mask::DETH, RXE_DETH_MASK),
        (Mask::IMMDT, RXE_IMMDT_MASK),
        (Mask::FETH, RXE_FETH_MASK),
        (Mask::PAYLOAD, RXE_PAYLOAD_MASK),
        (Mask::REQ, RXE_REQ_MASK),
        (Mask::ACK, RXE_ACK_MASK),
        (Mask::SEND, RXE_SEND_MASK),
        (Mask::WRITE, RXE_WRITE_MASK),
        (Mask::READ, RXE_READ_MASK),
        (Mask::ATOMIC, RXE_ATOMIC_MASK),
        (Mask::FLUSH, RXE_FLUSH_MASK),
        (Mask::RWR, RXE_RWR_MASK),
        (Mask::COMP, RXE_COMP_MASK),
        (Mask::START, RXE_START_MASK),
        (Mask::MIDDLE, RXE_MIDDLE_MASK),
        (Mask::END, RXE_END_MASK),
        (Mask::ATOMIC_WRITE, RXE_ATOMIC_WRITE_MASK),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(ours.0, theirs);
    }
    let sizes = [
        (opcode::BTH_BYTES, RXE_BTH_BYTES),
        (opcode::RETH_BYTES, RXE_RETH_BYTES),
        (opcode::AETH_BYTES, RXE_AETH_BYTES),
        (opcode::ATMETH_BYTES, RXE_ATMETH_BYTES),
        (opcode::ATMACK_BYTES, RXE_ATMACK_BYTES),
        (opcode::IETH_BYTES, RXE_IETH_BYTES),
        (opcode::RDETH_BYTES, RXE_RDETH_BYTES),
        (opcode::DETH_BYTES, RXE_DETH_BYTES),
        (opcode::IMMDT_BYTES, RXE_IMMDT_BYTES),
        (opcode::FETH_BYTES, RXE_FETH_BYTES),
    ];
    for (ours, theirs) in sizes {
        assert_eq!(ours, theirs);
    }
}

#[test]
fn opcode_constants_match_ib_pack() {
    let pairs = [
        (opcode::RC_SEND_FIRST, IB_OPCODE_RC_SEND_FIRST),
        (opcode::RC_RDMA_READ_REQUEST, IB_OPCODE_RC_RDMA_READ_REQUEST),
        (
            opcode::RC_SEND_ONLY_WITH_INVALIDATE,
            IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE,
        ),
        (opcode::RC_FLUSH, IB_OPCODE_RC_FLUSH),
        (opcode::RC_ATOMIC_WRITE, IB_OPCODE_RC_ATOMIC_WRITE),
        (
            opcode::UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
            IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        ),
        (opcode::RD_FETCH_ADD, IB_OPCODE_RD_FETCH_ADD),
        (
            opcode::UD_SEND_ONLY_WITH_IMMEDIATE,
            IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
        ),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(ours, theirs);
    }
    // ib_pack.h also defines RD FLUSH, which rxe's table (and rrxe) do not know.
    assert!(opcode::lookup(IB_OPCODE_RD_FLUSH).is_none());
    assert!(opcode::lookup(IB_OPCODE_CNP + 1).is_none());
}

#[test]
fn classification_is_consistent() {
    for info in opcode::OPCODES.iter().flatten() {
        let kinds = [
            info.is_first(),
            info.is_middle(),
            info.is_last(),
            info.is_only(),
        ];
        assert_eq!(kinds.iter().filter(|&&k| k).count(), 1, "{}", info.name);
        assert_ne!(info.is_request(), info.is_response(), "{}", info.name);
        let ext: usize = opcode::EXT_HEADER_ORDER
            .iter()
            .filter(|(m, _)| info.mask.contains(*m))
            .map(|&(_, size)| size)
            .sum();
        assert_eq!(usize::from(info.length), opcode::BTH_BYTES + ext);
    }
}

#[test]
fn request_opcodes_follow_the_table() {
    use rrxe_proto::opcode::{lookup, request_opcode, Mask, RequestKind::*};
    for uc in [false, true] {
        for kind in [Send, SendWithImm, SendWithInv, Write, WriteWithImm] {
            for (first, last) in [(true, true), (true, false), (false, false), (false, true)] {
                let Some(op) = request_opcode(uc, kind, first, last) else {
                    assert!(uc && kind == SendWithInv);
                    continue;
                };
                let info = lookup(op).unwrap();
                assert_eq!(info.is_first() || info.is_only(), first, "{op:#x}");
                assert_eq!(info.is_last() || info.is_only(), last, "{op:#x}");
                assert_eq!(op >> 5, u8::from(uc), "{op:#x}");
                let is_write = matches!(kind, Write | WriteWithImm);
                assert_eq!(info.mask.contains(Mask::WRITE), is_write, "{op:#x}");
                assert_eq!(info.mask.contains(Mask::SEND), !is_write, "{op:#x}");
                assert_eq!(info.mask.contains(Mask::RETH), is_write && first, "{op:#x}");
                let imm = matches!(kind, SendWithImm | WriteWithImm) && last;
                assert_eq!(info.mask.contains(Mask::IMMDT), imm, "{op:#x}");
                assert_eq!(info.mask.contains(Mask::IETH), kind == SendWithInv && last);
            }
        }
    }
}
