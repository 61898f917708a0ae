//! `pmix_data_buffer_t`: a C-visible byte buffer (libc memory) with a pack end
//! and an unpack cursor. Every function validates the struct first, because C
//! callers build it by hand (PMIX_DATA_BUFFER_CONSTRUCT is a memset).

use core::ffi::c_char;
use core::ptr;

use crate::status::Res;
use crate::abi::*;
use crate::cmem;

/// Check the invariants: `base <= unpack <= base + used <= base + allocated`,
/// and an empty (NULL) buffer has no bytes.
pub fn check(b: &pmix_data_buffer_t) -> Res {
    if b.base_ptr.is_null() {
        return if b.bytes_used == 0 { Ok(()) } else { Err(PMIX_ERR_BAD_PARAM) };
    }
    if b.bytes_used > b.bytes_allocated {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let off = unpack_offset(b)?;
    if off > b.bytes_used {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    Ok(())
}

fn unpack_offset(b: &pmix_data_buffer_t) -> Res<usize> {
    if b.unpack_ptr.is_null() {
        return Ok(0);
    }
    let off = (b.unpack_ptr as usize).checked_sub(b.base_ptr as usize).ok_or(PMIX_ERR_BAD_PARAM)?;
    Ok(off)
}

/// The bytes packed but not yet unpacked.
///
/// # Safety
/// `b` satisfies `check` and its base holds `bytes_used` bytes.
pub unsafe fn unread(b: &pmix_data_buffer_t) -> Res<&[u8]> {
    // SAFETY: the caller upholds the contract above: `b` satisfies `check` and its base holds `bytes_used` bytes.
    unsafe {
        check(b)?;
        if b.base_ptr.is_null() {
            return Ok(&[]);
        }
        let off = unpack_offset(b)?;
        Ok(core::slice::from_raw_parts((b.base_ptr as *const u8).add(off), b.bytes_used - off))
    }
}

/// Append bytes, growing the allocation geometrically.
///
/// # Safety
/// `b` satisfies `check`; its memory came from libc.
pub unsafe fn append(b: &mut pmix_data_buffer_t, data: &[u8]) -> Res {
    // SAFETY: the caller upholds the contract above: `b` satisfies `check`; its memory came from libc.
    unsafe {
        check(b)?;
        let off = if b.base_ptr.is_null() { 0 } else { unpack_offset(b)? };
        let need = b.bytes_used.checked_add(data.len()).ok_or(PMIX_ERR_NOMEM)?;
        if need > b.bytes_allocated || b.base_ptr.is_null() {
            let cap = need.max(b.bytes_allocated.saturating_mul(2)).max(64);
            let p = libc::realloc(b.base_ptr as *mut libc::c_void, cap) as *mut c_char;
            if p.is_null() {
                return Err(PMIX_ERR_NOMEM);
            }
            b.base_ptr = p;
            b.bytes_allocated = cap;
        }
        ptr::copy_nonoverlapping(data.as_ptr(), (b.base_ptr as *mut u8).add(b.bytes_used), data.len());
        b.bytes_used = need;
        b.pack_ptr = b.base_ptr.add(b.bytes_used);
        b.unpack_ptr = b.base_ptr.add(off);
        Ok(())
    }
}

/// Mark `n` unread bytes as consumed.
///
/// # Safety
/// `b` satisfies `check` and has at least `n` unread bytes.
pub unsafe fn consume(b: &mut pmix_data_buffer_t, n: usize) {
    // SAFETY: the caller upholds the contract above: `b` satisfies `check` and has at least `n` unread bytes.
    unsafe {
        if n > 0 {
            let off = unpack_offset(b).unwrap_or(0);
            b.unpack_ptr = b.base_ptr.add(off + n);
        }
    }
}

/// Replace the buffer's contents by a copy of `bytes` (unread, cursor at start).
///
/// # Safety
/// `b` is zeroed or owns nothing.
pub unsafe fn load_bytes(b: &mut pmix_data_buffer_t, bytes: &[u8]) -> Res {
    // SAFETY: the caller upholds the contract above: `b` is zeroed or owns nothing.
    unsafe {
        *b = core::mem::zeroed();
        if bytes.is_empty() {
            return Ok(());
        }
        append(b, bytes)
    }
}

/// Deep copy of a buffer: the copy holds the source's unread bytes.
///
/// # Safety
/// `s` satisfies `check`.
pub unsafe fn copy_buffer(d: &mut pmix_data_buffer_t, s: &pmix_data_buffer_t) -> Res {
    // SAFETY: the caller upholds the contract above: `s` satisfies `check`.
    unsafe {
        let bytes = unread(s)?;
        load_bytes(d, bytes)
    }
}

/// Free the storage and zero the struct.
///
/// # Safety
/// `b`'s base is NULL or libc memory.
pub unsafe fn release(b: &mut pmix_data_buffer_t) {
    // SAFETY: the caller upholds the contract above: `b`'s base is NULL or libc memory.
    unsafe {
        cmem::free(b.base_ptr);
        *b = core::mem::zeroed();
    }
}

/// Take the unread bytes out as a byte object (malloc'd); the buffer is emptied.
///
/// # Safety
/// `b` satisfies `check`.
pub unsafe fn unload(b: &mut pmix_data_buffer_t, bo: &mut pmix_byte_object_t) -> Res {
    // SAFETY: the caller upholds the contract above: `b` satisfies `check`.
    unsafe {
        super::byteobj::load_bo(bo, unread(b)?)?;
        release(b);
        Ok(())
    }
}
