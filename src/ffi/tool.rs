//! Exported functions of `pmix_tool.h (tool API)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;

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

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_finalize() -> pmix_status_t {
    status_entry!("PMIx_tool_finalize", { crate::client::finalize() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(myproc: *mut pmix_proc_t, server: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_tool_attach_to_server")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(server: *const pmix_proc_t) -> pmix_status_t {
    not_yet!("PMIx_tool_disconnect")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(servers: *mut *mut pmix_proc_t, nservers: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_tool_get_servers")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(server: *const pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_tool_set_server")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, channel: pmix_iof_channel_t, cbfunc: pmix_iof_cbfunc_t, regcbfunc: pmix_hdlr_reg_cbfunc_t, regcbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_IOF_pull")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(iofhdlr: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_IOF_deregister")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(targets: *const pmix_proc_t, ntargets: usize, bo: *mut pmix_byte_object_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_IOF_push")
}

