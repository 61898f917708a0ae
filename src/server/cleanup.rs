//! Cleanup registration (RFC0027): files and directories a process asks the
//! server to remove when it (or its namespace) terminates.
//!
//! Rules, where OpenPMIx 4.2.2 differs (see README):
//! - handled by the server itself, never relayed to the host;
//! - only absolute paths (a relative one is PMIX_ERR_BAD_PARAM);
//! - a request is all or nothing: a conflict changes nothing;
//! - the same directory registered twice keeps the strongest flags
//!   (recursive wins, leave-top-directory wins);
//! - a path both registered for removal and ignored is
//!   PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES;
//! - removal never follows a symlink (a link is removed as a link; paths are
//!   walked component by component with O_NOFOLLOW), and touches only entries
//!   whose owner uid AND gid are the requester's kernel-verified ones;
//! - order: registered files, then each tree (files before the directories
//!   that held them, deepest first), then the top directory unless kept.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;
use nix::sys::stat::{fstatat, FileStat, Mode, SFlag};
use nix::fcntl::AtFlags;
use nix::unistd::{unlinkat, UnlinkatFlags};

use crate::abi::*;
use crate::status::Res;
use crate::owned::Info;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dir {
    pub path: PathBuf,
    pub recursive: bool,
    pub leave_top: bool,
}

/// What a set of directives asks for.
#[derive(Default, Debug, Clone)]
pub struct Request {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<Dir>,
    pub ignores: Vec<PathBuf>,
}

impl Request {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty() && self.ignores.is_empty()
    }
}

/// Is this directive one of the cleanup keys?
pub fn is_cleanup_key(i: &Info) -> bool {
    [PMIX_REGISTER_CLEANUP, PMIX_REGISTER_CLEANUP_DIR, PMIX_CLEANUP_IGNORE, PMIX_CLEANUP_RECURSIVE, PMIX_CLEANUP_LEAVE_TOPDIR, PMIX_CLEANUP_EMPTY]
        .iter()
        .any(|k| i.is(k))
}

fn paths(i: &Info) -> Res<Vec<PathBuf>> {
    let Some(s) = i.as_str() else {
        crate::pmix_debug!(1, "cleanup: {} must be a string", i.key());
        return Err(PMIX_ERR_BAD_PARAM);
    };
    let mut out = Vec::new();
    for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let pb = PathBuf::from(p);
        if !pb.is_absolute() {
            crate::pmix_debug!(1, "cleanup: relative path '{p}' refused");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        // Refused when registered, not only when run: '..' (resolving it
        // needs the file system, which may change) and the root itself.
        if pb.components().any(|c| c == std::path::Component::ParentDir) {
            crate::pmix_debug!(1, "cleanup: path '{p}' with '..' refused");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let pb = normalise(&pb);
        if pb == Path::new("/") {
            crate::pmix_debug!(1, "cleanup: the root directory refused");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        out.push(pb);
    }
    Ok(out)
}

/// Lexical normalisation: drop `.` and trailing slashes ('..' never gets
/// here: refused at registration, and again at removal time).
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            std::path::Component::Normal(n) => out.push(n),
            std::path::Component::ParentDir => out.push(".."),
            _ => {}
        }
    }
    out
}

/// Parse the cleanup directives of a request (Ok(empty) when there are none).
pub fn parse(directives: &[Info]) -> Res<Request> {
    let mut r = Request::default();
    let recursive = directives.iter().any(|i| i.is(PMIX_CLEANUP_RECURSIVE) && i.truthy());
    let leave_top = directives.iter().any(|i| i.is(PMIX_CLEANUP_LEAVE_TOPDIR) && i.truthy());
    for i in directives {
        if i.is(PMIX_REGISTER_CLEANUP) {
            r.files.extend(paths(i)?);
        } else if i.is(PMIX_REGISTER_CLEANUP_DIR) {
            for p in paths(i)? {
                r.dirs.push(Dir { path: p, recursive, leave_top });
            }
        } else if i.is(PMIX_CLEANUP_IGNORE) {
            r.ignores.extend(paths(i)?);
        }
    }
    Ok(r)
}

/// Registered cleanup of one process or one namespace.
#[derive(Default, Debug, Clone)]
pub struct Epilog {
    pub uid: u32,
    pub gid: u32,
    pub req: Request,
}

impl Epilog {
    pub fn new(uid: u32, gid: u32) -> Epilog {
        Epilog { uid, gid, req: Request::default() }
    }

    /// Merge a request atomically: on a conflict nothing changes.
    pub fn merge(&mut self, new: &Request) -> Res {
        let mut next = self.req.clone();
        for f in &new.files {
            if !next.files.contains(f) {
                next.files.push(f.clone());
            }
        }
        for d in &new.dirs {
            match next.dirs.iter_mut().find(|x| x.path == d.path) {
                Some(x) => {
                    x.recursive |= d.recursive;
                    x.leave_top |= d.leave_top;
                }
                None => next.dirs.push(d.clone()),
            }
        }
        for g in &new.ignores {
            if !next.ignores.contains(g) {
                next.ignores.push(g.clone());
            }
        }
        let removed = next.files.iter().chain(next.dirs.iter().map(|d| &d.path));
        for p in removed {
            if next.ignores.contains(p) {
                crate::pmix_debug!(1, "cleanup: {} is both registered for removal and ignored", p.display());
                return Err(PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES);
            }
        }
        self.req = next;
        Ok(())
    }

    /// Remove what is registered, then forget it (it runs once).
    pub fn execute(&mut self) {
        let req = std::mem::take(&mut self.req);
        let ctx = Ctx { uid: self.uid, gid: self.gid, ignores: &req.ignores };
        for f in &req.files {
            ctx.remove_file(f);
        }
        for d in &req.dirs {
            ctx.remove_tree(d);
        }
    }
}

struct Ctx<'a> {
    uid: u32,
    gid: u32,
    ignores: &'a [PathBuf],
}

fn skip(path: &Path, why: &str) {
    crate::pmix_debug!(10, "cleanup: skipped {}: {why}", path.display());
}

/// A directory opened for the walk: never through a symlink, closed on drop.
type DirFd = OwnedFd;

/// Open flags of every directory of the walk: no symlink is followed.
fn dir_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

/// Open a directory by absolute path without following any symlink on the way.
fn open_dir_nofollow(path: &Path) -> Option<DirFd> {
    let mut fd = nix::fcntl::open("/", OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
    for c in path.components() {
        match c {
            std::path::Component::Normal(n) => fd = open_subdir(&fd, n)?,
            std::path::Component::RootDir => {}
            _ => return None, // '..' or '.': refuse rather than resolve
        }
    }
    Some(fd)
}

/// `name` in `dir`, opened as a directory (not if it is a symlink).
fn open_subdir<N: ?Sized + nix::NixPath>(dir: &DirFd, name: &N) -> Option<DirFd> {
    nix::fcntl::openat(dir, name, dir_flags(), Mode::empty()).ok()
}

/// What `name` in `dir` is (a symlink itself, never its target).
fn lstat_at<N: ?Sized + nix::NixPath>(dir: &DirFd, name: &N) -> Option<FileStat> {
    fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW).ok()
}

fn is_dir(st: &FileStat) -> bool {
    SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR
}

impl Ctx<'_> {
    fn ignored(&self, p: &Path) -> bool {
        self.ignores.iter().any(|g| g == p)
    }
    fn owned(&self, st: &FileStat) -> bool {
        st.st_uid == self.uid && st.st_gid == self.gid
    }

    fn remove_file(&self, path: &Path) {
        if self.ignored(path) {
            return skip(path, "ignored");
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return skip(path, "not a file path") };
        let Some(dir) = open_dir_nofollow(parent) else { return skip(path, "parent missing or reached through a symlink") };
        let Some(st) = lstat_at(&dir, name) else { return skip(path, "does not exist") };
        if !self.owned(&st) {
            return skip(path, "owner is not the requester");
        }
        if is_dir(&st) {
            return skip(path, "is a directory (register it as a directory)");
        }
        if unlinkat(&dir, name, UnlinkatFlags::NoRemoveDir).is_err() {
            skip(path, "unlink failed");
        }
    }

    fn remove_tree(&self, d: &Dir) {
        let path = &d.path;
        if self.ignored(path) {
            return skip(path, "ignored");
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return skip(path, "not removable") };
        let Some(pfd) = open_dir_nofollow(parent) else { return skip(path, "parent missing or reached through a symlink") };
        let Some(st) = lstat_at(&pfd, name) else { return skip(path, "does not exist") };
        if !is_dir(&st) {
            return skip(path, "not a directory (a symlink is never followed)");
        }
        if !self.owned(&st) {
            return skip(path, "owner is not the requester");
        }
        let Some(fd) = open_subdir(&pfd, name) else { return skip(path, "cannot open") };
        self.empty_dir(fd, path, d.recursive, 0);
        if d.leave_top {
            return;
        }
        // rmdir of the (now hopefully empty) directory; fails harmlessly if not empty.
        if unlinkat(&pfd, name, UnlinkatFlags::RemoveDir).is_err() {
            skip(path, "not empty (kept)");
        }
    }

    /// Remove the contents of `dir` (subdirectories only when recursive).
    fn empty_dir(&self, dir: DirFd, path: &Path, recursive: bool, depth: u32) {
        if depth > 256 {
            return skip(path, "nested too deep");
        }
        // The listing reads a duplicate of the descriptor, so `dir` stays
        // usable for the *at() calls below.
        let Ok(dup) = dir.try_clone() else { return };
        let Ok(mut listing) = nix::dir::Dir::from_fd(dup) else { return };
        let names: Vec<CString> = listing
            .iter()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_owned())
            .filter(|n| n.as_bytes() != b"." && n.as_bytes() != b"..")
            .collect();
        drop(listing);
        for n in names {
            let child = path.join(std::ffi::OsStr::from_bytes(n.as_bytes()));
            if self.ignored(&child) {
                skip(&child, "ignored");
                continue;
            }
            let Some(st) = lstat_at(&dir, n.as_c_str()) else { continue };
            if !self.owned(&st) {
                skip(&child, "owner is not the requester");
                continue;
            }
            if is_dir(&st) {
                if !recursive {
                    skip(&child, "subdirectory of a non-recursive registration");
                    continue;
                }
                let Some(fd) = open_subdir(&dir, n.as_c_str()) else {
                    skip(&child, "cannot open");
                    continue;
                };
                self.empty_dir(fd, &child, true, depth + 1);
                // rmdir relative to the parent fd; fails if not empty.
                if unlinkat(&dir, n.as_c_str(), UnlinkatFlags::RemoveDir).is_err() {
                    skip(&child, "not empty (kept)");
                }
            } else if unlinkat(&dir, n.as_c_str(), UnlinkatFlags::NoRemoveDir).is_err() {
                // (files and symlinks: the link itself, never its target)
                skip(&child, "unlink failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::Value;
    use std::os::unix::fs::symlink;

    fn me() -> (u32, u32) {
        (nix::unistd::getuid().as_raw(), nix::unistd::getgid().as_raw())
    }

    fn tmp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("rpmix-cleanup-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn relative_paths_and_bad_types_are_refused() {
        let r = parse(&[Info::new("pmix.reg.cleanup", Value::string("relative/file"))]);
        assert_eq!(r.err(), Some(PMIX_ERR_BAD_PARAM));
        let r = parse(&[Info::new("pmix.reg.cleanupdir", Value::u32(3))]);
        assert_eq!(r.err(), Some(PMIX_ERR_BAD_PARAM));
        // the root and '..' are refused when registered, not only when run
        for p in ["/", "//", "/./", "/tmp/../etc", "/tmp/x/..", "/a,/b/../c"] {
            for key in ["pmix.reg.cleanup", "pmix.reg.cleanupdir", "pmix.clnup.ignore"] {
                let r = parse(&[Info::new(key, Value::string(p))]);
                assert_eq!(r.err(), Some(PMIX_ERR_BAD_PARAM), "{key} = {p}");
            }
        }
    }

    #[test]
    fn precedence_and_atomic_conflicts() {
        let (u, g) = me();
        let mut e = Epilog::new(u, g);
        let a = parse(&[Info::new("pmix.reg.cleanupdir", Value::string("/x/d"))]).unwrap();
        let b = parse(&[
            Info::new("pmix.reg.cleanupdir", Value::string("/x/d,/x/e")),
            Info::new("pmix.clnup.recurse", Value::boolean(true)),
            Info::new("pmix.clnup.lvtop", Value::boolean(true)),
        ])
        .unwrap();
        e.merge(&a).unwrap();
        e.merge(&b).unwrap();
        assert_eq!(e.req.dirs.len(), 2);
        assert!(e.req.dirs[0].recursive && e.req.dirs[0].leave_top);
        let before = e.req.clone();
        let c = parse(&[Info::new("pmix.reg.cleanup", Value::string("/x/f")), Info::new("pmix.clnup.ignore", Value::string("/x/e"))]).unwrap();
        assert_eq!(e.merge(&c), Err(PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES));
        assert_eq!(e.req.files, before.files);
        assert_eq!(e.req.ignores, before.ignores);
    }

    #[test]
    fn removes_tree_keeps_ignored_and_never_follows_links() {
        let (u, g) = me();
        let root = tmp("tree");
        let outside = tmp("outside");
        std::fs::write(outside.join("precious"), b"x").unwrap();
        let d = root.join("d");
        std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
        std::fs::write(d.join("a"), b"1").unwrap();
        std::fs::write(d.join("sub/b"), b"2").unwrap();
        std::fs::write(d.join("sub/deeper/keep"), b"3").unwrap();
        symlink(&outside, d.join("link-to-outside")).unwrap();
        symlink(outside.join("precious"), root.join("file-link")).unwrap();
        let mut e = Epilog::new(u, g);
        let req = parse(&[
            Info::new("pmix.reg.cleanupdir", Value::string(d.to_str().unwrap())),
            Info::new("pmix.clnup.recurse", Value::boolean(true)),
            Info::new("pmix.clnup.ignore", Value::string(d.join("sub/deeper/keep").to_str().unwrap())),
            Info::new("pmix.reg.cleanup", Value::string(root.join("file-link").to_str().unwrap())),
        ])
        .unwrap();
        e.merge(&req).unwrap();
        e.execute();
        assert!(!d.join("a").exists());
        assert!(!d.join("sub/b").exists());
        assert!(d.join("sub/deeper/keep").exists(), "ignored file kept");
        assert!(std::fs::symlink_metadata(d.join("link-to-outside")).is_err(), "link removed as a link");
        assert!(std::fs::symlink_metadata(root.join("file-link")).is_err(), "file link removed");
        assert!(outside.join("precious").exists(), "link targets untouched");
        // a registered path reached through a symlinked parent is not touched
        let via_link = root.join("via");
        symlink(&outside, &via_link).unwrap();
        let mut e2 = Epilog::new(u, g);
        e2.merge(&parse(&[Info::new("pmix.reg.cleanup", Value::string(via_link.join("precious").to_str().unwrap()))]).unwrap()).unwrap();
        e2.execute();
        assert!(outside.join("precious").exists());
        // others' files are skipped: pretend to be another uid
        let mut e3 = Epilog::new(u.wrapping_add(1), g);
        e3.merge(&parse(&[Info::new("pmix.reg.cleanup", Value::string(outside.join("precious").to_str().unwrap()))]).unwrap()).unwrap();
        e3.execute();
        assert!(outside.join("precious").exists());
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
    }
}
