// SPDX-License-Identifier: GPL-2.0

//! QP states, types, attribute masks and the modify-QP transition rules of the
//! RDMA core (`qp_state_table` / `ib_modify_qp_is_ok` in
//! drivers/infiniband/core/verbs.c), for the QP types a soft RoCE device offers.

/// QP state, numbered as `enum ib_qp_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QpState {
    /// IB_QPS_RESET.
    Reset = 0,
    /// IB_QPS_INIT.
    Init = 1,
    /// IB_QPS_RTR (ready to receive).
    Rtr = 2,
    /// IB_QPS_RTS (ready to send).
    Rts = 3,
    /// IB_QPS_SQD (send queue drained).
    Sqd = 4,
    /// IB_QPS_SQE (send queue error).
    Sqe = 5,
    /// IB_QPS_ERR.
    Err = 6,
}

impl QpState {
    /// All states in numeric order.
    pub const ALL: [QpState; 7] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Err,
    ];

    /// State from its `enum ib_qp_state` value.
    pub fn from_raw(v: u32) -> Option<Self> {
        usize::try_from(v)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }
}

/// QP type, numbered as `enum ib_qp_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QpType {
    /// IB_QPT_SMI (QP0).
    Smi = 0,
    /// IB_QPT_GSI (QP1).
    Gsi = 1,
    /// IB_QPT_RC.
    Rc = 2,
    /// IB_QPT_UC.
    Uc = 3,
    /// IB_QPT_UD.
    Ud = 4,
}

impl QpType {
    /// All supported types in numeric order.
    pub const ALL: [QpType; 5] = [QpType::Smi, QpType::Gsi, QpType::Rc, QpType::Uc, QpType::Ud];

    /// Type from its `enum ib_qp_type` value; `None` for types not handled here.
    pub fn from_raw(v: u32) -> Option<Self> {
        usize::try_from(v)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }
}

/// Attribute mask bits of `enum ib_qp_attr_mask`.
pub mod attr {
    /// IB_QP_STATE.
    pub const STATE: u32 = 1;
    /// IB_QP_CUR_STATE.
    pub const CUR_STATE: u32 = 1 << 1;
    /// IB_QP_EN_SQD_ASYNC_NOTIFY.
    pub const EN_SQD_ASYNC_NOTIFY: u32 = 1 << 2;
    /// IB_QP_ACCESS_FLAGS.
    pub const ACCESS_FLAGS: u32 = 1 << 3;
    /// IB_QP_PKEY_INDEX.
    pub const PKEY_INDEX: u32 = 1 << 4;
    /// IB_QP_PORT.
    pub const PORT: u32 = 1 << 5;
    /// IB_QP_QKEY.
    pub const QKEY: u32 = 1 << 6;
    /// IB_QP_AV.
    pub const AV: u32 = 1 << 7;
    /// IB_QP_PATH_MTU.
    pub const PATH_MTU: u32 = 1 << 8;
    /// IB_QP_TIMEOUT.
    pub const TIMEOUT: u32 = 1 << 9;
    /// IB_QP_RETRY_CNT.
    pub const RETRY_CNT: u32 = 1 << 10;
    /// IB_QP_RNR_RETRY.
    pub const RNR_RETRY: u32 = 1 << 11;
    /// IB_QP_RQ_PSN.
    pub const RQ_PSN: u32 = 1 << 12;
    /// IB_QP_MAX_QP_RD_ATOMIC.
    pub const MAX_QP_RD_ATOMIC: u32 = 1 << 13;
    /// IB_QP_ALT_PATH.
    pub const ALT_PATH: u32 = 1 << 14;
    /// IB_QP_MIN_RNR_TIMER.
    pub const MIN_RNR_TIMER: u32 = 1 << 15;
    /// IB_QP_SQ_PSN.
    pub const SQ_PSN: u32 = 1 << 16;
    /// IB_QP_MAX_DEST_RD_ATOMIC.
    pub const MAX_DEST_RD_ATOMIC: u32 = 1 << 17;
    /// IB_QP_PATH_MIG_STATE.
    pub const PATH_MIG_STATE: u32 = 1 << 18;
    /// IB_QP_CAP.
    pub const CAP: u32 = 1 << 19;
    /// IB_QP_DEST_QPN.
    pub const DEST_QPN: u32 = 1 << 20;
    /// IB_QP_RATE_LIMIT.
    pub const RATE_LIMIT: u32 = 1 << 25;
    /// IB_QP_ATTR_STANDARD_BITS (bits 0..=20).
    pub const STANDARD_BITS: u32 = (1 << 21) - 1;
}

/// Required and optional attribute masks of a valid transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Transition {
    /// Attributes that must be in the mask.
    pub required: u32,
    /// Attributes that may be in the mask.
    pub optional: u32,
}

/// The core's transition table entry for `cur -> next` on `qp_type`, `None` if the
/// transition is not allowed at all.
pub fn transition(cur: QpState, next: QpState, qp_type: QpType) -> Option<Transition> {
    use attr::*;
    use QpState::*;
    use QpType::*;

    let t = |required, optional| Some(Transition { required, optional });
    // Datagram QPs (UD, GSI, SMI) share the `_` arms; SMI/GSI differ from UD only
    // in not taking a port at RESET->INIT and INIT->INIT.
    match (cur, next) {
        (Reset, Reset) | (Init | Rtr | Rts | Sqd | Sqe | Err, Reset | Err) => t(0, 0),
        (Reset, Init) => match qp_type {
            Ud => t(PKEY_INDEX | PORT | QKEY, 0),
            Gsi | Smi => t(PKEY_INDEX | QKEY, 0),
            Rc | Uc => t(PKEY_INDEX | PORT | ACCESS_FLAGS, 0),
        },
        (Init, Init) => match qp_type {
            Ud => t(0, PKEY_INDEX | PORT | QKEY),
            Gsi | Smi => t(0, PKEY_INDEX | QKEY),
            Rc | Uc => t(0, PKEY_INDEX | PORT | ACCESS_FLAGS),
        },
        (Init, Rtr) => match qp_type {
            Rc => t(
                AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
            ),
            Uc => t(
                AV | PATH_MTU | DEST_QPN | RQ_PSN,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
            ),
            _ => t(0, PKEY_INDEX | QKEY),
        },
        (Rtr, Rts) => match qp_type {
            Rc => t(
                TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
            ),
            Uc => t(SQ_PSN, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE),
            _ => t(SQ_PSN, CUR_STATE | QKEY),
        },
        (Rts | Sqd, Rts) => match qp_type {
            Rc => t(
                0,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER,
            ),
            Uc => t(0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE),
            _ => t(0, CUR_STATE | QKEY),
        },
        (Rts, Sqd) => t(0, EN_SQD_ASYNC_NOTIFY),
        (Sqd, Sqd) => match qp_type {
            Rc => t(
                0,
                PORT | AV
                    | TIMEOUT
                    | RETRY_CNT
                    | RNR_RETRY
                    | MAX_QP_RD_ATOMIC
                    | MAX_DEST_RD_ATOMIC
                    | ALT_PATH
                    | ACCESS_FLAGS
                    | PKEY_INDEX
                    | MIN_RNR_TIMER
                    | PATH_MIG_STATE,
            ),
            Uc => t(
                0,
                AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE,
            ),
            _ => t(0, PKEY_INDEX | QKEY),
        },
        // The core lists no RC entry here, so an RC QP may leave SQE with IB_QP_STATE
        // alone (the table row is valid with empty masks).
        (Sqe, Rts) => match qp_type {
            Rc => t(0, 0),
            Uc => t(0, CUR_STATE | ACCESS_FLAGS),
            _ => t(0, CUR_STATE | QKEY),
        },
        _ => None,
    }
}

/// Equivalent of the core's `ib_modify_qp_is_ok()`: whether `mask` is a valid
/// attribute mask for moving a `qp_type` QP from `cur` to `next`.
pub fn modify_is_ok(cur: QpState, next: QpState, qp_type: QpType, mask: u32) -> bool {
    if mask & attr::CUR_STATE != 0
        && !matches!(
            cur,
            QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
        )
    {
        return false;
    }
    let Some(t) = transition(cur, next, qp_type) else {
        return false;
    };
    if mask & t.required != t.required {
        return false;
    }
    mask & !(t.required | t.optional | attr::STATE | attr::RATE_LIMIT) == 0
}
