// SPDX-License-Identifier: GPL-2.0

//! Protection domains (`struct ib_pd`): the `alloc_pd` and `dealloc_pd` ops of
//! `struct ib_device_ops`.
//!
//! A PD has no ops of its own after allocation: it is what MRs, MWs, AHs, SRQs and
//! QPs are checked against for a common owner. `dealloc_pd` drops the provider's
//! data; the core calls it once, after every object of the PD is gone.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    device::{Device, Driver},
    object::ObjWith,
    uverbs::UData,
};
use crate::{bindings, error::from_result, ffi::c_int, prelude::*, types::Opaque};
use core::marker::PhantomData;

core_object!(
    /// A protection domain (`struct ib_pd`) of a device of driver `T`, with the
    /// driver's data `T::Pd`.
    ///
    /// Lifetime: from the success of [`Operations::alloc_pd`] until `dealloc_pd`; the
    /// core holds a use count for every object created in it, so a PD outlives
    /// them. Locking: none of its own.
    Pd, ib_pd, Pd
);

/// The PD op of a provider (a part of [`Driver`]).
pub trait Operations: Sized {
    /// The provider's data of a PD.
    type Pd: Send + Sync;

    /// `alloc_pd`.
    fn alloc_pd(dev: &Device<Self>, udata: Option<&UData>) -> Result<Self::Pd>;
}

impl<T: Driver> Pd<T> {
    /// Whether this PD is the same object as `other`.
    pub fn is(&self, other: &Pd<T>) -> bool {
        core::ptr::eq(self, other)
    }
}

/// Installs the PD ops of `T` in `ops`.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    ops.alloc_pd = Some(alloc_cb::<T>);
    ops.dealloc_pd = Some(dealloc_cb::<T>);
    ops.size_ib_pd = core::mem::size_of::<ObjWith<bindings::ib_pd, T::Pd>>();
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`]).
unsafe extern "C" fn alloc_cb<T: Driver>(
    pd: *mut bindings::ib_pd,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: The core allocated `pd` at `size_ib_pd` and set `device`.
        let dev = unsafe { Device::<T>::from_raw((*pd).device) };
        // SAFETY: `udata` is null or valid for the call.
        let v = T::alloc_pd(dev, unsafe { UData::from_raw(udata) }.as_ref())?;
        // SAFETY: `pd` is an `ObjWith<ib_pd, _>` whose data slot is unused.
        unsafe { ObjWith::<bindings::ib_pd, T::Pd>::init(pd, v) };
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core, once, for a PD [`alloc_cb`] allocated.
unsafe extern "C" fn dealloc_cb<T: Driver>(
    pd: *mut bindings::ib_pd,
    _udata: *mut bindings::ib_udata,
) -> c_int {
    // SAFETY: Called once for a PD `alloc_cb` initialised.
    unsafe { ObjWith::<bindings::ib_pd, T::Pd>::drop_data(pd) };
    0
}
