//! The macro behind `attr_keys.rs` / `deprecated_keys.rs`: one list of key
//! strings becomes Rust `&CStr` constants and a (name, string) table used by
//! `PMIx_Get_attribute_string` / `_name`. build.rs writes the C `#define`s from
//! the same lines.

macro_rules! attribute_keys {
    ($table:ident; $($name:ident => $s:literal;)*) => {
        $(
            pub const $name: &core::ffi::CStr =
                match core::ffi::CStr::from_bytes_with_nul(concat!($s, "\0").as_bytes()) {
                    Ok(c) => c,
                    Err(_) => panic!("attribute key with an interior NUL"),
                };
        )*
        /// Every key of this list as (macro name, NUL-terminated key string).
        pub const $table: &[(&str, &core::ffi::CStr)] = &[$((stringify!($name), $name),)*];
    };
}
pub(crate) use attribute_keys;
