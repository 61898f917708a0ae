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

// ---------------------------------------------------------------- rpmix's tools attached to a host on OpenPMIx
//
// The host is rm_simple -T (tool support: the tool_connected, query and
// iof_pull upcalls, the ranks' output handed to PMIx_server_IOF_deliver)
// on OpenPMIx, with 2 ranks of `tick`: "tick <i> of rank <r>" 8 times
// 0.4 s apart, then stdout closed, one line on stderr, and the rank waits
// for the case's file `release` (so a tool's stream ends before the job
// does). The tools find the host by its pid (OpenPMIx's rendezvous file
// pmix.<host>.tool.<pid> in the host's TMPDIR) once a rank ticked: the
// output follower first (its first lines come from the server's cache,
// the rest live), then pmixctl ps, then OpenPMIx's pps or pquery. Each
// case runs its own host; the host's -v trace must name its library, and
// every process of a run carries its marker (MIXED_MARKER) and is ended by
// it.

const TICK: &str = "#!/bin/sh
# tick <count> <interval> <release>: \"tick <i> of rank <r>\" on stdout,
# count times; then stdout is closed, one line goes to stderr, and the rank
# waits for the file <release> (at most 60 s)
n=$1; d=$2; i=1
while [ $i -le $n ]; do
    echo \"tick $i of rank $PMIX_RANK\"
    sleep $d
    i=$((i + 1))
done
exec >&-
echo \"stdout closed: rank $PMIX_RANK\" >&2
i=0
while [ ! -e \"$3\" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
";

/// The 16 lines of the ticks, sorted.
fn ticks() -> Vec<String> {
    let mut v: Vec<String> = (0..2).flat_map(|r| (1..=8).map(move |i| format!("tick {i} of rank {r}"))).collect();
    v.sort();
    v
}

/// Whether `prog` is on the PATH.
fn have(prog: &str) -> bool {
    run(Cmd::new("sh").args(["-c", &format!("command -v {prog}")]), secs(10)).success()
}

/// The tool run beside the output follower and pmixctl ps.
#[derive(Clone, Copy, PartialEq)]
enum Third {
    None,
    Pps,
    Pquery,
}

/// A host with its tools, all ended: what each printed and how it ended.
struct ToolSession {
    /// rm_simple's pid (the rank namespace is `rm.<pid>`).
    pid: u32,
    host: Run,
    output: Run,
    ps: Run,
    third: Option<Run>,
    /// The follower ended while the host ran.
    output_before_host: bool,
    /// What went wrong around the runs (the host's start, what it left).
    why: Vec<String>,
}

/// rm_simple -T on `lib` with 2 ranks of `tick`, its tools once a rank
/// ticked (the follower, pmixctl ps, `third`), the ranks released once the
/// follower ended, the host's end; the outputs saved as `<tool>.out/.err`.
fn tool_session(case: &Case, lib: Lib, third: Third) -> ToolSession {
    let tick = case.path("tick");
    write_exe(&tick, TICK);
    let release = case.path("release");
    let t = TmpDir::new("mixed");
    let marker = new_marker(&case.name);
    let host = Job::start(
        Cmd::new(c_prog("rm_simple", Build::Ref))
            .args(["-T", "-v", "-n", "2"])
            .arg(&tick)
            .args(["8", "0.4"])
            .arg(&release)
            .on(lib)
            .env("MIXED_MARKER", &marker)
            .env("TMPDIR", &t)
            .current_dir(t.path()),
    );
    let pid = host.pid();
    let mut why = Vec::new();
    if let Err(e) = host.wait_line("'tick 1 of rank <r>'", secs(10), |l| l.starts_with("tick 1 ")) {
        why.push(format!("rm_simple -T did not start ticking: {e}"));
    }
    let tool = |cmd: Cmd| cmd.env("MIXED_MARKER", &marker).env("TMPDIR", &t);
    let ctl = |args: &[&str]| tool(Cmd::new(&env().pmixctl).on(Lib::Ours).arg("--pid").arg(pid.to_string()).args(args));
    let follower = Job::start(ctl(&["output", "--follow"]));
    let ps = run(ctl(&["ps"]), secs(10));
    let third = match third {
        Third::None => None,
        Third::Pps => Some(run(tool(Cmd::new("pps").on(Lib::OpenPmix).arg("--pid").arg(pid.to_string())), secs(10))),
        Third::Pquery => {
            Some(run(tool(Cmd::new("pquery").on(Lib::OpenPmix).arg("--pid").arg(pid.to_string()).arg("PMIX_QUERY_NAMESPACES")), secs(10)))
        }
    };
    let output = follower.wait(secs(20));
    let output_before_host = !proc_ended(pid);
    case.write("release", "");
    let host = host.wait(secs(30));
    if wait_until("the run's processes end", secs(5), || pids_with_env("MIXED_MARKER", &marker).is_empty()).is_err() {
        kill_with_env("MIXED_MARKER", &marker);
        why.push("processes left running".to_string());
    }
    host.save(case, "host");
    output.save(case, "output");
    ps.save(case, "ps");
    if let Some(r) = &third {
        r.save(case, "third");
    }
    ToolSession { pid, host, output, ps, third, output_before_host, why }
}

impl ToolSession {
    /// The host's exit, the library its trace names, and what went wrong around the runs.
    fn judge_host(&self, lib: Lib) -> Vec<String> {
        let mut why = self.why.clone();
        let want = if lib == Lib::OpenPmix { "(OpenPMIx 4.2" } else { "(rpmix " };
        if !self.host.success() {
            why.push(format!("rm_simple -T exit {:?}{}", self.host.code(), if self.host.timed_out { " (time limit)" } else { "" }));
        }
        if !self.host.stderr.lines().any(|l| l.contains(&format!("rm_simple: server up {want}"))) {
            let up = self.host.stderr.lines().find(|l| l.contains("server up")).unwrap_or("");
            why.push(format!("the host's trace does not name {} ('{up}')", lib.name()));
        }
        why
    }

    /// `pmixctl ps`: exactly "rm.<pid><TAB>2 ranks".
    fn judge_ps(&self) -> Vec<String> {
        let mut why = Vec::new();
        if !self.ps.success() {
            why.push(format!("pmixctl ps exit {:?} ({})", self.ps.code(), self.ps.stderr.chars().take(300).collect::<String>()));
        }
        let want = format!("rm.{}\t2 ranks", self.pid);
        if self.ps.stdout.trim_end_matches('\n') != want {
            why.push(format!("pmixctl ps printed {:?}, not {want:?}", self.ps.stdout.chars().take(300).collect::<String>()));
        }
        why
    }

    /// `pmixctl output --follow`: exactly the 16 ticks (as a set: the ones
    /// rm_simple echoed), each rank's in order, nothing of stderr; it ended
    /// on the ranks' PMIX_IOF_COMPLETE while the host still ran.
    fn judge_output(&self) -> Vec<String> {
        let mut why = Vec::new();
        let want = ticks();
        if !self.output.success() {
            why.push(format!("pmixctl output exit {:?} ({})", self.output.code(), self.output.stderr.chars().take(300).collect::<String>()));
        }
        let mut got: Vec<String> = self.output.stdout.lines().map(str::to_string).collect();
        got.sort();
        if got != want {
            let missing: Vec<&String> = want.iter().filter(|l| !got.contains(l)).take(5).collect();
            let extra: Vec<&String> = got.iter().filter(|l| !want.contains(l)).take(5).collect();
            why.push(format!("pmixctl output: {} lines, not the 16 ticks (missing {missing:?}, extra {extra:?})", got.len()));
        }
        for r in 0..2 {
            let order: Vec<&str> =
                self.output.stdout.lines().filter_map(|l| l.strip_prefix("tick ")?.strip_suffix(&format!(" of rank {r}"))).collect();
            if order != ["1", "2", "3", "4", "5", "6", "7", "8"] {
                why.push(format!("pmixctl output: rank {r}'s lines out of order ({order:?})"));
            }
        }
        let mut echoed: Vec<String> = self.host.stdout.lines().filter(|l| l.starts_with("tick ")).map(str::to_string).collect();
        echoed.sort();
        if echoed != want {
            why.push(format!("rm_simple echoed {} tick lines, not the 16", echoed.len()));
        }
        if self.host.stderr.lines().filter(|l| *l == "stdout closed: rank 0" || *l == "stdout closed: rank 1").count() != 2 {
            why.push("rm_simple did not echo the ranks' stderr lines".to_string());
        }
        if !self.output_before_host {
            why.push("pmixctl output ended only when the host did (no PMIX_IOF_COMPLETE seen)".to_string());
        }
        why
    }

    /// The times and the host's count of upcalls, for the log.
    fn times(&self, lib: Lib) {
        let upcalls = self.host.stderr.lines().find_map(|l| l.strip_prefix("rm_simple: tools: ")).unwrap_or("");
        println!(
            "host on {}: pmixctl ps {:?}; output --follow {:?}; the host {:?}; host upcalls: {upcalls}",
            lib.name(),
            self.ps.elapsed,
            self.output.elapsed,
            self.host.elapsed
        );
    }
}

/// A case of pmixctl attached to rm_simple -T on `lib`: the host's checks, then `check`'s.
fn pmixctl_case(name: &str, lib: Lib, check: impl Fn(&ToolSession) -> Vec<String>) {
    let case = Case::new(name);
    let s = tool_session(&case, lib, Third::None);
    s.times(lib);
    let mut why = s.judge_host(lib);
    why.extend(check(&s));
    assert!(why.is_empty(), "{}", s.host.report(&format!("{name}: {}", why.join("; "))));
}

/// `pmixctl --pid <pid> ps` prints exactly "rm.<pid><TAB>2 ranks".
#[test]
fn mixed_rm_pmixctl_ps() {
    pmixctl_case("mixed_rm_pmixctl_ps", Lib::OpenPmix, ToolSession::judge_ps);
}

/// `pmixctl --pid <pid> output --follow` prints exactly the 16 tick lines
/// (as a set: the ones rm_simple echoed) and nothing of stderr, and ends on
/// the ranks' PMIX_IOF_COMPLETE, while the host still runs.
#[test]
fn mixed_rm_pmixctl_output() {
    pmixctl_case("mixed_rm_pmixctl_output", Lib::OpenPmix, ToolSession::judge_output);
}

/// The ps and output checks with the host on rpmix (the same-library reference).
#[test]
fn mixed_rm_pmixctl_rpmix_host() {
    pmixctl_case("mixed_rm_pmixctl_rpmix_host", Lib::Ours, |s| {
        let mut why = s.judge_ps();
        why.extend(s.judge_output());
        why
    });
}

/// OpenPMIx's own pps lists the same namespace as pmixctl ps ("Active
/// nspaces: rm.<pid>" on stderr; pps 4.2.2 ignores --pid and takes the only
/// server in its TMPDIR).
#[test]
fn mixed_rm_pps() {
    let name = "mixed_rm_pps";
    if !have("pps") {
        skip(name, "no pps: Debian's libpmix-bin");
        return;
    }
    let case = Case::new(name);
    let s = tool_session(&case, Lib::OpenPmix, Third::Pps);
    let pps = s.third.as_ref().expect("pps ran");
    let mut why = s.judge_host(Lib::OpenPmix);
    let pps_ns = pps.stderr.lines().filter_map(|l| l.strip_prefix("Active nspaces: ")).collect::<Vec<_>>().join("\n");
    let ctl_ns = s.ps.stdout.lines().map(|l| l.split('\t').next().unwrap_or("")).collect::<Vec<_>>().join(",");
    if !pps.success() {
        why.push(format!("pps exit {:?} ({})", pps.code(), pps.stderr.chars().take(300).collect::<String>()));
    }
    if pps_ns != format!("rm.{}", s.pid) {
        why.push(format!("pps lists '{pps_ns}', not 'rm.{}'", s.pid));
    }
    if pps_ns != ctl_ns {
        why.push(format!("pps lists '{pps_ns}', pmixctl ps '{ctl_ns}'"));
    }
    println!("pps ({:?}): Active nspaces: {pps_ns}; pmixctl ps ({:?}): {}", pps.elapsed, s.ps.elapsed, s.ps.stdout.trim_end().replace('\t', " "));
    assert!(why.is_empty(), "{}", pps.report(&why.join("; ")));
}

/// Whether a run died of SIGFPE (itself, or as a shell reports it: 136).
fn died_of_sigfpe(r: &Run) -> bool {
    r.signal() == Some(libc::SIGFPE) || r.code() == Some(128 + libc::SIGFPE)
}

/// OpenPMIx's pquery --pid <pid> PMIX_QUERY_NAMESPACES names the namespace
/// too (the value on stderr). Debian's pquery 4.2.2 dies of SIGFPE in
/// pmix_init_registered_attrs before connecting (with no server too): then
/// a skip, when the host saw only the other two tools connect.
#[test]
fn mixed_rm_pquery() {
    let name = "mixed_rm_pquery";
    if !have("pquery") {
        skip(name, "no pquery: Debian's libpmix-bin");
        return;
    }
    let case = Case::new(name);
    let s = tool_session(&case, Lib::OpenPmix, Third::Pquery);
    let pq = s.third.as_ref().expect("pquery ran");
    let why = s.judge_host(Lib::OpenPmix);
    assert!(why.is_empty(), "{}", s.host.report(&why.join("; ")));
    let ns = format!("rm.{}", s.pid);
    if pq.success() && pq.stderr.contains(&ns) {
        return;
    }
    let connected = s.host.stderr.lines().filter(|l| l.contains("upcall tool_connected")).count();
    if died_of_sigfpe(pq) && connected == 2 {
        skip(
            name,
            &format!(
                "OpenPMIx's pquery died of SIGFPE after {:?} without connecting: its own crash in pmix_init_registered_attrs, with or without a server",
                pq.elapsed
            ),
        );
        return;
    }
    panic!("{}", pq.report(&format!("pquery exit {:?}, signal {:?}, {connected} tools connected, namespace {ns} not named", pq.code(), pq.signal())));
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

/// Whose credential counts over TCP (c-tests/ptl_probe.py started by the
/// ranks of a pmixrun job, each a shell whose pid the server was given):
/// the socket holder's. A child of the rank holding the socket without the
/// credential, or with a false one, is refused although the rank's own
/// process (the pid the server looks at first) carries the right one; with
/// the credential, the holder is found as the rank's child (rank 0) and
/// further down, a shell between (rank 1), and accepted.
#[test]
fn opx_tcp_credential_of_the_holder() {
    let case = Case::new("opx_tcp_credential_of_the_holder");
    let pr = format!("/usr/bin/python3 {}", env().root.join("c-tests/ptl_probe.py").display());
    write_exe(
        &case.path("holder"),
        &format!(
            "#!/bin/sh\nme=$(id -u)\nenv -u PMIX_RPMIX_CRED {pr} claim $me \"$PMIX_RANK none\"\nenv PMIX_RPMIX_CRED=00 {pr} claim $me \"$PMIX_RANK false\"\nif [ \"$PMIX_RANK\" = 0 ]; then\n  {pr} claim $me \"0 child\"\nelse\n  sh -c \"{pr} claim $me '1 grandchild'; true\"\nfi\n"
        ),
    );
    let argv = vec![s(&env().pmixrun), "--timeout".into(), "50".into(), "-n".into(), "2".into(), "./holder".into()];
    let (r, _, _) = run_job(&case, "run", &argv, Lib::Ours, &[("PMIX_DEBUG", "1")]);
    let out = r.all_lines();
    let mut why = Vec::new();
    for want in ["0 none refused", "0 false refused", "0 child accepted", "1 none refused", "1 false refused", "1 grandchild accepted"] {
        if !out.contains(&want) {
            why.push(format!("no \"{want}\""));
        }
    }
    for (text, what) in [("refused: no credential, and its namespace requires one", "holders without the credential"), ("refused: its credential does not match", "holders with a false one")] {
        let n = out.iter().filter(|l| l.contains(text)).count();
        if n != 2 {
            why.push(format!("{n} log lines for the 2 {what}"));
        }
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

// ---------------------------------------------------------------- OpenPMIx's tools against a live pmixrun job
//
// pmixrun with a TMPDIR of the case's own, shared with the tools alone
// (pps and pevent take the one server they find there); the tools run
// once its rendezvous file pmix.<host>.tool.<pid> is there and its ranks
// started, and the ranks wait for the case's file `release`, written once
// the tools are done. Every process of a run carries its marker
// (OPX_MARKER) and is ended by it.

/// A pmixrun job for tools.
struct ToolJob {
    job: Job,
    t: TmpDir,
    marker: String,
}

/// `pmixrun --timeout 50 -n <n> <argv>` with a private TMPDIR, the ranks
/// without LD_LIBRARY_PATH, once its rendezvous file is there and it has
/// `n` children running `comm`.
fn tool_job(case: &Case, n: usize, comm: &str, argv: &[String]) -> Result<ToolJob, String> {
    let t = TmpDir::new("opx");
    let marker = new_marker(&case.name);
    let job = Job::start(
        Cmd::new(&env().pmixrun)
            .args(["--timeout", "50", "-n", &n.to_string()])
            .args(argv)
            .env_remove("LD_LIBRARY_PATH")
            .env("TMPDIR", &t)
            .env("OPX_MARKER", &marker)
            .env("RANK_LIB", "openpmix")
            .env("WHICH_PMIX_OUT", case.path("ranks.proof"))
            .current_dir(&case.dir),
    );
    let rv = t.path().join(format!("pmix.{}.tool.{}", hostname(), job.pid()));
    wait_until(&format!("the rendezvous file {}", rv.display()), secs(30), || rv.exists())?;
    wait_children_running(job.pid(), n, comm, secs(30))?;
    Ok(ToolJob { job, t, marker })
}

impl ToolJob {
    fn pid(&self) -> u32 {
        self.job.pid()
    }
    /// `argv` as an OpenPMIx tool (no LD_LIBRARY_PATH) with the job's TMPDIR.
    fn tool(&self, argv: &[&str]) -> Cmd {
        Cmd::new(argv[0]).args(&argv[1..]).on(Lib::OpenPmix).env("TMPDIR", &self.t).env("OPX_MARKER", &self.marker)
    }
    /// Releases the ranks and waits for the job's end (exit 0); the
    /// job's run and what went wrong (its exit, processes left running).
    fn end(self, case: &Case) -> (Run, Vec<String>) {
        case.write("release", "");
        let r = self.job.wait(secs(60));
        r.save(case, "job");
        let mut why = Vec::new();
        if !r.success() {
            why.push(format!("job exit {:?}{}", r.code(), if r.timed_out { " (time limit)" } else { "" }));
        }
        if wait_until("the run's processes end", secs(5), || pids_with_env("OPX_MARKER", &self.marker).is_empty()).is_err() {
            kill_with_env("OPX_MARKER", &self.marker);
            why.push("processes left running".to_string());
        }
        (r, why)
    }
}

/// Ranks that wait for the case's file `release`: `sh -c … sh <release>`.
fn held_ranks(case: &Case) -> Vec<String> {
    vec!["sh".into(), "-c".into(), "while [ ! -e \"$1\" ]; do sleep 0.05; done".into(), "sh".into(), s(case.path("release"))]
}

/// A case of a tool from Debian's libpmix-bin: a skip when it is missing,
/// else the case with its pmixrun job of 2 held ranks.
fn debian_tool_case(name: &str, tool: &str) -> Option<(Case, ToolJob)> {
    if !have(tool) {
        skip(name, &format!("no {tool}: Debian's libpmix-bin"));
        return None;
    }
    let case = Case::new(name);
    let tj = tool_job(&case, 2, "sh", &held_ranks(&case)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some((case, tj))
}

/// OpenPMIx's pps (Debian's libpmix-bin) lists a live pmixrun job's namespace.
#[test]
fn opx_pmixrun_pps() {
    let Some((case, tj)) = debian_tool_case("opx_pmixrun_pps", "pps") else { return };
    let pid = tj.pid();
    let pps = run(tj.tool(&["pps"]), secs(15));
    pps.save(&case, "pps");
    let (_, mut why) = tj.end(&case);
    if !pps.success() {
        why.push(format!("pps: exit {:?}", pps.code()));
    }
    // ("Active nspaces: rpmixrun.<pid>.1", the namespace a word of its own)
    let listed = format!("Active nspaces: rpmixrun.{pid}.1");
    let lists = |l: &&str| l.find(&listed).is_some_and(|i| !l[i + listed.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
    if !pps.all_lines().iter().any(lists) {
        why.push(format!("pps did not list rpmixrun.{pid}.1"));
    }
    assert!(why.is_empty(), "{}", pps.report(&why.join(", ")));
}

/// OpenPMIx's pquery names it (a skip when Debian's pquery dies of SIGFPE
/// before connecting, as it does: its own crash in
/// pmix_init_registered_attrs, with or without a server).
#[test]
fn opx_pmixrun_pquery() {
    let name = "opx_pmixrun_pquery";
    let Some((case, tj)) = debian_tool_case(name, "pquery") else { return };
    let pid = tj.pid();
    let pq = run(tj.tool(&["pquery", "--pid", &pid.to_string(), "PMIX_QUERY_NAMESPACES"]), secs(15));
    pq.save(&case, "pquery");
    let (_, mut why) = tj.end(&case);
    if died_of_sigfpe(&pq) {
        skip(name, "OpenPMIx's pquery died of SIGFPE: its own crash in pmix_init_registered_attrs");
        return;
    }
    if !pq.all_lines().iter().any(|l| l.contains(&format!("rpmixrun.{pid}.1"))) {
        why.push(format!("pquery (exit {:?}) did not name rpmixrun.{pid}.1", pq.code()));
    }
    assert!(why.is_empty(), "{}", pq.report(&why.join(", ")));
}

/// OpenPMIx's pevent raises an event (code 4242, range local) once both
/// ranks (OpenPMIx, c-tests/client_await_event.c) registered for it (each
/// writes its file `ready/ready.<rank>`): both receive it, from the tool.
#[test]
fn opx_pmixrun_pevent() {
    let name = "opx_pmixrun_pevent";
    if !have("pevent") {
        skip(name, "no pevent: Debian's libpmix-bin");
        return;
    }
    let case = Case::new(name);
    rank_wrappers(&case.dir);
    let ready = case.path("ready");
    fs::create_dir_all(&ready).unwrap();
    let argv = vec![s(case.path("proof")), s(refp("client_await_event")), "4242".into(), s(&ready)];
    let tj = tool_job(&case, 2, "client_await_ev", &argv).unwrap_or_else(|e| panic!("{name}: {e}"));
    let pid = tj.pid();
    let both_ready = wait_until("both ranks' ready files", secs(30), || (0..2).all(|r| ready.join(format!("ready.{r}")).exists()));
    let pevent = run(tj.tool(&["pevent", "--event", "4242", "--range", "2"]), secs(15));
    pevent.save(&case, "pevent");
    let (job, mut why) = tj.end(&case);
    why.extend(both_ready.err());
    if !pevent.success() {
        why.push(format!("pevent: exit {:?}", pevent.code()));
    }
    let from_tool = format!(" got 4242 from rpmixrun.{pid}.tool.");
    let got = pevent
        .all_lines()
        .into_iter()
        .chain(job.all_lines())
        .filter(|l| {
            l.strip_prefix("client_await_event: rank ")
                .and_then(|rest| rest.strip_prefix('0').or_else(|| rest.strip_prefix('1')))
                .is_some_and(|rest| rest.starts_with(&from_tool))
        })
        .count();
    if got != 2 {
        why.push(format!("{got} ranks, not both, got the event from the tool"));
    }
    why.extend(which_pmix_loaded(&case.path("ranks.proof"), &Lib::OpenPmix.file(), 2));
    assert!(why.is_empty(), "{}", job.report(&why.join(", ")));
}

/// An OpenPMIx tool (c-tests/tool_pull.c on the system library) pulls the
/// stdout of 3 ranks: once its pull is registered ("tool_pull: pulling")
/// the ranks print their line and close their output; the tool gets every
/// rank's line, then every stream's PMIX_IOF_COMPLETE.
#[test]
fn opx_pmixrun_tool_iof() {
    let case = Case::new("opx_pmixrun_tool_iof");
    let go = case.path("go");
    let argv = vec![
        "sh".into(),
        "-c".into(),
        "while [ ! -e \"$1\" ]; do sleep 0.05; done; echo \"line-of-$PMIX_RANK\"; exec >&- 2>&-; while [ ! -e \"$2\" ]; do sleep 0.05; done".into(),
        "sh".into(),
        s(&go),
        s(case.path("release")),
    ];
    let tj = tool_job(&case, 3, "sh", &argv).unwrap_or_else(|e| panic!("opx_pmixrun_tool_iof: {e}"));
    let proof = case.path("tool.proof");
    let tool = Job::start(
        tj.tool(&[&s(c_prog("tool_pull", Build::Ref)), &tj.pid().to_string(), "3"])
            .env("LD_PRELOAD", c_prog("which_pmix", Build::Preload))
            .env("WHICH_PMIX_OUT", &proof),
    );
    let pulling = tool.wait_line("'tool_pull: pulling'", secs(30), |l| l.starts_with("tool_pull: pulling "));
    case.write("go", "");
    let pull = tool.wait(secs(40));
    pull.save(&case, "tool_pull");
    let (_, mut why) = tj.end(&case);
    why.extend(pulling.err());
    if !pull.success() {
        why.push(format!("tool_pull: exit {:?}", pull.code()));
    }
    let lines = pull.all_lines();
    for r in 0..3 {
        if !lines.contains(&format!("tool_pull: rank {r}: line-of-{r}").as_str()) {
            why.push(format!("rank {r}'s line missing"));
        }
    }
    if !lines.iter().any(|l| l.starts_with("tool_pull: 3 streams complete")) {
        why.push("not every stream completed".to_string());
    }
    why.extend(which_pmix_loaded(&proof, &Lib::OpenPmix.file(), 1).into_iter().map(|w| format!("the tool did not run on OpenPMIx: {w}")));
    assert!(why.is_empty(), "{}", pull.report(&why.join(", ")));
}

// ---------------------------------------------------------------- OpenPMIx 4.2.2's own test programs
//
// test/simple/*.c of OpenPMIx 4.2.2 (from its source package, which
// tools/install-consumers.sh unpacks; built by c-tests/Makefile against
// OpenPMIx's headers and c-tests/openpmix-shim/, our stand-ins for the
// internal headers they include) and bindings/python/tests/python/client.py,
// on both libraries. A case is <launcher>/<program>[-variant]: mpirun
// (Open MPI 4.1.4's, on the run's library with its ranks), pmixrun (rpmix
// only; its reference is the same program under mpirun on OpenPMIx),
// simptest (OpenPMIx's server starting N clients itself), single (servers
// and tools started alone). A case fails only when it passes on OpenPMIx
// and fails on rpmix; one that fails on OpenPMIx too is a skip. Every run
// has a time limit (SIMPLE_TIMEOUT, default 20 s), its processes (marked
// through OPXS_MARKER) are ended afterwards, and each process proves its
// library (which_pmix).

/// The programs, each in the case's directory under its own name.
const SIMPLE_PROGS: [&str; 24] = [
    "simptest", "simpclient", "simppub", "simpdyn", "simpft", "simpdmodex", "test_pmix", "simptool", "simpdie", "simptimeout", "gwtest",
    "gwclient", "stability", "quietclient", "simpjctrl", "simpio", "simpsched", "simpcoord", "simpcycle", "doubleget", "simpfabric",
    "get_put_example", "simpvni", "hybrid",
];

fn simple_timeout() -> u64 {
    std::env::var("SIMPLE_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(20)
}

/// The case's directory as the programs' own (simptest starts
/// ./simpclient and the like): each program, netconfig.txt, and `proof`,
/// which runs its arguments on RUN_LIB's library with which_pmix
/// preloaded (reporting to PROOF_OUT).
fn simple_dir(case: &Case) {
    for p in SIMPLE_PROGS {
        std::os::unix::fs::symlink(c_prog(p, Build::OpenPmixTest), case.path(p)).expect("a program's link");
    }
    fs::copy(openpmix_src().join("test/simple/netconfig.txt"), case.path("netconfig.txt")).expect("netconfig.txt");
    let which = c_prog("which_pmix", Build::Preload);
    write_exe(
        &case.path("proof"),
        &format!(
            "#!/bin/sh\nif [ \"$RUN_LIB\" = rpmix ]; then LD_LIBRARY_PATH='{}'; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi\nLD_PRELOAD='{}'; WHICH_PMIX_OUT=$PROOF_OUT; export LD_PRELOAD WHICH_PMIX_OUT\nexec \"$@\"\n",
            env().libdir.display(),
            which.display()
        ),
    );
}

/// One run of `argv` in the case's directory with a private TMPDIR, the
/// library of `lib` for the launcher and all it starts.
fn simple_run(case: &Case, log: &str, lib: Lib, argv: &[String]) -> (Run, PathBuf, bool) {
    let marker = new_marker(&format!("{}-{log}", case.name));
    let proof = case.path(&format!("{log}.proof"));
    fs::write(&proof, "").unwrap();
    let t = TmpDir::new("opxs");
    let cmd = merged(argv.iter().map(OsStr::new))
        .on(lib)
        .env("OPXS_MARKER", &marker)
        .env("RUN_LIB", rank_lib(lib))
        .env("PROOF_OUT", &proof)
        .env("TMPDIR", &t)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(&case.dir);
    let r = run(cmd, secs(simple_timeout()));
    r.save(case, log);
    let clean = wait_until("the run's processes end", secs(5), || pids_with_env("OPXS_MARKER", &marker).is_empty()).is_ok();
    if !clean {
        kill_with_env("OPXS_MARKER", &marker);
    }
    (r, proof, clean)
}

/// Why a run of a test program fails its rule (`spec`, for `n` ranks), as
/// the driver judged it.
fn simple_judge(r: &Run, spec: &str, n: usize) -> Vec<String> {
    let lines = r.all_lines();
    let t = simple_timeout();
    let timed_out = r.timed_out || r.signal() == Some(libc::SIGKILL);
    let mut why = Vec::new();
    let need_rc = |why: &mut Vec<String>, want: i32| {
        if r.code() != Some(want) {
            why.push(if timed_out { format!("timeout ({t}s)") } else { format!("exit {:?}, expected {want}", r.code()) });
        }
    };
    let need = |why: &mut Vec<String>, pattern: &str, count: usize| {
        let got = lines.iter().filter(|l| holds(l, pattern)).count();
        if got < count {
            why.push(format!("{got} of {count} lines /{pattern}/"));
        }
    };
    // (lines that report a failure; not those both libraries print for a missing optional value)
    let no_bad = |why: &mut Vec<String>| {
        let bad = ["failed", "FAILED", "ERROR", "wrong", "incorrect"];
        let benign = ["CREDENTIAL failed", "Register fabric failed with error NOT-SUPPORTED"];
        if let Some(l) = lines.iter().find(|l| bad.iter().any(|b| l.contains(b)) && !benign.iter().any(|b| l.contains(b))) {
            why.push(format!("printed: {}", l.chars().take(110).collect::<String>()));
        }
    };
    let finalized = "PMIx_Finalize successfully completed";
    let simptest = |why: &mut Vec<String>| {
        need_rc(why, 0);
        need(why, "^Test finished OK!", 1);
    };
    match spec {
        "final" | "final2x" | "dyn" => {
            need_rc(&mut why, 0);
            need(&mut why, finalized, match spec { "final" => n, "final2x" => 2 * n, _ => n + 2 });
            no_bad(&mut why);
            if spec == "dyn" {
                need(&mut why, "job .* size 2", 1);
            }
        }
        "dmodex" => {
            need_rc(&mut why, 0);
            need(&mut why, finalized, n);
            no_bad(&mut why);
        }
        // the job ends on its own with a non-zero status (the abort)
        "abort" => {
            if timed_out {
                why.push(format!("timeout ({t}s)"));
            } else if r.success() {
                why.push("exit 0 after an abort".to_string());
            }
        }
        // n - 1 survivors say "NOTIFIED", no hang
        "die" | "st_die" => {
            if timed_out {
                why.push(format!("timeout ({t}s)"));
            }
            need(&mut why, "NOTIFIED with status", n - 1);
        }
        "quiet" | "doubleget" => {
            need_rc(&mut why, 0);
            no_bad(&mut why);
        }
        "getput" => {
            need_rc(&mut why, 0);
            need(&mut why, "Get complete and successful", n);
            no_bad(&mut why);
        }
        "testpmix" => {
            need_rc(&mut why, 0);
            need(&mut why, "^I am rank", n);
        }
        "hybrid" => {
            need_rc(&mut why, 0);
            need(&mut why, "^Test completed", n);
            need(&mut why, "^Entered parallel_region_OMP_cb", n);
            need(&mut why, "^Entered parallel_region_MPI_cb", n);
        }
        "tool" => {
            need(&mut why, "Client received result foobar:0", 1);
            need(&mut why, "Client received result spastic:1", 1);
            need(&mut why, finalized, 1);
            no_bad(&mut why);
        }
        "py" => {
            need_rc(&mut why, 0);
            need(&mut why, "^12 / 12 TESTS PASSED", n);
            let mut f: Vec<&str> = lines.iter().copied().filter(|l| l.contains("TEST FAILED")).collect();
            f.sort_unstable();
            f.dedup();
            if !f.is_empty() {
                why.push(f.join(";").chars().take(120).collect());
            }
        }
        "fabric" | "sched" | "stability" => simptest(&mut why),
        "vni" => {
            need_rc(&mut why, 0);
            need(&mut why, "^VNI: ", 1);
        }
        "gw" => {
            simptest(&mut why);
            need(&mut why, finalized, n);
        }
        "st_final" | "st_final2x" | "st_dyn" | "st_dmodex" | "st_quiet" => {
            simptest(&mut why);
            no_bad(&mut why);
            match spec {
                "st_final" | "st_dmodex" => need(&mut why, finalized, n),
                "st_final2x" => need(&mut why, finalized, 2 * n),
                "st_dyn" => need(&mut why, finalized, n + 2),
                _ => {}
            }
        }
        "st_getput" => {
            simptest(&mut why);
            need(&mut why, "Get complete and successful", n);
            no_bad(&mut why);
        }
        "st_abort" => {
            simptest(&mut why);
            need(&mut why, "SERVER: ABORT", 1);
        }
        other => why.push(format!("no rule for {other}")),
    }
    why
}

/// A run judged: its rule, what it left running, its processes' library
/// (at least `min_proofs` reports).
fn simple_one(case: &Case, lib: Lib, spec: &str, n: usize, min_proofs: usize, argv: &[String]) -> (Run, Vec<String>) {
    let (r, proof, clean) = simple_run(case, rank_lib(lib), lib, argv);
    let mut why = simple_judge(&r, spec, n);
    if !clean {
        why.push("processes left running".to_string());
    }
    why.extend(which_pmix_loaded(&proof, &lib.file(), min_proofs));
    (r, why)
}

/// The verdict: a skip when the reference (OpenPMIx) fails, a failure
/// when it passes and rpmix fails.
fn simple_verdict(name: &str, reference: &[String], ours: (Run, Vec<String>)) {
    let (r, why) = ours;
    let said = |w: &[String]| if w.is_empty() { "pass".to_string() } else { format!("fail: {}", w.join(", ")) };
    if !reference.is_empty() {
        skip(name, &format!("fails on OpenPMIx too: {}; rpmix: {}", said(reference), said(&why)));
        return;
    }
    assert!(why.is_empty(), "{}", r.report(&format!("passes on OpenPMIx, rpmix: {}", said(&why))));
}

/// `argv` on OpenPMIx, then on rpmix.
fn simple_both(name: &str, spec: &str, n: usize, min_proofs: usize, argv: &[String]) {
    let case = Case::new(name);
    simple_dir(&case);
    let (_, reference) = simple_one(&case, Lib::OpenPmix, spec, n, min_proofs, argv);
    let ours = simple_one(&case, Lib::Ours, spec, n, min_proofs, argv);
    simple_verdict(name, &reference, ours);
}

/// `argv` on rpmix alone; its reference is `ref_argv` on OpenPMIx.
fn simple_rpmix_only(name: &str, spec: &str, n: usize, min_proofs: usize, ref_argv: &[String], argv: &[String]) {
    let case = Case::new(name);
    simple_dir(&case);
    let (_, reference) = simple_one(&case, Lib::OpenPmix, spec, n, min_proofs, ref_argv);
    let ours = simple_one(&case, Lib::Ours, spec, n, min_proofs, argv);
    simple_verdict(name, &reference, ours);
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// `mpirun -n <n> ./proof ./<prog> <args>`.
fn simple_mpirun(n: usize, prog: &str, args: &[&str]) -> Vec<String> {
    let mut v = strings(&["mpirun", "--allow-run-as-root", "--oversubscribe", "-n"]);
    v.extend([n.to_string(), "./proof".into(), format!("./{prog}")]);
    v.extend(strings(args));
    v
}

/// `pmixrun -n <n> ./proof ./<prog> <args>`.
fn simple_pmixrun(n: usize, prog: &str, args: &[&str]) -> Vec<String> {
    let mut v = vec![s(&env().pmixrun), "-n".into(), n.to_string(), "./proof".into(), format!("./{prog}")];
    v.extend(strings(args));
    v
}

/// `./proof ./simptest -n <n> -e ./<prog> <args>`: the server starts the clients.
fn simple_simptest(n: usize, prog: &str, args: &[&str]) -> Vec<String> {
    let mut v = strings(&["./proof", "./simptest", "-n"]);
    v.extend([n.to_string(), "-e".into(), format!("./{prog}")]);
    v.extend(strings(args));
    v
}

#[test]
fn simple_single_simpfabric() {
    simple_both("simple_single_simpfabric", "fabric", 1, 1, &strings(&["./proof", "./simpfabric"]));
}
#[test]
fn simple_single_simpsched() {
    simple_both("simple_single_simpsched", "sched", 1, 1, &strings(&["./proof", "./simpsched"]));
}
#[test]
fn simple_single_simpvni() {
    simple_both("simple_single_simpvni", "vni", 1, 1, &strings(&["./proof", "./simpvni"]));
}
#[test]
fn simple_single_hybrid() {
    simple_both("simple_single_hybrid", "hybrid", 1, 1, &strings(&["./proof", "./hybrid"]));
}
#[test]
fn simple_single_gwtest() {
    simple_both("simple_single_gwtest", "gw", 2, 3, &strings(&["./proof", "./gwtest", "-n", "2"]));
}
#[test]
fn simple_single_stability() {
    simple_both("simple_single_stability", "stability", 1, 2, &strings(&["./proof", "./stability", "-n", "2", "-reps", "3"]));
}
/// simptool as simptest's child (it connects to its parent, which answers the query).
#[test]
fn simple_simptest_simptool() {
    simple_both("simple_simptest_simptool", "tool", 1, 2, &strings(&["./proof", "./simptest", "-n", "1", "-e", "./simptool"]));
}

/// simptool attached to a running simptest: simptest runs 1 client
/// (simpdmodex -s 6: rank 0 sleeps 6 s once it has its job size);
/// simptool, started alone in the same private TMPDIR once the server's
/// rendezvous file (pmix.*.tool.*) is there and the client printed its job
/// size, finds that server and queries it. simptest's output, then
/// simptool's, are judged as one log.
fn simple_attach_one(case: &Case, lib: Lib) -> (Run, Vec<String>) {
    let log = rank_lib(lib);
    let marker = new_marker(&format!("{}-{log}", case.name));
    let proof = case.path(&format!("{log}.proof"));
    fs::write(&proof, "").unwrap();
    let t = TmpDir::new("opxs");
    let limit = secs(simple_timeout());
    let with = |cmd: Cmd| {
        cmd.on(lib)
            .env("OPXS_MARKER", &marker)
            .env("RUN_LIB", rank_lib(lib))
            .env("PROOF_OUT", &proof)
            .env("TMPDIR", &t)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .current_dir(&case.dir)
    };
    let server = Job::start(with(Cmd::new(case.path("proof")).args(["./simptest", "-n", "1", "-e", "./simpdmodex", "-s", "6"])));
    let mut why = Vec::new();
    let rendezvous = || {
        fs::read_dir(t.path()).is_ok_and(|d| {
            d.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("pmix.") && n.contains(".tool.")))
        })
    };
    why.extend(wait_until("simptest's rendezvous file pmix.*.tool.*", limit, rendezvous).err());
    why.extend(server.wait_line("'Rank 0[msg=<n>]: job size 1'", limit, |l| l.contains("Rank 0[msg=") && l.contains("]: job size")).err());
    let tool = run(with(Cmd::new(case.path("proof")).arg("./simptool")), limit);
    let srv = server.wait(limit);
    let r = Run {
        shown: format!("{} (and ./simptool)", srv.shown),
        status: srv.status,
        stdout: format!(
            "{}{}--- simptool:\n{}{}--- simptool exit {:?}\n",
            srv.stdout,
            srv.stderr,
            tool.stdout,
            tool.stderr,
            if tool.timed_out { None } else { tool.status }
        ),
        stderr: String::new(),
        elapsed: srv.elapsed,
        timed_out: srv.timed_out || tool.timed_out,
    };
    r.save(case, log);
    why.extend(simple_judge(&r, "tool", 1));
    if wait_until("the run's processes end", secs(5), || pids_with_env("OPXS_MARKER", &marker).is_empty()).is_err() {
        kill_with_env("OPXS_MARKER", &marker);
        why.push("processes left running".to_string());
    }
    why.extend(which_pmix_loaded(&proof, &lib.file(), 2));
    (r, why)
}

/// simptool attached to a running simptest ([`simple_attach_one`]), on
/// OpenPMIx, then on rpmix.
#[test]
fn simple_attach_simptool() {
    let name = "simple_attach_simptool";
    let case = Case::new(name);
    simple_dir(&case);
    let (_, reference) = simple_attach_one(&case, Lib::OpenPmix);
    let ours = simple_attach_one(&case, Lib::Ours);
    simple_verdict(name, &reference, ours);
}

/// client.py of the Python bindings (python3-pmix), `launcher` words first.
fn simple_py(launcher: &[String]) -> Option<Vec<String>> {
    if !run(Cmd::new("/usr/bin/python3").args(["-c", "import pmix"]), secs(60)).success() {
        return None;
    }
    let mut v = launcher.to_vec();
    v.extend(["./proof".to_string(), "/usr/bin/python3".into(), s(openpmix_src().join("bindings/python/tests/python/client.py"))]);
    Some(v)
}
fn mpirun_2() -> Vec<String> {
    strings(&["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2"])
}
#[test]
fn simple_mpirun_py_client() {
    let Some(argv) = simple_py(&mpirun_2()) else { return skip("simple_mpirun_py_client", "no python3-pmix") };
    simple_both("simple_mpirun_py_client", "py", 2, 2, &argv);
}
#[test]
fn simple_pmixrun_py_client() {
    let (Some(reference), Some(argv)) = (simple_py(&mpirun_2()), simple_py(&[s(&env().pmixrun), "-n".into(), "2".into()])) else {
        return skip("simple_pmixrun_py_client", "no python3-pmix");
    };
    simple_rpmix_only("simple_pmixrun_py_client", "py", 2, 2, &reference, &argv);
}

/// OpenPMIx's test programs link only public PMIx_* symbols of
/// libpmix.so.2, and export no pmix_* symbol (nm).
#[test]
fn simple_programs_public_symbols_only() {
    let mut bad = Vec::new();
    for p in SIMPLE_PROGS {
        let prog = c_prog(p, Build::OpenPmixTest);
        let undefined = run(Cmd::new("nm").arg("-u").arg(&prog), secs(60)).ok();
        let defined = run(Cmd::new("nm").args(["-D", "--defined-only"]).arg(&prog), secs(60)).ok();
        let name = |l: &str| l.split_whitespace().last().unwrap_or("").to_string();
        bad.extend(undefined.lines().iter().map(|l| name(l)).filter(|n| n.to_ascii_lowercase().starts_with("pmix") && !n.starts_with("PMIx_")).map(|n| format!("{p}: {n}")));
        bad.extend(defined.lines().iter().map(|l| name(l)).filter(|n| n.to_ascii_lowercase().starts_with("pmix")).map(|n| format!("{p}: {n}")));
    }
    assert!(bad.is_empty(), "internal symbols: {bad:?}");
}

#[test]
fn simple_mpirun_simpclient() {
    simple_both("simple_mpirun_simpclient", "final", 2, 2, &simple_mpirun(2, "simpclient", &[]));
}
#[test]
fn simple_pmixrun_simpclient() {
    simple_rpmix_only("simple_pmixrun_simpclient", "final", 2, 2, &simple_mpirun(2, "simpclient", &[]), &simple_pmixrun(2, "simpclient", &[]));
}
#[test]
fn simple_simptest_simpclient() {
    simple_both("simple_simptest_simpclient", "st_final", 2, 3, &simple_simptest(2, "simpclient", &[]));
}
#[test]
fn simple_mpirun_simpclient_abort() {
    simple_both("simple_mpirun_simpclient_abort", "abort", 2, 2, &simple_mpirun(2, "simpclient", &["-abort"]));
}
#[test]
fn simple_pmixrun_simpclient_abort() {
    simple_rpmix_only("simple_pmixrun_simpclient_abort", "abort", 2, 2, &simple_mpirun(2, "simpclient", &["-abort"]), &simple_pmixrun(2, "simpclient", &["-abort"]));
}
#[test]
fn simple_simptest_simpclient_abort() {
    simple_both("simple_simptest_simpclient_abort", "st_abort", 2, 3, &simple_simptest(2, "simpclient", &["-abort"]));
}
#[test]
fn simple_mpirun_simppub() {
    simple_both("simple_mpirun_simppub", "final", 2, 2, &simple_mpirun(2, "simppub", &[]));
}
#[test]
fn simple_pmixrun_simppub() {
    simple_rpmix_only("simple_pmixrun_simppub", "final", 2, 2, &simple_mpirun(2, "simppub", &[]), &simple_pmixrun(2, "simppub", &[]));
}
#[test]
fn simple_simptest_simppub() {
    simple_both("simple_simptest_simppub", "st_final", 2, 3, &simple_simptest(2, "simppub", &[]));
}
#[test]
fn simple_mpirun_simpdyn() {
    simple_both("simple_mpirun_simpdyn", "dyn", 2, 2, &simple_mpirun(2, "simpdyn", &[]));
}
#[test]
fn simple_pmixrun_simpdyn() {
    simple_rpmix_only("simple_pmixrun_simpdyn", "dyn", 2, 2, &simple_mpirun(2, "simpdyn", &[]), &simple_pmixrun(2, "simpdyn", &[]));
}
#[test]
fn simple_simptest_simpdyn() {
    simple_both("simple_simptest_simpdyn", "st_dyn", 2, 3, &simple_simptest(2, "simpdyn", &[]));
}
#[test]
fn simple_mpirun_simpft() {
    simple_both("simple_mpirun_simpft", "abort", 2, 2, &simple_mpirun(2, "simpft", &[]));
}
#[test]
fn simple_pmixrun_simpft() {
    simple_rpmix_only("simple_pmixrun_simpft", "abort", 2, 2, &simple_mpirun(2, "simpft", &[]), &simple_pmixrun(2, "simpft", &[]));
}
#[test]
fn simple_simptest_simpft() {
    simple_both("simple_simptest_simpft", "st_abort", 2, 3, &simple_simptest(2, "simpft", &[]));
}
#[test]
fn simple_mpirun_simpdmodex() {
    simple_both("simple_mpirun_simpdmodex", "dmodex", 2, 2, &simple_mpirun(2, "simpdmodex", &[]));
}
#[test]
fn simple_pmixrun_simpdmodex() {
    simple_rpmix_only("simple_pmixrun_simpdmodex", "dmodex", 2, 2, &simple_mpirun(2, "simpdmodex", &[]), &simple_pmixrun(2, "simpdmodex", &[]));
}
#[test]
fn simple_simptest_simpdmodex() {
    simple_both("simple_simptest_simpdmodex", "st_dmodex", 2, 3, &simple_simptest(2, "simpdmodex", &[]));
}
#[test]
fn simple_mpirun_simptimeout() {
    simple_both("simple_mpirun_simptimeout", "final", 2, 2, &simple_mpirun(2, "simptimeout", &[]));
}
#[test]
fn simple_pmixrun_simptimeout() {
    simple_rpmix_only("simple_pmixrun_simptimeout", "final", 2, 2, &simple_mpirun(2, "simptimeout", &[]), &simple_pmixrun(2, "simptimeout", &[]));
}
#[test]
fn simple_simptest_simptimeout() {
    simple_both("simple_simptest_simptimeout", "st_final", 2, 3, &simple_simptest(2, "simptimeout", &[]));
}
#[test]
fn simple_mpirun_simpdie() {
    simple_both("simple_mpirun_simpdie", "die", 2, 2, &simple_mpirun(2, "simpdie", &[]));
}
#[test]
fn simple_pmixrun_simpdie() {
    simple_rpmix_only("simple_pmixrun_simpdie", "die", 2, 2, &simple_mpirun(2, "simpdie", &[]), &simple_pmixrun(2, "simpdie", &[]));
}
#[test]
fn simple_simptest_simpdie() {
    simple_both("simple_simptest_simpdie", "st_die", 2, 3, &simple_simptest(2, "simpdie", &[]));
}
#[test]
fn simple_mpirun_quietclient() {
    simple_both("simple_mpirun_quietclient", "quiet", 2, 2, &simple_mpirun(2, "quietclient", &[]));
}
#[test]
fn simple_pmixrun_quietclient() {
    simple_rpmix_only("simple_pmixrun_quietclient", "quiet", 2, 2, &simple_mpirun(2, "quietclient", &[]), &simple_pmixrun(2, "quietclient", &[]));
}
#[test]
fn simple_simptest_quietclient() {
    simple_both("simple_simptest_quietclient", "st_quiet", 2, 3, &simple_simptest(2, "quietclient", &[]));
}
#[test]
fn simple_mpirun_simpio() {
    simple_both("simple_mpirun_simpio", "final", 2, 2, &simple_mpirun(2, "simpio", &[]));
}
#[test]
fn simple_pmixrun_simpio() {
    simple_rpmix_only("simple_pmixrun_simpio", "final", 2, 2, &simple_mpirun(2, "simpio", &[]), &simple_pmixrun(2, "simpio", &[]));
}
#[test]
fn simple_simptest_simpio() {
    simple_both("simple_simptest_simpio", "st_final", 2, 3, &simple_simptest(2, "simpio", &[]));
}
#[test]
fn simple_mpirun_simpcoord() {
    simple_both("simple_mpirun_simpcoord", "final", 2, 2, &simple_mpirun(2, "simpcoord", &[]));
}
#[test]
fn simple_pmixrun_simpcoord() {
    simple_rpmix_only("simple_pmixrun_simpcoord", "final", 2, 2, &simple_mpirun(2, "simpcoord", &[]), &simple_pmixrun(2, "simpcoord", &[]));
}
#[test]
fn simple_simptest_simpcoord() {
    simple_both("simple_simptest_simpcoord", "st_final", 2, 3, &simple_simptest(2, "simpcoord", &[]));
}
#[test]
fn simple_mpirun_simpcycle() {
    simple_both("simple_mpirun_simpcycle", "final2x", 2, 2, &simple_mpirun(2, "simpcycle", &[]));
}
#[test]
fn simple_pmixrun_simpcycle() {
    simple_rpmix_only("simple_pmixrun_simpcycle", "final2x", 2, 2, &simple_mpirun(2, "simpcycle", &[]), &simple_pmixrun(2, "simpcycle", &[]));
}
#[test]
fn simple_simptest_simpcycle() {
    simple_both("simple_simptest_simpcycle", "st_final2x", 2, 3, &simple_simptest(2, "simpcycle", &[]));
}
#[test]
fn simple_mpirun_simpjctrl() {
    simple_both("simple_mpirun_simpjctrl", "final", 2, 2, &simple_mpirun(2, "simpjctrl", &[]));
}
#[test]
fn simple_pmixrun_simpjctrl() {
    simple_rpmix_only("simple_pmixrun_simpjctrl", "final", 2, 2, &simple_mpirun(2, "simpjctrl", &[]), &simple_pmixrun(2, "simpjctrl", &[]));
}
#[test]
fn simple_mpirun_doubleget() {
    simple_both("simple_mpirun_doubleget", "doubleget", 2, 2, &simple_mpirun(2, "doubleget", &[]));
}
#[test]
fn simple_pmixrun_doubleget() {
    simple_rpmix_only("simple_pmixrun_doubleget", "doubleget", 2, 2, &simple_mpirun(2, "doubleget", &[]), &simple_pmixrun(2, "doubleget", &[]));
}
#[test]
fn simple_mpirun_get_put_example() {
    simple_both("simple_mpirun_get_put_example", "getput", 2, 2, &simple_mpirun(2, "get_put_example", &[]));
}
#[test]
fn simple_pmixrun_get_put_example() {
    simple_rpmix_only("simple_pmixrun_get_put_example", "getput", 2, 2, &simple_mpirun(2, "get_put_example", &[]), &simple_pmixrun(2, "get_put_example", &[]));
}
#[test]
fn simple_simptest_get_put_example() {
    simple_both("simple_simptest_get_put_example", "st_getput", 2, 3, &simple_simptest(2, "get_put_example", &[]));
}
#[test]
fn simple_mpirun_test_pmix() {
    simple_both("simple_mpirun_test_pmix", "testpmix", 2, 2, &simple_mpirun(2, "test_pmix", &[]));
}
#[test]
fn simple_pmixrun_test_pmix() {
    simple_rpmix_only("simple_pmixrun_test_pmix", "testpmix", 2, 2, &simple_mpirun(2, "test_pmix", &[]), &simple_pmixrun(2, "test_pmix", &[]));
}
#[test]
fn simple_mpirun_hybrid() {
    simple_both("simple_mpirun_hybrid", "hybrid", 2, 2, &simple_mpirun(2, "hybrid", &[]));
}
#[test]
fn simple_pmixrun_hybrid() {
    simple_rpmix_only("simple_pmixrun_hybrid", "hybrid", 2, 2, &simple_mpirun(2, "hybrid", &[]), &simple_pmixrun(2, "hybrid", &[]));
}

// ---------------------------------------------------------------- OpenPMIx's examples under three hosts
//
// OpenPMIx 4.2.2's example programs, on OpenPMIx's libpmix.so.2 and on
// rpmix's, under OpenPMIx's server.c (`server -n NP -e ./prog`), Open MPI
// 4.1.4's mpirun (`--host <this host>:NP`, so PMIX_UNIV_SIZE = NP; on
// rpmix, mpirun's embedded server and the ranks all run on it) and rpmix's
// pmixrun (rpmix only: its reference is OpenPMIx under mpirun), with the
// outputs compared. Every run: in a directory holding every example
// (dynamic.c and debugger.c spawn ./client and ./debuggerd from there), a
// private TMPDIR, the example's time limit, EXAMPLES_MARKER in the
// environment of all its processes (what carries it afterwards is killed
// and fails the run). A run passes when its exit is the expected one (0,
// or any but a time-out for examples whose rank 0 exits 1 on purpose), no
// line shows a failure message (but the example's informational ones) and
// the completion line appears as often as expected. server.c has a race
// of its own (it stops when `wakeup`, decremented by both a client's
// finalize upcall and its SIGCHLD, reaches 0, so it can finalize while a
// client still needs it): runs under it are tried up to 5 times on both
// libraries. When both libraries pass under server or mpirun, the sorted
// normalised outputs must be equal; under pmixrun the comparison with
// OpenPMIx under mpirun is printed for information. A case fails when
// OpenPMIx passes and rpmix fails; failing on both, it is a skip with the
// reason (`example_both_reason`). alloc is the exception under pmixrun: no
// host of OpenPMIx's sends PMIX_NOTIFY_ALLOC_COMPLETE, so its reference is
// OpenPMIx's ranks under pmixrun (rank 1 registers its handler after the
// event was sent, even before it connected: the server's kept events
// reach it through OpenPMIx's REGEVENTS, as rpmix's ranks get them through
// theirs or their own kept events): both are served by rpmix's server, so
// both must pass, with equal outputs.

/// Why a run fails on both libraries (host, example).
fn example_both_reason(host: &str, ex: &str) -> &'static str {
    match (host, ex) {
        ("server", "dynamic") => "server.c's spawn upcall only registers DYNSPACE and never starts procs: PMIx_Spawn never completes",
        ("server", "fault") => "server.c never notifies PMIX_ERR_PROC_ABORTED/JOB_TERMINATED: rank 1 waits for it forever",
        ("server", "alloc") | ("mpirun", "alloc") => "rank 1 waits for PMIX_NOTIFY_ALLOC_COMPLETE, which no host sends",
        ("server", "jctrl") => "server.c has no job_control upcall: OpenPMIx answers NOT_SUPPORTED (-47)",
        ("server", "log") => "OpenPMIx: PMIx_Log under server.c (log upcall answering inside the upcall) never returns",
        ("server", "group") | ("server", "group_dmodex") | ("server", "group_lcl_cid") => "server.c has no group upcall: Group_construct NOT_SUPPORTED on OpenPMIx",
        ("server", "asyncgroup") => "server.c has no group upcall: Group_invite NOT_SUPPORTED on OpenPMIx",
        ("mpirun", "group") | ("mpirun", "group_dmodex") | ("mpirun", "group_lcl_cid") => "Open MPI 4.1's ORTE has no PMIx group support: Group_construct NOT_SUPPORTED",
        ("mpirun", "asyncgroup") => "Open MPI 4.1's ORTE cannot pack the group-invite event (pmix.evrange UNSUPPORTED TYPE)",
        ("mpirun", "abi_with_init") => "ORTE's query upcall fails the whole query (PMIX_ERROR) on the unknown ABI/namespace keys",
        ("mpirun", "bad_exit") => "mpirun aborts the job when rank 0 exits 1, before rank 1 finalizes",
        ("mpirun", "pubi") => "ORTE answers the PMIX_WAIT lookup before rank 0's publish lands: empty nspace (\"wrong nspace\")",
        ("mpirun", "fault") => "ORTE aborts the job when rank 0 exits 1 before rank 1 is notified",
        ("server", "tool") => "tool as a job's only process: see the log",
        ("server", "bad_exit") => "rank 0 exits 1 by design; see the log",
        ("mpirun", "tool") => "OpenPMIx: tool_init/query of namespaces under mpirun never completes (timed out)",
        ("server", "launcher") | ("mpirun", "launcher") => "launcher PMIx_Spawns 128 procs of 'app' and waits for their completion event",
        ("server", "debugger") => "debugger waits for the spawned job's termination event, which server.c's fake spawn never sends",
        ("mpirun", "debugger") => "OpenPMIx: the debugger under mpirun never completes (timed out)",
        _ => "no reason recorded; see the logs",
    }
}

/// The case's directory as the examples' own: each example (and server.c,
/// debuggerd) under its name.
fn example_dir(case: &Case) {
    let mut names: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
    names.extend(["server", "debuggerd"]);
    for n in names {
        std::os::unix::fs::symlink(c_prog(n, Build::OpenPmixExample), case.path(n)).expect("an example's link");
    }
}

/// One run of `ex` under `host` on `lib`; returns it and whether it left
/// processes running.
fn example_once(case: &Case, host: &str, lib: Lib, ex: &str, np: usize, limit: u64, attempt: usize) -> (Run, bool) {
    let marker = new_marker(&format!("{}-{host}-{}", case.name, rank_lib(lib)));
    let t = TmpDir::new("oex");
    let npn = np.to_string();
    let prog = format!("./{ex}");
    let mut argv: Vec<String> = strings(&["timeout", "-k", "2"]);
    argv.push(limit.to_string());
    match host {
        "server" => argv.extend([s(case.path("server")), "-n".into(), npn, "-e".into(), prog]),
        "mpirun" => {
            argv.extend(strings(&["mpirun", "--allow-run-as-root", "--oversubscribe", "--host"]));
            argv.extend([format!("{}:{np}", hostname()), "-np".into(), npn, prog]);
        }
        _ => argv.extend([s(&env().pmixrun), "-n".into(), npn, prog]),
    }
    // (timeout -k: mpirun sometimes ignores a SIGTERM; a KILL 2 s later, exit 137, is a time-out too)
    let cmd = merged(argv.iter().map(OsStr::new)).on(lib).env("TMPDIR", &t).env("EXAMPLES_MARKER", &marker).current_dir(&case.dir);
    let r = run(as_root_env(cmd), secs(limit + 5));
    r.save(case, &format!("{host}.{ex}.{}.{attempt}", rank_lib(lib)));
    let left = wait_until("the run's processes end", secs(5), || pids_with_env("EXAMPLES_MARKER", &marker).is_empty()).is_err();
    if left {
        kill_with_env("EXAMPLES_MARKER", &marker);
    }
    (r, left)
}

fn as_root_env(cmd: Cmd) -> Cmd {
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
}

/// Whether a run hit its time limit (timeout's 124, or 137 once killed).
fn example_timed_out(r: &Run) -> bool {
    r.timed_out || matches!(r.code(), Some(124) | Some(137))
}

/// Why a run of an example fails (empty: it passed).
fn example_judge(r: &Run, host: &str, ex: &(&str, usize, u64, bool, &str, usize), left: bool) -> Vec<String> {
    let &(name, _, _, exit_any, re, count) = ex;
    let lines = r.all_lines();
    let mut why = Vec::new();
    if example_timed_out(r) {
        why.push("timed out".to_string());
    } else if !exit_any && !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    let fail_words = ["failed", "FAILED", "Error", "ERROR", "wrong", "WASN'T RETURNED", "WAS NOT RETURNED", "incorrect", "requires a minimum of", "Failed to", "PMIX ERROR", "ORTE_ERROR"];
    // (no fabric coordinates exist on one machine: nodeinfo says so and goes on)
    let informational = |l: &str| name == "nodeinfo" && holds(l, "PMIx_Get coordinates.* failed: NOT-FOUND");
    if let Some(l) = lines.iter().find(|l| fail_words.iter().any(|w| l.contains(w)) && !informational(l)) {
        why.push(l.chars().take(110).collect());
    }
    let n = lines.iter().filter(|l| holds(l, re)).count();
    if count > 0 && n < count && why.is_empty() {
        why.push(format!("{n} of {count} completion lines"));
    }
    if left {
        why.push("processes left running".to_string());
    }
    let raced = |l: &&str| {
        l.contains("UNREACH")
            || ["LOST-CONNECTION", "LOST_CONNECTION", "LOST CONNECTION"].iter().any(|w| l.contains(w))
            || ["failed -25", "failed: -25", "status -25", "status: -25"].iter().any(|w| l.ends_with(w))
    };
    if host == "server" && lines.iter().any(raced) {
        why.push("server.c finished while a client still needed it (its wakeup race)".to_string());
    }
    why
}

/// The runs of `ex` under `host` on `lib` (up to 5 under server.c, a
/// time-out not retried); the last, and why it fails.
fn example_lib(case: &Case, host: &str, lib: Lib, ex: &(&str, usize, u64, bool, &str, usize)) -> (Run, Vec<String>) {
    // server.c counts each rank's end twice (its finalize and its exit):
    // when rank 0 is through before rank 1 connects, server.c ends under
    // it. The quicker a rank's whole run, the likelier: up to 5 tries, and
    // up to 12 while that race is all that failed.
    let tries = if host == "server" { 12 } else { 1 };
    let mut last = None;
    for attempt in 1..=tries {
        let (r, left) = example_once(case, host, lib, ex.0, ex.1, ex.2, attempt);
        let why = example_judge(&r, host, ex, left);
        let (done, hung) = (why.is_empty(), example_timed_out(&r));
        let raced = why.iter().any(|w| w.contains("wakeup race"));
        last = Some((r, why));
        if done || hung || (attempt >= 5 && !raced) {
            break;
        }
    }
    last.expect("a run")
}

/// Whether `line` has `word` at `i` between non-word characters.
fn word_at(line: &str, i: usize, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line[i..].starts_with(word)
        && !line[..i].chars().next_back().is_some_and(is_word)
        && !line[i + word.len()..].chars().next().is_some_and(is_word)
}

/// Each match of `m` (given the character before and the rest of the
/// line: the length it matches) replaced by `with`, left to right.
fn rewrite(line: &str, with: &str, m: impl Fn(Option<char>, &str) -> Option<usize>) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < line.len() {
        let prev = line[..i].chars().next_back();
        match m(prev, &line[i..]).filter(|&n| n > 0) {
            Some(n) => {
                out.push_str(with);
                i += n;
            }
            None => {
                let c = line[i..].chars().next().expect("a character");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// How many ASCII digits `s` begins with.
fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// An output made stable for comparing (pids, host name, namespaces:
/// mpirun's numeric jobids, rpmixrun.<pid>.<n>, prterun-*; handler refs,
/// temporary paths, times), its lines sorted (ranks interleave).
fn normalise(out: &str) -> Vec<String> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let host = hostname();
    // mpirun's numeric namespace (its jobid) may have fewer than 8 digits:
    // learnt from a "ns <jobid> rank" line and replaced wherever it stands
    let ns = out.lines().find_map(|l| {
        l.match_indices("ns ").find_map(|(i, _)| {
            let d = digits(&l[i + 3..]);
            let ok = !l[..i].chars().next_back().is_some_and(is_word) && d >= 5 && l[i + 3 + d..].starts_with(" rank");
            ok.then(|| l[i + 3..i + 3 + d].to_string())
        })
    });
    let mut lines: Vec<String> = out
        .lines()
        .map(|l| {
            let mut l = l.to_string();
            if let Some(ns) = &ns {
                l = rewrite(&l, "NS", |_, rest| (rest.starts_with(ns.as_str()) && word_at(rest, 0, ns)).then_some(ns.len()));
            }
            l = rewrite(&l, "TMP", |_, rest| rest.starts_with("/tmp/").then(|| 5 + rest[5..].chars().take_while(|c| *c != ' ').map(char::len_utf8).sum::<usize>()));
            if !host.is_empty() {
                l = rewrite(&l, "HOST", |prev, rest| (rest.starts_with(host.as_str()) && !prev.is_some_and(is_word) && !rest[host.len()..].chars().next().is_some_and(is_word)).then_some(host.len()));
            }
            l = rewrite(&l, "NS", |_, rest| {
                let r = rest.strip_prefix("rpmixrun.")?;
                let a = digits(r);
                let b = digits(r.get(a + 1..)?);
                (a > 0 && r[a..].starts_with('.') && b > 0).then_some(9 + a + 1 + b)
            });
            l = rewrite(&l, "NS", |_, rest| {
                rest.strip_prefix("prterun-").map(|r| 8 + r.chars().take_while(|c| c.is_ascii_alphanumeric() || "_.-".contains(*c)).count())
            });
            l = rewrite(&l, "NS", |prev, rest| {
                let d = digits(rest);
                (d >= 8 && !prev.is_some_and(is_word) && !rest[d..].chars().next().is_some_and(is_word)).then_some(d)
            });
            l = rewrite(&l, "pid PID", |_, rest| rest.strip_prefix("pid ").map(digits).filter(|&d| d > 0).map(|d| 4 + d));
            if let Some(rest) = l.strip_prefix("Client ") {
                let d = digits(rest);
                if d > 0 && rest[d..].starts_with(": Running") {
                    l = format!("Client PID{}", &rest[d..]);
                }
            }
            if let Some(rest) = l.strip_prefix('[') {
                let d = digits(rest);
                if d > 0 && rest[d..].starts_with("] ") {
                    l = format!("[PID] {}", &rest[d + 2..]);
                }
            }
            l = rewrite(&l, "[HOST:PID]", |_, rest| {
                let r = rest.strip_prefix("[HOST:")?;
                let d = digits(r);
                (d > 0 && r[d..].starts_with(']')).then_some(6 + d + 1)
            });
            l = rewrite(&l, "ref=N", |_, rest| rest.strip_prefix("ref=").map(digits).filter(|&d| d > 0).map(|d| 4 + d));
            l = rewrite(&l, "[[JOB]]", |_, rest| {
                let r = rest.strip_prefix("[[")?;
                let a = digits(r);
                let r2 = r[a..].strip_prefix(',')?;
                let b = digits(r2);
                let r3 = r2[b..].strip_prefix("],")?;
                let c = digits(r3);
                (a > 0 && b > 0 && c > 0 && r3[c..].starts_with(']')).then_some(2 + a + 1 + b + 2 + c + 1)
            });
            rewrite(&l, "N ms", |_, rest| {
                let d = digits(rest);
                (d > 0 && rest[d..].starts_with(" ms") && !rest[d + 3..].chars().next().is_some_and(is_word)).then_some(d + 3)
            })
        })
        .collect();
    lines.sort();
    lines
}

/// `ex` under `host`: see the section's comment.
fn example_case(host: &str, name: &str) {
    let ex = EXAMPLES.iter().find(|e| e.0 == name).expect("an example of the table");
    let case = Case::new(&format!("examples_{host}_{name}"));
    example_dir(&case);
    let said = |w: &[String]| if w.is_empty() { "pass".to_string() } else { w.join("; ") };
    if host == "pmixrun" {
        // (alloc: see the section's comment)
        let strict = name == "alloc";
        let ref_host = if strict { "pmixrun" } else { "mpirun" };
        let (reference, ref_why) = example_lib(&case, ref_host, Lib::OpenPmix, ex);
        let (r, why) = example_lib(&case, "pmixrun", Lib::Ours, ex);
        if why.is_empty() {
            let (a, b) = (normalise(&reference.stdout), normalise(&r.stdout));
            if a != b && strict && ref_why.is_empty() {
                let only: Vec<String> = a.iter().filter(|l| !b.contains(l)).map(|l| format!("< {l}")).chain(b.iter().filter(|l| !a.contains(l)).map(|l| format!("> {l}"))).take(4).collect();
                panic!("{}", r.report(&format!("rpmix: output differs from OpenPMIx's ranks' under pmixrun: {only:?}")));
            }
            if a != b {
                println!("(differs from OpenPMIx under {ref_host}: information only)");
            }
            // (OpenPMIx's ranks are served by pmixrun too: their failure is rpmix's server's)
            assert!(!strict || ref_why.is_empty(), "{}", reference.report(&format!("OpenPMIx's ranks under pmixrun: {}", said(&ref_why))));
            return;
        }
        if !ref_why.is_empty() && !strict {
            skip(&case.name, &format!("fails on both (reference: OpenPMIx under mpirun): {} (rpmix: {})", example_both_reason(host, name), said(&why)));
            return;
        }
        panic!("{}", r.report(&format!("rpmix: {}", said(&why))));
    }
    let (theirs, their_why) = example_lib(&case, host, Lib::OpenPmix, ex);
    let (ours, mut why) = example_lib(&case, host, Lib::Ours, ex);
    if why.is_empty() && their_why.is_empty() {
        // (server.c's own "FINALIZED" lines depend on its wakeup race)
        let norm = |r: &Run| normalise(&r.stdout).into_iter().filter(|l| !l.starts_with("SERVER: FINALIZED")).collect::<Vec<_>>();
        let (a, b) = (norm(&theirs), norm(&ours));
        if a != b {
            let only: Vec<String> = a.iter().filter(|l| !b.contains(l)).map(|l| format!("< {l}")).chain(b.iter().filter(|l| !a.contains(l)).map(|l| format!("> {l}"))).take(4).collect();
            why.push(format!("output differs from OpenPMIx's: {only:?}"));
        }
    }
    if why.is_empty() {
        return;
    }
    if !their_why.is_empty() {
        skip(&case.name, &format!("fails on both: {} (OpenPMIx: {}; rpmix: {})", example_both_reason(host, name), said(&their_why), said(&why)));
        return;
    }
    panic!("{}", ours.report(&format!("rpmix: {}", said(&why))));
}

/// The built server.c imports no lower-case pmix_* symbol (only the
/// public API: its internals come from our shim).
#[test]
fn examples_server_public_api() {
    let r = run(Cmd::new("nm").args(["-D", "--undefined-only"]).arg(c_prog("server", Build::OpenPmixExample)), secs(60)).ok();
    let internal: Vec<&str> = r.lines().into_iter().filter(|l| l.split_whitespace().last().is_some_and(|n| n.starts_with("pmix_"))).collect();
    assert!(internal.is_empty(), "the built server imports pmix_* internals: {internal:?}");
}

/// LD_LIBRARY_PATH=<rpmix's directory> selects rpmix's libpmix.so.2 for an
/// example (ldd).
#[test]
fn examples_rpmix_lib_selected() {
    let e = env();
    let r = run(Cmd::new("ldd").arg(c_prog("hello", Build::OpenPmixExample)).on(Lib::Ours), secs(60)).ok();
    let want = format!("libpmix.so.2 => {}", e.lib.display());
    assert!(r.stdout.contains(&want), "{}", r.report(&format!("no '{want}'")));
}

/// The normalisation, as the driver's sed script did it.
#[test]
fn examples_normalise() {
    let h = hostname();
    let out = format!(
        "Client ns 12345678 rank 0 pid 4242: Running on {h}\n[{h}:77] x\nref=12 took 35 ms\n[[1234,1],0] at /tmp/rpmix-oex.ab/x y\nrpmixrun.99.1 prterun-a.b-1@2\nns 54321 rank 1\n[9] z 54321\nClient 31: Running"
    );
    let want = [
        "Client PID: Running",
        "Client ns NS rank 0 pid PID: Running on HOST",
        "NS NS@2",
        "[HOST:PID] x",
        "[PID] z 54321",
        "[[JOB]] at TMP y",
        "ns 54321 rank 1",
        "ref=N took N ms",
    ];
    assert_eq!(normalise(&out), want);
}

/// OpenPMIx's examples: name, ranks, time limit (s), any exit but a time-out (else 0), completion line, how many.
const EXAMPLES: [(&str, usize, u64, bool, &str, usize); 22] = [
    ("hello", 2, 10, false, "PMIx_Finalize.successfully.completed", 2),
    ("nodeinfo", 2, 10, false, "PMIx_Finalize.successfully.completed", 2),
    ("client", 2, 10, false, "PMIx_Finalize.successfully.completed", 2),
    ("client2", 2, 10, false, "PMIx_Finalize.successfully.completed", 2),
    ("dmodex", 2, 10, false, "rank.0:PMIx_Finalize.successfully", 1),
    ("pub", 2, 10, false, "UNPUBLISH.SUCCEEDED", 1),
    ("pubi", 2, 10, false, "UNPUBLISH.SUCCEEDED", 1),
    ("log", 2, 8, false, "PMIx_Finalize.successfully.completed", 2),
    ("jctrl", 2, 10, false, "PMIx_Finalize.successfully.completed", 2),
    ("dynamic", 2, 8, false, "PMIx_Finalize.successfully.completed", 4),
    ("alloc", 2, 5, false, "PMIx_Finalize.successfully.completed", 2),
    ("fault", 2, 8, true, "DEBUGGER.DAEMON.NOTIFIED.TERMINATED", 1),
    ("bad_exit", 2, 10, true, "rank.1:PMIx_Finalize.successfully", 1),
    ("abi_no_init", 2, 10, false, "ABI..Stable", 2),
    ("abi_with_init", 2, 10, false, "Namespaces:", 2),
    ("group", 4, 10, false, "Group.construct.complete", 3),
    ("group_dmodex", 4, 10, false, ":[0-9]+.COMPLETE", 4),
    ("group_lcl_cid", 4, 10, false, "PMIx_Get.LOCAL.CID.for.rank.*SUCCESS", 16),
    ("asyncgroup", 4, 8, false, ":[0-9]+.COMPLETE", 4),
    ("tool", 1, 5, false, "ACTIVE.NSPACES", 1),
    ("launcher", 1, 5, false, ".", 0),
    ("debugger", 1, 5, false, ".", 0),
];

#[test]
fn examples_server_hello() {
    example_case("server", "hello");
}
#[test]
fn examples_mpirun_hello() {
    example_case("mpirun", "hello");
}
#[test]
fn examples_pmixrun_hello() {
    example_case("pmixrun", "hello");
}
#[test]
fn examples_server_nodeinfo() {
    example_case("server", "nodeinfo");
}
#[test]
fn examples_mpirun_nodeinfo() {
    example_case("mpirun", "nodeinfo");
}
#[test]
fn examples_pmixrun_nodeinfo() {
    example_case("pmixrun", "nodeinfo");
}
#[test]
fn examples_server_client() {
    example_case("server", "client");
}
#[test]
fn examples_mpirun_client() {
    example_case("mpirun", "client");
}
#[test]
fn examples_pmixrun_client() {
    example_case("pmixrun", "client");
}
#[test]
fn examples_server_client2() {
    example_case("server", "client2");
}
#[test]
fn examples_mpirun_client2() {
    example_case("mpirun", "client2");
}
#[test]
fn examples_pmixrun_client2() {
    example_case("pmixrun", "client2");
}
#[test]
fn examples_server_dmodex() {
    example_case("server", "dmodex");
}
#[test]
fn examples_mpirun_dmodex() {
    example_case("mpirun", "dmodex");
}
#[test]
fn examples_pmixrun_dmodex() {
    example_case("pmixrun", "dmodex");
}
#[test]
fn examples_server_pub() {
    example_case("server", "pub");
}
#[test]
fn examples_mpirun_pub() {
    example_case("mpirun", "pub");
}
#[test]
fn examples_pmixrun_pub() {
    example_case("pmixrun", "pub");
}
#[test]
fn examples_server_pubi() {
    example_case("server", "pubi");
}
#[test]
fn examples_mpirun_pubi() {
    example_case("mpirun", "pubi");
}
#[test]
fn examples_pmixrun_pubi() {
    example_case("pmixrun", "pubi");
}
#[test]
fn examples_server_log() {
    example_case("server", "log");
}
#[test]
fn examples_mpirun_log() {
    example_case("mpirun", "log");
}
#[test]
fn examples_pmixrun_log() {
    example_case("pmixrun", "log");
}
#[test]
fn examples_server_jctrl() {
    example_case("server", "jctrl");
}
#[test]
fn examples_mpirun_jctrl() {
    example_case("mpirun", "jctrl");
}
#[test]
fn examples_pmixrun_jctrl() {
    example_case("pmixrun", "jctrl");
}
#[test]
fn examples_server_dynamic() {
    example_case("server", "dynamic");
}
#[test]
fn examples_mpirun_dynamic() {
    example_case("mpirun", "dynamic");
}
#[test]
fn examples_pmixrun_dynamic() {
    example_case("pmixrun", "dynamic");
}
#[test]
fn examples_server_alloc() {
    example_case("server", "alloc");
}
#[test]
fn examples_mpirun_alloc() {
    example_case("mpirun", "alloc");
}
#[test]
fn examples_pmixrun_alloc() {
    example_case("pmixrun", "alloc");
}
#[test]
fn examples_server_fault() {
    example_case("server", "fault");
}
#[test]
fn examples_mpirun_fault() {
    example_case("mpirun", "fault");
}
#[test]
fn examples_pmixrun_fault() {
    example_case("pmixrun", "fault");
}
#[test]
fn examples_server_bad_exit() {
    example_case("server", "bad_exit");
}
#[test]
fn examples_mpirun_bad_exit() {
    example_case("mpirun", "bad_exit");
}
#[test]
fn examples_pmixrun_bad_exit() {
    example_case("pmixrun", "bad_exit");
}
#[test]
fn examples_server_abi_no_init() {
    example_case("server", "abi_no_init");
}
#[test]
fn examples_mpirun_abi_no_init() {
    example_case("mpirun", "abi_no_init");
}
#[test]
fn examples_pmixrun_abi_no_init() {
    example_case("pmixrun", "abi_no_init");
}
#[test]
fn examples_server_abi_with_init() {
    example_case("server", "abi_with_init");
}
#[test]
fn examples_mpirun_abi_with_init() {
    example_case("mpirun", "abi_with_init");
}
#[test]
fn examples_pmixrun_abi_with_init() {
    example_case("pmixrun", "abi_with_init");
}
#[test]
fn examples_server_group() {
    example_case("server", "group");
}
#[test]
fn examples_mpirun_group() {
    example_case("mpirun", "group");
}
#[test]
fn examples_pmixrun_group() {
    example_case("pmixrun", "group");
}
#[test]
fn examples_server_group_dmodex() {
    example_case("server", "group_dmodex");
}
#[test]
fn examples_mpirun_group_dmodex() {
    example_case("mpirun", "group_dmodex");
}
#[test]
fn examples_pmixrun_group_dmodex() {
    example_case("pmixrun", "group_dmodex");
}
#[test]
fn examples_server_group_lcl_cid() {
    example_case("server", "group_lcl_cid");
}
#[test]
fn examples_mpirun_group_lcl_cid() {
    example_case("mpirun", "group_lcl_cid");
}
#[test]
fn examples_pmixrun_group_lcl_cid() {
    example_case("pmixrun", "group_lcl_cid");
}
#[test]
fn examples_server_asyncgroup() {
    example_case("server", "asyncgroup");
}
#[test]
fn examples_mpirun_asyncgroup() {
    example_case("mpirun", "asyncgroup");
}
#[test]
fn examples_pmixrun_asyncgroup() {
    example_case("pmixrun", "asyncgroup");
}
#[test]
fn examples_server_tool() {
    example_case("server", "tool");
}
#[test]
fn examples_mpirun_tool() {
    example_case("mpirun", "tool");
}
#[test]
fn examples_pmixrun_tool() {
    example_case("pmixrun", "tool");
}
#[test]
fn examples_server_launcher() {
    example_case("server", "launcher");
}
#[test]
fn examples_mpirun_launcher() {
    example_case("mpirun", "launcher");
}
#[test]
fn examples_pmixrun_launcher() {
    example_case("pmixrun", "launcher");
}
#[test]
fn examples_server_debugger() {
    example_case("server", "debugger");
}
#[test]
fn examples_mpirun_debugger() {
    example_case("mpirun", "debugger");
}
#[test]
fn examples_pmixrun_debugger() {
    example_case("pmixrun", "debugger");
}
