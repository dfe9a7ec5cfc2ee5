// SPDX-License-Identifier: GPL-2.0
// Generated from Linux 7.3 drivers/infiniband/sw/rxe/rxe_opcode.c (rxe_opcode[]),
// rxe_opcode.h, rxe_hdr.h and include/rdma/ib_pack.h by a mechanical
// C-to-Rust rewrite of each designated initializer; see the test for how it
// is compared with the rrxe table. Do not edit by hand.

pub const IB_OPCODE_RC: u8 = 0x00;
pub const IB_OPCODE_UC: u8 = 0x20;
pub const IB_OPCODE_RD: u8 = 0x40;
pub const IB_OPCODE_UD: u8 = 0x60;
pub const IB_OPCODE_CNP: u8 = 0x80;
pub const IB_OPCODE_MSP: u8 = 0xe0;
pub const IB_OPCODE_SEND_FIRST: u8 = 0x00;
pub const IB_OPCODE_SEND_MIDDLE: u8 = 0x01;
pub const IB_OPCODE_SEND_LAST: u8 = 0x02;
pub const IB_OPCODE_SEND_LAST_WITH_IMMEDIATE: u8 = 0x03;
pub const IB_OPCODE_SEND_ONLY: u8 = 0x04;
pub const IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x05;
pub const IB_OPCODE_RDMA_WRITE_FIRST: u8 = 0x06;
pub const IB_OPCODE_RDMA_WRITE_MIDDLE: u8 = 0x07;
pub const IB_OPCODE_RDMA_WRITE_LAST: u8 = 0x08;
pub const IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = 0x09;
pub const IB_OPCODE_RDMA_WRITE_ONLY: u8 = 0x0a;
pub const IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = 0x0b;
pub const IB_OPCODE_RDMA_READ_REQUEST: u8 = 0x0c;
pub const IB_OPCODE_RDMA_READ_RESPONSE_FIRST: u8 = 0x0d;
pub const IB_OPCODE_RDMA_READ_RESPONSE_MIDDLE: u8 = 0x0e;
pub const IB_OPCODE_RDMA_READ_RESPONSE_LAST: u8 = 0x0f;
pub const IB_OPCODE_RDMA_READ_RESPONSE_ONLY: u8 = 0x10;
pub const IB_OPCODE_ACKNOWLEDGE: u8 = 0x11;
pub const IB_OPCODE_ATOMIC_ACKNOWLEDGE: u8 = 0x12;
pub const IB_OPCODE_COMPARE_SWAP: u8 = 0x13;
pub const IB_OPCODE_FETCH_ADD: u8 = 0x14;
pub const IB_OPCODE_SEND_LAST_WITH_INVALIDATE: u8 = 0x16;
pub const IB_OPCODE_SEND_ONLY_WITH_INVALIDATE: u8 = 0x17;
pub const IB_OPCODE_FLUSH: u8 = 0x1C;
pub const IB_OPCODE_ATOMIC_WRITE: u8 = 0x1D;
pub const IB_OPCODE_RC_SEND_FIRST: u8 = IB_OPCODE_RC + IB_OPCODE_SEND_FIRST;
pub const IB_OPCODE_RC_SEND_MIDDLE: u8 = IB_OPCODE_RC + IB_OPCODE_SEND_MIDDLE;
pub const IB_OPCODE_RC_SEND_LAST: u8 = IB_OPCODE_RC + IB_OPCODE_SEND_LAST;
pub const IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_SEND_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_RC_SEND_ONLY: u8 = IB_OPCODE_RC + IB_OPCODE_SEND_ONLY;
pub const IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_RC_RDMA_WRITE_FIRST: u8 = IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_FIRST;
pub const IB_OPCODE_RC_RDMA_WRITE_MIDDLE: u8 = IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_MIDDLE;
pub const IB_OPCODE_RC_RDMA_WRITE_LAST: u8 = IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_LAST;
pub const IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_RC_RDMA_WRITE_ONLY: u8 = IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_ONLY;
pub const IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_RC_RDMA_READ_REQUEST: u8 = IB_OPCODE_RC + IB_OPCODE_RDMA_READ_REQUEST;
pub const IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_READ_RESPONSE_FIRST;
pub const IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_READ_RESPONSE_MIDDLE;
pub const IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_READ_RESPONSE_LAST;
pub const IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY: u8 =
    IB_OPCODE_RC + IB_OPCODE_RDMA_READ_RESPONSE_ONLY;
pub const IB_OPCODE_RC_ACKNOWLEDGE: u8 = IB_OPCODE_RC + IB_OPCODE_ACKNOWLEDGE;
pub const IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE: u8 = IB_OPCODE_RC + IB_OPCODE_ATOMIC_ACKNOWLEDGE;
pub const IB_OPCODE_RC_COMPARE_SWAP: u8 = IB_OPCODE_RC + IB_OPCODE_COMPARE_SWAP;
pub const IB_OPCODE_RC_FETCH_ADD: u8 = IB_OPCODE_RC + IB_OPCODE_FETCH_ADD;
pub const IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_SEND_LAST_WITH_INVALIDATE;
pub const IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE: u8 =
    IB_OPCODE_RC + IB_OPCODE_SEND_ONLY_WITH_INVALIDATE;
pub const IB_OPCODE_RC_FLUSH: u8 = IB_OPCODE_RC + IB_OPCODE_FLUSH;
pub const IB_OPCODE_RC_ATOMIC_WRITE: u8 = IB_OPCODE_RC + IB_OPCODE_ATOMIC_WRITE;
pub const IB_OPCODE_UC_SEND_FIRST: u8 = IB_OPCODE_UC + IB_OPCODE_SEND_FIRST;
pub const IB_OPCODE_UC_SEND_MIDDLE: u8 = IB_OPCODE_UC + IB_OPCODE_SEND_MIDDLE;
pub const IB_OPCODE_UC_SEND_LAST: u8 = IB_OPCODE_UC + IB_OPCODE_SEND_LAST;
pub const IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_UC + IB_OPCODE_SEND_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_UC_SEND_ONLY: u8 = IB_OPCODE_UC + IB_OPCODE_SEND_ONLY;
pub const IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_UC + IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_UC_RDMA_WRITE_FIRST: u8 = IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_FIRST;
pub const IB_OPCODE_UC_RDMA_WRITE_MIDDLE: u8 = IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_MIDDLE;
pub const IB_OPCODE_UC_RDMA_WRITE_LAST: u8 = IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_LAST;
pub const IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_UC_RDMA_WRITE_ONLY: u8 = IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_ONLY;
pub const IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_UC + IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_RD_SEND_FIRST: u8 = IB_OPCODE_RD + IB_OPCODE_SEND_FIRST;
pub const IB_OPCODE_RD_SEND_MIDDLE: u8 = IB_OPCODE_RD + IB_OPCODE_SEND_MIDDLE;
pub const IB_OPCODE_RD_SEND_LAST: u8 = IB_OPCODE_RD + IB_OPCODE_SEND_LAST;
pub const IB_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RD + IB_OPCODE_SEND_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_RD_SEND_ONLY: u8 = IB_OPCODE_RD + IB_OPCODE_SEND_ONLY;
pub const IB_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RD + IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_RD_RDMA_WRITE_FIRST: u8 = IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_FIRST;
pub const IB_OPCODE_RD_RDMA_WRITE_MIDDLE: u8 = IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_MIDDLE;
pub const IB_OPCODE_RD_RDMA_WRITE_LAST: u8 = IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_LAST;
pub const IB_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
pub const IB_OPCODE_RD_RDMA_WRITE_ONLY: u8 = IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_ONLY;
pub const IB_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
pub const IB_OPCODE_RD_RDMA_READ_REQUEST: u8 = IB_OPCODE_RD + IB_OPCODE_RDMA_READ_REQUEST;
pub const IB_OPCODE_RD_RDMA_READ_RESPONSE_FIRST: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_READ_RESPONSE_FIRST;
pub const IB_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_READ_RESPONSE_MIDDLE;
pub const IB_OPCODE_RD_RDMA_READ_RESPONSE_LAST: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_READ_RESPONSE_LAST;
pub const IB_OPCODE_RD_RDMA_READ_RESPONSE_ONLY: u8 =
    IB_OPCODE_RD + IB_OPCODE_RDMA_READ_RESPONSE_ONLY;
pub const IB_OPCODE_RD_ACKNOWLEDGE: u8 = IB_OPCODE_RD + IB_OPCODE_ACKNOWLEDGE;
pub const IB_OPCODE_RD_ATOMIC_ACKNOWLEDGE: u8 = IB_OPCODE_RD + IB_OPCODE_ATOMIC_ACKNOWLEDGE;
pub const IB_OPCODE_RD_COMPARE_SWAP: u8 = IB_OPCODE_RD + IB_OPCODE_COMPARE_SWAP;
pub const IB_OPCODE_RD_FETCH_ADD: u8 = IB_OPCODE_RD + IB_OPCODE_FETCH_ADD;
pub const IB_OPCODE_RD_FLUSH: u8 = IB_OPCODE_RD + IB_OPCODE_FLUSH;
pub const IB_OPCODE_UD_SEND_ONLY: u8 = IB_OPCODE_UD + IB_OPCODE_SEND_ONLY;
pub const IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE: u8 =
    IB_OPCODE_UD + IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE;

pub struct RxeOpcodeInfo {
    pub opcode: u8,
    pub name: &'static str,
    pub mask: u32,
    pub length: usize,
    pub offset: &'static [(usize, usize)],
}

pub static RXE_OPCODE: &[RxeOpcodeInfo] = &[
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_FIRST,
        name: "IB_OPCODE_RC_SEND_FIRST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_RWR_MASK | RXE_SEND_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_MIDDLE,
        name: "IB_OPCODE_RC_SEND_MIDDLE",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_SEND_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_LAST,
        name: "IB_OPCODE_RC_SEND_LAST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_COMP_MASK | RXE_SEND_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_ONLY,
        name: "IB_OPCODE_RC_SEND_ONLY",
        mask: RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_FIRST,
        name: "IB_OPCODE_RC_RDMA_WRITE_FIRST",
        mask: RXE_RETH_MASK | RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_MIDDLE,
        name: "IB_OPCODE_RC_RDMA_WRITE_MIDDLE",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_LAST,
        name: "IB_OPCODE_RC_RDMA_WRITE_LAST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_ONLY,
        name: "IB_OPCODE_RC_RDMA_WRITE_ONLY",
        mask: RXE_RETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        mask: RXE_RETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_RETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_READ_REQUEST,
        name: "IB_OPCODE_RC_RDMA_READ_REQUEST",
        mask: RXE_RETH_MASK | RXE_REQ_MASK | RXE_READ_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST,
        name: "IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST",
        mask: RXE_AETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_AETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_AETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE,
        name: "IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE",
        mask: RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST,
        name: "IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST",
        mask: RXE_AETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_AETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_AETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY,
        name: "IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY",
        mask: RXE_AETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_AETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_AETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_ACKNOWLEDGE,
        name: "IB_OPCODE_RC_ACKNOWLEDGE",
        mask: RXE_AETH_MASK | RXE_ACK_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_AETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_AETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE,
        name: "IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE",
        mask: RXE_AETH_MASK | RXE_ATMACK_MASK | RXE_ACK_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMACK_BYTES + RXE_AETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_AETH, RXE_BTH_BYTES),
            (RXE_ATMACK, RXE_BTH_BYTES + RXE_AETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_ATMACK_BYTES + RXE_AETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_COMPARE_SWAP,
        name: "IB_OPCODE_RC_COMPARE_SWAP",
        mask: RXE_ATMETH_MASK | RXE_REQ_MASK | RXE_ATOMIC_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_ATMETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_ATMETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_FETCH_ADD,
        name: "IB_OPCODE_RC_FETCH_ADD",
        mask: RXE_ATMETH_MASK | RXE_REQ_MASK | RXE_ATOMIC_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_ATMETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_ATMETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE,
        name: "IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE",
        mask: RXE_IETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE,
        name: "IB_OPCODE_RC_SEND_ONLY_INV",
        mask: RXE_IETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK
            | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_IETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_FLUSH,
        name: "IB_OPCODE_RC_FLUSH",
        mask: RXE_FETH_MASK
            | RXE_RETH_MASK
            | RXE_FLUSH_MASK
            | RXE_START_MASK
            | RXE_END_MASK
            | RXE_REQ_MASK,
        length: RXE_BTH_BYTES + RXE_FETH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_FETH, RXE_BTH_BYTES),
            (RXE_RETH, RXE_BTH_BYTES + RXE_FETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RC_ATOMIC_WRITE,
        name: "IB_OPCODE_RC_ATOMIC_WRITE",
        mask: RXE_RETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_ATOMIC_WRITE_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_FIRST,
        name: "IB_OPCODE_UC_SEND_FIRST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_RWR_MASK | RXE_SEND_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_MIDDLE,
        name: "IB_OPCODE_UC_SEND_MIDDLE",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_SEND_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_LAST,
        name: "IB_OPCODE_UC_SEND_LAST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_COMP_MASK | RXE_SEND_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_ONLY,
        name: "IB_OPCODE_UC_SEND_ONLY",
        mask: RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_FIRST,
        name: "IB_OPCODE_UC_RDMA_WRITE_FIRST",
        mask: RXE_RETH_MASK | RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_MIDDLE,
        name: "IB_OPCODE_UC_RDMA_WRITE_MIDDLE",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_LAST,
        name: "IB_OPCODE_UC_RDMA_WRITE_LAST",
        mask: RXE_PAYLOAD_MASK | RXE_REQ_MASK | RXE_WRITE_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES,
        offset: &[(RXE_BTH, 0), (RXE_PAYLOAD, RXE_BTH_BYTES)],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        mask: RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_IMMDT, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_IMMDT_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_ONLY,
        name: "IB_OPCODE_UC_RDMA_WRITE_ONLY",
        mask: RXE_RETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        mask: RXE_RETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_RETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RETH, RXE_BTH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_RETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_FIRST,
        name: "IB_OPCODE_RD_SEND_FIRST",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_MIDDLE,
        name: "IB_OPCODE_RD_SEND_MIDDLE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_SEND_MASK
            | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_LAST,
        name: "IB_OPCODE_RD_SEND_LAST",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_SEND_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_ONLY,
        name: "IB_OPCODE_RD_SEND_ONLY",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_FIRST,
        name: "IB_OPCODE_RD_RDMA_WRITE_FIRST",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_RETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_RETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_RETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_MIDDLE,
        name: "IB_OPCODE_RD_RDMA_WRITE_MIDDLE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_LAST,
        name: "IB_OPCODE_RD_RDMA_WRITE_LAST",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        name: "IB_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_ONLY,
        name: "IB_OPCODE_RD_RDMA_WRITE_ONLY",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_RETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_RETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_RETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_RETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_WRITE_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_RETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_RETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_IMMDT,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_RETH_BYTES,
            ),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES + RXE_RETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_READ_REQUEST,
        name: "IB_OPCODE_RD_RDMA_READ_REQUEST",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_RETH_MASK
            | RXE_REQ_MASK
            | RXE_READ_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_RETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_READ_RESPONSE_FIRST,
        name: "IB_OPCODE_RD_RDMA_READ_RESPONSE_FIRST",
        mask: RXE_RDETH_MASK | RXE_AETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_START_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_AETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_AETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE,
        name: "IB_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE",
        mask: RXE_RDETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_MIDDLE_MASK,
        length: RXE_BTH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_RDETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_READ_RESPONSE_LAST,
        name: "IB_OPCODE_RD_RDMA_READ_RESPONSE_LAST",
        mask: RXE_RDETH_MASK | RXE_AETH_MASK | RXE_PAYLOAD_MASK | RXE_ACK_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_AETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_AETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_RDMA_READ_RESPONSE_ONLY,
        name: "IB_OPCODE_RD_RDMA_READ_RESPONSE_ONLY",
        mask: RXE_RDETH_MASK
            | RXE_AETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_ACK_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_AETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_AETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_ACKNOWLEDGE,
        name: "IB_OPCODE_RD_ACKNOWLEDGE",
        mask: RXE_RDETH_MASK | RXE_AETH_MASK | RXE_ACK_MASK | RXE_START_MASK | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_AETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_AETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_ATOMIC_ACKNOWLEDGE,
        name: "IB_OPCODE_RD_ATOMIC_ACKNOWLEDGE",
        mask: RXE_RDETH_MASK
            | RXE_AETH_MASK
            | RXE_ATMACK_MASK
            | RXE_ACK_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMACK_BYTES + RXE_AETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_AETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_ATMACK, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_AETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_COMPARE_SWAP,
        name: "RD_COMPARE_SWAP",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_ATMETH_MASK
            | RXE_REQ_MASK
            | RXE_ATOMIC_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_ATMETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_ATMETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_RD_FETCH_ADD,
        name: "IB_OPCODE_RD_FETCH_ADD",
        mask: RXE_RDETH_MASK
            | RXE_DETH_MASK
            | RXE_ATMETH_MASK
            | RXE_REQ_MASK
            | RXE_ATOMIC_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_ATMETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_RDETH, RXE_BTH_BYTES),
            (RXE_DETH, RXE_BTH_BYTES + RXE_RDETH_BYTES),
            (RXE_ATMETH, RXE_BTH_BYTES + RXE_RDETH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_ATMETH_BYTES + RXE_DETH_BYTES + RXE_RDETH_BYTES,
            ),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UD_SEND_ONLY,
        name: "IB_OPCODE_UD_SEND_ONLY",
        mask: RXE_DETH_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_DETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_DETH, RXE_BTH_BYTES),
            (RXE_PAYLOAD, RXE_BTH_BYTES + RXE_DETH_BYTES),
        ],
    },
    RxeOpcodeInfo {
        opcode: IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
        name: "IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE",
        mask: RXE_DETH_MASK
            | RXE_IMMDT_MASK
            | RXE_PAYLOAD_MASK
            | RXE_REQ_MASK
            | RXE_COMP_MASK
            | RXE_RWR_MASK
            | RXE_SEND_MASK
            | RXE_START_MASK
            | RXE_END_MASK,
        length: RXE_BTH_BYTES + RXE_IMMDT_BYTES + RXE_DETH_BYTES,
        offset: &[
            (RXE_BTH, 0),
            (RXE_DETH, RXE_BTH_BYTES),
            (RXE_IMMDT, RXE_BTH_BYTES + RXE_DETH_BYTES),
            (
                RXE_PAYLOAD,
                RXE_BTH_BYTES + RXE_DETH_BYTES + RXE_IMMDT_BYTES,
            ),
        ],
    },
];

// enum rxe_hdr_type (rxe_opcode.h)
pub const RXE_LRH: usize = 0;
pub const RXE_GRH: usize = 1;
pub const RXE_BTH: usize = 2;
pub const RXE_RETH: usize = 3;
pub const RXE_AETH: usize = 4;
pub const RXE_ATMETH: usize = 5;
pub const RXE_ATMACK: usize = 6;
pub const RXE_IETH: usize = 7;
pub const RXE_RDETH: usize = 8;
pub const RXE_DETH: usize = 9;
pub const RXE_IMMDT: usize = 10;
pub const RXE_FETH: usize = 11;
pub const RXE_PAYLOAD: usize = 12;
pub const NUM_HDR_TYPES: usize = 13;
// enum rxe_hdr_mask (rxe_opcode.h)
pub const RXE_LRH_MASK: u32 = 1 << (RXE_LRH);
pub const RXE_GRH_MASK: u32 = 1 << (RXE_GRH);
pub const RXE_BTH_MASK: u32 = 1 << (RXE_BTH);
pub const RXE_IMMDT_MASK: u32 = 1 << (RXE_IMMDT);
pub const RXE_RETH_MASK: u32 = 1 << (RXE_RETH);
pub const RXE_AETH_MASK: u32 = 1 << (RXE_AETH);
pub const RXE_ATMETH_MASK: u32 = 1 << (RXE_ATMETH);
pub const RXE_ATMACK_MASK: u32 = 1 << (RXE_ATMACK);
pub const RXE_IETH_MASK: u32 = 1 << (RXE_IETH);
pub const RXE_RDETH_MASK: u32 = 1 << (RXE_RDETH);
pub const RXE_DETH_MASK: u32 = 1 << (RXE_DETH);
pub const RXE_FETH_MASK: u32 = 1 << (RXE_FETH);
pub const RXE_PAYLOAD_MASK: u32 = 1 << (RXE_PAYLOAD);
pub const RXE_REQ_MASK: u32 = 1 << (NUM_HDR_TYPES + 0);
pub const RXE_ACK_MASK: u32 = 1 << (NUM_HDR_TYPES + 1);
pub const RXE_SEND_MASK: u32 = 1 << (NUM_HDR_TYPES + 2);
pub const RXE_WRITE_MASK: u32 = 1 << (NUM_HDR_TYPES + 3);
pub const RXE_READ_MASK: u32 = 1 << (NUM_HDR_TYPES + 4);
pub const RXE_ATOMIC_MASK: u32 = 1 << (NUM_HDR_TYPES + 5);
pub const RXE_FLUSH_MASK: u32 = 1 << (NUM_HDR_TYPES + 6);
pub const RXE_RWR_MASK: u32 = 1 << (NUM_HDR_TYPES + 7);
pub const RXE_COMP_MASK: u32 = 1 << (NUM_HDR_TYPES + 8);
pub const RXE_START_MASK: u32 = 1 << (NUM_HDR_TYPES + 9);
pub const RXE_MIDDLE_MASK: u32 = 1 << (NUM_HDR_TYPES + 10);
pub const RXE_END_MASK: u32 = 1 << (NUM_HDR_TYPES + 11);
pub const RXE_LOOPBACK_MASK: u32 = 1 << (NUM_HDR_TYPES + 12);
pub const RXE_ATOMIC_WRITE_MASK: u32 = 1 << (NUM_HDR_TYPES + 14);
// enum rxe_hdr_length (rxe_hdr.h): sizeof of each header struct
pub const RXE_BTH_BYTES: usize = 12; // sizeof(struct rxe_bth)
pub const RXE_DETH_BYTES: usize = 8; // sizeof(struct rxe_deth)
pub const RXE_IMMDT_BYTES: usize = 4; // sizeof(struct rxe_immdt)
pub const RXE_RETH_BYTES: usize = 16; // sizeof(struct rxe_reth)
pub const RXE_AETH_BYTES: usize = 4; // sizeof(struct rxe_aeth)
pub const RXE_ATMACK_BYTES: usize = 8; // sizeof(struct rxe_atmack)
pub const RXE_ATMETH_BYTES: usize = 28; // sizeof(struct rxe_atmeth)
pub const RXE_IETH_BYTES: usize = 4; // sizeof(struct rxe_ieth)
pub const RXE_RDETH_BYTES: usize = 4; // sizeof(struct rxe_rdeth)
pub const RXE_FETH_BYTES: usize = 4; // sizeof(struct rxe_feth)
