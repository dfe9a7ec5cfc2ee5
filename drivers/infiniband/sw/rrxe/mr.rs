// SPDX-License-Identifier: GPL-2.0

//! Memory regions: DMA MRs for kernel consumers, pinned user MRs, and fast-registration
//! MRs with their page lists.
//!
//! Keys are `index << 8 | key byte`, as rxe: the index finds the MR in the device's
//! pool and the key byte rotates, so a key of a deregistered MR does not match a new MR
//! that reuses the index. The data path holds a reference to an MR while it uses it, so
//! deregistration never frees memory under a transfer.

use crate::device::{Rrxe, RrxeDevice};
use core::sync::atomic::Ordering;
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        umem::Umem,
        verbs::{Mr, MrKeys, Pd},
        UData,
    },
    sync::{Arc, SpinLockIrq},
};

/// `IB_ACCESS_*` bits an MR may carry (rxe's `RXE_ACCESS_SUPPORTED_MR` without
/// on-demand paging, which rrxe does not offer).
pub(crate) mod access {
    pub(crate) const LOCAL_WRITE: u32 = 1;
    pub(crate) const REMOTE_WRITE: u32 = 2;
    pub(crate) const REMOTE_READ: u32 = 4;
    pub(crate) const REMOTE_ATOMIC: u32 = 8;
    pub(crate) const MW_BIND: u32 = 16;
    pub(crate) const ON_DEMAND: u32 = 64;
    pub(crate) const FLUSH_GLOBAL: u32 = 256;
    pub(crate) const FLUSH_PERSISTENT: u32 = 512;
    /// `IB_ACCESS_OPTIONAL`: hints a device may ignore (bits 20..29).
    pub(crate) const OPTIONAL: u32 = 0x3ff0_0000;
    pub(crate) const SUPPORTED: u32 = LOCAL_WRITE
        | REMOTE_WRITE
        | REMOTE_READ
        | REMOTE_ATOMIC
        | MW_BIND
        | FLUSH_GLOBAL
        | FLUSH_PERSISTENT
        | OPTIONAL;
}

/// `IB_MR_TYPE_MEM_REG`.
const MR_TYPE_MEM_REG: u32 = 0;

/// What backs the MR.
pub(crate) enum Backing {
    /// All of kernel memory (kernel consumers' `local_dma_lkey` equivalent).
    Dma,
    /// Pinned user memory.
    #[allow(dead_code, reason = "copied to and from by the data path")]
    User(Umem),
    /// A page list set by `map_mr_sg` and activated by a REG_MR work request.
    Fast { max_pages: u32 },
}

/// A fast-registration MR's current mapping.
pub(crate) struct FastMap {
    pub(crate) pages: KVec<u64>,
    pub(crate) iova: u64,
    pub(crate) length: u64,
    pub(crate) page_size: u32,
}

/// The driver's MR.
#[pin_data]
pub(crate) struct MrInner {
    pub(crate) index: u32,
    pub(crate) keys: MrKeys,
    pub(crate) pd_id: u32,
    pub(crate) access: u32,
    pub(crate) iova: u64,
    pub(crate) length: u64,
    pub(crate) backing: Backing,
    #[pin]
    pub(crate) map: SpinLockIrq<FastMap>,
}

pub(crate) type RrxeMr = Arc<MrInner>;

fn new_mr(
    dev: &RrxeDevice,
    pd: &Pd<Rrxe>,
    access: u32,
    iova: u64,
    length: u64,
    backing: Backing,
    pages: KVec<u64>,
) -> Result<(RrxeMr, MrKeys)> {
    let key_byte = dev.key_byte.fetch_add(1, Ordering::Relaxed) & 0xff;
    let pd_id = pd.data().id;
    let (_, mr) = dev.mrs.insert_with(GFP_KERNEL, |index| {
        let keys = MrKeys {
            lkey: index << 8 | key_byte,
            rkey: index << 8 | key_byte,
        };
        Arc::pin_init(
            pin_init!(MrInner {
                index,
                keys,
                pd_id,
                access,
                iova,
                length,
                backing,
                map <- new_spinlock_irq!(FastMap { pages, iova: 0, length: 0, page_size: 0 }),
            }),
            GFP_KERNEL,
        )
    })?;
    let keys = mr.keys;
    Ok((mr, keys))
}

pub(crate) fn get_dma(dev: &RrxeDevice, pd: &Pd<Rrxe>, acc: u32) -> Result<(RrxeMr, MrKeys)> {
    if acc & !access::SUPPORTED != 0 {
        return Err(EOPNOTSUPP);
    }
    new_mr(dev, pd, acc, 0, u64::MAX, Backing::Dma, KVec::new())
}

pub(crate) fn reg_user(
    dev: &RrxeDevice,
    pd: &Pd<Rrxe>,
    start: u64,
    length: u64,
    iova: u64,
    acc: u32,
    _udata: Option<&UData>,
) -> Result<(RrxeMr, MrKeys)> {
    if acc & access::ON_DEMAND != 0 || acc & !access::SUPPORTED != 0 {
        return Err(EOPNOTSUPP);
    }
    if length == 0 || length > crate::wqe::MAX_MSG * 2 || iova.checked_add(length).is_none() {
        return Err(EINVAL);
    }
    let umem = Umem::pin(pd.device(), start, length, acc as i32)?;
    new_mr(dev, pd, acc, iova, length, Backing::User(umem), KVec::new())
}

pub(crate) fn alloc(
    dev: &RrxeDevice,
    pd: &Pd<Rrxe>,
    mr_type: u32,
    max_num_sg: u32,
) -> Result<(RrxeMr, MrKeys)> {
    if mr_type != MR_TYPE_MEM_REG {
        return Err(EINVAL);
    }
    if max_num_sg == 0 || max_num_sg > crate::params::MAX_FMR_PAGE_LIST_LEN {
        return Err(EINVAL);
    }
    // The page list is allocated once, so map_mr_sg never allocates.
    let pages = KVec::with_capacity(max_num_sg as usize, GFP_KERNEL)?;
    new_mr(
        dev,
        pd,
        0,
        0,
        0,
        Backing::Fast {
            max_pages: max_num_sg,
        },
        pages,
    )
}

pub(crate) fn map_begin(mr: &Mr<Rrxe>) -> Result {
    if !matches!(mr.data().backing, Backing::Fast { .. }) {
        return Err(EINVAL);
    }
    mr.data().map.lock().pages.clear();
    Ok(())
}

pub(crate) fn set_page(mr: &Mr<Rrxe>, addr: u64) -> Result {
    let inner = mr.data();
    let Backing::Fast { max_pages } = inner.backing else {
        return Err(EINVAL);
    };
    let mut m = inner.map.lock();
    if m.pages.len() >= max_pages as usize {
        return Err(ENOMEM);
    }
    // Capacity was reserved at allocation: no allocation happens here.
    m.pages.push(addr, GFP_ATOMIC)?;
    Ok(())
}

pub(crate) fn map_end(mr: &Mr<Rrxe>, iova: u64, length: u64, page_size: u32) -> Result {
    let mut m = mr.data().map.lock();
    m.iova = iova;
    m.length = length;
    m.page_size = page_size;
    Ok(())
}

pub(crate) fn dereg(dev: &RrxeDevice, mr: &Mr<Rrxe>) -> Result {
    dev.mrs.remove(mr.data().index);
    Ok(())
}
