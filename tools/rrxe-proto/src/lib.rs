// SPDX-License-Identifier: GPL-2.0

//! Host build of rrxe's protocol core (`drivers/infiniband/sw/rrxe/proto/`).
//!
//! The module tree is the very source the kernel module compiles; this crate only
//! gives it a `no_std` crate root so it can be tested on the host:
//!
//! - `cargo test` — table equivalence with rxe and the RDMA core, ICRC known
//!   answers, property tests, the shared [`selftest`] cases, the pcap corpus
//!   (`tools/testing/rrxe-corpus/*.pcap`) and its mutations.
//! - `./kernel-lint.sh` — compile with the kernel's rustc/clippy flags.
//! - `./fuzz.sh [seconds]` — cargo-fuzz/libFuzzer on `parse` + ICRC.

#![no_std]

#[path = "../../../drivers/infiniband/sw/rrxe/proto/mod.rs"]
pub mod proto;

pub use proto::*;
