//! Where servers are found: the host's name, the temporary directories
//! servers and tools agree on, and rendezvous files (a server's contact,
//! written safely, read by tools). Shared by the server and tool roles.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg, OFlag};
use nix::sys::stat::Mode;

use crate::abi::*;
use crate::owned::{find, Info};

/// This host's name ("localhost" if the kernel will not say).
pub fn hostname() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_else(|_| "localhost".into())
}

fn env_dir(names: &[&str]) -> Option<String> {
    names.iter().filter_map(|n| std::env::var(n).ok()).find(|v| !v.is_empty())
}

/// PMIX_SERVER_TMPDIR info -> env PMIX_SERVER_TMPDIR -> TMPDIR -> TEMP -> TMP -> /tmp.
pub fn server_tmpdir(info: &[Info]) -> String {
    find(info, PMIX_SERVER_TMPDIR)
        .and_then(|i| i.as_str())
        .or_else(|| env_dir(&["PMIX_SERVER_TMPDIR", "TMPDIR", "TEMP", "TMP"]))
        .unwrap_or_else(|| "/tmp".into())
}

/// PMIX_SYSTEM_TMPDIR info -> env PMIX_SYSTEM_TMPDIR -> TMPDIR -> TEMP -> TMP -> /tmp.
pub fn system_tmpdir(info: &[Info]) -> String {
    find(info, PMIX_SYSTEM_TMPDIR)
        .and_then(|i| i.as_str())
        .or_else(|| env_dir(&["PMIX_SYSTEM_TMPDIR", "TMPDIR", "TEMP", "TMP"]))
        .unwrap_or_else(|| "/tmp".into())
}

/// A rendezvous file this server wrote (removed at finalize), flock'ed for
/// the server's whole life: the kernel lets go when the server dies.
pub struct Rendezvous {
    pub path: PathBuf,
    _lock: Option<Flock<std::fs::File>>,
}

/// The last line of a rendezvous file rpmix wrote: its lock says whether
/// the server lives (a file without it is judged by its pid, as before).
const LOCKED_MARK: &str = "rpmix-flock";

impl Rendezvous {
    /// Write `contact`, version, pid and uid:gid to `path`, created with
    /// O_EXCL|O_NOFOLLOW and mode 0600 (never through a symlink, never over
    /// someone else's file). A stale file of a dead server is replaced.
    /// With `openpmix` (the server's contact for OpenPMIx's tools), that
    /// contact and the version whose protocol it speaks come first, where
    /// OpenPMIx's tools read them, and `contact` last, where rpmix's do.
    pub fn write(path: PathBuf, contact: &str, openpmix: Option<(&str, &str)>) -> Option<Rendezvous> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(parent) = path.parent() {
            let _ = std::fs::DirBuilder::new().recursive(true).mode(0o755).create(parent);
        }
        let (first, version) = openpmix.unwrap_or((contact, env!("CARGO_PKG_VERSION")));
        let mut body = format!("{first}\n{version}\n{}\n{}:{}\n{LOCKED_MARK}\n", std::process::id(), nix::unistd::geteuid(), nix::unistd::getegid());
        if openpmix.is_some() {
            body.push_str(&format!("{OWN_MARK}{contact}\n"));
        }
        let open = || {
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&path)
        };
        let f = match open() {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && stale(&path) => {
                let _ = std::fs::remove_file(&path);
                open().ok()?
            }
            Err(e) => {
                crate::pmix_debug!(1, "rendezvous file {}: {e}", path.display());
                return None;
            }
        };
        // Locked before anyone can read the mark (it is written after).
        let mut f = match Flock::lock(f, FlockArg::LockExclusiveNonblock) {
            Ok(l) => l,
            Err((_, e)) => {
                crate::pmix_debug!(1, "rendezvous file {}: cannot lock it: {e}", path.display());
                let _ = std::fs::remove_file(&path);
                return None;
            }
        };
        f.write_all(body.as_bytes()).ok()?;
        Some(Rendezvous { path, _lock: Some(f) })
    }
}

/// Something at `path` that is not a stale rendezvous file: a live server's
/// file, or anything else (a symlink, a directory) we will not replace.
pub fn occupied(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok() && !stale(path)
}

/// A rendezvous file (not a symlink) of a server that is gone: for rpmix's
/// own files, one whose lock nobody holds (whatever its pid, which may be
/// reused or belong to another pid namespace); for others, one naming a pid
/// that no longer runs.
fn stale(path: &Path) -> bool {
    let Ok(md) = std::fs::symlink_metadata(path) else { return false };
    if !md.file_type().is_file() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    if text.lines().nth(4) == Some(LOCKED_MARK) {
        return lock_is_free(path);
    }
    let pid = text.lines().nth(2).and_then(|l| l.trim().parse::<i32>().ok());
    // (no signal: only probes for existence)
    pid.is_some_and(|p| p > 0 && nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), None) == Err(nix::errno::Errno::ESRCH))
}

/// Whether nobody holds the flock of the file at `path`.
fn lock_is_free(path: &Path) -> bool {
    let Ok(fd) = nix::fcntl::open(path, OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC, Mode::empty()) else { return false };
    let free: Result<Flock<std::os::fd::OwnedFd>, _> = Flock::lock(fd, FlockArg::LockExclusiveNonblock);
    free.is_ok()
}

/// Remove rpmix's rendezvous files named `<prefix>*` in `dir` whose server
/// is gone (owned by us, marked as locked by rpmix, lock free): what a
/// killed server left behind.
pub fn sweep_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let me = nix::unistd::geteuid().as_raw();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let path = e.path();
        let Ok(md) = std::fs::symlink_metadata(&path) else { continue };
        if !md.file_type().is_file() || std::os::unix::fs::MetadataExt::uid(&md) != me {
            continue;
        }
        let ours = std::fs::read_to_string(&path).is_ok_and(|t| t.lines().nth(4) == Some(LOCKED_MARK));
        if ours && lock_is_free(&path) {
            crate::pmix_debug!(2, "removing the rendezvous file of a server that is gone: {}", path.display());
            let _ = std::fs::remove_file(&path);
        }
    }
}

impl Drop for Rendezvous {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The line after the lock mark that holds rpmix's own contact, when the
/// first line holds the one for OpenPMIx's tools.
const OWN_MARK: &str = "rpmix-contact ";

/// The contact in a rendezvous file: rpmix's own when the file has one,
/// else its first line.
pub fn read_rendezvous(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let own = text.lines().find_map(|l| l.strip_prefix(OWN_MARK)).map(str::to_string);
    own.or_else(|| text.lines().next().map(str::to_string)).filter(|s| !s.is_empty())
}
