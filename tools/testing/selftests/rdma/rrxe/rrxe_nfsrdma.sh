#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA on rrxe: nfsd with an RDMA listener (port 20049) in netns a on
# rrxe0, and a client mounting with -o rdma,vers=4.2 from netns b, first through
# rrxe1, then through rdma_rxe's rxe1 on the same veth. svcrdma and xprtrdma make
# their cm_ids in their transport's namespace, so server and client each run
# in their own, over the pair, as on two hosts.
#
# Files written through the mount must read back identical after a remount
# (nothing from the client's page cache) and sit identical in the server's
# directory; a run goes through netem's loss, duplication and reordering. The
# server runs NFSv4 without v3 (the client mounts 4.2), with a 10 s grace
# period, and no rpcbind.
# RRXE_NFS_MIB (8) is the size written per client, in three files, and
# RRXE_NFS_LOSS_MIB (4) through netem.
cd "$(dirname "$0")" && . ./lib.sh

EXP=/tmp/rrxe-nfs-export MNT=/tmp/rrxe-nfs-mnt
SRV=10.0.0.1
MIB=${RRXE_NFS_MIB:-8}
LOSS_MIB=${RRXE_NFS_LOSS_MIB:-4}
NSA="ip netns exec a"
NSB="ip netns exec b"
require_rrxe
require_cmd nfsdctl exportfs rpc.mountd mount.nfs nsenter
for m in nfsd nfsv4 rpcrdma; do
	modprobe -n -q "$m" || skip_all "no module $m"
done
ktap_print_header
ktap_set_plan 10

stop_server() {
	$NSA nfsdctl threads 0 >/dev/null 2>&1
	pkill -x rpc.mountd 2>/dev/null
	exportfs -ua 2>/dev/null
}
cleanup() {
	umount -f "$MNT" 2>/dev/null
	stop_server
	ip netns del a 2>/dev/null
	ip netns del b 2>/dev/null
	rm -rf "$EXP" "$MNT" /tmp/rrxe-nfs-*.sum
}

# The server in netns a: nfsd's filesystem mounted there (its settings are per
# namespace), grace and lease at their 10 s minimum so that a fresh server
# opens files at once, the export, rpc.mountd for nfsd's export upcalls, and
# an RDMA listener only.
start_server() {
	mkdir -p "$EXP" /var/lib/nfs/v4recovery || return 1
	$NSA bash -c "
		mount -t nfsd nfsd /proc/fs/nfsd &&
		echo 10 >/proc/fs/nfsd/nfsv4gracetime && echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
		exportfs -o rw,no_root_squash,insecure,fsid=0,no_subtree_check '*:$EXP' &&
		rpc.mountd --no-udp -N 3 &&
		nfsdctl version -3 +4.2 && nfsdctl listener +rdma::20049 && nfsdctl threads 4" >/dev/null &&
		$NSA nfsdctl listener | grep -q rdma
}

# mount_from DEV: mounts the export from netns b (the mount itself is in this
# mount namespace, so it outlives the command) and checks that it runs over RDMA
# and that DEV carried the mount's traffic.
mount_from() {
	local sent
	sent=$(stat_of "$1" sent_pkts)
	mkdir -p "$MNT" &&
		timeout 120 nsenter --net=/run/netns/b mount -t nfs -o rdma,port=20049,vers=4.2 "$SRV:/" "$MNT" &&
		grep " $MNT " /proc/mounts | grep -q "proto=rdma" &&
		[ "$(stat_of "$1" sent_pkts)" -gt "${sent:-0}" ]
}

# write_files TAG [MIB]: three files of random data, MIB in all, with odd
# sizes, their sums in /tmp/rrxe-nfs-TAG.sum.
write_files() {
	local tag=$1 mib=${2:-$MIB} f n
	for n in 1 2 3; do
		f=$MNT/$tag-$n
		head -c $(((mib << 20) / 6 * n - 4093 * n)) /dev/urandom >"$f" || return 1
	done
	sync -f "$MNT" && (cd "$MNT" && sha256sum "$tag"-*) >/tmp/rrxe-nfs-"$tag".sum
}
# read_back TAG: after a remount, the files read back match their sums, through
# the mount and in the server's directory.
read_back() {
	umount "$MNT" && mount_from "$2" &&
		(cd "$MNT" && sha256sum -c --quiet /tmp/rrxe-nfs-"$1".sum) &&
		(cd "$EXP" && sha256sum -c --quiet /tmp/rrxe-nfs-"$1".sum)
}

cleanup
check "modules nfsd, nfsv4 and rpcrdma load" modprobe -a nfsd nfsv4 rpcrdma
check "rrxe0 in netns a and rrxe1 in netns b on the veth pair" eval \
	'setup_topology && pin_neighbours a veth0 b veth1 10.0.0 &&
	 $NSA rdma link add rrxe0 type rrxe netdev veth0 && $NSB rdma link add rrxe1 type rrxe netdev veth1'
check "nfsd in netns a listens on rdma port 20049 (NFSv4.2)" start_server
check "netns b mounts $SRV:/ with -o rdma through rrxe1" mount_from rrxe1
t0=$SECONDS
check "rrxe1: $MIB MiB in three files written, read back after a remount, identical on the server" \
	eval "write_files rrxe && read_back rrxe rrxe1"
diag "$((SECONDS - t0)) s; rrxe1: $(nonzero_stats rrxe1)"

before=$(nonzero_stats rrxe1)
check "through netem ($NETEM): $LOSS_MIB MiB written and read back identical" \
	eval "tc -n a qdisc add dev veth0 root netem $NETEM && tc -n b qdisc add dev veth1 root netem $NETEM &&
	      write_files lossy $LOSS_MIB && read_back lossy rrxe1"
tc -n a qdisc del dev veth0 root 2>/dev/null
tc -n b qdisc del dev veth1 root 2>/dev/null
diag "rrxe1: $(stats_delta "$before" "$(nonzero_stats rrxe1)")"

# The same client on rdma_rxe: rrxe1 goes, rxe1 comes on the same veth.
umount "$MNT" 2>/dev/null
$NSB rdma link del rrxe1
if modprobe rdma_rxe && $NSB rdma link add rxe1 type rxe netdev veth1; then
	check "netns b mounts with -o rdma through rdma_rxe's rxe1" mount_from rxe1
	check "rxe1 reads what rrxe1 wrote, identical" eval "(cd $MNT && sha256sum -c --quiet /tmp/rrxe-nfs-rrxe.sum)"
	check "rxe1: $MIB MiB written, read back after a remount, identical on the server" \
		eval "write_files rxe && read_back rxe rxe1"
	umount "$MNT" 2>/dev/null
	$NSB rdma link del rxe1
else
	for n in mount "reads what rrxe1 wrote" "writes"; do not_ok "rdma_rxe client: $n # no rxe1"; done
fi
stop_server
check "with the server stopped, rrxe0 goes" eval "$NSA rdma link del rrxe0 && ! rdma link show | grep -q rrxe0"
cleanup
modprobe -r rdma_rxe 2>/dev/null
ktap_finished
