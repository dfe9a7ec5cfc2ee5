// SPDX-License-Identifier: GPL-2.0

//! The per-namespace port-4791 sockets that receive RoCE v2 packets.
//!
//! Each network namespace with an rrxe device has one IPv4 and one IPv6-only tunnel
//! socket on port 4791, shared by its devices and released with the last of them
//! or with the namespace. rdma_rxe may own 4791 in another namespace; in the same
//! namespace the second driver's device fails to bind (`EADDRINUSE`). What the
//! sockets receive goes to [`Rrxe`]'s `EncapReceiver` impl, the receive path
//! (`crate::net::recv`).

use crate::{obj::Rrxe, proto::ip};
use kernel::{
    net::{
        namespace::{Namespace, PernetHandler},
        udp_tunnel::{Family, TunnelSocket},
    },
    prelude::*,
};

struct NsSockets {
    /// The namespace's address, valid while the entry exists: the pernet exit hook
    /// removes the entry before the namespace is freed.
    key: usize,
    /// Tells this namespace's entry from a later one at the same address.
    generation: u64,
    users: u32,
    _v4: TunnelSocket<Rrxe>,
    _v6: Option<TunnelSocket<Rrxe>>,
}

struct SocketTable {
    entries: KVec<NsSockets>,
    next_generation: u64,
}

kernel::sync::global_lock! {
    // SAFETY: Initialised in `init` before any device can exist.
    unsafe(uninit) static SOCKETS: Mutex<SocketTable> = SocketTable {
        entries: KVec::new(),
        next_generation: 1,
    };
}

/// Prepares the socket table; called once at module load.
pub(crate) fn init() {
    // SAFETY: Called once, before the link type and the pernet hook exist.
    unsafe { SOCKETS.init() };
}

/// Frees the table's memory at module unload, when every device (and so every
/// share) is gone: the static itself is never dropped.
pub(crate) fn exit() {
    let mut t = SOCKETS.lock();
    t.entries = KVec::new();
}

/// A device's share of its namespace's sockets; the last share releases them.
/// Held by the device for its lifetime; taken and released under the socket
/// table's mutex, in process context.
pub(crate) struct SocketUse {
    key: usize,
    generation: u64,
}

impl SocketUse {
    /// Takes a share of `net`'s sockets, creating them for the first device.
    pub(crate) fn get(net: &Namespace) -> Result<Self> {
        let mut t = SOCKETS.lock();
        if let Some(e) = t.entries.iter_mut().find(|e| e.key == net.key()) {
            e.users += 1;
            return Ok(Self {
                key: e.key,
                generation: e.generation,
            });
        }
        let v4 = TunnelSocket::new(net, Family::V4, ip::ROCE_V2_PORT)?;
        // A kernel without IPv6 in this namespace still gets IPv4.
        let v6 = match TunnelSocket::new(net, Family::V6, ip::ROCE_V2_PORT) {
            Ok(s) => Some(s),
            Err(e) if e == EAFNOSUPPORT => None,
            Err(e) => return Err(e),
        };
        let generation = t.next_generation;
        t.next_generation += 1;
        t.entries.push(
            NsSockets {
                key: net.key(),
                generation,
                users: 1,
                _v4: v4,
                _v6: v6,
            },
            GFP_KERNEL,
        )?;
        Ok(Self {
            key: net.key(),
            generation,
        })
    }
}

impl Drop for SocketUse {
    fn drop(&mut self) {
        let mut t = SOCKETS.lock();
        let Some(i) = t
            .entries
            .iter()
            .position(|e| e.key == self.key && e.generation == self.generation)
        else {
            // The namespace went first and took its sockets with it.
            return;
        };
        t.entries[i].users -= 1;
        if t.entries[i].users == 0 {
            // Released under the lock, in process context (device teardown).
            let (key, generation) = (self.key, self.generation);
            t.entries
                .retain(|e| !(e.key == key && e.generation == generation));
        }
    }
}

/// Releases a dying namespace's sockets even if a device there is still being
/// unregistered: a kernel socket does not keep its namespace alive.
pub(crate) struct Pernet;

impl PernetHandler for Pernet {
    fn exit(net: &Namespace) {
        let mut t = SOCKETS.lock();
        t.entries.retain(|e| e.key != net.key());
    }
}
