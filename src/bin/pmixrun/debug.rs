//! Jobs held for a debugger, and who may let them go.
//!
//! A tool's spawn may hold ranks two ways:
//! - PMIX_DEBUG_STOP_IN_INIT: the rank itself waits in PMIx_Init for
//!   PMIX_DEBUGGER_RELEASE (src/client/debugger.rs); the launcher only
//!   records which ranks still wait.
//! - PMIX_DEBUG_STOP_ON_EXEC: the launcher stops the rank at the first
//!   instruction of its program. The rank's child, before its exec
//!   (exec.rs), asks to be traced (PTRACE_TRACEME); the exec's SIGTRAP stops it;
//!   the launcher's main thread (its tracer: the thread that started it)
//!   detaches with SIGSTOP, so the rank stays stopped, untraced, free for a
//!   debugger to attach. When every such rank of the job is stopped, the tool
//!   hears PMIX_READY_FOR_DEBUG. The release (PMIX_DEBUGGER_RELEASE, from the
//!   tool or its debugger daemons) is a SIGCONT.
//!
//! Nothing stays held without an owner: when the tool that spawned the job
//! is gone and no debugger daemon of the job runs any more, the launcher
//! releases what is still held itself (a debugger that crashed leaves a
//! running job, as with a debugger detaching from a process).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use pmix::abi::*;
use pmix::owned::{find, Info, Proc, RanksNamed};

struct Hold {
    requester: Proc,
    requester_gone: bool,
    /// Debugger-daemon jobs of this job still running.
    daemons: HashSet<String>,
    /// Ranks to stop on exec whose exec has not been seen yet: pid -> rank.
    tracing: HashMap<i32, u32>,
    /// Ranks stopped after their exec: rank -> pid.
    stopped: BTreeMap<u32, i32>,
    /// Ranks asked to wait in PMIx_Init, and those of them released since.
    /// (A release reaches only ranks already connected: one that reports
    /// it waits after its release is released again, by the launcher.)
    in_init: BTreeSet<u32>,
    init_released: BTreeSet<u32>,
    /// Ranks that reported waiting in init (PMIX_READY_FOR_DEBUG).
    init_waiting: BTreeSet<u32>,
    ready_told: bool,
    /// The whole job was released (or left without a debugger): ranks not
    /// at their exec or in PMIx_Init yet run on when they get there.
    let_go: bool,
}

/// What the launcher must do after a change: tell a tool its job is ready
/// for a debugger, or release ranks waiting in PMIx_Init.
pub enum Action {
    Ready { held: Vec<Proc>, requester: Proc },
    ReleaseInit(Vec<Proc>),
}

#[derive(Default)]
pub struct Holds {
    /// By namespace, until the job ends.
    jobs: HashMap<String, Hold>,
    /// Debugger-daemon job -> the job it debugs.
    daemon_of: HashMap<String, String>,
}

/// The ranks of a job of `size` a stop directive names, in order
/// (`Value::ranks_named`: a flag, one rank, or procs).
pub fn ranks_named(i: &Info, nspace: &str, size: u32) -> Vec<u32> {
    match i.ranks_named(nspace) {
        RanksNamed::All => (0..size).collect(),
        RanksNamed::These(mut ranks) => {
            ranks.retain(|r| *r < size);
            ranks.sort_unstable();
            ranks.dedup();
            ranks
        }
    }
}

/// Whether this process may trace its children: tried once, in a child,
/// before any other thread runs.
pub fn probe_stop_on_exec() -> bool {
    crate::ptrace_probe::may_trace_children()
}

impl Holds {
    /// The ranks of a spawn's job to stop on exec (none unless asked).
    pub fn wanted_on_exec(nspace: &str, size: u32, directives: &[Info]) -> BTreeSet<u32> {
        find(directives, PMIX_DEBUG_STOP_ON_EXEC).map(|i| ranks_named(i, nspace, size)).unwrap_or_default().into_iter().collect()
    }

    /// A job spawned by `requester` with `directives` is starting: its hold
    /// (if it asks for one) lives until the job ends.
    pub fn on_launch(&mut self, nspace: &str, requester: &Proc, size: u32, directives: &[Info]) {
        // Stop in init: OpenPMIx's client stops whatever ranks the value
        // names (rpmix's only those named), so every rank may be waiting.
        let in_init: BTreeSet<u32> = match find(directives, PMIX_DEBUG_STOP_IN_INIT) {
            Some(i) if !ranks_named(i, nspace, size).is_empty() => (0..size).collect(),
            _ => BTreeSet::new(),
        };
        if !in_init.is_empty() || !Self::wanted_on_exec(nspace, size, directives).is_empty() {
            let hold = Hold {
                requester: requester.clone(),
                requester_gone: false,
                daemons: HashSet::new(),
                tracing: HashMap::new(),
                stopped: BTreeMap::new(),
                in_init,
                init_released: BTreeSet::new(),
                init_waiting: BTreeSet::new(),
                ready_told: false,
                let_go: false,
            };
            self.jobs.insert(nspace.to_string(), hold);
        }
    }

    /// Rank `rank` of `nspace` started traced as `pid`.
    pub fn traced(&mut self, nspace: &str, rank: u32, pid: i32) {
        if let Some(h) = self.jobs.get_mut(nspace) {
            h.tracing.insert(pid, rank);
        }
    }

    /// `daemons` (a debugger-daemon job) debugs `target`.
    pub fn daemons_started(&mut self, daemons: &str, target: &str) {
        if let Some(h) = self.jobs.get_mut(target) {
            h.daemons.insert(daemons.to_string());
            self.daemon_of.insert(daemons.to_string(), target.to_string());
        }
    }

    /// The reaper saw traced child `pid` stop with `sig` (on the main
    /// thread: the tracer). The exec's SIGTRAP: detach, leaving it stopped.
    /// Any other signal: let it have it and go on to its exec.
    pub fn stopped(&mut self, pid: i32, sig: i32) -> Option<Action> {
        let Some((ns, h)) = self.jobs.iter_mut().find(|(_, h)| h.tracing.contains_key(&pid)) else {
            // (only traced children report stops: one we no longer know of
            // is let go rather than left stopped under us)
            // SAFETY: pid is a child of ours in a ptrace stop, or the call fails.
            unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, 0, 0) };
            return None;
        };
        if sig != libc::SIGTRAP {
            // A stop signal is dropped (injected again, it would come back
            // as this same stop, over and over); the rank is stopped at its
            // exec anyway. Any other signal it gets.
            let pass = if matches!(sig, libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU) { 0 } else { sig };
            // SAFETY: pid is our tracee, in a signal-delivery stop.
            unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, pass as libc::c_long) };
            return None;
        }
        let rank = h.tracing.remove(&pid)?;
        if h.let_go {
            // SAFETY: pid is our tracee, stopped at its exec; no signal: it runs.
            unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, 0, 0) };
        } else {
            // SAFETY: pid is our tracee, stopped at its exec; the SIGSTOP it
            // is left with keeps it stopped once untraced.
            if unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, 0, libc::SIGSTOP as libc::c_long) } != 0 {
                pmix::pmix_debug!(1, "pmixrun: detaching from {ns}:{rank} (pid {pid}): {}", std::io::Error::last_os_error());
            } else if !wait_stopped(pid) {
                pmix::pmix_debug!(1, "pmixrun: {ns}:{rank} (pid {pid}) not seen stopped after its detach");
            }
            h.stopped.insert(rank, pid);
        }
        h.ready_if_all_stopped(ns)
    }

    /// Rank `proc` reports it waits in PMIx_Init (PMIX_READY_FOR_DEBUG): if
    /// it was released before it could hear it, release it again.
    pub fn waiting_in_init(&mut self, proc: &Proc) -> Option<Action> {
        let h = self.jobs.get_mut(&proc.nspace)?;
        h.init_waiting.insert(proc.rank);
        let released = h.in_init.contains(&proc.rank) && (h.let_go || h.init_released.contains(&proc.rank));
        released.then(|| Action::ReleaseInit(vec![proc.clone()]))
    }

    /// PMIX_DEBUGGER_RELEASE from `sender` for `targets` (none named: the
    /// jobs `sender` spawned or debugs as a daemon). Ranks stopped on exec
    /// are continued here; ranks in init got the event from the server and
    /// are only marked released.
    pub fn release(&mut self, sender: &Proc, targets: &[Proc]) {
        for (ns, h) in self.jobs.iter_mut() {
            let whole_job = if targets.is_empty() {
                h.requester == *sender || h.daemons.contains(&sender.nspace)
            } else {
                targets.iter().any(|t| t.nspace == *ns && t.rank == PMIX_RANK_WILDCARD)
            };
            let named = |r: u32| whole_job || targets.iter().any(|t| t.names(&Proc::new(ns, r)));
            let init: Vec<u32> = h.in_init.iter().copied().filter(|r| named(*r)).collect();
            h.init_released.extend(init);
            let stopped: Vec<u32> = h.stopped.keys().copied().filter(|r| named(*r)).collect();
            for r in stopped {
                if let Some(pid) = h.stopped.remove(&r) {
                    continue_rank(pid);
                }
            }
            h.let_go |= whole_job;
        }
    }

    /// `tool` disconnected: the holds it owned with no daemon left end.
    pub fn requester_gone(&mut self, tool: &Proc) -> Vec<Action> {
        let mut owned = Vec::new();
        for (ns, h) in self.jobs.iter_mut().filter(|(_, h)| h.requester == *tool) {
            h.requester_gone = true;
            owned.push(ns.clone());
        }
        owned.iter().filter_map(|ns| self.release_if_orphaned(ns)).collect()
    }

    /// Job `ns` is being stopped: nothing of it stays held (a rank still
    /// to stop at its exec runs on, to take its SIGTERM).
    pub fn let_go(&mut self, ns: Option<&str>) {
        for (_, h) in self.jobs.iter_mut().filter(|(n, _)| ns.map_or(true, |x| x == n.as_str())) {
            h.let_go = true;
        }
    }

    /// Job `ns` ended: its hold goes; if it was a debugger-daemon job, its
    /// target may be left without a debugger.
    pub fn job_ended(&mut self, ns: &str) -> Option<Action> {
        self.jobs.remove(ns);
        let target = self.daemon_of.remove(ns)?;
        self.jobs.get_mut(&target)?.daemons.remove(ns);
        self.release_if_orphaned(&target)
    }

    /// A rank ended before its hold did (it may have been the last one the
    /// ready-for-debug notice waited for).
    pub fn rank_exited(&mut self, pid: i32) -> Option<Action> {
        let (ns, h) = self.jobs.iter_mut().find(|(_, h)| h.tracing.contains_key(&pid) || h.stopped.values().any(|p| *p == pid))?;
        h.tracing.remove(&pid);
        h.stopped.retain(|_, p| *p != pid);
        h.ready_if_all_stopped(ns)
    }

    fn release_if_orphaned(&mut self, ns: &str) -> Option<Action> {
        let h = self.jobs.get_mut(ns)?;
        let maybe_in_init = h.in_init.difference(&h.init_released).next().is_some();
        if !h.requester_gone || !h.daemons.is_empty() || h.let_go || (h.tracing.is_empty() && h.stopped.is_empty() && !maybe_in_init) {
            return None;
        }
        // (the ranks known to wait now; any reporting later is released then)
        let waiting: Vec<u32> = h.init_waiting.difference(&h.init_released).copied().collect();
        eprintln!("pmixrun: job {ns}: its debugger is gone; releasing its held ranks");
        h.let_go = true;
        for (_, pid) in std::mem::take(&mut h.stopped) {
            continue_rank(pid);
        }
        h.init_released.extend(waiting.iter().copied());
        let init: Vec<Proc> = waiting.into_iter().map(|r| Proc::new(ns, r)).collect();
        (!init.is_empty()).then_some(Action::ReleaseInit(init))
    }
}

impl Hold {
    /// Every rank to stop on exec is stopped (or gone): tell the tool once.
    fn ready_if_all_stopped(&mut self, ns: &str) -> Option<Action> {
        if !self.tracing.is_empty() || self.stopped.is_empty() || self.ready_told || self.requester_gone || self.let_go {
            return None;
        }
        self.ready_told = true;
        let held = self.stopped.keys().map(|r| Proc::new(ns, *r)).collect();
        Some(Action::Ready { held, requester: self.requester.clone() })
    }
}

fn continue_rank(pid: i32) {
    // SAFETY: signalling the process group pmixrun created for the rank.
    unsafe { libc::kill(-pid, libc::SIGCONT) };
}

/// Waits (at most a second) until `pid` is in a stop: detached with a
/// SIGSTOP, a rank runs for a moment before the signal stops it, and the
/// tool told PMIX_READY_FOR_DEBUG must find it stopped, not running.
fn wait_stopped(pid: i32) -> bool {
    let path = format!("/proc/{pid}/stat");
    let end = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        let state = std::fs::read_to_string(&path).ok().and_then(|s| s.rfind(')').and_then(|i| s[i + 1..].split_whitespace().next().map(str::to_string)));
        match state.as_deref() {
            Some("T") | Some("t") => return true,
            // (gone, or a zombie: nothing to wait for)
            None | Some("Z") | Some("X") => return false,
            _ if std::time::Instant::now() >= end => return false,
            _ => std::thread::sleep(std::time::Duration::from_micros(100)),
        }
    }
}
