// SPDX-License-Identifier: GPL-2.0

//! Kernel UDP tunnel sockets: a bound UDP port whose packets go to a driver's
//! receive hook (`encap_rcv`) instead of a socket queue.
//!
//! C header: [`include/net/udp_tunnel.h`](srctree/include/net/udp_tunnel.h).

use super::{namespace::Namespace, skb::SkBuff};
use crate::{bindings, error::to_result, prelude::*};
use core::{marker::PhantomData, ptr::NonNull};

/// Receives the packets of a tunnel socket.
pub trait EncapReceiver: 'static {
    /// Called in softirq context under `rcu_read_lock`, with `skb->data` at the UDP
    /// header. The skb is the receiver's: it consumes or drops it.
    fn receive(skb: SkBuff);
}

/// Address family of a tunnel socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// IPv4 (`AF_INET`).
    V4,
    /// IPv6 only (`AF_INET6` with `IPV6_V6ONLY`), accepting zero UDP checksums.
    V6,
}

/// A UDP tunnel socket bound to a port on all addresses of a namespace. Released
/// on drop, which may sleep.
///
/// # Invariants
///
/// `sock` is a live kernel socket set up as a tunnel socket, owned by this value.
pub struct TunnelSocket<T: EncapReceiver> {
    sock: NonNull<bindings::socket>,
    _t: PhantomData<T>,
}

// SAFETY: The socket is only released (once) through this value; the networking
// core synchronises everything else.
unsafe impl<T: EncapReceiver> Send for TunnelSocket<T> {}
// SAFETY: Shared references do not touch the socket.
unsafe impl<T: EncapReceiver> Sync for TunnelSocket<T> {}

impl<T: EncapReceiver> TunnelSocket<T> {
    /// Binds UDP `port` (host order) in `net`. Fails with `EADDRINUSE` when another
    /// socket owns the port in that namespace.
    pub fn new(net: &Namespace, family: Family, port: u16) -> Result<Self> {
        let mut cfg: bindings::udp_port_cfg = pin_init::zeroed();
        cfg.local_udp_port = port.to_be();
        let mut sock: *mut bindings::socket = core::ptr::null_mut();
        // SAFETY: `net` is live and `cfg` complete (wildcard address, zero UDP
        // checksums accepted on IPv6, as RoCE v2 senders use them); on success
        // `sock` is a new kernel socket that we own.
        to_result(unsafe {
            match family {
                Family::V4 => {
                    cfg.family = bindings::AF_INET as u8;
                    bindings::udp_sock_create4(net.as_raw(), &mut cfg, &mut sock)
                }
                Family::V6 => {
                    cfg.family = bindings::AF_INET6 as u8;
                    cfg.set_ipv6_v6only(1);
                    bindings::udp_sock_create6(net.as_raw(), &mut cfg, &mut sock)
                }
            }
        })?;
        let sock = NonNull::new(sock).ok_or(ENOMEM)?;
        let mut tcfg: bindings::udp_tunnel_sock_cfg = pin_init::zeroed();
        tcfg.encap_type = 1;
        tcfg.encap_rcv = Some(Self::encap_rcv);
        // SAFETY: `sock` is the new socket; its `sk` is valid. From here on packets
        // to the port go to `encap_rcv`.
        unsafe { bindings::setup_udp_tunnel_sock(net.as_raw(), (*sock.as_ptr()).sk, &mut tcfg) };
        Ok(Self {
            sock,
            _t: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Called by the UDP receive path for a socket set up by [`Self::new`], with an
    /// skb that the callee owns.
    unsafe extern "C" fn encap_rcv(
        _sk: *mut bindings::sock,
        skb: *mut bindings::sk_buff,
    ) -> crate::ffi::c_int {
        // SAFETY: Ownership of the skb passes to the hook.
        T::receive(unsafe { SkBuff::from_raw(skb) });
        // Consumed (or dropped): never passed on to normal UDP processing.
        0
    }
}

impl<T: EncapReceiver> Drop for TunnelSocket<T> {
    fn drop(&mut self) {
        crate::task::might_sleep();
        // SAFETY: We own the socket; it is released once. Receivers still running
        // under RCU keep using only the skb they were given.
        unsafe { bindings::udp_tunnel_sock_release((*self.sock.as_ptr()).sk) };
    }
}
