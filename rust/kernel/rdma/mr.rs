// SPDX-License-Identifier: GPL-2.0

//! Memory regions (`struct ib_mr`): the `get_dma_mr`, `reg_user_mr`, `dereg_mr`,
//! `alloc_mr` and `map_mr_sg` ops of `struct ib_device_ops`, and the access flags
//! MRs, MWs and QPs grant (`enum ib_access_flags`).
//!
//! Unlike the other objects, MRs are allocated by the provider, here: the
//! trampolines allocate the `ib_mr` with the data after it before the provider
//! registers the MR, and free it after a successful `dereg`. Fast registration
//! ([`Operations::alloc_mr`] and the `map_*` ops, for `IB_WR_REG_MR`) is optional.
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
    /// A memory region (`struct ib_mr`) of a device of driver `T`, with the driver's
    /// data `T::Mr`.
    ///
    /// Lifetime: from the success of its registration op to that of
    /// [`Operations::dereg_mr`]; a REG_MR send WR borrows it for the post. Locking:
    /// none of its own; `map_mr_sg` runs in the consumer's context and the core
    /// does not serialise it against posts naming the MR.
    Mr, ib_mr, Mr
);

c_flags! {
    /// The access a memory region, window or QP grants (`enum ib_access_flags`).
    /// User space passes the same values ([`uverbs::AccessFlags`](super::uverbs::AccessFlags)).
    ///
    /// The consumer's value is kept as is, unknown bits included (the core leaves
    /// the `IB_ACCESS_OPTIONAL` range to providers): see
    /// [`AccessFlags::unknown_bits`].
    pub struct AccessFlags(u32);

    /// One flag of [`AccessFlags`].
    pub enum AccessFlag {
        /// `IB_ACCESS_LOCAL_WRITE`.
        LocalWrite = bindings::ib_access_flags_IB_ACCESS_LOCAL_WRITE,
        /// `IB_ACCESS_REMOTE_WRITE`.
        RemoteWrite = bindings::ib_access_flags_IB_ACCESS_REMOTE_WRITE,
        /// `IB_ACCESS_REMOTE_READ`.
        RemoteRead = bindings::ib_access_flags_IB_ACCESS_REMOTE_READ,
        /// `IB_ACCESS_REMOTE_ATOMIC`.
        RemoteAtomic = bindings::ib_access_flags_IB_ACCESS_REMOTE_ATOMIC,
        /// `IB_ACCESS_MW_BIND`.
        MwBind = bindings::ib_access_flags_IB_ACCESS_MW_BIND,
        /// `IB_ZERO_BASED`.
        ZeroBased = bindings::ib_access_flags_IB_ZERO_BASED,
        /// `IB_ACCESS_ON_DEMAND`.
        OnDemand = bindings::ib_access_flags_IB_ACCESS_ON_DEMAND,
        /// `IB_ACCESS_HUGETLB`.
        Hugetlb = bindings::ib_access_flags_IB_ACCESS_HUGETLB,
        /// `IB_ACCESS_RELAXED_ORDERING`.
        RelaxedOrdering = bindings::ib_access_flags_IB_ACCESS_RELAXED_ORDERING,
        /// `IB_ACCESS_FLUSH_GLOBAL`.
        FlushGlobal = bindings::ib_access_flags_IB_ACCESS_FLUSH_GLOBAL,
        /// `IB_ACCESS_FLUSH_PERSISTENT`.
        FlushPersistent = bindings::ib_access_flags_IB_ACCESS_FLUSH_PERSISTENT,
    }
}

c_enum! {
    /// The kind of an MR `alloc_mr` makes (`enum ib_mr_type`).
    pub enum MrType: u32 {
        /// `IB_MR_TYPE_MEM_REG`: for fast registration.
        MemReg = bindings::ib_mr_type_IB_MR_TYPE_MEM_REG,
        /// `IB_MR_TYPE_SG_GAPS`.
        SgGaps = bindings::ib_mr_type_IB_MR_TYPE_SG_GAPS,
        /// `IB_MR_TYPE_DM`.
        Dm = bindings::ib_mr_type_IB_MR_TYPE_DM,
        /// `IB_MR_TYPE_USER`.
        User = bindings::ib_mr_type_IB_MR_TYPE_USER,
        /// `IB_MR_TYPE_DMA`.
        Dma = bindings::ib_mr_type_IB_MR_TYPE_DMA,
        /// `IB_MR_TYPE_INTEGRITY`.
        Integrity = bindings::ib_mr_type_IB_MR_TYPE_INTEGRITY,
    }
}

/// The key pair of an MR, chosen by the provider.
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Default, Debug)]
pub struct MrKeys {
    /// Local key.
    pub lkey: u32,
    /// Remote key.
    pub rkey: u32,
}

/// The MR ops of a provider (a part of [`Driver`]).
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of an MR.
    type Mr: Send + Sync;

    /// `get_dma_mr`: an MR covering all kernel memory, for kernel consumers.
    fn get_dma_mr(pd: &Pd<Self>, access: AccessFlags) -> Result<(Self::Mr, MrKeys)>;

    /// `reg_user_mr`: `length` bytes of the calling process at `start`, seen at
    /// `iova` (see [`Umem`](super::umem::Umem)).
    fn reg_user_mr(
        pd: &Pd<Self>,
        start: u64,
        length: u64,
        iova: u64,
        access: AccessFlags,
        udata: Option<&UData>,
    ) -> Result<(Self::Mr, MrKeys)>;

    /// `dereg_mr`: on success the data is dropped and the MR freed.
    fn dereg_mr(mr: &Mr<Self>) -> Result;

    /// `alloc_mr`: an MR for fast registration of up to `max_num_sg` pages.
    /// Optional; it needs the `map_*` ops.
    fn alloc_mr(_pd: &Pd<Self>, _mr_type: MrType, _max_num_sg: u32) -> Result<(Self::Mr, MrKeys)> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `map_mr_sg` starts: forget the previous page list.
    fn mr_map_begin(_mr: &Mr<Self>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `map_mr_sg`: the next page of the list (`ib_sg_to_pages`'s `set_page`).
    fn mr_set_page(_mr: &Mr<Self>, _addr: u64) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `map_mr_sg` ends: the mapping's IOVA, length and page size.
    fn mr_map_end(_mr: &Mr<Self>, _iova: u64, _length: u64, _page_size: u32) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
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

/// Installs the MR ops of `T` in `ops`.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    let map = T::HAS_MR_MAP_BEGIN && T::HAS_MR_SET_PAGE && T::HAS_MR_MAP_END;
    assert!(
        map == T::HAS_ALLOC_MR
            && (map || !(T::HAS_MR_MAP_BEGIN || T::HAS_MR_SET_PAGE || T::HAS_MR_MAP_END)),
        "mr::Operations: alloc and the map_* ops go together"
    );
    ops.get_dma_mr = Some(get_dma_cb::<T>);
    ops.reg_user_mr = Some(reg_user_cb::<T>);
    ops.dereg_mr = Some(dereg_cb::<T>);
    if map {
        ops.alloc_mr = Some(alloc_cb::<T>);
        ops.map_mr_sg = Some(map_sg_cb::<T>);
    }
}

/// Allocates the MR, then lets `make` register it. The allocation comes first so
/// that a registration never succeeds in the driver for an MR the core is told
/// failed.
fn new_mr<T: Driver>(make: impl FnOnce() -> Result<(T::Mr, MrKeys)>) -> *mut bindings::ib_mr {
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
/// Called only by the RDMA core for a PD of a device of `T`
/// ([`Device::register`](super::Device::register)).
unsafe extern "C" fn get_dma_cb<T: Driver>(
    pd: *mut bindings::ib_pd,
    access: c_int,
) -> *mut bindings::ib_mr {
    // SAFETY: A created PD.
    let p = unsafe { Pd::<T>::from_raw(pd) };
    new_mr::<T>(|| T::get_dma_mr(p, AccessFlags::from_bits(access as u32)))
}

/// # Safety
///
/// Called only by the RDMA core for a PD of a device of `T`, with `udata` null or
/// valid.
unsafe extern "C" fn reg_user_cb<T: Driver>(
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
    let access = AccessFlags::from_bits(access as u32);
    new_mr::<T>(|| T::reg_user_mr(p, start, length, iova, access, u.as_ref()))
}

/// # Safety
///
/// Called only by the RDMA core for a PD of a device of `T`.
unsafe extern "C" fn alloc_cb<T: Driver>(
    pd: *mut bindings::ib_pd,
    mr_type: u32,
    max_num_sg: u32,
) -> *mut bindings::ib_mr {
    // SAFETY: A created PD.
    let p = unsafe { Pd::<T>::from_raw(pd) };
    let mr_type = match MrType::try_from(mr_type) {
        Ok(t) => t,
        Err(e) => return e.to_ptr(),
    };
    new_mr::<T>(|| T::alloc_mr(p, mr_type, max_num_sg))
}

/// # Safety
///
/// Called only by `ib_sg_to_pages` from [`map_sg_cb`], for the MR being mapped.
unsafe extern "C" fn set_page_cb<T: Driver>(mr: *mut bindings::ib_mr, addr: u64) -> c_int {
    from_result(|| {
        // SAFETY: The MR being mapped, created by this driver.
        T::mr_set_page(unsafe { Mr::<T>::from_raw(mr) }, addr)?;
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for an MR [`alloc_cb`] allocated, with a valid
/// scatterlist of `nents` entries and `off` null or valid.
unsafe extern "C" fn map_sg_cb<T: Driver>(
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
    // SAFETY: Valid scatterlist from the consumer; `set_page_cb` is ours. The core
    // sets `iova`, `length` and `page_size` of the MR.
    let n = unsafe { bindings::ib_sg_to_pages(mr, sg, nents, off, Some(set_page_cb::<T>)) };
    // SAFETY: Plain fields `ib_sg_to_pages` just set.
    let (iova, len, pgsz) = unsafe { ((*mr).iova, (*mr).length, (*mr).page_size) };
    if let Err(e) = T::mr_map_end(m, iova, len, pgsz) {
        return e.to_errno();
    }
    n
}

/// # Safety
///
/// Called only by the RDMA core, once, for an MR this module allocated.
unsafe extern "C" fn dereg_cb<T: Driver>(
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
