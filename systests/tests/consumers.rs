//! Programs of the field with their own tests: mpi4py's suite, mpi4py.futures,
//! rixa, Intel MPI's IMB, OpenPMIx's Python bindings.

use rpmix_systests::*;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

/// Open MPI's mpirun as root, more ranks than cores allowed.
const MPIRUN: [&str; 3] = ["mpirun", "--allow-run-as-root", "--oversubscribe"];

/// The environment mpirun needs as root.
fn as_root(cmd: Cmd) -> Cmd {
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
}

// ---------------------------------------------------------------- OpenPMIx's Python bindings
//
// c-tests/py/pmix_client.py (init, Get of job data, Put, Commit, Fence
// collecting data, Get of every peer's key, Finalize), 4 ranks of
// /usr/bin/python3 on Debian's python3-pmix (module `pmix`, Cython over
// libpmix.so.2).

const NP: usize = 4;
const PY: &str = "/usr/bin/python3";

/// A run of the client: the launcher, the library of the ranks.
#[derive(Clone, Copy, PartialEq)]
enum PyRun {
    /// Open MPI's mpirun on the system library: the reference.
    MpirunOpenPmix,
    /// rpmix's pmixrun.
    PmixrunRpmix,
    /// mpirun (its embedded PMIx server) and the ranks on rpmix.
    MpirunRpmix,
}

/// The "rank R: ..." lines of an output that depend neither on the library
/// nor on the launcher ("info rank R: ..." left out), sorted; as
/// `grep -oE '(info )?rank [0-9]+: .*'` finds them.
fn rank_lines(out: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = out
        .iter()
        .filter_map(|l| {
            let at = (0..l.len()).filter(|&i| l.is_char_boundary(i)).find(|&i| {
                l[i..].strip_prefix("rank ").is_some_and(|rest| {
                    let d = rest.chars().take_while(char::is_ascii_digit).count();
                    d > 0 && rest[d..].starts_with(": ")
                })
            })?;
            (!l[..at].ends_with("info ")).then(|| l[at..].to_string())
        })
        .collect();
    v.sort();
    v
}

/// The text after `<key>` of the first line containing `info rank <r>: <key>`.
fn info_of<'a>(out: &[&'a str], r: usize, key: &str) -> Option<&'a str> {
    let pat = format!("info rank {r}: {key}");
    out.iter().find_map(|l| l.find(&pat).map(|i| &l[i + pat.len()..]))
}

/// The client run as `how`; the case's checks (exit 0, no rank failed,
/// each rank's "rank R: OK", its library by version and by mapping, its
/// parent the launcher, NP x (8 + NP) rank lines, nothing left running);
/// returns the output's lines.
fn py_run(name: &str, how: PyRun) -> Vec<String> {
    let case = Case::new(name);
    let client = env().root.join("c-tests/py/pmix_client.py");
    let pre = run(Cmd::new(PY).args(["-W", "ignore", "-c", "import pmix; pmix.PMIxClient"]), secs(60));
    assert!(pre.success() && client.exists(), "{}", pre.report("python3-pmix missing (or no c-tests/py/pmix_client.py)"));
    // (the session directories of killed launchers stay in it)
    let t = TmpDir::new("py");
    let marker = new_marker(name);
    let np = NP.to_string();
    let cmd = match how {
        PyRun::MpirunOpenPmix => merged(MPIRUN.iter().copied().chain(["-np", &np])).on(Lib::OpenPmix),
        PyRun::PmixrunRpmix => merged([env().pmixrun.to_string_lossy().as_ref(), "-n", &np]).on(Lib::Ours),
        PyRun::MpirunRpmix => merged(MPIRUN.iter().copied().chain(["-np", &np])).on(Lib::Ours),
    };
    let r = run(as_root(cmd).arg(PY).arg(&client).arg(&marker).env("TMPDIR", &t), secs(90));
    r.save(&case, "run");
    let out = r.all_lines();
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    let failed = |l: &&str| {
        l.match_indices("rank ").any(|(i, _)| {
            let rest = &l[i + 5..];
            let d = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '?').count();
            d > 0 && rest[d..].starts_with(": FAIL")
        })
    };
    if let Some(l) = out.iter().find(|l| failed(l)) {
        why.push(format!("a rank failed: {l}"));
    }
    let lines = rank_lines(&out);
    let ours = Lib::Ours.file().to_string_lossy().into_owned();
    for rk in 0..NP {
        if !lines.contains(&format!("rank {rk}: OK")) {
            why.push(format!("no 'rank {rk}: OK'"));
            continue;
        }
        let ver = info_of(&out, rk, "version=").unwrap_or("");
        let path = info_of(&out, rk, "lib=").unwrap_or("");
        let parent = info_of(&out, rk, "parent=").map(|p| format!("info rank {rk}: parent={p}")).unwrap_or_default();
        let plib = parent.rsplit_once("parent_lib=").map_or(parent.as_str(), |(_, x)| x);
        if how == PyRun::MpirunOpenPmix {
            if !ver.starts_with("OpenPMIx") {
                why.push(format!("rank {rk}: version '{ver}' is not OpenPMIx's"));
            }
            if path.is_empty() || path == "none" || path == ours {
                why.push(format!("rank {rk}: loaded '{path}', not the system libpmix"));
            }
        } else {
            if !ver.starts_with("rpmix") {
                why.push(format!("rank {rk}: version '{ver}' is not rpmix's"));
            }
            if path != ours {
                why.push(format!("rank {rk}: loaded '{path}', not {ours}"));
            }
        }
        if how == PyRun::PmixrunRpmix {
            if !parent.contains("parent=pmixrun ") {
                why.push(format!("rank {rk}: parent is not pmixrun ({parent})"));
            }
        } else {
            if !parent.contains("parent=mpirun ") {
                why.push(format!("rank {rk}: parent is not mpirun ({parent})"));
            }
            if plib != path {
                why.push(format!("rank {rk}: mpirun has '{plib}', the rank '{path}'"));
            }
        }
    }
    if lines.len() != NP * (8 + NP) {
        why.push(format!("{} rank lines, expected {}", lines.len(), NP * (8 + NP)));
    }
    let left = leftovers(&marker, secs(5));
    if !left.is_empty() {
        why.push(format!("processes left running: {left:?}"));
    }
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
    lines
}

/// The reference: mpirun on the system library (no LD_LIBRARY_PATH).
#[test]
fn py_mpirun_openpmix() {
    py_run("py_mpirun_openpmix", PyRun::MpirunOpenPmix);
}

/// rpmix's pmixrun, the ranks on rpmix.
#[test]
fn py_pmixrun_rpmix() {
    py_run("py_pmixrun_rpmix", PyRun::PmixrunRpmix);
}

/// mpirun with LD_LIBRARY_PATH: mpirun and the ranks on rpmix.
#[test]
fn py_mpirun_rpmix() {
    py_run("py_mpirun_rpmix", PyRun::MpirunRpmix);
}

/// The sorted "rank R: ..." lines of an rpmix run (job data, types, peers'
/// values) are those of the reference run.
fn py_compare(name: &str, how: PyRun) {
    let reference = py_run(&format!("{name}_reference"), PyRun::MpirunOpenPmix);
    let ours = py_run(name, how);
    assert_eq!(ours, reference, "the rank lines differ from mpirun/openpmix's (right: OpenPMIx)");
}

#[test]
fn py_compare_pmixrun_rpmix() {
    py_compare("py_compare_pmixrun_rpmix", PyRun::PmixrunRpmix);
}

#[test]
fn py_compare_mpirun_rpmix() {
    py_compare("py_compare_mpirun_rpmix", PyRun::MpirunRpmix);
}

// ---------------------------------------------------------------- suites of the field
//
// What they need is installed by tools/install-consumers.sh (cached outside
// the work tree). Every process of a case is preloaded with
// c-tests/which_pmix.c: every one that loaded a libpmix.so.2 must name the
// case's library, and at least as many as the ranks asked must have.

/// The launcher of a run.
#[derive(Clone, Copy, PartialEq, Debug)]
enum How {
    Pmixrun,
    Mpirun,
}

/// A run of `argv` under `how` with `n` ranks on the library `lib`
/// (rpmix's: LD_LIBRARY_PATH, for mpirun and its ranks too), which_pmix
/// preloaded into every process, reporting to `proof`; `extra_ld` is put
/// after the library's directory, `env_x` is given to the ranks (`-x`
/// under mpirun).
struct Launch<'a> {
    how: How,
    lib: Lib,
    n: usize,
    extra_ld: Option<&'a Path>,
    env_x: &'a [(&'a str, String)],
}

impl Launch<'_> {
    fn run(&self, case: &Case, log: &str, argv: &[&std::ffi::OsStr], cwd: Option<&Path>) -> (Run, PathBuf) {
        let e = env();
        let proof = case.path(&format!("{log}.which"));
        let _ = fs::write(&proof, "");
        let which = c_prog("which_pmix", Build::Preload);
        let libdir: OsString = if self.lib == Lib::Ours { e.libdir.clone().into_os_string() } else { OsString::new() };
        let mut ld = libdir.clone();
        if let Some(x) = self.extra_ld {
            ld.push(":");
            ld.push(x);
        }
        let n = self.n.to_string();
        let mut cmd = match self.how {
            How::Pmixrun => merged([e.pmixrun.as_os_str(), "-n".as_ref(), n.as_ref()]).env("LD_LIBRARY_PATH", &ld),
            How::Mpirun => {
                let mut c = as_root(merged(MPIRUN.iter().copied().chain(["-np", &n])))
                    .env("LD_LIBRARY_PATH", &libdir)
                    .arg("-x")
                    .arg({
                        let mut x = OsString::from("LD_LIBRARY_PATH=");
                        x.push(&ld);
                        x
                    })
                    .args(["-x", "LD_PRELOAD", "-x", "WHICH_PMIX_OUT"]);
                for (k, v) in self.env_x {
                    c = c.arg("-x").arg(format!("{k}={v}"));
                }
                c
            }
        };
        for (k, v) in self.env_x {
            cmd = cmd.env(k, v);
        }
        cmd = as_root(cmd).env("LD_PRELOAD", &which).env("WHICH_PMIX_OUT", &proof).args(argv);
        if let Some(d) = cwd {
            cmd = cmd.current_dir(d);
        }
        let r = run(cmd, secs(600));
        r.save(case, log);
        (r, proof)
    }
}

fn verdict(r: &Run, why: &[String]) {
    assert!(why.is_empty(), "{}", r.report(&why.join(", ")));
}

/// mpi4py's whole test suite (test/runtests.py of the source of the
/// version Debian ships) in Debian's python3-mpi4py on Open MPI 4.1, on
/// rpmix: every rank ends "OK", no failure and no error, at least 1,000
/// tests ran.
fn mpi4py(name: &str, how: How, n: usize) {
    let case = Case::new(name);
    let l = Launch { how, lib: Lib::Ours, n, extra_ld: None, env_x: &[] };
    let (r, proof) = l.run(&case, "run", &[PY.as_ref(), "runtests.py".as_ref(), "-q".as_ref()], Some(&consumers_cache().join("mpi4py/test")));
    let out = r.all_lines();
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    let oks = out.iter().filter(|l| l.starts_with("OK")).count();
    if oks != n {
        why.push(format!("{oks} of {n} ranks ended OK"));
    }
    let bad: Vec<&&str> = out.iter().filter(|l| l.starts_with("FAILED") || l.starts_with("ERROR: ") || l.starts_with("FAIL: ")).collect();
    if !bad.is_empty() {
        why.push(format!("failures or errors: {:?}", &bad[..bad.len().min(3)]));
    }
    let ran = out.iter().find_map(|l| l.strip_prefix("Ran ")?.split_whitespace().next()?.parse::<u64>().ok()).unwrap_or(0);
    if ran < 1000 {
        why.push(format!("only {ran} tests ran"));
    }
    why.extend(which_pmix_loaded(&proof, &Lib::Ours.file(), n));
    verdict(&r, &why);
    println!("Ran {ran} tests, {n} ranks, {:?}", r.elapsed);
}

#[test]
fn mpi4py_pmixrun_1() {
    mpi4py("mpi4py_pmixrun_1", How::Pmixrun, 1);
}
#[test]
fn mpi4py_pmixrun_2() {
    mpi4py("mpi4py_pmixrun_2", How::Pmixrun, 2);
}
#[test]
fn mpi4py_pmixrun_3() {
    mpi4py("mpi4py_pmixrun_3", How::Pmixrun, 3);
}
#[test]
fn mpi4py_mpirun_1() {
    mpi4py("mpi4py_mpirun_1", How::Mpirun, 1);
}
#[test]
fn mpi4py_mpirun_2() {
    mpi4py("mpi4py_mpirun_2", How::Mpirun, 2);
}
#[test]
fn mpi4py_mpirun_3() {
    mpi4py("mpi4py_mpirun_3", How::Mpirun, 3);
}

/// mpi4py.futures on rpmix: `spawn`, an MPIPoolExecutor of 2 workers it
/// spawns itself computes 200 squares (c-tests/consumers/futures_pool.py);
/// `world`, `python3 -m mpi4py.futures` over 3 ranks, the job's other
/// ranks being the pool.
fn futures(name: &str, how: How, mode: &str) {
    let case = Case::new(name);
    let pool = env().root.join("c-tests/consumers/futures_pool.py");
    let (r, proof, want): (Run, PathBuf, &[&str]) = if mode == "spawn" {
        let l = Launch { how, lib: Lib::Ours, n: 1, extra_ld: None, env_x: &[] };
        let (r, p) = l.run(&case, "run", &[PY.as_ref(), pool.as_os_str(), "spawn".as_ref(), "2".as_ref()], None);
        (r, p, &["futures spawn: 200 results right, 1 worker processes, spawned=[True]", "futures spawn: 200 results right, 2 worker processes, spawned=[True]"])
    } else {
        let l = Launch { how, lib: Lib::Ours, n: 3, extra_ld: None, env_x: &[] };
        let (r, p) = l.run(&case, "run", &[PY.as_ref(), "-m".as_ref(), "mpi4py.futures".as_ref(), pool.as_os_str(), "world".as_ref()], None);
        (r, p, &["futures world: 200 results right, 2 worker processes, spawned=[False]"])
    };
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    if !r.all_lines().iter().any(|l| want.contains(l)) {
        why.push(format!("no line {want:?}"));
    }
    why.extend(which_pmix_loaded(&proof, &Lib::Ours.file(), 3));
    verdict(&r, &why);
}

#[test]
fn futures_pmixrun_spawn() {
    futures("futures_pmixrun_spawn", How::Pmixrun, "spawn");
}
#[test]
fn futures_pmixrun_world() {
    futures("futures_pmixrun_world", How::Pmixrun, "world");
}
#[test]
fn futures_mpirun_spawn() {
    futures("futures_mpirun_spawn", How::Mpirun, "spawn");
}
#[test]
fn futures_mpirun_world() {
    futures("futures_mpirun_world", How::Mpirun, "world");
}

/// The one file matching `<dir>/libpmix-*.so*`, resolved.
fn rixa_lib(pkg: &Path) -> PathBuf {
    let dir = pkg.join("rixa.libs");
    let found: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().is_some_and(|f| f.to_string_lossy().starts_with("libpmix-") && f.to_string_lossy().contains(".so")))
        .collect();
    assert_eq!(found.len(), 1, "libpmix-*.so* in {}: {found:?}", dir.display());
    fs::canonicalize(&found[0]).unwrap()
}

/// rixa (PyPI)'s PMIxStore over 2 ranks (c-tests/consumers/rixa_store.py),
/// under `how` on `lib`: on its wheel's own OpenPMIx 5.0 client (`ours`
/// false), or on rpmix's library copied over that one (a copy of the
/// package in the case's directory). Both ranks get the right values and
/// say they mapped the library they should.
fn rixa(name: &str, how: How, lib: Lib, ours: bool) {
    let case = Case::new(name);
    let bundled_pkg = consumers_cache().join("rixa");
    let pkg = if ours {
        let copy = case.path("rixa-on-rpmix");
        fs::create_dir_all(&copy).expect("the copy's directory");
        run(Cmd::new("cp").arg("-r").arg(bundled_pkg.join(".")).arg(&copy), secs(120)).ok();
        let target = rixa_lib(&copy);
        fs::copy(&env().lib, &target).expect("rpmix's library over the bundled one");
        copy
    } else {
        bundled_pkg
    };
    let want = rixa_lib(&pkg);
    let l = Launch { how, lib, n: 2, extra_ld: None, env_x: &[] };
    let (r, _proof) = l.run(&case, "run", &[PY.as_ref(), env().root.join("c-tests/consumers/rixa_store.py").as_os_str(), pkg.as_os_str()], None);
    let out = r.all_lines();
    let mut why = Vec::new();
    if !r.success() {
        why.push(format!("exit {:?}", r.code()));
    }
    let right = |l: &&&str| {
        ["0", "1"].iter().any(|a| ["0", "1"].iter().any(|b| **l == format!("rixa rank {a} of 2, local rank {b}: 2 values right")))
    };
    if out.iter().filter(|l| right(l)).count() != 2 {
        why.push("not 2 ranks with the right values".to_string());
    }
    // (rixa's library is not named libpmix.so.2: each rank says what it mapped)
    let maps: Vec<PathBuf> = out
        .iter()
        .filter_map(|l| l.strip_prefix("rixa rank 0 maps ").or_else(|| l.strip_prefix("rixa rank 1 maps ")))
        .flat_map(|s| s.split_whitespace().map(|p| fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))).collect::<Vec<_>>())
        .collect();
    if maps.len() != 2 || maps.iter().any(|m| *m != want) {
        why.push(format!("the ranks mapped: {maps:?} (want 2 x {})", want.display()));
    }
    if ours && fs::read(&want).ok() != fs::read(&env().lib).ok() {
        why.push("the copy does not hold rpmix's library".to_string());
    }
    verdict(&r, &why);
}

#[test]
fn rixa_mpirun_openpmix_bundled() {
    rixa("rixa_mpirun_openpmix_bundled", How::Mpirun, Lib::OpenPmix, false);
}
#[test]
fn rixa_pmixrun_bundled() {
    rixa("rixa_pmixrun_bundled", How::Pmixrun, Lib::Ours, false);
}
#[test]
fn rixa_pmixrun_rpmix() {
    rixa("rixa_pmixrun_rpmix", How::Pmixrun, Lib::Ours, true);
}
#[test]
fn rixa_mpirun_rpmix() {
    rixa("rixa_mpirun_rpmix", How::Mpirun, Lib::Ours, true);
}

/// Intel MPI's IMB binaries and their arguments (small messages).
const IMB_RUNS: [&str; 4] = [
    "IMB-MPI1 PingPong Sendrecv Allreduce Bcast Barrier -msglog 2:3 -iter 10 -iter_policy off",
    "IMB-P2P PingPong -msglog 2:3 -iter 10 -iter_policy off",
    "IMB-NBC Iallreduce Ibcast -msglog 2:3 -iter 10 -iter_policy off",
    "IMB-RMA Unidir_put Bidir_get -msglog 2:3 -iter 10 -iter_policy off",
];

/// Each IMB binary under `how` on `lib` with `n` ranks (I_MPI_PMI=pmix,
/// I_MPI_PMI_LIBRARY naming the library, I_MPI_FABRICS=shm): each exits 0
/// and its processes are on the library; returns the benchmarks listed
/// ("<binary> # Benchmarking <name>", sorted, unique per binary) and why
/// the run fails.
fn imb(case: &Case, how: How, lib: Lib, n: usize) -> (Vec<String>, Vec<String>, Run) {
    let impi = consumers_cache().join("impi");
    let libfile = lib.file();
    let env_x = [("I_MPI_PMI", "pmix".to_string()), ("I_MPI_PMI_LIBRARY", libfile.to_string_lossy().into_owned()), ("I_MPI_FABRICS", "shm".to_string())];
    let (mut list, mut why, mut last) = (Vec::new(), Vec::new(), None);
    for spec in IMB_RUNS {
        let mut words = spec.split_whitespace();
        let b = words.next().expect("a binary");
        let prog = impi.join("bin").join(b);
        let args: Vec<&std::ffi::OsStr> = std::iter::once(prog.as_os_str()).chain(words.map(std::ffi::OsStr::new)).collect();
        let lib_dir = impi.join("lib");
        let l = Launch { how, lib, n, extra_ld: Some(&lib_dir), env_x: &env_x };
        let (r, proof) = l.run(case, b, &args, None);
        if !r.success() {
            why.push(format!("{b} exit {:?}", r.code()));
        }
        let mut mine: Vec<String> = r.all_lines().iter().filter(|l| l.starts_with("# Benchmarking")).map(|l| format!("{b} {}", l.trim_end())).collect();
        mine.sort();
        mine.dedup();
        list.extend(mine);
        why.extend(which_pmix_loaded(&proof, &libfile, n));
        last = Some(r);
    }
    (list, why, last.expect("runs"))
}

/// The reference: mpirun on OpenPMIx, at least 8 benchmarks listed.
fn imb_reference(name: &str, n: usize) -> Vec<String> {
    let case = Case::new(name);
    let (list, mut why, r) = imb(&case, How::Mpirun, Lib::OpenPmix, n);
    if list.len() < 8 {
        why.push(format!("only {} benchmarks listed", list.len()));
    }
    verdict(&r, &why);
    list
}

/// On rpmix under `how`: the same benchmarks listed as on OpenPMIx.
fn imb_rpmix(name: &str, how: How, n: usize) {
    let reference = imb_reference(&format!("{name}_reference"), n);
    let case = Case::new(name);
    let (list, mut why, r) = imb(&case, how, Lib::Ours, n);
    if list != reference {
        why.push(format!("benchmarks listed differ from OpenPMIx's: {list:?} vs {reference:?}"));
    }
    verdict(&r, &why);
}

#[test]
fn impi_openpmix_2() {
    imb_reference("impi_openpmix_2", 2);
}
#[test]
fn impi_mpirun_2() {
    imb_rpmix("impi_mpirun_2", How::Mpirun, 2);
}
#[test]
fn impi_pmixrun_2() {
    imb_rpmix("impi_pmixrun_2", How::Pmixrun, 2);
}
#[test]
fn impi_openpmix_4() {
    imb_reference("impi_openpmix_4", 4);
}
#[test]
fn impi_mpirun_4() {
    imb_rpmix("impi_mpirun_4", How::Mpirun, 4);
}
#[test]
fn impi_pmixrun_4() {
    imb_rpmix("impi_pmixrun_4", How::Pmixrun, 4);
}

/// The parsing of the Python client's lines, as grep -o found them.
#[test]
fn py_rank_lines_parsing() {
    let out = ["[host:1] rank 1: OK", "info rank 0: version=rpmix 4", "x rank 0: job size 4", "no rank here", "rank 12: a: b"];
        // (sorted as LC_ALL=C sort does: by bytes)
    assert_eq!(rank_lines(&out), ["rank 0: job size 4", "rank 12: a: b", "rank 1: OK"]);
    assert_eq!(info_of(&out, 0, "version="), Some("rpmix 4"));
    assert_eq!(info_of(&out, 1, "version="), None);
}
