#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A/B of two or more builds of rrxe.ko in one guest boot, rrxe0 <-> rrxe1 over
# the standard topology's veths, for the perftest bandwidth points in POINTS
# ("test:size:qps ...", 4 s each; a *_lat test gives its typical latency in us
# over 2000 iterations), ROUNDS times (2) with the modules in turn, so
# the TCG host's drift hits all of them. Run it with --no-load on the perf kernel,
# the modules somewhere in the cache (the guest sees it as /cache), e.g.
#   scripts/vm run --flavour perf --no-build --no-load -- \
#       tools/rrxe-bench/ab-modules.sh /cache/exp/old.ko /cache/exp/new.ko
# A module may carry parameters, as one argument: "/cache/exp/a.ko post_handoff=2".
# Prints one line per module and round: the MiB/s of each point. COUNTERS
# ("tail_ack_probes rcv_duplicate") adds each named device counter's change
# over the point, summed over rrxe0 and rrxe1, as [name=delta ...].
# TICKS=1 adds each vCPU's user and kernel (system, irq, softirq) ticks over
# the point, as {u0/k0 u1/k1 ...}: whether the driver's work kept to one vCPU
# (a SEND stream's fast way, Documentation/benchmarking.rst) or mixed.
set -u
. "$(dirname "$0")/../testing/selftests/rdma/rrxe/lib.sh" # setup_topology, gid_index, stat_of, cpu_ticks
[ $# -ge 2 ] || { echo "usage: ab-modules.sh A.ko B.ko..." >&2; exit 2; }
POINTS=${POINTS:-"ib_write_bw:4096:1 ib_write_bw:4096:8 ib_read_bw:4096:8 ib_write_bw:65536:1"}
ROUNDS=${ROUNDS:-2}
modprobe ib_uverbs && modprobe rdma_ucm || exit 1
setup_topology && pin_neighbours a veth0 b veth1 10.0.0 || exit 1
port=18515
# bw TEST SIZE QPS: MiB/s of one run (typical us for a *_lat TEST), or "failed".
bw() {
	local q="-D 4" col=4 r
	port=$((port + 1))
	case $1 in *_lat) q="-n 2000" col=5 ;; esac
	[ "$3" = 1 ] || q+=" -q $3"
	# shellcheck disable=SC2086 # $q is several words
	ip netns exec b timeout 60 "$1" -d rrxe1 -x "$(gid_index rrxe1 4)" -p $port -F -s "$2" $q \
		>/dev/null 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	r=$(ip netns exec a timeout 60 "$1" -d rrxe0 -x "$(gid_index rrxe0 4)" -p $port -F -s "$2" $q \
		10.0.0.2 2>&1 | awk -v n="$2" -v c=$col '$1 == n && NF >= 5 { print $c }')
	wait
	echo "${r:-failed}"
}
COUNTERS=${COUNTERS:-}
# counters: each of the COUNTERS, summed over rrxe0 and rrxe1, as "name value".
counters() {
	local c a b
	for c in $COUNTERS; do
		a=$(stat_of rrxe0 "$c") b=$(stat_of rrxe1 "$c")
		echo "$c $((${a:-0} + ${b:-0}))"
	done
}
TICKS=${TICKS:-}
# tick_deltas BEFORE AFTER: " {u0/k0 u1/k1 ...}" between two cpu_ticks, if
# TICKS is set.
tick_deltas() {
	[ -n "$TICKS" ] || return 0
	paste -d' ' <(echo "$1") <(echo "$2") |
		awk '{ d = d sep ($3 - $1) "/" ($4 - $2); sep = " " } END { printf " {%s}", d }'
}
# deltas BEFORE AFTER: " [name=delta ...]" for the COUNTERS.
deltas() {
	[ -n "$COUNTERS" ] || return 0
	awk 'NR == FNR { b[$1] = $2; next } { d = d sep $1 "=" $2 - b[$1]; sep = " " }
		END { printf " [%s]", d }' <(echo "$1") <(echo "$2")
}
for round in $(seq "$ROUNDS"); do
	for ko in "$@"; do
		rmmod rrxe 2>/dev/null
		# shellcheck disable=SC2086 # the path, then any parameters
		insmod $ko || { echo "insmod $ko failed" >&2; exit 1; }
		ip netns exec a rdma link add rrxe0 type rrxe netdev veth0 &&
			ip netns exec b rdma link add rrxe1 type rrxe netdev veth1 || exit 1
		read -r path params <<<"$ko"
		line="round $round $(basename "$path")${params:+ $params}:"
		for p in $POINTS; do
			IFS=: read -r t size qps <<<"$p"
			before=$(counters) ticks_before=$(cpu_ticks)
			line+=" $t/$size/x$qps=$(bw "$t" "$size" "$qps")"
			line+=$(tick_deltas "$ticks_before" "$(cpu_ticks)")
			line+=$(deltas "$before" "$(counters)")
		done
		echo "$line"
		ip netns exec a rdma link del rrxe0
		ip netns exec b rdma link del rrxe1
	done
done
