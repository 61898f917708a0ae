//! Exported functions of `pmix_deprecated.h (data utilities also declared for older callers)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;

#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_connect_to_server(proc: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_tool_connect_to_server")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(val: *mut pmix_value_t, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    not_yet!("PMIx_Value_load")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(val: *mut pmix_value_t, data: *mut *mut c_void, sz: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Value_unload")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    not_yet_void!("PMIx_Value_destruct")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(dest: *mut pmix_value_t, src: *const pmix_value_t) -> pmix_status_t {
    not_yet!("PMIx_Value_xfer")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(v1: *mut pmix_value_t, v2: *mut pmix_value_t) -> pmix_value_cmp_t {
    todo_impl!("PMIx_Value_compare")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    not_yet_void!("PMIx_Data_array_destruct")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(info: *mut pmix_info_t, key: *const c_char, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    not_yet!("PMIx_Info_load")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(dest: *mut pmix_info_t, src: *const pmix_info_t) -> pmix_status_t {
    not_yet!("PMIx_Info_xfer")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    todo_impl!("PMIx_Info_list_start")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(ptr: *mut c_void, key: *const c_char, value: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    not_yet!("PMIx_Info_list_add")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(ptr: *mut c_void, info: *mut pmix_info_t) -> pmix_status_t {
    not_yet!("PMIx_Info_list_insert")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer(ptr: *mut c_void, info: *const pmix_info_t) -> pmix_status_t {
    not_yet!("PMIx_Info_list_xfer")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_convert(ptr: *mut c_void, par: *mut pmix_data_array_t) -> pmix_status_t {
    not_yet!("PMIx_Info_list_convert")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    not_yet_void!("PMIx_Info_list_release")
}

