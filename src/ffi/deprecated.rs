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

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(val: *mut pmix_value_t, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Value_load", {
        require!("PMIx_Value_load", !val.is_null());
        crate::data::value::load(&mut *val, data, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(val: *mut pmix_value_t, data: *mut *mut c_void, sz: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Value_unload", {
        require!("PMIx_Value_unload", !val.is_null() && !data.is_null() && !sz.is_null());
        crate::data::value::unload(&*val, data, &mut *sz).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    // SAFETY: as for PMIx_Value_xfer's fast path.
    if let Some(v) = val.as_mut() {
        if crate::data::value::destruct_fast(v) {
            return;
        }
    }
    entry!("PMIx_Value_destruct", {
        if let Some(v) = val.as_mut() {
            crate::data::value::destruct(v);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(dest: *mut pmix_value_t, src: *const pmix_value_t) -> pmix_status_t {
    // SAFETY: non-NULL pointers from the caller; the fast path cannot panic.
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

#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(v1: *mut pmix_value_t, v2: *mut pmix_value_t) -> pmix_value_cmp_t {
    entry!("PMIx_Value_compare", {
        match (v1.as_ref(), v2.as_ref()) {
            (Some(a), Some(b)) => crate::data::value::compare(a, b),
            _ => PMIX_VALUE_COMPARISON_NOT_AVAIL,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    entry!("PMIx_Data_array_destruct", {
        if let Some(d) = d.as_mut() {
            crate::data::elem::destruct_darray(d);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(info: *mut pmix_info_t, key: *const c_char, data: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Info_load", {
        require!("PMIx_Info_load", !info.is_null() && !key.is_null());
        crate::data::info_load(&mut *info, key, data, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(dest: *mut pmix_info_t, src: *const pmix_info_t) -> pmix_status_t {
    status_entry!("PMIx_Info_xfer", {
        require!("PMIx_Info_xfer", !dest.is_null() && !src.is_null());
        crate::data::info_xfer(&mut *dest, &*src).err().unwrap_or(PMIX_SUCCESS)
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    entry!("PMIx_Info_list_start", { crate::data::infolist::start() })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(ptr: *mut c_void, key: *const c_char, value: *const c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add", {
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.add(key, value, type_).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(ptr: *mut c_void, info: *mut pmix_info_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_insert", {
        match crate::data::infolist::get(ptr) {
            Ok(l) => l.insert(info).err().unwrap_or(PMIX_SUCCESS),
            Err(e) => e,
        }
    })
}

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

#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    entry!("PMIx_Info_list_release", { crate::data::infolist::release(ptr) })
}

