// SPDX-License-Identifier: GPL-2.0

//! PSN arithmetic laws and the timer/credit tables.

use proptest::prelude::*;
use rrxe_proto::psn::*;
use std::cmp::Ordering;

/// rxe_comp.c `rnrnak_usec[]`, indexed by `enum ib_rnr_timeout` (IB_RNR_TIMER_655_36
/// is 0, IB_RNR_TIMER_000_01 is 1, ... IB_RNR_TIMER_491_52 is 31).
const RXE_RNRNAK_USEC: [(u8, u32); 32] = [
    (0, 655360),
    (1, 10),
    (2, 20),
    (3, 30),
    (4, 40),
    (5, 60),
    (6, 80),
    (7, 120),
    (8, 160),
    (9, 240),
    (10, 320),
    (11, 480),
    (12, 640),
    (13, 960),
    (14, 1280),
    (15, 1920),
    (16, 2560),
    (17, 3840),
    (18, 5120),
    (19, 7680),
    (20, 10240),
    (21, 15360),
    (22, 20480),
    (23, 30720),
    (24, 40960),
    (25, 61410),
    (26, 81920),
    (27, 122880),
    (28, 163840),
    (29, 245760),
    (30, 327680),
    (31, 491520),
];

/// rdmavt rc.c `credit_table[31]`.
const RVT_CREDIT_TABLE: [u32; 31] = [
    0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
];

#[test]
fn tables_match_kernel() {
    for (code, usec) in RXE_RNRNAK_USEC {
        assert_eq!(rnr_nak_usec(code), usec, "code {code}");
    }
    for (code, n) in RVT_CREDIT_TABLE.iter().enumerate() {
        assert_eq!(credit_count(code as u8), Some(*n));
        assert_eq!(credit_code(*n), code as u8);
    }
    assert_eq!(credit_count(31), None);
    assert_eq!(credit_count(200), None);
}

#[test]
fn timeout_and_mtu() {
    assert_eq!(retransmit_timeout_ns(0), None);
    for t in 1..32u8 {
        // 4.096 us * 2^t, exactly, in ns
        assert_eq!(retransmit_timeout_ns(t), Some(4096 * (1u64 << t)));
    }
    assert_eq!(retransmit_timeout_ns(32 + 3), retransmit_timeout_ns(3));
    for (e, b) in [(1, 256), (2, 512), (3, 1024), (4, 2048), (5, 4096)] {
        assert_eq!(ib_mtu_bytes(e), Some(b));
        assert_eq!(ib_mtu_enum(b), Some(e));
    }
    assert_eq!(ib_mtu_bytes(0), None);
    assert_eq!(ib_mtu_bytes(6), None);
    assert_eq!(ib_mtu_enum(1500), None);
}

/// rxe's psn_compare() as written in C, on 32-bit two's complement.
fn rxe_psn_compare(a: u32, b: u32) -> i32 {
    (a.wrapping_sub(b) as i32).wrapping_shl(8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn add_sub_inverse(a in 0u32..PSN_MODULUS, n in any::<u32>()) {
        let b = psn_add(a, n);
        prop_assert!(b <= PSN_MASK);
        prop_assert_eq!(psn_sub(b, a), n & PSN_MASK);
        prop_assert_eq!(psn_add(b, PSN_MODULUS - (n & PSN_MASK)), a);
        prop_assert_eq!(msn_add(a, n), b);
    }

    #[test]
    fn compare_orders_within_half_window(a in 0u32..PSN_MODULUS, d in 1u32..PSN_HALF) {
        let b = psn_add(a, d);
        prop_assert!(psn_compare(b, a) > 0);
        prop_assert!(psn_compare(a, b) < 0);
        prop_assert_eq!(psn_cmp(b, a), Ordering::Greater);
        prop_assert_eq!(psn_cmp(a, b), Ordering::Less);
        prop_assert_eq!(psn_cmp(a, a), Ordering::Equal);
        prop_assert_eq!(psn_diff(b, a), d as i32);
        prop_assert_eq!(psn_diff(a, b), -(d as i32));
    }

    #[test]
    fn compare_is_rxe_compare(a in any::<u32>(), b in any::<u32>()) {
        prop_assert_eq!(psn_compare(a, b), rxe_psn_compare(a, b));
        // Only the low 24 bits matter.
        prop_assert_eq!(psn_compare(a, b).signum(), psn_compare(a & PSN_MASK, b & PSN_MASK).signum());
    }

    #[test]
    fn compare_is_antisymmetric(a in 0u32..PSN_MODULUS, b in 0u32..PSN_MODULUS) {
        if psn_sub(a, b) != PSN_HALF {
            prop_assert_eq!(psn_cmp(a, b), psn_cmp(b, a).reverse());
        }
    }

    #[test]
    fn window_membership(start in 0u32..PSN_MODULUS, len in 0u32..PSN_MODULUS, k in any::<u32>()) {
        let inside = psn_add(start, if len == 0 { 0 } else { k % len });
        prop_assert_eq!(psn_in_window(inside, start, len), len != 0);
        prop_assert!(!psn_in_window(psn_add(start, len), start, len) || len == PSN_MODULUS);
    }

    #[test]
    fn credit_code_is_floor(avail in any::<u32>()) {
        let c = credit_code(avail);
        let n = credit_count(c).unwrap();
        prop_assert!(n <= avail);
        if let Some(next) = credit_count(c + 1) {
            prop_assert!(next > avail);
        }
    }
}
