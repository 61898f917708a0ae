//! Attribute key strings kept by pmix_deprecated.h.
//!
//! One line per key: `NAME => "string"` (and the value type the Standard gives, where the
//! header names one). build.rs reads these lines to write the C `#define`s, and the
//! macro below turns them into Rust `&CStr` constants plus the list of names and
//! strings that the name/string lookups walk (keys_macro.rs).

crate::abi::keys_macro::attribute_keys! {
    DEPRECATED_KEYS;
    PMIX_EVENT_BASE => "pmix.evbase";  // struct event_base *
    PMIX_TOPOLOGY => "pmix.topo";  // hwloc_topology_t
    PMIX_DEBUG_JOB => "pmix.dbg.job";  // char*
    PMIX_RECONNECT_SERVER => "pmix.cnct.recon";  // bool
    PMIX_USOCK_DISABLE => "pmix.usock.disable";  // bool
    PMIX_SOCKET_MODE => "pmix.sockmode";  // uint32_t
    PMIX_SINGLE_LISTENER => "pmix.sing.listnr";  // bool
    PMIX_ALLOC_NETWORK => "pmix.alloc.net";  // pmix_data_array_t*
    PMIX_ALLOC_NETWORK_ID => "pmix.alloc.netid";  // char*
    PMIX_ALLOC_NETWORK_QOS => "pmix.alloc.netqos";  // char*
    PMIX_ALLOC_NETWORK_TYPE => "pmix.alloc.nettype";  // char*
    PMIX_ALLOC_NETWORK_PLANE => "pmix.alloc.netplane";  // char*
    PMIX_ALLOC_NETWORK_ENDPTS => "pmix.alloc.endpts";  // size_t
    PMIX_ALLOC_NETWORK_ENDPTS_NODE => "pmix.alloc.endpts.nd";  // size_t
    PMIX_ALLOC_NETWORK_SEC_KEY => "pmix.alloc.nsec";  // pmix_byte_object_t
    PMIX_PROC_DATA => "pmix.pdata";  // pmix_data_array_t*
    PMIX_LOCALITY => "pmix.loc";  // uint16_t
    PMIX_LOCAL_TOPO => "pmix.ltopo";  // char*
    PMIX_TOPOLOGY_XML => "pmix.topo.xml";  // char*
    PMIX_TOPOLOGY_FILE => "pmix.topo.file";  // char*
    PMIX_TOPOLOGY_SIGNATURE => "pmix.toposig";  // char*
    PMIX_HWLOC_SHMEM_ADDR => "pmix.hwlocaddr";  // size_t
    PMIX_HWLOC_SHMEM_SIZE => "pmix.hwlocsize";  // size_t
    PMIX_HWLOC_SHMEM_FILE => "pmix.hwlocfile";  // char*
    PMIX_HWLOC_XML_V1 => "pmix.hwlocxml1";  // char*
    PMIX_HWLOC_XML_V2 => "pmix.hwlocxml2";  // char*
    PMIX_HWLOC_SHARE_TOPO => "pmix.hwlocsh";  // bool
    PMIX_HWLOC_HOLE_KIND => "pmix.hwlocholek";  // char*
    PMIX_DSTPATH => "pmix.dstpath";  // char*
    PMIX_COLLECTIVE_ALGO => "pmix.calgo";  // char*
    PMIX_COLLECTIVE_ALGO_REQD => "pmix.calreqd";  // bool
    PMIX_PROC_BLOB => "pmix.pblob";  // pmix_byte_object_t
    PMIX_MAP_BLOB => "pmix.mblob";  // pmix_byte_object_t
    PMIX_MAPPER => "pmix.mapper";  // char*
    PMIX_NON_PMI => "pmix.nonpmi";  // bool
    PMIX_PROC_URI => "pmix.puri";  // char*
    PMIX_ARCH => "pmix.arch";  // uint32_t
    PMIX_DEBUG_JOB_DIRECTIVES => "pmix.dbg.jdirs";  // pmix_data_array_t*
    PMIX_DEBUG_APP_DIRECTIVES => "pmix.dbg.adirs";  // pmix_data_array_t*
    PMIX_EVENT_NO_TERMINATION => "pmix.evnoterm";  // bool
    PMIX_EVENT_WANT_TERMINATION => "pmix.evterm";  // bool
    PMIX_TAG_OUTPUT => "pmix.tagout";  // bool
    PMIX_TIMESTAMP_OUTPUT => "pmix.tsout";  // bool
    PMIX_MERGE_STDERR_STDOUT => "pmix.mergeerrout";  // bool
    PMIX_OUTPUT_TO_FILE => "pmix.outfile";  // char*
    PMIX_OUTPUT_TO_DIRECTORY => "pmix.outdir";  // char*
    PMIX_OUTPUT_NOCOPY => "pmix.nocopy";  // bool
    PMIX_GDS_MODULE => "pmix.gds.mod";  // char*
    PMIX_BFROPS_MODULE => "pmix.bfrops.mod";  // char*
    PMIX_PNET_SETUP_APP => "pmix.pnet.setapp";  // pmix_byte_object_t
    PMIX_IOF_STOP => "pmix.iof.stop";  // bool
    PMIX_NOTIFY_LAUNCH => "pmix.note.lnch";  // bool
}
