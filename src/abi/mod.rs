//! The C ABI of PMIx (OpenPMIx 4.2.2): types, constants, key strings, callback
//! types. Layout only, no behaviour. One file per concern; cbindgen turns these
//! files into `include/*.h` (see build.rs).
#![allow(non_camel_case_types, non_upper_case_globals)]

pub mod attr_keys;
pub mod callbacks;
pub mod constants;
pub mod deprecated;
pub mod deprecated_keys;
pub(crate) mod keys_macro;
pub mod server_types;
pub mod status_names;
pub mod types;
pub mod version;

pub use attr_keys::*;
pub use callbacks::*;
pub use constants::*;
pub use deprecated::*;
pub use deprecated_keys::*;
pub use server_types::*;
pub use types::*;
pub use version::*;

/// Every attribute key the headers define, common ones first.
pub fn all_attribute_keys() -> impl Iterator<Item = (&'static core::ffi::CStr, &'static core::ffi::CStr)> {
    attr_keys::COMMON_KEYS.iter().chain(deprecated_keys::DEPRECATED_KEYS.iter())
}
