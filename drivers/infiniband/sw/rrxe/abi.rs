// SPDX-License-Identifier: GPL-2.0

//! The numbers rrxe shares with the RDMA core, with rdma-core's rxe provider
//! and with rdma_rxe: verbs enums and flags (`include/rdma/ib_verbs.h`, which
//! the uverbs ABI `include/uapi/rdma/ib_user_verbs.h` numbers the same way) and
//! the rxe ring layouts (`include/uapi/rdma/rdma_user_rxe.h`). Each is defined
//! here once.

/// `RXE_UVERBS_ABI_VERSION`.
pub(crate) const UVERBS_ABI_VERSION: u32 = 2;

/// `sizeof(struct rxe_send_wqe)`: the SGEs or inline data follow.
pub(crate) const SEND_WQE_HDR: usize = 208;
/// `sizeof(struct rxe_recv_wqe)`: the SGEs follow.
pub(crate) const RECV_WQE_HDR: usize = 40;
/// `sizeof(struct rxe_sge)`.
pub(crate) const SGE_SIZE: usize = 16;
/// `sizeof(struct rxe_cqe)`: a `struct ib_uverbs_wc` in a 72-byte slot.
pub(crate) const CQE_SIZE: usize = 72;

/// The largest message, `max_msg_sz` (2 GiB).
pub(crate) const MAX_MSG: u32 = 1 << 31;

/// The Q_Key of QP1 (IBA 9.6.1.1).
pub(crate) const GSI_QKEY: u32 = 0x8001_0000;

/// `enum ib_wc_status`.
pub(crate) mod wc_status {
    pub(crate) const SUCCESS: u32 = 0;
    pub(crate) const LOC_LEN_ERR: u32 = 1;
    pub(crate) const LOC_QP_OP_ERR: u32 = 2;
    pub(crate) const LOC_PROT_ERR: u32 = 4;
    pub(crate) const WR_FLUSH_ERR: u32 = 5;
    pub(crate) const MW_BIND_ERR: u32 = 6;
    pub(crate) const REM_INV_REQ_ERR: u32 = 9;
    pub(crate) const REM_ACCESS_ERR: u32 = 10;
    pub(crate) const REM_OP_ERR: u32 = 11;
    pub(crate) const RETRY_EXC_ERR: u32 = 12;
    pub(crate) const RNR_RETRY_EXC_ERR: u32 = 13;
}

/// `enum ib_wc_opcode`.
pub(crate) mod wc_opcode {
    pub(crate) const SEND: u32 = 0;
    pub(crate) const RDMA_WRITE: u32 = 1;
    pub(crate) const RDMA_READ: u32 = 2;
    pub(crate) const COMP_SWAP: u32 = 3;
    pub(crate) const FETCH_ADD: u32 = 4;
    pub(crate) const BIND_MW: u32 = 5;
    pub(crate) const LOCAL_INV: u32 = 6;
    pub(crate) const FLUSH: u32 = 8;
    pub(crate) const ATOMIC_WRITE: u32 = 9;
    /// `IB_WC_REG_MR` follows `IB_WC_ATOMIC_WRITE` (there is no uverbs number).
    pub(crate) const REG_MR: u32 = 10;
    /// Receive completions have this bit.
    pub(crate) const RECV: u32 = 1 << 7;
    pub(crate) const RECV_RDMA_WITH_IMM: u32 = RECV | 1;
}

/// `enum ib_wc_flags`.
pub(crate) mod wc_flags {
    pub(crate) const GRH: u32 = 1;
    pub(crate) const WITH_IMM: u32 = 1 << 1;
    pub(crate) const WITH_INVALIDATE: u32 = 1 << 2;
    pub(crate) const WITH_NETWORK_HDR_TYPE: u32 = 1 << 6;
}

/// `IB_WR_*` / `IBV_WR_*` opcodes (the same numbers on both sides).
pub(crate) mod wr_opcode {
    pub(crate) const RDMA_WRITE: u32 = 0;
    pub(crate) const RDMA_WRITE_WITH_IMM: u32 = 1;
    pub(crate) const SEND: u32 = 2;
    pub(crate) const SEND_WITH_IMM: u32 = 3;
    pub(crate) const RDMA_READ: u32 = 4;
    pub(crate) const ATOMIC_CMP_AND_SWP: u32 = 5;
    pub(crate) const ATOMIC_FETCH_AND_ADD: u32 = 6;
    pub(crate) const LOCAL_INV: u32 = 7;
    pub(crate) const BIND_MW: u32 = 8;
    pub(crate) const SEND_WITH_INV: u32 = 9;
    /// IBA 1.5 FLUSH and ATOMIC WRITE (RC, user rings only).
    pub(crate) const FLUSH: u32 = 14;
    pub(crate) const ATOMIC_WRITE: u32 = 15;
    /// Kernel-only: never accepted from a user ring.
    pub(crate) const REG_MR: u32 = 0x20;
}

/// `IB_SEND_*` flags of a send work request.
pub(crate) mod send_flags {
    pub(crate) const FENCE: u32 = 1;
    pub(crate) const SIGNALED: u32 = 2;
    pub(crate) const SOLICITED: u32 = 4;
    pub(crate) const INLINE: u32 = 8;
    pub(crate) const IP_CSUM: u32 = 16;
    pub(crate) const ALL: u32 = FENCE | SIGNALED | SOLICITED | INLINE | IP_CSUM;
}

/// `enum ib_qp_type` values rrxe offers.
pub(crate) mod qp_type {
    pub(crate) const GSI: u32 = 1;
    pub(crate) const RC: u32 = 2;
    pub(crate) const UC: u32 = 3;
    pub(crate) const UD: u32 = 4;
}

/// `IB_ACCESS_*` flags of MRs, MWs and QPs.
pub(crate) mod access {
    pub(crate) const LOCAL_WRITE: u32 = 1;
    pub(crate) const REMOTE_WRITE: u32 = 2;
    pub(crate) const REMOTE_READ: u32 = 4;
    pub(crate) const REMOTE_ATOMIC: u32 = 8;
    pub(crate) const MW_BIND: u32 = 16;
    pub(crate) const ON_DEMAND: u32 = 64;
    pub(crate) const FLUSH_GLOBAL: u32 = 256;
    pub(crate) const FLUSH_PERSISTENT: u32 = 512;
    /// `IB_ACCESS_OPTIONAL`: hints a device may ignore (bits 20..29).
    pub(crate) const OPTIONAL: u32 = 0x3ff0_0000;
}

/// A FLUSH's placement type (`IB_FLUSH_GLOBAL`, `IB_FLUSH_PERSISTENT`) and
/// level (`IB_FLUSH_MR`), as its FETH carries them.
pub(crate) mod flush {
    pub(crate) const GLOBAL: u32 = 1;
    pub(crate) const PERSISTENT: u32 = 2;
    pub(crate) const LEVEL_MR: u32 = 1;
}

/// `enum rdma_network_type` of an address vector.
pub(crate) mod network {
    pub(crate) const IPV4: u32 = 2;
    pub(crate) const IPV6: u32 = 3;
}

/// `IB_MW_TYPE_1` and `IB_MW_TYPE_2`.
pub(crate) mod mw_type {
    pub(crate) const TYPE_1: u32 = 1;
    pub(crate) const TYPE_2: u32 = 2;
}

/// `IB_MR_TYPE_MEM_REG`.
pub(crate) const MR_TYPE_MEM_REG: u32 = 0;

/// `enum ib_cq_notify_flags`.
pub(crate) mod cq_notify {
    pub(crate) const SOLICITED: u32 = 1;
    pub(crate) const NEXT_COMP: u32 = 2;
    pub(crate) const SOLICITED_MASK: u32 = 3;
    pub(crate) const REPORT_MISSED: u32 = 4;
}

/// `enum ib_srq_attr_mask` bits.
pub(crate) mod srq_attr {
    pub(crate) const MAX_WR: u32 = 1;
    pub(crate) const LIMIT: u32 = 2;
}

/// `IB_SRQT_BASIC`.
pub(crate) const SRQT_BASIC: u32 = 0;

/// `IB_MTU_256`, a path MTU before one is set.
pub(crate) const MTU_256: u32 = 1;

/// `IB_SPEED_SDR` and `IB_WIDTH_1X`: the core's answer for an Ethernet link of
/// unknown speed (`ib_get_eth_speed` takes it as 1 Gb/s).
pub(crate) const SPEED_SDR: u16 = 1;
pub(crate) const WIDTH_1X: u8 = 1;
