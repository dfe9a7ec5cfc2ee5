// SPDX-License-Identifier: GPL-2.0

//! Shared receive queues (`struct ib_srq`): the `create_srq`, `modify_srq`,
//! `query_srq`, `destroy_srq` and `post_srq_recv` ops of `struct ib_device_ops`.
//!
//! SRQs are optional as a whole: a provider implements either all of
//! [`Operations`] or none of it (with `type Srq = ();`), which is checked when the
//! ops table is built. As for QPs, `post_srq_recv` may run from any context,
//! concurrently with `modify_srq`; the provider locks its SRQ itself.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    device::Driver,
    event::EventType,
    object::ObjWith,
    pd::Pd,
    uverbs::UData,
    wr::{self, RecvWr},
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
    /// A shared receive queue (`struct ib_srq`) of a device of driver `T`, with the
    /// driver's data `T::Srq`.
    ///
    /// Lifetime: from the success of [`Operations::create_srq`] to that of
    /// [`Operations::destroy_srq`]; a [`Qp`](super::qp::Qp) attached to it holds a use
    /// count, so it outlives its QPs. Locking: none of its own.
    Srq, ib_srq, Srq
);

c_enum! {
    /// The kind of an SRQ (`enum ib_srq_type`).
    pub enum SrqType: u32 {
        /// `IB_SRQT_BASIC`.
        Basic = bindings::ib_srq_type_IB_SRQT_BASIC,
        /// `IB_SRQT_XRC`.
        Xrc = bindings::ib_srq_type_IB_SRQT_XRC,
        /// `IB_SRQT_TM`: tag matching.
        Tm = bindings::ib_srq_type_IB_SRQT_TM,
    }
}

c_flags! {
    /// Which attributes a `modify_srq` changes (`enum ib_srq_attr_mask`), unknown
    /// bits included.
    pub struct SrqAttrMask(u32);

    /// One attribute of [`SrqAttrMask`].
    pub enum SrqAttrField {
        /// `IB_SRQ_MAX_WR`: resize to [`SrqAttr::max_wr`].
        MaxWr = bindings::ib_srq_attr_mask_IB_SRQ_MAX_WR,
        /// `IB_SRQ_LIMIT`: arm the limit event at [`SrqAttr::srq_limit`].
        Limit = bindings::ib_srq_attr_mask_IB_SRQ_LIMIT,
    }
}

/// The attributes of an SRQ (`struct ib_srq_attr`).
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Default, Debug)]
pub struct SrqAttr {
    /// Depth.
    pub max_wr: u32,
    /// SGEs per WR.
    pub max_sge: u32,
    /// Limit below which [`EventType::SrqLimitReached`] fires (0: disarmed).
    pub srq_limit: u32,
}

/// The creation attributes of an SRQ (`struct ib_srq_init_attr`).
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Debug)]
pub struct SrqInitAttr {
    /// Requested attributes; the provider replaces them with the actual ones.
    pub attr: SrqAttr,
    /// The kind. A kind `enum ib_srq_type` does not define is refused with
    /// `EOPNOTSUPP` before the provider is called.
    pub srq_type: SrqType,
}

/// The SRQ ops of a provider (a part of [`Driver`]): all of them or none. A
/// provider without SRQs writes `type Srq = ();` and no op.
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of an SRQ.
    type Srq: Send + Sync;

    /// `create_srq`: fills `attr.attr` with the actual capacities.
    fn create_srq(
        _pd: &Pd<Self>,
        _attr: &mut SrqInitAttr,
        _udata: Option<&UData>,
    ) -> Result<Self::Srq> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `modify_srq`.
    fn modify_srq(
        _srq: &Srq<Self>,
        _attr: &SrqAttr,
        _mask: SrqAttrMask,
        _udata: Option<&UData>,
    ) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `query_srq`.
    fn query_srq(_srq: &Srq<Self>) -> Result<SrqAttr> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `destroy_srq`: on success the data is dropped and the SRQ freed.
    fn destroy_srq(_srq: &Srq<Self>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `post_srq_recv` of one WR from a kernel consumer (or, if the provider asked
    /// for the legacy `POST_SRQ_RECV` command, from a user SRQ's).
    fn post_srq_recv(_srq: &Srq<Self>, _wr: &RecvWr<'_>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

impl<T: Driver> Srq<T> {
    /// The SRQ's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the SRQ exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }

    /// Whether a user process owns the SRQ.
    pub fn is_user(&self) -> bool {
        // SAFETY: Set by the core before creation and never changed.
        !unsafe { (*self.as_raw()).uobject }.is_null()
    }

    /// Raises an asynchronous SRQ event (usually [`EventType::SrqLimitReached`]).
    pub fn raise(&self, event: EventType) {
        let srq = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event.into();
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

/// Installs the SRQ ops of `T` in `ops`, if it has them.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    let all = T::HAS_CREATE_SRQ
        && T::HAS_MODIFY_SRQ
        && T::HAS_QUERY_SRQ
        && T::HAS_DESTROY_SRQ
        && T::HAS_POST_SRQ_RECV;
    let none = !T::HAS_CREATE_SRQ
        && !T::HAS_MODIFY_SRQ
        && !T::HAS_QUERY_SRQ
        && !T::HAS_DESTROY_SRQ
        && !T::HAS_POST_SRQ_RECV;
    assert!(all || none, "srq::Operations: implement all of it or none");
    if all {
        ops.create_srq = Some(create_cb::<T>);
        ops.modify_srq = Some(modify_cb::<T>);
        ops.query_srq = Some(query_cb::<T>);
        ops.destroy_srq = Some(destroy_cb::<T>);
        ops.post_srq_recv = Some(post_recv_cb::<T>);
        ops.size_ib_srq = core::mem::size_of::<ObjWith<bindings::ib_srq, T::Srq>>();
    }
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`](super::Device::register)).
unsafe extern "C" fn create_cb<T: Driver>(
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
            srq_type: SrqType::try_from(i.srq_type).map_err(|_| EOPNOTSUPP)?,
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
/// Called only by the RDMA core for an SRQ [`create_cb`] created, with a valid
/// `attr` and `udata` null or valid.
unsafe extern "C" fn modify_cb<T: Driver>(
    srq: *mut bindings::ib_srq,
    attr: *mut bindings::ib_srq_attr,
    mask: u32,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: Per the function's contract.
        let (s, a, u) = unsafe { (Srq::<T>::from_raw(srq), &*attr, UData::from_raw(udata)) };
        let a = SrqAttr {
            max_wr: a.max_wr,
            max_sge: a.max_sge,
            srq_limit: a.srq_limit,
        };
        T::modify_srq(s, &a, SrqAttrMask::from_bits(mask), u.as_ref())?;
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for an SRQ [`create_cb`] created, with a valid
/// out-struct.
unsafe extern "C" fn query_cb<T: Driver>(
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
/// Called only by the RDMA core, once, for an SRQ [`create_cb`] created.
unsafe extern "C" fn destroy_cb<T: Driver>(
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
/// Called only by the RDMA core for an SRQ [`create_cb`] created, with a valid
/// list of WRs, and `bad` null or valid.
unsafe extern "C" fn post_recv_cb<T: Driver>(
    srq: *mut bindings::ib_srq,
    wr: *const bindings::ib_recv_wr,
    bad: *mut *const bindings::ib_recv_wr,
) -> c_int {
    // SAFETY: A created SRQ.
    let s = unsafe { Srq::<T>::from_raw(srq) };
    // SAFETY: Per the function's contract.
    unsafe { wr::walk_recv(wr, bad, |w| T::post_srq_recv(s, w)) }
}
