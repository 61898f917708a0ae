//! What each PMIx data type is in memory: the element size, how a
//! `pmix_value_t` holds it, which family of operations applies, and for
//! the compound types (C structs of strings, numbers, arrays, values) their
//! fields in order (`Kind::fields`).
//!
//! Every data operation (copy, destruct, compare, size, both codecs, print)
//! starts from `Kind::of(type)`, so an unknown or retired type id is rejected
//! in one place with `PMIX_ERR_UNKNOWN_DATA_TYPE`, and matches on
//! `Kind::shape`. The compound types have no code of their own in those
//! operations: each walks the type's fields, so adding or fixing one is an
//! edit of its list here. The rest (numbers, strings, byte objects, values,
//! data arrays, CPU sets, topologies, data buffers) each operation handles
//! itself; print alone has a text of its own for every type.

use core::mem::size_of;

use crate::abi::*;

/// Fixed-size plain data: copied bit for bit, compared numerically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    U(u8),  // unsigned integer of n bytes
    I(u8),  // signed integer of n bytes
    F32,
    F64,
    Timeval,
    Pointer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Num(Num),
    /// `char *` (NUL-terminated or NULL).
    String,
    /// `pmix_nspace_t` (fixed 256-byte array) as an element; a pointer in a value.
    Nspace,
    Proc,
    Value,
    Info,
    Pdata,
    App,
    Query,
    /// `pmix_byte_object_t` (byte objects, compressed strings, regex blobs).
    ByteObject,
    ProcInfo,
    DataArray,
    Envar,
    Coord,
    Regattr,
    Cpuset,
    Geometry,
    DeviceDist,
    Endpoint,
    Topology,
    ProcStats,
    DiskStats,
    NetStats,
    NodeStats,
    DataBuffer,
}

impl Kind {
    /// The kind of a data type id, or None for ids the library does not carry
    /// (unknown ids, PMIX_UNDEF, the retired PMIX_BUFFER/KVAL/MODEX/INFO_ARRAY).
    pub fn of(t: pmix_data_type_t) -> Option<Kind> {
        use Num::*;
        let k = match t {
            PMIX_BOOL => Kind::Num(U(1)),
            PMIX_BYTE => Kind::Num(U(1)),
            PMIX_STRING => Kind::String,
            PMIX_SIZE => Kind::Num(U(8)),
            PMIX_PID => Kind::Num(I(4)),
            PMIX_INT => Kind::Num(I(4)),
            PMIX_INT8 => Kind::Num(I(1)),
            PMIX_INT16 => Kind::Num(I(2)),
            PMIX_INT32 => Kind::Num(I(4)),
            PMIX_INT64 => Kind::Num(I(8)),
            PMIX_UINT => Kind::Num(U(4)),
            PMIX_UINT8 => Kind::Num(U(1)),
            PMIX_UINT16 => Kind::Num(U(2)),
            PMIX_UINT32 => Kind::Num(U(4)),
            PMIX_UINT64 => Kind::Num(U(8)),
            PMIX_FLOAT => Kind::Num(F32),
            PMIX_DOUBLE => Kind::Num(F64),
            PMIX_TIMEVAL => Kind::Num(Timeval),
            PMIX_TIME => Kind::Num(I(8)),
            PMIX_STATUS => Kind::Num(I(4)),
            PMIX_VALUE => Kind::Value,
            PMIX_PROC => Kind::Proc,
            PMIX_APP => Kind::App,
            PMIX_INFO => Kind::Info,
            PMIX_PDATA => Kind::Pdata,
            PMIX_BYTE_OBJECT => Kind::ByteObject,
            PMIX_PERSIST => Kind::Num(U(1)),
            PMIX_POINTER => Kind::Num(Pointer),
            PMIX_SCOPE => Kind::Num(U(1)),
            PMIX_DATA_RANGE => Kind::Num(U(1)),
            PMIX_COMMAND => Kind::Num(U(1)),
            PMIX_INFO_DIRECTIVES => Kind::Num(U(4)),
            PMIX_DATA_TYPE => Kind::Num(U(2)),
            PMIX_PROC_STATE => Kind::Num(U(1)),
            PMIX_PROC_INFO => Kind::ProcInfo,
            PMIX_DATA_ARRAY => Kind::DataArray,
            PMIX_PROC_RANK => Kind::Num(U(4)),
            PMIX_QUERY => Kind::Query,
            PMIX_COMPRESSED_STRING => Kind::ByteObject,
            PMIX_ALLOC_DIRECTIVE => Kind::Num(U(1)),
            PMIX_IOF_CHANNEL => Kind::Num(U(2)),
            PMIX_ENVAR => Kind::Envar,
            PMIX_COORD => Kind::Coord,
            PMIX_REGATTR => Kind::Regattr,
            PMIX_REGEX => Kind::ByteObject,
            PMIX_JOB_STATE => Kind::Num(U(1)),
            PMIX_LINK_STATE => Kind::Num(U(1)),
            PMIX_PROC_CPUSET => Kind::Cpuset,
            PMIX_GEOMETRY => Kind::Geometry,
            PMIX_DEVICE_DIST => Kind::DeviceDist,
            PMIX_ENDPOINT => Kind::Endpoint,
            PMIX_TOPO => Kind::Topology,
            PMIX_DEVTYPE => Kind::Num(U(8)),
            PMIX_LOCTYPE => Kind::Num(U(2)),
            PMIX_COMPRESSED_BYTE_OBJECT => Kind::ByteObject,
            PMIX_PROC_NSPACE => Kind::Nspace,
            PMIX_PROC_STATS => Kind::ProcStats,
            PMIX_DISK_STATS => Kind::DiskStats,
            PMIX_NET_STATS => Kind::NetStats,
            PMIX_NODE_STATS => Kind::NodeStats,
            PMIX_DATA_BUFFER => Kind::DataBuffer,
            PMIX_STOR_MEDIUM => Kind::Num(U(8)),
            PMIX_STOR_ACCESS => Kind::Num(U(8)),
            PMIX_STOR_PERSIST => Kind::Num(U(8)),
            PMIX_STOR_ACCESS_TYPE => Kind::Num(U(2)),
            _ => return None,
        };
        Some(k)
    }

    /// Size of one element in a C array of this type.
    pub fn size(self) -> usize {
        match self {
            Kind::Num(Num::U(n)) | Kind::Num(Num::I(n)) => n as usize,
            Kind::Num(Num::F32) => 4,
            Kind::Num(Num::F64) => 8,
            Kind::Num(Num::Timeval) => size_of::<libc::timeval>(),
            Kind::Num(Num::Pointer) => size_of::<*mut u8>(),
            Kind::String => size_of::<*mut u8>(),
            Kind::Nspace => size_of::<pmix_nspace_t>(),
            Kind::Proc => size_of::<pmix_proc_t>(),
            Kind::Value => size_of::<pmix_value_t>(),
            Kind::Info => size_of::<pmix_info_t>(),
            Kind::Pdata => size_of::<pmix_pdata_t>(),
            Kind::App => size_of::<pmix_app_t>(),
            Kind::Query => size_of::<pmix_query_t>(),
            Kind::ByteObject => size_of::<pmix_byte_object_t>(),
            Kind::ProcInfo => size_of::<pmix_proc_info_t>(),
            Kind::DataArray => size_of::<pmix_data_array_t>(),
            Kind::Envar => size_of::<pmix_envar_t>(),
            Kind::Coord => size_of::<pmix_coord_t>(),
            Kind::Regattr => size_of::<pmix_regattr_t>(),
            Kind::Cpuset => size_of::<pmix_cpuset_t>(),
            Kind::Geometry => size_of::<pmix_geometry_t>(),
            Kind::DeviceDist => size_of::<pmix_device_distance_t>(),
            Kind::Endpoint => size_of::<pmix_endpoint_t>(),
            Kind::Topology => size_of::<pmix_topology_t>(),
            Kind::ProcStats => size_of::<pmix_proc_stats_t>(),
            Kind::DiskStats => size_of::<pmix_disk_stats_t>(),
            Kind::NetStats => size_of::<pmix_net_stats_t>(),
            Kind::NodeStats => size_of::<pmix_node_stats_t>(),
            Kind::DataBuffer => size_of::<pmix_data_buffer_t>(),
        }
    }

    /// True when a `pmix_value_t` holds the element inside its union (scalars,
    /// `char *`, byte objects, envars); false when the union holds a pointer to
    /// a separately allocated element (procs, arrays, structs).
    pub fn inline_in_value(self) -> bool {
        matches!(self, Kind::Num(_) | Kind::String | Kind::ByteObject | Kind::Envar)
    }
}

/// One field of a compound type, as every walk sees it: where it sits and
/// what it is. The walks (copy and destruct in `elem.rs`, `compare.rs`,
/// `size.rs`, both codecs) go through a type's fields in this order, which
/// is also the order both wire formats write them in.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub at: usize,
    pub f: F,
    /// False for the fields OpenPMIx's v41 format does not carry (rpmix's
    /// own format carries every field).
    pub v41: bool,
}

/// What a field is. Plain fields are copied with the struct; the others own
/// memory (or, for `Proc`, are a nested element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F {
    /// `u8` / `c_char`: one byte in both formats.
    U8,
    /// `u16`: v41 writes it unsigned.
    U16,
    /// `u16` that v41 writes as a signed 16-bit integer.
    S16,
    U32,
    I32,
    /// `pid_t`: v41 writes it with its integer type in front.
    Pid,
    /// `u64` or `size_t`.
    U64,
    /// `f32`: raw bits in rpmix's format, `"%f"` text in v41.
    F32,
    Timeval,
    /// `pmix_key_t`; `sized`: PMIx_Value_get_size counts its text.
    Key { sized: bool },
    /// `pmix_nspace_t`.
    Nspace,
    /// `char *`.
    Str,
    /// NULL-terminated `char **`.
    Argv,
    /// `pmix_byte_object_t`.
    Bytes,
    /// `pmix_value_t`.
    Value,
    /// `pmix_proc_t` (a nested element).
    Proc,
    /// A pointer to `count`-many elements of type `t`; `count` is the offset
    /// of its `size_t` count.
    Array { t: pmix_data_type_t, count: usize },
}

impl F {
    /// True when the field is a plain copy of the struct's bytes.
    pub fn plain(self) -> bool {
        matches!(self, F::U8 | F::U16 | F::S16 | F::U32 | F::I32 | F::Pid | F::U64 | F::F32 | F::Timeval | F::Key { .. } | F::Nspace | F::Proc)
    }
}

const fn both(at: usize, f: F) -> Field {
    Field { at, f, v41: true }
}

const fn rpmix_only(at: usize, f: F) -> Field {
    Field { at, f, v41: false }
}

macro_rules! fields {
    ($t:ty { $($field:ident: $how:ident($f:expr)),* $(,)? }) => {
        &[$($how(core::mem::offset_of!($t, $field), $f)),*]
    };
}

macro_rules! array_of {
    ($t:ty, $elem:expr, $count:ident) => {
        F::Array { t: $elem, count: core::mem::offset_of!($t, $count) }
    };
}

/// The compound types and their fields, in wire order.
static PROC: &[Field] = fields!(pmix_proc_t { nspace: both(F::Nspace), rank: both(F::U32) });
static INFO: &[Field] = fields!(pmix_info_t { key: both(F::Key { sized: true }), flags: both(F::U32), value: both(F::Value) });
static PDATA: &[Field] = fields!(pmix_pdata_t { proc: both(F::Proc), key: both(F::Key { sized: true }), value: both(F::Value) });
static APP: &[Field] = fields!(pmix_app_t {
    cmd: both(F::Str),
    argv: both(F::Argv),
    env: both(F::Argv),
    cwd: both(F::Str),
    maxprocs: both(F::I32),
    info: both(array_of!(pmix_app_t, PMIX_INFO, ninfo)),
});
static QUERY: &[Field] = fields!(pmix_query_t { keys: both(F::Argv), qualifiers: both(array_of!(pmix_query_t, PMIX_INFO, nqual)) });
static PROC_INFO: &[Field] = fields!(pmix_proc_info_t {
    proc: both(F::Proc),
    hostname: both(F::Str),
    executable_name: both(F::Str),
    pid: both(F::Pid),
    exit_code: rpmix_only(F::I32),
    state: both(F::U8),
});
static ENVAR: &[Field] = fields!(pmix_envar_t { envar: both(F::Str), value: both(F::Str), separator: both(F::U8) });
static COORD: &[Field] = fields!(pmix_coord_t { view: both(F::U8), coord: both(array_of!(pmix_coord_t, PMIX_UINT32, dims)) });
static REGATTR: &[Field] = fields!(pmix_regattr_t {
    name: both(F::Str),
    string: both(F::Key { sized: false }),
    r#type: both(F::U16),
    description: both(F::Argv),
});
static GEOMETRY: &[Field] = fields!(pmix_geometry_t {
    fabric: both(F::U64),
    uuid: both(F::Str),
    osname: both(F::Str),
    coordinates: both(array_of!(pmix_geometry_t, PMIX_COORD, ncoords)),
});
static DEVICE_DIST: &[Field] = fields!(pmix_device_distance_t {
    uuid: both(F::Str),
    osname: both(F::Str),
    r#type: both(F::U64),
    mindist: both(F::U16),
    maxdist: both(F::U16),
});
static ENDPOINT: &[Field] = fields!(pmix_endpoint_t { uuid: both(F::Str), osname: both(F::Str), endpt: both(F::Bytes) });
static PROC_STATS: &[Field] = fields!(pmix_proc_stats_t {
    node: both(F::Str),
    proc: both(F::Proc),
    pid: both(F::Pid),
    cmd: both(F::Str),
    state: both(F::U8),
    time: both(F::Timeval),
    percent_cpu: rpmix_only(F::F32),
    priority: both(F::I32),
    num_threads: both(F::S16),
    pss: both(F::F32),
    vsize: both(F::F32),
    rss: both(F::F32),
    peak_vsize: rpmix_only(F::F32),
    processor: both(F::S16),
    sample_time: both(F::Timeval),
});
static DISK_STATS: &[Field] = fields!(pmix_disk_stats_t {
    disk: both(F::Str),
    num_reads_completed: both(F::U64),
    num_reads_merged: both(F::U64),
    num_sectors_read: both(F::U64),
    milliseconds_reading: both(F::U64),
    num_writes_completed: both(F::U64),
    num_writes_merged: both(F::U64),
    num_sectors_written: both(F::U64),
    milliseconds_writing: both(F::U64),
    num_ios_in_progress: both(F::U64),
    milliseconds_io: both(F::U64),
    weighted_milliseconds_io: both(F::U64),
});
static NET_STATS: &[Field] = fields!(pmix_net_stats_t {
    net_interface: both(F::Str),
    num_bytes_recvd: both(F::U64),
    num_packets_recvd: both(F::U64),
    num_recv_errs: both(F::U64),
    num_bytes_sent: both(F::U64),
    num_packets_sent: both(F::U64),
    num_send_errs: both(F::U64),
});
static NODE_STATS: &[Field] = fields!(pmix_node_stats_t {
    node: both(F::Str),
    la: both(F::F32),
    la5: both(F::F32),
    la15: both(F::F32),
    total_mem: both(F::F32),
    free_mem: both(F::F32),
    buffers: both(F::F32),
    cached: both(F::F32),
    swap_cached: both(F::F32),
    swap_total: both(F::F32),
    swap_free: both(F::F32),
    mapped: both(F::F32),
    sample_time: both(F::Timeval),
    diskstats: both(array_of!(pmix_node_stats_t, PMIX_DISK_STATS, ndiskstats)),
    netstats: both(array_of!(pmix_node_stats_t, PMIX_NET_STATS, nnetstats)),
});

/// How the operations see a type: a compound one as its fields, the others
/// each as itself. Every walk matches on this (no catch-all arm), so a new
/// type is described here once, and the compiler asks for it nowhere else
/// unless it needs code of its own.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    Fields(&'static [Field]),
    Num(Num),
    String,
    Nspace,
    Value,
    ByteObject,
    DataArray,
    Cpuset,
    Topology,
    DataBuffer,
}

impl Kind {
    /// The shape of the type: the compound types' field lists, the others'
    /// own representation.
    #[inline]
    pub fn shape(self) -> Shape {
        match self {
            Kind::Proc => Shape::Fields(PROC),
            Kind::Info => Shape::Fields(INFO),
            Kind::Pdata => Shape::Fields(PDATA),
            Kind::App => Shape::Fields(APP),
            Kind::Query => Shape::Fields(QUERY),
            Kind::ProcInfo => Shape::Fields(PROC_INFO),
            Kind::Envar => Shape::Fields(ENVAR),
            Kind::Coord => Shape::Fields(COORD),
            Kind::Regattr => Shape::Fields(REGATTR),
            Kind::Geometry => Shape::Fields(GEOMETRY),
            Kind::DeviceDist => Shape::Fields(DEVICE_DIST),
            Kind::Endpoint => Shape::Fields(ENDPOINT),
            Kind::ProcStats => Shape::Fields(PROC_STATS),
            Kind::DiskStats => Shape::Fields(DISK_STATS),
            Kind::NetStats => Shape::Fields(NET_STATS),
            Kind::NodeStats => Shape::Fields(NODE_STATS),
            Kind::Num(n) => Shape::Num(n),
            Kind::String => Shape::String,
            Kind::Nspace => Shape::Nspace,
            Kind::Value => Shape::Value,
            Kind::ByteObject => Shape::ByteObject,
            Kind::DataArray => Shape::DataArray,
            Kind::Cpuset => Shape::Cpuset,
            Kind::Topology => Shape::Topology,
            Kind::DataBuffer => Shape::DataBuffer,
        }
    }

    /// The fields of a compound type; None for the others.
    #[inline]
    pub fn fields(self) -> Option<&'static [Field]> {
        match self.shape() {
            Shape::Fields(f) => Some(f),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_kinds_fit_the_value_union() {
        for t in 0..600u16 {
            if let Some(k) = Kind::of(t) {
                if k.inline_in_value() {
                    assert!(k.size() <= size_of::<pmix_value_data>(), "type {t}");
                }
            }
        }
    }

    /// The bytes a field takes in its struct.
    fn width(f: F) -> usize {
        match f {
            F::U8 => 1,
            F::U16 | F::S16 => 2,
            F::U32 | F::I32 | F::Pid | F::F32 => 4,
            F::U64 | F::Str | F::Argv | F::Array { .. } => 8,
            F::Timeval => size_of::<libc::timeval>(),
            F::Key { .. } => size_of::<pmix_key_t>(),
            F::Nspace => size_of::<pmix_nspace_t>(),
            F::Bytes => size_of::<pmix_byte_object_t>(),
            F::Value => size_of::<pmix_value_t>(),
            F::Proc => size_of::<pmix_proc_t>(),
        }
    }

    #[test]
    fn fields_lie_in_order_inside_their_struct() {
        for t in 0..600u16 {
            let Some(k) = Kind::of(t) else { continue };
            let Some(fields) = k.fields() else { continue };
            // every field and array count, in struct order, without overlap
            let mut spans: Vec<(usize, usize)> = fields.iter().map(|f| (f.at, width(f.f))).collect();
            spans.extend(fields.iter().filter_map(|f| match f.f {
                F::Array { count, .. } => Some((count, size_of::<usize>())),
                _ => None,
            }));
            spans.sort();
            assert!(fields.windows(2).all(|w| w[0].at < w[1].at), "type {t}: fields out of order");
            // between fields and at the end, no more than padding (a pointer
            // or a u64 left out would leave 8 bytes)
            spans.push((k.size(), 0));
            assert_eq!(spans[0].0, 0, "type {t}: a first field missing");
            for w in spans.windows(2) {
                let end = w[0].0 + w[0].1;
                assert!(end <= w[1].0, "type {t}: fields overlap or one runs past the end");
                assert!(w[1].0 - end < 8, "type {t}: a field missing at {end}");
            }
        }
    }

    #[test]
    fn retired_and_unknown_types_are_rejected() {
        for t in [PMIX_UNDEF, PMIX_BUFFER, PMIX_KVAL, 29, 44, 70, 500, 65535] {
            assert!(Kind::of(t).is_none(), "type {t}");
        }
    }
}
