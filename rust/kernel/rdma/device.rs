// SPDX-License-Identifier: GPL-2.0

//! `ib_device` allocation, registration and unregistration, and the ops vtable.
//!
//! Lifetime model (the core's "dealloc_driver" flow): once registered, a device is
//! owned by the RDMA core. It goes away through `rdma link del`, a netdev
//! unregistration ([`Device::unregister_queued`]) or [`DeviceList::unregister_all`] at
//! module exit; in every case the core calls `dealloc_driver`, which removes the device
//! from the driver's [`DeviceList`] and drops its data before the core frees the memory.
//! A device is only ever reached through that list, under its lock, so the driver can
//! never see a device whose data has been dropped.

use super::restrack::DriverDetails;
use super::types::{DeviceAttr, PortAttr, PortEvent, PortImmutable, UData};
use super::verbs::{
    Ah, AhAttr, Cq, CqInitAttr, Mr, MrKeys, Mw, Ops, Pd, Qp, QpAttr, QpInitAttr, RecvWr, SendWr,
    Srq, SrqAttr, SrqInitAttr, Wc,
};
use crate::{
    bindings,
    error::{from_result, to_result, Error, Result},
    net::netdev::NetDevice,
    prelude::*,
    str::CStr,
    sync::{aref::ARef, rcu},
    types::Opaque,
    ThisModule,
};
use core::{marker::PhantomData, mem::size_of, ptr::NonNull};

/// An RDMA provider: device-level verbs and the per-object data it keeps.
#[vtable]
pub trait Driver: Sized + 'static {
    /// Per-device driver data.
    type Data: Send + Sync;
    /// Per-ucontext (per open of the uverbs device) driver data.
    type UContext: Send + Sync;
    /// Per-protection-domain driver data.
    type Pd: Send + Sync;
    /// Per-CQ driver data.
    type Cq: Send + Sync;
    /// Per-QP driver data.
    type Qp: Send + Sync;
    /// Per-SRQ driver data.
    type Srq: Send + Sync;
    /// Per-AH driver data.
    type Ah: Send + Sync;
    /// Per-MR driver data.
    type Mr: Send + Sync;
    /// Per-MW driver data.
    type Mw: Send + Sync;

    /// `enum rdma_driver_id` (see [`super::types::driver_id`]).
    const DRIVER_ID: u32;
    /// The uverbs ABI version user-space providers check.
    const UVERBS_ABI_VERSION: u32;

    /// Runs `f` on the driver's list of devices, under the list's lock.
    ///
    /// The list must be a single static per driver, protected by a mutex.
    fn with_devices<R>(f: impl FnOnce(&mut DeviceList<Self>) -> R) -> R;

    /// `query_device`: fill `attr`.
    fn query_device(dev: &Device<Self>, attr: &mut DeviceAttr) -> Result;

    /// `query_port`: fill `attr` for `port` (1-based).
    fn query_port(dev: &Device<Self>, port: u32, attr: &mut PortAttr) -> Result;

    /// `query_pkey`: the P_Key at `index`.
    fn query_pkey(dev: &Device<Self>, port: u32, index: u16) -> Result<u16>;

    /// `get_port_immutable`.
    fn port_immutable(dev: &Device<Self>, port: u32) -> Result<PortImmutable>;

    /// `alloc_ucontext`: a process opened the device.
    fn alloc_ucontext(dev: &Device<Self>, udata: Option<&UData>) -> Result<Self::UContext>;

    /// `alloc_pd`.
    fn alloc_pd(dev: &Device<Self>, udata: Option<&UData>) -> Result<Self::Pd>;

    /// `create_cq`. Returns the data and the actual number of entries.
    fn create_cq(
        dev: &Device<Self>,
        attr: &CqInitAttr,
        udata: Option<&UData>,
    ) -> Result<(Self::Cq, u32)>;

    /// `resize_user_cq`. Returns the new number of entries.
    fn resize_cq(cq: &Cq<Self>, cqe: u32, udata: Option<&UData>) -> Result<u32>;

    /// `destroy_cq`: on success the data is dropped and the CQ freed.
    fn destroy_cq(cq: &Cq<Self>) -> Result;

    /// `poll_cq` from a kernel consumer: fills the start of `wc`, returns how many.
    fn poll_cq(cq: &Cq<Self>, wc: &mut [Wc]) -> usize;

    /// `peek_cq`: how many completions, up to `n`, are ready.
    fn peek_cq(cq: &Cq<Self>, n: usize) -> usize;

    /// `req_notify_cq` with `IB_CQ_*` flags. Returns whether completions may have
    /// been missed (only asked for with `IB_CQ_REPORT_MISSED_EVENTS`).
    fn req_notify_cq(cq: &Cq<Self>, flags: u32) -> Result<bool>;

    /// `create_qp`: fills `attr.cap` with the actual capacities; returns the data and
    /// the QP number.
    fn create_qp(
        pd: &Pd<Self>,
        attr: &mut QpInitAttr,
        send_cq: &Cq<Self>,
        recv_cq: &Cq<Self>,
        srq: Option<&Srq<Self>>,
        udata: Option<&UData>,
    ) -> Result<(Self::Qp, u32)>;

    /// `modify_qp` with `IB_QP_*` mask bits.
    fn modify_qp(qp: &Qp<Self>, attr: &QpAttr, mask: u32, udata: Option<&UData>) -> Result;

    /// `query_qp`.
    fn query_qp(qp: &Qp<Self>, attr: &mut QpAttr, init: &mut QpInitAttr) -> Result;

    /// `destroy_qp`.
    fn destroy_qp(qp: &Qp<Self>) -> Result;

    /// `fill_res_qp_entry`: the driver's own state of a QP, for
    /// `rdma resource show qp -dd`. By default there is none.
    fn fill_qp_details(_qp: &Qp<Self>, _out: &mut DriverDetails<'_>) -> Result {
        Ok(())
    }

    /// `post_send` of one WR from a kernel consumer.
    fn post_send(qp: &Qp<Self>, wr: &SendWr<'_, Self>) -> Result;

    /// The user-space doorbell: new WQEs are in the QP's mmapped send queue.
    fn doorbell(qp: &Qp<Self>) -> Result;

    /// `post_recv` of one WR from a kernel consumer.
    fn post_recv(qp: &Qp<Self>, wr: &RecvWr<'_>) -> Result;

    /// `create_srq`: fills `attr.attr` with the actual capacities.
    fn create_srq(
        pd: &Pd<Self>,
        attr: &mut SrqInitAttr,
        udata: Option<&UData>,
    ) -> Result<Self::Srq>;

    /// `modify_srq` with `IB_SRQ_*` mask bits.
    fn modify_srq(srq: &Srq<Self>, attr: &SrqAttr, mask: u32, udata: Option<&UData>) -> Result;

    /// `query_srq`.
    fn query_srq(srq: &Srq<Self>) -> Result<SrqAttr>;

    /// `destroy_srq`.
    fn destroy_srq(srq: &Srq<Self>) -> Result;

    /// `post_srq_recv` of one WR from a kernel consumer.
    fn post_srq_recv(srq: &Srq<Self>, wr: &RecvWr<'_>) -> Result;

    /// `create_ah` / `create_user_ah`. Unless `sleepable`, the caller holds spinlocks
    /// (the CM does) and the driver must neither sleep nor allocate with GFP_KERNEL.
    fn create_ah(
        pd: &Pd<Self>,
        attr: &AhAttr,
        sleepable: bool,
        udata: Option<&UData>,
    ) -> Result<Self::Ah>;

    /// `query_ah`.
    fn query_ah(ah: &Ah<Self>) -> Result<AhAttr>;

    /// `destroy_ah`.
    fn destroy_ah(ah: &Ah<Self>) -> Result;

    /// `get_dma_mr`: an MR covering all kernel memory, for kernel consumers.
    fn get_dma_mr(pd: &Pd<Self>, access: u32) -> Result<(Self::Mr, MrKeys)>;

    /// `reg_user_mr`.
    fn reg_user_mr(
        pd: &Pd<Self>,
        start: u64,
        length: u64,
        iova: u64,
        access: u32,
        udata: Option<&UData>,
    ) -> Result<(Self::Mr, MrKeys)>;

    /// `alloc_mr` (fast registration MRs).
    fn alloc_mr(pd: &Pd<Self>, mr_type: u32, max_num_sg: u32) -> Result<(Self::Mr, MrKeys)>;

    /// `map_mr_sg` starts: forget the previous page list.
    fn mr_map_begin(mr: &Mr<Self>) -> Result;

    /// `map_mr_sg`: the next page of the list.
    fn mr_set_page(mr: &Mr<Self>, addr: u64) -> Result;

    /// `map_mr_sg` ends: the mapping's IOVA, length and page size.
    fn mr_map_end(mr: &Mr<Self>, iova: u64, length: u64, page_size: u32) -> Result;

    /// `dereg_mr`: on success the data is dropped and the MR freed.
    fn dereg_mr(mr: &Mr<Self>) -> Result;

    /// `alloc_mw` of type `mw_type` (1 or 2). Returns the data and the rkey.
    fn alloc_mw(pd: &Pd<Self>, mw_type: u32, udata: Option<&UData>) -> Result<(Self::Mw, u32)>;

    /// `dealloc_mw`: on success the data is dropped and the MW freed.
    fn dealloc_mw(mw: &Mw<Self>) -> Result;

    /// `attach_mcast`: the UD QP `qp` joins the multicast group `gid`. The core has
    /// checked that `gid` is a multicast GID and `qp` a UD QP.
    fn attach_mcast(qp: &Qp<Self>, gid: &[u8; 16]) -> Result;

    /// `detach_mcast`: `qp` leaves the group `gid`.
    fn detach_mcast(qp: &Qp<Self>, gid: &[u8; 16]) -> Result;

    /// Port counters shown by `rdma statistic show link DEV/1`; none if empty.
    const HW_STATS: &'static [StatDesc] = &[];

    /// Fills `out` (one value per [`Driver::HW_STATS`] entry) for `port`.
    fn hw_stats(_dev: &Device<Self>, _port: u32, _out: &mut [u64]) {}
}

/// The name of a hardware counter (`struct rdma_stat_desc`).
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
/// [`Device::get_by_netdev`]. Unregistration waits for it to be dropped.
///
/// # Invariants
///
/// `0` is a registered device of driver `T` on which this value holds a reference.
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

/// Parameters fixed at registration.
pub struct DeviceParams<'a> {
    /// `node_desc`, shown by `ibv_devinfo -v` and in sysfs.
    pub node_desc: &'a CStr,
    /// Node GUID, network byte order.
    pub node_guid: u64,
    /// Whether the name was given by the user (`rdma link add NAME`).
    pub name_assigned_by_user: bool,
}

#[repr(C)]
struct DeviceObj<T: Driver> {
    /// Must be first: `_ib_alloc_device` allocates the driver struct around it.
    ib: Opaque<bindings::ib_device>,
    netdev: ARef<NetDevice>,
    /// QPs by number, for RCU lookups from the data path (see [`Device::qp_rcu`]).
    qp_table: Opaque<bindings::xarray>,
    data: T::Data,
}

/// A registered (or registering) `ib_device` of driver `T`.
///
/// # Invariants
///
/// A `&Device<T>` points at the `ib` field of a live `DeviceObj<T>` whose `netdev`
/// and `data` are initialised.
#[repr(transparent)]
pub struct Device<T: Driver>(Opaque<bindings::ib_device>, PhantomData<T>);

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

    /// The network device the device's port 1 is bound to.
    pub fn netdev(&self) -> &NetDevice {
        // SAFETY: By the type invariant `netdev` is initialised and alive.
        unsafe { &(*self.obj()).netdev }
    }

    /// The raw QP table.
    pub(crate) fn qp_table(&self) -> *mut bindings::xarray {
        // SAFETY: By the type invariant the object is alive; the table was
        // initialised in `register`.
        unsafe { (*self.obj()).qp_table.get() }
    }

    /// Finds a QP by number from any context, under RCU. The QP stays valid for
    /// the guard's lifetime: QPs enter the table once created and destroying one
    /// removes it and waits for a grace period before the core frees it.
    pub fn qp_rcu<'g>(&'g self, qpn: u32, _guard: &'g rcu::Guard) -> Option<&'g Qp<T>> {
        // SAFETY: The table is valid; `xa_load` is safe under RCU.
        let p = unsafe { bindings::xa_load(self.qp_table(), qpn as usize) };
        if p.is_null() {
            return None;
        }
        // SAFETY: Only created QPs of this driver are stored, and they stay valid
        // until a grace period after removal; the guard holds off that period.
        Some(unsafe { Qp::<T>::from_raw(p.cast()) })
    }

    /// A counted reference to this device, unless it is being unregistered.
    pub fn get_ref(&self) -> Option<DeviceRef<T>> {
        // SAFETY: The device is valid; a successful try_get takes a reference.
        if unsafe { bindings::ib_device_try_get(self.as_raw()) } {
            Some(DeviceRef(NonNull::new(self.as_raw())?, PhantomData))
        } else {
            None
        }
    }

    /// Finds the registered device of driver `T` (loaded as `module`) on `netdev`,
    /// from any context. The driver id alone is not enough: another driver may
    /// register devices with the same id (rrxe and rdma_rxe both report RXE).
    pub fn get_by_netdev(module: &ThisModule, netdev: &NetDevice) -> Option<DeviceRef<T>> {
        // SAFETY: `netdev` is valid; a non-null result carries a device reference.
        let ib = unsafe { bindings::ib_device_get_by_netdev(netdev.as_raw(), T::DRIVER_ID) };
        let ib = NonNull::new(ib)?;
        // SAFETY: The reference keeps the device and its ops alive.
        if unsafe { (*ib.as_ptr()).ops.owner } != module.as_ptr() {
            // SAFETY: Gives back the reference just taken.
            unsafe { bindings::ib_device_put(ib.as_ptr()) };
            return None;
        }
        Some(DeviceRef(ib, PhantomData))
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

    /// Tells ULPs about a port state change (`ib_dispatch_event`).
    pub fn dispatch_port_event(&self, port: u32, event: PortEvent) {
        let mut ev: bindings::ib_event = pin_init::zeroed();
        ev.device = self.as_raw();
        ev.event = event.to_raw();
        ev.element.port_num = port;
        // SAFETY: `ev` is a fully initialised event for a valid, registered device.
        unsafe { bindings::ib_dispatch_event(&ev) };
    }

    /// Starts unregistering the device from a work queue (`ib_unregister_device_queued`),
    /// for callers that hold locks unregistration may need, e.g. the RTNL.
    ///
    /// A device already being unregistered (its reference count at zero, e.g. by
    /// module unload racing a namespace's deletion) is left alone: it is going
    /// anyway, and queueing it again warns. As rdma_rxe, which finds the device
    /// with `ib_device_get_by_netdev`, the call is made holding a reference.
    pub fn unregister_queued(&self) {
        let Some(_held) = self.get_ref() else {
            return;
        };
        // SAFETY: The device is valid, uses the dealloc_driver flow, and we hold a
        // reference, so unregistration has not passed the point of no return.
        unsafe { bindings::ib_unregister_device_queued(self.as_raw()) };
    }

    /// Allocates, initialises and registers a device named `name` with port 1 bound to
    /// `netdev`. The device lives in `netdev`'s network namespace.
    ///
    /// A name already in use, or a netdev that already has a device of this driver,
    /// fails with `EEXIST`.
    ///
    /// On success the device belongs to the RDMA core and may already be gone by the
    /// time this returns (a concurrent `rdma link del`); reach it via [`DeviceList`].
    pub fn register(
        module: &ThisModule,
        name: &CStr,
        netdev: &NetDevice,
        params: &DeviceParams<'_>,
        data: impl PinInit<T::Data, Error>,
    ) -> Result {
        // SAFETY: `netdev` is valid; the size covers `DeviceObj<T>` whose first field
        // is the `ib_device`, as `_ib_alloc_device` requires.
        let ib = unsafe { bindings::_ib_alloc_device(size_of::<DeviceObj<T>>(), netdev.net_raw()) };
        let ib = NonNull::new(ib).ok_or(ENOMEM)?.as_ptr();
        let obj = ib.cast::<DeviceObj<T>>();

        // SAFETY: `obj` is a fresh zeroed allocation of the right size; fields are
        // written in place before anything reads them.
        unsafe {
            (&raw mut (*obj).netdev).write(netdev.into());
            // IRQ-safe: the lock class is shared with every XArray the kernel crate
            // creates, and drivers take some of those with interrupts off.
            bindings::xa_init_flags((*obj).qp_table.get(), bindings::XA_FLAGS_LOCK_IRQ);
            if let Err(e) = data.__init(&raw mut (*obj).data) {
                core::ptr::drop_in_place(&raw mut (*obj).netdev);
                // Ops are not set yet, so no dealloc_driver runs.
                bindings::ib_dealloc_device(ib);
                return Err(e);
            }
            Self::setup(ib, params);
            let mut ops = Self::OPS;
            ops.owner = module.as_ptr();
            // From here on `ib_dealloc_device` calls `dealloc_driver`, which drops
            // `netdev` and `data`.
            bindings::ib_set_device_ops(ib, &ops);
        }

        // SAFETY: `ib` is valid and not yet registered.
        let err = unsafe { bindings::ib_device_set_netdev(ib, netdev.as_raw(), 1) };
        if let Err(e) = to_result(err) {
            // SAFETY: Not registered: the caller owns the device and frees it.
            unsafe { bindings::ib_dealloc_device(ib) };
            return Err(e);
        }
        // In the list before registration, so module exit and netdev events see it.
        // Checked and added under one lock: two racing `rdma link add`s on the same
        // netdev cannot both get a device.
        let added = T::with_devices(|list| {
            if list.find_by_netdev(netdev).is_some() {
                return Err(EEXIST);
            }
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
            (*ib).node_type = bindings::RDMA_NODE_IB_CA as u8;
            (*ib).phys_port_cnt = 1;
            // One completion vector per possible CPU, as rdma_rxe.
            (*ib).num_comp_vectors = bindings::num_possible_cpus() as i32;
            (*ib).local_dma_lkey = 0;
            (*ib).node_guid = params.node_guid;
            // Legacy write() commands the rxe provider still issues.
            (*ib).uverbs_cmd_mask |= (1u64
                << bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POST_SEND)
                | (1u64 << bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
            if params.name_assigned_by_user {
                bindings::ib_mark_name_assigned_by_user(ib);
            }
        }
    }

    const OPS: bindings::ib_device_ops = bindings::ib_device_ops {
        driver_id: T::DRIVER_ID,
        uverbs_abi_ver: T::UVERBS_ABI_VERSION,
        dealloc_driver: Some(Self::dealloc_driver_cb),
        query_device: Some(Self::query_device_cb),
        query_port: Some(Self::query_port_cb),
        query_pkey: Some(Self::query_pkey_cb),
        get_port_immutable: Some(Self::port_immutable_cb),
        get_link_layer: Some(Self::link_layer_cb),
        alloc_ucontext: Some(Self::alloc_ucontext_cb),
        dealloc_ucontext: Some(Self::dealloc_ucontext_cb),
        alloc_pd: Some(Self::alloc_pd_cb),
        dealloc_pd: Some(Self::dealloc_pd_cb),
        mmap: Some(super::shared_buf::mmap_cb),
        mmap_free: Some(super::shared_buf::mmap_free_cb),
        create_cq: Some(Ops::<T>::create_cq),
        resize_user_cq: Some(Ops::<T>::resize_cq),
        destroy_cq: Some(Ops::<T>::destroy_cq),
        poll_cq: Some(Ops::<T>::poll_cq),
        peek_cq: Some(Ops::<T>::peek_cq),
        req_notify_cq: Some(Ops::<T>::req_notify_cq),
        create_qp: Some(Ops::<T>::create_qp),
        modify_qp: Some(Ops::<T>::modify_qp),
        query_qp: Some(Ops::<T>::query_qp),
        fill_res_qp_entry: Some(Ops::<T>::fill_res_qp_entry),
        destroy_qp: Some(Ops::<T>::destroy_qp),
        post_send: Some(Ops::<T>::post_send),
        post_recv: Some(Ops::<T>::post_recv),
        create_srq: Some(Ops::<T>::create_srq),
        modify_srq: Some(Ops::<T>::modify_srq),
        query_srq: Some(Ops::<T>::query_srq),
        destroy_srq: Some(Ops::<T>::destroy_srq),
        post_srq_recv: Some(Ops::<T>::post_srq_recv),
        create_ah: Some(Ops::<T>::create_ah),
        create_user_ah: Some(Ops::<T>::create_ah),
        query_ah: Some(Ops::<T>::query_ah),
        destroy_ah: Some(Ops::<T>::destroy_ah),
        get_dma_mr: Some(Ops::<T>::get_dma_mr),
        reg_user_mr: Some(Ops::<T>::reg_user_mr),
        alloc_mr: Some(Ops::<T>::alloc_mr),
        map_mr_sg: Some(Ops::<T>::map_mr_sg),
        dereg_mr: Some(Ops::<T>::dereg_mr),
        alloc_mw: Some(Ops::<T>::alloc_mw),
        dealloc_mw: Some(Ops::<T>::dealloc_mw),
        attach_mcast: Some(Ops::<T>::attach_mcast),
        detach_mcast: Some(Ops::<T>::detach_mcast),
        alloc_hw_port_stats: if T::HW_STATS.is_empty() {
            None
        } else {
            Some(Self::alloc_hw_port_stats_cb)
        },
        get_hw_stats: if T::HW_STATS.is_empty() {
            None
        } else {
            Some(Self::get_hw_stats_cb)
        },
        size_ib_ucontext: size_of::<ObjWith<bindings::ib_ucontext, T::UContext>>(),
        size_ib_pd: size_of::<ObjWith<bindings::ib_pd, T::Pd>>(),
        size_ib_cq: size_of::<ObjWith<bindings::ib_cq, T::Cq>>(),
        size_ib_qp: size_of::<ObjWith<bindings::ib_qp, T::Qp>>(),
        size_ib_srq: size_of::<ObjWith<bindings::ib_srq, T::Srq>>(),
        size_ib_ah: size_of::<ObjWith<bindings::ib_ah, T::Ah>>(),
        size_ib_mw: size_of::<ObjWith<bindings::ib_mw, T::Mw>>(),
        ..pin_init::zeroed()
    };

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn dealloc_driver_cb(ib: *mut bindings::ib_device) {
        T::with_devices(|list| list.devs.retain(|d| d.0 != ib));
        let obj = ib.cast::<DeviceObj<T>>();
        // SAFETY: The core calls this once, after every other op has returned and
        // before freeing the memory; the fields were initialised in `register`.
        unsafe {
            core::ptr::drop_in_place(&raw mut (*obj).data);
            core::ptr::drop_in_place(&raw mut (*obj).netdev);
            bindings::xa_destroy((*obj).qp_table.get());
        }
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
        _index: crate::ffi::c_int,
    ) -> crate::ffi::c_int {
        // SAFETY: `stats` holds `num_counters` values, which equals `HW_STATS.len()`;
        // the core serialises access.
        let (dev, out) = unsafe {
            let n = ((*stats).num_counters.max(0) as usize).min(T::HW_STATS.len());
            (Device::<T>::from_raw(ib), (*stats).value.as_mut_slice(n))
        };
        T::hw_stats(dev, port, out);
        out.len() as crate::ffi::c_int
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn query_device_cb(
        ib: *mut bindings::ib_device,
        attr: *mut bindings::ib_device_attr,
        udata: *mut bindings::ib_udata,
    ) -> crate::ffi::c_int {
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
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn query_port_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        attr: *mut bindings::ib_port_attr,
    ) -> crate::ffi::c_int {
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
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn query_pkey_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        index: u16,
        pkey: *mut u16,
    ) -> crate::ffi::c_int {
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
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn port_immutable_cb(
        ib: *mut bindings::ib_device,
        port: u32,
        imm: *mut bindings::ib_port_immutable,
    ) -> crate::ffi::c_int {
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
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn link_layer_cb(_ib: *mut bindings::ib_device, _port: u32) -> u32 {
        // Every port of a RoCE provider is Ethernet.
        bindings::rdma_link_layer_IB_LINK_LAYER_ETHERNET
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn alloc_ucontext_cb(
        ctx: *mut bindings::ib_ucontext,
        udata: *mut bindings::ib_udata,
    ) -> crate::ffi::c_int {
        from_result(|| {
            // SAFETY: The core allocated `ctx` at `size_ib_ucontext` and set `device`.
            let dev = unsafe { Self::from_raw((*ctx).device) };
            // SAFETY: `udata` is null or valid for the call.
            let v = T::alloc_ucontext(dev, unsafe { UData::from_raw(udata) }.as_ref())?;
            // SAFETY: `ctx` is an `ObjWith<ib_ucontext, _>` whose data slot is unused.
            unsafe { ObjWith::<bindings::ib_ucontext, T::UContext>::init(ctx, v) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn dealloc_ucontext_cb(ctx: *mut bindings::ib_ucontext) {
        // SAFETY: Called once for a context `alloc_ucontext_cb` initialised.
        unsafe { ObjWith::<bindings::ib_ucontext, T::UContext>::drop_data(ctx) };
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn alloc_pd_cb(
        pd: *mut bindings::ib_pd,
        udata: *mut bindings::ib_udata,
    ) -> crate::ffi::c_int {
        from_result(|| {
            // SAFETY: The core allocated `pd` at `size_ib_pd` and set `device`.
            let dev = unsafe { Self::from_raw((*pd).device) };
            // SAFETY: `udata` is null or valid for the call.
            let v = T::alloc_pd(dev, unsafe { UData::from_raw(udata) }.as_ref())?;
            // SAFETY: `pd` is an `ObjWith<ib_pd, _>` whose data slot is unused.
            unsafe { ObjWith::<bindings::ib_pd, T::Pd>::init(pd, v) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Called only by the RDMA core, with pointers valid for the duration of the call
    /// and, for device and object callbacks, a device registered by [`Self::register`].
    unsafe extern "C" fn dealloc_pd_cb(
        pd: *mut bindings::ib_pd,
        _udata: *mut bindings::ib_udata,
    ) -> crate::ffi::c_int {
        // SAFETY: Called once for a PD `alloc_pd_cb` initialised.
        unsafe { ObjWith::<bindings::ib_pd, T::Pd>::drop_data(pd) };
        0
    }
}

/// A core-allocated verbs object (`ib_pd`, `ib_ucontext`, ...) followed by driver data,
/// as `INIT_RDMA_OBJ_SIZE` lays it out.
#[repr(C)]
pub(crate) struct ObjWith<C, D> {
    pub(crate) core: C,
    pub(crate) data: D,
}

impl<C, D> ObjWith<C, D> {
    /// # Safety
    ///
    /// `core` must be the first field of an allocation of `size_of::<Self>()` bytes
    /// whose data slot is uninitialised.
    pub(crate) unsafe fn init(core: *mut C, data: D) {
        // SAFETY: Per the contract the slot is valid for writes.
        unsafe { (&raw mut (*core.cast::<Self>()).data).write(data) };
    }

    /// # Safety
    ///
    /// The data slot must be initialised and is dropped exactly once.
    pub(crate) unsafe fn drop_data(core: *mut C) {
        // SAFETY: Per the contract.
        unsafe { core::ptr::drop_in_place(&raw mut (*core.cast::<Self>()).data) };
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct RawDevice(*mut bindings::ib_device);
// SAFETY: Only compared and passed to thread-safe core functions.
unsafe impl Send for RawDevice {}

/// The devices of one driver. Entries are added by [`Device::register`] and removed
/// by `dealloc_driver`, both under the driver's lock (see [`Driver::with_devices`]).
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

    /// The device bound to `netdev`, if any. Valid while the list is borrowed, which
    /// keeps `dealloc_driver` (and so the data's drop) waiting.
    pub fn find_by_netdev(&self, netdev: &NetDevice) -> Option<&Device<T>> {
        self.iter().find(|d| d.netdev().as_raw() == netdev.as_raw())
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
