// SPDX-License-Identifier: GPL-2.0

//! Network devices: borrowed and counted references, and the netdevice notifier.
//!
//! C headers: [`include/linux/netdevice.h`](srctree/include/linux/netdevice.h).

use crate::{
    bindings,
    error::to_result,
    prelude::*,
    str::CStr,
    sync::aref::{ARef, AlwaysRefCounted},
    types::Opaque,
};
use core::ptr::NonNull;

/// A network device (`struct net_device`).
///
/// # Invariants
///
/// A `&NetDevice` always points at a live, registered-or-registering `struct net_device`
/// for the lifetime of the reference.
#[repr(transparent)]
pub struct NetDevice(Opaque<bindings::net_device>);

// SAFETY: `struct net_device` is designed to be used from any thread; every accessor
// here reads fields that the networking core keeps valid for the device's lifetime.
unsafe impl Send for NetDevice {}
// SAFETY: See `Send`.
unsafe impl Sync for NetDevice {}

impl NetDevice {
    /// Borrows a `NetDevice` from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must point at a valid `struct net_device` that stays alive for `'a`.
    pub unsafe fn from_raw<'a>(ptr: *const bindings::net_device) -> &'a NetDevice {
        // SAFETY: `NetDevice` is `repr(transparent)` over the C struct; the caller
        // guarantees validity for `'a`.
        unsafe { &*ptr.cast() }
    }

    /// Returns the raw pointer to the C struct.
    #[inline]
    pub fn as_raw(&self) -> *mut bindings::net_device {
        self.0.get()
    }

    /// The interface name, e.g. `veth0`.
    pub fn name(&self) -> &CStr {
        // SAFETY: `name` is a NUL-terminated `char[IFNAMSIZ]` inside a valid device.
        unsafe { CStr::from_char_ptr((*self.as_raw()).name.as_ptr()) }
    }

    /// The interface index.
    #[inline]
    pub fn ifindex(&self) -> i32 {
        // SAFETY: The device is valid by the type invariant.
        unsafe { (*self.as_raw()).ifindex }
    }

    /// The current MTU in bytes.
    #[inline]
    pub fn mtu(&self) -> u32 {
        // SAFETY: The device is valid; `mtu` is a plain integer the core updates
        // atomically enough for a snapshot read.
        unsafe { core::ptr::read_volatile(&raw const (*self.as_raw()).mtu) }
    }

    /// Whether the device is registered and not being unregistered
    /// (`reg_state == NETREG_REGISTERED`).
    #[inline]
    pub fn is_registered(&self) -> bool {
        // SAFETY: The device is valid; `reg_state` is a byte the core changes under
        // the RTNL, read here as `READ_ONCE` would.
        let state = unsafe { core::ptr::read_volatile(&raw const (*self.as_raw()).reg_state) };
        u32::from(state) == bindings::netdev_reg_state_NETREG_REGISTERED
    }

    /// Whether the interface is administratively up (`IFF_UP`).
    #[inline]
    pub fn is_up(&self) -> bool {
        // SAFETY: The device is valid by the type invariant.
        let flags = unsafe { bindings::netif_get_flags(self.as_raw()) };
        flags & bindings::IFF_UP != 0
    }

    /// Whether this is an 802.1Q VLAN device.
    pub fn is_vlan(&self) -> bool {
        // SAFETY: The device is valid by the type invariant.
        unsafe { bindings::is_vlan_dev(self.as_raw()) }
    }

    /// The 48-bit hardware address, if the device has one.
    pub fn hw_addr(&self) -> Option<[u8; 6]> {
        let dev = self.as_raw();
        // SAFETY: The device is valid; `dev_addr` points at `addr_len` bytes when non-null.
        unsafe {
            let addr = (*dev).dev_addr;
            if addr.is_null() || (*dev).addr_len < 6 {
                return None;
            }
            let mut out = [0u8; 6];
            core::ptr::copy_nonoverlapping(addr, out.as_mut_ptr(), 6);
            Some(out)
        }
    }

    /// A random locally administered unicast Ethernet address, for an identity
    /// (a GUID, say) of something on a device with no address of its own, as
    /// `eth_random_addr` gives.
    pub fn random_eth_addr() -> [u8; 6] {
        // SAFETY: `get_random_u64` has no preconditions.
        let r = unsafe { bindings::get_random_u64() }.to_ne_bytes();
        let mut a = [r[0], r[1], r[2], r[3], r[4], r[5]];
        a[0] = (a[0] & 0xfe) | 0x02;
        a
    }

    /// Adds the Ethernet address `addr` to the device's multicast filter
    /// (`dev_mc_add`). The filter counts additions: each needs one [`Self::mc_del`].
    /// `EINVAL` if the device's addresses are not 6 bytes long.
    pub fn mc_add(&self, addr: &[u8; 6]) -> Result {
        self.check_eth_addr_len()?;
        // SAFETY: The device is valid, and `addr` holds the `addr_len` (6) bytes
        // `dev_mc_add` reads.
        to_result(unsafe { bindings::dev_mc_add(self.as_raw(), addr.as_ptr()) })
    }

    /// Undoes one [`Self::mc_add`] of `addr` (`dev_mc_del`).
    pub fn mc_del(&self, addr: &[u8; 6]) -> Result {
        self.check_eth_addr_len()?;
        // SAFETY: As in `mc_add`.
        to_result(unsafe { bindings::dev_mc_del(self.as_raw(), addr.as_ptr()) })
    }

    fn check_eth_addr_len(&self) -> Result {
        // SAFETY: The device is valid by the type invariant.
        if unsafe { (*self.as_raw()).addr_len } == 6 {
            Ok(())
        } else {
            Err(EINVAL)
        }
    }

    /// The network namespace the device currently lives in.
    #[inline]
    pub fn net(&self) -> &super::namespace::Namespace {
        // SAFETY: A live device always belongs to a live namespace, which outlives
        // the borrow of the device.
        unsafe { super::namespace::Namespace::from_raw(bindings::dev_net(self.as_raw())) }
    }

    /// The network namespace the device currently lives in, as an opaque pointer for
    /// comparisons and for passing to other abstractions.
    #[inline]
    pub fn net_raw(&self) -> *mut bindings::net {
        // SAFETY: The device is valid by the type invariant.
        unsafe { bindings::dev_net(self.as_raw()) }
    }
}

// SAFETY: `dev_hold`/`dev_put` keep the device's memory alive; the C side frees it
// only after the count drops to zero.
unsafe impl AlwaysRefCounted for NetDevice {
    fn inc_ref(&self) {
        // SAFETY: The device is valid by the type invariant.
        unsafe { bindings::dev_hold(self.as_raw()) };
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The caller owns one reference, which is given up here.
        unsafe { bindings::dev_put(obj.cast().as_ptr()) };
    }
}

/// A netdevice notifier event, as delivered to [`NotifierHandler::event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `NETDEV_UP`: the interface was brought up.
    Up,
    /// `NETDEV_DOWN`: the interface went down.
    Down,
    /// `NETDEV_CHANGE`: carrier or operational state changed.
    Change,
    /// `NETDEV_CHANGEMTU`: the MTU changed.
    ChangeMtu,
    /// `NETDEV_UNREGISTER`: the interface is going away.
    Unregister,
    /// Any other event (raw `NETDEV_*` value).
    Other(u64),
}

impl Event {
    fn from_raw(ev: u64) -> Self {
        match ev as u32 {
            bindings::netdev_cmd_NETDEV_UP => Event::Up,
            bindings::netdev_cmd_NETDEV_DOWN => Event::Down,
            bindings::netdev_cmd_NETDEV_CHANGE => Event::Change,
            bindings::netdev_cmd_NETDEV_CHANGEMTU => Event::ChangeMtu,
            bindings::netdev_cmd_NETDEV_UNREGISTER => Event::Unregister,
            _ => Event::Other(ev),
        }
    }
}

/// Receives netdevice events for every network device in every namespace.
pub trait NotifierHandler: Send + Sync {
    /// Called in process context with the RTNL held.
    fn event(&self, event: Event, dev: &NetDevice);
}

/// A registered netdevice notifier; unregistered on drop.
///
/// `register_netdevice_notifier` replays `REGISTER`/`UP` for existing devices, and
/// unregistering replays `DOWN`/`UNREGISTER`, so handlers must ignore devices that
/// are not theirs.
#[pin_data(PinnedDrop)]
pub struct Notifier<T: NotifierHandler> {
    handler: T,
    #[pin]
    nb: Opaque<bindings::notifier_block>,
}

// SAFETY: The notifier block is only touched by the notifier chain under its own
// lock; the handler is `Send + Sync`.
unsafe impl<T: NotifierHandler> Send for Notifier<T> {}
// SAFETY: See `Send`.
unsafe impl<T: NotifierHandler> Sync for Notifier<T> {}

impl<T: NotifierHandler> Notifier<T> {
    /// Registers `handler` for netdevice events.
    pub fn new(handler: T) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            // `handler` is initialised first: the callback may run during registration.
            handler,
            nb <- Opaque::try_ffi_init(|slot: *mut bindings::notifier_block| {
                // SAFETY: `slot` is valid for writes and pinned; zeroed is a valid
                // `notifier_block` and only the callback needs to be set.
                unsafe {
                    slot.write(pin_init::zeroed());
                    (*slot).notifier_call = Some(Self::callback);
                    to_result(bindings::register_netdevice_notifier(slot))
                }
            }),
        })
    }

    /// # Safety
    ///
    /// Called only by the netdevice notifier chain, with `nb` registered by [`Self::new`]
    /// and `ptr` a `struct netdev_notifier_info`.
    unsafe extern "C" fn callback(
        nb: *mut bindings::notifier_block,
        event: crate::ffi::c_ulong,
        ptr: *mut crate::ffi::c_void,
    ) -> crate::ffi::c_int {
        // SAFETY: `nb` is the `nb` field of a pinned `Notifier<T>` whose `handler` was
        // initialised before registration; it stays registered until drop.
        let this = unsafe {
            &*crate::container_of!(nb.cast::<Opaque<bindings::notifier_block>>(), Self, nb)
        };
        // SAFETY: For netdevice notifiers `ptr` is a `struct netdev_notifier_info`.
        let dev = unsafe { bindings::netdev_notifier_info_to_dev(ptr.cast()) };
        if !dev.is_null() {
            // SAFETY: The core keeps `dev` alive for the duration of the call.
            this.handler.event(Event::from_raw(event as u64), unsafe {
                NetDevice::from_raw(dev)
            });
        }
        bindings::NOTIFY_DONE as crate::ffi::c_int
    }

    /// The handler this notifier dispatches to.
    pub fn handler(&self) -> &T {
        &self.handler
    }
}

#[pinned_drop]
impl<T: NotifierHandler> PinnedDrop for Notifier<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: The block was registered in `new` and is still pinned.
        unsafe { bindings::unregister_netdevice_notifier(self.nb.get()) };
    }
}

/// Looks up a device by ifindex in `net`, returning a counted reference.
///
/// # Safety
///
/// `net` must be a valid network namespace pointer (e.g. from [`NetDevice::net_raw`]).
pub unsafe fn get_by_index(net: *mut bindings::net, ifindex: i32) -> Option<ARef<NetDevice>> {
    // SAFETY: `net` is valid per the caller; `dev_get_by_index` takes a reference.
    let dev = unsafe { bindings::dev_get_by_index(net, ifindex) };
    // SAFETY: A non-null return carries one reference, which `ARef` now owns.
    NonNull::new(dev).map(|p| unsafe { ARef::from_raw(p.cast()) })
}
