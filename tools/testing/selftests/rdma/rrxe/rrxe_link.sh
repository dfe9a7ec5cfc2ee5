#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rrxe device life cycle: rdma link add/del, bad input, netdev removal, port
# state, rmmod with devices present, namespace deletion (alone and racing an
# unload), a route change under traffic (IPv4 and IPv6), rmmod right after
# the last of that traffic. KASAN/lockdep/kmemleak are checked by the runner
# after the run (scripts/vm), so leaks in the cycles below fail too.
cd "$(dirname "$0")" && . ./lib.sh

setup_veth() { # NS IF PEER_NS PEER_IF
	ip netns add "$1" 2>/dev/null; ip netns add "$3" 2>/dev/null
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" &&
		ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

require_rrxe
require_cmd ibv_devinfo ib_write_bw ps pkill
ktap_print_header
ktap_set_plan 27
setup_veth la lx0 lb lx1 || ktap_exit_fail_msg "cannot create veth"

# 1: add creates exactly one device, bound to the netdev and in the right state.
check "link add creates the device" ip netns exec la rdma link add lrx0 type rrxe netdev lx0
check "device is listed with its netdev" sh -c 'ip netns exec la rdma link show lrx0/1 | grep -q "netdev lx0"'
check "port is ACTIVE when the netdev is up" wait_for 5 sh -c 'ibv_devinfo -d lrx0 | grep -q PORT_ACTIVE'

# 2: port state follows the netdev.
ip -n la link set lx0 down
check "port goes DOWN with the netdev" wait_for 5 sh -c 'ibv_devinfo -d lrx0 | grep -q PORT_DOWN'
ip -n la link set lx0 up
wait_for 5 sh -c 'ibv_devinfo -d lrx0 | grep -q PORT_ACTIVE'

# 3: bad input gets an error and leaves nothing behind.
before=$(rdma_links | wc -l)
expect_fail() { # NAME ERROR-REGEX CMD...
	local name=$1 want=$2; shift 2
	local out
	if out=$("$@" 2>&1); then not_ok "$name (unexpectedly succeeded)"; return; fi
	if [ "$(rdma_links | wc -l)" != "$before" ]; then not_ok "$name (left a device behind)"; return; fi
	if ! grep -qE "$want" <<<"$out"; then not_ok "$name (wrong error: $out)"; return; fi
	ok "$name: $(echo "$out" | head -n1)"
}
expect_fail "nonexistent netdev" "No such device" ip netns exec la rdma link add lrx9 type rrxe netdev nosuch0
expect_fail "a netdev of another namespace" "No such device" ip netns exec la rdma link add lrx9 type rrxe netdev lx1
expect_fail "second device on one netdev" "File exists" ip netns exec la rdma link add lrx9 type rrxe netdev lx0
expect_fail "duplicate name" "File exists" ip netns exec lb rdma link add lrx0 type rrxe netdev lx1
expect_fail "name too long" "policy|Invalid|range" ip netns exec lb rdma link add "$(printf 'r%.0s' $(seq 1 80))" type rrxe netdev lx1

# 4: add/del cycles; leaks show up in the runner's kmemleak scan. One cycle costs
# ~5.5 s under TCG with KASAN and lockdep on a good day and 23-32 s on a slow
# one, for rdma_rxe as much as for rrxe (RDMA core registration), so make test
# runs 2 (a leak shows in one, and the second add follows a delete);
# RRXE_LINK_CYCLES=100 for the full count.
# The netdev is in the initial namespace: `ip netns exec` per cycle costs more.
cycles=${RRXE_LINK_CYCLES:-2}
ip link add cyx0 type veth peer name cyx1 && ip link set cyx0 up
run_cycles() {
	local i
	for i in $(seq 1 "$cycles"); do
		rdma link add cyc0 type rrxe netdev cyx0 || { echo "add $i failed"; return 1; }
		rdma link delete cyc0 || { echo "delete $i failed"; return 1; }
	done
}
check "link add/del x$cycles" run_cycles
check "no device left after the cycles" no_link cyc0
ip link del cyx0

# 5: deleting the netdev removes the device on it.
ip netns exec lb rdma link add lrx1 type rrxe netdev lx1
ip -n lb link del lx1
check "netdev deletion removes the device" wait_for 10 no_link lrx1

# 6: rmmod with devices present removes them all; the module loads again.
setup_veth ma mx0 mb mx1
ip netns exec ma rdma link add mrx0 type rrxe netdev mx0
ip netns exec mb rdma link add mrx1 type rrxe netdev mx1
check "rmmod with devices present" rmmod rrxe
check "no rrxe device left after rmmod" sh -c '! rdma link show | grep -q "rrxe\|mrx\|lrx"'
load_rrxe
ip netns del la; ip netns del lb; ip netns del ma; ip netns del mb

# 7: deleting a namespace removes the devices in it, and other namespaces can be
# created meanwhile; unloading while another
# namespace's deletion is under way (its cleanup unregisters the device from a
# work queue, and rmmod unregisters it too) must not warn.
setup_veth ka kx0 kb kx1
ip netns exec ka rdma link add krx0 type rrxe netdev kx0
ip netns exec kb rdma link add krx1 type rrxe netdev kx1
ip netns del ka
# The new namespace's compat devices query every device's port, including
# krx0's while its netdev is being unregistered; that failed with ENODEV.
check "a namespace can be created while another's device is going" ip netns add kc
check "namespace deletion removes its device" wait_for 20 no_link krx0
ip netns del kc
ip netns del kb
check "rmmod while a namespace with a device is being deleted" rmmod rrxe
check "no device left after that rmmod" no_link krx1
check "the module loads again" load_rrxe

# 8: a route change reaches QPs that are already sending. Each QP keeps its
# route and checks on every packet that no routing change made it obsolete.
# Once the peer is routed through a gateway whose (pinned) MAC nobody has, no
# ACK comes back; a QP that kept the old route went on being answered. (An
# unreachable route, or a gateway that does not resolve, would not do: with the
# output interface given, IPv4 then takes the peer as on-link, and IPv6 falls
# back to the on-link route once the gateway is found unreachable.)
setup_veth ta tx0 tb tx1
ip -n ta addr add 10.9.0.1/24 dev tx0 && ip -n tb addr add 10.9.0.2/24 dev tx1
ip netns exec ta rdma link add trx0 type rrxe netdev tx0
ip netns exec tb rdma link add trx1 type rrxe netdev tx1
traffic() { # [PORT [GID FAMILY]]
	local gid_a gid_b port=${1:-18990} fam=${2:-4}
	gid_a=$(wait_for 10 gid_index trx0 "$fam" && gid_index trx0 "$fam") &&
		gid_b=$(wait_for 10 gid_index trx1 "$fam" && gid_index trx1 "$fam") || return 1
	ip netns exec tb timeout 120 ib_write_bw -d trx1 -x "$gid_b" -p "$port" -F -s 65536 -q 4 -D 60 \
		>/dev/null 2>&1 &
	sleep 1
	ip netns exec ta timeout 120 ib_write_bw -d trx0 -x "$gid_a" -p "$port" -F -s 65536 -q 4 -D 60 \
		10.9.0.2 >/dev/null 2>&1 &
	# Running once packets flow; then a little more.
	wait_for 60 moving && sleep 2
}
moving() { [ "$(stat_of trx0 sent_pkts)" -gt 2000 ]; }
acks_in_3s() { # EXPECT: "some" or "none"
	local before after
	before=$(stat_of trx0 rcvd_pkts) && sleep 3 && after=$(stat_of trx0 rcvd_pkts) || return 1
	if [ "$1" = some ]; then [ "$after" -gt "$before" ]; else [ "$after" = "$before" ]; fi
}
rerouted() { # PEER GATEWAY
	acks_in_3s some || { echo "no ACKs before the route change"; return 1; }
	ip -n ta neigh replace "$2" lladdr 02:00:00:00:00:09 dev tx0 nud permanent &&
		ip -n ta route add "$1" via "$2" dev tx0 && sleep 2 && acks_in_3s none
}
check "traffic over two devices" traffic
check "a route change reaches sending QPs" rerouted 10.9.0.2 10.9.0.9
pkill -9 ib_write_bw
wait
# 9: the same over IPv6, whose kept route is checked by its FIB cookie. The
# devices are added again (fresh counters) and the IPv4 reroute is undone, since
# perftest's own connection uses it.
ip -n ta route del 10.9.0.2/32
ip netns exec ta rdma link del trx0; ip netns exec tb rdma link del trx1
ip -n ta addr add fd00:9::1/64 dev tx0 nodad && ip -n tb addr add fd00:9::2/64 dev tx1 nodad
ip netns exec ta rdma link add trx0 type rrxe netdev tx0
ip netns exec tb rdma link add trx1 type rrxe netdev tx1
check "traffic over IPv6 GIDs" traffic 18992 6
check "an IPv6 route change reaches sending QPs" rerouted fd00:9::2 fd00:9::9

# 10: rmmod right after that traffic, whose QPs are still resending into the
# black hole: their timers and work items can still be queued when the QPs go
# with the killed processes. They run from the module's own work queue, which
# rmmod drains, so none runs the module's code after it is gone (its rescuer
# thread, kworker/R-rrxe, lives exactly as long as the queue).
rescuer() { ps -e -o comm= | grep -qx "kworker/R-rrxe"; }
check "the module has its work queue" rescuer
pkill -9 ib_write_bw
wait
check "rmmod right after the traffic stops" rmmod rrxe
check "the work queue went with the module" sh -c '! ps -e -o comm= | grep -qx "kworker/R-rrxe"'
check "the module loads again after that" load_rrxe
ip netns del ta; ip netns del tb
ktap_finished
