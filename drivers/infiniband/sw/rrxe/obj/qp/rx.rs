// SPDX-License-Identifier: GPL-2.0

//! The packets a QP's receive work item has yet to process.

use kernel::{net::skb::SkBuff, prelude::*};

/// Packets a QP may hold for its receive work item. Its storage grows on
/// demand, in the softirq (`GFP_ATOMIC`), so a QP that never queues allocates
/// nothing. A full queue means the work item fell far behind: the packet is
/// dropped (`rcv_queue_full`) and the sender's retry recovers it, as from a
/// loss. With 256, a 1 MiB READ at MTU 4096 under the loss test's netem
/// overflowed it on every burst (a quarter of the responses dropped), and each
/// drop cost a resend of the rest of the READ.
const RX_QUEUE_MAX: usize = 4096;

/// The first storage a queue gets; it doubles from there.
const RX_QUEUE_FIRST: usize = 64;

/// A QP's received packets that wait for its receive work item, oldest first.
///
/// Received packets are processed in the receive softirq, on the CPU that got
/// them; on a veth or loopback path that is the sender's CPU. For a READ posted
/// from a user's system call that is the user's CPU: it runs the responder,
/// which builds the responses, and then places their data at the requester, so
/// one CPU copies every byte twice while another idles. So READ response data
/// (the first and middle responses of a multi-packet READ) goes to the
/// requester QP's work item on an unbound queue, which another CPU runs, and
/// the packets behind it follow it there, so none overtakes another.
///
/// Not if it is received in a work queue's worker (mostly a requester handed
/// off by the doorbell, whose transmit ran the softirq): that is off the user's
/// CPU already, the user's process keeps the other one busy, and queueing it
/// again only added a wake-up and a CPU switch. It is processed at once unless
/// packets are queued ahead of it. Everything else is processed at once too: a
/// ping-pong never waits for a worker to wake, and a WRITE or SEND stream is
/// not slowed by a second CPU switch per packet.
///
/// A queued skb's route may be a reference valid only in the softirq; nothing
/// here reads it, and freeing the skb does not release such a route.
///
/// Behind its own spinlock ([`super::RrxeQp::rx`]), taken in softirqs and by the
/// receive work item; the packets are freed with the QP.
pub(crate) struct RxBacklog {
    /// A ring: `len` packets from `head`, wrapping.
    slots: KVec<Option<SkBuff>>,
    head: usize,
    len: usize,
    /// The packet at the head went back there after an on-demand-paging miss
    /// ([`RxBacklog::push_front`]): it was counted as received already.
    head_counted: bool,
}

impl RxBacklog {
    pub(crate) const fn new() -> Self {
        Self {
            slots: KVec::new(),
            head: 0,
            len: 0,
            head_counted: false,
        }
    }

    /// Doubles the storage (up to [`RX_QUEUE_MAX`]), keeping the order. False if
    /// it is at the maximum or there is no memory.
    fn grow(&mut self) -> bool {
        let cap = self.slots.len();
        let new_cap = (cap * 2).clamp(RX_QUEUE_FIRST, RX_QUEUE_MAX);
        if new_cap <= cap {
            return false;
        }
        let Ok(mut slots) = KVec::with_capacity(new_cap, GFP_ATOMIC) else {
            return false;
        };
        while let Some(skb) = self.pop() {
            // Cannot fail: the capacity is reserved.
            let _ = slots.push(Some(skb), GFP_ATOMIC);
        }
        let len = slots.len();
        while slots.len() < new_cap {
            let _ = slots.push(None, GFP_ATOMIC);
        }
        self.slots = slots;
        self.head = 0;
        self.len = len;
        true
    }

    /// Packets queued.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn push(&mut self, skb: SkBuff) -> Result<(), SkBuff> {
        if self.len >= self.slots.len() && !self.grow() {
            return Err(skb);
        }
        // No `%`: the slots are never 0 here, but the compiler cannot tell.
        let mut i = self.head + self.len;
        if i >= self.slots.len() {
            i -= self.slots.len();
        }
        match self.slots.get_mut(i) {
            Some(slot) => {
                *slot = Some(skb);
                self.len += 1;
                Ok(())
            }
            None => Err(skb),
        }
    }

    /// Puts a packet that was taken and counted, and must be processed again
    /// before any other (it waits for an on-demand-paging fault), back at the
    /// head. Fails, giving the packet back, if the queue is full.
    pub(crate) fn push_front(&mut self, skb: SkBuff) -> Result<(), SkBuff> {
        if self.len >= self.slots.len() && !self.grow() {
            return Err(skb);
        }
        let n = self.slots.len();
        let i = if self.head == 0 { n - 1 } else { self.head - 1 };
        match self.slots.get_mut(i) {
            Some(slot) => {
                *slot = Some(skb);
                self.head = i;
                self.len += 1;
                self.head_counted = true;
                Ok(())
            }
            None => Err(skb),
        }
    }

    /// Takes the oldest packet, with whether it was counted as received
    /// already (it was put back by [`RxBacklog::push_front`]).
    pub(crate) fn pop_counted(&mut self) -> Option<(SkBuff, bool)> {
        let counted = core::mem::take(&mut self.head_counted);
        self.pop().map(|skb| (skb, counted))
    }

    fn pop(&mut self) -> Option<SkBuff> {
        if self.len == 0 {
            return None;
        }
        let skb = self.slots.get_mut(self.head).and_then(Option::take);
        self.head += 1;
        if self.head >= self.slots.len() {
            self.head = 0;
        }
        self.len -= 1;
        skb
    }
}
