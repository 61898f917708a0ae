//! `PMIx_Value_compare`: values and elements compared, compound types field
//! by field (the fields `Kind::fields` lists).

use core::cmp::Ordering;
use core::ffi::c_char;

use super::byteobj::bo_slice;
use super::elem::{sane_len, value_payload, MAX_DEPTH};
use super::kind::{Kind, Num, Shape, F};
use crate::abi::*;
use crate::cmem;

/// A comparison that cannot be made: the PMIx result to report.
type Cmp = Result<Ordering, pmix_value_cmp_t>;

const INCOMPATIBLE: pmix_value_cmp_t = PMIX_VALUE_INCOMPATIBLE_OBJECTS;

/// `PMIx_Value_compare`: numbers by value, strings by `strcmp`, procs by
/// namespace then rank, everything else field by field (equal when the
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
        let (pa, pb) = (value_payload(a, kind), value_payload(b, kind));
        if pa.is_null() || pb.is_null() {
            return ordering(Ok(pa.is_null().cmp(&pb.is_null()).reverse()));
        }
        ordering(elem(kind, pa, pb, 0))
    }
}

fn ordering(o: Cmp) -> pmix_value_cmp_t {
    match o {
        Ok(Ordering::Equal) => PMIX_EQUAL,
        Ok(Ordering::Greater) => PMIX_VALUE1_GREATER,
        Ok(Ordering::Less) => PMIX_VALUE2_GREATER,
        Err(r) => r,
    }
}

/// Compare two elements of one kind.
///
/// # Safety
/// Both point to valid elements of `kind`.
pub unsafe fn compare_elem(kind: Kind, a: *const u8, b: *const u8) -> pmix_value_cmp_t {
    // SAFETY: the caller's contract.
    ordering(unsafe { elem(kind, a, b, 0) })
}

/// A fixed-size char array's text.
fn fixed(s: &[c_char]) -> &[c_char] {
    &s[..cmem::bounded_len(s)]
}

/// # Safety
/// Both point to valid elements of `kind`.
unsafe fn elem(kind: Kind, a: *const u8, b: *const u8, depth: u32) -> Cmp {
    // SAFETY: the caller upholds the contract above: each arm reads the C type of `kind`.
    unsafe {
        use core::ptr::read_unaligned as rd;
        if depth > MAX_DEPTH {
            return Err(INCOMPATIBLE);
        }
        let num = match kind.shape() {
            Shape::Fields(fields) => {
                for f in fields {
                    let o = field(f.f, a.add(f.at), b.add(f.at), (a, b), depth)?;
                    if o.is_ne() {
                        return Ok(o);
                    }
                }
                return Ok(Ordering::Equal);
            }
            Shape::Num(n) => n,
            Shape::String => {
                return Ok(cmem::cstr_bytes(rd(a as *const *const c_char)).cmp(&cmem::cstr_bytes(rd(b as *const *const c_char))))
            }
            Shape::Nspace => return Ok(fixed(&*(a as *const pmix_nspace_t)).cmp(fixed(&*(b as *const pmix_nspace_t)))),
            Shape::ByteObject => return bytes(&*(a as *const pmix_byte_object_t), &*(b as *const pmix_byte_object_t)),
            Shape::Value => return value(&*(a as *const pmix_value_t), &*(b as *const pmix_value_t), depth + 1),
            Shape::DataArray => {
                let (x, y) = (&*(a as *const pmix_data_array_t), &*(b as *const pmix_data_array_t));
                let o = x.r#type.cmp(&y.r#type);
                if o.is_ne() {
                    return Ok(o);
                }
                let k = || Kind::of(x.r#type).ok_or(INCOMPATIBLE);
                let n = |d: &pmix_data_array_t| if d.array.is_null() { 0 } else { d.size };
                return array(k, (x.array as *const u8, n(x)), (y.array as *const u8, n(y)), depth);
            }
            Shape::Cpuset => {
                let (x, y) = (&*(a as *const pmix_cpuset_t), &*(b as *const pmix_cpuset_t));
                let bits = |c| super::cpuset::bitmap_bytes(c).map_err(|_| INCOMPATIBLE);
                return Ok((cmem::cstr_bytes(x.source), bits(x)?).cmp(&(cmem::cstr_bytes(y.source), bits(y)?)));
            }
            Shape::Topology => {
                let (x, y) = (&*(a as *const pmix_topology_t), &*(b as *const pmix_topology_t));
                let xml = |t| super::cpuset::topology_bytes(t).map_err(|_| INCOMPATIBLE);
                return Ok((cmem::cstr_bytes(x.source), xml(x)?).cmp(&(cmem::cstr_bytes(y.source), xml(y)?)));
            }
            Shape::DataBuffer => {
                let unread = |p| super::buffer::unread(&*(p as *const pmix_data_buffer_t)).map_err(|_| INCOMPATIBLE);
                return Ok(unread(a)?.cmp(unread(b)?));
            }
        };
        Ok(match num {
            Num::U(1) => rd(a).cmp(&rd(b)),
            Num::U(2) => rd(a as *const u16).cmp(&rd(b as *const u16)),
            Num::U(4) => rd(a as *const u32).cmp(&rd(b as *const u32)),
            Num::U(_) => rd(a as *const u64).cmp(&rd(b as *const u64)),
            Num::I(1) => rd(a as *const i8).cmp(&rd(b as *const i8)),
            Num::I(2) => rd(a as *const i16).cmp(&rd(b as *const i16)),
            Num::I(4) => rd(a as *const i32).cmp(&rd(b as *const i32)),
            Num::I(_) => rd(a as *const i64).cmp(&rd(b as *const i64)),
            Num::F32 => rd(a as *const f32).partial_cmp(&rd(b as *const f32)).ok_or(PMIX_VALUE_COMPARISON_NOT_AVAIL)?,
            Num::F64 => rd(a as *const f64).partial_cmp(&rd(b as *const f64)).ok_or(PMIX_VALUE_COMPARISON_NOT_AVAIL)?,
            Num::Timeval => {
                let (x, y) = (rd(a as *const libc::timeval), rd(b as *const libc::timeval));
                (x.tv_sec, x.tv_usec).cmp(&(y.tv_sec, y.tv_usec))
            }
            Num::Pointer => rd(a as *const usize).cmp(&rd(b as *const usize)),
        })
    }
}

/// One field of two compound elements (`whole`: the two elements, where an
/// array's count is).
///
/// # Safety
/// `a` and `b` point to valid fields of kind `f` inside the elements `whole`.
unsafe fn field(f: F, a: *const u8, b: *const u8, whole: (*const u8, *const u8), depth: u32) -> Cmp {
    // SAFETY: the caller's contract: each arm reads the field's C type.
    unsafe {
        Ok(match f {
            F::U8 => (*a).cmp(&*b),
            F::U16 | F::S16 => (*(a as *const u16)).cmp(&*(b as *const u16)),
            F::U32 => (*(a as *const u32)).cmp(&*(b as *const u32)),
            F::I32 | F::Pid => (*(a as *const i32)).cmp(&*(b as *const i32)),
            F::U64 => (*(a as *const u64)).cmp(&*(b as *const u64)),
            // (bit for bit: a NaN equals itself)
            F::F32 => (*(a as *const f32)).total_cmp(&*(b as *const f32)),
            F::Timeval => elem(Kind::Num(Num::Timeval), a, b, depth)?,
            F::Key { .. } => fixed(&*(a as *const pmix_key_t)).cmp(fixed(&*(b as *const pmix_key_t))),
            F::Nspace => elem(Kind::Nspace, a, b, depth)?,
            F::Proc => elem(Kind::Proc, a, b, depth)?,
            F::Str => elem(Kind::String, a, b, depth)?,
            F::Argv => {
                let list = |p: *const u8| {
                    let v = *(p as *const *const *mut c_char);
                    (!v.is_null()).then(|| (0..cmem::argv_len(v)).map(|i| cmem::cstr_bytes(*v.add(i))).collect::<Vec<_>>())
                };
                list(a).cmp(&list(b))
            }
            F::Bytes => bytes(&*(a as *const pmix_byte_object_t), &*(b as *const pmix_byte_object_t))?,
            F::Value => value(&*(a as *const pmix_value_t), &*(b as *const pmix_value_t), depth)?,
            F::Array { t, count } => {
                let side = |p: *const u8, whole: *const u8| {
                    let p = *(p as *const *const u8);
                    (p, if p.is_null() { 0 } else { *(whole.add(count) as *const usize) })
                };
                array(|| Kind::of(t).ok_or(INCOMPATIBLE), side(a, whole.0), side(b, whole.1), depth)?
            }
        })
    }
}

/// # Safety
/// Both byte objects are valid.
unsafe fn bytes(a: &pmix_byte_object_t, b: &pmix_byte_object_t) -> Cmp {
    // SAFETY: the caller's contract.
    unsafe {
        match (bo_slice(a), bo_slice(b)) {
            (Ok(a), Ok(b)) => Ok(a.cmp(b)),
            _ => Err(INCOMPATIBLE),
        }
    }
}

/// Two values: by type, then payload.
///
/// # Safety
/// Both values are valid.
unsafe fn value(a: &pmix_value_t, b: &pmix_value_t, depth: u32) -> Cmp {
    // SAFETY: the caller's contract.
    unsafe {
        let o = a.r#type.cmp(&b.r#type);
        if o.is_ne() || a.r#type == PMIX_UNDEF {
            return Ok(o);
        }
        let kind = Kind::of(a.r#type).ok_or(INCOMPATIBLE)?;
        let (pa, pb) = (value_payload(a, kind), value_payload(b, kind));
        if pa.is_null() || pb.is_null() {
            return Ok(pa.is_null().cmp(&pb.is_null()).reverse());
        }
        elem(kind, pa, pb, depth + 1)
    }
}

/// Two arrays (pointer, count): by count, then element by element; the
/// element kind is asked for only when there are elements.
///
/// # Safety
/// Each pointer is NULL with a count of 0, or points to that many valid elements.
unsafe fn array(kind: impl Fn() -> Result<Kind, pmix_value_cmp_t>, a: (*const u8, usize), b: (*const u8, usize), depth: u32) -> Cmp {
    if a.1 == 0 && b.1 == 0 {
        return Ok(Ordering::Equal);
    }
    let k = kind()?;
    if !sane_len(k, a.1) || !sane_len(k, b.1) {
        return Err(INCOMPATIBLE);
    }
    let o = a.1.cmp(&b.1);
    if o.is_ne() {
        return Ok(o);
    }
    for i in 0..a.1 {
        // SAFETY: the caller's contract; `i` is below both counts.
        let o = unsafe { elem(k, a.0.add(i * k.size()), b.0.add(i * k.size()), depth + 1)? };
        if o.is_ne() {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}
