//! An owned deep copy of a C array of PMIx structs (apps, queries): what
//! spawn and query requests carry from the caller to the server and host.

use crate::abi::*;
use crate::data::kind::Kind;

/// An owned C array of PMIx structs (apps, queries), freed on drop.
pub struct CArray {
    pub kind: Kind,
    pub ptr: *mut u8,
    pub len: usize,
}

// SAFETY: the array exclusively owns its libc memory.
unsafe impl Send for CArray {}

impl CArray {
    /// A deep copy of `n` elements at `p`.
    ///
    /// # Safety
    /// `p` is NULL or points to `n` valid elements of `kind`.
    pub unsafe fn copy(kind: Kind, p: *const u8, n: usize) -> Result<CArray, pmix_status_t> {
        // SAFETY: the caller upholds the contract above: `p` is NULL or points to `n` valid elements of `kind`.
        unsafe {
            let (ptr, len) = super::elem::copy_array(kind, p, n, 0)?;
            Ok(CArray { kind, ptr, len })
        }
    }
    pub fn empty(kind: Kind) -> CArray {
        CArray { kind, ptr: core::ptr::null_mut(), len: 0 }
    }
    pub fn apps(&self) -> &[pmix_app_t] {
        assert_eq!(self.kind, Kind::App);
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: ptr holds len apps.
        unsafe { core::slice::from_raw_parts(self.ptr as *const pmix_app_t, self.len) }
    }
    pub fn apps_mut(&mut self) -> &mut [pmix_app_t] {
        assert_eq!(self.kind, Kind::App);
        if self.ptr.is_null() {
            return &mut [];
        }
        // SAFETY: ptr holds len apps, owned by us alone.
        unsafe { core::slice::from_raw_parts_mut(self.ptr as *mut pmix_app_t, self.len) }
    }
    pub fn queries(&self) -> &[pmix_query_t] {
        assert_eq!(self.kind, Kind::Query);
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: ptr holds len queries.
        unsafe { core::slice::from_raw_parts(self.ptr as *const pmix_query_t, self.len) }
    }
}

impl Drop for CArray {
    fn drop(&mut self) {
        // SAFETY: we own the array.
        unsafe { super::elem::free_array(self.kind, self.ptr, self.len) }
    }
}
