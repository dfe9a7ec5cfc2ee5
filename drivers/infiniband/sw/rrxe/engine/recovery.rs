// SPDX-License-Identifier: GPL-2.0

//! Loss recovery timers of an RC requester: the local ACK timeout, which sends
//! again from the oldest unacknowledged WQE (go-back-N) up to `retry_cnt` times
//! (unless packets wait unread in the QP's receive queue: [`put_off`]),
//! and the RNR wait, which holds the requester back for the time an RNR NAK asks,
//! up to `rnr_retry` times. An `rnr_retry` of 7 means "retry forever", but a
//! `retry_cnt` of 7 is 7 retries: IBTA gives only the RNR count an infinite
//! value. rxe retries for ever at `retry_cnt` 7 too, so a user that asks for 7
//! (the NVMe-oF host does) never learns that its peer went silent.
//!
//! The retries run out only once the peer has also been silent for
//! [`SILENCE_MIN_NS`]: a software peer in a loaded VM stalls far longer than a
//! NIC, and may meet several ACK timeouts in a row before its answers all come
//! at once: a bare count of expiries would fail a QP whose peer is only slow.
//!
//! The ACK timeout stretches where answers come slower than the QP's `timeout`
//! allows, as TCP's retransmission timeout follows the measured round trip
//! ([`crate::proto::response_time`]): at most 8 times the QP's own, so that a
//! loaded host's slow peer is not sent every request again, and a silent peer
//! still fails within a bounded time.
//!
//! Both run off one hrtimer per QP (rxe uses jiffies timers). The timer callback only
//! queues the QP's work item and takes no lock, so arming and cancelling under the
//! QP lock never waits for anything but that short callback. The work item then
//! looks at the deadlines kept in [`Timers`]: a deadline that moved later just arms
//! the timer again, so an ACK only moves a deadline and never touches the timer.

use crate::{
    engine::{comp, req},
    obj::{
        qp::{
            self,
            timers::{ack_timeout, ack_timeout_ns, reset_retries, Now, Timers},
            QpInner, RrxeQp,
        },
        Rrxe,
    },
    proto::{
        psn::{self, psn_add, psn_diff},
        qp_state::QpState,
    },
    stats::Counter,
};
use core::sync::atomic::Ordering;
use kernel::rdma::wr::WcStatus;
use kernel::{
    rdma::qp::Qp,
    sync::{Arc, ArcBorrow},
    time::{
        hrtimer::{HrTimerCallback, HrTimerCallbackContext, HrTimerPointer, HrTimerRestart},
        Delta,
    },
};

/// The shortest time packets sent without AckReq wait for a packet with it
/// before the last one is sent again to ask ([`req::probe_tail`]); the wait is
/// twice the measured answer time where that is longer ([`tail_probe_wait`]).
/// Long against an ACK's round trip, so a stream of unsignaled WQEs is not
/// probed; short against the ACK timeout, so a tail's SQ slots come back soon.
const TAIL_PROBE_NS: i64 = 1_000_000;

/// How long a full window waits for progress before its last packet is sent
/// again to ask for an ACK ([`window_full`]): the tail probe's shortest wait. It
/// does not stretch with the answer time, since it recovers losses, which a
/// longer wait only delays. Only where the ACK timeout is twice as long.
const WINDOW_PROBE_NS: i64 = 1_000_000;

/// How soon the requester tries again after a packet allocation failed.
const RETRY_BUILD_NS: i64 = 1_000_000;

/// How long the peer must have been silent before the retries may run out: an
/// ACK timeout after the last retry sends again (without counting) until then.
const SILENCE_MIN_NS: i64 = 1_000_000_000;

/// How many expiries in a row [`put_off`] puts off with nothing heard.
const ACK_PUT_OFFS_MAX: u8 = 8;

/// The `rnr_retry` value that never runs out (`retry_cnt` always does).
const RNR_RETRY_FOREVER: u8 = 7;

/// How long an unsignaled tail waits for its probe: [`TAIL_PROBE_NS`] on a
/// fast path, twice the smoothed answer time on a slower one, and at most half
/// the ACK timeout ([`ResponseTime::probe_wait_ns`](crate::proto::response_time::ResponseTime::probe_wait_ns)).
/// A fixed wait shorter than the round trip would probe tails whose ACK
/// request is already on its way.
fn tail_probe_wait(st: &QpInner) -> Delta {
    let ns = st
        .timers
        .response_time
        .probe_wait_ns(TAIL_PROBE_NS as u64, ack_timeout_ns(st).unwrap_or(0));
    Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX))
}

/// Whether the QP has a local ACK timeout (`timeout` 0 means none).
pub(crate) fn has_ack_timeout(st: &QpInner) -> bool {
    ack_timeout(st).is_some()
}

/// Arms the timer to fire at `at`, unless it already fires no later.
fn arm(inner: &Arc<RrxeQp>, t: &mut Timers, now: Now, at: Now) {
    if t.dead {
        return;
    }
    if inner.timer_queued.load(Ordering::Acquire) {
        if let Some(f) = t.fires {
            if !(at - f).is_negative() {
                return;
            }
        }
    }
    // Cancelling waits at most for the callback, which takes no lock.
    drop(t.handle.take());
    let delta = at - now;
    let delta = if delta.is_negative() {
        Delta::from_nanos(0)
    } else {
        delta
    };
    inner.timer_queued.store(true, Ordering::Release);
    t.handle = Some(inner.clone().start(delta));
    t.fires = Some(at);
}

/// An RC request packet was sent: if none was outstanding, the ACK timeout starts.
pub(crate) fn sent(inner: &Arc<RrxeQp>, st: &mut QpInner) {
    // Called before `sent_psn` moves: a resend after a rewind finds packets
    // outstanding, and the peer's silence goes on.
    if psn_diff(st.sq.sent_psn, st.sq.comp_psn) <= 0 {
        st.timers.spoke = true;
    }
    if st.timers.ack_due.is_some() {
        return;
    }
    let Some(timeout) = ack_timeout(st) else {
        return;
    };
    let now = Now::now();
    let due = now + timeout;
    st.timers.ack_due = Some(due);
    st.timers.ack_put_offs = 0;
    st.timers.unasked_at = None;
    arm(inner, &mut st.timers, now, due);
}

/// An RC request packet was sent, asking for an ACK or not. A WQE's last packet
/// (`wqe_end`) that does not ask starts the wait for the tail probe, unless it
/// runs already; a packet that asks ends it.
///
/// Only a WQE's end can be a tail ([`req::probe_tail`] probes nothing in the
/// middle of one). Started at a long message's first packet, the wait would run
/// out again and again while the message is still being sent, each time a timer
/// interrupt and a work item for nothing.
pub(crate) fn tail(inner: &Arc<RrxeQp>, st: &mut QpInner, ack_req: bool, wqe_end: bool) {
    if ack_req {
        st.timers.tail_due = None;
    } else if wqe_end && st.timers.tail_due.is_none() {
        let now = Now::now();
        let due = now + tail_probe_wait(st);
        st.timers.tail_due = Some(due);
        arm(inner, &mut st.timers, now, due);
    }
}

/// A SEND or WRITE packet was sent that fills a reduced send window (after a
/// loss; [`crate::proto::window`]): nothing more is sent until an ACK makes
/// progress. If that packet or its ACK is lost, no later packet comes to make
/// the responder NAK the gap, and only the ACK timeout recovered: in the loss
/// test's WRITEs and SENDs, most of their timeouts. So [`WINDOW_PROBE_NS`]
/// after the window filled, if nothing made progress, the last packet goes
/// again asking for an ACK ([`req::probe_window`]), as TCP's tail loss probe: the
/// responder takes it in sequence if it was lost, and answers a duplicate with
/// an ACK for all it has (C9-105). One probe until progress or a go-back-N
/// ([`rewound`]): the probe's own packet fills the window again.
///
/// Also called when the resend of a go-back-N catches up with what was sent
/// before. If the first packet sent again is lost too, the responder, which
/// NAKs a gap once, drops the rest of the resend and the last packet's probe
/// without a word; so while no progress followed the go-back, the probe sends
/// the oldest unacknowledged packet first, and the last after it.
pub(crate) fn window_full(inner: &Arc<RrxeQp>, st: &mut QpInner) {
    if st.timers.probe_due.is_some() || st.timers.window_probed {
        return;
    }
    if ack_timeout(st).is_none_or(|t| t.as_nanos() < 2 * WINDOW_PROBE_NS) {
        return;
    }
    let now = Now::now();
    let due = now + Delta::from_nanos(WINDOW_PROBE_NS);
    st.timers.probe_due = Some(due);
    arm(inner, &mut st.timers, now, due);
}

/// The requester went back to the oldest unacknowledged PSN (go-back-N after a
/// NAK, an RNR NAK, a lost READ response or a timeout), or forward to it: the
/// window probe starts over with the packets sent from there. A request being
/// timed may be sent again, so its timing ends ([`timed_send`]).
pub(crate) fn rewound(st: &mut QpInner) {
    st.timers.window_probe_over();
    st.timers.timed = None;
}

/// An RC request packet with PSN `psn`, taking `span` PSNs, is sent, asking
/// for an ACK if `ack_req` (before `sent_psn` moves). If none is being timed, a
/// request that asks for an ACK and is sent for the first time is timed until
/// something acknowledges it ([`acknowledged`]): one sample per answer time at
/// most. The timed packet, or one before it, sent again ends the timing, since
/// its answer may be the first copy's or the second's (Karn's rule). A later
/// one sent again (a probe) may bring the ACK that ends it, which makes the
/// sample too long, never too short. A packet that asks for an ACK, sent for
/// the first time or again, is also remembered with its time ([`ack_not_due`]):
/// one clock read per such packet.
pub(crate) fn timed_send(st: &mut QpInner, psn: u32, span: u32, ack_req: bool) {
    let resent = psn_diff(psn, st.sq.sent_psn) < 0;
    if resent && st.timers.timed.is_some_and(|(t, _)| psn_diff(psn, t) <= 0) {
        st.timers.timed = None;
    }
    if !ack_req {
        return;
    }
    let now = Now::now();
    if !resent && st.timers.timed.is_none() {
        st.timers.timed = Some((psn, now));
    }
    st.timers.last_ack_req = Some((psn_add(psn, span), now));
}

/// The oldest unacknowledged PSN moved forward: if it passed the request being
/// timed, the time since that was sent is a sample of the answer time.
pub(crate) fn acknowledged(st: &mut QpInner) {
    let Some((psn, sent)) = st.timers.timed else {
        return;
    };
    if psn_diff(st.sq.comp_psn, psn) > 0 {
        st.timers.timed = None;
        let ns = (Now::now() - sent).as_nanos();
        st.timers
            .response_time
            .sample(u64::try_from(ns).unwrap_or(0));
    }
}

/// The requester could not allocate a packet. Nothing else may come to run it
/// again (with nothing outstanding no ACK arrives, and the user may be waiting
/// for a completion, not posting), so the timer runs it 1 ms from now.
pub(crate) fn retry_build(inner: &Arc<RrxeQp>, st: &mut QpInner) {
    let now = Now::now();
    arm(
        inner,
        &mut st.timers,
        now,
        now + Delta::from_nanos(RETRY_BUILD_NS),
    );
}

/// An ACK or response made progress: the retries start over, and so does the ACK
/// timeout (the armed timer sees the later deadline when it fires).
pub(crate) fn progress(st: &mut QpInner) {
    reset_retries(st);
    st.timers.retrying = false;
    st.timers.window_probe_over();
    heard(st);
}

/// An ACK came that acknowledges nothing new (a responder's answer to a duplicate):
/// the peer is alive and working through a backlog, so the ACK timeout starts over
/// but the retries do not, as rxe's completer re-arms its timer on every response.
/// Timing out here would resend a window into that backlog, whose stale ACKs then
/// time out again: against a slow rdma_rxe under loss this never recovered. The
/// count of put-off expiries ([`put_off`]) starts over too.
pub(crate) fn heard(st: &mut QpInner) {
    st.timers.ack_put_offs = 0;
    st.timers.unasked_at = None;
    if st.timers.ack_due.is_some() {
        st.timers.ack_due = ack_timeout(st).map(|t| Now::now() + t);
    }
}

/// A packet from the peer came (an ACK, a NAK or a response, expected or not):
/// it is not silent, so the retries cannot run out before [`SILENCE_MIN_NS`]
/// after the timer next fires.
pub(crate) fn peer_spoke(st: &mut QpInner) {
    st.timers.spoke = true;
    st.timers.heard_since_expiry = true;
}

/// Whether a go-back-N resend is under way that made no progress yet.
pub(crate) fn retrying(st: &QpInner) -> bool {
    st.timers.retrying
}

/// What to do with a PSN sequence NAK.
pub(crate) enum SeqNak {
    /// Go back and send again from the NAKed PSN (a retry is used, if one is
    /// left).
    Resend,
    /// A resend is already under way; only acknowledge what came before.
    Resending,
}

/// A PSN sequence NAK came. It uses a retry, as in rxe, but it never fails the
/// WQE, even with none left: the peer is not silent ([`SILENCE_MIN_NS`]).
pub(crate) fn seq_nak(st: &mut QpInner) -> SeqNak {
    let t = &mut st.timers;
    if t.retrying {
        return SeqNak::Resending;
    }
    t.retry_left = t.retry_left.saturating_sub(1);
    t.retrying = true;
    SeqNak::Resend
}

/// An RNR NAK came: waits for its time, or says the retries are exhausted.
pub(crate) fn rnr_nak(inner: &Arc<RrxeQp>, st: &mut QpInner, timer_code: u8) -> bool {
    let t = &mut st.timers;
    if t.rnr_left == 0 {
        return false;
    }
    if t.rnr_left != RNR_RETRY_FOREVER {
        t.rnr_left -= 1;
    }
    let now = Now::now();
    let until = now + Delta::from_micros(i64::from(psn::rnr_nak_usec(timer_code)));
    t.rnr_until = Some(until);
    // Nothing is outstanding while waiting; the ACK timeout starts with the resend.
    t.ack_due = None;
    arm(inner, t, now, until);
    true
}

impl HrTimerCallback for RrxeQp {
    type Pointer<'a> = Arc<RrxeQp>;

    fn run(this: ArcBorrow<'_, RrxeQp>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        this.timer_queued.store(false, Ordering::Release);
        // Already queued is fine: that run looks at the deadlines too.
        crate::obj::qp::work::defer(&Arc::<RrxeQp>::from(this));
        HrTimerRestart::NoRestart
    }
}

/// An expired ACK timeout is put off by a whole timeout if packets wait in the
/// QP's own receive queue ([`crate::obj::qp::rx::RxBacklog`]): the answers may be among
/// them, still unread. Calling that a loss asks again for every outstanding
/// READ while its responses queue; their second copies then overflow the
/// queue, and time-outs and resends feed each other. rxe's completer
/// likewise acts on a time-out only once no response waits. At most
/// [`ACK_PUT_OFFS_MAX`] times until something is heard: a queue that never
/// empties (requests from the peer, none of them an answer) must not hold off
/// the resend for ever.
fn put_off(inner: &Arc<RrxeQp>, st: &mut QpInner, now: Now) -> Option<Now> {
    if st.timers.ack_put_offs >= ACK_PUT_OFFS_MAX || !inner.rx_owned.load(Ordering::Acquire) {
        return None;
    }
    let next = now + ack_timeout(st)?;
    st.timers.ack_due = Some(next);
    st.timers.ack_put_offs += 1;
    Some(next)
}

/// An expired ACK timeout whose answer is not overdue: when it is, if not now.
///
/// The deadline runs from the last ACK that made progress (or from the first
/// packet sent with nothing outstanding), as in rxe. But a responder answers
/// only the packets that ask for an ACK, and a stream of large messages asks
/// once in 64 packets. Where 64 packets take longer than the timeout, the
/// deadline passes between two ACKs on a clean path, and messages go back N
/// and shrink the send window for nothing. So an answer is overdue only a timeout after the last packet that
/// asked for one, while that is not acknowledged. If none outstanding asked,
/// a later packet will (the tail probe asks after an unsignaled WQE): while
/// the requester still has WQEs to send and has moved since the last expiry,
/// the expiry is put off by a whole timeout. Otherwise it is a loss.
fn ack_not_due(st: &mut QpInner, now: Now) -> Option<Now> {
    let timeout = ack_timeout(st)?;
    match st.timers.last_ack_req {
        Some((end, at)) if psn_diff(end, st.sq.comp_psn) > 0 => {
            let due = at + timeout;
            (now - due).is_negative().then_some(due)
        }
        _ if st.sq.pending.get(st.sq.req_idx).is_some()
            && st.timers.unasked_at != Some(st.sq.psn) =>
        {
            st.timers.unasked_at = Some(st.sq.psn);
            Some(now + timeout)
        }
        _ => None,
    }
}

/// Whether the deadline `due` picks from the timers has passed: then it is
/// cleared. One still ahead keeps the timer armed for it.
fn passed(
    inner: &Arc<RrxeQp>,
    t: &mut Timers,
    now: Now,
    due: fn(&mut Timers) -> &mut Option<Now>,
) -> bool {
    let Some(at) = *due(t) else {
        return false;
    };
    if (now - at).is_negative() {
        arm(inner, t, now, at);
        return false;
    }
    *due(t) = None;
    true
}

/// Whether the peer has been silent long enough for the retries to run out.
fn silent_long(t: &Timers, now: Now) -> bool {
    t.silent_since
        .is_none_or(|since| (now - since).as_nanos() >= SILENCE_MIN_NS)
}

enum Expired {
    Nothing,
    /// Send again from the oldest unacknowledged WQE.
    Resend,
    /// The RNR wait is over.
    RnrDone,
    /// The last packet goes again, asking for the ACK of an unsignaled tail.
    TailProbe,
    /// A window probe: packets sent again, asking for an ACK.
    WindowProbe(req::WindowProbe),
    /// Retries exhausted: fail the oldest WQE with this status.
    Fail(WcStatus),
}

/// Called from the QP's work item: acts on the deadlines that passed and arms the
/// timer for the next one. The caller runs the requester afterwards.
pub(crate) fn expire(qp: &Qp<Rrxe>) {
    let inner = qp.data();
    let mut put_off_now = false;
    let what = {
        let mut st = inner.state.lock();
        if !matches!(
            qp::cur_state(&st),
            QpState::Rts | QpState::Sqd | QpState::Sqe
        ) {
            st.timers.forget();
            return;
        }
        let now = Now::now();
        if st.timers.spoke {
            st.timers.spoke = false;
            st.timers.silent_since = Some(now);
        }
        let mut what = Expired::Nothing;
        if let Some(until) = st.timers.rnr_until {
            if (now - until).is_negative() {
                arm(inner, &mut st.timers, now, until);
            } else {
                st.timers.rnr_until = None;
                what = Expired::RnrDone;
            }
        }
        if let Some(due) = st.timers.ack_due {
            let outstanding = psn_diff(st.sq.sent_psn, st.sq.comp_psn) > 0;
            if !outstanding {
                st.timers.ack_due = None;
            } else if (now - due).is_negative() {
                arm(inner, &mut st.timers, now, due);
            } else if let Some(next) = ack_not_due(&mut st, now) {
                st.timers.ack_due = Some(next);
                arm(inner, &mut st.timers, now, next);
            } else if let Some(next) = put_off(inner, &mut st, now) {
                put_off_now = true;
                arm(inner, &mut st.timers, now, next);
            } else if st.timers.retry_left == 0 && silent_long(&st.timers, now) {
                st.timers.ack_due = None;
                what = Expired::Fail(WcStatus::RetryExcErr);
            } else {
                st.timers.retry_left = st.timers.retry_left.saturating_sub(1);
                // A peer heard from since the last expiry may only be slow:
                // wait longer next time. A silent one keeps its pace.
                if core::mem::take(&mut st.timers.heard_since_expiry) {
                    st.timers.response_time.timed_out();
                }
                comp::rewind(&mut st);
                st.sq.window.timed_out();
                st.timers.ack_due = None;
                st.timers.retrying = true;
                what = Expired::Resend;
            }
        }
        // A probe is sent only by an RTS requester (elsewhere the tail waits
        // for RTS), and only one per expiry. Once sent, the window probe is
        // spent until progress, and the ACK timeout stays the backstop. Not
        // sent, it may be armed again by the next packet that fills the window.
        let may_probe = |st: &QpInner, what: &Expired| {
            matches!(what, Expired::Nothing) && qp::cur_state(st) == QpState::Rts
        };
        if passed(inner, &mut st.timers, now, |t| &mut t.tail_due)
            && may_probe(&st, &what)
            && req::probe_tail(&mut st)
        {
            what = Expired::TailProbe;
        }
        if passed(inner, &mut st.timers, now, |t| &mut t.probe_due) && may_probe(&st, &what) {
            if let Some(probe) = req::probe_window(&mut st) {
                st.timers.window_probed = true;
                what = Expired::WindowProbe(probe);
            }
        }
        what
    };
    let stats = &qp.device().data().stats;
    if put_off_now {
        stats.inc(Counter::AckTimeoutsPutOff);
    }
    match what {
        Expired::Nothing => {}
        Expired::RnrDone => stats.inc(Counter::RnrRetries),
        Expired::TailProbe => stats.inc(Counter::TailAckProbes),
        Expired::WindowProbe(probe) => {
            stats.inc(Counter::WindowProbes);
            if matches!(probe, req::WindowProbe::Oldest) {
                stats.inc(Counter::ResendProbes);
            }
        }
        Expired::Resend => {
            stats.inc(Counter::RetryTimeouts);
            stats.inc(Counter::Retransmits);
        }
        Expired::Fail(status) => {
            stats.inc(Counter::RetryExceeded);
            qp::complete::fail_front(qp, status);
        }
    }
}
