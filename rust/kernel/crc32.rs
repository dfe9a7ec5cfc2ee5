// SPDX-License-Identifier: GPL-2.0

//! CRC-32 (IEEE 802.3, reflected), using the architecture's accelerated code.
//!
//! C header: [`include/linux/crc32.h`](srctree/include/linux/crc32.h).

use crate::bindings;

/// Continues the reflected CRC-32 `crc` over `data` (`crc32_le`): no pre- or
/// post-inversion.
#[inline]
pub fn crc32_le(crc: u32, data: &[u8]) -> u32 {
    // SAFETY: `data` is valid for reads of `data.len()` bytes.
    unsafe { bindings::crc32_le(crc, data.as_ptr().cast(), data.len()) }
}
