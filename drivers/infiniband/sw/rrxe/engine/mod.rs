// SPDX-License-Identifier: GPL-2.0

//! The transport engines of a QP: requester, completer, responder, the
//! responder's sender, and loss recovery.

pub(crate) mod comp;
pub(crate) mod recovery;
pub(crate) mod req;
pub(crate) mod resp;
pub(crate) mod resp_tx;
