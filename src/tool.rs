//! The tool role: a process that is not a registered client connects to a
//! server it finds by URI, by the server's pid, or through its environment.
//! A connected tool uses the client machinery (Query, Get, Log, events).

use std::path::Path;

use crate::abi::*;
use crate::status::Res;
use crate::owned::{find, Info, Proc};
use crate::wire;

/// Where a tool connects for `uri`, and the contact itself: rpmix's
/// contacts name a socket path; OpenPMIx's (`tcp4://`) stand for themselves.
fn locate(uri: &str) -> Option<(String, String)> {
    if let Some((_, _, path)) = wire::parse_contact(uri) {
        return Some((path, uri.to_string()));
    }
    crate::ptl::parse_contact(uri).map(|_| (uri.to_string(), uri.to_string()))
}

/// The contact in the rendezvous file at `path`, located.
fn located_file(path: &Path) -> Option<(String, String)> {
    crate::rendezvous::read_rendezvous(path).and_then(|u| locate(&u))
}

/// How deep under the system temporary directory a server's rendezvous
/// file is looked for (OpenPMIx-based launchers write theirs in their own
/// session directories, e.g. PRRTE's `<tmp>/prte.<host>.<uid>/dvm.<pid>/`),
/// and how many directory entries the search reads at most.
const SEARCH_DEPTH: usize = 3;
const SEARCH_ENTRIES: usize = 20_000;

/// Find a rendezvous file named exactly `name` under `dir`, descending
/// `depth` levels, never through a symlink, taking only files owned by us
/// or by root (another user's file could send us to their server).
fn search_rendezvous(dir: &Path, name: &str, depth: usize, budget: &mut usize) -> Option<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    let mut subdirs = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let Ok(md) = std::fs::symlink_metadata(e.path()) else { continue };
        if md.file_type().is_dir() && depth > 0 {
            subdirs.push(e.path());
        } else if md.file_type().is_file() && e.file_name().to_str() == Some(name) && (md.uid() == me || md.uid() == 0) {
            if let Some(found) = located_file(&e.path()) {
                return Some(found);
            }
        }
    }
    subdirs.into_iter().find_map(|d| search_rendezvous(&d, name, depth - 1, budget))
}

/// The rendezvous file `name` of a server with tool support: in the server
/// temporary directory, else anywhere under the system one.
fn rendezvous_named(name: &str, infos: &[Info]) -> Option<(String, String)> {
    let direct = Path::new(&crate::rendezvous::server_tmpdir(infos)).join(name);
    located_file(&direct).or_else(|| {
        let mut budget = SEARCH_ENTRIES;
        search_rendezvous(Path::new(&crate::rendezvous::system_tmpdir(infos)), name, SEARCH_DEPTH, &mut budget)
    })
}

/// The one session server this user runs on the node, when nothing names a
/// server (as OpenPMIx's tools search): the rendezvous files directly in the
/// system temporary directory whose names start `pmix.<host>.tool`, owned by
/// us, that lead to a server. All of them must lead to the same server (a
/// server writes one under its pid and one under its namespace): none, or
/// several servers, is PMIX_ERR_UNREACH.
fn session_server(infos: &[Info]) -> Res<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let prefix = format!("pmix.{}.tool", crate::rendezvous::hostname());
    let me = nix::unistd::geteuid().as_raw();
    let dir = crate::rendezvous::system_tmpdir(infos);
    let mut found: Vec<(String, String)> = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(|_| PMIX_ERR_UNREACH)?.flatten().take(SEARCH_ENTRIES) {
        if !e.file_name().to_str().is_some_and(|n| n.starts_with(&prefix)) {
            continue;
        }
        let Ok(md) = std::fs::symlink_metadata(e.path()) else { continue };
        if !md.file_type().is_file() || md.uid() != me {
            continue;
        }
        if let Some(s) = located_file(&e.path()) {
            if !found.contains(&s) {
                found.push(s);
            }
        }
    }
    match found.len() {
        0 => Err(PMIX_ERR_UNREACH),
        1 => Ok(found.remove(0)),
        n => {
            crate::pmix_debug!(1, "PMIx_tool_init: {n} servers of this user in {dir}; name one (PMIX_SERVER_PIDINFO, PMIX_SERVER_URI, ...)");
            Err(PMIX_ERR_UNREACH)
        }
    }
}

/// The server of process `pid`: its rendezvous file (any server with tool
/// support writes `pmix.<host>.tool.<pid>`), else rpmix's socket in the
/// session directory named after the pid (`<tmpdir>/rpmix.<host>.<pid>`;
/// a directory left by an earlier process with the same pid makes the
/// server take a suffixed name, which only the rendezvous file tells).
fn server_of_pid(pid: u32, infos: &[Info]) -> (String, String) {
    let host = crate::rendezvous::hostname();
    rendezvous_named(&format!("pmix.{host}.tool.{pid}"), infos).unwrap_or_else(|| {
        let tmp = crate::rendezvous::server_tmpdir(infos);
        (format!("{tmp}/rpmix.{host}.{pid}/server.sock"), format!("pid:{pid}"))
    })
}

/// Read a contact from `file:<path>` (first line).
fn contact_from(uri: &str) -> Option<String> {
    match uri.strip_prefix("file:") {
        Some(p) => std::fs::read_to_string(p).ok()?.lines().next().map(str::to_string),
        None => Some(uri.to_string()),
    }
}

pub fn init(infos: &[Info]) -> Res<Proc> {
    let pid = std::process::id();
    let host = crate::rendezvous::hostname();
    let given = match (find(infos, PMIX_TOOL_NSPACE).and_then(|i| i.as_str()), find(infos, PMIX_TOOL_RANK).and_then(|i| i.as_u32())) {
        (Some(ns), Some(r)) => Some(Proc::new(&ns, r)),
        (None, None) => None,
        _ => return Err(PMIX_ERR_BAD_PARAM),
    };
    if find(infos, PMIX_TOOL_DO_NOT_CONNECT).is_some_and(|i| i.truthy()) {
        let me = given.unwrap_or_else(|| Proc::new(&format!("{host}.{pid}"), 0));
        return Ok(crate::client::init_standalone(me));
    }
    match with_retries(infos, || connect_any(infos, |path, uri| crate::client::init_tool(path, uri, given.as_ref()))) {
        Ok(p) => Ok(p),
        Err(e) if find(infos, PMIX_TOOL_CONNECT_OPTIONAL).is_some_and(|i| i.truthy()) => {
            crate::pmix_debug!(1, "PMIx_tool_init: no server ({}), continuing unconnected", crate::strings::error_name(e));
            Ok(crate::client::init_standalone(given.unwrap_or_else(|| Proc::new(&format!("{host}:{pid}"), 0))))
        }
        Err(e) => Err(e),
    }
}

/// Run `connect` until it succeeds, retrying a server that is not there (yet)
/// PMIX_CONNECT_MAX_RETRIES times, PMIX_CONNECT_RETRY_DELAY seconds apart
/// (default 1), and at most until PMIX_TIMEOUT seconds have passed.
fn with_retries<T>(infos: &[Info], mut connect: impl FnMut() -> Res<T>) -> Res<T> {
    use std::time::{Duration, Instant};
    let retries = find(infos, PMIX_CONNECT_MAX_RETRIES).and_then(|i| i.as_u32()).unwrap_or(0);
    let delay = Duration::from_secs(find(infos, PMIX_CONNECT_RETRY_DELAY).and_then(|i| i.as_u32()).unwrap_or(1) as u64);
    let deadline = find(infos, PMIX_TIMEOUT).and_then(|i| i.as_u32()).filter(|t| *t > 0).map(|t| Instant::now() + Duration::from_secs(t as u64));
    let mut attempt = 0;
    loop {
        match connect() {
            Err(e) if matches!(e, PMIX_ERR_UNREACH | PMIX_ERR_NOT_FOUND | PMIX_ERR_LOST_CONNECTION | PMIX_ERR_TIMEOUT) && attempt < retries => {
                attempt += 1;
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(PMIX_ERR_TIMEOUT);
                }
                let wait = deadline.map_or(delay, |d| delay.min(d.saturating_duration_since(Instant::now())));
                crate::pmix_debug!(5, "PMIx_tool_init: no server yet ({}); retry {attempt} of {retries} in {wait:?}", crate::strings::error_name(e));
                std::thread::sleep(wait);
            }
            r => return r,
        }
    }
}

/// The system server's (socket path, contact), from its rendezvous file.
fn system_server(infos: &[Info]) -> Res<(String, String)> {
    let host = crate::rendezvous::hostname();
    let f = format!("{}/pmix.sys.{host}", crate::rendezvous::system_tmpdir(infos));
    located_file(Path::new(&f)).ok_or(PMIX_ERR_UNREACH)
}

/// Connect to the server `infos` name; with PMIX_CONNECT_SYSTEM_FIRST to the
/// system server if there is one that answers, else the way find_server says.
fn connect_any<T>(infos: &[Info], connect: impl Fn(&str, &str) -> Res<T>) -> Res<T> {
    if find(infos, PMIX_CONNECT_SYSTEM_FIRST).is_some_and(|i| i.truthy()) && find(infos, PMIX_SERVER_URI).is_none() {
        match system_server(infos).and_then(|(p, u)| connect(&p, &u)) {
            Ok(t) => return Ok(t),
            Err(e) => crate::pmix_debug!(5, "PMIx_tool_init: no system server answers ({}); trying the other ways", crate::strings::error_name(e)),
        }
    }
    let (path, uri) = find_server(infos)?;
    connect(&path, &uri)
}

/// Where the server named by `infos` listens: (socket path, contact). The
/// search order: URI, attachment file, system server (PMIX_CONNECT_TO_SYSTEM),
/// server pid, server namespace, the contact in our environment, then the
/// system server, then this user's one session server.
pub fn find_server(infos: &[Info]) -> Res<(String, String)> {
    let host = crate::rendezvous::hostname();
    let flag = |k| find(infos, k).is_some_and(|i| i.truthy());
    let uri = find(infos, PMIX_SERVER_URI)
        .or_else(|| find(infos, PMIX_TCP_URI))
        .and_then(|i| i.as_str())
        .and_then(|u| contact_from(&u));
    let (path, uri) = if let Some(u) = uri {
        locate(&u).ok_or(PMIX_ERR_BAD_PARAM)?
    } else if let Some(f) = find(infos, PMIX_TOOL_ATTACHMENT_FILE).or_else(|| find(infos, PMIX_LAUNCHER_RENDEZVOUS_FILE)).and_then(|i| i.as_str()) {
        // (a launcher this tool started writes its contact to the latter)
        located_file(Path::new(&f)).ok_or(PMIX_ERR_UNREACH)?
    } else if flag(PMIX_CONNECT_TO_SYSTEM) {
        system_server(infos)?
    } else if let Some(spid) = find(infos, PMIX_SERVER_PIDINFO).and_then(|i| i.as_u32()) {
        server_of_pid(spid, infos)
    } else if let Some(ns) = find(infos, PMIX_SERVER_NSPACE).and_then(|i| i.as_str()) {
        // The rendezvous file a server with tool support writes under its namespace.
        if ns.contains('/') || ns.starts_with('.') {
            crate::pmix_debug!(1, "PMIx_tool_init: bad server namespace {ns:?}");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        rendezvous_named(&format!("pmix.{host}.tool.{ns}"), infos).ok_or(PMIX_ERR_UNREACH)?
    } else if let Some(u) = wire::own_contact_from_env().or_else(|| wire::URI_VARS.iter().find_map(|v| std::env::var(v).ok())) {
        locate(&u).ok_or(PMIX_ERR_UNREACH)?
    } else {
        // Nothing said: the node's system server, if there is one (OpenPMIx's
        // debugger.c says nothing and expects it), else the one session
        // server of this user, as OpenPMIx's tools search.
        system_server(infos)
            .or_else(|_| session_server(infos))
            .inspect_err(|_| crate::pmix_debug!(1, "PMIx_tool_init: no server named, no system server and no one session server of ours"))?
    };
    Ok((path, uri))
}

/// Attach to the server `infos` name (PMIx_tool_attach_to_server,
/// PMIx_tool_connect_to_server): (our name, the server).
pub fn attach(infos: &[Info], primary: bool) -> Res<(Proc, Proc)> {
    with_retries(infos, || connect_any(infos, |path, uri| crate::client::attach_tool(path, uri, primary)))
}
