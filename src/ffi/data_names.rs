//! Keys, namespaces, process identifiers and ranks: OpenPMIx 5's load,
//! check and transfer functions (its header macros call them).
#![allow(non_snake_case, unused_variables)]

use core::ffi::c_char;
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::status::Res;

/// A `Res` as the status C expects.
pub(super) fn rc(r: Res) -> pmix_status_t {
    r.err().unwrap_or(PMIX_SUCCESS)
}

/// The bytes of a C string read at most `max` bytes far; NULL reads as empty.
///
/// # Safety
/// `s` is NULL or readable up to its NUL or `max` bytes.
unsafe fn bounded<'a>(s: *const c_char, max: usize) -> &'a [u8] {
    // SAFETY: the caller upholds the contract above.
    unsafe { cmem::bounded_cstr(s, max) }.unwrap_or(&[])
}

/// An `N`-byte, NUL-padded copy of the C string at `src` (its first `N - 1`
/// bytes at most; NULL gives all zeros). Copied out first, so the caller may
/// store it over the very buffer it came from.
///
/// # Safety
/// `src` is NULL or readable up to its NUL or `N - 1` bytes.
unsafe fn padded<const N: usize>(src: *const c_char) -> [c_char; N] {
    let mut buf = [0 as c_char; N];
    // SAFETY: the caller upholds the contract above.
    let bytes = unsafe { bounded(src, N - 1) };
    cmem::load_fixed(&mut buf, bytes);
    buf
}

/// The bytes of a fixed char array up to its first NUL, at most `max` of them.
pub(super) fn fixed_bytes(buf: &[c_char], max: usize) -> &[u8] {
    let n = cmem::bounded_len(&buf[..max.min(buf.len())]);
    // SAFETY: c_char and u8 have one layout; n is within the array.
    unsafe { core::slice::from_raw_parts(buf.as_ptr() as *const u8, n) }
}

/// Whether a namespace is missing or empty (its first byte is the NUL).
///
/// # Safety
/// `ns` is NULL or points to at least one readable byte.
unsafe fn ns_invalid(ns: *const c_char) -> bool {
    // SAFETY: non-NULL here, and the caller vouches for one readable byte.
    ns.is_null() || unsafe { *ns } == 0
}

/// Two namespaces match: equal in their first PMIX_MAX_NSLEN bytes, or either
/// is missing or empty (an unset namespace matches any).
///
/// # Safety
/// Each is NULL or readable up to its NUL or PMIX_MAX_NSLEN bytes.
unsafe fn ns_match(a: *const c_char, b: *const c_char) -> bool {
    // SAFETY: the caller upholds the contract above.
    unsafe { ns_invalid(a) || ns_invalid(b) || bounded(a, PMIX_MAX_NSLEN) == bounded(b, PMIX_MAX_NSLEN) }
}

/// Equal ranks match, and the wildcard rank matches any rank.
fn rank_match(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD
}

/// Load `src` into the key buffer `key`: at most PMIX_MAX_KEYLEN bytes, NUL-padded.
///
/// Returns nothing. A NULL `src` clears the key; a NULL `key` is ignored (logged).
///
/// # Safety
/// `key` is NULL or a writable `pmix_key_t` (PMIX_MAX_KEYLEN + 1 bytes); `src` is NULL
/// or readable up to its NUL or PMIX_MAX_KEYLEN bytes (a longer key is cut there). They
/// may overlap.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_key(key: *mut c_char, src: *const c_char) {
    entry!("PMIx_Load_key", {
        if key.is_null() {
            crate::pmix_debug!(1, "PMIx_Load_key: NULL key buffer");
            return;
        }
        let buf = padded::<{ PMIX_MAX_KEYLEN + 1 }>(src);
        // SAFETY: `key` holds PMIX_MAX_KEYLEN + 1 bytes (contract); `buf` is our local.
        ptr::copy_nonoverlapping(buf.as_ptr(), key, buf.len());
    })
}

/// Compare two keys over their first PMIX_MAX_KEYLEN bytes.
///
/// Returns true when they are equal; false when they differ or either is NULL.
///
/// # Safety
/// `key` and `str` are each NULL or readable up to their NUL or PMIX_MAX_KEYLEN bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_key(key: *const c_char, str: *const c_char) -> bool {
    entry!("PMIx_Check_key", {
        if key.is_null() || str.is_null() {
            crate::pmix_debug!(1, "PMIx_Check_key: NULL key");
            return false;
        }
        bounded(key, PMIX_MAX_KEYLEN) == bounded(str, PMIX_MAX_KEYLEN)
    })
}

/// Tell whether `key` is reserved to the PMIx Standard (begins with "pmix").
///
/// Returns true for a reserved key; false otherwise and for NULL.
///
/// # Safety
/// `key` is NULL or readable up to its NUL or 4 bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_reserved_key(key: *const c_char) -> bool {
    entry!("PMIx_Check_reserved_key", { bounded(key, 4) == b"pmix" })
}

/// Load `str` into the namespace buffer `nspace`: PMIX_MAX_NSLEN bytes at most, padded.
///
/// Returns nothing. A NULL `str` clears the namespace; a NULL `nspace` is ignored
/// (logged).
///
/// # Safety
/// `nspace` is NULL or a writable `pmix_nspace_t` (PMIX_MAX_NSLEN + 1 bytes); `str` is
/// NULL or readable up to its NUL or PMIX_MAX_NSLEN bytes (cut there). They may overlap.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_nspace(nspace: *mut c_char, str: *const c_char) {
    entry!("PMIx_Load_nspace", {
        if nspace.is_null() {
            crate::pmix_debug!(1, "PMIx_Load_nspace: NULL namespace buffer");
            return;
        }
        let buf = padded::<{ PMIX_MAX_NSLEN + 1 }>(str);
        // SAFETY: `nspace` holds PMIX_MAX_NSLEN + 1 bytes (contract); `buf` is our local.
        ptr::copy_nonoverlapping(buf.as_ptr(), nspace, buf.len());
    })
}

/// Tell whether two namespaces match (as PMIX_CHECK_NSPACE).
///
/// Returns true when they are equal over PMIX_MAX_NSLEN bytes, or when either is NULL or
/// empty (an unset namespace matches any); false otherwise.
///
/// # Safety
/// `nspace1` and `nspace2` are each NULL or readable up to their NUL or PMIX_MAX_NSLEN
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_nspace(nspace1: *const c_char, nspace2: *const c_char) -> bool {
    entry!("PMIx_Check_nspace", { ns_match(nspace1, nspace2) })
}

/// Tell whether a namespace is unset.
///
/// Returns true for NULL or an empty namespace; false otherwise.
///
/// # Safety
/// `nspace` is NULL or points to at least one readable byte.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Nspace_invalid(nspace: *const c_char) -> bool {
    entry!("PMIx_Nspace_invalid", { ns_invalid(nspace) })
}

/// Fill a process identifier: namespace `ns` (as PMIx_Load_nspace) and rank `rk`.
///
/// Returns nothing. A NULL `p` is ignored (logged); a NULL `ns` gives an empty
/// namespace.
///
/// # Safety
/// `p` is NULL or a writable `pmix_proc_t`; `ns` is NULL or readable up to its NUL or
/// PMIX_MAX_NSLEN bytes (it may be `p`'s own namespace).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_procid(p: *mut pmix_proc_t, ns: *const c_char, rk: pmix_rank_t) {
    entry!("PMIx_Load_procid", {
        if p.is_null() {
            crate::pmix_debug!(1, "PMIx_Load_procid: NULL proc");
            return;
        }
        let nspace = padded::<{ PMIX_MAX_NSLEN + 1 }>(ns);
        // SAFETY: `p` is a writable proc (contract); only its fields are assigned.
        (*p).nspace = nspace;
        (*p).rank = rk;
    })
}

/// Copy the process identifier `src` into `dst`.
///
/// Returns nothing. Nothing happens when either is NULL (logged); the two may be the
/// same.
///
/// # Safety
/// `dst` is NULL or a writable `pmix_proc_t`; `src` is NULL or a readable one.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Xfer_procid(dst: *mut pmix_proc_t, src: *const pmix_proc_t) {
    entry!("PMIx_Xfer_procid", {
        if dst.is_null() || src.is_null() {
            crate::pmix_debug!(1, "PMIx_Xfer_procid: NULL proc");
            return;
        }
        // SAFETY: both valid for one proc (contract); `copy` allows them to overlap.
        ptr::copy(src, dst, 1);
    })
}

/// Tell whether two process identifiers match (as PMIX_CHECK_PROCID).
///
/// Returns true when the namespaces match (PMIx_Check_nspace) and the ranks match
/// (PMIx_Check_rank); false otherwise and when either is NULL.
///
/// # Safety
/// `a` and `b` are each NULL or a readable `pmix_proc_t`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_procid(a: *const pmix_proc_t, b: *const pmix_proc_t) -> bool {
    entry!("PMIx_Check_procid", {
        let (Some(a), Some(b)) = (a.as_ref(), b.as_ref()) else {
            crate::pmix_debug!(1, "PMIx_Check_procid: NULL proc");
            return false;
        };
        ns_match(a.nspace.as_ptr(), b.nspace.as_ptr()) && rank_match(a.rank, b.rank)
    })
}

/// Tell whether two ranks match.
///
/// Returns true when they are equal or either is PMIX_RANK_WILDCARD; false otherwise.
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_rank(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    entry!("PMIx_Check_rank", { rank_match(a, b) })
}

/// Tell whether a process identifier is unset.
///
/// Returns true when `p` is NULL, its namespace is empty or its rank is
/// PMIX_RANK_INVALID; false otherwise.
///
/// # Safety
/// `p` is NULL or a readable `pmix_proc_t`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Procid_invalid(p: *const pmix_proc_t) -> bool {
    entry!("PMIx_Procid_invalid", {
        match p.as_ref() {
            Some(p) => ns_invalid(p.nspace.as_ptr()) || p.rank == PMIX_RANK_INVALID,
            None => true,
        }
    })
}

/// Initialise a process identifier and load namespace `nspace` and rank `rank` into it.
///
/// Returns nothing. A NULL `p` is ignored (logged); a NULL `nspace` gives an empty one.
///
/// # Safety
/// `p` is NULL or a writable `pmix_proc_t`; `nspace` is NULL or readable up to its NUL
/// or PMIX_MAX_NSLEN bytes (it may be `p`'s own namespace).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_load(p: *mut pmix_proc_t, nspace: *mut c_char, rank: pmix_rank_t) {
    entry!("PMIx_Proc_load", {
        if p.is_null() {
            crate::pmix_debug!(1, "PMIx_Proc_load: NULL proc");
            return;
        }
        let proc = pmix_proc_t { nspace: padded::<{ PMIX_MAX_NSLEN + 1 }>(nspace), rank };
        // SAFETY: `p` is a writable proc (contract).
        p.write(proc);
    })
}

/// Build the multi-cluster namespace "cluster:nspace" into `target`.
///
/// Returns nothing. `target` is cleared first and left empty when the result would not
/// fit in PMIX_MAX_NSLEN bytes; a NULL `cluster` or `nspace` reads as empty; a NULL
/// `target` is ignored (logged).
///
/// # Safety
/// `target` is NULL or a writable `pmix_nspace_t`; `cluster` and `nspace` are each NULL
/// or readable up to their NUL or PMIX_MAX_NSLEN + 1 bytes. Any of them may overlap.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_construct(target: *mut c_char, cluster: *mut c_char, nspace: *mut c_char) {
    entry!("PMIx_Multicluster_nspace_construct", {
        if target.is_null() {
            crate::pmix_debug!(1, "PMIx_Multicluster_nspace_construct: NULL target");
            return;
        }
        let mut out = [0 as c_char; PMIX_MAX_NSLEN + 1];
        let c = bounded(cluster, PMIX_MAX_NSLEN + 1);
        let n = bounded(nspace, PMIX_MAX_NSLEN + 1);
        if c.len() + n.len() < PMIX_MAX_NSLEN {
            let joined = [c, b":".as_slice(), n].concat();
            cmem::load_fixed(&mut out, &joined);
        }
        // SAFETY: `target` holds PMIX_MAX_NSLEN + 1 bytes (contract); `out` is our local.
        ptr::copy_nonoverlapping(out.as_ptr(), target, out.len());
    })
}

/// Split a multi-cluster namespace at its first ':' into `cluster` and `nspace`.
///
/// Returns nothing. Both outputs are cleared first; without a ':' all of `target` is the
/// cluster and `nspace` stays empty. A NULL `target` reads as empty; a NULL output is
/// skipped.
///
/// # Safety
/// `target` is NULL or readable up to its NUL or PMIX_MAX_NSLEN bytes; `cluster` and
/// `nspace` are each NULL or a writable `pmix_nspace_t`. Any of them may overlap.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_parse(target: *mut c_char, cluster: *mut c_char, nspace: *mut c_char) {
    entry!("PMIx_Multicluster_nspace_parse", {
        let mut c_out = [0 as c_char; PMIX_MAX_NSLEN + 1];
        let mut n_out = [0 as c_char; PMIX_MAX_NSLEN + 1];
        let t = bounded(target, PMIX_MAX_NSLEN);
        match t.iter().position(|&b| b == b':') {
            Some(at) => {
                cmem::load_fixed(&mut c_out, &t[..at]);
                cmem::load_fixed(&mut n_out, &t[at + 1..]);
            }
            None => cmem::load_fixed(&mut c_out, t),
        }
        if !cluster.is_null() {
            // SAFETY: `cluster` holds PMIX_MAX_NSLEN + 1 bytes (contract); `c_out` is ours.
            ptr::copy_nonoverlapping(c_out.as_ptr(), cluster, c_out.len());
        }
        if !nspace.is_null() {
            // SAFETY: `nspace` holds PMIX_MAX_NSLEN + 1 bytes (contract); `n_out` is ours.
            ptr::copy_nonoverlapping(n_out.as_ptr(), nspace, n_out.len());
        }
    })
}
