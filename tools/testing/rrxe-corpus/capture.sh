#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerates the golden RoCE v2 corpus from real rdma_rxe traffic, and the same
# traffic from rrxe for the field-by-field comparison (tests/interop.rs).
# Host:  scripts/vm run --no-load --timeout 3000 -- tools/testing/rrxe-corpus/capture.sh
#        scripts/vm run --timeout 3000 -- env CORPUS_DRIVER=rrxe tools/testing/rrxe-corpus/capture.sh
#        (env CORPUS_FAMILIES=v6 ... for one address family)
# The pcaps land in the run directory ($RRXE_CACHE/runs/last/corpus/); copy them
# here with tools/testing/rrxe-corpus/update.sh. rrxe's are named rrxe-CLASS.pcap.
#
# Stock rdma_rxe (or rrxe) on both ends of a veth pair (namespaces ca/cb); each
# traffic class is captured to its own pcap with tcpdump on the veth in ca.
set -u
out=/run/rrxe/corpus
mkdir -p "$out"
T=${CORPUS_TIMEOUT:-60}

driver=${CORPUS_DRIVER:-rxe}
case $driver in
rxe) prefix= ; modprobe rdma_rxe || exit 1 ;;
rrxe) prefix=rrxe- ; [ -d /sys/module/rrxe ] || exit 1 ;;
*) echo "CORPUS_DRIVER must be rxe or rrxe"; exit 1 ;;
esac
ip netns add ca && ip netns add cb
ip link add cx0 netns ca type veth peer name cx1 netns cb
for ns in ca cb; do ip -n $ns link set lo up; done
ip -n ca addr add 10.7.0.1/24 dev cx0 && ip -n cb addr add 10.7.0.2/24 dev cx1
ip -n ca addr add fd07::1/64 dev cx0 nodad && ip -n cb addr add fd07::2/64 dev cx1 nodad
ip -n ca link set cx0 up && ip -n cb link set cx1 up
ip netns exec ca rdma link add crxe0 type "$driver" netdev cx0
ip netns exec cb rdma link add crxe1 type "$driver" netdev cx1

# gid_index DEV PREFIX: the RoCE v2 GID whose address starts with PREFIX.
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 i
	for i in $(seq 0 15); do
		[ "$(cat $d/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] || continue
		case $(cat $d/gids/$i) in $2*) echo "$i"; return ;; esac
	done
	return 1
}
sleep 2
v4a=$(gid_index crxe0 0000:0000:0000:0000:0000:ffff:0a07) || { echo "no IPv4 GID"; exit 1; }
v4b=$(gid_index crxe1 0000:0000:0000:0000:0000:ffff:0a07)
v6a=$(gid_index crxe0 fd07) || { echo "no IPv6 GID"; exit 1; }
v6b=$(gid_index crxe1 fd07)
echo "GIDs: v4 $v4a/$v4b v6 $v6a/$v6b"

# run NAME SERVER_CMD CLIENT_CMD (the client gets the server address appended)
capture() {
	local name=$prefix$1 mtu=$2 srv=$3 cli=$4 addr=$5
	ip -n ca link set cx0 mtu "$mtu"; ip -n cb link set cx1 mtu "$mtu"
	ip netns exec ca tcpdump -i cx0 -U -s 0 -w "$out/$name.pcap" udp port 4791 2>/dev/null &
	local dump=$!
	sleep 1
	ip netns exec cb timeout $T $srv >/dev/null 2>&1 &
	local s=$!
	sleep 1
	if ip netns exec ca timeout $T $cli "$addr" >/dev/null 2>&1; then r=ok; else r=FAIL; fi
	wait $s
	sleep 0.5
	kill -INT $dump; wait $dump 2>/dev/null
	echo "$r $name: $(stat -c %s "$out/$name.pcap") bytes"
}
# The tools' TCP handshake always uses IPv4; the GID index alone decides whether
# the RoCE packets are IPv4 or IPv6.
addr=10.7.0.2
for fam in ${CORPUS_FAMILIES:-v4 v6}; do
	if [ $fam = v4 ]; then ga=$v4a gb=$v4b; else ga=$v6a gb=$v6b; fi
	# Single-packet RDMA WRITE and READ (ONLY opcodes).
	for t in write read; do
		capture ${t}_small-$fam 1500 "ib_${t}_bw -d crxe1 -x $gb -s 2 -n 20 -F" "ib_${t}_bw -d crxe0 -x $ga -s 2 -n 20 -F" $addr
	done
	[ "${CORPUS_FULL:-1}" = 1 ] || continue
	for mtu in 1500 9000; do
		imtu=$([ $mtu = 1500 ] && echo 1024 || echo 4096)
		tag=$fam-mtu$imtu
		capture rc_pingpong-$tag $mtu "ibv_rc_pingpong -d crxe1 -g $gb -m $imtu -s 5000 -n 20 -c" "ibv_rc_pingpong -d crxe0 -g $ga -m $imtu -s 5000 -n 20 -c" $addr
		capture uc_pingpong-$tag $mtu "ibv_uc_pingpong -d crxe1 -g $gb -m $imtu -s 3000 -n 20 -c" "ibv_uc_pingpong -d crxe0 -g $ga -m $imtu -s 3000 -n 20 -c" $addr
		capture ud_pingpong-$tag $mtu "ibv_ud_pingpong -d crxe1 -g $gb -s 512 -n 20 -c" "ibv_ud_pingpong -d crxe0 -g $ga -s 512 -n 20 -c" $addr
		for t in write read send; do
			capture ${t}_bw-$tag $mtu "ib_${t}_bw -d crxe1 -x $gb -m $imtu -s 10000 -n 20 -F" "ib_${t}_bw -d crxe0 -x $ga -m $imtu -s 10000 -n 20 -F" $addr
		done
		capture send_lat-$tag $mtu "ib_send_lat -d crxe1 -x $gb -m $imtu -s 2000 -n 20 -F" "ib_send_lat -d crxe0 -x $ga -m $imtu -s 2000 -n 20 -F" $addr
		capture write_imm-$tag $mtu "ib_write_bw -d crxe1 -x $gb -m $imtu -s 3000 -n 20 -F --write_with_imm" "ib_write_bw -d crxe0 -x $ga -m $imtu -s 3000 -n 20 -F --write_with_imm" $addr
	done
	capture atomic_cas-$fam 1500 "ib_atomic_bw -d crxe1 -x $gb -A CMP_AND_SWAP -n 50 -F" "ib_atomic_bw -d crxe0 -x $ga -A CMP_AND_SWAP -n 50 -F" $addr
	capture atomic_faa-$fam 1500 "ib_atomic_bw -d crxe1 -x $gb -A FETCH_AND_ADD -n 50 -F" "ib_atomic_bw -d crxe0 -x $ga -A FETCH_AND_ADD -n 50 -F" $addr
done
ls -la "$out"
