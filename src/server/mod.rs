//! The server role: namespaces and clients registered by the host, client
//! connections (identity from SO_PEERCRED), fences, Gets, and the requests it
//! relays to the host through the `Host` trait.

pub mod cleanup;
pub mod cmodule;
mod conn;
pub mod credential;
pub mod descriptors;
mod evcache;
mod fence;
pub mod group;
pub mod iof;
pub mod jobctl;
pub mod log;
mod lostconn;
pub mod monitor;
mod modex;
pub mod host;
mod instance;
pub mod nspace;
pub mod openpmix;
mod pubsub;
pub mod pset;
mod query;
pub mod session;
pub mod setup;
mod spawn;
pub mod top;
mod view;
#[cfg(test)]
mod tests;

pub use instance::{finalize, handle, host_topology, init, note_host_topology, own_proc, HostTopology, ServerGlobal, SERVER};

use std::collections::HashMap;
use std::sync::Arc;

use crate::abi::*;
use crate::status::Res;
use crate::data::pack::Encoder;
use crate::events;
use crate::owned::{encode_infos, find, Info, Proc, Value};
use crate::runtime::{self, ConnId, Handle, Net, PeerCred, Role};
use crate::wire;
use crate::msg::{Reply, Request};
use host::{Host, Upcall};
use nspace::{ClientReg, Nspace};

/// A connection that completed its hello.
struct Peer {
    proc: Proc,
    cred: PeerCred,
    tool: bool,
}

pub struct ServerRole {
    host: Box<dyn Host>,
    pub me: Proc,
    hostname: String,
    pub nspaces: HashMap<String, Nspace>,
    peers: HashMap<ConnId, Peer>,
    /// Fences, connects and disconnects in progress.
    fences: fence::Fences,
    /// Namespaces deregistered here: their jobs ended.
    gone: nspace::Gone,
    /// Gets and dmodex requests waiting, the host's PMIx_Store_internal data.
    modex: modex::Modex,
    pub events: events::Registry,
    /// Events kept for peers that register for them later.
    evcache: evcache::EvCache,
    /// Process sets the host defined (PMIx_server_define_process_set), in
    /// the order defined.
    psets: pset::Psets,
    /// Tools named here so far.
    next_tool: u32,
    monitors: monitor::Monitors,
    /// Checkpoints in progress, cleanups registered by processes.
    jobctl: jobctl::JobCtl,
    /// Process groups and group operations in progress.
    groups: group::Groups,
    pub iof: iof::Iof,
    /// PMIX_SERVER_ENABLE_MONITORING: monitor here even if the host could.
    pub enable_monitoring: bool,
    /// The session directory (PMIX_TMPDIR) under which namespaces and ranks
    /// get theirs (PMIX_NSDIR, PMIX_PROCDIR) unless the host gave its own.
    /// A namespace's and a rank's directory are made the first time they
    /// are asked for (`ensure_nsdir`, `ensure_procdir`), not at
    /// registration: most jobs never use them, and a mkdir and rmdir per
    /// rank were most of a launch's cost on a disk file system (per job, a
    /// tenth of a persistent launcher's).
    pub session_dir: Option<session::SessionDir>,
    handle: Option<Handle<ServerRole>>,
    /// The key of the ranks' connection credentials (None: none are issued).
    pub(crate) cred_key: Option<credential::Key>,
    /// Connections of OpenPMIx clients, with their translation.
    openpmix: openpmix::Links,
    /// The index the next OpenPMIx client is told at connect.
    next_openpmix_index: u32,
    /// PMIx_server_register_resources: data every namespace registered
    /// after it gets among its job data.
    resources: Vec<Info>,
    /// A lost-connection event held for the host's handlers (lostconn.rs).
    lost: lostconn::LostConns,
}

/// Send `answer` to request `req` on `conn`, in the connection's codec.
fn reply(net: &mut Net, conn: ConnId, req: u32, answer: Reply) {
    reply_all(net, [(conn, req)], &answer);
}

/// Send one answer to several requests (a barrier's participants), each
/// in its connection's codec: OpenPMIx's for an OpenPMIx client
/// (`openpmix::answer`), else rpmix's, encoded once.
fn reply_all(net: &mut Net, to: impl IntoIterator<Item = (ConnId, u32)>, answer: &Reply) {
    let mut rpmix: Option<Vec<u8>> = None;
    for (conn, req) in to {
        let ours;
        let body = match openpmix::answer(net, conn, req, answer) {
            Some(b) => {
                ours = b;
                &ours
            }
            None => rpmix.get_or_insert_with(|| {
                answer.encode().unwrap_or_else(|st| {
                    crate::pmix_debug!(1, "an answer does not encode ({st})");
                    status_only(st)
                })
            }),
        };
        if !net.send(conn, req, wire::REPLY, body) {
            // Too large for the wire: the caller hears so rather than waiting.
            let st = PMIX_ERR_OUT_OF_RESOURCE;
            let body = openpmix::answer(net, conn, req, &Reply::Status(st)).unwrap_or_else(|| status_only(st));
            net.send(conn, req, wire::REPLY, &body);
        }
    }
}

/// A status alone in rpmix's form.
fn status_only(st: pmix_status_t) -> Vec<u8> {
    st.to_le_bytes().to_vec()
}

/// The pid of a local process: the kernel's word for a connected client,
/// else PMIX_PROC_PID as the host registered it (0: unknown).
fn pid_of(nspaces: &HashMap<String, Nspace>, peers: &HashMap<ConnId, Peer>, p: &Proc) -> u32 {
    let ns = nspaces.get(&p.nspace);
    let conn = ns.and_then(|n| n.clients.get(&p.rank)).and_then(|c| c.conn);
    if let Some(peer) = conn.and_then(|c| peers.get(&c)) {
        return peer.cred.pid.max(0) as u32;
    }
    ns.and_then(|n| n.procs.get(&p.rank)).and_then(|v| find(v, PMIX_PROC_PID)).and_then(|i| i.as_u32()).unwrap_or(0)
}

/// The reply status the client sees for a host's answer: "done at once" is success.
fn settled(st: pmix_status_t) -> pmix_status_t {
    if st == PMIX_OPERATION_SUCCEEDED {
        PMIX_SUCCESS
    } else {
        st
    }
}

/// What delivering an event needs of the role: the peers it may go to
/// (which of them are OpenPMIx's), the events kept for peers that register
/// later, and this process's (the host's) handlers with the thread they
/// run on.
pub(super) struct Sink<'a> {
    peers: &'a HashMap<ConnId, Peer>,
    openpmix: &'a openpmix::Links,
    cache: &'a mut evcache::EvCache,
    registry: &'a events::Registry,
    handle: Handle<ServerRole>,
}

impl Sink<'_> {
    /// Deliver an event to local clients in `range` (and to this process's
    /// handlers), and keep it for peers that register for it later.
    ///
    /// Every connected rpmix peer in range gets it now, whether it
    /// registered a handler for it or not (its library runs its handlers,
    /// or keeps it for one registered later): what Slurm and Open MPI were
    /// measured with. An OpenPMIx peer gets it as from OpenPMIx's server:
    /// only if it registered for it (else at its registration), and never
    /// when it raised the event itself (its library ran its own handlers).
    pub(super) fn deliver(&mut self, net: &mut Net, status: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info]) {
        self.deliver_from(net, None, status, source, range, info)
    }

    /// `deliver` an event that peer `sender` raised (PMIx_Notify_event):
    /// it counts as having had it.
    pub(super) fn deliver_from(&mut self, net: &mut Net, sender: Option<&Proc>, status: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info]) {
        let custom = evcache::custom_targets(info);
        let mut body = Encoder::default();
        body.u32(status as u32);
        source.encode(&mut body);
        if encode_infos(&mut body, info).is_err() {
            return;
        }
        let targets: Vec<(ConnId, &Proc)> = self
            .peers
            .iter()
            .filter(|(_, p)| evcache::reaches(range, source, custom.as_deref(), &p.proc))
            .map(|(c, p)| (*c, &p.proc))
            .collect();
        crate::pmix_debug!(5, "event {status} from {source}: to {} of {} peers", targets.len(), self.peers.len());
        let non_default = evcache::non_default(info);
        let mut had: std::collections::HashSet<Proc> = sender.into_iter().cloned().collect();
        for (c, p) in targets {
            if self.openpmix.contains_key(&c) && (Some(p) == sender || !self.cache.registered_for(c, status, non_default)) {
                continue;
            }
            net.send(c, 0, wire::EVENT, body.bytes());
            had.insert(p.clone());
        }
        self.cache.keep(status, source, range, info, body.bytes(), had);
        // The host's own handlers hear every event its clients raise, whatever
        // the range, as with OpenPMIx (Slurm's default handler ends the step
        // on any event not marked PMIX_EVENT_NON_DEFAULT).
        let chain = self.registry.chain_for(status, info);
        events::notify(chain, status, source, info, poster(&self.handle));
    }
}

/// A poster for event chains of the server role.
fn poster(h: &Handle<ServerRole>) -> events::Poster {
    let h = h.clone();
    Arc::new(move |f| {
        h.run(move |_, _| f());
    })
}

/// A completion that replies `(status)` to `conn/req` on the progress thread.
fn done_reply(h: Handle<ServerRole>, conn: ConnId, req: u32) -> host::Done {
    Box::new(move |st| {
        h.run(move |_, net| reply(net, conn, req, Reply::Status(settled(st))));
    })
}

/// A completion that replies `(status, infos)` to `conn/req` on the progress thread.
fn done_reply_infos(h: Handle<ServerRole>, conn: ConnId, req: u32) -> host::DoneInfos {
    Box::new(move |st, infos| {
        h.run(move |_, net| reply(net, conn, req, Reply::Infos { status: settled(st), infos }));
    })
}

impl ServerRole {
    pub fn new(host: Box<dyn Host>, me: Proc, hostname: String) -> ServerRole {
        ServerRole {
            host,
            me,
            hostname,
            nspaces: HashMap::new(),
            peers: HashMap::new(),
            fences: Default::default(),
            gone: Default::default(),
            modex: Default::default(),
            events: events::Registry::default(),
            evcache: Default::default(),
            psets: Default::default(),
            next_tool: 0,
            monitors: Default::default(),
            jobctl: Default::default(),
            groups: Default::default(),
            iof: iof::Iof::default(),
            enable_monitoring: false,
            session_dir: None,
            handle: None,
            cred_key: None,
            openpmix: Default::default(),
            next_openpmix_index: 0,
            resources: Vec::new(),
            lost: Default::default(),
        }
    }

    pub fn set_handle(&mut self, h: Handle<ServerRole>) {
        self.handle = Some(h);
    }

    fn handle(&self) -> Handle<ServerRole> {
        self.handle.clone().expect("server handle set at start")
    }

    /// A poster for event chains of this role.
    pub fn poster(&self) -> events::Poster {
        poster(&self.handle())
    }

    /// Run `f` on the group part, then send what it answered and raised, in order.
    fn with_groups<T>(&mut self, net: &mut Net, f: impl FnOnce(&mut group::Groups, &mut group::Ctx<'_>) -> T) -> T {
        let handle = self.handle();
        let mut cx = group::Ctx { net: &mut *net, host: &mut *self.host, nspaces: &self.nspaces, handle, out: Vec::new() };
        let r = f(&mut self.groups, &mut cx);
        let out = std::mem::take(&mut cx.out);
        for o in out {
            match o {
                group::Out::Reply { conn, req, answer } => reply(net, conn, req, answer),
                group::Out::Event { code, source, range, info } => self.deliver_event(net, code, &source, range, &info),
            }
        }
        r
    }

    /// The host's answer to group operation `seq`, back on this thread.
    fn group_host_done(&mut self, net: &mut Net, seq: u64, st: pmix_status_t, infos: Vec<Info>) {
        self.with_groups(net, |g, cx| g.finish_group_op(cx, seq, st, infos));
    }

    /// What publish, lookup and unpublish from `conn` need.
    fn pubsub_ctx<'a>(&'a mut self, net: &'a mut Net, conn: ConnId) -> pubsub::Ctx<'a> {
        let cred = self.peers.get(&conn).map(|p| (p.cred.uid, p.cred.gid));
        let handle = self.handle();
        pubsub::Ctx { net, host: &mut *self.host, cred, handle }
    }

    /// PMIx_server_IOF_deliver: forward to every matching pull, else cache.
    /// Output of a job that already ended here (its last lines can come
    /// after its namespace was deregistered) goes to the pulls only: kept,
    /// it would stay for good, its namespace no longer there to forget it.
    pub fn iof_deliver(&mut self, net: &mut Net, source: &Proc, channel: pmix_iof_channel_t, data: &[u8], complete: bool) {
        let pid = self.pid_of(source);
        let keep = !self.gone.contains(&source.nspace);
        self.iof.deliver(net, source, channel, data, complete, keep, &iof::Origin::new(&self.hostname, pid));
    }

    /// The largest backlog of forwarded output a pulling tool has not read.
    pub fn iof_backlog(&self, net: &Net) -> usize {
        self.iof.backlog(net)
    }

    /// The pid of a local process: the kernel's word for a connected client,
    /// else PMIX_PROC_PID as the host registered it (0: unknown).
    pub(super) fn pid_of(&self, p: &Proc) -> u32 {
        pid_of(&self.nspaces, &self.peers, p)
    }

    /// Run `f` on the fence part with what it needs of the role.
    fn with_fences<T>(&mut self, net: &mut Net, f: impl FnOnce(&mut fence::Fences, &mut fence::Ctx<'_>) -> T) -> T {
        let handle = self.handle();
        let mut cx = fence::Ctx { net, host: &mut *self.host, nspaces: &mut self.nspaces, gone: &self.gone, handle };
        f(&mut self.fences, &mut cx)
    }

    /// The host's answer to barrier `id`, back on this thread.
    fn fence_host_done(&mut self, net: &mut Net, id: u64, st: pmix_status_t, data: &[u8]) {
        self.with_fences(net, |f, cx| f.host_done(cx, id, st, data));
    }

    /// `proc` can never arrive: the barriers it takes part in end for the others.
    fn fail_fences_of(&mut self, net: &mut Net, proc: &Proc) {
        self.with_fences(net, |f, cx| f.fail_of(cx, proc, PMIX_ERR_LOST_CONNECTION));
    }

    /// What a connection's hello needs of the role (conn.rs, openpmix/).
    fn conn_ctx(&mut self) -> conn::Ctx<'_> {
        let handle = self.handle();
        conn::Ctx {
            host: &mut *self.host,
            handle,
            me: &self.me,
            nspaces: &mut self.nspaces,
            peers: &mut self.peers,
            cred_key: self.cred_key,
            tools: &mut self.next_tool,
            openpmix: &mut self.openpmix,
            openpmix_index: &mut self.next_openpmix_index,
            session_dir: self.session_dir.as_ref(),
        }
    }

    /// (ever connected, finalized) of a registered client.
    pub fn client_state(&self, proc: &Proc) -> Option<(bool, bool)> {
        self.nspaces.get(&proc.nspace).and_then(|n| n.clients.get(&proc.rank)).map(|r| (r.connected, r.finalized))
    }

    /// Close a client's connection because the host deregistered it (no
    /// lost-connection handling), dropping what the connection held.
    /// Closes a connection from this side (its role is not told by the
    /// runtime then): what every part holds for it goes as in `on_close`.
    fn forget_conn(&mut self, net: &mut Net, c: ConnId) {
        self.drop_conn_state(net, c);
        net.close(c);
    }

    /// What the parts hold for connection `c` (its OpenPMIx translation,
    /// output pulls, job-control requests, parked requests, its peer
    /// entry), dropped however the connection ended; the peer it was.
    fn drop_conn_state(&mut self, net: &mut Net, c: ConnId) -> Option<Peer> {
        self.openpmix.remove(&c);
        self.evcache.drop_conn(c);
        self.iof.drop_conn(c);
        self.jobctl.drop_conn(net, c);
        self.modex.drop_conn(c);
        self.peers.remove(&c)
    }

    // ---- the modex part ----

    /// PMIx_Store_internal in server role.
    pub fn store_internal(&mut self, proc: &Proc, info: Info) {
        self.modex.store_internal(proc, info);
    }

    /// PMIx_Get in server role: what this server holds, never waiting.
    pub fn get_local(&self, proc: &Proc, key: &str) -> Option<Value> {
        self.modex.get_local(&self.nspaces, proc, key)
    }

    /// PMIx_Get with a NULL key in server role: all this server holds of `proc`.
    pub fn get_all(&self, proc: &Proc) -> Vec<Info> {
        self.modex.get_all(&self.nspaces, proc)
    }

    /// PMIx_server_dmodex_request.
    pub fn dmodex_request(&mut self, net: &mut Net, proc: Proc, done: Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>) {
        self.modex.dmodex_request(net, &self.nspaces, proc, done);
    }

    /// The host's answer to direct-modex request `id`, back on this thread.
    fn dmodex_done(&mut self, net: &mut Net, id: u64, target: &Proc, st: pmix_status_t, data: &[u8]) {
        self.modex.dmodex_done(net, &mut self.nspaces, id, target, st, data);
    }

    /// `proc` ended: the Gets and dmodex requests waiting for it end too.
    fn release_parked(&mut self, net: &mut Net, proc: &Proc) {
        self.modex.release(net, &self.nspaces, proc);
    }

    /// A Get: answered by the group or process-set part, else by the modex.
    fn on_get(&mut self, net: &mut Net, conn: ConnId, req: u32, target: Proc, key: String, info: Vec<Info>) -> Res {
        if key.is_empty() || PMIX_PROCDIR.to_bytes() == key.as_bytes() {
            ensure_procdir(self.session_dir.as_ref(), &mut self.nspaces, &target);
        } else if PMIX_NSDIR.to_bytes() == key.as_bytes() {
            ensure_nsdir(self.session_dir.as_ref(), &mut self.nspaces, &target.nspace);
        }
        let data = match modex::elsewhere(&key, &info) {
            Some(modex::Elsewhere::GroupData(cid)) => self.groups.qualified_data(&target, cid, &key),
            Some(modex::Elsewhere::PsetNames) => self.psets.names_of(&target).into_iter().collect(),
            None => {
                let handle = self.handle();
                let mut cx = modex::Ctx { net, host: &mut *self.host, nspaces: &mut self.nspaces, handle };
                return self.modex.on_get(&mut cx, conn, req, target, key, info);
            }
        };
        let status = if data.is_empty() { PMIX_ERR_NOT_FOUND } else { PMIX_SUCCESS };
        reply(net, conn, req, Reply::Get { status, target, data });
        Ok(())
    }

    /// PMIx_server_define_process_set: remember it and tell the local clients.
    pub fn define_pset(&mut self, net: &mut Net, name: &str, members: Vec<Proc>) -> pmix_status_t {
        self.psets.define_announced(name, members).map_or_else(|e| e, |info| self.announce(net, PMIX_PROCESS_SET_DEFINE, &info))
    }

    /// PMIx_server_delete_process_set: forget it and tell the local clients.
    pub fn delete_pset(&mut self, net: &mut Net, name: &str) -> pmix_status_t {
        self.psets.delete_announced(name).map_or_else(|e| e, |info| self.announce(net, PMIX_PROCESS_SET_DELETE, &info))
    }

    /// Job `ns` ended: `requester` hears PMIX_EVENT_JOB_END (spawn.rs).
    pub fn job_ended(&mut self, net: &mut Net, ns: &str, exit: i32, requester: &Proc) {
        self.deliver_custom(net, spawn::job_end(&self.me, ns, exit, requester));
    }

    /// Ranks `held` on exec: `requester` hears PMIX_READY_FOR_DEBUG (spawn.rs).
    pub fn ready_for_debug(&mut self, net: &mut Net, held: &[Proc], requester: &Proc) {
        if let Some(e) = spawn::ready_for_debug(held, requester) {
            self.deliver_custom(net, e);
        }
    }

    /// Release `procs` from PMIx_Init as a debugger would (spawn.rs).
    pub fn release_from_init(&mut self, net: &mut Net, procs: &[Proc]) {
        self.deliver_custom(net, spawn::release_from_init(&self.me, procs));
    }

    fn deliver_custom(&mut self, net: &mut Net, (code, source, info): spawn::Event) {
        self.deliver_event(net, code, &source, PMIX_RANGE_CUSTOM, &info);
    }

    /// The output of spawned job `ns` goes to its requester from now on.
    fn forward_spawned(&mut self, net: &mut Net, conn: ConnId, requester: &Proc, ns: &str, channels: crate::flags::Channels) {
        let (hostname, nspaces, peers) = (&self.hostname, &self.nspaces, &self.peers);
        let origin = (hostname.as_str(), |p: &Proc| pid_of(nspaces, peers, p));
        spawn::forward_output(net, &mut self.iof, origin, conn, requester, ns, channels);
    }

    /// An event of this server to its local clients.
    fn announce(&mut self, net: &mut Net, code: pmix_status_t, info: &[Info]) -> pmix_status_t {
        let me = self.me.clone();
        self.deliver_event(net, code, &me, PMIX_RANGE_LOCAL, info);
        PMIX_SUCCESS
    }

    /// Run an upcall; `Now(st)` answers at once, `Pending` later via `finish`.
    fn upcall_reply(&mut self, net: &mut Net, conn: ConnId, req: u32, u: Upcall) {
        if let Upcall::Now(st) = u {
            reply(net, conn, req, Reply::Status(settled(st)));
        }
    }

    /// `proc` completed (SUCCESS) or failed the checkpoints `which` selects.
    fn checkpoint_progress(&mut self, net: &mut Net, proc: &Proc, which: jobctl::Which<'_>, status: pmix_status_t) {
        self.jobctl.checkpoint_progress(net, proc, which, status);
    }

    /// A completion that replies `(status)` to `conn/req` on the progress thread.
    fn done_reply(&self, conn: ConnId, req: u32) -> host::Done {
        done_reply(self.handle(), conn, req)
    }

    /// A completion that replies `(status, infos)` to `conn/req` on the progress thread.
    fn done_reply_infos(&self, conn: ConnId, req: u32) -> host::DoneInfos {
        done_reply_infos(self.handle(), conn, req)
    }

    // ---- registration (host API, on the progress thread) ----

    /// PMIx_server_register_resources: a key given again replaces its value.
    pub fn register_resources(&mut self, infos: Vec<Info>) {
        for i in infos {
            self.resources.retain(|r| r.key() != i.key());
            self.resources.push(i);
        }
    }

    /// PMIx_server_deregister_resources: namespaces registered since no
    /// longer get these keys (those registered before keep their copy, as
    /// with OpenPMIx).
    pub fn deregister_resources(&mut self, keys: &[String]) {
        self.resources.retain(|r| !keys.iter().any(|k| k == r.key()));
    }

    pub fn register_nspace(&mut self, name: &str, nlocal: i32, info: Vec<Info>) {
        self.gone.registered(name);
        let host = self.hostname.clone();
        let required = info.iter().any(|i| i.key() == credential::REQUIRED && i.truthy());
        let nodata = find(&info, PMIX_REGISTER_NODATA).is_some_and(|i| i.truthy());
        let ns = self.nspaces.entry(name.to_string()).or_insert_with(|| Nspace::new(name));
        ns.cred_required |= required;
        ns.register(nlocal, info, &host);
        // The registered resources join the job data (after the host's, once
        // its arrays are flattened: where it gives a key itself, its own
        // value stands).
        if !nodata {
            for r in &self.resources {
                ns.add_if_missing(r);
            }
        }
        // The host's topology, for the clients' PMIx_Load_topology (once per namespace).
        if let Some(xml) = instance::HOST_TOPOLOGY.lock().as_ref().and_then(|t| t.xml.clone()) {
            ns.set_if_missing(PMIX_HWLOC_XML_V2, Value::string(&xml));
        }
        // Session directories, unless the host laid out its own (made when
        // first asked for: ensure_nsdir, ensure_procdir).
        if let Some(sd) = &self.session_dir {
            if !ns.has(PMIX_NSDIR) && session::safe_name(name) {
                ns.own_dirs = true;
                ns.set_if_missing(PMIX_TMPDIR, Value::string(&sd.path.to_string_lossy()));
                // These directories are ours to remove (or the host's, with
                // its own PMIX_TDIR_RMCLEAN at init), never the clients':
                // without the flag an Open MPI rank empties PMIX_TMPDIR at
                // its finalize, our socket and lock with it, and no later
                // rank or spawned job can connect.
                ns.set_if_missing(PMIX_TDIR_RMCLEAN, Value::boolean(true));
            }
        }
        // Clients may be registered before or after their namespace.
        let ranks: Vec<pmix_rank_t> = self.nspaces.get(name).map(|n| n.clients.keys().copied().collect()).unwrap_or_default();
        for r in ranks {
            self.admit_to_nsdir(&Proc::new(name, r));
        }
    }

    /// A registered rank of another user (a root server): it may reach the
    /// socket and its namespace's directory before it connects (so that
    /// directory is made now).
    fn admit_to_nsdir(&mut self, proc: &Proc) {
        let other = self.nspaces.get(&proc.nspace).and_then(|n| n.clients.get(&proc.rank)).is_some_and(|r| session::serves_other_user(r.uid));
        if !other {
            return;
        }
        ensure_nsdir(self.session_dir.as_ref(), &mut self.nspaces, &proc.nspace);
        if let Some((sd, nsdir, owner)) = made_nsdir_of(self.session_dir.as_ref(), &self.nspaces, proc) {
            sd.admit_owner(&nsdir, owner);
        }
    }

    pub fn register_client(&mut self, proc: &Proc, uid: u32, gid: u32, obj: usize) {
        let ns = self.nspaces.entry(proc.nspace.clone()).or_insert_with(|| Nspace::new(&proc.nspace));
        ns.clients.insert(proc.rank, ClientReg { uid, gid, server_object: obj, conn: None, connected: false, finalized: false, terminated: false });
        self.admit_to_nsdir(proc);
    }

    /// A local process ended (finalize, exit, lost connection, deregistration):
    /// run its cleanup, and its namespace's once every local client has ended.
    fn terminated(&mut self, net: &mut Net, proc: &Proc) {
        // A target that ends before completing its checkpoint failed it.
        self.checkpoint_progress(net, proc, jobctl::Which::All, PMIX_ERR_PROC_CHECKPOINT);
        self.jobctl.run_epilog(proc);
        // Monitors end with their process.
        self.monitors.forget(proc);
        jobctl::forget(proc);
        let newly = self.nspaces.get(&proc.nspace).and_then(|n| n.clients.get(&proc.rank)).is_some_and(|r| !r.terminated);
        if newly {
            setup::child_finalized(proc);
        }
        if let Some(ns) = self.nspaces.get_mut(&proc.nspace) {
            if let Some(r) = ns.clients.get_mut(&proc.rank) {
                r.terminated = true;
            }
            ns.ended.insert(proc.rank);
            let all_done = ns.registered
                && ns.ended.len() as i64 >= ns.nlocalprocs as i64
                && ns.clients.values().all(|r| r.terminated);
            if all_done && newly {
                if let Some(mut e) = ns.epilog.take() {
                    e.execute();
                }
                setup::app_finalized(&proc.nspace);
            }
        }
        // (after the flags above: groups see it as ended)
        self.with_groups(net, |g, cx| g.member_ended(cx, proc));
    }

    /// How a local process ended, as its host saw it (kept for tools' views:
    /// `rpmix.qry.top`). A process this server does not serve is ignored.
    pub fn note_exit(&mut self, proc: &Proc, how: nspace::ExitOf) {
        if let Some(ns) = self.nspaces.get_mut(&proc.nspace) {
            if ns.clients.contains_key(&proc.rank) || ns.ended.contains(&proc.rank) {
                ns.exits.insert(proc.rank, how);
            }
        }
    }

    pub fn deregister_client(&mut self, net: &mut Net, proc: &Proc) {
        self.terminated(net, proc);
        let conn = self.nspaces.get_mut(&proc.nspace).and_then(|ns| ns.clients.remove(&proc.rank)).and_then(|r| r.conn);
        if let Some(c) = conn {
            self.forget_conn(net, c);
        }
        self.fail_fences_of(net, proc);
        self.release_parked(net, proc);
    }

    pub fn deregister_nspace(&mut self, net: &mut Net, name: &str) {
        self.gone.ended(name);
        self.evcache.forget_nspace(name);
        self.groups.qualified.retain(|(p, _), _| p.nspace != name);
        self.iof.forget_nspace(name);
        if let Some(mut ns) = self.nspaces.remove(name) {
            // The namespace's directory, if we made it (with what its ranks left there).
            if let Some(sd) = &self.session_dir {
                if let Some(nsdir) = crate::owned::find(&ns.job, PMIX_NSDIR).and_then(|i| i.as_str()).and_then(|d| sd.made_nsdir(&d)) {
                    sd.remove_subtree(&nsdir);
                }
            }
            for rank in ns.clients.keys() {
                self.jobctl.run_epilog(&Proc::new(name, *rank));
            }
            if let Some(mut e) = ns.epilog.take() {
                e.execute();
            }
            for (rank, reg) in ns.clients {
                let p = Proc::new(name, rank);
                if let Some(c) = reg.conn {
                    self.forget_conn(net, c);
                }
                // As in terminated(): what was pending on the process ends with it.
                self.checkpoint_progress(net, &p, jobctl::Which::All, PMIX_ERR_PROC_CHECKPOINT);
                self.with_groups(net, |g, cx| g.member_ended(cx, &p));
                self.monitors.forget(&p);
                jobctl::forget(&p);
                self.fail_fences_of(net, &p);
                self.release_parked(net, &p);
            }
        }
    }

    /// Deliver an event to local clients in `range` (and to this process's handlers).
    pub fn deliver_event(&mut self, net: &mut Net, status: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info]) {
        self.sink().deliver(net, status, source, range, info);
    }

    /// Run this process's (the host's) handlers registered for `status`.
    fn notify_own_handlers(&self, status: pmix_status_t, source: &Proc, info: &[Info]) {
        let chain = self.events.chain_for(status, info);
        events::notify(chain, status, source, info, self.poster());
    }

    /// Where events go: the peers, the events kept, and this process's handlers.
    fn sink(&mut self) -> Sink<'_> {
        let handle = self.handle();
        Sink { peers: &self.peers, openpmix: &self.openpmix, cache: &mut self.evcache, registry: &self.events, handle }
    }

    /// `who` on `conn` registered for `codes`: the kept events of these
    /// codes it has not had go to it. An OpenPMIx client gets them after
    /// the registration's answer (posted: `dispatch` writes that answer
    /// after `serve`), as OpenPMIx's server sends them, so that its
    /// registration completes first; rpmix's registration has no answer:
    /// they go at once.
    fn replay_kept(&mut self, net: &mut Net, conn: ConnId, who: &Proc, codes: &[pmix_status_t], info: &[Info]) {
        self.evcache.registered(conn, codes);
        let bodies = self.evcache.replay(who, codes, events::affected_procs(info).as_deref());
        if bodies.is_empty() {
            return;
        }
        crate::pmix_debug!(5, "{who} registered for {codes:?}: {} kept events go to it", bodies.len());
        let send = move |net: &mut Net| {
            for b in bodies {
                net.send(conn, 0, wire::EVENT, &b);
            }
        };
        if self.openpmix.contains_key(&conn) {
            self.handle().run(move |_, net| send(net));
        } else {
            send(net);
        }
    }

    // ---- client requests ----

    fn dispatch(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, body: &[u8]) -> Res {
        let who = match self.peers.get(&conn) {
            Some(p) => p.proc.clone(),
            None => {
                if tag == wire::HELLO {
                    self.conn_ctx().on_hello(net, conn, req, body);
                } else if tag == wire::TOOL_HELLO {
                    self.conn_ctx().on_tool_hello(net, conn, req, body);
                } else {
                    crate::pmix_debug!(1, "connection {conn}: request before hello; dropping it");
                    net.close(conn);
                }
                return Ok(());
            }
        };
        if let Some(link) = self.openpmix.get(&conn).cloned() {
            let tool = self.peers.get(&conn).is_some_and(|p| p.tool);
            let Some((req, request, ack)) = openpmix::incoming(net, &self.nspaces, &self.hostname, tool, conn, req, &who, &link, body) else { return Ok(()) };
            self.serve(net, conn, req, who, request)?;
            if ack {
                reply(net, conn, req, Reply::Status(PMIX_SUCCESS));
            }
            return Ok(());
        }
        let request = Request::decode(tag, body)?;
        self.serve(net, conn, req, who, request)
    }

    /// A request of a connected peer, whichever codec it came in.
    fn serve(&mut self, net: &mut Net, conn: ConnId, req: u32, who: Proc, request: Request) -> Res {
        let obj = self.nspaces.get(&who.nspace).and_then(|n| n.clients.get(&who.rank)).map(|r| r.server_object).unwrap_or(0);
        let is_tool = self.peers.get(&conn).is_some_and(|p| p.tool);
        if is_tool {
            match request {
                Request::Commit { .. } | Request::Barrier { .. } => {
                    reply(net, conn, req, Reply::Status(PMIX_ERR_NOT_SUPPORTED));
                    return Ok(());
                }
                Request::Finalize => {
                    reply(net, conn, req, Reply::Status(PMIX_SUCCESS));
                    return Ok(());
                }
                _ => {}
            }
        }
        match request {
            Request::Commit { puts } => self.modex.on_commit(net, &mut self.nspaces, &who, puts)?,
            Request::Barrier(mut b) => {
                // Nobody named: the caller's namespace; a group: its members.
                if b.procs.is_empty() {
                    b.procs.push(Proc::wildcard(&who.nspace));
                }
                b.procs = self.groups.expand(std::mem::take(&mut b.procs), &self.nspaces);
                self.with_fences(net, |f, cx| f.arrive(cx, conn, req, &who, b));
            }
            Request::Get { target, key, info } => self.on_get(net, conn, req, target, key, info)?,
            Request::Finalize => {
                if let Some(r) = self.nspaces.get_mut(&who.nspace).and_then(|n| n.clients.get_mut(&who.rank)) {
                    r.finalized = true;
                }
                // Its cleanup is done before its finalize is acknowledged.
                self.terminated(net, &who);
                let done = self.done_reply(conn, req);
                let u = self.host.client_finalized(&who, obj, done);
                self.upcall_reply(net, conn, req, u);
            }
            Request::Abort { status, message, procs } => {
                let done = self.done_reply(conn, req);
                let u = self.host.abort(&who, obj, status, &message, &procs, done);
                self.upcall_reply(net, conn, req, u);
            }
            Request::Publish { info } => pubsub::publish(&mut self.pubsub_ctx(net, conn), conn, req, &who, info),
            Request::Lookup { keys, info } => pubsub::lookup(&mut self.pubsub_ctx(net, conn), conn, req, &who, keys, info),
            Request::Unpublish { keys, info } => pubsub::unpublish(&mut self.pubsub_ctx(net, conn), conn, req, &who, keys, info),
            Request::Notify { status, source, range, info } => {
                let complete = status == PMIX_JCTRL_CHECKPOINT_COMPLETE;
                if complete {
                    // Counted for the sender the kernel vouches for, not the source it names.
                    let id = find(&info, PMIX_JOB_CTRL_CHECKPOINT).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
                    let which = id.as_deref().map_or(jobctl::Which::All, jobctl::Which::Id);
                    self.checkpoint_progress(net, &who, which, PMIX_SUCCESS);
                    // The RM wants to hear it whatever the range (a preemption may wait for it).
                    let _ = self.host.notify_event(status, &who, PMIX_RANGE_RM, &info, Box::new(|_| {}));
                }
                self.sink().deliver_from(net, Some(&who), status, &source, range, &info);
                // A debugger's release goes to the host whatever its range
                // (as with OpenPMIx, for any range beyond this node's
                // clients): a launcher holds ranks stopped on exec itself.
                let release = status == PMIX_DEBUGGER_RELEASE && range != PMIX_RANGE_LOCAL;
                if release {
                    let _ = self.host.notify_event(status, &who, range, &info, Box::new(|_| {}));
                } else if !complete && matches!(range, PMIX_RANGE_GLOBAL | PMIX_RANGE_SESSION | PMIX_RANGE_RM) {
                    let _ = self.host.notify_event(status, &source, range, &info, Box::new(|_| {}));
                }
                reply(net, conn, req, Reply::Status(PMIX_SUCCESS));
            }
            Request::Log { data, directives: mut dirs } => {
                if find(&dirs, PMIX_LOG_SOURCE).is_none() {
                    dirs.push(Info::new("pmix.log.source", Value::proc(&who)));
                }
                let done = self.done_reply(conn, req);
                match self.host.log(&who, &data, &dirs, done) {
                    // No log upcall: the standard channels are written here.
                    Upcall::Now(PMIX_ERR_NOT_SUPPORTED) => reply(net, conn, req, Reply::Status(log::write_locally(&who, &data, &dirs))),
                    u => self.upcall_reply(net, conn, req, u),
                }
            }
            Request::Spawn { job_info, apps } => {
                let tool_pid = self.peers.get(&conn).filter(|p| p.tool).map(|p| p.cred.pid);
                let handle = self.handle();
                spawn::on_spawn(&mut spawn::Ctx { net, host: &mut *self.host, handle }, conn, req, &who, tool_pid, job_info, apps)?
            }
            Request::Query { queries } => {
                let view = top::Ctx { nspaces: &self.nspaces, peers: &self.peers, fences: &self.fences, groups: &self.groups, modex: &self.modex, iof: &self.iof };
                let handle = self.handle();
                let mut cx = query::Ctx { net, host: &mut *self.host, handle, hostname: &self.hostname, psets: &self.psets, view };
                query::on_query(&mut cx, conn, req, &who, queries);
            }
            Request::JobControl { targets, directives } => {
                let cred = self.peers.get(&conn).map(|p| p.cred);
                let handle = self.handle();
                let events = Sink { peers: &self.peers, openpmix: &self.openpmix, cache: &mut self.evcache, registry: &self.events, handle: handle.clone() };
                let mut cx = jobctl::Ctx { net, host: &mut *self.host, nspaces: &mut self.nspaces, handle, events };
                self.jobctl.on_request(&mut cx, conn, req, &who, cred, targets, directives)?
            }
            Request::Monitor(m) => {
                let done = self.done_reply_infos(conn, req);
                let answer = self.monitors.request(net, &mut *self.host, self.enable_monitoring, &who, *m, done);
                // (a request nobody waits on gets no answer)
                if let (Some(st), true) = (answer, req != 0) {
                    reply(net, conn, req, Reply::Infos { status: st, infos: Vec::new() });
                }
            }
            Request::IofPull(p) => {
                let (hostname, nspaces, peers) = (&self.hostname, &self.nspaces, &self.peers);
                let origin_of = |src: &Proc| (hostname.clone(), pid_of(nspaces, peers, src));
                self.iof.pull(net, &mut *self.host, conn, req, &who, p, origin_of);
            }
            Request::IofDeregister { id } => self.iof.deregister(net, conn, req, id),
            Request::IofPush(p) => {
                let done = self.done_reply(conn, req);
                iof::push(net, &mut *self.host, conn, req, &who, p, done);
            }
            Request::Group(g) => self.with_groups(net, |groups, cx| groups.on_request(cx, conn, req, &who, g)),
            Request::Heartbeat => self.monitors.beat(&who),
            Request::GetCredential { info } => self.conn_ctx().on_get_credential(net, conn, req, &who, info)?,
            Request::ValidateCredential { credential, info } => self.conn_ctx().on_validate_credential(net, conn, req, &who, credential, info)?,
            // The host's answer does not change the client's local registration.
            Request::RegisterEvents { codes, info } => {
                let _ = self.host.register_events(&codes, &info, Box::new(|_| {}));
                self.replay_kept(net, conn, &who, &codes, &info);
            }
            Request::DeregisterEvents { codes } => {
                self.evcache.deregistered(conn, &codes);
                let _ = self.host.deregister_events(&codes, Box::new(|_| {}));
            }
            Request::SessionControl { session, directives } => {
                let u = self.host.session_control(&who, session, &directives, self.done_reply_infos(conn, req));
                if let Upcall::Now(st) = u {
                    if st == PMIX_ERR_NOT_SUPPORTED {
                        crate::pmix_debug!(1, "session control from {who}: the host has no session control");
                    }
                    reply(net, conn, req, Reply::Status(settled(st)));
                }
            }
            Request::Allocate { directive, data } => {
                let u = self.host.allocate(&who, directive, &data, self.done_reply_infos(conn, req));
                if let Upcall::Now(st) = u {
                    // (as the host's later answer: OpenPMIx's form of it carries infos)
                    reply(net, conn, req, Reply::Infos { status: settled(st), infos: Vec::new() });
                }
            }
        }
        Ok(())
    }
}

/// The most a connection that has not completed its hello may hold of an
/// unfinished frame: a hello is small, and a peer nobody registered must
/// not make the server buffer megabytes.
const HELLO_READ_LIMIT: usize = 1 << 20;

impl Role for ServerRole {
    fn read_limit(&self, conn: ConnId) -> usize {
        if self.peers.contains_key(&conn) {
            runtime::MAX_FRAME + runtime::HEADER
        } else {
            HELLO_READ_LIMIT
        }
    }

    fn on_start(&mut self, handle: Handle<ServerRole>) {
        self.set_handle(handle);
    }

    fn on_frame(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, body: &[u8]) {
        if let Err(e) = self.dispatch(net, conn, req, tag, body) {
            crate::pmix_debug!(1, "connection {conn}: request tag {tag} does not decode ({e}); answering with an error");
            reply(net, conn, req, Reply::Status(e));
        }
    }

    fn on_close(&mut self, net: &mut Net, conn: ConnId) {
        let Some(peer) = self.drop_conn_state(net, conn) else { return };
        let clean = self
            .nspaces
            .get_mut(&peer.proc.nspace)
            .and_then(|n| n.clients.get_mut(&peer.proc.rank))
            .map(|r| {
                r.conn = None;
                r.finalized
            })
            .unwrap_or(true);
        if !clean {
            // Lost without finalize: never reported to the host as a clean finalize.
            crate::pmix_debug!(1, "lost connection to {} without finalize", peer.proc);
            self.terminated(net, &peer.proc);
            // The host's own handlers hear it after an event window, as
            // OpenPMIx raises it to them (lostconn.rs).
            self.lost.lost(net, &peer.proc);
        }
        if peer.tool {
            // A tool is no registered client: its groups, invitations and
            // the monitors it set on itself end with its connection.
            self.with_groups(net, |g, cx| g.member_ended(cx, &peer.proc));
            self.monitors.forget(&peer.proc);
            self.evcache.forget_tool(&peer.proc);
            self.host.tool_disconnected(&peer.proc);
        }
        self.fail_fences_of(net, &peer.proc);
        self.release_parked(net, &peer.proc);
    }

    fn on_timer(&mut self, net: &mut Net, timer: u64) {
        if self.jobctl.timer(net, timer) || self.with_groups(net, |g, cx| g.timer(cx, timer)) {
            return;
        }
        if let Some((source, info)) = self.lost.timer(timer) {
            self.notify_own_handlers(PMIX_ERR_LOST_CONNECTION, &source, &info);
            return;
        }
        if let Some(alert) = self.monitors.expired(net, timer) {
            if let Some(m) = alert {
                crate::pmix_debug!(1, "monitor: {} stalled ({} periods without progress)", m.target, m.misses);
                let mut info = vec![Info::new("pmix.evproc", Value::proc(&m.target))];
                if let Some(id) = &m.id {
                    info.push(Info::new("pmix.monitor.id", Value::string(id)));
                }
                self.deliver_event(net, m.error, &m.target, m.range, &info);
                if !m.app_control {
                    self.host.monitor_alert(&m.target, m.error, m.id.as_deref());
                }
            }
            return;
        }
        if !self.fences.timer(net, &self.nspaces, timer) {
            self.modex.timer(net, timer);
        }
    }

    fn on_stop(&mut self, net: &mut Net) {
        self.lost.drop_held();
        // Server finalize: every registered cleanup runs now at the latest.
        self.jobctl.run_all_epilogs();
        for ns in self.nspaces.values_mut() {
            if let Some(mut e) = ns.epilog.take() {
                e.execute();
            }
        }
        self.fences.fail_all(net, &self.nspaces, PMIX_ERR_LOST_CONNECTION);
        self.modex.fail_all(net);
    }
}

/// The namespace directory we made for `proc`'s namespace, and its
/// registration's (uid, gid); None when the host laid out its own, or the
/// rank is not registered here.
fn made_nsdir_of<'s>(sd: Option<&'s session::SessionDir>, nspaces: &HashMap<String, Nspace>, proc: &Proc) -> Option<(&'s session::SessionDir, std::path::PathBuf, (u32, u32))> {
    let ns = nspaces.get(&proc.nspace)?;
    let sd = sd?;
    let nsdir = crate::owned::find(&ns.job, PMIX_NSDIR).and_then(|i| i.as_str()).and_then(|d| sd.made_nsdir(&d))?;
    let owner = ns.clients.get(&proc.rank).map(|r| (r.uid, r.gid))?;
    Some((sd, nsdir, owner))
}

/// A namespace's directory (PMIX_NSDIR) where the server lays it out, made
/// and added to its job data the first time anyone asks for it (a Get of
/// the key, a rank's own directory, an OpenPMIx client's connection).
fn ensure_nsdir(sd: Option<&session::SessionDir>, nspaces: &mut HashMap<String, Nspace>, name: &str) {
    let (Some(sd), Some(ns)) = (sd, nspaces.get_mut(name)) else { return };
    if !ns.own_dirs || ns.has(PMIX_NSDIR) {
        return;
    }
    if let Some(d) = sd.nsdir(name) {
        ns.set_if_missing(PMIX_NSDIR, Value::string(&d.to_string_lossy()));
    }
}

/// A local rank's own directory (PMIX_PROCDIR), made and added to its data
/// the first time anyone asks for it: a Get of the key or of all the rank's
/// data, or an OpenPMIx client's connection (its library reads the key only
/// from the job data it is sent).
fn ensure_procdir(sd: Option<&session::SessionDir>, nspaces: &mut HashMap<String, Nspace>, proc: &Proc) {
    if proc.rank == PMIX_RANK_WILDCARD || nspaces.get(&proc.nspace).is_some_and(|ns| ns.has_proc_key(proc.rank, PMIX_PROCDIR)) {
        return;
    }
    ensure_nsdir(sd, nspaces, &proc.nspace);
    let Some((sd, nsdir, owner)) = made_nsdir_of(sd, nspaces, proc) else { return };
    if let Some(d) = sd.procdir(&nsdir, proc.rank, owner) {
        if let Some(ns) = nspaces.get_mut(&proc.nspace) {
            ns.set_proc_if_missing(proc.rank, PMIX_PROCDIR, Value::string(&d.to_string_lossy()));
        }
    }
}
