// SPDX-License-Identifier: GPL-2.0

//! Completion queues.
//!
//! A user CQ is a mmapped ring of `struct ib_uverbs_wc` in 128-byte slots, as rdma_rxe
//! lays it out; the kernel owns the producer index and reads the consumer index
//! masked. A kernel CQ keeps `Wc` values in kernel memory, since kernel consumers get
//! a `struct ib_wc` with fields no ring entry carries.
//!
//! A provider that took the doorbell arms a user CQ by writing `cq_arm` in the
//! ring's header instead of calling REQ_NOTIFY_CQ; after each completion the
//! kernel reads that word, past a barrier the provider pairs with
//! ([`crate::proto::doorbell::cq_arm_take`]).

use crate::abi::CqResp;
use crate::{
    abi::CQE_SIZE,
    obj::{ring::Ring, Rrxe},
    params,
    proto::doorbell::cq_arm_take,
    stats::Counter,
};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::rdma::wr::WcStatus;
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        cq::{Cq, CqInitAttr, CqNotifyFlag, CqNotifyFlags},
        event::EventType,
        uverbs::{self, UData},
        wr::Wc,
    },
    sync::{Arc, SpinLockIrq},
};

/// Kernel-side store of a kernel CQ.
struct KernelRing {
    wcs: KVec<Wc>,
    head: usize,
    len: usize,
}

enum Store {
    User(Ring),
    Kernel(KernelRing),
}

/// A CQ's state behind its lock: the completions not yet polled.
struct CqInner {
    store: Store,
    /// The provider arms through the ring's `cq_arm` (a user CQ of a context
    /// that took the doorbell).
    ring_arm: bool,
    capacity: u32,
    /// `IB_EVENT_CQ_ERR` was raised, and no completion fit since.
    err_raised: bool,
}

/// The driver's CQ.
///
/// Locking: `state` is a `SpinLockIrq`, taken under a QP's lock when its
/// completions are added ([`push`]) and alone when they are polled; no other
/// lock is taken under it. The consumer is notified after every lock is
/// dropped ([`Pushed::finish`]).
///
/// Lifetime: from `create_cq` to `destroy_cq`; an `Arc`, as QPs that complete
/// into it find it through the core's `ib_qp`, which the core keeps from
/// outliving the CQ.
#[pin_data]
pub(crate) struct RrxeCq {
    #[pin]
    state: SpinLockIrq<CqInner>,
    /// `IB_CQ_SOLICITED` / `IB_CQ_NEXT_COMP` armed by `req_notify_cq`.
    notify: AtomicU32,
    /// An overflow was reported.
    overflowed: AtomicBool,
}

fn check_cqe(cqe: u32) -> Result {
    if cqe == 0 || cqe > (1 << params::MAX_LOG_CQE) - 1 {
        return Err(EINVAL);
    }
    Ok(())
}

fn new_store(cqe: u32, udata: Option<&UData>) -> Result<(Store, u32)> {
    match udata {
        Some(u) => {
            if u.out_len() < size_of::<CqResp>() {
                return Err(EINVAL);
            }
            let mut q = Ring::new(cqe, CQE_SIZE)?;
            let mi = q.publish(u)?;
            u.respond(&CqResp { mi })?;
            let cap = q.layout().capacity();
            Ok((Store::User(q), cap))
        }
        None => {
            let cap = crate::obj::ring::Layout::new(cqe, CQE_SIZE)?.capacity();
            let mut wcs = KVec::with_capacity(cap as usize, GFP_KERNEL)?;
            for _ in 0..cap {
                wcs.push(Wc::default(), GFP_KERNEL)?;
            }
            Ok((
                Store::Kernel(KernelRing {
                    wcs,
                    head: 0,
                    len: 0,
                }),
                cap,
            ))
        }
    }
}

pub(crate) fn create(
    dev: &kernel::rdma::Device<Rrxe>,
    attr: &CqInitAttr,
    udata: Option<&UData>,
) -> Result<(Arc<RrxeCq>, u32)> {
    if attr.flags != 0 {
        return Err(EOPNOTSUPP);
    }
    check_cqe(attr.cqe)?;
    let (store, capacity) = new_store(attr.cqe, udata)?;
    let ring_arm = udata
        .and_then(|u| u.ucontext(dev))
        .is_some_and(|c| c.doorbell.cq_arm);
    let cq = Arc::pin_init(
        pin_init!(RrxeCq {
            state <- new_spinlock_irq!(CqInner {
                store,
                ring_arm,
                capacity,
                err_raised: false,
            }),
            notify: AtomicU32::new(0),
            overflowed: AtomicBool::new(false),
        }),
        GFP_KERNEL,
    )?;
    Ok((cq, capacity))
}

fn count(s: &CqInner) -> u32 {
    match &s.store {
        Store::User(q) => q.produced_count(),
        Store::Kernel(k) => k.len as u32,
    }
}

pub(crate) fn resize(cq: &Cq<Rrxe>, cqe: u32, udata: Option<&UData>) -> Result<u32> {
    check_cqe(cqe)?;
    let inner = cq.data();
    // Build the new store outside the lock (it allocates and talks to user space),
    // then move the entries over under it.
    let (mut new, cap) = new_store(cqe, udata)?;
    let mut s = inner.state.lock();
    if count(&s) > cap {
        return Err(EINVAL);
    }
    match (&mut s.store, &mut new) {
        (Store::User(old), Store::User(n)) => {
            old.move_entries(n, true, uverbs::WC_SIZE)?;
            // An arm the provider wrote stays armed in the new ring.
            n.set_doorbell_word(old.doorbell_word());
        }
        (Store::Kernel(old), Store::Kernel(n)) => {
            for i in 0..old.len {
                n.wcs[i] = old.wcs[slot(old.head + i, old.wcs.len())];
            }
            n.len = old.len;
        }
        _ => return Err(EINVAL),
    }
    let old = core::mem::replace(&mut s.store, new);
    s.capacity = cap;
    drop(s);
    // Freeing a published ring may sleep: only after the spinlock is released.
    drop(old);
    Ok(cap)
}

/// The slot of position `i` in a kernel CQ of `size` entries. `checked_rem` and not
/// `%`: the remainder's panic path for a zero size ends the function in a call to
/// `panic_const_rem_by_zero`, which objtool does not know as noreturn ("falls
/// through to next function" in the perf build). The callers never pass 0.
fn slot(i: usize, size: usize) -> usize {
    i.checked_rem(size).unwrap_or(0)
}

/// What [`push`] left to do once the caller's locks are dropped: a consumer's
/// completion or event handler may call back into the QP.
#[must_use]
#[derive(Clone, Copy, Default)]
pub(crate) struct Pushed {
    /// A completion went in.
    added: bool,
    /// One that went in wakes a consumer armed for solicited completions only.
    solicited: bool,
    /// A completion was lost to a full CQ.
    lost: bool,
    /// The loss raises `IB_EVENT_CQ_ERR`.
    raise: bool,
    /// The provider's arm in the ring took this completion: raise the event.
    ring_armed: bool,
}

impl Pushed {
    /// What both pushes left to do: one notification covers a batch.
    pub(crate) fn and(self, o: Self) -> Self {
        Self {
            added: self.added || o.added,
            solicited: self.solicited || o.solicited,
            lost: self.lost || o.lost,
            raise: self.raise || o.raise,
            ring_armed: self.ring_armed || o.ring_armed,
        }
    }

    /// Notifies the consumer and raises the overflow event, as due. A lost
    /// completion is reported by that event: no caller could do more with it.
    pub(crate) fn finish(self, cq: &Cq<Rrxe>) {
        let inner = cq.data();
        if self.lost {
            // Once per CQ: a flush into a full CQ would otherwise flood the log.
            if !inner.overflowed.swap(true, Ordering::Relaxed) {
                pr_warn!("CQ overflow: completions are lost\n");
            }
            if self.raise {
                cq.raise(EventType::CqErr);
            }
        }
        if self.ring_armed {
            cq.device().data().stats.inc(Counter::DbCqEvents);
            cq.notify_completion();
        } else if self.added {
            let armed = inner.notify.load(Ordering::Acquire);
            if armed & CqNotifyFlag::NextComp as u32 != 0
                || (armed & CqNotifyFlag::Solicited as u32 != 0 && self.solicited)
            {
                inner.notify.store(0, Ordering::Release);
                cq.notify_completion();
            }
        }
    }
}

/// Adds a completion without notifying anyone: [`Pushed::finish`] does, after the
/// caller drops its locks. The QP engines push while they hold the QP's lock, so
/// a queue's completions reach the CQ in the order they were taken from it: pushed
/// after the lock was dropped, two CPUs completing one SQ (an ACK received on
/// each) could put a later WQE's completion first (rxe completes each QP from
/// one task).
///
/// On overflow the completion is lost and `finish` raises `IB_EVENT_CQ_ERR`, as
/// rxe does, once until a completion fits again: rxe raises one per completion
/// lost, and uverbs queues each in memory until the process reads it, so a
/// process that keeps its CQ full and flushes a large SQ into it had the kernel
/// allocate without bound.
pub(crate) fn push(cq: &Cq<Rrxe>, wc: &Wc, solicited: bool) -> Pushed {
    let inner = cq.data();
    let mut s = inner.state.lock();
    let res = match &mut s.store {
        Store::User(q) => q.push(&wc.to_uverbs()),
        Store::Kernel(k) => {
            if k.len == k.wcs.len() {
                Err(EBUSY)
            } else {
                let n = k.wcs.len();
                k.wcs[slot(k.head + k.len, n)] = *wc;
                k.len += 1;
                Ok(())
            }
        }
    };
    let lost = res.is_err();
    let raise = lost && !s.err_raised;
    s.err_raised = lost;
    let solicited = !lost && (solicited || wc.status != WcStatus::Success);
    let ring_armed = match &s.store {
        // After the producer index was published (`Ring::push`).
        // Only a CQ with a completion channel can be armed: others pay nothing.
        Store::User(q) if s.ring_arm && !lost && cq.has_completion_channel() => {
            cq_arm_take(&q.cq_words(), solicited)
        }
        _ => false,
    };
    Pushed {
        added: !lost,
        solicited,
        lost,
        raise,
        ring_armed,
    }
}

pub(crate) fn poll(cq: &Cq<Rrxe>, out: &mut [Wc]) -> usize {
    let mut s = cq.data().state.lock();
    match &mut s.store {
        Store::Kernel(k) => {
            let n = out.len().min(k.len);
            let size = k.wcs.len();
            for (i, o) in out[..n].iter_mut().enumerate() {
                *o = k.wcs[slot(k.head + i, size)];
            }
            k.head = slot(k.head + n, size);
            k.len -= n;
            n
        }
        // Kernel verbs on a user CQ: refused, as the ring belongs to user space.
        Store::User(_) => 0,
    }
}

pub(crate) fn peek(cq: &Cq<Rrxe>, n: usize) -> usize {
    (count(&cq.data().state.lock()) as usize).min(n)
}

pub(crate) fn req_notify(cq: &Cq<Rrxe>, flags: CqNotifyFlags) -> Result<bool> {
    let inner = cq.data();
    cq.device().data().stats.inc(Counter::CqNotifyCalls);
    let want = flags.bits() & (CqNotifyFlag::Solicited as u32 | CqNotifyFlag::NextComp as u32);
    // Arming for the next completion overrides solicited-only, never the reverse.
    let cur = inner.notify.load(Ordering::Acquire);
    if cur != CqNotifyFlag::NextComp as u32 {
        inner.notify.store(want, Ordering::Release);
    }
    Ok(flags.contains(CqNotifyFlag::ReportMissedEvents) && count(&inner.state.lock()) > 0)
}

pub(crate) fn destroy(_cq: &Cq<Rrxe>) -> Result {
    // QPs hold the core's use count, so nothing can post any more.
    Ok(())
}
