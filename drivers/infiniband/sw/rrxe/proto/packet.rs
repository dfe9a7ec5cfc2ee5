// SPDX-License-Identifier: GPL-2.0

//! Parsing of a RoCE v2 UDP payload (BTH through ICRC) into header views and
//! payload, and building of headers/packets from field values.

use super::hdr::{
    Aeth, AethFields, AtomicAckEth, AtomicAckEthFields, AtomicEth, AtomicEthFields, Bth, BthFields,
    Deth, DethFields, Feth, FethFields, Ieth, IethFields, ImmDt, ImmDtFields, Rdeth, RdethFields,
    Reth, RethFields, BTH_TVER,
};
use super::opcode::{self, Mask, OpInfo, ICRC_BYTES, RC_ATOMIC_WRITE};

/// Payload length of an RDMA ATOMIC WRITE (IBA oA19-28).
pub const ATOMIC_WRITE_PAYLOAD: usize = 8;

/// Why a buffer is not a well-formed packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The buffer ends before the BTH, the extension headers, the pad or the ICRC.
    TooShort {
        /// Bytes the packet needs at least.
        needed: usize,
        /// Bytes available.
        got: usize,
    },
    /// Reserved or unsupported opcode (not in rxe's table).
    UnknownOpcode(u8),
    /// Transport header version is not 0.
    BadTVer(u8),
    /// Non-zero pad count on an opcode without payload, or on a first/middle packet.
    BadPad(u8),
    /// Payload plus pad is not a multiple of 4 bytes.
    Unaligned(usize),
    /// Bytes between the headers and the ICRC of an opcode that has no payload.
    UnexpectedPayload(usize),
    /// Payload length not allowed by the opcode (ATOMIC WRITE carries exactly 8).
    BadPayloadLength(usize),
    /// Payload does not fit the path MTU rules (first/middle == MTU, last 1..=MTU,
    /// only <= MTU).
    LengthMismatch {
        /// Payload bytes in the packet.
        payload: usize,
        /// Path MTU the packet was checked against.
        mtu: u32,
    },
}

/// A parsed packet borrowing from the receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Table entry of the opcode.
    pub info: &'static OpInfo,
    /// Base transport header.
    pub bth: Bth<'a>,
    /// RDETH (RD only).
    pub rdeth: Option<Rdeth<'a>>,
    /// DETH (UD, and RD requests).
    pub deth: Option<Deth<'a>>,
    /// FETH (FLUSH).
    pub feth: Option<Feth<'a>>,
    /// RETH.
    pub reth: Option<Reth<'a>>,
    /// AETH.
    pub aeth: Option<Aeth<'a>>,
    /// AtomicAckETH.
    pub atmack: Option<AtomicAckEth<'a>>,
    /// AtomicETH.
    pub atmeth: Option<AtomicEth<'a>>,
    /// IETH.
    pub ieth: Option<Ieth<'a>>,
    /// Immediate data.
    pub immdt: Option<ImmDt<'a>>,
    /// Payload without pad and ICRC.
    pub payload: &'a [u8],
    /// Pad bytes (0..=3).
    pub pad: &'a [u8],
    /// The whole packet, BTH through ICRC.
    pub raw: &'a [u8],
}

/// Field values of every header an opcode may use. Builders write only the
/// headers of `bth.opcode`; the rest is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct HeaderFields {
    /// BTH (selects the opcode).
    pub bth: BthFields,
    /// RDETH.
    pub rdeth: RdethFields,
    /// DETH.
    pub deth: DethFields,
    /// FETH.
    pub feth: FethFields,
    /// RETH.
    pub reth: RethFields,
    /// AETH.
    pub aeth: AethFields,
    /// AtomicAckETH.
    pub atmack: AtomicAckEthFields,
    /// AtomicETH.
    pub atmeth: AtomicEthFields,
    /// IETH.
    pub ieth: IethFields,
    /// Immediate data.
    pub immdt: ImmDtFields,
}

/// Why headers or a packet could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The opcode is reserved or unsupported.
    UnknownOpcode(u8),
    /// The output buffer is too small.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A payload was given for an opcode without payload.
    PayloadNotAllowed,
}

/// View of extension header `hdr` of `info` inside `buf`, if the opcode has it.
fn ext<'a, T>(
    info: &OpInfo,
    buf: &'a [u8],
    hdr: Mask,
    view: fn(&'a [u8]) -> Option<T>,
) -> Option<T> {
    info.offset(hdr)
        .and_then(|off| buf.get(off..))
        .and_then(view)
}

/// Checks the payload length against the path MTU as rxe's responder does.
fn check_mtu(info: &OpInfo, payload: usize, mtu: u32) -> Result<(), ParseError> {
    let p = u64::try_from(payload).unwrap_or(u64::MAX);
    let m = u64::from(mtu);
    let ok = if info.is_only() {
        p <= m
    } else if info.is_first() || info.is_middle() {
        p == m
    } else {
        // last
        p != 0 && p <= m
    };
    if ok {
        Ok(())
    } else {
        Err(ParseError::LengthMismatch { payload, mtu })
    }
}

/// Parses a RoCE v2 UDP payload: BTH, extension headers, payload, pad and ICRC.
///
/// When `mtu` is given, payload-carrying packets are also checked against the path
/// MTU (rxe's responder applies these rules to RC/UC requests only; pass `None`
/// where rxe does not check, e.g. for UD or read responses). The ICRC is not
/// checked here (see `icrc::verify`). Never panics and never reads outside `buf`.
#[inline]
pub fn parse(buf: &[u8], mtu: Option<u32>) -> Result<Packet<'_>, ParseError> {
    let short = |needed| ParseError::TooShort {
        needed,
        got: buf.len(),
    };
    let bth = Bth::new(buf).ok_or_else(|| short(opcode::BTH_BYTES))?;
    let info =
        opcode::lookup(bth.opcode()).ok_or_else(|| ParseError::UnknownOpcode(bth.opcode()))?;
    if bth.tver() != BTH_TVER {
        return Err(ParseError::BadTVer(bth.tver()));
    }
    let hdr_len = info.header_len();
    let pad = usize::from(bth.pad());
    let min_len = hdr_len + ICRC_BYTES;
    let body = buf
        .len()
        .checked_sub(min_len)
        .ok_or_else(|| short(min_len + pad))?;
    if !info.has_payload() {
        if pad != 0 {
            return Err(ParseError::BadPad(bth.pad()));
        }
        if body != 0 {
            return Err(ParseError::UnexpectedPayload(body));
        }
    }
    let payload_len = body.checked_sub(pad).ok_or_else(|| short(min_len + pad))?;
    if body % 4 != 0 {
        return Err(ParseError::Unaligned(body));
    }
    // First and middle packets carry a full MTU, which is a multiple of 4.
    if pad != 0 && (info.is_first() || info.is_middle()) {
        return Err(ParseError::BadPad(bth.pad()));
    }
    if info.opcode == RC_ATOMIC_WRITE && (payload_len != ATOMIC_WRITE_PAYLOAD || pad != 0) {
        return Err(ParseError::BadPayloadLength(payload_len));
    }
    if let (Some(mtu), true) = (mtu, info.has_payload()) {
        check_mtu(info, payload_len, mtu)?;
    }

    let (headers, rest) = buf
        .split_at_checked(hdr_len)
        .ok_or_else(|| short(min_len))?;
    let (payload, rest) = rest
        .split_at_checked(payload_len)
        .ok_or_else(|| short(min_len))?;
    let pad_bytes = rest.get(..pad).ok_or_else(|| short(min_len + pad))?;
    Ok(Packet {
        info,
        bth,
        rdeth: ext(info, headers, Mask::RDETH, Rdeth::new),
        deth: ext(info, headers, Mask::DETH, Deth::new),
        feth: ext(info, headers, Mask::FETH, Feth::new),
        reth: ext(info, headers, Mask::RETH, Reth::new),
        aeth: ext(info, headers, Mask::AETH, Aeth::new),
        atmack: ext(info, headers, Mask::ATMACK, AtomicAckEth::new),
        atmeth: ext(info, headers, Mask::ATMETH, AtomicEth::new),
        ieth: ext(info, headers, Mask::IETH, Ieth::new),
        immdt: ext(info, headers, Mask::IMMDT, ImmDt::new),
        payload,
        pad: pad_bytes,
        raw: buf,
    })
}

impl<'a> Packet<'a> {
    /// Length of BTH plus extension headers.
    pub fn header_len(&self) -> usize {
        self.info.header_len()
    }

    /// The header bytes (BTH and extension headers).
    pub fn headers(&self) -> &'a [u8] {
        self.raw.get(..self.header_len()).unwrap_or(&[])
    }

    /// The ICRC as stored (little-endian value).
    pub fn icrc(&self) -> u32 {
        super::icrc::stored(self.raw).unwrap_or(0)
    }

    /// Field values of all headers present; absent ones are left at default.
    pub fn fields(&self) -> HeaderFields {
        HeaderFields {
            bth: self.bth.fields(),
            rdeth: self.rdeth.map(|h| h.fields()).unwrap_or_default(),
            deth: self.deth.map(|h| h.fields()).unwrap_or_default(),
            feth: self.feth.map(|h| h.fields()).unwrap_or_default(),
            reth: self.reth.map(|h| h.fields()).unwrap_or_default(),
            aeth: self.aeth.map(|h| h.fields()).unwrap_or_default(),
            atmack: self.atmack.map(|h| h.fields()).unwrap_or_default(),
            atmeth: self.atmeth.map(|h| h.fields()).unwrap_or_default(),
            ieth: self.ieth.map(|h| h.fields()).unwrap_or_default(),
            immdt: self.immdt.map(|h| h.fields()).unwrap_or_default(),
        }
    }
}

/// Writes extension header `hdr` with `write` if the opcode has it.
fn put<const N: usize>(info: &OpInfo, buf: &mut [u8], hdr: Mask, write: impl FnOnce(&mut [u8; N])) {
    if let Some(slot) = info
        .offset(hdr)
        .and_then(|off| buf.get_mut(off..))
        .and_then(|b| b.first_chunk_mut::<N>())
    {
        write(slot);
    }
}

/// Writes the BTH and the extension headers of `f.bth.opcode` at the start of
/// `buf`; returns the header length. All field bits, reserved ones included, are
/// written as given, so `build_headers(parse(p).fields())` reproduces `p`'s headers.
pub fn build_headers(buf: &mut [u8], f: &HeaderFields) -> Result<usize, BuildError> {
    let info = opcode::lookup(f.bth.opcode).ok_or(BuildError::UnknownOpcode(f.bth.opcode))?;
    let len = info.header_len();
    let available = buf.len();
    let hdr = buf.get_mut(..len).ok_or(BuildError::BufferTooSmall {
        needed: len,
        available,
    })?;
    if let Some(b) = hdr.first_chunk_mut() {
        f.bth.write(b);
    }
    put(info, hdr, Mask::RDETH, |b| f.rdeth.write(b));
    put(info, hdr, Mask::DETH, |b| f.deth.write(b));
    put(info, hdr, Mask::FETH, |b| f.feth.write(b));
    put(info, hdr, Mask::RETH, |b| f.reth.write(b));
    put(info, hdr, Mask::AETH, |b| f.aeth.write(b));
    put(info, hdr, Mask::ATMACK, |b| f.atmack.write(b));
    put(info, hdr, Mask::ATMETH, |b| f.atmeth.write(b));
    put(info, hdr, Mask::IETH, |b| f.ieth.write(b));
    put(info, hdr, Mask::IMMDT, |b| f.immdt.write(b));
    Ok(len)
}

/// Pad count that makes `payload_len` a multiple of 4 (`(-len) & 3` as rxe).
pub fn pad_for(payload_len: usize) -> u8 {
    (payload_len.wrapping_neg() & 3) as u8
}

/// Total UDP payload length (headers, payload, pad, ICRC) of a packet.
pub fn packet_len(info: &OpInfo, payload_len: usize) -> Option<usize> {
    info.header_len()
        .checked_add(payload_len)?
        .checked_add(usize::from(pad_for(payload_len)))?
        .checked_add(ICRC_BYTES)
}

/// Builds a whole packet: headers from `f` (with the pad count replaced by the one
/// `payload` needs), payload, zeroed pad and a zeroed ICRC to be filled by
/// `icrc::generate`. Returns the packet length.
pub fn build_packet(buf: &mut [u8], f: &HeaderFields, payload: &[u8]) -> Result<usize, BuildError> {
    let info = opcode::lookup(f.bth.opcode).ok_or(BuildError::UnknownOpcode(f.bth.opcode))?;
    if !info.has_payload() && !payload.is_empty() {
        return Err(BuildError::PayloadNotAllowed);
    }
    let available = buf.len();
    let total = packet_len(info, payload.len()).ok_or(BuildError::BufferTooSmall {
        needed: usize::MAX,
        available,
    })?;
    let pkt = buf.get_mut(..total).ok_or(BuildError::BufferTooSmall {
        needed: total,
        available,
    })?;
    let mut fields = *f;
    fields.bth.pad = pad_for(payload.len());
    let hdr_len = build_headers(pkt, &fields)?;
    // Payload, then zeros for the pad and the ICRC placeholder.
    let tail = pkt.get_mut(hdr_len..).unwrap_or_default();
    let mut src = payload.iter();
    for b in tail.iter_mut() {
        *b = src.next().copied().unwrap_or(0);
    }
    Ok(total)
}
