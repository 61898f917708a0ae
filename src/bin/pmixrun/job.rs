//! Command line, job registration, process launch and reaping, signals.

use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, SigSet, Signal};
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::{getgid, getuid, Pid};

use pmix::abi::*;
use pmix::owned::{Info, Proc, Value};
use pmix::server::nspace::ExitOf;

use crate::host::{AppSpec, SpawnReq};

use crate::Event;

/// PMIx 5's PMIX_SPAWN_CHILD_SEP: false ties a spawned job to its parent.
const SPAWN_CHILD_SEP: &str = "pmix.spchildsep";

struct Rank {
    proc: Proc,
    exited: bool,
}

/// A job started for a tool, told when it ends (PMIX_ERR_JOB_TERMINATED and
/// PMIX_EVENT_JOB_END, with the exit code of its first failing rank).
struct Watched {
    requester: Proc,
    exit: i32,
}

/// A preemption notice in progress: the alerted ranks that have neither
/// reported their checkpoint complete nor exited, and how the job stops.
pub struct Preemption {
    pending: std::collections::HashSet<Proc>,
    pub until: Instant,
    grace: u64,
    code: i32,
}

pub struct Launcher {
    /// The CPUs this launcher may use (read once: it reads cgroup files).
    cpus: usize,
    pub ompi_hint: bool,
    pub io: std::sync::Arc<crate::io::IoOptions>,
    pub stdins: crate::io::Stdins,
    pub pids: crate::host::Pids,
    ranks: HashMap<i32, Rank>,
    /// Jobs whose end a tool hears of, by namespace.
    watched: HashMap<String, Watched>,
    /// Ranks held for debuggers (debug.rs).
    holds: crate::debug::Holds,
    /// Whether ranks can be stopped on exec here (debug::probe_stop_on_exec).
    pub stop_on_exec: bool,
    /// Jobs that end with the tool that spawned them (its spawn said
    /// PMIX_SPAWN_CHILD_SEP false): namespace -> the tool.
    tied: HashMap<String, Proc>,
    /// Jobs whose stdin their tool feeds (PMIX_FWD_STDIN): namespace -> tool.
    stdin_from: HashMap<String, Proc>,
    /// No job of its own: a failing job fails alone, and the launcher stays.
    pub persistent: bool,
    pub preemption: Option<Preemption>,
    /// --bind-to (see Options).
    pub bind_to: Option<&'static str>,
    /// Abnormal exits seen before the job was stopped: (proc, code, finalize missing).
    failures: Vec<(Proc, i32, bool)>,
    /// When to pick the job's exit code from `failures` (a short window, so the
    /// rank that failed first is told from ranks that failed because of it).
    pub decide_at: Option<Instant>,
    jobs: u32,
    /// Each job's process sets from its apps (deleted when it ends).
    psets: HashMap<String, Vec<String>>,
    exit: Option<u8>,
    kill_at: Option<Instant>,
    verbose: bool,
    _tx: Sender<Event>,
}

/// Why a launch failed: the status a spawning caller gets, and why in words.
pub struct LaunchError {
    pub status: pmix_status_t,
    pub msg: String,
}

impl From<String> for LaunchError {
    fn from(msg: String) -> Self {
        LaunchError { status: PMIX_ERR_JOB_FAILED_TO_LAUNCH, msg }
    }
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

/// Send `f` to the server's thread without waiting for it (it runs after
/// everything sent before it, by any thread).
fn server_post(f: impl FnOnce(&mut pmix::server::ServerRole, &mut pmix::runtime::Net) + Send + 'static) {
    if let Some(h) = pmix::server::handle() {
        h.run(f);
    }
}

fn server_call<T: Send + 'static>(f: impl FnOnce(&mut pmix::server::ServerRole, &mut pmix::runtime::Net) -> T + Send + 'static) -> Result<T, String> {
    pmix::server::handle().and_then(|h| h.call(f)).ok_or_else(|| "the PMIx server is gone".to_string())
}

/// What `launch_with` learns of a rank's start: the rank, its pid, its
/// stdin pipe and its app's command; or the command and why it could not
/// start.
type StartOutcome = Result<(Proc, i32, Option<std::process::ChildStdin>, String), (String, std::io::Error)>;

/// Whether a rank's failure (exit `code`; `unfinalized`: it left without
/// PMIx_Finalize) is the one that stands for its job in place of `job`'s
/// (0: none yet): the first failure does, and the first rank killed by a
/// signal, the likelier cause, replaces one that was not (the others often
/// fail after it, of the lost connection).
fn stands_for_job(code: i32, unfinalized: bool, job: i32) -> bool {
    code != 0 && (job == 0 || (code >= 128 && !unfinalized && job < 128))
}

impl Launcher {
    pub fn new(tx: Sender<Event>, verbose: bool) -> Launcher {
        Launcher { ompi_hint: true, io: Default::default(), stdins: Default::default(), pids: Default::default(), ranks: HashMap::new(), watched: HashMap::new(), holds: Default::default(), stop_on_exec: false, tied: HashMap::new(), stdin_from: HashMap::new(), persistent: false, preemption: None, bind_to: None, failures: Vec::new(), decide_at: None, jobs: 0, psets: HashMap::new(), exit: None, kill_at: None, verbose, cpus: std::thread::available_parallelism().map_or(1, |n| n.get()), _tx: tx }
    }

    pub fn alive(&self) -> usize {
        self.ranks.values().filter(|r| !r.exited).count()
    }

    /// Register a namespace for `apps` and start its ranks; returns the namespace.
    pub fn launch(&mut self, apps: &[AppSpec], parent: Option<&Proc>) -> Result<String, LaunchError> {
        self.launch_with(apps, parent, &[])
    }

    /// `launch`, with the spawn's directives: PMIX_DEBUG_STOP_IN_INIT joins
    /// the job data (the ranks wait in PMIx_Init for PMIX_DEBUGGER_RELEASE).
    fn launch_with(&mut self, apps: &[AppSpec], parent: Option<&Proc>, directives: &[Info]) -> Result<String, LaunchError> {
        self.jobs += 1;
        let nspace = format!("rpmixrun.{}.{}", std::process::id(), self.jobs);
        let host = pmix::rendezvous::hostname();
        let size: u32 = apps.iter().map(|a| a.maxprocs).sum();
        let ranks: Vec<String> = (0..size).map(|r| r.to_string()).collect();
        let mut info = vec![
            Info::new("pmix.nspace", Value::string(&nspace)),
            Info::new("pmix.jobid", Value::string(&nspace)),
            Info::new("pmix.job.size", Value::u32(size)),
            Info::new("pmix.univ.size", Value::u32(size)),
            Info::new("pmix.max.size", Value::u32(size)),
            Info::new("pmix.job.napps", Value::u32(apps.len() as u32)),
            // (what PMIX_QUERY_NAMESPACE_INFO reports; apps separated as mpirun's MPMD form)
            Info::new("pmix.cmd.line", Value::string(&apps.iter().map(|a| if a.argv.is_empty() { a.cmd.clone() } else { a.argv.join(" ") }).collect::<Vec<_>>().join(" : "))),
            Info::new("pmix.nmap", Value::string(&pmix::layout::generate_nodes(&host))),
            Info::new("pmix.pmap", Value::string(&pmix::layout::generate_procs(&ranks.join(",")).unwrap_or_default())),
            Info::new("pmix.num.nodes", Value::u32(1)),
            Info::new("pmix.nodeid", Value::u32(0)),
            Info::new("pmix.mapby", Value::string("BYSLOT:OVERSUBSCRIBE")),
            Info::new("pmix.rankby", Value::string("SLOT")),
            Info::new("pmix.bindto", Value::string(match self.bind_to { Some("CR") => "CORE", Some(_) => "HWTHREAD", None => "NONE" })),
            // pmixrun forks every rank with setup_fork's environment: each
            // must present its credential (no stale or borrowed claims).
            Info::new(pmix::server::credential::REQUIRED, Value::boolean(true)),
        ];
        // Binding: each rank to one core / hardware thread, round robin.
        let places = self.bind_to.map(pmix::topology::objects).unwrap_or_default();
        if self.bind_to.is_some() && places.is_empty() {
            eprintln!("pmixrun: --bind-to: the machine's topology cannot be read; ranks are not bound");
        } else if !places.is_empty() && size as usize > places.len() {
            eprintln!("pmixrun: --bind-to: {size} ranks on {} places: some share one", places.len());
        }
        let place_of = |r: u32| places.get(r as usize % places.len().max(1)).cloned();
        let stdin_ranks = stdin_targets(directives, size);
        // Ranks a debugger wants held (debug.rs): those stopped on exec start traced.
        let on_exec = if parent.is_some() { crate::debug::Holds::wanted_on_exec(&nspace, size, directives) } else { Default::default() };
        if !on_exec.is_empty() && !self.stop_on_exec {
            return Err(LaunchError { status: PMIX_ERR_NOT_SUPPORTED, msg: "PMIX_DEBUG_STOP_ON_EXEC: this system does not let pmixrun trace its children".into() });
        }
        // (only when it names a rank: OpenPMIx's client stops for any value,
        // even false)
        if let Some(i) = pmix::owned::find(directives, PMIX_DEBUG_STOP_IN_INIT).filter(|i| !crate::debug::ranks_named(i, &nspace, size).is_empty()) {
            info.push(i.clone());
        }
        // Debugger daemons learn whom they debug from their job data.
        for key in ["pmix.debugger", "pmix.dbg.tgt", "pmix.dbg.job"] {
            if let Some(i) = directives.iter().find(|i| i.key() == key) {
                info.push(i.clone());
            }
        }
        if let Some(p) = parent {
            info.push(Info::new("pmix.parent", Value::proc(p)));
            info.push(Info::new("pmix.spawned", Value::boolean(true)));
        }
        // Per proc: rank, app number and ranks within the app.
        let mut r = 0u32;
        let mut placement = Vec::new();
        for (appnum, app) in apps.iter().enumerate() {
            for app_rank in 0..app.maxprocs {
                let mut items = vec![
                    Info::new("pmix.rank", Value::rank(r)),
                    Info::new("pmix.appnum", Value::u32(appnum as u32)),
                    Info::new("pmix.apprank", Value::rank(app_rank)),
                    Info::new("pmix.grank", Value::rank(r)),
                    Info::new("pmix.app.size", Value::u32(app.maxprocs)),
                ];
                // (Open MPI 5 builds a set's group from its ranks' PMIX_PSET_NAME)
                if let Some(n) = &app.pset {
                    items.push(Info::new("pmix.pset.nm", Value::string(n)));
                }
                // A bound rank's CPUs and locality (what peers compare with PMIx_Get_relative_locality).
                if let Some(cpus) = place_of(r) {
                    items.push(Info::new("pmix.cpuset", Value::string(&pmix::topology::format_list(&cpus))));
                    if let Some(l) = pmix::topology::locality_string(&cpus) {
                        items.push(Info::new("pmix.locstr", Value::string(&l)));
                    }
                }
                info.push(proc_array(items));
                placement.push((r, appnum));
                r += 1;
            }
        }
        // As a real resource manager: precondition the application, register
        // the job with the result, prepare the node, then fork with setup_fork.
        let pre = pmix::server::setup::setup_application(&nspace, &info).map_err(|e| format!("setup_application: {}", pmix::strings::error_name(e)))?;
        info.extend(pre);
        let (ops, info) = pmix::server::setup::take_env_directives(info).map_err(|e| format!("job environment: {}", pmix::strings::error_name(e)))?;
        pmix::server::setup::set_env_ops(&nspace, ops);
        let (uid, gid) = (getuid().as_raw(), getgid().as_raw());
        // The apps' process sets (--pset; an app's PMIX_PSET_NAME in a
        // spawn): a name given to several apps has all their ranks.
        let mut psets: Vec<(String, Vec<Proc>)> = Vec::new();
        let mut first = 0u32;
        for app in apps {
            if let Some(n) = &app.pset {
                let ranks = (first..first + app.maxprocs).map(|r| Proc::new(&nspace, r));
                match psets.iter_mut().find(|(x, _)| x == n) {
                    Some((_, m)) => m.extend(ranks),
                    None => psets.push((n.clone(), ranks.collect())),
                }
            }
            first += app.maxprocs;
        }
        self.psets.insert(nspace.clone(), psets.iter().map(|(n, _)| n.clone()).collect());
        // Room for its ranks' descriptors beyond those open now, made once
        // before they start (server/descriptors.rs; nothing to do for the
        // first job).
        pmix::server::descriptors::reserve(crate::DESCRIPTORS_PER_RANK * size as usize + 64);
        let ns2 = nspace.clone();
        server_call(move |s, net| {
            for r in 0..size {
                s.register_client(&Proc::new(&ns2, r), uid, gid, r as usize);
            }
            s.register_nspace(&ns2, size as i32, info);
            // (defined before the ranks start: their first query sees them)
            for (n, m) in psets {
                s.define_pset(net, &n, m);
            }
        })?;
        pmix::server::setup::setup_local(&nspace, &[]).map_err(|e| format!("setup_local_support: {}", pmix::strings::error_name(e)))?;
        // (from here a failure goes through launch_failed, which forgets the hold)
        if let Some(p) = parent {
            self.holds.on_launch(&nspace, p, size, directives);
        }
        // More live ranks on this node than CPUs this launcher may use.
        let oversubscribed = self.ranks.values().filter(|r| !r.exited).count() + size as usize > self.cpus;
        // The launcher's own environment and its hints (added where the
        // job has none): the same for every rank.
        let own_env: Vec<(String, String)> = std::env::vars().collect();
        let mut hints = Vec::new();
        if self.ompi_hint {
            // Open MPI 4.1 takes its PMIx direct-launch path only under a
            // launcher it knows; this is the least intrusive of its hints.
            hints.push(pmix::cmem::EnvOp::Add("JSM_JSRUN_PORT".into(), "0".into()));
        }
        if self.ompi_hint && oversubscribed {
            // As Open MPI's mpirun does when it oversubscribes: ranks
            // that busy-poll would otherwise take the CPU from the rank
            // they wait for (mpi4py's suite on 3 ranks, 2 CPUs: 280 s
            // without, 19 s with).
            hints.push(pmix::cmem::EnvOp::Add("OMPI_MCA_mpi_yield_when_idle".into(), "1".into()));
        }
        // Started on the starter threads (exec.rs) unless a rank is traced
        // from its exec (the main thread is its tracer) or there is one.
        let mut batch = crate::exec::Batch::new(on_exec.is_empty() && size > 1, self.cpus);
        let mut failure: Option<(String, std::io::Error)> = None;
        // (the program, found once per app and PATH)
        let mut programs: HashMap<(usize, Option<String>), Option<std::path::PathBuf>> = HashMap::new();
        for (rank, appnum) in placement {
            let app = &apps[appnum];
            let proc = Proc::new(&nspace, rank);
            let (vars, ops) = match pmix::server::setup::child_env(&proc) {
                Ok(x) => x,
                Err(e) => {
                    failure = Some((app.cmd.clone(), std::io::Error::other(format!("setup_fork: {}", pmix::strings::error_name(e)))));
                    break;
                }
            };
            let mut env = own_env.clone();
            pmix::server::setup::apply(&mut env, &vars.iter().map(|(k, v)| pmix::cmem::EnvOp::Set(k.clone(), v.clone())).collect::<Vec<_>>());
            pmix::server::setup::apply(&mut env, &ops);
            // A missing program is found here, before anything starts.
            let child_path = env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone());
            let program = programs.entry((appnum, child_path)).or_insert_with_key(|(_, path)| crate::exec::resolve(&app.cmd, path.as_deref(), app.cwd.as_deref().map(std::path::Path::new)));
            let Some(program) = program.clone() else {
                failure = Some((app.cmd.clone(), std::io::Error::new(std::io::ErrorKind::NotFound, "no executable file by that name")));
                break;
            };
            // The rank's environment: setup_fork's over the launcher's
            // own, the launcher's hints where the job has none, then the
            // app's (last one wins).
            pmix::server::setup::apply(&mut env, &hints);
            let app_env: Vec<pmix::cmem::EnvOp> = app.env.iter().filter_map(|e| e.split_once('=')).map(|(k, v)| pmix::cmem::EnvOp::Set(k.into(), v.into())).collect();
            pmix::server::setup::apply(&mut env, &app_env);
            // The first job's stdin is pmixrun's (--stdin); a spawned job's
            // is its requester's when the spawn asks (PMIX_FWD_STDIN).
            let wants_stdin = match parent {
                Some(_) => stdin_ranks.contains(&rank),
                None => {
                    self.jobs == 1
                        && match self.io.stdin {
                            crate::io::StdinTarget::All => true,
                            crate::io::StdinTarget::Rank(r) => r == rank,
                            crate::io::StdinTarget::None => false,
                        }
                }
            };
            // argv[0] names the program; an app may give no argv at all.
            let mut argv = vec![app.cmd.clone()];
            argv.extend(app.argv.get(1..).unwrap_or_default().iter().cloned());
            let spec = crate::exec::RankSpec {
                program,
                argv,
                env,
                cwd: app.cwd.as_deref().map(std::path::PathBuf::from),
                cpus: place_of(rank),
                stop_on_exec: on_exec.contains(&rank),
                stdin: wants_stdin,
            };
            // Right after the start, on the thread that made it: the pid
            // is known before the rank's first output (tools may tag
            // output with it), since the server runs what it is sent in
            // order and the output reaches it after this. Not waited for.
            let (io, cmd) = (self.io.clone(), app.cmd.clone());
            batch.submit(spec, move |started| match started {
                Ok(child) => {
                    let (p2, pid) = (proc.clone(), child.pid);
                    server_post(move |s, _| {
                        if let Some(ns) = s.nspaces.get_mut(&p2.nspace) {
                            ns.set_proc_if_missing(p2.rank, PMIX_PROC_PID, Value::pid(pid));
                        }
                    });
                    crate::io::start(&proc, child.stdout, child.stderr, &io);
                    Ok((proc, pid, child.stdin, cmd))
                }
                Err(e) => Err((cmd, e)),
            });
            for done in batch.ready() {
                self.rank_started(done, parent.is_none(), &on_exec, &mut failure);
            }
            if failure.is_some() {
                break;
            }
        }
        for done in batch.finish() {
            self.rank_started(done, parent.is_none(), &on_exec, &mut failure);
        }
        if let Some((cmd, e)) = failure {
            return Err(self.launch_failed(&nspace, parent, &cmd, e));
        }
        Ok(nspace)
    }

    /// A rank's start came back (`launch_with`): a started rank is the
    /// job's; the first failure is kept in `failure`.
    fn rank_started(&mut self, done: Option<StartOutcome>, first_job: bool, on_exec: &std::collections::BTreeSet<u32>, failure: &mut Option<(String, std::io::Error)>) {
        match done {
            Some(Ok((proc, pid, stdin, cmd))) => {
                if let Some(i) = stdin {
                    self.stdins.lock().insert(proc.clone(), crate::io::StdinFeed::new(i, first_job));
                }
                if self.verbose {
                    eprintln!("pmixrun: started {proc} ({cmd}) as pid {pid}");
                }
                if on_exec.contains(&proc.rank) {
                    self.holds.traced(&proc.nspace, proc.rank, pid);
                }
                self.pids.lock().insert(proc.clone(), pid);
                self.ranks.insert(pid, Rank { proc, exited: false });
            }
            Some(Err(e)) => {
                failure.get_or_insert(e);
            }
            None => {
                // (a start that panicked; its rank, if it began, was killed)
                failure.get_or_insert((String::from("a rank"), std::io::Error::other("the start failed")));
            }
        }
    }

    /// A rank could not start. A spawn fails alone: the ranks it started go,
    /// the namespace is forgotten, the job goes on. The first job stops.
    fn launch_failed(&mut self, nspace: &str, parent: Option<&Proc>, cmd: &str, e: std::io::Error) -> LaunchError {
        let msg = format!("cannot start '{cmd}': {e}");
        if parent.is_some() {
            self.abandon(nspace);
            let st = if e.kind() == std::io::ErrorKind::NotFound { PMIX_ERR_JOB_EXE_NOT_FOUND } else { PMIX_ERR_JOB_FAILED_TO_LAUNCH };
            return LaunchError { status: st, msg };
        }
        self.record(127);
        self.stop_job(0, 127);
        LaunchError { status: PMIX_ERR_JOB_FAILED_TO_LAUNCH, msg }
    }

    pub fn spawn(&mut self, mut req: SpawnReq) {
        let target = self.size_daemons(&mut req);
        match self.launch_with(&req.apps, Some(&req.parent), &req.directives) {
            Ok(ns) => {
                // A tool (not one of our jobs' ranks), or a spawn asking for
                // it (PMIX_NOTIFY_COMPLETION), hears of the job's end.
                let ours = self.ranks.values().any(|r| r.proc.nspace == req.parent.nspace);
                let asked = pmix::owned::find(&req.directives, PMIX_NOTIFY_COMPLETION).is_some_and(|i| i.truthy());
                if !ours || asked {
                    self.watched.insert(ns.clone(), Watched { requester: req.parent.clone(), exit: 0 });
                }
                if let Some(t) = target {
                    self.holds.daemons_started(&ns, &t);
                }
                // A tool's job outlives the tool unless the spawn ties them.
                let tied = req.directives.iter().find(|i| i.key() == SPAWN_CHILD_SEP).is_some_and(|i| !i.truthy());
                if !ours && tied {
                    self.tied.insert(ns.clone(), req.parent.clone());
                }
                if pmix::owned::find(&req.directives, PMIX_FWD_STDIN).is_some_and(|i| i.truthy()) {
                    self.stdin_from.insert(ns.clone(), req.parent.clone());
                }
                (req.done)(PMIX_SUCCESS, ns)
            }
            Err(e) => {
                eprintln!("pmixrun: spawn for {}: {}", req.parent, e.msg);
                (req.done)(e.status, String::new())
            }
        }
    }

    /// Debugger daemons (PMIX_DEBUGGER_DAEMONS): as many as asked per rank of
    /// the target (PMIX_DEBUG_DAEMONS_PER_PROC) or per node
    /// (PMIX_DEBUG_DAEMONS_PER_NODE; this launcher has one node), one by
    /// default, whatever the app's own count. Returns the target's namespace.
    fn size_daemons(&self, req: &mut SpawnReq) -> Option<String> {
        let d = &req.directives;
        if !pmix::owned::find(d, PMIX_DEBUGGER_DAEMONS).is_some_and(|i| i.truthy()) || req.apps.len() != 1 {
            return None;
        }
        let target = pmix::owned::find(d, PMIX_DEBUG_TARGET)
            .map(|i| if i.value_ref().r#type == PMIX_PROC { pmix::owned::procs_of_value(i.value_ref()).into_iter().next().map(|p| p.nspace) } else { i.as_str() })
            .or_else(|| d.iter().find(|i| i.key() == "pmix.dbg.job").map(|i| i.as_str()))
            .flatten();
        let per_proc = pmix::owned::find(d, PMIX_DEBUG_DAEMONS_PER_PROC).and_then(|i| i.as_u32());
        let per_node = pmix::owned::find(d, PMIX_DEBUG_DAEMONS_PER_NODE).and_then(|i| i.as_u32());
        let target_ranks = target.as_deref().map_or(0, |ns| self.ranks.values().filter(|r| r.proc.nspace == ns && !r.exited).count() as u32);
        req.apps[0].maxprocs = match (per_proc, per_node) {
            (Some(k), _) if target_ranks > 0 => k.max(1) * target_ranks,
            (_, Some(k)) => k.max(1),
            _ => 1,
        };
        target
    }

    /// Undo a spawn that could not start all its ranks: the started ones are
    /// killed (and no longer count as the job's), the namespace deregistered.
    fn abandon(&mut self, nspace: &str) {
        let pids: Vec<i32> = self.ranks.iter().filter(|(_, r)| r.proc.nspace == nspace).map(|(pid, _)| *pid).collect();
        for pid in pids {
            if let Some(r) = self.ranks.remove(&pid) {
                self.pids.lock().remove(&r.proc);
                self.stdins.lock().remove(&r.proc);
            }
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        self.holds.job_ended(nspace);
        let ns = nspace.to_string();
        let psets = self.psets.remove(&ns).unwrap_or_default();
        let _ = server_call(move |s, net| {
            for n in psets {
                s.delete_pset(net, &n);
            }
            s.deregister_nspace(net, &ns)
        });
    }

    fn record(&mut self, code: u8) {
        if self.exit.is_none() && code != 0 {
            self.exit = Some(code);
        }
    }

    /// Ranks ended (pid, exit code or 128 + signal, the signal), as the
    /// reaper saw them: those waiting are taken together, with one call to
    /// the server's thread for all (a launch's ranks end at once).
    pub fn exited(&mut self, ends: &[(i32, i32, Option<i32>)]) {
        let mut gone = Vec::with_capacity(ends.len());
        for &(pid, code, signal) in ends {
            // (marked exited by `rank_ended`, one by one: the job ends with
            // the last of them, once every status before it counted)
            let Some(r) = self.ranks.get(&pid) else { continue };
            let proc = r.proc.clone();
            self.pids.lock().remove(&proc);
            self.stdins.lock().remove(&proc);
            if let Some(a) = self.holds.rank_exited(pid) {
                self.act(a);
            }
            // (a rank may have spawned a held job: it owned that hold)
            for a in self.holds.requester_gone(&proc) {
                self.act(a);
            }
            gone.push((pid, proc, code, signal));
        }
        if gone.is_empty() {
            return;
        }
        // Did each finalize? A rank that leaves without PMIx_Finalize is a failure.
        let told: Vec<(Proc, ExitOf)> = gone.iter().map(|(_, p, code, signal)| (p.clone(), signal.map_or(ExitOf::Code(*code), ExitOf::Signal))).collect();
        let states = server_call(move |s, net| {
            told.into_iter()
                .map(|(p, how)| {
                    let st = s.client_state(&p);
                    s.note_exit(&p, how);
                    s.deregister_client(net, &p);
                    st
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
        for (i, (pid, proc, code, _)) in gone.into_iter().enumerate() {
            self.rank_ended(pid, proc, code, states.get(i).copied().flatten());
        }
    }

    /// What follows a rank's end once the server has it (`exited`): its
    /// status counts for its job, and the job ends with its last rank.
    fn rank_ended(&mut self, pid: i32, proc: Proc, code: i32, state: Option<(bool, bool)>) {
        if let Some(r) = self.ranks.get_mut(&pid) {
            r.exited = true;
        }
        let unfinalized = code == 0 && matches!(state, Some((true, false)));
        if self.verbose {
            eprintln!("pmixrun: {proc} exited with status {code}");
        }
        self.preempt_progress(Some(&proc));
        let code_seen = if unfinalized { 1 } else { code };
        if let Some(w) = self.watched.get_mut(&proc.nspace) {
            if stands_for_job(code_seen, unfinalized, w.exit) {
                w.exit = code_seen;
            }
        }
        // A tool's job fails alone under a persistent launcher.
        let own_failure = !self.persistent;
        if own_failure && (code != 0 || unfinalized) && self.kill_at.is_none() {
            self.failures.push((proc.clone(), if unfinalized { 1 } else { code }, unfinalized));
            if self.decide_at.is_none() {
                self.decide_at = Some(Instant::now() + Duration::from_millis(200));
            }
        }
        if self.ranks.values().filter(|r| r.proc.nspace == proc.nspace).all(|r| r.exited) {
            let ns = proc.nspace.clone();
            let watched = self.watched.remove(&ns);
            self.tied.remove(&ns);
            self.stdin_from.remove(&ns);
            if let Some(a) = self.holds.job_ended(&ns) {
                self.act(a);
            }
            if self.verbose {
                eprintln!("pmixrun: job {ns} ended");
            }
            // The job's own sets (--pset) end with it, as with PRRTE. (Not
            // waited for: the server runs what it is sent in order.)
            let psets = self.psets.remove(&ns).unwrap_or_default();
            let ns2 = ns.clone();
            server_post(move |s, net| {
                for n in psets {
                    s.delete_pset(net, &n);
                }
                s.deregister_nspace(net, &ns2);
            });
            if let Some(w) = watched {
                // Told after the job's last output has gone (at most 5 s on).
                let ns2 = ns.clone();
                crate::io::after_job_output(&ns, Duration::from_secs(5), move || {
                    server_post(move |s, net| s.job_ended(net, &ns2, w.exit, &w.requester));
                });
            }
            // (a persistent launcher forgets ended jobs)
            if self.persistent {
                self.ranks.retain(|_, r| !(r.exited && r.proc.nspace == proc.nspace));
            }
        }
    }

    /// After the first failure's window: report every failure seen, pick the
    /// exit code (a rank killed by a signal is the likelier cause, else the
    /// first failure), and stop the job.
    pub fn decide(&mut self) {
        self.decide_at = None;
        if self.failures.is_empty() {
            return;
        }
        let failures = std::mem::take(&mut self.failures);
        for (p, code, unfinalized) in &failures {
            if *unfinalized {
                eprintln!("pmixrun: {p} exited without calling PMIx_Finalize");
            } else if *code >= 128 {
                eprintln!("pmixrun: {p} was killed by signal {}", code - 128);
            } else {
                eprintln!("pmixrun: {p} exited with status {code}");
            }
        }
        let code = failures.iter().fold(0, |job, f| if stands_for_job(f.1, f.2, job) { f.1 } else { job });
        self.record(code.clamp(0, 255) as u8);
        self.stop_job(2, code);
    }

    /// SIGTERM to pmixrun, the way schedulers announce a preemption: ranks
    /// that registered PMIX_JOB_CTRL_PREEMPTIBLE get PMIX_JCTRL_PREEMPT_ALERT
    /// (with PMIX_TIMEOUT = the notice) and up to `notice` seconds to report
    /// PMIX_JCTRL_CHECKPOINT_COMPLETE or exit; then the job stops. False when
    /// there is no one to alert (the caller stops the job at once).
    pub fn preempt(&mut self, notice: u64, grace: u64, code: i32) -> bool {
        if notice == 0 || self.preemption.is_some() || self.kill_at.is_some() {
            return false;
        }
        let live: std::collections::HashSet<Proc> = self.ranks.values().filter(|r| !r.exited).map(|r| r.proc.clone()).collect();
        let alerted: Vec<Proc> = pmix::server::jobctl::preemptible(None).into_iter().filter(|p| live.contains(p)).collect();
        if alerted.is_empty() {
            return false;
        }
        let targets = alerted.clone();
        let _ = server_call(move |s, net| {
            let me = s.me.clone();
            for p in &targets {
                let info = vec![Info::new("pmix.evrange", Value::proc(p)), Info::new("pmix.timeout", Value::u32(notice as u32))];
                s.deliver_event(net, PMIX_JCTRL_PREEMPT_ALERT, &me, PMIX_RANGE_CUSTOM, &info);
            }
        });
        if self.verbose {
            eprintln!("pmixrun: preemption: {} preemptible ranks alerted; the job stops within {notice} s", alerted.len());
        }
        self.preemption = Some(Preemption { pending: alerted.into_iter().collect(), until: Instant::now() + Duration::from_secs(notice), grace, code });
        true
    }

    /// An alerted rank is ready (checkpoint complete, or gone); stop the job
    /// once every alerted rank is, or when the notice has run out.
    pub fn preempt_progress(&mut self, ready: Option<&Proc>) {
        let Some(p) = &mut self.preemption else { return };
        if let Some(r) = ready {
            p.pending.remove(r);
        }
        if p.pending.is_empty() || Instant::now() >= p.until {
            let (grace, code) = (p.grace, p.code);
            self.preemption = None;
            self.stop_job(grace, code);
        }
    }

    /// SIGTERM every rank's process group now, SIGKILL after `grace` seconds.
    pub fn stop_job(&mut self, grace: u64, code: i32) {
        self.record(exit_status_of(code));
        self.holds.let_go(None);
        for (pid, r) in &self.ranks {
            if !r.exited {
                // (the process group pmixrun created for the rank; a rank
                // held stopped for a debugger is continued to take it)
                let _ = killpg(Pid::from_raw(*pid), Signal::SIGTERM);
                let _ = killpg(Pid::from_raw(*pid), Signal::SIGCONT);
            }
        }
        if self.kill_at.is_none() {
            let at = Instant::now() + Duration::from_secs(grace);
            self.kill_at = Some(at);
            let ranks: Vec<i32> = self.ranks.keys().copied().collect();
            std::thread::spawn(move || {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                for pid in ranks {
                    // (a group already gone just fails)
                    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                }
            });
        }
    }

    /// Stop job `ns` alone (a persistent launcher's job that aborted): its
    /// ranks get SIGTERM, then SIGKILL after `grace` seconds.
    pub fn stop_ns(&mut self, ns: &str, grace: u64) {
        let ranks: Vec<i32> = self.ranks.iter().filter(|(_, r)| !r.exited && r.proc.nspace == ns).map(|(p, _)| *p).collect();
        self.holds.let_go(Some(ns));
        for pid in &ranks {
            let _ = killpg(Pid::from_raw(*pid), Signal::SIGTERM);
            let _ = killpg(Pid::from_raw(*pid), Signal::SIGCONT);
        }
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(grace));
            for pid in ranks {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            }
        });
    }

    /// Stop every running job (each as stop_ns does).
    pub fn stop_all_ns(&mut self, grace: u64) {
        let mut live: Vec<String> = self.ranks.values().filter(|r| !r.exited).map(|r| r.proc.nspace.clone()).collect();
        live.sort();
        live.dedup();
        for ns in live {
            self.stop_ns(&ns, grace);
        }
    }

    /// A traced rank stopped with `sig` (the reaper saw it; this is the
    /// main thread, its tracer).
    pub fn traced_stop(&mut self, pid: i32, sig: i32) {
        if let Some(a) = self.holds.stopped(pid, sig) {
            self.act(a);
        }
    }

    /// A rank reports it waits in PMIx_Init (PMIX_READY_FOR_DEBUG).
    pub fn waiting_in_init(&mut self, proc: &Proc) {
        if let Some(a) = self.holds.waiting_in_init(proc) {
            self.act(a);
        }
    }

    /// PMIX_DEBUGGER_RELEASE from `sender` (the server delivered it to the
    /// ranks in init already).
    pub fn debugger_release(&mut self, sender: &Proc, targets: &[Proc]) {
        self.holds.release(sender, targets);
    }

    /// A tool disconnected: the jobs tied to it end (SIGTERM, SIGKILL after
    /// `grace`), and the ranks it held with no debugger daemon left go.
    pub fn tool_gone(&mut self, tool: &Proc, grace: u64) {
        let tied: Vec<String> = self.tied.iter().filter(|(_, t)| *t == tool).map(|(ns, _)| ns.clone()).collect();
        for ns in tied {
            eprintln!("pmixrun: {tool} is gone: ending job {ns} with it (PMIX_SPAWN_CHILD_SEP false)");
            self.tied.remove(&ns);
            self.stop_ns(&ns, grace);
        }
        for a in self.holds.requester_gone(tool) {
            self.act(a);
        }
        // The stdin it fed ends with it: its ranks read the end of input.
        let fed: Vec<String> = self.stdin_from.iter().filter(|(_, t)| *t == tool).map(|(ns, _)| ns.clone()).collect();
        for ns in fed {
            self.stdin_from.remove(&ns);
            self.stdins.lock().retain(|p, _| p.nspace != ns);
        }
    }

    fn act(&mut self, a: crate::debug::Action) {
        match a {
            crate::debug::Action::Ready { held, requester } => {
                if self.verbose {
                    eprintln!("pmixrun: {} ranks of {} stopped on exec, ready for a debugger", held.len(), held[0].nspace);
                }
                let _ = server_call(move |s, net| s.ready_for_debug(net, &held, &requester));
            }
            crate::debug::Action::ReleaseInit(procs) => {
                let _ = server_call(move |s, net| s.release_from_init(net, &procs));
            }
        }
    }

    /// The launcher was told to stop (signal, abort, timeout).
    pub fn stopping(&self) -> bool {
        self.kill_at.is_some()
    }

    /// At exit: nothing of the job may outlive pmixrun.
    pub fn kill_all(&mut self) {
        for (pid, r) in &self.ranks {
            if !r.exited {
                let _ = killpg(Pid::from_raw(*pid), Signal::SIGKILL);
            }
        }
    }

    pub fn exit_code(&self) -> u8 {
        self.exit.unwrap_or(0)
    }
}

/// The exit status of an abort or stop code, as exit(3) takes it (modulo
/// 256: PMIx_Abort(-1) exits 255, as under mpirun), except that a nonzero
/// code never reads as success (256 exits 1, not 0).
fn exit_status_of(code: i32) -> u8 {
    match (code & 0xff) as u8 {
        0 if code != 0 => 1,
        c => c,
    }
}

/// The ranks whose stdin a spawn's requester feeds (PMIX_FWD_STDIN): those
/// PMIX_STDIN_TGT names (a proc, whatever namespace it gives since the
/// requester cannot know the new one; WILDCARD: all), rank 0 by default.
fn stdin_targets(directives: &[Info], size: u32) -> Vec<u32> {
    if !pmix::owned::find(directives, PMIX_FWD_STDIN).is_some_and(|i| i.truthy()) {
        return Vec::new();
    }
    let Some(t) = pmix::owned::find(directives, PMIX_STDIN_TGT) else { return vec![0] };
    let ranks: Vec<u32> = match t.value_ref().r#type {
        PMIX_PROC | PMIX_DATA_ARRAY => pmix::owned::procs_of_value(t.value_ref()).into_iter().map(|p| p.rank).collect(),
        _ => t.as_u32().into_iter().collect(),
    };
    if ranks.contains(&PMIX_RANK_WILDCARD) {
        return (0..size).collect();
    }
    ranks.into_iter().filter(|r| *r < size).collect()
}

fn proc_array(items: Vec<Info>) -> Info {
    let (p, n) = pmix::owned::infos_to_c(&items);
    let d = pmix_data_array_t { r#type: PMIX_INFO, size: n, array: p as *mut core::ffi::c_void };
    // SAFETY: d describes the array made above, copied by load, then freed.
    let v = unsafe { Value::load(&d as *const pmix_data_array_t as *const core::ffi::c_void, PMIX_DATA_ARRAY) };
    // SAFETY: made by infos_to_c.
    unsafe { pmix::owned::free_c_infos(p, n) };
    Info::new("pmix.pdata", v.expect("out of memory building job data"))
}

/// The signals pmixrun forwards to the job (taken by its signal thread).
fn forwarded_signals() -> SigSet {
    let mut set = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        set.add(s);
    }
    set
}

/// Block the forwarded signals in this (main) thread, before any other
/// thread exists: threads inherit the mask, and only sigwait takes them.
pub fn block_signals() {
    let _ = forwarded_signals().thread_block();
}

pub fn start_signal_thread(tx: Sender<Event>) {
    std::thread::spawn(move || loop {
        let Ok(sig) = forwarded_signals().wait() else { continue };
        if tx.send(Event::Signal(sig as i32)).is_err() {
            return;
        }
    });
}

pub fn start_reaper(tx: Sender<Event>) {
    std::thread::spawn(move || loop {
        let starts = *crate::exec::STARTS.0.lock();
        // Any child of this process; stopped or continued children are not
        // ends (a stop seen here is a traced rank's: debug.rs).
        let (pid, code, signal) = match waitpid(Pid::from_raw(-1), None) {
            Ok(WaitStatus::Exited(pid, code)) => (pid, code, None),
            Ok(WaitStatus::Signaled(pid, sig, _)) => (pid, 128 + sig as i32, Some(sig as i32)),
            Ok(WaitStatus::Stopped(pid, sig)) => {
                if tx.send(Event::TracedStop { pid: pid.as_raw(), sig: sig as i32 }).is_err() {
                    return;
                }
                continue;
            }
            Ok(_) => continue,
            Err(_) => {
                // No child: wait for the next start (one since `starts` was
                // read may have ended already: waitpid again at once). The
                // timeout only bounds a start this count does not see.
                let mut n = crate::exec::STARTS.0.lock();
                if *n == starts {
                    crate::exec::STARTS.1.wait_for(&mut n, Duration::from_secs(1));
                }
                continue;
            }
        };
        if tx.send(Event::Exited { pid: pid.as_raw(), code, signal }).is_err() {
            return;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::exit_status_of;

    #[test]
    fn abort_codes_become_exit_statuses() {
        assert_eq!(exit_status_of(0), 0);
        assert_eq!(exit_status_of(3), 3);
        assert_eq!(exit_status_of(-1), 255);
        assert_eq!(exit_status_of(-2), 254);
        assert_eq!(exit_status_of(256), 1);
        assert_eq!(exit_status_of(300), 44);
    }
}
