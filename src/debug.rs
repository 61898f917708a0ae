//! `PMIX_DEBUG=<level>` diagnostics: read once, written to stderr only, never stdout.
//!
//! Level 1: errors the library handled (bad input, dropped peers). Level 5: every
//! API entry that fails. Level 10: every API call and upcall.

use std::sync::OnceLock;

static LEVEL: OnceLock<u32> = OnceLock::new();

/// The verbosity from the environment (0 when unset or unparsable).
pub fn level() -> u32 {
    *LEVEL.get_or_init(|| {
        std::env::var("PMIX_DEBUG")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0)
    })
}

#[doc(hidden)]
pub fn emit(args: std::fmt::Arguments<'_>) {
    // One write(2) per line and no stderr lock: lines of several threads do
    // not interleave, and a fork child (setup_fork) cannot block on a lock
    // another thread of its parent held.
    let line = format!("[rpmix:{}] {}\n", std::process::id(), args);
    // SAFETY: writing our own buffer to fd 2; a failed write has nowhere else to go.
    let _ = unsafe { libc::write(2, line.as_ptr() as *const libc::c_void, line.len()) };
}

/// `pmix_debug!(level, "fmt", args...)`: print when PMIX_DEBUG >= level.
#[macro_export]
#[doc(hidden)]
macro_rules! pmix_debug {
    ($lvl:expr, $($arg:tt)*) => {
        if $crate::debug::level() >= $lvl {
            $crate::debug::emit(format_args!($($arg)*));
        }
    };
}
