// SPDX-License-Identifier: GPL-2.0

//! The verbs rrxe implements: `kernel::rdma::Driver` and its object-level
//! `Operations` for [`Rrxe`], each op handed to the object or engine that
//! does it.

use crate::{
    abi, engine,
    obj::{
        ah::{self, RrxeAh},
        cq::{self, RrxeCq},
        device::{self, RrxeDevice},
        mr::{self, RrxeMr},
        mw::{self, RrxeMw},
        pd::{self, RrxePd, RrxeUContext},
        qp::{self, RrxeQp},
        srq::{self, RrxeSrq},
        Rrxe,
    },
    stats,
};
use kernel::{
    prelude::*,
    rdma::{
        self,
        ah::{Ah, AhAttr},
        attr::{DeviceAttr, DriverId, LinkLayer, Mtu, PortAttr, PortImmutable},
        cq::{Cq, CqInitAttr, CqNotifyFlags},
        device::{MadResult, StatDesc, MAD_SIZE},
        mr::{AccessFlags, Mr, MrKeys, MrType},
        mw::{Mw, MwType},
        pd::Pd,
        qp::{Qp, QpAttr, QpAttrMask, QpInitAttr},
        restrack::DriverDetails,
        srq::{Srq, SrqAttr, SrqAttrMask, SrqInitAttr},
        sw::QpTable,
        uverbs::{UData, WriteCmd, WriteCmds},
        wr::{RecvWr, SendWr, Wc},
    },
    sync::Arc,
};

#[vtable]
impl rdma::Driver for Rrxe {
    type Data = RrxeDevice;

    const DRIVER_ID: DriverId = DriverId::Rxe;
    const UVERBS_ABI_VERSION: u32 = abi::UVERBS_ABI_VERSION;
    /// rdma-core's rxe provider rings its send queue's doorbell with `POST_SEND`
    /// and arms its CQs with `REQ_NOTIFY_CQ`.
    const LEGACY_WRITE_CMDS: WriteCmds =
        WriteCmds::from_bits(WriteCmd::PostSend as u64 | WriteCmd::ReqNotifyCq as u64);
    const HW_STATS: &'static [StatDesc] = &stats::DESCS;

    fn hw_stats(dev: &rdma::Device<Self>, _port: u32, out: &mut [u64]) {
        dev.data().stats.read_into(out);
    }

    fn with_devices<R>(f: impl FnOnce(&mut rdma::DeviceList<Self>) -> R) -> R {
        f(&mut crate::DEVICES.lock())
    }

    fn query_device(dev: &rdma::Device<Self>, a: &mut DeviceAttr) -> Result {
        *a = device::attributes(dev);
        Ok(())
    }

    fn query_port(dev: &rdma::Device<Self>, port_num: u32, a: &mut PortAttr) -> Result {
        *a = device::port_attributes(dev, port_num)?;
        Ok(())
    }

    fn query_pkey(_dev: &rdma::Device<Self>, port_num: u32, index: u16) -> Result<u16> {
        device::pkey(port_num, index)
    }

    fn port_immutable(_dev: &rdma::Device<Self>, port_num: u32) -> Result<PortImmutable> {
        device::port_immutable(port_num)
    }

    fn link_layer(_dev: &rdma::Device<Self>, _port_num: u32) -> LinkLayer {
        // Every port of a RoCE provider is Ethernet.
        LinkLayer::Ethernet
    }

    fn process_mad(
        dev: &rdma::Device<Self>,
        port_num: u32,
        in_mad: &[u8; MAD_SIZE],
        out_mad: &mut [u8; MAD_SIZE],
    ) -> MadResult {
        device::process_mad(dev, port_num, in_mad, out_mad)
    }
}

#[vtable]
impl rdma::ucontext::Operations for Rrxe {
    type UContext = RrxeUContext;

    fn alloc_ucontext(dev: &rdma::Device<Self>, udata: Option<&UData>) -> Result<RrxeUContext> {
        pd::alloc_ucontext(dev, udata)
    }

    /// Nothing to stop: what of a context reaches into the process is its
    /// objects (rings the process maps from kernel memory, MRs' pinned pages),
    /// which the core destroys next, each through its destroy op. Having the op
    /// lets the core take a device from its users: rmmod, `rdma link del` and
    /// netdev removal while applications run, and netns moves.
    fn disassociate_ucontext(_dev: &rdma::Device<Self>, _ctx: &RrxeUContext) {}
}

impl rdma::pd::Operations for Rrxe {
    type Pd = RrxePd;

    fn alloc_pd(dev: &rdma::Device<Self>, udata: Option<&UData>) -> Result<RrxePd> {
        UData::expect_empty(udata)?;
        Ok(RrxePd {
            id: dev.data().new_pd_id(),
        })
    }
}

#[vtable]
impl rdma::cq::Operations for Rrxe {
    type Cq = Arc<RrxeCq>;

    fn create_cq(
        dev: &rdma::Device<Self>,
        attr: &CqInitAttr,
        udata: Option<&UData>,
    ) -> Result<(Arc<RrxeCq>, u32)> {
        cq::create(dev, attr, udata)
    }

    fn resize_cq(c: &Cq<Self>, cqe: u32, udata: Option<&UData>) -> Result<u32> {
        cq::resize(c, cqe, udata)
    }

    fn destroy_cq(c: &Cq<Self>) -> Result {
        cq::destroy(c)
    }

    fn poll_cq(c: &Cq<Self>, wc: &mut [Wc]) -> usize {
        cq::poll(c, wc)
    }

    fn peek_cq(c: &Cq<Self>, n: usize) -> usize {
        cq::peek(c, n)
    }

    fn req_notify_cq(c: &Cq<Self>, flags: CqNotifyFlags) -> Result<bool> {
        cq::req_notify(c, flags)
    }
}

#[vtable]
impl rdma::qp::Operations for Rrxe {
    type Qp = Arc<RrxeQp>;

    fn create_qp(
        pd: &Pd<Self>,
        attr: &mut QpInitAttr,
        _send_cq: &Cq<Self>,
        _recv_cq: &Cq<Self>,
        srq: Option<&Srq<Self>>,
        udata: Option<&UData>,
    ) -> Result<(Arc<RrxeQp>, u32)> {
        qp::control::create(pd, attr, srq, udata)
    }

    fn modify_qp(q: &Qp<Self>, attr: &QpAttr, mask: QpAttrMask, _udata: Option<&UData>) -> Result {
        qp::control::modify(q, attr, mask, Mtu::Mtu4096)
    }

    fn query_qp(q: &Qp<Self>, attr: &mut QpAttr, init: &mut QpInitAttr) -> Result {
        qp::control::query(q, attr, init)
    }

    fn fill_qp_details(q: &Qp<Self>, out: &mut DriverDetails<'_>) -> Result {
        qp::control::details(q, out)
    }

    fn qp_table(dev: &rdma::Device<Self>) -> &QpTable<Self> {
        dev.data().qp_table()
    }

    fn destroy_qp(q: &Qp<Self>) -> Result {
        // Before its number can be reused.
        let dev = q.device();
        dev.data().mcast.detach_all(dev.netdev(), q.qp_num());
        qp::control::destroy(q)
    }

    fn post_send(q: &Qp<Self>, wr: &SendWr<'_, Self>) -> Result {
        qp::post::post_send(q, wr)
    }

    /// The user QP's doorbell: new WQEs are in its mmapped send queue. WRs a
    /// process passes in the command itself are ignored, as rdma_rxe does.
    fn post_send_user(q: &Qp<Self>, _has_wrs: bool) -> Result {
        engine::doorbell(q)
    }

    fn post_recv(q: &Qp<Self>, wr: &RecvWr<'_>) -> Result {
        // A user QP's receive queue is its mmapped ring, filled by user space.
        if q.is_user() {
            return Err(EINVAL);
        }
        qp::post::post_recv(q, wr)
    }

    fn attach_mcast(q: &Qp<Self>, gid: &[u8; 16]) -> Result {
        let dev = q.device();
        dev.data().mcast.attach(dev.netdev(), q, gid)
    }

    fn detach_mcast(q: &Qp<Self>, gid: &[u8; 16]) -> Result {
        let dev = q.device();
        dev.data().mcast.detach(dev.netdev(), q.qp_num(), gid)
    }
}

#[vtable]
impl rdma::srq::Operations for Rrxe {
    type Srq = Arc<RrxeSrq>;

    fn create_srq(
        pd: &Pd<Self>,
        attr: &mut SrqInitAttr,
        udata: Option<&UData>,
    ) -> Result<Arc<RrxeSrq>> {
        srq::create(&pd.device().data().srqs, pd, attr, udata)
    }

    fn modify_srq(
        s: &Srq<Self>,
        attr: &SrqAttr,
        mask: SrqAttrMask,
        udata: Option<&UData>,
    ) -> Result {
        srq::modify(s, attr, mask, udata)
    }

    fn query_srq(s: &Srq<Self>) -> Result<SrqAttr> {
        srq::query(s)
    }

    fn destroy_srq(s: &Srq<Self>) -> Result {
        srq::destroy(&s.device().data().srqs, s)
    }

    fn post_srq_recv(s: &Srq<Self>, wr: &RecvWr<'_>) -> Result {
        // As for QPs: a user SRQ's ring belongs to user space.
        if s.is_user() {
            return Err(EINVAL);
        }
        srq::post_recv(s, wr)
    }
}

#[vtable]
impl rdma::ah::Operations for Rrxe {
    type Ah = Arc<RrxeAh>;

    fn create_ah(
        pd: &Pd<Self>,
        attr: &AhAttr,
        sleepable: bool,
        udata: Option<&UData>,
    ) -> Result<Arc<RrxeAh>> {
        ah::create(&pd.device().data().ahs, pd, attr, sleepable, udata)
    }

    fn query_ah(a: &Ah<Self>) -> Result<AhAttr> {
        Ok(ah::query(a))
    }

    fn destroy_ah(a: &Ah<Self>) -> Result {
        ah::destroy(&a.device().data().ahs, a)
    }
}

#[vtable]
impl rdma::mr::Operations for Rrxe {
    type Mr = Arc<RrxeMr>;

    fn get_dma_mr(pd: &Pd<Self>, access: AccessFlags) -> Result<(Arc<RrxeMr>, MrKeys)> {
        mr::get_dma(&pd.device().data().keys, pd, access)
    }

    fn reg_user_mr(
        pd: &Pd<Self>,
        start: u64,
        length: u64,
        iova: u64,
        access: AccessFlags,
        udata: Option<&UData>,
    ) -> Result<(Arc<RrxeMr>, MrKeys)> {
        mr::reg_user(
            &pd.device().data().keys,
            pd,
            start,
            length,
            iova,
            access,
            udata,
        )
    }

    fn alloc_mr(pd: &Pd<Self>, mr_type: MrType, max_num_sg: u32) -> Result<(Arc<RrxeMr>, MrKeys)> {
        mr::alloc(&pd.device().data().keys, pd, mr_type, max_num_sg)
    }

    fn mr_map_begin(m: &Mr<Self>) -> Result {
        mr::map_begin(m)
    }

    fn mr_set_page(m: &Mr<Self>, addr: u64) -> Result {
        mr::set_page(m, addr)
    }

    fn mr_map_end(m: &Mr<Self>, iova: u64, length: u64, page_size: u32) -> Result {
        mr::map_end(m, iova, length, page_size)
    }

    fn dereg_mr(m: &Mr<Self>) -> Result {
        mr::dereg(&m.device().data().keys, m)
    }
}

#[vtable]
impl rdma::mw::Operations for Rrxe {
    type Mw = Arc<RrxeMw>;

    fn alloc_mw(
        pd: &Pd<Self>,
        mw_type: MwType,
        udata: Option<&UData>,
    ) -> Result<(Arc<RrxeMw>, u32)> {
        mw::alloc(&pd.device().data().keys, pd, mw_type, udata)
    }

    fn dealloc_mw(m: &Mw<Self>) -> Result {
        mw::dealloc(&m.device().data().keys, m)
    }
}
