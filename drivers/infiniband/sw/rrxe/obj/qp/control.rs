// SPDX-License-Identifier: GPL-2.0

//! Creating, changing, querying and destroying a QP.

use super::{
    complete::{flush, Completions},
    cur_state,
    pending::PendingList,
    post, rx, timers, QpInner, RecvQueue, RespState, RrxeQp, Runner, SendQueue, TxInFlight,
    SPARE_ROOM,
};
use crate::abi::{CreateQpResp, MmapInfo};
use crate::{
    abi::{self, qp_type as qpt, GSI_QKEY},
    obj::ring::Ring,
    obj::wqe::{self, Pending, SqLimits},
    obj::Rrxe,
    params,
    proto::{
        answers::{AtomicReplies, KeptRead, KeptReads},
        qp_state::{self, QpState, QpType},
        read_ahead::ReadAhead,
        window::SendWindow,
    },
};
use core::sync::atomic::AtomicBool;
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        attr::Mtu,
        pd::Pd,
        qp::{Qp, QpAttr, QpAttrMask, QpCap, QpInitAttr, QpState as IbQpState},
        restrack::DriverDetails,
        srq::Srq,
        uverbs::UData,
    },
    sync::Arc,
    time::hrtimer::HrTimer,
    workqueue::new_work,
};

/// Largest local ACK timeout code.
const MAX_TIMEOUT: u8 = 31;

fn check_cap(cap: &QpCap, has_srq: bool) -> Result {
    let bad = cap.max_send_wr > params::MAX_QP_WR
        || cap.max_send_sge > params::MAX_SGE
        || cap.max_inline_data > params::MAX_INLINE_DATA
        || (!has_srq
            && (cap.max_recv_wr > params::MAX_QP_WR || cap.max_recv_sge > params::MAX_SGE));
    if bad {
        Err(EINVAL)
    } else {
        Ok(())
    }
}

fn qp_type_of(t: u32) -> Result<QpType> {
    QpType::from_raw(t).ok_or(EINVAL)
}

pub(crate) fn create(
    pd: &Pd<Rrxe>,
    a: &mut QpInitAttr,
    srq: Option<&Srq<Rrxe>>,
    udata: Option<&UData>,
) -> Result<(Arc<RrxeQp>, u32)> {
    let dev = pd.device().data();
    if let Some(u) = udata {
        if u.in_len() != 0 || u.out_len() < size_of::<CreateQpResp>() {
            return Err(EINVAL);
        }
    }
    if a.create_flags != 0 || a.has_xrc_or_rss {
        return Err(EOPNOTSUPP);
    }
    let qp_type = u32::from(a.qp_type);
    if !matches!(qp_type, qpt::RC | qpt::UC | qpt::UD | qpt::GSI) {
        return Err(EOPNOTSUPP);
    }
    if qp_type == qpt::GSI && a.port_num != 1 {
        return Err(EINVAL);
    }
    if let Some(s) = srq {
        if s.pd().data().id != pd.data().id {
            return Err(EINVAL);
        }
    }
    check_cap(&a.cap, a.has_srq)?;

    // Send queue: a slot holds max(SGEs, inline bytes) after the header, and the
    // capacities reported back are what the slot actually holds, as rxe.
    let w = (a.cap.max_send_sge as usize * abi::SGE_SIZE).max(a.cap.max_inline_data as usize);
    let mut sq = Ring::new(a.cap.max_send_wr, abi::SEND_WQE_HDR + w)?;
    let lim = SqLimits {
        qp_type,
        max_sge: (w / abi::SGE_SIZE) as u32,
        max_inline: w as u32,
    };
    let capacity = sq.layout().capacity();
    let mut resp = CreateQpResp {
        rq_mi: MmapInfo::default(),
        sq_mi: MmapInfo::default(),
    };
    let mut rq = None;
    if !a.has_srq {
        let mut q = Ring::new(a.cap.max_recv_wr, wqe::recv_slot_len(a.cap.max_recv_sge))?;
        if let Some(u) = udata {
            resp.rq_mi = q.publish(u)?;
        }
        a.cap.max_recv_wr = q.layout().capacity();
        let fetch_buf = KVec::from_elem(0u8, wqe::recv_slot_len(a.cap.max_recv_sge), GFP_KERNEL)?;
        rq = Some(RecvQueue {
            ring: q,
            max_sge: a.cap.max_recv_sge,
            fetch_buf,
        });
    }
    if let Some(u) = udata {
        resp.sq_mi = sq.publish(u)?;
    }
    // The doorbell serves the send rings of a context whose provider took it.
    let doorbell = udata
        .and_then(|u| u.ucontext(pd.device()))
        .filter(|c| c.doorbell.sq_watch)
        .map(|c| post::SqDoorbell::new(c.doorbell.mode));
    a.cap.max_send_wr = capacity;
    a.cap.max_send_sge = lim.max_sge;
    a.cap.max_inline_data = lim.max_inline;

    let mut attr = QpAttr {
        qp_state: IbQpState::Reset,
        path_mtu: Mtu::Mtu256.into(),
        port_num: 1,
        cap: a.cap,
        ..QpAttr::default()
    };
    if qp_type == qpt::GSI {
        attr.qkey = GSI_QKEY;
    }
    // Kernel QPs get all their room now, so posting never allocates the list.
    let pending = match udata {
        Some(_) => PendingList::new(),
        None => PendingList::with_room(capacity as usize, GFP_KERNEL)?,
    };
    // The largest slot: a 208-byte header and 512 bytes of SGEs or inline data,
    // rounded up.
    let fetch_buf = match udata {
        Some(_) => KVec::from_elem(0u8, 1024, GFP_KERNEL)?,
        None => KVec::new(),
    };
    let (sq_sig_all, pd_id) = (a.sq_sig_all, pd.data().id);
    // Only an RC responder answers.
    let rc = qp_type == qpt::RC;
    let resp_tx = super::new_answers(if rc { super::ANSWERS_CAPACITY } else { 0 })?;
    // An RC responder keeps the results of as many atomics as a requester may
    // have outstanding.
    let atomic_replies = AtomicReplies::new(if rc {
        KVec::from_elem((0u32, 0u64), params::MAX_QP_RD_ATOM as usize, GFP_KERNEL)?
    } else {
        KVec::new()
    });
    // And as many READs, for the same reason.
    let kept_reads = KeptReads::new(if rc {
        KVec::from_elem(
            KeptRead::default(),
            params::MAX_QP_RD_ATOM as usize,
            GFP_KERNEL,
        )?
    } else {
        KVec::new()
    });
    let spare_room = Completions::with_capacity(SPARE_ROOM, GFP_KERNEL)?;
    let srq = srq.map(|s| s.data().clone());
    let dev_ref = pd.device().get_ref().ok_or(ENODEV)?;
    let serial = dev.new_qp_serial();
    let rx = rx::RxBacklog::new();
    let make = |qpn: u32| {
        Arc::pin_init(
            pin_init!(RrxeQp {
                qp_type,
                pd_id,
                sq_sig_all,
                srq,
                qpn,
                serial,
                dev: dev_ref,
                send_work <- new_work!("rrxe_qp_send"),
                recv_work <- new_work!("rrxe_qp_recv"),
                fault_work <- new_work!("rrxe_qp_fault"),
                rx <- new_spinlock_irq!(rx),
                rx_owned: AtomicBool::new(false),
                timer <- HrTimer::new(),
                timer_queued: AtomicBool::new(false),
                req_runner: Runner::new(),
                resp_runner: Runner::new(),
                tx: TxInFlight::new(),
                route <- new_spinlock_irq!(super::RouteCache::default()),
                state <- new_spinlock_irq!(QpInner {
                    attr,
                    sq: SendQueue {
                        ring: udata.is_some().then_some(sq),
                        fetch_buf,
                        lim,
                        capacity,
                        pending,
                        psn: 0,
                        req_idx: 0,
                        req_off: 0,
                        comp_psn: 0,
                        sent_psn: 0,
                        noack: 0,
                        asked_psn: 0,
                        rd_outstanding: 0,
                        window: SendWindow::new(),
                        read_ahead: ReadAhead::new(),
                        probe_oldest: false,
                        peer_on_host: false,
                        doorbell,
                        counted_busy: false,
                        destroyed: false,
                    },
                    rq,
                    resp: RespState::default(),
                    resp_tx,
                    atomic_replies,
                    kept_reads,
                    timers: Default::default(),
                    spare_room,
                    odp: Default::default(),
                }),
            }),
            GFP_KERNEL,
        )
    };
    let (qpn, qp) = if qp_type == qpt::GSI {
        let qp = make(1)?;
        dev.qps.insert_at(1, qp.clone())?;
        (1, qp)
    } else {
        dev.qps.insert_with(GFP_KERNEL, make)?
    };
    if let Some(u) = udata {
        if let Err(e) = u.respond(&resp) {
            dev.qps.remove(qpn);
            return Err(e);
        }
    }
    Ok((qp, qpn))
}

pub(crate) fn modify(qp: &Qp<Rrxe>, a: &QpAttr, mask: QpAttrMask, max_mtu: Mtu) -> Result {
    use qp_state::attr as m;
    // The protocol core's state machine checks the IBTA mask bits.
    let (mask, max_mtu) = (mask.bits(), u32::from(max_mtu));
    if mask & !m::STANDARD_BITS != 0 {
        return Err(EOPNOTSUPP);
    }
    let inner = qp.data();
    let ty = qp_type_of(inner.qp_type)?;
    // Before the QP's lock: this takes the device list's mutex.
    let peer_on_host =
        (mask & m::AV != 0).then(|| crate::obj::device::gid_is_on_host(&a.ah_attr.dgid));
    let (new_state_is_err, refetch) = {
        let mut st = inner.state.lock();
        // The state the caller believes the QP in chooses the transition
        // checked, as in rxe: the MAD layer recovers QP1 from a send error with
        // SQE -> RTS, and a datagram QP's send error puts it in ERR here.
        let cur = if mask & m::CUR_STATE != 0 {
            QpState::from_raw(a.cur_qp_state.into()).ok_or(EINVAL)?
        } else {
            cur_state(&st)
        };
        // With no new state the QP stays in the one it is in. Staying in the
        // one claimed, a QP in RESET said to be in RTS became RTS without INIT
        // and RTR; now that is RTS -> RESET with an attribute it does not take.
        let new = if mask & m::STATE != 0 {
            QpState::from_raw(a.qp_state.into()).ok_or(EINVAL)?
        } else {
            cur_state(&st)
        };
        if !qp_state::modify_is_ok(cur, new, ty, mask) {
            return Err(EINVAL);
        }
        if mask & m::PORT != 0 && a.port_num != 1 {
            return Err(EINVAL);
        }
        if mask & m::CAP != 0 {
            check_cap(&a.cap, st.rq.is_none())?;
        }
        if mask & m::AV != 0
            && !matches!(
                a.ah_attr.network_type,
                abi::network::IPV4 | abi::network::IPV6
            )
        {
            return Err(EINVAL);
        }
        if mask & m::PATH_MTU != 0 && (a.path_mtu == 0 || a.path_mtu > max_mtu) {
            return Err(EINVAL);
        }
        if mask & m::MAX_QP_RD_ATOMIC != 0 && u32::from(a.max_rd_atomic) > params::MAX_QP_RD_ATOM {
            return Err(EINVAL);
        }
        if mask & m::MAX_DEST_RD_ATOMIC != 0
            && u32::from(a.max_dest_rd_atomic) > params::MAX_QP_RD_ATOM
        {
            return Err(EINVAL);
        }
        if mask & m::TIMEOUT != 0 && a.timeout > MAX_TIMEOUT {
            return Err(EINVAL);
        }
        let s = &mut st.attr;
        if mask & m::ACCESS_FLAGS != 0 {
            s.qp_access_flags = a.qp_access_flags;
        }
        if mask & m::PKEY_INDEX != 0 {
            s.pkey_index = a.pkey_index;
        }
        if mask & m::QKEY != 0 {
            s.qkey = a.qkey;
        }
        if mask & m::AV != 0 {
            s.ah_attr = a.ah_attr;
        }
        if mask & m::PATH_MTU != 0 {
            s.path_mtu = a.path_mtu;
        }
        if mask & m::TIMEOUT != 0 {
            s.timeout = a.timeout;
        }
        if mask & m::RETRY_CNT != 0 {
            s.retry_cnt = a.retry_cnt & 7;
        }
        if mask & m::RNR_RETRY != 0 {
            s.rnr_retry = a.rnr_retry & 7;
        }

        if mask & m::RQ_PSN != 0 {
            s.rq_psn = a.rq_psn & 0x00ff_ffff;
        }
        if mask & m::MAX_QP_RD_ATOMIC != 0 {
            s.max_rd_atomic = a.max_rd_atomic;
        }
        if mask & m::MIN_RNR_TIMER != 0 {
            s.min_rnr_timer = a.min_rnr_timer & 0x1f;
        }
        if mask & m::SQ_PSN != 0 {
            s.sq_psn = a.sq_psn & 0x00ff_ffff;
        }
        if mask & m::MAX_DEST_RD_ATOMIC != 0 {
            s.max_dest_rd_atomic = a.max_dest_rd_atomic;
        }
        if mask & m::PATH_MIG_STATE != 0 {
            s.path_mig_state = a.path_mig_state;
        }
        if mask & m::DEST_QPN != 0 {
            s.dest_qp_num = a.dest_qp_num & 0x00ff_ffff;
        }
        if mask & m::EN_SQD_ASYNC_NOTIFY != 0 {
            s.en_sqd_async_notify = a.en_sqd_async_notify;
        }
        st.set_state(new);
        // Posts ring again outside RTS; any the provider made without a system
        // call before it saw that are fetched below, or flushed.
        let raced = new != QpState::Rts && post::stop_watching(qp.device().data(), &mut st);
        if let Some(on_host) = peer_on_host {
            st.sq.peer_on_host = on_host;
        }
        if mask & (m::RETRY_CNT | m::RNR_RETRY) != 0 {
            timers::reset_retries(&mut st);
        }
        if mask & m::SQ_PSN != 0 {
            st.timers.stop_timing();
            st.sq.probe_oldest = false;
            st.sq.psn = st.attr.sq_psn;
            st.sq.comp_psn = st.attr.sq_psn;
            st.sq.sent_psn = st.attr.sq_psn;
            st.sq.asked_psn = st.attr.sq_psn;
            st.sq.read_ahead.clear();
        }
        if mask & m::RQ_PSN != 0 {
            st.resp.psn = st.attr.rq_psn;
        }
        if new == QpState::Reset {
            // Back to a clean QP: fetched WQEs are dropped without completions.
            st.sq.pending.clear();
            st.sq.recount(&qp.device().data().busy_qps);
            st.sq.probe_oldest = false;
            st.sq.req_idx = 0;
            st.sq.req_off = 0;
            st.sq.noack = 0;
            st.sq.rd_outstanding = 0;
            st.sq.window = SendWindow::new();
            st.sq.read_ahead.clear();
            st.resp = RespState::default();
            st.resp_tx.clear();
            st.atomic_replies.clear();
            st.kept_reads.clear();
            st.timers.forget();
        }
        (new == QpState::Err, raced && new != QpState::Err)
    };
    if new_state_is_err {
        flush(qp, &mut Completions::new_or_none(GFP_KERNEL));
    }
    if refetch {
        // As their POST_SEND would have: taken in SQD, refused in RESET.
        let _ = post::fetch(qp);
    }
    Ok(())
}

pub(crate) fn query(qp: &Qp<Rrxe>, a: &mut QpAttr, init: &mut QpInitAttr) -> Result {
    let inner = qp.data();
    let st = inner.state.lock();
    *a = st.attr;
    a.cur_qp_state = a.qp_state;
    a.sq_draining = u8::from(a.qp_state == IbQpState::Sqd);
    a.cap.max_send_wr = st.sq.capacity;
    a.cap.max_send_sge = st.sq.lim.max_sge;
    a.cap.max_inline_data = st.sq.lim.max_inline;
    match &st.rq {
        Some(rq) => {
            a.cap.max_recv_wr = rq.ring.layout().capacity();
            a.cap.max_recv_sge = rq.max_sge;
        }
        None => {
            a.cap.max_recv_wr = 0;
            a.cap.max_recv_sge = 0;
        }
    }
    init.cap = a.cap;
    init.sq_sig_all = inner.sq_sig_all;
    Ok(())
}

/// The transport state of a QP for `rdma resource show qp -dd`, so a stalled
/// QP can be looked at from user space: where the requester is, what it waits
/// for, and what the responder expects.
pub(crate) fn details(qp: &Qp<Rrxe>, out: &mut DriverDetails<'_>) -> Result {
    let inner = qp.data();
    let rx_queued = inner.rx.lock().len() as u32;
    // Taken under the lock, written to the message after it: (name, value, hex).
    let (entries, head) = {
        let st = inner.state.lock();
        let sq = &st.sq;
        let (retry_left, rnr_left, ack_wait, resending) =
            st.timers.details(sq.sent_psn != sq.comp_psn);
        let (ack_timeout_us, answer_time_us) = timers::ack_timeout_details(&st);
        // WQEs in the user's send ring the kernel has not taken: while the QP
        // is not watched, a post that has not rung yet.
        let unfetched = sq.ring.as_ref().map_or(0, |r| {
            (r.posted_count() as usize).saturating_sub(sq.pending.len()) as u32
        });
        // The doorbell's state and counts (the netlink attributes are u32).
        let db = sq.doorbell.as_ref().map(|d| {
            let c = |v: u64| v.min(u32::MAX.into()) as u32;
            (
                // 0 not watched, 1 for work in flight, 2 by the poller.
                u32::from(d.watched()) + u32::from(d.polled()),
                c(d.arms),
                c(d.disarms),
                c(d.rechecks),
                c(d.races),
                c(d.rings),
                c(d.poll.hits),
                c((d.poll.window_ns() / 1000).max(0) as u64),
            )
        });
        (
            [
                (c"sq_psn", sq.psn, true),
                (c"unacked_psn", sq.comp_psn, true),
                (c"sent_psn", sq.sent_psn, true),
                (c"rq_psn", st.resp.psn, true),
                (c"send_pending", sq.pending.len() as u32, false),
                (c"send_index", sq.req_idx as u32, false),
                (c"rd_atomic_out", sq.rd_outstanding, false),
                (c"send_window", sq.window.size(), false),
                (c"retry_left", retry_left.into(), false),
                (c"rnr_retry_left", rnr_left.into(), false),
                (c"ack_wait", ack_wait.into(), false),
                (c"resending", resending.into(), false),
                (c"ack_timeout_us", ack_timeout_us, false),
                (c"answer_time_us", answer_time_us, false),
                (c"msn", st.resp.msn, false),
                (c"answers_queued", st.resp_tx.len() as u32, false),
                (c"rx_queued", rx_queued, false),
                (c"tx_in_flight", inner.tx.count(), false),
                (c"sq_unfetched", unfetched, false),
                (c"db_watched", db.map_or(0, |d| d.0), false),
                (c"db_arms", db.map_or(0, |d| d.1), false),
                (c"db_disarms", db.map_or(0, |d| d.2), false),
                (c"db_rechecks", db.map_or(0, |d| d.3), false),
                (c"db_races", db.map_or(0, |d| d.4), false),
                (c"db_rings", db.map_or(0, |d| d.5), false),
                (c"db_poll_hits", db.map_or(0, |d| d.6), false),
                (c"db_poll_us", db.map_or(0, |d| d.7), false),
            ],
            head_details(sq.pending.get(0)),
        )
    };
    let head = head.map(|(opcode, first, last, state)| {
        [
            (c"head_opcode", opcode, false),
            (c"head_first_psn", first, true),
            (c"head_last_psn", last, true),
            (c"head_state", state, true),
        ]
    });
    for (name, value, hex) in Iterator::chain(entries.into_iter(), head.into_iter().flatten()) {
        if hex {
            out.u32_hex(name, value)?;
        } else {
            out.u32(name, value)?;
        }
    }
    Ok(())
}

/// The oldest send WQE for [`details`]: its `IB_WR_*` opcode, first and last
/// PSN, and state bits (1 started, 2 all sent, 4 answered, 8 refused).
fn head_details(p: Option<&Pending>) -> Option<(u32, u32, u32, u32)> {
    match p? {
        Pending::Wqe(w) => Some((
            w.opcode,
            w.first_psn,
            w.last_psn,
            u32::from(w.started) | u32::from(w.sent_all) << 1 | u32::from(w.answered) << 2,
        )),
        Pending::Bad { .. } => Some((0, 0, 0, 8)),
        Pending::Taken => None,
    }
}

pub(crate) fn destroy(qp: &Qp<Rrxe>) -> Result {
    let dev = qp.device().data();
    // Breaks the timer's reference to the QP; a queued work item finds it gone.
    timers::shut_down(qp.data());
    // A queued work item can still hold the QP, and drop it last, after the user
    // context is gone; the rings' mmap entries belong to that context, so they
    // are freed now (outside the lock: it may sleep). Nothing uses them after
    // this: the QP is unpublished.
    let rings = {
        let mut st = qp.data().state.lock();
        post::stop_watching(dev, &mut st);
        st.sq.destroyed = true;
        st.sq.recount(&dev.busy_qps);
        (st.sq.ring.take(), st.rq.take())
    };
    drop(rings);
    dev.qps.remove(qp.qp_num());
    Ok(())
}
