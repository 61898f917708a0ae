//! libhwloc, opened on first use: the handful of calls that treat an hwloc
//! topology as a value (XML export and import, duplicate, destroy, the root
//! object's summary), for the data layer (PMIX_TOPO pack, unpack, copy,
//! print) and for `hwloc.rs` (PMIx_Load_topology, distances).
//!
//! libhwloc (Debian's libhwloc15, the library OpenPMIx 4.2.2 links) is
//! opened with dlopen(3), never at init: programs that never touch a
//! topology pay nothing, and rpmix has no link-time dependency on hwloc.
//! A program that links hwloc itself gets the same library, so topologies
//! pass between its hwloc calls and ours.
//!
//! Topologies this library makes (unpacked, copied) are recorded: only
//! those are ever destroyed here. A topology a caller made stays the
//! caller's.

use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use std::collections::HashSet;
use std::sync::OnceLock;

use crate::abi::*;

pub type Topology = *mut c_void;

/// hwloc_topology_set_io_types_filter's "important" (OpenPMIx's choice).
pub const FILTER_KEEP_IMPORTANT: c_int = 3;
pub const FILTER_KEEP_ALL: c_int = 0;
/// hwloc_topology_set_flags: the topology describes this machine.
pub const FLAG_IS_THISSYSTEM: c_ulong = 1 << 1;
/// The fields of hwloc 2's `struct hwloc_obj` read here and in `hwloc.rs`,
/// by offset (the layout of hwloc 2.x on 64-bit Linux: the ABI of
/// libhwloc.so.15, checked against hwloc.h by make test step
/// `load-topology-vs-openpmix`).
pub mod obj {
    pub const NAME: usize = 24;
    pub const ATTR: usize = 40;
    pub const DEPTH: usize = 48;
    pub const NEXT_COUSIN: usize = 56;
    pub const PARENT: usize = 72;
    pub const ARITY: usize = 104;
    pub const CPUSET: usize = 184;
    pub const INFOS: usize = 216;
    pub const INFOS_COUNT: usize = 224;
}

/// Does a topology's or cpuset's source name hwloc ("hwloc", "hwloc:2.9.0",
/// any case)? Such an object holds an hwloc pointer.
pub fn names_hwloc(source: &[u8]) -> bool {
    source.get(..5).is_some_and(|p| p.eq_ignore_ascii_case(b"hwloc"))
}

/// The library, opened once (NULL: not installed).
pub fn library() -> *mut c_void {
    static LIB: OnceLock<usize> = OnceLock::new();
    // SAFETY: dlopen with a constant name; the handle is kept for the process.
    *LIB.get_or_init(|| unsafe { libc::dlopen(c"libhwloc.so.15".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) } as usize) as *mut c_void
}

/// dlsym of `name` in `lib`, as a function pointer of type `F`.
///
/// # Safety
/// `lib` is a dlopen handle and `F` is the C signature of `name`.
pub unsafe fn symbol<F: Copy>(lib: *mut c_void, name: &core::ffi::CStr) -> Option<F> {
    // SAFETY: the caller upholds the contract above: `lib` is a dlopen handle and `F` is the C signature of `name`.
    unsafe {
        let p = libc::dlsym(lib, name.as_ptr());
        // SAFETY: F is a function pointer type of pointer size (caller's contract).
        (!p.is_null()).then(|| core::mem::transmute_copy::<*mut c_void, F>(&p))
    }
}

/// `name` from the library, when it is installed and has it.
///
/// # Safety
/// `F` is the C signature of `name`.
unsafe fn func<F: Copy>(name: &core::ffi::CStr) -> Option<F> {
    let lib = library();
    // SAFETY: the caller's contract; `lib` is a dlopen handle.
    (!lib.is_null()).then(|| unsafe { symbol::<F>(lib, name) }).flatten()
}

/// The topologies made here (addresses): the only ones destroyed here.
static OURS: parking_lot::Mutex<Option<HashSet<usize>>> = parking_lot::Mutex::new(None);

/// Record `t` as ours (destroyed with the value that holds it).
pub fn adopt(t: Topology) -> Topology {
    OURS.lock().get_or_insert_with(HashSet::new).insert(t as usize);
    t
}

/// Is `t` a topology this library made?
pub fn is_ours(t: *const c_void) -> bool {
    OURS.lock().as_ref().is_some_and(|s| s.contains(&(t as usize)))
}

/// Destroy `t` if this library made it (true); a caller's topology is left alone.
///
/// # Safety
/// `t` is NULL, a topology of ours not in use elsewhere, or any other pointer (ignored).
pub unsafe fn destroy_if_ours(t: *mut c_void) -> bool {
    if !OURS.lock().as_mut().is_some_and(|s| s.remove(&(t as usize))) {
        return false;
    }
    // SAFETY: hwloc's signature; `t` is a topology we made and now forget.
    if let Some(destroy) = unsafe { func::<unsafe extern "C" fn(Topology)>(c"hwloc_topology_destroy") } {
        // SAFETY: as above.
        unsafe { destroy(t) };
    }
    true
}

/// The hwloc XML (v2) of `t`. None when hwloc is missing or cannot export it.
///
/// # Safety
/// `t` is NULL or a loaded hwloc topology.
pub unsafe fn export_xml(t: Topology) -> Option<String> {
    if t.is_null() {
        return None;
    }
    // SAFETY: hwloc 2's signatures.
    let (export, free) = unsafe {
        (
            func::<unsafe extern "C" fn(Topology, *mut *mut c_char, *mut c_int, c_ulong) -> c_int>(c"hwloc_topology_export_xmlbuffer")?,
            func::<unsafe extern "C" fn(Topology, *mut c_char)>(c"hwloc_free_xmlbuffer")?,
        )
    };
    let (mut buf, mut len): (*mut c_char, c_int) = (core::ptr::null_mut(), 0);
    // SAFETY: a loaded topology (caller); the buffer hwloc allocates is copied, then freed by hwloc.
    unsafe {
        if export(t, &mut buf, &mut len, 0) != 0 || buf.is_null() {
            return None;
        }
        let xml = core::ffi::CStr::from_ptr(buf).to_string_lossy().into_owned();
        free(t, buf);
        Some(xml)
    }
}

/// The support flags of `t` as hwloc 2 lays them out (discovery, cpubind,
/// membind: one byte a flag), `n` bytes in all. None without hwloc.
///
/// # Safety
/// `t` is NULL or a loaded hwloc topology.
pub unsafe fn support_flags(t: Topology, n: usize) -> Option<Vec<u8>> {
    if t.is_null() {
        return None;
    }
    // SAFETY: hwloc 2's signature.
    let get = unsafe { func::<unsafe extern "C" fn(Topology) -> *const [*const u8; 4]>(c"hwloc_topology_get_support")? };
    // SAFETY: a loaded topology (caller); hwloc's support struct holds four
    // pointers to arrays of one-byte flags, of which the first three are read
    // for their hwloc 2 sizes.
    unsafe {
        let s = get(t);
        if s.is_null() {
            return None;
        }
        let mut out = Vec::with_capacity(n);
        for (i, len) in [6usize, 11, 15].into_iter().enumerate() {
            let part = (*s)[i];
            if part.is_null() {
                out.extend(core::iter::repeat(0).take(len));
            } else {
                out.extend_from_slice(core::slice::from_raw_parts(part, len));
            }
        }
        out.resize(n, 0);
        Some(out)
    }
}

/// A new topology from hwloc XML, v1 or v2, with its important I/O devices;
/// `this_system`: it describes this machine (hwloc then binds and reads the
/// real one through it).
pub fn import_xml(xml: &[u8], this_system: bool) -> Result<Topology, pmix_status_t> {
    let text = std::ffi::CString::new(xml).map_err(|_| PMIX_ERR_BAD_PARAM)?;
    new_topology(Some(&text), this_system, FILTER_KEEP_IMPORTANT)
}

/// A topology another process sent (OpenPMIx's PMIX_TOPO): its XML with
/// every object it holds, and its support flags as sent (`support_flags`'
/// layout), so that it packs again to the same bytes.
pub fn import_sent(xml: &[u8], support: &[u8]) -> Result<Topology, pmix_status_t> {
    let text = std::ffi::CString::new(xml).map_err(|_| PMIX_ERR_BAD_PARAM)?;
    let t = new_topology(Some(&text), false, FILTER_KEEP_ALL)?;
    // SAFETY: hwloc 2's signature.
    if let Some(get) = unsafe { func::<unsafe extern "C" fn(Topology) -> *const [*mut u8; 4]>(c"hwloc_topology_get_support") } {
        // SAFETY: a topology we just loaded; its support arrays hold at
        // least hwloc 2's flags (the lengths below), which are written in
        // place as OpenPMIx does.
        unsafe {
            let s = get(t);
            if !s.is_null() {
                let mut at = 0;
                for (i, len) in [6usize, 11, 15].into_iter().enumerate() {
                    let part = (*s)[i];
                    if !part.is_null() && at + len <= support.len() {
                        core::ptr::copy_nonoverlapping(support.as_ptr().add(at), part, len);
                    }
                    at += len;
                }
            }
        }
    }
    Ok(t)
}

/// This machine's topology, as hwloc discovers it, with its important I/O
/// devices (network, OpenFabrics, GPUs: PMIx_Compute_distances walks them).
pub fn discover() -> Result<Topology, pmix_status_t> {
    new_topology(None, false, FILTER_KEEP_IMPORTANT)
}

/// hwloc's init, I/O filter ("important", as OpenPMIx), source (`xml`, or
/// discovery), load; destroyed on any failure.
fn new_topology(xml: Option<&std::ffi::CStr>, this_system: bool, io_types: c_int) -> Result<Topology, pmix_status_t> {
    // SAFETY: hwloc 2's signatures.
    let (init, set_xml, set_flags, load, destroy, io_filter) = unsafe {
        (
            func::<unsafe extern "C" fn(*mut Topology) -> c_int>(c"hwloc_topology_init"),
            func::<unsafe extern "C" fn(Topology, *const c_char, c_int) -> c_int>(c"hwloc_topology_set_xmlbuffer"),
            func::<unsafe extern "C" fn(Topology, c_ulong) -> c_int>(c"hwloc_topology_set_flags"),
            func::<unsafe extern "C" fn(Topology) -> c_int>(c"hwloc_topology_load"),
            func::<unsafe extern "C" fn(Topology)>(c"hwloc_topology_destroy"),
            func::<unsafe extern "C" fn(Topology, c_int) -> c_int>(c"hwloc_topology_set_io_types_filter"),
        )
    };
    let (Some(init), Some(set_xml), Some(set_flags), Some(load), Some(destroy)) = (init, set_xml, set_flags, load, destroy) else {
        crate::pmix_debug!(1, "hwloc: libhwloc.so.15 is missing or lacks the hwloc 2 API (install libhwloc15)");
        return Err(PMIX_ERR_NOT_SUPPORTED);
    };
    let len = match xml {
        Some(x) => c_int::try_from(x.to_bytes_with_nul().len()).map_err(|_| PMIX_ERR_BAD_PARAM)?,
        None => 0,
    };
    let mut t: Topology = core::ptr::null_mut();
    // SAFETY: a topology of our own, fed the NUL-terminated buffer (hwloc
    // reads it during load), destroyed on any failure.
    unsafe {
        if init(&mut t) != 0 {
            return Err(PMIX_ERR_NOMEM);
        }
        if let Some(f) = io_filter {
            f(t, io_types);
        }
        let configured = match xml {
            Some(x) => set_xml(t, x.as_ptr(), len) == 0 && set_flags(t, if this_system { FLAG_IS_THISSYSTEM } else { 0 }) == 0,
            None => true,
        };
        if !configured || load(t) != 0 {
            destroy(t);
            return Err(if xml.is_some() {
                crate::pmix_debug!(1, "hwloc: a topology's XML does not load");
                PMIX_ERR_BAD_PARAM
            } else {
                crate::pmix_debug!(1, "hwloc: hwloc could not discover this machine");
                PMIX_ERR_NOT_AVAILABLE
            });
        }
    }
    Ok(t)
}

/// A copy of `t` (recorded as ours).
///
/// # Safety
/// `t` is a loaded hwloc topology.
pub unsafe fn duplicate(t: Topology) -> Result<Topology, pmix_status_t> {
    // SAFETY: hwloc 2's signature.
    let dup = unsafe { func::<unsafe extern "C" fn(*mut Topology, Topology) -> c_int>(c"hwloc_topology_dup") }.ok_or(PMIX_ERR_NOT_SUPPORTED)?;
    let mut new: Topology = core::ptr::null_mut();
    // SAFETY: a loaded topology (caller); `new` receives hwloc's copy.
    if unsafe { dup(&mut new, t) } != 0 || new.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    Ok(adopt(new))
}

/// The root object's type name and number of children ("Machine", 2).
///
/// # Safety
/// `t` is a loaded hwloc topology.
pub unsafe fn root_summary(t: Topology) -> Option<(String, u32)> {
    // SAFETY: hwloc 2's signatures.
    let (by_depth, type_string) = unsafe {
        (
            func::<unsafe extern "C" fn(Topology, c_int, c_uint) -> *mut c_void>(c"hwloc_get_obj_by_depth")?,
            func::<unsafe extern "C" fn(c_int) -> *const c_char>(c"hwloc_obj_type_string")?,
        )
    };
    // SAFETY: the root object of a loaded topology; `type` is its first field
    // and `arity` at obj::ARITY (hwloc 2's layout).
    unsafe {
        let root = by_depth(t, 0, 0);
        if root.is_null() {
            return None;
        }
        let kind = core::ptr::read_unaligned(root as *const c_int);
        let arity = core::ptr::read_unaligned((root as *const u8).add(obj::ARITY) as *const c_uint);
        let name = type_string(kind);
        let name = if name.is_null() { "?".to_string() } else { core::ffi::CStr::from_ptr(name).to_string_lossy().into_owned() };
        Some((name, arity))
    }
}
