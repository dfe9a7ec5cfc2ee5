#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of an instruction profile: runs perftest points for rrxe
# (rrxe0 <-> rrxe1, the standard topology) and rdma_rxe (rxe2 <-> rxe3, netns
# c/d) and has the tbprof plugin snapshot its counts a few seconds into each run
# and a few seconds before its end, with the device counters and /proc/stat at
# the same moments. Needs scripts/vm run --flavour perf --topo --insn-profile.
#   guest.sh "ib_read_bw:64 ib_send_bw:65536"
# DRIVERS ("rrxe rxe") and SECS (14, the run's length; the window is SECS - 8)
# narrow or lengthen it; OPTS adds perftest options to both sides (e.g. "-c UD").
# report.py reads the run directory afterwards.
set -u
. "$(dirname "$0")/../../testing/selftests/rdma/rrxe/lib.sh" # setup_rxe_pair, gid_index
points=${1:?usage: guest.sh "TEST:SIZE ..."}
drivers=${DRIVERS:-rrxe rxe}
secs=${SECS:-14}
opts=${OPTS:-}
share=/run/rrxe
[ "$secs" -ge 10 ] || { echo "insn-profile: SECS must be at least 10" >&2; exit 2; }
setup_rxe_pair || { echo "insn-profile: the rdma_rxe pair failed" >&2; exit 1; }
echo 0 >/proc/sys/kernel/kptr_restrict
cat /proc/kallsyms >$share/kallsyms.txt

# mark LABEL DEV...: the devices' counters, the CPU times, context switches and
# interrupts (local timer, rescheduling, function call, TLB shootdown IPIs;
# two CPUs) and a snapshot.
mark() {
	local label=$1 d t=0
	shift
	# A label seen before (a point named twice) is measured afresh.
	rm -f "$share/req-$label" "$share/snap-$label.txt"
	{
		for d in "$@"; do rdma statistic show link "$d/1"; done
		grep '^cpu[0-9]' /proc/stat | sed 's/^/stat /'
		awk '$1 == "ctxt" { print "sched", $1, $2 }' /proc/stat
		awk '$1 ~ /^(LOC|RES|CAL|TLB):$/ { n = 0; for (i = 2; i <= 3; i++) n += $i; print "sched", $1, n }' /proc/interrupts
	} >"$share/ctr-$label"
	: >"$share/req-$label"
	while [ ! -e "$share/snap-$label.txt" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
	[ -e "$share/snap-$label.txt" ] || echo "insn-profile: no snapshot for $label (is --insn-profile on?)" >&2
}

port=18900 rc=0
for p in $points; do
	IFS=: read -r t size <<<"$p"
	for drv in $drivers; do
		if [ "$drv" = rrxe ]; then
			sns=a cns=b sdev=rrxe0 cdev=rrxe1 addr=10.0.0.1
		else
			sns=c cns=d sdev=rxe2 cdev=rxe3 addr=10.0.1.1
		fi
		port=$((port + 1))
		label=$drv-$t-$size${opts:+$(echo "$opts" | tr -d ' ')}
		ip netns exec $sns timeout $((secs + 60)) "$t" -d $sdev -x "$(gid_index $sdev 4)" -p $port \
			-F -s "$size" -D "$secs" $opts >/tmp/server 2>&1 &
		spid=$!
		sleep 1
		ip netns exec $cns timeout $((secs + 60)) "$t" -d $cdev -x "$(gid_index $cdev 4)" -p $port \
			-F -s "$size" -D "$secs" $opts $addr >/tmp/client 2>&1 &
		cpid=$!
		sleep 4
		mark "$label-a" $sdev $cdev
		sleep $((secs - 8))
		mark "$label-b" $sdev $cdev
		wait $spid || { rc=1; echo "$label: server failed:"; tail -n 5 /tmp/server; }
		wait $cpid || { rc=1; echo "$label: client failed:"; tail -n 5 /tmp/client; }
		echo "$label: $(awk -v n="$size" '$1 == n && NF >= 5 { print $4 " MiB/s" }' /tmp/client)"
	done
done
exit $rc
