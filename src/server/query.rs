//! PMIx_Query_info from clients and tools: what this server answers itself,
//! and what goes to the host's query upcall.

use crate::abi::*;
use crate::owned::{find, procs_of_value, Info, Proc, Value};
use crate::runtime::{ConnId, Net};

use super::host::{Host, Upcall};
use crate::data::carray::CArray;
use crate::runtime::Handle;
use super::pset::Psets;
use super::{done_reply_infos, jobctl, reply, settled, top, ServerRole};
use crate::msg::Reply;

/// What a query needs of the role.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub handle: Handle<ServerRole>,
    pub hostname: &'a str,
    pub psets: &'a Psets,
    /// What the role holds, read-only.
    pub view: top::Ctx<'a>,
}

/// Queries the library can answer itself; the rest go to the host.
pub(super) fn on_query(cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, queries: CArray) {
    let mut answers = Vec::new();
    // Answers of ours used only when the host has none.
    let mut fallback = Vec::new();
    // Why one of ours could not be answered (a pset query's).
    let mut fallback_err = None;
    let mut all_local = true;
    for q in queries.queries() {
        // SAFETY: keys is NULL or a NULL-terminated argv (decoded by us).
        let n = unsafe { crate::cmem::argv_len(q.keys) };
        for k in 0..n {
            // SAFETY: index within argv.
            let key = unsafe { crate::cmem::cstr_bytes(*q.keys.add(k)) }.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            // SAFETY: qualifiers decoded by us.
            let quals = unsafe { Info::copy_array(q.qualifiers, q.nqual) }.unwrap_or_default();
            let qns = find(&quals, PMIX_NSPACE).and_then(|i| i.as_str()).unwrap_or_else(|| who.nspace.clone());
            match key.as_str() {
                // Process sets: the host's answer first (it may keep
                // sets it never defined here), else those it defined.
                "pmix.qry.psetnum" | "pmix.qry.psets" | "pmix.qry.pmems" => match cx.psets.query(&key, &quals) {
                    Some(Ok(i)) => {
                        if key == "pmix.qry.psetnum" {
                            // The names come first: Open MPI 5.0.7 reads
                            // the number into a NULL pointer (which
                            // PMIx_Value_unload refuses, and it then
                            // forgets the names) but counts the names.
                            fallback.extend(cx.psets.query("pmix.qry.psets", &quals).and_then(Result::ok));
                        }
                        fallback.push(i)
                    }
                    Some(Err(e)) => {
                        fallback_err = Some(e);
                        all_local = false;
                    }
                    None => all_local = false,
                },
                "pmix.qry.pgrpnum" | "pmix.qry.pgrp" | "pmix.qry.pgrpmems" => match cx.view.groups.query(&key, &quals) {
                    Some(i) => answers.push(i),
                    None => all_local = false,
                },
                // The host knows namespaces beyond this server: asked
                // first (as OpenPMIx does); ours answer if it cannot.
                "pmix.qry.ns" => {
                    let mut names: Vec<&String> = cx.view.nspaces.iter().filter(|(_, n)| n.registered).map(|(k, _)| k).collect();
                    names.sort();
                    let s: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                    fallback.push(Info::new("pmix.qry.ns", Value::string(&s.join(","))));
                }
                // Each namespace (or the one PMIX_NSPACE names) with its
                // command line when the host registered one.
                "pmix.qry.nsinfo" => {
                    let only = find(&quals, PMIX_NSPACE).and_then(|i| i.as_str());
                    let mut names: Vec<&String> = cx.view.nspaces.iter().filter(|(k, n)| n.registered && only.as_ref().map_or(true, |o| o == *k)).map(|(k, _)| k).collect();
                    names.sort();
                    let each: Vec<Info> = names
                        .iter()
                        .map(|ns| {
                            let mut v = vec![Info::new("pmix.nspace", Value::string(ns))];
                            if let Some(c) = cx.view.nspaces.get(*ns).and_then(|n| n.job.iter().find(|i| i.key() == "pmix.cmd.line")) {
                                v.push(c.clone());
                            }
                            Info::new("pmix.qry.nsinfo", Value::infos(&v))
                        })
                        .collect();
                    fallback.push(Info::new("pmix.qry.nsinfo", Value::infos(&each)));
                }
                // What a debugger needs to attach (the MPIR proc table):
                // this server's ranks of the namespace.
                "pmix.qry.ptable" | "pmix.qry.lptable" => match proc_table(&cx.view, cx.hostname, &qns) {
                    Some(v) => fallback.push(Info::new(&key, v)),
                    None => all_local = false,
                },
                // What each local rank of the namespace is doing and
                // blocked in, and the collectives in progress: the
                // library's own answer whatever the host.
                super::top::QUERY_KEY => match cx.view.answer(&qns) {
                    Some(v) => answers.push(Info::new(&key, v)),
                    None => all_local = false,
                },
                "pmix.jctrl.preempt" | "pmix.jctrl.ckmethod" => {
                    let p = find(&quals, PMIX_PROCID).map(|i| procs_of_value(i.value_ref())).and_then(|v| v.into_iter().next()).unwrap_or_else(|| who.clone());
                    let r = jobctl::lookup(&p).unwrap_or_default();
                    if key == "pmix.jctrl.preempt" {
                        answers.push(Info::new("pmix.jctrl.preempt", Value::boolean(r.preemptible.unwrap_or(false))));
                    } else {
                        let mut m = Vec::new();
                        if let Some(s) = r.signal() {
                            m.push(Info::new("pmix.jctrl.ckptsig", Value::u32(s as u32)));
                        }
                        if r.event().is_some() {
                            m.push(Info::new("pmix.jctrl.ckptev", Value::boolean(true)));
                        }
                        answers.push(Info::new("pmix.jctrl.ckmethod", Value::string(&m.iter().map(|i| i.key().to_string()).collect::<Vec<_>>().join(","))));
                    }
                }
                "pmix.job.size" | "pmix.local.size" | "pmix.num.nodes" | "pmix.univ.size" | "pmix.max.size" => {
                    match cx.view.nspaces.get(&qns).and_then(|n| n.job.iter().find(|i| i.key() == key)) {
                        Some(i) => answers.push(i.clone()),
                        None => all_local = false,
                    }
                }
                _ => all_local = false,
            }
        }
    }
    if all_local && fallback.is_empty() && !answers.is_empty() {
        reply(cx.net, conn, req, Reply::Infos { status: PMIX_SUCCESS, infos: answers });
        return;
    }
    // A host that answers queries answers all of them (as with
    // OpenPMIx); ours stand only when it has no query upcall.
    let u = cx.host.query(who, &queries, done_reply_infos(cx.handle.clone(), conn, req));
    if let Upcall::Now(st) = u {
        answers.extend(fallback);
        let st = match (st, fallback_err) {
            (PMIX_ERR_NOT_SUPPORTED, Some(e)) if answers.is_empty() => e,
            (st, _) => st,
        };
        let st = match st {
            PMIX_ERR_NOT_SUPPORTED if all_local => PMIX_SUCCESS,
            PMIX_ERR_NOT_SUPPORTED if !answers.is_empty() => PMIX_QUERY_PARTIAL_SUCCESS,
            st => settled(st),
        };
        reply(cx.net, conn, req, Reply::Infos { status: st, infos: answers });
    }
}

/// PMIX_QUERY_PROC_TABLE for namespace `ns`: a data array of
/// pmix_proc_info_t, one per rank of it this server holds, by rank: the
/// host, the program (/proc/<pid>/exe), the pid, and its state. None
/// for a namespace this server does not hold.
fn proc_table(view: &top::Ctx<'_>, hostname: &str, ns: &str) -> Option<Value> {
    let n = view.nspaces.get(ns).filter(|n| n.registered)?;
    let mut ranks: Vec<pmix_rank_t> = n.clients.keys().copied().collect();
    ranks.sort_unstable();
    let host = std::ffi::CString::new(hostname).unwrap_or_default();
    let mut exes = Vec::with_capacity(ranks.len());
    let mut rows = Vec::with_capacity(ranks.len());
    for r in &ranks {
        let proc = Proc::new(ns, *r);
        let pid = view.pid_of(&proc);
        let exe = if pid > 0 { std::fs::read_link(format!("/proc/{pid}/exe")).ok() } else { None };
        exes.push(std::ffi::CString::new(exe.map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()).unwrap_or_default());
        let c = n.clients.get(r);
        let state = match c {
            Some(c) if c.finalized => PMIX_PROC_STATE_TERMINATED,
            Some(c) if c.conn.is_some() => PMIX_PROC_STATE_CONNECTED,
            _ if pid > 0 => PMIX_PROC_STATE_RUNNING,
            _ => PMIX_PROC_STATE_UNDEF,
        };
        rows.push((proc.to_c(), pid, state));
    }
    let mut table: Vec<pmix_proc_info_t> = rows
        .iter()
        .zip(&exes)
        .map(|((proc, pid, state), exe)| pmix_proc_info_t {
            proc: *proc,
            hostname: host.as_ptr() as *mut core::ffi::c_char,
            executable_name: exe.as_ptr() as *mut core::ffi::c_char,
            pid: *pid as libc::pid_t,
            exit_code: 0,
            state: *state,
        })
        .collect();
    let d = pmix_data_array_t { r#type: PMIX_PROC_INFO, size: table.len(), array: table.as_mut_ptr() as *mut core::ffi::c_void };
    // SAFETY: d describes `table`, whose strings live until after the
    // load, which deep-copies them.
    unsafe { Value::load(&d as *const pmix_data_array_t as *const core::ffi::c_void, PMIX_DATA_ARRAY) }.ok()
}
