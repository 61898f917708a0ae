//! Infos and values, OpenPMIx 5's helpers: info directives (required,
//! optional, processed, end, qualifier, persistent), truth of a value or info,
//! packed sizes, and the info list functions newer than 4.2.2.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};
use core::mem::size_of;
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::elem;
use crate::data::infolist::{self, InfoList};
use crate::data::kind::Kind;
use crate::data::value;
use crate::ffi::boundary::{slice, store};
use crate::status::Res;
use super::data_names::{fixed_bytes, rc};
use super::data_objects::key_bytes;

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

/// A deep copy of a list's infos (PMIx_Info_list_convert), freed on drop.
pub(super) struct Snapshot(pmix_data_array_t);

impl Snapshot {
    /// # Safety
    /// The infos inserted into `l` (PMIx_Info_list_insert) are still valid.
    pub(super) unsafe fn of(l: &InfoList) -> Res<Snapshot> {
        // SAFETY: an all-zero data array is empty; the caller vouches for `l`.
        unsafe {
            let mut d: pmix_data_array_t = core::mem::zeroed();
            match l.convert(&mut d) {
                Ok(()) | Err(PMIX_ERR_EMPTY) => Ok(Snapshot(d)),
                Err(e) => Err(e),
            }
        }
    }

    pub(super) fn infos(&self) -> &[pmix_info_t] {
        // SAFETY: convert left `size` infos at `array` (or NULL and 0).
        unsafe { slice(self.0.array as *const pmix_info_t, self.0.size) }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        // SAFETY: the array convert built, owned by us alone.
        unsafe { elem::destruct_darray(&mut self.0) }
    }
}

/// Where `key` first appears in the list (compared as PMIX_CHECK_KEY, over
/// PMIX_MAX_KEYLEN bytes), with the snapshot it was found in.
///
/// # Safety
/// As `Snapshot::of`.
unsafe fn find_key(l: &InfoList, key: &[u8]) -> Res<Option<(Snapshot, usize)>> {
    // SAFETY: the caller upholds the contract above.
    let snap = unsafe { Snapshot::of(l) }?;
    let at = snap.infos().iter().position(|i| fixed_bytes(&i.key, PMIX_MAX_KEYLEN) == key);
    Ok(at.map(|at| (snap, at)))
}

/// Give entry `at` of the list a copy of `value`, keeping its key and flags.
///
/// The list's entries cannot be reached in place from here, so the list is rebuilt from
/// `snap` (its deep copy) and takes the new contents: entries that were inserted with
/// PMIx_Info_list_insert become the list's own copies (the caller's infos are neither
/// changed nor freed, and later changes to them are no longer seen). On failure the list
/// is left as it was.
///
/// # Safety
/// `snap` is a snapshot of `l`; `value` is a valid value.
unsafe fn replace_value(l: &mut InfoList, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res {
    let fresh = infolist::start();
    // SAFETY: `fresh` is the live list just started; the caller upholds the rest.
    let done = match unsafe { fill_replaced(fresh, snap, at, value) } {
        Ok(nl) => {
            core::mem::swap(l, nl);
            Ok(())
        }
        Err(e) => Err(e),
    };
    // SAFETY: `fresh` is ours and live; it now holds the old entries (or the partial new
    // ones on failure).
    unsafe { infolist::release(fresh) };
    done
}

/// Fill the new list `fresh` with copies of `snap`'s infos, entry `at` taking `value`.
///
/// # Safety
/// As `replace_value`, `fresh` a live list handle.
unsafe fn fill_replaced<'a>(fresh: *mut c_void, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res<&'a mut InfoList> {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let nl = infolist::get(fresh)?;
        for (i, info) in snap.infos().iter().enumerate() {
            if i == at {
                // A shallow view: xfer deep-copies it, nothing here owns the value.
                let with = pmix_info_t { key: info.key, flags: info.flags, value: *value };
                nl.xfer(&with)?;
            } else {
                nl.xfer(info)?;
            }
        }
        Ok(nl)
    }
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
        match find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.add(key, value, type_)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => {
                let mut v: pmix_value_t = core::mem::zeroed();
                if let Err(e) = crate::data::value::load(&mut v, value, type_) {
                    return e;
                }
                let r = replace_value(l, &snap, at, &v);
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
        match find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(&view(k, &*value))),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(replace_value(l, &snap, at, &*value)),
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
        match find_key(l, fixed_bytes(&src.key, PMIX_MAX_KEYLEN)) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(src)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(replace_value(l, &snap, at, &src.value)),
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
fn starts_nocase(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// The boolean reading of a value, as PMIX_CHECK_TRUE / PMIx_Value_true.
///
/// # Safety
/// `v` is a valid value.
unsafe fn value_true(v: &pmix_value_t) -> pmix_boolean_t {
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
        Some(value_true(&*v))
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
        Some(value_true(&(*p).value))
    })
    .unwrap_or(PMIX_NON_BOOL)
}

/// A string's bytes with its NUL (a NULL string counts its NUL only).
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn str_size(s: *const c_char) -> usize {
    // SAFETY: the caller upholds the contract above.
    1 + if s.is_null() { 0 } else { unsafe { libc::strlen(s) } }
}

/// The strings of an argv, each with its NUL.
///
/// # Safety
/// `a` is NULL or a NULL-terminated array of NUL-terminated strings.
unsafe fn argv_size(a: *const *mut c_char) -> usize {
    // SAFETY: the caller upholds the contract above.
    unsafe { (0..cmem::argv_len(a)).fold(0usize, |n, i| n.saturating_add(str_size(*a.add(i)))) }
}

/// The inflated length a compressed byte object announces (its u32 header).
///
/// # Safety
/// `bo.bytes` is NULL or holds `bo.size` bytes.
unsafe fn inflated_len(bo: &pmix_byte_object_t) -> usize {
    if bo.bytes.is_null() || bo.size < 4 {
        return 0;
    }
    let mut h = [0u8; 4];
    // SAFETY: the caller upholds the contract above; at least 4 bytes.
    unsafe { ptr::copy_nonoverlapping(bo.bytes as *const u8, h.as_mut_ptr(), 4) };
    u32::from_le_bytes(h) as usize
}

/// What an info's key adds: its length and NUL (PMIX_MAX_KEYLEN when it fills the
/// buffer).
fn key_size(key: &pmix_key_t) -> usize {
    match key_bytes(key).len() {
        PMIX_MAX_KEYLEN => PMIX_MAX_KEYLEN,
        n => n + 1,
    }
}

/// The bytes one element of type `t` takes in an array: its struct (a namespace counts
/// PMIX_MAX_NSLEN), plus what it points to. A NULL `p` is the bare struct.
///
/// # Safety
/// `p` is NULL or points to a valid element of `t`, whose arrays hold their counts.
unsafe fn elem_size(t: pmix_data_type_t, kind: Kind, p: *const u8, depth: u32) -> Res<usize> {
    if depth > elem::MAX_DEPTH {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let base = if kind == Kind::Nspace { PMIX_MAX_NSLEN } else { kind.size() };
    if p.is_null() {
        return Ok(base);
    }
    let d = depth + 1;
    // SAFETY: the caller upholds the contract above: `p` is an element of
    // `kind`, so the cast matches, and what it points to is valid.
    let extra = unsafe {
        match kind {
            Kind::Num(_) | Kind::Proc | Kind::Nspace => 0,
            Kind::String => str_size(*(p as *const *const c_char)),
            Kind::ByteObject => {
                let bo = &*(p as *const pmix_byte_object_t);
                match t {
                    PMIX_COMPRESSED_STRING => inflated_len(bo).saturating_add(1),
                    PMIX_COMPRESSED_BYTE_OBJECT => inflated_len(bo),
                    _ => bo.size,
                }
            }
            Kind::Value => value_size(&*(p as *const pmix_value_t), d)? - size_of::<pmix_value_t>(),
            Kind::Info => {
                let i = &*(p as *const pmix_info_t);
                value_size(&i.value, d)?.saturating_add(key_size(&i.key))
            }
            Kind::Pdata => {
                let pd = &*(p as *const pmix_pdata_t);
                (value_size(&pd.value, d)? - size_of::<pmix_value_t>()).saturating_add(key_size(&pd.key))
            }
            Kind::App => {
                let a = &*(p as *const pmix_app_t);
                let infos = array_size(PMIX_INFO, Kind::Info, a.info as *const u8, a.ninfo, d)?;
                [str_size(a.cmd), argv_size(a.argv), argv_size(a.env), str_size(a.cwd), infos]
                    .iter()
                    .fold(0usize, |n, x| n.saturating_add(*x))
            }
            Kind::Query => {
                let q = &*(p as *const pmix_query_t);
                let quals = array_size(PMIX_INFO, Kind::Info, q.qualifiers as *const u8, q.nqual, d)?;
                argv_size(q.keys).saturating_add(quals)
            }
            Kind::ProcInfo => {
                let i = &*(p as *const pmix_proc_info_t);
                str_size(i.hostname) + str_size(i.executable_name)
            }
            Kind::DataArray => darray_size(&*(p as *const pmix_data_array_t), d)?,
            Kind::Envar => {
                let e = &*(p as *const pmix_envar_t);
                str_size(e.envar) + str_size(e.value)
            }
            Kind::Coord => (*(p as *const pmix_coord_t)).dims.saturating_mul(size_of::<u32>()),
            Kind::Regattr => {
                let r = &*(p as *const pmix_regattr_t);
                str_size(r.name).saturating_add(argv_size(r.description))
            }
            Kind::Cpuset => crate::data::cpuset::bitmap_bytes(&*(p as *const pmix_cpuset_t))?.len(),
            Kind::Topology => crate::data::cpuset::topology_bytes(&*(p as *const pmix_topology_t))?.len(),
            Kind::Geometry => {
                let g = &*(p as *const pmix_geometry_t);
                let coords = array_size(PMIX_COORD, Kind::Coord, g.coordinates as *const u8, g.ncoords, d)?;
                (str_size(g.uuid) + str_size(g.osname)).saturating_add(coords)
            }
            Kind::DeviceDist => {
                let dd = &*(p as *const pmix_device_distance_t);
                str_size(dd.uuid) + str_size(dd.osname)
            }
            Kind::Endpoint => {
                let e = &*(p as *const pmix_endpoint_t);
                (str_size(e.uuid) + str_size(e.osname)).saturating_add(e.endpt.size)
            }
            Kind::ProcStats => {
                let s = &*(p as *const pmix_proc_stats_t);
                str_size(s.node) + str_size(s.cmd)
            }
            Kind::DiskStats => str_size((*(p as *const pmix_disk_stats_t)).disk),
            Kind::NetStats => str_size((*(p as *const pmix_net_stats_t)).net_interface),
            Kind::NodeStats => {
                let s = &*(p as *const pmix_node_stats_t);
                let disks = array_size(PMIX_DISK_STATS, Kind::DiskStats, s.diskstats as *const u8, s.ndiskstats, d)?;
                let nets = array_size(PMIX_NET_STATS, Kind::NetStats, s.netstats as *const u8, s.nnetstats, d)?;
                str_size(s.node).saturating_add(disks).saturating_add(nets)
            }
            Kind::DataBuffer => (*(p as *const pmix_data_buffer_t)).bytes_used,
        }
    };
    Ok(base.saturating_add(extra))
}

/// The bytes of `n` elements of type `t` at `p` (0 for none).
///
/// # Safety
/// `p` is NULL or points to `n` valid elements of `t`.
unsafe fn array_size(t: pmix_data_type_t, kind: Kind, p: *const u8, n: usize, depth: u32) -> Res<usize> {
    if p.is_null() || n == 0 {
        return Ok(0);
    }
    if !elem::sane_len(kind, n) {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    if let Kind::Num(_) = kind {
        return Ok(n * kind.size());
    }
    let mut total = 0usize;
    for i in 0..n {
        // SAFETY: the caller upholds the contract above; `i < n`.
        total = total.saturating_add(unsafe { elem_size(t, kind, p.add(i * kind.size()), depth)? });
    }
    Ok(total)
}

/// The bytes of a data array's elements (0 for an empty one).
///
/// # Safety
/// `d` is a valid data array.
unsafe fn darray_size(d: &pmix_data_array_t, depth: u32) -> Res<usize> {
    if d.size == 0 || d.array.is_null() {
        return Ok(0);
    }
    let kind = Kind::of(d.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
    // SAFETY: the caller upholds the contract above.
    unsafe { array_size(d.r#type, kind, d.array as *const u8, d.size, depth) }
}

/// A value's size as PMIx_Value_get_size reports it: the `pmix_value_t`, plus its
/// payload (a string's characters and NUL, a struct and what it points to).
///
/// # Safety
/// `v` is a valid value.
unsafe fn value_size(v: &pmix_value_t, depth: u32) -> Res<usize> {
    let t = v.r#type;
    let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
    // SAFETY: the caller upholds the contract above; the union is read as its type says.
    let payload = unsafe {
        if t == PMIX_STRING {
            str_size(v.data.string)
        } else {
            elem_size(t, kind, value::elem_ptr(v, kind), depth)?
        }
    };
    Ok(payload.saturating_add(size_of::<pmix_value_t>()))
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
        match value_size(&*val, 0) {
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
        match value_size(&info.value, 0) {
            Ok(n) => {
                *size = n.saturating_add(key_size(&info.key)).saturating_add(size_of::<pmix_info_t>());
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
