//! Integer constants kept by pmix_deprecated.h for older callers.
//!
//! Values are facts of the PMIx ABI (OpenPMIx 4.2.2 `pmix_deprecated.h`); cbindgen turns each
//! into a `#define` of the generated header.
#![allow(non_upper_case_globals)]

use super::types::*;
#[allow(unused_imports)]
use core::ffi::{c_int, c_long};

pub const PMIX_BUFFER: pmix_data_type_t = 26;
pub const PMIX_ERR_SILENT: pmix_status_t = -2;
pub const PMIX_ERR_DEBUGGER_RELEASE: pmix_status_t = -3;
pub const PMIX_ERR_PROC_ABORTED: pmix_status_t = -7;
pub const PMIX_ERR_PROC_ABORTING: pmix_status_t = -9;
pub const PMIX_ERR_SERVER_FAILED_REQUEST: pmix_status_t = -10;
pub const PMIX_EXISTS: pmix_status_t = -11;
pub const PMIX_ERR_HANDSHAKE_FAILED: pmix_status_t = -13;
pub const PMIX_ERR_READY_FOR_HANDSHAKE: pmix_status_t = -14;
pub const PMIX_ERR_PROC_ENTRY_NOT_FOUND: pmix_status_t = -17;
pub const PMIX_ERR_PACK_MISMATCH: pmix_status_t = -22;
pub const PMIX_ERR_IN_ERRNO: pmix_status_t = -26;
pub const PMIX_ERR_DATA_VALUE_NOT_FOUND: pmix_status_t = -30;
pub const PMIX_ERR_INVALID_ARG: pmix_status_t = -33;
pub const PMIX_ERR_INVALID_KEY: pmix_status_t = -34;
pub const PMIX_ERR_INVALID_KEY_LENGTH: pmix_status_t = -35;
pub const PMIX_ERR_INVALID_VAL: pmix_status_t = -36;
pub const PMIX_ERR_INVALID_VAL_LENGTH: pmix_status_t = -37;
pub const PMIX_ERR_INVALID_LENGTH: pmix_status_t = -38;
pub const PMIX_ERR_INVALID_NUM_ARGS: pmix_status_t = -39;
pub const PMIX_ERR_INVALID_ARGS: pmix_status_t = -40;
pub const PMIX_ERR_INVALID_NUM_PARSED: pmix_status_t = -41;
pub const PMIX_ERR_INVALID_KEYVALP: pmix_status_t = -42;
pub const PMIX_ERR_INVALID_SIZE: pmix_status_t = -43;
pub const PMIX_ERR_INVALID_NAMESPACE: pmix_status_t = -44;
pub const PMIX_ERR_SERVER_NOT_AVAIL: pmix_status_t = -45;
pub const PMIX_ERR_NOT_IMPLEMENTED: pmix_status_t = -48;
pub const PMIX_DEBUG_WAITING_FOR_NOTIFY: pmix_status_t = -58;
pub const PMIX_ERR_FATAL: pmix_status_t = -63;
pub const PMIX_ERR_NOT_AVAILABLE: pmix_status_t = -64;
pub const PMIX_ERR_VALUE_OUT_OF_BOUNDS: pmix_status_t = -65;
pub const PMIX_ERR_FILE_OPEN_FAILURE: pmix_status_t = -67;
pub const PMIX_ERR_FILE_READ_FAILURE: pmix_status_t = -68;
pub const PMIX_ERR_FILE_WRITE_FAILURE: pmix_status_t = -69;
pub const PMIX_ERR_SYS_LIMITS_PIPES: pmix_status_t = -70;
pub const PMIX_ERR_SYS_LIMITS_CHILDREN: pmix_status_t = -71;
pub const PMIX_ERR_PIPE_SETUP_FAILURE: pmix_status_t = -72;
pub const PMIX_ERR_EXE_NOT_ACCESSIBLE: pmix_status_t = -73;
pub const PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE: pmix_status_t = -74;
pub const PMIX_ERR_SYS_LIMITS_FILES: pmix_status_t = -75;
pub const PMIX_ERR_LOST_CONNECTION_TO_SERVER: pmix_status_t = -101;
pub const PMIX_ERR_LOST_PEER_CONNECTION: pmix_status_t = -102;
pub const PMIX_ERR_LOST_CONNECTION_TO_CLIENT: pmix_status_t = -103;
pub const PMIX_NOTIFY_ALLOC_COMPLETE: pmix_status_t = -105;
pub const PMIX_ERR_INVALID_TERMINATION: pmix_status_t = -112;
pub const PMIX_ERR_JOB_TERMINATED: pmix_status_t = -145;
pub const PMIX_ERR_UPDATE_ENDPOINTS: pmix_status_t = -146;
pub const PMIX_GDS_ACTION_COMPLETE: pmix_status_t = -148;
pub const PMIX_PROC_HAS_CONNECTED: pmix_status_t = -149;
pub const PMIX_CONNECT_REQUESTED: pmix_status_t = -150;
pub const PMIX_ERR_NODE_DOWN: pmix_status_t = -231;
pub const PMIX_ERR_NODE_OFFLINE: pmix_status_t = -232;
pub const PMIX_ERR_SYS_BASE: pmix_status_t = -230;
pub const PMIX_ERR_SYS_OTHER: pmix_status_t = -330;
pub const PMIX_JOB_STATE_PREPPED: pmix_job_state_t = 1;
