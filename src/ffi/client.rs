//! Exported functions of `pmix.h (client API and data utilities)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::Oneshot;

/// A completion that fires a C op callback.
fn op_done(cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> crate::client::api::Done {
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
unsafe fn wait_infos(results: *mut *mut pmix_info_t, nresults: *mut usize, start: impl FnOnce(InfosDone)) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `results` and `nresults` are each NULL or writable.
    unsafe {
        if crate::runtime::on_progress_thread() {
            return PMIX_ERR_WOULD_BLOCK;
        }
        let done = Oneshot::new();
        let d = done.clone();
        start(crate::runtime::Completion::new(move |st, r| d.set((st, r))));
        let Some((st, r)) = done.wait() else { return PMIX_ERR_LOST_CONNECTION };
        if !results.is_null() && !nresults.is_null() {
            let (p, n) = crate::owned::infos_to_c(&r);
            *results = p;
            *nresults = n;
        }
        st
    }
}

/// Hand results to a C info callback (it releases them through release_infos).
fn infos_done(cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> InfosDone {
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
fn wait_status(start: impl FnOnce(crate::client::api::Done)) -> pmix_status_t {
    if crate::runtime::on_progress_thread() {
        crate::pmix_debug!(1, "blocking PMIx call inside a callback: refused (it would deadlock)");
        return PMIX_ERR_WOULD_BLOCK;
    }
    let done = Oneshot::new();
    let d = done.clone();
    start(crate::runtime::Completion::on_status(move |st| d.set(st)));
    done.wait().unwrap_or(PMIX_ERR_LOST_CONNECTION)
}

/// Release function handed with info arrays we allocate for callbacks.
///
/// # Safety
/// `cbdata` is NULL or the box this library handed with the infos, released once.
unsafe extern "C" fn release_infos(cbdata: *mut c_void) {
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

/// Initialise the client side (reference counted) and connect to the local server named in
/// the environment.
///
/// Returns PMIX_SUCCESS (later calls too); with no server connection the library is still
/// initialised for local calls and it returns PMIX_ERR_UNREACH (or the server's refusal, or
/// PMIX_ERR_INIT); PMIX_ERR_DATA_VALUE_NOT_FOUND, uninitialised, if PMIX_NAMESPACE lacks a
/// valid PMIX_RANK.
///
/// # Safety
/// `proc` is NULL or writable (it gets this process's name, even on error); `info` and
/// `ninfo` are not read.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(proc: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Init", {
        let (me, st) = crate::client::init();
        if let Some(p) = proc.as_mut() {
            *p = me.to_c();
        }
        if st == PMIX_SUCCESS {
            crate::client::debugger::stop_in_init_if_asked(&me);
        }
        let _ = (info, ninfo);
        st
    })
}

/// Drop one PMIx_Init reference; the last one tells the server goodbye and shuts the client
/// side down.
///
/// Returns PMIX_SUCCESS (also when the server is already gone), PMIX_ERR_INIT when not
/// initialised, or the server's answer to the goodbye.
///
/// # Safety
/// `info` and `ninfo` are not read; any values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Finalize", {
        let _ = (info, ninfo);
        crate::client::finalize()
    })
}

/// Tell whether the client (or tool) side of the library is initialised.
///
/// Returns 1 between PMIx_Init (or PMIx_tool_init) and the last PMIx_Finalize, else 0; a
/// server-only process gets 0.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    entry!("PMIx_Initialized", { crate::client::me().is_some() as c_int })
}

/// Ask the host, through the server, to abort the processes in `procs` with `status` and
/// `msg`; waits for the answer.
///
/// Returns the server's status (the host may end the caller before it arrives);
/// PMIX_ERR_INIT or PMIX_ERR_UNREACH without a server; PMIX_ERR_WOULD_BLOCK when called
/// inside a PMIx callback.
///
/// # Safety
/// `msg` is NULL or NUL-terminated; `procs` is NULL or points to `nprocs` valid procs.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(status: c_int, msg: *const c_char, procs: *mut pmix_proc_t, nprocs: usize) -> pmix_status_t {
    status_entry!("PMIx_Abort", {
        let m = crate::cmem::cstr_bytes(msg).map(String::from_utf8_lossy).unwrap_or_default().into_owned();
        crate::client::api::abort(status, &m, procs!(procs, nprocs))
    })
}

/// Store a key-value pair for this process: visible here at once, sent at the next
/// PMIx_Commit (unless PMIX_INTERNAL).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `val` or a NULL or over-long key;
/// PMIX_ERR_INIT before PMIx_Init; the copy's error (e.g. PMIX_ERR_NOMEM) when `val` cannot
/// be copied.
///
/// # Safety
/// `key` is NULL or NUL-terminated (at most PMIX_MAX_KEYLEN + 1 bytes are read); `val` is
/// NULL or a valid value, copied (the caller keeps it).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(scope: pmix_scope_t, key: *const c_char, val: *mut pmix_value_t) -> pmix_status_t {
    status_entry!("PMIx_Put", {
        require!("PMIx_Put", !val.is_null());
        let Some(k) = crate::owned::key_of(key) else { return PMIX_ERR_BAD_PARAM };
        let v = match crate::owned::Value::copy_of(&*val) {
            Ok(v) => v,
            Err(e) => return e,
        };
        crate::client::api::put(scope, crate::owned::Info::new(&k, v)).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Send the values put since the last commit to the server, without waiting for an answer.
///
/// Returns PMIX_SUCCESS (also with nothing to send); PMIX_ERR_INIT before PMIx_Init;
/// PMIX_ERR_UNREACH with no server connection, or an encoding error: in both cases the
/// pending values are not sent again.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> pmix_status_t {
    status_entry!("PMIx_Commit", { crate::client::api::commit().err().unwrap_or(PMIX_SUCCESS) })
}

/// Block until every process in `procs` (NULL: the caller's job) reaches this fence;
/// PMIX_COLLECT_DATA brings their data.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_SUCCESS at once for a process alone
/// without a server, else PMIX_ERR_INIT/PMIX_ERR_UNREACH; PMIX_ERR_NOMEM if `info` cannot
/// be copied; PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo`
/// valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Fence", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let ps = procs!(procs, nprocs);
        wait_status(move |d| crate::client::api::barrier(crate::wire::FENCE, ps, i, d))
    })
}

/// Start a fence over `procs` (NULL: the caller's whole job) and report its outcome to
/// `cbfunc`.
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
pub unsafe extern "C" fn PMIx_Fence_nb(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Fence_nb", {
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        crate::client::api::barrier(crate::wire::FENCE, procs!(procs, nprocs), i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// The key of a Get: "" for NULL (everything held for one named rank,
/// which needs a proc), else a non-empty key.
///
/// # Safety
/// `key` is NULL or a C string.
unsafe fn get_key(proc: *const pmix_proc_t, key: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above: `key` is NULL or a C string.
    unsafe {
        if key.is_null() {
            if proc.is_null() {
                crate::pmix_debug!(1, "PMIx_Get: NULL key and NULL proc");
            }
            return (!proc.is_null()).then(String::new);
        }
        crate::owned::key_of(key).filter(|k| !k.is_empty())
    }
}

/// Retrieve the value of `key` for `proc` (NULL: this process): its own data, job data, or
/// another rank's committed data.
///
/// Returns PMIX_SUCCESS with `*val` malloc'd (release with PMIX_VALUE_RELEASE);
/// PMIX_ERR_BAD_PARAM for a NULL `val` or a bad key; PMIX_ERR_NOT_FOUND; PMIX_ERR_INIT
/// before PMIx_Init; PMIX_ERR_NOMEM; or the server's error. Called on a progress thread
/// (inside a callback) it answers PMIX_ERR_WOULD_BLOCK rather than wait for the server.
///
/// # Safety
/// `proc` is NULL or a valid proc; `key` is NULL (all data of one named rank) or
/// NUL-terminated (at most PMIX_MAX_KEYLEN + 1 bytes are read); `info` is NULL or points to
/// `ninfo` valid infos; `val` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(proc: *const pmix_proc_t, key: *const c_char, info: *const pmix_info_t, ninfo: usize, val: *mut *mut pmix_value_t) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `proc` is NULL or a valid proc; `key` NULL or NUL-terminated; `info` NULL or `ninfo` valid infos; `val` NULL or writable.
    unsafe {
        // Hot path: a cached value of a named proc, without copying the key or
        // the directives (behind the panic guard too; a panic there falls
        // back to the guarded slow path).
        let fast = || -> Option<pmix_status_t> {
            if val.is_null() || proc.is_null() || key.is_null() || (ninfo != 0 && !info.is_null()) {
                return None;
            }
            let p = &*proc;
            let ns = &p.nspace[..crate::cmem::bounded_len(&p.nspace)];
            // SAFETY: c_char and u8 have one layout.
            let ns = core::slice::from_raw_parts(ns.as_ptr() as *const u8, ns.len());
            let (Ok(ns), Some(k)) = (core::str::from_utf8(ns), crate::cmem::bounded_cstr(key, PMIX_MAX_KEYLEN + 1)) else { return None };
            let k = core::str::from_utf8(k).ok()?;
            let v = crate::client::cached(ns, p.rank, k)?;
            let out = crate::cmem::calloc_one::<pmix_value_t>();
            if out.is_null() {
                return Some(PMIX_ERR_NOMEM);
            }
            *out = v.0;
            core::mem::forget(v);
            *val = out;
            Some(PMIX_SUCCESS)
        };
        if let Some(rc) = crate::guard::catch("PMIx_Get", fast) {
            return rc;
        }
        status_entry!("PMIx_Get", {
            require!("PMIx_Get", !val.is_null());
            let Some(k) = get_key(proc, key) else { return PMIX_ERR_BAD_PARAM };
            let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
            let target = proc.as_ref().map(crate::owned::Proc::from_c);
            let done = Oneshot::new();
            let d = done.clone();
            crate::facade::get(target, k, i, crate::runtime::Completion::new(move |st, v| d.set((st, v))));
            // On a progress thread only an answer known at once can be had:
            // waiting for the server would stop the thread that brings it.
            let answer = if crate::runtime::on_progress_thread() {
                done.wait_timeout(std::time::Duration::ZERO).or(Some((PMIX_ERR_WOULD_BLOCK, None)))
            } else {
                done.wait()
            };
            match answer {
                Some((PMIX_SUCCESS, Some(v))) => {
                    let p = crate::cmem::calloc_one::<pmix_value_t>();
                    if p.is_null() {
                        return PMIX_ERR_NOMEM;
                    }
                    *p = v.0;
                    core::mem::forget(v);
                    *val = p;
                    PMIX_SUCCESS
                }
                Some((st, _)) if st != PMIX_SUCCESS => st,
                _ => PMIX_ERR_NOT_FOUND,
            }
        })
    }
}

/// Retrieve the value of `key` for `proc` (NULL: this process) and hand it to `cbfunc`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `cbfunc` or a bad key;
/// PMIX_ERR_NOMEM. On PMIX_SUCCESS `cbfunc` fires exactly once: just after this returns
/// (off the caller's stack) when answered locally (cached data, early errors), else later
/// from the progress thread; on an error return never.
///
/// # Safety
/// `proc` is NULL or a valid proc; `key` is NULL (all data of one named rank) or
/// NUL-terminated; `info` is NULL or points to `ninfo` valid infos; the value given to
/// `cbfunc` is the library's, valid only during the call; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(proc: *const pmix_proc_t, key: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_value_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Get_nb", {
        require!("PMIx_Get_nb", cbfunc.is_some());
        let Some(k) = get_key(proc, key) else { return PMIX_ERR_BAD_PARAM };
        let Ok(i) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let target = proc.as_ref().map(crate::owned::Proc::from_c);
        let cbd = SendPtr(cbdata);
        crate::facade::get(target, k, i, crate::runtime::Completion::new(move |st, v: Option<crate::owned::Value>| crate::ffi::boundary::complete(move || {
            let mut v = v;
            let p = v.as_mut().map_or(core::ptr::null_mut(), |v| &mut v.0 as *mut pmix_value_t);
            if let Some(f) = cbfunc {
                // SAFETY: the caller's callback; the value lives through the call.
                unsafe { f(st, p, cbd.get()) };
            }
        })));
        PMIX_SUCCESS
    })
}

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
        wait_status(move |d| crate::client::api::barrier(crate::wire::CONNECT, ps, i, d))
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
        crate::client::api::barrier(crate::wire::CONNECT, procs!(procs, nprocs), i, op_done(cbfunc, cbdata));
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
        wait_status(move |d| crate::client::api::barrier(crate::wire::DISCONNECT, ps, i, d))
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
        crate::client::api::barrier(crate::wire::DISCONNECT, procs!(ranges, nprocs), i, op_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// List the ranks of job `nspace` (NULL: the caller's) on host `nodename` (NULL: any host),
/// from locally held job data.
///
/// Returns PMIX_SUCCESS with `*procs` a malloc'd array of `*nprocs` procs (caller frees);
/// PMIX_ERR_BAD_PARAM for NULL `procs` or `nprocs`; PMIX_ERR_INIT before PMIx_Init or
/// PMIX_ERR_NOT_FOUND when no rank matches (both set the outputs to NULL/0);
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `nodename` and `nspace` are each NULL or NUL-terminated; `procs` and `nprocs` are each
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(nodename: *const c_char, nspace: *const c_char, procs: *mut *mut pmix_proc_t, nprocs: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Resolve_peers", {
        require!("PMIx_Resolve_peers", !procs.is_null() && !nprocs.is_null());
        let host = crate::cmem::cstr_bytes(nodename).map(|b| String::from_utf8_lossy(b).into_owned());
        // A NULL nspace means the caller's own; a bad one is no name at all.
        let ns = crate::owned::nspace_of(nspace);
        if !nspace.is_null() && ns.is_none() {
            *procs = core::ptr::null_mut();
            *nprocs = 0;
            return PMIX_ERR_BAD_PARAM;
        }
        let out: Vec<pmix_proc_t> = match crate::facade::resolve_peers(host, ns) {
            Ok(peers) => peers.iter().map(crate::owned::Proc::to_c).collect(),
            Err(e) => {
                *procs = core::ptr::null_mut();
                *nprocs = 0;
                return e;
            }
        };
        let p = crate::cmem::calloc_array(out.len(), core::mem::size_of::<pmix_proc_t>()) as *mut pmix_proc_t;
        if p.is_null() {
            return PMIX_ERR_NOMEM;
        }
        core::ptr::copy_nonoverlapping(out.as_ptr(), p, out.len());
        *procs = p;
        *nprocs = out.len();
        PMIX_SUCCESS
    })
}

/// Give the comma-separated host list of job `nspace` (NULL or empty: the caller's), from
/// locally held job data.
///
/// Returns PMIX_SUCCESS with `*nodelist` a malloc'd string (caller frees);
/// PMIX_ERR_BAD_PARAM for a NULL `nodelist`; PMIX_ERR_INIT before PMIx_Init or
/// PMIX_ERR_NOT_FOUND when the job's hosts are unknown (both set `*nodelist` to NULL).
///
/// # Safety
/// `nspace` is NULL or NUL-terminated; `nodelist` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(nspace: *const c_char, nodelist: *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_Resolve_nodes", {
        require!("PMIx_Resolve_nodes", !nodelist.is_null());
        let ns = crate::owned::nspace_of(nspace);
        if !nspace.is_null() && ns.is_none() {
            *nodelist = core::ptr::null_mut();
            return PMIX_ERR_BAD_PARAM;
        }
        let list = crate::facade::resolve_nodes(ns);
        match list {
            Ok(l) => {
                *nodelist = crate::cmem::strdup_bytes(l.as_bytes());
                PMIX_SUCCESS
            }
            Err(e) => {
                *nodelist = core::ptr::null_mut();
                e
            }
        }
    })
}

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

/// The group name argument: NUL-terminated, at most PMIX_MAX_NSLEN bytes.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (only the first PMIX_MAX_NSLEN + 1 bytes are read).
unsafe fn group_name(grp: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above: `grp` is NULL or NUL-terminated (only the first PMIX_MAX_NSLEN + 1 bytes are read).
    unsafe {
        crate::cmem::bounded_cstr(grp, PMIX_MAX_NSLEN + 1).and_then(|b| core::str::from_utf8(b).ok()).filter(|s| !s.is_empty()).map(str::to_string)
    }
}

/// Blocking construct / invite: results handed to the caller.
///
/// # Safety
/// As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos, `results`/`nresults` NULL or writable.
#[allow(clippy::too_many_arguments)]
unsafe fn group_blocking(fname: &str, tag: u16, grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos, `results`/`nresults` NULL or writable.
    unsafe {
        let name = group_name(grp);
        if name.is_none() || procs.is_null() || nprocs == 0 {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name or procs");
            return PMIX_ERR_BAD_PARAM;
        }
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let procs = procs!(procs, nprocs);
        wait_infos(results, nresults, |done| crate::client::api::group(tag, &name.unwrap(), procs, d, done))
    }
}

/// Non-blocking construct / invite: results to the info callback.
///
/// # Safety
/// As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos; `cbdata` is the caller's, handed back to `cbfunc`.
#[allow(clippy::too_many_arguments)]
unsafe fn group_nb(fname: &str, tag: u16, grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos; `cbdata` is the caller's, handed back to `cbfunc`.
    unsafe {
        let name = group_name(grp);
        if name.is_none() || procs.is_null() || nprocs == 0 {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name or procs");
            return PMIX_ERR_BAD_PARAM;
        }
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        crate::client::api::group(tag, &name.unwrap(), procs!(procs, nprocs), d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    }
}

/// Form the process group `grp` from `procs`, and wait until it is formed.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp`, a NULL `procs` or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a
/// server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `directives` is NULL or points to `ndirs` valid
/// infos; `results` and `nresults` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_construct", { group_blocking("PMIx_Group_construct", crate::wire::GROUP_CONSTRUCT, grp, procs, nprocs, directives, ndirs, results, nresults) })
}

/// Start forming the process group `grp` from `procs`; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`, a NULL `procs`
/// or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (before this returns only if the
/// request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `cbfunc` may be NULL, else it must call the release function it is given; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_construct_nb", { group_nb("PMIx_Group_construct_nb", crate::wire::GROUP_CONSTRUCT, grp, procs, nprocs, info, ninfo, cbfunc, cbdata) })
}

/// Invite `procs` to join the group `grp`, led by the caller, and wait for the outcome.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresult` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp`, a NULL `procs` or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a
/// server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `results` and `nresult` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_invite", { group_blocking("PMIx_Group_invite", crate::wire::GROUP_INVITE, grp, procs, nprocs, info, ninfo, results, nresult) })
}

/// Invite `procs` to join the group `grp`, led by the caller; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`, a NULL `procs`
/// or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (before this returns only if the
/// request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `cbfunc` may be NULL, else it must call the release function it is given; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_invite_nb", { group_nb("PMIx_Group_invite_nb", crate::wire::GROUP_INVITE, grp, procs, nprocs, info, ninfo, cbfunc, cbdata) })
}

/// The accept / decline argument of PMIx_Group_join.
fn join_opt(opt: pmix_group_opt_t) -> Option<bool> {
    match opt {
        PMIX_GROUP_ACCEPT => Some(true),
        PMIX_GROUP_DECLINE => Some(false),
        _ => None,
    }
}

/// Accept or decline (`opt`) an invitation from `leader` to join the group `grp`, and wait
/// for the outcome.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresult` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp` or an `opt` other than accept/decline; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH
/// without a server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `leader` is
/// NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos; `results` and
/// `nresult` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_join", {
        let (name, accept) = (group_name(grp), join_opt(opt));
        require!("PMIx_Group_join", name.is_some() && accept.is_some());
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let l = leader.as_ref().map(crate::owned::Proc::from_c);
        wait_infos(results, nresult, |done| crate::client::api::group_join(&name.unwrap(), l, accept.unwrap(), d, done))
    })
}

/// Accept or decline (`opt`) an invitation from `leader` to join the group `grp`; `cbfunc`
/// gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp` or an `opt`
/// other than accept/decline; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On
/// PMIX_SUCCESS `cbfunc` fires exactly once, from the progress thread (just after this
/// returns (off the caller's stack) only if the request cannot be encoded); on an error
/// return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `leader` is
/// NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos; `cbfunc` may be
/// NULL, else it must call the release function it is given; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_join_nb", {
        let (name, accept) = (group_name(grp), join_opt(opt));
        require!("PMIx_Group_join_nb", name.is_some() && accept.is_some());
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        let l = leader.as_ref().map(crate::owned::Proc::from_c);
        crate::client::api::group_join(&name.unwrap(), l, accept.unwrap(), d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// PMIx_Group_leave / _destruct with an op callback (None: blocking).
///
/// # Safety
/// `grp` NULL or NUL-terminated, `info` NULL or `ninfo` valid infos; a callback's `cbdata` is the caller's, handed back to it.
unsafe fn group_op(tag: u16, fname: &str, grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cb: Option<(pmix_op_cbfunc_t, *mut c_void)>) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `grp` NULL or NUL-terminated, `info` NULL or `ninfo` valid infos; a callback's `cbdata` is the caller's, handed back to it.
    unsafe {
        let Some(name) = group_name(grp) else {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name");
            return PMIX_ERR_BAD_PARAM;
        };
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        match cb {
            None => wait_infos(core::ptr::null_mut(), core::ptr::null_mut(), |done| crate::client::api::group(tag, &name, Vec::new(), d, done)),
            Some((cbfunc, cbdata)) => {
                if crate::client::handle().is_none() {
                    return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
                }
                let done = op_done(cbfunc, cbdata);
                crate::client::api::group(tag, &name, Vec::new(), d, crate::runtime::Completion::new(move |st, _: Vec<crate::owned::Info>| done.status(st)));
                PMIX_SUCCESS
            }
        }
    }
}

/// Leave the group `grp`, waiting for the server to acknowledge it.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_BAD_PARAM for an empty or
/// over-long `grp`; PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server;
/// PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Group_leave", { group_op(crate::wire::GROUP_LEAVE, "PMIx_Group_leave", grp, info, ninfo, None) })
}

/// Leave the group `grp`; `cbfunc` gets the server's acknowledgement.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`;
/// PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (just after this returns (off the
/// caller's stack) only if the request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_leave_nb", { group_op(crate::wire::GROUP_LEAVE, "PMIx_Group_leave_nb", grp, info, ninfo, Some((cbfunc, cbdata))) })
}

/// Dissolve the group `grp`, and wait for the outcome.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_BAD_PARAM for an empty or
/// over-long `grp`; PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server;
/// PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Group_destruct", { group_op(crate::wire::GROUP_DESTRUCT, "PMIx_Group_destruct", grp, info, ninfo, None) })
}

/// Start dissolving the group `grp`; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`;
/// PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (just after this returns (off the
/// caller's stack) only if the request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_destruct_nb", { group_op(crate::wire::GROUP_DESTRUCT, "PMIx_Group_destruct_nb", grp, info, ninfo, Some((cbfunc, cbdata))) })
}

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

/// Register for access to the fabric description in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register")
}

/// Register for access to the fabric description in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register_nb")
}

/// Refresh the fabric description held in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update")
}

/// Refresh the fabric description held in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update_nb")
}

/// Release the fabric registration held in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister")
}

/// Release the fabric registration held in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister_nb")
}

/// Compute the distances from the CPUs in `cpuset` (NULL: where this
/// process is bound) to the network, OpenFabrics and GPU devices of `topo`
/// (an hwloc topology, e.g. from PMIx_Load_topology; NULL: this process's),
/// as OpenPMIx 4.2.2 does; `info` may select device types
/// (PMIX_DEVICE_TYPE) and devices (PMIX_DEVICE_ID, a name or UUID).
///
/// Returns PMIX_SUCCESS with a malloc'd array the caller frees with
/// PMIX_DEVICE_DIST_FREE; PMIX_ERR_NOT_FOUND (and no array) when no device
/// qualifies; PMIX_ERR_BAD_PARAM for NULL arguments or sources;
/// PMIX_ERR_NOT_SUPPORTED for a source other than hwloc (or a topology that
/// is not an hwloc one); PMIX_ERR_NOT_AVAILABLE when only the whole machine
/// holds the CPUs.
///
/// # Safety
/// `topo` and `cpuset` are NULL or valid; `info` is NULL or `ninfo` valid
/// infos; `distances` and `ndist` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, distances: *mut *mut pmix_device_distance_t, ndist: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Compute_distances", {
        require!("PMIx_Compute_distances", !distances.is_null() && !ndist.is_null());
        *distances = core::ptr::null_mut();
        *ndist = 0;
        match compute_distances(topo, cpuset, info, ninfo) {
            Ok((array, n)) => {
                *distances = array;
                *ndist = n;
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// PMIx_Compute_distances' work: the C array and its length.
///
/// # Safety
/// As PMIx_Compute_distances.
unsafe fn compute_distances(topo: *const pmix_topology_t, cpuset: *const pmix_cpuset_t, info: *const pmix_info_t, ninfo: usize) -> Result<(*mut pmix_device_distance_t, usize), pmix_status_t> {
    // SAFETY: the caller upholds PMIx_Compute_distances' contract.
    unsafe {
        // No topology: this process's. No cpuset: where this process is bound.
        let topology = match topo.as_ref() {
            None => {
                let (p, source) = crate::hwloc::process_topology(crate::facade::topology_source)?;
                crate::cmem::free(source);
                p
            }
            Some(t) => {
                let Some(src) = crate::cmem::cstr_bytes(t.source) else {
                    crate::pmix_debug!(5, "PMIx_Compute_distances: the topology has no source");
                    return Err(PMIX_ERR_BAD_PARAM);
                };
                // rpmix's own topology objects (copies, unpacked ones) are descriptions, not hwloc topologies
                if !crate::hwlib::names_hwloc(src) || t.topology.is_null() || crate::data::cpuset::own_text(t.topology).is_some() {
                    return Err(PMIX_ERR_NOT_SUPPORTED);
                }
                t.topology
            }
        };
        let cpus = match cpuset.as_ref() {
            None => crate::hwloc::Cpus::List(crate::topology::binding(false)?),
            Some(c) => {
                let Some(src) = crate::cmem::cstr_bytes(c.source) else {
                    crate::pmix_debug!(5, "PMIx_Compute_distances: the cpuset has no source");
                    return Err(PMIX_ERR_BAD_PARAM);
                };
                if !crate::hwlib::names_hwloc(src) {
                    return Err(PMIX_ERR_NOT_SUPPORTED);
                }
                match crate::data::cpuset::own_text(c.bitmap) {
                    Some(list) => {
                        let list = String::from_utf8_lossy(&list).into_owned();
                        crate::hwloc::Cpus::List(crate::topology::parse_list(&list).ok_or(PMIX_ERR_BAD_PARAM)?)
                    }
                    None if c.bitmap.is_null() => return Err(PMIX_ERR_BAD_PARAM),
                    None => crate::hwloc::Cpus::Hwloc(c.bitmap),
                }
            }
        };
        let mut kinds: pmix_device_type_t = 0;
        let mut ids = Vec::new();
        if info.is_null() {
            kinds = PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_BLOCK | PMIX_DEVTYPE_DMA | PMIX_DEVTYPE_COPROC;
        } else {
            for i in crate::ffi::boundary::slice(info, ninfo) {
                let key = crate::owned::key_of(i.key.as_ptr()).unwrap_or_default();
                if key.as_bytes() == PMIX_DEVICE_TYPE.to_bytes() && i.value.r#type == PMIX_DEVTYPE {
                    kinds |= i.value.data.devtype;
                } else if key.as_bytes() == PMIX_DEVICE_ID.to_bytes() && i.value.r#type == PMIX_STRING {
                    if let Some(s) = crate::cmem::cstr_bytes(i.value.data.string) {
                        ids.push(String::from_utf8_lossy(s).into_owned());
                    }
                }
            }
        }
        let found = crate::hwloc::distances(topology, &cpus, kinds, &ids, &crate::rendezvous::hostname())?;
        let n = found.len();
        let array = libc::calloc(n, core::mem::size_of::<pmix_device_distance_t>()) as *mut pmix_device_distance_t;
        if array.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        for (i, d) in found.iter().enumerate() {
            let e = &mut *array.add(i);
            e.uuid = crate::cmem::strdup_bytes(d.uuid.as_bytes()) as *mut c_char;
            e.osname = crate::cmem::strdup_bytes(d.osname.as_bytes()) as *mut c_char;
            e.r#type = d.kind;
            e.mindist = d.mindist;
            e.maxdist = d.maxdist;
        }
        Ok((array, n))
    }
}

/// Frees a distance array handed to a PMIx_Compute_distances_nb callback.
///
/// # Safety
/// `cbdata` is a `DistArray` made by PMIx_Compute_distances_nb.
unsafe extern "C" fn release_distances(cbdata: *mut c_void) {
    crate::guard::catch("release_distances", || {
        // SAFETY: the box made by PMIx_Compute_distances_nb, released once.
        let d = unsafe { Box::from_raw(cbdata as *mut DistArray) };
        for i in 0..d.1 {
            // SAFETY: the array and strings came from calloc/strdup.
            unsafe {
                let e = &*d.0.add(i);
                crate::cmem::free(e.uuid);
                crate::cmem::free(e.osname);
            }
        }
        // SAFETY: from calloc.
        unsafe { libc::free(d.0 as *mut c_void) };
    })
}

struct DistArray(*mut pmix_device_distance_t, usize);
// SAFETY: the array is owned by the box and only touched by its release.
unsafe impl Send for DistArray {}

/// PMIx_Compute_distances, answered through `cbfunc` (from a progress
/// thread, never inside this call); the array is the library's until
/// `release_fn` is called.
///
/// Returns PMIX_SUCCESS (the callback carries the status and distances);
/// PMIX_ERR_BAD_PARAM for a NULL `cbfunc`.
///
/// # Safety
/// As PMIx_Compute_distances; `cbfunc` is callable with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_device_dist_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Compute_distances_nb", {
        let Some(cb) = cbfunc else {
            crate::pmix_debug!(5, "PMIx_Compute_distances_nb: no callback");
            return PMIX_ERR_BAD_PARAM;
        };
        let (st, array) = match compute_distances(topo, cpuset, info, ninfo) {
            Ok((a, n)) => (PMIX_SUCCESS, DistArray(a, n)),
            Err(e) => (e, DistArray(core::ptr::null_mut(), 0)),
        };
        let cbdata = cbdata as usize;
        crate::ffi::boundary::complete(move || {
            let (p, n) = (array.0, array.1);
            let keep = Box::into_raw(Box::new(array)) as *mut c_void;
            // SAFETY: the caller's callback with its cbdata; the array stays ours until release.
            unsafe { cb(st, p, n, cbdata as *mut c_void, Some(release_distances), keep) };
        });
        PMIX_SUCCESS
    })
}

/// Fill `topo` with this machine's topology (an hwloc source), discovered once per process
/// and shared.
///
/// Returns PMIX_SUCCESS (release with PMIx_Topology_destruct); PMIX_ERR_BAD_PARAM for a
/// NULL `topo`; PMIX_ERR_NOT_SUPPORTED when `topo->source` names a source other than hwloc;
/// the discovery's error; PMIX_ERR_NOMEM.
///
/// # Safety
/// `topo` is NULL or a writable topology whose `source` is NULL or NUL-terminated (a
/// caller's source is replaced, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(topo: *mut pmix_topology_t) -> pmix_status_t {
    status_entry!("PMIx_Load_topology", {
        require!("PMIx_Load_topology", !topo.is_null());
        let t = &mut *topo;
        // A source the caller named other than hwloc is one we cannot provide.
        if crate::cmem::cstr_bytes(t.source).is_some_and(|s| !s.starts_with(b"hwloc")) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        match crate::hwloc::process_topology(crate::facade::topology_source) {
            Ok((p, source)) => {
                // (a source the caller set is its own: replaced, not freed)
                t.source = source;
                t.topology = p;
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Free what `topo` holds (its source and any library-made copy; the shared hwloc topology
/// stays); NULL is ignored.
///
/// Returns nothing.
///
/// # Safety
/// `topo` is NULL or a valid topology whose `source` is NULL or malloc'd; its old contents
/// are not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    entry!("PMIx_Topology_destruct", {
        if let Some(t) = topo.as_mut() {
            crate::data::cpuset::destruct_topology(t);
        }
    })
}

/// Parse a `"<source>:<cpus>"` string (the CPUs as a list such as `0-3,8` or a hex mask)
/// into `cpuset`.
///
/// Returns PMIX_SUCCESS (release with PMIx_Cpuset_destruct); PMIX_ERR_BAD_PARAM for a NULL
/// argument or a malformed string; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset_string` is NULL or NUL-terminated; `cpuset` is NULL or writable (its old
/// contents are overwritten, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(cpuset_string: *const c_char, cpuset: *mut pmix_cpuset_t) -> pmix_status_t {
    status_entry!("PMIx_Parse_cpuset_string", {
        require!("PMIx_Parse_cpuset_string", !cpuset_string.is_null() && !cpuset.is_null());
        let s = core::ffi::CStr::from_ptr(cpuset_string).to_bytes();
        let c = &mut *cpuset;
        *c = core::mem::zeroed();
        crate::data::cpuset::parse_cpuset(s, c).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Fill `cpuset` with the CPUs this process (PMIX_CPUBIND_PROCESS) or thread
/// (PMIX_CPUBIND_THREAD) may run on.
///
/// Returns PMIX_SUCCESS (release with PMIx_Cpuset_destruct); PMIX_ERR_BAD_PARAM for a NULL
/// `cpuset` or another `ref_`; PMIX_ERR_NOT_SUPPORTED when `cpuset->source` is set and not
/// hwloc; PMIX_ERR_NOT_FOUND if the binding cannot be read; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset` is NULL or a valid (constructed) cpuset; its `source` is NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: pmix_bind_envelope_t) -> pmix_status_t {
    status_entry!("PMIx_Get_cpuset", {
        require!("PMIx_Get_cpuset", !cpuset.is_null() && (ref_ == PMIX_CPUBIND_PROCESS || ref_ == PMIX_CPUBIND_THREAD));
        let c = &mut *cpuset;
        if !c.source.is_null() && !core::ffi::CStr::from_ptr(c.source).to_bytes().eq_ignore_ascii_case(b"hwloc") {
            crate::pmix_debug!(1, "PMIx_Get_cpuset: a cpuset of another source");
            return PMIX_ERR_NOT_SUPPORTED;
        }
        let cpus = match crate::topology::binding(ref_ == PMIX_CPUBIND_THREAD) {
            Ok(c) => c,
            Err(e) => return e,
        };
        let text = crate::topology::format_list(&cpus);
        crate::data::cpuset::set_cpus(c, b"hwloc", text.as_bytes()).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Release what `cpuset` holds (its source string and a bitmap this library made) and clear
/// it; NULL is ignored.
///
/// Returns nothing.
///
/// # Safety
/// `cpuset` is NULL or a valid cpuset whose `source` is NULL or malloc'd; it is not used
/// after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    entry!("PMIx_Cpuset_destruct", {
        if let Some(c) = cpuset.as_mut() {
            crate::data::cpuset::destruct_cpuset(c);
        }
    })
}

/// Compare two locality strings: which levels of the machine (node, package, caches,
/// core...) they share.
///
/// Returns PMIX_SUCCESS with `*locality` set; PMIX_ERR_BAD_PARAM for a NULL argument, or
/// for an unreadable string (then `*locality` is set to PMIX_LOCALITY_UNKNOWN).
///
/// # Safety
/// `locality1` and `locality2` are each NULL or NUL-terminated; `locality` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(locality1: *const c_char, locality2: *const c_char, locality: *mut pmix_locality_t) -> pmix_status_t {
    status_entry!("PMIx_Get_relative_locality", {
        require!("PMIx_Get_relative_locality", !locality1.is_null() && !locality2.is_null() && !locality.is_null());
        let a = String::from_utf8_lossy(core::ffi::CStr::from_ptr(locality1).to_bytes()).into_owned();
        let b = String::from_utf8_lossy(core::ffi::CStr::from_ptr(locality2).to_bytes()).into_owned();
        match crate::topology::relative_locality(&a, &b) {
            Ok(l) => {
                *locality = l;
                PMIX_SUCCESS
            }
            Err(e) => {
                *locality = PMIX_LOCALITY_UNKNOWN;
                crate::pmix_debug!(1, "PMIx_Get_relative_locality: cannot read {a:?} / {b:?}");
                e
            }
        }
    })
}

/// Drive progress: a no-op, as the library's own threads make progress.
///
/// Returns nothing.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {
    // Progress is made by the library's own threads; nothing to drive here.
    entry!("PMIx_Progress", {})
}

/// Name the status code `status` (unknown codes get a fixed "not found" text).
///
/// Returns a static string the caller must not free.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    entry!("PMIx_Error_string", { crate::strings::error_string(status).as_ptr() })
}

/// Name the process state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_state_string(state: pmix_proc_state_t) -> *const c_char {
    entry!("PMIx_Proc_state_string", { crate::strings::proc_state_string(state).as_ptr() })
}

/// Name the data scope `scope`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Scope_string(scope: pmix_scope_t) -> *const c_char {
    entry!("PMIx_Scope_string", { crate::strings::scope_string(scope).as_ptr() })
}

/// Name the persistence `persist`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Persistence_string(persist: pmix_persistence_t) -> *const c_char {
    entry!("PMIx_Persistence_string", { crate::strings::persistence_string(persist).as_ptr() })
}

/// Name the data range `range`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_range_string(range: pmix_data_range_t) -> *const c_char {
    entry!("PMIx_Data_range_string", { crate::strings::data_range_string(range).as_ptr() })
}

/// Name the data type `type_`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    entry!("PMIx_Data_type_string", { crate::strings::data_type_string(type_).as_ptr() })
}

/// Name the allocation directive `directive`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) -> *const c_char {
    entry!("PMIx_Alloc_directive_string", { crate::strings::alloc_directive_string(directive).as_ptr() })
}

/// Name the IO-forwarding channel set `channel`.
///
/// Returns a static string the caller must not free.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    entry!("PMIx_IOF_channel_string", { crate::strings::iof_channel_string(channel).as_ptr() })
}

/// Name the job state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_state_string(state: pmix_job_state_t) -> *const c_char {
    entry!("PMIx_Job_state_string", { crate::strings::job_state_string(state).as_ptr() })
}

/// Map an attribute's macro name (e.g. "PMIX_JOB_SIZE") to its key string
/// ("pmix.job.size").
///
/// Returns a static string the caller must not free, or NULL for a NULL or unknown name.
///
/// # Safety
/// `attribute` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_string", {
        match crate::cmem::cstr_bytes(attribute) {
            Some(name) => crate::strings::attribute_string(name).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

/// Map an attribute key string (e.g. "pmix.job.size") to its macro name ("PMIX_JOB_SIZE").
///
/// Returns a static string the caller must not free, or NULL for a NULL or unknown key.
///
/// # Safety
/// `attrstring` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_name", {
        match crate::cmem::cstr_bytes(attrstring) {
            Some(key) => crate::strings::attribute_name(key).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

/// Name the link state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Link_state_string(state: pmix_link_state_t) -> *const c_char {
    entry!("PMIx_Link_state_string", { crate::strings::link_state_string(state).as_ptr() })
}

/// Name the device type `type_`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    entry!("PMIx_Device_type_string", { crate::strings::device_type_string(type_).as_ptr() })
}

/// Name the value comparison result `cmp`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) -> *const c_char {
    entry!("PMIx_Value_comparison_string", { crate::strings::value_comparison_string(cmp).as_ptr() })
}

/// Render `info` (key, directives, value) as readable text.
///
/// Returns a malloc'd string the caller frees, or NULL for a NULL `info` or when out of
/// memory.
///
/// # Safety
/// `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    entry!("PMIx_Info_string", {
        match info.as_ref() {
            Some(i) => crate::cmem::strdup_bytes(crate::data::print::info_text(i).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

/// Render `value` (type and contents) as readable text.
///
/// Returns a malloc'd string the caller frees, or NULL for a NULL `value` or when out of
/// memory.
///
/// # Safety
/// `value` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    entry!("PMIx_Value_string", {
        match value.as_ref() {
            Some(v) => crate::cmem::strdup_bytes(crate::data::print::value_text(v).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

/// Spell out the info directive flags in `directives` (e.g. "REQUIRED:PROCESSED").
///
/// Returns a malloc'd string the caller frees (NULL only when out of memory).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_directives_string(directives: pmix_info_directives_t) -> *mut c_char {
    entry!("PMIx_Info_directives_string", {
        crate::cmem::strdup_bytes(crate::strings::info_directives_string(directives).to_bytes())
    })
}

/// Describe this library: rpmix's version, the PMIx Standard level and the OpenPMIx ABI it
/// provides.
///
/// Returns a static string the caller must not free.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_version() -> *const c_char {
    entry!("PMIx_Get_version", { crate::strings::VERSION.as_ptr() })
}

/// Store a key-value pair as `proc`'s data in this process only (client cache, else server
/// store); nothing is sent.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `proc` or `val` or a NULL or
/// over-long key; the copy's error (e.g. PMIX_ERR_NOMEM) for `val`; PMIX_ERR_INIT when
/// neither client nor server is initialised.
///
/// # Safety
/// `proc` is NULL or a valid proc; `key` is NULL or NUL-terminated (at most PMIX_MAX_KEYLEN
/// + 1 bytes are read); `val` is NULL or a valid value (copied).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(proc: *const pmix_proc_t, key: *const c_char, val: *mut pmix_value_t) -> pmix_status_t {
    status_entry!("PMIx_Store_internal", {
        require!("PMIx_Store_internal", !proc.is_null() && !val.is_null());
        let Some(k) = crate::owned::key_of(key) else { return PMIX_ERR_BAD_PARAM };
        let p = crate::owned::Proc::from_c(&*proc);
        let v = match crate::owned::Value::copy_of(&*val) {
            Ok(v) => v,
            Err(e) => return e,
        };
        crate::facade::store_internal(p, crate::owned::Info::new(&k, v))
    })
}

/// Append `num_vals` elements of type `type_` from `src` to `buffer` (`target` is not
/// used).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL or inconsistent `buffer`, a negative
/// count or a NULL `src` with a positive count; PMIX_ERR_UNKNOWN_DATA_TYPE; another packing
/// error (e.g. PMIX_ERR_NOMEM).
///
/// # Safety
/// `buffer` is NULL or a valid (constructed) buffer; `src` is NULL or points to `num_vals`
/// valid elements of `type_` (for PMIX_STRING, `char *`s).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_pack(target: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, src: *mut c_void, num_vals: i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_pack", {
        require!("PMIx_Data_pack", !buffer.is_null());
        crate::data::pack(&mut *buffer, src, num_vals, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Unpack the next packed group of `type_` elements of `buffer` into `dest`;
/// `*max_num_values` gets their count.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for NULL arguments, a negative count or an
/// inconsistent buffer; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_TYPE_MISMATCH;
/// PMIX_ERR_UNPACK_INADEQUATE_SPACE; PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER. On error
/// nothing is consumed.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `max_num_values` is NULL or a readable, writable
/// count; `dest` is NULL or has room for that many elements of `type_`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unpack(source: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, dest: *mut c_void, max_num_values: *mut i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unpack", {
        require!("PMIx_Data_unpack", !buffer.is_null() && !max_num_values.is_null());
        crate::data::unpack(&mut *buffer, dest, &mut *max_num_values, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Set `*dest` to a new malloc'd deep copy of the `type_` element at `src` (for
/// PMIX_STRING, `src` is the string).
///
/// Returns PMIX_SUCCESS (the caller owns the copy); PMIX_ERR_BAD_PARAM for a NULL `dest` or
/// `src`; PMIX_ERR_UNKNOWN_DATA_TYPE; a copy error such as PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or points to a valid element of `type_` (for
/// PMIX_STRING, a NUL-terminated string).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy(dest: *mut *mut c_void, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy", {
        require!("PMIx_Data_copy", !dest.is_null() && !src.is_null());
        crate::data::copy(&mut *dest, src, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Render the element of type `type_` at `src` as text, preceded by `prefix`.
///
/// Returns PMIX_SUCCESS with `*output` a malloc'd string (caller frees); PMIX_ERR_BAD_PARAM
/// for a NULL `output` or `src`; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `output` is NULL or writable; `prefix` is NULL or NUL-terminated; `src` is NULL or
/// points to a valid element of `type_` (for PMIX_STRING, the string).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_print(output: *mut *mut c_char, prefix: *mut c_char, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_print", {
        require!("PMIx_Data_print", !output.is_null() && !src.is_null());
        let pre = crate::cmem::cstr_bytes(prefix).map(String::from_utf8_lossy).unwrap_or_default();
        match crate::data::print(&pre, src, type_) {
            Ok(s) => {
                *output = crate::cmem::strdup_bytes(s.as_bytes());
                if (*output).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
            }
            Err(e) => e,
        }
    })
}

/// Append the not yet unpacked bytes of `src` to `dest`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL or inconsistent buffer;
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` and `src` are each NULL or a valid buffer.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(dest: *mut pmix_data_buffer_t, src: *mut pmix_data_buffer_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy_payload", {
        require!("PMIx_Data_copy_payload", !dest.is_null() && !src.is_null());
        crate::data::copy_payload(&mut *dest, &*src).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Move the not yet unpacked bytes of `buffer` into `payload`, leaving the buffer empty.
///
/// Returns PMIX_SUCCESS with `payload` holding malloc'd bytes (caller frees; NULL/0 when
/// none); PMIX_ERR_BAD_PARAM for a NULL or inconsistent argument; PMIX_ERR_NOMEM.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or writable (its previous bytes
/// are overwritten, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unload", {
        require!("PMIx_Data_unload", !buffer.is_null() && !payload.is_null());
        crate::data::buffer::unload(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Make `buffer` take over the bytes of `payload` (its old contents are released; `payload`
/// is left empty).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL argument or an inconsistent
/// `buffer`.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or a byte object whose `bytes` are
/// NULL or malloc'd and hold `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_load", {
        require!("PMIx_Data_load", !buffer.is_null() && !payload.is_null());
        crate::data::load(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Replace the contents of `buffer` with a copy of the bytes of `payload`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL argument, an inconsistent `buffer`
/// or a malformed `payload`; PMIX_ERR_NOMEM.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or a byte object whose `bytes`
/// hold `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(buffer: *mut pmix_data_buffer_t, payload: *const pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_embed", {
        require!("PMIx_Data_embed", !buffer.is_null() && !payload.is_null());
        crate::data::embed(&mut *buffer, &*payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Run `f` over the caller's bytes and hand back a malloc'ed result
/// (PMIx_Data_compress / _decompress): false on bad arguments or failure.
unsafe fn transform_bytes(f: fn(&[u8]) -> Option<Vec<u8>>, inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() || size == 0 {
        return false;
    }
    // SAFETY: the caller gives `size` readable bytes at `inbytes`.
    let Some(v) = f(unsafe { core::slice::from_raw_parts(inbytes, size) }) else { return false };
    let p = crate::data::compress::to_c(&v);
    if p.is_null() {
        return false;
    }
    // SAFETY: both out-pointers checked non-null above.
    unsafe {
        *outbytes = p;
        *nbytes = v.len();
    }
    true
}

/// Compress `size` bytes at `inbytes` into a new buffer, when that makes them smaller.
///
/// Returns true with `*outbytes` malloc'd (caller frees) and `*nbytes` its length; false
/// for NULL arguments, `size` 0, no gain, or no memory.
///
/// # Safety
/// `inbytes` is NULL or holds `size` readable bytes; `outbytes` and `nbytes` are each NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_compress", { transform_bytes(crate::data::compress::compress, inbytes, size, outbytes, nbytes) })
}

/// Restore bytes compressed by PMIx_Data_compress into a new buffer.
///
/// Returns true with `*outbytes` malloc'd (caller frees) and `*nbytes` its length; false
/// for NULL arguments, `size` 0, corrupt input, or no memory.
///
/// # Safety
/// `inbytes` is NULL or holds `size` readable bytes; `outbytes` and `nbytes` are each NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_decompress", { transform_bytes(crate::data::compress::decompress, inbytes, size, outbytes, nbytes) })
}

