//! Human-readable text of PMIx data (PMIx_Data_print, PMIx_Value_string,
//! PMIx_Info_string, and OpenPMIx 5's PMIx_Proc_string and PMIx_App_string). For numbers and strings the layout is OpenPMIx's
//! (`<prefix>Data type: PMIX_INT\tValue: 42`), so logs read the same.

use core::ffi::c_char;
use std::fmt::Write as _;

use super::kind::{Kind, Num};
use super::value;
use crate::abi::*;
use crate::cmem;
use crate::strings;

fn type_name(t: pmix_data_type_t) -> String {
    strings::data_type_string(t).to_string_lossy().into_owned()
}

/// An owned copy of a C string (empty for NULL).
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
unsafe fn text(s: *const c_char) -> String {
    // SAFETY: the caller upholds the contract above: `s` is NULL or a NUL-terminated string.
    unsafe {
        match cmem::cstr_bytes(s) {
            Some(b) => String::from_utf8_lossy(b).into_owned(),
            None => "NULL".into(),
        }
    }
}

fn fixed(s: &[c_char]) -> String {
    let n = cmem::bounded_len(s);
    // SAFETY: c_char and u8 have the same layout.
    String::from_utf8_lossy(unsafe { core::slice::from_raw_parts(s.as_ptr() as *const u8, n) }).into_owned()
}

/// The text of one element (without the type prefix).
///
/// # Safety
/// `p` points to a valid element of type `t`.
pub unsafe fn element(t: pmix_data_type_t, p: *const u8) -> String {
    // SAFETY: the caller upholds the contract above: `p` points to a valid element of type `t`.
    unsafe {
        use core::ptr::read_unaligned as rd;
        let Some(kind) = Kind::of(t) else { return format!("<unknown data type {t}>") };
        let Some(_depth) = super::elem::DepthGuard::enter() else { return "<nested too deep>".into() };
        match (t, kind) {
            (PMIX_BOOL, _) => if rd(p) != 0 { "True".into() } else { "False".into() },
            (PMIX_STATUS, _) => strings::error_name(rd(p as *const i32)).to_string(),
            (PMIX_PROC_STATE, _) => strings::proc_state_string(rd(p)).to_string_lossy().into_owned(),
            (PMIX_JOB_STATE, _) => strings::job_state_string(rd(p)).to_string_lossy().into_owned(),
            (PMIX_SCOPE, _) => strings::scope_string(rd(p)).to_string_lossy().into_owned(),
            (PMIX_DATA_RANGE, _) => strings::data_range_string(rd(p)).to_string_lossy().into_owned(),
            (PMIX_PERSIST, _) => strings::persistence_string(rd(p)).to_string_lossy().into_owned(),
            (PMIX_DATA_TYPE, _) => type_name(rd(p as *const u16)),
            (PMIX_INFO_DIRECTIVES, _) => strings::info_directives_string(rd(p as *const u32)).to_string_lossy().into_owned(),
            (PMIX_PROC_RANK, _) => rank(rd(p as *const u32)),
            (_, Kind::Num(Num::U(1))) => rd(p).to_string(),
            (_, Kind::Num(Num::U(2))) => rd(p as *const u16).to_string(),
            (_, Kind::Num(Num::U(4))) => rd(p as *const u32).to_string(),
            (_, Kind::Num(Num::U(_))) => rd(p as *const u64).to_string(),
            (_, Kind::Num(Num::I(1))) => rd(p as *const i8).to_string(),
            (_, Kind::Num(Num::I(2))) => rd(p as *const i16).to_string(),
            (_, Kind::Num(Num::I(4))) => rd(p as *const i32).to_string(),
            (_, Kind::Num(Num::I(_))) => rd(p as *const i64).to_string(),
            (_, Kind::Num(Num::F32)) => format!("{}", rd(p as *const f32)),
            (_, Kind::Num(Num::F64)) => format!("{}", rd(p as *const f64)),
            (_, Kind::Num(Num::Timeval)) => {
                let tv = rd(p as *const libc::timeval);
                format!("{}.{:06}", tv.tv_sec, tv.tv_usec)
            }
            (_, Kind::Num(Num::Pointer)) => format!("{:#x}", rd(p as *const usize)),
            (_, Kind::String) => text(rd(p as *const *const c_char)),
            (_, Kind::Nspace) => fixed(&*(p as *const pmix_nspace_t)),
            (_, Kind::Proc) => proc(&*(p as *const pmix_proc_t)),
            (_, Kind::Value) => value_text(&*(p as *const pmix_value_t)),
            (_, Kind::Info) => info_text(&*(p as *const pmix_info_t)),
            (_, Kind::Pdata) => {
                let x = &*(p as *const pmix_pdata_t);
                format!("{} {}={}", proc(&x.proc), fixed(&x.key), value_text(&x.value))
            }
            (_, Kind::App) => {
                let x = &*(p as *const pmix_app_t);
                format!("cmd={} maxprocs={} ninfo={}", text(x.cmd), x.maxprocs, x.ninfo)
            }
            (_, Kind::Query) => {
                let x = &*(p as *const pmix_query_t);
                let mut keys = Vec::new();
                for i in 0..cmem::argv_len(x.keys) {
                    keys.push(text(*x.keys.add(i)));
                }
                format!("keys=[{}] nqual={}", keys.join(","), x.nqual)
            }
            (_, Kind::ByteObject) => format!("{} bytes", (*(p as *const pmix_byte_object_t)).size),
            (_, Kind::ProcInfo) => {
                let x = &*(p as *const pmix_proc_info_t);
                format!(
                    "{} host={} exe={} pid={} exit={} state={}",
                    proc(&x.proc),
                    text(x.hostname),
                    text(x.executable_name),
                    x.pid,
                    x.exit_code,
                    strings::proc_state_string(x.state).to_string_lossy()
                )
            }
            (_, Kind::DataArray) => {
                let x = &*(p as *const pmix_data_array_t);
                let mut s = format!("{} elements of {}", x.size, type_name(x.r#type));
                let walkable = Kind::of(x.r#type).filter(|k| super::elem::sane_len(*k, x.size));
                if let (Some(k), false) = (walkable, x.array.is_null()) {
                    for i in 0..x.size {
                        let _ = write!(s, "\n\t[{i}] {}", element(x.r#type, (x.array as *const u8).add(i * k.size())));
                    }
                }
                s
            }
            (_, Kind::Envar) => {
                let x = &*(p as *const pmix_envar_t);
                format!("{}={} sep={}", text(x.envar), text(x.value), x.separator as u8 as char)
            }
            (_, Kind::Coord) => {
                let x = &*(p as *const pmix_coord_t);
                let mut v = Vec::new();
                let dims = if x.coord.is_null() || !super::elem::sane_len(Kind::Num(Num::U(4)), x.dims) { 0 } else { x.dims };
                for i in 0..dims {
                    v.push((*x.coord.add(i)).to_string());
                }
                format!("view={} ({})", x.view, v.join(","))
            }
            (_, Kind::Regattr) => {
                let x = &*(p as *const pmix_regattr_t);
                format!("{} \"{}\" {}", text(x.name), fixed(&x.string), type_name(x.r#type))
            }
            (_, Kind::Cpuset) => {
                let x = &*(p as *const pmix_cpuset_t);
                let cpus = super::cpuset::bitmap_text(x).map(|b| String::from_utf8_lossy(b).into_owned());
                format!("{}:{}", text(x.source), cpus.unwrap_or_else(|| "<foreign>".into()))
            }
            (_, Kind::Topology) => super::cpuset::topology_summary(&*(p as *const pmix_topology_t)),
            (_, Kind::Geometry) => {
                let x = &*(p as *const pmix_geometry_t);
                format!("fabric={} uuid={} osname={} ncoords={}", x.fabric, text(x.uuid), text(x.osname), x.ncoords)
            }
            (_, Kind::DeviceDist) => {
                let x = &*(p as *const pmix_device_distance_t);
                format!(
                    "uuid={} osname={} type={} min={} max={}",
                    text(x.uuid),
                    text(x.osname),
                    strings::device_type_string(x.r#type).to_string_lossy(),
                    x.mindist,
                    x.maxdist
                )
            }
            (_, Kind::Endpoint) => {
                let x = &*(p as *const pmix_endpoint_t);
                format!("uuid={} osname={} {} bytes", text(x.uuid), text(x.osname), x.endpt.size)
            }
            (_, Kind::ProcStats) => {
                let x = &*(p as *const pmix_proc_stats_t);
                format!("node={} {} pid={} cmd={} rss={}", text(x.node), proc(&x.proc), x.pid, text(x.cmd), x.rss)
            }
            (_, Kind::DiskStats) => format!("disk={}", text((*(p as *const pmix_disk_stats_t)).disk)),
            (_, Kind::NetStats) => format!("interface={}", text((*(p as *const pmix_net_stats_t)).net_interface)),
            (_, Kind::NodeStats) => {
                let x = &*(p as *const pmix_node_stats_t);
                format!("node={} la={} disks={} nets={}", text(x.node), x.la, x.ndiskstats, x.nnetstats)
            }
            (_, Kind::DataBuffer) => {
                let x = &*(p as *const pmix_data_buffer_t);
                format!("{} bytes", x.bytes_used)
            }
        }
    }
}

fn rank(r: pmix_rank_t) -> String {
    match r {
        PMIX_RANK_UNDEF => "UNDEF".into(),
        PMIX_RANK_WILDCARD => "WILDCARD".into(),
        PMIX_RANK_LOCAL_NODE => "LOCAL_NODE".into(),
        PMIX_RANK_LOCAL_PEERS => "LOCAL_PEERS".into(),
        PMIX_RANK_INVALID => "INVALID".into(),
        r => r.to_string(),
    }
}

fn proc(p: &pmix_proc_t) -> String {
    format!("{}:{}", fixed(&p.nspace), rank(p.rank))
}

/// `PMIx_Data_print` text.
///
/// # Safety
/// `p` points to a valid element of type `t` (for PMIX_STRING, at the `char *`).
pub unsafe fn data(prefix: &str, t: pmix_data_type_t, p: *const u8) -> String {
    // SAFETY: the caller upholds the contract above: `p` points to a valid element of type `t` (for PMIX_STRING, at the `char *`).
    unsafe {
        // (OpenPMIx prints a topology without a prefix after one space)
        let prefix = if t == PMIX_TOPO && prefix.is_empty() { " " } else { prefix };
        format!("{prefix}Data type: {}\tValue: {}", type_name(t), element(t, p))
    }
}

/// # Safety
/// `v` is a valid value.
pub unsafe fn value_text(v: &pmix_value_t) -> String {
    // SAFETY: the caller upholds the contract above: `v` is a valid value.
    unsafe {
        match Kind::of(v.r#type) {
            None => format!("Data type: {}\tValue: <none>", type_name(v.r#type)),
            Some(k) => {
                let p = value::elem_ptr(v, k);
                if p.is_null() {
                    format!("Data type: {}\tValue: NULL", type_name(v.r#type))
                } else {
                    data("", v.r#type, p)
                }
            }
        }
    }
}

/// # Safety
/// `i` is a valid info.
pub unsafe fn info_text(i: &pmix_info_t) -> String {
    // SAFETY: the caller upholds the contract above: `i` is a valid info.
    unsafe {
        format!(
            "Key: {}\tFlags: {}\t{}",
            fixed(&i.key),
            strings::info_directives_string(i.flags).to_string_lossy(),
            value_text(&i.value)
        )
    }
}

/// PMIx_Proc_string's text: "[nspace,rank]", the special ranks by name;
/// "[NO-NAME]" for no process.
pub fn proc_string(p: Option<&pmix_proc_t>) -> Vec<u8> {
    let Some(p) = p else { return b"[NO-NAME]".to_vec() };
    let n = cmem::bounded_len(&p.nspace);
    // SAFETY: `n` bytes of the namespace array; c_char and u8 have one layout.
    let ns = unsafe { core::slice::from_raw_parts(p.nspace.as_ptr() as *const u8, n) };
    [b"[".as_slice(), ns, b",", rank(p.rank).as_bytes(), b"]"].concat()
}

/// The bytes of a C string, or "(null)" for NULL (as glibc's printf prints it).
///
/// # Safety
/// `s` is NULL or NUL-terminated, and outlives the slice.
unsafe fn text_or_null<'a>(s: *const c_char) -> &'a [u8] {
    // SAFETY: the caller upholds the contract above.
    unsafe { cmem::cstr_bytes(s) }.unwrap_or(b"(null)")
}

/// PMIx_App_string's text: the app's fields, one per line (joined with '\n').
///
/// # Safety
/// `app.cmd` and `app.cwd` are each NULL or NUL-terminated, `app.argv` and `app.env`
/// each NULL or a NULL-terminated array of strings, `app.info` NULL or `app.ninfo`
/// valid infos.
pub unsafe fn app_string(app: &pmix_app_t) -> Vec<u8> {
    // SAFETY: the caller upholds the contract above: every pointer of `app` is NULL or
    // valid as described there.
    unsafe {
        let mut lines: Vec<Vec<u8>> = vec![[b"CMD: ".as_slice(), text_or_null(app.cmd)].concat()];
        for (title, list) in [("ARGV", app.argv), ("ENV", app.env)] {
            lines.push(format!("    {title}:").into_bytes());
            if list.is_null() {
                lines.push(b"        NONE".to_vec());
            }
            for i in 0..cmem::argv_len(list) {
                let head = format!("        {title}[{i}]: ");
                lines.push([head.as_bytes(), text_or_null(*list.add(i))].concat());
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
            let infos = if app.ninfo == 0 { &[] } else { core::slice::from_raw_parts(app.info, app.ninfo) };
            for (i, info) in infos.iter().enumerate() {
                let body = info_text(info);
                lines.push(format!("        INFO[{i}]: {body}").into_bytes());
            }
        }
        lines.join(&b'\n')
    }
}
