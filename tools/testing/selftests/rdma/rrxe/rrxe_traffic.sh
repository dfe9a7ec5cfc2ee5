#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Traffic and the port-4791 sockets, in the standard topology (netns a: veth0 and
# rrxe0; netns b: veth1 and the peer), with rdma-core's ibv_{ud,rc,uc,srq}_pingpong
# -c (every received buffer is checked):
#  - rrxe0 <-> rrxe1, then rrxe0 <-> rdma_rxe's rxe1 (wire interop), one run a
#    case (a pingpong sends both ways; with rdma_rxe the server alternates):
#    UD over IPv4 and IPv6 at 2 bytes and the port MTU; RC at 2 bytes and 64 KiB
#    (IPv4) and 64 KiB (IPv6); UC and RC with an SRQ at 4 KiB;
#  - the rdma_cm path: udaddy (UD), ucmatose (RC) and rping -v (SEND, WRITE and
#    READ, data verified), each way, which also exercises kernel QPs (the CM's
#    MADs on QP1); mckey (UD multicast: the receiver's QP attaches to the group
#    and every message must arrive), each way with rrxe1, and rdma_rxe receiving
#    from rrxe0 (mckey's sender does not wait for its sends to complete, and
#    rdma_rxe sends from a work item: most of its messages are flushed when mckey
#    destroys the QP, so rdma_rxe cannot be the sender);
#  - two processes on rrxe0 (loopback), UD and RC;
#  - the sockets: *:4791 exists while a device does; rdma_rxe cannot take 4791 in
#    a namespace where rrxe has it; deleting a namespace under a device is clean;
#  - the counters: packets are counted and no ICRC error was seen.
# The runs with rdma_rxe post through rdma-core's stock provider (lib.sh's
# rxe_pairings_begin), which a case checks. RRXE_PEERS=rrxe leaves them out.
cd "$(dirname "$0")" && . ./lib.sh
ITERS=${RRXE_PINGPONG_ITERS:-20}
# 7 socket/counter checks, 16 runs with rrxe1 and 15 with rdma_rxe and its
# provider check, 3 loopback runs. perftest is rrxe_perftest.sh's.
PLAN=42
PEERS=${RRXE_PEERS:-rrxe rxe}
[[ " $PEERS " == *" rxe "* ]] || PLAN=26
require_rrxe
require_cmd ibv_devinfo ibv_ud_pingpong ibv_rc_pingpong ibv_uc_pingpong ibv_srq_pingpong \
	udaddy ucmatose rping mckey ss stdbuf
require_module rdma_rxe
ktap_print_header
ktap_set_plan $PLAN
NSA="ip netns exec a"
NSB="ip netns exec b"

# pingpong TOOL NAME SRV_NS SRV_DEV CLI_NS CLI_DEV FAMILY SIZE: one server/client
# run of ibv_TOOL_pingpong.
pingpong() {
	local tool=ibv_$1_pingpong name="$1: $2" sns=$3 sdev=$4 cns=$5 cdev=$6 fam=$7 size=$8
	local sg cg srv_ip out spid rc
	sg=$(gid_index "$sdev" "$fam") && cg=$(gid_index "$cdev" "$fam") || {
		not_ok "$name # no IPv$fam GID"; return; }
	[ "$sns" = a ] && srv_ip=10.0.0.1 || srv_ip=10.0.0.2
	out=$(mktemp)
	ip netns exec "$sns" timeout 60 $tool -c -d "$sdev" -g "$sg" -s "$size" -n "$ITERS" >"$out.s" 2>&1 &
	spid=$!
	if ! wait_listen 20 "$spid" 18515; then
		kill "$spid" 2>/dev/null; wait "$spid"
		not_ok "$name # server did not start"; sed 's/^/# /' "$out.s"; return
	fi
	ip netns exec "$cns" timeout 60 $tool -c -d "$cdev" -g "$cg" -s "$size" -n "$ITERS" "$srv_ip" >"$out.c" 2>&1
	rc=$?
	wait "$spid" || rc=1
	if [ "$rc" = 0 ] && grep -q "$ITERS iters" "$out.s" && grep -q "$ITERS iters" "$out.c"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/# server: /' "$out.s" | tail -n 5
		sed 's/^/# client: /' "$out.c" | tail -n 5
	fi
	rm -f "$out" "$out.s" "$out.c"
}

# both TOOL PEER FAMILY SIZE: rrxe0 and PEER in one pingpong, which sends both
# ways. Between two rrxe devices both ends run the same code, so rrxe0 serves;
# with rdma_rxe the server alternates from case to case, so each driver serves
# in half of them. (A mirrored run of every case cost 12-27 s a run under a
# slow TCG.)
both_n=0
both() {
	if [ "${2#rrxe}" = "$2" ] && [ $((both_n++ % 2)) = 1 ]; then
		pingpong "$1" "$2 serves rrxe0, IPv$3, $4 bytes" b "$2" a rrxe0 "$3" "$4"
	else
		pingpong "$1" "rrxe0 serves $2, IPv$3, $4 bytes" a rrxe0 b "$2" "$3" "$4"
	fi
}

# cm TOOL NAME SRV_NS CLI_NS: an rdma_cm test program (udaddy, ucmatose), server
# and client, addressed by IP.
cm() {
	local tool=$1 name="$1: $2" sns=$3 cns=$4 srv_ip out spid rc
	[ "$sns" = a ] && srv_ip=10.0.0.1 || srv_ip=10.0.0.2
	out=$(mktemp)
	ip netns exec "$sns" timeout 60 "$tool" >"$out.s" 2>&1 &
	spid=$!
	if ! wait_for 20 sh -c "rdma resource show cm_id | grep -q LISTEN"; then
		kill "$spid" 2>/dev/null; wait "$spid"
		not_ok "$name # server did not listen"; sed 's/^/# /' "$out.s"; return
	fi
	ip netns exec "$cns" timeout 60 "$tool" -s "$srv_ip" >"$out.c" 2>&1
	rc=$?
	wait "$spid" || rc=1
	if [ "$rc" = 0 ] && grep -q "test complete" "$out.s" && grep -q "test complete" "$out.c"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/# server: /' "$out.s" | tail -n 5
		sed 's/^/# client: /' "$out.c" | tail -n 5
	fi
	rm -f "$out" "$out.s" "$out.c"
}

# rping NAME SRV_NS CLI_NS: rping -v with 5 verified round trips.
rping_run() {
	local name="rping: $1" sns=$2 cns=$3 srv_ip out spid rc
	[ "$sns" = a ] && srv_ip=10.0.0.1 || srv_ip=10.0.0.2
	out=$(mktemp)
	ip netns exec "$sns" timeout 60 rping -s -a "$srv_ip" -v -C 5 >"$out.s" 2>&1 &
	spid=$!
	if ! wait_for 20 sh -c "rdma resource show cm_id | grep -q LISTEN"; then
		kill "$spid" 2>/dev/null; wait "$spid"
		not_ok "$name # server did not listen"; return
	fi
	ip netns exec "$cns" timeout 60 rping -c -a "$srv_ip" -v -C 5 >"$out.c" 2>&1
	rc=$?
	wait "$spid" || rc=1
	if [ "$rc" = 0 ] && grep -q "rdma-ping-4" "$out.s" && grep -q "rdma-ping-4" "$out.c"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/# server: /' "$out.s" | tail -n 5
		sed 's/^/# client: /' "$out.c" | tail -n 5
	fi
	rm -f "$out" "$out.s" "$out.c"
}

# mckey_run NAME RCV_NS SND_NS: a multicast group joined on both sides; the
# receiver waits for all 10 messages the sender sends to the group.
mckey_run() {
	local name="mckey: $1" rns=$2 sns=$3 rip sip out rpid rc group=239.1.2.3
	[ "$rns" = a ] && rip=10.0.0.1 sip=10.0.0.2 || rip=10.0.0.2 sip=10.0.0.1
	out=$(mktemp)
	# Line-buffered, so the receiver's progress shows before it exits.
	ip netns exec "$rns" timeout 60 stdbuf -oL mckey -m $group -b "$rip" -C 10 >"$out.r" 2>&1 &
	rpid=$!
	if ! wait_for 20 grep -q "receiving data transfers" "$out.r"; then
		kill "$rpid" 2>/dev/null; wait "$rpid"
		not_ok "$name # receiver did not join"; sed 's/^/# /' "$out.r" | tail -n 5; return
	fi
	ip netns exec "$sns" timeout 60 mckey -m $group -b "$sip" -C 10 -s >"$out.s" 2>&1
	rc=$?
	wait "$rpid" || rc=1
	if [ "$rc" = 0 ] && grep -q "data transfers complete" "$out.r" &&
		grep -q "data transfers complete" "$out.s"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/# receiver: /' "$out.r" | tail -n 5
		sed 's/^/# sender: /' "$out.s" | tail -n 5
	fi
	rm -f "$out" "$out.r" "$out.s"
}

# Every pairing with one peer device in netns b: 16 runs with rrxe1, 15 with
# rdma_rxe.
pairings() {
	local peer=$1 mtu
	mtu=$(ibv_devinfo -d rrxe0 | awk '/active_mtu/ { print $2; exit }')
	both ud "$peer" 4 2
	both ud "$peer" 4 "$mtu"
	both ud "$peer" 6 "$mtu"
	both rc "$peer" 4 2
	both rc "$peer" 4 65536
	both rc "$peer" 6 65536
	both uc "$peer" 4 4096
	both srq "$peer" 4 4096
	cm udaddy "rrxe0 serves $peer" a b
	cm udaddy "$peer serves rrxe0" b a
	cm ucmatose "rrxe0 serves $peer" a b
	cm ucmatose "$peer serves rrxe0" b a
	rping_run "rrxe0 serves $peer" a b
	rping_run "$peer serves rrxe0" b a
	[ "$peer" = rxe1 ] || mckey_run "rrxe0 receives from $peer" a b
	mckey_run "$peer receives from rrxe0" b a
}

if ! setup_topology; then
	for _ in $(seq $PLAN); do not_ok "topology set-up failed"; done
	ktap_finished
fi
modprobe rdma_rxe 2>/dev/null

check "rrxe0 is created on veth0" $NSA rdma link add rrxe0 type rrxe netdev veth0
check "netns a has the IPv4 and IPv6 4791 sockets" sh -c \
	"$NSA ss -uan | grep -q '0.0.0.0:4791' && $NSA ss -uan | grep -q '\*:4791'"
if $NSA rdma link add rxe_clash type rxe netdev veth0 2>/dev/null; then
	not_ok "rdma_rxe cannot bind 4791 next to rrxe"; $NSA rdma link del rxe_clash
else
	ok "rdma_rxe cannot bind 4791 next to rrxe"
fi

$NSB rdma link add rrxe1 type rrxe netdev veth1 || diag "rdma link add rrxe1 failed"
pairings rrxe1
$NSB rdma link del rrxe1
check "netns b's sockets go with its last device" sh -c "! $NSB ss -uan | grep -q ':4791'"

if [ "$PLAN" = 42 ]; then
	$NSB rdma link add rxe1 type rxe netdev veth1 || diag "rdma link add rxe1 failed"
	rxe_pairings_begin
	file=$(provider_file rrxe0)
	want=doorbell
	[ "$RRXE_PROVIDER" != stock ] || want=stock
	got=doorbell
	[ "${file#"$RRXE_STOCK_PROVIDER"}" = "$file" ] || got=stock
	name="the runs with rdma_rxe post through the $want provider"
	if ! have_stock_provider; then
		skip "$name (no stock copy here: one provider serves all)"
	else
		check "$name # $file" test "$got" = "$want"
	fi
	pairings rxe1
	rxe_pairings_end
fi
pingpong ud "loopback on rrxe0, IPv4" a rrxe0 a rrxe0 4 64
pingpong ud "loopback on rrxe0, IPv6" a rrxe0 a rrxe0 6 64
pingpong rc "loopback on rrxe0, IPv4" a rrxe0 a rrxe0 4 65536

rcvd=$(stat_of rrxe0 rcvd_pkts)
check "rrxe0 counted received packets ($rcvd)" test "${rcvd:-0}" -gt "$ITERS"
check "rrxe0 saw no ICRC errors (rxe1's ICRCs are valid)" test "$(stat_of rrxe0 rcv_icrc_err)" = 0
$NSB rdma link del rxe1 2>/dev/null

# A namespace deleted under its device: the device goes with the netdev, and the
# sockets with the namespace, in whichever order (checked by KASAN and kmemleak).
ip netns del a
check "rrxe0 goes with netns a" wait_for 30 no_link rrxe0
ip netns del b
ktap_finished
