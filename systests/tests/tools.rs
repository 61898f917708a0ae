//! Tools and debuggers: pmixctl, attaching, launching under a debugger.

use rpmix_systests::*;
use std::path::PathBuf;

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
/// (new, extend, release) and refuses more than it has (c-tests/client_alloc.c).
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

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/launch-tests.sh
    mod launch {
        use super::*;
        driver_cases!("launch-tests.sh", "launch", secs(300), [], {
            launch_tool_debug: "launch/tool-debug",
            launch_release_twice: "launch/release-twice",
            launch_stop_on_exec: "launch/stop-on-exec",
            launch_daemons: "launch/daemons",
            launch_daemon_exits_early: "launch/daemon-exits-early",
            launch_tool_leaves_held: "launch/tool-leaves-held",
            launch_pmixctl_run: "launch/pmixctl-run",
            launch_tool_stdin: "launch/tool-stdin",
            launch_stdin_all_one_closes: "launch/stdin-all-one-closes",
            launch_stdin_unread: "launch/stdin-unread",
            launch_relative_path: "launch/relative-path",
            launch_missing_command: "launch/missing-command",
            launch_tool_gone: "launch/tool-gone",
            launch_end_with_tool: "launch/end-with-tool",
            launch_tool_gone_mid_spawn: "launch/tool-gone-mid-spawn",
            launch_openpmix_launcher: "launch/openpmix-launcher",
            launch_openpmix_debugger: "launch/openpmix-debugger",
            launch_openpmix_tool_spawn: "launch/openpmix-tool-spawn",
            launch_proc_table: "launch/proc-table",
            launch_openpmix_tool_nsinfo: "launch/openpmix-tool-nsinfo",
            launch_other_user: "launch/other-user",
            launch_stop: "launch/stop",
        });
    }
}
