// SPDX-License-Identifier: GPL-2.0

//! Per-device packet counters: what was sent and received, and every reason a
//! received packet was dropped, each counted on its own.

use core::sync::atomic::{AtomicU64, Ordering};
use kernel::rdma::device::StatDesc;

/// A counter; [`DESCS`] has the names users see, in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Counter {
    SentPackets,
    SendErrors,
    /// Packets with a good ICRC for a QP or group of the device (rdma_rxe's
    /// `rcvd_pkts`, which it counts after its header checks too).
    RcvdPackets,
    /// Too short, bad lengths, unknown opcode, bad version or pad.
    RcvMalformed,
    /// ICRC mismatch.
    RcvIcrcError,
    /// No QP with the destination QPN.
    RcvUnknownQp,
    /// The QP's type does not match the opcode's transport.
    RcvWrongTransport,
    /// A packet for a connected QP that is not from its peer's address to its own,
    /// or a datagram not addressed to one of the device's GIDs or a group.
    RcvAddrMismatch,
    /// The QP is not ready to receive.
    RcvQpState,
    /// P_Key or Q_Key mismatch.
    RcvBadKey,
    /// No receive WQE was posted.
    RcvNoRecvWqe,
    /// The message does not fit the receive buffers.
    RcvLengthError,
    /// The receive buffers cannot be written (bad lkey, range or access).
    RcvLocalAccessError,
    /// A transport or feature this version does not handle yet.
    RcvUnsupported,
    /// A request already received (RC: answered with an ACK).
    RcvDuplicate,
    /// A PSN ahead of the expected one (RC: answered with one NAK), or an ACK
    /// for nothing outstanding.
    RcvOutOfSequence,
    /// Invalid request NAKs sent (bad opcode sequence, length, access).
    SentNakInvalid,
    /// Remote access NAKs sent (rkey, range or rights).
    SentNakAccess,
    /// RNR NAKs sent (no receive posted).
    SentRnrNak,
    /// Times the requester went back to send again: a sequence NAK, a local
    /// ACK timeout, an ACK past a READ or atomic whose response was lost, or a
    /// READ response past a missing one (rdma_rxe's `completer_retry_err`).
    /// RNR waits are [`Counter::RnrRetries`].
    Retransmits,
    /// PSN sequence NAKs received.
    RcvdSeqNak,
    /// RNR NAKs received.
    RcvdRnrNak,
    /// Local ACK timeouts that sent again.
    RetryTimeouts,
    /// Local ACK timeouts put off because packets waited in the QP's
    /// receive queue ([`crate::engine::recovery`]).
    AckTimeoutsPutOff,
    /// RNR waits that ended and sent again.
    RnrRetries,
    /// WQEs failed because the ACK timeout ran out of retries.
    RetryExceeded,
    /// WQEs failed because RNR NAKs ran out of retries.
    RnrRetryExceeded,
    /// Responder answers (ACKs, NAKs, READ or atomic responses) dropped because
    /// the QP had too many unsent; the requester's retry recovers them.
    RespTxDropped,
    /// Unacknowledged unsignaled tails whose last packet was sent again, asking
    /// for the ACK the requester had not asked for.
    TailAckProbes,
    /// Full reduced windows with no ACK progress for 1 ms whose last packet was
    /// sent again, asking for an ACK ([`crate::engine::recovery::window_full`]).
    WindowProbes,
    /// READ responses that came while an earlier one of the same READ was
    /// missing, and were placed and kept ([`crate::proto::read_ahead`]),
    /// rather than dropped.
    ReadRespAhead,
    /// User posts handed to the QP's work item rather than sent from the
    /// doorbell (`post_handoff`).
    PostHandoffs,
    /// Received packets queued for their QP's receive work item (READ response
    /// data received outside a work queue's worker, and what arrives behind it).
    RcvDeferred,
    /// Received packets dropped because their QP's receive queue was full.
    RcvQueueFull,
    /// Request packets the requester could not build for want of memory; it
    /// tries again shortly ([`crate::engine::recovery::retry_build`]).
    SendNoMemory,
    /// Times a requester or responder stopped because its QP had
    /// [`crate::obj::qp::TX_IN_FLIGHT_MAX`] packets in the stack.
    TxLimitWaits,
    /// Window probes that sent the oldest unacknowledged packet out of turn
    /// before the last, after a go-back-N that made no progress
    /// ([`crate::engine::req::probe_window`]).
    ResendProbes,
    /// User contexts whose provider took the doorbell (`uapi/rdma/rdma_user_rrxe.h`).
    DbContexts,
    /// Send rings whose `RRXE_SQ_WATCHED` was set: posts to them skip the
    /// system call until the matching disarm.
    DbArms,
    /// `RRXE_SQ_WATCHED` cleared (barrier, then the producer index read again).
    /// Equal to `DbArms` whenever no QP has work in flight.
    DbDisarms,
    /// User WQEs the kernel found in a send ring without a system call.
    DbRechecks,
    /// Disarms whose re-read found WQEs posted while the flag was being
    /// cleared: the race the barrier pair closes.
    DbRaces,
    /// POST_SEND system calls on send rings the doorbell serves.
    DbRings,
    /// Completion events raised for an arm the provider wrote into the CQ ring.
    DbCqEvents,
    /// REQ_NOTIFY_CQ verbs (a user's system call or a kernel consumer's call).
    CqNotifyCalls,
    /// Runs of the doorbell's poller (`doorbell` 2 and 3).
    DbPollRuns,
    /// Idle QPs whose posts the poller found.
    DbPollHits,
    /// Idle QPs whose window ran out, or that the poller let go as it stopped.
    DbPollMisses,
    /// `doorbell=2` poller runs cut short because the CPU was wanted.
    DbPollPreempted,
    /// Nanoseconds the poller ran: its CPU time.
    DbPollNs,
    /// QPs in the poller's set now (a gauge, at most 64).
    DbPollQps,
    /// Bytes sent, IP header to ICRC (rdma_rxe's `sent_bytes`).
    SentBytes,
    /// Bytes received in packets with a good ICRC, IP header to ICRC
    /// (rdma_rxe's `rcvd_bytes`).
    RcvdBytes,
    /// Times the port went from active to down (rdma_rxe's `link_downed`).
    LinkDowned,
    /// PSN sequence NAKs sent: one for the first request ahead of the
    /// expected PSN, none for those behind it until the gap is filled (RC;
    /// rdma_rxe's `out_of_seq_request`).
    SentSeqNak,
    /// Responses (ACKs, NAKs, READ responses, atomic ACKs) from an RC
    /// requester's peer that reached its completer (rdma_rxe's `ack_deferred`).
    RcvdResponses,
    /// SEND WQEs the completer retired, with success or an error, not
    /// flushed (rdma_rxe's `rdma_sends`).
    RdmaSends,
    /// Receive WQEs completed with success (rdma_rxe's `rdma_recvs`).
    RdmaRecvs,
    /// Packets and WQEs an engine put off because a page of an on-demand-paging
    /// MR was not resident ([`crate::obj::mr::Miss`]); each is run again after
    /// the fault.
    OdpDeferred,
    /// Page faults run for on-demand-paging MRs, by the QPs' fault work items.
    OdpFaults,
    /// Of those, faults that failed (nothing mapped there, or no write access):
    /// the access then fails as a protection error.
    OdpFaultErrors,
}

/// How many counters rrxe keeps (`Counter`'s variants).
const COUNTERS: usize = 61;

/// rdma_rxe's names for counters rrxe keeps under names of its own, with the
/// same meaning, so that monitoring keyed on rxe's names works: shown after
/// rrxe's in [`DESCS`], in this order.
const RXE_ALIASES: [Counter; 8] = [
    Counter::RcvDuplicate,
    Counter::RcvdRnrNak,
    Counter::SentRnrNak,
    Counter::RcvdSeqNak,
    Counter::RnrRetryExceeded,
    Counter::SentSeqNak,
    Counter::RcvdResponses,
    Counter::Retransmits,
];

/// Counter names: `Counter`'s, in its order, then [`RXE_ALIASES`]'.
pub(crate) static DESCS: [StatDesc; COUNTERS + RXE_ALIASES.len()] = [
    StatDesc::new(c"sent_pkts"),
    StatDesc::new(c"send_err"),
    StatDesc::new(c"rcvd_pkts"),
    StatDesc::new(c"rcv_malformed"),
    StatDesc::new(c"rcv_icrc_err"),
    StatDesc::new(c"rcv_unknown_qp"),
    StatDesc::new(c"rcv_wrong_transport"),
    StatDesc::new(c"rcv_addr_mismatch"),
    StatDesc::new(c"rcv_qp_state"),
    StatDesc::new(c"rcv_bad_key"),
    StatDesc::new(c"rcv_no_rwqe"),
    StatDesc::new(c"rcv_length_err"),
    StatDesc::new(c"rcv_local_access_err"),
    StatDesc::new(c"rcv_unsupported"),
    StatDesc::new(c"rcv_duplicate"),
    StatDesc::new(c"rcv_out_of_seq"),
    StatDesc::new(c"sent_nak_inv_req"),
    StatDesc::new(c"sent_nak_rem_access"),
    StatDesc::new(c"sent_rnr_nak"),
    StatDesc::new(c"retransmits"),
    StatDesc::new(c"rcvd_seq_nak"),
    StatDesc::new(c"rcvd_rnr_nak"),
    StatDesc::new(c"retry_timeouts"),
    StatDesc::new(c"ack_timeouts_put_off"),
    StatDesc::new(c"rnr_retries"),
    StatDesc::new(c"retry_exceeded_err"),
    StatDesc::new(c"rnr_retry_exceeded_err"),
    StatDesc::new(c"resp_tx_dropped"),
    StatDesc::new(c"tail_ack_probes"),
    StatDesc::new(c"window_probes"),
    StatDesc::new(c"read_resp_ahead"),
    StatDesc::new(c"post_handoffs"),
    StatDesc::new(c"rcv_deferred"),
    StatDesc::new(c"rcv_queue_full"),
    StatDesc::new(c"send_no_mem"),
    StatDesc::new(c"tx_limit_waits"),
    StatDesc::new(c"resend_probes"),
    StatDesc::new(c"db_contexts"),
    StatDesc::new(c"db_arms"),
    StatDesc::new(c"db_disarms"),
    StatDesc::new(c"db_rechecks"),
    StatDesc::new(c"db_races"),
    StatDesc::new(c"db_rings"),
    StatDesc::new(c"db_cq_events"),
    StatDesc::new(c"cq_notify_calls"),
    StatDesc::new(c"db_poll_runs"),
    StatDesc::new(c"db_poll_hits"),
    StatDesc::new(c"db_poll_misses"),
    StatDesc::new(c"db_poll_preempted"),
    StatDesc::new(c"db_poll_ns"),
    StatDesc::new(c"db_poll_qps"),
    StatDesc::new(c"sent_bytes"),
    StatDesc::new(c"rcvd_bytes"),
    StatDesc::new(c"link_downed"),
    StatDesc::new(c"sent_seq_nak"),
    StatDesc::new(c"rcvd_responses"),
    StatDesc::new(c"rdma_sends"),
    StatDesc::new(c"rdma_recvs"),
    StatDesc::new(c"odp_deferred"),
    StatDesc::new(c"odp_faults"),
    StatDesc::new(c"odp_fault_errors"),
    // RXE_ALIASES.
    StatDesc::new(c"duplicate_request"),
    StatDesc::new(c"rcvd_rnr_err"),
    StatDesc::new(c"send_rnr_err"),
    StatDesc::new(c"rcvd_seq_err"),
    StatDesc::new(c"retry_rnr_exceeded_err"),
    StatDesc::new(c"out_of_seq_request"),
    StatDesc::new(c"ack_deferred"),
    StatDesc::new(c"completer_retry_err"),
];

const _: () = assert!(Counter::OdpFaultErrors as usize == COUNTERS - 1);

/// The counters of one device: atomics, bumped from any context without a
/// lock, and read by `rdma statistic`. They live as long as the device.
pub(crate) struct Stats {
    v: [AtomicU64; COUNTERS],
}

impl Stats {
    pub(crate) fn new() -> Self {
        Self {
            v: [const { AtomicU64::new(0) }; COUNTERS],
        }
    }

    pub(crate) fn inc(&self, c: Counter) {
        self.add(c, 1);
    }

    pub(crate) fn add(&self, c: Counter, n: u64) {
        self.v[c as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// Takes `n` off a gauge ([`Counter::DbPollQps`]).
    pub(crate) fn sub(&self, c: Counter, n: u64) {
        self.v[c as usize].fetch_sub(n, Ordering::Relaxed);
    }

    /// The value of one counter.
    pub(crate) fn get(&self, c: Counter) -> u64 {
        self.v[c as usize].load(Ordering::Relaxed)
    }

    /// Reads the counters, in [`DESCS`] order, into `out`.
    pub(crate) fn read_into(&self, out: &mut [u64]) {
        let sources = self
            .v
            .iter()
            .chain(RXE_ALIASES.iter().map(|&c| &self.v[c as usize]));
        for (o, c) in out.iter_mut().zip(sources) {
            *o = c.load(Ordering::Relaxed);
        }
    }
}
