// SPDX-License-Identifier: GPL-2.0

//! loom models of the doorbell handshake (`uapi/rdma/rdma_user_rrxe.h`).
//!
//! The kernel's side is the shipped code, `proto::doorbell` ([`SqWatch`] and
//! [`cq_arm_take`]), over loom atomics; the provider's two sequences are
//! transcribed from the header. loom treats `SeqCst` loads and stores as
//! `AcqRel`, so every access here is `Relaxed`, `Release` or `Acquire`, and the
//! only `SeqCst` is `fence(SeqCst)`, standing for `smp_mb()` and
//! `atomic_thread_fence(memory_order_seq_cst)`.
//!
//! Run with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test doorbell_loom
//! ```
//!
//! `make test` uses `LOOM_MAX_PREEMPTIONS=2`, `make soak` 3; unset, the bound
//! is [`DEFAULT_PREEMPTIONS`]. Each model also checks that the races it is
//! about happen in some execution (`must_see`): at 1 preemption the re-arming
//! CQ model misses its "slept after arming again", so 2 is the least bound
//! that passes. The negative controls (`*_without_*`) find their lost wake-up
//! at any bound, 0 included: the stale read that loses it is loom's memory
//! model, not a preemption. Measured on 2 cores, release build: 0.6 s for the
//! whole file at 2, 5 s at 3, 45 s at 4.
//!
//! The models, each with at most 3 WQEs and a loom `Mutex` as the QP lock:
//!
//! - (a) [`recheck`]: the provider posts while acknowledgements of work in
//!   flight run the requester, which re-checks at idle, arms while WQEs are
//!   pending and disarms (with the re-read) when none are.
//! - (b) [`poller`]: a poller probes the ring a bounded number of times, then
//!   disarms (need-wakeup).
//! - (c) [`error_race`]: the QP moves to ERR and flushes (disarm, then the
//!   snapshot) while the provider posts and acknowledgements run.
//! - (d) [`cq_arm`]: the provider arms its CQ and polls; the kernel publishes
//!   completions and takes the arm.
//! - Negative controls: (a) and (d) without the provider's fence, (a) and (b)
//!   with a disarm that has no fence, (d) with a `cq_arm_take` whose fence is
//!   gone. Each must fail with a lost wake-up, which proves the models can see
//!   one.
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering as StdOrdering};
use std::sync::Mutex as StdMutex;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{
    fence, AtomicU32,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};
use loom::sync::{Arc, Mutex};
use loom::thread;
use rrxe_proto::doorbell::{
    cq_arm_take, CqWords, SqWatch, SqWords, CQ_ARM_NEXT, CQ_ARM_SOLICITED, SQ_POLLED, SQ_WATCHED,
};

/// The preemption bound when `LOOM_MAX_PREEMPTIONS` is not set.
const DEFAULT_PREEMPTIONS: usize = 2;

/// Slots of the modelled send queue (and at most that many WQEs per model:
/// the ring never wraps, so each slot is written once).
const SLOTS: usize = 3;

/// Executions explored by the running [`check`], for the log.
static EXECUTIONS: AtomicUsize = AtomicUsize::new(0);

/// The outcomes [`saw`] recorded in the running [`check`]'s executions.
static SEEN: StdMutex<Vec<&'static str>> = StdMutex::new(Vec::new());

/// Serialises [`check`]s: the test harness runs tests on several threads, and
/// [`EXECUTIONS`] and [`SEEN`] belong to one model at a time.
static ONE_MODEL: StdMutex<()> = StdMutex::new(());

/// Records that some execution reached `what` (outside loom's view).
fn saw(what: &'static str) {
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.contains(&what) {
        seen.push(what);
    }
}

/// Runs `f` under loom with the environment's bound or [`DEFAULT_PREEMPTIONS`],
/// then checks that some execution reached each outcome of `must_see`: the
/// models are not vacuous (the races they are about happen in them).
/// `LOOM_MAX_DURATION` and `LOOM_MAX_PERMUTATIONS` are ignored: they would end
/// the exploration early and still pass.
fn check(name: &str, must_see: &[&str], f: impl Fn() + Sync + Send + 'static) {
    let _one = ONE_MODEL.lock().unwrap_or_else(|e| e.into_inner());
    let mut b = loom::model::Builder::new();
    b.preemption_bound = b.preemption_bound.or(Some(DEFAULT_PREEMPTIONS));
    b.max_duration = None;
    b.max_permutations = None;
    EXECUTIONS.store(0, StdOrdering::Relaxed);
    SEEN.lock().unwrap_or_else(|e| e.into_inner()).clear();
    let start = std::time::Instant::now();
    b.check(move || {
        EXECUTIONS.fetch_add(1, StdOrdering::Relaxed);
        f()
    });
    let seen = SEEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    eprintln!(
        "{name}: {} executions in {:.2?} (preemption bound {}); seen: {}",
        EXECUTIONS.load(StdOrdering::Relaxed),
        start.elapsed(),
        b.preemption_bound.unwrap(),
        seen.join(", ")
    );
    for what in must_see {
        assert!(seen.contains(what), "{name}: no execution where {what}");
    }
}

/// What the provider writes into WQE `i`.
fn payload(i: u32) -> u32 {
    0xdb00 + i
}

// --- the send queue ------------------------------------------------------------

/// The shared part of a send queue: its ring header's producer index and
/// `sq_flags`, and the WQE slots.
struct SqRing {
    producer: AtomicU32,
    flags: AtomicU32,
    slots: [UnsafeCell<u32>; SLOTS],
}

impl SqRing {
    fn new() -> Self {
        SqRing {
            producer: AtomicU32::new(0),
            flags: AtomicU32::new(0),
            slots: std::array::from_fn(|_| UnsafeCell::new(0)),
        }
    }
}

/// The kernel's accesses, as `Ring` makes them in the driver.
impl SqWords for SqRing {
    fn producer_acquire(&self) -> u32 {
        self.producer.load(Acquire)
    }

    fn set_flags(&self, flags: u32) {
        self.flags.store(flags, Relaxed)
    }

    fn full_fence(&self) {
        fence(SeqCst)
    }
}

/// The provider's post of WQEs `first..first + n` (the header's sequence):
/// write the WQEs, store-release the producer index, full barrier, read
/// `sq_flags`, and ring (`syscall`) unless the kernel watches.
fn post(ring: &SqRing, first: u32, n: u32, provider_fence: bool, syscall: impl FnOnce()) {
    for i in first..first + n {
        // SAFETY: only this thread writes slot `i`, once, before it publishes it.
        ring.slots[i as usize].with_mut(|p| unsafe { *p = payload(i) });
    }
    ring.producer.store(first + n, Release);
    if provider_fence {
        fence(SeqCst);
    }
    if ring.flags.load(Relaxed) & SQ_WATCHED == 0 {
        saw("the provider rang");
        syscall();
    } else {
        saw("the provider skipped the system call");
    }
}

/// The kernel's watch of a send queue: [`SqWatch`], or a broken copy for the
/// negative controls.
trait Watch: Default + Send + 'static {
    fn arm(&mut self, ring: &SqRing, extra: u32) -> bool;
    fn disarm(&mut self, ring: &SqRing) -> Option<u32>;
    fn is_watched(&self) -> bool;
}

impl Watch for SqWatch {
    fn arm(&mut self, ring: &SqRing, extra: u32) -> bool {
        SqWatch::arm(self, ring, extra)
    }

    fn disarm(&mut self, ring: &SqRing) -> Option<u32> {
        SqWatch::disarm(self, ring)
    }

    fn is_watched(&self) -> bool {
        SqWatch::is_watched(self)
    }
}

/// [`SqWatch`] with the barrier of `disarm` left out: a negative control.
#[derive(Default)]
struct DisarmWithoutFence {
    flags: u32,
}

impl Watch for DisarmWithoutFence {
    fn arm(&mut self, ring: &SqRing, extra: u32) -> bool {
        let want = SQ_WATCHED | extra;
        if self.flags == want {
            return false;
        }
        self.flags = want;
        ring.set_flags(want);
        true
    }

    fn disarm(&mut self, ring: &SqRing) -> Option<u32> {
        if self.flags == 0 {
            return None;
        }
        self.flags = 0;
        ring.set_flags(0);
        // The missing `ring.full_fence()`.
        Some(ring.producer_acquire())
    }

    fn is_watched(&self) -> bool {
        self.flags & SQ_WATCHED != 0
    }
}

/// The kernel's state of one QP's send queue, under the QP lock.
#[derive(Default)]
struct Qp<W> {
    watch: W,
    /// WQEs taken from the ring (the kernel's consumer count).
    fetched: u32,
    /// Fetched and not yet completed (`SendQueue::pending`).
    pending: u32,
    /// How often each slot was taken: fetched or flushed.
    taken: [u32; SLOTS],
    /// The QP is in ERR: WQEs are flushed, not fetched.
    err: bool,
    /// Disarm re-reads that found WQEs the provider did not ring for.
    races: u32,
}

impl<W: Watch> Qp<W> {
    /// Takes WQEs `fetched..upto` (`upto` clamped to the ring, and never
    /// backwards), reading each slot once, as `take_new` copies it.
    fn take(&mut self, ring: &SqRing, upto: u32) -> u32 {
        let upto = upto.min(SLOTS as u32).max(self.fetched);
        for i in self.fetched..upto {
            // SAFETY: slot `i` was published by the store-release of an index
            // past it, which the caller's load-acquire read.
            let v = ring.slots[i as usize].with(|p| unsafe { *p });
            assert_eq!(v, payload(i), "WQE {i} read before it was written");
            self.taken[i as usize] += 1;
        }
        let n = upto - self.fetched;
        self.fetched = upto;
        n
    }

    /// Fetches new WQEs into `pending`.
    fn fetch(&mut self, ring: &SqRing, upto: u32) {
        self.pending += self.take(ring, upto);
    }

    /// The requester's pass (`req::step` up to `Next::Idle` and the recheck
    /// hook): fetch what is new; at idle, arm while WQEs are pending (an
    /// acknowledgement is then bound to run this again), else disarm and take
    /// what the re-read finds.
    fn requester(&mut self, ring: &SqRing) {
        if self.err {
            saw("a post rang into ERR");
            self.flush(ring);
            return;
        }
        self.fetch(ring, ring.producer_acquire());
        loop {
            if self.pending > 0 {
                self.watch.arm(ring, 0);
                break;
            }
            match self.watch.disarm(ring) {
                Some(p) if p.min(SLOTS as u32) != self.fetched => {
                    saw("the disarm's re-read found a post");
                    self.races += 1;
                    self.fetch(ring, p);
                }
                _ => break,
            }
        }
        self.invariant();
    }

    /// An acknowledgement of the oldest pending WQE: completes it, and runs the
    /// requester.
    fn ack(&mut self, ring: &SqRing) {
        assert!(
            self.pending > 0,
            "an acknowledgement with nothing in flight"
        );
        self.pending -= 1;
        self.requester(ring);
    }

    /// `complete::flush`: disarm first, then take everything posted.
    fn flush(&mut self, ring: &SqRing) {
        let posted = match self.watch.disarm(ring) {
            Some(p) => p,
            None => ring.producer_acquire(),
        };
        if self.take(ring, posted) > 0 {
            saw("the flush took a WQE never fetched");
        }
        self.pending = 0;
        self.invariant();
    }

    /// Path (a)'s K2, the debug assertion of `SendQueue::recount`: watched
    /// only while something is in flight.
    fn invariant(&self) {
        assert!(
            !self.watch.is_watched() || self.pending > 0,
            "watched with nothing in flight: nothing is bound to re-read"
        );
    }

    /// After the run: each of the `total` WQEs taken exactly once.
    fn assert_all_taken(&self, ring: &SqRing, total: u32) {
        for (i, &n) in self.taken.iter().enumerate().take(total as usize) {
            assert!(n <= 1, "WQE {i} taken {n} times");
            assert!(n == 1, "lost wake-up: WQE {i} posted and never fetched");
        }
        assert_eq!(self.fetched, total);
        assert_eq!(ring.producer.load(Relaxed), total);
    }
}

/// Acknowledgements of the WQEs in flight: while the QP is watched one is due
/// (K2), and each runs the requester under the QP lock.
fn acks<W: Watch>(ring: &SqRing, qp: &Mutex<Qp<W>>) {
    loop {
        let mut q = qp.lock().unwrap();
        if !q.watch.is_watched() {
            return;
        }
        q.ack(ring);
    }
}

/// The POST_SEND system call: fetch under the QP lock and run the requester.
fn syscall<W: Watch>(ring: &SqRing, qp: &Mutex<Qp<W>>) {
    qp.lock().unwrap().requester(ring);
}

/// Sets up `in_flight` WQEs posted, fetched and in flight (the QP armed),
/// as the model's starting point.
fn start<W: Watch>(in_flight: u32) -> (Arc<SqRing>, Arc<Mutex<Qp<W>>>) {
    let ring = Arc::new(SqRing::new());
    let qp = Arc::new(Mutex::new(Qp::<W>::default()));
    for i in 0..in_flight {
        // SAFETY: no other thread runs yet.
        ring.slots[i as usize].with_mut(|p| unsafe { *p = payload(i) });
    }
    ring.producer.store(in_flight, Release);
    {
        let mut q = qp.lock().unwrap();
        q.requester(&ring);
        assert_eq!(
            (q.pending, q.watch.is_watched()),
            (in_flight, in_flight > 0)
        );
    }
    (ring, qp)
}

/// Spawns a loom thread running `f` on clones of the ring and the QP.
fn spawn<W: Watch>(
    ring: &Arc<SqRing>,
    qp: &Arc<Mutex<Qp<W>>>,
    f: impl FnOnce(&SqRing, &Mutex<Qp<W>>) + Send + 'static,
) -> thread::JoinHandle<()> {
    let (ring, qp) = (ring.clone(), qp.clone());
    thread::spawn(move || f(&ring, &qp))
}

/// The provider's posts, in `batches` (WQEs per post), after the `first`.
fn posts<W: Watch>(
    ring: &SqRing,
    qp: &Mutex<Qp<W>>,
    first: u32,
    batches: &[u32],
    provider_fence: bool,
) {
    let mut i = first;
    for &n in batches {
        post(ring, i, n, provider_fence, || syscall(ring, qp));
        i += n;
    }
}

/// What every send-queue model with a working handshake must reach.
const SQ_RACES: &[&str] = &[
    "the provider skipped the system call",
    "the provider rang",
    "the disarm's re-read found a post",
];

/// Model (a): `in_flight` WQEs in flight; the provider posts more, in
/// `batches`, while `ackers` threads (the ACK softirq, the send work item)
/// run the requester as the acknowledgements of what is in flight; afterwards
/// the acknowledgements still due run (K2). Every WQE is fetched exactly once.
fn recheck<W: Watch>(
    name: &str,
    in_flight: u32,
    batches: &'static [u32],
    ackers: usize,
    provider_fence: bool,
) {
    let total = in_flight + batches.iter().sum::<u32>();
    assert!(total as usize <= SLOTS);
    check(name, SQ_RACES, move || {
        let (ring, qp) = start::<W>(in_flight);
        let u = spawn(&ring, &qp, move |r, q| {
            posts(r, q, in_flight, batches, provider_fence)
        });
        let ks: Vec<_> = (0..ackers).map(|_| spawn(&ring, &qp, acks)).collect();
        u.join().unwrap();
        for k in ks {
            k.join().unwrap();
        }
        acks(&ring, &qp);
        let q = qp.lock().unwrap();
        assert!(q.pending == 0 && !q.watch.is_watched());
        assert_eq!(ring.flags.load(Relaxed), 0, "the ring still says watched");
        q.assert_all_taken(&ring, total);
    });
}

#[test]
fn recheck_one_in_flight_two_posts() {
    recheck::<SqWatch>("recheck_one_in_flight_two_posts", 1, &[1, 1], 1, true);
}

#[test]
fn recheck_idle_three_posts() {
    recheck::<SqWatch>("recheck_idle_three_posts", 0, &[1, 1, 1], 1, true);
}

#[test]
fn recheck_two_in_flight_one_post() {
    recheck::<SqWatch>("recheck_two_in_flight_one_post", 2, &[1], 1, true);
}

#[test]
fn recheck_one_in_flight_batch_of_two() {
    recheck::<SqWatch>("recheck_one_in_flight_batch_of_two", 1, &[2], 1, true);
}

#[test]
fn recheck_two_ackers() {
    recheck::<SqWatch>("recheck_two_ackers", 1, &[1, 1], 2, true);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn recheck_without_provider_fence() {
    recheck::<SqWatch>("recheck_without_provider_fence", 1, &[1, 1], 1, false);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn recheck_without_disarm_fence() {
    recheck::<DisarmWithoutFence>("recheck_without_disarm_fence", 1, &[1, 1], 1, true);
}

/// Model (b): the QP, watched since its last WQE went out, joins the poll set
/// (arm with [`SQ_POLLED`]) and takes what is new; the poller then probes up to
/// `probes` times and leaves (disarm, and take what the re-read finds): after
/// the last probe, or with `leave_on_hit` at the first probe that finds a post
/// (the QP goes back to in-flight, and its requester, with nothing pending
/// here, disarms). The number of probes is the model's nondeterministic
/// choice, enumerated by the tests. The provider posts `posts` WQEs one by
/// one; its system call takes them under the QP lock, and leaves the watch to
/// the poller. Fetched WQEs complete at once. Every WQE is fetched exactly
/// once.
fn poller<W: Watch>(name: &str, posts: u32, probes: u32, leave_on_hit: bool, provider_fence: bool) {
    assert!(posts as usize <= SLOTS);
    let must_see: &[&str] = if probes > 0 {
        &[
            SQ_RACES[0],
            SQ_RACES[1],
            SQ_RACES[2],
            "a probe found a post",
        ]
    } else {
        SQ_RACES
    };
    check(name, must_see, move || {
        let ring = Arc::new(SqRing::new());
        let qp = Arc::new(Mutex::new(Qp::<W>::default()));
        qp.lock().unwrap().watch.arm(&ring, 0);
        let u = spawn(&ring, &qp, move |r, q| {
            for i in 0..posts {
                post(r, i, 1, provider_fence, || {
                    q.lock().unwrap().take(r, r.producer_acquire());
                });
            }
        });
        let p = spawn(&ring, &qp, move |r, q| {
            {
                let mut q = q.lock().unwrap();
                q.watch.arm(r, SQ_POLLED);
                q.take(r, r.producer_acquire());
            }
            for _ in 0..probes {
                let mut q = q.lock().unwrap();
                if q.take(r, r.producer_acquire()) > 0 {
                    saw("a probe found a post");
                    if leave_on_hit {
                        break;
                    }
                }
            }
            let mut q = q.lock().unwrap();
            if let Some(posted) = q.watch.disarm(r) {
                if q.take(r, posted) > 0 {
                    saw("the disarm's re-read found a post");
                }
            }
        });
        u.join().unwrap();
        p.join().unwrap();
        let q = qp.lock().unwrap();
        assert!(!q.watch.is_watched());
        assert_eq!(ring.flags.load(Relaxed), 0, "the ring still says watched");
        q.assert_all_taken(&ring, posts);
    });
}

#[test]
fn poller_leaves_at_once() {
    poller::<SqWatch>("poller_leaves_at_once", 2, 0, false, true);
}

#[test]
fn poller_one_probe() {
    poller::<SqWatch>("poller_one_probe", 2, 1, false, true);
}

#[test]
fn poller_two_probes() {
    poller::<SqWatch>("poller_two_probes", 3, 2, false, true);
}

#[test]
fn poller_leaves_on_hit() {
    poller::<SqWatch>("poller_leaves_on_hit", 3, 2, true, true);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn poller_without_disarm_fence() {
    poller::<DisarmWithoutFence>("poller_without_disarm_fence", 2, 0, false, true);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn poller_without_provider_fence() {
    poller::<SqWatch>("poller_without_provider_fence", 2, 0, false, false);
}

/// Model (c): one WQE in flight; the provider posts two more while an
/// acknowledgement thread runs the requester and another thread moves the QP
/// to ERR and flushes (disarm first, then everything posted). Every WQE is
/// fetched or flushed, exactly once.
#[test]
fn error_race() {
    let must_see = &[
        SQ_RACES[0],
        SQ_RACES[1],
        "the flush took a WQE never fetched",
        "a post rang into ERR",
    ];
    check("error_race", must_see, || {
        let (ring, qp) = start::<SqWatch>(1);
        let u = spawn(&ring, &qp, |r, q| posts(r, q, 1, &[1, 1], true));
        let k = spawn(&ring, &qp, acks);
        let e = spawn(&ring, &qp, |r, q| {
            let mut q = q.lock().unwrap();
            q.err = true;
            q.flush(r);
        });
        u.join().unwrap();
        k.join().unwrap();
        e.join().unwrap();
        acks(&ring, &qp);
        let q = qp.lock().unwrap();
        assert!(q.err && !q.watch.is_watched() && q.pending == 0);
        assert_eq!(ring.flags.load(Relaxed), 0, "the ring still says watched");
        q.assert_all_taken(&ring, 3);
    });
}

// --- the completion queue --------------------------------------------------------

/// Completions the kernel publishes in model (d).
const CQES: usize = 2;

/// A completion queue's ring: the producer index, `cq_arm` and the CQEs.
struct CqRing {
    producer: AtomicU32,
    arm: AtomicU32,
    slots: [UnsafeCell<u32>; CQES],
}

impl CqRing {
    fn new() -> Self {
        CqRing {
            producer: AtomicU32::new(0),
            arm: AtomicU32::new(0),
            slots: std::array::from_fn(|_| UnsafeCell::new(0)),
        }
    }
}

/// The kernel's accesses. The exchange is `Relaxed` (the kernel's `cmpxchg`
/// is fully ordered): the handshake must not need it.
impl CqWords for CqRing {
    fn arm_load(&self) -> u32 {
        self.arm.load(Relaxed)
    }

    fn arm_cmpxchg(&self, old: u32, new: u32) -> bool {
        self.arm
            .compare_exchange(old, new, Relaxed, Relaxed)
            .is_ok()
    }

    fn full_fence(&self) {
        fence(SeqCst)
    }
}

/// [`CqRing`] whose `full_fence` does nothing: `cq_arm_take` without its
/// barrier, a negative control.
struct CqWithoutFence<'a>(&'a CqRing);

impl CqWords for CqWithoutFence<'_> {
    fn arm_load(&self) -> u32 {
        self.0.arm_load()
    }

    fn arm_cmpxchg(&self, old: u32, new: u32) -> bool {
        self.0.arm_cmpxchg(old, new)
    }

    fn full_fence(&self) {}
}

/// Model (d): the provider arms its CQ (`fetch_or`, full barrier), polls, and
/// sleeps if it finds nothing; having found something, it consumes it and
/// arms again, up to `max_arms` arms. The kernel publishes [`CQES`]
/// completions, each followed by `cq_arm_take`. If the provider slept, its
/// last arm was taken (an event came after it); never more events than arms.
fn cq_arm(name: &str, max_arms: u32, provider_fence: bool, kernel_fence: bool) {
    let must_see: &[&str] = if max_arms > 1 {
        &[
            "the provider slept",
            "the provider found a completion",
            "a completion took the arm",
            "a completion found no arm",
            "the provider armed again",
            "the provider slept after arming again",
        ]
    } else {
        &[
            "the provider slept",
            "the provider found a completion",
            "a completion took the arm",
            "a completion found no arm",
        ]
    };
    check(name, must_see, move || {
        let cq = Arc::new(CqRing::new());
        let k = {
            let cq = cq.clone();
            thread::spawn(move || {
                let mut events = 0;
                for i in 0..CQES {
                    // SAFETY: only this thread writes CQE `i`, before it
                    // publishes it.
                    cq.slots[i].with_mut(|p| unsafe { *p = 0xc0 + i as u32 });
                    cq.producer.store(i as u32 + 1, Release);
                    let take = if kernel_fence {
                        cq_arm_take(&*cq, false)
                    } else {
                        cq_arm_take(&CqWithoutFence(&cq), false)
                    };
                    saw(if take {
                        "a completion took the arm"
                    } else {
                        "a completion found no arm"
                    });
                    events += u32::from(take);
                }
                events
            })
        };
        let (mut consumed, mut arms, mut slept) = (0, 0, false);
        loop {
            cq.arm.fetch_or(CQ_ARM_SOLICITED | CQ_ARM_NEXT, Relaxed);
            arms += 1;
            if arms > 1 {
                saw("the provider armed again");
            }
            if provider_fence {
                fence(SeqCst);
            }
            let p = cq.producer.load(Acquire);
            if p == consumed {
                saw(if arms > 1 {
                    "the provider slept after arming again"
                } else {
                    "the provider slept"
                });
                slept = true;
                break;
            }
            saw("the provider found a completion");
            for i in consumed..p {
                // SAFETY: CQE `i` was published by the store-release this
                // thread's load-acquire read.
                let v = cq.slots[i as usize].with(|p| unsafe { *p });
                assert_eq!(v, 0xc0 + i, "CQE {i} read before it was written");
            }
            consumed = p;
            if consumed as usize == CQES || arms == max_arms {
                break;
            }
        }
        let events = k.join().unwrap();
        assert!(events <= arms, "{events} events for {arms} arms");
        if slept {
            assert!(
                cq.arm.load(Relaxed) == 0 && events > 0,
                "lost wake-up: the provider sleeps on an arm no completion took"
            );
        }
    });
}

#[test]
fn cq_arm_once() {
    cq_arm("cq_arm_once", 1, true, true);
}

#[test]
fn cq_arm_again_after_each_poll() {
    cq_arm("cq_arm_again_after_each_poll", 3, true, true);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn cq_arm_without_provider_fence() {
    cq_arm("cq_arm_without_provider_fence", 1, false, true);
}

#[test]
#[should_panic(expected = "lost wake-up")]
fn cq_arm_without_kernel_fence() {
    cq_arm("cq_arm_without_kernel_fence", 1, true, false);
}
