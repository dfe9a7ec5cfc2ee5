# SPDX-License-Identifier: GPL-2.0
# Helpers for rrxe's kselftests, on top of the kernel's KTAP helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh). Each test script sources
# this and then:
#  - checks its prerequisites with require_* (a missing one skips the whole
#    script: "1..0 # SKIP why", exit KSFT_SKIP);
#  - prints ktap_print_header and its plan, ktap_set_plan N;
#  - reports each case with ok, not_ok, skip or check;
#  - ends with ktap_finished, which exits KSFT_PASS only if every planned case
#    passed or was skipped, else KSFT_FAIL.

# The kernel's KTAP helpers: two levels up in a kernel tree and in a kselftest
# install; else in a kernel source at RRXE_KSRC, at /cache/linux (the source
# scripts/kernel extracted, as the guest sees the cache) or in the host's
# cache.
rrxe_ktap_helpers() {
	local rel=tools/testing/selftests/kselftest/ktap_helpers.sh f
	for f in "$(dirname "${BASH_SOURCE[0]}")/../../kselftest/ktap_helpers.sh" \
		${RRXE_KSRC:+"$RRXE_KSRC/$rel"} "/cache/linux/$rel" "${RRXE_CACHE:-$HOME/.cache/rrxe}/linux/$rel"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}
if ! RRXE_KTAP_HELPERS=$(rrxe_ktap_helpers); then
	echo "TAP version 13"
	echo "Bail out! ktap_helpers.sh not found: neither in-tree (../../kselftest/) nor in a kernel source (RRXE_KSRC, /cache/linux)"
	exit 1
fi
# shellcheck source=/dev/null
. "$RRXE_KTAP_HELPERS"

# One case each. ktap_helpers prints the description unquoted: no globbing.
ok() { local -; set -f; ktap_test_pass "$*"; }
not_ok() { local -; set -f; ktap_test_fail "$*"; }
skip() { local -; set -f; ktap_test_skip "$*"; }
# check NAME CMD...: one case that passes when CMD succeeds; returns as CMD.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else
		not_ok "$name"
		printf '%s\n' "$out" | sed 's/^/# /' | head -n 20
		return 1
	fi
}
# diag TEXT: TEXT as KTAP diagnostic lines, each line kept.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

# skip_all WHY: a prerequisite is missing; the whole script is skipped.
skip_all() {
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}
# require_cmd CMD...: each CMD is on PATH.
require_cmd() {
	local c
	for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed"; done
}
# require_module MOD...: each module loads (or is built in).
require_module() {
	local m
	for m in "$@"; do modprobe -q "$m" 2>/dev/null || skip_all "module $m does not load"; done
}
# require_rrxe: root, iproute2's ip and rdma, and the rrxe module (loaded by
# the guest init; else loaded here from RRXE_KO or with modprobe).
require_rrxe() {
	[ "$(id -u)" = 0 ] || skip_all "must run as root"
	require_cmd ip rdma
	[ -d /sys/module/rrxe ] || load_rrxe >/dev/null 2>&1 || skip_all "no rrxe module ($RRXE_KO, modprobe rrxe)"
}
# require_python MOD...: python3 and each Python module (e.g. pyverbs).
require_python() {
	local m
	require_cmd python3
	for m in "$@"; do python3 -c "import $m" 2>/dev/null || skip_all "python3 has no $m"; done
}
# require_libibverbs: python3 can load libibverbs (ctypes, hostile_ring.py).
require_libibverbs() {
	require_cmd python3
	python3 -c 'import ctypes; ctypes.CDLL("libibverbs.so.1")' 2>/dev/null || skip_all "no libibverbs.so.1"
}

# The rrxe module, as loaded by the guest init. load_rrxe loads it again after
# a test removed it; without that file, modprobe rrxe (an in-tree build).
RRXE_KO=${RRXE_KO:-/cache/module-${RRXE_FLAVOUR:-test}/rrxe.ko}
# Arguments are module parameters (doorbell=2).
load_rrxe() { if [ -f "$RRXE_KO" ]; then insmod "$RRXE_KO" "$@"; else modprobe rrxe "$@"; fi; }

# The rxe provider (rdma-core's user-space driver for rrxe and rdma_rxe). The
# guest image installs rdma-core's rxe provider patched for rrxe's doorbell
# (tools/provider/) in its place, and keeps the stock one beside it:
#   RRXE_PROVIDER=doorbell  the patched provider (the default);
#   RRXE_PROVIDER=stock     the stock one: RDMAV_DRIVERS names it, and
#                           libibverbs loads RDMAV_DRIVERS' providers before
#                           the installed ones; the first match wins.
# use_provider doorbell|stock switches for the commands that follow. Where
# there is no stock/ copy (not the rrxe guest), the installed provider is used.
RRXE_STOCK_PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/stock/librxe
have_stock_provider() { compgen -G "$RRXE_STOCK_PROVIDER-rdmav*.so" >/dev/null; }
use_provider() {
	case $1 in
	doorbell) [ "${RDMAV_DRIVERS:-}" != "$RRXE_STOCK_PROVIDER" ] || unset RDMAV_DRIVERS ;;
	stock) if have_stock_provider; then export RDMAV_DRIVERS=$RRXE_STOCK_PROVIDER; fi ;;
	*) echo "use_provider: '$1' is neither doorbell nor stock" >&2; return 1 ;;
	esac
	RRXE_PROVIDER=$1
}
use_provider "${RRXE_PROVIDER:-doorbell}" || exit 1
# The pairings with rdma_rxe (traffic, perftest, recovery) post through
# RRXE_RXE_PROVIDER, rdma-core's stock provider unless set: one run then covers
# rrxe under both providers, the doorbell one with rrxe1 and the stock one
# against rdma_rxe, as unmodified rdma-core on both sides of a mixed cluster.
# rxe_pairings_begin switches to it, rxe_pairings_end back.
RRXE_RUN_PROVIDER=$RRXE_PROVIDER
rxe_pairings_begin() { use_provider "${RRXE_RXE_PROVIDER:-stock}"; }
rxe_pairings_end() { use_provider "$RRXE_RUN_PROVIDER"; }
# provider_file DEV: the provider file that libibverbs, in this environment,
# uses for DEV (the library holding its post_send).
provider_file() {
	python3 - "$1" <<'PY'
import ctypes, sys
ib = ctypes.CDLL("libibverbs.so.1")
ib.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
ib.ibv_get_device_name.argtypes = [ctypes.c_void_p]
ib.ibv_get_device_name.restype = ctypes.c_char_p
ib.ibv_open_device.argtypes = [ctypes.c_void_p]
ib.ibv_open_device.restype = ctypes.c_void_p
devs = ib.ibv_get_device_list(None)
i = 0
while devs and devs[i] and ib.ibv_get_device_name(devs[i]).decode() != sys.argv[1]:
    i += 1
ctx = ib.ibv_open_device(devs[i]) if devs and devs[i] else None
if not ctx:
    sys.exit("provider_file: cannot open %s" % sys.argv[1])
# struct ibv_context: the device pointer, then ops, whose 26th entry is post_send.
fn = ctypes.c_void_p.from_address(ctx + 8 + 25 * 8).value
for line in open("/proc/self/maps"):
    f = line.split()
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    if lo <= fn < hi and len(f) > 5:
        print(f[5])
        break
else:
    sys.exit("provider_file: post_send of %s is in no mapped file" % sys.argv[1])
PY
}

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

# listens PID PORT: a TCP socket listens on PORT in the network namespace of
# process PID. Reads /proc/PID/net/tcp{,6} with shell builtins: `ss -ltn` took
# 4-6 s a call under TCG (without INET_DIAG it falls back to /proc after the
# kernel fails to load the diag modules).
listens() {
	local port f sl laddr raddr st rest
	printf -v port ':%04X' "$2"
	for f in "/proc/$1/net/tcp" "/proc/$1/net/tcp6"; do
		[ -r "$f" ] || continue
		while read -r sl laddr raddr st rest; do
			[ "$st" = 0A ] && [ "${laddr%"$port"}" != "$laddr" ] && return 0
		done <"$f"
	done
	return 1
}
# wait_listen SECS PID PORT: wait until the server just started as PID (its
# `ip netns exec` or `timeout`) listens on PORT; fails at once if PID exits.
wait_listen() { wait_for "$1" listens_or_gone "$2" "$3" && listens "$2" "$3"; }
listens_or_gone() { listens "$@" || [ ! -d "/proc/$1" ]; }

# The standard topology, built by the traffic tests themselves: netns a (veth0,
# 10.0.0.1/24, fd00::1/64) and netns b (veth1, 10.0.0.2/24, fd00::2/64).
setup_topology() {
	ip netns add a && ip netns add b &&
		ip link add veth0 netns a type veth peer name veth1 netns b &&
		ip -n a addr add 10.0.0.1/24 dev veth0 && ip -n a addr add fd00::1/64 dev veth0 nodad &&
		ip -n b addr add 10.0.0.2/24 dev veth1 && ip -n b addr add fd00::2/64 dev veth1 nodad &&
		ip -n a link set veth0 up && ip -n b link set veth1 up &&
		ip -n a link set lo up && ip -n b link set lo up
}

# The rdma_rxe pair that benchmarks run beside rrxe0/rrxe1 in the same boot:
# netns c (veth2, 10.0.1.1/24, rxe2) and netns d (veth3, 10.0.1.2/24, rxe3). Each
# driver owns UDP 4791 in its own namespaces. Pins both pairs' neighbours.
setup_rxe_pair() {
	modprobe rdma_rxe && ip netns add c && ip netns add d &&
		ip link add veth2 netns c type veth peer name veth3 netns d &&
		ip -n c link set lo up && ip -n d link set lo up &&
		ip -n c addr add 10.0.1.1/24 dev veth2 && ip -n d addr add 10.0.1.2/24 dev veth3 &&
		ip -n c link set veth2 up && ip -n d link set veth3 up &&
		ip netns exec c rdma link add rxe2 type rxe netdev veth2 &&
		ip netns exec d rdma link add rxe3 type rxe netdev veth3 &&
		pin_neighbours a veth0 b veth1 10.0.0 && pin_neighbours c veth2 d veth3 10.0.1
}

# The loss test's netem (rrxe_recovery.sh; tools/rrxe-bench/rxe-self-loss.sh
# runs rdma_rxe against itself through the same).
# limit: netem's queue must not overflow. rdma_rxe 7.3 fails its QP
# (LOC_QP_OP_ERR, then flushes) when the local qdisc refuses a packet, and go-back-N
# bursts under TCG's late timers can pass the default 1000; this test is about
# loss on the wire.
NETEM="limit 10000 loss 5% duplicate 1% reorder 25% delay 200us"
# What an rdma_rxe requester receives is not reordered: its completer then
# warns (rxe_comp.c:827, COMPST_ERROR with a successful WQE) and completes a
# READ early as successful, likely after a reordered ACK older than responses
# it had. The phase in turn failed so reading from rrxe0 (a wrong READ copy) and
# from rdma_rxe's own responder (Documentation/testing.rst). That tests
# rdma_rxe; the requests rrxe0 gets are still reordered.
NETEM_TO_RXE="limit 10000 loss 5% duplicate 1% delay 200us"

# pin_neighbours NS_A DEV_A NS_B DEV_B PREFIX: permanent neighbour entries between
# PREFIX.1 (DEV_A in NS_A) and PREFIX.2 (DEV_B in NS_B). modify_qp to RTR resolves
# the peer's MAC, which times out when netem drops everything, and a timed run
# should not wait for ARP.
pin_neighbours() {
	local mac_a mac_b
	mac_a=$(ip netns exec "$1" cat "/sys/class/net/$2/address") &&
		mac_b=$(ip netns exec "$3" cat "/sys/class/net/$4/address") &&
		ip -n "$1" neigh replace "$5.2" lladdr "$mac_b" dev "$2" nud permanent &&
		ip -n "$3" neigh replace "$5.1" lladdr "$mac_a" dev "$4" nud permanent
}

# gid_index DEV FAMILY: the RoCE v2 GID of family 4 or 6 (not link-local).
# Shell builtins only: a `cat` per file cost ~0.1 s under TCG, 2 per GID.
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 i g ty
	for ((i = 0; i < 16; i++)); do
		read -r g <"$d/gids/$i" 2>/dev/null || continue
		read -r ty <"$d/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$ty" = "RoCE v2" ] || continue
		case $2:$g in
		4:0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		6:fd00:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# stat_of DEV COUNTER: one of the device's port counters.
stat_of() { rdma statistic show link "$1/1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# arrived DEV: the packets that reached DEV. rrxe counts each in one of these
# before anything else can drop it: in rcvd_pkts once its ICRC checked and its
# QP was found (as rdma_rxe counts it), or before that as malformed, a bad
# ICRC, an unknown QP or a full QP queue.
arrived() {
	rdma statistic show link "$1/1" | awk '{ for (i = 1; i < NF; i++)
		if ($i ~ /^(rcvd_pkts|rcv_malformed|rcv_icrc_err|rcv_unknown_qp|rcv_queue_full)$/) s += $(i + 1) }
		END { print s + 0 }'
}
# qp_state DEV...: each device's QPs with the driver's transport state
# (Documentation/admin-guide.rst, "QP state"), for a run that stopped moving.
qp_state() { local d; for d in "$@"; do rdma resource show qp link "$d/1" -dd; done; }
# nonzero_stats DEV: "name value" for each of DEV's port 1 counters above 0.
nonzero_stats() { rdma statistic show link "$1/1" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^[1-9][0-9]*$/) printf "%s %s ", $i, $(i + 1) }'; }
# stats_delta BEFORE AFTER: the counters that moved between two nonzero_stats.
stats_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); for (i = 1; i < n; i += 2) o[x[i]] = x[i + 1]
		n = split(b, y, " "); for (i = 1; i < n; i += 2) if (y[i + 1] != o[y[i]]) printf "%s +%d ", y[i], y[i + 1] - o[y[i]] }'
}
# cpu_ticks: per vCPU, its user and kernel (system, irq, softirq) ticks from
# /proc/stat, as "user kernel", one line each.
cpu_ticks() { awk '/^cpu[0-9]/ { print $2 + $3, $4 + $7 + $8 }' /proc/stat; }

# fio_verify_job DEV MIB JSON [FIO ARGS...]: the storage suites' verify job.
# Four jobs, each on its quarter of DEV's first MIB, write random blocks of
# 4 KiB to 1 MiB at queue depth 32 with a crc32c in each, then read each back
# and check it. fio's JSON report goes to JSON, its errors to JSON.err; returns
# fio's status.
fio_verify_job() {
	local dev=$1 mib=$2 out=$3
	shift 3
	timeout 900 fio --name=verify --filename="$dev" --direct=1 --ioengine=libaio --iodepth=32 \
		--numjobs=4 --size=$((mib / 4))M --offset_increment=$((mib / 4))M --rw=randwrite \
		--bssplit=4k/40:16k/20:128k/25:1m/15 --verify=crc32c --verify_fatal=1 "$@" \
		--group_reporting --output-format=json --output="$out" >/dev/null 2>"$out.err"
}
