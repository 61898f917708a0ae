//! Exported functions of `pmix.h (client API and data utilities)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;

#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(proc: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Init")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Finalize")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    // No client role yet (the core issue adds it): never initialised.
    entry!("PMIx_Initialized", { 0 })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(status: c_int, msg: *const c_char, procs: *mut pmix_proc_t, nprocs: usize) -> pmix_status_t {
    not_yet!("PMIx_Abort")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(scope: pmix_scope_t, key: *const c_char, val: *mut pmix_value_t) -> pmix_status_t {
    not_yet!("PMIx_Put")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> pmix_status_t {
    not_yet!("PMIx_Commit")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Fence")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fence_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(proc: *const pmix_proc_t, key: *const c_char, info: *const pmix_info_t, ninfo: usize, val: *mut *mut pmix_value_t) -> pmix_status_t {
    not_yet!("PMIx_Get")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(proc: *const pmix_proc_t, key: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_value_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Get_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Publish")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish_nb(info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Publish_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(data: *mut pmix_pdata_t, ndata: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Lookup")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_lookup_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Lookup_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Unpublish")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(keys: *mut *mut c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Unpublish_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(job_info: *const pmix_info_t, ninfo: usize, apps: *const pmix_app_t, napps: usize, nspace: *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_Spawn")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(job_info: *const pmix_info_t, ninfo: usize, apps: *const pmix_app_t, napps: usize, cbfunc: pmix_spawn_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Spawn_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Connect")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Connect_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Disconnect")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(ranges: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Disconnect_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(nodename: *const c_char, nspace: *const c_char, procs: *mut *mut pmix_proc_t, nprocs: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Resolve_peers")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(nspace: *const c_char, nodelist: *mut *mut c_char) -> pmix_status_t {
    not_yet!("PMIx_Resolve_nodes")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(queries: *mut pmix_query_t, nqueries: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Query_info")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(queries: *mut pmix_query_t, nqueries: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Query_info_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(data: *const pmix_info_t, ndata: usize, directives: *const pmix_info_t, ndirs: usize) -> pmix_status_t {
    not_yet!("PMIx_Log")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(data: *const pmix_info_t, ndata: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Log_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request(directive: pmix_alloc_directive_t, info: *mut pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Allocation_request")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request_nb(directive: pmix_alloc_directive_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Allocation_request_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Job_control")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(targets: *const pmix_proc_t, ntargets: usize, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Job_control_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor(monitor: *const pmix_info_t, error: pmix_status_t, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Process_monitor")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor_nb(monitor: *const pmix_info_t, error: pmix_status_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Process_monitor_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential(info: *const pmix_info_t, ninfo: usize, credential: *mut pmix_byte_object_t) -> pmix_status_t {
    not_yet!("PMIx_Get_credential")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential_nb(info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_credential_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Get_credential_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential(cred: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Validate_credential")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential_nb(cred: *const pmix_byte_object_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_validation_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Validate_credential_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Group_construct")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Group_construct_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Group_invite")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Group_invite_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Group_join")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Group_join_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Group_leave")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Group_leave_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    not_yet!("PMIx_Group_destruct")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Group_destruct_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(codes: *mut pmix_status_t, ncodes: usize, info: *mut pmix_info_t, ninfo: usize, evhdlr: pmix_notification_fn_t, cbfunc: pmix_hdlr_reg_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Register_event_handler")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(evhdlr_ref: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Deregister_event_handler")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Notify_event(status: pmix_status_t, source: *const pmix_proc_t, range: pmix_data_range_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Notify_event")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, distances: *mut *mut pmix_device_distance_t, ndist: *mut usize) -> pmix_status_t {
    not_yet!("PMIx_Compute_distances")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_device_dist_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Compute_distances_nb")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(topo: *mut pmix_topology_t) -> pmix_status_t {
    not_yet!("PMIx_Load_topology")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    entry!("PMIx_Topology_destruct", {
        if let Some(t) = topo.as_mut() {
            crate::data::cpuset::destruct_topology(t);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(cpuset_string: *const c_char, cpuset: *mut pmix_cpuset_t) -> pmix_status_t {
    status_entry!("PMIx_Parse_cpuset_string", {
        require!("PMIx_Parse_cpuset_string", !cpuset_string.is_null() && !cpuset.is_null());
        let s = core::ffi::CStr::from_ptr(cpuset_string).to_bytes();
        let c = &mut *cpuset;
        *c = core::mem::zeroed();
        crate::data::cpuset::parse_cpuset(s, c).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: pmix_bind_envelope_t) -> pmix_status_t {
    not_yet!("PMIx_Get_cpuset")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    entry!("PMIx_Cpuset_destruct", {
        if let Some(c) = cpuset.as_mut() {
            crate::data::cpuset::destruct_cpuset(c);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(locality1: *const c_char, locality2: *const c_char, locality: *mut pmix_locality_t) -> pmix_status_t {
    not_yet!("PMIx_Get_relative_locality")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {
    // Progress is made by the library's own threads; nothing to drive here.
    entry!("PMIx_Progress", {})
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    entry!("PMIx_Error_string", { crate::strings::error_string(status).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_state_string(state: pmix_proc_state_t) -> *const c_char {
    entry!("PMIx_Proc_state_string", { crate::strings::proc_state_string(state).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Scope_string(scope: pmix_scope_t) -> *const c_char {
    entry!("PMIx_Scope_string", { crate::strings::scope_string(scope).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Persistence_string(persist: pmix_persistence_t) -> *const c_char {
    entry!("PMIx_Persistence_string", { crate::strings::persistence_string(persist).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_range_string(range: pmix_data_range_t) -> *const c_char {
    entry!("PMIx_Data_range_string", { crate::strings::data_range_string(range).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    entry!("PMIx_Data_type_string", { crate::strings::data_type_string(type_).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) -> *const c_char {
    entry!("PMIx_Alloc_directive_string", { crate::strings::alloc_directive_string(directive).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    entry!("PMIx_IOF_channel_string", { crate::strings::iof_channel_string(channel).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_state_string(state: pmix_job_state_t) -> *const c_char {
    entry!("PMIx_Job_state_string", { crate::strings::job_state_string(state).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_string", {
        match crate::cmem::cstr_bytes(attribute) {
            Some(name) => crate::strings::attribute_string(name).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_name", {
        match crate::cmem::cstr_bytes(attrstring) {
            Some(key) => crate::strings::attribute_name(key).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Link_state_string(state: pmix_link_state_t) -> *const c_char {
    entry!("PMIx_Link_state_string", { crate::strings::link_state_string(state).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    entry!("PMIx_Device_type_string", { crate::strings::device_type_string(type_).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) -> *const c_char {
    entry!("PMIx_Value_comparison_string", { crate::strings::value_comparison_string(cmp).as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    entry!("PMIx_Info_string", {
        match info.as_ref() {
            Some(i) => crate::cmem::strdup_bytes(crate::data::print::info_text(i).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    entry!("PMIx_Value_string", {
        match value.as_ref() {
            Some(v) => crate::cmem::strdup_bytes(crate::data::print::value_text(v).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_directives_string(directives: pmix_info_directives_t) -> *mut c_char {
    entry!("PMIx_Info_directives_string", {
        crate::cmem::strdup_bytes(crate::strings::info_directives_string(directives).to_bytes())
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_version() -> *const c_char {
    entry!("PMIx_Get_version", { crate::strings::VERSION.as_ptr() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(proc: *const pmix_proc_t, key: *const c_char, val: *mut pmix_value_t) -> pmix_status_t {
    not_yet!("PMIx_Store_internal")
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_pack(target: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, src: *mut c_void, num_vals: i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_pack", {
        require!("PMIx_Data_pack", !buffer.is_null());
        crate::data::pack(&mut *buffer, src, num_vals, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unpack(source: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, dest: *mut c_void, max_num_values: *mut i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unpack", {
        require!("PMIx_Data_unpack", !buffer.is_null() && !max_num_values.is_null());
        crate::data::unpack(&mut *buffer, dest, &mut *max_num_values, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy(dest: *mut *mut c_void, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy", {
        require!("PMIx_Data_copy", !dest.is_null() && !src.is_null());
        crate::data::copy(&mut *dest, src, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_print(output: *mut *mut c_char, prefix: *mut c_char, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_print", {
        require!("PMIx_Data_print", !output.is_null() && !src.is_null());
        let pre = crate::cmem::cstr_bytes(prefix).map(String::from_utf8_lossy).unwrap_or_default();
        match crate::data::print(&pre, src, type_) {
            Ok(s) => {
                *output = crate::cmem::strdup_bytes(s.as_bytes());
                if (*output).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
            }
            Err(e) => e,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(dest: *mut pmix_data_buffer_t, src: *mut pmix_data_buffer_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy_payload", {
        require!("PMIx_Data_copy_payload", !dest.is_null() && !src.is_null());
        crate::data::copy_payload(&mut *dest, &*src).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unload", {
        require!("PMIx_Data_unload", !buffer.is_null() && !payload.is_null());
        crate::data::buffer::unload(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_load", {
        require!("PMIx_Data_load", !buffer.is_null() && !payload.is_null());
        crate::data::load(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(buffer: *mut pmix_data_buffer_t, payload: *const pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_embed", {
        require!("PMIx_Data_embed", !buffer.is_null() && !payload.is_null());
        crate::data::embed(&mut *buffer, &*payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_compress", {
        if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() || size == 0 {
            return false;
        }
        match crate::data::compress::compress(core::slice::from_raw_parts(inbytes, size)) {
            Some(v) => {
                let p = crate::data::compress::to_c(&v);
                if p.is_null() {
                    return false;
                }
                *outbytes = p;
                *nbytes = v.len();
                true
            }
            None => false,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_decompress", {
        if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() || size == 0 {
            return false;
        }
        match crate::data::compress::decompress(core::slice::from_raw_parts(inbytes, size)) {
            Some(v) => {
                let p = crate::data::compress::to_c(&v);
                if p.is_null() {
                    return false;
                }
                *outbytes = p;
                *nbytes = v.len();
                true
            }
            None => false,
        }
    })
}

