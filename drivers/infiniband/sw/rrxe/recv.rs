// SPDX-License-Identifier: GPL-2.0

//! The receive path: checks a packet from the wire and hands it to its QP.
//!
//! Runs in softirq context for packets from the 4791 sockets, and in the sender's
//! context for loopback. Every packet that is not delivered is dropped and counted
//! under its reason ([`crate::stats`]).

use crate::{
    device::Rrxe,
    net::{KernelCrc, MIN_PACKET},
    proto::{
        hdr::MULTICAST_QPN,
        icrc::{self, NetHdr},
        packet,
    },
    stats::Counter,
};
use kernel::{net::skb::SkBuff, prelude::*, rdma, sync::rcu};

/// Takes a packet whose data starts at the UDP header and whose network header is
/// set.
pub(crate) fn receive(mut skb: SkBuff) {
    let Some(dev) = skb
        .dev()
        .and_then(|nd| rdma::Device::<Rrxe>::get_by_netdev(crate::this_module(), nd))
    else {
        // Not on a netdev of ours (an rdma_rxe device, or none): dropped.
        return;
    };
    let stats = &dev.data().stats;
    stats.inc(Counter::RcvdPackets);
    match deliver(&dev, &mut skb) {
        Ok(()) => skb.consume(),
        Err(c) => stats.inc(c),
    }
}

fn deliver(dev: &rdma::Device<Rrxe>, skb: &mut SkBuff) -> Result<(), Counter> {
    skb.linearize().map_err(|_| Counter::RcvMalformed)?;
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
    icrc::verify(&KernelCrc, nh, udp, raw).map_err(|_| Counter::RcvIcrcError)?;
    let qpn = pkt.bth.dest_qpn();
    if qpn == MULTICAST_QPN {
        return crate::mcast::deliver(dev, &pkt, ip);
    }
    let guard = rcu::read_lock();
    let qp = dev.qp_rcu(qpn, &guard).ok_or(Counter::RcvUnknownQp)?;
    crate::resp::receive(qp, &pkt, ip)
}
