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
