// SPDX-License-Identifier: GPL-2.0

//! Memory windows: allocation and deallocation. Binding (a send work request) and
//! remote access through a window belong to the data path.
//!
//! rkeys are `index << 8 | key byte` like MR keys, from their own index range above
//! the MRs' (rxe's `RXE_MIN_MW_INDEX`), so an rkey says which pool it belongs to.

use crate::device::{Rrxe, RrxeDevice};
use core::sync::atomic::Ordering;
use kernel::{
    prelude::*,
    rdma::{
        verbs::{Mw, Pd},
        UData,
    },
    sync::Arc,
};

/// The driver's MW.
pub(crate) struct MwInner {
    pub(crate) index: u32,
    pub(crate) rkey: u32,
    #[allow(dead_code, reason = "checked by the bind work request (data path)")]
    pub(crate) pd_id: u32,
    #[allow(dead_code, reason = "type 1 and 2 bind differently (data path)")]
    pub(crate) mw_type: u32,
}

pub(crate) type RrxeMw = Arc<MwInner>;

pub(crate) fn alloc(
    dev: &RrxeDevice,
    pd: &Pd<Rrxe>,
    mw_type: u32,
    udata: Option<&UData>,
) -> Result<(RrxeMw, u32)> {
    UData::expect_empty(udata)?;
    let key_byte = dev.key_byte.fetch_add(1, Ordering::Relaxed) & 0xff;
    let pd_id = pd.data().id;
    let (_, mw) = dev.mws.insert_with(GFP_KERNEL, |index| {
        Arc::new(
            MwInner {
                index,
                rkey: index << 8 | key_byte,
                pd_id,
                mw_type,
            },
            GFP_KERNEL,
        )
        .map_err(Error::from)
    })?;
    let rkey = mw.rkey;
    Ok((mw, rkey))
}

pub(crate) fn dealloc(dev: &RrxeDevice, mw: &Mw<Rrxe>) -> Result {
    dev.mws.remove(mw.data().index);
    Ok(())
}
