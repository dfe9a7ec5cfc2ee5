// SPDX-License-Identifier: GPL-2.0

//! Plain-data verbs types: device and port attributes, user data buffers.
//!
//! The driver fills Rust structs; the trampolines in [`super::device`] copy them into
//! the C structs, so the driver never touches `struct ib_device_attr` directly.

use crate::{
    bindings,
    error::Result,
    net::netdev::NetDevice,
    prelude::*,
    transmute::{AsBytes, FromBytes},
};

macro_rules! attr_struct {
    ($(#[$m:meta])* $name:ident => $raw:ty { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Default, Debug)]
        pub struct $name {
            $($(#[$fm])* #[doc = concat!("`", stringify!($f), "` of the C struct.")] pub $f: $t,)*
        }

        impl $name {
            /// Copies every field into the C struct (the field types are the C types);
            /// fields not listed keep their value.
            pub(crate) fn write_to(&self, raw: &mut $raw) {
                $(raw.$f = self.$f;)*
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
    }
}

attr_struct! {
    /// Port attributes reported by `query_port` (`struct ib_port_attr`).
    PortAttr => bindings::ib_port_attr {
        state: u32,
        max_mtu: u32,
        active_mtu: u32,
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
        phys_state: u8,
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

/// `enum rdma_driver_id` values.
pub mod driver_id {
    use crate::bindings;
    /// Soft RoCE: the id rdma-core's rxe provider matches on.
    pub const RXE: u32 = bindings::rdma_driver_id_RDMA_DRIVER_RXE;
}

/// `enum ib_device_cap_flags`.
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
    /// `IB_ATOMIC_HCA`.
    pub const ATOMIC_HCA: u32 = bindings::ib_atomic_cap_IB_ATOMIC_HCA;
}

/// Port constants: states, MTUs, widths, capability bits.
#[allow(missing_docs)]
pub mod port {
    use crate::bindings;
    pub const STATE_DOWN: u32 = bindings::ib_port_state_IB_PORT_DOWN;
    pub const STATE_ACTIVE: u32 = bindings::ib_port_state_IB_PORT_ACTIVE;
    pub const PHYS_STATE_POLLING: u8 =
        bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_POLLING as u8;
    pub const PHYS_STATE_DISABLED: u8 =
        bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_DISABLED as u8;
    pub const PHYS_STATE_LINK_UP: u8 =
        bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_LINK_UP as u8;
    pub const MTU_256: u32 = bindings::ib_mtu_IB_MTU_256;
    pub const MTU_512: u32 = bindings::ib_mtu_IB_MTU_512;
    pub const MTU_1024: u32 = bindings::ib_mtu_IB_MTU_1024;
    pub const MTU_2048: u32 = bindings::ib_mtu_IB_MTU_2048;
    pub const MTU_4096: u32 = bindings::ib_mtu_IB_MTU_4096;
    pub const WIDTH_1X: u8 = bindings::ib_port_width_IB_WIDTH_1X as u8;
    pub const CAP_CM_SUP: u32 = bindings::ib_port_capability_mask_bits_IB_PORT_CM_SUP;
    pub const CORE_CAP_ROCE_UDP_ENCAP: u32 = bindings::RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
    pub const MGMT_MAD_SIZE: u32 = bindings::IB_MGMT_MAD_SIZE;
    pub const DEFAULT_PKEY_FULL: u16 = bindings::IB_DEFAULT_PKEY_FULL as u16;
}

/// Port events delivered to ULPs through `ib_dispatch_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortEvent {
    /// `IB_EVENT_PORT_ACTIVE`.
    Active,
    /// `IB_EVENT_PORT_ERR`.
    Error,
}

impl PortEvent {
    pub(crate) fn to_raw(self) -> u32 {
        match self {
            PortEvent::Active => bindings::ib_event_type_IB_EVENT_PORT_ACTIVE,
            PortEvent::Error => bindings::ib_event_type_IB_EVENT_PORT_ERR,
        }
    }
}

/// The RDMA port state that follows from a netdev's state (`ib_get_curr_port_state`):
/// active only when the device is up and has carrier.
pub fn port_state_of(ndev: &NetDevice) -> u32 {
    // SAFETY: `ndev` is a valid net device by its type invariant.
    unsafe { bindings::ib_get_curr_port_state(ndev.as_raw()) }
}

/// The user data of a verb: the provider-specific part of a uverbs command and
/// response (`struct ib_udata`).
pub struct UData {
    ptr: *mut bindings::ib_udata,
}

impl UData {
    /// # Safety
    ///
    /// `ptr` must be null or a valid `ib_udata` for the lifetime of the returned value.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::ib_udata) -> Option<UData> {
        if ptr.is_null() {
            None
        } else {
            Some(UData { ptr })
        }
    }

    /// Bytes of provider input.
    pub fn in_len(&self) -> usize {
        // SAFETY: `ptr` is valid per `from_raw`'s contract.
        unsafe { (*self.ptr).inlen }
    }

    /// Bytes of provider output space.
    pub fn out_len(&self) -> usize {
        // SAFETY: `ptr` is valid per `from_raw`'s contract.
        unsafe { (*self.ptr).outlen }
    }

    /// Whether the input from `offset` on is all zero: unknown trailing input must be
    /// zero so that a newer user space cannot ask for something silently ignored.
    pub fn input_cleared_from(&self, offset: usize) -> bool {
        let len = self.in_len();
        if offset >= len {
            return true;
        }
        // SAFETY: `ptr` is valid; the helper reads user memory with copy_from_user.
        unsafe { bindings::ib_is_udata_cleared(self.ptr, offset, len - offset) }
    }

    /// Copies the provider request into a `T`, as `ib_copy_validate_udata_in` does:
    /// fewer than `min` bytes is `EINVAL`; input past `size_of::<T>()` must be zero
    /// (`EOPNOTSUPP` otherwise); a shorter request leaves the rest of `T` zeroed.
    pub fn copy_in<T: FromBytes + AsBytes>(&self, min: usize) -> Result<T> {
        // SAFETY: `T: FromBytes`: every bit pattern, zero included, is a valid `T`.
        let mut v: T = unsafe { core::mem::MaybeUninit::zeroed().assume_init() };
        // SAFETY: `ptr` is valid; `v` is a plain-bytes `T` of the size passed.
        crate::error::to_result(unsafe {
            bindings::_ib_copy_validate_udata_in(
                self.ptr,
                (&raw mut v).cast(),
                core::mem::size_of::<T>(),
                min,
            )
        })?;
        Ok(v)
    }

    /// Sends the provider response `v`, as `ib_respond_udata` does: at most the
    /// buffer's length is copied and any space beyond `v` is cleared.
    pub fn respond<T: AsBytes>(&self, v: &T) -> Result {
        // SAFETY: `ptr` is valid; `v` is `size_of::<T>()` initialised bytes.
        crate::error::to_result(unsafe {
            bindings::_ib_respond_udata(
                self.ptr,
                core::ptr::from_ref(v).cast(),
                core::mem::size_of::<T>(),
            )
        })
    }

    /// Makes `buf` mappable by the process that issued this verb, and returns the
    /// `mmap` offset to report to it.
    pub fn publish(&self, buf: &mut super::shared_buf::SharedBuf) -> Result<u64> {
        // SAFETY: Driver udata is always embedded in a uverbs attribute bundle, whose
        // context is the caller's valid ucontext; its device uses the shared-buffer
        // mmap ops (set in `Device::OPS`).
        unsafe { buf.publish(bindings::rdma_udata_ucontext(self.ptr)) }
    }

    /// Fails with `EOPNOTSUPP` unless the verb carries no provider data at all, for
    /// verbs whose provider ABI has none.
    pub fn expect_empty(udata: Option<&UData>) -> Result {
        match udata {
            Some(u) if u.out_len() != 0 || !u.input_cleared_from(0) => Err(EOPNOTSUPP),
            _ => Ok(()),
        }
    }
}

#[macros::kunit_tests(rust_kernel_rdma_types)]
mod tests {
    use super::*;

    #[test]
    fn device_attr_reaches_the_c_struct() {
        let mut raw: bindings::ib_device_attr = pin_init::zeroed();
        raw.max_qp = 77;
        let a = DeviceAttr {
            max_cqe: 32767,
            max_pkeys: 64,
            sys_image_guid: 0x1122,
            ..Default::default()
        };
        a.write_to(&mut raw);
        assert_eq!(raw.max_cqe, 32767);
        assert_eq!(raw.max_pkeys, 64);
        assert_eq!(raw.sys_image_guid, 0x1122);
        // Every listed field is written: unset ones become their default.
        assert_eq!(raw.max_qp, 0);
    }

    #[test]
    fn port_events_map_to_ib_events() {
        assert_eq!(
            PortEvent::Active.to_raw(),
            bindings::ib_event_type_IB_EVENT_PORT_ACTIVE
        );
        assert_eq!(
            PortEvent::Error.to_raw(),
            bindings::ib_event_type_IB_EVENT_PORT_ERR
        );
    }
}
