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
use std::path::{Path, PathBuf};
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
    argv_with_env(asan_env(), prog, args)
}

/// `env K=V ... prog args` with `vars`.
fn argv_with_env(vars: Vec<(String, String)>, prog: &Path, args: &[&str]) -> Vec<String> {
    let mut v = vec!["env".to_string()];
    v.extend(vars.into_iter().map(|(k, val)| format!("{k}={val}")));
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
/// string the library copied into the info), and counted as rpmix's by the
/// consumers' rule (`rpmix_leaks`): the other cases' silence means
/// something.
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
    // (the consumers' rule tells the library's allocation from the
    // program's: here it is held by the program's leaked array, an
    // indirect leak, which the consumers' cases leave to the program)
    assert!(!leaks_allocated_by_rpmix(&r.stderr, true).is_empty() && rpmix_leaks(&r.stderr).is_empty(), "{}", r.report("rpmix_leaks does not see the probe's leak as rpmix's allocation"));
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

// ---------------------------------------------------------------- consumers on the ASan build
//
// Programs of the field with the library's ASan build under them: Open MPI
// 4.1's programs under pmixrun and under Open MPI's mpirun (mpirun's server
// on the ASan build too), and a part of mpi4py's suite. Open MPI and Python
// leak at exit on any PMIx library, so a leak fails a case only when rpmix
// allocated it (`rpmix_leaks`); every memory error fails it.

/// The ASan environment for a consumer: reports of memory errors fatal
/// (exit 66), leaks reported with whole stacks but judged by
/// `rpmix_leaks`, not by the exit code; Open MPI keeps its components
/// loaded so that their frames are named; which_pmix (after the runtime,
/// which must come first) reports each process's library to `proof`.
fn consumer_env(proof: &Path, leaks: bool) -> Vec<(String, String)> {
    let e = env();
    let supp = e.root.join("tools/asan.supp");
    let which = c_prog("which_pmix", Build::Preload);
    vec![
        ("LD_PRELOAD".into(), format!("{} {}", asan_runtime().display(), which.display())),
        ("LD_LIBRARY_PATH".into(), asan_libdir().display().to_string()),
        (
            "ASAN_OPTIONS".into(),
            format!("detect_leaks={}:halt_on_error=1:exitcode=66:fast_unwind_on_malloc=0:suppressions={}", leaks as u8, supp.display()),
        ),
        ("LSAN_OPTIONS".into(), "exitcode=0".into()),
        ("OMPI_MCA_mca_base_component_disable_dlclose".into(), "1".into()),
        ("WHICH_PMIX_OUT".into(), proof.display().to_string()),
    ]
}

/// The direct leaks rpmix allocated (an indirect leak is memory a leaked
/// block held: its owner's): the first frame of the allocation's
/// stack past the allocator (ASan's interceptor, the C library's and
/// Rust's allocation functions) is rpmix's (a Rust symbol of the crate
/// `pmix`, or the library's file). A leak whose memory a consumer
/// allocated is the consumer's, even with rpmix's frames further down (Open
/// MPI's upcalls run on rpmix's thread).
fn rpmix_leaks(out: &str) -> Vec<String> {
    leaks_allocated_by_rpmix(out, false)
}

/// The leaks (direct ones, and indirect ones too when `indirect`) whose
/// allocation's first frame past the allocator is rpmix's.
fn leaks_allocated_by_rpmix(out: &str, indirect: bool) -> Vec<String> {
    let mut ours = Vec::new();
    let blocks = out.split("\nDirect leak of ").skip(1).chain(out.split("\nIndirect leak of ").skip(1).filter(|_| indirect));
    for block in blocks {
        let frames: Vec<&str> = block.lines().skip(1).take_while(|l| l.trim_start().starts_with('#')).collect();
        let allocator = |f: &&str| {
            ["libsanitizer", "asan_", "/rustc/", "__rust_", "libio/", "vasprintf", "strdup", "string/", "malloc/"].iter().any(|a| f.contains(a))
        };
        if let Some(first) = frames.iter().find(|f| !allocator(f)) {
            if first.contains("4pmix") || first.contains("libpmix.so") {
                ours.push(format!("{}\n{}", block.lines().next().unwrap_or(""), frames.iter().take(10).copied().collect::<Vec<_>>().join("\n")));
            }
        }
    }
    ours
}

/// A consumer's run on the ASan build passed: the exit wanted, no memory
/// error, no leak of rpmix's, at least `min` processes on the ASan build
/// and none on another library.
fn clean_consumer(case: &Case, what: &str, r: Run, proof: &Path, min: usize) {
    r.save(case, what);
    let out = format!("{}{}", r.stdout, r.stderr);
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    if out.contains("ERROR: AddressSanitizer") {
        why.push("a memory error on the ASan build".to_string());
    }
    let leaks = rpmix_leaks(&out);
    if !leaks.is_empty() {
        why.push(format!("{} leaks rpmix allocated, the first:\n{}", leaks.len(), leaks[0]));
    }
    let lib = std::fs::canonicalize(asan_libdir().join("libpmix.so.2")).expect("the ASan build");
    why.extend(which_pmix_loaded(proof, &lib, min));
    assert!(why.is_empty(), "{}", r.report(&format!("{what}: {}", why.join("; "))));
    let theirs = out.matches("Direct leak of ").count();
    println!("{what}: no memory error, {theirs} leaks reported, none rpmix's");
}


/// Open MPI 4.1's programs (hello with Allreduce, publish/lookup,
/// `MPI_Comm_spawn` of 2 children) under pmixrun, every rank and spawned
/// child on the ASan build.
#[test]
fn asan_openmpi_under_pmixrun() {
    let e = env();
    let case = Case::new("asan_openmpi_under_pmixrun");
    for (prog, procs) in [("hello", 2), ("pubsub", 2), ("spawn", 4)] {
        let bin = c_prog(prog, Build::Mpi);
        let proof = case.path(&format!("{prog}.which"));
        let _ = std::fs::write(&proof, "");
        // (in pmixrun's own environment, which its ranks and the children
        // they spawn inherit; pmixrun's server is built into it, not loaded)
        let mut cmd = Cmd::new(&e.pmixrun).args(["-n", "2"]).arg(&bin).on(Lib::Ours);
        for (k, v) in consumer_env(&proof, true) {
            cmd = cmd.env(k, v);
        }
        clean_consumer(&case, prog, run(cmd, secs(300)), &proof, procs);
    }
}

/// The same programs under Open MPI 4.1's mpirun, mpirun (its PMIx server)
/// and every rank on the ASan build.
#[test]
fn asan_openmpi_under_mpirun() {
    let case = Case::new("asan_openmpi_under_mpirun");
    for (prog, procs) in [("hello", 3), ("pubsub", 3), ("spawn", 5)] {
        let bin = c_prog(prog, Build::Mpi);
        let proof = case.path(&format!("{prog}.which"));
        let _ = std::fs::write(&proof, "");
        let mut cmd = Cmd::new("mpirun").args(["--allow-run-as-root", "--oversubscribe", "-np", "2"]);
        for (k, v) in consumer_env(&proof, true) {
            cmd = cmd.arg("-x").arg(&k).env(k, v);
        }
        let cmd = cmd.arg(&bin).env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        clean_consumer(&case, prog, run(cmd, secs(300)), &proof, procs);
    }
}

/// mpi4py's tests of communicators, the environment, spawn and dynamic
/// processes (165 tests) under pmixrun, 2 ranks on the ASan build. Memory
/// errors only: the interpreter's own allocations at exit would drown the
/// leak reports (its allocator is not ASan-aware).
#[test]
fn asan_mpi4py_under_pmixrun() {
    let e = env();
    let case = Case::new("asan_mpi4py_under_pmixrun");
    let proof = case.path("mpi4py.which");
    let _ = std::fs::write(&proof, "");
    let args = ["runtests.py", "-q", "-i", "test_comm", "-i", "test_environ", "-i", "test_spawn", "-i", "test_dynproc"];
    let cmd = Cmd::new(&e.pmixrun)
        .args(["-n", "2"])
        .args(argv_with_env(consumer_env(&proof, false), Path::new("/usr/bin/python3"), &args))
        .current_dir(consumers_cache().join("mpi4py/test"))
        .on(Lib::Ours);
    let r = run(cmd, secs(600));
    let oks = r.stdout.lines().chain(r.stderr.lines()).filter(|l| l.starts_with("OK")).count();
    let ran: u64 = r.stderr.lines().chain(r.stdout.lines()).find_map(|l| l.strip_prefix("Ran ")?.split_whitespace().next()?.parse().ok()).unwrap_or(0);
    assert!(oks == 2 && ran >= 100, "{}", r.report(&format!("{oks} of 2 ranks ended OK, {ran} tests ran")));
    clean_consumer(&case, "mpi4py", r, &proof, 2);
}
