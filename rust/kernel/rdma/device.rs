// SPDX-License-Identifier: GPL-2.0

//! RDMA devices (`struct ib_device`): the [`Driver`] trait, registration, the
//! device-level ops of `struct ib_device_ops` and the table of all ops.
//!
//! Lifetime model (the core's "dealloc_driver" flow): once registered, a device is
//! owned by the RDMA core. It goes away through `rdma link del`, a netdev
//! unregistration ([`Device::unregister_queued`]) or [`DeviceList::unregister_all`]
//! at module exit; in every case the core calls `dealloc_driver`, which removes the
//! device from the driver's [`DeviceList`] and drops its data before the core frees
//! the memory. A device is only ever reached through that list, under its lock, or
//! through a [`DeviceRef`], so the driver never sees a device whose data has been
//! dropped.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{
    ah,
    attr::{DeviceAttr, DriverId, LinkLayer, NodeType, PortAttr, PortImmutable},
    cq,
    event::EventType,
    mr, mw, pd, qp, srq, ucontext,
    uverbs::{UData, WriteCmds},
};
use crate::{
    bindings,
    error::{from_result, to_result, Error, Result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    net::netdev::NetDevice,
    prelude::*,
    str::CStr,
    types::Opaque,
    ModuleMetadata,
};
use core::{marker::PhantomData, mem::size_of, ptr::NonNull};

/// An RDMA provider: its device-level ops and data, and, through its supertraits,
/// the ops and data of each kind of verbs object.
///
/// The object-level parts are [`ucontext::Operations`], [`pd::Operations`],
/// [`cq::Operations`], [`qp::Operations`], [`srq::Operations`],
/// [`ah::Operations`], [`mr::Operations`] and [`mw::Operations`], each in its
/// object's module and each with the type of the provider's data for that object.
/// A kind the provider does not support gets `()` as its data and no ops.
///
/// Optional ops (those with a default body, here and in the object-level parts)
/// are installed in `ib_device_ops` only when the provider implements them, so
/// the core answers `EOPNOTSUPP` (or leaves the feature out) for the others.
#[vtable]
pub trait Driver:
    ucontext::Operations
    + pd::Operations
    + cq::Operations
    + qp::Operations
    + srq::Operations
    + ah::Operations
    + mr::Operations
    + mw::Operations
    + Sized
    + 'static
{
    /// Per-device data.
    type Data: Send + Sync;

    /// The id the provider's user-space library matches on.
    const DRIVER_ID: DriverId;
    /// The uverbs ABI version that library checks.
    const UVERBS_ABI_VERSION: u32;
    /// The legacy `write()` commands that library issues, which the core does not
    /// accept by default.
    const LEGACY_WRITE_CMDS: WriteCmds = WriteCmds::empty();
    /// Port counters shown by `rdma statistic show link DEV/PORT`, read with
    /// [`Driver::hw_stats`].
    const HW_STATS: &'static [StatDesc] = &[];

    /// Runs `f` on the driver's list of devices, under the list's lock.
    ///
    /// The list must be a single static per driver, protected by a mutex.
    fn with_devices<R>(f: impl FnOnce(&mut DeviceList<Self>) -> R) -> R;

    /// `query_device`: fill `attr`.
    fn query_device(dev: &Device<Self>, attr: &mut DeviceAttr) -> Result;

    /// `query_port`: fill `attr` for `port` (1-based).
    fn query_port(dev: &Device<Self>, port: u32, attr: &mut PortAttr) -> Result;

    /// `get_port_immutable`.
    fn port_immutable(dev: &Device<Self>, port: u32) -> Result<PortImmutable>;

    /// `query_pkey`: the P_Key at `index`. Optional.
    fn query_pkey(_dev: &Device<Self>, _port: u32, _index: u16) -> Result<u16> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `get_link_layer`. Optional: without it the core derives the link layer
    /// from the node type (InfiniBand for an IB CA, Ethernet for an RNIC).
    fn link_layer(_dev: &Device<Self>, _port: u32) -> LinkLayer {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Fills `out` (one value per [`Driver::HW_STATS`] entry) for `port`.
    /// Optional; implemented only with a non-empty [`Driver::HW_STATS`].
    fn hw_stats(_dev: &Device<Self>, _port: u32, _out: &mut [u64]) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `process_mad`: answers a management datagram (`struct ib_mad`, [`MAD_SIZE`]
    /// bytes, as on the wire) addressed to `port`. The core calls it for every MAD
    /// its QP1 receives and for the port counters in sysfs
    /// (`ports/N/counters/`, read as Performance Management `Get`s). `out` is
    /// zeroed. Optional: without it sysfs has no `counters` directory.
    fn process_mad(
        _dev: &Device<Self>,
        _port: u32,
        _in_mad: &[u8; MAD_SIZE],
        _out_mad: &mut [u8; MAD_SIZE],
    ) -> MadResult {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// The size of a management datagram (`struct ib_mad`, `IB_MGMT_MAD_SIZE`).
pub const MAD_SIZE: usize = bindings::IB_MGMT_MAD_SIZE as usize;

/// What [`Driver::process_mad`] did with a MAD (`IB_MAD_RESULT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MadResult {
    /// Not processed: the core drops the MAD (`IB_MAD_RESULT_FAILURE`).
    Failure,
    /// Seen, not answered: the core goes on to its own agents
    /// (`IB_MAD_RESULT_SUCCESS`).
    Pass,
    /// Answered: `out` is the reply (`IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY`).
    Reply,
}

impl MadResult {
    fn to_raw(self) -> c_int {
        let (s, r) = (
            bindings::ib_mad_result_IB_MAD_RESULT_SUCCESS as c_int,
            bindings::ib_mad_result_IB_MAD_RESULT_REPLY as c_int,
        );
        match self {
            Self::Failure => 0,
            Self::Pass => s,
            Self::Reply => s | r,
        }
    }
}

/// The name of a hardware counter (`struct rdma_stat_desc`).
///
/// A `static` value: no lifetime or locking of its own.
#[repr(transparent)]
pub struct StatDesc(bindings::rdma_stat_desc);

// SAFETY: Only a pointer to a static string, never written.
unsafe impl Sync for StatDesc {}

impl StatDesc {
    /// A counter called `name`.
    pub const fn new(name: &'static CStr) -> Self {
        Self(bindings::rdma_stat_desc {
            name: crate::str::as_char_ptr_in_const_context(name),
            flags: 0,
            priv_: core::ptr::null(),
        })
    }
}

/// A counted reference to a registered device of driver `T`, from
/// [`Device::get_ref`] or [`Device::get_by_netdev`].
///
/// Lifetime: until dropped, which may happen in any context; unregistration waits
/// for it. Locking: none of its own; the device's data locks itself.
///
/// # Invariants
///
/// `0` is a registered device of driver `T` on which this value holds a reference
/// (`ib_device_try_get`).
pub struct DeviceRef<T: Driver>(NonNull<bindings::ib_device>, PhantomData<T>);

// SAFETY: Device references may be dropped on any CPU.
unsafe impl<T: Driver> Send for DeviceRef<T> {}
// SAFETY: `Device<T>` is `Sync`.
unsafe impl<T: Driver> Sync for DeviceRef<T> {}

impl<T: Driver> core::ops::Deref for DeviceRef<T> {
    type Target = Device<T>;

    fn deref(&self) -> &Device<T> {
        // SAFETY: By the type invariant the device is registered, so its data is
        // initialised and stays so while the reference is held.
        unsafe { Device::from_raw(self.0.as_ptr()) }
    }
}

impl<T: Driver> Drop for DeviceRef<T> {
    fn drop(&mut self) {
        // SAFETY: We hold one reference.
        unsafe { bindings::ib_device_put(self.0.as_ptr()) };
    }
}

/// What is fixed at registration.
///
/// Borrowed by [`Device::register`] for the call only.
pub struct DeviceParams<'a> {
    /// `node_desc`, shown by `ibv_devinfo -v` and in sysfs.
    pub node_desc: &'a CStr,
    /// Node GUID, network byte order.
    pub node_guid: u64,
    /// What kind of node the device is.
    pub node_type: NodeType,
    /// Number of ports.
    pub phys_port_cnt: u32,
    /// Completion vectors; `None` for one per possible CPU.
    pub num_comp_vectors: Option<u32>,
    /// The lkey of the PD's local DMA MR (`local_dma_lkey`).
    pub local_dma_lkey: u32,
    /// Whether the name was given by the user (`rdma link add NAME`).
    pub name_assigned_by_user: bool,
    /// The net devices ports 1, 2, ... are bound to (`ib_device_set_netdev`). The
    /// device lives in the first one's network namespace, or in the initial one.
    pub netdevs: &'a [&'a NetDevice],
}

/// The `get_netdev` op of `struct ib_device_ops`: the net device of a port,
/// with a reference the caller gives back, or null.
pub(super) type GetNetdevFn =
    unsafe extern "C" fn(*mut bindings::ib_device, u32) -> *mut bindings::net_device;

#[repr(C)]
struct DeviceObj<T: Driver> {
    /// Must be first: `_ib_alloc_device` allocates the driver struct around it.
    ib: Opaque<bindings::ib_device>,
    data: T::Data,
}

/// A registered (or registering) `ib_device` of driver `T`, with its data.
///
/// Lifetime: see the module documentation; a `&Device<T>` is valid for the
/// callback or the [`DeviceList`] borrow or the [`DeviceRef`] it came from.
/// Locking: the device itself is immutable after registration; the data locks
/// itself.
///
/// # Invariants
///
/// A `&Device<T>` points at the `ib` field of a live `DeviceObj<T>` whose `data`
/// is initialised.
#[repr(transparent)]
pub struct Device<T>(Opaque<bindings::ib_device>, PhantomData<T>);

// SAFETY: The driver data is `Send + Sync`; the C device is used from any thread.
unsafe impl<T: Driver> Send for Device<T> {}
// SAFETY: See `Send`.
unsafe impl<T: Driver> Sync for Device<T> {}

impl<T: Driver> Device<T> {
    /// # Safety
    ///
    /// `ptr` must be the `ib_device` of a `DeviceObj<T>` with initialised data that
    /// stays alive for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::ib_device) -> &'a Device<T> {
        // SAFETY: `Device<T>` is transparent over the C struct; see the contract.
        unsafe { &*ptr.cast() }
    }

    pub(crate) fn as_raw(&self) -> *mut bindings::ib_device {
        self.0.get()
    }

    fn obj(&self) -> *mut DeviceObj<T> {
        // `ib` is at offset 0 of the `repr(C)` `DeviceObj<T>`.
        self.as_raw().cast()
    }

    /// The driver data.
    pub fn data(&self) -> &T::Data {
        // SAFETY: By the type invariant the data is initialised and alive.
        unsafe { &(*self.obj()).data }
    }

    /// A counted reference to this device, unless it is being unregistered.
    pub fn get_ref(&self) -> Option<DeviceRef<T>> {
        // SAFETY: The device is valid; a successful try_get takes a reference.
        if unsafe { bindings::ib_device_try_get(self.as_raw()) } {
            // INVARIANT: A registered device of `T` on which we took a reference.
            Some(DeviceRef(NonNull::new(self.as_raw())?, PhantomData))
        } else {
            None
        }
    }

    /// Finds the registered device of driver `T` whose port is bound to `netdev`
    /// (`ib_device_get_by_netdev`), from any context. The driver id alone is not
    /// enough: another module may register devices with the same id. A software
    /// provider's devices are not bound this way: see [`Device::of_netdev`].
    pub fn get_by_netdev(netdev: &NetDevice) -> Option<DeviceRef<T>> {
        // SAFETY: `netdev` is valid; a non-null result carries a device reference.
        let ib = unsafe { bindings::ib_device_get_by_netdev(netdev.as_raw(), T::DRIVER_ID.into()) };
        let ib = NonNull::new(ib)?;
        // SAFETY: The reference keeps the device and its ops alive.
        if unsafe { (*ib.as_ptr()).ops.owner } != Self::owner() {
            // SAFETY: Gives back the reference just taken.
            unsafe { bindings::ib_device_put(ib.as_ptr()) };
            return None;
        }
        // INVARIANT: The owner matches, so the device is one of `T`'s.
        Some(DeviceRef(ib, PhantomData))
    }

    /// The module that implements `T`, the owner of its devices' ops.
    fn owner() -> *mut bindings::module {
        <<T as Driver>::OwnerModule as ModuleMetadata>::THIS_MODULE.as_ptr()
    }

    /// The device name, e.g. `rrxe0`.
    pub fn name(&self) -> &CStr {
        // SAFETY: `dev_name` of a valid device returns a NUL-terminated string.
        unsafe {
            CStr::from_char_ptr(bindings::dev_name(
                &raw const (*self.as_raw()).__bindgen_anon_1.dev,
            ))
        }
    }

    /// Active speed and width of an Ethernet port (`ib_get_eth_speed`).
    pub fn eth_speed(&self, port: u32) -> Result<(u16, u8)> {
        let (mut speed, mut width) = (0u16, 0u8);
        // SAFETY: The device is valid; the out-pointers are valid locals.
        to_result(unsafe {
            bindings::ib_get_eth_speed(self.as_raw(), port, &mut speed, &mut width)
        })?;
        Ok((speed, width))
    }

    /// Tells every client about a port event, e.g. [`EventType::PortActive`]
    /// (`ib_dispatch_event`).
    pub fn dispatch_port_event(&self, port: u32, event: EventType) {
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.device = self.as_raw();
        ev.event = event.into();
        ev.element.port_num = port;
        // SAFETY: `ev` is a fully initialised event for a valid, registered device.
        unsafe { bindings::ib_dispatch_event(&ev) };
    }

    /// Starts unregistering the device from a work queue (`ib_unregister_device_queued`),
    /// for callers that hold locks unregistration may need, e.g. the RTNL.
    ///
    /// A device already being unregistered (its reference count at zero, e.g. by
    /// module unload racing a namespace's deletion) is left alone: it is going
    /// anyway, and queueing it again warns. The call is made holding a reference,
    /// as `ib_device_get_by_netdev` callers in C do.
    pub fn unregister_queued(&self) {
        let Some(_held) = self.get_ref() else {
            return;
        };
        // SAFETY: The device is valid, uses the dealloc_driver flow, and we hold a
        // reference, so unregistration has not passed the point of no return.
        unsafe { bindings::ib_unregister_device_queued(self.as_raw()) };
    }

    /// Allocates, initialises and registers a device named `name`.
    ///
    /// On success the device belongs to the RDMA core and may already be gone by the
    /// time this returns (a concurrent `rdma link del`); reach it via [`DeviceList`].
    /// A name already in use fails with `EEXIST`.
    pub fn register(
        name: &CStr,
        params: &DeviceParams<'_>,
        data: impl PinInit<T::Data, Error>,
    ) -> Result {
        Self::register_with(name, params, data, |_, _| Ok(()))
    }

    /// As [`Device::register`], and `admit` decides, under the device list's lock
    /// and with the new device's data initialised, whether the device may join the
    /// list (an error fails the registration). Checked and added under one lock,
    /// two racing registrations cannot both pass a uniqueness rule.
    pub fn register_with(
        name: &CStr,
        params: &DeviceParams<'_>,
        data: impl PinInit<T::Data, Error>,
        admit: impl FnOnce(&DeviceList<T>, &Device<T>) -> Result,
    ) -> Result {
        Self::register_inner(name, params, data, admit, None)
    }

    /// As [`Device::register_with`]. With `get_netdev`, the ports' net devices
    /// are the driver's to report (the `get_netdev` op): they are not bound with
    /// `ib_device_set_netdev`, so the core's lookup by net device
    /// (`ib_device_get_by_netdev`) does not find the device.
    pub(super) fn register_inner(
        name: &CStr,
        params: &DeviceParams<'_>,
        data: impl PinInit<T::Data, Error>,
        admit: impl FnOnce(&DeviceList<T>, &Device<T>) -> Result,
        get_netdev: Option<GetNetdevFn>,
    ) -> Result {
        let net = match params.netdevs.first() {
            Some(nd) => nd.net_raw(),
            None => &raw mut bindings::init_net,
        };
        // SAFETY: `net` is valid; the size covers `DeviceObj<T>` whose first field is
        // the `ib_device`, as `_ib_alloc_device` requires.
        let ib = unsafe { bindings::_ib_alloc_device(size_of::<DeviceObj<T>>(), net) };
        let ib = NonNull::new(ib).ok_or(ENOMEM)?.as_ptr();
        let obj = ib.cast::<DeviceObj<T>>();

        // SAFETY: `obj` is a fresh zeroed allocation of the right size; the data is
        // written in place before anything reads it.
        unsafe {
            if let Err(e) = data.__init(&raw mut (*obj).data) {
                // Ops are not set yet, so no dealloc_driver runs.
                bindings::ib_dealloc_device(ib);
                return Err(e);
            }
            Self::setup(ib, params);
            let mut ops = Self::OPS;
            ops.owner = Self::owner();
            if get_netdev.is_some() {
                ops.get_netdev = get_netdev;
            }
            // From here on `ib_dealloc_device` calls `dealloc_driver`, which drops
            // the data.
            bindings::ib_set_device_ops(ib, &ops);
        }

        let bound = if get_netdev.is_some() {
            &[][..]
        } else {
            params.netdevs
        };
        for (i, nd) in bound.iter().enumerate() {
            // SAFETY: `ib` is valid and not yet registered.
            let err = unsafe { bindings::ib_device_set_netdev(ib, nd.as_raw(), i as u32 + 1) };
            if let Err(e) = to_result(err) {
                // SAFETY: Not registered: the caller owns the device and frees it.
                unsafe { bindings::ib_dealloc_device(ib) };
                return Err(e);
            }
        }
        // In the list before registration, so module exit and netdev events see it.
        let added = T::with_devices(|list| {
            // SAFETY: The data is initialised and the device alive until freed below
            // or by the core.
            admit(list, unsafe { Device::from_raw(ib) })?;
            list.devs
                .push(RawDevice(ib), GFP_KERNEL)
                .map_err(Error::from)
        });
        if let Err(e) = added {
            // SAFETY: As above.
            unsafe { bindings::ib_dealloc_device(ib) };
            return Err(e);
        }
        // SAFETY: `ib` is fully set up; the name is NUL-terminated; no DMA device.
        let err =
            unsafe { bindings::ib_register_device(ib, name.as_char_ptr(), core::ptr::null_mut()) };
        if let Err(e) = to_result(err) {
            // SAFETY: After a failed registration the caller must dealloc; this runs
            // `dealloc_driver`, which also removes it from the list.
            unsafe { bindings::ib_dealloc_device(ib) };
            // The core reports a name already in use as ENFILE; names never carry
            // '%' here (nldev refuses them), so ENFILE can only mean that.
            return Err(if e == ENFILE { EEXIST } else { e });
        }
        Ok(())
    }

    /// # Safety
    ///
    /// `ib` must be a valid, unregistered device.
    unsafe fn setup(ib: *mut bindings::ib_device, params: &DeviceParams<'_>) {
        // SAFETY: `ib` is valid and not yet visible to anyone else.
        unsafe {
            let desc = params.node_desc.to_bytes();
            let n = desc.len().min((*ib).node_desc.len() - 1);
            for (i, b) in desc[..n].iter().enumerate() {
                (*ib).node_desc[i] = *b;
            }
            (*ib).node_type = params.node_type.into();
            (*ib).phys_port_cnt = params.phys_port_cnt;
            (*ib).num_comp_vectors = match params.num_comp_vectors {
                Some(n) => n as c_int,
                None => bindings::num_possible_cpus() as c_int,
            };
            (*ib).local_dma_lkey = params.local_dma_lkey;
            (*ib).node_guid = params.node_guid;
            (*ib).uverbs_cmd_mask |= T::LEGACY_WRITE_CMDS.bits();
            if params.name_assigned_by_user {
                bindings::ib_mark_name_assigned_by_user(ib);
            }
        }
    }

    /// The ops of `T`'s devices: the mandatory ones, and each optional one the
    /// driver implements. `owner` is set at registration.
    pub(super) const OPS: bindings::ib_device_ops = {
        let mut ops: bindings::ib_device_ops = pin_init::zeroed();
        ops.driver_id = T::DRIVER_ID as u32;
        ops.uverbs_abi_ver = T::UVERBS_ABI_VERSION;
        ops.dealloc_driver = Some(Self::dealloc_driver_cb);
        ops.query_device = Some(Self::query_device_cb);
        ops.query_port = Some(Self::query_port_cb);
        ops.get_port_immutable = Some(Self::port_immutable_cb);
        if T::HAS_QUERY_PKEY {
            ops.query_pkey = Some(Self::query_pkey_cb);
        }
        if T::HAS_LINK_LAYER {
            ops.get_link_layer = Some(Self::link_layer_cb);
        }
        assert!(
            T::HAS_HW_STATS == !T::HW_STATS.is_empty(),
            "Driver: hw_stats goes with a non-empty HW_STATS"
        );
        if T::HAS_HW_STATS {
            ops.alloc_hw_port_stats = Some(Self::alloc_hw_port_stats_cb);
            ops.get_hw_stats = Some(Self::get_hw_stats_cb);
        }
        if T::HAS_PROCESS_MAD {
            ops.process_mad = Some(Self::process_mad_cb);
        }
        ucontext::install::<T>(&mut ops);
        pd::install::<T>(&mut ops);
        cq::install::<T>(&mut ops);
        qp::install::<T>(&mut ops);
        srq::install::<T>(&mut ops);
        ah::install::<T>(&mut ops);
        mr::install::<T>(&mut ops);
        mw::install::<T>(&mut ops);
        ops
    };

    /// # Safety
    ///
    /// Called only by the RDMA core, once per device, after every other op has
    /// returned and before it frees the memory.
    unsafe extern "C" fn dealloc_driver_cb(ib: *mut bindings::ib_device) {
        T::with_devices(|list| list.devs.retain(|d| d.0 != ib));
        let obj = ib.cast::<DeviceObj<T>>();
        // SAFETY: Called once, as above; the data was initialised in `register`.
        unsafe { core::ptr::drop_in_place(&raw mut (*obj).data) };
    }

    /// # Safety
    ///
    /// Called only by the RDMA core for a device registered by [`Self::register`].
    unsafe extern "C" fn alloc_hw_port_stats_cb(
        _ib: *mut bindings::ib_device,
        _port: u32,
    ) -> *mut bindings::rdma_hw_stats {
        // SAFETY: `HW_STATS` is static and `StatDesc` is transparent over the C
        // struct; the core frees the result.
        unsafe {
            bindings::rdma_alloc_hw_stats_struct(
                T::HW_STATS.as_ptr().cast(),
                T::HW_STATS.len() as i32,
                bindings::RDMA_HW_STATS_DEFAULT_LIFESPAN as crate::ffi::c_ulong,
            )
        }
    }

    /// # Safety
    ///
    /// Called only by the RDMA core for a device registered by [`Self::register`],
    /// with `stats` from [`Self::alloc_hw_port_stats_cb`], under its lock.
    unsafe extern "C" fn get_hw_stats_cb(
        ib: *mut bindings::ib_device,
        stats: *mut bindings::rdma_hw_stats,
        port: u32,
        _index: c_int,
    ) -> c_int {
        // SAFETY: `stats` holds `num_counters` values, which equals `HW_STATS.len()`;
        // the core serialises access.
        let (dev, out) = unsafe {
            let n = ((*stats).num_counters.max(0) as usize).min(T::HW_STATS.len());
            (Device::<T>::from_raw(ib), (*stats).value.as_mut_slice(n))
        };
        T::hw_stats(dev, port, out);
        out.len() as c_int
    }

    /// # Safety
    ///
    /// Called only by the RDMA core for a device registered by [`Self::register`],
    /// with pointers valid for the call.
    unsafe extern "C" fn query_device_cb(
        ib: *mut bindings::ib_device,
        attr: *mut bindings::ib_device_attr,
        udata: *mut bindings::ib_udata,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core only calls ops on a device with initialised data.
            let dev = unsafe { Self::from_raw(ib) };
            // SAFETY: `udata` is null or valid for the call.
            UData::expect_empty(unsafe { UData::from_raw(udata) }.as_ref())?;
            let mut a = DeviceAttr::default();
            T::query_device(dev, &mut a)?;
            // SAFETY: `attr` is a valid, writable struct owned by the caller.
            a.write_to(unsafe { &mut *attr });
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As [`Self::query_device_cb`].
    unsafe extern "C" fn query_port_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        attr: *mut bindings::ib_port_attr,
    ) -> c_int {
        from_result(|| {
            // SAFETY: As in `query_device_cb`.
            let dev = unsafe { Self::from_raw(ib) };
            let mut a = PortAttr::default();
            T::query_port(dev, port, &mut a)?;
            // SAFETY: `attr` is valid and zeroed by the core.
            a.write_to(unsafe { &mut *attr });
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As [`Self::query_device_cb`].
    unsafe extern "C" fn query_pkey_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        index: u16,
        pkey: *mut u16,
    ) -> c_int {
        from_result(|| {
            // SAFETY: As in `query_device_cb`.
            let dev = unsafe { Self::from_raw(ib) };
            let v = T::query_pkey(dev, port, index)?;
            // SAFETY: `pkey` is a valid out-pointer.
            unsafe { *pkey = v };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As [`Self::query_device_cb`].
    unsafe extern "C" fn port_immutable_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        imm: *mut bindings::ib_port_immutable,
    ) -> c_int {
        from_result(|| {
            // SAFETY: As in `query_device_cb`.
            let dev = unsafe { Self::from_raw(ib) };
            let v = T::port_immutable(dev, port)?;
            // SAFETY: `imm` is a valid out-pointer.
            v.write_to(unsafe { &mut *imm });
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core for a device registered by [`Self::register`],
    /// with `in_mad` and `out_mad` valid for the call and `out_mad_size` the size
    /// of `out_mad`'s buffer.
    #[allow(clippy::too_many_arguments)]
    unsafe extern "C" fn process_mad_cb(
        ib: *mut bindings::ib_device,
        _flags: c_int,
        port: u32,
        _in_wc: *const bindings::ib_wc,
        _in_grh: *const bindings::ib_grh,
        in_mad: *const bindings::ib_mad,
        out_mad: *mut bindings::ib_mad,
        out_mad_size: *mut usize,
        _out_mad_pkey_index: *mut u16,
    ) -> c_int {
        const _: () = assert!(size_of::<bindings::ib_mad>() == MAD_SIZE);
        // SAFETY: `out_mad_size` is valid for the call.
        if in_mad.is_null() || out_mad.is_null() || unsafe { *out_mad_size } < MAD_SIZE {
            return MadResult::Failure.to_raw();
        }
        // SAFETY: As in `query_device_cb`; both MADs are valid `struct ib_mad`s of
        // `MAD_SIZE` bytes (asserted above), the input read-only and the output
        // owned by the caller for the call. They may alias only if the caller
        // passes one buffer twice, which no caller does.
        let (dev, inp, out) = unsafe {
            (
                Self::from_raw(ib),
                &*in_mad.cast::<[u8; MAD_SIZE]>(),
                &mut *out_mad.cast::<[u8; MAD_SIZE]>(),
            )
        };
        out.fill(0);
        let r = T::process_mad(dev, port, inp, out);
        if r == MadResult::Reply {
            // SAFETY: As above.
            unsafe { *out_mad_size = MAD_SIZE };
        }
        r.to_raw()
    }

    /// # Safety
    ///
    /// As [`Self::query_device_cb`].
    unsafe extern "C" fn link_layer_cb(ib: *mut bindings::ib_device, port: u32) -> u32 {
        // SAFETY: As in `query_device_cb`.
        let dev = unsafe { Self::from_raw(ib) };
        T::link_layer(dev, port).into()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct RawDevice(*mut bindings::ib_device);
// SAFETY: Only compared and passed to thread-safe core functions.
unsafe impl Send for RawDevice {}

/// The devices of one driver.
///
/// Lifetime: a `static` of the driver. Locking: entries are added by
/// [`Device::register`] and removed by `dealloc_driver`, both under the driver's
/// lock ([`Driver::with_devices`]); a `&Device<T>` from the list is valid while the
/// list is borrowed, which keeps `dealloc_driver` (and so the data's drop) waiting.
pub struct DeviceList<T: Driver> {
    devs: KVec<RawDevice>,
    _p: PhantomData<T>,
}

impl<T: Driver> DeviceList<T> {
    /// An empty list, for a `static`.
    pub const fn new() -> Self {
        Self {
            devs: KVec::new(),
            _p: PhantomData,
        }
    }

    /// Number of devices, including ones being unregistered.
    pub fn len(&self) -> usize {
        self.devs.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.devs.is_empty()
    }

    /// All devices.
    pub fn iter(&self) -> impl Iterator<Item = &Device<T>> {
        // SAFETY: Entries are removed (under the same lock) before their data is
        // dropped, so every entry is a live `DeviceObj<T>` while the list is borrowed.
        self.devs.iter().map(|d| unsafe { Device::from_raw(d.0) })
    }

    /// Unregisters every device of `T` and waits until each is gone. For module exit,
    /// after new devices can no longer be created (link ops unregistered).
    ///
    /// Only this driver's devices are touched, unlike `ib_unregister_driver`, which
    /// would also remove other drivers' devices that share the driver id.
    pub fn unregister_all() {
        loop {
            let next = T::with_devices(|list| {
                list.devs.first().copied().inspect(|d| {
                    // SAFETY: The device is alive (in the list); this reference keeps
                    // its memory alive after we drop the lock.
                    unsafe { bindings::get_device(&raw mut (*d.0).__bindgen_anon_1.dev) };
                })
            });
            let Some(d) = next else {
                // The list usually lives in a `static`, which is never dropped: free
                // its buffer now that the module is going away.
                T::with_devices(|list| list.devs = KVec::new());
                break;
            };
            // SAFETY: We hold a `get_device` reference. `ib_unregister_device` is
            // fenced against concurrent unregistration and returns only once
            // `dealloc_driver` has run, so the entry is gone from the list.
            unsafe {
                bindings::ib_unregister_device(d.0);
                bindings::put_device(&raw mut (*d.0).__bindgen_anon_1.dev);
            }
        }
    }
}

impl<T: Driver> Default for DeviceList<T> {
    fn default() -> Self {
        Self::new()
    }
}
