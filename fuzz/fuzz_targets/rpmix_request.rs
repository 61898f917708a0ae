//! rpmix's own request codec: the first two bytes are the frame's tag
//! (little-endian), the rest its body. Any bytes: a request or an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let tag = u16::from_le_bytes([data[0], data[1]]);
    if let Ok(req) = pmix::msg::Request::decode(tag, &data[2..]) {
        // what decodes encodes again
        let _ = req.encode();
    }
});
