// SPDX-License-Identifier: GPL-2.0

//! The doorbell's poller (`doorbell` 2 and 3, Documentation/doorbell.rst): who
//! keeps a send ring's promise (`RRXE_SQ_WATCHED | RRXE_SQ_POLLED`) once its QP
//! has nothing in flight.
//!
//! A QP joins its device's poll set when its requester runs out of work with no
//! answer due ([`super::post::recheck`]), instead of withdrawing the promise.
//! The poller, a work item on [`crate::poll_queue`] run by
//! `crate::engine::poll`, probes each member in turn ([`probe`]): a member
//! whose producer index moved is a hit, and leaves the set to its requester;
//! one whose window ran out is a miss, and has its promise withdrawn as the
//! requester would have (clear, barrier, re-read). The poller stops when the
//! set is empty; `doorbell=2`'s also stops, withdrawing every member's
//! promise, as soon as its CPU has something else to run.
//!
//! Only the poller removes members, in process context, so a QP's last
//! reference is never dropped under a lock; a member whose QP left the poll
//! (destroyed, out of RTS, or busy again) is removed at its next probe.

use super::{
    cur_state,
    post::{take_found, FetchedPosts},
    QpInner, RrxeQp,
};
use crate::{obj::Rrxe, proto::qp_state::QpState, stats::Counter, stats::Stats};
use kernel::{
    new_spinlock_irq, new_work,
    prelude::*,
    rdma::qp::Qp,
    sync::{Arc, SpinLockIrq},
    time::{Delta, Instant, Monotonic},
    workqueue::{impl_has_work, Work},
};

/// Values of the `doorbell` module parameter, kept per user context. 1 (and
/// values past [`DEDICATED`]): the promise holds only while an answer is due.
pub(crate) mod mode {
    /// No doorbell: every post and CQ arm is a system call.
    pub(crate) const OFF: u32 = 0;
    /// As 1, and an idle QP is polled for an adaptive window while
    /// the poller's CPU has nothing else to run.
    pub(crate) const IDLE_POLL: u32 = 2;
    /// As 1, and an idle QP is polled for `doorbell_poll_idle_ms`,
    /// ungated.
    pub(crate) const DEDICATED: u32 = 3;
}

/// The most QPs one device's poller watches; others withdraw their promise
/// when idle, as with `doorbell=1`. Bounds one scan, and the set is allocated
/// once, so joining never allocates (it happens in the receive softirq).
pub(crate) const POLL_SET_MAX: usize = 64;

/// A device's poller: its set of idle QPs and its work item.
///
/// The set is under its own lock, which is taken inside a QP's lock (to join)
/// and never the other way round. Lives as long as the device, or the poller's
/// last run.
#[pin_data]
pub(crate) struct Poller {
    #[pin]
    set: SpinLockIrq<KVec<Arc<RrxeQp>>>,
    #[pin]
    work: Work<Poller>,
    /// The device's counters (`db_poll_*`).
    pub(crate) stats: Arc<Stats>,
}

impl_has_work! {
    impl HasWork<Self> for Poller { self.work }
}

impl Poller {
    pub(crate) fn new(stats: Arc<Stats>) -> Result<Arc<Self>> {
        let set = KVec::with_capacity(POLL_SET_MAX, GFP_KERNEL)?;
        Arc::pin_init(
            pin_init!(Self {
                set <- new_spinlock_irq!(set, "rrxe_poll_set"),
                work <- new_work!("rrxe_poll"),
                stats,
            }),
            GFP_KERNEL,
        )
    }

    /// Adds `qp` and makes sure the poller runs; `false` if the set is full.
    /// Called under the QP's lock, from any context: allocates nothing.
    fn join(self: &Arc<Self>, qp: &Arc<RrxeQp>) -> bool {
        {
            let mut set = self.set.lock();
            // Not the QP's last reference if refused: the caller holds one.
            if set.push_within_capacity(qp.clone()).is_err() {
                return false;
            }
            // Under the lock, as the removal's, so the gauge never goes below 0.
            self.stats.add(Counter::DbPollQps, 1);
        }
        // Queued again if it is running: a run that already saw the set empty
        // is followed by another.
        let _ = crate::poll_queue().enqueue(self.clone());
        true
    }

    /// The member at `i`, if any.
    pub(crate) fn member(&self, i: usize) -> Option<Arc<RrxeQp>> {
        self.set.lock().get(i).cloned()
    }

    /// Removes `qp` (the poller only); the reference is returned, to be
    /// dropped outside any lock.
    pub(crate) fn remove(&self, qp: &RrxeQp) -> Option<Arc<RrxeQp>> {
        let mut set = self.set.lock();
        let i = set.iter().position(|m| core::ptr::eq(&**m, qp))?;
        let gone = set.remove(i).ok()?;
        self.stats.sub(Counter::DbPollQps, 1);
        Some(gone)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.set.lock().is_empty()
    }
}

/// A send queue's side of the poller, in its `SqDoorbell`, under the QP lock.
#[derive(Default)]
pub(crate) struct SqPoll {
    /// The context's `doorbell` mode ([`mode`]).
    mode: u32,
    /// In the device's poll set. Cleared by the poller only, when it removes
    /// the QP.
    in_set: bool,
    /// When the QP last ran out of work with no answer due: the start of its
    /// window, and of the gap its next post measures.
    idle_since: Option<Instant<Monotonic>>,
    /// `doorbell=2`'s window, adapted per QP as KVM's halt polling does.
    window_ns: i64,
    /// Posts the poller found.
    pub(crate) hits: u64,
}

impl SqPoll {
    pub(crate) fn new(mode: u32) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// The window, in nanoseconds: 0 means the QP is not polled.
    pub(crate) fn window_ns(&self) -> i64 {
        match self.mode {
            mode::IDLE_POLL => self.window_ns,
            mode::DEDICATED => crate::doorbell_poll_idle_ns(),
            _ => 0,
        }
    }

    /// The QP went idle and withdrew its promise: the gap to its next post is
    /// measured from now. Nothing to do (not even a clock read) unless polled.
    pub(crate) fn went_idle(&mut self) {
        if matches!(self.mode, mode::IDLE_POLL | mode::DEDICATED) {
            self.idle_since = Some(Instant::now());
        }
    }

    /// A post was found (by the poller, a re-check or a system call): adapts
    /// the window to the gap since the QP went idle, by KVM's rule
    /// (`kvm_vcpu_halt`). A gap within the window keeps it; a gap past the
    /// longest window halves it (to 0 below the start); a shorter gap doubles
    /// it from the start, up to the longest.
    pub(crate) fn post_found(&mut self) {
        let Some(since) = self.idle_since.take() else {
            return;
        };
        if self.mode != mode::IDLE_POLL {
            return;
        }
        let gap = since.elapsed().as_nanos();
        let (start, max) = crate::doorbell_poll_window_ns();
        let w = self.window_ns;
        self.window_ns = if gap <= w {
            w
        } else if w != 0 && gap > max {
            if w / 2 < start {
                0
            } else {
                w / 2
            }
        } else if w < max && gap < max {
            (2 * w).max(start).min(max)
        } else {
            w
        };
    }

    /// Whether the QP's window has run out.
    fn expired(&self) -> bool {
        self.idle_since
            .is_none_or(|t| t.elapsed() >= Delta::from_nanos(self.window_ns()))
    }
}

/// Hands the idle QP of `st` to the poller, under its lock, if its mode and
/// window say so: it joins the device's poll set (unless it is in it still),
/// and the poller is queued. The promise itself is made by the poller once it
/// runs ([`probe`]): a post made before that rings, and does not wait for a
/// worker to wake. The caller withdraws the promise of work in flight as
/// usual.
pub(crate) fn watch_idle(qp: &Qp<Rrxe>, st: &mut QpInner) {
    let Some(db) = st.sq.doorbell.as_mut() else {
        return;
    };
    if db.poll.window_ns() <= 0 {
        return;
    }
    if db.poll.in_set || qp.device().data().poller.join(qp.data()) {
        db.poll.in_set = true;
    }
}

/// What one probe of a member found.
pub(crate) enum Probe {
    /// Still idle, within its window: stays.
    Waiting,
    /// Left the set: its QP is gone, busy again, out of RTS, or its window ran
    /// out (the promise then withdrawn).
    Left,
    /// WQEs were taken: the caller runs the QP's requester. Left the set.
    Hit,
}

/// Probes one member of the poll set under its QP's lock. `qp` is the live QP
/// (`None` once destroyed); `stop` withdraws the promise whatever the window,
/// as a poller that stops does. The caller removes a member that did not stay.
///
/// A waiting member has the poller's promise (`RRXE_SQ_WATCHED |
/// RRXE_SQ_POLLED`) made here, with no barrier: a post that misses it rings.
pub(crate) fn probe(m: &RrxeQp, qp: Option<&Qp<Rrxe>>, stop: bool) -> Probe {
    let mut st = m.state.lock();
    let rts = cur_state(&st) == QpState::Rts;
    let sq = &mut st.sq;
    let Some(db) = sq.doorbell.as_mut() else {
        return Probe::Left;
    };
    let in_flight = db.watched() && !db.polled();
    let (Some(qp), Some(ring), true, false) = (qp, sq.ring.as_ref(), rts, in_flight) else {
        // Destroyed, out of RTS, or promised for work in flight: whoever
        // changed it keeps or withdrew the promise.
        db.poll.in_set = false;
        return Probe::Left;
    };
    let dev = qp.device().data();
    let found = ring.posted_count() as usize > sq.pending.len();
    if !found && !stop && !db.poll.expired() {
        db.arm_polled(ring, dev);
        return Probe::Waiting;
    }
    db.poll.in_set = false;
    if !found && !db.polled() {
        // Never promised, or withdrawn by the requester: nothing to undo.
        return Probe::Left;
    }
    dev.stats.inc(if found {
        Counter::DbPollHits
    } else {
        Counter::DbPollMisses
    });
    if found {
        db.poll.hits += 1;
    }
    if take_found(qp, &mut st, found, &mut FetchedPosts::new()) {
        Probe::Hit
    } else {
        Probe::Left
    }
}
