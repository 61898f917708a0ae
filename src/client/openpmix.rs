//! The client role under an OpenPMIx 4.2 server: its connect path, what
//! OpenPMIx's client does to a request before sending it, and the server's
//! answers read back.
//!
//! The client's operations (`api.rs`) build each request once, as a
//! `msg::Request`. On a connection to an OpenPMIx server the link hands it
//! here (`Dialect::prepare`): it is encoded with OpenPMIx's codec
//! (`msg::v41`), and the server's answer is read back (`Reading`) into the
//! same `msg::Reply` an rpmix server's answer gives. One module
//! holds everything that differs between the two servers; the operations
//! and their completions stay the same.
//!
//! What differs beyond the encoding (docs/openpmix-ptl-protocol.md):
//! - a fence's answer carries no data: peers' data is fetched by Get, one
//!   request per peer, and the whole of that peer's data is cached;
//! - the job data comes in the answer to a first request after the
//!   handshake, with node, session and app data in arrays;
//! - a commit is answered (the answer is dropped here);
//! - events arrive on tag 0 and forwarded output on tag 2.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::abi::*;
use crate::owned::{infos_of_array, Info, Proc, Value};
use crate::ptl::{self, cmd, Msg, Reader};
use crate::status::Res;
use crate::msg::{self, AnswerKind, Collective, GroupOp, Reply, Request};

use super::{openpmix_jobdata, Cache};

/// The version this client announces: OpenPMIx servers branch on the
/// major/minor only, and 4.2 is the generation whose protocol this speaks.
const ANNOUNCED_VERSION: &str = "4.2.2";

/// The longest wait for the server's part of the handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest answer taken during the handshake (the job data of a very
/// large job still fits; a peer declaring more is refused, not believed).
const MAX_HANDSHAKE_ANSWER: usize = 256 << 20;

/// How requests are written on one connection.
#[derive(Clone, Debug)]
pub enum Dialect {
    /// rpmix's own protocol: requests go out as built.
    Rpmix,
    /// OpenPMIx's: translated here. `described`: the fully described buffer
    /// form was negotiated; `me`: this client (named where OpenPMIx's
    /// requests need it, e.g. a fence of "my namespace"); `index`: what the
    /// server assigned us at connect (in every header we send).
    /// `server_major`: the server's OpenPMIx major version (5.0 changed
    /// what a group destruction carries).
    OpenPmix { described: bool, me: Proc, index: u32, server_major: u32 },
}

impl Dialect {
    /// How this dialect's messages are framed.
    pub fn framing(&self) -> crate::runtime::Framing {
        match self {
            Dialect::Rpmix => crate::runtime::Framing::Rpmix,
            Dialect::OpenPmix { index, .. } => crate::runtime::Framing::Ptl { index: *index },
        }
    }
}

/// The OpenPMIx contact this process was given, if its server is one: the
/// newest generation advertised. Err: only generations rpmix does not speak.
pub fn contact_from_env() -> Option<Res<(ptl::Contact, String)>> {
    let mut older = None;
    for (var, gen) in ptl::URI_GENERATIONS {
        let Ok(uri) = std::env::var(var) else { continue };
        let Some(c) = ptl::parse_contact(&uri) else { continue };
        if gen == "v41" {
            return Some(Ok((c, uri)));
        }
        older.get_or_insert((var, gen));
    }
    older.map(|(var, gen)| {
        crate::pmix_debug!(
            1,
            "PMIx_Init: the server offers only OpenPMIx's {gen} protocol ({var}); rpmix speaks v41 (OpenPMIx 4.1 and later)"
        );
        Err(PMIX_ERR_NOT_SUPPORTED)
    })
}

/// Connect to an OpenPMIx server as the launched client `me`: the
/// handshake, then the job data (stored in `cache`). Gives the stream, the
/// index the server assigned us, and whether buffers are fully described.
pub fn connect(me: &Proc, contact: &ptl::Contact, uri: &str, cache: &Cache) -> Res<(TcpStream, u32, bool)> {
    let described = crate::data::v41::described_from_env();
    let unreach = |what: &str, e: std::io::Error| {
        crate::pmix_debug!(1, "PMIx_Init: OpenPMIx server at {}: {what}: {e}", contact.addr);
        PMIX_ERR_UNREACH
    };
    let mut s = dial(contact, &unreach)?;
    s.write_all(&ptl::connect_message(me, ANNOUNCED_VERSION, described)).map_err(|e| unreach("sending the connect message", e))?;
    // The status and our index; a refusal is a close with nothing sent.
    let mut answer = [0u8; 8];
    s.read_exact(&mut answer).map_err(|e| unreach("refused the connection (unknown name, or our uid/gid is not the one registered)", e))?;
    let status = i32::from_be_bytes(answer[..4].try_into().unwrap());
    if status != PMIX_SUCCESS {
        crate::pmix_debug!(1, "PMIx_Init: the OpenPMIx server refused us ({})", crate::strings::error_name(status));
        return Err(status);
    }
    let index = u32::from_be_bytes(answer[4..].try_into().unwrap());
    let body = job_data(&mut s, index, described).map_err(|e| unreach("asking for the job data", e))?;
    store_job_data(me, &body, described, cache)?;
    remember_server(cache, me, &contact.server, uri);
    s.set_read_timeout(None).map_err(|e| unreach("socket", e))?;
    Ok((s, index, described))
}

/// A connection to the server, ready for the handshake (`unreach` logs why
/// it is not).
fn dial(contact: &ptl::Contact, unreach: &impl Fn(&str, std::io::Error) -> pmix_status_t) -> Res<TcpStream> {
    let s = TcpStream::connect_timeout(&contact.addr, HANDSHAKE_TIMEOUT).map_err(|e| unreach("cannot connect", e))?;
    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT)).map_err(|e| unreach("socket", e))?;
    let _ = s.set_nodelay(true);
    Ok(s)
}

/// Where this process is connected, as OpenPMIx's client answers it.
fn remember_server(cache: &Cache, me: &Proc, server: &Proc, uri: &str) {
    cache.put(
        me,
        vec![
            Info::new("pmix.srv.nspace", Value::string(&server.nspace)),
            Info::new("pmix.srv.rank", Value::rank(server.rank)),
            Info::new("pmix.srvr.uri", Value::string(uri)),
        ],
    );
}

/// Ask for our job data (the first request after the handshake) and read
/// its answer, dropping what the server sends before it.
fn job_data(s: &mut TcpStream, index: u32, described: bool) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let tag = ptl::FIRST_REQUEST_TAG;
    let req = Msg::request(cmd::REQ, described);
    let mut frame = Vec::with_capacity(crate::runtime::transport::PTL_HEADER + req.bytes().len());
    crate::runtime::Framing::Ptl { index }.header(tag, 0, req.bytes().len(), &mut frame);
    frame.extend_from_slice(req.bytes());
    s.write_all(&frame)?;
    loop {
        let mut hdr = [0u8; crate::runtime::transport::PTL_HEADER];
        s.read_exact(&mut hdr)?;
        let got_tag = u32::from_be_bytes(hdr[4..8].try_into().unwrap());
        let len = u32::from_be_bytes(hdr[8..12].try_into().unwrap()) as usize;
        if len > MAX_HANDSHAKE_ANSWER {
            return Err(Error::new(ErrorKind::InvalidData, format!("it declares a {len}-byte answer: refused")));
        }
        let mut body = Vec::new();
        s.take(len as u64).read_to_end(&mut body)?;
        if body.len() != len {
            return Err(ErrorKind::UnexpectedEof.into());
        }
        if got_tag == tag {
            return Ok(body);
        }
        // (an event the server replays at connect: too early to deliver)
        crate::pmix_debug!(5, "OpenPMIx server: message on tag {got_tag} before the job data: dropped");
    }
}

/// Connect to an OpenPMIx server with tool support as a tool: with the
/// name `given`, or asking the server for one. Gives the stream, our name,
/// the server's, and whether buffers are fully described.
pub fn connect_tool(contact: &ptl::Contact, uri: &str, given: Option<&Proc>, cache: &Cache) -> Res<(TcpStream, Proc, Proc, bool)> {
    let described = crate::data::v41::described_from_env();
    let unreach = |what: &str, e: std::io::Error| {
        crate::pmix_debug!(1, "PMIx_tool_init: OpenPMIx server at {}: {what}: {e}", contact.addr);
        PMIX_ERR_UNREACH
    };
    let mut s = dial(contact, &unreach)?;
    let mut infos = vec![Info::new("pmix.ppid", Value::pid(std::process::id() as libc::pid_t))];
    if let Ok(line) = std::fs::read("/proc/self/cmdline") {
        let words: Vec<String> = line.split(|&b| b == 0).filter(|w| !w.is_empty()).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        infos.push(Info::new("pmix.cmd.line", Value::string(&words.join(" "))));
    }
    let msg = ptl::tool_connect_message(given, ANNOUNCED_VERSION, described, &infos)?;
    s.write_all(&msg).map_err(|e| unreach("sending the connect message", e))?;
    // A server without tool support (or that will not name us) closes at once.
    let mut first = [0u8; 4];
    s.read_exact(&mut first).map_err(|e| unreach("refused the connection (no tool support, or it would not give us a name)", e))?;
    let status = i32::from_be_bytes(first);
    if status != PMIX_SUCCESS {
        crate::pmix_debug!(1, "PMIx_tool_init: the OpenPMIx server refused us ({})", crate::strings::error_name(status));
        return Err(status);
    }
    let mut rest = vec![0u8; ptl::tool_welcome_len(given.is_none())];
    s.read_exact(&mut rest).map_err(|e| unreach("reading its answer", e))?;
    let welcome = ptl::tool_welcome(&rest, given.is_none()).inspect_err(|st| {
        crate::pmix_debug!(1, "PMIx_tool_init: the OpenPMIx server refused our credential ({})", crate::strings::error_name(*st));
    })?;
    let me = welcome.assigned.or_else(|| given.cloned()).ok_or(PMIX_ERR_UNREACH)?;
    // A tool learns no index: OpenPMIx's tools send 0, which the server ignores.
    let body = job_data(&mut s, 0, described).map_err(|e| unreach("asking for the job data", e))?;
    // (a tool's namespace is often not a job the server registered: its
    // answer then names the namespace and nothing else)
    if store_job_data(&me, &body, described, cache).is_err() {
        crate::pmix_debug!(5, "PMIx_tool_init: no job data for the tool's namespace {}", me.nspace);
    }
    remember_server(cache, &me, &welcome.server, uri);
    s.set_read_timeout(None).map_err(|e| unreach("socket", e))?;
    Ok((s, me, welcome.server, described))
}

/// Store the job data as the rest of the client expects it: job keys at
/// rank WILDCARD, with this node's, this session's and this app's keys
/// beside them (OpenPMIx's client answers them for the job too), each rank's
/// keys under its rank.
fn store_job_data(me: &Proc, body: &[u8], described: bool, cache: &Cache) -> Res {
    let jd = openpmix_jobdata::parse(body, described).inspect_err(|_| crate::pmix_debug!(1, "PMIx_Init: the OpenPMIx server's job data does not decode"))?;
    if jd.nspace != me.nspace {
        crate::pmix_debug!(1, "PMIx_Init: the OpenPMIx server sent the job data of {} (we are {})", jd.nspace, me.nspace);
        return Err(PMIX_ERR_UNPACK_FAILURE);
    }
    let my_host = std::env::var("PMIX_HOSTNAME").ok().or_else(|| {
        let mine = jd.ranks.iter().find(|(r, _)| *r == me.rank)?;
        mine.1.iter().find(|i| i.key() == "pmix.hname").and_then(|i| i.as_str())
    });
    let my_app = jd.ranks.iter().find(|(r, _)| *r == me.rank).and_then(|(_, v)| v.iter().find(|i| i.key() == "pmix.appnum")?.as_u32()).unwrap_or(0);
    let nodes = jd.job.iter().filter(|i| i.key() == "pmix.node.arr").count();
    let mut job: Vec<Info> = Vec::new();
    let mut extra: Vec<Info> = Vec::new();
    for i in jd.job {
        let members = || infos_of_array(&i);
        match i.key() {
            "pmix.ssn.arr" => extra.extend(members()),
            "pmix.node.arr" => {
                let m = members();
                let name = m.iter().find(|x| x.key() == "pmix.hname").and_then(|x| x.as_str());
                if nodes == 1 || (name.is_some() && name == my_host) {
                    extra.extend(m);
                }
            }
            "pmix.app.arr" => {
                let m = members();
                if m.iter().find(|x| x.key() == "pmix.appnum").and_then(|x| x.as_u32()).unwrap_or(0) == my_app {
                    extra.extend(m);
                }
            }
            _ => {}
        }
        job.push(i);
    }
    for e in extra {
        if !job.iter().any(|j| j.key() == e.key()) {
            job.push(e);
        }
    }
    cache.put(&Proc::wildcard(&me.nspace), job);
    for (rank, infos) in jd.ranks {
        cache.put(&Proc::new(&me.nspace, rank), infos);
    }
    Ok(())
}

/// The groups this process constructed under an OpenPMIx server, by name:
/// their members.
static GROUPS: parking_lot::Mutex<std::collections::BTreeMap<String, Vec<Proc>>> = parking_lot::Mutex::new(std::collections::BTreeMap::new());

/// The OpenPMIx major version of our server, as `PMIx_server_setup_fork`
/// announced it in our environment (4 when it did not).
pub fn server_major_from_env() -> u32 {
    std::env::var("PMIX_VERSION").ok().and_then(|v| v.split('.').next()?.parse().ok()).unwrap_or(4)
}

/// What an OpenPMIx server's answer to a request carries (read by `answer`).
pub enum Shape {
    /// Only the status matters.
    Status,
    /// A Get of `target`: the target's data.
    Get { target: Proc },
    /// A connect: other namespaces' job data (cached).
    Connect,
    /// A lookup: the publications found.
    Lookup,
    /// A spawn: the new namespace (its job data cached).
    Spawn,
    /// A count and infos (query, job control, monitor, allocate).
    Infos,
    /// An IO forwarding registration: the server's id for it.
    IofPull,
    /// A group construction (its name and members, kept once it is made:
    /// OpenPMIx 5 servers want them back at its destruction) or destruction
    /// (the name, forgotten once done): the context id, if one was assigned.
    Group { made: Option<(String, Vec<Proc>)>, unmade: Option<String> },
    /// A credential: its bytes and infos.
    Credential,
}

/// How the answer to a request sent on a connection is read.
pub enum Reading {
    /// rpmix's reply of this kind (`msg::Reply::decode`).
    Rpmix(AnswerKind),
    /// An OpenPMIx server's answer of this shape (`answer`).
    OpenPmix { shape: Shape, described: bool, me: Proc },
}

impl Reading {
    /// The answer in a frame's body. One that does not decode is its
    /// error status.
    pub fn read(self, body: &[u8]) -> Reply {
        match self {
            Reading::Rpmix(kind) => Reply::decode(&kind, body).unwrap_or_else(|st| {
                crate::pmix_debug!(1, "client: an answer from the server does not decode ({st})");
                Reply::Status(st)
            }),
            Reading::OpenPmix { shape, described, me } => answer(body, &shape, described, &me),
        }
    }
}

/// A request ready to send: its tag, its body, how its answer is read.
pub type Prepared = Res<(u16, Vec<u8>, Reading)>;

impl Dialect {
    /// A request as this connection's server takes it: in rpmix's codec, or
    /// in OpenPMIx's (`for_openpmix`). Err: it cannot be sent.
    pub fn prepare(&self, req: Request) -> Prepared {
        match self {
            Dialect::Rpmix => Ok((req.tag(), req.encode()?, Reading::Rpmix(req.answer_kind()))),
            Dialect::OpenPmix { described, me, server_major, .. } => {
                let tag = req.tag();
                let (body, shape) = for_openpmix(req, *described, me, *server_major)?;
                Ok((tag, body, Reading::OpenPmix { shape, described: *described, me: me.clone() }))
            }
        }
    }
}

/// OpenPMIx's answer (its status, then what `shape` says) as a `Reply`.
/// Data it brings about other procs and jobs goes to the cache, as
/// OpenPMIx's client keeps it.
pub(super) fn answer(body: &[u8], shape: &Shape, described: bool, me: &Proc) -> Reply {
    let mut r = Reader::new(body, described);
    let status = match r.status() {
        Ok(st) => st,
        Err(e) => {
            crate::pmix_debug!(1, "client: an answer from the OpenPMIx server does not decode");
            return Reply::Status(e);
        }
    };
    if status != PMIX_SUCCESS {
        return Reply::Status(status);
    }
    let mut read = || -> Res<Reply> {
        Ok(match shape {
            Shape::Status => Reply::Status(status),
            // (an early or synchronous answer is the status alone)
            Shape::Infos => Reply::Infos { status, infos: if r.at_end() { Vec::new() } else { r.infos()? } },
            Shape::Lookup => {
                let n = r.size()?;
                Reply::Lookup { status, found: r.pdata_array(n)? }
            }
            Shape::Spawn => {
                let ns = if r.at_end() { None } else { r.string()? };
                let ns = ns.unwrap_or_default();
                let job = r.kvals_to_end()?;
                if !ns.is_empty() && !job.is_empty() {
                    keep([(Proc::wildcard(&ns), job)]);
                }
                Reply::Spawn { status, nspace: ns }
            }
            Shape::Connect => {
                let mut jobs = Vec::new();
                while !r.at_end() {
                    let obj = r.byte_object()?;
                    let mut o = Reader::new(&obj, described);
                    let ns = o.string()?.unwrap_or_default();
                    jobs.push((Proc::wildcard(&ns), o.kvals_to_end()?));
                }
                keep(jobs);
                Reply::Barrier { status, collective: Collective::Connect, records: Vec::new() }
            }
            Shape::IofPull => Reply::IofPull { status, id: u32::try_from(r.size()?).map_err(|_| PMIX_ERR_UNPACK_FAILURE)? },
            Shape::Group { made, unmade } => {
                if let Some((name, members)) = made {
                    GROUPS.lock().insert(name.clone(), members.clone());
                }
                if let Some(name) = unmade {
                    GROUPS.lock().remove(name);
                }
                // (status alone when the server had nothing more to say)
                let ctxid = if r.at_end() { None } else { Some(r.size()?) };
                // SIZE_MAX: none was assigned (OpenPMIx's client hands it on anyway).
                let infos = ctxid.filter(|c| *c != usize::MAX).map(|c| Info::new("pmix.grp.ctxid", Value::size(c))).into_iter().collect();
                Reply::Infos { status, infos }
            }
            Shape::Credential => Reply::Credential { status, credential: r.byte_object()?, info: r.infos()? },
            Shape::Get { target } => Reply::Get { status, target: target.clone(), data: get_answer(&mut r, target, described, me)? },
        })
    };
    read().unwrap_or_else(|e| {
        crate::pmix_debug!(1, "client: an answer from the OpenPMIx server does not decode");
        if let Shape::Get { .. } = shape {
            crate::pmix_debug!(5, "client: the answer's first bytes: {:02x?}", &body[..body.len().min(256)]);
        }
        Reply::Status(e)
    })
}

/// A Get's answer: byte objects, each a proc and its keys. The target's keys
/// go back to the waiter; the job's and other procs' go to the cache, as
/// OpenPMIx's client keeps them.
fn get_answer(r: &mut Reader<'_>, target: &Proc, described: bool, me: &Proc) -> Res<Vec<Info>> {
    let mut mine = Vec::new();
    let mut others: Vec<(Proc, Vec<Info>)> = Vec::new();
    r.follow_form_of_rest();
    let described = described && r.is_described();
    while !r.at_end() {
        let obj = r.byte_object()?;
        let mut o = Reader::new(&obj, described);
        let mut who = o.proc()?;
        if who.rank == PMIX_RANK_UNDEF {
            who = me.clone(); // (OpenPMIx's convention: data for the asker)
        }
        let infos = o.kvals_to_end()?;
        if who == *target {
            mine.extend(infos);
        } else {
            others.push((who, infos));
        }
    }
    keep(others);
    Ok(mine)
}

/// Data an answer brought about other procs or jobs: into the client's
/// cache, as OpenPMIx's client keeps it.
fn keep(records: impl IntoIterator<Item = (Proc, Vec<Info>)>) {
    if let Some(c) = super::CACHE.read().clone() {
        for (p, infos) in records {
            c.put(&p, infos);
        }
    }
}

/// What the client under an OpenPMIx server sends for `req` (OpenPMIx's
/// command, through `msg::v41`), and the shape of the answer it waits for.
/// What OpenPMIx's client does before it sends is done here: a barrier
/// naming nobody names the caller's namespace; event registrations keep
/// the keys that only order handlers here; a group's destruction names its
/// members to OpenPMIx 5 servers.
pub fn for_openpmix(mut req: Request, described: bool, me: &Proc, server_major: u32) -> Res<(Vec<u8>, Shape)> {
    let shape = match &mut req {
        Request::Barrier(b) => {
            if b.procs.is_empty() {
                b.procs.push(Proc::wildcard(&me.nspace));
            }
            if b.collective == Collective::Connect {
                Shape::Connect
            } else {
                Shape::Status
            }
        }
        Request::Get { target, .. } => Shape::Get { target: target.clone() },
        Request::Lookup { .. } => Shape::Lookup,
        Request::Spawn { .. } => Shape::Spawn,
        Request::JobControl { .. } | Request::Monitor(_) | Request::Allocate { .. } | Request::Query { .. } | Request::ValidateCredential { .. } => Shape::Infos,
        Request::GetCredential { .. } => Shape::Credential,
        Request::IofPull(p) => {
            if p.procs.is_empty() {
                // (OpenPMIx's server misreads a pull naming no source)
                crate::pmix_debug!(1, "PMIx_IOF_pull: no source named: an OpenPMIx server needs at least one");
                return Err(PMIX_ERR_BAD_PARAM);
            }
            Shape::IofPull
        }
        Request::RegisterEvents { info, .. } => {
            info.retain(|i| !handler_local(i.key()));
            Shape::Status
        }
        Request::Group(g) if g.op == GroupOp::Construct => Shape::Group { made: Some((g.name.clone(), g.procs.clone())), unmade: None },
        Request::Group(g) if g.op == GroupOp::Destruct => {
            if server_major >= 5 {
                g.procs = GROUPS.lock().get(&g.name).cloned().ok_or_else(|| {
                    crate::pmix_debug!(1, "PMIx_Group_destruct: no group {} was constructed here", g.name);
                    PMIX_ERR_NOT_FOUND
                })?;
            }
            // (answered with the status alone: no results to hand on)
            Shape::Group { made: None, unmade: Some(g.name.clone()) }
        }
        _ => Shape::Status,
    };
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let bytes = msg::v41::encode(&req, msg::v41::Form { described, server_major, uid })?;
    Ok((bytes, shape))
}

/// Keys that only order or name a handler in this process: OpenPMIx's
/// client keeps them from the server.
fn handler_local(key: &str) -> bool {
    matches!(
        key,
        "pmix.evfirst"
            | "pmix.evlast"
            | "pmix.evprepend"
            | "pmix.evappend"
            | "pmix.evfirstcat"
            | "pmix.evlastcat"
            | "pmix.evbefore"
            | "pmix.evafter"
            | "pmix.evname"
            | "pmix.evobject"
            | "pmix.range"
            | "pmix.evrange"
            | "pmix.evone"
    )
}

/// Read `body` as every kind of answer, event and job data an OpenPMIx
/// server sends (the fuzzer's entry point: any bytes, an error at worst).
pub fn read_as_every_answer(body: &[u8], described: bool) {
    let me = Proc::new("fuzz", 0);
    let shapes = [Shape::Status, Shape::Get { target: Proc::new("fuzz", 1) }, Shape::Connect, Shape::Lookup, Shape::Spawn, Shape::Infos, Shape::IofPull, Shape::Group { made: None, unmade: None }, Shape::Credential];
    for shape in &shapes {
        let _ = answer(body, shape, described, &me);
    }
    let _ = event(body, described);
    let _ = output(body, described);
    let _ = openpmix_jobdata::parse(body, described);
}

/// Output an OpenPMIx server forwards (tag 2).
pub struct Output {
    pub source: Proc,
    pub channel: pmix_iof_channel_t,
    /// The pull it answers: the local handle the pull sent.
    pub pull: u32,
    pub data: Vec<u8>,
    /// The source closed this stream.
    pub complete: bool,
}

/// Read forwarded output (docs/openpmix-ptl-commands.md, 11.1).
pub fn output(body: &[u8], described: bool) -> Res<Output> {
    let mut r = Reader::new(body, described);
    let source = r.proc()?;
    let channel = r.channel()?;
    let pull = u32::try_from(r.size()?).map_err(|_| PMIX_ERR_UNPACK_FAILURE)?;
    let infos = r.infos()?;
    let data = if r.at_end() { Vec::new() } else { r.byte_object()? };
    let complete = crate::owned::find(&infos, PMIX_IOF_COMPLETE).is_some_and(|i| i.truthy());
    Ok(Output { source, channel, pull, data, complete })
}

/// An event the OpenPMIx server sent (tag 0): (code, source, infos).
pub fn event(body: &[u8], described: bool) -> Res<(pmix_status_t, Proc, Vec<Info>)> {
    let mut r = Reader::new(body, described);
    if r.command()? != cmd::NOTIFY {
        return Err(PMIX_ERR_UNPACK_FAILURE);
    }
    let st = r.status()?;
    let source = r.proc()?;
    let info = r.infos()?;
    Ok((st, source, info))
}
