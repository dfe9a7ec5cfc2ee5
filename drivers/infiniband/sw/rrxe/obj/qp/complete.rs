// SPDX-License-Identifier: GPL-2.0

//! Completions of a QP's work requests, and the flush of a QP in the error
//! state.

use super::{cur_state, post, QpInner, BATCH};
use crate::{
    abi::{send_flags, wr_opcode as op},
    obj::cq,
    obj::wqe::{self, Bad, Pending, SendWqe},
    obj::Rrxe,
    proto::{
        psn::{psn_add, psn_diff},
        qp_state::QpState,
    },
    stats::Counter,
};
use kernel::rdma::wr::{WcOpcode, WcStatus};
use kernel::{
    prelude::*,
    rdma::{event::EventType, qp::Qp, wr::Wc},
};

/// Completions gathered under the QP lock and pushed to the CQs under it, in the
/// order taken ([`cq::push`]); the consumers are notified after it is dropped
/// ([`PushedPair::finish`]), as a completion handler may call back into the QP.
pub(super) struct Completions {
    send: KVec<Wc>,
    recv: KVec<Wc>,
}

impl Completions {
    /// Room for `n` of each kind.
    pub(super) fn with_capacity(n: usize, gfp: kernel::alloc::Flags) -> Result<Self> {
        Ok(Self {
            send: KVec::with_capacity(n, gfp)?,
            recv: KVec::with_capacity(n, gfp)?,
        })
    }

    /// Room for a batch, or none if that allocation fails: [`with_completion_room`]
    /// then lends the QP's spare room. For error paths, which must not give up.
    pub(super) fn new_or_none(gfp: kernel::alloc::Flags) -> Self {
        Self::with_capacity(BATCH, gfp).unwrap_or_else(|_| Self {
            send: KVec::new(),
            recv: KVec::new(),
        })
    }

    /// Whether one more completion of either kind fits without allocating.
    fn room(&self) -> bool {
        self.send.len() < self.send.capacity() && self.recv.len() < self.recv.capacity()
    }

    /// Adds a completion to `to`, one of this batch's kinds. The caller checked
    /// [`Self::room`]: this never allocates under the QP lock.
    fn add(to: &mut KVec<Wc>, wc: Wc) {
        let added = to.push_within_capacity(wc);
        debug_assert!(added.is_ok());
    }

    /// Pushes the gathered completions; `_locked`: the caller holds the QP lock.
    pub(super) fn push(&mut self, qp: &Qp<Rrxe>, _locked: &QpInner) -> PushedPair {
        let mut p = PushedPair::default();
        for wc in self.send.iter() {
            p.send = p.send.and(cq::push(qp.send_cq(), wc, false));
        }
        for wc in self.recv.iter() {
            p.recv = p.recv.and(cq::push(qp.recv_cq(), wc, false));
        }
        self.send.clear();
        self.recv.clear();
        p
    }
}

/// Calls `f` with the locked state and room for completions: `out`'s own or, if
/// it has none (its allocation failed), the QP's spare room for this lock hold.
/// `f` pushes what it gathered ([`Completions::push`]), so the spare goes back
/// empty.
pub(super) fn with_completion_room<R>(
    st: &mut QpInner,
    out: &mut Completions,
    f: impl FnOnce(&mut QpInner, &mut Completions) -> R,
) -> R {
    debug_assert!(out.send.is_empty() && out.recv.is_empty());
    let lend = out.send.capacity() == 0;
    if lend {
        core::mem::swap(out, &mut st.spare_room);
    }
    let r = f(st, out);
    if lend {
        core::mem::swap(out, &mut st.spare_room);
    }
    r
}

/// What [`Completions::push`] left to do once the QP lock is dropped.
#[must_use]
#[derive(Default)]
pub(super) struct PushedPair {
    send: cq::Pushed,
    recv: cq::Pushed,
}

impl PushedPair {
    pub(super) fn finish(self, qp: &Qp<Rrxe>) {
        self.send.finish(qp.send_cq());
        self.recv.finish(qp.recv_cq());
    }
}

pub(crate) fn wc(qp: &Qp<Rrxe>, wr_id: u64, status: WcStatus, opcode: WcOpcode) -> Wc {
    Wc {
        wr_id,
        status,
        opcode,
        qp_num: qp.qp_num(),
        qp: qp.handle(),
        port_num: 1,
        ..Wc::default()
    }
}

fn wc_opcode(wr_opcode: u32) -> WcOpcode {
    match wr_opcode {
        op::RDMA_WRITE | op::RDMA_WRITE_WITH_IMM => WcOpcode::RdmaWrite,
        op::RDMA_READ => WcOpcode::RdmaRead,
        op::ATOMIC_CMP_AND_SWP => WcOpcode::CompSwap,
        op::ATOMIC_FETCH_AND_ADD => WcOpcode::FetchAdd,
        op::BIND_MW => WcOpcode::BindMw,
        op::LOCAL_INV => WcOpcode::LocalInv,
        op::FLUSH => WcOpcode::Flush,
        op::ATOMIC_WRITE => WcOpcode::AtomicWrite,
        op::REG_MR => WcOpcode::RegMr,
        _ => WcOpcode::Send,
    }
}

/// Completes the oldest send WQE: publishes the ring slot for user QPs and returns
/// its completion if it is to be reported (signaled or failed).
fn take_completion(qp: &Qp<Rrxe>, sig_all: bool, st: &mut QpInner, status: WcStatus) -> Option<Wc> {
    // Read in place and dropped there: a WQE moved out is a memcpy.
    let oldest = st.sq.pending.front().map(|p| match p {
        Pending::Wqe(w) => Some((
            w.wr_id,
            wc_opcode(w.opcode),
            w.flags & send_flags::SIGNALED != 0,
            w.length,
            w.sent_all.then(|| psn_add(w.last_psn, 1)),
            wqe::is_send(w.opcode),
        )),
        Pending::Bad { wr_id, send, .. } => Some((*wr_id, WcOpcode::Send, true, 0, None, *send)),
        Pending::Taken => None,
    });
    if oldest.is_some() {
        st.sq.pending.drop_front();
    }
    let dev = qp.device().data();
    st.sq.recount(&dev.busy_qps);
    let (wr_id, opcode, signaled, len, end, send) = oldest??;
    if send && status != WcStatus::WrFlushErr {
        dev.stats.inc(Counter::RdmaSends);
    }
    if st.sq.req_idx > 0 {
        st.sq.req_idx -= 1;
    } else {
        // The WQE under the requester's place completed: all of it went out before
        // a rewind, and its answer came after (the old READ responses of a READ
        // timed out into). The requester moves past it, or it would send the next
        // WQE with PSNs from inside this one.
        st.sq.req_off = 0;
        if let Some(next) = end {
            if psn_diff(next, st.sq.psn) > 0 {
                st.sq.psn = next;
            }
        }
    }
    if let Some(r) = st.sq.ring.as_mut() {
        let _ = r.consume();
    }
    if !(signaled || sig_all || status != WcStatus::Success) {
        return None;
    }
    let mut c = wc(qp, wr_id, status, opcode);
    c.byte_len = len;
    Some(c)
}

/// [`take_completion`] into a batch. The caller checked `out.room()`.
fn complete_send(
    qp: &Qp<Rrxe>,
    sig_all: bool,
    st: &mut QpInner,
    status: WcStatus,
    out: &mut Completions,
) {
    if let Some(c) = take_completion(qp, sig_all, st, status) {
        Completions::add(&mut out.send, c);
    }
}

/// How much one flush may take from the rings: what was posted when it started, so
/// user space that keeps moving its producer index cannot keep the kernel flushing.
struct FlushBudget {
    sq: u32,
    rq: u32,
}

/// One batch of the flush of both work queues of a QP in the error state. Returns
/// whether there is more.
fn flush_batch(
    qp: &Qp<Rrxe>,
    sig_all: bool,
    st: &mut QpInner,
    out: &mut Completions,
    budget: &mut FlushBudget,
) -> bool {
    while !st.sq.pending.is_empty() {
        if !out.room() {
            return true;
        }
        complete_send(qp, sig_all, st, WcStatus::WrFlushErr, out);
    }
    let mut id = [0u8; 8];
    if let Some(r) = st.sq.ring.as_mut() {
        while budget.sq > 0 && matches!(r.peek_posted(&mut id), Ok(true)) {
            if !out.room() {
                return true;
            }
            budget.sq -= 1;
            let _ = r.consume();
            Completions::add(
                &mut out.send,
                wc(
                    qp,
                    u64::from_ne_bytes(id),
                    WcStatus::WrFlushErr,
                    WcOpcode::Send,
                ),
            );
        }
    }
    // A receive WQE taken from an SRQ for a message the error cut short belongs
    // to this QP now: it completes in error too (rxe loses it). One from the RQ
    // is still in the ring and is flushed below.
    if matches!(&st.resp.recv, Some(rp) if rp.from_srq) {
        if !out.room() {
            return true;
        }
        if let Some(rp) = st.resp.recv.take() {
            Completions::add(
                &mut out.recv,
                wc(qp, rp.wr_id, WcStatus::WrFlushErr, WcOpcode::Recv),
            );
        }
    }
    // So does one a UD datagram held while it waited for a page fault.
    if st.resp.held_srq_recv.is_some() {
        if !out.room() {
            return true;
        }
        if let Some((wr_id, _, _)) = st.resp.held_srq_recv.take() {
            Completions::add(
                &mut out.recv,
                wc(qp, wr_id, WcStatus::WrFlushErr, WcOpcode::Recv),
            );
        }
    }
    if let Some(rq) = st.rq.as_mut() {
        while budget.rq > 0 && matches!(rq.ring.peek_posted(&mut id), Ok(true)) {
            if !out.room() {
                return true;
            }
            budget.rq -= 1;
            let _ = rq.ring.consume();
            Completions::add(
                &mut out.recv,
                wc(
                    qp,
                    u64::from_ne_bytes(id),
                    WcStatus::WrFlushErr,
                    WcOpcode::Recv,
                ),
            );
        }
    }
    false
}

/// Flushes a QP in the error state, batch by batch, dropping the lock in between.
/// A QP on an SRQ then raises `QP_LAST_WQE_REACHED`, once per error state, as rxe
/// does: `ib_drain_qp` waits for it (60 s without), and IBA 10.3.1 tells
/// consumers to wait for it before destroying the QP.
pub(super) fn flush(qp: &Qp<Rrxe>, out: &mut Completions) {
    let inner = qp.data();
    let mut budget: Option<FlushBudget> = None;
    loop {
        let (more, last_wqe, pushed) =
            with_completion_room(&mut inner.state.lock(), out, |st, out| {
                if cur_state(st) != QpState::Err {
                    return (false, false, out.push(qp, st));
                }
                let b = budget.get_or_insert_with(|| FlushBudget {
                    sq: st.sq.ring.as_ref().map_or(0, |r| r.posted_count()),
                    rq: st.rq.as_ref().map_or(0, |r| r.ring.posted_count()),
                });
                let more = flush_batch(qp, inner.sq_sig_all, st, out, b);
                let last_wqe = !more && inner.srq.is_some() && !st.resp.last_wqe_raised;
                st.resp.last_wqe_raised |= last_wqe;
                (more, last_wqe, out.push(qp, st))
            });
        pushed.finish(qp);
        if last_wqe {
            // After the flushed completions, so a consumer that polls the CQ on the
            // event finds them.
            qp.raise(EventType::QpLastWqeReached);
        }
        if !more {
            break;
        }
    }
}

/// Reports a refused WQE that reached the head of the send queue and moves the QP
/// to the error state. Returns whether it did; the caller then flushes.
pub(super) fn progress(
    qp: &Qp<Rrxe>,
    sig_all: bool,
    st: &mut QpInner,
    out: &mut Completions,
) -> bool {
    if let Some(Pending::Bad { why, .. }) = st.sq.pending.front() {
        if !out.room() {
            return false;
        }
        pr_debug!("qp {}: send WQE refused: {:?}\n", qp.qp_num(), why);
        let status = match why {
            Bad::Protection => WcStatus::LocProtErr,
            Bad::Bind => WcStatus::MwBindErr,
            _ => WcStatus::LocQpOpErr,
        };
        complete_send(qp, sig_all, st, status, out);
        st.set_state(QpState::Err);
        // The flush that follows takes what was posted without a system call.
        post::stop_watching(qp.device().data(), st);
        return true;
    }
    false
}

/// Completes, oldest first, the sent WQEs for which `done` holds (the completer
/// passes an ACK's PSN test; datagram and UC WQEs are done once sent). Returns how
/// many completed.
pub(crate) fn complete_sent(qp: &Qp<Rrxe>, done: impl Fn(&SendWqe) -> bool) -> usize {
    // One WQE per lock hold and no batch buffer: this runs for every ACK and every
    // datagram sent, so it must not allocate.
    let inner = qp.data();
    let mut n = 0;
    loop {
        let pushed = {
            let mut st = inner.state.lock();
            // In the error state the flush completes what is left, with
            // `WcStatus::WrFlushErr`: an ACK decided before another CPU failed the
            // QP must not complete a WQE behind the error completion with
            // success (rdma_rxe's completer flushes there too).
            if cur_state(&st) == QpState::Err {
                return n;
            }
            // Only sent WQEs complete: those before the requester's place, or, after
            // a rewind, those whose packets all went out before.
            match st.sq.pending.front() {
                Some(Pending::Wqe(w)) if (st.sq.req_idx > 0 || w.sent_all) && done(w) => {}
                _ => return n,
            }
            take_completion(qp, inner.sq_sig_all, &mut st, WcStatus::Success)
                .map(|c| cq::push(qp.send_cq(), &c, false))
        };
        n += 1;
        if let Some(p) = pushed {
            p.finish(qp.send_cq());
        }
    }
}

/// Fails the QP because of the oldest send WQE: a refused one reports its own
/// status, a sent one `status` (a remote error the completer saw). Then flushes.
pub(crate) fn fail_front(qp: &Qp<Rrxe>, status: WcStatus) {
    let inner = qp.data();
    let mut out = Completions::new_or_none(GFP_ATOMIC);
    let pushed = with_completion_room(&mut inner.state.lock(), &mut out, |st, out| {
        if cur_state(st) == QpState::Err {
            return None;
        }
        if !progress(qp, inner.sq_sig_all, st, out) {
            if matches!(st.sq.pending.front(), Some(Pending::Wqe(_))) {
                complete_send(qp, inner.sq_sig_all, st, status, out);
            }
            st.set_state(QpState::Err);
            post::stop_watching(qp.device().data(), st);
        }
        Some(out.push(qp, st))
    });
    if let Some(p) = pushed {
        p.finish(qp);
        flush(qp, &mut out);
    }
}

/// Moves a QP to the error state after a local error on the receive side, and
/// flushes it.
pub(crate) fn fail(qp: &Qp<Rrxe>) {
    {
        let mut st = qp.data().state.lock();
        st.set_state(QpState::Err);
        post::stop_watching(qp.device().data(), &mut st);
    }
    flush(qp, &mut Completions::new_or_none(GFP_ATOMIC));
}
