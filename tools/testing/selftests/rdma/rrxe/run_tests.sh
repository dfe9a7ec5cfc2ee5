#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (scripts/vm run -- .../run_tests.sh): every rrxe
# kselftest, the Makefile's TEST_PROGS, as one KTAP stream in the shape of the
# kselftest runner's (kselftest/runner.sh): "# selftests: rdma/rrxe: NAME", the
# script's own KTAP indented under it, then "ok N selftests: rdma/rrxe: NAME",
# with "# SKIP" when it exited with KSFT_SKIP, or "not ok N ... # exit=RC" or
# "# TIMEOUT SECS". The guest has no make, so this stands in for
# `make run_tests`; it also says which case took 10 s or more.
# Each script is bounded by the settings file's timeout (2400 s);
# RRXE_SUITE_TIMEOUT overrides it, as make soak does. Scripts named as
# arguments run instead of all. The pairings with rdma_rxe already post
# through rdma-core's stock rxe provider (lib.sh's rxe_pairings_begin).
# RRXE_STOCK_RERUN lists the scripts rerun with the stock provider, none by
# default: make soak reruns traffic, perftest, pyverbs (on rrxe only, the
# modules that post) and recovery, with every pairing (RRXE_STOCK_PEERS),
# after a main run whose pairings with rdma_rxe used the doorbell provider
# (RRXE_RXE_PROVIDER); a recovery rerun's lossy transfer is 4 MiB unless
# RRXE_LOSS_MIB says otherwise. The KUnit
# results of the boot are not here: scripts/test reads them on the host with
# kunit.py parse.
cd "$(dirname "$0")" || exit 1
. ./lib.sh

suite_timeout=${RRXE_SUITE_TIMEOUT:-$(sed -n 's/^timeout=//p' settings)}
# TEST_PROGS, with its continuation lines.
progs=$(awk '/^TEST_PROGS[ \t]*:=/ { on = 1; sub(/^TEST_PROGS[ \t]*:=/, "") }
	on { more = sub(/\\$/, ""); sub(/#.*/, ""); for (i = 1; i <= NF; i++) printf "%s ", $i; if (!more) on = 0 }' Makefile)
# A script that is not in TEST_PROGS would run here but not under the kselftest
# runner: it fails until it is listed. Checked when every script runs (with
# scripts named, as scripts/test's lanes do, the caller checks).
unlisted=()
if [ $# = 0 ]; then
	for t in rrxe_*.sh; do
		[[ " $progs " == *" $t "* ]] || unlisted+=("$t")
	done
fi

# Indents a script's KTAP by one level; a case that took 10 s or more since the
# last one says so, so that one run shows where the stage's time goes.
timed_tap() {
	local line last=$SECONDS
	while IFS= read -r line; do
		printf '  %s\n' "$line"
		case $line in
		"ok "* | "not ok "*)
			[ $((SECONDS - last)) -lt 10 ] || printf '  # (%d s)\n' $((SECONDS - last))
			last=$SECONDS ;;
		esac
	done
}

[ $# -gt 0 ] || set -- $progs
# Scripts run a second time with rdma-core's stock rxe provider (after all,
# with the patched one, the guest's default: lib.sh's RRXE_PROVIDER), named
# "NAME (stock provider)".
stock=()
for t in ${RRXE_STOCK_RERUN-}; do
	[[ " $* " == *" $t "* ]] && stock+=("$t")
done
ktap_print_header
ktap_set_plan $(($# + ${#stock[@]} + ${#unlisted[@]}))
for t in "${unlisted[@]}"; do
	ktap_test_fail "selftests: rdma/rrxe: $t # not in the Makefile's TEST_PROGS"
done
for t in "$@" "${stock[@]/%/:stock}"; do
	provider=${RRXE_PROVIDER:-doorbell} name="selftests: rdma/rrxe: $t"
	peers=${RRXE_PEERS:-} loss_mib=${RRXE_LOSS_MIB:-16} rxe_provider=${RRXE_RXE_PROVIDER:-stock}
	if [[ $t == *:stock ]]; then
		t=${t%:stock} provider=stock name="selftests: rdma/rrxe: $t (stock provider)"
		peers=${RRXE_STOCK_PEERS:-rrxe} loss_mib=${RRXE_LOSS_MIB:-4} rxe_provider=stock
	fi
	echo "# $name"
	t0=$SECONDS
	RRXE_PROVIDER=$provider RRXE_PEERS=$peers RRXE_LOSS_MIB=$loss_mib RRXE_RXE_PROVIDER=$rxe_provider \
		timeout "$suite_timeout" "./$t" 2>&1 | timed_tap
	rc=${PIPESTATUS[0]}
	ktap_print_msg "${name#selftests: rdma/rrxe: } took $((SECONDS - t0)) s"
	case $rc in
	"$KSFT_PASS") ktap_test_pass "$name" ;;
	"$KSFT_SKIP") ktap_test_skip "$name" ;;
	124) ktap_test_fail "$name # TIMEOUT $suite_timeout seconds" ;;
	*) ktap_test_fail "$name # exit=$rc" ;;
	esac
done
ktap_finished
