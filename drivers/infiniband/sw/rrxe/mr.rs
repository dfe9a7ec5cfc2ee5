// SPDX-License-Identifier: GPL-2.0

//! Memory regions: DMA MRs for kernel consumers, pinned user MRs, and fast-registration
//! MRs with their page lists.
//!
//! Keys are `index << 8 | key byte`, as rxe: the index finds the MR in the device's
//! pool and the key byte rotates, so a key of a deregistered MR does not match a new MR
//! that reuses the index. The data path holds a reference to an MR while it uses it, so
//! deregistration never frees memory under a transfer.

use crate::device::{Rrxe, RrxeDevice};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::{
    new_spinlock_irq,
    prelude::*,
    rdma::{
        umem::Umem,
        verbs::{Mr, MrKeys, Pd, Sge},
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
    /// Memory windows bound to this MR; `dereg_mr` fails while there are any.
    pub(crate) bound_mws: AtomicU32,
    /// `dereg_mr` is under way: no window may bind to it any more.
    deregistering: AtomicBool,
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
                bound_mws: AtomicU32::new(0),
                deregistering: AtomicBool::new(false),
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
    let m = mr.data();
    // Paired with `hold_for_window`: either the bind sees the flag, or this sees its
    // count (both SeqCst).
    m.deregistering.store(true, Ordering::SeqCst);
    if m.bound_mws.load(Ordering::SeqCst) != 0 {
        m.deregistering.store(false, Ordering::SeqCst);
        return Err(EBUSY);
    }
    dev.mrs.remove(m.index);
    // The receive path looks MRs up under RCU and holds them only inside that
    // section: once it is over, the core's reference is the last one, and the
    // pinned pages are released here, in process context.
    kernel::sync::rcu::synchronize_rcu();
    Ok(())
}

impl MrInner {
    /// The byte offset of `[iova, iova + len)` in the MR, if it lies inside.
    fn offset_of(&self, iova: u64, len: usize) -> Option<usize> {
        let off = iova.checked_sub(self.iova)?;
        let end = off.checked_add(len as u64)?;
        if end > self.length {
            return None;
        }
        usize::try_from(off).ok()
    }

    /// Copies MR memory at `iova` into `dst`.
    fn read(&self, iova: u64, dst: &mut [u8]) -> Result {
        let off = self.offset_of(iova, dst.len()).ok_or(EFAULT)?;
        match &self.backing {
            Backing::User(umem) => umem.copy_from(off, dst),
            Backing::Dma => {
                // SAFETY: A DMA MR belongs to a kernel PD (`get_dma_mr` is not a user
                // verb), so only kernel consumers name it, and with virt DMA their
                // SGE addresses are kernel virtual addresses of memory they mapped
                // for the outstanding work request.
                unsafe { kernel::rdma::virt_dma::copy_from(iova, dst) };
                Ok(())
            }
            // Fast-registered memory comes with REG_MR.
            Backing::Fast { .. } => Err(EOPNOTSUPP),
        }
    }

    /// Copies `src` into MR memory at `iova`.
    fn write(&self, iova: u64, src: &[u8]) -> Result {
        let off = self.offset_of(iova, src.len()).ok_or(EFAULT)?;
        match &self.backing {
            Backing::User(umem) => umem.copy_to(off, src),
            Backing::Dma => {
                // SAFETY: As in `read`; receive buffers are mapped for the device to
                // write.
                unsafe { kernel::rdma::virt_dma::copy_to(iova, src) };
                Ok(())
            }
            Backing::Fast { .. } => Err(EOPNOTSUPP),
        }
    }
}

/// Finds the MR of a local key for a QP of PD `pd_id`, with `need` access
/// (`access::LOCAL_WRITE` to place data, 0 to read it). As rxe's `lookup_mr`: the
/// whole key, the PD and the access must match.
fn lookup_local(dev: &RrxeDevice, pd_id: u32, lkey: u32, need: u32) -> Option<RrxeMr> {
    let mr = dev.mrs.get(lkey >> 8)?;
    (mr.keys.lkey == lkey && mr.pd_id == pd_id && mr.access & need == need).then_some(mr)
}

/// Finds the MR a memory window is to be bound to, by the binder's lkey (the whole
/// key and the PD must match; the caller checks the MR's access).
pub(crate) fn lookup_for_bind(dev: &RrxeDevice, pd_id: u32, lkey: u32) -> Option<RrxeMr> {
    lookup_local(dev, pd_id, lkey, 0)
}

/// Counts a window bound to `m`, unless `m` is being deregistered.
pub(crate) fn hold_for_window(m: &MrInner) -> bool {
    m.bound_mws.fetch_add(1, Ordering::SeqCst);
    if m.deregistering.load(Ordering::SeqCst) {
        m.bound_mws.fetch_sub(1, Ordering::SeqCst);
        return false;
    }
    true
}

impl MrInner {
    /// Whether `[addr, addr + len)` lies inside the MR.
    pub(crate) fn contains(&self, addr: u64, len: u64) -> bool {
        usize::try_from(len).is_ok_and(|l| self.offset_of(addr, l).is_some())
    }
}

/// Finds the MR of a remote key for an access of `len` bytes at `va` by a QP of PD
/// `pd_id`, with `need` (`access::REMOTE_*`) granted. As rxe's `check_rkey`.
///
/// A memory window's rkey finds the window's MR (`crate::mw::lookup_remote`), for
/// the QP with serial `qp_serial` only if it is a type 2 window bound through it.
pub(crate) fn lookup_remote(
    dev: &RrxeDevice,
    qp_serial: u64,
    pd_id: u32,
    rkey: u32,
    need: u32,
    va: u64,
    len: u32,
) -> Option<RrxeMr> {
    if crate::mw::is_mw_key(dev, rkey) {
        return crate::mw::lookup_remote(dev, qp_serial, pd_id, rkey, need, va, len);
    }
    let mr = dev.mrs.get(rkey >> 8)?;
    let ok = mr.keys.rkey == rkey
        && mr.pd_id == pd_id
        && mr.access & need == need
        && mr.offset_of(va, len as usize).is_some();
    ok.then_some(mr)
}

impl MrInner {
    /// Copies from `va`, for a remote READ.
    pub(crate) fn read_remote(&self, va: u64, dst: &mut [u8]) -> Result {
        self.read(va, dst)
    }

    /// Copies `src` to `va`, for a remote WRITE.
    pub(crate) fn write_remote(&self, va: u64, src: &[u8]) -> Result {
        self.write(va, src)
    }
}

/// Walks a WQE's scatter/gather list, copying to or from the memory it names.
pub(crate) struct SgeCursor<'a> {
    dev: &'a RrxeDevice,
    pd_id: u32,
    sgl: &'a [Sge],
    /// Current SGE and the offset into it.
    idx: usize,
    off: u32,
    /// The current SGE's MR, looked up once per SGE.
    mr: Option<RrxeMr>,
}

impl<'a> SgeCursor<'a> {
    pub(crate) fn new(dev: &'a RrxeDevice, pd_id: u32, sgl: &'a [Sge]) -> Self {
        Self {
            dev,
            pd_id,
            sgl,
            idx: 0,
            off: 0,
            mr: None,
        }
    }

    /// A cursor resuming at `pos`, a [`SgeCursor::position`] of an earlier one.
    pub(crate) fn at(dev: &'a RrxeDevice, pd_id: u32, sgl: &'a [Sge], pos: (usize, u32)) -> Self {
        let mut c = Self::new(dev, pd_id, sgl);
        (c.idx, c.off) = pos;
        c
    }

    /// Where the cursor is: the SGE and the offset in it.
    pub(crate) fn position(&self) -> (usize, u32) {
        (self.idx, self.off)
    }

    /// Moves `n` bytes on without touching memory.
    pub(crate) fn skip(&mut self, mut n: usize) -> Result {
        while n > 0 {
            let sge = self.sgl.get(self.idx).ok_or(ENOSPC)?;
            let left = sge.length.saturating_sub(self.off) as usize;
            if left == 0 {
                self.idx += 1;
                self.off = 0;
                self.mr = None;
                continue;
            }
            let k = left.min(n);
            self.off += k as u32;
            n -= k;
        }
        Ok(())
    }

    /// Runs `op` on consecutive pieces of the list covering `len` bytes: each call
    /// gets the MR, the IOVA and the piece's range in `0..len`.
    fn walk(
        &mut self,
        len: usize,
        need: u32,
        mut op: impl FnMut(&MrInner, u64, core::ops::Range<usize>) -> Result,
    ) -> Result {
        let mut done = 0;
        while done < len {
            let sge = self.sgl.get(self.idx).ok_or(ENOSPC)?;
            let left = sge.length.saturating_sub(self.off) as usize;
            if left == 0 {
                self.idx += 1;
                self.off = 0;
                self.mr = None;
                continue;
            }
            if self.mr.is_none() {
                self.mr = Some(lookup_local(self.dev, self.pd_id, sge.lkey, need).ok_or(EACCES)?);
            }
            let n = left.min(len - done);
            let iova = sge.addr.checked_add(u64::from(self.off)).ok_or(EFAULT)?;
            if let Some(mr) = self.mr.as_deref() {
                op(mr, iova, done..done + n)?;
            }
            self.off += n as u32;
            done += n;
        }
        Ok(())
    }

    /// Copies `src` into the list's memory, which must be locally writable.
    pub(crate) fn write(&mut self, src: &[u8]) -> Result {
        self.walk(src.len(), access::LOCAL_WRITE, |mr, iova, r| {
            mr.write(iova, &src[r])
        })
    }

    /// Fills `dst` from the list's memory.
    pub(crate) fn read(&mut self, dst: &mut [u8]) -> Result {
        self.walk(dst.len(), 0, |mr, iova, r| mr.read(iova, &mut dst[r]))
    }
}
