//! Names of status codes and enumerations: the text behind `PMIx_Error_string`,
//! `PMIx_Proc_state_string`, `PMIx_Data_type_string` and their siblings.
//!
//! Every string below was measured by calling OpenPMIx 4.2.2 (`libpmix.so.2`) for each
//! value of the argument's type (for `u64`/`u32` flag types: every low-bit combination plus
//! sampled high bits), so a program printing these names sees the same text with either
//! library. Values the reference does not know get its fallback text, also measured.
//!
//! All functions return `'static` data except [`info_directives_string`], whose C
//! counterpart hands back a freshly allocated string.

use crate::abi::*;
use std::ffi::{CStr, CString};

/// What `PMIx_Error_string` says for a code it does not know.
pub const UNKNOWN_ERROR: &CStr = c"ERROR STRING NOT FOUND";

/// Name of a status code, as `PMIx_Error_string` prints it.
///
/// A few codes of the headers are unknown to the reference and get [`UNKNOWN_ERROR`]:
/// `PMIX_PROCESS_SET_DELETE`, `PMIX_ERR_SYS_LIMITS_FILES`, `PMIX_ERR_LOST_CONNECTION_TO_SERVER`,
/// `PMIX_ERR_LOST_PEER_CONNECTION`, `PMIX_ERR_LOST_CONNECTION_TO_CLIENT`, `PMIX_MODEL_RESOURCES`
/// and `PMIX_EXTERNAL_ERR_BASE`. Conversely it names four codes that the public headers
/// do not define (marked below).
pub fn error_string(rc: pmix_status_t) -> &'static CStr {
    match rc {
        PMIX_SUCCESS => c"SUCCESS",
        PMIX_ERROR => c"ERROR",
        PMIX_ERR_SILENT => c"SILENT_ERROR",
        PMIX_DEBUGGER_RELEASE => c"DEBUGGER-RELEASE",
        PMIX_ERR_PROC_RESTART => c"PROC_RESTART",
        PMIX_ERR_PROC_CHECKPOINT => c"PROC-CHECKPOINT-ERROR",
        PMIX_ERR_PROC_MIGRATE => c"PROC-MIGRATE",
        PMIX_ERR_PROC_ABORTED => c"PROC-ABORTED",
        PMIX_ERR_PROC_REQUESTED_ABORT => c"PROC-ABORT-REQUESTED",
        PMIX_ERR_PROC_ABORTING => c"PROC-ABORTING",
        PMIX_ERR_SERVER_FAILED_REQUEST => c"SERVER FAILED REQUEST",
        PMIX_ERR_EXISTS => c"EXISTS",
        PMIX_ERR_INVALID_CRED => c"INVALID-CREDENTIAL",
        PMIX_ERR_HANDSHAKE_FAILED => c"HANDSHAKE-FAILED",
        PMIX_ERR_READY_FOR_HANDSHAKE => c"READY-FOR-HANDSHAKE",
        PMIX_ERR_WOULD_BLOCK => c"WOULD-BLOCK",
        PMIX_ERR_UNKNOWN_DATA_TYPE => c"UNKNOWN-DATA-TYPE",
        PMIX_ERR_PROC_ENTRY_NOT_FOUND => c"PROC-ENTRY-NOT-FOUND",
        PMIX_ERR_TYPE_MISMATCH => c"TYPE-MISMATCH",
        PMIX_ERR_UNPACK_INADEQUATE_SPACE => c"UNPACK-INADEQUATE-SPACE",
        PMIX_ERR_UNPACK_FAILURE => c"UNPACK-FAILURE",
        PMIX_ERR_PACK_FAILURE => c"PACK-FAILURE",
        PMIX_ERR_PACK_MISMATCH => c"PACK-MISMATCH",
        PMIX_ERR_NO_PERMISSIONS => c"NO-PERMISSIONS",
        PMIX_ERR_TIMEOUT => c"TIMEOUT",
        PMIX_ERR_UNREACH => c"UNREACHABLE",
        PMIX_ERR_IN_ERRNO => c"ERR-IN-ERRNO",
        PMIX_ERR_BAD_PARAM => c"BAD-PARAM",
        PMIX_ERR_RESOURCE_BUSY => c"RESOURCE-BUSY",
        PMIX_ERR_OUT_OF_RESOURCE => c"OUT-OF-RESOURCE",
        PMIX_ERR_DATA_VALUE_NOT_FOUND => c"DATA-VALUE-NOT-FOUND",
        PMIX_ERR_INIT => c"INIT",
        PMIX_ERR_NOMEM => c"NO-MEM",
        PMIX_ERR_INVALID_ARG => c"INVALID-ARG",
        PMIX_ERR_INVALID_KEY => c"INVALID-KEY",
        PMIX_ERR_INVALID_KEY_LENGTH => c"INVALID-KEY-LENGTH",
        PMIX_ERR_INVALID_VAL => c"INVALID-VAL",
        PMIX_ERR_INVALID_VAL_LENGTH => c"INVALID-VAL-LENGTH",
        PMIX_ERR_INVALID_LENGTH => c"INVALID-LENGTH",
        PMIX_ERR_INVALID_NUM_ARGS => c"INVALID-NUM-ARGS",
        PMIX_ERR_INVALID_ARGS => c"INVALID-ARGS",
        PMIX_ERR_INVALID_NUM_PARSED => c"INVALID-NUM-PARSED",
        PMIX_ERR_INVALID_KEYVALP => c"INVALID-KEYVAL",
        PMIX_ERR_INVALID_SIZE => c"INVALID-SIZE",
        PMIX_ERR_INVALID_NAMESPACE => c"INVALID-NAMESPACE",
        PMIX_ERR_SERVER_NOT_AVAIL => c"SERVER-NOT-AVAIL",
        PMIX_ERR_NOT_FOUND => c"NOT-FOUND",
        PMIX_ERR_NOT_SUPPORTED => c"NOT-SUPPORTED",
        PMIX_ERR_NOT_IMPLEMENTED => c"NOT-IMPLEMENTED",
        PMIX_ERR_COMM_FAILURE => c"COMM-FAILURE",
        PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER => c"UNPACK-PAST-END",
        PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES => c"PMIX CONFLICTING CLEANUP DIRECTIVES",
        PMIX_ERR_PARTIAL_SUCCESS => c"PARTIAL SUCCESS",
        PMIX_ERR_DUPLICATE_KEY => c"DUPLICATE KEY",
        PMIX_PROCESS_SET_DEFINE => c"PROCESS SET DEFINED",
        PMIX_READY_FOR_DEBUG => c"READY-FOR-DEBUG",
        PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED => c"PARAM-VALUE-NOT-SUPPORTED",
        PMIX_ERR_EMPTY => c"EMPTY",
        PMIX_ERR_LOST_CONNECTION => c"LOST_CONNECTION",
        PMIX_ERR_EXISTS_OUTSIDE_SCOPE => c"OUTSIDE-SCOPE",
        PMIX_ERR_FATAL => c"FATAL",
        PMIX_ERR_NOT_AVAILABLE => c"NOT_AVAILABLE",
        PMIX_ERR_VALUE_OUT_OF_BOUNDS => c"VALUE_OUT_OF_BOUNDS",
        PMIX_ERR_FILE_OPEN_FAILURE => c"FILE_OPEN_FAILURE",
        PMIX_ERR_FILE_READ_FAILURE => c"FILE_READ_FAILURE",
        PMIX_ERR_FILE_WRITE_FAILURE => c"FILE_WRITE_FAILURE",
        PMIX_ERR_SYS_LIMITS_PIPES => c"SYS_LIMITS_PIPES",
        PMIX_ERR_SYS_LIMITS_CHILDREN => c"SYS_LIMITS_CHILDREN",
        PMIX_ERR_PIPE_SETUP_FAILURE => c"PIPE_SETUP_FAILURE",
        PMIX_ERR_EXE_NOT_ACCESSIBLE => c"EXE NOT ACCESSIBLE",
        PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE => c"WDIR NOT ACCESSIBLE",
        PMIX_QUERY_PARTIAL_SUCCESS => c"QUERY-PARTIAL-SUCCESS",
        PMIX_NOTIFY_ALLOC_COMPLETE => c"PMIX ALLOC OPERATION COMPLETE",
        PMIX_JCTRL_CHECKPOINT => c"PMIX JOB CONTROL CHECKPOINT",
        PMIX_JCTRL_CHECKPOINT_COMPLETE => c"PMIX JOB CONTROL CHECKPOINT COMPLETE",
        PMIX_JCTRL_PREEMPT_ALERT => c"PMIX PRE-EMPTION ALERT",
        PMIX_MONITOR_HEARTBEAT_ALERT => c"PMIX HEARTBEAT ALERT",
        PMIX_MONITOR_FILE_ALERT => c"PMIX FILE MONITOR ALERT",
        PMIX_PROC_TERMINATED => c"PROC-TERMINATED",
        PMIX_ERR_INVALID_TERMINATION => c"INVALID-TERMINATION",
        PMIX_FABRIC_UPDATE_ENDPOINTS => c"FABRIC-UPDATE-ENDPOINTS",
        PMIX_ERR_EVENT_REGISTRATION => c"EVENT-REGISTRATION",
        PMIX_EVENT_JOB_END => c"JOB ENDED",
        PMIX_ERR_UPDATE_ENDPOINTS => c"UPDATE-ENDPOINTS",
        PMIX_MODEL_DECLARED => c"PMIX MODEL DECLARED",
        PMIX_GDS_ACTION_COMPLETE => c"GDS-ACTION-COMPLETE",
        PMIX_PROC_HAS_CONNECTED => c"PROC-HAS-CONNECTED",
        PMIX_CONNECT_REQUESTED => c"CONNECT-REQUESTED",
        PMIX_OPENMP_PARALLEL_ENTERED => c"OPENMP-PARALLEL-ENTERED",
        PMIX_OPENMP_PARALLEL_EXITED => c"OPENMP-PARALLEL-EXITED",
        PMIX_LAUNCHER_READY => c"LAUNCHER-READY",
        PMIX_OPERATION_IN_PROGRESS => c"OPERATION-IN-PROGRESS",
        PMIX_OPERATION_SUCCEEDED => c"OPERATION-SUCCEEDED",
        PMIX_ERR_INVALID_OPERATION => c"INVALID-OPERATION",
        PMIX_GROUP_INVITED => c"GROUP-INVITED",
        PMIX_GROUP_LEFT => c"GROUP-LEFT",
        PMIX_GROUP_INVITE_ACCEPTED => c"GROUP-INVITE-ACCEPTED",
        PMIX_GROUP_INVITE_DECLINED => c"GROUP-INVITE-DECLINED",
        PMIX_GROUP_INVITE_FAILED => c"GROUP-INVITE-FAILED",
        PMIX_GROUP_MEMBERSHIP_UPDATE => c"GROUP-MEMBERSHIP-UPDATE",
        PMIX_GROUP_CONSTRUCT_ABORT => c"GROUP-CONSTRUCT-ABORT",
        PMIX_GROUP_CONSTRUCT_COMPLETE => c"GROUP-CONSTRUCT-COMPLETE",
        PMIX_GROUP_LEADER_SELECTED => c"GROUP-LEADER-SELECTED",
        PMIX_GROUP_LEADER_FAILED => c"GROUP-LEADER-FAILED",
        PMIX_GROUP_CONTEXT_ID_ASSIGNED => c"GROUP-CONTEXT-ID-ASSIGNED",
        PMIX_GROUP_MEMBER_FAILED => c"GROUP-MEMBER-FAILED",
        PMIX_ERR_REPEAT_ATTR_REGISTRATION => c"REPEAT-ATTRIBUTE-REGISTRATION",
        PMIX_ERR_IOF_FAILURE => c"IOF FAILURE",
        PMIX_ERR_IOF_COMPLETE => c"IOF COMPLETE",
        PMIX_LAUNCH_COMPLETE => c"PMIX LAUNCH COMPLETE",
        PMIX_FABRIC_UPDATED => c"FABRIC-UPDATED",
        PMIX_FABRIC_UPDATE_PENDING => c"FABRIC-UPDATE-PENDING",
        PMIX_ERR_JOB_APP_NOT_EXECUTABLE => c"APPLICATION NOT EXECUTABLE",
        PMIX_ERR_JOB_NO_EXE_SPECIFIED => c"NO EXECUTABLE SPECIFIED",
        PMIX_ERR_JOB_FAILED_TO_MAP => c"JOB FAILED TO MAP",
        PMIX_ERR_JOB_CANCELED => c"JOB CANCELED",
        PMIX_ERR_JOB_FAILED_TO_LAUNCH => c"JOB FAILED TO LAUNCH",
        PMIX_ERR_JOB_ABORTED => c"JOB ABORTED",
        PMIX_ERR_JOB_KILLED_BY_CMD => c"KILLED BY COMMAND",
        PMIX_ERR_JOB_ABORTED_BY_SIG => c"ABORTED BY SIGNAL",
        PMIX_ERR_JOB_TERM_WO_SYNC => c"TERMINATED WITHOUT SYNC",
        PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED => c"SENSOR BOUND EXCEEDED",
        PMIX_ERR_JOB_NON_ZERO_TERM => c"NON-ZERO TERMINATION",
        PMIX_ERR_JOB_ALLOC_FAILED => c"FAILED TO OBTAIN ALLOCATION",
        PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT => c"JOB ABORTED BY SYSTEM EVENT",
        PMIX_ERR_JOB_EXE_NOT_FOUND => c"EXECUTABLE NOT FOUND",
        PMIX_EVENT_JOB_START => c"JOB STARTED",
        PMIX_EVENT_SESSION_START => c"SESSION STARTED",
        PMIX_EVENT_SESSION_END => c"SESSION ENDED",
        PMIX_ERR_PROC_TERM_WO_SYNC => c"PROC TERMINATED WITHOUT SYNC",
        PMIX_EVENT_PROC_TERMINATED => c"PROC TERMINATED",
        PMIX_EVENT_SYS_BASE => c"SYSTEM BASE EVENT",
        PMIX_EVENT_NODE_DOWN => c"NODE-DOWN",
        PMIX_EVENT_NODE_OFFLINE => c"NODE-OFFLINE",
        PMIX_ERR_JOB_WDIR_NOT_FOUND => c"WORKING DIRECTORY NOT FOUND",
        PMIX_ERR_JOB_INSUFFICIENT_RESOURCES => c"INSUFFICIENT RESOURCES",
        PMIX_ERR_JOB_SYS_OP_FAILED => c"SYSTEM OPERATION FAILED",
        PMIX_EVENT_SYS_OTHER => c"UNDEFINED-SYSTEM-EVENT",
        PMIX_EVENT_NO_ACTION_TAKEN => c"EVENT-NO-ACTION-TAKEN",
        PMIX_EVENT_PARTIAL_ACTION_TAKEN => c"EVENT-PARTIAL-ACTION-TAKEN",
        PMIX_EVENT_ACTION_DEFERRED => c"EVENT-ACTION-DEFERRED",
        PMIX_EVENT_ACTION_COMPLETE => c"EVENT-ACTION-COMPLETE",
        PMIX_ERR_PROC_KILLED_BY_CMD => c"PROC-KILLED-BY-CMD",
        PMIX_ERR_PROC_FAILED_TO_START => c"PROC-FAILED-TO-START",
        PMIX_ERR_PROC_ABORTED_BY_SIG => c"PROC-ABORTED-BY-SIG",
        PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED => c"PROC-SENSOR-BOUND-EXCEEDED",
        PMIX_ERR_EXIT_NONZERO_TERM => c"PROC-EXIT-NONZERO-TERM",
        -1363 => c"FABRIC_NOT_PARSEABLE", // not in the public headers
        -1366 => c"TAKE-NEXT-OPTION",     // not in the public headers
        -1367 => c"PMIX TEMPORARILY UNAVAILABLE", // not in the public headers
        i32::MIN => c"PMIX_ERR_WILDCARD", // not in the public headers
        _ => UNKNOWN_ERROR,
    }
}

/// [`error_string`] as `&str`, for log messages.
pub fn error_name(rc: pmix_status_t) -> &'static str {
    // Every name is ASCII, so the conversion cannot fail.
    error_string(rc).to_str().unwrap_or("?")
}

/// `PMIx_Proc_state_string`.
pub fn proc_state_string(state: pmix_proc_state_t) -> &'static CStr {
    match state {
        PMIX_PROC_STATE_UNDEF => c"UNDEFINED",
        PMIX_PROC_STATE_PREPPED => c"PREPPED FOR LAUNCH",
        PMIX_PROC_STATE_LAUNCH_UNDERWAY => c"LAUNCH UNDERWAY",
        PMIX_PROC_STATE_RESTART => c"PROC READY FOR RESTART",
        PMIX_PROC_STATE_TERMINATE => c"PROC MARKED FOR TERMINATION",
        PMIX_PROC_STATE_RUNNING => c"PROC EXECUTING",
        PMIX_PROC_STATE_CONNECTED => c"PROC HAS CONNECTED TO LOCAL PMIX SERVER",
        PMIX_PROC_STATE_UNTERMINATED => c"PROC HAS NOT TERMINATED",
        PMIX_PROC_STATE_TERMINATED => c"PROC HAS TERMINATED",
        PMIX_PROC_STATE_ERROR => c"PROC ERROR",
        PMIX_PROC_STATE_KILLED_BY_CMD => c"PROC KILLED BY CMD",
        PMIX_PROC_STATE_ABORTED => c"PROC ABNORMALLY ABORTED",
        PMIX_PROC_STATE_FAILED_TO_START => c"PROC FAILED TO START",
        PMIX_PROC_STATE_ABORTED_BY_SIG => c"PROC ABORTED BY SIGNAL",
        PMIX_PROC_STATE_TERM_WO_SYNC => c"PROC TERMINATED WITHOUT CALLING PMIx_Finalize",
        PMIX_PROC_STATE_COMM_FAILED => c"PROC LOST COMMUNICATION",
        PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED => c"PROC SENSOR BOUND EXCEEDED",
        PMIX_PROC_STATE_CALLED_ABORT => c"PROC CALLED PMIx_Abort",
        PMIX_PROC_STATE_HEARTBEAT_FAILED => c"PROC FAILED TO REPORT HEARTBEAT",
        PMIX_PROC_STATE_MIGRATING => c"PROC WAITING TO MIGRATE",
        PMIX_PROC_STATE_CANNOT_RESTART => c"PROC CANNOT BE RESTARTED",
        PMIX_PROC_STATE_TERM_NON_ZERO => c"PROC TERMINATED WITH NON-ZERO STATUS",
        PMIX_PROC_STATE_FAILED_TO_LAUNCH => c"PROC FAILED TO LAUNCH",
        _ => c"UNKNOWN STATE",
    }
}

/// `PMIx_Scope_string`.
pub fn scope_string(scope: pmix_scope_t) -> &'static CStr {
    match scope {
        PMIX_SCOPE_UNDEF => c"UNDEFINED",
        PMIX_LOCAL => c"SHARE ON LOCAL NODE ONLY",
        PMIX_REMOTE => c"SHARE ON REMOTE NODES ONLY",
        PMIX_GLOBAL => c"SHARE ACROSS ALL NODES",
        PMIX_INTERNAL => c"STORE INTERNALLY",
        _ => c"UNKNOWN SCOPE",
    }
}

/// `PMIx_Persistence_string`.
pub fn persistence_string(persist: pmix_persistence_t) -> &'static CStr {
    match persist {
        PMIX_PERSIST_INDEF => c"INDEFINITE",
        PMIX_PERSIST_FIRST_READ => c"DELETE ON FIRST ACCESS",
        PMIX_PERSIST_PROC => c"RETAIN UNTIL PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_APP => c"RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_SESSION => c"RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_INVALID => c"INVALID",
        _ => c"UNKNOWN PERSISTENCE",
    }
}

/// `PMIx_Data_range_string`.
pub fn data_range_string(range: pmix_data_range_t) -> &'static CStr {
    match range {
        PMIX_RANGE_UNDEF => c"UNDEFINED",
        PMIX_RANGE_RM => c"INTENDED FOR HOST RESOURCE MANAGER ONLY",
        PMIX_RANGE_LOCAL => c"AVAIL ON LOCAL NODE ONLY",
        PMIX_RANGE_NAMESPACE => c"AVAIL TO PROCESSES IN SAME JOB ONLY",
        PMIX_RANGE_SESSION => c"AVAIL TO PROCESSES IN SAME ALLOCATION ONLY",
        PMIX_RANGE_GLOBAL => c"AVAIL TO ANYONE WITH AUTHORIZATION",
        PMIX_RANGE_CUSTOM => c"AVAIL AS SPECIFIED IN DIRECTIVES",
        PMIX_RANGE_PROC_LOCAL => c"AVAIL ON LOCAL PROC ONLY",
        PMIX_RANGE_INVALID => c"INVALID",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Data_type_string` once the library is initialized (measured after
/// `PMIx_tool_init`): every type up to `PMIX_STOR_ACCESS_TYPE`
/// has a name, including the retired holes 26, 29 and 44; anything else is "UNKNOWN".
pub fn data_type_string(ty: pmix_data_type_t) -> &'static CStr {
    match ty {
        PMIX_BOOL => c"PMIX_BOOL",
        PMIX_BYTE => c"PMIX_BYTE",
        PMIX_STRING => c"PMIX_STRING",
        PMIX_SIZE => c"PMIX_SIZE",
        PMIX_PID => c"PMIX_PID",
        PMIX_INT => c"PMIX_INT",
        PMIX_INT8 => c"PMIX_INT8",
        PMIX_INT16 => c"PMIX_INT16",
        PMIX_INT32 => c"PMIX_INT32",
        PMIX_INT64 => c"PMIX_INT64",
        PMIX_UINT => c"PMIX_UINT",
        PMIX_UINT8 => c"PMIX_UINT8",
        PMIX_UINT16 => c"PMIX_UINT16",
        PMIX_UINT32 => c"PMIX_UINT32",
        PMIX_UINT64 => c"PMIX_UINT64",
        PMIX_FLOAT => c"PMIX_FLOAT",
        PMIX_DOUBLE => c"PMIX_DOUBLE",
        PMIX_TIMEVAL => c"PMIX_TIMEVAL",
        PMIX_TIME => c"PMIX_TIME",
        PMIX_STATUS => c"PMIX_STATUS",
        PMIX_VALUE => c"PMIX_VALUE",
        PMIX_PROC => c"PMIX_PROC",
        PMIX_APP => c"PMIX_APP",
        PMIX_INFO => c"PMIX_INFO",
        PMIX_PDATA => c"PMIX_PDATA",
        PMIX_BUFFER => c"PMIX_BUFFER",
        PMIX_BYTE_OBJECT => c"PMIX_BYTE_OBJECT",
        PMIX_KVAL => c"PMIX_KVAL",
        29 => c"PMIX_MODEX", // retired; no constant in the headers
        PMIX_PERSIST => c"PMIX_PERSIST",
        PMIX_POINTER => c"PMIX_POINTER",
        PMIX_SCOPE => c"PMIX_SCOPE",
        PMIX_DATA_RANGE => c"PMIX_DATA_RANGE",
        PMIX_COMMAND => c"PMIX_COMMAND",
        PMIX_INFO_DIRECTIVES => c"PMIX_INFO_DIRECTIVES",
        PMIX_DATA_TYPE => c"PMIX_DATA_TYPE",
        PMIX_PROC_STATE => c"PMIX_PROC_STATE",
        PMIX_PROC_INFO => c"PMIX_PROC_INFO",
        PMIX_DATA_ARRAY => c"PMIX_DATA_ARRAY",
        PMIX_PROC_RANK => c"PMIX_PROC_RANK",
        PMIX_QUERY => c"PMIX_QUERY",
        PMIX_COMPRESSED_STRING => c"PMIX_COMPRESSED_STRING",
        PMIX_ALLOC_DIRECTIVE => c"PMIX_ALLOC_DIRECTIVE",
        44 => c"PMIX_INFO_ARRAY", // retired; no constant in the headers
        PMIX_IOF_CHANNEL => c"PMIX_IOF_CHANNEL",
        PMIX_ENVAR => c"PMIX_ENVAR",
        PMIX_COORD => c"PMIX_COORD",
        PMIX_REGATTR => c"PMIX_REGATTR",
        PMIX_REGEX => c"PMIX_REGEX",
        PMIX_JOB_STATE => c"PMIX_JOB_STATE",
        PMIX_LINK_STATE => c"PMIX_LINK_STATE",
        PMIX_PROC_CPUSET => c"PMIX_PROC_CPUSET",
        PMIX_GEOMETRY => c"PMIX_GEOMETRY",
        PMIX_DEVICE_DIST => c"PMIX_DEVICE_DIST",
        PMIX_ENDPOINT => c"PMIX_ENDPOINT",
        PMIX_TOPO => c"PMIX_TOPO",
        PMIX_DEVTYPE => c"PMIX_DEVTYPE",
        PMIX_LOCTYPE => c"PMIX_LOCTYPE",
        PMIX_COMPRESSED_BYTE_OBJECT => c"PMIX_COMPRESSED_BYTE_OBJECT",
        PMIX_PROC_NSPACE => c"PMIX_PROC_NSPACE",
        PMIX_PROC_STATS => c"PMIX_PROC_STATS",
        PMIX_DISK_STATS => c"PMIX_DISK_STATS",
        PMIX_NET_STATS => c"PMIX_NET_STATS",
        PMIX_NODE_STATS => c"PMIX_NODE_STATS",
        PMIX_DATA_BUFFER => c"PMIX_DATA_BUFFER",
        PMIX_STOR_MEDIUM => c"PMIX_STOR_MEDIUM",
        PMIX_STOR_ACCESS => c"PMIX_STOR_ACCESS",
        PMIX_STOR_PERSIST => c"PMIX_STOR_PERSIST",
        PMIX_STOR_ACCESS_TYPE => c"PMIX_STOR_ACCESS_TYPE",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Data_type_string` before the library is initialized, or after it is finalized.
///
/// The reference then knows a shorter list: 29, 44, 58, 59 and everything above
/// `PMIX_DATA_BUFFER` (and `PMIX_UNDEF`) read "NOT INITIALIZED"; the other names are
/// those of [`data_type_string`].
pub fn data_type_string_uninitialized(ty: pmix_data_type_t) -> &'static CStr {
    match ty {
        29 | 44 | PMIX_LOCTYPE | PMIX_COMPRESSED_BYTE_OBJECT => c"NOT INITIALIZED",
        PMIX_BOOL..=PMIX_DATA_BUFFER => data_type_string(ty),
        _ => c"NOT INITIALIZED",
    }
}

/// `PMIx_Alloc_directive_string`. `PMIX_ALLOC_EXTERNAL` has no name of its own.
pub fn alloc_directive_string(directive: pmix_alloc_directive_t) -> &'static CStr {
    match directive {
        PMIX_ALLOC_NEW => c"NEW",
        PMIX_ALLOC_EXTEND => c"EXTEND",
        PMIX_ALLOC_RELEASE => c"RELEASE",
        PMIX_ALLOC_REAQUIRE => c"REACQUIRE",
        _ => c"UNSPECIFIED",
    }
}

/// `PMIx_IOF_channel_string`: the names of the set channel bits, each followed by a
/// space, or "NONE". Only the four defined bits count (`PMIX_FWD_ALL_CHANNELS` reads as
/// the four names), so the 16 possible answers are spelled out here.
pub fn iof_channel_string(channel: pmix_iof_channel_t) -> &'static CStr {
    const BY_BITS: [&CStr; 16] = [
        c"NONE",
        c"STDIN ",
        c"STDOUT ",
        c"STDIN STDOUT ",
        c"STDERR ",
        c"STDIN STDERR ",
        c"STDOUT STDERR ",
        c"STDIN STDOUT STDERR ",
        c"STDDIAG ",
        c"STDIN STDDIAG ",
        c"STDOUT STDDIAG ",
        c"STDIN STDOUT STDDIAG ",
        c"STDERR STDDIAG ",
        c"STDIN STDERR STDDIAG ",
        c"STDOUT STDERR STDDIAG ",
        c"STDIN STDOUT STDERR STDDIAG ",
    ];
    BY_BITS[usize::from(channel & 0x000f)]
}

/// `PMIx_Job_state_string`.
pub fn job_state_string(state: pmix_job_state_t) -> &'static CStr {
    match state {
        PMIX_JOB_STATE_UNDEF => c"UNDEFINED",
        PMIX_JOB_STATE_AWAITING_ALLOC => c"PREPPED FOR LAUNCH",
        PMIX_JOB_STATE_LAUNCH_UNDERWAY => c"LAUNCHING",
        PMIX_JOB_STATE_RUNNING => c"RUNNING",
        PMIX_JOB_STATE_SUSPENDED => c"SUSPENDED",
        PMIX_JOB_STATE_CONNECTED => c"CONNECTED",
        PMIX_JOB_STATE_UNTERMINATED => c"UNTERMINATED",
        PMIX_JOB_STATE_TERMINATED => c"TERMINATED",
        PMIX_JOB_STATE_TERMINATED_WITH_ERROR => c"TERMINATED WITH ERROR",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Link_state_string`.
pub fn link_state_string(state: pmix_link_state_t) -> &'static CStr {
    match state {
        PMIX_LINK_DOWN => c"INACTIVE",
        PMIX_LINK_UP => c"ACTIVE",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Device_type_string`: despite the flag-like values, only a single defined bit
/// is named; zero, combinations and unknown bits all read "UNKNOWN".
pub fn device_type_string(ty: pmix_device_type_t) -> &'static CStr {
    match ty {
        PMIX_DEVTYPE_BLOCK => c"BLOCK",
        PMIX_DEVTYPE_GPU => c"GPU",
        PMIX_DEVTYPE_NETWORK => c"NETWORK",
        PMIX_DEVTYPE_OPENFABRICS => c"OPENFABRICS",
        PMIX_DEVTYPE_DMA => c"DMA",
        PMIX_DEVTYPE_COPROC => c"COPROCESSOR",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Value_comparison_string`.
pub fn value_comparison_string(cmp: pmix_value_cmp_t) -> &'static CStr {
    match cmp {
        PMIX_EQUAL => c"EQUAL",
        PMIX_VALUE1_GREATER => c"VALUE1 GREATER",
        PMIX_VALUE2_GREATER => c"VALUE2 GREATER",
        PMIX_VALUE_TYPE_DIFFERENT => c"DIFFERENT TYPES",
        PMIX_VALUE_INCOMPATIBLE_OBJECTS => c"INCOMPATIBLE OBJECTS",
        PMIX_VALUE_COMPARISON_NOT_AVAIL => c"COMPARISON NOT AVAILABLE",
        _ => c"UNKNOWN VALUE",
    }
}

/// Text of `PMIx_Info_directives_string` (the C function returns it malloc'd).
///
/// A qualifier reads "QUALIFIER" whatever else is set. Otherwise "REQUIRED" or
/// "OPTIONAL", then ":PROCESSED" and ":END" when those bits are set. Other bits
/// (`PMIX_INFO_PERSISTENT`, the reserved range) do not show.
pub fn info_directives_string(directives: pmix_info_directives_t) -> CString {
    use crate::flags::Directives;
    let directives = Directives::from(directives);
    if directives.contains(Directives::QUALIFIER) {
        return c"QUALIFIER".to_owned();
    }
    let required = directives.contains(Directives::REQUIRED);
    let mut text = String::from(if required { "REQUIRED" } else { "OPTIONAL" });
    if directives.contains(Directives::PROCESSED) {
        text.push_str(":PROCESSED");
    }
    if directives.contains(Directives::ARRAY_END) {
        text.push_str(":END");
    }
    CString::new(text).expect("no NUL in directive names")
}

/// What PMIX_QUERY_STABLE_ABI_VERSION and _PROVISIONAL_ABI_VERSION answer
/// (OpenPMIx 4.2's value, as in VERSION below: these ABI levels are not
/// defined yet).
pub const ABI_VERSION: &str = "0.0";

/// `PMIx_Get_version`: names rpmix, its version (from Cargo.toml) and the PMIx
/// Standard level it implements. Open MPI only checks that the first character
/// is >= '3'.
pub const VERSION: &CStr = match CStr::from_bytes_with_nul(
    concat!(
        "rpmix ",
        env!("CARGO_PKG_VERSION"),
        " (PMIx Standard: 4.2, Stable ABI: 0.0, Provisional ABI: 0.0; ABI of OpenPMIx 4.2.2)\0"
    )
    .as_bytes(),
) {
    Ok(v) => v,
    Err(_) => panic!("version string"),
};

/// `PMIx_Get_attribute_string`: the key string of an attribute macro name
/// (`"PMIX_JOB_SIZE"` -> `"pmix.job.size"`).
pub fn attribute_string(name: &[u8]) -> Option<&'static CStr> {
    crate::abi::all_attribute_keys().find(|(n, _)| n.to_bytes() == name).map(|(_, k)| k)
}

/// `PMIx_Get_attribute_name`: the macro name of a key string. Where several
/// macros share one key (e.g. PMIX_QUERY_QUALIFIERS and
/// PMIX_QUERY_SUPPORTED_QUALIFIERS), the first defined wins.
pub fn attribute_name(key: &[u8]) -> Option<&'static CStr> {
    crate::abi::all_attribute_keys().find(|(_, k)| k.to_bytes() == key).map(|(n, _)| n)
}

/// Bytes as lowercase hex, two digits each (debug output).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name, value)` of every listed constant.
    macro_rules! named {
        ($($c:ident),* $(,)?) => { &[$((stringify!($c), $c)),*] };
    }

    /// Every `pmix_status_t` constant of `abi::constants` and `abi::deprecated`.
    #[rustfmt::skip]
    const ALL_STATUS: &[(&str, pmix_status_t)] = named![
        PMIX_SUCCESS, PMIX_ERROR, PMIX_ERR_PROC_RESTART, PMIX_ERR_PROC_CHECKPOINT,
        PMIX_ERR_PROC_MIGRATE, PMIX_ERR_EXISTS, PMIX_ERR_INVALID_CRED, PMIX_ERR_WOULD_BLOCK,
        PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_TYPE_MISMATCH, PMIX_ERR_UNPACK_INADEQUATE_SPACE,
        PMIX_ERR_UNPACK_FAILURE, PMIX_ERR_PACK_FAILURE, PMIX_ERR_NO_PERMISSIONS, PMIX_ERR_TIMEOUT,
        PMIX_ERR_UNREACH, PMIX_ERR_BAD_PARAM, PMIX_ERR_RESOURCE_BUSY, PMIX_ERR_OUT_OF_RESOURCE,
        PMIX_ERR_INIT, PMIX_ERR_NOMEM, PMIX_ERR_NOT_FOUND, PMIX_ERR_NOT_SUPPORTED,
        PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED, PMIX_ERR_COMM_FAILURE,
        PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES,
        PMIX_ERR_PARTIAL_SUCCESS, PMIX_ERR_DUPLICATE_KEY, PMIX_ERR_EMPTY, PMIX_ERR_LOST_CONNECTION,
        PMIX_ERR_EXISTS_OUTSIDE_SCOPE, PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE,
        PMIX_DEBUGGER_RELEASE, PMIX_READY_FOR_DEBUG, PMIX_QUERY_PARTIAL_SUCCESS,
        PMIX_JCTRL_CHECKPOINT, PMIX_JCTRL_CHECKPOINT_COMPLETE, PMIX_JCTRL_PREEMPT_ALERT,
        PMIX_MONITOR_HEARTBEAT_ALERT, PMIX_MONITOR_FILE_ALERT, PMIX_PROC_TERMINATED,
        PMIX_ERR_EVENT_REGISTRATION, PMIX_MODEL_DECLARED, PMIX_MODEL_RESOURCES,
        PMIX_OPENMP_PARALLEL_ENTERED, PMIX_OPENMP_PARALLEL_EXITED, PMIX_LAUNCHER_READY,
        PMIX_OPERATION_IN_PROGRESS, PMIX_OPERATION_SUCCEEDED, PMIX_ERR_INVALID_OPERATION,
        PMIX_GROUP_INVITED, PMIX_GROUP_LEFT, PMIX_GROUP_INVITE_ACCEPTED,
        PMIX_GROUP_INVITE_DECLINED, PMIX_GROUP_INVITE_FAILED, PMIX_GROUP_MEMBERSHIP_UPDATE,
        PMIX_GROUP_CONSTRUCT_ABORT, PMIX_GROUP_CONSTRUCT_COMPLETE, PMIX_GROUP_LEADER_SELECTED,
        PMIX_GROUP_LEADER_FAILED, PMIX_GROUP_CONTEXT_ID_ASSIGNED, PMIX_GROUP_MEMBER_FAILED,
        PMIX_ERR_REPEAT_ATTR_REGISTRATION, PMIX_ERR_IOF_FAILURE, PMIX_ERR_IOF_COMPLETE,
        PMIX_LAUNCH_COMPLETE, PMIX_FABRIC_UPDATED, PMIX_FABRIC_UPDATE_PENDING,
        PMIX_FABRIC_UPDATE_ENDPOINTS, PMIX_ERR_JOB_APP_NOT_EXECUTABLE,
        PMIX_ERR_JOB_NO_EXE_SPECIFIED, PMIX_ERR_JOB_FAILED_TO_MAP, PMIX_ERR_JOB_CANCELED,
        PMIX_ERR_JOB_FAILED_TO_LAUNCH, PMIX_ERR_JOB_ABORTED, PMIX_ERR_JOB_KILLED_BY_CMD,
        PMIX_ERR_JOB_ABORTED_BY_SIG, PMIX_ERR_JOB_TERM_WO_SYNC, PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED,
        PMIX_ERR_JOB_NON_ZERO_TERM, PMIX_ERR_JOB_ALLOC_FAILED, PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT,
        PMIX_ERR_JOB_EXE_NOT_FOUND, PMIX_ERR_JOB_WDIR_NOT_FOUND,
        PMIX_ERR_JOB_INSUFFICIENT_RESOURCES, PMIX_ERR_JOB_SYS_OP_FAILED, PMIX_EVENT_JOB_START,
        PMIX_EVENT_JOB_END, PMIX_EVENT_SESSION_START, PMIX_EVENT_SESSION_END,
        PMIX_ERR_PROC_REQUESTED_ABORT, PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_EVENT_PROC_TERMINATED,
        PMIX_ERR_PROC_KILLED_BY_CMD, PMIX_ERR_PROC_FAILED_TO_START, PMIX_ERR_PROC_ABORTED_BY_SIG,
        PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED, PMIX_ERR_EXIT_NONZERO_TERM, PMIX_EVENT_SYS_BASE,
        PMIX_EVENT_NODE_DOWN, PMIX_EVENT_NODE_OFFLINE, PMIX_EVENT_SYS_OTHER,
        PMIX_EVENT_NO_ACTION_TAKEN, PMIX_EVENT_PARTIAL_ACTION_TAKEN, PMIX_EVENT_ACTION_DEFERRED,
        PMIX_EVENT_ACTION_COMPLETE, PMIX_EXTERNAL_ERR_BASE,
        PMIX_ERR_SILENT, PMIX_ERR_DEBUGGER_RELEASE, PMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTING,
        PMIX_ERR_SERVER_FAILED_REQUEST, PMIX_EXISTS, PMIX_ERR_HANDSHAKE_FAILED,
        PMIX_ERR_READY_FOR_HANDSHAKE, PMIX_ERR_PROC_ENTRY_NOT_FOUND, PMIX_ERR_PACK_MISMATCH,
        PMIX_ERR_IN_ERRNO, PMIX_ERR_DATA_VALUE_NOT_FOUND, PMIX_ERR_INVALID_ARG,
        PMIX_ERR_INVALID_KEY, PMIX_ERR_INVALID_KEY_LENGTH, PMIX_ERR_INVALID_VAL,
        PMIX_ERR_INVALID_VAL_LENGTH, PMIX_ERR_INVALID_LENGTH, PMIX_ERR_INVALID_NUM_ARGS,
        PMIX_ERR_INVALID_ARGS, PMIX_ERR_INVALID_NUM_PARSED, PMIX_ERR_INVALID_KEYVALP,
        PMIX_ERR_INVALID_SIZE, PMIX_ERR_INVALID_NAMESPACE, PMIX_ERR_SERVER_NOT_AVAIL,
        PMIX_ERR_NOT_IMPLEMENTED, PMIX_DEBUG_WAITING_FOR_NOTIFY, PMIX_ERR_FATAL,
        PMIX_ERR_NOT_AVAILABLE, PMIX_ERR_VALUE_OUT_OF_BOUNDS, PMIX_ERR_FILE_OPEN_FAILURE,
        PMIX_ERR_FILE_READ_FAILURE, PMIX_ERR_FILE_WRITE_FAILURE, PMIX_ERR_SYS_LIMITS_PIPES,
        PMIX_ERR_SYS_LIMITS_CHILDREN, PMIX_ERR_PIPE_SETUP_FAILURE, PMIX_ERR_EXE_NOT_ACCESSIBLE,
        PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE, PMIX_ERR_SYS_LIMITS_FILES,
        PMIX_ERR_LOST_CONNECTION_TO_SERVER, PMIX_ERR_LOST_PEER_CONNECTION,
        PMIX_ERR_LOST_CONNECTION_TO_CLIENT, PMIX_NOTIFY_ALLOC_COMPLETE,
        PMIX_ERR_INVALID_TERMINATION, PMIX_ERR_JOB_TERMINATED, PMIX_ERR_UPDATE_ENDPOINTS,
        PMIX_GDS_ACTION_COMPLETE, PMIX_PROC_HAS_CONNECTED, PMIX_CONNECT_REQUESTED,
        PMIX_ERR_NODE_DOWN, PMIX_ERR_NODE_OFFLINE, PMIX_ERR_SYS_BASE, PMIX_ERR_SYS_OTHER,
    ];

    /// Constants of the headers that OpenPMIx 4.2.2 itself does not name (measured).
    const UNNAMED_BY_REFERENCE: &[pmix_status_t] = &[
        PMIX_PROCESS_SET_DELETE,
        PMIX_ERR_SYS_LIMITS_FILES,
        PMIX_ERR_LOST_CONNECTION_TO_SERVER,
        PMIX_ERR_LOST_PEER_CONNECTION,
        PMIX_ERR_LOST_CONNECTION_TO_CLIENT,
        PMIX_MODEL_RESOURCES,
        PMIX_EXTERNAL_ERR_BASE,
    ];

    #[test]
    fn every_status_constant_is_named_like_the_reference() {
        assert_eq!(ALL_STATUS.len(), 162);
        for &(name, rc) in ALL_STATUS {
            let unknown = error_string(rc) == UNKNOWN_ERROR;
            assert_eq!(unknown, UNNAMED_BY_REFERENCE.contains(&rc), "{name} ({rc})");
            assert_eq!(error_name(rc).as_bytes(), error_string(rc).to_bytes());
        }
    }

    #[test]
    fn error_strings_match_measurements() {
        let cases: &[(pmix_status_t, &CStr)] = &[
            (PMIX_SUCCESS, c"SUCCESS"),
            (PMIX_ERROR, c"ERROR"),
            (PMIX_ERR_SILENT, c"SILENT_ERROR"),
            (PMIX_ERR_PROC_RESTART, c"PROC_RESTART"),
            (PMIX_ERR_EXISTS, c"EXISTS"),
            (PMIX_ERR_NOT_FOUND, c"NOT-FOUND"),
            (PMIX_READY_FOR_DEBUG, c"READY-FOR-DEBUG"),
            (PMIX_ERR_LOST_CONNECTION, c"LOST_CONNECTION"),
            (PMIX_NOTIFY_ALLOC_COMPLETE, c"PMIX ALLOC OPERATION COMPLETE"),
            (PMIX_EVENT_JOB_END, c"JOB ENDED"),
            (PMIX_ERR_JOB_TERMINATED, c"JOB ENDED"),
            (PMIX_EVENT_SYS_OTHER, c"UNDEFINED-SYSTEM-EVENT"),
            (PMIX_ERR_EXIT_NONZERO_TERM, c"PROC-EXIT-NONZERO-TERM"),
            (-1366, c"TAKE-NEXT-OPTION"),
            (i32::MIN, c"PMIX_ERR_WILDCARD"),
            (1, UNKNOWN_ERROR),
            (-54, UNKNOWN_ERROR),
            (-100_000, UNKNOWN_ERROR),
            (i32::MAX, UNKNOWN_ERROR),
        ];
        for &(rc, want) in cases {
            assert_eq!(error_string(rc), want, "{rc}");
        }
        assert_eq!(error_name(PMIX_ERR_TIMEOUT), "TIMEOUT");
    }

    #[test]
    fn enum_strings_match_measurements() {
        assert_eq!(
            proc_state_string(PMIX_PROC_STATE_TERM_WO_SYNC),
            c"PROC TERMINATED WITHOUT CALLING PMIx_Finalize"
        );
        assert_eq!(proc_state_string(7), c"UNKNOWN STATE");
        assert_eq!(scope_string(PMIX_GLOBAL), c"SHARE ACROSS ALL NODES");
        assert_eq!(scope_string(255), c"UNKNOWN SCOPE");
        assert_eq!(persistence_string(PMIX_PERSIST_INVALID), c"INVALID");
        assert_eq!(persistence_string(5), c"UNKNOWN PERSISTENCE");
        assert_eq!(
            data_range_string(PMIX_RANGE_PROC_LOCAL),
            c"AVAIL ON LOCAL PROC ONLY"
        );
        assert_eq!(data_range_string(8), c"UNKNOWN");
        assert_eq!(alloc_directive_string(PMIX_ALLOC_REAQUIRE), c"REACQUIRE");
        assert_eq!(alloc_directive_string(PMIX_ALLOC_EXTERNAL), c"UNSPECIFIED");
        assert_eq!(
            job_state_string(PMIX_JOB_STATE_AWAITING_ALLOC),
            c"PREPPED FOR LAUNCH"
        );
        assert_eq!(job_state_string(6), c"UNKNOWN");
        assert_eq!(link_state_string(PMIX_LINK_STATE_UNKNOWN), c"UNKNOWN");
        assert_eq!(link_state_string(PMIX_LINK_UP), c"ACTIVE");
        assert_eq!(
            value_comparison_string(PMIX_VALUE_TYPE_DIFFERENT),
            c"DIFFERENT TYPES"
        );
        assert_eq!(value_comparison_string(-1), c"UNKNOWN VALUE");
    }

    #[test]
    fn data_type_strings_match_measurements() {
        assert_eq!(data_type_string(PMIX_UNDEF), c"UNKNOWN");
        assert_eq!(data_type_string(PMIX_BOOL), c"PMIX_BOOL");
        assert_eq!(data_type_string(PMIX_BUFFER), c"PMIX_BUFFER");
        assert_eq!(data_type_string(29), c"PMIX_MODEX");
        assert_eq!(
            data_type_string(PMIX_STOR_ACCESS_TYPE),
            c"PMIX_STOR_ACCESS_TYPE"
        );
        assert_eq!(data_type_string(70), c"UNKNOWN");
        assert_eq!(data_type_string(PMIX_DATA_TYPE_MAX), c"UNKNOWN");
        assert_eq!(
            data_type_string_uninitialized(PMIX_UNDEF),
            c"NOT INITIALIZED"
        );
        assert_eq!(
            data_type_string_uninitialized(PMIX_DATA_BUFFER),
            c"PMIX_DATA_BUFFER"
        );
        assert_eq!(
            data_type_string_uninitialized(PMIX_LOCTYPE),
            c"NOT INITIALIZED"
        );
        assert_eq!(
            data_type_string_uninitialized(PMIX_STOR_MEDIUM),
            c"NOT INITIALIZED"
        );
        // Every type constant has a name once initialized.
        for ty in 1..=PMIX_STOR_ACCESS_TYPE {
            assert!(
                data_type_string(ty).to_bytes().starts_with(b"PMIX_"),
                "{ty}"
            );
        }
    }

    #[test]
    fn flag_strings_match_measurements() {
        assert_eq!(iof_channel_string(PMIX_FWD_NO_CHANNELS), c"NONE");
        assert_eq!(iof_channel_string(PMIX_FWD_STDERR_CHANNEL), c"STDERR ");
        assert_eq!(
            iof_channel_string(PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDDIAG_CHANNEL),
            c"STDOUT STDDIAG "
        );
        assert_eq!(
            iof_channel_string(PMIX_FWD_ALL_CHANNELS),
            c"STDIN STDOUT STDERR STDDIAG "
        );
        assert_eq!(iof_channel_string(0x0010), c"NONE");
        assert_eq!(device_type_string(PMIX_DEVTYPE_COPROC), c"COPROCESSOR");
        assert_eq!(device_type_string(PMIX_DEVTYPE_UNKNOWN), c"UNKNOWN");
        assert_eq!(
            device_type_string(PMIX_DEVTYPE_BLOCK | PMIX_DEVTYPE_GPU),
            c"UNKNOWN"
        );
        assert_eq!(device_type_string(1 << 32 | PMIX_DEVTYPE_GPU), c"UNKNOWN");
    }

    #[test]
    fn info_directive_strings_match_measurements() {
        let cases: &[(pmix_info_directives_t, &CStr)] = &[
            (0, c"OPTIONAL"),
            (PMIX_INFO_REQD, c"REQUIRED"),
            (PMIX_INFO_ARRAY_END, c"OPTIONAL:END"),
            (
                PMIX_INFO_REQD | PMIX_INFO_REQD_PROCESSED,
                c"REQUIRED:PROCESSED",
            ),
            (
                PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END,
                c"OPTIONAL:PROCESSED:END",
            ),
            (PMIX_INFO_QUALIFIER | PMIX_INFO_REQD, c"QUALIFIER"),
            (PMIX_INFO_PERSISTENT, c"OPTIONAL"),
            (PMIX_INFO_DIR_RESERVED | PMIX_INFO_REQD, c"REQUIRED"),
            (u32::MAX, c"QUALIFIER"),
        ];
        for &(dir, want) in cases {
            assert_eq!(info_directives_string(dir).as_c_str(), want, "{dir:#x}");
        }
    }
}

