//! What each PMIx data type is in memory: the element size, how a
//! `pmix_value_t` holds it, and which family of operations applies.
//!
//! Every data operation (copy, destruct, compare, pack, print) starts from
//! `Kind::of(type)`, so an unknown or retired type id is rejected in one place
//! with `PMIX_ERR_UNKNOWN_DATA_TYPE`.

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

    #[test]
    fn retired_and_unknown_types_are_rejected() {
        for t in [PMIX_UNDEF, PMIX_BUFFER, PMIX_KVAL, 29, 44, 70, 500, 65535] {
            assert!(Kind::of(t).is_none(), "type {t}");
        }
    }
}
