// SPDX-License-Identifier: GPL-2.0

//! RDMA (InfiniBand verbs) provider support.
//!
//! A provider implements [`device::Driver`]; [`device::Device::register`] creates an
//! `ib_device` whose `ib_device_ops` are generated from it, and
//! [`link::Registration`] makes `rdma link add NAME type TYPE netdev DEV` reach the
//! provider.
//!
//! C headers: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h),
//! [`include/rdma/rdma_netlink.h`](srctree/include/rdma/rdma_netlink.h).

pub mod device;
pub mod link;
pub mod restrack;
pub mod shared_buf;
pub mod types;
pub mod umem;
pub mod verbs;
pub mod virt_dma;

pub use device::{Device, DeviceList, Driver};
pub use types::{DeviceAttr, PortAttr, PortImmutable, UData};
