// SPDX-License-Identifier: GPL-2.0

//! The doorbell's poller (`doorbell` 2 and 3): scans its device's set of idle
//! QPs ([`crate::obj::qp::poll`]) and runs the requester of each QP whose
//! producer index moved.
//!
//! `doorbell=2` polls only on idle CPU time, as KVM's halt polling does
//! (`kvm_vcpu_can_poll`): between scans it checks that nothing else is
//! runnable on its CPU and that the scheduler has not asked for the CPU back;
//! if either fails it withdraws every member's promise and stops
//! (`db_poll_preempted`). Each member stays for its own adaptive window. On two
//! CPUs shared by a poster and a receiver that busy-poll, the gate keeps the
//! poller from taking a share of either.
//!
//! `doorbell=3` is the dedicated poller: no gate, a fixed window of
//! `doorbell_poll_idle_ms`, and `cond_resched()` between scans, for a host
//! that gives `rrxe_poll` a CPU of its own.
//!
//! Each probe is its own RCU read-side section and takes one QP's lock; the
//! requester a hit runs sends at most `WORK_BUDGET` packets, then hands over to
//! the QP's work item. No lock or RCU section spans two probes.

use super::req;
use crate::{
    obj::qp::{
        poll::{mode, probe, Poller, Probe},
        work::WORK_BUDGET,
        RrxeQp,
    },
    stats::Counter,
};
use kernel::{
    processor::cpu_relax,
    sched_poll::{cond_resched, need_resched, single_task_running},
    sync::{rcu, Arc},
    time::{Instant, Monotonic},
    workqueue::WorkItem,
};

impl WorkItem for Poller {
    type Pointer = Arc<Poller>;

    fn run(this: Arc<Poller>) {
        let started = Instant::<Monotonic>::now();
        this.stats.inc(Counter::DbPollRuns);
        // Every context has the mode the module was loaded with.
        let dedicated = crate::doorbell() == mode::DEDICATED;
        let mut stop = false;
        loop {
            let mut i = 0;
            while let Some(m) = this.member(i) {
                if scan_one(&m, stop) {
                    i += 1;
                } else if let Some(gone) = this.remove(&m) {
                    // Outside every lock: it may be the QP's last reference.
                    drop(gone);
                }
            }
            if stop || this.is_empty() {
                break;
            }
            if dedicated {
                cond_resched();
            } else if !single_task_running() || need_resched() {
                // The CPU is wanted: one more scan withdraws every promise.
                this.stats.inc(Counter::DbPollPreempted);
                stop = true;
                continue;
            }
            cpu_relax();
        }
        let spent = started.elapsed().as_nanos();
        this.stats.add(Counter::DbPollNs, spent.max(0) as u64);
    }
}

/// Probes member `m`, running its requester on a hit; returns whether it stays.
fn scan_one(m: &Arc<RrxeQp>, stop: bool) -> bool {
    let guard = rcu::read_lock();
    let qp = m.live(&guard);
    match probe(m, qp, stop) {
        Probe::Waiting => true,
        Probe::Left => false,
        Probe::Hit => {
            if let Some(qp) = qp {
                req::run_some(qp, WORK_BUDGET);
            }
            false
        }
    }
}
