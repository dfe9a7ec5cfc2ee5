// SPDX-License-Identifier: GPL-2.0

//! The completer: ACKs and NAKs that come back to an RC requester.
//!
//! An ACK completes, in order, every sent WQE whose last PSN it covers (so one
//! coalesced ACK completes many). A PSN sequence NAK acknowledges what came before
//! it and sends the rest again from the oldest unacknowledged WQE (go-back-N); an
//! RNR NAK does the same after the wait it asks for, and so does a local ACK
//! timeout ([`crate::engine::recovery`]). The other NAKs fail the oldest WQE with the remote
//! error and the QP with it.

use crate::{
    abi::wr_opcode as op,
    engine::recovery,
    engine::req,
    obj::device::RrxeDevice,
    obj::mr::{Miss, SgeCursor},
    obj::pd::PdId,
    obj::qp::{self, QpInner, RrxeQp},
    obj::wqe::{Pending, SendWqe},
    obj::Rrxe,
    proto::{
        hdr::{NakCode, Syndrome},
        opcode,
        packet::Packet,
        psn::{psn_add, psn_diff, read_response_len},
        qp_state::QpState,
        read_ahead,
    },
    stats::Counter,
};
use kernel::rdma::qp::Qp;
use kernel::rdma::wr::WcStatus;

enum Action {
    /// WQEs up to this PSN are acknowledged.
    Ack(u32),
    /// Acknowledged before this PSN; send again from the oldest unacknowledged WQE.
    Rewind(u32),
    /// As `Rewind`, but the receiver had no buffer: wait before sending again.
    RnrWait(u32),
    /// As `Rewind`, for an ACK past a READ or atomic whose response was lost.
    Implied(u32),
    /// The oldest WQE failed with this status.
    Fail(WcStatus),
}

/// A response from the QP's peer reached the completer: the peer spoke, and
/// the response counts (rdma_rxe's `ack_deferred`, which it counts after the
/// same address and, for an ACK, state checks).
fn heard(qp: &Qp<Rrxe>, st: &mut QpInner) {
    recovery::peer_spoke(st);
    qp.device().data().stats.inc(Counter::RcvdResponses);
}

/// Handles a response packet for an RC requester.
pub(crate) fn receive(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    if matches!(
        pkt.bth.opcode(),
        opcode::RC_RDMA_READ_RESPONSE_FIRST
            | opcode::RC_RDMA_READ_RESPONSE_MIDDLE
            | opcode::RC_RDMA_READ_RESPONSE_LAST
            | opcode::RC_RDMA_READ_RESPONSE_ONLY
    ) {
        return read_response(qp, pkt, ip);
    }
    if pkt.bth.opcode() == opcode::RC_ATOMIC_ACKNOWLEDGE {
        return atomic_ack(qp, pkt, ip);
    }
    if pkt.bth.opcode() != opcode::RC_ACKNOWLEDGE {
        return Err(Counter::RcvUnsupported);
    }
    let aeth = pkt.aeth.ok_or(Counter::RcvMalformed)?;
    let psn = pkt.bth.psn();
    let inner = qp.data();
    let mut seq_nak = false;
    // The ACK passes the requester's place (only after a rewind).
    let mut ahead = false;
    let action = {
        let mut st = inner.state.lock();
        if !st.is_from_peer(ip) {
            return Err(Counter::RcvAddrMismatch);
        }
        if !matches!(
            qp::cur_state(&st),
            QpState::Rts | QpState::Sqd | QpState::Sqe
        ) {
            return Err(Counter::RcvQpState);
        }
        heard(qp, &mut st);
        let syndrome = Syndrome::decode(aeth.syndrome());
        // rxe's responder NAKs a READ's first PSN while it sends the READ's
        // responses (an MR invalidated midway, an RNR when its send fails), as
        // rxe's `check_psn` takes such a NAK; a sequence NAK it never sends so.
        let in_read = !matches!(
            syndrome,
            Syndrome::Ack { .. } | Syndrome::Nak(NakCode::PsnSeqError)
        ) && in_answered_read(&st, psn);
        // Only what was sent and not yet acknowledged can be acknowledged. After a
        // rewind that is more than what is sent now: the responder may have it all.
        // A NAK names a PSN not yet acknowledged. One for an acknowledged PSN is
        // late (reordered, or duplicated by the network): a resend already went
        // past it, and an RNR NAK would wait and rewind for nothing.
        let behind = psn_diff(psn, st.sq.comp_psn);
        let late = match syndrome {
            Syndrome::Ack { .. } => behind < -1,
            _ => behind < 0 && !in_read,
        };
        if psn_diff(psn, st.sq.sent_psn) >= 0 || late {
            return Err(Counter::RcvOutOfSequence);
        }
        let action = match syndrome {
            Syndrome::Ack { .. } => match unanswered_before(&st, psn) {
                Some(at) => Action::Implied(at),
                None => Action::Ack(psn),
            },
            Syndrome::Nak(NakCode::PsnSeqError) => {
                seq_nak = true;
                let upto = nak_limit(&st, psn);
                match recovery::seq_nak(&mut st) {
                    recovery::SeqNak::Resend => {
                        st.sq.window.lost();
                        Action::Rewind(upto)
                    }
                    recovery::SeqNak::Resending => Action::Ack(psn_add(upto, 0x00ff_ffff)),
                }
            }
            Syndrome::RnrNak { timer: code } => {
                let upto = nak_limit(&st, psn);
                if recovery::rnr_nak(inner, &mut st, code) {
                    Action::RnrWait(upto)
                } else {
                    Action::Fail(WcStatus::RnrRetryExcErr)
                }
            }
            Syndrome::Nak(NakCode::InvalidRequest) => Action::Fail(WcStatus::RemInvReqErr),
            Syndrome::Nak(NakCode::RemoteAccessError) => Action::Fail(WcStatus::RemAccessErr),
            Syndrome::Nak(_) | Syndrome::Reserved(_) => Action::Fail(WcStatus::RemOpErr),
        };
        match action {
            Action::Ack(p) => {
                if psn_diff(psn_add(p, 1), st.sq.comp_psn) > 0 {
                    acknowledge(&mut st, psn_add(p, 1));
                    recovery::progress(&mut st);
                } else {
                    recovery::heard(&mut st);
                }
                ahead = requester_behind(&st);
            }
            Action::Rewind(p) | Action::RnrWait(p) | Action::Implied(p) => {
                if psn_diff(p, st.sq.comp_psn) > 0 {
                    st.sq.comp_psn = p;
                }
            }
            Action::Fail(_) => {}
        }
        action
    };
    let stats = &qp.device().data().stats;
    if seq_nak {
        stats.inc(Counter::RcvdSeqNak);
    }
    match action {
        Action::Ack(p) => {
            qp::complete::complete_sent(qp, |w| req::answered_by(w, p));
            if ahead {
                // The ACK covers what is being sent again: skip it.
                rewind(&mut inner.state.lock());
            }
            req::run(qp);
        }
        Action::Rewind(p) | Action::RnrWait(p) | Action::Implied(p) => {
            // Everything before the NAKed PSN arrived.
            go_back(qp, psn_add(p, 0x00ff_ffff));
            if matches!(action, Action::RnrWait(_)) {
                // The timer runs the requester when the wait is over (and
                // counts an RNR retry, not a retransmit, as rdma_rxe does).
                stats.inc(Counter::RcvdRnrNak);
            } else {
                stats.inc(Counter::Retransmits);
                req::run(qp);
            }
        }
        Action::Fail(status) => {
            // WQEs that ended before the NAKed PSN were delivered: they complete
            // first (rxe's check_psn), and only the NAKed one fails.
            qp::complete::complete_sent(qp, |w| req::answered_by(w, psn_add(psn, 0x00ff_ffff)));
            if status == WcStatus::RnrRetryExcErr {
                stats.inc(Counter::RcvdRnrNak);
                stats.inc(Counter::RnrRetryExceeded);
            }
            qp::complete::fail_front(qp, status);
        }
    }
    Ok(())
}

/// After a NAK, or a READ response that says one was lost (outside the QP
/// lock): completes the WQEs acknowledged up to PSN `acked`, then [`rewind`]s,
/// so that the requester does not send them again.
fn go_back(qp: &Qp<Rrxe>, acked: u32) {
    qp::complete::complete_sent(qp, |w| req::answered_by(w, acked));
    rewind(&mut qp.data().state.lock());
}

/// Goes back to send again from the oldest unacknowledged PSN (go-back-N after a
/// sequence NAK, an RNR NAK, a lost READ response or a timeout), or forward to
/// it (an ACK for packets sent before a rewind): inside the oldest WQE if part
/// of it was acknowledged (a READ then asks only for the rest), as rxe's
/// `req_retry`. Starting the WQE over instead would never finish a long message
/// on a lossy path. The window probe starts over too.
pub(crate) fn rewind(st: &mut QpInner) {
    let (psn, off) = match st.sq.pending.get(0) {
        // Only a WQE that was sent has valid PSNs.
        Some(Pending::Wqe(w)) if w.started => resend_place(st, w),
        _ => (st.sq.comp_psn, 0),
    };
    st.sq.psn = psn;
    st.sq.req_idx = 0;
    st.sq.req_off = off;
    // The resend sends the oldest packet first anyway.
    st.sq.probe_oldest = false;
    st.sq.noack = 0;
    // Every READ and atomic from here on is sent again.
    st.sq.rd_outstanding = 0;
    recovery::rewound(st);
}

/// Where sending the started WQE `w` again begins: the PSN and the bytes of
/// `w` before it. That is the oldest unacknowledged PSN if it lies inside `w`
/// (a READ then asks only for the rest), else `w`'s first PSN.
pub(crate) fn resend_place(st: &QpInner, w: &SendWqe) -> (u32, u32) {
    let comp = st.sq.comp_psn;
    let mtu = qp::path_mtu_bytes(st);
    let acked = psn_diff(comp, w.first_psn);
    if acked > 0 && (acked as u64) * u64::from(mtu) < u64::from(w.length) {
        (comp, acked as u32 * mtu)
    } else {
        (w.first_psn, 0)
    }
}

/// Where to send again from if an ACK with PSN `psn` reaches the READ or
/// atomic whose response is expected next ([`expected_response`]): it was
/// lost (an implied NAK, rxe's `COMPST_ERROR_RETRY`). An ACK that ends inside
/// or at the end of a READ's PSNs counts too: the responder ACKs a repeated WRITE with the last PSN it
/// took, which may be a READ's, and that says nothing of the READ's
/// responses. Acknowledging up to it left the READ before the oldest
/// unacknowledged PSN, and then no response to it was ever taken.
fn unanswered_before(st: &QpInner, psn: u32) -> Option<u32> {
    let (i, at) = expected_response(st)?;
    match st.sq.pending.get(i) {
        Some(Pending::Wqe(w)) if psn_diff(psn, w.first_psn) >= 0 => Some(at),
        _ => None,
    }
}

/// What a NAK with PSN `psn` acknowledges: the PSNs before it, but not past a
/// READ or atomic whose answer has not come (its responses were lost; the
/// responder got the request, so it NAKs a later PSN). Going back from there
/// asks for it again, as rxe's `check_psn` does. Taking the NAK's PSN instead
/// left such a READ before the oldest unacknowledged PSN: every response to its
/// resend was then stale, and the READ never completed.
fn nak_limit(st: &QpInner, psn: u32) -> u32 {
    unanswered_before(st, psn).unwrap_or(psn)
}

/// Whether `psn` is one of the PSNs of the READ whose responses are expected
/// next ([`expected_response`]).
fn in_answered_read(st: &QpInner, psn: u32) -> bool {
    let Some((i, _)) = expected_response(st) else {
        return false;
    };
    matches!(
        st.sq.pending.get(i),
        Some(Pending::Wqe(w)) if w.opcode == op::RDMA_READ
            && psn_diff(psn, w.first_psn) >= 0
            && psn_diff(psn, w.last_psn) <= 0
    )
}

/// The sent WQE whose response is expected next (a READ, an atomic, a FLUSH or
/// an ATOMIC WRITE: [`SendWqe::needs_response`]), and that response's PSN: the
/// oldest one not answered, at the oldest unacknowledged PSN or, if only
/// unacknowledged WQEs that need no response come before it, at its first PSN.
/// Its response acknowledges those WQEs too: the responder executes requests
/// in order, so it had them all (rxe's `check_psn`, `COMPST_COMP_WQE`). Their
/// ACK may never come (an unsignaled WRITE asks for none) or be lost, and
/// taking a response only at the oldest unacknowledged PSN sent the WRITEs and
/// the READ again.
fn expected_response(st: &QpInner) -> Option<(usize, u32)> {
    let comp = st.sq.comp_psn;
    for i in 0..st.sq.pending.len() {
        let Some(Pending::Wqe(w)) = st.sq.pending.get(i).filter(|p| p.sent_all()) else {
            return None;
        };
        // Acknowledged (or answered) and not yet completed.
        if psn_diff(w.last_psn, comp) < 0 {
            continue;
        }
        if w.needs_response() {
            let at = if psn_diff(w.first_psn, comp) > 0 {
                w.first_psn
            } else {
                comp
            };
            return Some((i, at));
        }
    }
    None
}

/// The sent WQE a response with PSN `psn` answers, if the response is the one
/// expected next ([`expected_response`]): a READ response (`want_read`) of a
/// READ, or of a FLUSH or ATOMIC WRITE ending at `psn`, or an atomic ACK of an
/// atomic ending at `psn`.
fn answered_wqe(st: &qp::QpInner, psn: u32, want_read: bool) -> Result<usize, Counter> {
    if !matches!(
        qp::cur_state(st),
        QpState::Rts | QpState::Sqd | QpState::Sqe
    ) {
        return Err(Counter::RcvQpState);
    }
    let (i, expected) = expected_response(st).ok_or(Counter::RcvOutOfSequence)?;
    let Some(Pending::Wqe(w)) = st.sq.pending.get(i) else {
        return Err(Counter::RcvOutOfSequence);
    };
    if psn != expected {
        return Err(Counter::RcvOutOfSequence);
    }
    let ok = if want_read {
        // FLUSH and ATOMIC WRITE are answered by one READ response.
        w.opcode == op::RDMA_READ
            || (matches!(w.opcode, op::FLUSH | op::ATOMIC_WRITE) && w.last_psn == psn)
    } else {
        matches!(w.opcode, op::ATOMIC_CMP_AND_SWP | op::ATOMIC_FETCH_AND_ADD) && w.last_psn == psn
    };
    if ok {
        Ok(i)
    } else {
        Err(Counter::RcvOutOfSequence)
    }
}

/// After a response's data was placed (or could not be): completes what it
/// answers, or fails the QP, and lets the requester go on. `ahead`: the
/// response acknowledged PSNs that the requester, set back by a rewind, has
/// yet to send again; it skips them, as after such an ACK in [`receive`].
fn response_done(qp: &Qp<Rrxe>, psn: u32, placed: bool, ahead: bool) -> Result<(), Counter> {
    if !placed {
        qp::complete::fail_front(qp, WcStatus::LocProtErr);
        return Err(Counter::RcvLocalAccessError);
    }
    qp::complete::complete_sent(qp, |w| req::answered_by(w, psn));
    if ahead {
        rewind(&mut qp.data().state.lock());
    }
    req::run(qp);
    Ok(())
}

/// Whether the oldest unacknowledged PSN is past the requester's place: after a
/// rewind, an answer acknowledged packets it has yet to send again.
fn requester_behind(st: &QpInner) -> bool {
    psn_diff(st.sq.comp_psn, st.sq.psn) > 0
}

/// A response acknowledged every PSN before `next`: the oldest unacknowledged PSN
/// moves there, and the send window grows by the packets that newly covers.
fn acknowledge(st: &mut QpInner, next: u32) {
    let newly = psn_diff(next, st.sq.comp_psn);
    if newly > 0 {
        st.sq.window.acked(newly as u32);
    }
    st.sq.comp_psn = next;
    recovery::acknowledged(st);
}

/// WQE `i`, a READ or atomic, got its last response: it no longer holds a
/// max_rd_atomic credit, and the requester must not ask for it again. It
/// completes only after the lock is dropped and taken again, and a requester
/// that rewound into it sent its request again in between: that took a credit
/// that no response would return, and with nothing left outstanding no timer
/// ran either, so the SQ stopped for good (seen in the lossy READ test).
fn answered(st: &mut QpInner, i: usize) {
    if let Some(Pending::Wqe(w)) = st.sq.pending.get_mut(i) {
        if w.answered {
            return;
        }
        w.answered = true;
    }
    // A rewind after the request was sent zeroed the count, and the request
    // was not sent again: there is no credit to return.
    st.sq.rd_outstanding = st.sq.rd_outstanding.saturating_sub(1);
}

/// A READ response: placed in the READ's local buffers at its offset. Responses
/// must come in order, but one that comes early for the same READ is placed and
/// kept ([`place_early`]); they also acknowledge the WQEs sent before the READ.
fn read_response(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let psn = pkt.bth.psn();
    let inner = qp.data();
    let dev = qp.device().data();
    let (placed, covered, ahead) = {
        let mut st = inner.state.lock();
        if !st.is_from_peer(ip) {
            return Err(Counter::RcvAddrMismatch);
        }
        heard(qp, &mut st);
        let i = match answered_wqe(&st, psn, true) {
            Ok(i) => i,
            Err(Counter::RcvOutOfSequence) => {
                let early = place_early(inner, &mut st, dev, pkt)?;
                let resend = unexpected_read_response(&mut st, psn, early);
                drop(st);
                if let Some(acked) = resend {
                    dev.stats.inc(Counter::Retransmits);
                    go_back(qp, acked);
                    req::run(qp);
                }
                if early.is_some() {
                    dev.stats.inc(Counter::ReadRespAhead);
                    return Ok(());
                }
                return Err(Counter::RcvOutOfSequence);
            }
            Err(c) => return Err(c),
        };
        let Some(Pending::Wqe(w)) = st.sq.pending.get(i) else {
            return Err(Counter::RcvOutOfSequence);
        };
        if w.opcode != op::RDMA_READ && (!pkt.info.is_only() || !pkt.payload.is_empty()) {
            // A FLUSH or ATOMIC WRITE is answered by a READ response ONLY without
            // data.
            return Err(Counter::RcvMalformed);
        }
        if w.opcode == op::RDMA_READ && !fits(&st, w, pkt) {
            return Err(Counter::RcvMalformed);
        }
        let ok = match place(&st, w, inner.pd_id, dev, pkt) {
            Err(Some(miss)) => return Err(odp_deferred(inner, dev, &mut st, miss)),
            r => r.is_ok(),
        };
        let end = psn_add(w.last_psn, 1);
        // The responses placed early that directly follow this one are taken
        // with it, never past the READ's last.
        let mut next = psn_add(psn, 1);
        if ok {
            let filled = st.sq.read_ahead.filled(psn);
            next = if psn_diff(filled, end) > 0 {
                end
            } else {
                filled
            };
        }
        acknowledge(&mut st, next);
        recovery::progress(&mut st);
        if next == end {
            answered(&mut st, i);
        }
        (ok, psn_add(next, 0x00ff_ffff), requester_behind(&st))
    };
    response_done(qp, covered, placed, ahead)
}

/// A READ response `pkt` that came before the one expected next (under the QP
/// lock): placed at its offset if it belongs to the READ that the expected one
/// answers, and noted, so that the READ is not asked for again from the expected
/// PSN at once. Placing it again when it is sent again writes the same bytes.
/// Returns the expected PSN and the READ's last if the response was placed and
/// noted, and an error for a response whose length or opcode does not fit its
/// place in the READ: it is dropped.
fn place_early(
    inner: &RrxeQp,
    st: &mut QpInner,
    dev: &RrxeDevice,
    pkt: &Packet<'_>,
) -> Result<Option<(u32, u32)>, Counter> {
    let psn = pkt.bth.psn();
    let Some((i, oldest)) = expected_response(st) else {
        return Ok(None);
    };
    if psn_diff(psn, oldest) <= 0 || psn_diff(psn, st.sq.sent_psn) >= 0 {
        return Ok(None);
    }
    let Some(Pending::Wqe(w)) = st.sq.pending.get(i) else {
        return Ok(None);
    };
    if w.opcode != op::RDMA_READ || psn_diff(psn, w.last_psn) > 0 {
        return Ok(None);
    }
    if !fits(st, w, pkt) {
        return Err(Counter::RcvMalformed);
    }
    let last = w.last_psn;
    match place(st, w, inner.pd_id, dev, pkt) {
        Ok(()) => {}
        Err(Some(miss)) => return Err(odp_deferred(inner, dev, st, miss)),
        // The response expected next meets the same error and fails the READ.
        Err(None) => return Ok(None),
    }
    Ok(st.sq.read_ahead.note(oldest, psn).then_some((oldest, last)))
}

/// Whether READ response `pkt` brings what READ `w` is answered with at its PSN
/// ([`read_response_len`]), and ends the message exactly at the READ's last
/// PSN. Else a peer could complete a READ with responses of any length, even
/// empty ones, leaving the buffer's old bytes where the data should be (rxe
/// checks the opcode sequence, and completes a READ only with all its data).
fn fits(st: &QpInner, w: &SendWqe, pkt: &Packet<'_>) -> bool {
    let psn = pkt.bth.psn();
    let mtu = qp::path_mtu_bytes(st);
    let ends = pkt.info.is_last() || pkt.info.is_only();
    read_response_len(w.first_psn, w.last_psn, w.length, mtu, psn)
        .is_some_and(|len| len as usize == pkt.payload.len())
        && ends == (psn == w.last_psn)
}

/// Writes READ response `pkt`'s payload into `w`'s local buffers at the offset
/// its PSN gives. Fails if it does not fit or the memory does not allow it, with
/// the fault to run if a page of an on-demand-paging MR was not resident.
fn place(
    st: &QpInner,
    w: &SendWqe,
    pd_id: PdId,
    dev: &RrxeDevice,
    pkt: &Packet<'_>,
) -> Result<(), Option<Miss>> {
    let mtu = qp::path_mtu_bytes(st) as usize;
    let off = psn_diff(pkt.bth.psn(), w.first_psn) as usize * mtu;
    let mut c = SgeCursor::new(&dev.keys, pd_id, &w.sgl);
    c.skip(off)
        .and_then(|()| c.write(pkt.payload))
        .map_err(|_| c.miss())
}

/// A response waits for an on-demand-paging fault (`miss`): it goes back to
/// the QP's receive queue and runs again after it, and is then counted again
/// in [`Counter::RcvdResponses`], so this count is taken back.
fn odp_deferred(inner: &RrxeQp, dev: &RrxeDevice, st: &mut QpInner, miss: Miss) -> Counter {
    dev.stats.sub(Counter::RcvdResponses, 1);
    qp::work::odp_rx_miss(inner, st, miss)
}

/// A READ response that is not the one expected next (under the QP lock). The
/// responder is alive, so the ACK timeout starts over (as for an ACK that brings
/// nothing new): otherwise, while a responder sends out a long READ whose early
/// response was lost, the timer fires again and again, and every time-out asks
/// for the READ once more. rdma_rxe's responder queues each such request and
/// answers each with the whole rest of the READ, so the answers to stale requests
/// never ended and the READ never completed.
///
/// A response past the expected PSN means that one was lost or is late (a
/// responder sends in PSN order). The READ is asked for again from there, as for
/// a PSN sequence NAK, rather than after the time-out: at once if the response
/// could not be placed early, else once it is [`read_ahead::LOSS_SPAN`] PSNs
/// past the expected one or is the last of its READ (`early` is the expected
/// PSN and that READ's last), so that two swapped responses (but for a READ's
/// last two) cost nothing and a hole near a READ's end costs no timeout. A QP
/// without an ACK timeout does not wait: nothing would end the wait if the rest
/// were lost. Only once until a response makes progress, so reordering cannot
/// resend a window per packet.
///
/// Returns, if the requester is to go back, the last PSN acknowledged: a
/// response past the expected PSN acknowledges the WQEs before it as the
/// expected one would ([`expected_response`]), so that they are not sent
/// again. The caller completes them and then rewinds, as after a NAK.
fn unexpected_read_response(st: &mut QpInner, psn: u32, early: Option<(u32, u32)>) -> Option<u32> {
    recovery::heard(st);
    let missing = psn_diff(psn, st.sq.comp_psn) > 0 && psn_diff(psn, st.sq.sent_psn) < 0;
    let may_fill = recovery::has_ack_timeout(st)
        && early.is_some_and(|(oldest, last)| {
            psn != last && (psn_diff(psn, oldest) as u32) < read_ahead::LOSS_SPAN
        });
    if !missing || may_fill {
        return None;
    }
    match recovery::seq_nak(st) {
        recovery::SeqNak::Resend => {
            st.sq.window.lost();
            if let Some((_, at)) = expected_response(st) {
                if psn_diff(psn, at) > 0 && psn_diff(at, st.sq.comp_psn) > 0 {
                    st.sq.comp_psn = at;
                }
            }
            Some(psn_add(st.sq.comp_psn, 0x00ff_ffff))
        }
        recovery::SeqNak::Resending => None,
    }
}

/// An atomic ACK: the original value goes to the atomic's local buffer (8 bytes,
/// LOCAL_WRITE checked); it acknowledges the WQEs before the atomic too.
fn atomic_ack(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let psn = pkt.bth.psn();
    let orig = pkt.atmack.ok_or(Counter::RcvMalformed)?.orig();
    let inner = qp.data();
    let dev = qp.device().data();
    let (placed, ahead) = {
        let mut st = inner.state.lock();
        if !st.is_from_peer(ip) {
            return Err(Counter::RcvAddrMismatch);
        }
        heard(qp, &mut st);
        let i = answered_wqe(&st, psn, false)?;
        let Some(Pending::Wqe(w)) = st.sq.pending.get(i) else {
            return Err(Counter::RcvOutOfSequence);
        };
        let mut c = SgeCursor::new(&dev.keys, inner.pd_id, &w.sgl);
        let written = c.write(&orig.to_ne_bytes());
        if let Some(miss) = c.miss().filter(|_| written.is_err()) {
            return Err(odp_deferred(inner, dev, &mut st, miss));
        }
        let ok = written.is_ok();
        acknowledge(&mut st, psn_add(psn, 1));
        recovery::progress(&mut st);
        answered(&mut st, i);
        (ok, requester_behind(&st))
    };
    response_done(qp, psn, placed, ahead)
}
