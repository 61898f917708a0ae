//! OpenPMIx's v41 codec as an rpmix client reads it: answers of every
//! request kind, events, forwarded output, job data. The first byte's low
//! bit picks the buffer form.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&form, body)) = data.split_first() else { return };
    pmix::client::openpmix::read_as_every_answer(body, form & 1 == 1);
});
