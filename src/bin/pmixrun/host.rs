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
}

impl LauncherHost {
    pub fn new(tx: Sender<Event>, pids: Pids, stdins: crate::io::Stdins, on_stall: OnStall, stop_on_exec: bool, verbose: bool) -> LauncherHost {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        LauncherHost { tx: Mutex::new(tx), ledger: Ledger::default(), cpus, store: Arc::new(Mutex::new(Store::default())), pids, stdins, on_stall, stop_on_exec, verbose }
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
    /// debugger attributes pmixrun acts on. Other keys are the server's
    /// (this upcall declines them all, so the server answers).
    fn query(&mut self, _proc: &Proc, queries: &CArray, done: pmix::server::host::DoneInfos) -> Upcall {
        let mut keys = Vec::new();
        for q in queries.queries() {
            // SAFETY: keys is NULL or a NULL-terminated argv (the server's copy).
            let n = unsafe { pmix::cmem::argv_len(q.keys) };
            for k in 0..n {
                // SAFETY: index within argv.
                keys.push(unsafe { pmix::cmem::cstr_bytes(*q.keys.add(k)) }.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default());
            }
        }
        if keys.is_empty() || keys.iter().any(|k| k != "pmix.qry.spawn" && k != "pmix.qry.debug") {
            return Upcall::Now(PMIX_ERR_NOT_SUPPORTED);
        }
        let answers = keys
            .iter()
            .map(|k| {
                let v = match (k.as_str(), self.stop_on_exec) {
                    ("pmix.qry.spawn", true) => format!("{SPAWN_SUPPORT},{STOP_ON_EXEC}"),
                    ("pmix.qry.spawn", false) => SPAWN_SUPPORT.to_string(),
                    (_, true) => format!("{DEBUG_SUPPORT},{STOP_ON_EXEC}"),
                    (_, false) => DEBUG_SUPPORT.to_string(),
                };
                Info::new(k, pmix::owned::Value::string(&v))
            })
            .collect();
        done(PMIX_SUCCESS, answers);
        Upcall::Pending
    }

    /// pmixrun's session is the set of jobs it runs (whatever the id asked:
    /// it runs one): pause (SIGSTOP), resume (SIGCONT), signal every rank
    /// of every job, or terminate every job (as on SIGTERM, with the grace
    /// period; a persistent pmixrun goes on, ready for new jobs).
    fn session_control(&mut self, requestor: &Proc, session: u32, directives: &[Info], _done: pmix::server::host::DoneInfos) -> Upcall {
        // (PMIx 5's keys, not in the 4.2.2 header)
        let given = |k: &str| directives.iter().find(|i| i.key() == k);
        let flag = |k: &str| given(k).is_some_and(|i| i.truthy());
        let all: Vec<(Proc, i32)> = self.pids.lock().iter().map(|(p, pid)| (p.clone(), *pid)).collect();
        let refuse = |why: &str| {
            pmix::pmix_debug!(1, "pmixrun: session control from {requestor}: {why}");
            Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
        };
        let known = ["pmix.ssn.pause", "pmix.ssn.resume", "pmix.ssn.terminate", "pmix.ssn.sig", "pmix.ssnctrl.id"];
        if let Some(other) = directives.iter().find(|i| !known.contains(&i.key())) {
            return refuse(&format!("{} is not supported (pause, resume, terminate and signal are)", other.key()));
        }
        let st = if flag("pmix.ssn.pause") {
            signal_all(&all, libc::SIGSTOP)
        } else if flag("pmix.ssn.resume") {
            signal_all(&all, libc::SIGCONT)
        } else if flag("pmix.ssn.terminate") {
            self.send(Event::EndSession);
            PMIX_SUCCESS
        } else if let Some(sig) = given("pmix.ssn.sig").and_then(|i| i.as_u32()) {
            signal_all(&all, sig as i32)
        } else {
            return refuse("no directive pmixrun carries out (pause, resume, terminate, signal)");
        };
        if self.verbose {
            eprintln!("pmixrun: session control ({session}) from {requestor} on {} ranks: {}", all.len(), pmix::strings::error_name(st));
        }
        Upcall::Now(st)
    }

    /// Allocation requests for this node's CPUs, against what this process
    /// may use: a new allocation (PMIX_ALLOC_NUM_CPUS, default 1; at most
    /// one node), more CPUs for one (PMIX_ALLOC_ID), or some or all of them
    /// back. Granted: PMIX_ALLOC_ID, PMIX_ALLOC_NUM_CPUS (what it now holds),
    /// PMIX_ALLOC_NUM_NODES, PMIX_ALLOC_NODE_LIST. More than is free:
    /// PMIX_ERR_OUT_OF_RESOURCE. A ledger: jobs are not confined to it.
    fn allocate(&mut self, proc: &Proc, directive: pmix_alloc_directive_t, data: &[Info], done: pmix::server::host::DoneInfos) -> Upcall {
        let why = |st: pmix_status_t, msg: String| {
            pmix::pmix_debug!(1, "pmixrun: allocation request from {proc}: {msg}");
            Upcall::Now(st)
        };
        let cpus = match find(data, PMIX_ALLOC_NUM_CPUS) {
            None => None,
            Some(i) => match i.as_u32().filter(|n| *n > 0) {
                Some(n) => Some(n),
                None => return why(PMIX_ERR_BAD_PARAM, "PMIX_ALLOC_NUM_CPUS is not a positive number".into()),
            },
        };
        if find(data, PMIX_ALLOC_NUM_NODES).and_then(|i| i.as_u32()).is_some_and(|n| n > 1) {
            return why(PMIX_ERR_OUT_OF_RESOURCE, "more than one node (pmixrun has this one)".into());
        }
        let used: u32 = self.ledger.held.iter().map(|(_, n)| n).sum();
        let free = self.cpus.saturating_sub(used);
        let id = find(data, PMIX_ALLOC_ID).and_then(|i| i.as_str());
        let slot = id.as_ref().and_then(|id| self.ledger.held.iter().position(|(x, _)| x == id));
        let (id, held) = match directive {
            PMIX_ALLOC_NEW => {
                let n = cpus.unwrap_or(1);
                if n > free {
                    return why(PMIX_ERR_OUT_OF_RESOURCE, format!("{n} CPUs asked, {free} of {} free", self.cpus));
                }
                self.ledger.next += 1;
                let id = format!("rpmixrun.{}.alloc.{}", std::process::id(), self.ledger.next);
                self.ledger.held.push((id.clone(), n));
                (id, n)
            }
            PMIX_ALLOC_EXTEND | PMIX_ALLOC_RELEASE => {
                let (Some(id), Some(k)) = (id, slot) else {
                    return why(if slot.is_none() && find(data, PMIX_ALLOC_ID).is_some() { PMIX_ERR_NOT_FOUND } else { PMIX_ERR_BAD_PARAM }, "no allocation of this PMIX_ALLOC_ID".into());
                };
                let have = self.ledger.held[k].1;
                if directive == PMIX_ALLOC_EXTEND {
                    let n = cpus.unwrap_or(1);
                    if n > free {
                        return why(PMIX_ERR_OUT_OF_RESOURCE, format!("{n} more CPUs asked, {free} of {} free", self.cpus));
                    }
                    self.ledger.held[k].1 += n;
                    (id, have + n)
                } else {
                    let n = cpus.unwrap_or(have);
                    if n > have {
                        return why(PMIX_ERR_BAD_PARAM, format!("{n} CPUs released, {id} holds {have}"));
                    }
                    if n == have {
                        self.ledger.held.remove(k);
                    } else {
                        self.ledger.held[k].1 -= n;
                    }
                    (id, have - n)
                }
            }
            other => return why(PMIX_ERR_NOT_SUPPORTED, format!("directive {other} is not supported (new, extend and release are)")),
        };
        if self.verbose {
            eprintln!("pmixrun: allocation {id} of {proc}: {held} CPUs");
        }
        let answer = vec![
            Info::new("pmix.alloc.id", pmix::owned::Value::string(&id)),
            Info::new("pmix.alloc.ncpus", u64_value(held as u64)),
            Info::new("pmix.alloc.nnodes", u64_value(if held > 0 { 1 } else { 0 })),
            Info::new("pmix.alloc.nlist", pmix::owned::Value::string(&pmix::rendezvous::hostname())),
        ];
        done(PMIX_SUCCESS, answer);
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

    fn answer(u: Upcall) -> pmix_status_t {
        match u {
            Upcall::Now(st) => st,
            Upcall::Pending => panic!("session control answers at once"),
        }
    }

    #[test]
    fn session_control_refuses_what_pmixrun_does_not_do() {
        let (mut h, rx) = host();
        let me = Proc::new("tool", 0);
        for dirs in [
            vec![Info::new("pmix.ssn.preempt", Value::boolean(true))],
            vec![Info::new("pmix.ssn.restore", Value::boolean(true))],
            vec![Info::new("pmix.ssn.pause", Value::boolean(true)), Info::new("pmix.ssn.complete", Value::boolean(true))],
            vec![Info::new("pmix.ssnctrl.id", Value::string("x"))],
            Vec::new(),
        ] {
            assert_eq!(answer(h.session_control(&me, 1, &dirs, Box::new(|_, _| {}))), PMIX_ERR_NOT_SUPPORTED, "{:?}", dirs.iter().map(|i| i.key().to_string()).collect::<Vec<_>>());
        }
        assert!(rx.try_recv().is_err(), "a refused request acted");
    }

    #[test]
    fn session_control_terminate_ends_the_jobs() {
        let (mut h, rx) = host();
        let me = Proc::new("tool", 0);
        let dirs = [Info::new("pmix.ssn.terminate", Value::boolean(true)), Info::new("pmix.ssnctrl.id", Value::string("x"))];
        assert_eq!(answer(h.session_control(&me, 7, &dirs, Box::new(|_, _| {}))), PMIX_SUCCESS);
        assert!(matches!(rx.try_recv(), Ok(Event::EndSession)));
        // (no rank to pause: done at once)
        assert_eq!(answer(h.session_control(&me, 7, &[Info::new("pmix.ssn.pause", Value::boolean(true))], Box::new(|_, _| {}))), PMIX_SUCCESS);
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
}
