//! `PMIx_Info_list_*`: a growable list of infos behind an opaque `void *`.
//!
//! `add` and `xfer` copy into the list; `insert` keeps a shallow copy of the
//! caller's info marked PMIX_INFO_PERSISTENT (its value still the caller's,
//! as with OpenPMIx), so `release` frees only what the list copied.
//! `convert` deep-copies everything into a PMIX_INFO data array.

use core::ffi::c_void;

use super::elem;
use crate::status::Res;
use super::kind::Kind;
use super::value;
use crate::abi::*;

const MAGIC: u64 = 0x7270_6d69_785f_696c; // "rpmix_il"

enum Item {
    Owned(Box<pmix_info_t>),
    /// A bitwise copy of an inserted info: its value's memory is the caller's.
    Shallow(Box<pmix_info_t>),
}

pub struct InfoList {
    magic: u64,
    items: Vec<Item>,
}

impl Drop for InfoList {
    fn drop(&mut self) {
        for it in self.items.drain(..) {
            if let Item::Owned(mut b) = it {
                // SAFETY: owned infos were built by info_load / xfer.
                unsafe { value::destruct(&mut b.value) };
            }
        }
        self.magic = 0;
    }
}

pub fn start() -> *mut c_void {
    Box::into_raw(Box::new(InfoList { magic: MAGIC, items: Vec::new() })) as *mut c_void
}

/// The list behind a handle, or BAD_PARAM for NULL or a pointer that is not a list.
///
/// # Safety
/// `p` is NULL or a handle from `start` that was not released.
pub unsafe fn get<'a>(p: *mut c_void) -> Res<&'a mut InfoList> {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a handle from `start` that was not released.
    unsafe {
        if p.is_null() {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let l = &mut *(p as *mut InfoList);
        if l.magic != MAGIC {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        Ok(l)
    }
}

impl InfoList {
    /// # Safety
    /// As `super::info_load`.
    pub unsafe fn add(&mut self, key: *const core::ffi::c_char, data: *const c_void, t: pmix_data_type_t) -> Res {
        // SAFETY: the caller upholds the contract above: As `super::info_load`.
        unsafe {
            let mut info: Box<pmix_info_t> = Box::new(core::mem::zeroed());
            super::info_load(&mut info, key, data, t)?;
            self.items.push(Item::Owned(info));
            Ok(())
        }
    }
    /// As `add`, but the new info goes first.
    ///
    /// # Safety
    /// As `super::info_load`.
    pub unsafe fn prepend(&mut self, key: *const core::ffi::c_char, data: *const c_void, t: pmix_data_type_t) -> Res {
        // SAFETY: the caller upholds the contract above: As `super::info_load`.
        unsafe {
            let mut info: Box<pmix_info_t> = Box::new(core::mem::zeroed());
            super::info_load(&mut info, key, data, t)?;
            self.items.insert(0, Item::Owned(info));
            Ok(())
        }
    }
    /// The info at position `i`: the list's own copy, or the caller's inserted info.
    pub fn info_at(&mut self, i: usize) -> Option<*mut pmix_info_t> {
        self.items.get_mut(i).map(|it| match it {
            Item::Owned(b) => &mut **b as *mut pmix_info_t,
            Item::Shallow(b) => &mut **b as *mut pmix_info_t,
        })
    }
    /// Keep a shallow copy of `info` (its value stays the caller's).
    ///
    /// # Safety
    /// `info` is NULL or a valid info whose value outlives the list.
    pub unsafe fn insert(&mut self, info: *mut pmix_info_t) -> Res {
        if info.is_null() {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        // SAFETY: non-NULL, and the caller vouches for a valid info; the
        // copy shares its value memory and is marked so nothing frees it.
        let mut copy = Box::new(unsafe { core::ptr::read(info) });
        copy.flags |= PMIX_INFO_PERSISTENT;
        self.items.push(Item::Shallow(copy));
        Ok(())
    }
    /// # Safety
    /// `src` is a valid info.
    pub unsafe fn xfer(&mut self, src: &pmix_info_t) -> Res {
        // SAFETY: the caller upholds the contract above: `src` is a valid info.
        unsafe {
            let mut info: Box<pmix_info_t> = Box::new(core::mem::zeroed());
            super::info_xfer(&mut info, src)?;
            self.items.push(Item::Owned(info));
            Ok(())
        }
    }
    /// # Safety
    /// inserted infos are still valid; `out` owns nothing.
    pub unsafe fn convert(&self, out: &mut pmix_data_array_t) -> Res {
        // SAFETY: the caller upholds the contract above: inserted infos are still valid; `out` owns nothing.
        unsafe {
            out.r#type = PMIX_INFO;
            out.size = 0;
            out.array = core::ptr::null_mut();
            if self.items.is_empty() {
                return Err(PMIX_ERR_EMPTY);
            }
            let n = self.items.len();
            let arr = elem::alloc_array(Kind::Info, n)?;
            for (i, it) in self.items.iter().enumerate() {
                let src: *const pmix_info_t = match it {
                    Item::Owned(b) | Item::Shallow(b) => &**b,
                };
                let dst = arr.add(i * Kind::Info.size());
                if let Err(e) = elem::copy(Kind::Info, dst, src as *const u8, 0) {
                    elem::free_array(Kind::Info, arr, n);
                    return Err(e);
                }
                // A deep copy owns its value, whatever marked the list's own.
                if matches!(it, Item::Shallow(_)) {
                    (*(dst as *mut pmix_info_t)).flags &= !PMIX_INFO_PERSISTENT;
                }
            }
            out.array = arr as *mut c_void;
            out.size = n;
            Ok(())
        }
    }
}

/// # Safety
/// `p` is NULL or a live handle from `start`.
pub unsafe fn release(p: *mut c_void) {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a live handle from `start`.
    unsafe {
        if get(p).is_ok() {
            drop(Box::from_raw(p as *mut InfoList));
        }
    }
}
