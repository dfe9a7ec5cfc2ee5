#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Compiles drivers/infiniband/sw/rrxe/proto/ the way the kernel build does (a
# private `mod proto;` in a no_std crate, the kernel's rustc/clippy flags from the
# top-level Makefile, overflow checks on) and fails on any warning.
#
# usage: tools/rrxe-proto/kernel-lint.sh   (CLIPPY_DRIVER=... to pick another clippy)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../drivers/infiniband/sw/rrxe/proto" && pwd)
cache=${RRXE_CACHE:-$HOME/.cache/rrxe}/kernel-lint
mkdir -p "$cache"

# Crate root standing in for the driver's main file.
cat > "$cache/root.rs" <<ROOT
//! Stand-in crate root for checking the rrxe protocol core with kernel flags.
#[path = "$proto/mod.rs"]
mod proto;
ROOT

# Same MSRV as the kernel's .clippy.toml.
printf 'msrv = "1.85.0"\ncheck-private-items = true\n' > "$cache/clippy.toml"

# rust_common_flags and KBUILD_RUSTFLAGS of Linux 7.3 (minus codegen-only flags).
flags=(
	--edition=2021 -Astable_features -Aunused_features
	-Dnon_ascii_idents -Dunsafe_op_in_unsafe_fn -Wmissing_docs
	-Wrust_2018_idioms -Wunreachable_pub -Wclippy::all
	-Wclippy::as_ptr_cast_mut -Wclippy::as_underscore -Wclippy::cast_lossless
	-Aclippy::collapsible_if -Aclippy::collapsible_match
	-Wclippy::ignored_unit_patterns -Aclippy::incompatible_msrv
	-Wclippy::mut_mut -Wclippy::needless_bitwise_bool
	-Aclippy::needless_lifetimes -Wclippy::no_mangle_with_rust_abi
	-Wclippy::ptr_as_ptr -Wclippy::ptr_cast_constness -Wclippy::ref_as_ptr
	-Wclippy::undocumented_unsafe_blocks -Aclippy::uninlined_format_args
	-Wclippy::unnecessary_safety_comment -Wclippy::unnecessary_safety_doc
	-Aclippy::unwrap_or_default -Wrustdoc::missing_crate_level_docs
	-Wrustdoc::unescaped_backticks -Wclippy::float_arithmetic
	-Cpanic=abort -Coverflow-checks=on -Zcrate-attr=no_std
	--crate-type rlib --crate-name rrxe_proto_kcheck -Dwarnings
)

export RUSTC_BOOTSTRAP=1 CLIPPY_CONF_DIR="$cache"
"${CLIPPY_DRIVER:-clippy-driver}" "${flags[@]}" --emit=metadata -o "$cache/out.rmeta" "$cache/root.rs"
echo "kernel-lint: OK (no warnings with kernel flags, clippy $("${CLIPPY_DRIVER:-clippy-driver}" --version 2>/dev/null | awk '{print $2}'))"
