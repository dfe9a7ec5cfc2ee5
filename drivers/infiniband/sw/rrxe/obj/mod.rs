// SPDX-License-Identifier: GPL-2.0

//! The verbs objects and their lifetimes: what a verb creates, changes and
//! destroys, and the state the data path reads. No packet is built or parsed
//! here.

pub(crate) mod ah;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod pool;
pub(crate) mod qp;
pub(crate) mod ring;
pub(crate) mod srq;
pub(crate) mod wqe;

/// The rrxe driver type. It has no data of its own: its per-device data is
/// [`device::RrxeDevice`]. Its trait impls sit with the layer each serves:
/// `kernel::rdma::Driver` in `crate::verbs`, and the receive path the UDP
/// sockets and loopback call (`EncapReceiver`) in `crate::net::recv`.
pub(crate) struct Rrxe;
