// SPDX-License-Identifier: GPL-2.0

//! Whether the current task is a work queue's worker.
//!
//! C header: [`include/linux/sched.h`](srctree/include/linux/sched.h)

use crate::{bindings, task::Task};

/// Whether the current task is a work queue worker (`PF_WQ_WORKER`), of any
/// queue.
///
/// Unlike the C `current_work()`, which is `NULL` outside task context, this
/// also answers in a softirq, for the task that the softirq runs on. A packet
/// that a work item sends over a veth or the loopback device is usually
/// received in the softirq that the sender's `local_bh_enable` runs, in the
/// worker. It is a hint, wrong both ways at times: a softirq run on an
/// interrupt's exit answers for whichever task the interrupt hit, and one run
/// by `ksoftirqd`, a threaded backlog or NAPI, or on another CPU (RPS) answers
/// false.
#[inline]
pub fn current_is_worker() -> bool {
    // FIXME(read_once): `read_volatile` stands for the C `READ_ONCE`.
    //
    // `flags` is written only by the task itself or by an interrupt nested on
    // its CPU, which restores the bits it changes before it returns
    // (`PF_MEMALLOC` in the receive softirq); `PF_WQ_WORKER` changes only in
    // task context, when the task becomes or stops being a worker.
    // SAFETY: `current` is valid in every context, and its plain integer
    // `flags` is never written from another CPU, so this reads a whole word.
    let flags = unsafe { core::ptr::addr_of!((*Task::current_raw()).flags).read_volatile() };
    flags & bindings::PF_WQ_WORKER != 0
}
