// SPDX-License-Identifier: GPL-2.0

//! Index pools: QP numbers, MR key indices, AH numbers and SRQ numbers.
//!
//! Every number user space or the wire hands us is looked up here, never turned into a
//! pointer. Indices are handed out round-robin within `[min, max]`, so a freed number
//! is not reused at once and a stale key or QPN from a destroyed object misses.

use kernel::{
    new_mutex,
    prelude::*,
    sync::{Arc, Mutex},
    xarray::{AllocKind, XArray},
};

/// Objects of one kind, by number.
#[pin_data]
pub(crate) struct Pool<V: Send + Sync + 'static> {
    #[pin]
    xa: XArray<Arc<V>>,
    /// The next number to try. Also serialises allocations: the XArray may drop its
    /// lock while storing, so the free-slot search must not race another.
    #[pin]
    next: Mutex<u32>,
    min: u32,
    max: u32,
}

impl<V: Send + Sync + 'static> Pool<V> {
    pub(crate) fn new(min: u32, max: u32) -> impl PinInit<Self> {
        pin_init!(Self {
            xa <- XArray::new(AllocKind::Alloc),
            next <- new_mutex!(min),
            min,
            max,
        })
    }

    /// Builds an object for a free number in the pool's range with `make(number)` and
    /// stores it. `ENOMEM` when the range is exhausted.
    pub(crate) fn insert_with(
        &self,
        make: impl FnOnce(u32) -> Result<Arc<V>>,
    ) -> Result<(u32, Arc<V>)> {
        let mut next = self.next.lock();
        let span = self.max - self.min + 1;
        let free = {
            let xa = self.xa.lock();
            (0..span)
                .map(|k| self.min + (*next - self.min + k) % span)
                .find(|&i| xa.get(i as usize).is_none())
        };
        let i = free.ok_or(ENOMEM)?;
        // Allocations are serialised by `next`, so `i` stays free while `make` runs
        // outside the XArray's spinlock (it may sleep).
        let v = make(i)?;
        self.xa
            .lock()
            .store(i as usize, v.clone(), GFP_KERNEL)
            .map_err(|e| e.error)?;
        *next = if i == self.max { self.min } else { i + 1 };
        Ok((i, v))
    }

    /// Stores `v` at the fixed number `i` (e.g. QP1). `EEXIST` if taken.
    pub(crate) fn insert_at(&self, i: u32, v: Arc<V>) -> Result {
        let _serialise = self.next.lock();
        let mut xa = self.xa.lock();
        if xa.get(i as usize).is_some() {
            return Err(EEXIST);
        }
        xa.store(i as usize, v, GFP_KERNEL).map_err(|e| e.error)?;
        Ok(())
    }

    /// The object numbered `i`.
    pub(crate) fn get(&self, i: u32) -> Option<Arc<V>> {
        self.xa.lock().get(i as usize).map(Arc::from)
    }

    /// Forgets number `i`.
    pub(crate) fn remove(&self, i: u32) {
        // Dropped after the XArray lock is released: the last reference may free
        // memory in ways that sleep.
        let v = self.xa.lock().remove(i as usize);
        drop(v);
    }
}

#[kernel::macros::kunit_tests(rrxe_pool)]
mod tests {
    use super::*;

    fn pool(min: u32, max: u32) -> Pin<KBox<Pool<u32>>> {
        KBox::pin_init(Pool::new(min, max), GFP_KERNEL).unwrap()
    }

    fn add(p: &Pool<u32>, v: u32) -> Result<u32> {
        p.insert_with(|_| Ok(Arc::new(v, GFP_KERNEL)?))
            .map(|(i, _)| i)
    }

    #[test]
    fn numbers_rotate_and_stay_in_range() {
        let p = pool(16, 19);
        assert_eq!(add(&p, 1), Ok(16));
        assert_eq!(add(&p, 2), Ok(17));
        p.remove(16);
        // A freed number is not reused at once: stale handles miss.
        assert_eq!(add(&p, 3), Ok(18));
        assert_eq!(add(&p, 4), Ok(19));
        assert_eq!(add(&p, 5), Ok(16));
        assert_eq!(add(&p, 6), Err(ENOMEM));
        assert_eq!(p.get(17).map(|v| *v), Some(2));
        assert!(p.get(15).is_none() && p.get(20).is_none() && p.get(u32::MAX).is_none());
    }

    #[test]
    fn fixed_numbers_and_lookups() {
        let p = pool(16, 31);
        p.insert_at(1, Arc::new(7, GFP_KERNEL).unwrap()).unwrap();
        assert_eq!(
            p.insert_at(1, Arc::new(8, GFP_KERNEL).unwrap()),
            Err(EEXIST)
        );
        assert_eq!(p.get(1).map(|v| *v), Some(7));
        p.remove(1);
        assert!(p.get(1).is_none());
        // A failing constructor leaves the number free.
        assert_eq!(p.insert_with(|_| Err(EINVAL)).map(|(i, _)| i), Err(EINVAL));
        assert_eq!(add(&p, 9), Ok(16));
    }
}
