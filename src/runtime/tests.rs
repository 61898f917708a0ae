//! A deferred loop (`start_deferred`): run by its callers until something
//! needs its own thread, which then takes over what they left.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream as StdStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use super::*;

/// Who waits for which request id: (the answer's tag, whether a caller
/// running the loop handled it).
type Waiting = Arc<Mutex<HashMap<u32, Oneshot<(u16, bool)>>>>;

/// Answers request ids with the frame's tag; tag 1 may be handled by a caller.
struct Answers {
    waiting: Waiting,
    stopped: Arc<AtomicBool>,
}

impl Role for Answers {
    fn runs_inline(&self, _id: ConnId, tag: u16) -> bool {
        tag == 1
    }
    fn on_frame(&mut self, _net: &mut Net, _id: ConnId, req: u32, tag: u16, _body: &[u8]) {
        if let Some(o) = self.waiting.lock().remove(&req) {
            o.set((tag, driving()));
        }
    }
    fn on_close(&mut self, _net: &mut Net, _id: ConnId) {}
    fn on_stop(&mut self, _net: &mut Net) {
        self.stopped.store(true, Ordering::SeqCst);
    }
}

struct Fixture {
    engine: Engine<Answers>,
    peer: StdStream,
    waiting: Waiting,
    stopped: Arc<AtomicBool>,
}

impl Fixture {
    fn new() -> Fixture {
        let (ours, peer) = StdStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let waiting = Arc::new(Mutex::new(HashMap::new()));
        let stopped = Arc::new(AtomicBool::new(false));
        let role = Answers { waiting: waiting.clone(), stopped: stopped.clone() };
        let conns = vec![(Stream::Unix(UnixStream::from_std(ours)), Framing::Rpmix)];
        let engine = start_deferred(role, conns, "test-deferred").unwrap();
        Fixture { engine, peer, waiting, stopped }
    }

    /// A one-shot answered when request `req` comes back.
    fn expect(&self, req: u32) -> Oneshot<(u16, bool)> {
        let o = Oneshot::new();
        self.waiting.lock().insert(req, o.clone());
        o
    }

    fn answer(&mut self, frames: &[(u32, u16)]) {
        let bytes: Vec<u8> = frames.iter().flat_map(|&(req, tag)| frame(req, tag, b"body")).collect();
        self.peer.write_all(&bytes).unwrap();
    }
}

#[test]
fn a_caller_runs_the_loop_for_its_answer() {
    let mut f = Fixture::new();
    let o = f.expect(7);
    f.answer(&[(7, 1)]);
    f.engine.handle.drive(&o);
    assert!(o.is_settled());
    assert_eq!(o.wait(), Some((1, true)), "answered on the caller's thread");
    assert!(f.engine.handle.run_by_callers(), "no thread was started");
    f.engine.stop();
    assert!(f.stopped.load(Ordering::SeqCst), "stopped on this thread: on_stop ran");
}

#[test]
fn a_frame_the_caller_may_not_handle_starts_the_thread() {
    let mut f = Fixture::new();
    let first = f.expect(10);
    let second = f.expect(11);
    // Both in one read: the caller handles the first, holds the second.
    f.answer(&[(10, 1), (11, 2)]);
    f.engine.handle.drive(&first);
    assert_eq!(first.wait(), Some((1, true)));
    f.engine.handle.drive(&second);
    assert!(!f.engine.handle.run_by_callers(), "the thread started");
    assert_eq!(second.wait_timeout(Duration::from_secs(10)), Some((2, false)), "the held frame was handled on the thread");
    f.engine.stop();
    assert!(f.stopped.load(Ordering::SeqCst));
}

#[test]
fn a_command_takes_the_loop_from_its_caller() {
    let mut f = Fixture::new();
    let o = f.expect(9);
    let (handle, o2) = (f.engine.handle.clone(), o.clone());
    let caller = std::thread::spawn(move || {
        handle.drive(&o2);
        o2.wait_timeout(Duration::from_secs(10))
    });
    // The caller is (or soon is) blocked in the loop's poll: a command
    // makes it leave, and runs on the loop's own thread.
    assert_eq!(f.engine.handle.call(|_, _| 42), Some(42));
    assert!(!f.engine.handle.run_by_callers());
    f.answer(&[(9, 1)]);
    assert_eq!(caller.join().unwrap(), Some((1, false)), "answered by the thread");
    f.engine.stop();
}

#[test]
fn a_value_set_elsewhere_wakes_the_caller() {
    let f = Fixture::new();
    let o: Oneshot<(u16, bool)> = Oneshot::new();
    let o2 = o.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        o2.set((5, false));
    });
    f.engine.handle.drive(&o);
    assert_eq!(o.wait(), Some((5, false)));
    setter.join().unwrap();
    assert!(f.engine.handle.run_by_callers());
    f.engine.stop();
}

#[test]
fn the_peer_going_starts_the_thread() {
    let mut f = Fixture::new();
    let o = f.expect(3);
    f.answer(&[(3, 1)]);
    drop(std::mem::replace(&mut f.peer, StdStream::pair().unwrap().0));
    f.engine.handle.drive(&o);
    assert_eq!(o.wait(), Some((1, true)));
    // The close is read on a later turn, which hands it to the thread.
    let never = f.expect(4);
    f.engine.handle.drive(&never);
    assert!(!f.engine.handle.run_by_callers(), "the thread took the close");
    f.engine.stop();
}

#[test]
fn after_a_stop_commands_are_refused() {
    let f = Fixture::new();
    let handle = f.engine.handle.clone();
    f.engine.stop();
    assert!(f.stopped.load(Ordering::SeqCst));
    assert!(!handle.run(|_, _| {}), "the loop is gone");
}
