// SPDX-License-Identifier: GPL-2.0

//! Device-level verbs: creation on a netdev, attributes, ports, ucontext and PD.

use crate::{
    obj::ah::{self, AhInner, RrxeAh},
    obj::cq::{self, RrxeCq},
    obj::mcast,
    obj::mr::{self, MrInner, RrxeMr},
    obj::mw::{self, MwInner, RrxeMw},
    net::xmit::SocketUse,
    params,
    obj::pool::Pool,
    obj::qp::{self, QpInner, RrxeQp},
    obj::srq::{self, RrxeSrq, SrqInner},
    stats::{self, Stats},
};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use kernel::{
    net::netdev::{Event, NetDevice},
    new_spinlock_irq,
    prelude::*,
    rdma::{
        self,
        device::{DeviceParams, StatDesc},
        restrack::DriverDetails,
        types::{cap, driver_id, port, port_state_of, PortEvent},
        verbs::{
            Ah, AhAttr, Cq, CqInitAttr, Mr, MrKeys, Mw, Pd, Qp, QpAttr, QpInitAttr, RecvWr, SendWr,
            Srq, SrqAttr, SrqInitAttr, Wc,
        },
        DeviceAttr, PortAttr, PortImmutable, UData,
    },
    str::CStr,
    sync::SpinLockIrq,
};

/// `RXE_UVERBS_ABI_VERSION` from rdma_user_rxe.h.
const UVERBS_ABI_VERSION: u32 = 2;

/// The rrxe driver type.
pub(crate) struct Rrxe;

/// Per-device state.
#[pin_data]
pub(crate) struct RrxeDevice {
    /// QPs by QP number.
    #[pin]
    pub(crate) qps: Pool<QpInner>,
    /// MRs by key index (`key >> 8`).
    #[pin]
    pub(crate) mrs: Pool<MrInner>,
    /// AHs by `ah_num`.
    #[pin]
    pub(crate) ahs: Pool<AhInner>,
    /// SRQs by number.
    #[pin]
    pub(crate) srqs: Pool<SrqInner>,
    /// MWs by rkey index (above the MRs' range).
    #[pin]
    pub(crate) mws: Pool<MwInner>,
    /// Source of PD identities, so objects can be checked for a common PD. 64
    /// bits, so that they never wrap: two PDs with one identity would share
    /// MRs, MWs and AHs across processes, or with a kernel PD's DMA MR.
    next_pd_id: AtomicU64,
    /// The rotating low byte of new MR keys.
    pub(crate) key_byte: AtomicU32,
    /// Source of QP serial numbers, which unlike QPNs are never reused.
    pub(crate) next_qp_serial: AtomicU64,
    /// QPs whose send queue holds WQEs not yet completed ([`crate::obj::qp::SendQueue`]
    /// keeps it exact): the doorbell sends a lone SEND stream itself.
    pub(crate) busy_qps: AtomicU32,
    /// The netdev's MAC, the seed of the GUIDs (rxe's `raw_gid`).
    mac: [u8; 6],
    /// The last port state reported to ULPs, so each change is reported once.
    reported_state: AtomicU32,
    /// Unregistration was queued. The netdev core repeats NETDEV_UNREGISTER while
    /// references remain, and a device must be queued for unregistration once.
    unregistering: AtomicBool,
    /// Packet counters (`rdma statistic show link DEV/1`).
    pub(crate) stats: Stats,
    /// Serialises the responder's atomics on this device, as rxe's global lock.
    #[pin]
    pub(crate) atomic_lock: SpinLockIrq<()>,
    /// Multicast groups and their QPs.
    #[pin]
    pub(crate) mcast: mcast::Groups,
    /// This device's share of its namespace's port-4791 sockets.
    _sockets: SocketUse,
}

/// Per-ucontext state. Empty until mmapped rings exist.
pub(crate) struct RrxeUContext;

/// A PD's identity: what MRs, MWs, AHs and QPs are checked for a common PD by.
pub(crate) type PdId = u64;

/// Per-PD state.
pub(crate) struct RrxePd {
    /// Unique among the device's PDs.
    pub(crate) id: PdId,
}

/// Only port 1 exists.
fn check_port(port_num: u32) -> Result {
    if port_num == 1 {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

#[vtable]
impl rdma::Driver for Rrxe {
    type Data = RrxeDevice;
    type UContext = RrxeUContext;
    type Pd = RrxePd;
    type Cq = RrxeCq;
    type Qp = RrxeQp;
    type Srq = RrxeSrq;
    type Ah = RrxeAh;
    type Mr = RrxeMr;
    type Mw = RrxeMw;

    const DRIVER_ID: u32 = driver_id::RXE;
    const UVERBS_ABI_VERSION: u32 = UVERBS_ABI_VERSION;
    const HW_STATS: &'static [StatDesc] = &stats::DESCS;

    fn hw_stats(dev: &rdma::Device<Self>, _port: u32, out: &mut [u64]) {
        for (i, v) in out.iter_mut().enumerate() {
            *v = dev.data().stats.get(i);
        }
    }

    fn with_devices<R>(f: impl FnOnce(&mut rdma::DeviceList<Self>) -> R) -> R {
        f(&mut crate::DEVICES.lock())
    }

    fn query_device(dev: &rdma::Device<Self>, a: &mut DeviceAttr) -> Result {
        let guid = u64::from_ne_bytes(params::eui64(dev.data().mac));
        *a = DeviceAttr {
            sys_image_guid: guid,
            vendor_id: params::VENDOR_ID,
            max_mr_size: params::MAX_MR_SIZE,
            page_size_cap: params::PAGE_SIZE_CAP,
            max_qp: params::MAX_QP,
            max_qp_wr: params::MAX_QP_WR,
            device_cap_flags: params::DEVICE_CAP_FLAGS,
            kernel_cap_flags: cap::K_ALLOW_USER_UNREG,
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
            ..DeviceAttr::default()
        };
        Ok(())
    }

    fn query_port(dev: &rdma::Device<Self>, port_num: u32, a: &mut PortAttr) -> Result {
        check_port(port_num)?;
        let ndev = dev.netdev();
        let state = port_state_of(ndev);
        // The core no longer hands out a netdev that is being unregistered, so
        // `ib_get_eth_speed` fails then (ENODEV, as rdma_rxe's whole query
        // does). A port query must still answer, a DOWN port at the speed the
        // core gives a link of unknown speed: a namespace created meanwhile
        // queries every device's port (its compat device's sysfs), and a
        // failure there failed the namespace's creation with ENODEV.
        let (active_speed, active_width) = dev
            .eth_speed(port_num)
            .unwrap_or((IB_SPEED_SDR, IB_WIDTH_1X));
        *a = PortAttr {
            state,
            max_mtu: port::MTU_4096,
            active_mtu: params::active_mtu(ndev.mtu()),
            gid_tbl_len: params::PORT_GID_TBL_LEN,
            port_cap_flags: params::PORT_CAP_FLAGS,
            max_msg_sz: params::PORT_MAX_MSG_SZ,
            pkey_tbl_len: params::PORT_PKEY_TBL_LEN,
            max_vl_num: params::PORT_MAX_VL_NUM,
            active_width,
            active_speed,
            phys_state: if state == port::STATE_ACTIVE {
                port::PHYS_STATE_LINK_UP
            } else if ndev.is_up() {
                port::PHYS_STATE_POLLING
            } else {
                port::PHYS_STATE_DISABLED
            },
            ..PortAttr::default()
        };
        Ok(())
    }

    fn query_pkey(_dev: &rdma::Device<Self>, port_num: u32, index: u16) -> Result<u16> {
        check_port(port_num)?;
        if index != 0 {
            return Err(EINVAL);
        }
        Ok(port::DEFAULT_PKEY_FULL)
    }

    fn port_immutable(_dev: &rdma::Device<Self>, port_num: u32) -> Result<PortImmutable> {
        check_port(port_num)?;
        Ok(PortImmutable {
            core_cap_flags: port::CORE_CAP_ROCE_UDP_ENCAP,
            pkey_tbl_len: params::PORT_PKEY_TBL_LEN.into(),
            gid_tbl_len: params::PORT_GID_TBL_LEN,
            max_mad_size: port::MGMT_MAD_SIZE,
        })
    }

    fn alloc_ucontext(_dev: &rdma::Device<Self>, _udata: Option<&UData>) -> Result<RrxeUContext> {
        Ok(RrxeUContext)
    }

    fn alloc_pd(dev: &rdma::Device<Self>, udata: Option<&UData>) -> Result<RrxePd> {
        UData::expect_empty(udata)?;
        Ok(RrxePd {
            id: dev.data().next_pd_id.fetch_add(1, Ordering::Relaxed),
        })
    }

    fn create_cq(
        _dev: &rdma::Device<Self>,
        attr: &CqInitAttr,
        udata: Option<&UData>,
    ) -> Result<(RrxeCq, u32)> {
        cq::create(attr, udata)
    }

    fn resize_cq(c: &Cq<Self>, cqe: u32, udata: Option<&UData>) -> Result<u32> {
        cq::resize(c, cqe, udata)
    }

    fn destroy_cq(c: &Cq<Self>) -> Result {
        cq::destroy(c)
    }

    fn poll_cq(c: &Cq<Self>, wc: &mut [Wc]) -> usize {
        cq::poll(c, wc)
    }

    fn peek_cq(c: &Cq<Self>, n: usize) -> usize {
        cq::peek(c, n)
    }

    fn req_notify_cq(c: &Cq<Self>, flags: u32) -> Result<bool> {
        cq::req_notify(c, flags)
    }

    fn create_qp(
        pd: &Pd<Self>,
        attr: &mut QpInitAttr,
        _send_cq: &Cq<Self>,
        _recv_cq: &Cq<Self>,
        srq: Option<&Srq<Self>>,
        udata: Option<&UData>,
    ) -> Result<(RrxeQp, u32)> {
        qp::control::create(pd.device().data(), pd, attr, srq, udata)
    }

    fn modify_qp(q: &Qp<Self>, attr: &QpAttr, mask: u32, _udata: Option<&UData>) -> Result {
        qp::control::modify(q, attr, mask, port::MTU_4096)
    }

    fn query_qp(q: &Qp<Self>, attr: &mut QpAttr, init: &mut QpInitAttr) -> Result {
        qp::control::query(q, attr, init)
    }

    fn fill_qp_details(q: &Qp<Self>, out: &mut DriverDetails<'_>) -> Result {
        qp::control::details(q, out)
    }

    fn destroy_qp(q: &Qp<Self>) -> Result {
        // Before its number can be reused.
        mcast::detach_all(q);
        qp::control::destroy(q.device().data(), q)
    }

    fn post_send(q: &Qp<Self>, wr: &SendWr<'_, Self>) -> Result {
        qp::post::post_send(q, wr)
    }

    fn doorbell(q: &Qp<Self>) -> Result {
        qp::post::doorbell(q.device().data(), q)
    }

    fn post_recv(q: &Qp<Self>, wr: &RecvWr<'_>) -> Result {
        qp::post::post_recv(q, wr)
    }

    fn create_srq(pd: &Pd<Self>, attr: &mut SrqInitAttr, udata: Option<&UData>) -> Result<RrxeSrq> {
        srq::create(pd.device().data(), pd, attr, udata)
    }

    fn modify_srq(s: &Srq<Self>, attr: &SrqAttr, mask: u32, udata: Option<&UData>) -> Result {
        srq::modify(s, attr, mask, udata)
    }

    fn query_srq(s: &Srq<Self>) -> Result<SrqAttr> {
        srq::query(s)
    }

    fn destroy_srq(s: &Srq<Self>) -> Result {
        srq::destroy(s.device().data(), s)
    }

    fn post_srq_recv(s: &Srq<Self>, wr: &RecvWr<'_>) -> Result {
        srq::post_recv(s, wr)
    }

    fn create_ah(
        pd: &Pd<Self>,
        attr: &AhAttr,
        sleepable: bool,
        udata: Option<&UData>,
    ) -> Result<RrxeAh> {
        ah::create(pd.device().data(), pd, attr, sleepable, udata)
    }

    fn query_ah(a: &Ah<Self>) -> Result<AhAttr> {
        Ok(ah::query(a))
    }

    fn destroy_ah(a: &Ah<Self>) -> Result {
        ah::destroy(a.device().data(), a)
    }

    fn get_dma_mr(pd: &Pd<Self>, access: u32) -> Result<(RrxeMr, MrKeys)> {
        mr::get_dma(pd.device().data(), pd, access)
    }

    fn reg_user_mr(
        pd: &Pd<Self>,
        start: u64,
        length: u64,
        iova: u64,
        access: u32,
        udata: Option<&UData>,
    ) -> Result<(RrxeMr, MrKeys)> {
        mr::reg_user(pd.device().data(), pd, start, length, iova, access, udata)
    }

    fn alloc_mr(pd: &Pd<Self>, mr_type: u32, max_num_sg: u32) -> Result<(RrxeMr, MrKeys)> {
        mr::alloc(pd.device().data(), pd, mr_type, max_num_sg)
    }

    fn mr_map_begin(m: &Mr<Self>) -> Result {
        mr::map_begin(m)
    }

    fn mr_set_page(m: &Mr<Self>, addr: u64) -> Result {
        mr::set_page(m, addr)
    }

    fn mr_map_end(m: &Mr<Self>, iova: u64, length: u64, page_size: u32) -> Result {
        mr::map_end(m, iova, length, page_size)
    }

    fn dereg_mr(m: &Mr<Self>) -> Result {
        mr::dereg(m.device().data(), m)
    }

    fn alloc_mw(pd: &Pd<Self>, mw_type: u32, udata: Option<&UData>) -> Result<(RrxeMw, u32)> {
        mw::alloc(pd.device().data(), pd, mw_type, udata)
    }

    fn dealloc_mw(m: &Mw<Self>) -> Result {
        mw::dealloc(m.device().data(), m)
    }

    fn attach_mcast(q: &Qp<Self>, gid: &[u8; 16]) -> Result {
        mcast::attach(q, gid)
    }

    fn detach_mcast(q: &Qp<Self>, gid: &[u8; 16]) -> Result {
        mcast::detach(q, gid)
    }
}

/// `rdma link add NAME type rrxe netdev NDEV`.
pub(crate) fn add(module: &ThisModule, name: &CStr, ndev: &NetDevice) -> Result {
    if !ndev.is_ethernet() {
        pr_err!("{}: {} is not an Ethernet device\n", name, ndev.name());
        return Err(EINVAL);
    }
    let mac = ndev.hw_addr().ok_or(EINVAL)?;
    // Binding 4791 fails here (EADDRINUSE) if rdma_rxe owns it in this namespace.
    let sockets = SocketUse::get(ndev.net())?;
    let guid = u64::from_ne_bytes(params::eui64(mac));
    let devparams = DeviceParams {
        node_desc: c"rrxe",
        node_guid: guid,
        name_assigned_by_user: true,
    };
    let data = try_pin_init!(RrxeDevice {
        qps <- Pool::new(params::MIN_QP_INDEX, params::MIN_QP_INDEX + params::MAX_QP - 1),
        mrs <- Pool::new(params::MIN_MR_INDEX, params::MAX_MR_INDEX),
        ahs <- Pool::new(params::MIN_AH_INDEX, params::MAX_AH),
        srqs <- Pool::new(params::MIN_SRQ_INDEX, params::MIN_SRQ_INDEX + params::MAX_SRQ - 1),
        mws <- Pool::new(params::MAX_MR_INDEX + 1, params::MAX_MR_INDEX + params::MAX_MW),
        next_pd_id: AtomicU64::new(1),
        key_byte: AtomicU32::new(0),
        next_qp_serial: AtomicU64::new(1),
        busy_qps: AtomicU32::new(0),
        mac,
        reported_state: AtomicU32::new(port::STATE_DOWN),
        unregistering: AtomicBool::new(false),
        stats: Stats::new(),
        atomic_lock <- new_spinlock_irq!(()),
        mcast <- mcast::Groups::new(),
        _sockets: sockets,
    }? Error);
    // `register` refuses a second device on the netdev (EEXIST) under the list's lock.
    rdma::Device::<Rrxe>::register(module, name, ndev, &devparams, data)
}

/// Whether `gid` is a RoCE v2 GID of an rrxe device on this host, in any
/// network namespace: a peer there receives on this host's CPUs. Takes the
/// device list's mutex.
pub(crate) fn gid_is_on_host(gid: &[u8; 16]) -> bool {
    <Rrxe as rdma::Driver>::with_devices(|list| {
        list.iter().any(|d| d.has_roce_v2_gid(1, gid, d.netdev()))
    })
}

/// `IB_SPEED_SDR` and `IB_WIDTH_1X`: the core's answer for an Ethernet link of
/// unknown speed (`ib_get_eth_speed` takes it as 1 Gb/s).
const IB_SPEED_SDR: u16 = 1;
const IB_WIDTH_1X: u8 = 1;

/// Maps netdev events on our netdev to port events and removal.
pub(crate) fn netdev_event(dev: &rdma::Device<Rrxe>, event: Event) {
    match event {
        Event::Unregister => {
            if !dev.data().unregistering.swap(true, Ordering::Relaxed) {
                dev.unregister_queued();
            }
        }
        Event::Up | Event::Down | Event::Change => {
            let state = port_state_of(dev.netdev());
            if dev.data().reported_state.swap(state, Ordering::Relaxed) != state {
                let ev = if state == port::STATE_ACTIVE {
                    PortEvent::Active
                } else {
                    PortEvent::Error
                };
                dev.dispatch_port_event(1, ev);
            }
        }
        _ => {}
    }
}
