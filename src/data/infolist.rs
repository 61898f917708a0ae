//! `PMIx_Info_list_*`: a growable list of infos behind an opaque `void *`.
//!
//! `add` and `xfer` copy into the list; `insert` keeps a shallow copy of the
//! caller's info marked PMIX_INFO_PERSISTENT (its value still the caller's,
//! as with OpenPMIx), so `release` frees only what the list copied.
//! `convert` deep-copies everything into a PMIX_INFO data array; a `Snapshot`
//! is such a copy, through which `find_key` and `replace_value` give OpenPMIx
//! 5's "add unique" functions their entry found or replaced.

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

/// An info's key: its bytes up to the NUL, at most PMIX_MAX_KEYLEN of them.
fn key_of(info: &pmix_info_t) -> &[u8] {
    let n = crate::cmem::bounded_len(&info.key[..PMIX_MAX_KEYLEN]);
    // SAFETY: `n` bytes of the key array; c_char and u8 have one layout.
    unsafe { core::slice::from_raw_parts(info.key.as_ptr() as *const u8, n) }
}

/// A deep copy of a list's infos (PMIx_Info_list_convert), freed on drop.
pub struct Snapshot(pmix_data_array_t);

impl Snapshot {
    /// # Safety
    /// The infos inserted into `l` (PMIx_Info_list_insert) are still valid.
    pub unsafe fn of(l: &InfoList) -> Res<Snapshot> {
        // SAFETY: an all-zero data array is empty; the caller vouches for `l`.
        unsafe {
            let mut d: pmix_data_array_t = core::mem::zeroed();
            match l.convert(&mut d) {
                Ok(()) | Err(PMIX_ERR_EMPTY) => Ok(Snapshot(d)),
                Err(e) => Err(e),
            }
        }
    }

    pub fn infos(&self) -> &[pmix_info_t] {
        if self.0.array.is_null() || self.0.size == 0 {
            return &[];
        }
        // SAFETY: convert left `size` infos at `array`.
        unsafe { core::slice::from_raw_parts(self.0.array as *const pmix_info_t, self.0.size) }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        // SAFETY: the array convert built, owned by us alone.
        unsafe { elem::destruct_darray(&mut self.0) }
    }
}

/// Where `key` first appears in the list (compared as PMIX_CHECK_KEY, over
/// PMIX_MAX_KEYLEN bytes), with the snapshot it was found in.
///
/// # Safety
/// As `Snapshot::of`.
pub unsafe fn find_key(l: &InfoList, key: &[u8]) -> Res<Option<(Snapshot, usize)>> {
    // SAFETY: the caller upholds the contract above.
    let snap = unsafe { Snapshot::of(l) }?;
    let at = snap.infos().iter().position(|i| key_of(i) == key);
    Ok(at.map(|at| (snap, at)))
}

/// Give entry `at` of the list a copy of `value`, keeping its key and flags.
///
/// The list's entries cannot be reached in place from here, so the list is rebuilt from
/// `snap` (its deep copy) and takes the new contents: entries that were inserted with
/// PMIx_Info_list_insert become the list's own copies (the caller's infos are neither
/// changed nor freed, and later changes to them are no longer seen). On failure the list
/// is left as it was.
///
/// # Safety
/// `snap` is a snapshot of `l`; `value` is a valid value.
pub unsafe fn replace_value(l: &mut InfoList, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res {
    let fresh = start();
    // SAFETY: `fresh` is the live list just started; the caller upholds the rest.
    let done = match unsafe { fill_replaced(fresh, snap, at, value) } {
        Ok(nl) => {
            core::mem::swap(l, nl);
            Ok(())
        }
        Err(e) => Err(e),
    };
    // SAFETY: `fresh` is ours and live; it now holds the old entries (or the partial new
    // ones on failure).
    unsafe { release(fresh) };
    done
}

/// Fill the new list `fresh` with copies of `snap`'s infos, entry `at` taking `value`.
///
/// # Safety
/// As `replace_value`, `fresh` a live list handle.
unsafe fn fill_replaced<'a>(fresh: *mut c_void, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res<&'a mut InfoList> {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let nl = get(fresh)?;
        for (i, info) in snap.infos().iter().enumerate() {
            if i == at {
                // A shallow view: xfer deep-copies it, nothing here owns the value.
                let with = pmix_info_t { key: info.key, flags: info.flags, value: *value };
                nl.xfer(&with)?;
            } else {
                nl.xfer(info)?;
            }
        }
        Ok(nl)
    }
}
