// SPDX-License-Identifier: GPL-2.0

//! The receive path: checks a packet from the wire and hands it to its QP.
//!
//! Runs in softirq context for packets from the 4791 sockets, and in the sender's
//! context for loopback. Every packet that is not delivered is dropped and counted
//! under its reason ([`crate::stats`]).

use crate::{
    obj::device::Rrxe,
    net::xmit::{KernelCrc, MIN_PACKET},
    proto::{
        hdr::MULTICAST_QPN,
        icrc::{self, NetHdr},
        packet::{self, Packet},
    },
    obj::qp::{self, QpInner},
    stats::Counter,
};
use core::sync::atomic::Ordering;
use kernel::{
    net::skb::SkBuff,
    prelude::*,
    rdma::{self, verbs::Qp},
    sync::{rcu, Arc},
    workqueue::worker::current_is_worker,
};

/// Packets a QP may hold for its receive work item. Its storage grows on
/// demand, in the softirq (`GFP_ATOMIC`), so a QP that never queues allocates
/// nothing. A full queue means the work item fell far behind: the packet is
/// dropped (`rcv_queue_full`) and the sender's retry recovers it, as from a
/// loss. With 256, a 1 MiB READ at MTU 4096 under the loss test's netem
/// overflowed it on every burst (a quarter of the responses dropped), and each
/// drop cost a resend of the rest of the READ.
const RX_QUEUE_MAX: usize = 4096;

/// The first storage a queue gets; it doubles from there.
const RX_QUEUE_FIRST: usize = 64;

/// A QP's received packets that wait for its receive work item, oldest first.
///
/// Received packets are processed in the receive softirq, on the CPU that got
/// them; on a veth or loopback path that is the sender's CPU. For a READ posted
/// from a user's system call that is the user's CPU: it runs the responder,
/// which builds the responses, and then places their data at the requester, so
/// one CPU copies every byte twice while another idles. So READ response data
/// (the first and middle responses of a multi-packet READ) goes to the
/// requester QP's work item on an unbound queue, which another CPU runs, and
/// the packets behind it follow it there, so none overtakes another.
///
/// Not if it is received in a work queue's worker (mostly a requester handed
/// off by the doorbell, whose transmit ran the softirq): that is off the user's
/// CPU already, the user's process keeps the other one busy, and queueing it
/// again only added a wake-up and a CPU switch. It is processed at once unless
/// packets are queued ahead of it. Everything else is processed at once too: a
/// ping-pong never waits for a worker to wake. (Queueing the parts of every
/// multi-packet message, or every response, was measured too: WRITE, SEND and
/// latency lost; see Documentation/design.rst.)
///
/// A queued skb's route may be a reference valid only in the softirq; nothing
/// here reads it, and freeing the skb does not release such a route.
pub(crate) struct RxQueue {
    /// A ring: `len` packets from `head`, wrapping.
    slots: KVec<Option<SkBuff>>,
    head: usize,
    len: usize,
}

impl RxQueue {
    pub(crate) fn new() -> Self {
        Self {
            slots: KVec::new(),
            head: 0,
            len: 0,
        }
    }

    /// Doubles the storage (up to [`RX_QUEUE_MAX`]), keeping the order. False if
    /// it is at the maximum or there is no memory.
    fn grow(&mut self) -> bool {
        let cap = self.slots.len();
        let new_cap = (cap * 2).clamp(RX_QUEUE_FIRST, RX_QUEUE_MAX);
        if new_cap <= cap {
            return false;
        }
        let Ok(mut slots) = KVec::with_capacity(new_cap, GFP_ATOMIC) else {
            return false;
        };
        while let Some(skb) = self.pop() {
            // Cannot fail: the capacity is reserved.
            let _ = slots.push(Some(skb), GFP_ATOMIC);
        }
        let len = slots.len();
        while slots.len() < new_cap {
            let _ = slots.push(None, GFP_ATOMIC);
        }
        self.slots = slots;
        self.head = 0;
        self.len = len;
        true
    }

    /// Packets queued.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, skb: SkBuff) -> Result<(), SkBuff> {
        if self.len >= self.slots.len() && !self.grow() {
            return Err(skb);
        }
        // No `%`: the slots are never 0 here, but the compiler cannot tell.
        let mut i = self.head + self.len;
        if i >= self.slots.len() {
            i -= self.slots.len();
        }
        match self.slots.get_mut(i) {
            Some(slot) => {
                *slot = Some(skb);
                self.len += 1;
                Ok(())
            }
            None => Err(skb),
        }
    }

    fn pop(&mut self) -> Option<SkBuff> {
        if self.len == 0 {
            return None;
        }
        let skb = self.slots.get_mut(self.head).and_then(Option::take);
        self.head += 1;
        if self.head >= self.slots.len() {
            self.head = 0;
        }
        self.len -= 1;
        skb
    }
}

/// Takes a packet whose data starts at the UDP header and whose network header is
/// set.
pub(crate) fn receive(skb: SkBuff) {
    let Some(dev) = skb
        .dev()
        .and_then(|nd| rdma::Device::<Rrxe>::get_by_netdev(crate::this_module(), nd))
    else {
        // Not on a netdev of ours (an rdma_rxe device, or none): dropped.
        return;
    };
    let stats = &dev.data().stats;
    stats.inc(Counter::RcvdPackets);
    if let Err(c) = deliver(&dev, skb) {
        stats.inc(c);
    }
}

/// A received packet's headers, checked for their lengths.
struct Parsed<'a> {
    pkt: Packet<'a>,
    ip: &'a [u8],
    nh: NetHdr<'a>,
    udp: &'a [u8; 8],
    /// The BTH up to the ICRC's end.
    raw: &'a [u8],
}

impl Parsed<'_> {
    fn verify_icrc(&self) -> Result<(), Counter> {
        icrc::verify(&KernelCrc, self.nh, self.udp, self.raw).map_err(|_| Counter::RcvIcrcError)
    }
}

fn parse(skb: &SkBuff) -> Result<Parsed<'_>, Counter> {
    let data = skb.data();
    let udp: &[u8; 8] = data.first_chunk().ok_or(Counter::RcvMalformed)?;
    let udp_len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
    if udp_len < 8 + MIN_PACKET || udp_len > data.len() {
        return Err(Counter::RcvMalformed);
    }
    let raw = &data[8..udp_len];
    let ip = skb.network_data();
    let nh = NetHdr::from_ip(ip).map_err(|_| Counter::RcvMalformed)?;
    let pkt = packet::parse(raw, None).map_err(|_| Counter::RcvMalformed)?;
    Ok(Parsed {
        pkt,
        ip,
        nh,
        udp,
        raw,
    })
}

/// Processes the packet now or queues it for its QP's work item ([`RxQueue`]).
fn deliver(dev: &rdma::Device<Rrxe>, mut skb: SkBuff) -> Result<(), Counter> {
    skb.linearize().map_err(|_| Counter::RcvMalformed)?;
    let p = parse(&skb)?;
    let qpn = p.pkt.bth.dest_qpn();
    if qpn == MULTICAST_QPN {
        p.verify_icrc()?;
        crate::obj::mcast::deliver(dev, &p.pkt, p.ip)?;
        skb.consume();
        return Ok(());
    }
    let guard = rcu::read_lock();
    let Some(qp) = dev.qp_rcu(qpn, &guard) else {
        // A corrupted QPN is an ICRC error, not a missing QP.
        p.verify_icrc()?;
        return Err(Counter::RcvUnknownQp);
    };
    let inner = qp.data();
    let info = p.pkt.info;
    let read_data =
        info.is_response() && (info.is_first() || info.is_middle()) && !current_is_worker();
    // Read without the lock, so the common case takes none: a packet that sees
    // `rx_owned` clear while another CPU queues one did not arrive after it.
    if read_data || inner.rx_owned.load(Ordering::Acquire) {
        let mut q = inner.rx.lock();
        // Checked by the work item (`p` is not used on this path).
        let queued = q.push(skb);
        if queued.is_ok() {
            inner.rx_owned.store(true, Ordering::Release);
        }
        drop(q);
        return match queued {
            Ok(()) => {
                dev.data().stats.inc(Counter::RcvDeferred);
                qp::work::defer_receive(inner);
                Ok(())
            }
            // Dropped here, as the skb goes.
            Err(_skb) => Err(Counter::RcvQueueFull),
        };
    }
    p.verify_icrc()?;
    crate::engine::resp::receive(qp, &p.pkt, p.ip)?;
    skb.consume();
    Ok(())
}

/// Processes up to `budget` of `qp`'s queued packets, in order. Returns whether
/// more wait, for which the caller queues the work item again.
pub(crate) fn run_queued(qp: &Qp<Rrxe>, budget: u32) -> bool {
    let inner: &Arc<QpInner> = qp.data();
    let stats = &qp.device().data().stats;
    for _ in 0..budget {
        let skb = {
            let mut q = inner.rx.lock();
            match q.pop() {
                Some(skb) => skb,
                None => {
                    inner.rx_owned.store(false, Ordering::Release);
                    return false;
                }
            }
        };
        match process(qp, &skb) {
            Ok(()) => skb.consume(),
            Err(c) => stats.inc(c),
        }
    }
    true
}

fn process(qp: &Qp<Rrxe>, skb: &SkBuff) -> Result<(), Counter> {
    let p = parse(skb)?;
    p.verify_icrc()?;
    crate::engine::resp::receive(qp, &p.pkt, p.ip)
}
