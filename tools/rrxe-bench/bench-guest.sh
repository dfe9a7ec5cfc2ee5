#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make bench` (scripts/bench boots the perf flavour with
# --topo). rrxe0 <-> rrxe1 run over veth0/veth1 in netns a/b (the standard
# topology); rdma_rxe's rxe2 <-> rxe3 over a second veth pair, veth2/veth3 in
# netns c/d, so each driver owns UDP 4791 in its own namespaces and both pairs
# live in the same boot. Every point runs for both drivers back to back, then the
# next point, for RRXE_BENCH_ROUNDS rounds: slow drift of the TCG host hits both.
# Writes one JSON object per perftest run to $1 (JSON lines).
set -u
. "$(dirname "$0")/../testing/selftests/rdma/rrxe/lib.sh" # setup_rxe_pair, gid_index, cpu_ticks
out=${1:?usage: bench-guest.sh OUT.jsonl}
rounds=${RRXE_BENCH_ROUNDS:-6}
secs=${RRXE_BENCH_SECONDS:-4}
lat_iters=${RRXE_BENCH_LAT_ITERS:-500}
: >"$out"

fail() { echo "bench: $*" >&2; exit 1; }

setup_rxe_pair || fail "the rdma_rxe pair (netns c/d)"

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
# run DRIVER TEST SIZE KIND ROUND QPS: one perftest client/server pair, one JSON
# line.
run() {
	local drv=$1 t=$2 size=$3 kind=$4 round=$5 qps=$6 sns cns sdev cdev addr args s c rc=0 line
	if [ "$drv" = rrxe ]; then
		sns=a cns=b sdev=rrxe0 cdev=rrxe1 addr=10.0.0.1
	else
		sns=c cns=d sdev=rxe2 cdev=rxe3 addr=10.0.1.1
	fi
	port=$((port + 1))
	if [ "$kind" = bw ]; then args="-s $size -D $secs"; else args="-s $size -n $lat_iters"; fi
	[ "$qps" = 1 ] || args+=" -q $qps"
	s=$(mktemp) c=$(mktemp) t0=$(mktemp) t1=$(mktemp)
	ip netns exec $sns timeout 120 "$t" -d $sdev -x "$(gid_index $sdev 4)" -p $port -F $args >"$s" 2>&1 &
	local spid=$!
	sleep 1
	cpu_ticks >"$t0"
	ip netns exec $cns timeout 120 "$t" -d $cdev -x "$(gid_index $cdev 4)" -p $port -F $args $addr >"$c" 2>&1 || rc=$?
	wait $spid
	local src=$?
	cpu_ticks >"$t1"
	[ "$rc" != 0 ] || rc=$src
	# The result row is the one that starts with the message size.
	line=$(awk -v n="$size" '$1 == n && NF >= 5 { l = $0 } END { print l }' "$c")
	# perftest prints "inf" or "nan" for a time it could not measure (seen once
	# in ib_write_lat under TCG): a failed run, not a JSON number.
	if [ -n "$line" ] && ! awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) exit 1 }' <<<"$line"; then
		echo "bench: $drv $t $size gave a result that is not a number: $line" >&2
		line=""
	fi
	if [ "$rc" != 0 ] || [ -z "$line" ]; then
		echo "bench: $drv $t $size failed (rc=$rc)" >&2
		sed 's/^/  client: /' "$c" | tail -n 5 >&2
		sed 's/^/  server: /' "$s" | tail -n 5 >&2
		printf '{"driver":"%s","test":"%s","size":%s,"qps":%s,"kind":"%s","round":%s,"ok":false}\n' \
			"$drv" "$t" "$size" "$qps" "$kind" "$round" >>"$out"
	elif [ "$kind" = bw ]; then
		# #bytes #iterations BW-peak BW-average[MiB/s] MsgRate[Mpps]
		set -- $line
		printf '{"driver":"%s","test":"%s","size":%s,"qps":%s,"kind":"bw","round":%s,"ok":true,"bw_mib_s":%s,"mpps":%s,%s}\n' \
			"$drv" "$t" "$size" "$qps" "$round" "$4" "$5" "$(cpu_json "$t0" "$t1")" >>"$out"
		echo "bench: round $round $drv $t $size x$qps: $4 MiB/s" >&2
	else
		# #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9 [usec]
		set -- $line
		printf '{"driver":"%s","test":"%s","size":%s,"kind":"lat","round":%s,"ok":true,"typical_us":%s,"avg_us":%s,"p99_us":%s,%s}\n' \
			"$drv" "$t" "$size" "$round" "$5" "$6" "$8" "$(cpu_json "$t0" "$t1")" >>"$out"
		echo "bench: round $round $drv $t $size: $5 us typical" >&2
	fi
	rm -f "$s" "$c" "$t0" "$t1"
}

for round in $(seq "$rounds"); do
	for p in $points; do
		IFS=: read -r t size kind qps <<<"$p"
		# Alternate which driver goes first, so neither always runs on a warmer host.
		if [ $((round % 2)) = 1 ]; then order="rrxe rxe"; else order="rxe rrxe"; fi
		for drv in $order; do run "$drv" "$t" "$size" "$kind" "$round" "${qps:-1}"; done
	done
done
echo "bench: $(wc -l <"$out") runs written" >&2
