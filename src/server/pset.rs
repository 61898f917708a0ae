//! Process sets: named lists of procs the host defines
//! (PMIx_server_define_process_set) and deletes. The local clients hear of
//! each with an event (PMIX_PROCESS_SET_DEFINE / _DELETE, as OpenPMIx's
//! server sends them); the server answers the pset queries
//! (PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, PMIX_QUERY_PSET_MEMBERSHIP)
//! when its host does not, and a Get of PMIX_PSET_NAMES for a proc (the
//! sets it belongs to) itself, as OpenPMIx 5's server does.

use crate::abi::*;
use crate::owned::{find, Info, Proc, Value};


/// The job-control directive that defines a set of the targets (PMIx 6's
/// PMIX_JOB_CTRL_DEFINE_PSET; a string, the set's name): what a tool asks
/// of a host that defines sets (pmixrun; PRRTE where built with PMIx 6).
pub const DEFINE_DIRECTIVE: &str = "pmix.jctrl.defpset";
/// rpmix's job-control directive that deletes a set (a string, its name;
/// the targets are not used). The Standard has none.
pub const DELETE_DIRECTIVE: &str = "rpmix.jctrl.delpset";

/// The defined sets, in the order of their definition.
#[derive(Default)]
pub struct Psets(Vec<(String, Vec<Proc>)>);

impl Psets {
    /// Define `name` (a name defined again takes the new members, in its place).
    pub fn define(&mut self, name: &str, members: Vec<Proc>) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(e) => e.1 = members,
            None => self.0.push((name.to_string(), members)),
        }
    }

    /// Forget `name`; false if it was not defined.
    pub fn delete(&mut self, name: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|(n, _)| n != name);
        self.0.len() < before
    }

    pub fn members(&self, name: &str) -> Option<&[Proc]> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, m)| m.as_slice())
    }

    /// The names, comma-separated, in the order defined.
    pub fn names(&self) -> String {
        self.0.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(",")
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The names of the sets `proc` belongs to (a member given with the
    /// wildcard rank names every rank of its namespace).
    pub fn of(&self, proc: &Proc) -> Vec<&str> {
        self.0.iter().filter(|(_, m)| m.iter().any(|x| x.names(proc))).map(|(n, _)| n.as_str()).collect()
    }
}

impl Psets {
    /// PMIx_server_define_process_set: remember it. Returns the infos of
    /// the event that tells the local clients (PMIX_PROCESS_SET_DEFINE).
    pub fn define_announced(&mut self, name: &str, members: Vec<Proc>) -> Result<Vec<Info>, pmix_status_t> {
        if name.is_empty() {
            crate::pmix_debug!(1, "PMIx_server_define_process_set: an empty name");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let info = vec![
            Info::new("pmix.evnondef", Value::boolean(true)),
            Info::new("pmix.pset.nm", Value::string(name)),
            Info::new("pmix.pset.mems", Value::procs(&members)),
        ];
        crate::pmix_debug!(2, "process set {name} defined: {} members", members.len());
        self.define(name, members);
        Ok(info)
    }

    /// PMIx_server_delete_process_set: forget it. Returns the infos of the
    /// event that tells the local clients (PMIX_PROCESS_SET_DELETE).
    pub fn delete_announced(&mut self, name: &str) -> Result<Vec<Info>, pmix_status_t> {
        if !self.delete(name) {
            crate::pmix_debug!(1, "PMIx_server_delete_process_set: no process set '{name}'");
            return Err(PMIX_ERR_NOT_FOUND);
        }
        crate::pmix_debug!(2, "process set {name} deleted");
        Ok(vec![Info::new("pmix.evnondef", Value::boolean(true)), Info::new("pmix.pset.nm", Value::string(name))])
    }

    /// The answer to one pset query key (None: not a pset key). The
    /// membership needs the set's name (qualifier PMIX_PSET_NAME).
    pub(super) fn query(&self, key: &str, quals: &[Info]) -> Option<Result<Info, pmix_status_t>> {
        Some(match key {
            "pmix.qry.psetnum" => Ok(Info::new(key, Value::size(self.count()))),
            "pmix.qry.psets" => Ok(Info::new(key, Value::string(&self.names()))),
            "pmix.qry.pmems" => {
                let Some(name) = find(quals, PMIX_PSET_NAME).and_then(|i| i.as_str()) else {
                    crate::pmix_debug!(1, "query {key}: no PMIX_PSET_NAME qualifier naming the set");
                    return Some(Err(PMIX_ERR_BAD_PARAM));
                };
                match self.members(&name) {
                    Some(m) => Ok(Info::new(key, Value::procs(m))),
                    None => {
                        crate::pmix_debug!(2, "query {key}: no process set '{name}'");
                        Err(PMIX_ERR_NOT_FOUND)
                    }
                }
            }
            _ => return None,
        })
    }

    /// A Get of PMIX_PSET_NAMES for `target`: the sets it belongs to,
    /// comma-separated (as OpenPMIx's server answers it); None when it
    /// belongs to none.
    pub(super) fn names_of(&self, target: &Proc) -> Option<Info> {
        let names = self.of(target);
        (!names.is_empty()).then(|| Info::new("pmix.pset.nms", Value::string(&names.join(","))))
    }
}
