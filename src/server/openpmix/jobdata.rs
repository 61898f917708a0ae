//! The job data an OpenPMIx client asks for right after connecting (REQ),
//! as OpenPMIx 4.2's hash store sends it (docs/openpmix-ptl-protocol.md
//! 3.3, 4.1): the namespace, the job-level keys, then the session, node
//! and app keys each as an info array (OpenPMIx's client looks them up
//! there, session keys only there), then one blob per rank with its keys.

use crate::abi::*;
use crate::owned::{Info, Value};
use crate::ptl::Msg;
use crate::status::Res;

use super::super::nspace::Nspace;

/// Keys OpenPMIx keeps per session, node and app (its pmix_globals.h lists).
const SESSION_KEYS: &[&str] =
    &["pmix.session.id", "pmix.clid", "pmix.univ.size", "pmix.tmpdir", "pmix.tdir.rmclean", "pmix.fqdn", "pmix.rm.name", "pmix.rm.version"];
const NODE_KEYS: &[&str] = &[
    "pmix.hname",
    "pmix.alias",
    "pmix.nodeid",
    "pmix.pmem",
    "pmix.lpeers",
    "pmix.lprocs",
    "pmix.lcpus",
    "pmix.local.size",
    "pmix.node.size",
    "pmix.lldr",
    "pmix.ndosub",
];
const APP_KEYS: &[&str] = &["pmix.app.size", "pmix.aldr", "pmix.app.argv", "pmix.wdir", "pmix.pset.nm", "pmix.pset.mems", "pmix.apmap.type", "pmix.apmap.regex"];

/// Jobs up to this size get every rank's derived keys in their job data.
const DERIVED_FOR_ALL: u32 = 16384;

/// The answer to REQ for a client of `ns` on this node (`hostname`), also
/// the job data of another namespace in a connect's answer.
pub fn encode(ns: &Nspace, hostname: &str, described: bool) -> Res<Vec<u8>> {
    let mut m = Msg::plain(described);
    m.string(Some(&ns.name))?;
    let (mut session, mut node, mut app) = (Vec::new(), Vec::new(), Vec::new());
    for i in &ns.job {
        let k = i.key();
        if SESSION_KEYS.contains(&k) {
            session.push(i.clone());
        } else if NODE_KEYS.contains(&k) {
            node.push(i.clone());
        } else if APP_KEYS.contains(&k) {
            app.push(i.clone());
        } else {
            m.kval(k, i.value_ref())?;
        }
    }
    // Each array starts with what names it.
    if !session.iter().any(|i| i.key() == "pmix.session.id") {
        session.insert(0, Info::new("pmix.session.id", Value::u32(u32::MAX)));
    }
    m.kval("pmix.ssn.arr", &Value::infos(&session).0)?;
    if !node.iter().any(|i| i.key() == "pmix.hname") {
        node.insert(0, Info::new("pmix.hname", Value::string(hostname)));
    }
    m.kval("pmix.node.arr", &Value::infos(&node).0)?;
    if !app.is_empty() {
        app.insert(0, Info::new("pmix.appnum", Value::u32(0)));
        m.kval("pmix.app.arr", &Value::infos(&app).0)?;
    }
    // One blob per rank: the registered keys, and the derived ones (host,
    // node, local and node ranks) of every rank of a job up to
    // DERIVED_FOR_ALL ranks (OpenPMIx's clients ask for a peer's host as an
    // optional key, never from the server), else of the ranks on this node.
    let size = ns.job_size().unwrap_or(0);
    let derive: std::collections::BTreeSet<pmix_rank_t> =
        if size <= DERIVED_FOR_ALL { (0..size).chain(ns.local_ranks()).collect() } else { ns.local_ranks() };
    let ranks: std::collections::BTreeSet<pmix_rank_t> = derive.iter().copied().chain(ns.procs.keys().copied()).collect();
    for r in ranks {
        let mut data: Vec<Info> = ns.procs.get(&r).cloned().unwrap_or_default();
        if derive.contains(&r) {
            for k in ["pmix.lrank", "pmix.nrank", "pmix.hname", "pmix.nodeid", "pmix.appnum", "pmix.grank", "pmix.apprank"] {
                if !data.iter().any(|i| i.key() == k) {
                    if let Some(v) = ns.derived(r, k) {
                        data.push(Info::new(k, v));
                    }
                }
            }
        }
        if data.is_empty() {
            continue;
        }
        let mut blob = Msg::plain(described);
        blob.rank(r);
        for i in &data {
            blob.kval(i.key(), i.value_ref())?;
        }
        m.kval("pmix.pblob", &Value::bytes(blob.bytes()).0)?;
    }
    Ok(m.into_bytes())
}

/// The answer to REQ for a peer with no job here (a tool): its namespace.
pub fn name_only(nspace: &str, described: bool) -> Res<Vec<u8>> {
    let mut m = Msg::plain(described);
    m.string(Some(nspace))?;
    Ok(m.into_bytes())
}
