// SPDX-License-Identifier: GPL-2.0

//! RDMA (InfiniBand verbs) providers.
//!
//! An RDMA provider is what the RDMA core calls a device driver: it registers
//! `struct ib_device`s whose `struct ib_device_ops` implement the verbs, and the
//! core turns them into uverbs devices for user space and into the verbs API for
//! kernel consumers (NVMe-oF, NFS/RDMA, SMC-R, the CM). This module lets a Rust
//! provider do that.
//!
//! A provider implements [`Driver`] and its object-level parts (one per kind of
//! verbs object, in the object's module); [`Device::register`] creates an
//! `ib_device` whose `ib_device_ops` hold the ops the provider implements, and
//! [`link::Registration`] makes `rdma link add NAME type TYPE netdev DEV` reach the
//! provider. A provider that runs the transport in software over a net device
//! builds on the [`sw`] layer.
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
pub mod uverbs;
pub mod virt_dma;
pub mod wr;

pub use device::{Device, DeviceList, DeviceParams, Driver};
