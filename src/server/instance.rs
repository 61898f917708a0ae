//! The server of this process (at most one): PMIx_server_init and
//! _finalize, the handle other threads reach it by, and the topology the
//! host gave.

use parking_lot::Mutex;

use crate::abi::*;
use crate::owned::{find, Info, Proc};
use crate::runtime::{self, Handle};
use crate::status::Res;
use crate::wire;

use super::host::Host;
use super::{credential, openpmix, session, setup, ServerRole};

/// The running server of this process (at most one).
pub struct ServerGlobal {
    pub handle: Handle<ServerRole>,
    pub engine: runtime::Engine<ServerRole>,
    pub session: session::SessionDir,
    pub me: Proc,
    /// Rendezvous files for tools (PMIX_SERVER_TOOL/SESSION/SYSTEM_SUPPORT).
    pub rendezvous: Vec<crate::rendezvous::Rendezvous>,
    /// Where OpenPMIx clients connect (None: it could not listen).
    tcp: Option<openpmix::Listener>,
}

pub static SERVER: Mutex<Option<ServerGlobal>> = Mutex::new(None);

/// A topology the host gave at server init (PMIX_TOPOLOGY2, or the
/// deprecated PMIX_TOPOLOGY): this process's PMIx_Load_topology returns it,
/// and its XML goes into every namespace's job data (PMIX_HWLOC_XML_V2) so
/// the clients load it too.
pub struct HostTopology {
    pub topology: usize,
    pub source: String,
    pub(super) xml: Option<String>,
}

pub(super) static HOST_TOPOLOGY: Mutex<Option<HostTopology>> = Mutex::new(None);

/// (topology pointer, source) of the host's topology, if it gave one.
pub fn host_topology() -> Option<(usize, String)> {
    HOST_TOPOLOGY.lock().as_ref().map(|t| (t.topology, t.source.clone()))
}

/// Note the topology a C host passes to PMIx_server_init (PMIX_TOPOLOGY2,
/// or the deprecated PMIX_TOPOLOGY), read from its own infos: a copy of the
/// value would be a duplicate, and this process's PMIx_Load_topology must
/// return the host's very pointer. Its XML is made for the clients.
pub fn note_host_topology(info: &[pmix_info_t]) {
    let key = |i: &pmix_info_t, k: &core::ffi::CStr| {
        // SAFETY: an info's key is a NUL-terminated array (bounded read).
        unsafe { crate::owned::key_of(i.key.as_ptr()) }.is_some_and(|x| x.as_bytes() == k.to_bytes())
    };
    let given = info
        .iter()
        .find(|i| key(i, PMIX_TOPOLOGY2) && i.value.r#type == PMIX_TOPO)
        .and_then(|i| {
            // SAFETY: a PMIX_TOPO value holds NULL or a topology pointer that
            // the host keeps alive for the server's life.
            unsafe {
                let t = i.value.data.topo;
                if t.is_null() || (*t).topology.is_null() {
                    return None;
                }
                let source = crate::cmem::cstr_bytes((*t).source).map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_else(|| "hwloc".into());
                Some(((*t).topology as usize, source))
            }
        })
        .or_else(|| {
            let i = info.iter().find(|i| key(i, PMIX_TOPOLOGY) && i.value.r#type == PMIX_POINTER)?;
            // SAFETY: a PMIX_POINTER value's pointer (an hwloc topology, by the key's definition).
            let p = unsafe { i.value.data.ptr };
            (!p.is_null()).then(|| (p as usize, "hwloc".to_string()))
        });
    let Some((topology, source)) = given else {
        *HOST_TOPOLOGY.lock() = None;
        return;
    };
    // SAFETY: an hwloc topology, by its source; the host keeps it loaded.
    let xml = crate::hwlib::names_hwloc(source.as_bytes()).then(|| unsafe { crate::hwlib::export_xml(topology as *mut core::ffi::c_void) }).flatten();
    if xml.is_none() {
        crate::pmix_debug!(1, "PMIx_server_init: the host's topology ({source}) cannot be exported for the clients");
    }
    *HOST_TOPOLOGY.lock() = Some(HostTopology { topology, source, xml });
}

/// The process that initialised the server (0: none). A fork child of it
/// has the server's memory but not its progress thread.
static SERVER_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The running server's handle (None when not initialised, and in a fork
/// child of the server's process: there a request would wait for a progress
/// thread that does not exist, and the lock may be held by a thread that is
/// gone; every server call answers PMIX_ERR_INIT instead, except setup_fork,
/// which needs neither).
pub fn handle() -> Option<Handle<ServerRole>> {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return None;
    }
    SERVER.lock().as_ref().map(|g| g.handle.clone())
}

/// The running server's own name (its process in the server role).
pub fn own_proc() -> Option<Proc> {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return None;
    }
    SERVER.lock().as_ref().map(|g| g.me.clone())
}

/// PMIX_SERVER_SYS_CONTROLLER: not in the 4.2.2 header (later PMIx versions
/// define it), accepted here by its string.
const SERVER_SYS_CONTROLLER: &core::ffi::CStr = c"pmix.srv.ctrlr";

/// Start the server: session directory, listening socket, progress thread.
pub fn init(host: Box<dyn Host>, info: &[Info]) -> Res<Proc> {
    let mut g = SERVER.lock();
    if g.is_some() {
        return Err(PMIX_ERR_INIT);
    }
    let hostname = crate::rendezvous::hostname();
    let tmpdir = crate::rendezvous::server_tmpdir(info);
    let system_tmpdir = crate::rendezvous::system_tmpdir(info);
    let pid = std::process::id();
    let me = Proc::new(
        &find(info, PMIX_SERVER_NSPACE).and_then(|i| i.as_str()).unwrap_or_else(|| format!("rpmix.{hostname}.{pid}")),
        find(info, PMIX_SERVER_RANK).and_then(|i| i.as_u32()).unwrap_or(0),
    );
    let backends = setup::select(std::env::var("PMIX_MCA_pnet").ok().as_deref())?;
    let flag = |k| find(info, k).is_some_and(|i| i.truthy());
    // At most one system server, scheduler and system controller per node:
    // their rendezvous files have fixed names tools look for.
    let sysdir = std::path::PathBuf::from(&system_tmpdir);
    let exclusive: Vec<std::path::PathBuf> = [
        (flag(PMIX_SERVER_SYSTEM_SUPPORT), format!("pmix.sys.{hostname}")),
        (flag(PMIX_SERVER_SCHEDULER), format!("pmix.sched.{hostname}")),
        (flag(SERVER_SYS_CONTROLLER), format!("pmix.sysctrlr.{hostname}")),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| sysdir.join(name))
    .collect();
    if let Some(taken) = exclusive.iter().find(|f| crate::rendezvous::occupied(f)) {
        crate::pmix_debug!(1, "PMIx_server_init: {} exists and names a running server: only one per node", taken.display());
        return Err(PMIX_ERR_EXISTS);
    }
    // What servers of ours that were killed left here goes first.
    session::sweep_stale(&tmpdir, &format!("rpmix.{hostname}."));
    crate::rendezvous::sweep_stale(std::path::Path::new(&tmpdir), &format!("pmix.{hostname}.tool."));
    let mut session = session::SessionDir::create(&tmpdir, &format!("rpmix.{hostname}.{pid}"))?;
    session.rm_clean = flag(PMIX_TDIR_RMCLEAN);
    let sock_path = session.path.join("server.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock_path).map_err(|e| {
        crate::pmix_debug!(1, "PMIx_server_init: cannot listen on {}: {e}", sock_path.display());
        PMIX_ERR_INIT
    })?;
    listener.set_nonblocking(true).map_err(|_| PMIX_ERR_INIT)?;
    let listener = mio::net::UnixListener::from_std(listener);
    let mut role = ServerRole::new(host, me.clone(), hostname.clone());
    let cred_key = credential::Key::new();
    role.cred_key = cred_key;
    role.enable_monitoring = find(info, PMIX_SERVER_ENABLE_MONITORING).is_some_and(|i| i.truthy());
    if let Some(n) = find(info, PMIX_IOF_CACHE_SIZE).and_then(|i| i.as_u32()) {
        role.iof.cache_size = n as usize;
    }
    role.iof.drop_newest = find(info, PMIX_IOF_DROP_NEWEST).is_some_and(|i| i.truthy());
    role.session_dir = Some(session.clone());
    let engine = runtime::start(role, Some(listener), Vec::new(), "pmix-server").map_err(|_| PMIX_ERR_INIT)?;
    let handle = engine.handle.clone();
    let contact = wire::contact(&me.nspace, me.rank, &sock_path.to_string_lossy());
    let tcp = openpmix::Listener::start(handle.clone())
        .inspect_err(|e| crate::pmix_debug!(1, "PMIx_server_init: no TCP listener for OpenPMIx clients: {e}"))
        .ok();
    let openpmix_contact = tcp.as_ref().map(|l| l.contact(&me));
    setup::start(backends, fork_vars(&contact, openpmix_contact.as_deref(), &tmpdir, &system_tmpdir, &hostname), cred_key);
    let mut rendezvous = Vec::new();
    let mut files = exclusive;
    if flag(PMIX_SERVER_TOOL_SUPPORT) {
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool.{pid}")));
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool.{}", me.nspace)));
    }
    if flag(PMIX_SERVER_SESSION_SUPPORT) {
        files.push(std::path::PathBuf::from(&tmpdir).join(format!("pmix.{hostname}.tool")));
    }
    // Where the tool that started this launcher waits for its contact.
    if let Some(f) = find(info, PMIX_LAUNCHER_RENDEZVOUS_FILE).and_then(|i| i.as_str()).or_else(|| std::env::var("PMIX_LAUNCHER_RENDEZVOUS_FILE").ok()) {
        files.push(std::path::PathBuf::from(f));
    }
    for f in files {
        rendezvous.extend(crate::rendezvous::Rendezvous::write(f, &contact, openpmix_contact.as_deref().map(|c| (c, crate::ptl::SPOKEN_VERSION))));
    }
    *g = Some(ServerGlobal { handle, engine, session, me: me.clone(), rendezvous, tcp });
    SERVER_PID.store(std::process::id(), std::sync::atomic::Ordering::Relaxed);
    Ok(me)
}

/// Stop the server, also with clients and namespaces still registered.
pub fn finalize() -> Res {
    if SERVER_PID.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return Err(PMIX_ERR_INIT); // not the server's process (a fork child of it)
    }
    SERVER_PID.store(0, std::sync::atomic::Ordering::Relaxed);
    let taken = SERVER.lock().take();
    let Some(mut g) = taken else { return Err(PMIX_ERR_INIT) };
    drop(g.tcp.take()); // (no new OpenPMIx clients: its thread ends here)
    g.handle.run(|_, net| net.stop());
    if let Some(t) = g.engine.thread.take() {
        let _ = t.join();
    }
    g.session.remove();
    setup::stop();
    Ok(())
}

/// The variables every child of this server gets, whatever its rank: our
/// own contact for rpmix's clients, OpenPMIx's (TCP) where OpenPMIx's
/// clients look, with the store and buffer form they must announce.
fn fork_vars(contact: &str, openpmix: Option<&str>, tmpdir: &str, system_tmpdir: &str, hostname: &str) -> Vec<(String, String)> {
    let mut env = vec![(wire::RPMIX_URI_VAR.to_string(), contact.to_string())];
    for v in wire::URI_VARS {
        env.push((v.to_string(), openpmix.unwrap_or(contact).to_string()));
    }
    if openpmix.is_some() {
        env.push(("PMIX_GDS_MODULE".into(), "hash".into()));
        env.push(("PMIX_BFROP_BUFFER_TYPE".into(), "PMIX_BFROP_BUFFER_NON_DESC".into()));
    }
    // OpenPMIx's clients take it as the server's version and pick their
    // compatibility branches by it: the version whose protocol we speak.
    env.push(("PMIX_VERSION".into(), crate::ptl::SPOKEN_VERSION.into()));
    env.push(("PMIX_SERVER_TMPDIR".into(), tmpdir.to_string()));
    env.push(("PMIX_SYSTEM_TMPDIR".into(), system_tmpdir.to_string()));
    env.push(("PMIX_HOSTNAME".into(), hostname.to_string()));
    env.push(("PMIX_SECURITY_MODE".into(), "native".into()));
    env
}
