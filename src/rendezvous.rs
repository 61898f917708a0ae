//! Where servers are found: the host's name, the temporary directories
//! servers and tools agree on, and rendezvous files (a server's contact,
//! written safely, read by tools). Shared by the server and tool roles.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

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

/// A rendezvous file this server wrote (removed at finalize).
pub struct Rendezvous {
    pub path: PathBuf,
}

impl Rendezvous {
    /// Write `contact`, version, pid and uid:gid to `path`, created with
    /// O_EXCL|O_NOFOLLOW and mode 0600 (never through a symlink, never over
    /// someone else's file). A stale file of a dead server is replaced.
    pub fn write(path: PathBuf, contact: &str) -> Option<Rendezvous> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(parent) = path.parent() {
            let _ = std::fs::DirBuilder::new().recursive(true).mode(0o755).create(parent);
        }
        let body = format!(
            "{contact}\n{}\n{}\n{}:{}\n",
            env!("CARGO_PKG_VERSION"),
            std::process::id(),
            nix::unistd::geteuid(),
            nix::unistd::getegid()
        );
        let open = || {
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&path)
        };
        let mut f = match open() {
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
        f.write_all(body.as_bytes()).ok()?;
        Some(Rendezvous { path })
    }
}

/// Something at `path` that is not a stale rendezvous file: a live server's
/// file, or anything else (a symlink, a directory) we will not replace.
pub fn occupied(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok() && !stale(path)
}

/// A rendezvous file (not a symlink) naming a server pid that no longer runs.
fn stale(path: &Path) -> bool {
    let Ok(md) = std::fs::symlink_metadata(path) else { return false };
    if !md.file_type().is_file() {
        return false;
    }
    let pid = std::fs::read_to_string(path).ok().and_then(|s| s.lines().nth(2).and_then(|l| l.trim().parse::<i32>().ok()));
    // (no signal: only probes for existence)
    pid.is_some_and(|p| p > 0 && nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), None) == Err(nix::errno::Errno::ESRCH))
}

impl Drop for Rendezvous {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The contact in a rendezvous file (its first line).
pub fn read_rendezvous(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()?.lines().next().map(str::to_string).filter(|s| !s.is_empty())
}
