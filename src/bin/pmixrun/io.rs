//! The ranks' standard streams: their stdout/stderr come through pipes and
//! reach pmixrun's terminal whole-line-atomic per rank (or raw, or per-rank
//! files), and every byte is also delivered to the PMIx server for tools that
//! pulled it; pmixrun's stdin goes to the chosen ranks.
//!
//! Back-pressure instead of buffering: a reader blocks while its output is
//! written, so a slow terminal makes the pipe fill and the rank wait; nothing
//! is dropped and memory stays bounded. Each rank and stream that writes has
//! its own reader, so one rank closing (or stalling) its output never holds
//! the others. Until a stream first writes, one thread watches it with all
//! the others (`Watcher`): a stream that closes without writing (most
//! ranks' stderr, and both streams of many) costs no thread.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::sync::Arc;

use parking_lot::Mutex;

use pmix::abi::*;
use pmix::owned::Proc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StdinTarget {
    None,
    All,
    Rank(u32),
}

#[derive(Clone, Debug)]
pub struct IoOptions {
    pub tag: bool,
    pub timestamp: bool,
    pub raw: bool,
    pub dir: Option<PathBuf>,
    pub stdin: StdinTarget,
    /// Nothing to the terminal (a persistent launcher: the jobs' output is
    /// for the tools, forwarded or kept for them).
    pub quiet: bool,
}

impl Default for IoOptions {
    fn default() -> Self {
        IoOptions { tag: false, timestamp: false, raw: false, dir: None, stdin: StdinTarget::Rank(0), quiet: false }
    }
}

/// Longest partial line kept before it is written anyway (bounds memory).
const MAX_PENDING: usize = 1 << 16;

/// Serialises writes to pmixrun's own stdout/stderr, and remembers, per
/// stream, which rank left its last line unterminated: when another rank
/// writes next, a newline goes first so no two ranks share a line, while a
/// single rank's output stays byte-exact.
static TERMINAL: Mutex<[Option<Proc>; 2]> = Mutex::new([None, None]);

/// Stdin of the ranks, for pmixrun's stdin and PMIx_IOF_push.
pub type Stdins = Arc<Mutex<HashMap<Proc, StdinFeed>>>;

/// A chunk for a rank's stdin, and whom to tell once it is written (true)
/// or could not be (false: the rank closed its stdin).
type Chunk = (Vec<u8>, Box<dyn FnOnce(bool) + Send>);

/// A rank's stdin pipe, written by a thread of its own (started with the
/// first chunk): a rank that does not read blocks that thread only, never
/// the caller (the PMIx server's thread, for a tool's push). Each chunk's
/// completion comes once it is in the pipe, so a sender that waits for it
/// (pmixctl, pmixrun's own stdin) is held back by the rank: no queue grows.
/// Dropping the feed closes the pipe once what was queued is written.
pub struct StdinFeed {
    pipe: Option<ChildStdin>,
    queue: Option<std::sync::mpsc::Sender<Chunk>>,
    /// Fed by pmixrun's own stdin (its first job's ranks), not by a tool.
    pub launcher_fed: bool,
}

impl StdinFeed {
    pub fn new(pipe: ChildStdin, launcher_fed: bool) -> StdinFeed {
        StdinFeed { pipe: Some(pipe), queue: None, launcher_fed }
    }

    /// Queue `data`; `done` hears (on the feed's thread) whether it was
    /// written. False, and `done` dropped uncalled, when the feed takes
    /// nothing more (its rank closed its stdin): the caller's to handle.
    pub fn send(&mut self, data: Vec<u8>, done: Box<dyn FnOnce(bool) + Send>) -> bool {
        if self.queue.is_none() {
            let Some(mut pipe) = self.pipe.take() else { return false };
            let (tx, rx) = std::sync::mpsc::channel::<Chunk>();
            let started = std::thread::Builder::new().name("pmixrun-stdin".into()).stack_size(64 << 10).spawn(move || {
                // (once the rank closed its stdin, every chunk after is
                // answered false, so each sender hears of it)
                let mut open = true;
                for (data, done) in rx {
                    open = open && pipe.write_all(&data).is_ok();
                    done(open);
                }
            });
            if started.is_err() {
                return false;
            }
            self.queue = Some(tx);
        }
        self.queue.as_ref().is_some_and(|q| q.send((data, done)).is_ok())
    }
}

fn prefix(opts: &IoOptions, proc: &Proc, channel: pmix_iof_channel_t) -> String {
    let mut p = String::new();
    if opts.timestamp {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        p.push_str(&format!("[{}.{:06}]", t.as_secs(), t.subsec_micros()));
    }
    if opts.tag {
        let name = if channel == PMIX_FWD_STDERR_CHANNEL { "stderr" } else { "stdout" };
        p.push_str(&format!("[{},{}]<{name}>: ", proc.nspace, proc.rank));
    }
    p
}

/// Where one stream of one rank goes.
enum Sink {
    Terminal(pmix_iof_channel_t),
    File(std::fs::File),
    Nowhere,
}

impl Sink {
    /// Write `bytes` of `source` (None: raw mode, bytes go as they come).
    fn write(&mut self, source: Option<&Proc>, bytes: &[u8]) {
        match self {
            Sink::Terminal(ch) => {
                let mut open_line = TERMINAL.lock();
                let slot = &mut open_line[usize::from(*ch == PMIX_FWD_STDERR_CHANNEL)];
                let separate = matches!((&*slot, source), (Some(o), Some(s)) if o != s);
                if let (Some(s), false) = (source, bytes.is_empty()) {
                    *slot = if bytes.ends_with(b"\n") { None } else { Some(s.clone()) };
                }
                let mut out: Box<dyn Write> =
                    if *ch == PMIX_FWD_STDERR_CHANNEL { Box::new(std::io::stderr().lock()) } else { Box::new(std::io::stdout().lock()) };
                if separate {
                    let _ = out.write_all(b"\n");
                }
                let _ = out.write_all(bytes);
                let _ = out.flush();
            }
            Sink::File(f) => {
                let _ = f.write_all(bytes);
            }
            Sink::Nowhere => {}
        }
    }
}

fn sink_for(opts: &IoOptions, proc: &Proc, channel: pmix_iof_channel_t) -> Sink {
    if opts.quiet {
        return Sink::Nowhere;
    }
    if let Some(dir) = &opts.dir {
        let d = dir.join(&proc.nspace).join(format!("rank.{}", proc.rank));
        if std::fs::create_dir_all(&d).is_ok() {
            let name = if channel == PMIX_FWD_STDERR_CHANNEL { "stderr" } else { "stdout" };
            if let Ok(f) = std::fs::File::create(d.join(name)) {
                return Sink::File(f);
            }
        }
        eprintln!("pmixrun: cannot write {}'s output under {}", proc, dir.display());
    }
    Sink::Terminal(channel)
}

/// Forwarded output a slow tool may leave unread before the ranks are
/// throttled, and the level it must drain to before they go on.
const TOOL_BACKLOG_HIGH: usize = 16 << 20;
const TOOL_BACKLOG_LOW: usize = 4 << 20;

fn wait_for_tools(h: &pmix::runtime::Handle<pmix::server::ServerRole>) {
    loop {
        std::thread::sleep(std::time::Duration::from_millis(2));
        // A tool that disconnects stops counting; a stopped server ends the wait.
        match h.call(|s, net| s.iof_backlog(net)) {
            Some(b) if b > TOOL_BACKLOG_LOW => continue,
            _ => return,
        }
    }
}

/// A pipe's buffer for a stream that keeps it full: fewer, larger reads
/// and forwarded frames (the kernel's default is 64 KiB).
const PIPE_LARGE: usize = 1 << 20;
/// Pipe buffer all streams together may take beyond the default: Linux
/// counts pipe buffers per user, and past its soft limit (64 MiB by
/// default) gives the user's new pipes two pages only.
const PIPE_BUDGET: usize = 16 << 20;
static PIPE_TAKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Give the pipe `fd` a buffer of PIPE_LARGE, within the budget: true when it has one.
fn enlarge_pipe(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    use std::sync::atomic::Ordering;
    if PIPE_TAKEN.fetch_add(PIPE_LARGE, Ordering::Relaxed) + PIPE_LARGE > PIPE_BUDGET {
        PIPE_TAKEN.fetch_sub(PIPE_LARGE, Ordering::Relaxed);
        return false;
    }
    if nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE_LARGE as _)).is_ok_and(|n| n as usize >= PIPE_LARGE) {
        return true;
    }
    PIPE_TAKEN.fetch_sub(PIPE_LARGE, Ordering::Relaxed);
    false
}

/// One output stream of one rank, from its start to its end.
struct Stream {
    pipe: std::fs::File,
    proc: Proc,
    channel: pmix_iof_channel_t,
    opts: Arc<IoOptions>,
    /// Made at the rank's start (a per-rank file exists from then on).
    sink: Sink,
}

/// Streams that have not written yet, watched together by one thread; a
/// stream gets a reader thread (`pump`) when it first has something to read.
struct Watcher {
    registry: mio::Registry,
    waiting: Arc<Mutex<HashMap<mio::Token, Stream>>>,
    next: std::sync::atomic::AtomicUsize,
    /// The watcher's poll failed: every stream gets its reader thread at once.
    failed: Arc<std::sync::atomic::AtomicBool>,
}

static WATCHER: std::sync::OnceLock<Option<Watcher>> = std::sync::OnceLock::new();

/// Start the thread that watches the ranks' output (else the first rank does).
pub fn start_watcher() {
    WATCHER.get_or_init(Watcher::start);
}

impl Watcher {
    fn start() -> Option<Watcher> {
        let poll = mio::Poll::new().ok()?;
        let registry = poll.registry().try_clone().ok()?;
        let waiting: Arc<Mutex<HashMap<mio::Token, Stream>>> = Arc::default();
        let failed: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let (w, f) = (waiting.clone(), failed.clone());
        std::thread::Builder::new().name("pmixrun-output".into()).spawn(move || Watcher::run(poll, w, f)).ok()?;
        Some(Watcher { registry, waiting, next: Default::default(), failed })
    }

    fn run(mut poll: mio::Poll, waiting: Arc<Mutex<HashMap<mio::Token, Stream>>>, failed: Arc<std::sync::atomic::AtomicBool>) {
        use std::os::fd::AsRawFd;
        let mut events = mio::Events::with_capacity(256);
        loop {
            if let Err(e) = poll.poll(&mut events, None) {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                eprintln!("pmixrun: watching the ranks' output failed ({e}); a reader per stream from now on");
                // (under the lock `watch` inserts under: no stream is left behind)
                let mut w = waiting.lock();
                failed.store(true, std::sync::atomic::Ordering::SeqCst);
                for (_, s) in w.drain() {
                    read_in_thread(s);
                }
                return;
            }
            for ev in events.iter() {
                let Some(s) = waiting.lock().remove(&ev.token()) else { continue };
                let _ = poll.registry().deregister(&mut mio::unix::SourceFd(&s.pipe.as_raw_fd()));
                // Closed with nothing to read: ended here. Anything else
                // (data, or data and the close) goes to a reader.
                if ev.is_read_closed() && !ev.is_readable() {
                    end_silent(s);
                } else {
                    read_in_thread(s);
                }
            }
        }
    }

    fn watch(&self, s: Stream) {
        use std::os::fd::AsRawFd;
        let token = mio::Token(self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let fd = s.pipe.as_raw_fd();
        {
            let mut w = self.waiting.lock();
            if self.failed.load(std::sync::atomic::Ordering::SeqCst) {
                drop(w);
                return read_in_thread(s);
            }
            w.insert(token, s);
        }
        if self.registry.register(&mut mio::unix::SourceFd(&fd), token, mio::Interest::READABLE).is_err() {
            if let Some(s) = self.waiting.lock().remove(&token) {
                read_in_thread(s);
            }
        }
    }
}

/// A reader thread for `s`, until it closes.
fn read_in_thread(s: Stream) {
    let ns = s.proc.nspace.clone();
    let ns2 = ns.clone();
    let started = std::thread::Builder::new().name("pmixrun-reader".into()).spawn(move || {
        pump(s);
        stream_ended(&ns);
    });
    if let Err(e) = started {
        // (no thread to be had: this stream's output is lost, the job goes on)
        eprintln!("pmixrun: no reader for a rank's output: {e}");
        stream_ended(&ns2);
    }
}

/// A stream that closed without writing: its end is told as a reader's is,
/// without waiting for the server's thread (a launch's ranks end at once,
/// two streams each); it runs what it is sent in order, so a tool hears of
/// the stream's end before the job's.
fn end_silent(s: Stream) {
    if let Some(h) = pmix::server::handle() {
        let (p, ch) = (s.proc.clone(), s.channel);
        h.run(move |srv, net| srv.iof_deliver(net, &p, ch, &[], true));
    }
    stream_ended(&s.proc.nspace);
}

/// Read one stream of one rank until it closes.
fn pump(stream: Stream) {
    use std::os::fd::AsFd;
    let Stream { mut pipe, proc, channel, opts, mut sink } = stream;
    let mut pending: Vec<u8> = Vec::new();
    // Lent to the server's thread for each chunk (no copy): shared, so a
    // server that went away cannot take the chunk with it.
    let buf = Arc::new(Mutex::new(vec![0u8; 1 << 16]));
    let mut large = false;
    loop {
        let mut b = buf.lock();
        let n = match pipe.read(&mut b) {
            Ok(0) => 0,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        if n == b.len() && !large && enlarge_pipe(pipe.as_fd()) {
            // A writer that keeps the pipe full: read it in larger chunks.
            large = true;
            b.resize(PIPE_LARGE, 0);
        }
        drop(b);
        // Tools that pulled this rank get the exact bytes. When a tool reads
        // slower than the ranks write, this reader waits (so the rank blocks
        // on its pipe) instead of queueing without bound.
        if let Some(h) = pmix::server::handle() {
            let (p, data, fin) = (proc.clone(), buf.clone(), n == 0);
            let backlog = h.call(move |s, net| {
                s.iof_deliver(net, &p, channel, &data.lock()[..n], fin);
                s.iof_backlog(net)
            });
            if backlog.unwrap_or(0) > TOOL_BACKLOG_HIGH {
                wait_for_tools(&h);
            }
        }
        let b = buf.lock();
        let chunk = &b[..n];
        if n == 0 {
            if !pending.is_empty() {
                // The unterminated last line, written whole. Untagged output
                // stays byte-exact; a tagged one is ended so the next tagged
                // line starts on a line of its own.
                let p = prefix(&opts, &proc, channel);
                let tagged = !p.is_empty();
                let mut out = p.into_bytes();
                out.extend_from_slice(&pending);
                if tagged && matches!(sink, Sink::Terminal(_)) {
                    out.push(b'\n');
                }
                sink.write(Some(&proc), &out);
            }
            if large {
                PIPE_TAKEN.fetch_sub(PIPE_LARGE, std::sync::atomic::Ordering::Relaxed);
            }
            return;
        }
        if opts.raw {
            sink.write(None, chunk);
            continue;
        }
        let mut chunk = chunk;
        if !pending.is_empty() {
            // The line left unfinished before, completed by this chunk's first.
            let Some(first) = chunk.iter().position(|&b| b == b'\n') else {
                pending.extend_from_slice(chunk);
                if pending.len() >= MAX_PENDING {
                    write_lines(&mut sink, &opts, &proc, channel, &pending);
                    pending.clear();
                }
                continue;
            };
            pending.extend_from_slice(&chunk[..=first]);
            chunk = &chunk[first + 1..];
            if chunk.contains(&b'\n') {
                write_lines(&mut sink, &opts, &proc, channel, &pending);
                pending.clear();
            } else {
                // (one write for the line and the rest, as before)
                pending.extend_from_slice(chunk);
                let cut = pending.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                write_lines(&mut sink, &opts, &proc, channel, &pending[..cut]);
                pending.drain(..cut);
                continue;
            }
        }
        // The chunk's whole lines straight from it; only its last,
        // unfinished line is kept.
        let cut = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None if chunk.len() >= MAX_PENDING => chunk.len(),
            None => 0,
        };
        if cut > 0 {
            write_lines(&mut sink, &opts, &proc, channel, &chunk[..cut]);
        }
        pending.extend_from_slice(&chunk[cut..]);
    }
}

/// Whole lines of `proc`'s stream to its sink, each tagged as asked.
fn write_lines(sink: &mut Sink, opts: &IoOptions, proc: &Proc, channel: pmix_iof_channel_t, lines: &[u8]) {
    let p = prefix(opts, proc, channel);
    if p.is_empty() {
        sink.write(Some(proc), lines);
    } else {
        let mut out = Vec::with_capacity(lines.len() + 64);
        for l in lines.split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(p.as_bytes());
            out.extend_from_slice(l);
        }
        sink.write(Some(proc), &out);
    }
}

/// Readers still running (pmixrun waits for them before it exits, so no
/// output is lost at the end).
static ACTIVE: Mutex<usize> = Mutex::new(0);
static DONE: parking_lot::Condvar = parking_lot::Condvar::new();

pub fn start(proc: &Proc, out: ChildStdout, err: ChildStderr, opts: &Arc<IoOptions>) {
    let (out, err) = (std::fs::File::from(std::os::fd::OwnedFd::from(out)), std::fs::File::from(std::os::fd::OwnedFd::from(err)));
    for (channel, pipe) in [(PMIX_FWD_STDOUT_CHANNEL, out), (PMIX_FWD_STDERR_CHANNEL, err)] {
        *ACTIVE.lock() += 1;
        *ACTIVE_JOBS.lock().entry(proc.nspace.clone()).or_default() += 1;
        let s = Stream { pipe, proc: proc.clone(), channel, opts: opts.clone(), sink: sink_for(opts, proc, channel) };
        match WATCHER.get_or_init(Watcher::start) {
            Some(w) => w.watch(s),
            None => read_in_thread(s),
        }
    }
}

/// One of `ns`'s streams ended (its output all written out).
fn stream_ended(ns: &str) {
    let mut jobs = ACTIVE_JOBS.lock();
    let mut drained = false;
    if let Some(n) = jobs.get_mut(ns) {
        *n -= 1;
        if *n == 0 {
            jobs.remove(ns);
            drained = true;
        }
    }
    // (taken under ACTIVE_JOBS: `after_job_output` registers under it too)
    let due = if drained { DRAINED.lock().remove(ns).unwrap_or_default() } else { Vec::new() };
    drop(jobs);
    // (before the count falls: pmixrun's last drain, which waits for it,
    // must find the job's end already sent to the server)
    for (_, then) in due {
        then();
    }
    *ACTIVE.lock() -= 1;
    DONE.notify_all();
}

/// What runs once a job's output has all gone (`after_job_output`), by
/// namespace, each with its deadline.
type AfterOutput = Box<dyn FnOnce() + Send>;
static DRAINED: parking_lot::Mutex<std::collections::BTreeMap<String, Vec<(std::time::Instant, AfterOutput)>>> = parking_lot::Mutex::new(std::collections::BTreeMap::new());
static DRAINED_CHANGED: parking_lot::Condvar = parking_lot::Condvar::new();

/// Run `then` once every stream of job `ns` has closed and what it wrote
/// went out (to the terminal, files, tools), or after `limit` (a rank's
/// child may hold its pipe open): at once when that is so already, else
/// on the thread that ends its last stream, or on the one timer thread at
/// the deadline. `then` must not block (it posts to the server). A job's
/// end is told after its output, without a thread for each job.
pub fn after_job_output(ns: &str, limit: std::time::Duration, then: impl FnOnce() + Send + 'static) {
    let jobs = ACTIVE_JOBS.lock();
    if !jobs.contains_key(ns) {
        drop(jobs);
        then();
        return;
    }
    static TIMER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let timer = *TIMER.get_or_init(|| std::thread::Builder::new().name("pmixrun-drain".into()).spawn(drain_deadlines).is_ok());
    if !timer {
        // (no thread to keep the bound: the end is told now, output or not)
        drop(jobs);
        then();
        return;
    }
    DRAINED.lock().entry(ns.to_string()).or_default().push((std::time::Instant::now() + limit, Box::new(then)));
    drop(jobs);
    DRAINED_CHANGED.notify_all();
}

/// The timer thread of `after_job_output`: runs what is due when its job's
/// output did not end in time.
fn drain_deadlines() {
    let mut waiting = DRAINED.lock();
    loop {
        let now = std::time::Instant::now();
        let mut due = Vec::new();
        for list in waiting.values_mut() {
            let (late, keep): (Vec<_>, Vec<_>) = std::mem::take(list).into_iter().partition(|(at, _)| *at <= now);
            *list = keep;
            due.extend(late);
        }
        waiting.retain(|_, l| !l.is_empty());
        if !due.is_empty() {
            drop(waiting);
            for (_, then) in due {
                then();
            }
            waiting = DRAINED.lock();
            continue;
        }
        match waiting.values().flatten().map(|(at, _)| *at).min() {
            Some(next) => {
                DRAINED_CHANGED.wait_until(&mut waiting, next);
            }
            None => DRAINED_CHANGED.wait(&mut waiting),
        }
    }
}

/// Output streams still open, by namespace.
static ACTIVE_JOBS: parking_lot::Mutex<std::collections::BTreeMap<String, usize>> = parking_lot::Mutex::new(std::collections::BTreeMap::new());

/// Wait (at most `limit`) until every rank's output has been written out,
/// then for attached tools to take what was forwarded to them.
pub fn drain(limit: std::time::Duration) {
    let end = std::time::Instant::now() + limit;
    let mut n = ACTIVE.lock();
    while *n > 0 {
        let now = std::time::Instant::now();
        if now >= end {
            return;
        }
        DONE.wait_for(&mut n, end - now);
    }
    drop(n);
    // Then until attached tools have read what was forwarded to them: as long
    // as they make progress, and at most 10 s of a tool reading nothing.
    let Some(h) = pmix::server::handle() else { return };
    let (mut last, mut since) = (usize::MAX, std::time::Instant::now());
    while let Some(b) = h.call(|s, net| s.iof_backlog(net)) {
        if b == 0 {
            return;
        }
        if b < last {
            (last, since) = (b, std::time::Instant::now());
        } else if since.elapsed() > std::time::Duration::from_secs(10) {
            eprintln!("pmixrun: an attached tool stopped reading; {b} bytes of output not delivered to it");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Forward pmixrun's own stdin to the ranks holding a stdin pipe, then close them.
pub fn forward_stdin(stdins: Stdins) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut input = std::io::stdin();
        loop {
            let n = match input.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => 0,
            };
            let mut m = stdins.lock();
            if n == 0 {
                m.retain(|_, f| !f.launcher_fed); // EOF: close the ranks' stdin
                return;
            }
            // Read on once every rank took this chunk (or closed its stdin).
            let (tx, rx) = std::sync::mpsc::channel::<(Proc, bool)>();
            let mut closed = Vec::new();
            for (p, feed) in m.iter_mut().filter(|(_, f)| f.launcher_fed) {
                let (tx, p2) = (tx.clone(), p.clone());
                if !feed.send(buf[..n].to_vec(), Box::new(move |ok| drop(tx.send((p2, ok))))) {
                    closed.push(p.clone());
                }
            }
            drop((tx, m));
            closed.extend(rx.iter().filter(|(_, ok)| !ok).map(|(p, _)| p));
            let mut m = stdins.lock();
            for p in closed {
                m.remove(&p);
            }
        }
    });
}
