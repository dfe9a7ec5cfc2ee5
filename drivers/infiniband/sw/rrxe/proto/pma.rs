// SPDX-License-Identifier: GPL-2.0

//! The port's Performance Management agent (IBA 16.1.3): the answers to
//! PerfMgmt `Get`s of ClassPortInfo, PortCounters and PortCountersExtended,
//! which the RDMA core reads for `ports/1/counters/` in sysfs and which may also
//! arrive on QP1. The same counters and scaling as rdma_rxe (`rxe_mad.c`):
//! data in 4-byte words, from the bytes sent and received.
//!
//! Where rxe replies with an all-zero MAD (a PerfMgmt method other than `Get`),
//! this answers with the request's header, method `GetResp` and status
//! "unsupported method"; every reply carries the request's header and
//! transaction id.

/// Bytes in a MAD (`IB_MGMT_MAD_SIZE`): a 24-byte common header, then data.
pub const MAD_SIZE: usize = 256;

const HDR_BYTES: usize = 24;
/// The PMA's attribute starts 40 bytes into the data (IBA 16.1.1: reserved
/// bytes after the common header).
const ATTR_OFFSET: usize = HDR_BYTES + 40;

const CLASS_PERF_MGMT: u8 = 0x04;
const METHOD_GET: u8 = 0x01;
const METHOD_GET_RESP: u8 = 0x81;
/// Status "unsupported method" (`IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD`).
pub const STATUS_UNSUPPORTED_METHOD: u16 = 0x0008;
/// Status "unsupported method/attribute combination".
pub const STATUS_UNSUPPORTED_ATTR: u16 = 0x000c;

/// Attribute ids.
pub const ATTR_CLASS_PORT_INFO: u16 = 0x0001;
/// PortCounters: 16- and 32-bit counters, of which only `LinkDownedCounter` is kept.
pub const ATTR_PORT_COUNTERS: u16 = 0x0012;
/// PortCountersExtended: 64-bit data and packet counters.
pub const ATTR_PORT_COUNTERS_EXT: u16 = 0x001d;
/// ClassPortInfo's capability "PortCountersExtended is complete"
/// (`IB_PMA_CLASS_CAP_EXT_WIDTH`), which makes sysfs read the 64-bit counters.
pub const CAP_EXT_WIDTH: u16 = 1 << 9;

/// The port's counters an answer reports, as the device counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCounters {
    /// Bytes sent, IP header to ICRC.
    pub xmit_bytes: u64,
    /// Bytes received in packets whose ICRC was good, IP header to ICRC.
    pub rcv_bytes: u64,
    /// Packets sent.
    pub xmit_packets: u64,
    /// Packets received.
    pub rcv_packets: u64,
    /// Times the port went down.
    pub link_downed: u64,
}

/// What to do with a MAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `out` holds the reply.
    Reply,
    /// Not for this agent: the core's own agents take it.
    Pass,
}

/// Answers `inp` into `out` (which the caller zeroed) with `c`.
pub fn answer(inp: &[u8; MAD_SIZE], out: &mut [u8; MAD_SIZE], c: &PortCounters) -> Answer {
    if inp[1] != CLASS_PERF_MGMT {
        return Answer::Pass;
    }
    // The reply is the request with its method turned into a response; the
    // attribute then overwrites the data it answers.
    out.copy_from_slice(inp);
    out[3] = METHOD_GET_RESP;
    set_status(out, 0);
    if inp[3] != METHOD_GET {
        set_status(out, STATUS_UNSUPPORTED_METHOD);
        return Answer::Reply;
    }
    let attr = u16::from_be_bytes([inp[16], inp[17]]);
    let a = &mut out[ATTR_OFFSET..];
    match attr {
        ATTR_CLASS_PORT_INFO => {
            a[..72].fill(0);
            put16(a, 2, CAP_EXT_WIDTH);
        }
        ATTR_PORT_COUNTERS => {
            // IBA 16.1.3.5: the counters stop at all ones rather than wrap.
            a[4..44].fill(0);
            a[7] = u8::try_from(c.link_downed).unwrap_or(u8::MAX);
        }
        ATTR_PORT_COUNTERS_EXT => {
            a[4..72].fill(0);
            put64(a, 8, c.xmit_bytes >> 2);
            put64(a, 16, c.rcv_bytes >> 2);
            put64(a, 24, c.xmit_packets);
            put64(a, 32, c.rcv_packets);
        }
        _ => set_status(out, STATUS_UNSUPPORTED_ATTR),
    }
    Answer::Reply
}

fn set_status(mad: &mut [u8; MAD_SIZE], status: u16) {
    mad[4..6].copy_from_slice(&status.to_be_bytes());
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

/// A PerfMgmt request as the core's sysfs code builds it (`get_perf_mad`).
pub fn request(method: u8, attr: u16, port_select: u8) -> [u8; MAD_SIZE] {
    let mut m = [0u8; MAD_SIZE];
    m[0] = 1;
    m[1] = CLASS_PERF_MGMT;
    m[2] = 1;
    m[3] = method;
    m[8..16].copy_from_slice(&0x1122_3344_5566_7788u64.to_be_bytes());
    m[16..18].copy_from_slice(&attr.to_be_bytes());
    if attr != ATTR_CLASS_PORT_INFO {
        m[ATTR_OFFSET + 1] = port_select;
    }
    m
}

/// The 64-bit counter at byte `at` of a reply's attribute.
pub fn reply_u64(out: &[u8; MAD_SIZE], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&out[ATTR_OFFSET + at..ATTR_OFFSET + at + 8]);
    u64::from_be_bytes(b)
}

/// A reply's status.
pub fn reply_status(out: &[u8; MAD_SIZE]) -> u16 {
    u16::from_be_bytes([out[4], out[5]])
}

/// Byte `at` of a reply's attribute.
pub fn reply_byte(out: &[u8; MAD_SIZE], at: usize) -> u8 {
    out[ATTR_OFFSET + at]
}
