//! rpmix's answers and events in OpenPMIx's form, for OpenPMIx clients
//! (docs/openpmix-ptl-protocol.md 3, docs/openpmix-ptl-commands.md); their
//! requests are read by `msg::v41`.
//!
//! The server's answers are typed (`msg::Reply`): `Link::answer` writes one
//! with `msg::v41::encode_reply`. What that form needs beyond the answer
//! is a connect's: the other namespaces' job data as it was when the
//! connect arrived (`Link::connecting`). Events and forwarded output are
//! read back from rpmix's frames as they go (`Rewrite::outgoing`).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::abi::*;
use crate::msg::{self, Reply, Request};
use crate::data::pack::Decoder;
use crate::owned::{decode_infos, Info, Proc};
use crate::ptl::{cmd, Msg};
use crate::runtime::Rewrite;
use crate::status::Res;
use crate::wire;

struct State {
    described: bool,
    me: Proc,
    /// The job data of a connect's other namespaces, by the connect's tag.
    connects: HashMap<u32, Vec<Vec<u8>>>,
}

/// One OpenPMIx client's translation state, shared by the role (requests
/// in) and its connection (answers out).
#[derive(Clone)]
pub struct Link(Arc<Mutex<State>>);

impl Link {
    pub fn new(described: bool, me: Proc) -> Link {
        Link(Arc::new(Mutex::new(State { described, me, connects: HashMap::new() })))
    }

    pub fn described(&self) -> bool {
        self.0.lock().described
    }

    /// The connect on `tag` is answered with these namespaces' job data.
    pub fn connecting(&self, tag: u32, jobs: Vec<Vec<u8>>) {
        self.0.lock().connects.insert(tag, jobs);
    }

    /// `answer` to the request on `tag`, in OpenPMIx's form.
    pub fn answer(&self, tag: u32, answer: &Reply) -> Vec<u8> {
        let mut s = self.0.lock();
        let jobs = s.connects.remove(&tag).unwrap_or_default();
        if answer.status() != PMIX_SUCCESS {
            crate::pmix_debug!(5, "OpenPMIx client {}: answered {}", s.me, answer.status());
        }
        msg::v41::encode_reply(answer, s.described, &s.me, &jobs).unwrap_or_else(|st| {
            crate::pmix_debug!(1, "OpenPMIx client {}: an answer has no OpenPMIx form ({st})", s.me);
            let mut m = Msg::plain(s.described);
            m.status(st);
            m.into_bytes()
        })
    }
}

/// The other namespaces a connect from `who` names (each answered with
/// its job data), or None: `request` is no connect.
pub fn connect_nspaces(request: &Request, who: &Proc) -> Option<Vec<String>> {
    let Request::Barrier(msg::Barrier { collective: msg::Collective::Connect, procs, .. }) = request else { return None };
    let mut nspaces: Vec<String> = procs.iter().map(|p| p.nspace.clone()).filter(|n| *n != who.nspace).collect();
    nspaces.sort();
    nspaces.dedup();
    Some(nspaces)
}

/// Whether rpmix's server serves `request` from an OpenPMIx client (the
/// others are answered PMIX_ERR_NOT_SUPPORTED: their answers have no
/// OpenPMIx form here yet).
pub fn served(request: &Request) -> bool {
    !matches!(request, Request::GetCredential { .. } | Request::ValidateCredential { .. } | Request::Group(_))
}

impl Rewrite for Link {
    fn outgoing(&mut self, req: u32, tag: u16, body: &[u8]) -> Option<(u32, Vec<u8>)> {
        let s = self.0.lock();
        match tag {
            // (written in OpenPMIx's form by `answer`)
            wire::REPLY => Some((req, body.to_vec())),
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

    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }
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
