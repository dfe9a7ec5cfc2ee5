// SPDX-License-Identifier: GPL-2.0

//! Driver-specific details of resource tracking entries: what
//! `rdma resource show qp -dd` prints after the core's attributes.
//!
//! C header: [`include/rdma/restrack.h`](srctree/include/rdma/restrack.h).

use crate::{bindings, error::to_result, prelude::*};

/// The netlink message a driver adds its details of one resource to, as
/// `RDMA_NLDEV_ATTR_DRIVER_*` name/value entries.
///
/// Lifetime: borrowed for one `fill_res_*_entry` call. Locking: the core holds the
/// resource's restrack entry for the call; the message is the caller's alone.
///
/// # Invariants
///
/// `msg` is the message the RDMA core passed to a `fill_res_*_entry` callback,
/// valid for the callback's duration, which the borrow of this value cannot
/// outlive.
pub struct DriverDetails<'a> {
    msg: *mut bindings::sk_buff,
    _call: core::marker::PhantomData<&'a mut bindings::sk_buff>,
}

impl DriverDetails<'_> {
    /// Runs `f` to add a driver's details to `msg`, inside the
    /// `RDMA_NLDEV_ATTR_DRIVER` nest that `rdma` prints them from. On an error
    /// nothing of them stays in the message.
    ///
    /// # Safety
    ///
    /// `msg` is the message passed to a `fill_res_*_entry` callback that is
    /// running.
    pub(crate) unsafe fn fill(
        msg: *mut bindings::sk_buff,
        f: impl FnOnce(&mut DriverDetails<'_>) -> Result,
    ) -> Result {
        // SAFETY: `msg` is a valid message, as the caller guarantees.
        let nest = unsafe {
            bindings::nla_nest_start(msg, bindings::rdma_nldev_attr_RDMA_NLDEV_ATTR_DRIVER as i32)
        };
        if nest.is_null() {
            return Err(EMSGSIZE);
        }
        // INVARIANT: `msg` is valid for this call, which `d` does not outlive.
        let mut d = DriverDetails {
            msg,
            _call: core::marker::PhantomData,
        };
        match f(&mut d) {
            Ok(()) => {
                // SAFETY: `nest` was started in `msg` above.
                unsafe { bindings::nla_nest_end(msg, nest) };
                Ok(())
            }
            Err(e) => {
                // SAFETY: As above.
                unsafe { bindings::nla_nest_cancel(msg, nest) };
                Err(e)
            }
        }
    }

    /// Adds `name` with a decimal value. `EMSGSIZE` if the message is full.
    pub fn u32(&mut self, name: &CStr, value: u32) -> Result {
        // SAFETY: `msg` is valid by the invariant; `name` is NUL-terminated.
        to_result(unsafe { bindings::rdma_nl_put_driver_u32(self.msg, name.as_char_ptr(), value) })
    }

    /// Adds `name` with a value printed in hexadecimal (a PSN, a key).
    pub fn u32_hex(&mut self, name: &CStr, value: u32) -> Result {
        // SAFETY: As in `u32`.
        to_result(unsafe {
            bindings::rdma_nl_put_driver_u32_hex(self.msg, name.as_char_ptr(), value)
        })
    }

    /// Adds `name` with a 64-bit decimal value.
    pub fn u64(&mut self, name: &CStr, value: u64) -> Result {
        // SAFETY: As in `u32`.
        to_result(unsafe { bindings::rdma_nl_put_driver_u64(self.msg, name.as_char_ptr(), value) })
    }
}
