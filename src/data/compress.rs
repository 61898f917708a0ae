//! PMIx_Data_compress / decompress: raw DEFLATE (miniz_oxide) behind a small
//! header `[u32 LE original length]`. Compression is reported only when it
//! shrinks the data; decompression refuses absurd sizes and corrupt input.

use crate::cmem;

/// Inflated payloads larger than this are refused (a corrupt or hostile header).
const MAX_INFLATED: usize = 1 << 30;

pub fn compress(input: &[u8]) -> Option<Vec<u8>> {
    if input.is_empty() || input.len() > u32::MAX as usize {
        return None;
    }
    let body = miniz_oxide::deflate::compress_to_vec(input, 6);
    if body.len() + 4 >= input.len() {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&(input.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    Some(out)
}

pub fn decompress(input: &[u8]) -> Option<Vec<u8>> {
    if input.len() < 5 {
        return None;
    }
    let want = u32::from_le_bytes(input[..4].try_into().ok()?) as usize;
    if want == 0 || want > MAX_INFLATED {
        return None;
    }
    let out = miniz_oxide::inflate::decompress_to_vec_with_limit(&input[4..], want).ok()?;
    (out.len() == want).then_some(out)
}

/// Hand bytes to C as a malloc'd buffer.
pub fn to_c(v: &[u8]) -> *mut u8 {
    cmem::dup_bytes(v) as *mut u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 7) as u8).collect();
        let c = compress(&data).expect("compressible");
        assert!(c.len() < data.len());
        assert_eq!(decompress(&c).unwrap(), data);
        assert!(compress(b"abc").is_none());
        let mut bad = c.clone();
        bad[0] ^= 0x55;
        assert!(decompress(&bad).is_none());
        assert!(decompress(&c[..c.len() / 2]).is_none());
        assert!(decompress(&[0xff, 0xff, 0xff, 0x7f, 1, 2, 3]).is_none());
    }
}
