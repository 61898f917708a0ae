//! Tools and debuggers: pmixctl, attaching, launching under a debugger.

use rpmix_systests::*;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// pmixrun with TMPDIR `t` (a case's own: see [`TmpDir`]).
fn pmixrun(t: &TmpDir) -> Cmd {
    Cmd::new(&env().pmixrun).env("TMPDIR", t)
}

/// pmixctl with TMPDIR `t`.
fn pmixctl(t: &TmpDir) -> Cmd {
    Cmd::new(&env().pmixctl).env("TMPDIR", t)
}

/// `pmixctl --pid <pid> <args>` with TMPDIR `t`.
fn ctl(t: &TmpDir, pid: u32, args: &[&str]) -> Cmd {
    pmixctl(t).arg("--pid").arg(pid.to_string()).args(args)
}

/// Both outputs together, without the last newline (as `$(cmd 2>&1)`).
fn said(r: &Run) -> String {
    format!("{}{}", r.stdout, r.stderr).trim_end_matches('\n').to_string()
}

// ---------------------------------------------------------------- pmixctl against a running job

/// `pmixctl ps` lists a running job's 2 ranks; `pmixctl output --follow`
/// shows every line the ranks printed: those before it attached (3 each,
/// kept by pmixrun), then the live ones (3 more each, printed once the
/// tool has shown the first ones) until the job ends; pmixrun prints the
/// same lines.
#[test]
fn pmixctl_ps_and_output() {
    let t = TmpDir::new("ctl");
    let case = Case::new("pmixctl_ps_and_output");
    let go = case.path("go");
    let script = format!(
        "for i in 1 2 3; do echo \"r$PMIX_RANK line $i\"; done; \
         while [ ! -e '{}' ]; do sleep 0.05; done; \
         for i in 4 5 6; do echo \"r$PMIX_RANK line $i\"; done",
        go.display()
    );
    let job = Job::start(pmixrun(&t).args(["-n", "2", "sh", "-c"]).arg(script));
    let pid = job.pid();
    // (each rank's third line, in whichever order they come)
    let mut third = std::collections::BTreeSet::new();
    while third.len() < 2 {
        third.insert(job.wait_line("'r<rank> line 3'", secs(60), |l| l.ends_with(" line 3")).unwrap());
    }
    let ps = run(ctl(&t, pid, &["ps"]), secs(60));
    assert!(ps.stdout.contains("2 ranks"), "{}", ps.report("pmixctl ps"));
    let tool = Job::start(ctl(&t, pid, &["output", "--follow"]));
    for i in 1..=6 {
        // (the lines kept from before it attached)
        tool.wait_line(&format!("kept line ({i} of 6)"), secs(60), |l| l.starts_with('r')).unwrap();
    }
    case.write("go", "");
    let out = tool.wait(secs(120));
    let r = job.wait(secs(120));
    let want: Vec<String> = (0..2).flat_map(|rank| (1..=6).map(move |i| format!("r{rank} line {i}"))).collect();
    let sorted = |s: &str| {
        let mut l: Vec<String> = s.lines().map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(sorted(&out.stdout), want, "{}", out.report("the tool's output"));
    assert_eq!(sorted(&r.stdout), want, "{}", r.report("pmixrun's output"));
}

/// `pmixctl pause --rank 1` stops rank 1 only, `resume` resumes it, and
/// `signal TERM` ends the job: pmixrun exits 143.
#[test]
fn pmixctl_pause_resume_signal() {
    let t = TmpDir::new("ctl");
    let job = Job::start(pmixrun(&t).args(["-n", "2", "sleep", "600"]));
    let pid = job.pid();
    wait_children_running(pid, 2, "sleep", secs(60)).unwrap();
    wait_child_states(pid, "SS", secs(60)).unwrap();
    run(ctl(&t, pid, &["pause", "--rank", "1"]), secs(60)).ok();
    wait_child_states(pid, "ST", secs(30)).expect("after pause --rank 1");
    run(ctl(&t, pid, &["resume"]), secs(60)).ok();
    wait_child_states(pid, "SS", secs(30)).expect("after resume");
    run(ctl(&t, pid, &["signal", "TERM"]), secs(60)).ok();
    job.wait(secs(60)).exit_code(143);
}

/// `pmixctl stdin` feeds the ranks' standard input (`--stdin all`) while
/// pmixrun's own stays open and silent: both ranks read the tool's line.
#[test]
fn pmixctl_stdin() {
    let t = TmpDir::new("ctl");
    let case = Case::new("pmixctl_stdin");
    let (cmd, held) = pmixrun(&t).args(["--stdin", "all", "-n", "2", "sh", "-c", "read x; echo \"got[$x]\""]).stdin_held_open();
    let job = Job::start(cmd);
    let pid = job.pid();
    wait_children_running(pid, 2, "sh", secs(60)).unwrap();
    let input = case.write("input", "via-tool\n");
    run(ctl(&t, pid, &["stdin"]).stdin_file(&input), secs(60)).ok();
    let r = job.wait(secs(120));
    drop(held);
    r.save(&case, "job");
    assert_eq!(r.stdout.lines().filter(|l| l.contains("got[via-tool]")).count(), 2, "{}", r.report("stdin through the tool"));
}

// ---------------------------------------------------------------- process sets

/// Process sets: two app contexts with `--pset`, then a set defined and
/// deleted by pmixctl while the job runs (c-tests/client_psets.c). pmixctl
/// refuses a set of a rank that does not run, a name with ',' and deleting
/// a set never defined; every rank sees the queries' answers, the events
/// and PMIX_PSET_NAMES, in order.
#[test]
fn pmixctl_pset() {
    let t = TmpDir::new("ctl");
    let case = Case::new("pmixctl_pset");
    let prog = c_prog("client_psets", Build::Ours);
    let job = Job::start(
        pmixrun(&t)
            .args(["--timeout", "90", "-n", "2", "--pset", "first"])
            .arg(&prog)
            .args(["wait", ":", "-n", "2", "--pset", "second"])
            .arg(&prog)
            .arg("wait")
            .on(Lib::Ours),
    );
    let pid = job.pid();
    // (the ranks say when their handlers are registered)
    for i in 1..=4 {
        job.wait_line(&format!("'ready' ({i} of 4)"), secs(60), |l| l.ends_with(": ready")).unwrap();
    }
    for (args, want) in [
        (["define", "bad", "0,7"].as_slice(), "pmixctl: pset define bad: NOT-FOUND"),
        (&["define", "a,b", "0"], "pmixctl: pset define a,b: BAD-PARAM"),
        (&["delete", "nosuch"], "pmixctl: pset delete nosuch: NOT-FOUND"),
    ] {
        let r = run(ctl(&t, pid, &["pset"]).args(args), secs(60));
        assert_eq!(said(&r), want, "{}", r.report("a refused pset request"));
    }
    run(ctl(&t, pid, &["pset", "define", "dyn", "0,3"]), secs(60)).ok();
    // (deleted once every rank has listed it)
    for i in 1..=4 {
        job.wait_line(&format!("'listed' ({i} of 4)"), secs(60), |l| l.ends_with(": listed")).unwrap();
    }
    run(ctl(&t, pid, &["pset", "delete", "dyn"]), secs(60)).ok();
    let r = job.wait(secs(150));
    r.save(&case, "job");
    let r = r.ok();
    for rank in 0..4 {
        let own = if rank < 2 { "first" } else { "second" };
        let inside = if rank == 0 || rank == 3 { format!("{own},dyn") } else { own.to_string() };
        let want: Vec<String> = [
            format!("own {own}"),
            "psets 2 first,second".into(),
            "members first 0,1".into(),
            "members second 2,3".into(),
            "ready".into(),
            "defined dyn 0,3".into(),
            format!("in {inside}"),
            "psets 3 first,second,dyn".into(),
            "members first 0,1".into(),
            "members second 2,3".into(),
            "members dyn 0,3".into(),
            "listed".into(),
            "deleted dyn".into(),
            "psets 2 first,second".into(),
            "members first 0,1".into(),
            "members second 2,3".into(),
        ]
        .iter()
        .map(|l| format!("rank {rank}: {l}"))
        .collect();
        let prefix = format!("rank {rank}: ");
        let got: Vec<&str> = r.all_lines().into_iter().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(got, want, "what rank {rank} saw");
    }
}

// ---------------------------------------------------------------- session control

/// Session control (PMIx_Session_control) of a job of two app contexts:
/// `session pause` stops every rank, `session resume` resumes them,
/// `session terminate` ends them: pmixrun exits 143.
#[test]
fn pmixctl_session_pause_resume_terminate() {
    let t = TmpDir::new("ctl");
    let job = Job::start(pmixrun(&t).args(["-n", "1", "sleep", "600", ":", "-n", "1", "sleep", "600"]));
    let pid = job.pid();
    wait_children_running(pid, 2, "sleep", secs(60)).expect("the ranks did not start");
    wait_child_states(pid, "SS", secs(60)).unwrap();
    run(ctl(&t, pid, &["session", "pause"]), secs(60)).ok();
    wait_child_states(pid, "TT", secs(30)).expect("after session pause");
    run(ctl(&t, pid, &["session", "resume"]), secs(60)).ok();
    wait_child_states(pid, "SS", secs(30)).expect("after session resume");
    run(ctl(&t, pid, &["session", "terminate"]), secs(60)).ok();
    job.wait(secs(60)).exit_code(143);
}

/// `session signal USR1` reaches every rank: pmixrun exits 128 + 10.
#[test]
fn pmixctl_session_signal() {
    let t = TmpDir::new("ctl");
    let job = Job::start(pmixrun(&t).args(["-n", "2", "sleep", "600"]));
    let pid = job.pid();
    wait_children_running(pid, 2, "sleep", secs(60)).expect("the ranks did not start");
    wait_child_states(pid, "SS", secs(60)).unwrap();
    run(ctl(&t, pid, &["session", "signal", "USR1"]), secs(60)).ok();
    job.wait(secs(60)).exit_code(128 + 10);
}

/// A persistent pmixrun: `session terminate` ends the job it runs (started
/// by `pmixctl run`, which then fails) and the server goes on; `pmixctl
/// stop` ends it with 0.
#[test]
fn pmixctl_session_persistent() {
    let t = TmpDir::new("ctl");
    let server = Job::start(pmixrun(&t).arg("--persistent"));
    let p = server.pid();
    wait_until("the persistent pmixrun answers 'runs no job'", secs(60), || {
        said(&run(ctl(&t, p, &["ps"]), secs(30))).contains("runs no job")
    })
    .unwrap();
    let job = Job::start(ctl(&t, p, &["run", "-n", "2", "sleep", "600"]));
    wait_until("2 ranks under the persistent pmixrun", secs(60), || children(p).len() == 2).unwrap();
    run(ctl(&t, p, &["session", "terminate"]), secs(60)).ok();
    let r = job.wait(secs(60));
    assert!(!r.timed_out && !r.success(), "{}", r.report("pmixctl run: its job did not fail after session terminate"));
    assert!(!proc_ended(p), "the persistent pmixrun ended with its job");
    run(ctl(&t, p, &["stop"]), secs(60)).ok();
    server.wait(secs(60)).exit_code(0);
}

// ---------------------------------------------------------------- allocations

/// PMIx_Allocation_request from a rank: pmixrun grants this node's CPUs
/// (new, extend, release; a new allocation named by the requester) and
/// refuses more than it has, with the reason (`rpmix.reason`); the rank
/// hears PMIX_NOTIFY_ALLOC_COMPLETE after each request (its id and status)
/// and PMIX_QUERY_ALLOC_STATUS reports each id's outcome (NOT_FOUND for an
/// unknown one); a refused PMIx_Session_control carries its reason too
/// (c-tests/client_alloc.c).
#[test]
fn pmixrun_allocation_requests() {
    let t = TmpDir::new("ctl");
    let prog = c_prog("client_alloc", Build::Ours);
    let r = run(pmixrun(&t).args(["-n", "1"]).arg(prog).on(Lib::Ours), secs(120)).ok();
    let clean = |l: &&str| {
        l.strip_prefix("client_alloc: ")
            .and_then(|rest| rest.strip_suffix(" passed, 0 failed"))
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    };
    assert!(r.all_lines().iter().any(clean), "{}", r.report("no clean summary"));
}

// ---------------------------------------------------------------- pmixctl info

/// The values of `pmixctl info`'s lines `<key>:` (what follows the colon
/// and its spaces).
fn field<'a>(out: &'a str, key: &str) -> Vec<&'a str> {
    out.lines().filter_map(|l| l.strip_prefix(key)?.strip_prefix(':').map(|v| v.trim_start_matches(' '))).collect()
}

/// The rendezvous file for tools a server of pid `pid` writes in TMPDIR `t`.
fn rendezvous(t: &TmpDir, pid: u32) -> PathBuf {
    t.path().join(format!("pmix.{}.tool.{pid}", hostname()))
}

/// Waits until the server of pid `pid` has written its rendezvous file.
fn wait_rendezvous(t: &TmpDir, pid: u32) {
    let rv = rendezvous(t, pid);
    wait_until(&format!("the rendezvous file {}", rv.display()), secs(60), || rv.exists()).unwrap();
}

/// `pmixctl info` with `TMPDIR=<t>` (it must succeed).
fn info(t: &TmpDir) -> String {
    let r = run(pmixctl(t).arg("info"), secs(60)).ok();
    r.stdout
}

/// This process's uid.
fn uid() -> u32 {
    // SAFETY: getuid(2) has no arguments and cannot fail.
    unsafe { libc::getuid() }
}

/// `pmixctl info` with no server: the library's own version (what
/// PMIx_Get_version answers) and file, the ABI (OpenPMIx 4.2.2's and the
/// functions of newer releases), this machine's features (hwloc, Yama's
/// ptrace scope and so whether stop on exec is offered), no server.
#[test]
fn pmixctl_info_library_and_machine() {
    let e = env();
    let t = TmpDir::new("ctl");
    let out = info(&t);
    let show = format!("pmixctl info said:\n{out}");
    let version = run(
        Cmd::new("python3").args([
            "-c",
            "import ctypes, sys\nl = ctypes.CDLL(sys.argv[1]); l.PMIx_Get_version.restype = ctypes.c_char_p\nprint(l.PMIx_Get_version().decode())",
        ])
        .arg(&e.lib),
        secs(60),
    )
    .ok();
    assert_eq!(field(&out, "version").join("\n"), version.stdout.trim_end_matches('\n'), "version: not PMIx_Get_version's; {show}");
    let lib = std::fs::canonicalize(&e.libdir).expect("the library's directory").join("libpmix.so.2");
    assert_eq!(field(&out, "library").join("\n"), lib.to_string_lossy(), "library; {show}");
    assert!(field(&out, "ABI").iter().any(|v| v.starts_with("OpenPMIx 4.2.2 ")), "ABI; {show}");
    let newer = std::fs::read_to_string(e.root.join("tools/exports-newer.txt")).expect("tools/exports-newer.txt");
    let n = newer.lines().filter(|l| !l.starts_with('#')).count();
    let additions = format!("the {n} functions OpenPMIx 4.2.3 to 5.0.9");
    assert!(field(&out, "ABI additions").iter().any(|v| v.starts_with(&additions)), "ABI additions (want '{additions}'); {show}");
    let ldconfig = run(Cmd::new("ldconfig").arg("-p"), secs(60));
    let hwloc = if ldconfig.stdout.contains("libhwloc.so.15 ") { "yes" } else { "no" };
    assert!(field(&out, "hwloc").iter().any(|v| v.starts_with(hwloc)), "hwloc (want {hwloc}); {show}");
    let scope = std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope").map(|s| s.trim().to_string()).unwrap_or_default();
    let stop = field(&out, "stop on exec");
    if !scope.is_empty() {
        let yama = format!("(Yama ptrace_scope {scope})");
        assert!(out.lines().any(|l| l.starts_with("stop on exec: ") && l.contains(&yama)), "stop on exec (want {yama}); {show}");
    }
    // (what pmixrun's queries say: stop on exec is offered when PTRACE_TRACEME is)
    let offered = if scope == "3" { "no" } else { "yes" };
    assert!(stop.iter().any(|v| v.starts_with(offered)), "stop on exec (want {offered}); {show}");
    assert!(field(&out, "servers").contains(&"0"), "servers in an empty TMPDIR; {show}");
}

/// Whether `pmixctl info` lists `pid` with a line starting
/// `  pid <pid> pmixrun uid <uid> ` and then saying `what`.
fn lists(out: &str, pid: u32, uid: u32, what: &str) -> bool {
    let start = format!("  pid {pid} pmixrun uid {uid} ");
    out.lines().any(|l| l.strip_prefix(&start).is_some_and(|rest| rest.contains(what)))
}

/// `pmixctl info` lists this node's servers by pid: a persistent pmixrun
/// (the system server) and a job's pmixrun; one killed with SIGKILL (its
/// files left behind) is not listed; after `pmixctl stop` none is.
#[test]
fn pmixctl_info_servers() {
    let t = TmpDir::new("ctl");
    let persistent = Job::start(pmixrun(&t).arg("--persistent"));
    let job = Job::start(pmixrun(&t).args(["-n", "1", "sleep", "600"]));
    let (p, q) = (persistent.pid(), job.pid());
    wait_rendezvous(&t, p);
    wait_rendezvous(&t, q);
    wait_children_running(q, 1, "sleep", secs(60)).unwrap();
    let out = info(&t);
    assert!(
        field(&out, "servers").contains(&"2")
            && lists(&out, p, uid(), "rpmix: system server, tool support")
            && lists(&out, q, uid(), &format!("rpmix: tool support, namespace rpmixrun.{q}")),
        "info with two servers ({p}, {q}):\n{out}"
    );
    // a server killed with SIGKILL leaves its files, which are not listed
    job.signal(libc::SIGKILL);
    job.wait(secs(60));
    let out = info(&t);
    assert!(
        field(&out, "servers").contains(&"1") && out.lines().any(|l| l.starts_with(&format!("  pid {p} "))),
        "info after SIGKILL of {q}:\n{out}"
    );
    run(pmixctl(&t).arg("stop"), secs(60)).ok();
    persistent.wait(secs(60));
    let out = info(&t);
    assert!(field(&out, "servers").contains(&"0"), "info after stop:\n{out}");
}

/// Root's `pmixctl info` lists another user's server too (its rendezvous
/// files, its owner): a job's pmixrun run by `nobody`, beside a persistent
/// pmixrun of root's.
#[test]
fn pmixctl_info_other_users_server() {
    if !is_root() {
        skip("pmixctl_info_other_users_server", "needs root (to run a server as nobody)");
        return;
    }
    let id = run(Cmd::new("id").args(["-u", "nobody"]), secs(30));
    if !id.success() {
        skip("pmixctl_info_other_users_server", "no user nobody");
        return;
    }
    let nobody: u32 = id.stdout.trim().parse().expect("nobody's uid");
    let t = TmpDir::new("ctl");
    // nobody reaches the TMPDIR and a copy of pmixrun there
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let copy = t.path().join("pmixrun");
    std::fs::copy(&env().pmixrun, &copy).expect("a copy of pmixrun");
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let persistent = Job::start(pmixrun(&t).arg("--persistent"));
    let theirs = Job::start(Cmd::new("runuser").args(["-u", "nobody", "--"]).arg(&copy).args(["-n", "1", "sleep", "600"]).env("TMPDIR", &t));
    let q = theirs.pid();
    // (runuser may run the program as its child)
    let nobodys = || children(q).into_iter().find(|&c| proc_comm(c).as_deref() == Some("pmixrun")).unwrap_or(q);
    wait_rendezvous(&t, persistent.pid());
    wait_until("nobody's pmixrun writes its rendezvous file", secs(60), || rendezvous(&t, nobodys()).exists()).unwrap();
    let np = nobodys();
    wait_children_running(np, 1, "sleep", secs(60)).unwrap();
    let out = info(&t);
    let listed = field(&out, "servers").contains(&"2");
    let want = format!("  pid {np} pmixrun uid {nobody} (nobody) rpmix: tool support, namespace rpmixrun.{np}");
    assert!(listed && out.lines().any(|l| l.starts_with(&want)), "info with a server of nobody's ({np}), want '{want}':\n{out}");
    // SAFETY: kill(2) on this case's pmixrun; no memory is involved.
    unsafe {
        libc::kill(np as i32, libc::SIGTERM);
    }
    theirs.wait(secs(60));
    run(pmixctl(&t).arg("stop"), secs(60)).ok();
    persistent.wait(secs(60));
}

// ---------------------------------------------------------------- tools attaching

/// A running pmixrun with `ranks` ranks of `sleep <secs>`, on rpmix's
/// library, with TMPDIR `t`, once its rendezvous file and ranks are there;
/// and the path of that file.
fn server(t: &TmpDir, ranks: u32, sleep: u32) -> (Job, PathBuf) {
    let job = Job::start(pmixrun(t).arg("-n").arg(ranks.to_string()).arg("sleep").arg(sleep.to_string()).on(Lib::Ours));
    let rv = rendezvous(t, job.pid());
    wait_rendezvous(t, job.pid());
    wait_children_running(job.pid(), ranks as usize, "sleep", secs(60)).unwrap();
    (job, rv)
}

/// c-tests/tool_query (on rpmix's library) with `args`, TMPDIR `t`.
fn tool_query(t: &TmpDir, args: &[&str]) -> Run {
    run(Cmd::new(c_prog("tool_query", Build::Ours)).args(args).env("TMPDIR", t).on(Lib::Ours), secs(60))
}

/// The tool attached, listed the job of 3 ranks, logged and detached.
fn found_3_ranks(r: &Run, how: &str) {
    assert!(r.success() && said(r).contains("has 3 ranks"), "{}", r.report(&format!("a tool attaching {how}")));
}

/// A tool attaches to pmixrun by its pid, lists its namespaces, reads the
/// job's size (3 ranks), logs through it and detaches.
#[test]
fn tool_attach_by_pid() {
    let t = TmpDir::new("ctl");
    let (job, _) = server(&t, 3, 600);
    found_3_ranks(&tool_query(&t, &[&job.pid().to_string()]), "by pid");
}

/// The same, through the rendezvous file pmixrun wrote.
#[test]
fn tool_attach_by_rendezvous_file() {
    let t = TmpDir::new("ctl");
    let (_job, rv) = server(&t, 3, 600);
    found_3_ranks(&tool_query(&t, &[&rv.to_string_lossy()]), "by its rendezvous file");
}

/// The same, by the server's namespace (PMIX_SERVER_NSPACE).
#[test]
fn tool_attach_by_namespace() {
    let t = TmpDir::new("ctl");
    let (job, _) = server(&t, 3, 600);
    found_3_ranks(&tool_query(&t, &[&format!("ns:rpmixrun.{}", job.pid())]), "by namespace");
}

/// The same, looking for a system server first (there is none), then by pid.
#[test]
fn tool_attach_system_server_first() {
    let t = TmpDir::new("ctl");
    let (job, _) = server(&t, 3, 600);
    found_3_ranks(&tool_query(&t, &[&format!("sysfirst:{}", job.pid())]), "system server first, then by pid");
}

/// Retries: the rendezvous file appears 1.5 s after the tool started (5
/// retries, 1 s apart), and the tool attaches.
#[test]
fn tool_attach_retries() {
    let case = Case::new("tool_attach_retries");
    let t = TmpDir::new("ctl");
    let (_job, rv) = server(&t, 3, 600);
    let late = case.path("tool_rv");
    let copy = {
        let (from, to) = (rv.clone(), late.clone());
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            std::fs::copy(from, to)
        })
    };
    let r = tool_query(&t, &[&late.to_string_lossy(), "5"]);
    copy.join().expect("the copying thread").expect("the rendezvous file copied");
    found_3_ranks(&r, "with retries to a file that appears late");
}

/// Without retries, a rendezvous file that does not exist fails at once:
/// UNREACHABLE.
#[test]
fn tool_attach_missing_file_fails() {
    let case = Case::new("tool_attach_missing_file_fails");
    let t = TmpDir::new("ctl");
    let (_job, _) = server(&t, 3, 600);
    let r = tool_query(&t, &[&case.path("tool_rv.none").to_string_lossy()]);
    assert!(r.code().is_some_and(|c| c != 0) && said(&r).contains("UNREACHABLE"), "{}", r.report("a missing rendezvous file"));
}

/// A tool managing its connections (c-tests/tool_servers.c) with two
/// pmixruns: attach, two servers at once, get_servers, set_server (an event
/// handler and an IOF pull follow the switch), disconnect, re-attach,
/// connect_to_server; when the second server's job ends (on its own, a few
/// seconds in) one lost-connection event names it. At its end pmixrun
/// removes its rendezvous file.
#[test]
fn tool_attach_switch_disconnect() {
    let case = Case::new("tool_attach_switch_disconnect");
    let t = TmpDir::new("ctl");
    let prog = c_prog("tool_servers", Build::Ours);
    let (first, rv) = server(&t, 3, 600);
    let (second, _) = server(&t, 1, 5);
    let r = run(Cmd::new(prog).arg(first.pid().to_string()).arg(second.pid().to_string()).env("TMPDIR", &t).on(Lib::Ours), secs(120));
    r.save(&case, "tool_servers");
    println!("{}{}", r.stdout, r.stderr);
    // done with the first server (it would sleep on)
    first.signal(libc::SIGTERM);
    let (first, second) = (first.wait(secs(60)), second.wait(secs(60)));
    r.ok();
    assert!(!rv.exists(), "pmixrun left its rendezvous file {}\n{}\n{}", rv.display(), first.report("first"), second.report("second"));
}

// ---------------------------------------------------------------- tools that launch jobs
//
// A persistent pmixrun (the node's system server, in a TMPDIR of the
// case's own) and tools that start jobs through it: c-tests/tool_launch.c,
// pmixctl run, OpenPMIx's example tools (on rpmix's library unless said).

/// A persistent pmixrun (`--persistent -v`) in a TMPDIR of its own, which
/// is also its system TMPDIR; its output (both streams) is its log. Every
/// process it starts inherits `LAUNCH_MARKER=<marker>` (its environment
/// alone carries it): dropping it ends the launcher and whatever carries
/// the marker.
struct Launcher {
    t: TmpDir,
    job: Option<Job>,
    marker: String,
}

impl Launcher {
    fn start(case: &Case) -> Launcher {
        let t = TmpDir::new("launch");
        let marker = new_marker(&case.name);
        let e = env();
        let job = Job::start(
            merged([e.pmixrun.as_os_str(), std::ffi::OsStr::new("--persistent"), std::ffi::OsStr::new("-v")])
                .env("TMPDIR", &t)
                .env("PMIX_SYSTEM_TMPDIR", &t)
                .env("LAUNCH_MARKER", &marker)
                .on(Lib::Ours),
        );
        let l = Launcher { t, job: Some(job), marker };
        let rv = l.rendezvous();
        wait_until(&format!("the system rendezvous file {}", rv.display()), secs(10), || rv.exists())
            .unwrap_or_else(|e| panic!("{e}\n{}", l.log()));
        l
    }
    /// Its system rendezvous file.
    fn rendezvous(&self) -> PathBuf {
        self.t.path().join(format!("pmix.sys.{}", hostname()))
    }
    /// A tool (or any program) of this launcher's node, on rpmix's library.
    fn cmd(&self, prog: impl AsRef<std::ffi::OsStr>) -> Cmd {
        Cmd::new(prog).env("TMPDIR", &self.t).env("PMIX_SYSTEM_TMPDIR", &self.t).on(Lib::Ours)
    }
    /// `pmixctl <args>`.
    fn pmixctl(&self, args: &[&str]) -> Cmd {
        self.cmd(&env().pmixctl).args(args)
    }
    fn job(&self) -> &Job {
        self.job.as_ref().expect("the launcher runs")
    }
    /// Its log so far.
    fn log(&self) -> String {
        self.job().stdout_so_far()
    }
    /// Its log's lines after the first `from`.
    fn lines_after(&self, from: usize) -> Vec<String> {
        self.log().lines().skip(from).map(str::to_string).collect()
    }
    /// How many lines its log has.
    fn nlines(&self) -> usize {
        self.log().lines().count()
    }
    /// Waits until a line of its log satisfies `pred`.
    fn wait_log(&self, what: &str, limit: std::time::Duration, pred: impl Fn(&str) -> bool) -> Result<(), String> {
        wait_until(what, limit, || self.log().lines().any(&pred))
    }
    /// Pids of the live processes carrying its marker in their environment.
    fn marked(&self) -> Vec<u32> {
        pids_with_env("LAUNCH_MARKER", &self.marker)
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        drop(self.job.take());
        kill_with_env("LAUNCH_MARKER", &self.marker);
    }
}

/// A line of `lines` starting with `prefix`.
fn has_line_starting(lines: &str, prefix: &str) -> bool {
    lines.lines().any(|l| l.starts_with(prefix))
}


/// c-tests/tool_launch.c spawns 4 ranks of c-tests/debug_rank.c (64 KiB
/// each, exit code 5) with their output forwarded to it, held for a
/// debugger (`env`: how, see tool_launch.c): every rank waits (in init, or
/// on exec), nothing is written before the release, each rank's stdout
/// arrives whole with its stderr line, and the job-end event carries exit
/// code 5. Returns the launcher, or `None` when the case was skipped.
fn tool_debug(name: &str, env_add: &[(&str, String)]) -> Option<(Case, Launcher)> {
    let case = Case::new(name);
    let l = Launcher::start(&case);
    let mut cmd = l.cmd(c_prog("tool_launch", Build::Ours)).arg("4").arg(c_prog("debug_rank", Build::Ours)).args(["64", "5"]);
    for (k, v) in env_add {
        cmd = cmd.env(k, v);
    }
    // (stdout holds the job's output alone; the tool's lines go to stderr)
    let r = run(cmd, secs(40));
    r.save(&case, "tool_launch");
    if r.code() == Some(77) {
        skip(name, &format!("this system does not let pmixrun trace its children: {}", r.stderr.lines().last().unwrap_or("")));
        return None;
    }
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    if r.stdout.lines().next() != Some("--- released ---") {
        why.push("output before the release".to_string());
    }
    for rank in 0..4u32 {
        let got: String = r.stdout.lines().filter(|l| l.starts_with(&format!("r{rank} "))).map(|l| format!("{l}\n")).collect();
        if got != debug_rank_output(64, rank as u64) {
            why.push(format!("rank {rank}'s stdout differs"));
        }
        if !has_line_starting(&r.stderr, &format!("debug_rank {rank} done")) {
            why.push(format!("rank {rank}'s stderr line missing"));
        }
    }
    let on_exec = env_add.iter().any(|(k, v)| *k == "TOOL_LAUNCH_ON_EXEC" && v == "1");
    let place = if on_exec { "on exec" } else { "in init" };
    if !has_line_starting(&r.stderr, &format!("tool_launch: 4 ranks stopped {place}")) {
        why.push(format!("the ranks did not all stop {place}"));
    }
    if on_exec && is_root() && !has_line_starting(&r.stderr, "tool_launch: attached to 4 stopped ranks") {
        why.push("a debugger could not attach to every stopped rank".to_string());
    }
    let job_end = r.stderr.lines().any(|l| {
        l.strip_prefix("tool_launch: job ").and_then(|rest| rest.strip_suffix(" ended, exit code 5")).is_some_and(|ns| !ns.is_empty() && !ns.contains(' '))
    });
    if !job_end {
        why.push("no job-end event with exit code 5".to_string());
    }
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
    Some((case, l))
}

/// Held in init, released by the tool.
#[test]
fn launch_tool_debug() {
    tool_debug("launch_tool_debug", &[]);
}

/// The same with the release sent twice: no change.
#[test]
fn launch_release_twice() {
    tool_debug("launch_release_twice", &[("TOOL_LAUNCH_RELEASE_TWICE", "1".into())]);
}

/// Stopped on exec (PMIX_DEBUG_STOP_ON_EXEC): one READY_FOR_DEBUG names the
/// 4 ranks, each is stopped already running debug_rank, the tool attaches
/// to each with ptrace (as root) and leaves it stopped; the release
/// continues them (a skip where ptrace is refused).
#[test]
fn launch_stop_on_exec() {
    tool_debug("launch_stop_on_exec", &[("TOOL_LAUNCH_ON_EXEC", "1".into())]);
}

/// Released by debugger daemons (c-tests/debug_daemon.c,
/// PMIX_DEBUGGER_DAEMONS, one per rank by PMIX_DEBUG_DAEMONS_PER_PROC):
/// 4 daemons start, each finds its target in its job data and releases it.
#[test]
fn launch_daemons() {
    let daemon = c_prog("debug_daemon", Build::Ours);
    let started = format!("{}) as pid", daemon.display());
    let Some((_case, l)) = tool_debug("launch_daemons", &[("TOOL_LAUNCH_DAEMON", daemon.to_string_lossy().into_owned())]) else { return };
    let count = || l.log().lines().filter(|x| x.contains(&started)).count();
    // (the log is read as the launcher writes it: wait for the 4th line)
    let _ = wait_until("4 debugger daemons logged", secs(10), || count() >= 4);
    assert_eq!(count(), 4, "debugger daemons started, expected one per rank (4)\n{}", l.log());
}

/// `tool_launch <n> debug_rank 1 5` with `env_add`, on a launcher of its
/// own: the tool's exit code must be `want_rc`; then the launcher must
/// release the ranks the tool left held, and they run to their end (exit
/// code 5). `check` looks at the tool's run first.
fn tool_leaves(name: &str, nranks: u32, env_add: (&str, &str), want_rc: i32, check: impl Fn(&Run) -> Option<String>) {
    let case = Case::new(name);
    let l = Launcher::start(&case);
    let before = l.nlines();
    let cmd = l.cmd(c_prog("tool_launch", Build::Ours)).env(env_add.0, env_add.1).arg(nranks.to_string()).arg(c_prog("debug_rank", Build::Ours)).args(["1", "5"]);
    let r = run(cmd, secs(40));
    r.save(&case, "tool_launch");
    let mut why = Vec::new();
    if r.code() != Some(want_rc) {
        why.push(format!("tool exit {:?}, expected {want_rc}", r.code()));
    }
    why.extend(check(&r));
    let appns = r.stderr.lines().find_map(|x| x.strip_prefix("tool_launch: spawned ")).unwrap_or("").to_string();
    let _ = l.wait_log("the job's end", secs(10), |x| x.starts_with(&format!("pmixrun: job {appns} ended")));
    let after = l.lines_after(before);
    if !after.iter().any(|x| x.starts_with(&format!("pmixrun: job {appns}: its debugger is gone; releasing"))) {
        why.push("the launcher did not release the ranks".to_string());
    }
    let ended = after
        .iter()
        .filter(|x| {
            x.strip_prefix(&format!("pmixrun: {appns}:"))
                .and_then(|rest| rest.split_once(" exited with status 5"))
                .is_some_and(|(rank, tail)| tail.is_empty() && rank.parse::<u32>().is_ok_and(|n| n < nranks) && rank.len() == 1)
        })
        .count();
    if ended != nranks as usize {
        why.push(format!("{ended} of the {nranks} released ranks ran to their end"));
    }
    assert!(why.is_empty(), "{}\n--- launcher's log\n{}", r.report(&why.join(", ")), l.log());
}

/// Debugger daemons (/bin/false) that end without releasing the ranks held
/// in init: the tool hears their end (exit code 1) and gives up (exit 3);
/// with the tool and its daemons gone the launcher releases the ranks,
/// which run to their end.
#[test]
fn launch_daemon_exits_early() {
    tool_leaves("launch_daemon_exits_early", 2, ("TOOL_LAUNCH_DAEMON", "/bin/false"), 3, |r| {
        (!has_line_starting(&r.stderr, "tool_launch: the daemons ended (exit code 1) without releasing"))
            .then(|| "the tool did not hear the daemons' end".to_string())
    });
}

/// A tool that leaves right after spawning 4 ranks held in init (exit 4):
/// the launcher releases them all (also those connecting later), and they
/// run to their end.
#[test]
fn launch_tool_leaves_held() {
    tool_leaves("launch_tool_leaves_held", 4, ("TOOL_LAUNCH_LEAVE", "1"), 4, |_| None);
}

/// pmixctl run -n 3: each rank's line on pmixctl's output, pmixctl's exit
/// code the job's (4).
#[test]
fn launch_pmixctl_run() {
    let case = Case::new("launch_pmixctl_run");
    let l = Launcher::start(&case);
    let r = run(l.pmixctl(&["run", "-n", "3", "sh", "-c", "echo \"out-$PMIX_RANK\"; exit 4"]), secs(40));
    r.save(&case, "pmixctl");
    let r = r.exit_code(4);
    for rank in 0..3 {
        assert!(r.all_lines().contains(&format!("out-{rank}").as_str()), "{}", r.report(&format!("rank {rank}'s line missing")));
    }
}

/// A job's end is told after its output, but not later than 5 s after its
/// last rank: here the rank leaves a child holding its stdout for 12 s, and
/// pmixctl hears the end (exit 3) at the bound, with the rank's first line.
#[test]
fn launch_pmixctl_end_while_output_held() {
    let case = Case::new("launch_pmixctl_end_while_output_held");
    let l = Launcher::start(&case);
    let t0 = std::time::Instant::now();
    let r = run(l.pmixctl(&["run", "-n", "1", "sh", "-c", "echo first; (sleep 12; echo late) & exit 3"]), secs(40));
    let took = t0.elapsed();
    r.save(&case, "pmixctl");
    let r = r.exit_code(3);
    assert!(r.all_lines().contains(&"first"), "{}", r.report("the rank's line missing"));
    assert!(!r.all_lines().contains(&"late"), "{}", r.report("the end waited for the held output"));
    assert!(took >= Duration::from_millis(4500) && took < Duration::from_secs(11), "{}", r.report(&format!("the end came after {took:?}, not at the 5 s bound")));
}

/// `head -c <n> /dev/urandom` into the case's file `name`.
fn random_file(case: &Case, name: &str, n: usize) -> PathBuf {
    let mut bytes = vec![0u8; n];
    fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes)).expect("/dev/urandom");
    let p = case.path(name);
    fs::write(&p, &bytes).expect("the input file");
    p
}

/// The sha256 of a file, as sha256sum prints it.
fn sha256(f: &Path) -> String {
    let r = run(Cmd::new("sha256sum").arg(f), secs(60)).ok();
    r.stdout.split_whitespace().next().unwrap_or("").to_string()
}

/// The tool's stdin goes to the rank it names (pmixctl run --stdin 1:
/// PMIX_FWD_STDIN, PMIX_STDIN_TGT): 300 KB to rank 1 of 2, arriving whole
/// (sha256); rank 0's stdin is empty.
#[test]
fn launch_tool_stdin() {
    let case = Case::new("launch_tool_stdin");
    let l = Launcher::start(&case);
    let input = random_file(&case, "input", 300_000);
    let (want, empty) = (sha256(&input), sha256(Path::new("/dev/null")));
    // (stdout holds the job's output alone; pmixctl's own lines go to stderr)
    let r = run(l.pmixctl(&["run", "-n", "2", "--stdin", "1", "sh", "-c", "echo \"r$PMIX_RANK $(sha256sum | cut -d\" \" -f1)\""]).stdin_file(&input), secs(40));
    r.save(&case, "pmixctl");
    let r = r.ok();
    assert!(r.lines().contains(&format!("r1 {want}").as_str()), "{}", r.report("rank 1 did not get the tool's stdin whole"));
    assert!(r.lines().contains(&format!("r0 {empty}").as_str()), "{}", r.report("rank 0's stdin was not empty"));
}

/// --stdin all where rank 0 closes its stdin at once: rank 1 still gets
/// every byte and its end of input, and the job ends.
#[test]
fn launch_stdin_all_one_closes() {
    let case = Case::new("launch_stdin_all_one_closes");
    let l = Launcher::start(&case);
    let input = random_file(&case, "input", 300_000);
    let script = "if [ \"$PMIX_RANK\" = 0 ]; then exec 0<&-; echo \"r0 closed\"; else echo \"r1 $(wc -c)\"; fi";
    let r = run(l.pmixctl(&["run", "-n", "2", "--stdin", "all", "sh", "-c", script]).stdin_file(&input), secs(40));
    r.save(&case, "pmixctl");
    let r = r.ok();
    assert!(r.lines().contains(&"r1 300000"), "{}", r.report("rank 1 did not get all 300000 bytes and their end"));
    assert!(r.lines().contains(&"r0 closed"), "{}", r.report("rank 0's line missing"));
}

/// A rank that does not read its stdin while the tool has 2 MB for it: the
/// tool waits (each push completes once in the pipe), the launcher does
/// not: another tool's job runs meanwhile, at once (within 2.5 s), while
/// the first rank still waits; then the first job ends normally.
#[test]
fn launch_stdin_unread() {
    let case = Case::new("launch_stdin_unread");
    let l = Launcher::start(&case);
    let big = case.write("big", &"\0".repeat(2_000_000));
    let go = case.path("go");
    let script = format!("while [ ! -e '{}' ]; do sleep 0.05; done; echo unread-done", go.display());
    let first = Job::start(merged([env().pmixctl.to_string_lossy().as_ref(), "run", "sh", "-c", &script]).env("TMPDIR", &l.t).env("PMIX_SYSTEM_TMPDIR", &l.t).on(Lib::Ours).stdin_file(&big));
    first.wait_line("'pmixctl: job <ns> started'", secs(30), |x| x.starts_with("pmixctl: job ") && x.ends_with(" started")).unwrap();
    let t0 = Instant::now();
    let other = run(l.pmixctl(&["run", "/bin/echo", "other"]), secs(40));
    let took = t0.elapsed();
    other.save(&case, "other");
    let other_ran = other.success() && other.all_lines().contains(&"other");
    case.write("go", "");
    let r = first.wait(secs(40));
    r.save(&case, "unread");
    assert!(other_ran, "{}", other.report("another tool's job did not run meanwhile"));
    // (held by the unread stdin, it would wait for the first job's end)
    assert!(took < Duration::from_millis(2500), "the other job waited for the unread stdin ({took:?})");
    let r = r.ok();
    assert!(r.lines().contains(&"unread-done"), "{}", r.report("the job's output is missing"));
}

/// pmixctl run ./prog from the directory holding it: it runs, there.
#[test]
fn launch_relative_path() {
    let case = Case::new("launch_relative_path");
    let l = Launcher::start(&case);
    let here = case.path("here");
    fs::create_dir_all(&here).unwrap();
    let prog = here.join("prog");
    fs::write(&prog, "#!/bin/sh\necho \"ran in $(pwd)\"\n").unwrap();
    fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let r = run(l.pmixctl(&["run", "./prog"]).current_dir(&here), secs(40));
    r.save(&case, "pmixctl");
    let r = r.ok();
    assert!(r.all_lines().contains(&format!("ran in {}", here.display()).as_str()), "{}", r.report("./prog did not run in the tool's directory"));
}

/// `pmixctl run /bin/true` on `l` succeeds: the launcher serves on.
fn serves_next(case: &Case, l: &Launcher) {
    let r = run(l.pmixctl(&["run", "/bin/true"]), secs(40));
    r.save(case, "next");
    assert!(r.success(), "{}\n--- launcher's log\n{}", r.report("the launcher did not serve the next job"), l.log());
}

/// pmixctl run of a program that does not exist: an error at once (not
/// the time limit), named; and the launcher serves on.
#[test]
fn launch_missing_command() {
    let case = Case::new("launch_missing_command");
    let l = Launcher::start(&case);
    let r = run(l.pmixctl(&["run"]).arg(case.path("no-such-program")), secs(40));
    r.save(&case, "pmixctl");
    assert!(!r.timed_out && !r.success(), "{}", r.report("expected an error"));
    assert!(
        r.all_lines().iter().any(|x| x.contains("NOT FOUND") || x.contains("NOT-FOUND") || x.contains("FAILED")),
        "{}",
        r.report("no error named")
    );
    serves_next(&case, &l);
}

/// `pmixctl run <args>` (both streams in one), started; waits for its
/// "pmixctl: job <ns> started" and returns the job and <ns>.
fn started_tool(l: &Launcher, args: &[&str]) -> (Job, String) {
    let mut argv = vec![env().pmixctl.to_string_lossy().into_owned(), "run".to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let tool = Job::start(merged(argv).env("TMPDIR", &l.t).env("PMIX_SYSTEM_TMPDIR", &l.t).on(Lib::Ours));
    let line = tool.wait_line("'pmixctl: job <ns> started'", secs(30), |x| x.starts_with("pmixctl: job ") && x.ends_with(" started")).unwrap();
    let ns = line["pmixctl: job ".len()..line.len() - " started".len()].to_string();
    (tool, ns)
}

/// A tool that goes away while its job runs: the job runs to its end (it
/// writes a file once the tool is gone) and the launcher serves on.
#[test]
fn launch_tool_gone() {
    let case = Case::new("launch_tool_gone");
    let l = Launcher::start(&case);
    let (go, finished) = (case.path("go"), case.path("finished"));
    let script = format!("while [ ! -e '{}' ]; do sleep 0.05; done; echo late; touch '{}'", go.display(), finished.display());
    let (tool, _) = started_tool(&l, &["sh", "-c", &script]);
    drop(tool); // (SIGKILL)
    case.write("go", "");
    wait_until("the job's file", secs(10), || finished.exists()).unwrap_or_else(|e| panic!("the job did not run to its end: {e}\n{}", l.log()));
    serves_next(&case, &l);
}

/// A job tied to its tool (pmixctl run --end-with-tool:
/// PMIX_SPAWN_CHILD_SEP false) ends when the tool is killed: the launcher
/// says so and the job's processes are gone (without it they would wait
/// on), and the launcher serves on.
#[test]
fn launch_end_with_tool() {
    let case = Case::new("launch_end_with_tool");
    let l = Launcher::start(&case);
    let marker = new_marker("launch_end_with_tool");
    let tied = case.path("tied-finished");
    let script = format!("while [ ! -e '{}' ]; do sleep 0.05; done; touch '{}'", case.path("go").display(), tied.display());
    let before = l.nlines();
    let (tool, _) = started_tool(&l, &["--end-with-tool", "sh", "-c", &script, &marker]);
    wait_until("the job's ranks", secs(10), || !pids_with_marker(&marker).is_empty()).unwrap();
    drop(tool); // (SIGKILL)
    let said = l.wait_log("the launcher ends the job", secs(10), |x| x.contains("is gone: ending job ") && x.contains(" with it"));
    let left = leftovers(&marker, secs(10));
    case.write("go", "");
    assert!(left.is_empty() && !tied.exists(), "the job ran on after its tool: {left:?}");
    assert!(said.is_ok() && l.lines_after(before).iter().any(|x| x.contains("is gone: ending job ") && x.contains(" with it")), "the launcher did not end the job\n{}", l.log());
    serves_next(&case, &l);
}

/// Tools killed while their spawn is in flight (as soon as the tool
/// started; when the launcher starts the job's first rank; when the tool
/// hears its job started): whether the job started or not, the launcher
/// serves the next tool.
#[test]
fn launch_tool_gone_mid_spawn() {
    let case = Case::new("launch_tool_gone_mid_spawn");
    let l = Launcher::start(&case);
    let argv = [env().pmixctl.to_string_lossy().into_owned(), "run".into(), "-n".into(), "2".into(), "sh".into(), "-c".into(), "sleep 0.3".into()];
    let tool = || Job::start(merged(&argv).env("TMPDIR", &l.t).env("PMIX_SYSTEM_TMPDIR", &l.t).on(Lib::Ours));
    drop(tool());
    let before = l.log().matches("pmixrun: started ").count();
    let t = tool();
    let _ = wait_until("the launcher starts a rank", secs(30), || l.log().matches("pmixrun: started ").count() > before);
    drop(t);
    let t = tool();
    let _ = t.wait_line("'pmixctl: job <ns> started'", secs(30), |x| x.ends_with(" started"));
    drop(t);
    serves_next(&case, &l);
    assert!(!proc_ended(l.job().pid()), "the launcher is gone\n{}", l.log());
}

/// `program` copied into `dir` as `name` (mode 755).
fn copy_exe(program: &Path, dir: &Path, name: &str) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let to = dir.join(name);
    fs::copy(program, &to).unwrap_or_else(|e| panic!("cannot copy {}: {e}", program.display()));
    fs::set_permissions(&to, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    to
}

/// Whether `line` is a launcher's "<ns>:<rank> (<path>/<name>) as pid" line.
fn started_as(line: &str, name: &str) -> bool {
    line.split_once(&format!("/{name}) as pid")).is_some_and(|(head, _)| {
        head.rsplit_once(" (").is_some_and(|(who, _)| who.rsplit_once(':').is_some_and(|(_, rank)| rank.chars().all(|c| c.is_ascii_digit())))
    })
}

/// OpenPMIx's example launcher.c, on rpmix: 128 ranks of "app" (found in
/// its directory) started, PMIX_NOTIFY_COMPLETION, the job-end event with
/// the registration's PMIX_EVENT_RETURN_OBJECT.
#[test]
fn launch_openpmix_launcher() {
    let case = Case::new("launch_openpmix_launcher");
    let l = Launcher::start(&case);
    let ex = case.path("ex");
    copy_exe(Path::new("/bin/true"), &ex, "app");
    let r = run(l.cmd(c_prog("launcher", Build::OpenPmixExample)).current_dir(&ex), secs(40));
    r.save(&case, "launcher");
    let r = r.ok();
    assert!(!r.all_lines().iter().any(|x| x.contains("LOCK WAS NOT RETURNED")), "{}", r.report("the event came without the registration's return object"));
    let log = l.log();
    let apps = log.lines().filter(|x| started_as(x, "app")).count();
    assert_eq!(apps, 128, "apps started, of 128\n{log}");
}

/// OpenPMIx's debugger.c (with its debuggerd.c and client.c, from its
/// directory): it spawns 2 ranks of client stopped on exec (in init where
/// the launcher cannot trace), then debuggerd as debugger daemons, and
/// ends when the daemons' job ends. 4.2.2's debuggerd.c prints, waits 10 s
/// and exits without releasing the ranks (the rest of it is dead code), so
/// the outcome is the launcher's: with the tool and its daemons gone it
/// releases the ranks, which run to their end (both exit 0).
#[test]
fn launch_openpmix_debugger() {
    let case = Case::new("launch_openpmix_debugger");
    let l = Launcher::start(&case);
    let dbg = case.path("dbg");
    copy_exe(&c_prog("client", Build::OpenPmixExample), &dbg, "client");
    copy_exe(&c_prog("debuggerd", Build::OpenPmixExample), &dbg, "debuggerd");
    let before = l.nlines();
    let r = run(l.cmd(c_prog("debugger", Build::OpenPmixExample)).current_dir(&dbg), secs(30));
    r.save(&case, "debugger");
    let r = r.ok();
    assert!(has_line_starting(&r.stdout, "SPAWNED DEBUGGERD") || has_line_starting(&r.stderr, "SPAWNED DEBUGGERD"), "{}", r.report("the daemons were not spawned"));
    let started = l.lines_after(before);
    let clients: Vec<&String> = started.iter().filter(|x| x.contains("/client) as pid")).collect();
    assert_eq!(clients.len(), 2, "ranks of client started\n{}", l.log());
    assert_eq!(started.iter().filter(|x| x.contains("/debuggerd) as pid")).count(), 1, "debugger daemons started\n{}", l.log());
    let appns = clients[0].strip_prefix("pmixrun: started ").and_then(|x| x.split_once(':')).map(|(ns, _)| ns.to_string()).unwrap_or_default();
    let _ = l.wait_log("the job's end", secs(10), |x| x.starts_with(&format!("pmixrun: job {appns} ended")));
    let log = l.log();
    assert!(has_line_starting(&log, &format!("pmixrun: job {appns}: its debugger is gone; releasing")), "the launcher did not release the orphaned ranks\n{log}");
    let exited = [0, 1].iter().filter(|rank| log.lines().any(|x| x == format!("pmixrun: {appns}:{rank} exited with status 0"))).count();
    assert_eq!(exited, 2, "released ranks that exited 0, of 2\n{log}");
}

/// OpenPMIx's tool.c --spawn: a launcher tool (PMIX_LAUNCHER) spawns one
/// process and waits for PMIX_ERR_JOB_TERMINATED with a handler registered
/// for PMIX_EVENT_AFFECTED_PROC = its own namespace ("the children will
/// have our nspace", its comment says). That does not hold here: every
/// spawned job has a namespace of its own, which the job-end event names,
/// so the handler (filtered by affected proc, as OpenPMIx filters it)
/// never runs and the tool waits on. What does happen: the program runs,
/// its job ends, the tool hears nothing it asked for and still waits a
/// second after the end.
#[test]
fn launch_openpmix_tool_spawn() {
    let case = Case::new("launch_openpmix_tool_spawn");
    let l = Launcher::start(&case);
    let ts = case.path("ts");
    fs::create_dir_all(&ts).unwrap();
    let ran = ts.join("ran");
    fs::write(ts.join("prog"), format!("#!/bin/sh\ntouch '{}'\n", ran.display())).unwrap();
    fs::set_permissions(ts.join("prog"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let before = l.nlines();
    let tool = Job::start(l.cmd(c_prog("tool", Build::OpenPmixExample)).args(["--spawn", "./prog"]).current_dir(&ts));
    let ended = l.wait_log("a job's end", secs(10), |x| x.starts_with("pmixrun: job ") && x.ends_with(" ended"));
    // (the second it still waits after the end)
    let waited = !tool.wait_ended(secs(1));
    assert!(ran.exists(), "the program did not run\n{}", l.log());
    assert!(ended.is_ok() && l.lines_after(before).iter().any(|x| x.starts_with("pmixrun: job ") && x.ends_with(" ended")), "its job did not end\n{}", l.log());
    let r = tool.wait(secs(1));
    r.save(&case, "tool");
    assert!(!r.all_lines().iter().any(|x| x.contains("TOOL NOTIFIED")), "{}", r.report("the handler ran for another namespace's end"));
    assert!(waited, "{}", r.report("the tool did not wait (exit: its expectation was met?)"));
}

/// A debugger's proc table (PMIX_QUERY_PROC_TABLE) of a job stopped on
/// exec, asked by c-tests/proc_table.c on rpmix and on OpenPMIx's library
/// (over TCP): the right lines (3 entries, each with the job, this host,
/// the program, and a pid that is that program, stopped), the same from
/// both.
#[test]
fn launch_proc_table() {
    let case = Case::new("launch_proc_table");
    let l = Launcher::start(&case);
    let app = copy_exe(Path::new("/bin/true"), &case.path("pt"), "app");
    let app = fs::canonicalize(&app).unwrap();
    let mut want = String::from("entries 3\n");
    for rank in 0..3 {
        let _ = writeln!(want, "rank {rank} nspace-ok 1 host-ok 1 exe {} pid-ok 1", app.display());
    }
    let prog = c_prog("proc_table", Build::Ref);
    let lib_of = |r: &Run| {
        r.stderr.lines().filter_map(|x| x.strip_prefix("proc_table: library ")).next_back().map(|p| fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
    };
    let ours = run(l.cmd(&prog).arg("3").arg(&app), secs(40));
    ours.save(&case, "rpmix");
    if ours.code() == Some(77) {
        skip("launch_proc_table", "no stop on exec here");
        return;
    }
    assert_eq!(lib_of(&ours), Some(Lib::Ours.file()), "{}", ours.report("the first run was not on rpmix"));
    let ours = ours.ok();
    assert_eq!(ours.stdout, want, "rpmix's table differs from the expected one (right: expected)");
    let theirs = run(l.cmd(&prog).arg("3").arg(&app).on(Lib::OpenPmix), secs(40));
    theirs.save(&case, "openpmix");
    let theirs = theirs.ok();
    assert!(lib_of(&theirs).is_some_and(|p| p != Lib::Ours.file()), "{}", theirs.report("the second run was not on OpenPMIx's library"));
    assert_eq!(theirs.stdout, ours.stdout, "OpenPMIx's tool reads another table (right: rpmix's)");
}

/// OpenPMIx's tool.c with no argument asks PMIX_QUERY_NAMESPACE_INFO and
/// prints each namespace with its command line: the running job's is
/// there, as pmixctl named it; debugger.c --attach <ns> finds it among the
/// active namespaces (PMIX_QUERY_NAMESPACES).
#[test]
fn launch_openpmix_tool_nsinfo() {
    let case = Case::new("launch_openpmix_tool_nsinfo");
    let l = Launcher::start(&case);
    let (_job, ns) = started_tool(&l, &["-n", "2", "sleep", "600"]);
    let r = run(l.cmd(c_prog("tool", Build::OpenPmixExample)).current_dir(&case.dir), secs(40));
    r.save(&case, "tool");
    assert!(r.all_lines().iter().any(|x| x.starts_with("ACTIVE NSPACES:")), "{}", r.report("no namespace list"));
    assert!(r.all_lines().contains(&format!("\t{ns}\tsleep 600").as_str()), "{}", r.report("the job's namespace and command line are not listed"));
    let a = run(l.cmd(c_prog("debugger", Build::OpenPmixExample)).args(["--attach", &ns]).current_dir(&case.dir), secs(40));
    a.save(&case, "attach");
    let a = a.ok();
    // (a line "Query returned [<names>,]<ns>[,<names>]")
    let found = a.all_lines().iter().any(|x| {
        x.strip_prefix("Query returned ").is_some_and(|s| {
            s.match_indices(ns.as_str()).any(|(i, _)| {
                let (head, tail) = (&s[..i], &s[i + ns.len()..]);
                (head.is_empty() || (!head.contains(' ') && head.ends_with(','))) && (tail.is_empty() || tail.starts_with(','))
            })
        })
    });
    assert!(found, "{}", a.report("debugger.c --attach did not find the job"));
}

/// Same user only: an OpenPMIx tool (the system library, over the TCP
/// listener, where the kernel names the peer's uid) of another user
/// (65534) is refused; the same tool as this user connects. Needs root
/// and setpriv.
#[test]
fn launch_other_user() {
    if !is_root() || !run(Cmd::new("sh").args(["-c", "command -v setpriv"]), secs(10)).success() {
        skip("launch_other_user", "needs root and setpriv");
        return;
    }
    let case = Case::new("launch_other_user");
    let l = Launcher::start(&case);
    let ou = TmpDir::new("ou");
    fs::set_permissions(ou.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tool = copy_exe(&c_prog("tool", Build::OpenPmixExample), ou.path(), "oex_tool");
    let uri = fs::read_to_string(l.rendezvous()).unwrap().lines().next().unwrap_or("").to_string();
    let as_self = run(l.cmd(&tool).args(["-u", &uri]).env("TMPDIR", &ou).current_dir(ou.path()).on(Lib::OpenPmix), secs(40));
    as_self.save(&case, "self");
    assert!(!as_self.all_lines().iter().any(|x| x.contains("PMIx_tool_init failed")), "{}", as_self.report("this user's tool was refused"));
    assert!(as_self.all_lines().iter().any(|x| x.starts_with("Connecting to")), "{}", as_self.report("this user's tool did not run"));
    let other = run(
        l.cmd("setpriv").args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&tool).args(["-u", &uri]).env("TMPDIR", &ou).current_dir(ou.path()).on(Lib::OpenPmix),
        secs(40),
    );
    other.save(&case, "other");
    assert!(other.all_lines().iter().any(|x| x.contains("PMIx_tool_init failed")), "{}", other.report("another user's tool was not refused"));
}

/// pmixctl stop: the launcher exits 0, its system rendezvous file removed,
/// nothing it started left running.
#[test]
fn launch_stop() {
    let case = Case::new("launch_stop");
    let mut l = Launcher::start(&case);
    let r = run(l.pmixctl(&["stop"]), secs(40));
    r.save(&case, "pmixctl");
    r.ok();
    let launcher = l.job.take().expect("the launcher");
    let ended = launcher.wait_ended(secs(5));
    let end = launcher.wait(secs(1));
    end.save(&case, "launcher");
    assert!(ended, "{}", end.report("the launcher still runs"));
    let end = end.ok();
    assert!(!l.rendezvous().exists(), "{}", end.report("its system rendezvous file remains"));
    let left = wait_until("nothing left running", secs(5), || l.marked().is_empty());
    assert!(left.is_ok(), "processes left running: {:?}", l.marked());
}
