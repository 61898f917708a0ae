//! Starting a rank without fork's cost and without a second exec: a child
//! made as posix_spawn makes its own (clone with CLONE_VM | CLONE_VFORK:
//! nothing of pmixrun's memory is copied, pmixrun's thread waits until the
//! child execs) sets what a rank starts with (its process group, pipes,
//! working directory, CPU binding, parent-death signal, default signals, a
//! trace for a debugger) with system calls only, then execs the program.
//!
//! Why: a fork copies the launcher's page tables, and a launcher serving a
//! thousand ranks holds hundreds of megabytes while it starts them (their
//! connections, their job data), so forking rank after rank made a launch of
//! N ranks cost N^2; posix_spawn cannot set the parent-death signal or the
//! binding, and starting each rank through an exec of pmixrun itself that
//! set them cost a second exec per rank (a third of a 1,024-rank launch's
//! CPU).
//!
//! Descriptors: a child made without CLONE_FILES copies the launcher's
//! whole descriptor table and its exec closes every close-on-exec entry,
//! the pipes and connections of every rank started before: O(N) per rank,
//! O(N^2) per launch. So the child shares the table (CLONE_FILES) and its
//! first system call, close_range(CLOSE_RANGE_UNSHARE) above a few low
//! "slots", gives it a table of only those: a set of three slots holds,
//! for the time of one start, the descriptors that become the rank's fd 0,
//! 1, 2 (a set for each thread that starts ranks: `Batch`). A child
//! that fails before its exec writes why into the memory it shares with the
//! launcher, which reads it once the child is gone (as posix_spawn does):
//! no pipe for that.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};


/// Where `program` is, searched like execvp does (in the rank's PATH when
/// it has no '/'): None when there is no executable file by that name. The
/// launcher checks first, so a missing program is an error of the launch
/// (PMIX_ERR_JOB_EXE_NOT_FOUND for a spawn), not a rank exiting 127.
pub fn resolve(program: &str, path_var: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.contains('/') {
        let p = match cwd {
            Some(d) if !program.starts_with('/') => d.join(program),
            _ => PathBuf::from(program),
        };
        return executable(&p).then_some(p);
    }
    path_var.unwrap_or("/usr/local/bin:/usr/bin:/bin").split(':').map(|d| Path::new(if d.is_empty() { "." } else { d }).join(program)).find(|p| executable(p))
}

/// What a rank starts with, for `spawn`.
pub struct RankSpec {
    /// The program, resolved (`resolve`), and its argv (argv[0] as given).
    pub program: PathBuf,
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    pub cpus: Option<pmix::topology::CpuSet>,
    /// Traced from its exec, for a debugger (debug.rs): started by the
    /// launcher's main thread, the tracer, never by a starter thread.
    pub stop_on_exec: bool,
    /// A pipe for its stdin (else /dev/null).
    pub stdin: bool,
}

/// A started rank: its pid and the launcher's ends of its pipes.
pub struct Started {
    pub pid: i32,
    pub stdin: Option<std::process::ChildStdin>,
    pub stdout: std::process::ChildStdout,
    pub stderr: std::process::ChildStderr,
}

/// What the child of `spawn` reads: everything made before the clone, so
/// the child only makes system calls (no allocation, no lock).
struct ChildPlan {
    program: CString,
    argv: Vec<*const libc::c_char>,
    /// ["sh", program, argv[1..]]: a program the kernel will not exec.
    sh_argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: Option<CString>,
    cpus: Option<libc::cpu_set_t>,
    /// (the child's descriptor, what becomes its fd 0, 1, 2)
    stdio: [libc::c_int; 3],
    launcher: libc::pid_t,
    stop_on_exec: bool,
    /// An errno and a step number, written by a child that fails before
    /// its exec (zero: it did not), read by the launcher once the child has
    /// exec'd or exited (CLONE_VFORK), never while it runs.
    failure: std::cell::UnsafeCell<[i32; 2]>,
    /// Sharing the launcher's table (CLONE_FILES): its first call makes a
    /// private table of the descriptors below this one (0: not shared).
    unshare_below: libc::c_uint,
}

/// Steps of the child that can fail, as reported through `ChildPlan::failure`.
const STEP_CWD: i32 = 1;
const STEP_BIND: i32 = 2;
const STEP_PDEATHSIG: i32 = 3;
const STEP_TRACE: i32 = 4;
const STEP_EXEC: i32 = 5;
const STEP_PARENT_GONE: i32 = 6;
const STEP_UNSHARE: i32 = 7;

/// The child of `spawn`, on its own stack, sharing the launcher's memory
/// until its exec (CLONE_VM | CLONE_VFORK: the launcher's thread waits):
/// only system calls on what `ChildPlan` holds.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the ChildPlan of `spawn`, alive while this child runs
    // (the launcher's thread is suspended until its exec or exit); every
    // call below is a system call on memory the plan holds.
    unsafe {
        let plan = &*(arg as *const ChildPlan);
        let fail = |step: i32| -> ! {
            let msg = [*libc::__errno_location(), step];
            std::ptr::write_volatile(plan.failure.get(), msg);
            libc::_exit(if step == STEP_EXEC && msg[0] == libc::ENOENT { 127 } else { 126 })
        };
        // First, while the table is still the launcher's: a table of our own
        // with only the descriptors below the slots' end (nothing else is
        // copied, so nothing else is closed at the exec).
        if plan.unshare_below > 0 && libc::syscall(libc::SYS_close_range, plan.unshare_below, libc::c_uint::MAX, libc::CLOSE_RANGE_UNSHARE) != 0 {
            fail(STEP_UNSHARE);
        }
        libc::setpgid(0, 0);
        for (fd, src) in plan.stdio.iter().enumerate() {
            // (each above 2, so none is overwritten before its turn)
            libc::dup2(*src, fd as libc::c_int);
        }
        if let Some(d) = &plan.cwd {
            if libc::chdir(d.as_ptr()) != 0 {
                fail(STEP_CWD);
            }
        }
        if let Some(set) = &plan.cpus {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                fail(STEP_BIND);
            }
        }
        // Nothing of the job outlives pmixrun, even a SIGKILL'ed one: the
        // kernel kills the rank when the thread that started it ends
        // (pmixrun's main thread or a starter thread, which live as long
        // as pmixrun); the
        // signal survives the exec. Then, in case pmixrun died before that
        // was set: is it still our parent?
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            fail(STEP_PDEATHSIG);
        }
        if libc::getppid() != plan.launcher {
            *libc::__errno_location() = libc::ESRCH;
            fail(STEP_PARENT_GONE);
        }
        // A rank starts with default dispositions and no blocked signal,
        // whatever pmixrun inherited.
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        for sig in 1..=libc::SIGRTMAX() {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
            }
        }
        // Stop on exec: traced by the thread that started us (the
        // launcher's main thread), the exec below stops us with SIGTRAP.
        if plan.stop_on_exec && libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) != 0 {
            fail(STEP_TRACE);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(plan.program.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr());
        if *libc::__errno_location() == libc::ENOEXEC {
            // A script without "#!": the shell runs it, as execvp does.
            libc::execve(c"/bin/sh".as_ptr(), plan.sh_argv.as_ptr(), plan.envp.as_ptr());
            *libc::__errno_location() = libc::ENOEXEC;
        }
        fail(STEP_EXEC)
    }
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(std::io::Error::from)
}

/// Start a rank without copying the launcher (a fork would copy its page
/// tables: a launcher serving a thousand ranks holds hundreds of
/// megabytes) and without a second exec: a CLONE_VM | CLONE_VFORK child,
/// as posix_spawn makes, that sets what a rank needs (its own process
/// group, pipes, working directory, CPU binding, parent-death signal,
/// default signals, a trace for a debugger) and execs the program.
pub fn spawn(spec: &RankSpec) -> std::io::Result<Started> {
    use std::os::fd::{AsFd, AsRawFd, OwnedFd};
    let to_c = |s: &[u8]| CString::new(s).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in an argument or the environment"));
    // (absolute: the child changes its working directory first)
    let program = if spec.program.is_absolute() { spec.program.to_path_buf() } else { std::env::current_dir()?.join(&spec.program) };
    let program = to_c(program.as_os_str().as_bytes())?;
    let argv: Vec<CString> = spec.argv.iter().map(|a| to_c(a.as_bytes())).collect::<Result<_, _>>()?;
    let env: Vec<CString> = spec.env.iter().map(|(k, v)| to_c(&[k.as_bytes(), b"=", v.as_bytes()].concat())).collect::<Result<_, _>>()?;
    let cwd = spec.cwd.as_ref().map(|d| to_c(d.as_os_str().as_bytes())).transpose()?;
    let cpus = spec.cpus.as_ref().map(|set| {
        // SAFETY: an all-zero cpu_set_t is the empty set.
        let mut m: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for c in set.iter() {
            if (*c as usize) < 8 * std::mem::size_of::<libc::cpu_set_t>() {
                // SAFETY: a CPU number within the set's capacity (checked).
                unsafe { libc::CPU_SET(*c as usize, &mut m) };
            }
        }
        m
    });
    // (without a stdin pipe: the launcher's one /dev/null)
    let (in_r, in_w): (Option<OwnedFd>, Option<OwnedFd>) = match spec.stdin {
        true => pipe().map(|(r, w)| (Some(r), Some(w)))?,
        false => (None, None),
    };
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    let (in_r, out_w, err_w) = (in_r.map(above_stdio).transpose()?, above_stdio(out_w)?, above_stdio(err_w)?);
    let in_fd = match &in_r {
        Some(r) => r.as_fd(),
        None => dev_null()?,
    };
    // One start at a time holds a set of slots (when there are some).
    let slots = SLOTS.get_or_init(Slots::reserve).as_ref();
    let held = slots.map(|s| s.hold([in_fd, out_w.as_fd(), err_w.as_fd()])).transpose()?;
    let (stdio, unshare_below, flags) = match &held {
        Some(h) => (h.stdio(), h.end(), libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_FILES | libc::SIGCHLD),
        None => ([in_fd.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()], 0, libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD),
    };
    let nul = |v: &[CString]| v.iter().map(|c| c.as_ptr()).chain(std::iter::once(std::ptr::null())).collect::<Vec<_>>();
    let sh: Vec<*const libc::c_char> = [c"sh".as_ptr(), program.as_ptr()].into_iter().chain(argv.iter().skip(1).map(|c| c.as_ptr())).chain(std::iter::once(std::ptr::null())).collect();
    let plan = ChildPlan {
        sh_argv: sh,
        argv: nul(&argv),
        envp: nul(&env),
        program,
        cwd,
        cpus,
        stdio,
        launcher: std::process::id() as libc::pid_t,
        stop_on_exec: spec.stop_on_exec,
        failure: std::cell::UnsafeCell::new([0, 0]),
        unshare_below,
    };
    // The child's stack: it runs child_main only (system calls).
    let mut stack = vec![0u8; 64 << 10];
    // SAFETY: the top of `stack`, aligned down to 16 bytes.
    let top = unsafe { stack.as_mut_ptr().add(stack.len()) } as usize & !15;
    // No signal handler of the launcher may run in the child (it shares
    // the launcher's memory): every signal blocked around the clone, as
    // posix_spawn does; the child unblocks them after resetting them.
    let mut all: libc::sigset_t = unsafe_sigset(true);
    let mut old: libc::sigset_t = unsafe_sigset(false);
    // SAFETY: valid sigset pointers.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old) };
    // SAFETY: child_main runs on its own stack with `plan`, which outlives
    // it: with CLONE_VFORK this thread resumes only after the child's exec
    // or exit.
    let pid = unsafe { libc::clone(child_main, top as *mut libc::c_void, flags, &plan as *const ChildPlan as *mut libc::c_void) };
    let clone_err = std::io::Error::last_os_error();
    // SAFETY: restores this thread's mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, &mut all) };
    // (the slots let go of the child's ends, so its pipes see it close them)
    drop((held, in_r, out_w, err_w, stack));
    if pid < 0 {
        return Err(clone_err);
    }
    started_one();
    // What the child reported before its exec (nothing: the exec happened).
    // SAFETY: the child has exec'd or exited (CLONE_VFORK resumed this
    // thread only then), so nothing writes the cell any more.
    let msg = unsafe { std::ptr::read_volatile(plan.failure.get()) };
    if msg[1] != 0 {
        let what = match msg[1] {
            STEP_CWD => "working directory",
            STEP_BIND => "binding to CPUs",
            STEP_PDEATHSIG => "parent-death signal",
            STEP_TRACE => "stop on exec",
            STEP_PARENT_GONE => "pmixrun is gone",
            STEP_UNSHARE => "a descriptor table of its own",
            _ => "exec",
        };
        // (the reaper collects the child: it exited)
        let e = std::io::Error::from_raw_os_error(msg[0]);
        return Err(std::io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(Started {
        pid,
        stdin: in_w.map(std::process::ChildStdin::from),
        stdout: std::process::ChildStdout::from(out_r),
        stderr: std::process::ChildStderr::from(err_r),
    })
}

/// A signal set, full or empty.
fn unsafe_sigset(full: bool) -> libc::sigset_t {
    // SAFETY: a zeroed sigset_t is then filled or emptied by libc.
    unsafe {
        let mut s: libc::sigset_t = std::mem::zeroed();
        if full {
            libc::sigfillset(&mut s);
        } else {
            libc::sigemptyset(&mut s);
        }
        s
    }
}

/// /dev/null, opened once (close-on-exec, above 2): the stdin of ranks
/// that have no stdin pipe.
fn dev_null() -> std::io::Result<std::os::fd::BorrowedFd<'static>> {
    use std::os::fd::AsFd;
    static DEV_NULL: std::sync::OnceLock<std::os::fd::OwnedFd> = std::sync::OnceLock::new();
    if let Some(fd) = DEV_NULL.get() {
        return Ok(fd.as_fd());
    }
    let fd = above_stdio(std::fs::File::open("/dev/null")?.into())?;
    Ok(DEV_NULL.get_or_init(|| fd).as_fd())
}

/// Low descriptors reserved for starting ranks (see the module's doc): a
/// set of three for each thread that may start ranks at once (the main
/// thread and the starter threads), each a copy of the launcher's
/// /dev/null (`dev_null`), close-on-exec, while no start holds them. A
/// child's private table keeps every set (the others' hold other ranks'
/// ends for a moment, close-on-exec: its exec closes them).
struct Slots {
    sets: Vec<SlotSet>,
}

struct SlotSet {
    fds: [libc::c_int; 3],
    /// One start at a time.
    lock: parking_lot::Mutex<()>,
}

static SLOTS: std::sync::OnceLock<Option<Slots>> = std::sync::OnceLock::new();

/// Reserve the slots, and open the ranks' /dev/null, now: while the lowest
/// descriptors are free (pmixrun's start; else at its first rank), and so
/// that the launcher's descriptors are the same before its first rank and
/// after its last.
pub fn reserve_slots() {
    SLOTS.get_or_init(Slots::reserve);
}

impl Slots {
    /// None (ranks start with a copy of the whole table, as before) where
    /// the kernel has no close_range (Linux before 5.9).
    fn reserve() -> Option<Slots> {
        use std::os::fd::IntoRawFd;
        let null = dev_null().ok()?;
        // SAFETY: close_range of an empty range (no descriptor that high)
        // closes nothing; it only tells whether the call exists.
        if unsafe { libc::syscall(libc::SYS_close_range, libc::c_uint::MAX, libc::c_uint::MAX, 0) } != 0 {
            return None;
        }
        let mut owned = Vec::with_capacity(3 * (1 + STARTER_THREADS));
        for _ in 0..owned.capacity() {
            let fd = nix::fcntl::fcntl(null, nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(3)).ok()?;
            // SAFETY: a descriptor just made by F_DUPFD_CLOEXEC, owned by nothing else
            // (owned until all are made, so a failure leaks none).
            owned.push(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
        }
        let fds: Vec<libc::c_int> = owned.into_iter().map(|fd| fd.into_raw_fd()).collect();
        let sets = fds.chunks(3).map(|c| SlotSet { fds: [c[0], c[1], c[2]], lock: parking_lot::Mutex::new(()) }).collect();
        Some(Slots { sets })
    }

    /// The first descriptor above every slot.
    fn end(&self) -> libc::c_uint {
        self.sets.iter().flat_map(|s| s.fds).max().map_or(0, |m| m as libc::c_uint + 1)
    }

    /// Put `ends` (the rank's stdin, stdout and stderr ends) in a free set
    /// of slots until the returned guard is dropped.
    fn hold(&self, ends: [std::os::fd::BorrowedFd<'_>; 3]) -> std::io::Result<HeldSlots<'_>> {
        // (a set for each thread that starts ranks: one is free; should
        // there be more such threads, a start waits for the first set)
        let (set, guard) = self.sets.iter().find_map(|s| s.lock.try_lock().map(|g| (s, g))).unwrap_or_else(|| (&self.sets[0], self.sets[0].lock.lock()));
        let held = HeldSlots { set, end: self.end(), _guard: guard };
        for (slot, end) in set.fds.iter().zip(ends) {
            dup_into(end, *slot)?;
        }
        Ok(held)
    }
}

/// Slots holding one start's descriptors; refilled with /dev/null when dropped.
struct HeldSlots<'a> {
    set: &'a SlotSet,
    end: libc::c_uint,
    _guard: parking_lot::MutexGuard<'a, ()>,
}

impl HeldSlots<'_> {
    fn stdio(&self) -> [libc::c_int; 3] {
        self.set.fds
    }
    /// The first descriptor above every slot.
    fn end(&self) -> libc::c_uint {
        self.end
    }
}

impl Drop for HeldSlots<'_> {
    fn drop(&mut self) {
        // (dev_null was opened before the slots were made)
        if let Ok(null) = dev_null() {
            for slot in self.set.fds {
                let _ = dup_into(null, slot);
            }
        }
    }
}

/// `fd` copied onto the descriptor number `slot` (closing what it held), close-on-exec.
fn dup_into(fd: std::os::fd::BorrowedFd<'_>, slot: libc::c_int) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: dup3 onto a slot this module reserved and owns; the slot's
    // previous open file is released by the kernel, nothing else refers
    // to the slot's number.
    if unsafe { libc::dup3(fd.as_raw_fd(), slot, libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `fd` itself, or a close-on-exec copy numbered above 2 when it is one of
/// 0, 1, 2 (a launcher started with those closed): the child's dup2 onto
/// 0, 1, 2 must not overwrite a descriptor it has yet to move.
fn above_stdio(fd: std::os::fd::OwnedFd) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::AsRawFd;
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    let n = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(3)).map_err(std::io::Error::from)?;
    // SAFETY: a descriptor just made by F_DUPFD_CLOEXEC, owned by nothing else.
    Ok(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(n) })
}

/// Children started so far, and the reaper's wake-up (job.rs): a reaper
/// with no child to wait for sleeps until the next start, not a period.
pub static STARTS: (parking_lot::Mutex<u64>, parking_lot::Condvar) = (parking_lot::Mutex::new(0), parking_lot::Condvar::new());

fn started_one() {
    *STARTS.0.lock() += 1;
    STARTS.1.notify_all();
}

/// Threads that start ranks beside the main thread (`Batch`). A start
/// waits for its child's exec; with two starters, one child execs while
/// the next is made, and the main thread meanwhile prepares the next
/// ranks (a 1,024-rank launch of Init, Fence and Finalize on 2 CPUs: 4%
/// less time, paired runs). They live as long as pmixrun: a rank's
/// parent-death signal fires when the thread that started it ends.
const STARTER_THREADS: usize = 2;

/// A start handed to a starter thread: it runs `spawn` and what the
/// caller wants done next on the same thread.
type StartJob = Box<dyn FnOnce() + Send>;

/// The starter threads' queue (None: they could not be made).
fn starters() -> Option<&'static std::sync::mpsc::Sender<StartJob>> {
    static POOL: std::sync::OnceLock<Option<std::sync::mpsc::Sender<StartJob>>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<StartJob>();
        let rx = std::sync::Arc::new(parking_lot::Mutex::new(rx));
        for i in 0..STARTER_THREADS {
            let rx = rx.clone();
            // (the queue's sender is static: recv fails only at exit)
            let run = move || while let Ok(job) = { let next = rx.lock().recv(); next } { job() };
            std::thread::Builder::new().name(format!("pmixrun-start{i}")).spawn(run).ok()?;
        }
        Some(tx)
    })
    .as_ref()
}

/// Ranks being started: each `submit`ted spec is started on a starter
/// thread when the batch is parallel (else at once, on the caller's
/// thread), and `then` runs on that thread with the outcome. Its results
/// come back through `ready` (those done so far) and `finish` (all); a
/// start that panicked comes back as None.
pub struct Batch<R> {
    parallel: bool,
    tx: std::sync::mpsc::Sender<Option<R>>,
    rx: std::sync::mpsc::Receiver<Option<R>>,
    pending: usize,
}

impl<R: Send + 'static> Batch<R> {
    /// `parallel`: the caller's choice (a rank traced from its exec must
    /// be started by the main thread, and one rank gains nothing); honoured
    /// when there is more than one CPU and the starters exist.
    pub fn new(parallel: bool, cpus: usize) -> Batch<R> {
        let (tx, rx) = std::sync::mpsc::channel();
        Batch { parallel: parallel && cpus > 1 && starters().is_some(), tx, rx, pending: 0 }
    }

    pub fn submit(&mut self, spec: RankSpec, then: impl FnOnce(std::io::Result<Started>) -> R + Send + 'static) {
        let tx = self.tx.clone();
        // (every job answers once, a panic included: `finish` waits for
        // each, and a starter thread must outlive the ranks it started)
        let job = move || {
            let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| spawn(&spec)));
            let r = started.ok().and_then(|started| {
                let pid = started.as_ref().ok().map(|s| s.pid);
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| then(started)));
                if let (Err(_), Some(pid)) = (&r, pid) {
                    // A rank nobody will know of: its process group goes
                    // now, not when pmixrun does.
                    let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
                }
                r.ok()
            });
            let _ = tx.send(r);
        };
        self.pending += 1;
        match starters().filter(|_| self.parallel) {
            Some(pool) => {
                if let Err(back) = pool.send(Box::new(job)) {
                    (back.0)();
                }
            }
            None => job(),
        }
    }

    /// The results that have come back, without waiting.
    pub fn ready(&mut self) -> Vec<Option<R>> {
        let done: Vec<Option<R>> = self.rx.try_iter().collect();
        self.pending -= done.len();
        done
    }

    /// Every result not yet taken, waiting for each.
    pub fn finish(mut self) -> Vec<Option<R>> {
        let mut done = self.ready();
        while self.pending > 0 {
            // (the batch holds a sender: recv returns each job's result)
            if let Ok(r) = self.rx.recv() {
                done.push(r);
                self.pending -= 1;
            }
        }
        done
    }
}
