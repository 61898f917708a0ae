//! rpmix: PMIx in Rust, a drop-in `libpmix.so.2` with OpenPMIx 4.2.2's C ABI.
//!
//! The modules below form layers, used only downwards: ARCHITECTURE.md's
//! module map says what each holds (it is kept in tools/layer-check.py, which
//! checks the layers).
// Unsafe hygiene (as rustls-ffi): every unsafe operation sits in an unsafe
// block that says why it holds, and every unsafe fn documents its contract.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

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
pub mod guard;
pub mod hwlib;
pub mod hwloc;
pub mod layout;
pub mod msg;
pub mod owned;
pub mod ptl;
pub mod rendezvous;
pub mod runtime;
pub mod server;
pub mod status;
pub mod client;
pub mod tool;
pub mod topology;
pub mod wire;
