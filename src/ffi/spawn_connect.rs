//! Spawn, connect, disconnect (`pmix.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};

use crate::abi::*;
use crate::msg::Collective;
use crate::ffi::boundary::SendPtr;
use crate::runtime::Oneshot;
use super::completions::{op_done, wait_status};

/// Ask the host, through the server, to launch the applications in `apps` as a new job, and
/// wait for its namespace.
///
/// Returns the server's status (PMIX_SUCCESS: `nspace` holds the new job's name);
/// PMIX_ERR_BAD_PARAM for NULL `apps` or `napps` 0; a copy error (e.g. PMIX_ERR_NOMEM);
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server; PMIX_ERR_LOST_CONNECTION. Called on a
/// progress thread (inside a callback) it answers PMIX_ERR_WOULD_BLOCK rather than wait.
///
/// # Safety
/// `job_info` is NULL or points to `ninfo` valid infos; `apps` is NULL or points to `napps`
/// valid apps; `nspace` is NULL or has room for PMIX_MAX_NSLEN + 1 chars.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(job_info: *const pmix_info_t, ninfo: usize, apps: *const pmix_app_t, napps: usize, nspace: *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_Spawn", {
        require!("PMIx_Spawn", !apps.is_null() && napps > 0);
        if crate::runtime::on_progress_thread() {
            // Waiting here would stop the thread that brings the answer.
            return PMIX_ERR_WOULD_BLOCK;
        }
        let Ok(i) = crate::owned::Info::copy_array(job_info, ninfo) else { return PMIX_ERR_NOMEM };
        let mut a = match crate::data::carray::CArray::copy(crate::data::kind::Kind::App, apps as *const u8, napps) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if let Err(e) = crate::client::api::complete_apps(&mut a) {
            return e;
        }
        let done = Oneshot::new();
        let d = done.clone();
        crate::client::api::spawn(i, &a, crate::runtime::Completion::new(move |st, ns| d.set((st, ns))));
        let Some((st, ns)) = done.wait() else { return PMIX_ERR_LOST_CONNECTION };
        if st == PMIX_SUCCESS && !nspace.is_null() {
            crate::cmem::load_fixed(crate::ffi::boundary::slice_mut(nspace, PMIX_MAX_NSLEN + 1), ns.as_bytes());
        }
        st
    })
}

/// Ask the host, through the server, to launch the applications in `apps` as a new job;
/// `cbfunc` gets its namespace.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for NULL `apps` or `napps` 0; a copy error
/// (e.g. PMIX_ERR_NOMEM). On PMIX_SUCCESS `cbfunc` fires exactly once: later from the
/// progress thread, or just after this returns (off the caller's stack) when the request
/// fails early (no server: PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never
/// fires.
///
/// # Safety
/// `job_info` is NULL or points to `ninfo` valid infos; `apps` is NULL or points to `napps`
/// valid apps; `cbfunc` may be NULL and its namespace string is valid only during the call;
/// `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(job_info: *const pmix_info_t, ninfo: usize, apps: *const pmix_app_t, napps: usize, cbfunc: pmix_spawn_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Spawn_nb", {
        require!("PMIx_Spawn_nb", !apps.is_null() && napps > 0);
        let Ok(i) = crate::owned::Info::copy_array(job_info, ninfo) else { return PMIX_ERR_NOMEM };
        let mut a = match crate::data::carray::CArray::copy(crate::data::kind::Kind::App, apps as *const u8, napps) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if let Err(e) = crate::client::api::complete_apps(&mut a) {
            return e;
        }
        let cbd = SendPtr(cbdata);
        crate::client::api::spawn(i, &a, crate::runtime::Completion::new(move |st, ns: String| crate::ffi::boundary::complete(move || {
            let c = crate::owned::c_string(&ns);
            if let Some(f) = cbfunc {
                // SAFETY: the caller's callback; the string lives through the call.
                unsafe { f(st, c.as_ptr() as *mut c_char, cbd.get()) };
            }
        })));
        PMIX_SUCCESS
    })
}

/// Connect this process with the processes in `procs` (NULL: the caller's job), blocking
/// until all of them have joined.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_SUCCESS at once for a process alone
/// without a server, else PMIX_ERR_INIT/PMIX_ERR_UNREACH; PMIX_ERR_NOMEM if `info` cannot
/// be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo`
/// valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Connect", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let ps = procs!(procs, nprocs);
        wait_status(move |d| crate::client::api::barrier(Collective::Connect, ps, i, d))
    })
}

/// Start connecting this process with the processes in `procs` (NULL: the caller's job);
/// `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS, or PMIX_ERR_NOMEM if `info` cannot be copied. On PMIX_SUCCESS
/// `cbfunc` fires exactly once: later from the progress thread, or just after this returns
/// (off the caller's stack) when no server is involved (PMIX_SUCCESS alone, else
/// PMIX_ERR_INIT/UNREACH); on an error return never.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo`
/// valid infos; `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Connect_nb", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        crate::client::api::barrier(Collective::Connect, procs!(procs, nprocs), i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Disconnect this process from the processes in `procs` (NULL: the caller's job), blocking
/// until all of them have too.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_SUCCESS at once for a process alone
/// without a server, else PMIX_ERR_INIT/PMIX_ERR_UNREACH; PMIX_ERR_NOMEM if `info` cannot
/// be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo`
/// valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Disconnect", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let ps = procs!(procs, nprocs);
        wait_status(move |d| crate::client::api::barrier(Collective::Disconnect, ps, i, d))
    })
}

/// Start disconnecting this process from the processes in `ranges` (NULL: the caller's
/// job); `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS, or PMIX_ERR_NOMEM if `info` cannot be copied. On PMIX_SUCCESS
/// `cbfunc` fires exactly once: later from the progress thread, or just after this returns
/// (off the caller's stack) when no server is involved (PMIX_SUCCESS alone, else
/// PMIX_ERR_INIT/UNREACH); on an error return never.
///
/// # Safety
/// `ranges` is NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo`
/// valid infos; `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(ranges: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Disconnect_nb", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        crate::client::api::barrier(Collective::Disconnect, procs!(ranges, nprocs), i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}
