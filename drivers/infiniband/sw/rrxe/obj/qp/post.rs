// SPDX-License-Identifier: GPL-2.0

//! Posting work requests: a kernel consumer's, one at a time, and a user's,
//! fetched from the send ring when the doorbell rings.

use super::{
    complete::{flush, progress, with_completion_room, Completions},
    cur_state, path_mtu_bytes,
    pending::PendingList,
    poll::{watch_idle, SqPoll},
    work::defer,
    QpInner, RrxeQp, SendQueue, BATCH,
};
use crate::{
    obj::device::RrxeDevice,
    obj::pd::PdId,
    obj::ring::Ring,
    obj::wqe::{self, Bad, Pending, SendWqe},
    obj::Rrxe,
    params,
    proto::{
        doorbell::{SqWatch, SQ_POLLED},
        qp_state::QpState,
    },
    stats::Counter,
};
use kernel::{
    prelude::*,
    rdma::{
        qp::Qp,
        wr::{RecvWr, SendWr},
    },
};

/// The longest SEND, in packets of the path MTU, that the doorbell sends itself
/// to a local peer (`crate::engine::doorbell`). A stream of longer ones is sent
/// from the QP's work item: a long stream's kernel work then runs on one CPU and
/// the two polling processes on the other, as rdma_rxe's does; sent from the
/// poster's system call, the work fell on both CPUs between the processes.
pub(crate) const LOCAL_SEND_MAX_PACKETS: u32 = 8;

/// What one doorbell's [`fetch`] took: a plain value, for the doorbell's
/// choice of where to send from.
#[derive(Clone, Copy, Default)]
pub(crate) struct FetchedPosts {
    /// A valid WQE was taken.
    taken: bool,
    /// Earlier WQEs were still queued (unsent or unacknowledged).
    pub(crate) behind_others: bool,
    /// WQEs were taken, each unsignaled and answered by a response (a READ, an
    /// atomic, a FLUSH). Sent from here over a veth to an rrxe responder, a READ
    /// ran the peer's responder inside the syscall, and one answered in one
    /// packet its whole round trip, so the next post found nothing unfinished
    /// and a stream of them ran as a ping-pong on the user's CPU. A user who
    /// waits for a READ signals it: a ping-pong is still sent from here.
    pub(crate) unsignaled_reads: bool,
    /// Every new WQE's message fits in one packet of the path MTU.
    pub(crate) one_packet_each: bool,
    /// Every new WQE is a SEND.
    pub(crate) sends_only: bool,
    /// A new WQE's message takes more than [`LOCAL_SEND_MAX_PACKETS`] packets.
    pub(crate) long_message: bool,
    /// The QP's peer is an rrxe device on this host (`SendQueue::peer_on_host`).
    pub(crate) peer_on_host: bool,
}

impl FetchedPosts {
    /// Nothing taken yet: each "every WQE" flag holds until a WQE breaks it.
    pub(super) fn new() -> Self {
        Self {
            one_packet_each: true,
            sends_only: true,
            ..Self::default()
        }
    }
}

/// Takes one batch of the WQEs posted beyond those already fetched into
/// `pending`, under the QP lock, each copied once and checked from the copy.
fn take_batch(
    dev: &RrxeDevice,
    pd_id: PdId,
    mtu: u32,
    sq: &mut SendQueue,
    posts: &mut FetchedPosts,
) -> Result<Fetched> {
    let Some(ring) = sq.ring.as_ref() else {
        return Err(EINVAL);
    };
    let elem = ring.layout().elem_size().min(sq.fetch_buf.len());
    let slot = &mut sq.fetch_buf[..elem];
    // Only slots beyond the ones already fetched are new.
    let posted = ring.posted_count() as usize;
    let from = sq.pending.len();
    // A producer index moved back (only a hostile user's) posts nothing.
    let to = posted.max(from).min(from + BATCH);
    if sq.pending.room() < to - from {
        // Twice the storage (a growing queue allocates a few times only), within
        // the SQ's size, for all posted.
        let twice = (2 * sq.pending.storage_len()).max(BATCH);
        return Ok(Fetched::Grow(twice.min(sq.capacity as usize).max(posted)));
    }
    let mut take = || -> Result {
        for k in from..to {
            ring.read_posted(k as u32, posted as u32, slot)?;
            // Parsed where it stays: a WQE moved is a memcpy.
            let p = sq.pending.push_slot()?;
            wqe::parse_user_send_into(slot, &sq.lim, p);
            if let Pending::Wqe(w) = p {
                if let Err(why) = check_dest(dev, pd_id, w) {
                    let (wr_id, send) = (w.wr_id, wqe::is_send(w.opcode));
                    *p = Pending::Bad { wr_id, why, send };
                }
            }
            if let Pending::Wqe(w) = p {
                posts.one_packet_each &= w.length <= mtu;
                posts.long_message |= w.length > LOCAL_SEND_MAX_PACKETS * mtu;
                posts.unsignaled_reads &=
                    w.needs_response() && w.flags & crate::abi::send_flags::SIGNALED == 0;
                posts.sends_only &= wqe::is_send(w.opcode);
                posts.taken = true;
            } else {
                // Its error completion is reported whatever its flags.
                posts.unsignaled_reads = false;
            }
        }
        Ok(())
    };
    let took = take();
    // Also when a read failed after some WQEs were taken.
    sq.recount(&dev.busy_qps);
    took?;
    posts.peer_on_host = sq.peer_on_host;
    Ok(if matches!(sq.pending.front(), Some(Pending::Bad { .. })) {
        Fetched::BadHead
    } else if to < posted {
        Fetched::More
    } else {
        Fetched::All
    })
}

/// Takes the new WQEs of a user send queue into kernel memory, each copied once,
/// in batches.
///
/// This runs for every user post, so the common case allocates nothing: the copy
/// goes to the QP's own buffer, and only an error (a refused WQE at the head, or a
/// QP in the error state) gathers completions.
pub(crate) fn fetch(qp: &Qp<Rrxe>) -> Result<FetchedPosts> {
    let dev = qp.device().data();
    let inner = qp.data();
    let mut first = true;
    let mut posts = FetchedPosts {
        unsignaled_reads: !inner.sq_sig_all,
        ..FetchedPosts::new()
    };
    loop {
        let next = {
            let mut st = inner.state.lock();
            match cur_state(&st) {
                // Not yet able to send: the post fails, as in rxe. Only before any
                // WQE was taken: a reset racing a later batch is not the post's error.
                QpState::Reset | QpState::Init | QpState::Rtr if first => return Err(EINVAL),
                QpState::Reset | QpState::Init | QpState::Rtr => {
                    posts.unsignaled_reads &= posts.taken;
                    return Ok(posts);
                }
                QpState::Err => Fetched::Flush,
                _ => {
                    let mtu = path_mtu_bytes(&st);
                    let sq = &mut st.sq;
                    if first {
                        if let Some(db) = sq.doorbell.as_mut() {
                            db.rings += 1;
                            db.poll.post_found();
                            dev.stats.inc(Counter::DbRings);
                        }
                    }
                    posts.behind_others |= first && !sq.pending.is_empty();
                    take_batch(dev, inner.pd_id, mtu, sq, &mut posts)?
                }
            }
        };
        match next {
            Fetched::Grow(want) => {
                // Charged to the user, as a deep queue's list may be large.
                let bigger = PendingList::storage(want, kernel::alloc::flags::GFP_KERNEL_ACCOUNT)?;
                let old = inner.state.lock().sq.pending.move_to(bigger);
                drop(old);
            }
            Fetched::More => first = false,
            Fetched::All => {
                posts.unsignaled_reads &= posts.taken;
                return Ok(posts);
            }
            // Reported, and the QP failed, now rather than when the requester
            // reaches it (which it does not in SQD).
            Fetched::BadHead => {
                let mut out = Completions::new_or_none(GFP_KERNEL);
                let pushed = with_completion_room(&mut inner.state.lock(), &mut out, |st, out| {
                    progress(qp, inner.sq_sig_all, st, out).then(|| out.push(qp, st))
                });
                if let Some(p) = pushed {
                    p.finish(qp);
                    flush(qp, &mut out);
                }
                return Ok(FetchedPosts::default());
            }
            Fetched::Flush => {
                flush(qp, &mut Completions::new_or_none(GFP_KERNEL));
                return Ok(FetchedPosts::default());
            }
        }
    }
}

/// What one [`fetch`] batch found.
enum Fetched {
    /// The pending list needs room for this many entries first.
    Grow(usize),
    /// More WQEs were posted than one batch takes.
    More,
    All,
    /// A refused WQE is the oldest: report it and fail the QP.
    BadHead,
    /// The QP is in the error state: flush.
    Flush,
}

/// A datagram WQE must name an AH of the QP's own PD.
fn check_dest(dev: &RrxeDevice, pd_id: PdId, w: &SendWqe) -> Result<(), Bad> {
    if let Some(ud) = &w.ud {
        match dev.ahs.get(ud.ah_num) {
            Some(ah) if ah.pd_id == pd_id => {}
            _ => return Err(Bad::Address),
        }
    }
    Ok(())
}

pub(crate) fn post_send(qp: &Qp<Rrxe>, wr: &SendWr<'_, Rrxe>) -> Result {
    let inner = qp.data();
    let err = {
        let mut st = inner.state.lock();
        let state = cur_state(&st);
        if matches!(state, QpState::Reset | QpState::Init | QpState::Rtr) {
            return Err(EINVAL);
        }
        if st.sq.ring.is_some() {
            return Err(EINVAL);
        }
        if st.sq.pending.len() >= st.sq.capacity as usize {
            return Err(ENOMEM);
        }
        let w = wqe::from_kernel_send(wr, &st.sq.lim, inner.pd_id).map_err(|b| {
            if b == Bad::NoMem {
                ENOMEM
            } else {
                EINVAL
            }
        })?;
        // Room was reserved at creation.
        st.sq.pending.push(Pending::Wqe(w))?;
        st.sq.recount(&qp.device().data().busy_qps);
        state == QpState::Err
    };
    if !err {
        // Already queued is fine: the run will see this WQE too.
        defer(inner);
    }
    if err {
        // Kernel consumers may post from atomic context. Only a flush needs the
        // completion room, so the common post allocates nothing for it.
        flush(qp, &mut Completions::new_or_none(GFP_ATOMIC));
    }
    Ok(())
}

pub(crate) fn post_recv(qp: &Qp<Rrxe>, wr: &RecvWr<'_>) -> Result {
    let inner = qp.data();
    let err = {
        let mut st = inner.state.lock();
        if st.sq.ring.is_some() {
            return Err(EINVAL);
        }
        let err = cur_state(&st) == QpState::Err;
        let Some(rq) = st.rq.as_mut() else {
            return Err(EINVAL);
        };
        if wr.sgl.len() > rq.max_sge as usize {
            return Err(EINVAL);
        }
        let mut buf =
            [0u8; crate::abi::RECV_WQE_HDR + crate::abi::SGE_SIZE * params::MAX_SGE as usize];
        let n = crate::abi::RECV_WQE_HDR + wr.sgl.len() * crate::abi::SGE_SIZE;
        wqe::encode_recv(wr.wr_id, wr.sgl, &mut buf[..n])?;
        rq.ring.post(&buf[..n])?;
        err
    };
    if err {
        flush(qp, &mut Completions::new_or_none(GFP_ATOMIC));
    }
    Ok(())
}

/// A user send queue's side of the doorbell (`uapi/rdma/rdma_user_rrxe.h`): the
/// promise in its ring's `sq_flags` and what became of it.
///
/// Part of the [`SendQueue`], under the QP lock; present for the QPs of a
/// context whose provider took the doorbell. The counts are shown by
/// `rdma resource show qp -dd`.
#[derive(Default)]
pub(crate) struct SqDoorbell {
    /// The kernel's copy of `sq_flags`.
    watch: SqWatch,
    /// A re-check found no room in `pending`: the QP's work item grows it to
    /// this many entries (0: nothing to do), outside any lock.
    grow_to: usize,
    /// The poller's view of the QP (`doorbell` 2 and 3).
    pub(crate) poll: SqPoll,
    pub(crate) arms: u64,
    pub(crate) disarms: u64,
    pub(crate) rechecks: u64,
    pub(crate) races: u64,
    pub(crate) rings: u64,
}

impl SqDoorbell {
    /// The doorbell of a send queue in a context of `doorbell` mode `mode`.
    pub(crate) fn new(mode: u32) -> Self {
        Self {
            poll: SqPoll::new(mode),
            ..Self::default()
        }
    }

    /// Whether posts now skip the system call.
    pub(crate) fn watched(&self) -> bool {
        self.watch.is_watched()
    }

    /// Whether the poller, not work in flight, keeps the promise.
    pub(crate) fn polled(&self) -> bool {
        self.watch.flags() & SQ_POLLED != 0
    }

    /// Promises to re-read `ring` (the caller is bound to), counted once per
    /// promise: a promise that passes from work in flight to the poller, or
    /// back, is the same promise.
    fn set(&mut self, ring: &Ring, dev: &RrxeDevice, extra: u32) {
        let was = self.watched();
        if self.watch.arm(&ring.sq_words(), extra) && !was {
            self.arms += 1;
            dev.stats.inc(Counter::DbArms);
        }
    }

    /// Promises a re-read for work in flight.
    fn arm(&mut self, ring: &Ring, dev: &RrxeDevice) {
        self.set(ring, dev, 0);
    }

    /// Promises a re-read by the poller (`RRXE_SQ_POLLED`).
    pub(super) fn arm_polled(&mut self, ring: &Ring, dev: &RrxeDevice) {
        self.set(ring, dev, SQ_POLLED);
    }

    /// Withdraws the promise, counted: the producer index read after the
    /// barrier, or `None` if none was made.
    fn disarm(&mut self, ring: &Ring, dev: &RrxeDevice) -> Option<u32> {
        let prod = self.watch.disarm(&ring.sq_words())?;
        self.disarms += 1;
        dev.stats.inc(Counter::DbDisarms);
        Some(prod)
    }
}

/// Whether the requester is bound to run again with no post: WQEs wait unsent
/// (for the window, READ credits or a fence, which answers or timers lift), a
/// READ or atomic is unanswered, or a packet that asked for an ACK is not
/// acknowledged yet. An unsignaled tail that asked for no ACK does not count:
/// only the tail probe (a millisecond or more later) would run the requester,
/// and a post behind it must not wait for that.
fn answer_due(sq: &SendQueue) -> bool {
    sq.req_idx < sq.pending.len()
        || sq.rd_outstanding > 0
        || crate::proto::psn::psn_diff(sq.asked_psn, sq.comp_psn) > 0
}

/// The requester found nothing to send: takes what the user posted without a
/// system call, and keeps the doorbell's promise true. Called by the requester
/// (`crate::engine::req`) under the QP lock, in RTS, each time it runs out of
/// packets; returns whether WQEs were taken, so it looks again.
///
/// The promise (`RRXE_SQ_WATCHED`) is made while an answer is due
/// ([`answer_due`]), since its arrival (an ACK, a response, or the timer that
/// stands for a lost one) runs the requester again, and so this re-check.
/// Otherwise nothing soon would: the promise is withdrawn, and the producer
/// index read again after the barrier the provider pairs with, so that a post
/// which still saw the promise is taken here; and the QP is handed to the
/// poller if its mode and window allow ([`watch_idle`]), which promises again
/// once it runs.
pub(crate) fn recheck(qp: &Qp<Rrxe>, st: &mut QpInner) -> bool {
    let sq = &mut st.sq;
    let due = answer_due(sq);
    let (Some(db), Some(ring)) = (sq.doorbell.as_mut(), sq.ring.as_ref()) else {
        // Kernel QPs and stock providers: nothing to look at.
        return false;
    };
    let found = ring.posted_count() as usize > sq.pending.len();
    if !found {
        if due {
            db.arm(ring, qp.device().data());
            return false;
        }
        watch_idle(qp, st);
    }
    take_found(qp, st, found, &mut FetchedPosts::new())
}

/// Takes the WQEs posted without a system call, under the QP lock, in RTS:
/// `found` says the producer index moved; otherwise the promise is withdrawn
/// first, and the index read again after the barrier. Returns whether WQEs
/// were taken: the caller then runs the requester, which is why a promise the
/// poller kept becomes one for work in flight.
pub(super) fn take_found(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    mut found: bool,
    posts: &mut FetchedPosts,
) -> bool {
    let mtu = path_mtu_bytes(st);
    let sq = &mut st.sq;
    let (Some(db), Some(ring)) = (sq.doorbell.as_mut(), sq.ring.as_ref()) else {
        return false;
    };
    let dev = qp.device().data();
    if found {
        if db.polled() {
            db.arm(ring, dev);
        }
    } else {
        let Some(prod) = db.disarm(ring, dev) else {
            db.poll.went_idle();
            return false;
        };
        found = ring.posted_since(prod) as usize > sq.pending.len();
        if !found {
            db.poll.went_idle();
            return false;
        }
        db.races += 1;
        dev.stats.inc(Counter::DbRaces);
    }
    db.poll.post_found();
    let before = sq.pending.len();
    match take_batch(dev, qp.data().pd_id, mtu, sq, posts) {
        Ok(Fetched::Grow(want)) => {
            // No allocation here (a softirq may run this): the work item grows
            // the list and runs the requester, which comes back here. The
            // promise stands meanwhile: that run is bound to happen.
            if let (Some(db), Some(ring)) = (sq.doorbell.as_mut(), sq.ring.as_ref()) {
                db.grow_to = want;
                db.arm(ring, dev);
            }
            defer(qp.data());
            false
        }
        // Cannot fail: the slots read are below the posted count.
        Err(_) => false,
        Ok(_) => {
            let n = sq.pending.len() - before;
            if let Some(db) = sq.doorbell.as_mut() {
                db.rechecks += n as u64;
            }
            dev.stats.add(Counter::DbRechecks, n as u64);
            n != 0
        }
    }
}

/// Makes the doorbell's promise because the QP's work item is about to be
/// queued, which runs the requester and so its re-check; called before the work
/// item is queued, or once the packet limit stopped the requester (the release
/// that lifts it queues the work item), never under the QP lock. A hand-off of a stream of READs
/// needs it: each is answered while the requester still runs, so it finds
/// nothing unfinished and would not promise.
pub(crate) fn watch_for_work_item(qp: &Qp<Rrxe>) {
    let mut st = qp.data().state.lock();
    if cur_state(&st) != QpState::Rts {
        return;
    }
    let sq = &mut st.sq;
    if let (Some(db), Some(ring)) = (sq.doorbell.as_mut(), sq.ring.as_ref()) {
        db.arm(ring, qp.device().data());
    }
}

/// Withdraws the doorbell's promise of a QP leaving RTS (to SQD, the error
/// state or a reset), under its lock: posts ring again from now on. Returns
/// whether WQEs were posted without a system call and not yet fetched; in the
/// error state the flush takes them, otherwise the caller fetches them.
pub(crate) fn stop_watching(dev: &RrxeDevice, st: &mut QpInner) -> bool {
    let sq = &mut st.sq;
    let (Some(db), Some(ring)) = (sq.doorbell.as_mut(), sq.ring.as_ref()) else {
        return false;
    };
    if db.disarm(ring, dev).is_none() {
        return false;
    }
    ring.posted_count() as usize > sq.pending.len()
}

/// Grows a send queue's pending list as a re-check asked ([`recheck`]), from the
/// QP's work item, before it runs the requester. Sleeps: no lock or RCU section
/// may be held.
pub(crate) fn grow_deferred(inner: &RrxeQp) {
    let want = match inner.state.lock().sq.doorbell.as_mut() {
        Some(db) => core::mem::take(&mut db.grow_to),
        None => return,
    };
    if want == 0 {
        return;
    }
    // Charged to the user, as a deep queue's list may be large. On failure the
    // requester's next re-check asks again.
    if let Ok(bigger) = PendingList::storage(want, kernel::alloc::flags::GFP_KERNEL_ACCOUNT) {
        let mut st = inner.state.lock();
        if st.sq.pending.storage_len() < want {
            let old = st.sq.pending.move_to(bigger);
            drop(st);
            drop(old);
        }
    }
}
