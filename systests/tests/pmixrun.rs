//! pmixrun, rpmix's launcher: ranks, exit codes, signals, events and spawn,
//! job control, monitoring and cleanup, session directories, groups.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Steps of tools/run-tests.sh not yet written as tests of their own.
mod step {
    use super::*;
    #[test]
    fn pmixrun_8_ranks() {
        legacy_step("pmixrun-8-ranks", secs(900));
    }
    #[test]
    fn pmixrun_exit_codes() {
        legacy_step("pmixrun-exit-codes", secs(900));
    }
    #[test]
    fn pmixrun_signals() {
        legacy_step("pmixrun-signals", secs(900));
    }
    #[test]
    fn demo_job() {
        legacy_step("demo-job", secs(900));
    }
    #[test]
    fn events_and_spawn() {
        legacy_step("events-and-spawn", secs(900));
    }
    #[test]
    fn pmixrun_bind_to_core() {
        legacy_step("pmixrun-bind-to-core", secs(900));
    }
    #[test]
    fn rfc_example_programs() {
        legacy_step("rfc-example-programs", secs(900));
    }
    #[test]
    fn get_data_scope() {
        legacy_step("get-data-scope", secs(900));
    }
    #[test]
    fn groups() {
        legacy_step("groups", secs(900));
    }
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
