//! The one way an `_nb` request is answered.
//!
//! A `Completion` holds the caller's callback and runs it exactly once:
//! `fire` with the answer (from the progress thread, or from a thread of
//! its own when there is none: the C entry points defer what would
//! otherwise run inside the call). One that is dropped unanswered (its
//! request lost on the way: a loop that stopped before running it, a reply
//! that never came and whose state went) fires with
//! `PMIX_ERR_LOST_CONNECTION` on a thread of its own, never on the stack
//! that dropped it. So no caller waits for an answer nobody owns.

use crate::abi::*;

type Callback<T> = Box<dyn FnOnce(pmix_status_t, T) + Send>;

pub struct Completion<T: Send + 'static> {
    callback: Option<Callback<T>>,
    /// The value that goes with an error when nothing answered.
    unanswered: fn() -> T,
}

impl<T: Default + Send + 'static> Completion<T> {
    pub fn new(f: impl FnOnce(pmix_status_t, T) + Send + 'static) -> Completion<T> {
        Completion { callback: Some(Box::new(f)), unanswered: T::default }
    }
}

impl<T: Send + 'static> Completion<T> {
    /// Answer the request (consumes the completion: once, by construction).
    pub fn fire(mut self, status: pmix_status_t, value: T) {
        if let Some(f) = self.callback.take() {
            f(status, value);
        }
    }
}

impl Completion<()> {
    /// A completion that carries only a status.
    pub fn on_status(f: impl FnOnce(pmix_status_t) + Send + 'static) -> Completion<()> {
        Completion::new(move |st, ()| f(st))
    }

    /// Answer a request that carries only a status.
    pub fn status(self, status: pmix_status_t) {
        self.fire(status, ());
    }
}

impl<T: Send + 'static> Drop for Completion<T> {
    fn drop(&mut self) {
        let Some(f) = self.callback.take() else { return };
        let value = (self.unanswered)();
        crate::pmix_debug!(5, "a request was dropped unanswered: completing it with LOST_CONNECTION");
        // (a thread cannot be made when the process runs out of them: then
        // the callback is dropped with the rest of the request)
        let _ = std::thread::Builder::new().name("pmix-unanswered".into()).spawn(move || f(PMIX_ERR_LOST_CONNECTION, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn fires_once_with_the_answer() {
        let (tx, rx) = mpsc::channel();
        let c = Completion::new(move |st, v: u32| tx.send((st, v)).unwrap());
        c.fire(PMIX_SUCCESS, 7);
        assert_eq!(rx.recv().unwrap(), (PMIX_SUCCESS, 7));
        assert!(rx.recv().is_err()); // the sender went with the callback: no second call
    }

    #[test]
    fn dropped_unanswered_completes_with_an_error_off_the_stack() {
        let (tx, rx) = mpsc::channel();
        let me = std::thread::current().id();
        let c = Completion::new(move |st, v: Vec<u8>| tx.send((st, v, std::thread::current().id())).unwrap());
        drop(c);
        let (st, v, on) = rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        assert_eq!((st, v.len()), (PMIX_ERR_LOST_CONNECTION, 0));
        assert_ne!(on, me);
    }
}
