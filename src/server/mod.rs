//! The server role: namespaces and clients registered by the host, client
//! connections (identity from SO_PEERCRED), fences, Gets, and the requests it
//! relays to the host through the `Host` trait.

pub mod cleanup;
pub mod cmodule;
pub mod group;
pub mod iof;
pub mod jobctl;
pub mod log;
pub mod monitor;
pub mod host;
pub mod nspace;
pub mod regex;
pub mod session;
pub mod setup;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::abi::*;
use crate::data::elem::Res;
use crate::data::kind::Kind;
use crate::data::pack::{Decoder, Encoder};
use crate::events;
use crate::owned::{self, decode_infos, decode_procs, decode_str, encode_infos, find, Info, Proc, Value};
use crate::runtime::{self, ConnId, Handle, Net, PeerCred, Role};
use crate::wire;
use host::{CArray, Host, Upcall};
use nspace::{ClientReg, Nspace};

/// A connection that completed its hello.
struct Peer {
    proc: Proc,
    cred: PeerCred,
    tool: bool,
}

/// A fence (or connect/disconnect barrier) in progress.
struct Barrier {
    kind: u16,
    /// Participants as the callers named them (passed to the host).
    procs: Vec<Proc>,
    /// Expanded, sorted participants: the barrier's identity.
    members: Vec<Proc>,
    collect: bool,
    info: Vec<Info>,
    local_needed: BTreeSet<Proc>,
    arrived: Vec<(ConnId, u32, Proc)>,
    timer: Option<u64>,
    at_host: bool,
    id: u64,
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
}

/// A host's PMIx_server_dmodex_request for a local client that has not
/// committed yet: answered at its commit, its end, or REMOTE_GET_WAIT.
pub struct ParkedDmodex {
    target: Proc,
    timer: u64,
    done: Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>,
}

/// How long a Get waits for a key a connected local client has not committed
/// (OpenPMIx's default): PMIX_ERR_TIMEOUT after it.
const LOCAL_GET_WAIT: Duration = Duration::from_secs(2);
/// How long a Get waits for the host's direct_modex answer when the caller
/// gave no PMIX_TIMEOUT: long enough for a remote peer that is still starting,
/// finite if the host never answers. A later answer is stored, not replied.
const REMOTE_GET_WAIT: Duration = Duration::from_secs(120);

pub struct ServerRole {
    host: Box<dyn Host>,
    pub me: Proc,
    hostname: String,
    pub nspaces: HashMap<String, Nspace>,
    peers: HashMap<ConnId, Peer>,
    barriers: Vec<Barrier>,
    parked: Vec<ParkedGet>,
    parked_dmodex: Vec<ParkedDmodex>,
    next_barrier: u64,
    next_dmodex: u64,
    /// PMIx_Store_internal in server role.
    internal: HashMap<Proc, Vec<Info>>,
    pub events: events::Registry,
    psets: HashMap<String, Vec<Proc>>,
    next_tool: u32,
    monitors: Vec<monitor::Monitor>,
    /// Checkpoint requests waiting for their targets' completion.
    checkpoints: Vec<jobctl::Checkpoint>,
    /// Process groups and group operations in progress.
    groups: group::Groups,
    next_checkpoint: u64,
    pub iof: iof::Iof,
    /// (source, channel) combinations already asked of the host's iof_pull.
    iof_asked: std::collections::HashSet<(Proc, pmix_iof_channel_t)>,
    /// PMIX_SERVER_ENABLE_MONITORING: monitor here even if the host could.
    pub enable_monitoring: bool,
    /// Cleanup registered by a process for itself (runs when it terminates).
    proc_epilogs: HashMap<Proc, cleanup::Epilog>,
    /// The session directory (PMIX_TMPDIR) under which namespaces and ranks
    /// get theirs (PMIX_NSDIR, PMIX_PROCDIR) unless the host gave its own.
    pub session_dir: Option<session::SessionDir>,
    handle: Option<Handle<ServerRole>>,
}

fn reply(net: &mut Net, conn: ConnId, req: u32, status: pmix_status_t, body: &[u8]) {
    let mut b = Vec::with_capacity(4 + body.len());
    b.extend_from_slice(&status.to_le_bytes());
    b.extend_from_slice(body);
    net.send(conn, req, wire::REPLY, &b);
}

/// A reply whose body is a list of infos (what every info-style request expects).
fn reply_infos(net: &mut Net, conn: ConnId, req: u32, status: pmix_status_t, infos: &[Info]) {
    let mut e = Encoder::default();
    let _ = encode_infos(&mut e, infos);
    reply(net, conn, req, status, e.bytes());
}

/// The reply status the client sees for a host's answer: "done at once" is success.
fn settled(st: pmix_status_t) -> pmix_status_t {
    if st == PMIX_OPERATION_SUCCEEDED {
        PMIX_SUCCESS
    } else {
        st
    }
}

impl ServerRole {
    pub fn new(host: Box<dyn Host>, me: Proc, hostname: String) -> ServerRole {
        ServerRole {
            host,
            me,
            hostname,
            nspaces: HashMap::new(),
            peers: HashMap::new(),
            barriers: Vec::new(),
            parked: Vec::new(),
            parked_dmodex: Vec::new(),
            next_barrier: 1,
            next_dmodex: 1,
            internal: HashMap::new(),
            events: events::Registry::default(),
            psets: HashMap::new(),
            next_tool: 0,
            monitors: Vec::new(),
            checkpoints: Vec::new(),
            groups: Default::default(),
            next_checkpoint: 0,
            iof: iof::Iof::default(),
            iof_asked: std::collections::HashSet::new(),
            enable_monitoring: false,
            proc_epilogs: HashMap::new(),
            session_dir: None,
            handle: None,
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
        let h = self.handle();
        Arc::new(move |f| {
            h.run(move |_, _| f());
        })
    }

    /// Run an upcall; `Now(st)` answers at once, `Pending` later via `finish`.
    fn upcall_reply(&mut self, net: &mut Net, conn: ConnId, req: u32, u: Upcall) {
        if let Upcall::Now(st) = u {
            reply(net, conn, req, settled(st), &[]);
        }
    }

    /// A completion that replies `(status)` to `conn/req` on the progress thread.
    fn done_reply(&self, conn: ConnId, req: u32) -> host::Done {
        let h = self.handle();
        Box::new(move |st| {
            h.run(move |_, net| reply(net, conn, req, settled(st), &[]));
        })
    }

    /// A completion that replies `(status, infos)` to `conn/req` on the progress thread.
    fn done_reply_infos(&self, conn: ConnId, req: u32) -> host::DoneInfos {
        let h = self.handle();
        Box::new(move |st, infos| {
            h.run(move |_, net| reply_infos(net, conn, req, settled(st), &infos));
        })
    }

    // ---- registration (host API, on the progress thread) ----

    pub fn register_nspace(&mut self, name: &str, nlocal: i32, info: Vec<Info>) {
        let host = self.hostname.clone();
        let ns = self.nspaces.entry(name.to_string()).or_insert_with(|| Nspace::new(name));
        ns.register(nlocal, info, &host);
        // Session directories, unless the host laid out its own.
        if let Some(sd) = &self.session_dir {
            if !ns.has(PMIX_NSDIR) {
                if let Some(d) = sd.nsdir(name) {
                    ns.set_if_missing(PMIX_TMPDIR, Value::string(&sd.path.to_string_lossy()));
                    ns.set_if_missing(PMIX_NSDIR, Value::string(&d.to_string_lossy()));
                }
            }
        }
        // Clients may be registered before or after their namespace.
        let ranks: Vec<pmix_rank_t> = self.nspaces.get(name).map(|n| n.clients.keys().copied().collect()).unwrap_or_default();
        for r in ranks {
            self.make_procdir(&Proc::new(name, r));
        }
    }

    /// A rank's own directory, under the namespace directory we made.
    fn make_procdir(&mut self, proc: &Proc) {
        let (Some(sd), Some(ns)) = (&self.session_dir, self.nspaces.get_mut(&proc.nspace)) else { return };
        let Some(nsdir) = crate::owned::find(&ns.job, PMIX_NSDIR).and_then(|i| i.as_str()).and_then(|d| sd.made_nsdir(&d)) else { return };
        if let Some(d) = sd.procdir(&nsdir, proc.rank) {
            ns.set_proc_if_missing(proc.rank, PMIX_PROCDIR, Value::string(&d.to_string_lossy()));
        }
    }

    pub fn register_client(&mut self, proc: &Proc, uid: u32, gid: u32, obj: usize) {
        let ns = self.nspaces.entry(proc.nspace.clone()).or_insert_with(|| Nspace::new(&proc.nspace));
        ns.clients.insert(proc.rank, ClientReg { uid, gid, server_object: obj, conn: None, connected: false, finalized: false, terminated: false });
        self.make_procdir(proc);
    }

    /// A local process ended (finalize, exit, lost connection, deregistration):
    /// run its cleanup, and its namespace's once every local client has ended.
    fn terminated(&mut self, net: &mut Net, proc: &Proc) {
        // A target that ends before completing its checkpoint failed it.
        self.checkpoint_progress(net, proc, jobctl::Which::All, PMIX_ERR_PROC_CHECKPOINT);
        if let Some(mut e) = self.proc_epilogs.remove(proc) {
            e.execute();
        }
        // Monitors end with their process.
        self.monitors.retain(|m| m.target != *proc);
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
        self.group_member_ended(net, proc);
    }

    /// PMIx_Job_control from a client or tool: cleanup registration and the
    /// registration of checkpoint methods / preemptibility are handled here
    /// (never relayed); requests that act on processes go to the host.
    fn on_job_control(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let targets = decode_procs(d)?;
        let directives = decode_infos(d)?;
        let cred = self.peers.get(&conn).map(|p| p.cred).ok_or(PMIX_ERR_UNREACH)?;
        let request = match cleanup::parse(&directives) {
            Ok(r) => r,
            Err(e) => {
                reply(net, conn, req, e, &[]);
                return Ok(());
            }
        };
        let registration = jobctl::registration(&directives);
        let actions = directives.iter().any(|i| !cleanup::is_cleanup_key(i) && !jobctl::is_registration_key(i) && !i.is(PMIX_JOB_CTRL_ID));
        // Cleanup: a process may register it only for itself or its own namespace.
        if !request.is_empty() {
            let ctargets = if targets.is_empty() { vec![Proc::wildcard(&who.nspace)] } else { targets.clone() };
            if ctargets.iter().any(|t| !(t == who || (t.nspace == who.nspace && t.rank == PMIX_RANK_WILDCARD))) {
                reply(net, conn, req, PMIX_ERR_NO_PERMISSIONS, &[]);
                return Ok(());
            }
            // All or nothing across the targets.
            let mut proc_e = self.proc_epilogs.get(who).cloned().unwrap_or_else(|| cleanup::Epilog::new(cred.uid, cred.gid));
            let Some(ns) = self.nspaces.get(&who.nspace) else {
                reply(net, conn, req, PMIX_ERR_NOT_FOUND, &[]);
                return Ok(());
            };
            let mut ns_e = ns.epilog.clone().unwrap_or_else(|| cleanup::Epilog::new(cred.uid, cred.gid));
            for t in &ctargets {
                let r = if t == who { proc_e.merge(&request) } else { ns_e.merge(&request) };
                if let Err(e) = r {
                    reply(net, conn, req, e, &[]);
                    return Ok(());
                }
            }
            if ctargets.iter().any(|t| t == who) {
                self.proc_epilogs.insert(who.clone(), proc_e);
            }
            if ctargets.iter().any(|t| t != who) {
                if let Some(ns) = self.nspaces.get_mut(&who.nspace) {
                    ns.epilog = Some(ns_e);
                }
            }
        }
        // Registration is information about the requester (targets ignored, as the RFC says).
        if let Some(r) = registration {
            jobctl::register(who, r);
        }
        if !actions {
            reply_infos(net, conn, req, PMIX_SUCCESS, &[]);
            return Ok(());
        }
        if find(&directives, PMIX_JOB_CTRL_CHECKPOINT).is_some() && self.checkpoint(net, conn, req, who, &targets, &directives) {
            return Ok(());
        }
        if let Some(c) = find(&directives, PMIX_JOB_CTRL_CANCEL) {
            // Checkpoints are the server's own pending requests; anything else is the host's.
            let id = c.as_str().filter(|s| !s.is_empty());
            if self.cancel_checkpoints(net, who, id.as_deref()) > 0 {
                reply(net, conn, req, PMIX_SUCCESS, &[]);
                return Ok(());
            }
        }
        let u = self.host.job_control(who, &targets, &directives, self.done_reply_infos(conn, req));
        if let Upcall::Now(st) = u {
            if st == PMIX_ERR_NOT_SUPPORTED {
                crate::pmix_debug!(5, "{who}: the host does not support job control");
            }
            reply(net, conn, req, settled(st), &[]);
        }
        Ok(())
    }

    /// PMIx_Process_monitor from a client: heartbeats, file monitors, cancel.
    fn on_monitor(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let mut m = decode_infos(d)?;
        let error = d.u32()? as i32;
        let directives = decode_infos(d)?;
        let Some(monitor) = m.pop() else {
            reply(net, conn, req, PMIX_ERR_BAD_PARAM, &[]);
            return Ok(());
        };
        let answer = |net: &mut Net, st| {
            if req != 0 {
                reply_infos(net, conn, req, st, &[]);
            }
        };
        // The host monitors when it can, unless the server was asked to.
        if !self.enable_monitoring && !monitor.is(PMIX_SEND_HEARTBEAT) {
            let u = self.host.monitor(who, &monitor, error, &directives, self.done_reply_infos(conn, req));
            match u {
                Upcall::Pending => return Ok(()),
                Upcall::Now(st) if st != PMIX_ERR_NOT_SUPPORTED => {
                    answer(net, settled(st));
                    return Ok(());
                }
                Upcall::Now(_) => {} // not supported by the host: monitor here
            }
        }
        match monitor::parse(&monitor, error, &directives, who) {
            Err(e) => answer(net, e),
            Ok(monitor::Request::Beat) => {
                for m in self.monitors.iter_mut().filter(|m| m.target == *who) {
                    m.beats += 1;
                }
                answer(net, PMIX_SUCCESS);
            }
            Ok(monitor::Request::Cancel(id)) => {
                let before = self.monitors.len();
                let gone: Vec<u64> = self
                    .monitors
                    .iter()
                    .filter(|m| m.target == *who && (id.is_none() || m.id == id))
                    .map(|m| m.timer)
                    .collect();
                self.monitors.retain(|m| !(m.target == *who && (id.is_none() || m.id == id)));
                for t in gone {
                    net.cancel_timer(t);
                }
                answer(net, if self.monitors.len() < before { PMIX_SUCCESS } else { PMIX_ERR_NOT_FOUND });
            }
            Ok(monitor::Request::Start(mut m)) => {
                if let Some(id) = &m.id {
                    if self.monitors.iter().any(|x| x.target == *who && x.id.as_ref() == Some(id)) {
                        answer(net, PMIX_ERR_EXISTS);
                        return Ok(());
                    }
                }
                m.timer = net.timer(m.period);
                self.monitors.push(m);
                answer(net, PMIX_SUCCESS);
            }
        }
        Ok(())
    }

    /// PMIx_server_IOF_deliver: forward to every matching pull, else cache.
    pub fn iof_deliver(&mut self, net: &mut Net, source: &Proc, channel: pmix_iof_channel_t, data: &[u8], complete: bool) {
        let targets: Vec<(ConnId, u32)> = self.iof.pulls.iter().filter(|p| p.matches(source, channel)).map(|p| (p.conn, p.handle)).collect();
        if targets.is_empty() {
            self.iof.cache(source, channel, (data.to_vec(), complete));
            return;
        }
        let origin = Origin { host: &self.hostname, pid: self.pid_of(source) };
        for (conn, handle) in targets {
            send_iof(net, conn, handle, source, &origin, channel, data, complete);
        }
    }

    /// The pid of a local process: the kernel's word for a connected client,
    /// else PMIX_PROC_PID as the host registered it (0: unknown).
    fn pid_of(&self, p: &Proc) -> u32 {
        let ns = self.nspaces.get(&p.nspace);
        let conn = ns.and_then(|n| n.clients.get(&p.rank)).and_then(|c| c.conn);
        if let Some(peer) = conn.and_then(|c| self.peers.get(&c)) {
            return peer.cred.pid.max(0) as u32;
        }
        ns.and_then(|n| n.procs.get(&p.rank)).and_then(|v| find(v, PMIX_PROC_PID)).and_then(|i| i.as_u32()).unwrap_or(0)
    }

    /// The largest backlog of forwarded output any pulling tool has not read
    /// yet: a host that can make its sources wait (pmixrun) throttles on it,
    /// so a slow tool bounds memory instead of growing it.
    pub fn iof_backlog(&self, net: &Net) -> usize {
        self.iof.pulls.iter().map(|p| net.queued(p.conn)).max().unwrap_or(0)
    }

    fn on_iof_pull(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let procs = decode_procs(d)?;
        let channels = d.u32()? as pmix_iof_channel_t;
        let handle = d.u32()?;
        let directives = decode_infos(d)?;
        if channels & PMIX_FWD_STDIN_CHANNEL != 0 || channels == 0 || procs.is_empty() {
            reply(net, conn, req, if channels & PMIX_FWD_STDIN_CHANNEL != 0 { PMIX_ERR_NOT_SUPPORTED } else { PMIX_ERR_BAD_PARAM }, &[]);
            return Ok(());
        }
        // Ask the host only for combinations it was not asked for before.
        let fresh: Vec<Proc> = procs
            .iter()
            .filter(|p| [PMIX_FWD_STDOUT_CHANNEL, PMIX_FWD_STDERR_CHANNEL, PMIX_FWD_STDDIAG_CHANNEL].iter().any(|c| channels & c != 0 && !self.iof_asked.contains(&((*p).clone(), *c))))
            .cloned()
            .collect();
        if !fresh.is_empty() {
            for p in &fresh {
                for c in [PMIX_FWD_STDOUT_CHANNEL, PMIX_FWD_STDERR_CHANNEL, PMIX_FWD_STDDIAG_CHANNEL] {
                    if channels & c != 0 {
                        self.iof_asked.insert((p.clone(), c));
                    }
                }
            }
            let _ = self.host.iof_pull(&fresh, &directives, channels, Box::new(|_| {}));
        }
        let id = self.iof.add_pull(conn, handle, who.clone(), procs, channels);
        let mut e = Encoder::default();
        e.u32(id);
        reply(net, conn, req, PMIX_SUCCESS, e.bytes());
        // Output written before anyone pulled it follows the reply.
        for (src, ch, (data, complete)) in self.iof.take_cached(id) {
            let origin = Origin { host: &self.hostname, pid: self.pid_of(&src) };
            send_iof(net, conn, handle, &src, &origin, ch, &data, complete);
        }
        Ok(())
    }

    /// (ever connected, finalized) of a registered client.
    pub fn client_state(&self, proc: &Proc) -> Option<(bool, bool)> {
        self.nspaces.get(&proc.nspace).and_then(|n| n.clients.get(&proc.rank)).map(|r| (r.connected, r.finalized))
    }

    /// Close a client's connection because the host deregistered it (no
    /// lost-connection handling), dropping what the connection held.
    fn forget_conn(&mut self, net: &mut Net, c: ConnId) {
        self.peers.remove(&c);
        self.iof.drop_conn(c);
        self.drop_checkpoints_of(net, c);
        net.close(c);
    }

    pub fn deregister_client(&mut self, net: &mut Net, proc: &Proc) {
        self.terminated(net, proc);
        let conn = self.nspaces.get_mut(&proc.nspace).and_then(|ns| ns.clients.remove(&proc.rank)).and_then(|r| r.conn);
        if let Some(c) = conn {
            self.forget_conn(net, c);
        }
        self.fail_barriers_of(net, proc, PMIX_ERR_LOST_CONNECTION);
        self.release_parked(net, proc);
    }

    pub fn deregister_nspace(&mut self, net: &mut Net, name: &str) {
        self.groups.qualified.retain(|(p, _), _| p.nspace != name);
        if let Some(mut ns) = self.nspaces.remove(name) {
            // The namespace's directory, if we made it (with what its ranks left there).
            if let Some(sd) = &self.session_dir {
                if let Some(nsdir) = crate::owned::find(&ns.job, PMIX_NSDIR).and_then(|i| i.as_str()).and_then(|d| sd.made_nsdir(&d)) {
                    sd.remove_subtree(&nsdir);
                }
            }
            for rank in ns.clients.keys() {
                if let Some(mut e) = self.proc_epilogs.remove(&Proc::new(name, *rank)) {
                    e.execute();
                }
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
                self.group_member_ended(net, &p);
                self.monitors.retain(|m| m.target != p);
                jobctl::forget(&p);
                self.fail_barriers_of(net, &p, PMIX_ERR_LOST_CONNECTION);
                self.release_parked(net, &p);
            }
        }
    }

    pub fn store_internal(&mut self, proc: &Proc, info: Info) {
        let v = self.internal.entry(proc.clone()).or_default();
        v.retain(|i| i.key() != info.key());
        v.push(info);
    }

    /// PMIx_server_define_process_set: remember it and tell the local clients.
    pub fn define_pset(&mut self, net: &mut Net, name: &str, members: Vec<Proc>) -> pmix_status_t {
        let info = vec![Info::new("pmix.pset.nm", Value::string(name)), Info::new("pmix.pset.mems", Value::procs(&members))];
        self.psets.insert(name.to_string(), members);
        let me = self.me.clone();
        self.deliver_event(net, PMIX_PROCESS_SET_DEFINE, &me, PMIX_RANGE_LOCAL, &info);
        PMIX_SUCCESS
    }

    pub fn delete_pset(&mut self, net: &mut Net, name: &str) -> pmix_status_t {
        if self.psets.remove(name).is_none() {
            return PMIX_ERR_NOT_FOUND;
        }
        let info = vec![Info::new("pmix.pset.nm", Value::string(name))];
        let me = self.me.clone();
        self.deliver_event(net, PMIX_PROCESS_SET_DELETE, &me, PMIX_RANGE_LOCAL, &info);
        PMIX_SUCCESS
    }

    /// PMIx_Get in server role: what this server holds, never waiting.
    pub fn get_local(&self, proc: &Proc, key: &str) -> Option<Value> {
        if let Some(v) = self.internal.get(proc).and_then(|l| l.iter().find(|i| i.key() == key)) {
            return Some(v.value());
        }
        let ns = self.nspaces.get(&proc.nspace)?;
        if proc.rank != PMIX_RANK_WILDCARD {
            if let Some(i) = ns.data_for(proc.rank, true).into_iter().find(|i| i.key() == key) {
                return Some(i.value());
            }
        }
        ns.job.iter().find(|i| i.key() == key).map(|i| i.value())
    }

    /// Everything this server holds for one rank (PMIx_Get with a NULL key in
    /// the server's process): what the host stored with PMIx_Store_internal,
    /// registered, and what the rank committed.
    pub fn get_all(&self, proc: &Proc) -> Vec<Info> {
        let mut out: Vec<Info> = self.internal.get(proc).cloned().unwrap_or_default();
        if let Some(ns) = self.nspaces.get(&proc.nspace) {
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
    pub fn dmodex_request(&mut self, net: &mut Net, proc: Proc, done: Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>) {
        let waits = self.nspaces.get(&proc.nspace).is_some_and(|ns| {
            !ns.has_committed.contains(&proc.rank) && ns.clients.get(&proc.rank).is_some_and(|r| !r.finalized && !r.terminated)
        });
        if waits {
            let timer = net.timer(REMOTE_GET_WAIT);
            self.parked_dmodex.push(ParkedDmodex { target: proc, timer, done });
            return;
        }
        self.answer_dmodex(proc, done);
    }

    fn answer_dmodex(&self, proc: Proc, done: Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>) {
        match self.dmodex_blob(&proc) {
            Ok(b) => done(PMIX_SUCCESS, b),
            Err(e) => done(e, Vec::new()),
        }
    }

    /// The parked dmodex requests for `target` (it committed or ended) are answered now.
    fn release_dmodex(&mut self, net: &mut Net, target: &Proc) {
        let (now, keep): (Vec<ParkedDmodex>, Vec<ParkedDmodex>) = std::mem::take(&mut self.parked_dmodex).into_iter().partition(|p| p.target == *target);
        self.parked_dmodex = keep;
        for p in now {
            net.cancel_timer(p.timer);
            self.answer_dmodex(p.target, p.done);
        }
    }

    /// Committed REMOTE/GLOBAL data of a local proc (not what the host
    /// registered, which the asking server has from its own host), as a blob
    /// for PMIx_server_dmodex_request.
    pub fn dmodex_blob(&self, proc: &Proc) -> Res<Vec<u8>> {
        let ns = self.nspaces.get(&proc.nspace).ok_or(PMIX_ERR_NOT_FOUND)?;
        if !ns.is_local(proc.rank) {
            return Err(PMIX_ERR_NOT_FOUND);
        }
        let mut e = Encoder::default();
        blob_record(&mut e, proc, &ns.committed_for(proc.rank, false))?;
        Ok(e.into_bytes())
    }

    /// Deliver an event to local clients in `range` (and to this process's handlers).
    pub fn deliver_event(&mut self, net: &mut Net, status: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info]) {
        let custom: Option<Vec<Proc>> = find(info, PMIX_EVENT_CUSTOM_RANGE).map(|i| procs_of_value(i.value_ref()));
        let mut body = Encoder::default();
        body.u32(status as u32);
        source.encode(&mut body);
        if encode_infos(&mut body, info).is_err() {
            return;
        }
        let targets: Vec<ConnId> = self
            .peers
            .iter()
            .filter(|(_, p)| match range {
                PMIX_RANGE_PROC_LOCAL => p.proc == *source,
                PMIX_RANGE_NAMESPACE => p.proc.nspace == source.nspace,
                PMIX_RANGE_CUSTOM => custom.as_ref().is_some_and(|c| {
                    c.iter().any(|x| x.nspace == p.proc.nspace && (x.rank == p.proc.rank || x.rank == PMIX_RANK_WILDCARD))
                }),
                _ => true,
            })
            .map(|(c, _)| *c)
            .collect();
        for c in targets {
            net.send(c, 0, wire::EVENT, body.bytes());
        }
        // The host's own handlers hear every event its clients raise, whatever
        // the range, as with OpenPMIx (Slurm's default handler ends the step
        // on any event not marked PMIX_EVENT_NON_DEFAULT).
        self.notify_own_handlers(status, source, info);
    }

    /// Run this process's (the host's) handlers registered for `status`.
    fn notify_own_handlers(&self, status: pmix_status_t, source: &Proc, info: &[Info]) {
        let chain = self.events.chain_for(status, info);
        events::notify(chain, status, source, info, self.poster());
    }

    // ---- client requests ----

    fn on_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, d: &mut Decoder<'_>) {
        let parsed = (|| -> Res<(u32, String, u32)> { Ok((d.u32()?, decode_str(d)?, d.u32()?)) })();
        let Ok((proto, ns, rank)) = parsed else {
            crate::pmix_debug!(1, "connection {conn}: malformed hello; dropping it");
            net.close(conn);
            return;
        };
        let proc = Proc::new(&ns, rank);
        let refuse = |net: &mut Net, why: &str, st: pmix_status_t| {
            crate::pmix_debug!(1, "refusing connection of {proc}: {why}");
            reply(net, conn, req, st, &[]);
            net.drain_writes(Duration::from_millis(50));
            net.close(conn);
        };
        if proto != wire::PROTOCOL {
            return refuse(net, "protocol version differs", PMIX_ERR_NOT_SUPPORTED);
        }
        let Some(cred) = net.cred(conn) else {
            return refuse(net, "no peer credentials", PMIX_ERR_INVALID_CRED);
        };
        let Some(ns_entry) = self.nspaces.get_mut(&ns) else {
            return refuse(net, "namespace not registered", PMIX_ERR_NOT_FOUND);
        };
        let Some(reg) = ns_entry.clients.get_mut(&rank) else {
            return refuse(net, "rank not registered", PMIX_ERR_NOT_FOUND);
        };
        if reg.uid != cred.uid || reg.gid != cred.gid {
            return refuse(net, &format!("uid/gid {}/{} differ from the registration", cred.uid, cred.gid), PMIX_ERR_INVALID_CRED);
        }
        if reg.conn.is_some_and(|c| net.is_open(c)) {
            return refuse(net, "rank already connected", PMIX_ERR_EXISTS);
        }
        reg.conn = Some(conn);
        reg.finalized = false;
        reg.terminated = false;
        let first = !reg.connected;
        reg.connected = true;
        let obj = reg.server_object;
        self.peers.insert(conn, Peer { proc: proc.clone(), cred, tool: false });
        // The whole namespace's data: the client answers most Gets from it.
        let mut body = Encoder::default();
        owned::encode_str(&mut body, &self.me.nspace);
        body.u32(self.me.rank);
        let snap = ns_entry.snapshot();
        body.u32(snap.len() as u32);
        for (r, infos) in &snap {
            body.u32(*r);
            if encode_infos(&mut body, infos).is_err() {
                return refuse(net, "job data does not encode", PMIX_ERR_BAD_PARAM);
            }
        }
        if first {
            let st = self.host.client_connected(&proc, obj);
            if st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED && st != PMIX_ERR_NOT_SUPPORTED {
                return refuse(net, "the host refused it", st);
            }
        }
        reply(net, conn, req, PMIX_SUCCESS, body.bytes());
    }

    /// A tool connects: same user as this server (or root) only. The host's
    /// tool_connected upcall would name it; without one the server does.
    fn on_tool_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, d: &mut Decoder<'_>) {
        let ok = d.u32().map(|p| p == wire::PROTOCOL).unwrap_or(false);
        // The name the tool chose (PMIX_TOOL_NSPACE/RANK), if any.
        let chosen = match (owned::decode_str(d), d.u32()) {
            (Ok(ns), Ok(r)) if !ns.is_empty() => Some(Proc::new(&ns, r)),
            _ => None,
        };
        let cred = net.cred(conn);
        // SAFETY: plain getter.
        let my_uid = unsafe { libc::geteuid() };
        let allowed = cred.is_some_and(|c| c.uid == my_uid || c.uid == 0);
        let taken = chosen.as_ref().is_some_and(|p| self.nspaces.contains_key(&p.nspace) || self.peers.values().any(|x| x.proc == *p));
        let refusal = if !ok {
            Some((PMIX_ERR_NOT_SUPPORTED, "bad hello"))
        } else if !allowed {
            Some((PMIX_ERR_NO_PERMISSIONS, "different user"))
        } else if taken {
            Some((PMIX_ERR_BAD_PARAM, "the name it chose is in use"))
        } else {
            None
        };
        if let Some((st, why)) = refusal {
            crate::pmix_debug!(1, "refusing tool connection {conn}: {why}");
            reply(net, conn, req, st, &[]);
            net.drain_writes(Duration::from_millis(50));
            net.close(conn);
            return;
        }
        let cred = cred.unwrap();
        let mut info = vec![
            Info::new("pmix.euid", Value::u32(cred.uid)),
            Info::new("pmix.egid", Value::u32(cred.gid)),
            Info::new("pmix.version", Value::string(env!("CARGO_PKG_VERSION"))),
        ];
        if let Some(p) = &chosen {
            info.push(Info::new("pmix.tool.nspace", Value::string(&p.nspace)));
            info.push(Info::new("pmix.tool.rank", Value::rank(p.rank)));
        }
        let h = self.handle();
        let fallback = chosen.clone();
        let u = self.host.tool_connected(&info, Box::new(move |st, p| {
            h.run(move |s, net| s.tool_named(net, conn, req, cred, settled(st), p.or(fallback)));
        }));
        if let Upcall::Now(_) = u {
            // No host decision: the tool's own name, or one the server gives.
            self.tool_named(net, conn, req, cred, PMIX_SUCCESS, chosen);
        }
    }

    fn tool_named(&mut self, net: &mut Net, conn: ConnId, req: u32, cred: PeerCred, st: pmix_status_t, proc: Option<Proc>) {
        if st != PMIX_SUCCESS {
            reply(net, conn, req, st, &[]);
            net.drain_writes(Duration::from_millis(50));
            net.close(conn);
            return;
        }
        self.next_tool += 1;
        let proc = proc.unwrap_or_else(|| Proc::new(&format!("{}.tool.{}", self.me.nspace, self.next_tool), 0));
        let mut body = Encoder::default();
        owned::encode_str(&mut body, &self.me.nspace);
        body.u32(self.me.rank);
        owned::encode_str(&mut body, &proc.nspace);
        body.u32(proc.rank);
        self.peers.insert(conn, Peer { proc, cred, tool: true });
        reply(net, conn, req, PMIX_SUCCESS, body.bytes());
    }

    fn on_commit(&mut self, net: &mut Net, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let n = d.u32()? as usize;
        let mut items = Vec::new();
        for _ in 0..n.min(d.remaining()) {
            let scope = d.u32()? as u8;
            let mut one = decode_infos(d)?;
            if let Some(i) = one.pop() {
                items.push((scope, i));
            }
        }
        let ns = self.nspaces.get_mut(&who.nspace).ok_or(PMIX_ERR_NOT_FOUND)?;
        let c = ns.committed.entry(who.rank).or_default();
        for (scope, i) in items {
            c.retain(|(_, x)| x.key() != i.key());
            c.push((scope, i));
        }
        ns.has_committed.insert(who.rank);
        self.retry_parked(net, who);
        self.release_dmodex(net, who);
        Ok(())
    }

    fn on_get(&mut self, net: &mut Net, conn: ConnId, req: u32, d: &mut Decoder<'_>) -> Res {
        let target = Proc::decode(d)?;
        let key = decode_str(d)?;
        let info = decode_infos(d)?;
        let immediate = find(&info, PMIX_IMMEDIATE).is_some_and(|i| i.truthy());
        let timeout = find(&info, PMIX_TIMEOUT).and_then(|i| i.as_u32());
        let scope = find(&info, PMIX_DATA_SCOPE).map(|i| i.value_ref()).filter(|v| v.r#type == PMIX_SCOPE || v.r#type == PMIX_UINT8);
        // SAFETY: a one-byte scope value, per the type check.
        if let Some(scope) = scope.map(|v| unsafe { v.data.scope }) {
            // Only what the target committed in that scope.
            let data: Vec<Info> = self
                .nspaces
                .get(&target.nspace)
                .and_then(|ns| ns.committed.get(&target.rank))
                .map(|c| c.iter().filter(|(s, i)| *s == scope && i.key() == key).map(|(_, i)| i.clone()).collect())
                .unwrap_or_default();
            reply_infos(net, conn, req, if data.is_empty() { PMIX_ERR_NOT_FOUND } else { PMIX_SUCCESS }, &data);
            return Ok(());
        }
        // Data qualified by a group's context id (the members' PMIX_GROUP_INFO).
        if let Some(cid) = find(&info, PMIX_GROUP_CONTEXT_ID).and_then(|i| group::size_of_info(&i)) {
            let data = self.qualified_data(&target, cid, &key);
            reply_infos(net, conn, req, if data.is_empty() { PMIX_ERR_NOT_FOUND } else { PMIX_SUCCESS }, &data);
            return Ok(());
        }
        if self.answer_get(net, conn, req, &target, &key) {
            return Ok(());
        }
        // A local client of ours: wait for its commit (or its end).
        let client = self.nspaces.get(&target.nspace).and_then(|ns| ns.clients.get(&target.rank));
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
            self.parked.push(ParkedGet { conn, req, target, key, timer, dmodex: None });
            return Ok(());
        }
        // A proc this server does not serve: ask the host (direct modex).
        let remote = target.rank != PMIX_RANK_WILDCARD && !self.nspaces.get(&target.nspace).is_some_and(|ns| ns.is_local(target.rank));
        if remote && !immediate {
            let mut dinfo = info;
            if !key.is_empty() {
                dinfo.push(Info::new("pmix.req.key", Value::string(&key)));
            }
            let id = self.next_dmodex;
            self.next_dmodex += 1;
            let wait = timeout.filter(|t| *t > 0).map_or(REMOTE_GET_WAIT, |t| Duration::from_secs(t as u64));
            let timer = Some(net.timer(wait));
            self.parked.push(ParkedGet { conn, req, target: target.clone(), key, timer, dmodex: Some(id) });
            // The host may answer inside the upcall, later, or (wrongly) both:
            // the answer is queued to this thread and the first one wins.
            let h = self.handle();
            let t2 = target.clone();
            let u = self.host.direct_modex(&target, &dinfo, Box::new(move |st, data| {
                h.run(move |s, net| s.dmodex_done(net, id, &t2, st, &data));
            }));
            if let Upcall::Now(st) = u {
                let st = if st == PMIX_SUCCESS || st == PMIX_ERR_NOT_SUPPORTED || st == PMIX_OPERATION_SUCCEEDED { PMIX_ERR_NOT_FOUND } else { st };
                if let Some(p) = self.take_parked(net, |p| p.dmodex == Some(id)) {
                    reply(net, p.conn, p.req, st, &[]);
                }
            }
            return Ok(());
        }
        reply(net, conn, req, PMIX_ERR_NOT_FOUND, &[]);
        Ok(())
    }

    /// The host's direct-modex answer: a blob from the owning server's
    /// PMIx_server_dmodex_request. Store it, then answer the Get.
    fn dmodex_done(&mut self, net: &mut Net, id: u64, target: &Proc, st: pmix_status_t, data: &[u8]) {
        if st == PMIX_SUCCESS {
            match parse_blob(data) {
                Ok(records) => {
                    for (p, infos) in records {
                        let ns = self.nspaces.entry(p.nspace.clone()).or_insert_with(|| Nspace::new(&p.nspace));
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
        // Already answered (timeout, or a second completion from the host).
        let Some(p) = self.take_parked(net, |p| p.dmodex == Some(id)) else {
            crate::pmix_debug!(5, "direct modex for {target}: late or repeated answer ignored");
            return;
        };
        if !self.answer_get(net, p.conn, p.req, target, &p.key) {
            reply(net, p.conn, p.req, if st == PMIX_SUCCESS { PMIX_ERR_NOT_FOUND } else { settled(st) }, &[]);
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

    /// Answer a Get if the data is here: all data of the target rank (the client caches it).
    fn answer_get(&self, net: &mut Net, conn: ConnId, req: u32, target: &Proc, key: &str) -> bool {
        let Some(ns) = self.nspaces.get(&target.nspace) else { return false };
        let data = if target.rank == PMIX_RANK_WILDCARD { ns.job.clone() } else { ns.data_for(target.rank, true) };
        let found = key.is_empty() || data.iter().any(|i| i.key() == key) || ns.job.iter().any(|i| i.key() == key);
        if !found {
            return false;
        }
        let mut e = Encoder::default();
        if encode_infos(&mut e, &data).is_err() {
            reply(net, conn, req, PMIX_ERR_BAD_PARAM, &[]);
            return true;
        }
        reply(net, conn, req, PMIX_SUCCESS, e.bytes());
        true
    }

    /// After a commit of `target`: answer the parked Gets it now satisfies;
    /// the others keep waiting (a later commit may bring their key).
    fn retry_parked(&mut self, net: &mut Net, target: &Proc) {
        let mut i = 0;
        while i < self.parked.len() {
            let p = &self.parked[i];
            if p.dmodex.is_none() && p.target == *target && self.answer_get(net, p.conn, p.req, &p.target, &p.key) {
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
    /// with what is there, else NOT_FOUND.
    fn release_parked(&mut self, net: &mut Net, target: &Proc) {
        self.release_dmodex(net, target);
        let (now, keep): (Vec<ParkedGet>, Vec<ParkedGet>) =
            std::mem::take(&mut self.parked).into_iter().partition(|p| p.dmodex.is_none() && p.target == *target);
        self.parked = keep;
        for p in now {
            if let Some(t) = p.timer {
                net.cancel_timer(t);
            }
            if !self.answer_get(net, p.conn, p.req, &p.target, &p.key) {
                reply(net, p.conn, p.req, PMIX_ERR_NOT_FOUND, &[]);
            }
        }
    }

    fn on_barrier(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let mut procs = decode_procs(d)?;
        let collect = d.u32()? != 0;
        let timeout = d.u32()?;
        let info = decode_infos(d)?;
        if procs.is_empty() {
            procs.push(Proc::wildcard(&who.nspace));
        }
        let procs = self.expand_groups(procs);
        let members = nspace::expand(&procs, &self.nspaces);
        if !members.contains(who) {
            reply(net, conn, req, PMIX_ERR_BAD_PARAM, &[]);
            return Ok(());
        }
        // A participant that already ended (lost, finalized, deregistered) can never arrive.
        let gone = members.iter().any(|p| {
            self.nspaces.get(&p.nspace).and_then(|ns| ns.clients.get(&p.rank)).is_some_and(|r| r.terminated)
        });
        if gone {
            reply(net, conn, req, PMIX_ERR_LOST_CONNECTION, &[]);
            return Ok(());
        }
        let idx = match self.barriers.iter().position(|b| b.kind == tag && b.members == members && !b.at_host) {
            Some(i) => i,
            None => {
                let local_needed: BTreeSet<Proc> = members
                    .iter()
                    .filter(|p| self.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank)))
                    .cloned()
                    .collect();
                let id = self.next_barrier;
                self.next_barrier += 1;
                self.barriers.push(Barrier {
                    kind: tag,
                    procs,
                    members,
                    collect,
                    info,
                    local_needed,
                    arrived: Vec::new(),
                    timer: None,
                    at_host: false,
                    id,
                });
                self.barriers.len() - 1
            }
        };
        let b = &mut self.barriers[idx];
        b.collect |= collect;
        if timeout > 0 && b.timer.is_none() {
            b.timer = Some(net.timer(Duration::from_secs(timeout as u64)));
        }
        b.arrived.push((conn, req, who.clone()));
        let arrived: BTreeSet<Proc> = b.arrived.iter().map(|(_, _, p)| p.clone()).collect();
        if b.local_needed.is_subset(&arrived) {
            self.local_part_done(net, idx);
        }
        Ok(())
    }

    /// Every local participant arrived: finish here, or ask the host when others take part.
    fn local_part_done(&mut self, net: &mut Net, idx: usize) {
        let all_local = self.barriers[idx].members.iter().all(|p| self.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank)));
        if all_local {
            let b = self.barriers.remove(idx);
            self.finish_barrier(net, b, PMIX_SUCCESS);
            return;
        }
        let h = self.handle();
        let b = &mut self.barriers[idx];
        b.at_host = true;
        let (procs, mut info, kind, id, local) = (b.procs.clone(), b.info.clone(), b.kind, b.id, b.local_needed.clone());
        let u = if kind == wire::FENCE {
            // Only a collecting fence carries data, and only what the local
            // participants committed for other nodes (as OpenPMIx): without
            // it, peers fetch what they need on demand (direct modex).
            let mut blob = Encoder::default();
            let collect = self.barriers[idx].collect;
            if collect {
                for p in local {
                    let data = self.nspaces.get(&p.nspace).map(|ns| ns.committed_for(p.rank, false)).unwrap_or_default();
                    if !data.is_empty() && blob_record(&mut blob, &p, &data).is_err() {
                        continue;
                    }
                }
            }
            // The host hears whether to collect, once, either way (as from OpenPMIx).
            info.retain(|i| !i.is(PMIX_COLLECT_DATA));
            info.push(Info::new("pmix.collect", Value::boolean(collect)));
            self.host.fence_nb(
                &procs,
                &info,
                blob.into_bytes(),
                Box::new(move |st, data| {
                    h.run(move |s, net| s.host_barrier_done(net, id, st, &data));
                }),
            )
        } else if kind == wire::CONNECT {
            self.host.connect(&procs, &info, Box::new(move |st| {
                h.run(move |s, net| s.host_barrier_done(net, id, st, &[]));
            }))
        } else {
            self.host.disconnect(&procs, &info, Box::new(move |st| {
                h.run(move |s, net| s.host_barrier_done(net, id, st, &[]));
            }))
        };
        if let Upcall::Now(st) = u {
            self.host_barrier_done(net, id, settled(st), &[]);
        }
    }

    fn host_barrier_done(&mut self, net: &mut Net, id: u64, st: pmix_status_t, data: &[u8]) {
        let Some(idx) = self.barriers.iter().position(|b| b.id == id) else { return };
        let b = self.barriers.remove(idx);
        if st == PMIX_SUCCESS {
            // Ingest the other servers' data (records of procs not local here).
            let mut d = Decoder::new(data);
            while d.remaining() > 0 {
                match read_blob_record(&mut d) {
                    Ok((p, infos)) => {
                        let ns = self.nspaces.entry(p.nspace.clone()).or_insert_with(|| Nspace::new(&p.nspace));
                        if !ns.is_local(p.rank) {
                            let c = ns.committed.entry(p.rank).or_default();
                            for i in infos {
                                c.retain(|(_, x)| x.key() != i.key());
                                c.push((PMIX_GLOBAL, i));
                            }
                            ns.has_committed.insert(p.rank);
                        }
                    }
                    Err(_) => {
                        crate::pmix_debug!(1, "fence: host returned data that does not decode; ignoring the rest");
                        break;
                    }
                }
            }
        }
        self.finish_barrier(net, b, settled(st));
    }

    fn finish_barrier(&mut self, net: &mut Net, b: Barrier, st: pmix_status_t) {
        if let Some(t) = b.timer {
            net.cancel_timer(t);
        }
        let mut body = Encoder::default();
        if st == PMIX_SUCCESS && (b.collect || b.kind == wire::CONNECT) {
            // Data of every participant, plus job data of their namespaces for connect.
            let mut records: Vec<(Proc, Vec<Info>)> = Vec::new();
            for p in &b.members {
                if let Some(ns) = self.nspaces.get(&p.nspace) {
                    records.push((p.clone(), ns.data_for(p.rank, true)));
                }
            }
            if b.kind == wire::CONNECT {
                let names: BTreeSet<&String> = b.members.iter().map(|p| &p.nspace).collect();
                for n in names {
                    if let Some(ns) = self.nspaces.get(n) {
                        records.push((Proc::wildcard(n), ns.job.clone()));
                    }
                }
            }
            body.u32(records.len() as u32);
            for (p, infos) in &records {
                p.encode(&mut body);
                let _ = encode_infos(&mut body, infos);
            }
        } else {
            body.u32(0);
        }
        for (conn, req, _) in &b.arrived {
            reply(net, *conn, *req, st, body.bytes());
        }
    }

    fn fail_barriers_of(&mut self, net: &mut Net, proc: &Proc, st: pmix_status_t) {
        let (hit, keep): (Vec<Barrier>, Vec<Barrier>) =
            std::mem::take(&mut self.barriers).into_iter().partition(|b| b.members.contains(proc));
        self.barriers = keep;
        for b in hit {
            let arrived: Vec<(ConnId, u32, Proc)> = b.arrived.iter().filter(|(_, _, p)| p != proc).cloned().collect();
            let b = Barrier { arrived, ..b };
            self.finish_barrier(net, b, st);
        }
    }

    fn dispatch(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, body: &[u8]) -> Res {
        let mut d = Decoder::new(body);
        let who = match self.peers.get(&conn) {
            Some(p) => p.proc.clone(),
            None => {
                if tag == wire::HELLO {
                    self.on_hello(net, conn, req, &mut d);
                } else if tag == wire::TOOL_HELLO {
                    self.on_tool_hello(net, conn, req, &mut d);
                } else {
                    crate::pmix_debug!(1, "connection {conn}: request before hello; dropping it");
                    net.close(conn);
                }
                return Ok(());
            }
        };
        let obj = self.nspaces.get(&who.nspace).and_then(|n| n.clients.get(&who.rank)).map(|r| r.server_object).unwrap_or(0);
        let is_tool = self.peers.get(&conn).is_some_and(|p| p.tool);
        if is_tool && matches!(tag, wire::COMMIT | wire::FENCE | wire::CONNECT | wire::DISCONNECT) {
            reply(net, conn, req, PMIX_ERR_NOT_SUPPORTED, &[]);
            return Ok(());
        }
        if is_tool && tag == wire::FINALIZE {
            reply(net, conn, req, PMIX_SUCCESS, &[]);
            return Ok(());
        }
        match tag {
            wire::COMMIT => self.on_commit(net, &who, &mut d)?,
            wire::FENCE | wire::CONNECT | wire::DISCONNECT => self.on_barrier(net, conn, req, tag, &who, &mut d)?,
            wire::GET => self.on_get(net, conn, req, &mut d)?,
            wire::FINALIZE => {
                if let Some(r) = self.nspaces.get_mut(&who.nspace).and_then(|n| n.clients.get_mut(&who.rank)) {
                    r.finalized = true;
                }
                // Its cleanup is done before its finalize is acknowledged.
                self.terminated(net, &who);
                let done = self.done_reply(conn, req);
                let u = self.host.client_finalized(&who, obj, done);
                self.upcall_reply(net, conn, req, u);
            }
            wire::ABORT => {
                let status = d.u32()? as i32;
                let msg = decode_str(&mut d)?;
                let procs = decode_procs(&mut d)?;
                let done = self.done_reply(conn, req);
                let u = self.host.abort(&who, obj, status, &msg, &procs, done);
                self.upcall_reply(net, conn, req, u);
            }
            wire::PUBLISH => {
                let mut info = decode_infos(&mut d)?;
                self.add_uid(conn, &mut info);
                let done = self.done_reply(conn, req);
                let u = self.host.publish(&who, &info, done);
                self.upcall_reply(net, conn, req, u);
            }
            wire::LOOKUP | wire::UNPUBLISH => {
                let n = d.u32()? as usize;
                let keys: Vec<String> = (0..n.min(d.remaining())).map(|_| decode_str(&mut d)).collect::<Res<_>>()?;
                let mut info = decode_infos(&mut d)?;
                self.add_uid(conn, &mut info);
                let h = self.handle();
                let u = if tag == wire::LOOKUP {
                    self.host.lookup(&who, &keys, &info, Box::new(move |st, pdata| {
                        h.run(move |_, net| {
                            let mut e = Encoder::default();
                            e.u32(pdata.len() as u32);
                            for (p, i) in &pdata {
                                p.encode(&mut e);
                                let _ = encode_infos(&mut e, std::slice::from_ref(i));
                            }
                            reply(net, conn, req, settled(st), e.bytes());
                        });
                    }))
                } else {
                    self.host.unpublish(&who, &keys, &info, self.done_reply(conn, req))
                };
                if let Upcall::Now(st) = u {
                    let mut e = Encoder::default();
                    e.u32(0);
                    reply(net, conn, req, settled(st), e.bytes());
                }
            }
            wire::NOTIFY => {
                let status = d.u32()? as i32;
                let source = Proc::decode(&mut d)?;
                let range = d.u32()? as u8;
                let info = decode_infos(&mut d)?;
                let complete = status == PMIX_JCTRL_CHECKPOINT_COMPLETE;
                if complete {
                    // Counted for the sender the kernel vouches for, not the source it names.
                    let id = find(&info, PMIX_JOB_CTRL_CHECKPOINT).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
                    let which = id.as_deref().map_or(jobctl::Which::All, jobctl::Which::Id);
                    self.checkpoint_progress(net, &who, which, PMIX_SUCCESS);
                    // The RM wants to hear it whatever the range (a preemption may wait for it).
                    let _ = self.host.notify_event(status, &who, PMIX_RANGE_RM, &info, Box::new(|_| {}));
                }
                self.deliver_event(net, status, &source, range, &info);
                if !complete && matches!(range, PMIX_RANGE_GLOBAL | PMIX_RANGE_SESSION | PMIX_RANGE_RM) {
                    let _ = self.host.notify_event(status, &source, range, &info, Box::new(|_| {}));
                }
                reply(net, conn, req, PMIX_SUCCESS, &[]);
            }
            wire::LOG => {
                let data = decode_infos(&mut d)?;
                let mut dirs = decode_infos(&mut d)?;
                if find(&dirs, PMIX_LOG_SOURCE).is_none() {
                    dirs.push(Info::new("pmix.log.source", Value::proc(&who)));
                }
                let done = self.done_reply(conn, req);
                match self.host.log(&who, &data, &dirs, done) {
                    // No log upcall: the standard channels are written here.
                    Upcall::Now(PMIX_ERR_NOT_SUPPORTED) => reply(net, conn, req, log::write_locally(&who, &data, &dirs), &[]),
                    u => self.upcall_reply(net, conn, req, u),
                }
            }
            wire::SPAWN => {
                let info = decode_infos(&mut d)?;
                let n = d.u32()? as usize;
                if n > d.remaining() {
                    return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
                }
                let apps = elem_array(&mut d, Kind::App, n)?;
                let h = self.handle();
                let u = self.host.spawn(&who, &info, &apps, Box::new(move |st, ns| {
                    h.run(move |_, net| {
                        let mut e = Encoder::default();
                        owned::encode_str(&mut e, &ns);
                        reply(net, conn, req, settled(st), e.bytes());
                    });
                }));
                if let Upcall::Now(st) = u {
                    let mut e = Encoder::default();
                    owned::encode_str(&mut e, "");
                    reply(net, conn, req, settled(st), e.bytes());
                }
            }
            wire::QUERY => {
                let n = d.u32()? as usize;
                if n > d.remaining() {
                    return Err(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
                }
                let queries = elem_array(&mut d, Kind::Query, n)?;
                self.on_query(net, conn, req, &who, queries);
            }
            wire::JOB_CONTROL => self.on_job_control(net, conn, req, &who, &mut d)?,
            wire::MONITOR => self.on_monitor(net, conn, req, &who, &mut d)?,
            wire::IOF_PULL => self.on_iof_pull(net, conn, req, &who, &mut d)?,
            wire::IOF_DEREG => {
                let id = d.u32()?;
                let st = if self.iof.remove_pull(conn, id) { PMIX_SUCCESS } else { PMIX_ERR_NOT_FOUND };
                reply(net, conn, req, st, &[]);
            }
            wire::GROUP_CONSTRUCT | wire::GROUP_DESTRUCT | wire::GROUP_LEAVE | wire::GROUP_INVITE | wire::GROUP_JOIN => self.on_group(net, conn, req, tag, &who, &mut d)?,
            wire::IOF_PUSH => {
                let targets = decode_procs(&mut d)?;
                let has = d.u32()? != 0;
                let data = d.blob()?.to_vec();
                let directives = decode_infos(&mut d)?;
                let done = self.done_reply(conn, req);
                let u = self.host.push_stdin(&who, &targets, &directives, has.then_some(&data[..]), done);
                self.upcall_reply(net, conn, req, u);
            }
            wire::HEARTBEAT => {
                for m in self.monitors.iter_mut().filter(|m| m.target == who) {
                    m.beats += 1;
                }
            }
            wire::GET_CRED => {
                let info = decode_infos(&mut d)?;
                let h = self.handle();
                let u = self.host.get_credential(&who, &info, Box::new(move |st, cred, infos| {
                    h.run(move |_, net| {
                        let mut e = Encoder::default();
                        e.blob(&cred);
                        let _ = encode_infos(&mut e, &infos);
                        reply(net, conn, req, settled(st), e.bytes());
                    });
                }));
                if let Upcall::Now(st) = u {
                    reply(net, conn, req, settled(st), &[]);
                }
            }
            wire::VALIDATE_CRED => {
                let cred = d.blob()?.to_vec();
                let info = decode_infos(&mut d)?;
                let u = self.host.validate_credential(&who, &cred, &info, self.done_reply_infos(conn, req));
                if let Upcall::Now(st) = u {
                    reply(net, conn, req, settled(st), &[]);
                }
            }
            wire::REGISTER_EVENTS | wire::DEREGISTER_EVENTS => {
                let n = d.u32()? as usize;
                let codes: Vec<pmix_status_t> = (0..n.min(d.remaining())).map(|_| d.u32().map(|c| c as i32)).collect::<Res<_>>()?;
                let u = if tag == wire::REGISTER_EVENTS {
                    let info = decode_infos(&mut d)?;
                    self.host.register_events(&codes, &info, Box::new(|_| {}))
                } else {
                    self.host.deregister_events(&codes, Box::new(|_| {}))
                };
                // The host's answer does not change the client's local registration.
                let _ = u;
            }
            wire::ALLOCATE => {
                let directive = d.u32()? as u8;
                let data = decode_infos(&mut d)?;
                let u = self.host.allocate(&who, directive, &data, self.done_reply_infos(conn, req));
                if let Upcall::Now(st) = u {
                    reply(net, conn, req, settled(st), &[]);
                }
            }
            _ => {
                crate::pmix_debug!(5, "{who}: request tag {tag} not supported");
                reply(net, conn, req, PMIX_ERR_NOT_SUPPORTED, &[]);
            }
        }
        Ok(())
    }

    fn add_uid(&self, conn: ConnId, info: &mut Vec<Info>) {
        if let Some(p) = self.peers.get(&conn) {
            info.retain(|i| !i.is(PMIX_USERID) && !i.is(PMIX_GRPID));
            info.push(Info::new("pmix.euid", Value::u32(p.cred.uid)));
            info.push(Info::new("pmix.egid", Value::u32(p.cred.gid)));
        }
    }

    /// Queries the library can answer itself; the rest go to the host.
    fn on_query(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, queries: CArray) {
        let mut answers = Vec::new();
        // Answers of ours used only when the host has none.
        let mut fallback = Vec::new();
        let mut all_local = true;
        for q in queries.queries() {
            // SAFETY: keys is NULL or a NULL-terminated argv (decoded by us).
            let n = unsafe { crate::cmem::argv_len(q.keys) };
            for k in 0..n {
                // SAFETY: index within argv.
                let key = unsafe { crate::cmem::cstr_bytes(*q.keys.add(k)) }.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
                // SAFETY: qualifiers decoded by us.
                let quals = unsafe { Info::copy_array(q.qualifiers, q.nqual) }.unwrap_or_default();
                let qns = find(&quals, PMIX_NSPACE).and_then(|i| i.as_str()).unwrap_or_else(|| who.nspace.clone());
                match key.as_str() {
                    "pmix.qry.pgrpnum" | "pmix.qry.pgrp" | "pmix.qry.pgrpmems" => match self.group_query(&key, &quals) {
                        Some(i) => answers.push(i),
                        None => all_local = false,
                    },
                    // The host knows namespaces beyond this server: asked
                    // first (as OpenPMIx does); ours answer if it cannot.
                    "pmix.qry.ns" => {
                        let mut names: Vec<&String> = self.nspaces.iter().filter(|(_, n)| n.registered).map(|(k, _)| k).collect();
                        names.sort();
                        let s: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                        fallback.push(Info::new("pmix.qry.ns", Value::string(&s.join(","))));
                    }
                    "pmix.jctrl.preempt" | "pmix.jctrl.ckmethod" => {
                        let p = find(&quals, PMIX_PROCID).map(|i| procs_of_value(i.value_ref())).and_then(|v| v.into_iter().next()).unwrap_or_else(|| who.clone());
                        let r = jobctl::lookup(&p).unwrap_or_default();
                        if key == "pmix.jctrl.preempt" {
                            answers.push(Info::new("pmix.jctrl.preempt", Value::boolean(r.preemptible.unwrap_or(false))));
                        } else {
                            let mut m = Vec::new();
                            if let Some(s) = r.signal() {
                                m.push(Info::new("pmix.jctrl.ckptsig", Value::u32(s as u32)));
                            }
                            if r.event().is_some() {
                                m.push(Info::new("pmix.jctrl.ckptev", Value::boolean(true)));
                            }
                            answers.push(Info::new("pmix.jctrl.ckmethod", Value::string(&m.iter().map(|i| i.key().to_string()).collect::<Vec<_>>().join(","))));
                        }
                    }
                    "pmix.job.size" | "pmix.local.size" | "pmix.num.nodes" | "pmix.univ.size" | "pmix.max.size" => {
                        match self.nspaces.get(&qns).and_then(|n| n.job.iter().find(|i| i.key() == key)) {
                            Some(i) => answers.push(i.clone()),
                            None => all_local = false,
                        }
                    }
                    _ => all_local = false,
                }
            }
        }
        if all_local && fallback.is_empty() && !answers.is_empty() {
            reply_infos(net, conn, req, PMIX_SUCCESS, &answers);
            return;
        }
        // A host that answers queries answers all of them (as with
        // OpenPMIx); ours stand only when it has no query upcall.
        let u = self.host.query(who, &queries, self.done_reply_infos(conn, req));
        if let Upcall::Now(st) = u {
            answers.extend(fallback);
            let st = match st {
                PMIX_ERR_NOT_SUPPORTED if all_local => PMIX_SUCCESS,
                PMIX_ERR_NOT_SUPPORTED if !answers.is_empty() => PMIX_QUERY_PARTIAL_SUCCESS,
                st => settled(st),
            };
            reply_infos(net, conn, req, st, &answers);
        }
    }
}

/// Where forwarded output comes from, for PMIX_IOF_TAG_DETAILED_OUTPUT.
struct Origin<'a> {
    host: &'a str,
    /// 0 when unknown.
    pid: u32,
}

fn send_iof(net: &mut Net, conn: ConnId, handle: u32, source: &Proc, origin: &Origin<'_>, channel: pmix_iof_channel_t, data: &[u8], complete: bool) {
    let mut e = Encoder::default();
    e.u32(handle);
    source.encode(&mut e);
    e.u32(channel as u32);
    e.blob(data);
    e.u32(complete as u32);
    owned::encode_str(&mut e, origin.host);
    e.u32(origin.pid);
    net.send(conn, 0, wire::IOF, e.bytes());
}

/// `n` elements of `kind` decoded into an owned C array.
fn elem_array(d: &mut Decoder<'_>, kind: Kind, n: usize) -> Res<CArray> {
    if n == 0 {
        return Ok(CArray::empty(kind));
    }
    let p = crate::data::elem::alloc_array(kind, n)?;
    for i in 0..n {
        // SAFETY: p has n zeroed elements.
        if let Err(e) = unsafe { d.elem(kind, p.add(i * kind.size()), 0) } {
            // SAFETY: elements before i are valid, the rest zeroed.
            unsafe { crate::data::elem::free_array(kind, p, n) };
            return Err(e);
        }
    }
    Ok(CArray { kind, ptr: p, len: n })
}

/// Procs in a value holding a proc or a data array of procs.
fn procs_of_value(v: &pmix_value_t) -> Vec<Proc> {
    // SAFETY: union fields read per the type tag.
    unsafe {
        match v.r#type {
            PMIX_PROC if !v.data.proc.is_null() => vec![Proc::from_c(&*v.data.proc)],
            PMIX_DATA_ARRAY if !v.data.darray.is_null() && (*v.data.darray).r#type == PMIX_PROC => {
                owned::procs_of((*v.data.darray).array as *const pmix_proc_t, (*v.data.darray).size)
            }
            _ => Vec::new(),
        }
    }
}

/// One self-delimiting record of a fence/dmodex blob: `u32 len` + proc + infos.
/// Blobs of several servers concatenated stay a valid sequence of records.
fn blob_record(e: &mut Encoder, p: &Proc, infos: &[Info]) -> Res {
    let mut inner = Encoder::default();
    p.encode(&mut inner);
    encode_infos(&mut inner, infos)?;
    e.u32(inner.bytes().len() as u32);
    e.raw(inner.bytes());
    Ok(())
}

fn read_blob_record(d: &mut Decoder<'_>) -> Res<(Proc, Vec<Info>)> {
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

impl Role for ServerRole {
    fn on_frame(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, body: &[u8]) {
        if let Err(e) = self.dispatch(net, conn, req, tag, body) {
            crate::pmix_debug!(1, "connection {conn}: request tag {tag} does not decode ({e}); answering with an error");
            reply(net, conn, req, e, &[]);
        }
    }

    fn on_close(&mut self, net: &mut Net, conn: ConnId) {
        self.iof.drop_conn(conn);
        self.drop_checkpoints_of(net, conn);
        let Some(peer) = self.peers.remove(&conn) else { return };
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
            // The host's own handlers hear it (OpenPMIx raises it to them too).
            self.notify_own_handlers(PMIX_ERR_LOST_CONNECTION, &peer.proc, &[Info::new("pmix.evproc", Value::proc(&peer.proc))]);
        }
        if peer.tool {
            // A tool is no registered client: its groups and invitations end here.
            self.group_member_ended(net, &peer.proc);
        }
        self.fail_barriers_of(net, &peer.proc, PMIX_ERR_LOST_CONNECTION);
        self.release_parked(net, &peer.proc);
        self.parked.retain(|p| p.conn != conn);
    }

    fn on_timer(&mut self, net: &mut Net, timer: u64) {
        if self.checkpoint_timer(net, timer) || self.group_timer(net, timer) {
            return;
        }
        if let Some(i) = self.monitors.iter().position(|m| m.timer == timer) {
            let alert = self.monitors[i].check();
            self.monitors[i].timer = net.timer(self.monitors[i].period);
            if alert {
                let m = self.monitors[i].clone();
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
        if let Some(i) = self.barriers.iter().position(|b| b.timer == Some(timer)) {
            let mut b = self.barriers.remove(i);
            b.timer = None;
            self.finish_barrier(net, b, PMIX_ERR_TIMEOUT);
        }
        if let Some(i) = self.parked.iter().position(|p| p.timer == Some(timer)) {
            let p = self.parked.remove(i);
            reply(net, p.conn, p.req, PMIX_ERR_TIMEOUT, &[]);
        }
        if let Some(i) = self.parked_dmodex.iter().position(|p| p.timer == timer) {
            (self.parked_dmodex.remove(i).done)(PMIX_ERR_TIMEOUT, Vec::new());
        }
    }

    fn on_stop(&mut self, net: &mut Net) {
        // Server finalize: every registered cleanup runs now at the latest.
        for (_, mut e) in std::mem::take(&mut self.proc_epilogs) {
            e.execute();
        }
        for ns in self.nspaces.values_mut() {
            if let Some(mut e) = ns.epilog.take() {
                e.execute();
            }
        }
        for b in std::mem::take(&mut self.barriers) {
            self.finish_barrier(net, b, PMIX_ERR_LOST_CONNECTION);
        }
        for p in std::mem::take(&mut self.parked) {
            reply(net, p.conn, p.req, PMIX_ERR_LOST_CONNECTION, &[]);
        }
        for p in std::mem::take(&mut self.parked_dmodex) {
            (p.done)(PMIX_ERR_LOST_CONNECTION, Vec::new());
        }
    }
}

/// The running server of this process (at most one).
pub struct ServerGlobal {
    pub handle: Handle<ServerRole>,
    pub engine: runtime::Engine<ServerRole>,
    pub session: session::SessionDir,
    pub me: Proc,
    /// Rendezvous files for tools (PMIX_SERVER_TOOL/SESSION/SYSTEM_SUPPORT).
    pub rendezvous: Vec<session::Rendezvous>,
}

pub static SERVER: Mutex<Option<ServerGlobal>> = Mutex::new(None);

/// The process that initialised the server (0: none). A fork child of it
/// has the server's memory but not its progress thread.
static SERVER_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The running server's handle (None when not initialised, and in a fork
/// child of the server's process: there a request would wait for a progress
/// thread that does not exist, and the lock may be held by a thread that is
/// gone; every server call answers PMIX_ERR_INIT instead, except setup_fork,
/// which needs neither).
pub fn handle() -> Option<Handle<ServerRole>> {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return None;
    }
    SERVER.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|g| g.handle.clone())
}

/// The running server's own name (its process in the server role).
pub fn own_proc() -> Option<Proc> {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return None;
    }
    SERVER.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|g| g.me.clone())
}

/// PMIX_SERVER_SYS_CONTROLLER: not in the 4.2.2 header (later PMIx versions
/// define it), accepted here by its string.
const SERVER_SYS_CONTROLLER: &core::ffi::CStr = c"pmix.srv.ctrlr";

/// Start the server: session directory, listening socket, progress thread.
pub fn init(host: Box<dyn Host>, info: &[Info]) -> Res<Proc> {
    let mut g = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    if g.is_some() {
        return Err(PMIX_ERR_INIT);
    }
    let hostname = session::hostname();
    let tmpdir = session::server_tmpdir(info);
    let system_tmpdir = session::system_tmpdir(info);
    let pid = std::process::id();
    let me = Proc::new(
        &find(info, PMIX_SERVER_NSPACE).and_then(|i| i.as_str()).unwrap_or_else(|| format!("rpmix.{hostname}.{pid}")),
        find(info, PMIX_SERVER_RANK).and_then(|i| i.as_u32()).unwrap_or(0),
    );
    let backends = setup::select(std::env::var("PMIX_MCA_pnet").ok().as_deref())?;
    let flag = |k| find(info, k).is_some_and(|i| i.truthy());
    // At most one system server, scheduler and system controller per node:
    // their rendezvous files have fixed names tools look for.
    let sysdir = std::path::PathBuf::from(&system_tmpdir);
    let exclusive: Vec<std::path::PathBuf> = [
        (flag(PMIX_SERVER_SYSTEM_SUPPORT), format!("pmix.sys.{hostname}")),
        (flag(PMIX_SERVER_SCHEDULER), format!("pmix.sched.{hostname}")),
        (flag(SERVER_SYS_CONTROLLER), format!("pmix.sysctrlr.{hostname}")),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| sysdir.join(name))
    .collect();
    if let Some(taken) = exclusive.iter().find(|f| session::occupied(f)) {
        crate::pmix_debug!(1, "PMIx_server_init: {} exists and names a running server: only one per node", taken.display());
        return Err(PMIX_ERR_EXISTS);
    }
    let mut session = session::SessionDir::create(&tmpdir, &format!("rpmix.{hostname}.{pid}"))?;
    session.rm_clean = flag(PMIX_TDIR_RMCLEAN);
    let sock_path = session.path.join("server.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock_path).map_err(|e| {
        crate::pmix_debug!(1, "PMIx_server_init: cannot listen on {}: {e}", sock_path.display());
        PMIX_ERR_INIT
    })?;
    listener.set_nonblocking(true).map_err(|_| PMIX_ERR_INIT)?;
    let listener = mio::net::UnixListener::from_std(listener);
    let mut role = ServerRole::new(host, me.clone(), hostname.clone());
    role.enable_monitoring = find(info, PMIX_SERVER_ENABLE_MONITORING).is_some_and(|i| i.truthy());
    if let Some(n) = find(info, PMIX_IOF_CACHE_SIZE).and_then(|i| i.as_u32()) {
        role.iof.cache_size = n as usize;
    }
    role.iof.drop_newest = find(info, PMIX_IOF_DROP_NEWEST).is_some_and(|i| i.truthy());
    role.session_dir = Some(session.clone());
    let engine = runtime::start(role, Some(listener), Vec::new(), "pmix-server").map_err(|_| PMIX_ERR_INIT)?;
    let handle = engine.handle.clone();
    let h2 = handle.clone();
    handle.run(move |s, _| s.set_handle(h2));
    let contact = wire::contact(&me.nspace, me.rank, &sock_path.to_string_lossy());
    setup::start(backends, fork_vars(&contact, &tmpdir, &system_tmpdir, &hostname));
    let mut rendezvous = Vec::new();
    let mut files = exclusive;
    if flag(PMIX_SERVER_TOOL_SUPPORT) {
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool.{pid}")));
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool.{}", me.nspace)));
    }
    if flag(PMIX_SERVER_SESSION_SUPPORT) {
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool")));
    }
    // Where the tool that started this launcher waits for its contact.
    if let Some(f) = find(info, PMIX_LAUNCHER_RENDEZVOUS_FILE).and_then(|i| i.as_str()).or_else(|| std::env::var("PMIX_LAUNCHER_RENDEZVOUS_FILE").ok()) {
        files.push(std::path::PathBuf::from(f));
    }
    for f in files {
        rendezvous.extend(session::Rendezvous::write(f, &contact));
    }
    *g = Some(ServerGlobal { handle, engine, session, me: me.clone(), rendezvous });
    SERVER_PID.store(std::process::id(), std::sync::atomic::Ordering::Relaxed);
    Ok(me)
}

/// Stop the server, also with clients and namespaces still registered.
pub fn finalize() -> Res {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return Err(PMIX_ERR_INIT); // not the server's process (a fork child of it)
    }
    SERVER_PID.store(0, std::sync::atomic::Ordering::Relaxed);
    let taken = SERVER.lock().unwrap_or_else(|e| e.into_inner()).take();
    let Some(mut g) = taken else { return Err(PMIX_ERR_INIT) };
    g.handle.run(|_, net| net.stop());
    if let Some(t) = g.engine.thread.take() {
        let _ = t.join();
    }
    g.session.remove();
    setup::stop();
    Ok(())
}

/// The variables every child of this server gets, whatever its rank.
fn fork_vars(contact: &str, tmpdir: &str, system_tmpdir: &str, hostname: &str) -> Vec<(String, String)> {
    let mut env = Vec::new();
    for v in wire::URI_VARS {
        env.push((v.to_string(), contact.to_string()));
    }
    env.push(("PMIX_VERSION".into(), env!("CARGO_PKG_VERSION").into()));
    env.push(("PMIX_SERVER_TMPDIR".into(), tmpdir.to_string()));
    env.push(("PMIX_SYSTEM_TMPDIR".into(), system_tmpdir.to_string()));
    env.push(("PMIX_HOSTNAME".into(), hostname.to_string()));
    env.push(("PMIX_SECURITY_MODE".into(), "native".into()));
    env
}
