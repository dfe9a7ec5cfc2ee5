// SPDX-License-Identifier: GPL-2.0

//! Device and port limits. They equal rdma_rxe's (rxe_param.h) so that user space
//! sees the same device either way; `ibv_devinfo -v` is compared in the selftests.

use kernel::rdma::attr::{cap, port, Mtu};

/// rxe's `DEFAULT_MAX_VALUE`.
const DEFAULT_MAX: u32 = 1 << 20;

pub(crate) const VENDOR_ID: u32 = 0xffffff;
pub(crate) const MAX_MR_SIZE: u64 = u64::MAX;
pub(crate) const PAGE_SIZE_CAP: u64 = 0xffff_f000;
pub(crate) const MAX_QP_WR: u32 = DEFAULT_MAX;
pub(crate) const DEVICE_CAP_FLAGS: u64 = cap::BAD_PKEY_CNTR
    | cap::BAD_QKEY_CNTR
    | cap::AUTO_PATH_MIG
    | cap::CHANGE_PHY_PORT
    | cap::UD_AV_PORT_ENFORCE
    | cap::PORT_ACTIVE_EVENT
    | cap::SYS_IMAGE_GUID
    | cap::RC_RNR_NAK_GEN
    | cap::SRQ_RESIZE
    | cap::MEM_MGT_EXTENSIONS
    | cap::MEM_WINDOW
    | cap::FLUSH_GLOBAL
    | cap::FLUSH_PERSISTENT
    | cap::MEM_WINDOW_TYPE_2B
    | cap::ATOMIC_WRITE;
pub(crate) const MAX_SGE: u32 = 32;
/// rxe's `RXE_MAX_INLINE_DATA`: the SGE area of the largest send WQE.
pub(crate) const MAX_INLINE_DATA: u32 = MAX_SGE * 16;
pub(crate) const MAX_SGE_RD: u32 = 32;
pub(crate) const MAX_CQ: u32 = DEFAULT_MAX;
pub(crate) const MAX_LOG_CQE: u32 = 15;
pub(crate) const MAX_PD: u32 = DEFAULT_MAX;
pub(crate) const MAX_QP_RD_ATOM: u32 = 128;
pub(crate) const MAX_RES_RD_ATOM: u32 = 0x3f000;
pub(crate) const MAX_QP_INIT_RD_ATOM: u32 = 128;
pub(crate) const MAX_MCAST_GRP: u32 = 8192;
pub(crate) const MAX_MCAST_QP_ATTACH: u32 = 56;
pub(crate) const MAX_TOT_MCAST_QP_ATTACH: u32 = 0x70000;
pub(crate) const MAX_AH: u32 = (1 << 15) - 1;
pub(crate) const MAX_SRQ_WR: u32 = DEFAULT_MAX;
pub(crate) const MAX_SRQ_SGE: u32 = 27;
pub(crate) const MAX_FMR_PAGE_LIST_LEN: u32 = 512;
pub(crate) const MAX_PKEYS: u16 = 64;
pub(crate) const LOCAL_CA_ACK_DELAY: u8 = 15;
pub(crate) const MIN_QP_INDEX: u32 = 16;
pub(crate) const MAX_QP: u32 = DEFAULT_MAX - MIN_QP_INDEX;
pub(crate) const MIN_SRQ_INDEX: u32 = 0x0002_0001;
pub(crate) const MAX_SRQ: u32 = DEFAULT_MAX - MIN_SRQ_INDEX;
pub(crate) const MIN_MR_INDEX: u32 = 1;
pub(crate) const MAX_MR_INDEX: u32 = DEFAULT_MAX >> 1;
pub(crate) const MIN_AH_INDEX: u32 = 1;
pub(crate) const MAX_MR: u32 = MAX_MR_INDEX - 1;
pub(crate) const MAX_MW: u32 = DEFAULT_MAX - (MAX_MR_INDEX + 1);

pub(crate) const PORT_GID_TBL_LEN: i32 = 1024;
pub(crate) const PORT_CAP_FLAGS: u32 = port::CAP_CM_SUP;
pub(crate) const PORT_MAX_MSG_SZ: u32 = 1 << 31;
pub(crate) const PORT_MAX_VL_NUM: u8 = 1;
pub(crate) const PORT_PKEY_TBL_LEN: u16 = 1;

/// Room for the Ethernet, IP, UDP and RoCE headers a packet carries (rxe's
/// `RXE_MAX_HDR_LENGTH`): the path MTU is what is left of the netdev MTU.
pub(crate) const MAX_HDR_LENGTH: u32 = 80;

/// The IB MTU (enum value) usable on a netdev with the given MTU, as rdma_rxe
/// computes it: the largest IB MTU that fits, at least 256 and at most 4096.
pub(crate) fn active_mtu(netdev_mtu: u32) -> Mtu {
    match netdev_mtu.saturating_sub(MAX_HDR_LENGTH) {
        0..=511 => Mtu::Mtu256,
        512..=1023 => Mtu::Mtu512,
        1024..=2047 => Mtu::Mtu1024,
        2048..=4095 => Mtu::Mtu2048,
        _ => Mtu::Mtu4096,
    }
}

/// The modified EUI-64 of a MAC address (`addrconf_addr_eui48`), used as GUID.
pub(crate) fn eui64(mac: [u8; 6]) -> [u8; 8] {
    [
        mac[0] ^ 2,
        mac[1],
        mac[2],
        0xff,
        0xfe,
        mac[3],
        mac[4],
        mac[5],
    ]
}

#[kernel::macros::kunit_tests(rrxe_params)]
mod tests {
    use super::*;

    #[test]
    fn active_mtu_follows_rxe() {
        // rdma_rxe: netdev MTU minus 80 header bytes, rounded down to an IB MTU.
        assert_eq!(active_mtu(68), Mtu::Mtu256);
        assert_eq!(active_mtu(1500), Mtu::Mtu1024);
        assert_eq!(active_mtu(1104), Mtu::Mtu1024);
        assert_eq!(active_mtu(1103), Mtu::Mtu512);
        assert_eq!(active_mtu(4176), Mtu::Mtu4096);
        assert_eq!(active_mtu(4175), Mtu::Mtu2048);
        assert_eq!(active_mtu(9000), Mtu::Mtu4096);
        assert_eq!(active_mtu(0), Mtu::Mtu256);
    }

    #[test]
    fn eui64_flips_the_universal_bit() {
        let mac = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
        assert_eq!(eui64(mac), [0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56]);
    }
}
