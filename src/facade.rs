//! The facade: the one place that chooses which role answers a call.
//!
//! A process is a client, a tool, a server, or a server that also calls the
//! client API (a host such as Slurm's stepd or pmixrun). The roles never call
//! each other: a call that any of them may answer comes here, and this module
//! asks the roles that are initialised, the client first.

use crate::abi::*;
use crate::data::carray::CArray;
use crate::events::Registry;
use crate::owned::{Info, Proc, Value};
use crate::status::Res;
use crate::{client, server};

/// Who this process is: its client identity, else its server's.
pub fn own_proc() -> Option<Proc> {
    client::me().or_else(server::own_proc)
}

/// The status of a request that needs a server connection when there is
/// none: UNREACH for a client without a server, NOT_SUPPORTED in a server
/// process (it has no server above it), INIT before any init.
pub fn no_server_status() -> pmix_status_t {
    if client::me().is_some() {
        PMIX_ERR_UNREACH
    } else if server::handle().is_some() {
        PMIX_ERR_NOT_SUPPORTED
    } else {
        PMIX_ERR_INIT
    }
}

/// Run `f` off the caller's stack: on a progress thread of ours (the
/// client's, else the server's), or on a thread of its own when no role is
/// initialised. No callback fires inline.
pub fn later<F: FnOnce() + Send + 'static>(f: F) {
    match client::handle() {
        Some(h) => crate::runtime::later(Some(&h), f),
        None => crate::runtime::later(server::handle().as_ref(), f),
    }
}

type GetDone = crate::runtime::Completion<Option<Value>>;

/// PMIx_Get / Get_nb. `target` None = own namespace; an empty key asks for
/// everything held for one rank. In a server process (no client role) the
/// server answers with what it holds, never waiting.
pub fn get(target: Option<Proc>, key: String, info: Vec<Info>, done: GetDone) {
    // A proc with an empty namespace names a rank of the caller's own job, as
    // in OpenPMIx's PMIx_Get_nb (MPICH and Intel MPI fill in only the rank).
    // (own_proc takes a lock and copies a name: only for such a proc)
    let target = target.map(|t| match t.nspace.is_empty().then(own_proc).flatten() {
        Some(me) => Proc::new(&me.nspace, t.rank),
        None => t,
    });
    // The process's own topology (PMIX_TOPOLOGY2 of itself): OpenPMIx keeps
    // it among its own data once loaded (at server or tool init, or a
    // client's load); loaded here on demand, in every role.
    if key == "pmix.topo2" && target.as_ref().map_or(true, |t| own_proc().is_some_and(|me| me == *t)) {
        if let Ok((topology, source)) = crate::hwloc::process_topology(topology_source) {
            let t = pmix_topology_t { source, topology };
            // SAFETY: t is a topology element; load copies it (its source too).
            let v = unsafe { Value::load(&t as *const pmix_topology_t as *const core::ffi::c_void, PMIX_TOPO) };
            // SAFETY: the malloc'd source process_topology handed us, copied above.
            unsafe { libc::free(source as *mut libc::c_void) };
            return match v {
                Ok(v) => done.fire(PMIX_SUCCESS, Some(v)),
                Err(e) => done.fire(e, None),
            };
        }
    }
    // A NULL proc asking for PMIX_PROCID: the caller's own id, in every role
    // (OpenPMIx answers it before anything else; a server or tool asks so).
    if target.is_none() && key == "pmix.procid" {
        if let Some(me) = own_proc() {
            return done.fire(PMIX_SUCCESS, Some(Value::proc(&me)));
        }
    }
    let Some(h) = server::handle().filter(|_| client::me().is_none()) else {
        // (what was asked and not found, for PMIX_DEBUG >= 5: which key of whom)
        let what = (crate::debug::level() >= 5).then(|| (key.clone(), target.as_ref().map(|t| t.to_string())));
        return client::api::get(target, key, info, crate::runtime::Completion::new(move |st, v| {
            if let (Some((k, t)), PMIX_ERR_NOT_FOUND) = (&what, st) {
                crate::pmix_debug!(5, "PMIx_Get: {k} of {}: not found", t.as_deref().unwrap_or("this process"));
            }
            done.fire(st, v)
        }));
    };
    if key.is_empty() {
        let Some(t) = target.filter(|t| t.rank != PMIX_RANK_WILDCARD) else {
            crate::pmix_debug!(1, "PMIx_Get: a NULL key needs one named rank");
            return done.fire(PMIX_ERR_BAD_PARAM, None);
        };
        if crate::runtime::on_progress_thread() {
            // Waiting for the server's own thread from that thread would deadlock.
            return done.fire(PMIX_ERR_WOULD_BLOCK, None);
        }
        let infos = h.call(move |s, _| s.get_all(&t)).unwrap_or_default();
        return if infos.is_empty() { done.fire(PMIX_ERR_NOT_FOUND, None) } else { done.fire(PMIX_SUCCESS, Some(Value::infos(&infos))) };
    }
    // (a NULL proc: the server's own, as a client's NULL proc is itself)
    let Some(t) = target.or_else(own_proc) else { return done.fire(PMIX_ERR_INIT, None) };
    // (on the server's own thread the store cannot be read: not found)
    let found = if crate::runtime::on_progress_thread() { None } else { h.call(move |s, _| s.get_local(&t, &key)).flatten() };
    match found {
        Some(v) => done.fire(PMIX_SUCCESS, Some(v)),
        None => done.fire(PMIX_ERR_NOT_FOUND, None),
    }
}

/// PMIx_Notify_event: through the client's server, or delivered by this
/// process's own server when it has no client role.
pub fn notify(status: pmix_status_t, source: Proc, range: pmix_data_range_t, info: Vec<Info>, done: client::api::Done) {
    if client::handle().is_none() {
        if let Some(h) = server::handle() {
            // Shared: when the loop has ended it drops the closure unrun, and
            // `done` still answers (with an error).
            let slot = std::sync::Arc::new(parking_lot::Mutex::new(Some(done)));
            let queued_done = slot.clone();
            let queued = h.run(move |s, net| {
                // (the host telling how one of its processes ended: kept for tools' views)
                if status == PMIX_EVENT_PROC_TERMINATED {
                    if let Some(code) = crate::owned::find(&info, PMIX_EXIT_CODE).and_then(|i| i.as_i32()) {
                        s.note_exit(&source, server::nspace::ExitOf::Code(code));
                    }
                }
                s.deliver_event(net, status, &source, range, &info);
                if let Some(done) = queued_done.lock().take() {
                    done.status(PMIX_SUCCESS);
                }
            });
            if !queued {
                if let Some(done) = slot.lock().take() {
                    done.status(PMIX_ERR_INIT);
                }
            }
            return;
        }
    }
    client::api::notify(status, source, range, info, done)
}

/// PMIx_Log: a server process (no client role) writes the standard
/// channels itself; a client sends it to its server.
pub fn log(data: Vec<Info>, directives: Vec<Info>, done: client::api::Done) {
    if client::handle().is_none() && client::me().is_none() {
        if let Some(me) = server::own_proc() {
            return later(move || done.status(server::log::write_locally(&me, &data, &directives)));
        }
    }
    client::api::log(data, directives, done)
}

/// PMIx_Query_info: the keys the library answers itself are answered here
/// (in every role, before init too); the rest go to the server.
pub fn query(queries: &CArray, done: crate::runtime::Completion<Vec<Info>>) {
    let (answers, rest) = match client::api::split_queries(queries) {
        Ok(x) => x,
        Err(st) => return done.fire(st, Vec::new()),
    };
    if rest.len == 0 {
        return later(move || done.fire(PMIX_SUCCESS, answers));
    }
    client::api::query_server(answers, rest, done)
}

/// How an event-registry edit reaches the registry: the editor receives a
/// function that lends it the registry (the registry's lock is released
/// before the editor calls back into the caller).
pub type RegistryEdit = Box<dyn FnOnce(&mut LendRegistry<'_>) + Send>;
/// Lends the registry to a function, for as long as that function runs.
pub type LendRegistry<'a> = dyn FnMut(&mut dyn FnMut(&mut Registry)) + 'a;

/// Run `edit` on this process's event registry: the client's (on its
/// progress thread, or here when initialised without a server), else the
/// server's. The status says whether it was queued.
pub fn edit_event_registry(edit: RegistryEdit) -> pmix_status_t {
    // (a handler registered may take events the client kept: they run after the edit)
    if let Some(h) = client::handle() {
        let queued = h.run(move |c, _| {
            edit(&mut |f| f(&mut client::events_of_client()));
            client::run_due(c.poster());
        });
        if queued { PMIX_SUCCESS } else { PMIX_ERR_UNREACH }
    } else if let Some(h) = server::handle() {
        if h.run(move |s, _| edit(&mut |f| f(&mut s.events))) { PMIX_SUCCESS } else { PMIX_ERR_INIT }
    } else if client::me().is_some() {
        // Initialised without a server: the handlers hear local events.
        edit(&mut |f| f(&mut client::events_of_client()));
        client::api::run_due_alone();
        PMIX_SUCCESS
    } else {
        PMIX_ERR_INIT
    }
}

/// PMIx_Store_internal: into the client's cache, else the server's store.
pub fn store_internal(proc: Proc, info: Info) -> pmix_status_t {
    if let Some(c) = client::cache() {
        c.put(&proc, vec![info]);
        return PMIX_SUCCESS;
    }
    let Some(h) = server::handle() else { return PMIX_ERR_INIT };
    let queued = if crate::runtime::on_progress_thread() {
        h.run(move |s, _| s.store_internal(&proc, info))
    } else {
        h.call(move |s, _| s.store_internal(&proc, info)).is_some()
    };
    if queued {
        PMIX_SUCCESS
    } else {
        PMIX_ERR_INIT
    }
}

/// PMIx_Resolve_peers: the ranks of `nspace` (default: ours) on `node`
/// (default: every node), from the job data the client holds. A rank with no
/// host name registered counts as on ours.
pub fn resolve_peers(node: Option<String>, nspace: Option<String>) -> Res<Vec<Proc>> {
    let me = client::me().ok_or(PMIX_ERR_INIT)?;
    let ns = nspace.filter(|s| !s.is_empty()).unwrap_or_else(|| me.nspace.clone());
    let cache = client::cache().ok_or(PMIX_ERR_INIT)?;
    if let Some(want) = &node {
        // The job's maps answer without a walk over every rank.
        if let Some(ranks) = cache.ranks_on(&ns, want) {
            let peers: Vec<Proc> = ranks.into_iter().map(|r| Proc::new(&ns, r)).collect();
            return if peers.is_empty() { Err(PMIX_ERR_NOT_FOUND) } else { Ok(peers) };
        }
    }
    let my_host = cache.get(&me, "pmix.hname").and_then(|v| v.as_str());
    let size = cache.get(&Proc::wildcard(&ns), "pmix.job.size").and_then(|v| v.as_u32()).unwrap_or(0);
    let peers: Vec<Proc> = (0..size)
        .map(|r| Proc::new(&ns, r))
        .filter(|p| match &node {
            None => true,
            Some(want) => cache.get(p, "pmix.hname").and_then(|v| v.as_str()).or_else(|| my_host.clone()).as_deref() == Some(want.as_str()),
        })
        .collect();
    if peers.is_empty() {
        return Err(PMIX_ERR_NOT_FOUND);
    }
    Ok(peers)
}

/// PMIx_Resolve_nodes: the comma-separated node list of `nspace` (default:
/// ours), or its one host name.
pub fn resolve_nodes(nspace: Option<String>) -> Res<String> {
    let me = client::me().ok_or(PMIX_ERR_INIT)?;
    let ns = nspace.filter(|s| !s.is_empty()).unwrap_or_else(|| me.nspace.clone());
    let cache = client::cache().ok_or(PMIX_ERR_INIT)?;
    let w = Proc::wildcard(&ns);
    cache.get(&w, "pmix.nlist").and_then(|v| v.as_str()).or_else(|| cache.get(&w, "pmix.hname").and_then(|v| v.as_str())).ok_or(PMIX_ERR_NOT_FOUND)
}

/// Where PMIx_Load_topology takes this process's topology from: the one the
/// host gave its server, else hwloc XML in our job's data (as hosts and
/// servers pass it: PMIX_HWLOC_XML_V2, _V1, PMIX_LOCAL_TOPO), else hwloc's
/// discovery.
pub fn topology_source() -> crate::hwloc::Source {
    if let Some((topology, source)) = server::host_topology() {
        return crate::hwloc::Source::Given { topology, source };
    }
    if let Some(me) = client::me() {
        for key in ["pmix.hwlocxml2", "pmix.hwlocxml1", "pmix.ltopo"] {
            if let Some(xml) = client::cached(&me.nspace, PMIX_RANK_WILDCARD, key).and_then(|v| v.as_str()) {
                return crate::hwloc::Source::Xml(xml);
            }
        }
    }
    crate::hwloc::Source::Discover
}
