//! The write side of one connection, shared by its progress thread and any
//! other thread of the process. The progress thread flushes it when the
//! socket turns writable; another thread may write a frame itself
//! (`Lane::send`). A client's blocking call does that: it writes its request
//! from the caller's thread instead of handing it to the progress thread,
//! which saves one thread switch per call (the wait for the answer remains).
//!
//! Frames never interleave: every writer appends whole frames under the
//! lane's lock and writes from its front. The socket is closed only under
//! that lock, after marking the lane closed, so no thread can write to a
//! descriptor number that has been reused.

use std::os::fd::RawFd;
use std::sync::Arc;

use mio::Waker;

use super::transport::Framing;
use super::{ConnId, MAX_SEND};

/// Why a frame was not queued.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The connection is closed (or closing): nothing more goes out.
    Closed,
    /// Larger than the length field can describe.
    TooLarge,
    /// Called in a fork child of the process that owns the connection: its
    /// frames would interleave with the parent's on the same socket.
    OtherProcess,
}

pub(super) struct Out {
    /// Frames queued; the first `sent` bytes are already written.
    pub buf: Vec<u8>,
    sent: usize,
    pub closed: bool,
}

impl Out {
    pub fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.sent = 0;
    }
}

/// Connections whose queued bytes another thread left behind: the progress
/// thread registers write interest for them when woken.
pub(super) struct Kicks {
    pub waker: Arc<Waker>,
    pub ids: parking_lot::Mutex<Vec<ConnId>>,
    /// A loop still run by its callers (`super::Deferred`): queued bytes
    /// need its own thread, which may not come to the socket otherwise.
    pub deferred: std::sync::OnceLock<std::sync::Weak<dyn super::StartThread>>,
}

impl Kicks {
    pub fn new(waker: Arc<Waker>) -> Self {
        Kicks { waker, ids: parking_lot::Mutex::new(Vec::new()), deferred: std::sync::OnceLock::new() }
    }

    /// Bytes queued on `id` by another thread: the loop watches it now.
    fn kick(&self, id: ConnId) {
        self.ids.lock().push(id);
        if let Some(d) = self.deferred.get().and_then(std::sync::Weak::upgrade) {
            d.start_thread();
        }
        let _ = self.waker.wake();
    }
}

/// Bumped in every fork child (pthread_atfork): a lane made before the
/// fork is not the child's. Cheaper than asking the kernel for the pid on
/// every send.
static FORKS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

extern "C" fn forked_child() {
    FORKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn watch_forks() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a handler that only bumps an atomic counter
        // (async-signal-safe, as a fork child handler must be).
        unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
    });
}

/// How many forks this process descends from, as the lanes count them (a
/// value taken before a fork differs in the child).
pub(super) fn fork_generation() -> u32 {
    watch_forks();
    FORKS.load(std::sync::atomic::Ordering::Relaxed)
}

pub struct Lane {
    id: ConnId,
    fd: RawFd,
    framing: Framing,
    /// FORKS when the lane was made.
    generation: u32,
    pub(super) out: parking_lot::Mutex<Out>,
    kicks: Arc<Kicks>,
}

impl Lane {
    pub(super) fn new(id: ConnId, fd: RawFd, framing: Framing, kicks: Arc<Kicks>) -> Self {
        Lane { id, fd, framing, generation: fork_generation(), out: parking_lot::Mutex::new(Out { buf: Vec::new(), sent: 0, closed: false }), kicks }
    }

    /// False in a fork child of the process that opened the connection.
    pub fn in_owner(&self) -> bool {
        FORKS.load(std::sync::atomic::Ordering::Relaxed) == self.generation
    }

    /// Queue one frame and write what the socket takes now, from this
    /// thread. What it does not take is written by the progress thread.
    pub fn send(&self, req: u32, tag: u16, body: &[u8]) -> Result<(), Refused> {
        // Checked before any lock: a fork child may hold a copy of a lock
        // that a parent thread held at fork time.
        if !self.in_owner() {
            return Err(Refused::OtherProcess);
        }
        if self.push(req, tag, body)? {
            self.kicks.kick(self.id);
        }
        Ok(())
    }

    /// Append a frame and, when nothing was queued before it, write now.
    /// True when this call left bytes queued on an idle socket: the progress
    /// thread must start watching it for writability.
    pub(super) fn push(&self, req: u32, tag: u16, body: &[u8]) -> Result<bool, Refused> {
        self.push_parts(req, tag, &[body])
    }

    /// `push` of a frame whose body is `parts` one after another. On an idle
    /// socket the bytes go out from where they lie (one vectored write);
    /// only what the socket does not take is copied into the queue.
    pub(super) fn push_parts(&self, req: u32, tag: u16, parts: &[&[u8]]) -> Result<bool, Refused> {
        let body_len: usize = parts.iter().map(|p| p.len()).sum();
        let len = 6 + body_len;
        if len > MAX_SEND {
            crate::pmix_debug!(1, "refusing to send a {len}-byte frame (limit {MAX_SEND})");
            return Err(Refused::TooLarge);
        }
        let mut header = Vec::with_capacity(super::transport::PTL_HEADER);
        self.framing.header(req, tag, body_len, &mut header);
        let mut o = self.out.lock();
        if o.closed {
            return Err(Refused::Closed);
        }
        let mut skip = 0;
        if o.pending() == 0 {
            o.clear();
            match send_parts(self.fd, &header, parts) {
                Some(n) => skip = n,
                None => return Ok(false), // dead: nothing queued reaches it (the reader reports the loss)
            }
        }
        // (queued behind earlier frames: the progress thread already watches it)
        o.buf.reserve(header.len() + body_len - skip.min(header.len() + body_len));
        for part in std::iter::once(&header[..]).chain(parts.iter().copied()) {
            let taken = skip.min(part.len());
            skip -= taken;
            o.buf.extend_from_slice(&part[taken..]);
        }
        Ok(o.pending() > 0)
    }

    /// Append a frame with `fd` attached to its first byte (SCM_RIGHTS),
    /// written now: only on an idle lane (nothing queued before it, so the
    /// descriptor travels with this frame's bytes). Ok(None): not sent
    /// (another frame is queued, or the socket refused the first write);
    /// the caller sends the frame its other way. Ok(Some(left)) as `push`.
    pub(super) fn push_with_fd(&self, req: u32, tag: u16, body: &[u8], fd: std::os::fd::BorrowedFd<'_>) -> Result<Option<bool>, Refused> {
        if self.framing.header_len() + body.len() > MAX_SEND {
            return Err(Refused::TooLarge);
        }
        let mut o = self.out.lock();
        if o.closed {
            return Err(Refused::Closed);
        }
        if o.pending() != 0 {
            return Ok(None);
        }
        o.clear();
        self.framing.header(req, tag, body.len(), &mut o.buf);
        o.buf.extend_from_slice(body);
        match send_with_fd(self.fd, &o.buf, fd) {
            Some(n) if n > 0 => {
                o.sent = n;
                write_out(self.fd, &mut o);
                Ok(Some(o.pending() > 0))
            }
            _ => {
                o.clear();
                Ok(None)
            }
        }
    }

    /// Write what is queued (the progress thread, on writability):
    /// (the socket is dead, bytes are still queued).
    pub(super) fn flush(&self) -> (bool, bool) {
        let mut o = self.out.lock();
        let dead = write_out(self.fd, &mut o);
        (dead, o.pending() > 0)
    }

    pub(super) fn queued(&self) -> usize {
        self.out.lock().pending()
    }
}

/// Write from what is pending until the socket stops taking bytes.
/// MSG_NOSIGNAL: a peer that went must not kill a C program with SIGPIPE;
/// the reader side reports the loss. True when the socket is dead.
fn write_out(fd: RawFd, o: &mut Out) -> bool {
    let mut dead = false;
    while o.pending() > 0 {
        let rest = &o.buf[o.sent..];
        // SAFETY: `fd` is the lane's open socket (it is closed only under the
        // lane's lock, which the caller holds); `rest` is valid for its length.
        let n = unsafe { libc::send(fd, rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
        if n > 0 {
            o.sent += n as usize;
            continue;
        }
        if n == 0 {
            dead = true;
            break;
        }
        let err = std::io::Error::last_os_error();
        match err.kind() {
            std::io::ErrorKind::Interrupted => continue,
            std::io::ErrorKind::WouldBlock => break,
            _ => {
                dead = true;
                break;
            }
        }
    }
    if dead || o.pending() == 0 {
        o.clear(); // all written, or nothing queued can reach a dead socket
    } else if o.sent > (1 << 20) && o.sent > o.buf.len() / 2 {
        // Move the rest forward now and then, not after every write: a large
        // answer leaves in many writes, and moving it each time was quadratic.
        let sent = o.sent;
        o.buf.drain(..sent);
        o.sent = 0;
    }
    dead
}

/// One vectored send of `header` then `parts` on a non-blocking socket:
/// the bytes it took (0 when full), None when the socket is dead.
fn send_parts(fd: RawFd, header: &[u8], parts: &[&[u8]]) -> Option<usize> {
    let iov: Vec<libc::iovec> = std::iter::once(header)
        .chain(parts.iter().copied())
        .filter(|p| !p.is_empty())
        .map(|p| libc::iovec { iov_base: p.as_ptr() as *mut libc::c_void, iov_len: p.len() })
        .collect();
    // SAFETY: a zeroed msghdr is a valid empty one; its iov fields are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = iov.len() as _;
    loop {
        // SAFETY: `fd` is the lane's open socket (closed only under the
        // lane's lock, which the caller holds); every iovec points into a
        // slice that lives through the call, and the kernel only reads them.
        let n = unsafe { libc::sendmsg(fd, &msg, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
        if n >= 0 {
            return Some(n as usize);
        }
        match std::io::Error::last_os_error().kind() {
            std::io::ErrorKind::Interrupted => continue,
            std::io::ErrorKind::WouldBlock => return Some(0),
            _ => return None,
        }
    }
}

/// One sendmsg of `bytes` carrying `fd` (SCM_RIGHTS): the bytes written,
/// None when the socket took none (the descriptor did not go either).
fn send_with_fd(sock: RawFd, bytes: &[u8], fd: std::os::fd::BorrowedFd<'_>) -> Option<usize> {
    use std::os::fd::AsRawFd;
    let raw = fd.as_raw_fd();
    let mut iov = libc::iovec { iov_base: bytes.as_ptr() as *mut libc::c_void, iov_len: bytes.len() };
    // Room for one control message of one descriptor, aligned for cmsghdr.
    let mut control = [0u64; 4];
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    debug_assert!(space <= std::mem::size_of_val(&control));
    // SAFETY: a zeroed msghdr is a valid empty one; its fields are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: `msg` points at `control`, large enough for one cmsghdr and
    // one descriptor (CMSG_SPACE above); CMSG_FIRSTHDR is within it.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut RawFd, raw);
    }
    loop {
        // SAFETY: `sock` is the lane's open socket (closed only under the
        // lane's lock, which the caller holds); `msg` is valid as built above.
        let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
        if n > 0 {
            return Some(n as usize);
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
}

/// Read exactly `buf.len()` bytes from a blocking Unix stream, keeping a
/// descriptor that arrives with them (SCM_RIGHTS, close-on-exec); any
/// further descriptors are closed.
pub fn recv_exact_with_fd(sock: std::os::fd::BorrowedFd<'_>, buf: &mut [u8]) -> std::io::Result<Option<std::os::fd::OwnedFd>> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let mut got: Option<OwnedFd> = None;
    let mut filled = 0;
    while filled < buf.len() {
        let mut iov = libc::iovec { iov_base: buf[filled..].as_mut_ptr().cast(), iov_len: buf.len() - filled };
        let mut control = [0u64; 8];
        // SAFETY: a zeroed msghdr is a valid empty one; its fields are set below.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: `sock` is open; `msg` points at `iov` (the unfilled rest of
        // `buf`) and `control`, both valid for their lengths.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        // SAFETY: walking the control messages the kernel wrote into
        // `control` (msg_controllen bytes), with the CMSG macros.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(c);
                    let bytes = (*c).cmsg_len as usize - (data as usize - c as usize);
                    for i in 0..bytes / std::mem::size_of::<RawFd>() {
                        let fd = OwnedFd::from_raw_fd(std::ptr::read_unaligned((data as *const RawFd).add(i)));
                        if got.is_none() {
                            got = Some(fd);
                        }
                    }
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        filled += n as usize;
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use crate::runtime::HEADER;

    fn lane_on(s: &UnixStream) -> (Lane, mio::Poll) {
        s.set_nonblocking(true).unwrap();
        let poll = mio::Poll::new().unwrap();
        let waker = Arc::new(Waker::new(poll.registry(), mio::Token(0)).unwrap());
        let kicks = Arc::new(Kicks::new(waker));
        (Lane::new(2, s.as_raw_fd(), Framing::Rpmix, kicks), poll)
    }

    /// Threads sending at once on one lane: every frame arrives whole, and
    /// each thread's frames in the order it sent them.
    #[test]
    fn concurrent_senders_never_interleave() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (lane, _poll) = lane_on(&a);
        let lane = Arc::new(lane);
        const THREADS: u32 = 4;
        const FRAMES: u32 = 2000;
        let reader = std::thread::spawn(move || {
            let mut next = [0u32; THREADS as usize];
            let mut hdr = [0u8; HEADER];
            for _ in 0..THREADS * FRAMES {
                b.read_exact(&mut hdr).unwrap();
                let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize;
                let req = u32::from_le_bytes(hdr[4..8].try_into().unwrap());
                let mut body = vec![0u8; len - 6];
                b.read_exact(&mut body).unwrap();
                let (t, n) = (req >> 16, req & 0xffff);
                assert_eq!(n, next[t as usize], "thread {t}'s frames out of order");
                next[t as usize] += 1;
                // (bodies of varied sizes, every byte the frame's own)
                assert_eq!(body.len(), (n as usize * 37) % 5000 + 1);
                assert!(body.iter().all(|&x| x == (req % 251) as u8), "a frame's body was mixed with another's");
            }
        });
        let senders: Vec<_> = (0..THREADS)
            .map(|t| {
                let lane = lane.clone();
                std::thread::spawn(move || {
                    for n in 0..FRAMES {
                        let req = (t << 16) | n;
                        let body = vec![(req % 251) as u8; (n as usize * 37) % 5000 + 1];
                        lane.send(req, 7, &body).unwrap();
                    }
                })
            })
            .collect();
        // What the socket did not take at once stays queued for the
        // progress thread; here this loop plays that part.
        while senders.iter().any(|s| !s.is_finished()) || lane.queued() > 0 {
            lane.flush();
            std::thread::yield_now();
        }
        for s in senders {
            s.join().unwrap();
        }
        reader.join().unwrap();
    }

    /// A frame pushed in parts arrives as the same frame pushed whole, also
    /// when the socket takes only some of it (the rest queued, cut inside
    /// any part) and behind frames already queued.
    #[test]
    fn parts_arrive_as_one_frame() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (lane, _poll) = lane_on(&a);
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
        let (head, tail) = (b"head".to_vec(), b"tail!".to_vec());
        // the first fills the socket; the second queues behind it
        for req in [1u32, 2] {
            assert!(lane.push_parts(req, 9, &[&head, &big, &tail]).is_ok());
        }
        assert!(lane.queued() > 0, "the socket took 6 MB at once");
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..2 {
                let mut hdr = [0u8; HEADER];
                b.read_exact(&mut hdr).unwrap();
                let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize;
                let mut body = vec![0u8; len - 6];
                b.read_exact(&mut body).unwrap();
                got.push((u32::from_le_bytes(hdr[4..8].try_into().unwrap()), u16::from_le_bytes(hdr[8..10].try_into().unwrap()), body));
            }
            got
        });
        while lane.queued() > 0 {
            lane.flush();
            std::thread::yield_now();
        }
        let whole = [&head[..], &big[..], &tail[..]].concat();
        for (i, (req, tag, body)) in reader.join().unwrap().into_iter().enumerate() {
            assert_eq!((req, tag), (i as u32 + 1, 9));
            assert!(body == whole, "frame {req}'s body differs from its parts");
        }
    }

    /// A peer that went: the write fails quietly (the reader side reports
    /// the loss), with SIGPIPE at its default action, which would end the
    /// process if the write raised it.
    #[test]
    fn a_gone_peer_raises_no_sigpipe() {
        let (a, b) = UnixStream::pair().unwrap();
        drop(b);
        let (lane, _poll) = lane_on(&a);
        // SAFETY: sets SIGPIPE's disposition (the test harness ignores it).
        let old = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        let sent = lane.send(1, 7, b"to nobody");
        // SAFETY: restores the disposition found above.
        unsafe { libc::signal(libc::SIGPIPE, old) };
        assert_eq!(sent, Ok(()));
        assert_eq!(lane.queued(), 0, "nothing stays queued for a dead socket");
    }

    #[test]
    fn a_closed_lane_refuses() {
        let (a, _b) = UnixStream::pair().unwrap();
        let (lane, _poll) = lane_on(&a);
        lane.out.lock().closed = true;
        assert_eq!(lane.send(1, 7, b"late"), Err(Refused::Closed));
    }
}
