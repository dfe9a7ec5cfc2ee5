#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA on rrxe as storage users run it: the target (nvmet-rdma, a file
# namespace) and the host (nvme-rdma) on two devices joined by a veth pair, with
# fio verifying every block at queue depth 32, four jobs and mixed I/O sizes.
#
# nvmet-rdma and nvme-rdma create their cm_ids in the initial network namespace
# only, so both devices live there: nvtgt on nvA (10.9.1.1) for the target and
# nvhost on nvB (10.9.1.2) for the host, which connects with host_traddr. Policy
# routing (wire_routes) sends every locally generated packet for either address
# out through the other end of the pair, so each one crosses the veth, and its
# netem, as between two hosts. Without it the host would resolve the target's
# address to the target's own device and loop back inside one device.
#
# What it exercises beyond the user-space tests: kernel QPs and CQs driven by a
# ULP, fast registration (the host registers READ and large WRITE buffers with
# IB_WR_REG_MR and hands their rkeys to the target), the target's RDMA READ and
# WRITE into them, their invalidation (SEND_WITH_INV or LOCAL_INV), recovery
# from loss under a ULP, the host's device removed under the ULP, and the
# target withdrawing the subsystem during I/O.
#
# RRXE_NVMEOF_DRIVER=rxe runs the same on rdma_rxe, for a ratio in one boot: a
# mixed pair cannot be made here, because these ULPs use only the initial
# namespace and in one namespace only one driver can own UDP port 4791.
# RRXE_NVMEOF_MIB (16) is the clean run's verified size, RRXE_NVMEOF_LOSS_MIB
# (8) the lossy run's; both multiples of 4 (four jobs of a quarter each).
cd "$(dirname "$0")" && . ./lib.sh

DRV=${RRXE_NVMEOF_DRIVER:-rrxe}
NQN=rrxe-nvmeof-test KEEP=rrxe-nvmeof-keep
TGT=10.9.1.1 HOST=10.9.1.2
CFS=/sys/kernel/config/nvmet
IMG=/tmp/rrxe-nvmet.img
MIB=${RRXE_NVMEOF_MIB:-16}
LOSS_MIB=${RRXE_NVMEOF_LOSS_MIB:-8}
case $DRV in
rrxe) require_rrxe ;;
rxe) require_module rdma_rxe ;;
*) skip_all "RRXE_NVMEOF_DRIVER must be rrxe or rxe" ;;
esac
require_cmd fio python3
for m in nvmet nvmet-rdma nvme-rdma; do
	modprobe -n -q "$m" || skip_all "no module $m"
done
ktap_print_header
ktap_set_plan 11

# wire_routes: nvA (10.9.1.1) and nvB (10.9.1.2), both in this namespace, each
# reached from here only through the other. Locally generated packets (iif lo)
# for either address take a table that sends them out of the other end; the
# local table moves behind those rules, so it still delivers what arrives on
# the pair. accept_local lets each end take packets from an address of its own
# host, and the pinned neighbours spare ARP under netem.
wire_routes() {
	ip link add nvA type veth peer name nvB &&
		ip addr add "$TGT/24" dev nvA && ip addr add "$HOST/24" dev nvB &&
		ip link set nvA up && ip link set nvB up || return 1
	# The namespace-wide settings come back in unwire_routes.
	SAVED_SYSCTL=$(sysctl -n net.ipv4.conf.all.accept_local net.ipv4.conf.all.rp_filter | tr '\n' ' ')
	local d
	for d in all nvA nvB; do
		sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0" || return 1
	done
	ip rule add pref 10 iif lo to "$TGT" lookup 201 &&
		ip rule add pref 11 iif lo to "$HOST" lookup 202 &&
		ip route add "$TGT" dev nvB src "$HOST" table 201 &&
		ip route add "$HOST" dev nvA src "$TGT" table 202 &&
		ip rule add pref 100 lookup local && ip rule del pref 0 lookup local &&
		! ip rule show pref 0 | grep -q . &&
		ip neigh replace "$TGT" lladdr "$(cat /sys/class/net/nvA/address)" dev nvB nud permanent &&
		ip neigh replace "$HOST" lladdr "$(cat /sys/class/net/nvB/address)" dev nvA nud permanent || return 1
	local r
	r=$(ip route get "$TGT" from "$HOST")
	[[ $r == *"dev nvB"* ]] || { echo "route to $TGT: $r"; ip rule; return 1; }
}
unwire_routes() {
	ip rule show pref 0 | grep -q local || ip rule add pref 0 lookup local
	ip rule del pref 100 lookup local 2>/dev/null
	ip rule del pref 10 2>/dev/null
	ip rule del pref 11 2>/dev/null
	ip route flush table 201 2>/dev/null
	ip route flush table 202 2>/dev/null
	ip link del nvA 2>/dev/null
	if [ -n "${SAVED_SYSCTL:-}" ]; then
		set -- $SAVED_SYSCTL
		sysctl -qw "net.ipv4.conf.all.accept_local=$1" "net.ipv4.conf.all.rp_filter=$2"
		SAVED_SYSCTL=
	fi
}

# Teardown order matters. Removing an nvmet port destroys its listening cm_id
# under nvmet_config_sem, and an I/O-queue connect that arrived before the CM's
# ESTABLISHED event ran under a (child) cm_id's handler_mutex and took
# nvmet_config_sem: lockdep, which keys on lock classes, reports that as a
# circular dependency (an upstream nvmet/rdma_cm report, not an rrxe one; the two
# mutexes are different cm_ids). Deleting the RDMA device first makes rdma_cm
# destroy the listener, so the port's removal finds no cm_id left to destroy.
cleanup() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && echo 1 2>/dev/null >"$c/delete_controller"
	done
	wait_for 30 sh -c "! grep -qx '$NQN' /sys/class/nvme/nvme*/subsysnqn"
	rdma link delete nvhost 2>/dev/null
	rdma link delete nvtgt 2>/dev/null
	rm -f "$CFS/ports/1/subsystems/$NQN" "$CFS/ports/1/subsystems/$KEEP" 2>/dev/null
	rmdir "$CFS/ports/1" 2>/dev/null
	echo 0 2>/dev/null >"$CFS/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" "$CFS/subsystems/$KEEP" 2>/dev/null
	unwire_routes
	rm -f "$IMG" /tmp/rrxe-nvme-*
}

setup_target() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	truncate -s $((MIB + 16))M "$IMG" &&
		mkdir "$CFS/subsystems/$NQN" &&
		echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
		echo "$IMG" >"$CFS/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/buffered_io" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFS/ports/1" &&
		echo rdma >"$CFS/ports/1/addr_trtype" &&
		echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
		echo "$TGT" >"$CFS/ports/1/addr_traddr" &&
		echo 4420 >"$CFS/ports/1/addr_trsvcid" &&
		ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN" &&
		mkdir "$CFS/subsystems/$KEEP" &&
		ln -s "$CFS/subsystems/$KEEP" "$CFS/ports/1/subsystems/$KEEP"
}

# The controller of our subsystem, once the host has connected.
ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && { basename "$c"; return 0; }
	done
	return 1
}
ctrl_state() { local c; c=$(ctrl) && cat "/sys/class/nvme/$c/state"; }
# Its namespace's block device: the multipath head nvmeXnY (CONFIG_NVME_MULTIPATH)
# or the controller's own; never a hidden path device (nvmeXcYnZ).
bdev() {
	local b n
	for b in /sys/block/nvme*n1; do
		n=${b##*/}
		[[ $n =~ ^nvme[0-9]+n1$ ]] && [ -b "/dev/$n" ] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)" = "$NQN" ] &&
			{ echo "/dev/$n"; return 0; }
	done
	return 1
}
all_gone() { ! ctrl && ! rdma resource show qp link nvhost/1 | grep -v "type GSI"; }
# Bytes the host's end of the pair has sent.
tx_bytes() { cat /sys/class/net/nvB/statistics/tx_bytes; }

# fio_verify NAME MIB [--verify_only]: fio_verify_job on the namespace.
# Passes when fio does and it wrote (unless --verify_only, which checks what
# the same job wrote before) and verified all MIB; says IOPS and bytes.
fio_verify() {
	local name=$1 mib=$2 only=${3:-} dev out t0 rc tx0
	dev=$(bdev) || { not_ok "$name # no block device"; return 1; }
	out=/tmp/rrxe-nvme-fio.json tx0=$(tx_bytes) t0=$SECONDS
	fio_verify_job "$dev" "$mib" "$out" $only
	rc=$?
	if [ $rc != 0 ]; then
		not_ok "$name # fio exited $rc"
		sed 's/^/# /' "$out.err" | head -n 10
		return 1
	fi
	python3 - "$out" "$mib" "$(($(tx_bytes) - tx0))" "$((SECONDS - t0))" "$only" <<'PY' >/tmp/rrxe-nvme-fio.sum
import json, sys
# fio may put a warning line before the report.
text = open(sys.argv[1]).read()
j = json.loads(text[text.index("{"):])["jobs"][0]
mib, tx, secs, only = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
w, r = j["write"], j["read"]
print(w["io_bytes"] >> 20, r["io_bytes"] >> 20, round(w["iops"]), round(r["iops"]),
      j["error"], tx >> 20, secs)
# (--verify_only counts the writes it skipped as written.) The host's end
# sends the written data, or the read requests only.
ok = (w["io_bytes"] == mib << 20 and r["io_bytes"] == mib << 20 and j["error"] == 0
      and tx > (0 if only else mib << 20))
sys.exit(0 if ok else 1)
PY
	rc=$?
	[ -s /tmp/rrxe-nvme-fio.sum ] || { not_ok "$name # fio's report unreadable"; head -c 600 "$out" | sed 's/^/# /'; return 1; }
	local wm rm wi ri err txm secs
	read -r wm rm wi ri err txm secs </tmp/rrxe-nvme-fio.sum
	[ -z "$only" ] || wm=0
	local what="$wm MiB written, $rm MiB read back and verified (write $wi IOPS, verify $ri IOPS, $txm MiB out of nvB, $secs s)"
	if [ $rc = 0 ]; then ok "$name: $what"; else not_ok "$name # $what, error $err"; fi
	return $rc
}

# connect TMO: the host connects to the target through nvhost; the controller
# gives up TMO seconds after it loses the target (and fails its I/O then).
connect() {
	local opts="transport=rdma,traddr=$TGT,trsvcid=4420,host_traddr=$HOST,nqn=$NQN"
	opts+=",ctrl_loss_tmo=$1,reconnect_delay=1,nr_io_queues=2"
	timeout 120 sh -c "echo '$opts' > /dev/nvme-fabrics" && wait_for 30 bdev
}

cleanup
check "modules nvmet, nvmet-rdma and nvme-rdma load" modprobe -a nvmet nvmet-rdma nvme-rdma
[ "$DRV" = rxe ] && modprobe rdma_rxe
check "$DRV devices nvtgt and nvhost on a veth pair whose packets cross it" eval \
	'wire_routes && rdma link add nvtgt type "$DRV" netdev nvA && rdma link add nvhost type "$DRV" netdev nvB'
check "nvmet target listens on rdma $TGT:4420 through nvtgt" setup_target

if connect 5; then
	ok "nvme-rdma host connects from $HOST through nvhost: $(ctrl) $(bdev)"
	fio_verify "fio verify, queue depth 32, 4 jobs, 4 KiB to 1 MiB" "$MIB"
	sync
	# The first MIB of the namespace as the host reads it and as the target's
	# file holds it.
	check "target's backing file holds what the host reads" bash -c \
		"timeout 300 dd if=$(bdev) bs=1M count=$MIB iflag=direct status=none | cmp - <(head -c $((MIB << 20)) $IMG)"

	# The host's device goes: nvme-rdma deletes the controllers on it. Made
	# again, it carries a new controller, which reads back what the first wrote.
	c=$(ctrl)
	rdma link del nvhost
	if wait_for 60 sh -c "! ls /sys/class/nvme | grep -qx $c" &&
		rdma link add nvhost type "$DRV" netdev nvB && connect 5; then
		ok "the host's device deleted ($c goes) and made again: $(ctrl) connects"
		fio_verify "fio verify after the reconnect of what was written before" "$MIB" --verify_only
	else
		not_ok "the host's device deleted and made again # $c $(cat /sys/class/nvme/$c/state 2>/dev/null || echo gone)"
		not_ok "fio verify after the reconnect # not reconnected"
	fi

	# Loss, duplication and reordering on both ends' egress.
	before=$(nonzero_stats nvhost)
	if tc qdisc add dev nvA root netem $NETEM && tc qdisc add dev nvB root netem $NETEM; then
		fio_verify "fio verify through netem ($NETEM)" "$LOSS_MIB"
	else
		not_ok "fio verify through netem # no netem"
	fi
	tc qdisc del dev nvA root 2>/dev/null
	tc qdisc del dev nvB root 2>/dev/null
	diag "nvhost: $(stats_delta "$before" "$(nonzero_stats nvhost)")"

	# The target takes the subsystem off its port during I/O: nvmet deletes
	# its controllers there, the host's reconnects are refused, and once
	# ctrl_loss_tmo (5 s) passes its I/O ends in errors; nothing hangs. A
	# second subsystem keeps the port enabled: disabling it would destroy the
	# listener under nvmet_config_sem (the lockdep report at cleanup()).
	c=$(ctrl) dev=$(bdev)
	[ -n "$c" ] && [ -n "$dev" ] || c=none dev=/dev/null
	timeout 120 fio --name=gone --filename="$dev" --direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 \
		--size=$((LOSS_MIB / 2))M --offset_increment=$((LOSS_MIB / 2))M --rw=randrw --bs=64k \
		--time_based --runtime=90 --output=/tmp/rrxe-nvme-gone.out >/dev/null 2>&1 &
	fio_pid=$!
	sleep 5
	t0=$SECONDS
	rm "$CFS/ports/1/subsystems/$NQN"
	wait "$fio_pid"
	rc=$?
	if [ "$c" != none ] && [ $rc != 0 ] && [ $rc != 124 ] && wait_for 60 sh -c "! ls /sys/class/nvme | grep -qx $c"; then
		ok "the subsystem taken off the target's port during I/O: fio ends with I/O errors in $((SECONDS - t0)) s and $c goes"
	else
		not_ok "the subsystem taken off the target's port during I/O # fio exited $rc after $((SECONDS - t0)) s, $c $(cat /sys/class/nvme/$c/state 2>/dev/null || echo gone)"
		diag "$(dmesg | grep -E 'nvme|nvmet' | tail -n 10)"
	fi
	check "no controller and no QP left on the host's device" all_gone
else
	not_ok "nvme-rdma host connects # no block device"
	diag "$(dmesg | grep -E 'nvme|nvmet|rrxe|rdma' | tail -n 20)"
	for n in "fio verify" "backing file" "reconnect" "fio verify after the reconnect" "fio verify through netem" \
		"subsystem taken off the port" "nothing left"; do
		not_ok "$n # not connected"
	done
fi
cleanup
modprobe -r nvme-rdma nvmet-rdma nvmet nvme-fabrics 2>/dev/null
[ "$DRV" = rxe ] && modprobe -r rdma_rxe 2>/dev/null
ktap_finished
