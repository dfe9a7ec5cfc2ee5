// SPDX-License-Identifier: GPL-2.0

//! A work queue that a module allocates for its own work items.
//!
//! C header: [`include/linux/workqueue.h`](srctree/include/linux/workqueue.h)

use super::Queue;
use crate::prelude::*;
use core::{
    ptr,
    sync::atomic::{AtomicPtr, Ordering},
};

/// `WQ_UNBOUND`: the queue's workers are not bound to a CPU.
pub const WQ_UNBOUND: u32 = bindings::wq_flags_WQ_UNBOUND;
/// `WQ_MEM_RECLAIM`: a rescuer thread keeps the queue going under memory
/// pressure, which a queue on a storage path (memory reclaim) needs.
pub const WQ_MEM_RECLAIM: u32 = bindings::wq_flags_WQ_MEM_RECLAIM;
/// `WQ_SYSFS`: the queue appears under `/sys/devices/virtual/workqueue/`, where
/// the administrator sets which CPUs its (unbound) workers may run on.
pub const WQ_SYSFS: u32 = bindings::wq_flags_WQ_SYSFS;

/// A work queue that lives from a module's init to its exit, kept in a static
/// so that work items reach it without a reference to their owner.
///
/// [`ModuleQueue::destroy`] drains it first: every work item queued on it has
/// run and returned before the module's code goes away. The system queues give
/// no such guarantee to a module that queues work on them.
///
/// # Invariants
///
/// `wq` is null or a queue from `alloc_workqueue` that is not destroyed.
pub struct ModuleQueue {
    wq: AtomicPtr<bindings::workqueue_struct>,
}

impl ModuleQueue {
    /// A queue not created yet.
    pub const fn new() -> Self {
        Self {
            wq: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Allocates the queue, named `name`, with `flags` (`WQ_*`) and the default
    /// `max_active`. Fails with `EBUSY` if it exists already.
    pub fn create(&self, name: &CStr, flags: u32) -> Result {
        // SAFETY: The format takes one string argument, `name`, which is
        // NUL-terminated and valid for the call; the queue copies its name.
        let wq = unsafe {
            bindings::alloc_workqueue_noprof(c"%s".as_char_ptr(), flags, 0, name.as_char_ptr())
        };
        if wq.is_null() {
            return Err(ENOMEM);
        }
        if self
            .wq
            .compare_exchange(ptr::null_mut(), wq, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: Allocated above and never published, so unused.
            unsafe { bindings::destroy_workqueue(wq) };
            return Err(EBUSY);
        }
        Ok(())
    }

    /// The queue, or `None` before [`ModuleQueue::create`].
    pub fn get(&self) -> Option<&Queue> {
        let wq = self.wq.load(Ordering::Acquire);
        if wq.is_null() {
            return None;
        }
        // SAFETY: By the type invariant `wq` is a live queue, and the contract of
        // `destroy` keeps it live while a reference returned here is in use.
        Some(unsafe { Queue::from_raw(wq) })
    }

    /// Drains the queue, waiting for every work item on it (and any they queue
    /// on it while it drains) to finish, and then destroys it.
    ///
    /// # Safety
    ///
    /// Once this is called, nothing may queue work on the queue except its own
    /// work items while they run, and no reference from [`ModuleQueue::get`] may
    /// be used after this returns.
    pub unsafe fn destroy(&self) {
        // Still published while it drains: a work item that queues more work
        // must find this queue, or its work would escape the drain.
        let wq = self.wq.load(Ordering::Acquire);
        if !wq.is_null() {
            // SAFETY: `wq` is live (type invariant). By the caller's promise only
            // its own work items still use it, and `destroy_workqueue` drains
            // those before it frees the queue.
            unsafe { bindings::destroy_workqueue(wq) };
            self.wq.store(ptr::null_mut(), Ordering::Release);
        }
    }
}

impl Default for ModuleQueue {
    fn default() -> Self {
        Self::new()
    }
}
