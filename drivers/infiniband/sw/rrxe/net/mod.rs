// SPDX-License-Identifier: GPL-2.0

//! RoCE v2 over UDP: the sockets, sending and receiving.

pub(crate) mod recv;
pub(crate) mod socket;
pub(crate) mod xmit;
