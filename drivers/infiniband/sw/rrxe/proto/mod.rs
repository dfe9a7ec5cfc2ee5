// SPDX-License-Identifier: GPL-2.0

//! Pure RoCE v2 protocol core of rrxe, wire compatible with Linux's rdma_rxe.
//!
//! Uses `core` only (no allocation, no floating point, no `unsafe`) and never
//! panics on packet input, so it builds both inside the kernel module and as the
//! host crate `tools/rrxe-proto`, where it is unit-, property- and fuzz-tested.
//!
//! - [`opcode`]: BTH opcode table (rxe's `rxe_opcode[]`).
//! - [`hdr`]: header views and field structs.
//! - [`packet`]: parser and builders for a whole UDP payload.
//! - [`doorbell`]: the kernel's half of the user doorbell handshake.
//! - [`icrc`]: RoCE v2 invariant CRC with a pluggable CRC-32.
//! - [`ip`]: the IP/UDP headers around a packet and the UDP source port.
//! - [`pma`]: the Performance Management agent's answers (port counters).
//! - [`psn`]: PSN/MSN arithmetic and IBTA timer/credit tables.
//! - [`qp_state`]: modify-QP transition rules (`ib_modify_qp_is_ok`).
//! - [`answers`]: the RC responder's queue of answers, cut into packets.
//! - [`read_ahead`]: READ responses that arrived ahead of a missing one.
//! - [`response_time`]: measured answer times, which stretch the ACK timeout.
//! - [`window`]: the RC requester's send window.
//! - [`selftest`]: self-contained test cases shared by `cargo test` and KUnit.

// The driver uses only part of this API and includes the tree as a private module,
// so unused items and `pub` visibility would otherwise warn in the kernel build.
#![allow(dead_code, unreachable_pub)]

pub mod answers;
pub mod doorbell;
pub mod hdr;
pub mod icrc;
pub mod ip;
pub mod opcode;
pub mod packet;
pub mod pma;
pub mod psn;
pub mod qp_state;
pub mod read_ahead;
pub mod response_time;
pub mod selftest;
pub mod window;
