//! rpmix's wire format of requests: a frame's tag names the request
//! (`wire`), its body holds the fields in `data::pack` primitives, in the
//! order `Request` declares them. Decoding checks every bound: a body that
//! does not decode is an error, never a guess.

use crate::abi::*;
use crate::data::carray::CArray;
use crate::data::kind::Kind;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{decode_infos, decode_procs, decode_str, encode_infos, encode_procs, encode_str, Info, Proc};
use crate::status::Res;
use crate::wire;

use super::{AnswerKind, Barrier, Collective, Group, GroupOp, Hello, IofPull, IofPush, Monitor, Reply, Request, ToolHello, Welcome};

impl Request {
    /// The frame tag this request travels under.
    pub fn tag(&self) -> u16 {
        match self {
            Request::Finalize => wire::FINALIZE,
            Request::Abort { .. } => wire::ABORT,
            Request::Commit { .. } => wire::COMMIT,
            Request::Barrier(Barrier { collective: Collective::Fence, .. }) => wire::FENCE,
            Request::Barrier(Barrier { collective: Collective::Connect, .. }) => wire::CONNECT,
            Request::Barrier(Barrier { collective: Collective::Disconnect, .. }) => wire::DISCONNECT,
            Request::Get { .. } => wire::GET,
            Request::Publish { .. } => wire::PUBLISH,
            Request::Lookup { .. } => wire::LOOKUP,
            Request::Unpublish { .. } => wire::UNPUBLISH,
            Request::Notify { .. } => wire::NOTIFY,
            Request::Log { .. } => wire::LOG,
            Request::Spawn { .. } => wire::SPAWN,
            Request::Query { .. } => wire::QUERY,
            Request::GetCredential { .. } => wire::GET_CRED,
            Request::ValidateCredential { .. } => wire::VALIDATE_CRED,
            Request::RegisterEvents { .. } => wire::REGISTER_EVENTS,
            Request::DeregisterEvents { .. } => wire::DEREGISTER_EVENTS,
            Request::JobControl { .. } => wire::JOB_CONTROL,
            Request::SessionControl { .. } => wire::SESSION_CONTROL,
            Request::Monitor(_) => wire::MONITOR,
            Request::Allocate { .. } => wire::ALLOCATE,
            Request::Heartbeat => wire::HEARTBEAT,
            Request::IofPull(_) => wire::IOF_PULL,
            Request::IofDeregister { .. } => wire::IOF_DEREG,
            Request::IofPush(_) => wire::IOF_PUSH,
            Request::Group(Group { op: GroupOp::Construct, .. }) => wire::GROUP_CONSTRUCT,
            Request::Group(Group { op: GroupOp::Destruct, .. }) => wire::GROUP_DESTRUCT,
            Request::Group(Group { op: GroupOp::Leave, .. }) => wire::GROUP_LEAVE,
            Request::Group(Group { op: GroupOp::Invite, .. }) => wire::GROUP_INVITE,
            Request::Group(Group { op: GroupOp::Join { .. }, .. }) => wire::GROUP_JOIN,
        }
    }

    /// The request's body in rpmix's format.
    pub fn encode(&self) -> Res<Vec<u8>> {
        let mut e = Encoder::default();
        match self {
            Request::Finalize | Request::Heartbeat => {}
            Request::Abort { status, message, procs } => {
                e.u32(*status as u32);
                encode_str(&mut e, message);
                encode_procs(&mut e, procs);
            }
            Request::Commit { puts } => {
                e.u32(puts.len() as u32);
                for (scope, i) in puts {
                    e.u32(*scope as u32);
                    encode_infos(&mut e, std::slice::from_ref(i))?;
                }
            }
            Request::Barrier(Barrier { procs, collect, timeout, info, .. }) => {
                encode_procs(&mut e, procs);
                e.u32(*collect as u32);
                e.u32(*timeout);
                encode_infos(&mut e, info)?;
            }
            Request::Get { target, key, info } => {
                target.encode(&mut e);
                encode_str(&mut e, key);
                encode_infos(&mut e, info)?;
            }
            Request::Publish { info } | Request::GetCredential { info } => encode_infos(&mut e, info)?,
            Request::Lookup { keys, info } | Request::Unpublish { keys, info } => {
                e.u32(keys.len() as u32);
                for k in keys {
                    encode_str(&mut e, k);
                }
                encode_infos(&mut e, info)?;
            }
            Request::Notify { status, source, range, info } => {
                e.u32(*status as u32);
                source.encode(&mut e);
                e.u32(*range as u32);
                encode_infos(&mut e, info)?;
            }
            Request::Log { data, directives } => {
                encode_infos(&mut e, data)?;
                encode_infos(&mut e, directives)?;
            }
            Request::Spawn { job_info, apps } => {
                encode_infos(&mut e, job_info)?;
                e.u32(apps.len as u32);
                encode_elems(&mut e, apps)?;
            }
            Request::Query { queries } => {
                e.u32(queries.len as u32);
                encode_elems(&mut e, queries)?;
            }
            Request::ValidateCredential { credential, info } => {
                e.blob(credential);
                encode_infos(&mut e, info)?;
            }
            Request::RegisterEvents { codes, info } => {
                encode_codes(&mut e, codes);
                encode_infos(&mut e, info)?;
            }
            Request::DeregisterEvents { codes } => encode_codes(&mut e, codes),
            Request::JobControl { targets, directives } => {
                encode_procs(&mut e, targets);
                encode_infos(&mut e, directives)?;
            }
            Request::SessionControl { session, directives } => {
                e.u32(*session);
                encode_infos(&mut e, directives)?;
            }
            Request::Monitor(m) => {
                encode_infos(&mut e, std::slice::from_ref(&m.monitor))?;
                e.u32(m.error as u32);
                encode_infos(&mut e, &m.directives)?;
            }
            Request::Allocate { directive, data } => {
                e.u32(*directive as u32);
                encode_infos(&mut e, data)?;
            }
            Request::IofPull(IofPull { procs, channels, handle, directives }) => {
                encode_procs(&mut e, procs);
                e.u32(*channels as u32);
                e.u32(*handle);
                encode_infos(&mut e, directives)?;
            }
            Request::IofDeregister { id } => e.u32(*id),
            Request::IofPush(IofPush { targets, data, directives }) => {
                encode_procs(&mut e, targets);
                e.u32(data.is_some() as u32);
                e.blob(data.as_deref().unwrap_or(&[]));
                encode_infos(&mut e, directives)?;
            }
            Request::Group(Group { op, name, procs, directives }) => {
                encode_str(&mut e, name);
                encode_procs(&mut e, procs);
                encode_infos(&mut e, directives)?;
                if let GroupOp::Join { accept } = op {
                    e.u32(if *accept { PMIX_GROUP_ACCEPT } else { PMIX_GROUP_DECLINE } as u32);
                }
            }
        }
        Ok(e.into_bytes())
    }

    /// The request a frame with `tag` and `body` carries.
    /// PMIX_ERR_NOT_SUPPORTED: no request has that tag.
    pub fn decode(tag: u16, body: &[u8]) -> Res<Request> {
        let d = &mut Decoder::new(body);
        let barrier = |collective, d: &mut Decoder<'_>| -> Res<Request> {
            let procs = decode_procs(d)?;
            let collect = d.u32()? != 0;
            let timeout = d.u32()?;
            let info = decode_infos(d)?;
            Ok(Request::Barrier(Barrier { collective, procs, collect, timeout, info }))
        };
        let group = |op, d: &mut Decoder<'_>| -> Res<Request> {
            let name = decode_str(d)?;
            let procs = decode_procs(d)?;
            let directives = decode_infos(d)?;
            let op = match op {
                GroupOp::Join { .. } => GroupOp::Join { accept: d.u32()? == PMIX_GROUP_ACCEPT as u32 },
                other => other,
            };
            Ok(Request::Group(Group { op, name, procs, directives }))
        };
        Ok(match tag {
            wire::FINALIZE => Request::Finalize,
            wire::HEARTBEAT => Request::Heartbeat,
            wire::ABORT => Request::Abort { status: d.u32()? as i32, message: decode_str(d)?, procs: decode_procs(d)? },
            wire::COMMIT => {
                let n = d.u32()? as usize;
                let mut puts = Vec::new();
                for _ in 0..n.min(d.remaining()) {
                    let scope = d.u32()? as pmix_scope_t;
                    if let Some(i) = decode_infos(d)?.pop() {
                        puts.push((scope, i));
                    }
                }
                Request::Commit { puts }
            }
            wire::FENCE => barrier(Collective::Fence, d)?,
            wire::CONNECT => barrier(Collective::Connect, d)?,
            wire::DISCONNECT => barrier(Collective::Disconnect, d)?,
            wire::GET => Request::Get { target: Proc::decode(d)?, key: decode_str(d)?, info: decode_infos(d)? },
            wire::PUBLISH => Request::Publish { info: decode_infos(d)? },
            wire::LOOKUP => Request::Lookup { keys: decode_keys(d)?, info: decode_infos(d)? },
            wire::UNPUBLISH => Request::Unpublish { keys: decode_keys(d)?, info: decode_infos(d)? },
            wire::NOTIFY => Request::Notify {
                status: d.u32()? as i32,
                source: Proc::decode(d)?,
                range: d.u32()? as pmix_data_range_t,
                info: decode_infos(d)?,
            },
            wire::LOG => Request::Log { data: decode_infos(d)?, directives: decode_infos(d)? },
            wire::SPAWN => {
                let job_info = decode_infos(d)?;
                let n = d.u32()? as usize;
                Request::Spawn { job_info, apps: decode_elems(d, Kind::App, n)? }
            }
            wire::QUERY => {
                let n = d.u32()? as usize;
                Request::Query { queries: decode_elems(d, Kind::Query, n)? }
            }
            wire::GET_CRED => Request::GetCredential { info: decode_infos(d)? },
            wire::VALIDATE_CRED => Request::ValidateCredential { credential: d.blob()?.to_vec(), info: decode_infos(d)? },
            wire::REGISTER_EVENTS => Request::RegisterEvents { codes: decode_codes(d)?, info: decode_infos(d)? },
            wire::DEREGISTER_EVENTS => Request::DeregisterEvents { codes: decode_codes(d)? },
            wire::JOB_CONTROL => Request::JobControl { targets: decode_procs(d)?, directives: decode_infos(d)? },
            wire::SESSION_CONTROL => Request::SessionControl { session: d.u32()?, directives: decode_infos(d)? },
            wire::MONITOR => {
                let monitor = decode_infos(d)?.pop();
                let error = d.u32()? as i32;
                let directives = decode_infos(d)?;
                let Some(monitor) = monitor else {
                    crate::pmix_debug!(1, "a monitor request names no monitor");
                    return Err(PMIX_ERR_BAD_PARAM);
                };
                Request::Monitor(Box::new(Monitor { monitor, error, directives }))
            }
            wire::ALLOCATE => Request::Allocate { directive: d.u32()? as pmix_alloc_directive_t, data: decode_infos(d)? },
            wire::IOF_PULL => Request::IofPull(IofPull {
                procs: decode_procs(d)?,
                channels: d.u32()? as pmix_iof_channel_t,
                handle: d.u32()?,
                directives: decode_infos(d)?,
            }),
            wire::IOF_DEREG => Request::IofDeregister { id: d.u32()? },
            wire::IOF_PUSH => {
                let targets = decode_procs(d)?;
                let has = d.u32()? != 0;
                let data = d.blob()?.to_vec();
                Request::IofPush(IofPush { targets, data: has.then_some(data), directives: decode_infos(d)? })
            }
            wire::GROUP_CONSTRUCT => group(GroupOp::Construct, d)?,
            wire::GROUP_DESTRUCT => group(GroupOp::Destruct, d)?,
            wire::GROUP_LEAVE => group(GroupOp::Leave, d)?,
            wire::GROUP_INVITE => group(GroupOp::Invite, d)?,
            wire::GROUP_JOIN => group(GroupOp::Join { accept: false }, d)?,
            other => {
                crate::pmix_debug!(5, "request tag {other} is not one rpmix knows");
                return Err(PMIX_ERR_NOT_SUPPORTED);
            }
        })
    }
}

impl Reply {
    /// The answer's body in rpmix's format: the status, then the fields.
    pub fn encode(&self) -> Res<Vec<u8>> {
        let mut e = Encoder::default();
        e.u32(self.status() as u32);
        match self {
            Reply::Status(_) => {}
            Reply::Get { data: infos, .. } | Reply::Infos { infos, .. } => encode_infos(&mut e, infos)?,
            Reply::Lookup { found, .. } => {
                e.u32(found.len() as u32);
                for (p, i) in found {
                    p.encode(&mut e);
                    encode_infos(&mut e, std::slice::from_ref(i))?;
                }
            }
            Reply::Spawn { nspace, .. } => encode_str(&mut e, nspace),
            Reply::IofPull { id, .. } => e.u32(*id),
            Reply::Barrier { records, .. } => {
                e.u32(records.len() as u32);
                for (p, infos) in records {
                    p.encode(&mut e);
                    encode_infos(&mut e, infos)?;
                }
            }
            Reply::Credential { credential, info, .. } => {
                e.blob(credential);
                encode_infos(&mut e, info)?;
            }
            Reply::ToolWelcome { server, name } => {
                encode_str(&mut e, &server.nspace);
                e.u32(server.rank);
                encode_str(&mut e, &name.nspace);
                e.u32(name.rank);
            }
            Reply::JobData(bytes) => e.raw(bytes),
        }
        Ok(e.into_bytes())
    }

    /// An answer of `kind` from its body in rpmix's format. A status with
    /// nothing after it is the variant's empty form; a body cut short
    /// otherwise is an error.
    pub fn decode(kind: &AnswerKind, body: &[u8]) -> Res<Reply> {
        let d = &mut Decoder::new(body);
        let status = d.u32()? as pmix_status_t;
        if d.remaining() == 0 && (*kind != AnswerKind::JobData || status != PMIX_SUCCESS) {
            return Ok(Reply::empty(kind, status));
        }
        let records = |d: &mut Decoder<'_>| -> Res<Vec<(Proc, Vec<Info>)>> {
            let n = d.u32()? as usize;
            (0..n.min(d.remaining())).map(|_| Ok((Proc::decode(d)?, decode_infos(d)?))).collect()
        };
        Ok(match kind {
            // (what follows the status is not read)
            AnswerKind::Status => Reply::Status(status),
            AnswerKind::Get { target } => Reply::Get { status, target: target.clone(), data: decode_infos(d)? },
            AnswerKind::Infos => Reply::Infos { status, infos: decode_infos(d)? },
            AnswerKind::Lookup => {
                let found = records(d)?.into_iter().filter_map(|(p, mut i)| i.pop().map(|i| (p, i))).collect();
                Reply::Lookup { status, found }
            }
            AnswerKind::Spawn => Reply::Spawn { status, nspace: decode_str(d)? },
            AnswerKind::IofPull => Reply::IofPull { status, id: d.u32()? },
            AnswerKind::Barrier(collective) => Reply::Barrier { status, collective: *collective, records: records(d)? },
            AnswerKind::Credential => Reply::Credential { status, credential: d.blob()?.to_vec(), info: decode_infos(d)? },
            AnswerKind::ToolWelcome => {
                let server = Proc::new(&decode_str(d)?, d.u32()?);
                Reply::ToolWelcome { server, name: Proc::new(&decode_str(d)?, d.u32()?) }
            }
            AnswerKind::JobData => Reply::JobData(d.take(d.remaining())?.to_vec()),
        })
    }
}

impl Hello {
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::default();
        e.u32(self.protocol);
        encode_str(&mut e, &self.proc.nspace);
        e.u32(self.proc.rank);
        if let Some(t) = &self.token {
            encode_str(&mut e, t);
        }
        e.into_bytes()
    }

    pub fn decode(body: &[u8]) -> Res<Hello> {
        let d = &mut Decoder::new(body);
        let protocol = d.u32()?;
        let proc = Proc::new(&decode_str(d)?, d.u32()?);
        // (a credential follows, from clients setup_fork prepared)
        // (one that does not decode is no credential: the server then judges
        // the hello as one without)
        let token = if d.remaining() > 0 { decode_str(d).ok() } else { None };
        Ok(Hello { protocol, proc, token })
    }
}

impl<'a> Welcome<'a> {
    /// The answer's body: its status (success), then the fields.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::default();
        e.u32(PMIX_SUCCESS as u32);
        encode_str(&mut e, &self.server.nspace);
        e.u32(self.server.rank);
        e.u32(self.records.len() as u32);
        for (rank, record) in &self.records {
            e.u32(*rank);
            e.blob(record);
        }
        e.u32(self.mapped as u32);
        e.into_bytes()
    }

    /// The answer in `body`; a refusal is its status.
    pub fn decode(body: &'a [u8]) -> Res<Welcome<'a>> {
        let d = &mut Decoder::new(body);
        let status = d.u32()? as pmix_status_t;
        if status != PMIX_SUCCESS {
            return Err(status);
        }
        let server = Proc::new(&decode_str(d)?, d.u32()?);
        let n = d.u32()? as usize;
        let records = (0..n.min(d.remaining())).map(|_| Ok((d.u32()?, d.blob()?))).collect::<Res<Vec<_>>>()?;
        let mapped = d.remaining() >= 4 && d.u32()? == 1;
        Ok(Welcome { server, records, mapped })
    }
}

impl ToolHello {
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::default();
        e.u32(self.protocol);
        if let Some(p) = &self.chosen {
            encode_str(&mut e, &p.nspace);
            e.u32(p.rank);
        }
        e.into_bytes()
    }

    /// A tool's hello; a name that is missing or empty is no name.
    pub fn decode(body: &[u8]) -> Res<ToolHello> {
        let d = &mut Decoder::new(body);
        let protocol = d.u32()?;
        let chosen = match (decode_str(d), d.u32()) {
            (Ok(ns), Ok(rank)) if !ns.is_empty() => Some(Proc::new(&ns, rank)),
            _ => None,
        };
        Ok(ToolHello { protocol, chosen })
    }
}

fn encode_codes(e: &mut Encoder, codes: &[pmix_status_t]) {
    e.u32(codes.len() as u32);
    for c in codes {
        e.u32(*c as u32);
    }
}

fn decode_codes(d: &mut Decoder<'_>) -> Res<Vec<pmix_status_t>> {
    let n = d.u32()? as usize;
    (0..n.min(d.remaining())).map(|_| d.u32().map(|c| c as pmix_status_t)).collect()
}

fn decode_keys(d: &mut Decoder<'_>) -> Res<Vec<String>> {
    let n = d.u32()? as usize;
    (0..n.min(d.remaining())).map(|_| decode_str(d)).collect()
}

/// The elements of an owned C array (apps, queries).
fn encode_elems(e: &mut Encoder, a: &CArray) -> Res {
    let size = a.kind.size();
    for i in 0..a.len {
        // SAFETY: element i of the `len` elements of `kind` that `a` owns.
        unsafe { e.elem(a.kind, a.ptr.add(i * size), 0)? };
    }
    Ok(())
}

/// `n` elements of `kind` into an owned C array; a count larger than the
/// bytes left is refused before anything is allocated.
fn decode_elems(d: &mut Decoder<'_>, kind: Kind, n: usize) -> Res<CArray> {
    if n > d.remaining() {
        return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    }
    if n == 0 {
        return Ok(CArray::empty(kind));
    }
    // SAFETY: a new allocation of ours, owned by the CArray from here.
    let (ptr, len) = unsafe { d.elems(kind, n, 0)? };
    Ok(CArray { kind, ptr, len })
}

