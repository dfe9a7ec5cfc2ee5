// SPDX-License-Identifier: GPL-2.0

//! A device: the objects it holds, what it reports, and its life on a netdev:
//! created by `rdma link add`, its port following the netdev's state, and
//! removed with the netdev.

use crate::{
    abi,
    net::socket::SocketUse,
    obj::{
        ah::RrxeAh,
        mcast,
        mr::{self, Keys},
        pd::PdId,
        pool::Pool,
        qp::poll::Poller,
        qp::RrxeQp,
        srq::RrxeSrq,
        Rrxe,
    },
    params,
    proto::pma,
    stats::{Counter, Stats},
};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use kernel::{
    net::netdev::{Event, NetDevice},
    new_mutex, new_spinlock_irq,
    prelude::*,
    rdma::{
        self,
        attr::{
            cap, port, DeviceAttr, Mtu, NodeType, OdpCaps, PhysState, PortAttr, PortImmutable,
            PortState,
        },
        device::{DeviceParams, MadResult, MAD_SIZE},
        event::EventType,
        sw::{self, QpTable, SoftDevice},
    },
    str::CStr,
    sync::{Arc, Mutex, SpinLockIrq},
};

/// Per-device state. Created by [`add`] and dropped by the RDMA core's
/// `dealloc_driver` once the device is unregistered, after every object of the
/// device is gone. The pools, the groups and the atomics' lock have locks of
/// their own; the counters are atomic.
#[pin_data]
pub(crate) struct RrxeDevice {
    /// QPs by QP number.
    #[pin]
    pub(in crate::obj) qps: Pool<RrxeQp>,
    /// MRs and MWs by key index (`key >> 8`).
    #[pin]
    pub(crate) keys: Keys,
    /// AHs by `ah_num`.
    #[pin]
    pub(crate) ahs: Pool<RrxeAh>,
    /// SRQs by number.
    #[pin]
    pub(crate) srqs: Pool<RrxeSrq>,
    /// Source of PD identities, so objects can be checked for a common PD. 64
    /// bits, so that they never wrap: two PDs with one identity would share
    /// MRs, MWs and AHs across processes, or with a kernel PD's DMA MR.
    next_pd_id: AtomicU64,
    /// Source of QP serial numbers, which unlike QPNs are never reused.
    next_qp_serial: AtomicU64,
    /// QPs whose send queue holds WQEs not yet completed ([`crate::obj::qp::SendQueue`]
    /// keeps it exact): the doorbell sends a lone SEND stream itself.
    pub(crate) busy_qps: AtomicU32,
    /// The netdev's MAC, the seed of the GUIDs (rxe's `raw_gid`); a random
    /// address on an L3 netdev, which has none.
    mac: [u8; 6],
    /// The last port state reported to ULPs, so each change is reported once.
    reported_state: AtomicU32,
    /// Unregistration was queued. The netdev core repeats NETDEV_UNREGISTER while
    /// references remain, and a device must be queued for unregistration once.
    unregistering: AtomicBool,
    /// Packet counters (`rdma statistic show link DEV/1`), shared with the
    /// poller.
    pub(crate) stats: Arc<Stats>,
    /// The doorbell's poller and the idle QPs it watches (`doorbell` 2 and 3).
    pub(crate) poller: Arc<Poller>,
    /// Serialises the responder's atomics on this device, as rxe's global lock.
    #[pin]
    pub(crate) atomic_lock: SpinLockIrq<()>,
    /// Multicast groups and their QPs.
    #[pin]
    pub(crate) mcast: mcast::Groups,
    /// This device's share of its namespace's port-4791 sockets, given back
    /// when its netdev unregisters (as rdma_rxe does, so the port closes with
    /// the netdev and not only once the queued unregistration ran), or else
    /// with the device.
    #[pin]
    sockets: Mutex<Option<SocketUse>>,
    /// The netdev and the QPs by number (`kernel::rdma::sw`). Last: dropped
    /// after the rest.
    #[pin]
    sw: SoftDevice<Rrxe>,
}

/// rrxe's devices by netdev, for the receive path (not the core's lookup, which
/// would also give rdma_rxe's notifier our devices: `kernel::rdma::sw`).
static NETDEVS: sw::NetdevIndex<Rrxe> = sw::NetdevIndex::new();

impl sw::Provider for Rrxe {
    fn soft(data: &RrxeDevice) -> &SoftDevice<Rrxe> {
        &data.sw
    }

    fn netdev_index() -> &'static sw::NetdevIndex<Rrxe> {
        &NETDEVS
    }
}

impl RrxeDevice {
    /// The identity of a new PD.
    pub(crate) fn new_pd_id(&self) -> PdId {
        self.next_pd_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The device's QPs by number, for the core's QP table.
    pub(crate) fn qp_table(&self) -> &QpTable<Rrxe> {
        self.sw.qps()
    }

    /// The serial number of a new QP.
    pub(crate) fn new_qp_serial(&self) -> u64 {
        self.next_qp_serial.fetch_add(1, Ordering::Relaxed)
    }
}

/// Only port 1 exists.
pub(crate) fn check_port(port_num: u32) -> Result {
    if port_num == 1 {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

/// The device's attributes (`query_device`): rdma_rxe's for the same netdev.
pub(crate) fn attributes(dev: &rdma::Device<Rrxe>) -> DeviceAttr {
    let guid = u64::from_ne_bytes(params::eui64(dev.data().mac));
    DeviceAttr {
        sys_image_guid: guid,
        vendor_id: params::VENDOR_ID,
        max_mr_size: params::MAX_MR_SIZE,
        page_size_cap: params::PAGE_SIZE_CAP,
        max_qp: params::MAX_QP,
        max_qp_wr: params::MAX_QP_WR,
        device_cap_flags: params::DEVICE_CAP_FLAGS,
        kernel_cap_flags: cap::K_ALLOW_USER_UNREG
            | if mr::ODP { cap::K_ON_DEMAND_PAGING } else { 0 },
        max_send_sge: params::MAX_SGE,
        max_recv_sge: params::MAX_SGE,
        max_sge_rd: params::MAX_SGE_RD,
        max_cq: params::MAX_CQ,
        max_cqe: (1 << params::MAX_LOG_CQE) - 1,
        max_mr: params::MAX_MR,
        max_pd: params::MAX_PD,
        max_qp_rd_atom: params::MAX_QP_RD_ATOM,
        max_res_rd_atom: params::MAX_RES_RD_ATOM,
        max_qp_init_rd_atom: params::MAX_QP_INIT_RD_ATOM,
        atomic_cap: cap::ATOMIC_HCA,
        max_mw: params::MAX_MW,
        max_mcast_grp: params::MAX_MCAST_GRP,
        max_mcast_qp_attach: params::MAX_MCAST_QP_ATTACH,
        max_total_mcast_qp_attach: params::MAX_TOT_MCAST_QP_ATTACH,
        max_ah: params::MAX_AH,
        max_srq: params::MAX_SRQ,
        max_srq_wr: params::MAX_SRQ_WR,
        max_srq_sge: params::MAX_SRQ_SGE,
        max_fast_reg_page_list_len: params::MAX_FMR_PAGE_LIST_LEN,
        max_pkeys: params::MAX_PKEYS,
        local_ca_ack_delay: params::LOCAL_CA_ACK_DELAY,
        odp_caps: if mr::ODP {
            odp_caps()
        } else {
            OdpCaps::default()
        },
        ..DeviceAttr::default()
    }
}

/// What on-demand-paging MRs serve: rdma_rxe's list (explicit ODP only, no
/// implicit ODP).
fn odp_caps() -> OdpCaps {
    OdpCaps {
        general_caps: cap::ODP_SUPPORT,
        rc_odp_caps: cap::ODP_SUPPORT_SEND
            | cap::ODP_SUPPORT_RECV
            | cap::ODP_SUPPORT_WRITE
            | cap::ODP_SUPPORT_READ
            | cap::ODP_SUPPORT_ATOMIC
            | cap::ODP_SUPPORT_SRQ_RECV
            | cap::ODP_SUPPORT_FLUSH
            | cap::ODP_SUPPORT_ATOMIC_WRITE,
        ud_odp_caps: cap::ODP_SUPPORT_SEND | cap::ODP_SUPPORT_RECV | cap::ODP_SUPPORT_SRQ_RECV,
        ..OdpCaps::default()
    }
}

/// Port 1's attributes (`query_port`), from the netdev's state.
pub(crate) fn port_attributes(dev: &rdma::Device<Rrxe>, port_num: u32) -> Result<PortAttr> {
    check_port(port_num)?;
    let ndev = dev.netdev();
    let state = PortState::of_netdev(ndev);
    // The core no longer hands out a netdev that is being unregistered, so
    // `ib_get_eth_speed` fails then (ENODEV, as rdma_rxe's whole query
    // does). A port query must still answer, a DOWN port at the speed the
    // core gives a link of unknown speed: a namespace created meanwhile
    // queries every device's port (its compat device's sysfs), and a
    // failure there failed the namespace's creation with ENODEV.
    let (active_speed, active_width) = dev
        .eth_speed(port_num)
        .unwrap_or((abi::SPEED_SDR, abi::WIDTH_1X));
    Ok(PortAttr {
        state,
        max_mtu: Mtu::Mtu4096,
        active_mtu: params::active_mtu(ndev.mtu()),
        gid_tbl_len: params::PORT_GID_TBL_LEN,
        port_cap_flags: params::PORT_CAP_FLAGS,
        max_msg_sz: params::PORT_MAX_MSG_SZ,
        pkey_tbl_len: params::PORT_PKEY_TBL_LEN,
        max_vl_num: params::PORT_MAX_VL_NUM,
        active_width,
        active_speed,
        phys_state: if state == PortState::Active {
            PhysState::LinkUp
        } else if ndev.is_up() {
            PhysState::Polling
        } else {
            PhysState::Disabled
        },
        ..PortAttr::default()
    })
}

/// The P_Key at `index` of port 1's one-entry table (`query_pkey`).
pub(crate) fn pkey(port_num: u32, index: u16) -> Result<u16> {
    check_port(port_num)?;
    if index != 0 {
        return Err(EINVAL);
    }
    Ok(port::DEFAULT_PKEY_FULL)
}

/// What never changes about port 1 (`get_port_immutable`).
pub(crate) fn port_immutable(port_num: u32) -> Result<PortImmutable> {
    check_port(port_num)?;
    Ok(PortImmutable {
        core_cap_flags: port::CORE_CAP_ROCE_UDP_ENCAP,
        pkey_tbl_len: params::PORT_PKEY_TBL_LEN.into(),
        gid_tbl_len: params::PORT_GID_TBL_LEN,
        max_mad_size: port::MGMT_MAD_SIZE,
    })
}

/// `rdma link add NAME type rrxe netdev NDEV`.
pub(crate) fn add(name: &CStr, ndev: &NetDevice) -> Result {
    // Any netdev, as rdma_rxe 7.3: an L3 one (tun) has no MAC, so the GUID
    // comes from a random address, and its packets loop back (`net::xmit`).
    let mac = ndev.hw_addr().unwrap_or_else(NetDevice::random_eth_addr);
    // Binding 4791 fails here (EADDRINUSE) if rdma_rxe owns it in this namespace.
    let sockets = SocketUse::get(ndev.net())?;
    let guid = u64::from_ne_bytes(params::eui64(mac));
    let devparams = DeviceParams {
        node_desc: c"rrxe",
        node_guid: guid,
        node_type: NodeType::IbCa,
        phys_port_cnt: 1,
        // One completion vector per possible CPU, as rdma_rxe.
        num_comp_vectors: None,
        local_dma_lkey: 0,
        name_assigned_by_user: true,
        netdevs: &[ndev],
    };
    let stats = Arc::new(Stats::new(), GFP_KERNEL)?;
    let poller = Poller::new(stats.clone())?;
    let data = try_pin_init!(RrxeDevice {
        qps <- Pool::new(params::MIN_QP_INDEX, params::MIN_QP_INDEX + params::MAX_QP - 1),
        keys <- Keys::new(),
        ahs <- Pool::new(params::MIN_AH_INDEX, params::MAX_AH),
        srqs <- Pool::new(params::MIN_SRQ_INDEX, params::MIN_SRQ_INDEX + params::MAX_SRQ - 1),
        next_pd_id: AtomicU64::new(1),
        next_qp_serial: AtomicU64::new(1),
        busy_qps: AtomicU32::new(0),
        mac,
        reported_state: AtomicU32::new(PortState::Down.into()),
        unregistering: AtomicBool::new(false),
        stats,
        poller,
        atomic_lock <- new_spinlock_irq!(()),
        mcast <- mcast::Groups::new(),
        sockets <- new_mutex!(Some(sockets)),
        sw <- SoftDevice::new(ndev),
    }? Error);
    // `register` refuses a second device on the netdev (EEXIST) under the list's lock.
    sw::register::<Rrxe>(name, &devparams, data)
}

/// Whether `gid` is a RoCE v2 GID of an rrxe device on this host, in any
/// network namespace: a peer there receives on this host's CPUs. Takes the
/// device list's mutex.
pub(crate) fn gid_is_on_host(gid: &[u8; 16]) -> bool {
    <Rrxe as rdma::Driver>::with_devices(|list| {
        list.iter().any(|d| d.has_roce_v2_gid(1, gid, d.netdev()))
    })
}

/// Maps netdev events on our netdev to port events and removal.
pub(crate) fn netdev_event(dev: &rdma::Device<Rrxe>, event: Event) {
    match event {
        Event::Unregister => {
            if !dev.data().unregistering.swap(true, Ordering::Relaxed) {
                dev.unregister_queued();
            }
            // Dropped outside the device's lock: it takes the socket table's.
            let share = dev.data().sockets.lock().take();
            drop(share);
        }
        Event::Up | Event::Down | Event::Change => {
            let state = PortState::of_netdev(dev.netdev());
            let raw = u32::from(state);
            if dev.data().reported_state.swap(raw, Ordering::Relaxed) != raw {
                let ev = if state == PortState::Active {
                    EventType::PortActive
                } else {
                    dev.data().stats.inc(Counter::LinkDowned);
                    EventType::PortErr
                };
                dev.dispatch_port_event(1, ev);
            }
        }
        _ => {}
    }
}

/// The port's Performance Management agent (`process_mad`): the port counters
/// in sysfs (`ports/1/counters/`), from the device's counters, as rdma_rxe.
pub(crate) fn process_mad(
    dev: &rdma::Device<Rrxe>,
    port_num: u32,
    in_mad: &[u8; MAD_SIZE],
    out_mad: &mut [u8; MAD_SIZE],
) -> MadResult {
    if check_port(port_num).is_err() {
        return MadResult::Failure;
    }
    let s = &dev.data().stats;
    let c = pma::PortCounters {
        xmit_bytes: s.get(Counter::SentBytes),
        rcv_bytes: s.get(Counter::RcvdBytes),
        xmit_packets: s.get(Counter::SentPackets),
        rcv_packets: s.get(Counter::RcvdPackets),
        link_downed: s.get(Counter::LinkDowned),
    };
    match pma::answer(in_mad, out_mad, &c) {
        pma::Answer::Reply => MadResult::Reply,
        pma::Answer::Pass => MadResult::Pass,
    }
}
const _: () = assert!(pma::MAD_SIZE == MAD_SIZE);
