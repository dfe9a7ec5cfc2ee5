// SPDX-License-Identifier: GPL-2.0

//! IBTA BTH opcode table for RC, UC, RD and UD, equivalent to rxe's `rxe_opcode[]`.
//!
//! The table is derived from the opcode bits (transport in bits 7..5, operation in
//! bits 4..0) instead of being written out entry by entry; the host tests compare it
//! with a transcription of `drivers/infiniband/sw/rxe/rxe_opcode.c`.

use core::ops::BitOr;

/// Size in bytes of the Base Transport Header.
pub const BTH_BYTES: usize = 12;
/// Size in bytes of the RDMA Extended Transport Header.
pub const RETH_BYTES: usize = 16;
/// Size in bytes of the ACK Extended Transport Header.
pub const AETH_BYTES: usize = 4;
/// Size in bytes of the Atomic Extended Transport Header.
pub const ATMETH_BYTES: usize = 28;
/// Size in bytes of the Atomic ACK Extended Transport Header.
pub const ATMACK_BYTES: usize = 8;
/// Size in bytes of the Invalidate Extended Transport Header.
pub const IETH_BYTES: usize = 4;
/// Size in bytes of the Reliable Datagram Extended Transport Header.
pub const RDETH_BYTES: usize = 4;
/// Size in bytes of the Datagram Extended Transport Header.
pub const DETH_BYTES: usize = 8;
/// Size in bytes of the Immediate Data header.
pub const IMMDT_BYTES: usize = 4;
/// Size in bytes of the FLUSH Extended Transport Header.
pub const FETH_BYTES: usize = 4;
/// Size in bytes of the trailing invariant CRC.
pub const ICRC_BYTES: usize = 4;

/// Header and operation flags of an opcode.
///
/// Bit positions are those of rxe's `enum rxe_hdr_mask` so values can be compared
/// directly with rxe debug output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mask(pub u32);

impl Mask {
    /// No flags.
    pub const NONE: Mask = Mask(0);
    /// RETH follows the BTH.
    pub const RETH: Mask = Mask(1 << 3);
    /// AETH follows the BTH.
    pub const AETH: Mask = Mask(1 << 4);
    /// AtomicETH follows the BTH.
    pub const ATMETH: Mask = Mask(1 << 5);
    /// AtomicAckETH follows the BTH.
    pub const ATMACK: Mask = Mask(1 << 6);
    /// IETH follows the BTH.
    pub const IETH: Mask = Mask(1 << 7);
    /// RDETH follows the BTH.
    pub const RDETH: Mask = Mask(1 << 8);
    /// DETH follows the BTH.
    pub const DETH: Mask = Mask(1 << 9);
    /// Immediate data follows the BTH.
    pub const IMMDT: Mask = Mask(1 << 10);
    /// FETH follows the BTH.
    pub const FETH: Mask = Mask(1 << 11);
    /// The packet carries a payload.
    pub const PAYLOAD: Mask = Mask(1 << 12);
    /// Request packet (handled by the responder).
    pub const REQ: Mask = Mask(1 << 13);
    /// Response/acknowledge packet (handled by the completer).
    pub const ACK: Mask = Mask(1 << 14);
    /// SEND operation.
    pub const SEND: Mask = Mask(1 << 15);
    /// RDMA WRITE operation.
    pub const WRITE: Mask = Mask(1 << 16);
    /// RDMA READ operation.
    pub const READ: Mask = Mask(1 << 17);
    /// Atomic compare-swap / fetch-add operation.
    pub const ATOMIC: Mask = Mask(1 << 18);
    /// RDMA FLUSH operation.
    pub const FLUSH: Mask = Mask(1 << 19);
    /// Consumes a receive WQE.
    pub const RWR: Mask = Mask(1 << 20);
    /// Generates a completion at the responder.
    pub const COMP: Mask = Mask(1 << 21);
    /// First (or only) packet of a message.
    pub const START: Mask = Mask(1 << 22);
    /// Middle packet of a message.
    pub const MIDDLE: Mask = Mask(1 << 23);
    /// Last (or only) packet of a message.
    pub const END: Mask = Mask(1 << 24);
    /// RDMA ATOMIC WRITE operation.
    pub const ATOMIC_WRITE: Mask = Mask(1 << 27);

    /// Union of two masks.
    pub const fn with(self, other: Mask) -> Mask {
        Mask(self.0 | other.0)
    }

    /// True if every flag of `other` is set in `self`.
    pub const fn contains(self, other: Mask) -> bool {
        self.0 & other.0 == other.0
    }

    /// True if any flag of `other` is set in `self`.
    pub const fn intersects(self, other: Mask) -> bool {
        self.0 & other.0 != 0
    }
}

impl BitOr for Mask {
    type Output = Mask;

    fn bitor(self, rhs: Mask) -> Mask {
        self.with(rhs)
    }
}

/// Extension headers in the order they follow the BTH, with their sizes.
///
/// The order is the one every rxe table entry uses (e.g. AETH before AtomicAckETH,
/// FETH before RETH, RETH before ImmDt).
pub const EXT_HEADER_ORDER: [(Mask, usize); 9] = [
    (Mask::RDETH, RDETH_BYTES),
    (Mask::DETH, DETH_BYTES),
    (Mask::FETH, FETH_BYTES),
    (Mask::RETH, RETH_BYTES),
    (Mask::AETH, AETH_BYTES),
    (Mask::ATMACK, ATMACK_BYTES),
    (Mask::ATMETH, ATMETH_BYTES),
    (Mask::IETH, IETH_BYTES),
    (Mask::IMMDT, IMMDT_BYTES),
];

/// Transport service encoded in opcode bits 7..5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Reliable Connected (0x00).
    Rc,
    /// Unreliable Connected (0x20).
    Uc,
    /// Reliable Datagram (0x40); rxe knows the opcodes but has no RD QPs.
    Rd,
    /// Unreliable Datagram (0x60).
    Ud,
}

/// Static description of one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// BTH opcode value.
    pub opcode: u8,
    /// Name as printed by rxe (`rxe_opcode[].name`).
    pub name: &'static str,
    /// Header and operation flags.
    pub mask: Mask,
    /// Bytes of BTH plus extension headers (`rxe_opcode[].length`).
    pub length: u8,
    /// rxe's `offset[RXE_PAYLOAD]`: where rxe starts the payload for length and ICRC
    /// purposes. Equal to `length` except for the few entries rxe leaves at 0
    /// (RC FLUSH, RD ACKNOWLEDGE, RD ATOMIC ACKNOWLEDGE), which makes rxe's ICRC of
    /// those packets cover the headers twice; see `icrc::compute`.
    pub rxe_payload_offset: u8,
}

impl OpInfo {
    /// Transport service of this opcode.
    pub const fn transport(&self) -> Transport {
        match self.opcode >> 5 {
            0 => Transport::Rc,
            1 => Transport::Uc,
            2 => Transport::Rd,
            _ => Transport::Ud,
        }
    }

    /// Byte offset of extension header `hdr` from the start of the BTH, if present.
    pub const fn offset(&self, hdr: Mask) -> Option<usize> {
        if !self.mask.contains(hdr) || hdr.0 == 0 {
            return None;
        }
        let mut off = BTH_BYTES;
        let mut i = 0;
        while i < EXT_HEADER_ORDER.len() {
            let (m, size) = EXT_HEADER_ORDER[i];
            if m.0 == hdr.0 {
                return Some(off);
            }
            if self.mask.contains(m) {
                off += size;
            }
            i += 1;
        }
        None
    }

    /// Header length as `usize`.
    pub const fn header_len(&self) -> usize {
        self.length as usize
    }

    /// True if packets of this opcode carry a payload.
    pub const fn has_payload(&self) -> bool {
        self.mask.contains(Mask::PAYLOAD)
    }

    /// True for request packets (sent by a requester).
    pub const fn is_request(&self) -> bool {
        self.mask.contains(Mask::REQ)
    }

    /// True for responses/acknowledges (sent by a responder).
    pub const fn is_response(&self) -> bool {
        self.mask.contains(Mask::ACK)
    }

    /// True for the first packet of a multi-packet message.
    pub const fn is_first(&self) -> bool {
        self.mask.contains(Mask::START) && !self.mask.contains(Mask::END)
    }

    /// True for a middle packet of a multi-packet message.
    pub const fn is_middle(&self) -> bool {
        self.mask.contains(Mask::MIDDLE)
    }

    /// True for the last packet of a multi-packet message.
    pub const fn is_last(&self) -> bool {
        self.mask.contains(Mask::END) && !self.mask.contains(Mask::START)
    }

    /// True for a single-packet message.
    pub const fn is_only(&self) -> bool {
        self.mask.contains(Mask::START.with(Mask::END))
    }
}

/// Declares the opcode constants and the name lookup from one list.
macro_rules! opcodes {
    ($($name:ident = $val:literal, $rxe_name:literal;)*) => {
        $(
            #[doc = concat!("BTH opcode `", stringify!($name), "` (", stringify!($val), ").")]
            pub const $name: u8 = $val;
        )*

        /// rxe's name of a known opcode, `None` for reserved/unsupported values.
        const fn rxe_name(opcode: u8) -> Option<&'static str> {
            match opcode {
                $($val => Some($rxe_name),)*
                _ => None,
            }
        }
    };
}

opcodes! {
    RC_SEND_FIRST = 0x00, "IB_OPCODE_RC_SEND_FIRST";
    RC_SEND_MIDDLE = 0x01, "IB_OPCODE_RC_SEND_MIDDLE";
    RC_SEND_LAST = 0x02, "IB_OPCODE_RC_SEND_LAST";
    RC_SEND_LAST_WITH_IMMEDIATE = 0x03, "IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE";
    RC_SEND_ONLY = 0x04, "IB_OPCODE_RC_SEND_ONLY";
    RC_SEND_ONLY_WITH_IMMEDIATE = 0x05, "IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE";
    RC_RDMA_WRITE_FIRST = 0x06, "IB_OPCODE_RC_RDMA_WRITE_FIRST";
    RC_RDMA_WRITE_MIDDLE = 0x07, "IB_OPCODE_RC_RDMA_WRITE_MIDDLE";
    RC_RDMA_WRITE_LAST = 0x08, "IB_OPCODE_RC_RDMA_WRITE_LAST";
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09, "IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE";
    RC_RDMA_WRITE_ONLY = 0x0a, "IB_OPCODE_RC_RDMA_WRITE_ONLY";
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0b, "IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE";
    RC_RDMA_READ_REQUEST = 0x0c, "IB_OPCODE_RC_RDMA_READ_REQUEST";
    RC_RDMA_READ_RESPONSE_FIRST = 0x0d, "IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST";
    RC_RDMA_READ_RESPONSE_MIDDLE = 0x0e, "IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE";
    RC_RDMA_READ_RESPONSE_LAST = 0x0f, "IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST";
    RC_RDMA_READ_RESPONSE_ONLY = 0x10, "IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY";
    RC_ACKNOWLEDGE = 0x11, "IB_OPCODE_RC_ACKNOWLEDGE";
    RC_ATOMIC_ACKNOWLEDGE = 0x12, "IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE";
    RC_COMPARE_SWAP = 0x13, "IB_OPCODE_RC_COMPARE_SWAP";
    RC_FETCH_ADD = 0x14, "IB_OPCODE_RC_FETCH_ADD";
    RC_SEND_LAST_WITH_INVALIDATE = 0x16, "IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE";
    RC_SEND_ONLY_WITH_INVALIDATE = 0x17, "IB_OPCODE_RC_SEND_ONLY_INV";
    RC_FLUSH = 0x1c, "IB_OPCODE_RC_FLUSH";
    RC_ATOMIC_WRITE = 0x1d, "IB_OPCODE_RC_ATOMIC_WRITE";

    UC_SEND_FIRST = 0x20, "IB_OPCODE_UC_SEND_FIRST";
    UC_SEND_MIDDLE = 0x21, "IB_OPCODE_UC_SEND_MIDDLE";
    UC_SEND_LAST = 0x22, "IB_OPCODE_UC_SEND_LAST";
    UC_SEND_LAST_WITH_IMMEDIATE = 0x23, "IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE";
    UC_SEND_ONLY = 0x24, "IB_OPCODE_UC_SEND_ONLY";
    UC_SEND_ONLY_WITH_IMMEDIATE = 0x25, "IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE";
    UC_RDMA_WRITE_FIRST = 0x26, "IB_OPCODE_UC_RDMA_WRITE_FIRST";
    UC_RDMA_WRITE_MIDDLE = 0x27, "IB_OPCODE_UC_RDMA_WRITE_MIDDLE";
    UC_RDMA_WRITE_LAST = 0x28, "IB_OPCODE_UC_RDMA_WRITE_LAST";
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x29, "IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE";
    UC_RDMA_WRITE_ONLY = 0x2a, "IB_OPCODE_UC_RDMA_WRITE_ONLY";
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x2b, "IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE";

    RD_SEND_FIRST = 0x40, "IB_OPCODE_RD_SEND_FIRST";
    RD_SEND_MIDDLE = 0x41, "IB_OPCODE_RD_SEND_MIDDLE";
    RD_SEND_LAST = 0x42, "IB_OPCODE_RD_SEND_LAST";
    RD_SEND_LAST_WITH_IMMEDIATE = 0x43, "IB_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE";
    RD_SEND_ONLY = 0x44, "IB_OPCODE_RD_SEND_ONLY";
    RD_SEND_ONLY_WITH_IMMEDIATE = 0x45, "IB_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE";
    RD_RDMA_WRITE_FIRST = 0x46, "IB_OPCODE_RD_RDMA_WRITE_FIRST";
    RD_RDMA_WRITE_MIDDLE = 0x47, "IB_OPCODE_RD_RDMA_WRITE_MIDDLE";
    RD_RDMA_WRITE_LAST = 0x48, "IB_OPCODE_RD_RDMA_WRITE_LAST";
    RD_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x49, "IB_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE";
    RD_RDMA_WRITE_ONLY = 0x4a, "IB_OPCODE_RD_RDMA_WRITE_ONLY";
    RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x4b, "IB_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE";
    RD_RDMA_READ_REQUEST = 0x4c, "IB_OPCODE_RD_RDMA_READ_REQUEST";
    RD_RDMA_READ_RESPONSE_FIRST = 0x4d, "IB_OPCODE_RD_RDMA_READ_RESPONSE_FIRST";
    RD_RDMA_READ_RESPONSE_MIDDLE = 0x4e, "IB_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE";
    RD_RDMA_READ_RESPONSE_LAST = 0x4f, "IB_OPCODE_RD_RDMA_READ_RESPONSE_LAST";
    RD_RDMA_READ_RESPONSE_ONLY = 0x50, "IB_OPCODE_RD_RDMA_READ_RESPONSE_ONLY";
    RD_ACKNOWLEDGE = 0x51, "IB_OPCODE_RD_ACKNOWLEDGE";
    RD_ATOMIC_ACKNOWLEDGE = 0x52, "IB_OPCODE_RD_ATOMIC_ACKNOWLEDGE";
    RD_COMPARE_SWAP = 0x53, "RD_COMPARE_SWAP";
    RD_FETCH_ADD = 0x54, "IB_OPCODE_RD_FETCH_ADD";

    UD_SEND_ONLY = 0x64, "IB_OPCODE_UD_SEND_ONLY";
    UD_SEND_ONLY_WITH_IMMEDIATE = 0x65, "IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE";
}

/// Union of a list of masks.
const fn all(masks: &[Mask]) -> Mask {
    let mut acc = Mask::NONE;
    let mut i = 0;
    while i < masks.len() {
        acc = acc.with(masks[i]);
        i += 1;
    }
    acc
}

/// Flags of an operation (opcode bits 4..0) as used by RC; other transports add
/// their datagram headers in `derive`.
const fn operation_mask(op: u8) -> Mask {
    use Mask as M;
    match op {
        0x00 => all(&[M::PAYLOAD, M::REQ, M::RWR, M::SEND, M::START]),
        0x01 => all(&[M::PAYLOAD, M::REQ, M::SEND, M::MIDDLE]),
        0x02 => all(&[M::PAYLOAD, M::REQ, M::COMP, M::SEND, M::END]),
        0x03 => all(&[M::IMMDT, M::PAYLOAD, M::REQ, M::COMP, M::SEND, M::END]),
        0x04 => all(&[
            M::PAYLOAD,
            M::REQ,
            M::COMP,
            M::RWR,
            M::SEND,
            M::START,
            M::END,
        ]),
        0x05 => all(&[
            M::IMMDT,
            M::PAYLOAD,
            M::REQ,
            M::COMP,
            M::RWR,
            M::SEND,
            M::START,
            M::END,
        ]),
        0x06 => all(&[M::RETH, M::PAYLOAD, M::REQ, M::WRITE, M::START]),
        0x07 => all(&[M::PAYLOAD, M::REQ, M::WRITE, M::MIDDLE]),
        0x08 => all(&[M::PAYLOAD, M::REQ, M::WRITE, M::END]),
        0x09 => all(&[
            M::IMMDT,
            M::PAYLOAD,
            M::REQ,
            M::WRITE,
            M::COMP,
            M::RWR,
            M::END,
        ]),
        0x0a => all(&[M::RETH, M::PAYLOAD, M::REQ, M::WRITE, M::START, M::END]),
        0x0b => all(&[
            M::RETH,
            M::IMMDT,
            M::PAYLOAD,
            M::REQ,
            M::WRITE,
            M::COMP,
            M::RWR,
            M::START,
            M::END,
        ]),
        0x0c => all(&[M::RETH, M::REQ, M::READ, M::START, M::END]),
        0x0d => all(&[M::AETH, M::PAYLOAD, M::ACK, M::START]),
        0x0e => all(&[M::PAYLOAD, M::ACK, M::MIDDLE]),
        0x0f => all(&[M::AETH, M::PAYLOAD, M::ACK, M::END]),
        0x10 => all(&[M::AETH, M::PAYLOAD, M::ACK, M::START, M::END]),
        0x11 => all(&[M::AETH, M::ACK, M::START, M::END]),
        0x12 => all(&[M::AETH, M::ATMACK, M::ACK, M::START, M::END]),
        0x13 | 0x14 => all(&[M::ATMETH, M::REQ, M::ATOMIC, M::START, M::END]),
        0x16 => all(&[M::IETH, M::PAYLOAD, M::REQ, M::COMP, M::SEND, M::END]),
        0x17 => all(&[
            M::IETH,
            M::PAYLOAD,
            M::REQ,
            M::COMP,
            M::RWR,
            M::SEND,
            M::START,
            M::END,
        ]),
        0x1c => all(&[M::FETH, M::RETH, M::FLUSH, M::REQ, M::START, M::END]),
        0x1d => all(&[
            M::RETH,
            M::PAYLOAD,
            M::REQ,
            M::ATOMIC_WRITE,
            M::START,
            M::END,
        ]),
        _ => M::NONE,
    }
}

/// Computes the table entry of `opcode`, `None` if rxe does not know it.
const fn derive(opcode: u8) -> Option<OpInfo> {
    let name = match rxe_name(opcode) {
        Some(n) => n,
        None => return None,
    };
    let mut mask = operation_mask(opcode & 0x1f);
    match opcode >> 5 {
        // RD: every packet has an RDETH, requests also a DETH.
        2 => {
            mask = mask.with(Mask::RDETH);
            if mask.contains(Mask::REQ) {
                mask = mask.with(Mask::DETH);
            }
        }
        3 => mask = mask.with(Mask::DETH),
        _ => {}
    }
    let mut length = BTH_BYTES;
    let mut i = 0;
    while i < EXT_HEADER_ORDER.len() {
        if mask.contains(EXT_HEADER_ORDER[i].0) {
            length += EXT_HEADER_ORDER[i].1;
        }
        i += 1;
    }
    // rxe leaves offset[RXE_PAYLOAD] unset (0) for these three entries.
    let rxe_payload_offset = match opcode {
        RC_FLUSH | RD_ACKNOWLEDGE | RD_ATOMIC_ACKNOWLEDGE => 0,
        _ => length as u8,
    };
    Some(OpInfo {
        opcode,
        name,
        mask,
        length: length as u8,
        rxe_payload_offset,
    })
}

const fn build_table() -> [Option<OpInfo>; 256] {
    let mut table = [None; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = derive(i as u8);
        i += 1;
    }
    table
}

/// Opcode table indexed by BTH opcode; `None` marks reserved/unsupported opcodes.
pub static OPCODES: [Option<OpInfo>; 256] = build_table();

/// Looks up an opcode; `None` for reserved or unsupported opcodes (e.g. CNP 0x81).
pub fn lookup(opcode: u8) -> Option<&'static OpInfo> {
    OPCODES.get(usize::from(opcode)).and_then(Option::as_ref)
}

/// What a connected-transport request carries, for picking its packets' opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// SEND.
    Send,
    /// SEND with immediate data.
    SendWithImm,
    /// SEND with invalidate (RC only).
    SendWithInv,
    /// RDMA WRITE.
    Write,
    /// RDMA WRITE with immediate data.
    WriteWithImm,
}

/// The opcode of one packet of an RC request (UC with `uc`); `first` and `last`
/// place the packet in its message (both for a single-packet message). `None` for
/// what UC does not have (SEND with invalidate).
pub const fn request_opcode(uc: bool, kind: RequestKind, first: bool, last: bool) -> Option<u8> {
    use RequestKind::*;
    let rc = match (kind, first, last) {
        (Send | SendWithImm | SendWithInv, true, false) => RC_SEND_FIRST,
        (Send | SendWithImm | SendWithInv, false, false) => RC_SEND_MIDDLE,
        (Send, false, true) => RC_SEND_LAST,
        (Send, true, true) => RC_SEND_ONLY,
        (SendWithImm, false, true) => RC_SEND_LAST_WITH_IMMEDIATE,
        (SendWithImm, true, true) => RC_SEND_ONLY_WITH_IMMEDIATE,
        (SendWithInv, false, true) => RC_SEND_LAST_WITH_INVALIDATE,
        (SendWithInv, true, true) => RC_SEND_ONLY_WITH_INVALIDATE,
        (Write | WriteWithImm, true, false) => RC_RDMA_WRITE_FIRST,
        (Write | WriteWithImm, false, false) => RC_RDMA_WRITE_MIDDLE,
        (Write, false, true) => RC_RDMA_WRITE_LAST,
        (Write, true, true) => RC_RDMA_WRITE_ONLY,
        (WriteWithImm, false, true) => RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        (WriteWithImm, true, true) => RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
    };
    if !uc {
        Some(rc)
    } else if matches!(kind, SendWithInv) {
        None
    } else {
        // UC's SEND and WRITE opcodes are RC's plus 0x20.
        Some(rc | 0x20)
    }
}
