//! IO forwarding: ranks' output to tools and the terminal, stdin.

use rpmix_systests::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

// ---------------------------------------------------------------- IO forwarding under pmixrun

/// MiB each rank writes per stream in the big case (`IOF_TEST_MIB`, default 50).
fn mib() -> u64 {
    std::env::var("IOF_TEST_MIB").ok().and_then(|v| v.parse().ok()).unwrap_or(50)
}

/// c-tests/iof_ranks.c (no PMIx: it writes what a rank of `PMIX_RANK`
/// writes), optimized (c-tests/Makefile).
fn iof_ranks() -> PathBuf {
    c_prog("iof_ranks", Build::Plain)
}

fn pmixrun(t: &TmpDir) -> Cmd {
    Cmd::new(&env().pmixrun).env("TMPDIR", t).on(Lib::Ours)
}

/// pmixctl's command line: `pmixctl --pid <pid> <args>`.
fn ctl_argv(pid: u32, args: &[&str]) -> Vec<String> {
    [env().pmixctl.to_string_lossy().into_owned(), "--pid".into(), pid.to_string()].into_iter().chain(args.iter().map(|s| s.to_string())).collect()
}

fn ctl(t: &TmpDir, pid: u32, args: &[&str]) -> Cmd {
    Cmd::new(&env().pmixctl).env("TMPDIR", t).on(Lib::Ours).arg("--pid").arg(pid.to_string()).args(args)
}

/// Waits until a tool can attach to pmixrun `pid` (`pmixctl ps` answers).
fn wait_attachable(t: &TmpDir, pid: u32) {
    wait_until(&format!("pmixctl ps of pmixrun {pid} answers"), secs(60), || run(ctl(t, pid, &["ps"]), secs(30)).success()).unwrap();
}

/// Waits until pmixrun `pid` has made its tool rendezvous file (a tool can
/// find it) and started its `n` ranks (`sh`).
fn wait_ranks(t: &TmpDir, pid: u32, n: usize) {
    let rendezvous = t.path().join(format!("pmix.{}.tool.{pid}", hostname()));
    wait_until(&rendezvous.display().to_string(), secs(60), || rendezvous.exists()).unwrap();
    wait_children_running(pid, n, "sh", secs(60)).unwrap();
}

/// The number of files among `logs` that say the tool is following.
fn following(logs: &[PathBuf]) -> usize {
    logs.iter().filter(|l| std::fs::read_to_string(l).is_ok_and(|s| s.contains("following"))).count()
}

/// 8 ranks write 50 MiB (`IOF_TEST_MIB`) each on stdout and on stderr, in
/// chunks that split lines: 16 attached tools (`pmixctl output --follow`
/// of each rank and stream, registered before the ranks write) get exactly
/// each rank's bytes (sha256), and pmixrun's own stdout and stderr hold the
/// same bytes, whole lines of one rank each (tools/iof-verify.py).
#[test]
fn big_output_to_tools_and_terminal() {
    const N: u32 = 8;
    let case = Case::new("big_output_to_tools_and_terminal");
    let t = TmpDir::new("iof");
    let d = case.path("big");
    std::fs::create_dir_all(&d).unwrap();
    let (prog, mib) = (iof_ranks(), mib().to_string());
    let p = |f: &str| d.join(f);
    for r in 0..N {
        let f = |ch: &str| p(&format!("expect.{r}.{ch}"));
        run(to_files([prog.as_os_str(), mib.as_ref()], &f("out"), &f("err")).env("PMIX_RANK", r.to_string()), secs(300)).ok();
    }
    let gate = p("gate");
    let job = Job::start(to_files([env().pmixrun.as_os_str(), "--timeout".as_ref(), "300".as_ref(), "-n".as_ref(), "8".as_ref(), prog.as_os_str(), mib.as_ref(), gate.as_os_str()], &p("term.out"), &p("term.err")).env("TMPDIR", &t).on(Lib::Ours));
    let pid = job.pid();
    wait_attachable(&t, pid);
    let mut tools = Vec::new();
    let mut logs = Vec::new();
    for r in 0..N {
        for (ch, extra) in [("out", None), ("err", Some("--stderr"))] {
            let rank = r.to_string();
            let mut args = vec!["output", "--follow", "--rank", &rank];
            args.extend(extra);
            let (out, log) = (p(&format!("tool.{r}.{ch}")), p(&format!("tool.{r}.{ch}.log")));
            tools.push(Job::start(to_files(ctl_argv(pid, &args), &out, &log).env("TMPDIR", &t).on(Lib::Ours)));
            logs.push(log);
        }
    }
    // The ranks start writing once every tool has its pull registered.
    wait_until("16 tools following", secs(60), || following(&logs) == 2 * N as usize).unwrap();
    case.write("big/gate", "");
    let r = job.wait(secs(300));
    assert!(r.success(), "{}", r.report("pmixrun"));
    for tool in tools {
        let tr = tool.wait(secs(300));
        if !tr.success() {
            // (what the tools said, but that they were following)
            let said: Vec<String> = logs
                .iter()
                .filter_map(|l| std::fs::read_to_string(l).ok())
                .flat_map(|s| s.lines().filter(|l| !l.contains("following")).map(str::to_string).collect::<Vec<_>>())
                .collect();
            panic!("{}", tr.report(&format!("a pmixctl failed: {}", said.join("\n"))));
        }
    }
    let v = run(Cmd::new("python3").arg(env().root.join("tools/iof-verify.py")).arg(&d).arg(N.to_string()), secs(300));
    println!("{}", v.stdout);
    v.ok();
    let _ = std::fs::remove_dir_all(&d);
}

/// Whether pmixrun `args` (then `-n <n> sh -c 'read x; echo "$PMIX_RANK:$x"'`),
/// its stdin a line "hi", gives each rank the line as `want` says: its
/// sorted output, each line followed by a space.
fn stdin_case(case: &Case, args: &[&str], n: u32, want: &str) {
    let t = TmpDir::new("iof");
    let input = case.write("input", "hi\n");
    let r = run(
        pmixrun(&t).args(args).arg("-n").arg(n.to_string()).args(["sh", "-c", "read x; echo \"$PMIX_RANK:$x\""]).stdin_file(&input),
        secs(30),
    );
    let mut lines = r.lines();
    lines.sort_unstable();
    let got: String = lines.iter().map(|l| format!("{l} ")).collect();
    let what = if args.is_empty() { "pmixrun's default".to_string() } else { args.join(" ") };
    assert_eq!(got, want, "{}", r.report(&format!("stdin with {what}")));
}

/// pmixrun's stdin reaches rank 0 by default, the rank `--stdin 2` names,
/// every rank with `--stdin all`, and none with `--stdin none`.
#[test]
fn stdin_targets() {
    let case = Case::new("stdin_targets");
    stdin_case(&case, &[], 3, "0:hi 1: 2: ");
    stdin_case(&case, &["--stdin", "2"], 3, "0: 1: 2:hi ");
    stdin_case(&case, &["--stdin", "all"], 3, "0:hi 1:hi 2:hi ");
    stdin_case(&case, &["--stdin", "none"], 2, "0: 1: ");
}

/// Rank 0 closes its stdout at once and keeps running (4 s): rank 1's
/// first line reaches pmixrun's stdout within 3 s of the start, long
/// before rank 1 ends.
#[test]
fn early_close_does_not_stall() {
    let t = TmpDir::new("iof");
    let t0 = Instant::now();
    let job = Job::start(pmixrun(&t).args([
        "-n",
        "2",
        "sh",
        "-c",
        "if [ $PMIX_RANK = 0 ]; then exec >&-; sleep 4; else echo first; sleep 4; echo last; fi",
    ]));
    let got = job.wait_line("'first'", secs(30), |l| l == "first");
    let at = t0.elapsed();
    let out = job.stdout_so_far();
    let first = out.lines().next().map(str::to_string);
    let r = job.wait(secs(30));
    assert!(got.is_ok() && first.as_deref() == Some("first") && at < secs(3), "first line {first:?} after {at:?} ({got:?})\n{}", r.report("early close"));
}

/// Output written before any tool pulls is kept (per rank and stream, up
/// to `--iof-cache` bytes: 12) and delivered to the first pull
/// (`pmixctl output`); beyond the bound the oldest or the newest chunks go,
/// as asked.
#[test]
fn cache_before_pull() {
    for (policy, want) in [("oldest", "bbbb cccc "), ("newest", "aaaa bbbb ")] {
        let t = TmpDir::new("iof");
        let job = Job::start(pmixrun(&t).args(["--iof-cache", &format!("12,{policy}"), "-n", "1", "sh", "-c", "printf \"aaaa\\n\"; sleep 0.2; printf \"bbbb\\n\"; sleep 0.2; printf \"cccc\\n\"; sleep 3"]));
        // (all three written: pmixrun has shown the last)
        job.wait_line("'cccc'", secs(30), |l| l == "cccc").unwrap();
        let o = run(ctl(&t, job.pid(), &["output"]), secs(30));
        let got: String = o.lines().iter().map(|l| format!("{l} ")).collect();
        job.wait(secs(30));
        assert_eq!(got, want, "{policy}: {}", o.report("pmixctl output"));
    }
}

/// pmixrun's peak resident memory (VmHWM), in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// One rank writes 4 x 50 MiB (`IOF_TEST_MIB`) while an attached tool's
/// reader stalls for 3 s: pmixrun throttles the rank instead of queueing,
/// so its peak memory stays below 2 x 50 MiB (48 MiB when fewer than 16 MiB
/// are asked), and the tool still gets every byte.
#[test]
fn slow_tool_bounds_memory() {
    let case = Case::new("slow_tool_bounds_memory");
    let t = TmpDir::new("iof");
    let d = case.path("slow");
    std::fs::create_dir_all(&d).unwrap();
    let mib = mib();
    let total = (4 * mib).to_string();
    let prog = iof_ranks();
    let (expect, got, log, gate) = (d.join("expect"), d.join("got"), d.join("log"), d.join("gate"));
    let null = Path::new("/dev/null");
    run(to_files([prog.as_os_str(), total.as_ref()], &expect, null).env("PMIX_RANK", "0"), secs(300)).ok();
    let job = Job::start(to_files([env().pmixrun.as_os_str(), "--timeout".as_ref(), "300".as_ref(), "-n".as_ref(), "1".as_ref(), prog.as_os_str(), total.as_ref(), gate.as_os_str()], null, null).env("TMPDIR", &t).on(Lib::Ours));
    let pid = job.pid();
    wait_attachable(&t, pid);
    // (PMIX_DEBUG=1: if the attach fails, the log says why; the reader
    // stalls 3 s before it reads)
    let tool = Job::start(
        Cmd::new("sh")
            .args(["-c", "\"$0\" --pid \"$1\" output --follow 2>\"$2\" | { sleep 3; cat; } >\"$3\""])
            .arg(&env().pmixctl)
            .arg(pid.to_string())
            .arg(&log)
            .arg(&got)
            .env("PMIX_DEBUG", "1")
            .env("TMPDIR", &t)
            .on(Lib::Ours),
    );
    wait_until("the tool follows", secs(60), || following(std::slice::from_ref(&log)) == 1).unwrap();
    case.write("slow/gate", "");
    let mut hwm = 0;
    wait_until("pmixrun ends", secs(300), || {
        if let Some(h) = vm_hwm_kib(pid) {
            hwm = h;
        }
        proc_ended(pid)
    })
    .unwrap();
    job.wait(secs(30));
    tool.wait(secs(300));
    println!("    wrote {} MiB; pmixrun peak RSS {} MiB", 4 * mib, hwm / 1024);
    let size = |f: &Path| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    let same = run(Cmd::new("cmp").arg("-s").arg(&expect).arg(&got), secs(120)).success();
    assert!(same, "tool bytes differ ({} of {})\n{}", size(&got), size(&expect), std::fs::read_to_string(&log).unwrap_or_default());
    let bound = if mib < 16 { 48 } else { 2 * mib };
    assert!(hwm / 1024 < bound, "peak RSS too high: {} MiB (bound {bound} MiB)", hwm / 1024);
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs c-tests/tool_iof.c against a pmixrun of 3 ranks running `script`
/// (once a tool can find it and the ranks run): `tool_iof <pid> 3 <args>`
/// must exit 0.
fn tool_iof(script: &str, args: &[&Path]) -> Result<(), String> {
    let t = TmpDir::new("iof");
    let job = Job::start(pmixrun(&t).args(["--timeout", "30", "-n", "3", "sh", "-c", script]));
    let pid = job.pid();
    wait_ranks(&t, pid, 3);
    let r = run(Cmd::new(c_prog("tool_iof", Build::Ours)).arg(pid.to_string()).arg("3").args(args).env("TMPDIR", &t).on(Lib::Ours), secs(20));
    job.wait(secs(30));
    println!("{}", r.stdout.lines().map(|l| format!("    {l}\n")).collect::<String>());
    if r.success() {
        Ok(())
    } else {
        Err(r.report("tool_iof"))
    }
}

/// The IOF API from a C tool attached to a running pmixrun
/// (c-tests/tool_iof.c): pulling stdin and deregistering an unknown handle
/// fail with their error codes; a blocking pull delivers the ranks' tagged
/// output, its deregistration succeeds; a non-blocking pull and
/// deregistration fire their callbacks exactly once.
#[test]
fn iof_api_from_a_c_tool() {
    // (the ranks write 1.5 s after they start: the tool pulls first)
    tool_iof("sleep 1.5; echo hello-$PMIX_RANK; echo err >&2; exec >&- 2>&-; sleep 3", &[]).unwrap();
}

/// The IOF directives from a C tool (c-tests/tool_iof.c): tags with host
/// and pid, stderr merged into stdout and an output directory
/// (`detailed`); then rank tags into one file only (`fileonly`).
#[test]
fn iof_directives_from_a_c_tool() {
    let case = Case::new("iof_directives_from_a_c_tool");
    let script = "sleep 1; echo hello-$PMIX_RANK-$$; echo err-$PMIX_RANK >&2; exec >&- 2>&-; sleep 2";
    let tree = case.path("tree");
    let all = case.path("all.txt");
    let failed: Vec<String> = [("detailed", &tree), ("fileonly", &all)]
        .into_iter()
        .filter_map(|(mode, target)| tool_iof(script, &[Path::new(mode), target]).err().map(|e| format!("{mode}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
