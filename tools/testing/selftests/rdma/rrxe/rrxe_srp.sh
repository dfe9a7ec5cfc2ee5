#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SRP on rrxe: the LIO target ib_srpt exports a file as a SCSI disk over
# rdma_cm, and the initiator ib_srp logs in to it from netns b. ib_srpt listens
# only in the initial namespace, while ib_srp makes its cm_ids in the namespace
# of whoever writes add_target: so the target's device sits on srA here and the
# initiator's on srB, the veth pair's end in netns b, as on two hosts.
#
# Each pairing (initiator:target) logs in, and fio writes mixed-size blocks
# with a crc32c in each at queue depth 32 from four jobs, then reads them back
# and checks them. The first pairing also checks the target's file, runs fio
# through netem, and deletes the initiator's device during I/O, which must end
# that I/O in errors and take the SCSI host away, with no hang.
# RRXE_SRP_PAIRS ("rrxe:rrxe rxe:rrxe rrxe:rxe"; rxe is rdma_rxe) chooses the
# pairings; RRXE_SRP_MIB (8) is each one's verified size, RRXE_SRP_LOSS_MIB (4)
# the lossy run's; both multiples of 4.
cd "$(dirname "$0")" && . ./lib.sh

PAIRS=${RRXE_SRP_PAIRS:-rrxe:rrxe rxe:rrxe rrxe:rxe}
MIB=${RRXE_SRP_MIB:-8}
LOSS_MIB=${RRXE_SRP_LOSS_MIB:-4}
TGT=10.9.2.1 INI=10.9.2.2 PORT=5555
CFS=/sys/kernel/config/target
BS=$CFS/core/fileio_0/rrxe_srp
IMG=/tmp/rrxe-srp.img
NSB="ip netns exec b"
require_rrxe
require_cmd fio nsenter python3 tc blockdev
for m in ib_srpt ib_srp target_core_file; do
	modprobe -n -q "$m" || skip_all "no module $m"
done
case " $PAIRS " in *" rxe:"* | *":rxe "*) require_module rdma_rxe ;; esac
ktap_print_header
ktap_set_plan $((2 + 5 * $(wc -w <<<"$PAIRS") + 3))

# The target's configfs port directory for device $1: the interface ID of its
# GID 0 (ib_srpt's "GUID" port name).
port_name() { cut -d: -f5- "/sys/class/infiniband/$1/ports/1/gids/0"; }

# Target: a file backstore, the port of device $1 with one TPG, LUN 0 on the
# file, ACLs naming the target's address (ib_srpt names an rdma_cm session by
# the address it was reached at) and the initiator's, and the rdma_cm listener.
setup_target() {
	local p a TPG
	p=$(port_name "$1") || return 1
	TPG=$CFS/srpt/$p/tpg_1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	truncate -s $((MIB + 16))M "$IMG" &&
		mkdir -p "$BS" &&
		echo "fd_dev_name=$IMG,fd_dev_size=$(((MIB + 16) << 20))" >"$BS/control" &&
		echo 1 >"$BS/enable" &&
		mkdir -p "$TPG/lun/lun_0" &&
		ln -s "$BS" "$TPG/lun/lun_0/file" || return 1
	for a in "$TGT" "$INI"; do
		mkdir -p "$TPG/acls/$a/lun_0" && ln -s "$TPG/lun/lun_0" "$TPG/acls/$a/lun_0/lun_0" || return 1
	done
	echo 1 >"$TPG/enable" && echo "$PORT" >"$CFS/srpt/discovery_auth/rdma_cm_port"
}
# Undoes setup_target (which ran in a subshell: the port is found again), in
# the order LIO needs; fails naming what is left.
teardown_target() {
	local t a left
	[ -d "$CFS/srpt" ] && echo 0 2>/dev/null >"$CFS/srpt/discovery_auth/rdma_cm_port"
	for t in "$CFS"/srpt/*/tpg_1; do
		[ -d "$t" ] || continue
		echo 0 >"$t/enable"
		for a in "$t"/acls/*/lun_0; do
			[ -d "$a" ] || continue
			rm -f "$a/lun_0"
			rmdir "$a"
		done
		for a in "$t"/acls/*; do [ ! -d "$a" ] || rmdir "$a"; done
		rm -f "$t/lun/lun_0/file"
		rmdir "$t/lun/lun_0" "$t" "${t%/tpg_1}"
	done
	[ ! -d "$BS" ] || rmdir "$BS"
	rm -f "$IMG"
	left=$(ls -d "$BS" "$CFS"/srpt/*:* 2>/dev/null)
	[ -z "$left" ] || { echo "left in configfs: $left"; return 1; }
}

# The SCSI host number of the login through initiator device $1 (ib_srp's
# hosts name their device in local_ib_device), and its disk.
srp_scsi_host() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/local_ib_device" 2>/dev/null)" = "$1" ] || continue
		echo "${h##*/host}"
		return 0
	done
	return 1
}
srp_disk() {
	local h b
	h=$(srp_scsi_host "$1") || return 1
	for b in /sys/class/scsi_disk/"$h":0:0:0/device/block/*; do
		[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
# No QP but the GSI one on device $1, as rdma resource shows (which must work).
no_qp_left() {
	local qps
	qps=$(rdma resource show qp link "$1/1") || return 1
	! grep -v "type GSI" <<<"$qps" | grep -q .
}
# login DEV: ib_srp on initiator device DEV logs in to the target (the add
# is written from netns b, where DEV's netdev is) and its disk appears.
login() {
	local g
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid) || return 1
	timeout 120 nsenter --net=/run/netns/b sh -c \
		"echo 'id_ext=$g,ioc_guid=$g,dest=$TGT:$PORT' >/sys/class/infiniband_srp/srp-$1-1/add_target" &&
		wait_for 60 srp_disk "$1"
}
logout() {
	local h
	h=$(srp_scsi_host "$1") || return 0
	echo 1 >"/sys/class/srp_remote_ports/port-$h:1/delete"
	wait_for 60 sh -c "! ls /sys/class/scsi_host | grep -qx host$h"
}

# fio_verify NAME DEV MIB: fio_verify_job on the disk of initiator device DEV.
# Passes when fio does and it wrote and verified all MIB; says IOPS.
fio_verify() {
	local name=$1 dev out t0 rc
	dev=$(srp_disk "$2") || { not_ok "$name # no disk"; return 1; }
	out=/tmp/rrxe-srp-fio.json t0=$SECONDS
	fio_verify_job "$dev" "$3" "$out"
	rc=$?
	if [ $rc != 0 ]; then
		not_ok "$name # fio exited $rc"
		sed 's/^/# /' "$out.err" | head -n 10
		return 1
	fi
	python3 - "$out" "$3" "$((SECONDS - t0))" <<'PY' >/tmp/rrxe-srp-fio.sum
import json, sys
text = open(sys.argv[1]).read()
j = json.loads(text[text.index("{"):])["jobs"][0]
mib, secs = int(sys.argv[2]), int(sys.argv[3])
w, r = j["write"], j["read"]
print(w["io_bytes"] >> 20, r["io_bytes"] >> 20, round(w["iops"]), round(r["iops"]), j["error"], secs)
sys.exit(0 if w["io_bytes"] == mib << 20 and r["io_bytes"] == mib << 20 and j["error"] == 0 else 1)
PY
	rc=$?
	local wm rm wi ri err secs
	read -r wm rm wi ri err secs </tmp/rrxe-srp-fio.sum || { not_ok "$name # fio's report unreadable"; return 1; }
	local what="$wm MiB written, $rm MiB read back and verified (write $wi IOPS, verify $ri IOPS, $secs s)"
	if [ $rc = 0 ]; then ok "$name: $what"; else not_ok "$name # $what, error $err"; fi
	return $rc
}

cleanup() {
	local d
	for d in sri srt; do logout "$d" 2>/dev/null; done
	$NSB rdma link del sri 2>/dev/null
	rdma link del srt 2>/dev/null
	teardown_target
	# The HBA and the fabric hold target_core_file and ib_srpt.
	rmdir "$CFS/core/fileio_0" "$CFS/srpt" 2>/dev/null
	ip link del srA 2>/dev/null
	ip netns del b 2>/dev/null
	rm -f /tmp/rrxe-srp-*
}

cleanup
check "modules ib_srpt, ib_srp and target_core_file load" modprobe -a ib_srpt ib_srp target_core_file
check "srA here and srB in netns b on a veth pair" eval \
	'ip netns add b && ip link add srA type veth peer name srB netns b &&
	 ip addr add $TGT/24 dev srA && ip -n b addr add $INI/24 dev srB &&
	 ip link set srA up && ip -n b link set srB up && ip -n b link set lo up &&
	 ip neigh replace $INI lladdr $(ip netns exec b cat /sys/class/net/srB/address) dev srA nud permanent &&
	 $NSB ip neigh replace $TGT lladdr $(cat /sys/class/net/srA/address) dev srB nud permanent'

first=1
for pair in $PAIRS; do
	ini=${pair%:*} tgt=${pair#*:}
	what="$ini initiator -> $tgt target"
	case " $ini $tgt " in *" rxe "*) modprobe rdma_rxe ;; esac
	if ! check "$what: devices sri (netns b) and srt made, ib_srpt exports a $((MIB + 16)) MiB file on $TGT:$PORT" eval \
		'rdma link add srt type $tgt netdev srA && $NSB rdma link add sri type $ini netdev srB &&
		 wait_for 10 test -d /sys/class/infiniband_srp/srp-sri-1 && setup_target srt'; then
		for n in login "fio verify" "logged out"; do not_ok "$what: $n # no target"; done
		[ -n "$first" ] && for n in "target's file" "fio verify through netem" "device deleted during I/O"; do
			not_ok "$what: $n # no target"
		done
		first=
	elif login sri; then
		dev=$(srp_disk sri) && sz=$(blockdev --getsize64 "$dev") || sz=0
		ok "$what: ib_srp logs in from netns b, $dev is $((sz >> 20)) MiB"
		fio_verify "$what: fio verify, queue depth 32, 4 jobs, 4 KiB to 1 MiB" sri "$MIB"
		if [ -n "$first" ]; then
			sync
			check "$what: the target's file holds what the initiator reads" bash -c \
				"timeout 300 dd if=$(srp_disk sri) bs=1M count=$MIB iflag=direct status=none | cmp - <(head -c $((MIB << 20)) $IMG)"
			before=$(nonzero_stats sri)
			if tc qdisc add dev srA root netem $NETEM && tc -n b qdisc add dev srB root netem $NETEM; then
				fio_verify "$what: fio verify through netem ($NETEM)" sri "$LOSS_MIB"
			else
				not_ok "$what: fio verify through netem # no netem"
			fi
			tc qdisc del dev srA root 2>/dev/null
			tc -n b qdisc del dev srB root 2>/dev/null
			diag "sri: $(stats_delta "$before" "$(nonzero_stats sri)")"

			# The initiator's device goes during I/O: ib_srp removes its
			# hosts, so the I/O fails and the disk goes, within the bound.
			h=$(srp_scsi_host sri) dev=$(srp_disk sri)
			timeout 120 fio --name=gone --filename="${dev:-/dev/null}" --direct=1 --ioengine=libaio \
				--iodepth=32 --numjobs=2 --size=$((MIB / 2))M --offset_increment=$((MIB / 2))M \
				--rw=randrw --bs=64k --time_based --runtime=90 --output=/tmp/rrxe-srp-gone.out \
				>/dev/null 2>/tmp/rrxe-srp-gone.err &
			fio_pid=$!
			sleep 5
			# fio must be running when the device goes, and end on I/O errors.
			kill -0 "$fio_pid" 2>/dev/null && running=1 || running=0
			t0=$SECONDS
			timeout 120 $NSB rdma link del sri
			dl=$?
			wait "$fio_pid"
			rc=$?
			if [ -n "$h" ] && [ $running = 1 ] && [ $dl = 0 ] && [ $rc != 0 ] && [ $rc != 124 ] &&
				grep -qE "io_u error|err= *[1-9]" /tmp/rrxe-srp-gone.err /tmp/rrxe-srp-gone.out &&
				wait_for 60 sh -c "! ls /sys/class/scsi_host | grep -qx host$h"; then
				ok "$what: the initiator's device deleted during I/O: fio ends with I/O errors in $((SECONDS - t0)) s and host$h goes"
			else
				not_ok "$what: the initiator's device deleted during I/O # fio running $running, link del $dl, fio exited $rc after $((SECONDS - t0)) s, host$h $(ls /sys/class/scsi_host | grep -x "host$h" || echo gone)"
				diag "$(head -n 5 /tmp/rrxe-srp-gone.err; dmesg | grep -E 'srp|scsi' | tail -n 10)"
			fi
			first=
		fi
		check "$what: logged out, no SCSI host and no QP left on srt" eval \
			'logout sri && ! srp_scsi_host sri && wait_for 30 no_qp_left srt'
	else
		not_ok "$what: ib_srp logs in # no disk"
		diag "$(dmesg | grep -E 'srp|scsi|rdma' | tail -n 20)"
		for n in "fio verify" "logged out"; do not_ok "$what: $n # not logged in"; done
		[ -n "$first" ] && for n in "target's file" "fio verify through netem" "device deleted during I/O"; do
			not_ok "$what: $n # not logged in"
		done
		first=
	fi
	check "$what: both devices go" eval \
		'$NSB rdma link del sri 2>/dev/null; teardown_target; t=$?; rdma link del srt && [ $t = 0 ] &&
		 ! rdma link show | grep -qE "sri|srt"'
done
cleanup
modprobe -r ib_srp ib_srpt target_core_file target_core_mod rdma_rxe 2>/dev/null
ktap_finished
