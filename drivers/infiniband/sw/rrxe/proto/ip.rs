// SPDX-License-Identifier: GPL-2.0

//! IPv4, IPv6 and UDP headers of RoCE v2 packets as rxe builds them, and the UDP
//! source port choice.
//!
//! The ICRC covers these headers (with a few fields masked), so the bytes must be
//! final before the ICRC is computed; the sender therefore builds them itself rather
//! than letting a tunnel helper do it.

/// RoCE v2 UDP destination port.
pub const ROCE_V2_PORT: u16 = 4791;
/// Lowest RoCE v2 UDP source port (`IB_ROCE_UDP_ENCAP_VALID_PORT_MIN`).
pub const SPORT_MIN: u16 = 0xc000;
/// `IPPROTO_UDP`.
pub const IPPROTO_UDP: u8 = 17;
/// IPv4 "don't fragment" flag in `frag_off`.
pub const IP_DF: u16 = 0x4000;
/// Bytes of the GRH slot at the start of a UD receive buffer.
pub const GRH_BYTES: usize = 40;

/// `hash_32(val, bits)` of the kernel (multiplicative hash with GOLDEN_RATIO_32).
pub const fn hash_32(val: u32, bits: u32) -> u32 {
    val.wrapping_mul(0x61c8_8647) >> (32 - bits)
}

/// The UDP source port rxe gives a QP at creation: `0xc000 + hash_32(qpn, 14)`.
pub const fn qp_sport(qpn: u32) -> u16 {
    SPORT_MIN + (hash_32(qpn, 14) & 0x3fff) as u16
}

/// `rdma_calc_flow_label`: a flow label both ends derive from the two QPNs.
pub const fn calc_flow_label(lqpn: u32, rqpn: u32) -> u32 {
    let mut v = lqpn as u64 * rqpn as u64;
    v ^= v >> 20;
    v ^= v >> 40;
    (v & 0xf_ffff) as u32
}

/// `rdma_get_udp_sport`: the source port of a connected QP whose path has a GRH,
/// from the flow label (or, if it is 0, from both QPNs).
pub const fn flow_sport(flow_label: u32, lqpn: u32, rqpn: u32) -> u16 {
    let fl = if flow_label == 0 {
        calc_flow_label(lqpn, rqpn)
    } else {
        flow_label
    };
    let low = (fl & 0x3fff) ^ ((fl & 0xf_c000) >> 14);
    (low as u16) | SPORT_MIN
}

/// Writes a UDP header with checksum 0 (RoCE v2 relies on the ICRC).
pub fn build_udp(hdr: &mut [u8; 8], sport: u16, dport: u16, len: u16) {
    hdr[0..2].copy_from_slice(&sport.to_be_bytes());
    hdr[2..4].copy_from_slice(&dport.to_be_bytes());
    hdr[4..6].copy_from_slice(&len.to_be_bytes());
    hdr[6..8].copy_from_slice(&[0, 0]);
}

/// Writes an IPv4 header without options as rxe does: DF set, UDP, the given TOS
/// and TTL. The ID and checksum are left 0 for the stack to fill (the ID before
/// the ICRC is computed).
pub fn build_ipv4(
    hdr: &mut [u8; 20],
    tos: u8,
    ttl: u8,
    saddr: [u8; 4],
    daddr: [u8; 4],
    total: u16,
) {
    hdr[0] = 0x45;
    hdr[1] = tos;
    hdr[2..4].copy_from_slice(&total.to_be_bytes());
    hdr[4..6].copy_from_slice(&[0, 0]);
    hdr[6..8].copy_from_slice(&IP_DF.to_be_bytes());
    hdr[8] = ttl;
    hdr[9] = IPPROTO_UDP;
    hdr[10..12].copy_from_slice(&[0, 0]);
    hdr[12..16].copy_from_slice(&saddr);
    hdr[16..20].copy_from_slice(&daddr);
}

/// Writes an IPv6 header as rxe does: traffic class from the path, flow label 0.
pub fn build_ipv6(
    hdr: &mut [u8; 40],
    tclass: u8,
    hop_limit: u8,
    saddr: [u8; 16],
    daddr: [u8; 16],
    payload_len: u16,
) {
    let word = 0x6000_0000u32 | (u32::from(tclass) << 20);
    hdr[0..4].copy_from_slice(&word.to_be_bytes());
    hdr[4..6].copy_from_slice(&payload_len.to_be_bytes());
    hdr[6] = IPPROTO_UDP;
    hdr[7] = hop_limit;
    hdr[8..24].copy_from_slice(&saddr);
    hdr[24..40].copy_from_slice(&daddr);
}

/// Whether a GID is an IPv4-mapped address (`::ffff:a.b.c.d`).
pub fn gid_is_v4_mapped(gid: &[u8; 16]) -> bool {
    gid[..10].iter().all(|&b| b == 0) && gid[10] == 0xff && gid[11] == 0xff
}

/// The IPv4 address inside an IPv4-mapped GID.
pub fn gid_to_v4(gid: &[u8; 16]) -> [u8; 4] {
    [gid[12], gid[13], gid[14], gid[15]]
}

/// Whether the IP header `ip` carries a packet from `peer` to `local` (GIDs,
/// IPv4-mapped for IPv4): what a connected QP accepts, as rxe's `check_addr`.
pub fn addressed(ip: &[u8], local: &[u8; 16], peer: &[u8; 16]) -> bool {
    match ip.first().map(|b| b >> 4) {
        Some(4) => {
            ip.len() >= 20
                && gid_is_v4_mapped(local)
                && gid_is_v4_mapped(peer)
                && ip[12..16] == peer[12..]
                && ip[16..20] == local[12..]
        }
        Some(6) => ip.len() >= 40 && ip[8..24] == peer[..] && ip[24..40] == local[..],
        _ => false,
    }
}

/// The destination address of the IP header `ip` as a GID (IPv4-mapped for IPv4).
pub fn dest_gid(ip: &[u8]) -> Option<[u8; 16]> {
    let mut gid = [0u8; 16];
    match ip.first().map(|b| b >> 4) {
        Some(4) => {
            gid[10] = 0xff;
            gid[11] = 0xff;
            gid[12..].copy_from_slice(ip.get(16..20)?);
        }
        Some(6) => gid.copy_from_slice(ip.get(24..40)?),
        _ => return None,
    }
    Some(gid)
}

/// Whether a GID names a multicast group: `ff00::/8`, or IPv4-mapped `224.0.0.0/4`.
pub fn gid_is_multicast(gid: &[u8; 16]) -> bool {
    if gid_is_v4_mapped(gid) {
        gid[12] & 0xf0 == 0xe0
    } else {
        gid[0] == 0xff
    }
}

/// The Ethernet address frames to the multicast group `gid` are sent to, as the IP
/// stacks map it (`ip_eth_mc_map`, `ipv6_eth_mc_map`), so the netdev's filter lets
/// them in. rxe maps IPv4 groups as if they were IPv6 ones.
pub fn multicast_mac(gid: &[u8; 16]) -> [u8; 6] {
    if gid_is_v4_mapped(gid) {
        [0x01, 0x00, 0x5e, gid[13] & 0x7f, gid[14], gid[15]]
    } else {
        [0x33, 0x33, gid[12], gid[13], gid[14], gid[15]]
    }
}

/// The GRH rxe places in front of a UD receive: for IPv4, 20 zero bytes and then
/// the IPv4 header as received; for IPv6, the IPv6 header as received. `None` if
/// `ip` is neither a 20-byte IPv4 header nor an IPv6 header.
pub fn grh_from_ip(ip: &[u8]) -> Option<[u8; GRH_BYTES]> {
    let mut grh = [0u8; GRH_BYTES];
    match ip.first().map(|b| b >> 4) {
        Some(4) => {
            let h = ip.get(..20)?;
            if h[0] & 0x0f != 5 {
                return None;
            }
            grh[20..].copy_from_slice(h);
        }
        Some(6) => grh.copy_from_slice(ip.get(..40)?),
        _ => return None,
    }
    Some(grh)
}
