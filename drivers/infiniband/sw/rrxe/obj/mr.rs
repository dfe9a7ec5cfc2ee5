// SPDX-License-Identifier: GPL-2.0

//! Memory regions: DMA MRs for kernel consumers, pinned user MRs, on-demand-paging
//! user MRs, and fast-registration MRs with their page lists.
//!
//! Keys are `index << 8 | key byte`, as rxe: the index finds the MR in the device's
//! pool and the key byte rotates, so a key of a deregistered MR does not match a new MR
//! that reuses the index. The data path holds a reference to an MR while it uses it, so
//! deregistration never frees memory under a transfer.
//!
//! An on-demand-paging MR's pages are found when first used. The engines copy in
//! atomic context, where no page can be faulted in, so a copy that meets a page
//! that is not resident fails with `EAGAIN` and leaves that page alone. The
//! engine that made it records a [`Miss`] and stops where it was, with nothing
//! of the packet or WQE consumed; the QP's fault work item faults the range in
//! ([`Miss::fault`], which may sleep) and runs the engine again.

use crate::{
    abi::{self, access},
    obj::{mw::RrxeMw, pd::PdId, pool::Pool, wqe::Bad, Rrxe},
    params,
};
use core::{
    ops::Range,
    sync::atomic::{AtomicBool, AtomicU32, Ordering},
};
use kernel::{
    fill::Filler,
    new_spinlock_irq,
    prelude::*,
    rdma::{
        mr::{AccessFlags, Mr, MrKeys, MrType},
        pd::Pd,
        umem::Umem,
        uverbs::UData,
        wr::Sge,
    },
    sync::{Arc, SpinLockIrq},
};

#[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
use kernel::rdma::umem_odp::UmemOdp;

/// `IB_ACCESS_*` bits an MR may carry (rxe's `RXE_ACCESS_SUPPORTED_MR`); on-demand
/// paging only in a kernel built with it, as rdma_rxe.
pub(crate) const ACCESS_SUPPORTED: u32 = access::LOCAL_WRITE
    | access::REMOTE_WRITE
    | access::REMOTE_READ
    | access::REMOTE_ATOMIC
    | access::MW_BIND
    | access::FLUSH_GLOBAL
    | access::FLUSH_PERSISTENT
    | access::OPTIONAL
    | if ODP { access::ON_DEMAND } else { 0 };

/// Whether the kernel offers on-demand paging (`INFINIBAND_ON_DEMAND_PAGING`).
pub(crate) const ODP: bool = cfg!(CONFIG_INFINIBAND_ON_DEMAND_PAGING);

/// A device's memory keys: its MRs by key index and, above their range, its
/// MWs (rxe's `RXE_MIN_MW_INDEX`), so that a key says which pool it is from.
/// Lives as long as the device; the pools have their own locks.
#[pin_data]
pub(crate) struct Keys {
    #[pin]
    pub(super) mrs: Pool<RrxeMr>,
    #[pin]
    pub(super) mws: Pool<RrxeMw>,
    /// The rotating low byte of new MR and MW keys.
    key_byte: AtomicU32,
}

impl Keys {
    /// The key tables of a new device.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Keys {
            mrs <- Pool::new(params::MIN_MR_INDEX, params::MAX_MR_INDEX),
            mws <- Pool::new(params::MAX_MR_INDEX + 1, params::MAX_MR_INDEX + params::MAX_MW),
            key_byte: AtomicU32::new(0),
        })
    }

    /// The key byte of the next MR or MW.
    pub(super) fn next_key_byte(&self) -> u32 {
        self.key_byte.fetch_add(1, Ordering::Relaxed) & 0xff
    }
}

/// What backs the MR; fixed at registration.
pub(crate) enum Backing {
    /// All of kernel memory (kernel consumers' `local_dma_lkey` equivalent).
    Dma,
    /// Pinned user memory.
    User(Umem),
    /// On-demand-paging user memory.
    #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
    Odp(UmemOdp),
    /// A page list set by `map_mr_sg` and activated by a REG_MR work request.
    Fast { max_pages: u32 },
}

/// A page list and the IOVA range it maps, as `ib_sg_to_pages` builds it: page 0 holds
/// `iova` at offset `iova % page_size`. REG_MR sets `iova` to the consumer's
/// `ib_mr.iova` when it posts, which may have moved since `map_mr_sg`; as on
/// rdma_rxe, the offset then follows the IOVA posted.
struct PageList {
    pages: KVec<u64>,
    iova: u64,
    length: u64,
    /// log2 of the page size (a shift, so the data path never divides).
    page_shift: u32,
}

impl PageList {
    fn new(max_pages: usize) -> Result<Self> {
        Ok(Self {
            pages: KVec::with_capacity(max_pages, GFP_KERNEL)?,
            iova: 0,
            length: 0,
            page_shift: 0,
        })
    }

    /// The kernel address of `va` and how many bytes up to `n` follow it in the same
    /// page, if `[va, va + n)` lies inside the mapping.
    fn locate(&self, va: u64, n: usize) -> Option<(u64, usize)> {
        let off = va.checked_sub(self.iova)?;
        if off.checked_add(n as u64)? > self.length {
            return None;
        }
        let shift = self.page_shift & 63;
        let mask = (1u64 << shift) - 1;
        let pos = off + (self.iova & mask);
        let page = *self.pages.get(usize::try_from(pos >> shift).ok()?)?;
        let within = pos & mask;
        let room = usize::try_from(mask + 1 - within).ok()?;
        Some((page + within, room.min(n)))
    }
}

/// A fast-registration MR's state. `map_mr_sg` fills `staged`; a REG_MR work request
/// copies it to `active`, sets the key and rights and makes the MR valid; LOCAL_INV
/// (or a SEND_WITH_INV naming it) makes it invalid again. Only a valid MR is reached
/// through its key, and only through `active`, so remapping a registered MR changes
/// nothing until the next REG_MR (rxe maps in place).
///
/// [`RrxeMr`]'s state behind its `SpinLockIrq`, taken alone or under a QP's
/// lock; no lock is taken under it.
pub(crate) struct FastMap {
    staged: PageList,
    active: PageList,
    valid: bool,
    key: u32,
    access: u32,
}

/// The driver's MR.
///
/// Locking: everything but the fast-registration map ([`FastMap`], behind its
/// own lock) and the window count (atomic) is fixed at registration.
///
/// Lifetime: in the device's key table from registration to `dereg_mr`, which
/// waits for an RCU grace period after taking it out, so the data path (which
/// holds an MR only inside an RCU section or through a bound window) never
/// releases its pinned pages.
#[pin_data]
pub(crate) struct RrxeMr {
    index: u32,
    keys: MrKeys,
    pd_id: PdId,
    pub(in crate::obj) access: u32,
    iova: u64,
    length: u64,
    backing: Backing,
    #[pin]
    map: SpinLockIrq<FastMap>,
    /// Memory windows bound to this MR; `dereg_mr` fails while there are any.
    pub(in crate::obj) bound_mws: AtomicU32,
    /// `dereg_mr` is under way: no window may bind to it any more.
    deregistering: AtomicBool,
}

fn new_mr(
    keys: &Keys,
    pd: &Pd<Rrxe>,
    access: u32,
    iova: u64,
    length: u64,
    backing: Backing,
    max_pages: usize,
) -> Result<(Arc<RrxeMr>, MrKeys)> {
    let (staged, active) = (PageList::new(max_pages)?, PageList::new(max_pages)?);
    let key_byte = keys.next_key_byte();
    let pd_id = pd.data().id;
    let (_, mr) = keys.mrs.insert_with(GFP_KERNEL, |index| {
        let keys = MrKeys {
            lkey: index << 8 | key_byte,
            rkey: index << 8 | key_byte,
        };
        Arc::pin_init(
            pin_init!(RrxeMr {
                index,
                keys,
                pd_id,
                access,
                iova,
                length,
                backing,
                map <- new_spinlock_irq!(FastMap {
                    staged,
                    active,
                    valid: false,
                    key: keys.lkey,
                    access: 0,
                }),
                bound_mws: AtomicU32::new(0),
                deregistering: AtomicBool::new(false),
            }),
            GFP_KERNEL,
        )
    })?;
    let keys = mr.keys;
    Ok((mr, keys))
}

pub(crate) fn get_dma(
    keys: &Keys,
    pd: &Pd<Rrxe>,
    acc: AccessFlags,
) -> Result<(Arc<RrxeMr>, MrKeys)> {
    let acc = acc.bits();
    if acc & !ACCESS_SUPPORTED != 0 {
        return Err(EOPNOTSUPP);
    }
    new_mr(keys, pd, acc, 0, u64::MAX, Backing::Dma, 0)
}

pub(crate) fn reg_user(
    keys: &Keys,
    pd: &Pd<Rrxe>,
    start: u64,
    length: u64,
    iova: u64,
    access_flags: AccessFlags,
    _udata: Option<&UData>,
) -> Result<(Arc<RrxeMr>, MrKeys)> {
    let acc = access_flags.bits();
    if acc & !ACCESS_SUPPORTED != 0 {
        return Err(EOPNOTSUPP);
    }
    #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
    if acc & access::ON_DEMAND != 0 {
        // Implicit ODP (the whole address space) is not offered, as in rdma_rxe.
        if start == 0 && length == u64::MAX {
            return Err(EOPNOTSUPP);
        }
        if length == 0 || iova.checked_add(length).is_none() {
            return Err(EINVAL);
        }
        let odp = UmemOdp::get(pd.device(), start, length, access_flags)?;
        return new_mr(keys, pd, acc, iova, length, Backing::Odp(odp), 0);
    }
    if length == 0 || length > u64::from(abi::MAX_MSG) * 2 || iova.checked_add(length).is_none() {
        return Err(EINVAL);
    }
    let umem = Umem::pin(pd.device(), start, length, access_flags)?;
    new_mr(keys, pd, acc, iova, length, Backing::User(umem), 0)
}

pub(crate) fn alloc(
    keys: &Keys,
    pd: &Pd<Rrxe>,
    mr_type: MrType,
    max_num_sg: u32,
) -> Result<(Arc<RrxeMr>, MrKeys)> {
    if mr_type != MrType::MemReg {
        return Err(EINVAL);
    }
    if max_num_sg == 0 || max_num_sg > crate::params::MAX_FMR_PAGE_LIST_LEN {
        return Err(EINVAL);
    }
    // The page lists are allocated once, so neither map_mr_sg nor REG_MR allocates.
    new_mr(
        keys,
        pd,
        0,
        0,
        0,
        Backing::Fast {
            max_pages: max_num_sg,
        },
        max_num_sg as usize,
    )
}

pub(crate) fn map_begin(mr: &Mr<Rrxe>) -> Result {
    if !matches!(mr.data().backing, Backing::Fast { .. }) {
        return Err(EINVAL);
    }
    mr.data().map.lock().staged.pages.clear();
    Ok(())
}

pub(crate) fn set_page(mr: &Mr<Rrxe>, addr: u64) -> Result {
    let inner = mr.data();
    let Backing::Fast { max_pages } = inner.backing else {
        return Err(EINVAL);
    };
    let mut m = inner.map.lock();
    if m.staged.pages.len() >= max_pages as usize {
        return Err(ENOMEM);
    }
    // Capacity was reserved at allocation: no allocation happens here.
    m.staged.pages.push(addr, GFP_ATOMIC)?;
    Ok(())
}

pub(crate) fn map_end(mr: &Mr<Rrxe>, iova: u64, length: u64, page_size: u32) -> Result {
    if !page_size.is_power_of_two() {
        return Err(EINVAL);
    }
    let mut m = mr.data().map.lock();
    let s = &mut m.staged;
    // The pages must cover the range, so an access inside it never runs off the list.
    let span = (iova & u64::from(page_size - 1))
        .checked_add(length)
        .ok_or(EINVAL)?;
    if span.div_ceil(u64::from(page_size)) > s.pages.len() as u64 {
        return Err(EINVAL);
    }
    (s.iova, s.length, s.page_shift) = (iova, length, page_size.trailing_zeros());
    Ok(())
}

/// Runs a REG_MR work request of a QP of PD `pd_id` (rxe's `rxe_reg_fast_mr`): the
/// MR must be a free fast-registration MR of the same PD, and `key` may change only
/// the key byte. The MR then maps the pages `map_mr_sg` last gave it at `iova`, the
/// MR's IOVA when the request was posted.
pub(crate) fn register_fast(
    m: &RrxeMr,
    pd_id: PdId,
    iova: u64,
    key: u32,
    acc: u32,
) -> Result<(), Bad> {
    if !matches!(m.backing, Backing::Fast { .. })
        || m.pd_id != pd_id
        || key & !0xff != m.keys.lkey & !0xff
        || acc & !ACCESS_SUPPORTED != 0
    {
        return Err(Bad::Register);
    }
    let mut guard = m.map.lock();
    let f = &mut *guard;
    // The range must not wrap: `locate` subtracts `iova` from addresses in it.
    if f.valid || iova.checked_add(f.staged.length).is_none() {
        return Err(Bad::Register);
    }
    f.active.pages.clear();
    // Both lists have the same reserved capacity: this never allocates.
    f.active
        .pages
        .extend_from_slice(&f.staged.pages, GFP_ATOMIC)
        .map_err(|_| Bad::NoMem)?;
    (f.active.iova, f.active.length, f.active.page_shift) =
        (iova, f.staged.length, f.staged.page_shift);
    (f.key, f.access, f.valid) = (key, acc, true);
    Ok(())
}

/// Invalidates the fast-registration MR `key` names, for a QP of PD `pd_id` (LOCAL_INV,
/// or a SEND_WITH_INV it receives). As rxe's `rxe_invalidate_mr`, an MR registered any
/// other way cannot be invalidated; unlike rxe, the PD must match (IBA 10.6.5.1).
pub(crate) fn invalidate(keys: &Keys, pd_id: PdId, key: u32) -> Result<(), Bad> {
    let m = keys.mrs.get(key >> 8).ok_or(Bad::Invalidate)?;
    if !matches!(m.backing, Backing::Fast { .. }) || m.pd_id != pd_id {
        return Err(Bad::Invalidate);
    }
    let mut f = m.map.lock();
    if f.key != key {
        return Err(Bad::Invalidate);
    }
    f.valid = false;
    Ok(())
}

pub(crate) fn dereg(keys: &Keys, mr: &Mr<Rrxe>) -> Result {
    let m = mr.data();
    // Paired with `hold_for_window`: either the bind sees the flag, or this sees its
    // count (both SeqCst).
    m.deregistering.store(true, Ordering::SeqCst);
    if m.bound_mws.load(Ordering::SeqCst) != 0 {
        m.deregistering.store(false, Ordering::SeqCst);
        return Err(EBUSY);
    }
    keys.mrs.remove(m.index);
    // The receive path looks MRs up under RCU and holds them only inside that
    // section: once it is over, the core's reference is the last one, and the
    // pinned pages are released here, in process context.
    kernel::sync::rcu::synchronize_rcu();
    Ok(())
}

impl RrxeMr {
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
        let n = dst.len();
        self.read_into(iova, n, &mut Filler::over_init(dst))
    }

    /// Appends `n` bytes of MR memory at `iova` to `dst`.
    fn read_into(&self, iova: u64, n: usize, dst: &mut Filler<'_>) -> Result {
        match &self.backing {
            Backing::User(umem) => umem.copy_into(self.offset_of(iova, n).ok_or(EFAULT)?, n, dst),
            #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
            Backing::Odp(odp) => odp.copy_into(self.offset_of(iova, n).ok_or(EFAULT)?, n, dst),
            Backing::Dma => {
                self.offset_of(iova, n).ok_or(EFAULT)?;
                // A DMA MR belongs to a kernel PD (`get_dma_mr` is not a user verb),
                // so only kernel consumers name it, and with virt DMA their SGE
                // addresses are kernel virtual addresses of memory they mapped.
                // SAFETY: `iova` is such an address, mapped for the outstanding WR.
                unsafe { kernel::rdma::virt_dma::copy_into(iova, n, dst) }
            }
            Backing::Fast { .. } => self.copy_fast(iova, n, |addr, r| {
                // SAFETY: `addr` is inside a page of the active list: the consumer
                // mapped it for the device (`ib_map_mr_sg`) and registered it, and the
                // lock keeps the registration from going away during the copy.
                unsafe { kernel::rdma::virt_dma::copy_into(addr, r.len(), dst) }
            }),
        }
    }

    /// Copies `src` into MR memory at `iova`.
    fn write(&self, iova: u64, src: &[u8]) -> Result {
        match &self.backing {
            Backing::User(umem) => {
                umem.copy_to(self.offset_of(iova, src.len()).ok_or(EFAULT)?, src)
            }
            #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
            Backing::Odp(odp) => odp.copy_to(self.offset_of(iova, src.len()).ok_or(EFAULT)?, src),
            Backing::Dma => {
                self.offset_of(iova, src.len()).ok_or(EFAULT)?;
                // SAFETY: As in `read`; receive buffers are mapped for the device to
                // write.
                unsafe { kernel::rdma::virt_dma::copy_to(iova, src) };
                Ok(())
            }
            Backing::Fast { .. } => self.copy_fast(iova, src.len(), |addr, r| {
                // SAFETY: As in `read_into`; the registration granted the write
                // (checked at lookup).
                unsafe { kernel::rdma::virt_dma::copy_to(addr, &src[r]) };
                Ok(())
            }),
        }
    }

    /// Whether an access of `len` bytes at `iova` can run now, without
    /// copying: `Err(Some(miss))` while a page of an on-demand-paging MR there
    /// is not resident (writable, if `write`), with the fault to run, from the
    /// first such page; `Err(None)` if the access would fail (the page's last
    /// fault failed). Always `Ok` for other MRs, whose copies check for
    /// themselves.
    pub(crate) fn ready(&self, iova: u64, len: usize, write: bool) -> Result<(), Option<Miss>> {
        match &self.backing {
            #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
            Backing::Odp(odp) if len > 0 => {
                let off = self.offset_of(iova, len).ok_or(None)?;
                let n = odp.resident_len(off, len, write).map_err(|_| None)?;
                if n == len {
                    Ok(())
                } else {
                    Err(Some(Miss::of(self, iova + n as u64, len - n, write)))
                }
            }
            _ => {
                let _ = (iova, len, write);
                Ok(())
            }
        }
    }

    /// Faults `[iova, iova + len)` of an on-demand-paging MR in, writable if
    /// `write`, as far as the MR reaches. May sleep. Nothing to do for other
    /// MRs.
    fn fault(&self, iova: u64, len: usize, write: bool) -> Result {
        match &self.backing {
            #[cfg(CONFIG_INFINIBAND_ON_DEMAND_PAGING)]
            Backing::Odp(odp) => {
                let off = self.offset_of(iova, 1).ok_or(EFAULT)?;
                let len = len.min(self.length as usize - off);
                odp.fault(off, len, write)
            }
            _ => {
                let _ = (iova, len, write);
                Ok(())
            }
        }
    }

    /// Walks `[iova, iova + len)` of a registered fast MR page by page, calling `op`
    /// with each piece's kernel address and its range in `0..len`; an error from
    /// `op` ends the walk. The MR must still be valid: an access that raced a
    /// LOCAL_INV fails rather than touch pages the consumer may have reused.
    fn copy_fast(
        &self,
        iova: u64,
        len: usize,
        mut op: impl FnMut(u64, Range<usize>) -> Result,
    ) -> Result {
        let f = self.map.lock();
        if !f.valid {
            return Err(EFAULT);
        }
        let mut done = 0;
        while done < len {
            let va = iova.checked_add(done as u64).ok_or(EFAULT)?;
            let (addr, n) = f.active.locate(va, len - done).ok_or(EFAULT)?;
            op(addr, done..done + n)?;
            done += n;
        }
        Ok(())
    }

    /// Whether `key` names this MR now, with `need` granted and, if `range` is
    /// given, `[va, va + len)` inside it. A fast MR answers from its registration
    /// (only while valid); any other from its fixed keys (`lkey` or rkey) and range.
    fn admits(&self, key: u32, lkey: bool, need: u32, range: Option<(u64, usize)>) -> bool {
        if let Backing::Fast { .. } = self.backing {
            let f = self.map.lock();
            return f.valid
                && f.key == key
                && f.access & need == need
                && range.is_none_or(|(va, len)| f.active.locate(va, len).is_some());
        }
        let own = if lkey { self.keys.lkey } else { self.keys.rkey };
        own == key
            && self.access & need == need
            && range.is_none_or(|(va, len)| self.offset_of(va, len).is_some())
    }
}

/// Finds the MR of a local key for a QP of PD `pd_id`, with `need` access
/// (`access::LOCAL_WRITE` to place data, 0 to read it). As rxe's `lookup_mr`: the
/// whole key, the PD and the access must match.
fn lookup_local(keys: &Keys, pd_id: PdId, lkey: u32, need: u32) -> Option<Arc<RrxeMr>> {
    let mr = keys.mrs.get(lkey >> 8)?;
    (mr.pd_id == pd_id && mr.admits(lkey, true, need, None)).then_some(mr)
}

/// Finds the MR a memory window is to be bound to, by the binder's lkey (the whole
/// key and the PD must match; the caller checks the MR's access).
pub(crate) fn lookup_for_bind(keys: &Keys, pd_id: PdId, lkey: u32) -> Option<Arc<RrxeMr>> {
    lookup_local(keys, pd_id, lkey, 0)
}

/// Counts a window bound to `m`, unless `m` is being deregistered.
pub(crate) fn hold_for_window(m: &RrxeMr) -> bool {
    m.bound_mws.fetch_add(1, Ordering::SeqCst);
    if m.deregistering.load(Ordering::SeqCst) {
        m.bound_mws.fetch_sub(1, Ordering::SeqCst);
        return false;
    }
    true
}

impl RrxeMr {
    /// Whether `[addr, addr + len)` lies inside the MR.
    pub(crate) fn contains(&self, addr: u64, len: u64) -> bool {
        usize::try_from(len).is_ok_and(|l| self.offset_of(addr, l).is_some())
    }
}

/// Finds the MR of a remote key for an access of `len` bytes at `va` by a QP of PD
/// `pd_id`, with `need` (`access::REMOTE_*`) granted. As rxe's `check_rkey`.
///
/// A memory window's rkey finds the window's MR (`crate::obj::mw::lookup_remote`), for
/// the QP with serial `qp_serial` only if it is a type 2 window bound through it.
pub(crate) fn lookup_remote(
    keys: &Keys,
    qp_serial: u64,
    pd_id: PdId,
    rkey: u32,
    need: u32,
    va: u64,
    len: u32,
) -> Option<Arc<RrxeMr>> {
    lookup_remote_in(keys, qp_serial, pd_id, rkey, need, va, Some(len))
}

/// Finds the MR (or window) of an rkey for a FLUSH of the whole MR: rights and PD
/// as [`lookup_remote`], and no range, since such a FLUSH need not name an address
/// inside the MR (rxe). A window is still checked at `va`.
pub(crate) fn lookup_remote_whole(
    keys: &Keys,
    qp_serial: u64,
    pd_id: PdId,
    rkey: u32,
    need: u32,
    va: u64,
) -> Option<Arc<RrxeMr>> {
    lookup_remote_in(keys, qp_serial, pd_id, rkey, need, va, None)
}

/// [`lookup_remote`] with the MR's range check only if `len` is given.
fn lookup_remote_in(
    keys: &Keys,
    qp_serial: u64,
    pd_id: PdId,
    rkey: u32,
    need: u32,
    va: u64,
    len: Option<u32>,
) -> Option<Arc<RrxeMr>> {
    if crate::obj::mw::is_mw_key(keys, rkey) {
        let len = len.unwrap_or(0);
        return crate::obj::mw::lookup_remote(keys, qp_serial, pd_id, rkey, need, va, len);
    }
    let mr = keys.mrs.get(rkey >> 8)?;
    let range = len.map(|n| (va, n as usize));
    (mr.pd_id == pd_id && mr.admits(rkey, false, need, range)).then_some(mr)
}

impl RrxeMr {
    /// Copies from `va`, for a remote READ.
    pub(crate) fn read_remote(&self, va: u64, dst: &mut [u8]) -> Result {
        self.read(va, dst)
    }

    /// Appends `n` bytes from `va` to `dst`, for a remote READ's response.
    pub(crate) fn read_remote_into(&self, va: u64, n: usize, dst: &mut Filler<'_>) -> Result {
        self.read_into(va, n, dst)
    }

    /// Copies `src` to `va`, for a remote WRITE.
    pub(crate) fn write_remote(&self, va: u64, src: &[u8]) -> Result {
        self.write(va, src)
    }
}

/// The largest range one [`Miss`] faults in at a time: a READ asks for its
/// whole length at once, and a fault of it all could sleep for long and
/// populate much memory before any of it is used.
pub(crate) const MAX_FAULT: usize = 1 << 20;

/// An access to an on-demand-paging MR that found a page not resident: the
/// range to fault in, from a context that may sleep, before the access runs
/// again. It names the MR by key and holds no reference, so the QP state it is
/// kept in may be dropped anywhere.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Miss {
    key: u32,
    iova: u64,
    len: u32,
    write: bool,
}

impl Miss {
    /// The miss of an access of `len` bytes at `iova` of `mr`.
    pub(crate) fn of(mr: &RrxeMr, iova: u64, len: usize, write: bool) -> Self {
        Self {
            key: mr.keys.lkey,
            iova,
            len: len.min(MAX_FAULT) as u32,
            write,
        }
    }

    /// Faults the range in, if its MR is still registered. May sleep, so it is
    /// called from a work item, outside its RCU section; the MR found holds the
    /// device's memory only until it returns (a deregistration that came
    /// meanwhile then releases it here).
    pub(crate) fn fault(&self, keys: &Keys) -> Result {
        kernel::task::might_sleep();
        let mr = keys.mrs.get(self.key >> 8).ok_or(ENOENT)?;
        if mr.keys.lkey != self.key {
            return Err(ENOENT);
        }
        mr.fault(self.iova, self.len as usize, self.write)
    }
}

/// Walks a WQE's scatter/gather list, copying to or from the memory it names.
/// Lives on the stack of one copy; it holds the current SGE's MR, and takes the
/// MR's map lock for each page it reaches.
pub(crate) struct SgeCursor<'a> {
    keys: &'a Keys,
    pd_id: PdId,
    sgl: &'a [Sge],
    /// Current SGE and the offset into it.
    idx: usize,
    off: u32,
    /// The current SGE's MR, looked up once per SGE.
    mr: Option<Arc<RrxeMr>>,
    /// The page a copy stopped at with `EAGAIN`.
    miss: Option<Miss>,
}

impl<'a> SgeCursor<'a> {
    pub(crate) fn new(keys: &'a Keys, pd_id: PdId, sgl: &'a [Sge]) -> Self {
        Self {
            keys,
            pd_id,
            sgl,
            idx: 0,
            off: 0,
            mr: None,
            miss: None,
        }
    }

    /// Where the last copy that failed with `EAGAIN` found a page not resident.
    pub(crate) fn miss(&self) -> Option<Miss> {
        self.miss
    }

    /// A cursor resuming at `pos`, a [`SgeCursor::position`] of an earlier one.
    pub(crate) fn at(keys: &'a Keys, pd_id: PdId, sgl: &'a [Sge], pos: (usize, u32)) -> Self {
        let mut c = Self::new(keys, pd_id, sgl);
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
        mut op: impl FnMut(&RrxeMr, u64, core::ops::Range<usize>) -> Result,
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
                self.mr = Some(lookup_local(self.keys, self.pd_id, sge.lkey, need).ok_or(EACCES)?);
            }
            let n = left.min(len - done);
            let iova = sge.addr.checked_add(u64::from(self.off)).ok_or(EFAULT)?;
            if let Some(mr) = self.mr.as_deref() {
                if let Err(e) = op(mr, iova, done..done + n) {
                    if e == EAGAIN {
                        // The rest of the SGE is faulted in with it: the next
                        // packets of the message need it too.
                        let write = need & access::LOCAL_WRITE != 0;
                        self.miss = Some(Miss::of(mr, iova, left, write));
                    }
                    return Err(e);
                }
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

    /// Appends `n` bytes of the list's memory to `dst`.
    pub(crate) fn read_into(&mut self, n: usize, dst: &mut Filler<'_>) -> Result {
        self.walk(n, 0, |mr, iova, r| mr.read_into(iova, r.len(), dst))
    }
}

#[kernel::macros::kunit_tests(rrxe_fast_mr)]
mod tests {
    use super::*;

    /// Three 4 KiB pages at made-up addresses, mapping 10,000 bytes from an IOVA
    /// 0x100 into the first page (as `ib_sg_to_pages` leaves a first SGE's offset).
    fn list() -> PageList {
        let mut l = PageList::new(3).unwrap();
        for a in [0x10_000u64, 0x50_000, 0x20_000] {
            l.pages.push(a, GFP_KERNEL).unwrap();
        }
        (l.iova, l.length, l.page_shift) = (0xabc_0100, 10_000, 12);
        l
    }

    #[test]
    fn locate_follows_a_moved_iova() {
        // xprtrdma puts the RPC's XID in the IOVA's upper 32 bits after
        // `ib_map_mr_sg`: REG_MR maps the same pages at the IOVA posted.
        let mut l = list();
        l.iova = 0x1234_5678_0abc_0100;
        assert_eq!(l.locate(0x1234_5678_0abc_0100, 16), Some((0x10_100, 16)));
        assert_eq!(
            l.locate(0x1234_5678_0abc_1000, 4096),
            Some((0x50_000, 4096))
        );
        assert_eq!(l.locate(0xabc_0100, 16), None);
    }

    #[test]
    fn locate_follows_the_page_list() {
        let l = list();
        // The start, at the first page's offset.
        assert_eq!(l.locate(0xabc_0100, 16), Some((0x10_100, 16)));
        // A piece stops at the end of its page.
        assert_eq!(l.locate(0xabc_0100, 8192), Some((0x10_100, 0xf00)));
        // The next byte is at the start of the second page, wherever it is.
        assert_eq!(l.locate(0xabc_1000, 4096), Some((0x50_000, 4096)));
        // The last byte of the mapping.
        assert_eq!(l.locate(0xabc_0100 + 9_999, 1), Some((0x20_000 + 0x80f, 1)));
    }

    #[test]
    fn locate_refuses_outside_the_mapping() {
        let l = list();
        assert_eq!(l.locate(0xabc_00ff, 1), None);
        assert_eq!(l.locate(0xabc_0100 + 9_999, 2), None);
        assert_eq!(l.locate(u64::MAX, 1), None);
        // Never past the list, even if the length claims more.
        let mut short = list();
        short.length = 20_000;
        assert_eq!(short.locate(0xabc_0100 + 12_500, 1), None);
    }
}
