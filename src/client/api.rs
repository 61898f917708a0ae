//! Client operations behind the `PMIx_*` entries: each takes Rust values and
//! a `Completion` that runs exactly once (on the progress thread when there
//! is one; on the caller's thread when the answer needs no server, which
//! the C entry points defer so that no callback runs inside its call).

use crate::abi::*;
use crate::status::Res;
use crate::owned::{find, procs_of_value, Info, Proc, Value};
use crate::runtime::{Completion, Oneshot};
use crate::data::carray::CArray;
use crate::data::kind::Kind;
use crate::msg::{Collective, Group, GroupOp, IofPull, IofPush, Monitor, Reply, Request};

use super::{cache, direct, handle, me, Waiter, CLIENT};

pub type Done = Completion<()>;
pub use super::waiter::ReplyDone;
/// What a lookup found: each key's publisher and value.
pub type LookupDone = Completion<Vec<(Proc, Info)>>;
/// A credential's bytes and the infos that describe it.
pub type CredentialDone = Completion<(Vec<u8>, Vec<Info>)>;

/// What a call answers when this process has no server connection.
fn no_server() -> pmix_status_t {
    if me().is_some() {
        PMIX_ERR_UNREACH
    } else {
        PMIX_ERR_INIT
    }
}

/// Send `req` from this thread; `done` gets the server's answer (on the
/// progress thread; here at once, its status alone, when it cannot be sent).
pub fn request(req: Request, done: ReplyDone) {
    match direct() {
        Some(d) => d.request(req, Waiter::Plain(done)),
        None => done(Reply::Status(no_server())),
    }
}

/// Block for a request (PMIX_ERR_WOULD_BLOCK inside a callback, where waiting would deadlock).
pub fn request_wait(req: Request) -> Reply {
    if crate::runtime::on_progress_thread() {
        return Reply::Status(PMIX_ERR_WOULD_BLOCK);
    }
    let done = Oneshot::new();
    let d = done.clone();
    super::link::wait_for(done, || request(req, Box::new(move |r| d.set(r)))).unwrap_or(Reply::Status(PMIX_ERR_LOST_CONNECTION))
}

// ---- Put / Commit ----

pub fn put(scope: pmix_scope_t, info: Info) -> Res {
    let mut g = CLIENT.lock();
    let c = g.as_mut().ok_or(PMIX_ERR_INIT)?;
    c.cache.put(&c.me, vec![info.clone()]);
    if scope != PMIX_INTERNAL {
        c.puts.retain(|(_, i)| i.key() != info.key());
        c.puts.push((scope, info));
    }
    Ok(())
}

pub fn commit() -> Res {
    let puts = {
        let mut g = CLIENT.lock();
        let c = g.as_mut().ok_or(PMIX_ERR_INIT)?;
        std::mem::take(&mut c.puts)
    };
    if puts.is_empty() {
        return Ok(());
    }
    // Commit needs no answer: the server applies it before any later request on the connection.
    let d = direct().ok_or(PMIX_ERR_UNREACH)?;
    match d.send(Request::Commit { puts }) {
        PMIX_SUCCESS => Ok(()),
        st => Err(st),
    }
}

// ---- fences, connect, disconnect ----

pub fn barrier(collective: Collective, procs: Vec<Proc>, info: Vec<Info>, done: Done) {
    let me = me();
    // Alone (a singleton, or only ourselves named): nothing to wait for.
    if let Some(me) = &me {
        let only_me = procs.is_empty() || procs.iter().all(|p| p.names(me));
        if handle().is_none() && only_me {
            return done.status(PMIX_SUCCESS);
        }
    }
    let records = cache();
    request(Request::barrier(collective, procs, info), Box::new(move |r| {
        let st = r.status();
        if let (Reply::Barrier { status: PMIX_SUCCESS, records: data, .. }, Some(c)) = (r, records) {
            for (p, infos) in data {
                c.put(&p, infos);
            }
        }
        done.status(st)
    }));
}

// ---- Get ----

/// What a Get resolves to when the cache can answer without the server.
fn get_local(target: &Proc, key: &str) -> Option<Value> {
    let me = me()?;
    if key == "pmix.procid" && (target.nspace == me.nspace) {
        return Some(Value::proc(&me));
    }
    if let Some(v) = cache().and_then(|c| c.get(target, key)) {
        return Some(v);
    }
    if key == "pmix.appnum" && target.nspace == me.nspace {
        // Hosts that run one app often do not register it (Open MPI's mpirun); it is 0.
        return Some(Value::u32(0));
    }
    None
}

/// PMIx_Get / Get_nb core. `target` None = own namespace (own data first).
pub fn get(target: Option<Proc>, key: String, info: Vec<Info>, done: Completion<Option<Value>>) {
    if key.is_empty() {
        return get_all(target, info, done);
    }
    let Some(me) = me() else { return done.fire(PMIX_ERR_INIT, None) };
    let target = target.unwrap_or_else(|| me.clone());
    // A Get restricted to one scope, or qualified by a group's context id,
    // asks the server, which keeps the scopes and the qualified data; so
    // does a Get of the process sets a proc is in (they change).
    let scoped = answered_as_asked(&key, &info);
    if scoped && handle().is_some() {
        return get_remote(target, key, info, done);
    }
    if let Some(v) = get_local(&target, &key) {
        return done.fire(PMIX_SUCCESS, Some(v));
    }
    if target.rank != PMIX_RANK_WILDCARD {
        if let Some(v) = cache().and_then(|c| c.get(&Proc::wildcard(&target.nspace), &key)) {
            return done.fire(PMIX_SUCCESS, Some(v));
        }
    }
    // Our namespace's and a rank's own directory are not in the job data
    // sent at init: rpmix's server makes each the first time it is asked
    // for, so the server is asked, even for an optional Get (which Open
    // MPI's are).
    let made_when_asked = key == "pmix.nsdir" || (key == "pmix.pdir" && target.rank != PMIX_RANK_WILDCARD);
    if made_when_asked && target.nspace == me.nspace && handle().is_some() {
        return get_remote(target, key, with_immediate(info), done);
    }
    let optional = find(&info, PMIX_OPTIONAL).is_some_and(|i| i.truthy());
    let refresh = find(&info, PMIX_GET_REFRESH_CACHE).is_some_and(|i| i.truthy());
    if optional && !refresh {
        return done.fire(PMIX_ERR_NOT_FOUND, None);
    }
    // Our own data is all here (what we put, and what the server gave us at
    // init): asking the server would wait for a commit of ours that may never come.
    if target == me && !refresh {
        crate::pmix_debug!(5, "PMIx_Get: {key} of {target} (ourselves) not found");
        return done.fire(PMIX_ERR_NOT_FOUND, None);
    }
    if handle().is_none() {
        return done.fire(PMIX_ERR_NOT_FOUND, None);
    }
    // A reserved key of our own job that we do not hold is, as a rule, one the
    // host never registered: the server answers with what it has at once
    // instead of waiting for a commit (as OpenPMIx does). Otherwise two ranks
    // asking for each other's PMIX_FABRIC_COORDINATES would wait for each other.
    // Reserved means the "pmix." prefix (OpenPMIx checks only "pmix"): a key a
    // program made from its namespace, e.g. "pmixjob.12.1-1-local", is waited for.
    let info = if key.starts_with("pmix.") && target.nspace == me.nspace { with_immediate(info) } else { info };
    get_remote(target, key, info, done)
}

/// `info` with PMIX_IMMEDIATE (unless it says otherwise): answered with
/// what the server has, never waited for.
fn with_immediate(mut info: Vec<Info>) -> Vec<Info> {
    if find(&info, PMIX_IMMEDIATE).is_none() {
        info.push(Info::new("pmix.immediate", Value::boolean(true)));
    }
    info
}

/// PMIx_Get with a NULL key: everything held for one rank, as a
/// PMIX_DATA_ARRAY of PMIX_INFO (OpenPMIx's answer; Open MPI's mpirun reads
/// its daemons' wire-up this way). Not for a whole job (rank wildcard).
fn get_all(target: Option<Proc>, info: Vec<Info>, done: Completion<Option<Value>>) {
    let Some(target) = target.filter(|t| t.rank != PMIX_RANK_WILDCARD) else {
        crate::pmix_debug!(1, "PMIx_Get: a NULL key needs one named rank");
        return done.fire(PMIX_ERR_BAD_PARAM, None);
    };
    let answer = |infos: Vec<Info>| if infos.is_empty() { (PMIX_ERR_NOT_FOUND, None) } else { (PMIX_SUCCESS, Some(Value::infos(&infos))) };
    let Some(me) = me() else { return done.fire(PMIX_ERR_INIT, None) };
    if target == me || handle().is_none() {
        let (st, v) = answer(cache().map(|c| c.all_of(&target)).unwrap_or_default());
        return done.fire(st, v);
    }
    get_remote(target.clone(), String::new(), info, crate::runtime::Completion::new(move |st, _| {
        if st != PMIX_SUCCESS {
            return done.fire(st, None);
        }
        let (st, v) = answer(cache().map(|c| c.all_of(&target)).unwrap_or_default());
        done.fire(st, v)
    }));
}

/// A Get whose answer is the server's for exactly this request (a scope, a
/// context-id qualifier, PMIX_PSET_NAMES), not the target's data to cache.
fn answered_as_asked(key: &str, info: &[Info]) -> bool {
    key == "pmix.pset.nms" || find(info, PMIX_DATA_SCOPE).is_some() || find(info, PMIX_GROUP_CONTEXT_ID).is_some()
}

fn get_remote(target: Proc, key: String, info: Vec<Info>, done: Completion<Option<Value>>) {
    let scoped = answered_as_asked(&key, &info);
    let t2 = target.clone();
    request(Request::Get { target, key: key.clone(), info }, Box::new(move |r| {
        let st = r.status();
        if st != PMIX_SUCCESS {
            return done.fire(st, None);
        }
        let infos = r.into_infos();
        if scoped {
            return match infos.iter().find(|i| i.key() == key) {
                Some(i) => done.fire(PMIX_SUCCESS, Some(i.value())),
                None => done.fire(PMIX_ERR_NOT_FOUND, None),
            };
        }
        if let Some(c) = cache() {
            c.put(&t2, infos);
        }
        if key.is_empty() {
            return done.fire(PMIX_SUCCESS, None); // all of it, now cached
        }
        match get_local(&t2, &key).or_else(|| cache().and_then(|c| c.get(&Proc::wildcard(&t2.nspace), &key))) {
            Some(v) => done.fire(PMIX_SUCCESS, Some(v)),
            None => done.fire(PMIX_ERR_NOT_FOUND, None),
        }
    }));
}

// ---- publish / lookup / unpublish ----

pub fn publish(info: Vec<Info>, done: Done) {
    request(Request::Publish { info }, Box::new(move |r| done.status(r.status())));
}

pub fn lookup(keys: Vec<String>, info: Vec<Info>, done: LookupDone) {
    request(Request::Lookup { keys, info }, Box::new(move |r| {
        let (st, out) = match r {
            Reply::Lookup { status, found } => (status, found),
            r => (r.status(), Vec::new()),
        };
        let st = if st == PMIX_SUCCESS && out.is_empty() { PMIX_ERR_NOT_FOUND } else { st };
        done.fire(st, out)
    }));
}

pub fn unpublish(keys: Vec<String>, info: Vec<Info>, done: Done) {
    request(Request::Unpublish { keys, info }, Box::new(move |r| done.status(r.status())));
}

// ---- events ----

pub fn notify(status: pmix_status_t, source: Proc, range: pmix_data_range_t, info: Vec<Info>, done: Done) {
    if handle().is_none() {
        // A client without a server (a singleton): an event for this process
        // alone goes to its own handlers, as under OpenPMIx; a wider range
        // needs a server.
        if range != PMIX_RANGE_PROC_LOCAL || me().is_none() {
            return done.status(no_server());
        }
        // (no progress thread here: each step runs on a thread of its own;
        // the caller hears of it once its handlers are done, as OpenPMIx's
        // local notifications complete)
        let alone = |f: Box<dyn FnOnce() + Send>| crate::runtime::later(None::<&crate::runtime::Handle<super::ClientRole>>, f);
        alone(Box::new(move || {
            let chain = super::chain_or_keep(status, &source, &info);
            let finally: Box<dyn FnOnce() + Send> = Box::new(move || done.status(PMIX_SUCCESS));
            crate::events::notify_then(chain, status, &source, &info, std::sync::Arc::new(alone), Some(finally));
        }));
        return;
    }
    // An OpenPMIx server never hands an event back to its source: its own
    // handlers hear it here, and one for this process alone goes no further.
    if let Some(d) = direct().filter(|d| matches!(d.dialect, super::openpmix::Dialect::OpenPmix { .. })) {
        let (src, infos) = (source.clone(), info.clone());
        let local_only = range == PMIX_RANGE_PROC_LOCAL;
        let for_me = range != PMIX_RANGE_CUSTOM || me().is_some_and(|me| custom_range_has(&info, &me));
        let delivered = !for_me
            || d.handle.run(move |c, _| {
                let chain = super::chain_or_keep(status, &src, &infos);
                crate::events::notify(chain, status, &src, &infos, c.poster());
            });
        if local_only {
            return done.status(if delivered { PMIX_SUCCESS } else { PMIX_ERR_UNREACH });
        }
    }
    request(Request::Notify { status, source, range, info }, Box::new(move |r| done.status(r.status())));
}

/// Deliver the kept events that came due, without a progress thread (a
/// client initialised without a server): each step on a thread of its own.
pub fn run_due_alone() {
    let alone = |f: Box<dyn FnOnce() + Send>| crate::runtime::later(None::<&crate::runtime::Handle<super::ClientRole>>, f);
    alone(Box::new(move || super::run_due(std::sync::Arc::new(alone))));
}

/// Whether an event's custom range (PMIX_EVENT_CUSTOM_RANGE: one proc, or
/// an array of them) names `me`, by rank or by its namespace's wildcard.
fn custom_range_has(info: &[Info], me: &Proc) -> bool {
    find(info, PMIX_EVENT_CUSTOM_RANGE).is_some_and(|i| procs_of_value(i.value_ref()).iter().any(|p| p.names(me)))
}

// ---- misc ----

pub fn abort(status: i32, msg: &str, procs: Vec<Proc>) -> pmix_status_t {
    request_wait(Request::Abort { status, message: msg.to_string(), procs }).status()
}

pub fn log(data: Vec<Info>, directives: Vec<Info>, done: Done) {
    request(Request::Log { data, directives }, Box::new(move |r| done.status(r.status())));
}

/// What the requester's library fills in on the apps of a spawn, whatever
/// the host, as OpenPMIx's client does: an app with neither a command nor an
/// argv is refused (PMIX_ERR_BAD_PARAM); an app without a working directory
/// gets the caller's (a host may start it anywhere: Open MPI's mpirun
/// starts it in mpirun's own); the command is taken from argv[0] when
/// missing, and argv begins with the command's name (it is prepended when
/// argv[0] names another program, made when there is no argv).
pub fn complete_apps(apps: &mut crate::data::carray::CArray) -> Res {
    use crate::cmem::{argv_len, strdup_bytes};
    let cwd = std::env::current_dir().ok().map(|d| d.into_os_string().into_encoded_bytes());
    let base = |p: *const core::ffi::c_char| -> Vec<u8> {
        // SAFETY: p is a NUL-terminated string of our own copy.
        let s = unsafe { core::ffi::CStr::from_ptr(p) }.to_bytes();
        s.rsplit(|b| *b == b'/').next().unwrap_or(s).to_vec()
    };
    for a in apps.apps_mut() {
        // SAFETY: the fields of our own deep copy: NULL or malloc'd strings
        // and NULL-terminated malloc'd argv, replaced by malloc'd ones.
        unsafe {
            let nargv = argv_len(a.argv);
            if a.cmd.is_null() {
                if nargv == 0 {
                    crate::pmix_debug!(1, "PMIx_Spawn: an app with neither a command nor an argv");
                    return Err(PMIX_ERR_BAD_PARAM);
                }
                a.cmd = libc::strdup(*a.argv);
            }
            if a.cwd.is_null() {
                if let Some(d) = &cwd {
                    a.cwd = strdup_bytes(d);
                }
            }
            let name = base(a.cmd);
            if nargv == 0 || base(*a.argv) != name {
                let argv = crate::cmem::calloc_array(nargv + 2, core::mem::size_of::<*mut core::ffi::c_char>()) as *mut *mut core::ffi::c_char;
                if argv.is_null() {
                    return Err(PMIX_ERR_NOMEM);
                }
                *argv = strdup_bytes(&name);
                for i in 0..nargv {
                    *argv.add(i + 1) = *a.argv.add(i);
                }
                libc::free(a.argv as *mut libc::c_void);
                a.argv = argv;
            }
        }
    }
    Ok(())
}

pub fn spawn(job_info: Vec<Info>, apps: &CArray, done: Completion<String>) {
    // SAFETY: `apps` holds `len` valid apps.
    let apps = match unsafe { CArray::copy(Kind::App, apps.ptr, apps.len) } {
        Ok(a) => a,
        Err(st) => return done.fire(st, String::new()),
    };
    request(Request::Spawn { job_info, apps }, Box::new(move |r| match r {
        Reply::Spawn { status, nspace } => done.fire(status, nspace),
        r => done.fire(r.status(), String::new()),
    }));
}

/// Keys the library answers itself, in every role and before init, as
/// OpenPMIx does: its own ABI levels.
fn local_answer(key: &[u8]) -> Option<Info> {
    match key {
        b"pmix.qry.stabiver" => Some(Info::new("pmix.qry.stabiver", Value::string(crate::strings::ABI_VERSION))),
        b"pmix.qry.prabiver" => Some(Info::new("pmix.qry.prabiver", Value::string(crate::strings::ABI_VERSION))),
        _ => None,
    }
}

/// Split queries into the answers the library gives itself and the queries
/// (with those keys left out) that need a server: `(answers, the rest)`.
pub fn split_queries(queries: &CArray) -> Res<(Vec<Info>, CArray)> {
    let mut answers = Vec::new();
    // The queries left, borrowing the caller's strings and qualifiers, and
    // the key lists they point at (alive until the copy below).
    let mut left: Vec<pmix_query_t> = Vec::new();
    let mut key_lists: Vec<Vec<*mut core::ffi::c_char>> = Vec::new();
    for q in queries.queries() {
        // SAFETY: keys is NULL or a NULL-terminated argv of our own copy.
        let nkeys = unsafe { crate::cmem::argv_len(q.keys) };
        let mut keys: Vec<*mut core::ffi::c_char> = Vec::with_capacity(nkeys + 1);
        for k in 0..nkeys {
            // SAFETY: index within argv.
            let kp = unsafe { *q.keys.add(k) };
            // SAFETY: an entry of the argv: a C string.
            match unsafe { crate::cmem::cstr_bytes(kp) }.and_then(local_answer) {
                Some(a) => answers.push(a),
                None => keys.push(kp),
            }
        }
        if nkeys > 0 && keys.is_empty() {
            continue; // answered here entirely
        }
        keys.push(core::ptr::null_mut());
        let mut l = *q;
        if nkeys > 0 {
            // (the Vec's heap buffer does not move when the Vec itself does)
            l.keys = keys.as_mut_ptr();
        }
        key_lists.push(keys);
        left.push(l);
    }
    // SAFETY: `left` holds valid queries whose pointers (the caller's
    // strings and qualifiers, `key_lists`) are alive here; the copy is deep.
    let rest = unsafe { CArray::copy(Kind::Query, left.as_ptr() as *const u8, left.len())? };
    drop(key_lists);
    Ok((answers, rest))
}

/// The queries `split_queries` left for the server (and its host); the
/// library's own `answers` join the server's.
pub fn query_server(answers: Vec<Info>, rest: CArray, done: Completion<Vec<Info>>) {
    request(Request::Query { queries: rest }, Box::new(move |r| {
        let st = r.status();
        let mut all = answers;
        let ours = all.len();
        all.extend(r.into_infos());
        let st = if st != PMIX_SUCCESS && st != PMIX_QUERY_PARTIAL_SUCCESS && ours > 0 { PMIX_QUERY_PARTIAL_SUCCESS } else { st };
        done.fire(st, all)
    }));
}

// ---- job control ----

pub fn job_control(targets: Vec<Proc>, directives: Vec<Info>, done: Completion<Vec<Info>>) {
    if handle().is_none() {
        return done.fire(no_server(), Vec::new());
    }
    request(Request::JobControl { targets, directives }, Box::new(move |r| {
        let st = r.status();
        done.fire(st, r.into_infos())
    }));
}

/// PMIx_Session_control: `done(status, results)` with the host's answer.
pub fn session_control(session: u32, directives: Vec<Info>, done: Completion<Vec<Info>>) {
    if handle().is_none() {
        return done.fire(no_server(), Vec::new());
    }
    request(Request::SessionControl { session, directives }, Box::new(move |r| {
        let st = r.status();
        done.fire(st, r.into_infos())
    }));
}

// ---- groups ----

/// A group operation (construct, destruct, leave, invite, join);
/// `done(status, results)`.
pub fn group(op: GroupOp, name: &str, procs: Vec<Proc>, directives: Vec<Info>, done: Completion<Vec<Info>>) {
    if handle().is_none() {
        return done.fire(no_server(), Vec::new());
    }
    let req = Request::Group(Group { op, name: name.to_string(), procs, directives });
    request(req, Box::new(move |r| {
        let st = r.status();
        let infos = if st == PMIX_SUCCESS { r.into_infos() } else { Vec::new() };
        done.fire(st, infos)
    }));
}

/// PMIx_Group_join: accept or decline `leader`'s invitation to `name`.
pub fn group_join(name: &str, leader: Option<Proc>, accept: bool, directives: Vec<Info>, done: Completion<Vec<Info>>) {
    group(GroupOp::Join { accept }, name, leader.into_iter().collect(), directives, done)
}

// ---- credentials (through the host) ----

pub fn get_credential(info: Vec<Info>, done: CredentialDone) {
    request(Request::GetCredential { info }, Box::new(move |r| match r {
        Reply::Credential { status, credential, info } => done.fire(status, (credential, info)),
        r => done.fire(r.status(), (Vec::new(), Vec::new())),
    }));
}

pub fn validate_credential(credential: Vec<u8>, info: Vec<Info>, done: Completion<Vec<Info>>) {
    request(Request::ValidateCredential { credential, info }, Box::new(move |r| {
        let st = r.status();
        done.fire(st, r.into_infos())
    }));
}

// ---- allocation, event interest ----

pub fn allocate(directive: pmix_alloc_directive_t, data: Vec<Info>, done: Completion<Vec<Info>>) {
    request(Request::Allocate { directive, data }, Box::new(move |r| {
        let st = r.status();
        done.fire(st, r.into_infos())
    }));
}

/// Tell the server which codes this process listens for (it tells its host).
pub fn tell_event_interest(register: bool, codes: &[pmix_status_t], info: &[Info]) {
    if codes.is_empty() {
        return;
    }
    let codes = codes.to_vec();
    let req = if register { Request::RegisterEvents { codes, info: info.to_vec() } } else { Request::DeregisterEvents { codes } };
    if let Some(d) = direct() {
        d.send(req);
    }
}

// ---- monitoring ----

pub fn monitor(monitor: Info, error: pmix_status_t, directives: Vec<Info>, done: Completion<Vec<Info>>) {
    if handle().is_none() {
        return done.fire(no_server(), Vec::new());
    }
    request(Request::Monitor(Box::new(Monitor { monitor, error, directives })), Box::new(move |r| {
        let st = r.status();
        done.fire(st, r.into_infos())
    }));
}

/// PMIx_Heartbeat: one small frame, no reply.
pub fn heartbeat() -> pmix_status_t {
    match direct() {
        Some(d) => d.send(Request::Heartbeat),
        None => PMIX_ERR_UNREACH,
    }
}

// ---- IO forwarding ----

/// Pull handles are unique in the process, and each pull stays with the
/// server it was registered at (where its sources' output comes from), so
/// deregistration finds it whichever server is primary by then.
static IOF_NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
static IOF_SERVER: parking_lot::Mutex<Option<std::collections::HashMap<u32, Option<Proc>>>> = parking_lot::Mutex::new(None);

fn iof_servers() -> parking_lot::MutexGuard<'static, Option<std::collections::HashMap<u32, Option<Proc>>>> {
    IOF_SERVER.lock()
}

/// At the last finalize: no pull survives.
pub fn iof_forget_all() {
    *iof_servers() = None;
}

/// Register a pull; `done(status, local handle)`.
pub fn iof_pull(procs: Vec<Proc>, directives: Vec<Info>, channel: pmix_iof_channel_t, cb: pmix_iof_cbfunc_t, done: Completion<u32>) {
    if channel & PMIX_FWD_STDIN_CHANNEL != 0 {
        return done.fire(PMIX_ERR_NOT_SUPPORTED, 0);
    }
    let Some(d) = direct() else {
        return done.fire(no_server(), 0);
    };
    let local = IOF_NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let channels = super::iof::channels_to_pull(channel, &directives);
    let req = Request::IofPull(IofPull { procs, channels, handle: local, directives: directives.clone() });
    let server = super::connected_server();
    // Sent from this thread like every request (so it reaches the server
    // before whatever this thread asks next); the pull is set up on the
    // progress thread, which delivers its output.
    d.request(req, Waiter::Role(Box::new(move |c, net, r| {
        let (st, id) = match r {
            Reply::IofPull { status, id } => (status, id),
            r => (r.status(), 0),
        };
        if st == PMIX_SUCCESS {
            let pull = super::iof::Pull::new(id, cb, &directives);
            if let Some(t) = pull.buffering_time() {
                let timer = net.timer(t / 4);
                c.iof_timers.insert(timer, local);
            }
            c.iof.insert(local, pull);
            iof_servers().get_or_insert_with(Default::default).insert(local, server);
        }
        done.fire(st, local);
    })));
}

pub fn iof_deregister(local: u32, done: Done) {
    if me().is_none() {
        return done.status(PMIX_ERR_INIT);
    }
    let owner = iof_servers().as_mut().and_then(|m| m.remove(&local));
    let h = match owner {
        // Its connection is gone, and the pull (its held output delivered) with it.
        Some(Some(srv)) => match super::handle_of(&srv) {
            Some(h) => h,
            None => return done.status(PMIX_SUCCESS),
        },
        Some(None) => match handle() {
            Some(h) => h,
            None => return done.status(PMIX_SUCCESS),
        },
        None => {
            crate::pmix_debug!(5, "PMIx_IOF_deregister: no pull has handle {local}");
            return done.status(PMIX_ERR_BAD_PARAM);
        }
    };
    let done = std::sync::Arc::new(parking_lot::Mutex::new(Some(done)));
    let d2 = done.clone();
    let ok = h.run(move |c, net| {
        let Some(mut pull) = c.iof.remove(&local) else {
            if let Some(d) = done.lock().take() {
                d.status(PMIX_ERR_BAD_PARAM);
            }
            return;
        };
        // What the pull still holds is delivered before it goes.
        let held = pull.due(true);
        pull.emit(local, held);
        let id = pull.server_id;
        c.request(net, Request::IofDeregister { id }, Box::new(move |_, _, r| {
            if let Some(d) = done.lock().take() {
                d.status(r.status());
            }
        }));
    });
    if !ok {
        if let Some(d) = d2.lock().take() {
            d.status(PMIX_ERR_UNREACH);
        }
    }
}

pub fn iof_push(targets: Vec<Proc>, data: Option<Vec<u8>>, directives: Vec<Info>, done: Done) {
    request(Request::IofPush(IofPush { targets, data, directives }), Box::new(move |r| done.status(r.status())));
}
