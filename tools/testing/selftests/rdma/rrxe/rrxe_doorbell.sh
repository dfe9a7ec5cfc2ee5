#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The doorbell (uapi/rdma/rdma_user_rrxe.h) as a user sees it: how many write()
# system calls a perftest client makes per posted work request, with the rxe
# provider patched for the doorbell (tools/provider/) and with the stock one.
# The count is the client's syscw (/proc/PID/io, syscalls.py). A stream runs
# ITERS (4,000; make soak 8,000) iterations, and its rate is the write() calls
# made while the client's device sent its ITERS/4-th to its 15 ITERS/16-th
# packet, one per WR
# (doorbell_lib.sh's stream_rate): perftest's start-up (its first 128 posts,
# which ring until the kernel first promises, 20 to 140 calls from one run to
# the next) and its end are left out. The veths are at MTU 9000, so that a
# 4 KiB WR is one packet. Where every post rings (a ping-pong, whose client
# sends ACKs too; the stock provider; rdma_rxe) the count is exact: a run of
# 1,000 iterations less one of 100 (doorbell_lib.sh's rate).
#  - streams (ib_write_bw, ib_send_bw, ib_read_bw at 64 B and 4 KiB) make at
#    most 0.01 write() per WR with the doorbell (STREAM_MAX), and 1 with the
#    stock provider;
#  - no lost wake-up: doorbell.py's bursts of 1 to 3 posts all complete
#    (RRXE_DOORBELL_BURSTS of each kind, 500 by default);
#  - a ping-pong (ib_send_lat) makes at most 1 per iteration: its post finds
#    the QP idle and rings (Documentation/data-path.rst);
#  - ibv_rc_pingpong -e arms its CQ through the ring: rrxe0 sees no
#    REQ_NOTIFY_CQ, where the stock provider makes one per event;
#  - the patched provider on rdma_rxe, which offers nothing, rings every post;
#  - 300 QPs destroyed with posts in flight (doorbell.py destroys);
#  - every QP's promise is withdrawn once the traffic ends (db_arms equals
#    db_disarms), also after perftest is killed mid-stream (1 and 64 QPs),
#    and rrxe0 saw no ICRC error. The guest then checks kmemleak and dmesg.
cd "$(dirname "$0")" && . ./lib.sh && . ./doorbell_lib.sh
ITERS=${RRXE_DOORBELL_ITERS:-4000}
PP_ITERS=${RRXE_DOORBELL_PP_ITERS:-200}
STREAM_MAX=0.01
STREAMS=("ib_write_bw 64" "ib_write_bw 4096" "ib_send_bw 64" "ib_send_bw 4096"
	"ib_read_bw 64" "ib_read_bw 4096")
PLAN=$((2 + ${#STREAMS[@]} + 12))
require_rrxe
require_cmd ib_write_bw ib_send_bw ib_read_bw ib_send_lat ibv_rc_pingpong python3
require_module rdma_rxe
ktap_print_header
ktap_set_plan $PLAN
NSA="ip netns exec a"
NSB="ip netns exec b"

# pingpong_notify: runs ibv_rc_pingpong -e rrxe0 -> rrxe1 and prints the
# client device's REQ_NOTIFY_CQ verbs and ring-armed events in it (the
# provider arms through an ioctl, which syscw does not count).
pingpong_notify() {
	local c0 e0
	c0=$(stat_of rrxe0 cq_notify_calls) e0=$(stat_of rrxe0 db_cq_events)
	count ibv_rc_pingpong 64 "$PP_ITERS" rrxe0 rrxe1 a b 10.0.0.2 >/dev/null || return 1
	echo "$(($(stat_of rrxe0 cq_notify_calls) - c0)) $(($(stat_of rrxe0 db_cq_events) - e0))"
}

if ! setup_topology; then
	for _ in $(seq $PLAN); do not_ok "topology set-up failed"; done
	ktap_finished
fi
check "rrxe0 and rrxe1 are created" sh -c \
	"ip -n a link set veth0 mtu 9000 && ip -n b link set veth1 mtu 9000 &&
	$NSA rdma link add rrxe0 type rrxe netdev veth0 && $NSB rdma link add rrxe1 type rrxe netdev veth1"
use_provider doorbell
stock=$(use_provider stock && provider_file rrxe0)
patched=$(use_provider doorbell && provider_file rrxe0)
if [[ $stock == */stock/* ]] && [[ $patched != */stock/* ]] && [ -n "$patched" ]; then
	ok "the doorbell provider is the default, the stock one selectable # $patched"
else
	not_ok "provider selection # doorbell: '$patched', stock: '$stock'"
fi

ctx0=$(stat_of rrxe0 db_contexts)
for s in "${STREAMS[@]}"; do
	read -r tool size <<<"$s"
	r=$(stream_rate "$tool" "$size" rrxe0 rrxe1 a b 10.0.0.2)
	at_most "$tool $size B, rrxe0 -> rrxe1, doorbell provider" "$r" "$STREAM_MAX"
done
diag "rrxe0: $(nonzero_stats rrxe0 | grep -o 'db_[a-z_]* [0-9]*' | tr '\n' ' ')"

# No lost wake-up: bursts of 1 to 3 posts, each awaited for at most 5 s,
# plainly and with the posts spread so that they race the disarm.
bursts=${RRXE_DOORBELL_BURSTS:-500}
out=$(timeout $((600 + bursts / 10)) python3 ./doorbell.py all "$bursts" 2>&1)
for c in bursts jittered; do
	line=$(grep -E "^(PASS|FAIL) $c:" <<<"$out")
	if [[ $line == PASS* ]]; then ok "doorbell.py $c: ${line#PASS $c: }"; else not_ok "doorbell.py $c: ${line:-no result}"; fi
done
grep '^#' <<<"$out" | head -n 40

# 300 here, 1000 in rrxe_doorbell_poll.sh, where the poller takes the posts.
out=$(timeout 600 python3 ./doorbell.py destroys "${RRXE_DOORBELL_DESTROYS:-300}" 2>&1)
line=$(grep -E "^(PASS|FAIL) destroys:" <<<"$out")
if [[ $line == PASS* ]]; then ok "doorbell.py ${line#PASS }"; else not_ok "doorbell.py destroys: ${line:-no result}"; fi
grep '^#' <<<"$out" | head -n 20

use_provider stock
r=$(ITERS=1000 BASE=100 rate ib_write_bw 64 rrxe0 rrxe1 a b 10.0.0.2)
if [[ $r =~ ^[0-9.]+$ ]] && awk -v r="$r" 'BEGIN { exit !(r >= 0.99 && r <= 1.01) }'; then
	ok "ib_write_bw 64 B, stock provider: one write() per WR # $r"
else
	not_ok "ib_write_bw 64 B, stock provider # $r write() per WR, not 1"
fi
pp_stock=$(pingpong_notify)
use_provider doorbell

r=$(ITERS=1000 BASE=100 rate ib_send_lat 2 rrxe0 rrxe1 a b 10.0.0.2)
at_most "ib_send_lat 2 B, doorbell provider: at most one per iteration" "$r" 1.01

pp=$(pingpong_notify)
read -r calls_s events_s <<<"$pp_stock"
read -r calls_d events_d <<<"$pp"
if [ -n "$calls_d" ] && [ -n "$calls_s" ] && [ "$calls_s" -ge "$PP_ITERS" ] && [ "$events_s" = 0 ] &&
	[ "$calls_d" -le 1 ] && [ "$events_d" -ge "$PP_ITERS" ]; then
	ok "ibv_rc_pingpong -e arms its CQ without a system call # REQ_NOTIFY_CQ: $calls_d, ring-armed events: $events_d (stock: $calls_s, $events_s)"
else
	not_ok "ibv_rc_pingpong -e # REQ_NOTIFY_CQ and ring-armed events: doorbell '$pp', stock '$pp_stock'"
fi
ctx1=$(stat_of rrxe0 db_contexts)
check "the doorbell provider took the doorbell (db_contexts $ctx0 -> $ctx1)" test "$ctx1" -gt "$ctx0"

# The patched provider where nothing is offered: rdma_rxe.
if setup_rxe_pair; then
	r=$(ITERS=1000 BASE=100 rate ib_write_bw 64 rxe2 rxe3 c d 10.0.1.2)
	if [[ $r =~ ^[0-9.]+$ ]] && awk -v r="$r" 'BEGIN { exit !(r >= 0.99 && r <= 1.01) }'; then
		ok "ib_write_bw 64 B on rdma_rxe, doorbell provider: one write() per WR # $r"
	else
		not_ok "ib_write_bw 64 B on rdma_rxe, doorbell provider # $r"
	fi
	ip netns exec c rdma link del rxe2
	ip netns exec d rdma link del rxe3
	ip netns del c
	ip netns del d
else
	not_ok "ib_write_bw 64 B on rdma_rxe # rdma_rxe pair set-up failed"
fi

check "every promise withdrawn once idle (db_arms = db_disarms)" wait_for 10 idle

armed_since() { [ "$(stat_of rrxe0 db_arms)" -gt "$1" ]; }
# killed_stream TOOL ARGS...: a perftest pair rrxe0 -> rrxe1 of a million WRs, killed
# with SIGKILL (both ends) while the client's QPs are watched.
killed_stream() {
	local sg cg spid cpid arms
	sg=$(gid_index rrxe1 4) && cg=$(gid_index rrxe0 4) || return 1
	$NSB timeout 60 "$@" -d rrxe1 -x "$sg" -n 1000000 >/dev/null 2>&1 &
	spid=$!
	wait_listen 20 "$spid" 18515 || { kill "$spid"; wait; echo "server did not start"; return 1; }
	arms=$(stat_of rrxe0 db_arms)
	$NSA timeout 60 "$@" -d rrxe0 -x "$cg" -n 1000000 10.0.0.2 >/dev/null 2>&1 &
	cpid=$!
	# Killed once the stream is watched (64 QPs take a while to connect).
	wait_for 40 armed_since "$arms"
	sleep 1
	pkill -9 -x "$1"
	wait "$spid" "$cpid" 2>/dev/null
	[ "$(stat_of rrxe0 db_arms)" -gt "$arms" ] || { echo "the stream was never watched"; return 1; }
	wait_for 10 idle || { idle; return 1; }
}
check "ib_write_bw 64 B killed mid-stream: promises withdrawn, QPs gone" killed_stream ib_write_bw -s 64
check "ib_write_bw 4 KiB over 64 QPs killed mid-stream" killed_stream ib_write_bw -s 4096 -q 64
check "rrxe0 saw no ICRC errors" test "$(stat_of rrxe0 rcv_icrc_err)" = 0
$NSA rdma link del rrxe0
$NSB rdma link del rrxe1
ip netns del a
ip netns del b
ktap_finished
