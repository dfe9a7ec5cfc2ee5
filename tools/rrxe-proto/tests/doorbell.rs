// SPDX-License-Identifier: GPL-2.0

//! Host tests of the doorbell handshake (`proto::doorbell`) beyond the shared
//! self-test cases (`doorbell_*` in `proto/selftest.rs`, which KUnit also
//! runs): arm/disarm sequences as properties, the arm-word truth table over
//! every bit, and the send-queue handshake on this machine's own atomics.
//! The memory-ordering proof is `tests/doorbell_loom.rs`.

use std::cell::RefCell;
use std::sync::atomic::{fence, AtomicBool, AtomicU32, Ordering};
use std::sync::{Barrier, Mutex};

use proptest::prelude::*;
use rrxe_proto::doorbell::{
    cq_arm_matches, cq_arm_take, CqWords, SqWatch, SqWords, CQ_ARM_NEXT, CQ_ARM_SOLICITED,
    SQ_POLLED, SQ_WATCHED,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Store(u32),
    Fence,
    Load,
}

/// Send-queue words that log each access.
#[derive(Default)]
struct Log {
    producer: u32,
    ops: RefCell<Vec<Op>>,
}

impl SqWords for Log {
    fn producer_acquire(&self) -> u32 {
        self.ops.borrow_mut().push(Op::Load);
        self.producer
    }

    fn set_flags(&self, flags: u32) {
        self.ops.borrow_mut().push(Op::Store(flags));
    }

    fn full_fence(&self) {
        self.ops.borrow_mut().push(Op::Fence);
    }
}

proptest! {
    /// Any sequence of arms (with any informational bits) and disarms: the
    /// ring's word always equals the kernel's copy; a store happens exactly
    /// when the copy changes; the word goes to 0 only through store, barrier,
    /// re-read; disarm re-reads exactly when a promise was made.
    #[test]
    fn arm_disarm_sequences(steps in prop::collection::vec(prop::option::of(any::<u32>()), 0..40),
                            producer in any::<u32>()) {
        let w = Log { producer, ..Log::default() };
        let mut watch = SqWatch::default();
        let mut word = 0u32;
        for step in steps {
            let before = watch.flags();
            w.ops.borrow_mut().clear();
            match step {
                Some(extra) => {
                    let changed = watch.arm(&w, extra);
                    let want = SQ_WATCHED | extra;
                    prop_assert_eq!(watch.flags(), want);
                    prop_assert_eq!(changed, before != want);
                    let ops = if changed { vec![Op::Store(want)] } else { vec![] };
                    prop_assert_eq!(&*w.ops.borrow(), &ops);
                    prop_assert!(watch.is_watched());
                }
                None => {
                    let got = watch.disarm(&w);
                    prop_assert_eq!(watch.flags(), 0);
                    prop_assert!(!watch.is_watched());
                    if before == 0 {
                        prop_assert_eq!(got, None);
                        prop_assert!(w.ops.borrow().is_empty());
                    } else {
                        prop_assert_eq!(got, Some(producer));
                        prop_assert_eq!(&*w.ops.borrow(), &[Op::Store(0), Op::Fence, Op::Load]);
                    }
                }
            }
            if let Some(&Op::Store(v)) = w.ops.borrow().first() {
                word = v;
            }
            prop_assert_eq!(word, watch.flags());
        }
    }
}

/// `cq_arm_matches` over every combination of the two bits and unknown ones.
#[test]
fn cq_arm_matches_every_bit() {
    for low in 0..16u32 {
        for high in [0, 1 << 31, 0xffff_fff0] {
            let arm = low | high;
            let next = arm & CQ_ARM_NEXT != 0;
            let sol = arm & CQ_ARM_SOLICITED != 0;
            assert_eq!(cq_arm_matches(arm, false), next, "{arm:#x}, plain");
            assert_eq!(
                cq_arm_matches(arm, true),
                next || sol,
                "{arm:#x}, solicited"
            );
        }
    }
}

/// A CQ arm word on a real atomic, with a writer that re-arms from another
/// thread: every `cq_arm_take` returns, never takes an arm that is not there
/// (events never exceed the arms the writer made), and a solicited completion
/// after the last arm takes it.
#[test]
fn cq_arm_take_against_a_racing_writer() {
    struct Word(AtomicU32);
    impl CqWords for Word {
        fn arm_load(&self) -> u32 {
            self.0.load(Ordering::Relaxed)
        }
        fn arm_cmpxchg(&self, old: u32, new: u32) -> bool {
            self.0
                .compare_exchange(old, new, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
        }
        fn full_fence(&self) {
            fence(Ordering::SeqCst)
        }
    }
    const ARMS: u32 = 2_000;
    let w = Word(AtomicU32::new(0));
    let done = AtomicBool::new(false);
    let start = Barrier::new(2);
    let (events, armed) = std::thread::scope(|s| {
        let taker = s.spawn(|| {
            let (mut events, mut i) = (0u32, 0u32);
            start.wait();
            while !done.load(Ordering::Acquire) {
                events += u32::from(cq_arm_take(&w, i % 3 == 0));
                i += 1;
            }
            events + u32::from(cq_arm_take(&w, true))
        });
        let (mut armed, mut i) = (0, 0u32);
        start.wait();
        while armed < ARMS {
            i += 1;
            let bits = if i % 2 == 0 {
                CQ_ARM_SOLICITED
            } else {
                CQ_ARM_SOLICITED | CQ_ARM_NEXT
            };
            if w.0.fetch_or(bits, Ordering::Relaxed) & bits != bits {
                armed += 1;
            }
            fence(Ordering::SeqCst);
        }
        done.store(true, Ordering::Release);
        (taker.join().unwrap(), armed)
    });
    assert!(events <= armed, "{events} events for {armed} arms");
    assert_eq!(w.0.load(Ordering::Relaxed), 0, "the last arm was taken");
    eprintln!("{events} events for {armed} arms");
}

/// The send-queue handshake on this machine's atomics (x86 reorders exactly
/// the store-then-load the two barriers exist for): a provider thread posts
/// while a kernel thread acknowledges the WQE in flight and rechecks, arming
/// and disarming through [`SqWatch`]. Afterwards every WQE was fetched once.
/// A smoke test: the proof is the loom model.
#[test]
fn sq_handshake_on_hardware() {
    const WQES: u32 = 4;
    const ROUNDS: u32 = 3_000;

    #[derive(Default)]
    struct Ring {
        producer: AtomicU32,
        flags: AtomicU32,
        slots: [AtomicU32; WQES as usize],
    }
    impl SqWords for Ring {
        fn producer_acquire(&self) -> u32 {
            self.producer.load(Ordering::Acquire)
        }
        fn set_flags(&self, flags: u32) {
            self.flags.store(flags, Ordering::Relaxed)
        }
        fn full_fence(&self) {
            fence(Ordering::SeqCst)
        }
    }
    #[derive(Default)]
    struct Qp {
        watch: SqWatch,
        fetched: u32,
        pending: u32,
    }
    impl Qp {
        fn requester(&mut self, r: &Ring) {
            let mut upto = r.producer_acquire();
            loop {
                for i in self.fetched..upto.min(WQES) {
                    assert_eq!(r.slots[i as usize].load(Ordering::Relaxed), 0x100 + i);
                    self.pending += 1;
                }
                self.fetched = self.fetched.max(upto.min(WQES));
                if self.pending > 0 {
                    self.watch.arm(r, 0);
                    return;
                }
                match self.watch.disarm(r) {
                    Some(p) if p.min(WQES) != self.fetched => upto = p,
                    _ => return,
                }
            }
        }
    }
    fn acks(r: &Ring, qp: &Mutex<Qp>) {
        loop {
            let mut q = qp.lock().unwrap();
            if !q.watch.is_watched() {
                return;
            }
            q.pending -= 1;
            q.requester(r);
        }
    }

    let mut skipped = 0;
    for _ in 0..ROUNDS {
        let ring = Ring::default();
        let qp = Mutex::new(Qp::default());
        ring.slots[0].store(0x100, Ordering::Relaxed);
        ring.producer.store(1, Ordering::Release);
        qp.lock().unwrap().requester(&ring);
        skipped += std::thread::scope(|s| {
            s.spawn(|| acks(&ring, &qp));
            let mut skipped = 0;
            for i in 1..WQES {
                ring.slots[i as usize].store(0x100 + i, Ordering::Relaxed);
                ring.producer.store(i + 1, Ordering::Release);
                fence(Ordering::SeqCst);
                if ring.flags.load(Ordering::Relaxed) & SQ_WATCHED == 0 {
                    qp.lock().unwrap().requester(&ring);
                } else {
                    skipped += 1;
                }
            }
            skipped
        });
        acks(&ring, &qp);
        let q = qp.lock().unwrap();
        assert_eq!(q.fetched, WQES, "lost wake-up");
        assert_eq!(q.pending, 0);
        assert_eq!(ring.flags.load(Ordering::Relaxed) & !SQ_POLLED, 0);
    }
    eprintln!(
        "{skipped} of {} posts skipped the system call",
        ROUNDS * (WQES - 1)
    );
}
