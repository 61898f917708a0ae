//! Version constants of pmix_version.h.
//!
//! Values are facts of the PMIx ABI (OpenPMIx 4.2.2 `pmix_version.h`); cbindgen turns each
//! into a `#define` of the generated header.
#![allow(non_upper_case_globals)]

#[allow(unused_imports)]
use core::ffi::{c_int, c_long};

pub const PMIX_VERSION_MAJOR: c_long = 4;
pub const PMIX_VERSION_MINOR: c_long = 2;
pub const PMIX_VERSION_RELEASE: c_long = 2;
pub const PMIX_NUMERIC_VERSION: u32 = 0x00040202;
