//! Printable forms and names (`pmix.h`): status, state, scope, type and
//! attribute strings, infos and values as text; OpenPMIx 5's error codes by
//! name, proc and app strings; and `pmix_framework_names`, the one data
//! symbol (not a function) Open MPI 5 reads.
#![allow(non_snake_case, unused_variables)]

use core::ffi::c_char;
use core::ptr;

use crate::abi::*;
use crate::abi::status_names::STATUS_NAMES;
use crate::cmem;

/// Name the status code `status` (unknown codes get a fixed "not found" text).
///
/// Returns a static string the caller must not free.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    entry!("PMIx_Error_string", { crate::strings::error_string(status).as_ptr() })
}

/// Name the process state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_state_string(state: pmix_proc_state_t) -> *const c_char {
    entry!("PMIx_Proc_state_string", { crate::strings::proc_state_string(state).as_ptr() })
}

/// Name the data scope `scope`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Scope_string(scope: pmix_scope_t) -> *const c_char {
    entry!("PMIx_Scope_string", { crate::strings::scope_string(scope).as_ptr() })
}

/// Name the persistence `persist`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Persistence_string(persist: pmix_persistence_t) -> *const c_char {
    entry!("PMIx_Persistence_string", { crate::strings::persistence_string(persist).as_ptr() })
}

/// Name the data range `range`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_range_string(range: pmix_data_range_t) -> *const c_char {
    entry!("PMIx_Data_range_string", { crate::strings::data_range_string(range).as_ptr() })
}

/// Name the data type `type_`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    entry!("PMIx_Data_type_string", { crate::strings::data_type_string(type_).as_ptr() })
}

/// Name the allocation directive `directive`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) -> *const c_char {
    entry!("PMIx_Alloc_directive_string", { crate::strings::alloc_directive_string(directive).as_ptr() })
}

/// Name the IO-forwarding channel set `channel`.
///
/// Returns a static string the caller must not free.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    entry!("PMIx_IOF_channel_string", { crate::strings::iof_channel_string(channel).as_ptr() })
}

/// Name the job state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_state_string(state: pmix_job_state_t) -> *const c_char {
    entry!("PMIx_Job_state_string", { crate::strings::job_state_string(state).as_ptr() })
}

/// Map an attribute's macro name (e.g. "PMIX_JOB_SIZE") to its key string
/// ("pmix.job.size").
///
/// Returns a static string the caller must not free, or NULL for a NULL or unknown name.
///
/// # Safety
/// `attribute` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_string", {
        match crate::cmem::cstr_bytes(attribute) {
            Some(name) => crate::strings::attribute_string(name).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

/// Map an attribute key string (e.g. "pmix.job.size") to its macro name ("PMIX_JOB_SIZE").
///
/// Returns a static string the caller must not free, or NULL for a NULL or unknown key.
///
/// # Safety
/// `attrstring` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    entry!("PMIx_Get_attribute_name", {
        match crate::cmem::cstr_bytes(attrstring) {
            Some(key) => crate::strings::attribute_name(key).map_or(core::ptr::null(), |s| s.as_ptr()),
            None => core::ptr::null(),
        }
    })
}

/// Name the link state `state`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Link_state_string(state: pmix_link_state_t) -> *const c_char {
    entry!("PMIx_Link_state_string", { crate::strings::link_state_string(state).as_ptr() })
}

/// Name the device type `type_`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    entry!("PMIx_Device_type_string", { crate::strings::device_type_string(type_).as_ptr() })
}

/// Name the value comparison result `cmp`.
///
/// Returns a static string the caller must not free (unknown values get a generic text).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) -> *const c_char {
    entry!("PMIx_Value_comparison_string", { crate::strings::value_comparison_string(cmp).as_ptr() })
}

/// Render `info` (key, directives, value) as readable text.
///
/// Returns a malloc'd string the caller frees, or NULL for a NULL `info` or when out of
/// memory.
///
/// # Safety
/// `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    entry!("PMIx_Info_string", {
        match info.as_ref() {
            Some(i) => crate::cmem::strdup_bytes(crate::data::print::info_text(i).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

/// Render `value` (type and contents) as readable text.
///
/// Returns a malloc'd string the caller frees, or NULL for a NULL `value` or when out of
/// memory.
///
/// # Safety
/// `value` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    entry!("PMIx_Value_string", {
        match value.as_ref() {
            Some(v) => crate::cmem::strdup_bytes(crate::data::print::value_text(v).as_bytes()),
            None => core::ptr::null_mut(),
        }
    })
}

/// Spell out the info directive flags in `directives` (e.g. "REQUIRED:PROCESSED").
///
/// Returns a malloc'd string the caller frees (NULL only when out of memory).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_directives_string(directives: pmix_info_directives_t) -> *mut c_char {
    entry!("PMIx_Info_directives_string", {
        crate::cmem::strdup_bytes(crate::strings::info_directives_string(directives).to_bytes())
    })
}

/// What PMIx_Error_code answers for a name it does not know (INT32_MIN).
const NO_SUCH_STATUS: pmix_status_t = pmix_status_t::MIN;

/// The lowest status code a name can stand for (OpenPMIx's internal codes end above it).
pub(super) const LOWEST_NAMED_STATUS: pmix_status_t = -2000;

/// Longest status name PMIx_Error_code reads; no known name comes near it.
const STATUS_NAME_MAX: usize = 256;

/// The status code named `name`, compared ignoring ASCII case: a constant's name, as
/// OpenPMIx 5 matches it, else the text our PMIx_Error_string gives a code (OpenPMIx
/// 4.2.2's, e.g. "BAD-PARAM"), so that the two round-trip.
pub(super) fn status_code(name: &[u8]) -> pmix_status_t {
    if let Some(&(_, code)) = STATUS_NAMES.iter().find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name)) {
        return code;
    }
    (LOWEST_NAMED_STATUS..=0)
        .rev()
        .find(|&code| {
            let text = crate::strings::error_string(code);
            text != crate::strings::UNKNOWN_ERROR && text.to_bytes().eq_ignore_ascii_case(name)
        })
        .unwrap_or(NO_SUCH_STATUS)
}

/// Look up the status code whose name is `errname` (ignoring case).
///
/// Returns the code of the constant so named (e.g. "PMIX_ERR_BAD_PARAM"), or of the text
/// PMIx_Error_string gives it (e.g. "BAD-PARAM"); INT32_MIN for an unknown name or NULL.
///
/// # Safety
/// `errname` is NULL or readable up to its NUL or 256 bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_code(errname: *const c_char) -> pmix_status_t {
    entry!("PMIx_Error_code", {
        let Some(name) = cmem::bounded_cstr(errname, STATUS_NAME_MAX) else {
            crate::pmix_debug!(1, "PMIx_Error_code: NULL name");
            return NO_SUCH_STATUS;
        };
        status_code(name)
    })
}

/// Render a process identifier as "[nspace,rank]", special ranks by name ("WILDCARD").
///
/// Returns a malloc'd string the caller frees ("[NO-NAME]" for a NULL `proc`); NULL only
/// when out of memory.
///
/// # Safety
/// `proc` is NULL or a readable `pmix_proc_t` (its namespace is read no further than its
/// array, terminated or not).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_string(proc: *const pmix_proc_t) -> *mut c_char {
    entry!("PMIx_Proc_string", { cmem::strdup_bytes(&crate::data::print::proc_string(proc.as_ref())) })
}

/// Render an application description as readable text, one field per line.
///
/// Returns a malloc'd string the caller frees (command, argv, environment, working
/// directory, maxprocs and infos, one per line); NULL for a NULL `app` (logged) or when
/// out of memory.
///
/// # Safety
/// `app` is NULL or a readable `pmix_app_t` whose `cmd` and `cwd` are each NULL or
/// NUL-terminated, whose `argv` and `env` are each NULL or NULL-terminated arrays of
/// strings, and whose `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_string(app: *const pmix_app_t) -> *mut c_char {
    entry!("PMIx_App_string", {
        let Some(app) = app.as_ref() else {
            crate::pmix_debug!(1, "PMIx_App_string: NULL app");
            return ptr::null_mut();
        };
        cmem::strdup_bytes(&crate::data::print::app_string(app))
    })
}

/// `char *pmix_framework_names[]`: a NULL-terminated array of C strings, laid out as C
/// lays out the array (one pointer per entry).
#[repr(transparent)]
pub struct FrameworkNames(pub [*const c_char; 17]);

// SAFETY: every entry points to a static, immutable string literal (or is NULL) and the
// array is never written, so sharing it between threads is sound.
unsafe impl Sync for FrameworkNames {}

/// OpenPMIx 5.0.7's MCA framework names, then "mca", then NULL (Open MPI 5 reads it).
///
/// The one non-function symbol this library exports.
/// OpenPMIx generates this array (autogen.pl, from its src/mca directories) and exports
/// it; it is not part of the PMIx API. Open MPI 5's libopen-pal refers to it: when a job
/// is launched directly (no PRRTE), opal/mca/pmix/base/pmix_base_fns.c translates
/// OMPI_MCA_<framework>_* environment variables and mca-params.conf entries into
/// PMIX_MCA_* ones for the names listed here (PRRTE's schizo does the same). Without the
/// symbol, libopen-pal.so.80 does not load ("undefined symbol: pmix_framework_names").
/// rpmix reads no PMIX_MCA_* variables, so the list only keeps Open MPI's translation as
/// it is with OpenPMIx.
///
/// # Safety
/// Read-only for C: it lives in memory made read-only after relocation, so a write
/// faults. Its 17 slots (16 names and the NULL) match OpenPMIx 5.0.7's array in size.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static pmix_framework_names: FrameworkNames = FrameworkNames([
    c"bfrops".as_ptr(),
    c"gds".as_ptr(),
    c"pcompress".as_ptr(),
    c"pdl".as_ptr(),
    c"pif".as_ptr(),
    c"pinstalldirs".as_ptr(),
    c"plog".as_ptr(),
    c"pmdl".as_ptr(),
    c"pnet".as_ptr(),
    c"preg".as_ptr(),
    c"psec".as_ptr(),
    c"psensor".as_ptr(),
    c"psquash".as_ptr(),
    c"pstat".as_ptr(),
    c"ptl".as_ptr(),
    c"mca".as_ptr(),
    ptr::null(),
]);
