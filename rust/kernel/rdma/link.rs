// SPDX-License-Identifier: GPL-2.0

//! `rdma link` types (`struct rdma_link_ops`): `rdma link add NAME type TYPE netdev DEV`.
//!
//! `rdma link del` needs nothing from the driver: the core unregisters the device,
//! and the driver cleans up in its device data's `Drop`.
//!
//! C header: [`include/rdma/rdma_netlink.h`](srctree/include/rdma/rdma_netlink.h).

use crate::{
    bindings, error::from_result, net::netdev::NetDevice, prelude::*, str::CStr, types::Opaque,
};
use core::marker::PhantomData;

/// A link type.
pub trait LinkOps: 'static {
    /// The type name given to `rdma link add ... type TYPE`.
    const TYPE: &'static CStr;

    /// Creates a device called `name` on `netdev`. Called with the link-ops lock
    /// held for reading, so it never races with [`Registration`]'s drop.
    fn newlink(name: &CStr, netdev: &NetDevice) -> Result;
}

/// A registered link type; unregistered on drop, which waits for running `newlink`s.
///
/// Lifetime: pinned in the module's state, from module init to module exit.
/// Locking: the RDMA core's link-ops lock, taken by the core.
#[pin_data(PinnedDrop)]
pub struct Registration<T: LinkOps> {
    #[pin]
    ops: Opaque<bindings::rdma_link_ops>,
    _p: PhantomData<T>,
}

// SAFETY: The registration is only touched by the RDMA core under its own lock.
unsafe impl<T: LinkOps> Send for Registration<T> {}
// SAFETY: See `Send`.
unsafe impl<T: LinkOps> Sync for Registration<T> {}

impl<T: LinkOps> Registration<T> {
    /// Registers link type `T::TYPE`.
    pub fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            ops <- Opaque::ffi_init(|slot: *mut bindings::rdma_link_ops| {
                // SAFETY: `slot` is pinned and valid for writes; the list head is
                // initialised by `rdma_link_register`.
                unsafe {
                    slot.write(pin_init::zeroed());
                    (*slot).type_ = T::TYPE.as_char_ptr();
                    (*slot).newlink = Some(Self::newlink_cb);
                    bindings::rdma_link_register(slot);
                }
            }),
            _p: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core with a NUL-terminated name and a referenced netdev.
    unsafe extern "C" fn newlink_cb(
        name: *const crate::ffi::c_char,
        ndev: *mut bindings::net_device,
    ) -> crate::ffi::c_int {
        from_result(|| {
            // SAFETY: The core passes a NUL-terminated name and holds a reference on
            // `ndev` for the duration of the call.
            let (name, ndev) = unsafe { (CStr::from_char_ptr(name), NetDevice::from_raw(ndev)) };
            T::newlink(name, ndev)?;
            Ok(0)
        })
    }
}

#[pinned_drop]
impl<T: LinkOps> PinnedDrop for Registration<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: Registered in `new` and still pinned.
        unsafe { bindings::rdma_link_unregister(self.ops.get()) };
    }
}
