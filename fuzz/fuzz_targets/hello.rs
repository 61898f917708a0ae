//! The handshakes a server reads before it knows its peer: rpmix's client
//! and tool hellos, and OpenPMIx's connect message.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = pmix::msg::Hello::decode(data);
    let _ = pmix::msg::ToolHello::decode(data);
    let _ = pmix::ptl::parse_connect(data);
});
