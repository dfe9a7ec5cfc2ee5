// SPDX-License-Identifier: GPL-2.0

//! Multicast groups (IBA 10.5.2.1; rxe's `rxe_mcast.c`).
//!
//! A UD QP attaches to a group by its GID. A packet to destination QPN 0xFFFFFF
//! goes to every QP attached to the group its destination IP address names. The
//! netdev's filter admits the group's Ethernet address while the group has QPs.
//!
//! Attach and detach are serialised by a mutex, so the filter is updated outside
//! the spinlock that the receive path takes to read a group's members.

use crate::{abi::qp_type as qpt, obj::Rrxe, params, proto::ip};
use kernel::{
    net::netdev::NetDevice,
    new_mutex, new_spinlock_irq,
    prelude::*,
    rdma::qp::Qp,
    sync::{Mutex, SpinLockIrq},
};

pub(crate) const MAX_QPS_PER_GROUP: usize = params::MAX_MCAST_QP_ATTACH as usize;

struct Group {
    gid: [u8; 16],
    qpns: KVec<u32>,
}

struct Table {
    groups: KVec<Group>,
    /// QP attachments over all groups.
    attached: u32,
}

impl Table {
    fn find(&self, gid: &[u8; 16]) -> Option<usize> {
        self.groups.iter().position(|g| g.gid == *gid)
    }
}

/// A device's multicast groups.
///
/// Locking: `change` (a mutex) serialises attach and detach, so the netdev's
/// filter is updated outside `table`, a `SpinLockIrq` the receive path takes
/// to read a group's members. Nothing is taken under `table`.
///
/// Lifetime: the device's.
#[pin_data]
pub(crate) struct Groups {
    #[pin]
    change: Mutex<()>,
    #[pin]
    table: SpinLockIrq<Table>,
}

impl Groups {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Groups {
            change <- new_mutex!(()),
            table <- new_spinlock_irq!(Table {
                groups: KVec::new(),
                attached: 0,
            }),
        })
    }
}

/// `attach_mcast`. Attaching twice is not an error, as in rxe.
impl Groups {
    /// The UD QP `qp` joins the group `gid`, opening `ndev`'s filter for a new
    /// group. Joining twice is a no-op.
    pub(crate) fn attach(&self, ndev: &NetDevice, qp: &Qp<Rrxe>, gid: &[u8; 16]) -> Result {
        if !ip::gid_is_multicast(gid) || qp.data().qp_type != qpt::UD {
            return Err(EINVAL);
        }
        let qpn = qp.qp_num();
        let _change = self.change.lock();
        let existing = {
            let t = self.table.lock();
            let at = t.find(gid);
            if let Some(i) = at {
                if t.groups[i].qpns.contains(&qpn) {
                    return Ok(());
                }
                if t.groups[i].qpns.len() >= MAX_QPS_PER_GROUP {
                    return Err(ENOMEM);
                }
            } else if t.groups.len() >= params::MAX_MCAST_GRP as usize {
                return Err(ENOMEM);
            }
            if t.attached >= params::MAX_TOT_MCAST_QP_ATTACH {
                return Err(ENOMEM);
            }
            at
        };
        let Some(i) = existing else {
            let mut qpns = KVec::with_capacity(1, GFP_KERNEL)?;
            qpns.push(qpn, GFP_KERNEL)?;
            // A new group: open the filter first, so the first packet is not missed.
            let mac = ip::multicast_mac(gid);
            ndev.mc_add(&mac)?;
            let mut t = self.table.lock();
            if let Err(e) = t.groups.push(Group { gid: *gid, qpns }, GFP_ATOMIC) {
                drop(t);
                let _ = ndev.mc_del(&mac);
                return Err(e.into());
            }
            t.attached += 1;
            return Ok(());
        };
        let mut t = self.table.lock();
        t.groups[i].qpns.push(qpn, GFP_ATOMIC)?;
        t.attached += 1;
        Ok(())
    }

    /// Removes `qpn` from the group `gid`. Returns whether it was there, and the
    /// group's MAC if the group is now empty (and gone).
    fn remove(&self, gid: &[u8; 16], qpn: u32) -> (bool, Option<[u8; 6]>) {
        let mut t = self.table.lock();
        let Some(i) = t.find(gid) else {
            return (false, None);
        };
        let Some(k) = t.groups[i].qpns.iter().position(|&q| q == qpn) else {
            return (false, None);
        };
        let _ = t.groups[i].qpns.remove(k);
        t.attached -= 1;
        if !t.groups[i].qpns.is_empty() {
            return (true, None);
        }
        let _ = t.groups.remove(i);
        (true, Some(ip::multicast_mac(gid)))
    }

    /// The QP `qpn` leaves the group `gid`; an emptied group closes `ndev`'s filter.
    pub(crate) fn detach(&self, ndev: &NetDevice, qpn: u32, gid: &[u8; 16]) -> Result {
        let _change = self.change.lock();
        let (found, emptied) = self.remove(gid, qpn);
        if let Some(mac) = emptied {
            // The QP has left already: an error here must not make the core think it
            // is still attached (its use count would never drop).
            let _ = ndev.mc_del(&mac);
        }
        if found {
            Ok(())
        } else {
            Err(EINVAL)
        }
    }

    /// The QP `qpn` leaves every group, before its number can be reused.
    pub(crate) fn detach_all(&self, ndev: &NetDevice, qpn: u32) {
        let _change = self.change.lock();
        loop {
            let gid = {
                let t = self.table.lock();
                match t.groups.iter().find(|g| g.qpns.contains(&qpn)) {
                    Some(g) => g.gid,
                    None => return,
                }
            };
            if let (_, Some(mac)) = self.remove(&gid, qpn) {
                let _ = ndev.mc_del(&mac);
            }
        }
    }

    /// Copies the QPNs attached to the group `gid` into `out`; returns how many,
    /// or `None` if there is no such group. For the receive path: it takes only
    /// the spinlock.
    pub(crate) fn members(
        &self,
        gid: &[u8; 16],
        out: &mut [u32; MAX_QPS_PER_GROUP],
    ) -> Option<usize> {
        let t = self.table.lock();
        let members = &t.groups[t.find(gid)?].qpns;
        let n = members.len().min(MAX_QPS_PER_GROUP);
        out[..n].copy_from_slice(&members[..n]);
        Some(n)
    }
}
