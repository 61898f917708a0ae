//! pmixctl: act on a live job from another terminal, through the PMIx tool
//! API: list it, pause / resume / signal / kill its ranks, read their output,
//! feed their stdin.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pmix::abi::*;
use pmix::owned::{Info, Proc, Value};
use pmix::runtime::Oneshot;

#[path = "shared/ptrace_probe.rs"]
mod ptrace_probe;
#[path = "pmixctl/top.rs"]
mod top;

const HELP: &str = "\
usage: pmixctl [--pid PID | --uri URI | --file F | --system] [--nspace NS] COMMAND

Attach to a running PMIx server (pmixrun, or any server with tool support)
and act on one of its jobs (default: the first it lists).

Where to attach (default: the server this process's environment names,
else the node's system server, else the one server of this user on the
node; run and stop: the system server):
  --pid PID                   the server of process PID
  --uri URI                   the server at URI
  --file F                    the server whose contact the file F holds
  --system                    the node's system server (pmixrun --persistent)

Options:
  --nspace NS                 the job (default: the first the server lists)
  --rank R                    one rank (default: all)
  -f, --follow                output: until every rank closed the stream
  --stderr                    output: the ranks' stderr, not their stdout
  --timeout S                 checkpoint, run: wait at most S seconds
  --once                      top: print one screen and exit
  --json                      top: print one sample as JSON and exit
  -h, --help                  this text

Commands:
  ps                          list the jobs and their sizes
  top [--once] [--json]       what each rank of the job is doing: state,
                              CPU %, RSS, the PMIx call it is blocked in
                              and for how long, and each collective in
                              progress with the ranks it still waits for;
                              full screen, refreshed every second (keys: q
                              quit, s sort by rank/state/wait, j/k or the
                              arrows select a rank, p pause it, r resume
                              it, K kill it, S send it a signal, J or Tab
                              show the server's next job)
  pause | resume | kill | terminate [--rank R]
  signal SIG [--rank R]       send a signal (number or name: TERM, USR1, ...)
  checkpoint [ID] [--rank R] [--timeout S]
                              ask the ranks to checkpoint by the method each
                              registered (PMIX_JOB_CTRL_CHECKPOINT_METHOD);
                              waits until every one reports it complete (or
                              S seconds, default 60)
  output [--follow] [--rank R] [--stderr]
                              print what the ranks write (what was cached
                              before attaching, then, with --follow, until
                              every rank closed the stream)
  pset define NAME RANKS      define the process set NAME of the job's RANKS
                              (0,2-3 or all); its ranks hear of it (event
                              PMIX_PROCESS_SET_DEFINE) and see it in their
                              queries (MPI Sessions' process sets)
  pset delete NAME            delete it (event PMIX_PROCESS_SET_DELETE)
  stdin [--rank R]            send this command's stdin to the ranks' stdin
                              (the job must have been started with the
                              ranks' stdin open, e.g. pmixrun --stdin all)
  run [-n N] [--stdin R|all|none] [--end-with-tool] PROG [ARGS...]
                              start a job of N ranks of PROG on the server
                              (a persistent pmixrun: by default the node's
                              system server), print its output as it comes
                              and exit with its exit code when it ends
                              (PROG by a relative path: from this directory).
                              This command's stdin goes to rank R's (default
                              0; none when run in the background of a
                              terminal). The job outlives this command unless
                              --end-with-tool (PMIX_SPAWN_CHILD_SEP false)
  session pause|resume|terminate|signal SIG
                              PMIx_Session_control of the server's session
                              (pmixrun: every rank of every job it runs;
                              terminate ends them all, as SIGTERM to pmixrun
                              does, but a persistent pmixrun goes on)
  stop                        ask the server (pmixrun) to stop
  info                        what this installation is and can do here
                              (version, ABI, hwloc, stop on exec, OpenPMIx
                              peers) and the PMIx servers this user can see
                              on this node (needs no server)

Exit code 0 on success; the PMIx status name is printed on failure.";

/// A line of pmixctl's own on stderr, in one write: eprintln! writes a
/// formatted line piecewise, and a job's forwarded output, written to the
/// same file meanwhile, could land inside it.
fn say(msg: &str) {
    let _ = std::io::stderr().write_all(format!("pmixctl: {msg}\n").as_bytes());
}

fn die(msg: &str) -> ExitCode {
    say(msg);
    ExitCode::from(1)
}

fn signal_number(s: &str) -> Option<i32> {
    if let Ok(n) = s.parse() {
        return Some(n);
    }
    let name = s.trim_start_matches("SIG").to_ascii_uppercase();
    Some(match name.as_str() {
        "HUP" => libc::SIGHUP,
        "INT" => libc::SIGINT,
        "QUIT" => libc::SIGQUIT,
        "KILL" => libc::SIGKILL,
        "USR1" => libc::SIGUSR1,
        "USR2" => libc::SIGUSR2,
        "TERM" => libc::SIGTERM,
        "CONT" => libc::SIGCONT,
        "STOP" => libc::SIGSTOP,
        _ => return None,
    })
}

static OPEN_STREAMS: AtomicUsize = AtomicUsize::new(0);
/// The exit code `run` ends with.
static EXIT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
/// Jobs that ended: (namespace, exit code), from PMIX_ERR_JOB_TERMINATED.
static ENDED: std::sync::Mutex<Vec<(String, i32)>> = std::sync::Mutex::new(Vec::new());
/// Told when ENDED grows (`run` waits on it, not on a poll's period).
static ENDED_CV: std::sync::Condvar = std::sync::Condvar::new();

unsafe extern "C" fn on_job_end(
    _id: usize,
    _status: pmix_status_t,
    _source: *const pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    _results: *mut pmix_info_t,
    _nresults: usize,
    cbfunc: pmix_event_notification_cbfunc_fn_t,
    cbdata: *mut core::ffi::c_void,
) {
    if let Ok(infos) = Info::copy_array(info, ninfo) {
        let job = pmix::owned::find(&infos, PMIX_EVENT_AFFECTED_PROC).map(|i| pmix::owned::procs_of_value(i.value_ref()));
        let code = pmix::owned::find(&infos, PMIX_EXIT_CODE).and_then(|i| i.as_u32()).unwrap_or(0) as i32;
        if let Some(p) = job.and_then(|j| j.into_iter().next()) {
            ENDED.lock().unwrap().push((p.nspace, code));
            ENDED_CV.notify_all();
        }
    }
    if let Some(f) = cbfunc {
        f(PMIX_EVENT_ACTION_COMPLETE, core::ptr::null_mut(), 0, None, core::ptr::null_mut(), cbdata);
    }
}

/// PMIX_JOB_CTRL_SIGNAL with `sig`.
fn signal_directive(sig: i32) -> Info {
    // SAFETY: an int value for PMIX_JOB_CTRL_SIGNAL.
    let v = unsafe { Value::load(&sig as *const i32 as *const core::ffi::c_void, PMIX_INT) }.expect("an int is a value");
    Info::new("pmix.jctrl.sig", v)
}

/// The namespaces the server lists (PMIX_QUERY_NAMESPACES), with the
/// query's status.
fn namespaces() -> Result<(pmix_status_t, Vec<String>), String> {
    let keys = pmix::cmem::argv_from(&["pmix.qry.ns"]);
    // SAFETY: all-zero is a valid query; it only borrows `keys` below.
    let mut one: pmix_query_t = unsafe { core::mem::zeroed() };
    one.keys = keys;
    // SAFETY: `one` is a valid query; CArray::copy deep-copies it.
    let q = unsafe { pmix::data::carray::CArray::copy(pmix::data::kind::Kind::Query, &one as *const pmix_query_t as *const u8, 1) };
    // SAFETY: made by argv_from, no longer referenced.
    unsafe { pmix::cmem::argv_free(keys) };
    let q = q.map_err(|e| pmix::strings::error_name(e).to_string())?;
    let done = Oneshot::new();
    let d = done.clone();
    pmix::facade::query(&q, pmix::runtime::Completion::new(move |st, r| d.set((st, r))));
    let (st, r) = done.wait().ok_or("lost the server")?;
    let names = r.first().and_then(|i| i.as_str()).map(|s| s.split(',').filter(|x| !x.is_empty()).map(String::from).collect()).unwrap_or_default();
    Ok((st, names))
}

/// The jobs the server runs (its namespaces without the tools').
fn jobs() -> Result<Vec<String>, String> {
    let (st, names) = namespaces()?;
    if st != PMIX_SUCCESS && names.is_empty() {
        return Err(format!("query: {}", pmix::strings::error_name(st)));
    }
    Ok(names.into_iter().filter(|n| !n.contains(".tool.")).collect())
}

/// Job control `dirs` on `target`, waiting for the answer.
fn job_control(target: &Proc, dirs: Vec<Info>) -> Result<(), String> {
    job_control_of(vec![target.clone()], dirs)
}

fn job_control_of(targets: Vec<Proc>, dirs: Vec<Info>) -> Result<(), String> {
    let done = Oneshot::new();
    let d = done.clone();
    pmix::client::api::job_control(targets, dirs, pmix::runtime::Completion::new(move |st, _: Vec<pmix::owned::Info>| d.set(st)));
    match done.wait() {
        Some(PMIX_SUCCESS) => Ok(()),
        Some(st) => Err(pmix::strings::error_name(st).to_string()),
        None => Err("lost the server".into()),
    }
}

/// The ranks of a list like 0,2-3 (all: the wildcard rank).
fn parse_ranks(s: &str) -> Option<Vec<pmix_rank_t>> {
    if s == "all" {
        return Some(vec![PMIX_RANK_WILDCARD]);
    }
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        if a > b || b >= PMIX_RANK_VALID || b - a > 1 << 20 {
            return None;
        }
        out.extend(a..=b);
    }
    Some(out)
}

/// `pset define NAME RANKS` / `pset delete NAME`: by job control (the
/// directive PMIX_JOB_CTRL_DEFINE_PSET of PMIx 6, and rpmix's own for the
/// deletion), which the server's host carries out.
fn pset(ns: &str, words: &[String]) -> Result<(), String> {
    use pmix::server::pset::{DEFINE_DIRECTIVE, DELETE_DIRECTIVE};
    match words {
        [verb, name, ranks] if verb == "define" => {
            let ranks = parse_ranks(ranks).ok_or_else(|| format!("pset define: '{ranks}' is not a list of ranks (0,2-3 or all)"))?;
            let targets = ranks.into_iter().map(|r| Proc::new(ns, r)).collect();
            job_control_of(targets, vec![Info::new(DEFINE_DIRECTIVE, Value::string(name))]).map_err(|e| format!("pset define {name}: {e}"))
        }
        [verb, name] if verb == "delete" => {
            job_control_of(vec![Proc::wildcard(ns)], vec![Info::new(DELETE_DIRECTIVE, Value::string(name))]).map_err(|e| format!("pset delete {name}: {e}"))
        }
        _ => Err("pset: define NAME RANKS, or delete NAME".into()),
    }
}

/// `session pause|resume|terminate|signal SIG`: PMIx_Session_control of the
/// server's session (pmixrun: every job it runs; the id is not used).
fn session(words: &[String]) -> Result<(), String> {
    let dirs = match words {
        [v] if v == "pause" => vec![Info::new("pmix.ssn.pause", Value::boolean(true))],
        [v] if v == "resume" => vec![Info::new("pmix.ssn.resume", Value::boolean(true))],
        [v] if v == "terminate" => vec![Info::new("pmix.ssn.terminate", Value::boolean(true))],
        [v, sig] if v == "signal" => {
            let sig = signal_number(sig).ok_or("session signal: which signal?")?;
            // SAFETY: an int value for PMIX_SESSION_SIGNAL.
            vec![Info::new("pmix.ssn.sig", unsafe { Value::load(&sig as *const i32 as *const core::ffi::c_void, PMIX_INT) }.expect("out of memory"))]
        }
        _ => return Err("session: pause, resume, terminate, or signal SIG".into()),
    };
    let done = Oneshot::new();
    let d = done.clone();
    // (a refusal's reason: pmixrun's rpmix.reason)
    let reason = |infos: &[Info]| infos.iter().find(|i| i.key() == "rpmix.reason").and_then(|i| i.as_str());
    pmix::client::api::session_control(0, dirs, pmix::runtime::Completion::new(move |st, infos: Vec<Info>| d.set((st, reason(&infos)))));
    match done.wait() {
        Some((PMIX_SUCCESS, _)) => Ok(()),
        Some((st, why)) => Err(format!("session {}: {}{}", words[0], pmix::strings::error_name(st), why.map(|w| format!(" ({w})")).unwrap_or_default())),
        None => Err("lost the server".into()),
    }
}

/// This command's stdin to `target`'s stdin, to its end (then closed).
fn push_stdin(target: &Proc) -> Result<(), String> {
    // One push, waited for: data, or (None) the end of input.
    let push = |data: Option<Vec<u8>>| {
        let dirs = if data.is_none() { vec![Info::new("pmix.iof.cmp", Value::boolean(true))] } else { Vec::new() };
        let done = Oneshot::new();
        let d = done.clone();
        pmix::client::api::iof_push(vec![target.clone()], data, dirs, pmix::runtime::Completion::on_status(move |st| d.set(st)));
        done.wait()
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut input = std::io::stdin();
    loop {
        let n = input.read(&mut buf).unwrap_or(0);
        match push((n > 0).then(|| buf[..n].to_vec())) {
            Some(PMIX_SUCCESS) => {}
            // The job ended after taking all the input: nothing left to close.
            Some(PMIX_ERR_LOST_CONNECTION | PMIX_ERR_UNREACH) if n == 0 => return Ok(()),
            // (PRRTE answers the end of the input so: the stream is closed)
            Some(PMIX_ERR_IOF_COMPLETE) if n == 0 => return Ok(()),
            Some(st) if n > 0 => {
                // No rank takes more: the end of input still goes to all
                // (best effort), so none is left waiting for it.
                let _ = push(None);
                return Err(format!("stdin: {}", pmix::strings::error_name(st)));
            }
            Some(st) => return Err(format!("stdin: {}", pmix::strings::error_name(st))),
            None if n == 0 => return Ok(()),
            None => return Err("lost the server".into()),
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// `pmixctl run`: start `words` (-n N, the program, its arguments) with
/// its output forwarded here, wait for its end, keep its exit code.
fn run_job(words: &[String], timeout: Option<u32>) -> Result<(), String> {
    let (mut n, mut stdin_to, mut tied, mut prog) = (1, Some(0u32), false, words);
    loop {
        match prog {
            [flag] if flag == "-n" || flag == "-np" || flag == "--stdin" => return Err(format!("run: {flag} needs a value")),
            [flag, v, rest @ ..] if flag == "-n" || flag == "-np" => {
                n = v.parse::<i32>().ok().filter(|n| *n > 0).ok_or_else(|| format!("run: '{v}' is not a number of ranks"))?;
                prog = rest;
            }
            [flag, v, rest @ ..] if flag == "--stdin" => {
                stdin_to = match v.as_str() {
                    "none" => None,
                    "all" => Some(PMIX_RANK_WILDCARD),
                    r => Some(r.parse().map_err(|_| format!("run: --stdin '{r}' is not none, all or a rank"))?),
                };
                prog = rest;
            }
            [flag, rest @ ..] if flag == "--end-with-tool" => {
                tied = true;
                prog = rest;
            }
            _ => break,
        }
    }
    let Some(cmd) = prog.first() else { return Err("run: which program?".into()) };
    let code = PMIX_ERR_JOB_TERMINATED;
    // SAFETY: one status, no infos; the callback is ours and lives forever.
    let rc = unsafe { pmix::ffi::events::PMIx_Register_event_handler(&code as *const pmix_status_t as *mut pmix_status_t, 1, core::ptr::null_mut(), 0, Some(on_job_end), None, core::ptr::null_mut()) };
    if rc < 0 {
        return Err(format!("run: event registration: {}", pmix::strings::error_name(rc)));
    }
    let argv = pmix::cmem::argv_from(&prog.iter().map(String::as_str).collect::<Vec<_>>());
    // SAFETY: all-zero is a valid app; it borrows `argv` and `c` until copied.
    let mut app: pmix_app_t = unsafe { core::mem::zeroed() };
    let c = pmix::owned::c_string(cmd);
    app.cmd = c.as_ptr() as *mut core::ffi::c_char;
    app.argv = argv;
    app.maxprocs = n;
    // SAFETY: `app` is valid; CArray::copy deep-copies it.
    let apps = unsafe { pmix::data::carray::CArray::copy(pmix::data::kind::Kind::App, &app as *const pmix_app_t as *const u8, 1) };
    // SAFETY: made by argv_from, no longer referenced.
    unsafe { pmix::cmem::argv_free(argv) };
    let apps = apps.map_err(|e| pmix::strings::error_name(e).to_string())?;
    let done = Oneshot::new();
    let d = done.clone();
    // A terminal this command does not own (run in the background): reading
    // it would stop this command (SIGTTIN), so the job gets no stdin.
    // SAFETY: isatty, tcgetpgrp and getpgrp only query.
    // (-1: a terminal that is not ours to control; reading it stops nobody)
    let foreground = unsafe { libc::isatty(0) == 0 || matches!(libc::tcgetpgrp(0), -1) || libc::tcgetpgrp(0) == libc::getpgrp() };
    let stdin_to = stdin_to.filter(|_| foreground);
    let mut fwd = vec![Info::new("pmix.fwd.stdout", Value::boolean(true)), Info::new("pmix.fwd.stderr", Value::boolean(true))];
    if let Some(r) = stdin_to {
        fwd.push(Info::new("pmix.fwd.stdin", Value::boolean(true)));
        fwd.push(Info::new("pmix.stdin", Value::proc(&Proc::new("", r))));
    }
    if tied {
        // (PMIx 5's PMIX_SPAWN_CHILD_SEP: false ends the job with this tool)
        fwd.push(Info::new("pmix.spchildsep", Value::boolean(false)));
    }
    pmix::client::api::spawn(fwd, &apps, pmix::runtime::Completion::new(move |st, ns| d.set((st, ns))));
    let ns = match done.wait() {
        Some((PMIX_SUCCESS, ns)) => ns,
        Some((st, _)) => return Err(format!("run: {}", pmix::strings::error_name(st))),
        None => return Err("lost the server".into()),
    };
    say(&format!("job {ns} started"));
    if let Some(r) = stdin_to {
        // (a thread: the job may end before this stdin does)
        let target = Proc::new(&ns, r);
        std::thread::spawn(move || {
            // (a rank that stops reading, or ends, before this stdin does
            // just takes no more of it, as under mpirun: nothing to report)
            let _ = push_stdin(&target);
        });
    }
    let end = timeout.map(|t| Instant::now() + Duration::from_secs(t as u64));
    loop {
        let ended = ENDED.lock().unwrap();
        if let Some((_, code)) = ended.iter().find(|(n, _)| *n == ns) {
            EXIT.store((*code).clamp(0, 255) as u8, Ordering::SeqCst);
            return Ok(());
        }
        // (woken by the job's end event; the period checks the server and the timeout)
        drop(ENDED_CV.wait_timeout(ended, Duration::from_millis(20)).unwrap());
        if !pmix::client::server_alive() {
            return Err("the server went away".into());
        }
        if end.is_some_and(|e| Instant::now() >= e) {
            return Err(format!("run: job {ns} still running after the timeout"));
        }
    }
}
/// `pmixctl info`: what this installation is and what it can do here, and
/// the PMIx servers this user can see on this node (as OpenPMIx's
/// `pmix_info` and `pps` report). Needs no server.
mod info {
    use std::collections::BTreeMap;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};

    /// The functions newer OpenPMIx releases export, which the library exports too.
    const NEWER: &str = include_str!("../../tools/exports-newer.txt");

    /// The installed `libpmix.so.2` beside this program (`target/release`)
    /// or under its prefix (`<prefix>/bin/pmixctl`, `<prefix>/lib`).
    fn library() -> Option<PathBuf> {
        let exe = std::fs::canonicalize("/proc/self/exe").ok()?;
        let dir = exe.parent()?;
        [dir.to_path_buf(), dir.join("../lib")].into_iter().filter_map(|d| std::fs::canonicalize(d).ok()).map(|d| d.join("libpmix.so.2")).find(|p| p.exists())
    }

    /// libhwloc, as the library opens it on first use: its API version.
    fn hwloc() -> Result<String, String> {
        let lib = pmix::hwlib::library();
        if lib.is_null() {
            return Err("no: libhwloc.so.15 cannot be opened (install libhwloc15); PMIx_Load_topology, device distances and hwloc topologies as values answer PMIX_ERR_NOT_SUPPORTED; CPU sets and locality strings work without it".into());
        }
        // SAFETY: hwloc 2's `unsigned hwloc_get_api_version(void)`.
        let v = unsafe { pmix::hwlib::symbol::<unsafe extern "C" fn() -> core::ffi::c_uint>(lib, c"hwloc_get_api_version") };
        match v {
            Some(f) => {
                // SAFETY: takes nothing, returns a number.
                let v = unsafe { f() };
                Ok(format!("yes: libhwloc.so.15, API {}.{}.{} (PMIx_Load_topology, device distances, hwloc topologies as values)", v >> 16, (v >> 8) & 0xff, v & 0xff))
            }
            None => Err("no: libhwloc.so.15 lacks the hwloc 2 API".into()),
        }
    }

    /// Whether a child of this process may ask to be traced (what
    /// `pmixrun` tries at start before offering stop on exec), and Yama's
    /// ptrace_scope.
    fn ptrace() -> (bool, String) {
        // (no other thread runs yet)
        let ok = crate::ptrace_probe::may_trace_children();
        let yama = match std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope") {
            Ok(s) => format!("Yama ptrace_scope {}", s.trim()),
            Err(_) => "no Yama".to_string(),
        };
        (ok, yama)
    }

    /// One server seen on this node.
    #[derive(Default)]
    struct Server {
        pid: u32,
        program: String,
        uid: Option<u32>,
        library: &'static str,
        roles: Vec<String>,
        contact: String,
        files: Vec<String>,
    }

    fn program(pid: u32) -> String {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim().to_string()).unwrap_or_else(|_| "?".into())
    }

    /// A rendezvous file's role by its name, for host `host`.
    fn role(name: &str, host: &str) -> Option<String> {
        if name == format!("pmix.sys.{host}") {
            Some("system server".into())
        } else if name == format!("pmix.sched.{host}") {
            Some("scheduler".into())
        } else if name == format!("pmix.sysctrlr.{host}") {
            Some("system controller".into())
        } else if name == format!("pmix.{host}.tool") {
            Some("session server".into())
        } else {
            let rest = name.strip_prefix(&format!("pmix.{host}.tool."))?;
            Some(if rest.bytes().all(|b| b.is_ascii_digit()) { "tool support".into() } else { format!("namespace {rest}") })
        }
    }

    /// Rendezvous files in `dir` and up to `depth` levels below it (where
    /// OpenPMIx-based launchers such as PRRTE write theirs), never through
    /// a symlink, owned by this user or root (for root: anyone); and
    /// rpmix's session directories directly in it.
    fn scan(dir: &Path, depth: usize, host: &str, budget: &mut usize, out: &mut BTreeMap<u32, Server>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let me = nix::unistd::geteuid().as_raw();
        for e in entries.flatten() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let path = e.path();
            let Ok(md) = std::fs::symlink_metadata(&path) else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            if md.file_type().is_dir() {
                // rpmix's session directory of a live server (its lock held)
                if let Some(pid) = name.strip_prefix(&format!("rpmix.{host}.")).and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u32>().ok()) {
                    if path.join("server.sock").exists() && !lock_free(&path.join("lock")) {
                        let s = out.entry(pid).or_insert_with(|| Server { pid, library: "rpmix", ..Default::default() });
                        s.uid.get_or_insert(md.uid());
                        if s.contact.is_empty() {
                            s.contact = path.join("server.sock").display().to_string();
                        }
                        s.files.push(path.display().to_string());
                    }
                } else if depth > 0 {
                    scan(&path, depth - 1, host, budget, out);
                }
                continue;
            }
            // (root sees every user's; others their own and root's)
            if !md.file_type().is_file() || (me != 0 && md.uid() != me && md.uid() != 0) {
                continue;
            }
            let Some(role) = role(&name, host) else { continue };
            if !pmix::rendezvous::occupied(&path) {
                continue; // left by a server that is gone
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let lines: Vec<&str> = text.lines().collect();
            let Some(pid) = lines.get(2).and_then(|l| l.trim().parse::<u32>().ok()) else { continue };
            let ours = lines.get(4) == Some(&"rpmix-flock");
            let s = out.entry(pid).or_insert_with(|| Server { pid, ..Default::default() });
            s.library = if ours { "rpmix" } else { "OpenPMIx" };
            s.uid = Some(md.uid());
            if !s.roles.contains(&role) {
                s.roles.push(role);
            }
            let own = lines.iter().find_map(|l| l.strip_prefix("rpmix-contact ")).or(lines.first().copied()).unwrap_or_default();
            s.contact = own.to_string();
            s.files.push(path.display().to_string());
        }
    }

    fn lock_free(path: &Path) -> bool {
        use nix::fcntl::{Flock, FlockArg, OFlag};
        let Ok(fd) = nix::fcntl::open(path, OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC, nix::sys::stat::Mode::empty()) else { return false };
        let free: Result<Flock<std::os::fd::OwnedFd>, _> = Flock::lock(fd, FlockArg::LockExclusiveNonblock);
        free.is_ok()
    }

    /// Print the report.
    pub fn print() {
        let version = pmix::strings::VERSION.to_string_lossy();
        let newer = NEWER.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
        let (ptrace_ok, yama) = ptrace();
        let hwloc = hwloc().unwrap_or_else(|e| e);
        let host = pmix::rendezvous::hostname();
        let lib = library().map(|p| p.display().to_string()).unwrap_or_else(|| "(not beside this program: pmixctl has the library built in)".into());
        let stmp = pmix::rendezvous::server_tmpdir(&[]);
        let systmp = pmix::rendezvous::system_tmpdir(&[]);
        let mut out = BTreeMap::new();
        let mut budget = 20_000;
        scan(Path::new(&systmp), 3, &host, &mut budget, &mut out);
        if stmp != systmp {
            scan(Path::new(&stmp), 0, &host, &mut budget, &mut out);
        }
        let row = |k: &str, v: &str| println!("{:<18}{v}", format!("{k}:"));
        row("version", &version);
        row("package", &format!("rpmix {}", env!("CARGO_PKG_VERSION")));
        row("library", &lib);
        row("ABI", "OpenPMIx 4.2.2 (SONAME libpmix.so.2; its 141 PMIx_* functions, headers and pmix.pc version 4.2.2)");
        row("ABI additions", &format!("the {newer} functions OpenPMIx 4.2.3 to 5.0.9 add (binaries built against OpenPMIx 5.0's headers) and pmix_framework_names (Open MPI 5)"));
        row("protocol", &format!("rpmix's own over Unix sockets; OpenPMIx's {} (v41, tcp4) for OpenPMIx peers", pmix::ptl::SPOKEN_VERSION));
        row("hwloc", &hwloc);
        row("stop on exec", &format!("{}: PTRACE_TRACEME {} ({yama})", if ptrace_ok { "yes" } else { "no" }, if ptrace_ok { "permitted" } else { "refused" }));
        row("OpenPMIx peers", "yes: OpenPMIx 4.1 and later (tested: 4.2.2, 5.0.7) clients and tools under rpmix servers; rpmix clients and tools under their servers");
        row("compression", "DEFLATE (built in)");
        row("host", &host);
        row("server tmpdir", &stmp);
        row("system tmpdir", &systmp);
        row("servers", &out.len().to_string());
        for s in out.values_mut() {
            s.program = program(s.pid);
            let uid = match s.uid {
                Some(u) => match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(u)) {
                    Ok(Some(user)) => format!("{u} ({})", user.name),
                    _ => u.to_string(),
                },
                None => "?".into(),
            };
            // (the node-wide roles first)
            s.roles.sort_by_key(|r| (!matches!(r.as_str(), "system server" | "scheduler" | "system controller" | "session server"), r.starts_with("namespace")));
            let roles = if s.roles.is_empty() { "no tool support".to_string() } else { s.roles.join(", ") };
            println!("  pid {} {} uid {} {}: {}", s.pid, s.program, uid, s.library, roles);
            println!("    contact {}", s.contact);
        }
    }
}

static LAST_DATA: AtomicU64 = AtomicU64::new(0);

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis() as u64
}

unsafe extern "C" fn on_output(
    _h: usize,
    _channel: pmix_iof_channel_t,
    _source: *mut pmix_proc_t,
    payload: *mut pmix_byte_object_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) {
    LAST_DATA.store(now_ms(), Ordering::Relaxed);
    if let Some(bo) = payload.as_ref() {
        if let Ok(b) = pmix::data::value::bo_slice(bo) {
            write_out(b);
        }
    }
    if ninfo > 0 {
        if let Ok(infos) = Info::copy_array(info, ninfo) {
            if pmix::owned::find(&infos, PMIX_IOF_COMPLETE).is_some_and(|i| i.truthy()) && OPEN_STREAMS.fetch_sub(1, Ordering::SeqCst) == 1 {
                let _g = STREAMS_LOCK.lock();
                STREAMS_CV.notify_all();
            }
        }
    }
}

/// When stdout is a pipe, give it a 1 MiB buffer (the kernel's default is
/// 64 KiB): forwarded output comes in chunks of up to that size, each then
/// one write instead of a write and a wait for the reader per 64 KiB.
fn widen_stdout_pipe() {
    use std::os::fd::AsFd;
    let out = std::io::stdout();
    if nix::sys::stat::fstat(out.as_fd()).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFIFO) {
        let _ = nix::fcntl::fcntl(out.as_fd(), nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20));
    }
}

/// Told when the last followed stream ended (`output` waits on it).
static STREAMS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
static STREAMS_CV: std::sync::Condvar = std::sync::Condvar::new();

/// A chunk of forwarded output to stdout as it is, in as few writes as the
/// pipe or file takes (stdout's own line buffering would cut it at its last
/// newline and write the rest apart).
fn write_out(mut b: &[u8]) {
    use std::os::fd::AsFd;
    let mut o = std::io::stdout().lock();
    let _ = o.flush();
    while !b.is_empty() {
        match nix::unistd::write(o.as_fd(), b) {
            Ok(0) => return,
            Ok(n) => b = &b[n..],
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return,
        }
    }
}

/// The command line: where to attach, what to act on, the command words.
#[derive(Default)]
struct Args {
    infos: Vec<Info>,
    nspace: Option<String>,
    rank: Option<u32>,
    follow: bool,
    stderr: bool,
    timeout: Option<u32>,
    cmd: Vec<String>,
    help: bool,
    once: bool,
    json: bool,
}

fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Args, lexopt::Error> {
    use lexopt::Arg::{Long, Short};
    use lexopt::ValueExt;
    let mut a = Args::default();
    let mut p = lexopt::Parser::from_args(args);
    while let Some(arg) = p.next()? {
        match arg {
            Long("pid") => {
                let pid: i32 = p.value()?.parse()?;
                // SAFETY: a pid_t value for the PMIX_PID info.
                a.infos.push(Info::new("pmix.srvr.pidinfo", unsafe { Value::load(&pid as *const i32 as *const core::ffi::c_void, PMIX_PID) }.expect("out of memory")));
            }
            Long("uri") => a.infos.push(Info::new("pmix.srvr.uri", Value::string(&p.value()?.string()?))),
            Long("file") => a.infos.push(Info::new("pmix.tool.attach", Value::string(&p.value()?.string()?))),
            Long("system") => a.infos.push(Info::new("pmix.cnct.sys", Value::boolean(true))),
            Long("nspace") => a.nspace = Some(p.value()?.string()?),
            Long("rank") => a.rank = Some(p.value()?.parse()?),
            Long("follow") | Short('f') => a.follow = true,
            Long("stderr") => a.stderr = true,
            Long("timeout") => a.timeout = Some(p.value()?.parse()?),
            Long("help") | Short('h') => a.help = true,
            Long("once") => a.once = true,
            Long("json") => a.json = true,
            lexopt::Arg::Value(v) => {
                a.cmd.push(v.string()?);
                // `run`'s words are the job's, options included.
                if a.cmd.len() == 1 && a.cmd[0] == "run" {
                    for w in p.raw_args()? {
                        a.cmd.push(w.string()?);
                    }
                }
            }
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(a)
}

fn run(args: Vec<std::ffi::OsString>) -> Result<(), String> {
    let Args { mut infos, nspace, rank, follow, stderr, timeout: asked_timeout, cmd, help, once, json } = parse_args(args).map_err(|e| e.to_string())?;
    if help {
        println!("{HELP}");
        return Ok(());
    }
    let timeout = asked_timeout.unwrap_or(60);
    let Some(verb) = cmd.first().cloned() else { return Err("no command (pmixctl --help)".into()) };
    if verb == "info" {
        // (no server needed)
        info::print();
        return Ok(());
    }
    if infos.is_empty() && (verb == "run" || verb == "stop") {
        // (a persistent launcher is the node's system server)
        infos.push(Info::new("pmix.cnct.sys", Value::boolean(true)));
    }
    pmix::tool::init(&infos).map_err(|e| format!("cannot attach: {}", pmix::strings::error_name(e)))?;
    let result = (|| -> Result<(), String> {
        match verb.as_str() {
            "run" => return run_job(&cmd[1..], asked_timeout),
            "session" => return session(&cmd[1..]),
            "stop" => {
                let server = pmix::client::connected_server().ok_or("no server")?;
                return job_control(&Proc::wildcard(&server.nspace), vec![Info::new("pmix.jctrl.term", Value::boolean(true))]).map_err(|e| format!("stop: {e}"));
            }
            _ => {}
        }
        // The job: --nspace, else the first namespace the server lists.
        let (st, names) = namespaces()?;
        if st != PMIX_SUCCESS && names.is_empty() {
            return Err(format!("query: {}", pmix::strings::error_name(st)));
        }
        let ns = match &nspace {
            Some(n) => n.clone(),
            None => names.iter().find(|n| !n.contains(".tool.")).cloned().ok_or("the server runs no job")?,
        };
        let target = Proc::new(&ns, rank.unwrap_or(PMIX_RANK_WILDCARD));
        let jc = |dirs: Vec<Info>| job_control(&target, dirs);
        match verb.as_str() {
            "ps" => {
                for n in names.iter().filter(|n| !n.contains(".tool.")) {
                    let done = Oneshot::new();
                    let d = done.clone();
                    pmix::client::api::get(Some(Proc::wildcard(n)), "pmix.job.size".into(), Vec::new(), pmix::runtime::Completion::new(move |st, v| d.set((st, v))));
                    let size = match done.wait() {
                        Some((PMIX_SUCCESS, Some(v))) => v.as_u32().map(|s| s.to_string()).unwrap_or_else(|| "?".into()),
                        _ => "?".into(),
                    };
                    println!("{n}\t{size} ranks");
                }
                Ok(())
            }
            "pause" => jc(vec![Info::new("pmix.jctrl.pause", Value::boolean(true))]),
            "resume" => jc(vec![Info::new("pmix.jctrl.resume", Value::boolean(true))]),
            "kill" => jc(vec![Info::new("pmix.jctrl.kill", Value::boolean(true))]),
            "terminate" => jc(vec![Info::new("pmix.jctrl.term", Value::boolean(true))]),
            "checkpoint" => {
                let id = cmd.get(1).cloned().unwrap_or_else(|| format!("pmixctl.{}", std::process::id()));
                jc(vec![Info::new("pmix.jctrl.ckpt", Value::string(&id)), Info::new("pmix.timeout", Value::u32(timeout))])
            }
            "signal" => {
                let sig = cmd.get(1).and_then(|s| signal_number(s)).ok_or("signal: which signal?")?;
                jc(vec![signal_directive(sig)])
            }
            "output" => {
                let channel = if stderr { PMIX_FWD_STDERR_CHANNEL } else { PMIX_FWD_STDOUT_CHANNEL };
                let streams = match rank {
                    Some(_) => 1,
                    None => {
                        let done = Oneshot::new();
                        let d = done.clone();
                        pmix::client::api::get(Some(Proc::wildcard(&ns)), "pmix.job.size".into(), Vec::new(), pmix::runtime::Completion::new(move |st, v| d.set((st, v))));
                        match done.wait() {
                            Some((PMIX_SUCCESS, Some(v))) => v.as_u32().unwrap_or(1) as usize,
                            _ => 1,
                        }
                    }
                };
                widen_stdout_pipe();
                OPEN_STREAMS.store(streams, Ordering::SeqCst);
                LAST_DATA.store(now_ms(), Ordering::SeqCst);
                let done = Oneshot::new();
                let d = done.clone();
                pmix::client::api::iof_pull(vec![target.clone()], Vec::new(), channel, Some(on_output), pmix::runtime::Completion::new(move |st, h| d.set((st, h))));
                match done.wait() {
                    Some((PMIX_SUCCESS, _)) => {}
                    Some((st, _)) => return Err(format!("output: {}", pmix::strings::error_name(st))),
                    None => return Err("lost the server".into()),
                }
                if follow {
                    // On stderr, so stdout carries only the ranks' bytes.
                    say(&format!("following the output of {target}"));
                }
                // Without --follow: what is there now (quiet for 300 ms ends it).
                let start = Instant::now();
                loop {
                    // Woken when the last stream ends; looks again every 50 ms.
                    let g = STREAMS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
                    if OPEN_STREAMS.load(Ordering::SeqCst) != 0 {
                        let _ = STREAMS_CV.wait_timeout(g, Duration::from_millis(50));
                    }
                    if OPEN_STREAMS.load(Ordering::SeqCst) == 0 {
                        break;
                    }
                    if !follow && now_ms().saturating_sub(LAST_DATA.load(Ordering::SeqCst)) > 300 && start.elapsed() > Duration::from_millis(300) {
                        break;
                    }
                    // (a server that ends its streams by going away: PRRTE's)
                    if !pmix::client::server_alive() {
                        break;
                    }
                }
                Ok(())
            }
            "top" => top::run(&ns, once, json),
            "stdin" => push_stdin(&target),
            "pset" => pset(&ns, &cmd[1..]),
            other => Err(format!("unknown command '{other}' (pmixctl --help)")),
        }
    })();
    let _ = pmix::client::finalize();
    result
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        println!("{HELP}");
        return ExitCode::from(2);
    }
    match run(args) {
        Ok(()) => ExitCode::from(EXIT.load(Ordering::SeqCst)),
        Err(e) => die(&e),
    }
}
