//! An OpenPMIx client's requests in rpmix's form, and rpmix's answers and
//! events in OpenPMIx's (docs/openpmix-ptl-protocol.md 3,
//! docs/openpmix-ptl-commands.md). The inverse of client/openpmix.rs.
//!
//! A request's answer shape is remembered under its tag (`Link::expect`)
//! and used when the server's answer goes out (`Rewrite::outgoing`).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::abi::*;
use crate::data::carray::CArray;
use crate::data::kind::Kind;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{decode_infos, decode_str, encode_infos, encode_procs, encode_str, find, Info, Proc};
use crate::ptl::{cmd, Msg, Reader};
use crate::runtime::Rewrite;
use crate::status::Res;
use crate::wire;

/// What the answer to a request looks like in OpenPMIx's form.
#[derive(Clone, Debug)]
pub enum Shape {
    /// The status alone.
    Status,
    /// Already in OpenPMIx's form (after rpmix's status): the job data.
    Raw,
    /// The status, then one byte object: the target and all its data.
    Get { target: Proc },
    /// The status, then a count and the publications found.
    Lookup,
    /// The status, then the new namespace.
    Spawn,
    /// The status, then a count and infos.
    Infos,
    /// The status, then the server's id of the pull.
    IofPull,
    /// The status, then one byte object per other namespace of the
    /// connect: its job data as at connect (`objects`, filled by the role
    /// from the `nspaces` named).
    Connect { nspaces: Vec<String>, objects: Vec<Vec<u8>> },
}

/// An OpenPMIx client's request, as the server serves it.
pub enum Incoming {
    /// REQ: the job data, answered by the role.
    JobData,
    /// Served as rpmix's request `tag`; `ack`: OpenPMIx's client waits for
    /// an answer that rpmix's request does not get.
    Serve { tag: u16, body: Vec<u8>, shape: Shape, ack: bool },
    /// Served, and OpenPMIx's client expects no answer.
    Quiet { tag: u16, body: Vec<u8> },
    /// Answered at once with this status.
    Refuse(pmix_status_t),
}

struct State {
    described: bool,
    me: Proc,
    shapes: HashMap<u32, Shape>,
}

/// One OpenPMIx client's translation state, shared by the role (requests
/// in) and its connection (answers out).
#[derive(Clone)]
pub struct Link(Arc<Mutex<State>>);

impl Link {
    pub fn new(described: bool, me: Proc) -> Link {
        Link(Arc::new(Mutex::new(State { described, me, shapes: HashMap::new() })))
    }

    pub fn described(&self) -> bool {
        self.0.lock().described
    }

    /// The answer to the request on `tag` has this shape.
    pub fn expect(&self, tag: u32, shape: Shape) {
        self.0.lock().shapes.insert(tag, shape);
    }
}

/// An OpenPMIx request body as rpmix's (docs/openpmix-ptl-protocol.md 3).
pub fn incoming(link: &Link, who: &Proc, body: &[u8]) -> Incoming {
    let described = link.described();
    match translate(described, who, body) {
        Ok(i) => i,
        Err(st) => {
            crate::pmix_debug!(1, "OpenPMIx client {who}: a request does not decode ({st}); answering with an error");
            Incoming::Refuse(st)
        }
    }
}

fn translate(described: bool, who: &Proc, body: &[u8]) -> Res<Incoming> {
    let mut r = Reader::new(body, described);
    let c = r.command()?;
    let mut e = Encoder::default();
    let serve = |tag: u16, e: Encoder, shape: Shape| Ok(Incoming::Serve { tag, body: e.into_bytes(), shape, ack: false });
    match c {
        cmd::REQ => Ok(Incoming::JobData),
        cmd::FINALIZE => serve(wire::FINALIZE, e, Shape::Status),
        cmd::ABORT => {
            let status = r.status()?;
            let msg = r.string()?.unwrap_or_default();
            let n = r.size()?;
            let procs = r.procs(n)?;
            e.u32(status as u32);
            encode_str(&mut e, &msg);
            encode_procs(&mut e, &procs);
            serve(wire::ABORT, e, Shape::Status)
        }
        cmd::COMMIT => {
            // (scope, buffer of kvals) pairs to the end; a key in both the
            // local and the remote bucket was put GLOBAL.
            let mut local: Vec<Info> = Vec::new();
            let mut remote: Vec<Info> = Vec::new();
            while !r.at_end() {
                let scope = r.scope()?;
                let inner = r.buffer()?;
                let mut b = Reader::new(inner, described);
                let kvals = b.kvals_to_end()?;
                match scope {
                    PMIX_REMOTE => remote.extend(kvals),
                    _ => local.extend(kvals),
                }
            }
            let mut items: Vec<(pmix_scope_t, Info)> = Vec::new();
            for i in local {
                let global = remote.iter().position(|x| x.key() == i.key());
                if let Some(at) = global {
                    remote.remove(at);
                    items.push((PMIX_GLOBAL, i));
                } else {
                    items.push((PMIX_LOCAL, i));
                }
            }
            items.extend(remote.into_iter().map(|i| (PMIX_REMOTE, i)));
            e.u32(items.len() as u32);
            for (scope, i) in &items {
                e.u32(*scope as u32);
                encode_infos(&mut e, std::slice::from_ref(i))?;
            }
            Ok(Incoming::Serve { tag: wire::COMMIT, body: e.into_bytes(), shape: Shape::Status, ack: true })
        }
        cmd::FENCENB | cmd::CONNECTNB | cmd::DISCONNECTNB => {
            let n = r.size()?;
            let procs = r.procs(n)?;
            let info = r.infos()?;
            let collect = find(&info, PMIX_COLLECT_DATA).is_some_and(|i| i.truthy());
            let timeout = find(&info, PMIX_TIMEOUT).and_then(|i| i.as_u32()).unwrap_or(0);
            encode_procs(&mut e, &procs);
            e.u32(collect as u32);
            e.u32(timeout);
            encode_infos(&mut e, &info)?;
            let (tag, shape) = match c {
                cmd::FENCENB => (wire::FENCE, Shape::Status),
                cmd::CONNECTNB => {
                    let mut nspaces: Vec<String> = procs.iter().map(|p| p.nspace.clone()).filter(|n| *n != who.nspace).collect();
                    nspaces.sort();
                    nspaces.dedup();
                    (wire::CONNECT, Shape::Connect { nspaces, objects: Vec::new() })
                }
                _ => (wire::DISCONNECT, Shape::Status),
            };
            serve(tag, e, shape)
        }
        cmd::GETNB => {
            let ns = r.string()?.unwrap_or_default();
            let rank = r.rank()?;
            let info = r.infos()?;
            // (older clients send no key)
            let key = if r.at_end() { None } else { r.string()? };
            let target = Proc::new(&ns, rank);
            crate::pmix_debug!(5, "OpenPMIx client {who}: Get {target} {:?}", key.as_deref().unwrap_or("(all)"));
            target.encode(&mut e);
            encode_str(&mut e, key.as_deref().unwrap_or(""));
            encode_infos(&mut e, &info)?;
            serve(wire::GET, e, Shape::Get { target })
        }
        cmd::PUBLISHNB => {
            let _uid = r.u32()?; // (the server takes the kernel's)
            let info = r.infos()?;
            encode_infos(&mut e, &info)?;
            serve(wire::PUBLISH, e, Shape::Status)
        }
        cmd::LOOKUPNB | cmd::UNPUBLISHNB => {
            let _uid = r.u32()?;
            let n = r.size()?;
            let mut keys = Vec::new();
            for _ in 0..n.min(body.len()) {
                keys.push(r.string()?.unwrap_or_default());
            }
            let info = r.infos()?;
            e.u32(keys.len() as u32);
            for k in &keys {
                encode_str(&mut e, k);
            }
            encode_infos(&mut e, &info)?;
            if c == cmd::LOOKUPNB {
                serve(wire::LOOKUP, e, Shape::Lookup)
            } else {
                serve(wire::UNPUBLISH, e, Shape::Status)
            }
        }
        cmd::NOTIFY => {
            let status = r.status()?;
            let range = r.range()?;
            let info = r.infos()?;
            e.u32(status as u32);
            who.encode(&mut e);
            e.u32(range as u32);
            encode_infos(&mut e, &info)?;
            serve(wire::NOTIFY, e, Shape::Status)
        }
        cmd::REGEVENTS => {
            let n = r.size()?;
            let codes: Vec<pmix_status_t> = r.statuses(n)?;
            let info = r.infos()?;
            e.u32(codes.len() as u32);
            for c in &codes {
                e.u32(*c as u32);
            }
            encode_infos(&mut e, &info)?;
            Ok(Incoming::Serve { tag: wire::REGISTER_EVENTS, body: e.into_bytes(), shape: Shape::Status, ack: true })
        }
        cmd::DEREGEVENTS => {
            let mut codes = Vec::new();
            while !r.at_end() {
                codes.push(r.status()?);
            }
            e.u32(codes.len() as u32);
            for c in &codes {
                e.u32(*c as u32);
            }
            Ok(Incoming::Quiet { tag: wire::DEREGISTER_EVENTS, body: e.into_bytes() })
        }
        cmd::LOG => {
            let _time = r.time()?;
            let data = r.infos()?;
            let dirs = r.infos()?;
            encode_infos(&mut e, &data)?;
            encode_infos(&mut e, &dirs)?;
            serve(wire::LOG, e, Shape::Status)
        }
        cmd::JOB_CONTROL => {
            let n = r.size()?;
            let targets = r.procs(n)?;
            let dirs = r.infos()?;
            encode_procs(&mut e, &targets);
            encode_infos(&mut e, &dirs)?;
            serve(wire::JOB_CONTROL, e, Shape::Infos)
        }
        cmd::MONITOR => {
            let monitor = r.info_array(1)?;
            let error = r.status()?;
            let dirs = r.infos()?;
            encode_infos(&mut e, &monitor)?;
            e.u32(error as u32);
            encode_infos(&mut e, &dirs)?;
            serve(wire::MONITOR, e, Shape::Infos)
        }
        cmd::QUERY => {
            let n = r.size()?;
            let queries = r.c_array(Kind::Query, PMIX_QUERY, n)?;
            e.u32(queries.len as u32);
            elems(&mut e, &queries)?;
            serve(wire::QUERY, e, Shape::Infos)
        }
        cmd::SPAWNNB => {
            let info = r.infos()?;
            let n = r.size()?;
            let apps = r.c_array(Kind::App, PMIX_APP, n)?;
            encode_infos(&mut e, &info)?;
            e.u32(apps.len as u32);
            elems(&mut e, &apps)?;
            serve(wire::SPAWN, e, Shape::Spawn)
        }
        cmd::IOF_PULL => {
            let n = r.size()?;
            let procs = r.procs(n)?;
            let directives = r.infos()?;
            let channels = r.channel()?;
            let local = r.size()?;
            encode_procs(&mut e, &procs);
            e.u32(channels as u32);
            e.u32(u32::try_from(local).map_err(|_| PMIX_ERR_BAD_PARAM)?);
            encode_infos(&mut e, &directives)?;
            serve(wire::IOF_PULL, e, Shape::IofPull)
        }
        cmd::IOF_DEREG => {
            let _directives = r.infos()?;
            let id = r.size()?;
            e.u32(u32::try_from(id).map_err(|_| PMIX_ERR_BAD_PARAM)?);
            serve(wire::IOF_DEREG, e, Shape::Status)
        }
        cmd::IOF_PUSH => {
            let n = r.size()?;
            let targets = r.procs(n)?;
            let directives = r.infos()?;
            // (an empty byte object, or none, ends the input)
            let data = if r.at_end() { Vec::new() } else { r.byte_object()? };
            let end = data.is_empty() || find(&directives, PMIX_IOF_COMPLETE).is_some_and(|i| i.truthy());
            encode_procs(&mut e, &targets);
            e.u32(!end as u32);
            e.blob(&data);
            encode_infos(&mut e, &directives)?;
            serve(wire::IOF_PUSH, e, Shape::Status)
        }
        other => {
            crate::pmix_debug!(1, "OpenPMIx client {who}: command {other} is not served");
            Ok(Incoming::Refuse(PMIX_ERR_NOT_SUPPORTED))
        }
    }
}

/// The elements of `a` in rpmix's form.
fn elems(e: &mut Encoder, a: &CArray) -> Res {
    let size = a.kind.size();
    for i in 0..a.len {
        // SAFETY: element i of the array `a` owns (len elements of kind).
        unsafe { e.elem(a.kind, a.ptr.add(i * size), 0)? };
    }
    Ok(())
}

impl Rewrite for Link {
    fn outgoing(&mut self, req: u32, tag: u16, body: &[u8]) -> Option<(u32, Vec<u8>)> {
        let mut s = self.0.lock();
        match tag {
            wire::REPLY => {
                let shape = s.shapes.remove(&req).unwrap_or(Shape::Status);
                let out = answer(s.described, &s.me, &shape, body).unwrap_or_else(|st| {
                    crate::pmix_debug!(1, "OpenPMIx client {}: an answer does not translate ({st})", s.me);
                    status_only(s.described, st)
                });
                Some((req, out))
            }
            wire::EVENT => match event(s.described, body) {
                Ok(b) => Some((crate::ptl::TAG_NOTIFY, b)),
                Err(_) => None,
            },
            wire::IOF => match output(s.described, body) {
                Ok(b) => Some((crate::ptl::TAG_IOF, b)),
                Err(_) => None,
            },
            _ => None,
        }
    }
}

fn status_only(described: bool, st: pmix_status_t) -> Vec<u8> {
    let mut m = Msg::plain(described);
    m.status(st);
    m.into_bytes()
}

/// rpmix's answer (its status, then its body) in OpenPMIx's form.
fn answer(described: bool, me: &Proc, shape: &Shape, body: &[u8]) -> Res<Vec<u8>> {
    let st = body.get(..4).map(|b| i32::from_le_bytes(b.try_into().unwrap())).ok_or(PMIX_ERR_UNPACK_FAILURE)?;
    let rest = &body[4..];
    if let Shape::Raw = shape {
        return Ok(rest.to_vec());
    }
    if st != PMIX_SUCCESS {
        crate::pmix_debug!(5, "OpenPMIx client {me}: answered {st} ({shape:?})");
        return Ok(status_only(described, st));
    }
    let mut d = Decoder::new(rest);
    let mut m = Msg::plain(described);
    m.status(st);
    match shape {
        Shape::Status | Shape::Raw => {}
        Shape::Get { target } => {
            let data = if d.remaining() == 0 { Vec::new() } else { decode_infos(&mut d)? };
            // The target and all its data, as one byte object (the client keeps it all).
            let mut obj = Msg::plain(described);
            let who = if target.rank == PMIX_RANK_UNDEF { me.clone() } else { target.clone() };
            obj.proc(&who);
            for i in &data {
                obj.kval(i.key(), i.value_ref())?;
            }
            m.byte_object(obj.bytes())?;
        }
        Shape::Lookup => {
            let n = d.u32()? as usize;
            let mut found = Vec::new();
            for _ in 0..n.min(d.remaining()) {
                let p = Proc::decode(&mut d)?;
                if let Some(i) = decode_infos(&mut d)?.pop() {
                    found.push((p, i));
                }
            }
            m.size(found.len());
            m.pdata(&found)?;
        }
        Shape::Spawn => {
            let ns = decode_str(&mut d)?;
            m.string(Some(&ns))?;
        }
        Shape::Infos => {
            let infos = if d.remaining() == 0 { Vec::new() } else { decode_infos(&mut d)? };
            m.infos(&infos)?;
        }
        Shape::IofPull => {
            let id = d.u32()?;
            m.size(id as usize);
        }
        Shape::Connect { objects, .. } => {
            for o in objects {
                m.byte_object(o)?;
            }
        }
    }
    Ok(m.into_bytes())
}

/// rpmix's forwarded output (the pull's handle, source, channel, data, the
/// end of the stream, origin) as OpenPMIx's (tag 2): the source, the
/// channel, the tool's id of the pull, PMIX_IOF_COMPLETE at the end, the data.
fn output(described: bool, body: &[u8]) -> Res<Vec<u8>> {
    let mut d = Decoder::new(body);
    let handle = d.u32()?;
    let source = Proc::decode(&mut d)?;
    let channel = d.u32()? as pmix_iof_channel_t;
    let data = d.blob()?.to_vec();
    let complete = d.u32()? != 0;
    crate::pmix_debug!(5, "OpenPMIx tool: output of {source} on channel {channel} for pull {handle}: {} bytes{}", data.len(), if complete { ", complete" } else { "" });
    let mut m = Msg::plain(described);
    m.proc(&source);
    m.channel(channel);
    m.size(handle as usize);
    let infos: Vec<Info> = if complete { vec![Info::new("pmix.iof.cmp", crate::owned::Value::boolean(true))] } else { Vec::new() };
    m.infos(&infos)?;
    m.byte_object(&data)?;
    Ok(m.into_bytes())
}

/// An rpmix event (status, source, infos) as OpenPMIx's NOTIFY.
fn event(described: bool, body: &[u8]) -> Res<Vec<u8>> {
    let mut d = Decoder::new(body);
    let status = d.u32()? as i32;
    let source = Proc::decode(&mut d)?;
    let info = decode_infos(&mut d)?;
    let mut m = Msg::request(cmd::NOTIFY, described);
    m.status(status);
    m.proc(&source);
    m.infos(&info)?;
    Ok(m.into_bytes())
}
