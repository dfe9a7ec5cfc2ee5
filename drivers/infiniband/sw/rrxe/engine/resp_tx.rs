// SPDX-License-Identifier: GPL-2.0

//! The RC responder's sender: ACKs, NAKs, READ responses and atomic ACKs leave in
//! the order the responder decided them, which is PSN order.
//!
//! The responder decides under the QP lock and sends after dropping it (a packet
//! to the device itself may be received further up this stack). When two requests
//! arrived on two CPUs, both sent their answers at once: two READs' responses
//! interleaved, and an ACK could overtake a READ's responses. The requester took
//! the misordered packets as lost, dropped them and waited for its timer.
//!
//! So answers are queued under the lock ([`AnswerRing`], allocated with the QP),
//! and one sender at a time ([`qp::Runner`]) sends them, claiming one packet per
//! lock hold. The ring has room for every READ and atomic a requester may have
//! outstanding (`max_dest_rd_atomic` is at most [`params::MAX_QP_RD_ATOM`]) and
//! for ACKs and NAKs between them. An answer that finds no room is dropped and
//! counted, and the requester's retry recovers it, as from a lost packet.

use crate::{
    net::xmit,
    net::xmit::Path,
    obj::mr,
    obj::qp,
    obj::Rrxe,
    proto::{
        answers::Answer,
        hdr::{AethFields, AtomicAckEthFields, BthFields, BTH_DEF_PKEY},
        ip,
        packet::HeaderFields,
    },
    stats::Counter,
};
use kernel::rdma::qp::Qp;

/// Packets one run sends before it hands over to the QP's work item, so one busy
/// QP's READs do not keep a CPU's softirq.
const RUN_BUDGET: u32 = 256;

/// Queues an answer of `qp`'s responder (under its lock); [`run`] sends it. The
/// answer to a `repeated_read` request replaces the queued answer of the same
/// READ.
pub(crate) fn queue(qp: &Qp<Rrxe>, tx: &mut qp::Answers, a: Answer, repeated_read: bool) {
    let queued = if repeated_read {
        tx.push_repeated_read(a)
    } else {
        tx.push(a)
    };
    if !queued {
        qp.device().data().stats.inc(Counter::RespTxDropped);
    }
}

/// Sends what the responder queued.
pub(crate) fn run(qp: &Qp<Rrxe>) {
    run_some(qp, RUN_BUDGET);
}

/// As [`run`], handing over to the QP's work item after `budget` packets.
pub(crate) fn run_some(qp: &Qp<Rrxe>, budget: u32) {
    let inner = qp.data();
    if inner.qp_type != crate::abi::qp_type::RC {
        return;
    }
    inner
        .resp_runner
        .run(budget, || send_next(qp), || qp::work::defer(inner));
}

/// Sends the next queued packet; returns whether there was one.
fn send_next(qp: &Qp<Rrxe>) -> bool {
    let inner = qp.data();
    if !inner.tx.may_send() {
        // Released packets queue the QP's work item, which runs this sender.
        qp.device().data().stats.inc(Counter::TxLimitWaits);
        return false;
    }
    let (p, path, dest_qpn, sport) = {
        let mut st = inner.state.lock();
        let Some(p) = st.resp_tx.claim() else {
            return false;
        };
        let av = &st.attr.ah_attr;
        let Ok(path) = Path::from_av(av) else {
            // No route to answer on: as if lost.
            return true;
        };
        let dest_qpn = st.attr.dest_qp_num;
        let sport = ip::flow_sport(av.flow_label, qp.qp_num(), dest_qpn);
        (p, path, dest_qpn, sport)
    };
    let dev = qp.device();
    let f = HeaderFields {
        bth: BthFields {
            opcode: p.opcode,
            pkey: BTH_DEF_PKEY,
            dest_qpn,
            psn: p.psn,
            ..BthFields::default()
        },
        aeth: AethFields {
            syndrome: p.syndrome,
            msn: p.msn,
        },
        atmack: AtomicAckEthFields { orig: p.va },
        ..HeaderFields::default()
    };
    let n = p.len;
    let mut miss = None;
    let r = xmit::send(dev, inner, &path, sport, &f, n as usize, |payload| {
        if n == 0 {
            return Ok(());
        }
        // Looked up again for every packet, so a deregistration in between
        // stops the transfer instead of reading freed pages.
        let m = mr::lookup_remote(
            &dev.data().keys,
            inner.serial,
            inner.pd_id,
            p.rkey,
            crate::abi::access::REMOTE_READ,
            p.va,
            n,
        )
        .ok_or(xmit::SendError::Payload)?;
        m.read_remote_into(p.va, n as usize, payload).map_err(|e| {
            if e == kernel::error::code::EAGAIN {
                // The rest of the READ's pages with it (as far as the MR goes).
                miss = Some(mr::Miss::of(&m, p.va, mr::MAX_FAULT, false));
            }
            xmit::SendError::Payload
        })
    });
    if !matches!(r, Err(xmit::SendError::Payload)) {
        return true;
    }
    let mut st = inner.state.lock();
    if let Some(miss) = miss {
        // A page of an on-demand-paging MR that is not resident (the READ's
        // first pages were faulted in when it came): the response goes back and
        // waits, and the fault work item runs this sender again once the page
        // is in.
        dev.data().stats.inc(Counter::OdpDeferred);
        st.odp.tx = Some(miss);
        let waits = st.resp_tx.unclaim(&p);
        if !waits && !p.last {
            st.resp_tx.drop_read(p.first_psn);
        }
        drop(st);
        qp::work::defer_fault(inner);
        return !waits;
    }
    if !p.last {
        st.resp_tx.drop_read(p.first_psn);
    }
    true
}
