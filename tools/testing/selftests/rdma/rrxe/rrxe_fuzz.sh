#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The live wire fuzzer (fuzz.py): corpus packets, mutated and mostly with a
# valid ICRC, sent from netns b on an AF_PACKET socket at rrxe0's QPs in every
# state (fuzz.py targets), first alone, where every packet that the IP stack
# hands to rrxe must show in one of rrxe's receive counters, then while an RC
# pingpong and READs run on other QPs. Afterwards the targets still answer, a
# fresh transfer checks its data, and the kernel has no splat (scripts/vm).
# RRXE_FUZZ_PACKETS (default 20000): three quarters go to the first phase;
# RRXE_FUZZ_SEED picks the packets (4791 unless set; make soak draws one):
# the same seed sends the same packets, so a failing seed reproduces.
cd "$(dirname "$0")" && . ./lib.sh
PLAN=9
require_rrxe
require_cmd python3 ibv_rc_pingpong ibv_ud_pingpong ib_read_bw
# The corpus is the tree's (tools/testing/rrxe-corpus), not installed with the
# kselftests.
CORPUS=$(cd ../../../rrxe-corpus 2>/dev/null && pwd)
[ -n "$CORPUS" ] || skip_all "no tools/testing/rrxe-corpus beside the selftests"
ktap_print_header
ktap_set_plan $PLAN

N=${RRXE_FUZZ_PACKETS:-20000}
SEED=${RRXE_FUZZ_SEED:-4791}
NSA="ip netns exec a"
NSB="ip netns exec b"
tmp=$(mktemp -d)
tpid=""
cleanup() {
	[ -z "$tpid" ] || kill "$tpid" 2>/dev/null
	exec 7>&- 2>/dev/null
	ip netns del a 2>/dev/null
	ip netns del b 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# MTU 9000: the corpus has MTU 4096 packets, which the fuzzer also extends.
if ! setup_topology || ! ip -n a link set veth0 mtu 9000 || ! ip -n b link set veth1 mtu 9000 ||
	! $NSA rdma link add rrxe0 type rrxe netdev veth0 ||
	! $NSB rdma link add rrxe1 type rrxe netdev veth1 || ! pin_neighbours a veth0 b veth1 10.0.0 ||
	! wait_for 20 test -e /sys/class/infiniband/rrxe0; then
	for _ in $(seq $PLAN); do not_ok "set-up failed"; done
	ktap_finished
fi
# Both families' GIDs appear once the addresses are up.
wait_for 20 gid_index rrxe0 6
wait_for 20 gid_index rrxe0 4
g4=$(gid_index rrxe0 4) g6=$(gid_index rrxe0 6)
mac0=$(ip netns exec a cat /sys/class/net/veth0/address)
diag "seed $SEED, $N packets (RRXE_FUZZ_SEED=$SEED reproduces them)"

# The targets, fed a pipe: they stop when it closes.
mkfifo "$tmp/in"
$NSA timeout 1800 python3 ./fuzz.py targets rrxe0 "$g4" "$g6" 10.0.0.2 fd00::2 1700 <"$tmp/in" >"$tmp/targets" 2>"$tmp/targets.err" &
tpid=$!
exec 7>"$tmp/in"
if wait_for 120 grep -q qpns "$tmp/targets"; then
	head -n 1 "$tmp/targets" >"$tmp/targets.json"
	nq=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["qpns"]))' "$tmp/targets.json")
	ok "targets on rrxe0: $nq QPs (RC in RESET, INIT, RTR, RTS, SQD and ERR, on an SRQ, UC, UD), an MR and a bound window"
else
	not_ok "targets on rrxe0 # $(tail -n 3 "$tmp/targets.err" | tr '\n' ' ')"
	for _ in $(seq $((PLAN - 1))); do not_ok "no targets"; done
	ktap_finished
fi

# Frames the kernel's receive backlogs dropped (all CPUs, all namespaces).
softnet_drops() { awk '{ s += strtonum("0x" $2) } END { print s + 0 }' /proc/net/softnet_stat; }
# inject SEED COUNT: fuzz.py inject from netns b; its JSON result in $tmp/inj.
inject() {
	$NSB timeout 3000 python3 ./fuzz.py inject veth1 "$mac0" 10.0.0.2 10.0.0.1 fd00::2 fd00::1 \
		"$1" "$2" "$tmp/targets.json" "$CORPUS" >"$tmp/inj" 2>"$tmp/inj.err"
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$tmp/inj" "$1"; }

# Phase 1: the fuzzer alone, so that rrxe0 receives nothing else.
n1=$((N * 3 / 4)) n2=$((N - N * 3 / 4))
a0=$(arrived rrxe0) d0=$(softnet_drops) s0=$(nonzero_stats rrxe0)
if inject "$SEED" "$n1"; then
	ok "$n1 mutated corpus packets sent at the targets ($(cat "$tmp/inj"))"
	wf=$(field wellformed)
	# rrxe counts each packet before anything else can drop it.
	reached() { [ $(($(arrived rrxe0) - a0 + $(softnet_drops) - d0)) -ge "$wf" ]; }
	if wait_for 60 reached; then
		ok "every one the IP stack passed on is in rrxe0's receive counters ($wf well-formed, $(($(arrived rrxe0) - a0)) counted, $(($(softnet_drops) - d0)) dropped in the backlog)"
	else
		not_ok "every one the IP stack passed on is in rrxe0's receive counters # $wf well-formed, $(($(arrived rrxe0) - a0)) counted, $(($(softnet_drops) - d0)) dropped in the backlog"
	fi
	diag "rrxe0: $(stats_delta "$s0" "$(nonzero_stats rrxe0)")"
else
	not_ok "$n1 mutated corpus packets sent at the targets # $(tail -n 3 "$tmp/inj.err" | tr '\n' ' ')"
	not_ok "every one the IP stack passed on is in rrxe0's receive counters # no injection"
fi

# Phase 2: beside live traffic on other QPs of rrxe0, which the packets may
# break (they come from the peer's address): it must end, not hang.
$NSA timeout 900 ibv_rc_pingpong -d rrxe0 -g "$g4" -s 1024 -n 1000000 >"$tmp/pp.s" 2>&1 &
pps=$!
wait_listen 30 "$pps" 18515
$NSB timeout 900 ibv_rc_pingpong -d rrxe1 -g "$(gid_index rrxe1 4)" -s 1024 -n 1000000 10.0.0.1 >"$tmp/pp.c" 2>&1 &
ppc=$!
# (The pingpong's server may still listen on 18515.)
$NSA timeout 900 ib_read_bw -d rrxe0 -x "$g6" -p 18600 -s 65536 -D 800 >"$tmp/rd.s" 2>&1 &
rds=$!
wait_listen 60 "$rds" 18600
$NSB timeout 900 ib_read_bw -d rrxe1 -x "$(gid_index rrxe1 6)" -p 18600 -s 65536 -D 800 10.0.0.1 >"$tmp/rd.c" 2>&1 &
rdc=$!
# Aim at the live QPs too: every QP rrxe0 has now.
python3 - "$tmp/targets.json" <<PY
import json, subprocess, sys
t = json.load(open(sys.argv[1]))
out = subprocess.run(["rdma", "-j", "resource", "show", "qp", "link", "rrxe0/1"], capture_output=True, text=True).stdout
for q in json.loads(out or "[]"):
    if q.get("lqpn", 0) > 1 and q["lqpn"] not in t["qpns"].values():
        t["qpns"]["live_%d" % q["lqpn"]] = q["lqpn"]
json.dump(t, open(sys.argv[1], "w"))
PY
diag "aimed at $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["qpns"]))' "$tmp/targets.json") QPs with the live ones"
if inject "$((SEED + 1))" "$n2"; then
	ok "$n2 more beside an RC pingpong and 64 KiB READs ($(cat "$tmp/inj"))"
else
	not_ok "$n2 more beside an RC pingpong and 64 KiB READs # $(tail -n 3 "$tmp/inj.err" | tr '\n' ' ')"
fi
# The traffic is stopped; every process ends.
alive() { if kill -0 "$1" 2>/dev/null; then echo running; else echo ended; fi; }
diag "when stopped: RC pingpong server $(alive $pps), client $(alive $ppc); ib_read_bw server $(alive $rds), client $(alive $rdc)"
kill "$pps" "$ppc" "$rds" "$rdc" 2>/dev/null
ended() { ! kill -0 "$pps" && ! kill -0 "$ppc" && ! kill -0 "$rds" && ! kill -0 "$rdc"; } 2>/dev/null
check "the traffic's processes end when stopped" wait_for 60 ended
wait "$pps" "$ppc" "$rds" "$rdc" 2>/dev/null

# The targets still answer and end cleanly.
exec 7>&-
if wait "$tpid"; then
	ok "the targets' QPs all still answer a query ($(tail -n 1 "$tmp/targets"))"
else
	not_ok "the targets' QPs all still answer a query # $(tail -n 1 "$tmp/targets") $(tail -n 2 "$tmp/targets.err" | tr '\n' ' ')"
fi
tpid=""

# fresh NAME TOOL FAMILY SIZE: a fresh TOOL ping-pong (ibv_rc_pingpong or
# ibv_ud_pingpong) rrxe1 -> rrxe0 over FAMILY's GIDs checks every buffer.
fresh() {
	local spid
	$NSA timeout 120 "$2" -c -d rrxe0 -g "$(gid_index rrxe0 "$3")" -s "$4" -n 50 >/dev/null 2>&1 &
	spid=$!
	wait_listen 30 "$spid" 18515
	check "$1" $NSB timeout 120 "$2" -c -d rrxe1 -g "$(gid_index rrxe1 "$3")" -s "$4" -n 50 10.0.0.1
	wait "$spid"
}
fresh "a fresh RC pingpong over IPv6 checks every buffer" ibv_rc_pingpong 6 4096
fresh "a fresh UD pingpong over IPv4 checks every buffer" ibv_ud_pingpong 4 1024
diag "rrxe0 counters: $(nonzero_stats rrxe0)"

ip netns del a
ip netns del b
check "the devices go with their namespaces" wait_for 60 sh -c "! rdma link show | grep -q 'rrxe[01]/'"
ktap_finished
