//! How many bytes a value takes, as OpenPMIx 5's PMIx_Value_get_size and
//! PMIx_Info_get_size count them: the struct, plus what it points to, for
//! every data type (the compound ones field by field, `Kind::fields`).

use core::ffi::c_char;
use core::mem::size_of;
use core::ptr;

use super::kind::{Field, Kind, Shape, F};
use crate::abi::*;
use crate::cmem;
use crate::status::Res;

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
pub fn key_size(key: &pmix_key_t) -> usize {
    match cmem::bounded_len(&key[..PMIX_MAX_KEYLEN]) {
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
    if depth > super::elem::MAX_DEPTH {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let base = if kind == Kind::Nspace { PMIX_MAX_NSLEN } else { kind.size() };
    if p.is_null() {
        return Ok(base);
    }
    let d = depth + 1;
    // SAFETY: the caller upholds the contract above: `p` is an element of
    // `kind`, so the casts match, and what it points to is valid.
    let extra = unsafe {
        match kind.shape() {
            Shape::Fields(fields) => fields_size(kind, fields, p, d)?,
            Shape::Num(_) | Shape::Nspace => 0,
            Shape::String => str_size(*(p as *const *const c_char)),
            Shape::ByteObject => {
                let bo = &*(p as *const pmix_byte_object_t);
                match t {
                    PMIX_COMPRESSED_STRING => inflated_len(bo).saturating_add(1),
                    PMIX_COMPRESSED_BYTE_OBJECT => inflated_len(bo),
                    _ => bo.size,
                }
            }
            Shape::Value => value_size(&*(p as *const pmix_value_t), d)? - size_of::<pmix_value_t>(),
            Shape::DataArray => darray_size(&*(p as *const pmix_data_array_t), d)?,
            Shape::Cpuset => super::cpuset::bitmap_bytes(&*(p as *const pmix_cpuset_t))?.len(),
            Shape::Topology => super::cpuset::topology_bytes(&*(p as *const pmix_topology_t))?.len(),
            Shape::DataBuffer => (*(p as *const pmix_data_buffer_t)).bytes_used,
        }
    };
    Ok(base.saturating_add(extra))
}

/// What a compound element's fields point to, as OpenPMIx counts it: the
/// text of strings, argvs and (some) keys, byte objects' bytes, arrays'
/// elements; an info counts its value's struct a second time.
///
/// # Safety
/// `p` points to a valid element of the type `fields` describe.
unsafe fn fields_size(kind: Kind, fields: &[Field], p: *const u8, depth: u32) -> Res<usize> {
    let mut n = 0usize;
    for f in fields {
        // SAFETY: the caller's contract; each field read at its C type.
        let x = unsafe {
            let q = p.add(f.at);
            match f.f {
                F::Str => str_size(*(q as *const *const c_char)),
                F::Argv => argv_size(*(q as *const *const *mut c_char)),
                F::Bytes => (*(q as *const pmix_byte_object_t)).size,
                F::Key { sized: true } => key_size(&*(q as *const pmix_key_t)),
                F::Value if kind == Kind::Info => value_size(&*(q as *const pmix_value_t), depth)?,
                F::Value => value_size(&*(q as *const pmix_value_t), depth)? - size_of::<pmix_value_t>(),
                F::Array { t, count } => {
                    let n = *(p.add(count) as *const usize);
                    match Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)? {
                        // (numbers: the count alone, as OpenPMIx counts a coordinate's)
                        k @ Kind::Num(_) => n.saturating_mul(k.size()),
                        k => array_size(t, k, *(q as *const *const u8), n, depth)?,
                    }
                }
                _ => 0,
            }
        };
        n = n.saturating_add(x);
    }
    Ok(n)
}

/// The bytes of `n` elements of type `t` at `p` (0 for none).
///
/// # Safety
/// `p` is NULL or points to `n` valid elements of `t`.
unsafe fn array_size(t: pmix_data_type_t, kind: Kind, p: *const u8, n: usize, depth: u32) -> Res<usize> {
    if p.is_null() || n == 0 {
        return Ok(0);
    }
    if !super::elem::sane_len(kind, n) {
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
pub unsafe fn value_size(v: &pmix_value_t, depth: u32) -> Res<usize> {
    let t = v.r#type;
    let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
    // SAFETY: the caller upholds the contract above; the union is read as its type says.
    let payload = unsafe {
        if t == PMIX_STRING {
            str_size(v.data.string)
        } else {
            elem_size(t, kind, super::value::elem_ptr(v, kind), depth)?
        }
    };
    Ok(payload.saturating_add(size_of::<pmix_value_t>()))
}
