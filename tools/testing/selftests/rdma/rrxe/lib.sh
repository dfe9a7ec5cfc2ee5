# SPDX-License-Identifier: GPL-2.0
# TAP helpers for rrxe's kselftests. Each test script sources this, declares its
# plan with tap_plan N and reports each case with ok/not_ok/skip.

TAP_N=0
TAP_FAILED=0
tap_plan() { echo "1..$1"; }
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N $*"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $* # SKIP"; }
# check NAME CMD...: one case that passes when CMD succeeds.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name"; printf '%s\n' "$out" | sed 's/^/# /' | head -n 20; fi
}
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
tap_done() { [ "$TAP_FAILED" = 0 ]; }

# The rrxe module, as loaded by the guest init.
RRXE_KO=${RRXE_KO:-/cache/module-${RRXE_FLAVOUR:-test}/rrxe.ko}

# wait_for SECS CMD...: poll until CMD succeeds; every wait has a time-out.
wait_for() {
	local secs=$1 t=0; shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$t" -ge $((secs * 10)) ] && return 1
		sleep 0.1; t=$((t + 1))
	done
}

# Names of RDMA links, one per line ("rrxe0/1" -> "rrxe0").
rdma_links() { rdma link show 2>/dev/null | awk '{ split($2, a, "/"); print a[1] }' | sort -u; }
has_link() { rdma_links | grep -qx "$1"; }
no_link() { ! has_link "$1"; }
