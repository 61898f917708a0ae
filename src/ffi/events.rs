//! Event handlers: register, deregister, notify (`pmix.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::c_void;

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::Oneshot;
use super::completions::op_done;

/// Register `evhdlr` for the events in `codes` (none: all events), as `info` directs;
/// `cbfunc` gets its reference.
///
/// With `cbfunc`: returns PMIX_SUCCESS once queued, and `cbfunc` gets the reference,
/// exactly once, from the progress thread (just after this returns, off the caller's stack,
/// when initialised without a server). Without `cbfunc`: blocks and returns the reference
/// (>= 0), or PMIX_ERR_WOULD_BLOCK on a progress thread (as OpenPMIx 4.2.2 does). Errors:
/// PMIX_ERR_BAD_PARAM for a NULL `evhdlr`; PMIX_ERR_NOMEM; PMIX_ERR_INIT before any init;
/// PMIX_ERR_UNREACH if the progress thread has stopped; on an error return `cbfunc` never
/// fires.
///
/// # Safety
/// `codes` is NULL or points to `ncodes` codes; `info` is NULL or points to `ninfo` valid
/// infos; `evhdlr` stays callable until deregistered; `cbfunc` may be NULL; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(codes: *mut pmix_status_t, ncodes: usize, info: *mut pmix_info_t, ninfo: usize, evhdlr: pmix_notification_fn_t, cbfunc: pmix_hdlr_reg_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Register_event_handler", {
        require!("PMIx_Register_event_handler", evhdlr.is_some());
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let cs: Vec<pmix_status_t> = crate::ffi::boundary::slice(codes, ncodes).to_vec();
        // Without a callback the call blocks and returns the reference (as
        // OpenPMIx 4.2.2): impossible on a progress thread.
        if cbfunc.is_none() && crate::runtime::on_progress_thread() {
            return PMIX_ERR_WOULD_BLOCK;
        }
        let cbd = SendPtr(cbdata);
        crate::client::api::tell_event_interest(true, &cs, &i);
        let blocking = Oneshot::new();
        let registered = blocking.clone();
        // The registry lock is released before the caller's callback runs (it may register more).
        let reg = move |r: &mut crate::facade::LendRegistry<'_>| {
            let mut id = 0;
            r(&mut |reg: &mut crate::events::Registry| id = reg.register(cs.clone(), &i, evhdlr));
            match cbfunc {
                // SAFETY: the caller's callback.
                Some(f) => crate::ffi::boundary::complete(move || unsafe { f(PMIX_SUCCESS, id, cbd.get()) }),
                None => registered.set(id),
            }
        };
        let st = crate::facade::edit_event_registry(Box::new(reg));
        if st != PMIX_SUCCESS || cbfunc.is_some() {
            return st;
        }
        match blocking.wait() {
            Some(id) => pmix_status_t::try_from(id).unwrap_or(PMIX_ERR_OUT_OF_RESOURCE),
            None => PMIX_ERR_UNREACH,
        }
    })
}

/// Remove the event handler with reference `evhdlr_ref` (a reference no handler has is
/// nothing to do, and a success, as in OpenPMIx).
///
/// Returns PMIX_SUCCESS once queued; PMIX_ERR_INIT before any init; PMIX_ERR_UNREACH if the
/// progress thread has stopped. On PMIX_SUCCESS `cbfunc` fires exactly once, with
/// PMIX_SUCCESS, from the progress thread (before this returns when
/// initialised without a server); on an error return never.
///
/// # Safety
/// `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(evhdlr_ref: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Deregister_event_handler", {
        let cbd = SendPtr(cbdata);
        let dereg = move |r: &mut crate::facade::LendRegistry<'_>| {
            let mut found = false;
            r(&mut |reg: &mut crate::events::Registry| found = reg.deregister(evhdlr_ref));
            if !found {
                // OpenPMIx answers success here too; programs deregister
                // hard-coded references (OpenPMIx's group.c does).
                crate::pmix_debug!(1, "PMIx_Deregister_event_handler: no handler has reference {evhdlr_ref}; nothing to do");
            }
            // SAFETY: the caller's callback.
            unsafe { fire_op(cbfunc, PMIX_SUCCESS, cbd) };
        };
        crate::facade::edit_event_registry(Box::new(dereg))
    })
}

/// Raise event `status` from `source` (NULL: this process) to `range`, via the server or
/// this process's server role.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_NOMEM if `info` cannot be copied; PMIX_ERR_INIT for a
/// NULL `source` before any init. On PMIX_SUCCESS `cbfunc` fires once: later from a
/// progress thread, or just after this returns (off the caller's stack) when there is no
/// server (PMIX_ERR_INIT/UNREACH); never on an error return, nor when this process's server
/// role is shutting down.
///
/// # Safety
/// `source` is NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos;
/// `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Notify_event(status: pmix_status_t, source: *const pmix_proc_t, range: pmix_data_range_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Notify_event", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let src = match source.as_ref() {
            Some(s) => crate::owned::Proc::from_c(s),
            None => match crate::facade::own_proc() {
                Some(p) => p,
                None => return PMIX_ERR_INIT,
            },
        };
        crate::facade::notify(status, src, range, i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}
