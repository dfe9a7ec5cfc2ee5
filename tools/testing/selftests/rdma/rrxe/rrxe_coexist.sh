#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rrxe beside an unpatched rdma_rxe, both loaded, with devices of both drivers
# up: rrxe0/rrxe1 on veth0/veth1 (netns a, b) and rdma_rxe's rxe2/rxe3 on
# veth2/veth3 (netns c, d). Both report RDMA_DRIVER_RXE, and rdma_rxe's netdev
# notifier casts any device the core's lookup by netdev and driver id gives it to
# its own struct rxe_dev; rrxe's devices must not be in that lookup
# (kernel::rdma::sw, Documentation/admin-guide.rst, "Coexistence with
# rdma_rxe"). Every netdev event rdma_rxe handles is driven on both drivers'
# netdevs, and after each both pairs carry traffic (ibv_rc_pingpong -c):
#  - a device of the other driver on a netdev in a namespace whose 4791 is
#    taken is refused, both ways;
#  - link down and up (NETDEV_DOWN, NETDEV_CHANGE, NETDEV_UP), MTU changes
#    (NETDEV_CHANGEMTU): rrxe0 follows the MTU;
#  - netdev removal (NETDEV_UNREGISTER) of each driver's veth pair removes that
#    driver's devices only; so does deleting a namespace;
#  - rmmod rrxe leaves rdma_rxe's devices working; rmmod rdma_rxe (once its own
#    devices are gone: their sockets hold it) removes rrxe's devices too
#    (rdma_rxe unloads with ib_unregister_driver, which matches on the driver
#    id), and rrxe makes them again.
# With the notifier taking rrxe's devices for its own, KASAN reports its writes
# past their end (the guest's splat check fails the run).
cd "$(dirname "$0")" && . ./lib.sh
PLAN=18
require_rrxe
require_cmd ibv_rc_pingpong ibv_devinfo
require_module rdma_rxe
ktap_print_header
ktap_set_plan $PLAN

# pp SRV_NS SRV_DEV CLI_NS CLI_DEV SRV_IP: ibv_rc_pingpong, every buffer checked.
pp() {
	local sg cg spid out rc
	sg=$(gid_index "$2" 4) && cg=$(gid_index "$4" 4) || { echo "$2/$4: no IPv4 GID"; return 1; }
	out=$(mktemp)
	ip netns exec "$1" timeout 60 ibv_rc_pingpong -d "$2" -g "$sg" -n 20 -s 4096 -c >"$out" 2>&1 &
	spid=$!
	if ! wait_listen 20 "$spid" 18515; then
		kill "$spid" 2>/dev/null; wait "$spid"
		echo "$2: server did not start: $(tail -n 2 "$out" | tr '\n' ' ')"; rm -f "$out"; return 1
	fi
	ip netns exec "$3" timeout 60 ibv_rc_pingpong -d "$4" -g "$cg" -n 20 -s 4096 -c "$5" >>"$out" 2>&1
	rc=$?
	wait "$spid" || rc=1
	[ "$rc" = 0 ] || echo "$4 -> $2 failed: $(grep -v '^ ' "$out" | tail -n 3 | tr '\n' ' ')"
	rm -f "$out"
	return "$rc"
}
both_work() { pp b rrxe1 a rrxe0 10.0.0.2 && pp d rxe3 c rxe2 10.0.1.2; }
rrxe_works() { pp b rrxe1 a rrxe0 10.0.0.2; }
rxe_works() { pp d rxe3 c rxe2 10.0.1.2; }
active() { ibv_devinfo -d "$1" 2>/dev/null | grep -q PORT_ACTIVE; }
all_active() { local d; for d in "$@"; do active "$d" || return 1; done; }

# pair TYPE NS_A NS_B DEV_A DEV_B NAME_A NAME_B PREFIX: a veth pair DEV_A/DEV_B
# in NS_A/NS_B (made if missing), PREFIX.1 and PREFIX.2, and a device of link
# type TYPE on each end; rrxe_pair and rxe_pair make each driver's again after
# a removal.
pair() {
	local t=$1 na=$2 nb=$3 da=$4 db=$5 ia=$6 ib=$7 p=$8
	{ [ -e "/run/netns/$na" ] || ip netns add "$na"; } && { [ -e "/run/netns/$nb" ] || ip netns add "$nb"; } &&
		ip link add "$da" netns "$na" type veth peer name "$db" netns "$nb" &&
		ip -n "$na" addr add "$p.1/24" dev "$da" && ip -n "$nb" addr add "$p.2/24" dev "$db" &&
		ip -n "$na" link set lo up && ip -n "$nb" link set lo up &&
		ip -n "$na" link set "$da" up && ip -n "$nb" link set "$db" up &&
		ip netns exec "$na" rdma link add "$ia" type "$t" netdev "$da" &&
		ip netns exec "$nb" rdma link add "$ib" type "$t" netdev "$db" &&
		pin_neighbours "$na" "$da" "$nb" "$db" "$p" && wait_for 10 all_active "$ia" "$ib"
}
rrxe_pair() { pair rrxe a b veth0 veth1 rrxe0 rrxe1 10.0.0; }
rxe_pair() { pair rxe c d veth2 veth3 rxe2 rxe3 10.0.1; }

modprobe rdma_rxe
made() { rrxe_pair && rxe_pair; }
check "rrxe0/rrxe1 and rdma_rxe's rxe2/rxe3 are created, both modules loaded" made
check "both pairs carry traffic" both_work
if ip netns exec a rdma link add rxe_x type rxe netdev veth0 2>/dev/null; then
	not_ok "rdma_rxe refused on rrxe0's netdev (4791 is rrxe's in netns a)"; ip netns exec a rdma link del rxe_x
else
	ok "rdma_rxe refused on rrxe0's netdev (4791 is rrxe's in netns a)"
fi
if ip netns exec c rdma link add rrxe_x type rrxe netdev veth2 2>/dev/null; then
	not_ok "rrxe refused on rxe2's netdev (4791 is rdma_rxe's in netns c)"; ip netns exec c rdma link del rrxe_x
else
	ok "rrxe refused on rxe2's netdev (4791 is rdma_rxe's in netns c)"
fi

# NETDEV_DOWN and NETDEV_CHANGE (carrier), then NETDEV_UP, on all four netdevs.
updown() {
	ip -n a link set veth0 down && ip -n c link set veth2 down && sleep 1 &&
		ip -n a link set veth0 up && ip -n c link set veth2 up &&
		wait_for 10 all_active rrxe0 rrxe1 rxe2 rxe3
}
check "link down and up on both drivers' netdevs" updown
check "both pairs carry traffic after it" both_work

mtu() {
	local m=$1
	ip -n a link set veth0 mtu "$m" && ip -n b link set veth1 mtu "$m" &&
		ip -n c link set veth2 mtu "$m" && ip -n d link set veth3 mtu "$m" &&
		wait_for 10 sh -c "ibv_devinfo -d rrxe0 | grep -q 'active_mtu:.*$2'"
}
check "MTU 9000 on both drivers' netdevs: rrxe0's active MTU follows (4096)" mtu 9000 4096
check "both pairs carry traffic at MTU 9000" both_work
check "MTU 1500 again: rrxe0's active MTU 1024" mtu 1500 1024

# NETDEV_UNREGISTER: each driver's veth pair goes, and only its devices.
ip -n a link del veth0
# gone DEV...: each device goes within 30 s (of the clock: `rdma link show`
# takes most of a second under TCG).
gone() {
	local d end=$((SECONDS + 30))
	for d in "$@"; do
		while has_link "$d"; do
			[ $SECONDS -lt $end ] || { echo "$d still there"; return 1; }
			sleep 0.5
		done
	done
}
there() { local d; for d in "$@"; do has_link "$d" || { echo "$d gone"; return 1; }; done; }
rrxe_unreg() { gone rrxe0 rrxe1 && there rxe2 rxe3; }
check "removing rrxe's veth pair removes rrxe0 and rrxe1 only" rrxe_unreg
check "rdma_rxe carries traffic after that" rxe_works
rrxe_pair || diag "rrxe pair not made again"
ip -n c link del veth2
rxe_unreg() { gone rxe2 rxe3 && there rrxe0 rrxe1 && rrxe_works; }
check "removing rdma_rxe's veth pair removes rxe2 and rxe3 only, rrxe carries traffic" rxe_unreg
rxe_pair || diag "rdma_rxe pair not made again"

# A namespace deleted under each driver's device (its veth's peer goes with it).
ip netns del a
nsa_del() { gone rrxe0 rrxe1 && there rxe2 rxe3 && rxe_works; }
check "deleting netns a removes rrxe0 and rrxe1, rdma_rxe carries traffic" nsa_del
ip netns del b
rrxe_pair || diag "rrxe pair not made again"
ip netns del c
nsc_del() { gone rxe2 rxe3 && there rrxe0 rrxe1 && rrxe_works; }
check "deleting netns c removes rxe2 and rxe3, rrxe carries traffic" nsc_del
ip netns del d
if rxe_pair; then
	check "both pairs made again carry traffic" both_work
else
	not_ok "both pairs made again carry traffic # rdma_rxe pair set-up failed"
fi

# Module unloads. rmmod rrxe removes only rrxe's devices.
unload_rrxe() { rmmod rrxe && gone rrxe0 rrxe1 && there rxe2 rxe3 && rxe_works; }
check "rmmod rrxe leaves rdma_rxe's devices, which carry traffic" unload_rrxe
load_rrxe
ip netns exec a rdma link add rrxe0 type rrxe netdev veth0
ip netns exec b rdma link add rrxe1 type rrxe netdev veth1
wait_for 10 all_active rrxe0 rrxe1
# rmmod rdma_rxe: its ib_unregister_driver(RDMA_DRIVER_RXE) removes rrxe's
# devices too, by the id they share; rrxe makes them again and works. (rdma_rxe
# refuses to unload while a device of its own holds a namespace's socket.)
ip netns exec c rdma link del rxe2
ip netns exec d rdma link del rxe3
unload_rxe() { rmmod rdma_rxe && gone rrxe0 rrxe1; }
check "rmmod rdma_rxe removes rrxe's devices too" unload_rxe
ip netns exec a rdma link add rrxe0 type rrxe netdev veth0
ip netns exec b rdma link add rrxe1 type rrxe netdev veth1
again() { wait_for 10 all_active rrxe0 rrxe1 && rrxe_works; }
check "after rmmod rdma_rxe (which removed rrxe's devices too) rrxe makes them again and carries traffic" again

ip netns exec a rdma link del rrxe0 2>/dev/null
ip netns exec b rdma link del rrxe1 2>/dev/null
for ns in a b c d; do ip netns del $ns 2>/dev/null; done
modprobe rdma_rxe 2>/dev/null
ktap_finished
