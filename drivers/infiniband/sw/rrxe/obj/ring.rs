// SPDX-License-Identifier: GPL-2.0

//! Rings in rdma_rxe's `struct rxe_queue_buf` layout, as rdma-core's rxe provider
//! maps them: a 384-byte header (element size and index mask at 0, producer index at
//! 128, consumer index at 256) followed by power-of-two slots. One slot always stays
//! empty, so a queue with `n` slots holds `n - 1` entries.
//!
//! Hardening: the header fields are written once and never read back; the kernel keeps
//! its own layout. An index written by user space is masked before use, so every count
//! is at most the capacity and every slot offset is in bounds, whatever the value.
//!
//! rrxe's doorbell (`uapi/rdma/rdma_user_rrxe.h`) adds one word at byte 320, in the
//! header's padding and on a cache line of its own: a send queue's `sq_flags`,
//! which only the kernel writes, and a completion queue's `cq_arm`, which the
//! provider sets and the kernel clears ([`Ring::sq_words`], [`Ring::cq_words`]).

use crate::abi::MmapInfo;
use crate::proto::doorbell::{CqWords, SqWords};
use kernel::{
    prelude::*,
    rdma::{shared_buf::SharedBuf, uverbs::UData},
    sync::barrier::{smp_mb, Full},
};

/// Header offsets.
const HDR_LOG2_ELEM: usize = 0;
const HDR_MASK: usize = 4;
const HDR_PRODUCER: usize = 128;
const HDR_CONSUMER: usize = 256;
const HDR_SIZE: usize = 384;
/// The doorbell word: `sq_flags` or `cq_arm` (the offsets the doorbell's
/// negotiation reports).
pub(crate) const HDR_DOORBELL: usize = 320;
const _: () = assert!(HDR_DOORBELL >= HDR_CONSUMER + 64 && HDR_DOORBELL + 4 <= HDR_SIZE);

/// The smallest slot, one cache line, as rxe.
const MIN_ELEM: usize = 64;

/// Slot geometry of a ring: a plain value, fixed when the ring is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    log2_elem: u32,
    mask: u32,
}

impl Layout {
    /// Room for at least `entries` entries of `elem` bytes each, as `rxe_queue_init`
    /// rounds: slots are a power of two, and at least a cache line.
    pub(crate) fn new(entries: u32, elem: usize) -> Result<Self> {
        let slots = entries
            .checked_add(1)
            .ok_or(EINVAL)?
            .checked_next_power_of_two()
            .ok_or(EINVAL)?;
        let elem = elem
            .max(MIN_ELEM)
            .checked_next_power_of_two()
            .ok_or(EINVAL)?;
        let l = Self {
            log2_elem: elem.trailing_zeros(),
            mask: slots - 1,
        };
        // Refuse anything that does not fit the u32 `mminfo.size`.
        if l.buf_size().is_none_or(|s| s > u32::MAX as usize / 2) {
            return Err(EINVAL);
        }
        Ok(l)
    }

    /// How many entries fit.
    pub(crate) fn capacity(&self) -> u32 {
        self.mask
    }

    /// Bytes per slot.
    pub(crate) fn elem_size(&self) -> usize {
        1 << self.log2_elem
    }

    fn buf_size(&self) -> Option<usize> {
        (self.mask as usize + 1)
            .checked_mul(self.elem_size())?
            .checked_add(HDR_SIZE)
    }

    /// Byte offset of the slot of index `i` (masked, so always in bounds).
    pub(crate) fn slot_offset(&self, i: u32) -> usize {
        HDR_SIZE + (((i & self.mask) as usize) << self.log2_elem)
    }

    /// The index after `i`.
    pub(crate) fn next(&self, i: u32) -> u32 {
        i.wrapping_add(1) & self.mask
    }

    /// Entries between consumer `cons` and producer `prod` (both masked here).
    pub(crate) fn count(&self, prod: u32, cons: u32) -> u32 {
        (prod & self.mask).wrapping_sub(cons & self.mask) & self.mask
    }

    /// Whether no entry fits.
    pub(crate) fn is_full(&self, prod: u32, cons: u32) -> bool {
        self.count(prod, cons) == self.mask
    }
}

/// A ring buffer with its layout and this side's private index.
///
/// Owned by its CQ, SRQ or QP, under that object's lock. The buffer is shared
/// with user space, so every index read from it is masked; it lives until the
/// owner drops the ring, and its pages as long as user space maps them.
pub(crate) struct Ring {
    buf: SharedBuf,
    layout: Layout,
    /// The index this side owns: the producer index of a queue the kernel fills (CQ),
    /// the consumer index of a queue the kernel drains (SQ, RQ, SRQ).
    own: u32,
}

impl Ring {
    /// A zeroed queue for at least `entries` entries of `elem` bytes.
    pub(crate) fn new(entries: u32, elem: usize) -> Result<Self> {
        let layout = Layout::new(entries, elem)?;
        let buf = SharedBuf::new(layout.buf_size().ok_or(EINVAL)?)?;
        buf.write(HDR_LOG2_ELEM, &layout.log2_elem.to_ne_bytes())?;
        buf.write(HDR_MASK, &layout.mask.to_ne_bytes())?;
        Ok(Self {
            buf,
            layout,
            own: 0,
        })
    }

    /// The layout.
    pub(crate) fn layout(&self) -> Layout {
        self.layout
    }

    /// Makes the queue mappable by the verb's caller; the `mminfo` to report.
    pub(crate) fn publish(&mut self, udata: &UData) -> Result<MmapInfo> {
        let offset = udata.publish(&mut self.buf)?;
        Ok(MmapInfo {
            offset,
            size: u32::try_from(self.buf.map_len()).map_err(|_| EINVAL)?,
            pad: 0,
        })
    }

    /// The other side's index, masked.
    fn theirs(&self, off: usize) -> u32 {
        // The offset is in bounds and aligned, so this cannot fail.
        self.buf.load_acquire(off).unwrap_or(0) & self.layout.mask
    }

    // Producer side (the kernel fills the queue).

    /// Entries written and not yet consumed.
    pub(crate) fn produced_count(&self) -> u32 {
        self.layout.count(self.own, self.theirs(HDR_CONSUMER))
    }

    /// Writes `entry` into the next slot and publishes it. `EBUSY` when full.
    pub(crate) fn push(&mut self, entry: &[u8]) -> Result {
        if entry.len() > self.layout.elem_size() {
            return Err(EINVAL);
        }
        if self.layout.is_full(self.own, self.theirs(HDR_CONSUMER)) {
            return Err(EBUSY);
        }
        self.buf.write(self.layout.slot_offset(self.own), entry)?;
        self.own = self.layout.next(self.own);
        self.buf.store_release(HDR_PRODUCER, self.own)
    }

    /// Copies the oldest unconsumed entry of a kernel-produced queue and consumes
    /// it, for kernel consumers that poll the queue themselves.
    pub(crate) fn pop_produced(&mut self, dst: &mut [u8]) -> Result<bool> {
        let cons = self.theirs(HDR_CONSUMER);
        if self.layout.count(self.own, cons) == 0 {
            return Ok(false);
        }
        self.buf.read(self.layout.slot_offset(cons), dst)?;
        self.buf
            .store_release(HDR_CONSUMER, self.layout.next(cons))?;
        Ok(true)
    }

    // Consumer side (the kernel drains the queue).

    /// Entries posted and not yet consumed.
    pub(crate) fn posted_count(&self) -> u32 {
        self.layout.count(self.theirs(HDR_PRODUCER), self.own)
    }

    /// Entries posted and not yet consumed, by a producer index read before
    /// (masked here).
    pub(crate) fn posted_since(&self, producer: u32) -> u32 {
        self.layout.count(producer, self.own)
    }

    /// Snapshot of the oldest posted entry: `dst.len()` bytes, copied once.
    pub(crate) fn peek_posted(&self, dst: &mut [u8]) -> Result<bool> {
        if self.posted_count() == 0 {
            return Ok(false);
        }
        self.buf.read(self.layout.slot_offset(self.own), dst)?;
        Ok(true)
    }

    /// Snapshot of the `k`-th oldest posted entry (0 is the oldest), of the
    /// `posted` entries a [`Ring::posted_count`] read before found. Checked
    /// against that count, not the producer index now: a user may move it back
    /// meanwhile, and the entries the caller counted are still its to read.
    pub(crate) fn read_posted(&self, k: u32, posted: u32, dst: &mut [u8]) -> Result {
        if k >= posted || posted > self.layout.capacity() {
            return Err(EINVAL);
        }
        let i = self.own.wrapping_add(k);
        self.buf.read(self.layout.slot_offset(i), dst)
    }

    /// Consumes the oldest posted entry and publishes the consumer index.
    pub(crate) fn consume(&mut self) -> Result {
        self.own = self.layout.next(self.own);
        self.buf.store_release(HDR_CONSUMER, self.own)
    }

    /// Posts `entry` as the producer, for queues a kernel consumer fills (kernel QPs
    /// and SRQs). `ENOMEM` when full, as rxe.
    pub(crate) fn post(&mut self, entry: &[u8]) -> Result {
        if entry.len() > self.layout.elem_size() {
            return Err(EINVAL);
        }
        let prod = self.theirs(HDR_PRODUCER);
        if self.layout.is_full(prod, self.own) {
            return Err(ENOMEM);
        }
        self.buf.write(self.layout.slot_offset(prod), entry)?;
        self.buf.store_release(HDR_PRODUCER, self.layout.next(prod))
    }

    /// The send-queue words of the doorbell handshake, for
    /// [`SqWatch`](crate::proto::doorbell::SqWatch).
    pub(crate) fn sq_words(&self) -> RingWords<'_> {
        RingWords(self)
    }

    /// The completion-queue word of the doorbell handshake, for
    /// [`cq_arm_take`](crate::proto::doorbell::cq_arm_take).
    pub(crate) fn cq_words(&self) -> RingWords<'_> {
        RingWords(self)
    }

    /// The doorbell word as user space left it (a CQ's arm, kept across a resize).
    pub(crate) fn doorbell_word(&self) -> u32 {
        self.buf.load_once(HDR_DOORBELL).unwrap_or(0)
    }

    /// Sets the doorbell word.
    pub(crate) fn set_doorbell_word(&self, v: u32) {
        // In bounds and aligned: cannot fail.
        let _ = self.buf.store_once(HDR_DOORBELL, v);
    }

    /// Moves the unconsumed entries of a kernel-produced queue (`produced`) or a
    /// user-produced one into `new`, oldest first, copying `used` bytes of each.
    /// `EINVAL` if they do not fit.
    pub(crate) fn move_entries(&self, new: &mut Ring, produced: bool, used: usize) -> Result {
        let (mut i, n) = if produced {
            let cons = self.theirs(HDR_CONSUMER);
            (cons, self.layout.count(self.own, cons))
        } else {
            (self.own, self.posted_count())
        };
        if n > new.layout.capacity() || used > new.layout.elem_size() {
            return Err(EINVAL);
        }
        // Runs under the queue's spinlock: copy through a small stack buffer.
        let mut tmp = [0u8; 128];
        for k in 0..n {
            let (from, to) = (self.layout.slot_offset(i), new.layout.slot_offset(k));
            let mut off = 0;
            while off < used {
                let c = (used - off).min(tmp.len());
                self.buf.read(from + off, &mut tmp[..c])?;
                new.buf.write(to + off, &tmp[..c])?;
                off += c;
            }
            i = self.layout.next(i);
        }
        if produced {
            new.own = n;
        }
        new.buf.store_release(HDR_PRODUCER, n)
    }
}

/// A ring's header words as the doorbell handshake
/// ([`crate::proto::doorbell`]) uses them: a borrow of the ring, under its
/// owner's lock.
pub(crate) struct RingWords<'a>(&'a Ring);

impl SqWords for RingWords<'_> {
    fn producer_acquire(&self) -> u32 {
        self.0.buf.load_acquire(HDR_PRODUCER).unwrap_or(0)
    }

    fn set_flags(&self, flags: u32) {
        self.0.set_doorbell_word(flags);
    }

    fn full_fence(&self) {
        smp_mb(Full);
    }
}

impl CqWords for RingWords<'_> {
    fn arm_load(&self) -> u32 {
        self.0.doorbell_word()
    }

    fn arm_cmpxchg(&self, old: u32, new: u32) -> bool {
        self.0.buf.cmpxchg(HDR_DOORBELL, old, new).unwrap_or(false)
    }

    fn full_fence(&self) {
        smp_mb(Full);
    }
}

#[kernel::macros::kunit_tests(rrxe_ring)]
mod tests {
    use super::*;

    #[test]
    fn layout_rounds_like_rxe() {
        // CQ: 72-byte rxe_cqe, 15 entries -> 16 slots of 128 bytes.
        let l = Layout::new(15, 72).unwrap();
        assert_eq!((l.capacity(), l.elem_size()), (15, 128));
        assert_eq!(l.buf_size(), Some(384 + 16 * 128));
        // Zero entries: one slot, always full.
        let l = Layout::new(0, 40).unwrap();
        assert_eq!((l.capacity(), l.elem_size()), (0, 64));
        assert!(l.is_full(0, 0));
        // A request just above a power of two doubles.
        assert_eq!(Layout::new(16, 208).unwrap().capacity(), 31);
        assert!(Layout::new(u32::MAX, 64).is_err());
        assert!(Layout::new(1 << 24, 1024).is_err());
    }

    #[test]
    fn hostile_indices_stay_in_bounds() {
        let l = Layout::new(7, 64).unwrap();
        for bad in [8u32, 0xffff_ffff, 0x8000_0001, 12345] {
            assert!(l.count(bad, 0) <= l.capacity());
            assert!(l.count(0, bad) <= l.capacity());
            assert!(l.slot_offset(bad) + l.elem_size() <= l.buf_size().unwrap());
        }
        assert_eq!(l.count(3, 1), 2);
        assert_eq!(l.count(1, 3), 6);
        assert!(l.is_full(7, 0));
        assert_eq!(l.next(7), 0);
    }

    #[test]
    fn queue_push_pop_and_full() {
        let mut q = Ring::new(3, 16).unwrap();
        for i in 0..3u8 {
            q.push(&[i; 16]).unwrap();
        }
        assert_eq!(q.push(&[9; 16]), Err(EBUSY));
        let mut e = [0u8; 16];
        assert!(q.pop_produced(&mut e).unwrap());
        assert_eq!(e, [0; 16]);
        assert_eq!(q.produced_count(), 2);
        let mut big = Ring::new(7, 16).unwrap();
        q.move_entries(&mut big, true, 16).unwrap();
        assert_eq!(big.produced_count(), 2);
        assert!(big.pop_produced(&mut e).unwrap());
        assert_eq!(e, [1; 16]);
    }

    #[test]
    fn queue_post_consume() {
        let mut q = Ring::new(1, 16).unwrap();
        q.post(&[5; 16]).unwrap();
        assert_eq!(q.post(&[6; 16]), Err(ENOMEM));
        let mut e = [0u8; 16];
        assert!(q.peek_posted(&mut e).unwrap());
        assert_eq!(e, [5; 16]);
        q.consume().unwrap();
        assert!(!q.peek_posted(&mut e).unwrap());
    }
}
