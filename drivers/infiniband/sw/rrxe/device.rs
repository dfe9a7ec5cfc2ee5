// SPDX-License-Identifier: GPL-2.0

//! Device-level verbs: creation on a netdev, attributes, ports, ucontext and PD.

use crate::params;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::{
    net::netdev::{Event, NetDevice},
    prelude::*,
    rdma::{
        self,
        device::DeviceParams,
        types::{cap, driver_id, port, port_state_of, PortEvent},
        DeviceAttr, PortAttr, PortImmutable, UData,
    },
    str::CStr,
};

/// `RXE_UVERBS_ABI_VERSION` from rdma_user_rxe.h.
const UVERBS_ABI_VERSION: u32 = 2;

/// The rrxe driver type.
pub(crate) struct Rrxe;

/// Per-device state.
pub(crate) struct RrxeDevice {
    /// The netdev's MAC, the seed of the GUIDs (rxe's `raw_gid`).
    mac: [u8; 6],
    /// The last port state reported to ULPs, so each change is reported once.
    reported_state: AtomicU32,
    /// Unregistration was queued. The netdev core repeats NETDEV_UNREGISTER while
    /// references remain, and a device must be queued for unregistration once.
    unregistering: AtomicBool,
}

/// Per-ucontext state. Empty until mmapped rings exist.
pub(crate) struct RrxeUContext;

/// Per-PD state. Empty until objects hang off PDs.
pub(crate) struct RrxePd;

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

    const DRIVER_ID: u32 = driver_id::RXE;
    const UVERBS_ABI_VERSION: u32 = UVERBS_ABI_VERSION;

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
        let (active_speed, active_width) = dev.eth_speed(port_num)?;
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

    fn alloc_pd(_dev: &rdma::Device<Self>, _udata: Option<&UData>) -> Result<RrxePd> {
        Ok(RrxePd)
    }
}

/// `rdma link add NAME type rrxe netdev NDEV`.
pub(crate) fn add(module: &ThisModule, name: &CStr, ndev: &NetDevice) -> Result {
    if !ndev.is_ethernet() {
        pr_err!("{}: {} is not an Ethernet device\n", name, ndev.name());
        return Err(EINVAL);
    }
    let mac = ndev.hw_addr().ok_or(EINVAL)?;
    let guid = u64::from_ne_bytes(params::eui64(mac));
    let devparams = DeviceParams {
        node_desc: c"rrxe",
        node_guid: guid,
        name_assigned_by_user: true,
    };
    let data = RrxeDevice {
        mac,
        reported_state: AtomicU32::new(port::STATE_DOWN),
        unregistering: AtomicBool::new(false),
    };
    // `register` refuses a second device on the netdev (EEXIST) under the list's lock.
    rdma::Device::<Rrxe>::register(module, name, ndev, &devparams, Ok::<_, Error>(data))
}

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
