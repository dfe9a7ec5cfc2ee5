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
