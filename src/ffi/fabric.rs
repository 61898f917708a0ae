//! Fabric, topology and devices (`pmix.h`): fabric registration, device
//! distances, topologies, cpusets, relative locality. The distances
//! themselves are computed in `hwloc.rs`; here the C arguments are read, the
//! default topology is asked of the facade, and the C array is built.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};

use crate::abi::*;

/// Register for access to the fabric description in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register")
}

/// Register for access to the fabric description in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(fabric: *mut pmix_fabric_t, directives: *const pmix_info_t, ndirs: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_register_nb")
}

/// Refresh the fabric description held in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update")
}

/// Refresh the fabric description held in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_update_nb")
}

/// Release the fabric registration held in `fabric`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister")
}

/// Release the fabric registration held in `fabric`, completing through `cbfunc`.
///
/// Not implemented yet: returns PMIX_ERR_NOT_SUPPORTED and fires no callback.
///
/// # Safety
/// No argument is read, so any pointer values are accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(fabric: *mut pmix_fabric_t, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    not_yet!("PMIx_Fabric_deregister_nb")
}

/// Compute the distances from the CPUs in `cpuset` (NULL: where this
/// process is bound) to the network, OpenFabrics and GPU devices of `topo`
/// (an hwloc topology, e.g. from PMIx_Load_topology; NULL: this process's),
/// as OpenPMIx 4.2.2 does; `info` may select device types
/// (PMIX_DEVICE_TYPE) and devices (PMIX_DEVICE_ID, a name or UUID).
///
/// Returns PMIX_SUCCESS with a malloc'd array the caller frees with
/// PMIX_DEVICE_DIST_FREE; PMIX_ERR_NOT_FOUND (and no array) when no device
/// qualifies; PMIX_ERR_BAD_PARAM for NULL arguments or sources;
/// PMIX_ERR_NOT_SUPPORTED for a source other than hwloc (or a topology that
/// is not an hwloc one); PMIX_ERR_NOT_AVAILABLE when only the whole machine
/// holds the CPUs.
///
/// # Safety
/// `topo` and `cpuset` are NULL or valid; `info` is NULL or `ninfo` valid
/// infos; `distances` and `ndist` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, distances: *mut *mut pmix_device_distance_t, ndist: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Compute_distances", {
        require!("PMIx_Compute_distances", !distances.is_null() && !ndist.is_null());
        *distances = core::ptr::null_mut();
        *ndist = 0;
        match compute_distances(topo, cpuset, info, ninfo) {
            Ok((array, n)) => {
                *distances = array;
                *ndist = n;
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// PMIx_Compute_distances' work: the C array and its length.
///
/// # Safety
/// As PMIx_Compute_distances.
unsafe fn compute_distances(topo: *const pmix_topology_t, cpuset: *const pmix_cpuset_t, info: *const pmix_info_t, ninfo: usize) -> Result<(*mut pmix_device_distance_t, usize), pmix_status_t> {
    // SAFETY: the caller upholds PMIx_Compute_distances' contract.
    unsafe {
        // No topology: this process's. No cpuset: where this process is bound.
        let topology = match topo.as_ref() {
            None => {
                let (p, source) = crate::hwloc::process_topology(crate::facade::topology_source)?;
                crate::cmem::free(source);
                p
            }
            Some(t) => {
                let Some(src) = crate::cmem::cstr_bytes(t.source) else {
                    crate::pmix_debug!(5, "PMIx_Compute_distances: the topology has no source");
                    return Err(PMIX_ERR_BAD_PARAM);
                };
                // rpmix's own topology objects (copies, unpacked ones) are descriptions, not hwloc topologies
                if !crate::hwlib::names_hwloc(src) || t.topology.is_null() || crate::data::cpuset::own_text(t.topology).is_some() {
                    return Err(PMIX_ERR_NOT_SUPPORTED);
                }
                t.topology
            }
        };
        let cpus = match cpuset.as_ref() {
            None => crate::hwloc::Cpus::List(crate::topology::binding(false)?),
            Some(c) => {
                let Some(src) = crate::cmem::cstr_bytes(c.source) else {
                    crate::pmix_debug!(5, "PMIx_Compute_distances: the cpuset has no source");
                    return Err(PMIX_ERR_BAD_PARAM);
                };
                if !crate::hwlib::names_hwloc(src) {
                    return Err(PMIX_ERR_NOT_SUPPORTED);
                }
                match crate::data::cpuset::own_text(c.bitmap) {
                    Some(list) => {
                        let list = String::from_utf8_lossy(&list).into_owned();
                        crate::hwloc::Cpus::List(crate::topology::parse_list(&list).ok_or(PMIX_ERR_BAD_PARAM)?)
                    }
                    None if c.bitmap.is_null() => return Err(PMIX_ERR_BAD_PARAM),
                    None => crate::hwloc::Cpus::Hwloc(c.bitmap),
                }
            }
        };
        let mut kinds: pmix_device_type_t = 0;
        let mut ids = Vec::new();
        if info.is_null() {
            kinds = PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_BLOCK | PMIX_DEVTYPE_DMA | PMIX_DEVTYPE_COPROC;
        } else {
            for i in crate::ffi::boundary::slice(info, ninfo) {
                let key = crate::owned::key_of(i.key.as_ptr()).unwrap_or_default();
                if key.as_bytes() == PMIX_DEVICE_TYPE.to_bytes() && i.value.r#type == PMIX_DEVTYPE {
                    kinds |= i.value.data.devtype;
                } else if key.as_bytes() == PMIX_DEVICE_ID.to_bytes() && i.value.r#type == PMIX_STRING {
                    if let Some(s) = crate::cmem::cstr_bytes(i.value.data.string) {
                        ids.push(String::from_utf8_lossy(s).into_owned());
                    }
                }
            }
        }
        let found = crate::hwloc::distances(topology, &cpus, kinds, &ids, &crate::rendezvous::hostname())?;
        let n = found.len();
        let array = libc::calloc(n, core::mem::size_of::<pmix_device_distance_t>()) as *mut pmix_device_distance_t;
        if array.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        for (i, d) in found.iter().enumerate() {
            let e = &mut *array.add(i);
            e.uuid = crate::cmem::strdup_bytes(d.uuid.as_bytes()) as *mut c_char;
            e.osname = crate::cmem::strdup_bytes(d.osname.as_bytes()) as *mut c_char;
            e.r#type = d.kind;
            e.mindist = d.mindist;
            e.maxdist = d.maxdist;
        }
        Ok((array, n))
    }
}

/// Frees a distance array handed to a PMIx_Compute_distances_nb callback.
///
/// # Safety
/// `cbdata` is a `DistArray` made by PMIx_Compute_distances_nb.
unsafe extern "C" fn release_distances(cbdata: *mut c_void) {
    crate::guard::catch("release_distances", || {
        // SAFETY: the box made by PMIx_Compute_distances_nb, released once.
        let d = unsafe { Box::from_raw(cbdata as *mut DistArray) };
        for i in 0..d.1 {
            // SAFETY: the array and strings came from calloc/strdup.
            unsafe {
                let e = &*d.0.add(i);
                crate::cmem::free(e.uuid);
                crate::cmem::free(e.osname);
            }
        }
        // SAFETY: from calloc.
        unsafe { libc::free(d.0 as *mut c_void) };
    })
}

struct DistArray(*mut pmix_device_distance_t, usize);
// SAFETY: the array is owned by the box and only touched by its release.
unsafe impl Send for DistArray {}

/// PMIx_Compute_distances, answered through `cbfunc` (from a progress
/// thread, never inside this call); the array is the library's until
/// `release_fn` is called.
///
/// Returns PMIX_SUCCESS (the callback carries the status and distances);
/// PMIX_ERR_BAD_PARAM for a NULL `cbfunc`.
///
/// # Safety
/// As PMIx_Compute_distances; `cbfunc` is callable with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(topo: *mut pmix_topology_t, cpuset: *mut pmix_cpuset_t, info: *mut pmix_info_t, ninfo: usize, cbfunc: pmix_device_dist_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Compute_distances_nb", {
        let Some(cb) = cbfunc else {
            crate::pmix_debug!(5, "PMIx_Compute_distances_nb: no callback");
            return PMIX_ERR_BAD_PARAM;
        };
        let (st, array) = match compute_distances(topo, cpuset, info, ninfo) {
            Ok((a, n)) => (PMIX_SUCCESS, DistArray(a, n)),
            Err(e) => (e, DistArray(core::ptr::null_mut(), 0)),
        };
        let cbdata = cbdata as usize;
        crate::ffi::boundary::complete(move || {
            let (p, n) = (array.0, array.1);
            let keep = Box::into_raw(Box::new(array)) as *mut c_void;
            // SAFETY: the caller's callback with its cbdata; the array stays ours until release.
            unsafe { cb(st, p, n, cbdata as *mut c_void, Some(release_distances), keep) };
        });
        PMIX_SUCCESS
    })
}

/// Fill `topo` with this machine's topology (an hwloc source), discovered once per process
/// and shared.
///
/// Returns PMIX_SUCCESS (release with PMIx_Topology_destruct); PMIX_ERR_BAD_PARAM for a
/// NULL `topo`; PMIX_ERR_NOT_SUPPORTED when `topo->source` names a source other than hwloc;
/// the discovery's error; PMIX_ERR_NOMEM.
///
/// # Safety
/// `topo` is NULL or a writable topology whose `source` is NULL or NUL-terminated (a
/// caller's source is replaced, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(topo: *mut pmix_topology_t) -> pmix_status_t {
    status_entry!("PMIx_Load_topology", {
        require!("PMIx_Load_topology", !topo.is_null());
        let t = &mut *topo;
        // A source the caller named other than hwloc is one we cannot provide.
        if crate::cmem::cstr_bytes(t.source).is_some_and(|s| !s.starts_with(b"hwloc")) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        match crate::hwloc::process_topology(crate::facade::topology_source) {
            Ok((p, source)) => {
                // (a source the caller set is its own: replaced, not freed)
                t.source = source;
                t.topology = p;
                PMIX_SUCCESS
            }
            Err(e) => e,
        }
    })
}

/// Free what `topo` holds (its source and any library-made copy; the shared hwloc topology
/// stays); NULL is ignored.
///
/// Returns nothing.
///
/// # Safety
/// `topo` is NULL or a valid topology whose `source` is NULL or malloc'd; its old contents
/// are not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    entry!("PMIx_Topology_destruct", {
        if let Some(t) = topo.as_mut() {
            crate::data::cpuset::destruct_topology(t);
        }
    })
}

/// Parse a `"<source>:<cpus>"` string (the CPUs as a list such as `0-3,8` or a hex mask)
/// into `cpuset`.
///
/// Returns PMIX_SUCCESS (release with PMIx_Cpuset_destruct); PMIX_ERR_BAD_PARAM for a NULL
/// argument or a malformed string; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset_string` is NULL or NUL-terminated; `cpuset` is NULL or writable (its old
/// contents are overwritten, not freed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(cpuset_string: *const c_char, cpuset: *mut pmix_cpuset_t) -> pmix_status_t {
    status_entry!("PMIx_Parse_cpuset_string", {
        require!("PMIx_Parse_cpuset_string", !cpuset_string.is_null() && !cpuset.is_null());
        let s = core::ffi::CStr::from_ptr(cpuset_string).to_bytes();
        let c = &mut *cpuset;
        *c = core::mem::zeroed();
        crate::data::cpuset::parse_cpuset(s, c).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Fill `cpuset` with the CPUs this process (PMIX_CPUBIND_PROCESS) or thread
/// (PMIX_CPUBIND_THREAD) may run on.
///
/// Returns PMIX_SUCCESS (release with PMIx_Cpuset_destruct); PMIX_ERR_BAD_PARAM for a NULL
/// `cpuset` or another `ref_`; PMIX_ERR_NOT_SUPPORTED when `cpuset->source` is set and not
/// hwloc; PMIX_ERR_NOT_FOUND if the binding cannot be read; PMIX_ERR_NOMEM.
///
/// # Safety
/// `cpuset` is NULL or a valid (constructed) cpuset; its `source` is NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: pmix_bind_envelope_t) -> pmix_status_t {
    status_entry!("PMIx_Get_cpuset", {
        require!("PMIx_Get_cpuset", !cpuset.is_null() && (ref_ == PMIX_CPUBIND_PROCESS || ref_ == PMIX_CPUBIND_THREAD));
        let c = &mut *cpuset;
        if !c.source.is_null() && !core::ffi::CStr::from_ptr(c.source).to_bytes().eq_ignore_ascii_case(b"hwloc") {
            crate::pmix_debug!(1, "PMIx_Get_cpuset: a cpuset of another source");
            return PMIX_ERR_NOT_SUPPORTED;
        }
        let cpus = match crate::topology::binding(ref_ == PMIX_CPUBIND_THREAD) {
            Ok(c) => c,
            Err(e) => return e,
        };
        let text = crate::topology::format_list(&cpus);
        crate::data::cpuset::set_cpus(c, b"hwloc", text.as_bytes()).err().unwrap_or(PMIX_SUCCESS)
    })
}

/// Release what `cpuset` holds (its source string and a bitmap this library made) and clear
/// it; NULL is ignored.
///
/// Returns nothing.
///
/// # Safety
/// `cpuset` is NULL or a valid cpuset whose `source` is NULL or malloc'd; it is not used
/// after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    entry!("PMIx_Cpuset_destruct", {
        if let Some(c) = cpuset.as_mut() {
            crate::data::cpuset::destruct_cpuset(c);
        }
    })
}

/// Compare two locality strings: which levels of the machine (node, package, caches,
/// core...) they share.
///
/// Returns PMIX_SUCCESS with `*locality` set; PMIX_ERR_BAD_PARAM for a NULL argument, or
/// for an unreadable string (then `*locality` is set to PMIX_LOCALITY_UNKNOWN).
///
/// # Safety
/// `locality1` and `locality2` are each NULL or NUL-terminated; `locality` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(locality1: *const c_char, locality2: *const c_char, locality: *mut pmix_locality_t) -> pmix_status_t {
    status_entry!("PMIx_Get_relative_locality", {
        require!("PMIx_Get_relative_locality", !locality1.is_null() && !locality2.is_null() && !locality.is_null());
        let a = String::from_utf8_lossy(core::ffi::CStr::from_ptr(locality1).to_bytes()).into_owned();
        let b = String::from_utf8_lossy(core::ffi::CStr::from_ptr(locality2).to_bytes()).into_owned();
        match crate::topology::relative_locality(&a, &b) {
            Ok(l) => {
                *locality = l;
                PMIX_SUCCESS
            }
            Err(e) => {
                *locality = PMIX_LOCALITY_UNKNOWN;
                crate::pmix_debug!(1, "PMIx_Get_relative_locality: cannot read {a:?} / {b:?}");
                e
            }
        }
    })
}
