//! Infos and values, OpenPMIx 5's helpers: info directives (required,
//! optional, processed, end, qualifier, persistent), truth of a value or info,
//! packed sizes, and the info list functions newer than 4.2.2.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};
use core::mem::size_of;
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::infolist;
use crate::ffi::boundary::store;
use super::data_names::{fixed_bytes, rc};

/// A key argument of the list calls: at most PMIX_MAX_KEYLEN bytes before its NUL; None
/// for NULL or a longer key (rejected, as PMIx_Info_list_add does).
///
/// # Safety
/// `key` is NULL or readable up to its NUL or PMIX_MAX_KEYLEN + 1 bytes.
unsafe fn list_key<'a>(key: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above.
    let k = unsafe { cmem::bounded_cstr(key, PMIX_MAX_KEYLEN + 1) }?;
    (k.len() <= PMIX_MAX_KEYLEN).then_some(k)
}

/// Append `key` with a copy of `value` to a list unless the key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, its first
/// entry takes a copy of `value` (keeping its flags), else it is left alone;
/// PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `key` is NULL or longer than
/// PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On failure the list is
/// unchanged. An overwrite turns infos added with PMIx_Info_list_insert into the list's
/// own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `key` is NULL or NUL-terminated; `value` is as `data` for
/// PMIx_Value_load.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    overwrite: bool,
) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_unique", {
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_unique: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        match infolist::find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.add(key, value, type_)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => {
                let mut v: pmix_value_t = core::mem::zeroed();
                if let Err(e) = crate::data::value::load(&mut v, value, type_) {
                    return e;
                }
                let r = infolist::replace_value(l, &snap, at, &v);
                crate::data::value::destruct(&mut v);
                rc(r)
            }
        }
    })
}

/// A shallow info of `key` (at most PMIX_MAX_KEYLEN bytes) and `value`: a view for
/// `InfoList::xfer` to deep-copy, owning nothing.
fn view(key: &[u8], value: &pmix_value_t) -> pmix_info_t {
    let mut k = [0 as c_char; PMIX_MAX_KEYLEN + 1];
    cmem::load_fixed(&mut k, key);
    pmix_info_t { key: k, flags: 0, value: *value }
}

/// Append `key` with a deep copy of the value `value` to a list.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list, `value` is
/// NULL or `key` is NULL or longer than PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE;
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `key` is NULL
/// or NUL-terminated; `value` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value(ptr: *mut c_void, key: *const c_char, value: *const pmix_value_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_value", {
        require!("PMIx_Info_list_add_value", !value.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_value: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        rc(l.xfer(&view(k, &*value)))
    })
}

/// Append `key` with a deep copy of `value` to a list unless the key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, its first
/// entry takes a copy of `value` (keeping its flags), else it is left alone;
/// PMIX_ERR_BAD_PARAM when `ptr` is not a live list, `value` is NULL or `key` is NULL
/// or longer than PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On
/// failure the list is unchanged. An overwrite turns infos added with
/// PMIx_Info_list_insert into the list's own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `key` is NULL or NUL-terminated; `value` is NULL or a valid
/// value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
    overwrite: bool,
) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_value_unique", {
        require!("PMIx_Info_list_add_value_unique", !value.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_value_unique: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        match infolist::find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(&view(k, &*value))),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(infolist::replace_value(l, &snap, at, &*value)),
        }
    })
}

/// Append a deep copy of `info` to a list unless its key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, the first
/// entry with that key takes a copy of `info`'s value (keeping its own flags), else it
/// is left alone; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `info` is NULL;
/// PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On failure the list is unchanged. An
/// overwrite turns infos added with PMIx_Info_list_insert into the list's own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer_unique(ptr: *mut c_void, info: *const pmix_info_t, overwrite: bool) -> pmix_status_t {
    status_entry!("PMIx_Info_list_xfer_unique", {
        require!("PMIx_Info_list_xfer_unique", !info.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let src = &*info;
        match infolist::find_key(l, fixed_bytes(&src.key, PMIX_MAX_KEYLEN)) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(src)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(infolist::replace_value(l, &snap, at, &src.value)),
        }
    })
}

/// Set a directive bit of an info (the PMIx_Info_required family).
///
/// # Safety
/// `p` is NULL or a valid info.
unsafe fn set_flag(name: &str, p: *mut pmix_info_t, bit: pmix_info_directives_t) {
    null_check!(name, p);
    // SAFETY: the caller upholds the contract above; `p` is not NULL.
    unsafe { (*p).flags |= bit };
}

/// Whether a directive bit of an info is set (false for NULL).
///
/// # Safety
/// `p` is NULL or a valid info.
unsafe fn has_flag(name: &str, p: *const pmix_info_t, bit: pmix_info_directives_t) -> bool {
    null_check!(name, p => false);
    // SAFETY: the caller upholds the contract above; `p` is not NULL.
    unsafe { (*p).flags & bit != 0 }
}

/// Mark an info as required: the receiver must honour it or fail the call.
///
/// Returns nothing; sets PMIX_INFO_REQD. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_required(p: *mut pmix_info_t) {
    entry!("PMIx_Info_required", { set_flag("PMIx_Info_required", p, PMIX_INFO_REQD) })
}

/// Mark an info as optional: the receiver may ignore it.
///
/// Returns nothing; clears PMIX_INFO_REQD. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_optional(p: *mut pmix_info_t) {
    entry!("PMIx_Info_optional", {
        null_check!("PMIx_Info_optional", p);
        (*p).flags &= !PMIX_INFO_REQD;
    })
}

/// Tell whether an info is marked required.
///
/// Returns true when PMIX_INFO_REQD is set; false otherwise or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_required(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_is_required", { has_flag("PMIx_Info_is_required", p, PMIX_INFO_REQD) })
}

/// Tell whether an info is optional (not marked required).
///
/// Returns true when PMIX_INFO_REQD is clear; false when it is set or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_optional(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_is_optional", {
        null_check!("PMIx_Info_is_optional", p => false);
        (*p).flags & PMIX_INFO_REQD == 0
    })
}

/// Mark a required info as processed.
///
/// Returns nothing; sets PMIX_INFO_REQD_PROCESSED. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_processed(p: *mut pmix_info_t) {
    entry!("PMIx_Info_processed", { set_flag("PMIx_Info_processed", p, PMIX_INFO_REQD_PROCESSED) })
}

/// Tell whether an info is marked processed.
///
/// Returns true when PMIX_INFO_REQD_PROCESSED is set; false otherwise or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_was_processed(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_was_processed", { has_flag("PMIx_Info_was_processed", p, PMIX_INFO_REQD_PROCESSED) })
}

/// Mark an info as the last of its array.
///
/// Returns nothing; sets PMIX_INFO_ARRAY_END. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_set_end(p: *mut pmix_info_t) {
    entry!("PMIx_Info_set_end", { set_flag("PMIx_Info_set_end", p, PMIX_INFO_ARRAY_END) })
}

/// Tell whether an info is marked as the last of its array.
///
/// Returns true when PMIX_INFO_ARRAY_END is set; false otherwise or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_end(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_is_end", { has_flag("PMIx_Info_is_end", p, PMIX_INFO_ARRAY_END) })
}

/// Mark an info as a qualifier of the info before it.
///
/// Returns nothing; sets PMIX_INFO_QUALIFIER. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_qualifier(p: *mut pmix_info_t) {
    entry!("PMIx_Info_qualifier", { set_flag("PMIx_Info_qualifier", p, PMIX_INFO_QUALIFIER) })
}

/// Tell whether an info is marked as a qualifier.
///
/// Returns true when PMIX_INFO_QUALIFIER is set; false otherwise or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_qualifier(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_is_qualifier", { has_flag("PMIx_Info_is_qualifier", p, PMIX_INFO_QUALIFIER) })
}

/// Mark an info as persistent: its destruct and free leave its value alone.
///
/// Returns nothing; sets PMIX_INFO_PERSISTENT. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_persistent(p: *mut pmix_info_t) {
    entry!("PMIx_Info_persistent", { set_flag("PMIx_Info_persistent", p, PMIX_INFO_PERSISTENT) })
}

/// Tell whether an info is marked persistent.
///
/// Returns true when PMIX_INFO_PERSISTENT is set; false otherwise or for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_persistent(p: *const pmix_info_t) -> bool {
    entry!("PMIx_Info_is_persistent", { has_flag("PMIx_Info_is_persistent", p, PMIX_INFO_PERSISTENT) })
}

/// Whether `s` starts with `word` (lower case), ignoring ASCII case.
/// Read a value as a boolean: PMIX_BOOL, or a string such as "yes", "true", "no", "false"
/// or a number (0 is false).
///
/// Returns PMIX_BOOL_TRUE or PMIX_BOOL_FALSE; PMIX_BOOL_TRUE for PMIX_UNDEF (a bare key),
/// a NULL or blank string; PMIX_NON_BOOL for any other type or text, and for a NULL `v`.
///
/// # Safety
/// `v` is NULL or a valid value (a string one NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_true(v: *const pmix_value_t) -> pmix_boolean_t {
    entry!("PMIx_Value_true", {
        null_check!("PMIx_Value_true", v => Some(PMIX_NON_BOOL));
        Some(crate::data::value::truth(&*v))
    })
    .unwrap_or(PMIX_NON_BOOL)
}

/// Read an info's value as a boolean, as PMIx_Value_true does.
///
/// Returns PMIX_BOOL_TRUE, PMIX_BOOL_FALSE or PMIX_NON_BOOL as PMIx_Value_true does;
/// PMIX_NON_BOOL for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_true(p: *const pmix_info_t) -> pmix_boolean_t {
    entry!("PMIx_Info_true", {
        null_check!("PMIx_Info_true", p => Some(PMIX_NON_BOOL));
        Some(crate::data::value::truth(&(*p).value))
    })
    .unwrap_or(PMIX_NON_BOOL)
}

/// Compute how many bytes a value takes: the `pmix_value_t` plus its payload (a
/// string's characters and NUL, an array's elements, what a struct points to).
///
/// Returns PMIX_SUCCESS with `*size` set; PMIX_ERR_BAD_PARAM for a NULL argument, a count
/// no memory could hold or nesting deeper than 32 levels; PMIX_ERR_UNKNOWN_DATA_TYPE for
/// PMIX_UNDEF or an unknown type anywhere inside; PMIX_ERR_NOT_SUPPORTED for a CPU set or
/// topology another library made. `*size` is left alone on failure.
///
/// # Safety
/// `val` is NULL or a valid value (its strings NUL-terminated, its arrays holding their
/// counts); `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_get_size(val: *const pmix_value_t, size: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Value_get_size", {
        require!("PMIx_Value_get_size", !val.is_null() && !size.is_null());
        match crate::data::size::value_size(&*val, 0) {
            Ok(n) => {
                *size = n;
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Compute how many bytes an info takes: the `pmix_info_t`, its key with its NUL, and
/// its value as PMIx_Value_get_size counts it.
///
/// Returns PMIX_SUCCESS with `*size` set; otherwise the errors of PMIx_Value_get_size
/// (PMIX_ERR_BAD_PARAM for a NULL argument). `*size` is left alone on failure.
///
/// # Safety
/// `val` is NULL or a valid info (its value as for PMIx_Value_get_size); `size` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_get_size(val: *const pmix_info_t, size: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Info_get_size", {
        require!("PMIx_Info_get_size", !val.is_null() && !size.is_null());
        let info = &*val;
        match crate::data::size::value_size(&info.value, 0) {
            Ok(n) => {
                *size = n.saturating_add(crate::data::size::key_size(&info.key)).saturating_add(size_of::<pmix_info_t>());
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Put a new info, made of `key` and a copy of `value`, at the front of a list.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `key` is
/// NULL or too long; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `key` is NULL or
/// NUL-terminated; `value` is as `data` for PMIx_Value_load.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_prepend(ptr: *mut c_void, key: *const c_char, value: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_prepend", {
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.prepend(key, value, type_).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Step through the infos of a list: `prev` NULL gives the first, and `*next` the
/// cursor for the following call (NULL after the last).
///
/// Returns the info (the list's copy, or the caller's own for PMIx_Info_list_insert),
/// with `*next` set when another follows; NULL, with `*next` NULL, past the end, for an
/// empty list, or when `ptr` is not a live list (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `prev` is NULL
/// or a cursor this function returned for that list; `next` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_get_info(ptr: *mut c_void, prev: *mut c_void, next: *mut *mut c_void) -> *mut pmix_info_t {
    entry!("PMIx_Info_list_get_info", {
        store(next, ptr::null_mut());
        let Ok(l) = crate::data::infolist::get(ptr) else {
            crate::pmix_debug!(1, "PMIx_Info_list_get_info: bad parameter: not a live list");
            return ptr::null_mut();
        };
        // A cursor is the position of the info it names plus one, so never NULL.
        let at = if prev.is_null() { 0 } else { prev as usize - 1 };
        let Some(info) = l.info_at(at) else {
            return ptr::null_mut();
        };
        if l.info_at(at + 1).is_some() {
            store(next, (at + 2) as *mut c_void);
        }
        info
    })
}
