//! OpenPMIx's client <-> server protocol ("ptl"), as OpenPMIx 4.2 speaks it
//! over loopback TCP (docs/openpmix-ptl-protocol.md): its contact strings,
//! its connect message, its command codes and the message bodies, which
//! are sequences of v41 pack calls (`data::v41`). Both roles use this
//! vocabulary; what a role does with a message lives in the role.
//!
//! The framing (four big-endian u32s) is `runtime::Framing::Ptl`.

use std::net::{Ipv4Addr, SocketAddr};

use crate::abi::*;
use crate::data::v41;
use crate::owned::{Info, Proc, Value};
use crate::status::Res;

/// Command codes (`pmix_cmd_t`), the first pack call of every request.
/// The OpenPMIx version whose protocol rpmix speaks, as its server gives
/// it to OpenPMIx clients (PMIX_VERSION: they choose compatibility
/// branches by the server's version).
pub const SPOKEN_VERSION: &str = "4.2.2";

pub mod cmd {
    pub const REQ: u8 = 0;
    pub const ABORT: u8 = 1;
    pub const COMMIT: u8 = 2;
    pub const FENCENB: u8 = 3;
    pub const GETNB: u8 = 4;
    pub const FINALIZE: u8 = 5;
    pub const PUBLISHNB: u8 = 6;
    pub const LOOKUPNB: u8 = 7;
    pub const UNPUBLISHNB: u8 = 8;
    pub const SPAWNNB: u8 = 9;
    pub const CONNECTNB: u8 = 10;
    pub const DISCONNECTNB: u8 = 11;
    pub const NOTIFY: u8 = 12;
    pub const REGEVENTS: u8 = 13;
    pub const DEREGEVENTS: u8 = 14;
    pub const QUERY: u8 = 15;
    pub const LOG: u8 = 16;
    pub const ALLOC: u8 = 17;
    pub const JOB_CONTROL: u8 = 18;
    pub const MONITOR: u8 = 19;
    pub const GET_CREDENTIAL: u8 = 20;
    pub const VALIDATE_CRED: u8 = 21;
    pub const IOF_PULL: u8 = 22;
    pub const IOF_PUSH: u8 = 23;
    pub const GROUP_CONSTRUCT: u8 = 24;
    pub const GROUP_DESTRUCT: u8 = 28;
    pub const IOF_DEREG: u8 = 29;
}

/// Tags below this one are the server's unsolicited messages; a request's
/// tag (and so its reply's) is at least this.
pub const FIRST_REQUEST_TAG: u32 = 100;
/// Server -> client: an event.
pub const TAG_NOTIFY: u32 = 0;
/// Client -> server: a heartbeat (no body, no reply).
pub const TAG_HEARTBEAT: u32 = 1;
/// Server -> client: forwarded output.
pub const TAG_IOF: u32 = 2;

/// The connect message's flag for a launched client.
pub const SIMPLE_CLIENT: u8 = 0;
/// A tool that needs the server to give it a name.
pub const TOOL_NEEDS_ID: u8 = 3;
/// A tool that brings its own name.
pub const TOOL_GIVEN_ID: u8 = 4;
/// The fixed size of a name in a tool's connect answer (PMIX_MAX_NSLEN + 1).
pub const NSPACE_FIELD: usize = 256;

/// The server's answer to a tool's connect message (14.4): the name it
/// gave the tool (when the tool asked for one) and its own name.
#[derive(Debug, PartialEq, Eq)]
pub struct ToolWelcome {
    pub assigned: Option<Proc>,
    pub server: Proc,
}

/// How many bytes the answer to a tool's connect message has, after the
/// first status.
pub fn tool_welcome_len(needs_id: bool) -> usize {
    let name = NSPACE_FIELD + 4;
    if needs_id { 2 * name + 4 } else { name + 4 }
}

/// Read the answer to a tool's connect message, the first status already
/// taken: Err(status) when the server refused the credential.
pub fn tool_welcome(b: &[u8], needs_id: bool) -> Result<ToolWelcome, pmix_status_t> {
    if b.len() != tool_welcome_len(needs_id) {
        return Err(PMIX_ERR_UNPACK_FAILURE);
    }
    let name_at = |at: usize| -> Result<Proc, pmix_status_t> {
        let field = &b[at..at + NSPACE_FIELD];
        let ns = &field[..field.iter().position(|&c| c == 0).ok_or(PMIX_ERR_UNPACK_FAILURE)?];
        let ns = std::str::from_utf8(ns).map_err(|_| PMIX_ERR_UNPACK_FAILURE)?;
        let rank = u32::from_be_bytes(b[at + NSPACE_FIELD..at + NSPACE_FIELD + 4].try_into().unwrap());
        Ok(Proc::new(ns, rank))
    };
    // (the assigned name, when asked for, comes first)
    let (assigned, server_at) = if needs_id { (Some(name_at(0)?), NSPACE_FIELD + 4) } else { (None, 0) };
    let server = name_at(server_at)?;
    let st = i32::from_be_bytes(b[b.len() - 4..].try_into().unwrap());
    if st != PMIX_SUCCESS {
        return Err(st);
    }
    Ok(ToolWelcome { assigned, server })
}
/// The largest connect message an OpenPMIx server reads.
pub const MAX_CONNECT: usize = 131_072;

/// The contact variables an OpenPMIx server sets, newest generation first,
/// with the serialisation each one stands for. rpmix speaks v41 only.
pub const URI_GENERATIONS: [(&str, &str); 5] = [
    ("PMIX_SERVER_URI41", "v41"),
    ("PMIX_SERVER_URI4", "v4"),
    ("PMIX_SERVER_URI3", "v3"),
    ("PMIX_SERVER_URI21", "v21"),
    ("PMIX_SERVER_URI2", "v20"),
];

/// What an OpenPMIx contact string names: `<nspace>.<rank>;tcp4://<ip>:<port>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contact {
    pub server: Proc,
    pub addr: SocketAddr,
}

/// Parse an OpenPMIx contact (None: not one; IPv6 contacts are `tcp6://`,
/// which OpenPMIx servers do not offer by default, and are read too).
pub fn parse_contact(uri: &str) -> Option<Contact> {
    let (who, addr) = uri.split_once(';')?;
    let (ns, rank) = who.rsplit_once('.')?;
    let server = Proc::new(ns, rank.parse().ok()?);
    let addr = if let Some(a) = addr.strip_prefix("tcp4://") {
        let (ip, port) = a.rsplit_once(':')?;
        SocketAddr::new(ip.parse::<Ipv4Addr>().ok()?.into(), port.parse().ok()?)
    } else if let Some(a) = addr.strip_prefix("tcp6://") {
        let (ip, port) = a.rsplit_once(':')?;
        let ip = ip.trim_start_matches('[').trim_end_matches(']');
        SocketAddr::new(ip.parse::<std::net::Ipv6Addr>().ok()?.into(), port.parse().ok()?)
    } else {
        return None;
    };
    Some(Contact { server, addr })
}

/// The connect message of a launched client (its header included): the
/// "native" credential (effective uid and gid, in host order, as OpenPMIx
/// compares them raw), the name, the version, the v41 serialisation, the
/// buffer form and the "hash" data store (job data in the connect reply;
/// the shared-memory stores are OpenPMIx's own).
pub fn connect_message(me: &Proc, version: &str, described: bool) -> Vec<u8> {
    let mut body = Vec::with_capacity(64 + me.nspace.len());
    native_credential(&mut body);
    body.push(SIMPLE_CLIENT);
    name(&mut body, me);
    serialisation(&mut body, version, described);
    with_header(body)
}

/// The connect message of a tool (docs/openpmix-ptl-commands.md, 14.2):
/// the credential, the flag saying whether it brings a name (`given`) or
/// needs one, the effective uid and gid again (network order), the
/// serialisation, and the tool's infos (its pid among them) as one counted
/// info array. (A tool launched by the server, flag 5, is not spoken.)
pub fn tool_connect_message(given: Option<&Proc>, version: &str, described: bool, infos: &[Info]) -> Res<Vec<u8>> {
    let mut body = Vec::with_capacity(256);
    native_credential(&mut body);
    body.push(if given.is_some() { TOOL_GIVEN_ID } else { TOOL_NEEDS_ID });
    let (uid, gid) = ids();
    body.extend_from_slice(&uid.to_be_bytes());
    body.extend_from_slice(&gid.to_be_bytes());
    if let Some(p) = given {
        name(&mut body, p);
    }
    serialisation(&mut body, version, described);
    let mut blob = Msg::plain(described);
    blob.infos(infos)?;
    body.extend_from_slice(blob.bytes());
    Ok(with_header(body))
}

/// This process's effective uid and gid.
fn ids() -> (u32, u32) {
    // SAFETY: geteuid/getegid cannot fail.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// The "native" credential: the effective uid and gid in host order (the
/// server compares them raw with the ones it registered).
fn native_credential(body: &mut Vec<u8>) {
    let (uid, gid) = ids();
    body.extend_from_slice(b"native\0");
    body.extend_from_slice(&8u32.to_be_bytes());
    body.extend_from_slice(&uid.to_ne_bytes());
    body.extend_from_slice(&gid.to_ne_bytes());
}

fn name(body: &mut Vec<u8>, p: &Proc) {
    body.extend_from_slice(p.nspace.as_bytes());
    body.push(0);
    body.extend_from_slice(&p.rank.to_be_bytes());
}

/// The version, the v41 serialisation, the buffer form, the "hash" store.
fn serialisation(body: &mut Vec<u8>, version: &str, described: bool) {
    body.extend_from_slice(version.as_bytes());
    body.push(0);
    body.extend_from_slice(b"v41\0");
    body.push(if described { 2 } else { 1 });
    body.extend_from_slice(b"hash\0");
}

/// A connect message's header before its body.
fn with_header(body: Vec<u8>) -> Vec<u8> {
    // The header: index and tag unused (-1), the length in host order (the
    // server reads it raw), then the padding.
    let mut m = Vec::with_capacity(16 + body.len());
    m.extend_from_slice(&u32::MAX.to_be_bytes());
    m.extend_from_slice(&u32::MAX.to_be_bytes());
    m.extend_from_slice(&(body.len() as u32).to_ne_bytes());
    m.extend_from_slice(&0u32.to_ne_bytes());
    m.extend_from_slice(&body);
    m
}

/// The largest connect message body a server reads (OpenPMIx's limit).
pub const MAX_CONNECT_BODY: usize = 131072;

/// A connect message as a server reads it (`parse_connect`).
#[derive(Debug, PartialEq, Eq)]
pub struct Connect {
    /// The security module named ("native" is the only one spoken).
    pub psec: String,
    /// The uid and gid the peer claims (native credential, host order).
    pub claimed: Option<(u32, u32)>,
    pub flag: u8,
    /// The peer's name (clients, and tools that bring one).
    pub name: Option<Proc>,
    pub version: String,
    pub bfrops: String,
    /// Buffer form: 1 plain, 2 fully described.
    pub buffer_type: u8,
    pub gds: String,
}

/// The body of a connect message (the 16-byte header already read, its
/// length checked against MAX_CONNECT_BODY). Every field is bounded by the
/// body; anything malformed is an error.
pub fn parse_connect(body: &[u8]) -> Res<Connect> {
    let bad = PMIX_ERR_BAD_PARAM;
    let mut at = 0usize;
    let cstr = |at: &mut usize| -> Res<String> {
        let rest = body.get(*at..).ok_or(bad)?;
        let end = rest.iter().position(|b| *b == 0).ok_or(bad)?;
        *at += end + 1;
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    };
    let be32 = |at: &mut usize| -> Res<u32> {
        let b = body.get(*at..*at + 4).ok_or(bad)?;
        *at += 4;
        Ok(u32::from_be_bytes(b.try_into().unwrap()))
    };
    let psec = cstr(&mut at)?;
    let credlen = be32(&mut at)? as usize;
    let cred = body.get(at..at.checked_add(credlen).ok_or(bad)?).ok_or(bad)?;
    at += credlen;
    let claimed = (psec == "native" && cred.len() >= 8)
        .then(|| (u32::from_ne_bytes(cred[..4].try_into().unwrap()), u32::from_ne_bytes(cred[4..8].try_into().unwrap())));
    let flag = *body.get(at).ok_or(bad)?;
    at += 1;
    let name = match flag {
        SIMPLE_CLIENT => {
            let ns = cstr(&mut at)?;
            Some(Proc::new(&ns, be32(&mut at)?))
        }
        TOOL_NEEDS_ID => {
            be32(&mut at)?;
            be32(&mut at)?;
            None
        }
        TOOL_GIVEN_ID => {
            be32(&mut at)?;
            be32(&mut at)?;
            let ns = cstr(&mut at)?;
            Some(Proc::new(&ns, be32(&mut at)?))
        }
        _ => return Err(PMIX_ERR_NOT_SUPPORTED),
    };
    let version = cstr(&mut at)?;
    let bfrops = cstr(&mut at)?;
    let buffer_type = *body.get(at).ok_or(bad)?;
    at += 1;
    let gds = cstr(&mut at)?;
    Ok(Connect { psec, claimed, flag, name, version, bfrops, buffer_type, gds })
}

/// A message body being built: one v41 pack call per item.
pub struct Msg {
    e: v41::Encoder,
    described: bool,
}

impl Msg {
    /// A request of command `c`.
    pub fn request(c: u8, described: bool) -> Msg {
        let mut m = Msg::plain(described);
        m.byte_of(PMIX_COMMAND, c);
        m
    }

    /// A body of plain pack calls (a reply, or what a buffer or byte object holds).
    pub fn plain(described: bool) -> Msg {
        Msg { e: v41::Encoder::default(), described }
    }

    pub fn bytes(&self) -> &[u8] {
        self.e.bytes()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.e.bytes().to_vec()
    }

    /// One element of a C type `t` whose value is `x`.
    fn one<T>(&mut self, t: pmix_data_type_t, x: &T) -> Res {
        // SAFETY: `x` is one valid element of type `t` (each caller pairs them).
        unsafe { self.e.items(t, x as *const T as *const u8, 1, self.described) }
    }

    fn byte_of(&mut self, t: pmix_data_type_t, b: u8) {
        // (a byte-sized type cannot fail to pack)
        let _ = self.one(t, &b);
    }

    pub fn scope(&mut self, s: pmix_scope_t) {
        self.byte_of(PMIX_SCOPE, s);
    }

    pub fn range(&mut self, r: pmix_data_range_t) {
        self.byte_of(PMIX_DATA_RANGE, r);
    }

    pub fn boolean(&mut self, b: bool) {
        self.byte_of(PMIX_BOOL, b as u8);
    }

    pub fn status(&mut self, st: pmix_status_t) {
        let _ = self.one(PMIX_STATUS, &st);
    }

    pub fn alloc_directive(&mut self, d: pmix_alloc_directive_t) {
        self.byte_of(PMIX_ALLOC_DIRECTIVE, d);
    }

    pub fn time(&mut self, t: libc::time_t) {
        let _ = self.one(PMIX_TIME, &t);
    }

    pub fn int(&mut self, x: i32) {
        let _ = self.one(PMIX_INT, &x);
    }

    pub fn u16(&mut self, x: u16) {
        let _ = self.one(PMIX_UINT16, &x);
    }

    pub fn u32(&mut self, x: u32) {
        let _ = self.one(PMIX_UINT32, &x);
    }

    pub fn channel(&mut self, c: pmix_iof_channel_t) {
        let _ = self.one(PMIX_IOF_CHANNEL, &c);
    }

    pub fn rank(&mut self, r: pmix_rank_t) {
        let _ = self.one(PMIX_PROC_RANK, &r);
    }

    pub fn size(&mut self, n: usize) {
        let _ = self.one(PMIX_SIZE, &n);
    }

    /// A string (None: a NULL string).
    pub fn string(&mut self, s: Option<&str>) -> Res {
        let c = s.map(crate::owned::c_string);
        let p: *const core::ffi::c_char = c.as_ref().map_or(core::ptr::null(), |c| c.as_ptr());
        self.one(PMIX_STRING, &p)
    }

    pub fn proc(&mut self, p: &Proc) {
        let _ = self.one(PMIX_PROC, &p.to_c());
    }

    /// A count (SIZE), then the procs as one pack call when there are any.
    pub fn procs(&mut self, procs: &[Proc]) -> Res {
        self.size(procs.len());
        if procs.is_empty() {
            return Ok(());
        }
        let c: Vec<pmix_proc_t> = procs.iter().map(Proc::to_c).collect();
        // SAFETY: `c` holds procs.len() valid procs.
        unsafe { self.e.items(PMIX_PROC, c.as_ptr() as *const u8, c.len(), self.described) }
    }

    /// Publications (proc, key and value) as one pack call (none: nothing).
    pub fn pdata(&mut self, found: &[(Proc, Info)]) -> Res {
        if found.is_empty() {
            return Ok(());
        }
        let c: Vec<pmix_pdata_t> = found
            .iter()
            .map(|(p, i)| {
                // SAFETY: a plain C struct, all zero is valid; the value is a
                // bitwise view of the info's (read by the encoder, never freed).
                let mut d: pmix_pdata_t = unsafe { core::mem::zeroed() };
                d.proc = p.to_c();
                crate::cmem::load_fixed(&mut d.key, i.key().as_bytes());
                // SAFETY: see above: the copy is only read.
                d.value = unsafe { core::ptr::read(i.value_ref()) };
                d
            })
            .collect();
        // SAFETY: `c` holds found.len() valid publications.
        unsafe { self.e.items(PMIX_PDATA, c.as_ptr() as *const u8, c.len(), self.described) }
    }

    /// The infos as one pack call (none: nothing at all).
    pub fn info_array(&mut self, infos: &[Info]) -> Res {
        if infos.is_empty() {
            return Ok(());
        }
        // SAFETY: Info is a transparent pmix_info_t; the slice holds infos.len() of them.
        unsafe { self.e.items(PMIX_INFO, infos.as_ptr() as *const u8, infos.len(), self.described) }
    }

    /// A count (SIZE), then the infos as one pack call when there are any.
    pub fn infos(&mut self, infos: &[Info]) -> Res {
        self.size(infos.len());
        self.info_array(infos)
    }

    /// A key and its value (one kval pack call).
    pub fn kval(&mut self, key: &str, v: &pmix_value_t) -> Res {
        self.e.one_kval(key, v, self.described)
    }

    /// A nested message carried as one internal buffer.
    pub fn buffer(&mut self, inner: &Msg) -> Res {
        let t = if self.described { 2 } else { 1 };
        self.e.one_buffer(t, inner.bytes(), self.described)
    }

    /// A byte object.
    pub fn byte_object(&mut self, bytes: &[u8]) -> Res {
        let bo = pmix_byte_object_t { bytes: bytes.as_ptr() as *mut core::ffi::c_char, size: bytes.len() };
        self.one(PMIX_BYTE_OBJECT, &bo)
    }

    /// Elements already packed elsewhere (the caller's own pack calls).
    ///
    /// # Safety
    /// `src` points to `n` valid elements of type `t`.
    pub unsafe fn items(&mut self, t: pmix_data_type_t, src: *const u8, n: usize) -> Res {
        // SAFETY: the caller's contract.
        unsafe { self.e.items(t, src, n, self.described) }
    }
}

/// A message body being read: one v41 pack call per item, every count
/// checked against the bytes that remain.
pub struct Reader<'a> {
    d: v41::Decoder<'a>,
    described: bool,
}

impl<'a> Reader<'a> {
    pub fn new(body: &'a [u8], described: bool) -> Reader<'a> {
        Reader { d: v41::Decoder::new(body), described }
    }

    pub fn at_end(&self) -> bool {
        self.d.at_end()
    }

    /// Whether items are read in the fully described form.
    pub fn is_described(&self) -> bool {
        self.described
    }

    /// A fully described reader whose remaining bytes are in the plain form
    /// goes on in that form. An OpenPMIx 4.2 server answers a Get it had to
    /// hold (the data came later) with a plain payload after a described
    /// status. The two cannot be confused: a described item begins with the
    /// INT32 tag (9), a plain one with a zigzag count, which is even.
    pub fn follow_form_of_rest(&mut self) {
        if self.described && self.d.rest().first().is_some_and(|b| b % 2 == 0) {
            crate::pmix_debug!(5, "client: the rest of a described answer is in the plain form; reading it so");
            self.described = false;
        }
    }

    /// One pack call of exactly one element of type `t`, decoded into `T`.
    fn one<T>(&mut self, t: pmix_data_type_t) -> Res<T> {
        if self.d.header(self.described, t)? != 1 {
            return Err(PMIX_ERR_UNPACK_FAILURE);
        }
        // SAFETY: a zeroed T of `t`'s C type, filled by the decoder; the
        // types read here own no memory.
        unsafe {
            let mut x: T = core::mem::zeroed();
            self.d.elem(t, &mut x as *mut T as *mut u8, 0)?;
            Ok(x)
        }
    }

    pub fn command(&mut self) -> Res<u8> {
        self.one(PMIX_COMMAND)
    }

    pub fn status(&mut self) -> Res<pmix_status_t> {
        self.one(PMIX_STATUS)
    }

    pub fn size(&mut self) -> Res<usize> {
        self.one(PMIX_SIZE)
    }

    pub fn rank(&mut self) -> Res<pmix_rank_t> {
        self.one(PMIX_PROC_RANK)
    }

    pub fn u32(&mut self) -> Res<u32> {
        self.one(PMIX_UINT32)
    }

    pub fn time(&mut self) -> Res<libc::time_t> {
        self.one(PMIX_TIME)
    }

    /// `n` statuses as one pack call (none when n is 0).
    pub fn statuses(&mut self, n: usize) -> Res<Vec<pmix_status_t>> {
        self.array(PMIX_STATUS, n, |s: pmix_status_t| s)
    }

    /// `n` structs of C type `t` (queries, apps) as one pack call, into an
    /// array that owns them (what was decoded before an error is freed).
    pub fn c_array(&mut self, kind: crate::data::kind::Kind, t: pmix_data_type_t, n: usize) -> Res<crate::data::carray::CArray> {
        use crate::data::carray::CArray;
        if n == 0 {
            return Ok(CArray::empty(kind));
        }
        // (each element takes at least a byte: a count beyond the rest is a lie)
        if n > self.d.rest().len() || self.d.header(self.described, t)? != n {
            return Err(PMIX_ERR_UNPACK_FAILURE);
        }
        let size = kind.size();
        let ptr = crate::cmem::calloc_array(n, size) as *mut u8;
        if ptr.is_null() {
            return Err(PMIX_ERR_NOMEM);
        }
        let a = CArray { kind, ptr, len: n };
        for i in 0..n {
            // SAFETY: element i of the zeroed array of n elements of `kind`.
            unsafe { self.d.elem(t, ptr.add(i * size), 0)? };
        }
        Ok(a)
    }

    pub fn u16(&mut self) -> Res<u16> {
        self.one(PMIX_UINT16)
    }

    pub fn channel(&mut self) -> Res<pmix_iof_channel_t> {
        self.one(PMIX_IOF_CHANNEL)
    }

    pub fn int(&mut self) -> Res<i32> {
        self.one(PMIX_INT)
    }

    pub fn scope(&mut self) -> Res<pmix_scope_t> {
        self.one(PMIX_SCOPE)
    }

    pub fn range(&mut self) -> Res<pmix_data_range_t> {
        self.one(PMIX_DATA_RANGE)
    }

    pub fn alloc_directive(&mut self) -> Res<pmix_alloc_directive_t> {
        self.one(PMIX_ALLOC_DIRECTIVE)
    }

    pub fn proc(&mut self) -> Res<Proc> {
        Ok(Proc::from_c(&self.one::<pmix_proc_t>(PMIX_PROC)?))
    }

    /// One string (None: a NULL string).
    pub fn string(&mut self) -> Res<Option<String>> {
        let p: *mut core::ffi::c_char = self.one(PMIX_STRING)?;
        if p.is_null() {
            return Ok(None);
        }
        // SAFETY: a NUL-terminated string the decoder allocated; freed here.
        let s = unsafe {
            let s = core::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
            crate::cmem::free(p);
            s
        };
        Ok(Some(s))
    }

    /// `n` elements of C type `T` (type `t`) as one pack call (none when n
    /// is 0), each handed to `own` as soon as it is decoded (so what was
    /// decoded before an error is freed by its owner).
    fn array<T, U>(&mut self, t: pmix_data_type_t, n: usize, own: impl Fn(T) -> U) -> Res<Vec<U>> {
        let mut out = Vec::new();
        if n == 0 {
            return Ok(out);
        }
        if self.d.header(self.described, t)? != n {
            return Err(PMIX_ERR_UNPACK_FAILURE);
        }
        for _ in 0..n {
            // SAFETY: a zeroed T of `t`'s C type (each caller pairs them), filled by the decoder.
            let x = unsafe {
                let mut x: T = core::mem::zeroed();
                self.d.elem(t, &mut x as *mut T as *mut u8, 0)?;
                x
            };
            out.push(own(x));
        }
        Ok(out)
    }

    /// `n` procs as one pack call (none when n is 0).
    pub fn procs(&mut self, n: usize) -> Res<Vec<Proc>> {
        self.array(PMIX_PROC, n, |p: pmix_proc_t| Proc::from_c(&p))
    }

    /// `n` infos as one pack call (none when n is 0).
    pub fn info_array(&mut self, n: usize) -> Res<Vec<Info>> {
        self.array(PMIX_INFO, n, Info)
    }

    /// `n` publications (proc, key, value) as one pack call (none when n is 0).
    pub fn pdata_array(&mut self, n: usize) -> Res<Vec<(Proc, Info)>> {
        self.array(PMIX_PDATA, n, |p: pmix_pdata_t| {
            let len = crate::cmem::bounded_len(&p.key);
            // SAFETY: the key's bytes up to its NUL.
            let key = unsafe { core::slice::from_raw_parts(p.key.as_ptr() as *const u8, len) };
            (Proc::from_c(&p.proc), Info::new(&String::from_utf8_lossy(key), Value(p.value)))
        })
    }

    /// A count (SIZE), then that many infos.
    pub fn infos(&mut self) -> Res<Vec<Info>> {
        let n = self.size()?;
        self.info_array(n)
    }

    /// One kval pack call, as an info.
    pub fn kval(&mut self) -> Res<Info> {
        if self.d.header(self.described, PMIX_KVAL)? != 1 {
            return Err(PMIX_ERR_UNPACK_FAILURE);
        }
        let (key, v) = self.d.kval()?;
        Ok(Info::new(&key, Value(v)))
    }

    /// Kval pack calls up to the end of the body (how OpenPMIx sends a
    /// proc's or a job's data).
    pub fn kvals_to_end(&mut self) -> Res<Vec<Info>> {
        let mut out = Vec::new();
        while !self.at_end() {
            out.push(self.kval()?);
        }
        Ok(out)
    }

    /// One byte object's bytes.
    pub fn byte_object(&mut self) -> Res<Vec<u8>> {
        let bo: pmix_byte_object_t = self.one(PMIX_BYTE_OBJECT)?;
        // SAFETY: bytes and size as the decoder made them; freed here.
        unsafe {
            let v = crate::data::value::bo_slice(&bo)?.to_vec();
            crate::cmem::free(bo.bytes);
            Ok(v)
        }
    }

    /// One internal buffer: its bytes.
    pub fn buffer(&mut self) -> Res<&'a [u8]> {
        if self.d.header(self.described, PMIX_BUFFER)? != 1 {
            return Err(PMIX_ERR_UNPACK_FAILURE);
        }
        Ok(self.d.buffer()?.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts() {
        let c = parse_contact("105512960.0;tcp4://127.0.0.1:38293").unwrap();
        assert_eq!(c.server, Proc::new("105512960", 0));
        assert_eq!(c.addr, "127.0.0.1:38293".parse().unwrap());
        let c = parse_contact("srv.ns.3;tcp6://[::1]:5").unwrap();
        assert_eq!((c.server.nspace.as_str(), c.server.rank), ("srv.ns", 3));
        assert_eq!(c.addr, "[::1]:5".parse().unwrap());
        assert_eq!(parse_contact("ns.0;unix:/tmp/x"), None);
        assert_eq!(parse_contact("ns.0;tcp4://localhost:5"), None, "OpenPMIx takes addresses, not names");
        assert_eq!(parse_contact("ns.x;tcp4://127.0.0.1:5"), None);
    }

    /// The connect message of rank 0 of "testns", as captured from
    /// OpenPMIx 4.2.2's client (docs/openpmix-ptl-protocol.md, 2.2), but
    /// for the credential (this process's ids) and the optional last byte.
    #[test]
    fn connect_message_as_captured() {
        let m = connect_message(&Proc::new("testns", 0), "4.2.2rc2", false);
        let body = &m[16..];
        assert_eq!(&m[..8], &[0xff; 8]);
        assert_eq!(u32::from_ne_bytes(m[8..12].try_into().unwrap()) as usize, body.len());
        assert_eq!(&body[..7], b"native\0");
        assert_eq!(&body[7..11], &[0, 0, 0, 8]);
        let rest = &body[19..];
        let want: &[u8] = b"\x00testns\x00\x00\x00\x00\x004.2.2rc2\x00v41\x00\x01hash\x00";
        assert_eq!(rest, want);
    }

    /// OpenPMIx 4.2.2's answer to a held Get under the described form: a
    /// described status, then the data in the plain form (as captured).
    #[test]
    fn described_status_then_plain_rest() {
        let mut status = Msg::plain(true);
        status.status(PMIX_SUCCESS);
        let mut inner = Msg::plain(false);
        inner.proc(&Proc::new("ns", 0));
        inner.kval("k", &Value::u32(7).0).unwrap();
        let mut rest = Msg::plain(false);
        rest.byte_object(inner.bytes()).unwrap();
        let body = [status.bytes(), rest.bytes()].concat();

        let mut r = Reader::new(&body, true);
        assert_eq!(r.status(), Ok(PMIX_SUCCESS));
        r.follow_form_of_rest();
        assert!(!r.is_described());
        let obj = r.byte_object().unwrap();
        let mut o = Reader::new(&obj, false);
        assert_eq!(o.proc().unwrap(), Proc::new("ns", 0));
        assert_eq!(o.kval().unwrap().key(), "k");
        assert!(r.at_end());

        // A described rest stays described.
        let mut rest = Msg::plain(true);
        rest.byte_object(inner.bytes()).unwrap();
        let body = [status.bytes(), rest.bytes()].concat();
        let mut r = Reader::new(&body, true);
        r.status().unwrap();
        r.follow_form_of_rest();
        assert!(r.is_described());
        assert!(r.byte_object().is_ok());
    }

    /// What a client sends, a server reads back; a truncated one is refused.
    #[test]
    fn connect_parsed_back() {
        let m = connect_message(&Proc::new("testns", 3), "4.2.2rc2", false);
        let c = parse_connect(&m[16..]).unwrap();
        assert_eq!(c.psec, "native");
        assert_eq!(c.claimed, Some(ids()));
        assert_eq!((c.flag, c.name), (SIMPLE_CLIENT, Some(Proc::new("testns", 3))));
        assert_eq!((c.version.as_str(), c.bfrops.as_str(), c.buffer_type, c.gds.as_str()), ("4.2.2rc2", "v41", 1, "hash"));
        for cut in 0..m.len() - 16 - 1 {
            assert!(parse_connect(&m[16..16 + cut]).is_err(), "cut at {cut}");
        }
        let mut huge = m[16..].to_vec();
        huge[7..11].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse_connect(&huge).is_err());
        let t = tool_connect_message(None, "4.2.2", true, &[]).unwrap();
        let c = parse_connect(&t[16..]).unwrap();
        assert_eq!((c.flag, c.name, c.buffer_type), (TOOL_NEEDS_ID, None, 2));
    }

    /// The bodies the captures show (docs/openpmix-ptl-protocol.md, 3.4-3.6).
    #[test]
    fn request_bodies_as_captured() {
        let mut m = Msg::request(cmd::FENCENB, false);
        m.procs(&[Proc::wildcard("testns")]).unwrap();
        m.infos(&[Info::new("pmix.collect", Value::boolean(true))]).unwrap();
        let mut want = vec![0x02, 0x03, 0x02, 0x01, 0x02, 0x0e];
        want.extend_from_slice(b"testns\0");
        want.extend_from_slice(&[0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02, 0x01, 0x02, 0x1a]);
        want.extend_from_slice(b"pmix.collect\0");
        want.extend_from_slice(&[0x00, 0x01, 0x01]);
        assert_eq!(m.bytes(), &want[..]);

        let mut m = Msg::request(cmd::GETNB, false);
        m.string(Some("testns")).unwrap();
        m.rank(1);
        m.infos(&[]).unwrap();
        m.string(Some("kg")).unwrap();
        let mut want = vec![0x02, 0x04, 0x02, 0x0e];
        want.extend_from_slice(b"testns\0");
        want.extend_from_slice(&[0x02, 0x01, 0x02, 0x00, 0x02, 0x06, b'k', b'g', 0]);
        assert_eq!(m.bytes(), &want[..]);

        let mut inner = Msg::plain(false);
        inner.kval("kg", &Value::string("g0").0).unwrap();
        inner.kval("kl", &Value::u32(100).0).unwrap();
        let mut m = Msg::request(cmd::COMMIT, false);
        m.scope(PMIX_LOCAL);
        m.buffer(&inner).unwrap();
        let want: &[u8] = b"\x02\x02\x02\x01\x02\x01\x11\x02\x06kg\x00\x03\x06g0\x00\x02\x06kl\x00\x0e\x64";
        assert_eq!(m.bytes(), want);
    }

    /// A tool's connect message (docs/openpmix-ptl-commands.md, 14.2) and
    /// the server's answer (14.4), read back field by field.
    #[test]
    fn tool_handshake() {
        let infos = [Info::new("pmix.ppid", Value::u32(7))];
        let m = tool_connect_message(None, "4.2.2", false, &infos).unwrap();
        let body = &m[16..];
        assert_eq!(u32::from_ne_bytes(m[8..12].try_into().unwrap()) as usize, body.len());
        assert_eq!(body[19], TOOL_NEEDS_ID);
        let (uid, gid) = ids();
        assert_eq!(&body[20..28], &[uid.to_be_bytes(), gid.to_be_bytes()].concat()[..]);
        let want: &[u8] = b"4.2.2\x00v41\x00\x01hash\x00\x02\x01";
        assert_eq!(&body[28..28 + want.len()], want, "no name follows the ids when the tool needs one");
        let m = tool_connect_message(Some(&Proc::new("t", 3)), "4.2.2", false, &infos).unwrap();
        assert_eq!(m[16 + 19], TOOL_GIVEN_ID);
        assert_eq!(&m[16 + 28..16 + 34], b"t\x00\x00\x00\x00\x03");

        let mut a = vec![0u8; tool_welcome_len(true)];
        a[..4].copy_from_slice(b"tool");
        a[256..260].copy_from_slice(&5u32.to_be_bytes());
        a[260..263].copy_from_slice(b"srv");
        a[516..520].copy_from_slice(&1u32.to_be_bytes());
        let w = tool_welcome(&a, true).unwrap();
        assert_eq!(w, ToolWelcome { assigned: Some(Proc::new("tool", 5)), server: Proc::new("srv", 1) });
        assert_eq!(tool_welcome_len(false) + 4, 268, "268 bytes with the first status (docs, 14.4)");
        assert_eq!(tool_welcome(&a[260..], false), Ok(ToolWelcome { assigned: None, server: Proc::new("srv", 1) }));
        let n = a.len();
        a[n - 4..].copy_from_slice(&(-12i32).to_be_bytes());
        assert_eq!(tool_welcome(&a, true), Err(-12), "a refused credential");
        assert!(tool_welcome(&a[..n - 1], true).is_err());
        let unterminated = vec![b'x'; tool_welcome_len(false)];
        assert!(tool_welcome(&unterminated, false).is_err());
    }

    #[test]
    fn replies_read_back() {
        // A GETNB answer: status, then one byte object holding a proc and its keys.
        let mut obj = Msg::plain(false);
        obj.proc(&Proc::new("testns", 1));
        obj.kval("kg", &Value::string("g1").0).unwrap();
        let mut m = Msg::plain(false);
        m.status(0);
        m.byte_object(obj.bytes()).unwrap();
        let mut r = Reader::new(m.bytes(), false);
        assert_eq!(r.status(), Ok(0));
        let inner = r.byte_object().unwrap();
        assert!(r.at_end());
        let mut r = Reader::new(&inner, false);
        assert_eq!(r.proc().unwrap(), Proc::new("testns", 1));
        let i = r.kval().unwrap();
        assert_eq!((i.key(), i.as_str().as_deref()), ("kg", Some("g1")));
        assert!(r.at_end());
        // Every cut of it fails cleanly.
        let b = m.bytes();
        for n in 0..b.len() {
            let mut r = Reader::new(&b[..n], false);
            let whole = r.status().is_ok() && r.byte_object().is_ok();
            assert!(!whole, "cut at {n} read whole");
        }
    }
}
