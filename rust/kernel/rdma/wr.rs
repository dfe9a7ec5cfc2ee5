// SPDX-License-Identifier: GPL-2.0

//! Work requests and work completions.
//!
//! A kernel consumer posts a list of `struct ib_send_wr` or `struct ib_recv_wr`;
//! the trampolines walk the list and hand the provider one [`SendWr`] or
//! [`RecvWr`] at a time, with the opcode-specific container (`struct ib_rdma_wr`,
//! `ib_atomic_wr`, `ib_ud_wr`, `ib_reg_wr`) already decoded into [`SendWrArgs`].
//! The provider reports completions as [`Wc`] values, which the trampolines copy
//! into the consumer's `struct ib_wc` array.
//!
//! The numbering is the kernel's (`enum ib_wr_opcode`, `enum ib_wc_opcode`,
//! `enum ib_send_flags`, `enum ib_wc_status`, `enum ib_wc_flags`). The values the
//! kernel shares with user space are defined by the user ABI's
//! (`enum ib_uverbs_wr_opcode`, `enum ib_uverbs_wc_opcode`); see
//! [`super::uverbs`] for that numbering. User space sends `IB_SEND_*` values as
//! they are: the ABI has no send-flags enum of its own.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    ah::Ah,
    device::{Device, Driver},
    mr::{AccessFlags, Mr},
    qp::{Qp, QpHandle},
};
use crate::{bindings, ffi::c_int, prelude::*};
use core::mem::{offset_of, size_of};

c_enum! {
    /// The operation of a send work request (`enum ib_wr_opcode`).
    ///
    /// The values drivers reserve for their own use (`IB_WR_RESERVED*`) are not
    /// included: the core never passes them.
    pub enum WrOpcode: u32 {
        /// `IB_WR_RDMA_WRITE`.
        RdmaWrite = bindings::ib_wr_opcode_IB_WR_RDMA_WRITE,
        /// `IB_WR_RDMA_WRITE_WITH_IMM`.
        RdmaWriteWithImm = bindings::ib_wr_opcode_IB_WR_RDMA_WRITE_WITH_IMM,
        /// `IB_WR_SEND`.
        Send = bindings::ib_wr_opcode_IB_WR_SEND,
        /// `IB_WR_SEND_WITH_IMM`.
        SendWithImm = bindings::ib_wr_opcode_IB_WR_SEND_WITH_IMM,
        /// `IB_WR_RDMA_READ`.
        RdmaRead = bindings::ib_wr_opcode_IB_WR_RDMA_READ,
        /// `IB_WR_ATOMIC_CMP_AND_SWP`.
        AtomicCmpAndSwp = bindings::ib_wr_opcode_IB_WR_ATOMIC_CMP_AND_SWP,
        /// `IB_WR_ATOMIC_FETCH_AND_ADD`.
        AtomicFetchAndAdd = bindings::ib_wr_opcode_IB_WR_ATOMIC_FETCH_AND_ADD,
        /// `IB_WR_BIND_MW`.
        BindMw = bindings::ib_wr_opcode_IB_WR_BIND_MW,
        /// `IB_WR_LSO`.
        Lso = bindings::ib_wr_opcode_IB_WR_LSO,
        /// `IB_WR_SEND_WITH_INV`.
        SendWithInv = bindings::ib_wr_opcode_IB_WR_SEND_WITH_INV,
        /// `IB_WR_RDMA_READ_WITH_INV`.
        RdmaReadWithInv = bindings::ib_wr_opcode_IB_WR_RDMA_READ_WITH_INV,
        /// `IB_WR_LOCAL_INV`.
        LocalInv = bindings::ib_wr_opcode_IB_WR_LOCAL_INV,
        /// `IB_WR_MASKED_ATOMIC_CMP_AND_SWP`.
        MaskedAtomicCmpAndSwp = bindings::ib_wr_opcode_IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
        /// `IB_WR_MASKED_ATOMIC_FETCH_AND_ADD`.
        MaskedAtomicFetchAndAdd = bindings::ib_wr_opcode_IB_WR_MASKED_ATOMIC_FETCH_AND_ADD,
        /// `IB_WR_FLUSH`.
        Flush = bindings::ib_wr_opcode_IB_WR_FLUSH,
        /// `IB_WR_ATOMIC_WRITE`.
        AtomicWrite = bindings::ib_wr_opcode_IB_WR_ATOMIC_WRITE,
        /// `IB_WR_REG_MR`: fast registration, kernel consumers only.
        RegMr = bindings::ib_wr_opcode_IB_WR_REG_MR,
        /// `IB_WR_REG_MR_INTEGRITY`: kernel consumers only.
        RegMrIntegrity = bindings::ib_wr_opcode_IB_WR_REG_MR_INTEGRITY,
    }
}

c_flags! {
    /// The flags of a send work request (`enum ib_send_flags`), as kernel
    /// consumers and user space (`struct ib_uverbs_send_wr`) pass them.
    ///
    /// Bits the type does not name (the range drivers reserve for themselves)
    /// are kept: see [`SendFlags::unknown_bits`].
    pub struct SendFlags(u32);

    /// One flag of [`SendFlags`].
    pub enum SendFlag {
        /// `IB_SEND_FENCE`: wait for earlier RDMA READs and atomics.
        Fence = bindings::ib_send_flags_IB_SEND_FENCE as u32,
        /// `IB_SEND_SIGNALED`: complete with a work completion.
        Signaled = bindings::ib_send_flags_IB_SEND_SIGNALED as u32,
        /// `IB_SEND_SOLICITED`: ask for a solicited event at the receiver.
        Solicited = bindings::ib_send_flags_IB_SEND_SOLICITED as u32,
        /// `IB_SEND_INLINE`: the data is copied at post time.
        Inline = bindings::ib_send_flags_IB_SEND_INLINE as u32,
        /// `IB_SEND_IP_CSUM`: offload the IP checksum (raw packet QPs).
        IpCsum = bindings::ib_send_flags_IB_SEND_IP_CSUM as u32,
    }
}

c_enum! {
    /// The status of a work completion (`enum ib_wc_status`). User space gets the
    /// same numbers in `struct ib_uverbs_wc`.
    pub enum WcStatus: u32 {
        /// `IB_WC_SUCCESS`.
        Success = bindings::ib_wc_status_IB_WC_SUCCESS,
        /// `IB_WC_LOC_LEN_ERR`.
        LocLenErr = bindings::ib_wc_status_IB_WC_LOC_LEN_ERR,
        /// `IB_WC_LOC_QP_OP_ERR`.
        LocQpOpErr = bindings::ib_wc_status_IB_WC_LOC_QP_OP_ERR,
        /// `IB_WC_LOC_EEC_OP_ERR`.
        LocEecOpErr = bindings::ib_wc_status_IB_WC_LOC_EEC_OP_ERR,
        /// `IB_WC_LOC_PROT_ERR`.
        LocProtErr = bindings::ib_wc_status_IB_WC_LOC_PROT_ERR,
        /// `IB_WC_WR_FLUSH_ERR`.
        WrFlushErr = bindings::ib_wc_status_IB_WC_WR_FLUSH_ERR,
        /// `IB_WC_MW_BIND_ERR`.
        MwBindErr = bindings::ib_wc_status_IB_WC_MW_BIND_ERR,
        /// `IB_WC_BAD_RESP_ERR`.
        BadRespErr = bindings::ib_wc_status_IB_WC_BAD_RESP_ERR,
        /// `IB_WC_LOC_ACCESS_ERR`.
        LocAccessErr = bindings::ib_wc_status_IB_WC_LOC_ACCESS_ERR,
        /// `IB_WC_REM_INV_REQ_ERR`.
        RemInvReqErr = bindings::ib_wc_status_IB_WC_REM_INV_REQ_ERR,
        /// `IB_WC_REM_ACCESS_ERR`.
        RemAccessErr = bindings::ib_wc_status_IB_WC_REM_ACCESS_ERR,
        /// `IB_WC_REM_OP_ERR`.
        RemOpErr = bindings::ib_wc_status_IB_WC_REM_OP_ERR,
        /// `IB_WC_RETRY_EXC_ERR`.
        RetryExcErr = bindings::ib_wc_status_IB_WC_RETRY_EXC_ERR,
        /// `IB_WC_RNR_RETRY_EXC_ERR`.
        RnrRetryExcErr = bindings::ib_wc_status_IB_WC_RNR_RETRY_EXC_ERR,
        /// `IB_WC_LOC_RDD_VIOL_ERR`.
        LocRddViolErr = bindings::ib_wc_status_IB_WC_LOC_RDD_VIOL_ERR,
        /// `IB_WC_REM_INV_RD_REQ_ERR`.
        RemInvRdReqErr = bindings::ib_wc_status_IB_WC_REM_INV_RD_REQ_ERR,
        /// `IB_WC_REM_ABORT_ERR`.
        RemAbortErr = bindings::ib_wc_status_IB_WC_REM_ABORT_ERR,
        /// `IB_WC_INV_EECN_ERR`.
        InvEecnErr = bindings::ib_wc_status_IB_WC_INV_EECN_ERR,
        /// `IB_WC_INV_EEC_STATE_ERR`.
        InvEecStateErr = bindings::ib_wc_status_IB_WC_INV_EEC_STATE_ERR,
        /// `IB_WC_FATAL_ERR`.
        FatalErr = bindings::ib_wc_status_IB_WC_FATAL_ERR,
        /// `IB_WC_RESP_TIMEOUT_ERR`.
        RespTimeoutErr = bindings::ib_wc_status_IB_WC_RESP_TIMEOUT_ERR,
        /// `IB_WC_GENERAL_ERR`.
        GeneralErr = bindings::ib_wc_status_IB_WC_GENERAL_ERR,
    }
}

c_enum! {
    /// The operation a work completion reports (`enum ib_wc_opcode`).
    ///
    /// The values up to [`WcOpcode::AtomicWrite`] and [`WcOpcode::Flush`] are
    /// defined by `enum ib_uverbs_wc_opcode`, so a completion of a user QP carries
    /// the number user space expects; [`WcOpcode::Recv`] and
    /// [`WcOpcode::RecvRdmaWithImm`] are the same in both too.
    pub enum WcOpcode: u32 {
        /// `IB_WC_SEND`.
        Send = bindings::ib_wc_opcode_IB_WC_SEND,
        /// `IB_WC_RDMA_WRITE`.
        RdmaWrite = bindings::ib_wc_opcode_IB_WC_RDMA_WRITE,
        /// `IB_WC_RDMA_READ`.
        RdmaRead = bindings::ib_wc_opcode_IB_WC_RDMA_READ,
        /// `IB_WC_COMP_SWAP`.
        CompSwap = bindings::ib_wc_opcode_IB_WC_COMP_SWAP,
        /// `IB_WC_FETCH_ADD`.
        FetchAdd = bindings::ib_wc_opcode_IB_WC_FETCH_ADD,
        /// `IB_WC_BIND_MW`.
        BindMw = bindings::ib_wc_opcode_IB_WC_BIND_MW,
        /// `IB_WC_LOCAL_INV`.
        LocalInv = bindings::ib_wc_opcode_IB_WC_LOCAL_INV,
        /// `IB_WC_LSO`.
        Lso = bindings::ib_wc_opcode_IB_WC_LSO,
        /// `IB_WC_ATOMIC_WRITE`.
        AtomicWrite = bindings::ib_wc_opcode_IB_WC_ATOMIC_WRITE,
        /// `IB_WC_REG_MR`: kernel consumers only.
        RegMr = bindings::ib_wc_opcode_IB_WC_REG_MR,
        /// `IB_WC_MASKED_COMP_SWAP`: kernel consumers only.
        MaskedCompSwap = bindings::ib_wc_opcode_IB_WC_MASKED_COMP_SWAP,
        /// `IB_WC_MASKED_FETCH_ADD`: kernel consumers only.
        MaskedFetchAdd = bindings::ib_wc_opcode_IB_WC_MASKED_FETCH_ADD,
        /// `IB_WC_FLUSH`.
        Flush = bindings::ib_wc_opcode_IB_WC_FLUSH,
        /// `IB_WC_RECV`: a receive; every receive opcode has this bit.
        Recv = bindings::ib_wc_opcode_IB_WC_RECV,
        /// `IB_WC_RECV_RDMA_WITH_IMM`.
        RecvRdmaWithImm = bindings::ib_wc_opcode_IB_WC_RECV_RDMA_WITH_IMM,
    }
}

impl WcOpcode {
    /// Whether the completion is of a receive work request.
    pub fn is_recv(self) -> bool {
        u32::from(self) & bindings::ib_wc_opcode_IB_WC_RECV != 0
    }
}

c_flags! {
    /// What else a work completion carries (`enum ib_wc_flags`).
    pub struct WcFlags(u32);

    /// One flag of [`WcFlags`].
    pub enum WcFlag {
        /// `IB_WC_GRH`: a GRH (or, for RoCE, the IP header) precedes the data.
        Grh = bindings::ib_wc_flags_IB_WC_GRH,
        /// `IB_WC_WITH_IMM`: [`Wc::ex`] is immediate data.
        WithImm = bindings::ib_wc_flags_IB_WC_WITH_IMM,
        /// `IB_WC_WITH_INVALIDATE`: [`Wc::ex`] is the invalidated rkey.
        WithInvalidate = bindings::ib_wc_flags_IB_WC_WITH_INVALIDATE,
        /// `IB_WC_IP_CSUM_OK`.
        IpCsumOk = bindings::ib_wc_flags_IB_WC_IP_CSUM_OK,
        /// `IB_WC_WITH_SMAC`: [`Wc::smac`] is valid.
        WithSmac = bindings::ib_wc_flags_IB_WC_WITH_SMAC,
        /// `IB_WC_WITH_VLAN`: [`Wc::vlan_id`] is valid.
        WithVlan = bindings::ib_wc_flags_IB_WC_WITH_VLAN,
        /// `IB_WC_WITH_NETWORK_HDR_TYPE`: [`Wc::network_hdr_type`] is valid.
        WithNetworkHdrType = bindings::ib_wc_flags_IB_WC_WITH_NETWORK_HDR_TYPE,
    }
}

/// A scatter/gather element (`struct ib_sge`): `length` bytes at `addr` of the
/// memory region whose local key is `lkey`.
///
/// The layout is that of `struct ib_sge` (asserted below), so the gather list of
/// a kernel consumer's work request is borrowed as a `&[Sge]` without a copy.
/// What `addr` means is the provider's business: an IOVA within the MR, or, for
/// a provider without a DMA device and the PD's local DMA lkey, a kernel virtual
/// address (see [`super::virt_dma`]).
///
/// A plain value: no lifetime or locking of its own.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Sge {
    /// Address.
    pub addr: u64,
    /// Length in bytes.
    pub length: u32,
    /// Local key of the memory region.
    pub lkey: u32,
}

const _: () = {
    assert!(size_of::<Sge>() == size_of::<bindings::ib_sge>());
    assert!(offset_of!(Sge, addr) == offset_of!(bindings::ib_sge, addr));
    assert!(offset_of!(Sge, length) == offset_of!(bindings::ib_sge, length));
    assert!(offset_of!(Sge, lkey) == offset_of!(bindings::ib_sge, lkey));
};

/// What a send work request carries besides its opcode and gather list, decoded
/// from the container the opcode implies.
///
/// Lifetime: borrows the consumer's objects for the duration of the post only.
/// Locking: none of its own.
pub enum SendWrArgs<'a, T> {
    /// SEND, LOCAL_INV and the other opcodes without a container.
    None,
    /// RDMA WRITE and READ (`struct ib_rdma_wr`).
    Rdma {
        /// Remote address.
        remote_addr: u64,
        /// Remote key.
        rkey: u32,
    },
    /// Atomics (`struct ib_atomic_wr`).
    Atomic {
        /// Remote address.
        remote_addr: u64,
        /// Compare (CMP_SWP) or add (FETCH_ADD) operand.
        compare_add: u64,
        /// Swap operand.
        swap: u64,
        /// Remote key.
        rkey: u32,
    },
    /// SENDs on a datagram (UD or GSI) QP (`struct ib_ud_wr`).
    Ud {
        /// Destination address, an AH of this device.
        ah: &'a Ah<T>,
        /// Destination QP.
        remote_qpn: u32,
        /// Q_Key.
        remote_qkey: u32,
        /// P_Key index (GSI).
        pkey_index: u16,
    },
    /// Fast registration (`struct ib_reg_wr`).
    Reg {
        /// The MR to register, an MR of this device.
        mr: &'a Mr<T>,
        /// The IOVA the registration maps, read from the MR when the request is
        /// posted: a consumer may change it after `ib_map_mr_sg` (xprtrdma puts
        /// the RPC's XID in its upper 32 bits).
        iova: u64,
        /// The new key.
        key: u32,
        /// The access the registration grants.
        access: AccessFlags,
    },
}

/// One send work request from a kernel consumer (`struct ib_send_wr`).
///
/// Lifetime: borrows the consumer's request for the duration of the `post_send`
/// call; the provider copies what it keeps. Inline data ([`SendFlag::Inline`])
/// must be copied before the call returns. Locking: none; the consumer does not
/// touch the request during the call.
pub struct SendWr<'a, T> {
    /// Consumer cookie, returned in the completion.
    pub wr_id: u64,
    /// The operation.
    pub opcode: WrOpcode,
    /// Flags, unknown bits included.
    pub send_flags: SendFlags,
    /// Immediate data (network byte order) or the rkey to invalidate.
    pub ex: u32,
    /// Gather list.
    pub sgl: &'a [Sge],
    /// Opcode-specific arguments.
    pub args: SendWrArgs<'a, T>,
}

/// One receive work request from a kernel consumer (`struct ib_recv_wr`).
///
/// Lifetime: borrows the consumer's request for the duration of the post.
/// Locking: none, as for [`SendWr`].
pub struct RecvWr<'a> {
    /// Consumer cookie, returned in the completion.
    pub wr_id: u64,
    /// Scatter list.
    pub sgl: &'a [Sge],
}

/// A work completion: the fields of `struct ib_wc` a RoCE or iWARP provider
/// reports (no LIDs), which include those of the user ABI's `struct ib_uverbs_wc`
/// ([`Wc::to_uverbs`]).
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Debug)]
pub struct Wc {
    /// Consumer cookie of the work request.
    pub wr_id: u64,
    /// Status.
    pub status: WcStatus,
    /// Operation.
    pub opcode: WcOpcode,
    /// Vendor error.
    pub vendor_err: u32,
    /// Bytes transferred (receives).
    pub byte_len: u32,
    /// Immediate data (network byte order) or invalidated rkey, per `wc_flags`.
    pub ex: u32,
    /// Local QP number.
    pub qp_num: u32,
    /// The QP, for kernel consumers.
    pub qp: QpHandle,
    /// Source QP (datagram QPs).
    pub src_qp: u32,
    /// Flags.
    pub wc_flags: WcFlags,
    /// P_Key index.
    pub pkey_index: u16,
    /// Service level.
    pub sl: u8,
    /// Port.
    pub port_num: u8,
    /// Source MAC (datagram QPs, kernel consumers).
    pub smac: [u8; 6],
    /// VLAN (datagram QPs, kernel consumers).
    pub vlan_id: u16,
    /// `RDMA_NETWORK_*` of the packet (datagram QPs, kernel consumers).
    pub network_hdr_type: u8,
}

impl Default for Wc {
    fn default() -> Self {
        Self {
            wr_id: 0,
            status: WcStatus::Success,
            opcode: WcOpcode::Send,
            vendor_err: 0,
            byte_len: 0,
            ex: 0,
            qp_num: 0,
            qp: QpHandle::NONE,
            src_qp: 0,
            wc_flags: WcFlags::empty(),
            pkey_index: 0,
            sl: 0,
            port_num: 0,
            smac: [0; 6],
            vlan_id: 0,
            network_hdr_type: 0,
        }
    }
}

impl Wc {
    /// Copies the completion into a consumer's `struct ib_wc`.
    pub(super) fn write_to(&self, w: &mut bindings::ib_wc) {
        w.__bindgen_anon_1.wr_id = self.wr_id;
        w.status = self.status.into();
        w.opcode = self.opcode.into();
        w.vendor_err = self.vendor_err;
        w.byte_len = self.byte_len;
        w.qp = self.qp.as_raw();
        w.ex.imm_data = self.ex;
        w.src_qp = self.src_qp;
        w.slid = 0;
        w.wc_flags = self.wc_flags.bits() as c_int;
        w.pkey_index = self.pkey_index;
        w.sl = self.sl;
        w.dlid_path_bits = 0;
        w.port_num = self.port_num.into();
        w.smac = self.smac;
        w.vlan_id = self.vlan_id;
        w.network_hdr_type = self.network_hdr_type;
    }
}

/// # Safety
///
/// `sg` must be null with `n <= 0`, or valid for `n` elements for `'a`.
unsafe fn sgl<'a>(sg: *mut bindings::ib_sge, n: c_int) -> Result<&'a [Sge]> {
    if n <= 0 || sg.is_null() {
        return Ok(&[]);
    }
    let n = usize::try_from(n).map_err(|_| EINVAL)?;
    // SAFETY: `Sge` has the layout of `ib_sge` (asserted above); see the contract.
    Ok(unsafe { core::slice::from_raw_parts(sg.cast::<Sge>(), n) })
}

/// Walks a list of send work requests, calling `f` on each; on an error, stores
/// the failed request in `*bad` (unless null) and returns the error number.
///
/// # Safety
///
/// `wr` is null or the head of a valid list of send WRs of `qp`'s consumer, each in
/// the container its opcode (and, for SENDs, `ud`) implies, valid for the call;
/// `bad` is null or a valid out-pointer.
pub(super) unsafe fn walk_send<T: Driver>(
    qp: &Qp<T>,
    mut wr: *const bindings::ib_send_wr,
    bad: *mut *const bindings::ib_send_wr,
    ud: bool,
    mut f: impl FnMut(&SendWr<'_, T>) -> Result,
) -> c_int {
    while !wr.is_null() {
        // SAFETY: A valid WR of the list, per the contract.
        let res = unsafe { decode_send(qp.device(), wr, ud) }.and_then(|w| f(&w));
        if let Err(e) = res {
            if !bad.is_null() {
                // SAFETY: A valid out-pointer, per the contract.
                unsafe { *bad = wr };
            }
            return e.to_errno();
        }
        // SAFETY: As above.
        wr = unsafe { (*wr).next };
    }
    0
}

/// # Safety
///
/// `w` is a valid WR in the container its opcode implies, valid for `'a`.
unsafe fn decode_send<'a, T: Driver>(
    dev: &Device<T>,
    w: *const bindings::ib_send_wr,
    ud: bool,
) -> Result<SendWr<'a, T>> {
    // SAFETY: Valid per the contract.
    let r = unsafe { &*w };
    let opcode = WrOpcode::try_from(r.opcode)?;
    let args = match opcode {
        WrOpcode::RdmaWrite
        | WrOpcode::RdmaWriteWithImm
        | WrOpcode::RdmaRead
        | WrOpcode::RdmaReadWithInv => {
            // SAFETY: These opcodes come in an `ib_rdma_wr`.
            let x = unsafe { &*w.cast::<bindings::ib_rdma_wr>() };
            SendWrArgs::Rdma {
                remote_addr: x.remote_addr,
                rkey: x.rkey,
            }
        }
        WrOpcode::AtomicCmpAndSwp | WrOpcode::AtomicFetchAndAdd => {
            // SAFETY: These opcodes come in an `ib_atomic_wr`.
            let x = unsafe { &*w.cast::<bindings::ib_atomic_wr>() };
            SendWrArgs::Atomic {
                remote_addr: x.remote_addr,
                compare_add: x.compare_add,
                swap: x.swap,
                rkey: x.rkey,
            }
        }
        WrOpcode::RegMr => {
            // SAFETY: REG_MR comes in an `ib_reg_wr`.
            let x = unsafe { &*w.cast::<bindings::ib_reg_wr>() };
            // SAFETY: A non-null MR from the consumer is a valid `ib_mr`.
            if x.mr.is_null() || unsafe { (*x.mr).device } != dev.as_raw() {
                return Err(EINVAL);
            }
            SendWrArgs::Reg {
                // SAFETY: As above; the consumer owns the MR and does not change it
                // during the call.
                iova: unsafe { (*x.mr).iova },
                // SAFETY: An MR of this device (checked above), alive for the call.
                mr: unsafe { Mr::<T>::from_raw(x.mr) },
                key: x.key,
                access: AccessFlags::from_bits(x.access as u32),
            }
        }
        WrOpcode::Send | WrOpcode::SendWithImm if ud => {
            // SAFETY: Datagram SENDs come in an `ib_ud_wr`.
            let x = unsafe { &*w.cast::<bindings::ib_ud_wr>() };
            // SAFETY: A non-null AH from the consumer is a valid `ib_ah`.
            if x.ah.is_null() || unsafe { (*x.ah).device } != dev.as_raw() {
                return Err(EINVAL);
            }
            SendWrArgs::Ud {
                // SAFETY: An AH of this device (checked above), alive for the call.
                ah: unsafe { Ah::<T>::from_raw(x.ah) },
                remote_qpn: x.remote_qpn,
                remote_qkey: x.remote_qkey,
                pkey_index: x.pkey_index,
            }
        }
        _ => SendWrArgs::None,
    };
    Ok(SendWr {
        // SAFETY: Kernel WRs use either arm as a plain 64-bit cookie.
        wr_id: unsafe { r.__bindgen_anon_1.wr_id },
        opcode,
        send_flags: SendFlags::from_bits(r.send_flags as u32),
        // SAFETY: Both arms are 32-bit integers.
        ex: unsafe { r.ex.imm_data },
        // SAFETY: The consumer's SGE array of `num_sge` entries, valid for `'a`.
        sgl: unsafe { sgl(r.sg_list, r.num_sge) }?,
        args,
    })
}

/// Walks a list of receive work requests, calling `f` on each; on an error,
/// stores the failed request in `*bad` (unless null) and returns the error number.
///
/// # Safety
///
/// `wr` is null or the head of a valid list of receive WRs, valid for the call;
/// `bad` is null or a valid out-pointer.
pub(super) unsafe fn walk_recv(
    mut wr: *const bindings::ib_recv_wr,
    bad: *mut *const bindings::ib_recv_wr,
    mut f: impl FnMut(&RecvWr<'_>) -> Result,
) -> c_int {
    while !wr.is_null() {
        // SAFETY: Valid per the contract.
        let x = unsafe { &*wr };
        // SAFETY: The consumer's SGE array of `num_sge` entries.
        let res = unsafe { sgl(x.sg_list, x.num_sge) }.and_then(|sgl| {
            f(&RecvWr {
                // SAFETY: Either arm is a 64-bit cookie.
                wr_id: unsafe { x.__bindgen_anon_1.wr_id },
                sgl,
            })
        });
        if let Err(e) = res {
            if !bad.is_null() {
                // SAFETY: Valid out-pointer, per the contract.
                unsafe { *bad = wr };
            }
            return e.to_errno();
        }
        wr = x.next;
    }
    0
}
