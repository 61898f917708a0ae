//! The library under AddressSanitizer and LeakSanitizer, and the calls whose
//! caller breaks the contract at the edge of memory, compared with OpenPMIx.
//!
//! The ASan build: libpmix.so built with `-Zsanitizer=address` on the stable
//! toolchain (`RUSTC_BOOTSTRAP=1`) in its own target directory
//! (target/asan), loaded by the C programs through `LD_LIBRARY_PATH` with
//! Debian's ASan runtime (gcc's libasan) preloaded: the C programs are not
//! instrumented, the library is. Every report fails the case, except what
//! tools/asan.supp and tools/lsan.supp name (each entry says whose code it is).

use rpmix_systests::*;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Debian's ASan runtime (gcc's libasan, from libasan8 / gcc).
fn asan_runtime() -> PathBuf {
    let rt = run(Cmd::new("gcc").arg("-print-file-name=libasan.so"), secs(60)).ok();
    let rt = PathBuf::from(rt.stdout.trim());
    assert!(rt.exists(), "no AddressSanitizer runtime (libasan): tools/install-deps.sh installs it");
    std::fs::canonicalize(&rt).expect("the runtime's path")
}

/// The ASan build of the library (once per test process: cargo's lock
/// orders the cases of other processes), and a directory where it is
/// libpmix.so.2.
fn asan_libdir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let e = env();
        let release = sanitized_build("address", "asan", &["--lib"]);
        let dir = e.root.join("target/asan/lib");
        std::fs::create_dir_all(&dir).expect("target/asan/lib");
        let link = dir.join("libpmix.so.2");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(release.join("libpmix.so"), &link).expect("the link to the ASan build");
        dir
    })
    .clone()
}

/// The environment a program needs to run on the ASan build: the runtime
/// preloaded, the library found first, reports fatal (exit 66), leaks
/// checked at exit, the suppression files. An allocation no memory can hold
/// (test_badinput's fence of 2^40 procs) returns NULL as glibc's malloc
/// does, instead of ASan's abort: the library's fallible allocations then
/// answer an error, which is what is tested.
fn asan_env() -> Vec<(String, String)> {
    let e = env();
    let supp = |f: &str| e.root.join("tools").join(f).display().to_string();
    vec![
        ("LD_PRELOAD".into(), asan_runtime().display().to_string()),
        ("LD_LIBRARY_PATH".into(), asan_libdir().display().to_string()),
        ("ASAN_OPTIONS".into(), format!("detect_leaks=1:halt_on_error=1:exitcode=66:allocator_may_return_null=1:suppressions={}:print_suppressions=1", supp("asan.supp"))),
        ("LSAN_OPTIONS".into(), format!("exitcode=66:suppressions={}:print_suppressions=1", supp("lsan.supp"))),
    ]
}

fn on_asan(mut cmd: Cmd) -> Cmd {
    for (k, v) in asan_env() {
        cmd = cmd.env(k, v);
    }
    cmd
}

/// `env K=V ... prog args`: for programs a launcher starts (the launcher
/// itself is not run on the ASan build).
fn env_argv(prog: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut v = vec!["env".to_string()];
    v.extend(asan_env().into_iter().map(|(k, val)| format!("{k}={val}")));
    v.push(prog.display().to_string());
    v.extend(args.iter().map(|s| s.to_string()));
    v
}

/// A run on the ASan build passed: success, no report, and the library in
/// use is the instrumented one (its reports would otherwise never come).
fn clean(case: &Case, what: &str, r: Run) {
    r.save(case, what);
    let out = format!("{}{}", r.stdout, r.stderr);
    assert!(
        r.success() && !out.contains("ERROR: AddressSanitizer") && !out.contains("ERROR: LeakSanitizer"),
        "{}",
        r.report(&format!("{what}: a report on the AddressSanitizer build"))
    );
    for l in out.lines().filter(|l| l.contains("Suppressions used") || l.contains("leak:") || l.contains("interceptor_via")) {
        println!("{l}");
    }
}

/// One standalone C program on the ASan build.
fn asan_program(prog: &str) {
    let case = Case::new(&format!("asan_{prog}"));
    let bin = c_prog(prog, Build::Ours);
    clean(&case, prog, run(on_asan(Cmd::new(&bin)), secs(900)));
}

/// The control: the build is instrumented (it calls the runtime's
/// checks), and a leak of an info array the library allocated is reported
/// by LeakSanitizer with the library's frames (c-tests/asan_leak_probe.c: the
/// string the library copied into the info):
/// the other cases' silence means something.
#[test]
fn asan_build_is_instrumented() {
    let lib = asan_libdir().join("libpmix.so.2");
    let syms = run(Cmd::new("nm").args(["-D", "--undefined-only"]).arg(&lib), secs(60)).ok();
    assert!(syms.stdout.contains("__asan_report_load"), "the ASan build calls no __asan_report_*: not instrumented");
    let case = Case::new("asan_build_is_instrumented");
    let probe = c_prog("asan_leak_probe", Build::Ours);
    let r = run(on_asan(Cmd::new(&probe)), secs(120));
    r.save(&case, "asan_leak_probe");
    assert!(
        r.code() == Some(66) && r.stderr.contains("ERROR: LeakSanitizer") && r.stderr.contains("src/data/elem.rs"),
        "{}",
        r.report("LeakSanitizer did not report the probe's leak of the library's allocation")
    );
}

#[test]
fn asan_test_data() {
    asan_program("test_data");
}

#[test]
fn asan_test_badinput() {
    asan_program("test_badinput");
}

#[test]
fn asan_test_macros() {
    asan_program("test_macros");
}

#[test]
fn asan_test_strings() {
    asan_program("test_strings");
}

#[test]
fn asan_test_stubs() {
    asan_program("test_stubs");
}

/// The C resource manager (a server on the ASan build) and 4 ranks of
/// client_basic (clients on the ASan build).
#[test]
fn asan_rm_simple_client_basic() {
    let case = Case::new("asan_rm_simple_client_basic");
    let rm = c_prog("rm_simple", Build::Ours);
    let client = c_prog("client_basic", Build::Ours);
    clean(&case, "rm_simple", run(on_asan(Cmd::new(&rm).args(["-n", "4"]).arg(&client).arg("4")), secs(300)));
}

/// pmixrun (the normal build) with ranks on the ASan build: demo_job and
/// client_basic.
#[test]
fn asan_pmixrun_clients() {
    let e = env();
    let case = Case::new("asan_pmixrun_clients");
    for (prog, args) in [("demo_job", &[][..]), ("client_basic", &["4"][..])] {
        let bin = c_prog(prog, Build::Ours);
        let cmd = Cmd::new(&e.pmixrun).args(["-n", "4"]).args(env_argv(&bin, args)).on(Lib::Ours);
        clean(&case, prog, run(cmd, secs(300)));
    }
}

// ---------------------------------------------------------------- contract sweep

/// The outcome of each call of c-tests/contract_sweep.c.
fn sweep(lib: Lib, prog: &std::path::Path) -> Vec<(String, String)> {
    let rm = c_prog("rm_simple", if lib == Lib::Ours { Build::Ours } else { Build::Ref });
    let r = run(Cmd::new(&rm).args(["-n", "1", "-t", "200"]).arg(prog).on(lib), secs(300));
    assert!(r.success(), "{}", r.report(&format!("the sweep on {}", lib.name())));
    r.stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(_, o)| o.starts_with("survived") || o.starts_with("crashed"))
        .map(|(c, o)| (c.to_string(), o.to_string()))
        .collect()
}

/// Keys and info arrays at the end of a page followed by a PROT_NONE page
/// (c-tests/contract_sweep.c), each call in its own child, under the C host
/// on both libraries: every call OpenPMIx 4.2.2 survives, rpmix survives;
/// the calls within the contract survive on both.
#[test]
fn contract_sweep_vs_openpmix() {
    let prog = c_prog("contract_sweep", Build::Ref);
    let theirs = sweep(Lib::OpenPmix, &prog);
    let ours = sweep(Lib::Ours, &prog);
    assert_eq!(theirs.len(), 9, "OpenPMIx's sweep: {theirs:#?}");
    assert_eq!(ours.len(), theirs.len(), "rpmix's sweep: {ours:#?}");
    println!("{:<52} | {:<28} | rpmix", "call", "OpenPMIx 4.2.2");
    for ((call, t), (call2, o)) in theirs.iter().zip(&ours) {
        assert_eq!(call, call2);
        println!("{call:<52} | {t:<28} | {o}");
        if t.starts_with("survived") {
            assert!(o.starts_with("survived"), "{call}: OpenPMIx survives ({t}), rpmix {o}");
        }
        if !call.contains("no NUL") && !call.contains("ninfo 1000") {
            assert!(o.starts_with("survived"), "{call}: within the contract, rpmix {o}");
        }
    }
}

/// pmixrun itself built with AddressSanitizer (an executable: rustc links
/// the runtime in; the ranks get gcc's through `env`, not pmixrun's
/// environment, where a second runtime would clash), running ranks on the
/// ASan build: a job's whole server side and every rank instrumented.
#[test]
fn asan_pmixrun_itself() {
    let case = Case::new("asan_pmixrun_itself");
    let pmixrun = sanitized_build("address", "asan", &["--bin", "pmixrun"]).join("pmixrun");
    let options = asan_env().into_iter().find(|(k, _)| k == "ASAN_OPTIONS").map(|(_, v)| v).expect("ASAN_OPTIONS");
    let lsan = asan_env().into_iter().find(|(k, _)| k == "LSAN_OPTIONS").map(|(_, v)| v).expect("LSAN_OPTIONS");
    for (n, prog) in [("4", "demo_job"), ("4", "client_basic"), ("2", "client_spawn"), ("3", "client_events"), ("4", "client_groups")] {
        let bin = c_prog(prog, Build::Ours);
        let args: &[&str] = if prog == "client_basic" { &["4"] } else { &[] };
        let cmd = Cmd::new(&pmixrun).args(["-n", n]).args(env_argv(&bin, args)).env("ASAN_OPTIONS", &options).env("LSAN_OPTIONS", &lsan).on(Lib::Ours);
        clean(&case, prog, run(cmd, secs(300)));
    }
}
