//! `PMIx_Value_compare`: values and elements compared, the non-numeric ones
//! by their packed form.

use core::ffi::c_char;

use super::byteobj::bo_slice;
use super::elem::value_payload;
use super::kind::{Kind, Num};
use crate::abi::*;
use crate::cmem;

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
        let (pa, pb) = (value_payload(a, kind), value_payload(b, kind));
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
