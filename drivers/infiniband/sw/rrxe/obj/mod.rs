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
pub(crate) mod pool;
pub(crate) mod qp;
pub(crate) mod ring;
pub(crate) mod srq;
pub(crate) mod wqe;
