// SPDX-License-Identifier: GPL-2.0

//! Self-contained test cases of the protocol core, using `core` only, so that the
//! same cases run under `cargo test` on the host and under KUnit in the kernel.
//! Each case returns `Err` with a short reason on failure.

use core::cell::Cell;

use super::answers::{Answer, AnswerRing, AtomicReplies, KeptRead, KeptReads};
use super::doorbell::{
    cq_arm_matches, cq_arm_take, CqWords, SqWatch, SqWords, CQ_ARM_NEXT, CQ_ARM_SOLICITED,
    SQ_POLLED, SQ_WATCHED,
};
use super::hdr::{
    NakCode, Syndrome, AETH_ACK_UNLIMITED, AETH_NAK_PSN_SEQ_ERROR, AETH_NAK_REM_ACC_ERR,
};
use super::icrc::{self, Crc32, IcrcError, NetHdr, SoftCrc32, ICRC_SEED};
use super::ip;
use super::opcode::{self, Transport};
use super::packet::{self, HeaderFields, ParseError};
use super::pma;
use super::psn;
use super::qp_state::{attr, modify_is_ok, QpState, QpType};
use super::read_ahead::{ReadAhead, SPAN};
use super::response_time::{ResponseTime, MAX_STRETCH};
use super::window::{SendWindow, MAX_WINDOW, MIN_WINDOW};

/// Result of one case.
pub type CaseResult = Result<(), &'static str>;

/// A test case function.
pub type CaseFn = fn() -> CaseResult;

/// Calls `$m!` with every case as `name => function,`, in order: the one list
/// of the cases. [`CASES`] is built from it here, and the driver's KUnit suite
/// `rrxe_proto` (one KUnit case each) in `proto_kunit.rs`, so that neither can
/// miss a case.
#[macro_export]
macro_rules! rrxe_proto_cases {
    ($m:ident) => {
        $m! {
            crc32_check_value => case_crc32_check_value,
            crc32_incremental => case_crc32_incremental,
            icrc_seed => case_icrc_seed,
            icrc_scapy_uc_send_only => case_icrc_scapy_uc_send_only,
            icrc_connectx4_cnp => case_icrc_connectx4_cnp,
            icrc_masked_fields => case_icrc_masked_fields,
            icrc_ipv6_generate_verify => case_icrc_ipv6_generate_verify,
            icrc_flush_quirk => case_icrc_flush_quirk,
            icrc_two_crc_calls => case_icrc_two_crc_calls,
            opcode_count => case_opcode_count,
            opcode_lengths => case_opcode_lengths,
            opcode_reserved_rejected => case_opcode_reserved_rejected,
            opcode_classes => case_opcode_classes,
            aeth_decode => case_aeth_decode,
            psn_wrap => case_psn_wrap,
            psn_window => case_psn_window,
            psn_read_response_len => case_psn_read_response_len,
            credit_table => case_credit_table,
            rnr_timer_table => case_rnr_timer_table,
            retransmit_timeout => case_retransmit_timeout,
            qp_rc_bringup => case_qp_rc_bringup,
            qp_invalid_transitions => case_qp_invalid_transitions,
            qp_cur_state_rule => case_qp_cur_state_rule,
            parse_roundtrip_write_first => case_parse_roundtrip_write_first,
            parse_truncated => case_parse_truncated,
            parse_bad_tver => case_parse_bad_tver,
            parse_bad_pad => case_parse_bad_pad,
            parse_unaligned => case_parse_unaligned,
            parse_unexpected_payload => case_parse_unexpected_payload,
            parse_mtu_rules => case_parse_mtu_rules,
            parse_atomic_write_length => case_parse_atomic_write_length,
            parse_unknown_opcode => case_parse_unknown_opcode,
            packet_addressed => case_packet_addressed,
            packet_multicast_group => case_packet_multicast_group,
            window_halves_and_grows => case_window_halves_and_grows,
            read_ahead_fills_holes => case_read_ahead_fills_holes,
            read_ahead_bounds => case_read_ahead_bounds,
            response_time_stretches_ack_timeout => case_response_time_stretches_ack_timeout,
            response_time_scales_probe_wait => case_response_time_scales_probe_wait,
            answers_read_segments => case_answers_read_segments,
            answers_order_and_ack_merge => case_answers_order_and_ack_merge,
            answers_full_and_wrap => case_answers_full_and_wrap,
            answers_drop_read => case_answers_drop_read,
            answers_atomic_replies => case_answers_atomic_replies,
            answers_kept_reads => case_answers_kept_reads,
            doorbell_sq_arm_idempotent => case_doorbell_sq_arm_idempotent,
            doorbell_sq_disarm_unarmed => case_doorbell_sq_disarm_unarmed,
            doorbell_sq_disarm_order => case_doorbell_sq_disarm_order,
            doorbell_cq_arm_matches => case_doorbell_cq_arm_matches,
            doorbell_cq_arm_take => case_doorbell_cq_arm_take,
            doorbell_cq_arm_take_hostile => case_doorbell_cq_arm_take_hostile,
            pma_class_port_info => case_pma_class_port_info,
            pma_counters_ext => case_pma_counters_ext,
            pma_link_downed_saturates => case_pma_link_downed_saturates,
            pma_other_requests => case_pma_other_requests,
        }
    };
}

macro_rules! cases_table {
    ($($name:ident => $case:ident,)*) => {
        /// All cases with their names.
        pub const CASES: &[(&str, CaseFn)] = &[$((stringify!($name), $case)),*];
    };
}
rrxe_proto_cases!(cases_table);

/// Runs every case; returns the number that passed and the first failure.
pub fn run_all() -> (usize, Option<(&'static str, &'static str)>) {
    let mut passed = 0;
    let mut first_failure = None;
    for &(name, case) in CASES {
        match case() {
            Ok(()) => passed += 1,
            Err(why) => {
                if first_failure.is_none() {
                    first_failure = Some((name, why));
                }
            }
        }
    }
    (passed, first_failure)
}

fn check(cond: bool, why: &'static str) -> CaseResult {
    if cond {
        Ok(())
    } else {
        Err(why)
    }
}

/// IPv4 + UDP headers and UDP payload of an example UC SEND ONLY packet from
/// scapy's RoCE regression test (test/contrib/roce.uts), whose ICRC scapy gives
/// as bytes 78 f3 53 f3. Pad count 2: the last two payload bytes are pad.
const SCAPY_IP: [u8; 20] = [
    0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07,
    0xc0, 0xa8, 0x00, 0x07,
];
const SCAPY_UDP: [u8; 8] = [0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2];
const SCAPY_PKT: [u8; 36] = [
    0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10, // BTH
    0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a, 0x95, 0x50, 0x54, 0x01, 0xbe, 0x88,
    0x5e, 0x50, // payload
    0x00, 0x00, // pad
    0x78, 0xf3, 0x53, 0xf3, // ICRC
];

/// A CNP captured on a ConnectX-4 Lx (scapy test/contrib/roce.uts): IPv4 + UDP
/// headers and UDP payload, ICRC computed by the NIC.
const CX4_CNP_IP: [u8; 20] = [
    0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
    0x0a, 0x00, 0x12, 0x01,
];
const CX4_CNP_UDP: [u8; 8] = [0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00];
const CX4_CNP_PKT: [u8; 32] = [
    0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, // BTH
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // reserved
    0x82, 0xfd, 0x00, 0x2a, // ICRC
];

fn case_crc32_check_value() -> CaseResult {
    // The standard CRC-32 check value: crc32("123456789") = 0xcbf43926.
    let crc = !SoftCrc32.update(!0, b"123456789");
    check(crc == 0xcbf4_3926, "crc32 check value")
}

fn case_crc32_incremental() -> CaseResult {
    let mut data = [0u8; 61];
    for (i, b) in (0u8..).zip(data.iter_mut()) {
        *b = i.wrapping_mul(37).wrapping_add(11);
    }
    let whole = SoftCrc32.update(0x1234_5678, &data);
    for split in [0, 1, 7, 8, 9, 30, 60, 61] {
        let (a, b) = data.split_at_checked(split).ok_or("split")?;
        let parts = SoftCrc32.update(SoftCrc32.update(0x1234_5678, a), b);
        check(parts == whole, "crc32 split mismatch")?;
    }
    Ok(())
}

fn case_icrc_seed() -> CaseResult {
    check(
        SoftCrc32.update(0xffff_ffff, &[0xff; 8]) == ICRC_SEED,
        "seed is crc32_le(~0, 8 x 0xff)",
    )
}

/// Counts the updates it is asked for (each is an FPU section in the kernel).
struct CountingCrc(core::cell::Cell<u32>);

impl Crc32 for CountingCrc {
    fn update(&self, crc: u32, data: &[u8]) -> u32 {
        self.0.set(self.0.get() + 1);
        SoftCrc32.update(crc, data)
    }
}

/// Every opcode's ICRC is two CRC calls, headers then the rest, and still the
/// value the five-call order gives.
fn case_icrc_two_crc_calls() -> CaseResult {
    let ip = SCAPY_IP;
    for op in 0..=255u8 {
        let Some(info) = opcode::lookup(op) else {
            continue;
        };
        let mut pkt = [0u8; 128];
        let len = info.header_len() + 8 + opcode::ICRC_BYTES;
        pkt[0] = op;
        for (i, b) in pkt[1..len].iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37);
        }
        let counting = CountingCrc(core::cell::Cell::new(0));
        let got = icrc::compute(&counting, NetHdr::V4(&ip), &SCAPY_UDP, &pkt[..len])
            .map_err(|_| "compute")?;
        check(
            counting.0.get() == 2,
            "an opcode's ICRC took more than two calls",
        )?;
        // The same CRC over the masked parts one by one.
        let mut m = ip;
        (m[1], m[8], m[10], m[11]) = (0xff, 0xff, 0xff, 0xff);
        let mut u = SCAPY_UDP;
        (u[6], u[7]) = (0xff, 0xff);
        let mut b = [0u8; opcode::BTH_BYTES];
        b.copy_from_slice(&pkt[..opcode::BTH_BYTES]);
        b[4] = 0xff;
        let mut crc = SoftCrc32.update(ICRC_SEED, &m);
        crc = SoftCrc32.update(crc, &u);
        crc = SoftCrc32.update(crc, &b);
        crc = SoftCrc32.update(crc, &pkt[opcode::BTH_BYTES..info.header_len()]);
        let rest = &pkt[usize::from(info.rxe_payload_offset)..len - opcode::ICRC_BYTES];
        check(got == !SoftCrc32.update(crc, rest), "ICRC changed")?;
    }
    Ok(())
}

fn case_icrc_scapy_uc_send_only() -> CaseResult {
    let net = NetHdr::V4(&SCAPY_IP);
    icrc::verify(&SoftCrc32, net, &SCAPY_UDP, &SCAPY_PKT).map_err(|_| "scapy vector")?;
    let p = packet::parse(&SCAPY_PKT, Some(256)).map_err(|_| "parse scapy vector")?;
    check(p.info.opcode == opcode::UC_SEND_ONLY, "opcode")?;
    check(
        p.payload.len() == 18 && p.pad.len() == 2,
        "payload/pad split",
    )?;
    check(
        p.bth.mig() && p.bth.dest_qpn() == 211 && p.bth.psn() == 13_571_856,
        "bth",
    )?;
    check(p.icrc() == 0xf353_f378, "stored icrc")
}

fn case_icrc_connectx4_cnp() -> CaseResult {
    let net = NetHdr::V4(&CX4_CNP_IP);
    let icrc =
        icrc::compute_ibta(&SoftCrc32, net, &CX4_CNP_UDP, &CX4_CNP_PKT).map_err(|_| "compute")?;
    check(Some(icrc) == icrc::stored(&CX4_CNP_PKT), "hardware ICRC")?;
    // rxe has no CNP opcode, so the table-driven paths refuse it.
    check(
        icrc::compute(&SoftCrc32, net, &CX4_CNP_UDP, &CX4_CNP_PKT)
            == Err(IcrcError::UnknownOpcode(0x81)),
        "CNP unknown to rxe",
    )
}

fn case_icrc_masked_fields() -> CaseResult {
    let mut ip = SCAPY_IP;
    let mut udp = SCAPY_UDP;
    let mut pkt = SCAPY_PKT;
    ip[1] = 0x5a; // TOS
    ip[8] = 0x01; // TTL
    ip[10] = 0x12; // checksum
    udp[6] = 0; // UDP checksum
    udp[7] = 0;
    pkt[4] = 0xc0; // FECN, BECN
    icrc::verify(&SoftCrc32, NetHdr::V4(&ip), &udp, &pkt).map_err(|_| "masked field")?;
    ip[12] ^= 1; // source address is covered
    check(
        icrc::verify(&SoftCrc32, NetHdr::V4(&ip), &udp, &pkt).is_err(),
        "saddr not covered",
    )
}

fn case_icrc_ipv6_generate_verify() -> CaseResult {
    let mut ip6 = [0u8; 40];
    ip6[0] = 0x60;
    ip6[5] = 40; // payload length: UDP 8 + packet 32
    ip6[6] = 17;
    ip6[7] = 64;
    ip6[23] = 1; // ::1 -> ::2
    ip6[39] = 2;
    let udp = [0xc0, 0x01, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00];
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_SEND_ONLY;
    f.bth.pkey = 0xffff;
    f.bth.dest_qpn = 0x11;
    let mut pkt = [0u8; 32];
    let len = packet::build_packet(&mut pkt, &f, b"0123456789abcd").map_err(|_| "build")?;
    check(len == pkt.len(), "length")?;
    let net = NetHdr::from_ip(&ip6).map_err(|_| "ipv6 header")?;
    icrc::generate(&SoftCrc32, net, &udp, &mut pkt).map_err(|_| "generate")?;
    icrc::verify(&SoftCrc32, net, &udp, &pkt).map_err(|_| "verify")?;
    // Traffic class, flow label and hop limit are masked; the addresses are not.
    ip6[0] = 0x6f;
    ip6[1] = 0xab;
    ip6[3] = 0x42;
    ip6[7] = 1;
    icrc::verify(&SoftCrc32, NetHdr::V6(&ip6), &udp, &pkt).map_err(|_| "masked v6")?;
    ip6[39] = 3;
    check(
        icrc::verify(&SoftCrc32, NetHdr::V6(&ip6), &udp, &pkt).is_err(),
        "daddr not covered",
    )
}

fn case_icrc_flush_quirk() -> CaseResult {
    // rxe's FLUSH entry has no payload offset, so its ICRC covers the headers and
    // then the whole packet (BTH unmasked) again.
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_FLUSH;
    f.bth.psn = 5;
    let mut pkt = [0u8; 36];
    packet::build_packet(&mut pkt, &f, &[]).map_err(|_| "build")?;
    let net = NetHdr::V4(&SCAPY_IP);
    let rxe = icrc::compute(&SoftCrc32, net, &SCAPY_UDP, &pkt).map_err(|_| "rxe")?;
    let ibta = icrc::compute_ibta(&SoftCrc32, net, &SCAPY_UDP, &pkt).map_err(|_| "ibta")?;
    let body = pkt.get(..32).ok_or("slice")?;
    // Undo the final inversion of the IBTA value and continue over the body.
    let manual = !SoftCrc32.update(!ibta, body);
    check(rxe == manual && rxe != ibta, "FLUSH ICRC as rxe")
}

fn case_opcode_count() -> CaseResult {
    let n = opcode::OPCODES.iter().filter(|o| o.is_some()).count();
    check(n == 60, "rxe knows 60 opcodes")
}

fn case_opcode_lengths() -> CaseResult {
    let expect: [(u8, u8); 10] = [
        (opcode::RC_SEND_ONLY, 12),
        (opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32),
        (opcode::RC_RDMA_READ_REQUEST, 28),
        (opcode::RC_ACKNOWLEDGE, 16),
        (opcode::RC_ATOMIC_ACKNOWLEDGE, 24),
        (opcode::RC_COMPARE_SWAP, 40),
        (opcode::RC_FLUSH, 32),
        (opcode::UD_SEND_ONLY_WITH_IMMEDIATE, 24),
        (opcode::RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 44),
        (opcode::RC_SEND_ONLY_WITH_INVALIDATE, 16),
    ];
    for (op, len) in expect {
        let info = opcode::lookup(op).ok_or("missing opcode")?;
        check(info.length == len, "header length")?;
    }
    let info = opcode::lookup(opcode::RC_ATOMIC_ACKNOWLEDGE).ok_or("missing")?;
    check(
        info.offset(opcode::Mask::ATMACK) == Some(16),
        "ATMACK after AETH",
    )
}

fn case_opcode_reserved_rejected() -> CaseResult {
    for op in [
        0x15, 0x18, 0x19, 0x1a, 0x1b, 0x1e, 0x1f, 0x2c, 0x3f, 0x55, 0x5c, 0x60, 0x63, 0x66, 0x80,
        0x81, 0xa0, 0xe0, 0xff,
    ] {
        check(opcode::lookup(op).is_none(), "reserved opcode accepted")?;
    }
    Ok(())
}

fn case_opcode_classes() -> CaseResult {
    let get = |op| opcode::lookup(op).ok_or("missing");
    let first = get(opcode::RC_RDMA_WRITE_FIRST)?;
    let mid = get(opcode::UC_SEND_MIDDLE)?;
    let last = get(opcode::RC_RDMA_READ_RESPONSE_LAST)?;
    let only = get(opcode::UD_SEND_ONLY)?;
    check(
        first.is_first() && !first.is_only() && first.is_request(),
        "first",
    )?;
    check(
        mid.is_middle() && mid.transport() == Transport::Uc,
        "middle",
    )?;
    check(last.is_last() && last.is_response(), "last")?;
    check(only.is_only() && only.transport() == Transport::Ud, "only")?;
    check(!get(opcode::RC_ACKNOWLEDGE)?.has_payload(), "ack payload")
}

fn case_aeth_decode() -> CaseResult {
    check(
        Syndrome::decode(AETH_ACK_UNLIMITED) == Syndrome::Ack { credit: 31 },
        "ack",
    )?;
    check(
        Syndrome::decode(0x2e) == Syndrome::RnrNak { timer: 14 },
        "rnr",
    )?;
    check(
        Syndrome::decode(AETH_NAK_REM_ACC_ERR) == Syndrome::Nak(NakCode::RemoteAccessError),
        "nak",
    )?;
    check(
        Syndrome::decode(0x64) == Syndrome::Nak(NakCode::InvalidRdRequest),
        "rd nak",
    )?;
    check(
        Syndrome::decode(0x65) == Syndrome::Nak(NakCode::Reserved(5)),
        "reserved nak",
    )?;
    check(
        Syndrome::decode(0x41) == Syndrome::Reserved(0x41),
        "reserved type",
    )?;
    check(Syndrome::decode(0x80) == Syndrome::Reserved(0x80), "bit 7")?;
    for b in 0..=255u8 {
        check(Syndrome::decode(b).encode() == b, "syndrome round trip")?;
    }
    Ok(())
}

fn case_psn_wrap() -> CaseResult {
    check(psn::psn_add(0xff_ffff, 1) == 0, "add wraps")?;
    check(psn::psn_sub(2, 0xff_fffe) == 4, "sub wraps")?;
    check(psn::psn_compare(0, 0xff_ffff) > 0, "0 after max")?;
    check(psn::psn_compare(0xff_ffff, 0) < 0, "max before 0")?;
    check(psn::psn_compare(7, 7) == 0, "equal")?;
    check(psn::psn_diff(3, 0xff_fffd) == 6, "signed diff")?;
    check(psn::psn_diff(0xff_fffd, 3) == -6, "negative diff")
}

fn case_psn_window() -> CaseResult {
    check(
        psn::psn_in_window(0xff_ffff, 0xff_fff0, 32),
        "end before wrap",
    )?;
    check(psn::psn_in_window(0x0f, 0xff_fff0, 32), "after wrap")?;
    check(!psn::psn_in_window(0x10, 0xff_fff0, 32), "past window")?;
    check(
        !psn::psn_in_window(0xff_ffef, 0xff_fff0, 32),
        "before window",
    )
}

fn case_psn_read_response_len() -> CaseResult {
    // 2500 bytes at MTU 1024: PSNs 0xff_fffe, 0xff_ffff, 0 (wraps).
    let len = |psn| psn::read_response_len(0xff_fffe, 0, 2500, 1024, psn);
    check(len(0xff_fffe) == Some(1024), "first")?;
    check(len(0xff_ffff) == Some(1024), "middle, across the wrap")?;
    check(len(0) == Some(452), "last brings the rest")?;
    check(
        len(1).is_none() && len(0xff_fffd).is_none(),
        "outside the READ",
    )?;
    check(
        psn::read_response_len(5, 5, 0, 1024, 5) == Some(0),
        "zero-length READ",
    )?;
    check(
        psn::read_response_len(5, 6, 2048, 1024, 6) == Some(1024),
        "exact multiple",
    )?;
    // A last PSN that leaves nothing for the PSNs before it.
    check(
        psn::read_response_len(5, 7, 1024, 1024, 6).is_none(),
        "PSN past the data",
    )?;
    check(
        psn::read_response_len(0, 0x7f_ffff, u32::MAX, 256, 0x7f_fffe) == Some(256),
        "no overflow",
    )
}

fn case_credit_table() -> CaseResult {
    check(psn::credit_count(0) == Some(0), "code 0")?;
    check(psn::credit_count(5) == Some(6), "code 5")?;
    check(psn::credit_count(30) == Some(32768), "code 30")?;
    check(psn::credit_count(psn::CREDIT_INVALID).is_none(), "code 31")?;
    check(psn::credit_code(7) == 5, "7 credits -> 6")?;
    check(psn::credit_code(100_000) == 30, "saturates")?;
    check(psn::credit_code(0) == 0, "zero")
}

fn case_rnr_timer_table() -> CaseResult {
    check(psn::rnr_nak_usec(0) == 655_360, "code 0 is the longest")?;
    check(psn::rnr_nak_usec(1) == 10, "code 1")?;
    check(psn::rnr_nak_usec(14) == 1280, "code 14")?;
    check(psn::rnr_nak_usec(31) == 491_520, "code 31")?;
    check(psn::rnr_nak_usec(0x21) == 10, "high bits ignored")
}

fn case_retransmit_timeout() -> CaseResult {
    check(psn::retransmit_timeout_ns(0).is_none(), "0 is infinite")?;
    check(psn::retransmit_timeout_ns(1) == Some(8192), "4.096us * 2")?;
    check(psn::retransmit_timeout_ns(14) == Some(67_108_864), "~67ms")?;
    check(
        psn::retransmit_timeout_ns(31) == Some(4096 << 31),
        "largest",
    )?;
    check(psn::ib_mtu_bytes(3) == Some(1024), "IB_MTU_1024")?;
    check(psn::ib_mtu_enum(4096) == Some(5), "4096")
}

fn case_qp_rc_bringup() -> CaseResult {
    let rc = QpType::Rc;
    let init = attr::STATE | attr::PKEY_INDEX | attr::PORT | attr::ACCESS_FLAGS;
    check(
        modify_is_ok(QpState::Reset, QpState::Init, rc, init),
        "RESET->INIT",
    )?;
    check(
        !modify_is_ok(
            QpState::Reset,
            QpState::Init,
            rc,
            init & !attr::ACCESS_FLAGS,
        ),
        "missing access flags",
    )?;
    let rtr = attr::STATE
        | attr::AV
        | attr::PATH_MTU
        | attr::DEST_QPN
        | attr::RQ_PSN
        | attr::MAX_DEST_RD_ATOMIC
        | attr::MIN_RNR_TIMER;
    check(
        modify_is_ok(QpState::Init, QpState::Rtr, rc, rtr),
        "INIT->RTR",
    )?;
    check(
        !modify_is_ok(QpState::Init, QpState::Rtr, rc, rtr | attr::SQ_PSN),
        "SQ_PSN not allowed at RTR",
    )?;
    let rts = attr::STATE
        | attr::TIMEOUT
        | attr::RETRY_CNT
        | attr::RNR_RETRY
        | attr::SQ_PSN
        | attr::MAX_QP_RD_ATOMIC;
    check(
        modify_is_ok(QpState::Rtr, QpState::Rts, rc, rts),
        "RTR->RTS",
    )?;
    check(
        modify_is_ok(QpState::Rtr, QpState::Rts, rc, rts | attr::RATE_LIMIT),
        "rate limit always allowed",
    )?;
    check(
        modify_is_ok(QpState::Rts, QpState::Err, rc, attr::STATE),
        "RTS->ERR",
    )
}

fn case_qp_invalid_transitions() -> CaseResult {
    let all = u32::MAX;
    for t in QpType::ALL {
        check(
            !modify_is_ok(QpState::Reset, QpState::Rts, t, all),
            "RESET->RTS",
        )?;
        check(
            !modify_is_ok(QpState::Reset, QpState::Err, t, attr::STATE),
            "RESET->ERR is not in the table",
        )?;
        check(
            !modify_is_ok(QpState::Err, QpState::Rts, t, attr::STATE),
            "ERR->RTS",
        )?;
        check(
            !modify_is_ok(QpState::Init, QpState::Sqe, t, attr::STATE),
            "->SQE",
        )?;
    }
    check(
        modify_is_ok(
            QpState::Reset,
            QpState::Init,
            QpType::Gsi,
            attr::STATE | attr::PKEY_INDEX | attr::QKEY,
        ),
        "GSI RESET->INIT takes no port",
    )
}

fn case_qp_cur_state_rule() -> CaseResult {
    let m = attr::STATE | attr::CUR_STATE;
    check(
        modify_is_ok(QpState::Rts, QpState::Rts, QpType::Ud, m),
        "RTS",
    )?;
    check(
        modify_is_ok(QpState::Sqe, QpState::Rts, QpType::Uc, m),
        "SQE",
    )?;
    check(
        !modify_is_ok(QpState::Init, QpState::Init, QpType::Ud, m),
        "INIT",
    )?;
    check(
        !modify_is_ok(QpState::Rts, QpState::Err, QpType::Rc, m),
        "not optional",
    )
}

/// A RC RDMA WRITE FIRST with a 256-byte payload in a 300-byte buffer.
fn write_first(buf: &mut [u8; 300]) -> Result<(HeaderFields, usize), &'static str> {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_RDMA_WRITE_FIRST;
    f.bth.se = true;
    f.bth.pkey = 0xffff;
    f.bth.dest_qpn = 0x12_3456;
    f.bth.ack_req = true;
    f.bth.psn = 0xff_fffe;
    f.bth.becn = true;
    f.reth.va = 0x0123_4567_89ab_cdef;
    f.reth.rkey = 0xdead_beef;
    f.reth.len = 4096;
    let mut payload = [0u8; 256];
    for (i, b) in payload.iter_mut().enumerate() {
        *b = (i & 0xff) as u8;
    }
    let len = packet::build_packet(buf, &f, &payload).map_err(|_| "build")?;
    Ok((f, len))
}

fn case_parse_roundtrip_write_first() -> CaseResult {
    let mut buf = [0u8; 300];
    let (f, len) = write_first(&mut buf)?;
    check(len == 12 + 16 + 256 + 4, "packet length")?;
    let pkt = buf.get(..len).ok_or("len")?;
    let p = packet::parse(pkt, Some(256)).map_err(|_| "parse")?;
    check(p.fields() == f, "fields")?;
    check(
        p.payload.len() == 256 && p.payload.get(255) == Some(&255),
        "payload",
    )?;
    let reth = p.reth.ok_or("reth")?;
    check(
        reth.va() == 0x0123_4567_89ab_cdef && reth.rkey() == 0xdead_beef,
        "reth",
    )?;
    let mut again = [0u8; 28];
    let n = packet::build_headers(&mut again, &p.fields()).map_err(|_| "rebuild")?;
    check(
        n == 28 && Some(&again[..]) == pkt.get(..28),
        "byte-exact rebuild",
    )
}

fn case_parse_truncated() -> CaseResult {
    let mut buf = [0u8; 300];
    let (_, len) = write_first(&mut buf)?;
    // With the MTU known, every prefix of a first packet is malformed; without it,
    // prefixes ending on a 4-byte boundary past the headers look like shorter
    // first packets, which is the MTU check's job to reject.
    for cut in 0..len {
        let pkt = buf.get(..cut).ok_or("cut")?;
        match packet::parse(pkt, Some(256)) {
            Err(ParseError::TooShort { .. })
            | Err(ParseError::Unaligned(_))
            | Err(ParseError::LengthMismatch { .. }) => {}
            _ => return Err("truncated packet accepted"),
        }
    }
    Ok(())
}

fn case_parse_bad_tver() -> CaseResult {
    let mut pkt = SCAPY_PKT;
    pkt[1] |= 0x01;
    check(
        packet::parse(&pkt, None) == Err(ParseError::BadTVer(1)),
        "tver",
    )
}

/// An RC ACKNOWLEDGE packet.
fn ack() -> [u8; 20] {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_ACKNOWLEDGE;
    f.aeth.syndrome = AETH_ACK_UNLIMITED;
    f.aeth.msn = 9;
    let mut b = [0u8; 20];
    // Cannot fail: the buffer is exactly the ACK size.
    let _ = packet::build_packet(&mut b, &f, &[]);
    b
}

fn case_parse_bad_pad() -> CaseResult {
    let mut a = ack();
    check(packet::parse(&a, None).is_ok(), "plain ack")?;
    a[1] |= 0x10;
    check(
        packet::parse(&a, None) == Err(ParseError::BadPad(1)),
        "pad on ack",
    )?;
    let mut buf = [0u8; 300];
    let (_, len) = write_first(&mut buf)?;
    buf[1] |= 0x20;
    let pkt = buf.get(..len).ok_or("len")?;
    check(
        packet::parse(pkt, None) == Err(ParseError::BadPad(2)),
        "pad on first",
    )
}

fn case_parse_unaligned() -> CaseResult {
    let mut buf = [0u8; 40];
    for (d, s) in buf.iter_mut().zip(SCAPY_PKT) {
        *d = s;
    }
    let pkt = buf.get(..37).ok_or("len")?;
    check(
        packet::parse(pkt, None) == Err(ParseError::Unaligned(21)),
        "unaligned",
    )
}

fn case_parse_unexpected_payload() -> CaseResult {
    let mut buf = [0u8; 24];
    for (d, s) in buf.iter_mut().zip(ack()) {
        *d = s;
    }
    check(
        packet::parse(&buf, None) == Err(ParseError::UnexpectedPayload(4)),
        "bytes after ack",
    )
}

fn case_parse_mtu_rules() -> CaseResult {
    let mut buf = [0u8; 300];
    let (mut f, len) = write_first(&mut buf)?;
    let pkt = buf.get(..len).ok_or("len")?;
    check(packet::parse(pkt, Some(256)).is_ok(), "first == mtu")?;
    check(
        packet::parse(pkt, Some(512))
            == Err(ParseError::LengthMismatch {
                payload: 256,
                mtu: 512,
            }),
        "first < mtu",
    )?;
    f.bth.opcode = opcode::RC_RDMA_WRITE_LAST;
    let mut last = [0u8; 16];
    let n = packet::build_packet(&mut last, &f, &[]).map_err(|_| "build last")?;
    let pkt = last.get(..n).ok_or("n")?;
    check(
        matches!(
            packet::parse(pkt, Some(256)),
            Err(ParseError::LengthMismatch { payload: 0, .. })
        ),
        "empty last",
    )?;
    check(packet::parse(pkt, None).is_ok(), "no mtu, no check")?;
    check(
        matches!(
            packet::parse(&SCAPY_PKT, Some(16)),
            Err(ParseError::LengthMismatch { payload: 18, .. })
        ),
        "only > mtu",
    )
}

fn case_parse_atomic_write_length() -> CaseResult {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_ATOMIC_WRITE;
    let mut buf = [0u8; 48];
    let n = packet::build_packet(&mut buf, &f, &[1, 2, 3, 4, 5, 6, 7, 8]).map_err(|_| "build")?;
    check(n == 40, "atomic write length")?;
    check(
        packet::parse(buf.get(..n).ok_or("n")?, None).is_ok(),
        "8 bytes",
    )?;
    let n = packet::build_packet(&mut buf, &f, &[1, 2, 3, 4]).map_err(|_| "build")?;
    check(
        packet::parse(buf.get(..n).ok_or("n")?, None) == Err(ParseError::BadPayloadLength(4)),
        "4 bytes",
    )
}

fn case_parse_unknown_opcode() -> CaseResult {
    check(
        packet::parse(&CX4_CNP_PKT, None) == Err(ParseError::UnknownOpcode(0x81)),
        "CNP",
    )?;
    check(
        packet::parse(&[0x04; 11], None)
            == Err(ParseError::TooShort {
                needed: 12,
                got: 11,
            }),
        "short BTH",
    )
}

/// A connected QP's address check: the packet must come from the peer's GID to
/// the QP's own, in the right family.
fn case_packet_addressed() -> CaseResult {
    let v4 = |a: [u8; 4]| {
        let mut g = [0u8; 16];
        g[10] = 0xff;
        g[11] = 0xff;
        g[12..].copy_from_slice(&a);
        g
    };
    let (local, peer) = (v4([10, 0, 0, 1]), v4([10, 0, 0, 2]));
    let mut h4 = [0u8; 20];
    h4[0] = 0x45;
    h4[12..16].copy_from_slice(&[10, 0, 0, 2]);
    h4[16..20].copy_from_slice(&[10, 0, 0, 1]);
    check(ip::addressed(&h4, &local, &peer), "v4 from the peer")?;
    check(
        !ip::addressed(&h4, &peer, &local),
        "v4 with source and destination swapped",
    )?;
    h4[15] = 3;
    check(!ip::addressed(&h4, &local, &peer), "v4 from another host")?;
    check(
        !ip::addressed(&h4[..19], &local, &peer),
        "v4 header too short",
    )?;
    let mut l6 = [0u8; 16];
    let mut p6 = [0u8; 16];
    (l6[0], l6[1], l6[15]) = (0xfd, 0x00, 1);
    (p6[0], p6[1], p6[15]) = (0xfd, 0x00, 2);
    let mut h6 = [0u8; 40];
    h6[0] = 0x60;
    h6[8..24].copy_from_slice(&p6);
    h6[24..40].copy_from_slice(&l6);
    check(ip::addressed(&h6, &l6, &p6), "v6 from the peer")?;
    check(
        !ip::addressed(&h6, &local, &peer),
        "v6 packet for a v4 path",
    )?;
    check(!ip::addressed(&h4, &l6, &p6), "v4 packet for a v6 path")?;
    h6[39] = 9;
    check(!ip::addressed(&h6, &l6, &p6), "v6 to another address")?;
    check(!ip::addressed(&[], &l6, &p6), "no header")
}

/// Multicast groups: which GIDs are groups, the MAC their frames go to, and the
/// group a received packet is addressed to.
fn case_packet_multicast_group() -> CaseResult {
    let mut g4 = [0u8; 16];
    (g4[10], g4[11]) = (0xff, 0xff);
    g4[12..].copy_from_slice(&[239, 129, 2, 3]);
    check(ip::gid_is_multicast(&g4), "239.129.2.3 is a group")?;
    check(
        ip::multicast_mac(&g4) == [0x01, 0x00, 0x5e, 0x01, 2, 3],
        "IPv4 group MAC keeps the low 23 bits",
    )?;
    let mut u4 = g4;
    u4[12] = 10;
    check(!ip::gid_is_multicast(&u4), "10.129.2.3 is not a group")?;
    let mut g6 = [0u8; 16];
    (g6[0], g6[1], g6[12], g6[13], g6[14], g6[15]) = (0xff, 0x0e, 0xaa, 0xbb, 0xcc, 0xdd);
    check(ip::gid_is_multicast(&g6), "ff0e:: is a group")?;
    check(
        ip::multicast_mac(&g6) == [0x33, 0x33, 0xaa, 0xbb, 0xcc, 0xdd],
        "IPv6 group MAC is 33:33 and the low 32 bits",
    )?;
    let mut u6 = g6;
    u6[0] = 0xfe;
    check(!ip::gid_is_multicast(&u6), "fe0e:: is not a group")?;
    let mut h4 = [0u8; 20];
    h4[0] = 0x45;
    h4[16..20].copy_from_slice(&[239, 129, 2, 3]);
    check(ip::dest_gid(&h4) == Some(g4), "IPv4 destination as a GID")?;
    let mut h6 = [0u8; 40];
    h6[0] = 0x60;
    h6[24..40].copy_from_slice(&g6);
    check(ip::dest_gid(&h6) == Some(g6), "IPv6 destination as a GID")?;
    check(ip::dest_gid(&h4[..19]).is_none(), "IPv4 header too short")?;
    check(ip::dest_gid(&[0x10; 40]).is_none(), "neither IPv4 nor IPv6")
}

/// The send window: full until a loss; a NAK halves it, a timeout restarts it from
/// the minimum; it regrows by one per ACKed packet up to the threshold and by one
/// per window beyond, never past 128 and never below the minimum.
fn case_window_halves_and_grows() -> CaseResult {
    let mut w = SendWindow::new();
    check(w.size() == MAX_WINDOW && !w.reduced(), "starts full")?;
    w.acked(1000);
    check(w.size() == MAX_WINDOW, "never grows past the maximum")?;
    w.lost();
    check(w.size() == 64 && w.reduced(), "a NAK halves it")?;
    w.acked(63);
    check(
        w.size() == 64,
        "above the threshold, less than a window adds nothing",
    )?;
    w.acked(1);
    check(w.size() == 65, "a whole window adds one")?;
    w.timed_out();
    check(
        w.size() == MIN_WINDOW,
        "a timeout restarts from the minimum",
    )?;
    w.acked(30);
    check(
        w.size() == 32,
        "slow start: one per ACKed packet up to the threshold",
    )?;
    w.acked(32);
    check(w.size() == 33, "then one per window")?;
    for _ in 0..20 {
        w.lost();
    }
    check(w.size() == MIN_WINDOW, "NAKs stop at the minimum")?;
    w.acked(u32::MAX);
    check(
        w.size() == MAX_WINDOW && !w.reduced(),
        "regrows to the maximum, no further",
    )
}

/// READ responses placed early: the one that fills the hole moves the oldest
/// missing PSN past every noted one that follows it, and notes before the new
/// oldest are forgotten.
fn case_read_ahead_fills_holes() -> CaseResult {
    let mut r = ReadAhead::new();
    check(r.filled(100) == 101, "nothing noted: one PSN")?;
    check(r.note(101, 102) && r.note(101, 103), "notes after the hole")?;
    check(r.note(101, 105), "a second hole")?;
    check(
        r.filled(101) == 104,
        "the hole filled: up to the second hole",
    )?;
    check(r.filled(104) == 106, "the second hole filled")?;
    check(r.filled(106) == 107, "the notes were used up")?;
    // PSNs wrap at 2^24.
    check(
        r.note(0x00ff_fffe, 0x00ff_ffff) && r.note(0x00ff_fffe, 0),
        "wrap",
    )?;
    check(r.filled(0x00ff_fffe) == 1, "filled across the wrap")?;
    check(r.note(10, 12), "noted")?;
    r.clear();
    check(r.filled(10) == 11, "cleared")?;
    check(r.note(200, 201) && r.filled(200) == 202, "filled")?;
    // 2^24 PSNs later, with no READ response between, the same PSNs come round.
    check(
        r.filled(200) == 201,
        "notes used up do not come back when the PSNs wrap",
    )
}

/// The ACK timeout is the QP's own until answers are measured slower than it
/// allows; then the measured bound (`srtt` plus the larger of `4 * rttvar` and
/// `srtt / 2`), at most `MAX_STRETCH` times the QP's own; fast answers bring it
/// back. Expiries double it, to the same limit, until the next sample.
fn case_response_time_stretches_ack_timeout() -> CaseResult {
    const MS: u64 = 1_000_000;
    let own = 16 * MS;
    let mut r = ResponseTime::new();
    check(r.ack_timeout_ns(own) == own, "no sample: the QP's own")?;
    r.sample(MS);
    check(r.ack_timeout_ns(own) == own, "fast answers: the QP's own")?;
    let mut r = ResponseTime::new();
    r.sample(60 * MS);
    check(
        r.ack_timeout_ns(own) == MAX_STRETCH * own,
        "one slow sample: stretched up to the limit",
    )?;
    for _ in 0..100 {
        r.sample(40 * MS);
    }
    let t = r.ack_timeout_ns(own);
    check(
        (60 * MS..62 * MS).contains(&t),
        "steady slow answers: half their time more",
    )?;
    r.timed_out();
    check(
        r.ack_timeout_ns(own) == 2 * t,
        "an expiry doubles the stretched timeout",
    )?;
    r.timed_out();
    check(
        r.ack_timeout_ns(own) == MAX_STRETCH * own,
        "expiries double it up to the limit",
    )?;
    r.sample(40 * MS);
    for _ in 0..100 {
        r.sample(MS);
    }
    check(
        r.ack_timeout_ns(own) == own,
        "fast again: back to the QP's own",
    )?;
    r.timed_out();
    check(r.ack_timeout_ns(own) == 2 * own, "an expiry doubles it")?;
    for _ in 0..10 {
        r.timed_out();
    }
    check(
        r.ack_timeout_ns(own) == MAX_STRETCH * own,
        "expiries double it up to the limit",
    )?;
    r.sample(MS);
    check(r.ack_timeout_ns(own) == own, "a sample ends the back-off")?;
    r.sample(u64::MAX);
    check(
        r.ack_timeout_ns(u64::MAX) == u64::MAX && r.ack_timeout_ns(own) == MAX_STRETCH * own,
        "no overflow",
    )
}

/// The probe wait is the floor until answers are measured, then twice the
/// smoothed answer time, never below the floor nor above half the ACK timeout.
fn case_response_time_scales_probe_wait() -> CaseResult {
    const MS: u64 = 1_000_000;
    let (floor, ack) = (MS, 100 * MS);
    let mut r = ResponseTime::new();
    check(r.probe_wait_ns(floor, ack) == floor, "no sample: the floor")?;
    r.sample(100_000);
    check(
        r.probe_wait_ns(floor, ack) == floor,
        "fast answers: the floor",
    )?;
    let mut r = ResponseTime::new();
    r.sample(4 * MS);
    check(
        r.probe_wait_ns(floor, ack) == 8 * MS,
        "slow answers: twice the answer time",
    )?;
    check(
        r.probe_wait_ns(floor, MS) == floor,
        "the floor wins over a short ACK timeout",
    )?;
    r.sample(400 * MS);
    check(
        r.probe_wait_ns(floor, ack) == ack / 2,
        "at most half the ACK timeout",
    )?;
    let mut r = ResponseTime::new();
    r.sample(u64::MAX);
    check(
        r.probe_wait_ns(floor, u64::MAX) == u64::MAX / 2,
        "no overflow",
    )
}

/// What cannot be noted: the hole itself, PSNs before it, PSNs a span or more
/// after it; a hole that moved back or jumped past the span forgets the notes.
fn case_read_ahead_bounds() -> CaseResult {
    let mut r = ReadAhead::new();
    check(!r.note(50, 50), "not the hole itself")?;
    check(!r.note(50, 49), "not before the hole")?;
    check(!r.note(50, 50 + SPAN), "not a span after it")?;
    check(r.note(50, 50 + SPAN - 1), "the last PSN of the span")?;
    check(r.note(50, 51), "noted")?;
    check(r.filled(40) == 41, "a hole that moved back forgets")?;
    check(r.note(40, 42), "noted again")?;
    check(
        r.filled(40 + SPAN + 1) == 40 + SPAN + 2,
        "a jump past the span forgets",
    )?;
    check(
        r.note(7, 9) && r.filled(8) == 10,
        "a hole that moved forward keeps the rest",
    )
}

/// A READ is cut at its MTU: opcodes, PSNs, addresses and lengths per packet.
fn case_answers_read_segments() -> CaseResult {
    let mut slots = [Answer::default(); 4];
    let mut r = AnswerRing::new(&mut slots[..]);
    check(
        r.push(Answer::read(0xff_ffff, 7, 0x1000, 0x42, 2500, 1024)),
        "room",
    )?;
    let p = r.claim().ok_or("first")?;
    check(p.opcode == opcode::RC_RDMA_READ_RESPONSE_FIRST, "FIRST")?;
    check(
        p.psn == 0xff_ffff && p.msn == 7 && p.rkey == 0x42,
        "first PSN, MSN, rkey",
    )?;
    check(p.va == 0x1000 && p.len == 1024 && !p.last, "first range")?;
    let p = r.claim().ok_or("middle")?;
    check(p.opcode == opcode::RC_RDMA_READ_RESPONSE_MIDDLE, "MIDDLE")?;
    check(
        p.psn == 0 && p.va == 0x1400 && p.len == 1024,
        "PSN wraps, range",
    )?;
    let p = r.claim().ok_or("last")?;
    check(p.opcode == opcode::RC_RDMA_READ_RESPONSE_LAST, "LAST")?;
    check(
        p.psn == 1 && p.va == 0x1800 && p.len == 452 && p.last,
        "last range",
    )?;
    check(r.claim().is_none() && r.is_empty(), "then nothing")?;
    // A zero-length READ (or FLUSH, ATOMIC WRITE) is one empty ONLY.
    r.push(Answer::read(9, 8, 0, 0, 0, 4096));
    let p = r.claim().ok_or("only")?;
    check(p.opcode == opcode::RC_RDMA_READ_RESPONSE_ONLY, "ONLY")?;
    check(p.len == 0 && p.last && r.is_empty(), "empty and last")
}

/// Answers leave in the order queued; a queued ACK is replaced by the next ACK,
/// never by or over a NAK, READ or atomic ACK.
fn case_answers_order_and_ack_merge() -> CaseResult {
    let mut slots = [Answer::default(); 8];
    let mut r = AnswerRing::new(&mut slots[..]);
    r.push(Answer::ack(AETH_ACK_UNLIMITED, 5, 1));
    r.push(Answer::ack(AETH_ACK_UNLIMITED, 6, 2));
    check(r.len() == 1, "two ACKs merge")?;
    r.push(Answer::read(7, 3, 0, 1, 100, 1024));
    r.push(Answer::ack(AETH_ACK_UNLIMITED, 8, 4));
    r.push(Answer::ack(AETH_NAK_PSN_SEQ_ERROR, 9, 4));
    r.push(Answer::ack(AETH_ACK_UNLIMITED, 10, 5));
    r.push(Answer::atomic(11, 6, 0xdead));
    check(r.len() == 6, "nothing else merges")?;
    let want = [
        (opcode::RC_ACKNOWLEDGE, 6, 2),
        (opcode::RC_RDMA_READ_RESPONSE_ONLY, 7, 3),
        (opcode::RC_ACKNOWLEDGE, 8, 4),
        (opcode::RC_ACKNOWLEDGE, 9, 4),
        (opcode::RC_ACKNOWLEDGE, 10, 5),
        (opcode::RC_ATOMIC_ACKNOWLEDGE, 11, 6),
    ];
    for (op, psn, msn) in want {
        let p = r.claim().ok_or("an answer is missing")?;
        check(p.opcode == op && p.psn == psn && p.msn == msn, "order")?;
        if psn == 9 {
            check(
                p.syndrome == AETH_NAK_PSN_SEQ_ERROR,
                "the NAK keeps its syndrome",
            )?;
        }
        if psn == 11 {
            check(p.va == 0xdead, "the atomic ACK carries the original value")?;
        }
    }
    check(r.claim().is_none(), "then nothing")
}

/// A full ring refuses (even an ACK behind a READ); claims make room; the ring
/// wraps around its storage in order.
fn case_answers_full_and_wrap() -> CaseResult {
    let mut slots = [Answer::default(); 3];
    let mut r = AnswerRing::new(&mut slots[..]);
    let mut next_in = 0u32;
    let mut next_out = 0u32;
    for round in 0..10u32 {
        while r.push(Answer::read(next_in, next_in, 0, 0, 0, 256)) {
            next_in += 1;
        }
        check(r.len() == 3, "fills to its size")?;
        check(
            !r.push(Answer::ack(AETH_ACK_UNLIMITED, 99, 0)),
            "full refuses an ACK",
        )?;
        for _ in 0..=(round % 3) {
            let p = r.claim().ok_or("claim")?;
            check(p.psn == next_out, "in order across the wrap")?;
            next_out += 1;
        }
    }
    r.clear();
    check(r.is_empty() && r.claim().is_none(), "clear forgets all")
}

/// A READ whose memory went away is dropped mid-way; the next answer follows.
fn case_answers_drop_read() -> CaseResult {
    let mut slots = [Answer::default(); 4];
    let mut r = AnswerRing::new(&mut slots[..]);
    r.push(Answer::read(20, 1, 0, 0, 4096, 1024));
    r.push(Answer::ack(AETH_ACK_UNLIMITED, 24, 2));
    let p = r.claim().ok_or("first")?;
    r.drop_read(21);
    check(r.len() == 2, "another READ's PSN drops nothing")?;
    r.drop_read(p.first_psn);
    let p = r.claim().ok_or("the ACK")?;
    check(
        p.opcode == opcode::RC_ACKNOWLEDGE && p.psn == 24,
        "the ACK follows",
    )?;
    check(r.is_empty(), "then nothing")
}

/// Repeated atomics are answered from the last `slots.len()` atomics, across
/// the PSN wrap: a requester with 128 atomics outstanding may ask again for the
/// oldest of them once all 128 were executed. Older ones, and PSNs never
/// recorded (a fresh QP's zeroed storage), are not found.
fn case_answers_atomic_replies() -> CaseResult {
    let mut slots = [(0u32, 0u64); 128];
    let mut r = AtomicReplies::new(&mut slots[..]);
    check(
        r.find(0).is_none(),
        "nothing kept on a fresh QP, not even PSN 0",
    )?;
    for i in 0..300u32 {
        r.record(psn::psn_add(0xff_ff00, i), u64::from(i) * 3);
    }
    // 300 recorded: the last 128 are 172..=299.
    check(
        r.find(psn::psn_add(0xff_ff00, 299)) == Some(897),
        "the newest",
    )?;
    check(
        r.find(psn::psn_add(0xff_ff00, 172)) == Some(516),
        "the oldest of the last 128",
    )?;
    check(
        r.find(psn::psn_add(0xff_ff00, 171)).is_none(),
        "one older is forgotten",
    )?;
    check(r.find(0xff_ff00).is_none(), "the first is forgotten")?;
    r.clear();
    check(
        r.find(psn::psn_add(0xff_ff00, 299)).is_none(),
        "nothing after a reset",
    )?;
    r.record(5, 7);
    check(r.find(5) == Some(7), "kept again after a reset")?;
    let mut none: [(u32, u64); 0] = [];
    let mut r = AtomicReplies::new(&mut none[..]);
    r.record(1, 2);
    check(r.find(1).is_none(), "no storage keeps nothing")
}

/// A repeated READ is answered only if it asks again for part of a kept READ:
/// the whole of it, or the rest from a response in its middle (a requester's
/// retry); not more bytes, other bytes, another rkey, or PSNs past its own.
/// READs are found by any PSN of their responses, across the PSN wrap, the
/// newest first; the oldest are forgotten.
fn case_answers_kept_reads() -> CaseResult {
    // 4 KiB at 0x1000, rkey 7, MTU 1024: PSNs 0xff_fffe..=0x00_0001.
    let first = 0xff_fffe;
    let read = KeptRead::new(first, 0x1000, 7, 4096, 1024);
    check(read.packets == 4, "four responses")?;
    check(
        read.spans(first) && read.spans(1),
        "spans its PSNs across the wrap",
    )?;
    check(!read.spans(2) && !read.spans(first - 1), "and no others")?;
    check(
        read.covers(first, 0x1000, 7, 4096, 1024),
        "the whole READ again",
    )?;
    check(
        read.covers(psn::psn_add(first, 2), 0x1800, 7, 2048, 1024),
        "the rest, from the third response",
    )?;
    check(
        read.covers(first, 0x1000, 7, 1024, 1024),
        "its first response",
    )?;
    check(!read.covers(first, 0x1000, 8, 4096, 1024), "another rkey")?;
    check(!read.covers(first, 0x1000, 7, 4097, 1024), "a byte more")?;
    check(!read.covers(first, 0x0fff, 7, 4096, 1024), "a byte before")?;
    check(
        !read.covers(psn::psn_add(first, 2), 0x1000, 7, 4096, 1024),
        "responses past its last PSN",
    )?;
    check(
        !read.covers(first - 1, 0x1000, 7, 4096, 1024),
        "an earlier PSN",
    )?;
    check(
        !read.covers(first, u64::MAX - 10, 7, 4096, 1024),
        "a range that wraps",
    )?;
    let empty = KeptRead::new(5, 0x2000, 9, 0, 1024);
    check(
        empty.packets == 1 && empty.covers(5, 0x2000, 9, 0, 1024),
        "a READ of no bytes takes one PSN, and is asked again",
    )?;

    let mut slots = [KeptRead::default(); 4];
    let mut r = KeptReads::new(&mut slots[..]);
    check(
        r.find(0, 1).is_none(),
        "nothing kept on a fresh QP, not even PSN 0",
    )?;
    r.record(read);
    for i in 0..3u32 {
        r.record(KeptRead::new(10 + i, 0, 1, 0, 1024));
    }
    check(
        r.find(psn::psn_add(first, 3), 16) == Some(read),
        "found by a middle PSN",
    )?;
    check(
        r.find(psn::psn_add(first, 3), 1).is_none(),
        "not if it ends after the PSN expected",
    )?;
    check(
        r.find(first, psn::psn_add(first, (1 << 23) + 4)).is_some()
            && r.find(first, psn::psn_add(first, (1 << 23) + 5)).is_none(),
        "nor once it ends more than 2^23 PSNs behind",
    )?;
    r.record(KeptRead::new(13, 0, 1, 0, 1024));
    check(
        r.find(first, 16).is_none(),
        "the oldest is forgotten when full",
    )?;
    r.record(KeptRead::new(12, 0x10, 2, 0, 1024));
    check(
        r.find(12, 16).map(|k| k.rkey) == Some(2),
        "a PSN kept twice: the newer",
    )?;
    r.clear();
    check(r.find(12, 16).is_none(), "nothing after a reset")?;
    let mut none: [KeptRead; 0] = [];
    let mut r = KeptReads::new(&mut none[..]);
    r.record(read);
    check(r.find(first, 16).is_none(), "no storage keeps nothing")
}

/// One access of the doorbell code to a ring header, as [`DbWords`] records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DbOp {
    SetFlags(u32),
    Fence,
    LoadProducer,
    LoadArm,
    Cmpxchg(u32, u32),
}

/// Ring-header words for the doorbell code that record each access, in order
/// (the first [`DB_OPS`]), and a CQ arm word another writer may change
/// between the kernel's load and its exchange.
struct DbWords {
    producer: u32,
    arm: Cell<u32>,
    /// How many more loads of the arm word the other writer follows with a
    /// change of its own (`u32::MAX`: every one).
    hostile: Cell<u32>,
    ops: Cell<[Option<DbOp>; DB_OPS]>,
    len: Cell<usize>,
}

/// Accesses [`DbWords`] keeps.
const DB_OPS: usize = 16;

impl DbWords {
    fn new(producer: u32, arm: u32) -> Self {
        DbWords {
            producer,
            arm: Cell::new(arm),
            hostile: Cell::new(0),
            ops: Cell::new([None; DB_OPS]),
            len: Cell::new(0),
        }
    }

    fn record(&self, op: DbOp) {
        let mut ops = self.ops.get();
        if let Some(slot) = ops.get_mut(self.len.get()) {
            *slot = Some(op);
            self.ops.set(ops);
        }
        self.len.set(self.len.get() + 1);
    }

    /// Whether the accesses since the last call were exactly `want`; forgets
    /// them.
    fn saw(&self, want: &[DbOp]) -> bool {
        let ops = self.ops.get();
        let n = self.len.get();
        self.len.set(0);
        n == want.len()
            && n <= DB_OPS
            && ops.iter().zip(want).all(|(got, want)| *got == Some(*want))
    }
}

impl SqWords for DbWords {
    fn producer_acquire(&self) -> u32 {
        self.record(DbOp::LoadProducer);
        self.producer
    }

    fn set_flags(&self, flags: u32) {
        self.record(DbOp::SetFlags(flags));
    }

    fn full_fence(&self) {
        self.record(DbOp::Fence);
    }
}

impl CqWords for DbWords {
    fn arm_load(&self) -> u32 {
        self.record(DbOp::LoadArm);
        let arm = self.arm.get();
        let hostile = self.hostile.get();
        if hostile > 0 {
            // The other writer re-arms, changing the word under the kernel.
            self.arm.set(arm ^ CQ_ARM_SOLICITED);
            self.hostile.set(if hostile == u32::MAX {
                hostile
            } else {
                hostile - 1
            });
        }
        arm
    }

    fn arm_cmpxchg(&self, old: u32, new: u32) -> bool {
        self.record(DbOp::Cmpxchg(old, new));
        if self.arm.get() == old {
            self.arm.set(new);
            true
        } else {
            false
        }
    }

    fn full_fence(&self) {
        self.record(DbOp::Fence);
    }
}

/// Arming stores the word only when it changes, with no barrier and no read:
/// a repeated arm costs nothing, an added informational bit is one store.
fn case_doorbell_sq_arm_idempotent() -> CaseResult {
    let w = DbWords::new(0, 0);
    let mut watch = SqWatch::default();
    check(
        !watch.is_watched() && watch.flags() == 0,
        "a new send queue is not watched",
    )?;
    check(watch.arm(&w, 0), "the first arm changes the word")?;
    check(
        w.saw(&[DbOp::SetFlags(SQ_WATCHED)]),
        "the first arm is one store of WATCHED, no barrier",
    )?;
    check(
        watch.is_watched() && watch.flags() == SQ_WATCHED,
        "watched after the arm",
    )?;
    check(
        !watch.arm(&w, 0) && w.saw(&[]),
        "arming again touches nothing",
    )?;
    check(
        watch.arm(&w, SQ_POLLED) && w.saw(&[DbOp::SetFlags(SQ_WATCHED | SQ_POLLED)]),
        "adding POLLED is one store",
    )?;
    check(
        !watch.arm(&w, SQ_POLLED) && w.saw(&[]),
        "and again touches nothing",
    )?;
    check(
        watch.arm(&w, 0) && w.saw(&[DbOp::SetFlags(SQ_WATCHED)]),
        "dropping POLLED is one store, still watched",
    )?;
    check(watch.is_watched(), "still watched")
}

/// Disarming a send queue that was not armed touches nothing and asks for no
/// re-read: the last disarm's barrier and re-read still stand.
fn case_doorbell_sq_disarm_unarmed() -> CaseResult {
    let w = DbWords::new(5, 0);
    let mut watch = SqWatch::default();
    check(watch.disarm(&w).is_none(), "a new send queue: None")?;
    check(w.saw(&[]), "and no access")?;
    watch.arm(&w, 0);
    check(watch.disarm(&w) == Some(5), "armed: the re-read")?;
    w.saw(&[]);
    check(watch.disarm(&w).is_none(), "a second disarm: None")?;
    check(w.saw(&[]), "and no access")?;
    check(
        !watch.is_watched() && watch.flags() == 0,
        "not watched after",
    )
}

/// Disarm is: store 0, full barrier, load-acquire of the producer index, in
/// that order (the kernel's half of the Dekker pair with the provider's post),
/// and returns the index as read, unmasked.
fn case_doorbell_sq_disarm_order() -> CaseResult {
    for extra in [0, SQ_POLLED] {
        let w = DbWords::new(0xffff_fff3, 0);
        let mut watch = SqWatch::default();
        watch.arm(&w, extra);
        w.saw(&[]);
        check(
            watch.disarm(&w) == Some(0xffff_fff3),
            "returns the producer index as read",
        )?;
        check(
            w.saw(&[DbOp::SetFlags(0), DbOp::Fence, DbOp::LoadProducer]),
            "store 0, then the barrier, then the re-read",
        )?;
        check(
            !watch.is_watched() && watch.flags() == 0,
            "not watched after",
        )?;
    }
    Ok(())
}

/// Which arm words ask for an event for which completions.
fn case_doorbell_cq_arm_matches() -> CaseResult {
    const BOTH: u32 = CQ_ARM_SOLICITED | CQ_ARM_NEXT;
    // (arm, for a plain completion, for a solicited or error completion)
    let table = [
        (0, false, false),
        (CQ_ARM_SOLICITED, false, true),
        (CQ_ARM_NEXT, true, true),
        (BOTH, true, true),
        (!BOTH, false, false),
        (!CQ_ARM_NEXT, false, true),
        (u32::MAX, true, true),
    ];
    for (arm, plain, solicited) in table {
        check(
            cq_arm_matches(arm, false) == plain,
            "a plain completion matches NEXT only",
        )?;
        check(
            cq_arm_matches(arm, true) == solicited,
            "a solicited completion matches NEXT or SOLICITED",
        )?;
    }
    Ok(())
}

/// Taking the arm: barrier first, then the load; a matching arm is exchanged
/// for 0 (all its bits) and asks for the event; any other is left alone.
fn case_doorbell_cq_arm_take() -> CaseResult {
    const BOTH: u32 = CQ_ARM_SOLICITED | CQ_ARM_NEXT;
    let w = DbWords::new(0, BOTH);
    check(cq_arm_take(&w, false), "NEXT: an event")?;
    check(
        w.saw(&[DbOp::Fence, DbOp::LoadArm, DbOp::Cmpxchg(BOTH, 0)]),
        "barrier, load, exchange",
    )?;
    check(w.arm.get() == 0, "the arm is taken")?;
    check(!cq_arm_take(&w, false), "taken: no second event")?;
    check(w.saw(&[DbOp::Fence, DbOp::LoadArm]), "and no exchange")?;

    let w = DbWords::new(0, CQ_ARM_SOLICITED);
    check(!cq_arm_take(&w, false), "SOLICITED, plain completion: none")?;
    check(
        w.saw(&[DbOp::Fence, DbOp::LoadArm]) && w.arm.get() == CQ_ARM_SOLICITED,
        "the arm is left for a solicited one",
    )?;
    check(cq_arm_take(&w, true), "then a solicited one: an event")?;
    check(w.arm.get() == 0, "and the arm is taken")?;

    let w = DbWords::new(0, CQ_ARM_NEXT | 0x80);
    check(cq_arm_take(&w, false), "unknown bits beside NEXT: an event")?;
    check(w.arm.get() == 0, "the whole word is taken")?;
    let w = DbWords::new(0, 0x80);
    check(!cq_arm_take(&w, true), "unknown bits alone: none")?;
    check(w.arm.get() == 0x80, "and left alone")
}

/// A provider that keeps changing the arm word between the kernel's load and
/// its exchange gets no event, and the kernel gives up after a few tries (one
/// barrier, then at most a few load-exchange pairs); one that changes it once
/// gets its event on the retry.
fn case_doorbell_cq_arm_take_hostile() -> CaseResult {
    let w = DbWords::new(0, CQ_ARM_NEXT);
    w.hostile.set(u32::MAX);
    check(!cq_arm_take(&w, false), "always defeated: no event")?;
    let n = w.len.get();
    check(
        (4..=DB_OPS).contains(&n) && n % 2 == 1,
        "a few tries, then it gives up",
    )?;
    let ops = w.ops.get();
    check(ops[0] == Some(DbOp::Fence), "one barrier, first")?;
    for pair in ops[1..n].chunks(2) {
        check(
            matches!(pair, [Some(DbOp::LoadArm), Some(DbOp::Cmpxchg(_, 0))]),
            "then load, exchange, and again",
        )?;
    }

    let w = DbWords::new(0, CQ_ARM_NEXT);
    w.hostile.set(1);
    check(cq_arm_take(&w, false), "defeated once: the retry takes it")?;
    check(
        w.saw(&[
            DbOp::Fence,
            DbOp::LoadArm,
            DbOp::Cmpxchg(CQ_ARM_NEXT, 0),
            DbOp::LoadArm,
            DbOp::Cmpxchg(CQ_ARM_NEXT | CQ_ARM_SOLICITED, 0),
        ]),
        "load, failed exchange, load, exchange",
    )?;
    check(w.arm.get() == 0, "the arm is taken")
}

fn case_pma_class_port_info() -> CaseResult {
    let mut out = [0u8; pma::MAD_SIZE];
    let inp = pma::request(0x01, pma::ATTR_CLASS_PORT_INFO, 0);
    check(
        pma::answer(&inp, &mut out, &pma::PortCounters::default()) == pma::Answer::Reply,
        "ClassPortInfo is answered",
    )?;
    check(
        out[3] == 0x81 && pma::reply_status(&out) == 0,
        "GetResp, status 0",
    )?;
    check(out[8..16] == inp[8..16], "the transaction id is kept")?;
    check(
        u16::from_be_bytes([pma::reply_byte(&out, 2), pma::reply_byte(&out, 3)])
            == pma::CAP_EXT_WIDTH,
        "the extended counters are offered",
    )
}

fn case_pma_counters_ext() -> CaseResult {
    let c = pma::PortCounters {
        xmit_bytes: 4 * 1000 + 3,
        rcv_bytes: 4 * 999,
        xmit_packets: 7,
        rcv_packets: 6,
        link_downed: 2,
    };
    let mut out = [0u8; pma::MAD_SIZE];
    let inp = pma::request(0x01, pma::ATTR_PORT_COUNTERS_EXT, 1);
    check(
        pma::answer(&inp, &mut out, &c) == pma::Answer::Reply,
        "answered",
    )?;
    check(pma::reply_byte(&out, 1) == 1, "the port select is kept")?;
    check(
        pma::reply_u64(&out, 8) == 1000,
        "data sent, in 4-byte words",
    )?;
    check(
        pma::reply_u64(&out, 16) == 999,
        "data received, in 4-byte words",
    )?;
    check(pma::reply_u64(&out, 24) == 7, "packets sent")?;
    check(pma::reply_u64(&out, 32) == 6, "packets received")?;
    check(
        pma::reply_u64(&out, 40) == 0,
        "unicast packets are not counted",
    )
}

fn case_pma_link_downed_saturates() -> CaseResult {
    let mut out = [0u8; pma::MAD_SIZE];
    let inp = pma::request(0x01, pma::ATTR_PORT_COUNTERS, 1);
    let mut c = pma::PortCounters {
        link_downed: 3,
        ..Default::default()
    };
    pma::answer(&inp, &mut out, &c);
    check(pma::reply_byte(&out, 7) == 3, "link downed")?;
    c.link_downed = 300;
    pma::answer(&inp, &mut out, &c);
    check(pma::reply_byte(&out, 7) == 255, "stops at all ones")
}

fn case_pma_other_requests() -> CaseResult {
    let c = pma::PortCounters::default();
    let mut out = [0u8; pma::MAD_SIZE];
    let mut inp = pma::request(0x01, pma::ATTR_PORT_COUNTERS_EXT, 1);
    inp[1] = 0x07; // the CM's class
    check(
        pma::answer(&inp, &mut out, &c) == pma::Answer::Pass,
        "other classes pass",
    )?;
    check(out.iter().all(|&b| b == 0), "and leave the reply alone")?;
    let inp = pma::request(0x02, pma::ATTR_PORT_COUNTERS_EXT, 1);
    check(
        pma::answer(&inp, &mut out, &c) == pma::Answer::Reply,
        "Set is answered",
    )?;
    check(
        pma::reply_status(&out) == pma::STATUS_UNSUPPORTED_METHOD,
        "as an unsupported method",
    )?;
    let inp = pma::request(0x01, 0x0015, 1);
    pma::answer(&inp, &mut out, &c);
    check(
        pma::reply_status(&out) == pma::STATUS_UNSUPPORTED_ATTR,
        "an unknown attribute is unsupported",
    )
}
