// SPDX-License-Identifier: GPL-2.0

//! Kernel buffers that user space may map: the memory behind mmapped queues.
//!
//! A [`SharedBuf`] is `vmalloc_user` memory plus an `rdma_user_mmap_entry`. Once
//! [`published`](super::uverbs::UData::publish) to a ucontext, the process can `mmap`
//! it at the returned offset; the RDMA core tracks the entry and calls `mmap_free` when
//! the last reference goes, which frees the memory. Pages already mapped survive the
//! free (each mapping holds page references), so an object may be destroyed before
//! user space unmaps its queue (rdma-core's rxe provider does that).
//!
//! The `mmap` and `mmap_free` ops are installed with the user-context ops
//! ([`super::ucontext`]).
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h)
//! (`rdma_user_mmap_entry_insert` and friends).
//!
//! Everything in a shared buffer is untrusted: user space can write any byte at any
//! time. The accessors copy in and out with bounds checks, and never hand out Rust
//! references into the buffer.

use crate::{bindings, error::to_result, prelude::*};
use core::{mem::offset_of, ptr::NonNull};

/// The allocation the core's mmap entry points into.
#[repr(C)]
struct Entry {
    /// Must be first: `mmap_free` gets a pointer to it.
    entry: bindings::rdma_user_mmap_entry,
    buf: *mut u8,
    len: usize,
}

/// A zeroed, page-granular buffer that user space may map.
///
/// Lifetime: owned by the provider's object (a ring); once published, the memory
/// lives until both this value is dropped and the last mapping is gone. Locking:
/// none; every access is a bounds-checked copy or an atomic index word, since user
/// space writes at will.
///
/// # Invariants
///
/// `entry` points at a live `Entry` whose `buf` is a `vmalloc_user` allocation of at
/// least `len` bytes. While not `published`, this value owns both; once published the
/// RDMA core owns them and frees them in `mmap_free` after [`Drop`] removes the entry.
pub struct SharedBuf {
    entry: NonNull<Entry>,
    published: bool,
}

// SAFETY: The buffer is plain memory; access is through raw, bounds-checked copies.
unsafe impl Send for SharedBuf {}
// SAFETY: See `Send`. Concurrent accesses are racy by nature (user space writes at
// will) and every access treats the contents as untrusted bytes.
unsafe impl Sync for SharedBuf {}

impl SharedBuf {
    /// Allocates `len` bytes (rounded up to whole pages), zeroed.
    pub fn new(len: usize) -> Result<Self> {
        if len == 0 || len > u32::MAX as usize {
            return Err(EINVAL);
        }
        let e = KBox::new(
            Entry {
                entry: pin_init::zeroed(),
                buf: core::ptr::null_mut(),
                len,
            },
            GFP_KERNEL,
        )?;
        // SAFETY: Plain allocation; returns null or a zeroed, user-mappable area.
        let buf = unsafe { bindings::vmalloc_user_noprof(len) }.cast::<u8>();
        if buf.is_null() {
            return Err(ENOMEM);
        }
        let e = KBox::into_raw(e);
        // SAFETY: `e` is the live allocation just leaked.
        unsafe { (*e).buf = buf };
        Ok(Self {
            // SAFETY: `KBox::into_raw` never returns null.
            entry: unsafe { NonNull::new_unchecked(e) },
            published: false,
        })
    }

    /// The usable length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        // SAFETY: By the type invariant the entry is live.
        unsafe { (*self.entry.as_ptr()).len }
    }

    /// Always false: a shared buffer has at least one byte.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The mapping size user space must request: the length rounded up to pages.
    #[inline]
    pub fn map_len(&self) -> usize {
        self.len().next_multiple_of(bindings::PAGE_SIZE)
    }

    #[inline]
    fn ptr_at(&self, off: usize, n: usize) -> Result<*mut u8> {
        let end = off.checked_add(n).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        // SAFETY: By the type invariant `buf` is valid for `len` bytes; `off <= len`.
        Ok(unsafe { (*self.entry.as_ptr()).buf.add(off) })
    }

    /// Copies `dst.len()` bytes at `off` out of the buffer: one snapshot of what user
    /// space had written there.
    #[inline]
    pub fn read(&self, off: usize, dst: &mut [u8]) -> Result {
        let src = self.ptr_at(off, dst.len())?;
        // SAFETY: `src` is in bounds (checked above) and never overlaps kernel-private
        // `dst`. User space may write concurrently; the bytes copied are treated as
        // untrusted data only, never as Rust values with invariants.
        unsafe { core::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    /// Copies `src` into the buffer at `off`.
    #[inline]
    pub fn write(&self, off: usize, src: &[u8]) -> Result {
        let dst = self.ptr_at(off, src.len())?;
        // SAFETY: In bounds, as in `read`; no Rust reference into the buffer exists.
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
        Ok(())
    }

    /// Zeroes `n` bytes at `off`.
    #[inline]
    pub fn clear(&self, off: usize, n: usize) -> Result {
        let dst = self.ptr_at(off, n)?;
        // SAFETY: In bounds, as in `read`.
        unsafe { core::ptr::write_bytes(dst, 0, n) };
        Ok(())
    }

    #[inline]
    fn atomic_u32(&self, off: usize) -> Result<&crate::sync::atomic::Atomic<u32>> {
        if off % 4 != 0 {
            return Err(EINVAL);
        }
        let p = self.ptr_at(off, 4)?;
        // SAFETY: `p` is 4-aligned (vmalloc memory is page-aligned and `off` is a
        // multiple of 4), in bounds, and lives as long as `self`. All kernel accesses
        // to index words go through atomics; user space uses atomics as well.
        Ok(unsafe { crate::sync::atomic::Atomic::from_ptr(p.cast::<u32>()) })
    }

    /// `smp_load_acquire` of the `u32` at `off`: reads an index the other side
    /// publishes after writing the entries it covers.
    #[inline]
    pub fn load_acquire(&self, off: usize) -> Result<u32> {
        Ok(self.atomic_u32(off)?.load(crate::sync::atomic::Acquire))
    }

    /// `smp_store_release` of the `u32` at `off`: publishes an index after the entries
    /// it covers were written or consumed.
    #[inline]
    pub fn store_release(&self, off: usize, v: u32) -> Result {
        self.atomic_u32(off)?.store(v, crate::sync::atomic::Release);
        Ok(())
    }

    /// `READ_ONCE` of the `u32` at `off`: a word the other side writes, with no
    /// ordering against the buffer's other bytes.
    #[inline]
    pub fn load_once(&self, off: usize) -> Result<u32> {
        Ok(self.atomic_u32(off)?.load(crate::sync::atomic::Relaxed))
    }

    /// `WRITE_ONCE` of the `u32` at `off`: a flag for the other side, ordered by
    /// the caller's barriers if it needs ordering.
    #[inline]
    pub fn store_once(&self, off: usize, v: u32) -> Result {
        self.atomic_u32(off)?.store(v, crate::sync::atomic::Relaxed);
        Ok(())
    }

    /// Fully ordered compare-and-exchange of the `u32` at `off` (`cmpxchg`):
    /// whether the word held `old` and now holds `new`. User space may change the
    /// word at any time; the caller trusts only the exchange's outcome.
    ///
    /// ```
    /// use kernel::rdma::shared_buf::SharedBuf;
    /// let b = SharedBuf::new(64)?;
    /// b.store_once(8, 3)?;
    /// assert!(!b.cmpxchg(8, 2, 0)?);
    /// assert!(b.cmpxchg(8, 3, 0)?);
    /// assert_eq!(b.load_once(8)?, 0);
    /// assert!(b.cmpxchg(6, 0, 1).is_err()); // unaligned
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub fn cmpxchg(&self, off: usize, old: u32, new: u32) -> Result<bool> {
        Ok(self
            .atomic_u32(off)?
            .cmpxchg(old, new, crate::sync::atomic::Full)
            .is_ok())
    }

    /// Makes the buffer mappable through `ctx`. Returns the mmap offset.
    ///
    /// # Safety
    ///
    /// `ctx` must be a valid ucontext of the device whose `mmap`/`mmap_free` ops are
    /// [`mmap_cb`] and [`mmap_free_cb`].
    pub(crate) unsafe fn publish(&mut self, ctx: *mut bindings::ib_ucontext) -> Result<u64> {
        if self.published {
            return Err(EBUSY);
        }
        let e = self.entry.as_ptr();
        // SAFETY: `e` is live and not yet inserted; the length covers the mapping.
        to_result(unsafe {
            bindings::rdma_user_mmap_entry_insert(ctx, &raw mut (*e).entry, self.map_len())
        })?;
        self.published = true;
        // SAFETY: Inserted entries have a valid `start_pgoff`.
        Ok(unsafe { ((*e).entry.start_pgoff as u64) << bindings::PAGE_SHIFT })
    }
}

impl Drop for SharedBuf {
    fn drop(&mut self) {
        // Removing the mmap entry takes a mutex, and vfree may sleep.
        crate::task::might_sleep();
        let e = self.entry.as_ptr();
        if self.published {
            // SAFETY: The entry was inserted. Removing it stops new mappings and drops
            // our reference; `mmap_free_cb` frees the memory when the last goes.
            unsafe { bindings::rdma_user_mmap_entry_remove(&raw mut (*e).entry) };
        } else {
            // SAFETY: Never published: we own the entry and the buffer.
            unsafe { free_entry(e) };
        }
    }
}

/// # Safety
///
/// `e` must be a live `Entry` from [`SharedBuf::new`] nobody else uses any more.
unsafe fn free_entry(e: *mut Entry) {
    // SAFETY: Per the contract: the buffer came from `vmalloc_user`, the entry from
    // `KBox::into_raw`.
    unsafe {
        bindings::vfree((*e).buf.cast());
        drop(KBox::from_raw(e));
    }
}

/// `ib_device_ops.mmap`: maps the shared buffer published at the VMA's offset.
///
/// # Safety
///
/// Called only by the RDMA core with a valid ucontext and VMA.
pub(crate) unsafe extern "C" fn mmap_cb(
    ctx: *mut bindings::ib_ucontext,
    vma: *mut bindings::vm_area_struct,
) -> crate::ffi::c_int {
    // SAFETY: Valid arguments per the contract. The lookup checks the offset, the exact
    // size and VM_SHARED, and takes a reference that keeps the entry alive.
    let entry = unsafe { bindings::rdma_user_mmap_entry_get(ctx, vma) };
    if entry.is_null() {
        return -(bindings::EINVAL as crate::ffi::c_int);
    }
    let e = entry.cast::<Entry>();
    // SAFETY: Every entry of this driver is the first field of an `Entry`; the
    // reference taken above keeps it and its buffer alive.
    let ret = unsafe { bindings::remap_vmalloc_range(vma, (*e).buf.cast(), 0) };
    // SAFETY: Drops the lookup's reference.
    unsafe { bindings::rdma_user_mmap_entry_put(entry) };
    ret
}

/// `ib_device_ops.mmap_free`: the last reference to a published buffer went away.
///
/// # Safety
///
/// Called only by the RDMA core, once per entry inserted by [`SharedBuf::publish`].
pub(crate) unsafe extern "C" fn mmap_free_cb(entry: *mut bindings::rdma_user_mmap_entry) {
    const _: () = assert!(offset_of!(Entry, entry) == 0);
    // SAFETY: The entry is the first field of an `Entry`, and no one uses it any more.
    unsafe { free_entry(entry.cast()) };
}
