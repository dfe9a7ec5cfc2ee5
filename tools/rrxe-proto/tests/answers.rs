// SPDX-License-Identifier: GPL-2.0

//! The responder's answer ring against a model: whatever the interleaving of
//! queueing and sending, packets leave in the order their answers were queued,
//! each READ cut into its packets with contiguous PSNs and byte ranges, and only
//! a positive ACK directly behind another queued one disappears.

use proptest::prelude::*;
use rrxe_proto::answers::{Answer, AnswerRing, Kind};
use rrxe_proto::hdr::{AETH_ACK_UNLIMITED, AETH_NAK_PSN_SEQ_ERROR};
use rrxe_proto::opcode;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
enum Op {
    Ack,
    Nak,
    Read(u32, u8),
    Atomic,
    /// Send this many packets.
    Send(u8),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Ack),
        Just(Op::Nak),
        (0u32..20_000, 1u8..=5).prop_map(|(len, mtu)| Op::Read(len, mtu)),
        Just(Op::Atomic),
        (1u8..12).prop_map(Op::Send),
    ]
}

fn is_positive_ack(a: &Answer) -> bool {
    a.kind == Kind::Ack && a.syndrome == AETH_ACK_UNLIMITED
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn packets_leave_in_queue_order(cap in 1usize..8, ops in proptest::collection::vec(arb_op(), 0..80)) {
        let mut ring = AnswerRing::new(vec![Answer::default(); cap]);
        // The model: answers queued and not yet fully sent, and the packets of
        // the head already sent.
        let mut model: VecDeque<Answer> = VecDeque::new();
        let mut head_sent = 0u32;
        let mut psn = 0u32;
        let mut msn = 0u32;
        for op in ops {
            let a = match op {
                Op::Ack => Answer::ack(AETH_ACK_UNLIMITED, psn, msn),
                Op::Nak => Answer::ack(AETH_NAK_PSN_SEQ_ERROR, psn, msn),
                Op::Read(len, mtu) => Answer::read(psn, msn, 1 << 40, 7, len, 128 << mtu),
                Op::Atomic => Answer::atomic(psn, msn, u64::from(psn) << 8),
                Op::Send(n) => {
                    for _ in 0..n {
                        let got = ring.claim();
                        let Some(front) = model.front().copied() else {
                            prop_assert!(got.is_none());
                            break;
                        };
                        let p = got.expect("a packet while the model has one");
                        let packets = front.packets();
                        prop_assert_eq!(p.first_psn, front.psn);
                        prop_assert_eq!(p.psn, (front.psn + head_sent) & 0xff_ffff);
                        prop_assert_eq!(p.msn, front.msn);
                        prop_assert_eq!(p.syndrome, front.syndrome);
                        prop_assert_eq!(p.last, head_sent + 1 == packets);
                        match front.kind {
                            Kind::Read => {
                                let off = head_sent * front.mtu;
                                prop_assert_eq!(p.va, front.va + u64::from(off));
                                prop_assert_eq!(p.len, (front.len - off).min(front.mtu));
                                prop_assert!(packets == 1 || p.opcode != opcode::RC_RDMA_READ_RESPONSE_ONLY);
                            }
                            Kind::Atomic => {
                                prop_assert_eq!(p.opcode, opcode::RC_ATOMIC_ACKNOWLEDGE);
                                prop_assert_eq!(p.va, front.va);
                            }
                            Kind::Ack => prop_assert_eq!(p.opcode, opcode::RC_ACKNOWLEDGE),
                        }
                        head_sent += 1;
                        if head_sent == packets {
                            model.pop_front();
                            head_sent = 0;
                        }
                    }
                    prop_assert_eq!(ring.len(), model.len());
                    continue;
                }
            };
            let merges = is_positive_ack(&a) && model.back().is_some_and(is_positive_ack);
            let queued = ring.push(a);
            if merges {
                prop_assert!(queued);
                *model.back_mut().unwrap() = a;
            } else if model.len() < cap {
                prop_assert!(queued);
                model.push_back(a);
            } else {
                prop_assert!(!queued, "a full ring refuses");
            }
            psn = (psn + a.packets()) & 0xff_ffff;
            msn += 1;
            prop_assert_eq!(ring.len(), model.len());
        }
    }
}

fn claim_psns(ring: &mut AnswerRing<Vec<Answer>>, n: usize) -> Vec<(u8, u32)> {
    (0..n)
        .map_while(|_| ring.claim())
        .map(|p| (p.opcode, p.psn))
        .collect()
}

/// A repeated READ request replaces the answer of the same READ in its place,
/// even one partly sent; the answers behind it keep their order.
#[test]
fn repeated_read_replaces_its_answer_in_place() {
    const MTU: u32 = 1024;
    let mut ring = AnswerRing::new(vec![Answer::default(); 8]);
    // READ A: PSNs 100..=109; an ACK at 110; READ B: 111..=115.
    assert!(ring.push(Answer::read(100, 1, 0x1000, 7, 10 * MTU, MTU)));
    assert!(ring.push(Answer::ack(AETH_ACK_UNLIMITED, 110, 2)));
    assert!(ring.push(Answer::read(111, 3, 0x9000, 7, 5 * MTU, MTU)));
    assert_eq!(
        claim_psns(&mut ring, 3),
        [
            (opcode::RC_RDMA_READ_RESPONSE_FIRST, 100),
            (opcode::RC_RDMA_READ_RESPONSE_MIDDLE, 101),
            (opcode::RC_RDMA_READ_RESPONSE_MIDDLE, 102),
        ]
    );
    // The requester lost 101 and asks again for the rest of A from there.
    assert!(ring.push_repeated_read(Answer::read(
        101,
        1,
        0x1000 + u64::from(MTU),
        7,
        9 * MTU,
        MTU
    )));
    assert_eq!(ring.len(), 3, "replaced, not queued behind B");
    let got = claim_psns(&mut ring, 20);
    let psns: Vec<u32> = got.iter().map(|&(_, psn)| psn).collect();
    let want: Vec<u32> = (101..=115).collect();
    assert_eq!(psns, want, "A from 101 on, the ACK, then B, each once");
    assert_eq!(got[0].0, opcode::RC_RDMA_READ_RESPONSE_FIRST);
    assert_eq!(got[9], (opcode::RC_ACKNOWLEDGE, 110));
    assert!(ring.is_empty());
}

/// With no queued answer of the same READ (sent out already, or another READ),
/// the answer to a repeated request is queued at the end.
#[test]
fn repeated_read_without_its_answer_is_queued() {
    const MTU: u32 = 256;
    let mut ring = AnswerRing::new(vec![Answer::default(); 4]);
    assert!(ring.push(Answer::read(0x00ff_fffe, 1, 0, 7, 4 * MTU, MTU)));
    // Same first PSN, but ends elsewhere: not the same READ.
    assert!(ring.push_repeated_read(Answer::read(0x00ff_fffe, 1, 0, 7, 2 * MTU, MTU)));
    assert_eq!(ring.len(), 2);
    // Inside the first READ across the PSN wrap, ending where it ends: replaces it.
    assert!(ring.push_repeated_read(Answer::read(1, 1, 3 * u64::from(MTU), 7, MTU, MTU)));
    assert_eq!(ring.len(), 2);
    assert_eq!(
        claim_psns(&mut ring, 10),
        [
            (opcode::RC_RDMA_READ_RESPONSE_ONLY, 1),
            (opcode::RC_RDMA_READ_RESPONSE_FIRST, 0x00ff_fffe),
            (opcode::RC_RDMA_READ_RESPONSE_LAST, 0x00ff_ffff),
        ]
    );
    // Everything sent: a repeat of it is queued anew.
    assert!(ring.push_repeated_read(Answer::read(1, 1, 0, 7, MTU, MTU)));
    assert_eq!(ring.len(), 1);
}

/// A READ response given back is the next one claimed, with the same PSN and
/// bytes, middle or last, and what was queued behind the READ still follows it.
#[test]
fn unclaimed_read_response_is_claimed_again() {
    let mut ring = AnswerRing::new(vec![Answer::default(); 4]);
    assert!(ring.push(Answer::read(10, 1, 1 << 40, 7, 3 * 256, 256)));
    assert!(ring.push(Answer::ack(AETH_ACK_UNLIMITED, 13, 2)));
    let first = ring.claim().unwrap();
    let middle = ring.claim().unwrap();
    assert!(!middle.last);
    assert!(ring.unclaim(&middle));
    let again = ring.claim().unwrap();
    assert_eq!((again.psn, again.va, again.len), (middle.psn, middle.va, middle.len));
    assert_eq!(again.opcode, opcode::RC_RDMA_READ_RESPONSE_MIDDLE);
    let last = ring.claim().unwrap();
    assert!(last.last);
    assert!(ring.unclaim(&last));
    let again = ring.claim().unwrap();
    assert_eq!((again.psn, again.va, again.len, again.last), (12, last.va, 256, true));
    assert_eq!(again.opcode, opcode::RC_RDMA_READ_RESPONSE_LAST);
    assert_eq!(ring.claim().unwrap().opcode, opcode::RC_ACKNOWLEDGE);
    assert!(ring.claim().is_none());
    // Given back twice, or out of turn: refused, nothing changes.
    assert!(!ring.unclaim(&first));
    assert!(ring.claim().is_none());
}

/// A last response's slot reused by a push (a full ring) is not given back.
#[test]
fn unclaim_of_an_overwritten_last_response_is_refused() {
    let mut ring = AnswerRing::new(vec![Answer::default(); 2]);
    assert!(ring.push(Answer::read(10, 1, 1 << 40, 7, 100, 256)));
    let only = ring.claim().unwrap();
    assert!(only.last);
    assert!(ring.push(Answer::atomic(11, 2, 5)));
    assert!(ring.push(Answer::atomic(12, 3, 6)));
    assert!(!ring.unclaim(&only));
    assert_eq!(ring.claim().unwrap().psn, 11);
}
