//! OpenPMIx peers both ways: OpenPMIx hosts with rpmix ranks, OpenPMIx ranks
//! under rpmix, OpenPMIx's examples and its own test programs on both libraries.

use rpmix_systests::*;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------- rpmix ranks under hosts on OpenPMIx
//
// The host keeps the system's libpmix.so.2 (OpenPMIx 4.2.2), only the ranks
// are given rpmix's, as a user can change their program's library but not
// the resource manager's. Hosts: the C resource manager c-tests/rm_simple.c
// built against OpenPMIx's headers (`rm`), OpenPMIx's example server.c
// (`server`), Open MPI 4.1.4's mpirun (`mpirun`, here with PMIx C
// programs). Each case runs twice: ranks on OpenPMIx (the reference) and
// ranks on rpmix (the library given to the ranks alone: a wrapper script,
// or mpirun's -x). Both runs must give the expected exit status and lines;
// a case the reference fails is a skip with its reason. Each rank proves
// its library: c-tests/which_pmix.c, preloaded into the ranks only,
// appends "<pid> <library path> <PMIx_Get_version()>" at start; each run
// must show one report per rank, each naming the run's library. Every
// process of a run carries its marker (MIXED_MARKER) and is ended by it.

/// The library of a run's ranks.
fn rank_lib(lib: Lib) -> &'static str {
    match lib {
        Lib::Ours => "rpmix",
        Lib::OpenPmix => "openpmix",
    }
}

/// `run-<lib>` in `dir`: runs its arguments as a rank on `lib`, with
/// which_pmix preloaded; and, for server.c (which takes one program path),
/// `<ex>.<lib>` for each of `examples`.
fn wrappers(dir: &Path, examples: &[&str]) {
    let which = c_prog("which_pmix", Build::Preload);
    for lib in [Lib::OpenPmix, Lib::Ours] {
        let name = rank_lib(lib);
        let set = match lib {
            Lib::Ours => format!("LD_LIBRARY_PATH='{}'; export LD_LIBRARY_PATH", env().libdir.display()),
            Lib::OpenPmix => "unset LD_LIBRARY_PATH".to_string(),
        };
        let run = dir.join(format!("run-{name}"));
        write_exe(&run, &format!("#!/bin/sh\n{set}\nLD_PRELOAD='{}'; export LD_PRELOAD\nexec \"$@\"\n", which.display()));
        for ex in examples {
            let prog = c_prog(ex, Build::OpenPmixExample);
            write_exe(&dir.join(format!("{ex}.{name}")), &format!("#!/bin/sh\nexec \"{}\" \"{}\" \"$@\"\n", run.display(), prog.display()));
        }
    }
}

fn write_exe(p: &Path, text: &str) {
    fs::write(p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// How a mixed case's output is judged: the exit code, the ranks that
/// must report (min, max), the lines (see [`holds`]) and how many at least.
struct Want {
    exit: i32,
    ranks: (usize, usize),
    pattern: &'static str,
    count: usize,
}

/// One position of a [`Want`] pattern.
#[derive(Clone, Copy)]
enum Tok {
    Char(char),
    Any,
    Range(char, char),
}

impl Tok {
    fn fits(self, c: char) -> bool {
        match self {
            Tok::Char(p) => p == c,
            Tok::Any => true,
            Tok::Range(lo, hi) => (lo..=hi).contains(&c),
        }
    }
}

/// A pattern's positions, each with its least and most count.
fn tokens(pat: &str) -> Vec<(Tok, usize, usize)> {
    let mut toks: Vec<(Tok, usize, usize)> = Vec::new();
    let mut it = pat.chars();
    while let Some(c) = it.next() {
        match c {
            '*' => {
                let last = toks.last_mut().expect("a token before *");
                (last.1, last.2) = (0, usize::MAX);
            }
            '+' => toks.last_mut().expect("a token before +").2 = usize::MAX,
            _ => {
                let t = match c {
                    '.' => Tok::Any,
                    '[' => {
                        let (lo, _, hi, _) = (it.next(), it.next(), it.next(), it.next());
                        Tok::Range(lo.expect("[a-b]"), hi.expect("[a-b]"))
                    }
                    c => Tok::Char(c),
                };
                toks.push((t, 1, 1));
            }
        }
    }
    toks
}

/// Whether `toks` match at the start of `line` (to its end when `to_end`).
fn match_here(toks: &[(Tok, usize, usize)], line: &[char], to_end: bool) -> bool {
    let Some(&(t, min, max)) = toks.first() else { return !to_end || line.is_empty() };
    let most = line.iter().take(max).take_while(|&&c| t.fits(c)).count();
    (min..=most).rev().any(|n| match_here(&toks[1..], &line[n..], to_end))
}

/// Whether `line` holds `pattern`: a regular expression as the drivers
/// wrote them (`^`, `$`, `.`, `[a-b]`, `*`, `+`).
fn holds(line: &str, pattern: &str) -> bool {
    let (anchored, pat) = pattern.strip_prefix('^').map_or((false, pattern), |p| (true, p));
    let (to_end, pat) = pat.strip_suffix('$').map_or((false, pat), |p| (true, p));
    let toks = tokens(pat);
    let chars: Vec<char> = line.chars().collect();
    if anchored {
        match_here(&toks, &chars, to_end)
    } else {
        (0..=chars.len()).any(|i| match_here(&toks, &chars[i..], to_end))
    }
}

/// One run of a host on OpenPMIx (`argv`, where `@LIB@` stands for the
/// ranks' library) in `case`'s directory, at most `limit`; the which_pmix
/// reports go to `<log>.proof`. What still carries the run's marker
/// afterwards is killed and makes the run fail.
fn run_host(case: &Case, log: &str, argv: &[String], lib: Lib, limit: u64) -> (Run, PathBuf, bool) {
    let marker = new_marker(&format!("{}-{log}", case.name));
    let proof = case.path(&format!("{log}.proof"));
    fs::write(&proof, "").unwrap();
    let t = TmpDir::new("mixed");
    let argv: Vec<String> = argv.iter().map(|a| a.replace("@LIB@", rank_lib(lib))).collect();
    let cmd = merged(argv.iter().map(OsStr::new))
        .on(Lib::OpenPmix)
        .env("WHICH_PMIX_OUT", &proof)
        .env("MIXED_MARKER", &marker)
        .env("TMPDIR", &t)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(&case.dir);
    let r = run(cmd, secs(limit));
    r.save(case, log);
    let clean = wait_until("the run's processes end", secs(5), || pids_with_env("MIXED_MARKER", &marker).is_empty()).is_ok();
    if !clean {
        kill_with_env("MIXED_MARKER", &marker);
    }
    (r, proof, clean)
}

/// Why the which_pmix reports in `proof` fail: not every one names `want`,
/// or their number is not within `ranks`.
fn proof_ranks(proof: &Path, want: &Path, ranks: (usize, usize)) -> Option<String> {
    let text = fs::read_to_string(proof).unwrap_or_default();
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split_whitespace().nth(1)).collect();
    let n = paths.iter().filter(|p| fs::canonicalize(p).is_ok_and(|p| p == want)).count();
    (n != text.lines().count() || n < ranks.0 || n > ranks.1).then(|| format!("{n} of {:?} ranks ran on {} (reports: {paths:?})", ranks, want.display()))
}

/// Why a run is not as `want` says.
fn judge(r: &Run, proof: &Path, clean: bool, lib: Lib, want: &Want) -> Vec<String> {
    let mut why = Vec::new();
    if r.timed_out || r.code() != Some(want.exit) {
        why.push(format!("exit {:?}{}, expected {}", r.code(), if r.timed_out { " (time limit)" } else { "" }, want.exit));
    }
    if !clean {
        why.push("processes left running".to_string());
    }
    let n = r.all_lines().iter().filter(|l| holds(l, want.pattern)).count();
    if n < want.count {
        why.push(format!("{n} of {} lines /{}/", want.count, want.pattern));
    }
    why.extend(proof_ranks(proof, &lib.file(), want.ranks));
    why
}

/// A mixed case: the reference (ranks on OpenPMIx; its failure is a skip),
/// then rpmix's ranks, each run tried up to `tries` times (a run that hit
/// the time limit again only with `retry_hangs`).
fn mixed_case(name: &str, examples: &[&str], argv: &[String], want: Want, tries: usize, limit: u64, retry_hangs: bool) {
    let case = Case::new(name);
    wrappers(&case.dir, examples);
    for lib in [Lib::OpenPmix, Lib::Ours] {
        let mut last = None;
        for attempt in 1..=tries {
            let log = format!("{}.{attempt}", rank_lib(lib));
            let (r, proof, clean) = run_host(&case, &log, argv, lib, limit);
            let why = judge(&r, &proof, clean, lib, &want);
            let hung = r.timed_out;
            last = Some((r, why));
            if last.as_ref().is_some_and(|(_, w)| w.is_empty()) || (hung && !retry_hangs) {
                break;
            }
        }
        let (r, why) = last.expect("a run");
        if why.is_empty() {
            continue;
        }
        if lib == Lib::OpenPmix {
            skip(name, &format!("fails with OpenPMIx ranks too: {}", why.join(", ")));
            return;
        }
        panic!("{}", r.report(&format!("rpmix ranks: {}", why.join(", "))));
    }
}

/// Paths as strings, for command lines.
fn s(p: impl AsRef<Path>) -> String {
    p.as_ref().to_string_lossy().into_owned()
}

/// `rm_simple_ref <rm args> <run-@LIB@> <client args>`: the C resource
/// manager on OpenPMIx, a client built against OpenPMIx's headers.
fn rm_argv(rm_args: &[&str], before_run: &[&str], client: &str, client_args: &[&str]) -> Vec<String> {
    let mut v = vec![s(c_prog("rm_simple", Build::Ref))];
    v.extend(rm_args.iter().map(|a| a.to_string()));
    v.extend(before_run.iter().map(|a| a.to_string()));
    v.push("./run-@LIB@".to_string());
    v.push(s(c_prog(client, Build::Ref)));
    v.extend(client_args.iter().map(|a| a.to_string()));
    v
}

const CLIENT_BASIC_OK: &str = "^client_basic: 4 ranks, all checks passed";

#[test]
fn mixed_rm_client_basic() {
    let argv = rm_argv(&["-n", "4"], &[], "client_basic", &["4"]);
    mixed_case("mixed_rm_client_basic", &[], &argv, Want { exit: 0, ranks: (4, 4), pattern: CLIENT_BASIC_OK, count: 1 }, 1, 45, false);
}

/// The same in the fully described buffer form (both the ranks' requests
/// and the server's answers carry types; see docs/compatibility.md, "rpmix
/// programs under OpenPMIx servers").
#[test]
fn mixed_rm_client_basic_described() {
    let argv = rm_argv(&["-n", "4"], &["env", "PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC"], "client_basic", &["4"]);
    mixed_case("mixed_rm_client_basic_described", &[], &argv, Want { exit: 0, ranks: (4, 4), pattern: CLIENT_BASIC_OK, count: 1 }, 1, 45, false);
}

/// Credentials: rm_simple's get/validate upcalls (a toy scheme), reached
/// through the server's GET_CREDENTIAL / VALIDATE_CRED commands.
#[test]
fn mixed_rm_client_cred() {
    let argv = rm_argv(&["-n", "4"], &[], "client_cred", &[]);
    mixed_case("mixed_rm_client_cred", &[], &argv, Want { exit: 0, ranks: (4, 4), pattern: "^client_cred: rank [0-3]: all checks passed", count: 4 }, 1, 45, false);
}

/// Job control: rank 0 has the host signal rank 1 (rm_simple's job_control).
#[test]
fn mixed_rm_client_jctl_signal() {
    let argv = rm_argv(&["-n", "2"], &[], "client_jctl_signal", &[]);
    mixed_case("mixed_rm_client_jctl_signal", &[], &argv, Want { exit: 0, ranks: (2, 2), pattern: "^client_jctl_signal: rank 1 got SIGUSR1", count: 1 }, 1, 45, false);
}

#[test]
fn mixed_rm_client_basic_deferred() {
    let argv = rm_argv(&["-m", "defer", "-n", "4"], &[], "client_basic", &["4"]);
    mixed_case("mixed_rm_client_basic_deferred", &[], &argv, Want { exit: 0, ranks: (4, 4), pattern: CLIENT_BASIC_OK, count: 1 }, 1, 45, false);
}

/// The host kills the other ranks when one aborts (some maybe before they
/// start): exit code 7, 1 to 4 ranks reporting.
#[test]
fn mixed_rm_client_abort() {
    let argv = rm_argv(&["-n", "4"], &[], "client_abort", &[]);
    mixed_case("mixed_rm_client_abort", &[], &argv, Want { exit: 7, ranks: (1, 4), pattern: ".", count: 0 }, 1, 45, false);
}

/// client_events fails some checks on OpenPMIx ranks (default handlers
/// that its 4.2.2 server never feeds): rpmix ranks must fail none of the
/// others.
#[test]
fn mixed_rm_client_events() {
    let case = Case::new("mixed_rm_client_events");
    wrappers(&case.dir, &[]);
    let argv = rm_argv(&["-n", "3"], &[], "client_events", &[]);
    let mut failed = Vec::new();
    for lib in [Lib::OpenPmix, Lib::Ours] {
        let (r, proof, clean) = run_host(&case, rank_lib(lib), &argv, lib, 45);
        let want = Want { exit: r.code().unwrap_or(-1), ranks: (3, 3), pattern: "^client_events: ", count: 1 };
        let mut why = judge(&r, &proof, clean, lib, &want);
        if !r.all_lines().iter().any(|l| l.strip_prefix("client_events: ").is_some_and(|x| x.split_once(" passed").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())))) {
            why.push("no line /^client_events: [0-9]+ passed/".to_string());
        }
        assert!(why.is_empty(), "{}", r.report(&format!("{} ranks: {}", rank_lib(lib), why.join(", "))));
        // (the checks that failed: "rank <n>: <what>: FAIL ...")
        let mut f: Vec<String> = r
            .all_lines()
            .iter()
            .filter_map(|l| {
                let rest = l.strip_prefix("rank ")?;
                let (n, rest) = rest.split_once(": ")?;
                let (what, _) = rest.split_once(": FAIL")?;
                n.chars().all(|c| c.is_ascii_digit()).then(|| what.to_string())
            })
            .collect();
        f.sort();
        f.dedup();
        failed.push(f);
    }
    let extra: Vec<&String> = failed[1].iter().filter(|w| !failed[0].contains(w)).collect();
    assert!(extra.is_empty(), "rpmix ranks fail checks OpenPMIx ranks pass: {extra:?}");
    println!("failed on OpenPMIx ranks: {:?}; on rpmix ranks: {:?}", failed[0], failed[1]);
}

/// OpenPMIx's example server (server.c) with 2 ranks of `ex`, retried up
/// to 5 times under a 10 s limit: its wakeup race lets it finalize while a
/// rank still runs; a rank's request then fails, or the server hangs (its
/// finalize joins its progress thread while that thread waits for the
/// library's lock inside a query from the rank; seen with OpenPMIx ranks
/// too, 1 run in 40 of hello).
fn server_case(ex: &str, pattern: &'static str, count: usize) {
    let argv = vec![s(c_prog("server", Build::OpenPmixExample)), "-n".into(), "2".into(), "-e".into(), format!("./{ex}.@LIB@")];
    mixed_case(&format!("mixed_server_{ex}"), &[ex], &argv, Want { exit: 0, ranks: (2, 2), pattern, count }, 5, 10, true);
}

const FINALIZED: &str = "PMIx_Finalize.successfully.completed";

#[test]
fn mixed_server_hello() {
    server_case("hello", FINALIZED, 2);
}
#[test]
fn mixed_server_client() {
    server_case("client", FINALIZED, 2);
}
#[test]
fn mixed_server_client2() {
    server_case("client2", FINALIZED, 2);
}
#[test]
fn mixed_server_dmodex() {
    server_case("dmodex", "rank.0:PMIx_Finalize.successfully", 1);
}
#[test]
fn mixed_server_nodeinfo() {
    server_case("nodeinfo", FINALIZED, 2);
}
#[test]
fn mixed_server_pub() {
    server_case("pub", "UNPUBLISH.SUCCEEDED", 1);
}
#[test]
fn mixed_server_pubi() {
    server_case("pubi", "UNPUBLISH.SUCCEEDED", 1);
}

/// OpenPMIx's example `ex` under Open MPI's mpirun (on OpenPMIx), 2 ranks
/// given their library by -x.
fn mpirun_case(ex: &str, pattern: &'static str, count: usize) {
    let argv: Vec<String> = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--host"]
        .map(String::from)
        .into_iter()
        .chain([format!("{}:2", hostname()), "-np".into(), "2".into(), "-x".into(), "MIXED_MARKER".into(), "-x".into(), "WHICH_PMIX_OUT".into()])
        .chain(["./run-@LIB@".to_string(), s(c_prog(ex, Build::OpenPmixExample))])
        .collect();
    mixed_case(&format!("mixed_mpirun_{ex}"), &[], &argv, Want { exit: 0, ranks: (2, 2), pattern, count }, 1, 45, false);
}

#[test]
fn mixed_mpirun_hello() {
    mpirun_case("hello", FINALIZED, 2);
}
#[test]
fn mixed_mpirun_client() {
    mpirun_case("client", FINALIZED, 2);
}
#[test]
fn mixed_mpirun_dmodex() {
    mpirun_case("dmodex", "rank.0:PMIx_Finalize.successfully", 1);
}
#[test]
fn mixed_mpirun_nodeinfo() {
    mpirun_case("nodeinfo", FINALIZED, 2);
}
#[test]
fn mixed_mpirun_pub() {
    mpirun_case("pub", "UNPUBLISH.SUCCEEDED", 1);
}

/// The patterns of the mixed cases.
#[test]
fn mixed_patterns() {
    assert!(holds("client_basic: 4 ranks, all checks passed (x)", CLIENT_BASIC_OK));
    assert!(!holds("x client_basic: 4 ranks, all checks passed", CLIENT_BASIC_OK));
    assert!(holds("Client ns x rank 0: PMIx_Finalize successfully completed", FINALIZED));
    assert!(!holds("PMIx_Finalize failed", FINALIZED));
    assert!(holds("anything", "."));
    assert!(holds("client_cred: rank 3: all checks passed", "^client_cred: rank [0-3]: all checks passed"));
    assert!(!holds("client_cred: rank 4: all checks passed", "^client_cred: rank [0-3]: all checks passed"));
    assert!(!holds("", "."));
    assert!(holds("jctl_signals: 12 passed, 0 failed", "^jctl_signals: [1-9][0-9]* passed, 0 failed$"));
    assert!(holds("jctl_signals: 1 passed, 0 failed", "^jctl_signals: [1-9][0-9]* passed, 0 failed$"));
    assert!(!holds("jctl_signals: 0 passed, 0 failed", "^jctl_signals: [1-9][0-9]* passed, 0 failed$"));
    assert!(!holds("jctl_signals: 3 passed, 0 failed!", "^jctl_signals: [1-9][0-9]* passed, 0 failed$"));
    assert!(holds("client_events: 40 passed, 0 failed", "^client_events: [0-9]+ passed, 0 failed"));
    assert!(!holds("client_events:  passed, 0 failed", "^client_events: [0-9]+ passed, 0 failed"));
}

// ---------------------------------------------------------------- OpenPMIx ranks under rpmix's servers
//
// Programs linked to the system's OpenPMIx 4.2.2 as ranks of pmixrun and
// of the C host rm_simple on rpmix: they find the server through
// PMIX_SERVER_URI41 (a tcp4:// contact), connect over loopback with
// OpenPMIx's handshake and speak its protocol (src/server/openpmix/).
// Every case runs twice: with rpmix ranks (the same-library reference: its
// failure is a skip) and with OpenPMIx ranks. Each rank proves its library
// (which_pmix, preloaded by the wrapper `proof`).

/// The wrappers of the case's directory: `proof` runs its arguments on
/// RANK_LIB's library (rpmix: LD_LIBRARY_PATH; openpmix: none, whatever
/// the host's), `alternate` even ranks on rpmix and odd ones on OpenPMIx;
/// both with which_pmix preloaded.
fn rank_wrappers(dir: &Path) {
    let which = c_prog("which_pmix", Build::Preload);
    let libdir = env().libdir.display().to_string();
    for (name, test) in [("proof", "[ \"$RANK_LIB\" = rpmix ]"), ("alternate", "[ $((PMIX_RANK % 2)) = 0 ]")] {
        write_exe(
            &dir.join(name),
            &format!("#!/bin/sh\nif {test}; then LD_LIBRARY_PATH='{libdir}'; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi\nLD_PRELOAD='{}'; export LD_PRELOAD\nexec \"$@\"\n", which.display()),
        );
    }
}

/// A job of `argv` (pmixrun or rm_simple, on rpmix) whose ranks go on `lib`
/// (RANK_LIB; and the command's own LD_LIBRARY_PATH is rpmix's for rpmix
/// ranks, none otherwise), at most 60 s, with `env_add`; the which_pmix
/// reports go to `<log>.proof`. What still carries the run's marker
/// (OPX_MARKER) afterwards is killed and makes the run fail.
fn run_job(case: &Case, log: &str, argv: &[String], lib: Lib, env_add: &[(&str, &str)]) -> (Run, PathBuf, bool) {
    let marker = new_marker(&format!("{}-{log}", case.name));
    let proof = case.path(&format!("{log}.proof"));
    fs::write(&proof, "").unwrap();
    let mut cmd = merged(argv.iter().map(OsStr::new))
        .on(lib)
        .env("WHICH_PMIX_OUT", &proof)
        .env("OPX_MARKER", &marker)
        .env("RANK_LIB", rank_lib(lib))
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(&case.dir);
    for (k, v) in env_add {
        cmd = cmd.env(k, v);
    }
    let r = run(cmd, secs(60));
    r.save(case, log);
    let clean = wait_until("the run's processes end", secs(5), || pids_with_env("OPX_MARKER", &marker).is_empty()).is_ok();
    if !clean {
        kill_with_env("OPX_MARKER", &marker);
    }
    (r, proof, clean)
}

/// Which ranks of a run must prove their library: `Reports(min, max)`
/// which_pmix reports, each naming it; or `Names(n)`, Open MPI programs,
/// which load libpmix late and unload it before exit (so the preloaded
/// proof may find none): n lines of their own output name the library
/// (`pmix=<PMIx_Get_version()>`), and none names another.
#[derive(Clone, Copy)]
enum Ranks {
    Reports(usize, usize),
    Names(usize),
}

/// What a job of OpenPMIx ranks must show: its ranks' proof, its exit
/// code, at least `count` lines matching `pattern` (see [`holds`]).
#[derive(Clone, Copy)]
struct JobWant {
    ranks: Ranks,
    exit: i32,
    pattern: &'static str,
    count: usize,
}

/// Why a job is not as wanted (and what it left running).
fn judge_job(r: &Run, proof: &Path, clean: bool, lib: Lib, want: JobWant) -> Vec<String> {
    let JobWant { ranks, exit, pattern, count } = want;
    let mut why = Vec::new();
    if r.timed_out || r.code() != Some(exit) {
        why.push(format!("exit {:?}{}, expected {exit}", r.code(), if r.timed_out { " (time limit)" } else { "" }));
    }
    if !clean {
        why.push("processes left running".to_string());
    }
    let lines = r.all_lines();
    let n = lines.iter().filter(|l| holds(l, pattern)).count();
    if n < count {
        why.push(format!("{n} of {count} lines /{pattern}/"));
    }
    match ranks {
        Ranks::Names(want) => {
            let name = format!("pmix={} ", if lib == Lib::Ours { "rpmix" } else { "OpenPMIx" });
            let n = lines.iter().filter(|l| l.contains(&name)).count();
            if n < want {
                why.push(format!("{n} of {want} lines name {name}"));
            }
            if lines.iter().any(|l| l.contains("pmix=") && !l.contains(&name)) {
                why.push("a process names another library".to_string());
            }
        }
        Ranks::Reports(min, max) => why.extend(proof_ranks(proof, &lib.file(), (min, max))),
    }
    why
}

/// A case of OpenPMIx ranks: the reference with rpmix ranks (its failure
/// is a skip), then OpenPMIx's; returns both runs (none after a skip).
fn both(name: &str, argv: &[String], ranks: Ranks, exit: i32, pattern: &'static str, count: usize) -> Vec<Run> {
    let want = JobWant { ranks, exit, pattern, count };
    let case = Case::new(name);
    rank_wrappers(&case.dir);
    let mut runs = Vec::new();
    for lib in [Lib::Ours, Lib::OpenPmix] {
        let (r, proof, clean) = run_job(&case, rank_lib(lib), argv, lib, &[]);
        let why = judge_job(&r, &proof, clean, lib, want);
        if !why.is_empty() {
            if lib == Lib::Ours {
                skip(name, &format!("fails with rpmix ranks too: {}", why.join(", ")));
                return Vec::new();
            }
            panic!("{}", r.report(&format!("OpenPMIx ranks: {}", why.join(", "))));
        }
        runs.push(r);
    }
    runs
}

/// `pmixrun --timeout 50 <args> ./proof <prog> <prog args>`.
fn pmixrun_proof(args: &[&str], prog: &Path, prog_args: &[&str]) -> Vec<String> {
    let mut v = vec![s(&env().pmixrun), "--timeout".into(), "50".into()];
    v.extend(args.iter().map(|a| a.to_string()));
    v.push("./proof".into());
    v.push(s(prog));
    v.extend(prog_args.iter().map(|a| a.to_string()));
    v
}

/// `env LD_LIBRARY_PATH=<rpmix> rm_simple_ref -t 45 <args> ./proof <prog> <prog args>`.
fn rm_proof(args: &[&str], prog: &Path, prog_args: &[&str]) -> Vec<String> {
    let mut v = vec!["env".to_string(), format!("LD_LIBRARY_PATH={}", env().libdir.display()), s(c_prog("rm_simple", Build::Ref)), "-t".into(), "45".into()];
    v.extend(args.iter().map(|a| a.to_string()));
    v.push("./proof".into());
    v.push(s(prog));
    v.extend(prog_args.iter().map(|a| a.to_string()));
    v
}

fn refp(prog: &str) -> PathBuf {
    c_prog(prog, Build::Ref)
}

const CLIENT_EVENTS_OK: &str = "^client_events: [0-9]+ passed, 0 failed";

/// Job data, Put/Commit/Fence/Get (local peers, scopes, missing keys with
/// timeouts), events, publish/lookup.
#[test]
fn opx_pmixrun_client_basic() {
    both("opx_pmixrun_client_basic", &pmixrun_proof(&["-n", "4"], &refp("client_basic"), &["4"]), Ranks::Reports(4, 4), 0, CLIENT_BASIC_OK, 1);
}
/// Event handlers, chains, ranges (every check).
#[test]
fn opx_pmixrun_client_events() {
    both("opx_pmixrun_client_events", &pmixrun_proof(&["-n", "3"], &refp("client_events"), &[]), Ranks::Reports(3, 3), 0, CLIENT_EVENTS_OK, 1);
}
/// Job control: rank 0 has pmixrun signal rank 1.
#[test]
fn opx_pmixrun_jctl_signal() {
    both("opx_pmixrun_jctl_signal", &pmixrun_proof(&["-n", "2"], &refp("client_jctl_signal"), &[]), Ranks::Reports(2, 2), 0, "^client_jctl_signal: rank 1 got SIGUSR1", 1);
}
/// Job control at length (c-tests/jctl_signals.c: pause, resume, signal,
/// checkpoint by signal and by event); it ends with a kill of rank 2:
/// pmixrun says 137.
#[test]
fn opx_pmixrun_jctl_signals() {
    let scratch = TmpDir::new("opx");
    let argv = pmixrun_proof(&["-n", "3"], &refp("jctl_signals"), &[&s(scratch.path())]);
    both("opx_pmixrun_jctl_signals", &argv, Ranks::Reports(3, 3), 137, "^jctl_signals: [1-9][0-9]* passed, 0 failed$", 1);
}
/// Heartbeat monitoring (c-tests/monitor_hb.c).
#[test]
fn opx_pmixrun_monitor_hb() {
    let argv = pmixrun_proof(&["--on-stall", "report", "-n", "2"], &refp("monitor_hb"), &[]);
    both("opx_pmixrun_monitor_hb", &argv, Ranks::Reports(2, 2), 0, "^monitor_hb: [1-9][0-9]* passed, 0 failed$", 1);
}
/// PMIx_Spawn, PMIX_PARENT_ID, connect, data across the two jobs,
/// disconnect (c-tests/client_spawn.c); the children are started by
/// pmixrun without the wrapper: the parents are proven.
#[test]
fn opx_pmixrun_client_spawn() {
    let argv = pmixrun_proof(&["-n", "2"], &refp("client_spawn"), &[]);
    both("opx_pmixrun_client_spawn", &argv, Ranks::Reports(2, 4), 0, "^client_spawn: [1-9][0-9]* passed, 0 failed$", 1);
}
/// PMIx_Abort: pmixrun exits with its status.
#[test]
fn opx_pmixrun_client_abort() {
    both("opx_pmixrun_client_abort", &pmixrun_proof(&["-n", "4"], &refp("client_abort"), &[]), Ranks::Reports(0, 4), 7, ".", 0);
}

/// OpenPMIx's example `ex` (built against its headers), 2 ranks under
/// pmixrun; an example that fails writes "failed" on its output: none may.
fn opx_oex(ex: &str, pattern: &'static str, count: usize) {
    let name = format!("opx_pmixrun_oex_{ex}");
    let runs = both(&name, &pmixrun_proof(&["-n", "2"], &c_prog(ex, Build::OpenPmixExample), &[]), Ranks::Reports(2, 2), 0, pattern, count);
    for r in runs {
        let out = r.all_lines();
        // (a "failed" line fails the run, unless the output has "coordinates": as the driver judged it)
        let failed = out.iter().any(|l| l.contains("failed"));
        let coordinates = out.iter().any(|l| l.contains("coordinates"));
        assert!(!failed || coordinates, "{}", r.report("a run printed a failure"));
    }
}

#[test]
fn opx_pmixrun_oex_hello() {
    opx_oex("hello", FINALIZED, 2);
}
#[test]
fn opx_pmixrun_oex_client() {
    opx_oex("client", FINALIZED, 2);
}
#[test]
fn opx_pmixrun_oex_client2() {
    opx_oex("client2", FINALIZED, 2);
}
#[test]
fn opx_pmixrun_oex_dmodex() {
    opx_oex("dmodex", "rank.0:PMIx_Finalize.successfully", 1);
}
#[test]
fn opx_pmixrun_oex_nodeinfo() {
    opx_oex("nodeinfo", FINALIZED, 2);
}
#[test]
fn opx_pmixrun_oex_pub() {
    opx_oex("pub", "UNPUBLISH.SUCCEEDED", 1);
}
#[test]
fn opx_pmixrun_oex_pubi() {
    opx_oex("pubi", "UNPUBLISH.SUCCEEDED", 1);
}

/// Open MPI 4.1.4's hello (Allreduce) as pmixrun's ranks.
#[test]
fn opx_pmixrun_mpi_hello() {
    both("opx_pmixrun_mpi_hello", &pmixrun_proof(&["-n", "4"], &c_prog("hello", Build::Mpi), &[]), Ranks::Names(4), 0, "^hello [0-3]/4 pmix=", 4);
}
/// Its spawn: parent rank 0 and both children name their library.
#[test]
fn opx_pmixrun_mpi_spawn() {
    both("opx_pmixrun_mpi_spawn", &pmixrun_proof(&["-n", "4"], &c_prog("spawn", Build::Mpi), &[]), Ranks::Names(3), 0, "^spawn ok: 4 parents, 2 children", 1);
}
/// Its MPI_Abort(3).
#[test]
fn opx_pmixrun_mpi_abort() {
    both("opx_pmixrun_mpi_abort", &pmixrun_proof(&["-n", "4"], &c_prog("abort", Build::Mpi), &[]), Ranks::Reports(0, 4), 3, ".", 0);
}

/// Under rm_simple on rpmix: inline answers.
#[test]
fn opx_rm_client_basic() {
    both("opx_rm_client_basic", &rm_proof(&["-n", "4"], &refp("client_basic"), &["4"]), Ranks::Reports(4, 4), 0, CLIENT_BASIC_OK, 1);
}
/// Under rm_simple on rpmix: deferred answers.
#[test]
fn opx_rm_client_basic_deferred() {
    both("opx_rm_client_basic_deferred", &rm_proof(&["-m", "defer", "-n", "4"], &refp("client_basic"), &["4"]), Ranks::Reports(4, 4), 0, CLIENT_BASIC_OK, 1);
}
#[test]
fn opx_rm_client_events() {
    both("opx_rm_client_events", &rm_proof(&["-n", "3"], &refp("client_events"), &[]), Ranks::Reports(3, 3), 0, CLIENT_EVENTS_OK, 1);
}
#[test]
fn opx_rm_jctl_signal() {
    both("opx_rm_jctl_signal", &rm_proof(&["-n", "2"], &refp("client_jctl_signal"), &[]), Ranks::Reports(2, 2), 0, "^client_jctl_signal: rank 1 got SIGUSR1", 1);
}
#[test]
fn opx_rm_client_abort() {
    both("opx_rm_client_abort", &rm_proof(&["-n", "4"], &refp("client_abort"), &[]), Ranks::Reports(0, 4), 7, ".", 0);
}

/// One job, even ranks on rpmix and odd ranks on OpenPMIx: fence, modex
/// and Gets across them.
#[test]
fn opx_mixed_client_basic() {
    let case = Case::new("opx_mixed_client_basic");
    rank_wrappers(&case.dir);
    let mut argv = pmixrun_proof(&["-n", "4"], &refp("client_basic"), &["4"]);
    let at = argv.iter().position(|a| a == "./proof").expect("the wrapper");
    argv[at] = "./alternate".into();
    let (r, proof, clean) = run_job(&case, "run", &argv, Lib::Ours, &[]);
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    if !clean {
        why.push("processes left running".to_string());
    }
    if !r.all_lines().iter().any(|l| holds(l, CLIENT_BASIC_OK)) {
        why.push("not every check passed".to_string());
    }
    let text = fs::read_to_string(&proof).unwrap_or_default();
    let libs: Vec<PathBuf> = text.lines().filter_map(|l| l.split_whitespace().nth(1)).filter_map(|p| fs::canonicalize(p).ok()).collect();
    let (ours, sys) = (libs.iter().filter(|p| **p == Lib::Ours.file()).count(), libs.iter().filter(|p| **p == Lib::OpenPmix.file()).count());
    if (ours, sys) != (2, 2) {
        why.push(format!("{ours} ranks on rpmix and {sys} on OpenPMIx, expected 2 and 2"));
    }
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
}

/// Raw connect messages (c-tests/ptl_probe.py, a rank of pmixrun: its
/// environment names the listener and holds its credential): a rank
/// claiming another uid is refused; a process of another user (nobody)
/// claiming root is refused; a client announcing OpenPMIx 3's
/// serialisation (v3) is refused with a log line saying so; the rank's own
/// claim is accepted (the accepted raw connection ends without finalize).
#[test]
fn opx_tcp_identity() {
    let case = Case::new("opx_tcp_identity");
    let pr = format!("/usr/bin/python3 {}", env().root.join("c-tests/ptl_probe.py").display());
    write_exe(&case.path("identity"), &format!("#!/bin/sh\n{pr} claim 4242\nsetpriv --reuid=65534 --regid=65534 --clear-groups {pr} claim 0\n{pr} bfrops v3\n{pr} claim \"$(id -u)\"\n"));
    let argv = vec![s(&env().pmixrun), "--timeout".into(), "50".into(), "-n".into(), "1".into(), "./identity".into()];
    let (r, _, _) = run_job(&case, "run", &argv, Lib::Ours, &[("PMIX_DEBUG", "1")]);
    let out = r.all_lines();
    let mut why = Vec::new();
    let refused = out.iter().filter(|l| **l == "refused").count();
    if refused != 3 {
        why.push(format!("{refused} of 3 false claims refused"));
    }
    for (text, what) in [
        ("speaks serialisation 'v3'; only v41", "no log line for the v3 client"),
        ("claims uid 4242; the kernel says its socket is uid", "no log line for the false uid"),
        ("claims uid 0; the kernel says its socket is uid 65534", "no log line for nobody's claim"),
    ] {
        if !out.iter().any(|l| l.contains(text)) {
            why.push(what.to_string());
        }
    }
    if !out.contains(&"accepted") {
        why.push("the rank's own claim was not accepted".to_string());
    }
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
}

/// 200 garbage connect messages (random, truncated, bit-flipped, huge
/// lengths) at the listener, then OpenPMIx's hello connects and finalizes
/// in the same job.
#[test]
fn opx_tcp_fuzz() {
    let case = Case::new("opx_tcp_fuzz");
    rank_wrappers(&case.dir);
    let hello = c_prog("hello", Build::OpenPmixExample);
    write_exe(
        &case.path("fuzz"),
        &format!("#!/bin/sh\nunset LD_LIBRARY_PATH\n/usr/bin/python3 {} fuzz 200 || exit 9\nexec ./proof {}\n", env().root.join("c-tests/ptl_probe.py").display(), hello.display()),
    );
    let argv = vec![s(&env().pmixrun), "--timeout".into(), "50".into(), "-n".into(), "1".into(), "./fuzz".into()];
    let (r, _, _) = run_job(&case, "run", &argv, Lib::OpenPmix, &[]);
    let out = r.all_lines();
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    if !out.iter().any(|l| l.starts_with("fuzz done 200")) {
        why.push("the fuzzer did not finish".to_string());
    }
    if !out.iter().any(|l| l.contains("PMIx_Finalize successfully completed")) {
        why.push("hello did not complete after the fuzzing".to_string());
    }
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
}

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/mixed-tests.sh
    mod openpmix_hosts {
        use super::*;
        driver_cases!("mixed-tests.sh", "mixed", secs(300), [], {
            rm_pmixctl_ps: "rm/pmixctl-ps",
            rm_pmixctl_output: "rm/pmixctl-output",
            rm_pps: "rm/pps",
            rm_pmixctl_rpmix_host: "rm/pmixctl-rpmix-host",
            rm_pquery: "rm/pquery",
        });
    }
    /// tools/openpmix-clients-tests.sh
    mod openpmix_ranks {
        use super::*;
        driver_cases!("openpmix-clients-tests.sh", "opxclients", secs(300), [], {
            tools_pps: "tools/pps",
            tools_pevent: "tools/pevent",
            tools_iof: "tools/iof",
            tools_pquery: "tools/pquery",
        });
    }
    /// tools/openpmix-simple-tests.sh
    mod test_programs {
        use super::*;
        driver_cases!("openpmix-simple-tests.sh", "opxsimple", secs(300), [("SIMPLE_TIMEOUT", "20"), ("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            mpirun_simpclient: "mpirun/simpclient",
            pmixrun_simpclient: "pmixrun/simpclient",
            simptest_simpclient: "simptest/simpclient",
            mpirun_simpclient_abort: "mpirun/simpclient-abort",
            pmixrun_simpclient_abort: "pmixrun/simpclient-abort",
            simptest_simpclient_abort: "simptest/simpclient-abort",
            mpirun_simppub: "mpirun/simppub",
            pmixrun_simppub: "pmixrun/simppub",
            simptest_simppub: "simptest/simppub",
            mpirun_simpft: "mpirun/simpft",
            pmixrun_simpft: "pmixrun/simpft",
            simptest_simpft: "simptest/simpft",
            mpirun_simptimeout: "mpirun/simptimeout",
            pmixrun_simptimeout: "pmixrun/simptimeout",
            simptest_simptimeout: "simptest/simptimeout",
            simptest_simpdie: "simptest/simpdie",
            mpirun_simpio: "mpirun/simpio",
            pmixrun_simpio: "pmixrun/simpio",
            simptest_simpio: "simptest/simpio",
            mpirun_simpcycle: "mpirun/simpcycle",
            pmixrun_simpcycle: "pmixrun/simpcycle",
            simptest_simpcycle: "simptest/simpcycle",
            mpirun_simpjctrl: "mpirun/simpjctrl",
            pmixrun_simpjctrl: "pmixrun/simpjctrl",
            mpirun_doubleget: "mpirun/doubleget",
            pmixrun_doubleget: "pmixrun/doubleget",
            mpirun_get_put_example: "mpirun/get_put_example",
            pmixrun_get_put_example: "pmixrun/get_put_example",
            simptest_get_put_example: "simptest/get_put_example",
            mpirun_hybrid: "mpirun/hybrid",
            pmixrun_hybrid: "pmixrun/hybrid",
            single_simpfabric: "single/simpfabric",
            single_simpsched: "single/simpsched",
            single_simpvni: "single/simpvni",
            single_hybrid: "single/hybrid",
            simptest_simptool: "simptest/simptool",
            attach_simptool: "attach/simptool",
            mpirun_py_client: "mpirun/py-client",
            mpirun_quietclient: "mpirun/quietclient",
            mpirun_simpcoord: "mpirun/simpcoord",
            mpirun_simpdie: "mpirun/simpdie",
            mpirun_simpdmodex: "mpirun/simpdmodex",
            mpirun_simpdyn: "mpirun/simpdyn",
            mpirun_test_pmix: "mpirun/test_pmix",
            pmixrun_py_client: "pmixrun/py-client",
            pmixrun_quietclient: "pmixrun/quietclient",
            pmixrun_simpcoord: "pmixrun/simpcoord",
            pmixrun_simpdie: "pmixrun/simpdie",
            pmixrun_simpdmodex: "pmixrun/simpdmodex",
            pmixrun_simpdyn: "pmixrun/simpdyn",
            pmixrun_test_pmix: "pmixrun/test_pmix",
            simptest_quietclient: "simptest/quietclient",
            simptest_simpcoord: "simptest/simpcoord",
            simptest_simpdmodex: "simptest/simpdmodex",
            simptest_simpdyn: "simptest/simpdyn",
            single_gwtest: "single/gwtest",
            single_stability: "single/stability",
        });
    }
    /// tools/examples-tests.sh
    mod examples {
        use super::*;
        driver_cases!("examples-tests.sh", "", secs(300), [("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            server_hello: "server-hello",
            mpirun_hello: "mpirun-hello",
            pmixrun_hello: "pmixrun-hello",
            server_nodeinfo: "server-nodeinfo",
            mpirun_nodeinfo: "mpirun-nodeinfo",
            pmixrun_nodeinfo: "pmixrun-nodeinfo",
            server_client: "server-client",
            mpirun_client: "mpirun-client",
            pmixrun_client: "pmixrun-client",
            server_client2: "server-client2",
            mpirun_client2: "mpirun-client2",
            pmixrun_client2: "pmixrun-client2",
            server_dmodex: "server-dmodex",
            mpirun_dmodex: "mpirun-dmodex",
            pmixrun_dmodex: "pmixrun-dmodex",
            server_pub: "server-pub",
            mpirun_pub: "mpirun-pub",
            pmixrun_pub: "pmixrun-pub",
            server_pubi: "server-pubi",
            pmixrun_pubi: "pmixrun-pubi",
            server_log: "server-log",
            mpirun_log: "mpirun-log",
            pmixrun_log: "pmixrun-log",
            server_jctrl: "server-jctrl",
            mpirun_jctrl: "mpirun-jctrl",
            pmixrun_jctrl: "pmixrun-jctrl",
            mpirun_dynamic: "mpirun-dynamic",
            pmixrun_dynamic: "pmixrun-dynamic",
            server_bad_exit: "server-bad_exit",
            server_abi_no_init: "server-abi_no_init",
            mpirun_abi_no_init: "mpirun-abi_no_init",
            pmixrun_abi_no_init: "pmixrun-abi_no_init",
            server_abi_with_init: "server-abi_with_init",
            pmixrun_abi_with_init: "pmixrun-abi_with_init",
            server_group: "server-group",
            mpirun_group: "mpirun-group",
            pmixrun_group: "pmixrun-group",
            server_group_dmodex: "server-group_dmodex",
            mpirun_group_dmodex: "mpirun-group_dmodex",
            pmixrun_group_dmodex: "pmixrun-group_dmodex",
            server_group_lcl_cid: "server-group_lcl_cid",
            mpirun_group_lcl_cid: "mpirun-group_lcl_cid",
            pmixrun_group_lcl_cid: "pmixrun-group_lcl_cid",
            server_asyncgroup: "server-asyncgroup",
            mpirun_asyncgroup: "mpirun-asyncgroup",
            pmixrun_asyncgroup: "pmixrun-asyncgroup",
            server_tool: "server-tool",
            pmixrun_tool: "pmixrun-tool",
            mpirun_abi_with_init: "mpirun-abi_with_init",
            mpirun_alloc: "mpirun-alloc",
            mpirun_bad_exit: "mpirun-bad_exit",
            mpirun_debugger: "mpirun-debugger",
            mpirun_fault: "mpirun-fault",
            mpirun_launcher: "mpirun-launcher",
            mpirun_pubi: "mpirun-pubi",
            mpirun_tool: "mpirun-tool",
            pmixrun_alloc: "pmixrun-alloc",
            pmixrun_bad_exit: "pmixrun-bad_exit",
            pmixrun_debugger: "pmixrun-debugger",
            pmixrun_fault: "pmixrun-fault",
            pmixrun_launcher: "pmixrun-launcher",
            server_alloc: "server-alloc",
            server_debugger: "server-debugger",
            server_dynamic: "server-dynamic",
            server_fault: "server-fault",
            server_launcher: "server-launcher",
        });
    }
}
