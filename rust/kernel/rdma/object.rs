// SPDX-License-Identifier: GPL-2.0

//! How a provider's data sits in the verbs objects the RDMA core allocates.
//!
//! The core allocates the user context, PD, CQ, QP, SRQ, AH and MW at the size the
//! provider asks for in `ib_device_ops` (`INIT_RDMA_OBJ_SIZE`), with the core's
//! struct first and the provider's data after it: an [`ObjWith`]. The trampolines
//! write the data in place once the provider's create op succeeds, and drop it
//! once its destroy op succeeds, right before the core frees the memory. MRs are
//! allocated by the provider ([`super::mr`]) and freed by it on deregistration.

/// A core-allocated verbs object (`ib_pd`, `ib_ucontext`, ...) followed by driver
/// data, as `INIT_RDMA_OBJ_SIZE` lays it out.
#[repr(C)]
pub(crate) struct ObjWith<C, D> {
    pub(crate) core: C,
    pub(crate) data: D,
}

impl<C, D> ObjWith<C, D> {
    /// Writes the driver data of the object whose core struct is `core`.
    ///
    /// # Safety
    ///
    /// `core` must be the first field of an allocation of `size_of::<Self>()`
    /// bytes whose data slot is uninitialised.
    pub(crate) unsafe fn init(core: *mut C, data: D) {
        // SAFETY: Per the contract the slot is valid for writes.
        unsafe { (&raw mut (*core.cast::<Self>()).data).write(data) };
    }

    /// Drops the driver data of the object whose core struct is `core`.
    ///
    /// # Safety
    ///
    /// `core` must be the first field of an `ObjWith<C, D>` whose data slot is
    /// initialised; the data is dropped exactly once and not used afterwards.
    pub(crate) unsafe fn drop_data(core: *mut C) {
        // SAFETY: Per the contract.
        unsafe { core::ptr::drop_in_place(&raw mut (*core.cast::<Self>()).data) };
    }
}
