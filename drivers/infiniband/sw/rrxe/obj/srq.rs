// SPDX-License-Identifier: GPL-2.0

//! Shared receive queues: an rxe-compatible ring of `struct rxe_recv_wqe`, resizable,
//! with the limit event armed by `modify_srq`.

use crate::abi::{CreateSrqResp, MmapInfo, ModifySrqCmd};
use crate::{
    abi::{self},
    obj::{pool::Pool, ring::Ring, wqe, Rrxe},
    params,
};
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        pd::Pd,
        srq::{Srq, SrqAttr, SrqAttrField, SrqAttrMask, SrqInitAttr, SrqType},
        uverbs::{write_user, UData},
        wr::RecvWr,
    },
    sync::{Arc, SpinLockIrq},
};

/// An SRQ's state behind its lock: its ring and limit.
struct SrqInner {
    /// `None` once the SRQ is destroyed: a destroyed QP's queued work item may
    /// hold the SRQ longer than the user context its ring is mapped into.
    ring: Option<Ring>,
    limit: u32,
    /// Where a receive WQE is copied to be parsed: the part of a slot a parse
    /// reads, allocated once.
    fetch_buf: KVec<u8>,
}

/// The driver's SRQ.
///
/// Locking: its state is a `SpinLockIrq`, taken alone by `post_srq_recv` and
/// `modify_srq`, and under a QP's lock when the responder takes a receive WQE.
///
/// Lifetime: from `create_srq`, in the device's SRQ pool until `destroy_srq`;
/// an `Arc` that each QP on it also holds, so the ring is taken out at destroy
/// and the rest may live until the last QP goes.
#[pin_data]
pub(crate) struct RrxeSrq {
    num: u32,
    max_sge: u32,
    #[pin]
    state: SpinLockIrq<SrqInner>,
}

pub(crate) fn create(
    srqs: &Pool<RrxeSrq>,
    _pd: &Pd<Rrxe>,
    a: &mut SrqInitAttr,
    udata: Option<&UData>,
) -> Result<Arc<RrxeSrq>> {
    if a.srq_type != SrqType::Basic {
        return Err(EOPNOTSUPP);
    }
    let at = &mut a.attr;
    if at.max_wr == 0 || at.max_wr > params::MAX_SRQ_WR || at.max_sge > params::MAX_SRQ_SGE {
        return Err(EINVAL);
    }
    at.max_sge = at.max_sge.max(1);
    if at.srq_limit > at.max_wr {
        return Err(EINVAL);
    }
    if let Some(u) = udata {
        if u.out_len() < size_of::<CreateSrqResp>() {
            return Err(EINVAL);
        }
    }
    let mut ring = Ring::new(at.max_wr, wqe::recv_slot_len(at.max_sge))?;
    let mut resp = CreateSrqResp {
        mi: MmapInfo::default(),
        srq_num: 0,
        reserved: 0,
    };
    if let Some(u) = udata {
        resp.mi = ring.publish(u)?;
    }
    at.max_wr = ring.layout().capacity();
    let fetch_buf = KVec::from_elem(0u8, wqe::recv_slot_len(at.max_sge), GFP_KERNEL)?;
    let (max_sge, limit) = (at.max_sge, at.srq_limit);
    let (num, srq) = srqs.insert_with(GFP_KERNEL, |num| {
        Arc::pin_init(
            pin_init!(RrxeSrq {
                num,
                max_sge,
                state <- new_spinlock_irq!(SrqInner {
                    ring: Some(ring),
                    limit,
                    fetch_buf
                }),
            }),
            GFP_KERNEL,
        )
    })?;
    // The number is informational for user space (XRC); lookups go through the pool.
    resp.srq_num = num;
    if let Some(u) = udata {
        if let Err(e) = u.respond(&resp) {
            srqs.remove(num);
            return Err(e);
        }
    }
    Ok(srq)
}

pub(crate) fn modify(
    srq: &Srq<Rrxe>,
    a: &SrqAttr,
    mask: SrqAttrMask,
    udata: Option<&UData>,
) -> Result {
    if mask.unknown_bits() != 0 {
        return Err(EOPNOTSUPP);
    }
    let cmd = match udata {
        Some(u) => u.copy_in::<ModifySrqCmd>(size_of::<ModifySrqCmd>())?,
        None => ModifySrqCmd::default(),
    };
    let inner = srq.data();
    if mask.contains(SrqAttrField::MaxWr) {
        if a.max_wr == 0 || a.max_wr > params::MAX_SRQ_WR {
            return Err(EINVAL);
        }
        let mut new = Ring::new(a.max_wr, wqe::recv_slot_len(inner.max_sge))?;
        let mi = match udata {
            Some(u) if cmd.mmap_info_addr != 0 => Some(new.publish(u)?),
            _ => None,
        };
        if let Some(mi) = mi {
            // rdma-core's rxe provider passes where to write the new mapping. Done
            // before the swap, so a bad address leaves the old ring in place (the
            // provider only maps the new one when the verb succeeds).
            write_user(cmd.mmap_info_addr, &mi)?;
        }
        {
            let mut st = inner.state.lock();
            let limit = if mask.contains(SrqAttrField::Limit) {
                a.srq_limit
            } else {
                st.limit
            };
            if limit > new.layout().capacity() {
                return Err(EINVAL);
            }
            let ring = st.ring.as_mut().ok_or(EINVAL)?;
            ring.move_entries(&mut new, false, wqe::recv_slot_len(inner.max_sge))?;
            core::mem::swap(ring, &mut new);
            st.limit = limit;
        }
        // The old ring is freed here, outside the lock (it may sleep).
        drop(new);
        return Ok(());
    }
    let mut st = inner.state.lock();
    if a.srq_limit > st.ring.as_ref().ok_or(EINVAL)?.layout().capacity() {
        return Err(EINVAL);
    }
    st.limit = a.srq_limit;
    Ok(())
}

pub(crate) fn query(srq: &Srq<Rrxe>) -> Result<SrqAttr> {
    let inner = srq.data();
    let st = inner.state.lock();
    Ok(SrqAttr {
        max_wr: st.ring.as_ref().ok_or(EINVAL)?.layout().capacity(),
        max_sge: inner.max_sge,
        srq_limit: st.limit,
    })
}

pub(crate) fn post_recv(srq: &Srq<Rrxe>, wr: &RecvWr<'_>) -> Result {
    let inner = srq.data();
    if wr.sgl.len() > inner.max_sge as usize {
        return Err(EINVAL);
    }
    let mut buf = [0u8; abi::RECV_WQE_HDR + abi::SGE_SIZE * params::MAX_SRQ_SGE as usize];
    let n = abi::RECV_WQE_HDR + wr.sgl.len() * abi::SGE_SIZE;
    wqe::encode_recv(wr.wr_id, wr.sgl, &mut buf[..n])?;
    inner
        .state
        .lock()
        .ring
        .as_mut()
        .ok_or(EINVAL)?
        .post(&buf[..n])
}

impl RrxeSrq {
    /// Takes the oldest posted receive WQE, copied out of the ring and validated.
    /// The flag says the armed limit was crossed (and is now disarmed): the caller
    /// raises `IB_EVENT_SRQ_LIMIT_REACHED` once it holds no lock.
    pub(crate) fn take(&self) -> Option<(u64, Result<wqe::RecvWqe, wqe::Bad>, bool)> {
        let mut guard = self.state.lock();
        let st = &mut *guard;
        let ring = st.ring.as_mut()?;
        let slot = &mut st.fetch_buf[..];
        if !matches!(ring.peek_posted(slot), Ok(true)) {
            return None;
        }
        let (wr_id, w) = wqe::parse_recv(slot, self.max_sge);
        let _ = ring.consume();
        let limit_reached = st.limit != 0 && ring.posted_count() < st.limit;
        if limit_reached {
            st.limit = 0;
        }
        Some((wr_id, w, limit_reached))
    }
}

pub(crate) fn destroy(srqs: &Pool<RrxeSrq>, srq: &Srq<Rrxe>) -> Result {
    // The ring's mmap entry belongs to the user context, which may go as soon
    // as this returns; a QP's queued work item can hold the SRQ longer.
    let ring = srq.data().state.lock().ring.take();
    // Outside the lock: freeing it may sleep.
    drop(ring);
    srqs.remove(srq.data().num);
    Ok(())
}
