#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest in the standard topology (netns a: veth0 and rrxe0; netns b: veth1 and
# the peer), both veths at MTU 9000 so either path MTU fits. Every tool runs once
# for each pairing, the client (requester) named first: rrxe0 -> rrxe1,
# rrxe0 -> rdma_rxe's rxe1 and rxe1 -> rrxe0. The size (2 B, 4 KiB, 64 KiB), the
# path MTU (1024, 4096) and the GID family (IPv4, IPv6) rotate with the pairing,
# so each tool meets every size, both MTUs and both families once over the three
# pairings, and each pairing meets all of them across its tools (a full cross
# product is too many under TCG for CI). RRXE_PERFTEST_FULL=1 (make soak) runs
# the full product instead: every size, MTU and family for every tool and
# pairing (ib_atomic_bw has one size, 8 B). A run passes when the client prints
# its result line for the size and iteration count, and both sides exit 0.
# The pairings with rdma_rxe post through rdma-core's stock provider (lib.sh's
# rxe_pairings_begin). RRXE_PEERS=rrxe runs only rrxe0 -> rrxe1.
cd "$(dirname "$0")" && . ./lib.sh
ITERS=${RRXE_PERFTEST_ITERS:-20}
FULL=${RRXE_PERFTEST_FULL:-0}
TOOLS=(ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat)
SIZES=(2 4096 65536)
MTUS=(1024 4096)
FAMILIES=(4 6)
# Runs per pairing: each tool once, or in the full product each tool at every
# size, MTU and family, ib_atomic_bw at one size. Then for the pairings, 2 checks
# of the set-up, 1 killed responder and 1 of the counters.
if [ "$FULL" = 1 ]; then
	RUNS=$(((${#TOOLS[@]} - 1) * ${#SIZES[@]} * ${#MTUS[@]} * ${#FAMILIES[@]} +
		${#MTUS[@]} * ${#FAMILIES[@]}))
else
	RUNS=${#TOOLS[@]}
fi
PEERS=${RRXE_PEERS:-rrxe rxe}
PAIRINGS=3
[[ " $PEERS " == *" rxe "* ]] || PAIRINGS=1
PLAN=$((PAIRINGS * RUNS + 4))
require_rrxe
require_cmd ibv_devinfo "${TOOLS[@]}"
require_module rdma_rxe
ktap_print_header
ktap_set_plan $PLAN
NSA="ip netns exec a"
NSB="ip netns exec b"

# perf_try TOOL CLI_NS CLI_DEV SRV_NS SRV_DEV SIZE MTU: one server/client run
# with GIDs SG and CG (set by perf). It succeeds when both exit 0 and the client
# printed its result line; otherwise it prints why, and what to look at, to
# stdout.
perf_try() {
	local tool=$1 cns=$2 cdev=$3 sns=$4 sdev=$5 size=$6 mtu=$7 srv_ip out spid cpid wdog crc src
	[ "$sns" = a ] && srv_ip=10.0.0.1 || srv_ip=10.0.0.2
	out=$(mktemp)
	local before_c before_s
	before_c=$(nonzero_stats "$cdev") before_s=$(nonzero_stats "$sdev")
	ip netns exec "$sns" timeout 120 "$tool" -d "$sdev" -x "$SG" -m "$mtu" -s "$size" \
		-n "$ITERS" >"$out.s" 2>&1 &
	spid=$!
	if ! wait_listen 20 "$spid" 18515; then
		kill "$spid" 2>/dev/null; wait "$spid"
		echo "server did not start"; sed 's/^/server: /' "$out.s" | tail -n 5
		rm -f "$out" "$out.s"; return 1
	fi
	ip netns exec "$cns" timeout 120 "$tool" -d "$cdev" -x "$CG" -m "$mtu" -s "$size" \
		-n "$ITERS" "$srv_ip" >"$out.c" 2>&1 &
	cpid=$!
	# A run that stops moving: its QPs' transport state, while they still exist
	# (a sleeping watchdog, not a poll that takes CPU from the run).
	(
		trap 'kill $nap 2>/dev/null; wait $nap; exit 0' TERM
		sleep 100 & nap=$!
		wait $nap && kill -0 "$cpid" 2>/dev/null && qp_state "$cdev" "$sdev" >"$out" 2>&1
	) &
	wdog=$!
	wait "$cpid"
	crc=$?
	kill "$wdog" 2>/dev/null
	wait "$wdog"
	wait "$spid"
	src=$?
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -qE "^ *$size +$ITERS " "$out.c"; then
		rm -f "$out" "$out.s" "$out.c"
		return 0
	fi
	echo "client exit $crc, server exit $src"
	# A tool's errors go to stderr at once and its stdout (the parameter banner)
	# at exit, so the first lines hold the errors. The client's come first: the
	# requester is where a failed run usually starts, and a long log is cut in
	# the middle.
	grep -v '^-*$' "$out.c" | head -n 15 | sed 's/^/client: /'
	grep -v '^-*$' "$out.s" | head -n 15 | sed 's/^/server: /'
	# What the two ends counted in this run (retries, drops), for one that hung.
	echo "$cdev: $(stats_delta "$before_c" "$(nonzero_stats "$cdev")")"
	echo "$sdev: $(stats_delta "$before_s" "$(nonzero_stats "$sdev")")"
	[ -s "$out" ] && cat "$out"
	rm -f "$out" "$out.s" "$out.c"
	return 1
}

# perf TOOL CLI_NS CLI_DEV SRV_NS SRV_DEV SIZE MTU FAMILY: a run, and one more if
# it fails. In one CI run, after dozens that passed, ib_read_bw 64 KiB at MTU
# 1024 failed here with both tools exiting 1 and the client's error cut from
# the log; 90 runs of this pairing's sequence alone then passed. A second
# failure fails the case with both tries' reasons; a pass at the second try
# says so in its line and prints the first try's reason, so a flake stays
# visible without failing the suite.
perf() {
	local tool=$1 size=$6 mtu=$7 fam=$8 name="$1: $3 -> $5, $6 bytes, MTU $7, IPv$8" why1 why2
	[ "$tool" = ib_atomic_bw ] && size=8 && name="$1: $3 -> $5, MTU $7, IPv$8"
	SG=$(gid_index "$5" "$fam") && CG=$(gid_index "$3" "$fam") || {
		not_ok "$name # no IPv$fam GID"; return; }
	why1=$(perf_try "$1" "$2" "$3" "$4" "$5" "$size" "$mtu") && { ok "$name"; return; }
	if why2=$(perf_try "$1" "$2" "$3" "$4" "$5" "$size" "$mtu"); then
		ok "$name # passed at try 2; try 1: $(head -n 1 <<<"$why1")"
		diag "try 1: $why1"
	else
		not_ok "$name # $(head -n 1 <<<"$why2") (try 1: $(head -n 1 <<<"$why1"))"
		diag "try 1: $why1"
		diag "try 2: $why2"
	fi
}

# pairing P CLI_NS CLI_DEV SRV_NS SRV_DEV: every tool once, pairing number P
# choosing the rotation; with RRXE_PERFTEST_FULL=1, every tool at every size,
# MTU and family.
pairing() {
	local p=$1 t size mtu fam
	shift
	if [ "$FULL" = 1 ]; then
		for t in "${TOOLS[@]}"; do
			for size in "${SIZES[@]}"; do
				for mtu in "${MTUS[@]}"; do
					for fam in "${FAMILIES[@]}"; do
						perf "$t" "$@" "$size" "$mtu" "$fam"
					done
				done
				# ib_atomic_bw's size is always 8 B.
				[ "$t" = ib_atomic_bw ] && break
			done
		done
		return
	fi
	for t in "${!TOOLS[@]}"; do
		perf "${TOOLS[$t]}" "$@" "${SIZES[$(((t + p) % 3))]}" "${MTUS[$(((t + p) % 2))]}" \
			"${FAMILIES[$(((t + (p + 1) / 2) % 2))]}"
	done
}

if ! setup_topology; then
	for _ in $(seq $PLAN); do not_ok "topology set-up failed"; done
	ktap_finished
fi
ip -n a link set veth0 mtu 9000
ip -n b link set veth1 mtu 9000
modprobe rdma_rxe 2>/dev/null
check "rrxe0 and rrxe1 are created" sh -c \
	"$NSA rdma link add rrxe0 type rrxe netdev veth0 && $NSB rdma link add rrxe1 type rrxe netdev veth1"
check "rrxe0's active MTU is 4096 on a 9000-byte netdev" sh -c \
	"ibv_devinfo -d rrxe0 | grep -q 'active_mtu:.*4096'"
pairing 0 a rrxe0 b rrxe1

# A READ responder killed mid-transfer: its QP is destroyed while its work item
# may still be queued (64 KiB READs at MTU 1024 use up a sender run's budget and
# hand over to it), and the work item must not free the QP's user rings after
# the user context is gone (KASAN in the runner's checks). The requester then
# hears nothing: at perftest's retry_cnt 7 (timeout 14, 67 ms) it fails with
# RETRY_EXC_ERR (status 12) after 7 resends and 1 s of silence, long before its
# 60 s are up. rdma_rxe would retry for ever at 7.
killed_responder() {
	local name="ib_read_bw: rrxe0 -> rrxe1, the responder killed mid-transfer: RETRY_EXC_ERR"
	local sg cg spid cpid out
	sg=$(gid_index rrxe1 4) && cg=$(gid_index rrxe0 4) || { not_ok "$name # no GID"; return; }
	out=$(mktemp)
	# Disowned, so killing it prints no job notice.
	$NSB timeout 120 ib_read_bw -d rrxe1 -x "$sg" -m 1024 -s 65536 -D 60 >/dev/null 2>&1 &
	spid=$!
	disown "$spid"
	if ! wait_listen 20 "$spid" 18515; then
		pkill -9 -x ib_read_bw; wait 2>/dev/null
		rm -f "$out"
		not_ok "$name # server did not start"; return
	fi
	$NSA timeout 120 ib_read_bw -d rrxe0 -x "$cg" -m 1024 -s 65536 -D 60 10.0.0.2 >"$out" 2>&1 &
	cpid=$!
	sleep 6
	pkill -9 -f "ib_read_bw -d rrxe1"
	if ! wait_for 30 sh -c "! kill -0 $cpid 2>/dev/null"; then
		not_ok "$name # the client still ran 30 s after"
	elif ! grep -q "Failed status 12:" "$out"; then
		not_ok "$name # the client exited without RETRY_EXC_ERR: $(grep -m1 -i fail "$out")"
	else
		ok "$name"
	fi
	pkill -9 -x ib_read_bw; wait 2>/dev/null
	rm -f "$out"
}
killed_responder
$NSB rdma link del rrxe1
if [ "$PAIRINGS" = 3 ]; then
	$NSB rdma link add rxe1 type rxe netdev veth1 || diag "rdma link add rxe1 failed"
	rxe_pairings_begin
	pairing 1 a rrxe0 b rxe1
	pairing 2 b rxe1 a rrxe0
	rxe_pairings_end
fi
check "rrxe0 saw no ICRC errors" test "$(stat_of rrxe0 rcv_icrc_err)" = 0
$NSB rdma link del rxe1 2>/dev/null
$NSA rdma link del rrxe0
ip netns del a
ip netns del b
ktap_finished
