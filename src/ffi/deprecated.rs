//! Exported functions of `pmix_deprecated.h (data utilities also declared for older callers)`.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the core
//! modules. Functions later issues implement answer `PMIX_ERR_NOT_SUPPORTED`.
#![allow(non_snake_case, unused_variables)]

#[allow(unused_imports)]
use core::ffi::{c_char, c_int, c_void};

use crate::abi::*;

/// Switch an initialised tool to the server named in `info`, leaving its previous primary
/// server.
///
/// Returns PMIX_SUCCESS with `*proc` set to the tool's name; PMIX_ERR_INIT when not
/// initialised; PMIX_ERR_NOMEM; PMIX_ERR_BAD_PARAM, PMIX_ERR_UNREACH or PMIX_ERR_TIMEOUT
/// when the server cannot be found or reached.
///
/// # Safety
/// `proc` is NULL or writable; `info` is NULL or points to `ninfo` valid infos; must not be
/// called from one of this library's callbacks.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_connect_to_server(proc: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_tool_connect_to_server", {
        // Switch: leave the current server (if another), attach to the named one.
        let Ok(infos) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let old = crate::client::connected_server();
        match crate::tool::attach(&infos, true) {
            Ok((me, srv)) => {
                if let Some(o) = old.filter(|o| *o != srv) {
                    let _ = crate::client::disconnect_tool(&o);
                }
                if let Some(p) = proc.as_mut() {
                    *p = me.to_c();
                }
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Store a copy of `data`, of type `type_`, in `val`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `val`; PMIX_ERR_UNKNOWN_DATA_TYPE;
/// PMIX_ERR_NOMEM. A NULL `data` gives an empty value (true for PMIX_BOOL).
///
/// # Safety
/// `val` is NULL or writable, treated as uninitialised (old contents are not freed); `data`
/// is NULL or, for PMIX_STRING, the string itself, otherwise a pointer to one valid element
/// of `type_`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(val: *mut pmix_value_t, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Value_load", {
        require!("PMIx_Value_load", !val.is_null());
        crate::data::value::load(&mut *val, data, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Copy the contents of `val` out to the caller.
///
/// Returns PMIX_SUCCESS with `*sz` set: strings and byte objects come back in a malloc'd
/// `*data` the caller frees; other types are copied into the storage `*data` points to.
/// PMIX_ERR_BAD_PARAM for a NULL argument or NULL `*data` with a fixed-size type;
/// PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `val` is NULL or a valid value; `data` and `sz` are NULL or writable; for fixed-size
/// types `*data` points to storage big enough for one element.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(val: *mut pmix_value_t, data: *mut *mut c_void, sz: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Value_unload", {
        require!("PMIx_Value_unload", !val.is_null() && !data.is_null() && !sz.is_null());
        crate::data::value::unload(&*val, data, &mut *sz).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Release what a value holds (not the value itself).
///
/// Returns nothing; afterwards `*val` is PMIX_UNDEF. A NULL `val` is ignored.
///
/// # Safety
/// `val` is NULL or a valid value, not used after as anything but storage.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    // SAFETY: the caller upholds the contract above: `val` is NULL or a valid value, not used after as anything but storage.
    unsafe {
        // The fast path cannot panic (a match on the type, a libc free, no
        // Rust allocation or indexing), so it needs no guard: one would cost
        // as much as the path itself (measured with make bench).
        if val.as_mut().is_some_and(|v| crate::data::value::destruct_fast(v)) {
            return;
        }
        entry!("PMIx_Value_destruct", {
            if let Some(v) = val.as_mut() {
                crate::data::value::destruct(v);
            }
        })
    }
}

/// Deep-copy `src` into `dest`, which is treated as uninitialised (its old contents are not
/// freed).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when either pointer is NULL;
/// PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` is NULL or writable value storage; `src` NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(dest: *mut pmix_value_t, src: *const pmix_value_t) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `dest` is NULL or writable value storage; `src` NULL or a valid value.
    unsafe {
        // The fast path cannot panic (a match on the type, a bitwise copy or
        // a libc strdup: no Rust allocation, no indexing), so it needs no
        // guard: with one, Value_xfer(int) took 7.2 ns instead of 5.0 (make bench).
        if let (Some(d), Some(s)) = (dest.as_mut(), src.as_ref()) {
            if let Some(rc) = crate::data::value::xfer_fast(d, s) {
                return rc;
            }
        }
        status_entry!("PMIx_Value_xfer", {
            require!("PMIx_Value_xfer", !dest.is_null() && !src.is_null());
            crate::data::value::xfer(&mut *dest, &*src, 0).err().unwrap_or(PMIX_SUCCESS)
        })
    }
}

/// Compare two values: their types first, then their contents.
///
/// Returns PMIX_EQUAL, PMIX_VALUE1_GREATER or PMIX_VALUE2_GREATER;
/// PMIX_VALUE_TYPE_DIFFERENT when the types differ; PMIX_VALUE_COMPARISON_NOT_AVAIL for a
/// NULL pointer or an unknown type.
///
/// # Safety
/// `v1` and `v2` are each NULL or a valid value (neither is changed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(v1: *mut pmix_value_t, v2: *mut pmix_value_t) -> pmix_value_cmp_t {
    entry!("PMIx_Value_compare", {
        match (v1.as_ref(), v2.as_ref()) {
            (Some(a), Some(b)) => crate::data::compare::compare(a, b),
            _ => PMIX_VALUE_COMPARISON_NOT_AVAIL,
        }
    })
}

/// Free the elements and storage of a data array, not the array struct itself.
///
/// Returns nothing; afterwards the array is empty (NULL storage, size 0). A NULL `d` is
/// ignored, and an array of impossible size is left alone.
///
/// # Safety
/// `d` is NULL or a valid (possibly zeroed) data array whose storage this library or malloc
/// made.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    entry!("PMIx_Data_array_destruct", {
        if let Some(d) = d.as_mut() {
            crate::data::elem::destruct_darray(d);
        }
    })
}

/// Fill `info` with `key` and a copy of `data`, of type `type_`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `info` or `key` or a key longer than
/// PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `info` is NULL or writable, treated as uninitialised; `key` is NULL or NUL-terminated;
/// `data` is as for PMIx_Value_load.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(info: *mut pmix_info_t, key: *const c_char, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Info_load", {
        require!("PMIx_Info_load", !info.is_null() && !key.is_null());
        crate::data::info_load(&mut *info, key, data, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Deep-copy `src` (key, directives and value) into `dest`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when either pointer is NULL;
/// PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` is NULL or writable, treated as uninitialised; `src` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(dest: *mut pmix_info_t, src: *const pmix_info_t) -> pmix_status_t {
    status_entry!("PMIx_Info_xfer", {
        require!("PMIx_Info_xfer", !dest.is_null() && !src.is_null());
        crate::data::info_xfer(&mut *dest, &*src).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Create an empty, growable list of infos and return its opaque handle.
///
/// Returns the new handle, to be released once with PMIx_Info_list_release; NULL only on an
/// internal failure.
///
/// # Safety
/// No pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    entry!("PMIx_Info_list_start", { crate::data::infolist::start() })
}

/// Append a new info, made of `key` and a copy of `value`, to a list.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `key` is NULL
/// or too long; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `key` is NULL or
/// NUL-terminated; `value` is as `data` for PMIx_Value_load.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(ptr: *mut c_void, key: *const c_char, value: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add", {
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.add(key, value, type_).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Append the caller's own info to a list, without copying it.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `info` is
/// NULL.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `info` is NULL or
/// a valid info that stays valid until the list is converted and released (the list never
/// frees it).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(ptr: *mut c_void, info: *mut pmix_info_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_insert", {
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.insert(info).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Append a deep copy of `info` to a list.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `info` is
/// NULL; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `info` is NULL or
/// a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer(ptr: *mut c_void, info: *const pmix_info_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_xfer", {
        require!("PMIx_Info_list_xfer", !info.is_null());
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.xfer(&*info).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Deep-copy a list's infos into a PMIX_INFO data array; the list itself is kept.
///
/// Returns PMIX_SUCCESS with `*par` owning the copies (free with PMIx_Data_array_destruct);
/// PMIX_ERR_EMPTY for an empty list; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or
/// `par` is NULL; PMIX_ERR_NOMEM or a copy error.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `par` is NULL or writable, treated as empty.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_convert(ptr: *mut c_void, par: *mut pmix_data_array_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_convert", {
        require!("PMIx_Info_list_convert", !par.is_null());
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.convert(&mut *par).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Free a list and the copies it made (infos added by PMIx_Info_list_insert stay the
/// caller's).
///
/// Returns nothing; a NULL handle is ignored.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; it must not be
/// used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    entry!("PMIx_Info_list_release", { crate::data::infolist::release(ptr) })
}

