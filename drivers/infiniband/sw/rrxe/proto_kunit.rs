// SPDX-License-Identifier: GPL-2.0

//! The protocol core's self-test cases (`proto::selftest::CASES`), the same ones
//! `cargo test` runs on the host, as KUnit cases in the test kernel.

#[kernel::macros::kunit_tests(rrxe_proto)]
mod tests {
    use crate::proto::selftest::CASES;
    use kernel::prelude::*;

    /// Case-name prefixes of each KUnit case below.
    const GROUPS: &[&[&str]] = &[
        &["crc32_", "icrc_"],
        &["opcode_"],
        &[
            "aeth_",
            "psn_",
            "credit_",
            "rnr_",
            "retransmit_",
            "window_",
            "read_ahead_",
            "response_time_",
        ],
        &["qp_"],
        &["parse_", "build_", "packet_"],
        &["answers_"],
    ];

    /// Runs every case of `group`; returns how many failed, after logging each.
    fn run_group(group: usize) -> usize {
        let mut failed = 0;
        for (name, case) in CASES {
            if !GROUPS[group].iter().any(|p| name.starts_with(p)) {
                continue;
            }
            if let Err(why) = case() {
                pr_err!("rrxe_proto: {} failed: {}\n", name, why);
                failed += 1;
            }
        }
        failed
    }

    #[test]
    fn icrc() {
        assert_eq!(run_group(0), 0);
    }

    #[test]
    fn opcode_table() {
        assert_eq!(run_group(1), 0);
    }

    #[test]
    fn psn_and_timers() {
        assert_eq!(run_group(2), 0);
    }

    #[test]
    fn qp_state_machine() {
        assert_eq!(run_group(3), 0);
    }

    #[test]
    fn parser() {
        assert_eq!(run_group(4), 0);
    }

    #[test]
    fn responder_answers() {
        assert_eq!(run_group(5), 0);
    }

    #[test]
    fn every_case_is_in_a_group() {
        for (name, _) in CASES {
            let grouped = GROUPS.iter().any(|g| g.iter().any(|p| name.starts_with(p)));
            if !grouped {
                pr_err!("rrxe_proto: case {} is in no KUnit group\n", name);
            }
            assert!(grouped);
        }
    }
}
