// SPDX-License-Identifier: GPL-2.0

//! rrxe: a soft RoCE v2 RDMA provider, wire and user-ABI compatible with rdma_rxe.
//!
//! `rdma link add NAME type rrxe netdev DEV` creates a device on any Ethernet netdev.
//! It reports driver id `RDMA_DRIVER_RXE` and uverbs ABI 2, so rdma-core's rxe
//! provider drives it unmodified.

use kernel::{
    net::{
        namespace::PernetRegistration,
        netdev::{self, NetDevice},
    },
    prelude::*,
    rdma::{self, link},
    str::CStr,
    workqueue::{
        self,
        module_queue::{ModuleQueue, WQ_MEM_RECLAIM, WQ_SYSFS, WQ_UNBOUND},
        Queue,
    },
};

mod abi;
mod engine;
mod net;
mod obj;
mod params;
mod proto;
mod proto_kunit;
mod stats;
mod verbs;

use obj::{device, Rrxe};

/// The module, with the link type's alias `$alias` (`rdma link add` of an
/// unknown type loads `rdma-link-TYPE`). Its messages say "rrxe" in both builds.
macro_rules! rrxe_module {
    ($alias:tt) => {
module! {
    type: RrxeModule,
    name: "rrxe",
    authors: ["rrxe developers"],
    description: "Soft RoCE v2 RDMA provider (Rust)",
    license: "GPL",
    alias: [$alias],
    params: {
        doorbell: u32 {
            default: 1,
            description: "The doorbell offered to providers that ask (uapi/rdma/rdma_user_rrxe.h): 0 none, so every post and CQ arm is a system call; 1 posts skip the system call while the QP has work in flight, and CQs are armed through the ring; 2 as 1, and an idle QP is polled for an adaptive window while its CPU has nothing else to run; 3 as 1, and an idle QP is polled by a dedicated poller (work queue rrxe_poll) until doorbell_poll_idle_ms pass without a post",
        },
        doorbell_poll_start_us: u32 {
            default: 10,
            description: "doorbell=2: the first window, in microseconds, of a QP whose posts follow its idling quickly; the window doubles from here up to doorbell_poll_max_us, and halves below here to 0",
        },
        doorbell_poll_max_us: u32 {
            default: 200,
            description: "doorbell=2: the longest window, in microseconds, for which an idle QP is polled; a QP that stays idle longer has its window halved",
        },
        doorbell_poll_idle_ms: u32 {
            default: 1000,
            description: "doorbell=3: how long, in milliseconds, the dedicated poller watches an idle QP before it withdraws the promise",
        },
        post_handoff: u32 {
            default: 3,
            description: "User posts behind unfinished WQEs, or of unsignaled READs, atomics and FLUSHes, sent from a work item: 0 never, 1 one-packet messages, 2 all, 3 all but SENDs of at most 8 packets to an rrxe device on this host while no other QP of the device is busy",
        },
    },
}
    };
}

// The drop-in build (`RRXE_DROPIN=1`, Documentation/admin-guide.rst) is module
// `rdma_rxe` (the Makefile names the object) with link type `rxe`.
#[cfg(not(rrxe_dropin))]
rrxe_module!("rdma-link-rrxe");
#[cfg(rrxe_dropin)]
rrxe_module!("rdma-link-rxe");

/// The link type users name in `rdma link add NAME type TYPE`.
#[cfg(not(rrxe_dropin))]
const LINK_TYPE: &CStr = c"rrxe";
#[cfg(rrxe_dropin)]
const LINK_TYPE: &CStr = c"rxe";

/// The doorbell mode (`doorbell` parameter), read when a process opens a device.
pub(crate) fn doorbell() -> u32 {
    module_parameters::doorbell.value()
}

/// `doorbell=2`'s window bounds, in nanoseconds: (start, max).
pub(crate) fn doorbell_poll_window_ns() -> (i64, i64) {
    let start = i64::from(module_parameters::doorbell_poll_start_us.value()) * 1000;
    let max = i64::from(module_parameters::doorbell_poll_max_us.value()) * 1000;
    (start.min(max), max)
}

/// `doorbell=3`'s idle time, in nanoseconds.
pub(crate) fn doorbell_poll_idle_ns() -> i64 {
    i64::from(module_parameters::doorbell_poll_idle_ms.value()) * 1_000_000
}

/// Which user posts are handed to the QP's work item ([`qp::post::handoff`]).
pub(crate) fn post_handoff() -> u32 {
    module_parameters::post_handoff.value()
}

kernel::sync::global_lock! {
    // SAFETY: Initialised in `RrxeModule::init` before anything can use it.
    unsafe(uninit) static DEVICES: Mutex<rdma::DeviceList<Rrxe>> = rdma::DeviceList::new();
}

/// This module, for telling our devices from rdma_rxe's (same driver id).
/// The QPs' work items run here: unbound, as rdma_rxe's, with a rescuer, as a
/// storage path (NVMe-oF, SRP) needs, and drained at unload, so no work item
/// that outlived its QP runs the module's code after it is gone.
static WORK_QUEUE: ModuleQueue = ModuleQueue::new();

/// rrxe's work queue.
pub(crate) fn work_queue() -> &'static Queue {
    // Created in `init` before any device can exist and destroyed after the
    // last, so a QP always finds it; the fallback only keeps this total.
    WORK_QUEUE.get().unwrap_or_else(workqueue::system_dfl)
}

/// Page faults of on-demand-paging MRs run here ([`obj::qp::work`]'s fault
/// work item): unbound, and without a rescuer, unlike [`work_queue`], since a
/// fault may wait for reclaim, which a storage QP's work item on the rescuer
/// may be what it waits for. Drained at unload.
static FAULT_QUEUE: ModuleQueue = ModuleQueue::new();

/// The work queue of page faults.
pub(crate) fn fault_queue() -> &'static Queue {
    FAULT_QUEUE.get().unwrap_or_else(workqueue::system_dfl)
}

/// The doorbell's poller runs here (`doorbell` 2 and 3): unbound, and in sysfs
/// (`/sys/devices/virtual/workqueue/rrxe_poll/cpumask`) so that an
/// administrator can give the dedicated poller a CPU of its own. No rescuer:
/// polling is never needed for progress, since every promise it keeps is
/// withdrawn (and the ring re-read) when it stops.
static POLL_QUEUE: ModuleQueue = ModuleQueue::new();

/// The poller's work queue.
pub(crate) fn poll_queue() -> &'static Queue {
    POLL_QUEUE.get().unwrap_or_else(workqueue::system_dfl)
}

/// The `rrxe` link type (`rxe` in the drop-in build).
struct RrxeLink;

impl link::LinkOps for RrxeLink {
    const TYPE: &'static CStr = LINK_TYPE;

    fn newlink(name: &CStr, ndev: &NetDevice) -> Result {
        device::add(name, ndev)
    }
}

/// Netdev events for the netdevs our devices sit on.
struct NetdevEvents;

impl netdev::NotifierHandler for NetdevEvents {
    fn event(&self, event: netdev::Event, ndev: &NetDevice) {
        <Rrxe as rdma::Driver>::with_devices(|list| {
            if let Some(dev) = list.find_by_netdev(ndev) {
                device::netdev_event(dev, event);
            }
        });
    }
}

struct RrxeModule {
    /// Taken first on unload so that no device can be created while the rest goes.
    link: Option<Pin<KBox<link::Registration<RrxeLink>>>>,
    _notifier: Pin<KBox<netdev::Notifier<NetdevEvents>>>,
    /// Releases a namespace's sockets when it dies; dropped after the devices.
    _pernet: Pin<KBox<PernetRegistration<net::socket::Pernet>>>,
}

impl kernel::Module for RrxeModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Called once, before the link type or notifier exist.
        unsafe { DEVICES.init() };
        net::socket::init();
        WORK_QUEUE.create(c"rrxe", WQ_UNBOUND | WQ_MEM_RECLAIM)?;
        if let Err(e) = POLL_QUEUE.create(c"rrxe_poll", WQ_UNBOUND | WQ_SYSFS) {
            // SAFETY: No device was created, so nothing queued work on it.
            unsafe { WORK_QUEUE.destroy() };
            return Err(e);
        }
        if let Err(e) = FAULT_QUEUE.create(c"rrxe_fault", WQ_UNBOUND) {
            // SAFETY: No device was created, so nothing queued work on them.
            unsafe {
                POLL_QUEUE.destroy();
                WORK_QUEUE.destroy();
            }
            return Err(e);
        }
        let registered = (|| {
            let pernet = KBox::pin_init(PernetRegistration::new(), GFP_KERNEL)?;
            let notifier = KBox::pin_init(netdev::Notifier::new(NetdevEvents), GFP_KERNEL)?;
            let link = KBox::pin_init(link::Registration::<RrxeLink>::new(), GFP_KERNEL)?;
            Ok(RrxeModule {
                link: Some(link),
                _notifier: notifier,
                _pernet: pernet,
            })
        })();
        if registered.is_err() {
            // No device was created, so nothing queued work or holds the queues.
            // SAFETY: Nothing queues work on the poller's queue or holds it.
            unsafe { POLL_QUEUE.destroy() };
            // SAFETY: Nothing queues work on the fault queue or holds it.
            unsafe { FAULT_QUEUE.destroy() };
            // SAFETY: Nothing queues work on the QPs' queue or holds it.
            unsafe { WORK_QUEUE.destroy() };
        } else {
            pr_info!("loaded\n");
        }
        registered
    }
}

impl Drop for RrxeModule {
    fn drop(&mut self) {
        // Order matters: no new devices, then remove ours (never rdma_rxe's, which
        // share the driver id), then stop listening to netdev events.
        self.link.take();
        rdma::DeviceList::<Rrxe>::unregister_all();
        net::socket::exit();
        // The sockets went with the devices; receivers that were already running
        // (under RCU) must finish before the module's code goes away.
        kernel::sync::rcu::synchronize_rcu();
        // The devices, and so their QPs and QP timers, are gone, and the
        // receivers have finished: only work items already queued still use the
        // queues (and queue themselves again on them), and destroying them drains
        // them. The poller first: it may queue a QP's work item, never the reverse.
        // SAFETY: Only the poller's own queued runs still use its queue.
        unsafe { POLL_QUEUE.destroy() };
        // Faults next: a fault work item queues a QP's work item, and a QP's
        // work item queues a fault only for a live QP, and none is left.
        // SAFETY: Only fault work items already queued still use this queue.
        unsafe { FAULT_QUEUE.destroy() };
        // SAFETY: With the poller drained, only QP work items still use this queue.
        unsafe { WORK_QUEUE.destroy() };
        pr_info!("unloaded\n");
    }
}
