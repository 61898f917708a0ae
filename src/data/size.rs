//! How many bytes a value takes, as OpenPMIx 5's PMIx_Value_get_size and
//! PMIx_Info_get_size count them: the struct, plus what it points to, for
//! every data type.

use core::ffi::c_char;
use core::mem::size_of;
use core::ptr;

use super::kind::Kind;
use crate::abi::*;
use crate::cmem;
use crate::status::Res;

/// A string's bytes with its NUL (a NULL string counts its NUL only).
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn str_size(s: *const c_char) -> usize {
    // SAFETY: the caller upholds the contract above.
    1 + if s.is_null() { 0 } else { unsafe { libc::strlen(s) } }
}

/// The strings of an argv, each with its NUL.
///
/// # Safety
/// `a` is NULL or a NULL-terminated array of NUL-terminated strings.
unsafe fn argv_size(a: *const *mut c_char) -> usize {
    // SAFETY: the caller upholds the contract above.
    unsafe { (0..cmem::argv_len(a)).fold(0usize, |n, i| n.saturating_add(str_size(*a.add(i)))) }
}

/// The inflated length a compressed byte object announces (its u32 header).
///
/// # Safety
/// `bo.bytes` is NULL or holds `bo.size` bytes.
unsafe fn inflated_len(bo: &pmix_byte_object_t) -> usize {
    if bo.bytes.is_null() || bo.size < 4 {
        return 0;
    }
    let mut h = [0u8; 4];
    // SAFETY: the caller upholds the contract above; at least 4 bytes.
    unsafe { ptr::copy_nonoverlapping(bo.bytes as *const u8, h.as_mut_ptr(), 4) };
    u32::from_le_bytes(h) as usize
}

/// What an info's key adds: its length and NUL (PMIX_MAX_KEYLEN when it fills the
/// buffer).
pub fn key_size(key: &pmix_key_t) -> usize {
    match cmem::bounded_len(&key[..PMIX_MAX_KEYLEN]) {
        PMIX_MAX_KEYLEN => PMIX_MAX_KEYLEN,
        n => n + 1,
    }
}

/// The bytes one element of type `t` takes in an array: its struct (a namespace counts
/// PMIX_MAX_NSLEN), plus what it points to. A NULL `p` is the bare struct.
///
/// # Safety
/// `p` is NULL or points to a valid element of `t`, whose arrays hold their counts.
unsafe fn elem_size(t: pmix_data_type_t, kind: Kind, p: *const u8, depth: u32) -> Res<usize> {
    if depth > super::elem::MAX_DEPTH {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let base = if kind == Kind::Nspace { PMIX_MAX_NSLEN } else { kind.size() };
    if p.is_null() {
        return Ok(base);
    }
    let d = depth + 1;
    // SAFETY: the caller upholds the contract above: `p` is an element of
    // `kind`, so the cast matches, and what it points to is valid.
    let extra = unsafe {
        match kind {
            Kind::Num(_) | Kind::Proc | Kind::Nspace => 0,
            Kind::String => str_size(*(p as *const *const c_char)),
            Kind::ByteObject => {
                let bo = &*(p as *const pmix_byte_object_t);
                match t {
                    PMIX_COMPRESSED_STRING => inflated_len(bo).saturating_add(1),
                    PMIX_COMPRESSED_BYTE_OBJECT => inflated_len(bo),
                    _ => bo.size,
                }
            }
            Kind::Value => value_size(&*(p as *const pmix_value_t), d)? - size_of::<pmix_value_t>(),
            Kind::Info => {
                let i = &*(p as *const pmix_info_t);
                value_size(&i.value, d)?.saturating_add(key_size(&i.key))
            }
            Kind::Pdata => {
                let pd = &*(p as *const pmix_pdata_t);
                (value_size(&pd.value, d)? - size_of::<pmix_value_t>()).saturating_add(key_size(&pd.key))
            }
            Kind::App => {
                let a = &*(p as *const pmix_app_t);
                let infos = array_size(PMIX_INFO, Kind::Info, a.info as *const u8, a.ninfo, d)?;
                [str_size(a.cmd), argv_size(a.argv), argv_size(a.env), str_size(a.cwd), infos]
                    .iter()
                    .fold(0usize, |n, x| n.saturating_add(*x))
            }
            Kind::Query => {
                let q = &*(p as *const pmix_query_t);
                let quals = array_size(PMIX_INFO, Kind::Info, q.qualifiers as *const u8, q.nqual, d)?;
                argv_size(q.keys).saturating_add(quals)
            }
            Kind::ProcInfo => {
                let i = &*(p as *const pmix_proc_info_t);
                str_size(i.hostname) + str_size(i.executable_name)
            }
            Kind::DataArray => darray_size(&*(p as *const pmix_data_array_t), d)?,
            Kind::Envar => {
                let e = &*(p as *const pmix_envar_t);
                str_size(e.envar) + str_size(e.value)
            }
            Kind::Coord => (*(p as *const pmix_coord_t)).dims.saturating_mul(size_of::<u32>()),
            Kind::Regattr => {
                let r = &*(p as *const pmix_regattr_t);
                str_size(r.name).saturating_add(argv_size(r.description))
            }
            Kind::Cpuset => super::cpuset::bitmap_bytes(&*(p as *const pmix_cpuset_t))?.len(),
            Kind::Topology => super::cpuset::topology_bytes(&*(p as *const pmix_topology_t))?.len(),
            Kind::Geometry => {
                let g = &*(p as *const pmix_geometry_t);
                let coords = array_size(PMIX_COORD, Kind::Coord, g.coordinates as *const u8, g.ncoords, d)?;
                (str_size(g.uuid) + str_size(g.osname)).saturating_add(coords)
            }
            Kind::DeviceDist => {
                let dd = &*(p as *const pmix_device_distance_t);
                str_size(dd.uuid) + str_size(dd.osname)
            }
            Kind::Endpoint => {
                let e = &*(p as *const pmix_endpoint_t);
                (str_size(e.uuid) + str_size(e.osname)).saturating_add(e.endpt.size)
            }
            Kind::ProcStats => {
                let s = &*(p as *const pmix_proc_stats_t);
                str_size(s.node) + str_size(s.cmd)
            }
            Kind::DiskStats => str_size((*(p as *const pmix_disk_stats_t)).disk),
            Kind::NetStats => str_size((*(p as *const pmix_net_stats_t)).net_interface),
            Kind::NodeStats => {
                let s = &*(p as *const pmix_node_stats_t);
                let disks = array_size(PMIX_DISK_STATS, Kind::DiskStats, s.diskstats as *const u8, s.ndiskstats, d)?;
                let nets = array_size(PMIX_NET_STATS, Kind::NetStats, s.netstats as *const u8, s.nnetstats, d)?;
                str_size(s.node).saturating_add(disks).saturating_add(nets)
            }
            Kind::DataBuffer => (*(p as *const pmix_data_buffer_t)).bytes_used,
        }
    };
    Ok(base.saturating_add(extra))
}

/// The bytes of `n` elements of type `t` at `p` (0 for none).
///
/// # Safety
/// `p` is NULL or points to `n` valid elements of `t`.
unsafe fn array_size(t: pmix_data_type_t, kind: Kind, p: *const u8, n: usize, depth: u32) -> Res<usize> {
    if p.is_null() || n == 0 {
        return Ok(0);
    }
    if !super::elem::sane_len(kind, n) {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    if let Kind::Num(_) = kind {
        return Ok(n * kind.size());
    }
    let mut total = 0usize;
    for i in 0..n {
        // SAFETY: the caller upholds the contract above; `i < n`.
        total = total.saturating_add(unsafe { elem_size(t, kind, p.add(i * kind.size()), depth)? });
    }
    Ok(total)
}

/// The bytes of a data array's elements (0 for an empty one).
///
/// # Safety
/// `d` is a valid data array.
unsafe fn darray_size(d: &pmix_data_array_t, depth: u32) -> Res<usize> {
    if d.size == 0 || d.array.is_null() {
        return Ok(0);
    }
    let kind = Kind::of(d.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
    // SAFETY: the caller upholds the contract above.
    unsafe { array_size(d.r#type, kind, d.array as *const u8, d.size, depth) }
}

/// A value's size as PMIx_Value_get_size reports it: the `pmix_value_t`, plus its
/// payload (a string's characters and NUL, a struct and what it points to).
///
/// # Safety
/// `v` is a valid value.
pub unsafe fn value_size(v: &pmix_value_t, depth: u32) -> Res<usize> {
    let t = v.r#type;
    let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
    // SAFETY: the caller upholds the contract above; the union is read as its type says.
    let payload = unsafe {
        if t == PMIX_STRING {
            str_size(v.data.string)
        } else {
            elem_size(t, kind, super::value::elem_ptr(v, kind), depth)?
        }
    };
    Ok(payload.saturating_add(size_of::<pmix_value_t>()))
}
