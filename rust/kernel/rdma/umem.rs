// SPDX-License-Identifier: GPL-2.0

//! Pinned user memory (`struct ib_umem`) behind user memory regions.
//!
//! C header: [`include/rdma/ib_umem.h`](srctree/include/rdma/ib_umem.h).

use super::{
    device::{Device, Driver},
    mr::AccessFlags,
};
use crate::{
    bindings,
    error::from_err_ptr,
    fill::Filler,
    page::{BorrowedPage, PAGE_SIZE},
    prelude::*,
};
use core::{ops::Range, ptr::NonNull};

/// A pinned range of a process's memory. Unpinned on drop.
///
/// Lifetime: owned by the provider's MR, dropped (in a context that may sleep)
/// when the MR is deregistered. Locking: immutable; copies in and out of the pages
/// race only with the process itself, as any access to memory it registered.
///
/// The pinned pages are also kept in an array, so a copy finds its page by
/// index. `ib_umem_copy_from` walks the scatterlist from its start to the offset
/// on every call, which for a packet deep in a large region cost more than the
/// copy itself.
///
/// # Invariants
///
/// `raw` is a live umem returned by `ib_umem_get_va` and owned by this value.
/// `pages` holds its pinned pages in address order: page `i` backs the bytes
/// `i * PAGE_SIZE - in_page_offset(address)` onwards. They stay pinned until
/// `raw` is released.
pub struct Umem {
    raw: NonNull<bindings::ib_umem>,
    pages: KVVec<NonNull<bindings::page>>,
}

// SAFETY: A umem is not tied to the pinning thread; it is released from any context
// that may sleep.
unsafe impl Send for Umem {}
// SAFETY: Shared access only reads immutable fields or copies out of the pages.
unsafe impl Sync for Umem {}

impl Umem {
    /// Pins `len` bytes at user address `addr` of the calling process for `dev`, with
    /// `access` (writable access pins for writing).
    pub fn pin<T: Driver>(
        dev: &Device<T>,
        addr: u64,
        len: u64,
        access: AccessFlags,
    ) -> Result<Self> {
        let addr = usize::try_from(addr).map_err(|_| EINVAL)?;
        let len = usize::try_from(len).map_err(|_| EINVAL)?;
        // SAFETY: The device is valid; the core validates the range and access.
        let p = from_err_ptr(unsafe {
            bindings::ib_umem_get_va(dev.as_raw(), addr, len, access.bits() as i32)
        })?;
        let raw = NonNull::new(p).ok_or(ENOMEM)?;
        let pages = match Self::collect_pages(raw, addr, len) {
            Ok(pages) => pages,
            Err(e) => {
                // SAFETY: We own the umem and nothing else has seen it.
                unsafe { bindings::ib_umem_release(raw.as_ptr()) };
                return Err(e);
            }
        };
        Ok(Self { raw, pages })
    }

    /// The pages of the live umem `raw`, which pins `len` bytes at `addr`.
    fn collect_pages(
        raw: NonNull<bindings::ib_umem>,
        addr: usize,
        len: usize,
    ) -> Result<KVVec<NonNull<bindings::page>>> {
        let first = addr & !(PAGE_SIZE - 1);
        let end = addr.checked_add(len).ok_or(EINVAL)?;
        let count = end.div_ceil(PAGE_SIZE) - first / PAGE_SIZE;
        let mut pages = KVVec::with_capacity(count, GFP_KERNEL)?;
        let mut iter: bindings::sg_page_iter = pin_init::zeroed();
        // SAFETY: The umem is live, so is its table; the iterator only reads it.
        unsafe {
            let sgt = &raw const (*raw.as_ptr()).sgt_append.sgt;
            bindings::__sg_page_iter_start(&mut iter, (*sgt).sgl, (*sgt).orig_nents, 0);
        }
        // SAFETY: `iter` was started on the live table above.
        while unsafe { bindings::__sg_page_iter_next(&mut iter) } {
            // SAFETY: `iter` stands on a page of the table.
            let page = unsafe { bindings::sg_page_iter_page(&mut iter) };
            let page = NonNull::new(page).ok_or(EFAULT)?;
            // The table never has more pages than the range spans.
            pages.push_within_capacity(page).map_err(|_| EFAULT)?;
        }
        if pages.len() != count {
            return Err(EFAULT);
        }
        Ok(pages)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: By the type invariant.
        unsafe { (*self.raw.as_ptr()).length }
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The user address the range starts at.
    pub fn address(&self) -> u64 {
        // SAFETY: By the type invariant.
        unsafe { (*self.raw.as_ptr()).address as u64 }
    }

    /// Calls `op` on the pieces of the range's bytes `off..off + len`, each within
    /// one page: the page, the piece's offset in it, and the piece's range in
    /// `0..len`. Fails with `EINVAL` if the bytes are not all in the range.
    fn for_each_piece(
        &self,
        off: usize,
        len: usize,
        mut op: impl FnMut(&BorrowedPage<'_>, usize, Range<usize>) -> Result,
    ) -> Result {
        let end = off.checked_add(len).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        let start = (self.address() as usize & (PAGE_SIZE - 1)) + off;
        let mut done = 0;
        while done < len {
            let pos = start + done;
            let in_page = pos & (PAGE_SIZE - 1);
            let n = (PAGE_SIZE - in_page).min(len - done);
            let page = *self.pages.get(pos / PAGE_SIZE).ok_or(EINVAL)?;
            // SAFETY: The page stays pinned while `self` lives (type invariant).
            let page = unsafe { BorrowedPage::from_raw(page) };
            op(&page, in_page, done..done + n)?;
            done += n;
        }
        Ok(())
    }

    /// Appends `len` bytes at byte offset `off` of the range to `dst`. Works in
    /// any context.
    #[inline]
    pub fn copy_into(&self, off: usize, len: usize, dst: &mut Filler<'_>) -> Result {
        if len > dst.remaining() {
            return Err(ENOSPC);
        }
        self.for_each_piece(off, len, |page, in_page, r| {
            piece_into(page, in_page, r.len(), dst)
        })
    }

    /// Copies `src` into the range at byte offset `off`. Works in any context.
    #[inline]
    pub fn copy_to(&self, off: usize, src: &[u8]) -> Result {
        self.for_each_piece(off, src.len(), |page, in_page, r| {
            piece_from(page, in_page, src.get(r).ok_or(EINVAL)?)
        })
    }
}

/// Appends `n` bytes of `page` from `in_page` on to `dst`: one piece of a copy
/// out of user memory ([`Umem`], and `umem_odp::UmemOdp`). Fails if they are
/// not all in the page.
pub(super) fn piece_into(
    page: &BorrowedPage<'_>,
    in_page: usize,
    n: usize,
    dst: &mut Filler<'_>,
) -> Result {
    // SAFETY: `d` is valid for writes of `n` bytes, which `read_raw` writes all of
    // (on `Ok`) and only; user data racing in has no invariants.
    unsafe { dst.fill_raw(n, |d| page.read_raw(d, in_page, n)) }
}

/// Copies `src` into `page` at `in_page`: one piece of a copy into user memory.
/// Fails if it does not fit in the page.
pub(super) fn piece_from(page: &BorrowedPage<'_>, in_page: usize, src: &[u8]) -> Result {
    // SAFETY: `src` is valid for reads of its length. What user space reads of the
    // page meanwhile is its own concern, as with any memory it registered.
    unsafe { page.write_raw(src.as_ptr(), in_page, src.len()) }
}

impl Drop for Umem {
    fn drop(&mut self) {
        crate::task::might_sleep();
        // SAFETY: By the type invariant we own the umem.
        unsafe { bindings::ib_umem_release(self.raw.as_ptr()) };
    }
}
