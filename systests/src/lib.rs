//! The harness of rpmix's system tests (`make test`): each case is one
//! `#[test]` in `systests/tests/<area>.rs`, run by cargo-nextest.
//!
//! A case runs what a user runs: the built library (`target/release`), the
//! launchers, the C programs of `c-tests/` (compiled by `c-tests/Makefile`),
//! OpenPMIx 4.2.2 and the other peers installed by `tools/install-*.sh`.
//! What this module gives a case:
//! - [`Case`]: its own directory for files and logs (`c-tests/build/cases/<name>`);
//! - [`run`] / [`Job`]: a command in its own process group, ended (the whole
//!   group) at its time limit or when the guard is dropped;
//! - [`wait_until`], [`Job::wait_line`]: waiting on a condition or a line,
//!   never a fixed sleep;
//! - [`Lib`], [`Cmd::on`]: which libpmix.so.2 a program loads, and
//!   [`libpmix_mapped`] to prove it;
//! - [`c_prog`]: a C test program, built once by make;
//! - [`skip`]: a case that cannot run here says why (the summary counts it);
//! - [`driver_case`]: a case still written in a `tools/*-tests.sh` driver;
//!   [`driver_scenario`]: such a driver whose cases are one scenario.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// Where things are. Each path can be overridden as the bash drivers allow
/// (`RPMIX_LIBDIR`, `RPMIX_PMIXRUN`, `OPENPMIX_INCLUDE`, `RPMIX_BUILD`).
pub struct Env {
    /// The checkout.
    pub root: PathBuf,
    /// `c-tests/build`: compiled programs and every case's directory.
    pub build: PathBuf,
    /// rpmix's build: `libpmix.so.2`, `pmixrun`, `pmixctl`.
    pub libdir: PathBuf,
    pub lib: PathBuf,
    pub pmixrun: PathBuf,
    pub pmixctl: PathBuf,
    /// OpenPMIx 4.2.2's headers and library (Debian's libpmix-dev).
    pub ref_inc: PathBuf,
    pub ref_lib: PathBuf,
    /// OpenPMIx's example sources (`OPENPMIX_EXAMPLES`).
    pub oex_src: PathBuf,
}

fn path_var(name: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or(default)
}

/// The paths of this run (see [`Env`]).
pub fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("systests/ sits in the checkout").to_path_buf();
        let libdir = path_var("RPMIX_LIBDIR", root.join("target/release"));
        Env {
            build: path_var("RPMIX_BUILD", root.join("c-tests/build")),
            lib: libdir.join("libpmix.so.2"),
            pmixrun: path_var("RPMIX_PMIXRUN", libdir.join("pmixrun")),
            pmixctl: libdir.join("pmixctl"),
            ref_inc: path_var("OPENPMIX_INCLUDE", "/usr/lib/x86_64-linux-gnu/pmix2/include".into()),
            ref_lib: "/usr/lib/x86_64-linux-gnu/libpmix.so.2".into(),
            oex_src: path_var("OPENPMIX_EXAMPLES", "/usr/share/doc/libpmix-dev/examples".into()),
            libdir,
            root,
        }
    })
}

// ---------------------------------------------------------------- a case

/// A case's directory (`c-tests/build/cases/<name>`), made empty when the
/// case starts and kept afterwards for its logs.
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
}

impl Case {
    pub fn new(name: &str) -> Case {
        let dir = env().build.join("cases").join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        Case { name: name.to_string(), dir }
    }

    /// A path inside the case's directory.
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// Writes `text` to a file of the case's directory (for the log, or as
    /// a program's input) and returns its path.
    pub fn write(&self, file: &str, text: &str) -> PathBuf {
        let p = self.path(file);
        fs::write(&p, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
        p
    }
}

// ---------------------------------------------------------------- commands

/// Which libpmix.so.2 a program loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    /// rpmix's, from `env().libdir` (through `LD_LIBRARY_PATH`).
    Ours,
    /// The system's: OpenPMIx 4.2.2 (no `LD_LIBRARY_PATH`).
    OpenPmix,
}

impl Lib {
    pub fn name(self) -> &'static str {
        match self {
            Lib::Ours => "rpmix",
            Lib::OpenPmix => "OpenPMIx",
        }
    }
    /// The library file a process on this side maps.
    pub fn file(self) -> PathBuf {
        let f = match self {
            Lib::Ours => env().lib.clone(),
            Lib::OpenPmix => env().ref_lib.clone(),
        };
        fs::canonicalize(&f).unwrap_or(f)
    }
}

/// A command line being put together: a `std::process::Command` with the
/// harness's defaults (its own process group, no stdin).
pub struct Cmd {
    cmd: Command,
    shown: String,
}

impl Cmd {
    pub fn new(program: impl AsRef<OsStr>) -> Cmd {
        let shown = program.as_ref().to_string_lossy().into_owned();
        let mut cmd = Command::new(program);
        cmd.stdin(Stdio::null()).process_group(0);
        Cmd { cmd, shown }
    }
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Cmd {
        let _ = write!(self.shown, " {}", a.as_ref().to_string_lossy());
        self.cmd.arg(a);
        self
    }
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Cmd {
        for a in args {
            self = self.arg(a);
        }
        self
    }
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Cmd {
        let _ = write!(self.shown, " [{}={}]", k.as_ref().to_string_lossy(), v.as_ref().to_string_lossy());
        self.cmd.env(k, v);
        self
    }
    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Cmd {
        self.cmd.env_remove(k);
        self
    }
    pub fn current_dir(mut self, d: impl AsRef<Path>) -> Cmd {
        self.cmd.current_dir(d);
        self
    }
    /// Loads `lib` as its libpmix.so.2.
    pub fn on(self, lib: Lib) -> Cmd {
        match lib {
            Lib::Ours => {
                // Without the file the loader would quietly take the system's
                // OpenPMIx, and a case would pass on the wrong library.
                let e = env();
                assert!(e.lib.exists(), "no {} (make build, or set RPMIX_LIBDIR)", e.lib.display());
                self.env("LD_LIBRARY_PATH", &e.libdir)
            }
            Lib::OpenPmix => self.env_remove("LD_LIBRARY_PATH"),
        }
    }
    /// A file as its standard input.
    pub fn stdin_file(mut self, f: &Path) -> Cmd {
        let file = File::open(f).unwrap_or_else(|e| panic!("cannot open {}: {e}", f.display()));
        self.cmd.stdin(file);
        self
    }
    /// The command line, for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

/// A finished command: its exit, output and time.
#[derive(Debug)]
pub struct Run {
    pub shown: String,
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// It was killed at its time limit.
    pub timed_out: bool,
}

impl Run {
    /// The exit code (`None` when killed by a signal or the time limit).
    pub fn code(&self) -> Option<i32> {
        if self.timed_out {
            return None;
        }
        self.status.and_then(|s| s.code())
    }
    /// The signal that ended it.
    pub fn signal(&self) -> Option<i32> {
        self.status.and_then(|s| s.signal())
    }
    pub fn success(&self) -> bool {
        self.code() == Some(0)
    }
    /// Panics, showing the command and the end of its output, unless it exited 0.
    pub fn ok(self) -> Run {
        if !self.success() {
            panic!("{}", self.report("did not succeed"));
        }
        self
    }
    /// Panics unless it exited with `code`.
    pub fn exit_code(self, code: i32) -> Run {
        if self.code() != Some(code) {
            panic!("{}", self.report(&format!("exit code {:?}, expected {code}", self.code())));
        }
        self
    }
    /// The lines of stdout.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
    /// A description for a failure message: the command, how it ended and
    /// the last lines of both outputs.
    pub fn report(&self, what: &str) -> String {
        let end = if self.timed_out {
            format!("killed at its time limit after {:?}", self.elapsed)
        } else {
            match self.status {
                Some(s) if s.code().is_some() => format!("exit {} after {:?}", s.code().unwrap_or(-1), self.elapsed),
                Some(s) => format!("signal {} after {:?}", s.signal().unwrap_or(0), self.elapsed),
                None => "never started".into(),
            }
        };
        format!(
            "{what}: `{}` ({end})\n--- stdout (end)\n{}\n--- stderr (end)\n{}",
            self.shown,
            tail(&self.stdout, 40),
            tail(&self.stderr, 40)
        )
    }
    /// Saves both outputs in the case's directory as `<name>.out` / `<name>.err`.
    pub fn save(&self, case: &Case, name: &str) -> &Run {
        let _ = fs::write(case.path(&format!("{name}.out")), &self.stdout);
        let _ = fs::write(case.path(&format!("{name}.err")), &self.stderr);
        self
    }
}

/// The last `n` lines of `s`.
pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Sends `sig` to the process group `pgid` (ignoring one that is gone).
fn kill_group(pgid: u32, sig: i32) {
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-(pgid as i32), sig);
        }
    }
}

/// Reads a pipe to its end into a shared string, sending each line on `tx`.
fn drain(pipe: impl Read + Send + 'static, into: Arc<Mutex<String>>, tx: Option<mpsc::Sender<String>>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut r = BufReader::new(pipe);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    into.lock().unwrap_or_else(|p| p.into_inner()).push_str(&line);
                    if let Some(tx) = &tx {
                        let _ = tx.send(line.trim_end_matches('\n').to_string());
                    }
                }
            }
        }
    })
}

/// Runs `cmd` to its end, at most `limit`: at the limit its whole process
/// group is killed and the run is marked `timed_out`. Whatever the program
/// left running in its group is ended too.
pub fn run(cmd: Cmd, limit: Duration) -> Run {
    let job = Job::start(cmd);
    job.wait(limit)
}

/// How long what a program left in its group may go on once it ended (see `Job::wait`).
const LINGER: Duration = Duration::from_secs(2);

/// A program started in its own process group; dropping the guard kills the
/// group and reaps the program, so nothing outlives a failed case.
pub struct Job {
    child: Option<Child>,
    pgid: u32,
    shown: String,
    started: Instant,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    lines: Receiver<String>,
    readers: Vec<thread::JoinHandle<()>>,
}

impl Job {
    pub fn start(cmd: Cmd) -> Job {
        let Cmd { mut cmd, shown } = cmd;
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start `{shown}`: {e}"));
        let pgid = child.id();
        let (tx, lines) = mpsc::channel();
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let readers = vec![
            drain(child.stdout.take().expect("piped"), stdout.clone(), Some(tx.clone())),
            drain(child.stderr.take().expect("piped"), stderr.clone(), Some(tx)),
        ];
        Job { child: Some(child), pgid, shown, started: Instant::now(), stdout, stderr, lines, readers }
    }

    pub fn pid(&self) -> u32 {
        self.pgid
    }

    /// Waits for a line (of stdout or stderr) for which `pred` holds, at most
    /// `limit`; returns it, or an error naming what was waited for.
    pub fn wait_line(&self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) -> Result<String, String> {
        let end = Instant::now() + limit;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if pred(&l) => return Ok(l),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return Err(format!("no line {what} within {limit:?} from `{}`", self.shown)),
                Err(RecvTimeoutError::Disconnected) => return Err(format!("`{}` closed its output before a line {what}", self.shown)),
            }
        }
    }

    /// Sends a signal to the program itself.
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on the child's pid; no memory is involved.
        unsafe {
            libc::kill(self.pgid as i32, sig);
        }
    }

    /// The output so far.
    pub fn stdout_so_far(&self) -> String {
        self.stdout.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits for the program's end, at most `limit` (then kills its group).
    pub fn wait(mut self, limit: Duration) -> Run {
        let mut child = self.child.take().expect("a job is waited for once");
        let end = self.started + limit;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() >= end => {
                    timed_out = true;
                    kill_group(self.pgid, libc::SIGKILL);
                    break child.wait().ok();
                }
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(_) => break None,
            }
        };
        // What the program left in its group (children that outlive it, as
        // OpenPMIx's example server's ranks may, finishing their last line)
        // gets a moment to end and close the pipes, then is killed: it would
        // hold them open.
        let grace = (Instant::now() + LINGER).min(end.max(Instant::now()));
        while !self.readers.iter().all(|r| r.is_finished()) && Instant::now() < grace {
            thread::sleep(Duration::from_millis(2));
        }
        kill_group(self.pgid, libc::SIGKILL);
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let take = |s: &Arc<Mutex<String>>| std::mem::take(&mut *s.lock().unwrap_or_else(|p| p.into_inner()));
        Run {
            shown: self.shown.clone(),
            status,
            stdout: take(&self.stdout),
            stderr: take(&self.stderr),
            elapsed: self.started.elapsed(),
            timed_out,
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            kill_group(self.pgid, libc::SIGKILL);
            let _ = c.wait();
        }
    }
}

/// Waits until `cond` holds, checking every few milliseconds, at most `limit`.
pub fn wait_until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) -> Result<(), String> {
    let end = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    loop {
        if cond() {
            return Ok(());
        }
        if Instant::now() >= end {
            return Err(format!("{what}: not within {limit:?}"));
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Seconds, for time limits.
pub const fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

// ---------------------------------------------------------------- libraries

/// The libpmix files a running process has mapped (resolved paths).
pub fn libpmix_mapped(pid: u32) -> BTreeSet<PathBuf> {
    let maps = fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| Path::new(p).file_name().is_some_and(|f| f.to_string_lossy().starts_with("libpmix")))
        .map(|p| fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
        .collect()
}

// ---------------------------------------------------------------- C programs

/// How a C test program is built (`c-tests/Makefile`, which also holds
/// what a program needs besides its kind: `CFLAGS_<prog>`, `LIBS_<prog>`).
#[derive(Clone, Copy, Debug)]
pub enum Build {
    /// Strict C99 against rpmix's headers, linked with rpmix's library: `<prog>_ours`.
    Ours,
    /// gnu99 against OpenPMIx 4.2.2's headers (they use strdup without
    /// asking for it), linked with `-l:libpmix.so.2`: `<prog>_ref`.
    Ref,
    /// C++11 against rpmix's headers: `<prog>_cxx`.
    Cxx,
    /// gnu99, strict, without PMIx (a helper): `<prog>_plain`.
    Plain,
    /// A shared object to preload, without PMIx: `lib<prog>.so`.
    Preload,
    /// OpenPMIx's example `<prog>.c` (`env().oex_src`), with
    /// `c-tests/openpmix-examples/examples.h`: `oex_<prog>`.
    OpenPmixExample,
    /// `c-tests/mpi/<prog>.c` built with Open MPI's mpicc: `mpi_<prog>`.
    Mpi,
    /// OpenPMIx 4.2.2's own test program `test/simple/<prog>.c` (from
    /// its source package: [`consumers_cache`]), with the shim of its
    /// internal headers: `simple_<prog>`.
    OpenPmixTest,
}

/// `c-tests/<prog>.c` built the way `build` says, by make (again only when
/// its sources, headers or the Makefile changed); returns the program's path.
pub fn c_prog(prog: &str, build: Build) -> PathBuf {
    let e = env();
    let bin = e.build.join("make");
    fs::create_dir_all(&bin).unwrap_or_else(|err| panic!("cannot create {}: {err}", bin.display()));
    let file = match build {
        Build::Ours => format!("{prog}_ours"),
        Build::Ref => format!("{prog}_ref"),
        Build::Cxx => format!("{prog}_cxx"),
        Build::Plain => format!("{prog}_plain"),
        Build::Preload => format!("lib{prog}.so"),
        Build::OpenPmixExample => format!("oex_{prog}"),
        Build::Mpi => format!("mpi_{prog}"),
        Build::OpenPmixTest => format!("simple_{prog}"),
    };
    let opx_src = match build {
        Build::OpenPmixTest => Some(openpmix_src()),
        _ => None,
    };
    let out = bin.join(file);
    // Cases run side by side: one make at a time in this directory.
    let lock = File::create(bin.join(".lock")).expect("lock file");
    // SAFETY: flock(2) on a descriptor this function owns for the call's length.
    unsafe {
        libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
    }
    let r = run(
        Cmd::new("make")
            .args(["-s", "-C"])
            .arg(e.root.join("c-tests"))
            .arg(format!("BIN={}", bin.display()))
            .arg(format!("LIBDIR={}", e.libdir.display()))
            .arg(format!("REF_INC={}", e.ref_inc.display()))
            .arg(format!("OEX_SRC={}", e.oex_src.display()))
            .args(opx_src.map(|d| format!("OPENPMIX_SRC={}", d.display())))
            .arg(&out),
        secs(300),
    );
    drop(lock);
    if !r.success() {
        panic!("{}", r.report(&format!("building {}", out.display())));
    }
    out
}

/// tools/install-consumers.sh's cache of the programs of the field and
/// OpenPMIx's sources (it installs what is missing, then prints the
/// cache's path last), run once per test process.
pub fn consumers_cache() -> &'static Path {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE.get_or_init(|| {
        let r = run(Cmd::new(env().root.join("tools/install-consumers.sh")), secs(3600));
        let dir = PathBuf::from(r.stdout.lines().last().unwrap_or("").trim());
        assert!(r.success() && dir.is_dir(), "{}", r.report("tools/install-consumers.sh failed"));
        dir
    })
}

/// OpenPMIx 4.2.2's sources (`OPENPMIX_SRC`, else [`consumers_cache`]'s).
pub fn openpmix_src() -> PathBuf {
    std::env::var_os("OPENPMIX_SRC").map(PathBuf::from).unwrap_or_else(|| consumers_cache().join("openpmix-src"))
}

/// Why the reports of c-tests/which_pmix.c in `proof` ("<pid> <library>
/// <version>" per process) fail: a process that loaded a libpmix.so.2
/// other than `want`, or fewer than `min` on it (processes that loaded
/// none, "not-loaded", do not count).
pub fn which_pmix_loaded(proof: &Path, want: &Path, min: usize) -> Vec<String> {
    let text = fs::read_to_string(proof).unwrap_or_default();
    let (mut n, mut other) = (0, Vec::new());
    for path in text.lines().filter_map(|l| l.split_whitespace().nth(1)) {
        if path == "not-loaded" {
            continue;
        }
        if fs::canonicalize(path).is_ok_and(|p| p == want) {
            n += 1;
        } else {
            other.push(path.to_string());
        }
    }
    let mut why = Vec::new();
    if !other.is_empty() {
        why.push(format!("processes on another library: {}", other.join(" ")));
    }
    if n < min {
        why.push(format!("{n} processes on {}, fewer than {min}", want.display()));
    }
    why
}

// ---------------------------------------------------------------- skips

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Says that a case did not run here and why: printed, and recorded in
/// `target/nextest/skipped.txt`, which `make test`'s summary counts. A case
/// calls it and returns.
pub fn skip(case: &str, why: &str) {
    println!("SKIP: {case}: {why}");
    let dir = env().root.join("target/nextest");
    let _ = fs::create_dir_all(&dir);
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(dir.join("skipped.txt")) {
        let _ = writeln!(f, "{case}: {why}");
    }
}

// ---------------------------------------------------------------- bash drivers

/// Runs one case of a `tools/*-tests.sh` driver (its `RPMIX_CASE` filter,
/// anchored), in `c-tests/build/<subdir>`, with `extra` in its environment;
/// the case passes when the driver prints its PASS (or `ok`) line and
/// nothing failed. The driver's output is the test's output.
/// A `tools/*-tests.sh` driver's command: its build directory, the shared
/// compiled programs, and the file where it lists the cases it knows.
fn driver_cmd(driver: &str, subdir: &str) -> Cmd {
    let e = env();
    Cmd::new(e.root.join("tools").join(driver))
        .arg(e.build.join(subdir))
        .env("RPMIX_BIN", &e.build)
        .env("RPMIX_CASES_SEEN", e.root.join("target/nextest/driver-cases.txt"))
        .current_dir(&e.root)
}

pub fn driver_case(driver: &str, subdir: &str, case: &str, extra: &[(&str, &str)], limit: Duration) {
    let mut anchored = String::from("^");
    for ch in case.chars() {
        if "\\^$.|?*+()[]{}".contains(ch) {
            anchored.push('\\');
        }
        anchored.push(ch);
    }
    anchored.push('$');
    let mut cmd = driver_cmd(driver, subdir).env("RPMIX_CASE", &anchored);
    for (k, v) in extra {
        cmd = cmd.env(k, v);
    }
    let r = run(cmd, limit);
    println!("{}\n{}", r.stdout, r.stderr);
    let passed = r.stdout.lines().any(|l| {
        l.strip_prefix("PASS: ").or_else(|| l.strip_prefix("ok   ")).is_some_and(|rest| rest == case || rest.starts_with(&format!("{case} (")))
    });
    let clean = r.stdout.lines().any(|l| l.ends_with(" passed, 0 failed"));
    // A driver skips a case that cannot run here, or that fails on OpenPMIx
    // too (no reference to compare with): "SKIP: <case> (<why>)".
    let skipped = r.stdout.lines().find_map(|l| {
        let rest = l.strip_prefix("SKIP: ")?.strip_prefix(case)?;
        (rest.is_empty() || rest.starts_with(' ')).then(|| rest.trim().trim_start_matches('(').trim_end_matches(')').to_string())
    });
    if let (false, Some(why), true, true) = (passed, &skipped, clean, r.success()) {
        skip(case, if why.is_empty() { "the driver skipped it" } else { why });
        return;
    }
    assert!(passed && clean && r.success(), "{}", r.report(&format!("case {case} of {driver}")));
}

/// Runs a whole `tools/*-tests.sh` driver whose cases are one scenario's
/// steps, each needing the ones before (a fresh root set up, then used):
/// it passes when every step passed. Its steps are listed in its output.
pub fn driver_scenario(driver: &str, subdir: &str, limit: Duration) {
    let r = run(driver_cmd(driver, subdir), limit);
    println!("{}\n{}", r.stdout, r.stderr);
    let clean = r.stdout.lines().any(|l| l.ends_with(" passed, 0 failed") && !l.starts_with("0 passed"));
    assert!(clean && r.success(), "{}", r.report(&format!("the scenario of {driver}")));
}

/// Declares one `#[test]` per case of a bash driver:
/// `driver_cases!("twohost-tests.sh", "mpi", secs(300), [("VAR", "value")], { hello: "twohost/hello", ... });`
/// (the driver, its build subdirectory, each case's time limit, extra
/// environment, then each test's name and the driver's name of its case).
#[macro_export]
macro_rules! driver_cases {
    ($driver:expr, $subdir:expr, $limit:expr, $extra:expr, { $($test:ident : $case:expr),* $(,)? }) => {
        $(
            #[test]
            fn $test() {
                $crate::driver_case($driver, $subdir, $case, &$extra, $limit);
            }
        )*
    };
}

// ---------------------------------------------------------------- helpers of the host and scale cases

/// valgrind as the system tests run it: an error or a definite leak fails
/// the run (exit 9). Put before a program's command line.
pub const VALGRIND: [&str; 5] = ["valgrind", "-q", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite"];

impl Cmd {
    /// Starts from an empty environment (then add what the program needs).
    pub fn env_clear(mut self) -> Cmd {
        self.shown.push_str(" [empty environment]");
        self.cmd.env_clear();
        self
    }
}

/// A command whose standard error goes to its standard output (`2>&1`: one
/// stream, in the order the lines were written), through `sh`.
pub fn merged<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(argv: I) -> Cmd {
    Cmd::new("sh").args(["-c", "exec \"$@\" 2>&1", "sh"]).args(argv)
}

/// This machine's host name (as `hostname` prints it).
pub fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

// ---------------------------------------------------------------- processes of a launcher (/proc)
//
// A launcher's ranks are its children: these read them from /proc (their
// pids, names and states), so a case can wait for them to start, stop or
// go on. Also: this machine's name, and a standard input that stays open.

/// Fields of `/proc/<pid>/stat` after the command name: (state, ppid).
fn proc_stat(pid: u32) -> Option<(char, u32)> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    Some((state, ppid))
}

/// A process's state letter (`R`, `S`, `T`, `Z`, ...); `None` once it is gone.
pub fn proc_state(pid: u32) -> Option<char> {
    proc_stat(pid).map(|(s, _)| s)
}

/// A process's name (`/proc/<pid>/comm`); `None` once it is gone.
pub fn proc_comm(pid: u32) -> Option<String> {
    fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|s| s.trim_end().to_string())
}

/// Whether a process has ended (gone, or a zombie nobody reaped yet).
pub fn proc_ended(pid: u32) -> bool {
    matches!(proc_state(pid), None | Some('Z') | Some('X'))
}

/// The pids of `pid`'s children, sorted.
pub fn children(pid: u32) -> Vec<u32> {
    let mut out: Vec<u32> = fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
                .filter(|&c| proc_stat(c).is_some_and(|(_, pp)| pp == pid))
                .collect()
        })
        .unwrap_or_default();
    out.sort_unstable();
    out
}

/// The states of `pid`'s children (a launcher's ranks), sorted, as one
/// string: `"SS"` for two sleeping ranks, `"ST"` when one is stopped.
pub fn child_states(pid: u32) -> String {
    let mut s: Vec<char> = children(pid).into_iter().filter_map(proc_state).collect();
    s.sort_unstable();
    s.into_iter().collect()
}

/// Waits until [`child_states`] of `pid` is `want`, at most `limit`; the
/// error says what they were last.
pub fn wait_child_states(pid: u32, want: &str, limit: Duration) -> Result<(), String> {
    wait_until(&format!("the children of {pid} in states {want}"), limit, || child_states(pid) == want)
        .map_err(|e| format!("{e} (they are: {:?})", child_states(pid)))
}

/// Waits until `pid` has `n` children, each running `comm` (exec'd), at most
/// `limit`; returns their pids.
pub fn wait_children_running(pid: u32, n: usize, comm: &str, limit: Duration) -> Result<Vec<u32>, String> {
    let ready = || {
        let c = children(pid);
        (c.len() == n && c.iter().all(|&p| proc_comm(p).as_deref() == Some(comm))).then_some(c)
    };
    wait_until(&format!("{n} children of {pid} running {comm}"), limit, || ready().is_some())
        .map_err(|e| format!("{e} (children: {:?})", children(pid).iter().map(|&p| (p, proc_comm(p))).collect::<Vec<_>>()))?;
    ready().ok_or_else(|| format!("the children of {pid} changed"))
}


impl Cmd {
    /// A standard input that stays open and silent while the returned end
    /// is held (dropping it closes the input).
    pub fn stdin_held_open(mut self) -> (Cmd, std::os::fd::OwnedFd) {
        use std::os::fd::FromRawFd;
        let mut fds = [0; 2];
        // SAFETY: pipe2(2) fills the two descriptors of a new pipe, which are then owned once each.
        let (r, w) = unsafe {
            assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0, "pipe2");
            (std::os::fd::OwnedFd::from_raw_fd(fds[0]), std::os::fd::OwnedFd::from_raw_fd(fds[1]))
        };
        self.cmd.stdin(Stdio::from(r));
        (self, w)
    }
}

impl Run {
    /// The lines of stdout, then those of stderr (what `2>&1` would show,
    /// each stream in its order).
    pub fn all_lines(&self) -> Vec<&str> {
        self.stdout.lines().chain(self.stderr.lines()).collect()
    }
}

/// A TMPDIR of a case's own for the servers it starts and the tools it
/// runs (their sockets and rendezvous files): under the system's temporary
/// directory, short as a Unix socket's path must be (a case's directory can
/// be too deep), unique, removed when dropped.
pub struct TmpDir(PathBuf);

impl TmpDir {
    /// A new empty directory `<temp>/rpmix-<tag>.XXXXXX`.
    pub fn new(tag: &str) -> TmpDir {
        let template = std::env::temp_dir().join(format!("rpmix-{tag}.XXXXXX"));
        let mut bytes = std::ffi::CString::new(template.as_os_str().as_encoded_bytes()).expect("no NUL").into_bytes_with_nul();
        // SAFETY: mkdtemp(3) rewrites the XXXXXX of the NUL-terminated buffer it is given, which outlives the call.
        let made = unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) };
        assert!(!made.is_null(), "mkdtemp {}: {}", template.display(), std::io::Error::last_os_error());
        bytes.pop();
        TmpDir(PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes)))
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for TmpDir {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------- helpers of the fault and IO-forwarding cases
//
// A case's processes found by a marker of its own on their command lines
// (ranks a launcher left behind are in process groups of their own), and a
// program waited for without reaping it, so what it left can be looked at
// before its group is ended.

/// A string unique to this run of `case`, to put on its command lines
/// (an argument the programs do not use).
pub fn new_marker(case: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("rpmix-{case}-{}-{nanos}", std::process::id())
}

/// The live processes (not zombies) whose command line contains `marker`.
pub fn pids_with_marker(marker: &str) -> Vec<u32> {
    // (an empty or short marker would match processes of other cases)
    assert!(marker.len() >= 8, "a marker as short as {marker:?}");
    let mut out: Vec<u32> = fs::read_dir("/proc")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).collect())
        .unwrap_or_default();
    out.retain(|&p| !proc_ended(p) && fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker)));
    out.sort_unstable();
    out
}

/// The live processes (not zombies) whose environment holds `<var>=<value>`
/// (inherited by every descendant, whatever its command line).
pub fn pids_with_env(var: &str, value: &str) -> Vec<u32> {
    // (an empty or short value would match processes of other cases)
    assert!(value.len() >= 8, "a marker as short as {value:?}");
    let want = format!("{var}={value}");
    let mut out: Vec<u32> = fs::read_dir("/proc")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).collect())
        .unwrap_or_default();
    out.retain(|&p| {
        p != std::process::id() && !proc_ended(p) && fs::read(format!("/proc/{p}/environ")).is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
    });
    out.sort_unstable();
    out
}

/// Kills (SIGKILL) every process [`pids_with_env`] finds; returns their pids.
pub fn kill_with_env(var: &str, value: &str) -> Vec<u32> {
    let pids = pids_with_env(var, value);
    for &p in &pids {
        // SAFETY: kill(2) on a pid found carrying this case's marker; no memory is involved.
        unsafe {
            libc::kill(p as i32, libc::SIGKILL);
        }
    }
    pids
}

/// Waits up to `grace` until no process carries `marker`; those still
/// there are killed (SIGKILL) and returned, each as "<pid> <command line>".
pub fn leftovers(marker: &str, grace: Duration) -> Vec<String> {
    if wait_until(&format!("no process with {marker}"), grace, || pids_with_marker(marker).is_empty()).is_ok() {
        return Vec::new();
    }
    let left = pids_with_marker(marker);
    left.iter()
        .map(|&p| {
            let cmdline = fs::read(format!("/proc/{p}/cmdline")).map(|c| String::from_utf8_lossy(&c).replace('\0', " ")).unwrap_or_default();
            // SAFETY: kill(2) on a pid found carrying this case's marker; no memory is involved.
            unsafe {
                libc::kill(p as i32, libc::SIGKILL);
            }
            format!("{p} {}", cmdline.trim_end())
        })
        .collect()
}

impl Job {
    /// Waits until the program has ended, at most `limit`, without reaping
    /// it (its process group and pipes are left alone: see [`Job::wait`]);
    /// returns whether it ended.
    pub fn wait_ended(&self, limit: Duration) -> bool {
        wait_until("the program ends", limit, || proc_ended(self.pgid)).is_ok()
    }
}

/// A command whose standard output and error go to the files `out` and
/// `err` (`>out 2>err`, through `sh`: for outputs too big to hold).
pub fn to_files<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(argv: I, out: &Path, err: &Path) -> Cmd {
    Cmd::new("sh").args(["-c", "o=$1 e=$2; shift 2; exec \"$@\" >\"$o\" 2>\"$e\"", "sh"]).arg(out).arg(err).args(argv)
}

// ---------------------------------------------------------------- sanitizer builds

/// rpmix built with a sanitizer (`"thread"`, `"address"`): `cargo build
/// --release` of `what` (`["--lib"]`, `["--bin", "pmixrun"]`) on the stable
/// toolchain (RUSTC_BOOTSTRAP) into `target/<dir>`, whose release
/// directory it returns (`x86_64-unknown-linux-gnu/release`: a target
/// named, so build scripts and proc macros are not instrumented).
pub fn sanitized_build(sanitizer: &str, dir: &str, what: &[&str]) -> PathBuf {
    let e = env();
    let build = run(
        Cmd::new("cargo")
            .args(["build", "-q", "--release"])
            .args(what)
            .args(["--target", "x86_64-unknown-linux-gnu", "--target-dir"])
            .arg(e.root.join("target").join(dir))
            .env("RUSTC_BOOTSTRAP", "1")
            .env("RUSTFLAGS", format!("-Zsanitizer={sanitizer} -Cunsafe-allow-abi-mismatch=sanitizer"))
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .current_dir(&e.root),
        secs(3600),
    );
    if !build.success() {
        panic!("{}", build.report(&format!("the {sanitizer} sanitizer build of {what:?}")));
    }
    e.root.join("target").join(dir).join("x86_64-unknown-linux-gnu/release")
}

/// What c-tests/debug_rank.c writes on stdout as rank `r`: lines
/// "r<r> <i> <26 letters>" up to `kib` KiB.
pub fn debug_rank_output(kib: usize, r: u64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut i = 0;
    while out.len() < kib * 1024 {
        let _ = writeln!(out, "r{r} {i} abcdefghijklmnopqrstuvwxyz");
        i += 1;
    }
    out
}
