#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel consumer over rrxe: NVMe over RDMA, target (nvmet-rdma) and host
# (nvme-rdma) on one rrxe device, connected through rdma_cm to its own address
# (rrxe's loopback; both ULPs listen and connect in the initial namespace only).
#
# What it exercises beyond the user-space tests: kernel QPs and CQs driven by a
# ULP, fast registration (the host registers every READ buffer and large WRITE
# buffer with IB_WR_REG_MR and hands its rkey to the target), RDMA READ and WRITE
# by the target into those MRs, and their invalidation (the target answers with
# SEND_WITH_INV, or the host posts LOCAL_INV). Without REG_MR no I/O completes.
#
# Data is checked end to end: what the host writes through /dev/nvmeXnY is read
# back through it and from the target's backing file.
cd "$(dirname "$0")" && . ./lib.sh

NQN=rrxe-nvmeof-test
ADDR=10.9.0.1
CFS=/sys/kernel/config/nvmet
IMG=/tmp/rrxe-nvmet.img
MIB=${RRXE_NVMEOF_MIB:-16}
require_rrxe
for m in nvmet nvmet-rdma nvme-rdma; do
	modprobe -n -q "$m" || skip_all "no module $m"
done
ktap_print_header
ktap_set_plan 9

# Teardown order matters. Removing an nvmet port destroys its listening cm_id under
# nvmet_config_sem, and an I/O-queue connect that arrived before the CM's
# ESTABLISHED event ran under a (child) cm_id's handler_mutex and took
# nvmet_config_sem: lockdep, which keys on lock classes, reports that as a circular
# dependency (an upstream nvmet/rdma_cm report, not an rrxe one; the two mutexes
# are different cm_ids). Deleting the RDMA device first makes rdma_cm destroy the
# listener, so the port's removal finds no cm_id left to destroy.
cleanup() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && echo 1 2>/dev/null >"$c/delete_controller"
	done
	wait_for 30 sh -c "! grep -qx '$NQN' /sys/class/nvme/nvme*/subsysnqn"
	rdma link delete nvrx0 2>/dev/null
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFS/ports/1" 2>/dev/null
	echo 0 2>/dev/null >"$CFS/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" 2>/dev/null
	ip link del nvd0 2>/dev/null
	rm -f "$IMG" /tmp/rrxe-nvme-*.bin
}

setup_target() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	truncate -s $((MIB * 4))M "$IMG" &&
		mkdir "$CFS/subsystems/$NQN" &&
		echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
		echo "$IMG" >"$CFS/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/buffered_io" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFS/ports/1" &&
		echo rdma >"$CFS/ports/1/addr_trtype" &&
		echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
		echo "$ADDR" >"$CFS/ports/1/addr_traddr" &&
		echo 4420 >"$CFS/ports/1/addr_trsvcid" &&
		ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}

# The controller of our subsystem, once the host has connected.
ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && { basename "$c"; return 0; }
	done
	return 1
}
# Its namespace's block device (nvme0n1, or nvme0c0n1's head nvme0n1).
bdev() {
	local b
	for b in /sys/block/nvme*n1; do
		[ -e "$b" ] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)" = "$NQN" ] &&
			{ echo "/dev/$(basename "$b")"; return 0; }
	done
	# One NVMe subsystem in this guest: the only namespace is ours.
	b=$(ls /sys/block | grep -m1 '^nvme[0-9]*n1$') && echo "/dev/$b"
}

# xfer NAME BS COUNT: writes COUNT blocks of BS bytes of random data with O_DIRECT
# (each one I/O of that size) at the start of the namespace, reads them back the
# same way, and compares.
xfer() {
	local name=$1 bs=$2 count=$3 dev src back
	dev=$(bdev) || { not_ok "$name # no block device"; return; }
	src=/tmp/rrxe-nvme-src.bin back=/tmp/rrxe-nvme-back.bin
	head -c $((bs * count)) /dev/urandom >"$src"
	if ! timeout 180 dd if="$src" of="$dev" bs="$bs" count="$count" oflag=direct status=none 2>/tmp/rrxe-nvme-err.bin ||
		! timeout 180 dd if="$dev" of="$back" bs="$bs" count="$count" iflag=direct status=none 2>>/tmp/rrxe-nvme-err.bin; then
		not_ok "$name # I/O failed"; sed 's/^/# /' /tmp/rrxe-nvme-err.bin | head -n 5; return
	fi
	if cmp -s "$src" "$back"; then
		ok "$name: $count x $bs bytes written and read back"
	else
		not_ok "$name # data read back differs"
	fi
}

cleanup
check "modules nvmet, nvmet-rdma and nvme-rdma load" modprobe -a nvmet nvmet-rdma nvme-rdma
ip link add nvd0 type dummy && ip addr add "$ADDR/24" dev nvd0 && ip link set nvd0 up
check "rrxe device on a dummy netdev" rdma link add nvrx0 type rrxe netdev nvd0
check "nvmet target listens on rdma $ADDR:4420" setup_target

# Fail fast rather than reconnect for ten minutes if the transport breaks.
opts="transport=rdma,traddr=$ADDR,trsvcid=4420,nqn=$NQN,ctrl_loss_tmo=5,reconnect_delay=1"
if out=$(timeout 120 sh -c "echo '$opts' > /dev/nvme-fabrics" 2>&1) && wait_for 30 bdev; then
	ok "nvme-rdma host connects: $(ctrl) $(bdev)"
	diag "$(dmesg | grep -E 'nvme|nvmet' | tail -n 3)"
	# 4 KiB I/O goes inline or through one page; 128 KiB and 1 MiB need REG_MR
	# of multi-page lists.
	xfer "4 KiB I/O" 4096 64
	xfer "128 KiB I/O" 131072 32
	xfer "1 MiB I/O" 1048576 "$MIB"
	sync
	check "target's backing file holds what the host wrote" \
		cmp -n $((MIB * 1048576)) /tmp/rrxe-nvme-src.bin "$IMG"
	c=$(ctrl)
	echo 1 >"/sys/class/nvme/$c/delete_controller"
	check "host disconnects" wait_for 30 sh -c "! ls /sys/class/nvme | grep -qx $c"
else
	not_ok "nvme-rdma host connects # ${out:-no block device}"
	diag "$(dmesg | grep -E 'nvme|nvmet|rrxe' | tail -n 20)"
	for n in "4 KiB I/O" "128 KiB I/O" "1 MiB I/O" "backing file" "host disconnects"; do not_ok "$n # not connected"; done
fi
cleanup
modprobe -r nvme-rdma nvmet-rdma nvmet nvme-fabrics nvme-core 2>/dev/null
ktap_finished
