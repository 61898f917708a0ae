//! Reading OpenPMIx's v41 serialisation (see mod.rs for the format): no
//! count is trusted, nesting is bounded.

use core::ffi::{c_char, c_void};
use core::ptr;

use super::{plain_int, BAD, SHORT, TOPO_SUPPORT_BYTES};
use crate::abi::*;
use crate::cmem;
use crate::data::elem::{self, MAX_DEPTH};
use crate::data::kind::{Field, Kind, F};
use crate::status::Res;

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

    pub(super) fn vu(&mut self) -> Res<u64> {
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
    pub(super) fn vu_bits(&mut self, bits: u32) -> Res<u64> {
        let v = self.vu()?;
        if bits < 64 && v >> bits != 0 {
            return Err(BAD);
        }
        Ok(v)
    }

    pub(super) fn vs(&mut self) -> Res<i64> {
        let u = self.vu()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    /// A signed varint that must fit `bits`.
    pub(super) fn vs_bits(&mut self, bits: u32) -> Res<i64> {
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
    pub(super) fn str_bytes(&mut self) -> Res<Option<&'a [u8]>> {
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
            let r = self.elem_inner(t, kind, dst, depth);
            if r.is_err() {
                elem::destruct(kind, dst);
            }
            r
        }
    }

    /// # Safety
    /// `p` is zeroed storage for one element of `t`, whose kind is `kind`.
    unsafe fn elem_inner(&mut self, t: pmix_data_type_t, kind: Kind, p: *mut u8, depth: u32) -> Res {
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
                PMIX_VALUE => self.value(&mut *(p as *mut pmix_value_t), depth)?,
                PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT => {
                    let n = self.vu()?;
                    let n = self.count(n)?;
                    let b = self.take(n)?;
                    crate::data::byteobj::load_bo(&mut *(p as *mut pmix_byte_object_t), b)?;
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
                    crate::data::byteobj::load_bo(&mut *(p as *mut pmix_byte_object_t), &with_nul)?;
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
                PMIX_PROC_CPUSET => {
                    let x = &mut *(p as *mut pmix_cpuset_t);
                    let cpus = self.str_bytes()?;
                    x.source = cmem::strdup_bytes(b"hwloc");
                    if x.source.is_null() {
                        return Err(PMIX_ERR_NOMEM);
                    }
                    crate::data::cpuset::load_bitmap(x, cpus.unwrap_or(&[]))?;
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
                PMIX_DATA_BUFFER => {
                    let x = &mut *(p as *mut pmix_data_buffer_t);
                    let n = self.vu()?;
                    let n = self.count(n)?;
                    let b = self.take(n)?;
                    crate::data::buffer::load_bytes(x, b)?;
                }
                // the compound types, field by field (infos and procs, the
                // most common, with their lists known here: the walk inlined)
                PMIX_INFO => self.fields(Kind::Info.fields().unwrap_or_default(), p, depth)?,
                PMIX_PROC => self.fields(Kind::Proc.fields().unwrap_or_default(), p, depth)?,
                _ => self.fields(kind.fields().ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?, p, depth)?,
            }
            Ok(())
        }
    }

    /// A compound element's fields that v41 carries, in order, into zeroed
    /// storage (the others stay zero).
    ///
    /// # Safety
    /// `p` is zeroed storage for one element of the type `fields` describe.
    #[inline(always)]
    unsafe fn fields(&mut self, fields: &[Field], p: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each field written at its C type.
        unsafe {
            for f in fields.iter().filter(|f| f.v41) {
                let q = p.add(f.at);
                match f.f {
                    F::U8 => *q = self.byte()?,
                    F::U16 => *(q as *mut u16) = self.vu_bits(16)? as u16,
                    F::S16 => *(q as *mut u16) = self.vs_bits(16)? as i16 as u16,
                    F::U32 => *(q as *mut u32) = self.vu_bits(32)? as u32,
                    F::I32 => *(q as *mut i32) = self.vs_bits(32)? as i32,
                    F::Pid => *(q as *mut i32) = self.pid()?,
                    F::U64 => *(q as *mut u64) = self.vu()?,
                    F::F32 => *(q as *mut f32) = self.float_text()?.unwrap_or(0.0) as f32,
                    F::Timeval => *(q as *mut libc::timeval) = self.timeval()?,
                    F::Key { .. } => self.fixed(&mut *(q as *mut pmix_key_t))?,
                    F::Nspace => self.fixed(&mut *(q as *mut pmix_nspace_t))?,
                    F::Str => *(q as *mut *mut c_char) = self.cstr()?,
                    F::Argv => *(q as *mut *mut *mut c_char) = self.argv_counted()?,
                    F::Bytes => {
                        let n = self.vu()?;
                        let n = self.count(n)?;
                        let b = self.take(n)?;
                        crate::data::byteobj::load_bo(&mut *(q as *mut pmix_byte_object_t), b)?;
                    }
                    F::Value => self.value(&mut *(q as *mut pmix_value_t), depth)?,
                    F::Proc => self.elem(PMIX_PROC, q, depth)?,
                    F::Array { t, count } => {
                        let n = self.vu()?;
                        let (a, n) = self.elems(t, n, depth)?;
                        *(q as *mut *mut u8) = a;
                        *(p.add(count) as *mut usize) = n;
                    }
                }
            }
            Ok(())
        }
    }
}
