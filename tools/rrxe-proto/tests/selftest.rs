// SPDX-License-Identifier: GPL-2.0

//! Runs the core's shared self-test cases (the ones KUnit runs in the kernel).

use rrxe_proto::selftest::{run_all, CASES};

#[test]
fn selftest_cases() {
    let mut failures = Vec::new();
    for &(name, case) in CASES {
        if let Err(why) = case() {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "failed cases:\n{}",
        failures.join("\n")
    );
    assert_eq!(run_all(), (CASES.len(), None));
    assert!(CASES.len() >= 15);
}
