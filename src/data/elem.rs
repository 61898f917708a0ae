//! Deep copy and destruction of one element of any PMIx data type, directly
//! on the C representation; values among them (an element may hold values,
//! a value holds an element, so the two recurse here, in one file). The
//! compound types are copied and destroyed field by field (`Kind::fields`).
//!
//! Invariant every function here keeps: an all-zero element is valid and empty
//! (NULL pointers, zero counts), so `destruct` of zeroed or partially built
//! memory is always safe. Everything allocated is libc memory.

use core::ffi::{c_char, c_void};
use core::ptr;

use super::byteobj::copy_bo;
use super::kind::{Field, Kind, Shape, F};
use crate::abi::*;
use crate::cmem;

/// Nested data (arrays of values of arrays ...) deeper than this is refused,
/// so hostile input cannot exhaust the stack.
pub const MAX_DEPTH: u32 = 32;

use crate::status::Res;

/// Recursion guard for walks over caller-built data (destruct, print), which
/// may be arbitrarily deep or even cyclic: past the limit the walk stops.
pub struct DepthGuard;

thread_local!(static WALK_DEPTH: core::cell::Cell<u32> = const { core::cell::Cell::new(0) });

/// Walks deeper than this over caller-built data are cut off (data rpmix
/// builds never exceeds MAX_DEPTH).
pub const WALK_LIMIT: u32 = 4 * MAX_DEPTH;

impl DepthGuard {
    pub fn enter() -> Option<DepthGuard> {
        WALK_DEPTH.with(|d| {
            if d.get() >= WALK_LIMIT {
                None
            } else {
                d.set(d.get() + 1);
                Some(DepthGuard)
            }
        })
    }
}
impl Drop for DepthGuard {
    fn drop(&mut self) {
        WALK_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// True when `n` elements of `kind` describe a possible allocation (no
/// overflow, at most isize::MAX bytes); counts from C are checked with it
/// before any walk.
pub fn sane_len(kind: Kind, n: usize) -> bool {
    n.checked_mul(kind.size()).is_some_and(|b| b <= isize::MAX as usize)
}

/// Deep copy of one element of `kind` from `src` into `dst`.
///
/// # Safety
/// `src` points to a valid element of `kind`; `dst` to writable memory of
/// `kind.size()` bytes that holds no live element (it is overwritten).
pub unsafe fn copy(kind: Kind, dst: *mut u8, src: *const u8, depth: u32) -> Res {
    // SAFETY: the caller upholds the contract above: `src` points to a valid element of `kind`; `dst` to writable memory of `kind.size()` bytes that holds no live element (it is overwritten).
    unsafe {
        if depth > MAX_DEPTH {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        ptr::write_bytes(dst, 0, kind.size());
        let r = copy_inner(kind, dst, src, depth);
        if r.is_err() {
            destruct(kind, dst);
        }
        r
    }
}

/// The deep copy behind `copy`, depth-limited.
///
/// # Safety
/// `src` points to a valid element of `kind`; `dst` to writable storage for one, not holding anything that needs freeing.
unsafe fn copy_inner(kind: Kind, dst: *mut u8, src: *const u8, depth: u32) -> Res {
    // SAFETY: the caller upholds the contract above: `src` points to a valid element of `kind`; `dst` to writable storage for one, not holding anything that needs freeing.
    unsafe {
        match kind.shape() {
            Shape::Fields(fields) => copy_fields(fields, kind.size(), dst, src, depth)?,
            Shape::Num(_) | Shape::Nspace => ptr::copy_nonoverlapping(src, dst, kind.size()),
            Shape::String => *(dst as *mut *mut c_char) = dup_str(*(src as *const *const c_char))?,
            Shape::Value => xfer_value(&mut *(dst as *mut pmix_value_t), &*(src as *const pmix_value_t), depth + 1)?,
            Shape::ByteObject => copy_bo(&mut *(dst as *mut pmix_byte_object_t), &*(src as *const pmix_byte_object_t))?,
            Shape::DataArray => copy_darray(&mut *(dst as *mut pmix_data_array_t), &*(src as *const pmix_data_array_t), depth)?,
            Shape::Cpuset => {
                let s = &*(src as *const pmix_cpuset_t);
                let d = &mut *(dst as *mut pmix_cpuset_t);
                d.source = dup_str(s.source)?;
                d.bitmap = super::cpuset::copy_bitmap(s)?;
            }
            Shape::Topology => {
                let s = &*(src as *const pmix_topology_t);
                let d = &mut *(dst as *mut pmix_topology_t);
                d.source = dup_str(s.source)?;
                d.topology = super::cpuset::copy_topology(s)?;
            }
            Shape::DataBuffer => super::buffer::copy_buffer(&mut *(dst as *mut pmix_data_buffer_t), &*(src as *const pmix_data_buffer_t))?,
        }
        Ok(())
    }
}

/// The bytes of a field that owns memory (zeroed: it owns nothing).
fn owned_size(f: F) -> usize {
    match f {
        F::Bytes => core::mem::size_of::<pmix_byte_object_t>(),
        F::Value => core::mem::size_of::<pmix_value_t>(),
        _ => core::mem::size_of::<*mut u8>(),
    }
}

/// The element type of an array field (the table names known types only).
pub fn array_kind(t: pmix_data_type_t) -> Res<Kind> {
    Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)
}

/// Deep copy of a compound element: its bytes, then a copy of what each
/// field owns (the owning fields cleared first, so that a failure part way
/// leaves an element `destruct` can release).
///
/// # Safety
/// `src` is a valid element of the type `fields` describe, `size` bytes long; `dst` is writable for as many.
unsafe fn copy_fields(fields: &[Field], size: usize, dst: *mut u8, src: *const u8, depth: u32) -> Res {
    // SAFETY: the caller's contract: every field read and written is inside the two elements, at its C type.
    unsafe {
        ptr::copy_nonoverlapping(src, dst, size);
        for f in fields.iter().filter(|f| !f.f.plain()) {
            ptr::write_bytes(dst.add(f.at), 0, owned_size(f.f));
        }
        for f in fields {
            let (d, s) = (dst.add(f.at), src.add(f.at));
            match f.f {
                F::Str => *(d as *mut *mut c_char) = dup_str(*(s as *const *const c_char))?,
                F::Argv => *(d as *mut *mut *mut c_char) = dup_argv(*(s as *const *const *mut c_char))?,
                F::Bytes => copy_bo(&mut *(d as *mut pmix_byte_object_t), &*(s as *const pmix_byte_object_t))?,
                F::Value => xfer_value(&mut *(d as *mut pmix_value_t), &*(s as *const pmix_value_t), depth + 1)?,
                F::Array { t, count } => {
                    let n = *(src.add(count) as *const usize);
                    *(dst.add(count) as *mut usize) = 0;
                    let (p, n) = copy_array(array_kind(t)?, *(s as *const *const u8), n, depth)?;
                    *(d as *mut *mut u8) = p;
                    *(dst.add(count) as *mut usize) = n;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Release everything an element owns and zero it.
///
/// # Safety
/// `p` points to a valid (possibly zeroed) element of `kind`.
pub unsafe fn destruct(kind: Kind, p: *mut u8) {
    // SAFETY: the caller upholds the contract above: `p` points to a valid (possibly zeroed) element of `kind`.
    unsafe {
        // Leaves first, without the recursion guard (the common, hot case).
        match kind {
            Kind::Num(_) | Kind::Proc | Kind::Nspace => return,
            Kind::String => {
                let s = p as *mut *mut c_char;
                cmem::free(*s);
                *s = ptr::null_mut();
                return;
            }
            Kind::ByteObject => {
                let bo = &mut *(p as *mut pmix_byte_object_t);
                cmem::free(bo.bytes);
                bo.bytes = ptr::null_mut();
                bo.size = 0;
                return;
            }
            _ => {}
        }
        let Some(_depth) = DepthGuard::enter() else {
            crate::pmix_debug!(1, "destruct: data nested deeper than {WALK_LIMIT} levels left in place");
            return;
        };
        match kind.shape() {
            Shape::Fields(fields) => {
                for f in fields {
                    let q = p.add(f.at);
                    match f.f {
                        F::Str => cmem::free(*(q as *mut *mut c_char)),
                        F::Argv => cmem::argv_free(*(q as *mut *mut *mut c_char)),
                        F::Bytes => cmem::free((*(q as *mut pmix_byte_object_t)).bytes),
                        F::Value => destruct_value(&mut *(q as *mut pmix_value_t)),
                        F::Array { t, count } => match array_kind(t) {
                            // numbers own nothing: the block alone, whatever its count
                            Ok(Kind::Num(_)) => cmem::free(*(q as *mut *mut u8)),
                            Ok(k) => free_array(k, *(q as *mut *mut u8), *(p.add(count) as *const usize)),
                            Err(_) => {}
                        },
                        _ => {}
                    }
                }
            }
            Shape::Value => destruct_value(&mut *(p as *mut pmix_value_t)),
            Shape::DataArray => destruct_darray(&mut *(p as *mut pmix_data_array_t)),
            Shape::Cpuset => super::cpuset::destruct_cpuset(&mut *(p as *mut pmix_cpuset_t)),
            Shape::Topology => super::cpuset::destruct_topology(&mut *(p as *mut pmix_topology_t)),
            Shape::DataBuffer => cmem::free((*(p as *mut pmix_data_buffer_t)).base_ptr),
            // (released above)
            Shape::Num(_) | Shape::Nspace | Shape::String | Shape::ByteObject => {}
        }
        ptr::write_bytes(p, 0, kind.size());
    }
}

/// Destruct a data array's elements and free its storage; the array becomes empty.
///
/// # Safety
/// `d` is a valid (possibly zeroed) data array.
pub unsafe fn destruct_darray(d: &mut pmix_data_array_t) {
    // SAFETY: the caller upholds the contract above: `d` is a valid (possibly zeroed) data array.
    unsafe {
        match Kind::of(d.r#type) {
            // Elements that own nothing: the block alone is freed, whatever
            // size the array claims (left alone, the caller's block leaked).
            Some(k) if !sane_len(k, d.size) && matches!(k, Kind::Num(_) | Kind::Proc | Kind::Nspace) => cmem::free(d.array),
            Some(k) if !sane_len(k, d.size) => {
                crate::pmix_debug!(1, "PMIx_Data_array_destruct: impossible size {}, array left alone", d.size);
                return;
            }
            Some(k) => free_array(k, d.array as *mut u8, d.size),
            // An array of an unknown type cannot hold anything we could walk.
            None => cmem::free(d.array),
        }
        d.array = ptr::null_mut();
        d.size = 0;
    }
}

/// Destruct `n` elements and free the array itself.
///
/// # Safety
/// `p` is NULL or a malloc'd array of `n` valid elements of `kind`.
pub unsafe fn free_array(kind: Kind, p: *mut u8, n: usize) {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a malloc'd array of `n` valid elements of `kind`.
    unsafe {
        if p.is_null() {
            return;
        }
        if !sane_len(kind, n) {
            crate::pmix_debug!(1, "free_array: impossible count {n}, array left alone");
            return;
        }
        for i in 0..n {
            destruct(kind, p.add(i * kind.size()));
        }
        cmem::free(p);
    }
}

/// A newly allocated deep copy of `n` elements. `(NULL, 0)` for an empty or NULL array.
///
/// # Safety
/// `src` is NULL or points to `n` valid elements of `kind`.
pub unsafe fn copy_array(kind: Kind, src: *const u8, n: usize, depth: u32) -> Res<(*mut u8, usize)> {
    // SAFETY: the caller upholds the contract above: `src` is NULL or points to `n` valid elements of `kind`.
    unsafe {
        if src.is_null() || n == 0 {
            return Ok((ptr::null_mut(), 0));
        }
        let p = alloc_array(kind, n)?;
        for i in 0..n {
            if let Err(e) = copy(kind, p.add(i * kind.size()), src.add(i * kind.size()), depth + 1) {
                free_array(kind, p, n);
                return Err(e);
            }
        }
        Ok((p, n))
    }
}

/// A zeroed array of `n` elements (refuses sizes that overflow or cannot be allocated).
pub fn alloc_array(kind: Kind, n: usize) -> Res<*mut u8> {
    if !sane_len(kind, n) {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let p = cmem::calloc_array(n, kind.size()) as *mut u8;
    if p.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    Ok(p)
}

/// Grow a zeroed array from `old` to `new` elements (`new` > `old`): the
/// first `old` elements move (they are plain C data), the rest are zeroed.
/// On failure the array is left as it was.
///
/// # Safety
/// `p` is an array from `alloc_array`/`grow_array` of `old` elements of `kind`.
pub unsafe fn grow_array(kind: Kind, p: *mut u8, old: usize, new: usize) -> Res<*mut u8> {
    if !sane_len(kind, new) || new <= old {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    // SAFETY: realloc of our malloc'd array (the contract above); the tail
    // beyond the moved elements is zeroed before anyone reads it.
    unsafe {
        let q = libc::realloc(p as *mut libc::c_void, new * kind.size()) as *mut u8;
        if q.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        ptr::write_bytes(q.add(old * kind.size()), 0, (new - old) * kind.size());
        Ok(q)
    }
}

/// # Safety
/// `s` is a valid data array.
pub unsafe fn copy_darray(d: &mut pmix_data_array_t, s: &pmix_data_array_t, depth: u32) -> Res {
    // SAFETY: the caller upholds the contract above: `s` is a valid data array.
    unsafe {
        d.r#type = s.r#type;
        d.size = 0;
        d.array = ptr::null_mut();
        if s.size == 0 || s.array.is_null() {
            return Ok(());
        }
        let kind = Kind::of(s.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        let (p, n) = copy_array(kind, s.array as *const u8, s.size, depth)?;
        d.array = p as *mut c_void;
        d.size = n;
        Ok(())
    }
}

/// A new C string of `text` (NULL for None): what a decoder hands out.
pub fn dup_text(text: Option<&[u8]>) -> Res<*mut c_char> {
    match text {
        None => Ok(ptr::null_mut()),
        Some(b) => {
            let p = cmem::strdup_bytes(b);
            if p.is_null() {
                Err(PMIX_ERR_NOMEM)
            } else {
                Ok(p)
            }
        }
    }
}

/// Elements allocated at first when decoding an array; more as they decode.
const DECODE_START: usize = 64;

/// An array of `n` elements of `kind` that `each` decodes in place, one by
/// one (into zeroed storage). `n` is a peer's word: memory grows with the
/// elements that really decode, never with the count alone (a count of
/// 60 M in a 60 MB message must not allocate 60 M elements first). On any
/// error what was built is freed.
///
/// # Safety
/// `each` writes at most one element of `kind` at the pointer it is given,
/// leaving nothing to free there when it fails.
pub unsafe fn decode_array(kind: Kind, n: usize, mut each: impl FnMut(*mut u8) -> Res) -> Res<(*mut u8, usize)> {
    // SAFETY: every element written is inside the array, grown before use.
    unsafe {
        if n == 0 {
            return Ok((ptr::null_mut(), 0));
        }
        let mut cap = n.min(DECODE_START);
        let mut p = alloc_array(kind, cap)?;
        for i in 0..n {
            if i == cap {
                let more = (cap * 2).min(n);
                match grow_array(kind, p, cap, more) {
                    Ok(q) => (p, cap) = (q, more),
                    Err(e) => {
                        free_array(kind, p, cap);
                        return Err(e);
                    }
                }
            }
            if let Err(e) = each(p.add(i * kind.size())) {
                free_array(kind, p, cap);
                return Err(e);
            }
        }
        Ok((p, n))
    }
}

/// A NULL-terminated argv of `n` strings that `next` decodes (a NULL string
/// among them is `bad`); freed on any error.
pub fn decode_argv(n: usize, bad: pmix_status_t, mut next: impl FnMut() -> Res<*mut c_char>) -> Res<*mut *mut c_char> {
    let out = alloc_array(Kind::String, n + 1)? as *mut *mut c_char;
    for i in 0..n {
        match next() {
            Ok(s) if !s.is_null() => {
                // SAFETY: `i` < n, inside the n + 1 entries allocated.
                unsafe { *out.add(i) = s };
            }
            r => {
                let fail = r.err().unwrap_or(bad);
                // SAFETY: a NULL-terminated argv of our own strings (zeroed beyond i).
                unsafe { cmem::argv_free(out) };
                return Err(fail);
            }
        }
    }
    Ok(out)
}

/// # Safety
/// `s` is NULL or NUL-terminated.
pub unsafe fn dup_str(s: *const c_char) -> Res<*mut c_char> {
    // SAFETY: the caller upholds the contract above: `s` is NULL or NUL-terminated.
    unsafe {
        if s.is_null() {
            return Ok(ptr::null_mut());
        }
        let p = libc::strdup(s);
        if p.is_null() {
            Err(PMIX_ERR_NOMEM)
        } else {
            Ok(p)
        }
    }
}

/// A deep copy of a NULL-terminated string array (libc memory).
///
/// # Safety
/// `a` is NULL or a NULL-terminated array of NUL-terminated strings.
unsafe fn dup_argv(a: *const *mut c_char) -> Res<*mut *mut c_char> {
    // SAFETY: the caller upholds the contract above: `a` is NULL or a NULL-terminated array of NUL-terminated strings.
    unsafe {
        if a.is_null() {
            return Ok(ptr::null_mut());
        }
        let p = cmem::argv_dup(a);
        if p.is_null() {
            Err(PMIX_ERR_NOMEM)
        } else {
            Ok(p)
        }
    }
}

// ---- values: a value is one element kind, and elements (infos, arrays) hold values ----

/// Where the element of `v` lives (NULL when a boxed value holds nothing).
///
/// # Safety
/// `v` is a valid value whose type has a kind.
pub unsafe fn value_payload(v: &pmix_value_t, kind: Kind) -> *const u8 {
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
pub unsafe fn load_value(v: &mut pmix_value_t, src: *const u8, t: pmix_data_type_t, depth: u32) -> Res {
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
                v.data.string = dup_str(*(src as *const *const c_char))?;
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
            copy(kind, &mut v.data as *mut pmix_value_data as *mut u8, src, depth)?;
        } else {
            let p = alloc_array(kind, 1)?;
            if let Err(e) = copy(kind, p, src, depth) {
                cmem::free(p);
                return Err(e);
            }
            v.data.ptr = p as *mut c_void;
        }
        v.r#type = t;
        Ok(())
    }
}

/// Deep copy `src` into `dst` (`dst` is treated as uninitialised).
///
/// # Safety
/// `src` is a valid value.
pub unsafe fn xfer_value(dst: &mut pmix_value_t, src: &pmix_value_t, depth: u32) -> Res {
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
        load_value(dst, value_payload(src, kind), src.r#type, depth)
    }
}

/// Free what `v` owns; it becomes PMIX_UNDEF.
///
/// # Safety
/// `v` is a valid value (or zeroed).
pub unsafe fn destruct_value(v: &mut pmix_value_t) {
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
                destruct(kind, &mut v.data as *mut pmix_value_data as *mut u8);
            } else {
                let p = v.data.ptr as *mut u8;
                if !p.is_null() {
                    destruct(kind, p);
                    cmem::free(p);
                }
            }
        }
        v.r#type = PMIX_UNDEF;
        v.data = core::mem::zeroed();
    }
}
