// SPDX-License-Identifier: GPL-2.0

//! The transport engines of a QP, one per file as in rdma_rxe:
//!
//! - [`req`], the requester: send WQEs into request packets;
//! - [`comp`], the completer: ACKs, NAKs and responses back to the requester;
//! - [`resp`], the responder: requests into receive buffers, MRs and answers;
//! - [`resp_tx`], the responder's sender: answers onto the wire, in order;
//! - [`recovery`], loss recovery: the ACK timeout, RNR waits and probes;
//! - [`poll`], the doorbell's poller: idle send rings, watched without a post.
//!
//! This file says when they run. A user's post runs the requester from the
//! doorbell system call or hands it to the QP's send work item ([`doorbell`]);
//! a received packet reaches its engine through [`receive`], from the receive
//! softirq or from the QP's receive work item (`crate::net::recv`); the send
//! work item ([`RrxeQp`]'s `WorkItem` impl below) runs the timers, the
//! requester and the responder's sender. The work items are the one place
//! where the object layer's QP ([`crate::obj::qp::work`]) calls up into the
//! engines.

pub(crate) mod comp;
pub(crate) mod poll;
pub(crate) mod recovery;
pub(crate) mod req;
pub(crate) mod resp;
pub(crate) mod resp_tx;

use crate::{
    abi::qp_type as qpt,
    obj::{
        qp::{
            post::{fetch, grow_deferred, watch_for_work_item},
            work::{defer, WORK_BUDGET},
            RrxeQp,
        },
        Rrxe,
    },
    proto::packet::Packet,
    stats::Counter,
};
use core::sync::atomic::Ordering;
use kernel::{
    prelude::*,
    rdma::qp::Qp,
    sync::{rcu, Arc},
    workqueue::WorkItem,
};

/// The QP's send work item: its timers, then its requester and its
/// responder's sender, each for a budget of packets.
impl WorkItem for RrxeQp {
    type Pointer = Arc<RrxeQp>;

    fn run(this: Arc<RrxeQp>) {
        // Before the RCU section: it may sleep.
        grow_deferred(&this);
        let guard = rcu::read_lock();
        // The QP may be gone, and its number reused: only run for this very QP.
        if let Some(qp) = this.live(&guard) {
            recovery::expire(qp);
            req::run_some(qp, WORK_BUDGET);
            resp_tx::run_some(qp, WORK_BUDGET);
        }
    }
}

/// Values of the `post_handoff` module parameter: which user posts the doorbell
/// hands to the QP's work item instead of sending them itself.
pub(crate) mod handoff {
    /// None: every post is sent from the doorbell syscall.
    pub(crate) const NEVER: u32 = 0;
    /// Posts behind unfinished WQEs whose messages fit in one packet.
    pub(crate) const SMALL: u32 = 1;
    /// Posts behind unfinished WQEs, of any size.
    pub(crate) const ANY: u32 = 2;
    /// The default (and values past it): as [`ANY`], but SENDs of at most
    /// [`LOCAL_SEND_MAX_PACKETS`](crate::obj::qp::post::LOCAL_SEND_MAX_PACKETS) packets to an
    /// rrxe device on this host are sent from the doorbell while no other QP of
    /// the device is busy.
    pub(crate) const ANY_BUT_LONE_LOCAL_SENDS: u32 = 3;
}

/// The user doorbell: takes the new WQEs into kernel memory and sends them, from
/// here or from the QP's work item.
///
/// Sent from here, a post on a veth or loopback path runs the whole round trip in
/// this syscall, on this CPU: the packet, the peer's responder in the receive
/// softirq, its ACK and this side's completer. For one message in flight that is
/// the fastest way (a ping-pong never waits for a worker to wake). A stream of
/// messages, though, is then bound by one CPU doing the user's loop and all of
/// the driver's work, and so is every QP the user posts to. So a post that finds
/// earlier WQEs not yet finished (a stream, not a ping-pong) is handed to the
/// work item on an unbound queue, which another CPU runs while this one returns
/// to the user; if the requester already runs elsewhere, it is only told to look
/// again. By default this holds for messages of any size: over 8 QPs the work
/// items of different QPs then run on different CPUs. Unsignaled READs, atomics
/// and FLUSHes are handed over even on an idle QP
/// ([`FetchedPosts::unsignaled_reads`](crate::obj::qp::post::FetchedPosts)).
///
/// One stream is the exception: SENDs of a few packets to an rrxe device on this
/// host, while no other QP of the device has WQEs unfinished. Its receiver is a
/// user process on this host too, busy polling and posting receives, so a work
/// item would be a third runnable task on two CPUs, and it gets the SEND, its
/// receive and the ACK done in one share of three. Sent from here, they use the
/// poster's own share. (A WRITE stream's receiver is idle; a peer elsewhere does
/// its receiving on its own CPUs; with two QPs busy, their work items run in
/// parallel; a long SEND's packets keep a worker busy, and the work item's
/// ACK-clocked sending leaves both polling processes the other CPU.)
pub(crate) fn doorbell(qp: &Qp<Rrxe>) -> Result {
    let posts = fetch(qp)?;
    let dev = qp.device().data();
    let inner = qp.data();
    let hand_off = (posts.behind_others || posts.unsignaled_reads)
        && match crate::post_handoff() {
            handoff::NEVER => false,
            handoff::SMALL => posts.one_packet_each,
            handoff::ANY => true,
            handoff::ANY_BUT_LONE_LOCAL_SENDS.. => {
                !(posts.sends_only && posts.peer_on_host && !posts.long_message)
                    || dev.busy_qps.load(Ordering::Relaxed) > 1
            }
        };
    if hand_off && !inner.req_runner.is_running() {
        dev.stats.inc(Counter::PostHandoffs);
        watch_for_work_item(qp);
        defer(inner);
    } else {
        req::run(qp);
    }
    Ok(())
}

/// The transport of an opcode (its top three bits).
const TRANSPORT_RC: u8 = 0;
const TRANSPORT_UC: u8 = 1;
const TRANSPORT_UD: u8 = 3;

/// Hands a checked packet addressed to `qp` to its engine: a response to the
/// completer, a request to the responder. The receive path's one entry.
pub(crate) fn receive(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    // rxe's `pkey_match` against the only P_Key, 0xffff: for every packet,
    // responses too, as rxe's `check_keys`.
    if pkt.bth.pkey() & 0x7fff != 0x7fff {
        return Err(Counter::RcvBadKey);
    }
    let transport = pkt.bth.opcode() >> 5;
    match (qp.data().qp_type, transport) {
        (qpt::UD | qpt::GSI, TRANSPORT_UD) => resp::receive_datagram(qp, pkt, ip),
        (qpt::RC, TRANSPORT_RC) if pkt.info.is_response() => comp::receive(qp, pkt, ip),
        (qpt::RC, TRANSPORT_RC) | (qpt::UC, TRANSPORT_UC) => resp::receive_connected(qp, pkt, ip),
        _ => Err(Counter::RcvWrongTransport),
    }
}
