//! Rust owners of C data: `Info` and `Value` own a `pmix_info_t` /
//! `pmix_value_t` (and the libc memory behind it) and free it on drop; `Proc`
//! is a process name. The client and server cores keep their data in these.

use core::ffi::{c_char, c_void};

use crate::abi::*;
use crate::cmem;
use crate::status::Res;
use crate::data::kind::Kind;
use crate::data::pack::{Decoder, Encoder};
use crate::data::{self, value};

/// A process name: namespace and rank.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Proc {
    pub nspace: String,
    pub rank: pmix_rank_t,
}

impl Proc {
    pub fn new(nspace: &str, rank: pmix_rank_t) -> Proc {
        Proc { nspace: nspace.to_string(), rank }
    }
    pub fn from_c(p: &pmix_proc_t) -> Proc {
        let n = cmem::bounded_len(&p.nspace);
        // SAFETY: c_char and u8 have one layout; n is within the array.
        let bytes = unsafe { core::slice::from_raw_parts(p.nspace.as_ptr() as *const u8, n) };
        Proc { nspace: String::from_utf8_lossy(bytes).into_owned(), rank: p.rank }
    }
    pub fn to_c(&self) -> pmix_proc_t {
        // SAFETY: all-zero is a valid pmix_proc_t.
        let mut p: pmix_proc_t = unsafe { core::mem::zeroed() };
        cmem::load_fixed(&mut p.nspace, self.nspace.as_bytes());
        p.rank = self.rank;
        p
    }
    pub fn wildcard(nspace: &str) -> Proc {
        Proc::new(nspace, PMIX_RANK_WILDCARD)
    }
    /// Whether this name stands for `p`: the same proc, or its namespace's wildcard.
    pub fn names(&self, p: &Proc) -> bool {
        self.nspace == p.nspace && (self.rank == p.rank || self.rank == PMIX_RANK_WILDCARD)
    }
    pub fn encode(&self, e: &mut Encoder) {
        let p = self.to_c();
        // SAFETY: p is a valid proc.
        let _ = unsafe { e.elem(Kind::Proc, &p as *const pmix_proc_t as *const u8, 0) };
    }
    pub fn decode(d: &mut Decoder<'_>) -> Res<Proc> {
        // SAFETY: zeroed proc storage, decoded in place.
        unsafe {
            let mut p: pmix_proc_t = core::mem::zeroed();
            d.elem(Kind::Proc, &mut p as *mut pmix_proc_t as *mut u8, 0)?;
            Ok(Proc::from_c(&p))
        }
    }
}

impl std::fmt::Display for Proc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rank {
            PMIX_RANK_WILDCARD => write!(f, "{}:*", self.nspace),
            r => write!(f, "{}:{}", self.nspace, r),
        }
    }
}

/// An owned `pmix_value_t`.
pub struct Value(pub pmix_value_t);

// SAFETY: a Value exclusively owns the libc memory it points to.
unsafe impl Send for Value {}
// SAFETY: shared references only read it (no interior mutability).
unsafe impl Sync for Value {}

impl Value {
    /// A copy of the element at `data` of type `t` (PMIx_Value_load conventions).
    ///
    /// # Safety
    /// As `value::load`.
    pub unsafe fn load(data: *const c_void, t: pmix_data_type_t) -> Res<Value> {
        // SAFETY: the caller upholds the contract above: As `value::load`.
        unsafe {
            let mut v: pmix_value_t = core::mem::zeroed();
            value::load(&mut v, data, t)?;
            Ok(Value(v))
        }
    }
    /// # Safety
    /// `v` is a valid value.
    pub unsafe fn copy_of(v: &pmix_value_t) -> Res<Value> {
        // SAFETY: the caller upholds the contract above: `v` is a valid value.
        unsafe {
            let mut out: pmix_value_t = core::mem::zeroed();
            value::xfer(&mut out, v, 0)?;
            Ok(Value(out))
        }
    }
    pub fn u32(x: u32) -> Value {
        // SAFETY: x is a u32 element.
        unsafe { Value::load(&x as *const u32 as *const c_void, PMIX_UINT32).unwrap() }
    }
    pub fn u64(x: u64) -> Value {
        // SAFETY: x is a u64 element.
        unsafe { Value::load(&x as *const u64 as *const c_void, PMIX_UINT64).unwrap() }
    }
    /// The value as a u64 when it is an unsigned integer type.
    pub fn as_u64(&self) -> Option<u64> {
        // SAFETY: the union field read matches the type tag.
        unsafe {
            match self.0.r#type {
                PMIX_UINT64 => Some(self.0.data.uint64),
                PMIX_SIZE => Some(self.0.data.size as u64),
                _ => self.as_u32().map(u64::from),
            }
        }
    }
    pub fn int(x: i32) -> Value {
        // SAFETY: x is a C int element.
        unsafe { Value::load(&x as *const i32 as *const c_void, PMIX_INT).unwrap() }
    }
    pub fn pid(x: libc::pid_t) -> Value {
        // SAFETY: x is a pid_t element.
        unsafe { Value::load(&x as *const libc::pid_t as *const c_void, PMIX_PID).unwrap() }
    }
    pub fn size(x: usize) -> Value {
        // SAFETY: x is a size_t element.
        unsafe { Value::load(&x as *const usize as *const c_void, PMIX_SIZE).unwrap() }
    }
    /// A PMIX_DATA_ARRAY of PMIX_PROC.
    pub fn procs(procs: &[Proc]) -> Value {
        let mut arr: Vec<pmix_proc_t> = procs.iter().map(|p| p.to_c()).collect();
        let da = pmix_data_array_t { r#type: PMIX_PROC, size: arr.len(), array: arr.as_mut_ptr() as *mut c_void };
        // SAFETY: da describes `arr`, deep-copied by load.
        unsafe { Value::load(&da as *const pmix_data_array_t as *const c_void, PMIX_DATA_ARRAY).unwrap() }
    }
    /// A PMIX_DATA_ARRAY of PMIX_INFO (deep copies).
    pub fn infos(infos: &[Info]) -> Value {
        // Info is a transparent pmix_info_t: the slice is a C info array.
        let da = pmix_data_array_t { r#type: PMIX_INFO, size: infos.len(), array: infos.as_ptr() as *mut c_void };
        // SAFETY: da describes `infos`, deep-copied by load.
        unsafe { Value::load(&da as *const pmix_data_array_t as *const c_void, PMIX_DATA_ARRAY).expect("out of memory") }
    }
    /// A PMIX_POINTER (the address only: nothing is owned or copied).
    pub fn pointer(p: *mut c_void) -> Value {
        // SAFETY: for PMIX_POINTER the data given is the pointer itself
        // (PMIx_Value_load's convention), never dereferenced.
        unsafe { Value::load(p as *const c_void, PMIX_POINTER).unwrap() }
    }
    pub fn status(x: pmix_status_t) -> Value {
        // SAFETY: x is a status element.
        unsafe { Value::load(&x as *const pmix_status_t as *const c_void, PMIX_STATUS).unwrap() }
    }
    pub fn u16(x: u16) -> Value {
        // SAFETY: x is a u16 element.
        unsafe { Value::load(&x as *const u16 as *const c_void, PMIX_UINT16).unwrap() }
    }
    pub fn rank(x: pmix_rank_t) -> Value {
        // SAFETY: x is a rank element.
        unsafe { Value::load(&x as *const u32 as *const c_void, PMIX_PROC_RANK).unwrap() }
    }
    pub fn boolean(x: bool) -> Value {
        // SAFETY: x is a bool element.
        unsafe { Value::load(&x as *const bool as *const c_void, PMIX_BOOL).unwrap() }
    }
    pub fn string(s: &str) -> Value {
        // SAFETY: pmix_value_t is plain C data; all zeroes is PMIX_UNDEF.
        let mut v: pmix_value_t = unsafe { core::mem::zeroed() };
        v.r#type = PMIX_STRING;
        v.data.string = cmem::strdup_bytes(s.as_bytes());
        Value(v)
    }
    /// A PMIX_BYTE_OBJECT holding a copy of `b`.
    pub fn bytes(b: &[u8]) -> Value {
        let bo = pmix_byte_object_t { bytes: b.as_ptr() as *mut c_char, size: b.len() };
        // SAFETY: bo describes `b`, copied by load.
        unsafe { Value::load(&bo as *const pmix_byte_object_t as *const c_void, PMIX_BYTE_OBJECT).expect("out of memory") }
    }
    pub fn proc(p: &Proc) -> Value {
        let c = p.to_c();
        // SAFETY: c is a proc element.
        unsafe { Value::load(&c as *const pmix_proc_t as *const c_void, PMIX_PROC).unwrap() }
    }
    pub fn type_(&self) -> pmix_data_type_t {
        self.0.r#type
    }
    /// The value as a u32 when it is any unsigned/rank integer type that fits.
    pub fn as_u32(&self) -> Option<u32> {
        // SAFETY: the union field read matches the type tag.
        unsafe {
            match self.0.r#type {
                PMIX_UINT32 | PMIX_PROC_RANK => Some(self.0.data.uint32),
                PMIX_UINT16 => Some(self.0.data.uint16 as u32),
                PMIX_UINT8 => Some(self.0.data.uint8 as u32),
                PMIX_UINT => Some(self.0.data.uint),
                PMIX_INT => u32::try_from(self.0.data.integer).ok(),
                PMIX_INT32 => u32::try_from(self.0.data.int32).ok(),
                PMIX_PID => u32::try_from(self.0.data.pid).ok(),
                PMIX_INT16 => u32::try_from(self.0.data.int16).ok(),
                PMIX_INT8 => u32::try_from(self.0.data.int8).ok(),
                PMIX_INT64 => u32::try_from(self.0.data.int64).ok(),
                PMIX_UINT64 => u32::try_from(self.0.data.uint64).ok(),
                PMIX_SIZE => u32::try_from(self.0.data.size).ok(),
                _ => None,
            }
        }
    }
    /// The value as an i32 when it is a signed integer type that fits
    /// (PMIX_EXIT_CODE is a PMIX_INT).
    pub fn as_i32(&self) -> Option<i32> {
        // SAFETY: the union field read matches the type tag.
        unsafe {
            match self.0.r#type {
                PMIX_INT => Some(self.0.data.integer),
                PMIX_INT32 => Some(self.0.data.int32),
                PMIX_INT16 => Some(self.0.data.int16 as i32),
                PMIX_INT8 => Some(self.0.data.int8 as i32),
                PMIX_INT64 => i32::try_from(self.0.data.int64).ok(),
                _ => self.as_u32().and_then(|u| i32::try_from(u).ok()),
            }
        }
    }
    pub fn as_str(&self) -> Option<String> {
        if self.0.r#type != PMIX_STRING {
            return None;
        }
        // SAFETY: a PMIX_STRING value holds NULL or a C string.
        unsafe { cmem::cstr_bytes(self.0.data.string).map(|b| String::from_utf8_lossy(b).into_owned()) }
    }
    /// The ranks of namespace `nspace` a rank directive names
    /// (PMIX_DEBUG_STOP_IN_INIT, _ON_EXEC): a flag (all or none), one rank
    /// (WILDCARD: all), or procs (with this namespace or none). Any other
    /// type names all, as OpenPMIx's client reads such a directive.
    pub fn ranks_named(&self, nspace: &str) -> RanksNamed {
        match self.0.r#type {
            PMIX_BOOL if self.truthy() => RanksNamed::All,
            PMIX_BOOL => RanksNamed::These(Vec::new()),
            PMIX_PROC_RANK | PMIX_UINT32 => match self.as_u32() {
                Some(PMIX_RANK_WILDCARD) => RanksNamed::All,
                r => RanksNamed::These(r.into_iter().collect()),
            },
            PMIX_PROC | PMIX_DATA_ARRAY => {
                let ranks: Vec<pmix_rank_t> = procs_of_value(&self.0).into_iter().filter(|p| p.nspace.is_empty() || p.nspace == nspace).map(|p| p.rank).collect();
                if ranks.contains(&PMIX_RANK_WILDCARD) {
                    RanksNamed::All
                } else {
                    RanksNamed::These(ranks)
                }
            }
            _ => RanksNamed::All,
        }
    }
    /// True for PMIX_BOOL true, for a key given with no value (PMIX_UNDEF: "present
    /// means true", as Open MPI passes some directives), and for "true"/"yes"/"1" strings.
    pub fn truthy(&self) -> bool {
        // SAFETY: field reads match the type tag.
        unsafe {
            match self.0.r#type {
                PMIX_BOOL => self.0.data.uint8 != 0,
                PMIX_UNDEF => true,
                PMIX_STRING => matches!(
                    self.as_str().as_deref().map(|s| s.to_ascii_lowercase()).as_deref(),
                    Some("true") | Some("yes") | Some("1")
                ),
                _ => self.as_u32().is_some_and(|x| x != 0),
            }
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        // SAFETY: self holds a valid value; a copy can only fail on NOMEM.
        unsafe { Value::copy_of(&self.0).expect("out of memory copying a value") }
    }
}

impl Drop for Value {
    fn drop(&mut self) {
        // SAFETY: we own the value.
        unsafe { value::destruct(&mut self.0) }
    }
}

/// An owned `pmix_info_t`.
#[repr(transparent)]
pub struct Info(pub pmix_info_t);

// SAFETY: an Info exclusively owns the libc memory it points to.
unsafe impl Send for Info {}
// SAFETY: shared references only read it (no interior mutability).
unsafe impl Sync for Info {}

impl Info {
    pub fn new(key: &str, v: Value) -> Info {
        // SAFETY: zeroed info, key copied in, value moved in.
        unsafe {
            let mut i: pmix_info_t = core::mem::zeroed();
            cmem::load_fixed(&mut i.key, key.as_bytes());
            i.value = v.0;
            core::mem::forget(v);
            Info(i)
        }
    }
    /// # Safety
    /// `src` is a valid info.
    pub unsafe fn copy_of(src: &pmix_info_t) -> Res<Info> {
        // SAFETY: the caller upholds the contract above: `src` is a valid info.
        unsafe {
            let mut i: pmix_info_t = core::mem::zeroed();
            data::info_xfer(&mut i, src)?;
            Ok(Info(i))
        }
    }
    /// Copies of a C info array (NULL/0 gives an empty list).
    ///
    /// # Safety
    /// `p` is NULL or points to `n` valid infos.
    pub unsafe fn copy_array(p: *const pmix_info_t, n: usize) -> Res<Vec<Info>> {
        // SAFETY: the caller upholds the contract above: `p` is NULL or points to `n` valid infos.
        unsafe {
            if p.is_null() || n == 0 {
                return Ok(Vec::new());
            }
            (0..n).map(|i| Info::copy_of(&*p.add(i))).collect()
        }
    }
    pub fn key(&self) -> &str {
        let n = cmem::bounded_len(&self.0.key);
        // SAFETY: bytes of the key array up to its NUL.
        let b = unsafe { core::slice::from_raw_parts(self.0.key.as_ptr() as *const u8, n) };
        core::str::from_utf8(b).unwrap_or("")
    }
    pub fn is(&self, key: &core::ffi::CStr) -> bool {
        self.key().as_bytes() == key.to_bytes()
    }
    pub fn value(&self) -> Value {
        // SAFETY: self holds a valid value.
        unsafe { Value::copy_of(&self.0.value).expect("out of memory copying a value") }
    }
    pub fn value_ref(&self) -> &pmix_value_t {
        &self.0.value
    }
    pub fn truthy(&self) -> bool {
        // SAFETY: a bitwise view used only for reading, never dropped.
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.truthy()
    }
    pub fn as_u32(&self) -> Option<u32> {
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.as_u32()
    }
    pub fn as_i32(&self) -> Option<i32> {
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.as_i32()
    }
    pub fn as_u64(&self) -> Option<u64> {
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.as_u64()
    }
    pub fn as_str(&self) -> Option<String> {
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.as_str()
    }
    pub fn ranks_named(&self, nspace: &str) -> RanksNamed {
        let v = core::mem::ManuallyDrop::new(Value(self.0.value));
        v.ranks_named(nspace)
    }
}

/// What `Value::ranks_named` finds.
#[derive(Debug, PartialEq, Eq)]
pub enum RanksNamed {
    All,
    These(Vec<pmix_rank_t>),
}

impl Clone for Info {
    fn clone(&self) -> Info {
        // SAFETY: self holds a valid info.
        unsafe { Info::copy_of(&self.0).expect("out of memory copying an info") }
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: we own the value.
        unsafe { value::destruct(&mut self.0.value) }
    }
}

/// Find a directive by key.
/// The infos inside a PMIX_DATA_ARRAY of PMIX_INFO (empty for anything else).
pub fn infos_of_array(i: &Info) -> Vec<Info> {
    let v = i.value_ref();
    if v.r#type != PMIX_DATA_ARRAY {
        return Vec::new();
    }
    // SAFETY: a PMIX_DATA_ARRAY value holds NULL or a data array pointer.
    unsafe {
        let d = v.data.darray;
        if d.is_null() || (*d).r#type != PMIX_INFO || (*d).array.is_null() {
            return Vec::new();
        }
        Info::copy_array((*d).array as *const pmix_info_t, (*d).size).unwrap_or_default()
    }
}

/// Procs in a value holding a proc or a data array of procs.
pub fn procs_of_value(v: &pmix_value_t) -> Vec<Proc> {
    // SAFETY: union fields read per the type tag.
    unsafe {
        match v.r#type {
            PMIX_PROC if !v.data.proc.is_null() => vec![Proc::from_c(&*v.data.proc)],
            PMIX_DATA_ARRAY if !v.data.darray.is_null() && (*v.data.darray).r#type == PMIX_PROC => {
                procs_of((*v.data.darray).array as *const pmix_proc_t, (*v.data.darray).size)
            }
            _ => Vec::new(),
        }
    }
}

pub fn find<'a>(infos: &'a [Info], key: &core::ffi::CStr) -> Option<&'a Info> {
    infos.iter().find(|i| i.is(key))
}

/// Encode a list of infos: `u32 n` + elements.
pub fn encode_infos(e: &mut Encoder, infos: &[Info]) -> Res {
    e.u32(u32::try_from(infos.len()).map_err(|_| PMIX_ERR_BAD_PARAM)?);
    for i in infos {
        // SAFETY: each info is valid.
        unsafe { e.elem(Kind::Info, &i.0 as *const pmix_info_t as *const u8, 0)? };
    }
    Ok(())
}

pub fn decode_infos(d: &mut Decoder<'_>) -> Res<Vec<Info>> {
    let n = d.u32()? as usize;
    if n > d.remaining() {
        return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    }
    // (grows as infos decode: the count is the peer's word)
    let mut out = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        // SAFETY: zeroed storage decoded in place; ownership passes to Info.
        unsafe {
            let mut i: pmix_info_t = core::mem::zeroed();
            d.elem(Kind::Info, &mut i as *mut pmix_info_t as *mut u8, 0)?;
            out.push(Info(i));
        }
    }
    Ok(out)
}

pub fn encode_value(e: &mut Encoder, v: &Value) -> Res {
    // SAFETY: v is valid.
    unsafe { e.elem(Kind::Value, &v.0 as *const pmix_value_t as *const u8, 0) }
}

pub fn decode_value(d: &mut Decoder<'_>) -> Res<Value> {
    // SAFETY: zeroed storage decoded in place.
    unsafe {
        let mut v: pmix_value_t = core::mem::zeroed();
        d.elem(Kind::Value, &mut v as *mut pmix_value_t as *mut u8, 0)?;
        Ok(Value(v))
    }
}

pub fn encode_str(e: &mut Encoder, s: &str) {
    e.u32(s.len() as u32 + 1);
    e.raw(s.as_bytes());
}

pub fn decode_str(d: &mut Decoder<'_>) -> Res<String> {
    let b = d.str_bytes()?.ok_or(PMIX_ERR_UNPACK_FAILURE)?;
    String::from_utf8(b.to_vec()).map_err(|_| PMIX_ERR_UNPACK_FAILURE)
}

pub fn encode_procs(e: &mut Encoder, procs: &[Proc]) {
    e.u32(procs.len() as u32);
    for p in procs {
        p.encode(e);
    }
}

pub fn decode_procs(d: &mut Decoder<'_>) -> Res<Vec<Proc>> {
    let n = d.u32()? as usize;
    if n > d.remaining() {
        return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    }
    (0..n).map(|_| Proc::decode(d)).collect()
}

/// Procs of a C array (NULL/0 gives none).
///
/// # Safety
/// `p` is NULL or points to `n` procs.
pub unsafe fn procs_of(p: *const pmix_proc_t, n: usize) -> Vec<Proc> {
    // SAFETY: the caller upholds the contract above: `p` is NULL or points to `n` procs.
    unsafe {
        if p.is_null() {
            return Vec::new();
        }
        (0..n).map(|i| Proc::from_c(&*p.add(i))).collect()
    }
}

/// Procs of a caller's C array (NULL gives none), refusing a count that no
/// memory could hold (PMIX_ERR_BAD_PARAM) instead of aborting on it.
///
/// # Safety
/// `p` is NULL or points to `n` procs.
pub unsafe fn try_procs_of(p: *const pmix_proc_t, n: usize) -> Res<Vec<Proc>> {
    if p.is_null() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    if out.try_reserve_exact(n).is_err() {
        crate::pmix_debug!(1, "a list of {n} procs: more than memory holds; refused");
        return Err(PMIX_ERR_BAD_PARAM);
    }
    for i in 0..n {
        // SAFETY: index below `n` (the contract above).
        out.push(Proc::from_c(unsafe { &*p.add(i) }));
    }
    Ok(out)
}

/// A malloc'd C array of copies of `infos` (what the PMIx macros free).
pub fn infos_to_c(infos: &[Info]) -> (*mut pmix_info_t, usize) {
    if infos.is_empty() {
        return (core::ptr::null_mut(), 0);
    }
    let p = cmem::calloc_array(infos.len(), core::mem::size_of::<pmix_info_t>()) as *mut pmix_info_t;
    if p.is_null() {
        return (p, 0);
    }
    for (k, i) in infos.iter().enumerate() {
        // SAFETY: p has room for infos.len() zeroed infos.
        unsafe {
            let _ = data::info_xfer(&mut *p.add(k), &i.0);
        }
    }
    (p, infos.len())
}

/// Free what `infos_to_c` made.
///
/// # Safety
/// `p`/`n` came from `infos_to_c`.
pub unsafe fn free_c_infos(p: *mut pmix_info_t, n: usize) {
    // SAFETY: the caller upholds the contract above: `p`/`n` came from `infos_to_c`.
    unsafe {
        crate::data::elem::free_array(Kind::Info, p as *mut u8, n);
    }
}

/// A NUL-terminated copy of a Rust string, for handing to C callbacks.
pub fn c_string(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s.replace('\0', "")).unwrap()
}

/// Key of a C string argument, bounded to PMIX_MAX_KEYLEN.
///
/// # Safety
/// `k` is NULL or a string readable up to its NUL or PMIX_MAX_KEYLEN+1 bytes.
pub unsafe fn key_of(k: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above: `k` is NULL or a string readable up to its NUL or PMIX_MAX_KEYLEN+1 bytes.
    unsafe {
        let b = cmem::bounded_cstr(k, PMIX_MAX_KEYLEN + 1)?;
        if b.len() > PMIX_MAX_KEYLEN {
            return None;
        }
        Some(String::from_utf8_lossy(b).into_owned())
    }
}

/// A namespace argument: None for NULL, an unterminated or over-long name
/// (longer than PMIX_MAX_NSLEN); never reads past PMIX_MAX_NSLEN+1 bytes.
///
/// # Safety
/// `ns` is NULL or a string readable up to its NUL or PMIX_MAX_NSLEN+1 bytes.
pub unsafe fn nspace_of(ns: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above.
    let b = unsafe { cmem::bounded_cstr(ns, PMIX_MAX_NSLEN + 1) }?;
    if b.len() > PMIX_MAX_NSLEN {
        return None;
    }
    Some(String::from_utf8_lossy(b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nspace_names_are_bounded() {
        let long = [b'n' as c_char; 600]; // no NUL anywhere
        let mut ok = [0 as c_char; PMIX_MAX_NSLEN + 1];
        ok[..PMIX_MAX_NSLEN].fill(b'n' as c_char);
        // SAFETY: readable arrays; the bound stops inside them.
        unsafe {
            assert_eq!(nspace_of(long.as_ptr()), None);
            assert_eq!(nspace_of(ok.as_ptr()).map(|s| s.len()), Some(PMIX_MAX_NSLEN));
            assert_eq!(nspace_of(core::ptr::null()), None);
        }
    }

    /// A peer's count is not an allocation size: 60 M infos declared in a
    /// 60 MB body (33 GB if allocated up front) decode to an error, with
    /// memory that grows only with what decodes.
    #[test]
    fn a_huge_declared_count_allocates_nothing_up_front() {
        let n: u32 = 60_000_000;
        let mut body = n.to_le_bytes().to_vec();
        body.resize(4 + n as usize, 0xff);
        let r = decode_infos(&mut Decoder::new(&body));
        assert!(r.is_err(), "garbage infos must not decode");
        // The same through the generic array decoder (Data_unpack, spawn apps).
        let mut d = Decoder::new(&body[4..]);
        // SAFETY: a new allocation of ours (none, on error).
        let r = unsafe { d.elems(Kind::Info, n as usize, 0) };
        assert!(r.is_err());
    }

    /// A stop directive's ranks, each form it takes (client and launcher
    /// both read it through this).
    #[test]
    fn ranks_named_reads_flags_ranks_and_procs() {
        use super::RanksNamed::{All, These};
        assert_eq!(Value::boolean(true).ranks_named("ns"), All);
        assert_eq!(Value::boolean(false).ranks_named("ns"), These(vec![]));
        assert_eq!(Value::rank(3).ranks_named("ns"), These(vec![3]));
        assert_eq!(Value::rank(PMIX_RANK_WILDCARD).ranks_named("ns"), All);
        let procs = [Proc::new("ns", 1), Proc::new("other", 2), Proc::new("", 4)];
        assert_eq!(Value::procs(&procs).ranks_named("ns"), These(vec![1, 4]));
        assert_eq!(Value::procs(&[Proc::wildcard("ns")]).ranks_named("ns"), All);
        assert_eq!(Value::procs(&[Proc::wildcard("other")]).ranks_named("ns"), These(vec![]));
        assert_eq!(Value::string("x").ranks_named("ns"), All);
    }
}
