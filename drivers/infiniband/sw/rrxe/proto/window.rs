// SPDX-License-Identifier: GPL-2.0

//! The RC requester's send window: how many PSNs may be outstanding.
//!
//! rxe always allows 128 (`RXE_MAX_UNACKED_PSNS`). With go-back-N, every packet
//! sent after a lost one is thrown away by the responder, so on a lossy path a full
//! window wastes most of what it sends. This window adapts as TCP Reno's does: a PSN
//! sequence NAK halves it; an ACK timeout halves the threshold and restarts from the
//! minimum. Acknowledged packets grow it again, by one per packet up to the
//! threshold (slow start) and by one per window above it. On a path without loss it
//! stays at 128, as rxe's.
//!
//! Only the sender's pacing changes; the wire protocol does not.

/// The largest window, rxe's `RXE_MAX_UNACKED_PSNS`.
pub const MAX_WINDOW: u32 = 128;
/// The smallest window a loss can leave.
pub const MIN_WINDOW: u32 = 2;

/// A send window (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendWindow {
    size: u32,
    threshold: u32,
    /// Packets acknowledged towards the next increase above the threshold.
    credit: u32,
}

impl Default for SendWindow {
    fn default() -> Self {
        Self::new()
    }
}

impl SendWindow {
    /// A full window.
    pub const fn new() -> Self {
        Self {
            size: MAX_WINDOW,
            threshold: MAX_WINDOW,
            credit: 0,
        }
    }

    /// PSNs that may be outstanding now.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Whether a loss has made the window smaller than rxe's.
    pub fn reduced(&self) -> bool {
        self.size < MAX_WINDOW
    }

    /// `n` more packets were acknowledged.
    pub fn acked(&mut self, mut n: u32) {
        while n > 0 && self.size < MAX_WINDOW {
            if self.size < self.threshold {
                let k = n.min(self.threshold - self.size);
                self.size += k;
                n -= k;
            } else {
                let k = n.min(self.size - self.credit);
                self.credit += k;
                n -= k;
                if self.credit == self.size {
                    self.credit = 0;
                    self.size += 1;
                }
            }
        }
    }

    /// A PSN sequence NAK reported a loss: the window halves.
    pub fn lost(&mut self) {
        self.threshold = (self.size / 2).max(MIN_WINDOW);
        self.size = self.threshold;
        self.credit = 0;
    }

    /// The ACK timeout expired: the threshold halves and the window starts again
    /// from the minimum.
    pub fn timed_out(&mut self) {
        self.lost();
        self.size = MIN_WINDOW;
    }
}
