//! Functions OpenPMIx 4.2.3–5.0.9 export beyond 4.2.2 that are not object
//! lifecycle: argv and key/namespace helpers, error codes, strings, tool and
//! session calls, and the one non-API data symbol Open MPI 5 reads. Not in
//! the generated headers (they stay 4.2.2's).
//!
//! From 4.2.3 on, OpenPMIx's header macros (PMIX_ARGV_APPEND, PMIX_LOAD_KEY,
//! PMIX_CHECK_PROCID, ...) call these functions instead of expanding inline, so
//! every binary built against newer headers imports them. Each one behaves as
//! the matching macro of our 4.2.2 headers (`src/c/pmix_common_macros.h`), which
//! is OpenPMIx's behaviour made safe: NULL pointers and unterminated keys or
//! namespaces never crash or over-read, and memory handed out is libc malloc'd.
#![allow(non_snake_case)]

use core::ffi::{c_char, c_int, c_void, CStr};
use core::mem::size_of;
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::elem;
use crate::data::infolist::{self, InfoList};
use crate::ffi::boundary::slice;
use crate::status::Res;

/// A `Res` as the status C expects.
fn rc(r: Res) -> pmix_status_t {
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
fn fixed_bytes(buf: &[c_char], max: usize) -> &[u8] {
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

// ---------------------------------------------------------------------------
// Keys, namespaces, process identifiers, ranks
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// argv-style string arrays (NULL-terminated, every entry malloc'd)
// ---------------------------------------------------------------------------

/// Size of one argv slot.
const SLOT: usize = size_of::<*mut c_char>();

/// Append the malloc'd string `s` to the malloc'd argv `*argv` (NULL: a new one),
/// taking it over.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_OUT_OF_RESOURCE (then `s` is freed and `*argv` is
/// left as it was).
///
/// # Safety
/// `*argv` is NULL or a malloc'd NULL-terminated array; `s` is malloc'd and non-NULL.
unsafe fn argv_push(argv: &mut *mut *mut c_char, s: *mut c_char) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above; the new array has n + 2 slots.
    unsafe {
        let n = cmem::argv_len(*argv);
        let Some(bytes) = n.checked_add(2).and_then(|k| k.checked_mul(SLOT)) else {
            cmem::free(s);
            return PMIX_ERR_OUT_OF_RESOURCE;
        };
        let grown = libc::realloc(*argv as *mut c_void, bytes) as *mut *mut c_char;
        if grown.is_null() {
            cmem::free(s);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        *grown.add(n) = s;
        *grown.add(n + 1) = ptr::null_mut();
        *argv = grown;
        PMIX_SUCCESS
    }
}

/// The fields of `s` between the bytes equal to `delim` (compared as C compares a `char`
/// with an `int`); empty fields are kept only when `keep_empty`, and a delimiter at the
/// very end starts no field.
fn split_fields(s: &[u8], delim: c_int, keep_empty: bool) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| c_int::from(b as c_char) == delim).unwrap_or(rest.len());
        if end > 0 || keep_empty {
            out.push(&rest[..end]);
        }
        rest = rest.get(end + 1..).unwrap_or(&[]);
    }
    out
}

/// Count the entries of a NULL-terminated argv.
///
/// Returns the number of entries before the NULL; 0 for a NULL `argv`.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of pointers.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_count(argv: *mut *mut c_char) -> c_int {
    entry!("PMIx_Argv_count", { c_int::try_from(cmem::argv_len(argv)).unwrap_or(c_int::MAX) })
}

/// Append a copy of `arg` to the argv `*argv`, creating it when `*argv` is NULL.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `argv` or `arg`;
/// PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_append_nosize", {
        require!("PMIx_Argv_append_nosize", !argv.is_null() && !arg.is_null());
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *argv, s)
    })
}

/// Insert a copy of `arg` at the front of the argv `*argv`, creating it when NULL.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a NULL `argv` or `arg`;
/// PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_prepend_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_prepend_nosize", {
        require!("PMIx_Argv_prepend_nosize", !argv.is_null() && !arg.is_null());
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        let st = argv_push(&mut *argv, s);
        if st == PMIX_SUCCESS {
            let a = *argv;
            let n = cmem::argv_len(a);
            // SAFETY: `a` has n entries, the new one last: shift the others up one and
            // put it first (`copy` allows the overlap).
            ptr::copy(a, a.add(1), n - 1);
            *a = s;
        }
        st
    })
}

/// Append a copy of `arg` to the argv `*argv` unless an equal string is already there.
///
/// Returns PMIX_SUCCESS (also when `arg` was present); PMIX_ERR_BAD_PARAM for a NULL
/// `argv` or `arg`; PMIX_ERR_OUT_OF_RESOURCE (then `*argv` is unchanged).
///
/// # Safety
/// `argv` is NULL or points to NULL or to a malloc'd NULL-terminated array of malloc'd
/// strings (it may be moved); `arg` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_unique_nosize(argv: *mut *mut *mut c_char, arg: *const c_char) -> pmix_status_t {
    status_entry!("PMIx_Argv_append_unique_nosize", {
        require!("PMIx_Argv_append_unique_nosize", !argv.is_null() && !arg.is_null());
        let a = *argv;
        let want = CStr::from_ptr(arg);
        for i in 0..cmem::argv_len(a) {
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            if CStr::from_ptr(*a.add(i)) == want {
                return PMIX_SUCCESS;
            }
        }
        let s = libc::strdup(arg);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *argv, s)
    })
}

/// Free an argv: each string, then the array.
///
/// Returns nothing; a NULL `argv` is ignored.
///
/// # Safety
/// `argv` is NULL or a malloc'd NULL-terminated array of malloc'd strings, not used
/// after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_free(argv: *mut *mut c_char) {
    entry!("PMIx_Argv_free", { cmem::argv_free(argv) })
}

/// Split `src_string` at each `delimiter` into a new argv (empties if `include_empty`).
///
/// Returns a malloc'd argv (free with PMIx_Argv_free), empty fields kept only when
/// `include_empty` (a delimiter at the very end never adds one); NULL when there is no
/// field (NULL or empty `src_string`) or when out of memory.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_inter(src_string: *const c_char, delimiter: c_int, include_empty: bool) -> *mut *mut c_char {
    entry!("PMIx_Argv_split_inter", {
        let Some(s) = cmem::cstr_bytes(src_string) else { return ptr::null_mut() };
        let fields = split_fields(s, delimiter, include_empty);
        if fields.is_empty() {
            return ptr::null_mut();
        }
        cmem::argv_from(&fields)
    })
}

/// Split `src_string` at each `delimiter` into a new argv, keeping empty fields.
///
/// Returns as PMIx_Argv_split_inter with `include_empty` true.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_with_empty(src_string: *const c_char, delimiter: c_int) -> *mut *mut c_char {
    // SAFETY: the same contract.
    unsafe { PMIx_Argv_split_inter(src_string, delimiter, true) }
}

/// Split `src_string` at each `delimiter` into a new argv, dropping empty fields.
///
/// Returns as PMIx_Argv_split_inter with `include_empty` false.
///
/// # Safety
/// `src_string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split(src_string: *const c_char, delimiter: c_int) -> *mut *mut c_char {
    // SAFETY: the same contract.
    unsafe { PMIx_Argv_split_inter(src_string, delimiter, false) }
}

/// Join the entries of an argv into one string, `delimiter` (as a `char`) between them.
///
/// Returns a malloc'd string the caller frees: "" for a NULL or empty `argv`; NULL only
/// when out of memory.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_join(argv: *mut *mut c_char, delimiter: c_int) -> *mut c_char {
    entry!("PMIx_Argv_join", {
        let mut out = Vec::new();
        for i in 0..cmem::argv_len(argv) {
            if i > 0 {
                out.push(delimiter as u8);
            }
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            out.extend_from_slice(CStr::from_ptr(*argv.add(i)).to_bytes());
        }
        cmem::strdup_bytes(&out)
    })
}

/// Deep-copy an argv.
///
/// Returns a malloc'd argv (free with PMIx_Argv_free; an empty `argv` gives an array
/// holding only the NULL); NULL for a NULL `argv` or when out of memory.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_copy(argv: *mut *mut c_char) -> *mut *mut c_char {
    entry!("PMIx_Argv_copy", {
        if argv.is_null() {
            return ptr::null_mut();
        }
        let mut items: Vec<&[u8]> = Vec::new();
        for i in 0..cmem::argv_len(argv) {
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            items.push(CStr::from_ptr(*argv.add(i)).to_bytes());
        }
        cmem::argv_from(&items)
    })
}

/// Longest value PMIx_Setenv accepts (as our PMIX_SETENV macro): a value with no NUL
/// within this many bytes is refused rather than read on.
const SETENV_VALUE_MAX: usize = 100_000;

/// Edit the live process environment (what PMIx_Setenv does when handed `environ`),
/// under the standard library's environment lock so our own threads never read it
/// half-written.
fn set_process_env(name: &[u8], value: Option<&[u8]>, overwrite: bool) -> pmix_status_t {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    if name.is_empty() || name.contains(&b'=') {
        // setenv(3) refuses these too (EINVAL); std would panic.
        crate::pmix_debug!(1, "PMIx_Setenv: bad environment variable name");
        return PMIX_ERR_BAD_PARAM;
    }
    let key = OsStr::from_bytes(name);
    match value {
        None => std::env::remove_var(key),
        Some(v) => {
            if overwrite || std::env::var_os(key).is_none() {
                std::env::set_var(key, OsStr::from_bytes(v));
            }
        }
    }
    PMIX_SUCCESS
}

/// Set `name=value` in the environment array `*env`, or in the live one for `environ`.
///
/// Returns PMIX_SUCCESS (an entry for `name` is replaced only when `overwrite`);
/// PMIX_ERR_EXISTS when `name` is set in `*env` and `overwrite` is false (for
/// `environ`: PMIX_SUCCESS, value kept, as setenv(3)); PMIX_ERR_BAD_PARAM for a NULL
/// `name` or `env`, a `value` with no NUL in its first 100000 bytes, or (for `environ`)
/// an empty `name` or one holding '='; PMIX_ERR_OUT_OF_RESOURCE. A NULL `value` stores
/// "name=" in an array and unsets `name` in `environ`.
///
/// # Safety
/// `name` is NULL or NUL-terminated; `value` is NULL or readable up to its NUL or 100000
/// bytes; `env` is NULL, `&environ`, or points to `environ`'s value, to NULL, or to a
/// malloc'd NULL-terminated array of malloc'd strings (it may be moved).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Setenv(name: *const c_char, value: *const c_char, overwrite: bool, env: *mut *mut *mut c_char) -> pmix_status_t {
    status_entry!("PMIx_Setenv", {
        require!("PMIx_Setenv", !name.is_null() && !env.is_null());
        let name = CStr::from_ptr(name).to_bytes();
        let value = if value.is_null() {
            None
        } else {
            let n = libc::strnlen(value, SETENV_VALUE_MAX);
            require!("PMIx_Setenv", n < SETENV_VALUE_MAX);
            // SAFETY: `n` bytes before the NUL were just found readable.
            Some(core::slice::from_raw_parts(value as *const u8, n))
        };
        let live = ptr::addr_of_mut!(libc::environ);
        // SAFETY: reading the libc `environ` pointer (its address is always valid).
        let current = live.read();
        if env == live || (!(*env).is_null() && *env == current) {
            return set_process_env(name, value, overwrite);
        }
        let entry = [name, b"=".as_slice(), value.unwrap_or_default()].concat();
        let prefix = &entry[..name.len() + 1];
        let arr = *env;
        for i in 0..cmem::argv_len(arr) {
            let slot = arr.add(i);
            // SAFETY: entry i of a NULL-terminated array of strings (contract).
            if !CStr::from_ptr(*slot).to_bytes().starts_with(prefix) {
                continue;
            }
            if !overwrite {
                return PMIX_ERR_EXISTS;
            }
            let s = cmem::strdup_bytes(&entry);
            if s.is_null() {
                return PMIX_ERR_OUT_OF_RESOURCE;
            }
            // SAFETY: the old entry is a malloc'd string of the array (contract).
            cmem::free(*slot);
            *slot = s;
            return PMIX_SUCCESS;
        }
        let s = cmem::strdup_bytes(&entry);
        if s.is_null() {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        argv_push(&mut *env, s)
    })
}

// ---------------------------------------------------------------------------
// Status codes and printable forms
// ---------------------------------------------------------------------------

/// The names OpenPMIx 5's PMIx_Error_code knows, in its order (first match wins): the
/// error and event constants of its pmix_common.h, pmix_deprecated.h and internal
/// pmix_error.h, as listed by its `pmix_event_strings` table (v5.0.7).
const STATUS_NAMES: &[(&str, pmix_status_t)] = &[
    ("PMIX_SUCCESS", PMIX_SUCCESS),
    ("PMIX_ERROR", PMIX_ERROR),
    ("PMIX_ERR_PROC_RESTART", PMIX_ERR_PROC_RESTART),
    ("PMIX_ERR_PROC_CHECKPOINT", PMIX_ERR_PROC_CHECKPOINT),
    ("PMIX_ERR_PROC_MIGRATE", PMIX_ERR_PROC_MIGRATE),
    ("PMIX_ERR_EXISTS", PMIX_ERR_EXISTS),
    ("PMIX_ERR_INVALID_CRED", PMIX_ERR_INVALID_CRED),
    ("PMIX_ERR_WOULD_BLOCK", PMIX_ERR_WOULD_BLOCK),
    ("PMIX_ERR_UNKNOWN_DATA_TYPE", PMIX_ERR_UNKNOWN_DATA_TYPE),
    ("PMIX_ERR_TYPE_MISMATCH", PMIX_ERR_TYPE_MISMATCH),
    ("PMIX_ERR_UNPACK_INADEQUATE_SPACE", PMIX_ERR_UNPACK_INADEQUATE_SPACE),
    ("PMIX_ERR_UNPACK_FAILURE", PMIX_ERR_UNPACK_FAILURE),
    ("PMIX_ERR_PACK_FAILURE", PMIX_ERR_PACK_FAILURE),
    ("PMIX_ERR_NO_PERMISSIONS", PMIX_ERR_NO_PERMISSIONS),
    ("PMIX_ERR_TIMEOUT", PMIX_ERR_TIMEOUT),
    ("PMIX_ERR_UNREACH", PMIX_ERR_UNREACH),
    ("PMIX_ERR_BAD_PARAM", PMIX_ERR_BAD_PARAM),
    ("PMIX_ERR_RESOURCE_BUSY", PMIX_ERR_RESOURCE_BUSY),
    ("PMIX_ERR_OUT_OF_RESOURCE", PMIX_ERR_OUT_OF_RESOURCE),
    ("PMIX_ERR_INIT", PMIX_ERR_INIT),
    ("PMIX_ERR_NOMEM", PMIX_ERR_NOMEM),
    ("PMIX_ERR_NOT_FOUND", PMIX_ERR_NOT_FOUND),
    ("PMIX_ERR_NOT_SUPPORTED", PMIX_ERR_NOT_SUPPORTED),
    ("PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED", PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED),
    ("PMIX_ERR_COMM_FAILURE", PMIX_ERR_COMM_FAILURE),
    ("PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER", PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER),
    ("PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES", PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES),
    ("PMIX_ERR_PARTIAL_SUCCESS", PMIX_ERR_PARTIAL_SUCCESS),
    ("PMIX_ERR_DUPLICATE_KEY", PMIX_ERR_DUPLICATE_KEY),
    ("PMIX_ERR_EMPTY", PMIX_ERR_EMPTY),
    ("PMIX_ERR_LOST_CONNECTION", PMIX_ERR_LOST_CONNECTION),
    ("PMIX_ERR_EXISTS_OUTSIDE_SCOPE", PMIX_ERR_EXISTS_OUTSIDE_SCOPE),
    ("PMIX_PROCESS_SET_DEFINE", PMIX_PROCESS_SET_DEFINE),
    ("PMIX_PROCESS_SET_DELETE", PMIX_PROCESS_SET_DELETE),
    ("PMIX_DEBUGGER_RELEASE", PMIX_DEBUGGER_RELEASE),
    ("PMIX_READY_FOR_DEBUG", PMIX_READY_FOR_DEBUG),
    ("PMIX_QUERY_PARTIAL_SUCCESS", PMIX_QUERY_PARTIAL_SUCCESS),
    ("PMIX_JCTRL_CHECKPOINT", PMIX_JCTRL_CHECKPOINT),
    ("PMIX_JCTRL_CHECKPOINT_COMPLETE", PMIX_JCTRL_CHECKPOINT_COMPLETE),
    ("PMIX_JCTRL_PREEMPT_ALERT", PMIX_JCTRL_PREEMPT_ALERT),
    ("PMIX_MONITOR_HEARTBEAT_ALERT", PMIX_MONITOR_HEARTBEAT_ALERT),
    ("PMIX_MONITOR_FILE_ALERT", PMIX_MONITOR_FILE_ALERT),
    ("PMIX_PROC_TERMINATED", PMIX_PROC_TERMINATED),
    ("PMIX_ERR_EVENT_REGISTRATION", PMIX_ERR_EVENT_REGISTRATION),
    ("PMIX_MODEL_DECLARED", PMIX_MODEL_DECLARED),
    ("PMIX_MODEL_RESOURCES", PMIX_MODEL_RESOURCES),
    ("PMIX_OPENMP_PARALLEL_ENTERED", PMIX_OPENMP_PARALLEL_ENTERED),
    ("PMIX_OPENMP_PARALLEL_EXITED", PMIX_OPENMP_PARALLEL_EXITED),
    ("PMIX_LAUNCHER_READY", PMIX_LAUNCHER_READY),
    ("PMIX_OPERATION_IN_PROGRESS", PMIX_OPERATION_IN_PROGRESS),
    ("PMIX_OPERATION_SUCCEEDED", PMIX_OPERATION_SUCCEEDED),
    ("PMIX_ERR_INVALID_OPERATION", PMIX_ERR_INVALID_OPERATION),
    ("PMIX_GROUP_INVITED", PMIX_GROUP_INVITED),
    ("PMIX_GROUP_LEFT", PMIX_GROUP_LEFT),
    ("PMIX_GROUP_INVITE_ACCEPTED", PMIX_GROUP_INVITE_ACCEPTED),
    ("PMIX_GROUP_INVITE_DECLINED", PMIX_GROUP_INVITE_DECLINED),
    ("PMIX_GROUP_INVITE_FAILED", PMIX_GROUP_INVITE_FAILED),
    ("PMIX_GROUP_MEMBERSHIP_UPDATE", PMIX_GROUP_MEMBERSHIP_UPDATE),
    ("PMIX_GROUP_CONSTRUCT_ABORT", PMIX_GROUP_CONSTRUCT_ABORT),
    ("PMIX_GROUP_CONSTRUCT_COMPLETE", PMIX_GROUP_CONSTRUCT_COMPLETE),
    ("PMIX_GROUP_LEADER_SELECTED", PMIX_GROUP_LEADER_SELECTED),
    ("PMIX_GROUP_LEADER_FAILED", PMIX_GROUP_LEADER_FAILED),
    ("PMIX_GROUP_CONTEXT_ID_ASSIGNED", PMIX_GROUP_CONTEXT_ID_ASSIGNED),
    ("PMIX_GROUP_MEMBER_FAILED", PMIX_GROUP_MEMBER_FAILED),
    ("PMIX_ERR_REPEAT_ATTR_REGISTRATION", PMIX_ERR_REPEAT_ATTR_REGISTRATION),
    ("PMIX_ERR_IOF_FAILURE", PMIX_ERR_IOF_FAILURE),
    ("PMIX_ERR_IOF_COMPLETE", PMIX_ERR_IOF_COMPLETE),
    ("PMIX_LAUNCH_COMPLETE", PMIX_LAUNCH_COMPLETE),
    ("PMIX_FABRIC_UPDATED", PMIX_FABRIC_UPDATED),
    ("PMIX_FABRIC_UPDATE_PENDING", PMIX_FABRIC_UPDATE_PENDING),
    ("PMIX_FABRIC_UPDATE_ENDPOINTS", PMIX_FABRIC_UPDATE_ENDPOINTS),
    ("PMIX_ERR_JOB_APP_NOT_EXECUTABLE", PMIX_ERR_JOB_APP_NOT_EXECUTABLE),
    ("PMIX_ERR_JOB_NO_EXE_SPECIFIED", PMIX_ERR_JOB_NO_EXE_SPECIFIED),
    ("PMIX_ERR_JOB_FAILED_TO_MAP", PMIX_ERR_JOB_FAILED_TO_MAP),
    ("PMIX_ERR_JOB_CANCELED", PMIX_ERR_JOB_CANCELED),
    ("PMIX_ERR_JOB_FAILED_TO_LAUNCH", PMIX_ERR_JOB_FAILED_TO_LAUNCH),
    ("PMIX_ERR_JOB_ABORTED", PMIX_ERR_JOB_ABORTED),
    ("PMIX_ERR_JOB_KILLED_BY_CMD", PMIX_ERR_JOB_KILLED_BY_CMD),
    ("PMIX_ERR_JOB_ABORTED_BY_SIG", PMIX_ERR_JOB_ABORTED_BY_SIG),
    ("PMIX_ERR_JOB_TERM_WO_SYNC", PMIX_ERR_JOB_TERM_WO_SYNC),
    ("PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED", PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED),
    ("PMIX_ERR_JOB_NON_ZERO_TERM", PMIX_ERR_JOB_NON_ZERO_TERM),
    ("PMIX_ERR_JOB_ALLOC_FAILED", PMIX_ERR_JOB_ALLOC_FAILED),
    ("PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT", PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT),
    ("PMIX_ERR_JOB_EXE_NOT_FOUND", PMIX_ERR_JOB_EXE_NOT_FOUND),
    ("PMIX_ERR_JOB_WDIR_NOT_FOUND", PMIX_ERR_JOB_WDIR_NOT_FOUND),
    ("PMIX_ERR_JOB_INSUFFICIENT_RESOURCES", PMIX_ERR_JOB_INSUFFICIENT_RESOURCES),
    ("PMIX_ERR_JOB_SYS_OP_FAILED", PMIX_ERR_JOB_SYS_OP_FAILED),
    ("PMIX_EVENT_JOB_START", PMIX_EVENT_JOB_START),
    ("PMIX_EVENT_JOB_END", PMIX_EVENT_JOB_END),
    ("PMIX_EVENT_SESSION_START", PMIX_EVENT_SESSION_START),
    ("PMIX_EVENT_SESSION_END", PMIX_EVENT_SESSION_END),
    ("PMIX_ERR_PROC_REQUESTED_ABORT", PMIX_ERR_PROC_REQUESTED_ABORT),
    ("PMIX_ERR_PROC_TERM_WO_SYNC", PMIX_ERR_PROC_TERM_WO_SYNC),
    ("PMIX_EVENT_PROC_TERMINATED", PMIX_EVENT_PROC_TERMINATED),
    ("PMIX_ERR_PROC_KILLED_BY_CMD", PMIX_ERR_PROC_KILLED_BY_CMD),
    ("PMIX_ERR_PROC_FAILED_TO_START", PMIX_ERR_PROC_FAILED_TO_START),
    ("PMIX_ERR_PROC_ABORTED_BY_SIG", PMIX_ERR_PROC_ABORTED_BY_SIG),
    ("PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED", PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED),
    ("PMIX_ERR_EXIT_NONZERO_TERM", PMIX_ERR_EXIT_NONZERO_TERM),
    ("PMIX_EVENT_SYS_BASE", PMIX_EVENT_SYS_BASE),
    ("PMIX_EVENT_NODE_DOWN", PMIX_EVENT_NODE_DOWN),
    ("PMIX_EVENT_NODE_OFFLINE", PMIX_EVENT_NODE_OFFLINE),
    ("PMIX_EVENT_SYS_OTHER", PMIX_EVENT_SYS_OTHER),
    ("PMIX_EVENT_NO_ACTION_TAKEN", PMIX_EVENT_NO_ACTION_TAKEN),
    ("PMIX_EVENT_PARTIAL_ACTION_TAKEN", PMIX_EVENT_PARTIAL_ACTION_TAKEN),
    ("PMIX_EVENT_ACTION_DEFERRED", PMIX_EVENT_ACTION_DEFERRED),
    ("PMIX_EVENT_ACTION_COMPLETE", PMIX_EVENT_ACTION_COMPLETE),
    ("PMIX_ERR_SILENT", PMIX_ERR_SILENT),
    ("PMIX_ERR_DEBUGGER_RELEASE", PMIX_ERR_DEBUGGER_RELEASE),
    ("PMIX_ERR_PROC_ABORTED", PMIX_ERR_PROC_ABORTED),
    ("PMIX_ERR_PROC_ABORTING", PMIX_ERR_PROC_ABORTING),
    ("PMIX_ERR_SERVER_FAILED_REQUEST", PMIX_ERR_SERVER_FAILED_REQUEST),
    ("PMIX_EXISTS", PMIX_EXISTS),
    ("PMIX_ERR_HANDSHAKE_FAILED", PMIX_ERR_HANDSHAKE_FAILED),
    ("PMIX_ERR_READY_FOR_HANDSHAKE", PMIX_ERR_READY_FOR_HANDSHAKE),
    ("PMIX_ERR_PROC_ENTRY_NOT_FOUND", PMIX_ERR_PROC_ENTRY_NOT_FOUND),
    ("PMIX_ERR_PACK_MISMATCH", PMIX_ERR_PACK_MISMATCH),
    ("PMIX_ERR_IN_ERRNO", PMIX_ERR_IN_ERRNO),
    ("PMIX_ERR_DATA_VALUE_NOT_FOUND", PMIX_ERR_DATA_VALUE_NOT_FOUND),
    ("PMIX_ERR_INVALID_ARG", PMIX_ERR_INVALID_ARG),
    ("PMIX_ERR_INVALID_KEY", PMIX_ERR_INVALID_KEY),
    ("PMIX_ERR_INVALID_KEY_LENGTH", PMIX_ERR_INVALID_KEY_LENGTH),
    ("PMIX_ERR_INVALID_VAL", PMIX_ERR_INVALID_VAL),
    ("PMIX_ERR_INVALID_VAL_LENGTH", PMIX_ERR_INVALID_VAL_LENGTH),
    ("PMIX_ERR_INVALID_LENGTH", PMIX_ERR_INVALID_LENGTH),
    ("PMIX_ERR_INVALID_NUM_ARGS", PMIX_ERR_INVALID_NUM_ARGS),
    ("PMIX_ERR_INVALID_ARGS", PMIX_ERR_INVALID_ARGS),
    ("PMIX_ERR_INVALID_NUM_PARSED", PMIX_ERR_INVALID_NUM_PARSED),
    ("PMIX_ERR_INVALID_KEYVALP", PMIX_ERR_INVALID_KEYVALP),
    ("PMIX_ERR_INVALID_SIZE", PMIX_ERR_INVALID_SIZE),
    ("PMIX_ERR_INVALID_NAMESPACE", PMIX_ERR_INVALID_NAMESPACE),
    ("PMIX_ERR_SERVER_NOT_AVAIL", PMIX_ERR_SERVER_NOT_AVAIL),
    ("PMIX_ERR_NOT_IMPLEMENTED", PMIX_ERR_NOT_IMPLEMENTED),
    ("PMIX_DEBUG_WAITING_FOR_NOTIFY", PMIX_DEBUG_WAITING_FOR_NOTIFY),
    ("PMIX_ERR_FATAL", PMIX_ERR_FATAL),
    ("PMIX_ERR_NOT_AVAILABLE", PMIX_ERR_NOT_AVAILABLE),
    ("PMIX_ERR_VALUE_OUT_OF_BOUNDS", PMIX_ERR_VALUE_OUT_OF_BOUNDS),
    ("PMIX_ERR_FILE_OPEN_FAILURE", PMIX_ERR_FILE_OPEN_FAILURE),
    ("PMIX_ERR_FILE_READ_FAILURE", PMIX_ERR_FILE_READ_FAILURE),
    ("PMIX_ERR_FILE_WRITE_FAILURE", PMIX_ERR_FILE_WRITE_FAILURE),
    ("PMIX_ERR_SYS_LIMITS_PIPES", PMIX_ERR_SYS_LIMITS_PIPES),
    ("PMIX_ERR_SYS_LIMITS_CHILDREN", PMIX_ERR_SYS_LIMITS_CHILDREN),
    ("PMIX_ERR_PIPE_SETUP_FAILURE", PMIX_ERR_PIPE_SETUP_FAILURE),
    ("PMIX_ERR_EXE_NOT_ACCESSIBLE", PMIX_ERR_EXE_NOT_ACCESSIBLE),
    ("PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE", PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE),
    ("PMIX_ERR_SYS_LIMITS_FILES", PMIX_ERR_SYS_LIMITS_FILES),
    ("PMIX_ERR_LOST_CONNECTION_TO_SERVER", PMIX_ERR_LOST_CONNECTION_TO_SERVER),
    ("PMIX_ERR_LOST_PEER_CONNECTION", PMIX_ERR_LOST_PEER_CONNECTION),
    ("PMIX_ERR_LOST_CONNECTION_TO_CLIENT", PMIX_ERR_LOST_CONNECTION_TO_CLIENT),
    ("PMIX_NOTIFY_ALLOC_COMPLETE", PMIX_NOTIFY_ALLOC_COMPLETE),
    ("PMIX_ERR_INVALID_TERMINATION", PMIX_ERR_INVALID_TERMINATION),
    ("PMIX_ERR_JOB_TERMINATED", PMIX_ERR_JOB_TERMINATED),
    ("PMIX_ERR_UPDATE_ENDPOINTS", PMIX_ERR_UPDATE_ENDPOINTS),
    ("PMIX_GDS_ACTION_COMPLETE", PMIX_GDS_ACTION_COMPLETE),
    ("PMIX_PROC_HAS_CONNECTED", PMIX_PROC_HAS_CONNECTED),
    ("PMIX_CONNECT_REQUESTED", PMIX_CONNECT_REQUESTED),
    ("PMIX_ERR_NODE_DOWN", PMIX_ERR_NODE_DOWN),
    ("PMIX_ERR_NODE_OFFLINE", PMIX_ERR_NODE_OFFLINE),
    // OpenPMIx-internal codes (its src/util/pmix_error.h), not in the public headers.
    ("PMIX_ERR_FABRIC_NOT_PARSEABLE", -1363),
    ("PMIX_ERR_TAKE_NEXT_OPTION", -1366),
    ("PMIX_ERR_TEMP_UNAVAILABLE", -1367),
];

/// What PMIx_Error_code answers for a name it does not know (INT32_MIN).
const NO_SUCH_STATUS: pmix_status_t = pmix_status_t::MIN;

/// The lowest status code a name can stand for (OpenPMIx's internal codes end above it).
const LOWEST_NAMED_STATUS: pmix_status_t = -2000;

/// Longest status name PMIx_Error_code reads; no known name comes near it.
const STATUS_NAME_MAX: usize = 256;

/// The status code named `name`, compared ignoring ASCII case: a constant's name, as
/// OpenPMIx 5 matches it, else the text our PMIx_Error_string gives a code (OpenPMIx
/// 4.2.2's, e.g. "BAD-PARAM"), so that the two round-trip.
fn status_code(name: &[u8]) -> pmix_status_t {
    if let Some(&(_, code)) = STATUS_NAMES.iter().find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name)) {
        return code;
    }
    (LOWEST_NAMED_STATUS..=0)
        .rev()
        .find(|&code| {
            let text = crate::strings::error_string(code);
            text != crate::strings::UNKNOWN_ERROR && text.to_bytes().eq_ignore_ascii_case(name)
        })
        .unwrap_or(NO_SUCH_STATUS)
}

/// Look up the status code whose name is `errname` (ignoring case).
///
/// Returns the code of the constant so named (e.g. "PMIX_ERR_BAD_PARAM"), or of the text
/// PMIx_Error_string gives it (e.g. "BAD-PARAM"); INT32_MIN for an unknown name or NULL.
///
/// # Safety
/// `errname` is NULL or readable up to its NUL or 256 bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_code(errname: *const c_char) -> pmix_status_t {
    entry!("PMIx_Error_code", {
        let Some(name) = cmem::bounded_cstr(errname, STATUS_NAME_MAX) else {
            crate::pmix_debug!(1, "PMIx_Error_code: NULL name");
            return NO_SUCH_STATUS;
        };
        status_code(name)
    })
}

/// "[nspace,rank]", with the special ranks spelled out; "[NO-NAME]" for no process.
fn proc_text(p: Option<&pmix_proc_t>) -> Vec<u8> {
    let Some(p) = p else { return b"[NO-NAME]".to_vec() };
    let rank = match p.rank {
        PMIX_RANK_UNDEF => "UNDEF".to_string(),
        PMIX_RANK_WILDCARD => "WILDCARD".to_string(),
        PMIX_RANK_LOCAL_NODE => "LOCAL_NODE".to_string(),
        PMIX_RANK_LOCAL_PEERS => "LOCAL_PEERS".to_string(),
        PMIX_RANK_INVALID => "INVALID".to_string(),
        r => r.to_string(),
    };
    let ns = fixed_bytes(&p.nspace, p.nspace.len());
    [b"[".as_slice(), ns, b",", rank.as_bytes(), b"]"].concat()
}

/// Render a process identifier as "[nspace,rank]", special ranks by name ("WILDCARD").
///
/// Returns a malloc'd string the caller frees ("[NO-NAME]" for a NULL `proc`); NULL only
/// when out of memory.
///
/// # Safety
/// `proc` is NULL or a readable `pmix_proc_t` (its namespace is read no further than its
/// array, terminated or not).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_string(proc: *const pmix_proc_t) -> *mut c_char {
    entry!("PMIx_Proc_string", { cmem::strdup_bytes(&proc_text(proc.as_ref())) })
}

/// The bytes of a C string, or "(null)" for NULL (as glibc's printf prints it).
///
/// # Safety
/// `s` is NULL or NUL-terminated, and outlives the slice.
unsafe fn text<'a>(s: *const c_char) -> &'a [u8] {
    // SAFETY: the caller upholds the contract above.
    unsafe { cmem::cstr_bytes(s) }.unwrap_or(b"(null)")
}

/// The lines of PMIx_App_string, joined with '\n'.
///
/// # Safety
/// As PMIx_App_string's `app`.
unsafe fn app_text(app: &pmix_app_t) -> Vec<u8> {
    // SAFETY: the caller upholds PMIx_App_string's contract: every pointer of `app` is
    // NULL or valid as described there.
    unsafe {
        let mut lines: Vec<Vec<u8>> = vec![[b"CMD: ".as_slice(), text(app.cmd)].concat()];
        for (title, list) in [("ARGV", app.argv), ("ENV", app.env)] {
            lines.push(format!("    {title}:").into_bytes());
            if list.is_null() {
                lines.push(b"        NONE".to_vec());
            }
            for i in 0..cmem::argv_len(list) {
                let head = format!("        {title}[{i}]: ");
                lines.push([head.as_bytes(), text(*list.add(i))].concat());
            }
        }
        lines.push(match cmem::cstr_bytes(app.cwd) {
            Some(cwd) => [b"    CWD: ".as_slice(), cwd].concat(),
            None => b"    CWD: NULL".to_vec(),
        });
        lines.push(format!("    MAXPROCS: {}", app.maxprocs).into_bytes());
        if app.info.is_null() {
            lines.push(b"    INFO: NONE".to_vec());
        } else {
            lines.push(b"    INFO:".to_vec());
            for (i, info) in slice(app.info, app.ninfo).iter().enumerate() {
                let body = crate::data::print::info_text(info);
                lines.push(format!("        INFO[{i}]: {body}").into_bytes());
            }
        }
        lines.join(&b'\n')
    }
}

/// Render an application description as readable text, one field per line.
///
/// Returns a malloc'd string the caller frees (command, argv, environment, working
/// directory, maxprocs and infos, one per line); NULL for a NULL `app` (logged) or when
/// out of memory.
///
/// # Safety
/// `app` is NULL or a readable `pmix_app_t` whose `cmd` and `cwd` are each NULL or
/// NUL-terminated, whose `argv` and `env` are each NULL or NULL-terminated arrays of
/// strings, and whose `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_string(app: *const pmix_app_t) -> *mut c_char {
    entry!("PMIx_App_string", {
        let Some(app) = app.as_ref() else {
            crate::pmix_debug!(1, "PMIx_App_string: NULL app");
            return ptr::null_mut();
        };
        cmem::strdup_bytes(&app_text(app))
    })
}

// ---------------------------------------------------------------------------
// Tool and session calls
// ---------------------------------------------------------------------------

/// Tell whether this process (tool or client) is connected to a PMIx server.
///
/// Returns true while the connection to the primary server is up; false before init,
/// after finalize, once the connection is lost, and for a process that never connected
/// (a server, a standalone tool).
///
/// # Safety
/// No pointer arguments: always sound to call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_is_connected() -> bool {
    entry!("PMIx_tool_is_connected", {
        let Some(h) = crate::client::handle() else { return false };
        if crate::runtime::on_progress_thread() {
            // Inside one of our callbacks: the progress thread cannot be asked and
            // waited for, so go by whether a server is recorded.
            return crate::client::connected_server().is_some();
        }
        h.call(|role, _| role.connected()).unwrap_or(false)
    })
}

/// Refuse a server upcall table for this tool: rpmix tools serve no clients.
///
/// Returns PMIX_ERR_NOT_SUPPORTED, nothing stored (OpenPMIx keeps the table for the
/// clients a tool may serve; rpmix tools accept no client connections, so it could
/// never be called); PMIX_ERR_BAD_PARAM for a NULL `module`; PMIX_ERR_INIT before
/// PMIx_tool_init (OpenPMIx would crash there).
///
/// # Safety
/// `module` is NULL or a readable `pmix_server_module_t` (never read).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server_module(module: *mut pmix_server_module_t) -> pmix_status_t {
    status_entry!("PMIx_tool_set_server_module", {
        require!("PMIx_tool_set_server_module", !module.is_null());
        if crate::client::me().is_none() {
            return PMIX_ERR_INIT;
        }
        crate::pmix_debug!(5, "PMIx_tool_set_server_module: rpmix tools serve no clients");
        PMIX_ERR_NOT_SUPPORTED
    })
}

/// Session control (OpenPMIx 5.0): not implemented yet (rpmix has no session control).
///
/// Returns PMIX_ERR_INIT before any init, else PMIX_ERR_NOT_SUPPORTED, at once; `cbfunc` is never called (OpenPMIx
/// 5 would return success and report PMIX_ERR_NOT_SUPPORTED through it when its host
/// has no session control). Listed as "not yet" in the README's status table.
///
/// # Safety
/// None of the arguments is read.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Session_control(
    _session_id: u32,
    _directives: *const pmix_info_t,
    _ndirs: usize,
    _cbfunc: pmix_info_cbfunc_t,
    _cbdata: *mut c_void,
) -> pmix_status_t {
    // (as OpenPMIx: before init, the answer is that)
    if crate::facade::own_proc().is_none() {
        return PMIX_ERR_INIT;
    }
    not_yet!("PMIx_Session_control")
}

// ---------------------------------------------------------------------------
// Info lists: the additions of OpenPMIx 5.0.9
// ---------------------------------------------------------------------------

/// A key argument of the list calls: at most PMIX_MAX_KEYLEN bytes before its NUL; None
/// for NULL or a longer key (rejected, as PMIx_Info_list_add does).
///
/// # Safety
/// `key` is NULL or readable up to its NUL or PMIX_MAX_KEYLEN + 1 bytes.
unsafe fn list_key<'a>(key: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above.
    let k = unsafe { cmem::bounded_cstr(key, PMIX_MAX_KEYLEN + 1) }?;
    (k.len() <= PMIX_MAX_KEYLEN).then_some(k)
}

/// A deep copy of a list's infos (PMIx_Info_list_convert), freed on drop.
struct Snapshot(pmix_data_array_t);

impl Snapshot {
    /// # Safety
    /// The infos inserted into `l` (PMIx_Info_list_insert) are still valid.
    unsafe fn of(l: &InfoList) -> Res<Snapshot> {
        // SAFETY: an all-zero data array is empty; the caller vouches for `l`.
        unsafe {
            let mut d: pmix_data_array_t = core::mem::zeroed();
            match l.convert(&mut d) {
                Ok(()) | Err(PMIX_ERR_EMPTY) => Ok(Snapshot(d)),
                Err(e) => Err(e),
            }
        }
    }

    fn infos(&self) -> &[pmix_info_t] {
        // SAFETY: convert left `size` infos at `array` (or NULL and 0).
        unsafe { slice(self.0.array as *const pmix_info_t, self.0.size) }
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
unsafe fn find_key(l: &InfoList, key: &[u8]) -> Res<Option<(Snapshot, usize)>> {
    // SAFETY: the caller upholds the contract above.
    let snap = unsafe { Snapshot::of(l) }?;
    let at = snap.infos().iter().position(|i| fixed_bytes(&i.key, PMIX_MAX_KEYLEN) == key);
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
unsafe fn replace_value(l: &mut InfoList, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res {
    let fresh = infolist::start();
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
    unsafe { infolist::release(fresh) };
    done
}

/// Fill the new list `fresh` with copies of `snap`'s infos, entry `at` taking `value`.
///
/// # Safety
/// As `replace_value`, `fresh` a live list handle.
unsafe fn fill_replaced<'a>(fresh: *mut c_void, snap: &Snapshot, at: usize, value: &pmix_value_t) -> Res<&'a mut InfoList> {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let nl = infolist::get(fresh)?;
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

/// Append `key` with a copy of `value` to a list unless the key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, its first
/// entry takes a copy of `value` (keeping its flags), else it is left alone;
/// PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `key` is NULL or longer than
/// PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On failure the list is
/// unchanged. An overwrite turns infos added with PMIx_Info_list_insert into the list's
/// own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `key` is NULL or NUL-terminated; `value` is as `data` for
/// PMIx_Value_load.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    overwrite: bool,
) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_unique", {
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_unique: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        match find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.add(key, value, type_)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => {
                let mut v: pmix_value_t = core::mem::zeroed();
                if let Err(e) = crate::data::value::load(&mut v, value, type_) {
                    return e;
                }
                let r = replace_value(l, &snap, at, &v);
                crate::data::value::destruct(&mut v);
                rc(r)
            }
        }
    })
}

/// A shallow info of `key` (at most PMIX_MAX_KEYLEN bytes) and `value`: a view for
/// `InfoList::xfer` to deep-copy, owning nothing.
fn view(key: &[u8], value: &pmix_value_t) -> pmix_info_t {
    let mut k = [0 as c_char; PMIX_MAX_KEYLEN + 1];
    cmem::load_fixed(&mut k, key);
    pmix_info_t { key: k, flags: 0, value: *value }
}

/// Append `key` with a deep copy of the value `value` to a list.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM when `ptr` is not a live list, `value` is
/// NULL or `key` is NULL or longer than PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE;
/// PMIX_ERR_NOMEM.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released; `key` is NULL
/// or NUL-terminated; `value` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value(ptr: *mut c_void, key: *const c_char, value: *const pmix_value_t) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_value", {
        require!("PMIx_Info_list_add_value", !value.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_value: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        rc(l.xfer(&view(k, &*value)))
    })
}

/// Append `key` with a deep copy of `value` to a list unless the key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, its first
/// entry takes a copy of `value` (keeping its flags), else it is left alone;
/// PMIX_ERR_BAD_PARAM when `ptr` is not a live list, `value` is NULL or `key` is NULL
/// or longer than PMIX_MAX_KEYLEN; PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On
/// failure the list is unchanged. An overwrite turns infos added with
/// PMIx_Info_list_insert into the list's own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `key` is NULL or NUL-terminated; `value` is NULL or a valid
/// value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
    overwrite: bool,
) -> pmix_status_t {
    status_entry!("PMIx_Info_list_add_value_unique", {
        require!("PMIx_Info_list_add_value_unique", !value.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let Some(k) = list_key(key) else {
            crate::pmix_debug!(1, "PMIx_Info_list_add_value_unique: NULL or over-long key");
            return PMIX_ERR_BAD_PARAM;
        };
        match find_key(l, k) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(&view(k, &*value))),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(replace_value(l, &snap, at, &*value)),
        }
    })
}

/// Append a deep copy of `info` to a list unless its key is already on it.
///
/// Returns PMIX_SUCCESS, also when the key was there: then, when `overwrite`, the first
/// entry with that key takes a copy of `info`'s value (keeping its own flags), else it
/// is left alone; PMIX_ERR_BAD_PARAM when `ptr` is not a live list or `info` is NULL;
/// PMIX_ERR_UNKNOWN_DATA_TYPE; PMIX_ERR_NOMEM. On failure the list is unchanged. An
/// overwrite turns infos added with PMIx_Info_list_insert into the list's own copies.
///
/// # Safety
/// `ptr` is NULL or a handle from PMIx_Info_list_start not yet released, whose inserted
/// infos are still valid; `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer_unique(ptr: *mut c_void, info: *const pmix_info_t, overwrite: bool) -> pmix_status_t {
    status_entry!("PMIx_Info_list_xfer_unique", {
        require!("PMIx_Info_list_xfer_unique", !info.is_null());
        let l = match infolist::get(ptr) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let src = &*info;
        match find_key(l, fixed_bytes(&src.key, PMIX_MAX_KEYLEN)) {
            Err(e) => e,
            Ok(None) => rc(l.xfer(src)),
            Ok(Some(_)) if !overwrite => PMIX_SUCCESS,
            Ok(Some((snap, at))) => rc(replace_value(l, &snap, at, &src.value)),
        }
    })
}

// ---------------------------------------------------------------------------
// The data symbol Open MPI 5 reads
// ---------------------------------------------------------------------------

/// `char *pmix_framework_names[]`: a NULL-terminated array of C strings, laid out as C
/// lays out the array (one pointer per entry).
#[repr(transparent)]
pub struct FrameworkNames(pub [*const c_char; 17]);

// SAFETY: every entry points to a static, immutable string literal (or is NULL) and the
// array is never written, so sharing it between threads is sound.
unsafe impl Sync for FrameworkNames {}

/// OpenPMIx 5.0.7's MCA framework names, then "mca", then NULL (Open MPI 5 reads it).
///
/// The one non-function symbol this library exports.
/// OpenPMIx generates this array (autogen.pl, from its src/mca directories) and exports
/// it; it is not part of the PMIx API. Open MPI 5's libopen-pal refers to it: when a job
/// is launched directly (no PRRTE), opal/mca/pmix/base/pmix_base_fns.c translates
/// OMPI_MCA_<framework>_* environment variables and mca-params.conf entries into
/// PMIX_MCA_* ones for the names listed here (PRRTE's schizo does the same). Without the
/// symbol, libopen-pal.so.80 does not load ("undefined symbol: pmix_framework_names").
/// rpmix reads no PMIX_MCA_* variables, so the list only keeps Open MPI's translation as
/// it is with OpenPMIx.
///
/// # Safety
/// Read-only for C: it lives in memory made read-only after relocation, so a write
/// faults. Its 17 slots (16 names and the NULL) match OpenPMIx 5.0.7's array in size.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static pmix_framework_names: FrameworkNames = FrameworkNames([
    c"bfrops".as_ptr(),
    c"gds".as_ptr(),
    c"pcompress".as_ptr(),
    c"pdl".as_ptr(),
    c"pif".as_ptr(),
    c"pinstalldirs".as_ptr(),
    c"plog".as_ptr(),
    c"pmdl".as_ptr(),
    c"pnet".as_ptr(),
    c"preg".as_ptr(),
    c"psec".as_ptr(),
    c"psensor".as_ptr(),
    c"psquash".as_ptr(),
    c"pstat".as_ptr(),
    c"ptl".as_ptr(),
    c"mca".as_ptr(),
    ptr::null(),
]);

#[cfg(test)]
mod tests {
    use super::*;

    /// A NULL-terminated argv as Rust strings (lossy), without freeing it.
    ///
    /// # Safety
    /// `a` is NULL or a NULL-terminated array of strings.
    unsafe fn strings(a: *mut *mut c_char) -> Vec<String> {
        // SAFETY: the caller upholds the contract above.
        unsafe {
            (0..cmem::argv_len(a)).map(|i| CStr::from_ptr(*a.add(i)).to_string_lossy().into_owned()).collect()
        }
    }

    /// A malloc'd C string taken back as a Rust one (freed).
    ///
    /// # Safety
    /// `s` is a malloc'd NUL-terminated string, not used after.
    unsafe fn take(s: *mut c_char) -> String {
        // SAFETY: the caller upholds the contract above.
        unsafe {
            assert!(!s.is_null());
            let out = CStr::from_ptr(s).to_string_lossy().into_owned();
            cmem::free(s);
            out
        }
    }

    #[test]
    fn argv_edits_and_copies() {
        // SAFETY: every array here is built by these functions; strings are literals.
        unsafe {
            let mut a: *mut *mut c_char = ptr::null_mut();
            assert_eq!(PMIx_Argv_count(a), 0);
            assert_eq!(PMIx_Argv_append_nosize(&mut a, c"b".as_ptr()), PMIX_SUCCESS);
            assert_eq!(PMIx_Argv_append_nosize(&mut a, c"c".as_ptr()), PMIX_SUCCESS);
            assert_eq!(PMIx_Argv_prepend_nosize(&mut a, c"a".as_ptr()), PMIX_SUCCESS);
            assert_eq!(PMIx_Argv_append_unique_nosize(&mut a, c"b".as_ptr()), PMIX_SUCCESS);
            assert_eq!(PMIx_Argv_append_unique_nosize(&mut a, c"d".as_ptr()), PMIX_SUCCESS);
            assert_eq!(strings(a), ["a", "b", "c", "d"]);
            assert_eq!(PMIx_Argv_count(a), 4);
            assert_eq!(take(PMIx_Argv_join(a, b',' as c_int)), "a,b,c,d");
            let c = PMIx_Argv_copy(a);
            assert_eq!(strings(c), ["a", "b", "c", "d"]);
            PMIx_Argv_free(c);
            PMIx_Argv_free(a);

            let mut p: *mut *mut c_char = ptr::null_mut();
            assert_eq!(PMIx_Argv_prepend_nosize(&mut p, c"x".as_ptr()), PMIX_SUCCESS);
            assert_eq!(strings(p), ["x"]);
            PMIx_Argv_free(p);

            assert_eq!(PMIx_Argv_append_nosize(ptr::null_mut(), c"x".as_ptr()), PMIX_ERR_BAD_PARAM);
            let mut n: *mut *mut c_char = ptr::null_mut();
            assert_eq!(PMIx_Argv_append_nosize(&mut n, ptr::null()), PMIX_ERR_BAD_PARAM);
            assert!(n.is_null());
            assert_eq!(take(PMIx_Argv_join(ptr::null_mut(), b',' as c_int)), "");
            assert!(PMIx_Argv_copy(ptr::null_mut()).is_null());
            let mut empty: [*mut c_char; 1] = [ptr::null_mut()];
            let e = PMIx_Argv_copy(empty.as_mut_ptr());
            assert!(!e.is_null() && (*e).is_null());
            PMIx_Argv_free(e);
            PMIx_Argv_free(ptr::null_mut());
        }
    }

    #[test]
    fn argv_split_as_openpmix() {
        // SAFETY: literals in, arrays of ours out.
        unsafe {
            let s = PMIx_Argv_split(c"a::b:".as_ptr(), b':' as c_int);
            assert_eq!(strings(s), ["a", "b"]);
            PMIx_Argv_free(s);
            let s = PMIx_Argv_split_with_empty(c":a::b:".as_ptr(), b':' as c_int);
            assert_eq!(strings(s), ["", "a", "", "b"]);
            PMIx_Argv_free(s);
            assert!(PMIx_Argv_split(c":::".as_ptr(), b':' as c_int).is_null());
            assert!(PMIx_Argv_split(c"".as_ptr(), b':' as c_int).is_null());
            assert!(PMIx_Argv_split(ptr::null(), b':' as c_int).is_null());
        }
    }

    #[test]
    fn setenv_on_an_array_and_on_environ() {
        // SAFETY: the array is built by these functions; strings are literals.
        unsafe {
            let mut env: *mut *mut c_char = ptr::null_mut();
            assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"1".as_ptr(), false, &mut env), PMIX_SUCCESS);
            assert_eq!(PMIx_Setenv(c"AB".as_ptr(), ptr::null(), false, &mut env), PMIX_SUCCESS);
            assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"2".as_ptr(), false, &mut env), PMIX_ERR_EXISTS);
            assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"3".as_ptr(), true, &mut env), PMIX_SUCCESS);
            assert_eq!(strings(env), ["A=3", "AB="]);
            PMIx_Argv_free(env);
            assert_eq!(PMIx_Setenv(ptr::null(), c"1".as_ptr(), true, &mut env), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"1".as_ptr(), true, ptr::null_mut()), PMIX_ERR_BAD_PARAM);

            let live = ptr::addr_of_mut!(libc::environ);
            let name = c"RPMIX_V5MISC_SETENV_TEST";
            assert_eq!(PMIx_Setenv(name.as_ptr(), c"x".as_ptr(), true, live), PMIX_SUCCESS);
            assert_eq!(std::env::var("RPMIX_V5MISC_SETENV_TEST").as_deref(), Ok("x"));
            assert_eq!(PMIx_Setenv(name.as_ptr(), c"y".as_ptr(), false, live), PMIX_SUCCESS);
            assert_eq!(std::env::var("RPMIX_V5MISC_SETENV_TEST").as_deref(), Ok("x"));
            assert_eq!(PMIx_Setenv(name.as_ptr(), ptr::null(), true, live), PMIX_SUCCESS);
            assert!(std::env::var_os("RPMIX_V5MISC_SETENV_TEST").is_none());
        }
    }

    #[test]
    fn keys_and_namespaces_are_bounded() {
        let long = [b'k' as c_char; 600]; // no NUL anywhere
        let mut key = [1 as c_char; PMIX_MAX_KEYLEN + 1];
        let mut ns = [1 as c_char; PMIX_MAX_NSLEN + 1];
        // SAFETY: readable/writable local arrays; every read stops inside them.
        unsafe {
            PMIx_Load_key(key.as_mut_ptr(), long.as_ptr());
            assert_eq!(fixed_bytes(&key, key.len()).len(), PMIX_MAX_KEYLEN);
            assert_eq!(key[PMIX_MAX_KEYLEN], 0);
            assert!(PMIx_Check_key(key.as_ptr(), long.as_ptr()));
            let kp = key.as_mut_ptr();
            PMIx_Load_key(kp, kp.add(PMIX_MAX_KEYLEN - 3));
            assert_eq!(fixed_bytes(&key, key.len()), b"kkk");
            PMIx_Load_key(key.as_mut_ptr(), ptr::null());
            assert!(key.iter().all(|&c| c == 0));
            PMIx_Load_key(ptr::null_mut(), c"x".as_ptr());
            assert!(!PMIx_Check_key(ptr::null(), c"x".as_ptr()));
            assert!(PMIx_Check_reserved_key(c"pmix.foo".as_ptr()));
            assert!(!PMIx_Check_reserved_key(c"pmi".as_ptr()));
            assert!(!PMIx_Check_reserved_key(ptr::null()));

            PMIx_Load_nspace(ns.as_mut_ptr(), long.as_ptr());
            assert_eq!(fixed_bytes(&ns, ns.len()).len(), PMIX_MAX_NSLEN);
            assert!(PMIx_Check_nspace(ns.as_ptr(), long.as_ptr()));
            assert!(!PMIx_Check_nspace(c"a".as_ptr(), c"b".as_ptr()));
            assert!(PMIx_Check_nspace(c"".as_ptr(), c"b".as_ptr()));
            assert!(PMIx_Check_nspace(ptr::null(), c"b".as_ptr()));
            assert!(PMIx_Nspace_invalid(ptr::null()));
            assert!(PMIx_Nspace_invalid(c"".as_ptr()));
            assert!(!PMIx_Nspace_invalid(c"a".as_ptr()));
        }
    }

    #[test]
    fn process_identifiers() {
        // SAFETY: local procs and literals.
        unsafe {
            let mut a: pmix_proc_t = core::mem::zeroed();
            let mut b: pmix_proc_t = core::mem::zeroed();
            assert!(PMIx_Procid_invalid(&a));
            PMIx_Load_procid(&mut a, c"job".as_ptr(), 3);
            assert!(!PMIx_Procid_invalid(&a));
            PMIx_Xfer_procid(&mut b, &a);
            assert!(PMIx_Check_procid(&a, &b));
            PMIx_Proc_load(&mut b, c"job".as_ptr() as *mut c_char, PMIX_RANK_WILDCARD);
            assert!(PMIx_Check_procid(&a, &b));
            PMIx_Proc_load(&mut b, c"other".as_ptr() as *mut c_char, 3);
            assert!(!PMIx_Check_procid(&a, &b));
            assert!(!PMIx_Check_procid(&a, ptr::null()));
            assert!(PMIx_Procid_invalid(ptr::null()));
            assert!(PMIx_Check_rank(1, PMIX_RANK_WILDCARD));
            assert!(!PMIx_Check_rank(1, 2));
            a.rank = PMIX_RANK_INVALID;
            assert!(PMIx_Procid_invalid(&a));
            // Loading a proc's namespace from itself keeps it.
            let bp: *mut pmix_proc_t = &mut b;
            PMIx_Load_procid(bp, (*bp).nspace.as_ptr(), 4);
            assert_eq!(fixed_bytes(&b.nspace, PMIX_MAX_NSLEN), b"other");

            b.rank = PMIX_RANK_WILDCARD;
            assert_eq!(take(PMIx_Proc_string(&b)), "[other,WILDCARD]");
            b.rank = 7;
            assert_eq!(take(PMIx_Proc_string(&b)), "[other,7]");
            assert_eq!(take(PMIx_Proc_string(ptr::null())), "[NO-NAME]");
        }
    }

    #[test]
    fn multicluster_namespaces() {
        let mut t = [0 as c_char; PMIX_MAX_NSLEN + 1];
        let mut c = [1 as c_char; PMIX_MAX_NSLEN + 1];
        let mut n = [1 as c_char; PMIX_MAX_NSLEN + 1];
        // SAFETY: local namespace buffers and literals.
        unsafe {
            PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), c"east".as_ptr() as *mut c_char, c"job1".as_ptr() as *mut c_char);
            assert_eq!(fixed_bytes(&t, t.len()), b"east:job1");
            PMIx_Multicluster_nspace_parse(t.as_mut_ptr(), c.as_mut_ptr(), n.as_mut_ptr());
            assert_eq!(fixed_bytes(&c, c.len()), b"east");
            assert_eq!(fixed_bytes(&n, n.len()), b"job1");
            PMIx_Multicluster_nspace_parse(c"plain".as_ptr() as *mut c_char, c.as_mut_ptr(), n.as_mut_ptr());
            assert_eq!(fixed_bytes(&c, c.len()), b"plain");
            assert_eq!(fixed_bytes(&n, n.len()), b"");
            let long = [b'x' as c_char; PMIX_MAX_NSLEN + 1];
            PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), long.as_ptr() as *mut c_char, c"j".as_ptr() as *mut c_char);
            assert_eq!(fixed_bytes(&t, t.len()), b"");
        }
    }

    #[test]
    fn status_names() {
        // SAFETY: literals.
        unsafe {
            assert_eq!(PMIx_Error_code(c"PMIX_ERR_BAD_PARAM".as_ptr()), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Error_code(c"pmix_err_not_supported".as_ptr()), PMIX_ERR_NOT_SUPPORTED);
            assert_eq!(PMIx_Error_code(c"PMIX_SUCCESS".as_ptr()), PMIX_SUCCESS);
            assert_eq!(PMIx_Error_code(c"BAD-PARAM".as_ptr()), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Error_code(c"no such name".as_ptr()), i32::MIN);
            assert_eq!(PMIx_Error_code(c"ERROR STRING NOT FOUND".as_ptr()), i32::MIN);
            assert_eq!(PMIx_Error_code(ptr::null()), i32::MIN);
        }
        // Every name our PMIx_Error_string gives comes back to its code.
        for code in LOWEST_NAMED_STATUS..=0 {
            let text = crate::strings::error_string(code);
            if text != crate::strings::UNKNOWN_ERROR {
                assert_eq!(status_code(text.to_bytes()), code, "{text:?}");
            }
        }
    }

    #[test]
    fn app_string_lists_every_field() {
        let mut argv = [c"-n".as_ptr() as *mut c_char, c"4".as_ptr() as *mut c_char, ptr::null_mut()];
        let app = pmix_app_t {
            cmd: c"hostname".as_ptr() as *mut c_char,
            argv: argv.as_mut_ptr(),
            env: ptr::null_mut(),
            cwd: ptr::null_mut(),
            maxprocs: 2,
            info: ptr::null_mut(),
            ninfo: 0,
        };
        // SAFETY: a valid app of literals.
        let s = unsafe { take(PMIx_App_string(&app)) };
        let want = "CMD: hostname\n    ARGV:\n        ARGV[0]: -n\n        ARGV[1]: 4\n    ENV:\n        NONE\n    CWD: NULL\n    MAXPROCS: 2\n    INFO: NONE";
        assert_eq!(s, want);
        // SAFETY: NULL is allowed.
        assert!(unsafe { PMIx_App_string(ptr::null()) }.is_null());
    }

    #[test]
    fn framework_names_are_null_terminated() {
        let names = &pmix_framework_names.0;
        assert!(names.last().unwrap().is_null());
        assert!(names[..names.len() - 1].iter().all(|p| !p.is_null()));
        // SAFETY: non-NULL entries are static C strings.
        let first = unsafe { CStr::from_ptr(names[0]) };
        assert_eq!(first, c"bfrops");
        // SAFETY: as above.
        assert_eq!(unsafe { CStr::from_ptr(names[names.len() - 2]) }, c"mca");
    }

    /// One expected list entry.
    fn e(k: &str, v: &str, flags: u32) -> (String, String, u32) {
        (k.to_string(), v.to_string(), flags)
    }

    /// The (key, string value, flags) of each info on a list, via convert.
    ///
    /// # Safety
    /// `l` is a live list handle whose values are strings.
    unsafe fn contents(l: *mut c_void) -> Vec<(String, String, u32)> {
        // SAFETY: the caller upholds the contract above.
        unsafe {
            let snap = Snapshot::of(infolist::get(l).unwrap()).unwrap();
            snap.infos()
                .iter()
                .map(|i| {
                    let k = String::from_utf8_lossy(fixed_bytes(&i.key, PMIX_MAX_KEYLEN)).into_owned();
                    assert_eq!(i.value.r#type, PMIX_STRING);
                    let v = CStr::from_ptr(i.value.data.string).to_string_lossy().into_owned();
                    (k, v, i.flags)
                })
                .collect()
        }
    }

    #[test]
    fn info_lists_keep_keys_unique() {
        // SAFETY: a list of ours; values are string literals loaded as PMIx_Value_load takes
        // them; the inserted info outlives the list.
        unsafe {
            let l = crate::ffi::deprecated::PMIx_Info_list_start();
            let one = c"1".as_ptr() as *const c_void;
            let two = c"2".as_ptr() as *const c_void;
            assert_eq!(PMIx_Info_list_add_unique(l, c"a".as_ptr(), one, PMIX_STRING, false), PMIX_SUCCESS);
            assert_eq!(PMIx_Info_list_add_unique(l, c"a".as_ptr(), two, PMIX_STRING, false), PMIX_SUCCESS);
            assert_eq!(contents(l), [e("a", "1", 0)]);

            let mut ins: pmix_info_t = core::mem::zeroed();
            assert_eq!(crate::data::info_load(&mut ins, c"b".as_ptr(), one, PMIX_STRING), Ok(()));
            ins.flags = PMIX_INFO_REQD;
            assert_eq!(crate::ffi::deprecated::PMIx_Info_list_insert(l, &mut ins), PMIX_SUCCESS);
            assert_eq!(PMIx_Info_list_add_unique(l, c"b".as_ptr(), two, PMIX_STRING, true), PMIX_SUCCESS);
            assert_eq!(contents(l), [e("a", "1", 0), e("b", "2", PMIX_INFO_REQD)]);
            // The caller's inserted info is untouched.
            assert_eq!(CStr::from_ptr(ins.value.data.string), c"1");

            let mut v: pmix_value_t = core::mem::zeroed();
            assert_eq!(crate::data::value::load(&mut v, two, PMIX_STRING), Ok(()));
            assert_eq!(PMIx_Info_list_add_value(l, c"c".as_ptr(), &v), PMIX_SUCCESS);
            assert_eq!(PMIx_Info_list_add_value_unique(l, c"a".as_ptr(), &v, true), PMIX_SUCCESS);
            assert_eq!(PMIx_Info_list_add_value_unique(l, c"c".as_ptr(), &v, false), PMIX_SUCCESS);
            let mut x: pmix_info_t = core::mem::zeroed();
            assert_eq!(crate::data::info_load(&mut x, c"c".as_ptr(), one, PMIX_STRING), Ok(()));
            assert_eq!(PMIx_Info_list_xfer_unique(l, &x, true), PMIX_SUCCESS);
            x.key[0] = b'd' as c_char;
            assert_eq!(PMIx_Info_list_xfer_unique(l, &x, false), PMIX_SUCCESS);
            let want = [e("a", "2", 0), e("b", "2", PMIX_INFO_REQD), e("c", "1", 0), e("d", "1", 0)];
            assert_eq!(contents(l), want);

            assert_eq!(PMIx_Info_list_add_value(l, ptr::null(), &v), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Info_list_add_value(l, c"e".as_ptr(), ptr::null()), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Info_list_xfer_unique(l, ptr::null(), true), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Info_list_add_unique(ptr::null_mut(), c"a".as_ptr(), one, PMIX_STRING, true), PMIX_ERR_BAD_PARAM);

            crate::ffi::deprecated::PMIx_Info_list_release(l);
            crate::data::value::destruct(&mut v);
            crate::data::value::destruct(&mut x.value);
            crate::data::value::destruct(&mut ins.value);
        }
    }

    #[test]
    fn session_control_and_server_module_are_refused() {
        // SAFETY: NULL and unused arguments only.
        unsafe {
            let st = PMIx_Session_control(0, ptr::null(), 0, None, ptr::null_mut());
            assert_eq!(st, PMIX_ERR_INIT); // (no role initialised in unit tests)
            assert_eq!(PMIx_tool_set_server_module(ptr::null_mut()), PMIX_ERR_BAD_PARAM);
        }
    }
}
