//! OpenPMIx's v41 codec as an rpmix server reads it: a connect message and
//! every request an OpenPMIx client or tool sends (msg::v41::decode). The
//! first byte's low bit picks the buffer form (fully described or not).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&form, body)) = data.split_first() else { return };
    pmix::server::openpmix::read_as_every_request(body, form & 1 == 1);
});
