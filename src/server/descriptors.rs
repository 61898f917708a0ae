//! The process's descriptor table, grown before a job's clients come.
//!
//! Linux grows a process's table of descriptors by doubling it when a
//! descriptor is made beyond its end, and in a process of several threads
//! each growth first waits for an RCU grace period (the threads may be
//! reading the old table). On an idle virtual machine that is several
//! milliseconds, and every thread making a descriptor meanwhile sleeps. A
//! server that holds a connection (and its launcher pipes) for each client
//! crossed 256, 512, 1,024 descriptors while a job of 1,024 ranks started:
//! 40 ms with both CPUs idle, 10% of that launch. Grown once, to what the
//! job needs, before its clients come, the table costs one such wait, and
//! none in a process that has a single thread yet.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Make room in the table for `more` descriptors beyond the lowest free one
/// (capped by the soft limit on open files). Nothing happens when the table
/// is already that large. Best effort: a failure only leaves the table to
/// grow as descriptors are made.
pub fn reserve(more: usize) {
    let Ok(probe) = std::fs::File::open("/dev/null") else { return };
    // (the lowest free descriptor, now held by the probe)
    let lowest = probe.as_raw_fd() as usize;
    let limit = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).map_or(1024, |(soft, _)| soft);
    let want = (lowest + more).min(usize::try_from(limit).unwrap_or(usize::MAX).saturating_sub(1));
    if want <= lowest {
        return;
    }
    // A copy numbered `want` or above makes the kernel grow the table to
    // hold it; closing the copy leaves the table that large.
    // SAFETY: fcntl on a descriptor this function owns; the copy it may
    // return is owned (and closed) here.
    let copy = unsafe { libc::fcntl(probe.as_raw_fd(), libc::F_DUPFD_CLOEXEC, want as libc::c_int) };
    if copy >= 0 {
        // SAFETY: a descriptor just made by F_DUPFD_CLOEXEC, owned by nothing else.
        drop(unsafe { OwnedFd::from_raw_fd(copy) });
    } else {
        crate::pmix_debug!(1, "descriptor table: not grown to {want}: {}", std::io::Error::last_os_error());
    }
}

#[cfg(test)]
mod tests {
    /// The table's size (FDSize in /proc/self/status).
    fn table_size() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        status.lines().find_map(|l| l.strip_prefix("FDSize:")).unwrap().trim().parse().unwrap()
    }

    /// The table grows to hold what is reserved, within the soft limit.
    #[test]
    fn reserve_grows_the_table() {
        let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).unwrap().0 as usize;
        let before = table_size();
        let more = (4 * before).min(soft.saturating_sub(64));
        if more <= before {
            eprintln!("open files limit {soft}: too low to test");
            return;
        }
        super::reserve(more);
        assert!(table_size() >= more, "table of {} after reserving {more} (was {before})", table_size());
        // Reserving what it holds already changes nothing.
        let now = table_size();
        super::reserve(16);
        assert_eq!(table_size(), now);
    }
}
