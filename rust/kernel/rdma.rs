// SPDX-License-Identifier: GPL-2.0

//! RDMA (InfiniBand verbs) providers.
//!
//! An RDMA provider is what the RDMA core calls a device driver: it registers
//! `struct ib_device`s whose `struct ib_device_ops` implement the verbs, and the
//! core turns them into uverbs devices for user space and into the verbs API for
//! kernel consumers (NVMe-oF, NFS/RDMA, SMC-R, the CM). This module lets a Rust
//! provider do that.
//!
//! # What a provider implements
//!
//! [`Driver`], on a type of its own. `Driver` holds the device-level ops
//! (`query_device`, `query_port`, `get_port_immutable`, and optionally
//! `query_pkey`, `get_link_layer` and hardware counters) and the type of the
//! per-device data. Its supertraits are the object-level parts, one per kind of
//! verbs object, each in that object's module with the type of the provider's data
//! for the object: [`ucontext::Operations`], [`pd::Operations`],
//! [`cq::Operations`], [`qp::Operations`], [`srq::Operations`],
//! [`ah::Operations`], [`mr::Operations`] and [`mw::Operations`].
//!
//! Optional ops are the trait methods with a default body. `#[vtable]` records which
//! ones a provider implements, and only those are installed in `ib_device_ops`; for
//! the others the core answers `EOPNOTSUPP` or leaves the feature out. The ops the
//! core requires of a kernel verbs provider (`ib_device_check_mandatory`) are
//! required methods. A kind of object the provider does not support (user
//! contexts, SRQs, AHs, MWs) gets `()` as its data and no ops. Ops that only make
//! sense together (an SRQ's five, `alloc_mr` and `map_mr_sg`, multicast attach and
//! detach) are checked when the ops table is built, at compile time.
//!
//! The provider registers devices with [`Device::register`], keeps them in a
//! [`DeviceList`], and lets `rdma link add` create them through a
//! [`link::Registration`]. A provider that runs the transport in software over a
//! net device (rxe, siw) builds on the [`sw`] layer.
//!
//! # The types and their C counterparts
//!
//! | Rust                    | C                                                |
//! |-------------------------|--------------------------------------------------|
//! | [`Device`]              | `struct ib_device`                               |
//! | [`pd::Pd`]              | `struct ib_pd`                                   |
//! | [`cq::Cq`]              | `struct ib_cq`                                   |
//! | [`qp::Qp`]              | `struct ib_qp`                                   |
//! | [`srq::Srq`]            | `struct ib_srq`                                  |
//! | [`ah::Ah`]              | `struct ib_ah`                                   |
//! | [`mr::Mr`]              | `struct ib_mr`                                   |
//! | [`mw::Mw`]              | `struct ib_mw`                                   |
//! | [`wr::SendWr`]          | `struct ib_send_wr` and its containers           |
//! | [`wr::RecvWr`]          | `struct ib_recv_wr`                              |
//! | [`wr::Sge`]             | `struct ib_sge`                                  |
//! | [`wr::Wc`]              | `struct ib_wc`, `struct ib_uverbs_wc`            |
//! | [`uverbs::UData`]       | `struct ib_udata`                                |
//! | [`umem::Umem`]          | `struct ib_umem`                                 |
//! | `umem_odp::UmemOdp`     | `struct ib_umem_odp` (with `INFINIBAND_ON_DEMAND_PAGING`) |
//! | [`shared_buf::SharedBuf`] | `struct rdma_user_mmap_entry` and its memory   |
//! | [`restrack::DriverDetails`] | the `RDMA_NLDEV_ATTR_DRIVER` nest            |
//! | [`link::Registration`]  | `struct rdma_link_ops`                           |
//!
//! Each object wrapper (`Cq<T>` and so on) is the core's struct followed by the
//! provider's data, as `INIT_RDMA_OBJ_SIZE` lays it out; `data()` gives the
//! provider's part. Masks, flags and enumerations are typed ([`qp::QpAttrMask`],
//! [`mr::AccessFlags`], [`wr::WcStatus`], ...), with their values taken from
//! `ib_verbs.h` and `ib_user_verbs.h`.
//!
//! # Object lifetimes
//!
//! As the RDMA core defines them:
//!
//! - A device is owned by the core once registered, until `dealloc_driver`, which
//!   drops its data ([`device`]).
//! - The core allocates every object but MRs, and frees it after the provider's
//!   destroy op succeeds; the data is written after the create op succeeds and
//!   dropped right before the free. A failed destroy leaves the object alive.
//! - An object holds use counts on what it was created with: a QP on its PD, CQs and
//!   SRQ; every object on its PD; a CQ or SRQ cannot be destroyed while a QP uses it.
//!   So `Qp::pd()`, `Qp::send_cq()` and the like return plain references.
//! - A user context is destroyed after all of its objects.
//! - A `&Cq<T>` (and the others) is handed to the provider for the duration of a
//!   call only; the data path reaches QPs through the provider's own tables
//!   ([`sw::QpTable`] for instance).
//!
//! # Locking the core provides
//!
//! Little, by design. For a user object, the uverbs object lock keeps `destroy`
//! apart from the object's other verbs, which take it shared and so run
//! concurrently with each other; kernel consumers promise the same by the verbs
//! API's rules. Nothing else is serialised: `modify_qp`, `query_qp`,
//! `post_send`, `post_recv`, `poll_cq` and `req_notify_cq` may run concurrently,
//! the data-path ones in any context, including hard interrupts. A provider's
//! object data locks itself (IRQ-safe spinlocks in rxe and siw). `destroy` ops are
//! called once, with no other verb of the object running. Each ops trait states
//! what is specific to its object.
//!
//! # Examples
//!
//! The typed masks and flags keep the C values, unknown bits included:
//!
//! ```
//! use kernel::bindings;
//! use kernel::rdma::{
//!     mr::{AccessFlag, AccessFlags},
//!     qp::{QpAttrField, QpAttrMask, QpState},
//!     wr::{Sge, WcOpcode, WcStatus},
//! };
//!
//! let mask = QpAttrMask::from_bits(
//!     bindings::ib_qp_attr_mask_IB_QP_STATE | bindings::ib_qp_attr_mask_IB_QP_AV,
//! );
//! assert!(mask.contains(QpAttrField::State));
//! assert!(!mask.contains(QpAttrField::PathMtu));
//! assert_eq!(mask.unknown_bits(), 0);
//!
//! let access = AccessFlag::LocalWrite | AccessFlag::RemoteRead;
//! assert_eq!(
//!     access.bits(),
//!     bindings::ib_access_flags_IB_ACCESS_LOCAL_WRITE
//!         | bindings::ib_access_flags_IB_ACCESS_REMOTE_READ
//! );
//! // A bit `ib_access_flags` does not name is kept for the provider to refuse.
//! assert_eq!(AccessFlags::from_bits(1 << 30).unknown_bits(), 1 << 30);
//!
//! assert_eq!(QpState::try_from(bindings::ib_qp_state_IB_QPS_RTS), Ok(QpState::Rts));
//! assert!(QpState::try_from(42).is_err());
//! assert_eq!(u32::from(WcStatus::RetryExcErr), bindings::ib_wc_status_IB_WC_RETRY_EXC_ERR);
//! assert!(WcOpcode::RecvRdmaWithImm.is_recv() && !WcOpcode::RdmaRead.is_recv());
//!
//! let sge = Sge { addr: 0x1000, length: 64, lkey: 7 };
//! assert_eq!(core::mem::size_of_val(&sge), core::mem::size_of::<bindings::ib_sge>());
//! ```
//!
//! A kernel-only provider without SRQs, AHs or MWs, in outline. It builds, and
//! gets the mandatory ops plus `peek_cq`:
//!
//! ```
//! use kernel::prelude::*;
//! use kernel::rdma::{
//!     self, attr::*, cq::*, mr::*, pd::Pd, qp::*, srq::Srq, uverbs::UData, wr::*, Device,
//!     DeviceList, Driver,
//! };
//!
//! struct Skel;
//!
//! #[vtable]
//! impl Driver for Skel {
//!     type Data = ();
//!     const DRIVER_ID: DriverId = DriverId::Unknown;
//!     const UVERBS_ABI_VERSION: u32 = 1;
//!
//!     fn with_devices<R>(f: impl FnOnce(&mut DeviceList<Self>) -> R) -> R {
//!         f(&mut DeviceList::new())
//!     }
//!     fn query_device(_: &Device<Self>, _: &mut DeviceAttr) -> Result { Ok(()) }
//!     fn query_port(_: &Device<Self>, _: u32, _: &mut PortAttr) -> Result { Ok(()) }
//!     fn port_immutable(_: &Device<Self>, _: u32) -> Result<PortImmutable> {
//!         Ok(PortImmutable::default())
//!     }
//! }
//!
//! // Kernel consumers only: no user context, no SRQ, AH or MW.
//! #[vtable]
//! impl rdma::ucontext::Operations for Skel { type UContext = (); }
//! #[vtable]
//! impl rdma::srq::Operations for Skel { type Srq = (); }
//! #[vtable]
//! impl rdma::ah::Operations for Skel { type Ah = (); }
//! #[vtable]
//! impl rdma::mw::Operations for Skel { type Mw = (); }
//!
//! impl rdma::pd::Operations for Skel {
//!     type Pd = ();
//!     fn alloc_pd(_: &Device<Self>, _: Option<&UData>) -> Result { Ok(()) }
//! }
//!
//! #[vtable]
//! impl rdma::cq::Operations for Skel {
//!     type Cq = ();
//!     fn create_cq(_: &Device<Self>, a: &CqInitAttr, _: Option<&UData>) -> Result<((), u32)> {
//!         Ok(((), a.cqe))
//!     }
//!     fn destroy_cq(_: &Cq<Self>) -> Result { Ok(()) }
//!     fn poll_cq(_: &Cq<Self>, _: &mut [Wc]) -> usize { 0 }
//!     fn req_notify_cq(_: &Cq<Self>, _: CqNotifyFlags) -> Result<bool> { Ok(false) }
//!     fn peek_cq(_: &Cq<Self>, _: usize) -> usize { 0 }
//! }
//!
//! #[vtable]
//! impl rdma::qp::Operations for Skel {
//!     type Qp = ();
//!     fn create_qp(
//!         _: &Pd<Self>, _: &mut QpInitAttr, _: &Cq<Self>, _: &Cq<Self>,
//!         _: Option<&Srq<Self>>, _: Option<&UData>,
//!     ) -> Result<((), u32)> {
//!         Err(EOPNOTSUPP)
//!     }
//!     fn modify_qp(_: &Qp<Self>, _: &QpAttr, _: QpAttrMask, _: Option<&UData>) -> Result {
//!         Ok(())
//!     }
//!     fn destroy_qp(_: &Qp<Self>) -> Result { Ok(()) }
//!     fn post_send(_: &Qp<Self>, _: &SendWr<'_, Self>) -> Result { Err(EINVAL) }
//!     fn post_recv(_: &Qp<Self>, _: &RecvWr<'_>) -> Result { Err(EINVAL) }
//! }
//!
//! #[vtable]
//! impl rdma::mr::Operations for Skel {
//!     type Mr = ();
//!     fn get_dma_mr(_: &Pd<Self>, _: AccessFlags) -> Result<((), MrKeys)> {
//!         Ok(((), MrKeys::default()))
//!     }
//!     fn reg_user_mr(
//!         _: &Pd<Self>, _: u64, _: u64, _: u64, _: AccessFlags, _: Option<&UData>,
//!     ) -> Result<((), MrKeys)> {
//!         Err(EOPNOTSUPP)
//!     }
//!     fn dereg_mr(_: &Mr<Self>) -> Result { Ok(()) }
//! }
//!
//! assert!(<Skel as rdma::cq::Operations>::HAS_PEEK_CQ);
//! assert!(!<Skel as rdma::cq::Operations>::HAS_RESIZE_CQ);
//! assert!(!<Skel as rdma::srq::Operations>::HAS_CREATE_SRQ);
//! assert!(!<Skel as Driver>::HAS_QUERY_PKEY);
//! ```
//!
//! C headers: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h),
//! [`include/uapi/rdma/ib_user_verbs.h`](srctree/include/uapi/rdma/ib_user_verbs.h),
//! [`include/rdma/rdma_netlink.h`](srctree/include/rdma/rdma_netlink.h).
//! Core: [`drivers/infiniband/core/`](srctree/drivers/infiniband/core/).

/// Declares a Rust enum over the values of a C enum, with `TryFrom<$ty>` (`EINVAL`
/// for a value the Rust enum does not have) and `From<Self> for $ty`.
macro_rules! c_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident: $ty:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr($ty)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant = $value ),+
        }

        impl ::core::convert::TryFrom<$ty> for $name {
            type Error = $crate::error::Error;

            fn try_from(v: $ty) -> ::core::result::Result<Self, Self::Error> {
                $(
                    if v == $name::$variant as $ty {
                        return Ok($name::$variant);
                    }
                )+
                Err($crate::error::code::EINVAL)
            }
        }

        impl ::core::convert::From<$name> for $ty {
            fn from(v: $name) -> $ty {
                v as $ty
            }
        }
    };
}

/// Declares a bit-set type over the values of a C flags enum with
/// [`impl_flags!`](crate::impl_flags), plus conversions from and to the C value
/// that keep bits the type does not name.
macro_rules! c_flags {
    (
        $(#[$fmeta:meta])*
        $vis:vis struct $flags:ident($ty:ty);

        $(#[$meta:meta])*
        $fvis:vis enum $flag:ident {
            $( $(#[$vmeta:meta])* $name:ident = $value:expr ),+ $(,)?
        }
    ) => {
        $crate::impl_flags!(
            $(#[$fmeta])*
            ///
            /// A plain value: no lifetime or locking of its own.
            #[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
            $vis struct $flags($ty);

            $(#[$meta])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            $fvis enum $flag {
                $( $(#[$vmeta])* $name = $value ),+
            }
        );

        impl $flags {
            /// The flags whose C value is `bits`, unknown bits included.
            pub const fn from_bits(bits: $ty) -> Self {
                Self(bits)
            }

            /// The C value.
            pub const fn bits(self) -> $ty {
                self.0
            }

            /// The bits set that no flag of this type names.
            pub const fn unknown_bits(self) -> $ty {
                self.0 & !Self::all_bits()
            }
        }
    };
}

/// Declares the wrapper of a core-allocated verbs object: `$name<T>` over
/// `bindings::$c`, whose driver data is `T::$data`.
macro_rules! core_object {
    ($(#[$m:meta])* $name:ident, $c:ident, $data:ident) => {
        $(#[$m])*
        ///
        /// # Invariants
        ///
        /// Points at the core struct of a live `ObjWith<_, T::Data>` of a device of
        /// driver `T`, whose driver data is initialised.
        #[repr(transparent)]
        pub struct $name<T>(Opaque<bindings::$c>, PhantomData<T>);

        // SAFETY: The driver data is `Send + Sync`; the core object is thread-safe.
        unsafe impl<T: Driver> Send for $name<T> {}
        // SAFETY: See `Send`.
        unsafe impl<T: Driver> Sync for $name<T> {}

        impl<T: Driver> $name<T> {
            /// # Safety
            ///
            /// `p` must satisfy the type invariant for `'a`.
            pub(crate) unsafe fn from_raw<'a>(p: *mut bindings::$c) -> &'a Self {
                // SAFETY: Transparent over the C struct; see the contract.
                unsafe { &*p.cast() }
            }

            pub(crate) fn as_raw(&self) -> *mut bindings::$c {
                self.0.get()
            }

            /// The driver data.
            pub fn data(&self) -> &T::$data {
                // SAFETY: By the type invariant.
                unsafe {
                    &(*self
                        .as_raw()
                        .cast::<$crate::rdma::object::ObjWith<bindings::$c, T::$data>>())
                    .data
                }
            }

            /// The device the object belongs to.
            pub fn device(&self) -> &$crate::rdma::Device<T> {
                // SAFETY: The core sets `device` before calling the driver, and the
                // device outlives its objects.
                unsafe { $crate::rdma::Device::from_raw((*self.as_raw()).device) }
            }
        }
    };
}

pub mod ah;
pub mod attr;
pub mod cq;
pub mod device;
pub mod event;
pub mod link;
pub mod mr;
pub mod mw;
mod object;
pub mod pd;
pub mod qp;
pub mod restrack;
pub mod shared_buf;
pub mod srq;
pub mod sw;
pub mod ucontext;
pub mod umem;
#[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
pub mod umem_odp;
pub mod uverbs;
pub mod virt_dma;
pub mod wr;

pub use device::{Device, DeviceList, DeviceParams, Driver};

#[macros::kunit_tests(rust_kernel_rdma_types)]
mod tests {
    use super::*;
    use crate::bindings;

    #[test]
    fn device_attr_reaches_the_c_struct() {
        let mut raw: bindings::ib_device_attr = pin_init::zeroed();
        raw.max_qp = 77;
        let a = attr::DeviceAttr {
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
    fn port_attr_converts_typed_fields() {
        let mut raw: bindings::ib_port_attr = pin_init::zeroed();
        let a = attr::PortAttr {
            state: attr::PortState::Active,
            max_mtu: attr::Mtu::Mtu4096,
            phys_state: attr::PhysState::LinkUp,
            ..Default::default()
        };
        a.write_to(&mut raw);
        assert_eq!(raw.state, bindings::ib_port_state_IB_PORT_ACTIVE);
        assert_eq!(raw.max_mtu, bindings::ib_mtu_IB_MTU_4096);
        assert_eq!(
            u32::from(raw.phys_state),
            bindings::ib_port_phys_state_IB_PORT_PHYS_STATE_LINK_UP
        );
        assert_eq!(attr::Mtu::Mtu1024.bytes(), 1024);
    }

    #[test]
    fn port_events_map_to_ib_events() {
        assert_eq!(
            u32::from(event::EventType::PortActive),
            bindings::ib_event_type_IB_EVENT_PORT_ACTIVE
        );
        assert_eq!(
            u32::from(event::EventType::PortErr),
            bindings::ib_event_type_IB_EVENT_PORT_ERR
        );
    }

    #[test]
    fn enums_round_trip_and_refuse_unknown_values() {
        for v in 0..=bindings::ib_wc_status_IB_WC_GENERAL_ERR {
            assert_eq!(u32::from(wr::WcStatus::try_from(v).unwrap()), v);
        }
        assert!(wr::WcStatus::try_from(bindings::ib_wc_status_IB_WC_GENERAL_ERR + 1).is_err());
        for v in 0..=bindings::ib_qp_state_IB_QPS_ERR {
            assert_eq!(u32::from(qp::QpState::try_from(v).unwrap()), v);
        }
        assert_eq!(
            wr::WrOpcode::try_from(bindings::ib_wr_opcode_IB_WR_REG_MR),
            Ok(wr::WrOpcode::RegMr)
        );
        assert!(wr::WrOpcode::try_from(bindings::ib_wr_opcode_IB_WR_RESERVED1).is_err());
        assert_eq!(
            qp::QpType::try_from(bindings::ib_qp_type_IB_QPT_UD),
            Ok(qp::QpType::Ud)
        );
        assert!(qp::QpType::try_from(bindings::ib_qp_type_IB_QPT_RESERVED1).is_err());
    }

    #[test]
    fn user_numbering_matches_the_kernel_numbering() {
        // `ib_verbs.h` defines the kernel values from the user ones; the typed
        // enums must agree.
        assert_eq!(
            u32::from(uverbs::WrOpcode::AtomicWrite),
            u32::from(wr::WrOpcode::AtomicWrite)
        );
        assert_eq!(
            u32::from(uverbs::WcOpcode::Flush),
            u32::from(wr::WcOpcode::Flush)
        );
        assert_eq!(
            uverbs::AccessFlag::FlushPersistent as u32,
            mr::AccessFlag::FlushPersistent as u32
        );
        assert_eq!(
            uverbs::WriteCmds::from(uverbs::WriteCmd::PostSend).bits(),
            1u64 << bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POST_SEND
        );
    }

    #[test]
    fn flags_keep_unknown_bits() {
        let f = wr::SendFlags::from_bits(bindings::ib_send_flags_IB_SEND_SIGNALED as u32 | 1 << 27);
        assert!(f.contains(wr::SendFlag::Signaled));
        assert!(!f.contains(wr::SendFlag::Inline));
        assert_eq!(f.unknown_bits(), 1 << 27);
        assert_eq!(
            qp::QpAttrMask::STANDARD.bits(),
            bindings::ib_qp_attr_mask_IB_QP_ATTR_STANDARD_BITS
        );
        assert_eq!(qp::QpAttrMask::from_bits(1 << 25).unknown_bits(), 0);
        let n = cq::CqNotifyFlags::from_bits(
            bindings::ib_cq_notify_flags_IB_CQ_SOLICITED
                | bindings::ib_cq_notify_flags_IB_CQ_REPORT_MISSED_EVENTS,
        );
        assert!(n.solicited_only() && n.contains(cq::CqNotifyFlag::ReportMissedEvents));
        assert!(!cq::CqNotifyFlags::from(cq::CqNotifyFlag::NextComp).solicited_only());
    }

    #[test]
    fn wc_reaches_ib_wc_and_ib_uverbs_wc() {
        let wc = wr::Wc {
            wr_id: 9,
            status: wr::WcStatus::RemAccessErr,
            opcode: wr::WcOpcode::RecvRdmaWithImm,
            byte_len: 100,
            wc_flags: wr::WcFlag::WithImm | wr::WcFlag::Grh,
            ..Default::default()
        };
        let mut raw: bindings::ib_wc = pin_init::zeroed();
        wc.write_to(&mut raw);
        assert_eq!(raw.status, bindings::ib_wc_status_IB_WC_REM_ACCESS_ERR);
        assert_eq!(raw.opcode, bindings::ib_wc_opcode_IB_WC_RECV_RDMA_WITH_IMM);
        assert_eq!(
            raw.wc_flags as u32,
            bindings::ib_wc_flags_IB_WC_WITH_IMM | bindings::ib_wc_flags_IB_WC_GRH
        );
        let u = wc.to_uverbs();
        // `struct ib_uverbs_wc`: wr_id, status, opcode, vendor_err, byte_len, ...
        assert_eq!(u64::from_ne_bytes(u[0..8].try_into().unwrap()), 9);
        assert_eq!(
            u32::from_ne_bytes(u[8..12].try_into().unwrap()),
            bindings::ib_wc_status_IB_WC_REM_ACCESS_ERR
        );
        assert_eq!(u32::from_ne_bytes(u[20..24].try_into().unwrap()), 100);
    }

    /// A provider with every optional op.
    mod full {
        use crate::prelude::*;
        use crate::rdma::{
            ah::*, attr::*, cq::*, device::StatDesc, mr::*, mw::*, pd::Pd, qp::*,
            restrack::DriverDetails, srq::*, uverbs::UData, wr::*, Device, DeviceList, Driver,
        };

        pub(super) struct Full;

        #[vtable]
        impl Driver for Full {
            type Data = ();
            const DRIVER_ID: DriverId = DriverId::Rxe;
            const UVERBS_ABI_VERSION: u32 = 2;
            const HW_STATS: &'static [StatDesc] = &[StatDesc::new(c"x")];

            fn with_devices<R>(f: impl FnOnce(&mut DeviceList<Self>) -> R) -> R {
                f(&mut DeviceList::new())
            }
            fn query_device(_: &Device<Self>, _: &mut DeviceAttr) -> Result {
                Ok(())
            }
            fn query_port(_: &Device<Self>, _: u32, _: &mut PortAttr) -> Result {
                Ok(())
            }
            fn port_immutable(_: &Device<Self>, _: u32) -> Result<PortImmutable> {
                Err(EINVAL)
            }
            fn query_pkey(_: &Device<Self>, _: u32, _: u16) -> Result<u16> {
                Err(EINVAL)
            }
            fn link_layer(_: &Device<Self>, _: u32) -> LinkLayer {
                LinkLayer::Ethernet
            }
            fn hw_stats(_: &Device<Self>, _: u32, _: &mut [u64]) {}
            fn process_mad(
                _: &Device<Self>,
                _: u32,
                _: &[u8; crate::rdma::device::MAD_SIZE],
                _: &mut [u8; crate::rdma::device::MAD_SIZE],
            ) -> crate::rdma::device::MadResult {
                crate::rdma::device::MadResult::Pass
            }
        }

        #[vtable]
        impl crate::rdma::ucontext::Operations for Full {
            type UContext = ();
            fn alloc_ucontext(_: &Device<Self>, _: Option<&UData>) -> Result {
                Ok(())
            }
            fn disassociate_ucontext(_: &Device<Self>, (): &()) {}
        }

        impl crate::rdma::pd::Operations for Full {
            type Pd = ();
            fn alloc_pd(_: &Device<Self>, _: Option<&UData>) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::cq::Operations for Full {
            type Cq = ();
            fn create_cq(_: &Device<Self>, _: &CqInitAttr, _: Option<&UData>) -> Result<((), u32)> {
                Ok(((), 0))
            }
            fn destroy_cq(_: &Cq<Self>) -> Result {
                Ok(())
            }
            fn poll_cq(_: &Cq<Self>, _: &mut [Wc]) -> usize {
                0
            }
            fn req_notify_cq(_: &Cq<Self>, _: CqNotifyFlags) -> Result<bool> {
                Ok(false)
            }
            fn resize_cq(_: &Cq<Self>, _: u32, _: Option<&UData>) -> Result<u32> {
                Ok(0)
            }
            fn peek_cq(_: &Cq<Self>, _: usize) -> usize {
                0
            }
        }

        #[vtable]
        impl crate::rdma::qp::Operations for Full {
            type Qp = ();
            fn create_qp(
                _: &Pd<Self>,
                _: &mut QpInitAttr,
                _: &Cq<Self>,
                _: &Cq<Self>,
                _: Option<&Srq<Self>>,
                _: Option<&UData>,
            ) -> Result<((), u32)> {
                Err(EINVAL)
            }
            fn modify_qp(_: &Qp<Self>, _: &QpAttr, _: QpAttrMask, _: Option<&UData>) -> Result {
                Ok(())
            }
            fn destroy_qp(_: &Qp<Self>) -> Result {
                Ok(())
            }
            fn post_send(_: &Qp<Self>, _: &SendWr<'_, Self>) -> Result {
                Ok(())
            }
            fn post_recv(_: &Qp<Self>, _: &RecvWr<'_>) -> Result {
                Ok(())
            }
            fn query_qp(_: &Qp<Self>, _: &mut QpAttr, _: &mut QpInitAttr) -> Result {
                Ok(())
            }
            fn post_send_user(_: &Qp<Self>, _: bool) -> Result {
                Ok(())
            }
            fn fill_qp_details(_: &Qp<Self>, _: &mut DriverDetails<'_>) -> Result {
                Ok(())
            }
            fn attach_mcast(_: &Qp<Self>, _: &[u8; 16]) -> Result {
                Ok(())
            }
            fn detach_mcast(_: &Qp<Self>, _: &[u8; 16]) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::srq::Operations for Full {
            type Srq = ();
            fn create_srq(_: &Pd<Self>, _: &mut SrqInitAttr, _: Option<&UData>) -> Result {
                Err(EINVAL)
            }
            fn modify_srq(_: &Srq<Self>, _: &SrqAttr, _: SrqAttrMask, _: Option<&UData>) -> Result {
                Ok(())
            }
            fn query_srq(_: &Srq<Self>) -> Result<SrqAttr> {
                Err(EINVAL)
            }
            fn destroy_srq(_: &Srq<Self>) -> Result {
                Ok(())
            }
            fn post_srq_recv(_: &Srq<Self>, _: &RecvWr<'_>) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::ah::Operations for Full {
            type Ah = ();
            fn create_ah(_: &Pd<Self>, _: &AhAttr, _: bool, _: Option<&UData>) -> Result {
                Err(EINVAL)
            }
            fn query_ah(_: &Ah<Self>) -> Result<AhAttr> {
                Err(EINVAL)
            }
            fn destroy_ah(_: &Ah<Self>) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::mr::Operations for Full {
            type Mr = ();
            fn get_dma_mr(_: &Pd<Self>, _: AccessFlags) -> Result<((), MrKeys)> {
                Err(EINVAL)
            }
            fn reg_user_mr(
                _: &Pd<Self>,
                _: u64,
                _: u64,
                _: u64,
                _: AccessFlags,
                _: Option<&UData>,
            ) -> Result<((), MrKeys)> {
                Err(EINVAL)
            }
            fn dereg_mr(_: &Mr<Self>) -> Result {
                Ok(())
            }
            fn alloc_mr(_: &Pd<Self>, _: MrType, _: u32) -> Result<((), MrKeys)> {
                Err(EINVAL)
            }
            fn mr_map_begin(_: &Mr<Self>) -> Result {
                Ok(())
            }
            fn mr_set_page(_: &Mr<Self>, _: u64) -> Result {
                Ok(())
            }
            fn mr_map_end(_: &Mr<Self>, _: u64, _: u64, _: u32) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::mw::Operations for Full {
            type Mw = ();
            fn alloc_mw(_: &Pd<Self>, _: MwType, _: Option<&UData>) -> Result<((), u32)> {
                Err(EINVAL)
            }
            fn dealloc_mw(_: &Mw<Self>) -> Result {
                Ok(())
            }
        }
    }

    /// A provider with only the mandatory ops.
    mod minimal {
        use crate::prelude::*;
        use crate::rdma::{
            attr::*, cq::*, mr::*, pd::Pd, qp::*, srq::Srq, uverbs::UData, wr::*, Device,
            DeviceList, Driver,
        };

        pub(super) struct Minimal;

        #[vtable]
        impl Driver for Minimal {
            type Data = ();
            const DRIVER_ID: DriverId = DriverId::Siw;
            const UVERBS_ABI_VERSION: u32 = 1;

            fn with_devices<R>(f: impl FnOnce(&mut DeviceList<Self>) -> R) -> R {
                f(&mut DeviceList::new())
            }
            fn query_device(_: &Device<Self>, _: &mut DeviceAttr) -> Result {
                Ok(())
            }
            fn query_port(_: &Device<Self>, _: u32, _: &mut PortAttr) -> Result {
                Ok(())
            }
            fn port_immutable(_: &Device<Self>, _: u32) -> Result<PortImmutable> {
                Err(EINVAL)
            }
        }

        #[vtable]
        impl crate::rdma::ucontext::Operations for Minimal {
            type UContext = ();
        }

        #[vtable]
        impl crate::rdma::srq::Operations for Minimal {
            type Srq = ();
        }

        #[vtable]
        impl crate::rdma::ah::Operations for Minimal {
            type Ah = ();
        }

        #[vtable]
        impl crate::rdma::mw::Operations for Minimal {
            type Mw = ();
        }

        impl crate::rdma::pd::Operations for Minimal {
            type Pd = ();
            fn alloc_pd(_: &Device<Self>, _: Option<&UData>) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::cq::Operations for Minimal {
            type Cq = ();
            fn create_cq(_: &Device<Self>, _: &CqInitAttr, _: Option<&UData>) -> Result<((), u32)> {
                Ok(((), 0))
            }
            fn destroy_cq(_: &Cq<Self>) -> Result {
                Ok(())
            }
            fn poll_cq(_: &Cq<Self>, _: &mut [Wc]) -> usize {
                0
            }
            fn req_notify_cq(_: &Cq<Self>, _: CqNotifyFlags) -> Result<bool> {
                Ok(false)
            }
        }

        #[vtable]
        impl crate::rdma::qp::Operations for Minimal {
            type Qp = ();
            fn create_qp(
                _: &Pd<Self>,
                _: &mut QpInitAttr,
                _: &Cq<Self>,
                _: &Cq<Self>,
                _: Option<&Srq<Self>>,
                _: Option<&UData>,
            ) -> Result<((), u32)> {
                Err(EINVAL)
            }
            fn modify_qp(_: &Qp<Self>, _: &QpAttr, _: QpAttrMask, _: Option<&UData>) -> Result {
                Ok(())
            }
            fn destroy_qp(_: &Qp<Self>) -> Result {
                Ok(())
            }
            fn post_send(_: &Qp<Self>, _: &SendWr<'_, Self>) -> Result {
                Ok(())
            }
            fn post_recv(_: &Qp<Self>, _: &RecvWr<'_>) -> Result {
                Ok(())
            }
        }

        #[vtable]
        impl crate::rdma::mr::Operations for Minimal {
            type Mr = ();
            fn get_dma_mr(_: &Pd<Self>, _: AccessFlags) -> Result<((), MrKeys)> {
                Err(EINVAL)
            }
            fn reg_user_mr(
                _: &Pd<Self>,
                _: u64,
                _: u64,
                _: u64,
                _: AccessFlags,
                _: Option<&UData>,
            ) -> Result<((), MrKeys)> {
                Err(EINVAL)
            }
            fn dereg_mr(_: &Mr<Self>) -> Result {
                Ok(())
            }
        }
    }

    #[test]
    fn every_implemented_op_is_installed() {
        let ops = Device::<full::Full>::OPS;
        assert!(ops.query_pkey.is_some() && ops.get_link_layer.is_some());
        assert!(ops.alloc_hw_port_stats.is_some() && ops.get_hw_stats.is_some());
        assert!(ops.alloc_ucontext.is_some() && ops.mmap.is_some());
        assert!(ops.process_mad.is_some() && ops.disassociate_ucontext.is_some());
        assert!(ops.resize_user_cq.is_some() && ops.peek_cq.is_some());
        assert!(ops.query_qp.is_some() && ops.fill_res_qp_entry.is_some());
        assert!(ops.attach_mcast.is_some() && ops.detach_mcast.is_some());
        assert!(ops.create_srq.is_some() && ops.post_srq_recv.is_some());
        assert!(ops.create_ah.is_some() && ops.create_user_ah.is_some());
        assert!(ops.query_ah.is_some());
        assert!(ops.alloc_mr.is_some() && ops.map_mr_sg.is_some());
        assert!(ops.alloc_mw.is_some() && ops.dealloc_mw.is_some());
        assert_eq!(ops.driver_id, bindings::rdma_driver_id_RDMA_DRIVER_RXE);
    }

    #[test]
    fn unimplemented_ops_are_left_out() {
        let ops = Device::<minimal::Minimal>::OPS;
        // The mandatory ones, as `ib_device_check_mandatory` lists them.
        assert!(ops.query_device.is_some() && ops.query_port.is_some());
        assert!(ops.alloc_pd.is_some() && ops.dealloc_pd.is_some());
        assert!(ops.create_qp.is_some() && ops.modify_qp.is_some() && ops.destroy_qp.is_some());
        assert!(ops.post_send.is_some() && ops.post_recv.is_some());
        assert!(ops.create_cq.is_some() && ops.destroy_cq.is_some());
        assert!(ops.poll_cq.is_some() && ops.req_notify_cq.is_some());
        assert!(ops.get_dma_mr.is_some() && ops.reg_user_mr.is_some() && ops.dereg_mr.is_some());
        assert!(ops.get_port_immutable.is_some());
        // And nothing else.
        assert!(ops.query_pkey.is_none() && ops.get_link_layer.is_none());
        assert!(ops.alloc_hw_port_stats.is_none() && ops.get_hw_stats.is_none());
        assert!(ops.alloc_ucontext.is_none() && ops.mmap.is_none());
        assert!(ops.process_mad.is_none() && ops.disassociate_ucontext.is_none());
        assert!(ops.resize_user_cq.is_none() && ops.peek_cq.is_none());
        assert!(ops.query_qp.is_none() && ops.fill_res_qp_entry.is_none());
        assert!(ops.attach_mcast.is_none() && ops.detach_mcast.is_none());
        assert!(ops.create_srq.is_none() && ops.modify_srq.is_none());
        assert!(ops.query_srq.is_none() && ops.destroy_srq.is_none());
        assert!(ops.post_srq_recv.is_none());
        assert!(ops.create_ah.is_none() && ops.create_user_ah.is_none());
        assert!(ops.query_ah.is_none() && ops.destroy_ah.is_none());
        assert!(ops.alloc_mr.is_none() && ops.map_mr_sg.is_none());
        assert!(ops.alloc_mw.is_none() && ops.dealloc_mw.is_none());
        assert_eq!(ops.size_ib_srq, 0);
        assert_eq!(ops.driver_id, bindings::rdma_driver_id_RDMA_DRIVER_SIW);
    }
}
