// SPDX-License-Identifier: GPL-2.0

//! Address handles (`struct ib_ah`): the `create_ah`, `create_user_ah`,
//! `query_ah` and `destroy_ah` ops of `struct ib_device_ops`, and the RoCE address
//! they hold (`struct rdma_ah_attr`).
//!
//! AHs are optional as a whole (iWARP has none). The CM creates and destroys AHs
//! under spinlocks: then [`Operations::create_ah`] gets `sleepable == false` and must
//! neither sleep nor allocate with `GFP_KERNEL`, and `destroy` must not sleep.
//!
//! C header: [`include/rdma/ib_verbs.h`](srctree/include/rdma/ib_verbs.h).

use super::{device::Driver, object::ObjWith, pd::Pd, uverbs::UData};
use crate::{
    bindings,
    error::{from_result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    types::Opaque,
};
use core::marker::PhantomData;

core_object!(
    /// An address handle (`struct ib_ah`) of a device of driver `T`, with the
    /// driver's data `T::Ah`.
    ///
    /// Lifetime: from the success of [`Operations::create_ah`] to that of
    /// [`Operations::destroy_ah`]; a send WR that names it borrows it for the post.
    /// Locking: none of its own.
    Ah, ib_ah, Ah
);

/// A RoCE address (`struct rdma_ah_attr` of type `RDMA_AH_ATTR_TYPE_ROCE`),
/// flattened, with the source GID resolved.
///
/// A plain value: no lifetime or locking of its own.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct AhAttr {
    /// Port number.
    pub port_num: u8,
    /// Service level.
    pub sl: u8,
    /// Static rate.
    pub static_rate: u8,
    /// `IB_AH_GRH` etc.
    pub ah_flags: u8,
    /// Destination GID.
    pub dgid: [u8; 16],
    /// Flow label.
    pub flow_label: u32,
    /// Index of the source GID.
    pub sgid_index: u8,
    /// IP TTL / hop limit.
    pub hop_limit: u8,
    /// Traffic class (DSCP/ECN).
    pub traffic_class: u8,
    /// Destination MAC, resolved by the core.
    pub dmac: [u8; 6],
    /// Source GID, from the GID table entry.
    pub sgid: [u8; 16],
    /// `RDMA_NETWORK_*` of the source GID (IPv4 or IPv6 for RoCE v2).
    pub network_type: u32,
}

impl AhAttr {
    /// # Safety
    ///
    /// `a` must be a valid attribute whose `grh.sgid_attr` is null or valid.
    pub(super) unsafe fn from_raw(a: &bindings::rdma_ah_attr) -> Self {
        let grh = &a.grh;
        let mut v = Self {
            port_num: a.port_num as u8,
            sl: a.sl,
            static_rate: a.static_rate,
            ah_flags: a.ah_flags,
            // SAFETY: `raw` is always a valid view of the GID union.
            dgid: unsafe { grh.dgid.raw },
            flow_label: grh.flow_label,
            sgid_index: grh.sgid_index,
            hop_limit: grh.hop_limit,
            traffic_class: grh.traffic_class,
            ..Self::default()
        };
        if a.type_ == bindings::rdma_ah_attr_type_RDMA_AH_ATTR_TYPE_ROCE {
            // SAFETY: The type says the `roce` arm is the live one.
            v.dmac = unsafe { a.__bindgen_anon_1.roce.dmac };
        }
        if !grh.sgid_attr.is_null() {
            // SAFETY: Per the contract the GID attribute is valid.
            unsafe {
                v.sgid = (*grh.sgid_attr).gid.raw;
                v.network_type = bindings::rdma_gid_attr_network_type(grh.sgid_attr);
            }
        }
        v
    }

    pub(super) fn write_to(&self, a: &mut bindings::rdma_ah_attr) {
        a.type_ = bindings::rdma_ah_attr_type_RDMA_AH_ATTR_TYPE_ROCE;
        a.port_num = self.port_num.into();
        a.sl = self.sl;
        a.static_rate = self.static_rate;
        a.ah_flags = self.ah_flags;
        a.grh.dgid.raw = self.dgid;
        a.grh.flow_label = self.flow_label;
        a.grh.sgid_index = self.sgid_index;
        a.grh.hop_limit = self.hop_limit;
        a.grh.traffic_class = self.traffic_class;
        a.__bindgen_anon_1.roce.dmac = self.dmac;
    }
}

/// The AH ops of a provider (a part of [`Driver`]): `create_ah` and `destroy_ah`,
/// or none (then `type Ah = ();`); `query_ah` is optional.
#[vtable]
pub trait Operations: Sized {
    /// The provider's data of an AH.
    type Ah: Send + Sync;

    /// `create_ah` and `create_user_ah`. Unless `sleepable`, the caller holds
    /// spinlocks and the provider must neither sleep nor allocate with `GFP_KERNEL`.
    fn create_ah(
        _pd: &Pd<Self>,
        _attr: &AhAttr,
        _sleepable: bool,
        _udata: Option<&UData>,
    ) -> Result<Self::Ah> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `query_ah`.
    fn query_ah(_ah: &Ah<Self>) -> Result<AhAttr> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `destroy_ah`: on success the data is dropped and the AH freed.
    fn destroy_ah(_ah: &Ah<Self>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

impl<T: Driver> Ah<T> {
    /// The AH's protection domain.
    pub fn pd(&self) -> &Pd<T> {
        // SAFETY: The core holds a reference on the PD while the AH exists.
        unsafe { Pd::from_raw((*self.as_raw()).pd) }
    }
}

/// Installs the AH ops of `T` in `ops`, if it has them.
pub(super) const fn install<T: Driver>(ops: &mut bindings::ib_device_ops) {
    assert!(
        T::HAS_CREATE_AH == T::HAS_DESTROY_AH,
        "ah::Operations: create and destroy go together"
    );
    assert!(
        T::HAS_CREATE_AH || !T::HAS_QUERY_AH,
        "ah::Operations: query needs create"
    );
    if T::HAS_CREATE_AH {
        ops.create_ah = Some(create_cb::<T>);
        ops.create_user_ah = Some(create_cb::<T>);
        ops.destroy_ah = Some(destroy_cb::<T>);
        ops.size_ib_ah = core::mem::size_of::<ObjWith<bindings::ib_ah, T::Ah>>();
    }
    if T::HAS_QUERY_AH {
        ops.query_ah = Some(query_cb::<T>);
    }
}

/// # Safety
///
/// Called only by the RDMA core, with pointers valid for the call, for a device of
/// `T` ([`Device::register`](super::Device::register)); the source GID attribute
/// of `init->ah_attr` is resolved.
unsafe extern "C" fn create_cb<T: Driver>(
    ah: *mut bindings::ib_ah,
    init: *mut bindings::rdma_ah_init_attr,
    udata: *mut bindings::ib_udata,
) -> c_int {
    from_result(|| {
        // SAFETY: The core set `device` and `pd`, and resolved the source GID
        // attribute in `ah_attr`; `init` is valid.
        let (pd, a) = unsafe {
            (
                Pd::<T>::from_raw((*ah).pd),
                AhAttr::from_raw(&*(*init).ah_attr),
            )
        };
        // SAFETY: `udata` null or valid.
        let u = unsafe { UData::from_raw(udata) };
        // SAFETY: `init` is valid.
        let flags = unsafe { (*init).flags };
        let sleepable = flags & bindings::rdma_create_ah_flags_RDMA_CREATE_AH_SLEEPABLE != 0;
        let data = T::create_ah(pd, &a, sleepable, u.as_ref())?;
        // SAFETY: `ah` is an `ObjWith<ib_ah, T::Ah>` whose data slot is unused.
        unsafe { ObjWith::<bindings::ib_ah, T::Ah>::init(ah, data) };
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core for an AH [`create_cb`] created, with a valid
/// out-struct.
unsafe extern "C" fn query_cb<T: Driver>(
    ah: *mut bindings::ib_ah,
    attr: *mut bindings::rdma_ah_attr,
) -> c_int {
    from_result(|| {
        // SAFETY: A created AH.
        let a = T::query_ah(unsafe { Ah::<T>::from_raw(ah) })?;
        // SAFETY: Valid out-struct.
        a.write_to(unsafe { &mut *attr });
        Ok(0)
    })
}

/// # Safety
///
/// Called only by the RDMA core, once, for an AH [`create_cb`] created.
unsafe extern "C" fn destroy_cb<T: Driver>(ah: *mut bindings::ib_ah, _flags: u32) -> c_int {
    from_result(|| {
        // SAFETY: A created AH.
        T::destroy_ah(unsafe { Ah::<T>::from_raw(ah) })?;
        // SAFETY: Destroyed: the core frees the memory next.
        unsafe { ObjWith::<bindings::ib_ah, T::Ah>::drop_data(ah) };
        Ok(0)
    })
}
