//! `pmix_value_t` operations: load, unload, transfer, destruct (and their
//! panic-free fast paths), and a value's truth (PMIx_Value_true).
//!
//! A value holds its element either inside the union (`Kind::inline_in_value`)
//! or through a pointer to one separately allocated element. Copying and
//! destroying a value recurses through elements (infos and arrays hold values),
//! so that part lives with the element walk in `elem.rs`; it is re-exported
//! here under its value names. Comparison is `compare.rs`, byte objects
//! `byteobj.rs` (`bo_slice` re-exported here).

use core::ffi::{c_char, c_void};
use core::ptr;

use super::elem;
use crate::status::Res;
use super::kind::Kind;
use crate::abi::*;
use crate::cmem;

pub use super::byteobj::bo_slice;
pub use super::elem::{destruct_value as destruct, load_value as load_elem, value_payload as elem_ptr, xfer_value as xfer};

/// `PMIx_Value_load` semantics: for PMIX_STRING and PMIX_REGEX, `data` is the
/// `char *` itself, and for PMIX_POINTER the pointer itself (as OpenPMIx stores it: the
/// `PMIX_INFO_LOAD(&i, PMIX_EVENT_RETURN_OBJECT, &obj, PMIX_POINTER)` of its
/// examples hands back `&obj`); for every other type it points at the element.
///
/// # Safety
/// As `load_elem`, with the PMIX_STRING convention above.
pub unsafe fn load(v: &mut pmix_value_t, data: *const c_void, t: pmix_data_type_t) -> Res {
    // SAFETY: the caller upholds the contract above: As `load_elem`, with the PMIX_STRING convention above.
    unsafe {
        if t == PMIX_STRING {
            let s = data as *const c_char;
            return load_elem(v, &s as *const *const c_char as *const u8, t, 0);
        }
        if t == PMIX_POINTER {
            return load_elem(v, &data as *const *const c_void as *const u8, t, 0);
        }
        if t == PMIX_REGEX {
            // A regex is handed over as its `char *` (OpenPMIx copies the
            // string, NUL included, into the value's byte object).
            let s = data as *const c_char;
            let size = if s.is_null() { 0 } else { libc::strlen(s) + 1 };
            let bo = pmix_byte_object_t { bytes: s as *mut c_char, size };
            return load_elem(v, &bo as *const pmix_byte_object_t as *const u8, t, 0);
        }
        load_elem(v, data as *const u8, t, 0)
    }
}

/// The hot cases of `xfer` (numbers, strings), written so that they cannot
/// panic: the C entry runs them without the panic boundary. None = not a
/// hot case, take the general path.
///
/// # Safety
/// `src` is a valid value.
#[inline]
pub unsafe fn xfer_fast(dst: &mut pmix_value_t, src: &pmix_value_t) -> Option<pmix_status_t> {
    // SAFETY: the caller upholds the contract above: `src` is a valid value.
    unsafe {
        match src.r#type {
            PMIX_STRING => {
                let s = src.data.string;
                let d = if s.is_null() { ptr::null_mut() } else { libc::strdup(s) };
                if !s.is_null() && d.is_null() {
                    return Some(PMIX_ERR_NOMEM);
                }
                dst.data.string = d;
                dst.r#type = PMIX_STRING;
                Some(PMIX_SUCCESS)
            }
            t => match Kind::of(t) {
                Some(Kind::Num(_)) => {
                    dst.data = src.data;
                    dst.r#type = t;
                    Some(PMIX_SUCCESS)
                }
                _ => None,
            },
        }
    }
}

/// The hot cases of `destruct` (numbers, strings), panic-free like `xfer_fast`.
///
/// # Safety
/// `v` is a valid value.
#[inline]
pub unsafe fn destruct_fast(v: &mut pmix_value_t) -> bool {
    // SAFETY: the caller upholds the contract above: `v` is a valid value.
    unsafe {
        match v.r#type {
            PMIX_STRING => {
                cmem::free(v.data.string);
                v.data.string = ptr::null_mut();
            }
            t => match Kind::of(t) {
                Some(Kind::Num(_)) => {}
                _ => return false,
            },
        }
        v.r#type = PMIX_UNDEF;
        true
    }
}

/// `PMIx_Value_unload`: strings and byte objects come back in new memory
/// (`*data` = malloc'd copy, `*sz` = length); every other type is copied into
/// the caller's storage at `*data`, which must be large enough (`*sz` = size).
///
/// # Safety
/// `data` is valid; for non-allocating types `*data` points to writable storage.
pub unsafe fn unload(v: &pmix_value_t, data: *mut *mut c_void, sz: &mut usize) -> Res {
    // SAFETY: the caller upholds the contract above: `data` is valid; for non-allocating types `*data` points to writable storage.
    unsafe {
        let kind = Kind::of(v.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        match v.r#type {
            PMIX_STRING => {
                let s = v.data.string;
                *data = cmem::strdup_opt(s) as *mut c_void;
                *sz = if s.is_null() { 0 } else { libc::strlen(s) };
                Ok(())
            }
            PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_REGEX | PMIX_COMPRESSED_BYTE_OBJECT => {
                let bytes = bo_slice(&v.data.bo)?;
                *data = ptr::null_mut();
                *sz = 0;
                if !bytes.is_empty() {
                    let p = cmem::dup_bytes(bytes);
                    if p.is_null() {
                        return Err(PMIX_ERR_NOMEM);
                    }
                    *data = p as *mut c_void;
                    *sz = bytes.len();
                }
                Ok(())
            }
            _ => {
                if (*data).is_null() {
                    return Err(PMIX_ERR_BAD_PARAM);
                }
                let src = elem_ptr(v, kind);
                if src.is_null() {
                    ptr::write_bytes(*data as *mut u8, 0, kind.size());
                } else {
                    elem::copy(kind, *data as *mut u8, src, 0)?;
                }
                *sz = kind.size();
                Ok(())
            }
        }
    }
}

/// Whether `s` starts with `word`, ignoring ASCII case.
fn starts_nocase(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// The boolean reading of a value, as PMIX_CHECK_TRUE / PMIx_Value_true.
///
/// # Safety
/// `v` is a valid value.
pub unsafe fn truth(v: &pmix_value_t) -> pmix_boolean_t {
    // SAFETY: the caller upholds the contract above: the union is read as the
    // member its type names (a flag as its byte, never as a Rust bool), and a
    // string is NUL-terminated.
    unsafe {
        match v.r#type {
            PMIX_UNDEF => PMIX_BOOL_TRUE,
            PMIX_BOOL if v.data.byte != 0 => PMIX_BOOL_TRUE,
            PMIX_BOOL => PMIX_BOOL_FALSE,
            PMIX_STRING if v.data.string.is_null() => PMIX_BOOL_TRUE,
            PMIX_STRING => {
                let all = core::ffi::CStr::from_ptr(v.data.string).to_bytes();
                // C isspace in the "C" locale: space, \t, \n, \v, \f, \r.
                let skip = all.iter().take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).count();
                let s = &all[skip..];
                match s.first() {
                    None => PMIX_BOOL_TRUE,
                    Some(c) if c.is_ascii_digit() => {
                        if libc::atoi(v.data.string.add(skip)) == 0 {
                            PMIX_BOOL_FALSE
                        } else {
                            PMIX_BOOL_TRUE
                        }
                    }
                    _ if starts_nocase(s, b"yes") || starts_nocase(s, b"true") => PMIX_BOOL_TRUE,
                    _ if starts_nocase(s, b"no") || starts_nocase(s, b"false") => PMIX_BOOL_FALSE,
                    _ => PMIX_NON_BOOL,
                }
            }
            _ => PMIX_NON_BOOL,
        }
    }
}
