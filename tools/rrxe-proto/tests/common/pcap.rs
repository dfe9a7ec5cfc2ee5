// SPDX-License-Identifier: GPL-2.0

//! Minimal classic-pcap reader and writer, plus extraction of RoCE v2 datagrams
//! (UDP destination port 4791 over IPv4/IPv6) from Ethernet, Linux cooked (SLL)
//! and Linux cooked v2 (SLL2) captures.

/// Link type: Ethernet.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Link type: raw IP.
pub const LINKTYPE_RAW: u32 = 101;
/// Link type: Linux cooked capture v1 (`tcpdump -i any`).
pub const LINKTYPE_LINUX_SLL: u32 = 113;
/// Link type: Linux cooked capture v2.
pub const LINKTYPE_LINUX_SLL2: u32 = 276;
/// RoCE v2 UDP port.
pub const ROCE_PORT: u16 = 4791;

/// A pcap file in memory.
#[derive(Debug)]
pub struct Capture {
    /// Link-layer header type.
    pub linktype: u32,
    /// Captured records (possibly truncated to the snap length).
    pub records: Vec<Record>,
}

/// One captured packet.
#[derive(Debug)]
pub struct Record {
    /// Captured bytes.
    pub data: Vec<u8>,
    /// Original length on the wire.
    pub orig_len: u32,
}

/// A RoCE v2 datagram found in a capture.
#[derive(Debug, Clone)]
pub struct RoceDatagram {
    /// IP header (20 bytes for IPv4 without options, 40 for IPv6).
    pub ip: Vec<u8>,
    /// IPv4 options were present (the ICRC cannot be computed as rxe would).
    pub ip_options: bool,
    /// UDP header.
    pub udp: [u8; 8],
    /// UDP payload (BTH through ICRC) as delimited by the UDP length.
    pub payload: Vec<u8>,
}

/// Parses a classic pcap file (either byte order, micro- or nanosecond stamps).
pub fn read(bytes: &[u8]) -> Result<Capture, String> {
    if bytes.len() < 24 {
        return Err("file shorter than the pcap header".into());
    }
    let magic = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let le = match magic {
        0xa1b2_c3d4 | 0xa1b2_3c4d => true,
        0xd4c3_b2a1 | 0x4d3c_b2a1 => false,
        0x0a0d_0d0a => return Err("pcapng is not supported; convert with editcap -F pcap".into()),
        m => return Err(format!("bad pcap magic {m:#x}")),
    };
    let u32_at = |b: &[u8], o: usize| {
        let a: [u8; 4] = b[o..o + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let linktype = u32_at(bytes, 20) & 0x0fff_ffff;
    let mut records = Vec::new();
    let mut off = 24;
    while off < bytes.len() {
        if bytes.len() - off < 16 {
            return Err(format!("truncated record header at {off}"));
        }
        let incl = u32_at(bytes, off + 8) as usize;
        let orig_len = u32_at(bytes, off + 12);
        off += 16;
        let data = bytes
            .get(off..off + incl)
            .ok_or_else(|| format!("truncated record data at {off}"))?;
        records.push(Record {
            data: data.to_vec(),
            orig_len,
        });
        off += incl;
    }
    Ok(Capture { linktype, records })
}

/// Writes a little-endian microsecond pcap file.
pub fn write(linktype: u32, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&linktype.to_le_bytes());
    for (i, p) in packets.iter().enumerate() {
        out.extend_from_slice(&(1_700_000_000u32 + i as u32).to_le_bytes());
        out.extend_from_slice(&(i as u32 * 10).to_le_bytes());
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
    out
}

/// Ethertype and network-layer bytes of a link-layer frame.
fn network_layer(linktype: u32, frame: &[u8]) -> Option<(u16, &[u8])> {
    let be16 = |b: &[u8], o: usize| Some(u16::from_be_bytes(b.get(o..o + 2)?.try_into().ok()?));
    let (mut ethertype, mut rest) = match linktype {
        LINKTYPE_ETHERNET => (be16(frame, 12)?, frame.get(14..)?),
        LINKTYPE_LINUX_SLL => (be16(frame, 14)?, frame.get(16..)?),
        LINKTYPE_LINUX_SLL2 => (be16(frame, 0)?, frame.get(20..)?),
        LINKTYPE_RAW => match frame.first()? >> 4 {
            4 => (0x0800, frame),
            6 => (0x86dd, frame),
            _ => return None,
        },
        _ => return None,
    };
    // 802.1Q / 802.1ad tags
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        ethertype = be16(rest, 2)?;
        rest = rest.get(4..)?;
    }
    Some((ethertype, rest))
}

/// The RoCE v2 datagram in a captured frame, if it is one (UDP dport 4791).
/// `None` also when the capture was truncated before the end of the datagram.
pub fn roce_datagram(linktype: u32, frame: &[u8]) -> Option<RoceDatagram> {
    let (ethertype, net) = network_layer(linktype, frame)?;
    let (ip, ip_options, l4) = match ethertype {
        0x0800 => {
            let ihl = usize::from(net.first()? & 0x0f) * 4;
            if *net.get(9)? != 17 || ihl < 20 {
                return None;
            }
            let total = usize::from(u16::from_be_bytes(net.get(2..4)?.try_into().ok()?));
            (
                net.get(..20)?.to_vec(),
                ihl != 20,
                net.get(ihl..total.max(ihl))?,
            )
        }
        0x86dd => {
            if *net.get(6)? != 17 {
                return None;
            }
            let plen = usize::from(u16::from_be_bytes(net.get(4..6)?.try_into().ok()?));
            (net.get(..40)?.to_vec(), false, net.get(40..40 + plen)?)
        }
        _ => return None,
    };
    let udp: [u8; 8] = l4.get(..8)?.try_into().ok()?;
    if u16::from_be_bytes([udp[2], udp[3]]) != ROCE_PORT {
        return None;
    }
    let ulen = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
    let payload = l4.get(8..ulen.max(8))?.to_vec();
    Some(RoceDatagram {
        ip,
        ip_options,
        udp,
        payload,
    })
}

/// Wraps an Ethernet frame's network layer in a Linux cooked v1 header.
pub fn to_sll(eth: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
    f.extend_from_slice(&eth[12..14]);
    f.extend_from_slice(&eth[14..]);
    f
}

/// Wraps an Ethernet frame's network layer in a Linux cooked v2 header.
pub fn to_sll2(eth: &[u8]) -> Vec<u8> {
    let mut f = eth[12..14].to_vec();
    f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend_from_slice(&eth[14..]);
    f
}

/// Inserts an 802.1Q tag into an Ethernet frame.
pub fn add_vlan(eth: &[u8], vid: u16) -> Vec<u8> {
    let mut f = eth[..12].to_vec();
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&vid.to_be_bytes());
    f.extend_from_slice(&eth[12..]);
    f
}

/// The committed capture corpus (`tools/testing/rrxe-corpus/`), or
/// `$RRXE_CORPUS_DIR`.
pub fn corpus_dir() -> std::path::PathBuf {
    std::env::var_os("RRXE_CORPUS_DIR").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testing/rrxe-corpus"),
        std::path::PathBuf::from,
    )
}
