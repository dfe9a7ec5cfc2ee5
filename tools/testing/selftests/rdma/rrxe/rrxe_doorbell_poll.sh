#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The doorbell's poller (doorbell=2 and 3, Documentation/doorbell.rst) as a
# user sees it, rrxe0 -> rrxe1 over a veth pair with the doorbell provider.
# rrxe is loaded again for each mode, and with its defaults at the end.
#  - doorbell=2 with windows from 1 us (its smallest) to 1 ms and with its
#    default ones, and doorbell=3 with its smallest window (1 ms): no lost
#    wake-up over doorbell.py's bursts of each kind (300, or, with the two
#    smallest windows, RRXE_DOORBELL_POLL_BURSTS: 500), and the poller ran;
#  - doorbell=3: streams (ib_write_bw and ib_send_bw at 64 B) make at most
#    0.01 write() per WR; a ping-pong (ib_send_lat) at most 0.5 per
#    iteration, since the poller takes the posts a syscall would have made;
#  - doorbell=3: 256 QPs of one ib_write_bw, at most 64 of them in the poll
#    set at once (its cap: the db_poll_qps gauge), and no RCU stall (the
#    guest checks dmesg);
#  - doorbell=3: 300 QPs destroyed with posts in flight (doorbell.py; make
#    soak 1000);
#  - doorbell=3: rmmod at once after a ping-pong is killed (SIGKILL) while
#    its QP is polled: the poller drains, and the module unloads;
#  - every promise withdrawn once idle (db_arms equals db_disarms, and
#    db_poll_qps is 0).
cd "$(dirname "$0")" && . ./lib.sh && . ./doorbell_lib.sh
ITERS=${RRXE_DOORBELL_ITERS:-8000}
STREAM_MAX=0.01
PLAN=17
require_rrxe
require_cmd ib_write_bw ib_send_bw ib_send_lat python3
ktap_print_header
ktap_set_plan $PLAN
NSA="ip netns exec a"
NSB="ip netns exec b"
small=${RRXE_DOORBELL_POLL_BURSTS:-500}

# reload PARAMS...: rrxe with these parameters, and rrxe0 and rrxe1 on the
# veth pair (made once).
reload() {
	ip netns exec a rdma link del rrxe0 2>/dev/null
	ip netns exec b rdma link del rrxe1 2>/dev/null
	rmmod rrxe 2>/dev/null
	load_rrxe "$@" || return 1
	[ -e /run/netns/a ] || setup_topology || return 1
	$NSA rdma link add rrxe0 type rrxe netdev veth0 && $NSB rdma link add rrxe1 type rrxe netdev veth1
}
restore() {
	ip netns exec a rdma link del rrxe0 2>/dev/null
	ip netns exec b rdma link del rrxe1 2>/dev/null
	rmmod rrxe 2>/dev/null
	load_rrxe
	ip netns del a 2>/dev/null
	ip netns del b 2>/dev/null
}
trap restore EXIT

# bursts NAME N [ran]: N of each of doorbell.py's bursts; with "ran", also
# that the poller ran.
bursts() {
	local out line c runs
	runs=$(stat_of rrxe0 db_poll_runs)
	out=$(timeout $((600 + $2 / 10)) python3 ./doorbell.py all "$2" 2>&1)
	for c in bursts jittered; do
		line=$(grep -E "^(PASS|FAIL) $c:" <<<"$out")
		if [[ $line == PASS* ]]; then ok "$1: doorbell.py $c: ${line#PASS $c: }"; else not_ok "$1: doorbell.py $c: ${line:-no result}"; fi
	done
	grep '^#' <<<"$out" | head -n 24
	[ "${3:-}" = ran ] || return 0
	check "$1: the poller ran (db_poll_runs $runs -> $(stat_of rrxe0 db_poll_runs))" \
		test "$(stat_of rrxe0 db_poll_runs)" -gt "$runs"
}

use_provider doorbell
if reload doorbell=2 doorbell_poll_start_us=1 doorbell_poll_max_us=1000; then
	ok "doorbell=2 with windows of 1 us to 1 ms: rrxe0 and rrxe1 are created"
	bursts "doorbell=2, windows of 1 us to 1 ms" "$small" ran
else
	for _ in 1 2 3 4; do not_ok "doorbell=2: reload failed"; done
fi
diag "rrxe0: $(nonzero_stats rrxe0 | grep -o 'db_[a-z_]* [0-9]*' | tr '\n' ' ')"

# The default windows: Python's posts may come too late for any, so fewer.
if reload doorbell=2; then
	bursts "doorbell=2" 300
else
	for _ in 1 2; do not_ok "doorbell=2: reload failed"; done
fi
diag "rrxe0: $(nonzero_stats rrxe0 | grep -o 'db_[a-z_]* [0-9]*' | tr '\n' ' ')"

if reload doorbell=3 doorbell_poll_idle_ms=1; then
	bursts "doorbell=3, 1 ms window" "$small" ran
else
	for _ in 1 2 3; do not_ok "doorbell=3: reload failed"; done
fi
diag "rrxe0: $(nonzero_stats rrxe0 | grep -o 'db_[a-z_]* [0-9]*' | tr '\n' ' ')"

if ! reload doorbell=3; then
	for _ in $(seq $((PLAN - 9))); do not_ok "doorbell=3: reload failed"; done
	ktap_finished
fi
for s in "ib_write_bw 64" "ib_send_bw 64"; do
	read -r tool size <<<"$s"
	r=$(stream_rate "$tool" "$size" rrxe0 rrxe1 a b 10.0.0.2)
	at_most "doorbell=3: $tool $size B" "$r" "$STREAM_MAX"
done
hits=$(stat_of rrxe0 db_poll_hits)
r=$(ITERS=1000 BASE=100 rate ib_send_lat 2 rrxe0 rrxe1 a b 10.0.0.2)
at_most "doorbell=3: ib_send_lat 2 B, the poller takes the posts" "$r" 0.5
diag "rrxe0: $(nonzero_stats rrxe0 | grep -o 'db_[a-z_]* [0-9]*' | tr '\n' ' ')"

# many_qps: one ib_write_bw over 256 QPs (32 WQEs deep each: a CQ of 256
# times the default 128 is more than a CQ may hold); prints the most QPs seen
# in rrxe0's poll set at once (the db_poll_qps gauge) while it ran.
many_qps() {
	local sg cg spid cpid most=0 n
	sg=$(gid_index rrxe1 4) && cg=$(gid_index rrxe0 4) || return 1
	$NSB timeout 300 ib_write_bw -d rrxe1 -x "$sg" -q 256 -t 32 -s 64 -n 100 >/dev/null 2>&1 &
	spid=$!
	wait_listen 60 "$spid" 18515 || { kill "$spid"; wait; echo "server did not start"; return 1; }
	$NSA timeout 300 ib_write_bw -d rrxe0 -x "$cg" -q 256 -t 32 -s 64 -n 100 10.0.0.2 >/dev/null 2>&1 &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		n=$(stat_of rrxe0 db_poll_qps)
		[ "$n" -gt "$most" ] && most=$n
		sleep 0.2
	done
	wait "$cpid" || { wait "$spid"; echo "client failed"; return 1; }
	wait "$spid" || { echo "server failed"; return 1; }
	echo "$most"
}
hits=$(stat_of rrxe0 db_poll_hits)
most=$(many_qps)
if [[ $most =~ ^[0-9]+$ ]] && [ "$most" -gt 0 ] && [ "$most" -le 64 ] &&
	[ "$(stat_of rrxe0 db_poll_hits)" -gt "$hits" ]; then
	ok "doorbell=3: 256 QPs, at most 64 polled # $most polled at once at most, db_poll_hits $hits -> $(stat_of rrxe0 db_poll_hits)"
else
	not_ok "doorbell=3: 256 QPs # $most, db_poll_hits $hits -> $(stat_of rrxe0 db_poll_hits)"
fi

out=$(timeout 600 python3 ./doorbell.py destroys "${RRXE_DOORBELL_DESTROYS:-300}" 2>&1)
line=$(grep -E "^(PASS|FAIL) destroys:" <<<"$out")
if [[ $line == PASS* ]]; then ok "doorbell=3: doorbell.py ${line#PASS }"; else not_ok "doorbell=3: doorbell.py destroys: ${line:-no result}"; fi
grep '^#' <<<"$out" | head -n 12
check "doorbell=3: every promise withdrawn once idle (db_arms = db_disarms)" wait_for 10 idle

# polled_then_unloaded: a ping-pong of a million iterations, killed (both ends)
# while the client's QP is polled, and rrxe removed at once.
polled() { rdma resource show qp link rrxe0/1 -dd 2>/dev/null | grep -q "drv_db_watched 2"; }
polled_then_unloaded() {
	local sg cg spid cpid
	sg=$(gid_index rrxe1 4) && cg=$(gid_index rrxe0 4) || return 1
	$NSB timeout 120 ib_send_lat -d rrxe1 -x "$sg" -s 2 -n 1000000 >/dev/null 2>&1 &
	spid=$!
	wait_listen 20 "$spid" 18515 || { kill "$spid"; wait; echo "server did not start"; return 1; }
	$NSA timeout 120 ib_send_lat -d rrxe0 -x "$cg" -s 2 -n 1000000 10.0.0.2 >/dev/null 2>&1 &
	cpid=$!
	wait_for 40 polled || { pkill -9 -x ib_send_lat; wait; echo "the QP was never seen polled"; return 1; }
	pkill -9 -x ib_send_lat
	wait "$spid" "$cpid" 2>/dev/null
	timeout 60 $NSA rdma link del rrxe0 && timeout 60 $NSB rdma link del rrxe1 || { echo "link del failed"; return 1; }
	timeout 60 rmmod rrxe || { echo "rmmod failed"; return 1; }
	! [ -d /sys/module/rrxe ] || { echo "rrxe still loaded"; return 1; }
}
check "doorbell=3: rmmod at once after a polled ping-pong is killed" polled_then_unloaded
restore
trap - EXIT
check "rrxe loads again with its defaults" test -d /sys/module/rrxe
ktap_finished
