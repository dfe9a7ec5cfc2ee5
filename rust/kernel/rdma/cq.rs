// SPDX-License-Identifier: GPL-2.0

//! Completion queues (`struct ib_cq`): the `create_cq`, `destroy_cq`, `poll_cq`,
//! `req_notify_cq`, `resize_user_cq` and `peek_cq` ops of `struct ib_device_ops`.
//!
//! A provider implements [`Operations`] as a part of its [`Driver`]. The core serialises nothing
//! between the data-path ops: kernel consumers may poll and re-arm a CQ from any
//! context, including hard interrupts, concurrently with completions being added,
//! so the provider locks its CQ itself (rxe and siw take an IRQ-safe spinlock).
//! `destroy` is called once, after the core made sure the CQ has no QP left.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    device::{Device, Driver},
    event::EventType,
    object::ObjWith,
    uverbs::UData,
    wr::Wc,
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
    /// A completion queue (`struct ib_cq`) of a device of driver `T`, with the
    /// driver's data `T::Cq`.
    ///
    /// Lifetime: from the success of [`Operations::create_cq`] to that of
    /// [`Operations::destroy_cq`]; a `&Cq<T>` is handed to the driver only within the
    /// core's calls, and by a [`Qp`](super::qp::Qp), which holds a use count on its
    /// CQs. Locking: none of its own (see the module documentation).
    Cq, ib_cq, Cq
);

c_flags! {
    /// How `req_notify_cq` arms a CQ (`enum ib_cq_notify_flags`).
    ///
    /// Exactly one of [`CqNotifyFlag::Solicited`] and [`CqNotifyFlag::NextComp`]
    /// is set; see [`CqNotifyFlags::solicited_only`].
    pub struct CqNotifyFlags(u32);

    /// One flag of [`CqNotifyFlags`].
    pub enum CqNotifyFlag {
        /// `IB_CQ_SOLICITED`: the next solicited (or failed) completion.
        Solicited = bindings::ib_cq_notify_flags_IB_CQ_SOLICITED,
        /// `IB_CQ_NEXT_COMP`: the next completion.
        NextComp = bindings::ib_cq_notify_flags_IB_CQ_NEXT_COMP,
        /// `IB_CQ_REPORT_MISSED_EVENTS`: report whether completions arrived
        /// before arming.
        ReportMissedEvents = bindings::ib_cq_notify_flags_IB_CQ_REPORT_MISSED_EVENTS,
    }
}

impl CqNotifyFlags {
    /// Whether only solicited completions are asked for (the
    /// `IB_CQ_SOLICITED_MASK` field is `IB_CQ_SOLICITED`).
    pub fn solicited_only(self) -> bool {
        self.bits() & bindings::ib_cq_notify_flags_IB_CQ_SOLICITED_MASK
            == bindings::ib_cq_notify_flags_IB_CQ_SOLICITED
    }
}

/// The creation attributes of a CQ (`struct ib_cq_init_attr`).
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Default, Debug)]
pub struct CqInitAttr {
    /// Requested minimum number of entries.
    pub cqe: u32,
    /// Completion vector.
    pub comp_vector: u32,
    /// `IB_UVERBS_CQ_FLAGS_*`.
    pub flags: u32,
}

/// The CQ ops of a provider (a part of [`Driver`]).
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of a CQ.
    type Cq: Send + Sync;

    /// `create_cq`: returns the data and the actual number of entries.
    fn create_cq(
        dev: &Device<Self>,
        attr: &CqInitAttr,
        udata: Option<&UData>,
    ) -> Result<(Self::Cq, u32)>;

    /// `destroy_cq`: on success the data is dropped and the CQ freed.
    fn destroy_cq(cq: &Cq<Self>) -> Result;

    /// `poll_cq` from a kernel consumer: fills the start of `wc`, returns how many.
    fn poll_cq(cq: &Cq<Self>, wc: &mut [Wc]) -> usize;

    /// `req_notify_cq`. Returns whether completions may have been missed (only
    /// asked for with [`CqNotifyFlag::ReportMissedEvents`]).
    fn req_notify_cq(cq: &Cq<Self>, flags: CqNotifyFlags) -> Result<bool>;

    /// `resize_user_cq`: returns the new number of entries. Optional.
    fn resize_cq(_cq: &Cq<Self>, _cqe: u32, _udata: Option<&UData>) -> Result<u32> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `peek_cq`: how many completions, up to `n`, are ready. Optional.
    fn peek_cq(_cq: &Cq<Self>, _n: usize) -> usize {
        build_error!(VTABLE_DEFAULT_ERROR)
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

    /// Whether a user CQ was created with a completion channel, the only way its
    /// consumer can ask for completion events (uverbs sets the CQ's context to the
    /// channel's event queue, or to NULL).
    pub fn has_completion_channel(&self) -> bool {
        // SAFETY: `cq_context` is set before the driver's create op and never
        // changes for a user CQ.
        self.is_user() && !unsafe { (*self.as_raw()).cq_context }.is_null()
    }

    /// Raises an asynchronous CQ event (usually [`EventType::CqErr`]).
    pub fn raise(&self, event: EventType) {
        let cq = self.as_raw();
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.event = event.into();
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

/// Installs the CQ ops of `T` in `ops`.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    ops.create_cq = Some(create_cb::<T>);
    ops.destroy_cq = Some(destroy_cb::<T>);
    ops.poll_cq = Some(poll_cb::<T>);
    ops.req_notify_cq = Some(req_notify_cb::<T>);
    if T::HAS_RESIZE_CQ {
        ops.resize_user_cq = Some(resize_cb::<T>);
    }
    if T::HAS_PEEK_CQ {
        ops.peek_cq = Some(peek_cb::<T>);
    }
    ops.size_ib_cq = core::mem::size_of::<ObjWith<bindings::ib_cq, T::Cq>>();
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`]).
unsafe extern "C" fn create_cb<T: Driver>(
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
/// Called only by the RDMA core for a CQ [`create_cb`] created, with pointers
/// valid for the call.
unsafe extern "C" fn resize_cb<T: Driver>(
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
/// Called only by the RDMA core, once, for a CQ [`create_cb`] created.
unsafe extern "C" fn destroy_cb<T: Driver>(
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
/// Called only by the RDMA core for a CQ [`create_cb`] created, with `wc` valid
/// for `num` entries.
unsafe extern "C" fn poll_cb<T: Driver>(
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
/// Called only by the RDMA core for a CQ [`create_cb`] created.
unsafe extern "C" fn peek_cb<T: Driver>(cq: *mut bindings::ib_cq, n: c_int) -> c_int {
    // SAFETY: A created CQ.
    let c = unsafe { Cq::<T>::from_raw(cq) };
    T::peek_cq(c, usize::try_from(n).unwrap_or(0)) as c_int
}

/// # Safety
///
/// Called only by the RDMA core for a CQ [`create_cb`] created.
unsafe extern "C" fn req_notify_cb<T: Driver>(cq: *mut bindings::ib_cq, flags: u32) -> c_int {
    from_result(|| {
        // SAFETY: A created CQ.
        let c = unsafe { Cq::<T>::from_raw(cq) };
        let missed = T::req_notify_cq(c, CqNotifyFlags::from_bits(flags))?;
        Ok(c_int::from(missed))
    })
}
