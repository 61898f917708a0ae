//! A namespace's job data as one read-only snapshot its local clients share
//! (issue 37): the server encodes the job level and every rank's registered
//! record once, into a sealed memfd, and hands its descriptor to each
//! client with the hello's reply; the client maps it and decodes a peer's
//! record only when it first asks about that peer. A client's start-up then
//! costs the same whatever the number of its local peers (before, every
//! hello carried every local peer's record: k^2 records on a node of k).
//!
//! The layout, little-endian u32s: `MAGIC`, the count n, n entries
//! (rank, offset, length) sorted by rank, then the records (each
//! `owned::encode_infos` of one rank; rank WILDCARD is the job level).

use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use crate::abi::pmix_rank_t;

const MAGIC: u32 = 0x444a_5052; // "RPJD"
const HEAD: usize = 8;
const ENTRY: usize = 12;

/// The snapshot's bytes for `records` (rank, encoded infos), in any order.
pub fn encode(records: &[(pmix_rank_t, &[u8])]) -> Vec<u8> {
    let mut sorted: Vec<&(pmix_rank_t, &[u8])> = records.iter().collect();
    sorted.sort_by_key(|r| r.0);
    let data: usize = sorted.iter().map(|r| r.1.len()).sum();
    let mut out = Vec::with_capacity(HEAD + ENTRY * sorted.len() + data);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&(sorted.len() as u32).to_le_bytes());
    let mut off = HEAD + ENTRY * sorted.len();
    for (rank, rec) in &sorted {
        for x in [*rank, off as u32, rec.len() as u32] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        off += rec.len();
    }
    for (_, rec) in sorted {
        out.extend_from_slice(rec);
    }
    out
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|x| u32::from_le_bytes(x.try_into().unwrap()))
}

/// The number of records of a snapshot's bytes, when the header is whole.
fn count(b: &[u8]) -> Option<usize> {
    if u32_at(b, 0)? != MAGIC {
        return None;
    }
    let n = u32_at(b, 4)? as usize;
    (n <= (b.len() - HEAD) / ENTRY).then_some(n)
}

/// `rank`'s record in a snapshot's bytes (binary search of the entries; a
/// record outside the bytes is none).
pub fn record(b: &[u8], rank: pmix_rank_t) -> Option<&[u8]> {
    let n = count(b)?;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let at = HEAD + mid * ENTRY;
        let r = u32_at(b, at)?;
        if r == rank {
            let (off, len) = (u32_at(b, at + 4)? as usize, u32_at(b, at + 8)? as usize);
            return b.get(off..off.checked_add(len)?);
        }
        if r < rank {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

/// The seals that make a memfd's content fixed: what a client requires
/// before it maps one (no write, no shrink, so no SIGBUS on a later read).
const SEALS: libc::c_int = libc::F_SEAL_WRITE | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

/// A sealed memfd holding `bytes` (the server's side).
pub fn seal(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    // SAFETY: a constant NUL-terminated name; the flags are valid.
    let fd = unsafe { libc::memfd_create(c"rpmix-jobdata".as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just made, owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut f = std::fs::File::from(fd);
    std::io::Write::write_all(&mut f, bytes)?;
    let fd = OwnedFd::from(f);
    // SAFETY: fcntl on a descriptor we own.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, SEALS) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

/// A sealed snapshot mapped read-only (the client's side).
pub struct Mapped {
    ptr: *const u8,
    len: usize,
}

// SAFETY: the mapping is read-only and its content sealed against change;
// it is unmapped only on drop, when no reference into it remains.
unsafe impl Send for Mapped {}
// SAFETY: as above: shared reads of immutable memory.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Map `fd` if it is a sealed snapshot (its seals checked, its header whole).
    pub fn map(fd: BorrowedFd<'_>) -> std::io::Result<Mapped> {
        let bad = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string());
        // SAFETY: fcntl on a valid descriptor.
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & SEALS != SEALS {
            return Err(bad("the job data snapshot is not sealed"));
        }
        let len = std::fs::File::from(fd.try_clone_to_owned()?).metadata()?.len() as usize;
        if len < HEAD {
            return Err(bad("the job data snapshot is short"));
        }
        // SAFETY: a read-only private mapping of `len` bytes of a sealed
        // file of that size (it can neither shrink nor change).
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, fd.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let m = Mapped { ptr: p as *const u8, len };
        count(m.bytes()).ok_or_else(|| bad("the job data snapshot's header does not decode"))?;
        Ok(m)
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` readable bytes mapped at `ptr` until drop.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn record(&self, rank: pmix_rank_t) -> Option<&[u8]> {
        record(self.bytes(), rank)
    }

    /// Let the kernel take back the pages read so far (the job level,
    /// decoded at init): a later read of a peer's record maps its page
    /// again from the sealed file, unchanged. Keeps a client's resident
    /// size to what it uses.
    pub fn release_pages(&self) {
        // SAFETY: the whole mapping made in `map` (page-aligned, `len`
        // bytes); MADV_DONTNEED on a private read-only file mapping only
        // drops pages that the next read brings back from the file.
        unsafe { libc::madvise(self.ptr as *mut libc::c_void, self.len, libc::MADV_DONTNEED) };
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn records_round_trip_through_a_sealed_map() {
        let recs: Vec<(pmix_rank_t, Vec<u8>)> = vec![(u32::MAX, b"job".to_vec()), (3, b"three".to_vec()), (0, vec![]), (1, b"one".to_vec())];
        let borrowed: Vec<(pmix_rank_t, &[u8])> = recs.iter().map(|(r, b)| (*r, &b[..])).collect();
        let fd = seal(&encode(&borrowed)).unwrap();
        let m = Mapped::map(fd.as_fd()).unwrap();
        for (r, b) in &recs {
            assert_eq!(m.record(*r), Some(&b[..]));
        }
        // (pages given back are read again unchanged)
        m.release_pages();
        for (r, b) in &recs {
            assert_eq!(m.record(*r), Some(&b[..]));
        }
        assert_eq!(m.record(2), None);
        // (a descriptor that is not sealed is refused)
        let plain = std::fs::File::open("/proc/self/exe").unwrap();
        assert!(Mapped::map(plain.as_fd()).is_err());
    }

    #[test]
    fn a_truncated_snapshot_answers_nothing() {
        let b = encode(&[(5, b"five".as_slice())]);
        assert_eq!(record(&b, 5), Some(&b"five"[..]));
        assert_eq!(record(&b[..b.len() - 1], 5), None);
        assert_eq!(record(&b[..10], 5), None);
        assert_eq!(count(&[0u8; 3]), None);
    }
}
