//! rpmix: PMIx in Rust, a drop-in `libpmix.so.2` with OpenPMIx 4.2.2's C ABI.
//!
//! Layers, data flowing down only: `ffi` (every `extern "C"` entry, thin) calls
//! the core modules (`value`, `data`, `strings`, ...), which use `abi` (the C
//! layouts and constants). See README.md and DESIGN notes there.
#![allow(clippy::missing_safety_doc)]

pub mod abi;
pub mod cmem;
pub mod data;
pub mod debug;
#[macro_use]
pub mod ffi;
pub mod strings;
pub mod events;
pub mod facade;
pub mod flags;
pub mod forksafe;
pub mod hwloc;
pub mod owned;
pub mod rendezvous;
pub mod runtime;
pub mod server;
pub mod status;
pub mod client;
pub mod tool;
pub mod topology;
pub mod wire;
