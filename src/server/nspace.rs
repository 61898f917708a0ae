//! Namespaces the server knows: registered job data, its local clients, and
//! the data they committed. Registration derives what the host did not give
//! (sizes, local peers and ranks, node ids, hostnames) from the node and
//! process maps, keeping the types of everything the host did give.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::abi::*;
use crate::owned::{infos_of_array, Info, Proc, Value};

/// A client the host registered (PMIx_server_register_client).
pub struct ClientReg {
    pub uid: u32,
    pub gid: u32,
    pub server_object: usize,
    /// The connection of a connected client.
    pub conn: Option<crate::runtime::ConnId>,
    /// Ever connected (a second connection for the rank is refused while one is live).
    pub connected: bool,
    pub finalized: bool,
    /// Finalized, exited or deregistered: its namespace's cleanup waits for all.
    pub terminated: bool,
}

/// Data a client committed: (scope, info).
pub type Committed = Vec<(pmix_scope_t, Info)>;

#[derive(Default)]
pub struct Nspace {
    pub name: String,
    /// PMIx_server_register_nspace was called (clients may register earlier).
    pub registered: bool,
    pub nlocalprocs: i32,
    /// Job-level data (rank WILDCARD), including node-level keys of this node.
    pub job: Vec<Info>,
    /// Proc-level data by rank.
    pub procs: BTreeMap<pmix_rank_t, Vec<Info>>,
    pub clients: BTreeMap<pmix_rank_t, ClientReg>,
    /// The server lays out this namespace's directories (PMIX_NSDIR and its
    /// ranks' PMIX_PROCDIR under its session directory): the host gave none.
    /// Each is made, and its key added, the first time it is asked for.
    pub own_dirs: bool,
    /// Committed (Put + Commit) data by rank, for local clients and for remote
    /// procs learnt from fences and direct modex.
    pub committed: BTreeMap<pmix_rank_t, Committed>,
    /// Ranks that committed at least once (a Get for a local rank that has not
    /// committed yet may wait for it).
    pub has_committed: std::collections::BTreeSet<pmix_rank_t>,
    /// Cleanup registered for the namespace.
    pub epilog: Option<super::cleanup::Epilog>,
    /// Local ranks that have ended (finalized, exited, deregistered).
    pub ended: std::collections::BTreeSet<pmix_rank_t>,
    /// How local ranks ended, where the host said (`note_exit`, or an event
    /// PMIX_EVENT_PROC_TERMINATED with PMIX_EXIT_CODE): for tools' views.
    pub exits: BTreeMap<pmix_rank_t, ExitOf>,
    /// Registered with `rpmix.cred.reqd`: a rank must present its credential.
    pub cred_required: bool,
    /// The node and process maps, compact: what a rank elsewhere needs
    /// (its host, node, local rank) is derived from them when asked, never
    /// stored per rank.
    pub layout: Option<Arc<crate::layout::Layout>>,
    /// Ranks on this node by the maps (or the host's PMIX_LOCAL_PEERS),
    /// whether or not they are registered or connected yet.
    pub local: BTreeSet<pmix_rank_t>,
    /// The hello's records, encoded once (rank WILDCARD: the job level):
    /// every local client gets them, so a launch of N ranks encodes N
    /// records, not N^2. Dropped when what they encode changes (`job` and
    /// `procs` change only through this file).
    encoded: std::collections::HashMap<pmix_rank_t, Vec<u8>>,
    /// The same records as one sealed snapshot every local client maps
    /// (`msg::snapshot`), made at the first hello that needs it. Dropped
    /// when the job level changes, not when a rank's record gains a key
    /// (its PMIX_PROC_PID once started, its PMIX_PROCDIR): each hello
    /// carries its own record as it is now, and a peer's key the snapshot
    /// lacks is a cache miss the server answers, as for a client that
    /// connected before the key was added. Remaking it at every such
    /// change would cost O(N) per start of a rank again.
    shared: Option<Arc<std::os::fd::OwnedFd>>,
}

impl Nspace {
    pub fn new(name: &str) -> Nspace {
        Nspace { name: name.to_string(), ..Default::default() }
    }

    pub fn job_size(&self) -> Option<u32> {
        crate::owned::find(&self.job, PMIX_JOB_SIZE).and_then(|i| i.as_u32())
    }

    /// All ranks of the namespace when its size is known.
    pub fn all_ranks(&self) -> Vec<pmix_rank_t> {
        match self.job_size() {
            Some(n) => (0..n).collect(),
            None => self.clients.keys().copied().collect(),
        }
    }

    /// Is `rank` served by this server?
    pub fn is_local(&self, rank: pmix_rank_t) -> bool {
        self.local.contains(&rank) || self.clients.contains_key(&rank)
    }

    /// Every rank of the namespace is served here (size known).
    pub fn all_local(&self) -> bool {
        let Some(n) = self.job_size() else { return false };
        let extra = self.clients.keys().filter(|r| !self.local.contains(r) && **r < n).count();
        self.local.range(..n).count() + extra == n as usize
    }

    /// Local ranks, registered or from the maps, in order.
    pub fn local_ranks(&self) -> BTreeSet<pmix_rank_t> {
        self.local.iter().chain(self.clients.keys()).copied().collect()
    }

    /// A key of `rank` (WILDCARD: of the job) that the maps answer.
    pub fn derived(&self, rank: pmix_rank_t, key: &str) -> Option<Value> {
        self.layout.as_ref()?.derived(rank, key)
    }

    /// Store the host's registration and derive the missing keys.
    pub fn register(&mut self, nlocalprocs: i32, info: Vec<Info>, hostname: &str) {
        self.registered = true;
        self.nlocalprocs = nlocalprocs;
        if crate::owned::find(&info, PMIX_REGISTER_NODATA).is_some_and(|i| i.truthy()) {
            return;
        }
        let mut job = Vec::new();
        for i in info {
            if i.is(PMIX_PROC_INFO_ARRAY) || i.is(PMIX_PROC_DATA) {
                self.add_proc_array(&i);
            } else if i.is(PMIX_JOB_INFO_ARRAY) || i.is(PMIX_NODE_INFO_ARRAY) || i.is(PMIX_APP_INFO_ARRAY) || i.is(PMIX_SESSION_INFO_ARRAY) {
                // Flatten job/node/app/session arrays into job-level data (one node, one view).
                for inner in infos_of_array(&i) {
                    if inner.is(PMIX_PROC_INFO_ARRAY) {
                        self.add_proc_array(&inner);
                    } else if !inner.is(PMIX_RANK) {
                        job.push(inner);
                    }
                }
            } else {
                job.push(i);
            }
        }
        self.job = job;
        self.derive(hostname);
        self.encoded.clear();
        self.shared = None;
    }

    fn add_proc_array(&mut self, i: &Info) {
        let items = infos_of_array(i);
        let Some(rank) = items.iter().find(|x| x.is(PMIX_RANK)).and_then(|x| x.as_u32()) else {
            crate::pmix_debug!(1, "register_nspace: proc data array without PMIX_RANK ignored");
            return;
        };
        let entry = self.procs.entry(rank).or_default();
        for it in items {
            if !it.is(PMIX_RANK) {
                entry.retain(|e| e.key() != it.key());
                entry.push(it);
            }
        }
    }

    pub fn has(&self, key: &core::ffi::CStr) -> bool {
        crate::owned::find(&self.job, key).is_some()
    }

    pub fn set_if_missing(&mut self, key: &core::ffi::CStr, v: Value) {
        if !self.has(key) {
            self.job.push(Info::new(key.to_str().unwrap(), v));
            self.changed(PMIX_RANK_WILDCARD);
        }
    }

    /// Job-level `i` unless the job data has its key already.
    pub fn add_if_missing(&mut self, i: &Info) {
        if !self.job.iter().any(|x| x.key() == i.key()) {
            self.job.push(i.clone());
            self.changed(PMIX_RANK_WILDCARD);
        }
    }

    /// Whether `rank`'s registered data has `key`.
    pub fn has_proc_key(&self, rank: pmix_rank_t, key: &core::ffi::CStr) -> bool {
        self.procs.get(&rank).is_some_and(|e| e.iter().any(|x| x.is(key)))
    }

    pub fn set_proc_if_missing(&mut self, rank: pmix_rank_t, key: &core::ffi::CStr, v: Value) {
        let e = self.procs.entry(rank).or_default();
        if !e.iter().any(|x| x.is(key)) {
            e.push(Info::new(key.to_str().unwrap(), v));
            self.changed(rank);
        }
    }

    /// Fill in the keys a client expects right after PMIx_Init. Only this
    /// node's ranks get per-proc entries: the others' are derived from the
    /// maps when asked (`derived`), so nothing here grows with the job.
    fn derive(&mut self, hostname: &str) {
        let node_map = crate::owned::find(&self.job, PMIX_NODE_MAP).and_then(|i| i.as_str());
        let proc_map = crate::owned::find(&self.job, PMIX_PROC_MAP).and_then(|i| i.as_str());
        if node_map.is_some() || proc_map.is_some() {
            self.layout = crate::layout::Layout::parse(node_map.as_deref(), proc_map.as_deref()).map(Arc::new);
            if self.layout.is_none() {
                crate::pmix_debug!(1, "register_nspace {}: the node or process map does not parse; ignoring both", self.name);
            }
        }
        let layout = self.layout.clone().unwrap_or_default();
        if !self.has(PMIX_JOB_SIZE) {
            let n = if layout.has_procs() {
                layout.size()
            } else {
                self.procs.keys().max().map(|m| m + 1).unwrap_or(self.nlocalprocs.max(0) as u32)
            };
            self.job.push(Info::new("pmix.job.size", Value::u32(n)));
        }
        let size = self.job_size().unwrap_or(0);
        self.set_if_missing(PMIX_MAX_PROCS, Value::u32(size));
        if layout.num_nodes() > 0 {
            self.set_if_missing(PMIX_NUM_NODES, Value::u32(layout.num_nodes()));
        }
        // This node: the one named like us (or like our short name: hosts
        // name nodes with or without their domain). Not "the only node": a
        // job of one other node has nothing here.
        let short = |n: &str| n.split('.').next().unwrap_or(n).to_string();
        let here = layout.node_index(hostname).or_else(|| {
            let me = short(hostname);
            (0..layout.num_nodes()).find(|i| layout.node_name(*i).is_some_and(|n| short(&n) == me))
        });
        // The maps say which ranks live here; without them, the host's
        // PMIX_LOCAL_PEERS (the first given: a host that flattens every
        // node's array into the job data gives several).
        let given_peers = crate::owned::find(&self.job, PMIX_LOCAL_PEERS).and_then(|i| i.as_str());
        let local: Vec<pmix_rank_t> = match (here, given_peers) {
            (Some(h), _) if layout.has_procs() => layout.ranks_on(h),
            (_, Some(p)) => p.split(',').filter_map(|r| r.trim().parse().ok()).collect(),
            _ if !layout.has_procs() && layout.num_nodes() <= 1 => (0..size).collect(),
            _ => Vec::new(),
        };
        // A namespace registered with no local procs (another server's job,
        // learnt for a connect) has none here, whatever the maps say: two
        // servers may share a node.
        self.local = if self.nlocalprocs > 0 { local.iter().copied().collect() } else { BTreeSet::new() };
        crate::pmix_debug!(
            5,
            "register_nspace {}: {size} ranks over {} nodes, this node ({hostname}) is {here:?} with {} of them: {:?}",
            self.name,
            layout.num_nodes(),
            local.len(),
            &local[..local.len().min(16)]
        );
        if !local.is_empty() {
            self.set_if_missing(PMIX_LOCAL_SIZE, Value::u32(local.len() as u32));
            let peers: Vec<String> = local.iter().map(|r| r.to_string()).collect();
            self.set_if_missing(PMIX_LOCAL_PEERS, Value::string(&peers.join(",")));
            self.set_if_missing(PMIX_LOCALLDR, Value::rank(local[0]));
            self.set_if_missing(PMIX_NODE_SIZE, Value::u32(local.len() as u32));
        }
        // Per local proc: hostname, node id, local and node rank.
        for (lr, &r) in local.iter().enumerate() {
            let placed = layout.place(r);
            let host = placed.and_then(|(n, _)| layout.node_name(n)).unwrap_or_else(|| hostname.to_string());
            self.set_proc_if_missing(r, PMIX_HOSTNAME, Value::string(&host));
            if let Some((n, _)) = placed {
                self.set_proc_if_missing(r, PMIX_NODEID, Value::u32(n));
            }
            let lr = placed.map_or(lr as u32, |(_, l)| l) as u16;
            self.set_proc_if_missing(r, PMIX_LOCAL_RANK, Value::u16(lr));
            self.set_proc_if_missing(r, PMIX_NODE_RANK, Value::u16(lr));
        }
        if !self.has(PMIX_HOSTNAME) {
            self.job.push(Info::new("pmix.hname", Value::string(hostname)));
        }
    }

    /// `rank`'s record (WILDCARD: the job level) changed: encode it again.
    fn changed(&mut self, rank: pmix_rank_t) {
        self.encoded.remove(&rank);
        if rank == PMIX_RANK_WILDCARD {
            self.shared = None;
        }
    }

    /// Encode the records not encoded since they last changed.
    fn encode_records(&mut self) -> crate::status::Res {
        for (r, v) in std::iter::once((&PMIX_RANK_WILDCARD, &self.job)).chain(self.procs.iter()) {
            if !self.encoded.contains_key(r) {
                self.encoded.insert(*r, encode_record(v)?);
            }
        }
        Ok(())
    }

    /// Everything a client of this namespace caches at PMIx_Init, encoded:
    /// (rank, its infos as one blob) for the job level (rank WILDCARD) and
    /// each rank with registered data. The blobs let a client keep the
    /// others' records undecoded until it asks for one. (The hello's
    /// fallback when the shared snapshot cannot be passed.)
    pub fn records(&mut self) -> crate::status::Res<Vec<(pmix_rank_t, &[u8])>> {
        self.encode_records()?;
        Ok(std::iter::once(&PMIX_RANK_WILDCARD).chain(self.procs.keys()).map(|r| (*r, &self.encoded[r][..])).collect())
    }

    /// The same records as `records`, as the sealed snapshot every
    /// local client maps (made once per change of the records).
    pub fn shared_snapshot(&mut self) -> crate::status::Res<Arc<std::os::fd::OwnedFd>> {
        if let Some(fd) = &self.shared {
            return Ok(fd.clone());
        }
        self.encode_records()?;
        let records: Vec<(pmix_rank_t, &[u8])> = self.encoded.iter().map(|(r, b)| (*r, &b[..])).collect();
        let fd = Arc::new(crate::msg::snapshot::seal(&crate::msg::snapshot::encode(&records)).map_err(|e| {
            crate::pmix_debug!(1, "namespace {}: no shared job data snapshot ({e}): hellos carry the records", self.name);
            PMIX_ERR_OUT_OF_RESOURCE
        })?);
        self.shared = Some(fd.clone());
        Ok(fd)
    }

    /// `rank`'s own registered record as it is now, encoded (the hello
    /// carries it beside the snapshot, which may predate its last keys).
    pub fn own_record(&mut self, rank: pmix_rank_t) -> crate::status::Res<Option<&[u8]>> {
        // (this rank's only: encoding every stale record at each hello
        // would cost O(N) a rank while N ranks start)
        let Some(v) = self.procs.get(&rank) else { return Ok(None) };
        if let std::collections::hash_map::Entry::Vacant(e) = self.encoded.entry(rank) {
            e.insert(encode_record(v)?);
        }
        Ok(self.encoded.get(&rank).map(|b| &b[..]))
    }

    /// Data of `rank` visible to a requester: committed (LOCAL/GLOBAL when the
    /// requester is on this node, REMOTE/GLOBAL otherwise) plus registered proc data.
    pub fn data_for(&self, rank: pmix_rank_t, requester_local: bool) -> Vec<Info> {
        let mut out = self.committed_for(rank, requester_local);
        if let Some(p) = self.procs.get(&rank) {
            out.extend(p.iter().cloned());
        }
        if let Some(l) = &self.layout {
            for i in l.derived_all(rank) {
                if !out.iter().any(|o| o.key() == i.key()) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// What `rank` committed that a requester may see (see data_for): for one
    /// on another node, what a fence or a direct modex carries there. The
    /// registered proc data is not sent: every server has its own from its host.
    pub fn committed_for(&self, rank: pmix_rank_t, requester_local: bool) -> Vec<Info> {
        let Some(c) = self.committed.get(&rank) else { return Vec::new() };
        c.iter()
            .filter(|(scope, _)| match *scope {
                PMIX_LOCAL => requester_local,
                PMIX_REMOTE => !requester_local,
                PMIX_INTERNAL => false,
                _ => true,
            })
            .map(|(_, i)| i.clone())
            .collect()
    }
}


/// One record (a rank's infos, or the job level's) as the hello carries it.
fn encode_record(infos: &[Info]) -> crate::status::Res<Vec<u8>> {
    let mut one = crate::data::pack::Encoder::default();
    crate::owned::encode_infos(&mut one, infos)?;
    Ok(one.into_bytes())
}

/// A proc-list helper: expand WILDCARD ranks with the namespace sizes known here.
pub fn expand(procs: &[Proc], nspaces: &std::collections::HashMap<String, Nspace>) -> Vec<Proc> {
    let mut out = Vec::new();
    for p in procs {
        if p.rank == PMIX_RANK_WILDCARD {
            match nspaces.get(&p.nspace) {
                Some(ns) => out.extend(ns.all_ranks().into_iter().map(|r| Proc::new(&p.nspace, r))),
                None => out.push(p.clone()),
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// How a process ended, as its host saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitOf {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

/// Namespaces this server deregistered (their jobs ended), so that a
/// barrier that names one fails at once instead of waiting for members that
/// can never come, or going to the host as if they lived elsewhere. The
/// newest `Gone::KEEP` names are kept; a name registered again is forgotten.
/// (Each name is one allocation, shared by the order and the set. The set
/// is a B-tree: a hash set whose oldest names keep leaving grows its table
/// once more when the removed slots fill it, where a B-tree's memory
/// follows the names it holds.)
#[derive(Default)]
pub struct Gone {
    order: std::collections::VecDeque<std::sync::Arc<str>>,
    names: std::collections::BTreeSet<std::sync::Arc<str>>,
}

impl Gone {
    const KEEP: usize = 4096;

    pub fn ended(&mut self, name: &str) {
        if self.contains(name) {
            return;
        }
        let name: std::sync::Arc<str> = name.into();
        if self.names.insert(name.clone()) {
            self.order.push_back(name);
            if self.order.len() > Gone::KEEP {
                if let Some(old) = self.order.pop_front() {
                    self.names.remove(&old);
                }
            }
        }
    }

    pub fn registered(&mut self, name: &str) {
        if self.names.remove(name) {
            self.order.retain(|n| &**n != name);
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }
}

#[cfg(test)]
mod gone_tests {
    use super::Gone;

    #[test]
    fn keeps_the_newest_names_and_forgets_a_name_registered_again() {
        let mut g = Gone::default();
        for i in 0..Gone::KEEP + 10 {
            g.ended(&format!("ns{i}"));
        }
        assert!(!g.contains("ns0") && !g.contains("ns9"));
        assert!(g.contains("ns10") && g.contains(&format!("ns{}", Gone::KEEP + 9)));
        g.registered("ns10");
        assert!(!g.contains("ns10"));
        g.ended("ns10");
        assert!(g.contains("ns10"));
    }
}
