// SPDX-License-Identifier: GPL-2.0

//! Queue pairs: the QP object, its locked state, and the work queues'
//! kernel-side state.
//!
//! Send WQEs are fetched from the user ring by copying each slot once and validating
//! the copy ([`crate::obj::wqe`]); the validated WQEs, their progress and every PSN live in
//! kernel memory. The requester that turns them into packets is the data path's; until
//! it runs, a WQE waits in `pending`. A malformed WQE waits there too, as a marker: when
//! it reaches the head it completes with `IB_WC_LOC_QP_OP_ERR` and moves the QP to the
//! error state, which flushes everything behind it.
//!
//! - [`control`]: create, modify, query and destroy;
//! - [`post`]: posting, and fetching WQEs from a user ring;
//! - [`complete`]: completions and the flush of a QP in the error state;
//! - [`pending`]: the list of send WQEs not yet completed;
//! - [`work`]: the QP's work items and its packets in flight;
//! - [`poll`]: the doorbell's poller, which watches idle send rings.

pub(crate) mod complete;
pub(crate) mod control;
pub(crate) mod pending;
pub(crate) mod poll;
pub(crate) mod post;
pub(crate) mod rx;
pub(crate) mod timers;
pub(crate) mod work;

use crate::{
    obj::mr::Miss,
    obj::ring::Ring,
    obj::wqe::{self, Bad, SqLimits},
    obj::{pd::PdId, Rrxe},
    params,
    proto::{
        answers::{Answer, AnswerRing, AtomicReplies, KeptRead, KeptReads},
        ip, psn,
        qp_state::QpState,
        read_ahead::ReadAhead,
        window::SendWindow,
    },
};
use complete::Completions;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::{
    net::route,
    prelude::*,
    rdma::{
        device::DeviceRef,
        qp::{Qp, QpAttr, QpState as IbQpState},
    },
    sync::{rcu, Arc, SpinLockIrq},
    time::hrtimer::HrTimer,
    workqueue::Work,
};
use pending::PendingList;

/// The answers of an RC QP's responder not yet sent, in order
/// (`crate::engine::resp_tx`).
pub(crate) type Answers = AnswerRing<KVec<Answer>>;

/// Answers an RC QP can hold unsent: all the READs and atomics of a requester
/// at the limit, and 64 ACKs and NAKs between them (adjacent ACKs merge). At 40
/// bytes an answer, the ring fits an 8 KiB allocation.
const ANSWERS_CAPACITY: usize = params::MAX_QP_RD_ATOM as usize + 64;
const _: () = assert!(core::mem::size_of::<Answer>() * ANSWERS_CAPACITY <= 8192);

/// A ring with room for `capacity` answers (0 for QPs that never answer).
fn new_answers(capacity: usize) -> Result<Answers> {
    let mut v = KVec::with_capacity(capacity, GFP_KERNEL)?;
    v.resize(capacity, Answer::default(), GFP_KERNEL)?;
    Ok(AnswerRing::new(v))
}

/// A QP's route, for the one path (source and destination GID) it was looked
/// up for: connected QPs send along one path, and a datagram QP often does too.
/// rdma_rxe keeps an RC QP's route in its socket the same way.
///
/// Behind its own lock ([`RrxeQp::route`]); a route it replaces is returned to
/// be released after that lock is dropped.
#[derive(Default)]
pub(crate) struct RouteCache(Option<([u8; 16], [u8; 16], route::CachedDst)>);

impl RouteCache {
    /// The kept route from `saddr` to `daddr`, if it still holds.
    pub(crate) fn get(&self, saddr: &[u8; 16], daddr: &[u8; 16]) -> Option<route::Dst> {
        match &self.0 {
            Some((s, d, dst)) if s == saddr && d == daddr => dst.get(),
            _ => None,
        }
    }

    /// Keeps `dst` from `saddr` to `daddr`; returns the route it replaces, to
    /// be released after the lock.
    pub(crate) fn set(&mut self, saddr: &[u8; 16], daddr: &[u8; 16], dst: &route::Dst) -> Self {
        let new = Some((*saddr, *daddr, route::CachedDst::new(dst)));
        Self(core::mem::replace(&mut self.0, new))
    }
}

/// Completions posted per lock hold: flushes and doorbells work in batches, so a
/// huge queue never keeps interrupts off for long, and the room is allocated
/// before the lock is taken.
const BATCH: usize = 64;

/// Completions of each kind a QP's spare room holds ([`QpInner::spare_room`]):
/// a flush needs one to go on, and it only serves when memory is short.
const SPARE_ROOM: usize = 1;

/// The send queue: the user ring, the WQEs taken from it and not completed, and
/// the requester's and completer's place in them.
///
/// Part of [`QpInner`], under the QP lock; lives as long as the QP, but for
/// the ring, which `destroy_qp` takes out (its mmap entry belongs to the user
/// context).
pub(crate) struct SendQueue {
    /// The user ring; `None` for kernel QPs, whose WRs arrive through `post_send`.
    ring: Option<Ring>,
    /// Where [`post::fetch`] copies a user WQE to parse it (empty for kernel QPs):
    /// allocated once, not per doorbell.
    fetch_buf: KVec<u8>,
    lim: SqLimits,
    /// How many WQEs the SQ holds.
    pub(crate) capacity: u32,
    /// Fetched from the ring (or posted by the kernel) and not yet completed, oldest
    /// first. For a user QP entry `i` is ring slot `consumer + i`.
    pub(crate) pending: PendingList,
    /// The PSN of the next packet.
    pub(crate) psn: u32,
    /// The requester's place: the WQE it sends next (index into `pending`) and the
    /// bytes of it already sent. Entries before it were sent and await their ACK.
    pub(crate) req_idx: usize,
    pub(crate) req_off: u32,
    /// The oldest PSN not yet acknowledged (RC).
    pub(crate) comp_psn: u32,
    /// One past the highest PSN sent (a rewind moves `psn` back, not this).
    pub(crate) sent_psn: u32,
    /// Packets sent since the last one that asked for an ACK (RC).
    pub(crate) noack: u32,
    /// One past the last packet that asked for an ACK (RC): while `comp_psn` is
    /// behind it, an ACK is due.
    pub(crate) asked_psn: u32,
    /// RDMA READs sent and not yet answered in full (bounded by max_rd_atomic).
    pub(crate) rd_outstanding: u32,
    /// How many PSNs may be outstanding (RC): 128, less after a loss.
    pub(crate) window: SendWindow,
    /// READ responses placed ahead of the oldest missing one (RC).
    pub(crate) read_ahead: ReadAhead,
    /// A window probe asked for the oldest unacknowledged packet: the
    /// requester's next step sends it out of turn before it goes on
    /// ([`crate::engine::req::probe_window`]).
    pub(crate) probe_oldest: bool,
    /// The destination GID (RC, UC) is one of an rrxe device's on this host, so
    /// the peer's receive path runs on this host's CPUs (`crate::engine::doorbell`).
    peer_on_host: bool,
    /// The doorbell's state, for a user QP whose provider took it.
    pub(crate) doorbell: Option<post::SqDoorbell>,
    /// This queue is counted in the device's `busy_qps`.
    counted_busy: bool,
    /// The QP was destroyed: it no longer counts as busy, though `pending` keeps
    /// its WQEs until the QP is freed.
    destroyed: bool,
}

impl SendQueue {
    /// Keeps the device's count of busy QPs (`busy_qps`) true to this queue.
    /// Called, under the QP lock, after every change that can empty `pending` or
    /// make it non-empty.
    fn recount(&mut self, busy_qps: &AtomicU32) {
        let busy = !self.pending.is_empty() && !self.destroyed;
        if busy != self.counted_busy {
            self.counted_busy = busy;
            if busy {
                busy_qps.fetch_add(1, Ordering::Relaxed);
            } else {
                busy_qps.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

/// The responder's place in a multi-packet message. A plain value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum InMessage {
    Send,
    Write,
}

/// A receive WQE being filled by a SEND (or consumed by a WRITE with immediate).
///
/// Part of [`RespState`], under the QP lock; lives from a message's first
/// packet to its completion, or to the flush of a QP in the error state.
pub(crate) struct RecvInProgress {
    pub(crate) wr_id: u64,
    pub(crate) wqe: Result<wqe::RecvWqe, Bad>,
    /// Taken from the SRQ (already consumed there), not from the RQ ring.
    pub(crate) from_srq: bool,
    /// SGE cursor and bytes placed so far.
    pub(crate) sge: (usize, u32),
    pub(crate) written: u32,
}

/// Responder state (RC and UC), all in kernel memory.
///
/// Part of [`QpInner`], under the QP lock; reset when the QP goes to RESET.
#[derive(Default)]
pub(crate) struct RespState {
    /// The PSN expected next.
    pub(crate) psn: u32,
    /// Messages completed (RC's MSN).
    pub(crate) msn: u32,
    /// A PSN sequence NAK was sent and not yet answered (sent once, as rxe).
    pub(crate) nak_sent: bool,
    /// The message in progress, if a FIRST was received.
    pub(crate) in_msg: Option<InMessage>,
    /// UC: a packet was lost; drop until the next FIRST or ONLY.
    pub(crate) uc_drop: bool,
    pub(crate) recv: Option<RecvInProgress>,
    /// A WRITE's target: address, rkey and bytes left (looked up per packet).
    pub(crate) write: (u64, u32, u32),
    /// Total length of the WRITE (for WRITE with immediate's completion).
    pub(crate) write_len: u32,
    /// A QP on an SRQ raised `QP_LAST_WQE_REACHED` for its current error state.
    last_wqe_raised: bool,
    /// A UD QP's receive WQE taken from its SRQ for a datagram that waits for an
    /// on-demand-paging fault: the datagram gets it when it is run again (an
    /// SRQ's WQE cannot go back to the ring), with whether the SRQ's limit was
    /// crossed.
    pub(crate) held_srq_recv: Option<(u64, Result<wqe::RecvWqe, Bad>, bool)>,
}

/// Pages of on-demand-paging MRs that the QP's engines found not resident, for
/// its fault work item to fault in before the engines run again
/// ([`crate::obj::mr::Miss`]): one for what the receive work item runs (requests
/// and responses received), one for what the send work item runs (the
/// requester and the responder's sender).
///
/// Part of [`QpInner`], under the QP lock.
#[derive(Default)]
pub(crate) struct OdpMisses {
    pub(crate) rx: Option<Miss>,
    pub(crate) tx: Option<Miss>,
}

/// The receive queue of a QP without an SRQ: its ring and how many SGEs a WQE
/// may carry.
///
/// Part of [`QpInner`], under the QP lock; `destroy_qp` takes it out with the
/// send ring.
pub(crate) struct RecvQueue {
    pub(crate) ring: Ring,
    pub(crate) max_sge: u32,
    /// Where a receive WQE is copied to be parsed: the part of a slot a parse
    /// reads, allocated once (a zeroed buffer on the stack per receive cost a
    /// 552-byte memset).
    pub(crate) fetch_buf: KVec<u8>,
}

/// A QP's state behind its lock ([`RrxeQp::state`]): attributes, both work
/// queues, the responder's state and answers, and the timers' deadlines.
///
/// Locking: a `SpinLockIrq`, taken from process context, softirqs and work
/// items. Under it may be taken, in this order only: a CQ's lock (completions
/// are added under the QP lock, so each queue's completions reach its CQ in
/// order), the SRQ's lock, an MR's or MW's own lock, a pool's lock, and the
/// device's atomics lock. The device list's mutex is never taken under it, and
/// neither is [`RrxeQp::rx`] or [`RrxeQp::route`]. The engines decide under it
/// and send after dropping it, since a packet to this host may be received in
/// the same call stack.
///
/// Lifetime: that of the [`RrxeQp`].
pub(crate) struct QpInner {
    pub(crate) attr: QpAttr,
    pub(crate) sq: SendQueue,
    pub(crate) rq: Option<RecvQueue>,
    pub(crate) resp: RespState,
    /// The responder's answers not yet sent (RC), in order.
    pub(crate) resp_tx: Answers,
    /// What the responder's last atomics returned (RC), to answer repeats.
    pub(crate) atomic_replies: AtomicReplies<KVec<(u32, u64)>>,
    /// The responder's last READs (RC), to check repeats against.
    pub(crate) kept_reads: KeptReads<KVec<KeptRead>>,
    pub(crate) timers: timers::Timers,
    /// Room for a completion of each kind, lent to a flush or an error report
    /// whose own allocation failed ([`complete::with_completion_room`]): a QP moved to the
    /// error state is always flushed, and a post to a failed QP never fails
    /// with `ENOMEM` after its WQE was queued.
    spare_room: Completions,
    pub(crate) odp: OdpMisses,
}

/// Runs one of a QP's engines on one CPU at a time. Re-entry (loopback, or
/// another CPU) only asks the running one to look again, so no request is lost
/// and none is served twice at once.
///
/// Two atomic flags, no lock; part of the [`RrxeQp`], for its lifetime.
pub(crate) struct Runner {
    running: AtomicBool,
    again: AtomicBool,
}

impl Runner {
    const fn new() -> Self {
        Self {
            running: AtomicBool::new(false),
            again: AtomicBool::new(false),
        }
    }

    /// Whether an engine runs now (a hint: it may stop at once).
    pub(crate) fn is_running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }

    /// Calls `step` until it returns false (nothing more to do), at most `budget`
    /// times; at the budget it calls `defer` to go on later, elsewhere.
    ///
    /// A caller asks first (`again`) and then tries to become the runner; a
    /// runner gives up `running` and then looks for a request. With every access
    /// sequentially consistent, a caller that finds the engine running stored its
    /// request before the runner's last look. (Asking only after losing the race
    /// lost the request when the runner finished in between: a WQE posted then
    /// stayed unsent, and with nothing outstanding no timer came to send it.)
    pub(crate) fn run(
        &self,
        mut budget: u32,
        mut step: impl FnMut() -> bool,
        defer: impl FnOnce(),
    ) {
        self.again.store(true, Ordering::SeqCst);
        loop {
            if self.running.swap(true, Ordering::SeqCst) {
                // The runner sees the request.
                return;
            }
            while self.again.swap(false, Ordering::SeqCst) {
                while step() {
                    budget = budget.saturating_sub(1);
                    if budget == 0 {
                        self.running.store(false, Ordering::SeqCst);
                        defer();
                        return;
                    }
                }
            }
            self.running.store(false, Ordering::SeqCst);
            if !self.again.load(Ordering::SeqCst) {
                return;
            }
        }
    }
}

/// A QP may have at most this many packets in the stack: sent, and not yet
/// orphaned by a delaying qdisc or the receiving host's IP layer, nor freed
/// (rxe's `RXE_INFLIGHT_SKBS_PER_QP_HIGH`). A requester or responder at the
/// limit stops, so a QP never fills a slow qdisc (a `tbf` shaper) past its own
/// share: without it an RC window of 128 overflowed a 100 KiB queue and every
/// overflow cost a go-back-N resend, and a UD QP lost what did not fit.
pub(crate) const TX_IN_FLIGHT_MAX: u32 = 64;

/// A stopped engine goes on once this few of its packets are left in the stack
/// (rxe's `RXE_INFLIGHT_SKBS_PER_QP_LOW`), not at every release.
const TX_IN_FLIGHT_RESUME: u32 = 16;

/// The packets a QP has in the stack ([`TX_IN_FLIGHT_MAX`]).
///
/// Atomics, no lock: packets are released in softirqs and destructors. Part of
/// the [`RrxeQp`], which every packet in flight holds a reference to.
pub(crate) struct TxInFlight {
    count: AtomicU32,
    /// An engine stopped at the limit: the release that brings the count below
    /// [`TX_IN_FLIGHT_RESUME`] queues the QP's work item.
    waiting: AtomicBool,
}

impl TxInFlight {
    const fn new() -> Self {
        Self {
            count: AtomicU32::new(0),
            waiting: AtomicBool::new(false),
        }
    }

    /// Packets in the stack now.
    pub(crate) fn count(&self) -> u32 {
        self.count.load(Ordering::Relaxed)
    }

    /// Whether an engine may hand the stack another packet. If not, the QP's
    /// work item is queued once enough of them are released. The flag is set
    /// before the count is read again, and a release lowers the count before it
    /// reads the flag (all sequentially consistent), so either this sees the
    /// release or the release sees the flag.
    pub(crate) fn may_send(&self) -> bool {
        if self.count.load(Ordering::SeqCst) < TX_IN_FLIGHT_MAX {
            return true;
        }
        self.waiting.store(true, Ordering::SeqCst);
        self.count.load(Ordering::SeqCst) < TX_IN_FLIGHT_MAX
    }

    fn sent(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
    }

    /// Counts a packet released; true if a stopped engine must be run.
    fn released(&self) -> bool {
        let left = self.count.fetch_sub(1, Ordering::SeqCst).saturating_sub(1);
        left < TX_IN_FLIGHT_RESUME
            && self.waiting.load(Ordering::SeqCst)
            && self.waiting.swap(false, Ordering::SeqCst)
    }
}

/// The driver's QP: what never changes after creation, the engines' runners and
/// work items, and [`QpInner`] behind [`RrxeQp::state`].
///
/// Lifetime: created by `create_qp`, published in the device's QP pool and in
/// the core's QP table, and unpublished by `destroy_qp`. It is an `Arc`: a
/// queued work item, the timer and every packet in flight hold a reference,
/// so it may outlive `destroy_qp` (and its last reference is always dropped
/// in a work item, in process context: [`work`]). It holds its device, so the
/// device outlives it.
///
/// Locking: the fields outside `state`, `rx` and `route` are set at creation
/// or atomic. `rx` and `route` each have their own spinlock, never nested
/// with `state`.
#[pin_data]
pub(crate) struct RrxeQp {
    pub(crate) qp_type: u32,
    pub(crate) pd_id: PdId,
    pub(crate) sq_sig_all: bool,
    /// The SRQ receives come from, if any.
    pub(crate) srq: Option<Arc<crate::obj::srq::RrxeSrq>>,
    qpn: u32,
    /// Unique for the device's lifetime: what a type 2 memory window is bound to.
    pub(crate) serial: u64,
    /// The route of the last packet sent ([`crate::net::xmit::xmit`]). Declared before
    /// `dev`, so it is released first: the device reference going lets its
    /// namespace go, and with it the route's `dst_ops`.
    #[pin]
    pub(crate) route: SpinLockIrq<RouteCache>,
    /// For `send_work`, which finds the QP again through the device. It runs the
    /// requester for kernel QPs (their posts may come with interrupts off) and
    /// for user posts handed off by [`post::doorbell`], the loss recovery timers for
    /// all, and whichever engine used up its budget.
    dev: DeviceRef<Rrxe>,
    #[pin]
    send_work: Work<RrxeQp>,
    /// Runs the packets queued in `rx` ([`rx::RxBacklog`]).
    #[pin]
    recv_work: Work<RrxeQp, 1>,
    /// Faults in the pages in [`QpInner::odp`], on [`crate::fault_queue`], then
    /// queues the work item that waits for them ([`work::defer_fault`]).
    #[pin]
    fault_work: Work<RrxeQp, 2>,
    #[pin]
    pub(crate) rx: SpinLockIrq<rx::RxBacklog>,
    /// The receive work item owns the QP's packets: set (under `rx`'s lock) by
    /// the first packet queued and cleared when the work item finds `rx` empty.
    /// Packets for the QP queue behind it while it is set, and an expired ACK
    /// timeout is put off ([`crate::engine::recovery`]).
    pub(crate) rx_owned: AtomicBool,
    /// The loss recovery timer ([`crate::engine::recovery`]) and whether it is queued.
    #[pin]
    timer: HrTimer<RrxeQp>,
    pub(crate) timer_queued: AtomicBool,
    /// The requester ([`crate::engine::req`]) and the responder's sender
    /// ([`crate::engine::resp_tx`]): one of each runs at a time.
    pub(crate) req_runner: Runner,
    pub(crate) resp_runner: Runner,
    /// Packets sent and still in the stack.
    pub(crate) tx: TxInFlight,
    #[pin]
    pub(crate) state: SpinLockIrq<QpInner>,
}

impl RrxeQp {
    /// This very QP through the device's table, for its work items: `None` once
    /// it is destroyed, when its number may already name a new QP.
    pub(crate) fn live<'g>(&'g self, guard: &'g rcu::Guard) -> Option<&'g Qp<Rrxe>> {
        let qp = self.dev.qp_rcu(self.qpn, guard)?;
        core::ptr::eq(&**qp.data(), self).then_some(qp)
    }
}

impl QpInner {
    /// Whether a packet with IP header `ip` is from the QP's peer to its own
    /// address (RC, UC): rxe's `check_addr`.
    pub(crate) fn is_from_peer(&self, ip: &[u8]) -> bool {
        let av = &self.attr.ah_attr;
        ip::addressed(ip, &av.sgid, &av.dgid)
    }
}

pub(crate) fn cur_state(st: &QpInner) -> QpState {
    QpState::from_raw(st.attr.qp_state.into()).unwrap_or(QpState::Err)
}

/// The core's number of a QP state.
fn ib_state(s: QpState) -> IbQpState {
    match s {
        QpState::Reset => IbQpState::Reset,
        QpState::Init => IbQpState::Init,
        QpState::Rtr => IbQpState::Rtr,
        QpState::Rts => IbQpState::Rts,
        QpState::Sqd => IbQpState::Sqd,
        QpState::Sqe => IbQpState::Sqe,
        QpState::Err => IbQpState::Err,
    }
}

impl QpInner {
    /// Moves the QP to state `s`.
    pub(crate) fn set_state(&mut self, s: QpState) {
        self.attr.qp_state = ib_state(s);
    }
}

/// The QP's path MTU in bytes (256 if the attribute holds no valid code).
pub(crate) fn path_mtu_bytes(st: &QpInner) -> u32 {
    psn::ib_mtu_bytes(st.attr.path_mtu as u8).unwrap_or(256)
}
