// SPDX-License-Identifier: GPL-2.0

//! Filling byte buffers that start uninitialised.
//!
//! A [`Filler`] lets writers append to a buffer and counts what they wrote, so
//! its owner knows which bytes are initialised without trusting the writers. A
//! network packet's payload, gathered from memory regions page by page, then
//! need not be zeroed before it is written.

use crate::prelude::*;
use core::mem::MaybeUninit;

/// A byte buffer being filled from its start.
///
/// # Invariants
///
/// `buf[..filled]` is initialised, and `filled <= buf.len()`.
pub struct Filler<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
}

impl<'a> Filler<'a> {
    /// A filler of `buf`, none of it written yet.
    #[inline]
    pub fn new(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        // INVARIANT: Nothing is claimed initialised.
        Self { buf, filled: 0 }
    }

    /// A filler of an initialised buffer, for code that fills both kinds.
    #[inline]
    pub fn over_init(buf: &'a mut [u8]) -> Self {
        let len = buf.len();
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a filler stores only
        // initialised values (`copy`, `fill_raw`'s contract): `buf` stays initialised.
        let buf = unsafe { core::slice::from_raw_parts_mut(buf.as_mut_ptr().cast(), len) };
        Self::new(buf)
    }

    /// Whether this filler fills the `len` bytes at `ptr`: a closure given a
    /// `&mut Filler` may swap it for another.
    #[inline]
    pub(crate) fn covers(&self, ptr: *const u8, len: usize) -> bool {
        core::ptr::eq(self.buf.as_ptr().cast::<u8>(), ptr) && self.buf.len() == len
    }

    /// Bytes written so far.
    #[inline]
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// Bytes still to be written.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.filled
    }

    /// Appends `src`; `ENOSPC`, and nothing written, if it does not fit.
    #[inline]
    pub fn copy(&mut self, src: &[u8]) -> Result {
        // SAFETY: The closure writes exactly the `src.len()` bytes at `dst`, with
        // initialised values (`src`'s); `src` is not in `buf`, which is
        // borrowed mutably.
        unsafe {
            self.fill_raw(src.len(), |dst| {
                core::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len());
                Ok(())
            })
        }
    }

    /// Appends `n` bytes that `write` stores at the pointer it is given, which
    /// is valid for writes of `n` bytes. `ENOSPC` if they do not fit; an error
    /// from `write` is returned, and its bytes count as not written.
    ///
    /// # Safety
    ///
    /// Whatever it returns, `write` writes only initialised values, and only
    /// within the `n` bytes at the pointer; when it returns `Ok`, it has written
    /// all of them.
    #[inline]
    pub unsafe fn fill_raw(&mut self, n: usize, write: impl FnOnce(*mut u8) -> Result) -> Result {
        if n > self.remaining() {
            return Err(ENOSPC);
        }
        let dst = self.buf[self.filled..].as_mut_ptr().cast::<u8>();
        write(dst)?;
        // INVARIANT: `write` initialised the `n` bytes after `filled` (the
        // caller's guarantee), and `n` fit.
        self.filled += n;
        Ok(())
    }

    /// Zeroes what was not written and returns the whole buffer, initialised.
    #[inline]
    pub fn finish(self) -> &'a mut [u8] {
        for b in &mut self.buf[self.filled..] {
            b.write(0);
        }
        let len = self.buf.len();
        // SAFETY: Every byte is initialised: those before `filled` by the type
        // invariant, the rest just now. `MaybeUninit<u8>` has the layout of `u8`.
        unsafe { core::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast(), len) }
    }
}
