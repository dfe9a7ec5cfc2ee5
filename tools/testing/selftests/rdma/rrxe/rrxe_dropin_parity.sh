#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What rdma_rxe 7.3 does and rrxe does too (Documentation/admin-guide.rst):
# - a device is taken from a running application (disassociate_ucontext): rmmod,
#   `rdma link del` and netdev deletion each complete promptly while a process
#   holds the device with live objects; the process gets IBV_EVENT_DEVICE_FATAL
#   and its verbs fail;
# - a device moves to another namespace (exclusive mode) while a process holds
#   it, and carries traffic there;
# - links on L3 netdevs (tun), whose packets loop back, as on rxe;
# - the port counters in sysfs (ports/1/counters/, the PMA): port_xmit_data of
#   one end equals port_rcv_data of the other after traffic;
# - rdma_rxe's 17 counter names in `rdma statistic`, beside rrxe's, and the
#   pingpong's SENDs, receives and ACKs in rdma_sends, rdma_recvs and
#   ack_deferred, as rxe counts them.
# The kernel's own rxe_*.sh selftests, run under scripts/vm --dropin, cover the
# rest (the socket's life with the links, names across namespaces).
cd "$(dirname "$0")" && . ./lib.sh

require_rrxe
require_cmd ibv_rc_pingpong
require_python pyverbs
ktap_print_header
ktap_set_plan 18
ready=$(mktemp -u)

# hold_then NAME DEV ACTION...: hold.py holds DEV; ACTION must complete within
# 30 s; then the holder must have seen the device go (three cases).
hold_then() {
	local name=$1 dev=$2; shift 2
	local out=/tmp/hold.$$ t0
	rm -f "$ready"
	timeout 150 python3 ./hold.py "$dev" "$ready" >"$out" 2>&1 &
	local pid=$!
	if ! wait_for 60 test -e "$ready"; then
		not_ok "$name: the holder did not start"; diag "$(cat "$out")"
		kill $pid 2>/dev/null; wait $pid; return
	fi
	t0=$SECONDS
	if timeout 30 "$@"; then
		ok "$name completes while a process holds $dev ($((SECONDS - t0)) s)"
	else
		not_ok "$name while a process holds $dev did not complete within 30 s"
	fi
	if wait $pid && grep -q '^event IBV_EVENT_DEVICE_FATAL' "$out"; then
		ok "$name: the holder got IBV_EVENT_DEVICE_FATAL"
	else
		not_ok "$name: the holder got no IBV_EVENT_DEVICE_FATAL"
	fi
	if grep -q '^verbs fail' "$out"; then
		ok "$name: the holder's verbs fail after it ($(grep '^verbs fail' "$out" | cut -c1-60))"
	else
		not_ok "$name: the holder's verbs do not fail after it"
	fi
	diag "$(cat "$out")"
	rm -f "$out"
}

ip link add px0 type veth peer name px1
ip link set px0 up && ip link set px1 up

# 1-3: rmmod (the module reference the core takes per open context is gone).
rdma link add prx0 type rrxe netdev px0
hold_then "rmmod rrxe" prx0 rmmod rrxe
load_rrxe
# 4-6: rdma link del.
rdma link add prx0 type rrxe netdev px0
hold_then "rdma link del" prx0 rdma link del prx0
# 7-9: netdev deletion (the device goes through the queued unregistration).
ip link add py0 type veth peer name py1 && ip link set py0 up
rdma link add pry0 type rrxe netdev py0
hold_then "ip link del of the netdev" pry0 sh -c 'ip link del py0 && while rdma link show pry0/1 >/dev/null 2>&1; do sleep 0.2; done'

# 10-11: the PMA counters: what one end sent is what the other received, over
# a veth pair between two namespaces.
ip netns add qa && ip netns add qb
ip link add qx0 netns qa type veth peer name qx1 netns qb
ip -n qa addr add 10.7.0.1/24 dev qx0 && ip -n qb addr add 10.7.0.2/24 dev qx1
ip -n qa link set qx0 up && ip -n qb link set qx1 up
ip netns exec qa rdma link add qrx0 type rrxe netdev qx0
ip netns exec qb rdma link add qrx1 type rrxe netdev qx1
c=/sys/class/infiniband
if [ -r $c/qrx0/ports/1/counters/port_xmit_data ]; then
	ok "the port counters are in sysfs (ports/1/counters/)"
else
	not_ok "the port counters are in sysfs (ports/1/counters/)"
fi
wait_for 10 gid_index qrx0 4 >/dev/null && wait_for 10 gid_index qrx1 4 >/dev/null
x0=$(cat $c/qrx0/ports/1/counters/port_xmit_data 2>/dev/null) r1=$(cat $c/qrx1/ports/1/counters/port_rcv_data 2>/dev/null)
rxe_moved="rdma_sends rdma_recvs ack_deferred rcvd_pkts"
declare -A c0
for d in qrx0 qrx1; do for n in $rxe_moved; do c0[$d.$n]=$(stat_of $d $n); done; done
ip netns exec qa timeout 60 ibv_rc_pingpong -d qrx0 -g "$(gid_index qrx0 4)" -n 50 -s 4096 >/tmp/pp.s 2>&1 &
spid=$!
wait_listen 30 $spid 18515 &&
	ip netns exec qb timeout 60 ibv_rc_pingpong -d qrx1 -g "$(gid_index qrx1 4)" -n 50 -s 4096 10.7.0.1 >/tmp/pp.c 2>&1
wait $spid
# The last ACK may still be on its way when the pingpongs end.
sleep 1
x0b=$(cat $c/qrx0/ports/1/counters/port_xmit_data 2>/dev/null) r1b=$(cat $c/qrx1/ports/1/counters/port_rcv_data 2>/dev/null)
if [ -n "$x0b" ] && [ $((x0b - x0)) -gt $((50 * 4096 / 4)) ] && [ $((x0b - x0)) = $((r1b - r1)) ]; then
	ok "port_xmit_data of one end equals port_rcv_data of the other ($((x0b - x0)) words)"
else
	not_ok "port_xmit_data of one end equals port_rcv_data of the other (${x0b:-?}-${x0:-?} vs ${r1b:-?}-${r1:-?})"
	diag "$(cat /tmp/pp.s /tmp/pp.c)"
fi
# 12: rdma_rxe's counter names, beside rrxe's, with rxe's meaning.
names="sent_pkts rcvd_pkts send_err sent_bytes rcvd_bytes link_downed retry_exceeded_err
	duplicate_request rcvd_rnr_err send_rnr_err rcvd_seq_err retry_rnr_exceeded_err
	out_of_seq_request ack_deferred completer_retry_err rdma_sends rdma_recvs"
missing=""
for n in $names; do [ -n "$(stat_of qrx0 "$n")" ] || missing+=" $n"; done
sb=$(stat_of qrx0 sent_bytes) xd=$(cat $c/qrx0/ports/1/counters/port_xmit_data 2>/dev/null)
if [ -z "$missing" ] && [ -n "$sb" ] && [ $((sb / 4)) = "$xd" ]; then
	ok "rdma statistic has rdma_rxe's counter names; sent_bytes / 4 = port_xmit_data ($xd)"
else
	not_ok "rdma statistic has rdma_rxe's counter names (missing:${missing:- none}); sent_bytes ${sb:-?} / 4 = port_xmit_data ${xd:-?}"
fi
# 13: each side of the 50-iteration pingpong retired 50 SENDs and completed 50
# receives; the ACKs of its SENDs reached it (at least one, no more than the
# packets it received).
declare -A dm
moved="" bad=""
for d in qrx0 qrx1; do
	for n in $rxe_moved; do dm[$n]=$(($(stat_of $d $n) - ${c0[$d.$n]:-0})) && moved+=" $d.$n=${dm[$n]}"; done
	((dm[rdma_sends] == 50 && dm[rdma_recvs] == 50 &&
		dm[ack_deferred] >= 1 && dm[ack_deferred] <= dm[rcvd_pkts])) || bad+=" $d"
done
if [ -z "$bad" ]; then
	ok "rdma_sends, rdma_recvs and ack_deferred count a pingpong's SENDs, receives and ACKs"
else
	not_ok "rdma_sends, rdma_recvs and ack_deferred count a pingpong's SENDs, receives and ACKs # wrong on$bad:$moved"
fi
ip netns del qa; ip netns del qb

# 14-15: an L3 netdev (tun, no MAC) takes a link; its packets loop back.
ip tuntap add mode tun ptun0 && ip addr add 10.8.0.1/24 dev ptun0 && ip link set ptun0 up
check "a link on a tun device" rdma link add ptn0 type rrxe netdev ptun0
wait_for 10 gid_index ptn0 4 >/dev/null
g=$(gid_index ptn0 4)
timeout 60 ibv_rc_pingpong -d ptn0 -g "$g" -n 20 >/tmp/pp.s 2>&1 &
spid=$!
if wait_listen 30 $spid 18515 && timeout 60 ibv_rc_pingpong -d ptn0 -g "$g" -n 20 10.8.0.1 >/tmp/pp.c 2>&1 &&
	wait $spid; then
	ok "traffic through a tun device's link (looped back)"
else
	not_ok "traffic through a tun device's link (looped back)"; diag "$(cat /tmp/pp.s /tmp/pp.c)"
fi
rdma link del ptn0; ip link del ptun0

# 16-18: exclusive mode: a device moves into a namespace while a process
# holds it; the holder loses it as on rmmod; the device opens in its new
# namespace and is gone from the first. The core changes the mode only while
# no namespace but the initial one exists.
mode=$(rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p')
wait_for 30 rdma system set netns exclusive || diag "exclusive mode refused; namespaces: $(ip netns list)"
ip netns add pns
out=$(rdma link add prx0 type rrxe netdev px0 2>&1) || diag "rdma link add prx0: $out"
rm -f "$ready"
timeout 150 python3 ./hold.py prx0 "$ready" >/tmp/hold.mv 2>&1 &
hpid=$!
wait_for 60 test -e "$ready"
if timeout 30 rdma dev set prx0 netns pns && ip netns exec pns rdma dev show prx0 >/dev/null 2>&1 &&
	! rdma dev show prx0 >/dev/null 2>&1; then
	ok "a held device moves to another namespace (exclusive mode)"
else
	not_ok "a held device moves to another namespace (exclusive mode)"
fi
if wait $hpid && grep -q '^event IBV_EVENT_DEVICE_FATAL' /tmp/hold.mv; then
	ok "the move: the holder got IBV_EVENT_DEVICE_FATAL"
else
	not_ok "the move: the holder got no IBV_EVENT_DEVICE_FATAL"; diag "$(cat /tmp/hold.mv)"
fi
check "the moved device opens in its namespace, port active" \
	sh -c 'ip netns exec pns ibv_devinfo -d prx0 | grep -q PORT_ACTIVE'
ip netns del pns
wait_for 30 sh -c 'rdma dev show prx0 >/dev/null 2>&1' || diag "prx0 did not come back to the initial namespace"
# rdma_dev_exit_net has to finish before the mode can change back.
wait_for 30 rdma system set netns "${mode:-shared}" || diag "netns mode not restored to ${mode:-shared}"
rdma link del prx0 2>/dev/null
ip link del px0
rm -f "$ready" /tmp/pp.s /tmp/pp.c /tmp/hold.mv
ktap_finished
