//! Faults: bad frames, killed ranks and servers, the mutation fuzzer.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/fault-tests.sh
    mod faults {
        use super::*;
        driver_cases!("fault-tests.sh", "faults", secs(300), [], {
            garbage_pmixrun: "garbage-pmixrun",
            garbage_rm_simple: "garbage-rm_simple",
            fence_kill_pmixrun_now: "fence-kill-pmixrun-now",
            fence_kill_pmixrun_early: "fence-kill-pmixrun-early",
            fence_kill_rm_simple_now: "fence-kill-rm_simple-now",
            fence_kill_rm_simple_late: "fence-kill-rm_simple-late",
            fence_kill_rm_simple_early: "fence-kill-rm_simple-early",
            server_exit_fence: "server-exit-fence",
            server_exit_get: "server-exit-get",
            rm_simple_valgrind: "rm_simple-valgrind",
            killed_launcher: "killed-launcher",
        });
    }
}

/// The mutation fuzzer (src/bin/rpmix-fuzz.rs) over every decoder, briefly
/// (`make fuzz` runs it longer).
#[test]
fn fuzz_briefly() {
    run(Cmd::new(env().libdir.join("rpmix-fuzz")).args(["--seconds", "10"]), secs(600)).ok();
}
