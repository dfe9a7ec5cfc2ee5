// SPDX-License-Identifier: GPL-2.0

//! The responder: places incoming requests in receive buffers and completes them.
//!
//! Datagrams (UD, and GSI from user space): the receive buffer gets the 40-byte GRH
//! slot (rxe's layout: the IPv4 header after 20 zero bytes, or the IPv6 header),
//! then the payload. A datagram with no receive posted, or too long for it, is
//! dropped, as on a real network.

use crate::{
    cq,
    device::Rrxe,
    mr::SgeCursor,
    params,
    proto::{ip, packet::Packet, qp_state::QpState},
    qp::{self, GSI_QKEY},
    stats::Counter,
    wqe::{self, qpt},
};
use kernel::{prelude::*, rdma::verbs::Qp};

/// `IB_WC_*` flags.
const WC_GRH: u32 = 1;
const WC_WITH_IMM: u32 = 1 << 1;
/// The transport of an opcode (its top three bits).
const TRANSPORT_RC: u8 = 0;
const TRANSPORT_UC: u8 = 1;
const TRANSPORT_UD: u8 = 3;

/// Handles a checked packet addressed to `qp`.
pub(crate) fn receive(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let transport = pkt.bth.opcode() >> 5;
    match (qp.data().qp_type, transport) {
        (qpt::UD | qpt::GSI, TRANSPORT_UD) => receive_datagram(qp, pkt, ip),
        (qpt::RC, TRANSPORT_RC) | (qpt::UC, TRANSPORT_UC) => Err(Counter::RcvUnsupported),
        _ => Err(Counter::RcvWrongTransport),
    }
}

fn receive_datagram(qp: &Qp<Rrxe>, pkt: &Packet<'_>, ip: &[u8]) -> Result<(), Counter> {
    let deth = pkt.deth.ok_or(Counter::RcvMalformed)?;
    // rxe's `pkey_match` against the only P_Key, 0xffff.
    if pkt.bth.pkey() & 0x7fff != 0x7fff {
        return Err(Counter::RcvBadKey);
    }
    let grh = ip::grh_from_ip(ip).ok_or(Counter::RcvMalformed)?;
    let total = pkt.payload.len() + ip::GRH_BYTES;
    let inner = qp.data();
    let dev = qp.device().data();
    let (wc, failed) = {
        let mut st = inner.state.lock();
        if !matches!(
            qp::cur_state(&st),
            QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
        ) {
            return Err(Counter::RcvQpState);
        }
        let qkey = if qp.qp_num() == 1 {
            GSI_QKEY
        } else {
            st.attr.qkey
        };
        if deth.qkey() != qkey {
            return Err(Counter::RcvBadKey);
        }
        // Receives from a shared receive queue come with the connected transports.
        let rq = st.rq.as_mut().ok_or(Counter::RcvUnsupported)?;
        let mut slot = [0u8; wqe::RECV_WQE_HDR + wqe::SGE_SIZE * params::MAX_SGE as usize];
        let elem = rq.ring.layout().elem_size().min(slot.len());
        let slot = &mut slot[..elem];
        if !matches!(rq.ring.peek_posted(slot), Ok(true)) {
            return Err(Counter::RcvNoRecvWqe);
        }
        let (wr_id, parsed) = wqe::parse_recv(slot, rq.max_sge);
        let mut wc = qp::wc(qp, wr_id, cq::WC_SUCCESS, qp::WC_RECV);
        let failed = match parsed {
            // A malformed receive WQE fails the QP, as a malformed send WQE does.
            Err(_) => {
                wc.status = qp::WC_LOC_QP_OP_ERR;
                true
            }
            Ok(w) => {
                if total > w.length as usize {
                    return Err(Counter::RcvLengthError);
                }
                let mut to = SgeCursor::new(dev, inner.pd_id, &w.sgl);
                if to.write(&grh).and_then(|()| to.write(pkt.payload)).is_err() {
                    dev.stats.inc(Counter::RcvLocalAccessError);
                    wc.status = qp::WC_LOC_PROT_ERR;
                    true
                } else {
                    wc.byte_len = total as u32;
                    wc.src_qp = deth.src_qpn();
                    wc.wc_flags = WC_GRH;
                    if let Some(imm) = pkt.immdt {
                        wc.wc_flags |= WC_WITH_IMM;
                        wc.ex = u32::from_ne_bytes(imm.raw());
                    }
                    wc.network_hdr_type = if ip.first().map(|b| b >> 4) == Some(6) {
                        3
                    } else {
                        2
                    };
                    false
                }
            }
        };
        let _ = rq.ring.consume();
        (wc, failed)
    };
    let _ = cq::post(qp.recv_cq(), &wc, pkt.bth.se());
    if failed {
        qp::fail(qp);
    }
    Ok(())
}
