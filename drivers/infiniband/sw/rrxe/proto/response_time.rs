// SPDX-License-Identifier: GPL-2.0

//! How long an RC requester's requests wait for their first answer, and how far
//! that stretches the local ACK timeout.
//!
//! The QP's `timeout` attribute is the ACK timeout of a fast path. A software
//! peer in a loaded host can take longer than that to answer without losing
//! anything, and then every expiry asks for a READ again, the responder starts
//! its answer over, and a large READ may never finish. TCP meets the same problem with a retransmission timeout
//! computed from measured round trips (RFC 6298), and so does this: the
//! smoothed answer time plus four times its mean deviation, and at least half
//! the smoothed time more (RFC 6298's floor for the deviation is the clock's
//! granularity; a software peer's answer time varies with its host's load,
//! which a steady path hides until a stall). The ACK timeout is the longer of
//! that and the QP's own, but never more than [`MAX_STRETCH`] times the QP's
//! own, so that a silent peer is still found out within a bounded multiple of
//! what the user asked for. On a fast path the measured time is far below the
//! QP's timeout and nothing changes.
//!
//! The requester takes samples as TCP does without timestamps (Karn's rule):
//! one request at a time, never one that was sent again, since its answer may
//! be the first copy's or the second's. Answers slower than the timeout would
//! then never give a sample, as the timeout sends every timed request again.
//! So, as TCP does, an expiry doubles the timeout ([`ResponseTime::timed_out`],
//! up to the same limit) until a sample comes. The requester backs off only
//! for an expiry with something heard from the peer since the one before, so
//! a silent peer's retries keep their pace.

/// The most the measured answer time may stretch the QP's ACK timeout.
pub const MAX_STRETCH: u64 = 8;

/// The smoothed answer time and its mean deviation (RFC 6298, in nanoseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResponseTime {
    /// Smoothed answer time; 0 before the first sample.
    srtt: u64,
    /// Mean deviation of the samples.
    rttvar: u64,
    /// At least one sample was taken.
    sampled: bool,
    /// Expiries since the last sample: the timeout doubles for each.
    backoff: u32,
}

impl ResponseTime {
    /// No sample yet: the ACK timeout is the QP's own.
    pub const fn new() -> Self {
        Self {
            srtt: 0,
            rttvar: 0,
            sampled: false,
            backoff: 0,
        }
    }

    /// A request was answered `ns` after it was sent.
    pub fn sample(&mut self, ns: u64) {
        self.backoff = 0;
        if !self.sampled {
            self.srtt = ns;
            self.rttvar = ns / 2;
            self.sampled = true;
            return;
        }
        let err = self.srtt.abs_diff(ns);
        self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
        self.srtt = self.srtt - self.srtt / 8 + ns / 8;
    }

    /// The ACK timeout expired while the peer was heard from: it may be slower
    /// than the timeout allows, so the timeout doubles until the next sample.
    pub fn timed_out(&mut self) {
        if (1u64 << self.backoff) < MAX_STRETCH {
            self.backoff += 1;
        }
    }

    /// The smoothed answer time (0 before the first sample).
    pub fn smoothed_ns(&self) -> u64 {
        self.srtt
    }

    /// How long packets that asked for no ACK (an unsignaled tail) wait for an
    /// answer before a probe asks for one: twice the smoothed answer time, as
    /// TCP's tail loss probe waits two round trips, but at least `floor_ns` and
    /// at most half of `ack_timeout_ns`, so that the probe still comes well
    /// before the ACK timeout. Before the first sample, `floor_ns`. A fixed
    /// wait shorter than one answer time probes a tail whose ACK request is
    /// only on its way.
    pub fn probe_wait_ns(&self, floor_ns: u64, ack_timeout_ns: u64) -> u64 {
        self.srtt
            .saturating_mul(2)
            .min(ack_timeout_ns / 2)
            .max(floor_ns)
    }

    /// The ACK timeout for a QP whose `timeout` attribute gives `own_ns`: the
    /// longer of `own_ns` and the measured time's bound (`srtt` plus the larger
    /// of `4 * rttvar` and `srtt / 2`), doubled for each expiry since the last
    /// sample, and never longer than [`MAX_STRETCH`] times `own_ns`.
    pub fn ack_timeout_ns(&self, own_ns: u64) -> u64 {
        let bound = if self.sampled {
            self.srtt
                .saturating_add(self.rttvar.saturating_mul(4).max(self.srtt / 2))
        } else {
            0
        };
        own_ns
            .max(bound)
            .saturating_mul(1 << self.backoff)
            .min(own_ns.saturating_mul(MAX_STRETCH))
            .max(own_ns)
    }
}
