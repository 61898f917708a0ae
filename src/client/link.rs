//! One connection to a server: its progress thread, the requests awaiting
//! an answer, and the direct path on which user threads send.
//!
//! A user thread writes its request itself (`Direct::request`): the frame
//! goes out from the caller's thread through the connection's `Lane`, and
//! only the answer passes through the progress thread. Handing the request
//! to the progress thread first cost one thread switch per call, the larger
//! part of a fence's latency when a node's ranks outnumber its cores.
//!
//! Order: every frame a thread sends reaches the server in the order it was
//! sent, whichever path it took, because the lane is one queue. Requests
//! whose answer needs the client's state (`Waiter::Role`) are sent the same
//! way; only their answer runs on the progress thread.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::abi::*;
use crate::runtime::{self, Handle, Lane, Oneshot, Refused};

use crate::msg::{self, Reply, Request};

use super::openpmix::{self, Dialect, Reading};
use super::waiter::Waiter;
use super::ClientRole;

thread_local! {
    /// Set while a blocking call sends its request: its caller waits for
    /// the answer itself (`wait_for`).
    static CALLER_WAITS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The connection that blocking call's request went out on.
    static SENT_ON: std::cell::RefCell<Option<Handle<ClientRole>>> = const { std::cell::RefCell::new(None) };
}

/// A blocking call: `send` makes its request, whose answer sets `done`,
/// then this thread waits for it. While the connection's loop has no
/// thread of its own (`runtime::start_deferred`), this thread runs it, so
/// the answer wakes the caller directly, not a thread that wakes it. Any
/// request made otherwise starts that thread (`Direct::request`).
pub fn wait_for<T>(done: Oneshot<T>, send: impl FnOnce()) -> Option<T> {
    struct Sending;
    impl Drop for Sending {
        fn drop(&mut self) {
            CALLER_WAITS.with(|c| c.set(false));
        }
    }
    CALLER_WAITS.with(|c| c.set(true));
    let sending = Sending;
    send();
    drop(sending);
    if let Some(h) = SENT_ON.with(|s| s.borrow_mut().take()) {
        h.drive(&done);
    }
    done.wait()
}

/// Requests sent and not yet answered, by request id. Closed when the
/// connection is lost or the progress thread stops: what was waiting is
/// answered then, and nothing can be added afterwards (no request is left
/// without an owner).
#[derive(Default)]
pub struct Pending {
    next: u32,
    map: HashMap<u32, (Reading, Waiter)>,
    closed: bool,
}

impl Pending {
    /// Register `w` under a new request id, with how its answer is read;
    /// given back when closed.
    pub fn add(&mut self, reading: Reading, w: Waiter) -> Result<u32, Waiter> {
        if self.closed {
            return Err(w);
        }
        // (ids below ptl::FIRST_REQUEST_TAG are OpenPMIx's tags for
        // unsolicited messages; rpmix's server takes any id)
        let first = crate::ptl::FIRST_REQUEST_TAG;
        self.next = self.next.wrapping_add(1).max(first);
        while self.map.contains_key(&self.next) {
            self.next = self.next.wrapping_add(1).max(first);
        }
        self.map.insert(self.next, (reading, w));
        Ok(self.next)
    }

    pub fn take(&mut self, req: u32) -> Option<(Reading, Waiter)> {
        self.map.remove(&req)
    }

    /// Close the table and hand back everything still waiting.
    pub fn close(&mut self) -> Vec<Waiter> {
        self.closed = true;
        self.map.drain().map(|(_, (_, w))| w).collect()
    }
}

/// What a user thread needs to send on one connection.
#[derive(Clone)]
pub struct Direct {
    pub handle: Handle<ClientRole>,
    lane: Arc<Lane>,
    pub pending: Arc<Mutex<Pending>>,
    /// How requests are written on this connection.
    pub dialect: Dialect,
}

/// One server connection of this process (a tool may hold several).
pub struct Link {
    pub engine: runtime::Engine<ClientRole>,
    pub direct: Direct,
}

impl Link {
    pub fn new(engine: runtime::Engine<ClientRole>, lane: Arc<Lane>, pending: Arc<Mutex<Pending>>, dialect: Dialect) -> Self {
        let direct = Direct { handle: engine.handle.clone(), lane, pending, dialect };
        Link { engine, direct }
    }
}

impl Direct {
    /// Send a request from this thread. `w` gets the answer on the progress
    /// thread; when the request cannot be sent, a `Plain` waiter is answered
    /// here at once with the error (the C entry points defer it), a `Role`
    /// one on the progress thread.
    pub fn request(&self, req: Request, w: Waiter) {
        if !self.lane.in_owner() {
            // (before any lock: a fork child's copy of one may be held)
            return self.fail(w, refusal(Refused::OtherProcess));
        }
        // Its answer is waited for by a caller that may run the loop
        // (`wait_for`), or it needs the progress thread.
        if CALLER_WAITS.with(|c| c.get()) {
            SENT_ON.with(|s| *s.borrow_mut() = Some(self.handle.clone()));
        } else {
            self.handle.start_thread();
        }
        let (tag, body, reading) = match self.dialect.prepare(req) {
            Ok(x) => x,
            Err(st) => return self.fail(w, st),
        };
        if too_large(&body) {
            return self.fail(w, PMIX_ERR_BAD_PARAM);
        }
        let req = match self.pending.lock().add(reading, w) {
            Ok(req) => req,
            Err(w) => return self.fail(w, PMIX_ERR_UNREACH),
        };
        match self.lane.send(req, tag, &body) {
            Ok(()) => {}
            Err(why) => {
                // Unless the progress thread already answered it (the
                // connection was lost meanwhile), it is ours to answer.
                let w = self.pending.lock().take(req);
                if let Some((_, w)) = w {
                    self.fail(w, refusal(why));
                }
            }
        }
    }

    /// Send a request nobody waits on (commit, event registrations,
    /// heartbeats). OpenPMIx's server answers all but deregistrations and
    /// heartbeats: that answer is dropped.
    pub fn send(&self, req: Request) -> pmix_status_t {
        let sent = |r: Result<(), Refused>| match r {
            Ok(()) => PMIX_SUCCESS,
            Err(why) => refusal(why),
        };
        let Dialect::OpenPmix { described, me, server_major, .. } = &self.dialect else {
            return match req.encode() {
                Ok(body) => sent(self.lane.send(0, req.tag(), &body)),
                Err(st) => st,
            };
        };
        if let Request::Heartbeat = req {
            return sent(self.lane.send(crate::ptl::TAG_HEARTBEAT, 0, &[]));
        }
        if !msg::v41::answered(&req) {
            // (sent on a tag of its own that no answer will use)
            return match openpmix::for_openpmix(req, *described, me, *server_major) {
                Ok((b, _)) => sent(self.lane.send(crate::ptl::FIRST_REQUEST_TAG - 1, 0, &b)),
                Err(st) => st,
            };
        }
        // Only a refusal made here, before anything was sent, is reported
        // (a later answer finds the call returned).
        let refused = Arc::new(std::sync::atomic::AtomicI32::new(PMIX_SUCCESS));
        let r = refused.clone();
        let name = req.name();
        self.request(req, Waiter::Plain(Box::new(move |answer| {
            let st = answer.status();
            if st != PMIX_SUCCESS {
                crate::pmix_debug!(5, "client: the OpenPMIx server answered the {name} request with {st}");
            }
            r.store(st, std::sync::atomic::Ordering::Relaxed);
        })));
        refused.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn fail(&self, w: Waiter, st: pmix_status_t) {
        match w {
            Waiter::Plain(f) => f(Reply::Status(st)),
            // Dropped unrun when the loop has ended: its completion then
            // answers LOST_CONNECTION by itself.
            Waiter::Role(f) => {
                self.handle.run(move |c, net| f(c, net, Reply::Status(st)));
            }
        }
    }
}

/// A request the server would drop the connection for: refused here instead.
pub(super) fn too_large(body: &[u8]) -> bool {
    let over = body.len() + runtime::HEADER > runtime::MAX_FRAME;
    if over {
        crate::pmix_debug!(1, "client: a {}-byte request is over the {}-byte limit", body.len(), runtime::MAX_FRAME);
    }
    over
}

fn refusal(why: Refused) -> pmix_status_t {
    match why {
        Refused::Closed => PMIX_ERR_LOST_CONNECTION,
        Refused::TooLarge => PMIX_ERR_BAD_PARAM,
        Refused::OtherProcess => {
            crate::pmix_debug!(1, "client: a request from a fork child of the process that connected; refused");
            PMIX_ERR_UNREACH
        }
    }
}
