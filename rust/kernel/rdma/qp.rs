// SPDX-License-Identifier: GPL-2.0

//! Queue pairs (`struct ib_qp`): the `create_qp`, `modify_qp`, `query_qp`,
//! `destroy_qp`, `post_send`, `post_recv`, `attach_mcast`, `detach_mcast` and
//! `fill_res_qp_entry` ops of `struct ib_device_ops`, and the attributes they take
//! (`struct ib_qp_init_attr`, `struct ib_qp_attr`, `enum ib_qp_attr_mask`).
//!
//! A provider implements [`Operations`] as a part of its [`Driver`]. What the core
//! guarantees:
//!
//! - `create_qp` runs with the PD, CQs and SRQ held by the core for the QP's
//!   lifetime; the QP is not visible to anyone before `create_qp` returns.
//! - Nothing serialises `modify_qp` and `query_qp` of one QP, for user QPs (the
//!   uverbs object lock is taken shared) or kernel QPs: the provider locks its QP
//!   state itself.
//! - `post_send` and `post_recv` may run from any context, concurrently with each
//!   other and with `modify_qp` (kernel consumers post from interrupt handlers).
//! - `destroy_qp` is called once, with no other verb of the QP running.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    ah::AhAttr,
    cq::Cq,
    device::{Device, Driver},
    event::EventType,
    mr::AccessFlags,
    object::ObjWith,
    pd::Pd,
    restrack::DriverDetails,
    srq::Srq,
    sw::QpTable,
    uverbs::UData,
    wr::{self, RecvWr, SendWr},
};
use crate::{
    bindings,
    error::{from_result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    types::Opaque,
};
use core::marker::PhantomData;

core_object!(
    /// A queue pair (`struct ib_qp`) of a device of driver `T`, with the driver's
    /// data `T::Qp`.
    ///
    /// Lifetime: from the success of [`Operations::create_qp`] to that of
    /// [`Operations::destroy_qp`]; a QP found in a [`QpTable`] is valid for the RCU
    /// read-side section it was found in. Locking: none of its own (see the module
    /// documentation).
    Qp, ib_qp, Qp
);

c_enum! {
    /// The transport service of a QP (`enum ib_qp_type`). The ranges reserved for
    /// drivers' internal types are left out: the core never passes them.
    pub enum QpType: u32 {
        /// `IB_QPT_SMI`: QP0.
        Smi = bindings::ib_qp_type_IB_QPT_SMI,
        /// `IB_QPT_GSI`: QP1.
        Gsi = bindings::ib_qp_type_IB_QPT_GSI,
        /// `IB_QPT_RC`: reliable connected.
        Rc = bindings::ib_qp_type_IB_QPT_RC,
        /// `IB_QPT_UC`: unreliable connected.
        Uc = bindings::ib_qp_type_IB_QPT_UC,
        /// `IB_QPT_UD`: unreliable datagram.
        Ud = bindings::ib_qp_type_IB_QPT_UD,
        /// `IB_QPT_RAW_IPV6`.
        RawIpv6 = bindings::ib_qp_type_IB_QPT_RAW_IPV6,
        /// `IB_QPT_RAW_ETHERTYPE`.
        RawEthertype = bindings::ib_qp_type_IB_QPT_RAW_ETHERTYPE,
        /// `IB_QPT_RAW_PACKET`.
        RawPacket = bindings::ib_qp_type_IB_QPT_RAW_PACKET,
        /// `IB_QPT_XRC_INI`.
        XrcIni = bindings::ib_qp_type_IB_QPT_XRC_INI,
        /// `IB_QPT_XRC_TGT`.
        XrcTgt = bindings::ib_qp_type_IB_QPT_XRC_TGT,
        /// `IB_QPT_DRIVER`.
        Driver = bindings::ib_qp_type_IB_QPT_DRIVER,
    }
}

c_enum! {
    /// The state of a QP (`enum ib_qp_state`).
    #[derive(Default)]
    pub enum QpState: u32 {
        /// `IB_QPS_RESET`.
        #[default]
        Reset = bindings::ib_qp_state_IB_QPS_RESET,
        /// `IB_QPS_INIT`.
        Init = bindings::ib_qp_state_IB_QPS_INIT,
        /// `IB_QPS_RTR`: ready to receive.
        Rtr = bindings::ib_qp_state_IB_QPS_RTR,
        /// `IB_QPS_RTS`: ready to send.
        Rts = bindings::ib_qp_state_IB_QPS_RTS,
        /// `IB_QPS_SQD`: send queue drain.
        Sqd = bindings::ib_qp_state_IB_QPS_SQD,
        /// `IB_QPS_SQE`: send queue error.
        Sqe = bindings::ib_qp_state_IB_QPS_SQE,
        /// `IB_QPS_ERR`.
        Err = bindings::ib_qp_state_IB_QPS_ERR,
    }
}

c_flags! {
    /// Which attributes a `modify_qp` changes (`enum ib_qp_attr_mask`).
    ///
    /// The core passes the consumer's mask as is, unknown bits included: see
    /// [`QpAttrMask::unknown_bits`] and [`QpAttrMask::STANDARD`].
    pub struct QpAttrMask(u32);

    /// One attribute of [`QpAttrMask`].
    pub enum QpAttrField {
        /// `IB_QP_STATE`: [`QpAttr::qp_state`].
        State = bindings::ib_qp_attr_mask_IB_QP_STATE,
        /// `IB_QP_CUR_STATE`: [`QpAttr::cur_qp_state`].
        CurState = bindings::ib_qp_attr_mask_IB_QP_CUR_STATE,
        /// `IB_QP_EN_SQD_ASYNC_NOTIFY`.
        EnSqdAsyncNotify = bindings::ib_qp_attr_mask_IB_QP_EN_SQD_ASYNC_NOTIFY,
        /// `IB_QP_ACCESS_FLAGS`.
        AccessFlags = bindings::ib_qp_attr_mask_IB_QP_ACCESS_FLAGS,
        /// `IB_QP_PKEY_INDEX`.
        PkeyIndex = bindings::ib_qp_attr_mask_IB_QP_PKEY_INDEX,
        /// `IB_QP_PORT`.
        Port = bindings::ib_qp_attr_mask_IB_QP_PORT,
        /// `IB_QP_QKEY`.
        Qkey = bindings::ib_qp_attr_mask_IB_QP_QKEY,
        /// `IB_QP_AV`: the primary path, [`QpAttr::ah_attr`].
        Av = bindings::ib_qp_attr_mask_IB_QP_AV,
        /// `IB_QP_PATH_MTU`.
        PathMtu = bindings::ib_qp_attr_mask_IB_QP_PATH_MTU,
        /// `IB_QP_TIMEOUT`.
        Timeout = bindings::ib_qp_attr_mask_IB_QP_TIMEOUT,
        /// `IB_QP_RETRY_CNT`.
        RetryCnt = bindings::ib_qp_attr_mask_IB_QP_RETRY_CNT,
        /// `IB_QP_RNR_RETRY`.
        RnrRetry = bindings::ib_qp_attr_mask_IB_QP_RNR_RETRY,
        /// `IB_QP_RQ_PSN`.
        RqPsn = bindings::ib_qp_attr_mask_IB_QP_RQ_PSN,
        /// `IB_QP_MAX_QP_RD_ATOMIC`.
        MaxQpRdAtomic = bindings::ib_qp_attr_mask_IB_QP_MAX_QP_RD_ATOMIC,
        /// `IB_QP_ALT_PATH`.
        AltPath = bindings::ib_qp_attr_mask_IB_QP_ALT_PATH,
        /// `IB_QP_MIN_RNR_TIMER`.
        MinRnrTimer = bindings::ib_qp_attr_mask_IB_QP_MIN_RNR_TIMER,
        /// `IB_QP_SQ_PSN`.
        SqPsn = bindings::ib_qp_attr_mask_IB_QP_SQ_PSN,
        /// `IB_QP_MAX_DEST_RD_ATOMIC`.
        MaxDestRdAtomic = bindings::ib_qp_attr_mask_IB_QP_MAX_DEST_RD_ATOMIC,
        /// `IB_QP_PATH_MIG_STATE`.
        PathMigState = bindings::ib_qp_attr_mask_IB_QP_PATH_MIG_STATE,
        /// `IB_QP_CAP`.
        Cap = bindings::ib_qp_attr_mask_IB_QP_CAP,
        /// `IB_QP_DEST_QPN`.
        DestQpn = bindings::ib_qp_attr_mask_IB_QP_DEST_QPN,
        /// `IB_QP_RATE_LIMIT`.
        RateLimit = bindings::ib_qp_attr_mask_IB_QP_RATE_LIMIT,
    }
}

impl QpAttrMask {
    /// The attributes of the IBA specification (`IB_QP_ATTR_STANDARD_BITS`),
    /// which excludes the rate limit.
    pub const STANDARD: QpAttrMask =
        QpAttrMask::from_bits(bindings::ib_qp_attr_mask_IB_QP_ATTR_STANDARD_BITS);
}

/// The capacities of a QP (`struct ib_qp_cap`).
///
/// A plain value: no lifetime or locking of its own.
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

/// The creation attributes of a QP (`struct ib_qp_init_attr`), without the
/// objects, which [`Operations::create_qp`] gets as references.
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Debug)]
pub struct QpInitAttr {
    /// The transport service.
    pub qp_type: QpType,
    /// Requested capacities; the provider replaces them with the actual ones.
    pub cap: QpCap,
    /// Every send WR generates a completion (`IB_SIGNAL_ALL_WR`).
    pub sq_sig_all: bool,
    /// `IB_QP_CREATE_*`.
    pub create_flags: u32,
    /// Port (SMI and GSI QPs only).
    pub port_num: u32,
    /// An SRQ supplies the receives.
    pub has_srq: bool,
    /// An XRC domain or an RSS indirection table (`rwq_ind_tbl`) is given.
    pub has_xrc_or_rss: bool,
}

impl Default for QpInitAttr {
    fn default() -> Self {
        Self {
            qp_type: QpType::Rc,
            cap: QpCap::default(),
            sq_sig_all: false,
            create_flags: 0,
            port_num: 0,
            has_srq: false,
            has_xrc_or_rss: false,
        }
    }
}

/// The attributes of a QP (`struct ib_qp_attr`), without the alternate path.
///
/// In `modify_qp` only the fields the [`QpAttrMask`] names are meaningful; the
/// others hold their default.
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Default, Debug)]
pub struct QpAttr {
    /// The state.
    pub qp_state: QpState,
    /// The state the consumer believes the QP is in.
    pub cur_qp_state: QpState,
    /// `enum ib_mtu` of the path, as the consumer gave it (checked by the provider).
    pub path_mtu: u32,
    /// `enum ib_mig_state`.
    pub path_mig_state: u32,
    /// Q_Key (datagram QPs).
    pub qkey: u32,
    /// Expected receive PSN.
    pub rq_psn: u32,
    /// Next send PSN.
    pub sq_psn: u32,
    /// Remote QP number.
    pub dest_qp_num: u32,
    /// The remote access the QP allows.
    pub qp_access_flags: AccessFlags,
    /// Capacities.
    pub cap: QpCap,
    /// Primary path.
    pub ah_attr: AhAttr,
    /// P_Key index.
    pub pkey_index: u16,
    /// Raise [`EventType::SqDrained`] when SQD is reached.
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
    /// Copies the attributes `mask` names, converting the states; the primary path
    /// only with [`QpAttrField::Av`], since consumers leave it uninitialised otherwise.
    ///
    /// # Safety
    ///
    /// With [`QpAttrField::Av`] in `mask`, as [`AhAttr::from_raw`] for the embedded path.
    unsafe fn from_raw(a: &bindings::ib_qp_attr, mask: QpAttrMask) -> Result<Self> {
        Ok(Self {
            qp_state: if mask.contains(QpAttrField::State) {
                QpState::try_from(a.qp_state)?
            } else {
                QpState::default()
            },
            cur_qp_state: if mask.contains(QpAttrField::CurState) {
                QpState::try_from(a.cur_qp_state)?
            } else {
                QpState::default()
            },
            path_mtu: a.path_mtu,
            path_mig_state: a.path_mig_state,
            qkey: a.qkey,
            rq_psn: a.rq_psn,
            sq_psn: a.sq_psn,
            dest_qp_num: a.dest_qp_num,
            qp_access_flags: AccessFlags::from_bits(a.qp_access_flags as u32),
            cap: QpCap::from_raw(&a.cap),
            ah_attr: if mask.contains(QpAttrField::Av) {
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
        })
    }

    fn write_to(&self, a: &mut bindings::ib_qp_attr) {
        a.qp_state = self.qp_state.into();
        a.cur_qp_state = self.cur_qp_state.into();
        a.path_mtu = self.path_mtu;
        a.path_mig_state = self.path_mig_state;
        a.qkey = self.qkey;
        a.rq_psn = self.rq_psn;
        a.sq_psn = self.sq_psn;
        a.dest_qp_num = self.dest_qp_num;
        a.qp_access_flags = self.qp_access_flags.bits() as c_int;
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

/// The QP ops of a provider (a part of [`Driver`]).
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of a QP.
    type Qp: Send + Sync;

    /// `create_qp`: fills `attr.cap` with the actual capacities; returns the data
    /// and the QP number.
    ///
    /// XRC target QPs, which come without a PD and CQs, are refused with
    /// `EOPNOTSUPP` before this is called. A type `enum ib_qp_type` does not
    /// define is refused with `EOPNOTSUPP` too.
    fn create_qp(
        pd: &Pd<Self>,
        attr: &mut QpInitAttr,
        send_cq: &Cq<Self>,
        recv_cq: &Cq<Self>,
        srq: Option<&Srq<Self>>,
        udata: Option<&UData>,
    ) -> Result<(Self::Qp, u32)>;

    /// `modify_qp`. A state the mask names that `enum ib_qp_state` does not define
    /// is refused with `EINVAL` before this is called.
    fn modify_qp(qp: &Qp<Self>, attr: &QpAttr, mask: QpAttrMask, udata: Option<&UData>) -> Result;

    /// `destroy_qp`: on success the data is dropped and the QP freed.
    fn destroy_qp(qp: &Qp<Self>) -> Result;

    /// `post_send` of one WR from a kernel consumer; for a user QP, of one WR of
    /// the legacy `POST_SEND` command unless the provider implements
    /// [`Operations::post_send_user`].
    fn post_send(qp: &Qp<Self>, wr: &SendWr<'_, Self>) -> Result;

    /// `post_recv` of one WR from a kernel consumer (or, if the provider asked for
    /// the legacy `POST_RECV` command, from a user QP's).
    fn post_recv(qp: &Qp<Self>, wr: &RecvWr<'_>) -> Result;

    /// `query_qp`: fills `attr` and `init`'s capacities and signalling. Optional.
    fn query_qp(_qp: &Qp<Self>, _attr: &mut QpAttr, _init: &mut QpInitAttr) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `post_send` of a user QP whose send queue user space writes itself, in a
    /// buffer mapped from the provider: the uverbs `POST_SEND` command, which the
    /// provider enables with [`WriteCmd::PostSend`](super::uverbs::WriteCmd::PostSend),
    /// is then the doorbell that says new WQEs are in the ring. `has_wrs` tells
    /// whether the command carried WRs too; they are never decoded (rxe's
    /// user-space provider sends none, siw's refuses them). Optional: without it a
    /// user QP's WRs go to [`Operations::post_send`].
    fn post_send_user(_qp: &Qp<Self>, _has_wrs: bool) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The table the provider's data path finds QPs in by number, if it keeps one
    /// (a software provider's receive path does). The QP is added once complete,
    /// before `create_qp` returns, and removed first thing in `destroy_qp`, after
    /// which an RCU grace period passes before [`Operations::destroy_qp`] runs: the
    /// data path never finds a QP being torn down. Optional.
    fn qp_table(_dev: &Device<Self>) -> &QpTable<Self> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `fill_res_qp_entry`: the provider's own state of a QP, for
    /// `rdma resource show qp -dd`. Optional.
    fn fill_qp_details(_qp: &Qp<Self>, _out: &mut DriverDetails<'_>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `attach_mcast`: the datagram QP `qp` joins the multicast group `gid`. The
    /// core has checked that `gid` is a multicast GID and `qp` a UD QP. Optional,
    /// with [`Operations::detach_mcast`].
    fn attach_mcast(_qp: &Qp<Self>, _gid: &[u8; 16]) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `detach_mcast`: `qp` leaves the group `gid`. Optional, with
    /// [`Operations::attach_mcast`].
    fn detach_mcast(_qp: &Qp<Self>, _gid: &[u8; 16]) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

impl<T: Driver> Qp<T> {
    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        // SAFETY: Set at creation and never changed.
        unsafe { (*self.as_raw()).qp_num }
    }

    /// The transport service.
    pub fn qp_type(&self) -> QpType {
        // SAFETY: Set by the core before creation and never changed.
        let raw = unsafe { (*self.as_raw()).qp_type };
        // Creation refuses types that do not convert, so this never falls back.
        QpType::try_from(raw).unwrap_or(QpType::Driver)
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

    /// A handle for completions, reported back to kernel consumers in
    /// [`Wc::qp`](super::wr::Wc::qp).
    pub fn handle(&self) -> QpHandle {
        QpHandle(self.as_raw())
    }

    /// Raises an asynchronous QP event.
    pub fn raise(&self, event: EventType) {
        let qp = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event.into();
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

/// An opaque reference to a QP, for completions of kernel consumers
/// ([`Wc::qp`](super::wr::Wc::qp)). Never dereferenced by Rust; a plain value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct QpHandle(*mut bindings::ib_qp);

// SAFETY: Only stored and handed back to the core.
unsafe impl Send for QpHandle {}
// SAFETY: See `Send`.
unsafe impl Sync for QpHandle {}

impl QpHandle {
    /// No QP.
    pub const NONE: QpHandle = QpHandle(core::ptr::null_mut());

    pub(super) fn as_raw(self) -> *mut bindings::ib_qp {
        self.0
    }
}

/// Installs the QP ops of `T` in `ops`.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    assert!(
        T::HAS_ATTACH_MCAST == T::HAS_DETACH_MCAST,
        "qp::Operations: attach_mcast and detach_mcast go together"
    );
    ops.create_qp = Some(create_cb::<T>);
    ops.modify_qp = Some(modify_cb::<T>);
    ops.destroy_qp = Some(destroy_cb::<T>);
    ops.post_send = Some(post_send_cb::<T>);
    ops.post_recv = Some(post_recv_cb::<T>);
    if T::HAS_QUERY_QP {
        ops.query_qp = Some(query_cb::<T>);
    }
    if T::HAS_FILL_QP_DETAILS {
        ops.fill_res_qp_entry = Some(fill_details_cb::<T>);
    }
    if T::HAS_ATTACH_MCAST {
        ops.attach_mcast = Some(attach_mcast_cb::<T>);
        ops.detach_mcast = Some(detach_mcast_cb::<T>);
    }
    ops.size_ib_qp = core::mem::size_of::<ObjWith<bindings::ib_qp, T::Qp>>();
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`](super::Device::register)).
unsafe extern "C" fn create_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    init: *mut bindings::ib_qp_init_attr,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: The core set `device`, `pd`, the CQs and the SRQ (taking
        // references on them) before the call; `init` is valid.
        let i = unsafe { &mut *init };
        // XRC target QPs come without a PD or CQs; they are not supported.
        // SAFETY: `qp` is the core's object.
        if i.send_cq.is_null() || i.recv_cq.is_null() || unsafe { (*qp).pd }.is_null() {
            return Err(EOPNOTSUPP);
        }
        let mut a = QpInitAttr {
            qp_type: QpType::try_from(i.qp_type).map_err(|_| EOPNOTSUPP)?,
            cap: QpCap::from_raw(&i.cap),
            sq_sig_all: i.sq_sig_type == bindings::ib_sig_type_IB_SIGNAL_ALL_WR,
            create_flags: i.create_flags,
            port_num: i.port_num,
            has_srq: !i.srq.is_null(),
            has_xrc_or_rss: !i.xrcd.is_null() || !i.rwq_ind_tbl.is_null(),
        };
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
        if T::HAS_QP_TABLE {
            // SAFETY: Created: the data is initialised.
            let q = unsafe { Qp::<T>::from_raw(qp) };
            if let Err(e) = T::qp_table(q.device()).insert(q) {
                let _ = T::destroy_qp(q);
                // SAFETY: Destroyed: the core frees the memory after the error.
                unsafe { ObjWith::<bindings::ib_qp, T::Qp>::drop_data(qp) };
                return Err(e);
            }
        }
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for a QP [`create_cb`] created; `attr` is valid,
/// with a resolved `sgid_attr` when the mask has the AV; `udata` is null or valid.
unsafe extern "C" fn modify_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    attr: *mut bindings::ib_qp_attr,
    mask: c_int,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        let mask = QpAttrMask::from_bits(mask as u32);
        // SAFETY: Per the function's contract.
        let (q, a, u) = unsafe {
            (
                Qp::<T>::from_raw(qp),
                QpAttr::from_raw(&*attr, mask)?,
                UData::from_raw(udata),
            )
        };
        T::modify_qp(q, &a, mask, u.as_ref())?;
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for a QP [`create_cb`] created, during a restrack
/// dump that holds the QP's entry.
unsafe extern "C" fn fill_details_cb<T: Driver>(
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
/// Called only by the RDMA core for a QP [`create_cb`] created, with valid,
/// caller-owned out-structs.
unsafe extern "C" fn query_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    attr: *mut bindings::ib_qp_attr,
    _mask: c_int,
    init: *mut bindings::ib_qp_init_attr,
) -> c_int {
    from_result(|| {
        // SAFETY: A created QP.
        let q = unsafe { Qp::<T>::from_raw(qp) };
        let mut a = QpAttr::default();
        let mut i = QpInitAttr {
            qp_type: q.qp_type(),
            ..QpInitAttr::default()
        };
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
/// Called only by the RDMA core, once, for a QP [`create_cb`] created.
unsafe extern "C" fn destroy_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    _udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: A created QP.
        let q = unsafe { Qp::<T>::from_raw(qp) };
        if T::HAS_QP_TABLE {
            T::qp_table(q.device()).remove(q);
        }
        if let Err(e) = T::destroy_qp(q) {
            if T::HAS_QP_TABLE {
                // The QP lives on; a failure here leaves it unreachable from the
                // data path, as it was.
                let _ = T::qp_table(q.device()).insert(q);
            }
            return Err(e);
        }
        // SAFETY: Destroyed: the core frees the memory next.
        unsafe { ObjWith::<bindings::ib_qp, T::Qp>::drop_data(qp) };
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for a QP [`create_cb`] created, with a valid list
/// of WRs in the containers their opcodes imply, and `bad` null or valid.
unsafe extern "C" fn post_send_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    wr: *const bindings::ib_send_wr,
    bad: *mut *const bindings::ib_send_wr,
) -> c_int {
    // SAFETY: A created QP.
    let q = unsafe { Qp::<T>::from_raw(qp) };
    if T::HAS_POST_SEND_USER && q.is_user() {
        // WRs passed in the command are not decoded: the core builds them with
        // containers chosen by the user's opcode.
        return from_result(|| T::post_send_user(q, !wr.is_null()).map(|()| 0));
    }
    let ud = matches!(q.qp_type(), QpType::Ud | QpType::Gsi);
    // SAFETY: Per the function's contract.
    unsafe { wr::walk_send(q, wr, bad, ud, |w| T::post_send(q, w)) }
}

/// # Safety
///
/// Called only by the RDMA core for a QP [`create_cb`] created, with a valid list
/// of WRs, and `bad` null or valid.
unsafe extern "C" fn post_recv_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    wr: *const bindings::ib_recv_wr,
    bad: *mut *const bindings::ib_recv_wr,
) -> c_int {
    // SAFETY: A created QP.
    let q = unsafe { Qp::<T>::from_raw(qp) };
    // SAFETY: Per the function's contract.
    unsafe { wr::walk_recv(wr, bad, |w| T::post_recv(q, w)) }
}

/// # Safety
///
/// Called only by the RDMA core for a QP [`create_cb`] created, with a GID valid
/// for the call.
unsafe extern "C" fn attach_mcast_cb<T: Driver>(
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
/// As [`attach_mcast_cb`].
unsafe extern "C" fn detach_mcast_cb<T: Driver>(
    qp: *mut bindings::ib_qp,
    gid: *mut bindings::ib_gid,
    _lid: u16,
) -> c_int {
    from_result(|| {
        // SAFETY: As in `attach_mcast_cb`.
        let (q, raw) = unsafe { (Qp::<T>::from_raw(qp), (*gid).raw) };
        T::detach_mcast(q, &raw)?;
        Ok(0)
    })
}
