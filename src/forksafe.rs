//! A value readable without taking any lock, so that a fork child can read it.
//!
//! Hosts call `PMIx_server_setup_fork` in the child between `fork()` and
//! `exec()` (Slurm's slurmstepd does). There, a lock that some other thread
//! of the parent held at the moment of the fork stays held forever, and the
//! progress thread does not exist. What setup_fork needs is therefore kept in
//! a [`Published`] value: readers load a pointer to an immutable snapshot;
//! writers build a new snapshot, swap the pointer, and free the old one only
//! once no reader is inside a read.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::SeqCst};
use parking_lot::Mutex;

pub struct Published<T> {
    current: AtomicPtr<T>,
    /// Reads in progress (of any snapshot): a retired snapshot is freed at 0.
    readers: AtomicUsize,
    /// Serialises writers (readers never take it).
    writer: Mutex<()>,
}

// SAFETY: the snapshot is shared between threads by reference (T: Sync) and
// freed by whichever thread replaces it (T: Send).
unsafe impl<T: Send + Sync> Sync for Published<T> {}

impl<T> Published<T> {
    pub const fn new() -> Self {
        Published { current: AtomicPtr::new(ptr::null_mut()), readers: AtomicUsize::new(0), writer: Mutex::new(()) }
    }

    /// Run `f` on the current snapshot (None before the first publish).
    /// Takes no lock and never blocks: safe in a fork child.
    pub fn read<R>(&self, f: impl FnOnce(Option<&T>) -> R) -> R {
        self.readers.fetch_add(1, SeqCst);
        let p = self.current.load(SeqCst);
        // SAFETY: p is null or a snapshot from Box::into_raw; a writer that
        // replaced it waits for `readers` to drop to 0 before freeing it, and
        // our increment precedes our load.
        let r = f(unsafe { p.as_ref() });
        self.readers.fetch_sub(1, SeqCst);
        r
    }

    /// Replace the snapshot with what `f` makes of the current one (None: empty).
    pub fn update(&self, f: impl FnOnce(Option<&T>) -> Option<T>) {
        let _w = self.writer.lock();
        let old = self.current.load(SeqCst);
        // SAFETY: only writers free snapshots, and we hold the writer lock.
        let new = f(unsafe { old.as_ref() }).map_or(ptr::null_mut(), |t| Box::into_raw(Box::new(t)));
        self.current.store(new, SeqCst);
        if old.is_null() {
            return;
        }
        // Readers that may still see `old` loaded it before the store above;
        // they all counted themselves in before that load.
        while self.readers.load(SeqCst) != 0 {
            std::thread::yield_now();
        }
        // SAFETY: unpublished, and no reader is left that could hold it.
        drop(unsafe { Box::from_raw(old) });
    }
}

impl<T> Default for Published<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn readers_see_whole_snapshots_while_writers_replace_them() {
        let p = Arc::new(Published::<Vec<u64>>::new());
        assert!(p.read(|v| v.is_none()));
        p.update(|_| Some(vec![0; 64]));
        let r = {
            let p = p.clone();
            std::thread::spawn(move || {
                for _ in 0..20000 {
                    p.read(|v| {
                        let v = v.unwrap();
                        assert!(v.iter().all(|x| *x == v[0]), "torn snapshot");
                    });
                }
            })
        };
        for i in 1..2000u64 {
            p.update(|_| Some(vec![i; 64]));
        }
        r.join().unwrap();
        assert_eq!(p.read(|v| v.unwrap()[0]), 1999);
        p.update(|_| None);
        assert!(p.read(|v| v.is_none()));
    }

    #[test]
    fn reads_in_a_fork_child_do_not_block_on_a_held_writer_lock() {
        static P: Published<String> = Published::new();
        P.update(|_| Some("before fork".into()));
        let _held = P.writer.lock();
        // SAFETY: the child only reads and _exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let ok = P.read(|s| s.map(|s| s.as_str()) == Some("before fork"));
            // SAFETY: leaving the child without running the parent's destructors.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }
}
