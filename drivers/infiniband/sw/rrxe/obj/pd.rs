// SPDX-License-Identifier: GPL-2.0

//! User contexts and protection domains.

use crate::{
    abi::{self, AllocUctxResp},
    obj::{qp::poll::mode, ring::HDR_DOORBELL, Rrxe},
    stats::Counter,
};
use kernel::{prelude::*, rdma::uverbs::UData};

/// Per-ucontext state, for each open of the uverbs device: what the process's
/// provider negotiated. A QP's, CQ's and SRQ's rings belong to those objects.
/// Set at allocation and never changed, so it needs no lock; lives until the
/// RDMA core deallocates the context.
pub(crate) struct RrxeUContext {
    /// The doorbell's capabilities the provider asked for and got.
    pub(crate) doorbell: DoorbellCaps,
}

/// The doorbell capabilities of a user context (`enum rrxe_uctx_caps`). A plain
/// value; all false for a provider that did not ask (stock librxe).
#[derive(Clone, Copy, Default)]
pub(crate) struct DoorbellCaps {
    /// The kernel keeps each send ring's `sq_flags` (`RRXE_UCTX_CAP_SQ_WATCH`).
    pub(crate) sq_watch: bool,
    /// The kernel reads each CQ ring's `cq_arm` (`RRXE_UCTX_CAP_CQ_ARM`).
    pub(crate) cq_arm: bool,
    /// Who keeps the promise once a QP is idle: the `doorbell` parameter's
    /// value when the context was opened ([`crate::doorbell`]).
    pub(crate) mode: u32,
}

/// Opens the device for a process: offers the doorbell if its provider asks.
///
/// The request is ignored, as rdma_rxe ignores it. Only a provider that made
/// room for the doorbell's response gets it, and with it the doorbell: stock
/// librxe gives none, and rdma_rxe writes none, so a patched provider there
/// reads zeroes.
pub(crate) fn alloc_ucontext(
    dev: &kernel::rdma::Device<Rrxe>,
    udata: Option<&UData>,
) -> Result<RrxeUContext> {
    let mut doorbell = DoorbellCaps::default();
    if let Some(u) = udata {
        if crate::doorbell() != mode::OFF && u.out_len() >= size_of::<AllocUctxResp>() {
            u.respond(&AllocUctxResp {
                abi_version: abi::doorbell::ABI_VERSION,
                caps: abi::doorbell::CAP_SQ_WATCH | abi::doorbell::CAP_CQ_ARM,
                sq_flags_offset: HDR_DOORBELL as u32,
                cq_arm_offset: HDR_DOORBELL as u32,
                reserved: [0; 2],
            })?;
            doorbell = DoorbellCaps {
                sq_watch: true,
                cq_arm: true,
                mode: crate::doorbell(),
            };
            dev.data().stats.inc(Counter::DbContexts);
        }
    }
    Ok(RrxeUContext { doorbell })
}

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
