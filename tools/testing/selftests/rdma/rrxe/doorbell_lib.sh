# SPDX-License-Identifier: GPL-2.0
# The doorbell tests' measures (rrxe_doorbell.sh, rrxe_doorbell_poll.sh): a
# perftest client's write() system calls per posted work request, from its
# syscw (/proc/PID/io, syscalls.py), and the check that rrxe0 and rrxe1 are
# idle. Sourced after lib.sh; the caller sets ITERS (and for rate, BASE), the
# iterations of the measured (and of the baseline) run.

# count TOOL SIZE ITERS CDEV SDEV CNS SNS SRV_IP [SYSCALLS_OPTION...]: runs a
# server and a client and prints the client's syscw, or with options for
# syscalls.py, every line it printed; fails, printing why, if either side fails.
count() {
	local tool=$1 size=$2 n=$3 cdev=$4 sdev=$5 cns=$6 sns=$7 ip=$8 sg cg out spid crc src
	local opts=("${@:9}")
	sg=$(gid_index "$sdev" 4) && cg=$(gid_index "$cdev" 4) || { echo "no IPv4 GID"; return 1; }
	out=$(mktemp)
	local args=(-d "$sdev" -x "$sg" -s "$size" -n "$n")
	[ "$tool" = ibv_rc_pingpong ] && args=(-d "$sdev" -g "$sg" -s "$size" -n "$n" -e)
	ip netns exec "$sns" timeout 120 "$tool" "${args[@]}" >"$out.s" 2>&1 &
	spid=$!
	if ! wait_listen 20 "$spid" 18515; then
		kill "$spid" 2>/dev/null; wait "$spid"
		echo "server did not start: $(tail -n 3 "$out.s" | tr '\n' ' ')"
		rm -f "$out" "$out.s"; return 1
	fi
	args=(-d "$cdev" -x "$cg" -s "$size" -n "$n" "$ip")
	[ "$tool" = ibv_rc_pingpong ] && args=(-d "$cdev" -g "$cg" -s "$size" -n "$n" -e "$ip")
	# syscalls.py stays in the initial namespace, where sysfs shows the
	# device's counters; `ip netns exec` execs the client in its PID.
	timeout 120 python3 ./syscalls.py "${opts[@]}" ip netns exec "$cns" "$tool" "${args[@]}" >"$out.c" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "client exit $crc, server exit $src: $(grep -v '^-*$' "$out.c" | head -n 4 | tr '\n' ' ')"
		rm -f "$out" "$out.s" "$out.c"; return 1
	fi
	if [ ${#opts[@]} = 0 ]; then
		awk '$1 == "syscw" { print $2 }' "$out.c"
	else
		grep -E '^(window_syscw|window_pkts|pkts|syscw) ' "$out.c"
	fi
	rm -f "$out" "$out.s" "$out.c"
}

# stream_rate TOOL SIZE CDEV SDEV CNS SNS SRV_IP: write() calls per WR of one
# stream of ITERS iterations, in its steady state: while CDEV sent its
# (ITERS/4)-th to its (15 ITERS/16)-th packet (syscalls.py --window). A WR is
# one packet from CDEV, the client (a WRITE, SEND or READ request at the path
# MTU or less; it receives nothing to acknowledge), and the few more it sends
# (ACK requests, tail probes: up to 7 % under TCG) are scaled out with the
# run's packets per WR; fails, printing why, if that is not between 1 and 1.25.
stream_rate() {
	local out ws wp pk
	out=$(count "$1" "$2" "$ITERS" "${@:3}" --window "$3" $((ITERS / 4)) $((ITERS * 15 / 16))) ||
		{ echo "$out"; return 1; }
	ws=$(awk '$1 == "window_syscw" { print $2 }' <<<"$out")
	wp=$(awk '$1 == "window_pkts" { print $2 }' <<<"$out")
	pk=$(awk '$1 == "pkts" { print $2 }' <<<"$out")
	[[ $ws =~ ^[0-9.]+$ ]] && [[ $wp =~ ^[0-9]+$ ]] && [ "$wp" -gt 0 ] ||
		{ echo "no window: $(tr '\n' ' ' <<<"$out")"; return 1; }
	[ "$pk" -ge "$ITERS" ] && [ "$pk" -le $((ITERS * 125 / 100)) ] ||
		{ echo "$3 sent $pk packets for $ITERS WRs"; return 1; }
	awk -v s="$ws" -v p="$wp" -v k="$pk" -v n="$ITERS" 'BEGIN { printf "%.4f\n", s * k / (p * n) }'
}

# rate TOOL SIZE CDEV SDEV CNS SNS SRV_IP: write() calls per iteration, a run of
# ITERS less one of BASE: for the ping-pongs, whose client also sends ACKs.
rate() {
	local hi lo
	hi=$(count "$1" "$2" "$ITERS" "${@:3}") || { echo "$hi"; return 1; }
	lo=$(count "$1" "$2" "$BASE" "${@:3}") || { echo "$lo"; return 1; }
	awk -v hi="$hi" -v lo="$lo" -v n=$((ITERS - BASE)) 'BEGIN { printf "%.4f\n", (hi - lo) / n }'
}

# at_most NAME RATE MAX: the case passes when RATE (a number) is at most MAX.
at_most() {
	if [[ $2 =~ ^-?[0-9.]+$ ]] && awk -v r="$2" -v m="$3" 'BEGIN { exit !(r <= m) }'; then
		ok "$1 # $2 write() per WR"
	else
		not_ok "$1 # $2, more than $3 write() per WR"
	fi
}

# idle: every promise of rrxe0 and rrxe1 withdrawn, no QP in a poll set, no
# user QP left.
idle() {
	local d a
	for d in rrxe0 rrxe1; do
		[ "$(stat_of "$d" db_poll_qps)" = 0 ] || { echo "$d: db_poll_qps $(stat_of "$d" db_poll_qps)"; return 1; }
		a=$(stat_of "$d" db_arms)
		[ "$a" = "$(stat_of "$d" db_disarms)" ] || { echo "$d: db_arms $a, db_disarms $(stat_of "$d" db_disarms)"; return 1; }
		! rdma resource show qp link "$d/1" | grep -q "type RC" || { echo "$d: QPs left"; return 1; }
	done
}
