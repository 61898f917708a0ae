//! Callback types of `pmix_common.h` and `pmix_tool.h` (OpenPMIx 4.2.2 signatures).
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_void};
use super::types::*;

pub type pmix_release_cbfunc_t = Option<unsafe extern "C" fn(cbdata: *mut c_void)>;
pub type pmix_modex_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, data: *const c_char, ndata: usize, cbdata: *mut c_void, release_fn: pmix_release_cbfunc_t, release_cbdata: *mut c_void)>;
pub type pmix_spawn_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, nspace: pmix_nspace_param_t, cbdata: *mut c_void)>;
pub type pmix_op_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, cbdata: *mut c_void)>;
pub type pmix_lookup_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, data: *mut pmix_pdata_t, ndata: usize, cbdata: *mut c_void)>;
pub type pmix_event_notification_cbfunc_fn_t = Option<unsafe extern "C" fn(status: pmix_status_t, results: *mut pmix_info_t, nresults: usize, cbfunc: pmix_op_cbfunc_t, thiscbdata: *mut c_void, notification_cbdata: *mut c_void)>;
pub type pmix_notification_fn_t = Option<unsafe extern "C" fn(evhdlr_registration_id: usize, status: pmix_status_t, source: *const pmix_proc_t, info: *mut pmix_info_t, ninfo: usize, results: *mut pmix_info_t, nresults: usize, cbfunc: pmix_event_notification_cbfunc_fn_t, cbdata: *mut c_void)>;
pub type pmix_hdlr_reg_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;
pub type pmix_evhdlr_reg_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;
pub type pmix_value_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, kv: *mut pmix_value_t, cbdata: *mut c_void)>;
pub type pmix_info_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, info: *mut pmix_info_t, ninfo: usize, cbdata: *mut c_void, release_fn: pmix_release_cbfunc_t, release_cbdata: *mut c_void)>;
pub type pmix_credential_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, credential: *mut pmix_byte_object_t, info: *mut pmix_info_t, ninfo: usize, cbdata: *mut c_void)>;
pub type pmix_validation_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, info: *mut pmix_info_t, ninfo: usize, cbdata: *mut c_void)>;
pub type pmix_device_dist_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, dist: *mut pmix_device_distance_t, ndist: usize, cbdata: *mut c_void, release_fn: pmix_release_cbfunc_t, release_cbdata: *mut c_void)>;
pub type pmix_iof_cbfunc_t = Option<unsafe extern "C" fn(iofhdlr: usize, channel: pmix_iof_channel_t, source: *mut pmix_proc_t, payload: *mut pmix_byte_object_t, info: *mut pmix_info_t, ninfo: usize)>;
