#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (scripts/vm run -- .../run_tests.sh): the KUnit results of
# this boot, then every rrxe kselftest, as one TAP stream for scripts/test.
# RRXE_SUITE_TIMEOUT (2400 s) bounds each kselftest; make soak raises it.
cd "$(dirname "$0")" || exit 1
rc=0

# KUnit suites ran at boot (built-in: the kernel crate's, including
# rust_kernel_rdma_types) and when rrxe.ko was loaded; guest-init saved that
# dmesg. Cases of rrxe's suites are reported; a failure in any suite fails.
echo "# kunit"
kunit_cases() {
	sed -E 's/^\[[ 0-9.]*\] ?//' /run/rrxe/dmesg-boot.txt | awk '
		/^    # Subtest: / { suite = $3; next }
		/^    (not )?ok [0-9]+ / { if (suite ~ /^(rrxe|rust_kernel_rdma)/) print "  " $0 " (" suite ")"; next }
		/^not ok [0-9]+ / { print "  not ok 0 KUnit suite " $4 " failed" }'
}
if [ -f /run/rrxe/dmesg-boot.txt ]; then
	kunit_cases
	kunit_cases | grep -q 'not ok' && rc=1
	grep -q '# Subtest: rrxe' /run/rrxe/dmesg-boot.txt || { echo "  not ok 0 no rrxe KUnit suite ran"; rc=1; }
else
	echo "  not ok 0 no boot dmesg"; rc=1
fi

# Indents a script's TAP; a case that took 10 s or more since the last one
# says so, so that one run shows where the stage's time goes.
timed_tap() {
	local line last=$SECONDS
	while IFS= read -r line; do
		printf '  %s\n' "$line"
		case $line in
		"ok "* | "not ok "*)
			[ $((SECONDS - last)) -lt 10 ] || printf '  # (%d s)\n' $((SECONDS - last))
			last=$SECONDS ;;
		esac
	done
}

for t in rrxe_*.sh; do
	echo "# selftest $t"
	t0=$SECONDS
	timeout "${RRXE_SUITE_TIMEOUT:-2400}" "./$t" 2>&1 | timed_tap
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	echo "# $t took $((SECONDS - t0)) s"
done
exit $rc
