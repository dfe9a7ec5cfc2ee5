#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# UD traffic and the port-4791 sockets, in the standard topology (netns a: veth0
# and rrxe0; netns b: veth1 and the peer), with rdma-core's ibv_ud_pingpong -c
# (every received buffer is checked):
#  - rrxe0 <-> rrxe1, then rrxe0 <-> rdma_rxe's rxe1 (wire interop), each way,
#    over IPv4 and IPv6 RoCE v2 GIDs, at 2 bytes and at the port MTU;
#  - two processes on rrxe0 (loopback);
#  - the sockets: *:4791 exists while a device does; rdma_rxe cannot take 4791 in
#    a namespace where rrxe has it; deleting a namespace under a device is clean;
#  - the counters: packets are counted and no ICRC error was seen.
cd "$(dirname "$0")" && . ./lib.sh
tap_plan 21

ITERS=${RRXE_UD_ITERS:-50}
NSA="ip netns exec a"
NSB="ip netns exec b"

setup() {
	ip netns add a && ip netns add b &&
		ip link add veth0 netns a type veth peer name veth1 netns b &&
		ip -n a addr add 10.0.0.1/24 dev veth0 && ip -n a addr add fd00::1/64 dev veth0 nodad &&
		ip -n b addr add 10.0.0.2/24 dev veth1 && ip -n b addr add fd00::2/64 dev veth1 nodad &&
		ip -n a link set veth0 up && ip -n b link set veth1 up &&
		ip -n a link set lo up && ip -n b link set lo up
}

# gid_index DEV FAMILY: the RoCE v2 GID of family 4 or 6 (not link-local).
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 i g
	for i in $(seq 0 15); do
		g=$(cat "$d/gids/$i" 2>/dev/null) || continue
		[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		case $2:$g in
		4:0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		6:fd00:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# pingpong NAME SRV_NS SRV_DEV CLI_NS CLI_DEV FAMILY SIZE: one server/client run.
pingpong() {
	local name=$1 sns=$2 sdev=$3 cns=$4 cdev=$5 fam=$6 size=$7 sg cg srv_ip out spid rc
	sg=$(gid_index "$sdev" "$fam") && cg=$(gid_index "$cdev" "$fam") || {
		not_ok "$name # no IPv$fam GID"; return; }
	[ "$sns" = a ] && srv_ip=10.0.0.1 || srv_ip=10.0.0.2
	out=$(mktemp)
	ip netns exec "$sns" timeout 60 ibv_ud_pingpong -c -d "$sdev" -g "$sg" -s "$size" -n "$ITERS" >"$out.s" 2>&1 &
	spid=$!
	if ! wait_for 20 sh -c "ip netns exec $sns ss -ltn | grep -q ':18515 '"; then
		kill "$spid" 2>/dev/null; wait "$spid"
		not_ok "$name # server did not start"; sed 's/^/# /' "$out.s"; return
	fi
	ip netns exec "$cns" timeout 60 ibv_ud_pingpong -c -d "$cdev" -g "$cg" -s "$size" -n "$ITERS" "$srv_ip" >"$out.c" 2>&1
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

stat_of() { rdma statistic show link "$1/1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# Every pairing with one peer device in netns b.
pairings() {
	local peer=$1 mtu
	mtu=$(ibv_devinfo -d rrxe0 | awk '/active_mtu/ { print $2; exit }')
	for fam in 4 6; do
		for size in 2 "$mtu"; do
			[ "$fam" = 6 ] && [ "$size" = 2 ] && continue
			pingpong "rrxe0 serves $peer, IPv$fam, $size bytes" a rrxe0 b "$peer" "$fam" "$size"
			pingpong "$peer serves rrxe0, IPv$fam, $size bytes" b "$peer" a rrxe0 "$fam" "$size"
		done
	done
}

if ! setup; then
	for _ in $(seq 21); do not_ok "topology set-up failed"; done
	exit 1
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

$NSB rdma link add rxe1 type rxe netdev veth1 || diag "rdma link add rxe1 failed"
pairings rxe1
pingpong "loopback on rrxe0, IPv4" a rrxe0 a rrxe0 4 64
pingpong "loopback on rrxe0, IPv6" a rrxe0 a rrxe0 6 64

rcvd=$(stat_of rrxe0 rcvd_pkts)
check "rrxe0 counted received packets ($rcvd)" test "${rcvd:-0}" -gt "$ITERS"
check "rrxe0 saw no ICRC errors (rxe1's ICRCs are valid)" test "$(stat_of rrxe0 rcv_icrc_err)" = 0
$NSB rdma link del rxe1

# A namespace deleted under its device: the device goes with the netdev, and the
# sockets with the namespace, in whichever order (checked by KASAN and kmemleak).
ip netns del a
check "rrxe0 goes with netns a" wait_for 30 no_link rrxe0
ip netns del b
tap_done
