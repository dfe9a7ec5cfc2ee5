// SPDX-License-Identifier: GPL-2.0

//! Socket buffers (`struct sk_buff`), owned.
//!
//! C headers: [`include/linux/skbuff.h`](srctree/include/linux/skbuff.h).

use super::{netdev::NetDevice, route::Dst};
use crate::{alloc::Flags, bindings, error::to_result, fill::Filler, prelude::*, sync::Arc};
use core::ptr::NonNull;

/// An owned socket buffer. Dropping it frees it as a drop (`kfree_skb`); a buffer
/// that was used up as intended is released with [`SkBuff::consume`] instead, so
/// drop monitors only see real drops.
///
/// # Invariants
///
/// `0` is a valid `struct sk_buff` owned by this value and not shared (no clones).
pub struct SkBuff(NonNull<bindings::sk_buff>);

// SAFETY: An unshared skb may be handed to and freed on any CPU.
unsafe impl Send for SkBuff {}

impl SkBuff {
    /// Allocates a buffer with `size` bytes of linear room (`alloc_skb`); all of it
    /// is tailroom until [`SkBuff::reserve`] moves the start.
    #[inline]
    pub fn alloc(size: u32, gfp: Flags) -> Result<Self> {
        // SAFETY: Any size and flags are valid; NUMA_NO_NODE is -1.
        let p = unsafe { bindings::__alloc_skb(size, gfp.as_raw(), 0, -1) };
        Ok(Self(NonNull::new(p).ok_or(ENOMEM)?))
    }

    /// Takes ownership of a raw skb.
    ///
    /// # Safety
    ///
    /// `ptr` is a valid skb whose ownership (one reference, not cloned) passes to the
    /// returned value.
    #[inline]
    pub unsafe fn from_raw(ptr: *mut bindings::sk_buff) -> Self {
        // SAFETY: The caller guarantees a valid, owned pointer; NULL is not valid.
        Self(unsafe { NonNull::new_unchecked(ptr) })
    }

    /// Gives up ownership of the raw skb.
    #[inline]
    pub fn into_raw(self) -> *mut bindings::sk_buff {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }

    #[inline]
    fn raw(&self) -> *mut bindings::sk_buff {
        self.0.as_ptr()
    }

    /// Frees a buffer that was used up as intended (`consume_skb`).
    #[inline]
    pub fn consume(self) {
        // SAFETY: We own the skb; it is freed once.
        #[cfg(CONFIG_TRACEPOINTS)]
        unsafe {
            bindings::consume_skb(self.into_raw())
        };
        // Without tracepoints `consume_skb` is an inline `kfree_skb`.
        // SAFETY: As above.
        #[cfg(not(CONFIG_TRACEPOINTS))]
        unsafe {
            bindings::kfree_skb(self.into_raw())
        };
    }

    /// Total data length, linear and paged.
    #[inline]
    pub fn len(&self) -> u32 {
        // SAFETY: Valid skb by the type invariant.
        unsafe { (*self.raw()).len }
    }

    /// Whether the buffer holds no data.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of room before the data.
    #[inline]
    pub fn headroom(&self) -> u32 {
        // SAFETY: Valid skb by the type invariant.
        unsafe { bindings::skb_headroom(self.raw()) }
    }

    /// Bytes of room after the linear data.
    #[inline]
    pub fn tailroom(&self) -> u32 {
        // SAFETY: Valid skb by the type invariant.
        let n = unsafe { bindings::skb_tailroom(self.raw()) };
        n.max(0) as u32
    }

    /// Moves the (empty) data area `len` bytes back to make headroom.
    #[inline]
    pub fn reserve(&mut self, len: u32) -> Result {
        if !self.is_empty() || len > self.tailroom() {
            return Err(EINVAL);
        }
        // SAFETY: The skb is empty and has `len` bytes of tailroom.
        unsafe { bindings::skb_reserve(self.raw(), len as i32) };
        Ok(())
    }

    /// Appends `n` bytes to the linear data and returns them, zeroed.
    #[inline]
    pub fn put(&mut self, n: u32) -> Result<&mut [u8]> {
        if n > self.tailroom() || self.data_len() != 0 {
            return Err(ENOSPC);
        }
        // SAFETY: The room is there (checked), so `skb_put` does not panic; the
        // returned area is `n` bytes of this skb's linear data, exclusively ours.
        unsafe {
            let p = bindings::skb_put(self.raw(), n).cast::<u8>();
            core::ptr::write_bytes(p, 0, n as usize);
            Ok(core::slice::from_raw_parts_mut(p, n as usize))
        }
    }

    /// Appends `n` bytes of tailroom to the data, written by `fill` through a
    /// [`Filler`]. They are not zeroed first, as [`SkBuff::put`]'s are: what
    /// `fill` leaves unwritten is zeroed after it returns, so no stale memory
    /// goes out. Returns what `fill` returned and the bytes it left unwritten.
    #[inline]
    pub fn put_filled<R>(
        &mut self,
        n: u32,
        fill: impl FnOnce(&mut Filler<'_>) -> R,
    ) -> Result<(R, usize)> {
        if n > self.tailroom() || self.data_len() != 0 {
            return Err(ENOSPC);
        }
        // SAFETY: The room is there (checked), so `skb_put` does not panic; the
        // returned area is `n` bytes of this skb's linear data, exclusively ours.
        let p = unsafe { bindings::skb_put(self.raw(), n) }.cast::<u8>();
        // SAFETY: `p` is valid for `n` bytes (above), viewed as possibly
        // uninitialised; nothing else refers to them while the slice lives.
        let area = unsafe { core::slice::from_raw_parts_mut(p.cast(), n as usize) };
        let mut w = Filler::new(area);
        let r = fill(&mut w);
        if !w.covers(p, n as usize) {
            // `fill` swapped the filler for another: nothing is known of the area.
            // SAFETY: `p` is valid for writes of `n` bytes, and the filler that
            // borrowed them is gone (its lifetime cannot escape `fill`).
            unsafe { core::ptr::write_bytes(p, 0, n as usize) };
            return Ok((r, n as usize));
        }
        let unwritten = w.remaining();
        w.finish();
        Ok((r, unwritten))
    }

    /// Prepends `n` bytes of headroom to the data and returns them (uninitialised
    /// contents are zeroed first).
    #[inline]
    pub fn push(&mut self, n: u32) -> Result<&mut [u8]> {
        if n > self.headroom() {
            return Err(ENOSPC);
        }
        // SAFETY: The room is there (checked); the area is ours and `n` bytes long.
        unsafe {
            let p = bindings::skb_push(self.raw(), n).cast::<u8>();
            core::ptr::write_bytes(p, 0, n as usize);
            Ok(core::slice::from_raw_parts_mut(p, n as usize))
        }
    }

    /// Removes `n` bytes from the start of the linear data.
    #[inline]
    pub fn pull(&mut self, n: u32) -> Result {
        if n > self.headlen() {
            return Err(EINVAL);
        }
        // SAFETY: `n` linear bytes exist (checked).
        unsafe { bindings::skb_pull(self.raw(), n) };
        Ok(())
    }

    /// Bytes held in pages rather than the linear area.
    #[inline]
    fn data_len(&self) -> u32 {
        // SAFETY: Valid skb by the type invariant.
        unsafe { (*self.raw()).data_len }
    }

    /// Bytes in the linear area.
    #[inline]
    pub fn headlen(&self) -> u32 {
        // SAFETY: Valid skb by the type invariant.
        unsafe { bindings::skb_headlen(self.raw()) }
    }

    /// Pulls all data into the linear area, so [`SkBuff::data`] covers all of it.
    #[inline]
    pub fn linearize(&mut self) -> Result {
        // SAFETY: Valid, unshared skb.
        to_result(unsafe { bindings::skb_linearize(self.raw()) })
    }

    /// The linear data (all of it after [`SkBuff::linearize`]).
    #[inline]
    pub fn data(&self) -> &[u8] {
        // SAFETY: `data` points at `headlen` readable bytes of this skb.
        unsafe { core::slice::from_raw_parts((*self.raw()).data, self.headlen() as usize) }
    }

    /// The linear data, writable.
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: As `data`; the skb is unshared, so writing is exclusive.
        unsafe { core::slice::from_raw_parts_mut((*self.raw()).data, self.headlen() as usize) }
    }

    /// Marks the current data start as the network (IP) header.
    #[inline]
    pub fn reset_network_header(&mut self) {
        // SAFETY: Valid skb by the type invariant.
        unsafe { bindings::skb_reset_network_header(self.raw()) };
    }

    /// Marks the current data start as the transport (UDP) header.
    #[inline]
    pub fn reset_transport_header(&mut self) {
        // SAFETY: Valid skb by the type invariant.
        unsafe { bindings::skb_reset_transport_header(self.raw()) };
    }

    /// The bytes from the network header to the end of the linear data, or an empty
    /// slice if the network header is not set or lies after the data start.
    #[inline]
    pub fn network_data(&self) -> &[u8] {
        // SAFETY: Valid skb; the network header, when set, points into the head
        // buffer, and the span up to `data + headlen` is readable.
        unsafe {
            let skb = self.raw();
            let nh = bindings::skb_network_header(skb);
            let end = (*skb).data.add(self.headlen() as usize);
            let head = (*skb).head;
            if nh < head || nh > (*skb).data {
                return &[];
            }
            core::slice::from_raw_parts(nh, end.offset_from(nh) as usize)
        }
    }

    /// Sets the protocol (`ETH_P_*`, host order).
    #[inline]
    pub fn set_protocol(&mut self, eth_p: u16) {
        // SAFETY: Valid skb.
        unsafe { bindings::skb_set_protocol(self.raw(), eth_p.to_be()) };
    }

    /// Sets the device the buffer leaves through. The skb does not hold a reference:
    /// the caller keeps the device alive until the skb is handed to the stack.
    #[inline]
    pub fn set_dev(&mut self, dev: &NetDevice) {
        // SAFETY: Valid skb; `dev` is a live device. The field is a union member.
        unsafe {
            (*self.raw())
                .__bindgen_anon_1
                .__bindgen_anon_1
                .__bindgen_anon_1
                .dev = dev.as_raw()
        };
    }

    /// The device the buffer arrived on or leaves through.
    #[inline]
    pub fn dev(&self) -> Option<&NetDevice> {
        // SAFETY: Valid skb; a received skb's device stays alive while the skb is
        // processed in the receive path (under RCU), which the borrow cannot outlive.
        unsafe {
            let d = (*self.raw())
                .__bindgen_anon_1
                .__bindgen_anon_1
                .__bindgen_anon_1
                .dev;
            (!d.is_null()).then(|| NetDevice::from_raw(d))
        }
    }

    /// Makes `owner` the owner of this packet until it leaves the sender's hands:
    /// [`TxOwner::tx_done`] runs with `owner` when the stack orphans the packet (a
    /// delaying qdisc, or the receiving host's IP layer) or frees it. This is
    /// `skb->destructor`, with the reference kept in the shared info's
    /// `destructor_arg`, as SCTP and AF_XDP keep theirs; it needs no socket.
    ///
    /// Fails with `EBUSY` if the packet already has a destructor.
    #[inline]
    pub fn set_tx_owner<T: TxOwner>(&mut self, owner: Arc<T>) -> Result {
        let skb = self.raw();
        // SAFETY: A valid skb; the destructor pointer is a plain field.
        if unsafe { (*skb).__bindgen_anon_3.__bindgen_anon_1.destructor }.is_some() {
            return Err(EBUSY);
        }
        // `destructor_arg` is otherwise read only for zero-copy buffers, which
        // `SkBuff` never makes (no `SKBFL_ZEROCOPY_*` flag is set), and clones do
        // not inherit the destructor, so it runs once, for this skb only.
        // SAFETY: We own the unshared skb, so its destructor and shared info are ours.
        unsafe {
            (*bindings::skb_shinfo(skb)).__bindgen_anon_2.destructor_arg =
                Arc::into_raw(owner).cast_mut().cast();
            (*skb).__bindgen_anon_3.__bindgen_anon_1.destructor = Some(tx_destructor::<T>);
        }
        Ok(())
    }

    /// Attaches a route; the skb takes over the reference.
    #[inline]
    pub fn set_dst(&mut self, dst: Dst) {
        // SAFETY: Valid skb; `skb_dst_set` takes over the counted reference.
        unsafe { bindings::skb_dst_set(self.raw(), dst.into_raw()) };
    }
}

impl Drop for SkBuff {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: We own the skb; it is freed once.
        unsafe { bindings::kfree_skb(self.raw()) };
    }
}

/// The owner of sent packets, told when each is done ([`SkBuff::set_tx_owner`]).
pub trait TxOwner: Send + Sync + Sized {
    /// One packet owned by `this` left the sender's hands; `this` is the reference
    /// it held. Runs in any context but a hard interrupt, possibly with interrupts
    /// disabled and with locks of the stack held, so it must not sleep or take a
    /// lock that is held while packets are freed.
    fn tx_done(this: Arc<Self>);
}

/// `skb->destructor` for [`SkBuff::set_tx_owner`].
///
/// # Safety
///
/// `skb` is a valid skb whose `destructor_arg` holds a reference made by
/// [`Arc::into_raw`] for an `Arc<T>`, given up to this call, which runs once.
unsafe extern "C" fn tx_destructor<T: TxOwner>(skb: *mut bindings::sk_buff) {
    // SAFETY: By the function's safety requirements, the argument is an `Arc<T>`
    // reference that is ours now.
    let owner = unsafe {
        Arc::from_raw(
            (*bindings::skb_shinfo(skb))
                .__bindgen_anon_2
                .destructor_arg
                .cast_const()
                .cast::<T>(),
        )
    };
    T::tx_done(owner);
}

/// Room a device needs in front of its packets for its link-layer header
/// (`LL_RESERVED_SPACE`).
#[inline]
pub fn ll_reserved_space(dev: &NetDevice) -> u32 {
    // SAFETY: The device is valid.
    unsafe { bindings::netdev_ll_reserved_space(dev.as_raw()) }
}
