//! `PMIX_DEBUG=<level>` diagnostics: read once, written to stderr only, never stdout.
//!
//! Level 1: errors the library handled (bad input, dropped peers). Level 5: every
//! API entry that fails. Level 10: every API call and upcall.

use std::io::Write;
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
    let mut err = std::io::stderr().lock();
    // A failed write to stderr has nowhere else to go.
    let _ = writeln!(err, "[rpmix:{}] {}", std::process::id(), args);
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
