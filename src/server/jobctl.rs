//! Job control the server does itself (RFC0015): what processes register
//! about themselves (preemptibility, checkpoint methods), and checkpoint
//! requests, which the server carries out by each target's first registered
//! method it can use (the RFC: "the server will use the first registered
//! method that it supports"): an event it delivers itself, or a signal it
//! asks the host to send (PMIX_JOB_CTRL_SIGNAL through the job_control
//! upcall, so C hosts need nothing checkpoint-specific). A checkpoint request
//! completes when every target has reported PMIX_JCTRL_CHECKPOINT_COMPLETE,
//! and otherwise with an error on its timeout, on cancel, or when a target
//! ends first.

use std::collections::HashMap;
use parking_lot::Mutex;
use std::time::Duration;

use crate::abi::*;
use crate::status::Res;
use crate::owned::{find, infos_of_array, Info, Proc, Value};
use crate::runtime::{ConnId, Handle, Net, PeerCred};
use crate::server::host::{Host, Upcall};
use crate::server::nspace::Nspace;
use crate::msg::Reply;
use crate::server::{done_reply_infos, ServerRole, Sink};

use super::{cleanup, reply, settled};

/// How a process wants to be told to checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Signal(i32),
    /// An event code (normally PMIX_JCTRL_CHECKPOINT).
    Event(pmix_status_t),
}

#[derive(Clone, Debug, Default)]
pub struct Registration {
    pub preemptible: Option<bool>,
    /// In the order the process gave them.
    pub methods: Vec<Method>,
}

impl Registration {
    pub fn signal(&self) -> Option<i32> {
        self.methods.iter().find_map(|m| if let Method::Signal(s) = m { Some(*s) } else { None })
    }
    pub fn event(&self) -> Option<pmix_status_t> {
        self.methods.iter().find_map(|m| if let Method::Event(e) = m { Some(*e) } else { None })
    }
}

pub static REGISTRY: Mutex<Option<HashMap<Proc, Registration>>> = Mutex::new(None);

pub fn is_registration_key(i: &Info) -> bool {
    i.is(PMIX_JOB_CTRL_PREEMPTIBLE) || i.is(PMIX_JOB_CTRL_CHECKPOINT_METHOD)
}

/// The registration carried by a request's directives, if any.
pub fn registration(directives: &[Info]) -> Option<Registration> {
    let pre = find(directives, PMIX_JOB_CTRL_PREEMPTIBLE).map(|i| i.truthy());
    let method = find(directives, PMIX_JOB_CTRL_CHECKPOINT_METHOD).map(infos_of_array);
    if pre.is_none() && method.is_none() {
        return None;
    }
    let mut r = Registration { preemptible: pre, ..Default::default() };
    for m in method.unwrap_or_default() {
        if m.is(PMIX_JOB_CTRL_CHECKPOINT_SIGNAL) {
            if let Some(s) = m.as_u32().filter(|s| (1..=64).contains(s)) {
                r.methods.push(Method::Signal(s as i32));
            }
        } else if m.is(PMIX_JOB_CTRL_CHECKPOINT_EVENT) {
            // The header says bool, the RFC's example passes the status code.
            let v = m.value_ref();
            r.methods.push(Method::Event(if v.r#type == PMIX_STATUS {
                // SAFETY: a PMIX_STATUS value.
                unsafe { v.data.status }
            } else {
                PMIX_JCTRL_CHECKPOINT
            }));
        }
    }
    Some(r)
}

pub fn register(p: &Proc, r: Registration) {
    let mut g = REGISTRY.lock();
    let e = g.get_or_insert_with(HashMap::new).entry(p.clone()).or_default();
    if r.preemptible.is_some() {
        e.preemptible = r.preemptible;
    }
    if !r.methods.is_empty() {
        e.methods = r.methods;
    }
}

pub fn lookup(p: &Proc) -> Option<Registration> {
    REGISTRY.lock().as_ref()?.get(p).cloned()
}

/// Every registered process of `nspace` (all namespaces: None) that declared itself preemptible.
pub fn preemptible(nspace: Option<&str>) -> Vec<Proc> {
    let g = REGISTRY.lock();
    let mut v: Vec<Proc> = g
        .iter()
        .flat_map(|m| m.iter())
        .filter(|(p, r)| r.preemptible == Some(true) && nspace.map_or(true, |n| p.nspace == n))
        .map(|(p, _)| p.clone())
        .collect();
    v.sort();
    v
}

pub fn forget(p: &Proc) {
    if let Some(m) = REGISTRY.lock().as_mut() {
        m.remove(p);
    }
}

/// Which pending checkpoints a completion or failure is about.
#[derive(Clone, Copy, Debug)]
pub enum Which<'a> {
    /// Every checkpoint waiting for the target.
    All,
    /// Those with this checkpoint id, and those without an id.
    Id(&'a str),
    /// One request (by its sequence number).
    Seq(u64),
}

/// A checkpoint request waiting for its targets.
struct Checkpoint {
    seq: u64,
    requester: Proc,
    /// The checkpoint's name (PMIX_JOB_CTRL_CHECKPOINT's value).
    id: Option<String>,
    /// The request's own id (PMIX_JOB_CTRL_ID), which a cancel may name too.
    request_id: Option<String>,
    /// Targets that have not reported completion yet.
    waiting: Vec<Proc>,
    timer: Option<u64>,
    /// First failure (a host refusing the signal), reported at the end.
    status: pmix_status_t,
    conn: ConnId,
    req: u32,
}

/// The timeout of a checkpoint request, in seconds. PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT
/// shares its key string with PMIX_JOB_CTRL_CHECKPOINT_SIGNAL (a bug of the
/// header and the RFC): in a request (as opposed to a method registration)
/// that key is read as the timeout, as is PMIX_TIMEOUT.
fn timeout_of(directives: &[Info]) -> Option<u32> {
    find(directives, PMIX_TIMEOUT).or_else(|| find(directives, PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT)).and_then(|i| i.as_u32()).filter(|t| *t > 0)
}

fn answer(net: &mut Net, conn: ConnId, req: u32, st: pmix_status_t) {
    reply(net, conn, req, Reply::Infos { status: st, infos: Vec::new() });
}

/// The job control the server does itself: checkpoint requests waiting
/// for their targets, and the cleanup processes registered for themselves.
#[derive(Default)]
pub(super) struct JobCtl {
    checkpoints: Vec<Checkpoint>,
    last_checkpoint: u64,
    /// Cleanup registered by a process for itself (runs when it terminates).
    epilogs: HashMap<Proc, cleanup::Epilog>,
}

/// What a job-control request needs of the role.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub nspaces: &'a mut HashMap<String, Nspace>,
    pub handle: Handle<ServerRole>,
    pub events: Sink<'a>,
}

/// The live local clients a request names (none: the requester's
/// namespace), or None when a target is not a local client.
fn local_targets(nspaces: &HashMap<String, Nspace>, who: &Proc, targets: &[Proc]) -> Option<Vec<Proc>> {
    let want = if targets.is_empty() { vec![Proc::wildcard(&who.nspace)] } else { targets.to_vec() };
    let mut out = Vec::new();
    for t in &want {
        let ns = nspaces.get(&t.nspace)?;
        let live = |r: &pmix_rank_t| ns.clients.get(r).is_some_and(|c| c.connected && !c.terminated);
        if t.rank == PMIX_RANK_WILDCARD {
            let mut ranks: Vec<pmix_rank_t> = ns.clients.keys().copied().filter(|r| live(r)).collect();
            ranks.sort();
            out.extend(ranks.into_iter().map(|r| Proc::new(&t.nspace, r)));
        } else if live(&t.rank) {
            out.push(t.clone());
        } else {
            return None;
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// Ask the host to send `sig` to `target`; an error the host reports
/// later fails the checkpoints waiting for that target.
fn signal_through_host(cx: &mut Ctx<'_>, who: &Proc, target: &Proc, sig: i32, id: Option<&str>, seq: u64) -> pmix_status_t {
    let mut dirs = vec![Info::new("pmix.jctrl.sig", Value::int(sig))];
    if let Some(id) = id {
        dirs.push(Info::new("pmix.jctrl.id", Value::string(id)));
    }
    let (h, t) = (cx.handle.clone(), target.clone());
    let u = cx.host.job_control(who, std::slice::from_ref(target), &dirs, Box::new(move |st, _| {
        let st = settled(st);
        if st != PMIX_SUCCESS {
            h.run(move |s, net| s.checkpoint_progress(net, &t, Which::Seq(seq), st));
        }
    }));
    match u {
        Upcall::Pending => PMIX_SUCCESS,
        Upcall::Now(st) => settled(st),
    }
}

impl JobCtl {
    /// PMIX_JOB_CTRL_CHECKPOINT. Returns false when the targets are not all
    /// local clients: the request then goes to the host unchanged.
    fn checkpoint(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, targets: &[Proc], directives: &[Info]) -> bool {
        let Some(local) = local_targets(cx.nspaces, who, targets) else { return false };
        if local.is_empty() {
            crate::pmix_debug!(5, "checkpoint from {who}: no live target");
            answer(cx.net, conn, req, PMIX_ERR_NOT_FOUND);
            return true;
        }
        // Every target needs a registered method before anything is done.
        let regs: Vec<(Proc, Registration)> = local.iter().map(|p| (p.clone(), lookup(p).unwrap_or_default())).collect();
        if let Some((p, _)) = regs.iter().find(|(_, r)| r.methods.is_empty()) {
            crate::pmix_debug!(5, "checkpoint from {who}: {p} registered no checkpoint method");
            answer(cx.net, conn, req, PMIX_ERR_NOT_SUPPORTED);
            return true;
        }
        let id = find(directives, PMIX_JOB_CTRL_CHECKPOINT).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
        let request_id = find(directives, PMIX_JOB_CTRL_ID).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
        let timer = timeout_of(directives).map(|t| cx.net.timer(Duration::from_secs(t as u64)));
        self.last_checkpoint += 1;
        let seq = self.last_checkpoint;
        self.checkpoints.push(Checkpoint { seq, requester: who.clone(), id: id.clone(), request_id, waiting: local.clone(), timer, status: PMIX_SUCCESS, conn, req });
        let mut info = vec![Info::new("pmix.evrange", Value::proc(&local[0]))];
        if let Some(id) = &id {
            info.push(Info::new("pmix.jctrl.ckpt", Value::string(id)));
        }
        for (p, r) in regs {
            let mut failed = PMIX_ERR_NOT_SUPPORTED;
            for m in &r.methods {
                let st = match *m {
                    Method::Event(code) => {
                        info[0] = Info::new("pmix.evrange", Value::proc(&p));
                        cx.events.deliver(cx.net, code, who, PMIX_RANGE_CUSTOM, &info);
                        PMIX_SUCCESS
                    }
                    Method::Signal(sig) => signal_through_host(cx, who, &p, sig, id.as_deref(), seq),
                };
                if st == PMIX_SUCCESS {
                    failed = PMIX_SUCCESS;
                    break;
                }
                failed = st;
                crate::pmix_debug!(5, "checkpoint of {p}: method {m:?} failed ({}); trying the next", crate::strings::error_name(st));
            }
            if failed != PMIX_SUCCESS {
                self.checkpoint_progress(cx.net, &p, Which::Seq(seq), failed);
            }
        }
        true
    }

    /// `proc` completed (status SUCCESS) or failed the checkpoints `which`
    /// selects. Requests with no target left answer.
    pub(super) fn checkpoint_progress(&mut self, net: &mut Net, proc: &Proc, which: Which<'_>, status: pmix_status_t) {
        for c in self.checkpoints.iter_mut() {
            let selected = match which {
                Which::All => true,
                Which::Id(id) => c.id.as_deref().map_or(true, |x| x == id),
                Which::Seq(n) => c.seq == n,
            };
            if !selected || !c.waiting.contains(proc) {
                continue;
            }
            c.waiting.retain(|p| p != proc);
            if status != PMIX_SUCCESS && c.status == PMIX_SUCCESS {
                c.status = status;
            }
        }
        self.finish_checkpoints(net, |c| c.waiting.is_empty(), None);
    }

    /// Answer (and drop) the checkpoints `pick` selects, with `status` or their own.
    fn finish_checkpoints(&mut self, net: &mut Net, pick: impl Fn(&Checkpoint) -> bool, status: Option<pmix_status_t>) -> usize {
        let (done, keep): (Vec<Checkpoint>, Vec<Checkpoint>) = std::mem::take(&mut self.checkpoints).into_iter().partition(|c| pick(c));
        self.checkpoints = keep;
        for c in &done {
            if let Some(t) = c.timer {
                net.cancel_timer(t);
            }
            let st = status.unwrap_or(c.status);
            crate::pmix_debug!(5, "checkpoint {} from {}: {}", c.id.as_deref().unwrap_or("-"), c.requester, crate::strings::error_name(st));
            answer(net, c.conn, c.req, st);
        }
        done.len()
    }

    /// A timer fired: true when it was a checkpoint's.
    pub(super) fn timer(&mut self, net: &mut Net, timer: u64) -> bool {
        let mut hit = false;
        for c in self.checkpoints.iter_mut().filter(|c| c.timer == Some(timer)) {
            c.timer = None; // fired: nothing to cancel
            c.status = PMIX_ERR_TIMEOUT;
            c.waiting.clear();
            hit = true;
        }
        if hit {
            self.finish_checkpoints(net, |c| c.waiting.is_empty(), None);
        }
        hit
    }

    /// PMIX_JOB_CTRL_CANCEL: the requester's checkpoints named by this id
    /// (their PMIX_JOB_CTRL_ID or checkpoint name; None: all of them).
    fn cancel_checkpoints(&mut self, net: &mut Net, who: &Proc, id: Option<&str>) -> usize {
        let named = |c: &Checkpoint| id.is_none() || c.id.as_deref() == id || c.request_id.as_deref() == id;
        self.finish_checkpoints(net, |c| c.requester == *who && named(c), Some(PMIX_ERR_JOB_CANCELED))
    }

    /// The requester's connection is gone: nobody is left to answer.
    pub(super) fn drop_conn(&mut self, net: &mut Net, conn: ConnId) {
        let (gone, keep): (Vec<Checkpoint>, Vec<Checkpoint>) = std::mem::take(&mut self.checkpoints).into_iter().partition(|c| c.conn == conn);
        self.checkpoints = keep;
        for c in gone {
            if let Some(t) = c.timer {
                net.cancel_timer(t);
            }
        }
    }

    /// `proc` ended: the cleanup it registered for itself runs now.
    pub(super) fn run_epilog(&mut self, proc: &Proc) {
        if let Some(mut e) = self.epilogs.remove(proc) {
            e.execute();
        }
    }

    /// Server finalize: every cleanup registered runs now at the latest.
    pub(super) fn run_all_epilogs(&mut self) {
        for (_, mut e) in std::mem::take(&mut self.epilogs) {
            e.execute();
        }
    }

    /// PMIx_Job_control from a client or tool (`cred`: its connection's):
    /// cleanup registration and the registration of checkpoint methods /
    /// preemptibility are handled here (never relayed); requests that act
    /// on processes go to the host.
    #[allow(clippy::too_many_arguments)] // one request's fields
    pub(super) fn on_request(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, cred: Option<PeerCred>, targets: Vec<Proc>, directives: Vec<Info>) -> Res {
        let cred = cred.ok_or(PMIX_ERR_UNREACH)?;
        let request = match cleanup::parse(&directives) {
            Ok(r) => r,
            Err(e) => {
                reply(cx.net, conn, req, Reply::Status(e));
                return Ok(());
            }
        };
        let registration = registration(&directives);
        let actions = directives.iter().any(|i| !cleanup::is_cleanup_key(i) && !is_registration_key(i) && !i.is(PMIX_JOB_CTRL_ID));
        // Cleanup: a process may register it only for itself or its own namespace.
        if !request.is_empty() {
            let ctargets = if targets.is_empty() { vec![Proc::wildcard(&who.nspace)] } else { targets.clone() };
            if ctargets.iter().any(|t| !t.names(who)) {
                reply(cx.net, conn, req, Reply::Status(PMIX_ERR_NO_PERMISSIONS));
                return Ok(());
            }
            // All or nothing across the targets.
            let mut proc_e = self.epilogs.get(who).cloned().unwrap_or_else(|| cleanup::Epilog::new(cred.uid, cred.gid));
            let Some(ns) = cx.nspaces.get(&who.nspace) else {
                reply(cx.net, conn, req, Reply::Status(PMIX_ERR_NOT_FOUND));
                return Ok(());
            };
            let mut ns_e = ns.epilog.clone().unwrap_or_else(|| cleanup::Epilog::new(cred.uid, cred.gid));
            for t in &ctargets {
                let r = if t == who { proc_e.merge(&request) } else { ns_e.merge(&request) };
                if let Err(e) = r {
                    reply(cx.net, conn, req, Reply::Status(e));
                    return Ok(());
                }
            }
            if ctargets.iter().any(|t| t == who) {
                self.epilogs.insert(who.clone(), proc_e);
            }
            if ctargets.iter().any(|t| t != who) {
                if let Some(ns) = cx.nspaces.get_mut(&who.nspace) {
                    ns.epilog = Some(ns_e);
                }
            }
        }
        // Registration is information about the requester (targets ignored, as the RFC says).
        if let Some(r) = registration {
            register(who, r);
        }
        if !actions {
            answer(cx.net, conn, req, PMIX_SUCCESS);
            return Ok(());
        }
        if find(&directives, PMIX_JOB_CTRL_CHECKPOINT).is_some() && self.checkpoint(cx, conn, req, who, &targets, &directives) {
            return Ok(());
        }
        if let Some(c) = find(&directives, PMIX_JOB_CTRL_CANCEL) {
            // Checkpoints are the server's own pending requests; anything else is the host's.
            let id = c.as_str().filter(|s| !s.is_empty());
            if self.cancel_checkpoints(cx.net, who, id.as_deref()) > 0 {
                answer(cx.net, conn, req, PMIX_SUCCESS);
                return Ok(());
            }
        }
        let u = cx.host.job_control(who, &targets, &directives, done_reply_infos(cx.handle.clone(), conn, req));
        if let Upcall::Now(st) = u {
            if st == PMIX_ERR_NOT_SUPPORTED {
                crate::pmix_debug!(5, "{who}: the host does not support job control");
            }
            // (as the host's later answer: OpenPMIx's form of it carries infos)
            answer(cx.net, conn, req, settled(st));
        }
        Ok(())
    }
}
