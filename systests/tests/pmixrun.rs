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

/// The same in a private mount namespace, on a root of its own: a fresh
/// /tmp, and / made of binds of the real one's entries, so that /mytmpdir
/// and the others are this case's alone.
const RFC0027_PRIVATE_ROOT: &str = r#"
set -e
mount -t tmpfs rfc0027 /tmp
R=/tmp/root
mkdir -m 755 "$R"
for e in /*; do
    n=${e#/}
    if [ -L "$e" ]; then ln -s "$(readlink "$e")" "$R/$n"
    elif [ "$n" = tmp ]; then mkdir -m 1777 "$R/tmp"
    elif [ -d "$e" ]; then mkdir "$R/$n"; mount --rbind "$e" "$R/$n"
    fi
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
    let script = |c: Cmd| {
        c.env("PMIXRUN", &env().pmixrun).env("PROG", &prog).env("LEFT", &left).env("RUN", RFC0027_RUN).on(Lib::Ours)
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

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/jobctl-tests.sh
    mod jobctl {
        use super::*;
        driver_cases!("jobctl-tests.sh", "jobctl", secs(300), [], {
            jctl_signals_pmixrun: "jctl-signals-pmixrun",
            jctl_signals_rm_simple_direct: "jctl-signals-rm_simple-direct",
            jctl_signals_rm_simple_defer: "jctl-signals-rm_simple-defer",
            monitor_hb: "monitor-hb",
            monitor_file: "monitor-file",
            monitors_rm_simple: "monitors-rm_simple",
            stall_terminate: "stall-terminate",
            stall_default: "stall-default",
            stall_kill: "stall-kill",
            tool_monitor_self: "tool-monitor-self",
            cleanup_pmixrun: "cleanup-pmixrun",
            cleanup_rm_simple: "cleanup-rm_simple",
            ctrlc_pmixrun: "ctrlc-pmixrun",
            preempt_quick: "preempt-quick",
            preempt_stay: "preempt-stay",
            pmixctl_checkpoint: "pmixctl-checkpoint",
        });
    }
    /// tools/session-tests.sh
    mod session {
        use super::*;
        driver_cases!("session-tests.sh", "session", secs(300), [], {
            rank_dirs_and_cleanup: "rank_dirs_and_cleanup",
            launcher_rendezvous_file: "launcher_rendezvous_file",
            tool_support_required: "tool_support_required",
            rmclean_leaves_it_to_the_host: "rmclean_leaves_it_to_the_host",
            one_per_node: "one_per_node",
            root_server_other_user_client: "root_server_other_user_client",
        });
    }
}
