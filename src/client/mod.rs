//! The client role: connection to the local server, the data cache every
//! Get looks at first (read directly by the calling thread, no hop to the
//! progress thread), and requests whose replies complete callbacks.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use std::time::Duration;

use crate::abi::*;
use crate::status::Res;
use crate::data::pack::Decoder;
use crate::events;
use crate::owned::{decode_infos, decode_str, Info, Proc, Value};
use crate::runtime::{self, ConnId, Handle, Net, Oneshot, Role, Stream};
use crate::msg::{AnswerKind, Hello, Reply, Request, ToolHello, Welcome};
use waiter::ReplyDone;
use crate::wire;

/// Data the client knows about one namespace: rank (WILDCARD = job level)
/// -> key -> info, and the job's maps, read once when first needed: a
/// rank's host, node and local rank are derived from them, never held per
/// rank, so a client's memory follows its own work, not the job's size.
#[derive(Default)]
struct NsData {
    ranks: HashMap<pmix_rank_t, HashMap<String, Info>>,
    /// Records the server sent at init, still encoded: decoded on first use
    /// (a rank of a thousand local peers decodes only those it asks about).
    encoded: HashMap<pmix_rank_t, Box<[u8]>>,
    /// The namespace's job data snapshot the server shares with all its
    /// local clients (`msg::snapshot`), mapped: a rank's record there is
    /// decoded on first use, unless `ranks` holds the rank already (decoded,
    /// or data put since, which decoded it first).
    shared: Option<Arc<crate::msg::snapshot::Mapped>>,
    layout: std::sync::OnceLock<Option<Arc<crate::layout::Layout>>>,
}

impl NsData {
    fn layout(&self) -> Option<&crate::layout::Layout> {
        self.layout
            .get_or_init(|| {
                let job = self.ranks.get(&PMIX_RANK_WILDCARD)?;
                let map = |k: &str| job.get(k).and_then(|i| i.as_str());
                let (nodes, procs) = (map("pmix.nmap"), map("pmix.pmap"));
                if nodes.is_none() && procs.is_none() {
                    return None;
                }
                crate::layout::Layout::parse(nodes.as_deref(), procs.as_deref()).map(Arc::new)
            })
            .as_deref()
    }
}

/// Lookups borrow the caller's strings: a cached Get allocates only the
/// value it returns.
#[derive(Default)]
pub struct Cache {
    map: RwLock<HashMap<String, NsData>>,
}

impl NsData {
    /// Decode `rank`'s encoded record into the cache (a record that does
    /// not decode is dropped: a miss, as if never sent).
    fn decode_pending(&mut self, rank: pmix_rank_t) {
        if let Some(bytes) = self.encoded.remove(&rank) {
            return self.decode_record(rank, &bytes);
        }
        if self.ranks.contains_key(&rank) {
            return;
        }
        let Some(shared) = self.shared.clone() else { return };
        if let Some(bytes) = shared.record(rank) {
            self.decode_record(rank, bytes);
        }
        // (decoded, or a record that does not decode: either way used)
        self.ranks.entry(rank).or_default();
    }

    /// A record not decoded yet for `rank`, inline or in the shared snapshot.
    fn pending(&self, rank: pmix_rank_t) -> bool {
        self.encoded.contains_key(&rank) || (!self.ranks.contains_key(&rank) && self.shared.as_ref().is_some_and(|s| s.record(rank).is_some()))
    }

    fn decode_record(&mut self, rank: pmix_rank_t, bytes: &[u8]) {
        match decode_infos(&mut Decoder::new(bytes)) {
            Ok(infos) => {
                let v = self.ranks.entry(rank).or_default();
                for i in infos {
                    v.entry(i.key().to_string()).or_insert(i);
                }
            }
            Err(_) => crate::pmix_debug!(1, "client: the job data of rank {rank} does not decode"),
        }
    }
}

impl Cache {
    /// Keep one rank's record as the server encoded it (see NsData::encoded).
    pub fn put_encoded(&self, nspace: &str, rank: pmix_rank_t, record: &[u8]) {
        let mut m = self.map.write();
        m.entry(nspace.to_string()).or_default().encoded.insert(rank, record.into());
    }

    /// Use the namespace's shared snapshot for the records it holds.
    pub fn put_shared(&self, nspace: &str, snapshot: Arc<crate::msg::snapshot::Mapped>) {
        let mut m = self.map.write();
        m.entry(nspace.to_string()).or_default().shared = Some(snapshot);
    }

    /// Decode `rank`'s pending record, if it has one (write lock only then).
    fn ready(&self, nspace: &str, rank: pmix_rank_t) {
        if self.map.read().get(nspace).is_some_and(|ns| ns.pending(rank)) {
            if let Some(ns) = self.map.write().get_mut(nspace) {
                ns.decode_pending(rank);
            }
        }
    }

    pub fn put(&self, p: &Proc, infos: Vec<Info>) {
        let mut m = self.map.write();
        let ns = m.entry(p.nspace.clone()).or_default();
        ns.decode_pending(p.rank); // what is put now overrides it
        if p.rank == PMIX_RANK_WILDCARD && infos.iter().any(|i| i.key() == "pmix.nmap" || i.key() == "pmix.pmap") {
            ns.layout = Default::default(); // read again when next needed
        }
        let v = ns.ranks.entry(p.rank).or_default();
        for i in infos {
            v.insert(i.key().to_string(), i);
        }
    }

    /// The value of `key` for (nspace, rank): the proc's own data, then what
    /// the job's maps say of it, then its job's data.
    #[inline]
    pub fn lookup(&self, nspace: &str, rank: pmix_rank_t, key: &str) -> Option<Value> {
        let m = self.map.read();
        let ns = m.get(nspace)?;
        let held = ns.ranks.get(&rank);
        // (a rank held is decoded: putting data for it decoded it first)
        if held.is_none() && ns.pending(rank) {
            drop(m);
            return self.lookup_first_use(nspace, rank, key);
        }
        let copy = |i: &Info| {
            // SAFETY: a valid cached value; a failed copy (out of memory) is a miss.
            unsafe { Value::copy_of(&i.0.value) }.ok()
        };
        if let Some(i) = held.and_then(|v| v.get(key)) {
            return copy(i);
        }
        if let Some(v) = Self::derived(ns, rank, key) {
            return Some(v);
        }
        if rank == PMIX_RANK_WILDCARD {
            return None;
        }
        ns.ranks.get(&PMIX_RANK_WILDCARD).and_then(|v| v.get(key)).and_then(copy)
    }

    /// What the job's maps say of `rank`'s `key` (kept out of the hot path).
    #[cold]
    #[inline(never)]
    fn derived(ns: &NsData, rank: pmix_rank_t, key: &str) -> Option<Value> {
        ns.layout().and_then(|l| l.derived(rank, key))
    }

    /// A peer's record used for the first time: decode it (write lock), then look again.
    #[cold]
    #[inline(never)]
    fn lookup_first_use(&self, nspace: &str, rank: pmix_rank_t, key: &str) -> Option<Value> {
        self.ready(nspace, rank);
        self.lookup(nspace, rank, key)
    }

    pub fn get(&self, p: &Proc, key: &str) -> Option<Value> {
        self.lookup(&p.nspace, p.rank, key)
    }

    /// Everything held for one rank (not its job's data), sorted by key.
    pub fn all_of(&self, p: &Proc) -> Vec<Info> {
        self.ready(&p.nspace, p.rank);
        let m = self.map.read();
        let Some(ns) = m.get(&p.nspace) else { return Vec::new() };
        let mut v: Vec<Info> = ns.ranks.get(&p.rank).map(|r| r.values().cloned().collect()).unwrap_or_default();
        if p.rank != PMIX_RANK_WILDCARD {
            for i in ns.layout().map(|l| l.derived_all(p.rank)).unwrap_or_default() {
                if !v.iter().any(|x| x.key() == i.key()) {
                    v.push(i);
                }
            }
        }
        v.sort_by(|a, b| a.key().cmp(b.key()));
        v
    }

    /// The ranks of `nspace` on the node named `host`, from the job's maps
    /// (None: the client holds no maps for it).
    pub fn ranks_on(&self, nspace: &str, host: &str) -> Option<Vec<pmix_rank_t>> {
        let m = self.map.read();
        let l = m.get(nspace)?.layout()?;
        if !l.has_procs() {
            return None;
        }
        Some(l.node_index(host).map(|n| l.ranks_on(n)).unwrap_or_default())
    }
}

/// The event handlers of this client or tool: one registry for all its
/// server connections, so handlers hear every server and outlive changes of
/// the primary one (PMIx_tool_set_server, attach, disconnect).
pub static EVENTS: parking_lot::Mutex<events::Registry> = parking_lot::Mutex::new(events::Registry::new());

pub fn events_of_client() -> parking_lot::MutexGuard<'static, events::Registry> {
    EVENTS.lock()
}

/// The chain of handlers an event for this process reaches; none: the
/// event is kept for a handler registered later (`run_due`), as OpenPMIx's
/// client keeps its notifications.
pub fn chain_or_keep(status: pmix_status_t, source: &Proc, info: &[Info]) -> Vec<events::Handler> {
    let mut reg = events_of_client();
    let chain = reg.chain_for(status, info);
    if chain.is_empty() {
        reg.keep(status, source, info);
    }
    chain
}

/// Deliver the kept events a handler registered since matched, each once,
/// to the chain registered then (called after every edit of the registry).
pub fn run_due(post: events::Poster) {
    let due = events_of_client().take_due();
    for (chain, k) in due {
        crate::pmix_debug!(5, "client: kept event {} from {} to a handler registered later", k.status, k.source);
        events::notify(chain, k.status, &k.source, &k.info, post.clone());
    }
}

/// The cache of the initialised client, reachable without the CLIENT lock.
pub static CACHE: RwLock<Option<Arc<Cache>>> = RwLock::new(None);

/// Get straight from the cache (the hot path of PMIx_Get): None = not cached.
pub fn cached(nspace: &str, rank: pmix_rank_t, key: &str) -> Option<Value> {
    let c = CACHE.read();
    c.as_ref()?.lookup(nspace, rank, key)
}

pub use link::{Direct, Link};
pub use waiter::{Cont, Waiter};
use openpmix::Dialect;

pub struct ClientRole {
    conn: Option<ConnId>,
    /// Shared with user threads, which send requests themselves (`link.rs`).
    pending: Arc<Mutex<link::Pending>>,
    pub cache: Arc<Cache>,
    handle: Option<Handle<ClientRole>>,
    pub me: Proc,
    /// PMIx_IOF_pull handlers: local handle -> (server's id, callback).
    /// IOF pulls by local handle.
    pub iof: HashMap<u32, iof::Pull>,
    /// Buffering-time timers: timer id -> local pull handle.
    pub iof_timers: HashMap<u64, u32>,
    /// The server at the other end, when known (named in a lost-connection event).
    server: Option<Proc>,
    /// The largest frame taken from the server (`answer_limit`).
    read_limit: usize,
    /// The server's protocol: rpmix's, or OpenPMIx's (`openpmix.rs`).
    dialect: Dialect,
}

/// The largest answer a client takes from its server: a fence of the whole
/// job carries every rank's data, so it grows with the job (4 KiB a rank
/// over the default), up to what the wire can describe.
fn answer_limit(cache: &Cache, me: &Proc) -> usize {
    let ranks = cache.lookup(&me.nspace, PMIX_RANK_WILDCARD, "pmix.job.size").and_then(|v| v.as_u32()).unwrap_or(0);
    (runtime::MAX_FRAME + ranks as usize * 4096).min(runtime::MAX_SEND) + runtime::HEADER
}

impl ClientRole {
    pub fn set_handle(&mut self, h: Handle<ClientRole>) {
        self.handle = Some(h);
    }

    pub fn poster(&self) -> events::Poster {
        let h = self.handle.clone().expect("client handle set at start");
        Arc::new(move |f| {
            h.run(move |_, _| f());
        })
    }

    /// Send a request; `cont` runs with the server's answer (or with
    /// PMIX_ERR_UNREACH / PMIX_ERR_LOST_CONNECTION alone when there is no server).
    pub fn request(&mut self, net: &mut Net, req: Request, cont: Cont) {
        let Some(conn) = self.conn else {
            cont(self, net, Reply::Status(PMIX_ERR_UNREACH));
            return;
        };
        let (tag, body, reading) = match self.dialect.prepare(req) {
            Ok(x) => x,
            Err(st) => return cont(self, net, Reply::Status(st)),
        };
        if link::too_large(&body) {
            cont(self, net, Reply::Status(PMIX_ERR_BAD_PARAM));
            return;
        }
        let added = self.pending.lock().add(reading, Waiter::Role(cont));
        match added {
            Ok(req) => {
                net.send(conn, req, tag, &body);
            }
            Err(w) => w.answer(self, net, Reply::Status(PMIX_ERR_UNREACH)),
        }
    }

    /// Answer everything still waiting with `st`; nothing can wait afterwards.
    fn fail_pending(&mut self, net: &mut Net, st: pmix_status_t) {
        let waiting = self.pending.lock().close();
        for w in waiting {
            w.answer(self, net, Reply::Status(st));
        }
    }


    pub fn connected(&self) -> bool {
        self.conn.is_some()
    }

}

impl ClientRole {
    /// Deliver every pull's held output (the stream cannot go on).
    fn flush_iof(&mut self) {
        for (h, p) in self.iof.iter_mut() {
            let ready = p.due(true);
            p.emit(*h, ready);
        }
    }

    fn lost(&mut self, net: &mut Net) {
        self.conn = None;
        self.flush_iof();
        self.fail_pending(net, PMIX_ERR_LOST_CONNECTION);
        // Which server went (a tool may hold several): PMIX_EVENT_AFFECTED_PROC.
        let info: Vec<Info> = self.server.iter().map(|s| Info::new("pmix.evproc", Value::proc(s))).collect();
        let chain = events_of_client().chain_for(PMIX_ERR_LOST_CONNECTION, &info);
        let me = self.me.clone();
        events::notify(chain, PMIX_ERR_LOST_CONNECTION, &me, &info, self.poster());
    }
}

impl ClientRole {
    /// A message from an OpenPMIx server: its tag (`req` here) says what it is.
    fn on_openpmix_frame(&mut self, net: &mut Net, req: u32, body: &[u8], described: bool) {
        match req {
            crate::ptl::TAG_NOTIFY => match openpmix::event(body, described) {
                Ok((st, src, info)) => {
                    let chain = chain_or_keep(st, &src, &info);
                    events::notify(chain, st, &src, &info, self.poster());
                }
                Err(_) => crate::pmix_debug!(1, "client: an event from the OpenPMIx server does not decode"),
            },
            crate::ptl::TAG_IOF => match openpmix::output(body, described) {
                Ok(o) => {
                    // (pull 0 is the server's own output, which every tool gets unasked)
                    let Some(p) = self.iof.get_mut(&o.pull) else { return };
                    p.forward(o.pull, o.source, o.channel, &o.data, o.complete);
                }
                Err(_) => crate::pmix_debug!(1, "client: forwarded output from the OpenPMIx server does not decode"),
            },
            t if t < crate::ptl::FIRST_REQUEST_TAG => {
                crate::pmix_debug!(5, "client: OpenPMIx message on tag {t} not handled");
            }
            _ => {
                let waiter = self.pending.lock().take(req);
                match waiter {
                    Some((reading, w)) => w.answer(self, net, reading.read(body)),
                    None => crate::pmix_debug!(1, "client: an answer on tag {req} that nothing waits for"),
                }
            }
        }
    }
}

impl Role for ClientRole {
    fn on_start(&mut self, handle: Handle<ClientRole>) {
        self.set_handle(handle);
    }

    /// Only an answer may be handled by a caller running the loop: its
    /// waiter is a blocking call's (any other request starts the thread).
    fn runs_inline(&self, _id: ConnId, tag: u16) -> bool {
        matches!(self.dialect, Dialect::Rpmix) && tag == wire::REPLY
    }

    fn on_frame(&mut self, net: &mut Net, _id: ConnId, req: u32, tag: u16, body: &[u8]) {
        if let Dialect::OpenPmix { described, .. } = self.dialect {
            return self.on_openpmix_frame(net, req, body, described);
        }
        match tag {
            wire::REPLY => {
                if body.len() < 4 {
                    crate::pmix_debug!(1, "client: short reply from the server");
                    return;
                }
                let waiter = self.pending.lock().take(req);
                if let Some((reading, w)) = waiter {
                    w.answer(self, net, reading.read(body));
                }
            }
            wire::EVENT => {
                let mut d = Decoder::new(body);
                let parsed = (|| -> Res<(i32, Proc, Vec<Info>)> { Ok((d.u32()? as i32, Proc::decode(&mut d)?, decode_infos(&mut d)?)) })();
                match parsed {
                    Ok((st, src, info)) => {
                        let chain = chain_or_keep(st, &src, &info);
                        crate::pmix_debug!(5, "client {}: event {st} from {src}: {} handlers", self.me, chain.len());
                        events::notify(chain, st, &src, &info, self.poster());
                    }
                    Err(_) => crate::pmix_debug!(1, "client: event from the server does not decode"),
                }
            }
            wire::IOF => {
                let mut d = Decoder::new(body);
                // (handle, source, channel, bytes, end, origin host, origin pid)
                type Frame<'a> = (u32, Proc, u32, &'a [u8], bool, String, u32);
                let parsed = (|| -> Res<Frame<'_>> {
                    Ok((d.u32()?, Proc::decode(&mut d)?, d.u32()?, d.blob()?, d.u32()? != 0, decode_str(&mut d)?, d.u32()?))
                })();
                let Ok((handle, source, channel, data, complete, host, pid)) = parsed else {
                    crate::pmix_debug!(1, "client: forwarded output does not decode");
                    return;
                };
                let Some(p) = self.iof.get_mut(&handle) else {
                    // Output of a job this process spawned with PMIX_FWD_*:
                    // written out as it comes, as a launcher's own would be.
                    if handle == wire::SPAWNED_OUTPUT {
                        spawned_output(channel as pmix_iof_channel_t, data);
                    }
                    return;
                };
                p.set_origin(&source, &host, pid);
                p.forward(handle, source, channel as pmix_iof_channel_t, data, complete);
            }
            _ => crate::pmix_debug!(1, "client: unexpected message tag {tag} from the server"),
        }
    }

    fn read_limit(&self, _id: ConnId) -> usize {
        self.read_limit
    }

    /// One connection, to a server this process trusts.
    fn read_cap_all(&self) -> usize {
        self.read_limit.saturating_mul(2)
    }

    fn on_close(&mut self, net: &mut Net, _id: ConnId) {
        crate::pmix_debug!(1, "client {}: lost the connection to the server", self.me);
        self.lost(net);
    }

    fn on_timer(&mut self, net: &mut Net, timer: u64) {
        // Output held for PMIX_IOF_BUFFERING_TIME: deliver what is due, re-arm.
        let Some(h) = self.iof_timers.remove(&timer) else { return };
        let Some(p) = self.iof.get_mut(&h) else { return };
        let ready = p.due(false);
        p.emit(h, ready);
        if let Some(t) = p.buffering_time() {
            let id = net.timer(t / 4);
            self.iof_timers.insert(id, h);
        }
    }

    fn on_stop(&mut self, net: &mut Net) {
        self.flush_iof();
        self.fail_pending(net, PMIX_ERR_LOST_CONNECTION);
    }
}

/// This process's client state (PMIx_Init .. last PMIx_Finalize).
pub struct ClientGlobal {
    pub refcount: u32,
    pub me: Proc,
    pub cache: Arc<Cache>,
    pub engine: Option<Link>,
    /// Put data not yet committed: (scope, info).
    pub puts: Vec<(pmix_scope_t, Info)>,
    /// The server `engine` is connected to (the primary one: requests go
    /// there) and the path of its socket.
    pub server: Option<(Proc, String)>,
    /// A tool's further server connections (PMIx_tool_attach_to_server),
    /// any of which PMIx_tool_set_server can make the primary one.
    pub others: Vec<(Proc, String, Link)>,
}

pub static CLIENT: Mutex<Option<ClientGlobal>> = Mutex::new(None);

pub fn handle() -> Option<Handle<ClientRole>> {
    CLIENT.lock().as_ref().and_then(|g| g.engine.as_ref().map(|e| e.direct.handle.clone()))
}

/// The primary server connection's direct path (user threads send on it).
pub fn direct() -> Option<Direct> {
    CLIENT.lock().as_ref().and_then(|g| g.engine.as_ref().map(|e| e.direct.clone()))
}

/// The progress thread of our connection to `server` (primary or not).
pub fn handle_of(server: &Proc) -> Option<Handle<ClientRole>> {
    let g = CLIENT.lock();
    let c = g.as_ref()?;
    if c.server.as_ref().is_some_and(|(p, _)| p == server) {
        if let Some(e) = &c.engine {
            return Some(e.direct.handle.clone());
        }
    }
    c.others.iter().find(|(p, _, _)| p == server).map(|(_, _, e)| e.direct.handle.clone())
}

pub fn me() -> Option<Proc> {
    CLIENT.lock().as_ref().map(|g| g.me.clone())
}

pub fn cache() -> Option<Arc<Cache>> {
    CLIENT.lock().as_ref().map(|g| g.cache.clone())
}

/// Send one frame and read the reply (blocking, before the progress thread exists).
/// Forwarded output of a job this process spawned: to our own stdout or
/// stderr, unchanged.
fn spawned_output(channel: pmix_iof_channel_t, data: &[u8]) {
    let r = if channel & PMIX_FWD_STDERR_CHANNEL != 0 {
        let mut e = std::io::stderr().lock();
        e.write_all(data).and_then(|_| e.flush())
    } else {
        let mut o = std::io::stdout().lock();
        o.write_all(data).and_then(|_| o.flush())
    };
    if let Err(e) = r {
        crate::pmix_debug!(1, "client: writing a spawned job's output: {e}");
    }
}

/// Send a hello frame and read the server's answer of `kind`; a refusal
/// is its status.
fn handshake(s: &mut std::os::unix::net::UnixStream, tag: u16, body: &[u8], kind: AnswerKind) -> Res<Reply> {
    s.set_read_timeout(Some(Duration::from_secs(60))).map_err(|_| PMIX_ERR_UNREACH)?;
    s.write_all(&runtime::frame(1, tag, body)).map_err(|_| PMIX_ERR_UNREACH)?;
    let mut hdr = [0u8; 10];
    s.read_exact(&mut hdr).map_err(|_| PMIX_ERR_UNREACH)?;
    let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize;
    if !(10..=runtime::MAX_FRAME).contains(&len) {
        return Err(PMIX_ERR_UNREACH);
    }
    let mut rest = vec![0u8; len - 6];
    s.read_exact(&mut rest).map_err(|_| PMIX_ERR_UNREACH)?;
    let reply = Reply::decode(&kind, &rest)?;
    if reply.status() != PMIX_SUCCESS {
        crate::pmix_debug!(1, "the server refused us ({})", crate::strings::error_name(reply.status()));
        return Err(reply.status());
    }
    s.set_read_timeout(None).map_err(|_| PMIX_ERR_UNREACH)?;
    Ok(reply)
}

/// A tool connects to the server at `path` and is given a name.
pub fn init_tool(path: &str, uri: &str, chosen: Option<&Proc>) -> Res<Proc> {
    let mut g = CLIENT.lock();
    if let Some(c) = g.as_mut() {
        c.refcount += 1;
        return Ok(c.me.clone());
    }
    let cache = Arc::new(Cache::default());
    let (srv, me, engine) = tool_connect(path, uri, &cache, chosen)?;
    *CACHE.write() = Some(cache.clone());
    *g = Some(ClientGlobal { refcount: 1, me: me.clone(), cache, engine: Some(engine), puts: Vec::new(), server: Some((srv, path.to_string())), others: Vec::new() });
    Ok(me)
}

/// Connect a tool to the server at `path` (for an OpenPMIx server, `uri`
/// is its contact): (server, the name it gave us, engine).
fn tool_connect(path: &str, uri: &str, cache: &Arc<Cache>, chosen: Option<&Proc>) -> Res<(Proc, Proc, Link)> {
    if let Some(contact) = crate::ptl::parse_contact(uri) {
        let (stream, me, srv, described) = openpmix::connect_tool(&contact, uri, chosen, cache)?;
        // (a tool's server version is in its rendezvous file, not read:
        // only a group's destruction depends on it)
        let dialect = Dialect::OpenPmix { described, me: me.clone(), index: 0, server_major: openpmix::server_major_from_env() };
        let engine = start_engine(me.clone(), cache.clone(), Stream::Tcp(tcp_stream(stream)?), dialect, Some(srv.clone()), false)?;
        return Ok((srv, me, engine));
    }
    let mut s = std::os::unix::net::UnixStream::connect(path).map_err(|e| {
        crate::pmix_debug!(1, "tool: cannot connect to {path}: {e}");
        PMIX_ERR_UNREACH
    })?;
    let body = ToolHello { protocol: wire::PROTOCOL, chosen: chosen.cloned() }.encode();
    let Reply::ToolWelcome { server: srv, name: me } = handshake(&mut s, wire::TOOL_HELLO, &body, AnswerKind::ToolWelcome)? else {
        return Err(PMIX_ERR_UNPACK_FAILURE);
    };
    cache.put(
        &me,
        vec![
            Info::new("pmix.srv.nspace", Value::string(&srv.nspace)),
            Info::new("pmix.srv.rank", Value::rank(srv.rank)),
            Info::new("pmix.srvr.uri", Value::string(uri)),
        ],
    );
    let engine = start_engine(me.clone(), cache.clone(), Stream::Unix(unix_stream(s)?), Dialect::Rpmix, Some(srv.clone()), false)?;
    Ok((srv, me, engine))
}

/// Whether the primary server connection is up (false once it was lost).
pub fn server_alive() -> bool {
    let Some(h) = handle() else { return false };
    let up = Oneshot::new();
    let u = up.clone();
    if !h.run(move |c, _| u.set(c.connected())) {
        return false;
    }
    up.wait().unwrap_or(false)
}

/// The primary server this process is connected to, if any.
pub fn connected_server() -> Option<Proc> {
    let g = CLIENT.lock();
    g.as_ref().filter(|c| c.engine.is_some()).and_then(|c| c.server.as_ref().map(|(p, _)| p.clone()))
}

/// Every server this process is connected to, the primary one first.
pub fn connected_servers() -> Vec<Proc> {
    let g = CLIENT.lock();
    let Some(c) = g.as_ref() else { return Vec::new() };
    let primary = c.server.as_ref().filter(|_| c.engine.is_some()).map(|(p, _)| p.clone());
    primary.into_iter().chain(c.others.iter().map(|(p, _, _)| p.clone())).collect()
}


/// Make the connection `i` of `others` the primary one (the old primary,
/// if any, becomes another connection).
fn promote(c: &mut ClientGlobal, i: usize) {
    let (srv, uri, engine) = c.others.remove(i);
    if let (Some(old), Some((osrv, ouri))) = (c.engine.take(), c.server.take()) {
        c.others.push((osrv, ouri, old));
    }
    c.engine = Some(engine);
    c.server = Some((srv, uri));
}

/// PMIx_tool_attach_to_server: connect to the server at `path` (a tool may
/// hold several connections). It becomes the primary server when asked
/// (PMIX_PRIMARY_SERVER) or when there is none; an existing connection to
/// it is reused.
pub fn attach_tool(path: &str, uri: &str, primary: bool) -> Res<(Proc, Proc)> {
    let mut g = CLIENT.lock();
    let Some(c) = g.as_mut() else { return Err(PMIX_ERR_INIT) };
    if let (Some(_), Some((srv, u))) = (&c.engine, &c.server) {
        if u == path {
            return Ok((c.me.clone(), srv.clone()));
        }
    }
    if let Some(i) = c.others.iter().position(|(_, p, _)| p == path) {
        let srv = c.others[i].0.clone();
        if primary {
            promote(c, i);
        }
        return Ok((c.me.clone(), srv));
    }
    // A tool keeps the name it has (given at init, or from its first server).
    let (srv, me, engine) = tool_connect(path, uri, &c.cache, Some(&c.me))?;
    c.me = me.clone();
    c.others.push((srv.clone(), path.to_string(), engine));
    if primary || c.engine.is_none() {
        let i = c.others.len() - 1;
        promote(c, i);
    }
    Ok((me, srv))
}

/// PMIx_tool_set_server: make a server we are connected to the primary one.
pub fn select_server(server: &Proc) -> Res {
    let mut g = CLIENT.lock();
    let Some(c) = g.as_mut() else { return Err(PMIX_ERR_INIT) };
    if c.engine.is_some() && c.server.as_ref().is_some_and(|(p, _)| p == server) {
        return Ok(());
    }
    let i = c.others.iter().position(|(p, _, _)| p == server).ok_or(PMIX_ERR_NOT_FOUND)?;
    promote(c, i);
    Ok(())
}

/// PMIx_tool_disconnect: leave `server`, staying initialised; its pending
/// requests complete with an error. Leaving the primary server leaves none
/// (requests answer PMIX_ERR_UNREACH until PMIx_tool_set_server).
pub fn disconnect_tool(server: &Proc) -> Res {
    let mut g = CLIENT.lock();
    let Some(c) = g.as_mut() else { return Err(PMIX_ERR_INIT) };
    let engine = if c.engine.is_some() && c.server.as_ref().is_some_and(|(p, _)| p == server) {
        c.server = None;
        c.engine.take()
    } else if let Some(i) = c.others.iter().position(|(p, _, _)| p == server) {
        Some(c.others.remove(i).2)
    } else {
        return Err(PMIX_ERR_NOT_FOUND);
    };
    drop(g);
    if let Some(e) = engine {
        say_goodbye(e);
    }
    Ok(())
}

/// Tell the server we leave (it learns at once, not from a closed socket),
/// then stop our progress thread.
fn say_goodbye(link: Link) -> pmix_status_t {
    let engine = link.engine;
    let done = Oneshot::new();
    let d = done.clone();
    let answer: ReplyDone = Box::new(move |r| d.set(r.status()));
    let st = if engine.handle.run_by_callers() {
        // Nothing is queued on the loop: sent from here, and waited for
        // by running the loop here.
        link::wait_for(done, || link.direct.request(Request::Finalize, Waiter::Plain(answer)))
    } else {
        // Behind the commands already queued on the progress thread.
        let sent = engine.handle.run(move |role, net| role.request(net, Request::Finalize, Box::new(move |_, _, r| answer(r))));
        if sent { done.wait() } else { None }
    };
    engine.stop();
    match st.unwrap_or(PMIX_ERR_LOST_CONNECTION) {
        PMIX_ERR_LOST_CONNECTION | PMIX_ERR_UNREACH => PMIX_SUCCESS, // the server is gone: nothing left to tell it
        st => st,
    }
}

/// A tool that does not connect: initialised for local calls only.
pub fn init_standalone(me: Proc) -> Proc {
    let mut g = CLIENT.lock();
    if let Some(c) = g.as_mut() {
        c.refcount += 1;
        return c.me.clone();
    }
    let cache = Arc::new(Cache::default());
    *CACHE.write() = Some(cache.clone());
    *g = Some(ClientGlobal { refcount: 1, me: me.clone(), cache, engine: None, puts: Vec::new(), server: None, others: Vec::new() });
    me
}

/// Connect and say hello (blocking, before the progress thread exists).
fn connect(me: &Proc, cache: &Cache) -> Res<std::os::unix::net::UnixStream> {
    let uri = wire::own_contact_from_env().or_else(|| wire::URI_VARS.iter().find_map(|v| std::env::var(v).ok())).ok_or(PMIX_ERR_UNREACH)?;
    let (_, _, path) = wire::parse_contact(&uri).ok_or_else(|| {
        crate::pmix_debug!(1, "PMIx_Init: server contact '{uri}' is not an rpmix contact");
        PMIX_ERR_UNREACH
    })?;
    let mut s = std::os::unix::net::UnixStream::connect(&path).map_err(|e| {
        crate::pmix_debug!(1, "PMIx_Init: cannot connect to {path}: {e}");
        PMIX_ERR_UNREACH
    })?;
    s.set_read_timeout(Some(Duration::from_secs(60))).map_err(|_| PMIX_ERR_UNREACH)?;
    // The credential setup_fork gave this rank, if any (the server checks it).
    let token = std::env::var(wire::CRED_ENV).ok();
    let body = Hello { protocol: wire::PROTOCOL, proc: me.clone(), token }.encode();
    s.write_all(&runtime::frame(1, wire::HELLO, &body)).map_err(|_| PMIX_ERR_UNREACH)?;
    let mut hdr = [0u8; 10];
    // The namespace's shared job data comes with the reply's first bytes.
    let shared_fd = runtime::lane::recv_exact_with_fd(std::os::fd::AsFd::as_fd(&s), &mut hdr).map_err(|_| PMIX_ERR_UNREACH)?;
    let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize;
    if !(6..=runtime::MAX_FRAME).contains(&len) {
        return Err(PMIX_ERR_UNREACH);
    }
    let mut rest = vec![0u8; len - 6];
    s.read_exact(&mut rest).map_err(|_| PMIX_ERR_UNREACH)?;
    if rest.len() < 4 {
        return Err(PMIX_ERR_UNREACH);
    }
    let Welcome { server: srv, records, mapped } = Welcome::decode(&rest).inspect_err(|st| {
        crate::pmix_debug!(1, "PMIx_Init: the server refused us, or its answer does not decode ({})", crate::strings::error_name(*st));
    })?;
    // The job level and our own record now; the peers' stay encoded until
    // asked for: in the reply, or in the snapshot it passed (then the reply
    // holds our own record only, as it is now).
    if mapped {
        let fd = shared_fd.ok_or_else(|| {
            crate::pmix_debug!(1, "PMIx_Init: the server's job data snapshot did not arrive");
            PMIX_ERR_UNREACH
        })?;
        let snap = crate::msg::snapshot::Mapped::map(std::os::fd::AsFd::as_fd(&fd)).map_err(|e| {
            crate::pmix_debug!(1, "PMIx_Init: the server's job data snapshot: {e}");
            PMIX_ERR_UNREACH
        })?;
        let snap = Arc::new(snap);
        cache.put_shared(&me.nspace, snap.clone());
        cache.ready(&me.nspace, PMIX_RANK_WILDCARD);
        // (the job level is decoded: its pages need not stay resident)
        snap.release_pages();
    }
    for (rank, record) in records {
        if rank == PMIX_RANK_WILDCARD || rank == me.rank {
            cache.put(&Proc::new(&me.nspace, rank), decode_infos(&mut Decoder::new(record))?);
        } else {
            cache.put_encoded(&me.nspace, rank, record);
        }
    }
    cache.put(
        me,
        vec![
            Info::new("pmix.srv.nspace", Value::string(&srv.nspace)),
            Info::new("pmix.srv.rank", Value::rank(srv.rank)),
            Info::new("pmix.srvr.uri", Value::string(&uri)),
        ],
    );
    s.set_read_timeout(None).map_err(|_| PMIX_ERR_UNREACH)?;
    Ok(s)
}

/// PMIx_Init: (proc, status). Reference counted: later calls return the same proc.
/// Without a server the library is still initialised (local calls work) and
/// the status is PMIX_ERR_UNREACH.
pub fn init() -> (Proc, pmix_status_t) {
    let mut g = CLIENT.lock();
    if let Some(c) = g.as_mut() {
        c.refcount += 1;
        return (c.me.clone(), PMIX_SUCCESS);
    }
    let cache = Arc::new(Cache::default());
    let ns = std::env::var("PMIX_NAMESPACE").ok();
    let rank = std::env::var("PMIX_RANK").ok().and_then(|r| r.parse::<u32>().ok());
    let mut server = wire::own_contact_from_env().and_then(|u| wire::parse_contact(&u).map(|(ns, r, p)| (Proc::new(&ns, r), p)));
    let (me, status, engine) = match (ns, rank) {
        (Some(ns), Some(rank)) => {
            let me = Proc::new(&ns, rank);
            let connected = match (&server, openpmix::contact_from_env()) {
                // An OpenPMIx server (and no rpmix contact beside it).
                (None, Some(found)) => found.and_then(|(contact, uri)| {
                    let (stream, index, described) = openpmix::connect(&me, &contact, &uri, &cache)?;
                    server = Some((contact.server.clone(), uri));
                    let stream = Stream::Tcp(tcp_stream(stream)?);
                    let dialect = Dialect::OpenPmix { described, me: me.clone(), index, server_major: openpmix::server_major_from_env() };
                    start_engine(me.clone(), cache.clone(), stream, dialect, Some(contact.server), false)
                }),
                _ => {
                    let srv = server.as_ref().map(|(p, _)| p.clone());
                    connect(&me, &cache).and_then(|s| start_engine(me.clone(), cache.clone(), Stream::Unix(unix_stream(s)?), Dialect::Rpmix, srv, true))
                }
            };
            match connected {
                Ok(e) => (me, PMIX_SUCCESS, Some(e)),
                Err(e) => (me, e, None),
            }
        }
        (Some(ns), None) => (Proc::new(&ns, 0), PMIX_ERR_DATA_VALUE_NOT_FOUND, None),
        _ => {
            let me = Proc::new(&format!("singleton.{}.{}", crate::rendezvous::hostname(), std::process::id()), 0);
            cache.put(&Proc::wildcard(&me.nspace), vec![Info::new("pmix.job.size", Value::u32(1)), Info::new("pmix.univ.size", Value::u32(1))]);
            (me, PMIX_ERR_UNREACH, None)
        }
    };
    if status == PMIX_ERR_DATA_VALUE_NOT_FOUND {
        return (me, status);
    }
    *CACHE.write() = Some(cache.clone());
    *g = Some(ClientGlobal { refcount: 1, me: me.clone(), cache, engine, puts: Vec::new(), server, others: Vec::new() });
    (me, status)
}

fn unix_stream(s: std::os::unix::net::UnixStream) -> Res<mio::net::UnixStream> {
    s.set_nonblocking(true).map_err(|_| PMIX_ERR_INIT)?;
    Ok(mio::net::UnixStream::from_std(s))
}

fn tcp_stream(s: std::net::TcpStream) -> Res<mio::net::TcpStream> {
    s.set_nonblocking(true).map_err(|_| PMIX_ERR_INIT)?;
    Ok(mio::net::TcpStream::from_std(s))
}

/// `deferred`: the progress thread starts when first needed; until then
/// blocking calls run the loop themselves (`runtime::start_deferred`).
fn start_engine(me: Proc, cache: Arc<Cache>, stream: Stream, dialect: Dialect, server: Option<Proc>, deferred: bool) -> Res<Link> {
    let read_limit = answer_limit(&cache, &me);
    let pending = Arc::new(Mutex::new(link::Pending::default()));
    let role = ClientRole {
        read_limit,
        conn: Some(2),
        pending: pending.clone(),
        cache,
        handle: None,
        me,
        iof: HashMap::new(),
        iof_timers: HashMap::new(),
        server,
        dialect: dialect.clone(),
    };
    let conns = vec![(stream, dialect.framing())];
    let engine = if deferred { runtime::start_deferred(role, conns, "pmix-client") } else { runtime::start_with(role, None, conns, "pmix-client") };
    let engine = engine.map_err(|_| PMIX_ERR_INIT)?;
    let lane = engine.lanes.first().cloned().ok_or(PMIX_ERR_INIT)?;
    Ok(Link::new(engine, lane, pending, dialect))
}

/// PMIx_Finalize: only the last call tears down; it waits for the server's
/// acknowledgement (sent after the host learnt of it).
pub fn finalize() -> pmix_status_t {
    // Inside a callback (on a progress thread), finalize would wait for the
    // very thread it runs on: refused, the library stays initialised.
    if runtime::on_progress_thread() {
        crate::pmix_debug!(1, "PMIx_Finalize inside a callback: refused (PMIX_ERR_WOULD_BLOCK)");
        return PMIX_ERR_WOULD_BLOCK;
    }
    let mut g = CLIENT.lock();
    let Some(c) = g.as_mut() else { return PMIX_ERR_INIT };
    c.refcount -= 1;
    if c.refcount > 0 {
        return PMIX_SUCCESS;
    }
    let mut c = g.take().unwrap();
    drop(g);
    *CACHE.write() = None;
    for (_, _, e) in std::mem::take(&mut c.others) {
        say_goodbye(e);
    }
    let st = match c.engine.take() {
        Some(engine) => say_goodbye(engine),
        None => PMIX_SUCCESS,
    };
    // After the progress threads stopped: nothing queued there can register again.
    *events_of_client() = events::Registry::new();
    api::iof_forget_all();
    st
}
pub mod api;
pub mod debugger;
pub mod iof;
pub mod link;
pub mod openpmix;
pub mod openpmix_jobdata;
pub mod waiter;
#[cfg(test)]
mod tests;
