// SPDX-License-Identifier: GPL-2.0

//! User contexts and protection domains.

/// Per-ucontext state, for each open of the uverbs device. rrxe keeps none: a
/// QP's, CQ's and SRQ's rings belong to those objects. Lives until the RDMA
/// core deallocates the context.
pub(crate) struct RrxeUContext;

/// A PD's identity: what MRs, MWs, AHs and QPs are checked for a common PD by.
/// Unique for the device's lifetime (64 bits never wrap), unlike a PD's address,
/// which a new PD may reuse.
pub(crate) type PdId = u64;

/// Per-PD state: its identity, set at allocation and never changed, so it
/// needs no lock. Lives until `dealloc_pd`.
pub(crate) struct RrxePd {
    /// Unique among the device's PDs.
    pub(crate) id: PdId,
}
