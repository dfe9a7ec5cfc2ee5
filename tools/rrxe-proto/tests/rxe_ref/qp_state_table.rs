// SPDX-License-Identifier: GPL-2.0
// Generated from Linux 7.3 drivers/infiniband/core/verbs.c (qp_state_table)
// and include/rdma/ib_verbs.h by a mechanical C-to-Rust rewrite. Do not edit.

pub const IB_QPS_RESET: usize = 0;
pub const IB_QPS_INIT: usize = 1;
pub const IB_QPS_RTR: usize = 2;
pub const IB_QPS_RTS: usize = 3;
pub const IB_QPS_SQD: usize = 4;
pub const IB_QPS_SQE: usize = 5;
pub const IB_QPS_ERR: usize = 6;
pub const IB_QPT_SMI: usize = 0;
pub const IB_QPT_GSI: usize = 1;
pub const IB_QPT_RC: usize = 2;
pub const IB_QPT_UC: usize = 3;
pub const IB_QPT_UD: usize = 4;
pub const IB_QPT_RAW_PACKET: usize = 8;
pub const IB_QPT_XRC_INI: usize = 9;
pub const IB_QPT_XRC_TGT: usize = 10;
pub const IB_QPT_DRIVER: usize = 255;
pub const IB_QPT_RAW_IPV6: usize = IB_QPT_UD + 1;
pub const IB_QPT_RAW_ETHERTYPE: usize = IB_QPT_UD + 2;
pub const IB_QP_STATE: u32 = 1 << 0;
pub const IB_QP_CUR_STATE: u32 = 1 << 1;
pub const IB_QP_EN_SQD_ASYNC_NOTIFY: u32 = 1 << 2;
pub const IB_QP_ACCESS_FLAGS: u32 = 1 << 3;
pub const IB_QP_PKEY_INDEX: u32 = 1 << 4;
pub const IB_QP_PORT: u32 = 1 << 5;
pub const IB_QP_QKEY: u32 = 1 << 6;
pub const IB_QP_AV: u32 = 1 << 7;
pub const IB_QP_PATH_MTU: u32 = 1 << 8;
pub const IB_QP_TIMEOUT: u32 = 1 << 9;
pub const IB_QP_RETRY_CNT: u32 = 1 << 10;
pub const IB_QP_RNR_RETRY: u32 = 1 << 11;
pub const IB_QP_RQ_PSN: u32 = 1 << 12;
pub const IB_QP_MAX_QP_RD_ATOMIC: u32 = 1 << 13;
pub const IB_QP_ALT_PATH: u32 = 1 << 14;
pub const IB_QP_MIN_RNR_TIMER: u32 = 1 << 15;
pub const IB_QP_SQ_PSN: u32 = 1 << 16;
pub const IB_QP_MAX_DEST_RD_ATOMIC: u32 = 1 << 17;
pub const IB_QP_PATH_MIG_STATE: u32 = 1 << 18;
pub const IB_QP_CAP: u32 = 1 << 19;
pub const IB_QP_DEST_QPN: u32 = 1 << 20;
pub const IB_QP_RESERVED1: u32 = 1 << 21;
pub const IB_QP_RESERVED2: u32 = 1 << 22;
pub const IB_QP_RESERVED3: u32 = 1 << 23;
pub const IB_QP_RESERVED4: u32 = 1 << 24;
pub const IB_QP_RATE_LIMIT: u32 = 1 << 25;

pub struct Entry {
    pub cur: usize,
    pub next: usize,
    pub req_param: &'static [(usize, u32)],
    pub opt_param: &'static [(usize, u32)],
}

/// Every `.valid = 1` entry of qp_state_table.
pub static QP_STATE_TABLE: &[Entry] = &[
    Entry {
        cur: IB_QPS_RESET,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_RESET,
        next: IB_QPS_INIT,
        req_param: &[
            (IB_QPT_UD, IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY),
            (IB_QPT_RAW_PACKET, IB_QP_PORT),
            (
                IB_QPT_UC,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_RC,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (IB_QPT_SMI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
        ],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_INIT,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_INIT,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_INIT,
        next: IB_QPS_INIT,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_RC,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
            ),
            (IB_QPT_SMI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_INIT,
        next: IB_QPS_RTR,
        req_param: &[
            (
                IB_QPT_UC,
                IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN,
            ),
            (
                IB_QPT_RC,
                IB_QP_AV
                    | IB_QP_PATH_MTU
                    | IB_QP_DEST_QPN
                    | IB_QP_RQ_PSN
                    | IB_QP_MAX_DEST_RD_ATOMIC
                    | IB_QP_MIN_RNR_TIMER,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_AV
                    | IB_QP_PATH_MTU
                    | IB_QP_DEST_QPN
                    | IB_QP_RQ_PSN
                    | IB_QP_MAX_DEST_RD_ATOMIC
                    | IB_QP_MIN_RNR_TIMER,
            ),
        ],
        opt_param: &[
            (IB_QPT_UD, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
            ),
            (
                IB_QPT_RC,
                IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
            ),
            (IB_QPT_SMI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_RTR,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_RTR,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_RTR,
        next: IB_QPS_RTS,
        req_param: &[
            (IB_QPT_UD, IB_QP_SQ_PSN),
            (IB_QPT_UC, IB_QP_SQ_PSN),
            (
                IB_QPT_RC,
                IB_QP_TIMEOUT
                    | IB_QP_RETRY_CNT
                    | IB_QP_RNR_RETRY
                    | IB_QP_SQ_PSN
                    | IB_QP_MAX_QP_RD_ATOMIC,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_TIMEOUT
                    | IB_QP_RETRY_CNT
                    | IB_QP_RNR_RETRY
                    | IB_QP_SQ_PSN
                    | IB_QP_MAX_QP_RD_ATOMIC,
            ),
            (IB_QPT_XRC_TGT, IB_QP_TIMEOUT | IB_QP_SQ_PSN),
            (IB_QPT_SMI, IB_QP_SQ_PSN),
            (IB_QPT_GSI, IB_QP_SQ_PSN),
        ],
        opt_param: &[
            (IB_QPT_UD, IB_QP_CUR_STATE | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_CUR_STATE | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_RC,
                IB_QP_CUR_STATE
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_CUR_STATE | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_CUR_STATE
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (IB_QPT_SMI, IB_QP_CUR_STATE | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_CUR_STATE | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_RTS,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_RTS,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_RTS,
        next: IB_QPS_RTS,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_CUR_STATE | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS | IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_RC,
                IB_QP_CUR_STATE
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_ALT_PATH
                    | IB_QP_PATH_MIG_STATE
                    | IB_QP_MIN_RNR_TIMER,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS | IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_CUR_STATE
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_ALT_PATH
                    | IB_QP_PATH_MIG_STATE
                    | IB_QP_MIN_RNR_TIMER,
            ),
            (IB_QPT_SMI, IB_QP_CUR_STATE | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_CUR_STATE | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_RTS,
        next: IB_QPS_SQD,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_UC, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_RC, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_XRC_INI, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_XRC_TGT, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_SMI, IB_QP_EN_SQD_ASYNC_NOTIFY),
            (IB_QPT_GSI, IB_QP_EN_SQD_ASYNC_NOTIFY),
        ],
    },
    Entry {
        cur: IB_QPS_SQD,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_SQD,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_SQD,
        next: IB_QPS_RTS,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_CUR_STATE | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_CUR_STATE | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_RC,
                IB_QP_CUR_STATE
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_CUR_STATE | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_CUR_STATE
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (IB_QPT_SMI, IB_QP_CUR_STATE | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_CUR_STATE | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_SQD,
        next: IB_QPS_SQD,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (
                IB_QPT_UC,
                IB_QP_AV
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_PKEY_INDEX
                    | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_RC,
                IB_QP_PORT
                    | IB_QP_AV
                    | IB_QP_TIMEOUT
                    | IB_QP_RETRY_CNT
                    | IB_QP_RNR_RETRY
                    | IB_QP_MAX_QP_RD_ATOMIC
                    | IB_QP_MAX_DEST_RD_ATOMIC
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_PKEY_INDEX
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_INI,
                IB_QP_PORT
                    | IB_QP_AV
                    | IB_QP_TIMEOUT
                    | IB_QP_RETRY_CNT
                    | IB_QP_RNR_RETRY
                    | IB_QP_MAX_QP_RD_ATOMIC
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_PKEY_INDEX
                    | IB_QP_PATH_MIG_STATE,
            ),
            (
                IB_QPT_XRC_TGT,
                IB_QP_PORT
                    | IB_QP_AV
                    | IB_QP_TIMEOUT
                    | IB_QP_MAX_DEST_RD_ATOMIC
                    | IB_QP_ALT_PATH
                    | IB_QP_ACCESS_FLAGS
                    | IB_QP_PKEY_INDEX
                    | IB_QP_MIN_RNR_TIMER
                    | IB_QP_PATH_MIG_STATE,
            ),
            (IB_QPT_SMI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_PKEY_INDEX | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_SQE,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_SQE,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_SQE,
        next: IB_QPS_RTS,
        req_param: &[],
        opt_param: &[
            (IB_QPT_UD, IB_QP_CUR_STATE | IB_QP_QKEY),
            (IB_QPT_UC, IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS),
            (IB_QPT_SMI, IB_QP_CUR_STATE | IB_QP_QKEY),
            (IB_QPT_GSI, IB_QP_CUR_STATE | IB_QP_QKEY),
        ],
    },
    Entry {
        cur: IB_QPS_ERR,
        next: IB_QPS_RESET,
        req_param: &[],
        opt_param: &[],
    },
    Entry {
        cur: IB_QPS_ERR,
        next: IB_QPS_ERR,
        req_param: &[],
        opt_param: &[],
    },
];
