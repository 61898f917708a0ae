//! pmixrun's `Host`: the upcalls of its PMIx server.

use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use pmix::abi::*;
use pmix::owned::{find, Info, Proc};
use pmix::data::carray::CArray;
use pmix::server::host::{Done, DoneLookup, DoneSpawn, Host, Upcall};

use crate::Event;

/// One app context of a spawn request, in Rust terms.
#[derive(Clone, Debug)]
pub struct AppSpec {
    pub cmd: String,
    pub argv: Vec<String>,
    pub env: Vec<String>,
    pub cwd: Option<String>,
    pub maxprocs: u32,
    /// --pset / PMIX_PSET_NAME: the process set of this app's ranks.
    pub pset: Option<String>,
}

/// PMIX_QUERY_SPAWN_SUPPORT: the spawn attributes pmixrun acts on (the
/// forwarding ones by the server, for any host).
const SPAWN_SUPPORT: &str = "pmix.fwd.stdout,pmix.fwd.stderr,pmix.fwd.stddiag,pmix.notecomp,pmix.dbg.init,pmix.spchildsep";
/// PMIX_QUERY_DEBUG_SUPPORT: stop in init and its release, debugger daemons
/// with their target and count; stop on exec where this system lets
/// pmixrun trace its children (debug::probe_stop_on_exec).
const DEBUG_SUPPORT: &str = "pmix.dbg.init,pmix.debugger,pmix.dbg.tgt,pmix.dbg.dpproc,pmix.dbg.dpnd";
const STOP_ON_EXEC: &str = "pmix.dbg.exec";

pub struct SpawnReq {
    pub parent: Proc,
    pub apps: Vec<AppSpec>,
    /// The spawn's job-level directives.
    pub directives: Vec<Info>,
    pub done: DoneSpawn,
}

struct Published {
    publisher: Proc,
    uid: u32,
    info: Info,
}

struct ParkedLookup {
    id: u64,
    uid: u32,
    keys: Vec<String>,
    done: DoneLookup,
}

#[derive(Default)]
struct Store {
    data: HashMap<String, Published>,
    parked: Vec<ParkedLookup>,
    next_id: u64,
}

impl Store {
    /// (proc, info) for every key when all are present for `uid`.
    fn find_all(&self, keys: &[String], uid: u32) -> Option<Vec<(Proc, Info)>> {
        keys.iter()
            .map(|k| self.data.get(k).filter(|p| p.uid == uid).map(|p| (p.publisher.clone(), p.info.clone())))
            .collect()
    }

    fn wake(&mut self) {
        let parked = std::mem::take(&mut self.parked);
        for l in parked {
            match self.find_all(&l.keys, l.uid) {
                Some(found) => (l.done)(PMIX_SUCCESS, found),
                None => self.parked.push(l),
            }
        }
    }
}

/// The pid (= process group) of every rank pmixrun started.
pub type Pids = Arc<Mutex<HashMap<Proc, i32>>>;

/// What pmixrun does when a monitored rank stalls (--on-stall).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnStall {
    Terminate,
    Kill,
    Report,
}

/// The allocations of this node's CPUs pmixrun granted (PMIx_Allocation_request):
/// a ledger only; the jobs are not confined to them.
#[derive(Default)]
struct Ledger {
    /// (allocation id, CPUs held), in the order granted.
    held: Vec<(String, u32)>,
    next: u32,
    /// What PMIX_QUERY_ALLOC_STATUS answers for an id: how the last request
    /// naming it (its PMIX_ALLOC_ID, its PMIX_ALLOC_REQ_ID, or the id
    /// granted) ended.
    outcomes: HashMap<String, String>,
}

/// rpmix's attribute (string): why pmixrun refused an allocation or
/// session-control request, among the infos of the request's answer (and
/// of PMIX_NOTIFY_ALLOC_COMPLETE).
pub const REASON: &str = "rpmix.reason";
/// rpmix's attribute (pmix_status_t): the status an allocation request was
/// answered, in PMIX_NOTIFY_ALLOC_COMPLETE's infos.
pub const ALLOC_STATUS: &str = "rpmix.alloc.status";

/// How pmixrun's host raises an event for the requester's namespace
/// (the server's own thread; tests capture it instead).
pub type Notifier = Arc<dyn Fn(pmix_status_t, &Proc, Vec<Info>) + Send + Sync>;

/// An event from this server to every process of `to`'s namespace
/// (PMIX_EVENT_CUSTOM_RANGE), raised on the server's thread after what
/// it has queued (the request's answer first).
fn notify_namespace(code: pmix_status_t, to: &Proc, mut info: Vec<Info>) {
    let Some(h) = pmix::server::handle() else { return };
    info.push(Info::new("pmix.evrange", pmix::owned::Value::procs(&[Proc::wildcard(&to.nspace)])));
    h.run(move |s, net| {
        let me = s.me.clone();
        s.deliver_event(net, code, &me, PMIX_RANGE_CUSTOM, &info);
    });
}

/// PMIX_NOTIFY_ALLOC_COMPLETE's infos: "the result of the request" (the
/// Standard): its status (`rpmix.alloc.status`), PMIX_ALLOC_ID (the
/// allocation's, or on a refusal the one asked for), PMIX_ALLOC_REQ_ID
/// when the requester named its request, and the request's answer (what
/// was granted, or `rpmix.reason`).
fn alloc_event(st: pmix_status_t, id: Option<&str>, req_id: Option<&str>, answer: &[Info]) -> Vec<Info> {
    let mut info = vec![Info::new(ALLOC_STATUS, pmix::owned::Value::status(st))];
    if let Some(id) = id.filter(|_| find(answer, PMIX_ALLOC_ID).is_none()) {
        info.push(Info::new("pmix.alloc.id", pmix::owned::Value::string(id)));
    }
    if let Some(r) = req_id {
        info.push(Info::new("pmix.alloc.reqid", pmix::owned::Value::string(r)));
    }
    info.extend(answer.iter().cloned());
    info
}

/// PMIX_ALLOC_NUM_CPUS etc. are uint64_t.
fn u64_value(x: u64) -> pmix::owned::Value {
    // SAFETY: x is a uint64_t element.
    unsafe { pmix::owned::Value::load(&x as *const u64 as *const core::ffi::c_void, PMIX_UINT64) }.expect("out of memory")
}

pub struct LauncherHost {
    tx: Mutex<Sender<Event>>,
    ledger: Ledger,
    /// CPUs the ledger grants from (this process's available parallelism).
    cpus: u32,
    store: Arc<Mutex<Store>>,
    pids: Pids,
    stdins: crate::io::Stdins,
    on_stall: OnStall,
    stop_on_exec: bool,
    verbose: bool,
    notify: Notifier,
}

impl LauncherHost {
    pub fn new(tx: Sender<Event>, pids: Pids, stdins: crate::io::Stdins, on_stall: OnStall, stop_on_exec: bool, verbose: bool) -> LauncherHost {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        LauncherHost {
            tx: Mutex::new(tx),
            ledger: Ledger::default(),
            cpus,
            store: Arc::new(Mutex::new(Store::default())),
            pids,
            stdins,
            on_stall,
            stop_on_exec,
            verbose,
            notify: Arc::new(notify_namespace),
        }
    }

    /// The ranks a job-control request names (none: the requester's namespace).
    fn expand(&self, requestor: &Proc, targets: &[Proc]) -> Vec<(Proc, i32)> {
        let pids = self.pids.lock();
        let want = if targets.is_empty() { vec![Proc::wildcard(&requestor.nspace)] } else { targets.to_vec() };
        let mut out: Vec<(Proc, i32)> = pids
            .iter()
            .filter(|(p, _)| want.iter().any(|w| w.nspace == p.nspace && (w.rank == PMIX_RANK_WILDCARD || w.rank == p.rank)))
            .map(|(p, pid)| (p.clone(), *pid))
            .collect();
        out.sort();
        out
    }
    /// A process set defined of the targets (their running ranks; the
    /// wildcard rank: all of its job's) or deleted, by job control (None:
    /// no such directive). The set is the server's, as if defined with
    /// PMIx_server_define_process_set: the clients hear of it.
    fn pset_control(&self, requestor: &Proc, targets: &[Proc], directives: &[Info], done: pmix::server::host::DoneInfos) -> Option<Upcall> {
        use pmix::server::pset::{DEFINE_DIRECTIVE, DELETE_DIRECTIVE};
        let given = |k: &str| directives.iter().find(|i| i.key() == k);
        let (name, define) = match (given(DEFINE_DIRECTIVE), given(DELETE_DIRECTIVE)) {
            (Some(i), None) => (i.as_str(), true),
            (None, Some(i)) => (i.as_str(), false),
            (None, None) => return None,
            (Some(_), Some(_)) => {
                eprintln!("pmixrun: job control from {requestor}: a process set is defined or deleted, not both at once");
                return Some(Upcall::Now(PMIX_ERR_BAD_PARAM));
            }
        };
        let Some(name) = name.filter(|n| crate::options::bad_pset_name(n).is_none()) else {
            eprintln!("pmixrun: job control from {requestor}: the process set's name must be a non-empty string without ','");
            return Some(Upcall::Now(PMIX_ERR_BAD_PARAM));
        };
        let members: Vec<Proc> = if define {
            // Every target must name a running rank (or a job, by the wildcard).
            let all = self.expand(requestor, targets);
            let unknown = targets.iter().find(|t| !all.iter().any(|(p, _)| t.names(p)));
            if let Some(t) = unknown.filter(|_| !targets.is_empty()) {
                eprintln!("pmixrun: job control from {requestor}: process set {name}: {t} is no running rank");
                return Some(Upcall::Now(PMIX_ERR_NOT_FOUND));
            }
            if all.is_empty() {
                return Some(Upcall::Now(PMIX_ERR_NOT_FOUND));
            }
            all.into_iter().map(|(p, _)| p).collect()
        } else {
            Vec::new()
        };
        if self.verbose {
            eprintln!("pmixrun: {requestor} {} process set {name} ({} members)", if define { "defines" } else { "deletes" }, members.len());
        }
        // (on the server's own thread, after this upcall returns)
        let Some(h) = pmix::server::handle() else { return Some(Upcall::Now(PMIX_ERR_INIT)) };
        let queued = h.run(move |s, net| {
            let st = if define { s.define_pset(net, &name, members) } else { s.delete_pset(net, &name) };
            done(st, Vec::new());
        });
        Some(if queued { Upcall::Pending } else { Upcall::Now(PMIX_ERR_INIT) })
    }

    /// An allocation request's change to the ledger, against what this
    /// process may use: a new allocation (PMIX_ALLOC_NUM_CPUS, default 1;
    /// at most one node; named by the requester's PMIX_ALLOC_ID, as before
    /// v3.2 of the Standard and in OpenPMIx's examples, else by pmixrun),
    /// more CPUs for one (PMIX_ALLOC_ID), or some or all of them back.
    /// Ok: (the allocation's id, the CPUs it now holds); Err: (status, why).
    fn change(&mut self, directive: pmix_alloc_directive_t, data: &[Info]) -> Result<(String, u32), (pmix_status_t, String)> {
        let cpus = match find(data, PMIX_ALLOC_NUM_CPUS) {
            None => None,
            Some(i) => match i.as_u32().filter(|n| *n > 0) {
                Some(n) => Some(n),
                None => return Err((PMIX_ERR_BAD_PARAM, "PMIX_ALLOC_NUM_CPUS is not a positive number".into())),
            },
        };
        if let Some(n) = find(data, PMIX_ALLOC_NUM_NODES).and_then(|i| i.as_u32()).filter(|n| *n > 1) {
            return Err((PMIX_ERR_OUT_OF_RESOURCE, format!("{n} nodes asked (pmixrun has this one)")));
        }
        let used: u32 = self.ledger.held.iter().map(|(_, n)| n).sum();
        let free = self.cpus.saturating_sub(used);
        let id = find(data, PMIX_ALLOC_ID).and_then(|i| i.as_str());
        let slot = id.as_ref().and_then(|id| self.ledger.held.iter().position(|(x, _)| x == id));
        match directive {
            PMIX_ALLOC_NEW => {
                let n = cpus.unwrap_or(1);
                if n > free {
                    return Err((PMIX_ERR_OUT_OF_RESOURCE, format!("{n} CPUs asked, {free} of {} free", self.cpus)));
                }
                let id = match id.filter(|i| !i.is_empty()) {
                    Some(_) if slot.is_some() => return Err((PMIX_ERR_EXISTS, "an allocation of this PMIX_ALLOC_ID is held".into())),
                    Some(id) => id,
                    None => {
                        self.ledger.next += 1;
                        format!("rpmixrun.{}.alloc.{}", std::process::id(), self.ledger.next)
                    }
                };
                self.ledger.held.push((id.clone(), n));
                Ok((id, n))
            }
            PMIX_ALLOC_EXTEND | PMIX_ALLOC_RELEASE => {
                let (Some(id), Some(k)) = (id, slot) else {
                    let st = if find(data, PMIX_ALLOC_ID).is_some() { PMIX_ERR_NOT_FOUND } else { PMIX_ERR_BAD_PARAM };
                    return Err((st, "no allocation of this PMIX_ALLOC_ID".into()));
                };
                let have = self.ledger.held[k].1;
                if directive == PMIX_ALLOC_EXTEND {
                    let n = cpus.unwrap_or(1);
                    if n > free {
                        return Err((PMIX_ERR_OUT_OF_RESOURCE, format!("{n} more CPUs asked, {free} of {} free", self.cpus)));
                    }
                    self.ledger.held[k].1 += n;
                    Ok((id, have + n))
                } else {
                    let n = cpus.unwrap_or(have);
                    if n > have {
                        return Err((PMIX_ERR_BAD_PARAM, format!("{n} CPUs released, {id} holds {have}")));
                    }
                    if n == have {
                        self.ledger.held.remove(k);
                    } else {
                        self.ledger.held[k].1 -= n;
                    }
                    Ok((id, have - n))
                }
            }
            other => Err((PMIX_ERR_NOT_SUPPORTED, format!("directive {other} is not supported (new, extend and release are)"))),
        }
    }

    fn send(&self, e: Event) {
        let _ = self.tx.lock().send(e);
    }
}

fn uid_of(info: &[Info]) -> u32 {
    find(info, PMIX_USERID).and_then(|i| i.as_u32()).unwrap_or(u32::MAX)
}

/// The text of a log entry (strings, or bytes that look like text).
fn log_text(i: &Info) -> Option<String> {
    let b = pmix::server::log::text_of(i)?;
    Some(String::from_utf8_lossy(&b).trim_end_matches('\0').to_string())
}

fn signal_all(targets: &[(Proc, i32)], sig: i32) -> pmix_status_t {
    let mut st = PMIX_SUCCESS;
    for (_, pid) in targets {
        // Raw kill, not nix: the caller's number may be a real-time signal,
        // which nix's Signal cannot name.
        // SAFETY: signalling the process group pmixrun created for the rank.
        if unsafe { libc::kill(-pid, sig) } != 0 {
            st = PMIX_ERR_NOT_FOUND;
        }
    }
    st
}

impl Host for LauncherHost {
    fn job_control(&mut self, requestor: &Proc, targets: &[Proc], directives: &[Info], done: pmix::server::host::DoneInfos) -> Upcall {
        // Terminate aimed at pmixrun's own namespace: the launcher itself
        // stops (pmixctl stop; what a persistent pmixrun is told).
        let me = format!("rpmixrun.{}", std::process::id());
        if targets.iter().any(|t| t.nspace == me) {
            let flag = |k| find(directives, k).is_some_and(|i| i.truthy());
            if flag(PMIX_JOB_CTRL_TERMINATE) || flag(PMIX_JOB_CTRL_KILL) {
                if self.verbose {
                    eprintln!("pmixrun: {requestor} asked pmixrun to stop");
                }
                self.send(Event::Signal(libc::SIGTERM));
                return Upcall::Now(PMIX_SUCCESS);
            }
            return Upcall::Now(PMIX_ERR_NOT_SUPPORTED);
        }
        if let Some(u) = self.pset_control(requestor, targets, directives, done) {
            return u;
        }
        let ts = self.expand(requestor, targets);
        if ts.is_empty() {
            return Upcall::Now(PMIX_ERR_NOT_FOUND);
        }
        let flag = |k| find(directives, k).is_some_and(|i| i.truthy());
        if find(directives, PMIX_JOB_CTRL_RESTART).is_some() || find(directives, PMIX_JOB_CTRL_PROVISION).is_some() {
            eprintln!("pmixrun: job control from {requestor}: restart and provisioning are not supported");
            return Upcall::Now(PMIX_ERR_NOT_SUPPORTED);
        }
        if find(directives, PMIX_JOB_CTRL_CANCEL).is_some() {
            return Upcall::Now(PMIX_SUCCESS); // pmixrun carries out requests at once: nothing is pending
        }
        let st = if flag(PMIX_JOB_CTRL_PAUSE) {
            signal_all(&ts, libc::SIGSTOP)
        } else if flag(PMIX_JOB_CTRL_RESUME) {
            signal_all(&ts, libc::SIGCONT)
        } else if flag(PMIX_JOB_CTRL_KILL) {
            signal_all(&ts, libc::SIGKILL)
        } else if flag(PMIX_JOB_CTRL_TERMINATE) {
            signal_all(&ts, libc::SIGTERM)
        } else if let Some(sig) = find(directives, PMIX_JOB_CTRL_SIGNAL).and_then(|i| i.as_u32()) {
            signal_all(&ts, sig as i32)
        } else {
            PMIX_ERR_NOT_SUPPORTED
        };
        if self.verbose {
            eprintln!("pmixrun: job control from {requestor} on {} ranks: {}", ts.len(), pmix::strings::error_name(st));
        }
        Upcall::Now(st)
    }

    /// What tools may ask of a launcher before they spawn: the spawn and
    /// debugger attributes pmixrun acts on; and PMIX_QUERY_ALLOC_STATUS of
    /// an allocation or request id (qualifier PMIX_ALLOC_ID or
    /// PMIX_ALLOC_REQ_ID): how the last request naming it ended. Other keys
    /// are the server's (this upcall declines them all, so the server
    /// answers). None answered: PMIX_ERR_NOT_FOUND (an unknown id), or
    /// PMIX_ERR_BAD_PARAM (no id given); some: PMIX_QUERY_PARTIAL_SUCCESS.
    fn query(&mut self, _proc: &Proc, queries: &CArray, done: pmix::server::host::DoneInfos) -> Upcall {
        let mut asked = Vec::new();
        for q in queries.queries() {
            // SAFETY: qualifiers: the server's decoded copy, nqual of them.
            let quals = unsafe { Info::copy_array(q.qualifiers, q.nqual) }.unwrap_or_default();
            // SAFETY: keys is NULL or a NULL-terminated argv (the server's copy).
            let n = unsafe { pmix::cmem::argv_len(q.keys) };
            for k in 0..n {
                // SAFETY: index within argv.
                let key = unsafe { pmix::cmem::cstr_bytes(*q.keys.add(k)) }.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
                asked.push((key, quals.clone()));
            }
        }
        let ours = ["pmix.qry.spawn", "pmix.qry.debug", "pmix.query.alloc"];
        if asked.is_empty() || asked.iter().any(|(k, _)| !ours.contains(&k.as_str())) {
            return Upcall::Now(PMIX_ERR_NOT_SUPPORTED);
        }
        let mut no_id = false;
        let answers: Vec<Info> = asked
            .iter()
            .filter_map(|(k, quals)| {
                let v = match (k.as_str(), self.stop_on_exec) {
                    ("pmix.qry.spawn", true) => format!("{SPAWN_SUPPORT},{STOP_ON_EXEC}"),
                    ("pmix.qry.spawn", false) => SPAWN_SUPPORT.to_string(),
                    ("pmix.qry.debug", true) => format!("{DEBUG_SUPPORT},{STOP_ON_EXEC}"),
                    ("pmix.qry.debug", false) => DEBUG_SUPPORT.to_string(),
                    _ => {
                        let id = [PMIX_ALLOC_ID, PMIX_ALLOC_REQ_ID].iter().find_map(|q| find(quals, q).and_then(|i| i.as_str()));
                        no_id |= id.is_none();
                        self.ledger.outcomes.get(&id?)?.clone()
                    }
                };
                Some(Info::new(k, pmix::owned::Value::string(&v)))
            })
            .collect();
        let st = match answers.len() {
            0 if no_id => PMIX_ERR_BAD_PARAM,
            0 => PMIX_ERR_NOT_FOUND,
            n if n < asked.len() => PMIX_QUERY_PARTIAL_SUCCESS,
            _ => PMIX_SUCCESS,
        };
        done(st, answers);
        Upcall::Pending
    }

    /// pmixrun's session is the set of jobs it runs (whatever the id asked:
    /// it runs one): pause (SIGSTOP), resume (SIGCONT), signal every rank
    /// of every job, or terminate every job (as on SIGTERM, with the grace
    /// period; a persistent pmixrun goes on, ready for new jobs).
    fn session_control(&mut self, requestor: &Proc, session: u32, directives: &[Info], done: pmix::server::host::DoneInfos) -> Upcall {
        // (PMIx 5's keys, not in the 4.2.2 header)
        let given = |k: &str| directives.iter().find(|i| i.key() == k);
        let flag = |k: &str| given(k).is_some_and(|i| i.truthy());
        let all: Vec<(Proc, i32)> = self.pids.lock().iter().map(|(p, pid)| (p.clone(), *pid)).collect();
        let known = ["pmix.ssn.pause", "pmix.ssn.resume", "pmix.ssn.terminate", "pmix.ssn.sig", "pmix.ssnctrl.id"];
        let st = if let Some(other) = directives.iter().find(|i| !known.contains(&i.key())) {
            Err(format!("{} is not supported (pause, resume, terminate and signal are)", other.key()))
        } else if flag("pmix.ssn.pause") {
            Ok(signal_all(&all, libc::SIGSTOP))
        } else if flag("pmix.ssn.resume") {
            Ok(signal_all(&all, libc::SIGCONT))
        } else if flag("pmix.ssn.terminate") {
            self.send(Event::EndSession);
            Ok(PMIX_SUCCESS)
        } else if let Some(sig) = given("pmix.ssn.sig").and_then(|i| i.as_u32()) {
            Ok(signal_all(&all, sig as i32))
        } else {
            Err("no directive pmixrun carries out (pause, resume, terminate, signal)".to_string())
        };
        // A refusal: PMIX_ERR_NOT_SUPPORTED, and why in rpmix.reason (the
        // callback's infos; PMIX_DEBUG=1 logs it too).
        let st = match st {
            Ok(st) => st,
            Err(why) => {
                pmix::pmix_debug!(1, "pmixrun: session control from {requestor}: {why}");
                done(PMIX_ERR_NOT_SUPPORTED, vec![Info::new(REASON, pmix::owned::Value::string(&why))]);
                return Upcall::Pending;
            }
        };
        if self.verbose {
            eprintln!("pmixrun: session control ({session}) from {requestor} on {} ranks: {}", all.len(), pmix::strings::error_name(st));
        }
        Upcall::Now(st)
    }

    /// Allocation requests for this node's CPUs (`LauncherHost::change`).
    /// Granted: PMIX_ALLOC_ID, PMIX_ALLOC_NUM_CPUS (what it now holds),
    /// PMIX_ALLOC_NUM_NODES, PMIX_ALLOC_NODE_LIST; refused: the status, and
    /// why in `rpmix.reason`. Either way the requester's namespace then
    /// hears PMIX_NOTIFY_ALLOC_COMPLETE (`alloc_event`), and
    /// PMIX_QUERY_ALLOC_STATUS reports the outcome under the ids the
    /// request named or was given.
    fn allocate(&mut self, proc: &Proc, directive: pmix_alloc_directive_t, data: &[Info], done: pmix::server::host::DoneInfos) -> Upcall {
        let str_of = |k| find(data, k).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
        let (asked_id, req_id) = (str_of(PMIX_ALLOC_ID), str_of(PMIX_ALLOC_REQ_ID));
        let outcome = self.change(directive, data);
        let (st, answer, text, id) = match outcome {
            Ok((id, held)) => {
                if self.verbose {
                    eprintln!("pmixrun: allocation {id} of {proc}: {held} CPUs");
                }
                let answer = vec![
                    Info::new("pmix.alloc.id", pmix::owned::Value::string(&id)),
                    Info::new("pmix.alloc.ncpus", u64_value(held as u64)),
                    Info::new("pmix.alloc.nnodes", u64_value(if held > 0 { 1 } else { 0 })),
                    Info::new("pmix.alloc.nlist", pmix::owned::Value::string(&pmix::rendezvous::hostname())),
                ];
                let text = if held > 0 { format!("granted: {held} CPUs held") } else { "released".to_string() };
                (PMIX_SUCCESS, answer, text, Some(id))
            }
            Err((st, why)) => {
                pmix::pmix_debug!(1, "pmixrun: allocation request from {proc}: {why}");
                let text = format!("refused: {}: {why}", pmix::strings::error_name(st));
                (st, vec![Info::new(REASON, pmix::owned::Value::string(&why))], text, asked_id)
            }
        };
        for k in id.iter().chain(req_id.iter()) {
            self.ledger.outcomes.insert(k.clone(), text.clone());
        }
        let event = alloc_event(st, id.as_deref(), req_id.as_deref(), &answer);
        done(st, answer);
        (self.notify)(PMIX_NOTIFY_ALLOC_COMPLETE, proc, event);
        Upcall::Pending
    }

    fn notify_event(&mut self, code: pmix_status_t, source: &Proc, _range: pmix_data_range_t, info: &[Info], _done: Done) -> Upcall {
        // (for this code the server names the verified sender as the source)
        if code == PMIX_JCTRL_CHECKPOINT_COMPLETE {
            self.send(Event::CheckpointDone(source.clone()));
        }
        if code == PMIX_READY_FOR_DEBUG && find(info, PMIX_BREAKPOINT).and_then(|i| i.as_str()).as_deref() == Some("pmix-init") {
            self.send(Event::WaitingInInit(source.clone()));
        }
        if code == PMIX_DEBUGGER_RELEASE {
            // Whom it releases: its custom range, else the procs it names.
            let targets = [PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_AFFECTED_PROCS, PMIX_EVENT_AFFECTED_PROC]
                .iter()
                .find_map(|k| find(info, k))
                .map(|i| pmix::owned::procs_of_value(i.value_ref()))
                .unwrap_or_default();
            self.send(Event::DebuggerRelease { sender: source.clone(), targets });
        }
        Upcall::Now(PMIX_SUCCESS)
    }

    fn tool_disconnected(&mut self, tool: &Proc) {
        self.send(Event::ToolGone(tool.clone()));
    }

    /// Data goes to each target's feed (io::StdinFeed: written off this
    /// thread); the push completes once every target has it in its pipe.
    fn push_stdin(&mut self, source: &Proc, targets: &[Proc], _directives: &[Info], data: Option<&[u8]>, done: Done) -> Upcall {
        let ts: Vec<Proc> = self.expand(source, targets).into_iter().map(|(p, _)| p).collect();
        if ts.is_empty() {
            // Closing the stdin of ranks that already ended is done already.
            return Upcall::Now(if data.is_none() { PMIX_SUCCESS } else { PMIX_ERR_NOT_FOUND });
        }
        let mut m = self.stdins.lock();
        let Some(d) = data else {
            // No data (PMIX_IOF_COMPLETE): close them (after what is queued).
            for t in ts {
                m.remove(&t);
            }
            return Upcall::Now(PMIX_SUCCESS);
        };
        // Ranks whose stdin pmixrun does not hold (not asked, or closed
        // since) are left out; none at all is an error.
        let ts: Vec<Proc> = ts.into_iter().filter(|t| m.contains_key(t)).collect();
        if ts.is_empty() {
            return Upcall::Now(PMIX_ERR_NOT_FOUND);
        }
        // The last target to finish completes the push: a success if any
        // rank took the data (one that closed its stdin takes no more).
        type Left = Arc<Mutex<(usize, bool, Option<Done>)>>;
        let left: Left = Arc::new(Mutex::new((ts.len(), false, Some(done))));
        let finish = |left: &Left, ok: bool| {
            let mut l = left.lock();
            l.0 -= 1;
            l.1 |= ok;
            if l.0 == 0 {
                let (st, f) = (if l.1 { PMIX_SUCCESS } else { PMIX_ERR_IOF_FAILURE }, l.2.take());
                drop(l);
                if let Some(f) = f {
                    f(st);
                }
            }
        };
        for t in ts {
            let l2 = left.clone();
            let feed = m.get_mut(&t).expect("filtered above");
            if !feed.send(d.to_vec(), Box::new(move |ok| finish(&l2, ok))) {
                // (its writer could not start: counted as not taken)
                m.remove(&t);
                finish(&left, false);
            }
        }
        Upcall::Pending
    }

    fn monitor_alert(&mut self, proc: &Proc, _error: pmix_status_t, id: Option<&str>) {
        let what = id.map(|i| format!(" (monitor {i})")).unwrap_or_default();
        // Only the job's own ranks can stop the job: a stalled tool (a
        // process pmixrun did not start) is reported, nothing more.
        let ours = self.pids.lock().contains_key(proc);
        if !ours {
            eprintln!("pmixrun: {proc} stalled{what} (not a rank of this job: reported only)");
            return;
        }
        match self.on_stall {
            OnStall::Report => eprintln!("pmixrun: {proc} stalled{what}"),
            OnStall::Kill => {
                eprintln!("pmixrun: {proc} stalled{what}: killing it");
                let ts = self.expand(proc, std::slice::from_ref(proc));
                signal_all(&ts, libc::SIGKILL);
            }
            OnStall::Terminate => {
                eprintln!("pmixrun: {proc} stalled{what}: terminating the job");
                self.send(Event::Abort { status: 1, from: format!("the monitor of {proc}") });
            }
        }
    }

    fn abort(&mut self, proc: &Proc, _obj: usize, status: i32, msg: &str, _procs: &[Proc], _done: Done) -> Upcall {
        if !msg.is_empty() && msg != "N/A" {
            eprintln!("pmixrun: {proc} aborted: {msg}");
        }
        self.send(Event::Abort { status, from: proc.to_string() });
        Upcall::Now(PMIX_SUCCESS)
    }

    fn publish(&mut self, proc: &Proc, info: &[Info], _done: Done) -> Upcall {
        let uid = uid_of(info);
        let mut s = self.store.lock();
        for i in info {
            let k = i.key();
            if k.starts_with("pmix.") {
                continue; // directives (range, persistence, uid), not data
            }
            if s.data.get(k).is_some_and(|p| p.uid == uid && p.publisher != *proc) {
                return Upcall::Now(PMIX_ERR_DUPLICATE_KEY);
            }
            s.data.insert(k.to_string(), Published { publisher: proc.clone(), uid, info: i.clone() });
        }
        s.wake();
        Upcall::Now(PMIX_SUCCESS)
    }

    fn lookup(&mut self, _proc: &Proc, keys: &[String], info: &[Info], done: DoneLookup) -> Upcall {
        let uid = uid_of(info);
        // PMIX_WAIT is an int in the Standard (how many values to wait for, 0 = all);
        // Open MPI passes a bool. Either way, present means wait (unless bool false).
        let wait = find(info, PMIX_WAIT).is_some_and(|i| i.value_ref().r#type != PMIX_BOOL || i.truthy());
        let timeout = find(info, PMIX_TIMEOUT).and_then(|i| i.as_u32()).filter(|t| *t > 0);
        let mut s = self.store.lock();
        if let Some(found) = s.find_all(keys, uid) {
            done(PMIX_SUCCESS, found);
            return Upcall::Pending;
        }
        if !wait {
            return Upcall::Now(PMIX_ERR_NOT_FOUND);
        }
        s.next_id += 1;
        let id = s.next_id;
        s.parked.push(ParkedLookup { id, uid, keys: keys.to_vec(), done });
        if let Some(t) = timeout {
            let store = self.store.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(t as u64));
                let mut s = store.lock();
                if let Some(i) = s.parked.iter().position(|l| l.id == id) {
                    let l = s.parked.remove(i);
                    (l.done)(PMIX_ERR_TIMEOUT, Vec::new());
                }
            });
        }
        Upcall::Pending
    }

    fn unpublish(&mut self, proc: &Proc, keys: &[String], info: &[Info], _done: Done) -> Upcall {
        let uid = uid_of(info);
        let mut s = self.store.lock();
        let before = s.data.len();
        s.data.retain(|k, p| !(p.uid == uid && p.publisher == *proc && (keys.is_empty() || keys.contains(k))));
        Upcall::Now(if s.data.len() < before || keys.is_empty() { PMIX_SUCCESS } else { PMIX_ERR_NOT_FOUND })
    }

    fn spawn(&mut self, proc: &Proc, job_info: &[Info], apps: &CArray, done: DoneSpawn) -> Upcall {
        let mut specs = Vec::new();
        for a in apps.apps() {
            // SAFETY: the app array is our own decoded copy.
            let spec = unsafe {
                let s = |p: *const core::ffi::c_char| pmix::cmem::cstr_bytes(p).map(|b| String::from_utf8_lossy(b).into_owned());
                let list = |v: *mut *mut core::ffi::c_char| (0..pmix::cmem::argv_len(v)).filter_map(|k| s(*v.add(k))).collect::<Vec<_>>();
                AppSpec {
                    cmd: s(a.cmd).unwrap_or_default(),
                    argv: list(a.argv),
                    env: list(a.env),
                    cwd: s(a.cwd),
                    maxprocs: a.maxprocs.max(1) as u32,
                    pset: Info::copy_array(a.info, a.ninfo).ok().and_then(|i| find(&i, PMIX_PSET_NAME).and_then(|i| i.as_str())),
                }
            };
            if spec.cmd.is_empty() {
                return Upcall::Now(PMIX_ERR_BAD_PARAM);
            }
            if let Some(e) = spec.pset.as_deref().and_then(crate::options::bad_pset_name) {
                eprintln!("pmixrun: spawn from {proc}: PMIX_PSET_NAME {e}");
                return Upcall::Now(PMIX_ERR_BAD_PARAM);
            }
            specs.push(spec);
        }
        if specs.is_empty() {
            return Upcall::Now(PMIX_ERR_BAD_PARAM);
        }
        self.send(Event::Spawn(SpawnReq { parent: proc.clone(), apps: specs, directives: job_info.to_vec(), done }));
        Upcall::Pending
    }

    fn log(&mut self, proc: &Proc, data: &[Info], _directives: &[Info], _done: Done) -> Upcall {
        for i in data {
            let Some(text) = log_text(i) else { continue };
            if i.is(PMIX_LOG_STDOUT) {
                println!("{text}");
            } else {
                eprintln!("pmixrun: [{proc}] {text}");
            }
        }
        if self.verbose {
            eprintln!("pmixrun: log from {proc}: {} entries", data.len());
        }
        Upcall::Now(PMIX_SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix::owned::Value;

    fn host() -> (LauncherHost, std::sync::mpsc::Receiver<Event>) {
        let (tx, rx) = std::sync::mpsc::channel();
        (LauncherHost::new(tx, Default::default(), Default::default(), OnStall::Report, false, false), rx)
    }

    /// A session-control request's answer: (status, its `rpmix.reason`).
    fn control(h: &mut LauncherHost, dirs: &[Info]) -> (pmix_status_t, Option<String>) {
        let got = Arc::new(Mutex::new(None));
        let g = got.clone();
        match h.session_control(&Proc::new("tool", 0), 7, dirs, Box::new(move |st, infos| *g.lock() = Some((st, infos)))) {
            Upcall::Now(st) => (st, None),
            Upcall::Pending => {
                let (st, infos) = got.lock().take().expect("answered");
                (st, infos.iter().find(|i| i.key() == REASON).and_then(|i| i.as_str()))
            }
        }
    }

    #[test]
    fn session_control_refuses_what_pmixrun_does_not_do() {
        let (mut h, rx) = host();
        for dirs in [
            vec![Info::new("pmix.ssn.preempt", Value::boolean(true))],
            vec![Info::new("pmix.ssn.restore", Value::boolean(true))],
            vec![Info::new("pmix.ssn.pause", Value::boolean(true)), Info::new("pmix.ssn.complete", Value::boolean(true))],
            vec![Info::new("pmix.ssnctrl.id", Value::string("x"))],
            Vec::new(),
        ] {
            let (st, why) = control(&mut h, &dirs);
            let keys = dirs.iter().map(|i| i.key().to_string()).collect::<Vec<_>>();
            assert_eq!(st, PMIX_ERR_NOT_SUPPORTED, "{keys:?}");
            assert!(why.is_some_and(|w| w.contains("not supported") || w.contains("no directive")), "the reason of {keys:?}");
        }
        assert!(rx.try_recv().is_err(), "a refused request acted");
    }

    #[test]
    fn session_control_terminate_ends_the_jobs() {
        let (mut h, rx) = host();
        let dirs = [Info::new("pmix.ssn.terminate", Value::boolean(true)), Info::new("pmix.ssnctrl.id", Value::string("x"))];
        assert_eq!(control(&mut h, &dirs), (PMIX_SUCCESS, None));
        assert!(matches!(rx.try_recv(), Ok(Event::EndSession)));
        // (no rank to pause: done at once)
        assert_eq!(control(&mut h, &[Info::new("pmix.ssn.pause", Value::boolean(true))]), (PMIX_SUCCESS, None));
    }
}

#[cfg(test)]
mod alloc_tests {
    use super::*;
    use pmix::owned::Value;

    /// The answer of one request: (status, PMIX_ALLOC_ID, CPUs held).
    fn ask(h: &mut LauncherHost, directive: pmix_alloc_directive_t, data: Vec<Info>) -> (pmix_status_t, Option<String>, Option<u32>) {
        let got = Arc::new(Mutex::new(None));
        let g = got.clone();
        let u = h.allocate(&Proc::new("tool", 0), directive, &data, Box::new(move |st, infos| *g.lock() = Some((st, infos))));
        let (st, infos) = match u {
            Upcall::Now(st) => (st, Vec::new()),
            Upcall::Pending => got.lock().take().expect("answered"),
        };
        (st, find(&infos, PMIX_ALLOC_ID).and_then(|i| i.as_str()), find(&infos, PMIX_ALLOC_NUM_CPUS).and_then(|i| i.as_u32()))
    }

    #[test]
    fn allocations_are_granted_against_the_cpus_of_this_node() {
        let (tx, _rx) = std::sync::mpsc::channel();
        let mut h = LauncherHost::new(tx, Default::default(), Default::default(), OnStall::Report, false, false);
        h.cpus = 4;
        let cpus = |n: u32| Info::new("pmix.alloc.ncpus", u64_value(n as u64));
        let (st, id, n) = ask(&mut h, PMIX_ALLOC_NEW, vec![cpus(3)]);
        assert_eq!((st, n), (PMIX_SUCCESS, Some(3)));
        let id = id.expect("an allocation id");
        assert_eq!(ask(&mut h, PMIX_ALLOC_NEW, vec![cpus(2)]).0, PMIX_ERR_OUT_OF_RESOURCE, "only 1 CPU is free");
        let with_id = |v: Vec<Info>| [vec![Info::new("pmix.alloc.id", Value::string(&id))], v].concat();
        assert_eq!(ask(&mut h, PMIX_ALLOC_EXTEND, with_id(vec![cpus(1)])), (PMIX_SUCCESS, Some(id.clone()), Some(4)));
        assert_eq!(ask(&mut h, PMIX_ALLOC_EXTEND, with_id(vec![cpus(1)])).0, PMIX_ERR_OUT_OF_RESOURCE);
        assert_eq!(ask(&mut h, PMIX_ALLOC_RELEASE, with_id(vec![cpus(5)])).0, PMIX_ERR_BAD_PARAM, "more than it holds");
        assert_eq!(ask(&mut h, PMIX_ALLOC_RELEASE, with_id(vec![cpus(2)])), (PMIX_SUCCESS, Some(id.clone()), Some(2)));
        assert_eq!(ask(&mut h, PMIX_ALLOC_NEW, vec![cpus(2)]).0, PMIX_SUCCESS, "2 CPUs free again");
        assert_eq!(ask(&mut h, PMIX_ALLOC_RELEASE, with_id(Vec::new())), (PMIX_SUCCESS, Some(id.clone()), Some(0)));
        assert_eq!(ask(&mut h, PMIX_ALLOC_EXTEND, with_id(Vec::new())).0, PMIX_ERR_NOT_FOUND, "released: gone");
        assert_eq!(ask(&mut h, PMIX_ALLOC_EXTEND, vec![cpus(1)]).0, PMIX_ERR_BAD_PARAM, "no id");
        assert_eq!(ask(&mut h, PMIX_ALLOC_NEW, vec![Info::new("pmix.alloc.nnodes", u64_value(2))]).0, PMIX_ERR_OUT_OF_RESOURCE);
        assert_eq!(ask(&mut h, PMIX_ALLOC_NEW, vec![cpus(0)]).0, PMIX_ERR_BAD_PARAM);
        assert_eq!(ask(&mut h, PMIX_ALLOC_REAQUIRE, with_id(Vec::new())).0, PMIX_ERR_NOT_SUPPORTED);
    }

    fn by_key<'a>(infos: &'a [Info], key: &str) -> Option<&'a Info> {
        infos.iter().find(|i| i.key() == key)
    }

    /// The events a host raises, captured: (code, requester, infos).
    type Raised = Arc<Mutex<Vec<(pmix_status_t, Proc, Vec<Info>)>>>;

    fn capturing(cpus: u32) -> (LauncherHost, Raised) {
        let (tx, _rx) = std::sync::mpsc::channel();
        let mut h = LauncherHost::new(tx, Default::default(), Default::default(), OnStall::Report, false, false);
        h.cpus = cpus;
        let raised: Raised = Default::default();
        let r = raised.clone();
        h.notify = Arc::new(move |code, to, info| r.lock().push((code, to.clone(), info)));
        (h, raised)
    }

    /// PMIX_QUERY_ALLOC_STATUS with `key` = `id` as its qualifier: (status, the string).
    fn status_of(h: &mut LauncherHost, key: &str, id: &str) -> (pmix_status_t, Option<String>) {
        let argv = pmix::cmem::argv_from(&["pmix.query.alloc"]);
        let quals = [Info::new(key, Value::string(id))];
        // SAFETY: all-zero is a valid query; it borrows `argv` and `quals`
        // (Info is a transparent pmix_info_t) until the copy below.
        let mut q: pmix_query_t = unsafe { core::mem::zeroed() };
        q.keys = argv;
        q.qualifiers = quals.as_ptr() as *mut pmix_info_t;
        q.nqual = quals.len();
        // SAFETY: `q` is a valid query; the copy is deep.
        let queries = unsafe { CArray::copy(pmix::data::kind::Kind::Query, &q as *const pmix_query_t as *const u8, 1) }.unwrap();
        // SAFETY: made by argv_from, no longer referenced.
        unsafe { pmix::cmem::argv_free(argv) };
        let got = Arc::new(Mutex::new(None));
        let g = got.clone();
        let (st, infos) = match h.query(&Proc::new("app", 2), &queries, Box::new(move |st, infos| *g.lock() = Some((st, infos)))) {
            Upcall::Now(st) => (st, Vec::new()),
            Upcall::Pending => got.lock().take().expect("answered"),
        };
        (st, find(&infos, PMIX_QUERY_ALLOC_STATUS).and_then(|i| i.as_str()))
    }

    /// OpenPMIx's examples/alloc.c: rank 0 asks for a new allocation named
    /// by its PMIX_ALLOC_ID (info[0] loaded twice: the second info is
    /// empty); its namespace hears PMIX_NOTIFY_ALLOC_COMPLETE with that id
    /// and the status; a query of that id reports it; an unknown id is
    /// NOT_FOUND.
    #[test]
    fn a_completed_request_is_notified_and_queried() {
        let (mut h, raised) = capturing(4);
        // SAFETY: an all-zero info is what PMIX_INFO_CREATE leaves: an empty key, PMIX_UNDEF.
        let empty: Info = unsafe { core::mem::zeroed() };
        let data = vec![Info::new("pmix.alloc.id", Value::string("MYALLOCATION")), empty];
        assert_eq!(ask(&mut h, PMIX_ALLOC_NEW, data), (PMIX_SUCCESS, Some("MYALLOCATION".into()), Some(1)));
        let ev = raised.lock().pop().expect("an event");
        assert_eq!((ev.0, ev.1.clone()), (PMIX_NOTIFY_ALLOC_COMPLETE, Proc::new("tool", 0)));
        assert_eq!(find(&ev.2, PMIX_ALLOC_ID).and_then(|i| i.as_str()).as_deref(), Some("MYALLOCATION"));
        let st = by_key(&ev.2, ALLOC_STATUS).map(|i| i.value_ref().r#type);
        assert_eq!(st, Some(PMIX_STATUS));
        assert_eq!(find(&ev.2, PMIX_ALLOC_NUM_CPUS).and_then(|i| i.as_u32()), Some(1));
        assert_eq!(status_of(&mut h, "pmix.alloc.id", "MYALLOCATION"), (PMIX_SUCCESS, Some("granted: 1 CPUs held".into())));
        assert_eq!(status_of(&mut h, "pmix.alloc.id", "nobody's").0, PMIX_ERR_NOT_FOUND);
        assert_eq!(status_of(&mut h, "pmix.alloc.nnodes", "an id, but under no id key").0, PMIX_ERR_BAD_PARAM);

        // The same name again, while held: refused, with the reason in
        // the answer and in the event; the status reports the refusal.
        let got = Arc::new(Mutex::new(None));
        let g = got.clone();
        let again = [Info::new("pmix.alloc.id", Value::string("MYALLOCATION")), Info::new("pmix.alloc.reqid", Value::string("second"))];
        assert!(matches!(h.allocate(&Proc::new("tool", 0), PMIX_ALLOC_NEW, &again, Box::new(move |st, i| *g.lock() = Some((st, i)))), Upcall::Pending));
        let (st, answer) = got.lock().take().expect("answered");
        assert_eq!(st, PMIX_ERR_EXISTS);
        assert!(by_key(&answer, REASON).and_then(|i| i.as_str()).is_some_and(|r| r.contains("held")), "the reason");
        let ev = raised.lock().pop().expect("an event");
        assert_eq!(find(&ev.2, PMIX_ALLOC_REQ_ID).and_then(|i| i.as_str()).as_deref(), Some("second"));
        assert!(by_key(&ev.2, REASON).is_some());
        // SAFETY: a status value, per its type.
        assert_eq!(by_key(&ev.2, ALLOC_STATUS).map(|i| unsafe { i.value_ref().data.status }), Some(PMIX_ERR_EXISTS));
        let (st, text) = status_of(&mut h, "pmix.alloc.reqid", "second");
        assert_eq!(st, PMIX_SUCCESS);
        assert!(text.is_some_and(|t| t.starts_with("refused: ")));

        // Released: the allocation's status says so.
        assert_eq!(ask(&mut h, PMIX_ALLOC_RELEASE, vec![Info::new("pmix.alloc.id", Value::string("MYALLOCATION"))]).0, PMIX_SUCCESS);
        assert_eq!(status_of(&mut h, "pmix.alloc.id", "MYALLOCATION"), (PMIX_SUCCESS, Some("released".into())));
        assert_eq!(raised.lock().len(), 1, "one event per request");
    }
}
