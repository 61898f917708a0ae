//! A value delivered once from one thread to a waiter on another.

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

pub struct Oneshot<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    slot: Mutex<Slot<T>>,
    cv: Condvar,
    /// Set once a value is in: a sender dropped afterwards has nothing to
    /// tell the waiter and need not take the lock (which the woken waiter
    /// is about to take).
    delivered: std::sync::atomic::AtomicBool,
}

struct Slot<T> {
    value: Option<T>,
    /// The sender side is gone without a value (the loop ended).
    abandoned: bool,
    senders: usize,
    /// Woken when the value comes: a waiter that runs a loop meanwhile
    /// (`Handle::drive`) sleeps in that loop's poll, not on `cv`.
    wake: Option<Arc<mio::Waker>>,
}

impl<T> Clone for Oneshot<T> {
    fn clone(&self) -> Self {
        self.inner.slot.lock().senders += 1;
        Oneshot { inner: self.inner.clone() }
    }
}

impl<T> Drop for Oneshot<T> {
    fn drop(&mut self) {
        if self.inner.delivered.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let (m, cv) = (&self.inner.slot, &self.inner.cv);
        let mut s = m.lock();
        s.senders = s.senders.saturating_sub(1);
        if s.senders == 0 && s.value.is_none() {
            s.abandoned = true;
            cv.notify_all();
            if let Some(w) = s.wake.take() {
                let _ = w.wake();
            }
        }
    }
}

impl<T> Default for Oneshot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Oneshot<T> {
    pub fn new() -> Self {
        let slot = Mutex::new(Slot { value: None, abandoned: false, senders: 0, wake: None });
        Oneshot { inner: Arc::new(Inner { slot, cv: Condvar::new(), delivered: std::sync::atomic::AtomicBool::new(false) }) }
    }

    /// Deliver the value (the first one wins).
    pub fn set(&self, v: T) {
        let (m, cv) = (&self.inner.slot, &self.inner.cv);
        let mut s = m.lock();
        if s.value.is_none() {
            s.value = Some(v);
            self.inner.delivered.store(true, std::sync::atomic::Ordering::Release);
        }
        cv.notify_all();
        // (delivered by the thread running the loop: its next check sees it)
        if let Some(w) = s.wake.take().filter(|_| !super::driving()) {
            let _ = w.wake();
        }
    }

    /// True once a value is in, or every sender went without one: a wait
    /// would not block.
    pub fn is_settled(&self) -> bool {
        self.inner.delivered.load(std::sync::atomic::Ordering::Acquire) || self.inner.slot.lock().abandoned
    }

    /// Wake `w` when the value comes (or every sender goes without one);
    /// false when that happened already.
    pub fn wake_on_set(&self, w: Arc<mio::Waker>) -> bool {
        let mut s = self.inner.slot.lock();
        if s.value.is_some() || s.abandoned {
            return false;
        }
        s.wake = Some(w);
        true
    }

    /// Wait for the value; None when every sender was dropped without one.
    pub fn wait(self) -> Option<T> {
        self.wait_until(None)
    }

    /// Wait at most `d`; None on timeout or abandonment.
    pub fn wait_timeout(self, d: Duration) -> Option<T> {
        self.wait_until(Some(Instant::now() + d))
    }

    fn wait_until(self, end: Option<Instant>) -> Option<T> {
        let (m, cv) = (&self.inner.slot, &self.inner.cv);
        let mut s = m.lock();
        loop {
            if let Some(v) = s.value.take() {
                return Some(v);
            }
            if s.abandoned {
                return None;
            }
            match end {
                None => cv.wait(&mut s),
                Some(end) => {
                    let now = Instant::now();
                    if now >= end {
                        return None;
                    }
                    cv.wait_for(&mut s, end - now);
                }
            }
        }
    }
}
