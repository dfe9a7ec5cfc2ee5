#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process that rewrites its own mmapped SQ/RQ/SRQ/CQ rings behind the kernel's
# back (hostile_ring.py) must get error completions and bounded flushes, never a
# hang; the kernel must stay clean (the framework fails the run on any splat).
# With the doorbell provider (the default; RRXE_PROVIDER=stock for the stock
# one) it also forges the doorbell words (uapi/rdma/rdma_user_rrxe.h): a forged
# RRXE_SQ_WATCHED stalls only the forger's QP until it rings, garbage producer
# indices from another thread while the QP is armed give a bounded flush,
# scribbled ring headers leave another context's traffic alone, and forged CQ
# arms raise no more events than completions.
cd "$(dirname "$0")" && . ./lib.sh

require_rrxe
require_cmd ibv_devinfo
require_libibverbs
ip netns add ha
ip -n ha link add hx0 type veth peer name hx1
ip -n ha link set hx0 up && ip -n ha link set hx1 up
ip -n ha addr add 10.7.0.1/24 dev hx0
ip netns exec ha rdma link add hrx0 type rrxe netdev hx0
wait_for 10 sh -c 'ibv_devinfo -v -d hrx0 | grep -q "GID\[  1\]"'
timeout 300 ip netns exec ha python3 ./hostile_ring.py hrx0
rc=$?
ip netns exec ha rdma link del hrx0
ip netns del ha
exit $rc
