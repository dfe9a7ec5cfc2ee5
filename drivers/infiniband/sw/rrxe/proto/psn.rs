// SPDX-License-Identifier: GPL-2.0

//! 24-bit sequence number arithmetic (PSN, MSN) and the IBTA timer/credit tables.

use core::cmp::Ordering;

/// Mask of a 24-bit PSN or MSN.
pub const PSN_MASK: u32 = 0x00ff_ffff;
/// Number of distinct PSNs.
pub const PSN_MODULUS: u32 = 1 << 24;
/// Half the PSN space: the largest distance `psn_compare` orders correctly.
pub const PSN_HALF: u32 = 1 << 23;

/// `psn + n` modulo 2^24.
pub const fn psn_add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & PSN_MASK
}

/// Forward distance from `from` to `to` modulo 2^24 (`to - from`).
pub const fn psn_sub(to: u32, from: u32) -> u32 {
    to.wrapping_sub(from) & PSN_MASK
}

/// Signed comparison as rxe's `psn_compare`: the sign of the result orders `a`
/// against `b` when they are less than 2^23 apart (the difference is moved into the
/// top 24 bits of an `i32`, so wrap-around is handled by two's complement).
pub const fn psn_compare(a: u32, b: u32) -> i32 {
    (a.wrapping_sub(b) << 8) as i32
}

/// [`psn_compare`] as an [`Ordering`].
pub const fn psn_cmp(a: u32, b: u32) -> Ordering {
    let d = psn_compare(a, b);
    if d < 0 {
        Ordering::Less
    } else if d > 0 {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Signed distance `a - b` in `-2^23..2^23`.
pub const fn psn_diff(a: u32, b: u32) -> i32 {
    psn_compare(a, b) >> 8
}

/// True if `psn` lies in the window of `len` PSNs starting at `start`
/// (`start <= psn < start + len`, modulo 2^24).
pub const fn psn_in_window(psn: u32, start: u32, len: u32) -> bool {
    psn_sub(psn, start) < len
}

/// `msn + n` modulo 2^24 (MSNs use the same 24-bit space as PSNs).
pub const fn msn_add(msn: u32, n: u32) -> u32 {
    psn_add(msn, n)
}

/// AETH credit count code meaning "no end-to-end flow control" (rxe always sends it).
pub const CREDIT_INVALID: u8 = 31;

/// IBTA credit count encoding (codes 0..=30), as rdmavt's `credit_table`.
pub const CREDIT_TABLE: [u32; 31] = [
    0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
];

/// Number of receive WQEs a credit code announces; `None` for code 31 (no flow
/// control) and for values that do not fit in 5 bits.
pub fn credit_count(code: u8) -> Option<u32> {
    CREDIT_TABLE.get(usize::from(code)).copied()
}

/// Largest credit code whose count does not exceed `available` (0..=30).
pub fn credit_code(available: u32) -> u8 {
    let mut code = 0u8;
    for (i, &count) in (0u8..).zip(CREDIT_TABLE.iter()) {
        if count <= available {
            code = i;
        }
    }
    code
}

/// RNR NAK timer codes in microseconds, exactly rxe's `rnrnak_usec` (rxe_comp.c).
///
/// Note: code 25 is 61410 in rxe although IBTA specifies 61.44 ms; rxe's value is
/// kept for behavioural compatibility.
pub const RNR_NAK_USEC: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840,
    5120, 7680, 10240, 15360, 20480, 30720, 40960, 61410, 81920, 122_880, 163_840, 245_760,
    327_680, 491_520,
];

/// RNR NAK delay for a 5-bit timer code (higher bits ignored).
pub fn rnr_nak_usec(code: u8) -> u32 {
    RNR_NAK_USEC
        .get(usize::from(code & 0x1f))
        .copied()
        .unwrap_or(0)
}

/// Local ACK timeout for the 5-bit QP `timeout` attribute: 4.096 µs × 2^timeout in
/// nanoseconds; `None` for 0, which means "wait forever". Higher bits are ignored.
pub const fn retransmit_timeout_ns(timeout: u8) -> Option<u64> {
    let t = timeout & 0x1f;
    if t == 0 {
        None
    } else {
        Some(4096u64 << t)
    }
}

/// The payload a READ of `length` bytes, sent as PSNs `first`..=`last` at a path
/// MTU of `mtu` bytes, is answered with at `psn`: a full MTU, but the rest at
/// `last`. `None` for a PSN outside the READ, or one past its data. A response
/// that ends the message (LAST or ONLY) belongs at `last` and nowhere else;
/// one that starts it (FIRST or ONLY) may come at any PSN, since a READ asked
/// for again from a later PSN is answered from there.
pub const fn read_response_len(
    first: u32,
    last: u32,
    length: u32,
    mtu: u32,
    psn: u32,
) -> Option<u32> {
    let k = psn_diff(psn, first);
    if k < 0 || psn_diff(psn, last) > 0 {
        return None;
    }
    let off = k as u64 * mtu as u64;
    if off > length as u64 {
        return None;
    }
    let rest = length as u64 - off;
    if psn == last {
        Some(rest as u32)
    } else if rest > mtu as u64 {
        Some(mtu)
    } else {
        None
    }
}

/// Path MTU in bytes for an `enum ib_mtu` value (1 = 256 ... 5 = 4096).
pub const fn ib_mtu_bytes(mtu: u8) -> Option<u32> {
    match mtu {
        1..=5 => Some(128u32 << mtu),
        _ => None,
    }
}

/// `enum ib_mtu` value for a path MTU in bytes, if it is one of the IBTA sizes.
pub const fn ib_mtu_enum(bytes: u32) -> Option<u8> {
    match bytes {
        256 => Some(1),
        512 => Some(2),
        1024 => Some(3),
        2048 => Some(4),
        4096 => Some(5),
        _ => None,
    }
}
