//! Tools (`pmix_tool.h`): init, finalize, attach, disconnect, the server
//! list, and OpenPMIx 5's connection test and server module.
#![allow(non_snake_case, unused_variables)]

use crate::abi::*;

/// Tell whether this process (tool or client) is connected to a PMIx server.
///
/// Returns true while the connection to the primary server is up; false before init,
/// after finalize, once the connection is lost, and for a process that never connected
/// (a server, a standalone tool).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_is_connected() -> bool {
    entry!("PMIx_tool_is_connected", {
        let Some(h) = crate::client::handle() else { return false };
        if crate::runtime::on_progress_thread() {
            // Inside one of our callbacks: the progress thread cannot be asked and
            // waited for, so go by whether a server is recorded.
            return crate::client::connected_server().is_some();
        }
        h.call(|role, _| role.connected()).unwrap_or(false)
    })
}

/// Refuse a server upcall table for this tool: rpmix tools serve no clients.
///
/// Returns PMIX_ERR_NOT_SUPPORTED, nothing stored (OpenPMIx keeps the table for the
/// clients a tool may serve; rpmix tools accept no client connections, so it could
/// never be called); PMIX_ERR_BAD_PARAM for a NULL `module`; PMIX_ERR_INIT before
/// PMIx_tool_init (OpenPMIx would crash there).
///
/// # Safety
/// `module` is NULL or a readable `pmix_server_module_t` (never read).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server_module(module: *mut pmix_server_module_t) -> pmix_status_t {
    status_entry!("PMIx_tool_set_server_module", {
        require!("PMIx_tool_set_server_module", !module.is_null());
        if crate::client::me().is_none() {
            return PMIX_ERR_INIT;
        }
        crate::pmix_debug!(5, "PMIx_tool_set_server_module: rpmix tools serve no clients");
        PMIX_ERR_NOT_SUPPORTED
    })
}

/// Start this process as a tool and connect it to the server its `info` names (or run it
/// unconnected when asked to).
///
/// Returns PMIX_SUCCESS, `*proc` set to the tool's name; PMIX_ERR_BAD_PARAM for only one of
/// PMIX_TOOL_NSPACE/PMIX_TOOL_RANK; PMIX_ERR_NOMEM; PMIX_ERR_UNREACH or PMIX_ERR_TIMEOUT
/// when no server answers (unless PMIX_TOOL_CONNECT_OPTIONAL), or the status a server
/// refused with.
///
/// # Safety
/// `proc` is NULL or writable; `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_init(proc: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_tool_init", {
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let me = match crate::tool::init(&infos) {
            Ok(p) => p,
            Err(e) => return e,
        };
        if let Some(p) = proc.as_mut() {
            *p = me.to_c();
        }
        PMIX_SUCCESS
    })
}

/// Undo one PMIx_tool_init; the last one says goodbye to every server and stops the
/// progress threads.
///
/// Returns PMIX_SUCCESS (also when a server is already gone); PMIX_ERR_INIT when not
/// initialised; otherwise the status a server gave the goodbye.
///
/// # Safety
/// No pointer arguments; must not be called from one of this library's callbacks, since it
/// waits for the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_finalize() -> pmix_status_t {
    status_entry!("PMIx_tool_finalize", { crate::client::finalize() })
}

/// Connect an initialised tool to one more server, named in `info`; it becomes the primary
/// server with PMIX_PRIMARY_SERVER or when there is none.
///
/// Returns PMIX_SUCCESS with `*myproc` and `*server` filled in (an existing connection is
/// reused); PMIX_ERR_INIT when not initialised; PMIX_ERR_NOMEM; PMIX_ERR_BAD_PARAM,
/// PMIX_ERR_UNREACH or PMIX_ERR_TIMEOUT when the server cannot be found or reached.
///
/// # Safety
/// `myproc` and `server` are each NULL or writable; `info` is NULL or points to `ninfo`
/// valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(myproc: *mut pmix_proc_t, server: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_tool_attach_to_server", {
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let primary = crate::owned::find(&infos, PMIX_PRIMARY_SERVER).is_some_and(|i| i.truthy());
        match crate::tool::attach(&infos, primary) {
            Ok((me, srv)) => {
                if let Some(p) = myproc.as_mut() {
                    *p = me.to_c();
                }
                if let Some(p) = server.as_mut() {
                    *p = srv.to_c();
                }
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Leave one server while staying initialised; its pending requests complete with an error.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `server`; PMIX_ERR_INIT when not
/// initialised; PMIX_ERR_NOT_FOUND when not connected to it.
///
/// # Safety
/// `server` is NULL or a valid proc; must not be called from one of this library's
/// callbacks.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(server: *const pmix_proc_t) -> pmix_status_t {
    status_entry!("PMIx_tool_disconnect", {
        let Some(srv) = server.as_ref() else {
            crate::pmix_debug!(1, "PMIx_tool_disconnect: NULL server");
            return PMIX_ERR_BAD_PARAM;
        };
        match crate::client::disconnect_tool(&crate::owned::Proc::from_c(srv)) {
            Ok(()) => PMIX_SUCCESS,
            Err(e) => e,
        }
    })
}

/// List the servers this tool is connected to, the primary one first.
///
/// Returns PMIX_SUCCESS with `*servers` a malloc'd array of `*nservers` procs the caller
/// frees; PMIX_ERR_BAD_PARAM for a NULL argument; PMIX_ERR_INIT when not initialised;
/// PMIX_ERR_NOT_FOUND when connected to none; PMIX_ERR_NOMEM.
///
/// # Safety
/// `servers` and `nservers` are each NULL or writable (set to NULL and 0 first).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(servers: *mut *mut pmix_proc_t, nservers: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_tool_get_servers", {
        require!("PMIx_tool_get_servers", !servers.is_null() && !nservers.is_null());
        *servers = core::ptr::null_mut();
        *nservers = 0;
        if crate::client::me().is_none() {
            return PMIX_ERR_INIT;
        }
        let all = crate::client::connected_servers();
        if all.is_empty() {
            return PMIX_ERR_NOT_FOUND;
        }
        let arr = crate::cmem::calloc_array(all.len(), core::mem::size_of::<pmix_proc_t>()) as *mut pmix_proc_t;
        if arr.is_null() {
            return PMIX_ERR_NOMEM;
        }
        for (i, p) in all.iter().enumerate() {
            // SAFETY: arr holds all.len() zeroed pmix_proc_t we just allocated.
            *arr.add(i) = p.to_c();
        }
        *servers = arr;
        *nservers = all.len();
        PMIX_SUCCESS
    })
}

/// Make a server this tool is already connected to the primary one, the one requests go to.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `server`; PMIX_ERR_INIT when not
/// initialised; PMIX_ERR_NOT_FOUND when not connected to it.
///
/// # Safety
/// `server` is NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos (not
/// read).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(server: *const pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_tool_set_server", {
        let Some(srv) = server.as_ref() else {
            crate::pmix_debug!(1, "PMIx_tool_set_server: NULL server");
            return PMIX_ERR_BAD_PARAM;
        };
        if crate::client::me().is_none() {
            return PMIX_ERR_INIT;
        }
        // Requests go to the primary server: any server we are attached to.
        match crate::client::select_server(&crate::owned::Proc::from_c(srv)) {
            Ok(()) => PMIX_SUCCESS,
            Err(e) => {
                crate::pmix_debug!(1, "PMIx_tool_set_server: not attached to that server");
                e
            }
        }
    })
}
