//! OpenPMIx's "v41" serialisation, byte for byte: what `PMIx_Data_pack`
//! writes in OpenPMIx 4.2 (and 5.0), so that a buffer packed by either
//! library unpacks in the other. The format is measured and described in
//! docs/openpmix-v41-format.md; in short:
//!
//! - integers are varints of at most 9 bytes (`vu`: 7 bits a byte, the 9th
//!   byte carrying 8 raw bits); signed ones zigzag-mapped first (`vs`);
//! - 8-bit types (bool, byte, the byte-sized enums) are raw bytes;
//! - strings are `vs(length including the NUL)` and the bytes with their
//!   NUL; a NULL string is `vs(0)`; floats travel as `"%f"` text;
//! - each pack call is `vs(count)` and the elements; the "fully described"
//!   form adds the type of the count (INT32) before it and the element type
//!   after it. Values, infos and arrays always carry their type.
//!
//! Where OpenPMIx 4.2.2's own codec is defective, this one writes what its
//! reader expects and reads what its writer writes (the README lists each
//! case): PROC_STATS (4.2.2 reads a field it never writes), NODE_STATS with
//! disk or network entries, a value holding a DATA_BUFFER, non-empty
//! PROC_CPUSETs, and REGEX strings of other forms than `pmix`/`raw:`.
//!
//! The decoder never trusts a count: arrays grow with the elements that
//! really decode, strings are bounded by the bytes that remain, and nesting
//! is limited to `elem::MAX_DEPTH`.

use core::ffi::{c_char, c_void};
use core::ptr;

use super::elem::{self, MAX_DEPTH};
use super::kind::Kind;
use super::value;
use crate::abi::*;
use crate::cmem;
use crate::status::Res;

const SHORT: pmix_status_t = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
const BAD: pmix_status_t = PMIX_ERR_UNPACK_FAILURE;
/// hwloc 2.x's topology support flags, sent raw after a topology's XML
/// (discovery, cpubind, membind: one byte per flag).
const TOPO_SUPPORT_BYTES: usize = 6 + 11 + 15;

/// Is the fully described form asked for? Read once, at the first pack or
/// unpack (OpenPMIx reads the same variables once, at init).
pub fn described_from_env() -> bool {
    static DESCRIBED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DESCRIBED.get_or_init(|| {
        std::env::var("PMIX_BFROP_BUFFER_TYPE").is_ok_and(|v| v == "PMIX_BFROP_BUFFER_FULLY_DESC")
            || std::env::var("PMIX_MCA_bfrops_base_default_type").is_ok_and(|v| v == "2")
    })
}

// ---------------------------------------------------------------- encoding

#[derive(Default)]
pub struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    /// Unsigned varint: 7 bits a byte for 8 bytes, then 8 raw bits.
    fn vu(&mut self, mut v: u64) {
        let mut b = [0u8; 9];
        let mut i = 0;
        while i < 8 && v >= 0x80 {
            b[i] = (v as u8) | 0x80;
            v >>= 7;
            i += 1;
        }
        b[i] = v as u8; // (after 8 groups: the last 8 bits, raw)
        self.out.extend_from_slice(&b[..=i]);
    }

    /// Signed varint (zigzag).
    fn vs(&mut self, v: i64) {
        self.vu(((v << 1) ^ (v >> 63)) as u64);
    }

    fn string(&mut self, s: Option<&[u8]>) -> Res {
        match s {
            None => self.vs(0),
            Some(b) => {
                let n = i32::try_from(b.len() + 1).map_err(|_| PMIX_ERR_BAD_PARAM)?;
                self.vs(n as i64);
                self.raw(b);
                self.byte(0);
            }
        }
        Ok(())
    }

    /// # Safety
    /// `s` is NULL or NUL-terminated.
    unsafe fn cstr(&mut self, s: *const c_char) -> Res {
        // SAFETY: the caller's contract.
        self.string(unsafe { cmem::cstr_bytes(s) })
    }

    fn fixed(&mut self, s: &[c_char]) -> Res {
        let n = cmem::bounded_len(s);
        // SAFETY: c_char and u8 have the same layout; n is within s.
        self.string(Some(unsafe { core::slice::from_raw_parts(s.as_ptr() as *const u8, n) }))
    }

    fn float_text(&mut self, v: f64) -> Res {
        let mut buf = [0u8; 512];
        // SAFETY: snprintf writes at most buf.len() bytes, NUL included.
        let n = unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), c"%f".as_ptr(), v) };
        let n = usize::try_from(n).map_err(|_| PMIX_ERR_BAD_PARAM)?.min(buf.len() - 1);
        self.string(Some(&buf[..n]))
    }

    fn timeval(&mut self, t: &libc::timeval) {
        self.vs(t.tv_sec);
        self.vs(t.tv_usec);
    }

    fn pid(&mut self, pid: i32) {
        self.vu(PMIX_UINT32 as u64);
        self.vu(pid as u32 as u64);
    }

    /// # Safety
    /// `a` is NULL or a NULL-terminated array of strings.
    unsafe fn argv_counted(&mut self, a: *const *mut c_char) -> Res {
        // SAFETY: the caller's contract.
        unsafe {
            let n = if a.is_null() { 0 } else { cmem::argv_len(a) };
            self.vs(i32::try_from(n).map_err(|_| PMIX_ERR_BAD_PARAM)? as i64);
            for i in 0..n {
                self.cstr(*a.add(i))?;
            }
            Ok(())
        }
    }

    /// A pack call's header: the count (and, described, the types around it).
    pub fn call_header(&mut self, t: pmix_data_type_t, n: usize, described: bool) -> Res {
        let count = i32::try_from(n).map_err(|_| PMIX_ERR_BAD_PARAM)?;
        if described {
            self.vu(PMIX_INT32 as u64);
        }
        self.vs(count as i64);
        if described {
            self.vu(t as u64);
        }
        Ok(())
    }

    /// One pack call of a single key and value (OpenPMIx's internal "kval":
    /// how its clients and servers send a key's data).
    pub fn one_kval(&mut self, key: &str, v: &pmix_value_t, described: bool) -> Res {
        self.call_header(PMIX_KVAL, 1, described)?;
        self.string(Some(key.as_bytes()))?;
        // SAFETY: a valid value (the caller's reference).
        unsafe { self.value(v, 0) }
    }

    /// One pack call of a single OpenPMIx internal buffer (PMIX_BUFFER):
    /// its buffer-type byte, its size and its bytes, as a commit carries
    /// a scope's data.
    pub fn one_buffer(&mut self, buffer_type: u8, bytes: &[u8], described: bool) -> Res {
        self.call_header(PMIX_BUFFER, 1, described)?;
        self.byte(buffer_type);
        self.vu(bytes.len() as u64);
        self.raw(bytes);
        Ok(())
    }

    /// One pack call: the count, then `n` elements of type `t` from a C array.
    ///
    /// # Safety
    /// `src` points to `n` valid elements of type `t` (for PMIX_STRING, `char *`s).
    pub unsafe fn items(&mut self, t: pmix_data_type_t, src: *const u8, n: usize, described: bool) -> Res {
        // SAFETY: the caller's contract.
        unsafe {
            self.call_header(t, n, described)?;
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            if t == PMIX_POINTER {
                // (OpenPMIx writes one placeholder byte for the whole call)
                self.byte(1);
                return Ok(());
            }
            if n > 0 && self.numbers(t, src, n) {
                return Ok(());
            }
            for i in 0..n {
                self.elem(t, src.add(i * kind.size()), 0)?;
            }
            Ok(())
        }
    }

    /// Arrays of plain integers without the per-element dispatch (the
    /// common bulk case); false for other types.
    ///
    /// # Safety
    /// `src` points to `n` elements of type `t`.
    unsafe fn numbers(&mut self, t: pmix_data_type_t, src: *const u8, n: usize) -> bool {
        // SAFETY: the caller's contract: `n` elements of `t`'s C type.
        unsafe {
            match t {
                PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => {
                    self.out.reserve(n * 9);
                    for &v in core::slice::from_raw_parts(src as *const u64, n) {
                        self.vu(v);
                    }
                }
                PMIX_UINT32 | PMIX_INFO_DIRECTIVES | PMIX_PROC_RANK => {
                    self.out.reserve(n * 5);
                    for &v in core::slice::from_raw_parts(src as *const u32, n) {
                        self.vu(v as u64);
                    }
                }
                PMIX_INT | PMIX_INT32 | PMIX_STATUS | PMIX_UINT => {
                    self.out.reserve(n * 5);
                    for &v in core::slice::from_raw_parts(src as *const i32, n) {
                        self.vs(v as i64);
                    }
                }
                PMIX_INT64 => {
                    self.out.reserve(n * 9);
                    for &v in core::slice::from_raw_parts(src as *const i64, n) {
                        self.vs(v);
                    }
                }
                PMIX_BYTE | PMIX_INT8 | PMIX_UINT8 => self.raw(core::slice::from_raw_parts(src, n)),
                _ => return false,
            }
            true
        }
    }

    /// # Safety
    /// `p` points to `n` valid elements of type `t`.
    unsafe fn array(&mut self, t: pmix_data_type_t, p: *const u8, n: usize, depth: u32) -> Res {
        // SAFETY: the caller's contract.
        unsafe {
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            if n > 0 && (p.is_null() || !elem::sane_len(kind, n)) {
                return Err(PMIX_ERR_BAD_PARAM);
            }
            for i in 0..n {
                self.elem(t, p.add(i * kind.size()), depth + 1)?;
            }
            Ok(())
        }
    }

    /// A value's type and payload.
    ///
    /// # Safety
    /// `v` is a valid value.
    unsafe fn value(&mut self, v: &pmix_value_t, depth: u32) -> Res {
        // SAFETY: the caller's contract.
        unsafe {
            self.vu(v.r#type as u64);
            if v.r#type == PMIX_UNDEF {
                return Ok(());
            }
            // (OpenPMIx answers PMIX_ERROR here: the type is the trouble)
            let kind = Kind::of(v.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            if v.r#type == PMIX_POINTER {
                self.byte(1);
                return Ok(());
            }
            let p = value::elem_ptr(v, kind);
            if p.is_null() {
                return Err(PMIX_ERR_BAD_PARAM);
            }
            self.elem(v.r#type, p, depth + 1)
        }
    }

    /// One element of type `t`.
    ///
    /// # Safety
    /// `p` points to a valid element of type `t`.
    pub unsafe fn elem(&mut self, t: pmix_data_type_t, p: *const u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each arm reads the C type of `t`.
        unsafe {
            if depth > MAX_DEPTH {
                return Err(PMIX_ERR_BAD_PARAM);
            }
            match t {
                PMIX_BOOL => self.byte((*(p as *const bool)) as u8),
                PMIX_BYTE | PMIX_INT8 | PMIX_UINT8 | PMIX_PERSIST | PMIX_SCOPE | PMIX_DATA_RANGE | PMIX_COMMAND
                | PMIX_PROC_STATE | PMIX_ALLOC_DIRECTIVE | PMIX_JOB_STATE | PMIX_LINK_STATE => self.byte(*p),
                PMIX_SIZE => self.vu(*(p as *const usize) as u64),
                PMIX_PID => self.pid(*(p as *const i32)),
                PMIX_INT | PMIX_INT32 | PMIX_STATUS | PMIX_UINT => self.vs(*(p as *const i32) as i64),
                PMIX_INT16 => self.vs(*(p as *const i16) as i64),
                PMIX_INT64 => self.vs(*(p as *const i64)),
                PMIX_UINT16 | PMIX_DATA_TYPE | PMIX_IOF_CHANNEL | PMIX_LOCTYPE | PMIX_STOR_ACCESS_TYPE => {
                    self.vu(*(p as *const u16) as u64)
                }
                PMIX_UINT32 | PMIX_INFO_DIRECTIVES | PMIX_PROC_RANK => self.vu(*(p as *const u32) as u64),
                PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => {
                    self.vu(*(p as *const u64))
                }
                PMIX_TIME => self.vu(*(p as *const libc::time_t) as u64),
                PMIX_FLOAT => self.float_text(*(p as *const f32) as f64)?,
                PMIX_DOUBLE => self.float_text(*(p as *const f64))?,
                PMIX_TIMEVAL => self.timeval(&*(p as *const libc::timeval)),
                PMIX_POINTER => self.byte(1),
                PMIX_STRING => self.cstr(*(p as *const *const c_char))?,
                PMIX_PROC_NSPACE => self.fixed(&*(p as *const pmix_nspace_t))?,
                PMIX_PROC => {
                    let x = &*(p as *const pmix_proc_t);
                    self.fixed(&x.nspace)?;
                    self.vu(x.rank as u64);
                }
                PMIX_VALUE => self.value(&*(p as *const pmix_value_t), depth)?,
                PMIX_INFO => {
                    let x = &*(p as *const pmix_info_t);
                    self.fixed(&x.key)?;
                    self.vu(x.flags as u64);
                    self.value(&x.value, depth)?;
                }
                PMIX_PDATA => {
                    let x = &*(p as *const pmix_pdata_t);
                    self.elem(PMIX_PROC, &x.proc as *const _ as *const u8, depth)?;
                    self.fixed(&x.key)?;
                    self.value(&x.value, depth)?;
                }
                PMIX_APP => {
                    let x = &*(p as *const pmix_app_t);
                    self.cstr(x.cmd)?;
                    self.argv_counted(x.argv)?;
                    self.argv_counted(x.env)?;
                    self.cstr(x.cwd)?;
                    self.vs(x.maxprocs as i64);
                    let n = if x.info.is_null() { 0 } else { x.ninfo };
                    self.vu(n as u64);
                    self.array(PMIX_INFO, x.info as *const u8, n, depth)?;
                }
                PMIX_QUERY => {
                    let x = &*(p as *const pmix_query_t);
                    self.argv_counted(x.keys)?;
                    let n = if x.qualifiers.is_null() { 0 } else { x.nqual };
                    self.vu(n as u64);
                    self.array(PMIX_INFO, x.qualifiers as *const u8, n, depth)?;
                }
                PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT => {
                    let b = value::bo_slice(&*(p as *const pmix_byte_object_t))?;
                    self.vu(b.len() as u64);
                    self.raw(b);
                }
                PMIX_REGEX => {
                    let b = value::bo_slice(&*(p as *const pmix_byte_object_t))?;
                    let text = b.split(|&c| c == 0).next().unwrap_or(&[]);
                    if text.starts_with(b"pmix") || text.starts_with(b"raw:") {
                        // OpenPMIx's own regex forms: the text and its NUL, no length
                        self.raw(text);
                        self.byte(0);
                    } else {
                        // any other form as a nested pack of one string
                        self.vs(1);
                        self.string(Some(text))?;
                    }
                }
                PMIX_PROC_INFO => {
                    let x = &*(p as *const pmix_proc_info_t);
                    self.elem(PMIX_PROC, &x.proc as *const _ as *const u8, depth)?;
                    self.cstr(x.hostname)?;
                    self.cstr(x.executable_name)?;
                    self.pid(x.pid);
                    self.byte(x.state);
                }
                PMIX_DATA_ARRAY => {
                    let x = &*(p as *const pmix_data_array_t);
                    self.vu(x.r#type as u64);
                    let n = if x.array.is_null() { 0 } else { x.size };
                    self.vu(n as u64);
                    if x.r#type != PMIX_UNDEF && n > 0 {
                        if x.r#type == PMIX_POINTER {
                            self.byte(1);
                        } else {
                            self.array(x.r#type, x.array as *const u8, n, depth)?;
                        }
                    }
                }
                PMIX_ENVAR => {
                    let x = &*(p as *const pmix_envar_t);
                    self.cstr(x.envar)?;
                    self.cstr(x.value)?;
                    self.byte(x.separator as u8);
                }
                PMIX_COORD => {
                    let x = &*(p as *const pmix_coord_t);
                    self.byte(x.view);
                    let n = if x.coord.is_null() { 0 } else { x.dims };
                    self.vu(n as u64);
                    self.array(PMIX_UINT32, x.coord as *const u8, n, depth)?;
                }
                PMIX_REGATTR => {
                    let x = &*(p as *const pmix_regattr_t);
                    self.cstr(x.name)?;
                    self.fixed(&x.string)?;
                    self.vu(x.r#type as u64);
                    self.argv_counted(x.description)?;
                }
                PMIX_PROC_CPUSET => {
                    let x = &*(p as *const pmix_cpuset_t);
                    if !cmem::cstr_bytes(x.source).is_some_and(crate::hwlib::names_hwloc) {
                        return Err(PMIX_ERR_NOT_SUPPORTED);
                    }
                    if x.bitmap.is_null() {
                        self.string(None)?;
                    } else {
                        let cpus = super::cpuset::bitmap_text(x).ok_or(PMIX_ERR_NOT_SUPPORTED)?;
                        self.string(Some(cpus))?;
                    }
                }
                PMIX_TOPO => {
                    let x = &*(p as *const pmix_topology_t);
                    if x.topology.is_null() {
                        self.string(None)?;
                    } else {
                        let (xml, support) = super::cpuset::topology_xml_and_support(x, TOPO_SUPPORT_BYTES)?;
                        self.string(Some(&xml))?;
                        self.raw(&support);
                    }
                }
                PMIX_GEOMETRY => {
                    let x = &*(p as *const pmix_geometry_t);
                    self.vu(x.fabric as u64);
                    self.cstr(x.uuid)?;
                    self.cstr(x.osname)?;
                    let n = if x.coordinates.is_null() { 0 } else { x.ncoords };
                    self.vu(n as u64);
                    self.array(PMIX_COORD, x.coordinates as *const u8, n, depth)?;
                }
                PMIX_DEVICE_DIST => {
                    let x = &*(p as *const pmix_device_distance_t);
                    self.cstr(x.uuid)?;
                    self.cstr(x.osname)?;
                    self.vu(x.r#type);
                    self.vu(x.mindist as u64);
                    self.vu(x.maxdist as u64);
                }
                PMIX_ENDPOINT => {
                    let x = &*(p as *const pmix_endpoint_t);
                    self.cstr(x.uuid)?;
                    self.cstr(x.osname)?;
                    let b = value::bo_slice(&x.endpt)?;
                    self.vu(b.len() as u64);
                    self.raw(b);
                }
                PMIX_PROC_STATS => {
                    let x = &*(p as *const pmix_proc_stats_t);
                    self.cstr(x.node)?;
                    self.elem(PMIX_PROC, &x.proc as *const _ as *const u8, depth)?;
                    self.pid(x.pid);
                    self.cstr(x.cmd)?;
                    self.byte(x.state as u8);
                    self.timeval(&x.time);
                    self.vs(x.priority as i64);
                    self.vs(x.num_threads as i16 as i64);
                    for f in [x.pss, x.vsize, x.rss] {
                        self.float_text(f as f64)?;
                    }
                    self.vs(x.processor as i16 as i64);
                    self.timeval(&x.sample_time);
                }
                PMIX_DISK_STATS => {
                    let x = &*(p as *const pmix_disk_stats_t);
                    self.cstr(x.disk)?;
                    for v in super::pack::disk_counters!(x) {
                        self.vu(v);
                    }
                }
                PMIX_NET_STATS => {
                    let x = &*(p as *const pmix_net_stats_t);
                    self.cstr(x.net_interface)?;
                    for v in super::pack::net_counters!(x) {
                        self.vu(v);
                    }
                }
                PMIX_NODE_STATS => {
                    let x = &*(p as *const pmix_node_stats_t);
                    self.cstr(x.node)?;
                    for f in super::pack::node_floats!(x) {
                        self.float_text(f as f64)?;
                    }
                    self.timeval(&x.sample_time);
                    let n = if x.diskstats.is_null() { 0 } else { x.ndiskstats };
                    self.vu(n as u64);
                    self.array(PMIX_DISK_STATS, x.diskstats as *const u8, n, depth)?;
                    let n = if x.netstats.is_null() { 0 } else { x.nnetstats };
                    self.vu(n as u64);
                    self.array(PMIX_NET_STATS, x.netstats as *const u8, n, depth)?;
                }
                PMIX_DATA_BUFFER => {
                    let x = &*(p as *const pmix_data_buffer_t);
                    super::buffer::check(x)?;
                    let all: &[u8] =
                        if x.base_ptr.is_null() { &[] } else { core::slice::from_raw_parts(x.base_ptr as *const u8, x.bytes_used) };
                    self.vu(all.len() as u64);
                    self.raw(all);
                }
                _ => return Err(PMIX_ERR_UNKNOWN_DATA_TYPE),
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------- decoding

pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Decoder { data, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        if n > self.remaining() {
            return Err(SHORT);
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn byte(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }

    fn vu(&mut self) -> Res<u64> {
        let mut v = 0u64;
        let rest = &self.data[self.pos..];
        if rest.len() >= 9 {
            // (the bounds checked once for the longest form)
            for (i, &b) in rest[..8].iter().enumerate() {
                v |= ((b & 0x7f) as u64) << (7 * i);
                if b & 0x80 == 0 {
                    self.pos += i + 1;
                    return Ok(v);
                }
            }
            self.pos += 9;
            return Ok(v | ((rest[8] as u64) << 56));
        }
        for i in 0..8 {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Ok(v | ((self.byte()? as u64) << 56))
    }

    /// An unsigned varint that must fit `bits`.
    fn vu_bits(&mut self, bits: u32) -> Res<u64> {
        let v = self.vu()?;
        if bits < 64 && v >> bits != 0 {
            return Err(BAD);
        }
        Ok(v)
    }

    fn vs(&mut self) -> Res<i64> {
        let u = self.vu()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    /// A signed varint that must fit `bits`.
    fn vs_bits(&mut self, bits: u32) -> Res<i64> {
        let v = self.vs()?;
        let (lo, hi) = if bits >= 64 { (i64::MIN, i64::MAX) } else { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) };
        if v < lo || v > hi {
            return Err(BAD);
        }
        Ok(v)
    }

    /// A count of things each at least one byte long: never more than remains.
    fn count(&mut self, n: u64) -> Res<usize> {
        if n > self.remaining() as u64 {
            return Err(SHORT);
        }
        Ok(n as usize)
    }

    /// A string's bytes (without its NUL); None for a NULL string.
    fn str_bytes(&mut self) -> Res<Option<&'a [u8]>> {
        let n = self.vs_bits(32)?;
        if n < 0 {
            return Err(BAD);
        }
        if n == 0 {
            return Ok(None);
        }
        let b = self.take(n as usize)?;
        let (last, text) = b.split_last().ok_or(BAD)?;
        if *last != 0 || text.contains(&0) {
            return Err(BAD);
        }
        Ok(Some(text))
    }

    fn cstr(&mut self) -> Res<*mut c_char> {
        elem::dup_text(self.str_bytes()?)
    }

    fn fixed(&mut self, dst: &mut [c_char]) -> Res {
        let b = self.str_bytes()?.unwrap_or(&[]);
        if b.len() >= dst.len() {
            return Err(BAD);
        }
        cmem::load_fixed(dst, b);
        Ok(())
    }

    fn float_text(&mut self) -> Res<Option<f64>> {
        match self.str_bytes()? {
            None => Ok(None),
            Some(b) => {
                let s = std::ffi::CString::new(b).map_err(|_| BAD)?;
                // SAFETY: `s` is NUL-terminated; strtod reads it only.
                Ok(Some(unsafe { libc::strtod(s.as_ptr(), ptr::null_mut()) }))
            }
        }
    }

    fn timeval(&mut self) -> Res<libc::timeval> {
        Ok(libc::timeval { tv_sec: self.vs()?, tv_usec: self.vs()? })
    }

    /// A pid: its integer type's tag, then the integer.
    fn pid(&mut self) -> Res<i32> {
        let t = self.vu_bits(16)? as pmix_data_type_t;
        let v: i64 = match t {
            PMIX_INT8 => self.byte()? as i8 as i64,
            PMIX_UINT8 => self.byte()? as i64,
            PMIX_INT16 => self.vs_bits(16)?,
            PMIX_INT32 | PMIX_INT => self.vs_bits(32)?,
            PMIX_INT64 => self.vs()?,
            PMIX_UINT16 => self.vu_bits(16)? as i64,
            PMIX_UINT32 | PMIX_UINT64 => self.vu()? as i64,
            _ => return Err(BAD),
        };
        Ok(v as i32)
    }

    /// A counted string array as a NULL-terminated argv (NULL when empty);
    /// the caller owns it.
    fn argv_counted(&mut self) -> Res<*mut *mut c_char> {
        let n = self.vs_bits(32)?;
        if n < 0 {
            return Err(BAD);
        }
        if n == 0 {
            return Ok(ptr::null_mut());
        }
        let n = self.count(n as u64)?;
        elem::decode_argv(n, BAD, || self.cstr())
    }

    /// `n` elements of type `t` into a new allocation: (pointer, n).
    ///
    /// # Safety
    /// None: the result is a new allocation the caller owns.
    unsafe fn elems(&mut self, t: pmix_data_type_t, n: u64, depth: u32) -> Res<(*mut u8, usize)> {
        let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
        let n = self.count(n)?;
        // SAFETY: `elem` decodes one element into the zeroed slot it is given.
        unsafe { elem::decode_array(kind, n, |p| self.elem(t, p, depth + 1)) }
    }

    /// `n` plain integers of type `t` into `dst` without the per-element
    /// dispatch; None for other types.
    ///
    /// # Safety
    /// `dst` has room for `n` elements of type `t`.
    pub unsafe fn numbers(&mut self, t: pmix_data_type_t, dst: *mut u8, n: usize) -> Option<Res> {
        if !plain_int(t) {
            return None;
        }
        // SAFETY: the caller's contract.
        Some(unsafe { self.numbers_into(t, dst, n) })
    }

    /// # Safety
    /// As `numbers`; `t` is a plain integer type.
    unsafe fn numbers_into(&mut self, t: pmix_data_type_t, dst: *mut u8, n: usize) -> Res {
        // SAFETY: the caller's contract: room for `n` elements of `t`'s C type.
        unsafe {
            match t {
                PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => {
                    for i in 0..n {
                        *(dst as *mut u64).add(i) = self.vu()?;
                    }
                }
                PMIX_UINT32 | PMIX_INFO_DIRECTIVES | PMIX_PROC_RANK => {
                    for i in 0..n {
                        *(dst as *mut u32).add(i) = self.vu_bits(32)? as u32;
                    }
                }
                PMIX_INT | PMIX_INT32 | PMIX_STATUS | PMIX_UINT => {
                    for i in 0..n {
                        *(dst as *mut i32).add(i) = self.vs_bits(32)? as i32;
                    }
                }
                PMIX_INT64 => {
                    for i in 0..n {
                        *(dst as *mut i64).add(i) = self.vs()?;
                    }
                }
                _ => {
                    let b = self.take(n)?;
                    ptr::copy_nonoverlapping(b.as_ptr(), dst, n);
                }
            }
            Ok(())
        }
    }

    /// True when every byte has been read.
    pub fn at_end(&self) -> bool {
        self.remaining() == 0
    }

    /// One pack call holding a single string (None: a NULL string).
    pub fn one_string(&mut self) -> Res<Option<String>> {
        if self.vs_bits(32)? != 1 {
            return Err(BAD);
        }
        Ok(self.str_bytes()?.map(|b| String::from_utf8_lossy(b).into_owned()))
    }

    /// One pack call holding a single rank.
    pub fn one_rank(&mut self) -> Res<pmix_rank_t> {
        if self.vs_bits(32)? != 1 {
            return Err(BAD);
        }
        Ok(self.vu_bits(32)? as pmix_rank_t)
    }

    /// One pack call holding a single key and value (OpenPMIx's "kval", as
    /// its servers send data to clients): the key and the value, which the
    /// caller owns.
    pub fn one_kval(&mut self) -> Res<(String, pmix_value_t)> {
        if self.vs_bits(32)? != 1 {
            return Err(BAD);
        }
        let key = String::from_utf8_lossy(self.str_bytes()?.ok_or(BAD)?).into_owned();
        // SAFETY: a zeroed value filled by the decoder (nothing to free on error).
        let v = unsafe {
            let mut v: pmix_value_t = core::mem::zeroed();
            self.value(&mut v, 0)?;
            v
        };
        Ok((key, v))
    }

    /// The elements of one kval pack call whose header was read: (key, value
    /// the caller owns).
    pub fn kval(&mut self) -> Res<(String, pmix_value_t)> {
        let key = String::from_utf8_lossy(self.str_bytes()?.ok_or(BAD)?).into_owned();
        // SAFETY: a zeroed value filled by the decoder (nothing to free on error).
        let v = unsafe {
            let mut v: pmix_value_t = core::mem::zeroed();
            self.value(&mut v, 0)?;
            v
        };
        Ok((key, v))
    }

    /// One element of an OpenPMIx internal buffer (PMIX_BUFFER) whose
    /// header was read: (its buffer-type byte, its bytes).
    pub fn buffer(&mut self) -> Res<(u8, &'a [u8])> {
        let t = self.byte()?;
        let n = self.vu()?;
        let n = self.count(n)?;
        Ok((t, self.take(n)?))
    }

    /// The bytes not yet read.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// One pack call's count (and, described, its declared type).
    pub fn header(&mut self, described: bool, want: pmix_data_type_t) -> Res<usize> {
        if described && self.vu_bits(16)? != PMIX_INT32 as u64 {
            return Err(BAD);
        }
        let n = self.vs_bits(32)?;
        if described {
            let t = self.vu_bits(16)? as pmix_data_type_t;
            if t != want {
                crate::pmix_debug!(5, "PMIx_Data_unpack: buffer holds type {t}, asked for {want}");
                return Err(PMIX_ERR_PACK_MISMATCH);
            }
        }
        usize::try_from(n).map_err(|_| BAD)
    }

    /// A value's type and payload into a zeroed value.
    ///
    /// # Safety
    /// `v` is zeroed.
    unsafe fn value(&mut self, v: &mut pmix_value_t, depth: u32) -> Res {
        // SAFETY: the caller's contract; a boxed payload is freed on error.
        unsafe {
            let t = self.vu_bits(16)? as pmix_data_type_t;
            if t == PMIX_UNDEF {
                return Ok(());
            }
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            if kind.inline_in_value() {
                self.elem(t, &mut v.data as *mut pmix_value_data as *mut u8, depth + 1)?;
            } else {
                let p = elem::alloc_array(kind, 1)?;
                if let Err(e) = self.elem(t, p, depth + 1) {
                    cmem::free(p);
                    return Err(e);
                }
                v.data.ptr = p as *mut c_void;
            }
            v.r#type = t;
            Ok(())
        }
    }

    /// Decode one element of type `t` into `dst`; on error `dst` holds nothing.
    ///
    /// # Safety
    /// `dst` is writable for one element of `t` and holds no live element.
    pub unsafe fn elem(&mut self, t: pmix_data_type_t, dst: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller's contract.
        unsafe {
            if depth > MAX_DEPTH {
                return Err(BAD);
            }
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            ptr::write_bytes(dst, 0, kind.size());
            let r = self.elem_inner(t, dst, depth);
            if r.is_err() {
                elem::destruct(kind, dst);
            }
            r
        }
    }

    /// # Safety
    /// `p` is zeroed storage for one element of `t`.
    unsafe fn elem_inner(&mut self, t: pmix_data_type_t, p: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each arm writes the C type of `t`.
        unsafe {
            match t {
                PMIX_BOOL => *(p as *mut bool) = self.byte()? != 0,
                PMIX_BYTE | PMIX_INT8 | PMIX_UINT8 | PMIX_PERSIST | PMIX_SCOPE | PMIX_DATA_RANGE | PMIX_COMMAND
                | PMIX_PROC_STATE | PMIX_ALLOC_DIRECTIVE | PMIX_JOB_STATE | PMIX_LINK_STATE => *p = self.byte()?,
                PMIX_SIZE => *(p as *mut usize) = self.vu()? as usize,
                PMIX_PID => *(p as *mut i32) = self.pid()?,
                PMIX_INT | PMIX_INT32 | PMIX_STATUS | PMIX_UINT => *(p as *mut i32) = self.vs_bits(32)? as i32,
                PMIX_INT16 => *(p as *mut i16) = self.vs_bits(16)? as i16,
                PMIX_INT64 => *(p as *mut i64) = self.vs()?,
                PMIX_UINT16 | PMIX_DATA_TYPE | PMIX_IOF_CHANNEL | PMIX_LOCTYPE | PMIX_STOR_ACCESS_TYPE => {
                    *(p as *mut u16) = self.vu_bits(16)? as u16
                }
                PMIX_UINT32 | PMIX_INFO_DIRECTIVES | PMIX_PROC_RANK => *(p as *mut u32) = self.vu_bits(32)? as u32,
                PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => {
                    *(p as *mut u64) = self.vu()?
                }
                PMIX_TIME => *(p as *mut libc::time_t) = self.vu()? as libc::time_t,
                PMIX_FLOAT => *(p as *mut f32) = self.float_text()?.unwrap_or(0.0) as f32,
                PMIX_DOUBLE => *(p as *mut f64) = self.float_text()?.unwrap_or(0.0),
                PMIX_TIMEVAL => *(p as *mut libc::timeval) = self.timeval()?,
                PMIX_POINTER => {
                    self.byte()?; // a placeholder: no pointer crosses processes
                }
                PMIX_STRING => *(p as *mut *mut c_char) = self.cstr()?,
                PMIX_PROC_NSPACE => self.fixed(&mut *(p as *mut pmix_nspace_t))?,
                PMIX_PROC => {
                    let x = &mut *(p as *mut pmix_proc_t);
                    self.fixed(&mut x.nspace)?;
                    x.rank = self.vu_bits(32)? as u32;
                }
                PMIX_VALUE => self.value(&mut *(p as *mut pmix_value_t), depth)?,
                PMIX_INFO => {
                    let x = &mut *(p as *mut pmix_info_t);
                    self.fixed(&mut x.key)?;
                    x.flags = self.vu_bits(32)? as u32;
                    self.value(&mut x.value, depth)?;
                }
                PMIX_PDATA => {
                    let x = &mut *(p as *mut pmix_pdata_t);
                    self.elem(PMIX_PROC, &mut x.proc as *mut _ as *mut u8, depth)?;
                    self.fixed(&mut x.key)?;
                    self.value(&mut x.value, depth)?;
                }
                PMIX_APP => {
                    let x = &mut *(p as *mut pmix_app_t);
                    x.cmd = self.cstr()?;
                    x.argv = self.argv_counted()?;
                    x.env = self.argv_counted()?;
                    x.cwd = self.cstr()?;
                    x.maxprocs = self.vs_bits(32)? as i32;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_INFO, n, depth)?;
                    x.info = a as *mut pmix_info_t;
                    x.ninfo = n;
                }
                PMIX_QUERY => {
                    let x = &mut *(p as *mut pmix_query_t);
                    x.keys = self.argv_counted()?;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_INFO, n, depth)?;
                    x.qualifiers = a as *mut pmix_info_t;
                    x.nqual = n;
                }
                PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT => {
                    let n = self.vu()?;
                    let n = self.count(n)?;
                    let b = self.take(n)?;
                    super::byteobj::load_bo(&mut *(p as *mut pmix_byte_object_t), b)?;
                }
                PMIX_REGEX => {
                    let text = if self.data[self.pos..].starts_with(b"pmix") || self.data[self.pos..].starts_with(b"raw:") {
                        let rest = &self.data[self.pos..];
                        let end = rest.iter().position(|&c| c == 0).ok_or(SHORT)?;
                        self.pos += end + 1;
                        &rest[..end]
                    } else {
                        if self.vs_bits(32)? != 1 {
                            return Err(BAD);
                        }
                        self.str_bytes()?.unwrap_or(&[])
                    };
                    // (held with its NUL, as PMIx_generate_regex hands it out)
                    let mut with_nul = text.to_vec();
                    with_nul.push(0);
                    super::byteobj::load_bo(&mut *(p as *mut pmix_byte_object_t), &with_nul)?;
                }
                PMIX_PROC_INFO => {
                    let x = &mut *(p as *mut pmix_proc_info_t);
                    self.elem(PMIX_PROC, &mut x.proc as *mut _ as *mut u8, depth)?;
                    x.hostname = self.cstr()?;
                    x.executable_name = self.cstr()?;
                    x.pid = self.pid()?;
                    x.state = self.byte()?;
                }
                PMIX_DATA_ARRAY => {
                    let x = &mut *(p as *mut pmix_data_array_t);
                    x.r#type = self.vu_bits(16)? as pmix_data_type_t;
                    let n = self.vu()?;
                    if x.r#type != PMIX_UNDEF && n > 0 {
                        if x.r#type == PMIX_POINTER {
                            self.byte()?;
                        } else {
                            let (a, n) = self.elems(x.r#type, n, depth)?;
                            x.array = a as *mut c_void;
                            x.size = n;
                        }
                    }
                }
                PMIX_ENVAR => {
                    let x = &mut *(p as *mut pmix_envar_t);
                    x.envar = self.cstr()?;
                    x.value = self.cstr()?;
                    x.separator = self.byte()? as c_char;
                }
                PMIX_COORD => {
                    let x = &mut *(p as *mut pmix_coord_t);
                    x.view = self.byte()?;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_UINT32, n, depth)?;
                    x.coord = a as *mut u32;
                    x.dims = n;
                }
                PMIX_REGATTR => {
                    let x = &mut *(p as *mut pmix_regattr_t);
                    x.name = self.cstr()?;
                    self.fixed(&mut x.string)?;
                    x.r#type = self.vu_bits(16)? as pmix_data_type_t;
                    x.description = self.argv_counted()?;
                }
                PMIX_PROC_CPUSET => {
                    let x = &mut *(p as *mut pmix_cpuset_t);
                    let cpus = self.str_bytes()?;
                    x.source = cmem::strdup_bytes(b"hwloc");
                    if x.source.is_null() {
                        return Err(PMIX_ERR_NOMEM);
                    }
                    super::cpuset::load_bitmap(x, cpus.unwrap_or(&[]))?;
                }
                PMIX_TOPO => {
                    let x = &mut *(p as *mut pmix_topology_t);
                    if let Some(xml) = self.str_bytes()? {
                        let support = self.take(TOPO_SUPPORT_BYTES)?;
                        x.source = cmem::strdup_bytes(b"hwloc");
                        if x.source.is_null() {
                            return Err(PMIX_ERR_NOMEM);
                        }
                        x.topology = crate::hwlib::adopt(crate::hwlib::import_sent(xml, support)?);
                    }
                }
                PMIX_GEOMETRY => {
                    let x = &mut *(p as *mut pmix_geometry_t);
                    x.fabric = self.vu()? as usize;
                    x.uuid = self.cstr()?;
                    x.osname = self.cstr()?;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_COORD, n, depth)?;
                    x.coordinates = a as *mut pmix_coord_t;
                    x.ncoords = n;
                }
                PMIX_DEVICE_DIST => {
                    let x = &mut *(p as *mut pmix_device_distance_t);
                    x.uuid = self.cstr()?;
                    x.osname = self.cstr()?;
                    x.r#type = self.vu()?;
                    x.mindist = self.vu_bits(16)? as u16;
                    x.maxdist = self.vu_bits(16)? as u16;
                }
                PMIX_ENDPOINT => {
                    let x = &mut *(p as *mut pmix_endpoint_t);
                    x.uuid = self.cstr()?;
                    x.osname = self.cstr()?;
                    let n = self.vu()?;
                    let n = self.count(n)?;
                    let b = self.take(n)?;
                    super::byteobj::load_bo(&mut x.endpt, b)?;
                }
                PMIX_PROC_STATS => {
                    let x = &mut *(p as *mut pmix_proc_stats_t);
                    x.node = self.cstr()?;
                    self.elem(PMIX_PROC, &mut x.proc as *mut _ as *mut u8, depth)?;
                    x.pid = self.pid()?;
                    x.cmd = self.cstr()?;
                    x.state = self.byte()? as c_char;
                    x.time = self.timeval()?;
                    x.priority = self.vs_bits(32)? as i32;
                    x.num_threads = self.vs_bits(16)? as i16 as u16;
                    x.pss = self.float_text()?.unwrap_or(0.0) as f32;
                    x.vsize = self.float_text()?.unwrap_or(0.0) as f32;
                    x.rss = self.float_text()?.unwrap_or(0.0) as f32;
                    x.processor = self.vs_bits(16)? as i16 as u16;
                    x.sample_time = self.timeval()?;
                }
                PMIX_DISK_STATS => {
                    let x = &mut *(p as *mut pmix_disk_stats_t);
                    x.disk = self.cstr()?;
                    for c in super::pack::disk_counters!(&mut x) {
                        *c = self.vu()?;
                    }
                }
                PMIX_NET_STATS => {
                    let x = &mut *(p as *mut pmix_net_stats_t);
                    x.net_interface = self.cstr()?;
                    for c in super::pack::net_counters!(&mut x) {
                        *c = self.vu()?;
                    }
                }
                PMIX_NODE_STATS => {
                    let x = &mut *(p as *mut pmix_node_stats_t);
                    x.node = self.cstr()?;
                    for c in super::pack::node_floats!(&mut x) {
                        *c = self.float_text()?.unwrap_or(0.0) as f32;
                    }
                    x.sample_time = self.timeval()?;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_DISK_STATS, n, depth)?;
                    x.diskstats = a as *mut pmix_disk_stats_t;
                    x.ndiskstats = n;
                    let n = self.vu()?;
                    let (a, n) = self.elems(PMIX_NET_STATS, n, depth)?;
                    x.netstats = a as *mut pmix_net_stats_t;
                    x.nnetstats = n;
                }
                PMIX_DATA_BUFFER => {
                    let x = &mut *(p as *mut pmix_data_buffer_t);
                    let n = self.vu()?;
                    let n = self.count(n)?;
                    let b = self.take(n)?;
                    super::buffer::load_bytes(x, b)?;
                }
                _ => return Err(PMIX_ERR_UNKNOWN_DATA_TYPE),
            }
            Ok(())
        }
    }
}

/// Integer types whose arrays take the bulk path (`numbers`).
fn plain_int(t: pmix_data_type_t) -> bool {
    matches!(
        t,
        PMIX_UINT64
            | PMIX_DEVTYPE
            | PMIX_STOR_MEDIUM
            | PMIX_STOR_ACCESS
            | PMIX_STOR_PERSIST
            | PMIX_UINT32
            | PMIX_INFO_DIRECTIVES
            | PMIX_PROC_RANK
            | PMIX_INT
            | PMIX_INT32
            | PMIX_STATUS
            | PMIX_UINT
            | PMIX_INT64
            | PMIX_BYTE
            | PMIX_INT8
            | PMIX_UINT8
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vu(v: u64) -> Vec<u8> {
        let mut e = Encoder::default();
        e.vu(v);
        e.out
    }

    #[test]
    fn varints_as_openpmix_writes_them() {
        // (bytes measured on OpenPMIx 4.2.2: docs/openpmix-v41-format.md)
        assert_eq!(vu(0), [0x00]);
        assert_eq!(vu(300), [0xac, 0x02]);
        assert_eq!(vu(1 << 40), [0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
        assert_eq!(vu((1 << 56) - 1), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(vu(1 << 56), [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
        assert_eq!(vu(u64::MAX), [0xff; 9]);
        let mut e = Encoder::default();
        e.vs(-300);
        e.vs(i32::MIN as i64);
        assert_eq!(e.out, [0xd7, 0x04, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        for v in [0, 1, 127, 128, 300, 1 << 40, (1 << 56) - 1, 1 << 56, u64::MAX - 1, u64::MAX] {
            let b = vu(v);
            assert_eq!(Decoder::new(&b).vu(), Ok(v));
        }
        for v in [0i64, -1, 1, -300, i32::MIN as i64, i64::MIN, i64::MAX] {
            let mut e = Encoder::default();
            e.vs(v);
            assert_eq!(Decoder::new(&e.out).vs(), Ok(v));
        }
    }

    #[test]
    fn strings_carry_their_nul() {
        let mut e = Encoder::default();
        e.string(Some(b"abc")).unwrap();
        e.string(None).unwrap();
        assert_eq!(e.out, [0x08, b'a', b'b', b'c', 0, 0x00]);
        let mut d = Decoder::new(&e.out);
        assert_eq!(d.str_bytes(), Ok(Some(&b"abc"[..])));
        assert_eq!(d.str_bytes(), Ok(None));
        // a length past the end, a negative one, a missing NUL
        assert_eq!(Decoder::new(&[0x08, b'a']).str_bytes(), Err(SHORT));
        assert_eq!(Decoder::new(&[0x01]).str_bytes(), Err(BAD));
        assert_eq!(Decoder::new(&[0x04, b'a', b'b']).str_bytes(), Err(BAD));
    }

    #[test]
    fn too_wide_values_are_refused() {
        // uint16 ff ff 07 and a uint32 of 33 bits, as OpenPMIx refuses them
        assert_eq!(Decoder::new(&[0xff, 0xff, 0x07]).vu_bits(16), Err(BAD));
        assert_eq!(Decoder::new(&[0xff, 0xff, 0xff, 0xff, 0x1f]).vu_bits(32), Err(BAD));
        assert_eq!(Decoder::new(&[0xff, 0xff, 0x03]).vu_bits(16), Ok(65535));
    }
}
