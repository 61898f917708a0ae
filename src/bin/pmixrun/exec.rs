//! Starting a rank without fork's cost: pmixrun starts each rank through
//! itself, posix_spawn'ed (the C library uses vfork-like clone: nothing of
//! pmixrun's memory is copied), and this first step of the child sets what
//! a rank starts with, then execs the program.
//!
//! Why: a fork copies the launcher's page tables, and a launcher serving a
//! thousand ranks holds hundreds of megabytes while it starts them (their
//! connections, their job data), so forking rank after rank made a launch of
//! N ranks cost N^2. posix_spawn cannot set what a rank needs (parent-death
//! signal, CPU binding), so the spawned pmixrun does it and execs.
//!
//! The step is told what to do by one environment variable, removed before
//! the exec: `PMIXRUN_EXEC=<launcher pid>;<cpu list or empty>[;trace]`.
//! With `trace` the rank stops at its exec for a debugger (debug.rs).

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::sys::signal::{signal, SigHandler, SigSet, Signal};

pub const VAR: &str = "PMIXRUN_EXEC";

/// The value of `VAR` for a rank.
pub fn directive(launcher: u32, cpus: Option<&pmix::topology::CpuSet>, stop_on_exec: bool) -> String {
    let cpus = cpus.map(pmix::topology::format_list).unwrap_or_default();
    if stop_on_exec {
        format!("{launcher};{cpus};trace")
    } else {
        format!("{launcher};{cpus}")
    }
}

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

/// In the spawned pmixrun: when `VAR` is set, become the rank (never
/// returns); otherwise return and run as the launcher.
pub fn run_if_asked() {
    let Some(spec) = std::env::var_os(VAR) else { return };
    std::env::remove_var(VAR);
    let spec = spec.to_string_lossy().into_owned();
    let mut fields = spec.split(';');
    let launcher = fields.next().unwrap_or_default();
    let cpus = fields.next().unwrap_or_default();
    let stop_on_exec = fields.next() == Some("trace");
    let fail = |what: &str, code: i32| -> ! {
        eprintln!("pmixrun: cannot start the rank: {what}");
        std::process::exit(code)
    };
    if !cpus.is_empty() {
        match pmix::topology::parse_list(cpus) {
            Some(set) => {
                if let Err(e) = pmix::topology::bind_self(&pmix::topology::mask_of(&set)) {
                    fail(&format!("binding to CPUs {cpus}: {e}"), 126);
                }
            }
            None => fail(&format!("bad CPU list '{cpus}'"), 126),
        }
    }
    // Nothing of the job outlives pmixrun, even a SIGKILL'ed one: the kernel
    // kills the rank when the thread that started it ends (pmixrun's main
    // thread, which lives as long as pmixrun); the signal survives the exec.
    // Then, in case pmixrun died before that was set: is it still our parent?
    if let Err(e) = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
        fail(&format!("parent-death signal: {e}"), 126);
    }
    if launcher.parse::<i32>().ok() != Some(nix::unistd::getppid().as_raw()) {
        std::process::exit(126); // pmixrun is gone
    }
    // A rank starts with default dispositions and no blocked signal,
    // whatever pmixrun inherited.
    for sig in Signal::iterator().filter(|s| !matches!(s, Signal::SIGKILL | Signal::SIGSTOP)) {
        // SAFETY: resetting to the default disposition installs no handler.
        let _ = unsafe { signal(sig, SigHandler::SigDfl) };
    }
    let _ = SigSet::all().thread_unblock();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Some(program) = args.first() else { fail("no program", 127) };
    let to_c = |s: &OsString| CString::new(s.as_bytes()).unwrap_or_else(|_| fail("an argument holds a NUL byte", 127));
    let argv: Vec<CString> = args.iter().map(to_c).collect();
    // Stop on exec: traced by the thread that started us (the launcher's
    // main thread), the exec below stops us with SIGTRAP in the program.
    // SAFETY: PTRACE_TRACEME takes no pointer arguments.
    if stop_on_exec && unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) } != 0 {
        fail(&format!("stop on exec: {}", std::io::Error::last_os_error()), 126);
    }
    let err = nix::unistd::execvp(&to_c(program), &argv).unwrap_err();
    fail(&format!("{}: {err}", program.to_string_lossy()), if err == nix::errno::Errno::ENOENT { 127 } else { 126 })
}
