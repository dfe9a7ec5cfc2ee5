// SPDX-License-Identifier: GPL-2.0

//! The RC responder's answers (ACKs, NAKs, READ responses, atomic ACKs), queued in
//! the order the responder decided them and cut into packets in that order.
//!
//! The queue is a ring over storage the caller allocates once (a `KVec` in the
//! kernel), so queueing never allocates. A queued positive ACK is replaced by the
//! next one, which says everything the earlier did. A READ is cut at the path MTU
//! it was decided with, one packet per [`AnswerRing::claim`].

use super::hdr::AETH_ACK_UNLIMITED;
use super::opcode;
use super::psn::{psn_add, psn_diff, psn_sub};
use core::ops::DerefMut;

/// What an answer is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    /// An ACK or a NAK (its syndrome says which).
    #[default]
    Ack,
    /// READ responses, or the one empty response to a FLUSH or ATOMIC WRITE.
    Read,
    /// An atomic ACK.
    Atomic,
}

/// One decided answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub kind: Kind,
    /// The AETH syndrome (`AETH_ACK_UNLIMITED` for all but NAKs).
    pub syndrome: u8,
    /// The PSN of the first packet.
    pub psn: u32,
    pub msn: u32,
    /// READ: the address, rkey and length read, and the path MTU it is cut at.
    /// Atomic ACK: `va` is the original value.
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
    pub mtu: u32,
    /// Packets of it already claimed.
    sent: u32,
}

impl Answer {
    /// An ACK (`syndrome` `AETH_ACK_UNLIMITED`) or a NAK.
    pub const fn ack(syndrome: u8, psn: u32, msn: u32) -> Self {
        Self {
            kind: Kind::Ack,
            syndrome,
            psn,
            msn,
            va: 0,
            rkey: 0,
            len: 0,
            mtu: 0,
            sent: 0,
        }
    }

    /// The responses to a READ of `len` bytes (0 for a FLUSH or ATOMIC WRITE).
    pub const fn read(psn: u32, msn: u32, va: u64, rkey: u32, len: u32, mtu: u32) -> Self {
        Self {
            kind: Kind::Read,
            syndrome: AETH_ACK_UNLIMITED,
            psn,
            msn,
            va,
            rkey,
            len,
            mtu,
            sent: 0,
        }
    }

    /// An atomic ACK carrying the original value.
    pub const fn atomic(psn: u32, msn: u32, orig: u64) -> Self {
        Self {
            kind: Kind::Atomic,
            syndrome: AETH_ACK_UNLIMITED,
            psn,
            msn,
            va: orig,
            rkey: 0,
            len: 0,
            mtu: 0,
            sent: 0,
        }
    }

    /// Packets in this answer: a READ takes one per path MTU, at least one.
    pub fn packets(&self) -> u32 {
        match self.kind {
            Kind::Read => read_packets(self.len, self.mtu),
            Kind::Ack | Kind::Atomic => 1,
        }
    }

    fn is_positive_ack(&self) -> bool {
        self.kind == Kind::Ack && self.syndrome == AETH_ACK_UNLIMITED
    }
}

/// The responses, and so the PSNs, that a READ of `len` bytes takes at path MTU
/// `mtu`: one per MTU, at least one.
pub fn read_packets(len: u32, mtu: u32) -> u32 {
    // `max(1)`: no divide-by-zero panic path.
    len.div_ceil(mtu.max(1)).max(1)
}

/// One packet of an answer, to be built and sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerPacket {
    pub opcode: u8,
    pub psn: u32,
    pub syndrome: u8,
    pub msn: u32,
    /// READ: where the payload is read and how long it is; atomic ACK: `va` is
    /// the original value.
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
    /// The first PSN of the answer it belongs to.
    pub first_psn: u32,
    /// The answer's last packet.
    pub last: bool,
}

/// A fixed ring of answers, oldest first.
pub struct AnswerRing<S> {
    slots: S,
    head: usize,
    len: usize,
}

impl<S: DerefMut<Target = [Answer]>> AnswerRing<S> {
    /// A ring with room for `slots.len()` answers.
    pub fn new(slots: S) -> Self {
        Self {
            slots,
            head: 0,
            len: 0,
        }
    }

    /// Answers queued (a READ counts until its last packet is claimed).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, i: usize) -> usize {
        (self.head + i) % self.slots.len().max(1)
    }

    /// Queues `a`; false if there is no room (the answer is dropped).
    pub fn push(&mut self, a: Answer) -> bool {
        if self.len > 0 && a.is_positive_ack() {
            let last = self.slot(self.len - 1);
            // A queued answer's packets are not claimed yet unless it is at the
            // head and a READ, and a READ is not an ACK.
            if let Some(tail) = self.slots.get_mut(last) {
                if tail.is_positive_ack() {
                    *tail = a;
                    return true;
                }
            }
        }
        if self.len >= self.slots.len() {
            return false;
        }
        let i = self.slot(self.len);
        let Some(slot) = self.slots.get_mut(i) else {
            return false;
        };
        *slot = Answer { sent: 0, ..a };
        self.len += 1;
        true
    }

    /// Queues the answer to a repeated READ request (`a`, a READ): it replaces,
    /// in its place, the queued answer of the same READ (the one whose PSNs
    /// contain `a`'s first and end where `a`'s end), even one partly sent. The
    /// requester asked again from `a.psn` because it dropped everything after a
    /// lost response, so the rest of the old answer would only be dropped too;
    /// and answering in the old place keeps the READ ahead of later answers. With
    /// no such answer queued, `a` is queued as by [`Self::push`]. Returns false
    /// if there was no room.
    pub fn push_repeated_read(&mut self, a: Answer) -> bool {
        let end = psn_add(a.psn, a.packets());
        for i in 0..self.len {
            let at = self.slot(i);
            let Some(q) = self.slots.get_mut(at) else {
                break;
            };
            if q.kind != Kind::Read || psn_add(q.psn, q.packets()) != end {
                continue;
            }
            // `a.psn` lies in [q.psn, end).
            if psn_sub(a.psn, q.psn) < q.packets() {
                *q = Answer { sent: 0, ..a };
                return true;
            }
        }
        self.push(a)
    }

    /// Takes the next packet to send, in order.
    pub fn claim(&mut self) -> Option<AnswerPacket> {
        if self.len == 0 {
            return None;
        }
        let head = self.head;
        let a = self.slots.get_mut(head)?;
        let index = a.sent;
        a.sent += 1;
        let a = *a;
        let packets = a.packets();
        let last = index + 1 >= packets;
        if last {
            self.pop();
        }
        let (opcode, va, len) = match a.kind {
            Kind::Ack => (opcode::RC_ACKNOWLEDGE, 0, 0),
            Kind::Atomic => (opcode::RC_ATOMIC_ACKNOWLEDGE, a.va, 0),
            Kind::Read => {
                let off = index.saturating_mul(a.mtu);
                let opcode = match (index == 0, last) {
                    (true, true) => opcode::RC_RDMA_READ_RESPONSE_ONLY,
                    (true, false) => opcode::RC_RDMA_READ_RESPONSE_FIRST,
                    (false, false) => opcode::RC_RDMA_READ_RESPONSE_MIDDLE,
                    (false, true) => opcode::RC_RDMA_READ_RESPONSE_LAST,
                };
                (
                    opcode,
                    a.va.wrapping_add(u64::from(off)),
                    a.len.saturating_sub(off).min(a.mtu),
                )
            }
        };
        Some(AnswerPacket {
            opcode,
            psn: psn_add(a.psn, index),
            syndrome: a.syndrome,
            msn: a.msn,
            va,
            rkey: a.rkey,
            len,
            first_psn: a.psn,
            last,
        })
    }

    fn pop(&mut self) {
        self.head = self.slot(1);
        self.len -= 1;
    }

    /// Gives READ response `p`, claimed by [`Self::claim`] and not sent (its
    /// data could not be read yet), back: the next claim takes it again. Only
    /// while its answer is as that claim left it; returns whether it was given
    /// back. A last packet's answer left the ring with the claim, but its slot,
    /// just before the head, keeps it until a push wraps onto it, which only a
    /// full ring does.
    pub fn unclaim(&mut self, p: &AnswerPacket) -> bool {
        let index = psn_sub(p.psn, p.first_psn);
        let cap = self.slots.len();
        let (at, back) = if p.last {
            if self.len >= cap {
                return false;
            }
            (self.slot(cap - 1), true)
        } else {
            if self.len == 0 {
                return false;
            }
            (self.head, false)
        };
        let Some(a) = self.slots.get_mut(at) else {
            return false;
        };
        if a.kind != Kind::Read || a.psn != p.first_psn || a.sent != index + 1 {
            return false;
        }
        a.sent = index;
        if back {
            self.head = at;
            self.len += 1;
        }
        true
    }

    /// Drops the rest of the READ that starts at `first_psn`, if it is still at
    /// the head (its memory went away while it was being sent).
    pub fn drop_read(&mut self, first_psn: u32) {
        if self.len == 0 {
            return;
        }
        let at_head = self
            .slots
            .get(self.head)
            .is_some_and(|a| a.kind == Kind::Read && a.psn == first_psn);
        if at_head {
            self.pop();
        }
    }

    /// Forgets every answer (the QP was reset).
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

/// The newest entries of a fixed-size store, the oldest forgotten when full.
struct Recent<S> {
    slots: S,
    /// Where the next one goes.
    next: usize,
    /// Entries in use (at most `slots.len()`).
    len: usize,
}

impl<T: Copy, S: DerefMut<Target = [T]>> Recent<S> {
    fn new(slots: S) -> Self {
        Self {
            slots,
            next: 0,
            len: 0,
        }
    }

    fn record(&mut self, e: T) {
        // `max(1)`: no division that can panic (objtool flags the panic path).
        let cap = self.slots.len().max(1);
        let Some(slot) = self.slots.get_mut(self.next) else {
            return;
        };
        *slot = e;
        self.next = (self.next + 1) % cap;
        self.len = (self.len + 1).min(cap);
    }

    /// The newest entry for which `hit` holds: after the 24-bit PSN wraps, a
    /// PSN may be kept twice, and the newer entry is the one asked for.
    fn find(&self, hit: impl Fn(&T) -> bool) -> Option<T> {
        let cap = self.slots.len().max(1);
        (1..=self.len)
            .filter_map(|back| self.slots.get((self.next + cap - back) % cap))
            .find(|e| hit(e))
            .copied()
    }

    fn clear(&mut self) {
        self.next = 0;
        self.len = 0;
    }
}

/// The original values the responder's last atomics returned, by PSN, so that a
/// repeated atomic is answered with what it returned first and not executed
/// again. A requester asks again only for an atomic it still waits for, and
/// it waits for at most its `max_rd_atomic` READs and atomics, which may not
/// exceed the responder's `max_dest_rd_atomic`: that many entries are enough,
/// and the caller gives storage for the most it allows.
pub struct AtomicReplies<S>(Recent<S>);

impl<S: DerefMut<Target = [(u32, u64)]>> AtomicReplies<S> {
    /// Empty, with room for `slots.len()` atomics (none: nothing is kept).
    pub fn new(slots: S) -> Self {
        Self(Recent::new(slots))
    }

    /// Keeps the original value `orig` of the atomic at `psn`, forgetting the
    /// oldest one kept when full.
    pub fn record(&mut self, psn: u32, orig: u64) {
        self.0.record((psn, orig));
    }

    /// The original value of the kept atomic at `psn`, if it is kept.
    pub fn find(&self, psn: u32) -> Option<u64> {
        self.0.find(|&(p, _)| p == psn).map(|(_, orig)| orig)
    }

    /// Forgets every atomic (the QP was reset).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A READ the responder executed, kept to check a repeated request for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptRead {
    /// The PSN of its first response.
    pub psn: u32,
    /// How many PSNs its responses take (at least one).
    pub packets: u32,
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
}

impl KeptRead {
    /// The READ at `psn` of `len` bytes at `va`, answered in packets of `mtu`.
    pub fn new(psn: u32, va: u64, rkey: u32, len: u32, mtu: u32) -> Self {
        Self {
            psn,
            packets: read_packets(len, mtu),
            va,
            rkey,
            len,
        }
    }

    /// Whether the response at `psn` is one of this READ's.
    pub fn spans(&self, psn: u32) -> bool {
        let k = psn_diff(psn, self.psn);
        k >= 0 && (k as u32) < self.packets
    }

    /// Whether a repeated READ request asks for part of this READ: the same
    /// rkey, its bytes inside this READ's and its responses' PSNs inside this
    /// READ's. A requester that got the first responses asks for the rest,
    /// from the first one missing (rdma_rxe's `req_retry`, rrxe's rewind).
    pub fn covers(&self, psn: u32, va: u64, rkey: u32, len: u32, mtu: u32) -> bool {
        let k = psn_diff(psn, self.psn);
        let (Some(end), Some(kept_end)) = (
            va.checked_add(u64::from(len)),
            self.va.checked_add(u64::from(self.len)),
        ) else {
            return false;
        };
        rkey == self.rkey
            && k >= 0
            && u64::from(k as u32) + u64::from(read_packets(len, mtu)) <= u64::from(self.packets)
            && va >= self.va
            && end <= kept_end
    }
}

/// The responder's last READs (RC), so that a repeated request is answered
/// only if it asks again for part of a READ executed before, as rdma_rxe's
/// `duplicate_request` checks it against its responder resources. A repeat
/// that asks for more, another rkey, or PSNs the original did not take is
/// dropped: answered, its responses would take PSNs of later requests. As for
/// [`AtomicReplies`], `max_dest_rd_atomic` entries are enough.
pub struct KeptReads<S>(Recent<S>);

impl<S: DerefMut<Target = [KeptRead]>> KeptReads<S> {
    /// Empty, with room for `slots.len()` READs (none: nothing is kept).
    pub fn new(slots: S) -> Self {
        Self(Recent::new(slots))
    }

    /// Keeps `read`, forgetting the oldest one kept when full.
    pub fn record(&mut self, read: KeptRead) {
        self.0.record(read);
    }

    /// The newest kept READ whose responses take PSN `psn`, among those that
    /// end at or before `expected`, the responder's next PSN, by 2^23 PSNs at
    /// most: an older one could otherwise span PSNs that, after the 24-bit
    /// wrap, belong to newer requests.
    pub fn find(&self, psn: u32, expected: u32) -> Option<KeptRead> {
        self.0
            .find(|r| r.spans(psn) && psn_diff(psn_add(r.psn, r.packets), expected) <= 0)
    }

    /// Forgets every READ (the QP was reset).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}
