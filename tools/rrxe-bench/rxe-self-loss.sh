#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_rxe against itself through rrxe_recovery.sh's lossy netem, at the size
# rrxe's own pairing moves (default 64 MiB, path MTU 4096, 64 KiB READs):
# recovery.py's transfer case from rdma_rxe's rxe2 (netns c) to rxe3 (netns
# d), RUNS times (3), with rdma_rxe's counters after each. It tells whether a
# failure of the rdma_rxe pairings there is rdma_rxe's own
# (Documentation/testing.rst, rrxe_recovery.sh). Run it in the test kernel:
#   scripts/vm run --no-build --topo --timeout 4000 -- tools/rrxe-bench/rxe-self-loss.sh
set -u
cd "$(dirname "$0")/../testing/selftests/rdma/rrxe" || exit 1
. ./lib.sh # setup_rxe_pair, gid_index, stat_of, NETEM, NETEM_TO_RXE
setup_rxe_pair || { echo "setup failed" >&2; exit 1; }
# The standard topology's veths are at MTU 9000 (path MTU 4096); the pair's are not.
ip -n c link set veth2 mtu 9000 && ip -n d link set veth3 mtu 9000 || exit 1
# As rrxe_recovery.sh: NETEM towards the responder, NETEM_TO_RXE towards an
# rdma_rxe requester.
# shellcheck disable=SC2086 # netem's arguments, several words
tc -n c qdisc replace dev veth2 root netem $NETEM &&
	tc -n d qdisc replace dev veth3 root netem $NETEM_TO_RXE || exit 1
failed=0
for i in $(seq "${RUNS:-3}"); do
	t0=$SECONDS
	timeout 1500 python3 ./recovery.py rxe2 "$(gid_index rxe2 4)" rxe3 "$(gid_index rxe3 4)" \
		transfer "${MIB:-64}" 4096 64 2>&1 | tail -n 12 | cut -c1-200
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "run $i: exit $rc after $((SECONDS - t0)) s"
	for c in completer_retry_err retry_exceeded_err send_err rcvd_seq_err duplicate_request out_of_seq_request; do
		echo "  rxe2 $c $(stat_of rxe2 "$c"), rxe3 $c $(stat_of rxe3 "$c")"
	done
done
echo "$failed of ${RUNS:-3} runs failed"
