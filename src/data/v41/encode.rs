//! Writing OpenPMIx's v41 serialisation (see mod.rs for the format).

use core::ffi::c_char;

use super::TOPO_SUPPORT_BYTES;
use crate::abi::*;
use crate::cmem;
use crate::data::elem::{self, MAX_DEPTH};
use crate::data::kind::{Field, Kind, F};
use crate::data::value;
use crate::status::Res;

#[derive(Default)]
pub struct Encoder {
    pub(super) out: Vec<u8>,
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
    pub(super) fn vu(&mut self, mut v: u64) {
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
    pub(super) fn vs(&mut self, v: i64) {
        self.vu(((v << 1) ^ (v >> 63)) as u64);
    }

    pub(super) fn string(&mut self, s: Option<&[u8]>) -> Res {
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
                PMIX_VALUE => self.value(&*(p as *const pmix_value_t), depth)?,
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
                PMIX_PROC_CPUSET => {
                    let x = &*(p as *const pmix_cpuset_t);
                    if !cmem::cstr_bytes(x.source).is_some_and(crate::hwlib::names_hwloc) {
                        return Err(PMIX_ERR_NOT_SUPPORTED);
                    }
                    if x.bitmap.is_null() {
                        self.string(None)?;
                    } else {
                        let cpus = crate::data::cpuset::bitmap_text(x).ok_or(PMIX_ERR_NOT_SUPPORTED)?;
                        self.string(Some(cpus))?;
                    }
                }
                PMIX_TOPO => {
                    let x = &*(p as *const pmix_topology_t);
                    if x.topology.is_null() {
                        self.string(None)?;
                    } else {
                        let (xml, support) = crate::data::cpuset::topology_xml_and_support(x, TOPO_SUPPORT_BYTES)?;
                        self.string(Some(&xml))?;
                        self.raw(&support);
                    }
                }
                PMIX_DATA_BUFFER => {
                    let x = &*(p as *const pmix_data_buffer_t);
                    crate::data::buffer::check(x)?;
                    let all: &[u8] =
                        if x.base_ptr.is_null() { &[] } else { core::slice::from_raw_parts(x.base_ptr as *const u8, x.bytes_used) };
                    self.vu(all.len() as u64);
                    self.raw(all);
                }
                // the compound types, field by field (infos and procs, the
                // most common, with their lists known here: the walk inlined)
                PMIX_INFO => self.fields(Kind::Info.fields().unwrap_or_default(), p, depth)?,
                PMIX_PROC => self.fields(Kind::Proc.fields().unwrap_or_default(), p, depth)?,
                _ => self.fields(Kind::of(t).and_then(Kind::fields).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?, p, depth)?,
            }
            Ok(())
        }
    }

    /// A compound element's fields that v41 carries, in order.
    ///
    /// # Safety
    /// `p` points to a valid element of the type `fields` describe.
    #[inline(always)]
    unsafe fn fields(&mut self, fields: &[Field], p: *const u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each field read at its C type.
        unsafe {
            for f in fields.iter().filter(|f| f.v41) {
                let q = p.add(f.at);
                match f.f {
                    F::U8 => self.byte(*q),
                    F::U16 => self.vu(*(q as *const u16) as u64),
                    F::S16 => self.vs(*(q as *const u16) as i16 as i64),
                    F::U32 => self.vu(*(q as *const u32) as u64),
                    F::I32 => self.vs(*(q as *const i32) as i64),
                    F::Pid => self.pid(*(q as *const i32)),
                    F::U64 => self.vu(*(q as *const u64)),
                    F::F32 => self.float_text(*(q as *const f32) as f64)?,
                    F::Timeval => self.timeval(&*(q as *const libc::timeval)),
                    F::Key { .. } => self.fixed(&*(q as *const pmix_key_t))?,
                    F::Nspace => self.fixed(&*(q as *const pmix_nspace_t))?,
                    F::Str => self.cstr(*(q as *const *const c_char))?,
                    F::Argv => self.argv_counted(*(q as *const *const *mut c_char))?,
                    F::Bytes => {
                        let b = value::bo_slice(&*(q as *const pmix_byte_object_t))?;
                        self.vu(b.len() as u64);
                        self.raw(b);
                    }
                    F::Value => self.value(&*(q as *const pmix_value_t), depth)?,
                    F::Proc => self.elem(PMIX_PROC, q, depth)?,
                    F::Array { t, count } => {
                        let a = *(q as *const *const u8);
                        let n = if a.is_null() { 0 } else { *(p.add(count) as *const usize) };
                        self.vu(n as u64);
                        self.array(t, a, n, depth)?;
                    }
                }
            }
            Ok(())
        }
    }
}
