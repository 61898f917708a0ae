//! Query, log, allocation requests, credentials (`pmix.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};

use crate::abi::*;
use crate::ffi::boundary::SendPtr;
use crate::runtime::Oneshot;
use super::completions::{infos_done, op_done, wait_infos, wait_status};

/// Answer `queries` (the library's own ABI keys here, the rest through the server) and wait
/// for the results.
///
/// Returns PMIX_SUCCESS, PMIX_QUERY_PARTIAL_SUCCESS or the server's error, with `*results`
/// a malloc'd array of `*nresults` infos (PMIX_INFO_FREE); PMIX_ERR_BAD_PARAM for NULL
/// `queries`/`results`/`nresults` or `nqueries` 0; a copy error; PMIX_ERR_INIT/UNREACH
/// without a server. Called on a progress thread (inside a callback) it answers
/// PMIX_ERR_WOULD_BLOCK rather than wait.
///
/// # Safety
/// `queries` is NULL or points to `nqueries` valid queries; `results` and `nresults` are
/// each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(queries: *mut pmix_query_t, nqueries: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Query_info", {
        require!("PMIx_Query_info", !queries.is_null() && nqueries > 0 && !results.is_null() && !nresults.is_null());
        if crate::runtime::on_progress_thread() {
            // Waiting here would stop the thread that brings the answer.
            return PMIX_ERR_WOULD_BLOCK;
        }
        let q = match crate::data::carray::CArray::copy(crate::data::kind::Kind::Query, queries as *const u8, nqueries) {
            Ok(q) => q,
            Err(e) => return e,
        };
        let done = Oneshot::new();
        let d = done.clone();
        crate::facade::query(&q, crate::runtime::Completion::new(move |st, r| d.set((st, r))));
        let Some((st, r)) = done.wait() else { return PMIX_ERR_LOST_CONNECTION };
        let (p, n) = crate::owned::infos_to_c(&r);
        *results = p;
        *nresults = n;
        st
    })
}

/// Answer `queries` (the library's own ABI keys here, the rest through the server);
/// `cbfunc` gets the results.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for NULL `queries` or `cbfunc` or `nqueries` 0;
/// a copy error. On PMIX_SUCCESS `cbfunc` fires exactly once, from a library thread, or
/// just after this returns (off the caller's stack) when the request fails early (no
/// server: PMIX_ERR_INIT/UNREACH); on an error return never.
///
/// # Safety
/// `queries` is NULL or points to `nqueries` valid queries; `cbfunc` must call the release
/// function it is given; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(queries: *mut pmix_query_t, nqueries: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Query_info_nb", {
        require!("PMIx_Query_info_nb", !queries.is_null() && nqueries > 0 && cbfunc.is_some());
        let q = match crate::data::carray::CArray::copy(crate::data::kind::Kind::Query, queries as *const u8, nqueries) {
            Ok(q) => q,
            Err(e) => return e,
        };
        crate::facade::query(&q, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Log the entries of `data` as `directives` ask: a client sends them to its server, a
/// server-only process writes them.
///
/// Returns PMIX_SUCCESS or the logging status; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a
/// server; PMIX_ERR_NOMEM if an array cannot be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx
/// callback.
///
/// # Safety
/// `data` is NULL or points to `ndata` valid infos; `directives` is NULL or points to
/// `ndirs` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(data: *const pmix_info_t, ndata: usize, directives: *const pmix_info_t, ndirs: usize) -> pmix_status_t {
    status_entry!("PMIx_Log", {
        let (Ok(d1), Ok(d2)) = (crate::owned::Info::copy_array(data, ndata), crate::owned::Info::copy_array(directives, ndirs)) else {
            return PMIX_ERR_NOMEM;
        };
        wait_status(move |d| crate::facade::log(d1, d2, d))
    })
}

/// Log the entries of `data` as `directives` ask (as PMIx_Log does); `cbfunc` gets the
/// outcome.
///
/// Returns PMIX_SUCCESS, or PMIX_ERR_NOMEM if an array cannot be copied. On PMIX_SUCCESS
/// `cbfunc` fires exactly once: later from the progress thread, or just after this returns
/// (off the caller's stack) when the request fails early (no server:
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never fires.
///
/// # Safety
/// `data` is NULL or points to `ndata` valid infos; `directives` is NULL or points to
/// `ndirs` valid infos; `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(data: *const pmix_info_t, ndata: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Log_nb", {
        let (Ok(d1), Ok(d2)) = (crate::owned::Info::copy_array(data, ndata), crate::owned::Info::copy_array(directives, ndirs)) else {
            return PMIX_ERR_NOMEM;
        };
        crate::facade::log(d1, d2, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Ask the host, through the server, for a resource allocation change of kind `directive`,
/// and wait for its answer.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a
/// server; PMIX_ERR_NOMEM if `info` cannot be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx
/// callback.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; `results` and `nresults` are each NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request(directive: pmix_alloc_directive_t, info: *mut pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Allocation_request", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        wait_infos(results, nresults, |done| crate::client::api::allocate(directive, i, done))
    })
}

/// Ask the host, through the server, for a resource allocation change of kind `directive`;
/// `cbfunc` gets the answer.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `cbfunc`; PMIX_ERR_NOMEM;
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server. On PMIX_SUCCESS `cbfunc` fires exactly
/// once, from the progress thread (just after this returns (off the caller's stack) only if
/// the request cannot be encoded); on an error return it never fires.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; `cbfunc` must call the release function
/// it is given; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request_nb(directive: pmix_alloc_directive_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Allocation_request_nb", {
        require!("PMIx_Allocation_request_nb", cbfunc.is_some());
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        crate::client::api::allocate(directive, i, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Ask the server (and its host) for a security credential for this process, and wait for
/// it.
///
/// Returns the server's status, with `credential` set to malloc'd bytes (caller frees;
/// NULL/0 when empty); PMIX_ERR_BAD_PARAM for a NULL `credential`; PMIX_ERR_NOMEM;
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server; PMIX_ERR_WOULD_BLOCK inside a PMIx
/// callback.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; `credential` is NULL or writable (its
/// previous bytes are overwritten, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential(info: *const pmix_info_t, ninfo: usize, credential: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Get_credential", {
        require!("PMIx_Get_credential", !credential.is_null());
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::runtime::on_progress_thread() {
            return PMIX_ERR_WOULD_BLOCK;
        }
        let done = Oneshot::new();
        let d = done.clone();
        crate::client::api::get_credential(i, crate::runtime::Completion::new(move |st, (c, _): (Vec<u8>, Vec<crate::owned::Info>)| d.set((st, c))));
        let Some((st, c)) = done.wait() else { return PMIX_ERR_LOST_CONNECTION };
        let bo = &mut *credential;
        bo.bytes = crate::cmem::dup_bytes(&c);
        bo.size = if bo.bytes.is_null() { 0 } else { c.len() };
        st
    })
}

/// Ask the server (and its host) for a security credential for this process; `cbfunc` gets
/// it.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `cbfunc`; PMIX_ERR_NOMEM. On
/// PMIX_SUCCESS `cbfunc` fires exactly once: later from the progress thread, or just after
/// this returns (off the caller's stack) when the request fails early (no server:
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never fires.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; the credential and infos given to
/// `cbfunc` are the library's, valid only during the call; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential_nb(info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_credential_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Get_credential_nb", {
        require!("PMIx_Get_credential_nb", cbfunc.is_some());
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let cbd = SendPtr(cbdata);
        crate::client::api::get_credential(i, crate::runtime::Completion::new(move |st, (mut c, infos): (Vec<u8>, Vec<crate::owned::Info>)| crate::ffi::boundary::complete(move || {
            let mut bo = pmix_byte_object_t { bytes: c.as_mut_ptr() as *mut c_char, size: c.len() };
            let (p, n) = crate::owned::infos_to_c(&infos);
            if let Some(f) = cbfunc {
                // SAFETY: the caller's callback; the data lives through the call.
                unsafe { f(st, &mut bo, p, n, cbd.get()) };
            }
            // SAFETY: made by infos_to_c.
            unsafe { crate::owned::free_c_infos(p, n) };
        })));
        PMIX_SUCCESS
    })
}

/// Ask the server (and its host) to check the credential `cred`, and wait for the verdict.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for a NULL or malformed
/// `cred`; PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server;
/// PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `cred` is NULL or a byte object whose `bytes` hold `size` bytes; `info` is NULL or
/// points to `ninfo` valid infos; `results` and `nresults` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential(cred: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Validate_credential", {
        require!("PMIx_Validate_credential", !cred.is_null());
        let Ok(c) = crate::data::value::bo_slice(&*cred) else { return PMIX_ERR_BAD_PARAM };
        let c = c.to_vec();
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        wait_infos(results, nresults, |done| crate::client::api::validate_credential(c, i, done))
    })
}

/// Ask the server (and its host) to check the credential `cred`; `cbfunc` gets the verdict.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `cbfunc` or a NULL or malformed
/// `cred`; PMIX_ERR_NOMEM. On PMIX_SUCCESS `cbfunc` fires exactly once: later from the
/// progress thread, or just after this returns (off the caller's stack) when the request
/// fails early (no server: PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never
/// fires.
///
/// # Safety
/// `cred` is NULL or a byte object whose `bytes` hold `size` bytes; `info` is NULL or
/// points to `ninfo` valid infos; the infos given to `cbfunc` are valid only during the
/// call; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential_nb(cred: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_validation_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Validate_credential_nb", {
        require!("PMIx_Validate_credential_nb", !cred.is_null() && cbfunc.is_some());
        let Ok(c) = crate::data::value::bo_slice(&*cred) else { return PMIX_ERR_BAD_PARAM };
        let c = c.to_vec();
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let cbd = SendPtr(cbdata);
        crate::client::api::validate_credential(c, i, crate::runtime::Completion::new(move |st, r: Vec<crate::owned::Info>| crate::ffi::boundary::complete(move || {
            let (p, n) = crate::owned::infos_to_c(&r);
            if let Some(f) = cbfunc {
                // SAFETY: the caller's callback; the array lives through the call.
                unsafe { f(st, p, n, cbd.get()) };
            }
            // SAFETY: made by infos_to_c.
            unsafe { crate::owned::free_c_infos(p, n) };
        })));
        PMIX_SUCCESS
    })
}
