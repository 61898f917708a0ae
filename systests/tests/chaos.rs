//! Chaos: seeded rounds in which a job of many ranks (c-tests/chaos_rank.c:
//! init, fences, output) is struck at a random point: a random rank gets
//! SIGKILL, or SIGSTOP for a while then SIGCONT, at a fence or inside
//! PMIx_Init (as its process starts, or once it opened its connection to
//! the server: mid-handshake), or a tool attached with `pmixctl output
//! --follow` does, once it follows the output or during its attach
//! handshake. Other rounds strike in a spawn or a connect
//! (c-tests/chaos_spawn.c), or run under Open MPI's mpirun on rpmix and on
//! OpenPMIx. Mid-IOF rounds strike a rank writing output as fast as it is
//! let, with a tool following it (c-tests/chaos_iof.c); debugger rounds
//! strike the tool or the debugger daemons holding a job at its debug stop
//! (c-tests/tool_launch.c, debug_daemon.c); connect rounds strike a rank of
//! one job in, or before, its PMIx_Connect with a group of its job
//! (c-tests/chaos_connect.c). Each round asserts that the job ends within
//! its bound, that the survivors see what the Standard names, that the exit
//! code is the documented one and that nothing is left.
//!
//! `make test` runs 20 rounds of 16-64 ranks, 10 spawn rounds, 4 mpirun
//! rounds, 4 mid-IOF, 6 debugger and 8 connect rounds; `make chaos` 200
//! rounds of 64-256, 100, 40, 40, 60 and 100 (`RPMIX_CHAOS_ROUNDS`,
//! `RPMIX_CHAOS_SPAWN_ROUNDS`, `RPMIX_CHAOS_MPIRUN_ROUNDS`,
//! `RPMIX_CHAOS_IOF_ROUNDS`, `RPMIX_CHAOS_DEBUG_ROUNDS`,
//! `RPMIX_CHAOS_CONNECT_ROUNDS`, `RPMIX_CHAOS_MIN_RANKS`,
//! `RPMIX_CHAOS_MAX_RANKS`). Every round prints its seed: `RPMIX_CHAOS_SEED=S
//! RPMIX_CHAOS_ROUND=R` replays round R alone (of each test).

use rpmix_systests::*;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// A number from the environment, or `default`.
fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// splitmix64: a small seeded generator (a round's choices from its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// In `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// The fences a rank names on its output (the points a round strikes at).
const NAMED_FENCES: u64 = 20;
/// How long a round may take, from start to the launcher's end.
const BOUND: Duration = Duration::from_secs(45);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Launcher {
    Pmixrun,
    RmSimple,
}

/// Where in a process's start a strike lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Point {
    /// As soon as the process runs its program (before or in PMIx_Init,
    /// before it connected).
    Exec,
    /// As soon as it has a socket: its connection to the server is open and
    /// the handshake in progress (or just done).
    Connect,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strike {
    /// SIGKILL to a rank at a fence.
    KillRank,
    /// SIGSTOP to a rank at a fence, SIGCONT after the given milliseconds.
    StopRank(u64),
    /// SIGKILL to a tool following the job's output.
    KillTool,
    /// SIGSTOP to that tool, SIGCONT after the given milliseconds.
    StopTool(u64),
    /// SIGKILL to a rank in its PMIx_Init.
    KillInit(Point),
    /// SIGSTOP to a rank in its PMIx_Init, SIGCONT after the milliseconds.
    StopInit(u64, Point),
    /// SIGKILL to a tool in its attach handshake (before it printed anything).
    KillToolAttach(Point),
    /// SIGSTOP to a tool in its attach handshake, SIGCONT after the milliseconds.
    StopToolAttach(u64, Point),
}

impl Strike {
    fn at_tool(self) -> bool {
        matches!(self, Strike::KillTool | Strike::StopTool(_) | Strike::KillToolAttach(_) | Strike::StopToolAttach(..))
    }
    fn at_init(self) -> bool {
        matches!(self, Strike::KillInit(_) | Strike::StopInit(..))
    }
}

/// The pids of processes whose command line holds `marker`.
fn marked(marker: &str) -> Vec<u32> {
    let mut v = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let cmd = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if cmd.split(|b| *b == 0).any(|a| a == marker.as_bytes()) && proc_state(pid).is_some_and(|s| s != 'Z') {
            v.push(pid);
        }
    }
    v
}

/// The pid of the process marked `marker` whose PMIX_RANK is `rank`.
fn rank_pid(marker: &str, rank: u64) -> Option<u32> {
    marked_rank_pid(marker, rank, None)
}

/// The pid of the process marked `marker` whose PMIX_RANK is `rank` and
/// whose arguments hold `arg` (when given) or not (when not).
fn marked_rank_pid(marker: &str, rank: u64, arg: Option<&str>) -> Option<u32> {
    let want = format!("PMIX_RANK={rank}");
    marked(marker).into_iter().find(|p| {
        let cmd = fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
        let has_arg = arg.is_some_and(|a| cmd.split(|b| *b == 0).any(|x| x == a.as_bytes()));
        has_arg == arg.is_some() && fs::read(format!("/proc/{p}/environ")).unwrap_or_default().split(|b| *b == 0).any(|kv| kv == want.as_bytes())
    })
}

/// The sockets `pid` has open (`socket:[inode]`).
fn sockets(pid: u32) -> std::collections::BTreeSet<String> {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| fs::read_link(e.path()).ok().map(|l| l.to_string_lossy().into_owned()))
        .filter(|l| l.starts_with("socket:"))
        .collect()
}

/// Whether `pid` runs `prog` (it has exec'd).
fn runs(pid: u32, prog: &Path) -> bool {
    fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| fs::canonicalize(prog).is_ok_and(|p| p == e))
}

/// Waits until `f` gives something, checking as often as it can (a strike
/// that should land inside a handshake of a few milliseconds), at most
/// `limit`.
fn poll<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Strikes `pid` when it reaches `point` (or has ended); returns whether it
/// had a socket open at the strike besides those it `inherited` (its
/// connection to the server). `at_strike` runs right after SIGKILL or
/// SIGSTOP (before the SIGCONT).
fn strike_at(pid: u32, prog: &Path, point: Point, inherited: &std::collections::BTreeSet<String>, kill: Option<u64>, at_strike: impl FnOnce()) -> bool {
    let connected = || sockets(pid).difference(inherited).next().is_some();
    let _ = poll(secs(30), || match point {
        _ if proc_ended(pid) => Some(()),
        Point::Exec => runs(pid, prog).then_some(()),
        Point::Connect => connected().then_some(()),
    });
    let connected = connected();
    match kill {
        None => {
            signal(pid, libc::SIGKILL);
            at_strike();
        }
        Some(ms) => {
            signal(pid, libc::SIGSTOP);
            at_strike();
            std::thread::sleep(Duration::from_millis(ms));
            signal(pid, libc::SIGCONT);
        }
    }
    connected
}

/// Waits for every line of `want` (in any order), at most `limit`.
fn wait_lines(job: &Job, want: &[String], limit: Duration) -> Result<(), String> {
    let mut left: std::collections::BTreeSet<&str> = want.iter().map(|s| s.as_str()).collect();
    let end = Instant::now() + limit;
    while !left.is_empty() {
        let l = job.wait_line(&format!("of {left:?}"), end.saturating_duration_since(Instant::now()), |l| left.contains(l))?;
        left.remove(l.as_str());
    }
    Ok(())
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a pid; no memory is involved.
    unsafe {
        libc::kill(pid as i32, sig);
    }
}

/// SIGSTOP to `pid`, SIGCONT `ms` later: the length of the stop is the
/// fault injected, not a wait for something to happen.
fn stop_for(pid: u32, ms: u64) {
    signal(pid, libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(ms));
    signal(pid, libc::SIGCONT);
}

/// What is left under `d`.
fn listing(d: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in fs::read_dir(&p).into_iter().flatten().flatten() {
            v.push(e.path().display().to_string());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    v
}

/// What a round left: its processes (found by `marker`, given a moment to
/// go), or files under its TMPDIR `t`. None: nothing.
fn leftovers(marker: &str, t: &Path) -> Option<String> {
    if let Err(e) = wait_until("the round's processes gone", secs(10), || marked(marker).is_empty()) {
        return Some(format!("{e}: {:?} left", marked(marker)));
    }
    let left = listing(t);
    (!left.is_empty()).then(|| format!("left under TMPDIR: {left:?}"))
}

/// The statuses a survivor's fence may return when a participant is killed:
/// the connection lost, the process aborted/terminated, the fence timed out.
const LOST: [&str; 5] = ["LOST_CONNECTION", "PROC_ABORTED", "TIMEOUT", "PROC_TERM_WO_SYNC", "UNREACH"];

/// One round; panics with the seed and round on a failure.
fn round(seed: u64, r: u64, min: u64, max: u64) {
    let mut rng = Rng(seed ^ r.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let n = rng.range(min, max);
    // (one round in four under the C host)
    let launcher = if rng.range(0, 3) == 0 { Launcher::RmSimple } else { Launcher::Pmixrun };
    // (the C host has no tools)
    let kinds: &[u64] = if launcher == Launcher::Pmixrun { &[0, 1, 2, 3, 4, 5, 6, 7] } else { &[0, 1, 4, 5] };
    let kind = kinds[rng.range(0, kinds.len() as u64 - 1) as usize];
    let ms = rng.range(50, 1500);
    // (the C host reports no rank's end to its server: a rank killed
    // before it connected leaves the others' fence waiting until the host's
    // time limit, as the Standard has it (the host tells of a process it
    // lost); its init strikes land once the rank's connection is open)
    let point = if rng.range(0, 1) == 0 && launcher == Launcher::Pmixrun { Point::Exec } else { Point::Connect };
    let strike = match kind {
        0 => Strike::KillRank,
        1 => Strike::StopRank(ms),
        2 => Strike::KillTool,
        3 => Strike::StopTool(ms),
        4 => Strike::KillInit(point),
        5 => Strike::StopInit(ms, point),
        6 => Strike::KillToolAttach(point),
        _ => Strike::StopToolAttach(ms, point),
    };
    let victim = rng.range(0, n - 1);
    let at = rng.range(1, NAMED_FENCES - 2);
    let attach = matches!(strike, Strike::KillToolAttach(_) | Strike::StopToolAttach(..));
    let place = if strike.at_init() {
        format!("rank {victim}'s init")
    } else if attach {
        "the tool's attach".to_string()
    } else {
        format!("rank {victim}'s fence {at}")
    };
    let what = format!("chaos: seed {seed} round {r}: {launcher:?}, {n} ranks, {strike:?} at {place}");
    println!("{what}");
    let marker = format!("chaos-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaos");
    let case = Case::new(&format!("chaos_round_{}", r % 8));
    // (the ranks fence until this file is there: made after the strike)
    let stop = case.path("stop");
    let prog = c_prog("chaos_rank", Build::Ours);
    // (the ranks wait for this file before PMIx_Init: made at once, or by a
    // strike in init once it found the victim's process)
    let hold = case.path("hold");
    if !strike.at_init() {
        case.write("hold", "");
    }
    let cmd = match launcher {
        Launcher::Pmixrun => Cmd::new(&env().pmixrun).env("TMPDIR", &t).args(["--timeout", "40", "-n", &n.to_string()]),
        Launcher::RmSimple => Cmd::new(c_prog("rm_simple", Build::Ours)).env("TMPDIR", &t).args(["-t", "40", "-n", &n.to_string()]),
    };
    let started = Instant::now();
    let job = Job::start(cmd.arg(&prog).arg(&stop).arg(&marker).arg(&hold).on(Lib::Ours));
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    let line = format!("chaos: rank {victim} fence {at}");
    let mut tool = None;
    // (whether the struck process had its connection open)
    let mut connected = None;
    // (whether a rank struck in init had already passed its first fence)
    let mut fenced = false;
    if strike.at_tool() {
        // (attached once the job runs: its first fence line)
        job.wait_line("'fence 0'", secs(30), |l| l.ends_with(" fence 0")).unwrap_or_else(|e| fail(e));
        tool = Some(Job::start(Cmd::new(&env().pmixctl).env("TMPDIR", &t).args(["--pid", &job.pid().to_string(), "output", "--follow"]).on(Lib::Ours)));
    }
    if !attach && !strike.at_init() {
        // (a rank's fence; for a tool, mid-IOF: it has followed for a while)
        job.wait_line(&format!("'{line}'"), secs(30), |l| l == line).unwrap_or_else(|e| fail(e));
    }
    match strike {
        Strike::KillRank | Strike::StopRank(_) => {
            let pid = rank_pid(&marker, victim).unwrap_or_else(|| fail(format!("no process of rank {victim}")));
            if let Strike::StopRank(ms) = strike {
                stop_for(pid, ms);
            } else {
                signal(pid, libc::SIGKILL);
            }
        }
        Strike::KillTool | Strike::StopTool(_) => {
            // (once it follows: the job's output reaches it)
            let pid = tool.as_ref().expect("a tool").pid();
            if let Strike::StopTool(ms) = strike {
                stop_for(pid, ms);
            } else {
                signal(pid, libc::SIGKILL);
            }
        }
        Strike::KillInit(point) | Strike::StopInit(_, point) => {
            // (the victim's process, found as soon as it runs its program)
            // (found while the ranks wait for the hold file: not yet connected)
            let pid = poll(secs(30), || rank_pid(&marker, victim)).unwrap_or_else(|| fail(format!("no process of rank {victim}")));
            let inherited = sockets(pid);
            let ms = if let Strike::StopInit(ms, _) = strike { Some(ms) } else { None };
            case.write("hold", "");
            let first = format!("chaos: rank {victim} fence 0");
            connected = Some(strike_at(pid, &prog, point, &inherited, ms, || fenced = job.stdout_so_far().lines().any(|l| l == first)));
        }
        Strike::KillToolAttach(point) | Strike::StopToolAttach(_, point) => {
            let pid = tool.as_ref().expect("a tool").pid();
            let ms = if let Strike::StopToolAttach(ms, _) = strike { Some(ms) } else { None };
            // (a tool's output and error are pipes: its sockets are its own)
            connected = Some(strike_at(pid, &env().pmixctl, point, &Default::default(), ms, || ()));
        }
    }
    case.write("stop", "");
    let out = job.wait(BOUND + secs(15));
    out.save(&case, "job");
    let took = started.elapsed();
    let tool_out = tool.map(|t| t.wait(secs(30)));
    let all = out.all_lines();
    let done = all.iter().filter(|l| l.starts_with("chaos: rank ") && l.ends_with(" done")).count() as u64;
    let returned: Vec<&&str> = all.iter().filter(|l| l.contains(" returned ")).collect();
    if out.timed_out || took > BOUND || out.code() == Some(124) {
        fail(format!("did not end within {BOUND:?} ({took:?})\n{}", out.report("the job")));
    }
    {
        let statuses: std::collections::BTreeSet<&str> = returned.iter().filter_map(|l| l.split(" returned ").nth(1)).collect();
        println!("chaos: round {r}: exit {:?}, {done} done, returned {statuses:?}", out.code());
    }
    if let Some(c) = connected {
        // (where the strike landed: before the process connected, or with
        // its connection open; for a rank, before or after its first fence)
        let when = if !strike.at_init() {
            ""
        } else if fenced {
            ", after its init"
        } else {
            ", in its init"
        };
        println!("chaos: round {r}: struck {}{when}", if c { "connected" } else { "before connecting" });
    }
    match strike {
        Strike::KillRank | Strike::KillInit(_) => {
            // The first failing rank's exit code: the killed one (128+9) or
            // a survivor whose fence failed (chaos_rank exits 3).
            if !matches!(out.code(), Some(137) | Some(3)) {
                fail(out.report("exit code not 137 or 3"));
            }
            if let Some(bad) = returned.iter().find(|l| !LOST.iter().any(|s| l.ends_with(s))) {
                fail(format!("a survivor's fence returned something else: {bad}\n{}", out.report("the job")));
            }
            match launcher {
                Launcher::Pmixrun => {
                    if !all.iter().any(|l| l.contains(&format!(":{victim} was killed by signal 9"))) {
                        fail(out.report(&format!("pmixrun did not report rank {victim} killed by signal 9")));
                    }
                }
                Launcher::RmSimple => {
                    // (the C host kills nobody: every survivor hears of it)
                    if returned.len() as u64 + done != n - 1 || returned.is_empty() {
                        fail(out.report(&format!("{} survivors' fences returned an error, {done} ended, of {}", returned.len(), n - 1)));
                    }
                }
            }
        }
        _ => {
            // A stop and a continue, or a tool's fate, changes nothing.
            if out.code() != Some(0) || done != n {
                fail(out.report(&format!("{done} of {n} ranks done")));
            }
        }
    }
    if let (Strike::StopTool(_) | Strike::StopToolAttach(..), Some(to)) = (strike, &tool_out) {
        if to.timed_out {
            fail(to.report("the stopped tool did not end with its job"));
        }
    }
    if let Some(why) = leftovers(&marker, t.path()) {
        fail(why);
    }
}

/// The rounds: `RPMIX_CHAOS_ROUNDS` (20) of `RPMIX_CHAOS_MIN_RANKS` (16) to
/// `RPMIX_CHAOS_MAX_RANKS` (64) ranks, from `RPMIX_CHAOS_SEED` (else the
/// clock's); `RPMIX_CHAOS_ROUND` runs one round only.
#[test]
fn chaos_rounds() {
    let seed = env_num("RPMIX_CHAOS_SEED", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64 % 1_000_000_007).unwrap_or(1));
    let (min, max) = (env_num("RPMIX_CHAOS_MIN_RANKS", 16), env_num("RPMIX_CHAOS_MAX_RANKS", 64));
    let rounds: Vec<u64> = match std::env::var("RPMIX_CHAOS_ROUND").ok().and_then(|v| v.parse().ok()) {
        Some(r) => vec![r],
        None => (0..env_num("RPMIX_CHAOS_ROUNDS", 20)).collect(),
    };
    println!("chaos: seed {seed}, {} rounds of {min}-{max} ranks", rounds.len());
    for r in rounds {
        round(seed, r, min, max);
    }
}

/// The strikes of a spawn round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpawnStrike {
    /// SIGKILL to parent rank 0 once it says it spawns (the spawn in flight).
    KillSpawner,
    /// SIGKILL to a child (up, not yet connecting) while the parents wait in
    /// their connect.
    KillChild,
    /// SIGKILL to a parent waiting in its connect (the children held).
    KillInConnect,
    /// SIGSTOP to a child for the milliseconds while the parents wait.
    StopChild(u64),
    /// SIGSTOP to a parent in its connect for the milliseconds.
    StopInConnect(u64),
}

/// The statuses a process's spawn, fence or connect may return when another
/// participant was killed: those of a fence, and `PROC_TERM`.
fn lost_status(l: &str) -> bool {
    LOST.iter().any(|s| l.ends_with(s)) || l.ends_with("PROC-TERMINATED") || l.ends_with("PROC_TERMINATED")
}

/// One spawn round: N parents (c-tests/chaos_spawn.c) whose rank 0 spawns K
/// children, then all connect; panics with the seed and round on a failure.
fn spawn_round(seed: u64, r: u64, max: u64) {
    let mut rng = Rng(seed ^ r.wrapping_mul(0x9e6c_63d0_676a_9a99));
    let n = rng.range(2, (max / 8).max(2));
    let k = rng.range(1, (max / 16).max(2));
    let ms = rng.range(50, 1500);
    let strike = match rng.range(0, 4) {
        0 => SpawnStrike::KillSpawner,
        1 => SpawnStrike::KillChild,
        2 => SpawnStrike::KillInConnect,
        3 => SpawnStrike::StopChild(ms),
        _ => SpawnStrike::StopInConnect(ms),
    };
    let child_victim = matches!(strike, SpawnStrike::KillChild | SpawnStrike::StopChild(_));
    let victim = if child_victim { rng.range(0, k - 1) } else { rng.range(0, n - 1) };
    let victim = if strike == SpawnStrike::KillSpawner { 0 } else { victim };
    let who = if child_victim { "child" } else { "parent" };
    let what = format!("chaos: seed {seed} spawn round {r}: {n} parents, {k} children, {strike:?} at {who} {victim}");
    println!("{what}");
    let marker = format!("chaos-spawn-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaoss");
    let case = Case::new(&format!("chaos_spawn_round_{}", r % 8));
    let go = case.path("go");
    let prog = c_prog("chaos_spawn", Build::Ours);
    let started = Instant::now();
    let job = Job::start(
        Cmd::new(&env().pmixrun).env("TMPDIR", &t).args(["--timeout", "40", "-n", &n.to_string()]).arg(&prog).arg(&marker).arg(k.to_string()).arg(&go).on(Lib::Ours),
    );
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    // (the parents in their connect, the children up and held)
    let waiting: Vec<String> = (0..n).map(|p| format!("chaos: parent {p} connect")).chain((0..k).map(|c| format!("chaos: child {c} up"))).collect();
    match strike {
        SpawnStrike::KillSpawner => {
            job.wait_line("'parent 0 spawn'", secs(30), |l| l == "chaos: parent 0 spawn").unwrap_or_else(|e| fail(e));
            let pid = marked_rank_pid(&marker, 0, None).unwrap_or_else(|| fail("no process of parent 0".into()));
            signal(pid, libc::SIGKILL);
            case.write("go", "");
        }
        _ => {
            wait_lines(&job, &waiting, secs(30)).unwrap_or_else(|e| fail(e));
            let arg = if child_victim { Some("child") } else { None };
            let pid = marked_rank_pid(&marker, victim, arg).unwrap_or_else(|| fail(format!("no process of {who} {victim}")));
            match strike {
                SpawnStrike::StopChild(ms) | SpawnStrike::StopInConnect(ms) => {
                    signal(pid, libc::SIGSTOP);
                    case.write("go", "");
                    std::thread::sleep(Duration::from_millis(ms));
                    signal(pid, libc::SIGCONT);
                }
                _ => {
                    signal(pid, libc::SIGKILL);
                    case.write("go", "");
                }
            }
        }
    }
    let out = job.wait(BOUND + secs(15));
    out.save(&case, "job");
    let took = started.elapsed();
    let all = out.all_lines();
    if out.timed_out || took > BOUND || out.code() == Some(124) {
        fail(format!("did not end within {BOUND:?} ({took:?})\n{}", out.report("the job")));
    }
    let done = all.iter().filter(|l| l.starts_with("chaos: ") && l.ends_with(" done")).count() as u64;
    let returned: Vec<&&str> = all.iter().filter(|l| l.contains(" returned ")).collect();
    let in_flight = !all.contains(&"chaos: parent 0 spawned");
    let statuses: std::collections::BTreeSet<&str> = returned.iter().filter_map(|l| l.split(" returned ").nth(1)).collect();
    println!("chaos: spawn round {r}: exit {:?}, {done} done, returned {statuses:?}", out.code());
    match strike {
        SpawnStrike::StopChild(_) | SpawnStrike::StopInConnect(_) => {
            if out.code() != Some(0) || done != n + k {
                fail(out.report(&format!("{done} of {} processes done", n + k)));
            }
        }
        _ => {
            if strike == SpawnStrike::KillSpawner {
                println!("chaos: spawn round {r}: struck {}", if in_flight { "with the spawn in flight" } else { "after the spawn returned" });
            }
            if !matches!(out.code(), Some(137) | Some(3)) {
                fail(out.report("exit code not 137 or 3"));
            }
            // (a child whose connect arrives once the parents' job has
            // ended gets LOST_CONNECTION too: the server remembers the jobs
            // that ended here)
            if let Some(bad) = returned.iter().find(|l| !lost_status(l)) {
                fail(format!("a survivor's call returned something else: {bad}\n{}", out.report("the job")));
            }
            if !child_victim && !all.iter().any(|l| l.contains(&format!(":{victim} was killed by signal 9"))) {
                fail(out.report(&format!("pmixrun did not report parent {victim} killed by signal 9")));
            }
            if all.iter().any(|l| l.ends_with(" done")) && done == n + k {
                fail(out.report("every process done though one was killed"));
            }
        }
    }
    if let Some(why) = leftovers(&marker, t.path()) {
        fail(why);
    }
}

/// The rounds' numbers: `RPMIX_CHAOS_ROUND` alone, or `0..var` (`default`).
fn round_numbers(var: &str, default: u64) -> Vec<u64> {
    match std::env::var("RPMIX_CHAOS_ROUND").ok().and_then(|v| v.parse().ok()) {
        Some(r) => vec![r],
        None => (0..env_num(var, default)).collect(),
    }
}

/// The seed: `RPMIX_CHAOS_SEED`, else the clock's.
fn seed() -> u64 {
    env_num("RPMIX_CHAOS_SEED", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64 % 1_000_000_007).unwrap_or(1))
}

/// Spawn rounds: `RPMIX_CHAOS_SPAWN_ROUNDS` (10) of 2 to max/8 parents and 1
/// to max/16 children (`RPMIX_CHAOS_MAX_RANKS`, 64).
#[test]
fn chaos_spawn_rounds() {
    let seed = seed();
    let max = env_num("RPMIX_CHAOS_MAX_RANKS", 64);
    let rounds = round_numbers("RPMIX_CHAOS_SPAWN_ROUNDS", 10);
    println!("chaos: seed {seed}, {} spawn rounds", rounds.len());
    for r in rounds {
        spawn_round(seed, r, max);
    }
}

/// What an mpirun round saw: exit code, the statuses survivors' fences
/// returned, how many ranks ended well, and whether mpirun named the
/// killed rank.
#[derive(Debug, PartialEq, Eq)]
struct MpirunOutcome {
    code: Option<i32>,
    statuses: std::collections::BTreeSet<String>,
    done: u64,
    named: bool,
}

/// One mpirun round on `lib` (the ranks and mpirun on the same library):
/// N ranks of chaos_rank under Open MPI's mpirun, a rank killed or stopped
/// at a fence; panics on a hang or a leftover, returns what it saw.
fn mpirun_round(seed: u64, r: u64, min: u64, max: u64, lib: Lib) -> MpirunOutcome {
    let mut rng = Rng(seed ^ r.wrapping_mul(0xd6e8_feb8_6659_fd93));
    let n = rng.range((min / 4).max(2), (max / 4).max(2));
    let ms = rng.range(50, 1500);
    let strike = if rng.range(0, 1) == 0 { Strike::KillRank } else { Strike::StopRank(ms) };
    let victim = rng.range(0, n - 1);
    let at = rng.range(1, NAMED_FENCES - 2);
    let what = format!("chaos: seed {seed} mpirun round {r} on {}: {n} ranks, {strike:?} at rank {victim}'s fence {at}", lib.name());
    println!("{what}");
    let marker = format!("chaos-mpirun-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaosm");
    let case = Case::new(&format!("chaos_mpirun_round_{}_{}", r % 4, lib.name()));
    let stop = case.path("stop");
    let prog = c_prog("chaos_rank", if lib == Lib::Ours { Build::Ours } else { Build::Ref });
    let started = Instant::now();
    let job = Job::start(
        Cmd::new("mpirun")
            .env("TMPDIR", &t)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["--allow-run-as-root", "--oversubscribe", "-np", &n.to_string()])
            .arg(&prog)
            .arg(&stop)
            .arg(&marker)
            .on(lib),
    );
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    let line = format!("chaos: rank {victim} fence {at}");
    job.wait_line(&format!("'{line}'"), secs(40), |l| l == line).unwrap_or_else(|e| fail(e));
    let pid = rank_pid(&marker, victim).unwrap_or_else(|| fail(format!("no process of rank {victim}")));
    if lib == Lib::Ours && !libpmix_mapped(pid).contains(&Lib::Ours.file()) {
        fail(format!("rank {victim} does not map rpmix: {:?}", libpmix_mapped(pid)));
    }
    match strike {
        Strike::StopRank(ms) => stop_for(pid, ms),
        _ => signal(pid, libc::SIGKILL),
    }
    case.write("stop", "");
    let out = job.wait(BOUND + secs(15));
    out.save(&case, "job");
    let took = started.elapsed();
    if out.timed_out || took > BOUND {
        fail(format!("did not end within {BOUND:?} ({took:?})\n{}", out.report("the job")));
    }
    let all = out.all_lines();
    let done = all.iter().filter(|l| l.starts_with("chaos: rank ") && l.ends_with(" done")).count() as u64;
    let statuses = all.iter().filter_map(|l| l.split(" returned ").nth(1)).map(str::to_string).collect();
    // ("mpirun noticed that process rank V with PID P on node H exited on signal 9 (Killed).")
    // (the PID it names is 0 on both libraries: Open MPI 4.1's own)
    let named = all.iter().any(|l| l.contains(&format!("process rank {victim} with PID ")) && l.contains("signal 9"));
    let o = MpirunOutcome { code: out.code(), statuses, done, named };
    println!("chaos: mpirun round {r} on {}: {o:?}", lib.name());
    // (OpenPMIx's survivors are only compared: see chaos_mpirun_rounds)
    if let Some(bad) = o.statuses.iter().find(|s| lib == Lib::Ours && !LOST.contains(&s.as_str())) {
        fail(format!("a survivor's fence returned {bad}\n{}", out.report("the job")));
    }
    match strike {
        Strike::StopRank(_) => {
            if o.code != Some(0) || done != n {
                fail(out.report(&format!("{done} of {n} ranks done")));
            }
        }
        _ => {
            // mpirun reports the first process it saw fail: the killed one
            // (137), or a survivor whose fence failed (exit 3) when mpirun
            // reaped it first (on both libraries).
            let survivor_first = o.code == Some(3) && all.iter().any(|l| l.trim() == "Exit code:    3");
            if !(o.code == Some(137) && o.named || survivor_first) {
                fail(out.report(&format!("mpirun did not fail naming rank {victim} killed by signal 9 (or a survivor's exit 3)")));
            }
        }
    }
    if let Some(why) = leftovers(&marker, t.path()) {
        fail(why);
    }
    o
}

/// mpirun rounds: `RPMIX_CHAOS_MPIRUN_ROUNDS` (4) of min/4 to max/4 (4 to
/// 16) ranks, each on rpmix (mpirun and the ranks) and then on OpenPMIx:
/// the same end (exit 0 and every rank done after a stop; after a kill 137,
/// mpirun naming the rank, or a survivor's 3).
#[test]
fn chaos_mpirun_rounds() {
    if !Path::new("/usr/bin/mpirun").exists() {
        skip("chaos_mpirun_rounds", "no Open MPI (/usr/bin/mpirun): apt-get install openmpi-bin");
        return;
    }
    let seed = seed();
    let (min, max) = (env_num("RPMIX_CHAOS_MIN_RANKS", 16), env_num("RPMIX_CHAOS_MAX_RANKS", 64));
    let rounds = round_numbers("RPMIX_CHAOS_MPIRUN_ROUNDS", 4);
    println!("chaos: seed {seed}, {} mpirun rounds", rounds.len());
    for r in rounds {
        let ours = mpirun_round(seed, r, min, max, Lib::Ours);
        let theirs = mpirun_round(seed, r, min, max, Lib::OpenPmix);
        // The same end: after a stop exit 0 with every rank done; after a
        // kill 137 or 3 (whichever failing process mpirun reaped first: it
        // varies from run to run on either library). What the survivors
        // see differs: rpmix fails a fence whose participant is gone
        // (LOST_CONNECTION: no rank done); OpenPMIx 4.2.2 drops the lost
        // rank from the fence and completes it among the others, who may go
        // on and end (or, asked rank 0's value when rank 0 was the one
        // killed, report PARTIAL SUCCESS) until mpirun kills them. On
        // either library a kill that lands after the victim contributed to
        // the last fence lets the others end their run ("done"): the
        // survivors' statuses on rpmix are checked in mpirun_round.
        let failed = |o: &MpirunOutcome| matches!(o.code, Some(137) | Some(3));
        let same = ours.code == theirs.code && ours.done == theirs.done || failed(&ours) && failed(&theirs);
        assert!(same, "seed {seed} mpirun round {r}: rpmix {ours:?}, OpenPMIx {theirs:?}");
    }
}

// ---------------------------------------------------------------- mid-IOF rounds

/// The strikes of a mid-IOF round (on a rank writing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IofStrike {
    /// SIGKILL.
    Kill,
    /// SIGSTOP, SIGCONT after the milliseconds.
    Stop(u64),
}

/// The padding of a chaos_iof line.
const IOF_PAD: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN";

/// What one output of a chaos_iof job held, per rank: the "iof R I" lines
/// (each whole and in order from 0, else an error naming the first that
/// is not), the K of "wrote K", whether "ready" and "done" came.
#[derive(Debug, Default)]
struct IofSeen {
    lines: Vec<u64>,
    wrote: Vec<Option<u64>>,
    ready: u64,
    done: u64,
}

fn iof_seen(file: &Path, n: u64) -> Result<IofSeen, String> {
    let text = fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let text = String::from_utf8_lossy(&text);
    let mut s = IofSeen { lines: vec![0; n as usize], wrote: vec![None; n as usize], ..Default::default() };
    for (k, l) in text.lines().enumerate() {
        let w: Vec<&str> = l.split(' ').collect();
        let rank = |x: &str| x.parse::<u64>().ok().filter(|r| *r < n).map(|r| r as usize);
        let bad = || format!("{}: line {} is not what a rank wrote next: {l:?}", file.display(), k + 1);
        match w.as_slice() {
            ["iof", r, i, pad] => {
                let r = rank(r).ok_or_else(bad)?;
                if i.parse::<u64>().ok() != Some(s.lines[r]) || *pad != IOF_PAD || s.wrote[r].is_some() {
                    return Err(format!("{} (rank {r}'s line {} expected)", bad(), s.lines[r]));
                }
                s.lines[r] += 1;
            }
            ["chaos:", "rank", r, "ready"] if rank(r).is_some() => s.ready += 1,
            ["chaos:", "rank", r, "done"] if rank(r).is_some() => s.done += 1,
            ["chaos:", "rank", r, "wrote", count] => {
                let r = rank(r).ok_or_else(bad)?;
                s.wrote[r] = Some(count.parse().map_err(|_| bad())?);
            }
            _ => return Err(bad()),
        }
    }
    Ok(s)
}

/// `<file>`'s lines that satisfy `pred` (a file being written).
fn count_in(file: &Path, pred: impl Fn(&str) -> bool) -> usize {
    fs::read_to_string(file).unwrap_or_default().lines().filter(|l| pred(l)).count()
}

/// One mid-IOF round: N ranks of c-tests/chaos_iof.c under pmixrun writing
/// as fast as they are let, `pmixctl output --follow` attached from before
/// the first line; one rank killed or stopped mid-stream. Both outputs
/// (pmixrun's and the tool's) go to files and are read line by line.
fn iof_round(seed: u64, r: u64, max: u64) {
    let mut rng = Rng(seed ^ r.wrapping_mul(0xa076_1d64_78bd_642f));
    let n = rng.range(2, (max / 16).max(4));
    let strike = if rng.range(0, 1) == 0 { IofStrike::Kill } else { IofStrike::Stop(rng.range(50, 1500)) };
    let victim = rng.range(0, n - 1);
    // (how long the ranks write before the strike)
    let after = rng.range(100, 1500);
    // (after a kill, whether the survivors are told to end their streams
    // at once, or are left writing until pmixrun ends them mid-stream)
    let survivors_stop = rng.range(0, 1) == 0;
    // (about 256 lines a millisecond from the job, whatever its size)
    let burst = (256 / n).max(8);
    let maxlines = 1_000_000 / n;
    let what = format!(
        "chaos: seed {seed} iof round {r}: {n} ranks writing {burst} lines/ms each, a tool following, {strike:?} at rank {victim} after {after} ms{}",
        if strike == IofStrike::Kill && !survivors_stop { ", the others left writing" } else { "" }
    );
    println!("{what}");
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    let marker = format!("chaos-iof-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaosi");
    let case = Case::new(&format!("chaos_iof_round_{}", r % 4));
    let (stop, go) = (case.path("stop"), case.path("go"));
    let (out, err, tout, terr) = (case.path("job.out"), case.path("job.err"), case.path("tool.out"), case.path("tool.err"));
    let prog = c_prog("chaos_iof", Build::Ours);
    let argv: Vec<std::ffi::OsString> = vec![
        env().pmixrun.clone().into(),
        "--timeout".into(),
        "40".into(),
        "-n".into(),
        n.to_string().into(),
        prog.into(),
        stop.clone().into(),
        marker.clone().into(),
        go.clone().into(),
        burst.to_string().into(),
        maxlines.to_string().into(),
    ];
    let started = Instant::now();
    let job = Job::start(to_files(argv, &out, &err).env("TMPDIR", &t).on(Lib::Ours));
    let ready = |f: &Path| count_in(f, |l| l.starts_with("chaos: rank ") && l.ends_with(" ready")) as u64;
    wait_until("every rank ready", secs(30), || ready(&out) == n).unwrap_or_else(|e| fail(e));
    let tool_argv: Vec<std::ffi::OsString> = vec![env().pmixctl.clone().into(), "--pid".into(), job.pid().to_string().into(), "output".into(), "--follow".into()];
    let tool_started = Instant::now();
    let tool = Job::start(to_files(tool_argv, &tout, &terr).env("TMPDIR", &t).on(Lib::Ours));
    // (the tool follows: it printed what was kept, every rank's first line)
    wait_until("the tool following", secs(30), || ready(&tout) == n).unwrap_or_else(|e| fail(format!("{e}\n--- tool's stderr\n{}", fs::read_to_string(&terr).unwrap_or_default())));
    case.write("go", "");
    std::thread::sleep(Duration::from_millis(after));
    let pid = rank_pid(&marker, victim).unwrap_or_else(|| fail(format!("no process of rank {victim}")));
    match strike {
        IofStrike::Kill => signal(pid, libc::SIGKILL),
        IofStrike::Stop(ms) => {
            stop_for(pid, ms);
            // (the tool keeps receiving after the stop)
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    if strike != IofStrike::Kill || survivors_stop {
        case.write("stop", "");
    }
    let o = job.wait(BOUND + secs(15));
    let took = started.elapsed();
    // (the tool ends with the job: within 10 s of the launcher's end)
    let to = tool.wait(tool_started.elapsed() + secs(10));
    let report = || {
        format!(
            "exit {:?} after {took:?}{}\n--- pmixrun's stderr\n{}\n--- tool: exit {:?}{}, stderr\n{}",
            o.code(),
            if o.timed_out { " (killed at its time limit)" } else { "" },
            fs::read_to_string(&err).unwrap_or_default(),
            to.code(),
            if to.timed_out { " (killed at its time limit)" } else { "" },
            fs::read_to_string(&terr).unwrap_or_default()
        )
    };
    if o.timed_out || took > BOUND || o.code() == Some(124) {
        fail(format!("did not end within {BOUND:?}: {}", report()));
    }
    if to.timed_out {
        fail(format!("the tool did not end with the job: {}", report()));
    }
    let term = iof_seen(&out, n).unwrap_or_else(|e| fail(format!("pmixrun's output: {e}\n{}", report())));
    let seen = iof_seen(&tout, n).unwrap_or_else(|e| fail(format!("the tool's output: {e}\n{}", report())));
    let total: u64 = term.lines.iter().sum();
    println!(
        "chaos: iof round {r}: exit {:?}, tool exit {:?}, {} done, {total} lines ({} MB) on each output, rank {victim} wrote {} before its end",
        o.code(),
        to.code(),
        term.done,
        total * 56 / 1_000_000,
        term.lines[victim as usize]
    );
    // Every line that reached pmixrun's output reached the tool's, each
    // rank's whole and in order (checked by iof_seen).
    if term.lines != seen.lines {
        fail(format!("lines per rank: pmixrun {:?}, the tool {:?}\n{}", term.lines, seen.lines, report()));
    }
    // (a rank that ended its stream wrote exactly the lines it counted)
    for (i, (t, w)) in term.lines.iter().zip(&term.wrote).enumerate() {
        if w.is_some_and(|k| k != *t) || seen.wrote[i].is_some_and(|k| k != seen.lines[i]) {
            fail(format!("rank {i} wrote {w:?} lines, pmixrun shows {t}, the tool {}\n{}", seen.lines[i], report()));
        }
    }
    if term.lines[victim as usize] == 0 {
        fail(format!("rank {victim} had written nothing when struck\n{}", report()));
    }
    let errtext = fs::read_to_string(&err).unwrap_or_default();
    match strike {
        IofStrike::Kill => {
            // (the survivors write no error: the killed rank is the first
            // and only failure, its 128+9; pmixrun ends the others)
            if o.code() != Some(137) || !errtext.contains(&format!(":{victim} was killed by signal 9")) {
                fail(format!("expected exit 137 naming rank {victim} killed by signal 9: {}", report()));
            }
        }
        IofStrike::Stop(_) => {
            // (after the stop every rank ends its stream: "wrote K" after
            // exactly K lines, on both outputs)
            let whole = (0..n as usize).all(|i| term.wrote[i] == Some(term.lines[i]) && seen.wrote[i] == Some(seen.lines[i]));
            if o.code() != Some(0) || term.done != n || seen.done != n || !whole {
                fail(format!("{} of {n} done, wrote {:?} of {:?}: {}", term.done, term.wrote, term.lines, report()));
            }
        }
    }
    if let Some(why) = leftovers(&marker, t.path()) {
        fail(why);
    }
    // (the outputs are large: kept only when the round fails)
    for f in [&out, &tout] {
        let _ = fs::remove_file(f);
    }
}

/// Mid-IOF rounds: `RPMIX_CHAOS_IOF_ROUNDS` (4) of 2 to max/16 ranks
/// (`RPMIX_CHAOS_MAX_RANKS`, 64: at least 4).
#[test]
fn chaos_iof_rounds() {
    let seed = seed();
    let max = env_num("RPMIX_CHAOS_MAX_RANKS", 64);
    let rounds = round_numbers("RPMIX_CHAOS_IOF_ROUNDS", 4);
    println!("chaos: seed {seed}, {} iof rounds", rounds.len());
    for r in rounds {
        iof_round(seed, r, max);
    }
}

// ---------------------------------------------------------------- debugger rounds

/// The strikes of a debugger round: on what holds a job at its debug stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DebugStrike {
    /// SIGKILL to the tool that holds the job (no daemons).
    KillTool,
    /// SIGSTOP to that tool, SIGCONT after the milliseconds.
    StopTool(u64),
    /// SIGKILL to one of the debugger daemons that hold the job.
    KillDaemon,
    /// SIGSTOP to one daemon, SIGCONT after the milliseconds.
    StopDaemon(u64),
    /// SIGKILL to every daemon: their job ends without a release.
    KillDaemons,
    /// SIGKILL to the tool while its daemons hold the job.
    KillToolOfDaemons,
}

impl DebugStrike {
    fn daemons(self) -> bool {
        !matches!(self, DebugStrike::KillTool | DebugStrike::StopTool(_))
    }
}

/// The KiB each debug_rank writes in a debugger round.
const DEBUG_KIB: usize = 8;


/// One debugger round: a persistent pmixrun; c-tests/tool_launch.c spawns
/// N ranks of c-tests/debug_rank.c held for a debugger (in init, or
/// stopped on exec), alone or with debugger daemons (c-tests/debug_daemon.c,
/// one per rank) to release them, both holding until a file exists; the
/// round strikes the tool or the daemons while the job is held, then makes
/// the file. Whatever was struck, the job must be released and every rank
/// run to its end (exit 5) within 20 s of the strike, the tool end as
/// documented, and nothing be left once the launcher is stopped.
fn debug_round(seed: u64, r: u64, max: u64) {
    let mut rng = Rng(seed ^ r.wrapping_mul(0xe703_7ed1_a0b4_28db));
    let n = rng.range(1, (max / 8).max(2));
    let ms = rng.range(50, 1500);
    let strike = match rng.range(0, 5) {
        0 => DebugStrike::KillTool,
        1 => DebugStrike::StopTool(ms),
        2 => DebugStrike::KillDaemon,
        3 => DebugStrike::StopDaemon(ms),
        4 => DebugStrike::KillDaemons,
        _ => DebugStrike::KillToolOfDaemons,
    };
    let on_exec = rng.range(0, 1) == 0;
    let daemon_victim = rng.range(0, n - 1);
    // (after the hold is in place: a daemon may still be in its init)
    let delay = rng.range(0, 300);
    let place = if on_exec { "stopped on exec" } else { "held in init" };
    let what = format!("chaos: seed {seed} debug round {r}: {n} ranks {place}, {strike:?}{} after {delay} ms", if matches!(strike, DebugStrike::KillDaemon | DebugStrike::StopDaemon(_)) { format!(" (daemon {daemon_victim})") } else { String::new() });
    println!("{what}");
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    let marker = format!("chaos-debug-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaosd");
    let case = Case::new(&format!("chaos_debug_round_{}", r % 4));
    let hold = case.path("hold");
    let e = env();
    let launched = Instant::now();
    let launcher = Job::start(merged([e.pmixrun.as_os_str(), std::ffi::OsStr::new("--persistent"), std::ffi::OsStr::new("-v")]).env("TMPDIR", &t).env("PMIX_SYSTEM_TMPDIR", &t).env("CHAOS_MARKER", &marker).on(Lib::Ours));
    let rv = t.path().join(format!("pmix.sys.{}", hostname()));
    wait_until("the launcher's rendezvous file", secs(10), || rv.exists()).unwrap_or_else(|e| fail(format!("{e}\n{}", launcher.stdout_so_far())));
    let daemon = c_prog("debug_daemon", Build::Ours);
    let mut cmd = Cmd::new(c_prog("tool_launch", Build::Ours))
        .env("TMPDIR", &t)
        .env("PMIX_SYSTEM_TMPDIR", &t)
        .env("CHAOS_MARKER", &marker)
        .env("TOOL_LAUNCH_HOLD", &hold)
        .arg(n.to_string())
        .arg(c_prog("debug_rank", Build::Ours))
        .args([DEBUG_KIB.to_string(), "5".to_string()]);
    if strike.daemons() {
        cmd = cmd.env("TOOL_LAUNCH_DAEMON", &daemon);
    }
    if on_exec {
        cmd = cmd.env("TOOL_LAUNCH_ON_EXEC", "1");
    }
    let started = Instant::now();
    let tool = Job::start(cmd.on(Lib::Ours));
    let stopped = format!("tool_launch: {n} ranks stopped {}", if on_exec { "on exec" } else { "in init" });
    let l = tool
        .wait_line(&format!("'{stopped}'"), secs(30), |l| l == stopped || l.contains("cannot stop on exec here"))
        .unwrap_or_else(|e| fail(format!("{e}\n--- tool\n{}", tool.stdout_so_far())));
    if l.contains("cannot stop on exec") {
        skip("chaos_debug_rounds", "this system does not let pmixrun trace its children: a round on exec skipped");
        return;
    }
    let daemons: Vec<u32> = if strike.daemons() {
        tool.wait_line("'tool_launch: daemons <ns>'", secs(30), |l| l.starts_with("tool_launch: daemons ")).unwrap_or_else(|e| fail(e));
        let found = || {
            let v: Vec<u32> = pids_with_env("CHAOS_MARKER", &marker).into_iter().filter(|p| runs(*p, &daemon)).collect();
            (v.len() as u64 == n).then_some(v)
        };
        poll(secs(30), found).unwrap_or_else(|| fail(format!("not {n} daemons running")))
    } else {
        tool.wait_line("'tool_launch: holding'", secs(30), |l| l == "tool_launch: holding").unwrap_or_else(|e| fail(e));
        Vec::new()
    };
    std::thread::sleep(Duration::from_millis(delay));
    let struck = Instant::now();
    match strike {
        DebugStrike::KillTool | DebugStrike::KillToolOfDaemons => tool.signal(libc::SIGKILL),
        DebugStrike::StopTool(ms) => stop_for(tool.pid(), ms),
        DebugStrike::KillDaemon => signal(daemons[daemon_victim as usize], libc::SIGKILL),
        DebugStrike::StopDaemon(ms) => stop_for(daemons[daemon_victim as usize], ms),
        DebugStrike::KillDaemons => {
            for p in &daemons {
                signal(*p, libc::SIGKILL);
            }
        }
    }
    case.write("hold", "");
    let to = tool.wait(secs(50));
    to.save(&case, "tool");
    let appns = to.stderr.lines().find_map(|x| x.strip_prefix("tool_launch: spawned ").map(str::to_string)).unwrap_or_else(|| fail(to.report("no 'spawned' line")));
    let log = || launcher.stdout_so_far();
    let ended = |r: u64| format!("pmixrun: {appns}:{r} exited with status 5");
    let all_ended = || {
        let l = log();
        (0..n).all(|r| l.lines().any(|x| x == ended(r)))
    };
    let waited = wait_until("every rank's end", secs(20).saturating_sub(struck.elapsed()), all_ended);
    let ran = struck.elapsed();
    let released = log().lines().any(|x| x == format!("pmixrun: job {appns}: its debugger is gone; releasing its held ranks"));
    let report = |why: &str| format!("{why}\n{}\n--- launcher's log\n{}", to.report("the tool"), log());
    if waited.is_err() {
        fail(report(&format!("not every rank ran to its end (exit 5) within 20 s of the strike ({:?})", started.elapsed())));
    }
    let daemons_ended = to.stderr.lines().any(|x| x.starts_with("tool_launch: the daemons ended (exit code"));
    println!(
        "chaos: debug round {r}: tool {}, the launcher {}, every rank ended {ran:?} after the strike",
        if to.timed_out { "timed out".to_string() } else if let Some(c) = to.code() { format!("exit {c}") } else { format!("signal {:?}", to.signal()) },
        if released { "released the orphaned job" } else { "released nothing itself" }
    );
    match strike {
        DebugStrike::KillTool | DebugStrike::KillDaemons => {
            // (no tool, or its daemons gone without a release: the
            // launcher's to release, at once)
            if !released {
                fail(report("the launcher did not say it released the orphaned job"));
            }
            if strike == DebugStrike::KillDaemons && (to.code() != Some(3) || !daemons_ended) {
                fail(report("the tool did not give up (exit 3) on hearing its daemons' end"));
            }
        }
        DebugStrike::KillToolOfDaemons => {
            // (the daemons release the job: the launcher has nothing to do)
            if to.code().is_some() {
                fail(report("the tool was not killed"));
            }
        }
        DebugStrike::StopTool(_) | DebugStrike::StopDaemon(_) | DebugStrike::KillDaemon => {
            // The tool or the other daemons release the job; the tool sees
            // its end (exit 0), or, with daemons, may hear theirs first
            // and give up (exit 3) before the job's end reached it.
            let gave_up = strike.daemons() && to.code() == Some(3) && daemons_ended;
            if !(to.code() == Some(0) || gave_up) {
                fail(report("the tool did not end well"));
            }
            if to.code() == Some(0) {
                for rank in 0..n {
                    let got: String = to.stdout.lines().filter(|l| l.starts_with(&format!("r{rank} "))).map(|l| format!("{l}\n")).collect();
                    if got != debug_rank_output(DEBUG_KIB, rank) {
                        fail(report(&format!("rank {rank}'s output to the tool differs")));
                    }
                }
                if !to.stderr.lines().any(|l| l.starts_with("tool_launch: job ") && l.ends_with(" ended, exit code 5")) {
                    fail(report("no job-end event with exit code 5"));
                }
            }
        }
    }
    let lpid = launcher.pid();
    let ours = || pids_with_env("CHAOS_MARKER", &marker).into_iter().filter(|p| *p != lpid).collect::<Vec<u32>>();
    if let Err(e) = wait_until("the round's processes gone", secs(10), || ours().is_empty()) {
        fail(format!("{e}: {:?} left\n{}", ours(), log()));
    }
    let s = run(Cmd::new(&e.pmixctl).env("TMPDIR", &t).env("PMIX_SYSTEM_TMPDIR", &t).arg("stop").on(Lib::Ours), secs(20));
    let lo = launcher.wait(launched.elapsed() + secs(20));
    lo.save(&case, "launcher");
    if lo.timed_out || !s.success() {
        fail(format!("the launcher did not stop\n{}\n{}", s.report("pmixctl stop"), lo.report("the launcher")));
    }
    let left = listing(t.path());
    if !left.is_empty() {
        fail(format!("left under TMPDIR: {left:?}"));
    }
}

/// Debugger rounds: `RPMIX_CHAOS_DEBUG_ROUNDS` (6) of 1 to max/8 ranks
/// (`RPMIX_CHAOS_MAX_RANKS`, 64).
#[test]
fn chaos_debug_rounds() {
    let seed = seed();
    let max = env_num("RPMIX_CHAOS_MAX_RANKS", 64);
    let rounds = round_numbers("RPMIX_CHAOS_DEBUG_ROUNDS", 6);
    println!("chaos: seed {seed}, {} debug rounds", rounds.len());
    for r in rounds {
        debug_round(seed, r, max);
    }
}

// ---------------------------------------------------------------- connect rounds

/// The strikes of a connect round (ranks of one job connecting in groups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnectStrike {
    /// SIGKILL to a rank in its connect (its group waits for a held member).
    KillInConnect,
    /// SIGSTOP to a rank in its connect, SIGCONT after the milliseconds.
    StopInConnect(u64),
    /// SIGKILL to the held member before its connect (its group waits in theirs).
    KillHeld,
    /// SIGSTOP to the held member, SIGCONT after the milliseconds.
    StopHeld(u64),
}

/// The ranks `lo..hi` of rank `r`'s group: `g` consecutive ranks of `n`,
/// the last group taking the remainder (as chaos_connect.c).
fn group_of(r: u64, g: u64, n: u64) -> (u64, u64) {
    if g >= n {
        return (0, n);
    }
    let groups = n / g;
    let i = (r / g).min(groups - 1);
    let lo = i * g;
    (lo, if i == groups - 1 { n } else { lo + g })
}

/// One connect round: N ranks of c-tests/chaos_connect.c under pmixrun
/// PMIx_Connect in groups of G (or all together); one rank of a group is
/// held before its connect until the round's file, and the round strikes
/// it there, or another member in its connect.
fn connect_round(seed: u64, r: u64, min: u64, max: u64) {
    let mut rng = Rng(seed ^ r.wrapping_mul(0x8ebc_6af0_9c88_c6e3));
    let n = rng.range((min / 4).max(4), (max / 4).max(4));
    let g = if rng.range(0, 2) == 0 { n } else { rng.range(2, n / 2) };
    let ms = rng.range(50, 1500);
    let strike = match rng.range(0, 3) {
        0 => ConnectStrike::KillInConnect,
        1 => ConnectStrike::StopInConnect(ms),
        2 => ConnectStrike::KillHeld,
        _ => ConnectStrike::StopHeld(ms),
    };
    let victim = rng.range(0, n - 1);
    let (lo, hi) = group_of(victim, g, n);
    let other = lo + rng.range(0, hi - lo - 2);
    let other = if other >= victim { other + 1 } else { other };
    let at_held = matches!(strike, ConnectStrike::KillHeld | ConnectStrike::StopHeld(_));
    let held = if at_held { victim } else { other };
    let delay = rng.range(0, 200);
    let what = format!(
        "chaos: seed {seed} connect round {r}: {n} ranks in groups of {}, {strike:?} at rank {victim} (group {lo}..{hi}, rank {held} held) after {delay} ms",
        g.min(n)
    );
    println!("{what}");
    let fail = |why: String| -> ! { panic!("{what}: {why}\n(replay: RPMIX_CHAOS_SEED={seed} RPMIX_CHAOS_ROUND={r})") };
    let marker = format!("chaos-connect-{seed}-{r}-{}", std::process::id());
    let t = TmpDir::new("chaosc");
    let case = Case::new(&format!("chaos_connect_round_{}", r % 8));
    let go = case.path("go");
    let prog = c_prog("chaos_connect", Build::Ours);
    let started = Instant::now();
    let job = Job::start(
        Cmd::new(&env().pmixrun).env("TMPDIR", &t).args(["--timeout", "40", "-n", &n.to_string()]).arg(&prog).arg(&marker).arg(g.to_string()).arg(held.to_string()).arg(&go).on(Lib::Ours),
    );
    // (the victim's group in its connect but for the held member)
    let waiting: Vec<String> = (lo..hi).map(|p| if p == held { format!("chaos: rank {p} held") } else { format!("chaos: rank {p} connect") }).collect();
    wait_lines(&job, &waiting, secs(30)).unwrap_or_else(|e| fail(e));
    std::thread::sleep(Duration::from_millis(delay));
    let pid = rank_pid(&marker, victim).unwrap_or_else(|| fail(format!("no process of rank {victim}")));
    match strike {
        ConnectStrike::KillInConnect | ConnectStrike::KillHeld => {
            signal(pid, libc::SIGKILL);
            case.write("go", "");
        }
        ConnectStrike::StopInConnect(ms) | ConnectStrike::StopHeld(ms) => {
            signal(pid, libc::SIGSTOP);
            case.write("go", "");
            std::thread::sleep(Duration::from_millis(ms));
            signal(pid, libc::SIGCONT);
        }
    }
    let out = job.wait(BOUND + secs(15));
    out.save(&case, "job");
    let took = started.elapsed();
    if out.timed_out || took > BOUND || out.code() == Some(124) {
        fail(format!("did not end within {BOUND:?} ({took:?})\n{}", out.report("the job")));
    }
    let all = out.all_lines();
    let is_done = |p: u64| all.contains(&format!("chaos: rank {p} done").as_str());
    let done = (0..n).filter(|p| is_done(*p)).count() as u64;
    let group_done = (lo..hi).filter(|p| is_done(*p)).count() as u64;
    let returned: Vec<&&str> = all.iter().filter(|l| l.contains(" returned ")).collect();
    let statuses: std::collections::BTreeSet<&str> = returned.iter().filter_map(|l| l.split(" returned ").nth(1)).collect();
    let group_returned = (lo..hi).filter(|p| returned.iter().any(|l| l.starts_with(&format!("chaos: rank {p} ")))).count();
    println!(
        "chaos: connect round {r}: exit {:?}, {done} done ({group_done} of the struck group's {}), {group_returned} of its survivors' calls returned {statuses:?}, {took:?}",
        out.code(),
        hi - lo
    );
    match strike {
        ConnectStrike::StopInConnect(_) | ConnectStrike::StopHeld(_) => {
            if out.code() != Some(0) || done != n {
                fail(out.report(&format!("{done} of {n} ranks done")));
            }
        }
        _ => {
            if !matches!(out.code(), Some(137) | Some(3)) {
                fail(out.report("exit code not 137 or 3"));
            }
            if let Some(bad) = returned.iter().find(|l| !lost_status(l)) {
                fail(format!("a survivor's call returned something else: {bad}\n{}", out.report("the job")));
            }
            if !all.iter().any(|l| l.contains(&format!(":{victim} was killed by signal 9"))) {
                fail(out.report(&format!("pmixrun did not report rank {victim} killed by signal 9")));
            }
            // (killed before its connect, the held rank's group cannot
            // have connected)
            if at_held && group_done > 0 {
                fail(out.report("a member of the struck group connected without the killed one"));
            }
        }
    }
    if let Some(why) = leftovers(&marker, t.path()) {
        fail(why);
    }
}

/// Connect rounds: `RPMIX_CHAOS_CONNECT_ROUNDS` (8) of min/4 to max/4
/// ranks (`RPMIX_CHAOS_MIN_RANKS`, `RPMIX_CHAOS_MAX_RANKS`: 4 to 16).
#[test]
fn chaos_connect_rounds() {
    let seed = seed();
    let (min, max) = (env_num("RPMIX_CHAOS_MIN_RANKS", 16), env_num("RPMIX_CHAOS_MAX_RANKS", 64));
    let rounds = round_numbers("RPMIX_CHAOS_CONNECT_ROUNDS", 8);
    println!("chaos: seed {seed}, {} connect rounds", rounds.len());
    for r in rounds {
        connect_round(seed, r, min, max);
    }
}
