//! IO forwarding: pull, deregister, push (`pmix_tool.h`) and the server's
//! deliver (`pmix_server.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::c_void;

use crate::abi::*;
use crate::ffi::boundary::{fire_op, SendPtr};
use crate::runtime::Oneshot;
use super::server::server_op;

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
        super::completions::wait_status(move |done| crate::client::api::iof_push(ts, data, d, done))
    })
}

/// Hand output of a process (stdout, stderr, ...) to the clients and tools that asked to
/// pull it.
///
/// Returns PMIX_SUCCESS once queued when `cbfunc` is given; `cbfunc` then fires exactly
/// once, later, from the progress thread, with PMIX_SUCCESS. Without `cbfunc`, blocks and
/// returns PMIX_OPERATION_SUCCEEDED (PMIX_ERR_WOULD_BLOCK on the progress thread).
/// PMIX_ERR_BAD_PARAM for a NULL `source` or `bo`, a stdin channel or a bad byte object,
/// PMIX_ERR_NOMEM, PMIX_ERR_INIT; on an error return `cbfunc` never fires.
///
/// # Safety
/// `source` is NULL or a valid proc; `bo` is NULL or a valid byte object; `info` is NULL or
/// points to `ninfo` valid infos (all copied before return); `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(source: *const pmix_proc_t, channel: pmix_iof_channel_t, bo: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_server_IOF_deliver", {
        require!("PMIx_server_IOF_deliver", !source.is_null() && !bo.is_null());
        if channel & PMIX_FWD_STDIN_CHANNEL != 0 {
            return PMIX_ERR_BAD_PARAM; // stdin goes to processes, not to pullers
        }
        let src = crate::owned::Proc::from_c(&*source);
        let data = match crate::data::value::bo_slice(&*bo) {
            Ok(d) => d.to_vec(),
            Err(e) => return e,
        };
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let complete = crate::owned::find(&infos, PMIX_IOF_COMPLETE).is_some_and(|i| i.truthy());
        let Some(h) = crate::server::handle() else { return PMIX_ERR_INIT };
        server_op(h, cbfunc, SendPtr(cbdata), move |s, net| s.iof_deliver(net, &src, channel, &data, complete))
    })
}
