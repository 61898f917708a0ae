//! The snapshot of a job's data that ranks map (msg/snapshot.rs): the first
//! four bytes are the rank looked up, the rest the snapshot's bytes. A record
//! found lies inside the bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let rank = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let b = &data[4..];
    for r in [rank, 0, rank.wrapping_add(1), u32::MAX] {
        if let Some(rec) = pmix::msg::snapshot::record(b, r) {
            let (start, end) = (b.as_ptr() as usize, b.as_ptr() as usize + b.len());
            let p = rec.as_ptr() as usize;
            assert!(p >= start && p + rec.len() <= end, "a record outside the snapshot");
        }
    }
});
