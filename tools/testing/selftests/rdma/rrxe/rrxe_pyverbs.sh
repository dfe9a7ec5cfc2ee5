#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma-core's pyverbs suite (python3-pyverbs) against rrxe and, side by side in
# the same boot, against stock rdma_rxe on the other end of the same veth pair.
# Each device runs the modules in one python3 process, inside the netns of its
# netdev (the suite looks the netdev's addresses up). pyverbs_compare.py prints
# both tables and fails a module on any regression not listed in
# pyverbs-gaps.txt.
cd "$(dirname "$0")" && . ./lib.sh

mods=${RRXE_PYVERBS_MODULES:-"test_device test_pd test_mr test_cq test_cqex test_cq_events test_qp test_qpex test_srq test_addr test_shared_pd test_atomic test_rdmacm test_odp"}
keep=/run/rrxe; [ -d $keep ] || keep=/tmp
# RRXE_PEERS=rrxe (run_tests.sh's rerun with the stock provider) runs only the
# modules that post work or arm CQs, where the providers differ, on rrxe alone,
# and compares with rdma_rxe's results of the run before it in this boot.
rxe_log=$keep/pyverbs.rxe.log rrxe_log=$keep/pyverbs.rrxe.log rxe_too=1
if [ "${RRXE_PEERS:-}" = rrxe ] && [ -s "$rxe_log" ]; then
	rxe_too=0 rrxe_log=$keep/pyverbs.rrxe-$RRXE_PROVIDER.log
	mods=${RRXE_PYVERBS_MODULES:-"test_cq_events test_qpex test_srq test_atomic test_rdmacm test_odp"}
fi
work=/tmp/pyverbs-suite
require_rrxe
require_python pyverbs
[ -d /usr/share/doc/rdma-core/tests ] || skip_all "no rdma-core tests in /usr/share/doc/rdma-core/tests"
require_module rdma_rxe
rm -rf $work && mkdir -p $work && cp -r /usr/share/doc/rdma-core/tests $work/ && gunzip -f $work/tests/*.gz
export PYTHONDONTWRITEBYTECODE=1

ip netns add pa && ip netns add pb
ip link add px0 netns pa type veth peer name px1 netns pb
ip -n pa link set px0 up && ip -n pb link set px1 up
ip -n pa addr add 10.8.0.1/24 dev px0 && ip -n pb addr add 10.8.0.2/24 dev px1
ip netns exec pa rdma link add pyrx0 type rrxe netdev px0
ip netns exec pb rdma link add pyrxe1 type rxe netdev px1
wait_for 10 sh -c 'ibv_devinfo -v -d pyrx0 | grep -q "GID\[  1\]"'
wait_for 10 sh -c 'ibv_devinfo -v -d pyrxe1 | grep -q "GID\[  1\]"'

run() { # NS DEV LOG
	local t0=$SECONDS
	(cd $work && ip netns exec "$1" timeout -k 10 1500 python3 tests/run_tests.py --dev "$2" -v $mods) >"$3" 2>&1
	echo "# $2: python3 exited $? after $((SECONDS - t0)) s"
}
# Side by side: each run is one python3 process on its own device and netns,
# and the guest had CPU to spare (QEMU at ~150% of 2 host CPUs); one after the
# other they took 11-12 min of a slow day's guest run.
run pa pyrx0 "$rrxe_log" &
rrxe_run=$!
[ $rxe_too = 0 ] || run pb pyrxe1 "$rxe_log"
wait $rrxe_run
python3 ./pyverbs_compare.py "$rrxe_log" "$rxe_log" pyverbs-gaps.txt $mods
rc=$?

ip netns exec pa rdma link del pyrx0; ip netns exec pb rdma link del pyrxe1
ip netns del pa; ip netns del pb
rmmod rdma_rxe
exit $rc
