//! Faults: bad frames, killed ranks and servers, the mutation fuzzer.

use rpmix_systests::*;

/// The mutation fuzzer (src/bin/rpmix-fuzz.rs) over every decoder, briefly
/// (`make fuzz` runs it longer).
#[test]
fn fuzz_briefly() {
    run(Cmd::new(env().libdir.join("rpmix-fuzz")).args(["--seconds", "10"]), secs(600)).ok();
}

// ---------------------------------------------------------------- faults under a launcher
//
// Every run is bounded at 30 s (every test program also bounds itself with
// alarm()). After every run, processes still carrying the case's marker (an
// argument of its command lines) are a failure, and are killed.

/// The time limit of every run of these cases.
const T: std::time::Duration = secs(30);

/// How a launcher's run ended, looked at before anything it left behind
/// is ended.
struct Ended {
    run: Run,
    /// Killed at the time limit (`T`).
    timed_out: bool,
    /// From the start to the launcher's end.
    took: std::time::Duration,
    /// Processes carrying the marker after it (killed): "<pid> <command line>".
    left: Vec<String>,
}

/// Runs `cmd` (at most `T`: then the launcher is killed), waits up to 5 s
/// for no process to carry `marker`, then reaps the launcher; its outputs
/// go to `<log>.out` / `<log>.err` in the case's directory.
fn run_marked(case: &Case, log: &str, cmd: Cmd, marker: &str) -> Ended {
    let t0 = std::time::Instant::now();
    let job = Job::start(cmd);
    let timed_out = !job.wait_ended(T);
    if timed_out {
        job.signal(libc::SIGKILL);
        job.wait_ended(secs(10));
    }
    let took = t0.elapsed();
    let left = leftovers(marker, secs(5));
    let run = job.wait(secs(10));
    run.save(case, log);
    Ended { run, timed_out, took, left }
}

/// Panics with the reasons in `why` (if any), the command and its output.
fn verdict(e: &Ended, why: &[String]) {
    let mut why = why.to_vec();
    if !e.left.is_empty() {
        why.push(format!("processes left running: {}", e.left.join("; ")));
    }
    assert!(why.is_empty(), "{}", e.run.report(&why.join(", ")));
}

/// Whether some line of either output contains `s`.
fn said(r: &Run, s: &str) -> bool {
    r.all_lines().iter().any(|l| l.contains(s))
}

fn pmixrun(t: &TmpDir) -> Cmd {
    Cmd::new(&env().pmixrun).env("TMPDIR", t).on(Lib::Ours)
}

fn rm_simple(t: &TmpDir) -> Cmd {
    Cmd::new(c_prog("rm_simple", Build::Ours)).env("TMPDIR", t).on(Lib::Ours)
}

/// fault_garbage -n 4 under `launcher`: raw garbage on the server socket
/// (random bytes, impossible and oversized lengths, truncated and byte-wise
/// hellos, unregistered ranks and namespaces, every tag without a hello,
/// idle connections), then a normal Put/Fence/Get job and a refused
/// duplicate connection: exit 0, no step fails, a clean summary, nothing
/// left running.
fn garbage(name: &str, launcher: Cmd) {
    let case = Case::new(name);
    let marker = new_marker(name);
    let e = run_marked(&case, "job", launcher.args(["-n", "4"]).arg(c_prog("fault_garbage", Build::Ours)).arg(&marker), &marker);
    let mut why = Vec::new();
    if e.timed_out {
        why.push("time limit hit".to_string());
    } else if e.run.code() != Some(0) {
        why.push(format!("exit {:?}", e.run.code()));
    } else if said(&e.run, ": FAIL") {
        why.push("a step failed".into());
    } else if !e.run.all_lines().iter().any(|l| l.strip_suffix(" passed, 0 failed").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))) {
        why.push("no summary line".into());
    }
    verdict(&e, &why);
}

/// Garbage on pmixrun's server socket: pmixrun drops it, refuses the bad
/// hellos and goes on serving its job (see [`garbage`]).
#[test]
fn garbage_pmixrun() {
    let t = TmpDir::new("fault");
    garbage("garbage_pmixrun", pmixrun(&t).args(["--timeout", "25"]));
}

/// Garbage on the server socket of a C host (rm_simple, on rpmix's server
/// library): it drops it, refuses the bad hellos and goes on serving its
/// job (see [`garbage`]).
#[test]
fn garbage_rm_simple() {
    let t = TmpDir::new("fault");
    garbage("garbage_rm_simple", rm_simple(&t).args(["-t", "25"]));
}

/// The job must end within this long when a rank dies around a fence.
const FENCE_KILL_MAX: std::time::Duration = secs(15);

/// fault_fence_kill -n 4 under `launcher` (`pmixrun` or `rm_simple`): rank
/// 3 SIGKILLs itself around a fence the others enter (`mode`: `now` at
/// once, `early` 1 s before the others enter, `late` 1 s after). The job
/// ends within 15 s with a non-zero exit code and no fence succeeds; the
/// setup (Init, the first fence) worked; pmixrun reports the killed rank;
/// under rm_simple (which never kills the other ranks) the 3 survivors all
/// return from the fence; nothing is left running.
fn fence_kill(lname: &str, mode: &str, launcher: Cmd) {
    let name = format!("fence_kill_{lname}_{mode}");
    let case = Case::new(&name);
    let marker = new_marker(&name);
    let e = run_marked(&case, "job", launcher.args(["-n", "4"]).arg(c_prog("fault_fence_kill", Build::Ours)).arg(mode).arg(&marker), &marker);
    let lines = e.run.all_lines();
    let mut why = Vec::new();
    if e.timed_out || e.run.code() == Some(124) {
        why.push("exit 124: time limit hit".to_string());
    } else if e.run.code() == Some(0) {
        why.push("exit 0: the job did not fail".into());
    }
    if e.took > FENCE_KILL_MAX {
        why.push(format!("took {:?} (limit {FENCE_KILL_MAX:?})", e.took));
    }
    if said(&e.run, "fence returned SUCCESS") {
        why.push("a fence succeeded although a participant died".into());
    }
    let setup_failed = |l: &&str| {
        l.match_indices("fault_fence_kill: ").any(|(i, m)| {
            let rest = &l[i + m.len()..];
            rest.starts_with("PMIx_Init")
                || rest.starts_with("needs")
                || rest.strip_prefix("rank ").and_then(|r| r.split_once(": first fence")).is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    if lines.iter().any(setup_failed) {
        why.push("setup failed".into());
    }
    if lname == "pmixrun" {
        if !said(&e.run, ":3 was killed by signal 9") {
            why.push("pmixrun did not report rank 3 killed by signal 9".into());
        }
    } else {
        let nret = lines.iter().filter(|l| l.contains("fence returned")).count();
        if nret != 3 {
            why.push(format!("{nret} of 3 surviving ranks returned from the fence"));
        }
    }
    verdict(&e, &why);
}

/// Under pmixrun, rank 3 of 4 SIGKILLs itself as the others enter a fence:
/// the job fails within 15 s, no fence succeeds, pmixrun reports rank 3
/// killed by signal 9 (see [`fence_kill`]).
#[test]
fn fence_kill_pmixrun_now() {
    let t = TmpDir::new("fault");
    fence_kill("pmixrun", "now", pmixrun(&t).args(["--timeout", "25"]));
}

/// Under pmixrun, rank 3 of 4 SIGKILLs itself 1 s before the others enter
/// a fence: the job fails within 15 s, no fence succeeds, pmixrun reports
/// rank 3 killed by signal 9 (see [`fence_kill`]). (No `late` under pmixrun: whether the survivors' exit
/// or the killed rank is reaped first is a race there, so its report of
/// the killed rank would flap.)
#[test]
fn fence_kill_pmixrun_early() {
    let t = TmpDir::new("fault");
    fence_kill("pmixrun", "early", pmixrun(&t).args(["--timeout", "25"]));
}

/// Under the C host rm_simple, rank 3 of 4 SIGKILLs itself as the others
/// enter a fence: the 3 survivors' fences return an error, the job fails
/// within 15 s (see [`fence_kill`]).
#[test]
fn fence_kill_rm_simple_now() {
    let t = TmpDir::new("fault");
    fence_kill("rm_simple", "now", rm_simple(&t).args(["-t", "18"]));
}

/// Under the C host rm_simple, rank 3 of 4 SIGKILLs itself 1 s after the
/// others entered a fence (the server has it in progress): the 3
/// survivors' fences return an error, the job fails within 15 s (see
/// [`fence_kill`]).
#[test]
fn fence_kill_rm_simple_late() {
    let t = TmpDir::new("fault");
    fence_kill("rm_simple", "late", rm_simple(&t).args(["-t", "18"]));
}

/// Under the C host rm_simple, rank 3 of 4 SIGKILLs itself 1 s before the
/// others enter a fence (the server knows it is gone): the 3 survivors'
/// fences return an error, the job fails within 15 s (see [`fence_kill`]).
#[test]
fn fence_kill_rm_simple_early() {
    let t = TmpDir::new("fault");
    fence_kill("rm_simple", "early", rm_simple(&t).args(["-t", "18"]));
}

/// fault_server_exit under the C host rm_simple -n 3: rank 0 SIGKILLs the
/// host while the other ranks wait in `op` (a fence or a Get), then makes
/// the same call. The ranks outlive their host (under pmixrun they would
/// die with it: [`killed_launcher`]) and each writes one result line:
/// within 15 s there are 3, each saying that its call returned
/// LOST_CONNECTION or UNREACH and every later call behaved ("...: ok");
/// nothing is left running.
fn server_exit(op: &str) {
    let name = format!("server_exit_{op}");
    let case = Case::new(&name);
    let t = TmpDir::new("fault");
    let marker = new_marker(&name);
    let res = case.path("result");
    let count = || std::fs::read_to_string(&res).map(|s| s.lines().count()).unwrap_or(0);
    let t0 = std::time::Instant::now();
    let job = Job::start(rm_simple(&t).args(["-t", "25", "-n", "3"]).arg(c_prog("fault_server_exit", Build::Ours)).arg(&res).arg(op).arg(&marker));
    let timed_out = !job.wait_ended(T);
    if timed_out {
        job.signal(libc::SIGKILL);
        job.wait_ended(secs(10));
    }
    let took = t0.elapsed();
    // The host is dead (rank 0 killed it): the ranks report through the file only.
    let _ = wait_until("3 result lines", secs(15), || count() >= 3);
    let text = std::fs::read_to_string(&res).unwrap_or_default();
    let left = leftovers(&marker, secs(5));
    let run = job.wait(secs(10));
    run.save(&case, "job");
    let e = Ended { run, timed_out, took, left };
    let mut why = Vec::new();
    if e.timed_out || e.run.code() == Some(124) {
        why.push(format!("rm_simple still running after {:?}", e.took));
    }
    let n = text.lines().count();
    if n != 3 {
        why.push(format!("{n} of 3 result lines"));
    }
    for r in 0..3 {
        let passing = text.lines().any(|l| {
            l.strip_prefix(&format!("rank {r}: {op} -> PMIX_ERR_"))
                .and_then(|rest| rest.strip_prefix("LOST_CONNECTION ").or_else(|| rest.strip_prefix("UNREACH ")))
                .is_some_and(|rest| rest.ends_with(": ok"))
        });
        if res.exists() && !passing {
            why.push(format!("rank {r}: no passing line"));
        }
    }
    if !why.is_empty() {
        why.push(format!("the result file:\n{text}"));
    }
    verdict(&e, &why);
}

/// The C host killed while its ranks wait in a fence: each rank's fence,
/// and every later call, returns an error (see [`server_exit`]).
#[test]
fn server_exit_fence() {
    server_exit("fence");
}

/// The C host killed while its ranks wait in a Get of a key nobody puts:
/// each rank's Get, and every later call, returns an error (see
/// [`server_exit`]).
#[test]
fn server_exit_get() {
    server_exit("get");
}

/// The server side under valgrind (no leak check): rm_simple -n 2 running
/// fault_garbage exits 0, valgrind reports no error and no step fails;
/// nothing is left running.
#[test]
fn rm_simple_valgrind() {
    let case = Case::new("rm_simple_valgrind");
    let t = TmpDir::new("fault");
    let marker = new_marker("rm_simple_valgrind");
    let cmd = Cmd::new("valgrind")
        .args(["--error-exitcode=9", "-q", "--leak-check=no"])
        .arg(c_prog("rm_simple", Build::Ours))
        .args(["-t", "25", "-n", "2"])
        .arg(c_prog("fault_garbage", Build::Ours))
        .arg(&marker)
        .env("TMPDIR", &t)
        .on(Lib::Ours);
    let e = run_marked(&case, "job", cmd, &marker);
    let mut why = Vec::new();
    if e.timed_out {
        why.push("time limit hit".to_string());
    } else if e.run.code() == Some(9) {
        why.push("valgrind reported errors".into());
    } else if e.run.code() != Some(0) {
        why.push(format!("exit {:?}", e.run.code()));
    } else if said(&e.run, ": FAIL") {
        why.push("a step failed".into());
    }
    verdict(&e, &why);
}

/// pmixrun -n 2 killed with SIGKILL while its ranks run (not inside any
/// PMIx call): its ranks die with it (their parent-death signal), its
/// session directory stays until the next pmixrun, which removes it and
/// its tool rendezvous file (their locks are free) but leaves those of a
/// live pmixrun alone.
#[test]
fn killed_launcher() {
    let case = Case::new("killed_launcher");
    let t = TmpDir::new("fault");
    let marker = new_marker("killed_launcher");
    let (live_m, dead_m) = (format!("{marker}-live"), format!("{marker}-dead"));
    let host = hostname();
    let session = |pid: u32| t.path().join(format!("rpmix.{host}.{pid}"));
    let rendezvous = |pid: u32| t.path().join(format!("pmix.{host}.tool.{pid}"));
    let mut why: Vec<String> = Vec::new();
    // a live server whose files must stay
    let live = Job::start(pmixrun(&t).args(["--timeout", "30", "-n", "1", "sh", "-c", "sleep 20; true"]).arg(&live_m));
    let dead = Job::start(pmixrun(&t).args(["--timeout", "30", "-n", "2", "sh", "-c", "sleep 20; true"]).arg(&dead_m));
    // (both running: their ranks started, their files made)
    let ranks = wait_children_running(dead.pid(), 2, "sh", secs(30)).unwrap();
    wait_children_running(live.pid(), 1, "sh", secs(30)).unwrap();
    wait_until("the live pmixrun's rendezvous file", secs(30), || rendezvous(live.pid()).exists()).unwrap();
    if wait_until("the session directory", secs(30), || session(dead.pid()).is_dir()).is_err() {
        why.push(format!("no session directory {} while it ran", session(dead.pid()).display()));
    }
    let pid = dead.pid();
    dead.signal(libc::SIGKILL);
    dead.wait_ended(secs(30));
    let left = leftovers(&dead_m, secs(5));
    if !left.is_empty() {
        why.push(format!("ranks outlived the killed pmixrun: {}", left.join("; ")));
    }
    // (what the ranks' shells had started, in the ranks' process groups)
    for r in ranks {
        // SAFETY: kill(2) of this case's ranks' process groups; no memory is involved.
        unsafe {
            libc::kill(-(r as i32), libc::SIGKILL);
        }
    }
    let dead_run = dead.wait(secs(10));
    dead_run.save(&case, "dead");
    if !session(pid).is_dir() {
        why.push("the killed pmixrun's session directory vanished by itself?".into());
    }
    let next = run(pmixrun(&t).args(["--timeout", "30", "-n", "1", "true"]), T);
    next.save(&case, "next");
    if !next.success() {
        why.push(next.report("the next pmixrun failed"));
    }
    if session(pid).exists() {
        why.push("the next pmixrun left the dead one's session directory".into());
    }
    if rendezvous(pid).exists() {
        why.push("the next pmixrun left the dead one's rendezvous file".into());
    }
    if !session(live.pid()).is_dir() {
        why.push("the live server's session directory was removed".into());
    }
    if !rendezvous(live.pid()).exists() {
        why.push("the live server's rendezvous file was removed".into());
    }
    live.signal(libc::SIGTERM);
    live.wait_ended(secs(30));
    let left = leftovers(&live_m, secs(5));
    if !left.is_empty() {
        why.push(format!("processes left running: {}", left.join("; ")));
    }
    live.wait(secs(10)).save(&case, "live");
    assert!(why.is_empty(), "{}", why.join(", "));
}
