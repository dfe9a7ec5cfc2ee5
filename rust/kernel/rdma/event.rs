// SPDX-License-Identifier: GPL-2.0

//! Asynchronous events (`struct ib_event`): what a provider tells consumers
//! outside of completions.
//!
//! Port events go to every registered client through
//! [`Device::dispatch_port_event`](super::Device::dispatch_port_event) (C
//! `ib_dispatch_event`); CQ, QP and SRQ events go to the object's consumer through
//! `raise` on [`Cq`](super::cq::Cq::raise), [`Qp`](super::qp::Qp::raise) and
//! [`Srq`](super::srq::Srq::raise), which call the handler the consumer gave at
//! creation.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use crate::bindings;

c_enum! {
    /// The kind of an asynchronous event (`enum ib_event_type`).
    pub enum EventType: u32 {
        /// `IB_EVENT_CQ_ERR`: CQ overrun.
        CqErr = bindings::ib_event_type_IB_EVENT_CQ_ERR,
        /// `IB_EVENT_QP_FATAL`: the QP went to the error state on its own.
        QpFatal = bindings::ib_event_type_IB_EVENT_QP_FATAL,
        /// `IB_EVENT_QP_REQ_ERR`: invalid request on the receive side.
        QpReqErr = bindings::ib_event_type_IB_EVENT_QP_REQ_ERR,
        /// `IB_EVENT_QP_ACCESS_ERR`: access violation.
        QpAccessErr = bindings::ib_event_type_IB_EVENT_QP_ACCESS_ERR,
        /// `IB_EVENT_COMM_EST`: first packet received in RTR.
        CommEst = bindings::ib_event_type_IB_EVENT_COMM_EST,
        /// `IB_EVENT_SQ_DRAINED`: the send queue drained (SQD).
        SqDrained = bindings::ib_event_type_IB_EVENT_SQ_DRAINED,
        /// `IB_EVENT_PATH_MIG`.
        PathMig = bindings::ib_event_type_IB_EVENT_PATH_MIG,
        /// `IB_EVENT_PATH_MIG_ERR`.
        PathMigErr = bindings::ib_event_type_IB_EVENT_PATH_MIG_ERR,
        /// `IB_EVENT_DEVICE_FATAL`.
        DeviceFatal = bindings::ib_event_type_IB_EVENT_DEVICE_FATAL,
        /// `IB_EVENT_PORT_ACTIVE`.
        PortActive = bindings::ib_event_type_IB_EVENT_PORT_ACTIVE,
        /// `IB_EVENT_PORT_ERR`.
        PortErr = bindings::ib_event_type_IB_EVENT_PORT_ERR,
        /// `IB_EVENT_LID_CHANGE`.
        LidChange = bindings::ib_event_type_IB_EVENT_LID_CHANGE,
        /// `IB_EVENT_PKEY_CHANGE`.
        PkeyChange = bindings::ib_event_type_IB_EVENT_PKEY_CHANGE,
        /// `IB_EVENT_SM_CHANGE`.
        SmChange = bindings::ib_event_type_IB_EVENT_SM_CHANGE,
        /// `IB_EVENT_SRQ_ERR`.
        SrqErr = bindings::ib_event_type_IB_EVENT_SRQ_ERR,
        /// `IB_EVENT_SRQ_LIMIT_REACHED`: the SRQ fell below its limit.
        SrqLimitReached = bindings::ib_event_type_IB_EVENT_SRQ_LIMIT_REACHED,
        /// `IB_EVENT_QP_LAST_WQE_REACHED`: last WQE of a QP attached to an SRQ.
        QpLastWqeReached = bindings::ib_event_type_IB_EVENT_QP_LAST_WQE_REACHED,
        /// `IB_EVENT_CLIENT_REREGISTER`.
        ClientReregister = bindings::ib_event_type_IB_EVENT_CLIENT_REREGISTER,
        /// `IB_EVENT_GID_CHANGE`.
        GidChange = bindings::ib_event_type_IB_EVENT_GID_CHANGE,
        /// `IB_EVENT_WQ_FATAL`.
        WqFatal = bindings::ib_event_type_IB_EVENT_WQ_FATAL,
        /// `IB_EVENT_DEVICE_SPEED_CHANGE`.
        DeviceSpeedChange = bindings::ib_event_type_IB_EVENT_DEVICE_SPEED_CHANGE,
    }
}
