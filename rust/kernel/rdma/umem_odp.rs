// SPDX-License-Identifier: GPL-2.0

//! On-demand-paging user memory (`struct ib_umem_odp`), for providers that copy
//! through the CPU.
//!
//! C header: [`include/rdma/ib_umem_odp.h`](srctree/include/rdma/ib_umem_odp.h).
//!
//! An ODP region pins nothing. Its pages are found when first used
//! ([`UmemOdp::fault`]) and given back when the process's mm invalidates them,
//! through an MMU interval notifier that this module registers.
//!
//! A software provider copies to and from the pages in atomic context (in
//! softirq, under its QP's spinlock), where it can neither fault a page in nor
//! take the umem's mutex. So [`UmemOdp`] keeps a residency map, one entry per
//! page:
//!
//! - [`UmemOdp::fault`] sets entries, and the invalidation clears them, both
//!   under the umem's mutex, so the two are ordered as the core orders them;
//! - the copies read entries under a spinlock, which the invalidation also
//!   takes before it returns, that is before the mm may free the page.
//!
//! A copy that meets a page that is not resident fails with `EAGAIN` and leaves
//! that page untouched; the provider faults the range in from a context that may
//! sleep and runs the copy again. A copy that meets a page whose last fault
//! failed (the address is no longer mapped) fails with `EFAULT`, once; the next
//! copy faults again.
//!
//! # Examples
//!
//! ```ignore
//! // In a context that may sleep: register, then fault the first page in.
//! let odp = UmemOdp::get(dev, addr, len, access)?;
//! odp.fault(0, 4096, true)?;
//! // In any context: copy, or learn that the page must be faulted in first.
//! match odp.copy_to(0, &data) {
//!     Err(e) if e == EAGAIN => { /* fault it in from a work item, then again */ }
//!     r => r?,
//! }
//! ```

use super::{
    device::{Device, Driver},
    mr::AccessFlags,
    umem,
};
use crate::ffi::c_ulong;
use crate::{
    bindings,
    error::from_err_ptr,
    fill::Filler,
    new_spinlock_irq,
    page::{BorrowedPage, PAGE_SHIFT, PAGE_SIZE},
    prelude::*,
    sync::SpinLockIrq,
};
use core::{ops::Range, ptr::NonNull};

/// An entry of the residency map: the page is not known to be resident.
const ABSENT: usize = 0;
/// An entry of the residency map: the last fault of the page failed.
const FAILED: usize = 1;
/// Set, with the page's address, in the entry of a page that may be written.
const WRITABLE: usize = 2;
/// The flag bits of an entry; the rest is the address of the `struct page`,
/// which is at least 4-byte aligned.
const FLAGS: usize = FAILED | WRITABLE;

/// The residency map: one entry per page of the umem (`ABSENT`, `FAILED`, or the
/// page's address with `WRITABLE` if it may be written).
///
/// Locking: entries are set and cleared under both the umem's mutex and this
/// lock; copies read them under this lock only. Lifetime: owned by the
/// [`UmemOdp`], and freed only after its notifier is removed.
#[pin_data]
struct Residency {
    #[pin]
    pages: SpinLockIrq<KVVec<usize>>,
}

impl Residency {
    /// Marks pages `r` (indices into the map) not resident, and those that
    /// were writable dirty: copies write them through the kernel's mapping, so
    /// the mm would not know (the core dirties only pages mapped for DMA; with
    /// virtual DMA, as rdma_rxe's, it dirties none, and a page written after
    /// `MADV_FREE` could be discarded). Called under the umem's mutex, so no
    /// fault sets an entry meanwhile, and before the mm may free the pages.
    fn forget(&self, r: Range<usize>) {
        for i in r {
            let e = {
                let mut pages = self.pages.lock();
                let Some(e) = pages.get_mut(i) else {
                    break;
                };
                core::mem::replace(e, ABSENT)
            };
            if e & WRITABLE == 0 {
                continue;
            }
            if let Some(page) = NonNull::new((e & !FLAGS) as *mut bindings::page) {
                // SAFETY: The entry held a resident page, which the mm frees only
                // after the invalidation returns; the head page is as live.
                unsafe { bindings::set_page_dirty(bindings::compound_head(page.as_ptr())) };
            }
        }
    }
}

/// A user memory region registered for on-demand paging. Released on drop.
///
/// Lifetime: owned by the provider's MR and dropped, in a context that may
/// sleep, when it is deregistered; the release removes the notifier and waits
/// for a running invalidation. Locking: as the [module documentation](self)
/// says; shared access is safe from any context but [`UmemOdp::fault`].
///
/// # Invariants
///
/// `raw` is a live ODP umem returned by `ib_umem_odp_get` with [`ODP_OPS`],
/// owned by this value, whose pages are `PAGE_SIZE` each. Its `private` field
/// is null or points to `*map`, and is set only under its `umem_mutex`. `map`
/// has one entry per page of the umem.
pub struct UmemOdp {
    raw: NonNull<bindings::ib_umem_odp>,
    map: Pin<KBox<Residency>>,
}

// SAFETY: An ODP umem is not tied to the registering thread; it is released from
// any context that may sleep.
unsafe impl Send for UmemOdp {}
// SAFETY: Shared access reads immutable fields, or the map under its lock.
unsafe impl Sync for UmemOdp {}

/// The notifier operations of every [`UmemOdp`].
static ODP_OPS: bindings::mmu_interval_notifier_ops = bindings::mmu_interval_notifier_ops {
    invalidate: Some(invalidate),
    invalidate_start: None,
    invalidate_finish: None,
};

/// The mm is about to unmap `range`: forgets its pages in the map, then gives
/// back their mappings (rdma_rxe's `rxe_ib_invalidate_range`, with the map).
///
/// # Safety
///
/// Called by the MMU notifier core only, with the notifier of an ODP umem that
/// was created with [`ODP_OPS`] and is not yet released, and a valid `range`.
unsafe extern "C" fn invalidate(
    sub: *mut bindings::mmu_interval_notifier,
    range: *const bindings::mmu_notifier_range,
    cur_seq: c_ulong,
) -> bool {
    // SAFETY: By the function's safety requirements `sub` is the `notifier` field
    // of a live `ib_umem_odp`.
    let odp: *mut bindings::ib_umem_odp =
        unsafe { crate::container_of!(sub, bindings::ib_umem_odp, notifier) };
    // SAFETY: `range` is valid (safety requirements).
    if !unsafe { bindings::mmu_notifier_range_blockable(range) } {
        return false;
    }
    // SAFETY: `odp` is live; its mutex is initialised.
    unsafe { bindings::mutex_lock(&raw mut (*odp).umem_mutex) };
    // SAFETY: Under the umem's mutex, which also orders `mmu_interval_read_retry`
    // in `ib_umem_odp_map_dma_and_lock`.
    unsafe { bindings::mmu_interval_set_seq(sub, cur_seq) };
    // SAFETY: `odp` and `range` are valid.
    let (first, end, start, stop) = unsafe {
        let first = bindings::ib_umem_start(odp);
        let end = bindings::ib_umem_end(odp);
        (first, end, first.max((*range).start), end.min((*range).end))
    };
    if start < stop {
        // SAFETY: `private` is read under the mutex it is set under.
        let map = unsafe { (*odp).private }.cast::<Residency>().cast_const();
        if !map.is_null() {
            // SAFETY: By the type invariant of the `UmemOdp` owning `odp`, a
            // non-null `private` is its map, which lives until after the notifier
            // is removed, and the notifier is still in (we are called through it).
            let map = unsafe { &*map };
            let (from, to) = (start - first, (stop - first).min(end - first));
            map.forget(from >> PAGE_SHIFT..to.div_ceil(PAGE_SIZE));
        }
        // SAFETY: Under the umem's mutex, with the range clipped to the umem.
        unsafe { bindings::ib_umem_odp_unmap_dma_pages(odp, start as u64, stop as u64) };
    }
    // SAFETY: Locked above.
    unsafe { bindings::mutex_unlock(&raw mut (*odp).umem_mutex) };
    true
}

impl UmemOdp {
    /// Registers `len` bytes at user address `addr` of the calling process for
    /// on-demand paging by `dev`, with `access`. Nothing is faulted in. Fails with
    /// `EOPNOTSUPP` for huge-page regions (`IB_ACCESS_HUGETLB`).
    pub fn get<T: Driver>(
        dev: &Device<T>,
        addr: u64,
        len: u64,
        access: AccessFlags,
    ) -> Result<Self> {
        let addr = usize::try_from(addr).map_err(|_| EINVAL)?;
        let len = usize::try_from(len).map_err(|_| EINVAL)?;
        // SAFETY: The device is valid; the core validates the range and access, and
        // `ODP_OPS` is static.
        let p = from_err_ptr(unsafe {
            bindings::ib_umem_odp_get(dev.as_raw(), addr, len, access.bits() as i32, &ODP_OPS)
        })?;
        let raw = NonNull::new(p).ok_or(ENOMEM)?;
        let release = |e: Error| {
            // SAFETY: We own the umem and nothing else has seen it.
            unsafe { bindings::ib_umem_odp_release(raw.as_ptr()) };
            e
        };
        // SAFETY: The umem is live.
        let (shift, first, end) = unsafe {
            let o = raw.as_ptr();
            (
                (*o).page_shift,
                bindings::ib_umem_start(o),
                bindings::ib_umem_end(o),
            )
        };
        if shift as usize != PAGE_SHIFT {
            return Err(release(EOPNOTSUPP));
        }
        let n = (end - first) >> PAGE_SHIFT;
        let pages = KVVec::from_elem(ABSENT, n, GFP_KERNEL).map_err(|_| release(ENOMEM))?;
        let map = KBox::pin_init(
            pin_init!(Residency {
                pages <- new_spinlock_irq!(pages),
            }),
            GFP_KERNEL,
        )
        .map_err(release)?;
        // SAFETY: The umem is live; `private` is set under its mutex, which the
        // invalidation reads it under. The map outlives the notifier (`Drop`).
        unsafe {
            let o = raw.as_ptr();
            bindings::mutex_lock(&raw mut (*o).umem_mutex);
            (*o).private = (&raw const *map).cast_mut().cast();
            bindings::mutex_unlock(&raw mut (*o).umem_mutex);
        }
        Ok(Self { raw, map })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: By the type invariant.
        unsafe { (*self.raw.as_ptr()).umem.length }
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The user address the range starts at.
    pub fn address(&self) -> u64 {
        // SAFETY: By the type invariant.
        unsafe { (*self.raw.as_ptr()).umem.address as u64 }
    }

    /// The index in the map of the page holding byte `off` of the range.
    fn page_index(&self, off: usize) -> usize {
        // SAFETY: By the type invariant.
        let first = unsafe { bindings::ib_umem_start(self.raw.as_ptr()) } as usize;
        (self.address() as usize + off - first) >> PAGE_SHIFT
    }

    /// Faults in the pages holding bytes `off..off + len` of the range, writable if
    /// `write`, and marks them resident. May sleep: it runs the process's page
    /// faults (`hmm_range_fault`). Fails with `EINVAL` if the bytes are not all in
    /// the range, and as the fault does (`EFAULT` where nothing is mapped); the
    /// pages it could not fault in are then marked so that the next copy that
    /// reaches them fails.
    pub fn fault(&self, off: usize, len: usize, write: bool) -> Result {
        crate::task::might_sleep();
        let end = off.checked_add(len).ok_or(EINVAL)?;
        if len == 0 || end > self.len() {
            return Err(EINVAL);
        }
        let va = self.address() + off as u64;
        let mask = if write {
            bindings::hmm_pfn_flags_HMM_PFN_WRITE as u64
        } else {
            0
        };
        let pages = self.page_index(off)..self.page_index(end - 1) + 1;
        // SAFETY: The umem is live (type invariant) and the range is inside it.
        let np = unsafe {
            bindings::ib_umem_odp_map_dma_and_lock(self.raw.as_ptr(), va, len as u64, mask, true)
        };
        if np < 0 {
            // The fault of a range fails if any page of it does: the first
            // page, the one the caller needs, is tried alone before it is
            // marked, and the rest is left to be faulted when it is reached.
            let first_len = (PAGE_SIZE - (va as usize & (PAGE_SIZE - 1))).min(len);
            if first_len < len {
                return self.fault(off, first_len, write);
            }
            self.fail(pages, write);
            return Err(Error::from_errno(np));
        }
        // On success the umem's mutex is held: the PFNs of the range stay as the
        // fault left them until it is unlocked, and no invalidation runs meanwhile.
        let mut ok = true;
        {
            let mut map = self.map.pages.lock();
            for i in pages.clone() {
                // SAFETY: `i` is a page of the umem, whose PFN list has an entry per
                // page; the mutex is held.
                let pfn = unsafe { *(*self.raw.as_ptr()).map.pfn_list.add(i) };
                let valid = pfn & bindings::hmm_pfn_flags_HMM_PFN_VALID as c_ulong != 0;
                let writable = pfn & bindings::hmm_pfn_flags_HMM_PFN_WRITE as c_ulong != 0;
                let entry = if valid {
                    // SAFETY: A valid HMM PFN names a page.
                    let page = unsafe { bindings::hmm_pfn_to_page(pfn) } as usize;
                    page | if writable { WRITABLE } else { 0 }
                } else {
                    FAILED
                };
                ok &= valid && (writable || !write);
                if let Some(e) = map.get_mut(i) {
                    *e = entry;
                }
            }
        }
        // SAFETY: Locked by the successful `ib_umem_odp_map_dma_and_lock`.
        unsafe { bindings::mutex_unlock(&raw mut (*self.raw.as_ptr()).umem_mutex) };
        if ok {
            Ok(())
        } else {
            self.fail(pages, write);
            Err(EFAULT)
        }
    }

    /// Marks the pages `pages` that a fault could not make resident (writable, if
    /// `write`) as failed, so that the next copy that reaches them fails rather
    /// than ask for the same fault again.
    fn fail(&self, pages: Range<usize>, write: bool) {
        let mut map = self.map.pages.lock();
        for e in map.iter_mut().take(pages.end).skip(pages.start) {
            if *e == ABSENT || (write && *e & WRITABLE == 0) {
                *e = FAILED;
            }
        }
    }

    /// Calls `op` on the pieces of the range's bytes `off..off + len`, each within
    /// one page, under the map's lock: the page, the piece's offset in it, and the
    /// piece's range in `0..len`. Fails with `EINVAL` if the bytes are not all in
    /// the range, and with `EAGAIN` at the first page that is not resident
    /// (writable, if `write`), before calling `op` for it.
    fn for_each_piece(
        &self,
        off: usize,
        len: usize,
        write: bool,
        mut op: impl FnMut(&BorrowedPage<'_>, usize, Range<usize>) -> Result,
    ) -> Result {
        let end = off.checked_add(len).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        let mut map = self.map.pages.lock();
        let start = (self.address() as usize & (PAGE_SIZE - 1)) + off;
        let first = self.page_index(0);
        let mut done = 0;
        while done < len {
            let pos = start + done;
            let in_page = pos & (PAGE_SIZE - 1);
            let n = (PAGE_SIZE - in_page).min(len - done);
            let e = map.get_mut(first + pos / PAGE_SIZE).ok_or(EINVAL)?;
            match *e {
                ABSENT => return Err(EAGAIN),
                FAILED => {
                    // Once: the next access faults again.
                    *e = ABSENT;
                    return Err(EFAULT);
                }
                v if write && v & WRITABLE == 0 => return Err(EAGAIN),
                v => {
                    let page = NonNull::new((v & !FLAGS) as *mut bindings::page).ok_or(EFAULT)?;
                    // SAFETY: The entry says the page is resident, and the lock keeps
                    // the invalidation, after which the mm may free it, from
                    // clearing the entry until the copy is done.
                    let page = unsafe { BorrowedPage::from_raw(page) };
                    op(&page, in_page, done..done + n)?;
                }
            }
            done += n;
        }
        Ok(())
    }

    /// Appends `len` bytes at byte offset `off` of the range to `dst`. Works in
    /// any context; `EAGAIN` means a page must be faulted in first
    /// ([`UmemOdp::fault`]).
    pub fn copy_into(&self, off: usize, len: usize, dst: &mut Filler<'_>) -> Result {
        if len > dst.remaining() {
            return Err(ENOSPC);
        }
        self.for_each_piece(off, len, false, |page, in_page, r| {
            umem::piece_into(page, in_page, r.len(), dst)
        })
    }

    /// Copies `src` into the range at byte offset `off`. Works in any context;
    /// `EAGAIN` means a page must be faulted in (for writing) first, and the
    /// pages before it may already hold their part of `src`.
    pub fn copy_to(&self, off: usize, src: &[u8]) -> Result {
        self.for_each_piece(off, src.len(), true, |page, in_page, r| {
            umem::piece_from(page, in_page, src.get(r).ok_or(EINVAL)?)
        })
    }

    /// How many of the bytes `off..off + len` a copy could reach now, from `off`
    /// up to the first page that is not resident (writable, if `write`): `len`
    /// if all. Fails as a copy would at a page whose last fault failed
    /// (`EFAULT`), and with `EINVAL` outside the range. Only a hint: an
    /// invalidation may come right after.
    pub fn resident_len(&self, off: usize, len: usize, write: bool) -> Result<usize> {
        let mut reached = 0;
        let r = self.for_each_piece(off, len, write, |_, _, piece| {
            reached = piece.end;
            Ok(())
        });
        match r {
            Ok(()) => Ok(len),
            Err(e) if e == EAGAIN => Ok(reached),
            Err(e) => Err(e),
        }
    }
}

impl Drop for UmemOdp {
    fn drop(&mut self) {
        crate::task::might_sleep();
        // SAFETY: By the type invariant we own the umem. The release removes the
        // notifier and waits for a running invalidation, so the map, dropped
        // after this, is no longer reachable through `private`.
        unsafe { bindings::ib_umem_odp_release(self.raw.as_ptr()) };
    }
}
