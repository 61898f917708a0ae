//! Server-side types of `pmix_server.h`: host upcall signatures and the module table.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use super::callbacks::*;
use super::types::*;

pub type pmix_server_client_connected_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, server_object: *mut c_void, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_client_connected2_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, server_object: *mut c_void, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_client_finalized_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, server_object: *mut c_void, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_abort_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, server_object: *mut c_void, status: c_int, msg: *const c_char, procs: *mut pmix_proc_t, nprocs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_fencenb_fn_t = Option<unsafe extern "C" fn(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, data: *mut c_char, ndata: usize, cbfunc: pmix_modex_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_dmodex_req_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_modex_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_publish_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_lookup_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_lookup_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_unpublish_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_spawn_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, job_info: *const pmix_info_t, ninfo: usize, apps: *const pmix_app_t, napps: usize, cbfunc: pmix_spawn_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_connect_fn_t = Option<unsafe extern "C" fn(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_disconnect_fn_t = Option<unsafe extern "C" fn(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_register_events_fn_t = Option<unsafe extern "C" fn(codes: *mut pmix_status_t, ncodes: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_deregister_events_fn_t = Option<unsafe extern "C" fn(codes: *mut pmix_status_t, ncodes: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_notify_event_fn_t = Option<unsafe extern "C" fn(code: pmix_status_t, source: *const pmix_proc_t, range: pmix_data_range_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_connection_cbfunc_t = Option<unsafe extern "C" fn(incoming_sd: c_int, cbdata: *mut c_void)>;
pub type pmix_server_listener_fn_t = Option<unsafe extern "C" fn(listening_sd: c_int, cbfunc: pmix_connection_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_query_fn_t = Option<unsafe extern "C" fn(proct: *mut pmix_proc_t, queries: *mut pmix_query_t, nqueries: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_tool_connection_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, proc: *mut pmix_proc_t, cbdata: *mut c_void)>;
pub type pmix_server_tool_connection_fn_t = Option<unsafe extern "C" fn(info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_tool_connection_cbfunc_t, cbdata: *mut c_void)>;
pub type pmix_server_log_fn_t = Option<unsafe extern "C" fn(client: *const pmix_proc_t, data: *const pmix_info_t, ndata: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void)>;
pub type pmix_server_alloc_fn_t = Option<unsafe extern "C" fn(client: *const pmix_proc_t, directive: pmix_alloc_directive_t, data: *const pmix_info_t, ndata: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_job_control_fn_t = Option<unsafe extern "C" fn(requestor: *const pmix_proc_t, targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_monitor_fn_t = Option<unsafe extern "C" fn(requestor: *const pmix_proc_t, monitor: *const pmix_info_t, error: pmix_status_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_get_cred_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_credential_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_validate_cred_fn_t = Option<unsafe extern "C" fn(proc: *const pmix_proc_t, cred: *const pmix_byte_object_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_validation_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_iof_fn_t = Option<unsafe extern "C" fn(procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, channels: pmix_iof_channel_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_stdin_fn_t = Option<unsafe extern "C" fn(source: *const pmix_proc_t, targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, bo: *const pmix_byte_object_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_grp_fn_t = Option<unsafe extern "C" fn(op: pmix_group_operation_t, grp: *mut c_char, procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_server_fabric_fn_t = Option<unsafe extern "C" fn(requestor: *const pmix_proc_t, op: pmix_fabric_operation_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t>;
pub type pmix_dmodex_response_fn_t = Option<unsafe extern "C" fn(status: pmix_status_t, data: *mut c_char, sz: usize, cbdata: *mut c_void)>;
pub type pmix_setup_application_cbfunc_t = Option<unsafe extern "C" fn(status: pmix_status_t, info: *mut pmix_info_t, ninfo: usize, provided_cbdata: *mut c_void, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void)>;

/// The host's upcall table, `pmix_server_module_t` of OpenPMIx 4.x. The library
/// copies it at `PMIx_server_init`; a NULL entry means "not supported by the host".
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_server_module_4_0_0_t {
    pub client_connected: pmix_server_client_connected_fn_t,
    pub client_finalized: pmix_server_client_finalized_fn_t,
    pub abort: pmix_server_abort_fn_t,
    pub fence_nb: pmix_server_fencenb_fn_t,
    pub direct_modex: pmix_server_dmodex_req_fn_t,
    pub publish: pmix_server_publish_fn_t,
    pub lookup: pmix_server_lookup_fn_t,
    pub unpublish: pmix_server_unpublish_fn_t,
    pub spawn: pmix_server_spawn_fn_t,
    pub connect: pmix_server_connect_fn_t,
    pub disconnect: pmix_server_disconnect_fn_t,
    pub register_events: pmix_server_register_events_fn_t,
    pub deregister_events: pmix_server_deregister_events_fn_t,
    pub listener: pmix_server_listener_fn_t,
    pub notify_event: pmix_server_notify_event_fn_t,
    pub query: pmix_server_query_fn_t,
    pub tool_connected: pmix_server_tool_connection_fn_t,
    pub log: pmix_server_log_fn_t,
    pub allocate: pmix_server_alloc_fn_t,
    pub job_control: pmix_server_job_control_fn_t,
    pub monitor: pmix_server_monitor_fn_t,
    pub get_credential: pmix_server_get_cred_fn_t,
    pub validate_credential: pmix_server_validate_cred_fn_t,
    pub iof_pull: pmix_server_iof_fn_t,
    pub push_stdin: pmix_server_stdin_fn_t,
    pub group: pmix_server_grp_fn_t,
    pub fabric: pmix_server_fabric_fn_t,
    pub client_connected2: pmix_server_client_connected2_fn_t,
}
pub type pmix_server_module_t = pmix_server_module_4_0_0_t;

const _: () = assert!(core::mem::size_of::<pmix_server_module_t>() == 28 * 8);
