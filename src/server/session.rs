//! The server's session directory: created 0700 with O_EXCL semantics
//! (mkdir fails on anything that exists), removed at finalize only if this
//! process created it, never following symlinks.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use crate::abi::*;
use crate::status::Res;

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
        let (uid, gid) = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
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
            let me = nix::unistd::geteuid().as_raw();
            std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_dir() && m.uid() == me)
        }
        Err(e) => {
            crate::pmix_debug!(1, "cannot create {}: {e}", d.display());
            false
        }
    }
}
