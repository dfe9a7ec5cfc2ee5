#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RC error and loss recovery, in the standard topology (netns a: veth0 and rrxe0;
# netns b: veth1 and the peer), with recovery.py driving both QPs through pyverbs.
# For rrxe0 -> rrxe1, then rrxe0 -> rdma_rxe's rxe1 and rxe1 -> rrxe0 (requester
# first):
#  - a lossy transfer: netem "loss 5% duplicate 1% reorder 25% delay 200us" on
#    both veths (without the reorder towards an rdma_rxe requester,
#    NETEM_TO_RXE), RC WRITE and SEND in 1 MiB messages, then READ back (at most
#    16 MiB of it) in RRXE_LOSS_READ_KIB KiB READs (default 64), each copy
#    checked by SHA-256 (an rrxe requester must also queue READ response data
#    received outside its work item, as netem's delayed packets are:
#    rcv_deferred, and must place and keep READ responses that came while an
#    earlier one was missing: read_resp_ahead); rrxe0 -> rrxe1 moves
#    RRXE_LOSS_MIB MiB (default 16; make soak moves 64) at path MTU
#    RRXE_LOSS_MTU (default 4096; the veths are at MTU 9000); the pairings
#    with rdma_rxe move RRXE_LOSS_RXE_MIB (default 2) at RRXE_LOSS_RXE_MTU
#    (default 1024), because at 64 MiB and MTU 4096 rdma_rxe's QP went to the
#    error state in 2 of 4 runs (flushes, no error completion; see
#    Documentation/testing.rst); then
#    WRITEs and READs in turn over the same amount, at most 16 MiB;
#  - atomics: 1024 FETCH_ADDs with 128 in flight, the answers delayed and 5%
#    of them lost (NETEM_ANSWERS; the requests all arrive, so the responder is
#    up to 127 atomics ahead of a lost answer when it is asked for again):
#    every original value must come back once, so a repeated atomic must be
#    answered with what it first returned;
#  - RNR: a receive posted 0.5 s late is waited for (rnr_retry 7); with
#    rnr_retry 0 the SEND fails with RNR_RETRY_EXC_ERR;
#  - QP details: after WRITEs and a READ, `rdma resource show qp -dd` shows the
#    rrxe sides' PSNs, READ credits and MSN as they must be;
#  - unsignaled WRITEs: three with nothing after them are retired by the tail
#    probe well before the ACK timeout;
#  - a post behind an RNR-held SEND is handed to the QP's work item, and both
#    complete in order; so is an unsignaled READ on an idle QP, but not a
#    signaled one, and the data of its responses, received in the work item,
#    is placed there, not queued again (rrxe requesters);
#  - an unsignaled WRITE and a READ of what it wrote or a FETCH_ADD, posted
#    together on a clean path (rrxe requesters): the READ's first response or
#    the atomic's ACK acknowledges the WRITE, whose ACK was never asked for, so
#    no response is out of sequence and nothing is sent again;
#  - 16 signaled 64 KiB READs in flight at MTU 1024 on a clean path (rrxe
#    requesters): none is asked for twice (retry_timeouts, in one of two
#    tries: TCG can stall a responder past the timeout); against rrxe1 the
#    answers and the work queues are held so that the ACK time-out expires
#    while the responses wait in the QP's receive queue, and it must be put
#    off;
#  - signaled 64 KiB WRITEs at ACK timeout 12 (16.8 ms) on a clean path (rrxe
#    requesters): 64 packets take longer than that under TCG, but only an
#    ACK asked for may time out, so none does (in one of two tries);
#  - a path whose round trip (netem delay 20 ms each way) is longer than the
#    ACK timeout (timeout 12, 16.8 ms; rrxe requesters): the requester
#    stretches its ACK timeout to the answer time it measures, so after the
#    first few WRITEs and READs none times out, and its tail probe waits for
#    twice that answer time: unsignaled WRITEs a signaled one follows 5 ms
#    later are not probed, a tail with nothing after it is, once;
#  - a tbf shaper whose queue is shorter than an RC window (rrxe requesters; on
#    the responder's side too when it is rrxe): a WRITE and a READ back pass
#    without a packet dropped by the shapers, because an rrxe QP stops at 64
#    packets in the stack (tx_limit_waits);
#  - the local ACK timeout: every packet dropped, a 3-packet SEND fails with
#    RETRY_EXC_ERR after retry_cnt 2, and for rrxe requesters after retry_cnt
#    7, which rdma_rxe takes as "for ever", and at a short timeout only after
#    1 s of silence; an rrxe requester probes the window reduced to 2 once
#    after each timeout (window_probes), with its oldest packet, since nothing
#    of the resend was acknowledged (resend_probes);
#  - remote errors: a bad rkey, a WRITE past the MR and a READ without remote
#    read access give REM_ACCESS_ERR, flush the next WR, and flush the
#    responder's posted receive;
#  - memory windows (rrxe responding): a type 2 window bound by BIND_MW admits
#    a WRITE inside it and refuses one past it inside the MR, and its MR cannot
#    be deregistered while it is bound;
#  - an SRQ (rrxe responding): a QP that goes to the error state in the middle
#    of a SEND flushes the receive it took from the SRQ, leaves the others there
#    and raises QP_LAST_WQE_REACHED.
# Then the counters that say how rrxe recovered (retransmits, NAKs, timeouts).
# The pairings with rdma_rxe post through rdma-core's stock provider (lib.sh's
# rxe_pairings_begin). RRXE_PEERS=rrxe runs only rrxe0 -> rrxe1 and its
# counters (34 cases).
cd "$(dirname "$0")" && . ./lib.sh
# 16 MiB at MTU 4096 is 4,096 packets a phase, ~200 of them lost: every
# recovery path moves, and the CI stage pays ~35 s a fast day, not ~125.
MIB=${RRXE_LOSS_MIB:-16}
MTU=${RRXE_LOSS_MTU:-4096}
RXE_MIB=${RRXE_LOSS_RXE_MIB:-2}
RXE_MTU=${RRXE_LOSS_RXE_MTU:-1024}
# Go-back-N resends the rest of a READ after each lost response, and rdma_rxe's
# responder sends out every response stream it started: through 5% loss, 1 MiB
# READs of rdma_rxe's memory made ~4 packets/s of progress under TCG.
READ_KIB=${RRXE_LOSS_READ_KIB:-64}
# NETEM and NETEM_TO_RXE, the lossy transfer's netem, are lib.sh's.
# Only on the responder's veth, for the atomics: the requests all arrive and
# the answers are delayed and lost, so a repeated atomic is up to 127 behind
# the responder (Documentation/testing.rst).
NETEM_ANSWERS="limit 10000 loss 5% delay 20ms"
# 10 cases for each of 3 pairings, the hand-off, unsignaled-READ, worker-READ,
# WRITE-then-READ, READ-backlog, ACK-spacing, slow-peer, tail-wait, shaper,
# retry_cnt 7 and retry-silence cases and the shapers' drop check (12 lines)
# for the 2 with rrxe requesting, the deep-SQ case for rrxe to rrxe, the
# window, SRQ and forged-packet (WRITE, READ response, repeated READ) cases for
# the 2 with rrxe responding, 7 counter checks.
PLAN=72
PEERS=${RRXE_PEERS:-rrxe rxe}
[[ " $PEERS " == *" rxe "* ]] || PLAN=34
require_rrxe
require_cmd tc
require_python pyverbs
require_module rdma_rxe
ktap_print_header
ktap_set_plan $PLAN
NSA="ip netns exec a"
NSB="ip netns exec b"

# netem NS DEV ARGS...: replace DEV's root qdisc with netem ARGS ("" removes it).
netem() {
	local ns=$1 dev=$2; shift 2
	tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
	[ $# = 0 ] || tc -n "$ns" qdisc add dev "$dev" root netem "$@"
}

# shape NS DEV: a tbf shaper, 1 Mbit/s (slower than a KASAN guest sends), whose
# 96 KiB queue holds fewer 1 KiB packets than an RC window (128) and more than
# an rrxe QP may have in the stack (64).
shape() { tc -n "$1" qdisc replace dev "$2" root tbf rate 1mbit burst 16kb limit 96kb; }

# drops NS DEV: packets DEV's root qdisc dropped.
drops() {
	tc -n "$1" -s qdisc show dev "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); print $(i + 1); exit } }'
}

# rcases A B "CASE=NAME;..." [MIB MTU]: recovery.py cases in one process, A the
# requester, with the GIDs of family $FAMILY (default 4); each case is one TAP
# line.
rcases() {
	local a=$1 b=$2 list=$3 out cases="" item
	shift 3
	IFS=';' read -ra items <<<"$list"
	for item in "${items[@]}"; do cases+=${cases:+,}${item%%=*}; done
	out=$(timeout 1200 python3 ./recovery.py "$a" "$(gid_index "$a" "${FAMILY:-4}")" "$b" \
		"$(gid_index "$b" "${FAMILY:-4}")" "$cases" "$@" 2>&1)
	for item in "${items[@]}"; do
		if grep -qx "PASS ${item%%=*}" <<<"$out"; then ok "${item#*=}"; else not_ok "${item#*=}"; fi
	done
	grep -v '^PASS ' <<<"$out" | sed 's/^/# /' | tail -n 8
}

# pairing A A_NS A_DEV B MIB MTU: every case with A (in netns A_NS on A_DEV) as
# requester, the lossy transfer moving MIB MiB at path MTU MTU.
pairing() {
	local a=$1 ans=$2 adev=$3 b=$4 mib=$5 mtu=$6 p="$1 -> $4"
	# B's answers leave from B's veth.
	local bns=b bdev=veth1 to_a=$NETEM how="netem ($NETEM)"
	[ "$ans" = a ] || { bns=a; bdev=veth0; }
	if [ "$a" = rxe1 ]; then
		to_a=$NETEM_TO_RXE
		how="netem ($NETEM, to rxe1 $NETEM_TO_RXE)"
	fi
	netem "$ans" "$adev" $NETEM
	netem $bns $bdev $to_a
	rcases "$a" "$b" "transfer=$p: $mib MiB WRITE and SEND, $((mib < 16 ? mib : 16)) MiB READ ($READ_KIB KiB) at MTU $mtu through $how" \
		"$mib" "$mtu" "$READ_KIB"
	netem "$ans" "$adev"
	netem $bns $bdev $NETEM_ANSWERS
	rcases "$a" "$b" "atomics=$p: 1024 FETCH_ADDs, 128 in flight, $b's answers through netem ($NETEM_ANSWERS): every original value comes back once"
	netem $bns $bdev
	rcases "$a" "$b" "rnr=$p: RNR NAKs until a late receive, then success;\
rnr0=$p: rnr_retry 0 fails with RNR_RETRY_EXC_ERR;\
bad_rkey=$p: bad rkey gives REM_ACCESS_ERR and flushes;\
out_of_range=$p: WRITE past the MR gives REM_ACCESS_ERR;\
no_read=$p: READ without remote read gives REM_ACCESS_ERR;\
tail=$p: unsignaled WRITEs with nothing after are ACKed well before the ACK timeout;\
details=$p: rdma resource show qp -dd shows the rrxe side's PSNs, credits and MSN"
	if [ "$a" = rrxe0 ]; then
		# Against rrxe1, read_backlog holds its answers (netem on veth1) and the
		# work queues until the ACK deadline has passed.
		local backlog="on a clean path: no ACK time-out asks for one twice" netem=""
		if [ "$b" = rrxe1 ]; then
			backlog="held past the ACK deadline: the time-out is put off, not resent"
			netem="b veth1"
		fi
		# These check where a POST_SEND sends from, so every post must ring:
		# RRXE_DOORBELL=0 has the doorbell provider ask for nothing
		# (Documentation/doorbell.rst; its posts then ring as stock librxe's).
		RRXE_DOORBELL=0 BACKLOG_NETEM=$netem rcases "$a" "$b" "handoff=$p: behind an RNR-held SEND a WRITE goes to the work item, a SEND does only to rdma_rxe, when long (12 packets) or with two QPs busy, and all complete in order;\
unsignaled_read=$p: an unsignaled READ goes to the work item, a signaled one does not, and both land;\
worker_read=$p: READ data received in the work item is placed there, not queued (rcv_deferred);\
write_read=$p: a READ's response or an atomic's ACK acknowledges the unsignaled WRITE before it: nothing is sent again;\
read_backlog=$p: 16 64 KiB READs in flight at MTU 1024 $backlog;\
ack_spacing=$p: 64 KiB WRITEs at ACK timeout 12 on a clean path: an ACK every 64 packets, and no time-out between two"
		netem a veth0 delay 20ms
		netem b veth1 delay 20ms
		rcases "$a" "$b" "slow_peer=$p: round trips longer than the ACK timeout: it stretches to the answer time measured, and the WRs stop timing out;\
tail_wait=$p: on that path the tail probe waits for twice the answer time: none for unsignaled WRITEs a signaled one follows, one for a tail"
		netem a veth0
		netem b veth1
		# The requester's list of pending WQEs; once is enough (20,000 took
		# 50-92 s under TCG).
		[ "$b" != rrxe1 ] ||
			rcases "$a" "$b" "deep_sq=$p: 10,000 WQEs pending at once on one QP all complete, every byte landed"
		# rdma_rxe's responder does not stop at its limit: shape its side only
		# when it is rrxe.
		local shaped="veth0"
		shape a veth0 || diag "tbf on veth0 failed"
		if [ "$b" = rrxe1 ]; then
			shape b veth1 || diag "tbf on veth1 failed"
			shaped+=" and veth1"
		fi
		rcases "$a" "$b" "shaped=$p: WRITE and READ through tbf on $shaped, queue shorter than the RC window: the QP stops at 64 packets in the stack"
		local d0 d1=0
		d0=$(drops a veth0)
		[ "$b" != rrxe1 ] || d1=$(drops b veth1)
		check "$p: the tbf shapers dropped nothing (veth0 $d0, veth1 $d1)" [ "$d0+$d1" = "0+0" ]
		netem a veth0
		netem b veth1
	fi
	if [ "$b" != rxe1 ]; then
		rcases "$a" "$b" "mw_window=$p: a memory window bounds remote access, and pins its MR"
		# wire.py, in A's namespace, plays A's part over IPv6.
		SENDER_NS=$ans FAMILY=6 rcases "$a" "$b" \
			"srq_error=$p: an SRQ QP's error flushes its half-received SEND and raises LAST_WQE_REACHED;\
write_forged=$p: a WRITE whose payload falls short of its RETH length is refused, and its immediate data completes no receive;\
read_forged=$p: READ responses with the wrong lengths or P_Key do not complete a READ, and the right ones do;\
read_repeat=$p: a repeated READ is answered only if it asks for part of the READ at its PSN"
	fi
	netem "$ans" "$adev" loss 100%
	local retry="retry=$p: a silent peer fails with RETRY_EXC_ERR"
	# rdma_rxe retries for ever at retry_cnt 7.
	[ "$a" != rrxe0 ] ||
		retry+=";retry7=$p: retry_cnt 7 is 7 resends, then RETRY_EXC_ERR;\
retry_silence=$p: at timeout 12 the retries run out only after 1 s of silence"
	rcases "$a" "$b" "$retry"
	netem "$ans" "$adev"
}

if ! setup_topology; then
	for _ in $(seq $PLAN); do not_ok "topology set-up failed"; done
	ktap_finished
fi
ip -n a link set veth0 mtu 9000
ip -n b link set veth1 mtu 9000
modprobe rdma_rxe 2>/dev/null
$NSA rdma link add rrxe0 type rrxe netdev veth0 || diag "rdma link add rrxe0 failed"
$NSB rdma link add rrxe1 type rrxe netdev veth1 || diag "rdma link add rrxe1 failed"
pin_neighbours a veth0 b veth1 10.0.0 || diag "permanent neighbours failed"

pairing rrxe0 a veth0 rrxe1 "$MIB" "$MTU"
for c in retransmits rcvd_seq_nak window_probes read_resp_ahead retry_timeouts rcvd_rnr_nak rnr_retries retry_exceeded_err rnr_retry_exceeded_err; do
	diag "rrxe0 $c $(stat_of rrxe0 "$c")"
done
for c in rcv_duplicate rcv_out_of_seq sent_rnr_nak; do
	diag "rrxe1 $c $(stat_of rrxe1 "$c")"
done
check "rrxe0 went back and sent again (retransmits = completer_retry_err, NAKs, timeouts)" sh -c \
	"[ $(stat_of rrxe0 retransmits) -gt 0 ] && [ $(stat_of rrxe0 rcvd_seq_nak) -gt 0 ] && [ $(stat_of rrxe0 retry_timeouts) -gt 0 ] &&
	 [ $(stat_of rrxe0 completer_retry_err) = $(stat_of rrxe0 retransmits) ]"
check "rrxe1 dropped duplicates and out-of-sequence packets, and NAKed the gaps (out_of_seq_request)" sh -c \
	"[ $(stat_of rrxe1 rcv_duplicate) -gt 0 ] && [ $(stat_of rrxe1 rcv_out_of_seq) -gt 0 ] &&
	 [ $(stat_of rrxe1 sent_seq_nak) -gt 0 ] && [ $(stat_of rrxe1 out_of_seq_request) = $(stat_of rrxe1 sent_seq_nak) ]"
check "RNR NAKs were sent, received and waited out" sh -c \
	"[ $(stat_of rrxe1 sent_rnr_nak) -gt 0 ] && [ $(stat_of rrxe0 rcvd_rnr_nak) -gt 0 ] && [ $(stat_of rrxe0 rnr_retries) -gt 0 ]"
check "exhausted retries are counted" sh -c \
	"[ $(stat_of rrxe0 retry_exceeded_err) -gt 0 ] && [ $(stat_of rrxe0 rnr_retry_exceeded_err) -gt 0 ]"
check "unsignaled tails got their ACK by a probe (tail_ack_probes)" \
	[ "$(stat_of rrxe0 tail_ack_probes)" -gt 0 ]
check "rrxe0 kept READ responses that came past a missing one (read_resp_ahead)" \
	[ "$(stat_of rrxe0 read_resp_ahead)" -gt 0 ]
$NSB rdma link del rrxe1

if [ "$PLAN" = 72 ]; then
	$NSB rdma link add rxe1 type rxe netdev veth1 || diag "rdma link add rxe1 failed"
	rxe_pairings_begin
	pairing rrxe0 a veth0 rxe1 "$RXE_MIB" "$RXE_MTU"
	pairing rxe1 b veth1 rrxe0 "$RXE_MIB" "$RXE_MTU"
	rxe_pairings_end
	for c in send_err completer_retry_err rcvd_seq_err retry_exceeded_err; do
		diag "rxe1 $c $(stat_of rxe1 "$c")"
	done
	check "rrxe0 saw no ICRC errors from rdma_rxe" test "$(stat_of rrxe0 rcv_icrc_err)" = 0
	$NSB rdma link del rxe1
fi
$NSA rdma link del rrxe0
ip netns del a
ip netns del b
ktap_finished
