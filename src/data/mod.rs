//! The PMIx data utilities: everything that needs no server.
//!
//! Data lives in its C representation (`pmix_value_t`, `pmix_info_t`, ...) in
//! libc memory; `kind` classifies the types (and lists the fields of the
//! compound ones, which the other modules walk), `elem` copies/destroys single
//! elements (values among them), `value` handles `pmix_value_t`, `compare`
//! compares, `size` measures (PMIx_Value_get_size), `byteobj` holds byte
//! objects, `infolist` is PMIx_Info_list_*'s list, `pack` (rpmix's) and `v41`
//! (OpenPMIx's) serialise, and the functions below are what the `PMIx_*`
//! entries call.

pub mod buffer;
pub mod byteobj;
pub mod carray;
pub mod compare;
pub mod compress;
pub mod cpuset;
pub mod elem;
pub mod infolist;
pub mod kind;
pub mod pack;
pub mod print;
pub mod size;
pub mod v41;
pub mod value;

use core::ffi::{c_char, c_void};

use crate::status::Res;
use kind::Kind;

use crate::abi::*;
use crate::cmem;

/// `PMIx_Info_load`: key (at most PMIX_MAX_KEYLEN bytes, never over-read) and
/// a copy of the data. NULL data with PMIX_BOOL means true.
///
/// # Safety
/// `key` is NULL or a string readable up to its NUL or PMIX_MAX_KEYLEN bytes;
/// `data` as for `value::load`.
pub unsafe fn info_load(info: &mut pmix_info_t, key: *const c_char, data: *const c_void, t: pmix_data_type_t) -> Res {
    // SAFETY: the caller upholds the contract above: `key` is NULL or a string readable up to its NUL or PMIX_MAX_KEYLEN bytes; `data` as for `value::load`.
    unsafe {
        let k = cmem::bounded_cstr(key, PMIX_MAX_KEYLEN + 1).ok_or(PMIX_ERR_BAD_PARAM)?;
        if k.len() > PMIX_MAX_KEYLEN {
            crate::pmix_debug!(1, "PMIx_Info_load: key longer than PMIX_MAX_KEYLEN");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        cmem::load_fixed(&mut info.key, k);
        info.flags = 0;
        value::load(&mut info.value, data, t)
    }
}

/// `PMIx_Info_xfer`: key, directives and a deep copy of the value.
///
/// # Safety
/// `src` is a valid info.
pub unsafe fn info_xfer(dst: &mut pmix_info_t, src: &pmix_info_t) -> Res {
    // SAFETY: the caller upholds the contract above: `src` is a valid info.
    unsafe {
        dst.key = src.key;
        dst.flags = src.flags;
        value::xfer(&mut dst.value, &src.value, 0)
    }
}

/// Element pointer of `src` as PMIx passes it: for PMIX_STRING the data
/// pointer *is* the string, so the element is the pointer variable itself.
fn with_elem<R>(src: *const c_void, t: pmix_data_type_t, f: impl FnOnce(*const u8) -> R) -> R {
    if t == PMIX_STRING {
        let s = src as *const c_char;
        f(&s as *const *const c_char as *const u8)
    } else {
        f(src as *const u8)
    }
}

/// `PMIx_Data_pack`: append `n` elements of type `t` (a C array; `char **`
/// for strings) in OpenPMIx's v41 format (`v41.rs`), non-described unless
/// the environment asks for the fully described form, as OpenPMIx reads it.
/// On error nothing is appended (OpenPMIx leaves what it wrote so far).
///
/// # Safety
/// `src` points to `n` valid elements.
pub unsafe fn pack(buf: &mut pmix_data_buffer_t, src: *const c_void, n: i32, t: pmix_data_type_t) -> Res {
    // SAFETY: the caller's contract.
    unsafe { pack_as(buf, src, n, t, v41::described_from_env()) }
}

/// `pack` in the given form (`described`: the fully described one).
///
/// # Safety
/// As `pack`.
pub unsafe fn pack_as(buf: &mut pmix_data_buffer_t, src: *const c_void, n: i32, t: pmix_data_type_t, described: bool) -> Res {
    // SAFETY: the caller upholds the contract above: `src` points to `n` valid elements.
    unsafe {
        if n < 0 || (n > 0 && src.is_null()) {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        buffer::check(buf)?;
        let mut enc = v41::Encoder::default();
        enc.items(t, src as *const u8, n as usize, described)?;
        buffer::append(buf, enc.bytes())
    }
}

/// `PMIx_Data_unpack`: the next pack call's elements into `dst` (room for `*n`).
/// All or nothing: on any error the buffer's cursor does not move and `dst`
/// holds nothing to free (OpenPMIx consumes what it read, and fills `*n`
/// elements when more were packed).
///
/// # Safety
/// `dst` has room for `*n` elements of type `t`.
pub unsafe fn unpack(buf: &mut pmix_data_buffer_t, dst: *mut c_void, n: &mut i32, t: pmix_data_type_t) -> Res {
    // SAFETY: the caller's contract.
    unsafe { unpack_as(buf, dst, n, t, v41::described_from_env()) }
}

/// `unpack` in the given form (`described`: the fully described one, where
/// a type other than the one packed is refused with PMIX_ERR_PACK_MISMATCH).
///
/// # Safety
/// As `unpack`.
pub unsafe fn unpack_as(buf: &mut pmix_data_buffer_t, dst: *mut c_void, n: &mut i32, t: pmix_data_type_t, described: bool) -> Res {
    // SAFETY: the caller upholds the contract above: `dst` has room for `*n` elements of type `t`.
    unsafe {
        if *n < 0 || dst.is_null() {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        let bytes = buffer::unread(buf)?;
        if bytes.is_empty() {
            return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
        }
        let mut dec = v41::Decoder::new(bytes);
        let count = dec.header(described, t)?;
        if count as u64 > *n as u64 {
            return Err(PMIX_ERR_UNPACK_INADEQUATE_SPACE);
        }
        let base = dst as *mut u8;
        let elements = if t == PMIX_POINTER { count.min(1) } else { count };
        if let Some(r) = dec.numbers(t, base, elements) {
            // (plain integers: nothing to free on error)
            r?;
            buffer::consume(buf, dec.position());
            *n = count as i32;
            return Ok(());
        }
        for i in 0..elements {
            if let Err(e) = dec.elem(t, base.add(i * kind.size()), 0) {
                for j in 0..i {
                    elem::destruct(kind, base.add(j * kind.size()));
                }
                return Err(e);
            }
        }
        let used = dec.position();
        buffer::consume(buf, used);
        *n = count as i32;
        Ok(())
    }
}

/// `PMIx_Data_copy`: `*dest` = a new deep copy of the element at `src`.
///
/// # Safety
/// `src` as for `with_elem`.
pub unsafe fn copy(dest: &mut *mut c_void, src: *const c_void, t: pmix_data_type_t) -> Res {
    // SAFETY: the caller upholds the contract above: `src` as for `with_elem`.
    unsafe {
        let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        if t == PMIX_STRING {
            *dest = elem::dup_str(src as *const c_char)? as *mut c_void;
            return Ok(());
        }
        let p = elem::alloc_array(kind, 1)?;
        if let Err(e) = elem::copy(kind, p, src as *const u8, 0) {
            cmem::free(p);
            return Err(e);
        }
        *dest = p as *mut c_void;
        Ok(())
    }
}

/// `PMIx_Data_print` text.
///
/// # Safety
/// `src` as for `with_elem`.
pub unsafe fn print(prefix: &str, src: *const c_void, t: pmix_data_type_t) -> Res<String> {
    // SAFETY: the caller upholds the contract above: `src` as for `with_elem`.
    unsafe {
        Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        Ok(with_elem(src, t, |p| print::data(prefix, t, p)))
    }
}

/// `PMIx_Data_copy_payload`: append `src`'s unread bytes to `dest`.
///
/// # Safety
/// Both buffers are valid.
pub unsafe fn copy_payload(dest: &mut pmix_data_buffer_t, src: &pmix_data_buffer_t) -> Res {
    // SAFETY: the caller upholds the contract above: Both buffers are valid.
    unsafe {
        let bytes = buffer::unread(src)?.to_vec();
        buffer::append(dest, &bytes)
    }
}

/// `PMIx_Data_load`: the buffer takes the payload's bytes (the byte object is emptied).
///
/// # Safety
/// Both are valid; `payload.bytes` is libc memory.
pub unsafe fn load(buf: &mut pmix_data_buffer_t, payload: &mut pmix_byte_object_t) -> Res {
    // SAFETY: the caller upholds the contract above: Both are valid; `payload.bytes` is libc memory.
    unsafe {
        buffer::check(buf)?;
        buffer::release(buf);
        if payload.bytes.is_null() || payload.size == 0 {
            return Ok(());
        }
        buf.base_ptr = payload.bytes;
        buf.bytes_allocated = payload.size;
        buf.bytes_used = payload.size;
        buf.unpack_ptr = buf.base_ptr;
        buf.pack_ptr = buf.base_ptr.add(payload.size);
        payload.bytes = core::ptr::null_mut();
        payload.size = 0;
        Ok(())
    }
}

/// `PMIx_Data_embed`: the buffer gets a copy of the payload's bytes.
///
/// # Safety
/// Both are valid.
pub unsafe fn embed(buf: &mut pmix_data_buffer_t, payload: &pmix_byte_object_t) -> Res {
    // SAFETY: the caller upholds the contract above: Both are valid.
    unsafe {
        buffer::check(buf)?;
        // Copy first: the payload may point into the buffer being replaced.
        let bytes = value::bo_slice(payload)?.to_vec();
        buffer::release(buf);
        buffer::load_bytes(buf, &bytes)
    }
}

#[cfg(test)]
mod tests;
