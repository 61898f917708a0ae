//! OpenPMIx's form of requests: a ptl command code, then v41 pack calls
//! (docs/openpmix-ptl-protocol.md 3, docs/openpmix-ptl-commands.md). The
//! client under an OpenPMIx server encodes with `encode`; the server decodes
//! an OpenPMIx client's requests with `decode`. Both directions are here so
//! that one reading of OpenPMIx's layouts serves both and a round trip
//! tests them (`tests.rs`). The server's answers to OpenPMIx clients are
//! written here too (`encode_reply`).
//!
//! Where the two forms differ in what they carry:
//! - a commit is one buffer of kvals per scope (local, remote); a key put
//!   GLOBAL is in both;
//! - a notification names no source: the server takes the sender;
//! - a Get's key is a NULL string when everything is asked for;
//! - publications carry the requester's uid (rpmix's server takes the kernel's);
//! - the end of pushed input is an empty byte object, or
//!   PMIX_IOF_COMPLETE;
//! - a group's destruction names its members only to OpenPMIx 5 servers;
//! - a heartbeat is a tag of its own, not a command; group leave, invite and
//!   join have no command in OpenPMIx 4.2's protocol;
//! - a Get's answer is one byte object naming the target; a fence's carries
//!   no data (OpenPMIx's clients ask for it with Gets); a connect's carries
//!   the other namespaces' job data instead of the participants' records.

use crate::abi::*;
use crate::data::kind::Kind;
use crate::owned::{find, Info, Proc};
use crate::ptl::{cmd, Msg, Reader};
use crate::status::Res;

use super::{Barrier, Collective, Group, GroupOp, IofPull, IofPush, Monitor, Reply, Request};

/// What an OpenPMIx client's message asks for.
pub enum Incoming {
    /// Its job data (the first request after the handshake).
    JobData,
    Request(Request),
}

/// How requests are written for one OpenPMIx server.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    /// The fully described buffer form was negotiated.
    pub described: bool,
    /// The server's OpenPMIx major version.
    pub server_major: u32,
    /// The requester's effective uid (publications carry it; OpenPMIx's
    /// server takes it, rpmix's takes the kernel's).
    pub uid: u32,
}

/// Whether OpenPMIx's server answers the request (all but deregistrations).
pub fn answered(req: &Request) -> bool {
    !matches!(req, Request::DeregisterEvents { .. } | Request::Heartbeat)
}

/// `req` as OpenPMIx's command. PMIX_ERR_NOT_SUPPORTED: OpenPMIx 4.2's
/// protocol has no command for it.
pub fn encode(req: &Request, form: Form) -> Res<Vec<u8>> {
    let described = form.described;
    let m = |c| Msg::request(c, described);
    let out = match req {
        Request::Finalize => m(cmd::FINALIZE),
        Request::Abort { status, message, procs } => {
            let mut m = m(cmd::ABORT);
            m.status(*status);
            m.string(Some(message))?;
            m.procs(procs)?;
            m
        }
        Request::Commit { puts } => {
            let mut local = Msg::plain(described);
            let mut remote = Msg::plain(described);
            let (mut nl, mut nr) = (0, 0);
            for (scope, i) in puts {
                // A global key is in both; undefined scope counts as global.
                if *scope != PMIX_REMOTE {
                    local.kval(i.key(), i.value_ref())?;
                    nl += 1;
                }
                if *scope != PMIX_LOCAL {
                    remote.kval(i.key(), i.value_ref())?;
                    nr += 1;
                }
            }
            let mut m = m(cmd::COMMIT);
            if nl > 0 {
                m.scope(PMIX_LOCAL);
                m.buffer(&local)?;
            }
            if nr > 0 {
                m.scope(PMIX_REMOTE);
                m.buffer(&remote)?;
            }
            m
        }
        Request::Barrier(Barrier { collective, procs, info, .. }) => {
            let c = match collective {
                Collective::Fence => cmd::FENCENB,
                Collective::Connect => cmd::CONNECTNB,
                Collective::Disconnect => cmd::DISCONNECTNB,
            };
            let mut m = m(c);
            m.procs(procs)?;
            m.infos(info)?;
            m
        }
        Request::Get { target, key, info } => {
            let mut m = m(cmd::GETNB);
            m.string(Some(&target.nspace))?;
            m.rank(target.rank);
            m.infos(info)?;
            m.string(if key.is_empty() { None } else { Some(key) })?;
            m
        }
        Request::Publish { info } => {
            let mut m = m(cmd::PUBLISHNB);
            m.u32(form.uid);
            m.infos(info)?;
            m
        }
        Request::Lookup { keys, info } | Request::Unpublish { keys, info } => {
            let mut m = m(if matches!(req, Request::Lookup { .. }) { cmd::LOOKUPNB } else { cmd::UNPUBLISHNB });
            m.u32(form.uid);
            m.size(keys.len());
            for k in keys {
                m.string(Some(k))?;
            }
            m.infos(info)?;
            m
        }
        Request::Notify { status, range, info, .. } => {
            let mut m = m(cmd::NOTIFY);
            m.status(*status);
            m.range(*range);
            m.infos(info)?;
            m
        }
        Request::Log { data, directives } => {
            let stamp = directives.iter().any(|i| i.key() == "pmix.log.gtstmp" && i.truthy());
            let mut m = m(cmd::LOG);
            // SAFETY: time(NULL) cannot fail.
            m.time(if stamp { unsafe { libc::time(core::ptr::null_mut()) } } else { 0 });
            m.infos(data)?;
            m.infos(directives)?;
            m
        }
        Request::Spawn { job_info, apps } => {
            let mut m = m(cmd::SPAWNNB);
            m.infos(job_info)?;
            m.size(apps.len);
            if apps.len > 0 {
                // SAFETY: the array holds `len` valid apps.
                unsafe { m.items(PMIX_APP, apps.ptr, apps.len)? };
            }
            m
        }
        Request::Query { queries } => {
            let mut m = m(cmd::QUERY);
            m.size(queries.len);
            if queries.len > 0 {
                // SAFETY: the array holds `len` valid queries.
                unsafe { m.items(PMIX_QUERY, queries.ptr, queries.len)? };
            }
            m
        }
        Request::GetCredential { info } => {
            let mut m = m(cmd::GET_CREDENTIAL);
            m.infos(info)?;
            m
        }
        Request::ValidateCredential { credential, info } => {
            let mut m = m(cmd::VALIDATE_CRED);
            m.byte_object(credential)?;
            m.infos(info)?;
            m
        }
        Request::RegisterEvents { codes, info } => {
            let mut m = m(cmd::REGEVENTS);
            m.size(codes.len());
            if !codes.is_empty() {
                // SAFETY: `codes` holds codes.len() statuses.
                unsafe { m.items(PMIX_STATUS, codes.as_ptr() as *const u8, codes.len())? };
            }
            m.infos(info)?;
            m
        }
        Request::DeregisterEvents { codes } => {
            let mut m = m(cmd::DEREGEVENTS);
            for c in codes {
                m.status(*c);
            }
            m
        }
        Request::JobControl { targets, directives } => {
            let mut m = m(cmd::JOB_CONTROL);
            m.procs(targets)?;
            m.infos(directives)?;
            m
        }
        Request::Monitor(mo) => {
            let mut m = m(cmd::MONITOR);
            m.info_array(std::slice::from_ref(&mo.monitor))?;
            m.status(mo.error);
            m.infos(&mo.directives)?;
            m
        }
        Request::Allocate { directive, data } => {
            let mut m = m(cmd::ALLOC);
            m.alloc_directive(*directive);
            m.infos(data)?;
            m
        }
        Request::IofPull(IofPull { procs, channels, handle, directives }) => {
            let mut m = m(cmd::IOF_PULL);
            m.procs(procs)?;
            m.infos(directives)?;
            m.channel(*channels);
            // The server tags the output with this id: the pull's local handle.
            m.size(*handle as usize);
            m
        }
        Request::IofDeregister { id } => {
            let mut m = m(cmd::IOF_DEREG);
            m.infos(&[])?;
            m.size(*id as usize);
            m
        }
        Request::IofPush(IofPush { targets, data, directives }) => {
            let mut m = m(cmd::IOF_PUSH);
            m.procs(targets)?;
            m.infos(directives)?;
            // The end of the input is an empty byte object, as OpenPMIx's
            // own tools send it (PRRTE's host crashed on none at all).
            m.byte_object(data.as_deref().unwrap_or(&[]))?;
            m
        }
        Request::Group(Group { op: GroupOp::Construct, name, procs, directives }) => {
            let mut m = m(cmd::GROUP_CONSTRUCT);
            m.string(Some(name))?;
            m.procs(procs)?;
            m.infos(directives)?;
            m
        }
        Request::Group(Group { op: GroupOp::Destruct, name, procs, directives }) => {
            let mut m = m(cmd::GROUP_DESTRUCT);
            m.string(Some(name))?;
            // (4.2's servers read the directives right after the name)
            if form.server_major >= 5 {
                m.procs(procs)?;
            }
            m.infos(directives)?;
            m
        }
        // (OpenPMIx 4.2's protocol has no session control)
        Request::Heartbeat | Request::Group(_) | Request::SessionControl { .. } => {
            crate::pmix_debug!(1, "client: request {} has no OpenPMIx command", req.name());
            return Err(PMIX_ERR_NOT_SUPPORTED);
        }
    };
    Ok(out.into_bytes())
}

/// `reply` as OpenPMIx's answer to a client or tool (`asker`; `described`:
/// its buffer form). A failed request's answer is its status alone. A
/// connect's answer carries `connect_jobs`: the other namespaces' job data,
/// each one byte object in OpenPMIx's form, taken when the connect arrived.
/// PMIX_ERR_NOT_SUPPORTED: a tool's welcome, which OpenPMIx's handshake
/// carries instead.
pub fn encode_reply(reply: &Reply, described: bool, asker: &Proc, connect_jobs: &[Vec<u8>]) -> Res<Vec<u8>> {
    let status = reply.status();
    match reply {
        // (already in OpenPMIx's form, after no status of its own)
        Reply::JobData(bytes) => return Ok(bytes.clone()),
        Reply::ToolWelcome { .. } => return Err(PMIX_ERR_NOT_SUPPORTED),
        _ => {}
    }
    let mut m = Msg::plain(described);
    m.status(status);
    if status != PMIX_SUCCESS {
        return Ok(m.into_bytes());
    }
    match reply {
        Reply::Status(_) | Reply::JobData(_) | Reply::ToolWelcome { .. } => {}
        Reply::Get { target, data, .. } => {
            // The target and all its data, as one byte object (the client keeps it all).
            let mut obj = Msg::plain(described);
            obj.proc(if target.rank == PMIX_RANK_UNDEF { asker } else { target });
            for i in data {
                obj.kval(i.key(), i.value_ref())?;
            }
            m.byte_object(obj.bytes())?;
        }
        Reply::Infos { infos, .. } => m.infos(infos)?,
        Reply::Lookup { found, .. } => {
            m.size(found.len());
            m.pdata(found)?;
        }
        Reply::Spawn { nspace, .. } => m.string(Some(nspace))?,
        Reply::IofPull { id, .. } => m.size(*id as usize),
        Reply::Barrier { collective, .. } => {
            if *collective == Collective::Connect {
                for o in connect_jobs {
                    m.byte_object(o)?;
                }
            }
        }
        Reply::Credential { credential, info, .. } => {
            m.byte_object(credential)?;
            m.infos(info)?;
        }
    }
    Ok(m.into_bytes())
}

/// An OpenPMIx client's message (`who`: the sender, whom a notification
/// names as its source). PMIX_ERR_NOT_SUPPORTED: a command rpmix does not
/// read.
pub fn decode(body: &[u8], described: bool, who: &Proc) -> Res<Incoming> {
    let mut r = Reader::new(body, described);
    let c = r.command()?;
    let req = match c {
        cmd::REQ => return Ok(Incoming::JobData),
        cmd::FINALIZE => Request::Finalize,
        cmd::ABORT => {
            let status = r.status()?;
            let message = r.string()?.unwrap_or_default();
            let n = r.size()?;
            Request::Abort { status, message, procs: r.procs(n)? }
        }
        cmd::COMMIT => Request::Commit { puts: commit_puts(&mut r, described)? },
        cmd::FENCENB | cmd::CONNECTNB | cmd::DISCONNECTNB => {
            let collective = match c {
                cmd::FENCENB => Collective::Fence,
                cmd::CONNECTNB => Collective::Connect,
                _ => Collective::Disconnect,
            };
            let n = r.size()?;
            let procs = r.procs(n)?;
            Request::barrier(collective, procs, r.infos()?)
        }
        cmd::GETNB => {
            let ns = r.string()?.unwrap_or_default();
            let rank = r.rank()?;
            let info = r.infos()?;
            // (older clients send no key)
            let key = if r.at_end() { None } else { r.string()? };
            Request::Get { target: Proc::new(&ns, rank), key: key.unwrap_or_default(), info }
        }
        cmd::PUBLISHNB => {
            let _uid = r.u32()?;
            Request::Publish { info: r.infos()? }
        }
        cmd::LOOKUPNB | cmd::UNPUBLISHNB => {
            let _uid = r.u32()?;
            let n = r.size()?;
            let mut keys = Vec::new();
            for _ in 0..n.min(body.len()) {
                keys.push(r.string()?.unwrap_or_default());
            }
            let info = r.infos()?;
            if c == cmd::LOOKUPNB {
                Request::Lookup { keys, info }
            } else {
                Request::Unpublish { keys, info }
            }
        }
        cmd::NOTIFY => {
            let status = r.status()?;
            let range = r.range()?;
            Request::Notify { status, source: who.clone(), range, info: r.infos()? }
        }
        cmd::REGEVENTS => {
            let n = r.size()?;
            let codes = r.statuses(n)?;
            Request::RegisterEvents { codes, info: r.infos()? }
        }
        cmd::DEREGEVENTS => {
            let mut codes = Vec::new();
            while !r.at_end() {
                codes.push(r.status()?);
            }
            Request::DeregisterEvents { codes }
        }
        cmd::LOG => {
            let _time = r.time()?;
            Request::Log { data: r.infos()?, directives: r.infos()? }
        }
        cmd::JOB_CONTROL => {
            let n = r.size()?;
            let targets = r.procs(n)?;
            Request::JobControl { targets, directives: r.infos()? }
        }
        cmd::MONITOR => {
            let monitor = r.info_array(1)?.pop().ok_or(PMIX_ERR_UNPACK_FAILURE)?;
            let error = r.status()?;
            Request::Monitor(Box::new(Monitor { monitor, error, directives: r.infos()? }))
        }
        cmd::ALLOC => {
            let directive = r.alloc_directive()?;
            Request::Allocate { directive, data: r.infos()? }
        }
        cmd::QUERY => {
            let n = r.size()?;
            Request::Query { queries: r.c_array(Kind::Query, PMIX_QUERY, n)? }
        }
        cmd::SPAWNNB => {
            let job_info = r.infos()?;
            let n = r.size()?;
            Request::Spawn { job_info, apps: r.c_array(Kind::App, PMIX_APP, n)? }
        }
        cmd::GET_CREDENTIAL => Request::GetCredential { info: r.infos()? },
        cmd::VALIDATE_CRED => {
            let credential = r.byte_object()?;
            Request::ValidateCredential { credential, info: r.infos()? }
        }
        cmd::IOF_PULL => {
            let n = r.size()?;
            let procs = r.procs(n)?;
            let directives = r.infos()?;
            let channels = r.channel()?;
            let handle = u32::try_from(r.size()?).map_err(|_| PMIX_ERR_BAD_PARAM)?;
            Request::IofPull(IofPull { procs, channels, handle, directives })
        }
        cmd::IOF_DEREG => {
            let _directives = r.infos()?;
            let id = u32::try_from(r.size()?).map_err(|_| PMIX_ERR_BAD_PARAM)?;
            Request::IofDeregister { id }
        }
        cmd::IOF_PUSH => {
            let n = r.size()?;
            let targets = r.procs(n)?;
            let directives = r.infos()?;
            // (an empty byte object, or none, ends the input)
            let data = if r.at_end() { Vec::new() } else { r.byte_object()? };
            let end = data.is_empty() || find(&directives, PMIX_IOF_COMPLETE).is_some_and(|i| i.truthy());
            Request::IofPush(IofPush { targets, data: (!end).then_some(data), directives })
        }
        cmd::GROUP_CONSTRUCT => {
            let name = r.string()?.unwrap_or_default();
            let n = r.size()?;
            let procs = r.procs(n)?;
            Request::Group(Group { op: GroupOp::Construct, name, procs, directives: r.infos()? })
        }
        cmd::GROUP_DESTRUCT => {
            // (as OpenPMIx 4.2's clients send it, which rpmix's server speaks to)
            let name = r.string()?.unwrap_or_default();
            Request::Group(Group { op: GroupOp::Destruct, name, procs: Vec::new(), directives: r.infos()? })
        }
        other => {
            crate::pmix_debug!(1, "OpenPMIx client {who}: command {other} is not one rpmix reads");
            return Err(PMIX_ERR_NOT_SUPPORTED);
        }
    };
    Ok(Incoming::Request(req))
}

/// A commit's (scope, buffer of kvals) pairs to the end, as scoped puts: a
/// key in both the local and the remote buffer was put GLOBAL. The puts keep
/// the order of both buffers (each buffer holds its keys in the order they
/// were put), so that they encode again to the same bytes.
fn commit_puts(r: &mut Reader<'_>, described: bool) -> Res<Vec<(pmix_scope_t, Info)>> {
    let mut local: Vec<Info> = Vec::new();
    let mut remote: Vec<Info> = Vec::new();
    while !r.at_end() {
        let scope = r.scope()?;
        let mut b = Reader::new(r.buffer()?, described);
        let kvals = b.kvals_to_end()?;
        match scope {
            PMIX_REMOTE => remote.extend(kvals),
            _ => local.extend(kvals),
        }
    }
    let mut remote: std::collections::VecDeque<Info> = remote.into();
    let mut puts = Vec::new();
    for i in local {
        let Some(at) = remote.iter().position(|x| x.key() == i.key()) else {
            puts.push((PMIX_LOCAL, i));
            continue;
        };
        // What was put for remote peers alone before this global key.
        puts.extend(remote.drain(..at).map(|x| (PMIX_REMOTE, x)));
        remote.pop_front();
        puts.push((PMIX_GLOBAL, i));
    }
    puts.extend(remote.into_iter().map(|x| (PMIX_REMOTE, x)));
    Ok(puts)
}
