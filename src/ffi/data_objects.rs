//! Object lifecycle, OpenPMIx 5's (construct, create, destruct, free, load,
//! xfer of every PMIx type), exported for its header macros, so programs
//! built against those headers load and run on this library.
//!
//! The objects keep OpenPMIx 5.0.7's observable state: a constructed object
//! is all zero except the documented defaults (a proc's rank is
//! PMIX_RANK_UNDEF, a device distance's bounds are UINT16_MAX), an array comes
//! from one zeroed libc block (`calloc`), `create(0)` is NULL (but a data
//! array of 0 elements is an empty array, as rpmix's own macro makes it),
//! `_free` releases the array as well, and `_destruct` leaves the object as
//! `_construct` does.
//! Where 5.0.7 would crash or leak (NULL pointers, counts no memory could
//! hold, uninitialised elements), these functions log and do nothing instead.
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};
use core::mem::size_of;
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::elem;
use crate::data::kind::{Kind, Num};
use crate::data::value;
use crate::status::Res;

/// No defaults beyond zero.
fn zeroed_only<T>(_: &mut T) {}

/// A proc's defaults: an empty namespace with an undefined rank.
fn proc_defaults(p: &mut pmix_proc_t) {
    p.rank = PMIX_RANK_UNDEF;
}

/// A device distance's defaults: unknown type, distances at their maximum.
fn devdist_defaults(d: &mut pmix_device_distance_t) {
    d.r#type = PMIX_DEVTYPE_UNKNOWN;
    d.mindist = u16::MAX;
    d.maxdist = u16::MAX;
}

/// Zero `*p`, then give it `init`'s defaults.
///
/// # Safety
/// `p` is valid for a write of one `T` (whatever it held is overwritten).
unsafe fn construct_in<T>(p: *mut T, init: fn(&mut T)) {
    // SAFETY: the caller upholds the contract above; all-zero is a valid
    // value of every PMIx struct, so the reference made after is sound.
    unsafe {
        ptr::write_bytes(p, 0, 1);
        init(&mut *p);
    }
}

/// `n` constructed objects of `kind` (`T` is its C struct) in one zeroed libc
/// block; NULL for 0, for a count no memory could hold, or without memory.
fn create_array<T>(name: &str, kind: Kind, n: usize, init: fn(&mut T)) -> *mut T {
    debug_assert_eq!(kind.size(), size_of::<T>());
    if n == 0 {
        return ptr::null_mut();
    }
    match elem::alloc_array(kind, n) {
        Ok(p) => {
            let p = p as *mut T;
            for i in 0..n {
                // SAFETY: `p` holds `n` zeroed (so valid) elements of `T`.
                init(unsafe { &mut *p.add(i) });
            }
            p
        }
        Err(e) => {
            crate::pmix_debug!(1, "{name}: no array of {n} elements [{}]", crate::strings::error_name(e));
            ptr::null_mut()
        }
    }
}

/// Release what an object of `kind` owns, then leave it constructed.
///
/// # Safety
/// `p` points to a valid (possibly zeroed) object of `kind`, whose memory is
/// NULL or libc's.
unsafe fn destruct_in<T>(kind: Kind, p: *mut T, init: fn(&mut T)) {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        elem::destruct(kind, p as *mut u8);
        construct_in(p, init);
    }
}

/// Destruct `n` objects with `one`, then free their array; an impossible
/// count leaves the array alone.
///
/// # Safety
/// `p` is NULL or a libc array of `n` valid objects that `one` can destruct.
unsafe fn free_with<T>(name: &str, kind: Kind, p: *mut T, n: usize, one: unsafe fn(*mut T)) {
    if p.is_null() {
        return;
    }
    if !elem::sane_len(kind, n) {
        crate::pmix_debug!(1, "{name}: impossible count {n}, array left alone");
        return;
    }
    // SAFETY: the caller upholds the contract above; `n` is a possible count.
    unsafe {
        for i in 0..n {
            one(p.add(i));
        }
        cmem::free(p);
    }
}

/// An info's destruct: a persistent info does not own its value.
///
/// # Safety
/// `i` points to a valid info.
unsafe fn info_destruct(i: *mut pmix_info_t) {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        if (*i).flags & PMIX_INFO_PERSISTENT == 0 {
            value::destruct(&mut (*i).value);
        }
    }
}

/// An app's destruct (its infos as PMIx_Info_free does); it ends zeroed.
///
/// # Safety
/// `a` points to a valid app.
unsafe fn app_destruct(a: *mut pmix_app_t) {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let (info, n) = ((*a).info, (*a).ninfo);
        (*a).info = ptr::null_mut();
        (*a).ninfo = 0;
        free_with("PMIx_App_destruct", Kind::Info, info, n, info_destruct);
        elem::destruct(Kind::App, a as *mut u8);
    }
}

/// A query's destruct (its qualifiers as PMIx_Info_free does); it ends zeroed.
///
/// # Safety
/// `q` points to a valid query.
unsafe fn query_destruct(q: *mut pmix_query_t) {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let (qual, n) = ((*q).qualifiers, (*q).nqual);
        (*q).qualifiers = ptr::null_mut();
        (*q).nqual = 0;
        free_with("PMIx_Query_destruct", Kind::Info, qual, n, info_destruct);
        elem::destruct(Kind::Query, q as *mut u8);
    }
}

/// Append a copy of `s` to a NULL-terminated libc argv (NULL makes one).
///
/// # Safety
/// `*argv` is NULL or a libc NULL-terminated argv; `s` is NUL-terminated.
unsafe fn argv_append(argv: &mut *mut *mut c_char, s: *const c_char) -> Res {
    // SAFETY: the caller upholds the contract above; the grown array has room
    // for the old entries, the new one and the terminator.
    unsafe {
        let copy = libc::strdup(s);
        if copy.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        let n = cmem::argv_len(*argv);
        let grown = libc::realloc(*argv as *mut c_void, (n + 2) * size_of::<*mut c_char>()) as *mut *mut c_char;
        if grown.is_null() {
            cmem::free(copy);
            return Err(PMIX_ERR_NOMEM);
        }
        *grown.add(n) = copy;
        *grown.add(n + 1) = ptr::null_mut();
        *argv = grown;
        Ok(())
    }
}

/// The bytes of a key buffer up to its NUL, at most PMIX_MAX_KEYLEN.
fn key_bytes(key: &pmix_key_t) -> &[u8] {
    let n = cmem::bounded_len(&key[..PMIX_MAX_KEYLEN]);
    // SAFETY: `n` bytes of the array; c_char and u8 have one layout.
    unsafe { core::slice::from_raw_parts(key.as_ptr() as *const u8, n) }
}

/// Generate the `_construct`, `_create`, `_destruct` and `_free` exports of
/// one object type (those named in the braces), from its `Kind` and defaults:
///
/// `lifecycle!(C type, Kind, defaults fn, "noun", "plural", "state" { op Name; ... })`
///
/// where "state" says what a constructed object is (for the docs).
macro_rules! lifecycle {
    ($T:ty, $kind:expr, $init:expr, $what:literal, $whats:literal, $state:literal {
        $($op:ident $f:ident;)+
    }) => {
        $( lifecycle!(@$op $f, $T, $kind, $init, $what, $whats, $state); )+
    };
    (@construct $f:ident, $T:ty, $kind:expr, $init:expr, $what:literal, $whats:literal, $state:literal) => {
        #[doc = concat!("Initialise `*p` as an empty ", $what, ".")]
        #[doc = ""]
        #[doc = concat!("Returns nothing; afterwards `*p` is ", $state, ".")]
        #[doc = "A NULL `p` is ignored (logged at PMIX_DEBUG >= 1)."]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = concat!("`p` is NULL or writable storage for one ", $what, "; what it held")]
        #[doc = "is overwritten, not freed."]
        #[no_mangle]
        pub unsafe extern "C" fn $f(p: *mut $T) {
            entry!(stringify!($f), {
                null_check!(stringify!($f), p);
                construct_in(p, $init);
            })
        }
    };
    (@create $f:ident, $T:ty, $kind:expr, $init:expr, $what:literal, $whats:literal, $state:literal) => {
        #[doc = concat!("Allocate an array of `n` empty ", $whats, ".")]
        #[doc = ""]
        #[doc = "Returns one zeroed libc block (release it with the matching `_free`) whose"]
        #[doc = concat!("elements are each ", $state, ";")]
        #[doc = "NULL when `n` is 0, when `n` elements cannot fit in memory, or when memory"]
        #[doc = "is short."]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = "No pointer arguments."]
        #[no_mangle]
        pub unsafe extern "C" fn $f(n: usize) -> *mut $T {
            entry!(stringify!($f), { create_array::<$T>(stringify!($f), $kind, n, $init) })
        }
    };
    (@destruct $f:ident, $T:ty, $kind:expr, $init:expr, $what:literal, $whats:literal, $state:literal) => {
        #[doc = concat!("Release what a ", $what, " owns (strings, arrays), not the struct itself.")]
        #[doc = ""]
        #[doc = concat!("Returns nothing; afterwards `*p` is ", $state, ".")]
        #[doc = "A NULL `p` is ignored (logged at PMIX_DEBUG >= 1)."]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = concat!("`p` is NULL or a valid ", $what, " whose memory is NULL or libc's;")]
        #[doc = "what it owned is not used after."]
        #[no_mangle]
        pub unsafe extern "C" fn $f(p: *mut $T) {
            entry!(stringify!($f), {
                null_check!(stringify!($f), p);
                destruct_in($kind, p, $init);
            })
        }
    };
    (@free $f:ident, $T:ty, $kind:expr, $init:expr, $what:literal, $whats:literal, $state:literal) => {
        #[doc = concat!("Release `n` ", $whats, " and the array that holds them.")]
        #[doc = ""]
        #[doc = "Returns nothing. A NULL `p` is ignored; a count no memory could hold"]
        #[doc = "leaves the array alone (logged at PMIX_DEBUG >= 1)."]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = concat!("`p` is NULL or a libc array (as `_create` makes) of `n` valid ", $whats, ";")]
        #[doc = "neither it nor what they owned is used after."]
        #[no_mangle]
        pub unsafe extern "C" fn $f(p: *mut $T, n: usize) {
            entry!(stringify!($f), { elem::free_array($kind, p as *mut u8, n) })
        }
    };
}

lifecycle!(pmix_byte_object_t, Kind::ByteObject, zeroed_only, "byte object", "byte objects",
           "NULL bytes of size 0" {
    construct PMIx_Byte_object_construct;
    create PMIx_Byte_object_create;
    destruct PMIx_Byte_object_destruct;
    free PMIx_Byte_object_free;
});

lifecycle!(pmix_coord_t, Kind::Coord, zeroed_only, "coordinate", "coordinates",
           "PMIX_COORD_VIEW_UNDEF with no values" {
    construct PMIx_Coord_construct;
    destruct PMIx_Coord_destruct;
    free PMIx_Coord_free;
});

lifecycle!(pmix_cpuset_t, Kind::Cpuset, zeroed_only, "CPU set", "CPU sets",
           "without source or bitmap" {
    construct PMIx_Cpuset_construct;
    create PMIx_Cpuset_create;
    free PMIx_Cpuset_free;
});

lifecycle!(pmix_topology_t, Kind::Topology, zeroed_only, "topology", "topologies",
           "without source or topology" {
    construct PMIx_Topology_construct;
    create PMIx_Topology_create;
    free PMIx_Topology_free;
});

lifecycle!(pmix_data_buffer_t, Kind::DataBuffer, zeroed_only, "data buffer", "data buffers",
           "empty (no storage)" {
    construct PMIx_Data_buffer_construct;
    destruct PMIx_Data_buffer_destruct;
});

lifecycle!(pmix_device_distance_t, Kind::DeviceDist, devdist_defaults, "device distance",
           "device distances", "zeroed, type unknown, both distances UINT16_MAX" {
    construct PMIx_Device_distance_construct;
    create PMIx_Device_distance_create;
    destruct PMIx_Device_distance_destruct;
    free PMIx_Device_distance_free;
});

lifecycle!(pmix_disk_stats_t, Kind::DiskStats, zeroed_only, "disk statistics record",
           "disk statistics records", "all zero (no disk name)" {
    construct PMIx_Disk_stats_construct;
    create PMIx_Disk_stats_create;
    destruct PMIx_Disk_stats_destruct;
    free PMIx_Disk_stats_free;
});

lifecycle!(pmix_endpoint_t, Kind::Endpoint, zeroed_only, "endpoint", "endpoints",
           "all zero (no names, no bytes)" {
    construct PMIx_Endpoint_construct;
    create PMIx_Endpoint_create;
    destruct PMIx_Endpoint_destruct;
    free PMIx_Endpoint_free;
});

lifecycle!(pmix_envar_t, Kind::Envar, zeroed_only, "environment directive",
           "environment directives", "NULL name and value, separator NUL" {
    construct PMIx_Envar_construct;
    create PMIx_Envar_create;
    destruct PMIx_Envar_destruct;
    free PMIx_Envar_free;
});

lifecycle!(pmix_geometry_t, Kind::Geometry, zeroed_only, "geometry", "geometries",
           "all zero (no names, no coordinates)" {
    construct PMIx_Geometry_construct;
    create PMIx_Geometry_create;
    destruct PMIx_Geometry_destruct;
    free PMIx_Geometry_free;
});

lifecycle!(pmix_net_stats_t, Kind::NetStats, zeroed_only, "network statistics record",
           "network statistics records", "all zero (no interface name)" {
    construct PMIx_Net_stats_construct;
    create PMIx_Net_stats_create;
    destruct PMIx_Net_stats_destruct;
    free PMIx_Net_stats_free;
});

lifecycle!(pmix_node_stats_t, Kind::NodeStats, zeroed_only, "node statistics record",
           "node statistics records", "all zero (no name, no disk or net records)" {
    construct PMIx_Node_stats_construct;
    create PMIx_Node_stats_create;
    destruct PMIx_Node_stats_destruct;
    free PMIx_Node_stats_free;
});

lifecycle!(pmix_pdata_t, Kind::Pdata, zeroed_only, "lookup result", "lookup results",
           "all zero, its value PMIX_UNDEF" {
    construct PMIx_Pdata_construct;
    create PMIx_Pdata_create;
    destruct PMIx_Pdata_destruct;
    free PMIx_Pdata_free;
});

lifecycle!(pmix_proc_t, Kind::Proc, proc_defaults, "process name", "process names",
           "an empty namespace with rank PMIX_RANK_UNDEF" {
    construct PMIx_Proc_construct;
    create PMIx_Proc_create;
    destruct PMIx_Proc_destruct;
    free PMIx_Proc_free;
});

lifecycle!(pmix_proc_info_t, Kind::ProcInfo, zeroed_only, "process description",
           "process descriptions", "all zero, state PMIX_PROC_STATE_UNDEF" {
    construct PMIx_Proc_info_construct;
    create PMIx_Proc_info_create;
    destruct PMIx_Proc_info_destruct;
    free PMIx_Proc_info_free;
});

lifecycle!(pmix_proc_stats_t, Kind::ProcStats, zeroed_only, "process statistics record",
           "process statistics records", "all zero (no node or command)" {
    construct PMIx_Proc_stats_construct;
    create PMIx_Proc_stats_create;
    destruct PMIx_Proc_stats_destruct;
    free PMIx_Proc_stats_free;
});

lifecycle!(pmix_regattr_t, Kind::Regattr, zeroed_only, "attribute registration",
           "attribute registrations", "all zero, type PMIX_UNDEF" {
    construct PMIx_Regattr_construct;
    create PMIx_Regattr_create;
    destruct PMIx_Regattr_destruct;
    free PMIx_Regattr_free;
});

lifecycle!(pmix_value_t, Kind::Value, zeroed_only, "value", "values",
           "of type PMIX_UNDEF" {
    construct PMIx_Value_construct;
    create PMIx_Value_create;
    free PMIx_Value_free;
});

// Infos, apps and queries: construct and create are plain; their destruct
// and free (below) spare the value of a persistent info, as OpenPMIx does.

lifecycle!(pmix_info_t, Kind::Info, zeroed_only, "info", "infos",
           "an empty key, no directives, a PMIX_UNDEF value" {
    construct PMIx_Info_construct;
    create PMIx_Info_create;
});

lifecycle!(pmix_app_t, Kind::App, zeroed_only, "app", "apps",
           "all zero (no command, arguments or infos)" {
    construct PMIx_App_construct;
    create PMIx_App_create;
});

lifecycle!(pmix_query_t, Kind::Query, zeroed_only, "query", "queries",
           "all zero (no keys, no qualifiers)" {
    construct PMIx_Query_construct;
    create PMIx_Query_create;
});

/// Release the value an info owns (a persistent info owns none).
///
/// Returns nothing; the key and directives stay. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid info whose value's memory is NULL or libc's; what the value
/// owned is not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_destruct(p: *mut pmix_info_t) {
    entry!("PMIx_Info_destruct", {
        null_check!("PMIx_Info_destruct", p);
        info_destruct(p);
    })
}

/// Release `n` infos (the values of all but persistent ones) and their array.
///
/// Returns nothing. A NULL `p` is ignored; a count no memory could hold leaves the
/// array alone (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a libc array (as PMIx_Info_create makes) of `n` valid infos; neither
/// it nor what they owned is used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_free(p: *mut pmix_info_t, n: usize) {
    entry!("PMIx_Info_free", { free_with("PMIx_Info_free", Kind::Info, p, n, info_destruct) })
}

/// Release what an app owns (command, arguments, environment, directory, infos).
///
/// Returns nothing; afterwards `*p` is all zero. The values of persistent infos are
/// spared. A NULL `p` is ignored (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid app whose memory is NULL or libc's; what it owned is not used
/// after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_destruct(p: *mut pmix_app_t) {
    entry!("PMIx_App_destruct", {
        null_check!("PMIx_App_destruct", p);
        app_destruct(p);
    })
}

/// Release `n` apps and the array that holds them.
///
/// Returns nothing. A NULL `p` is ignored; a count no memory could hold leaves the
/// array alone (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a libc array (as PMIx_App_create makes) of `n` valid apps; neither it
/// nor what they owned is used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_free(p: *mut pmix_app_t, n: usize) {
    entry!("PMIx_App_free", { free_with("PMIx_App_free", Kind::App, p, n, app_destruct) })
}

/// Release one app made by PMIx_App_create(1): what it owns, then the app itself.
///
/// Returns nothing; a NULL `p` is ignored.
///
/// # Safety
/// `p` is NULL or a libc-allocated valid app; it is not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_release(p: *mut pmix_app_t) {
    entry!("PMIx_App_release", { free_with("PMIx_App_release", Kind::App, p, 1, app_destruct) })
}

/// Give an app a new array of `n` empty infos (`p->info`, `p->ninfo`).
///
/// Returns nothing; the old infos are overwritten, not freed. When `n` is 0 or the array
/// cannot be had, `p->info` is NULL and `p->ninfo` 0. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a writable app.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_info_create(p: *mut pmix_app_t, n: usize) {
    entry!("PMIx_App_info_create", {
        null_check!("PMIx_App_info_create", p);
        let info = create_array::<pmix_info_t>("PMIx_App_info_create", Kind::Info, n, zeroed_only);
        (*p).info = info;
        (*p).ninfo = if info.is_null() { 0 } else { n };
    })
}

/// Release what a query owns (its keys and qualifiers).
///
/// Returns nothing; afterwards `*p` is all zero. The values of persistent qualifiers are
/// spared. A NULL `p` is ignored (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a valid query whose memory is NULL or libc's; what it owned is not
/// used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_destruct(p: *mut pmix_query_t) {
    entry!("PMIx_Query_destruct", {
        null_check!("PMIx_Query_destruct", p);
        query_destruct(p);
    })
}

/// Release `n` queries and the array that holds them.
///
/// Returns nothing. A NULL `p` is ignored; a count no memory could hold leaves the
/// array alone (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a libc array (as PMIx_Query_create makes) of `n` valid queries;
/// neither it nor what they owned is used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_free(p: *mut pmix_query_t, n: usize) {
    entry!("PMIx_Query_free", { free_with("PMIx_Query_free", Kind::Query, p, n, query_destruct) })
}

/// Release one query made by PMIx_Query_create(1): what it owns, then the query itself.
///
/// Returns nothing; a NULL `p` is ignored.
///
/// # Safety
/// `p` is NULL or a libc-allocated valid query; it is not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_release(p: *mut pmix_query_t) {
    entry!("PMIx_Query_release", { free_with("PMIx_Query_release", Kind::Query, p, 1, query_destruct) })
}

/// Give a query a new array of `n` empty qualifiers (`p->qualifiers`, `p->nqual`).
///
/// Returns nothing; the old qualifiers are overwritten, not freed. When `n` is 0 or the
/// array cannot be had, `p->qualifiers` is NULL and `p->nqual` 0. A NULL `p` is ignored
/// (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a writable query.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_qualifiers_create(p: *mut pmix_query_t, n: usize) {
    entry!("PMIx_Query_qualifiers_create", {
        null_check!("PMIx_Query_qualifiers_create", p);
        let qual = create_array::<pmix_info_t>("PMIx_Query_qualifiers_create", Kind::Info, n, zeroed_only);
        (*p).qualifiers = qual;
        (*p).nqual = if qual.is_null() { 0 } else { n };
    })
}

/// Allocate `number` coordinates, each with `dims` zeroed values.
///
/// Returns one zeroed libc block (release it with PMIx_Coord_free), each coordinate
/// PMIX_COORD_VIEW_UNDEF with its own `dims` values (0 and NULL when `dims` is 0 or they
/// cannot be had); NULL when `number` is 0, too large for memory, or memory is short.
///
/// # Safety
/// No pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Coord_create(dims: usize, number: usize) -> *mut pmix_coord_t {
    entry!("PMIx_Coord_create", {
        let c = create_array::<pmix_coord_t>("PMIx_Coord_create", Kind::Coord, number, zeroed_only);
        if !c.is_null() {
            for i in 0..number {
                // Each its own values; one that cannot have them stays empty.
                if let Ok(v) = elem::alloc_array(Kind::Num(Num::U(4)), dims) {
                    (*c.add(i)).coord = v as *mut u32;
                    (*c.add(i)).dims = dims;
                }
            }
        }
        c
    })
}

/// Point a byte object at `sz` bytes at `d`, which it then owns (nothing is copied).
///
/// Returns nothing; the old bytes are overwritten, not freed. A NULL `b` is ignored
/// (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `b` is NULL or a writable byte object; `d` is NULL or libc memory of `sz` bytes that
/// the caller no longer frees itself.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Byte_object_load(b: *mut pmix_byte_object_t, d: *mut c_char, sz: usize) {
    entry!("PMIx_Byte_object_load", {
        null_check!("PMIx_Byte_object_load", b);
        (*b).bytes = d;
        (*b).size = sz;
    })
}

/// Fill an environment directive with copies of `var` and `value`, and `separator`.
///
/// Returns nothing; a NULL `var` or `value` leaves that field as it was, and old strings
/// are overwritten, not freed. A NULL `e` is ignored (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `e` is NULL or a writable directive; `var` and `value` are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Envar_load(e: *mut pmix_envar_t, var: *mut c_char, value: *mut c_char, separator: c_char) {
    entry!("PMIx_Envar_load", {
        null_check!("PMIx_Envar_load", e);
        let e = &mut *e;
        if !var.is_null() {
            e.envar = libc::strdup(var);
        }
        if !value.is_null() {
            e.value = libc::strdup(value);
        }
        e.separator = separator;
    })
}

/// Fill an attribute registration: a copy of `name`, the key `key`, `type_`, and a copy
/// of `description` appended to its description lines.
///
/// Returns nothing; a NULL `name` or `key` leaves that field as it was, a NULL
/// `description` adds no line, and an old name is overwritten, not freed. A key longer
/// than PMIX_MAX_KEYLEN is cut. A NULL `p` is ignored (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a writable registration whose description is NULL or a libc argv;
/// `name`, `key` and `description` are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_load(p: *mut pmix_regattr_t, name: *const c_char, key: *const c_char, type_: pmix_data_type_t, description: *const c_char) {
    entry!("PMIx_Regattr_load", {
        null_check!("PMIx_Regattr_load", p);
        let r = &mut *p;
        if !name.is_null() {
            r.name = libc::strdup(name);
        }
        if let Some(k) = cmem::bounded_cstr(key, PMIX_MAX_KEYLEN) {
            cmem::load_fixed(&mut r.string, k);
        }
        r.r#type = type_;
        if !description.is_null() {
            if let Err(e) = argv_append(&mut r.description, description) {
                crate::pmix_debug!(1, "PMIx_Regattr_load: description not added [{}]", crate::strings::error_name(e));
            }
        }
    })
}

/// Deep-copy an attribute registration: name, key, type and description lines.
///
/// Returns nothing; `dest` is treated as uninitialised (its old contents are not
/// freed). NULL `dest` or `src` is ignored (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or a valid registration (they may be the
/// same).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_xfer(dest: *mut pmix_regattr_t, src: *const pmix_regattr_t) {
    entry!("PMIx_Regattr_xfer", {
        null_check!("PMIx_Regattr_xfer", dest, src);
        let s = ptr::read(src);
        construct_in(dest, zeroed_only);
        let d = &mut *dest;
        d.name = cmem::strdup_opt(s.name);
        cmem::load_fixed(&mut d.string, key_bytes(&s.string));
        d.r#type = s.r#type;
        d.description = cmem::argv_dup(s.description);
    })
}

/// Make `*p` an empty data array of type `type_` (NULL storage, size 0).
///
/// Returns nothing; old storage is overwritten, not freed. A NULL `p` is ignored
/// (logged at PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a writable data array.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_init(p: *mut pmix_data_array_t, type_: pmix_data_type_t) {
    entry!("PMIx_Data_array_init", {
        null_check!("PMIx_Data_array_init", p);
        (*p).array = ptr::null_mut();
        (*p).r#type = type_;
        (*p).size = 0;
    })
}

/// Give `*d` storage for `n` empty elements of type `t` (as that type's `_create`);
/// its old contents are overwritten, not freed.
fn darray_construct(name: &str, d: &mut pmix_data_array_t, n: usize, t: pmix_data_type_t) {
    d.r#type = t;
    d.size = 0;
    d.array = ptr::null_mut();
    if n == 0 {
        return;
    }
    let Some(kind) = Kind::of(t) else {
        crate::pmix_debug!(1, "{name}: unknown type {t}, array left empty");
        return;
    };
    let a = match kind {
        Kind::Proc => create_array(name, kind, n, proc_defaults) as *mut c_void,
        Kind::DeviceDist => create_array(name, kind, n, devdist_defaults) as *mut c_void,
        _ => elem::alloc_array(kind, n).unwrap_or(ptr::null_mut()) as *mut c_void,
    };
    if a.is_null() {
        crate::pmix_debug!(1, "{name}: no storage for {n} elements, array left empty");
        return;
    }
    d.array = a;
    d.size = n;
}

/// Make `*p` a data array of `num` empty elements of type `type_`.
///
/// Returns nothing; each element is as its type's `_construct` leaves it (zeroed, with
/// its defaults). An unknown type, a `num` of 0, a count no memory could hold or a
/// shortage of memory leave the array empty (NULL storage, size 0) with the type set.
/// Old storage is overwritten, not freed. A NULL `p` is ignored (logged at
/// PMIX_DEBUG >= 1).
///
/// # Safety
/// `p` is NULL or a writable data array.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_construct(p: *mut pmix_data_array_t, num: usize, type_: pmix_data_type_t) {
    entry!("PMIx_Data_array_construct", {
        null_check!("PMIx_Data_array_construct", p);
        darray_construct("PMIx_Data_array_construct", &mut *p, num, type_);
    })
}

/// Allocate a data array of `n` empty elements of type `type_`.
///
/// Returns a libc-allocated array struct (release it with PMIx_Data_array_free), filled
/// as PMIx_Data_array_construct does (so empty for `n` 0); NULL when memory is short.
///
/// # Safety
/// No pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_create(n: usize, type_: pmix_data_type_t) -> *mut pmix_data_array_t {
    entry!("PMIx_Data_array_create", {
        let d = cmem::calloc_one::<pmix_data_array_t>();
        if !d.is_null() {
            darray_construct("PMIx_Data_array_create", &mut *d, n, type_);
        }
        d
    })
}

/// Release a data array: its elements, their storage and the array struct itself.
///
/// Returns nothing; a NULL `p` is ignored. Storage of impossible size is left alone
/// (logged at PMIX_DEBUG >= 1), the struct is freed.
///
/// # Safety
/// `p` is NULL or a libc-allocated valid data array whose storage is NULL or libc's; it
/// is not used after.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_free(p: *mut pmix_data_array_t) {
    entry!("PMIx_Data_array_free", {
        if p.is_null() {
            return;
        }
        elem::destruct_darray(&mut *p);
        cmem::free(p);
    })
}
