//! The status type of the core: `Res<T>` carries a PMIx status code as its
//! error, so `?` works inside the library and `ffi` turns it into the C
//! return code.

use crate::abi::pmix_status_t;

/// A result whose error is a PMIx status code (never PMIX_SUCCESS).
pub type Res<T = ()> = Result<T, pmix_status_t>;
