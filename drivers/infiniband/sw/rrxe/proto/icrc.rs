// SPDX-License-Identifier: GPL-2.0

//! RoCE v2 invariant CRC, computed exactly as rxe's `rxe_icrc.c` does.
//!
//! The ICRC is a reflected CRC-32 (polynomial 0xEDB88320) over, in order: 8 bytes
//! of 0xff standing for the masked LRH, the IP header with its variant fields set
//! to all ones, the UDP header with the checksum set to all ones, the BTH with byte 4
//! (FECN, BECN, resv6a) set to all ones, then the rest of the packet up to the
//! ICRC. The result is inverted and stored little-endian (rxe stores the CPU value
//! of `~crc` on little-endian hosts).
//!
//! The CRC engine is pluggable through [`Crc32`] so the kernel can use `crc32_le`.

use super::opcode::{self, BTH_BYTES, ICRC_BYTES};

/// A raw reflected CRC-32 update with the semantics of the kernel's
/// `crc32_le(crc, p, len)`: no pre- or post-inversion.
pub trait Crc32 {
    /// Continues `crc` over `data`.
    fn update(&self, crc: u32, data: &[u8]) -> u32;
}

/// Reflected CRC-32 polynomial (IEEE 802.3).
pub const CRC32_POLY: u32 = 0xedb8_8320;

/// `crc32_le(0xffffffff, [0xff; 8])`: the CRC state after the masked LRH, which
/// rxe hard-codes as its seed.
pub const ICRC_SEED: u32 = 0xdebb_20e3;

/// Size of an IPv4 header without options.
pub const IPV4_HDR_BYTES: usize = 20;
/// Size of the fixed IPv6 header.
pub const IPV6_HDR_BYTES: usize = 40;
/// Size of a UDP header.
pub const UDP_HDR_BYTES: usize = 8;

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ CRC32_POLY
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
}

/// Slice-by-8 lookup tables, computed at compile time (8 KiB).
static TABLES: [[u32; 256]; 8] = make_tables();

/// Table lookup; `byte` is always in range, `get` just keeps the code panic-free.
fn t(table: &[u32; 256], byte: u32) -> u32 {
    table.get((byte & 0xff) as usize).copied().unwrap_or(0)
}

/// Software slice-by-8 CRC-32 with `crc32_le` semantics.
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftCrc32;

impl Crc32 for SoftCrc32 {
    fn update(&self, crc: u32, data: &[u8]) -> u32 {
        let [t0, t1, t2, t3, t4, t5, t6, t7] = &TABLES;
        let mut crc = crc;
        let mut rest = data;
        while let Some((c, tail)) = rest.split_first_chunk::<8>() {
            let lo = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) ^ crc;
            let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
            crc = t(t7, lo)
                ^ t(t6, lo >> 8)
                ^ t(t5, lo >> 16)
                ^ t(t4, lo >> 24)
                ^ t(t3, hi)
                ^ t(t2, hi >> 8)
                ^ t(t1, hi >> 16)
                ^ t(t0, hi >> 24);
            rest = tail;
        }
        for &b in rest {
            crc = t(t0, crc ^ u32::from(b)) ^ (crc >> 8);
        }
        crc
    }
}

/// Errors of ICRC computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IcrcError {
    /// The IP header is neither a 20-byte IPv4 header (IHL 5) nor an IPv6 header.
    BadIpHeader,
    /// The opcode is not in the table (use [`compute_ibta`] for such packets).
    UnknownOpcode(u8),
    /// The packet is shorter than its headers plus ICRC.
    TooShort,
    /// The ICRC in the packet differs from the computed one.
    Mismatch {
        /// Value computed over the packet.
        computed: u32,
        /// Value found in the packet's last 4 bytes (little-endian).
        found: u32,
    },
}

/// The network header that precedes the UDP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetHdr<'a> {
    /// IPv4 header without options.
    V4(&'a [u8; IPV4_HDR_BYTES]),
    /// Fixed IPv6 header (no extension headers).
    V6(&'a [u8; IPV6_HDR_BYTES]),
}

impl<'a> NetHdr<'a> {
    /// Picks the header type from the version nibble. IPv4 headers with options are
    /// rejected: rxe would hash option bytes in place of the UDP header.
    pub fn from_ip(ip: &'a [u8]) -> Result<Self, IcrcError> {
        match ip.first().map(|b| b >> 4) {
            Some(4) => match ip.first_chunk::<IPV4_HDR_BYTES>() {
                Some(h) if h[0] & 0x0f == 5 => Ok(NetHdr::V4(h)),
                _ => Err(IcrcError::BadIpHeader),
            },
            Some(6) => ip
                .first_chunk::<IPV6_HDR_BYTES>()
                .map(NetHdr::V6)
                .ok_or(IcrcError::BadIpHeader),
            _ => Err(IcrcError::BadIpHeader),
        }
    }
}

/// Room for the pseudo header and the extension headers after it (the longest,
/// an atomic's ATMETH, is 28 bytes).
const HDR_BUF_BYTES: usize = IPV6_HDR_BYTES + UDP_HDR_BYTES + BTH_BYTES + 64;

/// Runs the CRC over the masked IP, UDP and BTH headers (rxe's pseudo header),
/// then over `ext`. They are gathered into one buffer first: the kernel's
/// `crc32_le` runs each call of 16 bytes or more in its own FPU section, which
/// cost more than the CRC itself for a small packet.
fn headers<C: Crc32 + ?Sized>(
    c: &C,
    net: NetHdr<'_>,
    udp: &[u8; UDP_HDR_BYTES],
    bth: &[u8; BTH_BYTES],
    ext: &[u8],
) -> u32 {
    let mut buf = [0u8; HDR_BUF_BYTES];
    let ip_len = match net {
        NetHdr::V4(h) => {
            let m = &mut buf[..IPV4_HDR_BYTES];
            m.copy_from_slice(h);
            m[1] = 0xff; // TOS
            m[8] = 0xff; // TTL
            m[10] = 0xff; // header checksum
            m[11] = 0xff;
            IPV4_HDR_BYTES
        }
        NetHdr::V6(h) => {
            let m = &mut buf[..IPV6_HDR_BYTES];
            m.copy_from_slice(h);
            m[0] |= 0x0f; // traffic class (high nibble is the version)
            m[1] = 0xff; // traffic class + flow label
            m[2] = 0xff;
            m[3] = 0xff;
            m[7] = 0xff; // hop limit
            IPV6_HDR_BYTES
        }
    };
    let u = &mut buf[ip_len..ip_len + UDP_HDR_BYTES];
    u.copy_from_slice(udp);
    u[6] = 0xff; // UDP checksum
    u[7] = 0xff;
    let at = ip_len + UDP_HDR_BYTES;
    let b = &mut buf[at..at + BTH_BYTES];
    b.copy_from_slice(bth);
    b[4] = 0xff; // resv8a: FECN, BECN, resv6a
    let at = at + BTH_BYTES;
    match buf.get_mut(at..at + ext.len()) {
        Some(room) => {
            room.copy_from_slice(ext);
            c.update(ICRC_SEED, &buf[..at + ext.len()])
        }
        // Longer than any header the opcode table knows: in two calls.
        None => {
            let crc = c.update(ICRC_SEED, &buf[..at]);
            c.update(crc, ext)
        }
    }
}

/// ICRC of `pkt` (BTH through ICRC, i.e. the whole UDP payload) exactly as rxe
/// computes it: pseudo header, the extension headers, then the bytes from
/// `OpInfo::rxe_payload_offset` up to the ICRC. For the opcodes where rxe leaves
/// that offset at 0 (RC FLUSH, RD ACKNOWLEDGE, RD ATOMIC ACKNOWLEDGE) this hashes
/// the headers a second time, unmasked; that is what rxe puts on the wire.
///
/// Returns the value whose little-endian bytes form the ICRC field.
pub fn compute<C: Crc32 + ?Sized>(
    c: &C,
    net: NetHdr<'_>,
    udp: &[u8; UDP_HDR_BYTES],
    pkt: &[u8],
) -> Result<u32, IcrcError> {
    let bth = pkt.first_chunk::<BTH_BYTES>().ok_or(IcrcError::TooShort)?;
    let info = opcode::lookup(bth[0]).ok_or(IcrcError::UnknownOpcode(bth[0]))?;
    let end = pkt
        .len()
        .checked_sub(ICRC_BYTES)
        .ok_or(IcrcError::TooShort)?;
    let ext = pkt
        .get(BTH_BYTES..info.header_len())
        .ok_or(IcrcError::TooShort)?;
    if info.header_len() > end {
        return Err(IcrcError::TooShort);
    }
    let rest = pkt
        .get(usize::from(info.rxe_payload_offset)..end)
        .ok_or(IcrcError::TooShort)?;
    let crc = headers(c, net, udp, bth, ext);
    Ok(!c.update(crc, rest))
}

/// ICRC by the plain IBTA rule (masked BTH, then everything up to the ICRC),
/// independent of the opcode table. Equals [`compute`] for every opcode except the
/// three rxe quirks; useful for packets rxe does not know, such as CNPs.
pub fn compute_ibta<C: Crc32 + ?Sized>(
    c: &C,
    net: NetHdr<'_>,
    udp: &[u8; UDP_HDR_BYTES],
    pkt: &[u8],
) -> Result<u32, IcrcError> {
    let bth = pkt.first_chunk::<BTH_BYTES>().ok_or(IcrcError::TooShort)?;
    let end = pkt
        .len()
        .checked_sub(ICRC_BYTES)
        .ok_or(IcrcError::TooShort)?;
    let rest = pkt.get(BTH_BYTES..end).ok_or(IcrcError::TooShort)?;
    let crc = headers(c, net, udp, bth, &[]);
    Ok(!c.update(crc, rest))
}

/// The ICRC stored in the last 4 bytes of `pkt`, if it has them.
pub fn stored(pkt: &[u8]) -> Option<u32> {
    pkt.last_chunk::<ICRC_BYTES>()
        .map(|b| u32::from_le_bytes(*b))
}

/// Checks the ICRC of a received packet the way rxe does ([`compute`]).
pub fn verify<C: Crc32 + ?Sized>(
    c: &C,
    net: NetHdr<'_>,
    udp: &[u8; UDP_HDR_BYTES],
    pkt: &[u8],
) -> Result<(), IcrcError> {
    let computed = compute(c, net, udp, pkt)?;
    let found = stored(pkt).ok_or(IcrcError::TooShort)?;
    if computed == found {
        Ok(())
    } else {
        Err(IcrcError::Mismatch { computed, found })
    }
}

/// Computes the ICRC with [`compute`] and stores it in the last 4 bytes of `pkt`.
pub fn generate<C: Crc32 + ?Sized>(
    c: &C,
    net: NetHdr<'_>,
    udp: &[u8; UDP_HDR_BYTES],
    pkt: &mut [u8],
) -> Result<u32, IcrcError> {
    let icrc = compute(c, net, udp, pkt)?;
    let slot = pkt
        .last_chunk_mut::<ICRC_BYTES>()
        .ok_or(IcrcError::TooShort)?;
    *slot = icrc.to_le_bytes();
    Ok(icrc)
}
