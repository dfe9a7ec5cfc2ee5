// SPDX-License-Identifier: GPL-2.0

//! Network namespaces (`struct net`) and per-namespace hooks.
//!
//! C header: [`include/net/net_namespace.h`](srctree/include/net/net_namespace.h).

use crate::{bindings, error::to_result, prelude::*, types::Opaque};
use core::marker::PhantomData;

/// A network namespace.
///
/// # Invariants
///
/// A `&Namespace` points at a live `struct net` for the reference's lifetime.
#[repr(transparent)]
pub struct Namespace(Opaque<bindings::net>);

// SAFETY: `struct net` is shared by the whole kernel and synchronises itself.
unsafe impl Send for Namespace {}
// SAFETY: See `Send`.
unsafe impl Sync for Namespace {}

impl Namespace {
    /// Borrows a namespace from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must point at a live `struct net` that stays alive for `'a`.
    pub unsafe fn from_raw<'a>(ptr: *const bindings::net) -> &'a Namespace {
        // SAFETY: `repr(transparent)`; validity is the caller's guarantee.
        unsafe { &*ptr.cast() }
    }

    /// The raw pointer.
    pub fn as_raw(&self) -> *mut bindings::net {
        self.0.get()
    }

    /// An identity for comparisons. Only meaningful while the namespace lives: a
    /// later namespace may reuse the address.
    pub fn key(&self) -> usize {
        self.as_raw() as usize
    }
}

/// Hooks run for every network namespace.
pub trait PernetHandler: 'static {
    /// Called once when a namespace is torn down, in process context, after its
    /// network devices are gone.
    fn exit(net: &Namespace);
}

/// A registered pernet subsystem (`register_pernet_subsys`); unregistered on drop,
/// which runs [`PernetHandler::exit`] for every namespace that still exists.
#[pin_data(PinnedDrop)]
pub struct PernetRegistration<T: PernetHandler> {
    #[pin]
    ops: Opaque<bindings::pernet_operations>,
    _t: PhantomData<T>,
}

// SAFETY: The operations are only used by the pernet core under its own locks.
unsafe impl<T: PernetHandler> Send for PernetRegistration<T> {}
// SAFETY: See `Send`.
unsafe impl<T: PernetHandler> Sync for PernetRegistration<T> {}

impl<T: PernetHandler> PernetRegistration<T> {
    /// Registers `T`'s hooks.
    pub fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            ops <- Opaque::try_ffi_init(|slot: *mut bindings::pernet_operations| {
                // SAFETY: `slot` is pinned and valid for writes; zeroed operations with
                // only `exit` set are valid (no per-net storage, no id).
                unsafe {
                    slot.write(pin_init::zeroed());
                    (*slot).exit = Some(Self::exit_cb);
                    to_result(bindings::register_pernet_subsys(slot))
                }
            }),
            _t: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Called by the pernet core with a namespace being torn down.
    unsafe extern "C" fn exit_cb(net: *mut bindings::net) {
        // SAFETY: The namespace is alive for the duration of the callback.
        T::exit(unsafe { Namespace::from_raw(net) });
    }
}

#[pinned_drop]
impl<T: PernetHandler> PinnedDrop for PernetRegistration<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: Registered in `new` and still pinned.
        unsafe { bindings::unregister_pernet_subsys(self.ops.get()) };
    }
}
