// SPDX-License-Identifier: GPL-2.0

//! READ responses that arrived ahead of a missing one.
//!
//! A responder sends a READ's responses in PSN order, but the network may swap
//! two. rxe's requester takes only the response it expects next, so a response
//! overtaken by the one after it costs a go-back-N: the READ is asked for again
//! from the late PSN, and every response already on its way is thrown away. A
//! response's PSN says where its data goes in the READ, and placing the same
//! bytes twice is harmless. So rrxe places a response of the oldest unanswered
//! READ that comes early, notes its PSN here, and when the late one arrives the
//! oldest unacknowledged PSN moves past all that were noted. A hole is taken as a
//! loss only once a response [`LOSS_SPAN`] PSNs past it arrives, as TCP waits
//! for three duplicate ACKs (or the READ's last; see `comp.rs`).
//!
//! Only the requester changes; the responder and the wire do not.

use super::psn::{psn_add, psn_diff};

/// How far past the oldest missing response a response must be before the
/// missing one is taken as lost (and the READ is asked for again from it).
pub const LOSS_SPAN: u32 = 3;

/// PSNs after the oldest missing one that can be noted.
pub const SPAN: u32 = 64;

/// Which responses after the oldest missing PSN were placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadAhead {
    /// The oldest missing PSN when the notes were last updated.
    base: u32,
    /// Bit `k` set: the response with PSN `base + k` was placed.
    bits: u64,
}

impl ReadAhead {
    /// Nothing noted.
    pub const fn new() -> Self {
        Self { base: 0, bits: 0 }
    }

    /// Forgets every note.
    pub fn clear(&mut self) {
        self.bits = 0;
    }

    /// Moves the notes to a new oldest missing PSN `oldest`: those before it are
    /// dropped, and all of them if it moved back or past the span.
    fn rebase(&mut self, oldest: u32) {
        let d = psn_diff(oldest, self.base);
        self.bits = if d == 0 {
            self.bits
        } else if d > 0 && (d as u32) < SPAN {
            self.bits >> d
        } else {
            0
        };
        self.base = oldest;
    }

    /// The response with PSN `psn` was placed while `oldest` is still missing.
    /// Returns false, noting nothing, if `psn` is not after `oldest` or is too
    /// far after it.
    pub fn note(&mut self, oldest: u32, psn: u32) -> bool {
        self.rebase(oldest);
        let d = psn_diff(psn, oldest);
        if d <= 0 || d as u32 >= SPAN {
            return false;
        }
        self.bits |= 1 << d;
        true
    }

    /// The response with PSN `oldest` arrived: returns the PSN after it and after
    /// the noted responses that directly follow it, the new oldest missing PSN.
    /// Their notes are used up: none may outlive its READ, or after 2^24 PSNs
    /// without a READ response it would be taken for one of a later READ.
    pub fn filled(&mut self, oldest: u32) -> u32 {
        self.rebase(oldest);
        let next = psn_add(oldest, (self.bits | 1).trailing_ones());
        self.rebase(next);
        next
    }
}
