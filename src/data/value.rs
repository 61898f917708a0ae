//! `pmix_value_t` operations: load, unload, transfer, destruct, compare.
//!
//! A value holds its element either inside the union (`Kind::inline_in_value`)
//! or through a pointer to one separately allocated element.

use core::ffi::{c_char, c_void};
use core::ptr;

use super::elem;
use crate::status::Res;
use super::kind::{Kind, Num};
use crate::abi::*;
use crate::cmem;

/// Where the element of `v` lives (NULL when a boxed value holds nothing).
///
/// # Safety
/// `v` is a valid value whose type has a kind.
pub unsafe fn elem_ptr(v: &pmix_value_t, kind: Kind) -> *const u8 {
    // SAFETY: the caller upholds the contract above: `v` is a valid value whose type has a kind.
    unsafe {
        if kind.inline_in_value() {
            &v.data as *const pmix_value_data as *const u8
        } else {
            v.data.ptr as *const u8
        }
    }
}

/// Load a copy of the element at `src` (of type `t`) into `v`, replacing what
/// `v` held before without freeing it (PMIx semantics: `v` is uninitialised).
/// A NULL `src` loads an empty value of that type (`true` for PMIX_BOOL).
///
/// # Safety
/// `src` is NULL or points to a valid element of type `t`.
pub unsafe fn load_elem(v: &mut pmix_value_t, src: *const u8, t: pmix_data_type_t, depth: u32) -> Res {
    // SAFETY: the caller upholds the contract above: `src` is NULL or points to a valid element of type `t`.
    unsafe {
        v.r#type = PMIX_UNDEF;
        v.data = core::mem::zeroed();
        if t == PMIX_UNDEF {
            return Ok(());
        }
        let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        // Fast paths for the common cases: numbers are plain bytes, strings one strdup.
        if !src.is_null() {
            if let Kind::Num(_) = kind {
                ptr::copy_nonoverlapping(src, &mut v.data as *mut pmix_value_data as *mut u8, kind.size());
                v.r#type = t;
                return Ok(());
            }
            if kind == Kind::String {
                v.data.string = elem::dup_str(*(src as *const *const c_char))?;
                v.r#type = t;
                return Ok(());
            }
        }
        if src.is_null() {
            v.r#type = t;
            if t == PMIX_BOOL {
                v.data.flag = true;
            }
            return Ok(());
        }
        if kind.inline_in_value() {
            elem::copy(kind, &mut v.data as *mut pmix_value_data as *mut u8, src, depth)?;
        } else {
            let p = elem::alloc_array(kind, 1)?;
            if let Err(e) = elem::copy(kind, p, src, depth) {
                cmem::free(p);
                return Err(e);
            }
            v.data.ptr = p as *mut c_void;
        }
        v.r#type = t;
        Ok(())
    }
}

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

/// Deep copy `src` into `dst` (`dst` is treated as uninitialised).
///
/// # Safety
/// `src` is a valid value.
pub unsafe fn xfer(dst: &mut pmix_value_t, src: &pmix_value_t, depth: u32) -> Res {
    // SAFETY: the caller upholds the contract above: `src` is a valid value.
    unsafe {
        if src.r#type == PMIX_UNDEF {
            dst.r#type = PMIX_UNDEF;
            dst.data = core::mem::zeroed();
            return Ok(());
        }
        let kind = Kind::of(src.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        if let Kind::Num(_) = kind {
            // the whole union: the element plus bytes nobody reads
            dst.data = src.data;
            dst.r#type = src.r#type;
            return Ok(());
        }
        load_elem(dst, elem_ptr(src, kind), src.r#type, depth)
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

/// Free what `v` owns; it becomes PMIX_UNDEF.
///
/// # Safety
/// `v` is a valid value (or zeroed).
pub unsafe fn destruct(v: &mut pmix_value_t) {
    // SAFETY: the caller upholds the contract above: `v` is a valid value (or zeroed).
    unsafe {
        if v.r#type == PMIX_STRING {
            cmem::free(v.data.string);
            v.data.string = ptr::null_mut();
            v.r#type = PMIX_UNDEF;
            return;
        }
        if let Some(kind) = Kind::of(v.r#type) {
            if kind.inline_in_value() {
                elem::destruct(kind, &mut v.data as *mut pmix_value_data as *mut u8);
            } else {
                let p = v.data.ptr as *mut u8;
                if !p.is_null() {
                    elem::destruct(kind, p);
                    cmem::free(p);
                }
            }
        }
        v.r#type = PMIX_UNDEF;
        v.data = core::mem::zeroed();
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

/// `PMIx_Value_compare`: numbers by value, strings by `strcmp`, procs by
/// namespace then rank, everything else by its packed form (equal when the
/// contents are equal, otherwise a stable order).
///
/// # Safety
/// Both values are valid.
pub unsafe fn compare(a: &pmix_value_t, b: &pmix_value_t) -> pmix_value_cmp_t {
    // SAFETY: the caller upholds the contract above: Both values are valid.
    unsafe {
        if a.r#type != b.r#type {
            return PMIX_VALUE_TYPE_DIFFERENT;
        }
        let Some(kind) = Kind::of(a.r#type) else {
            return if a.r#type == PMIX_UNDEF { PMIX_EQUAL } else { PMIX_VALUE_COMPARISON_NOT_AVAIL };
        };
        let (pa, pb) = (elem_ptr(a, kind), elem_ptr(b, kind));
        if pa.is_null() || pb.is_null() {
            return ordering(pa.is_null().cmp(&pb.is_null()).reverse());
        }
        compare_elem(kind, pa, pb)
    }
}

fn ordering(o: core::cmp::Ordering) -> pmix_value_cmp_t {
    match o {
        core::cmp::Ordering::Equal => PMIX_EQUAL,
        core::cmp::Ordering::Greater => PMIX_VALUE1_GREATER,
        core::cmp::Ordering::Less => PMIX_VALUE2_GREATER,
    }
}

/// Compare two elements of one kind.
///
/// # Safety
/// Both point to valid elements of `kind`.
pub unsafe fn compare_elem(kind: Kind, a: *const u8, b: *const u8) -> pmix_value_cmp_t {
    // SAFETY: the caller upholds the contract above: Both point to valid elements of `kind`.
    unsafe {
        use core::ptr::read_unaligned as rd;
        let o = match kind {
            Kind::Num(Num::U(1)) => rd(a).cmp(&rd(b)),
            Kind::Num(Num::U(2)) => rd(a as *const u16).cmp(&rd(b as *const u16)),
            Kind::Num(Num::U(4)) => rd(a as *const u32).cmp(&rd(b as *const u32)),
            Kind::Num(Num::U(_)) => rd(a as *const u64).cmp(&rd(b as *const u64)),
            Kind::Num(Num::I(1)) => rd(a as *const i8).cmp(&rd(b as *const i8)),
            Kind::Num(Num::I(2)) => rd(a as *const i16).cmp(&rd(b as *const i16)),
            Kind::Num(Num::I(4)) => rd(a as *const i32).cmp(&rd(b as *const i32)),
            Kind::Num(Num::I(_)) => rd(a as *const i64).cmp(&rd(b as *const i64)),
            Kind::Num(Num::F32) => match rd(a as *const f32).partial_cmp(&rd(b as *const f32)) {
                Some(o) => o,
                None => return PMIX_VALUE_COMPARISON_NOT_AVAIL,
            },
            Kind::Num(Num::F64) => match rd(a as *const f64).partial_cmp(&rd(b as *const f64)) {
                Some(o) => o,
                None => return PMIX_VALUE_COMPARISON_NOT_AVAIL,
            },
            Kind::Num(Num::Timeval) => {
                let (x, y) = (rd(a as *const libc::timeval), rd(b as *const libc::timeval));
                (x.tv_sec, x.tv_usec).cmp(&(y.tv_sec, y.tv_usec))
            }
            Kind::Num(Num::Pointer) => rd(a as *const usize).cmp(&rd(b as *const usize)),
            Kind::String => {
                let (x, y) = (rd(a as *const *const c_char), rd(b as *const *const c_char));
                cmem::cstr_bytes(x).cmp(&cmem::cstr_bytes(y))
            }
            Kind::Nspace => {
                let (x, y) = (&*(a as *const pmix_nspace_t), &*(b as *const pmix_nspace_t));
                x[..cmem::bounded_len(x)].cmp(&y[..cmem::bounded_len(y)])
            }
            Kind::Proc => {
                let (x, y) = (&*(a as *const pmix_proc_t), &*(b as *const pmix_proc_t));
                let nx = &x.nspace[..cmem::bounded_len(&x.nspace)];
                let ny = &y.nspace[..cmem::bounded_len(&y.nspace)];
                (nx, x.rank).cmp(&(ny, y.rank))
            }
            Kind::ByteObject => {
                let (x, y) = (&*(a as *const pmix_byte_object_t), &*(b as *const pmix_byte_object_t));
                match (bo_slice(x), bo_slice(y)) {
                    (Ok(a), Ok(b)) => a.cmp(b),
                    _ => return PMIX_VALUE_INCOMPATIBLE_OBJECTS,
                }
            }
            _ => {
                let mut ea = super::pack::Encoder::default();
                let mut eb = super::pack::Encoder::default();
                if ea.elem(kind, a, 0).is_err() || eb.elem(kind, b, 0).is_err() {
                    return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
                }
                ea.bytes().cmp(eb.bytes())
            }
        };
        ordering(o)
    }
}

/// The bytes of a byte object; an impossible size is refused (PMIX_ERR_BAD_PARAM).
///
/// # Safety
/// `bo.bytes` is NULL or holds `bo.size` bytes.
pub unsafe fn bo_slice(bo: &pmix_byte_object_t) -> Res<&[u8]> {
    // SAFETY: the caller upholds the contract above: `bo.bytes` is NULL or holds `bo.size` bytes.
    unsafe {
        if bo.bytes.is_null() || bo.size == 0 {
            Ok(&[])
        } else if bo.size > isize::MAX as usize {
            crate::pmix_debug!(1, "byte object of impossible size {}", bo.size);
            Err(PMIX_ERR_BAD_PARAM)
        } else {
            Ok(core::slice::from_raw_parts(bo.bytes as *const u8, bo.size))
        }
    }
}
