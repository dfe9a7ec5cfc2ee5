#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packets from the wire that are not valid RoCE v2 traffic for rrxe: each is
# dropped and counted under its reason ('rdma statistic'), and a burst of
# random packets leaves the device working (checked with ibv_ud_pingpong) and
# the kernel without a KASAN, lockdep or kmemleak report.
cd "$(dirname "$0")" && . ./lib.sh
PLAN=10
require_rrxe
require_cmd python3 ibv_rc_pingpong ibv_ud_pingpong stdbuf
ktap_print_header
ktap_set_plan $PLAN

NSA="ip netns exec a"
NSB="ip netns exec b"
if ! { ip netns add a && ip netns add b &&
	ip link add veth0 netns a type veth peer name veth1 netns b &&
	ip -n a addr add fd00::1/64 dev veth0 nodad && ip -n b addr add fd00::2/64 dev veth1 nodad &&
	ip -n a addr add 10.0.0.1/24 dev veth0 && ip -n b addr add 10.0.0.2/24 dev veth1 &&
	ip -n a link set veth0 up && ip -n b link set veth1 up && ip -n a link set lo up &&
	$NSA rdma link add rrxe0 type rrxe netdev veth0 && $NSB rdma link add rrxe1 type rrxe netdev veth1; }; then
	for _ in $(seq $PLAN); do not_ok "set-up failed"; done
	ktap_finished
fi

# counts NAME KIND COUNTER [ADDR]: sending KIND packets from netns b to ADDR
# (fd00::1) moves COUNTER.
counts() {
	local before after
	before=$(stat_of rrxe0 "$3")
	$NSB python3 ./wire.py "${4:-fd00::1}" "$2" 5 || { not_ok "$1 # wire.py failed"; return; }
	if wait_for 10 sh -c "[ \"\$(rdma statistic show link rrxe0/1 | tr ' ' '\n' | grep -A1 -x $3 | tail -1)\" -ge $((before + 5)) ]"; then
		ok "$1"
	else
		after=$(stat_of rrxe0 "$3")
		not_ok "$1 # $3 went from $before to $after"
	fi
}

counts "a correct packet to a missing QP counts as rcv_unknown_qp" valid rcv_unknown_qp
counts "a flipped ICRC bit counts as rcv_icrc_err" bad-icrc rcv_icrc_err
counts "a packet shorter than BTH+ICRC counts as rcv_malformed" short rcv_malformed
counts "a reserved opcode counts as rcv_malformed" bad-opcode rcv_malformed
# A datagram must be addressed to a GID of the device (rxe's rxe_chk_dgid):
# fd00:1::1 is netns a's, so the socket takes the packet, but it is on lo and so
# not a GID of rrxe0. Sent to QP1, which always has receives posted.
$NSA ip addr add fd00:1::1/128 dev lo
$NSB ip route add fd00:1::/64 via fd00::1
counts "a MAD to QP1 at an address that is not a GID counts as rcv_addr_mismatch" \
	gsi rcv_addr_mismatch fd00:1::1

# A connected QP takes packets only from its peer's address to its own (rxe's
# check_addr): while an RC pingpong runs between fd00::1 and fd00::2 (IPv6 GIDs;
# its TCP handshake uses IPv4), RC SENDs to
# the server's QP from fd00::3, another address of the peer's host, with a valid
# ICRC, are dropped and counted, and the pingpong's data stays intact.
$NSB ip addr add fd00::3/64 dev veth1 nodad
g0=$(gid_index rrxe0 6) g1=$(gid_index rrxe1 6)
# Enough round trips that the pingpong is still running when the SENDs arrive.
RC_ITERS=${RRXE_WIRE_RC_ITERS:-1500}
# Line-buffered, so the addresses can be read while it runs.
$NSA timeout 120 stdbuf -oL ibv_rc_pingpong -c -d rrxe0 -g "$g0" -s 64 -n "$RC_ITERS" >/tmp/wire-rc.s 2>&1 &
spid=$!
wait_listen 20 "$spid" 18515
$NSB timeout 120 ibv_rc_pingpong -c -d rrxe1 -g "$g1" -s 64 -n "$RC_ITERS" 10.0.0.1 >/tmp/wire-rc.c 2>&1 &
cpid=$!
before=$(stat_of rrxe0 rcv_addr_mismatch)
if wait_for 20 grep -q "remote address" /tmp/wire-rc.s &&
	qpn=$(awk '/local address/ { for (i = 1; i <= NF; i++) if ($i == "QPN") { sub(",", "", $(i + 1)); print $(i + 1) } }' /tmp/wire-rc.s) &&
	[ -n "$qpn" ]; then
	$NSB python3 ./wire.py fd00::1 rc-send 5 "$qpn" fd00::3
	check "RC SENDs from an address that is not the QP's peer count as rcv_addr_mismatch" \
		wait_for 10 sh -c "[ \$(rdma statistic show link rrxe0/1 | tr ' ' '\n' | grep -A1 -x rcv_addr_mismatch | tail -1) -ge $((before + 5)) ]"
else
	not_ok "RC SENDs from an address that is not the QP's peer count as rcv_addr_mismatch # pingpong did not start"
fi
wait "$cpid"; crc=$?
wait "$spid"; src=$?
if [ "$crc" = 0 ] && [ "$src" = 0 ]; then
	ok "the RC pingpong beside them completes with its data checked"
else
	not_ok "the RC pingpong beside them completes with its data checked # client $crc, server $src"
	sed 's/^/# /' /tmp/wire-rc.s /tmp/wire-rc.c | tail -n 10
fi
diag "$(grep iters /tmp/wire-rc.c)"

arrived_at_least() { [ "$(arrived rrxe0)" -ge "$1" ]; }
before=$(arrived rrxe0) icrc_before=$(stat_of rrxe0 rcv_icrc_err)
$NSB python3 ./wire.py fd00::1 fuzz 3000
check "3000 random packets are all received and dropped" \
	wait_for 30 arrived_at_least $((before + 3000))
diag "of them, $(($(stat_of rrxe0 rcv_icrc_err) - icrc_before)) with a bad ICRC"

# The device still works after the burst.
$NSA timeout 60 ibv_ud_pingpong -c -d rrxe0 -g 1 -s 64 -n 10 >/dev/null 2>&1 &
spid=$!
wait_listen 20 "$spid" 18515
check "UD traffic still flows after the burst" $NSB timeout 60 ibv_ud_pingpong -c -d rrxe1 -g 1 -s 64 -n 10 10.0.0.1
wait "$spid"

ip netns del a
ip netns del b
check "the devices go with their namespaces" wait_for 30 sh -c "! rdma link show | grep -q rrxe"
ktap_finished
