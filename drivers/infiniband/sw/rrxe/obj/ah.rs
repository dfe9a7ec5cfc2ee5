// SPDX-License-Identifier: GPL-2.0

//! Address handles. Each has a nonzero number (`ah_num`) that user space puts in its
//! UD send WQEs; the driver looks the number up and never reads the address vector
//! from the ring, so user space cannot choose its own source address.

use crate::abi::CreateAhResp;
use crate::{
    abi::network,
    obj::{pd::PdId, pool::Pool, Rrxe},
};
use kernel::{
    prelude::*,
    rdma::{
        ah::{Ah, AhAttr},
        pd::Pd,
        uverbs::UData,
    },
    sync::Arc,
};

/// The driver's AH: its number, its PD and the address vector, all fixed at
/// creation, so it needs no lock. Lives in the device's AH pool from
/// `create_ah` to `destroy_ah`, and as long after as a requester holds it.
pub(crate) struct RrxeAh {
    pub(in crate::obj) num: u32,
    pub(in crate::obj) pd_id: PdId,
    pub(crate) attr: AhAttr,
}

pub(crate) fn create(
    ahs: &Pool<RrxeAh>,
    pd: &Pd<Rrxe>,
    attr: &AhAttr,
    sleepable: bool,
    udata: Option<&UData>,
) -> Result<Arc<RrxeAh>> {
    let gfp = if sleepable { GFP_KERNEL } else { GFP_ATOMIC };
    if attr.port_num != 1 || !matches!(attr.network_type, network::IPV4 | network::IPV6) {
        return Err(EINVAL);
    }
    let pd_id = pd.data().id;
    let (num, ah) = ahs.insert_with(gfp, |num| {
        Ok(Arc::new(
            RrxeAh {
                num,
                pd_id,
                attr: *attr,
            },
            gfp,
        )?)
    })?;
    if let Some(u) = udata {
        if let Err(e) = u.respond(&CreateAhResp {
            ah_num: num,
            reserved: 0,
        }) {
            ahs.remove(num);
            return Err(e);
        }
    }
    Ok(ah)
}

pub(crate) fn query(ah: &Ah<Rrxe>) -> AhAttr {
    ah.data().attr
}

pub(crate) fn destroy(ahs: &Pool<RrxeAh>, ah: &Ah<Rrxe>) -> Result {
    ahs.remove(ah.data().num);
    Ok(())
}
