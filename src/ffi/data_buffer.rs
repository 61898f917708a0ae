//! Data buffers (`pmix.h`): pack, unpack, copy, print, load, unload, embed,
//! compress; and OpenPMIx 5's buffer create, release, load, unload.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::elem;
use crate::data::kind::Kind;

/// Append `num_vals` elements of type `type_` from `src` to `buffer` (`target` is not
/// used).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL or inconsistent `buffer`, a negative
/// count or a NULL `src` with a positive count; PMIX_ERR_UNKNOWN_DATA_TYPE; another packing
/// error (e.g. PMIX_ERR_NOMEM).
///
/// # Safety
/// `buffer` is NULL or a valid (constructed) buffer; `src` is NULL or points to `num_vals`
/// valid elements of `type_` (for PMIX_STRING, `char *`s).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_pack(target: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, src: *mut c_void, num_vals: i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_pack", {
        require!("PMIx_Data_pack", !buffer.is_null());
        crate::data::pack(&mut *buffer, src, num_vals, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Unpack the next packed group of `type_` elements of `buffer` into `dest`;
/// `*max_num_values` gets their count.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for NULL arguments, a negative count or an
/// inconsistent buffer; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_TYPE_MISMATCH;
/// PMIX_ERR_UNPACK_INADEQUATE_SPACE; PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER. On error
/// nothing is consumed.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `max_num_values` is NULL or a readable, writable
/// count; `dest` is NULL or has room for that many elements of `type_`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unpack(source: *const pmix_proc_t, buffer: *mut pmix_data_buffer_t, dest: *mut c_void, max_num_values: *mut i32, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unpack", {
        require!("PMIx_Data_unpack", !buffer.is_null() && !max_num_values.is_null());
        crate::data::unpack(&mut *buffer, dest, &mut *max_num_values, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Set `*dest` to a new malloc'd deep copy of the `type_` element at `src` (for
/// PMIX_STRING, `src` is the string).
///
/// Returns PMIX_SUCCESS (the caller owns the copy); PMIX_ERR_BAD_PARAM for a NULL `dest` or
/// `src`; PMIX_ERR_UNKNOWN_DATA_TYPE; a copy error such as PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or points to a valid element of `type_` (for
/// PMIX_STRING, a NUL-terminated string).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy(dest: *mut *mut c_void, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy", {
        require!("PMIx_Data_copy", !dest.is_null() && !src.is_null());
        crate::data::copy(&mut *dest, src, type_).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Render the element of type `type_` at `src` as text, preceded by `prefix`.
///
/// Returns PMIX_SUCCESS with `*output` a malloc'd string (caller frees); PMIX_ERR_BAD_PARAM
/// for a NULL `output` or `src`; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM.
///
/// # Safety
/// `output` is NULL or writable; `prefix` is NULL or NUL-terminated; `src` is NULL or
/// points to a valid element of `type_` (for PMIX_STRING, the string).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_print(output: *mut *mut c_char, prefix: *mut c_char, src: *mut c_void, type_: pmix_data_type_t) -> pmix_status_t {
    status_entry!("PMIx_Data_print", {
        require!("PMIx_Data_print", !output.is_null() && !src.is_null());
        let pre = crate::cmem::cstr_bytes(prefix).map(String::from_utf8_lossy).unwrap_or_default();
        match crate::data::print(&pre, src, type_) {
            Ok(s) => {
                *output = crate::cmem::strdup_bytes(s.as_bytes());
                if (*output).is_null() { PMIX_ERR_NOMEM } else { PMIX_SUCCESS }
            }
            Err(e) => e,
        }
    })
}

/// Append the not yet unpacked bytes of `src` to `dest`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL or inconsistent buffer;
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `dest` and `src` are each NULL or a valid buffer.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(dest: *mut pmix_data_buffer_t, src: *mut pmix_data_buffer_t) -> pmix_status_t {
    status_entry!("PMIx_Data_copy_payload", {
        require!("PMIx_Data_copy_payload", !dest.is_null() && !src.is_null());
        crate::data::copy_payload(&mut *dest, &*src).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Move the not yet unpacked bytes of `buffer` into `payload`, leaving the buffer empty.
///
/// Returns PMIX_SUCCESS with `payload` holding malloc'd bytes (caller frees; NULL/0 when
/// none); PMIX_ERR_BAD_PARAM for a NULL or inconsistent argument; PMIX_ERR_NOMEM.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or writable (its previous bytes
/// are overwritten, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_unload", {
        require!("PMIx_Data_unload", !buffer.is_null() && !payload.is_null());
        crate::data::buffer::unload(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Make `buffer` take over the bytes of `payload` (its old contents are released; `payload`
/// is left empty).
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL argument or an inconsistent
/// `buffer`.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or a byte object whose `bytes` are
/// NULL or malloc'd and hold `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(buffer: *mut pmix_data_buffer_t, payload: *mut pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_load", {
        require!("PMIx_Data_load", !buffer.is_null() && !payload.is_null());
        crate::data::load(&mut *buffer, &mut *payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Replace the contents of `buffer` with a copy of the bytes of `payload`.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL argument, an inconsistent `buffer`
/// or a malformed `payload`; PMIX_ERR_NOMEM.
///
/// # Safety
/// `buffer` is NULL or a valid buffer; `payload` is NULL or a byte object whose `bytes`
/// hold `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(buffer: *mut pmix_data_buffer_t, payload: *const pmix_byte_object_t) -> pmix_status_t {
    status_entry!("PMIx_Data_embed", {
        require!("PMIx_Data_embed", !buffer.is_null() && !payload.is_null());
        crate::data::embed(&mut *buffer, &*payload).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Run `f` over the caller's bytes and hand back a malloc'ed result
/// (PMIx_Data_compress / _decompress): false on bad arguments or failure.
unsafe fn transform_bytes(f: fn(&[u8]) -> Option<Vec<u8>>, inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() || size == 0 {
        return false;
    }
    // SAFETY: the caller gives `size` readable bytes at `inbytes`.
    let Some(v) = f(unsafe { core::slice::from_raw_parts(inbytes, size) }) else { return false };
    let p = crate::data::compress::to_c(&v);
    if p.is_null() {
        return false;
    }
    // SAFETY: both out-pointers checked non-null above.
    unsafe {
        *outbytes = p;
        *nbytes = v.len();
    }
    true
}

/// Compress `size` bytes at `inbytes` into a new buffer, when that makes them smaller.
///
/// Returns true with `*outbytes` malloc'd (caller frees) and `*nbytes` its length; false
/// for NULL arguments, `size` 0, no gain, or no memory.
///
/// # Safety
/// `inbytes` is NULL or holds `size` readable bytes; `outbytes` and `nbytes` are each NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_compress", { transform_bytes(crate::data::compress::compress, inbytes, size, outbytes, nbytes) })
}

/// Restore bytes compressed by PMIx_Data_compress into a new buffer.
///
/// Returns true with `*outbytes` malloc'd (caller frees) and `*nbytes` its length; false
/// for NULL arguments, `size` 0, corrupt input, or no memory.
///
/// # Safety
/// `inbytes` is NULL or holds `size` readable bytes; `outbytes` and `nbytes` are each NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(inbytes: *const u8, size: usize, outbytes: *mut *mut u8, nbytes: *mut usize) -> bool {
    entry!("PMIx_Data_decompress", { transform_bytes(crate::data::compress::decompress, inbytes, size, outbytes, nbytes) })
}

/// Allocate an empty data buffer.
///
/// Returns a zeroed libc-allocated buffer (release it with PMIx_Data_buffer_release);
/// NULL when memory is short.
///
/// # Safety
/// No pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_create() -> *mut pmix_data_buffer_t {
    entry!("PMIx_Data_buffer_create", { cmem::calloc_one::<pmix_data_buffer_t>() })
}

/// Release a data buffer: its storage, then the buffer itself.
///
/// Returns nothing; a NULL `b` is ignored.
///
/// # Safety
/// `b` is NULL or a libc-allocated valid buffer whose storage is NULL or libc's; it is
/// not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_release(b: *mut pmix_data_buffer_t) {
    entry!("PMIx_Data_buffer_release", {
        if b.is_null() {
            return;
        }
        elem::destruct(Kind::DataBuffer, b as *mut u8);
        cmem::free(b);
    })
}

/// Make a buffer take over `sz` bytes at `bytes` as its unread contents (its old
/// contents are released; nothing is copied).
///
/// Returns nothing. A NULL `b`, or a buffer whose fields are inconsistent, takes
/// nothing (logged at PMIX_DEBUG >= 1) and the bytes stay the caller's; so do they when
/// `sz` is 0.
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes` is NULL or libc memory of `sz` bytes that the
/// caller no longer frees itself once taken.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_load(b: *mut pmix_data_buffer_t, bytes: *mut c_char, sz: usize) {
    entry!("PMIx_Data_buffer_load", {
        null_check!("PMIx_Data_buffer_load", b);
        let mut bo = pmix_byte_object_t { bytes, size: sz };
        if let Err(e) = crate::data::load(&mut *b, &mut bo) {
            crate::pmix_debug!(1, "PMIx_Data_buffer_load: not loaded [{}]", crate::strings::error_name(e));
        }
    })
}

/// Move a buffer's unread bytes out to the caller, leaving the buffer empty.
///
/// Returns nothing; `*bytes` gets a libc copy the caller frees (NULL when there are no
/// unread bytes) and `*sz` its length; NULL and 0 when `b` is NULL or inconsistent or
/// memory is short. NULL `bytes` or `sz` does nothing (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes` and `sz` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_unload(b: *mut pmix_data_buffer_t, bytes: *mut *mut c_char, sz: *mut usize) {
    entry!("PMIx_Data_buffer_unload", {
        null_check!("PMIx_Data_buffer_unload", bytes, sz);
        *bytes = ptr::null_mut();
        *sz = 0;
        null_check!("PMIx_Data_buffer_unload", b);
        let mut bo = pmix_byte_object_t { bytes: ptr::null_mut(), size: 0 };
        match crate::data::buffer::unload(&mut *b, &mut bo) {
            Ok(()) => {
                *bytes = bo.bytes;
                *sz = bo.size;
            }
            Err(e) => crate::pmix_debug!(1, "PMIx_Data_buffer_unload: nothing unloaded [{}]", crate::strings::error_name(e)),
        }
    })
}
