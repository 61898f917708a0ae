//! Modex: commits, Gets (answered, parked until a commit, or sent to the
//! host's direct_modex), PMIx_server_dmodex_request, and the data blobs
//! fences and dmodex carry between servers.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::status::Res;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{decode_infos, encode_infos, find, Info, Proc, Value};
use crate::runtime::{ConnId, Handle, Net};

use super::group;
use super::host::{Host, Upcall};
use super::nspace::Nspace;
use super::view::BlockedView;
use super::{reply, settled, ServerRole};
use crate::msg::Reply;

/// The modex part: what the host stored for its own Gets, the Gets waiting
/// for a commit or for the host's direct modex, and the host's dmodex
/// requests waiting for a commit.
#[derive(Default)]
pub(super) struct Modex {
    parked: Vec<ParkedGet>,
    parked_dmodex: Vec<ParkedDmodex>,
    /// The last direct-modex request id given.
    last_dmodex: u64,
    /// PMIx_Store_internal in server role.
    internal: HashMap<Proc, Vec<Info>>,
}

/// What a Get that goes to the host needs of the role.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub nspaces: &'a mut HashMap<String, Nspace>,
    pub handle: Handle<ServerRole>,
}

/// What a Get asks of another part than the modex (no PMIX_DATA_SCOPE
/// given): data qualified by a group's context id, or the sets a proc is in.
pub(super) enum Elsewhere {
    GroupData(usize),
    PsetNames,
}

/// The PMIX_DATA_SCOPE a Get gives, if any.
fn scope_of(info: &[Info]) -> Option<pmix_scope_t> {
    let v = find(info, PMIX_DATA_SCOPE).map(|i| i.value_ref()).filter(|v| v.r#type == PMIX_SCOPE || v.r#type == PMIX_UINT8)?;
    // SAFETY: a one-byte scope value, per the type check.
    Some(unsafe { v.data.scope })
}

pub(super) fn elsewhere(key: &str, info: &[Info]) -> Option<Elsewhere> {
    if scope_of(info).is_some() {
        return None;
    }
    if let Some(cid) = find(info, PMIX_GROUP_CONTEXT_ID).and_then(group::size_of_info) {
        return Some(Elsewhere::GroupData(cid));
    }
    (key == "pmix.pset.nms").then_some(Elsewhere::PsetNames)
}

/// A Get waiting for data a local client has not committed yet.
struct ParkedGet {
    conn: ConnId,
    req: u32,
    target: Proc,
    key: String,
    timer: Option<u64>,
    /// Set while the host's direct_modex upcall answers it (its request id).
    dmodex: Option<u64>,
    /// When it was parked: stored with the request (no other cost on a
    /// Get's path), read only when a tool asks (`Modex::view`).
    since: Instant,
}

/// A host's PMIx_server_dmodex_request for a local client that has not
/// committed yet: answered at its commit, its end, or REMOTE_GET_WAIT.
struct ParkedDmodex {
    target: Proc,
    timer: u64,
    done: DmodexDone,
}

/// How long a Get waits for a key a connected local client has not committed
/// (OpenPMIx's default): PMIX_ERR_TIMEOUT after it.
pub(super) const LOCAL_GET_WAIT: Duration = Duration::from_secs(2);

/// How long a Get waits for the host's direct_modex answer when the caller
/// gave no PMIX_TIMEOUT: long enough for a remote peer that is still starting,
/// finite if the host never answers. A later answer is stored, not replied.
pub(super) const REMOTE_GET_WAIT: Duration = Duration::from_secs(120);

/// One self-delimiting record of a fence/dmodex blob: `u32 len` + proc + infos.
/// Blobs of several servers concatenated stay a valid sequence of records.
pub(super) fn blob_record(e: &mut Encoder, p: &Proc, infos: &[Info]) -> Res {
    let mut inner = Encoder::default();
    p.encode(&mut inner);
    encode_infos(&mut inner, infos)?;
    e.u32(inner.bytes().len() as u32);
    e.raw(inner.bytes());
    Ok(())
}

pub(super) fn read_blob_record(d: &mut Decoder<'_>) -> Res<(Proc, Vec<Info>)> {
    let n = d.u32()? as usize;
    let bytes = d.take(n)?;
    let mut inner = Decoder::new(bytes);
    Ok((Proc::decode(&mut inner)?, decode_infos(&mut inner)?))
}

/// Parse a dmodex blob (as produced by `dmodex_blob`) into (proc, infos) records.
pub fn parse_blob(data: &[u8]) -> Res<Vec<(Proc, Vec<Info>)>> {
    let mut d = Decoder::new(data);
    let mut out = Vec::new();
    while d.remaining() > 0 {
        out.push(read_blob_record(&mut d)?);
    }
    Ok(out)
}

type DmodexDone = Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>;

/// Answer a PMIx_server_dmodex_request with what `proc` committed.
fn answer_dmodex(nspaces: &HashMap<String, Nspace>, proc: Proc, done: DmodexDone) {
    match dmodex_blob(nspaces, &proc) {
        Ok(b) => done(PMIX_SUCCESS, b),
        Err(e) => done(e, Vec::new()),
    }
}

/// Committed REMOTE/GLOBAL data of a local proc (not what the host
/// registered, which the asking server has from its own host), as a blob
/// for PMIx_server_dmodex_request.
fn dmodex_blob(nspaces: &HashMap<String, Nspace>, proc: &Proc) -> Res<Vec<u8>> {
    let ns = nspaces.get(&proc.nspace).ok_or(PMIX_ERR_NOT_FOUND)?;
    if !ns.is_local(proc.rank) {
        return Err(PMIX_ERR_NOT_FOUND);
    }
    let mut e = Encoder::default();
    blob_record(&mut e, proc, &ns.committed_for(proc.rank, false))?;
    Ok(e.into_bytes())
}

/// Answer a Get if the data is here: all data of the target rank (the client caches it).
fn answer_get(net: &mut Net, nspaces: &HashMap<String, Nspace>, conn: ConnId, req: u32, target: &Proc, key: &str) -> bool {
    let Some(ns) = nspaces.get(&target.nspace) else { return false };
    let mut data = if target.rank == PMIX_RANK_WILDCARD { ns.job.clone() } else { ns.data_for(target.rank, true) };
    if target.rank == PMIX_RANK_WILDCARD && !data.iter().any(|i| i.key() == key) {
        if let Some(v) = ns.derived(PMIX_RANK_WILDCARD, key) {
            data.push(Info::new(key, v));
        }
    }
    let found = key.is_empty() || data.iter().any(|i| i.key() == key) || ns.job.iter().any(|i| i.key() == key);
    if !found {
        return false;
    }
    // A job-level key asked of a rank (PMIX_PARENT_ID of oneself) comes
    // with the rank's data: OpenPMIx's client looks only there for it.
    if target.rank != PMIX_RANK_WILDCARD && !key.is_empty() && !data.iter().any(|i| i.key() == key) {
        if let Some(i) = ns.job.iter().find(|i| i.key() == key) {
            data.push(i.clone());
        }
    }
    reply(net, conn, req, Reply::Get { status: PMIX_SUCCESS, target: target.clone(), data });
    true
}

impl Modex {
    pub(super) fn store_internal(&mut self, proc: &Proc, info: Info) {
        let v = self.internal.entry(proc.clone()).or_default();
        v.retain(|i| i.key() != info.key());
        v.push(info);
    }

    /// PMIx_Get in server role: what this server holds, never waiting.
    pub(super) fn get_local(&self, nspaces: &HashMap<String, Nspace>, proc: &Proc, key: &str) -> Option<Value> {
        if let Some(v) = self.internal.get(proc).and_then(|l| l.iter().find(|i| i.key() == key)) {
            return Some(v.value());
        }
        let ns = nspaces.get(&proc.nspace)?;
        if proc.rank != PMIX_RANK_WILDCARD {
            if let Some(i) = ns.data_for(proc.rank, true).into_iter().find(|i| i.key() == key) {
                return Some(i.value());
            }
        }
        ns.job.iter().find(|i| i.key() == key).map(|i| i.value()).or_else(|| ns.derived(PMIX_RANK_WILDCARD, key))
    }

    /// Everything this server holds for one rank (PMIx_Get with a NULL key in
    /// the server's process): what the host stored with PMIx_Store_internal,
    /// registered, and what the rank committed.
    pub(super) fn get_all(&self, nspaces: &HashMap<String, Nspace>, proc: &Proc) -> Vec<Info> {
        let mut out: Vec<Info> = self.internal.get(proc).cloned().unwrap_or_default();
        if let Some(ns) = nspaces.get(&proc.nspace) {
            for i in ns.data_for(proc.rank, true) {
                if !out.iter().any(|o| o.key() == i.key()) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// PMIx_server_dmodex_request: `proc`'s data for another node, once it
    /// committed (as OpenPMIx, a request that comes first waits for that
    /// commit, the proc's end, or REMOTE_GET_WAIT).
    pub(super) fn dmodex_request(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, proc: Proc, done: DmodexDone) {
        let waits = nspaces.get(&proc.nspace).is_some_and(|ns| {
            !ns.has_committed.contains(&proc.rank) && ns.clients.get(&proc.rank).is_some_and(|r| !r.finalized && !r.terminated)
        });
        if waits {
            let timer = net.timer(REMOTE_GET_WAIT);
            self.parked_dmodex.push(ParkedDmodex { target: proc, timer, done });
            return;
        }
        answer_dmodex(nspaces, proc, done);
    }

    /// The parked dmodex requests for `target` (it committed or ended) are answered now.
    fn release_dmodex(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, target: &Proc) {
        let (now, keep): (Vec<ParkedDmodex>, Vec<ParkedDmodex>) = std::mem::take(&mut self.parked_dmodex).into_iter().partition(|p| p.target == *target);
        self.parked_dmodex = keep;
        for p in now {
            net.cancel_timer(p.timer);
            answer_dmodex(nspaces, p.target, p.done);
        }
    }

    pub(super) fn on_commit(&mut self, net: &mut Net, nspaces: &mut HashMap<String, Nspace>, who: &Proc, items: Vec<(pmix_scope_t, Info)>) -> Res {
        let ns = nspaces.get_mut(&who.nspace).ok_or(PMIX_ERR_NOT_FOUND)?;
        let c = ns.committed.entry(who.rank).or_default();
        for (scope, i) in items {
            c.retain(|(_, x)| x.key() != i.key());
            c.push((scope, i));
        }
        ns.has_committed.insert(who.rank);
        self.retry_parked(net, nspaces, who);
        self.release_dmodex(net, nspaces, who);
        Ok(())
    }

    /// A Get the modex answers (`elsewhere` said no other part does).
    pub(super) fn on_get(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, target: Proc, key: String, info: Vec<Info>) -> Res {
        let net = &mut *cx.net;
        let immediate = find(&info, PMIX_IMMEDIATE).is_some_and(|i| i.truthy());
        let timeout = find(&info, PMIX_TIMEOUT).and_then(|i| i.as_u32());
        if let Some(scope) = scope_of(&info) {
            // Only what the target committed in that scope.
            let data: Vec<Info> = cx
                .nspaces
                .get(&target.nspace)
                .and_then(|ns| ns.committed.get(&target.rank))
                .map(|c| c.iter().filter(|(s, i)| *s == scope && i.key() == key).map(|(_, i)| i.clone()).collect())
                .unwrap_or_default();
            let status = if data.is_empty() { PMIX_ERR_NOT_FOUND } else { PMIX_SUCCESS };
            reply(net, conn, req, Reply::Get { status, target, data });
            return Ok(());
        }
        if answer_get(net, cx.nspaces, conn, req, &target, &key) {
            return Ok(());
        }
        // A local client of ours: wait for its commit (or its end).
        let client = cx.nspaces.get(&target.nspace).and_then(|ns| ns.clients.get(&target.rank));
        if !immediate && target.rank != PMIX_RANK_WILDCARD && client.is_some_and(|r| !r.finalized && !r.terminated) {
            let connected = client.is_some_and(|r| r.conn.is_some());
            // PMIX_TIMEOUT 0 waits until the target commits the key or ends; a
            // target not connected yet is waited for until it ends (OpenPMIx).
            let wait = match timeout {
                Some(0) => None,
                Some(t) => Some(Duration::from_secs(t as u64)),
                None => connected.then_some(LOCAL_GET_WAIT),
            };
            let timer = wait.map(|w| net.timer(w));
            self.parked.push(ParkedGet { conn, req, target, key, timer, dmodex: None, since: Instant::now() });
            return Ok(());
        }
        // A proc this server does not serve: ask the host (direct modex).
        let remote = target.rank != PMIX_RANK_WILDCARD && !cx.nspaces.get(&target.nspace).is_some_and(|ns| ns.is_local(target.rank));
        if remote && !immediate {
            let wait = timeout.filter(|t| *t > 0).map_or(REMOTE_GET_WAIT, |t| Duration::from_secs(t as u64));
            // One request per proc in flight (as OpenPMIx): a Get for a proc
            // already asked for waits for that answer (the whole proc's data).
            if let Some(id) = self.parked.iter().find_map(|p| if p.target == target { p.dmodex } else { None }) {
                let timer = Some(net.timer(wait));
                self.parked.push(ParkedGet { conn, req, target, key, timer, dmodex: Some(id), since: Instant::now() });
                return Ok(());
            }
            let mut dinfo = info;
            if !key.is_empty() {
                dinfo.push(Info::new("pmix.req.key", Value::string(&key)));
            }
            self.last_dmodex += 1;
            let id = self.last_dmodex;
            let timer = Some(net.timer(wait));
            self.parked.push(ParkedGet { conn, req, target: target.clone(), key, timer, dmodex: Some(id), since: Instant::now() });
            // The host may answer inside the upcall, later, or (wrongly) both:
            // the answer is queued to this thread and the first one wins.
            let h = cx.handle.clone();
            let t2 = target.clone();
            let u = cx.host.direct_modex(&target, &dinfo, Box::new(move |st, data| {
                h.run(move |s, net| s.dmodex_done(net, id, &t2, st, &data));
            }));
            if let Upcall::Now(st) = u {
                let st = if st == PMIX_SUCCESS || st == PMIX_ERR_NOT_SUPPORTED || st == PMIX_OPERATION_SUCCEEDED { PMIX_ERR_NOT_FOUND } else { st };
                while let Some(p) = self.take_parked(net, |p| p.dmodex == Some(id)) {
                    reply(net, p.conn, p.req, Reply::Status(st));
                }
            }
            return Ok(());
        }
        reply(net, conn, req, Reply::Status(PMIX_ERR_NOT_FOUND));
        Ok(())
    }

    /// The host's direct-modex answer: a blob from the owning server's
    /// PMIx_server_dmodex_request. Store it, then answer the Get.
    pub(super) fn dmodex_done(&mut self, net: &mut Net, nspaces: &mut HashMap<String, Nspace>, id: u64, target: &Proc, st: pmix_status_t, data: &[u8]) {
        if st == PMIX_SUCCESS {
            match parse_blob(data) {
                Ok(records) => {
                    for (p, infos) in records {
                        let ns = nspaces.entry(p.nspace.clone()).or_insert_with(|| Nspace::new(&p.nspace));
                        let c = ns.committed.entry(p.rank).or_default();
                        for i in infos {
                            c.retain(|(_, x)| x.key() != i.key());
                            c.push((PMIX_GLOBAL, i));
                        }
                        ns.has_committed.insert(p.rank);
                    }
                }
                Err(_) => crate::pmix_debug!(1, "direct modex for {target}: the host's data does not decode"),
            }
        }
        // Every Get waiting for this request (none: already answered, by a
        // timeout or an earlier completion from the host).
        let mut answered = 0;
        while let Some(p) = self.take_parked(net, |p| p.dmodex == Some(id)) {
            answered += 1;
            if !answer_get(net, nspaces, p.conn, p.req, target, &p.key) {
                reply(net, p.conn, p.req, Reply::Status(if st == PMIX_SUCCESS { PMIX_ERR_NOT_FOUND } else { settled(st) }));
            }
        }
        if answered == 0 {
            crate::pmix_debug!(5, "direct modex for {target}: late or repeated answer ignored");
        }
    }

    /// Remove the first parked Get matching `pred`, cancelling its timer.
    fn take_parked(&mut self, net: &mut Net, pred: impl Fn(&ParkedGet) -> bool) -> Option<ParkedGet> {
        let i = self.parked.iter().position(pred)?;
        let p = self.parked.remove(i);
        if let Some(t) = p.timer {
            net.cancel_timer(t);
        }
        Some(p)
    }

    /// After a commit of `target`: answer the parked Gets it now satisfies;
    /// the others keep waiting (a later commit may bring their key).
    fn retry_parked(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, target: &Proc) {
        let mut i = 0;
        while i < self.parked.len() {
            let p = &self.parked[i];
            if p.dmodex.is_none() && p.target == *target && answer_get(net, nspaces, p.conn, p.req, &p.target, &p.key) {
                let p = self.parked.remove(i);
                if let Some(t) = p.timer {
                    net.cancel_timer(t);
                }
            } else {
                i += 1;
            }
        }
    }

    /// `target` ended (finalized, lost, deregistered): its parked Gets end
    /// with what is there, else NOT_FOUND; so do the dmodex requests for it.
    pub(super) fn release(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, target: &Proc) {
        self.release_dmodex(net, nspaces, target);
        let (now, keep): (Vec<ParkedGet>, Vec<ParkedGet>) =
            std::mem::take(&mut self.parked).into_iter().partition(|p| p.dmodex.is_none() && p.target == *target);
        self.parked = keep;
        for p in now {
            if let Some(t) = p.timer {
                net.cancel_timer(t);
            }
            if !answer_get(net, nspaces, p.conn, p.req, &p.target, &p.key) {
                reply(net, p.conn, p.req, Reply::Status(PMIX_ERR_NOT_FOUND));
            }
        }
    }

    /// A parked Get's or dmodex request's timeout: it fails with TIMEOUT.
    pub(super) fn timer(&mut self, net: &mut Net, timer: u64) {
        if let Some(i) = self.parked.iter().position(|p| p.timer == Some(timer)) {
            let p = self.parked.remove(i);
            reply(net, p.conn, p.req, Reply::Status(PMIX_ERR_TIMEOUT));
        }
        if let Some(i) = self.parked_dmodex.iter().position(|p| p.timer == timer) {
            (self.parked_dmodex.remove(i).done)(PMIX_ERR_TIMEOUT, Vec::new());
        }
    }

    /// Server finalize: every waiting Get and dmodex request ends with an error.
    pub(super) fn fail_all(&mut self, net: &mut Net) {
        for p in std::mem::take(&mut self.parked) {
            reply(net, p.conn, p.req, Reply::Status(PMIX_ERR_LOST_CONNECTION));
        }
        for p in std::mem::take(&mut self.parked_dmodex) {
            (p.done)(PMIX_ERR_LOST_CONNECTION, Vec::new());
        }
    }

    /// The parked Gets, read-only, for a tool's query: who waits (the
    /// connection's peer, by `peer_of`), for which key of which proc, since when.
    pub(super) fn view(&self, peer_of: impl Fn(ConnId) -> Option<Proc>) -> Vec<BlockedView> {
        self.parked
            .iter()
            .filter_map(|p| {
                let who = peer_of(p.conn)?;
                let key = if p.key.is_empty() { "(all)" } else { p.key.as_str() };
                Some(BlockedView { proc: who, call: "get", what: format!("{key} of {}", p.target), since: p.since })
            })
            .collect()
    }

    /// A closed connection's parked Gets: nobody to answer any more.
    pub(super) fn drop_conn(&mut self, conn: ConnId) {
        self.parked.retain(|p| p.conn != conn);
    }
}
