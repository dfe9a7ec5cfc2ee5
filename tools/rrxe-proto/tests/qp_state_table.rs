// SPDX-License-Identifier: GPL-2.0

//! `modify_is_ok` must agree with the RDMA core's `ib_modify_qp_is_ok` over the
//! transcribed `qp_state_table`, for every state pair and supported QP type.

#[allow(dead_code)]
#[path = "rxe_ref/qp_state_table.rs"]
mod core_table;

use core_table::*;
use proptest::prelude::*;
use rrxe_proto::qp_state::{attr, modify_is_ok, transition, QpState, QpType};

/// Literal port of `ib_modify_qp_is_ok()` (Linux 7.3) over the transcription.
fn reference(cur: usize, next: usize, qpt: usize, mask: u32) -> bool {
    if mask & IB_QP_CUR_STATE != 0
        && cur != IB_QPS_RTR
        && cur != IB_QPS_RTS
        && cur != IB_QPS_SQD
        && cur != IB_QPS_SQE
    {
        return false;
    }
    let Some(e) = QP_STATE_TABLE
        .iter()
        .find(|e| e.cur == cur && e.next == next)
    else {
        return false;
    };
    let pick = |l: &[(usize, u32)]| l.iter().find(|&&(t, _)| t == qpt).map_or(0, |&(_, m)| m);
    let req = pick(e.req_param);
    let opt = pick(e.opt_param);
    if mask & req != req {
        return false;
    }
    mask & !(req | opt | IB_QP_STATE | IB_QP_RATE_LIMIT) == 0
}

fn all_cases() -> impl Iterator<Item = (QpState, QpState, QpType)> {
    QpState::ALL.into_iter().flat_map(|c| {
        QpState::ALL
            .into_iter()
            .flat_map(move |n| QpType::ALL.into_iter().map(move |t| (c, n, t)))
    })
}

fn check(c: QpState, n: QpState, t: QpType, mask: u32) {
    assert_eq!(
        modify_is_ok(c, n, t, mask),
        reference(c as usize, n as usize, t as usize, mask),
        "{c:?} -> {n:?} {t:?} mask {mask:#x}"
    );
}

#[test]
fn enums_match_kernel_values() {
    assert_eq!(QpState::Reset as usize, IB_QPS_RESET);
    assert_eq!(QpState::Err as usize, IB_QPS_ERR);
    assert_eq!(QpState::Sqe as usize, IB_QPS_SQE);
    assert_eq!(QpType::Smi as usize, IB_QPT_SMI);
    assert_eq!(QpType::Gsi as usize, IB_QPT_GSI);
    assert_eq!(QpType::Rc as usize, IB_QPT_RC);
    assert_eq!(QpType::Uc as usize, IB_QPT_UC);
    assert_eq!(QpType::Ud as usize, IB_QPT_UD);
    let bits = [
        (attr::STATE, IB_QP_STATE),
        (attr::CUR_STATE, IB_QP_CUR_STATE),
        (attr::EN_SQD_ASYNC_NOTIFY, IB_QP_EN_SQD_ASYNC_NOTIFY),
        (attr::ACCESS_FLAGS, IB_QP_ACCESS_FLAGS),
        (attr::PKEY_INDEX, IB_QP_PKEY_INDEX),
        (attr::PORT, IB_QP_PORT),
        (attr::QKEY, IB_QP_QKEY),
        (attr::AV, IB_QP_AV),
        (attr::PATH_MTU, IB_QP_PATH_MTU),
        (attr::TIMEOUT, IB_QP_TIMEOUT),
        (attr::RETRY_CNT, IB_QP_RETRY_CNT),
        (attr::RNR_RETRY, IB_QP_RNR_RETRY),
        (attr::RQ_PSN, IB_QP_RQ_PSN),
        (attr::MAX_QP_RD_ATOMIC, IB_QP_MAX_QP_RD_ATOMIC),
        (attr::ALT_PATH, IB_QP_ALT_PATH),
        (attr::MIN_RNR_TIMER, IB_QP_MIN_RNR_TIMER),
        (attr::SQ_PSN, IB_QP_SQ_PSN),
        (attr::MAX_DEST_RD_ATOMIC, IB_QP_MAX_DEST_RD_ATOMIC),
        (attr::PATH_MIG_STATE, IB_QP_PATH_MIG_STATE),
        (attr::CAP, IB_QP_CAP),
        (attr::DEST_QPN, IB_QP_DEST_QPN),
        (attr::RATE_LIMIT, IB_QP_RATE_LIMIT),
    ];
    for (ours, theirs) in bits {
        assert_eq!(ours, theirs);
    }
    for (i, s) in QpState::ALL.iter().enumerate() {
        assert_eq!(QpState::from_raw(i as u32), Some(*s));
    }
    assert_eq!(QpState::from_raw(7), None);
    assert_eq!(QpType::from_raw(IB_QPT_RAW_PACKET as u32), None);
}

/// Same transition table as the core, entry by entry.
#[test]
fn transitions_match_table() {
    for (c, n, t) in all_cases() {
        let e = QP_STATE_TABLE
            .iter()
            .find(|e| e.cur == c as usize && e.next == n as usize);
        let ours = transition(c, n, t);
        match e {
            None => assert_eq!(ours, None, "{c:?} -> {n:?} {t:?}"),
            Some(e) => {
                let pick = |l: &[(usize, u32)]| {
                    l.iter()
                        .find(|&&(q, _)| q == t as usize)
                        .map_or(0, |&(_, m)| m)
                };
                let ours = ours.unwrap_or_else(|| panic!("{c:?} -> {n:?} {t:?} missing"));
                assert_eq!(ours.required, pick(e.req_param), "req {c:?} -> {n:?} {t:?}");
                assert_eq!(ours.optional, pick(e.opt_param), "opt {c:?} -> {n:?} {t:?}");
            }
        }
    }
}

/// Targeted masks around each entry: required set with every single bit added or
/// removed, optional set, CUR_STATE and RATE_LIMIT combinations.
#[test]
fn modify_is_ok_matches_reference_on_edge_masks() {
    let mut n = 0;
    for (c, nx, t) in all_cases() {
        let (req, opt) = transition(c, nx, t).map_or((0, 0), |t| (t.required, t.optional));
        let bases = [
            0,
            attr::STATE,
            req,
            req | attr::STATE,
            req | opt | attr::STATE,
            u32::MAX,
        ];
        for base in bases {
            check(c, nx, t, base);
            for bit in 0..32 {
                check(c, nx, t, base ^ (1 << bit));
                check(c, nx, t, base | (1 << bit));
                n += 2;
            }
        }
    }
    assert!(n > 10_000);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn modify_is_ok_matches_reference_random(
        c in 0usize..7, nx in 0usize..7, t in 0usize..5,
        mask in prop_oneof![any::<u32>(), 0u32..(1 << 26), (0u32..(1 << 21)).prop_map(|m| m | 1)],
    ) {
        let (c, nx, t) = (QpState::ALL[c], QpState::ALL[nx], QpType::ALL[t]);
        prop_assert_eq!(
            modify_is_ok(c, nx, t, mask),
            reference(c as usize, nx as usize, t as usize, mask)
        );
    }
}
