// SPDX-License-Identifier: GPL-2.0

//! IPv4 and IPv6 routes, and handing finished IP packets to the stack.
//!
//! C headers: [`include/net/route.h`](srctree/include/net/route.h),
//! [`include/net/ip6_route.h`](srctree/include/net/ip6_route.h).

use super::{namespace::Namespace, skb::SkBuff};
use crate::{bindings, error::from_err_ptr, prelude::*};
use core::ptr::NonNull;

/// `IPPROTO_UDP`.
const IPPROTO_UDP: u8 = 17;

/// A counted reference to a route (`struct dst_entry`). Released on drop.
///
/// # Invariants
///
/// `0` is a valid dst entry on which this value owns one reference.
pub struct Dst(NonNull<bindings::dst_entry>);

// SAFETY: Route references may be taken and released on any CPU.
unsafe impl Send for Dst {}
// SAFETY: Shared references only take more references and check the route,
// which the stack does concurrently too (`sk_dst_check`).
unsafe impl Sync for Dst {}

impl Dst {
    /// Gives up the reference, for a consumer that takes it over.
    #[inline]
    pub fn into_raw(self) -> *mut bindings::dst_entry {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl Clone for Dst {
    #[inline]
    fn clone(&self) -> Self {
        // SAFETY: We own a reference, so the entry is alive to take another.
        unsafe { bindings::dst_hold(self.0.as_ptr()) };
        Dst(self.0)
    }
}

impl Drop for Dst {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: We own one reference.
        unsafe { bindings::dst_release(self.0.as_ptr()) };
    }
}

/// A route kept for reuse, as a socket keeps its own (`sk_dst_cache`): a route
/// lookup per packet costs more than the check that the route still holds.
pub struct CachedDst {
    dst: Dst,
    /// What an IPv6 route is validated against (`rt6_get_cookie`); 0 for IPv4.
    cookie: u32,
}

impl CachedDst {
    /// Keeps another reference to `dst`.
    pub fn new(dst: &Dst) -> Self {
        let dst = dst.clone();
        let p = dst.0.as_ptr();
        // SAFETY: A valid dst entry; `ops` is set for every entry and never changes.
        let family = unsafe { (*(*p).ops).family };
        let cookie = if u32::from(family) == bindings::AF_INET6 {
            // SAFETY: An IPv6 route's entry is the first field of its `rt6_info`.
            unsafe { bindings::rt6_get_cookie(p.cast()) }
        } else {
            0
        };
        Self { dst, cookie }
    }

    /// Another reference to the route if it still holds: no routing change made it
    /// obsolete and its device did not go away (`dst_check`).
    #[inline]
    pub fn get(&self) -> Option<Dst> {
        // SAFETY: We own a reference to the entry, and `dst_check` may run
        // concurrently with other users of the route, as `sk_dst_check` does.
        let current = unsafe { bindings::dst_check(self.dst.0.as_ptr(), self.cookie) };
        (!current.is_null()).then(|| self.dst.clone())
    }
}

/// Looks up the IPv4 route for a UDP packet from `saddr` to `daddr` leaving
/// through interface `oif` (addresses in network byte order).
pub fn route4(net: &Namespace, oif: i32, saddr: [u8; 4], daddr: [u8; 4]) -> Result<Dst> {
    let mut fl: bindings::flowi4 = pin_init::zeroed();
    fl.__fl_common.flowic_oif = oif;
    fl.__fl_common.flowic_proto = IPPROTO_UDP;
    fl.saddr = u32::from_ne_bytes(saddr);
    fl.daddr = u32::from_ne_bytes(daddr);
    // SAFETY: `net` is valid and `fl` is a complete flow key; the result is a
    // counted route or an error pointer.
    let rt = from_err_ptr(unsafe {
        bindings::ip_route_output_flow(net.as_raw(), &mut fl, core::ptr::null())
    })?;
    // SAFETY: A valid `rtable`; its `dst` carries the reference we now own.
    let dst = unsafe { &raw mut (*rt).dst };
    Ok(Dst(NonNull::new(dst).ok_or(EHOSTUNREACH)?))
}

/// Looks up the IPv6 route for a UDP packet from `saddr` to `daddr` leaving
/// through interface `oif`.
pub fn route6(net: &Namespace, oif: i32, saddr: [u8; 16], daddr: [u8; 16]) -> Result<Dst> {
    let mut fl: bindings::flowi6 = pin_init::zeroed();
    fl.__fl_common.flowic_oif = oif;
    fl.__fl_common.flowic_proto = IPPROTO_UDP;
    fl.saddr.in6_u.u6_addr8 = saddr;
    fl.daddr.in6_u.u6_addr8 = daddr;
    // SAFETY: `net` is valid, a NULL socket is allowed, and the result is a counted
    // route or an error pointer.
    let dst = from_err_ptr(unsafe {
        bindings::ip6_dst_lookup_flow(net.as_raw(), core::ptr::null(), &mut fl, core::ptr::null())
    })?;
    let dst = Dst(NonNull::new(dst).ok_or(EHOSTUNREACH)?);
    // SAFETY: A valid dst entry.
    if unsafe { (*dst.0.as_ptr()).error } != 0 {
        return Err(EHOSTUNREACH);
    }
    Ok(dst)
}

/// Picks the IP ID of an outgoing IPv4 header as the stack would
/// (`__ip_select_ident`). The header must be final apart from ID and checksum.
#[inline]
pub fn ipv4_select_ident(net: &Namespace, hdr: &mut [u8; 20]) {
    // SAFETY: `hdr` is a complete, writable `struct iphdr`, which only needs 2-byte
    // alignment for the fields written; `__ip_select_ident` writes only `id`.
    unsafe { bindings::__ip_select_ident(net.as_raw(), hdr.as_mut_ptr().cast(), 1) };
}

/// Sends a finished IPv4 packet (network header set, route attached). The stack
/// fills in the IP checksum and length. Returns the stack's verdict.
#[inline]
pub fn ip_local_out(net: &Namespace, skb: SkBuff) -> Result {
    // SAFETY: `net` is valid; the stack takes over the skb.
    let r = unsafe { bindings::ip_local_out(net.as_raw(), core::ptr::null_mut(), skb.into_raw()) };
    if r < 0 {
        Err(Error::from_errno(r))
    } else {
        Ok(())
    }
}

/// Sends a finished IPv6 packet (network header set, route attached).
#[inline]
pub fn ip6_local_out(net: &Namespace, skb: SkBuff) -> Result {
    // SAFETY: `net` is valid; the stack takes over the skb.
    let r = unsafe { bindings::ip6_local_out(net.as_raw(), core::ptr::null_mut(), skb.into_raw()) };
    if r < 0 {
        Err(Error::from_errno(r))
    } else {
        Ok(())
    }
}
