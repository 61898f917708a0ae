//! Whether this process may trace its children (PTRACE_TRACEME is refused
//! under Yama's ptrace_scope 3, or by a seccomp filter): pmixrun offers stop
//! on exec only then, and `pmixctl info` reports it. Shared by both programs
//! (`#[path]`).

/// Tried in a child that asks to be traced and exits at once. Call it before
/// the process starts any thread.
pub fn may_trace_children() -> bool {
    // SAFETY: called before any other thread runs; the child only calls the
    // async-signal-safe ptrace and _exit.
    match unsafe { libc::fork() } {
        0 => {
            // SAFETY: PTRACE_TRACEME takes no pointer arguments.
            let ok = unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) } == 0;
            // SAFETY: leaves the child at once, running nothing of the parent's.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        -1 => false,
        pid => {
            let mut status = 0;
            // SAFETY: waiting for the child forked above.
            let r = unsafe { libc::waitpid(pid, &mut status, 0) };
            r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
        }
    }
}
