// SPDX-License-Identifier: GPL-2.0

//! Memory of kernel consumers of a software RDMA device.
//!
//! A device registered without a DMA device uses "virt DMA" (`ib_uses_virt_dma`):
//! the DMA addresses kernel ULPs put in their SGEs (through `ib_dma_map_*` and the
//! PD's local DMA lkey) are kernel virtual addresses, which the device copies from
//! and to directly.

use crate::fill::Filler;

/// Copies `dst.len()` bytes from kernel consumer memory at `addr`.
///
/// # Safety
///
/// `[addr, addr + dst.len())` must be kernel memory that a kernel consumer mapped
/// for this device and that stays valid and mapped for the duration of the call
/// (it belongs to a work request that is still outstanding).
pub unsafe fn copy_from(addr: u64, dst: &mut [u8]) {
    let len = dst.len();
    // SAFETY: As the caller guarantees; `len` bytes fit in `dst`.
    let _ = unsafe { copy_into(addr, len, &mut Filler::over_init(dst)) };
}

/// Appends `len` bytes from kernel consumer memory at `addr` to `dst`;
/// `ENOSPC` if they do not fit.
///
/// # Safety
///
/// As [`copy_from`], for `[addr, addr + len)`.
pub unsafe fn copy_into(addr: u64, len: usize, dst: &mut Filler<'_>) -> crate::error::Result {
    // SAFETY: The caller guarantees the source range is valid kernel memory; the
    // destination `d` is valid for `len` bytes and a distinct buffer, all of which
    // the copy writes.
    unsafe {
        dst.fill_raw(len, |d| {
            core::ptr::copy_nonoverlapping(addr as usize as *const u8, d, len);
            Ok(())
        })
    }
}

/// Copies `src` to kernel consumer memory at `addr`.
///
/// # Safety
///
/// As [`copy_from`], and the range must be writable by the device.
pub unsafe fn copy_to(addr: u64, src: &[u8]) {
    // SAFETY: The caller guarantees the destination range is valid, writable kernel
    // memory; the source is a distinct Rust buffer.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), addr as usize as *mut u8, src.len()) };
}
