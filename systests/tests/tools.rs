//! Tools and debuggers: pmixctl, attaching, launching under a debugger.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Steps of tools/run-tests.sh not yet written as tests of their own.
mod step {
    use super::*;
    #[test]
    fn pmixctl_tool() {
        legacy_step("pmixctl-tool", secs(900));
    }
    #[test]
    fn tool_attach_switch_disconnect() {
        legacy_step("tool-attach-switch-disconnect", secs(900));
    }
}

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/launch-tests.sh
    mod launch {
        use super::*;
        driver_cases!("launch-tests.sh", "launch", secs(300), [], {
            launch_tool_debug: "launch/tool-debug",
            launch_release_twice: "launch/release-twice",
            launch_stop_on_exec: "launch/stop-on-exec",
            launch_daemons: "launch/daemons",
            launch_daemon_exits_early: "launch/daemon-exits-early",
            launch_tool_leaves_held: "launch/tool-leaves-held",
            launch_pmixctl_run: "launch/pmixctl-run",
            launch_tool_stdin: "launch/tool-stdin",
            launch_stdin_all_one_closes: "launch/stdin-all-one-closes",
            launch_stdin_unread: "launch/stdin-unread",
            launch_relative_path: "launch/relative-path",
            launch_missing_command: "launch/missing-command",
            launch_tool_gone: "launch/tool-gone",
            launch_end_with_tool: "launch/end-with-tool",
            launch_tool_gone_mid_spawn: "launch/tool-gone-mid-spawn",
            launch_openpmix_launcher: "launch/openpmix-launcher",
            launch_openpmix_debugger: "launch/openpmix-debugger",
            launch_openpmix_tool_spawn: "launch/openpmix-tool-spawn",
            launch_proc_table: "launch/proc-table",
            launch_openpmix_tool_nsinfo: "launch/openpmix-tool-nsinfo",
            launch_other_user: "launch/other-user",
            launch_stop: "launch/stop",
        });
    }
}
