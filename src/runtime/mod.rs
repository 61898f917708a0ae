//! The progress engine: one thread per initialised role running a mio poll
//! loop over Unix-domain sockets, a waker for commands from other threads, and
//! timers. All role state lives on that thread; other threads send closures.
//!
//! Framing: `u32 length` (of what follows) + `u32 request id` + `u16 tag` +
//! body. A frame shorter than the header or longer than its role allows
//! (`Role::read_limit`: `MAX_FRAME` by default) closes that one connection
//! (logged at PMIX_DEBUG >= 1); nothing a peer sends can stop the loop.

pub mod completion;
pub mod lane;
pub mod oneshot;
pub mod transport;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mio::net::{UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Token, Waker};

pub use completion::Completion;
pub use lane::{Lane, Refused};
pub use transport::{Framing, Stream, PTL_HEADER};
pub use oneshot::Oneshot;

/// Largest frame a peer may send by default (a client's request: its own
/// data, a modex of thousands of ranks). A client takes larger ones from its
/// server, sized from its job (`Role::read_limit`).
pub const MAX_FRAME: usize = 64 << 20;
/// Largest frame the length field can describe: what is sent is never
/// refused below it (a fence's data at a million ranks may be large).
pub const MAX_SEND: usize = u32::MAX as usize - HEADER;
/// Bytes of unfinished frames all connections together may hold: a peer
/// that pushes past it loses its connection (legitimate frames are bounded
/// by MAX_FRAME, and only a few are ever in flight at once).
pub const READ_CAP_ALL: usize = 4 * MAX_FRAME;
pub const HEADER: usize = 10;
const WAKER: Token = Token(0);
const LISTENER: Token = Token(1);

pub type ConnId = usize;

thread_local!(static ON_PROGRESS_THREAD: Cell<bool> = const { Cell::new(false) });
// Set while this thread runs a deferred loop (`Deferred::drive`).
thread_local!(static DRIVING: Cell<bool> = const { Cell::new(false) });

/// True while this thread runs a loop as a caller: a value it delivers is
/// seen by the loop's next check, with no wake needed.
pub(crate) fn driving() -> bool {
    DRIVING.with(|c| c.get())
}

/// True on a progress thread (inside a callback): blocking calls must not wait there.
pub fn on_progress_thread() -> bool {
    ON_PROGRESS_THREAD.with(|c| c.get())
}

/// Credentials of a connected peer, from the kernel (SO_PEERCRED).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerCred {
    pub pid: i32,
    pub uid: u32,
    pub gid: u32,
}

pub fn peer_cred(socket: &impl std::os::fd::AsFd) -> Option<PeerCred> {
    let c = nix::sys::socket::getsockopt(socket, nix::sys::socket::sockopt::PeerCredentials).ok()?;
    Some(PeerCred { pid: c.pid(), uid: c.uid(), gid: c.gid() })
}

struct Conn {
    stream: Stream,
    framing: Framing,
    rbuf: Vec<u8>,
    /// What goes out, shared with threads that write directly (`Lane::send`).
    lane: Arc<Lane>,
    /// Write interest registered with the poll (the lane holds bytes).
    want_write: bool,
    cred: Option<PeerCred>,
    /// Close once what is queued is written (or the peer goes): a last answer.
    closing: bool,
    /// What the role sends here, put into the peer's own protocol.
    rewrite: Option<Box<dyn Rewrite>>,
}

/// Puts what a role sends on one connection into that peer's protocol (an
/// OpenPMIx client of the server): the frame's tag on the wire and its body,
/// or None to send nothing. Runs on the progress thread, in `Net::send`.
pub trait Rewrite: Send {
    fn outgoing(&mut self, req: u32, tag: u16, body: &[u8]) -> Option<(u32, Vec<u8>)>;
    /// The rewrite itself, for the role that set it (`Net::rewrite`): what
    /// the role writes in the peer's protocol itself needs its state.
    fn as_any(&mut self) -> &mut dyn std::any::Any;
}

/// One frame as it travels: length, request id, tag, body (for writers that
/// do not go through a `Net`: a client's blocking hello, tests, the fuzzer).
pub fn frame(req: u32, tag: u16, body: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(HEADER + body.len());
    Framing::Rpmix.header(req, tag, body.len(), &mut f);
    f.extend_from_slice(body);
    f
}

/// What role code can do: send frames, close connections, set timers, stop.
pub struct Net {
    poll: Poll,
    conns: HashMap<ConnId, Conn>,
    next_id: ConnId,
    timers: BinaryHeap<std::cmp::Reverse<(Instant, u64)>>,
    cancelled: HashSet<u64>,
    next_timer: u64,
    stop: bool,
    /// Bytes held in all connections' read buffers (against READ_CAP_ALL).
    buffered: usize,
    /// Lanes other threads left bytes in (see `lane.rs`).
    kicks: Arc<lane::Kicks>,
    /// Where reads land before their connection's buffer: made once (a
    /// fresh zeroed one per read cost more than the read itself).
    scratch: Vec<u8>,
    /// The loop runs on a caller's thread (`Handle::drive`): only frames the
    /// role may take there are dispatched.
    caller: bool,
    /// Running on a caller's thread, the loop met something only its own
    /// thread may do: a frame the role does not take there, a closed
    /// connection, a timer, a stop.
    wants_thread: bool,
}

impl Net {
    /// Queue one frame to `id` (dropped silently if the connection is gone).
    /// False only when the frame is too large for the wire: the caller then
    /// answers with an error instead, so no one waits for it.
    pub fn send(&mut self, id: ConnId, req: u32, tag: u16, body: &[u8]) -> bool {
        let Some(c) = self.conns.get_mut(&id) else { return true };
        let rewritten;
        let (req, tag, body) = match c.rewrite.as_mut() {
            None => (req, tag, body),
            Some(rw) => match rw.outgoing(req, tag, body) {
                Some((r, b)) => {
                    rewritten = b;
                    (r, 0, &rewritten[..])
                }
                None => return true,
            },
        };
        match c.lane.push(req, tag, body) {
            Ok(true) => self.flush(id),
            Ok(false) => {}
            Err(Refused::TooLarge) => return false,
            Err(_) => {} // closed: as for a connection already gone
        }
        true
    }

    /// `send` of a frame whose body is `parts` one after another, without
    /// joining them first (forwarded output: a small head, then the bytes).
    pub fn send_parts(&mut self, id: ConnId, req: u32, tag: u16, parts: &[&[u8]]) -> bool {
        let Some(c) = self.conns.get_mut(&id) else { return true };
        if c.rewrite.is_some() {
            return self.send(id, req, tag, &parts.concat());
        }
        match c.lane.push_parts(req, tag, parts) {
            Ok(true) => self.flush(id),
            Ok(false) => {}
            Err(Refused::TooLarge) => return false,
            Err(_) => {}
        }
        true
    }

    /// Send one frame to `id` with `fd` attached (a Unix stream with
    /// nothing queued, no rewrite): true when it went so; false when it did
    /// not go at all, and the caller sends it without the descriptor.
    pub fn send_with_fd(&mut self, id: ConnId, req: u32, tag: u16, body: &[u8], fd: std::os::fd::BorrowedFd<'_>) -> bool {
        let Some(c) = self.conns.get(&id) else { return false };
        if c.rewrite.is_some() || !matches!(c.stream, Stream::Unix(_)) {
            return false;
        }
        match c.lane.push_with_fd(req, tag, body, fd) {
            Ok(Some(true)) => {
                self.flush(id);
                true
            }
            Ok(Some(false)) => true,
            _ => false,
        }
    }

    /// Ask the kernel to hold up to `bytes` written to `id` that its peer
    /// has not read (SO_SNDBUF, within the system's `wmem_max`): a peer
    /// that takes a stream of large frames (forwarded output) then finds
    /// more of it in the socket, and less waits here.
    pub fn set_send_buffer(&mut self, id: ConnId, bytes: usize) {
        let Some(c) = self.conns.get(&id) else { return };
        let v = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
        // SAFETY: the connection's open socket; the option value is a c_int
        // that lives across the call. A refusal only leaves the default.
        unsafe {
            libc::setsockopt(std::os::fd::AsRawFd::as_raw_fd(&c.stream), libc::SOL_SOCKET, libc::SO_SNDBUF, &v as *const libc::c_int as *const libc::c_void, std::mem::size_of::<libc::c_int>() as libc::socklen_t);
        }
    }

    /// Bytes queued for `id` that the peer has not read yet (0 if gone).
    pub fn queued(&self, id: ConnId) -> usize {
        self.conns.get(&id).map_or(0, |c| c.lane.queued())
    }

    fn flush(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else { return };
        let (dead, want) = c.lane.flush();
        if want != c.want_write && !dead {
            let interest = if want { Interest::READABLE | Interest::WRITABLE } else { Interest::READABLE };
            let _ = self.poll.registry().reregister(&mut c.stream, Token(id), interest);
            c.want_write = want;
        }
        if dead {
            // The reader side notices too and reports the close.
            crate::pmix_debug!(5, "write to connection {id} failed");
        }
        if c.closing && (dead || !want) {
            self.close(id);
        }
    }

    /// Close `id` once its queued frames are written, without waiting here:
    /// the loop goes on serving everyone else (a refused peer that never
    /// reads costs nothing but its socket, until it goes). Frames it sends
    /// meanwhile are dropped, and its role hears no close: it asked for it.
    pub fn close_when_sent(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else { return };
        c.closing = true;
        self.flush(id);
    }

    /// Close a connection now (its role is not told: it asked for it).
    pub fn close(&mut self, id: ConnId) {
        if let Some(mut c) = self.conns.remove(&id) {
            self.buffered = self.buffered.saturating_sub(c.rbuf.len());
            // Under the lane's lock: no other thread writes to this
            // descriptor once it is closed (its number may be reused).
            let mut out = c.lane.out.lock();
            out.closed = true;
            out.clear();
            let _ = self.poll.registry().deregister(&mut c.stream);
            drop(c.stream);
        }
    }

    pub fn is_open(&self, id: ConnId) -> bool {
        self.conns.contains_key(&id)
    }

    pub fn cred(&self, id: ConnId) -> Option<PeerCred> {
        self.conns.get(&id).and_then(|c| c.cred)
    }

    /// Add an already connected stream (clients: the server connection).
    pub fn add_stream(&mut self, stream: UnixStream) -> std::io::Result<ConnId> {
        let cred = peer_cred(&stream);
        self.add(Stream::Unix(stream), Framing::Rpmix, cred)
    }

    /// Add a connected stream of either kind with its framing (a TCP peer's
    /// credentials are not the kernel's to give: None).
    pub fn add(&mut self, mut stream: Stream, framing: Framing, cred: Option<PeerCred>) -> std::io::Result<ConnId> {
        let id = self.next_id;
        self.next_id += 1;
        self.poll.registry().register(&mut stream, Token(id), Interest::READABLE)?;
        let lane = Arc::new(Lane::new(id, std::os::fd::AsRawFd::as_raw_fd(&stream), framing, self.kicks.clone()));
        self.conns.insert(id, Conn { stream, framing, rbuf: Vec::new(), lane, want_write: false, cred, closing: false, rewrite: None });
        Ok(id)
    }

    /// Put what is sent on `id` from now on into its peer's protocol.
    pub fn set_rewrite(&mut self, id: ConnId, rewrite: Box<dyn Rewrite>) {
        if let Some(c) = self.conns.get_mut(&id) {
            c.rewrite = Some(rewrite);
        }
    }

    /// The rewrite set on `id`, if it is a `T`.
    pub fn rewrite<T: 'static>(&mut self, id: ConnId) -> Option<&mut T> {
        self.conns.get_mut(&id)?.rewrite.as_mut()?.as_any().downcast_mut::<T>()
    }

    /// The shared write side of `id`, for threads that send on it directly.
    pub fn lane(&self, id: ConnId) -> Option<Arc<Lane>> {
        self.conns.get(&id).map(|c| c.lane.clone())
    }

    /// Watch the lanes other threads left bytes in.
    fn take_kicks(&mut self) {
        let ids = std::mem::take(&mut *self.kicks.ids.lock());
        for id in ids {
            self.flush(id);
        }
    }

    /// A timer firing `Role::on_timer(id)` after `after`.
    pub fn timer(&mut self, after: Duration) -> u64 {
        self.next_timer += 1;
        self.timers.push(std::cmp::Reverse((Instant::now() + after, self.next_timer)));
        self.next_timer
    }

    pub fn cancel_timer(&mut self, id: u64) {
        self.cancelled.insert(id);
    }

    /// End the loop after the current event.
    pub fn stop(&mut self) {
        self.stop = true;
    }

    /// Write out everything queued (used before stopping, so final replies leave).
    pub fn drain_writes(&mut self, limit: Duration) {
        let end = Instant::now() + limit;
        loop {
            let ids: Vec<ConnId> = self.conns.iter().filter(|(_, c)| c.lane.queued() > 0).map(|(i, _)| *i).collect();
            if ids.is_empty() || Instant::now() >= end {
                return;
            }
            for id in ids {
                self.flush(id);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The behaviour of one role (client, server, tool) on its progress thread.
pub trait Role: Send + 'static {
    /// On the progress thread, before anything is read: the handle other
    /// threads (and the role's own callbacks) post to it with.
    fn on_start(&mut self, _handle: Handle<Self>)
    where
        Self: Sized,
    {
    }
    fn on_accept(&mut self, _net: &mut Net, _id: ConnId) {}
    /// The largest frame `id` may send, header included: a role lowers it
    /// for peers it does not know yet (a hello is small), a client raises it
    /// for its server's answers in a large job.
    fn read_limit(&self, _id: ConnId) -> usize {
        MAX_FRAME + HEADER
    }
    /// Bytes of unfinished frames all connections together may hold.
    fn read_cap_all(&self) -> usize {
        READ_CAP_ALL
    }
    fn on_frame(&mut self, net: &mut Net, id: ConnId, req: u32, tag: u16, body: &[u8]);
    /// Whether a frame of `tag` from `id` may be handled on the thread of a
    /// caller that runs the loop while it waits (`start_deferred`): only
    /// what runs no code of the user's (an answer to a blocking call). The
    /// rest waits for the loop's own thread, started for it.
    fn runs_inline(&self, _id: ConnId, _tag: u16) -> bool {
        false
    }
    fn on_close(&mut self, net: &mut Net, id: ConnId);
    fn on_timer(&mut self, _net: &mut Net, _timer: u64) {}
    /// The loop is ending (stop or all handles gone): fail whatever is pending.
    fn on_stop(&mut self, _net: &mut Net) {}
}

pub type Cmd<R> = Box<dyn FnOnce(&mut R, &mut Net) + Send>;

/// A way into a running loop from any thread.
pub struct Handle<R: Role> {
    tx: mpsc::Sender<Cmd<R>>,
    waker: Arc<Waker>,
    /// Set for a loop whose thread starts when first needed.
    deferred: Option<Arc<Deferred<R>>>,
}

impl<R: Role> Clone for Handle<R> {
    fn clone(&self) -> Self {
        Handle { tx: self.tx.clone(), waker: self.waker.clone(), deferred: self.deferred.clone() }
    }
}

impl<R: Role> Handle<R> {
    /// Run `f` on the progress thread; false when the loop has ended.
    pub fn run(&self, f: impl FnOnce(&mut R, &mut Net) + Send + 'static) -> bool {
        // (commands are only ever run by the loop's own thread)
        self.start_thread();
        if self.tx.send(Box::new(f)).is_err() {
            return false;
        }
        self.waker.wake().is_ok()
    }

    /// Make sure the loop has its own thread (a loop started deferred).
    pub fn start_thread(&self) {
        if let Some(d) = &self.deferred {
            d.start_thread();
        }
    }

    /// True while the loop has no thread of its own: its callers run it.
    pub fn run_by_callers(&self) -> bool {
        self.deferred.as_ref().is_some_and(|d| !d.started.load(Ordering::Acquire))
    }

    /// Wait for `done` by running the loop on this thread, while the loop
    /// has no thread of its own. Returns once `done` is set, or as soon as
    /// the loop needs its thread (then started), another caller runs it, or
    /// it has its thread already: the caller then waits on `done` as usual.
    pub fn drive<T>(&self, done: &Oneshot<T>) {
        if let Some(d) = &self.deferred {
            d.drive(done);
        }
    }

    /// Run `f` on the progress thread and wait for its answer (never call from
    /// the progress thread itself). None when the loop ended first.
    pub fn call<T: Send + 'static>(&self, f: impl FnOnce(&mut R, &mut Net) -> T + Send + 'static) -> Option<T> {
        if on_progress_thread() {
            return None;
        }
        let done = Oneshot::new();
        let d = done.clone();
        if !self.run(move |r, n| d.set(f(r, n))) {
            return None;
        }
        done.wait()
    }
}

/// Run `f` off the caller's stack: on `h`'s progress thread, or on a thread
/// of its own when there is none or its loop has ended. What a callback
/// needs when the answer is known at once (no callback fires inline).
pub fn later<R: Role, F: FnOnce() + Send + 'static>(h: Option<&Handle<R>>, f: F) {
    // Shared so that `f` can still run on a thread of its own when the loop
    // refuses the job (it is stopping) and drops our closure.
    let slot = Arc::new(parking_lot::Mutex::new(Some(f)));
    let fire = |s: &parking_lot::Mutex<Option<F>>| {
        let f = s.lock().take();
        if let Some(f) = f {
            f()
        }
    };
    let s2 = slot.clone();
    let queued = h.is_some_and(|h| h.run(move |_, _| fire(&s2)));
    if !queued {
        std::thread::spawn(move || fire(&slot));
    }
}

pub struct Engine<R: Role> {
    pub handle: Handle<R>,
    pub thread: Option<JoinHandle<()>>,
    /// The write sides of the streams given to `start`, in order.
    pub lanes: Vec<Arc<Lane>>,
}

impl<R: Role> Engine<R> {
    /// Stop the loop and wait for its thread, if it has one (a deferred
    /// loop that never needed it is stopped on this thread).
    pub fn stop(mut self) {
        if let Some(d) = &self.handle.deferred {
            // (a fork child's copy holds the parent's connection: left alone)
            if d.in_fork_child() {
                return;
            }
            if !d.started.swap(true, Ordering::AcqRel) {
                d.handover.store(true, Ordering::Release);
                let _ = d.waker.wake(); // (a caller running the loop leaves it)
                let lp = d.state.lock().take();
                if let Some(lp) = lp {
                    shut_down(lp);
                }
                return;
            }
        }
        self.handle.run(|_, net| net.stop());
        let thread = match &self.handle.deferred {
            Some(d) => d.thread.lock().take(),
            None => self.thread.take(),
        };
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

/// What a loop is made of, wherever it runs.
struct Loop<R: Role> {
    role: R,
    net: Net,
    listener: Option<UnixListener>,
    rx: mpsc::Receiver<Cmd<R>>,
}

/// Starts a deferred loop's thread (for the lanes, which do not know its role).
pub(crate) trait StartThread: Send + Sync {
    fn start_thread(&self);
}

/// A loop whose thread starts when first needed (`start_deferred`). Until
/// then a caller waiting for an answer runs it (`Handle::drive`): a client
/// whose blocking calls are all it does never starts a thread, and its
/// answers wake the caller itself, not a thread that then wakes it.
///
/// The thread starts at the first command (`Handle::run`), queued write,
/// frame the role does not take inline, closed connection, timer, or
/// second caller waiting at once. A caller running the loop leaves it as
/// soon as the thread is wanted (`handover`); the thread then takes over
/// what it left: commands, queued writes, frames read and not dispatched,
/// and readiness it consumed.
pub(crate) struct Deferred<R: Role> {
    me: std::sync::Weak<Deferred<R>>,
    /// The loop, while no thread has taken it; held by a caller running it.
    state: parking_lot::Mutex<Option<Loop<R>>>,
    /// The thread is wanted: a caller running the loop leaves it.
    handover: AtomicBool,
    /// The thread was asked for (once; or the loop stopped without one).
    started: AtomicBool,
    /// It could not be started: the loop is to be ended by its callers.
    failed: AtomicBool,
    thread: parking_lot::Mutex<Option<JoinHandle<()>>>,
    waker: Arc<Waker>,
    name: String,
    /// `lane::fork_generation` at the start: a fork child's copy of the
    /// loop is never run (its connection is the parent's).
    generation: u32,
}

impl<R: Role> StartThread for Deferred<R> {
    fn start_thread(&self) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        if self.in_fork_child() {
            return;
        }
        self.handover.store(true, Ordering::Release);
        // (a caller blocked in the loop's poll leaves it)
        let _ = self.waker.wake();
        let Some(me) = self.me.upgrade() else { return };
        // Held until the handle is stored: a stop that comes meanwhile
        // waits for it, and joins the thread.
        let mut thread = self.thread.lock();
        let spawned = std::thread::Builder::new().name(self.name.clone()).spawn(move || {
            // Waits here while a caller still runs the loop.
            let lp = me.state.lock().take();
            drop(me);
            if let Some(lp) = lp {
                run_loop(lp, true);
            }
        });
        match spawned {
            Ok(t) => *thread = Some(t),
            Err(e) => {
                drop(thread);
                // No thread: the loop ends here, and what waits on it is
                // answered (a caller running it now ends it when it leaves).
                crate::pmix_debug!(1, "progress loop: cannot start its thread: {e}");
                self.failed.store(true, Ordering::Release);
                if let Some(mut g) = self.state.try_lock() {
                    if let Some(lp) = g.take() {
                        drop(g);
                        shut_down(lp);
                    }
                }
            }
        }
    }
}

impl<R: Role> Deferred<R> {
    fn in_fork_child(&self) -> bool {
        let child = lane::fork_generation() != self.generation;
        if child {
            crate::pmix_debug!(1, "progress loop: not run in a fork child of the process that connected");
        }
        child
    }

    fn drive<T>(&self, done: &Oneshot<T>) {
        if on_progress_thread() || self.handover.load(Ordering::Acquire) || self.in_fork_child() {
            return;
        }
        let Some(mut g) = self.state.try_lock() else {
            // Another caller runs the loop: two waiting at once take its thread.
            return self.start_thread();
        };
        let Some(lp) = g.as_mut() else { return };
        // Set from elsewhere (a timeout, another connection's answer), `done` wakes the poll.
        if !done.wake_on_set(self.waker.clone()) {
            return;
        }
        ON_PROGRESS_THREAD.with(|c| c.set(true));
        DRIVING.with(|c| c.set(true));
        lp.net.caller = true;
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_for(lp, done)));
        lp.net.caller = false;
        let wanted = std::mem::take(&mut lp.net.wants_thread);
        DRIVING.with(|c| c.set(false));
        ON_PROGRESS_THREAD.with(|c| c.set(false));
        // A thread that could not start, or a panic (as on the thread), ends the loop here.
        let ended = if ran.is_err() || self.failed.load(Ordering::Acquire) {
            if ran.is_err() {
                crate::pmix_debug!(1, "progress loop: internal panic; failing pending requests");
                self.started.store(true, Ordering::Release);
                self.handover.store(true, Ordering::Release);
            }
            g.take()
        } else {
            None
        };
        drop(g);
        if let Some(lp) = ended {
            shut_down(lp);
        } else if wanted {
            self.start_thread();
        }
    }

    /// The caller's turn at the loop: until `done`, or the thread is wanted.
    fn run_for<T>(&self, lp: &mut Loop<R>, done: &Oneshot<T>) {
        let net = &mut lp.net;
        net.take_kicks();
        let mut events = Events::with_capacity(16);
        while !done.is_settled() && !self.handover.load(Ordering::Acquire) && !net.wants_thread {
            if let Err(e) = net.poll.poll(&mut events, None) {
                if e.kind() != ErrorKind::Interrupted {
                    net.wants_thread = true;
                }
                continue;
            }
            for ev in events.iter() {
                match ev.token() {
                    // Commands are the thread's (whoever sent one asked for
                    // it); queued writes are flushed here meanwhile.
                    WAKER => net.take_kicks(),
                    LISTENER => net.wants_thread = true,
                    Token(id) => conn_event(&mut lp.role, net, ev, id),
                }
                if net.wants_thread || self.handover.load(Ordering::Acquire) {
                    break;
                }
            }
            if !net.timers.is_empty() || net.stop {
                net.wants_thread = true;
            }
        }
    }
}

/// Start a progress thread for `role`, optionally listening on `listener` and
/// holding the already connected `streams` (their ids are 2, 3, ...).
pub fn start<R: Role>(
    role: R,
    listener: Option<UnixListener>,
    streams: Vec<UnixStream>,
    name: &str,
) -> std::io::Result<Engine<R>> {
    let conns = streams.into_iter().map(|s| (Stream::Unix(s), Framing::Rpmix)).collect();
    start_with(role, listener, conns, name)
}

/// `start`, with connections of any kind and framing.
pub fn start_with<R: Role>(
    role: R,
    listener: Option<UnixListener>,
    conns: Vec<(Stream, Framing)>,
    name: &str,
) -> std::io::Result<Engine<R>> {
    let (net, waker, lanes) = new_net(conns)?;
    let mut listener = listener;
    if let Some(l) = listener.as_mut() {
        net.poll.registry().register(l, LISTENER, Interest::READABLE)?;
    }
    let (tx, rx) = mpsc::channel::<Cmd<R>>();
    let handle = Handle { tx, waker, deferred: None };
    let own = handle.clone();
    let lp = Loop { role, net, listener, rx };
    let thread = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let mut lp = lp;
            lp.role.on_start(own);
            run_loop(lp, false)
        })?;
    Ok(Engine { handle, thread: Some(thread), lanes })
}

/// `start_with` without a thread: the loop's callers run it while they wait
/// for its answers, until something needs its own thread (`Deferred`).
pub fn start_deferred<R: Role>(role: R, conns: Vec<(Stream, Framing)>, name: &str) -> std::io::Result<Engine<R>> {
    let (net, waker, lanes) = new_net(conns)?;
    let (tx, rx) = mpsc::channel::<Cmd<R>>();
    let deferred = Arc::new_cyclic(|me| Deferred {
        me: me.clone(),
        state: parking_lot::Mutex::new(None),
        handover: AtomicBool::new(false),
        started: AtomicBool::new(false),
        failed: AtomicBool::new(false),
        thread: parking_lot::Mutex::new(None),
        waker: waker.clone(),
        name: name.to_string(),
        generation: lane::fork_generation(),
    });
    let weak: std::sync::Weak<dyn StartThread> = Arc::downgrade(&deferred) as std::sync::Weak<dyn StartThread>;
    let _ = net.kicks.deferred.set(weak);
    let handle = Handle { tx, waker, deferred: Some(deferred.clone()) };
    let mut role = role;
    role.on_start(handle.clone());
    *deferred.state.lock() = Some(Loop { role, net, listener: None, rx });
    Ok(Engine { handle, thread: None, lanes })
}

/// A loop's poll, waker and connections (ids 2, 3, ...), with their lanes.
fn new_net(conns: Vec<(Stream, Framing)>) -> std::io::Result<(Net, Arc<Waker>, Vec<Arc<Lane>>)> {
    let poll = Poll::new()?;
    let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
    let mut net = Net {
        poll,
        conns: HashMap::new(),
        next_id: 2,
        timers: BinaryHeap::new(),
        cancelled: HashSet::new(),
        next_timer: 0,
        stop: false,
        buffered: 0,
        kicks: Arc::new(lane::Kicks::new(waker.clone())),
        scratch: Vec::new(),
        caller: false,
        wants_thread: false,
    };
    let mut lanes = Vec::new();
    for (s, framing) in conns {
        let cred = match &s {
            Stream::Unix(u) => peer_cred(u),
            Stream::Tcp(_) => None,
        };
        let id = net.add(s, framing, cred)?;
        lanes.extend(net.lane(id));
    }
    Ok((net, waker, lanes))
}

/// End a loop on this thread: what is pending fails, commands still queued
/// are answered (no caller waits forever), queued writes go out. Also for
/// a loop that has no thread, or could not get one.
fn shut_down<R: Role>(lp: Loop<R>) {
    let was = ON_PROGRESS_THREAD.with(|c| c.replace(true));
    let Loop { mut role, mut net, rx, .. } = lp;
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| role.on_stop(&mut net)));
    while let Ok(cmd) = rx.try_recv() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cmd(&mut role, &mut net)));
    }
    net.drain_writes(Duration::from_millis(200));
    ON_PROGRESS_THREAD.with(|c| c.set(was));
}

/// One readiness event of a connection.
fn conn_event<R: Role>(role: &mut R, net: &mut Net, ev: &mio::event::Event, id: ConnId) {
    if ev.is_writable() {
        net.flush(id);
    }
    if net.conns.get(&id).is_some_and(|c| c.closing) {
        if ev.is_read_closed() || ev.is_error() {
            net.close(id); // the peer went: nothing left to deliver
        }
    } else if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
        read_conn(role, net, id, ev.is_read_closed() || ev.is_error());
    }
}

/// A deferred loop's thread takes over what its callers left: commands
/// (their wake may have been consumed), queued writes, frames read and not
/// dispatched, and whatever the sockets hold (readiness a caller consumed).
fn resume<R: Role>(lp: &mut Loop<R>) {
    let Loop { role, net, rx, .. } = lp;
    while let Ok(cmd) = rx.try_recv() {
        cmd(role, net);
    }
    net.take_kicks();
    let mut ids: Vec<ConnId> = net.conns.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        if net.stop {
            return;
        }
        let Some(c) = net.conns.get(&id) else { continue };
        if !c.rbuf.is_empty() {
            match dispatch_buffered(role, net, id) {
                Dispatched::Malformed => {
                    net.close(id);
                    role.on_close(net, id);
                    continue;
                }
                Dispatched::Gone => continue,
                _ => {}
            }
        }
        if net.conns.contains_key(&id) {
            read_conn(role, net, id, true);
        }
    }
}

fn run_loop<R: Role>(lp: Loop<R>, resumed: bool) {
    ON_PROGRESS_THREAD.with(|c| c.set(true));
    let mut lp = lp;
    if resumed && std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| resume(&mut lp))).is_err() {
        crate::pmix_debug!(1, "progress loop: internal panic; failing pending requests");
        lp.net.stop = true;
    }
    let Loop { mut role, mut net, listener, rx } = lp;
    let mut events = Events::with_capacity(256);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loop {
        if net.stop {
            break;
        }
        let timeout = net.timers.peek().map(|std::cmp::Reverse((t, _))| t.saturating_duration_since(Instant::now()));
        if let Err(e) = net.poll.poll(&mut events, timeout) {
            if e.kind() != ErrorKind::Interrupted {
                crate::pmix_debug!(1, "progress loop: poll failed: {e}");
                break;
            }
        }
        for ev in events.iter() {
            match ev.token() {
                WAKER => {
                    loop {
                        match rx.try_recv() {
                            Ok(cmd) => cmd(&mut role, &mut net),
                            Err(mpsc::TryRecvError::Empty) => break,
                            Err(mpsc::TryRecvError::Disconnected) => {
                                net.stop = true;
                                break;
                            }
                        }
                    }
                    net.take_kicks();
                }
                LISTENER => {
                    if let Some(l) = listener.as_ref() {
                        loop {
                            match l.accept() {
                                Ok((s, _)) => match net.add_stream(s) {
                                    Ok(id) => role.on_accept(&mut net, id),
                                    Err(e) => crate::pmix_debug!(1, "accept: register failed: {e}"),
                                },
                                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                                Err(e) => {
                                    crate::pmix_debug!(1, "accept failed: {e}");
                                    break;
                                }
                            }
                        }
                    }
                }
                Token(id) => conn_event(&mut role, &mut net, ev, id),
            }
            if net.stop {
                break;
            }
        }
        // timers
        let now = Instant::now();
        while let Some(std::cmp::Reverse((t, id))) = net.timers.peek().copied() {
            if t > now {
                break;
            }
            net.timers.pop();
            if !net.cancelled.remove(&id) {
                role.on_timer(&mut net, id);
            }
        }
        if net.stop {
            break;
        }
    }));
    if result.is_err() {
        crate::pmix_debug!(1, "progress loop: internal panic; failing pending requests");
    }
    // Fail what is pending, and answer commands still queued so no caller waits forever.
    shut_down(Loop { role, net, listener, rx });
}

/// Bytes asked of a socket per read: a Unix socket's default send buffer
/// (about 208 KiB) in one read, several forwarded-output frames at once.
const READ_CHUNK: usize = 256 << 10;

/// Most read at once into a large frame's own buffer.
const DIRECT_MAX: usize = 4 << 20;

/// What became of a connection while its frames were handed to the role.
#[derive(PartialEq, Eq)]
enum Dispatched {
    /// Still open: read on.
    Open,
    /// The role closed it, or stopped the loop.
    Gone,
    /// A frame's length cannot be right: drop the connection.
    Malformed,
    /// On a caller's thread, a frame the role does not take there, or the
    /// end of the connection: left for the loop's own thread.
    Held,
}

/// Hand the complete frames at the front of `buf` to the role, in place (no
/// copy per frame): the bytes they took, and what became of the connection.
fn dispatch<R: Role>(role: &mut R, net: &mut Net, id: ConnId, framing: Framing, buf: &[u8]) -> (usize, Dispatched) {
    let mut off = 0;
    loop {
        let rest = &buf[off..];
        let total = match framing.frame_len(rest) {
            Ok(None) => break,
            Ok(Some(total)) if total <= role.read_limit(id).max(HEADER) => total,
            Ok(Some(total)) | Err(total) => {
                crate::pmix_debug!(1, "connection {id}: malformed frame length {total}; dropping the connection");
                return (off, Dispatched::Malformed);
            }
        };
        if rest.len() < total {
            break;
        }
        let (req, tag) = framing.ids(&rest[..total]);
        if net.caller && !role.runs_inline(id, tag) {
            net.wants_thread = true;
            return (off, Dispatched::Held);
        }
        role.on_frame(net, id, req, tag, &rest[framing.header_len()..total]);
        off += total;
        if net.stop || !net.conns.contains_key(&id) {
            return (off, Dispatched::Gone);
        }
    }
    (off, Dispatched::Open)
}

/// Hand the complete frames `id`'s buffer holds to the role, keeping the
/// rest (an unfinished frame, or frames held for the loop's own thread).
fn dispatch_buffered<R: Role>(role: &mut R, net: &mut Net, id: ConnId) -> Dispatched {
    let Some(c) = net.conns.get_mut(&id) else { return Dispatched::Gone };
    let framing = c.framing;
    let mut rbuf = std::mem::take(&mut c.rbuf);
    let (used, outcome) = dispatch(role, net, id, framing, &rbuf);
    net.buffered = net.buffered.saturating_sub(used);
    match net.conns.get_mut(&id) {
        Some(c) => {
            rbuf.drain(..used);
            if rbuf.is_empty() && rbuf.capacity() > 16 * READ_CHUNK {
                rbuf = Vec::new(); // what a large frame left
            }
            c.rbuf = rbuf;
        }
        // (closed meanwhile: its buffer was not in it to be counted off)
        None => net.buffered = net.buffered.saturating_sub(rbuf.len() - used),
    }
    outcome
}

/// Read what `id` has, handing each read's complete frames to the role
/// before the next read. `peer_went`: the event also said the peer closed,
/// so read on to the end of the stream (no later event will say it again).
fn read_conn<R: Role>(role: &mut R, net: &mut Net, id: ConnId, peer_went: bool) {
    let mut closed = false;
    let mut buf = std::mem::take(&mut net.scratch);
    if buf.len() < READ_CHUNK {
        buf = vec![0; READ_CHUNK]; // made once per loop
    }
    let outcome = loop {
        let Some(c) = net.conns.get_mut(&id) else { break Dispatched::Gone };
        let framing = c.framing;
        // The rest of a large frame begun: read straight into its buffer
        // (its length was checked against the limit when its header came).
        let direct = match framing.frame_len(&c.rbuf) {
            Ok(Some(total)) if total > c.rbuf.len() + READ_CHUNK => Some((total - c.rbuf.len()).min(DIRECT_MAX)),
            _ => None,
        };
        let (read, asked) = match direct {
            Some(k) => (c.stream.read_append(&mut c.rbuf, k), k),
            None => (c.stream.read(&mut buf), buf.len()),
        };
        let n = match read {
            Ok(0) => {
                closed = true;
                break Dispatched::Open;
            }
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break Dispatched::Open,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => {
                closed = true;
                break Dispatched::Open;
            }
        };
        let outcome = if direct.is_none() && c.rbuf.is_empty() {
            // Frames straight from the read; only an unfinished one is kept.
            let (used, outcome) = dispatch(role, net, id, framing, &buf[..n]);
            if let Some(c) = net.conns.get_mut(&id) {
                c.rbuf.extend_from_slice(&buf[used..n]);
                net.buffered += n - used;
            }
            outcome
        } else {
            if direct.is_none() {
                c.rbuf.extend_from_slice(&buf[..n]);
            }
            net.buffered += n;
            dispatch_buffered(role, net, id)
        };
        if outcome != Dispatched::Open {
            break outcome;
        }
        // What is left is an unfinished frame: bounded per peer (the role
        // says how much a peer it does not know yet may send) and for all
        // together.
        let held = net.conns.get(&id).map_or(0, |c| c.rbuf.len());
        if held > role.read_limit(id) || net.buffered > role.read_cap_all() {
            crate::pmix_debug!(1, "connection {id}: {held} bytes of an unfinished frame (all connections: {}); dropping it", net.buffered);
            closed = true;
            break Dispatched::Open;
        }
        if n < asked && !peer_went {
            // A short read emptied the socket: what arrives later (data or
            // the peer's close) raises a new readiness event, so no read to
            // see EAGAIN.
            break Dispatched::Open;
        }
    };
    net.scratch = buf;
    if net.caller && (closed || outcome == Dispatched::Malformed) {
        // The loop's own thread reads the end again and tells the role.
        net.wants_thread = true;
        return;
    }
    match outcome {
        Dispatched::Gone | Dispatched::Held => {}
        Dispatched::Malformed => {
            net.close(id);
            role.on_close(net, id);
        }
        Dispatched::Open => {
            if closed && net.conns.contains_key(&id) {
                net.close(id);
                role.on_close(net, id);
            }
        }
    }
}
