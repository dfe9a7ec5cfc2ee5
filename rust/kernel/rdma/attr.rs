// SPDX-License-Identifier: GPL-2.0

//! Device and port attributes: what `query_device`, `query_port` and
//! `get_port_immutable` report (`struct ib_device_attr`, `struct ib_port_attr`,
//! `struct ib_port_immutable`), and the values their fields take.
//!
//! The provider fills Rust structs; the trampolines in [`super::device`] copy them
//! into the C structs, so a provider never touches the C structs directly.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use crate::{bindings, net::netdev::NetDevice};

macro_rules! attr_struct {
    ($(#[$m:meta])* $name:ident => $raw:ty { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        ///
        /// A plain value: no lifetime or locking of its own.
        #[derive(Clone, Default, Debug)]
        pub struct $name {
            $($(#[$fm])* #[doc = concat!("`", stringify!($f), "` of the C struct.")] pub $f: $t,)*
        }

        impl $name {
            /// Copies every field into the C struct; fields not listed keep their
            /// value.
            pub(crate) fn write_to(&self, raw: &mut $raw) {
                $(raw.$f = self.$f.into();)*
            }
        }
    };
}

attr_struct! {
    /// Device attributes reported by `query_device` (`struct ib_device_attr`).
    /// GUIDs are in network byte order, as the wire and user space see them.
    DeviceAttr => bindings::ib_device_attr {
        fw_ver: u64,
        sys_image_guid: u64,
        max_mr_size: u64,
        page_size_cap: u64,
        vendor_id: u32,
        vendor_part_id: u32,
        hw_ver: u32,
        max_qp: u32,
        max_qp_wr: u32,
        device_cap_flags: u64,
        kernel_cap_flags: u64,
        max_send_sge: u32,
        max_recv_sge: u32,
        max_sge_rd: u32,
        max_cq: u32,
        max_cqe: u32,
        max_mr: u32,
        max_pd: u32,
        max_qp_rd_atom: u32,
        max_res_rd_atom: u32,
        max_qp_init_rd_atom: u32,
        atomic_cap: u32,
        max_mw: u32,
        max_mcast_grp: u32,
        max_mcast_qp_attach: u32,
        max_total_mcast_qp_attach: u32,
        max_ah: u32,
        max_srq: u32,
        max_srq_wr: u32,
        max_srq_sge: u32,
        max_fast_reg_page_list_len: u32,
        max_pkeys: u16,
        local_ca_ack_delay: u8,
        odp_caps: OdpCaps,
    }
}

/// On-demand paging capabilities (`struct ib_odp_caps`): `general_caps` takes
/// [`cap::ODP_SUPPORT`], the per-transport fields the `cap::ODP_SUPPORT_*` bits.
/// A plain value.
#[derive(Clone, Copy, Default, Debug)]
pub struct OdpCaps {
    /// `general_caps`.
    pub general_caps: u64,
    /// `per_transport_caps.rc_odp_caps`.
    pub rc_odp_caps: u32,
    /// `per_transport_caps.uc_odp_caps`.
    pub uc_odp_caps: u32,
    /// `per_transport_caps.ud_odp_caps`.
    pub ud_odp_caps: u32,
    /// `per_transport_caps.xrc_odp_caps`.
    pub xrc_odp_caps: u32,
}

impl From<OdpCaps> for bindings::ib_odp_caps {
    fn from(c: OdpCaps) -> Self {
        let mut raw = bindings::ib_odp_caps {
            general_caps: c.general_caps,
            ..Default::default()
        };
        raw.per_transport_caps.rc_odp_caps = c.rc_odp_caps;
        raw.per_transport_caps.uc_odp_caps = c.uc_odp_caps;
        raw.per_transport_caps.ud_odp_caps = c.ud_odp_caps;
        raw.per_transport_caps.xrc_odp_caps = c.xrc_odp_caps;
        raw
    }
}

attr_struct! {
    /// Port attributes reported by `query_port` (`struct ib_port_attr`).
    PortAttr => bindings::ib_port_attr {
        state: PortState,
        max_mtu: Mtu,
        active_mtu: Mtu,
        phys_mtu: u32,
        gid_tbl_len: i32,
        port_cap_flags: u32,
        max_msg_sz: u32,
        bad_pkey_cntr: u32,
        qkey_viol_cntr: u32,
        pkey_tbl_len: u16,
        sm_lid: u32,
        lid: u32,
        lmc: u8,
        max_vl_num: u8,
        sm_sl: u8,
        subnet_timeout: u8,
        init_type_reply: u8,
        active_width: u8,
        active_speed: u16,
        phys_state: PhysState,
    }
}

attr_struct! {
    /// Immutable port data the core caches at registration (`struct ib_port_immutable`).
    PortImmutable => bindings::ib_port_immutable {
        pkey_tbl_len: i32,
        gid_tbl_len: i32,
        core_cap_flags: u32,
        max_mad_size: u32,
    }
}

c_enum! {
    /// The logical state of a port (`enum ib_port_state`).
    #[derive(Default)]
    pub enum PortState: u32 {
        /// `IB_PORT_NOP`.
        #[default]
        Nop = bindings::ib_port_state_IB_PORT_NOP,
        /// `IB_PORT_DOWN`.
        Down = bindings::ib_port_state_IB_PORT_DOWN,
        /// `IB_PORT_INIT`.
        Init = bindings::ib_port_state_IB_PORT_INIT,
        /// `IB_PORT_ARMED`.
        Armed = bindings::ib_port_state_IB_PORT_ARMED,
        /// `IB_PORT_ACTIVE`.
        Active = bindings::ib_port_state_IB_PORT_ACTIVE,
        /// `IB_PORT_ACTIVE_DEFER`.
        ActiveDefer = bindings::ib_port_state_IB_PORT_ACTIVE_DEFER,
    }
}

impl PortState {
    /// The state that follows from a netdev's state (`ib_get_curr_port_state`):
    /// active only when the device is up and has carrier, down otherwise.
    pub fn of_netdev(ndev: &NetDevice) -> PortState {
        // SAFETY: `ndev` is a valid net device by its type invariant.
        let raw = unsafe { bindings::ib_get_curr_port_state(ndev.as_raw()) };
        PortState::try_from(raw).unwrap_or(PortState::Down)
    }
}

c_enum! {
    /// The physical state of a port (`enum ib_port_phys_state`), 0 meaning none
    /// reported.
    #[derive(Default)]
    pub enum PhysState: u8 {
        /// No state reported.
        #[default]
        None = 0,
        /// `IB_PORT_PHYS_STATE_SLEEP`.
        Sleep = bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_SLEEP as u8,
        /// `IB_PORT_PHYS_STATE_POLLING`.
        Polling = bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_POLLING as u8,
        /// `IB_PORT_PHYS_STATE_DISABLED`.
        Disabled = bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_DISABLED as u8,
        /// `IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING`.
        PortConfigurationTraining =
            bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING as u8,
        /// `IB_PORT_PHYS_STATE_LINK_UP`.
        LinkUp = bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_LINK_UP as u8,
        /// `IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY`.
        LinkErrorRecovery =
            bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY as u8,
        /// `IB_PORT_PHYS_STATE_PHY_TEST`.
        PhyTest = bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_PHY_TEST as u8,
    }
}

c_enum! {
    /// An IB MTU (`enum ib_mtu`), 0 meaning none.
    #[derive(Default)]
    pub enum Mtu: u32 {
        /// No MTU.
        #[default]
        None = 0,
        /// `IB_MTU_256`.
        Mtu256 = bindings::ib_mtu_IB_MTU_256,
        /// `IB_MTU_512`.
        Mtu512 = bindings::ib_mtu_IB_MTU_512,
        /// `IB_MTU_1024`.
        Mtu1024 = bindings::ib_mtu_IB_MTU_1024,
        /// `IB_MTU_2048`.
        Mtu2048 = bindings::ib_mtu_IB_MTU_2048,
        /// `IB_MTU_4096`.
        Mtu4096 = bindings::ib_mtu_IB_MTU_4096,
    }
}

impl Mtu {
    /// The MTU in bytes (`ib_mtu_enum_to_int`); 0 for [`Mtu::None`].
    pub fn bytes(self) -> u32 {
        match self {
            Mtu::None => 0,
            m => 128 << u32::from(m),
        }
    }
}

c_enum! {
    /// The link layer of a port (`enum rdma_link_layer`).
    pub enum LinkLayer: u32 {
        /// `IB_LINK_LAYER_UNSPECIFIED`.
        Unspecified = bindings::rdma_link_layer_IB_LINK_LAYER_UNSPECIFIED,
        /// `IB_LINK_LAYER_INFINIBAND`.
        Infiniband = bindings::rdma_link_layer_IB_LINK_LAYER_INFINIBAND,
        /// `IB_LINK_LAYER_ETHERNET`: RoCE and iWARP.
        Ethernet = bindings::rdma_link_layer_IB_LINK_LAYER_ETHERNET,
    }
}

c_enum! {
    /// What kind of node a device is (`RDMA_NODE_*` of `rdma_netlink.h`), which
    /// decides its transport: an IB channel adapter (InfiniBand and RoCE) or an
    /// RNIC (iWARP).
    pub enum NodeType: u8 {
        /// `RDMA_NODE_IB_CA`: InfiniBand, RoCE.
        IbCa = bindings::RDMA_NODE_IB_CA as u8,
        /// `RDMA_NODE_RNIC`: iWARP.
        Rnic = bindings::RDMA_NODE_RNIC as u8,
    }
}

c_enum! {
    /// The id user space matches its provider library on (`enum rdma_driver_id`).
    /// `RDMA_DRIVER_IRDMA`, an alias of [`DriverId::I40iw`], is left out.
    pub enum DriverId: u32 {
        /// `RDMA_DRIVER_UNKNOWN`.
        Unknown = bindings::rdma_driver_id_RDMA_DRIVER_UNKNOWN,
        /// `RDMA_DRIVER_MLX5`.
        Mlx5 = bindings::rdma_driver_id_RDMA_DRIVER_MLX5,
        /// `RDMA_DRIVER_MLX4`.
        Mlx4 = bindings::rdma_driver_id_RDMA_DRIVER_MLX4,
        /// `RDMA_DRIVER_CXGB3`.
        Cxgb3 = bindings::rdma_driver_id_RDMA_DRIVER_CXGB3,
        /// `RDMA_DRIVER_CXGB4`.
        Cxgb4 = bindings::rdma_driver_id_RDMA_DRIVER_CXGB4,
        /// `RDMA_DRIVER_MTHCA`.
        Mthca = bindings::rdma_driver_id_RDMA_DRIVER_MTHCA,
        /// `RDMA_DRIVER_BNXT_RE`.
        BnxtRe = bindings::rdma_driver_id_RDMA_DRIVER_BNXT_RE,
        /// `RDMA_DRIVER_OCRDMA`.
        Ocrdma = bindings::rdma_driver_id_RDMA_DRIVER_OCRDMA,
        /// `RDMA_DRIVER_NES`.
        Nes = bindings::rdma_driver_id_RDMA_DRIVER_NES,
        /// `RDMA_DRIVER_I40IW` (and `RDMA_DRIVER_IRDMA`).
        I40iw = bindings::rdma_driver_id_RDMA_DRIVER_I40IW,
        /// `RDMA_DRIVER_VMW_PVRDMA`.
        VmwPvrdma = bindings::rdma_driver_id_RDMA_DRIVER_VMW_PVRDMA,
        /// `RDMA_DRIVER_QEDR`.
        Qedr = bindings::rdma_driver_id_RDMA_DRIVER_QEDR,
        /// `RDMA_DRIVER_HNS`.
        Hns = bindings::rdma_driver_id_RDMA_DRIVER_HNS,
        /// `RDMA_DRIVER_USNIC`.
        Usnic = bindings::rdma_driver_id_RDMA_DRIVER_USNIC,
        /// `RDMA_DRIVER_RXE`: soft RoCE, matched by rdma-core's rxe provider.
        Rxe = bindings::rdma_driver_id_RDMA_DRIVER_RXE,
        /// `RDMA_DRIVER_HFI1`.
        Hfi1 = bindings::rdma_driver_id_RDMA_DRIVER_HFI1,
        /// `RDMA_DRIVER_QIB`.
        Qib = bindings::rdma_driver_id_RDMA_DRIVER_QIB,
        /// `RDMA_DRIVER_EFA`.
        Efa = bindings::rdma_driver_id_RDMA_DRIVER_EFA,
        /// `RDMA_DRIVER_SIW`: soft iWARP, matched by rdma-core's siw provider.
        Siw = bindings::rdma_driver_id_RDMA_DRIVER_SIW,
        /// `RDMA_DRIVER_ERDMA`.
        Erdma = bindings::rdma_driver_id_RDMA_DRIVER_ERDMA,
        /// `RDMA_DRIVER_MANA`.
        Mana = bindings::rdma_driver_id_RDMA_DRIVER_MANA,
        /// `RDMA_DRIVER_IONIC`.
        Ionic = bindings::rdma_driver_id_RDMA_DRIVER_IONIC,
    }
}

/// `enum ib_device_cap_flags` and the other capability values of [`DeviceAttr`].
#[allow(missing_docs)]
pub mod cap {
    use crate::bindings;
    pub const BAD_PKEY_CNTR: u64 = bindings::ib_device_cap_flags_IB_DEVICE_BAD_PKEY_CNTR as u64;
    pub const BAD_QKEY_CNTR: u64 = bindings::ib_device_cap_flags_IB_DEVICE_BAD_QKEY_CNTR as u64;
    pub const AUTO_PATH_MIG: u64 = bindings::ib_device_cap_flags_IB_DEVICE_AUTO_PATH_MIG as u64;
    pub const CHANGE_PHY_PORT: u64 = bindings::ib_device_cap_flags_IB_DEVICE_CHANGE_PHY_PORT as u64;
    pub const UD_AV_PORT_ENFORCE: u64 =
        bindings::ib_device_cap_flags_IB_DEVICE_UD_AV_PORT_ENFORCE as u64;
    pub const PORT_ACTIVE_EVENT: u64 =
        bindings::ib_device_cap_flags_IB_DEVICE_PORT_ACTIVE_EVENT as u64;
    pub const SYS_IMAGE_GUID: u64 = bindings::ib_device_cap_flags_IB_DEVICE_SYS_IMAGE_GUID as u64;
    pub const RC_RNR_NAK_GEN: u64 = bindings::ib_device_cap_flags_IB_DEVICE_RC_RNR_NAK_GEN as u64;
    pub const SRQ_RESIZE: u64 = bindings::ib_device_cap_flags_IB_DEVICE_SRQ_RESIZE as u64;
    pub const MEM_MGT_EXTENSIONS: u64 =
        bindings::ib_device_cap_flags_IB_DEVICE_MEM_MGT_EXTENSIONS as u64;
    pub const MEM_WINDOW: u64 = bindings::ib_device_cap_flags_IB_DEVICE_MEM_WINDOW as u64;
    pub const FLUSH_GLOBAL: u64 = bindings::ib_device_cap_flags_IB_DEVICE_FLUSH_GLOBAL as u64;
    pub const FLUSH_PERSISTENT: u64 =
        bindings::ib_device_cap_flags_IB_DEVICE_FLUSH_PERSISTENT as u64;
    pub const MEM_WINDOW_TYPE_2B: u64 =
        bindings::ib_device_cap_flags_IB_DEVICE_MEM_WINDOW_TYPE_2B as u64;
    pub const ATOMIC_WRITE: u64 = bindings::ib_device_cap_flags_IB_DEVICE_ATOMIC_WRITE as u64;
    /// `IBK_ALLOW_USER_UNREG` (kernel_cap_flags): `rdma link del` may remove the device.
    pub const K_ALLOW_USER_UNREG: u64 = bindings::ib_kernel_cap_flags_IBK_ALLOW_USER_UNREG as u64;
    /// `IBK_ON_DEMAND_PAGING` (kernel_cap_flags): user MRs may be registered with
    /// `IB_ACCESS_ON_DEMAND`.
    pub const K_ON_DEMAND_PAGING: u64 = bindings::ib_kernel_cap_flags_IBK_ON_DEMAND_PAGING as u64;
    /// `IB_ODP_SUPPORT` ([`OdpCaps`](super::OdpCaps)`::general_caps`).
    pub const ODP_SUPPORT: u64 = bindings::ib_odp_general_cap_bits_IB_ODP_SUPPORT as u64;
    pub const ODP_SUPPORT_SEND: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_SEND;
    pub const ODP_SUPPORT_RECV: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_RECV;
    pub const ODP_SUPPORT_WRITE: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_WRITE;
    pub const ODP_SUPPORT_READ: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_READ;
    pub const ODP_SUPPORT_ATOMIC: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_ATOMIC;
    pub const ODP_SUPPORT_SRQ_RECV: u32 =
        bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_SRQ_RECV;
    pub const ODP_SUPPORT_FLUSH: u32 = bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_FLUSH;
    pub const ODP_SUPPORT_ATOMIC_WRITE: u32 =
        bindings::ib_odp_transport_cap_bits_IB_ODP_SUPPORT_ATOMIC_WRITE;
    /// `IB_ATOMIC_HCA`.
    pub const ATOMIC_HCA: u32 = bindings::ib_atomic_cap_IB_ATOMIC_HCA;
}

/// Port values of [`PortAttr`] and [`PortImmutable`] that are not enumerations.
#[allow(missing_docs)]
pub mod port {
    use crate::bindings;
    pub const WIDTH_1X: u8 = bindings::ib_port_width_IB_WIDTH_1X as u8;
    pub const SPEED_SDR: u16 = bindings::ib_port_speed_IB_SPEED_SDR as u16;
    pub const CAP_CM_SUP: u32 = bindings::ib_port_capability_mask_bits_IB_PORT_CM_SUP;
    pub const CORE_CAP_ROCE_UDP_ENCAP: u32 = bindings::RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
    pub const CORE_CAP_IWARP: u32 = bindings::RDMA_CORE_PORT_IWARP;
    pub const MGMT_MAD_SIZE: u32 = bindings::IB_MGMT_MAD_SIZE;
    pub const DEFAULT_PKEY_FULL: u16 = bindings::IB_DEFAULT_PKEY_FULL as u16;
}
