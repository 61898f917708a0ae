//! Spawn requests (PMIx_Spawn), relayed to the host's spawn upcall. For a
//! tool, two things a user expects of a launcher are done here, whatever
//! the host (issue 21): a program named by a relative path resolves
//! against the tool's working directory (an app that names no directory
//! runs there too), and when the spawn asks for its output (PMIX_FWD_STDOUT,
//! _STDERR, _STDDIAG, in the job's or an app's directives) the new job's
//! output goes to the requester, on the pull handle wire::SPAWNED_OUTPUT.

use crate::abi::*;
use crate::data::carray::CArray;
use crate::flags::Channels;
use crate::owned::{self, find, Info, Proc};
use crate::runtime::{ConnId, Handle, Net};
use crate::status::Res;

use super::host::{Host, Upcall};
use super::iof::{Iof, Origin};
use super::{reply, settled, ServerRole};
use crate::msg::Reply;

use crate::wire::SPAWNED_OUTPUT;

/// The output channels a spawn's directives ask to forward to the requester.
fn forwarded(info: &[Info], apps: &CArray) -> Channels {
    let mut all: Vec<Info> = info.to_vec();
    for a in apps.apps() {
        // SAFETY: the app's info array as decoded (ninfo elements or NULL).
        if let Ok(i) = unsafe { Info::copy_array(a.info, a.ninfo) } {
            all.extend(i);
        }
    }
    let mut ch = Channels::empty();
    for (key, c) in [(PMIX_FWD_STDOUT, Channels::STDOUT), (PMIX_FWD_STDERR, Channels::STDERR), (PMIX_FWD_STDDIAG, Channels::STDDIAG)] {
        if find(&all, key).is_some_and(|i| i.truthy()) {
            ch |= c;
        }
    }
    ch
}

/// The working directory of process `pid` (None: unknown or gone).
fn cwd_of(pid: i32) -> Option<std::path::PathBuf> {
    (pid > 0).then(|| std::fs::read_link(format!("/proc/{pid}/cwd")).ok()).flatten()
}

/// Apps that name no directory run in `cwd`; a relative program found there
/// (an executable file) is named by its full path.
fn in_directory(apps: &mut CArray, cwd: &std::path::Path) {
    let Some(dir) = cwd.to_str() else { return };
    for i in 0..apps.len {
        // SAFETY: element i of the app array this CArray owns; the strings
        // replaced are ours (the decoder's malloc), freed before replacing.
        unsafe {
            let a = &mut *(apps.ptr as *mut pmix_app_t).add(i);
            if a.cwd.is_null() {
                a.cwd = crate::cmem::strdup_bytes(dir.as_bytes());
            }
            let Some(cmd) = crate::cmem::cstr_bytes(a.cmd).map(|b| String::from_utf8_lossy(b).into_owned()) else { continue };
            if cmd.starts_with('/') {
                continue;
            }
            let here = cwd.join(&cmd);
            let runnable = std::fs::metadata(&here).is_ok_and(|m| m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0);
            if runnable {
                crate::cmem::free(a.cmd);
                a.cmd = crate::cmem::strdup_bytes(here.as_os_str().as_encoded_bytes());
            }
        }
    }
}

/// An event of the server's: its code, source and infos (its range: PMIX_RANGE_CUSTOM).
pub(super) type Event = (pmix_status_t, Proc, Vec<Info>);

/// What a spawn request needs of the role.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub handle: Handle<ServerRole>,
}

/// PMIx_Spawn from `who` (`tool_pid`: its pid, when it is a tool).
pub(super) fn on_spawn(cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, tool_pid: Option<i32>, info: Vec<Info>, mut apps: CArray) -> Res {
    if let Some(cwd) = tool_pid.and_then(cwd_of) {
        in_directory(&mut apps, &cwd);
    }
    let channels = forwarded(&info, &apps);
    let h = cx.handle.clone();
    let requester = who.clone();
    let u = cx.host.spawn(who, &info, &apps, Box::new(move |st, ns| {
        h.run(move |s, net| {
            reply(net, conn, req, Reply::Spawn { status: settled(st), nspace: ns.clone() });
            if settled(st) == PMIX_SUCCESS && !channels.is_empty() && !ns.is_empty() {
                s.forward_spawned(net, conn, &requester, &ns, channels);
            }
        });
    }));
    if let Upcall::Now(st) = u {
        reply(cx.net, conn, req, Reply::Spawn { status: settled(st), nspace: String::new() });
    }
    Ok(())
}

/// Job `ns` ended (every rank exited; `exit`: its first failing rank's
/// code, 0 if none): `requester` hears it as PMIX_EVENT_JOB_END (also
/// named PMIX_ERR_JOB_TERMINATED: one code), with the job
/// (PMIX_EVENT_AFFECTED_PROC), its status (PMIX_JOB_TERM_STATUS), the
/// exit code and, as text, its name. `me`: the server, its source.
pub(super) fn job_end(me: &Proc, ns: &str, exit: i32, requester: &Proc) -> Event {
    let status = if exit == 0 { PMIX_SUCCESS } else { PMIX_ERR_JOB_TERMINATED };
    let info = vec![
        Info::new("pmix.evproc", owned::Value::proc(&Proc::wildcard(ns))),
        Info::new("pmix.job.term.status", owned::Value::status(status)),
        Info::new("pmix.exit.code", owned::Value::int(exit)),
        Info::new("pmix.evtext", owned::Value::string(ns)),
        Info::new("pmix.evrange", owned::Value::procs(std::slice::from_ref(requester))),
    ];
    // (PMIX_EVENT_JOB_END is PMIX_ERR_JOB_TERMINATED's new name: one event)
    (PMIX_EVENT_JOB_END, me.clone(), info)
}

/// Ranks of a job stopped on exec by the launcher, held for a debugger:
/// `requester` (the tool that spawned the job) hears PMIX_READY_FOR_DEBUG,
/// with the held ranks and the breakpoint "exec" (None: none held).
pub(super) fn ready_for_debug(held: &[Proc], requester: &Proc) -> Option<Event> {
    let first = held.first()?;
    let source = Proc::wildcard(&first.nspace);
    let info = vec![
        Info::new("pmix.evaffected", owned::Value::procs(held)),
        Info::new("pmix.brkpnt", owned::Value::string("exec")),
        Info::new("pmix.evrange", owned::Value::procs(std::slice::from_ref(requester))),
    ];
    Some((PMIX_READY_FOR_DEBUG, source, info))
}

/// Release `procs` from PMIx_Init as a debugger would (the launcher does
/// it when no debugger is left to). `me`: the server, its source.
pub(super) fn release_from_init(me: &Proc, procs: &[Proc]) -> Event {
    let info = vec![Info::new("pmix.evrange", owned::Value::procs(procs)), Info::new("pmix.evnondef", owned::Value::boolean(true))];
    (PMIX_DEBUGGER_RELEASE, me.clone(), info)
}

/// The output of job `ns` on `channels` goes to `requester` from now on
/// (with what was written before, which the server kept); its sources'
/// origin: this host, and their pids by `pid_of`.
pub(super) fn forward_output(net: &mut Net, iof: &mut Iof, (hostname, pid_of): (&str, impl Fn(&Proc) -> u32), conn: ConnId, requester: &Proc, ns: &str, channels: Channels) {
    if !net.is_open(conn) {
        // (the requester left before its job started: the output is kept
        // for whoever pulls it, as for any job nobody forwards)
        return;
    }
    let id = iof.add_pull(conn, SPAWNED_OUTPUT, requester.clone(), vec![Proc::wildcard(ns)], channels);
    for (src, ch, (data, complete)) in iof.take_cached(id) {
        super::iof::send_iof(net, conn, SPAWNED_OUTPUT, &src, &Origin::new(hostname, pid_of(&src)), ch, &data, complete);
    }
}
