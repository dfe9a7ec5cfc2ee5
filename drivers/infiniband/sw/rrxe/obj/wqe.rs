// SPDX-License-Identifier: GPL-2.0

//! Work queue entries: the rdma_user_rxe.h layouts user space writes into the rings,
//! and the validated, kernel-private forms the driver works from.
//!
//! A ring slot is copied out once ([`crate::obj::ring::Ring::peek_posted`]) and parsed
//! here from that copy. Nothing is read from the ring again, and none of rxe's
//! in-ring progress fields (state, cur_sge, resid, sge_offset, PSNs) is trusted or even
//! read: the driver rebuilds them.

use crate::abi::{
    qp_type as qpt, send_flags as flag, wr_opcode as op, MAX_MSG, RECV_WQE_HDR, SEND_WQE_HDR,
    SGE_SIZE,
};
pub(crate) use crate::obj::mw::BindArgs;
use core::ops::{Deref, DerefMut};
use kernel::{prelude::*, rdma::wr::Sge, sync::Arc};

/// Bytes of a receive WQE with `max_sge` SGEs: what a ring slot must hold and a
/// parse reads (the ring rounds its slots up).
pub(crate) fn recv_slot_len(max_sge: u32) -> usize {
    RECV_WQE_HDR + max_sge as usize * SGE_SIZE
}

/// Whether `opcode` is a SEND (with or without immediate data or invalidation).
pub(crate) fn is_send(opcode: u32) -> bool {
    matches!(opcode, op::SEND | op::SEND_WITH_IMM | op::SEND_WITH_INV)
}

/// Whether the QP type accepts the opcode from user space (what rdma-core's rxe
/// provider itself allows, minus what the data path does not implement).
pub(crate) fn user_opcode_ok(qp_type: u32, opcode: u32) -> bool {
    match qp_type {
        qpt::RC => matches!(opcode, 0..=op::SEND_WITH_INV | op::FLUSH | op::ATOMIC_WRITE),
        qpt::UC => matches!(
            opcode,
            0..=3 | op::LOCAL_INV | op::BIND_MW | op::SEND_WITH_INV
        ),
        qpt::UD | qpt::GSI => matches!(opcode, op::SEND | op::SEND_WITH_IMM),
        _ => false,
    }
}

/// Whether the QP type accepts the opcode from a kernel consumer. FLUSH and
/// ATOMIC WRITE are not offered: the kernel's work request carries no arguments
/// for them here.
pub(crate) fn kernel_opcode_ok(qp_type: u32, opcode: u32) -> bool {
    (user_opcode_ok(qp_type, opcode) && !matches!(opcode, op::FLUSH | op::ATOMIC_WRITE))
        || (opcode == op::REG_MR && qp_type != qpt::UD && qp_type != qpt::GSI)
}

/// A datagram destination, checked against the AH pool: a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UdDest {
    pub(crate) ah_num: u32,
    pub(crate) remote_qpn: u32,
    pub(crate) remote_qkey: u32,
    pkey_index: u16,
}

/// SGEs a WQE keeps in place; more go to the heap.
const SGES_IN_PLACE: usize = 4;
/// Inline bytes a send WQE keeps in place; more go to the heap.
const INLINE_IN_PLACE: usize = 64;

/// A short list kept in place, a longer one on the heap; part of a WQE. Most WQEs have one or two
/// SGEs and a few bytes of inline data; an allocation for them on every WQE (parsed
/// under the QP lock, so `GFP_ATOMIC`) cost more than the rest of the parse.
pub(crate) enum Short<T: Copy + Default, const N: usize> {
    InPlace { len: usize, items: [T; N] },
    Heap(KVec<T>),
}

impl<T: Copy + Default, const N: usize> Short<T, N> {
    pub(crate) fn empty() -> Self {
        Self::InPlace {
            len: 0,
            items: [T::default(); N],
        }
    }

    /// The list of `item(0)..item(len)`, on the heap if `len` is over `N`.
    fn from_fn(len: usize, item: impl FnMut(usize) -> T) -> Result<Self, Bad> {
        let mut s = Self::empty();
        s.set_from_fn(len, item)?;
        Ok(s)
    }

    /// A copy of `items`.
    fn copy_of(items: &[T]) -> Result<Self, Bad> {
        Self::from_fn(items.len(), |i| items[i])
    }

    /// Makes this the list of `item(0)..item(len)`, written in place when it
    /// is in place and fits: a list built elsewhere and moved here is a
    /// memcpy, which a fetch per WQE should not pay.
    fn set_from_fn(&mut self, len: usize, mut item: impl FnMut(usize) -> T) -> Result<(), Bad> {
        if len <= N {
            if !matches!(self, Self::InPlace { .. }) {
                *self = Self::empty();
            }
            if let Self::InPlace { len: l, items } = self {
                for (i, it) in items[..len].iter_mut().enumerate() {
                    *it = item(i);
                }
                *l = len;
            }
            return Ok(());
        }
        let mut v = KVec::with_capacity(len, GFP_ATOMIC).map_err(|_| Bad::NoMem)?;
        for i in 0..len {
            v.push(item(i), GFP_ATOMIC).map_err(|_| Bad::NoMem)?;
        }
        *self = Self::Heap(v);
        Ok(())
    }
}

impl<T: Copy + Default, const N: usize> Deref for Short<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Self::InPlace { len, items } => &items[..*len],
            Self::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for Short<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Self::InPlace { len, items } => &mut items[..*len],
            Self::Heap(v) => v,
        }
    }
}

/// A WQE's scatter/gather list.
pub(crate) type SgeList = Short<Sge, SGES_IN_PLACE>;

/// A fast-registration request (kernel consumers only). It holds the MR, so the
/// request registers the MR it was posted for even if that is deregistered and its
/// index reused before the request runs.
pub(crate) struct RegArgs {
    pub(crate) mr: Arc<crate::obj::mr::RrxeMr>,
    /// The MR's IOVA when the request was posted.
    pub(crate) iova: u64,
    pub(crate) key: u32,
    pub(crate) access: u32,
}

/// A validated send WQE in kernel memory: an entry of its QP's pending list,
/// under the QP lock, from its fetch (or post) to its completion. The requester
/// and completer keep their progress in it.
pub(crate) struct SendWqe {
    pub(crate) wr_id: u64,
    pub(crate) opcode: u32,
    pub(crate) flags: u32,
    pub(crate) ex: u32,
    pub(crate) remote_addr: u64,
    pub(crate) rkey: u32,
    pub(crate) compare_add: u64,
    pub(crate) swap: u64,
    /// ATOMIC WRITE: the 8 bytes to write, as user space laid them out.
    pub(crate) atomic_wr: [u8; 8],
    /// FLUSH: the placement type and selectivity level of the FETH.
    pub(crate) flush: (u8, u8),
    pub(crate) ud: Option<UdDest>,
    pub(crate) reg: Option<RegArgs>,
    pub(crate) bind: Option<BindArgs>,
    pub(crate) sgl: SgeList,
    pub(crate) inline_data: Short<u8, INLINE_IN_PLACE>,
    /// Total payload length, rebuilt from the SGEs or inline data.
    pub(crate) length: u32,
    /// PSNs of the first and last packet, once sent.
    pub(crate) first_psn: u32,
    pub(crate) last_psn: u32,
    /// The first packet was sent (`first_psn` is set).
    pub(crate) started: bool,
    /// Every packet was sent at least once (`last_psn` is set). Stays set when a
    /// rewind sends some of them again, so an ACK can still complete the WQE.
    pub(crate) sent_all: bool,
    /// A READ or atomic got its whole answer (set with the last response, under
    /// the QP lock); it completes once the lock is taken again. The requester
    /// never asks for it again, even from a rewind in between.
    pub(crate) answered: bool,
}

impl SendWqe {
    /// Whether it is answered by a response (READ responses, an atomic ACK, the
    /// READ response of a FLUSH or ATOMIC WRITE), not by an ACK.
    pub(crate) fn needs_response(&self) -> bool {
        matches!(
            self.opcode,
            op::RDMA_READ
                | op::ATOMIC_CMP_AND_SWP
                | op::ATOMIC_FETCH_AND_ADD
                | op::FLUSH
                | op::ATOMIC_WRITE
        )
    }

    /// A WQE with its common fields; the opcode-specific ones are filled in after.
    fn new(wr_id: u64, opcode: u32, flags: u32, ex: u32) -> Self {
        Self {
            wr_id,
            opcode,
            flags,
            ex,
            remote_addr: 0,
            rkey: 0,
            compare_add: 0,
            swap: 0,
            atomic_wr: [0; 8],
            flush: (0, 0),
            ud: None,
            reg: None,
            bind: None,
            sgl: Short::empty(),
            inline_data: Short::empty(),
            length: 0,
            first_psn: 0,
            last_psn: 0,
            started: false,
            sent_all: false,
            answered: false,
        }
    }
}

/// A send WQE waiting for the requester, or the marker of a refused one: an
/// entry of the QP's pending list, under the QP lock.
#[allow(
    clippy::large_enum_variant,
    reason = "entries live in place in the pending list; a box would be an allocation per WQE"
)]
pub(crate) enum Pending {
    Wqe(SendWqe),
    Bad {
        wr_id: u64,
        why: Bad,
        /// A SEND: its error completion counts in `rdma_sends`, as rdma_rxe's.
        send: bool,
    },
    /// A slot already taken from the front of a [`PendingList`].
    Taken,
}

impl Pending {
    /// A WQE whose packets were all sent at least once.
    pub(crate) fn sent_all(&self) -> bool {
        matches!(self, Pending::Wqe(w) if w.sent_all)
    }
}

/// Why a WQE was refused: a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bad {
    /// The opcode or flags are not valid for this QP.
    Opcode,
    /// Too many SGEs, too much inline data or a message over `max_msg_sz`.
    Length,
    /// A datagram WQE without a valid address handle of the QP's PD.
    Address,
    /// An atomic with a misaligned address or a payload other than 8 bytes.
    Atomic,
    /// No memory to hold the copy.
    NoMem,
    /// The data could not be read from the SGEs (bad lkey, range or access).
    Protection,
    /// A memory window bind broke a rule (`IB_WC_MW_BIND_ERR`).
    Bind,
    /// A LOCAL_INV named nothing it may invalidate.
    Invalidate,
    /// A REG_MR broke a rule (the MR is not a free fast MR of the QP's PD, or the
    /// key changes more than the key byte).
    Register,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut v = [0u8; 4];
    v.copy_from_slice(&b[off..off + 4]);
    u32::from_ne_bytes(v)
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[off..off + 8]);
    u64::from_ne_bytes(v)
}

/// Limits a send WQE is checked against: the QP's actual capacities, fixed at
/// creation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SqLimits {
    pub(in crate::obj) qp_type: u32,
    pub(in crate::obj) max_sge: u32,
    pub(in crate::obj) max_inline: u32,
}

/// The `i`th SGE of a ring slot whose list starts at `off`.
fn sge_at(slot: &[u8], off: usize, i: usize) -> Sge {
    let o = off + i * SGE_SIZE;
    Sge {
        addr: u64_at(slot, o),
        length: u32_at(slot, o + 8),
        lkey: u32_at(slot, o + 12),
    }
}

fn sgl_from(slot: &[u8], off: usize, n: usize) -> Result<SgeList, Bad> {
    Short::from_fn(n, |i| sge_at(slot, off, i))
}

fn total_len(sgl: &[Sge]) -> Result<u32, Bad> {
    let sum: u64 = sgl.iter().map(|s| u64::from(s.length)).sum();
    if sum > u64::from(MAX_MSG) {
        return Err(Bad::Length);
    }
    Ok(sum as u32)
}

/// Parses the copy `slot` of one user send-queue slot (`struct rxe_send_wqe`)
/// into `out`, the send queue's entry, which it overwrites with the WQE or,
/// refused, with its wr_id (for the error completion) and the reason. The WQE is
/// built where it stays: it is about 300 bytes, and every move of it is a
/// memcpy.
pub(crate) fn parse_user_send_into(slot: &[u8], lim: &SqLimits, out: &mut Pending) {
    let wr_id = u64_at(slot, 0);
    let opcode = u32_at(slot, 12);
    let flags = u32_at(slot, 16);
    if !user_opcode_ok(lim.qp_type, opcode) || flags & !flag::ALL != 0 {
        *out = Pending::Bad {
            wr_id,
            why: Bad::Opcode,
            send: is_send(opcode),
        };
        return;
    }
    *out = Pending::Wqe(SendWqe::new(wr_id, opcode, flags, u32_at(slot, 20)));
    if let Pending::Wqe(w) = out {
        if let Err(why) = fill_user_send(slot, lim, w) {
            let send = is_send(w.opcode);
            *out = Pending::Bad { wr_id, why, send };
        }
    }
}

/// The opcode-specific fields and the payload of a user WQE whose common fields
/// `w` has.
fn fill_user_send(slot: &[u8], lim: &SqLimits, w: &mut SendWqe) -> Result<(), Bad> {
    let opcode = w.opcode;
    let flags = w.flags;
    match opcode {
        op::RDMA_WRITE | op::RDMA_WRITE_WITH_IMM | op::RDMA_READ => {
            w.remote_addr = u64_at(slot, 24);
            w.rkey = u32_at(slot, 32);
        }
        op::ATOMIC_CMP_AND_SWP | op::ATOMIC_FETCH_AND_ADD => {
            w.remote_addr = u64_at(slot, 24);
            w.compare_add = u64_at(slot, 32);
            w.swap = u64_at(slot, 40);
            w.rkey = u32_at(slot, 48);
        }
        // `wr.rdma`, and the value in `dma.atomic_wr` (208); always 8 bytes.
        op::ATOMIC_WRITE => {
            w.remote_addr = u64_at(slot, 24);
            w.rkey = u32_at(slot, 32);
            w.atomic_wr = *slot
                .get(SEND_WQE_HDR..)
                .and_then(|b| b.first_chunk::<8>())
                .ok_or(Bad::Length)?;
            w.length = 8;
        }
        // `wr.flush` (remote_addr, length, rkey, type, level); the provider puts
        // the length in `dma.length` (184).
        op::FLUSH => {
            w.remote_addr = u64_at(slot, 24);
            w.rkey = u32_at(slot, 36);
            w.flush = (slot[40], slot[41]);
            w.length = u32_at(slot, 184);
        }
        op::BIND_MW => {
            w.bind = Some(BindArgs {
                addr: u64_at(slot, 24),
                length: u64_at(slot, 32),
                mr_lkey: u32_at(slot, 40),
                mw_rkey: u32_at(slot, 44),
                rkey: u32_at(slot, 48),
                access: u32_at(slot, 52),
            });
        }
        op::SEND | op::SEND_WITH_IMM if matches!(lim.qp_type, qpt::UD | qpt::GSI) => {
            // Only the AH number is used; the AV copy in the ring (wr.ud.av) would let
            // user space choose its own source address, so it is never read.
            w.ud = Some(UdDest {
                remote_qpn: u32_at(slot, 24) & 0x00ff_ffff,
                remote_qkey: u32_at(slot, 28),
                pkey_index: u32_at(slot, 32) as u16,
                ah_num: u32_at(slot, 36),
            });
            if u32_at(slot, 36) == 0 {
                return Err(Bad::Address);
            }
        }
        _ => {}
    }
    // The dma header (offset 184): only num_sge (196) and, for inline data, length
    // (184) are inputs; resid, cur_sge and sge_offset are rebuilt.
    let num_sge = u32_at(slot, 196);
    // Local operations, FLUSH and ATOMIC WRITE gather nothing.
    let local = matches!(
        opcode,
        op::LOCAL_INV | op::BIND_MW | op::FLUSH | op::ATOMIC_WRITE
    );
    if flags & flag::INLINE != 0 && !local && !matches!(opcode, op::RDMA_READ | 5 | 6) {
        let len = u32_at(slot, 184);
        if len > lim.max_inline || SEND_WQE_HDR + len as usize > slot.len() {
            return Err(Bad::Length);
        }
        let data = &slot[SEND_WQE_HDR..SEND_WQE_HDR + len as usize];
        w.inline_data.set_from_fn(data.len(), |i| data[i])?;
        w.length = len;
    } else if !local {
        if num_sge > lim.max_sge || SEND_WQE_HDR + num_sge as usize * SGE_SIZE > slot.len() {
            return Err(Bad::Length);
        }
        w.sgl
            .set_from_fn(num_sge as usize, |i| sge_at(slot, SEND_WQE_HDR, i))?;
        w.length = total_len(&w.sgl)?;
    }
    check_atomic(w)
}

fn check_atomic(w: &SendWqe) -> Result<(), Bad> {
    if matches!(w.opcode, op::ATOMIC_CMP_AND_SWP | op::ATOMIC_FETCH_AND_ADD)
        && (w.length != 8 || w.remote_addr & 7 != 0 || w.flags & flag::INLINE != 0)
    {
        return Err(Bad::Atomic);
    }
    Ok(())
}

/// Builds a send WQE from a kernel consumer's work request.
pub(crate) fn from_kernel_send(
    wr: &kernel::rdma::wr::SendWr<'_, crate::obj::Rrxe>,
    lim: &SqLimits,
    pd_id: crate::obj::pd::PdId,
) -> Result<SendWqe, Bad> {
    use kernel::rdma::wr::SendWrArgs;
    let (opcode, flags) = (u32::from(wr.opcode), wr.send_flags.bits());
    if !kernel_opcode_ok(lim.qp_type, opcode) || flags & !flag::ALL != 0 {
        return Err(Bad::Opcode);
    }
    if wr.sgl.len() > lim.max_sge as usize {
        return Err(Bad::Length);
    }
    let mut w = SendWqe::new(wr.wr_id, opcode, flags, wr.ex);
    match wr.args {
        SendWrArgs::Rdma { remote_addr, rkey } => {
            w.remote_addr = remote_addr;
            w.rkey = rkey;
        }
        SendWrArgs::Atomic {
            remote_addr,
            compare_add,
            swap,
            rkey,
        } => {
            w.remote_addr = remote_addr;
            w.compare_add = compare_add;
            w.swap = swap;
            w.rkey = rkey;
        }
        SendWrArgs::Ud {
            ah,
            remote_qpn,
            remote_qkey,
            pkey_index,
        } => {
            // The AH is the consumer's own object: no lookup, just the PD check.
            if ah.data().pd_id != pd_id {
                return Err(Bad::Address);
            }
            w.ud = Some(UdDest {
                ah_num: ah.data().num,
                remote_qpn: remote_qpn & 0x00ff_ffff,
                remote_qkey,
                pkey_index,
            });
        }
        SendWrArgs::Reg {
            mr,
            iova,
            key,
            access,
        } => {
            w.reg = Some(RegArgs {
                mr: mr.data().clone(),
                iova,
                key,
                access: access.bits(),
            });
        }
        SendWrArgs::None => {
            if matches!(lim.qp_type, qpt::UD | qpt::GSI) {
                return Err(Bad::Address);
            }
        }
    }
    if w.opcode != op::REG_MR && w.opcode != op::LOCAL_INV {
        w.sgl = Short::copy_of(wr.sgl)?;
        w.length = total_len(&w.sgl)?;
        if w.flags & flag::INLINE != 0 {
            if w.length > lim.max_inline {
                return Err(Bad::Length);
            }
            w.inline_data = kernel_inline_data(wr.sgl, w.length as usize)?;
        }
    }
    check_atomic(&w)?;
    Ok(w)
}

/// The data of a kernel consumer's inline send: copied at post time, as the
/// consumer may reuse its buffers once `ib_post_send` returns (SMC-R's small
/// RDMA WRITEs). Its SGEs address kernel memory directly; their lkeys are not
/// used. `len` is their total, at most [`crate::params::MAX_INLINE_DATA`].
fn kernel_inline_data(sgl: &[Sge], len: usize) -> Result<Short<u8, INLINE_IN_PLACE>, Bad> {
    let mut out = Short::from_fn(len, |_| 0)?;
    let mut at = 0;
    for sge in sgl {
        let n = sge.length as usize;
        if n == 0 {
            // Its address may be anything, null too.
            continue;
        }
        let dst = out.get_mut(at..at + n).ok_or(Bad::Length)?;
        // SAFETY: `ib_post_send`'s contract for `IB_SEND_INLINE`: each SGE of a
        // kernel consumer's inline WR addresses `length` bytes of kernel
        // memory, valid for the duration of the post, which this is.
        unsafe { kernel::rdma::virt_dma::copy_from(sge.addr, dst) };
        at += n;
    }
    Ok(out)
}

/// The `struct rxe_recv_wqe` bytes a kernel consumer's receive WR is posted as, so the
/// receive side parses kernel and user WQEs the same way.
pub(crate) fn encode_recv(wr_id: u64, sgl: &[Sge], out: &mut [u8]) -> Result {
    if RECV_WQE_HDR + sgl.len() * SGE_SIZE > out.len() {
        return Err(EINVAL);
    }
    out.fill(0);
    out[0..8].copy_from_slice(&wr_id.to_ne_bytes());
    let len: u64 = sgl.iter().map(|s| u64::from(s.length)).sum();
    let len = u32::try_from(len).map_err(|_| EINVAL)?;
    out[16..20].copy_from_slice(&len.to_ne_bytes());
    out[20..24].copy_from_slice(&len.to_ne_bytes());
    out[28..32].copy_from_slice(&(sgl.len() as u32).to_ne_bytes());
    for (i, s) in sgl.iter().enumerate() {
        let o = RECV_WQE_HDR + i * SGE_SIZE;
        out[o..o + 8].copy_from_slice(&s.addr.to_ne_bytes());
        out[o + 8..o + 12].copy_from_slice(&s.length.to_ne_bytes());
        out[o + 12..o + 16].copy_from_slice(&s.lkey.to_ne_bytes());
    }
    Ok(())
}

/// A validated receive WQE in kernel memory, parsed from a copy of its ring
/// slot; it lives as long as the receive it is for, under the QP lock.
#[allow(dead_code, reason = "the fields are the responder's input (data path)")]
pub(crate) struct RecvWqe {
    wr_id: u64,
    pub(crate) sgl: SgeList,
    pub(crate) length: u32,
}

/// Parses the copy of one receive-queue slot (`struct rxe_recv_wqe`).
pub(crate) fn parse_recv(slot: &[u8], max_sge: u32) -> (u64, Result<RecvWqe, Bad>) {
    let wr_id = u64_at(slot, 0);
    let num_sge = u32_at(slot, 28);
    if num_sge > max_sge || RECV_WQE_HDR + num_sge as usize * SGE_SIZE > slot.len() {
        return (wr_id, Err(Bad::Length));
    }
    let r = sgl_from(slot, RECV_WQE_HDR, num_sge as usize).and_then(|sgl| {
        let length = total_len(&sgl)?;
        Ok(RecvWqe { wr_id, sgl, length })
    });
    (wr_id, r)
}

#[kernel::macros::kunit_tests(rrxe_wqe)]
mod tests {
    use super::*;

    /// [`parse_user_send_into`], by value, with the wr_id also on failure.
    fn parse_user_send(slot: &[u8], lim: &SqLimits) -> (u64, Result<SendWqe, Bad>) {
        let mut p = Pending::Taken;
        parse_user_send_into(slot, lim, &mut p);
        match p {
            Pending::Wqe(w) => (w.wr_id, Ok(w)),
            Pending::Bad { wr_id, why, .. } => (wr_id, Err(why)),
            // Never left by the parse; a wr_id no test uses, so it shows.
            Pending::Taken => (u64::MAX, Err(Bad::Opcode)),
        }
    }

    const RC: SqLimits = SqLimits {
        qp_type: qpt::RC,
        max_sge: 4,
        max_inline: 64,
    };

    fn slot(opcode: u32, flags: u32, num_sge: u32) -> [u8; 512] {
        let mut s = [0u8; 512];
        s[0..8].copy_from_slice(&0x1234u64.to_ne_bytes());
        s[12..16].copy_from_slice(&opcode.to_ne_bytes());
        s[16..20].copy_from_slice(&flags.to_ne_bytes());
        s[196..200].copy_from_slice(&num_sge.to_ne_bytes());
        s
    }

    #[test]
    fn good_send_is_rebuilt_from_sges() {
        let mut s = slot(op::SEND, flag::SIGNALED, 2);
        s[208 + 8..208 + 12].copy_from_slice(&100u32.to_ne_bytes());
        s[224 + 8..224 + 12].copy_from_slice(&28u32.to_ne_bytes());
        // Bogus in-ring progress fields are ignored.
        s[188..192].copy_from_slice(&u32::MAX.to_ne_bytes()); // resid
        s[192..196].copy_from_slice(&999u32.to_ne_bytes()); // cur_sge
        let (id, w) = parse_user_send(&s, &RC);
        let w = w.unwrap();
        assert_eq!((id, w.length, w.sgl.len()), (0x1234, 128, 2));
    }

    #[test]
    fn long_lists_spill_to_the_heap() {
        let big = SqLimits {
            max_sge: 6,
            max_inline: 200,
            ..RC
        };
        for n in [SGES_IN_PLACE, SGES_IN_PLACE + 1] {
            let mut s = slot(op::SEND, 0, n as u32);
            for i in 0..n {
                let o = 208 + i * SGE_SIZE;
                s[o..o + 8].copy_from_slice(&(i as u64).to_ne_bytes());
                s[o + 8..o + 12].copy_from_slice(&(i as u32 + 1).to_ne_bytes());
                s[o + 12..o + 16].copy_from_slice(&(0x100 + i as u32).to_ne_bytes());
            }
            let w = parse_user_send(&s, &big).1.unwrap();
            assert_eq!(w.sgl.len(), n);
            assert_eq!(matches!(w.sgl, Short::Heap(_)), n > SGES_IN_PLACE);
            for (i, sge) in w.sgl.iter().enumerate() {
                assert_eq!(
                    (sge.addr, sge.length, sge.lkey),
                    (i as u64, i as u32 + 1, 0x100 + i as u32)
                );
            }
            assert_eq!(w.length as usize, n * (n + 1) / 2);
        }
        for n in [INLINE_IN_PLACE, INLINE_IN_PLACE + 1, 200] {
            let mut s = slot(op::SEND, flag::INLINE, 0);
            s[184..188].copy_from_slice(&(n as u32).to_ne_bytes());
            for (i, b) in s[208..208 + n].iter_mut().enumerate() {
                *b = i as u8;
            }
            let w = parse_user_send(&s, &big).1.unwrap();
            assert_eq!(&w.inline_data[..], &s[208..208 + n]);
            assert_eq!(matches!(w.inline_data, Short::Heap(_)), n > INLINE_IN_PLACE);
        }
    }

    #[test]
    fn hostile_sends_are_refused() {
        assert_eq!(
            parse_user_send(&slot(op::SEND, 0, 5), &RC).1.err(),
            Some(Bad::Length)
        );
        assert_eq!(
            parse_user_send(&slot(op::SEND, 0, u32::MAX), &RC).1.err(),
            Some(Bad::Length)
        );
        assert_eq!(
            parse_user_send(&slot(op::REG_MR, 0, 0), &RC).1.err(),
            Some(Bad::Opcode)
        );
        assert_eq!(
            parse_user_send(&slot(1000, 0, 0), &RC).1.err(),
            Some(Bad::Opcode)
        );
        assert_eq!(
            parse_user_send(&slot(op::SEND, 0x100, 0), &RC).1.err(),
            Some(Bad::Opcode)
        );
        let mut s = slot(op::SEND, flag::INLINE, 0);
        s[184..188].copy_from_slice(&65u32.to_ne_bytes());
        assert_eq!(parse_user_send(&s, &RC).1.err(), Some(Bad::Length));
        let ud = SqLimits {
            qp_type: qpt::UD,
            ..RC
        };
        assert_eq!(
            parse_user_send(&slot(op::SEND, 0, 0), &ud).1.err(),
            Some(Bad::Address)
        );
        assert_eq!(
            parse_user_send(&slot(op::RDMA_WRITE, 0, 0), &ud).1.err(),
            Some(Bad::Opcode)
        );
        let mut a = slot(op::ATOMIC_FETCH_AND_ADD, 0, 1);
        a[24..32].copy_from_slice(&4u64.to_ne_bytes());
        a[208 + 8..208 + 12].copy_from_slice(&8u32.to_ne_bytes());
        assert_eq!(parse_user_send(&a, &RC).1.err(), Some(Bad::Atomic));
    }

    #[test]
    fn recv_roundtrip_and_bounds() {
        let mut b = [0u8; 128];
        let sgl = [
            Sge {
                addr: 1,
                length: 10,
                lkey: 3,
            },
            Sge {
                addr: 2,
                length: 20,
                lkey: 4,
            },
        ];
        encode_recv(77, &sgl, &mut b).unwrap();
        let (id, r) = parse_recv(&b, 2);
        let r = r.unwrap();
        assert_eq!((id, r.length, r.sgl.len()), (77, 30, 2));
        assert_eq!(r.sgl[1], sgl[1]);
        assert!(parse_recv(&b, 1).1.is_err());
        b[28..32].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert!(parse_recv(&b, 32).1.is_err());
    }
}
