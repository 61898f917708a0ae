//! Publish, lookup, unpublish (`pmix.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};

use crate::abi::*;
use crate::ffi::boundary::SendPtr;
use crate::runtime::Oneshot;
use super::completions::{op_done, wait_status};

/// Publish the key-value pairs of `info` through the server for other processes to look up,
/// and wait for the outcome.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a
/// server; PMIX_ERR_NOMEM if `info` cannot be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx
/// callback.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos (copied before the call returns).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Publish", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        wait_status(move |d| crate::client::api::publish(i, d))
    })
}

/// Publish the key-value pairs of `info` through the server and report the outcome to
/// `cbfunc`.
///
/// Returns PMIX_SUCCESS, or PMIX_ERR_NOMEM if `info` cannot be copied. On PMIX_SUCCESS
/// `cbfunc` fires exactly once: later from the progress thread, or just after this returns
/// (off the caller's stack) when the request fails early (no server:
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never fires.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish_nb(info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Publish_nb", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        crate::client::api::publish(i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// Look up the published data for the keys set in `data`, filling in each found key's
/// publisher and value; waits.
///
/// Returns the server's status (PMIX_SUCCESS when something was found, PMIX_ERR_NOT_FOUND
/// when nothing was); PMIX_ERR_BAD_PARAM for a NULL `data` or `ndata` 0; PMIX_ERR_NOMEM;
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server; PMIX_ERR_LOST_CONNECTION. Called on a
/// progress thread (inside a callback) it answers PMIX_ERR_WOULD_BLOCK rather than wait.
///
/// # Safety
/// `data` is NULL or points to `ndata` valid pdata with their keys set (`proc` and `value`
/// are written); `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(data: *mut pmix_pdata_t, ndata: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Lookup", {
        require!("PMIx_Lookup", !data.is_null() && ndata > 0);
        if crate::runtime::on_progress_thread() {
            // Waiting here would stop the thread that brings the answer.
            return PMIX_ERR_WOULD_BLOCK;
        }
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let pd = crate::ffi::boundary::slice_mut(data, ndata);
        let keys: Vec<String> = pd.iter().map(|p| crate::owned::key_of(p.key.as_ptr()).unwrap_or_default()).collect();
        let done = Oneshot::new();
        let d = done.clone();
        crate::client::api::lookup(keys.clone(), i, crate::runtime::Completion::new(move |st, r| d.set((st, r))));
        let Some((st, found)) = done.wait() else { return PMIX_ERR_LOST_CONNECTION };
        for (slot, k) in pd.iter_mut().zip(keys.iter()) {
            if let Some((p, info)) = found.iter().find(|(_, i)| i.key() == k) {
                slot.proc = p.to_c();
                if let Err(e) = crate::data::value::xfer(&mut slot.value, info.value_ref(), 0) {
                    return e;
                }
            }
        }
        st
    })
}

/// Look up published data for the NULL-terminated key list `keys` and hand what is found to
/// `cbfunc`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for NULL `keys` or `cbfunc`; PMIX_ERR_NOMEM. On
/// PMIX_SUCCESS `cbfunc` fires exactly once: later from the progress thread, or just after
/// this returns (off the caller's stack) when the request fails early (no server:
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never fires.
///
/// # Safety
/// `keys` is NULL or a NULL-terminated array of NUL-terminated strings; `info` is NULL or
/// points to `ninfo` valid infos; the pdata given to `cbfunc` are the library's, valid only
/// during the call; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_lookup_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Lookup_nb", {
        require!("PMIx_Lookup_nb", !keys.is_null() && cbfunc.is_some());
        let n = crate::cmem::argv_len(keys);
        let ks: Vec<String> = (0..n).map(|k| crate::owned::key_of(*keys.add(k)).unwrap_or_default()).collect();
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let cbd = SendPtr(cbdata);
        crate::client::api::lookup(ks, i, crate::runtime::Completion::new(move |st, found: Vec<(crate::owned::Proc, crate::owned::Info)>| crate::ffi::boundary::complete(move || {
            let mut pd: Vec<pmix_pdata_t> = found.iter().map(|(p, i)| {
                // SAFETY: zeroed pdata filled from owned data; freed below.
                let mut x: pmix_pdata_t = unsafe { core::mem::zeroed() };
                x.proc = p.to_c();
                x.key = i.0.key;
                // SAFETY: a deep copy of a valid value into zeroed storage.
                let _ = unsafe { crate::data::value::xfer(&mut x.value, i.value_ref(), 0) };
                x
            }).collect();
            if let Some(f) = cbfunc {
                // SAFETY: the caller's callback; the array lives through the call.
                unsafe { f(st, if pd.is_empty() { core::ptr::null_mut() } else { pd.as_mut_ptr() }, pd.len(), cbd.get()) };
            }
            for x in pd.iter_mut() {
                // SAFETY: values we built.
                unsafe { crate::data::value::destruct(&mut x.value) };
            }
        })));
        PMIX_SUCCESS
    })
}

/// Withdraw the data this process published under `keys` (NULL: all of it, as the host
/// decides); waits for the outcome.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a
/// server; PMIX_ERR_NOMEM if `info` cannot be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx
/// callback.
///
/// # Safety
/// `keys` is NULL or a NULL-terminated array of NUL-terminated strings; `info` is NULL or
/// points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Unpublish", {
        let n = crate::cmem::argv_len(keys);
        let ks: Vec<String> = (0..n).map(|k| crate::owned::key_of(*keys.add(k)).unwrap_or_default()).collect();
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        wait_status(move |d| crate::client::api::unpublish(ks, i, d))
    })
}

/// Withdraw the data this process published under `keys` (NULL: all of it, as the host
/// decides); `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS, or PMIX_ERR_NOMEM if `info` cannot be copied. On PMIX_SUCCESS
/// `cbfunc` fires exactly once: later from the progress thread, or just after this returns
/// (off the caller's stack) when the request fails early (no server:
/// PMIX_ERR_INIT/PMIX_ERR_UNREACH). On an error return it never fires.
///
/// # Safety
/// `keys` is NULL or a NULL-terminated array of NUL-terminated strings; `info` is NULL or
/// points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Unpublish_nb", {
        let n = crate::cmem::argv_len(keys);
        let ks: Vec<String> = (0..n).map(|k| crate::owned::key_of(*keys.add(k)).unwrap_or_default()).collect();
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        crate::client::api::unpublish(ks, i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}
