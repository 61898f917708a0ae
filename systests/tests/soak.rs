//! Soak: a persistent pmixrun takes many tool-launched jobs of mixed kinds,
//! several at a time, and its resources return to where they were.
//!
//! `make test` runs the short version (300 jobs, 4 at a time); `make soak`
//! the long one through the same code (`RPMIX_SOAK_JOBS=10000`). A C host
//! does the same with namespaces, and Open MPI's mpirun on rpmix with
//! spawning jobs (20 in `make test`, `RPMIX_SOAK_MPIRUN_JOBS=1000` in `make
//! soak`).

use rpmix_systests::*;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A number from the environment, or `default`.
fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// What a process holds, and what its server left under its TMPDIR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    rss_kb: u64,
    /// Of which anonymous (heap, stacks): RSS less the program's and
    /// libraries' pages, which grow as more of their code is first run.
    anon_kb: u64,
    fds: usize,
    threads: usize,
    dirs: usize,
    sockets: usize,
}

impl Sample {
    fn of(pid: u32, tmp: &Path) -> Sample {
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |k: &str| status.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0);
        let (rss_kb, anon_kb) = (field("VmRSS:"), field("RssAnon:"));
        let count = |d: String| fs::read_dir(d).map(|r| r.count()).unwrap_or(0);
        let (mut dirs, mut sockets) = (0, 0);
        walk(tmp, &mut |_, t| {
            if t.is_dir() {
                dirs += 1;
            } else if t.is_socket() {
                sockets += 1;
            }
        });
        Sample { rss_kb, anon_kb, fds: count(format!("/proc/{pid}/fd")), threads: count(format!("/proc/{pid}/task")), dirs, sockets }
    }
    /// The same as `base` (fds, threads, directories and sockets exactly;
    /// anonymous RSS within `rss_slack_kb`).
    fn back_to(&self, base: &Sample, rss_slack_kb: u64) -> bool {
        self.fds == base.fds && self.threads == base.threads && self.dirs == base.dirs && self.sockets == base.sockets && self.anon_kb <= base.anon_kb + rss_slack_kb
    }
    fn line(&self, at: &str) -> String {
        format!("{at:>12}: rss_kb={} anon_kb={} fds={} threads={} dirs={} sockets={}", self.rss_kb, self.anon_kb, self.fds, self.threads, self.dirs, self.sockets)
    }
}

/// The bytes the launcher's allocator has handed out and not had back
/// (glibc's `malloc_stats`, "in use" over all arenas, after `malloc_trim`),
/// read by gdb attached for a moment: the live heap, without the pages
/// freed memory keeps that RSS counts. `None` when gdb cannot say.
fn heap_in_use(server: &Job) -> Option<u64> {
    let pid = server.pid().to_string();
    let r = run(Cmd::new("gdb").args(["-q", "-batch", "-p", &pid, "-ex", "call (int)malloc_trim(0)", "-ex", "call (void)malloc_stats()"]), secs(120));
    if !r.success() {
        println!("gdb: {}", r.report("reading the launcher's heap"));
        return None;
    }
    // (malloc_stats writes to the launcher's stderr: each arena, then the total)
    server.wait_line("malloc_stats' total", secs(30), |l| l.starts_with("Total (incl. mmap)")).ok()?;
    let l = server.wait_line("malloc_stats' bytes in use", secs(30), |l| l.starts_with("in use bytes")).ok()?;
    l.split('=').nth(1)?.trim().parse().ok()
}

/// What the launcher's live heap may grow by over a soak, however long: the
/// record of ended namespaces (`server::nspace::Gone`, the newest 4,096
/// names, about 150 bytes each; a spawning job ends several namespaces),
/// and 128 kB for the allocator's and tables' capacity, which also holds
/// the few events of a live job the server keeps for late handlers
/// (`server::evcache`: dropped with their namespace). A leak of 100
/// bytes a job exceeds it within the full soak's 10,000 jobs.
const HEAP_BOUND: u64 = 4096 * 200 + CAPACITY_SLACK;

/// The allocator's and tables' capacity a run may add.
const CAPACITY_SLACK: u64 = 128 * 1024;

/// Jobs after which the record of ended namespaces is full (each job ends
/// at least one namespace).
const FULL_RECORD_AFTER: usize = 4096;

/// Every entry under `d` (not following links).
fn walk(d: &Path, f: &mut dyn FnMut(&Path, fs::FileType)) {
    let Ok(rd) = fs::read_dir(d) else { return };
    for e in rd.flatten() {
        let Ok(t) = e.file_type() else { continue };
        f(&e.path(), t);
        if t.is_dir() {
            walk(&e.path(), f);
        }
    }
}

/// What is left under `d`, for a message.
fn listing(d: &Path) -> Vec<String> {
    let mut v = Vec::new();
    walk(d, &mut |p, _| v.push(p.display().to_string()));
    v
}

/// The anonymous RSS a launcher may keep above its baseline (after the
/// warm-up) at the end: 4 MiB, what glibc's allocator keeps of freed memory
/// and fragments (its live heap stays flat: valgrind's massif). A leak of
/// 1 kB a job passes it within 4,500 jobs, of 16 kB a job within 270.
const RSS_SLACK_KB: u64 = 4096;

/// The kinds of jobs, in turn.
const KINDS: [&str; 7] = ["plain", "failing", "killed", "spawning", "chain", "output", "stdin"];

/// Runs job `i` (of kind `i % KINDS.len()`) through `pmixctl run` against
/// the persistent pmixrun `pid` and checks its exit code and output; an
/// error names what was wrong.
fn one_job(t: &TmpDir, case: &Case, pid: u32, i: usize, (spawner, chain): (&Path, &Path)) -> Result<(), String> {
    let ctl = || Cmd::new(&env().pmixctl).env("TMPDIR", t).arg("--pid").arg(pid.to_string()).arg("run");
    let kind = KINDS[i % KINDS.len()];
    let check = |r: &Run, code: i32, ok: &dyn Fn(&Run) -> bool| -> Result<(), String> {
        if r.code() != Some(code) || !ok(r) {
            return Err(r.report(&format!("job {i} ({kind}): expected exit {code}")));
        }
        Ok(())
    };
    match kind {
        "plain" => {
            let r = run(ctl().args(["-n", "2", "sh", "-c"]).arg(format!("echo \"job{i} r$PMIX_RANK\"")), secs(60));
            check(&r, 0, &|r| {
                let mut l = r.lines();
                l.sort();
                l == [format!("job{i} r0"), format!("job{i} r1")]
            })
        }
        "failing" => {
            let code = 1 + (i % 100) as i32;
            let r = run(ctl().args(["-n", "2", "sh", "-c"]).arg(format!("[ $PMIX_RANK = 1 ] && exit {code}; exit 0")), secs(60));
            check(&r, code, &|_| true)
        }
        "killed" => {
            let r = run(ctl().args(["-n", "2", "sh", "-c", "[ $PMIX_RANK = 0 ] && kill -9 $$; exit 0"]), secs(60));
            check(&r, 128 + 9, &|_| true)
        }
        "spawning" => {
            // (2 ranks that PMIx_Spawn 2 more and PMIx_Connect with them)
            let r = run(ctl().args(["-n", "2"]).arg(spawner).on(Lib::Ours), secs(90));
            check(&r, 0, &|r| r.all_lines().iter().any(|l| l.starts_with("client_spawn: ") && l.ends_with(" passed, 0 failed")))
        }
        "chain" => {
            // (a job that spawns a job that spawns again, each connecting with the next)
            let r = run(ctl().args(["-n", "1"]).arg(chain).arg("2").on(Lib::Ours), secs(90));
            check(&r, 0, &|r| r.lines() == ["spawn_chain: 2 generations below connected"])
        }
        "output" => {
            // (heavy output through the tool: 20,000 lines, 960 kB, counted)
            let n = 20_000;
            let r = run(ctl().args(["-n", "1", "sh", "-c"]).arg(format!("seq -f 'job{i} %07g ................................' {n}")), secs(90));
            let want_bytes: usize = (1..=n).map(|k| format!("job{i} {k:07} ................................\n").len()).sum();
            check(&r, 0, &|r| r.stdout.len() == want_bytes && r.stdout.lines().count() == n && r.stdout.lines().last() == Some(&*format!("job{i} {n:07} ................................")))
        }
        "stdin" => {
            let text: String = (0..2000).map(|k| format!("job{i} line {k} {}\n", "x".repeat(k % 90))).collect();
            let input = case.write(&format!("stdin.{}", i % 64), &text);
            let r = run(ctl().args(["-n", "1", "cat"]).stdin_file(&input), secs(60));
            check(&r, 0, &|r| r.stdout == text)
        }
        _ => unreachable!(),
    }
}

/// `jobs` jobs, `width` at a time, through one persistent pmixrun in a
/// private TMPDIR; its resources sampled before, every tenth and after,
/// and after the first tenth (the warm-up) for the baseline.
fn soak(name: &str, jobs: usize, width: usize) {
    let case = Case::new(name);
    let t = TmpDir::new("soak");
    let spawner = c_prog("client_spawn", Build::Ours);
    let chain = c_prog("spawn_chain", Build::Ours);
    let began = std::time::Instant::now();
    let server = Job::start(Cmd::new(&env().pmixrun).env("TMPDIR", &t).arg("--persistent").on(Lib::Ours));
    let pid = server.pid();
    wait_until("the persistent pmixrun answers", secs(60), || {
        let r = run(Cmd::new(&env().pmixctl).env("TMPDIR", &t).args(["--pid", &pid.to_string(), "ps"]), secs(30));
        format!("{}{}", r.stdout, r.stderr).contains("runs no job")
    })
    .unwrap();
    let start = Sample::of(pid, t.path());
    let settled = |base: Option<&Sample>| {
        // (a job's end is handled as its tool goes: wait for it to settle)
        let mut last = Sample::of(pid, t.path());
        let _ = wait_until("the launcher settles", secs(30), || {
            last = Sample::of(pid, t.path());
            match base {
                Some(b) => last.back_to(b, RSS_SLACK_KB),
                // (the warm-up's jobs and tools gone: the counts are the start's)
                None => children(pid).is_empty() && last.fds == start.fds && last.threads == start.threads && last.dirs == start.dirs && last.sockets == start.sockets,
            }
        });
        last
    };
    let series = Mutex::new(vec![start.line("start")]);
    println!("{}", series.lock().unwrap()[0]);
    let failures = Mutex::new(Vec::<String>::new());
    let done = AtomicUsize::new(0);
    let tenth = (jobs / 10).max(1);
    // Jobs `from..to`, `width` at a time, sampled every tenth.
    let batch = |from: usize, to: usize| {
        let next = AtomicUsize::new(from);
        std::thread::scope(|s| {
            for _ in 0..width {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= to {
                        break;
                    }
                    if let Err(e) = one_job(&t, &case, pid, i, (&spawner, &chain)) {
                        failures.lock().unwrap().push(e);
                    }
                    let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if d % tenth == 0 {
                        let l = Sample::of(pid, t.path()).line(&format!("{d} jobs"));
                        println!("{l}");
                        series.lock().unwrap().push(l);
                    }
                });
            }
        });
    };
    // The first tenth is the warm-up: what the launcher sets up once and
    // what its allocator keeps for jobs `width` at a time (its arenas, the
    // code first run) make the baseline, sampled once it settled.
    let warm = tenth.max(2 * KINDS.len()).min(jobs);
    batch(0, warm);
    let base = settled(None);
    let heap_base = heap_in_use(&server).expect("gdb reads the launcher's heap (tools/install-deps.sh installs gdb)");
    {
        let l = format!("{} heap_in_use={heap_base}", base.line("baseline"));
        println!("{l}");
        series.lock().unwrap().push(l);
    }
    // (in two halves, the live heap read between them: once the record of
    // ended namespaces is full, the second half must leave it flat)
    let mid = warm + (jobs - warm) / 2;
    batch(warm, mid);
    let _ = settled(Some(&base));
    let heap_mid = heap_in_use(&server).expect("gdb reads the launcher's heap");
    series.lock().unwrap().push(format!("{mid:>7} jobs, settled: heap_in_use={heap_mid}"));
    println!("{}", series.lock().unwrap().last().unwrap());
    batch(mid, jobs);
    let end = settled(Some(&base));
    let heap_end = heap_in_use(&server).expect("gdb reads the launcher's heap");
    let mut series = series.into_inner().unwrap();
    series.push(format!("{} heap_in_use={heap_end}", end.line("after")));
    println!("{}", series.last().unwrap());
    let grown = heap_end.saturating_sub(heap_base);
    println!("live heap: {grown} bytes more after {} jobs ({} a job)", jobs - warm, grown / (jobs - warm).max(1) as u64);
    case.write("series", &(series.join("\n") + "\n"));
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} of {jobs} jobs went wrong; the first:\n{}", failures.len(), failures[0]);
    assert!(
        end.back_to(&base, RSS_SLACK_KB),
        "the launcher did not return to its baseline after {jobs} jobs (RSS within {RSS_SLACK_KB} kB; fds, threads, directories, sockets exactly):\n{}\nleft under TMPDIR: {:?}",
        series.join("\n"),
        listing(t.path())
    );
    let second_half = heap_end.saturating_sub(heap_mid);
    if mid >= FULL_RECORD_AFTER {
        assert!(
            second_half <= CAPACITY_SLACK,
            "the launcher's live heap grew by {second_half} bytes over jobs {mid} to {jobs}, with its record of ended namespaces full: a leak"
        );
    }
    assert!(
        grown <= HEAP_BOUND,
        "the launcher's live heap grew by {grown} bytes over {} jobs, more than the {HEAP_BOUND} bytes its record of ended namespaces and tables may take",
        jobs - warm
    );
    run(Cmd::new(&env().pmixctl).env("TMPDIR", &t).args(["--pid", &pid.to_string(), "stop"]), secs(60)).ok();
    // (Job::wait's limit counts from the launcher's start)
    server.wait(began.elapsed() + secs(60)).exit_code(0);
    let left = listing(t.path());
    assert!(left.is_empty(), "left under the launcher's TMPDIR after it ended: {left:?}");
}

/// 300 jobs of 7 kinds, 4 at a time (`RPMIX_SOAK_JOBS`, `RPMIX_SOAK_WIDTH`
/// for more).
#[test]
fn soak_persistent_pmixrun() {
    soak("soak_persistent_pmixrun", env_num("RPMIX_SOAK_JOBS", 300), env_num("RPMIX_SOAK_WIDTH", 4));
}

/// A C host (c-tests/soak_host.c) registers, runs and deregisters
/// `RPMIX_SOAK_NAMESPACES` (1,000) namespaces of 2 ranks that init, fence
/// and finalize (c-tests/launch_fence.c); its own RSS, fds and threads,
/// printed before, every tenth and after, return to the baseline (the
/// first tenth: what the library sets up once), and nothing is left in its
/// TMPDIR.
#[test]
fn soak_c_host() {
    let namespaces = env_num("RPMIX_SOAK_NAMESPACES", 1000);
    let case = Case::new("soak_c_host");
    let t = TmpDir::new("soakh");
    let host = c_prog("soak_host", Build::Ours);
    let client = c_prog("launch_fence", Build::Ours);
    let limit = secs(120 + namespaces as u64 / 5);
    let r = run(Cmd::new(host).env("TMPDIR", &t).args(["-c", &namespaces.to_string(), "--"]).arg(client).on(Lib::Ours), limit);
    r.save(&case, "host");
    println!("{}", r.stdout);
    let r = r.ok();
    // (soak_host: <done> rss_kb=<kB> fds=<n> threads=<n>)
    let series: Vec<(usize, u64, u64, u64)> = r
        .lines()
        .iter()
        .filter_map(|l| {
            let mut w = l.strip_prefix("soak_host: ")?.split_whitespace();
            let done = w.next()?.parse().ok()?;
            let mut num = |k: &str| w.next()?.strip_prefix(k)?.parse::<u64>().ok();
            Some((done, num("rss_kb=")?, num("fds=")?, num("threads=")?))
        })
        .collect();
    assert!(series.len() >= 3, "{}", r.report("no series"));
    let base = series[1];
    let last = *series.last().unwrap();
    assert_eq!(last.0, namespaces, "{}", r.report("the last sample is not after every namespace"));
    assert!(
        last.2 == base.2 && last.3 == base.3 && last.1 <= base.1 + RSS_SLACK_KB,
        "the C host did not return to its baseline (RSS within {RSS_SLACK_KB} kB, fds and threads exactly): {series:?}"
    );
    let left = listing(t.path());
    assert!(left.is_empty(), "left under the C host's TMPDIR: {left:?}");
}

/// The peaks of a process's RSS, fds and threads while it ran (sampled
/// every few milliseconds until it ended).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Peak {
    rss_kb: u64,
    fds: usize,
    threads: usize,
}

impl Peak {
    fn max(self, o: Peak) -> Peak {
        Peak { rss_kb: self.rss_kb.max(o.rss_kb), fds: self.fds.max(o.fds), threads: self.threads.max(o.threads) }
    }
}

/// The room a sampled peak of fds gets above the warm-up's.
const FD_SLACK: usize = 8;

/// Samples `pid` until it ends.
fn peak_of(pid: u32) -> Peak {
    let mut p = Peak::default();
    while !proc_ended(pid) {
        let s = Sample::of(pid, Path::new("/nonexistent"));
        p = p.max(Peak { rss_kb: s.rss_kb, fds: s.fds, threads: s.threads });
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    p
}

/// The live processes whose environment holds `tag` (`NAME=value`).
fn tagged(tag: &str) -> Vec<u32> {
    let mut v = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if !proc_ended(pid) && fs::read(format!("/proc/{pid}/environ")).unwrap_or_default().split(|b| *b == 0).any(|kv| kv == tag.as_bytes()) {
            v.push(pid);
        }
    }
    v
}

/// Open MPI 4.1's mpirun on rpmix (mpirun and its ranks load rpmix through
/// LD_LIBRARY_PATH, as tools/ompi-tests.sh runs it) runs
/// `RPMIX_SOAK_MPIRUN_JOBS` (20) spawning jobs one after the other: 2 ranks
/// of c-tests/mpi/spawn.c MPI_Comm_spawn 2 children, broadcast to them,
/// hear back and disconnect. Each job's exit and output are checked, and
/// that nothing it started is left (processes carrying the job's tag in
/// their environment, files under its TMPDIR); mpirun's peak RSS, fds and
/// threads (sampled every 5 ms) of every job stay within the peaks of the
/// first tenth (at least 5 jobs: the baseline; RSS within 4 MiB, fds 8,
/// threads 2).
#[test]
fn soak_mpirun_spawning() {
    if !Path::new("/usr/bin/mpicc").exists() {
        skip("soak_mpirun_spawning", "no Open MPI (/usr/bin/mpicc): apt-get install openmpi-bin libopenmpi-dev");
        return;
    }
    let jobs = env_num("RPMIX_SOAK_MPIRUN_JOBS", 20);
    let case = Case::new("soak_mpirun_spawning");
    let prog = c_prog("spawn", Build::Mpi);
    let tenth = (jobs / 10).max(1);
    let warm = tenth.max(5);
    let mut base = Peak::default();
    let mut series = Vec::new();
    for i in 0..jobs {
        let t = TmpDir::new("soakm");
        let tag = format!("RPMIX_SOAK_TAG={}-{i}", std::process::id());
        let (k, v) = tag.split_once('=').unwrap();
        let job = Job::start(
            Cmd::new("mpirun")
                .env("TMPDIR", &t)
                .env(k, v)
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
                .arg(&prog)
                .on(Lib::Ours),
        );
        if i == 0 {
            // (mpirun itself on rpmix, not only its ranks: "pmix=rpmix")
            let _ = wait_until("mpirun loads a libpmix", secs(30), || !libpmix_mapped(job.pid()).is_empty() || proc_ended(job.pid()));
            let maps = libpmix_mapped(job.pid());
            assert!(maps.contains(&Lib::Ours.file()), "mpirun maps {maps:?}, not rpmix's {}", Lib::Ours.file().display());
        }
        let peak = peak_of(job.pid());
        let r = job.wait(secs(90));
        let lines = r.all_lines();
        let want = ["child 0/2 got 4242 pmix=rpmix", "child 1/2 got 4242 pmix=rpmix", "spawn ok: 2 parents, 2 children replied pmix=rpmix"];
        if r.code() != Some(0) || !want.iter().all(|w| lines.iter().any(|l| l.starts_with(w))) {
            r.save(&case, "job");
            panic!("{}", r.report(&format!("mpirun job {i} of {jobs}: expected exit 0 and {want:?}")));
        }
        let left = leftovers_tagged(&tag);
        assert!(left.is_empty(), "mpirun job {i}: processes left: {left:?}");
        let files = listing(t.path());
        assert!(files.is_empty(), "mpirun job {i}: left under TMPDIR: {files:?}");
        if i < warm {
            base = base.max(peak);
        } else {
            // (sampled peaks: a job's children's pipes come and go between
            // samples, so fds and threads get a little room)
            assert!(
                peak.fds <= base.fds + FD_SLACK && peak.threads <= base.threads + 2 && peak.rss_kb <= base.rss_kb + RSS_SLACK_KB,
                "mpirun job {i}: peaks {peak:?} above the warm-up's {base:?} (fds within {FD_SLACK}, threads 2, RSS {RSS_SLACK_KB} kB)"
            );
        }
        if (i + 1) % tenth == 0 {
            let l = format!("{:>6} jobs: mpirun peaks rss_kb={} fds={} threads={}", i + 1, peak.rss_kb, peak.fds, peak.threads);
            println!("{l}");
            series.push(l);
        }
    }
    case.write("series", &(series.join("\n") + "\n"));
}

/// Waits a little for the processes carrying `tag` to go; those still
/// there are killed and named.
fn leftovers_tagged(tag: &str) -> Vec<u32> {
    if wait_until("the job's processes gone", secs(10), || tagged(tag).is_empty()).is_ok() {
        return Vec::new();
    }
    let left = tagged(tag);
    for &p in &left {
        // SAFETY: kill(2) on a pid found carrying this job's tag.
        unsafe {
            libc::kill(p as i32, libc::SIGKILL);
        }
    }
    left
}
