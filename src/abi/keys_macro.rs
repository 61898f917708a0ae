//! The macro behind `attr_keys.rs` / `deprecated_keys.rs`: one list of key
//! strings becomes Rust `&CStr` constants and a list of (name, string) used
//! by `PMIx_Get_attribute_string` / `_name`. build.rs writes the C
//! `#define`s from the same lines.

use core::ffi::CStr;

macro_rules! attribute_keys {
    ($table:ident; $($name:ident => $s:literal;)*) => {
        $(
            pub const $name: &core::ffi::CStr =
                match core::ffi::CStr::from_bytes_with_nul(concat!($s, "\0").as_bytes()) {
                    Ok(c) => c,
                    Err(_) => panic!("attribute key with an interior NUL"),
                };
        )*
        /// Every key of this list: (macro name, key string).
        pub const $table: crate::abi::keys_macro::KeyList = crate::abi::keys_macro::KeyList {
            names: concat!($(stringify!($name), "\0",)*).as_bytes(),
            keys: concat!($($s, "\0",)*).as_bytes(),
        };
    };
}
pub(crate) use attribute_keys;

/// A list of attribute keys as two runs of NUL-terminated strings, the
/// macro names and the key strings in the same order. Two runs of bytes,
/// not a table of pointers: a table of some 900 string pointers is that
/// many relocations, and four pages written, in every process that loads
/// the library, before its `main`.
pub struct KeyList {
    pub names: &'static [u8],
    pub keys: &'static [u8],
}

impl KeyList {
    /// (macro name, key string), in the list's order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static CStr, &'static CStr)> {
        nul_terminated(self.names).zip(nul_terminated(self.keys))
    }
}

fn nul_terminated(run: &'static [u8]) -> impl Iterator<Item = &'static CStr> {
    // (each piece ends with its NUL and has no other: the macro wrote them)
    run.split_inclusive(|&b| b == 0).filter_map(|s| CStr::from_bytes_with_nul(s).ok())
}

#[cfg(test)]
mod tests {
    use crate::abi::*;

    #[test]
    fn names_and_keys_pair_up() {
        let all: Vec<_> = all_attribute_keys().collect();
        // (every `NAME => "string";` line of the two lists)
        let lines = [include_str!("attr_keys.rs"), include_str!("deprecated_keys.rs")].iter().flat_map(|t| t.lines()).filter(|l| l.trim_start().starts_with("PMIX_") && l.contains("=>")).count();
        assert_eq!(all.len(), lines);
        assert!(all.contains(&(c"PMIX_JOB_SIZE", PMIX_JOB_SIZE)));
        assert!(all.contains(&(c"PMIX_LAUNCHER_RNDZ_URI", PMIX_LAUNCHER_RNDZ_URI)));
        assert_eq!(COMMON_KEYS.iter().count(), COMMON_KEYS.names.iter().filter(|&&b| b == 0).count());
        assert_eq!(COMMON_KEYS.keys.iter().filter(|&&b| b == 0).count(), COMMON_KEYS.names.iter().filter(|&&b| b == 0).count());
    }
}
