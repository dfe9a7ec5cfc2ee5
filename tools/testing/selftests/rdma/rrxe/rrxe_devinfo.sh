#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `ibv_devinfo -v` of an rrxe device must equal stock rdma_rxe's on the same kind
# of netdev (veth, same MTU), field by field, except the device name, the GUIDs
# (derived from each netdev's MAC) and the GID values (derived from each netdev's
# addresses; their count and types must still match).
cd "$(dirname "$0")" && . ./lib.sh

require_rrxe
require_cmd ibv_devinfo
require_module rdma_rxe
ktap_print_header
ktap_set_plan 4
# Both outputs stay in the run directory ($RRXE_CACHE/runs/...) for inspection.
keep=/run/rrxe; [ -d $keep ] || keep=/tmp
ip netns add da && ip netns add db
ip link add dx0 netns da type veth peer name dx1 netns db
ip -n da link set dx0 up && ip -n db link set dx1 up
ip -n da addr add 10.9.0.1/24 dev dx0 && ip -n db addr add 10.9.0.2/24 dev dx1
ip netns exec da rdma link add drx0 type rrxe netdev dx0
ip netns exec db rdma link add drxe1 type rxe netdev dx1

normalize() {
	sed -E -e 's/^(hca_id:).*/\1 NAME/' \
		-e 's/(node_guid|sys_image_guid):.*/\1: GUID/' \
		-e 's/(GID\[ *[0-9]+\]:)[[:space:]]*[0-9a-f:.]+/\1 GID/'
}
# GIDs appear once the core has processed the addresses: wait for both tables.
wait_for 10 sh -c 'ibv_devinfo -v -d drx0 | grep -q "GID\[  1\]"'
wait_for 10 sh -c 'ibv_devinfo -v -d drxe1 | grep -q "GID\[  1\]"'
ibv_devinfo -v -d drx0 >$keep/devinfo.rrxe 2>&1
ibv_devinfo -v -d drxe1 >$keep/devinfo.rxe 2>&1
check "ibv_devinfo -v works on rrxe" grep -q "transport:.*InfiniBand" $keep/devinfo.rrxe
check "rrxe uses the rxe user provider (driver id, ABI 2)" sh -c "grep -q 'hca_id:.*drx0' $keep/devinfo.rrxe && ! grep -qi 'failed\|error' $keep/devinfo.rrxe"
if diff <(normalize <$keep/devinfo.rxe) <(normalize <$keep/devinfo.rrxe) >$keep/devinfo.diff; then
	ok "ibv_devinfo -v matches rdma_rxe ($(wc -l <$keep/devinfo.rrxe) lines)"
else
	not_ok "ibv_devinfo -v differs from rdma_rxe"
	sed 's/^/# /' $keep/devinfo.diff | head -n 40
fi
guid_is_eui64() {
	local mac a b c d e f exp guid
	mac=$(ip netns exec da cat /sys/class/net/dx0/address)
	IFS=: read -r a b c d e f <<<"$mac"
	exp=$(printf '%02x%s:%sff:fe%s:%s%s' $((16#$a ^ 2)) "$b" "$c" "$d" "$e" "$f")
	guid=$(awk '/node_guid/ { print $2 }' $keep/devinfo.rrxe)
	[ "$guid" = "$exp" ] || { echo "node_guid $guid, expected $exp from $mac"; return 1; }
}
check "node_guid is the EUI-64 of the netdev's MAC" guid_is_eui64
ip netns exec da rdma link del drx0; ip netns exec db rdma link del drxe1
ip netns del da; ip netns del db
rmmod rdma_rxe
ktap_finished
