//! Data: every type through the data API, OpenPMIx's wire format, the
//! header macros and the string functions, each compared with OpenPMIx
//! 4.2.2 on the same program; bad input under valgrind.

use rpmix_systests::*;

/// valgrind: an error or a definite leak fails the run (exit 9).
fn valgrind(prog: std::path::PathBuf) -> Cmd {
    Cmd::new("valgrind")
        .args(["-q", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite"])
        .arg(prog)
}

/// Every data type through load, unload, xfer, pack, unpack, copy, compare.
#[test]
fn data_roundtrip_valgrind() {
    run(valgrind(c_prog("test_data", Build::Ours)).on(Lib::Ours), secs(600)).ok();
}

/// The same, built against OpenPMIx's headers, on rpmix.
#[test]
fn data_roundtrip_openpmix_headers() {
    run(valgrind(c_prog("test_data", Build::Ref)).on(Lib::Ours), secs(600)).ok();
}

/// The same binary on both libraries: rpmix passes every check OpenPMIx
/// passes (OpenPMIx fails some: its bugs).
#[test]
fn data_vs_openpmix() {
    let prog = c_prog("test_data", Build::Ref);
    let theirs = run(Cmd::new(&prog).on(Lib::OpenPmix), secs(120));
    let ours = run(Cmd::new(&prog).on(Lib::Ours), secs(120)).ok();
    let ok_ours: std::collections::HashSet<&str> = ours.stdout.lines().collect();
    let lost: Vec<&str> = theirs.stdout.lines().filter(|l| l.ends_with(": ok") && !ok_ours.contains(l)).collect();
    assert!(theirs.stdout.lines().filter(|l| l.ends_with(": ok")).count() > 50, "{}", theirs.report("OpenPMIx passed too few checks"));
    assert!(lost.is_empty(), "OpenPMIx passes but rpmix does not: {lost:#?}");
    println!("rpmix: {}; OpenPMIx 4.2.2: {}", tail(&ours.stdout, 1), tail(&theirs.stdout, 1));
}

/// PMIx_Data_pack of some 67 cases gives the same bytes on both libraries,
/// in both buffer forms; what one library packed, the other unpacks and
/// packs again to the same bytes.
#[test]
fn data_v41_bytes_vs_openpmix() {
    let prog = c_prog("data_v41", Build::Ref);
    let case = Case::new("data_v41_bytes_vs_openpmix");
    for described in [false, true] {
        let form = if described { "described" } else { "non-described" };
        let cmd = |lib: Lib, args: &[&str]| {
            let c = Cmd::new(&prog).args(args).on(lib);
            if described {
                c.env("PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_FULLY_DESC")
            } else {
                c
            }
        };
        let theirs = run(cmd(Lib::OpenPmix, &["pack"]), secs(120)).ok();
        let ours = run(cmd(Lib::Ours, &["pack"]), secs(120)).ok();
        let cases = theirs.stdout.lines().filter(|l| l.rsplit(' ').next().is_some_and(|w| w.chars().all(|c| c.is_ascii_hexdigit()))).count();
        assert!(cases >= 66, "{form}: OpenPMIx packed too few cases ({cases})");
        assert_eq!(theirs.stdout, ours.stdout, "{form}: the bytes differ");
        let theirs_file = case.write(&format!("{form}.openpmix"), &theirs.stdout);
        let ours_file = case.write(&format!("{form}.rpmix"), &ours.stdout);
        let by_ours = run(cmd(Lib::Ours, &["cross", &theirs_file.to_string_lossy()]), secs(120)).ok();
        assert_eq!(by_ours.stdout, theirs.stdout, "{form}: rpmix does not read OpenPMIx's bytes back to the same values");
        let by_theirs = run(cmd(Lib::OpenPmix, &["cross", &ours_file.to_string_lossy()]), secs(120)).ok();
        assert_eq!(by_theirs.stdout, ours.stdout, "{form}: OpenPMIx does not read rpmix's bytes back to the same values");
        println!("{form}: {} cases, the same bytes; each library reads the other's", ours.stdout.lines().count());
    }
}

/// The header macros: byte-identical output on both libraries and both
/// header sets, and in C++.
#[test]
fn macros_differential() {
    let ours_h = c_prog("test_macros", Build::Ours);
    let ref_h = c_prog("test_macros", Build::Ref);
    let cxx = c_prog("test_macros", Build::Cxx);
    let reference = run(Cmd::new(&ref_h).on(Lib::OpenPmix), secs(120)).ok().stdout;
    assert!(reference.lines().count() > 10, "the reference run printed too little:\n{reference}");
    for (what, prog, lib) in [
        ("rpmix's headers on OpenPMIx", &ours_h, Lib::OpenPmix),
        ("OpenPMIx's headers on rpmix", &ref_h, Lib::Ours),
        ("rpmix's headers on rpmix", &ours_h, Lib::Ours),
        ("C++ on rpmix", &cxx, Lib::Ours),
    ] {
        let r = run(Cmd::new(prog).on(lib), secs(120)).ok();
        assert_eq!(r.stdout, reference, "{what}: differs from OpenPMIx's headers on OpenPMIx");
    }
    run(valgrind(ours_h).on(Lib::Ours), secs(300)).ok();
}

/// Every *_string function: the same text on both libraries.
#[test]
fn strings_differential() {
    let ref_h = c_prog("test_strings", Build::Ref);
    let ours_h = c_prog("test_strings", Build::Ours);
    let theirs = run(Cmd::new(&ref_h).on(Lib::OpenPmix), secs(120)).ok().stdout;
    assert!(theirs.lines().count() > 100, "OpenPMIx printed too little:\n{theirs}");
    assert_eq!(run(Cmd::new(&ref_h).on(Lib::Ours), secs(120)).ok().stdout, theirs, "OpenPMIx's headers on rpmix");
    assert_eq!(run(Cmd::new(&ours_h).on(Lib::Ours), secs(120)).ok().stdout, theirs, "rpmix's headers on rpmix");
    println!("{} lines identical", theirs.lines().count());
}

/// NULLs, unknown types, truncations, random and mutated bytes, under valgrind.
#[test]
fn bad_input_valgrind() {
    run(valgrind(c_prog("test_badinput", Build::Ours)).on(Lib::Ours), secs(600)).ok();
}
