// SPDX-License-Identifier: GPL-2.0

//! Memory windows (`struct ib_mw`): the `alloc_mw` and `dealloc_mw` ops of
//! `struct ib_device_ops`. Binding happens on the data path (`IB_WR_BIND_MW`, or a
//! provider's user ring), so it is the provider's business.
//!
//! MWs are optional as a whole: a provider implements both ops or neither.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{device::Driver, object::ObjWith, pd::Pd, uverbs::UData};
use crate::{
    bindings,
    error::{from_result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    types::Opaque,
};
use core::marker::PhantomData;

core_object!(
    /// A memory window (`struct ib_mw`) of a device of driver `T`, with the
    /// driver's data `T::Mw`.
    ///
    /// Lifetime: from the success of [`Operations::alloc_mw`] to that of
    /// [`Operations::dealloc_mw`]. Locking: none of its own.
    Mw, ib_mw, Mw
);

c_enum! {
    /// The kind of a memory window (`enum ib_mw_type`).
    pub enum MwType: u32 {
        /// `IB_MW_TYPE_1`: bound by a verb, through the PD.
        Type1 = bindings::ib_mw_type_IB_MW_TYPE_1,
        /// `IB_MW_TYPE_2`: bound by a work request, to a QP.
        Type2 = bindings::ib_mw_type_IB_MW_TYPE_2,
    }
}

/// The MW ops of a provider (a part of [`Driver`]): both or none (then
/// `type Mw = ();`).
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of an MW.
    type Mw: Send + Sync;

    /// `alloc_mw`: returns the data and the rkey.
    fn alloc_mw(
        _pd: &Pd<Self>,
        _mw_type: MwType,
        _udata: Option<&UData>,
    ) -> Result<(Self::Mw, u32)> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `dealloc_mw`: on success the data is dropped and the MW freed.
    fn dealloc_mw(_mw: &Mw<Self>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

impl<T: Driver> Mw<T> {
    /// The kind of the window.
    pub fn mw_type(&self) -> MwType {
        // SAFETY: Set by the core before creation and never changed.
        let raw = unsafe { (*self.as_raw()).type_ };
        // `alloc_cb` refuses types that do not convert, so this never falls back.
        MwType::try_from(raw).unwrap_or(MwType::Type1)
    }

    /// The window's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the MW exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }
}

/// Installs the MW ops of `T` in `ops`, if it has them.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    assert!(
        T::HAS_ALLOC_MW == T::HAS_DEALLOC_MW,
        "mw::Operations: alloc and dealloc go together"
    );
    if T::HAS_ALLOC_MW {
        ops.alloc_mw = Some(alloc_cb::<T>);
        ops.dealloc_mw = Some(dealloc_cb::<T>);
        ops.size_ib_mw = core::mem::size_of::<ObjWith<bindings::ib_mw, T::Mw>>();
    }
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`](super::Device::register)).
unsafe extern "C" fn alloc_cb<T: Driver>(
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
        let (data, rkey) = T::alloc_mw(pd, MwType::try_from(ty)?, u.as_ref())?;
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
/// Called only by the RDMA core, once, for an MW [`alloc_cb`] allocated.
unsafe extern "C" fn dealloc_cb<T: Driver>(mw: *mut bindings::ib_mw) -> c_int {
    from_result(|| {
        // SAFETY: An allocated MW.
        T::dealloc_mw(unsafe { Mw::<T>::from_raw(mw) })?;
        // SAFETY: Deallocated: the core frees the memory next.
        unsafe { ObjWith::<bindings::ib_mw, T::Mw>::drop_data(mw) };
        Ok(0)
    })
}
