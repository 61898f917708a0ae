//! Every `extern "C"` function of the library, one file per upstream header.
//!
//! The boundary rules (README, "API conventions"): each entry catches panics
//! (a panic becomes `PMIX_ERROR`, NULL, or nothing, by return type), checks its
//! pointers, and logs failures at PMIX_DEBUG >= 5.

#[macro_use]
pub mod boundary;

pub mod client;
pub mod deprecated;
pub mod server;
pub mod tool;
// What OpenPMIx 4.2.3-5.0 export beyond 4.2.2 (not in our headers).
pub mod v5_misc;
pub mod v5_objects;
