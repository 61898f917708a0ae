//! pmixrun: run a job on this machine under rpmix's PMIx server.
//!
//! A real host on the same server core as every other rpmix server: it
//! registers the job, forks every rank in its own process group with the
//! environment of PMIx_server_setup_fork, serves publish/lookup (with wait),
//! spawn (a new namespace in the same pmixrun), abort (kills the job, exit
//! code = the abort status) and log (to stderr), stops the job on
//! SIGINT/SIGTERM/SIGHUP (SIGTERM to each rank's process group, SIGKILL after
//! a grace period), and leaves no process or session file behind.

mod debug;
#[path = "../shared/ptrace_probe.rs"]
mod ptrace_probe;
mod exec;
mod host;
mod io;
mod job;
mod options;

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix::owned::Info;

const HELP: &str = "\
usage: pmixrun [options] prog [args...] [: [options] prog2 [args...]] ...
       pmixrun --persistent [options]

Runs a job of one or more app contexts on this machine; every rank is a
PMIx client of pmixrun's PMIx server (rpmix).

Per app context:
  -n, -np N          number of processes of this app (default 1)
  -x VAR[=VALUE]     export VAR (its current value, or VALUE) to the ranks
      --env VAR=VALUE  same as -x VAR=VALUE
      --wdir DIR     working directory of the ranks
      --pset NAME    the ranks of this app form the process set NAME (their
                     PMIX_PSET_NAME; the set's members in the queries MPI
                     Sessions make; deleted when the job ends)

Global (before the first program):
      --persistent   run no program: be the node's system server and start
                     the jobs tools ask for (PMIx_Spawn; pmixctl run), each
                     failing alone, until SIGTERM or pmixctl stop (exit 0);
                     its jobs' output goes to the tools, never here
      --timeout S    kill the job after S seconds (exit code 124)
      --grace S      seconds between SIGTERM and SIGKILL (default 2)
      --bind-to WHAT pin each rank to one core or hwthread (round robin over
                     the machine's, in hwloc's logical order), or none
                     (default); bound ranks get PMIX_CPUSET and
                     PMIX_LOCALITY_STRING in their job data
      --preempt-notice S  on SIGTERM, ranks that registered themselves
                     preemptible (PMIX_JOB_CTRL_PREEMPTIBLE) get the event
                     PMIX_JCTRL_PREEMPT_ALERT and up to S seconds (default
                     10; 0: none) to send PMIX_JCTRL_CHECKPOINT_COMPLETE or
                     exit before the job is stopped
  -v, --verbose      report the job's progress on stderr
      --on-stall ACTION  when a monitored rank stalls (heartbeat or file
                     monitor alert, unless the rank asked to handle it with
                     PMIX_MONITOR_APP_CONTROL): terminate (default: stop the
                     job, exit code 1), kill (that rank), or report
      --tag-output   prefix each line with [namespace,rank]<stdout|stderr>:
      --timestamp-output  prefix each line with the time it arrived
      --output MODE  lines (default: each rank's output reaches the terminal
                     in whole lines, never mixed with another rank's partial
                     line) or raw (bytes as they come: '\\r' progress bars)
      --output-dir D write each rank's stdout/stderr to D/<ns>/rank.<r>/
      --stdin WHO    where pmixrun's stdin goes: a rank (default 0), all, none
      --iof-cache BYTES[,oldest|newest]  output each rank writes before a
                     tool pulls it is kept for the tool up to BYTES per rank
                     and stream (default 1 MiB), dropping the oldest
                     (default) or the newest beyond
      --no-ompi-hint don't set JSM_JSRUN_PORT in the ranks' environment.
                     Open MPI 4.1 takes its PMIx direct-launch path only
                     when it recognises a launcher (Slurm, Flux, JSM); pmixrun
                     sets JSM_JSRUN_PORT=0 (unless already set) so that MPI
                     programs run directly under it. Nor, when the node
                     runs more ranks than it has CPUs, set
                     OMPI_MCA_mpi_yield_when_idle=1 (unless set), which
                     Open MPI's mpirun sets in that case so that waiting
                     ranks give their CPU to the others.
  -h, --help         this text

The exit code is the first failing rank's exit code (128+N for a rank killed
by signal N), the status of PMIx_Abort if a rank aborted, 124 on timeout,
and 0 when every rank exited 0. On SIGINT/SIGTERM/SIGHUP pmixrun stops the
job: SIGTERM to every rank's process group, SIGKILL after the grace period
(exit code 128 + the signal pmixrun received); registered cleanup still runs.
SIGTERM is taken as a scheduler's preemption notice (see --preempt-notice).

PMIx services: job data right after PMIx_Init (sizes, local peers and
ranks, node map, appnum, ...), fences, Put/Get, events, publish/lookup
(PMIX_WAIT, PMIX_TIMEOUT), spawn (a new namespace in this pmixrun),
connect/disconnect, abort, log (printed to stderr), query, job control
(pause = SIGSTOP, resume = SIGCONT, kill, terminate, signal, checkpoint by
the target's registered signal or event, completing on the target's
PMIX_JCTRL_CHECKPOINT_COMPLETE; restart and provisioning are not supported; process sets defined and deleted: pmixctl pset), session control (pause, resume, terminate, signal every job: pmixctl session), allocation requests for this machine's CPUs (a ledger: new, extend, release), process monitoring (heartbeats, files), and cleanup of the files
and directories ranks registered, also after Ctrl-C.";

pub enum Event {
    /// `code`: the exit code, or 128 + the signal that ended it (`signal`).
    Exited { pid: i32, code: i32, signal: Option<i32> },
    Signal(i32),
    Spawn(host::SpawnReq),
    Abort { status: i32, from: String },
    /// A rank reported PMIX_JCTRL_CHECKPOINT_COMPLETE.
    CheckpointDone(pmix::owned::Proc),
    /// A traced rank (stop on exec) stopped with a signal.
    TracedStop { pid: i32, sig: i32 },
    /// PMIX_DEBUGGER_RELEASE from `sender` for `targets` (none: its own jobs).
    DebuggerRelease { sender: pmix::owned::Proc, targets: Vec<pmix::owned::Proc> },
    /// A tool's connection ended.
    ToolGone(pmix::owned::Proc),
    /// A rank reports it waits in PMIx_Init for a debugger.
    WaitingInInit(pmix::owned::Proc),
    /// Session control: terminate every job.
    EndSession,
}

/// glibc's malloc arenas this process may use. By default glibc gives
/// each new thread that allocates an arena of its own, up to 8 per core,
/// and keeps what it freed there: a launcher that starts threads for each
/// job's output and input (a persistent one, thousands of jobs) grew its
/// RSS by 14 MB over 10,000 jobs with its live heap flat. Two arenas keep
/// its few busy threads apart and the memory it frees reusable.
const MALLOC_ARENAS: i32 = 2;

/// Allocations from this size up are mapped on their own and unmapped when
/// freed. glibc's default threshold rises to the largest such block freed
/// (up to 32 MiB), after which the output readers' 1 MiB buffers come from
/// the arenas and stay there when freed, by chance: a persistent launcher's
/// RSS then moved by megabytes from one run to the next with its live heap
/// the same. A fixed threshold keeps them mapped.
const MALLOC_MMAP_THRESHOLD: i32 = 256 << 10;

fn main() -> ExitCode {
    // (before any other thread exists; the variable in the environment still wins)
    for (var, param, value) in [("MALLOC_ARENA_MAX", libc::M_ARENA_MAX, MALLOC_ARENAS), ("MALLOC_MMAP_THRESHOLD_", libc::M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD)] {
        if std::env::var_os(var).is_none() {
            // SAFETY: mallopt(3) only sets a tunable of glibc's allocator; no memory is passed.
            unsafe {
                libc::mallopt(param, value);
            }
        }
    }
    exec::reserve_slots();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match options::parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("pmixrun: {e}\n(pmixrun --help for usage)");
            return ExitCode::from(2);
        }
    };
    match run(opts) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("pmixrun: {e}");
            ExitCode::from(1)
        }
    }
}

/// What pmixrun holds for each live rank: its connection, its output
/// pipes, its stdin pipe.
pub const DESCRIPTORS_PER_RANK: usize = 4;

/// Each rank costs pmixrun a few descriptors (its connection, its output
/// pipes): take the hard limit, so a job of thousands of ranks on a large
/// node does not fail on the soft one (1,024 on many systems).
fn raise_open_file_limit(verbose: bool) {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else { return };
    if soft < hard {
        match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) if verbose => eprintln!("pmixrun: open files limit raised from {soft} to {hard}"),
            Ok(()) => {}
            Err(e) => eprintln!("pmixrun: cannot raise the open files limit from {soft}: {e}"),
        }
    }
}

fn run(opts: options::Options) -> Result<u8, String> {
    let verbose = opts.verbose;
    raise_open_file_limit(verbose);
    // The first job's descriptors, while this is the only thread: the
    // table then never grows while its ranks start (server/descriptors.rs).
    pmix::server::descriptors::reserve(DESCRIPTORS_PER_RANK * opts.apps.iter().map(|a| a.maxprocs as usize).sum::<usize>() + 64);
    // (before any thread: the probe forks)
    let stop_on_exec = debug::probe_stop_on_exec();
    // Signals are taken by one thread (sigwait); every other thread blocks them.
    job::block_signals();
    let (tx, rx) = mpsc::channel::<Event>();
    job::start_signal_thread(tx.clone());
    // (now, not at the first rank: a persistent launcher's threads and
    // descriptors are the same before its first job and after its last)
    io::start_watcher();
    let pids: host::Pids = Default::default();
    let stdins: io::Stdins = Default::default();
    let host = host::LauncherHost::new(tx.clone(), pids.clone(), stdins.clone(), opts.on_stall, stop_on_exec, verbose);
    // A launcher tools may attach to: rendezvous files for tools in its tmpdir.
    let mut info = vec![
        Info::new("pmix.srv.nspace", pmix::owned::Value::string(&format!("rpmixrun.{}", std::process::id()))),
        Info::new("pmix.srvr.tool", pmix::owned::Value::boolean(true)),
    ];
    if opts.persistent {
        // The node's system server: tools find it with PMIX_CONNECT_TO_SYSTEM.
        info.push(Info::new("pmix.srvr.sys", pmix::owned::Value::boolean(true)));
    }
    if let Some((bytes, newest)) = opts.iof_cache {
        info.push(Info::new("pmix.iof.csize", pmix::owned::Value::u32(bytes)));
        info.push(Info::new(if newest { "pmix.iof.new" } else { "pmix.iof.old" }, pmix::owned::Value::boolean(true)));
    }
    pmix::server::init(Box::new(host), &info).map_err(|e| format!("cannot start the PMIx server ({})", pmix::strings::error_name(e)))?;
    let mut launcher = job::Launcher::new(tx.clone(), verbose);
    launcher.ompi_hint = opts.ompi_hint;
    launcher.bind_to = opts.bind_to;
    launcher.pids = pids;
    launcher.io = std::sync::Arc::new(opts.io.clone());
    launcher.stdins = stdins.clone();
    launcher.persistent = opts.persistent;
    launcher.stop_on_exec = stop_on_exec;
    job::start_reaper(tx.clone());
    let result = (|| -> Result<u8, String> {
        if !opts.persistent {
            launcher.launch(&opts.apps, None).map_err(|e| format!("cannot launch: {e}"))?;
        } else if verbose {
            eprintln!("pmixrun: persistent: waiting for jobs from tools (pmixctl run)");
        }
        if opts.io.stdin != io::StdinTarget::None {
            io::forward_stdin(stdins.clone());
        }
        let mut deadline = opts.timeout.map(|s| Instant::now() + Duration::from_secs(s));
        // (an event taken from the queue behind rank ends, handled next)
        let mut held: Option<Event> = None;
        loop {
            if launcher.alive() == 0 && (!opts.persistent || launcher.stopping()) {
                launcher.decide();
                return Ok(launcher.exit_code());
            }
            let mut wait = deadline.map(|d| d.saturating_duration_since(Instant::now())).unwrap_or(Duration::from_secs(3600));
            for d in [launcher.decide_at, launcher.preemption.as_ref().map(|p| p.until)].into_iter().flatten() {
                wait = wait.min(d.saturating_duration_since(Instant::now()));
            }
            let next = match held.take() {
                Some(ev) => Ok(ev),
                None => rx.recv_timeout(wait),
            };
            match next {
                Ok(Event::Exited { pid, code, signal }) => {
                    // Every end already reported goes with this one (the
                    // first other event waits its turn, after them).
                    let mut ends = vec![(pid, code, signal)];
                    for ev in rx.try_iter() {
                        match ev {
                            Event::Exited { pid, code, signal } => ends.push((pid, code, signal)),
                            other => {
                                held = Some(other);
                                break;
                            }
                        }
                    }
                    launcher.exited(&ends)
                }
                Ok(Event::Signal(sig)) => {
                    if sig == libc::SIGTERM && launcher.preempt(opts.preempt_notice, opts.grace, 128 + sig) {
                        continue;
                    }
                    if verbose {
                        eprintln!("pmixrun: signal {sig}: stopping the job");
                    }
                    launcher.preemption = None;
                    // (a persistent launcher told to stop ends cleanly)
                    launcher.stop_job(opts.grace, if opts.persistent { 0 } else { 128 + sig });
                }
                Ok(Event::CheckpointDone(p)) => launcher.preempt_progress(Some(&p)),
                Ok(Event::Spawn(req)) => launcher.spawn(req),
                Ok(Event::TracedStop { pid, sig }) => launcher.traced_stop(pid, sig),
                Ok(Event::DebuggerRelease { sender, targets }) => launcher.debugger_release(&sender, &targets),
                Ok(Event::ToolGone(tool)) => launcher.tool_gone(&tool, opts.grace),
                Ok(Event::WaitingInInit(p)) => launcher.waiting_in_init(&p),
                Ok(Event::EndSession) => {
                    if verbose {
                        eprintln!("pmixrun: session control: terminating every job");
                    }
                    if opts.persistent {
                        launcher.stop_all_ns(opts.grace);
                    } else {
                        launcher.stop_job(opts.grace, 128 + libc::SIGTERM);
                    }
                }
                Ok(Event::Abort { status, from }) if opts.persistent => {
                    // A tool's job aborts alone.
                    let ns = from.rsplit_once(':').map_or(from.as_str(), |(ns, _)| ns).trim_start_matches("the monitor of ");
                    eprintln!("pmixrun: {from} called PMIx_Abort({status}): stopping its job");
                    launcher.stop_ns(ns, opts.grace);
                }
                Ok(Event::Abort { status, from }) => {
                    if verbose {
                        eprintln!("pmixrun: {from} called PMIx_Abort({status}): stopping the job");
                    }
                    launcher.stop_job(opts.grace, status);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if launcher.decide_at.is_some_and(|d| Instant::now() >= d) {
                        launcher.decide();
                    }
                    launcher.preempt_progress(None);
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        deadline = None;
                        eprintln!("pmixrun: timeout after {} s: stopping the job", opts.timeout.unwrap_or(0));
                        launcher.stop_job(opts.grace, 124);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(launcher.exit_code()),
            }
        }
    })();
    launcher.kill_all();
    io::drain(Duration::from_secs(5));
    let _ = pmix::server::finalize();
    result
}
