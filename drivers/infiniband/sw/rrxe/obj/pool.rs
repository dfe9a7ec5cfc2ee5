// SPDX-License-Identifier: GPL-2.0

//! Index pools: QP numbers, MR key indices, AH numbers and SRQ numbers.
//!
//! Every number user space or the wire hands us is looked up here, never turned into a
//! pointer. Indices are handed out round-robin within `[min, max]`, so a freed number
//! is not reused at once and a stale key or QPN from a destroyed object misses.

use kernel::{
    alloc::Flags,
    new_spinlock_irq,
    prelude::*,
    sync::{Arc, SpinLockIrq},
    xarray::{AllocKind, XArray},
};

/// Objects of one kind, by number.
///
/// Every access to the XArray happens under `next`, an IRQ-safe spinlock: lookups
/// come from any context (kernel consumers post from softirq), and the XArray's own
/// lock does not disable interrupts or bottom halves. Nothing is taken under it.
///
/// Lifetime: the device's; it holds a reference to each object in it.
#[pin_data]
pub(crate) struct Pool<V: Send + Sync + 'static> {
    #[pin]
    xa: XArray<Arc<V>>,
    /// The next number to try.
    #[pin]
    next: SpinLockIrq<u32>,
    min: u32,
    max: u32,
}

impl<V: Send + Sync + 'static> Pool<V> {
    pub(crate) fn new(min: u32, max: u32) -> impl PinInit<Self> {
        pin_init!(Self {
            xa <- XArray::new(AllocKind::Alloc),
            next <- new_spinlock_irq!(min),
            min,
            max,
        })
    }

    /// Whether `i` is in the pool's range (whatever is stored there).
    pub(crate) fn covers(&self, i: u32) -> bool {
        (self.min..=self.max).contains(&i)
    }

    /// Picks a free number at or after the cursor and moves the cursor past it.
    fn pick(&self, next: &mut u32) -> Result<u32> {
        let span = self.max - self.min + 1;
        let xa = self.xa.lock();
        let i = (0..span)
            .map(|k| self.min + (*next - self.min + k) % span)
            .find(|&i| xa.get(i as usize).is_none())
            .ok_or(ENOMEM)?;
        *next = if i == self.max { self.min } else { i + 1 };
        Ok(i)
    }

    /// Builds an object for a free number in the pool's range with `make(number)` and
    /// stores it. `ENOMEM` when the range is exhausted. `make` runs without locks
    /// held; `gfp` is what storing may allocate with (`GFP_ATOMIC` in atomic context).
    pub(crate) fn insert_with(
        &self,
        gfp: Flags,
        make: impl FnOnce(u32) -> Result<Arc<V>>,
    ) -> Result<(u32, Arc<V>)> {
        let i = self.pick(&mut self.next.lock())?;
        let v = make(i)?;
        let _guard = self.next.lock();
        let mut xa = self.xa.lock();
        // Another inserter can only have taken `i` after the cursor went round the
        // whole range meanwhile; then this insert fails rather than replace it.
        if xa.get(i as usize).is_some() {
            return Err(EBUSY);
        }
        xa.store(i as usize, v.clone(), gfp).map_err(|e| e.error)?;
        Ok((i, v))
    }

    /// Stores `v` at the fixed number `i` (e.g. QP1). `EEXIST` if taken.
    pub(crate) fn insert_at(&self, i: u32, v: Arc<V>) -> Result {
        let _guard = self.next.lock();
        let mut xa = self.xa.lock();
        if xa.get(i as usize).is_some() {
            return Err(EEXIST);
        }
        xa.store(i as usize, v, GFP_ATOMIC).map_err(|e| e.error)?;
        Ok(())
    }

    /// The object numbered `i`.
    pub(crate) fn get(&self, i: u32) -> Option<Arc<V>> {
        let _guard = self.next.lock();
        let v = self.xa.lock().get(i as usize).map(Arc::from);
        v
    }

    /// Forgets number `i`.
    pub(crate) fn remove(&self, i: u32) {
        let v = {
            let _guard = self.next.lock();
            let v = self.xa.lock().remove(i as usize);
            v
        };
        // Dropped after the locks are released: the last reference may free memory
        // in ways that sleep.
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
        p.insert_with(GFP_KERNEL, |_| Ok(Arc::new(v, GFP_KERNEL)?))
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
        // A failing constructor consumes the number (the cursor moved on) but
        // stores nothing.
        assert_eq!(
            p.insert_with(GFP_KERNEL, |_| Err(EINVAL)).map(|(i, _)| i),
            Err(EINVAL)
        );
        assert_eq!(add(&p, 9), Ok(17));
        assert!(p.get(16).is_none());
    }
}
