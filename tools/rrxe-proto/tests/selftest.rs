// SPDX-License-Identifier: GPL-2.0

//! Runs the core's shared self-test cases (the ones KUnit runs in the kernel).

use rrxe_proto::selftest::{run_all, CaseResult, CASES};

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

/// Runs the case of `CASES` called `name`.
fn run(name: &str) -> CaseResult {
    let matches: Vec<_> = CASES.iter().filter(|(n, _)| *n == name).collect();
    assert_eq!(
        matches.len(),
        1,
        "{name} is in CASES {} times",
        matches.len()
    );
    (matches[0].1)()
}

/// One `#[test]` per case, from the same list the kernel's KUnit suite
/// `rrxe_proto` is generated from (`drivers/infiniband/sw/rrxe/proto_kunit.rs`),
/// plus a check that the list and `CASES` name the same cases in the same order.
macro_rules! host_cases {
    ($($name:ident => $case:ident,)*) => {
        $(
            #[test]
            fn $name() -> CaseResult {
                run(stringify!($name))
            }
        )*

        #[test]
        fn case_list_is_cases() {
            let list = [$(stringify!($name)),*];
            let cases: Vec<_> = CASES.iter().map(|(n, _)| *n).collect();
            assert_eq!(list.as_slice(), cases.as_slice());
        }
    };
}
rrxe_proto::rrxe_proto_cases!(host_cases);
