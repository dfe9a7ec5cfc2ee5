// SPDX-License-Identifier: GPL-2.0

//! The protocol core's self-test cases (`proto::selftest::CASES`), the same ones
//! `cargo test` runs on the host, as the KUnit suite `rrxe_proto`: one KUnit
//! case per self-test case, generated from the list `CASES` is built from
//! (`rrxe_proto_cases!`), so that a new case is a new KUnit case.

/// Expands to the suite: a `#[test]` function named after each case.
macro_rules! kunit_suite {
    ($($name:ident => $case:ident,)*) => {
        #[kernel::macros::kunit_tests(rrxe_proto)]
        mod tests {
            use crate::proto::selftest::{CaseResult, CASES};
            use kernel::prelude::*;

            /// Runs the case of `CASES` called `name`; logs why it failed.
            fn run(name: &str) -> CaseResult {
                let Some(&(_, case)) = CASES.iter().find(|(n, _)| *n == name) else {
                    pr_err!("rrxe_proto: no case {} in CASES\n", name);
                    return Err("not in CASES");
                };
                let result = case();
                if let Err(why) = result {
                    pr_err!("rrxe_proto: {} failed: {}\n", name, why);
                }
                result
            }

            $(
                #[test]
                fn $name() -> CaseResult {
                    run(stringify!($name))
                }
            )*
        }
    };
}
crate::rrxe_proto_cases!(kunit_suite);
