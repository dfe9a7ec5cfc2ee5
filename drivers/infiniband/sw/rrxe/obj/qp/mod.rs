// SPDX-License-Identifier: GPL-2.0

//! Queue pairs: creation with rxe-compatible rings, attribute changes through the
//! protocol core's state machine, and the work queues' kernel-side state.
//!
//! Send WQEs are fetched from the user ring by copying each slot once and validating
//! the copy ([`crate::obj::wqe`]); the validated WQEs, their progress and every PSN live in
//! kernel memory. The requester that turns them into packets is the data path's; until
//! it runs, a WQE waits in `pending`. A malformed WQE waits there too, as a marker: when
//! it reaches the head it completes with `IB_WC_LOC_QP_OP_ERR` and moves the QP to the
//! error state, which flushes everything behind it.

use crate::{
    obj::cq,
    obj::device::{PdId, Rrxe, RrxeDevice},
    params,
    proto::{
        answers::{AtomicReplies, KeptRead, KeptReads},
        psn::{self, psn_add, psn_diff},
        qp_state::{self, QpState, QpType},
        read_ahead::ReadAhead,
        window::SendWindow,
    },
    obj::ring::{MmapInfo, Queue},
    obj::wqe::{self, qpt, Bad, SendWqe, SqLimits},
};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        device::DeviceRef,
        restrack::DriverDetails,
        verbs::{event, Pd, Qp, QpAttr, QpCap, QpInitAttr, RecvWr, SendWr, Srq, Wc},
        UData,
    },
    sync::{rcu, Arc, SpinLockIrq},
    time::hrtimer::HrTimer,
    workqueue::{impl_has_work, new_work, Work, WorkItem},
};

/// `IB_WC_*` statuses and opcodes used here.
pub(crate) const WC_LOC_QP_OP_ERR: u32 = 2;
pub(crate) const WC_LOC_PROT_ERR: u32 = 4;
/// `IB_WC_MW_BIND_ERR`: a memory window bind was refused.
pub(crate) const WC_MW_BIND_ERR: u32 = 6;
const WC_WR_FLUSH_ERR: u32 = 5;
pub(crate) const WC_RECV: u32 = 1 << 7;

/// The Q_Key of QP1.
pub(crate) const GSI_QKEY: u32 = 0x8001_0000;
/// `IB_MTU_256`, the path MTU before one is set.
const MTU_256: u32 = 1;
/// Largest local ACK timeout code.
const MAX_TIMEOUT: u8 = 31;

/// A send WQE waiting for the requester, or the marker of a refused one.
#[allow(
    clippy::large_enum_variant,
    reason = "entries live in place in the pending list; a box would be an allocation per WQE"
)]
pub(crate) enum Pending {
    Wqe(SendWqe),
    Bad {
        wr_id: u64,
        why: Bad,
    },
    /// A slot already taken from the front of a [`PendingList`].
    Taken,
}

impl Pending {
    /// A WQE whose packets were all sent at least once.
    pub(crate) fn sent_all(&self) -> bool {
        matches!(self, Pending::Wqe(w) if w.sent_all)
    }
}

/// Oldest-first list of send WQEs: a ring over storage of fixed length, in
/// which the slots that hold no WQE are [`Pending::Taken`].
///
/// A deep SQ's list is larger than kmalloc gives (a WQE is about 300 bytes: 4
/// MiB hold about 13,000), so it may live in vmalloc memory, which can be
/// neither allocated nor freed under the QP lock. So the list never grows
/// itself: [`PendingList::push`] fails when it is full, and a caller outside
/// the lock allocates larger storage ([`PendingList::storage`]) for
/// [`PendingList::move_to`]. Being a ring, it never moves its entries to make
/// room at the end either (a full queue of a million WQEs would otherwise
/// move them all for every post).
pub(crate) struct PendingList {
    v: KVVec<Pending>,
    head: usize,
    len: usize,
}

impl PendingList {
    const fn new() -> Self {
        Self {
            v: KVVec::new(),
            head: 0,
            len: 0,
        }
    }

    /// An empty list with room for `n` entries.
    fn with_room(n: usize, gfp: kernel::alloc::Flags) -> Result<Self> {
        Ok(Self {
            v: Self::storage(n, gfp)?,
            head: 0,
            len: 0,
        })
    }

    /// Storage for `n` entries, all [`Pending::Taken`]; `gfp` must allow
    /// sleeping (vmalloc).
    fn storage(n: usize, gfp: kernel::alloc::Flags) -> Result<KVVec<Pending>> {
        let mut v = KVVec::with_capacity(n, gfp)?;
        for _ in 0..n {
            v.push_within_capacity(Pending::Taken).map_err(|_| ENOMEM)?;
        }
        Ok(v)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `i` (below twice the storage's length) wrapped into the storage. A
    /// subtraction, not `%`: no division, so no panic path for a zero length.
    fn wrap(&self, i: usize) -> usize {
        i.checked_sub(self.v.len()).unwrap_or(i)
    }

    /// The storage slot of entry `i`, if there is one.
    fn slot(&self, i: usize) -> Option<usize> {
        (i < self.len).then(|| self.wrap(self.head + i))
    }

    fn front(&self) -> Option<&Pending> {
        self.get(0)
    }

    /// Entry `i` counted from the oldest.
    pub(crate) fn get(&self, i: usize) -> Option<&Pending> {
        self.v.get(self.slot(i)?)
    }

    /// Entry `i` counted from the oldest, writable.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Pending> {
        let s = self.slot(i)?;
        self.v.get_mut(s)
    }

    fn pop_front(&mut self) -> Option<Pending> {
        let s = self.slot(0)?;
        let p = core::mem::replace(self.v.get_mut(s)?, Pending::Taken);
        self.head = self.wrap(s + 1);
        self.len -= 1;
        Some(p)
    }

    /// How many more entries [`PendingList::push`] takes.
    fn room(&self) -> usize {
        self.v.len() - self.len
    }

    /// Appends; `ENOMEM` past [`PendingList::room`].
    fn push(&mut self, p: Pending) -> Result {
        *self.push_slot()? = p;
        Ok(())
    }

    /// Appends a [`Pending::Taken`] entry and returns it, for the caller to
    /// build the entry in place (a WQE moved in is a memcpy of 300 bytes);
    /// `ENOMEM` past [`PendingList::room`].
    fn push_slot(&mut self) -> Result<&mut Pending> {
        if self.room() == 0 {
            return Err(ENOMEM);
        }
        let s = self.wrap(self.head + self.len);
        let slot = self.v.get_mut(s).ok_or(ENOMEM)?;
        self.len += 1;
        Ok(slot)
    }

    /// Drops the oldest entry where it lies (no move out of the storage).
    fn drop_front(&mut self) {
        let Some(s) = self.slot(0) else { return };
        if let Some(slot) = self.v.get_mut(s) {
            *slot = Pending::Taken;
        }
        self.head = self.wrap(s + 1);
        self.len -= 1;
    }

    /// Moves the entries to `bigger` ([`PendingList::storage`], allocated
    /// outside the lock) unless it is no larger than the storage now. Returns
    /// the storage left over, to be freed after the lock is dropped.
    fn move_to(&mut self, mut bigger: KVVec<Pending>) -> KVVec<Pending> {
        if bigger.len() <= self.v.len() {
            return bigger;
        }
        for i in 0..self.len {
            let s = self.wrap(self.head + i);
            if let (Some(to), Some(from)) = (bigger.get_mut(i), self.v.get_mut(s)) {
                *to = core::mem::replace(from, Pending::Taken);
            }
        }
        self.head = 0;
        core::mem::replace(&mut self.v, bigger)
    }

    fn clear(&mut self) {
        while self.pop_front().is_some() {}
    }
}

/// Completions posted per lock hold: flushes and doorbells work in batches, so a
/// huge queue never keeps interrupts off for long, and the room is allocated
/// before the lock is taken.
const BATCH: usize = 64;

/// Completions of each kind a QP's spare room holds ([`QpState_::spare_room`]):
/// a flush needs one to go on, and it only serves when memory is short.
const SPARE_ROOM: usize = 1;

pub(crate) struct SendQueue {
    /// The user ring; `None` for kernel QPs, whose WRs arrive through `post_send`.
    ring: Option<Queue>,
    /// Where [`fetch`] copies a user WQE to parse it (empty for kernel QPs):
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
    /// the peer's receive path runs on this host's CPUs ([`doorbell`]).
    peer_on_host: bool,
    /// This queue is counted in the device's [`RrxeDevice::busy_qps`].
    counted_busy: bool,
    /// The QP was destroyed: it no longer counts as busy, though `pending` keeps
    /// its WQEs until the QP is freed.
    destroyed: bool,
}

impl SendQueue {
    /// Keeps the device's count of busy QPs true to this queue. Called, under the
    /// QP lock, after every change that can empty `pending` or make it non-empty.
    fn recount(&mut self, dev: &RrxeDevice) {
        let busy = !self.pending.is_empty() && !self.destroyed;
        if busy != self.counted_busy {
            self.counted_busy = busy;
            if busy {
                dev.busy_qps.fetch_add(1, Ordering::Relaxed);
            } else {
                dev.busy_qps.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

/// The responder's place in a multi-packet message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum InMessage {
    Send,
    Write,
}

/// A receive WQE being filled by a SEND (or consumed by a WRITE with immediate).
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
    pub(crate) last_wqe_raised: bool,
}

pub(crate) struct RecvQueue {
    pub(crate) ring: Queue,
    pub(crate) max_sge: u32,
    /// Where a receive WQE is copied to be parsed: the part of a slot a parse
    /// reads, allocated once (a zeroed buffer on the stack per receive cost a
    /// 552-byte memset).
    pub(crate) fetch_buf: KVec<u8>,
}

pub(crate) struct QpState_ {
    pub(crate) attr: QpAttr,
    pub(crate) sq: SendQueue,
    pub(crate) rq: Option<RecvQueue>,
    pub(crate) resp: RespState,
    /// The responder's answers not yet sent (RC), in order.
    pub(crate) resp_tx: crate::engine::resp_tx::TxQueue,
    /// What the responder's last atomics returned (RC), to answer repeats.
    pub(crate) atomic_replies: AtomicReplies<KVec<(u32, u64)>>,
    /// The responder's last READs (RC), to check repeats against.
    pub(crate) kept_reads: KeptReads<KVec<KeptRead>>,
    pub(crate) timers: crate::engine::recovery::Timers,
    /// Room for a completion of each kind, lent to a flush or an error report
    /// whose own allocation failed ([`with_completion_room`]): a QP moved to the
    /// error state is always flushed, and a post to a failed QP never fails
    /// with `ENOMEM` after its WQE was queued.
    spare_room: Completions,
}

/// Runs one of a QP's engines on one CPU at a time. Re-entry (loopback, or
/// another CPU) only asks the running one to look again, so no request is lost
/// and none is served twice at once.
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

/// Makes `skb`, about to go to the stack, one of the QP's packets in flight.
pub(crate) fn own_tx(inner: &Arc<QpInner>, skb: &mut kernel::net::skb::SkBuff) {
    if skb.set_tx_owner(inner.clone()).is_ok() {
        inner.tx.sent();
    }
}

impl kernel::net::skb::TxOwner for QpInner {
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

/// The driver's QP.
#[pin_data]
pub(crate) struct QpInner {
    pub(crate) qp_type: u32,
    pub(crate) pd_id: PdId,
    pub(crate) sq_sig_all: bool,
    /// The SRQ receives come from, if any.
    pub(crate) srq: Option<Arc<crate::obj::srq::SrqInner>>,
    pub(crate) qpn: u32,
    /// Unique for the device's lifetime: what a type 2 memory window is bound to.
    pub(crate) serial: u64,
    /// The route of the last packet sent ([`crate::net::xmit::xmit`]). Declared before
    /// `dev`, so it is released first: the device reference going lets its
    /// namespace go, and with it the route's `dst_ops`.
    #[pin]
    pub(crate) route: SpinLockIrq<crate::net::xmit::RouteCache>,
    /// For `send_work`, which finds the QP again through the device. It runs the
    /// requester for kernel QPs (their posts may come with interrupts off) and
    /// for user posts handed off by [`doorbell`], the loss recovery timers for
    /// all, and whichever engine used up its budget.
    dev: DeviceRef<Rrxe>,
    #[pin]
    send_work: Work<QpInner>,
    /// Runs the packets queued in `rx` ([`crate::net::recv::RxQueue`]).
    #[pin]
    recv_work: Work<QpInner, 1>,
    #[pin]
    pub(crate) rx: SpinLockIrq<crate::net::recv::RxQueue>,
    /// The receive work item owns the QP's packets: set (under `rx`'s lock) by
    /// the first packet queued and cleared when the work item finds `rx` empty.
    /// Packets for the QP queue behind it while it is set, and an expired ACK
    /// timeout is put off ([`crate::engine::recovery`]).
    pub(crate) rx_owned: AtomicBool,
    /// The loss recovery timer ([`crate::engine::recovery`]) and whether it is queued.
    #[pin]
    pub(crate) timer: HrTimer<QpInner>,
    pub(crate) timer_queued: AtomicBool,
    /// The requester ([`crate::engine::req`]) and the responder's sender
    /// ([`crate::engine::resp_tx`]): one of each runs at a time.
    pub(crate) req_runner: Runner,
    pub(crate) resp_runner: Runner,
    /// Packets sent and still in the stack.
    pub(crate) tx: TxInFlight,
    #[pin]
    pub(crate) state: SpinLockIrq<QpState_>,
}

pub(crate) type RrxeQp = Arc<QpInner>;

impl_has_work! {
    impl HasWork<Self> for QpInner { self.send_work }
    impl HasWork<Self, 1> for QpInner { self.recv_work }
}

/// Packets each engine sends per work item run. The run holds the RCU read lock
/// (it finds the QP through it), and every packet sent may run the receive
/// softirq in this context, which may send a whole run of another QP's packets.
/// With the engines' usual 256 each, one read-side section lasted over 26 s under
/// TCG with KASAN (an RCU stall report); a few packets per run keep it short,
/// and the run queues itself again for the rest.
const WORK_BUDGET: u32 = 16;

impl WorkItem for QpInner {
    type Pointer = Arc<QpInner>;

    fn run(this: Arc<QpInner>) {
        let guard = rcu::read_lock();
        // The QP may be gone, and its number reused: only run for this very QP.
        if let Some(qp) = this.dev.qp_rcu(this.qpn, &guard) {
            if core::ptr::eq(&**qp.data(), &*this) {
                crate::engine::recovery::expire(qp);
                crate::engine::req::run_some(qp, WORK_BUDGET);
                crate::engine::resp_tx::run_some(qp, WORK_BUDGET);
            }
        }
    }
}

impl WorkItem<1> for QpInner {
    type Pointer = Arc<QpInner>;

    fn run(this: Arc<QpInner>) {
        let more = {
            let guard = rcu::read_lock();
            match this.dev.qp_rcu(this.qpn, &guard) {
                // As `send_work`: only for this very QP. A destroyed QP's queued
                // packets are freed with it.
                Some(qp) if core::ptr::eq(&**qp.data(), &*this) => {
                    crate::net::recv::run_queued(qp, WORK_BUDGET)
                }
                _ => false,
            }
        };
        if more {
            defer_receive(&this);
        }
    }
}

/// Has the QP's receive work item run its queued packets, on the unbound
/// [`crate::work_queue`]: on a CPU other than the receiving one where one is free.
pub(crate) fn defer_receive(inner: &Arc<QpInner>) {
    let _ = crate::work_queue().enqueue::<_, 1>(inner.clone());
}

/// Runs the QP's timers, requester and responder's sender later, from its work
/// item. Already queued is fine: that run sees everything queued so far. The
/// queue ([`crate::work_queue`]) is unbound, as rdma_rxe's: on a per-CPU queue
/// every QP's work queued from one CPU ran there, one item after another, in
/// that CPU's one worker, so eight busy QPs used one CPU while the other idled.
pub(crate) fn defer(inner: &Arc<QpInner>) {
    defer_owned(inner.clone());
}

/// [`defer`] with a reference of the caller's. If the work item is queued
/// already, the reference is dropped here, and it was not the last one: the
/// queued item holds another.
fn defer_owned(inner: Arc<QpInner>) {
    let _ = crate::work_queue().enqueue::<_, 0>(inner);
}

/// `struct rxe_create_qp_resp`.
#[repr(C)]
struct CreateQpResp {
    rq_mi: MmapInfo,
    sq_mi: MmapInfo,
}
// SAFETY: Plain integers, no padding.
unsafe impl kernel::transmute::AsBytes for CreateQpResp {}

fn check_cap(cap: &QpCap, has_srq: bool) -> Result {
    let bad = cap.max_send_wr > params::MAX_QP_WR
        || cap.max_send_sge > params::MAX_SGE
        || cap.max_inline_data > params::MAX_INLINE_DATA
        || (!has_srq
            && (cap.max_recv_wr > params::MAX_QP_WR || cap.max_recv_sge > params::MAX_SGE));
    if bad {
        Err(EINVAL)
    } else {
        Ok(())
    }
}

fn qp_type_of(t: u32) -> Result<QpType> {
    QpType::from_raw(t).ok_or(EINVAL)
}

pub(crate) fn create(
    dev: &RrxeDevice,
    pd: &Pd<Rrxe>,
    a: &mut QpInitAttr,
    srq: Option<&Srq<Rrxe>>,
    udata: Option<&UData>,
) -> Result<(RrxeQp, u32)> {
    if let Some(u) = udata {
        if u.in_len() != 0 || u.out_len() < size_of::<CreateQpResp>() {
            return Err(EINVAL);
        }
    }
    if a.create_flags != 0 || a.has_xrc_or_rss {
        return Err(EOPNOTSUPP);
    }
    if !matches!(a.qp_type, qpt::RC | qpt::UC | qpt::UD | qpt::GSI) {
        return Err(EOPNOTSUPP);
    }
    if a.qp_type == qpt::GSI && a.port_num != 1 {
        return Err(EINVAL);
    }
    if let Some(s) = srq {
        if s.pd().data().id != pd.data().id {
            return Err(EINVAL);
        }
    }
    check_cap(&a.cap, a.has_srq)?;

    // Send queue: a slot holds max(SGEs, inline bytes) after the header, and the
    // capacities reported back are what the slot actually holds, as rxe.
    let w = (a.cap.max_send_sge as usize * wqe::SGE_SIZE).max(a.cap.max_inline_data as usize);
    let mut sq = Queue::new(a.cap.max_send_wr, wqe::SEND_WQE_HDR + w)?;
    let lim = SqLimits {
        qp_type: a.qp_type,
        max_sge: (w / wqe::SGE_SIZE) as u32,
        max_inline: w as u32,
    };
    let capacity = sq.layout().capacity();
    let mut resp = CreateQpResp {
        rq_mi: MmapInfo::default(),
        sq_mi: MmapInfo::default(),
    };
    let mut rq = None;
    if !a.has_srq {
        let mut q = Queue::new(a.cap.max_recv_wr, wqe::recv_slot_len(a.cap.max_recv_sge))?;
        if let Some(u) = udata {
            resp.rq_mi = q.publish(u)?;
        }
        a.cap.max_recv_wr = q.layout().capacity();
        let fetch_buf = KVec::from_elem(0u8, wqe::recv_slot_len(a.cap.max_recv_sge), GFP_KERNEL)?;
        rq = Some(RecvQueue {
            ring: q,
            max_sge: a.cap.max_recv_sge,
            fetch_buf,
        });
    }
    if let Some(u) = udata {
        resp.sq_mi = sq.publish(u)?;
    }
    a.cap.max_send_wr = capacity;
    a.cap.max_send_sge = lim.max_sge;
    a.cap.max_inline_data = lim.max_inline;

    let mut attr = QpAttr {
        qp_state: QpState::Reset as u32,
        path_mtu: MTU_256,
        port_num: 1,
        cap: a.cap,
        ..QpAttr::default()
    };
    if a.qp_type == qpt::GSI {
        attr.qkey = GSI_QKEY;
    }
    // Kernel QPs get all their room now, so posting never allocates the list.
    let pending = match udata {
        Some(_) => PendingList::new(),
        None => PendingList::with_room(capacity as usize, GFP_KERNEL)?,
    };
    // The largest slot: a 208-byte header and 512 bytes of SGEs or inline data,
    // rounded up.
    let fetch_buf = match udata {
        Some(_) => KVec::from_elem(0u8, 1024, GFP_KERNEL)?,
        None => KVec::new(),
    };
    let (qp_type, sq_sig_all, pd_id) = (a.qp_type, a.sq_sig_all, pd.data().id);
    // Only an RC responder answers.
    let rc = qp_type == qpt::RC;
    let resp_tx = crate::engine::resp_tx::new_queue(if rc { crate::engine::resp_tx::CAPACITY } else { 0 })?;
    // An RC responder keeps the results of as many atomics as a requester may
    // have outstanding.
    let atomic_replies = AtomicReplies::new(if rc {
        KVec::from_elem((0u32, 0u64), params::MAX_QP_RD_ATOM as usize, GFP_KERNEL)?
    } else {
        KVec::new()
    });
    // And as many READs, for the same reason.
    let kept_reads = KeptReads::new(if rc {
        KVec::from_elem(
            KeptRead::default(),
            params::MAX_QP_RD_ATOM as usize,
            GFP_KERNEL,
        )?
    } else {
        KVec::new()
    });
    let spare_room = Completions::with_capacity(SPARE_ROOM, GFP_KERNEL)?;
    let srq = srq.map(|s| s.data().clone());
    let dev_ref = pd.device().get_ref().ok_or(ENODEV)?;
    let serial = pd
        .device()
        .data()
        .next_qp_serial
        .fetch_add(1, Ordering::Relaxed);
    let rx = crate::net::recv::RxQueue::new();
    let make = |qpn: u32| {
        Arc::pin_init(
            pin_init!(QpInner {
                qp_type,
                pd_id,
                sq_sig_all,
                srq,
                qpn,
                serial,
                dev: dev_ref,
                send_work <- new_work!("rrxe_qp_send"),
                recv_work <- new_work!("rrxe_qp_recv"),
                rx <- new_spinlock_irq!(rx),
                rx_owned: AtomicBool::new(false),
                timer <- HrTimer::new(),
                timer_queued: AtomicBool::new(false),
                req_runner: Runner::new(),
                resp_runner: Runner::new(),
                tx: TxInFlight::new(),
                route <- new_spinlock_irq!(crate::net::xmit::RouteCache::default()),
                state <- new_spinlock_irq!(QpState_ {
                    attr,
                    sq: SendQueue {
                        ring: udata.is_some().then_some(sq),
                        fetch_buf,
                        lim,
                        capacity,
                        pending,
                        psn: 0,
                        req_idx: 0,
                        req_off: 0,
                        comp_psn: 0,
                        sent_psn: 0,
                        noack: 0,
                        rd_outstanding: 0,
                        window: SendWindow::new(),
                        read_ahead: ReadAhead::new(),
                        probe_oldest: false,
                        peer_on_host: false,
                        counted_busy: false,
                        destroyed: false,
                    },
                    rq,
                    resp: RespState::default(),
                    resp_tx,
                    atomic_replies,
                    kept_reads,
                    timers: Default::default(),
                    spare_room,
                }),
            }),
            GFP_KERNEL,
        )
    };
    let (qpn, qp) = if a.qp_type == qpt::GSI {
        let qp = make(1)?;
        dev.qps.insert_at(1, qp.clone())?;
        (1, qp)
    } else {
        dev.qps.insert_with(GFP_KERNEL, make)?
    };
    if let Some(u) = udata {
        if let Err(e) = u.respond(&resp) {
            dev.qps.remove(qpn);
            return Err(e);
        }
    }
    Ok((qp, qpn))
}

/// Completions gathered under the QP lock and pushed to the CQs under it, in the
/// order taken ([`cq::push`]); the consumers are notified after it is dropped
/// ([`Pushed::finish`]), as a completion handler may call back into the QP.
struct Completions {
    send: KVec<Wc>,
    recv: KVec<Wc>,
}

impl Completions {
    /// Room for `n` of each kind.
    fn with_capacity(n: usize, gfp: kernel::alloc::Flags) -> Result<Self> {
        Ok(Self {
            send: KVec::with_capacity(n, gfp)?,
            recv: KVec::with_capacity(n, gfp)?,
        })
    }

    /// Room for a batch, or none if that allocation fails: [`with_completion_room`]
    /// then lends the QP's spare room. For error paths, which must not give up.
    fn new_or_none(gfp: kernel::alloc::Flags) -> Self {
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
    fn push(&mut self, qp: &Qp<Rrxe>, _locked: &QpState_) -> Pushed {
        let mut p = Pushed::default();
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
fn with_completion_room<R>(
    st: &mut QpState_,
    out: &mut Completions,
    f: impl FnOnce(&mut QpState_, &mut Completions) -> R,
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
struct Pushed {
    send: cq::Pushed,
    recv: cq::Pushed,
}

impl Pushed {
    fn finish(self, qp: &Qp<Rrxe>) {
        self.send.finish(qp.send_cq());
        self.recv.finish(qp.recv_cq());
    }
}

pub(crate) fn wc(qp: &Qp<Rrxe>, wr_id: u64, status: u32, opcode: u32) -> Wc {
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

fn wc_opcode(wr_opcode: u32) -> u32 {
    use crate::obj::wqe::op;
    match wr_opcode {
        op::RDMA_WRITE | op::RDMA_WRITE_WITH_IMM => 1,
        op::RDMA_READ => 2,
        op::ATOMIC_CMP_AND_SWP => 3,
        op::ATOMIC_FETCH_AND_ADD => 4,
        op::BIND_MW => 5,
        op::LOCAL_INV => 6,
        op::FLUSH => 8,
        op::ATOMIC_WRITE => 9,
        // IB_WC_REG_MR follows IB_WC_ATOMIC_WRITE (there is no uverbs number).
        op::REG_MR => 10,
        _ => 0,
    }
}

pub(crate) fn cur_state(st: &QpState_) -> QpState {
    QpState::from_raw(st.attr.qp_state).unwrap_or(QpState::Err)
}

/// The QP's path MTU in bytes (256 if the attribute holds no valid code).
pub(crate) fn path_mtu_bytes(st: &QpState_) -> u32 {
    psn::ib_mtu_bytes(st.attr.path_mtu as u8).unwrap_or(256)
}

/// Completes the oldest send WQE: publishes the ring slot for user QPs and returns
/// its completion if it is to be reported (signaled or failed).
fn take_completion(qp: &Qp<Rrxe>, sig_all: bool, st: &mut QpState_, status: u32) -> Option<Wc> {
    // Read in place and dropped there: a WQE moved out is a memcpy.
    let oldest = st.sq.pending.front().map(|p| match p {
        Pending::Wqe(w) => Some((
            w.wr_id,
            wc_opcode(w.opcode),
            w.flags & wqe::flag::SIGNALED != 0,
            w.length,
            w.sent_all.then(|| psn_add(w.last_psn, 1)),
        )),
        Pending::Bad { wr_id, .. } => Some((*wr_id, 0, true, 0, None)),
        Pending::Taken => None,
    });
    if oldest.is_some() {
        st.sq.pending.drop_front();
    }
    st.sq.recount(qp.device().data());
    let (wr_id, opcode, signaled, len, end) = oldest??;
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
    if !(signaled || sig_all || status != cq::WC_SUCCESS) {
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
    st: &mut QpState_,
    status: u32,
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
    st: &mut QpState_,
    out: &mut Completions,
    budget: &mut FlushBudget,
) -> bool {
    while !st.sq.pending.is_empty() {
        if !out.room() {
            return true;
        }
        complete_send(qp, sig_all, st, WC_WR_FLUSH_ERR, out);
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
                wc(qp, u64::from_ne_bytes(id), WC_WR_FLUSH_ERR, 0),
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
            Completions::add(&mut out.recv, wc(qp, rp.wr_id, WC_WR_FLUSH_ERR, WC_RECV));
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
                wc(qp, u64::from_ne_bytes(id), WC_WR_FLUSH_ERR, WC_RECV),
            );
        }
    }
    false
}

/// Flushes a QP in the error state, batch by batch, dropping the lock in between.
/// A QP on an SRQ then raises `QP_LAST_WQE_REACHED`, once per error state, as rxe
/// does: `ib_drain_qp` waits for it (60 s without), and IBA 10.3.1 tells
/// consumers to wait for it before destroying the QP.
fn flush(qp: &Qp<Rrxe>, out: &mut Completions) {
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
            qp.raise(event::QP_LAST_WQE_REACHED);
        }
        if !more {
            break;
        }
    }
}

/// Reports a refused WQE that reached the head of the send queue and moves the QP
/// to the error state. Returns whether it did; the caller then flushes.
fn progress(qp: &Qp<Rrxe>, sig_all: bool, st: &mut QpState_, out: &mut Completions) -> bool {
    if let Some(Pending::Bad { why, .. }) = st.sq.pending.front() {
        if !out.room() {
            return false;
        }
        pr_debug!("qp {}: send WQE refused: {:?}\n", qp.qp_num(), why);
        let status = match why {
            Bad::Protection => WC_LOC_PROT_ERR,
            Bad::Bind => WC_MW_BIND_ERR,
            _ => WC_LOC_QP_OP_ERR,
        };
        complete_send(qp, sig_all, st, status, out);
        st.attr.qp_state = QpState::Err as u32;
        return true;
    }
    false
}

/// Values of the `post_handoff` module parameter: which user posts the doorbell
/// hands to the QP's work item instead of sending them itself.
pub(crate) mod handoff {
    /// None: every post is sent from the doorbell syscall.
    pub(crate) const NEVER: u32 = 0;
    /// Posts behind unfinished WQEs whose messages fit in one packet.
    pub(crate) const SMALL: u32 = 1;
    /// Posts behind unfinished WQEs, of any size.
    pub(crate) const ANY: u32 = 2;
    /// The default (and values past it): as [`ANY`], but SENDs of at most
    /// [`super::LOCAL_SEND_MAX_PACKETS`] packets to an rrxe device on this host
    /// are sent from the doorbell while no other QP of the device is busy.
    pub(crate) const ANY_BUT_LONE_LOCAL_SENDS: u32 = 3;
}

/// The longest SEND, in packets of the path MTU, that [`doorbell`] sends itself
/// to a local peer. A stream of longer ones is sent from the QP's work item: a
/// 64 KiB stream then ran its kernel work on one vCPU and the two polling
/// processes on the other, as rdma_rxe's does; sent from the poster's system
/// call, the work fell on both vCPUs between the processes, and the stream
/// went 20 % slower (Documentation/design.rst).
const LOCAL_SEND_MAX_PACKETS: u32 = 8;

/// The user doorbell: takes the new WQEs into kernel memory and sends them, from
/// here or from the QP's work item.
///
/// Sent from here, a post on a veth or loopback path runs the whole round trip in
/// this syscall, on this CPU: the packet, the peer's responder in the receive
/// softirq, its ACK and this side's completer. For one message in flight that is
/// the fastest way (a ping-pong never waits for a worker to wake). A stream of
/// messages, though, is then bound by one CPU doing the user's loop and all of
/// the driver's work, and so is every QP the user posts to. So a post that finds
/// earlier WQEs not yet finished (a stream, not a ping-pong) is handed to the
/// work item on an unbound queue, which another CPU runs while this one returns
/// to the user; if the requester already runs elsewhere, it is only told to look
/// again. By default this holds for messages of any size: over 8 QPs the work
/// items of different QPs then run on different CPUs (Documentation/design.rst).
/// Unsignaled READs, atomics and FLUSHes are handed over even on an idle QP
/// ([`FetchedPosts::unsignaled_reads`]).
///
/// One stream is the exception: SENDs of a few packets to an rrxe device on this
/// host, while no other QP of the device has WQEs unfinished. Its receiver is a user process
/// on this host too, busy polling and posting receives, so a work item would
/// be a third runnable task on two CPUs, and it gets the SEND, its receive and
/// the ACK done in one share of three. Sent from here, they use the poster's
/// own share. (A WRITE stream's receiver is idle; a peer elsewhere does its
/// receiving on its own CPUs; with two QPs busy, their work items run in
/// parallel; a long SEND's packets keep a worker busy, and the work item's
/// ACK-clocked sending leaves both polling processes the other CPU.)
pub(crate) fn doorbell(dev: &RrxeDevice, qp: &Qp<Rrxe>) -> Result {
    let posts = fetch(dev, qp)?;
    let inner = qp.data();
    let hand_off = (posts.behind_others || posts.unsignaled_reads)
        && match crate::post_handoff() {
            handoff::NEVER => false,
            handoff::SMALL => posts.one_packet_each,
            handoff::ANY => true,
            handoff::ANY_BUT_LONE_LOCAL_SENDS.. => {
                !(posts.sends_only && posts.peer_on_host && !posts.long_message)
                    || dev.busy_qps.load(Ordering::Relaxed) > 1
            }
        };
    if hand_off && !inner.req_runner.is_running() {
        dev.stats.inc(crate::stats::Counter::PostHandoffs);
        defer(inner);
    } else {
        crate::engine::req::run(qp);
    }
    Ok(())
}

/// What one doorbell's [`fetch`] took.
#[derive(Clone, Copy, Default)]
struct FetchedPosts {
    /// Earlier WQEs were still queued (unsent or unacknowledged).
    behind_others: bool,
    /// WQEs were taken, each unsignaled and answered by a response (a READ, an
    /// atomic, a FLUSH). Sent from here over a veth to an rrxe responder, a READ
    /// ran the peer's responder inside the syscall, and one answered in one
    /// packet its whole round trip, so the next post found nothing unfinished
    /// and a stream of them ran as a ping-pong on the user's CPU. A user who
    /// waits for a READ signals it: a ping-pong is still sent from here.
    unsignaled_reads: bool,
    /// Every new WQE's message fits in one packet of the path MTU.
    one_packet_each: bool,
    /// Every new WQE is a SEND.
    sends_only: bool,
    /// A new WQE's message takes more than [`LOCAL_SEND_MAX_PACKETS`] packets.
    long_message: bool,
    /// The QP's peer is an rrxe device on this host ([`SendQueue::peer_on_host`]).
    peer_on_host: bool,
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
            // `WC_WR_FLUSH_ERR`: an ACK decided before another CPU failed the
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
            take_completion(qp, inner.sq_sig_all, &mut st, cq::WC_SUCCESS)
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
pub(crate) fn fail_front(qp: &Qp<Rrxe>, status: u32) {
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
            st.attr.qp_state = QpState::Err as u32;
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
    qp.data().state.lock().attr.qp_state = QpState::Err as u32;
    flush(qp, &mut Completions::new_or_none(GFP_ATOMIC));
}

/// Takes the new WQEs of a user send queue into kernel memory, each copied once,
/// in batches.
///
/// This runs for every user post, so the common case allocates nothing: the copy
/// goes to the QP's own buffer, and only an error (a refused WQE at the head, or a
/// QP in the error state) gathers completions.
fn fetch(dev: &RrxeDevice, qp: &Qp<Rrxe>) -> Result<FetchedPosts> {
    let inner = qp.data();
    let mut first = true;
    let mut posts = FetchedPosts {
        behind_others: false,
        unsignaled_reads: !inner.sq_sig_all,
        one_packet_each: true,
        sends_only: true,
        long_message: false,
        peer_on_host: false,
    };
    let mut taken = false;
    loop {
        let next = {
            let mut st = inner.state.lock();
            match cur_state(&st) {
                // Not yet able to send: the post fails, as in rxe. Only before any
                // WQE was taken: a reset racing a later batch is not the post's error.
                QpState::Reset | QpState::Init | QpState::Rtr if first => return Err(EINVAL),
                QpState::Reset | QpState::Init | QpState::Rtr => {
                    posts.unsignaled_reads &= taken;
                    return Ok(posts);
                }
                QpState::Err => Fetched::Flush,
                _ => {
                    let pd_id = inner.pd_id;
                    let mtu = path_mtu_bytes(&st);
                    let sq = &mut st.sq;
                    let Some(ring) = sq.ring.as_ref() else {
                        return Err(EINVAL);
                    };
                    let elem = ring.layout().elem_size().min(sq.fetch_buf.len());
                    let slot = &mut sq.fetch_buf[..elem];
                    // Only slots beyond the ones already fetched are new.
                    let posted = ring.posted_count() as usize;
                    let from = sq.pending.len();
                    posts.behind_others |= first && from > 0;
                    // A producer index moved back (only a hostile user's)
                    // posts nothing.
                    let to = posted.max(from).min(from + BATCH);
                    if sq.pending.room() < to - from {
                        // Twice the storage (a growing queue allocates a few
                        // times only), within the SQ's size, for all posted.
                        let twice = (2 * sq.pending.v.len()).max(BATCH);
                        Fetched::Grow(twice.min(sq.capacity as usize).max(posted))
                    } else {
                        let mut take = || -> Result {
                            for k in from..to {
                                ring.read_posted(k as u32, slot)?;
                                // Parsed where it stays: a WQE moved is a memcpy.
                                let p = sq.pending.push_slot()?;
                                wqe::parse_user_send_into(slot, &sq.lim, p);
                                if let Pending::Wqe(w) = p {
                                    if let Err(why) = check_dest(dev, pd_id, w) {
                                        let wr_id = w.wr_id;
                                        *p = Pending::Bad { wr_id, why };
                                    }
                                }
                                if let Pending::Wqe(w) = p {
                                    posts.one_packet_each &= w.length <= mtu;
                                    posts.long_message |= w.length > LOCAL_SEND_MAX_PACKETS * mtu;
                                    posts.unsignaled_reads &= crate::engine::req::needs_response(w)
                                        && w.flags & wqe::flag::SIGNALED == 0;
                                    posts.sends_only &= wqe::is_send(w.opcode);
                                    taken = true;
                                } else {
                                    // Its error completion is reported whatever its flags.
                                    posts.unsignaled_reads = false;
                                }
                            }
                            Ok(())
                        };
                        let took = take();
                        // Also when a read failed after some WQEs were taken.
                        sq.recount(dev);
                        took?;
                        posts.peer_on_host = sq.peer_on_host;
                        if matches!(sq.pending.front(), Some(Pending::Bad { .. })) {
                            Fetched::BadHead
                        } else if to < posted {
                            Fetched::More
                        } else {
                            Fetched::All
                        }
                    }
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
                posts.unsignaled_reads &= taken;
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
        st.sq.recount(qp.device().data());
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
        let mut buf = [0u8; wqe::RECV_WQE_HDR + wqe::SGE_SIZE * params::MAX_SGE as usize];
        let n = wqe::RECV_WQE_HDR + wr.sgl.len() * wqe::SGE_SIZE;
        wqe::encode_recv(wr.wr_id, wr.sgl, &mut buf[..n])?;
        rq.ring.post(&buf[..n])?;
        err
    };
    if err {
        flush(qp, &mut Completions::new_or_none(GFP_ATOMIC));
    }
    Ok(())
}

pub(crate) fn modify(qp: &Qp<Rrxe>, a: &QpAttr, mask: u32, max_mtu: u32) -> Result {
    use qp_state::attr as m;
    if mask & !m::STANDARD_BITS != 0 {
        return Err(EOPNOTSUPP);
    }
    let inner = qp.data();
    let ty = qp_type_of(inner.qp_type)?;
    // Before the QP's lock: this takes the device list's mutex.
    let peer_on_host = (mask & m::AV != 0).then(|| crate::obj::device::gid_is_on_host(&a.ah_attr.dgid));
    let new_state_is_err = {
        let mut st = inner.state.lock();
        // The state the caller believes the QP in chooses the transition
        // checked, as in rxe: the MAD layer recovers QP1 from a send error with
        // SQE -> RTS, and a datagram QP's send error puts it in ERR here.
        let cur = if mask & m::CUR_STATE != 0 {
            QpState::from_raw(a.cur_qp_state).ok_or(EINVAL)?
        } else {
            cur_state(&st)
        };
        // With no new state the QP stays in the one it is in. Staying in the
        // one claimed, a QP in RESET said to be in RTS became RTS without INIT
        // and RTR; now that is RTS -> RESET with an attribute it does not take.
        let new = if mask & m::STATE != 0 {
            QpState::from_raw(a.qp_state).ok_or(EINVAL)?
        } else {
            cur_state(&st)
        };
        if !qp_state::modify_is_ok(cur, new, ty, mask) {
            return Err(EINVAL);
        }
        if mask & m::PORT != 0 && a.port_num != 1 {
            return Err(EINVAL);
        }
        if mask & m::CAP != 0 {
            check_cap(&a.cap, st.rq.is_none())?;
        }
        if mask & m::AV != 0 && !matches!(a.ah_attr.network_type, 2 | 3) {
            return Err(EINVAL);
        }
        if mask & m::PATH_MTU != 0 && (a.path_mtu == 0 || a.path_mtu > max_mtu) {
            return Err(EINVAL);
        }
        if mask & m::MAX_QP_RD_ATOMIC != 0 && u32::from(a.max_rd_atomic) > params::MAX_QP_RD_ATOM {
            return Err(EINVAL);
        }
        if mask & m::MAX_DEST_RD_ATOMIC != 0
            && u32::from(a.max_dest_rd_atomic) > params::MAX_QP_RD_ATOM
        {
            return Err(EINVAL);
        }
        if mask & m::TIMEOUT != 0 && a.timeout > MAX_TIMEOUT {
            return Err(EINVAL);
        }
        let s = &mut st.attr;
        if mask & m::ACCESS_FLAGS != 0 {
            s.qp_access_flags = a.qp_access_flags;
        }
        if mask & m::PKEY_INDEX != 0 {
            s.pkey_index = a.pkey_index;
        }
        if mask & m::QKEY != 0 {
            s.qkey = a.qkey;
        }
        if mask & m::AV != 0 {
            s.ah_attr = a.ah_attr;
        }
        if mask & m::PATH_MTU != 0 {
            s.path_mtu = a.path_mtu;
        }
        if mask & m::TIMEOUT != 0 {
            s.timeout = a.timeout;
        }
        if mask & m::RETRY_CNT != 0 {
            s.retry_cnt = a.retry_cnt & 7;
        }
        if mask & m::RNR_RETRY != 0 {
            s.rnr_retry = a.rnr_retry & 7;
        }

        if mask & m::RQ_PSN != 0 {
            s.rq_psn = a.rq_psn & 0x00ff_ffff;
        }
        if mask & m::MAX_QP_RD_ATOMIC != 0 {
            s.max_rd_atomic = a.max_rd_atomic;
        }
        if mask & m::MIN_RNR_TIMER != 0 {
            s.min_rnr_timer = a.min_rnr_timer & 0x1f;
        }
        if mask & m::SQ_PSN != 0 {
            s.sq_psn = a.sq_psn & 0x00ff_ffff;
        }
        if mask & m::MAX_DEST_RD_ATOMIC != 0 {
            s.max_dest_rd_atomic = a.max_dest_rd_atomic;
        }
        if mask & m::PATH_MIG_STATE != 0 {
            s.path_mig_state = a.path_mig_state;
        }
        if mask & m::DEST_QPN != 0 {
            s.dest_qp_num = a.dest_qp_num & 0x00ff_ffff;
        }
        if mask & m::EN_SQD_ASYNC_NOTIFY != 0 {
            s.en_sqd_async_notify = a.en_sqd_async_notify;
        }
        s.qp_state = new as u32;
        if let Some(on_host) = peer_on_host {
            st.sq.peer_on_host = on_host;
        }
        if mask & (m::RETRY_CNT | m::RNR_RETRY) != 0 {
            crate::engine::recovery::reset_retries(&mut st);
        }
        if mask & m::SQ_PSN != 0 {
            st.timers.stop_timing();
            st.sq.probe_oldest = false;
            st.sq.psn = st.attr.sq_psn;
            st.sq.comp_psn = st.attr.sq_psn;
            st.sq.sent_psn = st.attr.sq_psn;
            st.sq.read_ahead.clear();
        }
        if mask & m::RQ_PSN != 0 {
            st.resp.psn = st.attr.rq_psn;
        }
        if new == QpState::Reset {
            // Back to a clean QP: fetched WQEs are dropped without completions.
            st.sq.pending.clear();
            st.sq.recount(qp.device().data());
            st.sq.probe_oldest = false;
            st.sq.req_idx = 0;
            st.sq.req_off = 0;
            st.sq.noack = 0;
            st.sq.rd_outstanding = 0;
            st.sq.window = SendWindow::new();
            st.sq.read_ahead.clear();
            st.resp = RespState::default();
            st.resp_tx.clear();
            st.atomic_replies.clear();
            st.kept_reads.clear();
            st.timers.forget();
        }
        new == QpState::Err
    };
    if new_state_is_err {
        flush(qp, &mut Completions::new_or_none(GFP_KERNEL));
    }
    Ok(())
}

pub(crate) fn query(qp: &Qp<Rrxe>, a: &mut QpAttr, init: &mut QpInitAttr) -> Result {
    let inner = qp.data();
    let st = inner.state.lock();
    *a = st.attr;
    a.cur_qp_state = a.qp_state;
    a.sq_draining = u8::from(a.qp_state == QpState::Sqd as u32);
    a.cap.max_send_wr = st.sq.capacity;
    a.cap.max_send_sge = st.sq.lim.max_sge;
    a.cap.max_inline_data = st.sq.lim.max_inline;
    match &st.rq {
        Some(rq) => {
            a.cap.max_recv_wr = rq.ring.layout().capacity();
            a.cap.max_recv_sge = rq.max_sge;
        }
        None => {
            a.cap.max_recv_wr = 0;
            a.cap.max_recv_sge = 0;
        }
    }
    init.cap = a.cap;
    init.sq_sig_all = inner.sq_sig_all;
    Ok(())
}

/// The transport state of a QP for `rdma resource show qp -dd`, so a stalled
/// QP can be looked at from user space: where the requester is, what it waits
/// for, and what the responder expects.
pub(crate) fn details(qp: &Qp<Rrxe>, out: &mut DriverDetails<'_>) -> Result {
    let inner = qp.data();
    let rx_queued = inner.rx.lock().len() as u32;
    // Taken under the lock, written to the message after it: (name, value, hex).
    let (entries, head) = {
        let st = inner.state.lock();
        let sq = &st.sq;
        let (retry_left, rnr_left, ack_wait, resending) =
            st.timers.details(sq.sent_psn != sq.comp_psn);
        let (ack_timeout_us, answer_time_us) = crate::engine::recovery::ack_timeout_details(&st);
        (
            [
                (c"sq_psn", sq.psn, true),
                (c"unacked_psn", sq.comp_psn, true),
                (c"sent_psn", sq.sent_psn, true),
                (c"rq_psn", st.resp.psn, true),
                (c"send_pending", sq.pending.len() as u32, false),
                (c"send_index", sq.req_idx as u32, false),
                (c"rd_atomic_out", sq.rd_outstanding, false),
                (c"send_window", sq.window.size(), false),
                (c"retry_left", retry_left.into(), false),
                (c"rnr_retry_left", rnr_left.into(), false),
                (c"ack_wait", ack_wait.into(), false),
                (c"resending", resending.into(), false),
                (c"ack_timeout_us", ack_timeout_us, false),
                (c"answer_time_us", answer_time_us, false),
                (c"msn", st.resp.msn, false),
                (c"answers_queued", st.resp_tx.len() as u32, false),
                (c"rx_queued", rx_queued, false),
                (c"tx_in_flight", inner.tx.count(), false),
            ],
            head_details(sq.pending.get(0)),
        )
    };
    let head = head.map(|(opcode, first, last, state)| {
        [
            (c"head_opcode", opcode, false),
            (c"head_first_psn", first, true),
            (c"head_last_psn", last, true),
            (c"head_state", state, true),
        ]
    });
    for (name, value, hex) in Iterator::chain(entries.into_iter(), head.into_iter().flatten()) {
        if hex {
            out.u32_hex(name, value)?;
        } else {
            out.u32(name, value)?;
        }
    }
    Ok(())
}

/// The oldest send WQE for [`details`]: its `IB_WR_*` opcode, first and last
/// PSN, and state bits (1 started, 2 all sent, 4 answered, 8 refused).
fn head_details(p: Option<&Pending>) -> Option<(u32, u32, u32, u32)> {
    match p? {
        Pending::Wqe(w) => Some((
            w.opcode,
            w.first_psn,
            w.last_psn,
            u32::from(w.started) | u32::from(w.sent_all) << 1 | u32::from(w.answered) << 2,
        )),
        Pending::Bad { .. } => Some((0, 0, 0, 8)),
        Pending::Taken => None,
    }
}

pub(crate) fn destroy(dev: &RrxeDevice, qp: &Qp<Rrxe>) -> Result {
    // Breaks the timer's reference to the QP; a queued work item finds it gone.
    crate::engine::recovery::shut_down(qp.data());
    // A queued work item can still hold the QP, and drop it last, after the user
    // context is gone; the rings' mmap entries belong to that context, so they
    // are freed now (outside the lock: it may sleep). Nothing uses them after
    // this: the QP is unpublished.
    let rings = {
        let mut st = qp.data().state.lock();
        st.sq.destroyed = true;
        st.sq.recount(dev);
        (st.sq.ring.take(), st.rq.take())
    };
    drop(rings);
    dev.qps.remove(qp.qp_num());
    Ok(())
}

#[kernel::macros::kunit_tests(rrxe_pending)]
mod tests {
    use super::*;

    fn entry(wr_id: u64) -> Pending {
        Pending::Bad {
            wr_id,
            why: Bad::Opcode,
        }
    }

    /// The wr_ids of the entries, oldest first (`u64::MAX` for a non-`Bad` one).
    fn ids(l: &PendingList) -> KVec<u64> {
        let mut out = KVec::new();
        for i in 0..l.len() {
            let id = match l.get(i) {
                Some(Pending::Bad { wr_id, .. }) => *wr_id,
                _ => u64::MAX,
            };
            out.push(id, GFP_KERNEL).unwrap();
        }
        out
    }

    fn list(n: usize) -> PendingList {
        PendingList::with_room(n, GFP_KERNEL).unwrap()
    }

    #[test]
    fn push_fails_when_full_and_wraps_around_after_a_pop() {
        let mut l = list(3);
        // Empty storage takes nothing.
        assert!(PendingList::new().push(entry(9)).is_err());
        for i in 0..3 {
            l.push(entry(i)).unwrap();
        }
        assert_eq!(l.room(), 0);
        // Full: refused, not grown (it may run under the QP lock).
        assert!(l.push(entry(99)).is_err());
        assert_eq!(l.v.len(), 3);
        assert!(matches!(l.pop_front(), Some(Pending::Bad { wr_id: 0, .. })));
        assert_eq!(l.room(), 1);
        // The new entry goes to the slot the popped one left, at the start.
        l.push(entry(100)).unwrap();
        assert_eq!(&ids(&l)[..], &[1, 2, 100]);
        assert!(matches!(
            l.get_mut(2),
            Some(Pending::Bad { wr_id: 100, .. })
        ));
        assert!(l.get(3).is_none());
        l.clear();
        assert!(l.is_empty() && l.front().is_none());
        l.push(entry(7)).unwrap();
        assert_eq!(&ids(&l)[..], &[7]);
    }

    #[test]
    fn entries_are_built_and_dropped_in_place() {
        let mut l = list(2);
        // A slot handed out counts as an entry and starts out taken.
        let slot = l.push_slot().unwrap();
        assert!(matches!(slot, Pending::Taken));
        *slot = entry(1);
        *l.push_slot().unwrap() = entry(2);
        assert!(l.push_slot().is_err());
        assert_eq!(&ids(&l)[..], &[1, 2]);
        l.drop_front();
        assert_eq!(&ids(&l)[..], &[2]);
        // The dropped entry's slot is empty again and takes the next push.
        assert!(matches!(l.v.first(), Some(Pending::Taken)));
        *l.push_slot().unwrap() = entry(3);
        assert_eq!(&ids(&l)[..], &[2, 3]);
        l.drop_front();
        l.drop_front();
        assert!(l.is_empty());
        // Dropping from an empty list does nothing.
        l.drop_front();
        assert!(l.is_empty() && l.room() == 2);
    }

    #[test]
    fn move_to_keeps_the_order_and_refuses_storage_no_larger() {
        let mut l = list(4);
        for i in 0..4 {
            l.push(entry(i)).unwrap();
        }
        l.pop_front();
        l.pop_front();
        l.push(entry(4)).unwrap();
        // Now wrapped: 2, 3 at the end of the storage and 4 at its start.
        assert_eq!(&ids(&l)[..], &[2, 3, 4]);
        // No larger than the storage now: handed back, nothing moved.
        let same = l.move_to(PendingList::storage(4, GFP_KERNEL).unwrap());
        assert_eq!(same.len(), 4);
        assert_eq!(&ids(&l)[..], &[2, 3, 4]);
        let old = l.move_to(PendingList::storage(8, GFP_KERNEL).unwrap());
        // The old storage comes back, every slot emptied.
        assert_eq!(old.len(), 4);
        assert!(old.iter().all(|p| matches!(p, Pending::Taken)));
        assert_eq!(l.room(), 5);
        assert_eq!(&ids(&l)[..], &[2, 3, 4]);
        l.push(entry(5)).unwrap();
        assert_eq!(&ids(&l)[..], &[2, 3, 4, 5]);
    }
}
