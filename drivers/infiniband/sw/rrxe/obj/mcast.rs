// SPDX-License-Identifier: GPL-2.0

//! Multicast groups (IBA 10.5.2.1; rxe's `rxe_mcast.c`).
//!
//! A UD QP attaches to a group by its GID. A packet to destination QPN 0xFFFFFF
//! goes to every QP attached to the group its destination IP address names. The
//! netdev's filter admits the group's Ethernet address while the group has QPs.
//!
//! Attach and detach are serialised by a mutex, so the filter is updated outside
//! the spinlock that the receive path takes to read a group's members.

use crate::{
    obj::device::Rrxe,
    params,
    proto::{ip, packet::Packet},
    stats::Counter,
    obj::wqe::qpt,
};
use kernel::{
    new_mutex, new_spinlock_irq,
    prelude::*,
    rdma::{self, verbs::Qp},
    sync::{rcu, Mutex, SpinLockIrq},
};

const MAX_QPS_PER_GROUP: usize = params::MAX_MCAST_QP_ATTACH as usize;

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
pub(crate) fn attach(qp: &Qp<Rrxe>, gid: &[u8; 16]) -> Result {
    if !ip::gid_is_multicast(gid) || qp.data().qp_type != qpt::UD {
        return Err(EINVAL);
    }
    let dev = qp.device();
    let groups = &dev.data().mcast;
    let qpn = qp.qp_num();
    let _change = groups.change.lock();
    let existing = {
        let t = groups.table.lock();
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
        dev.netdev().mc_add(&mac)?;
        let mut t = groups.table.lock();
        if let Err(e) = t.groups.push(Group { gid: *gid, qpns }, GFP_ATOMIC) {
            drop(t);
            let _ = dev.netdev().mc_del(&mac);
            return Err(e.into());
        }
        t.attached += 1;
        return Ok(());
    };
    let mut t = groups.table.lock();
    t.groups[i].qpns.push(qpn, GFP_ATOMIC)?;
    t.attached += 1;
    Ok(())
}

/// Removes `qpn` from group `gid`; returns whether the group was found with `qpn`,
/// and the group's MAC if that emptied it.
fn remove(dev: &rdma::Device<Rrxe>, gid: &[u8; 16], qpn: u32) -> (bool, Option<[u8; 6]>) {
    let mut t = dev.data().mcast.table.lock();
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

/// `detach_mcast`: `EINVAL` if `qp` is not attached to `gid`, as in rxe.
pub(crate) fn detach(qp: &Qp<Rrxe>, gid: &[u8; 16]) -> Result {
    let dev = qp.device();
    let _change = dev.data().mcast.change.lock();
    let (found, emptied) = remove(dev, gid, qp.qp_num());
    if let Some(mac) = emptied {
        // The QP has left already: an error here must not make the core think it
        // is still attached (its use count would never drop).
        let _ = dev.netdev().mc_del(&mac);
    }
    if found {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

/// Detaches a QP that is being destroyed from every group, so that a later QP with
/// its number cannot inherit them. The core already refuses to destroy a QP that
/// is still attached (its use count), so this normally finds nothing.
pub(crate) fn detach_all(qp: &Qp<Rrxe>) {
    let dev = qp.device();
    let qpn = qp.qp_num();
    let _change = dev.data().mcast.change.lock();
    loop {
        let gid = {
            let t = dev.data().mcast.table.lock();
            match t.groups.iter().find(|g| g.qpns.contains(&qpn)) {
                Some(g) => g.gid,
                None => return,
            }
        };
        if let (_, Some(mac)) = remove(dev, &gid, qpn) {
            let _ = dev.netdev().mc_del(&mac);
        }
    }
}

/// Delivers a packet for destination QPN 0xFFFFFF to each QP attached to the group
/// its IP header is addressed to. A QP that cannot take it (state, Q_Key, no
/// receive WQE) is counted and skipped, as in rxe; the others still get the packet.
pub(crate) fn deliver(
    dev: &rdma::Device<Rrxe>,
    pkt: &Packet<'_>,
    ip: &[u8],
) -> Result<(), Counter> {
    let gid = ip::dest_gid(ip).ok_or(Counter::RcvMalformed)?;
    let mut qpns = [0u32; MAX_QPS_PER_GROUP];
    let n = {
        let t = dev.data().mcast.table.lock();
        let i = t.find(&gid).ok_or(Counter::RcvUnknownQp)?;
        let members = &t.groups[i].qpns;
        let n = members.len().min(MAX_QPS_PER_GROUP);
        qpns[..n].copy_from_slice(&members[..n]);
        n
    };
    let stats = &dev.data().stats;
    let guard = rcu::read_lock();
    for &qpn in &qpns[..n] {
        match dev.qp_rcu(qpn, &guard) {
            Some(qp) => {
                if let Err(c) = crate::engine::resp::receive(qp, pkt, ip) {
                    stats.inc(c);
                }
            }
            None => stats.inc(Counter::RcvUnknownQp),
        }
    }
    Ok(())
}
