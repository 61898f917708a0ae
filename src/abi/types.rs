//! `#[repr(C)]` mirrors of the PMIx types of `pmix_common.h` (OpenPMIx 4.2.2 layout).
//!
//! The only place with C layouts. Every struct here is checked three ways: the
//! compile-time size/offset asserts at the bottom, `c-tests/layout_probe.c`
//! compiled against our headers and OpenPMIx's, and `../shared/tools/abi-check`.
//!
//! Naming: where OpenPMIx gives a struct tag (`struct pmix_proc`), the Rust struct
//! carries the tag and a `pmix_proc_t` alias follows, so C code may write either.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use libc::{pid_t, time_t, timeval};

pub type pmix_status_t = c_int;
pub type pmix_rank_t = u32;
/// `char[PMIX_MAX_NSLEN + 1]`.
pub type pmix_nspace_t = [c_char; 256];
/// `char[PMIX_MAX_KEYLEN + 1]`.
pub type pmix_key_t = [c_char; 512];
pub type pmix_proc_state_t = u8;
pub type pmix_job_state_t = u8;
pub type pmix_data_type_t = u16;
pub type pmix_scope_t = u8;
pub type pmix_data_range_t = u8;
pub type pmix_persistence_t = u8;
pub type pmix_info_directives_t = u32;
pub type pmix_alloc_directive_t = u8;
pub type pmix_iof_channel_t = u16;
pub type pmix_storage_medium_t = u64;
pub type pmix_storage_accessibility_t = u64;
pub type pmix_storage_persistence_t = u64;
pub type pmix_storage_access_type_t = u16;
pub type pmix_coord_view_t = u8;
pub type pmix_link_state_t = u8;
pub type pmix_bind_envelope_t = u8;
pub type pmix_locality_t = u16;
pub type pmix_device_type_t = u64;

/// C enums of the header are plain `int`s on this side: values arriving from C
/// are validated, never transmuted into a Rust enum.
pub type pmix_value_cmp_t = c_int;
pub const PMIX_EQUAL: pmix_value_cmp_t = 0;
pub const PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
pub const PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
pub const PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
pub const PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
pub const PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

pub type pmix_group_opt_t = c_int;
pub const PMIX_GROUP_DECLINE: pmix_group_opt_t = 0;
pub const PMIX_GROUP_ACCEPT: pmix_group_opt_t = 1;

pub type pmix_group_operation_t = c_int;
pub const PMIX_GROUP_CONSTRUCT: pmix_group_operation_t = 0;
pub const PMIX_GROUP_DESTRUCT: pmix_group_operation_t = 1;

pub type pmix_boolean_t = c_int;
pub const PMIX_BOOL_TRUE: pmix_boolean_t = 0;
pub const PMIX_BOOL_FALSE: pmix_boolean_t = 1;
pub const PMIX_NON_BOOL: pmix_boolean_t = 2;

pub type pmix_fabric_operation_t = c_int;
pub const PMIX_FABRIC_REQUEST_INFO: pmix_fabric_operation_t = 0;
pub const PMIX_FABRIC_UPDATE_INFO: pmix_fabric_operation_t = 1;

/// Callback parameters declared `pmix_nspace_t nspace` in C decay to `char *`;
/// cbindgen prints this alias as `pmix_nspace_t` (see cbindgen.toml) so the
/// callback typedefs read exactly as upstream's.
pub type pmix_nspace_param_t = *mut c_char;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_coord {
    pub view: pmix_coord_view_t,
    pub coord: *mut u32,
    pub dims: usize,
}
pub type pmix_coord_t = pmix_coord;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_cpuset_t {
    pub source: *mut c_char,
    pub bitmap: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_topology_t {
    pub source: *mut c_char,
    pub topology: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_geometry {
    pub fabric: usize,
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub coordinates: *mut pmix_coord_t,
    pub ncoords: usize,
}
pub type pmix_geometry_t = pmix_geometry;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_device_distance {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub r#type: pmix_device_type_t,
    pub mindist: u16,
    pub maxdist: u16,
}
pub type pmix_device_distance_t = pmix_device_distance;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_byte_object {
    pub bytes: *mut c_char,
    pub size: usize,
}
pub type pmix_byte_object_t = pmix_byte_object;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_endpoint {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub endpt: pmix_byte_object_t,
}
pub type pmix_endpoint_t = pmix_endpoint;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_envar_t {
    pub envar: *mut c_char,
    pub value: *mut c_char,
    pub separator: c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc {
    pub nspace: pmix_nspace_t,
    pub rank: pmix_rank_t,
}
pub type pmix_proc_t = pmix_proc;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_info {
    pub proc: pmix_proc_t,
    pub hostname: *mut c_char,
    pub executable_name: *mut c_char,
    pub pid: pid_t,
    pub exit_code: c_int,
    pub state: pmix_proc_state_t,
}
pub type pmix_proc_info_t = pmix_proc_info;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_data_array {
    pub r#type: pmix_data_type_t,
    pub size: usize,
    pub array: *mut c_void,
}
pub type pmix_data_array_t = pmix_data_array;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_data_buffer {
    pub base_ptr: *mut c_char,
    pub pack_ptr: *mut c_char,
    pub unpack_ptr: *mut c_char,
    pub bytes_allocated: usize,
    pub bytes_used: usize,
}
pub type pmix_data_buffer_t = pmix_data_buffer;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_stats {
    pub node: *mut c_char,
    pub proc: pmix_proc_t,
    pub pid: pid_t,
    pub cmd: *mut c_char,
    pub state: c_char,
    pub time: timeval,
    pub percent_cpu: f32,
    pub priority: i32,
    pub num_threads: u16,
    pub pss: f32,
    pub vsize: f32,
    pub rss: f32,
    pub peak_vsize: f32,
    pub processor: u16,
    pub sample_time: timeval,
}
pub type pmix_proc_stats_t = pmix_proc_stats;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_disk_stats_t {
    pub disk: *mut c_char,
    pub num_reads_completed: u64,
    pub num_reads_merged: u64,
    pub num_sectors_read: u64,
    pub milliseconds_reading: u64,
    pub num_writes_completed: u64,
    pub num_writes_merged: u64,
    pub num_sectors_written: u64,
    pub milliseconds_writing: u64,
    pub num_ios_in_progress: u64,
    pub milliseconds_io: u64,
    pub weighted_milliseconds_io: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_net_stats_t {
    pub net_interface: *mut c_char,
    pub num_bytes_recvd: u64,
    pub num_packets_recvd: u64,
    pub num_recv_errs: u64,
    pub num_bytes_sent: u64,
    pub num_packets_sent: u64,
    pub num_send_errs: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_node_stats_t {
    pub node: *mut c_char,
    pub la: f32,
    pub la5: f32,
    pub la15: f32,
    pub total_mem: f32,
    pub free_mem: f32,
    pub buffers: f32,
    pub cached: f32,
    pub swap_cached: f32,
    pub swap_total: f32,
    pub swap_free: f32,
    pub mapped: f32,
    pub sample_time: timeval,
    pub diskstats: *mut pmix_disk_stats_t,
    pub ndiskstats: usize,
    pub netstats: *mut pmix_net_stats_t,
    pub nnetstats: usize,
}

/// The payload of a `pmix_value_t`. build.rs writes it inline in the C header
/// (`union { ... } data;`), as upstream declares it.
#[repr(C)]
#[derive(Clone, Copy)]
pub union pmix_value_data {
    pub flag: bool,
    pub byte: u8,
    pub string: *mut c_char,
    pub size: usize,
    pub pid: pid_t,
    pub integer: c_int,
    pub int8: i8,
    pub int16: i16,
    pub int32: i32,
    pub int64: i64,
    pub uint: core::ffi::c_uint,
    pub uint8: u8,
    pub uint16: u16,
    pub uint32: u32,
    pub uint64: u64,
    pub fval: f32,
    pub dval: f64,
    pub tv: timeval,
    pub time: time_t,
    pub status: pmix_status_t,
    pub rank: pmix_rank_t,
    pub nspace: *mut pmix_nspace_t,
    pub proc: *mut pmix_proc_t,
    pub bo: pmix_byte_object_t,
    pub persist: pmix_persistence_t,
    pub scope: pmix_scope_t,
    pub range: pmix_data_range_t,
    pub state: pmix_proc_state_t,
    pub pinfo: *mut pmix_proc_info_t,
    pub darray: *mut pmix_data_array_t,
    pub ptr: *mut c_void,
    pub adir: pmix_alloc_directive_t,
    pub envar: pmix_envar_t,
    pub coord: *mut pmix_coord_t,
    pub linkstate: pmix_link_state_t,
    pub jstate: pmix_job_state_t,
    pub topo: *mut pmix_topology_t,
    pub cpuset: *mut pmix_cpuset_t,
    pub locality: pmix_locality_t,
    pub geometry: *mut pmix_geometry_t,
    pub devtype: pmix_device_type_t,
    pub devdist: *mut pmix_device_distance_t,
    pub endpoint: *mut pmix_endpoint_t,
    pub dbuf: *mut pmix_data_buffer_t,
    pub pstats: *mut pmix_proc_stats_t,
    pub dkstats: *mut pmix_disk_stats_t,
    pub netstats: *mut pmix_net_stats_t,
    pub ndstats: *mut pmix_node_stats_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_value {
    pub r#type: pmix_data_type_t,
    pub data: pmix_value_data,
}
pub type pmix_value_t = pmix_value;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_info {
    pub key: pmix_key_t,
    pub flags: pmix_info_directives_t,
    pub value: pmix_value_t,
}
pub type pmix_info_t = pmix_info;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_pdata {
    pub proc: pmix_proc_t,
    pub key: pmix_key_t,
    pub value: pmix_value_t,
}
pub type pmix_pdata_t = pmix_pdata;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_app {
    pub cmd: *mut c_char,
    pub argv: *mut *mut c_char,
    pub env: *mut *mut c_char,
    pub cwd: *mut c_char,
    pub maxprocs: c_int,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
}
pub type pmix_app_t = pmix_app;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_query {
    pub keys: *mut *mut c_char,
    pub qualifiers: *mut pmix_info_t,
    pub nqual: usize,
}
pub type pmix_query_t = pmix_query;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_regattr_t {
    pub name: *mut c_char,
    pub string: pmix_key_t,
    pub r#type: pmix_data_type_t,
    pub description: *mut *mut c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_fabric_s {
    pub name: *mut c_char,
    pub index: usize,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
    pub module: *mut c_void,
}
pub type pmix_fabric_t = pmix_fabric_s;

// Layout pins (x86_64 / LP64), matching OpenPMIx 4.2.2 as measured by pahole.
const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<pmix_proc_t>() == 260);
    assert!(size_of::<pmix_value_t>() == 32);
    assert!(offset_of!(pmix_value_t, data) == 8);
    assert!(size_of::<pmix_info_t>() == 552);
    assert!(offset_of!(pmix_info_t, flags) == 512);
    assert!(offset_of!(pmix_info_t, value) == 520);
    assert!(size_of::<pmix_pdata_t>() == 808);
    assert!(size_of::<pmix_app_t>() == 56);
    assert!(size_of::<pmix_data_array_t>() == 24);
    assert!(size_of::<pmix_byte_object_t>() == 16);
    assert!(size_of::<pmix_proc_info_t>() == 296);
    assert!(size_of::<pmix_envar_t>() == 24);
    assert!(size_of::<pmix_regattr_t>() == 536);
    assert!(size_of::<pmix_data_buffer_t>() == 40);
};
