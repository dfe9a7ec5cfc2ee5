// SPDX-License-Identifier: GPL-2.0

//! The user verbs ABI: a verb's provider-specific data ([`UData`], `struct
//! ib_udata`), the legacy `write()` commands a provider may ask the core to enable
//! ([`WriteCmds`]), and the user ABI's numbering of opcodes and access flags.
//!
//! The kernel shares most of its numbering with user space (`enum ib_wr_opcode` is
//! defined from `enum ib_uverbs_wr_opcode`, and so on); the types here are for a
//! provider whose user ABI (its rings, its commands) carries the user numbers.
//!
//! C headers: [`include/uapi/rdma/ib_user_verbs.h`](srctree/include/uapi/rdma/ib_user_verbs.h),
//! [`include/uapi/rdma/ib_user_ioctl_verbs.h`](srctree/include/uapi/rdma/ib_user_ioctl_verbs.h),
//! [`include/rdma/uverbs_ioctl.h`](srctree/include/rdma/uverbs_ioctl.h).

use super::{
    device::{Device, Driver},
    object::ObjWith,
    wr::Wc,
};
use crate::{
    bindings,
    error::{to_result, Result},
    prelude::*,
};
use core::mem::size_of;
use zerocopy::{FromBytes, Immutable, IntoBytes};

/// The provider-specific part of a uverbs command and its response (`struct
/// ib_udata`).
///
/// Lifetime: one verb's call; the trampolines hand out a `&UData` borrowed from
/// their own frame. Locking: none; the process that issued the verb waits for it,
/// and its buffers are user memory, read and written with `copy_{from,to}_user`.
///
/// # Invariants
///
/// `ptr` is a valid `ib_udata` embedded in a `uverbs_attr_bundle`, for as long as
/// the verb that received it runs; the value never outlives that call (the
/// trampolines hand out `&UData` borrowed from their own frame).
pub struct UData {
    ptr: *mut bindings::ib_udata,
    /// The verb's user context has its provider data: false only for
    /// `alloc_ucontext` itself, which runs before the data is written.
    ctx_ready: bool,
}

impl UData {
    /// # Safety
    ///
    /// `ptr` must be null or a valid `ib_udata`, embedded in a uverbs attribute
    /// bundle, for the lifetime of the returned value.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::ib_udata) -> Option<UData> {
        if ptr.is_null() {
            None
        } else {
            // INVARIANT: Per the contract.
            Some(UData {
                ptr,
                ctx_ready: true,
            })
        }
    }

    /// As [`UData::from_raw`], for `alloc_ucontext`: the context the verb
    /// creates has no provider data yet, so [`UData::ucontext`] gives none.
    ///
    /// # Safety
    ///
    /// As [`UData::from_raw`].
    pub(crate) unsafe fn from_raw_new_context(ptr: *mut bindings::ib_udata) -> Option<UData> {
        // SAFETY: Per the contract.
        unsafe { Self::from_raw(ptr) }.map(|u| UData {
            ctx_ready: false,
            ..u
        })
    }

    /// The provider data of the user context the verb runs in
    /// ([`Operations::alloc_ucontext`](super::ucontext::Operations::alloc_ucontext)'s
    /// value), if that context belongs to `dev`; `None` inside `alloc_ucontext`.
    /// A provider reads there what the process negotiated when it opened the
    /// device.
    pub fn ucontext<'a, T: Driver>(&'a self, dev: &Device<T>) -> Option<&'a T::UContext> {
        if !self.ctx_ready {
            return None;
        }
        // SAFETY: `ptr` is valid and in an attribute bundle (type invariant).
        let ctx = unsafe { bindings::rdma_udata_ucontext(self.ptr) };
        // SAFETY: A non-null context is valid for the verb's call, which holds
        // the uverbs file and so the context.
        if ctx.is_null() || unsafe { (*ctx).device } != dev.as_raw() {
            return None;
        }
        let ctx = ctx.cast::<ObjWith<bindings::ib_ucontext, T::UContext>>();
        // SAFETY: The context belongs to `dev`, a device of `T`, so the core
        // allocated it at `T`'s `size_ib_ucontext` and `alloc_cb::<T>` wrote its
        // data before any other verb of the context could run (`ctx_ready`); the
        // data is dropped only in `dealloc_ucontext`, after this verb returns.
        let data = unsafe { &(*ctx).data };
        Some(data)
    }

    /// Bytes of provider input.
    pub fn in_len(&self) -> usize {
        // SAFETY: `ptr` is valid by the type invariant.
        unsafe { (*self.ptr).inlen }
    }

    /// Bytes of provider output space.
    pub fn out_len(&self) -> usize {
        // SAFETY: `ptr` is valid by the type invariant.
        unsafe { (*self.ptr).outlen }
    }

    /// Whether the input from `offset` on is all zero: unknown trailing input must be
    /// zero so that a newer user space cannot ask for something silently ignored.
    pub fn input_cleared_from(&self, offset: usize) -> bool {
        let len = self.in_len();
        if offset >= len {
            return true;
        }
        // SAFETY: `ptr` is valid; the helper reads user memory with copy_from_user.
        unsafe { bindings::ib_is_udata_cleared(self.ptr, offset, len - offset) }
    }

    /// Copies the provider request into a `T`, as `ib_copy_validate_udata_in` does:
    /// fewer than `min` bytes is `EINVAL`; input past `size_of::<T>()` must be zero
    /// (`EOPNOTSUPP` otherwise); a shorter request leaves the rest of `T` zeroed.
    ///
    /// `T` is a provider ABI struct: `#[derive(FromBytes)]` checks that every bit
    /// pattern of it is valid, so the driver writes no `unsafe impl`.
    pub fn copy_in<T: FromBytes>(&self, min: usize) -> Result<T> {
        let mut v = T::new_zeroed();
        // SAFETY: `ptr` is valid; `v` is a `T` of the size passed, and any bytes
        // written into it make a valid `T` (`T: FromBytes`).
        to_result(unsafe {
            bindings::_ib_copy_validate_udata_in(self.ptr, (&raw mut v).cast(), size_of::<T>(), min)
        })?;
        Ok(v)
    }

    /// Sends the provider response `v`, as `ib_respond_udata` does: at most the
    /// buffer's length is copied and any space beyond `v` is cleared.
    ///
    /// `T` is a provider ABI struct: `#[derive(IntoBytes, Immutable)]` checks that
    /// it has no padding and no interior mutability.
    pub fn respond<T: IntoBytes + Immutable>(&self, v: &T) -> Result {
        let bytes = v.as_bytes();
        // SAFETY: `ptr` is valid; `bytes` is valid for reads of its length.
        to_result(unsafe {
            bindings::_ib_respond_udata(self.ptr, bytes.as_ptr().cast(), bytes.len())
        })
    }

    /// Makes `buf` mappable by the process that issued this verb, and returns the
    /// `mmap` offset to report to it.
    pub fn publish(&self, buf: &mut super::shared_buf::SharedBuf) -> Result<u64> {
        // SAFETY: The udata is in a uverbs attribute bundle (type invariant) whose
        // context is the caller's valid ucontext, which exists only if the driver
        // implements `alloc_ucontext`; that also installs the shared-buffer `mmap` ops.
        unsafe { buf.publish(bindings::rdma_udata_ucontext(self.ptr)) }
    }

    /// Fails with `EOPNOTSUPP` unless the verb carries no provider data at all, for
    /// verbs whose provider ABI has none.
    pub fn expect_empty(udata: Option<&UData>) -> Result {
        match udata {
            Some(u) if u.out_len() != 0 || !u.input_cleared_from(0) => Err(EOPNOTSUPP),
            _ => Ok(()),
        }
    }
}

/// Writes `v` to user memory at `addr` (e.g. a response address passed in a
/// provider's request).
pub fn write_user<V: IntoBytes + Immutable>(addr: u64, v: &V) -> Result {
    let addr = usize::try_from(addr).map_err(|_| EFAULT)?;
    let bytes = v.as_bytes();
    crate::uaccess::UserSlice::new(crate::uaccess::UserPtr::from_addr(addr), bytes.len())
        .writer()
        .write_slice(bytes)
}

const fn write_cmd(cmd: u32) -> u64 {
    1u64 << cmd
}

c_flags! {
    /// Legacy `write()` commands (`enum ib_uverbs_write_cmds`) that the core only
    /// accepts for a device whose provider asks for them in `uverbs_cmd_mask`: the
    /// data-path commands, which most providers' user-space libraries never issue
    /// because they post to and poll mapped queues themselves.
    ///
    /// A provider lists those its user-space library does issue in
    /// [`Driver::LEGACY_WRITE_CMDS`](super::Driver::LEGACY_WRITE_CMDS). For example
    /// rdma-core's rxe provider rings its send queue's doorbell with `POST_SEND`
    /// and arms its CQs with `REQ_NOTIFY_CQ`; siw's uses `POST_SEND` as its doorbell.
    pub struct WriteCmds(u64);

    /// One command of [`WriteCmds`].
    pub enum WriteCmd {
        /// `IB_USER_VERBS_CMD_POLL_CQ`.
        PollCq = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POLL_CQ),
        /// `IB_USER_VERBS_CMD_PEEK_CQ`.
        PeekCq = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_PEEK_CQ),
        /// `IB_USER_VERBS_CMD_REQ_NOTIFY_CQ`.
        ReqNotifyCq = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_REQ_NOTIFY_CQ),
        /// `IB_USER_VERBS_CMD_POST_SEND`: for a QP with a user-mapped send queue
        /// this reaches [`qp::Operations::post_send_user`](super::qp::Operations::post_send_user).
        PostSend = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POST_SEND),
        /// `IB_USER_VERBS_CMD_POST_RECV`.
        PostRecv = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POST_RECV),
        /// `IB_USER_VERBS_CMD_POST_SRQ_RECV`.
        PostSrqRecv = write_cmd(bindings::ib_uverbs_write_cmds_IB_USER_VERBS_CMD_POST_SRQ_RECV),
    }
}

c_enum! {
    /// The opcode of a user work request (`enum ib_uverbs_wr_opcode`), as user
    /// space writes it into `struct ib_uverbs_send_wr` or a provider's send ring.
    /// Each equals the [`wr::WrOpcode`](super::wr::WrOpcode) of the same name.
    pub enum WrOpcode: u32 {
        /// `IB_UVERBS_WR_RDMA_WRITE`.
        RdmaWrite = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_RDMA_WRITE,
        /// `IB_UVERBS_WR_RDMA_WRITE_WITH_IMM`.
        RdmaWriteWithImm = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
        /// `IB_UVERBS_WR_SEND`.
        Send = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_SEND,
        /// `IB_UVERBS_WR_SEND_WITH_IMM`.
        SendWithImm = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_SEND_WITH_IMM,
        /// `IB_UVERBS_WR_RDMA_READ`.
        RdmaRead = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_RDMA_READ,
        /// `IB_UVERBS_WR_ATOMIC_CMP_AND_SWP`.
        AtomicCmpAndSwp = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
        /// `IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD`.
        AtomicFetchAndAdd = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
        /// `IB_UVERBS_WR_LOCAL_INV`.
        LocalInv = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_LOCAL_INV,
        /// `IB_UVERBS_WR_BIND_MW`.
        BindMw = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_BIND_MW,
        /// `IB_UVERBS_WR_SEND_WITH_INV`.
        SendWithInv = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_SEND_WITH_INV,
        /// `IB_UVERBS_WR_TSO`.
        Tso = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_TSO,
        /// `IB_UVERBS_WR_RDMA_READ_WITH_INV`.
        RdmaReadWithInv = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_RDMA_READ_WITH_INV,
        /// `IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP`.
        MaskedAtomicCmpAndSwp =
            bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
        /// `IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD`.
        MaskedAtomicFetchAndAdd =
            bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
        /// `IB_UVERBS_WR_FLUSH`.
        Flush = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_FLUSH,
        /// `IB_UVERBS_WR_ATOMIC_WRITE`.
        AtomicWrite = bindings::ib_uverbs_wr_opcode_IB_UVERBS_WR_ATOMIC_WRITE,
    }
}

c_enum! {
    /// The opcode of a user work completion (`enum ib_uverbs_wc_opcode`); receive
    /// completions carry [`wr::WcOpcode::Recv`](super::wr::WcOpcode::Recv) or
    /// [`wr::WcOpcode::RecvRdmaWithImm`](super::wr::WcOpcode::RecvRdmaWithImm),
    /// which the user header does not name. Each equals the
    /// [`wr::WcOpcode`](super::wr::WcOpcode) of the same name.
    pub enum WcOpcode: u32 {
        /// `IB_UVERBS_WC_SEND`.
        Send = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_SEND,
        /// `IB_UVERBS_WC_RDMA_WRITE`.
        RdmaWrite = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_RDMA_WRITE,
        /// `IB_UVERBS_WC_RDMA_READ`.
        RdmaRead = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_RDMA_READ,
        /// `IB_UVERBS_WC_COMP_SWAP`.
        CompSwap = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_COMP_SWAP,
        /// `IB_UVERBS_WC_FETCH_ADD`.
        FetchAdd = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_FETCH_ADD,
        /// `IB_UVERBS_WC_BIND_MW`.
        BindMw = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_BIND_MW,
        /// `IB_UVERBS_WC_LOCAL_INV`.
        LocalInv = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_LOCAL_INV,
        /// `IB_UVERBS_WC_TSO`.
        Tso = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_TSO,
        /// `IB_UVERBS_WC_FLUSH`.
        Flush = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_FLUSH,
        /// `IB_UVERBS_WC_ATOMIC_WRITE`.
        AtomicWrite = bindings::ib_uverbs_wc_opcode_IB_UVERBS_WC_ATOMIC_WRITE,
    }
}

c_flags! {
    /// Memory access flags as user space passes them (`enum
    /// ib_uverbs_access_flags`). The kernel's [`mr::AccessFlags`](super::mr::AccessFlags)
    /// have the same values.
    pub struct AccessFlags(u32);

    /// One flag of [`AccessFlags`].
    pub enum AccessFlag {
        /// `IB_UVERBS_ACCESS_LOCAL_WRITE`.
        LocalWrite = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_LOCAL_WRITE,
        /// `IB_UVERBS_ACCESS_REMOTE_WRITE`.
        RemoteWrite = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_REMOTE_WRITE,
        /// `IB_UVERBS_ACCESS_REMOTE_READ`.
        RemoteRead = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_REMOTE_READ,
        /// `IB_UVERBS_ACCESS_REMOTE_ATOMIC`.
        RemoteAtomic = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_REMOTE_ATOMIC,
        /// `IB_UVERBS_ACCESS_MW_BIND`.
        MwBind = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_MW_BIND,
        /// `IB_UVERBS_ACCESS_ZERO_BASED`.
        ZeroBased = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_ZERO_BASED,
        /// `IB_UVERBS_ACCESS_ON_DEMAND`.
        OnDemand = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_ON_DEMAND,
        /// `IB_UVERBS_ACCESS_HUGETLB`.
        Hugetlb = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_HUGETLB,
        /// `IB_UVERBS_ACCESS_FLUSH_GLOBAL`.
        FlushGlobal = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_FLUSH_GLOBAL,
        /// `IB_UVERBS_ACCESS_FLUSH_PERSISTENT`.
        FlushPersistent = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_FLUSH_PERSISTENT,
        /// `IB_UVERBS_ACCESS_RELAXED_ORDERING`.
        RelaxedOrdering = bindings::ib_uverbs_access_flags_IB_UVERBS_ACCESS_RELAXED_ORDERING,
    }
}

/// Size of `struct ib_uverbs_wc`, the completion user space reads.
pub const WC_SIZE: usize = size_of::<bindings::ib_uverbs_wc>();

impl Wc {
    /// The completion as the bytes of a `struct ib_uverbs_wc`, for a provider
    /// whose user CQ ring holds those (rxe's does).
    pub fn to_uverbs(&self) -> [u8; WC_SIZE] {
        let mut w: bindings::ib_uverbs_wc = pin_init::zeroed();
        w.wr_id = self.wr_id;
        w.status = self.status.into();
        // The user numbers are the kernel's (`enum ib_wc_opcode` is defined from
        // `enum ib_uverbs_wc_opcode`); user QPs never complete kernel-only ones.
        w.opcode = self.opcode.into();
        w.vendor_err = self.vendor_err;
        w.byte_len = self.byte_len;
        w.ex.imm_data = self.ex;
        w.qp_num = self.qp_num;
        w.src_qp = self.src_qp;
        w.wc_flags = self.wc_flags.bits();
        w.pkey_index = self.pkey_index;
        w.sl = self.sl;
        w.port_num = self.port_num;
        // SAFETY: `ib_uverbs_wc` is plain integers with no padding (48 bytes), so
        // each of its bytes is initialised.
        unsafe { core::mem::transmute(w) }
    }
}
