// SPDX-License-Identifier: GPL-2.0

//! Pinned user memory (`struct ib_umem`) behind user memory regions.

use super::device::{Device, Driver};
use crate::{bindings, error::from_err_ptr, prelude::*};
use core::ptr::NonNull;

/// A pinned range of a process's memory. Unpinned on drop.
///
/// # Invariants
///
/// `0` is a live umem returned by `ib_umem_get_va` and owned by this value.
pub struct Umem(NonNull<bindings::ib_umem>);

// SAFETY: A umem is not tied to the pinning thread; it is released from any context
// that may sleep.
unsafe impl Send for Umem {}
// SAFETY: Shared access only reads immutable fields or copies out of the pages.
unsafe impl Sync for Umem {}

impl Umem {
    /// Pins `len` bytes at user address `addr` of the calling process for `dev`, with
    /// `IB_ACCESS_*` flags `access` (writable access pins for writing).
    pub fn pin<T: Driver>(dev: &Device<T>, addr: u64, len: u64, access: i32) -> Result<Self> {
        let addr = usize::try_from(addr).map_err(|_| EINVAL)?;
        let len = usize::try_from(len).map_err(|_| EINVAL)?;
        // SAFETY: The device is valid; the core validates the range and access.
        let p = from_err_ptr(unsafe { bindings::ib_umem_get_va(dev.as_raw(), addr, len, access) })?;
        Ok(Self(NonNull::new(p).ok_or(ENOMEM)?))
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: By the type invariant.
        unsafe { (*self.0.as_ptr()).length }
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The user address the range starts at.
    pub fn address(&self) -> u64 {
        // SAFETY: By the type invariant.
        unsafe { (*self.0.as_ptr()).address as u64 }
    }

    /// Copies `dst.len()` bytes at byte offset `off` of the range.
    pub fn copy_from(&self, off: usize, dst: &mut [u8]) -> Result {
        // SAFETY: The umem is live; `ib_umem_copy_from` checks the range.
        crate::error::to_result(unsafe {
            bindings::ib_umem_copy_from(dst.as_mut_ptr().cast(), self.0.as_ptr(), off, dst.len())
        })
    }

    /// Copies `src` into the range at byte offset `off`. Works in any context.
    pub fn copy_to(&self, off: usize, src: &[u8]) -> Result {
        let end = off.checked_add(src.len()).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        let u = self.0.as_ptr();
        // SAFETY: The umem is live.
        let address = unsafe { (*u).address };
        // The scatterlist starts at the page holding `address`, hence the in-page
        // offset is added, as `ib_umem_copy_from` does.
        let skip = off
            .checked_add(address & (bindings::PAGE_SIZE - 1))
            .and_then(|s| bindings::off_t::try_from(s).ok())
            .ok_or(EINVAL)?;
        // SAFETY: The umem is live and its pages pinned; the range was checked.
        let n = unsafe {
            let sgt = &raw mut (*u).sgt_append.sgt;
            bindings::sg_pcopy_from_buffer(
                (*sgt).sgl,
                (*sgt).orig_nents,
                src.as_ptr().cast(),
                src.len(),
                skip,
            )
        };
        if n == src.len() {
            Ok(())
        } else {
            Err(EFAULT)
        }
    }
}

impl Drop for Umem {
    fn drop(&mut self) {
        crate::task::might_sleep();
        // SAFETY: By the type invariant we own the umem.
        unsafe { bindings::ib_umem_release(self.0.as_ptr()) };
    }
}
