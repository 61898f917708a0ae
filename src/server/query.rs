//! PMIx_Query_info from clients and tools: what this server answers itself,
//! and what goes to the host's query upcall.

use crate::abi::*;
use crate::owned::{find, procs_of_value, Info, Proc, Value};
use crate::runtime::{ConnId, Net};

use super::host::Upcall;
use crate::data::carray::CArray;
use super::jobctl;
use super::{reply_infos, settled, ServerRole};

impl ServerRole {
    /// Queries the library can answer itself; the rest go to the host.
    pub(super) fn on_query(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, queries: CArray) {
        let mut answers = Vec::new();
        // Answers of ours used only when the host has none.
        let mut fallback = Vec::new();
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
                    "pmix.qry.pgrpnum" | "pmix.qry.pgrp" | "pmix.qry.pgrpmems" => match self.group_query(&key, &quals) {
                        Some(i) => answers.push(i),
                        None => all_local = false,
                    },
                    // The host knows namespaces beyond this server: asked
                    // first (as OpenPMIx does); ours answer if it cannot.
                    "pmix.qry.ns" => {
                        let mut names: Vec<&String> = self.nspaces.iter().filter(|(_, n)| n.registered).map(|(k, _)| k).collect();
                        names.sort();
                        let s: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                        fallback.push(Info::new("pmix.qry.ns", Value::string(&s.join(","))));
                    }
                    // Each namespace (or the one PMIX_NSPACE names) with its
                    // command line when the host registered one.
                    "pmix.qry.nsinfo" => {
                        let only = find(&quals, PMIX_NSPACE).and_then(|i| i.as_str());
                        let mut names: Vec<&String> = self.nspaces.iter().filter(|(k, n)| n.registered && only.as_ref().map_or(true, |o| o == *k)).map(|(k, _)| k).collect();
                        names.sort();
                        let each: Vec<Info> = names
                            .iter()
                            .map(|ns| {
                                let mut v = vec![Info::new("pmix.nspace", Value::string(ns))];
                                if let Some(c) = self.nspaces.get(*ns).and_then(|n| n.job.iter().find(|i| i.key() == "pmix.cmd.line")) {
                                    v.push(c.clone());
                                }
                                Info::new("pmix.qry.nsinfo", Value::infos(&v))
                            })
                            .collect();
                        fallback.push(Info::new("pmix.qry.nsinfo", Value::infos(&each)));
                    }
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
                        match self.nspaces.get(&qns).and_then(|n| n.job.iter().find(|i| i.key() == key)) {
                            Some(i) => answers.push(i.clone()),
                            None => all_local = false,
                        }
                    }
                    _ => all_local = false,
                }
            }
        }
        if all_local && fallback.is_empty() && !answers.is_empty() {
            reply_infos(net, conn, req, PMIX_SUCCESS, &answers);
            return;
        }
        // A host that answers queries answers all of them (as with
        // OpenPMIx); ours stand only when it has no query upcall.
        let u = self.host.query(who, &queries, self.done_reply_infos(conn, req));
        if let Upcall::Now(st) = u {
            answers.extend(fallback);
            let st = match st {
                PMIX_ERR_NOT_SUPPORTED if all_local => PMIX_SUCCESS,
                PMIX_ERR_NOT_SUPPORTED if !answers.is_empty() => PMIX_QUERY_PARTIAL_SUCCESS,
                st => settled(st),
            };
            reply_infos(net, conn, req, st, &answers);
        }
    }
}
