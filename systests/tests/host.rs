//! C hosts: the C resource manager (c-tests/rm_simple.c) and other hosts on
//! rpmix's server library, compared with OpenPMIx 4.2.2 as the host's library;
//! the resource-manager setup APIs; topology; threads.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Steps of tools/run-tests.sh not yet written as tests of their own.
mod step {
    use super::*;
    #[test]
    fn rm_simple_on_openpmix() {
        legacy_step("rm-simple-on-openpmix", secs(900));
    }
    #[test]
    fn rm_simple_on_rpmix() {
        legacy_step("rm-simple-on-rpmix", secs(900));
    }
    #[test]
    fn rm_simple_abort() {
        legacy_step("rm-simple-abort", secs(900));
    }
    #[test]
    fn rm_simple_missing_keys() {
        legacy_step("rm-simple-missing-keys", secs(900));
    }
    #[test]
    fn host_completes_inline_16_ranks() {
        legacy_step("host-completes-inline-16-ranks", secs(900));
    }
    #[test]
    fn semantics_vs_openpmix() {
        legacy_step("semantics-vs-openpmix", secs(900));
    }
    #[test]
    fn load_topology_vs_openpmix() {
        legacy_step("load-topology-vs-openpmix", secs(900));
    }
    #[test]
    fn modex_upcalls_vs_openpmix() {
        legacy_step("modex-upcalls-vs-openpmix", secs(900));
    }
    #[test]
    fn callbacks_never_inline() {
        legacy_step("callbacks-never-inline", secs(900));
    }
    #[test]
    fn threads_stress_16() {
        legacy_step("threads-stress-16", secs(900));
    }
    #[test]
    fn threads_stress_16_tsan() {
        legacy_step("threads-stress-16-tsan", secs(900));
    }
    #[test]
    fn topology_vs_openpmix() {
        legacy_step("topology-vs-openpmix", secs(900));
    }
}

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/setup-tests.sh
    mod setup_apis {
        use super::*;
        driver_cases!("setup-tests.sh", "setup", secs(300), [], {
            env_rm_simple: "env-rm_simple",
            env_rm_simple_refh: "env-rm_simple-refh",
            env_rm_simple_modes: "env-rm_simple-modes",
            env_pnet_env: "env-pnet-env",
            env_openpmix_library: "env-openpmix-library",
            rm_simple_regression: "rm_simple-regression",
            pnet_test_log: "pnet-test-log",
            pnet_nosuch: "pnet-nosuch",
            pmixrun_transport_key: "pmixrun-transport-key",
            resources_vs_openpmix: "resources-vs-openpmix",
            setup_badinput: "setup_badinput",
        });
    }
}
