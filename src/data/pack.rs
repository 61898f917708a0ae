//! rpmix's own serialisation of PMIx data, for messages between rpmix
//! processes (`PMIx_Data_pack` writes OpenPMIx's format: `v41.rs`). Both
//! ends run this library: little-endian, self-describing per call,
//! length-checked everywhere.
//!
//! Per pack call: `u16 type, u32 count`, then `count` elements. Elements:
//! numbers at their C width; strings `u32 (0 = NULL, else len + 1)` + bytes;
//! byte blobs `u64 len` + bytes; argv `u32 count (u32::MAX = NULL)` + strings;
//! values `u16 type` + element; arrays `u16 type, u64 n` + elements; the
//! compound types their fields in the order `Kind::fields` lists them.
//!
//! The decoder never trusts a count: it bounds every allocation by the bytes
//! that remain, refuses nesting deeper than `elem::MAX_DEPTH`, and on any error
//! frees what it built and reports a status.

use core::ffi::{c_char, c_void};
use core::ptr;

use super::elem::{self, MAX_DEPTH};
use crate::status::Res;
use super::kind::{Field, Kind, Shape, F};
use super::value;
use crate::abi::*;
use crate::cmem;

const NULL_ARGV: u32 = u32::MAX;

#[derive(Default)]
pub struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }
    /// Empty it, keeping its capacity (one scratch encoder for many records).
    pub fn clear(&mut self) {
        self.out.clear();
    }
    pub(crate) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    pub(crate) fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
    /// A C string (NULL allowed).
    ///
    /// # Safety
    /// `s` is NULL or NUL-terminated.
    pub unsafe fn cstr(&mut self, s: *const c_char) -> Res {
        // SAFETY: the caller upholds the contract above: `s` is NULL or NUL-terminated.
        unsafe {
            match cmem::cstr_bytes(s) {
                None => self.u32(0),
                Some(b) => {
                    let n = u32::try_from(b.len() + 1).map_err(|_| PMIX_ERR_BAD_PARAM)?;
                    self.u32(n);
                    self.raw(b);
                }
            }
            Ok(())
        }
    }
    pub(crate) fn fixed(&mut self, s: &[c_char]) {
        let n = cmem::bounded_len(s);
        self.u32(n as u32 + 1);
        // SAFETY: c_char and u8 have the same layout.
        self.raw(unsafe { core::slice::from_raw_parts(s.as_ptr() as *const u8, n) });
    }
    pub(crate) fn blob(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.raw(b);
    }
    /// A NULL-terminated string array.
    ///
    /// # Safety
    /// For encoding: `a` is NULL or a NULL-terminated array of NUL-terminated strings. For decoding: none (the result is a new allocation the caller owns).
    pub(crate) unsafe fn argv(&mut self, a: *const *mut c_char) -> Res {
        // SAFETY: the caller upholds the contract above: For encoding: `a` is NULL or a NULL-terminated array of NUL-terminated strings. For decoding: none (the result is a new allocation the caller owns).
        unsafe {
            if a.is_null() {
                self.u32(NULL_ARGV);
                return Ok(());
            }
            let n = cmem::argv_len(a);
            self.u32(u32::try_from(n).map_err(|_| PMIX_ERR_BAD_PARAM)?);
            for i in 0..n {
                self.cstr(*a.add(i))?;
            }
            Ok(())
        }
    }
    /// `n` elements of `kind`, depth-limited.
    ///
    /// # Safety
    /// For encoding: `p` is NULL or points to `n` valid elements of `kind`. For decoding: none (the result is a new allocation the caller owns).
    unsafe fn array(&mut self, kind: Kind, p: *const u8, n: usize, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: For encoding: `p` is NULL or points to `n` valid elements of `kind`. For decoding: none (the result is a new allocation the caller owns).
        unsafe {
            let n = if p.is_null() { 0 } else { n };
            if !elem::sane_len(kind, n) {
                return Err(PMIX_ERR_BAD_PARAM);
            }
            self.u64(n as u64);
            for i in 0..n {
                self.elem(kind, p.add(i * kind.size()), depth + 1)?;
            }
            Ok(())
        }
    }
    /// One pmix_value_t (type, then its payload), depth-limited.
    ///
    /// # Safety
    /// `v` is a valid value (encoding), or a zeroed/destructed value the decoder may fill (decoding).
    unsafe fn value(&mut self, v: &pmix_value_t, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: `v` is a valid value (encoding), or a zeroed/destructed value the decoder may fill (decoding).
        unsafe {
            self.u16(v.r#type);
            if v.r#type == PMIX_UNDEF {
                return Ok(());
            }
            let kind = Kind::of(v.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            let p = value::elem_ptr(v, kind);
            if kind.inline_in_value() {
                self.elem(kind, p, depth + 1)
            } else if p.is_null() {
                self.u8(0);
                Ok(())
            } else {
                self.u8(1);
                self.elem(kind, p, depth + 1)
            }
        }
    }

    /// Encode `n` elements of type `t` from a C array (for PMIX_STRING, an array of `char *`).
    ///
    /// # Safety
    /// `src` points to `n` valid elements of type `t`.
    pub unsafe fn items(&mut self, t: pmix_data_type_t, src: *const u8, n: usize) -> Res {
        // SAFETY: the caller upholds the contract above: `src` points to `n` valid elements of type `t`.
        unsafe {
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            self.u16(t);
            self.u32(u32::try_from(n).map_err(|_| PMIX_ERR_BAD_PARAM)?);
            for i in 0..n {
                self.elem(kind, src.add(i * kind.size()), 0)?;
            }
            Ok(())
        }
    }

    /// Encode one element.
    ///
    /// # Safety
    /// `p` points to a valid element of `kind`.
    pub unsafe fn elem(&mut self, kind: Kind, p: *const u8, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: `p` points to a valid element of `kind`.
        unsafe {
            if depth > MAX_DEPTH {
                return Err(PMIX_ERR_BAD_PARAM);
            }
            match kind.shape() {
                Shape::Fields(fields) => self.fields(fields, p, depth)?,
                Shape::Num(_) => self.raw(core::slice::from_raw_parts(p, kind.size())),
                Shape::String => self.cstr(*(p as *const *const c_char))?,
                Shape::Nspace => self.fixed(&*(p as *const pmix_nspace_t)),
                Shape::Value => self.value(&*(p as *const pmix_value_t), depth)?,
                Shape::ByteObject => self.blob(value::bo_slice(&*(p as *const pmix_byte_object_t))?),
                Shape::DataArray => {
                    let x = &*(p as *const pmix_data_array_t);
                    self.u16(x.r#type);
                    let k = if x.size == 0 || x.array.is_null() {
                        None
                    } else {
                        Some(Kind::of(x.r#type).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?)
                    };
                    match k {
                        None => self.u64(0),
                        Some(k) => self.array(k, x.array as *const u8, x.size, depth)?,
                    }
                }
                Shape::Cpuset => {
                    let x = &*(p as *const pmix_cpuset_t);
                    self.cstr(x.source)?;
                    self.blob(&super::cpuset::bitmap_bytes(x)?);
                }
                Shape::Topology => {
                    let x = &*(p as *const pmix_topology_t);
                    self.cstr(x.source)?;
                    self.blob(&super::cpuset::topology_bytes(x)?);
                }
                Shape::DataBuffer => {
                    let x = &*(p as *const pmix_data_buffer_t);
                    self.blob(super::buffer::unread(x)?);
                }
            }
            Ok(())
        }
    }
    /// A compound element's fields, in order.
    ///
    /// # Safety
    /// `p` points to a valid element of the type `fields` describe.
    unsafe fn fields(&mut self, fields: &[Field], p: *const u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each field read at its C type.
        unsafe {
            for f in fields {
                let q = p.add(f.at);
                match f.f {
                    F::U8 => self.u8(*q),
                    F::U16 | F::S16 => self.u16(*(q as *const u16)),
                    F::U32 | F::I32 | F::Pid => self.u32(*(q as *const u32)),
                    F::U64 => self.u64(*(q as *const u64)),
                    F::F32 => self.u32((*(q as *const f32)).to_bits()),
                    F::Timeval => self.timeval(&*(q as *const libc::timeval)),
                    F::Key { .. } => self.fixed(&*(q as *const pmix_key_t)),
                    F::Nspace => self.fixed(&*(q as *const pmix_nspace_t)),
                    F::Str => self.cstr(*(q as *const *const c_char))?,
                    F::Argv => self.argv(*(q as *const *const *mut c_char))?,
                    F::Bytes => self.blob(value::bo_slice(&*(q as *const pmix_byte_object_t))?),
                    F::Value => self.value(&*(q as *const pmix_value_t), depth)?,
                    F::Proc => self.elem(Kind::Proc, q, depth)?,
                    F::Array { t, count } => {
                        self.array(elem::array_kind(t)?, *(q as *const *const u8), *(p.add(count) as *const usize), depth)?
                    }
                }
            }
            Ok(())
        }
    }
    fn timeval(&mut self, t: &libc::timeval) {
        self.u64(t.tv_sec as u64);
        self.u64(t.tv_usec as u64);
    }
}

/// Reads what `Encoder` wrote, with every length checked against what remains.
pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
}

const SHORT: pmix_status_t = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
const BAD: pmix_status_t = PMIX_ERR_UNPACK_FAILURE;

impl<'a> Decoder<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Decoder { data, pos: 0 }
    }
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub(crate) fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        if n > self.remaining() {
            return Err(SHORT);
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(crate) fn u8(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Res<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub(crate) fn u64(&mut self) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    /// A count of items each taking at least one byte: never more than what remains.
    pub(crate) fn count(&mut self, n: u64) -> Res<usize> {
        if n > self.remaining() as u64 {
            return Err(SHORT);
        }
        Ok(n as usize)
    }
    pub(crate) fn str_bytes(&mut self) -> Res<Option<&'a [u8]>> {
        let n = self.u32()?;
        if n == 0 {
            return Ok(None);
        }
        let b = self.take(n as usize - 1)?;
        if b.contains(&0) {
            return Err(BAD);
        }
        Ok(Some(b))
    }
    pub(crate) fn cstr(&mut self) -> Res<*mut c_char> {
        elem::dup_text(self.str_bytes()?)
    }
    pub(crate) fn fixed(&mut self, dst: &mut [c_char]) -> Res {
        let b = self.str_bytes()?.ok_or(BAD)?;
        if b.len() >= dst.len() {
            return Err(BAD);
        }
        cmem::load_fixed(dst, b);
        Ok(())
    }
    pub(crate) fn blob(&mut self) -> Res<&'a [u8]> {
        let n = self.u64()?;
        let n = self.count(n)?;
        self.take(n)
    }
    fn blob_bo(&mut self, bo: &mut pmix_byte_object_t) -> Res {
        let b = self.blob()?;
        super::byteobj::load_bo(bo, b)
    }
    /// A NULL-terminated string array (NULL when sent as one); the caller owns it.
    pub(crate) fn argv(&mut self) -> Res<*mut *mut c_char> {
        let n = self.u32()?;
        if n == NULL_ARGV {
            return Ok(ptr::null_mut());
        }
        let n = self.count(n as u64)?;
        elem::decode_argv(n, BAD, || self.cstr())
    }
    /// Decode an array into a new allocation; returns (ptr, n).
    ///
    /// # Safety
    /// For encoding: `p` is NULL or points to `n` valid elements of `kind`. For decoding: none (the result is a new allocation the caller owns).
    unsafe fn array(&mut self, kind: Kind, depth: u32) -> Res<(*mut u8, usize)> {
        // SAFETY: the caller upholds the contract above: For encoding: `p` is NULL or points to `n` valid elements of `kind`. For decoding: none (the result is a new allocation the caller owns).
        unsafe {
            let n = self.u64()?;
            let n = self.count(n)?;
            self.elems(kind, n, depth)
        }
    }

    /// Decode `n` elements of `kind` into a new allocation; returns (ptr, n).
    ///
    /// # Safety
    /// None (the result is a new allocation the caller owns).
    pub unsafe fn elems(&mut self, kind: Kind, n: usize, depth: u32) -> Res<(*mut u8, usize)> {
        // SAFETY: `elem` decodes one element into the zeroed slot it is given.
        unsafe { elem::decode_array(kind, n, |p| self.elem(kind, p, depth + 1)) }
    }
    /// One pmix_value_t (type, then its payload), depth-limited.
    ///
    /// # Safety
    /// `v` is a valid value (encoding), or a zeroed/destructed value the decoder may fill (decoding).
    unsafe fn value(&mut self, v: &mut pmix_value_t, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: `v` is a valid value (encoding), or a zeroed/destructed value the decoder may fill (decoding).
        unsafe {
            let t = self.u16()?;
            if t == PMIX_UNDEF {
                return Ok(());
            }
            let kind = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
            if kind.inline_in_value() {
                self.elem(kind, &mut v.data as *mut pmix_value_data as *mut u8, depth + 1)?;
            } else if self.u8()? != 0 {
                let p = elem::alloc_array(kind, 1)?;
                if let Err(e) = self.elem(kind, p, depth + 1) {
                    cmem::free(p);
                    return Err(e);
                }
                v.data.ptr = p as *mut c_void;
            }
            v.r#type = t;
            Ok(())
        }
    }

    /// Read a pack-call header: (type, count).
    pub fn header(&mut self) -> Res<(pmix_data_type_t, u32)> {
        Ok((self.u16()?, self.u32()?))
    }

    /// Decode one element into zeroed memory at `dst`; on error `dst` is left empty.
    ///
    /// # Safety
    /// `dst` is writable for `kind.size()` bytes and holds no live element.
    pub unsafe fn elem(&mut self, kind: Kind, dst: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: `dst` is writable for `kind.size()` bytes and holds no live element.
        unsafe {
            if depth > MAX_DEPTH {
                return Err(BAD);
            }
            ptr::write_bytes(dst, 0, kind.size());
            let r = self.elem_inner(kind, dst, depth);
            if r.is_err() {
                elem::destruct(kind, dst);
            }
            r
        }
    }

    /// Decode one element of `kind` into `p`, depth-limited.
    ///
    /// # Safety
    /// `p` points to writable, zeroed storage for one element of `kind`.
    unsafe fn elem_inner(&mut self, kind: Kind, p: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller upholds the contract above: `p` points to writable, zeroed storage for one element of `kind`.
        unsafe {
            match kind.shape() {
                Shape::Fields(fields) => self.fields(fields, p, depth)?,
                Shape::Num(_) => {
                    let b = self.take(kind.size())?;
                    ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
                }
                Shape::String => *(p as *mut *mut c_char) = self.cstr()?,
                Shape::Nspace => self.fixed(&mut *(p as *mut pmix_nspace_t))?,
                Shape::Value => self.value(&mut *(p as *mut pmix_value_t), depth)?,
                Shape::ByteObject => self.blob_bo(&mut *(p as *mut pmix_byte_object_t))?,
                Shape::DataArray => {
                    let x = &mut *(p as *mut pmix_data_array_t);
                    let t = self.u16()?;
                    x.r#type = t;
                    let n = self.u64()?;
                    if n > 0 {
                        let k = Kind::of(t).ok_or(PMIX_ERR_UNKNOWN_DATA_TYPE)?;
                        self.pos -= 8;
                        let (a, n) = self.array(k, depth)?;
                        x.array = a as *mut c_void;
                        x.size = n;
                    }
                }
                Shape::Cpuset => {
                    let x = &mut *(p as *mut pmix_cpuset_t);
                    x.source = self.cstr()?;
                    let b = self.blob()?;
                    super::cpuset::load_bitmap(x, b)?;
                }
                Shape::Topology => {
                    let x = &mut *(p as *mut pmix_topology_t);
                    x.source = self.cstr()?;
                    let b = self.blob()?;
                    super::cpuset::load_topology(x, b)?;
                }
                Shape::DataBuffer => {
                    let x = &mut *(p as *mut pmix_data_buffer_t);
                    let b = self.blob()?;
                    super::buffer::load_bytes(x, b)?;
                }
            }
            Ok(())
        }
    }
    /// A compound element's fields, in order, into zeroed storage.
    ///
    /// # Safety
    /// `p` is zeroed storage for one element of the type `fields` describe.
    unsafe fn fields(&mut self, fields: &[Field], p: *mut u8, depth: u32) -> Res {
        // SAFETY: the caller's contract; each field written at its C type.
        unsafe {
            for f in fields {
                let q = p.add(f.at);
                match f.f {
                    F::U8 => *q = self.u8()?,
                    F::U16 | F::S16 => *(q as *mut u16) = self.u16()?,
                    F::U32 | F::I32 | F::Pid => *(q as *mut u32) = self.u32()?,
                    F::U64 => *(q as *mut u64) = self.u64()?,
                    F::F32 => *(q as *mut f32) = f32::from_bits(self.u32()?),
                    F::Timeval => *(q as *mut libc::timeval) = self.timeval()?,
                    F::Key { .. } => self.fixed(&mut *(q as *mut pmix_key_t))?,
                    F::Nspace => self.fixed(&mut *(q as *mut pmix_nspace_t))?,
                    F::Str => *(q as *mut *mut c_char) = self.cstr()?,
                    F::Argv => *(q as *mut *mut *mut c_char) = self.argv()?,
                    F::Bytes => self.blob_bo(&mut *(q as *mut pmix_byte_object_t))?,
                    F::Value => self.value(&mut *(q as *mut pmix_value_t), depth)?,
                    F::Proc => self.elem(Kind::Proc, q, depth)?,
                    F::Array { t, count } => {
                        let (a, n) = self.array(elem::array_kind(t)?, depth)?;
                        *(q as *mut *mut u8) = a;
                        *(p.add(count) as *mut usize) = n;
                    }
                }
            }
            Ok(())
        }
    }
    fn timeval(&mut self) -> Res<libc::timeval> {
        Ok(libc::timeval { tv_sec: self.u64()? as i64, tv_usec: self.u64()? as i64 })
    }
}
