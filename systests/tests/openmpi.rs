//! Open MPI 4.1 (Debian 12) and 5.0 with PRRTE and OpenPMIx 5 (the Debian 13
//! root) on rpmix.

use rpmix_systests::*;
use std::ffi::OsStr;
use std::time::Duration;

// ---------------------------------------------------------------- Open MPI 4.1 (Debian 12)
//
// c-tests/mpi/*.c (mpicc) under Debian's Open MPI 4.1.4, each scenario once
// with OpenPMIx's libpmix (no LD_LIBRARY_PATH) and once with rpmix's
// (LD_LIBRARY_PATH, which mpirun, orted, ompi-server and the ranks all
// inherit); then once more with mpirun on OpenPMIx and only its ranks (and
// spawned children) on rpmix ("mixed": mpirun's -x LD_LIBRARY_PATH; rpmix
// speaks OpenPMIx's protocol to its server); and every program launched by
// rpmix's own launcher, `pmixrun -n 4 <prog>` (Open MPI's ranks then run
// ess/pmi as under `srun --mpi=pmix`: pmixrun sets JSM_JSRUN_PORT so Open
// MPI recognises the direct launch). Every process of a run carries a tag
// in its environment; whatever still carries it after the run (ranks,
// orted, ompi-server left behind by a hang) is killed.

/// Which library the processes of a run load.
#[derive(Clone, Copy, PartialEq, Debug)]
enum OLib {
    OpenPmix,
    Rpmix,
    /// mpirun on OpenPMIx, its ranks on rpmix.
    Mixed,
}

impl OLib {
    /// What PMIx_Get_version() begins with in the ranks.
    fn name(self) -> &'static str {
        match self {
            OLib::OpenPmix => "OpenPMIx",
            OLib::Rpmix | OLib::Mixed => "rpmix",
        }
    }
}

/// Seconds every launch may take (`OMPI_TESTS_TIMEOUT`, default 60).
fn tmo() -> u64 {
    std::env::var("OMPI_TESTS_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
}

/// mpirun's arguments: as root, more ranks than cores, then
/// `OMPI_TESTS_MPIRUN_ARGS`; under `Mixed`, the ranks' LD_LIBRARY_PATH.
fn mpirun(lib: OLib, np: usize) -> Vec<String> {
    let mut v: Vec<String> = ["mpirun", "--allow-run-as-root", "--oversubscribe"].map(String::from).to_vec();
    v.extend(std::env::var("OMPI_TESTS_MPIRUN_ARGS").unwrap_or_default().split_whitespace().map(String::from));
    if lib == OLib::Mixed {
        v.extend(["-x".to_string(), format!("LD_LIBRARY_PATH={}", env().libdir.display())]);
    }
    v.extend(["-np".to_string(), np.to_string()]);
    v
}

/// rpmix's pmixrun as the launcher (`OMPI_TESTS_DIRECT=1` in its
/// environment), with `args` before the program.
fn pmixrun(args: &[&str]) -> Vec<String> {
    let t = tmo();
    let mut v = vec!["env".to_string(), "OMPI_TESTS_DIRECT=1".to_string(), env().pmixrun.to_string_lossy().into_owned()];
    v.extend(["--timeout".to_string(), (if t > 10 { t - 5 } else { t }).to_string()]);
    v.extend(args.iter().map(|s| s.to_string()));
    v
}

/// A command of a run on `lib` carrying `tag`, both streams in one.
fn tagged<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(argv: I, lib: OLib, tag: &str) -> Cmd {
    let cmd = merged(argv).env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1").env("RPMIX_OMPI_TEST_TAG", tag);
    cmd.on(if lib == OLib::Rpmix { Lib::Ours } else { Lib::OpenPmix })
}

/// Runs `launcher` + `prog` + `args` on `lib` (at most `tmo()` seconds),
/// then kills what still carries its tag; saved as `<log>.out`.
fn launch(case: &Case, log: &str, lib: OLib, launcher: &[String], prog: &str, args: &[&str]) -> Run {
    let tag = new_marker(&format!("{}-{log}", case.name));
    let prog = c_prog(prog, Build::Mpi);
    let argv: Vec<&OsStr> = launcher.iter().map(OsStr::new).chain([prog.as_os_str()]).chain(args.iter().map(OsStr::new)).collect();
    let r = run(tagged(argv, lib, &tag), secs(tmo()));
    kill_with_env("RPMIX_OMPI_TEST_TAG", &tag);
    r.save(case, log);
    r
}

/// Why `r` is no clean run: timed out, or an exit code other than 0.
fn ended_ok(r: &Run) -> Option<String> {
    if r.timed_out {
        Some(format!("timed out after {:?}", r.elapsed))
    } else if !r.success() {
        Some(format!("rc {:?}", r.code()))
    } else {
        None
    }
}

/// Whether `line` begins with `pattern`, where `#` in the pattern stands
/// for one or more digits.
fn matches(line: &str, pattern: &str) -> bool {
    let mut rest = line;
    for (i, part) in pattern.split('#').enumerate() {
        if i > 0 {
            let d = rest.chars().take_while(char::is_ascii_digit).count();
            if d == 0 {
                return false;
            }
            rest = &rest[d..];
        }
        match rest.strip_prefix(part) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    true
}

/// `n` lines "hello <r>/<n> pmix=<name> ...", one per rank.
fn check_hello(r: &Run, n: usize, lib: OLib) -> Option<String> {
    let lines = r.all_lines();
    let hello: Vec<&&str> = lines.iter().filter(|l| matches(l, &format!("hello #/{n} pmix="))).collect();
    if hello.len() != n {
        return Some(format!("{} of {n} hello lines", hello.len()));
    }
    if let Some(rank) = (0..n).find(|rank| !hello.iter().any(|l| l.starts_with(&format!("hello {rank}/{n} pmix=")))) {
        return Some(format!("no hello line for rank {rank}/{n}"));
    }
    if hello.iter().any(|l| !l.contains(&format!("pmix={} ", lib.name()))) {
        return Some(format!("a hello line does not name {}", lib.name()));
    }
    None
}

/// Each pattern (see [`matches`]) begins a line, and those of its lines
/// that name a library name `lib`'s.
fn check_lines(r: &Run, lib: OLib, patterns: &[&str]) -> Option<String> {
    let lines = r.all_lines();
    for p in patterns {
        let hits: Vec<&&str> = lines.iter().filter(|l| matches(l, p)).collect();
        if hits.is_empty() {
            return Some(format!("no line beginning {p:?}"));
        }
        if hits.iter().any(|l| l.contains("pmix=") && !l.contains(&format!("pmix={} ", lib.name()))) {
            return Some(format!("a line {p:?} does not name {}", lib.name()));
        }
    }
    None
}

fn verdict(r: &Run, why: Option<String>) {
    if let Some(w) = why {
        panic!("{}", r.report(&w));
    }
    println!("{}", r.stdout);
}

/// (a) MPI_Init/Allreduce/Barrier/Finalize: each rank's hello line.
fn hello(name: &str, lib: OLib, launcher: Vec<String>, n: usize) {
    let case = Case::new(name);
    let r = launch(&case, "run", lib, &launcher, "hello", &[]);
    verdict(&r, ended_ok(&r).or_else(|| check_hello(&r, n, lib)));
}

/// (b) MPI_Comm_spawn of 2 children, Bcast/Send, disconnect.
fn spawn(name: &str, lib: OLib, launcher: Vec<String>) {
    let case = Case::new(name);
    let r = launch(&case, "run", lib, &launcher, "spawn", &[]);
    let lines = ["child 0/2 got 4242 pmix=", "child 1/2 got 4242 pmix=", "spawn ok: # parents, 2 children replied pmix="];
    verdict(&r, ended_ok(&r).or_else(|| check_lines(&r, lib, &lines)));
}

/// (c) Open_port/Publish/Accept against Lookup/Connect, `pairs` pairs.
fn pubsub(name: &str, lib: OLib, pairs: usize, launcher: Vec<String>) {
    let case = Case::new(name);
    let service = new_marker("pubsub");
    let r = launch(&case, "run", lib, &launcher, "pubsub", &["both", &service]);
    let mut lines = vec!["pubsub ok (both)".to_string()];
    for k in 0..pairs {
        lines.push(format!("pubsub server {k} ok pmix="));
        lines.push(format!("pubsub client {k} ok pmix="));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    verdict(&r, ended_ok(&r).or_else(|| check_lines(&r, lib, &lines)));
}

/// (d) rank 1 MPI_Abort(MPI_COMM_WORLD, 3): exit code 3, no rank past the
/// barrier (only the exit code counts otherwise: the MPI_ABORT banner has
/// a known race in stock Open MPI).
fn abort(name: &str, lib: OLib, launcher: Vec<String>) {
    let case = Case::new(name);
    let r = launch(&case, "run", lib, &launcher, "abort", &[]);
    let why = if r.timed_out {
        Some(format!("timed out after {:?}", r.elapsed))
    } else if r.code() != Some(3) {
        Some(format!("rc {:?}, expected 3", r.code()))
    } else if r.all_lines().iter().any(|l| l.contains("passed the barrier")) {
        Some("a rank survived MPI_Abort".to_string())
    } else {
        None
    };
    verdict(&r, why);
}

/// (e) rank 2 exit(0) without MPI_Finalize: an exit code other than 0, no hang.
fn nofinalize(name: &str, lib: OLib, launcher: Vec<String>) {
    let case = Case::new(name);
    let r = launch(&case, "run", lib, &launcher, "nofinalize", &[]);
    let why = if r.timed_out {
        Some(format!("hang: timed out after {:?}", r.elapsed))
    } else if r.success() {
        Some("rc 0, expected non-zero".to_string())
    } else {
        None
    };
    verdict(&r, why);
}

/// (f) hello without a launcher: "hello 0/1".
fn singleton(name: &str, lib: OLib) {
    let case = Case::new(name);
    let r = launch(&case, "run", lib, &[], "hello", &[]);
    verdict(&r, ended_ok(&r).or_else(|| check_hello(&r, 1, lib)));
}

/// (c2) ompi-server and two mpiruns with --ompi-server file:<uri>: the
/// server job publishes and accepts, the client job (started once the
/// server job published) looks up and connects.
fn twojobs(name: &str, lib: OLib) {
    let case = Case::new(name);
    let tag = new_marker(name);
    let uri = case.path("uri");
    let server = Job::start(tagged([OsStr::new("ompi-server"), OsStr::new("--no-daemonize"), OsStr::new("-r"), uri.as_os_str()], lib, &tag));
    let written = wait_until("ompi-server's URI file", secs(10), || fs_nonempty(&uri) || server.wait_ended(Duration::ZERO));
    if written.is_err() || !fs_nonempty(&uri) {
        kill_with_env("RPMIX_OMPI_TEST_TAG", &tag);
        let r = server.wait(secs(1));
        r.save(&case, "ompi-server");
        panic!("{}", r.report("ompi-server wrote no URI file"));
    }
    let prog = c_prog("pubsub", Build::Mpi);
    let service = format!("tj-{tag}");
    let job = |mode: &str| {
        let mut argv = mpirun(lib, 1);
        argv.extend(["--ompi-server".to_string(), format!("file:{}", uri.display()), prog.to_string_lossy().into_owned(), mode.to_string(), service.clone()]);
        tagged(argv, lib, &tag)
    };
    let sjob = Job::start(job("server"));
    // (the client looks up the name again and again, for a while: it can start once the server published it)
    let published = sjob.wait_line("'pubsub server 0: published ...'", secs(tmo()), |l| l.starts_with("pubsub server 0: published "));
    let c = run(job("client"), secs(tmo()));
    let s = sjob.wait(secs(tmo() + 5));
    server.signal(libc::SIGTERM);
    let _ = server.wait_ended(secs(5));
    let o = server.wait(secs(1));
    kill_with_env("RPMIX_OMPI_TEST_TAG", &tag);
    for (r, n) in [(&s, "server"), (&c, "client"), (&o, "ompi-server")] {
        r.save(&case, n);
    }
    let why = if s.timed_out || c.timed_out {
        Some(format!("timed out (server job rc {:?}, client job rc {:?})", s.code(), c.code()))
    } else if !s.success() || !c.success() {
        Some(format!("server job rc {:?}, client job rc {:?} ({published:?})", s.code(), c.code()))
    } else if let Some(w) = check_lines(&s, lib, &["pubsub server 0 ok pmix=", "pubsub ok (server)"]) {
        Some(format!("server job: {w}"))
    } else {
        check_lines(&c, lib, &["pubsub client 0 ok pmix=", "pubsub ok (client)"]).map(|w| format!("client job: {w}"))
    };
    if let Some(w) = why {
        panic!("{w}
{}
{}
{}", s.report("server job"), c.report("client job"), o.report("ompi-server"));
    }
}

fn fs_nonempty(p: &std::path::Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.len() > 0)
}

#[test]
fn mpirun_openpmix_hello() {
    hello("mpirun_openpmix_hello", OLib::OpenPmix, mpirun(OLib::OpenPmix, 4), 4);
}
#[test]
fn mpirun_openpmix_spawn() {
    spawn("mpirun_openpmix_spawn", OLib::OpenPmix, mpirun(OLib::OpenPmix, 4));
}
#[test]
fn mpirun_openpmix_pubsub() {
    pubsub("mpirun_openpmix_pubsub", OLib::OpenPmix, 1, mpirun(OLib::OpenPmix, 2));
}
#[test]
fn mpirun_openpmix_abort() {
    abort("mpirun_openpmix_abort", OLib::OpenPmix, mpirun(OLib::OpenPmix, 4));
}
#[test]
fn mpirun_openpmix_nofinalize() {
    nofinalize("mpirun_openpmix_nofinalize", OLib::OpenPmix, mpirun(OLib::OpenPmix, 4));
}
#[test]
fn singleton_openpmix_hello() {
    singleton("singleton_openpmix_hello", OLib::OpenPmix);
}
#[test]
fn twojobs_openpmix_pubsub() {
    twojobs("twojobs_openpmix_pubsub", OLib::OpenPmix);
}
#[test]
fn mpirun_rpmix_hello() {
    hello("mpirun_rpmix_hello", OLib::Rpmix, mpirun(OLib::Rpmix, 4), 4);
}
#[test]
fn mpirun_rpmix_spawn() {
    spawn("mpirun_rpmix_spawn", OLib::Rpmix, mpirun(OLib::Rpmix, 4));
}
#[test]
fn mpirun_rpmix_pubsub() {
    pubsub("mpirun_rpmix_pubsub", OLib::Rpmix, 1, mpirun(OLib::Rpmix, 2));
}
#[test]
fn mpirun_rpmix_abort() {
    abort("mpirun_rpmix_abort", OLib::Rpmix, mpirun(OLib::Rpmix, 4));
}
#[test]
fn mpirun_rpmix_nofinalize() {
    nofinalize("mpirun_rpmix_nofinalize", OLib::Rpmix, mpirun(OLib::Rpmix, 4));
}
#[test]
fn singleton_rpmix_hello() {
    singleton("singleton_rpmix_hello", OLib::Rpmix);
}
#[test]
fn twojobs_rpmix_pubsub() {
    twojobs("twojobs_rpmix_pubsub", OLib::Rpmix);
}
#[test]
fn mpirun_mixed_hello() {
    hello("mpirun_mixed_hello", OLib::Mixed, mpirun(OLib::Mixed, 4), 4);
}
#[test]
fn mpirun_mixed_spawn() {
    spawn("mpirun_mixed_spawn", OLib::Mixed, mpirun(OLib::Mixed, 4));
}
#[test]
fn mpirun_mixed_pubsub() {
    pubsub("mpirun_mixed_pubsub", OLib::Mixed, 1, mpirun(OLib::Mixed, 2));
}
#[test]
fn mpirun_mixed_abort() {
    abort("mpirun_mixed_abort", OLib::Mixed, mpirun(OLib::Mixed, 4));
}
#[test]
fn mpirun_mixed_nofinalize() {
    nofinalize("mpirun_mixed_nofinalize", OLib::Mixed, mpirun(OLib::Mixed, 4));
}

/// (a) `OMPI_TESTS_REPEAT` (default 20) consecutive runs on rpmix: any
/// failure or hang fails the case.
#[test]
fn mpirun_rpmix_hello_x20() {
    let case = Case::new("mpirun_rpmix_hello_x20");
    let repeat: usize = std::env::var("OMPI_TESTS_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    for i in 1..=repeat {
        let r = launch(&case, "run", OLib::Rpmix, &mpirun(OLib::Rpmix, 4), "hello", &[]);
        if let Some(w) = ended_ok(&r).or_else(|| check_hello(&r, 4, OLib::Rpmix)) {
            panic!("{}", r.report(&format!("run {i}/{repeat}: {w}")));
        }
    }
}

#[test]
fn pmixrun_hello() {
    hello("pmixrun_hello", OLib::Rpmix, pmixrun(&["-n", "4"]), 4);
}
#[test]
fn pmixrun_hello_bound() {
    hello("pmixrun_hello_bound", OLib::Rpmix, pmixrun(&["--bind-to", "core", "-n", "3"]), 3);
}
#[test]
fn pmixrun_spawn() {
    spawn("pmixrun_spawn", OLib::Rpmix, pmixrun(&["-n", "4"]));
}
#[test]
fn pmixrun_pubsub() {
    pubsub("pmixrun_pubsub", OLib::Rpmix, 2, pmixrun(&["-n", "4"]));
}
#[test]
fn pmixrun_abort() {
    abort("pmixrun_abort", OLib::Rpmix, pmixrun(&["-n", "4"]));
}
#[test]
fn pmixrun_nofinalize() {
    nofinalize("pmixrun_nofinalize", OLib::Rpmix, pmixrun(&["-n", "4"]));
}

/// The patterns of the checks.
#[test]
fn line_patterns() {
    assert!(matches("spawn ok: 4 parents, 2 children replied pmix=rpmix 1", "spawn ok: # parents, 2 children replied pmix="));
    assert!(!matches("spawn ok:  parents, 2 children replied pmix=", "spawn ok: # parents, 2 children replied pmix="));
    assert!(matches("hello 3/4 pmix=OpenPMIx 4.2.2", "hello #/4 pmix="));
    assert!(!matches("hello 3/40 pmix=", "hello #/4 pmix="));
    assert!(!matches("xhello 3/4 pmix=", "hello #/4 pmix="));
}

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/newer-tests.sh
    mod newer {
        use super::*;
        driver_cases!("newer-tests.sh", "newer", secs(600), [], {
            helpers_vs_openpmix5: "helpers-vs-openpmix5",
            exports_vs_openpmix5: "exports-vs-openpmix5",
            helpers_client: "helpers-client",
            ompi5_hello: "ompi5/hello",
            ompi5_pubsub: "ompi5/pubsub",
            ompi5_abort: "ompi5/abort",
            ompi5_spawn: "ompi5/spawn",
            opx5_hello: "opx5/hello",
            opx5_pubsub: "opx5/pubsub",
            opx5_spawn: "opx5/spawn",
            py5_bindings: "py5/bindings",
            ompi5_psets: "ompi5/psets",
            opx5_psets: "opx5/psets",
            opx5_tools: "opx5/tools",
            prte_hello: "prte/hello",
            prte_pubsub: "prte/pubsub",
            prte_abort: "prte/abort",
            prte_spawn: "prte/spawn",
            prte_group: "prte/group",
            prte_psets: "prte/psets",
            prte_alloc: "prte/alloc",
            prte_pmixctl: "prte/pmixctl",
            prte_pmixctl_stdin: "prte/pmixctl-stdin",
        });
    }
}
