#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Object churn: create and destroy RRXE_CHURN (default 2000) CQs, QPs and MRs
# through the rxe provider, in two processes at once (half each: the guest's two
# vCPUs run them side by side, in half the time of one, and the device's object
# pools are churned from two CPUs), remove the device and the module, and ask
# kmemleak.
cd "$(dirname "$0")" && . ./lib.sh

# A leak per object shows in kmemleak at any count; 2,000 cost 45-90 s of the
# CI stage where 10,000 cost 4-10 min. make soak runs 10,000.
n=${RRXE_CHURN:-2000}
require_rrxe
require_libibverbs
ktap_print_header
ktap_set_plan 3
ip netns add ca
ip -n ca link add cx0 type veth peer name cx1
ip -n ca link set cx0 up
ip netns exec ca rdma link add crx0 type rrxe netdev cx0
t0=$(date +%s)
out1=$(mktemp) out2=$(mktemp)
trap 'rm -f "$out1" "$out2"' EXIT
timeout 1200 python3 ./churn.py crx0 $((n / 2)) >"$out1" 2>&1 & pid1=$!
timeout 1200 python3 ./churn.py crx0 $((n - n / 2)) >"$out2" 2>&1 & pid2=$!
wait $pid1; rc1=$?
wait $pid2; rc2=$?
if [ $rc1 = 0 ] && [ $rc2 = 0 ]; then
	ok "$n CQs, QPs and MRs created and destroyed ($(cat "$out1") and $(cat "$out2"), $(( $(date +%s) - t0 )) s)"
else
	not_ok "churn of $n objects in two processes (exit $rc1 and $rc2)"
	diag "first: $(cat "$out1")"
	diag "second: $(cat "$out2")"
fi
ip netns exec ca rdma link del crx0
ip netns del ca
check "rmmod rrxe after the churn" rmmod rrxe
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak; sleep 1; echo scan >/sys/kernel/debug/kmemleak
	leaks=$(grep -c "unreferenced object" /sys/kernel/debug/kmemleak)
	[ "$leaks" = 0 ] && ok "kmemleak: no leaks after the churn" ||
		{ not_ok "kmemleak: $leaks leaks"; head -40 /sys/kernel/debug/kmemleak | sed 's/^/# /'; }
else
	skip "kmemleak not available"
fi
load_rrxe
ktap_finished
