//! Job control and monitoring (`pmix.h`), and OpenPMIx 5's session control.
#![allow(non_snake_case, unused_variables)]

use core::ffi::c_void;

use crate::abi::*;
use super::completions::{infos_done, wait_infos};

/// Ask the host, through the server, to apply job-control `directives` to `targets` (NULL:
/// the caller's job); waits.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a
/// server; PMIX_ERR_NOMEM if `directives` cannot be copied; PMIX_ERR_WOULD_BLOCK inside a
/// PMIx callback.
///
/// # Safety
/// `targets` is NULL or points to `ntargets` valid procs; `directives` is NULL or points to
/// `ndirs` valid infos; `results` and `nresults` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Job_control", {
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        let ts = procs!(targets, ntargets);
        wait_infos(results, nresults, |done| crate::client::api::job_control(ts, d, done))
    })
}

/// Have the host apply job-control `directives` to `targets` (NULL: the caller's job);
/// `cbfunc` gets the answer.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_NOMEM; without a server PMIX_ERR_UNREACH (client),
/// PMIX_ERR_NOT_SUPPORTED (server process) or PMIX_ERR_INIT. On PMIX_SUCCESS `cbfunc` fires
/// exactly once, from the progress thread (just after this returns (off the caller's stack)
/// only if the request cannot be encoded); on an error return it never fires.
///
/// # Safety
/// `targets` is NULL or points to `ntargets` valid procs; `directives` is NULL or points to
/// `ndirs` valid infos; `cbfunc` may be NULL, else it must call the release function it is
/// given; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Job_control_nb", {
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            // A server process itself, or a client without a server.
            return crate::facade::no_server_status();
        }
        crate::client::api::job_control(procs!(targets, ntargets), d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Ask the server to start the monitoring described by `monitor`, raising `error` when it
/// trips; waits for the answer.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for a NULL `monitor`;
/// PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server; PMIX_ERR_WOULD_BLOCK
/// inside a PMIx callback.
///
/// # Safety
/// `monitor` is NULL or a valid info; `directives` is NULL or points to `ndirs` valid
/// infos; `results` and `nresults` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor(monitor: *const pmix_info_t, error: pmix_status_t, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Process_monitor", {
        require!("PMIx_Process_monitor", !monitor.is_null());
        let Ok(m) = crate::owned::Info::copy_of(&*monitor) else { return PMIX_ERR_NOMEM };
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        wait_infos(results, nresults, |done| crate::client::api::monitor(m, error, d, done))
    })
}

/// Ask the server to start the monitoring described by `monitor`; a heartbeat with a NULL
/// `cbfunc` is just sent.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `monitor`; PMIX_ERR_NOMEM;
/// PMIX_ERR_INIT/UNREACH without a server (a heartbeat: PMIX_ERR_UNREACH). On PMIX_SUCCESS
/// a non-NULL `cbfunc` fires exactly once, from the progress thread (before this returns
/// only if the request cannot be encoded); on an error return never.
///
/// # Safety
/// `monitor` is NULL or a valid info; `directives` is NULL or points to `ndirs` valid
/// infos; a non-NULL `cbfunc` must call the release function it is given; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor_nb(monitor: *const pmix_info_t, error: pmix_status_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Process_monitor_nb", {
        require!("PMIx_Process_monitor_nb", !monitor.is_null());
        // PMIx_Heartbeat(): the fast path, unless the caller wants a callback.
        if cbfunc.is_none() && crate::owned::key_of((*monitor).key.as_ptr()).as_deref() == Some("pmix.monitor.beat") {
            return crate::client::api::heartbeat();
        }
        let Ok(m) = crate::owned::Info::copy_of(&*monitor) else { return PMIX_ERR_NOMEM };
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        crate::client::api::monitor(m, error, d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Session control (PMIx 5): ask the server's host to act on every job of session
/// `session_id` (PMIX_SESSION_PAUSE, _RESUME, _TERMINATE, _SIGNAL, ...). The server
/// hands it to its host's session_control upcall: pmixrun carries out pause, resume,
/// terminate and signal of the jobs it runs; a C host (whose 4.2.2 module table has no
/// such upcall) answers PMIX_ERR_NOT_SUPPORTED.
///
/// Returns PMIX_ERR_INIT before any init; PMIX_ERR_NOT_SUPPORTED in the server role
/// (its host is the one to ask); PMIX_ERR_BAD_PARAM for NULL `directives` with `ndirs` > 0;
/// PMIX_ERR_NOMEM; PMIX_ERR_UNREACH without a connection. With a NULL `cbfunc` it
/// blocks and returns the host's answer (PMIX_SUCCESS when carried out). Otherwise
/// PMIX_SUCCESS, and `cbfunc` fires exactly once from the progress thread with the
/// host's answer and its infos; on an error return never. Over an OpenPMIx server
/// (whose 4.2 protocol has no session control) that answer is PMIX_ERR_NOT_SUPPORTED.
///
/// # Safety
/// `directives` is NULL or points to `ndirs` valid infos (copied before return); a
/// non-NULL `cbfunc` must call the release function it is given; `cbdata` is passed
/// back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Session_control(
    session_id: u32,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    // (as OpenPMIx: before init, the answer is that)
    if crate::facade::own_proc().is_none() {
        return PMIX_ERR_INIT;
    }
    status_entry!("PMIx_Session_control", {
        require!("PMIx_Session_control", ndirs == 0 || !directives.is_null());
        if crate::client::me().is_none() {
            crate::pmix_debug!(1, "PMIx_Session_control: in the server role the host is the one to ask");
            return PMIX_ERR_NOT_SUPPORTED;
        }
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return PMIX_ERR_UNREACH;
        }
        if cbfunc.is_none() {
            return wait_infos(core::ptr::null_mut(), core::ptr::null_mut(), |done| crate::client::api::session_control(session_id, d, done));
        }
        crate::client::api::session_control(session_id, d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}
