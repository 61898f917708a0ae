//! The server (`pmix_server.h`): init, finalize, namespaces and clients,
//! fork and application setup, dmodex, inventory, locality and cpuset
//! strings, process sets, resources.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_int, c_void};

use libc::{gid_t, uid_t};

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::{Handle, Net};
use crate::server::ServerRole;

/// The release function handed with setup_application's results.
///
/// # Safety
/// `cbdata` is NULL or the box this library handed with setup_application's results, released once.
unsafe extern "C" fn release_setup(_status: pmix_status_t, cbdata: *mut c_void) {
    // SAFETY: the caller upholds the contract above, which is release_infos's.
    unsafe { super::completions::release_infos(cbdata) }
}

/// Fire an op callback (if any) with `status` later, never on the caller's
/// stack (for calls that return nothing and so report errors this way).
fn fire_op_later(cbfunc: pmix_op_cbfunc_t, status: pmix_status_t, cbdata: SendPtr<c_void>) {
    if cbfunc.is_some() {
        // SAFETY: the caller's callback and cbdata, as the API passes them on.
        crate::facade::later(move || unsafe { fire_op(cbfunc, status, cbdata) });
    }
}

/// Run a server operation on the progress thread: with a callback, return at
/// once and fire it there; without one, block and answer
/// PMIX_OPERATION_SUCCEEDED (OpenPMIx 4.2.2's convention).
pub(super) fn server_op(
    h: Handle<ServerRole>,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: SendPtr<c_void>,
    f: impl FnOnce(&mut ServerRole, &mut Net) + Send + 'static,
) -> pmix_status_t {
    if cbfunc.is_some() {
        let ok = h.run(move |s, net| {
            f(s, net);
            // SAFETY: the caller's callback and cbdata.
            unsafe { fire_op(cbfunc, PMIX_SUCCESS, cbdata) };
        });
        return if ok { PMIX_SUCCESS } else { PMIX_ERR_INIT };
    }
    match h.call(f) {
        Some(()) => PMIX_OPERATION_SUCCEEDED,
        None if crate::runtime::on_progress_thread() => PMIX_ERR_WOULD_BLOCK,
        None => PMIX_ERR_INIT,
    }
}

/// Start this process as a PMIx server: session directory, listening socket, progress
/// thread and rendezvous files.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `module`; PMIX_ERR_INIT when a
/// server already runs here or the socket cannot be set up; PMIX_ERR_EXISTS when a system
/// server, scheduler or controller already owns this node; otherwise the error from copying
/// `info` or making the session directory.
///
/// # Safety
/// `module` is a valid module table (copied here; its functions must stay callable until
/// PMIx_server_finalize); `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(module: *mut pmix_server_module_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_server_init", {
        require!("PMIx_server_init", !module.is_null());
        crate::server::note_host_topology(crate::ffi::boundary::slice(info, ninfo));
        let infos = match crate::owned::Info::copy_array(info, ninfo) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let host = Box::new(crate::server::cmodule::CModule(*module));
        match crate::server::init(host, &infos) {
            Ok(_) => PMIX_SUCCESS,
            Err(e) => e,
        }
    })
}

/// Stop the server started by PMIx_server_init, even with clients and namespaces still
/// registered, and remove its session directory.
///
/// Returns PMIX_SUCCESS once the progress thread has stopped; PMIX_ERR_INIT when no server
/// runs in this process (a fork child of the server included).
///
/// # Safety
/// No pointer arguments; must not be called from one of this library's callbacks, since it
/// waits for the progress thread to end.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> pmix_status_t {
    status_entry!("PMIx_server_finalize", { crate::server::finalize().err().unwrap_or(PMIX_SUCCESS) })
}

/// Encode a comma-separated list of node names as the compact string that PMIX_NODE_MAP
/// expects.
///
/// Returns PMIX_SUCCESS with `*regex` set to a malloc'd string the caller frees;
/// PMIX_ERR_BAD_PARAM for a NULL argument; PMIX_ERR_NOMEM.
///
/// # Safety
/// `input` is NULL or NUL-terminated; `regex` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(input: *const c_char, regex: *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_generate_regex", {
        require!("PMIx_generate_regex", !input.is_null() && !regex.is_null());
        let s = String::from_utf8_lossy(core::ffi::CStr::from_ptr(input).to_bytes()).into_owned();
        *regex = crate::cmem::strdup_bytes(crate::layout::generate_nodes(&s).as_bytes());
        if (*regex).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
    })
}

/// Encode the per-node process lists (e.g. "0,1;2,3") as the compact string that
/// PMIX_PROC_MAP expects (runs of equal blocks collapse: see `layout`).
///
/// Returns PMIX_SUCCESS with `*ppn` set to a malloc'd string the caller frees;
/// PMIX_ERR_BAD_PARAM for a NULL argument or an input that is not rank lists;
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `input` is NULL or NUL-terminated; `ppn` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(input: *const c_char, ppn: *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_generate_ppn", {
        require!("PMIx_generate_ppn", !input.is_null() && !ppn.is_null());
        let s = String::from_utf8_lossy(core::ffi::CStr::from_ptr(input).to_bytes()).into_owned();
        let Some(map) = crate::layout::generate_procs(&s) else {
            crate::pmix_debug!(1, "PMIx_generate_ppn: '{s}' is not a ';'-separated list of rank lists");
            return PMIX_ERR_BAD_PARAM;
        };
        *ppn = crate::cmem::strdup_bytes(map.as_bytes());
        if (*ppn).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
    })
}

/// Register a namespace and its job data with this server, before its clients start.
///
/// Returns PMIX_SUCCESS once queued when `cbfunc` is given; `cbfunc` then fires exactly
/// once, later, from the progress thread, with PMIX_SUCCESS. Without `cbfunc`, blocks and
/// returns PMIX_OPERATION_SUCCEEDED (PMIX_ERR_WOULD_BLOCK on the progress thread).
/// PMIX_ERR_BAD_PARAM for a NULL, empty or over-long `nspace` or a malformed environment
/// directive, PMIX_ERR_INIT with no server, or a copy error; on an error return `cbfunc`
/// never fires.
///
/// # Safety
/// `nspace` is NULL or NUL-terminated; `info` is NULL or points to `ninfo` valid infos
/// (copied before return); `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(nspace: *const c_char, nlocalprocs: c_int, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_register_nspace", {
        let Some(ns) = crate::owned::nspace_of(nspace) else { return PMIX_ERR_BAD_PARAM };
        if ns.is_empty() || ns.len() > PMIX_MAX_NSLEN {
            return PMIX_ERR_BAD_PARAM;
        }
        let infos = match crate::owned::Info::copy_array(info, ninfo) {
            Ok(v) => v,
            Err(e) => return e,
        };
        // Environment directives are checked now (a malformed one fails the
        // registration) and applied by setup_fork; the rest is job data.
        let (ops, infos) = match crate::server::setup::take_env_directives(infos) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        crate::server::setup::set_env_ops(&ns, ops);
        // Room for the job's connections, grown once now rather than while
        // its clients connect (descriptors.rs); on the host's thread.
        crate::server::descriptors::reserve(2 * usize::try_from(nlocalprocs).unwrap_or(0) + 16);
        server_op(h, cbfunc, SendPtr(cbdata), move |s, _| s.register_nspace(&ns, nlocalprocs, infos))
    })
}

/// Forget a namespace: its job data, its clients' registrations and the session directory
/// made for it.
///
/// Returns nothing. `cbfunc` fires exactly once, never inside this call: PMIX_SUCCESS from
/// the progress thread once done; PMIX_ERR_INIT with no server running, PMIX_ERR_BAD_PARAM
/// for a NULL or over-long `nspace`. Without `cbfunc`, the call blocks until the work is
/// done.
///
/// # Safety
/// `nspace` is NULL or NUL-terminated; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(nspace: *const c_char, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) {
    entry!("PMIx_server_deregister_nspace", {
        let cbd = SendPtr(cbdata);
        // (no return value: an error reaches the caller through its
        // callback, fired off the caller's stack)
        let Some(h) = crate::server::handle() else { return fire_op_later(cbfunc, PMIX_ERR_INIT, cbd) };
        let Some(ns) = crate::owned::nspace_of(nspace) else { return fire_op_later(cbfunc, PMIX_ERR_BAD_PARAM, cbd) };
        let st = server_op(h, cbfunc, cbd, move |s, net| s.deregister_nspace(net, &ns));
        if st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED {
            fire_op_later(cbfunc, st, cbd);
        }
    })
}

/// Register one local client process (its name, uid and gid) so that it may connect to this
/// server.
///
/// Returns PMIX_SUCCESS once queued when `cbfunc` is given; `cbfunc` then fires exactly
/// once, later, from the progress thread, with PMIX_SUCCESS. Without `cbfunc`, blocks and
/// returns PMIX_OPERATION_SUCCEEDED (PMIX_ERR_WOULD_BLOCK on the progress thread).
/// PMIX_ERR_BAD_PARAM for a NULL `proc`, PMIX_ERR_INIT with no server; on an error return
/// `cbfunc` never fires.
///
/// # Safety
/// `proc` is NULL or a valid proc; `server_object` is opaque and handed back untouched to
/// the host's module calls for this client; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(proc: *const pmix_proc_t, uid: uid_t, gid: gid_t, server_object: *mut c_void, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_register_client", {
        require!("PMIx_server_register_client", !proc.is_null());
        let p = crate::owned::Proc::from_c(&*proc);
        let obj = server_object as usize;
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        server_op(h, cbfunc, SendPtr(cbdata), move |s, _| s.register_client(&p, uid, gid, obj))
    })
}

/// Forget a local client: it counts as ended, and whatever it had pending ends with it.
///
/// Returns nothing. `cbfunc` fires exactly once, never inside this call: PMIX_SUCCESS from
/// the progress thread once done; PMIX_ERR_INIT with no server running, PMIX_ERR_BAD_PARAM
/// for a NULL `proc`. Without `cbfunc`, the call blocks until the work is done.
///
/// # Safety
/// `proc` is NULL or a valid proc; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(proc: *const pmix_proc_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) {
    entry!("PMIx_server_deregister_client", {
        let cbd = SendPtr(cbdata);
        // (no return value: an error reaches the caller through its
        // callback, fired off the caller's stack)
        let Some(h) = crate::server::handle() else { return fire_op_later(cbfunc, PMIX_ERR_INIT, cbd) };
        let Some(p) = proc.as_ref().map(crate::owned::Proc::from_c) else { return fire_op_later(cbfunc, PMIX_ERR_BAD_PARAM, cbd) };
        let st = server_op(h, cbfunc, cbd, move |s, net| s.deregister_client(net, &p));
        if st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED {
            fire_op_later(cbfunc, st, cbd);
        }
    })
}

/// Add to a child's environment what it needs to find this server, plus the namespace's
/// environment directives.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL argument; PMIX_ERR_INIT when no
/// server is set up in this process; PMIX_ERR_NOMEM.
///
/// # Safety
/// `proc` is NULL or a valid proc; `env` is NULL or points to a NULL or malloc'd
/// NULL-terminated array of malloc'd strings, which may be reallocated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(proc: *const pmix_proc_t, env: *mut *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_server_setup_fork", {
        require!("PMIx_server_setup_fork", !proc.is_null() && !env.is_null());
        let p = crate::owned::Proc::from_c(&*proc);
        match crate::server::setup::child_env(&p) {
            Ok((vars, ops)) => {
                for (k, v) in vars {
                    if let Err(e) = crate::cmem::env_set(&mut *env, &k, &v) {
                        return e;
                    }
                }
                match crate::cmem::env_apply(&mut *env, &ops) {
                    Ok(()) => PMIX_SUCCESS,
                    Err(e) => e,
                }
            }
            Err(e) => e,
        }
    })
}

/// Ask for the data a local process committed, on behalf of a server on another node.
///
/// Returns PMIX_SUCCESS, and `cbfunc` then fires exactly once, later, from the progress
/// thread (PMIX_SUCCESS and the blob, PMIX_ERR_NOT_FOUND for a proc not local here,
/// PMIX_ERR_TIMEOUT when it never commits); PMIX_ERR_BAD_PARAM for a NULL `proc` or
/// `cbfunc`, PMIX_ERR_INIT with no server; on an error return `cbfunc` never fires.
///
/// # Safety
/// `proc` is NULL or a valid proc; the blob handed to `cbfunc` is valid only during that
/// call; `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(proc: *const pmix_proc_t, cbfunc: pmix_dmodex_response_fn_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_dmodex_request", {
        require!("PMIx_server_dmodex_request", !proc.is_null() && cbfunc.is_some());
        let p = crate::owned::Proc::from_c(&*proc);
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        let cbd = SendPtr(cbdata);
        let ok = h.run(move |s, net| {
            s.dmodex_request(net, p, Box::new(move |st, mut blob| {
                if let Some(f) = cbfunc {
                    // SAFETY: the caller's callback; the blob lives through the call.
                    unsafe { f(st, blob.as_mut_ptr() as *mut c_char, blob.len(), cbd.get()) };
                }
            }));
        });
        if ok { PMIX_SUCCESS } else { PMIX_ERR_INIT }
    })
}

/// Gather the network and environment data an application needs before it is launched.
///
/// Returns PMIX_SUCCESS, and `cbfunc` (if any) then fires exactly once, later, from the
/// progress thread, with the status and the result infos; PMIX_ERR_BAD_PARAM for a NULL or
/// empty `nspace`, PMIX_ERR_NOMEM when `info` cannot be copied, PMIX_ERR_INIT with no
/// server; on an error return `cbfunc` never fires.
///
/// # Safety
/// `nspace` is NULL or NUL-terminated; `info` is NULL or points to `ninfo` valid infos; the
/// results stay ours until the host calls the release function handed with them; `cbdata`
/// is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(nspace: *const c_char, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_setup_application_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_setup_application", {
        let Some(ns) = crate::owned::nspace_of(nspace).filter(|s| !s.is_empty()) else { return PMIX_ERR_BAD_PARAM };
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let cbd = SendPtr(cbdata);
        let answer = move || {
            let (st, out) = match crate::server::setup::setup_application(&ns, &infos) {
                Ok(v) => (PMIX_SUCCESS, v),
                Err(e) => (e, Vec::new()),
            };
            let (p, n) = crate::owned::infos_to_c(&out);
            let rel = Box::into_raw(Box::new((SendPtr(p), n))) as *mut c_void;
            match cbfunc {
                // SAFETY: the host's callback; it releases the array through release_setup.
                Some(f) => unsafe { f(st, p, n, cbd.get(), Some(release_setup), rel) },
                // SAFETY: nobody takes the results.
                None => unsafe { release_setup(PMIX_SUCCESS, rel) },
            }
        };
        // Answer on the progress thread (never inside this call), as OpenPMIx does.
        if let Some(h) = crate::server::handle() {
            return if h.run(move |_, _| answer()) { PMIX_SUCCESS } else { PMIX_ERR_INIT };
        }
        // A launcher tool that set up no server (PMIX_TOOL_DO_NOT_CONNECT) may
        // still ask, as under OpenPMIx, where every tool carries a server.
        if crate::facade::own_proc().is_none() {
            return PMIX_ERR_INIT;
        }
        crate::facade::later(answer);
        PMIX_SUCCESS
    })
}

/// Prepare this node for the local processes of an application, using the data
/// setup_application produced.
///
/// Returns PMIX_SUCCESS when `cbfunc` is given; `cbfunc` then fires exactly once, later,
/// from the progress thread, with the outcome. Without `cbfunc`, blocks and returns
/// PMIX_OPERATION_SUCCEEDED or the error (PMIX_ERR_WOULD_BLOCK when it cannot wait).
/// PMIX_ERR_BAD_PARAM (NULL or empty `nspace`), PMIX_ERR_NOMEM and PMIX_ERR_INIT fire
/// nothing.
///
/// # Safety
/// `nspace` is NULL or NUL-terminated; `info` is NULL or points to `ninfo` valid infos
/// (copied before return); `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(nspace: *const c_char, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_setup_local_support", {
        let Some(ns) = crate::owned::nspace_of(nspace).filter(|s| !s.is_empty()) else { return PMIX_ERR_BAD_PARAM };
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        if cbfunc.is_some() {
            let cbd = SendPtr(cbdata);
            let ok = h.run(move |_, _| {
                let st = crate::server::setup::setup_local(&ns, &infos).err().unwrap_or(PMIX_SUCCESS);
                // SAFETY: the host's callback.
                unsafe { fire_op(cbfunc, st, cbd) };
            });
            return if ok { PMIX_SUCCESS } else { PMIX_ERR_INIT };
        }
        match h.call(move |_, _| crate::server::setup::setup_local(&ns, &infos)) {
            Some(Ok(())) => PMIX_OPERATION_SUCCEEDED,
            Some(Err(e)) => e,
            None => PMIX_ERR_WOULD_BLOCK,
        }
    })
}

/// Collect this node's resource inventory (fabric devices, GPUs) for the host.
///
/// rpmix has no fabric or GPU inventory source, so the inventory is empty:
/// what OpenPMIx 4.2.2 answers on a node where its network and GPU plugins
/// find nothing. Returns PMIX_SUCCESS and `cbfunc` (if any) fires exactly
/// once, later, from the progress thread, with PMIX_SUCCESS and no infos;
/// PMIX_ERR_INIT with no server (then it never fires).
///
/// # Safety
/// `directives` is NULL or points to `ndirs` valid infos (not read: no
/// source takes directives); `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_collect_inventory(directives: *mut pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_collect_inventory", {
        let _ = (directives, ndirs);
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        let cbd = SendPtr(cbdata);
        let ok = h.run(move |_, _| {
            if let Some(f) = cbfunc {
                // SAFETY: the host's callback; an empty inventory has nothing to release.
                unsafe { f(PMIX_SUCCESS, core::ptr::null_mut(), 0, cbd.get(), None, core::ptr::null_mut()) };
            }
        });
        if ok { PMIX_SUCCESS } else { PMIX_ERR_INIT }
    })
}

/// Pass an inventory gathered elsewhere to this server's resource tracking.
///
/// No source of rpmix's takes an inventory, so it is accepted and kept by
/// none (as OpenPMIx 4.2.2 does when no network or GPU plugin claims it).
/// With `cbfunc`: PMIX_SUCCESS, and `cbfunc` fires exactly once, later, with
/// PMIX_SUCCESS. Without: PMIX_OPERATION_SUCCEEDED. PMIX_ERR_INIT with no
/// server.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos; `directives` is NULL or points to
/// `ndirs` valid infos (neither is read); `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deliver_inventory(info: *mut pmix_info_t, ninfo: usize, directives: *mut pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_deliver_inventory", {
        let _ = (info, ninfo, directives, ndirs);
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        crate::pmix_debug!(5, "PMIx_server_deliver_inventory: {ninfo} infos, no inventory source to take them");
        server_op(h, cbfunc, SendPtr(cbdata), |_, _| {})
    })
}

/// Declare which attributes the host supports for one of its module functions.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// `function` is NULL or NUL-terminated; `attrs` is NULL or a NULL-terminated array of
/// strings (neither is read yet).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_attributes(function: *mut c_char, attrs: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_Register_attributes")
}

/// The CPUs of a cpuset this library made (PMIx_Parse_cpuset_string, PMIx_Get_cpuset).
///
/// # Safety
/// `cpuset`'s bitmap is NULL or one this library made.
unsafe fn cpus_of(cpuset: &pmix_cpuset_t) -> Option<crate::topology::CpuSet> {
    // SAFETY: the caller upholds the contract above: `cpuset`'s bitmap is NULL or one this library made.
    unsafe {
        let text = crate::data::cpuset::bitmap_text(cpuset)?;
        crate::topology::parse_list(core::str::from_utf8(text).ok()?)
    }
}

/// Describe where a cpuset sits in this machine's topology, as the string
/// PMIX_LOCALITY_STRING carries.
///
/// Returns PMIX_SUCCESS with `*locality` set to a malloc'd string the caller frees;
/// PMIX_ERR_BAD_PARAM for a NULL argument or a cpuset this library did not make;
/// PMIX_ERR_NOT_AVAILABLE when the topology cannot be read or the CPUs are not on this
/// machine; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset` is NULL or a valid cpuset; `locality` is NULL or writable (set to NULL first).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_locality_string(cpuset: *const pmix_cpuset_t, locality: *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_server_generate_locality_string", {
        require!("PMIx_server_generate_locality_string", !cpuset.is_null() && !locality.is_null());
        *locality = core::ptr::null_mut();
        let Some(cpus) = cpus_of(&*cpuset) else {
            crate::pmix_debug!(1, "PMIx_server_generate_locality_string: not a cpuset of this library");
            return PMIX_ERR_BAD_PARAM;
        };
        match crate::topology::locality_string(&cpus) {
            Some(l) => {
                *locality = crate::cmem::strdup_bytes(l.as_bytes()) as *mut c_char;
                if (*locality).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
            }
            None => {
                crate::pmix_debug!(1, "PMIx_server_generate_locality_string: no topology in /sys, or CPUs {} not on this machine", crate::topology::format_list(&cpus));
                PMIX_ERR_NOT_AVAILABLE
            }
        }
    })
}

/// Write a cpuset as a `"<source>:<cpu list>"` string, the form PMIX_CPUSET carries.
///
/// Returns PMIX_SUCCESS with `*cpuset_string` set to a malloc'd string the caller frees;
/// PMIX_ERR_BAD_PARAM for a NULL argument or a cpuset this library did not make or without
/// a source; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset` is NULL or a valid cpuset whose `source` is NULL or NUL-terminated;
/// `cpuset_string` is NULL or writable (set to NULL first).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset_string(cpuset: *const pmix_cpuset_t, cpuset_string: *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_server_generate_cpuset_string", {
        require!("PMIx_server_generate_cpuset_string", !cpuset.is_null() && !cpuset_string.is_null());
        *cpuset_string = core::ptr::null_mut();
        let c = &*cpuset;
        let (Some(cpus), false) = (cpus_of(c), c.source.is_null()) else {
            crate::pmix_debug!(1, "PMIx_server_generate_cpuset_string: not a cpuset of this library");
            return PMIX_ERR_BAD_PARAM;
        };
        let mut s = core::ffi::CStr::from_ptr(c.source).to_bytes().to_vec();
        s.push(b':');
        s.extend_from_slice(crate::topology::format_list(&cpus).as_bytes());
        *cpuset_string = crate::cmem::strdup_bytes(&s) as *mut c_char;
        if (*cpuset_string).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
    })
}

/// Define a named process set and announce it to the local clients with a
/// PMIX_PROCESS_SET_DEFINE event (PMIX_PSET_NAME, PMIX_PSET_MEMBERS,
/// PMIX_EVENT_NON_DEFAULT). A name defined again takes the new members. The
/// server answers the queries PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES and
/// PMIX_QUERY_PSET_MEMBERSHIP from its sets when the host's query upcall does
/// not, and a PMIx_Get of PMIX_PSET_NAMES for a proc (the sets it is in).
///
/// Returns PMIX_SUCCESS once recorded (the call blocks); PMIX_ERR_BAD_PARAM for a NULL,
/// empty or over-long `pset_name` or NULL `members` with `nmembers` > 0; PMIX_ERR_INIT
/// with no server, or when called from the progress thread.
///
/// # Safety
/// `members` is NULL or points to `nmembers` valid procs; `pset_name` is NULL or
/// NUL-terminated (both copied before return).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(members: *const pmix_proc_t, nmembers: usize, pset_name: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_server_define_process_set", {
        require!("PMIx_server_define_process_set", !pset_name.is_null() && (nmembers == 0 || !members.is_null()));
        let Some(name) = crate::owned::key_of(pset_name) else { return PMIX_ERR_BAD_PARAM };
        let procs = procs!(members, nmembers);
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        h.call(move |s, net| s.define_pset(net, &name, procs)).unwrap_or(PMIX_ERR_INIT)
    })
}

/// Delete a named process set and announce it to the local clients with a
/// PMIX_PROCESS_SET_DELETE event (PMIX_PSET_NAME, PMIX_EVENT_NON_DEFAULT).
///
/// Returns PMIX_SUCCESS (the call blocks); PMIX_ERR_NOT_FOUND for an unknown name;
/// PMIX_ERR_BAD_PARAM for a NULL or over-long `pset_name`; PMIX_ERR_INIT with no server, or
/// when called from the progress thread.
///
/// # Safety
/// `pset_name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(pset_name: *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_server_delete_process_set", {
        let Some(name) = crate::owned::key_of(pset_name) else { return PMIX_ERR_BAD_PARAM };
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        h.call(move |s, net| s.delete_pset(net, &name)).unwrap_or(PMIX_ERR_INIT)
    })
}

/// Add data about this node's resources that every namespace registered from
/// now on carries among its job-level data (what its clients get with a
/// PMIx_Get of the key for the WILDCARD rank). A key given again replaces its
/// value; a namespace that registers the key itself keeps its own value.
///
/// Returns PMIX_SUCCESS once queued when `cbfunc` is given; `cbfunc` then fires exactly
/// once, later, from the progress thread, with PMIX_SUCCESS. Without `cbfunc`, blocks and
/// returns PMIX_OPERATION_SUCCEEDED (PMIX_ERR_WOULD_BLOCK on the progress thread).
/// PMIX_ERR_BAD_PARAM for a NULL `info` with `ninfo` > 0, PMIX_ERR_INIT with no server,
/// or a copy error; on an error return `cbfunc` never fires.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos (copied before return); `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_register_resources", {
        require!("PMIx_server_register_resources", ninfo == 0 || !info.is_null());
        let infos = match crate::owned::Info::copy_array(info, ninfo) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        server_op(h, cbfunc, SendPtr(cbdata), move |s, _| s.register_resources(infos))
    })
}

/// Remove data registered with PMIx_server_register_resources, by the keys of
/// `info` (values are not compared): namespaces registered from now on no longer
/// carry it; those registered before keep their copy.
///
/// Returns as PMIx_server_register_resources does.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos (their keys copied before return);
/// `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_deregister_resources", {
        require!("PMIx_server_deregister_resources", ninfo == 0 || !info.is_null());
        let keys: Vec<String> = match crate::owned::Info::copy_array(info, ninfo) {
            Ok(v) => v.iter().map(|i| i.key().to_string()).collect(),
            Err(e) => return e,
        };
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        server_op(h, cbfunc, SendPtr(cbdata), move |s, _| s.deregister_resources(&keys))
    })
}
