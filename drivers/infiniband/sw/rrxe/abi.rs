// SPDX-License-Identifier: GPL-2.0

//! The numbers rrxe shares with the RDMA core, with rdma-core's rxe provider
//! and with rdma_rxe, each defined once.
//!
//! Verbs values come from `include/rdma/ib_verbs.h` and the uverbs ABI
//! (`include/uapi/rdma/ib_user_verbs.h`) through `kernel::rdma`'s typed enums
//! and flags; the rxe ring layouts come from `include/uapi/rdma/rdma_user_rxe.h`
//! through `kernel::uapi`. Completions, masks and states cross the driver's
//! boundary typed; the names below are for the places that read a user ring's
//! raw numbers (a send WQE's opcode and flags, a QP's access bits), where a
//! value no enum names must be refused rather than misread.

use core::mem::size_of;
use kernel::{
    prelude::*,
    rdma::{
        mr::AccessFlag,
        qp::QpType,
        uverbs,
        wr::{SendFlag, WrOpcode},
    },
    uapi,
};
use zerocopy_derive::Immutable;

/// rdma_rxe's `RXE_UVERBS_ABI_VERSION` (rxe.h: no uapi header defines it).
pub(crate) const UVERBS_ABI_VERSION: u32 = 2;

/// `sizeof(struct rxe_send_wqe)`: the SGEs or inline data follow.
pub(crate) const SEND_WQE_HDR: usize = size_of::<uapi::rxe_send_wqe>();
/// `sizeof(struct rxe_recv_wqe)`: the SGEs follow.
pub(crate) const RECV_WQE_HDR: usize = size_of::<uapi::rxe_recv_wqe>();
/// `sizeof(struct rxe_sge)`.
pub(crate) const SGE_SIZE: usize = size_of::<uapi::rxe_sge>();
// The sizes rdma-core's provider was built with.
const _: () = assert!(SEND_WQE_HDR == 208 && RECV_WQE_HDR == 40 && SGE_SIZE == 16);
/// A CQ ring's slot: `struct ib_uverbs_wc`, in rxe's 72-byte `struct rxe_cqe`
/// (a union of it with the kernel's `struct ib_wc`).
pub(crate) const CQE_SIZE: usize = 72;
const _: () = assert!(uverbs::WC_SIZE <= CQE_SIZE);

/// The largest message, `max_msg_sz` (2 GiB).
pub(crate) const MAX_MSG: u32 = 1 << 31;

/// The Q_Key of QP1 (IBA 9.6.1.1, `IB_QP1_QKEY`).
pub(crate) const GSI_QKEY: u32 = 0x8001_0000;

/// `IB_WR_*` / `IB_UVERBS_WR_*` opcodes, which have the same numbers.
pub(crate) mod wr_opcode {
    use super::WrOpcode;

    pub(crate) const RDMA_WRITE: u32 = WrOpcode::RdmaWrite as u32;
    pub(crate) const RDMA_WRITE_WITH_IMM: u32 = WrOpcode::RdmaWriteWithImm as u32;
    pub(crate) const SEND: u32 = WrOpcode::Send as u32;
    pub(crate) const SEND_WITH_IMM: u32 = WrOpcode::SendWithImm as u32;
    pub(crate) const RDMA_READ: u32 = WrOpcode::RdmaRead as u32;
    pub(crate) const ATOMIC_CMP_AND_SWP: u32 = WrOpcode::AtomicCmpAndSwp as u32;
    pub(crate) const ATOMIC_FETCH_AND_ADD: u32 = WrOpcode::AtomicFetchAndAdd as u32;
    pub(crate) const LOCAL_INV: u32 = WrOpcode::LocalInv as u32;
    pub(crate) const BIND_MW: u32 = WrOpcode::BindMw as u32;
    pub(crate) const SEND_WITH_INV: u32 = WrOpcode::SendWithInv as u32;
    /// IBA 1.5 FLUSH and ATOMIC WRITE (RC, user rings only).
    pub(crate) const FLUSH: u32 = WrOpcode::Flush as u32;
    pub(crate) const ATOMIC_WRITE: u32 = WrOpcode::AtomicWrite as u32;
    /// Kernel-only: never accepted from a user ring.
    pub(crate) const REG_MR: u32 = WrOpcode::RegMr as u32;
}

/// `IB_SEND_*` flags of a send work request.
pub(crate) mod send_flags {
    use super::SendFlag;

    pub(crate) const FENCE: u32 = SendFlag::Fence as u32;
    pub(crate) const SIGNALED: u32 = SendFlag::Signaled as u32;
    pub(crate) const SOLICITED: u32 = SendFlag::Solicited as u32;
    pub(crate) const INLINE: u32 = SendFlag::Inline as u32;
    pub(crate) const IP_CSUM: u32 = SendFlag::IpCsum as u32;
    pub(crate) const ALL: u32 = FENCE | SIGNALED | SOLICITED | INLINE | IP_CSUM;
}

/// `enum ib_qp_type` values rrxe offers.
pub(crate) mod qp_type {
    use super::QpType;

    pub(crate) const GSI: u32 = QpType::Gsi as u32;
    pub(crate) const RC: u32 = QpType::Rc as u32;
    pub(crate) const UC: u32 = QpType::Uc as u32;
    pub(crate) const UD: u32 = QpType::Ud as u32;
}

/// `IB_ACCESS_*` flags of MRs, MWs and QPs.
pub(crate) mod access {
    use super::AccessFlag;

    pub(crate) const LOCAL_WRITE: u32 = AccessFlag::LocalWrite as u32;
    pub(crate) const REMOTE_WRITE: u32 = AccessFlag::RemoteWrite as u32;
    pub(crate) const REMOTE_READ: u32 = AccessFlag::RemoteRead as u32;
    pub(crate) const REMOTE_ATOMIC: u32 = AccessFlag::RemoteAtomic as u32;
    pub(crate) const MW_BIND: u32 = AccessFlag::MwBind as u32;
    pub(crate) const ON_DEMAND: u32 = AccessFlag::OnDemand as u32;
    pub(crate) const FLUSH_GLOBAL: u32 = AccessFlag::FlushGlobal as u32;
    pub(crate) const FLUSH_PERSISTENT: u32 = AccessFlag::FlushPersistent as u32;
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

/// `IB_SPEED_SDR` and `IB_WIDTH_1X`: the core's answer for an Ethernet link of
/// unknown speed (`ib_get_eth_speed` takes it as 1 Gb/s).
pub(crate) const SPEED_SDR: u16 = 1;
pub(crate) const WIDTH_1X: u8 = 1;

// The provider parts of uverbs responses and commands, as rdma_user_rxe.h lays
// them out. Each derives what it needs (`IntoBytes` to be sent, `FromBytes` to
// be read), which checks at build time that it has no padding and takes any bit
// pattern; its size is asserted against the header's below.

/// `struct mminfo`: where a ring's buffer can be mapped from user space.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, IntoBytes, Immutable)]
pub(crate) struct MmapInfo {
    pub(crate) offset: u64,
    pub(crate) size: u32,
    pub(crate) pad: u32,
}

/// `struct rxe_create_cq_resp` and `struct rxe_resize_cq_resp`.
#[repr(C)]
#[derive(IntoBytes, Immutable)]
pub(crate) struct CqResp {
    pub(crate) mi: MmapInfo,
}

/// `struct rxe_create_ah_resp`.
#[repr(C)]
#[derive(IntoBytes, Immutable)]
pub(crate) struct CreateAhResp {
    pub(crate) ah_num: u32,
    pub(crate) reserved: u32,
}

/// `struct rxe_create_qp_resp`.
#[repr(C)]
#[derive(IntoBytes, Immutable)]
pub(crate) struct CreateQpResp {
    pub(crate) rq_mi: MmapInfo,
    pub(crate) sq_mi: MmapInfo,
}

/// `struct rxe_create_srq_resp`.
#[repr(C)]
#[derive(IntoBytes, Immutable)]
pub(crate) struct CreateSrqResp {
    pub(crate) mi: MmapInfo,
    pub(crate) srq_num: u32,
    pub(crate) reserved: u32,
}

/// `struct rxe_modify_srq_cmd`.
#[repr(C)]
#[derive(Default, FromBytes)]
pub(crate) struct ModifySrqCmd {
    pub(crate) mmap_info_addr: u64,
}

/// `struct rrxe_alloc_ucontext_resp` (`uapi/rdma/rdma_user_rrxe.h`): the
/// doorbell's offer, in the driver part of the GET_CONTEXT response. Sent only to
/// a provider that left room for it.
#[repr(C)]
#[derive(IntoBytes, Immutable)]
pub(crate) struct AllocUctxResp {
    pub(crate) abi_version: u32,
    pub(crate) caps: u32,
    pub(crate) sq_flags_offset: u32,
    pub(crate) cq_arm_offset: u32,
    pub(crate) reserved: [u64; 2],
}

/// The doorbell ABI's numbers (`uapi/rdma/rdma_user_rrxe.h`).
pub(crate) mod doorbell {
    use kernel::uapi;

    /// `RRXE_DB_ABI_VERSION`.
    pub(crate) const ABI_VERSION: u32 = uapi::RRXE_DB_ABI_VERSION;
    /// `RRXE_UCTX_CAP_SQ_WATCH`.
    pub(crate) const CAP_SQ_WATCH: u32 = 1 << 0;
    /// `RRXE_UCTX_CAP_CQ_ARM`.
    pub(crate) const CAP_CQ_ARM: u32 = 1 << 1;

    const _: () = {
        use crate::proto::doorbell as p;
        assert!(CAP_SQ_WATCH == uapi::rrxe_uctx_caps_RRXE_UCTX_CAP_SQ_WATCH);
        assert!(CAP_CQ_ARM == uapi::rrxe_uctx_caps_RRXE_UCTX_CAP_CQ_ARM);
        assert!(p::SQ_WATCHED == uapi::RRXE_SQ_WATCHED && p::SQ_POLLED == uapi::RRXE_SQ_POLLED);
        assert!(p::CQ_ARM_SOLICITED == uapi::RRXE_CQ_ARM_SOLICITED);
        assert!(p::CQ_ARM_NEXT == uapi::RRXE_CQ_ARM_NEXT);
    };
}

const _: () = {
    assert!(size_of::<AllocUctxResp>() == size_of::<uapi::rrxe_alloc_ucontext_resp>());
    assert!(size_of::<MmapInfo>() == size_of::<uapi::mminfo>());
    assert!(size_of::<CqResp>() == size_of::<uapi::rxe_create_cq_resp>());
    assert!(size_of::<CqResp>() == size_of::<uapi::rxe_resize_cq_resp>());
    assert!(size_of::<CreateAhResp>() == size_of::<uapi::rxe_create_ah_resp>());
    assert!(size_of::<CreateQpResp>() == size_of::<uapi::rxe_create_qp_resp>());
    assert!(size_of::<CreateSrqResp>() == size_of::<uapi::rxe_create_srq_resp>());
    assert!(size_of::<ModifySrqCmd>() == size_of::<uapi::rxe_modify_srq_cmd>());
};
