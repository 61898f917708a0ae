//! Argument vectors and environments: OpenPMIx 5's argv functions and
//! PMIx_Setenv.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_int, c_void, CStr};
use core::mem::size_of;
use core::ptr;

use crate::abi::*;
use crate::cmem;

/// Size of one argv slot.
const SLOT: usize = size_of::<*mut c_char>();

/// Append the malloc'd string `s` to the malloc'd argv `*argv` (NULL: a new one),
/// taking it over.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_OUT_OF_RESOURCE (then `s` is freed and `*argv` is
/// left as it was).
///
/// # Safety
/// `*argv` is NULL or a malloc'd NULL-terminated array; `s` is malloc'd and non-NULL.
unsafe fn argv_push(argv: &mut *mut *mut c_char, s: *mut c_char) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above; the new array has n + 2 slots.
    unsafe {
        let n = cmem::argv_len(*argv);
        let Some(bytes) = n.checked_add(2).and_then(|k| k.checked_mul(SLOT)) else {
            cmem::free(s);
            return PMIX_ERR_OUT_OF_RESOURCE;
        };
        let grown = libc::realloc(*argv as *mut c_void, bytes) as *mut *mut c_char;
        if grown.is_null() {
            cmem::free(s);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        *grown.add(n) = s;
        *grown.add(n + 1) = ptr::null_mut();
        *argv = grown;
        PMIX_SUCCESS
    }
}

/// The fields of `s` between the bytes equal to `delim` (compared as C compares a `char`
/// with an `int`); empty fields are kept only when `keep_empty`, and a delimiter at the
/// very end starts no field.
fn split_fields(s: &[u8], delim: c_int, keep_empty: bool) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| c_int::from(b as c_char) == delim).unwrap_or(rest.len());
        if end > 0 || keep_empty {
            out.push(&rest[..end]);
        }
        rest = rest.get(end + 1..).unwrap_or(&[]);
    }
    out
}

/// Count the entries of a NULL-terminated argv.
///
/// Returns the number of entries before the NULL; 0 for a NULL `argv`.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of pointers.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_count(argv: *mut *mut c_char) -> c_int {
    entry!("PMIx_Argv_count", { c_int::try_from(cmem::argv_len(argv)).unwrap_or(c_int::MAX) })
}

/// Append a copy of `arg` to the argv `*argv`, creating it when `*argv` is NULL.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `argv` or `arg`;
/// PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_append_nosize", {
        require!("PMIx_Argv_append_nosize", !argv.is_null() && !arg.is_null());
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *argv, s)
    })
}

/// Insert a copy of `arg` at the front of the argv `*argv`, creating it when NULL.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `argv` or `arg`;
/// PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_prepend_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_prepend_nosize", {
        require!("PMIx_Argv_prepend_nosize", !argv.is_null() && !arg.is_null());
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        let st = argv_push(&mut *argv, s);
        if st == PMIX_SUCCESS {
            let a = *argv;
            let n = cmem::argv_len(a);
            // SAFETY: `a` has n entries, the new one last: shift the others up one and
            // put it first (`copy` allows the overlap).
            ptr::copy(a, a.add(1), n - 1);
            *a = s;
        }
        st
    })
}

/// Append a copy of `arg` to the argv `*argv` unless an equal string is already there.
///
/// Returns PMIX_SUCCESS (also when `arg` was present); PMIX_ERR_BAD_PARAM for a NULL
/// `argv` or `arg`; PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_unique_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_append_unique_nosize", {
        require!("PMIx_Argv_append_unique_nosize", !argv.is_null() && !arg.is_null());
        let a = *argv;
        let want = CStr::from_ptr(arg);
        for i in 0..cmem::argv_len(a) {
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            if CStr::from_ptr(*a.add(i)) == want {
                return PMIX_SUCCESS;
            }
        }
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *argv, s)
    })
}

/// Free an argv: each string, then the array.
///
/// Returns nothing; a NULL `argv` is ignored.
///
/// # Safety
/// `argv` is NULL or a malloc'd NULL-terminated array of malloc'd strings, not used
/// after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_free(argv: *mut *mut c_char) {
    entry!("PMIx_Argv_free", { cmem::argv_free(argv) })
}

/// Split `src_string` at each `delimiter` into a new argv (empties if `include_empty`).
///
/// Returns a malloc'd argv (free with PMIx_Argv_free), empty fields kept only when
/// `include_empty` (a delimiter at the very end never adds one); NULL when there is no
/// field (NULL or empty `src_string`) or when out of memory.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_inter(src_string: *const c_char, delimiter: c_int, include_empty: bool) -> *mut *mut c_char {
    entry!("PMIx_Argv_split_inter", {
        let Some(s) = cmem::cstr_bytes(src_string) else { return ptr::null_mut() };
        let fields = split_fields(s, delimiter, include_empty);
        if fields.is_empty() {
            return ptr::null_mut();
        }
        cmem::argv_from(&fields)
    })
}

/// Split `src_string` at each `delimiter` into a new argv, keeping empty fields.
///
/// Returns as PMIx_Argv_split_inter with `include_empty` true.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_with_empty(src_string: *const c_char, delimiter: c_int) -> *mut *mut c_char {
    // SAFETY: the same contract.
    unsafe { PMIx_Argv_split_inter(src_string, delimiter, true) }
}

/// Split `src_string` at each `delimiter` into a new argv, dropping empty fields.
///
/// Returns as PMIx_Argv_split_inter with `include_empty` false.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split(src_string: *const c_char, delimiter: c_int) -> *mut *mut c_char {
    // SAFETY: the same contract.
    unsafe { PMIx_Argv_split_inter(src_string, delimiter, false) }
}

/// Join the entries of an argv into one string, `delimiter` (as a `char`) between them.
///
/// Returns a malloc'd string the caller frees: "" for a NULL or empty `argv`; NULL only
/// when out of memory.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_join(argv: *mut *mut c_char, delimiter: c_int) -> *mut c_char {
    entry!("PMIx_Argv_join", {
        let mut out = Vec::new();
        for i in 0..cmem::argv_len(argv) {
            if i > 0 {
                out.push(delimiter as u8);
            }
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            out.extend_from_slice(CStr::from_ptr(*argv.add(i)).to_bytes());
        }
        cmem::strdup_bytes(&out)
    })
}

/// Deep-copy an argv.
///
/// Returns a malloc'd argv (free with PMIx_Argv_free; an empty `argv` gives an array
/// holding only the NULL); NULL for a NULL `argv` or when out of memory.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_copy(argv: *mut *mut c_char) -> *mut *mut c_char {
    entry!("PMIx_Argv_copy", {
        if argv.is_null() {
            return ptr::null_mut();
        }
        let mut items: Vec<&[u8]> = Vec::new();
        for i in 0..cmem::argv_len(argv) {
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            items.push(CStr::from_ptr(*argv.add(i)).to_bytes());
        }
        cmem::argv_from(&items)
    })
}

/// Longest value PMIx_Setenv accepts (as our PMIX_SETENV macro): a value with no NUL
/// within this many bytes is refused rather than read on.
const SETENV_VALUE_MAX: usize = 100_000;

/// Edit the live process environment (what PMIx_Setenv does when handed `environ`),
/// under the standard library's environment lock so our own threads never read it
/// half-written.
fn set_process_env(name: &[u8], value: Option<&[u8]>, overwrite: bool) -> pmix_status_t {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    if name.is_empty() || name.contains(&b'=') {
        // setenv(3) refuses these too (EINVAL); std would panic.
        crate::pmix_debug!(1, "PMIx_Setenv: bad environment variable name");
        return PMIX_ERR_BAD_PARAM;
    }
    let key = OsStr::from_bytes(name);
    match value {
        None => std::env::remove_var(key),
        Some(v) => {
            if overwrite || std::env::var_os(key).is_none() {
                std::env::set_var(key, OsStr::from_bytes(v));
            }
        }
    }
    PMIX_SUCCESS
}

/// Set `name=value` in the environment array `*env`, or in the live one for `environ`.
///
/// Returns PMIX_SUCCESS (an entry for `name` is replaced only when `overwrite`);
/// PMIX_ERR_EXISTS when `name` is set in `*env` and `overwrite` is false (for
/// `environ`: PMIX_SUCCESS, value kept, as setenv(3)); PMIX_ERR_BAD_PARAM for a NULL
/// `name` or `env`, a `value` with no NUL in its first 100000 bytes, or (for `environ`)
/// an empty `name` or one holding '='; PMIX_ERR_OUT_OF_RESOURCE. A NULL `value` stores
/// "name=" in an array and unsets `name` in `environ`.
///
/// # Safety
/// `name` is NULL or NUL-terminated; `value` is NULL or readable up to its NUL or 100000
/// bytes; `env` is NULL, `&environ`, or points to `environ`'s value, to NULL, or to a
/// malloc'd NULL-terminated array of malloc'd strings (it may be moved).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Setenv(name: *const c_char, value: *const c_char, overwrite: bool, env: *mut *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_Setenv", {
        require!("PMIx_Setenv", !name.is_null() && !env.is_null());
        let name = CStr::from_ptr(name).to_bytes();
        let value = if value.is_null() {
            None
        } else {
            let n = libc::strnlen(value, SETENV_VALUE_MAX);
            require!("PMIx_Setenv", n < SETENV_VALUE_MAX);
            // SAFETY: `n` bytes before the NUL were just found readable.
            Some(core::slice::from_raw_parts(value as *const u8, n))
        };
        let live = ptr::addr_of_mut!(libc::environ);
        // SAFETY: reading the libc `environ` pointer (its address is always valid).
        let current = live.read();
        if env == live || (!(*env).is_null() && *env == current) {
            return set_process_env(name, value, overwrite);
        }
        let entry = [name, b"=".as_slice(), value.unwrap_or_default()].concat();
        let prefix = &entry[..name.len() + 1];
        let arr = *env;
        for i in 0..cmem::argv_len(arr) {
            let slot = arr.add(i);
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            if !CStr::from_ptr(*slot).to_bytes().starts_with(prefix) {
                continue;
            }
            if !overwrite {
                return PMIX_ERR_EXISTS;
            }
            let s = cmem::strdup_bytes(&entry);
            if s.is_null() {
                return PMIX_ERR_OUT_OF_RESOURCE;
            }
            // SAFETY: the old entry is a malloc'd string of the array (contract).
            cmem::free(*slot);
            *slot = s;
            return PMIX_SUCCESS;
        }
        let s = cmem::strdup_bytes(&entry);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *env, s)
    })
}
