//! IO forwarding: ranks' output to tools and the terminal, stdin.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/iof-tests.sh
    mod iof {
        use super::*;
        driver_cases!("iof-tests.sh", "iof", secs(600), [], {
            big_output_to_tools_and_terminal: "big_output_to_tools_and_terminal",
            stdin_targets: "stdin_targets",
            early_close_does_not_stall: "early_close_does_not_stall",
            cache_before_pull: "cache_before_pull",
            slow_tool_bounds_memory: "slow_tool_bounds_memory",
            iof_api_from_a_c_tool: "iof_api_from_a_c_tool",
            iof_directives_from_a_c_tool: "iof_directives_from_a_c_tool",
        });
    }
}
