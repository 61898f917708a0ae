//! rpmix's answers and events in OpenPMIx's form, for OpenPMIx clients
//! (docs/openpmix-ptl-protocol.md 3, docs/openpmix-ptl-commands.md); their
//! requests are read by `msg::v41`.
//!
//! A request's answer shape is remembered under its tag (`Link::expect`)
//! and used when the server's answer goes out (`Rewrite::outgoing`).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::abi::*;
use crate::msg::{self, Collective, Request};
use crate::data::pack::Decoder;
use crate::owned::{decode_infos, decode_str, Info, Proc};
use crate::ptl::{cmd, Msg};
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

/// How the answer to `request` is written for an OpenPMIx client (`who`).
pub fn shape_of(request: &Request, who: &Proc) -> Shape {
    match request {
        Request::Get { target, .. } => Shape::Get { target: target.clone() },
        Request::Barrier(msg::Barrier { collective: Collective::Connect, procs, .. }) => {
            let mut nspaces: Vec<String> = procs.iter().map(|p| p.nspace.clone()).filter(|n| *n != who.nspace).collect();
            nspaces.sort();
            nspaces.dedup();
            Shape::Connect { nspaces, objects: Vec::new() }
        }
        Request::Lookup { .. } => Shape::Lookup,
        Request::Spawn { .. } => Shape::Spawn,
        Request::Query { .. } | Request::JobControl { .. } | Request::Monitor(_) | Request::Allocate { .. } => Shape::Infos,
        Request::IofPull(_) => Shape::IofPull,
        _ => Shape::Status,
    }
}

/// Whether rpmix's server serves `request` from an OpenPMIx client (the
/// others are answered PMIX_ERR_NOT_SUPPORTED: their answers have no
/// OpenPMIx form here yet).
pub fn served(request: &Request) -> bool {
    !matches!(request, Request::GetCredential { .. } | Request::ValidateCredential { .. } | Request::Group(_))
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
