// SPDX-License-Identifier: GPL-2.0

//! Building and sending RoCE v2 packets.
//!
//! Sending does not go through a socket: rrxe builds the IP and UDP headers itself,
//! because the ICRC covers the IPv4 ID, which the tunnel helpers pick only as they
//! send. The packet then leaves through `ip_local_out`, as rxe's do.

use crate::{
    abi,
    obj::{qp::RrxeQp, Rrxe},
    proto::{
        icrc::{self, Crc32, NetHdr},
        ip,
        opcode::{self, BTH_BYTES},
        packet::{self, HeaderFields},
    },
};
use kernel::{
    fill::Filler,
    net::{
        route,
        skb::{self, SkBuff},
        udp_tunnel::EncapReceiver,
    },
    prelude::*,
    rdma::{self, ah::AhAttr},
    sync::Arc,
};

/// `ETH_P_IP`, `ETH_P_IPV6`, `ETH_HLEN`.
const ETH_P_IP: u16 = 0x0800;
const ETH_P_IPV6: u16 = 0x86dd;
const ETH_HLEN: u32 = 14;

/// The kernel's (accelerated) CRC-32 for the ICRC.
pub(crate) struct KernelCrc;

impl Crc32 for KernelCrc {
    fn update(&self, crc: u32, data: &[u8]) -> u32 {
        kernel::crc32::crc32_le(crc, data)
    }
}

/// Where a packet goes: the IP fields of an address vector, copied out of the
/// QP's or AH's under its lock for one packet.
#[derive(Clone, Copy)]
pub(crate) struct Path {
    v6: bool,
    saddr: [u8; 16],
    daddr: [u8; 16],
    tclass: u8,
    hop_limit: u8,
    dmac: [u8; 6],
}

impl Path {
    /// The path of a RoCE v2 address vector.
    pub(crate) fn from_av(av: &AhAttr) -> Result<Self> {
        let v6 = av.network_type == abi::network::IPV6;
        let v4_gids = ip::gid_is_v4_mapped(&av.sgid) && ip::gid_is_v4_mapped(&av.dgid);
        if v6 == v4_gids {
            return Err(EINVAL);
        }
        Ok(Self {
            v6,
            saddr: av.sgid,
            daddr: av.dgid,
            tclass: av.traffic_class,
            hop_limit: av.hop_limit,
            dmac: av.dmac,
        })
    }

    fn ip_len(&self) -> usize {
        if self.v6 {
            icrc::IPV6_HDR_BYTES
        } else {
            icrc::IPV4_HDR_BYTES
        }
    }
}

/// Why a packet was not sent: a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendError {
    /// No route, no memory, or the stack refused the packet.
    Net(Error),
    /// The payload could not be gathered (a local protection or length error).
    Payload,
}

impl From<Error> for SendError {
    fn from(e: Error) -> Self {
        SendError::Net(e)
    }
}

/// Builds one packet with headers `f` and `payload_len` bytes that `fill` writes,
/// from `sport` along `path`: UDP and IP headers included and the ICRC computed,
/// ready for [`xmit`]. Takes no locks and may run under the caller's.
pub(crate) fn build(
    dev: &rdma::Device<Rrxe>,
    path: &Path,
    sport: u16,
    f: &HeaderFields,
    payload_len: usize,
    fill: impl FnOnce(&mut Filler<'_>) -> Result<(), SendError>,
) -> Result<SkBuff, SendError> {
    let ndev = dev.netdev();
    let info = opcode::lookup(f.bth.opcode).ok_or(EINVAL)?;
    let pkt_len = packet::packet_len(info, payload_len).ok_or(EINVAL)?;
    let ip_len = path.ip_len();
    let head = ETH_HLEN + 8 + ip_len as u32 + skb::ll_reserved_space(ndev);
    let pkt_len32 = u32::try_from(pkt_len).map_err(|_| EINVAL)?;
    let mut skb = SkBuff::alloc(head + pkt_len32, GFP_ATOMIC)?;
    skb.reserve(head)?;
    let pad = packet::pad_for(payload_len);
    {
        let hdr_len = u32::try_from(info.header_len()).map_err(|_| EINVAL)?;
        let buf = skb.put(hdr_len)?;
        let mut fields = *f;
        fields.bth.pad = pad;
        packet::build_headers(buf, &fields).map_err(|_| EINVAL)?;
    }
    // The payload is not zeroed before `fill` writes it, which would be a
    // second pass over every byte. What `fill` leaves unwritten is zeroed, and
    // fails the packet.
    let payload_len32 = u32::try_from(payload_len).map_err(|_| EINVAL)?;
    let (filled, unwritten) = skb.put_filled(payload_len32, fill)?;
    filled?;
    if unwritten != 0 {
        return Err(SendError::Payload);
    }
    // The pad and the ICRC, which `icrc::generate` writes below.
    skb.put(u32::from(pad) + opcode::ICRC_BYTES as u32)?;
    let udp_len = u16::try_from(pkt_len + 8).map_err(|_| EINVAL)?;
    {
        let udp = skb.push(8)?;
        let udp: &mut [u8; 8] = udp.try_into().map_err(|_| EINVAL)?;
        ip::build_udp(udp, sport, ip::ROCE_V2_PORT, udp_len);
    }
    skb.reset_transport_header();
    if path.v6 {
        let hdr = skb.push(ip_len as u32)?;
        let hdr: &mut [u8; 40] = hdr.try_into().map_err(|_| EINVAL)?;
        ip::build_ipv6(
            hdr,
            path.tclass,
            path.hop_limit,
            path.saddr,
            path.daddr,
            udp_len,
        );
    } else {
        let (s, d) = (ip::gid_to_v4(&path.saddr), ip::gid_to_v4(&path.daddr));
        let total = udp_len.checked_add(20).ok_or(EINVAL)?;
        let hdr = skb.push(ip_len as u32)?;
        let hdr: &mut [u8; 20] = hdr.try_into().map_err(|_| EINVAL)?;
        ip::build_ipv4(hdr, path.tclass, path.hop_limit, s, d, total);
        route::ipv4_select_ident(ndev.net(), hdr);
    }
    skb.reset_network_header();
    {
        let data = skb.data_mut();
        let (iph, rest) = data.split_at_mut(ip_len);
        let (udp, pkt) = rest.split_at_mut(8);
        let udp: &[u8; 8] = (&*udp).try_into().map_err(|_| EINVAL)?;
        let nh = NetHdr::from_ip(iph).map_err(|_| EINVAL)?;
        icrc::generate(&KernelCrc, nh, udp, pkt).map_err(|_| EINVAL)?;
    }
    skb.set_protocol(if path.v6 { ETH_P_IPV6 } else { ETH_P_IP });
    skb.set_dev(ndev);
    Ok(skb)
}

/// Sends a packet from [`build`] along `path` for `qp`, which owns it until the
/// stack releases it ([`crate::obj::qp::TxInFlight`]). The caller must hold no QP lock,
/// because a packet to the device's own MAC goes straight to its receive path
/// (rxe's loopback), which takes them.
pub(crate) fn xmit(
    dev: &rdma::Device<Rrxe>,
    qp: &Arc<RrxeQp>,
    path: &Path,
    mut skb: SkBuff,
) -> Result {
    let ndev = dev.netdev();
    let net = ndev.net();
    let stats = &dev.data().stats;
    let bytes = u64::from(skb.len());
    // As rdma_rxe: a packet to the netdev's own address is looped back. An L3
    // netdev (tun) has no address, and the core resolves every destination on
    // it to the all-zero one, so all its packets loop back, as on rxe.
    if ndev.hw_addr().unwrap_or([0; 6]) == path.dmac {
        skb.pull(path.ip_len() as u32)?;
        stats.inc(crate::stats::Counter::SentPackets);
        stats.add(crate::stats::Counter::SentBytes, bytes);
        // As if it came from the wire, to the sockets' receiver.
        <Rrxe as EncapReceiver>::receive(skb);
        return Ok(());
    }
    let cached = qp.route.lock().get(&path.saddr, &path.daddr);
    let dst = match cached {
        Some(d) => Ok(d),
        None => {
            let d = if path.v6 {
                route::route6(net, ndev.ifindex(), path.saddr, path.daddr)
            } else {
                let (s, d) = (ip::gid_to_v4(&path.saddr), ip::gid_to_v4(&path.daddr));
                route::route4(net, ndev.ifindex(), s, d)
            };
            if let Ok(d) = &d {
                // The route replaced is released here, not under the lock.
                let _old = qp.route.lock().set(&path.saddr, &path.daddr, d);
            }
            d
        }
    };
    let dst = match dst {
        Ok(d) => d,
        Err(e) => {
            stats.inc(crate::stats::Counter::SendErrors);
            return Err(e);
        }
    };
    skb.set_dst(dst);
    crate::obj::qp::work::own_tx(qp, &mut skb);
    let r = if path.v6 {
        route::ip6_local_out(net, skb)
    } else {
        route::ip_local_out(net, skb)
    };
    match r {
        Ok(()) => {
            stats.inc(crate::stats::Counter::SentPackets);
            stats.add(crate::stats::Counter::SentBytes, bytes);
        }
        Err(_) => stats.inc(crate::stats::Counter::SendErrors),
    }
    // Like rxe, a packet the stack dropped is not an error of the WQE: the transport
    // (retransmission for RC) deals with loss.
    Ok(())
}

/// [`build`] and [`xmit`] in one.
pub(crate) fn send(
    dev: &rdma::Device<Rrxe>,
    qp: &Arc<RrxeQp>,
    path: &Path,
    sport: u16,
    f: &HeaderFields,
    payload_len: usize,
    fill: impl FnOnce(&mut Filler<'_>) -> Result<(), SendError>,
) -> Result<(), SendError> {
    let skb = build(dev, path, sport, f, payload_len, fill)?;
    Ok(xmit(dev, qp, path, skb)?)
}

/// The BTH of a received packet is at least this long; shorter UDP payloads are
/// malformed.
pub(crate) const MIN_PACKET: usize = BTH_BYTES + opcode::ICRC_BYTES;

#[kernel::macros::kunit_tests(rrxe_fill)]
mod tests {
    use super::*;
    use core::mem::MaybeUninit;

    #[test]
    fn a_filler_counts_what_it_wrote_and_zeroes_the_rest() {
        let mut raw = [MaybeUninit::<u8>::uninit(); 8];
        let mut w = Filler::new(&mut raw);
        w.copy(&[1, 2, 3]).unwrap();
        assert_eq!((w.filled(), w.remaining()), (3, 5));
        // Too long: refused, and nothing written.
        assert_eq!(w.copy(&[9; 6]), Err(ENOSPC));
        assert_eq!(w.filled(), 3);
        assert_eq!(w.finish(), &[1, 2, 3, 0, 0, 0, 0, 0]);
        // Over an initialised buffer too, what was not written is zeroed.
        let mut init = [7u8; 4];
        let mut w = Filler::over_init(&mut init);
        w.copy(&[1]).unwrap();
        assert_eq!(w.finish(), &[1, 0, 0, 0]);
    }

    #[test]
    fn put_filled_zeroes_what_fill_left() {
        let mut skb = SkBuff::alloc(64, GFP_KERNEL).unwrap();
        let (r, unwritten) = skb.put_filled(8, |w| w.copy(&[5, 6])).unwrap();
        assert!(r.is_ok());
        assert_eq!(unwritten, 6);
        assert_eq!(skb.data(), &[5, 6, 0, 0, 0, 0, 0, 0]);
        // More than the tailroom: refused before `fill` runs.
        let (over, mut ran) = (skb.tailroom() + 1, false);
        assert!(skb.put_filled(over, |_| ran = true).is_err());
        assert!(!ran);
        assert_eq!(skb.len(), 8);
        // A filler swapped for another leaves nothing known: all of it is zeroed.
        let ((), unwritten) = skb
            .put_filled(4, |w| {
                w.copy(&[9, 9]).unwrap();
                let _ = core::mem::replace(w, Filler::new(&mut []));
            })
            .unwrap();
        assert_eq!(unwritten, 4);
        assert_eq!(&skb.data()[8..], &[0, 0, 0, 0]);
    }
}
