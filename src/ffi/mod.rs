//! Every `extern "C"` function of the library, one file per family of the
//! PMIx API. Which C header declares each is `src/c/declarations.txt`'s
//! business (build.rs), not the file's.
//!
//! Thin: argument checks, panic boundary, conversion; the work is done in the
//! core modules. Functions later issues implement answer
//! `PMIX_ERR_NOT_SUPPORTED`. The boundary rules (README, "API conventions"):
//! each entry catches panics (a panic becomes `PMIX_ERROR`, NULL, or nothing,
//! by return type), checks its pointers, and logs failures at PMIX_DEBUG >= 5.
//!
//! Besides OpenPMIx 4.2.2's functions, the families hold what OpenPMIx
//! 4.2.3-5.0.9 export beyond it (tools/exports-newer.txt), not in our headers:
//! from 4.2.3 on, OpenPMIx's header macros (PMIX_ARGV_APPEND, PMIX_LOAD_KEY,
//! PMIX_INFO_CREATE, ...) call functions instead of expanding inline, so every
//! binary built against newer headers imports them. Each one behaves as the
//! matching macro of our 4.2.2 headers (`src/c/pmix_common_macros.h`), which
//! is OpenPMIx's behaviour made safe: NULL pointers and unterminated keys or
//! namespaces never crash or over-read, and memory handed out is libc malloc'd.

#[macro_use]
pub mod boundary;
mod completions;

// The client's API
pub mod client_core;
pub mod events;
pub mod fabric;
pub mod groups;
pub mod job_control;
pub mod pubsub;
pub mod query;
pub mod spawn_connect;
// Tools, IO forwarding, the server
pub mod iof;
pub mod server;
pub mod tool;
// Data: buffers, objects, infos, names, argv, printable forms
pub mod argv_env;
pub mod data_buffer;
pub mod data_info;
pub mod data_names;
pub mod data_objects;
pub mod data_strings;
// What pmix_deprecated.h declares
pub mod deprecated;

#[cfg(test)]
mod tests;
