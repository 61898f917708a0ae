//! Client core (`pmix.h`): init, finalize, abort, put, commit, fence, get
//! (with its fast path for cached values), resolve peers and nodes, progress,
//! version, store_internal.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;
use crate::msg::Collective;
use crate::ffi::boundary::SendPtr;
use crate::runtime::Oneshot;
use super::completions::{op_done, wait_status};

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
        wait_status(move |d| crate::client::api::barrier(Collective::Fence, ps, i, d))
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
        crate::client::api::barrier(Collective::Fence, procs!(procs, nprocs), i, op_done(cbfunc, cbdata));
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
            let get = move || crate::facade::get(target, k, i, crate::runtime::Completion::new(move |st, v| d.set((st, v))));
            // On a progress thread only an answer known at once can be had:
            // waiting for the server would stop the thread that brings it.
            let answer = if crate::runtime::on_progress_thread() {
                get();
                done.wait_timeout(std::time::Duration::ZERO).or(Some((PMIX_ERR_WOULD_BLOCK, None)))
            } else {
                crate::client::link::wait_for(done, get)
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
