#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make bench` (scripts/bench boots the perf flavour with
# --topo). Up to five drivers, all in the same boot (RRXE_BENCH_DRIVERS names
# them, "rrxe-db rrxe rxe" by default):
#   rrxe-db  rrxe0 <-> rrxe1 with the installed rxe provider, the one patched
#            for rrxe's doorbell (Documentation/doorbell.rst), doorbell=1;
#   rrxe-db2, rrxe-db3  the same with doorbell=2 (the idle-time poller) and
#            doorbell=3 (the dedicated poller): rrxe is loaded again, with
#            its links, whenever the next run needs another mode;
#   rrxe     the same devices with rdma-core's stock provider (RDMAV_DRIVERS,
#            lib.sh's use_provider stock), which never asks for the doorbell;
#   rxe      rdma_rxe's rxe2 <-> rxe3 with the stock provider too (rdma_rxe
#            offers no doorbell, and so its history stays comparable).
# rrxe0/rrxe1 run over veth0/veth1 in netns a/b (the standard topology);
# rxe2/rxe3 over a second veth pair, veth2/veth3 in netns c/d, so each driver
# owns UDP 4791 in its own namespaces. Every point runs for each driver back to
# back, in an order that changes from round to round (order_of), then the next
# point, for RRXE_BENCH_ROUNDS rounds: slow drift of the TCG host hits all.
# The client runs under syscalls.py, which gives its write() calls (syscw);
# rrxe0's and rrxe1's db_poll_ns around each run give the poller's CPU time.
# Writes one JSON object per perftest run to $1 (JSON lines).
set -u
. "$(dirname "$0")/../testing/selftests/rdma/rrxe/lib.sh" # setup_rxe_pair, gid_index, cpu_ticks, use_provider
out=${1:?usage: bench-guest.sh OUT.jsonl}
rounds=${RRXE_BENCH_ROUNDS:-6}
secs=${RRXE_BENCH_SECONDS:-4}
lat_iters=${RRXE_BENCH_LAT_ITERS:-500}
read -r -a drivers <<<"${RRXE_BENCH_DRIVERS:-rrxe-db rrxe rxe}"
syscalls=$(cd "$(dirname "$0")/../testing/selftests/rdma/rrxe" && pwd)/syscalls.py
: >"$out"

fail() { echo "bench: $*" >&2; exit 1; }

[ ${#drivers[@]} -gt 0 ] || fail "RRXE_BENCH_DRIVERS names no driver"
for drv in "${drivers[@]}"; do
	case $drv in rrxe-db | rrxe-db2 | rrxe-db3 | rrxe | rxe) ;;
	*) fail "unknown driver '$drv' (rrxe-db, rrxe-db2, rrxe-db3, rrxe, rxe)" ;;
	esac
done
setup_rxe_pair || fail "the rdma_rxe pair (netns c/d)"

# provider_of DRIVER: the provider it runs with.
provider_of() { case $1 in rrxe-db*) echo doorbell ;; *) echo stock ;; esac; }

# mode_of DRIVER: the doorbell mode rrxe must be loaded with, or nothing for
# any (the stock provider never takes the doorbell).
mode_of() { case $1 in rrxe-db) echo 1 ;; rrxe-db2) echo 2 ;; rrxe-db3) echo 3 ;; esac; }
mode=1 # as the guest init loaded it
# ensure_mode DRIVER: rrxe in the driver's mode, with rrxe0 and rrxe1.
ensure_mode() {
	local want
	want=$(mode_of "$1")
	[ -z "$want" ] || [ "$want" = "$mode" ] && return 0
	ip netns exec a rdma link del rrxe0 && ip netns exec b rdma link del rrxe1 &&
		rmmod rrxe && insmod "$RRXE_KO" doorbell="$want" &&
		ip netns exec a rdma link add rrxe0 type rrxe netdev veth0 &&
		ip netns exec b rdma link add rrxe1 type rrxe netdev veth1 || fail "reloading rrxe with doorbell=$want"
	mode=$want
	echo "bench: rrxe loaded with doorbell=$want" >&2
}
# poll_ns: the poller's CPU time so far on rrxe0 and rrxe1 (0 for rdma_rxe).
poll_ns() { echo $(($(stat_of rrxe0 db_poll_ns) + $(stat_of rrxe1 db_poll_ns))); }
# Each driver's provider, checked once: without the stock copy use_provider
# stock would silently leave the patched one, and "rrxe" would be "rrxe-db".
for drv in "${drivers[@]}"; do
	if [ "$drv" = rxe ]; then dev=rxe3; else dev=rrxe1; fi
	want=$(provider_of "$drv")
	use_provider "$want" || fail "use_provider"
	file=$(provider_file $dev) || fail "$drv: no provider for $dev"
	case $want:$file in
	stock:*/stock/* | doorbell:*) ;;
	*) fail "$drv: $dev uses $file, not the stock provider" ;;
	esac
	case $want:$file in doorbell:*/stock/*) fail "$drv: $dev uses the stock provider $file" ;; esac
	echo "bench: $drv: $dev with $file" >&2
done
# Contexts that took the doorbell: rrxe-db's runs should move it (checked at
# the end, if rrxe was not loaded again meanwhile).
db0=$(stat_of rrxe1 db_contexts)

# The matrix: test:size:kind[:QPs] (ARCHITECTURE.md section 6). The last two
# bandwidth points spread the same test over 8 QPs (perftest -q): many-QP scaling.
points="ib_write_bw:64:bw ib_write_bw:4096:bw ib_write_bw:65536:bw
ib_read_bw:64:bw ib_read_bw:4096:bw ib_read_bw:65536:bw
ib_send_bw:64:bw ib_send_bw:4096:bw ib_send_bw:65536:bw
ib_write_bw:4096:bw:8 ib_read_bw:4096:bw:8
ib_send_lat:2:lat ib_write_lat:2:lat ib_read_lat:2:lat"
# RRXE_BENCH_POINTS replaces the matrix with a subset (same syntax), e.g. to look
# at one point over more rounds.
points=${RRXE_BENCH_POINTS:-$points}

# order_of ROUND: the drivers' order in that round. Rounds 1..n rotate the
# list, rounds n+1..2n rotate it reversed (for 3 drivers, all 6 orders in 6
# rounds), so no driver always goes first, on a warmer or cooler host, and over
# 2n rounds each goes before each other as often as after. Two drivers simply
# alternate, as the bench always has.
order_of() {
	local n=${#drivers[@]} r=$(($1 - 1)) list=("${drivers[@]}") i k
	if [ "$n" -ge 3 ] && [ $(((r / n) % 2)) = 1 ]; then
		list=()
		for ((i = n - 1; i >= 0; i--)); do list+=("${drivers[i]}"); done
	fi
	k=$((r % n))
	echo "${list[@]:k}" "${list[@]:0:k}"
}

# Per-vCPU user and kernel ticks (lib.sh's cpu_ticks) are taken around the
# client's run: where its work went. A SEND stream tends to run fastest with
# the driver's work on one vCPU and the two polling processes on the other
# (Documentation/benchmarking.rst); the report shows how much each run's vCPUs
# mixed the two. cpu_json gives the JSON fields of the ticks between two snapshots.
cpu_json() {
	paste -d' ' "$1" "$2" | awk '{ u = u sep ($3 - $1); k = k sep ($4 - $2); sep = "," }
		END { printf "\"cpu_user\":[%s],\"cpu_kernel\":[%s]", u, k }'
}

port=18515
# run DRIVER TEST SIZE KIND ROUND QPS SLOT: one perftest client/server pair,
# one JSON line. The caller has chosen the provider (use_provider), which
# server and client both inherit (RDMAV_DRIVERS).
#
# Besides the result, each line has the client's write() calls ("syscw",
# syscalls.py; null if unknown) and perftest's #iterations ("iters"). For a
# latency test that is -n. For a bandwidth test (-D) it is the WRs completed
# in perftest's measured window only, the duration less a margin at each end
# (perftest takes duration/4, rounded down, when -f is not given): "secs" and
# "margin_s" let the report scale it to the whole run, as perftest's own
# bytes_validated does. syscw also counts set-up (a few dozen writes).
run() {
	local drv=$1 t=$2 size=$3 kind=$4 round=$5 qps=$6 slot=$7 sns cns sdev cdev addr args s c rc=0 line
	local provider syscw common p0 p1 w0 w1 poll
	if [ "$drv" = rxe ]; then
		sns=c cns=d sdev=rxe2 cdev=rxe3 addr=10.0.1.1
	else
		sns=a cns=b sdev=rrxe0 cdev=rrxe1 addr=10.0.0.1
	fi
	provider=$(provider_of "$drv")
	port=$((port + 1))
	if [ "$kind" = bw ]; then args="-s $size -D $secs"; else args="-s $size -n $lat_iters"; fi
	[ "$qps" = 1 ] || args+=" -q $qps"
	s=$(mktemp) c=$(mktemp) t0=$(mktemp) t1=$(mktemp)
	ip netns exec $sns timeout 120 "$t" -d $sdev -x "$(gid_index $sdev 4)" -p $port -F $args >"$s" 2>&1 &
	local spid=$!
	sleep 1
	cpu_ticks >"$t0"
	p0=0 p1=0
	[ "$drv" = rxe ] || p0=$(poll_ns)
	w0=$(date +%s%N)
	ip netns exec $cns timeout 120 python3 "$syscalls" \
		"$t" -d $cdev -x "$(gid_index $cdev 4)" -p $port -F $args $addr >"$c" 2>&1 || rc=$?
	wait $spid
	local src=$?
	w1=$(date +%s%N)
	[ "$drv" = rxe ] || p1=$(poll_ns)
	cpu_ticks >"$t1"
	# The poller's CPU time, and the wall time it is a share of.
	poll=$(printf '"poll_ns":%s,"wall_ns":%s' $((p1 - p0)) $((w1 - w0)))
	[ "$rc" != 0 ] || rc=$src
	syscw=$(awk '$1 == "syscw" && $2 ~ /^[0-9]+$/ { n = $2 } END { print n == "" ? "null" : n }' "$c")
	# The result row is the one that starts with the message size.
	line=$(awk -v n="$size" '$1 == n && NF >= 5 { l = $0 } END { print l }' "$c")
	# perftest prints "inf" or "nan" for a time it could not measure (seen once
	# in ib_write_lat under TCG): a failed run, not a JSON number.
	if [ -n "$line" ] && ! awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) exit 1 }' <<<"$line"; then
		echo "bench: $drv $t $size gave a result that is not a number: $line" >&2
		line=""
	fi
	common=$(printf '"driver":"%s","test":"%s","size":%s,"qps":%s,"kind":"%s","round":%s' \
		"$drv" "$t" "$size" "$qps" "$kind" "$round")
	if [ "$rc" != 0 ] || [ -z "$line" ]; then
		echo "bench: $drv $t $size failed (rc=$rc)" >&2
		sed 's/^/  client: /' "$c" | tail -n 5 >&2
		sed 's/^/  server: /' "$s" | tail -n 5 >&2
		printf '{%s,"ok":false,"provider":"%s","slot":%s}\n' "$common" "$provider" "$slot" >>"$out"
	elif [ "$kind" = bw ]; then
		# #bytes #iterations BW-peak BW-average[MiB/s] MsgRate[Mpps]
		set -- $line
		printf '{%s,"ok":true,"bw_mib_s":%s,"mpps":%s,%s,"provider":"%s","slot":%s,"iters":%s,"syscw":%s,"secs":%s,"margin_s":%s,%s}\n' \
			"$common" "$4" "$5" "$(cpu_json "$t0" "$t1")" "$provider" "$slot" "$2" "$syscw" \
			"$secs" $((secs / 4)) "$poll" >>"$out"
		echo "bench: round $round $drv $t $size x$qps: $4 MiB/s, $syscw write() for $2 WRs measured" >&2
	else
		# #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9 [usec]
		set -- $line
		printf '{%s,"ok":true,"typical_us":%s,"avg_us":%s,"p99_us":%s,%s,"provider":"%s","slot":%s,"iters":%s,"syscw":%s,%s}\n' \
			"$common" "$5" "$6" "$8" "$(cpu_json "$t0" "$t1")" "$provider" "$slot" "$2" "$syscw" "$poll" >>"$out"
		echo "bench: round $round $drv $t $size: $5 us typical, $syscw write() for $2 iterations" >&2
	fi
	rm -f "$s" "$c" "$t0" "$t1"
}

for round in $(seq "$rounds"); do
	order=$(order_of "$round")
	echo "bench: round $round: $order" >&2
	for p in $points; do
		IFS=: read -r t size kind qps <<<"$p"
		slot=0
		for drv in $order; do
			ensure_mode "$drv"
			use_provider "$(provider_of "$drv")" || fail "use_provider"
			run "$drv" "$t" "$size" "$kind" "$round" "${qps:-1}" $slot
			slot=$((slot + 1))
		done
	done
done
db1=$(stat_of rrxe1 db_contexts)
case " ${drivers[*]} " in
*" rrxe-db2 "* | *" rrxe-db3 "*) ;;
*" rrxe-db "*) [ "${db1:-0}" -gt "${db0:-0}" ] ||
	echo "bench: warning: no rrxe-db run took the doorbell (rrxe1 db_contexts ${db0:-?} -> ${db1:-?})" >&2 ;;
esac
echo "bench: $(wc -l <"$out") runs written" >&2
