//! The library as a file and a C interface: its name, exports, layouts and
//! headers against OpenPMIx 4.2.2's, and the checks of the sources that
//! keep the repository honest (headers generated, layers, lints, status
//! table, manual pages, install).

use rpmix_systests::*;
use std::collections::BTreeSet;
use std::fs;

fn sh(script: &str) -> Cmd {
    Cmd::new("bash").args(["-c", script]).current_dir(&env().root)
}

/// The defined dynamic symbols of a library: (type letter, name).
fn exports(lib: &std::path::Path) -> Vec<(String, String)> {
    let r = run(Cmd::new("nm").args(["-D", "--defined-only"]).arg(lib), secs(60)).ok();
    r.stdout
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3).then(|| (f[1].to_string(), f[2].to_string()))
        })
        .collect()
}

#[test]
fn headers_drift() {
    run(sh("make -s check-headers"), secs(600)).ok();
}

#[test]
fn layers_one_way() {
    let e = env();
    run(Cmd::new("python3").arg("tools/layer-check.py").arg(".").current_dir(&e.root), secs(60)).ok();
    // The check must catch upward references planted in a copy of the sources.
    let case = Case::new("layers_one_way");
    let copy = case.dir.clone();
    run(Cmd::new("cp").args(["-rT"]).arg(e.root.join("src")).arg(copy.join("src")), secs(60)).ok();
    let plant = |file: &str, line: &str| {
        let p = copy.join("src").join(file);
        let mut s = fs::read_to_string(&p).expect("source file");
        s.push_str(line);
        fs::write(&p, s).expect("planted");
    };
    plant("cmem.rs", "\nfn _planted() { let _ = crate::facade::own_proc; }\n");
    plant("client/api.rs", "\nfn _planted() { let _ = crate::server::handle; }\n");
    let r = run(Cmd::new("python3").arg(e.root.join("tools/layer-check.py")).arg(&copy), secs(60));
    assert!(
        r.stdout.contains("cmem (layer 8) uses crate::facade") && r.stdout.contains("client uses crate::server"),
        "{}",
        r.report("layer-check missed a planted reference")
    );
}

#[test]
fn clippy_clean() {
    run(sh("cargo clippy --release --workspace --all-targets -- -D warnings"), secs(1800)).ok();
}

#[test]
fn unit_tests() {
    run(sh("cargo test --release"), secs(1800)).ok();
}

#[test]
fn soname() {
    let r = run(Cmd::new("objdump").arg("-p").arg(&env().lib), secs(60)).ok();
    assert!(
        r.stdout.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["SONAME", "libpmix.so.2"]),
        "no SONAME libpmix.so.2 in:\n{}",
        r.stdout
    );
}

/// OpenPMIx 4.2.2's `PMIx_*` functions, those newer releases add
/// (`tools/exports-newer.txt`) and one data symbol Open MPI 5 reads:
/// nothing else, nothing missing.
#[test]
fn exported_symbols() {
    let e = env();
    let ours = exports(&e.lib);
    let extra: Vec<&str> =
        ours.iter().map(|(_, n)| n.as_str()).filter(|n| !n.starts_with("PMIx_") && *n != "pmix_framework_names").collect();
    assert!(extra.is_empty(), "non-API symbols exported: {extra:?}");
    assert!(
        ours.iter().any(|(t, n)| n == "pmix_framework_names" && (t == "D" || t == "R")),
        "no data symbol pmix_framework_names"
    );
    let functions: BTreeSet<&str> = ours.iter().filter(|(t, _)| t == "T").map(|(_, n)| n.as_str()).collect();
    let reference = exports(&e.ref_lib);
    let mut want: BTreeSet<&str> =
        reference.iter().filter(|(t, n)| t == "T" && n.starts_with("PMIx_")).map(|(_, n)| n.as_str()).collect();
    let newer = fs::read_to_string(e.root.join("tools/exports-newer.txt")).expect("tools/exports-newer.txt");
    want.extend(newer.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')));
    let missing: Vec<_> = want.difference(&functions).collect();
    let unexpected: Vec<_> = functions.difference(&want).collect();
    assert!(missing.is_empty() && unexpected.is_empty(), "missing: {missing:?}; not expected: {unexpected:?}");
    println!("{} PMIx_* functions and pmix_framework_names", functions.len());
}

/// Every struct size, member offset, constant and key, against OpenPMIx's headers.
#[test]
fn layout_probe() {
    let e = env();
    let case = Case::new("layout_probe");
    let src = case.path("layout_probe.c");
    run(Cmd::new("python3").arg("tools/gen-layout-probe.py").arg(".").arg(&src).current_dir(&e.root), secs(60)).ok();
    let mut outputs = Vec::new();
    for (name, inc) in [("ours", e.root.join("include")), ("ref", e.ref_inc.clone())] {
        let exe = case.path(&format!("probe_{name}"));
        run(Cmd::new("cc").arg("-w").arg(format!("-I{}", inc.display())).arg(&src).arg("-o").arg(&exe), secs(120)).ok();
        outputs.push(run(Cmd::new(&exe), secs(60)).ok().stdout);
    }
    assert!(outputs[0].lines().count() > 1000, "the probe printed too little:\n{}", outputs[0]);
    let differ: Vec<_> = outputs[1].lines().zip(outputs[0].lines()).filter(|(r, o)| r != o).take(20).collect();
    assert!(differ.is_empty() && outputs[0].lines().count() == outputs[1].lines().count(), "(OpenPMIx, rpmix) differ: {differ:?}");
    println!("{} sizes, offsets, constants and keys identical", outputs[0].lines().count());
}

#[test]
fn abi_check() {
    let e = env();
    let tool = e.root.join("../shared/tools/abi-check");
    if !tool.exists() {
        skip("abi_check", &format!("{} is not on this machine", tool.display()));
        return;
    }
    run(Cmd::new("python3").arg(tool).arg("--ours").arg(e.root.join("include")).arg("--lib").arg(&e.lib), secs(600)).ok();
}

/// The headers compile as C99, C11 and C++11 with -Werror.
#[test]
fn headers_compile_c99_c11_cxx() {
    let e = env();
    let case = Case::new("headers_compile");
    let src = case.write(
        "inc.c",
        "#include <pmix.h>\n#include <pmix_server.h>\n#include <pmix_tool.h>\nint main(void){return PMIX_SUCCESS;}\n",
    );
    let inc = format!("-I{}", e.root.join("include").display());
    for (compiler, std, lang) in [("cc", "-std=c99", "c"), ("cc", "-std=c11", "c"), ("c++", "-std=c++11", "c++")] {
        run(
            Cmd::new(compiler)
                .args([std, "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", lang])
                .arg(&inc)
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(case.path(&format!("inc{std}.o"))),
            secs(120),
        )
        .ok();
    }
}

/// Unimplemented functions answer PMIX_ERR_NOT_SUPPORTED and fire no callback.
#[test]
fn stubs_not_supported() {
    run(Cmd::new(c_prog("test_stubs", Build::Ours)).on(Lib::Ours), secs(120)).ok();
}

#[test]
fn status_table() {
    run(Cmd::new("python3").args(["tools/status-table.py", "check"]).current_dir(&env().root), secs(60)).ok();
}

/// The manual pages against --help, both ways, and rendered without a warning.
#[test]
fn man_pages() {
    let e = env();
    run(Cmd::new("python3").arg("tools/man-check.py").arg(&e.libdir).current_dir(&e.root), secs(60)).ok();
}

/// The functions a rank runs lie together at the start of the library's
/// code (link/hot-code.txt, build.rs), and the list still names them.
/// (Where build.rs could not hand the list to the linker, it says so and
/// the library is laid out as the compiler left it: the case does not run.)
#[test]
fn hot_code_first() {
    let e = env();
    let lib = e.libdir.join("libpmix.so.2");
    let comment = run(Cmd::new("readelf").args(["-p", ".comment"]).arg(&lib), secs(60)).ok();
    if !comment.stdout.contains("Linker: LLD") || std::env::var_os("RPMIX_NO_HOT_CODE").is_some() {
        skip("hot_code_first", "the library was not linked with the hot-code order (not LLD, or RPMIX_NO_HOT_CODE)");
        return;
    }
    run(Cmd::new("python3").arg("tools/hot-code.py").arg("check").arg(&lib).current_dir(&e.root), secs(60)).ok();
}

/// `make install` and pkg-config: a program built with pkg-config's flags
/// runs on the installed library.
#[test]
fn install_pkgconfig() {
    let e = env();
    let case = Case::new("install_pkgconfig");
    let prefix = case.path("prefix");
    run(Cmd::new("make").args(["-s", "install"]).arg(format!("PREFIX={}", prefix.display())).current_dir(&e.root), secs(600)).ok();
    for f in ["lib/libpmix.so.2", "lib/libpmix.so", "include/pmix.h", "share/man/man1/pmixrun.1", "share/man/man1/pmixctl.1"] {
        assert!(prefix.join(f).exists(), "make install did not install {f}");
    }
    let flags = run(
        Cmd::new("pkg-config").args(["--cflags", "--libs", "pmix"]).env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")),
        secs(60),
    )
    .ok()
    .stdout;
    println!("pkg-config: {}", flags.trim());
    let exe = case.path("pc_demo");
    run(
        Cmd::new("cc")
            .arg("-std=c99")
            .arg("-o")
            .arg(&exe)
            .arg(e.root.join("c-tests/demo_data.c"))
            .args(flags.split_whitespace()),
        secs(120),
    )
    .ok();
    let r = run(Cmd::new(&exe).env("LD_LIBRARY_PATH", prefix.join("lib")), secs(60)).ok();
    assert!(r.stdout.lines().next().is_some_and(|l| l.starts_with("library: rpmix")), "{}", r.report("the installed library"));
}
