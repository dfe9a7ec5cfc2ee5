// SPDX-License-Identifier: GPL-2.0

//! The scheduler's answers a busy-polling loop needs: whether it may keep the
//! CPU, and a place to give it up.
//!
//! A poller that spins only while nothing else wants its CPU (KVM's halt
//! polling, `kvm_vcpu_can_poll`) asks [`single_task_running`] and
//! [`need_resched`] between probes; one that spins for as long as it has work
//! calls [`cond_resched`] between probes, so it never holds the CPU, or an RCU
//! grace period, past its time slice.
//!
//! C header: [`include/linux/sched.h`](srctree/include/linux/sched.h)
//!
//! # Examples
//!
//! ```
//! use kernel::sched_poll::{need_resched, single_task_running};
//!
//! // A gate evaluated in process context: both are plain reads.
//! let may_spin = single_task_running() && !need_resched();
//! let _ = may_spin;
//! ```

/// Whether the current task is the only one runnable on this CPU
/// (`single_task_running`). The answer is a snapshot: it may change as soon as
/// it is read, so a poller asks again between probes.
#[inline]
pub fn single_task_running() -> bool {
    // SAFETY: Reads this CPU's run-queue length; callable from any context.
    unsafe { bindings::single_task_running() }
}

/// Whether the scheduler has asked the current task to give up the CPU
/// (`need_resched`).
#[inline]
pub fn need_resched() -> bool {
    // SAFETY: Reads the current task's flags; callable from any context.
    unsafe { bindings::need_resched() }
}

/// Gives up the CPU if the scheduler wants it (`cond_resched`), and reports a
/// quiescent state to RCU where the kernel's configuration needs one.
///
/// Must be called from process context with no spinlock held and not inside an
/// RCU read-side critical section: both would make the sleep illegal, which
/// `might_sleep` debugging reports.
#[inline]
pub fn cond_resched() {
    // SAFETY: No memory-safety precondition; sleeping where that is illegal is
    // a bug `might_sleep` reports, not undefined behaviour.
    unsafe { bindings::cond_resched() };
}
