#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On-demand-paging MRs (odp.py): WRITE, READ, SEND and FETCH_ADD into and out
# of ODP MRs whose pages the process never touched or freed with MADV_DONTNEED
# arrive whole, with page faults counted (odp_faults); a WRITE and a FETCH_ADD
# into an unreachable ODP range fail with a remote access error. Skipped where
# the kernel has no INFINIBAND_ON_DEMAND_PAGING: where rdma_rxe (or, without
# it, rrxe) offers no ODP.
cd "$(dirname "$0")" && . ./lib.sh

require_rrxe
require_python pyverbs
has_odp() { ibv_devinfo -v -d "$1" | grep -q ODP_SUPPORT; }
# rdma_rxe tells whether this kernel has ODP, on a dummy netdev of its own
# namespace, before rrxe's device exists: unloading rdma_rxe removes every
# device with its driver id, rrxe's too.
odp_kernel=unknown
if modprobe rdma_rxe 2>/dev/null && ip netns add ob; then
	ip -n ob link add od0 type dummy && ip -n ob link set od0 up &&
		ip netns exec ob rdma link add odrxe0 type rxe netdev od0 &&
		wait_for 10 has_link odrxe0 && { has_odp odrxe0 && odp_kernel=yes || odp_kernel=no; }
	ip netns exec ob rdma link del odrxe0 2>/dev/null
	ip netns del ob
	modprobe -r rdma_rxe 2>/dev/null
fi
ip netns add oa
ip -n oa link add ox0 type veth peer name ox1
ip -n oa link set ox0 up && ip -n oa link set ox1 up
ip -n oa addr add 10.6.0.1/24 dev ox0
ip netns exec oa rdma link add odprx0 type rrxe netdev ox0
wait_for 10 sh -c 'ibv_devinfo -v -d odprx0 | grep -q "GID\[  1\]"'
cleanup() { ip netns exec oa rdma link del odprx0; ip netns del oa; }
[ $odp_kernel != unknown ] || { has_odp odprx0 && odp_kernel=yes || odp_kernel=no; }
if [ $odp_kernel = no ]; then
	cleanup
	skip_all "the kernel offers no on-demand paging (INFINIBAND_ON_DEMAND_PAGING)"
fi
RRXE_GID_INDEX=$(gid_index odprx0 4) timeout 300 ip netns exec oa python3 ./odp.py odprx0
rc=$?
cleanup
exit $rc
