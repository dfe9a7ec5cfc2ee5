// SPDX-License-Identifier: GPL-2.0

//! The send WQEs of a QP that are not yet completed, oldest first.

use crate::obj::wqe::{Bad, Pending};
use kernel::prelude::*;

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
    pub(super) const fn new() -> Self {
        Self {
            v: KVVec::new(),
            head: 0,
            len: 0,
        }
    }

    /// An empty list with room for `n` entries.
    pub(super) fn with_room(n: usize, gfp: kernel::alloc::Flags) -> Result<Self> {
        Ok(Self {
            v: Self::storage(n, gfp)?,
            head: 0,
            len: 0,
        })
    }

    /// Storage for `n` entries, all [`Pending::Taken`]; `gfp` must allow
    /// sleeping (vmalloc).
    pub(super) fn storage(n: usize, gfp: kernel::alloc::Flags) -> Result<KVVec<Pending>> {
        let mut v = KVVec::with_capacity(n, gfp)?;
        for _ in 0..n {
            v.push_within_capacity(Pending::Taken).map_err(|_| ENOMEM)?;
        }
        Ok(v)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// How many entries the storage holds.
    pub(super) fn storage_len(&self) -> usize {
        self.v.len()
    }

    pub(super) fn is_empty(&self) -> bool {
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

    pub(super) fn front(&self) -> Option<&Pending> {
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
    pub(super) fn room(&self) -> usize {
        self.v.len() - self.len
    }

    /// Appends; `ENOMEM` past [`PendingList::room`].
    pub(super) fn push(&mut self, p: Pending) -> Result {
        *self.push_slot()? = p;
        Ok(())
    }

    /// Appends a [`Pending::Taken`] entry and returns it, for the caller to
    /// build the entry in place (a WQE moved in is a memcpy of 300 bytes);
    /// `ENOMEM` past [`PendingList::room`].
    pub(super) fn push_slot(&mut self) -> Result<&mut Pending> {
        if self.room() == 0 {
            return Err(ENOMEM);
        }
        let s = self.wrap(self.head + self.len);
        let slot = self.v.get_mut(s).ok_or(ENOMEM)?;
        self.len += 1;
        Ok(slot)
    }

    /// Drops the oldest entry where it lies (no move out of the storage).
    pub(super) fn drop_front(&mut self) {
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
    pub(super) fn move_to(&mut self, mut bigger: KVVec<Pending>) -> KVVec<Pending> {
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

    pub(super) fn clear(&mut self) {
        while self.pop_front().is_some() {}
    }
}

#[kernel::macros::kunit_tests(rrxe_pending)]
mod tests {
    use super::*;

    fn entry(wr_id: u64) -> Pending {
        Pending::Bad {
            wr_id,
            why: Bad::Opcode,
            send: false,
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
