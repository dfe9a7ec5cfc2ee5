// SPDX-License-Identifier: GPL-2.0

//! The requester: turns validated send WQEs into packets.
//!
//! Datagram QPs (UD, GSI) send each WQE as one SEND_ONLY packet with a DETH. RC and
//! UC messages are cut into path-MTU packets (FIRST/MIDDLE/LAST or ONLY). UD and UC
//! WQEs complete once sent; RC WQEs stay queued until the completer sees their ACK,
//! and at most 128 PSNs are outstanding.
//!
//! Each packet is built under the QP lock, straight from the kernel copy of the WQE,
//! and sent after the lock is dropped, so a packet to the device itself (loopback)
//! can take the locks of the receiving QP, and the ACK can take this one.

use crate::{
    abi::{qp_type as qpt, send_flags as flag, wr_opcode as op, GSI_QKEY},
    engine::comp,
    engine::recovery,
    net::xmit::{self, Path, SendError},
    obj::mr::{self, Miss, SgeCursor},
    obj::mw,
    obj::qp::{self, QpInner},
    obj::wqe::{self, Bad, Pending, SendWqe},
    obj::Rrxe,
    params,
    proto::{
        hdr::{
            AtomicEthFields, DethFields, FethFields, IethFields, ImmDtFields, RethFields,
            BTH_DEF_PKEY,
        },
        ip,
        opcode::{self, RequestKind},
        packet::HeaderFields,
        psn::{self, psn_add, psn_diff, PSN_MASK},
        qp_state::QpState,
    },
    stats::Counter,
};
use kernel::rdma::wr::WcStatus;
use kernel::{net::skb::SkBuff, rdma::qp::Qp};

/// `RXE_MAX_PKT_PER_ACK`: an RC requester asks for an ACK at least this often.
const MAX_PKT_PER_ACK: u32 = 64;

/// An unsignaled RC WQE asks for an ACK only once this many WQEs (or half the SQ)
/// await theirs. rxe asks at every message end, so a stream of small unsignaled
/// WRITEs costs an ACK each, built, sent, received and checked: half the packets.
const MAX_WQE_PER_ACK: usize = 32;

/// Packets one requester run sends before it hands over to the QP's work item, so
/// neither a doorbell syscall nor an ACK's softirq keeps a CPU for one busy QP.
const RUN_BUDGET: u32 = 256;

/// Sends what the QP has queued, one requester per QP at a time
/// ([`qp::Runner`]).
pub(crate) fn run(qp: &Qp<Rrxe>) {
    run_some(qp, RUN_BUDGET);
}

/// As [`run`], handing over to the QP's work item after `budget` packets.
pub(crate) fn run_some(qp: &Qp<Rrxe>, budget: u32) {
    let inner = qp.data();
    inner.req_runner.run(
        budget,
        || step(qp),
        || {
            qp::post::watch_for_work_item(qp);
            qp::work::defer(inner)
        },
    );
}

/// A packet built under the lock, to be sent after it.
struct Built {
    skb: SkBuff,
    path: Path,
    /// The packet ends a WQE that completes once sent (UD, UC).
    completes: bool,
}

/// Builds and sends the next packet; returns whether there may be more.
fn step(qp: &Qp<Rrxe>) -> bool {
    let inner = qp.data();
    if !inner.tx.may_send() {
        // Released packets queue the QP's work item, which runs the requester
        // and its re-check: the doorbell's promise holds meanwhile.
        qp.device().data().stats.inc(Counter::TxLimitWaits);
        qp::post::watch_for_work_item(qp);
        return false;
    }
    let built = {
        let mut st = inner.state.lock();
        if qp::cur_state(&st) != QpState::Rts {
            return false;
        }
        match next_packet(qp, &mut st) {
            Next::Packet(b) => b,
            // WQEs posted without a system call are taken here.
            Next::Idle => return qp::post::recheck(qp, &mut st),
            Next::Again => return true,
            Next::Done => {
                drop(st);
                qp::complete::complete_sent(qp, |_| true);
                return true;
            }
            Next::FailHead => {
                drop(st);
                qp::complete::fail_front(qp, WcStatus::LocQpOpErr);
                return false;
            }
            Next::Local(acked) => {
                drop(st);
                if inner.qp_type == qpt::RC {
                    qp::complete::complete_sent(qp, |w| acked_by(w, acked));
                } else {
                    // UC WQEs complete once sent: nothing before it is left.
                    qp::complete::complete_sent(qp, |_| true);
                }
                return true;
            }
        }
    };
    // Like rxe, a packet the stack drops is lost, not an error: RC retransmits.
    let _ = xmit::xmit(qp.device(), inner, &built.path, built.skb);
    if built.completes {
        qp::complete::complete_sent(qp, |_| true);
    }
    true
}

enum Next {
    Packet(Built),
    /// Nothing to send now.
    Idle,
    /// The state changed (a WQE was refused); look again.
    Again,
    /// A WQE finished without a packet; complete it.
    Done,
    /// A refused WQE reached the head: fail the QP.
    FailHead,
    /// A local operation ran; complete what this (RC) ACK PSN covers.
    Local(u32),
}

fn request_kind(opcode: u32) -> Option<RequestKind> {
    Some(match opcode {
        op::SEND => RequestKind::Send,
        op::SEND_WITH_IMM => RequestKind::SendWithImm,
        op::SEND_WITH_INV => RequestKind::SendWithInv,
        op::RDMA_WRITE => RequestKind::Write,
        op::RDMA_WRITE_WITH_IMM => RequestKind::WriteWithImm,
        _ => return None,
    })
}

fn plan(qp: &Qp<Rrxe>, st: &QpInner, out_of_turn: bool) -> Plan {
    let inner = qp.data();
    let dev = qp.device();
    let qpn = qp.qp_num();
    let datagram = matches!(inner.qp_type, qpt::UD | qpt::GSI);
    let rc = inner.qp_type == qpt::RC;
    let idx = st.sq.req_idx;
    let w = match st.sq.pending.get(idx) {
        Some(Pending::Wqe(w)) => w,
        Some(Pending::Bad { .. }) if idx == 0 => return Plan::FailHead,
        _ => return Plan::Idle,
    };
    if rc && (window_full_at(st, st.sq.psn) || st.timers.rnr_waiting()) {
        return Plan::Idle;
    }
    let off = st.sq.req_off;
    let (wr_id, length, flags, imm) = (w.wr_id, w.length, w.flags, w.ex);
    let pkt_psn = st.sq.psn;
    let mut f = HeaderFields::default();
    f.bth.pkey = BTH_DEF_PKEY;
    f.bth.psn = pkt_psn;
    let (path, sport, n, last) = if datagram {
        let Some(ud) = w.ud else {
            return Plan::Refuse(wr_id, Bad::Address);
        };
        // The AH was checked at fetch time; it may have been destroyed since.
        let path = dev
            .data()
            .ahs
            .get(ud.ah_num)
            .and_then(|ah| Path::from_av(&ah.attr).ok());
        let Some(path) = path else {
            return Plan::Refuse(wr_id, Bad::Address);
        };
        let mtu = psn::ib_mtu_bytes(params::active_mtu(dev.netdev().mtu()) as u8).unwrap_or(256);
        if length > mtu {
            // A datagram over the port MTU completes without being sent
            // (C10-93.1.1), as in rxe.
            return Plan::OverMtu;
        }
        f.bth.opcode = if w.opcode == op::SEND_WITH_IMM {
            opcode::UD_SEND_ONLY_WITH_IMMEDIATE
        } else {
            opcode::UD_SEND_ONLY
        };
        f.bth.dest_qpn = ud.remote_qpn;
        f.deth = DethFields {
            qkey: if qpn == 1 { GSI_QKEY } else { ud.remote_qkey },
            src_qpn: qpn,
            ..DethFields::default()
        };
        (path, ip::qp_sport(qpn), length, true)
    } else {
        let Ok(path) = Path::from_av(&st.attr.ah_attr) else {
            return Plan::Refuse(wr_id, Bad::Address);
        };
        let mtu = qp::path_mtu_bytes(st);
        // A fence waits for the RDMA READs before it (atomics come later).
        if flags & flag::FENCE != 0 && st.sq.rd_outstanding > 0 {
            return Plan::Idle;
        }
        f.bth.dest_qpn = st.attr.dest_qp_num;
        let sport = ip::flow_sport(st.attr.ah_attr.flow_label, qpn, st.attr.dest_qp_num);
        if rc && matches!(w.opcode, op::ATOMIC_CMP_AND_SWP | op::ATOMIC_FETCH_AND_ADD) {
            // Atomics share READ's credits (max_rd_atomic).
            if st.sq.rd_outstanding >= u32::from(st.attr.max_rd_atomic).max(1) {
                return Plan::Idle;
            }
            let cmp_swp = w.opcode == op::ATOMIC_CMP_AND_SWP;
            f.bth.opcode = if cmp_swp {
                opcode::RC_COMPARE_SWAP
            } else {
                opcode::RC_FETCH_ADD
            };
            f.bth.ack_req = true;
            f.atmeth = AtomicEthFields {
                va: w.remote_addr,
                rkey: w.rkey,
                swap_add: if cmp_swp { w.swap } else { w.compare_add },
                compare: if cmp_swp { w.compare_add } else { 0 },
            };
            return response_request(wr_id, dev, path, sport, &f, &[], 1);
        }
        if rc && matches!(w.opcode, op::FLUSH | op::ATOMIC_WRITE) {
            // Answered by one READ response without data. They take a READ credit
            // too (rxe's check_init_depth does not count them), because the
            // responder keeps them among its max_dest_rd_atomic resources.
            if st.sq.rd_outstanding >= u32::from(st.attr.max_rd_atomic).max(1) {
                return Plan::Idle;
            }
            f.bth.ack_req = true;
            f.reth = RethFields {
                va: w.remote_addr,
                rkey: w.rkey,
                len: length,
            };
            if w.opcode == op::FLUSH {
                f.bth.opcode = opcode::RC_FLUSH;
                f.feth = FethFields::new(w.flush.0, w.flush.1);
                return response_request(wr_id, dev, path, sport, &f, &[], 1);
            }
            f.bth.opcode = opcode::RC_ATOMIC_WRITE;
            return response_request(wr_id, dev, path, sport, &f, &w.atomic_wr, 1);
        }
        if rc && w.opcode == op::RDMA_READ {
            // One request; the responses take one PSN per path-MTU packet.
            if st.sq.rd_outstanding >= u32::from(st.attr.max_rd_atomic).max(1) {
                return Plan::Idle;
            }
            // After a rewind into the READ (`off` > 0) only the rest is asked for.
            f.bth.opcode = opcode::RC_RDMA_READ_REQUEST;
            f.bth.ack_req = true;
            f.reth = RethFields {
                va: w.remote_addr.wrapping_add(u64::from(off)),
                rkey: w.rkey,
                len: length - off,
            };
            let span = (length - off).div_ceil(mtu).max(1);
            return response_request(wr_id, dev, path, sport, &f, &[], span);
        }
        let n = (length - off).min(mtu);
        let (first, last) = (off == 0, off + n == length);
        let Some(op) =
            request_kind(w.opcode).and_then(|k| opcode::request_opcode(!rc, k, first, last))
        else {
            return Plan::Refuse(wr_id, Bad::Opcode);
        };
        f.bth.opcode = op;
        if first && matches!(w.opcode, op::RDMA_WRITE | op::RDMA_WRITE_WITH_IMM) {
            f.reth = RethFields {
                va: w.remote_addr,
                rkey: w.rkey,
                len: length,
            };
        }
        if w.opcode == op::SEND_WITH_INV {
            f.ieth = IethFields { rkey: w.ex };
        }
        (path, sport, n, last)
    };
    f.immdt = ImmDtFields {
        imm: u32::from_be(imm),
    };
    let sends_or_write_imm = matches!(
        w.opcode,
        op::SEND | op::SEND_WITH_IMM | op::SEND_WITH_INV | op::RDMA_WRITE_WITH_IMM
    );
    f.bth.se = last && flags & flag::SOLICITED != 0 && sends_or_write_imm;
    // A packet that fills a reduced window asks for an ACK too, or the requester
    // would wait for the ACK timeout whenever the window is smaller than the
    // AckReq interval. A full window keeps rxe's cadence.
    let fills_window = st.sq.window.reduced() && window_full_at(st, psn_add(pkt_psn, 1));
    // Only a WQE whose completion someone waits for needs its ACK now. The ACK of an
    // unsignaled tail is asked for by a probe if nothing follows ([`probe_tail`]);
    // a packet sent again (go-back-N, or the probe itself) always asks.
    let resent = psn_diff(st.sq.sent_psn, pkt_psn) > 0;
    let wants_ack = flags & flag::SIGNALED != 0
        || inner.sq_sig_all
        || resent
        || idx + 1 >= (st.sq.capacity as usize / 2).clamp(1, MAX_WQE_PER_ACK);
    // So does a packet sent out of turn as a probe.
    f.bth.ack_req = rc
        && ((last && wants_ack)
            || st.sq.noack + 1 >= MAX_PKT_PER_ACK
            || fills_window
            || out_of_turn);
    let mut miss = None;
    let built = xmit::build(dev, &path, sport, &f, n as usize, |payload| {
        if flags & flag::INLINE != 0 {
            let src = w
                .inline_data
                .get(off as usize..(off + n) as usize)
                .filter(|src| src.len() == payload.remaining())
                .ok_or(SendError::Payload)?;
            payload.copy(src).map_err(|_| SendError::Payload)
        } else {
            let mut c = SgeCursor::new(&dev.data().keys, inner.pd_id, &w.sgl);
            c.skip(off as usize).map_err(|_| SendError::Payload)?;
            c.read_into(n as usize, payload).map_err(|_| {
                miss = c.miss();
                SendError::Payload
            })
        }
    });
    match built {
        Ok(skb) => Plan::Packet {
            built: Built {
                skb,
                path,
                completes: last && !rc,
            },
            n,
            last,
            ack_req: f.bth.ack_req,
            span: 1,
            read: false,
        },
        Err(SendError::Payload) => match miss {
            Some(miss) => Plan::Fault(miss),
            None => Plan::Refuse(wr_id, Bad::Protection),
        },
        Err(SendError::Net(e)) => unbuilt(wr_id, e),
    }
}

/// A request answered by a response (READ, atomic, FLUSH, ATOMIC WRITE): one
/// packet, with `payload` (only ATOMIC WRITE has one), whose answer takes `span`
/// PSNs; it takes one of the max_rd_atomic credits.
fn response_request(
    wr_id: u64,
    dev: &kernel::rdma::Device<Rrxe>,
    path: Path,
    sport: u16,
    f: &HeaderFields,
    payload: &[u8],
    span: u32,
) -> Plan {
    let fill = |out: &mut kernel::fill::Filler<'_>| {
        if out.remaining() != payload.len() {
            return Err(SendError::Payload);
        }
        out.copy(payload).map_err(|_| SendError::Payload)
    };
    match xmit::build(dev, &path, sport, f, payload.len(), fill) {
        Ok(skb) => Plan::Packet {
            built: Built {
                skb,
                path,
                completes: false,
            },
            n: 0,
            last: true,
            ack_req: true,
            span,
            read: true,
        },
        Err(SendError::Net(e)) => unbuilt(wr_id, e),
        Err(SendError::Payload) => Plan::Refuse(wr_id, Bad::Length),
    }
}

/// A packet [`xmit::build`] could not build: for want of memory it is tried
/// again; anything else (a header that cannot be built) fails the WQE rather
/// than leave it at the head of the SQ for ever.
fn unbuilt(wr_id: u64, e: kernel::error::Error) -> Plan {
    if e == kernel::error::code::ENOMEM {
        Plan::NoMemory
    } else {
        Plan::Refuse(wr_id, Bad::Length)
    }
}

enum Plan {
    Packet {
        built: Built,
        n: u32,
        last: bool,
        ack_req: bool,
        /// PSNs the packet takes (a READ request: those of its responses).
        span: u32,
        read: bool,
    },
    OverMtu,
    Idle,
    /// No memory for the packet: try again soon.
    NoMemory,
    /// A page of an on-demand-paging MR was not resident: try again once the
    /// send work item faulted it in.
    Fault(Miss),
    Refuse(u64, Bad),
    FailHead,
}

/// Runs a local operation (BIND_MW, LOCAL_INV, REG_MR): it takes no PSN and no
/// packet.
fn local_op(qp: &Qp<Rrxe>, w: &SendWqe) -> Result<(), Bad> {
    let inner = qp.data();
    let dev = qp.device().data();
    match w.opcode {
        op::BIND_MW => {
            let a = w.bind.as_ref().ok_or(Bad::Bind)?;
            mw::bind(&dev.keys, inner.qp_type, inner.serial, inner.pd_id, a)
        }
        op::REG_MR => {
            let r = w.reg.as_ref().ok_or(Bad::Register)?;
            mr::register_fast(&r.mr, inner.pd_id, r.iova, r.key, r.access)
        }
        _ if mw::is_mw_key(&dev.keys, w.ex) => mw::invalidate(&dev.keys, None, inner.pd_id, w.ex),
        _ => mr::invalidate(&dev.keys, inner.pd_id, w.ex),
    }
}

/// If the requester is at a local operation, runs it and moves past it. It runs
/// once: a rewind that comes back to it (`sent_all`) only steps over it. It is
/// given the PSN before the requester's place, so it completes, in order, once
/// everything sent before it is acknowledged.
fn next_local(qp: &Qp<Rrxe>, st: &mut QpInner) -> Option<Next> {
    let idx = st.sq.req_idx;
    let Some(Pending::Wqe(w)) = st.sq.pending.get(idx) else {
        return None;
    };
    if !matches!(w.opcode, op::BIND_MW | op::LOCAL_INV | op::REG_MR) {
        return None;
    }
    if !w.sent_all {
        // A fence waits for the RDMA READs before it, as for any WQE.
        if w.flags & flag::FENCE != 0 && st.sq.rd_outstanding > 0 {
            return Some(Next::Idle);
        }
        // The local invalidate fence (IBA 10.6.5.1), mandatory as in rxe: LOCAL_INV
        // waits until every WQE before it has completed, so no READ response or
        // retransmission still uses the memory it takes away.
        if w.opcode == op::LOCAL_INV && idx != 0 {
            return Some(Next::Idle);
        }
        if let Err(why) = local_op(qp, w) {
            let wr_id = w.wr_id;
            return Some(refuse(st, idx, wr_id, why));
        }
        let before = psn_add(st.sq.psn, 0x00ff_ffff);
        if let Some(Pending::Wqe(w)) = st.sq.pending.get_mut(idx) {
            (w.first_psn, w.last_psn) = (before, before);
            (w.started, w.sent_all) = (true, true);
        }
    }
    st.sq.req_idx += 1;
    st.sq.req_off = 0;
    Some(Next::Local(psn_add(st.sq.comp_psn, 0x00ff_ffff)))
}

/// Picks and builds the next packet, then moves the requester past it. If a
/// window probe asked for the oldest unacknowledged packet, that one goes
/// first, out of turn, and the requester stays where it was. Its place is
/// found and given back in one hold of the QP lock: left set across the lock,
/// a completion in between would shift the WQE it names, and an ACK would
/// find the requester behind and send a window again.
fn next_packet(qp: &Qp<Rrxe>, st: &mut QpInner) -> Next {
    // Progress since the probe was set up ended the go-back-N it was for.
    if core::mem::take(&mut st.sq.probe_oldest) && recovery::retrying(st) {
        if let Some(at) = oldest_place(st) {
            let place = (st.sq.psn, st.sq.req_idx, st.sq.req_off);
            (st.sq.psn, st.sq.req_idx, st.sq.req_off) = at;
            let next = next_packet_at(qp, st, true);
            (st.sq.psn, st.sq.req_idx, st.sq.req_off) = place;
            return next;
        }
    }
    next_packet_at(qp, st, false)
}

/// [`next_packet`] from the requester's place, `out_of_turn` for a probe's
/// packet, which asks for an ACK.
fn next_packet_at(qp: &Qp<Rrxe>, st: &mut QpInner, out_of_turn: bool) -> Next {
    if let Some(next) = next_local(qp, st) {
        return next;
    }
    let idx = st.sq.req_idx;
    if let Some(Pending::Wqe(w)) = st.sq.pending.get(idx) {
        if w.answered {
            // Answered in full while a rewind pointed here (`comp::answered`):
            // it only waits to complete, so the requester steps over it.
            let next = psn_add(w.last_psn, 1);
            if psn_diff(next, st.sq.psn) > 0 {
                st.sq.psn = next;
            }
            st.sq.req_idx += 1;
            st.sq.req_off = 0;
            return Next::Again;
        }
    }
    let (off, pkt_psn) = (st.sq.req_off, st.sq.psn);
    let (built, n, last, ack_req, span, read) = match plan(qp, st, out_of_turn) {
        Plan::Packet {
            built,
            n,
            last,
            ack_req,
            span,
            read,
        } => (built, n, last, ack_req, span, read),
        Plan::OverMtu => {
            st.sq.req_idx += 1;
            return Next::Done;
        }
        Plan::Idle => return Next::Idle,
        Plan::NoMemory => {
            qp.device().data().stats.inc(Counter::SendNoMemory);
            recovery::retry_build(qp.data(), st);
            return Next::Idle;
        }
        Plan::Fault(miss) => {
            qp.device().data().stats.inc(Counter::OdpDeferred);
            st.odp.tx = Some(miss);
            qp::work::defer_fault(qp.data());
            return Next::Idle;
        }
        Plan::FailHead => return Next::FailHead,
        // A probe's packet behind the requester's place is not refused there:
        // the requester would go on past the refused WQE. The go-back-N that
        // reaches it refuses it.
        Plan::Refuse(..) if out_of_turn => return Next::Again,
        Plan::Refuse(wr_id, why) => return refuse(st, idx, wr_id, why),
    };
    if let Some(Pending::Wqe(w)) = st.sq.pending.get_mut(idx) {
        if off == 0 {
            w.first_psn = pkt_psn;
            w.started = true;
        }
        if last {
            w.last_psn = psn_add(pkt_psn, span - 1);
            w.sent_all = true;
        }
    }
    if read {
        st.sq.rd_outstanding += 1;
    }
    if qp.data().qp_type == qpt::RC {
        recovery::sent(qp.data(), st);
        recovery::timed_send(st, pkt_psn, span, ack_req);
        recovery::tail(qp.data(), st, ack_req, last);
        // Only a reduced window: a full one asks for ACKs every 64 packets and
        // keeps the timer out of a clean path's way. The resend of a go-back-N
        // that caught up with what was sent before is probed too, full or not.
        let end = psn_add(pkt_psn, span);
        let filled = st.sq.window.reduced() && window_full_at(st, end);
        if !read && (filled || (recovery::retrying(st) && end == st.sq.sent_psn)) {
            recovery::window_full(qp.data(), st);
        }
    }
    st.sq.psn = psn_add(pkt_psn, span);
    if psn_diff(st.sq.psn, st.sq.sent_psn) > 0 {
        st.sq.sent_psn = st.sq.psn;
    }
    st.sq.noack = if ack_req { 0 } else { st.sq.noack + 1 };
    if ack_req {
        st.sq.asked_psn = psn_add(pkt_psn, span);
    }
    if last {
        st.sq.req_idx += 1;
        st.sq.req_off = 0;
    } else {
        st.sq.req_off = off + n;
    }
    Next::Packet(built)
}

/// Sets the requester back by one packet, to send the last packet sent again with
/// AckReq set: the packets since the last AckReq end an unsignaled WQE that nothing
/// followed, so no ACK is coming for them. The responder answers the duplicate with
/// an ACK for all it has (C9-105, as rxe does too). Returns whether it did; if the
/// requester is anywhere but just past its last packet, the ACK timeout recovers.
pub(crate) fn probe_tail(st: &mut QpInner) -> bool {
    if st.sq.noack == 0
        || st.sq.req_off != 0
        || st.sq.req_idx == 0
        || st.sq.psn != st.sq.sent_psn
        || st.sq.psn == st.sq.comp_psn
        || st.timers.rnr_waiting()
    {
        return false;
    }
    step_back(st)
}

/// Which packet a window probe sends again ([`probe_window`]).
pub(crate) enum WindowProbe {
    /// The last packet sent.
    Last,
    /// The oldest unacknowledged packet, then the last ([`oldest_place`]).
    Oldest,
}

/// Sets the requester back by one packet, to send the last packet sent again
/// as a window probe ([`recovery::window_full`]): it fills the reduced window
/// again, so it asks for an ACK (`fills_window` in [`plan`]). Returns which
/// probe it set up, if any: only while no RNR wait holds the requester, no
/// READ or atomic is outstanding (its answers may be on their way, and the
/// probe's ACK, past it, would have it asked for again) and the packets are a
/// SEND's or WRITE's.
///
/// After a go-back-N that made no progress yet, full window or not, the oldest
/// unacknowledged packet goes first, out of turn ([`oldest_place`]), and then
/// the last one, if that is not the same packet and can be stepped back to. A
/// responder NAKs a gap once (rdma_rxe too): if the first packet a go-back-N
/// sent again is lost as well, it drops the rest of the resend without a
/// word, and the last packet too; only the ACK timeout recovered. The oldest
/// fills that gap, and the last, sent after it, fills a gap there or makes the
/// responder NAK the next one. Otherwise only while the reduced window is
/// still full.
pub(crate) fn probe_window(st: &mut QpInner) -> Option<WindowProbe> {
    if st.sq.rd_outstanding > 0 || st.timers.rnr_waiting() {
        return None;
    }
    if recovery::retrying(st) {
        let last = step_back(st);
        if psn_diff(st.sq.psn, st.sq.comp_psn) > 0 && oldest_place(st).is_some() {
            st.sq.probe_oldest = true;
            return Some(WindowProbe::Oldest);
        }
        return last.then_some(WindowProbe::Last);
    }
    if !st.sq.window.reduced() || !window_full_at(st, st.sq.psn) {
        return None;
    }
    step_back(st).then_some(WindowProbe::Last)
}

/// The requester's place (`psn`, `req_idx`, `req_off`) for the oldest
/// unacknowledged packet, if something is outstanding and that packet is a
/// SEND's or WRITE's.
fn oldest_place(st: &QpInner) -> Option<(u32, usize, u32)> {
    let comp = st.sq.comp_psn;
    if psn_diff(st.sq.sent_psn, comp) <= 0 {
        return None;
    }
    // The first WQE not acknowledged in full; one still being sent has no last
    // PSN yet.
    let (i, w) = (0..st.sq.pending.len())
        .find_map(|i| match st.sq.pending.get(i) {
            Some(Pending::Wqe(w)) if w.sent_all && psn_diff(w.last_psn, comp) < 0 => None,
            Some(Pending::Wqe(w)) if w.started => Some(Some((i, w))),
            _ => Some(None),
        })
        .flatten()?;
    if request_kind(w.opcode).is_none() || w.needs_response() {
        return None;
    }
    let (psn, off) = comp::resend_place(st, w);
    Some((psn, i, off))
}

/// Whether the send window is full once the packets before PSN `next` are sent.
fn window_full_at(st: &QpInner, next: u32) -> bool {
    psn_diff(next, st.sq.comp_psn) >= st.sq.window.size() as i32
}

/// Sets the requester back onto the last packet it sent, if that is a SEND's
/// or WRITE's: not a READ's or atomic's (they asked for their answer), nor a
/// local operation's (it has no packet, and a rewind steps over it). Returns
/// whether it did; nothing changes otherwise.
fn step_back(st: &mut QpInner) -> bool {
    let mtu = qp::path_mtu_bytes(st);
    let last_psn = psn_add(st.sq.psn, PSN_MASK);
    let (idx, off) = if st.sq.req_off >= mtu {
        // Inside a WQE: the packet before the requester's place.
        (st.sq.req_idx, st.sq.req_off - mtu)
    } else if st.sq.req_off == 0 && st.sq.req_idx > 0 {
        // The previous WQE's last packet, if it was the last packet sent.
        let idx = st.sq.req_idx - 1;
        match st.sq.pending.get(idx) {
            Some(Pending::Wqe(w)) if w.sent_all && w.last_psn == last_psn => {
                (idx, w.length.saturating_sub(1) / mtu * mtu)
            }
            _ => return false,
        }
    } else {
        return false;
    };
    match st.sq.pending.get(idx) {
        Some(Pending::Wqe(w)) if w.started && request_kind(w.opcode).is_some() => {}
        _ => return false,
    }
    st.sq.psn = last_psn;
    st.sq.req_idx = idx;
    st.sq.req_off = off;
    true
}

/// Replaces WQE `idx` by the marker of a refused one, which fails the QP when it
/// reaches the head (after the WQEs before it complete).
fn refuse(st: &mut QpInner, idx: usize, wr_id: u64, why: Bad) -> Next {
    if let Some(p) = st.sq.pending.get_mut(idx) {
        let send = matches!(p, Pending::Wqe(w) if wqe::is_send(w.opcode));
        *p = Pending::Bad { wr_id, why, send };
    }
    Next::Again
}

/// Whether `w`'s packets are all acknowledged by an ACK with PSN `ack_psn`. An
/// RDMA READ or atomic is done only when its response arrived, not by an ACK.
pub(crate) fn acked_by(w: &SendWqe, ack_psn: u32) -> bool {
    !w.needs_response() && psn_diff(ack_psn, w.last_psn) >= 0
}

/// Whether the responses up to `psn` finish `w` (a READ) or pass it (others).
/// A READ or atomic must also have had its own answer: responses to a later
/// one never complete it.
pub(crate) fn answered_by(w: &SendWqe, psn: u32) -> bool {
    psn_diff(psn, w.last_psn) >= 0 && (w.answered || !w.needs_response())
}
