#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Object churn: create and destroy RRXE_CHURN (default 10000) CQs, QPs and MRs
# through the rxe provider, remove the device and the module, and ask kmemleak.
cd "$(dirname "$0")" && . ./lib.sh

n=${RRXE_CHURN:-10000}
tap_plan 3
ip netns add ca
ip -n ca link add cx0 type veth peer name cx1
ip -n ca link set cx0 up
ip netns exec ca rdma link add crx0 type rrxe netdev cx0
t0=$(date +%s)
if out=$(timeout 1200 python3 ./churn.py crx0 "$n" 2>&1); then
	ok "$n CQs, QPs and MRs created and destroyed ($out, $(( $(date +%s) - t0 )) s)"
else
	not_ok "churn of $n objects"; diag "$out"
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
insmod "$RRXE_KO"
tap_done
