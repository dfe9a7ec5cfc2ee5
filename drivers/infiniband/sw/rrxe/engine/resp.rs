// SPDX-License-Identifier: GPL-2.0

//! The responder: places incoming requests in receive buffers and completes them.
//!
//! Datagrams (UD, and GSI from user space): the receive buffer gets the 40-byte GRH
//! slot (rxe's layout: the IPv4 header after 20 zero bytes, or the IPv6 header),
//! then the payload. A datagram with no receive posted, or too long for it, is
//! dropped, as on a real network.

use crate::{
    abi::{access, flush, qp_type as qpt, GSI_QKEY, MAX_MSG},
    engine::resp_tx,
    obj::cq,
    obj::mr::{self, SgeCursor},
    obj::mw,
    obj::qp::{self, InMessage, QpInner, RecvInProgress},
    obj::wqe,
    obj::Rrxe,
    proto::{
        answers::{Answer, KeptRead},
        hdr::{
            AETH_ACK_UNLIMITED, AETH_NAK_INVALID_REQ, AETH_NAK_PSN_SEQ_ERROR, AETH_NAK_REM_ACC_ERR,
            AETH_RNR_NAK, MASK_24 as PSN_MASK,
        },
        ip,
        opcode::{self, Mask},
        packet::Packet,
        psn::{psn_add, psn_diff},
        qp_state::QpState,
    },
    stats::Counter,
};
use kernel::rdma::wr::{WcFlag, WcFlags, WcOpcode, WcStatus};
use kernel::{
    prelude::*,
    rdma::{event::EventType, qp::Qp, wr::Wc},
};

pub(super) fn receive_datagram(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let deth = pkt.deth.ok_or(Counter::RcvMalformed)?;
    // rxe's `rxe_chk_dgid`: a datagram must be addressed to a GID of the device
    // or to a group. (A connected QP's packets must be addressed to its own GID:
    // `from_peer`.) The socket takes anything addressed to the namespace, e.g.
    // to another interface's address.
    let dgid = ip::dest_gid(ip).ok_or(Counter::RcvMalformed)?;
    let dev_ib = qp.device();
    if !ip::gid_is_multicast(&dgid) && !dev_ib.has_roce_v2_gid(1, &dgid, dev_ib.netdev()) {
        return Err(Counter::RcvAddrMismatch);
    }
    let grh = ip::grh_from_ip(ip).ok_or(Counter::RcvMalformed)?;
    let total = pkt.payload.len() + ip::GRH_BYTES;
    let inner = qp.data();
    let dev = qp.device().data();
    let (pushed, failed, srq_limit) = {
        let mut st = inner.state.lock();
        if !matches!(
            qp::cur_state(&st),
            QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
        ) {
            return Err(Counter::RcvQpState);
        }
        let qkey = if qp.qp_num() == 1 {
            GSI_QKEY
        } else {
            st.attr.qkey
        };
        if deth.qkey() != qkey {
            return Err(Counter::RcvBadKey);
        }
        let mut srq_limit = false;
        let (wr_id, parsed) = match inner.srq.as_ref() {
            Some(srq) => {
                let (wr_id, w, limit) = match st.resp.held_srq_recv.take() {
                    Some(held) => held,
                    None => srq.take().ok_or(Counter::RcvNoRecvWqe)?,
                };
                srq_limit = limit;
                (wr_id, w)
            }
            None => take_rq(&mut st).ok_or(Counter::RcvNoRecvWqe)?,
        };
        let mut wc = qp::complete::wc(qp, wr_id, WcStatus::Success, WcOpcode::Recv);
        let failed = match parsed {
            // A malformed receive WQE fails the QP, as a malformed send WQE does.
            Err(_) => {
                wc.status = WcStatus::LocQpOpErr;
                true
            }
            Ok(w) => {
                if total > w.length as usize {
                    if inner.srq.is_none() {
                        // The RQ's WQE stays for the next datagram.
                        return Err(Counter::RcvLengthError);
                    }
                    // An SRQ's WQE is already taken: it completes with the error.
                    dev.stats.inc(Counter::RcvLengthError);
                    wc.status = WcStatus::LocLenErr;
                    false
                } else {
                    let mut to = SgeCursor::new(&dev.keys, inner.pd_id, &w.sgl);
                    let placed = to.write(&grh).and_then(|()| to.write(pkt.payload));
                    let miss = to.miss().filter(|_| placed.is_err());
                    drop(to);
                    if let Some(miss) = miss {
                        // Run again after the fault; an RQ's WQE is still in
                        // its ring, an SRQ's is kept for it.
                        if inner.srq.is_some() {
                            st.resp.held_srq_recv = Some((wr_id, Ok(w), srq_limit));
                        }
                        return Err(qp::work::odp_rx_miss(inner, &mut st, miss));
                    }
                    if placed.is_err() {
                        dev.stats.inc(Counter::RcvLocalAccessError);
                        wc.status = WcStatus::LocProtErr;
                        true
                    } else {
                        wc.byte_len = total as u32;
                        wc.src_qp = deth.src_qpn();
                        wc.wc_flags = WcFlag::Grh.into();
                        if let Some(imm) = pkt.immdt {
                            wc.wc_flags |= WcFlag::WithImm;
                            wc.ex = u32::from_ne_bytes(imm.raw());
                        }
                        wc.network_hdr_type = if ip.first().map(|b| b >> 4) == Some(6) {
                            3
                        } else {
                            2
                        };
                        // Kernel consumers (the CM) build the reply's address from it.
                        if !qp.is_user() {
                            wc.wc_flags |= WcFlag::WithNetworkHdrType;
                        }
                        false
                    }
                }
            }
        };
        if inner.srq.is_none() {
            if let Some(rq) = st.rq.as_mut() {
                let _ = rq.ring.consume();
            }
        }
        if wc.status == WcStatus::Success {
            dev.stats.inc(Counter::RdmaRecvs);
        }
        // Under the lock: in the order the receive WQEs were taken.
        (cq::push(qp.recv_cq(), &wc, pkt.bth.se()), failed, srq_limit)
    };
    pushed.finish(qp.recv_cq());
    if srq_limit {
        if let Some(srq) = qp.srq() {
            srq.raise(EventType::SrqLimitReached);
        }
    }
    if failed {
        qp::complete::fail(qp);
    }
    Ok(())
}

/// How a connected request ends, besides the counter of a drop.
#[derive(Default)]
struct Outcome {
    /// The answer to send: an ACK or NAK, READ responses or an atomic ACK (a
    /// request gets at most one).
    answer: Option<Answer>,
    /// `answer` answers a repeated READ request ([`resp_tx::TxQueue::push_repeated_read`]).
    repeated_read: bool,
    wc: Option<Wc>,
    solicited: bool,
    /// The QP fails (RC class C/D errors, local errors).
    fail: bool,
    /// The SRQ's limit was crossed.
    srq_limit: bool,
}

/// rxe's `check_addr`: a connected QP takes packets only from its peer's address
/// to its own (checked under the QP's lock, which the caller holds anyway).
fn from_peer(st: &QpInner, ip: &[u8]) -> Result<(), Counter> {
    if st.is_from_peer(ip) {
        Ok(())
    } else {
        Err(Counter::RcvAddrMismatch)
    }
}

/// RC and UC requests: PSN and opcode sequence checks, receive buffers (RQ or SRQ),
/// WRITE placement with rkey checks, completions, and RC's ACKs and NAKs.
pub(super) fn receive_connected(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let mut out = Outcome::default();
    let (r, answered, pushed) = {
        let mut st = qp.data().state.lock();
        let r = from_peer(&st, ip).and_then(|()| connected_locked(qp, &mut st, pkt, &mut out));
        // Queued under the lock, so answers leave in the order decided, and
        // completions reach the CQ in the order their receive WQEs were taken.
        let answer = out.answer.take();
        if let Some(a) = answer {
            resp_tx::queue(qp, &mut st.resp_tx, a, out.repeated_read);
        }
        let pushed = out
            .wc
            .as_ref()
            .map(|wc| cq::push(qp.recv_cq(), wc, out.solicited));
        (r, answer.is_some(), pushed)
    };
    if let Some(p) = pushed {
        p.finish(qp.recv_cq());
    }
    if out.srq_limit {
        if let Some(srq) = qp.srq() {
            srq.raise(EventType::SrqLimitReached);
        }
    }
    if answered {
        resp_tx::run(qp);
    }
    if out.fail {
        qp::complete::fail(qp);
    }
    r
}

/// An ACK or NAK from the responder, with the current MSN.
fn reply_to(st: &QpInner, syndrome: u8, psn: u32) -> Answer {
    Answer::ack(syndrome, psn, st.resp.msn)
}

fn connected_locked(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    pkt: &Packet<'_>,
    out: &mut Outcome,
) -> Result<(), Counter> {
    let inner = qp.data();
    let dev = qp.device().data();
    let rc = inner.qp_type == qpt::RC;
    if !matches!(
        qp::cur_state(st),
        QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
    ) {
        return Err(Counter::RcvQpState);
    }
    let info = pkt.info;
    let psn = pkt.bth.psn();
    let start = info.is_first() || info.is_only();
    let end = info.is_last() || info.is_only();
    let reply = |st: &QpInner, syndrome: u8, psn: u32| reply_to(st, syndrome, psn);

    // PSN.
    let d = psn_diff(psn, st.resp.psn);
    if rc {
        if d < 0 && matches!(info.opcode, opcode::RC_COMPARE_SWAP | opcode::RC_FETCH_ADD) {
            // A retransmitted atomic is answered from the saved result, never
            // executed twice.
            dev.stats.inc(Counter::RcvDuplicate);
            return atomic_request(qp, st, pkt, out, true);
        }
        if d < 0 && matches!(info.opcode, opcode::RC_FLUSH | opcode::RC_ATOMIC_WRITE) {
            // Answered again, not executed again.
            dev.stats.inc(Counter::RcvDuplicate);
            return flush_or_atomic_write(qp, st, pkt, out, true);
        }
        if d < 0 && info.opcode == opcode::RC_RDMA_READ_REQUEST {
            // A retransmitted READ is answered again, from memory as it is now,
            // if it asks for part of a READ executed before.
            dev.stats.inc(Counter::RcvDuplicate);
            return read_request(qp, st, pkt, out, true);
        }
        if d < 0 {
            // A retransmitted request: acknowledge it again (C9-105).
            out.answer = Some(reply(
                st,
                AETH_ACK_UNLIMITED,
                psn_add(st.resp.psn, PSN_MASK),
            ));
            return Err(Counter::RcvDuplicate);
        }
        if d > 0 {
            if !st.resp.nak_sent {
                st.resp.nak_sent = true;
                dev.stats.inc(Counter::SentSeqNak);
                out.answer = Some(reply(st, AETH_NAK_PSN_SEQ_ERROR, st.resp.psn));
            }
            return Err(Counter::RcvOutOfSequence);
        }
        st.resp.nak_sent = false;
    } else if d != 0 || st.resp.uc_drop {
        // UC: a lost packet loses its message; a new one resynchronises.
        if !start {
            st.resp.uc_drop = true;
            return Err(Counter::RcvOutOfSequence);
        }
        st.resp.uc_drop = false;
        abandon(st);
    }

    if info.opcode == opcode::RC_RDMA_READ_REQUEST {
        return read_request(qp, st, pkt, out, d < 0);
    }
    if matches!(info.opcode, opcode::RC_COMPARE_SWAP | opcode::RC_FETCH_ADD) {
        return atomic_request(qp, st, pkt, out, false);
    }
    if matches!(info.opcode, opcode::RC_FLUSH | opcode::RC_ATOMIC_WRITE) {
        return flush_or_atomic_write(qp, st, pkt, out, false);
    }

    // Opcode sequence and the QP's rights.
    let kind = if info.mask.contains(Mask::SEND) {
        InMessage::Send
    } else if info.mask.contains(Mask::WRITE) {
        InMessage::Write
    } else {
        // READ and atomics come with those operations.
        return Err(Counter::RcvUnsupported);
    };
    let in_seq = match (st.resp.in_msg, start) {
        (None, true) => true,
        (Some(k), false) => k == kind,
        _ => false,
    };
    let mtu = qp::path_mtu_bytes(st) as usize;
    let len = pkt.payload.len();
    let len_ok = if info.is_only() {
        len <= mtu
    } else if end {
        len >= 1 && len <= mtu
    } else {
        len == mtu
    };
    // A WRITE's packets bring exactly the DMA length its RETH gave: the last one
    // ends it, and none before does (rxe's `check_rkey` and length checks).
    // Else a WRITE_ONLY_WITH_IMM with an empty payload, which places nothing
    // and so checks no rkey, completed a receive for the RETH's whole length.
    let write_len_ok = kind != InMessage::Write || {
        let resid = if start {
            pkt.reth.map_or(0, |r| r.len())
        } else {
            st.resp.write.2
        };
        let left = u64::from(resid).checked_sub(len as u64);
        u64::from(resid) <= u64::from(MAX_MSG)
            && (if end {
                left == Some(0)
            } else {
                left.is_some_and(|l| l > 0)
            })
    };
    let allowed =
        kind == InMessage::Send || st.attr.qp_access_flags.bits() & access::REMOTE_WRITE != 0;
    if !in_seq || !len_ok || !write_len_ok || !allowed {
        if !rc {
            if !in_seq {
                abandon(st);
                st.resp.uc_drop = true;
            }
            return Err(Counter::RcvMalformed);
        }
        dev.stats.inc(Counter::SentNakInvalid);
        out.answer = Some(reply(st, AETH_NAK_INVALID_REQ, psn));
        out.fail = true;
        return Err(Counter::RcvMalformed);
    }

    // A receive buffer for SENDs and for WRITE with immediate data.
    let needs_recv = kind == InMessage::Send || (end && info.mask.contains(Mask::IMMDT));
    if needs_recv && st.resp.recv.is_none() {
        let taken = match inner.srq.as_ref() {
            Some(srq) => srq.take().map(|(wr_id, wqe, limit)| {
                out.srq_limit = limit;
                (wr_id, wqe, true)
            }),
            None => take_rq(st).map(|(wr_id, wqe)| (wr_id, wqe, false)),
        };
        match taken {
            Some((wr_id, wqe, from_srq)) => {
                st.resp.recv = Some(RecvInProgress {
                    wr_id,
                    wqe,
                    from_srq,
                    sge: (0, 0),
                    written: 0,
                })
            }
            None => {
                if rc {
                    dev.stats.inc(Counter::SentRnrNak);
                    out.answer = Some(reply(st, AETH_RNR_NAK | st.attr.min_rnr_timer, psn));
                } else {
                    st.resp.uc_drop = true;
                }
                return Err(Counter::RcvNoRecvWqe);
            }
        }
    }

    // Placement.
    if kind == InMessage::Send {
        let placed = {
            let Some(rp) = st.resp.recv.as_mut() else {
                return Err(Counter::RcvNoRecvWqe);
            };
            match rp.wqe.as_ref() {
                Err(_) => Err(Ok(WcStatus::LocQpOpErr)),
                Ok(w) => {
                    let mut c = SgeCursor::at(&dev.keys, inner.pd_id, &w.sgl, rp.sge);
                    match c.write(pkt.payload) {
                        Ok(()) => {
                            rp.sge = c.position();
                            rp.written += len as u32;
                            Ok(())
                        }
                        Err(e) if e == ENOSPC => Err(Ok(WcStatus::LocLenErr)),
                        // The receive stays where it was, for the packet's run
                        // after the fault.
                        Err(_) => match c.miss() {
                            Some(miss) => Err(Err(miss)),
                            None => Err(Ok(WcStatus::LocProtErr)),
                        },
                    }
                }
            }
        };
        let placed = match placed {
            Err(Err(miss)) => return Err(qp::work::odp_rx_miss(inner, st, miss)),
            Err(Ok(status)) => Err(status),
            Ok(()) => Ok(()),
        };
        if let Err(status) = placed {
            fail_recv(qp, st, out, psn, status);
            return Err(Counter::RcvLocalAccessError);
        }
    } else {
        if start {
            let reth = pkt.reth.ok_or(Counter::RcvMalformed)?;
            st.resp.write = (reth.va(), reth.rkey(), reth.len());
            st.resp.write_len = reth.len();
        }
        let (va, rkey, resid) = st.resp.write;
        let mut miss = None;
        let ok = len as u32 <= resid
            && (len == 0
                || mr::lookup_remote(
                    &dev.keys,
                    inner.serial,
                    inner.pd_id,
                    rkey,
                    access::REMOTE_WRITE,
                    va,
                    resid,
                )
                .is_some_and(|m| match m.write_remote(va, pkt.payload) {
                    Err(e) if e == EAGAIN => {
                        // The rest of the WRITE with it.
                        miss = Some(mr::Miss::of(&m, va, resid as usize, true));
                        false
                    }
                    r => r.is_ok(),
                }));
        if let Some(miss) = miss {
            return Err(qp::work::odp_rx_miss(inner, st, miss));
        }
        if !ok {
            if !rc {
                abandon(st);
                st.resp.uc_drop = true;
                return Err(Counter::RcvLocalAccessError);
            }
            dev.stats.inc(Counter::SentNakAccess);
            out.answer = Some(reply(st, AETH_NAK_REM_ACC_ERR, psn));
            out.fail = true;
            return Err(Counter::RcvLocalAccessError);
        }
        st.resp.write = (va + len as u64, rkey, resid - len as u32);
    }

    // SEND_WITH_INV invalidates a type 2 memory window bound through this QP or a
    // fast-registered MR of its PD, on its last packet and before the PSN and MSN
    // move (a failed one is not counted in the NAK's MSN). As in rxe, naming any
    // other MR is an error.
    if let Some(ieth) = pkt.ieth.filter(|_| end) {
        let rkey = ieth.fields().rkey;
        let done = if mw::is_mw_key(&dev.keys, rkey) {
            mw::invalidate(&dev.keys, Some(inner.serial), inner.pd_id, rkey)
        } else {
            mr::invalidate(&dev.keys, inner.pd_id, rkey)
        };
        if done.is_err() {
            fail_recv(qp, st, out, psn, WcStatus::RemInvReqErr);
            return Err(Counter::RcvBadKey);
        }
    }

    // Progress, completion and the ACK.
    st.resp.psn = psn_add(psn, 1);
    if end {
        st.resp.in_msg = None;
        st.resp.msn = (st.resp.msn + 1) & PSN_MASK;
        if needs_recv {
            let written = st.resp.recv.as_ref().map_or(0, |r| r.written);
            let mut flags = WcFlags::from(WcFlag::Grh);
            let mut ex = 0;
            if let Some(imm) = pkt.immdt {
                flags |= WcFlag::WithImm;
                ex = u32::from_ne_bytes(imm.raw());
            }
            if let Some(ieth) = pkt.ieth {
                flags |= WcFlag::WithInvalidate;
                ex = ieth.fields().rkey;
            }
            let (opcode, byte_len) = if kind == InMessage::Write {
                (WcOpcode::RecvRdmaWithImm, st.resp.write_len)
            } else {
                (WcOpcode::Recv, written)
            };
            finish_recv(qp, st, out, WcStatus::Success, byte_len);
            if let Some(wc) = out.wc.as_mut() {
                wc.opcode = opcode;
                wc.wc_flags = flags;
                wc.ex = ex;
            }
            out.solicited = pkt.bth.se();
        }
    } else {
        st.resp.in_msg = Some(kind);
    }
    if rc && pkt.bth.ack_req() {
        out.answer = Some(reply(st, AETH_ACK_UNLIMITED, psn));
    }
    Ok(())
}

/// Copies the oldest receive WQE out of the RQ ring (consumed at completion).
fn take_rq(st: &mut QpInner) -> Option<(u64, Result<wqe::RecvWqe, wqe::Bad>)> {
    let rq = st.rq.as_mut()?;
    let slot = &mut rq.fetch_buf[..];
    if !matches!(rq.ring.peek_posted(slot), Ok(true)) {
        return None;
    }
    Some(wqe::parse_recv(slot, rq.max_sge))
}

/// The message being received failed with `status`: an RC requester gets a NAK
/// (invalid request), the receive completes with `status`, and the QP fails.
fn fail_recv(qp: &Qp<Rrxe>, st: &mut QpInner, out: &mut Outcome, psn: u32, status: WcStatus) {
    if qp.data().qp_type == qpt::RC {
        qp.device().data().stats.inc(Counter::SentNakInvalid);
        out.answer = Some(reply_to(st, AETH_NAK_INVALID_REQ, psn));
    }
    finish_recv(qp, st, out, status, 0);
    out.fail = true;
}

/// Completes the receive WQE in progress with `status`.
fn finish_recv(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    out: &mut Outcome,
    status: WcStatus,
    byte_len: u32,
) {
    let Some(rp) = st.resp.recv.take() else {
        return;
    };
    if !rp.from_srq {
        if let Some(rq) = st.rq.as_mut() {
            let _ = rq.ring.consume();
        }
    }
    if status == WcStatus::Success {
        qp.device().data().stats.inc(Counter::RdmaRecvs);
    }
    let mut wc = qp::complete::wc(qp, rp.wr_id, status, WcOpcode::Recv);
    wc.byte_len = byte_len;
    out.wc = Some(wc);
}

/// Forgets a partly received message (UC loss): its receive WQE is kept for the
/// next message, as if nothing had been placed.
fn abandon(st: &mut QpInner) {
    st.resp.in_msg = None;
    if let Some(rp) = st.resp.recv.as_mut() {
        rp.sge = (0, 0);
        rp.written = 0;
    }
}

/// An RDMA READ request (RC): the QP's rights, the rkey and range are checked now;
/// the responses are sent once the lock is dropped. A duplicate is answered again,
/// from memory as it is now, without moving the expected PSN, if it asks for part
/// of a READ executed before ([`KeptRead::covers`]).
fn read_request(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    pkt: &Packet<'_>,
    out: &mut Outcome,
    duplicate: bool,
) -> Result<(), Counter> {
    let inner = qp.data();
    let dev = qp.device().data();
    let psn = pkt.bth.psn();
    let reth = pkt.reth.ok_or(Counter::RcvMalformed)?;
    let (va, rkey, len) = (reth.va(), reth.rkey(), reth.len());
    let mtu = qp::path_mtu_bytes(st);
    if duplicate
        && !st
            .kept_reads
            .find(psn, st.resp.psn)
            .is_some_and(|r| r.covers(psn, va, rkey, len, mtu))
    {
        // Not part of a READ executed before (the caller counted the
        // duplicate): dropped unanswered, as rdma_rxe drops it. Its responses
        // could take PSNs of later requests.
        return Ok(());
    }
    let nak = |syndrome| reply_to(st, syndrome, psn);
    // A new READ in the middle of a message breaks the opcode sequence; a
    // repeated one is older than that message and says nothing about it.
    // Refusing it failed the QP of a requester that asked again for a READ
    // while its next WRITE was half received (the loss test's mixed phase).
    if (st.resp.in_msg.is_some() && !duplicate)
        || st.attr.qp_access_flags.bits() & access::REMOTE_READ == 0
        || st.attr.max_dest_rd_atomic == 0
        || len > MAX_MSG
    {
        dev.stats.inc(Counter::SentNakInvalid);
        out.answer = Some(nak(AETH_NAK_INVALID_REQ));
        out.fail = true;
        return Err(Counter::RcvMalformed);
    }
    if len > 0 {
        let Some(m) = mr::lookup_remote(
            &dev.keys,
            inner.serial,
            inner.pd_id,
            rkey,
            access::REMOTE_READ,
            va,
            len,
        ) else {
            dev.stats.inc(Counter::SentNakAccess);
            out.answer = Some(nak(AETH_NAK_REM_ACC_ERR));
            out.fail = true;
            return Err(Counter::RcvLocalAccessError);
        };
        // An on-demand-paging MR's first pages are faulted in before the READ
        // is taken, and the request runs again; a response that meets a page
        // that is not resident later waits for it in the responder's sender.
        match m.ready(va, (len as usize).min(mr::MAX_FAULT), false) {
            Ok(()) => {}
            Err(Some(miss)) => return Err(qp::work::odp_rx_miss(inner, st, miss)),
            Err(None) => {
                dev.stats.inc(Counter::SentNakAccess);
                out.answer = Some(nak(AETH_NAK_REM_ACC_ERR));
                out.fail = true;
                return Err(Counter::RcvLocalAccessError);
            }
        }
    }
    if !duplicate {
        let read = KeptRead::new(psn, va, rkey, len, mtu);
        st.resp.psn = psn_add(psn, read.packets);
        st.resp.msn = (st.resp.msn + 1) & PSN_MASK;
        st.kept_reads.record(read);
    }
    out.answer = Some(Answer::read(psn, st.resp.msn, va, rkey, len, mtu));
    out.repeated_read = duplicate;
    Ok(())
}

/// An atomic (RC): rights, alignment, rkey and range are checked, then the 8 bytes
/// are read, changed and written under the device's atomic lock (as rxe's
/// `atomic_ops_lock`, so atomics from all QPs are serialised). The original value
/// is kept per QP for as many atomics as a requester may have outstanding, so a
/// duplicate is answered without executing again.
fn atomic_request(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    pkt: &Packet<'_>,
    out: &mut Outcome,
    duplicate: bool,
) -> Result<(), Counter> {
    let inner = qp.data();
    let dev = qp.device().data();
    let psn = pkt.bth.psn();
    let a = pkt.atmeth.ok_or(Counter::RcvMalformed)?;
    let nak = |st: &QpInner, syndrome| reply_to(st, syndrome, psn);
    if duplicate {
        // One older than any atomic a conforming requester can still wait for
        // is not answered, as rxe does (the caller counted the duplicate).
        if let Some(orig) = st.atomic_replies.find(psn) {
            out.answer = Some(Answer::atomic(psn, st.resp.msn, orig));
        }
        return Ok(());
    }
    let (va, rkey) = (a.va(), a.rkey());
    if st.resp.in_msg.is_some()
        || st.attr.qp_access_flags.bits() & access::REMOTE_ATOMIC == 0
        || st.attr.max_dest_rd_atomic == 0
        || va & 7 != 0
    {
        dev.stats.inc(Counter::SentNakInvalid);
        out.answer = Some(nak(st, AETH_NAK_INVALID_REQ));
        out.fail = true;
        return Err(Counter::RcvMalformed);
    }
    let Some(mr) = mr::lookup_remote(
        &dev.keys,
        inner.serial,
        inner.pd_id,
        rkey,
        access::REMOTE_ATOMIC,
        va,
        8,
    ) else {
        dev.stats.inc(Counter::SentNakAccess);
        out.answer = Some(nak(st, AETH_NAK_REM_ACC_ERR));
        out.fail = true;
        return Err(Counter::RcvLocalAccessError);
    };
    // An on-demand-paging MR's page is made resident and writable first, so
    // that the read-modify-write below never stops half way.
    let ready = match mr.ready(va, 8, true) {
        Err(Some(miss)) => return Err(qp::work::odp_rx_miss(inner, st, miss)),
        r => r.is_ok(),
    };
    // Memory that cannot be reached after all (a failed fault) is a remote
    // access error, as a bad rkey is (rxe's RKEY_VIOLATION).
    let refuse = |st: &mut QpInner, out: &mut Outcome| {
        dev.stats.inc(Counter::SentNakAccess);
        out.answer = Some(nak(st, AETH_NAK_REM_ACC_ERR));
        out.fail = true;
        Counter::RcvLocalAccessError
    };
    if !ready {
        return Err(refuse(st, out));
    }
    let fail = |st: &mut QpInner, out: &mut Outcome, e: Error| {
        if e == EAGAIN {
            // Invalidated since the check: nothing was written; run again.
            qp::work::odp_rx_miss(inner, st, mr::Miss::of(&mr, va, 8, true))
        } else {
            refuse(st, out)
        }
    };
    let orig = {
        let _g = dev.atomic_lock.lock();
        let mut b = [0u8; 8];
        mr.read_remote(va, &mut b).map_err(|e| fail(st, out, e))?;
        let orig = u64::from_ne_bytes(b);
        let new = if pkt.bth.opcode() == opcode::RC_COMPARE_SWAP {
            if orig == a.compare() {
                a.swap_add()
            } else {
                orig
            }
        } else {
            orig.wrapping_add(a.swap_add())
        };
        mr.write_remote(va, &new.to_ne_bytes())
            .map_err(|e| fail(st, out, e))?;
        orig
    };
    st.resp.psn = psn_add(psn, 1);
    st.resp.msn = (st.resp.msn + 1) & PSN_MASK;
    st.atomic_replies.record(psn, orig);
    out.answer = Some(Answer::atomic(psn, st.resp.msn, orig));
    Ok(())
}

/// A FLUSH or an ATOMIC WRITE (IBA 1.5, RC). Both are answered like a READ of no
/// data, by one READ response ONLY, and a duplicate is answered again without
/// executing again (oA19-14, oA19-15).
///
/// ATOMIC WRITE needs remote write rights and writes its 8 bytes at an aligned
/// address under the device's atomic lock. FLUSH needs the rights its placement
/// type names, on the QP and on the MR (range checked unless the whole MR is
/// flushed); memory here is ordinary memory, so both placement types are a write
/// barrier (rxe writes back pmem pages for the persistent type).
fn flush_or_atomic_write(
    qp: &Qp<Rrxe>,
    st: &mut QpInner,
    pkt: &Packet<'_>,
    out: &mut Outcome,
    duplicate: bool,
) -> Result<(), Counter> {
    let inner = qp.data();
    let dev = qp.device().data();
    let psn = pkt.bth.psn();
    let reth = pkt.reth.ok_or(Counter::RcvMalformed)?;
    let (va, rkey, len) = (reth.va(), reth.rkey(), reth.len());
    let mtu = qp::path_mtu_bytes(st);
    let answer = |msn| Answer::read(psn, msn, va, rkey, 0, mtu);
    if duplicate {
        out.answer = Some(answer(st.resp.msn));
        return Ok(());
    }
    let nak = |syndrome| reply_to(st, syndrome, psn);
    let (need, range) = match pkt.feth {
        Some(feth) => {
            let kind = feth.plt();
            let mut need = 0;
            if kind & flush::GLOBAL != 0 {
                need |= access::FLUSH_GLOBAL;
            }
            if kind & flush::PERSISTENT != 0 {
                need |= access::FLUSH_PERSISTENT;
            }
            // Flushing the whole MR: no range.
            (need, (feth.sel() != flush::LEVEL_MR).then_some(len))
        }
        None => (access::REMOTE_WRITE, Some(8)),
    };
    let atomic_write = pkt.feth.is_none();
    let malformed = atomic_write && (va & 7 != 0 || len != 8 || pkt.payload.len() != 8);
    if st.resp.in_msg.is_some()
        || st.attr.qp_access_flags.bits() & need != need
        || st.attr.max_dest_rd_atomic == 0
        || malformed
    {
        dev.stats.inc(Counter::SentNakInvalid);
        out.answer = Some(nak(AETH_NAK_INVALID_REQ));
        out.fail = true;
        return Err(Counter::RcvMalformed);
    }
    let found = match range {
        Some(n) => mr::lookup_remote(&dev.keys, inner.serial, inner.pd_id, rkey, need, va, n),
        None => mr::lookup_remote_whole(&dev.keys, inner.serial, inner.pd_id, rkey, need, va),
    };
    let Some(mr) = found else {
        dev.stats.inc(Counter::SentNakAccess);
        out.answer = Some(nak(AETH_NAK_REM_ACC_ERR));
        out.fail = true;
        return Err(Counter::RcvLocalAccessError);
    };
    // An on-demand-paging MR's pages must be there: written (ATOMIC WRITE), or
    // made durable (FLUSH of a range; a FLUSH of the whole MR has no range to
    // fault in, and ordinary memory needs nothing from it).
    let reach = match range {
        Some(n) => mr.ready(va, (n as usize).min(mr::MAX_FAULT), atomic_write),
        None => Ok(()),
    };
    let written = match reach {
        Err(Some(miss)) => return Err(qp::work::odp_rx_miss(inner, st, miss)),
        Err(None) => Err(EFAULT),
        Ok(()) if atomic_write => {
            let _g = dev.atomic_lock.lock();
            mr.write_remote(va, pkt.payload)
        }
        Ok(()) => Ok(()),
    };
    match written {
        Err(e) if e == EAGAIN => {
            let miss = mr::Miss::of(&mr, va, 8, true);
            return Err(qp::work::odp_rx_miss(inner, st, miss));
        }
        Err(_) => {
            // rxe's RKEY_VIOLATION.
            dev.stats.inc(Counter::SentNakAccess);
            out.answer = Some(reply_to(st, AETH_NAK_REM_ACC_ERR, psn));
            out.fail = true;
            return Err(Counter::RcvLocalAccessError);
        }
        Ok(()) => {}
    }
    if !atomic_write {
        core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
    }
    st.resp.psn = psn_add(psn, 1);
    st.resp.msn = (st.resp.msn + 1) & PSN_MASK;
    out.answer = Some(answer(st.resp.msn));
    Ok(())
}
