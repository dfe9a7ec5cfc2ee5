// SPDX-License-Identifier: GPL-2.0

//! Transport headers: zero-copy views (`Bth`, `Reth`, ...) over borrowed bytes,
//! plain field structs (`BthFields`, ...) that write them back, and `BthMut` for
//! in-place BTH updates. Everything is big-endian on the wire.
//!
//! Views wrap fixed-size arrays, so every accessor indexes with constants that
//! the compiler checks; constructors return `None` when the buffer is too short.

use super::opcode::{
    AETH_BYTES, ATMACK_BYTES, ATMETH_BYTES, BTH_BYTES, DETH_BYTES, FETH_BYTES, IETH_BYTES,
    IMMDT_BYTES, RDETH_BYTES, RETH_BYTES,
};

/// Mask of 24-bit fields (QPN, PSN, MSN, EEN).
pub const MASK_24: u32 = 0x00ff_ffff;
/// The only transport header version defined.
pub const BTH_TVER: u8 = 0;
/// Default (full membership) partition key.
pub const BTH_DEF_PKEY: u16 = 0xffff;
/// Destination QPN used for multicast.
pub const MULTICAST_QPN: u32 = 0x00ff_ffff;
/// Q_Key of the GSI QP (QP1).
pub const GSI_QKEY: u32 = 0x8001_0000;

const fn be24(b0: u8, b1: u8, b2: u8) -> u32 {
    u32::from_be_bytes([0, b0, b1, b2])
}

const fn be64(b: [u8; 8]) -> u64 {
    u64::from_be_bytes(b)
}

/// Returns the first `N` bytes of `buf` as an array.
fn head<const N: usize>(buf: &[u8]) -> Option<&[u8; N]> {
    buf.first_chunk::<N>()
}

/// Copies `src` into `out` at byte `at`. Sizes and offsets are constants, so
/// this compiles to plain stores: every packet's headers are written this way.
/// A field past the end is a bug in the caller, caught by debug builds (the
/// host tests, KUnit in the test kernel).
#[inline(always)]
fn write_at<const N: usize, const M: usize>(out: &mut [u8; N], at: usize, src: [u8; M]) {
    debug_assert!(at + M <= N, "header field past the end");
    if let Some(dst) = out.get_mut(at..at + M) {
        dst.copy_from_slice(&src);
    }
}

// ---------------------------------------------------------------------------
// BTH
// ---------------------------------------------------------------------------

/// Read-only view of a Base Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bth<'a>(&'a [u8; BTH_BYTES]);

/// All BTH fields, including the reserved ones, so that writing them back is
/// byte-exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct BthFields {
    /// Opcode.
    pub opcode: u8,
    /// Solicited event.
    pub se: bool,
    /// Migration request (M).
    pub mig: bool,
    /// Pad count (0..=3).
    pub pad: u8,
    /// Transport header version (4 bits, must be 0).
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// Forward explicit congestion notification (byte 4 bit 7, as rxe).
    pub fecn: bool,
    /// Backward explicit congestion notification (byte 4 bit 6, as rxe).
    pub becn: bool,
    /// Reserved low 6 bits of byte 4.
    pub resv6a: u8,
    /// Destination QP number (24 bits).
    pub dest_qpn: u32,
    /// Acknowledge request.
    pub ack_req: bool,
    /// Reserved 7 bits next to AckReq.
    pub resv7: u8,
    /// Packet sequence number (24 bits).
    pub psn: u32,
}

impl<'a> Bth<'a> {
    /// View of the first 12 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// The raw header bytes.
    pub fn bytes(&self) -> &'a [u8; BTH_BYTES] {
        self.0
    }

    /// Opcode.
    pub fn opcode(&self) -> u8 {
        self.0[0]
    }

    /// Solicited event bit.
    pub fn se(&self) -> bool {
        self.0[1] & 0x80 != 0
    }

    /// Migration request bit.
    pub fn mig(&self) -> bool {
        self.0[1] & 0x40 != 0
    }

    /// Pad count.
    pub fn pad(&self) -> u8 {
        (self.0[1] >> 4) & 0x3
    }

    /// Transport header version.
    pub fn tver(&self) -> u8 {
        self.0[1] & 0x0f
    }

    /// Partition key.
    pub fn pkey(&self) -> u16 {
        u16::from_be_bytes([self.0[2], self.0[3]])
    }

    /// FECN bit.
    pub fn fecn(&self) -> bool {
        self.0[4] & 0x80 != 0
    }

    /// BECN bit.
    pub fn becn(&self) -> bool {
        self.0[4] & 0x40 != 0
    }

    /// Reserved low 6 bits of byte 4.
    pub fn resv6a(&self) -> u8 {
        self.0[4] & 0x3f
    }

    /// Whole byte 4 (FECN, BECN, resv6a); the ICRC treats it as all ones.
    pub fn resv8a(&self) -> u8 {
        self.0[4]
    }

    /// Destination QP number.
    pub fn dest_qpn(&self) -> u32 {
        be24(self.0[5], self.0[6], self.0[7])
    }

    /// Acknowledge request bit.
    pub fn ack_req(&self) -> bool {
        self.0[8] & 0x80 != 0
    }

    /// Reserved 7 bits next to AckReq.
    pub fn resv7(&self) -> u8 {
        self.0[8] & 0x7f
    }

    /// Packet sequence number.
    pub fn psn(&self) -> u32 {
        be24(self.0[9], self.0[10], self.0[11])
    }

    /// All fields.
    pub fn fields(&self) -> BthFields {
        BthFields {
            opcode: self.opcode(),
            se: self.se(),
            mig: self.mig(),
            pad: self.pad(),
            tver: self.tver(),
            pkey: self.pkey(),
            fecn: self.fecn(),
            becn: self.becn(),
            resv6a: self.resv6a(),
            dest_qpn: self.dest_qpn(),
            ack_req: self.ack_req(),
            resv7: self.resv7(),
            psn: self.psn(),
        }
    }
}

impl BthFields {
    /// Encodes the header; out-of-range values are truncated to their field width.
    pub fn write(&self, out: &mut [u8; BTH_BYTES]) {
        let flags = (u8::from(self.se) << 7)
            | (u8::from(self.mig) << 6)
            | ((self.pad & 0x3) << 4)
            | (self.tver & 0x0f);
        let resv8a = (u8::from(self.fecn) << 7) | (u8::from(self.becn) << 6) | (self.resv6a & 0x3f);
        let ar = (u8::from(self.ack_req) << 7) | (self.resv7 & 0x7f);
        let pkey = self.pkey.to_be_bytes();
        let qpn = ((u32::from(resv8a) << 24) | (self.dest_qpn & MASK_24)).to_be_bytes();
        let apsn = ((u32::from(ar) << 24) | (self.psn & MASK_24)).to_be_bytes();
        write_at(out, 0, [self.opcode, flags]);
        write_at(out, 2, pkey);
        write_at(out, 4, qpn);
        write_at(out, 8, apsn);
    }
}

/// Mutable view of a BTH for in-place updates (e.g. PSN on retransmission).
#[derive(Debug, PartialEq, Eq)]
pub struct BthMut<'a>(&'a mut [u8; BTH_BYTES]);

impl<'a> BthMut<'a> {
    /// Mutable view of the first 12 bytes of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Option<Self> {
        buf.first_chunk_mut::<BTH_BYTES>().map(Self)
    }

    /// Read-only view of the same bytes.
    pub fn as_view(&self) -> Bth<'_> {
        Bth(self.0)
    }

    /// Rewrites all fields.
    pub fn set_fields(&mut self, f: &BthFields) {
        f.write(self.0);
    }

    /// Sets the opcode.
    pub fn set_opcode(&mut self, opcode: u8) {
        self.0[0] = opcode;
    }

    /// Sets or clears the solicited event bit.
    pub fn set_se(&mut self, se: bool) {
        self.0[1] = (self.0[1] & !0x80) | (u8::from(se) << 7);
    }

    /// Sets or clears the migration request bit.
    pub fn set_mig(&mut self, mig: bool) {
        self.0[1] = (self.0[1] & !0x40) | (u8::from(mig) << 6);
    }

    /// Sets the pad count (low 2 bits of `pad`).
    pub fn set_pad(&mut self, pad: u8) {
        self.0[1] = (self.0[1] & !0x30) | ((pad & 0x3) << 4);
    }

    /// Sets the partition key.
    pub fn set_pkey(&mut self, pkey: u16) {
        let [a, b] = pkey.to_be_bytes();
        self.0[2] = a;
        self.0[3] = b;
    }

    /// Sets or clears FECN.
    pub fn set_fecn(&mut self, fecn: bool) {
        self.0[4] = (self.0[4] & !0x80) | (u8::from(fecn) << 7);
    }

    /// Sets or clears BECN.
    pub fn set_becn(&mut self, becn: bool) {
        self.0[4] = (self.0[4] & !0x40) | (u8::from(becn) << 6);
    }

    /// Sets the destination QPN (low 24 bits).
    pub fn set_dest_qpn(&mut self, qpn: u32) {
        let [_, a, b, c] = qpn.to_be_bytes();
        self.0[5] = a;
        self.0[6] = b;
        self.0[7] = c;
    }

    /// Sets or clears AckReq.
    pub fn set_ack_req(&mut self, ack_req: bool) {
        self.0[8] = (self.0[8] & !0x80) | (u8::from(ack_req) << 7);
    }

    /// Sets the PSN (low 24 bits).
    pub fn set_psn(&mut self, psn: u32) {
        let [_, a, b, c] = psn.to_be_bytes();
        self.0[9] = a;
        self.0[10] = b;
        self.0[11] = c;
    }
}

// ---------------------------------------------------------------------------
// Extension headers
// ---------------------------------------------------------------------------

/// View of an RDMA Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reth<'a>(&'a [u8; RETH_BYTES]);

/// RETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct RethFields {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// DMA length of the whole message.
    pub len: u32,
}

impl<'a> Reth<'a> {
    /// View of the first 16 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Remote virtual address.
    pub fn va(&self) -> u64 {
        let b = self.0;
        be64([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// Remote key.
    pub fn rkey(&self) -> u32 {
        u32::from_be_bytes([self.0[8], self.0[9], self.0[10], self.0[11]])
    }

    /// DMA length.
    pub fn len(&self) -> u32 {
        u32::from_be_bytes([self.0[12], self.0[13], self.0[14], self.0[15]])
    }

    /// True if the DMA length is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All fields.
    pub fn fields(&self) -> RethFields {
        RethFields {
            va: self.va(),
            rkey: self.rkey(),
            len: self.len(),
        }
    }
}

impl RethFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; RETH_BYTES]) {
        write_at(out, 0, self.va.to_be_bytes());
        write_at(out, 8, self.rkey.to_be_bytes());
        write_at(out, 12, self.len.to_be_bytes());
    }
}

/// AETH syndrome type bits (rxe `AETH_TYPE_MASK`).
pub const AETH_TYPE_MASK: u8 = 0xe0;
/// Syndrome of a positive ACK with no end-to-end credits (rxe `AETH_ACK_UNLIMITED`).
pub const AETH_ACK_UNLIMITED: u8 = 0x1f;
/// Syndrome of an RNR NAK with timer code 0.
pub const AETH_RNR_NAK: u8 = 0x20;
/// Syndrome of a PSN sequence error NAK.
pub const AETH_NAK_PSN_SEQ_ERROR: u8 = 0x60;
/// Syndrome of an invalid request NAK.
pub const AETH_NAK_INVALID_REQ: u8 = 0x61;
/// Syndrome of a remote access error NAK.
pub const AETH_NAK_REM_ACC_ERR: u8 = 0x62;
/// Syndrome of a remote operational error NAK.
pub const AETH_NAK_REM_OP_ERR: u8 = 0x63;
/// Syndrome of an invalid RD request NAK.
pub const AETH_NAK_INVALID_RD_REQ: u8 = 0x64;

/// NAK codes (syndrome bits 4..0 when the type is NAK).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NakCode {
    /// PSN sequence error (0).
    PsnSeqError,
    /// Invalid request (1).
    InvalidRequest,
    /// Remote access error (2).
    RemoteAccessError,
    /// Remote operational error (3).
    RemoteOperationalError,
    /// Invalid RD request (4).
    InvalidRdRequest,
    /// Reserved code 5..=31 (kept for round trips).
    Reserved(u8),
}

/// Decoded AETH syndrome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// Positive ACK with a credit count code (31 = no flow control, see `psn::credit_count`).
    Ack {
        /// 5-bit credit count code.
        credit: u8,
    },
    /// Receiver-not-ready NAK with a 5-bit timer code (see `psn::rnr_nak_usec`).
    RnrNak {
        /// 5-bit RNR timer code.
        timer: u8,
    },
    /// NAK.
    Nak(NakCode),
    /// Reserved syndrome type (type bits 0x40, or bit 7 set); carries the raw byte.
    Reserved(u8),
}

impl Syndrome {
    /// Decodes a syndrome byte the way rxe does (type = bits 7..5).
    pub fn decode(syn: u8) -> Self {
        let low = syn & 0x1f;
        match syn & AETH_TYPE_MASK {
            0x00 => Syndrome::Ack { credit: low },
            0x20 => Syndrome::RnrNak { timer: low },
            0x60 => Syndrome::Nak(match low {
                0 => NakCode::PsnSeqError,
                1 => NakCode::InvalidRequest,
                2 => NakCode::RemoteAccessError,
                3 => NakCode::RemoteOperationalError,
                4 => NakCode::InvalidRdRequest,
                n => NakCode::Reserved(n),
            }),
            _ => Syndrome::Reserved(syn),
        }
    }

    /// Encodes back to the syndrome byte (5-bit values are truncated).
    pub fn encode(self) -> u8 {
        match self {
            Syndrome::Ack { credit } => credit & 0x1f,
            Syndrome::RnrNak { timer } => 0x20 | (timer & 0x1f),
            Syndrome::Nak(code) => {
                0x60 | match code {
                    NakCode::PsnSeqError => 0,
                    NakCode::InvalidRequest => 1,
                    NakCode::RemoteAccessError => 2,
                    NakCode::RemoteOperationalError => 3,
                    NakCode::InvalidRdRequest => 4,
                    NakCode::Reserved(n) => n & 0x1f,
                }
            }
            Syndrome::Reserved(raw) => raw,
        }
    }
}

/// View of an ACK Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aeth<'a>(&'a [u8; AETH_BYTES]);

/// AETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct AethFields {
    /// Raw syndrome byte.
    pub syndrome: u8,
    /// Message sequence number (24 bits).
    pub msn: u32,
}

impl<'a> Aeth<'a> {
    /// View of the first 4 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Raw syndrome byte.
    pub fn syndrome(&self) -> u8 {
        self.0[0]
    }

    /// Decoded syndrome.
    pub fn decode(&self) -> Syndrome {
        Syndrome::decode(self.syndrome())
    }

    /// Message sequence number.
    pub fn msn(&self) -> u32 {
        be24(self.0[1], self.0[2], self.0[3])
    }

    /// All fields.
    pub fn fields(&self) -> AethFields {
        AethFields {
            syndrome: self.syndrome(),
            msn: self.msn(),
        }
    }
}

impl AethFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; AETH_BYTES]) {
        *out = ((u32::from(self.syndrome) << 24) | (self.msn & MASK_24)).to_be_bytes();
    }
}

/// View of an Atomic Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicEth<'a>(&'a [u8; ATMETH_BYTES]);

/// AtomicETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct AtomicEthFields {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// Swap (compare-swap) or add (fetch-add) data.
    pub swap_add: u64,
    /// Compare data.
    pub compare: u64,
}

impl<'a> AtomicEth<'a> {
    /// View of the first 28 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// All fields.
    pub fn fields(&self) -> AtomicEthFields {
        let b = self.0;
        AtomicEthFields {
            va: be64([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            rkey: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
            swap_add: be64([b[12], b[13], b[14], b[15], b[16], b[17], b[18], b[19]]),
            compare: be64([b[20], b[21], b[22], b[23], b[24], b[25], b[26], b[27]]),
        }
    }

    /// Remote virtual address.
    pub fn va(&self) -> u64 {
        self.fields().va
    }

    /// Remote key.
    pub fn rkey(&self) -> u32 {
        self.fields().rkey
    }

    /// Swap or add data.
    pub fn swap_add(&self) -> u64 {
        self.fields().swap_add
    }

    /// Compare data.
    pub fn compare(&self) -> u64 {
        self.fields().compare
    }
}

impl AtomicEthFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; ATMETH_BYTES]) {
        write_at(out, 0, self.va.to_be_bytes());
        write_at(out, 8, self.rkey.to_be_bytes());
        write_at(out, 12, self.swap_add.to_be_bytes());
        write_at(out, 20, self.compare.to_be_bytes());
    }
}

/// View of an Atomic ACK Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicAckEth<'a>(&'a [u8; ATMACK_BYTES]);

/// AtomicAckETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct AtomicAckEthFields {
    /// Original remote data.
    pub orig: u64,
}

impl<'a> AtomicAckEth<'a> {
    /// View of the first 8 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Original remote data.
    pub fn orig(&self) -> u64 {
        be64(*self.0)
    }

    /// All fields.
    pub fn fields(&self) -> AtomicAckEthFields {
        AtomicAckEthFields { orig: self.orig() }
    }
}

impl AtomicAckEthFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; ATMACK_BYTES]) {
        *out = self.orig.to_be_bytes();
    }
}

/// View of a Datagram Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deth<'a>(&'a [u8; DETH_BYTES]);

/// DETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct DethFields {
    /// Queue key.
    pub qkey: u32,
    /// Reserved byte before the source QPN.
    pub resv8: u8,
    /// Source QP number (24 bits).
    pub src_qpn: u32,
}

impl<'a> Deth<'a> {
    /// View of the first 8 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Queue key.
    pub fn qkey(&self) -> u32 {
        u32::from_be_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    /// Source QP number.
    pub fn src_qpn(&self) -> u32 {
        be24(self.0[5], self.0[6], self.0[7])
    }

    /// All fields.
    pub fn fields(&self) -> DethFields {
        DethFields {
            qkey: self.qkey(),
            resv8: self.0[4],
            src_qpn: self.src_qpn(),
        }
    }
}

impl DethFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; DETH_BYTES]) {
        let sqp = (u32::from(self.resv8) << 24) | (self.src_qpn & MASK_24);
        write_at(out, 0, self.qkey.to_be_bytes());
        write_at(out, 4, sqp.to_be_bytes());
    }
}

/// View of an Immediate Data header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImmDt<'a>(&'a [u8; IMMDT_BYTES]);

/// ImmDt fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct ImmDtFields {
    /// Immediate data as a big-endian value (rxe passes it on as `__be32`).
    pub imm: u32,
}

impl<'a> ImmDt<'a> {
    /// View of the first 4 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Immediate data decoded big-endian.
    pub fn imm(&self) -> u32 {
        u32::from_be_bytes(*self.0)
    }

    /// Raw immediate bytes as on the wire.
    pub fn raw(&self) -> [u8; IMMDT_BYTES] {
        *self.0
    }

    /// All fields.
    pub fn fields(&self) -> ImmDtFields {
        ImmDtFields { imm: self.imm() }
    }
}

impl ImmDtFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; IMMDT_BYTES]) {
        *out = self.imm.to_be_bytes();
    }
}

/// View of an Invalidate Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ieth<'a>(&'a [u8; IETH_BYTES]);

/// IETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct IethFields {
    /// Remote key to invalidate.
    pub rkey: u32,
}

impl<'a> Ieth<'a> {
    /// View of the first 4 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Remote key to invalidate.
    pub fn rkey(&self) -> u32 {
        u32::from_be_bytes(*self.0)
    }

    /// All fields.
    pub fn fields(&self) -> IethFields {
        IethFields { rkey: self.rkey() }
    }
}

impl IethFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; IETH_BYTES]) {
        *out = self.rkey.to_be_bytes();
    }
}

/// View of a Reliable Datagram Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rdeth<'a>(&'a [u8; RDETH_BYTES]);

/// RDETH fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct RdethFields {
    /// Reserved byte.
    pub resv8: u8,
    /// End-to-end context number (24 bits).
    pub een: u32,
}

impl<'a> Rdeth<'a> {
    /// View of the first 4 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// End-to-end context number.
    pub fn een(&self) -> u32 {
        be24(self.0[1], self.0[2], self.0[3])
    }

    /// All fields.
    pub fn fields(&self) -> RdethFields {
        RdethFields {
            resv8: self.0[0],
            een: self.een(),
        }
    }
}

impl RdethFields {
    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; RDETH_BYTES]) {
        *out = ((u32::from(self.resv8) << 24) | (self.een & MASK_24)).to_be_bytes();
    }
}

/// View of a FLUSH Extended Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feth<'a>(&'a [u8; FETH_BYTES]);

/// FETH fields, kept as the raw word so reserved bits survive a round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct FethFields {
    /// The whole big-endian word: bits 3..0 placement type, bits 5..4 selectivity.
    pub bits: u32,
}

impl<'a> Feth<'a> {
    /// View of the first 4 bytes of `buf`.
    pub fn new(buf: &'a [u8]) -> Option<Self> {
        head(buf).map(Self)
    }

    /// Placement type (bits 3..0).
    pub fn plt(&self) -> u32 {
        self.fields().bits & 0x0f
    }

    /// Selectivity level (bits 5..4).
    pub fn sel(&self) -> u32 {
        (self.fields().bits >> 4) & 0x3
    }

    /// All fields.
    pub fn fields(&self) -> FethFields {
        FethFields {
            bits: u32::from_be_bytes(*self.0),
        }
    }
}

impl FethFields {
    /// FETH for a placement type and selectivity level, as rxe's `feth_init`.
    pub fn new(plt: u8, sel: u8) -> Self {
        FethFields {
            bits: (u32::from(sel & 0x3) << 4) | u32::from(plt & 0x0f),
        }
    }

    /// Encodes the header.
    pub fn write(&self, out: &mut [u8; FETH_BYTES]) {
        *out = self.bits.to_be_bytes();
    }
}
