#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzes the rrxe protocol core (target parse_icrc: packet::parse + ICRC) with
# cargo-fuzz/libFuzzer for a time budget, then prints the execution and crash
# counts. cargo-fuzz is installed on first use into $RRXE_CACHE/cargo; build
# output, the growing corpus and crash artifacts live under $RRXE_CACHE too.
#
# usage: tools/rrxe-proto/fuzz.sh [seconds]    (default 60)
#   RRXE_CACHE            cache root (default ~/.cache/rrxe)
#   RRXE_FUZZ_SANITIZER   none (default; the code has no unsafe) or address
#   RRXE_FUZZ_JOBS        parallel libFuzzer jobs (default 1)
set -euo pipefail

secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
cache=${RRXE_CACHE:-$HOME/.cache/rrxe}
sanitizer=${RRXE_FUZZ_SANITIZER:-none}
jobs=${RRXE_FUZZ_JOBS:-1}
export CARGO_TARGET_DIR=$cache/target-proto-fuzz
# libfuzzer-sys and -Zsanitizer need nightly features; allow them on stable.
export RUSTC_BOOTSTRAP=1
export PATH=$cache/cargo/bin:$PATH

if ! command -v cargo-fuzz > /dev/null; then
	echo "fuzz.sh: installing cargo-fuzz into $cache/cargo" >&2
	cargo install cargo-fuzz --locked --root "$cache/cargo"
fi

corpus=$cache/fuzz/corpus/parse_icrc
artifacts=$cache/fuzz/artifacts/parse_icrc
log=$cache/fuzz/parse_icrc.log
mkdir -p "$corpus" "$artifacts"

# Seeds: control byte, IPv4 header, UDP header, then a UC SEND ONLY (the scapy
# ICRC vector) and an RC ACKNOWLEDGE.
seed() { printf '%s' "$2" | xxd -r -p > "$corpus/seed-$1"; }
if command -v xxd > /dev/null; then
	ip4=45010040047840004011b4d5c0a80007c0a80007
	seed uc-send-only "02${ip4}c00012b7002caca22460ffff000000d300cf17104630818be28935d90e9a95505401be885e50000078f353f3"
	seed rc-ack "00${ip4}c00012b7001c00001100ffff00000011800000011f00000900000000"
fi

cd "$here"
start=$(date +%s)
set +e
cargo fuzz run --fuzz-dir fuzz --sanitizer "$sanitizer" --debug-assertions \
	parse_icrc "$corpus" -- \
	-max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$artifacts/" \
	$([ "$jobs" -gt 1 ] && echo "-jobs=$jobs -workers=$jobs") 2>&1 | tee "$log" | grep -E '^#[0-9]+.*(DONE|pulse)|==|panicked|stat::' >&2
status=${PIPESTATUS[0]}
set -e

if [ "$jobs" -gt 1 ]; then
	# With -jobs, each worker logs to fuzz-N.log in the current directory.
	cat fuzz-*.log >> "$log" 2> /dev/null && rm -f fuzz-*.log
fi
execs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
crashes=$(find "$artifacts" -type f -newermt "@$start" \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
echo "fuzz parse_icrc: ${secs}s, executions: $execs, crashes: $crashes (artifacts in $artifacts, log $log)"
[ "$status" -eq 0 ] && [ "$crashes" -eq 0 ]
