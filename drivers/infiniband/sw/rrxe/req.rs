// SPDX-License-Identifier: GPL-2.0

//! The requester: turns validated send WQEs into packets.
//!
//! Datagram QPs (UD, and GSI from user space) send each WQE as one SEND_ONLY packet
//! with a DETH and complete it once it is handed to the network. Connected QPs come
//! with the reliable transport.

use crate::{
    device::Rrxe,
    mr::SgeCursor,
    net::{self, Path, SendError},
    params,
    proto::{
        hdr::{BthFields, DethFields, ImmDtFields, BTH_DEF_PKEY},
        ip, opcode,
        packet::HeaderFields,
        psn,
    },
    qp::{self, NextSend, GSI_QKEY},
    wqe::{flag, op, SendWqe},
};
use kernel::rdma::verbs::Qp;

/// Sends what the QP has queued.
pub(crate) fn run(qp: &Qp<Rrxe>) {
    while let NextSend::Send(w, psn) = qp::next_send(qp) {
        let status = send_datagram(qp, &w, psn);
        qp::send_done(qp, &w, status);
    }
}

/// Sends one datagram WQE; returns its completion status.
fn send_datagram(qp: &Qp<Rrxe>, w: &SendWqe, psn: u32) -> u32 {
    let dev = qp.device();
    let Some(ud) = w.ud else {
        return qp::WC_LOC_QP_OP_ERR;
    };
    // The AH was checked at fetch time; it may have been destroyed since.
    let Some(ah) = dev.data().ahs.get(ud.ah_num) else {
        return qp::WC_LOC_QP_OP_ERR;
    };
    let Ok(path) = Path::from_av(&ah.attr) else {
        return qp::WC_LOC_QP_OP_ERR;
    };
    // A datagram over the port MTU completes without being sent (C10-93.1.1).
    let mtu = psn::ib_mtu_bytes(params::active_mtu(dev.netdev().mtu()) as u8).unwrap_or(256);
    if w.length > mtu {
        return crate::cq::WC_SUCCESS;
    }
    let with_imm = w.opcode == op::SEND_WITH_IMM;
    let qpn = qp.qp_num();
    let f = HeaderFields {
        bth: BthFields {
            opcode: if with_imm {
                opcode::UD_SEND_ONLY_WITH_IMMEDIATE
            } else {
                opcode::UD_SEND_ONLY
            },
            se: w.flags & flag::SOLICITED != 0,
            pkey: BTH_DEF_PKEY,
            dest_qpn: ud.remote_qpn,
            psn,
            ..BthFields::default()
        },
        deth: DethFields {
            qkey: if qpn == 1 { GSI_QKEY } else { ud.remote_qkey },
            src_qpn: qpn,
            ..DethFields::default()
        },
        immdt: ImmDtFields {
            imm: u32::from_be(w.ex),
        },
        ..HeaderFields::default()
    };
    let pd_id = qp.data().pd_id;
    let r = net::send(
        dev,
        &path,
        ip::qp_sport(qpn),
        &f,
        w.length as usize,
        |payload| {
            if w.flags & flag::INLINE != 0 {
                let src = w
                    .inline_data
                    .get(..payload.len())
                    .ok_or(SendError::Payload)?;
                payload.copy_from_slice(src);
                Ok(())
            } else {
                SgeCursor::new(dev.data(), pd_id, &w.sgl)
                    .read(payload)
                    .map_err(|_| SendError::Payload)
            }
        },
    );
    match r {
        Ok(()) => crate::cq::WC_SUCCESS,
        Err(SendError::Payload) => qp::WC_LOC_PROT_ERR,
        // No route or no memory for the packet: a local error, as in rxe.
        Err(SendError::Net(_)) => qp::WC_LOC_QP_OP_ERR,
    }
}
