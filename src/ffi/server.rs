//! Exported functions of `pmix_server.h (server API)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};
#[allow(unused_imports)]
use libc::{gid_t, uid_t};

use crate::abi::*;

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(module: *mut pmix_server_module_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_server_init")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> pmix_status_t {
    not_yet!("PMIx_server_finalize")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(input: *const c_char, regex: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_generate_regex")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(input: *const c_char, ppn: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_generate_ppn")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(nspace: *const c_char, nlocalprocs: c_int, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_register_nspace")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(nspace: *const c_char, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) {
    not_yet_void!("PMIx_server_deregister_nspace")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(proc: *const pmix_proc_t, uid: uid_t, gid: gid_t, server_object: *mut c_void, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_register_client")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(proc: *const pmix_proc_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) {
    not_yet_void!("PMIx_server_deregister_client")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(proc: *const pmix_proc_t, env: *mut *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_server_setup_fork")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(proc: *const pmix_proc_t, cbfunc: pmix_dmodex_response_fn_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_dmodex_request")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(nspace: *const c_char, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_setup_application_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_setup_application")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(nspace: *const c_char, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_setup_local_support")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(source: *const pmix_proc_t, channel: pmix_iof_channel_t, bo: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_IOF_deliver")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_collect_inventory(directives: *mut pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_collect_inventory")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deliver_inventory(info: *mut pmix_info_t, ninfo: usize, directives: *mut pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_deliver_inventory")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_attributes(function: *mut c_char, attrs: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_Register_attributes")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_locality_string(cpuset: *const pmix_cpuset_t, locality: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_server_generate_locality_string")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset_string(cpuset: *const pmix_cpuset_t, cpuset_string: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_server_generate_cpuset_string")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(members: *const pmix_proc_t, nmembers: usize, pset_name: *const c_char) -> pmix_status_t {
    not_yet!("PMIx_server_define_process_set")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(pset_name: *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_server_delete_process_set")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_register_resources")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_server_deregister_resources")
}

