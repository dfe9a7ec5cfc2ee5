// SPDX-License-Identifier: GPL-2.0

//! The loss recovery timers' state of a QP, kept under the QP lock: deadlines,
//! retry counts and the answer time measured. `crate::engine::recovery` acts
//! on it.

use super::{QpInner, RrxeQp};
use crate::proto::{psn, response_time::ResponseTime};
use kernel::{
    sync::Arc,
    time::{
        hrtimer::{ArcHrTimerHandle, RelativeMode},
        Delta, Instant, Monotonic,
    },
};

/// A point in time on the timers' clock.
pub(crate) type Now = Instant<Monotonic>;

/// The shortest local ACK timeout used. Shorter codes (4 µs to 0.5 ms) would only
/// resend packets whose ACK is on its way; rxe's jiffies timers have a floor too.
const MIN_ACK_TIMEOUT_NS: i64 = 1_000_000;

/// The loss recovery timers' state of a QP: deadlines, retries left and the
/// answer time. Part of [`QpInner`], under the QP lock; the hrtimer it arms is
/// the [`RrxeQp`]'s, and its handle here is dropped (cancelling it) when the QP
/// is destroyed ([`shut_down`]).
#[derive(Default)]
pub(crate) struct Timers {
    /// The armed timer; dropping the handle cancels it.
    pub(crate) handle: Option<ArcHrTimerHandle<RrxeQp>>,
    /// When the armed timer fires.
    pub(crate) fires: Option<Now>,
    /// When an ACK for the oldest outstanding packet is overdue.
    pub(crate) ack_due: Option<Now>,
    /// When the RNR wait ends; the requester sends nothing before.
    pub(crate) rnr_until: Option<Now>,
    /// When packets sent without AckReq, and none with it since, get a tail probe.
    pub(crate) tail_due: Option<Now>,
    /// When a full window that made no progress gets a window probe.
    pub(crate) probe_due: Option<Now>,
    /// The window probe was sent: no other until progress or a go-back-N
    /// resend ([`window_full`]).
    pub(crate) window_probed: bool,
    /// Retries left (reset to the QP's counts whenever an ACK makes progress).
    pub(crate) retry_left: u8,
    pub(crate) rnr_left: u8,
    /// A go-back-N resend is under way: further sequence NAKs (reordered packets
    /// NAK each gap) do not start another until an ACK makes progress, as rxe's
    /// `started_retry`. Without this, reordering makes every NAK resend a window.
    pub(crate) retrying: bool,
    /// Expiries of the ACK timeout put off in a row, with nothing heard in
    /// between, because packets waited in the QP's receive queue.
    pub(crate) ack_put_offs: u8,
    /// The peer sent a packet ([`peer_spoke`]), or a packet was sent with
    /// nothing outstanding, since the timer last fired. A resend does not count.
    pub(crate) spoke: bool,
    /// The peer has been silent at least since then: the time the timer fired
    /// and found `spoke` (no clock read per packet).
    pub(crate) silent_since: Option<Now>,
    /// The QP is being destroyed: never arm again.
    pub(crate) dead: bool,
    /// How long requests wait for their first answer; it may stretch the ACK
    /// timeout ([`ack_timeout`]).
    pub(crate) response_time: ResponseTime,
    /// The request being timed: its PSN and when it was sent ([`timed_send`]).
    pub(crate) timed: Option<(u32, Now)>,
    /// The last request packet sent that asked for an ACK: the PSN after the
    /// PSNs it takes, and when it was sent ([`ack_not_due`]).
    pub(crate) last_ack_req: Option<(u32, Now)>,
    /// The requester's place (`sq.psn`) when an expiry of the ACK timeout was
    /// last put off because no packet outstanding had asked for an ACK
    /// ([`ack_not_due`]); cleared when something is heard.
    pub(crate) unasked_at: Option<u32>,
    /// A packet came from the peer since the ACK timeout last expired: an
    /// expiry then backs the timeout off ([`ResponseTime::timed_out`]).
    pub(crate) heard_since_expiry: bool,
}

impl Timers {
    /// Whether the requester is waiting out an RNR NAK.
    pub(crate) fn rnr_waiting(&self) -> bool {
        self.rnr_until.is_some()
    }

    /// For `rdma resource show qp -dd`: retries and RNR retries left, whether
    /// the ACK timeout runs for packets in flight (`in_flight`; the deadline
    /// itself is dropped lazily, when the timer next fires) and whether a
    /// go-back-N resend is under way.
    pub(crate) fn details(&self, in_flight: bool) -> (u8, u8, bool, bool) {
        (
            self.retry_left,
            self.rnr_left,
            self.ack_due.is_some() && in_flight,
            self.retrying,
        )
    }

    /// Drops the deadlines (the QP went back to reset). The timer may still fire
    /// once and then finds nothing to do. The answer times go too: the QP may be
    /// connected anew, to another peer.
    pub(crate) fn forget(&mut self) {
        self.ack_due = None;
        self.rnr_until = None;
        self.tail_due = None;
        self.window_probe_over();
        self.response_time = ResponseTime::new();
        self.timed = None;
        self.last_ack_req = None;
        self.heard_since_expiry = false;
    }

    /// The send PSNs were set anew (`SQ_PSN`): a request being timed is
    /// forgotten, so that no PSN of the new sequence ends its timing, and so
    /// is the last packet that asked for an ACK.
    pub(crate) fn stop_timing(&mut self) {
        self.timed = None;
        self.last_ack_req = None;
    }

    /// The window probe starts over: none armed, none spent.
    pub(crate) fn window_probe_over(&mut self) {
        self.probe_due = None;
        self.window_probed = false;
    }
}

/// Resets the retry counts to the QP's attributes (after a modify, or progress).
pub(crate) fn reset_retries(st: &mut QpInner) {
    st.timers.retry_left = st.attr.retry_cnt;
    st.timers.rnr_left = st.attr.rnr_retry;
}

/// The local ACK timeout in nanoseconds: the QP's `timeout`, at least
/// [`MIN_ACK_TIMEOUT_NS`], stretched if answers are measured slower than it
/// allows ([`crate::proto::response_time`]). `None` if the QP has none.
pub(crate) fn ack_timeout_ns(st: &QpInner) -> Option<u64> {
    let own = psn::retransmit_timeout_ns(st.attr.timeout)?.max(MIN_ACK_TIMEOUT_NS as u64);
    Some(st.timers.response_time.ack_timeout_ns(own))
}

/// [`ack_timeout_ns`] as a [`Delta`].
pub(crate) fn ack_timeout(st: &QpInner) -> Option<Delta> {
    ack_timeout_ns(st).map(|ns| Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX)))
}

/// For `rdma resource show qp -dd`: the ACK timeout now in microseconds (0 if
/// the QP has none) and the smoothed answer time that may have stretched it.
pub(crate) fn ack_timeout_details(st: &QpInner) -> (u32, u32) {
    let us = |ns: u64| u32::try_from(ns / 1000).unwrap_or(u32::MAX);
    (
        ack_timeout_ns(st).map_or(0, us),
        us(st.timers.response_time.smoothed_ns()),
    )
}

/// Stops the timer for good; the QP is being destroyed.
pub(crate) fn shut_down(inner: &Arc<RrxeQp>) {
    let handle = {
        let mut st = inner.state.lock();
        st.timers.dead = true;
        st.timers.fires = None;
        st.timers.handle.take()
    };
    drop(handle);
}

kernel::impl_has_hr_timer! {
    impl HasHrTimer<Self> for RrxeQp {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
}
