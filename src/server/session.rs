//! The server's session directory: created 0700 with O_EXCL semantics
//! (mkdir fails on anything that exists), removed at finalize only if this
//! process created it, never following symlinks.
//!
//! Each holds a `lock` file this server keeps flock'ed for its whole life
//! (the kernel releases it when the process dies, SIGKILL included). A
//! later server on the host removes the directories of ours whose lock is
//! free: the leftovers of a server that was killed. Process ids are never
//! trusted for this (they are reused, and differ between pid namespaces).

use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::path::{Path, PathBuf};

use std::os::fd::OwnedFd;

use nix::fcntl::{Flock, FlockArg, OFlag};
use nix::sys::stat::Mode;

use crate::abi::*;
use crate::status::Res;

#[derive(Clone, Debug)]
pub struct SessionDir {
    pub path: PathBuf,
    /// PMIX_TDIR_RMCLEAN: the host cleans the session directory, so we only
    /// take our socket back.
    pub rm_clean: bool,
    /// The flock'ed `lock` file that says this directory is alive.
    _lock: Option<std::sync::Arc<Flock<OwnedFd>>>,
}

/// The name of the lock file in a session directory.
const LOCK: &str = "lock";

/// Create `dir/lock`, locked, without a moment where it exists unlocked:
/// made and locked under a temporary name, then renamed (same inode).
fn take_lock(dir: &Path) -> Option<Flock<OwnedFd>> {
    let tmp = dir.join("lock.new");
    let fd = nix::fcntl::open(&tmp, OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_RDWR | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC, Mode::from_bits_truncate(0o600)).ok()?;
    let lock = Flock::lock(fd, FlockArg::LockExclusiveNonblock).ok()?;
    std::fs::rename(&tmp, dir.join(LOCK)).ok()?;
    Some(lock)
}

/// Remove the session directories of dead servers of ours under `base`:
/// named `<prefix>*`, directories (not links) owned by us, with a lock file
/// nobody holds. A directory without a lock file is left alone.
pub fn sweep_stale(base: &str, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    let me = nix::unistd::geteuid().as_raw();
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().starts_with(prefix) {
            continue;
        }
        let path = e.path();
        let Ok(md) = std::fs::symlink_metadata(&path) else { continue };
        if !md.is_dir() || std::os::unix::fs::MetadataExt::uid(&md) != me {
            continue;
        }
        let Ok(fd) = nix::fcntl::open(&path.join(LOCK), OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC, Mode::empty()) else { continue };
        // Held: its server lives. Free: its server is gone (the kernel let go).
        let Ok(held) = Flock::lock(fd, FlockArg::LockExclusiveNonblock) else { continue };
        crate::pmix_debug!(2, "removing the session directory of a server that is gone: {}", path.display());
        SessionDir { path, rm_clean: false, _lock: None }.remove();
        drop(held);
    }
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
                Ok(()) => {
                    let lock = take_lock(&path).map(std::sync::Arc::new);
                    if lock.is_none() {
                        crate::pmix_debug!(1, "session directory {}: no lock file (a later server will not clean it up)", path.display());
                    }
                    return Ok(SessionDir { path, rm_clean: false, _lock: lock });
                }
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
        let (mut uid, mut gid) = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
        if running_as_root() {
            // A directory we handed to a client's user (give_to): what that
            // user put there goes, as that user could remove it, and still
            // nothing else and no link followed.
            use std::os::unix::fs::MetadataExt;
            if let Some(m) = std::fs::symlink_metadata(dir).ok().filter(|m| m.file_type().is_dir()) {
                (uid, gid) = (m.uid(), m.gid());
            }
        }
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
        let me = nix::unistd::geteuid().as_raw();
        safe_name(ns).then(|| self.path.join(ns)).filter(|d| make_private_dir(d, me))
    }

    /// A root server's first client of another user: that user must reach
    /// its own directories and the socket here, so others may pass through
    /// the session directory (0711: never list it or write in it) and
    /// connect to the socket (each connection is checked at its hello
    /// against the registration's uid/gid, from the kernel, and against
    /// its credential). Until then both stay private.
    fn open_to_other_users(&self) {
        use std::os::unix::fs::PermissionsExt;
        set_mode_no_follow(&self.path, 0o711);
        let sock = self.path.join("server.sock");
        if std::fs::symlink_metadata(&sock).is_ok_and(|m| m.file_type().is_socket()) {
            let _ = std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o777));
        }
    }

    /// `nsdir` (a namespace's PMIX_NSDIR) if it is one we made: directly
    /// inside this session directory, not one the host gave.
    pub fn made_nsdir(&self, nsdir: &str) -> Option<PathBuf> {
        let d = PathBuf::from(nsdir);
        (d.parent() == Some(self.path.as_path())).then_some(d)
    }

    /// A rank of user `owner` was registered in the namespace directory
    /// `nsdir` we made: a root server whose client is another user lets
    /// it through the session directory to its socket, and hands it the
    /// namespace's directory (false: that directory is another user's
    /// already, so this rank gets none). Nothing to do otherwise.
    pub fn admit_owner(&self, nsdir: &Path, owner: (u32, u32)) -> bool {
        if !serves_other_user(owner.0) {
            return true;
        }
        self.open_to_other_users();
        give_to(nsdir, owner.0, owner.1)
    }

    /// The directory of one rank (PMIX_PROCDIR) in its namespace's `nsdir`,
    /// created 0700, and handed to the rank's user (`owner`) when a root
    /// server made it for another user.
    pub fn procdir(&self, nsdir: &Path, rank: u32, owner: (u32, u32)) -> Option<PathBuf> {
        if !self.admit_owner(nsdir, owner) {
            return None;
        }
        let other_user = serves_other_user(owner.0);
        let d = nsdir.join(rank.to_string());
        let ok = make_private_dir(&d, owner.0) && (!other_user || give_to(&d, owner.0, owner.1));
        ok.then_some(d)
    }
}

/// A root server serves clients of other users (CVE-2023-41915 is this
/// case in OpenPMIx: a root server following a link a user planted).
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// This is a root server and `uid` another user: what it makes for that
/// user's ranks is handed to them.
pub fn serves_other_user(uid: u32) -> bool {
    running_as_root() && uid != nix::unistd::geteuid().as_raw()
}

/// Open `d` as a directory without following a link in its last component.
fn open_dir_no_follow(d: &Path) -> Option<OwnedFd> {
    nix::fcntl::open(d, OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC, Mode::empty()).ok()
}

fn set_mode_no_follow(d: &Path, mode: u32) {
    if let Some(fd) = open_dir_no_follow(d) {
        if let Err(e) = nix::sys::stat::fchmod(&fd, Mode::from_bits_truncate(mode)) {
            crate::pmix_debug!(1, "cannot set the mode of {}: {e}", d.display());
        }
    }
}

/// Hand the directory `d` (one we made) to a client's user: changed through
/// a descriptor opened without following links, so a link planted in its
/// place is never followed and nothing else is ever chown'ed. A directory
/// the user already owns is left as it is.
pub fn give_to(d: &Path, uid: u32, gid: u32) -> bool {
    let Some(fd) = open_dir_no_follow(d) else {
        crate::pmix_debug!(1, "{}: not a directory of ours any more; not handed to uid {uid}", d.display());
        return false;
    };
    let Ok(st) = nix::sys::stat::fstat(&fd) else { return false };
    if st.st_uid == uid {
        return true;
    }
    if st.st_uid != nix::unistd::geteuid().as_raw() {
        return false;
    }
    match nix::unistd::fchown(&fd, Some(nix::unistd::Uid::from_raw(uid)), Some(nix::unistd::Gid::from_raw(gid))) {
        Ok(()) => true,
        Err(e) => {
            crate::pmix_debug!(1, "cannot hand {} to uid {uid}: {e}", d.display());
            false
        }
    }
}

/// A name usable as one path component (a namespace comes from the host).
pub fn safe_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains('/') && !s.contains('\0')
}

/// mkdir 0700; an existing directory is fine only if it is a real directory
/// (not a symlink) owned by us or by `user` (whose it is to be).
fn make_private_dir(d: &Path, user: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::DirBuilder::new().mode(0o700).create(d) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let me = nix::unistd::geteuid().as_raw();
            std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_dir() && (m.uid() == me || m.uid() == user))
        }
        Err(e) => {
            crate::pmix_debug!(1, "cannot create {}: {e}", d.display());
            false
        }
    }
}
