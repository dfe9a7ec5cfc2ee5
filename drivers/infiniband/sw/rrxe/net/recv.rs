// SPDX-License-Identifier: GPL-2.0

//! The receive path: checks a packet from the wire and hands it to its QP
//! ([`crate::engine::receive`]), now or from the QP's receive work item.
//!
//! Runs in softirq context for packets from the 4791 sockets, and in the sender's
//! context for loopback. Every packet that is not delivered is dropped and counted
//! under its reason ([`crate::stats`]).

use crate::{
    engine,
    net::xmit::{KernelCrc, MIN_PACKET},
    obj::{
        mcast::MAX_QPS_PER_GROUP,
        qp::{self, work::WORK_BUDGET, RrxeQp},
        Rrxe,
    },
    proto::{
        hdr::MULTICAST_QPN,
        icrc::{self, NetHdr},
        ip,
        packet::{self, Packet},
    },
    stats::{Counter, Stats},
};
use core::sync::atomic::Ordering;
use kernel::{
    net::{skb::SkBuff, udp_tunnel::EncapReceiver},
    prelude::*,
    rdma::{self, qp::Qp},
    sync::{rcu, Arc},
    workqueue::{worker::current_is_worker, WorkItem},
};

/// What the port-4791 sockets receive, and what loopback sends
/// ([`crate::net::xmit::xmit`]), comes here.
impl EncapReceiver for Rrxe {
    fn receive(skb: SkBuff) {
        receive(skb);
    }
}

/// The QP's receive work item: processes the packets queued for it
/// ([`qp::rx::RxBacklog`]), a budget at a time.
impl WorkItem<1> for RrxeQp {
    type Pointer = Arc<RrxeQp>;

    fn run(this: Arc<RrxeQp>) {
        let more = {
            let guard = rcu::read_lock();
            // A destroyed QP's queued packets are freed with it.
            this.live(&guard)
                .is_some_and(|qp| run_queued(qp, WORK_BUDGET))
        };
        if more {
            qp::work::defer_receive(&this);
        }
    }
}

/// Takes a packet whose data starts at the UDP header and whose network header is
/// set.
pub(crate) fn receive(skb: SkBuff) {
    let Some(dev) = skb.dev().and_then(rdma::Device::<Rrxe>::of_netdev) else {
        // Not on a netdev of ours (an rdma_rxe device, or none): dropped.
        return;
    };
    let stats = &dev.data().stats;
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
    /// Checks the ICRC.
    fn verify_icrc(&self) -> Result<(), Counter> {
        icrc::verify(&KernelCrc, self.nh, self.udp, self.raw).map_err(|_| Counter::RcvIcrcError)
    }

    /// Checks the ICRC of a packet for a QP or group of the device and counts
    /// a good one, and its bytes, IP header to ICRC, where rdma_rxe counts
    /// `rcvd_pkts` and `rcvd_bytes` (a packet for a missing QP is not).
    fn accept(&self, stats: &Stats) -> Result<(), Counter> {
        self.verify_icrc()?;
        stats.inc(Counter::RcvdPackets);
        stats.add(Counter::RcvdBytes, self.ip.len() as u64);
        Ok(())
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

/// Processes the packet now or queues it for its QP's work item ([`qp::rx::RxBacklog`]).
fn deliver(dev: &rdma::Device<Rrxe>, mut skb: SkBuff) -> Result<(), Counter> {
    skb.linearize().map_err(|_| Counter::RcvMalformed)?;
    let p = parse(&skb)?;
    let qpn = p.pkt.bth.dest_qpn();
    let stats = &dev.data().stats;
    if qpn == MULTICAST_QPN {
        p.accept(stats)?;
        deliver_to_group(dev, &p.pkt, p.ip)?;
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
                stats.inc(Counter::RcvDeferred);
                qp::work::defer_receive(inner);
                Ok(())
            }
            // Dropped here, as the skb goes.
            Err(_skb) => Err(Counter::RcvQueueFull),
        };
    }
    p.accept(stats)?;
    match engine::receive(qp, &p.pkt, p.ip) {
        Err(Counter::OdpDeferred) => wait_for_fault(inner, stats, skb),
        r => {
            r?;
            skb.consume();
            Ok(())
        }
    }
}

/// Processes up to `budget` of `qp`'s queued packets, in order. Returns whether
/// more wait, for which the caller queues the work item again.
fn run_queued(qp: &Qp<Rrxe>, budget: u32) -> bool {
    let inner: &Arc<RrxeQp> = qp.data();
    let stats = &qp.device().data().stats;
    for _ in 0..budget {
        let (skb, counted) = {
            let mut q = inner.rx.lock();
            match q.pop_counted() {
                Some(popped) => popped,
                None => {
                    inner.rx_owned.store(false, Ordering::Release);
                    return false;
                }
            }
        };
        match process(qp, &skb, counted) {
            Ok(()) => skb.consume(),
            Err(Counter::OdpDeferred) => {
                // Still owned; the fault work item queues this one again once
                // the page is in.
                if let Err(c) = wait_for_fault(inner, stats, skb) {
                    stats.inc(c);
                }
                return false;
            }
            Err(c) => stats.inc(c),
        }
    }
    true
}

/// A packet that waits for a page of an on-demand-paging MR goes back to the
/// head of its QP's queue, and the fault is queued after it, since the fault
/// work item queues the receive work item, which must find the packet.
fn wait_for_fault(inner: &Arc<RrxeQp>, stats: &Stats, skb: SkBuff) -> Result<(), Counter> {
    stats.inc(Counter::OdpDeferred);
    let queued = inner.rx.lock().push_front(skb);
    qp::work::defer_fault(inner);
    queued.map_err(|_skb| Counter::RcvQueueFull)
}

/// Checks and counts a queued packet (unless `counted`: it was before it went
/// back to the queue) and hands it to its engine.
fn process(qp: &Qp<Rrxe>, skb: &SkBuff, counted: bool) -> Result<(), Counter> {
    let p = parse(skb)?;
    if !counted {
        p.accept(&qp.device().data().stats)?;
    }
    engine::receive(qp, &p.pkt, p.ip)
}

/// Hands a packet to destination QPN 0xFFFFFF to every QP attached to the
/// group its destination IP address names.
fn deliver_to_group(dev: &rdma::Device<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let gid = ip::dest_gid(ip).ok_or(Counter::RcvMalformed)?;
    let mut qpns = [0u32; MAX_QPS_PER_GROUP];
    let n = dev
        .data()
        .mcast
        .members(&gid, &mut qpns)
        .ok_or(Counter::RcvUnknownQp)?;
    let stats = &dev.data().stats;
    let guard = rcu::read_lock();
    for &qpn in &qpns[..n] {
        match dev.qp_rcu(qpn, &guard) {
            Some(qp) => match engine::receive(qp, pkt, ip) {
                // A group's datagram is not kept for one member: it is lost
                // for this QP, whose work item faults the page in for the next.
                Err(Counter::OdpDeferred) => {
                    stats.inc(Counter::OdpDeferred);
                    qp::work::defer_fault(qp.data());
                }
                Err(c) => stats.inc(c),
                Ok(()) => {}
            },
            None => stats.inc(Counter::RcvUnknownQp),
        }
    }
    Ok(())
}
