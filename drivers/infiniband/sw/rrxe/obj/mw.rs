// SPDX-License-Identifier: GPL-2.0

//! Memory windows: allocation, binding (the BIND_MW send work request, which is
//! also how rdma-core's `ibv_bind_mw` binds a type 1 window), invalidation (LOCAL_INV
//! and SEND_WITH_INV, type 2 only) and remote access through a bound window.
//!
//! rkeys are `index << 8 | key byte` like MR keys, from their own index range above
//! the MRs' (rxe's `RXE_MIN_MW_INDEX`), so an rkey says which pool it belongs to.
//! The key byte is the one the binder chose, as in rxe.
//!
//! A bound window holds its MR, and the MR counts its windows: `dereg_mr` of an MR
//! with bound windows fails with `EBUSY` (rxe: `EINVAL`), so the MR is never freed
//! from the data path, where a window may be unbound.
//!
//! Beyond rxe: an access through a window must lie inside the window, not only
//! inside its MR (rxe checks only the MR's range).

use crate::{
    abi::{access, qp_type as qpt},
    obj::{
        mr::{self, Keys, RrxeMr},
        pd::PdId,
        wqe::Bad,
        Rrxe,
    },
};
use core::sync::atomic::Ordering;
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        mw::{Mw, MwType},
        pd::Pd,
        uverbs::UData,
    },
    sync::{Arc, SpinLockIrq},
};

/// Access bits a bind may carry: an MR's (rxe's `RXE_ACCESS_SUPPORTED_MW`); only the
/// remote ones grant anything. Not `IB_ZERO_BASED`: windows addressed from 0 are not
/// offered (rxe allows them for type 2; rdma-core refuses them for type 1).
const MW_ACCESS: u32 = mr::ACCESS_SUPPORTED;

/// What a window is bound to: [`RrxeMw`]'s state behind its lock.
#[derive(Default)]
pub(crate) struct Binding {
    /// The window's current rkey (the key byte changes with each bind).
    rkey: u32,
    /// The MR and range it grants access to; `None` while unbound (free).
    mr: Option<Arc<RrxeMr>>,
    addr: u64,
    length: u64,
    access: u32,
    /// The QP (its serial, not its reusable QPN) a type 2 window is bound
    /// through; only that QP may use it.
    qp_serial: u64,
    /// `dealloc_mw` ran: the window is out of the pool and never binds again, so a
    /// bind racing the dealloc cannot leave its MR counted for good.
    dead: bool,
}

/// The driver's MW.
///
/// Locking: its [`Binding`] is a `SpinLockIrq`, taken alone or under a QP's
/// lock (a BIND_MW or LOCAL_INV in the requester, a remote access in the
/// responder); no lock is taken under it.
///
/// Lifetime: in the device's key table from `alloc_mw` to `dealloc_mw`, and as
/// long after as a lookup holds it. A bound window holds its MR.
#[pin_data]
pub(crate) struct RrxeMw {
    index: u32,
    pd_id: PdId,
    mw_type: MwType,
    #[pin]
    bind: SpinLockIrq<Binding>,
}

pub(crate) fn alloc(
    keys: &Keys,
    pd: &Pd<Rrxe>,
    mw_type: MwType,
    udata: Option<&UData>,
) -> Result<(Arc<RrxeMw>, u32)> {
    UData::expect_empty(udata)?;
    if mw_type != MwType::Type1 && mw_type != MwType::Type2 {
        return Err(EINVAL);
    }
    let key_byte = keys.next_key_byte();
    let pd_id = pd.data().id;
    let (_, mw) = keys.mws.insert_with(GFP_KERNEL, |index| {
        let rkey = index << 8 | key_byte;
        Arc::pin_init(
            pin_init!(RrxeMw {
                index,
                pd_id,
                mw_type,
                bind <- new_spinlock_irq!(Binding {
                    rkey,
                    ..Binding::default()
                }),
            }),
            GFP_KERNEL,
        )
    })?;
    let rkey = mw.bind.lock().rkey;
    Ok((mw, rkey))
}

pub(crate) fn dealloc(keys: &Keys, mw: &Mw<Rrxe>) -> Result {
    keys.mws.remove(mw.data().index);
    // Process context: the MR may be deregistered right after.
    let mut b = mw.data().bind.lock();
    b.dead = true;
    unbind(&mut b);
    Ok(())
}

/// Drops the window's MR, if any.
fn unbind(b: &mut Binding) {
    if let Some(m) = b.mr.take() {
        m.bound_mws.fetch_sub(1, Ordering::AcqRel);
    }
    b.length = 0;
    b.access = 0;
}

/// The fields of a BIND_MW work request (`rxe_send_wr.wr.mw`): a plain value,
/// copied into the WQE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BindArgs {
    pub(in crate::obj) addr: u64,
    pub(in crate::obj) length: u64,
    pub(in crate::obj) mr_lkey: u32,
    pub(in crate::obj) mw_rkey: u32,
    /// The window's new rkey: only its key byte is taken.
    pub(in crate::obj) rkey: u32,
    pub(in crate::obj) access: u32,
}

/// Executes a BIND_MW work request (a refusal completes it with `MW_BIND_ERR`) of the QP with serial `qp_serial` (PD `pd_id`), as rxe's
/// `rxe_bind_mw` with its checks (IBTA o10-36.2.x, o10-37.2.x). A type 1 window
/// bound with length 0 is unbound.
pub(crate) fn bind(
    keys: &Keys,
    qp_type: u32,
    qp_serial: u64,
    pd_id: PdId,
    a: &BindArgs,
) -> Result<(), Bad> {
    let mw = keys.mws.get(a.mw_rkey >> 8).ok_or(Bad::Bind)?;
    if mw.pd_id != pd_id || a.access & !MW_ACCESS != 0 {
        return Err(Bad::Bind);
    }
    // Type 2 windows are bound only through connected QPs (UD has no bound QP).
    if mw.mw_type == MwType::Type2 && !matches!(qp_type, qpt::RC | qpt::UC) {
        return Err(Bad::Bind);
    }
    // A type 2 window is invalidated, never bound with length 0 (o10-37.2.40).
    if mw.mw_type == MwType::Type2 && a.length == 0 {
        return Err(Bad::Bind);
    }
    let new_mr = if a.length == 0 {
        None
    } else {
        let m = mr::lookup_for_bind(keys, pd_id, a.mr_lkey).ok_or(Bad::Bind)?;
        // Remote write or atomic rights need local write on the MR (C10-71, C10-72),
        // and the window must lie inside the MR.
        let writes = a.access & (access::REMOTE_WRITE | access::REMOTE_ATOMIC) != 0;
        if m.access & access::MW_BIND == 0
            || (writes && m.access & access::LOCAL_WRITE == 0)
            || !m.contains(a.addr, a.length)
        {
            return Err(Bad::Bind);
        }
        Some(m)
    };
    let mut b = mw.bind.lock();
    if b.dead || b.rkey != a.mw_rkey {
        return Err(Bad::Bind);
    }
    // A bound type 2 window must be invalidated before it is bound again.
    if mw.mw_type == MwType::Type2 && b.mr.is_some() {
        return Err(Bad::Bind);
    }
    if let Some(m) = &new_mr {
        if !mr::hold_for_window(m) {
            // The MR is being deregistered.
            return Err(Bad::Bind);
        }
    }
    unbind(&mut b);
    b.rkey = (b.rkey & !0xff) | (a.rkey & 0xff);
    b.addr = a.addr;
    b.length = if new_mr.is_some() { a.length } else { 0 };
    b.access = if new_mr.is_some() { a.access } else { 0 };
    b.qp_serial = qp_serial;
    b.mr = new_mr;
    Ok(())
}

/// Invalidates the type 2 window named by `rkey` for a QP of PD `pd_id`: it becomes
/// free (a refused LOCAL_INV completes with `LOC_QP_OP_ERR`). `bound_qp` is the serial of the QP that received a SEND_WITH_INV, which
/// must be the one the window is bound through; a LOCAL_INV (`None`) may come from
/// any QP of the PD, as in rxe.
pub(crate) fn invalidate(
    keys: &Keys,
    bound_qp: Option<u64>,
    pd_id: PdId,
    rkey: u32,
) -> Result<(), Bad> {
    let mw = keys.mws.get(rkey >> 8).ok_or(Bad::Invalidate)?;
    let mut b = mw.bind.lock();
    if mw.mw_type != MwType::Type2
        || mw.pd_id != pd_id
        || b.rkey != rkey
        || b.mr.is_none()
        || bound_qp.is_some_and(|q| q != b.qp_serial)
    {
        return Err(Bad::Invalidate);
    }
    unbind(&mut b);
    Ok(())
}

/// Whether `rkey` belongs to the window pool (not to an MR).
pub(crate) fn is_mw_key(keys: &Keys, rkey: u32) -> bool {
    keys.mws.covers(rkey >> 8)
}

/// The MR behind a window rkey, for a remote access of `len` bytes at `va` with
/// `need` rights by the QP with serial `qp_serial` of PD `pd_id` (rxe's
/// `rxe_lookup_mw`, plus the window's own range).
pub(crate) fn lookup_remote(
    keys: &Keys,
    qp_serial: u64,
    pd_id: PdId,
    rkey: u32,
    need: u32,
    va: u64,
    len: u32,
) -> Option<Arc<RrxeMr>> {
    let mw = keys.mws.get(rkey >> 8)?;
    let b = mw.bind.lock();
    let m = b.mr.as_ref()?;
    let inside = va >= b.addr
        && va
            .checked_add(u64::from(len))
            .is_some_and(|end| end <= b.addr + b.length);
    let ok = b.rkey == rkey
        && mw.pd_id == pd_id
        && (mw.mw_type == MwType::Type1 || b.qp_serial == qp_serial)
        && b.access & need == need
        && inside;
    ok.then(|| m.clone())
}
