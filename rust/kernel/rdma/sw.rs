// SPDX-License-Identifier: GPL-2.0

//! The software-provider layer: what a provider that runs the RDMA transport in
//! software over a net device reuses, the way rxe (RoCE v2) and siw (iWARP) share
//! their structure in C.
//!
//! Such a provider has one port bound to a net device, finds its QPs by number
//! from its receive path, and has no DMA device (so kernel consumers' addresses are
//! kernel virtual addresses, see [`super::virt_dma`]). This module gives it:
//!
//! - [`SoftDevice`], the part of its device data that holds the net device and a
//!   [`QpTable`], and the [`Provider`] trait that says where that part is. With
//!   it, [`Device::netdev`], [`Device::qp_rcu`], [`Device::of_netdev`] and
//!   [`DeviceList::find_by_netdev`] are available;
//! - [`register`], which allows one device per net device;
//! - [`QpTable`], QPs by number for RCU lookups. The provider hands it to the core
//!   trampolines with [`qp::Operations::qp_table`](super::qp::Operations::qp_table),
//!   which add and remove QPs at the right points of their lifetime.
//! - [`NetdevIndex`], the devices by net device, for the receive path.
//!
//! The device's net device is the provider's to report (the `get_netdev` op), not
//! bound with `ib_device_set_netdev`: the core's lookup by net device
//! (`ib_device_get_by_netdev`) matches on the driver id alone, so another driver
//! with the same id would find this provider's devices and take them for its own.
//! rdma_rxe's netdev notifier does exactly that, casting what it finds to
//! `struct rxe_dev`, and a provider that speaks rxe's user ABI must report rxe's
//! id. The core's port events for a net device (`ib_dispatch_port_state_event`)
//! and its netlink rename event then do not reach the device: the provider
//! dispatches its port events itself.
//!
//! What stays the provider's own: its wire protocol, its rings and their user ABI,
//! the meaning of its doorbell
//! ([`qp::Operations::post_send_user`](super::qp::Operations::post_send_user)) and
//! which legacy commands its library issues ([`Driver::LEGACY_WRITE_CMDS`]).
//!
//! C counterparts: `struct rxe_dev` in
//! [`drivers/infiniband/sw/rxe/rxe_verbs.h`](srctree/drivers/infiniband/sw/rxe/rxe_verbs.h),
//! `struct siw_device` in
//! [`drivers/infiniband/sw/siw/siw.h`](srctree/drivers/infiniband/sw/siw/siw.h).

use super::{
    device::{Device, DeviceList, DeviceParams, DeviceRef, Driver},
    qp::Qp,
};
use crate::{
    bindings,
    error::{to_result, Error},
    net::netdev::NetDevice,
    prelude::*,
    str::CStr,
    sync::{aref::ARef, rcu},
    types::Opaque,
};
use core::{
    marker::PhantomData,
    ptr,
    sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering},
};

/// QPs of driver `T` by number, for lookups from the data path under RCU.
///
/// Lifetime: embedded in the provider's device data, and so lives as long as the
/// device. Locking: the XArray's own IRQ-safe lock for changes, RCU for lookups.
///
/// # Invariants
///
/// `xa` is an initialised XArray whose entries are created QPs of driver `T`,
/// added by [`QpTable::insert`] and removed by [`QpTable::remove`], which waits
/// for an RCU grace period before the QP can be freed.
#[pin_data(PinnedDrop)]
pub struct QpTable<T> {
    #[pin]
    xa: Opaque<bindings::xarray>,
    _p: PhantomData<T>,
}

// SAFETY: The XArray is thread-safe; the entries are QPs of `T`, which are `Sync`.
unsafe impl<T: Driver> Send for QpTable<T> {}
// SAFETY: See `Send`.
unsafe impl<T: Driver> Sync for QpTable<T> {}

impl<T: Driver> QpTable<T> {
    /// An empty table.
    pub fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            xa <- Opaque::ffi_init(|xa: *mut bindings::xarray| {
                // IRQ-safe: the lock class is shared with every XArray the kernel
                // crate creates, and drivers take some of those with interrupts off.
                // SAFETY: `xa` is valid for writes and pinned.
                unsafe { bindings::xa_init_flags(xa, bindings::XA_FLAGS_LOCK_IRQ) }
            }),
            _p: PhantomData,
        })
    }

    /// The QP numbered `qpn`, if it is in the table, valid for the RCU read-side
    /// section `_guard` holds. Callable from any context.
    pub fn get<'g>(&'g self, qpn: u32, _guard: &'g rcu::Guard) -> Option<&'g Qp<T>> {
        // SAFETY: The table is initialised; `xa_load` is safe under RCU.
        let p = unsafe { bindings::xa_load(self.xa.get(), qpn as usize) };
        if p.is_null() {
            return None;
        }
        // SAFETY: By the type invariant the entry is a created QP of `T`, valid
        // until a grace period after its removal; the guard holds off that period.
        Some(unsafe { Qp::<T>::from_raw(p.cast()) })
    }

    /// Adds a complete QP. Only [`qp`](super::qp)'s trampolines call this, for a QP
    /// they remove with [`QpTable::remove`] before it is freed.
    pub(super) fn insert(&self, qp: &Qp<T>) -> Result {
        // INVARIANT: A created QP of `T`, removed before it is freed (see above).
        // SAFETY: The table is initialised; the entry is a valid pointer.
        let old = unsafe {
            bindings::xa_store_irq(
                self.xa.get(),
                qp.qp_num() as usize,
                qp.as_raw().cast(),
                GFP_KERNEL.as_raw(),
            )
        };
        // SAFETY: `old` came from `xa_store`.
        to_result(unsafe { bindings::xa_err(old) })
    }

    /// Removes a QP and waits until no RCU reader can still hold it.
    pub(super) fn remove(&self, qp: &Qp<T>) {
        // SAFETY: The table is initialised.
        unsafe { bindings::xa_erase_irq(self.xa.get(), qp.qp_num() as usize) };
        rcu::synchronize_rcu();
    }
}

#[pinned_drop]
impl<T> PinnedDrop for QpTable<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: Initialised in `new`; nobody uses the table any more.
        unsafe { bindings::xa_destroy(self.xa.get()) };
    }
}

/// The part of a software provider's device data that this layer keeps for it:
/// the net device port 1 is bound to, and the QPs by number.
///
/// Lifetime: embedded in the device data (`T::Data`); it holds a reference on the
/// net device until the data is dropped in `dealloc_driver`, and leaves the
/// provider's [`NetdevIndex`] then. Locking: immutable but for the [`QpTable`],
/// which locks itself, and `indexed`, written under the driver's device list lock.
#[pin_data(PinnedDrop)]
pub struct SoftDevice<T: Provider> {
    netdev: ARef<NetDevice>,
    #[pin]
    qps: QpTable<T>,
    /// In the [`NetdevIndex`]: set by [`register`] once the device is admitted.
    indexed: AtomicBool,
}

impl<T: Provider> SoftDevice<T> {
    /// The part of a device bound to `netdev`.
    pub fn new(netdev: &NetDevice) -> impl PinInit<Self, Error> {
        let netdev: ARef<NetDevice> = netdev.into();
        try_pin_init!(Self {
            netdev,
            qps <- QpTable::new(),
            indexed: AtomicBool::new(false),
        }? Error)
    }

    /// The net device port 1 is bound to.
    pub fn netdev(&self) -> &NetDevice {
        &self.netdev
    }

    /// The QPs by number.
    pub fn qps(&self) -> &QpTable<T> {
        &self.qps
    }
}

#[pinned_drop]
impl<T: Provider> PinnedDrop for SoftDevice<T> {
    fn drop(self: Pin<&mut Self>) {
        if self.indexed.load(Ordering::Relaxed) {
            // One device per net device (see `register`): the entry is this one's.
            T::with_devices(|list| T::netdev_index().remove(list, &self.netdev));
        }
    }
}

/// A software provider: a [`Driver`] whose device data embeds a [`SoftDevice`].
pub trait Provider: Driver {
    /// Where the device data keeps its [`SoftDevice`].
    fn soft(data: &Self::Data) -> &SoftDevice<Self>;

    /// The provider's devices by net device: a `static` of the driver.
    fn netdev_index() -> &'static NetdevIndex<Self>;
}

/// One device: its net device and its `ib_device`, as addresses. `netdev` is 0
/// once the device has left.
struct IndexEntry {
    netdev: AtomicUsize,
    ib: usize,
}

/// The entries, published whole: replaced to add one, and an entry's `netdev`
/// zeroed in place to remove one, so that removing never allocates.
struct Snapshot {
    entries: KVec<IndexEntry>,
}

/// A software provider's devices by net device, for [`Device::of_netdev`] from
/// any context.
///
/// Lifetime: a `static` of the driver; its snapshot is freed when the last device
/// leaves. Locking: changed only under the driver's device list lock
/// ([`Driver::with_devices`]) by [`register`] and the drop of a [`SoftDevice`];
/// read under RCU. Adding publishes a new snapshot and frees the old one after a
/// grace period; removing zeroes the entry and waits for one, so a device leaves
/// before its memory is freed, and no reader that found it is left.
pub struct NetdevIndex<T: Provider> {
    snap: AtomicPtr<Snapshot>,
    _p: PhantomData<T>,
}

impl<T: Provider> NetdevIndex<T> {
    /// An empty index, for a `static`.
    pub const fn new() -> Self {
        Self {
            snap: AtomicPtr::new(ptr::null_mut()),
            _p: PhantomData,
        }
    }

    /// Publishes `new` (null for none) in place of the current snapshot, and
    /// frees that after a grace period. Sleeps.
    fn replace(&self, new: *mut Snapshot) {
        // Publishes the snapshot's contents with it (`rcu_assign_pointer`).
        let old = self.snap.swap(new, Ordering::AcqRel);
        if !old.is_null() {
            rcu::synchronize_rcu();
            // SAFETY: Made by `KBox::into_raw` in `insert`, and no longer reachable:
            // readers that found it have left their sections.
            drop(unsafe { KBox::from_raw(old) });
        }
    }

    /// Adds `dev`, bound to `netdev`, with the entries still live. The list borrow
    /// is the proof that the caller holds the device list lock. Sleeps.
    fn insert(&self, _list: &DeviceList<T>, netdev: &NetDevice, dev: &Device<T>) -> Result {
        let old = self.snap.load(Ordering::Relaxed);
        let mut entries = KVec::new();
        if !old.is_null() {
            // SAFETY: Only writers, serialised by the list lock, replace or free the
            // snapshot, so it stays valid here.
            for e in unsafe { &(*old).entries }.iter() {
                let nd = e.netdev.load(Ordering::Relaxed);
                if nd != 0 {
                    entries.push(
                        IndexEntry {
                            netdev: AtomicUsize::new(nd),
                            ib: e.ib,
                        },
                        GFP_KERNEL,
                    )?;
                }
            }
        }
        entries.push(
            IndexEntry {
                netdev: AtomicUsize::new(netdev.as_raw() as usize),
                ib: dev.as_raw() as usize,
            },
            GFP_KERNEL,
        )?;
        let new = KBox::new(Snapshot { entries }, GFP_KERNEL)?;
        self.replace(KBox::into_raw(new));
        Ok(())
    }

    /// Removes the device bound to `netdev`, without allocating, and waits until
    /// no reader can still hold it. As [`Self::insert`] for the list. Sleeps.
    fn remove(&self, _list: &DeviceList<T>, netdev: &NetDevice) {
        let snap = self.snap.load(Ordering::Relaxed);
        if snap.is_null() {
            return;
        }
        let nd = netdev.as_raw() as usize;
        // SAFETY: As in `insert`.
        let entries = unsafe { &(*snap).entries };
        for e in entries.iter() {
            // Relaxed: the grace period below orders it before the device is freed.
            let _ = e
                .netdev
                .compare_exchange(nd, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
        if entries
            .iter()
            .all(|e| e.netdev.load(Ordering::Relaxed) == 0)
        {
            self.replace(ptr::null_mut());
        } else {
            rcu::synchronize_rcu();
        }
    }
}

impl<T: Provider> Default for NetdevIndex<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Provider> Device<T> {
    /// The net device port 1 is bound to.
    pub fn netdev(&self) -> &NetDevice {
        T::soft(self.data()).netdev()
    }

    /// The registered device of `T` bound to `netdev`, from any context (the
    /// receive path): the provider's [`NetdevIndex`], under RCU.
    pub fn of_netdev(netdev: &NetDevice) -> Option<DeviceRef<T>> {
        let _guard = rcu::read_lock();
        // Pairs with the release in `NetdevIndex::update` (`rcu_dereference`).
        let snap = T::netdev_index().snap.load(Ordering::Acquire);
        if snap.is_null() {
            return None;
        }
        // SAFETY: A published snapshot is freed only a grace period after it was
        // replaced, and the guard holds that period off.
        let entries = unsafe { &(*snap).entries };
        let nd = netdev.as_raw() as usize;
        let ib = entries
            .iter()
            .find(|e| e.netdev.load(Ordering::Relaxed) == nd)?
            .ib;
        // SAFETY: An entry leaves the index, and a grace period passes, before its
        // device's data is dropped and its memory freed (`SoftDevice`'s drop in
        // `dealloc_driver`), so under the guard the device is a live
        // `DeviceObj<T>`; `get_ref` fails for one being unregistered.
        unsafe { Device::<T>::from_raw(ib as *mut bindings::ib_device) }.get_ref()
    }

    /// Finds a QP by number from any context, under RCU (see [`QpTable::get`]).
    pub fn qp_rcu<'g>(&'g self, qpn: u32, guard: &'g rcu::Guard) -> Option<&'g Qp<T>> {
        T::soft(self.data()).qps().get(qpn, guard)
    }

    /// Whether `gid` is a RoCE v2 GID of `port` on `netdev`, in the core's GID
    /// table (`rdma_find_gid_by_port`). False for a device not (or no longer)
    /// registered, which has no table. Callable from any context.
    pub fn has_roce_v2_gid(&self, port: u32, gid: &[u8; 16], netdev: &NetDevice) -> bool {
        // A device of the driver's list may not be registered yet: its table is
        // set up by `ib_register_device`, before the registration reference.
        let Some(registered) = self.get_ref() else {
            return false;
        };
        let mut g: bindings::ib_gid = pin_init::zeroed();
        g.raw = *gid;
        // SAFETY: The device is registered (its table stays while `registered`
        // is held), the netdev is valid and `g` is a complete GID; the lookup
        // takes the table's lock with interrupts saved.
        let attr = unsafe {
            bindings::rdma_find_gid_by_port(
                registered.as_raw(),
                &g,
                bindings::ib_gid_type_IB_GID_TYPE_ROCE_UDP_ENCAP,
                port,
                netdev.as_raw(),
            )
        };
        if attr.is_null() || crate::error::from_err_ptr(attr.cast_mut()).is_err() {
            return false;
        }
        // SAFETY: A found entry carries a reference, given back here.
        unsafe { bindings::rdma_put_gid_attr(attr) };
        true
    }
}

impl<T: Provider> DeviceList<T> {
    /// The device bound to `netdev`, if any. Valid while the list is borrowed, which
    /// keeps `dealloc_driver` (and so the data's drop) waiting.
    pub fn find_by_netdev(&self, netdev: &NetDevice) -> Option<&Device<T>> {
        self.iter().find(|d| d.netdev().as_raw() == netdev.as_raw())
    }
}

/// Registers a device of a software provider, as [`Device::register`]: the data's
/// [`SoftDevice`] must be bound to `params.netdevs[0]` (else `EINVAL`), and a net
/// device that already has a device of `T` refuses another (`EEXIST`). The port's
/// net device is reported through the `get_netdev` op (see the module
/// documentation) and entered in the provider's [`NetdevIndex`].
pub fn register<T: Provider>(
    name: &CStr,
    params: &DeviceParams<'_>,
    data: impl PinInit<T::Data, Error>,
) -> Result {
    Device::<T>::register_inner(
        name,
        params,
        data,
        |list, new| {
            let netdev = new.netdev();
            if params.netdevs.first().map(|n| n.as_raw()) != Some(netdev.as_raw()) {
                return Err(EINVAL);
            }
            if list.find_by_netdev(netdev).is_some() {
                return Err(EEXIST);
            }
            T::netdev_index().insert(list, netdev, new)?;
            T::soft(new.data()).indexed.store(true, Ordering::Relaxed);
            Ok(())
        },
        Some(get_netdev_cb::<T>),
    )
}

/// The `get_netdev` op: port 1's net device, with a reference for the caller, or
/// null once it is being unregistered, as the op's contract asks (so the core
/// stops taking references on it, e.g. for GIDs).
///
/// # Safety
///
/// Called only by the RDMA core, for a device registered by [`register`], between
/// its registration and `dealloc_driver`.
unsafe extern "C" fn get_netdev_cb<T: Provider>(
    ib: *mut bindings::ib_device,
    port: u32,
) -> *mut bindings::net_device {
    if port != 1 {
        return ptr::null_mut();
    }
    // SAFETY: The core calls ops only on a device whose data is initialised and
    // not yet dropped (see the contract).
    let dev = unsafe { Device::<T>::from_raw(ib) };
    if !dev.netdev().is_registered() {
        return ptr::null_mut();
    }
    let held: ARef<NetDevice> = dev.netdev().into();
    ARef::into_raw(held).as_ptr().cast()
}
