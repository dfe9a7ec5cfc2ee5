// SPDX-License-Identifier: GPL-2.0

//! The kernel's half of the doorbell handshake with user space
//! (`uapi/rdma/rdma_user_rrxe.h`), over words a ring header shares.
//!
//! Send queue. The kernel promises, by setting [`SQ_WATCHED`], to read the
//! producer index again without a system call; the provider then skips
//! POST_SEND. The promise is withdrawn only by [`SqWatch::disarm`]: store 0,
//! full barrier, re-read the producer index. The provider's post is the mirror
//! image (store-release the index, full barrier, read the flag), so one of the
//! two sees the other's store and no posted WQE is left unseen.
//!
//! Completion queue. The provider arms by setting [`CQ_ARM_NEXT`] or
//! [`CQ_ARM_SOLICITED`] and then fences; the kernel, after publishing a
//! completion, fences and reads the word ([`cq_arm_take`]).
//!
//! The logic is generic over [`SqWords`] and [`CqWords`] so that the very code
//! the driver runs is also model-checked on the host with loom
//! (`tools/rrxe-proto/tests/doorbell_loom.rs`).

/// `RRXE_SQ_WATCHED`: the kernel will read the producer index again.
pub const SQ_WATCHED: u32 = 1 << 0;
/// `RRXE_SQ_POLLED`: informational, a poller watches the ring.
pub const SQ_POLLED: u32 = 1 << 1;
/// `RRXE_CQ_ARM_SOLICITED`: an event for the next solicited (or error) completion.
pub const CQ_ARM_SOLICITED: u32 = 1 << 0;
/// `RRXE_CQ_ARM_NEXT`: an event for the next completion.
pub const CQ_ARM_NEXT: u32 = 1 << 1;

/// The send-queue words of a ring header, as the kernel accesses them.
pub trait SqWords {
    /// The producer index, load-acquire (paired with the provider's
    /// store-release), unmasked.
    fn producer_acquire(&self) -> u32;
    /// Stores `sq_flags` (a plain `WRITE_ONCE`).
    fn set_flags(&self, flags: u32);
    /// A full memory barrier (`smp_mb()`).
    fn full_fence(&self);
}

/// The kernel's private copy of a send queue's `sq_flags`: the ring's word is
/// written, never read back, so a user's scribble changes nothing here.
///
/// Owned by the send queue, under the QP's lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SqWatch {
    flags: u32,
}

impl SqWatch {
    /// Whether the kernel has promised to re-read the producer index.
    pub fn is_watched(&self) -> bool {
        self.flags & SQ_WATCHED != 0
    }

    /// The flags as last stored.
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// Promises a re-read (`extra` adds informational bits such as
    /// [`SQ_POLLED`]). The caller must be bound to re-read the producer index
    /// later: work in flight whose progress runs the requester, or a poller.
    /// No barrier is needed: a provider that misses the store rings, which is
    /// only slower. Returns whether the word changed.
    pub fn arm<W: SqWords>(&mut self, w: &W, extra: u32) -> bool {
        let want = SQ_WATCHED | extra;
        if self.flags == want {
            return false;
        }
        self.flags = want;
        w.set_flags(want);
        true
    }

    /// Withdraws the promise: clears the word, full barrier, then re-reads the
    /// producer index, which it returns. A post the provider made before it
    /// could see the cleared word is in that index; a later one rings. Returns
    /// `None`, touching nothing, when no promise was made.
    pub fn disarm<W: SqWords>(&mut self, w: &W) -> Option<u32> {
        if self.flags == 0 {
            return None;
        }
        self.flags = 0;
        w.set_flags(0);
        w.full_fence();
        Some(w.producer_acquire())
    }
}

/// The completion-queue word of a ring header, as the kernel accesses it.
pub trait CqWords {
    /// Reads `cq_arm` (`READ_ONCE`).
    fn arm_load(&self) -> u32;
    /// Compare-and-exchange of `cq_arm`; whether it swapped.
    fn arm_cmpxchg(&self, old: u32, new: u32) -> bool;
    /// A full memory barrier (`smp_mb()`).
    fn full_fence(&self);
}

/// Whether an arm word asks for an event for a completion that is
/// `solicited` (a solicited or an error completion).
pub fn cq_arm_matches(arm: u32, solicited: bool) -> bool {
    arm & CQ_ARM_NEXT != 0 || (solicited && arm & CQ_ARM_SOLICITED != 0)
}

/// After a completion is published: takes the provider's arm if the
/// completion matches it. Returns whether the caller must raise the event
/// (exactly once per arm, however many completions race).
/// A provider that keeps changing the word between the load and the exchange
/// gets no event after a few tries; it polls after each arm, and so finds the
/// completion itself.
pub fn cq_arm_take<W: CqWords>(w: &W, solicited: bool) -> bool {
    w.full_fence();
    for _ in 0..CQ_ARM_TRIES {
        let arm = w.arm_load();
        if !cq_arm_matches(arm, solicited) {
            return false;
        }
        if w.arm_cmpxchg(arm, 0) {
            return true;
        }
    }
    false
}

/// How often [`cq_arm_take`] retries an exchange another writer defeated.
const CQ_ARM_TRIES: u32 = 4;
