//! CPU sets and topologies without hwloc.
//!
//! OpenPMIx stores an hwloc object behind `pmix_cpuset_t.bitmap` and
//! `pmix_topology_t.topology`. rpmix has no hwloc, so the objects it creates
//! hold a tagged, malloc'd text (the CPU list, or the topology description).
//! The tag lets every operation recognise its own objects: a foreign object
//! (an hwloc pointer a host put there) is never dereferenced beyond the tag
//! and never freed; a foreign cpuset cannot be copied or packed
//! (PMIX_ERR_NOT_SUPPORTED). A topology whose source is hwloc is an hwloc
//! topology: it packs as hwloc XML, unpacks and copies into a new hwloc
//! topology that the value owns (`hwlib`, when libhwloc is installed).

use core::ffi::{c_char, c_void};
use core::ptr;

use crate::status::Res;
use crate::abi::*;
use crate::cmem;

const TAG: u64 = 0x7270_6d69_785f_6f62; // "rpmix_ob"

/// A tagged text object: [tag: u64][len: u64][bytes...].
fn new_object(text: &[u8]) -> Res<*mut c_void> {
    let total = 16 + text.len();
    // SAFETY: malloc of `total` bytes; all writes below stay inside it.
    unsafe {
        let p = libc::malloc(total) as *mut u8;
        if p.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        ptr::write_unaligned(p as *mut u64, TAG);
        ptr::write_unaligned(p.add(8) as *mut u64, text.len() as u64);
        ptr::copy_nonoverlapping(text.as_ptr(), p.add(16), text.len());
        Ok(p as *mut c_void)
    }
}

/// The text of one of our objects; None for a foreign (or NULL) object.
///
/// # Safety
/// `p` is NULL or points to at least 8 readable bytes.
unsafe fn object_text<'a>(p: *const c_void) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above: `p` is NULL or points to at least 8 readable bytes.
    unsafe {
        if p.is_null() || ptr::read_unaligned(p as *const u64) != TAG {
            return None;
        }
        let len = ptr::read_unaligned((p as *const u8).add(8) as *const u64) as usize;
        Some(core::slice::from_raw_parts((p as *const u8).add(16), len))
    }
}

/// The text behind one of rpmix's cpuset or topology objects (a CPU list,
/// a topology description); None for NULL or a foreign object (e.g. an
/// hwloc bitmap a caller made).
///
/// # Safety
/// `p` is NULL or points to at least 8 readable bytes.
pub unsafe fn own_text(p: *const c_void) -> Option<Vec<u8>> {
    // SAFETY: the caller upholds the contract above.
    unsafe { object_text(p).map(<[u8]>::to_vec) }
}

/// A copy of a cpuset bitmap object.
///
/// # Safety
/// `p` is NULL or a bitmap object this library allocated (an hwloc bitmap in our layout).
unsafe fn copy_object(p: *const c_void) -> Res<*mut c_void> {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a bitmap object this library allocated (an hwloc bitmap in our layout).
    unsafe {
        if p.is_null() {
            return Ok(ptr::null_mut());
        }
        match object_text(p) {
            Some(t) => new_object(t),
            None => Err(PMIX_ERR_NOT_SUPPORTED),
        }
    }
}

/// The bytes of a cpuset bitmap object.
///
/// # Safety
/// `p` is NULL or a bitmap object this library allocated.
unsafe fn object_bytes(p: *const c_void) -> Res<Vec<u8>> {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a bitmap object this library allocated.
    unsafe {
        if p.is_null() {
            return Ok(Vec::new());
        }
        object_text(p).map(|t| t.to_vec()).ok_or(PMIX_ERR_NOT_SUPPORTED)
    }
}

/// Free a cpuset bitmap object.
///
/// # Safety
/// `p` is NULL or a bitmap object this library allocated, not used after.
unsafe fn free_object(p: *mut c_void) {
    // SAFETY: the caller upholds the contract above: `p` is NULL or a bitmap object this library allocated, not used after.
    unsafe {
        if object_text(p).is_some() {
            libc::free(p);
        }
    }
}

/// # Safety
/// `c` is a valid cpuset.
pub unsafe fn copy_bitmap(c: &pmix_cpuset_t) -> Res<*mut c_void> {
    // SAFETY: the caller upholds the contract above: `c` is a valid cpuset.
    unsafe {
        copy_object(c.bitmap)
    }
}
/// # Safety
/// `c` is a valid cpuset.
pub unsafe fn bitmap_bytes(c: &pmix_cpuset_t) -> Res<Vec<u8>> {
    // SAFETY: the caller upholds the contract above: `c` is a valid cpuset.
    unsafe {
        object_bytes(c.bitmap)
    }
}
/// # Safety
/// `c` holds no bitmap.
pub unsafe fn load_bitmap(c: &mut pmix_cpuset_t, b: &[u8]) -> Res {
    c.bitmap = if b.is_empty() { ptr::null_mut() } else { new_object(b)? };
    Ok(())
}
/// # Safety
/// `c` is a valid cpuset.
pub unsafe fn destruct_cpuset(c: &mut pmix_cpuset_t) {
    // SAFETY: the caller upholds the contract above: `c` is a valid cpuset.
    unsafe {
        cmem::free(c.source);
        free_object(c.bitmap);
        c.source = ptr::null_mut();
        c.bitmap = ptr::null_mut();
    }
}
/// Replace the CPU list of `c` (its bitmap, if ours, is freed; a foreign one
/// is left alone), keeping its source or setting `source` when it has none.
///
/// # Safety
/// `c` is a valid (constructed) cpuset.
pub unsafe fn set_cpus(c: &mut pmix_cpuset_t, source: &[u8], cpus: &[u8]) -> Res {
    // SAFETY: the caller upholds the contract above: `c` is a valid (constructed) cpuset.
    unsafe {
        let b = new_object(cpus)?;
        if c.source.is_null() {
            let s = cmem::strdup_bytes(source);
            if s.is_null() {
                libc::free(b);
                return Err(PMIX_ERR_NOMEM);
            }
            c.source = s as *mut c_char;
        }
        free_object(c.bitmap);
        c.bitmap = b;
        Ok(())
    }
}

/// The CPU list text of a cpuset we created.
///
/// # Safety
/// `c` is a valid cpuset.
pub unsafe fn bitmap_text<'a>(c: &pmix_cpuset_t) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above: `c` is a valid cpuset.
    unsafe {
        object_text(c.bitmap)
    }
}

/// # Safety
/// `t` is a valid topology.
pub unsafe fn copy_topology(t: &pmix_topology_t) -> Res<*mut c_void> {
    // SAFETY: the caller upholds the contract above: `t` is a valid topology.
    unsafe {
        match object_text(t.topology) {
            Some(text) => new_object(text),
            None if t.topology.is_null() => Ok(ptr::null_mut()),
            // An hwloc topology is duplicated through hwloc (as OpenPMIx
            // does); the copy is ours, destroyed with it. Without hwloc, or
            // for another source, the copy shares the caller's pointer,
            // which is never freed here.
            None if is_hwloc(t) => crate::hwlib::duplicate(t.topology).or(Ok(t.topology)),
            None => Ok(t.topology),
        }
    }
}

/// Does `t` name hwloc as its source?
///
/// # Safety
/// `t.source` is NULL or NUL-terminated.
unsafe fn is_hwloc(t: &pmix_topology_t) -> bool {
    // SAFETY: the caller's contract.
    unsafe { cmem::cstr_bytes(t.source) }.is_some_and(crate::hwlib::names_hwloc)
}

/// What a PMIX_TOPO value prints: an hwloc topology as OpenPMIx begins it
/// (its root: "Type: Machine Number of child objects: 2"), else its source.
///
/// # Safety
/// `t` is a valid topology.
pub unsafe fn topology_summary(t: &pmix_topology_t) -> String {
    // SAFETY: the caller's contract; a non-rpmix topology named hwloc is an hwloc topology.
    unsafe {
        if !t.topology.is_null() && object_text(t.topology).is_none() && is_hwloc(t) {
            if let Some((kind, arity)) = crate::hwlib::root_summary(t.topology) {
                return format!("Type: {kind} Number of child objects: {arity}");
            }
        }
        format!("source={}", cmem::cstr_bytes(t.source).map(String::from_utf8_lossy).unwrap_or_default())
    }
}
/// # Safety
/// `t` is a valid topology.
pub unsafe fn topology_bytes(t: &pmix_topology_t) -> Res<Vec<u8>> {
    // SAFETY: the caller upholds the contract above: `t` is a valid topology.
    unsafe {
        if !t.topology.is_null() && object_text(t.topology).is_none() && is_hwloc(t) {
            // an hwloc topology travels as its XML (as OpenPMIx packs it)
            return crate::hwlib::export_xml(t.topology).map(String::into_bytes).ok_or(PMIX_ERR_NOT_SUPPORTED);
        }
        object_bytes(t.topology)
    }
}
/// An hwloc topology's XML and its `n` bytes of support flags, as
/// OpenPMIx's v41 format carries a PMIX_TOPO (PMIX_ERR_NOT_SUPPORTED for
/// topologies that are not hwloc's, or without hwloc).
///
/// # Safety
/// `t` is a valid topology.
pub unsafe fn topology_xml_and_support(t: &pmix_topology_t, n: usize) -> Res<(Vec<u8>, Vec<u8>)> {
    // SAFETY: the caller's contract.
    unsafe {
        if t.topology.is_null() || object_text(t.topology).is_some() || !is_hwloc(t) {
            return Err(PMIX_ERR_NOT_SUPPORTED);
        }
        let xml = crate::hwlib::export_xml(t.topology).ok_or(PMIX_ERR_NOT_SUPPORTED)?;
        let support = crate::hwlib::support_flags(t.topology, n).ok_or(PMIX_ERR_NOT_SUPPORTED)?;
        Ok((xml.into_bytes(), support))
    }
}

/// # Safety
/// `t` holds no topology object.
pub unsafe fn load_topology(t: &mut pmix_topology_t, b: &[u8]) -> Res {
    // hwloc XML becomes an hwloc topology again (ours, destroyed with the
    // value); without hwloc it is kept as text.
    // SAFETY: `t.source` was just set from the buffer (NULL or NUL-terminated).
    if b.starts_with(b"<?xml") && unsafe { is_hwloc(t) } {
        if let Ok(topology) = crate::hwlib::import_xml(b, false) {
            t.topology = crate::hwlib::adopt(topology);
            return Ok(());
        }
    }
    t.topology = if b.is_empty() { ptr::null_mut() } else { new_object(b)? };
    Ok(())
}
/// # Safety
/// `t` is a valid topology.
pub unsafe fn destruct_topology(t: &mut pmix_topology_t) {
    // SAFETY: the caller upholds the contract above: `t` is a valid topology.
    unsafe {
        cmem::free(t.source);
        if !crate::hwlib::destroy_if_ours(t.topology) {
            free_object(t.topology);
        }
        t.source = ptr::null_mut();
        t.topology = ptr::null_mut();
    }
}

/// `PMIx_Parse_cpuset_string`: `"<source>:<cpus>"`, where `<cpus>` is a list
/// such as `0-3,8` or a hex mask such as `0x0f`.
pub fn parse_cpuset(s: &[u8], out: &mut pmix_cpuset_t) -> Res {
    let colon = s.iter().position(|&c| c == b':').ok_or(PMIX_ERR_BAD_PARAM)?;
    let (source, cpus) = (&s[..colon], &s[colon + 1..]);
    let ok_source = !source.is_empty() && source.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    let ok_cpus = !cpus.is_empty() && cpus.iter().all(|c| c.is_ascii_hexdigit() || b",-xX".contains(c));
    if !ok_source || !ok_cpus {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let src = cmem::strdup_bytes(source);
    if src.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    match new_object(cpus) {
        Ok(b) => {
            out.source = src as *mut c_char;
            out.bitmap = b;
            Ok(())
        }
        Err(e) => {
            // SAFETY: src came from malloc above.
            unsafe { cmem::free(src) };
            Err(e)
        }
    }
}
