//! pmixrun, rpmix's launcher: ranks, exit codes, signals, events and spawn,
//! job control, monitoring and cleanup, session directories, groups.

use rpmix_systests::*;

fn pmixrun() -> Cmd {
    Cmd::new(&env().pmixrun)
}

/// Whether `rest` is a C program's clean summary: `<N> passed, 0 failed`
/// with N at least 1.
fn clean_summary(rest: &str) -> bool {
    rest.strip_suffix(" passed, 0 failed")
        .is_some_and(|n| !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The lines (of both outputs) `<prefix><rank>: <N> passed, 0 failed` of
/// ranks `ranks` (each rank counted per line).
fn clean_rank_summaries(r: &Run, prefix: &str, ranks: std::ops::Range<u32>) -> usize {
    r.all_lines()
        .iter()
        .filter(|l| {
            l.strip_prefix(prefix)
                .and_then(|rest| rest.split_once(": "))
                .is_some_and(|(rank, rest)| {
                    !rank.is_empty()
                        && rank.bytes().all(|b| b.is_ascii_digit())
                        && rank.parse::<u32>().is_ok_and(|n| ranks.contains(&n))
                        && clean_summary(rest)
                })
        })
        .count()
}

/// Runs a C program under pmixrun on rpmix's library: `-n <n> <prog> <args>`.
fn under_pmixrun(n: u32, prog: &std::path::Path, args: &[&str]) -> Run {
    run(pmixrun().arg("-n").arg(n.to_string()).arg(prog).args(args).on(Lib::Ours), secs(120))
}

/// Runs a C program under the C resource manager (rm_simple, on rpmix's
/// library): `<rm args> -n <n> <prog> <args>`.
fn under_rm_simple(rm_args: &[&str], n: u32, prog: &std::path::Path, args: &[&str]) -> Run {
    let rm = c_prog("rm_simple", Build::Ours);
    run(Cmd::new(rm).args(rm_args).arg("-n").arg(n.to_string()).arg(prog).args(args).on(Lib::Ours), secs(120))
}

// ---------------------------------------------------------------- ranks

/// 8 ranks of a client built against rpmix's headers, five runs in a row:
/// job data, Put/Commit/Fence/Get in every scope, events, partial fences,
/// missing keys, Publish/Lookup; every rank's checks pass.
#[test]
fn eight_ranks_five_runs() {
    let prog = c_prog("client_basic", Build::Ours);
    for i in 1..=5 {
        let r = under_pmixrun(8, &prog, &["8"]);
        assert!(r.success(), "{}", r.report(&format!("run {i} of 5")));
    }
}

/// The same 8 ranks built against OpenPMIx 4.2.2's headers, on rpmix's
/// library (a binary drop-in).
#[test]
fn eight_ranks_openpmix_headers() {
    under_pmixrun(8, &c_prog("client_basic", Build::Ref), &["8"]).ok();
}

// ---------------------------------------------------------------- exit codes

/// A rank's PMIx_Abort(7) is pmixrun's exit code.
#[test]
fn exit_code_of_abort() {
    under_pmixrun(4, &c_prog("client_abort", Build::Ours), &[]).exit_code(7);
}

/// A negative abort status exits as exit(3) takes it: 255 for -1 (as
/// mpirun on OpenPMIx).
#[test]
fn exit_code_of_negative_abort() {
    let prog = c_prog("client_abort", Build::Ours);
    run(pmixrun().args(["-n", "2"]).arg(prog).env("CLIENT_ABORT_STATUS", "-1").on(Lib::Ours), secs(120)).exit_code(255);
}

/// A rank's exit code is pmixrun's.
#[test]
fn exit_code_of_a_rank() {
    run(pmixrun().args(["-n", "2", "sh", "-c", "exit 5"]), secs(60)).exit_code(5);
}

/// A rank killed by SIGKILL: pmixrun exits 128 + 9.
#[test]
fn exit_code_of_a_killed_rank() {
    run(pmixrun().args(["-n", "1", "sh", "-c", "kill -9 $$"]), secs(60)).exit_code(137);
}

/// `--timeout 1`: the job is ended after a second and pmixrun exits 124.
#[test]
fn exit_code_of_timeout() {
    run(pmixrun().args(["--timeout", "1", "-n", "2", "sleep", "30"]), secs(60)).exit_code(124);
}

/// A program that does not exist: pmixrun fails (a non-zero exit).
#[test]
fn exit_code_of_missing_program() {
    let r = run(pmixrun().args(["-n", "1", "/nonexistent/prog"]), secs(60));
    assert!(r.code().is_some_and(|c| c != 0), "{}", r.report("a missing program did not fail pmixrun"));
}

/// `-x FOO` passes the variable on, `-x BAZ=qux` sets it; PMIX_RANK is set.
#[test]
fn export_environment() {
    let r = run(
        pmixrun().args(["-x", "FOO", "-x", "BAZ=qux", "-n", "1", "sh", "-c", "echo $FOO$BAZ$PMIX_RANK"]).env("FOO", "bar").env_remove("BAZ"),
        secs(60),
    )
    .ok();
    assert_eq!(r.stdout.trim_end_matches('\n'), "barqux0", "{}", r.report("-x"));
}

/// Two app contexts (`:`) make one job: ranks 0, then 1 and 2.
#[test]
fn app_contexts() {
    let r = run(pmixrun().args(["-n", "1", "sh", "-c", "echo a$PMIX_RANK", ":", "-n", "2", "sh", "-c", "echo b$PMIX_RANK"]), secs(60)).ok();
    let mut lines = r.lines();
    lines.sort_unstable();
    assert_eq!(lines, ["a0", "b1", "b2"], "{}", r.report("app contexts"));
}

/// The CPUs this process may run on (as `nproc` says).
fn nproc() -> usize {
    let r = run(Cmd::new("nproc"), secs(30)).ok();
    r.stdout.trim().parse().unwrap_or_else(|_| panic!("nproc: {}", r.stdout))
}

/// The distinct values ranks print for OMPI_MCA_mpi_yield_when_idle (unset
/// in pmixrun's environment) with `n` ranks.
fn yield_when_idle(n: usize) -> std::collections::BTreeSet<String> {
    let r = run(
        pmixrun().arg("-n").arg(n.to_string()).args(["sh", "-c", "echo \"y$OMPI_MCA_mpi_yield_when_idle\""]).env_remove("OMPI_MCA_mpi_yield_when_idle"),
        secs(60),
    );
    assert!(!r.timed_out, "{}", r.report("yield_when_idle"));
    r.lines().into_iter().map(str::to_string).collect()
}

/// More ranks than CPUs: Open MPI's ranks are told to yield when idle
/// (OMPI_MCA_mpi_yield_when_idle=1), as mpirun does.
#[test]
fn yield_when_oversubscribed() {
    let over = nproc() + 1;
    let got = yield_when_idle(over);
    assert_eq!(got.into_iter().collect::<Vec<_>>(), ["y1"], "{over} ranks on {} CPUs", over - 1);
}

/// One rank: OMPI_MCA_mpi_yield_when_idle is not set.
#[test]
fn no_yield_when_not_oversubscribed() {
    assert_eq!(yield_when_idle(1).into_iter().collect::<Vec<_>>(), ["y"], "1 rank");
}

// ---------------------------------------------------------------- signals

/// Whether a running process's command line contains `marker`.
fn running_with(marker: &str) -> Vec<u32> {
    fs_pids()
        .into_iter()
        .filter(|&p| !proc_ended(p))
        .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker)))
        .collect()
}

fn fs_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default()
}

/// SIGTERM to pmixrun reaches its ranks: pmixrun exits 143 and no rank is
/// left running.
#[test]
fn sigterm_reaches_the_ranks() {
    let marker = format!("rpmix-sig-{}", std::process::id());
    let job = Job::start(pmixrun().args(["-n", "3", "sh", "-c"]).arg(format!("exec sleep 600 # {marker}")));
    let ranks = wait_children_running(job.pid(), 3, "sleep", secs(60)).unwrap();
    job.signal(libc::SIGTERM);
    // (pmixrun is not reaped yet: reaping would end what is left in its group)
    wait_until("pmixrun ends after SIGTERM", secs(60), || proc_ended(job.pid())).unwrap();
    let gone = wait_until("the ranks end", secs(30), || ranks.iter().all(|&p| proc_ended(p)));
    let left: Vec<u32> = ranks.iter().copied().filter(|&p| !proc_ended(p)).chain(running_with(&marker)).collect();
    for &p in &left {
        // SAFETY: kill(2) on the pids of this case's ranks; no memory is involved.
        unsafe {
            libc::kill(p as i32, libc::SIGKILL);
        }
    }
    assert!(gone.is_ok() && left.is_empty(), "ranks left running: {left:?}");
    job.wait(secs(60)).exit_code(143);
}

// ---------------------------------------------------------------- events, spawn

/// The demo job (`make demo`): 4 ranks read their job data, exchange values
/// through Put/Commit/Fence, and rank 0 receives an event from the last rank.
#[test]
fn demo_job() {
    let r = under_pmixrun(4, &c_prog("demo_job", Build::Ours), &[]);
    assert!(r.stdout.contains("event received"), "{}", r.report("no 'event received'"));
}

/// The Standard's event-handler semantics (order, chaining, results,
/// ranges, deregistration) as 3 ranks see them under pmixrun.
#[test]
fn events_under_pmixrun() {
    under_pmixrun(3, &c_prog("client_events", Build::Ours), &[]).ok();
}

/// The same events under the C resource manager.
#[test]
fn events_under_rm_simple() {
    under_rm_simple(&[], 3, &c_prog("client_events", Build::Ours), &[]).ok();
}

/// PMIx_Spawn of a new job from 2 ranks, then PMIx_Connect with it.
#[test]
fn spawn_and_connect() {
    under_pmixrun(2, &c_prog("client_spawn", Build::Ours), &[]).ok();
}

/// A spawn with a NULL argv runs; one of a missing program answers
/// JOB_EXE_NOT_FOUND and the caller's job goes on (pmixrun exits 0).
#[test]
fn spawn_errors() {
    under_pmixrun(1, &c_prog("spawn_errors", Build::Ours), &[]).ok();
}

/// PMIx_Finalize inside an event handler answers at once (no deadlock).
#[test]
fn finalize_in_event_handler() {
    under_pmixrun(2, &c_prog("finalize_in_handler", Build::Ours), &[]).ok();
}

/// A client that forks after init (children exit, _exit, exec, and one
/// calls PMIx_Fence, which fails at once): nothing hangs and the parent's
/// connection works on, under pmixrun.
#[test]
fn fork_after_init_under_pmixrun() {
    under_pmixrun(2, &c_prog("fork_after_init", Build::Ours), &[]).ok();
}

/// The same forks under the C resource manager.
#[test]
fn fork_after_init_under_rm_simple() {
    under_rm_simple(&[], 2, &c_prog("fork_after_init", Build::Ours), &[]).ok();
}

// ---------------------------------------------------------------- binding

/// The cores of this machine (distinct (core, socket) pairs of lscpu).
fn cores() -> usize {
    let r = run(Cmd::new("lscpu").arg("-p=CORE,SOCKET"), secs(30)).ok();
    r.lines().into_iter().filter(|l| !l.starts_with('#')).collect::<std::collections::BTreeSet<_>>().len()
}

/// `pmixrun --bind-to core` with one rank more than there are cores: ranks
/// bound round robin over the cores, their PMIX_CPUSET and
/// PMIX_LOCALITY_STRING in the job data match what the library computes,
/// and relative locality shows which ranks share a core; every rank passes.
#[test]
fn bind_to_core() {
    let cores = cores();
    let n = cores + 1;
    let prog = c_prog("client_locality", Build::Ours);
    let r = run(
        pmixrun().args(["--bind-to", "core", "-n"]).arg(n.to_string()).arg(prog).arg("bound").arg(cores.to_string()).on(Lib::Ours),
        secs(120),
    )
    .ok();
    println!("{}{}", r.stdout, r.stderr);
    assert_eq!(clean_rank_summaries(&r, "client_locality rank ", 0..u32::MAX), n, "{}", r.report("not every rank passed"));
}

/// Without binding: 2 ranks see no binding in the job data; both pass.
#[test]
fn unbound_locality() {
    let r = under_pmixrun(2, &c_prog("client_locality", Build::Ours), &["unbound"]).ok();
    println!("{}{}", r.stdout, r.stderr);
    assert_eq!(clean_rank_summaries(&r, "client_locality rank ", 0..u32::MAX), 2, "{}", r.report("not every rank passed"));
}

// ---------------------------------------------------------------- the design documents' examples

/// One of the design documents' example programs (`../shared/examples/`),
/// compiled unchanged against rpmix's headers into the case's directory.
fn rfc_example(case: &Case, name: &str) -> std::path::PathBuf {
    let e = env();
    let exe = case.path(name);
    let r = run(
        Cmd::new("cc")
            .arg(format!("-I{}", e.root.join("include").display()))
            .arg(e.root.join(format!("../shared/examples/{name}.c")))
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", e.libdir.display()))
            .args(["-l:libpmix.so.2", "-lpthread"]),
        secs(120),
    )
    .ok();
    std::fs::write(case.path(&format!("{name}.warnings")), &r.stderr).ok();
    exe
}

/// rfc0015's example (job control and monitoring: preemptible with two
/// checkpoint methods, a heartbeat monitor and one beat) runs to its end
/// under pmixrun on both ranks.
#[test]
fn rfc0015_jctrl_monitor() {
    let case = Case::new("rfc0015_jctrl_monitor");
    let prog = rfc_example(&case, "rfc0015_jctrl_monitor");
    let r = run(pmixrun().args(["-n", "2"]).arg(prog).on(Lib::Ours), secs(120)).ok();
    let done = r.all_lines().iter().filter(|l| l.contains("PMIx_Finalize successfully completed")).count();
    assert_eq!(done, 2, "{}", r.report("not 2 ranks finalized"));
}

/// rfc0027's run: the example's paths made, the job, then what is left of
/// them listed (sorted) into `$LEFT` and removed; the job's exit status.
const RFC0027_RUN: &str = r#"
rm -rf /mytmpdir /myjobtmpdir /tmp/dev_shm
mkdir -p /mytmpdir/subdir/deep /myjobtmpdir/a/b /tmp/dev_shm || exit 1
touch /mytmpdir/f1 /mytmpdir/output-124.txt /mytmpdir/subdir/contact.info /mytmpdir/subdir/x \
      /mytmpdir/subdir/deep/y /myjobtmpdir/a/b/z /tmp/dev_shm/mybackfile /tmp/dev_shm/other || exit 1
"$PMIXRUN" -n 2 "$PROG"; rc=$?
find /mytmpdir /myjobtmpdir /tmp/dev_shm 2>/dev/null | LC_ALL=C sort >"$LEFT"
rm -rf /mytmpdir /myjobtmpdir /tmp/dev_shm
exit $rc
"#;

/// The same in a private mount namespace, on a root of its own (a tmpfs at
/// `$ROOTDIR`): / made of binds of the real one's entries but a fresh /tmp,
/// so that /mytmpdir and the others are this case's alone. The launcher's
/// and the program's directories are bound at their own paths, wherever
/// the checkout is (under /tmp too).
const RFC0027_PRIVATE_ROOT: &str = r#"
set -e
mount -t tmpfs rfc0027 "$ROOTDIR"
R=$ROOTDIR
for e in /*; do
    n=${e#/}
    if [ -L "$e" ]; then ln -s "$(readlink "$e")" "$R/$n"
    elif [ "$n" = tmp ]; then mkdir -m 1777 "$R/tmp"; mount -t tmpfs rfc0027tmp "$R/tmp"
    elif [ -d "$e" ]; then mkdir "$R/$n"; mount --rbind "$e" "$R/$n"
    fi
done
for d in "$(dirname "$PMIXRUN")" "$(dirname "$PROG")" "$(dirname "$LEFT")"; do
    case $d in /tmp/*) mkdir -p "$R$d"; mount --rbind "$d" "$R$d" ;; esac
done
set +e
exec chroot "$R" /bin/sh -c "$RUN"
"#;

/// rfc0027's example (cleanup registration) under pmixrun: at the job's end
/// the registered directories and file are gone but for the files it said
/// to ignore (and the directories holding them). Its paths are the
/// example's own (/mytmpdir, /myjobtmpdir, /tmp/dev_shm): root only, in a
/// private mount namespace where one can be made (else on this root).
#[test]
fn rfc0027_cleanup() {
    if !is_root() {
        skip("rfc0027_cleanup", "needs root for /mytmpdir");
        return;
    }
    let case = Case::new("rfc0027_cleanup");
    let prog = rfc_example(&case, "rfc0027_cleanup");
    let left = case.path("left.txt");
    let root = case.path("root");
    std::fs::create_dir_all(&root).expect("the private root's mount point");
    let script = |c: Cmd| {
        c.env("PMIXRUN", &env().pmixrun).env("PROG", &prog).env("LEFT", &left).env("ROOTDIR", &root).env("RUN", RFC0027_RUN).on(Lib::Ours)
    };
    let private = run(Cmd::new("unshare").args(["-m", "--propagation", "private", "true"]), secs(60)).success();
    let r = if private {
        run(script(Cmd::new("unshare").args(["-m", "--propagation", "private", "sh", "-c", RFC0027_PRIVATE_ROOT])), secs(120))
    } else {
        println!("no private mount namespace here: on this machine's root");
        run(script(Cmd::new("sh").args(["-c", RFC0027_RUN])), secs(120))
    };
    r.save(&case, "job");
    let r = r.ok();
    let got = std::fs::read_to_string(&left).unwrap_or_default();
    let want = ["/mytmpdir", "/mytmpdir/output-124.txt", "/mytmpdir/subdir", "/mytmpdir/subdir/contact.info", "/tmp/dev_shm", "/tmp/dev_shm/other"];
    assert_eq!(got.lines().collect::<Vec<_>>(), want, "left on disk (expected: the ignored files and their directories)\n{}", r.report("the job"));
}

// ---------------------------------------------------------------- data, groups

/// PMIx_Get with PMIX_DATA_SCOPE between 2 ranks: only data put in that
/// scope is found.
#[test]
fn get_data_scope() {
    under_pmixrun(2, &c_prog("client_scope", Build::Ours), &[]).ok();
}

/// Group construct/destruct/leave among 4 ranks of one job, completed by
/// the launcher (or host) itself (OpenPMIx 4.2.2 needs a host group upcall
/// even then): every rank's checks pass.
fn groups(r: Run) {
    let r = r.ok();
    println!("{}{}", r.stdout, r.stderr);
    assert_eq!(clean_rank_summaries(&r, "client_groups rank ", 0..4), 4, "{}", r.report("not 4 clean summaries"));
}

/// Groups among 4 ranks under pmixrun (see [`groups`]).
#[test]
fn groups_under_pmixrun() {
    groups(under_pmixrun(4, &c_prog("client_groups", Build::Ours), &[]));
}

/// Groups among 4 ranks under the C resource manager, answering directly.
#[test]
fn groups_under_rm_simple() {
    groups(under_rm_simple(&[], 4, &c_prog("client_groups", Build::Ours), &[]));
}

/// Groups among 4 ranks under the C resource manager, answering deferred
/// (`-m defer`).
#[test]
fn groups_under_rm_simple_deferred() {
    groups(under_rm_simple(&["-m", "defer"], 4, &c_prog("client_groups", Build::Ours), &[]));
}

// ---------------------------------------------------------------- job control, monitoring, cleanup

/// The reasons a case failed, collected check by check (every check runs;
/// the case fails at the end listing them all, with the job's output).
#[derive(Default)]
struct Why(Vec<String>);

impl Why {
    fn add(&mut self, why: impl Into<String>) {
        self.0.push(why.into());
    }
    /// Adds `why` unless `ok`.
    fn check(&mut self, ok: bool, why: impl Into<String>) {
        if !ok {
            self.add(why);
        }
    }
    /// Panics when a check failed, showing them and `r`'s report.
    fn done(self, case: &str, r: &Run) {
        assert!(self.0.is_empty(), "{case}: {}\n{}", self.0.join(", "), r.report(case));
    }
}

/// A string unique to this case, put on its programs' command lines so that
/// what they leave running can be found.
fn marker(case: &str) -> String {
    format!("rpmix-jobctl-{}-{case}", std::process::id())
}

/// Waits (up to 5 s) until no process carries `marker` on its command line;
/// those still there are killed and the case fails.
fn no_leftovers(marker: &str, why: &mut Why) {
    if wait_until(&format!("no process with {marker}"), secs(5), || running_with(marker).is_empty()).is_err() {
        let left = running_with(marker);
        for &p in &left {
            // SAFETY: kill(2) on the pids of this case's processes (they carry its marker); no memory is involved.
            unsafe {
                libc::kill(p as i32, libc::SIGKILL);
            }
        }
        why.add(format!("processes left running: {left:?}"));
    }
}

/// A program's clean summary `<name>: N passed, 0 failed` (N > 0) is there,
/// and no line has `: FAIL`.
fn summary_ok(r: &Run, name: &str, why: &mut Why) {
    let prefix = format!("{name}: ");
    let lines = r.all_lines();
    why.check(lines.iter().any(|l| l.strip_prefix(&prefix).is_some_and(clean_summary)), format!("no \"{name}: N passed, 0 failed\" line"));
    let fails = lines.iter().filter(|l| l.contains(": FAIL")).count();
    why.check(fails == 0, format!("{fails} failed checks"));
}

/// Lines `pmixrun: <ns>:<rank><rest>` (`<ns>` without spaces) whose
/// `<rest>` satisfies `pred`.
fn pmixrun_says(r: &Run, rank: u32, pred: impl Fn(&str) -> bool) -> usize {
    let tag = format!(":{rank}");
    r.all_lines()
        .iter()
        .filter(|l| {
            l.strip_prefix("pmixrun: ").and_then(|rest| rest.split_once(' ')).is_some_and(|(who, rest)| {
                who.strip_suffix(&tag).is_some_and(|ns| !ns.is_empty()) && pred(&format!(" {rest}"))
            })
        })
        .count()
}

/// The lines containing `s`.
fn count(r: &Run, s: &str) -> usize {
    r.all_lines().iter().filter(|l| l.contains(s)).count()
}

/// A case's scratch directory for its programs (readable by all, as for
/// files of another owner), inside its TMPDIR `t`.
fn scratch(t: &TmpDir) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let d = t.path().join("d");
    std::fs::create_dir(&d).unwrap();
    for p in [t.path(), &d] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    d
}

/// pmixrun with TMPDIR `t`, on rpmix's library.
fn pmixrun_in(t: &TmpDir) -> Cmd {
    pmixrun().env("TMPDIR", t).on(Lib::Ours)
}

/// The C resource manager with TMPDIR `t`, on rpmix's library.
fn rm_simple_in(t: &TmpDir) -> Cmd {
    Cmd::new(c_prog("rm_simple", Build::Ours)).env("TMPDIR", t).on(Lib::Ours)
}

/// Every run's time limit (as `timeout` in the bash of old).
const T: std::time::Duration = secs(45);

/// Job control by the host, seen by 3 ranks of c-tests/jctl_signals.c (its
/// header lists the checks: pause/resume, signal, checkpoint by signal and
/// by event, its timeout and cancel, refused restart and provision, the
/// preemptible query), ending with PMIX_JOB_CTRL_KILL of rank 2: exit 137,
/// every check passed, "kill: ok", and the file and directory rank 2
/// registered for cleanup gone although it was killed. Under pmixrun,
/// pmixrun reports rank 2 killed by signal 9; under the C resource manager
/// (its job_control upcall answering at once, `direct`, or later, `defer`)
/// rank 1's checkpoint reaches the host as signal 12 and it sees rank 2
/// exit with 137. No process is left.
fn jctl_signals(host: &str) {
    let case = Case::new(&format!("jctl_signals_{host}"));
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let prog = c_prog("jctl_signals", Build::Ours);
    let cmd = match host.strip_prefix("rm_simple_") {
        None => pmixrun_in(&t).args(["--timeout", "40", "-n", "3"]),
        Some(mode) => rm_simple_in(&t).args(["-v", "-m", mode, "-t", "40", "-n", "3"]),
    };
    let r = run(cmd.arg(prog).arg(&d).arg(&m), T);
    r.save(&case, "job");
    let mut why = Why::default();
    for p in ["r2.file", "r2.dir"] {
        why.check(std::fs::symlink_metadata(d.join(p)).is_err(), format!("{p} still there"));
    }
    why.check(r.code() == Some(137), format!("exit {:?}, expected 137 (rank 2 killed)", r.code()));
    summary_ok(&r, "jctl_signals", &mut why);
    why.check(r.all_lines().contains(&"jctl_signals: kill: ok"), "no \"kill: ok\" line");
    if host == "pmixrun" {
        let killed = pmixrun_says(&r, 2, |rest| rest == " was killed by signal 9");
        why.check(killed > 0, "pmixrun did not report rank 2 killed by signal 9");
    } else {
        // The C host saw the checkpoint of rank 1 as its registered signal (SIGUSR2 = 12).
        let asked = r.all_lines().iter().any(|l| {
            l.find("upcall job_control ")
                .and_then(|i| l[i..].find("pmix.jctrl.sig=12").map(|j| i + j))
                .is_some_and(|j| l[j..].contains("ckpt-r1"))
        });
        why.check(asked, "rm_simple was not asked for rank 1's checkpoint signal");
        why.check(r.all_lines().contains(&"rm_simple: rank 2 exited with 137"), "rm_simple did not see rank 2 killed");
    }
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// Job control under pmixrun (see [`jctl_signals`]).
#[test]
fn jctl_signals_pmixrun() {
    jctl_signals("pmixrun");
}

/// Job control under the C resource manager answering at once.
#[test]
fn jctl_signals_rm_simple_direct() {
    jctl_signals("rm_simple_direct");
}

/// Job control under the C resource manager answering later.
#[test]
fn jctl_signals_rm_simple_defer() {
    jctl_signals("rm_simple_defer");
}

/// Heartbeat monitors (c-tests/monitor_hb.c: alerts, cancel, a monitor
/// under the application's control) under `pmixrun --on-stall report` with
/// 2 ranks: exit 0, every check passed; pmixrun reports hb1's stall exactly
/// once, hb2's (PMIX_MONITOR_APP_CONTROL) never, no other stall.
#[test]
fn monitor_hb() {
    let case = Case::new("monitor_hb");
    let t = TmpDir::new("jobctl");
    let m = marker(&case.name);
    let r = run(pmixrun_in(&t).args(["--timeout", "40", "--on-stall", "report", "-n", "2"]).arg(c_prog("monitor_hb", Build::Ours)).arg(&m), T);
    r.save(&case, "job");
    let mut why = Why::default();
    why.check(r.success(), format!("exit {:?}", r.code()));
    summary_ok(&r, "monitor_hb", &mut why);
    let n1 = pmixrun_says(&r, 1, |rest| rest == " stalled (monitor hb1)");
    let n2 = count(&r, "monitor hb2");
    let nall = count(&r, "stalled");
    why.check(n1 == 1, format!("pmixrun reported hb1's stall {n1} times, expected once"));
    why.check(n2 == 0, format!("pmixrun reported hb2 (PMIX_MONITOR_APP_CONTROL) {n2} times"));
    why.check(nall == n1, format!("{nall} stall reports in all"));
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// File monitors (c-tests/monitor_file.c: a growing file, a still one) under
/// `pmixrun --on-stall report` with 1 rank: exit 0, every check passed;
/// pmixrun reports the stall of "still" once, "grow" never.
#[test]
fn monitor_file() {
    let case = Case::new("monitor_file");
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let r = run(
        pmixrun_in(&t).args(["--timeout", "40", "--on-stall", "report", "-n", "1"]).arg(c_prog("monitor_file", Build::Ours)).arg(&d).arg(&m),
        T,
    );
    r.save(&case, "job");
    let mut why = Why::default();
    why.check(r.success(), format!("exit {:?}", r.code()));
    summary_ok(&r, "monitor_file", &mut why);
    let n1 = pmixrun_says(&r, 0, |rest| rest == " stalled (monitor still)");
    let n2 = count(&r, "monitor grow");
    why.check(n1 == 1, format!("pmixrun reported the stall of \"still\" {n1} times, expected once"));
    why.check(n2 == 0, format!("pmixrun reported \"grow\" {n2} times"));
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// The monitors inside the library, under the C resource manager (a host
/// without a monitor upcall): monitor_hb with 2 ranks and monitor_file with
/// 1 exit 0 and every check of theirs passes (alerts reach the rank and its
/// peers in their windows, cancel, drops, file growth).
#[test]
fn monitors_rm_simple() {
    let case = Case::new("monitors_rm_simple");
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let mut why = Why::default();
    let hb = run(rm_simple_in(&t).args(["-t", "40", "-n", "2"]).arg(c_prog("monitor_hb", Build::Ours)).arg(&m), T);
    hb.save(&case, "monitor_hb");
    why.check(hb.success(), format!("monitor_hb: exit {:?}", hb.code()));
    summary_ok(&hb, "monitor_hb", &mut why);
    let file = run(rm_simple_in(&t).args(["-t", "40", "-n", "1"]).arg(c_prog("monitor_file", Build::Ours)).arg(&d).arg(&m), T);
    file.save(&case, "monitor_file");
    why.check(file.success(), format!("monitor_file: exit {:?}", file.code()));
    summary_ok(&file, "monitor_file", &mut why);
    no_leftovers(&m, &mut why);
    if !why.0.is_empty() {
        println!("{}", hb.report("monitor_hb"));
    }
    why.done(&case.name, &file);
}

/// A stalled rank (monitor_hb's stall mode: rank 1 sets a heartbeat
/// monitor and never beats) with `--on-stall <action>` (none: the
/// default): the job ends within 5 s, pmixrun names rank 1 as stalled, no
/// rank sleeps to its end; with `kill` pmixrun exits 137, otherwise with a
/// failure that is not its own time limit's.
fn stall(action: Option<&str>) {
    let case = Case::new(&format!("stall_{}", action.unwrap_or("default")));
    let t = TmpDir::new("jobctl");
    let m = marker(&case.name);
    let mut cmd = pmixrun_in(&t).args(["--timeout", "40"]);
    if let Some(a) = action {
        cmd = cmd.args(["--on-stall", a]);
    }
    let r = run(cmd.args(["-n", "2"]).arg(c_prog("monitor_hb", Build::Ours)).arg("stall").arg(&m), T);
    r.save(&case, "job");
    let mut why = Why::default();
    if action == Some("kill") {
        why.check(r.code() == Some(137), format!("exit {:?}, expected 137 (rank 1 killed)", r.code()));
    } else {
        why.check(r.code() != Some(0), "exit 0: the job did not fail");
        why.check(r.code() != Some(124), "exit 124: pmixrun's own time limit hit");
    }
    why.check(!r.timed_out, "timeout");
    why.check(r.elapsed <= secs(5), format!("took {:?} (limit 5 s)", r.elapsed));
    why.check(r.all_lines().contains(&"monitor_hb: rank 1 stall monitor: SUCCESS"), "rank 1 could not start its monitor");
    why.check(pmixrun_says(&r, 1, |rest| rest.starts_with(" stalled")) > 0, "pmixrun did not name rank 1 as stalled");
    why.check(count(&r, "still running after 20 s") == 0, "a rank slept to the end");
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// A stalled rank with `--on-stall terminate` (see [`stall`]).
#[test]
fn stall_terminate() {
    stall(Some("terminate"));
}

/// A stalled rank without `--on-stall` (terminate is the default).
#[test]
fn stall_default() {
    stall(None);
}

/// A stalled rank with `--on-stall kill`: exit 137.
#[test]
fn stall_kill() {
    stall(Some("kill"));
}

/// The rendezvous file for tools a server of pid `pid` writes in TMPDIR `t`.
fn tool_rendezvous(t: &TmpDir, pid: u32) -> std::path::PathBuf {
    t.path().join(format!("pmix.{}.tool.{pid}", hostname()))
}

/// A tool (c-tests/tool_monitor_self.c) attaches to a running pmixrun,
/// sets a heartbeat monitor on itself and leaves: the job (4 s long) goes
/// on, as the monitor ended with the tool's connection; pmixrun
/// `--on-stall terminate` exits 0.
#[test]
fn tool_monitor_self() {
    let case = Case::new("tool_monitor_self");
    let t = TmpDir::new("jobctl");
    let m = marker(&case.name);
    let job = Job::start(pmixrun_in(&t).args(["--timeout", "30", "--on-stall", "terminate", "-n", "1", "sh", "-c", "sleep 4; true"]).arg(&m));
    let pid = job.pid();
    let rv = tool_rendezvous(&t, pid);
    wait_until(&format!("the rendezvous file {}", rv.display()), secs(20), || rv.exists()).unwrap();
    let tool = run(Cmd::new(c_prog("tool_monitor_self", Build::Ours)).arg(pid.to_string()).env("TMPDIR", &t).on(Lib::Ours), secs(20));
    tool.save(&case, "tool");
    let r = job.wait(T);
    r.save(&case, "job");
    let mut why = Why::default();
    why.check(tool.success(), format!("the tool's attach or monitor request failed: {}", tool.report("tool_monitor_self")));
    why.check(r.success(), format!("pmixrun exited {:?}: the job was stopped for the tool's monitor", r.code()));
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// Whether `p` is there (a link counts, not followed).
fn exists_nofollow(p: &std::path::Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// Checks of the disk after a job, relative to the scratch directory `d`.
fn absent(d: &std::path::Path, paths: &[&str], why: &mut Why) {
    for p in paths {
        why.check(!exists_nofollow(&d.join(p)), format!("{p} still there"));
    }
}

/// Plain files (not links) holding "precious" as they were made.
fn present_file(d: &std::path::Path, paths: &[&str], why: &mut Why) {
    for p in paths {
        let f = d.join(p);
        match std::fs::symlink_metadata(&f) {
            Ok(md) if md.file_type().is_file() => {
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                why.check(text.trim_end_matches('\n') == "precious", format!("{p} content changed"));
            }
            _ => why.add(format!("{p} missing (or not a plain file)")),
        }
    }
}

/// Directories (not links).
fn present_dir(d: &std::path::Path, paths: &[&str], why: &mut Why) {
    for p in paths {
        why.check(std::fs::symlink_metadata(d.join(p)).is_ok_and(|m| m.is_dir()), format!("directory {p} missing"));
    }
}

/// `ls -ld` of everything under `d`, into the case's file `disk.txt`.
fn save_disk(case: &Case, d: &std::path::Path) {
    let r = run(Cmd::new("sh").args(["-c", "find . -exec ls -ld {} + | sort -k9"]).current_dir(d), secs(60));
    case.write("disk.txt", &format!("{}{}", r.stdout, r.stderr));
}

/// Cleanup registration (c-tests/cleanup_rules.c, one rank: see its header)
/// under `host`: exit 0, every check passed, then the disk entry by entry:
/// what was registered is gone, links removed and never followed, what
/// conflicting, relative or foreign requests named stays, and files of
/// another owner (made when run as root) stay with their directories.
fn cleanup(host: &str) {
    let case = Case::new(&format!("cleanup_{host}"));
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let prog = c_prog("cleanup_rules", Build::Ours);
    let cmd = if host == "pmixrun" { pmixrun_in(&t).args(["--timeout", "40", "-n", "1"]) } else { rm_simple_in(&t).args(["-t", "40", "-n", "1"]) };
    let r = run(cmd.arg(prog).arg(&d).arg("rules").arg(host).arg(&m), T);
    r.save(&case, "job");
    save_disk(&case, &d);
    let mut why = Why::default();
    why.check(r.success(), format!("exit {:?}", r.code()));
    summary_ok(&r, "cleanup_rules", &mut why);
    absent(&d, &["tree/a", "tree/sub/b", "tree/sub/deeper", "tree/link", "tree/dirlink", "files/f", "nsdir"], &mut why);
    present_file(&d, &["outside/target", "outside/dir/file", "conflict/f1", "conflict/d/x", "rel/f", "perm/f", "perm/g"], &mut why);
    present_dir(&d, &["outside/dir", "conflict/d"], &mut why);
    if is_root() {
        use std::os::unix::fs::MetadataExt;
        present_file(&d, &["tree/foreign", "tree/sub/foreign2"], &mut why);
        present_dir(&d, &["tree", "tree/sub"], &mut why);
        let owner = std::fs::metadata(d.join("tree/foreign")).map(|m| (m.uid(), m.gid())).ok();
        why.check(owner == Some((65534, 65534)), "tree/foreign changed owner");
    } else {
        absent(&d, &["tree"], &mut why);
    }
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// Cleanup registration under pmixrun (see [`cleanup`]).
#[test]
fn cleanup_pmixrun() {
    cleanup("pmixrun");
}

/// Cleanup registration under the C resource manager.
#[test]
fn cleanup_rm_simple() {
    cleanup("rm_simple");
}

/// Waits (10 s at most) until every file `ready` exists in `d` and at least
/// `min` has passed since `start`; then sends `sig` to `job`'s program
/// itself and waits for its end. Returns the run and the time from the
/// signal to the end.
fn signal_when_ready(
    job: Job,
    d: &std::path::Path,
    ready: &[&str],
    start: std::time::Instant,
    min: std::time::Duration,
    sig: i32,
    why: &mut Why,
) -> (Run, std::time::Duration) {
    let all = || ready.iter().all(|f| d.join(f).exists());
    if wait_until("the ranks' ready files", secs(10), all).is_err() {
        why.add("the ranks were not ready within 10 s");
    }
    // (the rest of the scenario's minimum time)
    std::thread::sleep(min.saturating_sub(start.elapsed()));
    println!("[signal {sig} to pmixrun pid {} after {:?}]", job.pid(), start.elapsed());
    job.signal(sig);
    let t1 = std::time::Instant::now();
    let r = job.wait(T);
    let took = t1.elapsed();
    println!("[exit {:?}, {took:?} after signal {sig}]", r.code());
    (r, took)
}

/// Ctrl-C: `pmixrun -n 2 cleanup_rules <d> sleep` (each rank registers a
/// directory for cleanup, rank 0 one more for the namespace, then they
/// sleep 30 s); SIGINT (its default disposition, as in a terminal) to
/// pmixrun alone once both registered and at least 1 s after the start:
/// pmixrun exits 130 within 5 s, the registered directories are gone and
/// no rank slept to its end.
#[test]
fn ctrlc_pmixrun() {
    let case = Case::new("ctrlc_pmixrun");
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let default_int = run(Cmd::new("env").args(["--default-signal=INT", "true"]), secs(30)).success();
    let via = Cmd::new("env").env("TMPDIR", &t).on(Lib::Ours);
    let via = if default_int { via.arg("--default-signal=INT") } else { via };
    let start = std::time::Instant::now();
    let job = Job::start(via.arg(&env().pmixrun).args(["-v", "-n", "2"]).arg(c_prog("cleanup_rules", Build::Ours)).arg(&d).arg("sleep").arg(&m));
    let mut why = Why::default();
    let (r, took) = signal_when_ready(job, &d, &["ready.0", "ready.1"], start, secs(1), libc::SIGINT, &mut why);
    r.save(&case, "job");
    save_disk(&case, &d);
    why.check(!r.timed_out, format!("pmixrun still running after {T:?}"));
    why.check(r.code() == Some(130), format!("exit {:?}, expected 130 (128 + SIGINT)", r.code()));
    why.check(took <= secs(5), format!("pmixrun took {took:?} to exit after SIGINT (limit 5 s)"));
    why.check(count(&r, ": FAIL") == 0, "a registration failed");
    absent(&d, &["ctrlc/r0", "ctrlc/r1", "ctrlc/ns"], &mut why);
    why.check(count(&r, "woke up") == 0, "a rank slept to the end");
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

/// A preemption notice (c-tests/jctl_preempt.c, 3 ranks): SIGTERM to
/// `pmixrun --preempt-notice <notice>` once every rank is ready: ranks 0
/// and 1 (preemptible) get PMIX_JCTRL_PREEMPT_ALERT with PMIX_TIMEOUT
/// <notice>, rank 2 does not; no rank fails; pmixrun exits 143.
fn preempt(mode: &str, notice: u32) -> (Run, std::time::Duration, Why) {
    let case = Case::new(&format!("preempt_{mode}"));
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let start = std::time::Instant::now();
    let job = Job::start(
        pmixrun_in(&t).args(["-v", "--preempt-notice"]).arg(notice.to_string()).args(["-n", "3"]).arg(c_prog("jctl_preempt", Build::Ours)).arg(&d).arg(mode).arg(&m),
    );
    let mut why = Why::default();
    let (r, took) = signal_when_ready(job, &d, &["ready.0", "ready.1", "ready.2"], start, secs(0), libc::SIGTERM, &mut why);
    r.save(&case, "job");
    why.check(r.code() == Some(143), format!("exit {:?}, expected 143 (128 + SIGTERM)", r.code()));
    why.check(count(&r, "FAIL") == 0, "a rank failed");
    why.check(d.join("alert.0").is_file() && d.join("alert.1").is_file(), "rank 0 or 1 (preemptible) got no alert");
    why.check(!d.join("alert.2").exists(), "rank 2 (not preemptible) was alerted");
    let said = std::fs::read_to_string(d.join("alert.0")).unwrap_or_default();
    let said = said.trim_end_matches('\n');
    why.check(said == notice.to_string(), format!("the alert carried PMIX_TIMEOUT '{said}', expected {notice}"));
    no_leftovers(&m, &mut why);
    (r, took, why)
}

/// Preemption, mode "quick" (notice 20 s): rank 0 reports its checkpoint
/// complete and rank 1 exits, so pmixrun stops the job within 5 s (see
/// [`preempt`]).
#[test]
fn preempt_quick() {
    let (r, took, mut why) = preempt("quick", 20);
    why.check(took <= secs(5), format!("pmixrun took {took:?} to stop although every alerted rank was ready"));
    why.done("preempt_quick", &r);
}

/// Preemption, mode "stay" (notice 2 s): rank 1 never gets ready, so the
/// job stops after the notice: 1.8 to 7 s after the signal.
#[test]
fn preempt_stay() {
    let (r, took, mut why) = preempt("stay", 2);
    why.check(took >= std::time::Duration::from_millis(1800), format!("pmixrun stopped after {took:?}, before the 2 s notice ran out"));
    why.check(took <= secs(7), format!("pmixrun took {took:?} to stop (notice 2 s, grace 2 s)"));
    why.done("preempt_stay", &r);
}

/// `pmixctl checkpoint` against `pmixrun -n 3 jctl_preempt <d> ckpt`: ranks
/// 0 and 1 (event method) each get their checkpoint with its id and
/// complete it; a checkpoint of all ranks is refused (NOT-SUPPORTED: rank 2
/// registered no method) and reaches nobody; no rank fails.
#[test]
fn pmixctl_checkpoint() {
    let case = Case::new("pmixctl_checkpoint");
    let t = TmpDir::new("jobctl");
    let d = scratch(&t);
    let m = marker(&case.name);
    let job = Job::start(pmixrun_in(&t).args(["--timeout", "30", "-n", "3"]).arg(c_prog("jctl_preempt", Build::Ours)).arg(&d).arg("ckpt").arg(&m));
    let pid = job.pid();
    let mut why = Why::default();
    let ready = || (0..3).all(|i| d.join(format!("ready.{i}")).exists());
    if wait_until("the ranks' ready files", secs(10), ready).is_err() {
        why.add("the ranks were not ready within 10 s");
    }
    let ctl = |args: &[&str]| {
        let r = run(Cmd::new(&env().pmixctl).env("TMPDIR", &t).arg("--pid").arg(pid.to_string()).arg("checkpoint").args(args), secs(30));
        println!("{}{}", r.stdout, r.stderr);
        r
    };
    let read = |f: &str| std::fs::read_to_string(d.join(f)).map(|s| s.trim_end_matches('\n').to_string()).ok();
    let ck1 = ctl(&["ck1", "--rank", "0", "--timeout", "10"]);
    why.check(ck1.success(), "checkpoint of rank 0 failed");
    why.check(read("ckpt.0").as_deref() == Some("ck1"), "rank 0 did not get checkpoint ck1");
    // rank 2 registered no method: the request is refused and nobody is asked
    let ck2 = ctl(&["ck2", "--timeout", "10"]);
    why.check(!ck2.success(), "checkpoint of all ranks succeeded although rank 2 has no method");
    let out = format!("{}{}", ck2.stdout, ck2.stderr);
    why.check(out.contains("NOT-SUPPORTED"), format!("no NOT-SUPPORTED for a checkpoint including rank 2: {out}"));
    why.check(!exists_nofollow(&d.join("ckpt.1")), "rank 1 was asked to checkpoint by the refused request");
    let ck3 = ctl(&["ck3", "--rank", "1", "--timeout", "10"]);
    why.check(ck3.success(), "checkpoint of rank 1 failed");
    why.check(read("ckpt.1").as_deref() == Some("ck3"), "rank 1 did not get checkpoint ck3");
    job.signal(libc::SIGINT);
    let r = job.wait(T);
    r.save(&case, "job");
    let fails = [&ck1, &ck2, &ck3, &r].iter().map(|x| count(x, "FAIL")).sum::<usize>();
    why.check(fails == 0, "a rank failed");
    no_leftovers(&m, &mut why);
    why.done(&case.name, &r);
}

// ---------------------------------------------------------------- session directories, rendezvous files

/// c-tests/server_dirs.c (a minimal server: see its header) with TMPDIR `t`.
fn server_dirs(t: &std::path::Path) -> Cmd {
    Cmd::new(c_prog("server_dirs", Build::Ours)).env("TMPDIR", t).on(Lib::Ours)
}

/// c-tests/client_dirs.c (a rank using its session directories).
fn client_dirs() -> std::path::PathBuf {
    c_prog("client_dirs", Build::Ours)
}

/// `find <what>` in `dir`, with `-printf <format>` when given, sorted: a
/// tree's paths (and owners and modes) to compare before and after.
fn find_sorted(dir: &std::path::Path, what: &[&str], printf: Option<&str>) -> Vec<String> {
    let mut cmd = Cmd::new("find").args(what);
    if let Some(f) = printf {
        cmd = cmd.arg("-printf").arg(f);
    }
    let r = run(cmd.current_dir(dir), secs(60)).ok();
    let mut l: Vec<String> = r.stdout.lines().map(str::to_string).collect();
    l.sort();
    l
}

/// Creates `p`'s directory and writes "precious" into it.
fn precious(p: &std::path::Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, "precious\n").unwrap();
}

/// Whether `p` holds "precious" still.
fn is_precious(p: &std::path::Path) -> bool {
    std::fs::read_to_string(p).is_ok_and(|s| s.trim_end_matches('\n') == "precious")
}

/// A file's permission bits in octal, as `stat -c %a` prints them.
fn mode_of(p: &std::path::Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).ok().map(|m| format!("{:o}", m.permissions().mode() & 0o7777))
}

/// 3 ranks under pmixrun get private PMIX_TMPDIR > PMIX_NSDIR >
/// PMIX_PROCDIR directories (c-tests/client_dirs.c), write into them and
/// plant a symlink to a directory outside: after the job the TMPDIR tree is
/// exactly what it was before (a file that was there untouched), and the
/// link was not followed (the outside file untouched). On rpmix's ranks
/// (the server makes a rank's directory when first asked) and OpenPMIx's
/// (made at their connection: their library reads it from the job data).
/// A job whose ranks never ask makes no rank directory, and its namespace's
/// directory only once asked for.
#[test]
fn rank_dirs_and_cleanup() {
    let t = TmpDir::new("session");
    let tmp = t.path().join("tmp");
    let outside = t.path().join("outside");
    precious(&tmp.join("keep/inner/file"));
    precious(&outside.join("target"));
    let before = find_sorted(&tmp, &["."], None);
    for (lib, prog) in [(Lib::Ours, client_dirs()), (Lib::OpenPmix, c_prog("client_dirs", Build::Ref))] {
        let what = format!("pmixrun -n 3 client_dirs on {}", lib.name());
        let mode = if lib == Lib::OpenPmix { "openpmix" } else { "same-user" };
        let r = run(pmixrun().env("TMPDIR", &tmp).on(lib).args(["-n", "3"]).arg(&prog).arg(&outside).arg(mode), secs(60));
        assert!(r.success(), "{}", r.report(&what));
        assert_eq!(r.lines().iter().filter(|l| l.contains("procdir")).count(), 3, "{}", r.report(&format!("{what}: not 3 ranks with their procdir")));
        assert_eq!(find_sorted(&tmp, &["."], None), before, "{what}: the TMPDIR tree after the job (left: after, right: before)");
        assert!(is_precious(&outside.join("target")) && is_precious(&tmp.join("keep/inner/file")), "{what}: outside files touched");
    }
    // Ranks that never ask (c-tests/nsdir_entries.c lists its namespace's directory).
    let r = run(pmixrun().env("TMPDIR", &tmp).on(Lib::Ours).args(["-n", "3"]).arg(c_prog("nsdir_entries", Build::Ours)), secs(60));
    assert!(r.success(), "{}", r.report("pmixrun -n 3 nsdir_entries"));
    let listed: Vec<&str> = r.lines().into_iter().filter(|l| l.starts_with("nsdir_entries:")).collect();
    assert_eq!(listed.len(), 3, "{}", r.report("not 3 ranks listing"));
    assert!(listed.iter().all(|l| l.ends_with(": before 0, 0 entries")), "{}", r.report("directories made that nobody asked for"));
}

/// A client's progress thread starts when first needed: ranks that make
/// blocking calls only (Init, Fence, Gets the server answers) run with the
/// one thread they started with, and registering an event handler starts
/// it; events then arrive while the rank is outside PMIx, and two threads
/// waiting at once beside a fence get their answers
/// (c-tests/caller_progress.c). OpenPMIx's ranks give the same answers
/// under the same launcher (its library always has its thread).
#[test]
fn client_thread_when_needed() {
    for (lib, build) in [(Lib::Ours, Build::Ours), (Lib::OpenPmix, Build::Ref)] {
        let what = format!("pmixrun -n 3 caller_progress on {}", lib.name());
        let r = run(pmixrun().on(lib).args(["-n", "3"]).arg(c_prog("caller_progress", build)), secs(90));
        assert!(r.success(), "{}", r.report(&what));
        let oks: Vec<String> = r.lines().into_iter().filter(|l| l.starts_with("caller_progress ") && l.ends_with(" ok")).map(String::from).collect();
        assert_eq!(oks.len(), 3, "{}", r.report(&format!("{what}: not 3 ranks ok")));
        if lib == Lib::Ours {
            assert!(oks.iter().all(|l| l.ends_with(": threads 1 2 ok")), "{}", r.report(&format!("{what}: a thread before one was needed, or none after")));
        }
    }
}

/// The first entry of `dir` whose name satisfies `pred`.
fn entry_where(dir: &std::path::Path, pred: impl Fn(&str) -> bool) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok()).find(|e| pred(&e.file_name().to_string_lossy())).map(|e| e.path())
}

/// PMIX_TDIR_RMCLEAN: a server that has it leaves its session directory,
/// and a file the host put there, to the host (only its socket goes);
/// without it the session directory is removed with what was put in it.
/// Each server stays up 2 s.
#[test]
fn rmclean_leaves_it_to_the_host() {
    let t = TmpDir::new("session");
    let server = Job::start(server_dirs(t.path()).args(["rmclean", "sleep=2"]));
    let mut d = None;
    wait_until("the session directory rpmix.*", secs(5), || {
        d = entry_where(t.path(), |n| n.starts_with("rpmix."));
        d.is_some()
    })
    .unwrap();
    let d = d.unwrap();
    std::fs::write(d.join("hosts-file"), "").unwrap();
    server.wait(secs(60)).ok();
    assert!(d.join("hosts-file").exists(), "RMCLEAN: the host's file was removed");
    assert!(!exists_nofollow(&d.join("server.sock")), "socket left");
    let server = Job::start(server_dirs(t.path()).arg("sleep=2"));
    let tail = format!(".{}", server.pid());
    let mut d = None;
    wait_until(&format!("the session directory rpmix.*{tail}"), secs(5), || {
        d = entry_where(t.path(), |n| n.starts_with("rpmix.") && n.ends_with(&tail));
        d.is_some()
    })
    .unwrap();
    let d = d.unwrap();
    std::fs::write(d.join("scratch"), "").unwrap();
    server.wait(secs(60)).ok();
    let left: Vec<_> = std::fs::read_dir(&d).map(|r| r.filter_map(|e| Some(e.ok()?.file_name())).collect()).unwrap_or_default();
    assert!(!exists_nofollow(&d), "without RMCLEAN the session directory stays: {left:?}");
}

/// One system server, scheduler and system controller per node: each
/// writes its rendezvous file `pmix.<sys|sched|sysctrlr>.<host>` 0600; a
/// second one fails (exit 3, EXISTS); the file of one killed without
/// finalizing is stale and the next one replaces it, and removes it at its
/// end. A symlink planted at the rendezvous name is refused (exit 3) and
/// left as it is, its target untouched.
#[test]
fn one_per_node() {
    let t = TmpDir::new("session");
    let host = hostname();
    for (kind, name) in [("sys", "sys"), ("sched", "sched"), ("ctrl", "sysctrlr")] {
        let file = t.path().join(format!("pmix.{name}.{host}"));
        let first = Job::start(server_dirs(t.path()).args([kind, "sleep=30"]));
        wait_until(&format!("{kind}: {}", file.display()), secs(5), || file.exists()).ok();
        assert_eq!(mode_of(&file).as_deref(), Some("600"), "{kind}: the mode of {}", file.display());
        let second = run(server_dirs(t.path()).arg(kind), secs(60));
        assert!(second.code() == Some(3) && second.stdout.contains("EXISTS"), "{}", second.report(&format!("{kind}: second server")));
        // killed without finalize: its file is stale, the next server replaces it
        first.signal(libc::SIGKILL);
        first.wait(secs(60));
        assert!(file.exists(), "{kind}: no stale file to replace");
        let third = run(server_dirs(t.path()).arg(kind), secs(60));
        assert!(third.success(), "{}", third.report(&format!("{kind}: after a stale file")));
        assert!(!exists_nofollow(&file), "{kind}: file left after finalize");
        // (the killed server's session directory)
        while let Some(d) = entry_where(t.path(), |n| n.starts_with("rpmix.")) {
            std::fs::remove_dir_all(&d).unwrap();
        }
    }
    // a symlink planted at the rendezvous name is refused, its target untouched
    let victim = t.path().join("victim");
    precious(&victim);
    let link = t.path().join(format!("pmix.sys.{host}"));
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let r = run(server_dirs(t.path()).arg("sys"), secs(60));
    assert!(
        r.code() == Some(3) && is_precious(&victim) && std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
        "{}",
        r.report("symlink")
    );
}

/// Starts server_dirs with `args` and TMPDIR `t`; returns it once it has
/// printed its URI, and the URI.
fn server_with_uri(t: &TmpDir, args: &[&str]) -> (Job, String) {
    let server = Job::start(server_dirs(t.path()).args(args));
    let line = server.wait_line("'server_dirs: uri ...'", secs(20), |l| l.starts_with("server_dirs: uri ")).unwrap();
    let uri = line["server_dirs: uri ".len()..].to_string();
    assert!(!uri.is_empty(), "no uri printed");
    (server, uri)
}

/// As OpenPMIx: a server started without tool support accepts a tool that
/// has its URI (`pmixctl --uri <uri> ps`: it runs no job) but writes no
/// rendezvous file, so `pmixctl --pid` finds it only with tool support.
/// Each server stays up 3 s.
#[test]
fn tool_support_required() {
    let t = TmpDir::new("session");
    let ctl = |args: &[&str]| run(Cmd::new(&env().pmixctl).env("TMPDIR", &t).args(args), secs(60));
    let (server, uri) = server_with_uri(&t, &["sleep=3"]);
    let by_uri = ctl(&["--uri", &uri, "ps"]);
    assert!(format!("{}{}", by_uri.stdout, by_uri.stderr).contains("runs no job"), "{}", by_uri.report("without tool support, by URI"));
    let by_pid = ctl(&["--pid", &server.pid().to_string(), "ps"]);
    server.wait(secs(60));
    assert!(!by_pid.success(), "{}", by_pid.report("without tool support, by pid: found a rendezvous file"));
    let (server, _) = server_with_uri(&t, &["tool", "sleep=3"]);
    let by_pid = ctl(&["--pid", &server.pid().to_string(), "ps"]);
    server.wait(secs(60));
    assert!(format!("{}{}", by_pid.stdout, by_pid.stderr).contains("runs no job"), "{}", by_pid.report("with tool support"));
}

/// PMIX_LAUNCHER_RENDEZVOUS_FILE: a tool (c-tests/tool_query.c) that names
/// where the launcher it started writes its contact waits for the file
/// (the launcher comes a second later) and connects (a job of 2 ranks);
/// the file is 0600 and gone after the launcher's end.
#[test]
fn launcher_rendezvous_file() {
    let case = Case::new("launcher_rendezvous_file");
    let t = TmpDir::new("session");
    let contact = case.path("contact");
    let tool = Job::start(Cmd::new(c_prog("tool_query", Build::Ours)).arg(&contact).arg("10").env("TMPDIR", &t).on(Lib::Ours));
    // (the tool is to wait for the file: the launcher comes later)
    std::thread::sleep(secs(1));
    let launcher = Job::start(pmixrun().env("TMPDIR", &t).env("PMIX_LAUNCHER_RENDEZVOUS_FILE", &contact).on(Lib::Ours).args(["-n", "2", "sleep", "3"]));
    let r = tool.wait(secs(20));
    let mode = mode_of(&contact);
    launcher.wait(secs(60));
    assert!(r.success() && format!("{}{}", r.stdout, r.stderr).contains("has 2 ranks"), "{}", r.report("tool"));
    assert_eq!(mode.as_deref(), Some("600"), "contact file mode");
    assert!(!exists_nofollow(&contact), "contact file left behind");
}

/// A root server (the C resource manager as root) whose 2 clients run as
/// `nobody` (c-tests/client_dirs.c, from a copy nobody can read, with a
/// copy of the library): they connect and get their own NSDIR and PROCDIR
/// (0700, theirs) under the server's 0711 TMPDIR, use them and plant a
/// symlink to a root-owned directory; afterwards nothing is left, and the
/// link's target, its contents, owners and modes are as before.
#[test]
fn root_server_other_user_client() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() || !run(Cmd::new("id").arg("nobody"), secs(30)).success() {
        skip("root_server_other_user_client", "needs root and a nobody user");
        return;
    }
    let t = TmpDir::new("session");
    let p = |s: &str| t.path().join(s);
    for d in ["tmp", "outside/inner", "run"] {
        std::fs::create_dir_all(p(d)).unwrap();
    }
    precious(&p("outside/inner/file"));
    // what nobody runs, and the library, where nobody can read them
    std::fs::copy(client_dirs(), p("run/client_dirs")).unwrap();
    std::fs::copy(env().lib.canonicalize().unwrap(), p("run/libpmix.so.2")).unwrap();
    for (d, mode) in [("", 0o755), ("run", 0o755), ("outside", 0o755), ("outside/inner", 0o755), ("tmp", 0o1777)] {
        std::fs::set_permissions(p(d), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let listing = || find_sorted(t.path(), &["outside", "tmp"], Some("%p %u %g %m\n"));
    let before = listing();
    let r = run(
        Cmd::new(c_prog("rm_simple", Build::Ours))
            .env("TMPDIR", p("tmp"))
            .env("LD_LIBRARY_PATH", p("run"))
            .args(["-u", "nobody", "-n", "2"])
            .arg(p("run/client_dirs"))
            .arg(p("outside"))
            .arg("other-user"),
        secs(60),
    );
    let r = r.ok();
    assert_eq!(r.all_lines().iter().filter(|l| l.contains("procdir /")).count(), 2, "{}", r.report("not 2 ranks with their directories"));
    assert_eq!(listing(), before, "outside/ and tmp/ after the job (left: after, right: before)");
    assert!(is_precious(&p("outside/inner/file")), "the link's target was touched");
}
