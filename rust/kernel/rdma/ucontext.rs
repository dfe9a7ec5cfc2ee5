// SPDX-License-Identifier: GPL-2.0

//! User contexts (`struct ib_ucontext`): the `alloc_ucontext`, `dealloc_ucontext`,
//! `mmap` and `mmap_free` ops of `struct ib_device_ops`.
//!
//! A user context is a process's open of the device's uverbs file. A provider
//! that serves user space implements [`Operations::alloc_ucontext`]; without it the core
//! offers no uverbs device and the provider serves kernel consumers only. With it,
//! the context's `mmap` maps the [`SharedBuf`](super::shared_buf::SharedBuf)s
//! published to it ([`UData::publish`]).
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    device::{Device, Driver},
    object::ObjWith,
    shared_buf,
    uverbs::UData,
};
use crate::{
    bindings,
    error::{from_result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
};

/// The user-context op of a provider (a part of [`Driver`]). Optional: a
/// kernel-only provider writes `type UContext = ();` and no op.
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of a user context.
    type UContext: Send + Sync;

    /// `alloc_ucontext`: a process opened the device. The data is dropped in
    /// `dealloc_ucontext`, after every object of the context is gone.
    fn alloc_ucontext(_dev: &Device<Self>, _udata: Option<&UData>) -> Result<Self::UContext> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `disassociate_ucontext`: the device is going away (unregistration, a
    /// module unload, a move to another network namespace) while the process
    /// still holds the context open. Optional, but without it the core cannot
    /// take a device from under its users: it holds a reference on the provider's
    /// module for each open context and refuses netns moves.
    ///
    /// The core has already zapped the context's mappings that it tracks and
    /// destroys its objects after this returns (each through its destroy op);
    /// the provider stops whatever of its own still reaches into the process's
    /// memory. `dealloc_ucontext` follows when the process closes its file, or
    /// at once if the device's removal needs it.
    fn disassociate_ucontext(_dev: &Device<Self>, _ctx: &Self::UContext) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// Installs the user-context ops of `T` in `ops`, if it has them.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    if T::HAS_ALLOC_UCONTEXT {
        ops.alloc_ucontext = Some(alloc_cb::<T>);
        ops.dealloc_ucontext = Some(dealloc_cb::<T>);
        ops.mmap = Some(shared_buf::mmap_cb);
        ops.mmap_free = Some(shared_buf::mmap_free_cb);
        ops.size_ib_ucontext = core::mem::size_of::<ObjWith<bindings::ib_ucontext, T::UContext>>();
        if T::HAS_DISASSOCIATE_UCONTEXT {
            ops.disassociate_ucontext = Some(disassociate_cb::<T>);
        }
    }
}

/// # Safety
///
/// Called only by the RDMA core, for a context [`alloc_cb`] initialised and not
/// yet deallocated.
unsafe extern "C" fn disassociate_cb<T: Driver>(ctx: *mut bindings::ib_ucontext) {
    // SAFETY: The context is alive and belongs to a device of `T` (its ops are
    // `T`'s), whose data is initialised while it has contexts.
    let dev = unsafe { Device::<T>::from_raw((*ctx).device) };
    let ctx = ctx.cast::<ObjWith<bindings::ib_ucontext, T::UContext>>();
    // SAFETY: `alloc_cb::<T>` wrote the data; it is dropped only in
    // `dealloc_ucontext`, which the core never runs concurrently with this op.
    T::disassociate_ucontext(dev, unsafe { &(*ctx).data });
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`]).
unsafe extern "C" fn alloc_cb<T: Driver>(
    ctx: *mut bindings::ib_ucontext,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: The core allocated `ctx` at `size_ib_ucontext` and set `device`.
        let dev = unsafe { Device::<T>::from_raw((*ctx).device) };
        // SAFETY: `udata` is null or valid for the call.
        let v = T::alloc_ucontext(dev, unsafe { UData::from_raw_new_context(udata) }.as_ref())?;
        // SAFETY: `ctx` is an `ObjWith<ib_ucontext, _>` whose data slot is unused.
        unsafe { ObjWith::<bindings::ib_ucontext, T::UContext>::init(ctx, v) };
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core, once, for a context [`alloc_cb`] initialised.
unsafe extern "C" fn dealloc_cb<T: Driver>(ctx: *mut bindings::ib_ucontext) {
    // SAFETY: Called once for a context `alloc_cb` initialised.
    unsafe { ObjWith::<bindings::ib_ucontext, T::UContext>::drop_data(ctx) };
}
