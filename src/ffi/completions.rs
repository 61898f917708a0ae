//! C callbacks as completions, and the blocking calls' waits: what the client
//! families' exports share.

use core::ffi::c_void;

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::Oneshot;

/// A completion that fires a C op callback.
pub(super) fn op_done(cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> crate::client::api::Done {
    let cbd = SendPtr(cbdata);
    // SAFETY: the caller's callback and cbdata.
    crate::runtime::Completion::on_status(move |st| unsafe { fire_op(cbfunc, st, cbd) })
}

/// The completion of an operation answered with infos.
type InfosDone = crate::runtime::Completion<Vec<crate::owned::Info>>;

/// Start an operation answered with infos and wait for it (blocking API
/// calls); the results go to `results`/`nresults` when both are given.
///
/// # Safety
/// `results` and `nresults` are each NULL or writable.
pub(super) unsafe fn wait_infos(results: *mut *mut pmix_info_t, nresults: *mut usize, start: impl FnOnce(InfosDone)) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `results` and `nresults` are each NULL or writable.
    unsafe {
        if crate::runtime::on_progress_thread() {
            return PMIX_ERR_WOULD_BLOCK;
        }
        let done = Oneshot::new();
        let d = done.clone();
        let answer = crate::client::link::wait_for(done, || start(crate::runtime::Completion::new(move |st, r| d.set((st, r)))));
        let Some((st, r)) = answer else { return PMIX_ERR_LOST_CONNECTION };
        if !results.is_null() && !nresults.is_null() {
            let (p, n) = crate::owned::infos_to_c(&r);
            *results = p;
            *nresults = n;
        }
        st
    }
}

/// Hand results to a C info callback (it releases them through release_infos).
pub(super) fn infos_done(cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> InfosDone {
    let cbd = SendPtr(cbdata);
    crate::runtime::Completion::new(move |st, r: Vec<crate::owned::Info>| crate::ffi::boundary::complete(move || {
        let (p, n) = crate::owned::infos_to_c(&r);
        let rel = Box::into_raw(Box::new((SendPtr(p), n))) as *mut c_void;
        match cbfunc {
            // SAFETY: the caller's callback; it releases the results with release_infos.
            Some(f) => unsafe { f(st, p, n, cbd.get(), Some(release_infos), rel) },
            // SAFETY: nobody to hand the results to.
            None => unsafe { release_infos(rel) },
        }
    }))
}

/// Start an operation and wait for its status (blocking API calls).
pub(super) fn wait_status(start: impl FnOnce(crate::client::api::Done)) -> pmix_status_t {
    if crate::runtime::on_progress_thread() {
        crate::pmix_debug!(1, "blocking PMIx call inside a callback: refused (it would deadlock)");
        return PMIX_ERR_WOULD_BLOCK;
    }
    let done = Oneshot::new();
    let d = done.clone();
    crate::client::link::wait_for(done, || start(crate::runtime::Completion::on_status(move |st| d.set(st)))).unwrap_or(PMIX_ERR_LOST_CONNECTION)
}

/// Release function handed with info arrays we allocate for callbacks.
///
/// # Safety
/// `cbdata` is NULL or the box this library handed with the infos, released once.
pub(super) unsafe extern "C" fn release_infos(cbdata: *mut c_void) {
    crate::guard::catch("release_infos", || {
        // SAFETY: the caller upholds the contract above: `cbdata` is NULL or the box this library handed with the infos, released once.
        unsafe {
            if cbdata.is_null() {
                return;
            }
            // SAFETY: made by Box::into_raw in the caller of the callback.
            let b = Box::from_raw(cbdata as *mut (SendPtr<pmix_info_t>, usize));
            crate::owned::free_c_infos(b.0.get(), b.1);
        }
    })
}
