//! OpenPMIx's "v41" serialisation, byte for byte: what `PMIx_Data_pack`
//! writes in OpenPMIx 4.2 (and 5.0), so that a buffer packed by either
//! library unpacks in the other. The format is measured and described in
//! docs/openpmix-v41-format.md; in short:
//!
//! - integers are varints of at most 9 bytes (`vu`: 7 bits a byte, the 9th
//!   byte carrying 8 raw bits); signed ones zigzag-mapped first (`vs`);
//! - 8-bit types (bool, byte, the byte-sized enums) are raw bytes;
//! - strings are `vs(length including the NUL)` and the bytes with their
//!   NUL; a NULL string is `vs(0)`; floats travel as `"%f"` text;
//! - each pack call is `vs(count)` and the elements; the "fully described"
//!   form adds the type of the count (INT32) before it and the element type
//!   after it. Values, infos and arrays always carry their type;
//! - compound types are their fields in the order `Kind::fields` lists
//!   them, less those marked rpmix-only (OpenPMIx does not send them).
//!
//! Where OpenPMIx 4.2.2's own codec is defective, this one writes what its
//! reader expects and reads what its writer writes (the README lists each
//! case): PROC_STATS (4.2.2 reads a field it never writes), NODE_STATS with
//! disk or network entries, a value holding a DATA_BUFFER, non-empty
//! PROC_CPUSETs, and REGEX strings of other forms than `pmix`/`raw:`.
//!
//! The decoder never trusts a count: arrays grow with the elements that
//! really decode, strings are bounded by the bytes that remain, and nesting
//! is limited to `elem::MAX_DEPTH`.
//!
//! `encode.rs` writes it, `decode.rs` reads it.

mod decode;
mod encode;

pub use decode::Decoder;
pub use encode::Encoder;

use crate::abi::*;

const SHORT: pmix_status_t = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
const BAD: pmix_status_t = PMIX_ERR_UNPACK_FAILURE;
/// hwloc 2.x's topology support flags, sent raw after a topology's XML
/// (discovery, cpubind, membind: one byte per flag).
const TOPO_SUPPORT_BYTES: usize = 6 + 11 + 15;

/// Is the fully described form asked for? Read once, at the first pack or
/// unpack (OpenPMIx reads the same variables once, at init).
pub fn described_from_env() -> bool {
    static DESCRIBED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DESCRIBED.get_or_init(|| {
        std::env::var("PMIX_BFROP_BUFFER_TYPE").is_ok_and(|v| v == "PMIX_BFROP_BUFFER_FULLY_DESC")
            || std::env::var("PMIX_MCA_bfrops_base_default_type").is_ok_and(|v| v == "2")
    })
}

/// Integer types whose arrays take the bulk path (`numbers`).
fn plain_int(t: pmix_data_type_t) -> bool {
    matches!(
        t,
        PMIX_UINT64
            | PMIX_DEVTYPE
            | PMIX_STOR_MEDIUM
            | PMIX_STOR_ACCESS
            | PMIX_STOR_PERSIST
            | PMIX_UINT32
            | PMIX_INFO_DIRECTIVES
            | PMIX_PROC_RANK
            | PMIX_INT
            | PMIX_INT32
            | PMIX_STATUS
            | PMIX_UINT
            | PMIX_INT64
            | PMIX_BYTE
            | PMIX_INT8
            | PMIX_UINT8
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vu(v: u64) -> Vec<u8> {
        let mut e = Encoder::default();
        e.vu(v);
        e.out
    }

    #[test]
    fn varints_as_openpmix_writes_them() {
        // (bytes measured on OpenPMIx 4.2.2: docs/openpmix-v41-format.md)
        assert_eq!(vu(0), [0x00]);
        assert_eq!(vu(300), [0xac, 0x02]);
        assert_eq!(vu(1 << 40), [0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
        assert_eq!(vu((1 << 56) - 1), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(vu(1 << 56), [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
        assert_eq!(vu(u64::MAX), [0xff; 9]);
        let mut e = Encoder::default();
        e.vs(-300);
        e.vs(i32::MIN as i64);
        assert_eq!(e.out, [0xd7, 0x04, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        for v in [0, 1, 127, 128, 300, 1 << 40, (1 << 56) - 1, 1 << 56, u64::MAX - 1, u64::MAX] {
            let b = vu(v);
            assert_eq!(Decoder::new(&b).vu(), Ok(v));
        }
        for v in [0i64, -1, 1, -300, i32::MIN as i64, i64::MIN, i64::MAX] {
            let mut e = Encoder::default();
            e.vs(v);
            assert_eq!(Decoder::new(&e.out).vs(), Ok(v));
        }
    }

    #[test]
    fn strings_carry_their_nul() {
        let mut e = Encoder::default();
        e.string(Some(b"abc")).unwrap();
        e.string(None).unwrap();
        assert_eq!(e.out, [0x08, b'a', b'b', b'c', 0, 0x00]);
        let mut d = Decoder::new(&e.out);
        assert_eq!(d.str_bytes(), Ok(Some(&b"abc"[..])));
        assert_eq!(d.str_bytes(), Ok(None));
        // a length past the end, a negative one, a missing NUL
        assert_eq!(Decoder::new(&[0x08, b'a']).str_bytes(), Err(SHORT));
        assert_eq!(Decoder::new(&[0x01]).str_bytes(), Err(BAD));
        assert_eq!(Decoder::new(&[0x04, b'a', b'b']).str_bytes(), Err(BAD));
    }

    #[test]
    fn too_wide_values_are_refused() {
        // uint16 ff ff 07 and a uint32 of 33 bits, as OpenPMIx refuses them
        assert_eq!(Decoder::new(&[0xff, 0xff, 0x07]).vu_bits(16), Err(BAD));
        assert_eq!(Decoder::new(&[0xff, 0xff, 0xff, 0xff, 0x1f]).vu_bits(32), Err(BAD));
        assert_eq!(Decoder::new(&[0xff, 0xff, 0x03]).vu_bits(16), Ok(65535));
    }
}
