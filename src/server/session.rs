//! The server's session directory: created 0700 with O_EXCL semantics
//! (mkdir fails on anything that exists), removed at finalize only if this
//! process created it, never following symlinks.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use crate::abi::*;
use crate::data::elem::Res;
use crate::owned::{find, Info};

pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let n = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..n]).into_owned()
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

#[derive(Clone, Debug)]
pub struct SessionDir {
    pub path: PathBuf,
    /// PMIX_TDIR_RMCLEAN: the host cleans the session directory, so we only
    /// take our socket back.
    pub rm_clean: bool,
}

impl SessionDir {
    /// Create `<base>/<name>[.N]` with mode 0700 (the base is created too when missing).
    pub fn create(base: &str, name: &str) -> Res<SessionDir> {
        let _ = std::fs::DirBuilder::new().recursive(true).mode(0o755).create(base);
        // Resolved once, so removal (which never follows a symlink) can walk it.
        let resolved = std::fs::canonicalize(base).map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| base.to_string());
        let base = resolved.as_str();
        for n in 0..1000 {
            let path = if n == 0 { PathBuf::from(base).join(name) } else { PathBuf::from(base).join(format!("{name}.{n}")) };
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(SessionDir { path, rm_clean: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    crate::pmix_debug!(1, "cannot create session directory {}: {e}", path.display());
                    return Err(PMIX_ERR_NO_PERMISSIONS);
                }
            }
        }
        Err(PMIX_ERR_EXISTS)
    }

    /// Remove the directory we created with everything in it (what the host
    /// and its processes put there too: it is this session's scratch space),
    /// never following a symlink and touching only entries owned by us.
    /// With PMIX_TDIR_RMCLEAN only our socket goes, and the directory if empty.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(self.path.join("server.sock"));
        if self.rm_clean {
            let _ = std::fs::remove_dir(&self.path);
            return;
        }
        self.remove_subtree(&self.path.clone());
    }

    /// Remove `dir` (inside this session directory) and what it holds, owned
    /// by us, no symlink followed; nothing with PMIX_TDIR_RMCLEAN.
    pub fn remove_subtree(&self, dir: &Path) {
        if self.rm_clean || !dir.starts_with(&self.path) {
            return;
        }
        // SAFETY: plain getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut e = super::cleanup::Epilog::new(uid, gid);
        let tree = super::cleanup::Request {
            dirs: vec![super::cleanup::Dir { path: dir.to_path_buf(), recursive: true, leave_top: false }],
            ..Default::default()
        };
        if e.merge(&tree).is_ok() {
            e.execute();
        }
    }

    /// The directory of namespace `ns` (PMIX_NSDIR), created 0700 when missing.
    pub fn nsdir(&self, ns: &str) -> Option<PathBuf> {
        safe_name(ns).then(|| self.path.join(ns)).filter(|d| make_private_dir(d))
    }

    /// `nsdir` (a namespace's PMIX_NSDIR) if it is one we made: directly
    /// inside this session directory, not one the host gave.
    pub fn made_nsdir(&self, nsdir: &str) -> Option<PathBuf> {
        let d = PathBuf::from(nsdir);
        (d.parent() == Some(self.path.as_path())).then_some(d)
    }

    /// The directory of one rank (PMIX_PROCDIR) in its namespace's `nsdir`, created 0700.
    pub fn procdir(&self, nsdir: &Path, rank: u32) -> Option<PathBuf> {
        Some(nsdir.join(rank.to_string())).filter(|d| make_private_dir(d))
    }
}

/// A name usable as one path component (a namespace comes from the host).
fn safe_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains('/') && !s.contains('\0')
}

/// mkdir 0700; an existing directory is fine only if it is a real directory
/// (not a symlink) that we own.
fn make_private_dir(d: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::DirBuilder::new().mode(0o700).create(d) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // SAFETY: plain getter.
            let me = unsafe { libc::geteuid() };
            std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_dir() && m.uid() == me)
        }
        Err(e) => {
            crate::pmix_debug!(1, "cannot create {}: {e}", d.display());
            false
        }
    }
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
            // SAFETY: plain getters.
            unsafe { libc::geteuid() },
            unsafe { libc::getegid() }
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
    // SAFETY: signal 0 only probes for existence.
    pid.is_some_and(|p| p > 0 && unsafe { libc::kill(p, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH))
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
