//! Byte objects (`pmix_byte_object_t`): their bytes, and new copies of them.

use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::status::Res;

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

/// # Safety
/// `s.bytes` is NULL or holds `s.size` bytes.
pub unsafe fn copy_bo(d: &mut pmix_byte_object_t, s: &pmix_byte_object_t) -> Res {
    // SAFETY: the caller upholds the contract above: `s.bytes` is NULL or holds `s.size` bytes.
    unsafe { load_bo(d, bo_slice(s)?) }
}

/// `d` = a new copy of `bytes` (NULL and 0 when empty), replacing what it
/// held without freeing it.
pub fn load_bo(d: &mut pmix_byte_object_t, bytes: &[u8]) -> Res {
    d.bytes = ptr::null_mut();
    d.size = 0;
    if bytes.is_empty() {
        return Ok(());
    }
    let p = cmem::dup_bytes(bytes);
    if p.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    d.bytes = p;
    d.size = bytes.len();
    Ok(())
}
