//! Exported functions of `pmix_tool.h (tool API)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::Oneshot;

fn wait_op(start: impl FnOnce(crate::client::api::Done)) -> pmix_status_t {
    if crate::runtime::on_progress_thread() {
        return PMIX_ERR_WOULD_BLOCK;
    }
    let done = Oneshot::new();
    let d = done.clone();
    start(crate::runtime::Completion::on_status(move |st| d.set(st)));
    done.wait().unwrap_or(PMIX_ERR_LOST_CONNECTION)
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

/// Ask the server to forward the output of `procs` on `channel` to `cbfunc`.
///
/// Returns PMIX_SUCCESS when `regcbfunc` is given; it fires exactly once with the status
/// and handle (from the progress thread, or just after this call returns (off the caller's
/// stack) when it fails at once); without it, blocks and returns the handle (>= 1) or an
/// error. PMIX_ERR_BAD_PARAM for NULL `procs` or `nprocs` 0 and PMIX_ERR_NOMEM fire
/// nothing.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` valid procs; `directives` is NULL or points to
/// `ndirs` valid infos (copied before return); `cbfunc` stays callable until deregistered;
/// `regcbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, channel: pmix_iof_channel_t, cbfunc: pmix_iof_cbfunc_t, regcbfunc: pmix_hdlr_reg_cbfunc_t, regcbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_IOF_pull", {
        require!("PMIx_IOF_pull", !procs.is_null() && nprocs > 0);
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        let ps = procs!(procs, nprocs);
        match regcbfunc {
            Some(f) => {
                let cbd = SendPtr(regcbdata);
                crate::client::api::iof_pull(ps, d, channel, cbfunc, crate::runtime::Completion::new(move |st, h| crate::ffi::boundary::complete(move || {
                    // SAFETY: the caller's registration callback.
                    unsafe { f(st, h as usize, cbd.get()) };
                })));
                PMIX_SUCCESS
            }
            None => {
                // Blocking form: the handle comes back as a positive return value.
                if crate::runtime::on_progress_thread() {
                    return PMIX_ERR_WOULD_BLOCK;
                }
                let done = Oneshot::new();
                let dd = done.clone();
                crate::client::api::iof_pull(ps, d, channel, cbfunc, crate::runtime::Completion::new(move |st, h| dd.set((st, h))));
                match done.wait() {
                    Some((PMIX_SUCCESS, h)) => h as pmix_status_t,
                    Some((st, _)) => st,
                    None => PMIX_ERR_LOST_CONNECTION,
                }
            }
        }
    })
}

/// Stop an output forwarding registered with PMIx_IOF_pull, after delivering what it still
/// holds.
///
/// Returns PMIX_SUCCESS when `cbfunc` is given; it fires exactly once (from the progress
/// thread, or just after this call returns (off the caller's stack) when it ends at once,
/// e.g. for an unknown handle); without it, blocks and returns the outcome.
/// PMIX_ERR_BAD_PARAM for a handle out of range, PMIX_ERR_INIT when not initialised and
/// PMIX_ERR_UNREACH with no server fire nothing.
///
/// # Safety
/// `directives` is NULL or points to `ndirs` valid infos (not read); `cbdata` is passed
/// back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(iofhdlr: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_IOF_deregister", {
        let h = match u32::try_from(iofhdlr) {
            Ok(h) => h,
            Err(_) => return PMIX_ERR_BAD_PARAM,
        };
        let _ = (directives, ndirs);
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        if cbfunc.is_some() {
            let cbd = SendPtr(cbdata);
            // SAFETY: the caller's callback.
            crate::client::api::iof_deregister(h, crate::runtime::Completion::on_status(move |st| unsafe { fire_op(cbfunc, st, cbd) }));
            return PMIX_SUCCESS;
        }
        if crate::runtime::on_progress_thread() {
            return PMIX_ERR_WOULD_BLOCK;
        }
        let done = Oneshot::new();
        let dd = done.clone();
        crate::client::api::iof_deregister(h, crate::runtime::Completion::on_status(move |st| dd.set(st)));
        done.wait().unwrap_or(PMIX_ERR_LOST_CONNECTION)
    })
}

/// Send data to the stdin of `targets`; with a NULL `bo` and PMIX_IOF_PUSH_STDIN, forward
/// this process's own stdin until it ends.
///
/// Returns PMIX_SUCCESS when `cbfunc` is given; it fires exactly once (from the progress
/// thread, or just after this call returns (off the caller's stack) for the stdin form or
/// when not connected); without it, blocks and returns the outcome. PMIX_ERR_NOMEM or
/// PMIX_ERR_BAD_PARAM (a bad byte object) fire nothing.
///
/// # Safety
/// `targets` is NULL or points to `ntargets` valid procs; `bo` is NULL or a valid byte
/// object; `directives` is NULL or points to `ndirs` valid infos (all copied before
/// return); `cbdata` is passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(targets: *const pmix_proc_t, ntargets: usize, bo: *mut pmix_byte_object_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_IOF_push", {
        let Ok(d) = crate::owned::Info::copy_array(directives, ndirs) else { return PMIX_ERR_NOMEM };
        let ts = procs!(targets, ntargets);
        let data = match bo.as_ref() {
            Some(b) => match crate::data::value::bo_slice(b) {
                Ok(s) => Some(s.to_vec()),
                Err(e) => return e,
            },
            None => None,
        };
        if data.is_none() && crate::owned::find(&d, PMIX_IOF_PUSH_STDIN).is_some_and(|i| i.truthy()) {
            // Forward this process's own stdin to the targets until it ends.
            let ts2 = ts.clone();
            std::thread::spawn(move || {
                use std::io::Read;
                let mut buf = vec![0u8; 65536];
                let mut input = std::io::stdin();
                loop {
                    let n = match input.read(&mut buf) {
                        Ok(0) | Err(_) => 0,
                        Ok(n) => n,
                    };
                    let (payload, fin) = if n == 0 {
                        (None, vec![crate::owned::Info::new("pmix.iof.cmp", crate::owned::Value::boolean(true))])
                    } else {
                        (Some(buf[..n].to_vec()), Vec::new())
                    };
                    let w = Oneshot::new();
                    let w2 = w.clone();
                    crate::client::api::iof_push(ts2.clone(), payload, fin, crate::runtime::Completion::on_status(move |st| w2.set(st)));
                    if w.wait() != Some(PMIX_SUCCESS) || n == 0 {
                        break;
                    }
                }
            });
            let cbd = SendPtr(cbdata);
            // SAFETY: the caller's callback.
            unsafe { fire_op(cbfunc, PMIX_SUCCESS, cbd) };
            return PMIX_SUCCESS;
        }
        if cbfunc.is_some() {
            let cbd = SendPtr(cbdata);
            // SAFETY: the caller's callback.
            crate::client::api::iof_push(ts, data, d, crate::runtime::Completion::on_status(move |st| unsafe { fire_op(cbfunc, st, cbd) }));
            return PMIX_SUCCESS;
        }
        wait_op(move |done| crate::client::api::iof_push(ts, data, d, done))
    })
}

