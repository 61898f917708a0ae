//! The process's hwloc topology (PMIx_Load_topology).
//!
//! libhwloc (Debian's libhwloc15, the library OpenPMIx 4.2.2 links) is
//! opened with dlopen(3) the first time a topology is asked for, never at
//! init: programs that never ask pay nothing, and rpmix has no link-time
//! dependency on hwloc. A program that links hwloc itself gets the same
//! library from dlopen, so the pointer we hand out works with its hwloc
//! calls. Five symbols are used; a small declaration block is all it takes,
//! where a bindings crate would bring hwloc's whole API and a build-time
//! dependency on its headers.
//!
//! The topology is discovered once per process and shared by every
//! PMIx_Load_topology; PMIx_Topology_destruct releases the caller's copy of
//! the source string and never destroys the shared topology, which is not
//! one of rpmix's tagged objects (`data::cpuset`). OpenPMIx 4.2.2 destroys
//! it, so a second Load then returns a dangling pointer.

use core::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use crate::abi::*;

type Topology = *mut c_void;

/// The shared topology and its source string ("hwloc:<version>").
struct Loaded {
    topology: usize,
    source: String,
}

static LOADED: OnceLock<Result<Loaded, pmix_status_t>> = OnceLock::new();

/// dlsym of `name` in `lib`, as a function pointer of type `F`.
///
/// # Safety
/// `lib` is a dlopen handle and `F` is the C signature of `name`.
unsafe fn symbol<F: Copy>(lib: *mut c_void, name: &core::ffi::CStr) -> Option<F> {
    // SAFETY: the caller upholds the contract above: `lib` is a dlopen handle and `F` is the C signature of `name`.
    unsafe {
        let p = libc::dlsym(lib, name.as_ptr());
        // SAFETY: F is a function pointer type of pointer size (caller's contract).
        (!p.is_null()).then(|| core::mem::transmute_copy::<*mut c_void, F>(&p))
    }
}

fn discover() -> Result<Loaded, pmix_status_t> {
    // SAFETY: dlopen with a constant name; the handle is kept for the process.
    let lib = unsafe { libc::dlopen(c"libhwloc.so.15".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if lib.is_null() {
        crate::pmix_debug!(1, "PMIx_Load_topology: libhwloc.so.15 cannot be opened (install libhwloc15)");
        return Err(PMIX_ERR_NOT_SUPPORTED);
    }
    // SAFETY: the C signatures of hwloc 2.x's functions.
    let (init, load, destroy, version) = unsafe {
        (
            symbol::<unsafe extern "C" fn(*mut Topology) -> c_int>(lib, c"hwloc_topology_init"),
            symbol::<unsafe extern "C" fn(Topology) -> c_int>(lib, c"hwloc_topology_load"),
            symbol::<unsafe extern "C" fn(Topology)>(lib, c"hwloc_topology_destroy"),
            symbol::<unsafe extern "C" fn() -> c_uint>(lib, c"hwloc_get_api_version"),
        )
    };
    // SAFETY: as above.
    let (by_depth, attrs) = unsafe {
        (
            symbol::<unsafe extern "C" fn(Topology, c_int, c_uint) -> *mut c_void>(lib, c"hwloc_get_obj_by_depth"),
            symbol::<unsafe extern "C" fn(*mut c_char, usize, *mut c_void, *const c_char, c_int) -> c_int>(lib, c"hwloc_obj_attr_snprintf"),
        )
    };
    let (Some(init), Some(load), Some(destroy), Some(version)) = (init, load, destroy, version) else {
        crate::pmix_debug!(1, "PMIx_Load_topology: libhwloc.so.15 lacks the hwloc 2 API");
        return Err(PMIX_ERR_NOT_SUPPORTED);
    };
    let mut t: Topology = core::ptr::null_mut();
    // SAFETY: init fills `t`; load discovers this machine; destroy on failure.
    unsafe {
        if init(&mut t) != 0 {
            return Err(PMIX_ERR_NOMEM);
        }
        if load(t) != 0 {
            destroy(t);
            crate::pmix_debug!(1, "PMIx_Load_topology: hwloc could not discover this machine");
            return Err(PMIX_ERR_NOT_AVAILABLE);
        }
    }
    // The release (e.g. 2.9.0, what OpenPMIx's source string names) is the
    // root object's hwlocVersion info; else the API version (e.g. 2.8.0).
    let release = by_depth.zip(attrs).and_then(|(by_depth, attrs)| {
        let mut buf = [0u8; 4096];
        // SAFETY: the root object of the topology we loaded; attrs writes at
        // most buf.len() bytes, NUL-terminated.
        let n = unsafe {
            let root = by_depth(t, 0, 0);
            if root.is_null() {
                return None;
            }
            attrs(buf.as_mut_ptr() as *mut c_char, buf.len(), root, c" ".as_ptr(), 1)
        };
        let text = core::str::from_utf8(&buf[..(n.max(0) as usize).min(buf.len() - 1)]).ok()?;
        text.split(' ').find_map(|kv| kv.strip_prefix("hwlocVersion=")).map(str::to_string)
    });
    let source = release.unwrap_or_else(|| {
        // SAFETY: no arguments.
        let v = unsafe { version() };
        format!("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
    });
    Ok(Loaded { topology: t as usize, source: format!("hwloc:{source}") })
}

/// The process's topology: the hwloc pointer and a malloc'd copy of its
/// source string, for a pmix_topology_t.
pub fn process_topology() -> Result<(*mut c_void, *mut c_char), pmix_status_t> {
    let l = LOADED.get_or_init(discover).as_ref().map_err(|e| *e)?;
    let source = crate::cmem::strdup_bytes(l.source.as_bytes());
    if source.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    Ok((l.topology as *mut c_void, source as *mut c_char))
}
