// SPDX-License-Identifier: GPL-2.0

//! Verbs objects (PD, CQ, QP, SRQ, AH, MR), their attributes, work requests and
//! completions, and the `ib_device_ops` trampolines that create, use and destroy them.
//!
//! The RDMA core allocates PD, CQ, QP, SRQ and AH objects at the size the driver asks
//! for (`INIT_RDMA_OBJ_SIZE`), as an `ObjWith<ib_xxx, T::Xxx>`; the trampolines write
//! the driver data in place after the driver's create succeeds and drop it when its
//! destroy succeeds, right before the core frees the memory. MRs are allocated here.
//! A `&Cq<T>` (and the others) is only ever handed out for an object whose data is
//! initialised, for the duration of a callback.

use super::device::{Device, Driver, ObjWith};
use super::restrack::DriverDetails;
use super::types::UData;
use crate::{
    bindings,
    error::{from_result, to_result},
    ffi::c_int,
    prelude::*,
    types::Opaque,
};
use core::{marker::PhantomData, mem::size_of};

macro_rules! core_object {
    ($(#[$m:meta])* $name:ident, $c:ident, $data:ident) => {
        $(#[$m])*
        ///
        /// # Invariants
        ///
        /// Points at the core object of a live `ObjWith<_, T::Data>` with initialised
        /// driver data, created by this driver.
        #[repr(transparent)]
        pub struct $name<T: Driver>(Opaque<bindings::$c>, PhantomData<T>);

        // SAFETY: The driver data is `Send + Sync`; the core object is thread-safe.
        unsafe impl<T: Driver> Send for $name<T> {}
        // SAFETY: See `Send`.
        unsafe impl<T: Driver> Sync for $name<T> {}

        impl<T: Driver> $name<T> {
            /// # Safety
            ///
            /// `p` must satisfy the type invariant for `'a`.
            pub(crate) unsafe fn from_raw<'a>(p: *mut bindings::$c) -> &'a Self {
                // SAFETY: Transparent over the C struct; see the contract.
                unsafe { &*p.cast() }
            }

            pub(crate) fn as_raw(&self) -> *mut bindings::$c {
                self.0.get()
            }

            /// The driver data.
            pub fn data(&self) -> &T::$data {
                // SAFETY: By the type invariant.
                unsafe { &(*self.as_raw().cast::<ObjWith<bindings::$c, T::$data>>()).data }
            }

            /// The device the object belongs to.
            pub fn device(&self) -> &Device<T> {
                // SAFETY: The core sets `device` before calling the driver, and the
                // device outlives its objects.
                unsafe { Device::from_raw((*self.as_raw()).device) }
            }
        }
    };
}

core_object!(
    /// A protection domain.
    Pd, ib_pd, Pd
);
core_object!(
    /// A completion queue.
    Cq, ib_cq, Cq
);
core_object!(
    /// A queue pair.
    Qp, ib_qp, Qp
);
core_object!(
    /// A shared receive queue.
    Srq, ib_srq, Srq
);
core_object!(
    /// An address handle.
    Ah, ib_ah, Ah
);
core_object!(
    /// A memory region.
    Mr, ib_mr, Mr
);
core_object!(
    /// A memory window.
    Mw, ib_mw, Mw
);

/// `IB_EVENT_*` values for object events.
pub mod event {
    /// CQ overrun.
    pub const CQ_ERR: u32 = crate::bindings::ib_event_type_IB_EVENT_CQ_ERR;
    /// The QP went to the error state on its own.
    pub const QP_FATAL: u32 = crate::bindings::ib_event_type_IB_EVENT_QP_FATAL;
    /// Invalid request on the receive side.
    pub const QP_REQ_ERR: u32 = crate::bindings::ib_event_type_IB_EVENT_QP_REQ_ERR;
    /// Access violation.
    pub const QP_ACCESS_ERR: u32 = crate::bindings::ib_event_type_IB_EVENT_QP_ACCESS_ERR;
    /// The send queue drained (SQD).
    pub const SQ_DRAINED: u32 = crate::bindings::ib_event_type_IB_EVENT_SQ_DRAINED;
    /// Last WQE reached on a QP attached to an SRQ.
    pub const QP_LAST_WQE_REACHED: u32 =
        crate::bindings::ib_event_type_IB_EVENT_QP_LAST_WQE_REACHED;
    /// The SRQ fell below its limit.
    pub const SRQ_LIMIT_REACHED: u32 = crate::bindings::ib_event_type_IB_EVENT_SRQ_LIMIT_REACHED;
}

impl<T: Driver> Pd<T> {
    /// Whether this PD is the same object as `other`.
    pub fn is(&self, other: &Pd<T>) -> bool {
        core::ptr::eq(self, other)
    }
}

impl<T: Driver> Cq<T> {
    /// Calls the consumer's completion handler (completion channel or kernel ULP).
    pub fn notify_completion(&self) {
        let cq = self.as_raw();
        // SAFETY: The handler and context were set by the core before the CQ became
        // usable and stay valid while it exists.
        unsafe {
            if let Some(f) = (*cq).comp_handler {
                f(cq, (*cq).cq_context);
            }
        }
    }

    /// Raises an asynchronous CQ event (`event::CQ_ERR`).
    pub fn raise(&self, event: u32) {
        let cq = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event;
        ev.element.cq = cq;
        // SAFETY: As in `notify_completion`.
        unsafe {
            ev.device = (*cq).device;
            if let Some(f) = (*cq).event_handler {
                f(&mut ev, (*cq).cq_context);
            }
        }
    }

    /// Whether a user process (rather than a kernel ULP) owns the CQ.
    pub fn is_user(&self) -> bool {
        // SAFETY: `uobject` is set at creation and never changes.
        !unsafe { (*self.as_raw()).uobject }.is_null()
    }
}

impl<T: Driver> Qp<T> {
    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        // SAFETY: Set at creation and never changed.
        unsafe { (*self.as_raw()).qp_num }
    }

    /// `IB_QPT_*`.
    pub fn qp_type(&self) -> u32 {
        // SAFETY: Set by the core before creation and never changed.
        unsafe { (*self.as_raw()).qp_type }
    }

    /// Whether a user process owns the QP.
    pub fn is_user(&self) -> bool {
        // SAFETY: Set by the core before creation and never changed.
        !unsafe { (*self.as_raw()).uobject }.is_null()
    }

    /// The QP's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the QP exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }

    /// The send completion queue. The core keeps it alive while the QP exists.
    pub fn send_cq(&self) -> &Cq<T> {
        // SAFETY: Set before creation; the core holds a use count on the CQ.
        unsafe { Cq::from_raw((*self.as_raw()).send_cq) }
    }

    /// The receive completion queue. The core keeps it alive while the QP exists.
    pub fn recv_cq(&self) -> &Cq<T> {
        // SAFETY: As `send_cq`.
        unsafe { Cq::from_raw((*self.as_raw()).recv_cq) }
    }

    /// The shared receive queue, if the QP has one.
    pub fn srq(&self) -> Option<&Srq<T>> {
        // SAFETY: Set before creation; the core holds a use count on the SRQ.
        let p = unsafe { (*self.as_raw()).srq };
        // SAFETY: A non-null SRQ of this driver.
        (!p.is_null()).then(|| unsafe { Srq::from_raw(p) })
    }

    /// A handle for completions, reported back to kernel consumers in [`Wc::qp`].
    pub fn handle(&self) -> QpHandle {
        QpHandle(self.as_raw())
    }

    /// Raises an asynchronous QP event (see [`event`]).
    pub fn raise(&self, event: u32) {
        let qp = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event;
        ev.element.qp = qp;
        // SAFETY: The core set the handler and context before creation.
        unsafe {
            ev.device = (*qp).device;
            if let Some(f) = (*qp).event_handler {
                f(&mut ev, (*qp).qp_context);
            }
        }
    }
}

impl<T: Driver> Srq<T> {
    /// The SRQ's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the SRQ exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }

    /// Raises an asynchronous SRQ event (`event::SRQ_LIMIT_REACHED`).
    pub fn raise(&self, event: u32) {
        let srq = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event;
        ev.element.srq = srq;
        // SAFETY: The core set the handler and context before creation.
        unsafe {
            ev.device = (*srq).device;
            if let Some(f) = (*srq).event_handler {
                f(&mut ev, (*srq).srq_context);
            }
        }
    }
}

impl<T: Driver> Srq<T> {
    /// Whether a user process owns the SRQ.
    pub fn is_user(&self) -> bool {
        // SAFETY: Set by the core before creation and never changed.
        !unsafe { (*self.as_raw()).uobject }.is_null()
    }
}

impl<T: Driver> Ah<T> {
    /// The AH's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the AH exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }
}

impl<T: Driver> Mw<T> {
    /// `IB_MW_TYPE_1` or `IB_MW_TYPE_2` (checked by the core).
    pub fn mw_type(&self) -> u32 {
        // SAFETY: Set by the core before creation and never changed.
        unsafe { (*self.as_raw()).type_ }
    }

    /// The window's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the MW exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }
}

impl<T: Driver> Mr<T> {
    /// The local key as the consumer currently sees it (`ib_update_fast_reg_key` may
    /// change its low byte).
    pub fn lkey(&self) -> u32 {
        // SAFETY: Plain field of a live MR.
        unsafe { (*self.as_raw()).lkey }
    }
}

/// An opaque reference to a QP for kernel completions. Never dereferenced by Rust.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct QpHandle(*mut bindings::ib_qp);
// SAFETY: Only stored and handed back to the core.
unsafe impl Send for QpHandle {}
// SAFETY: See `Send`.
unsafe impl Sync for QpHandle {}

impl QpHandle {
    /// No QP.
    pub const NONE: QpHandle = QpHandle(core::ptr::null_mut());
}

/// A scatter/gather element, laid out as `struct ib_sge`, `struct ib_uverbs_sge` and
/// `struct rxe_sge`.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Sge {
    /// Address (virtual address or IOVA within the MR).
    pub addr: u64,
    /// Length in bytes.
    pub length: u32,
    /// Local key of the MR.
    pub lkey: u32,
}
const _: () = assert!(size_of::<Sge>() == size_of::<bindings::ib_sge>());

/// `struct ib_cq_init_attr`.
#[derive(Clone, Copy, Default, Debug)]
pub struct CqInitAttr {
    /// Requested minimum number of entries.
    pub cqe: u32,
    /// Completion vector.
    pub comp_vector: u32,
    /// `IB_UVERBS_CQ_FLAGS_*`.
    pub flags: u32,
}

/// `struct ib_qp_cap`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct QpCap {
    /// Send queue depth.
    pub max_send_wr: u32,
    /// Receive queue depth.
    pub max_recv_wr: u32,
    /// SGEs per send WR.
    pub max_send_sge: u32,
    /// SGEs per receive WR.
    pub max_recv_sge: u32,
    /// Inline data bytes per send WR.
    pub max_inline_data: u32,
}

impl QpCap {
    fn from_raw(c: &bindings::ib_qp_cap) -> Self {
        Self {
            max_send_wr: c.max_send_wr,
            max_recv_wr: c.max_recv_wr,
            max_send_sge: c.max_send_sge,
            max_recv_sge: c.max_recv_sge,
            max_inline_data: c.max_inline_data,
        }
    }

    fn write_to(&self, c: &mut bindings::ib_qp_cap) {
        c.max_send_wr = self.max_send_wr;
        c.max_recv_wr = self.max_recv_wr;
        c.max_send_sge = self.max_send_sge;
        c.max_recv_sge = self.max_recv_sge;
        c.max_inline_data = self.max_inline_data;
    }
}

/// `struct ib_qp_init_attr`, as far as a software RoCE device uses it.
#[derive(Clone, Copy, Default, Debug)]
pub struct QpInitAttr {
    /// `IB_QPT_*`.
    pub qp_type: u32,
    /// Requested capacities; the driver replaces them with the actual ones.
    pub cap: QpCap,
    /// Every send WR generates a completion.
    pub sq_sig_all: bool,
    /// `IB_QP_CREATE_*`.
    pub create_flags: u32,
    /// Port (GSI/SMI only).
    pub port_num: u32,
    /// An SRQ supplies the receives.
    pub has_srq: bool,
    /// XRC or RSS (receive WQ indirection): not supported by a soft RoCE device.
    pub has_xrc_or_rss: bool,
}

/// `struct rdma_ah_attr` of a RoCE address, flattened, with the source GID resolved.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct AhAttr {
    /// Port number.
    pub port_num: u8,
    /// Service level.
    pub sl: u8,
    /// Static rate.
    pub static_rate: u8,
    /// `IB_AH_GRH` etc.
    pub ah_flags: u8,
    /// Destination GID.
    pub dgid: [u8; 16],
    /// Flow label.
    pub flow_label: u32,
    /// Index of the source GID.
    pub sgid_index: u8,
    /// IP TTL / hop limit.
    pub hop_limit: u8,
    /// Traffic class (DSCP/ECN).
    pub traffic_class: u8,
    /// Destination MAC, resolved by the core.
    pub dmac: [u8; 6],
    /// Source GID, from the GID table entry.
    pub sgid: [u8; 16],
    /// `RDMA_NETWORK_*` of the source GID (IPv4 or IPv6 for RoCE v2).
    pub network_type: u32,
}

impl AhAttr {
    /// # Safety
    ///
    /// `a` must be a valid attribute whose `grh.sgid_attr` is null or valid.
    unsafe fn from_raw(a: &bindings::rdma_ah_attr) -> Self {
        let grh = &a.grh;
        let mut v = Self {
            port_num: a.port_num as u8,
            sl: a.sl,
            static_rate: a.static_rate,
            ah_flags: a.ah_flags,
            // SAFETY: `raw` is always a valid view of the GID union.
            dgid: unsafe { grh.dgid.raw },
            flow_label: grh.flow_label,
            sgid_index: grh.sgid_index,
            hop_limit: grh.hop_limit,
            traffic_class: grh.traffic_class,
            ..Self::default()
        };
        if a.type_ == bindings::rdma_ah_attr_type_RDMA_AH_ATTR_TYPE_ROCE {
            // SAFETY: The type says the `roce` arm is the live one.
            v.dmac = unsafe { a.__bindgen_anon_1.roce.dmac };
        }
        if !grh.sgid_attr.is_null() {
            // SAFETY: Per the contract the GID attribute is valid.
            unsafe {
                v.sgid = (*grh.sgid_attr).gid.raw;
                v.network_type = bindings::rdma_gid_attr_network_type(grh.sgid_attr);
            }
        }
        v
    }

    fn write_to(&self, a: &mut bindings::rdma_ah_attr) {
        a.type_ = bindings::rdma_ah_attr_type_RDMA_AH_ATTR_TYPE_ROCE;
        a.port_num = self.port_num.into();
        a.sl = self.sl;
        a.static_rate = self.static_rate;
        a.ah_flags = self.ah_flags;
        a.grh.dgid.raw = self.dgid;
        a.grh.flow_label = self.flow_label;
        a.grh.sgid_index = self.sgid_index;
        a.grh.hop_limit = self.hop_limit;
        a.grh.traffic_class = self.traffic_class;
        a.__bindgen_anon_1.roce.dmac = self.dmac;
    }
}

/// `struct ib_qp_attr`, without alternate paths (not supported by RoCE v2).
#[derive(Clone, Copy, Default, Debug)]
pub struct QpAttr {
    /// `IB_QPS_*`.
    pub qp_state: u32,
    /// Current state as the consumer believes it.
    pub cur_qp_state: u32,
    /// `IB_MTU_*`.
    pub path_mtu: u32,
    /// `IB_MIG_*`.
    pub path_mig_state: u32,
    /// Q_Key (UD).
    pub qkey: u32,
    /// Expected receive PSN.
    pub rq_psn: u32,
    /// Next send PSN.
    pub sq_psn: u32,
    /// Remote QP number.
    pub dest_qp_num: u32,
    /// `IB_ACCESS_REMOTE_*`.
    pub qp_access_flags: u32,
    /// Capacities.
    pub cap: QpCap,
    /// Primary path.
    pub ah_attr: AhAttr,
    /// P_Key index.
    pub pkey_index: u16,
    /// Raise SQ_DRAINED when SQD is reached.
    pub en_sqd_async_notify: u8,
    /// The SQ is draining (SQD).
    pub sq_draining: u8,
    /// Outstanding RDMA READ/atomic as requester.
    pub max_rd_atomic: u8,
    /// Outstanding RDMA READ/atomic as responder.
    pub max_dest_rd_atomic: u8,
    /// RNR NAK timer code.
    pub min_rnr_timer: u8,
    /// Port.
    pub port_num: u8,
    /// Local ACK timeout code.
    pub timeout: u8,
    /// Retry count.
    pub retry_cnt: u8,
    /// RNR retry count (7 = infinite).
    pub rnr_retry: u8,
}

impl QpAttr {
    /// Copies the attributes; the primary path only if `mask` has `IB_QP_AV`, since
    /// consumers leave it uninitialised otherwise.
    ///
    /// # Safety
    ///
    /// With `IB_QP_AV` in `mask`, as [`AhAttr::from_raw`] for the embedded path.
    unsafe fn from_raw(a: &bindings::ib_qp_attr, mask: u32) -> Self {
        Self {
            qp_state: a.qp_state,
            cur_qp_state: a.cur_qp_state,
            path_mtu: a.path_mtu,
            path_mig_state: a.path_mig_state,
            qkey: a.qkey,
            rq_psn: a.rq_psn,
            sq_psn: a.sq_psn,
            dest_qp_num: a.dest_qp_num,
            qp_access_flags: a.qp_access_flags as u32,
            cap: QpCap::from_raw(&a.cap),
            ah_attr: if mask & bindings::ib_qp_attr_mask_IB_QP_AV != 0 {
                // SAFETY: Per the contract.
                unsafe { AhAttr::from_raw(&a.ah_attr) }
            } else {
                AhAttr::default()
            },
            pkey_index: a.pkey_index,
            en_sqd_async_notify: a.en_sqd_async_notify,
            sq_draining: a.sq_draining,
            max_rd_atomic: a.max_rd_atomic,
            max_dest_rd_atomic: a.max_dest_rd_atomic,
            min_rnr_timer: a.min_rnr_timer,
            port_num: a.port_num as u8,
            timeout: a.timeout,
            retry_cnt: a.retry_cnt,
            rnr_retry: a.rnr_retry,
        }
    }

    fn write_to(&self, a: &mut bindings::ib_qp_attr) {
        a.qp_state = self.qp_state;
        a.cur_qp_state = self.cur_qp_state;
        a.path_mtu = self.path_mtu;
        a.path_mig_state = self.path_mig_state;
        a.qkey = self.qkey;
        a.rq_psn = self.rq_psn;
        a.sq_psn = self.sq_psn;
        a.dest_qp_num = self.dest_qp_num;
        a.qp_access_flags = self.qp_access_flags as c_int;
        self.cap.write_to(&mut a.cap);
        self.ah_attr.write_to(&mut a.ah_attr);
        a.pkey_index = self.pkey_index;
        a.en_sqd_async_notify = self.en_sqd_async_notify;
        a.sq_draining = self.sq_draining;
        a.max_rd_atomic = self.max_rd_atomic;
        a.max_dest_rd_atomic = self.max_dest_rd_atomic;
        a.min_rnr_timer = self.min_rnr_timer;
        a.port_num = self.port_num.into();
        a.timeout = self.timeout;
        a.retry_cnt = self.retry_cnt;
        a.rnr_retry = self.rnr_retry;
    }
}

/// `struct ib_srq_attr`.
#[derive(Clone, Copy, Default, Debug)]
pub struct SrqAttr {
    /// Depth.
    pub max_wr: u32,
    /// SGEs per WR.
    pub max_sge: u32,
    /// Limit below which `SRQ_LIMIT_REACHED` fires (0: disarmed).
    pub srq_limit: u32,
}

/// `struct ib_srq_init_attr`.
#[derive(Clone, Copy, Default, Debug)]
pub struct SrqInitAttr {
    /// Requested attributes; the driver replaces them with the actual ones.
    pub attr: SrqAttr,
    /// `IB_SRQT_*`.
    pub srq_type: u32,
}

/// The MR's key pair, chosen by the driver.
#[derive(Clone, Copy, Default, Debug)]
pub struct MrKeys {
    /// Local key.
    pub lkey: u32,
    /// Remote key.
    pub rkey: u32,
}

/// What a send work request carries besides its opcode and SGEs.
pub enum SendWrArgs<'a, T: Driver> {
    /// SEND and LOCAL_INV: nothing more.
    None,
    /// RDMA WRITE/READ.
    Rdma {
        /// Remote address.
        remote_addr: u64,
        /// Remote key.
        rkey: u32,
    },
    /// Atomics.
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
    /// Datagram (UD/GSI) SENDs.
    Ud {
        /// Destination address.
        ah: &'a Ah<T>,
        /// Destination QP.
        remote_qpn: u32,
        /// Q_Key.
        remote_qkey: u32,
        /// P_Key index (GSI).
        pkey_index: u16,
    },
    /// Fast registration.
    Reg {
        /// The MR to register.
        mr: &'a Mr<T>,
        /// The new key.
        key: u32,
        /// `IB_ACCESS_*`.
        access: u32,
    },
}

/// A send work request from a kernel consumer.
pub struct SendWr<'a, T: Driver> {
    /// Consumer cookie.
    pub wr_id: u64,
    /// `IB_WR_*`.
    pub opcode: u32,
    /// `IB_SEND_*`.
    pub send_flags: u32,
    /// Immediate data (network order) or the rkey to invalidate.
    pub ex: u32,
    /// Gather list.
    pub sgl: &'a [Sge],
    /// Opcode-specific arguments.
    pub args: SendWrArgs<'a, T>,
}

/// A receive work request from a kernel consumer.
pub struct RecvWr<'a> {
    /// Consumer cookie.
    pub wr_id: u64,
    /// Scatter list.
    pub sgl: &'a [Sge],
}

/// A work completion, with the fields of `struct ib_uverbs_wc` plus what kernel
/// consumers get in `struct ib_wc`.
#[derive(Clone, Copy, Debug)]
pub struct Wc {
    /// Consumer cookie.
    pub wr_id: u64,
    /// `IB_WC_*` status.
    pub status: u32,
    /// `IB_WC_*` opcode.
    pub opcode: u32,
    /// Vendor error.
    pub vendor_err: u32,
    /// Bytes transferred (receives).
    pub byte_len: u32,
    /// Immediate data (network order) or invalidated rkey.
    pub ex: u32,
    /// Local QP number.
    pub qp_num: u32,
    /// The QP, for kernel consumers.
    pub qp: QpHandle,
    /// Source QP (UD).
    pub src_qp: u32,
    /// `IB_WC_*` flags.
    pub wc_flags: u32,
    /// P_Key index.
    pub pkey_index: u16,
    /// Service level.
    pub sl: u8,
    /// Port.
    pub port_num: u8,
    /// Source MAC (UD, kernel consumers).
    pub smac: [u8; 6],
    /// VLAN (UD, kernel consumers).
    pub vlan_id: u16,
    /// `RDMA_NETWORK_*` of the packet (UD, kernel consumers).
    pub network_hdr_type: u8,
}

impl Default for Wc {
    fn default() -> Self {
        Self {
            wr_id: 0,
            status: 0,
            opcode: 0,
            vendor_err: 0,
            byte_len: 0,
            ex: 0,
            qp_num: 0,
            qp: QpHandle::NONE,
            src_qp: 0,
            wc_flags: 0,
            pkey_index: 0,
            sl: 0,
            port_num: 0,
            smac: [0; 6],
            vlan_id: 0,
            network_hdr_type: 0,
        }
    }
}

/// Size of `struct ib_uverbs_wc`, the CQE user space reads.
pub const UVERBS_WC_SIZE: usize = size_of::<bindings::ib_uverbs_wc>();

impl Wc {
    /// The completion as `struct ib_uverbs_wc` bytes.
    pub fn to_uverbs(&self) -> [u8; UVERBS_WC_SIZE] {
        let mut w: bindings::ib_uverbs_wc = pin_init::zeroed();
        w.wr_id = self.wr_id;
        w.status = self.status;
        w.opcode = self.opcode;
        w.vendor_err = self.vendor_err;
        w.byte_len = self.byte_len;
        w.ex.imm_data = self.ex;
        w.qp_num = self.qp_num;
        w.src_qp = self.src_qp;
        w.wc_flags = self.wc_flags;
        w.pkey_index = self.pkey_index;
        w.sl = self.sl;
        w.port_num = self.port_num;
        // SAFETY: `ib_uverbs_wc` is plain integers with no padding (48 bytes).
        unsafe { core::mem::transmute(w) }
    }

    fn write_to(&self, w: &mut bindings::ib_wc) {
        w.__bindgen_anon_1.wr_id = self.wr_id;
        w.status = self.status;
        w.opcode = self.opcode;
        w.vendor_err = self.vendor_err;
        w.byte_len = self.byte_len;
        w.qp = self.qp.0;
        w.ex.imm_data = self.ex;
        w.src_qp = self.src_qp;
        w.slid = 0;
        w.wc_flags = self.wc_flags as c_int;
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

/// The trampolines. Each is called only by the RDMA core, with pointers valid for the
/// call, on objects of a device registered by [`Device::register`].
pub(crate) struct Ops<T: Driver>(PhantomData<T>);

impl<T: Driver> Ops<T> {
    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn create_cq(
        cq: *mut bindings::ib_cq,
        attr: *const bindings::ib_cq_init_attr,
        attrs: *mut bindings::uverbs_attr_bundle,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core set `device`; `attr` is valid.
            let (dev, a) = unsafe { (Device::<T>::from_raw((*cq).device), &*attr) };
            let init = CqInitAttr {
                cqe: a.cqe,
                comp_vector: a.comp_vector,
                flags: a.flags,
            };
            // SAFETY: A non-null bundle embeds the call's driver udata.
            let udata = unsafe {
                UData::from_raw(if attrs.is_null() {
                    core::ptr::null_mut()
                } else {
                    &raw mut (*attrs).__bindgen_anon_1.__bindgen_anon_1.driver_udata
                })
            };
            let (data, cqe) = T::create_cq(dev, &init, udata.as_ref())?;
            // SAFETY: `cq` is an `ObjWith<ib_cq, T::Cq>` whose data slot is unused.
            unsafe {
                (*cq).cqe = cqe as c_int;
                ObjWith::<bindings::ib_cq, T::Cq>::init(cq, data);
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn resize_cq(
        cq: *mut bindings::ib_cq,
        cqe: u32,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created CQ; `udata` null or valid.
            let (c, u) = unsafe { (Cq::<T>::from_raw(cq), UData::from_raw(udata)) };
            let n = T::resize_cq(c, cqe, u.as_ref())?;
            // SAFETY: A plain store to the live CQ. Two concurrent resizes may race
            // here (the core takes the CQ's uobject for read only); either value is
            // one the driver reported.
            unsafe { core::ptr::write_volatile(&raw mut (*cq).cqe, n as c_int) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn destroy_cq(
        cq: *mut bindings::ib_cq,
        _udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created CQ.
            T::destroy_cq(unsafe { Cq::<T>::from_raw(cq) })?;
            // SAFETY: Destroyed: the core frees the memory next and never calls back.
            unsafe { ObjWith::<bindings::ib_cq, T::Cq>::drop_data(cq) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn poll_cq(
        cq: *mut bindings::ib_cq,
        num: c_int,
        wc: *mut bindings::ib_wc,
    ) -> c_int {
        // SAFETY: A created CQ.
        let c = unsafe { Cq::<T>::from_raw(cq) };
        let want = usize::try_from(num).unwrap_or(0);
        let mut done = 0usize;
        let mut buf = [Wc::default(); 8];
        while done < want {
            let n = (want - done).min(buf.len());
            let got = T::poll_cq(c, &mut buf[..n]).min(n);
            for (i, w) in buf[..got].iter().enumerate() {
                // SAFETY: The caller's array has `num` entries.
                w.write_to(unsafe { &mut *wc.add(done + i) });
            }
            done += got;
            if got < n {
                break;
            }
        }
        done as c_int
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn peek_cq(cq: *mut bindings::ib_cq, n: c_int) -> c_int {
        // SAFETY: A created CQ.
        let c = unsafe { Cq::<T>::from_raw(cq) };
        T::peek_cq(c, usize::try_from(n).unwrap_or(0)) as c_int
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn req_notify_cq(cq: *mut bindings::ib_cq, flags: u32) -> c_int {
        from_result(|| {
            // SAFETY: A created CQ.
            let missed = T::req_notify_cq(unsafe { Cq::<T>::from_raw(cq) }, flags)?;
            Ok(c_int::from(missed))
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn create_qp(
        qp: *mut bindings::ib_qp,
        init: *mut bindings::ib_qp_init_attr,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core set `device`, `pd`, the CQs and the SRQ (taking
            // references on them) before the call; `init` is valid.
            let i = unsafe { &mut *init };
            let mut a = QpInitAttr {
                qp_type: i.qp_type,
                cap: QpCap::from_raw(&i.cap),
                sq_sig_all: i.sq_sig_type == bindings::ib_sig_type_IB_SIGNAL_ALL_WR,
                create_flags: i.create_flags,
                port_num: i.port_num,
                has_srq: !i.srq.is_null(),
                has_xrc_or_rss: !i.xrcd.is_null() || !i.rwq_ind_tbl.is_null(),
            };
            // XRC target QPs come without a PD or CQs; they are not supported.
            // SAFETY: `qp` is the core's object.
            if i.send_cq.is_null() || i.recv_cq.is_null() || unsafe { (*qp).pd }.is_null() {
                return Err(EOPNOTSUPP);
            }
            // SAFETY: Objects of this driver, kept alive by the core's references.
            let (pd, scq, rcq, srq) = unsafe {
                (
                    Pd::<T>::from_raw((*qp).pd),
                    Cq::<T>::from_raw(i.send_cq),
                    Cq::<T>::from_raw(i.recv_cq),
                    (!i.srq.is_null()).then(|| Srq::<T>::from_raw(i.srq)),
                )
            };
            // SAFETY: `udata` is null or valid.
            let u = unsafe { UData::from_raw(udata) };
            let (data, qpn) = T::create_qp(pd, &mut a, scq, rcq, srq, u.as_ref())?;
            a.cap.write_to(&mut i.cap);
            // SAFETY: `qp` is an `ObjWith<ib_qp, T::Qp>` whose data slot is unused.
            unsafe {
                (*qp).qp_num = qpn;
                ObjWith::<bindings::ib_qp, T::Qp>::init(qp, data);
            }
            // Published for the data path only once complete.
            let table = pd.device().qp_table();
            // SAFETY: The table is valid; the entry is a created QP of this driver.
            let old = unsafe {
                bindings::xa_store_irq(table, qpn as usize, qp.cast(), GFP_KERNEL.as_raw())
            };
            // SAFETY: `old` came from `xa_store`.
            if let Err(e) = to_result(unsafe { bindings::xa_err(old) }) {
                // SAFETY: A created QP that nobody else has seen yet.
                let q = unsafe { Qp::<T>::from_raw(qp) };
                let _ = T::destroy_qp(q);
                // SAFETY: Destroyed: the core frees the memory after the error.
                unsafe { ObjWith::<bindings::ib_qp, T::Qp>::drop_data(qp) };
                return Err(e);
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn modify_qp(
        qp: *mut bindings::ib_qp,
        attr: *mut bindings::ib_qp_attr,
        mask: c_int,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created QP; `attr` valid with a resolved `sgid_attr` when the
            // mask has the AV; `udata` null or valid.
            let (q, a, u) = unsafe {
                (
                    Qp::<T>::from_raw(qp),
                    QpAttr::from_raw(&*attr, mask as u32),
                    UData::from_raw(udata),
                )
            };
            T::modify_qp(q, &a, mask as u32, u.as_ref())?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn fill_res_qp_entry(
        msg: *mut bindings::sk_buff,
        qp: *mut bindings::ib_qp,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created QP; the core holds its restrack entry.
            let q = unsafe { Qp::<T>::from_raw(qp) };
            // SAFETY: The message of this call.
            unsafe { DriverDetails::fill(msg, |d| T::fill_qp_details(q, d)) }?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn query_qp(
        qp: *mut bindings::ib_qp,
        attr: *mut bindings::ib_qp_attr,
        _mask: c_int,
        init: *mut bindings::ib_qp_init_attr,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created QP.
            let q = unsafe { Qp::<T>::from_raw(qp) };
            let mut a = QpAttr::default();
            let mut i = QpInitAttr::default();
            T::query_qp(q, &mut a, &mut i)?;
            // SAFETY: Valid, caller-owned out-structs.
            unsafe {
                a.write_to(&mut *attr);
                i.cap.write_to(&mut (*init).cap);
                (*init).sq_sig_type = if i.sq_sig_all {
                    bindings::ib_sig_type_IB_SIGNAL_ALL_WR
                } else {
                    bindings::ib_sig_type_IB_SIGNAL_REQ_WR
                };
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn destroy_qp(
        qp: *mut bindings::ib_qp,
        _udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created QP.
            let q = unsafe { Qp::<T>::from_raw(qp) };
            // Unpublished first, and the data path's RCU readers are waited for, so
            // none of them sees the QP once the driver starts tearing it down.
            // SAFETY: The table is valid.
            unsafe { bindings::xa_erase_irq(q.device().qp_table(), q.qp_num() as usize) };
            crate::sync::rcu::synchronize_rcu();
            if let Err(e) = T::destroy_qp(q) {
                // SAFETY: The table is valid; the QP lives on.
                unsafe {
                    bindings::xa_store_irq(
                        q.device().qp_table(),
                        q.qp_num() as usize,
                        qp.cast(),
                        GFP_KERNEL.as_raw(),
                    )
                };
                return Err(e);
            }
            // SAFETY: Destroyed: the core frees the memory next.
            unsafe { ObjWith::<bindings::ib_qp, T::Qp>::drop_data(qp) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn post_send(
        qp: *mut bindings::ib_qp,
        wr: *const bindings::ib_send_wr,
        bad: *mut *const bindings::ib_send_wr,
    ) -> c_int {
        // SAFETY: A created QP.
        let q = unsafe { Qp::<T>::from_raw(qp) };
        if q.is_user() {
            // A user QP's WQEs are in its mmapped send queue: the uverbs POST_SEND is
            // the doorbell (rdma-core's rxe provider sends it with no WRs). WRs a
            // process passes in the command itself are ignored, as rdma_rxe does; the
            // core builds them with containers chosen by the user's opcode, which must
            // never be interpreted as kernel WRs.
            return from_result(|| T::doorbell(q).map(|()| 0));
        }
        let ud = matches!(
            q.qp_type(),
            bindings::ib_qp_type_IB_QPT_UD | bindings::ib_qp_type_IB_QPT_GSI
        );
        let mut cur = wr;
        while !cur.is_null() {
            // SAFETY: The caller's list of valid WRs.
            let res = unsafe { Self::one_send(q, cur, ud) };
            if let Err(e) = res {
                if !bad.is_null() {
                    // SAFETY: Valid out-pointer.
                    unsafe { *bad = cur };
                }
                return e.to_errno();
            }
            // SAFETY: As above.
            cur = unsafe { (*cur).next };
        }
        0
    }

    /// # Safety
    ///
    /// `w` is a valid WR of the container type its opcode implies.
    unsafe fn one_send(q: &Qp<T>, w: *const bindings::ib_send_wr, ud: bool) -> Result {
        // SAFETY: Valid per the contract.
        let r = unsafe { &*w };
        let op = r.opcode;
        let args = match op {
            bindings::ib_wr_opcode_IB_WR_RDMA_WRITE
            | bindings::ib_wr_opcode_IB_WR_RDMA_WRITE_WITH_IMM
            | bindings::ib_wr_opcode_IB_WR_RDMA_READ
            | bindings::ib_wr_opcode_IB_WR_RDMA_READ_WITH_INV => {
                // SAFETY: These opcodes come in an `ib_rdma_wr`.
                let x = unsafe { &*w.cast::<bindings::ib_rdma_wr>() };
                SendWrArgs::Rdma {
                    remote_addr: x.remote_addr,
                    rkey: x.rkey,
                }
            }
            bindings::ib_wr_opcode_IB_WR_ATOMIC_CMP_AND_SWP
            | bindings::ib_wr_opcode_IB_WR_ATOMIC_FETCH_AND_ADD => {
                // SAFETY: These opcodes come in an `ib_atomic_wr`.
                let x = unsafe { &*w.cast::<bindings::ib_atomic_wr>() };
                SendWrArgs::Atomic {
                    remote_addr: x.remote_addr,
                    compare_add: x.compare_add,
                    swap: x.swap,
                    rkey: x.rkey,
                }
            }
            bindings::ib_wr_opcode_IB_WR_REG_MR => {
                // SAFETY: REG_MR comes in an `ib_reg_wr`.
                let x = unsafe { &*w.cast::<bindings::ib_reg_wr>() };
                // SAFETY: A non-null MR from the consumer is a valid `ib_mr`.
                if x.mr.is_null() || unsafe { (*x.mr).device } != q.device().as_raw() {
                    return Err(EINVAL);
                }
                SendWrArgs::Reg {
                    // SAFETY: An MR of this device (checked above), alive for the call.
                    mr: unsafe { Mr::<T>::from_raw(x.mr) },
                    key: x.key,
                    access: x.access as u32,
                }
            }
            bindings::ib_wr_opcode_IB_WR_SEND | bindings::ib_wr_opcode_IB_WR_SEND_WITH_IMM
                if ud =>
            {
                // SAFETY: Datagram SENDs come in an `ib_ud_wr`.
                let x = unsafe { &*w.cast::<bindings::ib_ud_wr>() };
                // SAFETY: A non-null AH from the consumer is a valid `ib_ah`.
                if x.ah.is_null() || unsafe { (*x.ah).device } != q.device().as_raw() {
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
        let wr = SendWr {
            // SAFETY: Kernel WRs use either arm as a plain 64-bit cookie.
            wr_id: unsafe { r.__bindgen_anon_1.wr_id },
            opcode: op,
            send_flags: r.send_flags as u32,
            // SAFETY: Both arms are 32-bit integers.
            ex: unsafe { r.ex.imm_data },
            // SAFETY: The consumer's SGE array of `num_sge` entries.
            sgl: unsafe { sgl(r.sg_list, r.num_sge) }?,
            args,
        };
        T::post_send(q, &wr)
    }

    /// # Safety
    ///
    /// `r` is a valid receive WR list head; `bad` null or valid.
    unsafe fn walk_recv(
        mut r: *const bindings::ib_recv_wr,
        bad: *mut *const bindings::ib_recv_wr,
        mut f: impl FnMut(&RecvWr<'_>) -> Result,
    ) -> c_int {
        while !r.is_null() {
            // SAFETY: Valid per the contract.
            let x = unsafe { &*r };
            // SAFETY: As above.
            let res = unsafe { sgl(x.sg_list, x.num_sge) }.and_then(|sgl| {
                f(&RecvWr {
                    // SAFETY: Either arm is a 64-bit cookie.
                    wr_id: unsafe { x.__bindgen_anon_1.wr_id },
                    sgl,
                })
            });
            if let Err(e) = res {
                if !bad.is_null() {
                    // SAFETY: Valid out-pointer.
                    unsafe { *bad = r };
                }
                return e.to_errno();
            }
            r = x.next;
        }
        0
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn post_recv(
        qp: *mut bindings::ib_qp,
        wr: *const bindings::ib_recv_wr,
        bad: *mut *const bindings::ib_recv_wr,
    ) -> c_int {
        // SAFETY: A created QP.
        let q = unsafe { Qp::<T>::from_raw(qp) };
        if q.is_user() {
            // A user QP's receive queue is its mmapped ring, filled by user space.
            return -(bindings::EINVAL as c_int);
        }
        // SAFETY: Valid list from the caller.
        unsafe { Self::walk_recv(wr, bad, |w| T::post_recv(q, w)) }
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn create_srq(
        srq: *mut bindings::ib_srq,
        init: *mut bindings::ib_srq_init_attr,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core set `device` and `pd`; `init` valid.
            let (pd, i) = unsafe { (Pd::<T>::from_raw((*srq).pd), &mut *init) };
            let mut a = SrqInitAttr {
                attr: SrqAttr {
                    max_wr: i.attr.max_wr,
                    max_sge: i.attr.max_sge,
                    srq_limit: i.attr.srq_limit,
                },
                srq_type: i.srq_type,
            };
            // SAFETY: `udata` null or valid.
            let u = unsafe { UData::from_raw(udata) };
            let data = T::create_srq(pd, &mut a, u.as_ref())?;
            i.attr.max_wr = a.attr.max_wr;
            i.attr.max_sge = a.attr.max_sge;
            // SAFETY: `srq` is an `ObjWith<ib_srq, T::Srq>` whose data slot is unused.
            unsafe { ObjWith::<bindings::ib_srq, T::Srq>::init(srq, data) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn modify_srq(
        srq: *mut bindings::ib_srq,
        attr: *mut bindings::ib_srq_attr,
        mask: u32,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created SRQ; valid attr; udata null or valid.
            let (s, a, u) = unsafe { (Srq::<T>::from_raw(srq), &*attr, UData::from_raw(udata)) };
            let a = SrqAttr {
                max_wr: a.max_wr,
                max_sge: a.max_sge,
                srq_limit: a.srq_limit,
            };
            T::modify_srq(s, &a, mask, u.as_ref())?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn query_srq(
        srq: *mut bindings::ib_srq,
        attr: *mut bindings::ib_srq_attr,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created SRQ.
            let a = T::query_srq(unsafe { Srq::<T>::from_raw(srq) })?;
            // SAFETY: Valid out-struct.
            unsafe {
                (*attr).max_wr = a.max_wr;
                (*attr).max_sge = a.max_sge;
                (*attr).srq_limit = a.srq_limit;
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn destroy_srq(
        srq: *mut bindings::ib_srq,
        _udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created SRQ.
            T::destroy_srq(unsafe { Srq::<T>::from_raw(srq) })?;
            // SAFETY: Destroyed: the core frees the memory next.
            unsafe { ObjWith::<bindings::ib_srq, T::Srq>::drop_data(srq) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn post_srq_recv(
        srq: *mut bindings::ib_srq,
        wr: *const bindings::ib_recv_wr,
        bad: *mut *const bindings::ib_recv_wr,
    ) -> c_int {
        // SAFETY: A created SRQ.
        let s = unsafe { Srq::<T>::from_raw(srq) };
        if s.is_user() {
            // As for QPs: the ring belongs to user space.
            return -(bindings::EINVAL as c_int);
        }
        // SAFETY: Valid list from the caller.
        unsafe { Self::walk_recv(wr, bad, |w| T::post_srq_recv(s, w)) }
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn create_ah(
        ah: *mut bindings::ib_ah,
        init: *mut bindings::rdma_ah_init_attr,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core set `device` and `pd`, and resolved the source GID
            // attribute in `ah_attr`; `init` is valid.
            let (pd, a) = unsafe {
                (
                    Pd::<T>::from_raw((*ah).pd),
                    AhAttr::from_raw(&*(*init).ah_attr),
                )
            };
            // SAFETY: `udata` null or valid.
            let u = unsafe { UData::from_raw(udata) };
            // The CM creates AHs under spinlocks: then the driver must not sleep.
            // SAFETY: `init` is valid.
            let flags = unsafe { (*init).flags };
            let sleepable = flags & bindings::rdma_create_ah_flags_RDMA_CREATE_AH_SLEEPABLE != 0;
            let data = T::create_ah(pd, &a, sleepable, u.as_ref())?;
            // SAFETY: `ah` is an `ObjWith<ib_ah, T::Ah>` whose data slot is unused.
            unsafe { ObjWith::<bindings::ib_ah, T::Ah>::init(ah, data) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn query_ah(
        ah: *mut bindings::ib_ah,
        attr: *mut bindings::rdma_ah_attr,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created AH.
            let a = T::query_ah(unsafe { Ah::<T>::from_raw(ah) })?;
            // SAFETY: Valid out-struct.
            a.write_to(unsafe { &mut *attr });
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn destroy_ah(ah: *mut bindings::ib_ah, _flags: u32) -> c_int {
        from_result(|| {
            // SAFETY: A created AH.
            T::destroy_ah(unsafe { Ah::<T>::from_raw(ah) })?;
            // SAFETY: Destroyed: the core frees the memory next.
            unsafe { ObjWith::<bindings::ib_ah, T::Ah>::drop_data(ah) };
            Ok(0)
        })
    }

    /// Allocates the MR, then lets `make` register it. The allocation comes first so
    /// that a registration never succeeds in the driver for an MR the core is told
    /// failed.
    fn new_mr(make: impl FnOnce() -> Result<(T::Mr, MrKeys)>) -> *mut bindings::ib_mr {
        let slot = match KBox::<ObjWith<bindings::ib_mr, T::Mr>>::new_uninit(GFP_KERNEL) {
            Ok(b) => b,
            Err(e) => return Error::from(e).to_ptr(),
        };
        let (data, keys) = match make() {
            Ok(v) => v,
            Err(e) => return e.to_ptr(),
        };
        let mut core: bindings::ib_mr = pin_init::zeroed();
        core.lkey = keys.lkey;
        core.rkey = keys.rkey;
        // The core fills in the rest of the `ib_mr` after we return it.
        let obj = KBox::write(slot, ObjWith { core, data });
        KBox::into_raw(obj).cast()
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn get_dma_mr(
        pd: *mut bindings::ib_pd,
        access: c_int,
    ) -> *mut bindings::ib_mr {
        // SAFETY: A created PD.
        let p = unsafe { Pd::<T>::from_raw(pd) };
        Self::new_mr(|| T::get_dma_mr(p, access as u32))
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn reg_user_mr(
        pd: *mut bindings::ib_pd,
        start: u64,
        length: u64,
        iova: u64,
        access: c_int,
        dmah: *mut bindings::ib_dmah,
        udata: *mut bindings::ib_udata,
    ) -> *mut bindings::ib_mr {
        if !dmah.is_null() {
            return EOPNOTSUPP.to_ptr();
        }
        // SAFETY: A created PD; `udata` null or valid.
        let (p, u) = unsafe { (Pd::<T>::from_raw(pd), UData::from_raw(udata)) };
        Self::new_mr(|| T::reg_user_mr(p, start, length, iova, access as u32, u.as_ref()))
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn alloc_mr(
        pd: *mut bindings::ib_pd,
        mr_type: u32,
        max_num_sg: u32,
    ) -> *mut bindings::ib_mr {
        // SAFETY: A created PD.
        let p = unsafe { Pd::<T>::from_raw(pd) };
        Self::new_mr(|| T::alloc_mr(p, mr_type, max_num_sg))
    }

    /// # Safety
    ///
    /// Called only by `ib_sg_to_pages` from [`Self::map_mr_sg`].
    unsafe extern "C" fn set_page(mr: *mut bindings::ib_mr, addr: u64) -> c_int {
        from_result(|| {
            // SAFETY: The MR being mapped, created by this driver.
            T::mr_set_page(unsafe { Mr::<T>::from_raw(mr) }, addr)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn map_mr_sg(
        mr: *mut bindings::ib_mr,
        sg: *mut bindings::scatterlist,
        nents: c_int,
        off: *mut u32,
    ) -> c_int {
        // SAFETY: A created MR.
        let m = unsafe { Mr::<T>::from_raw(mr) };
        if let Err(e) = T::mr_map_begin(m) {
            return e.to_errno();
        }
        // SAFETY: Valid scatterlist from the consumer; `set_page` is ours. The core
        // sets `iova`, `length` and `page_size` of the MR.
        let n = unsafe { bindings::ib_sg_to_pages(mr, sg, nents, off, Some(Self::set_page)) };
        // SAFETY: Plain fields `ib_sg_to_pages` just set.
        let (iova, len, pgsz) = unsafe { ((*mr).iova, (*mr).length, (*mr).page_size) };
        if let Err(e) = T::mr_map_end(m, iova, len, pgsz) {
            return e.to_errno();
        }
        n
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn dereg_mr(
        mr: *mut bindings::ib_mr,
        _udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created MR.
            T::dereg_mr(unsafe { Mr::<T>::from_raw(mr) })?;
            // SAFETY: Allocated by `new_mr`; deregistered, so nobody uses it.
            drop(unsafe { KBox::from_raw(mr.cast::<ObjWith<bindings::ib_mr, T::Mr>>()) });
            Ok(0)
        })
    }
}

impl<T: Driver> Ops<T> {
    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn alloc_mw(
        mw: *mut bindings::ib_mw,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // The core set `device`, `pd` and `type` before the call; the data slot
            // is not initialised yet, so only the PD and type are read.
            // SAFETY: `mw` is the core's object; `udata` is null or valid.
            let (pd, ty, u) = unsafe {
                (
                    Pd::<T>::from_raw((*mw).pd),
                    (*mw).type_,
                    UData::from_raw(udata),
                )
            };
            let (data, rkey) = T::alloc_mw(pd, ty, u.as_ref())?;
            // SAFETY: `mw` is an `ObjWith<ib_mw, T::Mw>` whose data slot is unused.
            unsafe {
                (*mw).rkey = rkey;
                ObjWith::<bindings::ib_mw, T::Mw>::init(mw, data);
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn dealloc_mw(mw: *mut bindings::ib_mw) -> c_int {
        from_result(|| {
            // SAFETY: A created MW.
            T::dealloc_mw(unsafe { Mw::<T>::from_raw(mw) })?;
            // SAFETY: Deallocated: the core frees the memory next.
            unsafe { ObjWith::<bindings::ib_mw, T::Mw>::drop_data(mw) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn attach_mcast(
        qp: *mut bindings::ib_qp,
        gid: *mut bindings::ib_gid,
        _lid: u16,
    ) -> c_int {
        from_result(|| {
            // SAFETY: A created QP, and a GID valid for the call; every bit pattern
            // of the union is a valid `raw`.
            let (q, raw) = unsafe { (Qp::<T>::from_raw(qp), (*gid).raw) };
            T::attach_mcast(q, &raw)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, as described on [`Ops`].
    pub(crate) unsafe extern "C" fn detach_mcast(
        qp: *mut bindings::ib_qp,
        gid: *mut bindings::ib_gid,
        _lid: u16,
    ) -> c_int {
        from_result(|| {
            // SAFETY: As in `attach_mcast`.
            let (q, raw) = unsafe { (Qp::<T>::from_raw(qp), (*gid).raw) };
            T::detach_mcast(q, &raw)?;
            Ok(0)
        })
    }
}

/// Writes `v` to user memory at `addr` (e.g. a response address passed in a request).
pub fn write_user<V: crate::transmute::AsBytes>(addr: u64, v: &V) -> Result {
    let addr = usize::try_from(addr).map_err(|_| EFAULT)?;
    crate::uaccess::UserSlice::new(crate::uaccess::UserPtr::from_addr(addr), size_of::<V>())
        .writer()
        .write(v)
}
