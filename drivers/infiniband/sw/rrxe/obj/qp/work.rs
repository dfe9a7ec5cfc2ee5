// SPDX-License-Identifier: GPL-2.0

//! When a QP's engines run later: its two work items, queued on rrxe's work
//! queue, and its packets in flight, whose release may queue one.
//!
//! The work items run the engines (`crate::engine` for the send work item,
//! `crate::net::recv` for the receive one): the one place where an object
//! calls up into the layers above it, through the `WorkItem` impls those
//! layers provide for [`RrxeQp`].

use super::{OdpMisses, QpInner, RrxeQp};
use crate::{obj::mr::Miss, stats::Counter};
use core::sync::atomic::Ordering;
use kernel::{
    sync::Arc,
    workqueue::{impl_has_work, WorkItem},
};

/// The receive path found a page of an on-demand-paging MR not resident (under
/// the QP's lock): the packet waits for it at the head of the QP's receive
/// queue, where the caller puts it back, and the packets after it queue
/// behind it from now on. The caller then queues the fault ([`defer_fault`]).
pub(crate) fn odp_rx_miss(inner: &RrxeQp, st: &mut QpInner, miss: Miss) -> Counter {
    st.odp.rx = Some(miss);
    inner.rx_owned.store(true, Ordering::Release);
    Counter::OdpDeferred
}

/// Has the QP's fault work item fault in what [`QpInner::odp`] holds, on
/// [`crate::fault_queue`], and then queue the work items that wait for it.
pub(crate) fn defer_fault(inner: &Arc<RrxeQp>) {
    let _ = crate::fault_queue().enqueue::<_, 2>(inner.clone());
}

/// The QP's fault work item: faults in the pages its engines found missing
/// (may sleep), then runs the receive work item for a packet that waits, and
/// the send work item for the requester or responder's sender.
impl WorkItem<2> for RrxeQp {
    type Pointer = Arc<RrxeQp>;

    fn run(this: Arc<RrxeQp>) {
        if fault(&this, |o| o.rx.take()) {
            defer_receive(&this);
        }
        if fault(&this, |o| o.tx.take()) {
            defer(&this);
        }
    }
}

/// Faults in the miss `take` finds, if any; returns whether there was one.
fn fault(inner: &RrxeQp, take: impl FnOnce(&mut OdpMisses) -> Option<Miss>) -> bool {
    let Some(miss) = take(&mut inner.state.lock().odp) else {
        return false;
    };
    let dev = inner.dev.data();
    dev.stats.inc(Counter::OdpFaults);
    // A failed fault leaves its page marked, so the access fails when it runs
    // again rather than ask for the same fault for ever.
    if miss.fault(&dev.keys).is_err() {
        dev.stats.inc(Counter::OdpFaultErrors);
    }
    true
}

/// Makes `skb`, about to go to the stack, one of the QP's packets in flight.
pub(crate) fn own_tx(inner: &Arc<RrxeQp>, skb: &mut kernel::net::skb::SkBuff) {
    if skb.set_tx_owner(inner.clone()).is_ok() {
        inner.tx.sent();
    }
}

impl kernel::net::skb::TxOwner for RrxeQp {
    fn tx_done(this: Arc<Self>) {
        if this.tx.released() {
            defer_owned(this);
            return;
        }
        // The QP holds user rings whose memory must be freed in process context;
        // a packet may be freed in the receive softirq with interrupts off. The
        // last reference goes to the QP's work item, which finds the QP gone and
        // drops it there.
        if let Some(last) = Arc::into_unique_or_drop(this) {
            defer_owned(Arc::from(last));
        }
    }
}

impl_has_work! {
    impl HasWork<Self> for RrxeQp { self.send_work }
    impl HasWork<Self, 1> for RrxeQp { self.recv_work }
    impl HasWork<Self, 2> for RrxeQp { self.fault_work }
}

/// Packets each engine sends per work item run. The run holds the RCU read lock
/// (it finds the QP through it), and every packet sent may run the receive
/// softirq in this context, which may send a whole run of another QP's packets.
/// With the engines' usual budget of 256, one read-side section could last long
/// enough for an RCU stall report; a few packets per run keep it short, and the
/// run queues itself again for the rest.
pub(crate) const WORK_BUDGET: u32 = 16;

/// Has the QP's receive work item run its queued packets, on the unbound
/// [`crate::work_queue`]: on a CPU other than the receiving one where one is free.
pub(crate) fn defer_receive(inner: &Arc<RrxeQp>) {
    let _ = crate::work_queue().enqueue::<_, 1>(inner.clone());
}

/// Runs the QP's timers, requester and responder's sender later, from its work
/// item. Already queued is fine: that run sees everything queued so far. The
/// queue ([`crate::work_queue`]) is unbound, as rdma_rxe's: on a per-CPU queue
/// every QP's work queued from one CPU ran there, one item after another, in
/// that CPU's one worker, so eight busy QPs used one CPU while the other idled.
pub(crate) fn defer(inner: &Arc<RrxeQp>) {
    defer_owned(inner.clone());
}

/// [`defer`] with a reference of the caller's. If the work item is queued
/// already, the reference is dropped here, and it was not the last one: the
/// queued item holds another.
fn defer_owned(inner: Arc<RrxeQp>) {
    let _ = crate::work_queue().enqueue::<_, 0>(inner);
}
