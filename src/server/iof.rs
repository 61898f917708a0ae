//! IO forwarding in the server (RFC0025): the host delivers what its
//! processes write (PMIx_server_IOF_deliver); clients and tools that pulled a
//! source and channel receive it; what nobody pulled yet is cached per source
//! and channel, bounded in bytes with a drop policy, and delivered on the
//! first matching pull (the spawn race).

use std::collections::{HashMap, VecDeque};

use crate::abi::*;
use crate::msg;
use crate::flags::Channels;
use crate::data::pack::Encoder;
use crate::owned::Proc;
use crate::owned::{self};
use crate::runtime::ConnId;
use crate::runtime::Net;
use crate::wire;

use super::host::{Host, Upcall};
use super::{reply, settled};
use crate::msg::Reply;

/// The socket buffer asked for a connection that pulls output: output
/// comes in chunks of up to 1 MiB (pmixrun's), and what the socket holds is
/// not copied into the connection's queue.
const PULL_SEND_BUFFER: usize = 2 << 20;

/// One registration of a PMIx_IOF_pull.
pub struct Pull {
    pub id: u32,
    pub conn: ConnId,
    /// The requester's own handle (echoed in every delivery).
    pub handle: u32,
    pub requester: Proc,
    pub procs: Vec<Proc>,
    pub channels: Channels,
}

impl Pull {
    pub fn matches(&self, source: &Proc, channel: pmix_iof_channel_t) -> bool {
        self.channels.intersects(Channels::from(channel))
            && self.requester != *source
            && self.procs.iter().any(|p| p.nspace == source.nspace && (p.rank == PMIX_RANK_WILDCARD || p.rank == source.rank))
    }
}

/// A chunk of output: bytes, and whether it ends the stream (PMIX_IOF_COMPLETE).
pub type Chunk = (Vec<u8>, bool);

pub struct Iof {
    pub pulls: Vec<Pull>,
    next_id: u32,
    cache: HashMap<(Proc, pmix_iof_channel_t), VecDeque<Chunk>>,
    cached_bytes: HashMap<(Proc, pmix_iof_channel_t), usize>,
    /// Cache bound per source and channel (PMIX_IOF_CACHE_SIZE at server init, bytes).
    pub cache_size: usize,
    /// Drop the newest data when the cache is full (PMIX_IOF_DROP_NEWEST); default: the oldest.
    pub drop_newest: bool,
    /// (source, channel) combinations already asked of the host's iof_pull.
    asked: std::collections::HashSet<(Proc, Channels)>,
    /// Bytes the host handed over per source, stdout and stderr (tools'
    /// views: `rpmix.qry.top`).
    delivered: HashMap<Proc, [u64; 2]>,
}

impl Default for Iof {
    fn default() -> Self {
        Iof { pulls: Vec::new(), next_id: 1, cache: HashMap::new(), cached_bytes: HashMap::new(), cache_size: 1 << 20, drop_newest: false, asked: Default::default(), delivered: HashMap::new() }
    }
}

impl Iof {
    pub fn add_pull(&mut self, conn: ConnId, handle: u32, requester: Proc, procs: Vec<Proc>, channels: Channels) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.pulls.push(Pull { id, conn, handle, requester, procs, channels });
        id
    }

    pub fn remove_pull(&mut self, conn: ConnId, id: u32) -> bool {
        let before = self.pulls.len();
        self.pulls.retain(|p| !(p.conn == conn && p.id == id));
        self.pulls.len() < before
    }

    pub fn drop_conn(&mut self, conn: ConnId) {
        self.pulls.retain(|p| p.conn != conn);
    }

    /// Keep a chunk nobody pulled yet, within the bound.
    pub fn cache(&mut self, source: &Proc, channel: pmix_iof_channel_t, chunk: Chunk) {
        let key = (source.clone(), channel);
        let q = self.cache.entry(key.clone()).or_default();
        let used = self.cached_bytes.entry(key).or_default();
        let len = chunk.0.len();
        if len > self.cache_size && !chunk.1 {
            crate::pmix_debug!(5, "iof: a {len}-byte chunk of {source} exceeds the cache; dropped");
            return;
        }
        if self.drop_newest {
            if *used + len > self.cache_size && !chunk.1 {
                return;
            }
        } else {
            while *used + len > self.cache_size {
                match q.pop_front() {
                    Some((b, _)) => *used -= b.len(),
                    None => break,
                }
            }
        }
        *used += len;
        q.push_back(chunk);
    }

    /// Forget what was kept of a namespace's output, and which of its
    /// sources were asked of the host: called when the namespace is
    /// deregistered (no pull can name it afterwards). Without it a
    /// long-lived server keeps every ended job's unread output.
    pub fn forget_nspace(&mut self, nspace: &str) {
        self.cache.retain(|(p, _), _| p.nspace != nspace);
        self.cached_bytes.retain(|(p, _), _| p.nspace != nspace);
        self.asked.retain(|(p, _)| p.nspace != nspace);
        self.delivered.retain(|p, _| p.nspace != nspace);
    }

    /// Bytes of stdout and stderr the host handed over for `source`.
    pub fn delivered(&self, source: &Proc) -> Option<[u64; 2]> {
        self.delivered.get(source).copied()
    }

    /// Take the cached chunks a new pull matches, in order per source/channel.
    pub fn take_cached(&mut self, pull_id: u32) -> Vec<(Proc, pmix_iof_channel_t, Chunk)> {
        let Some(p) = self.pulls.iter().find(|p| p.id == pull_id) else { return Vec::new() };
        let keys: Vec<(Proc, pmix_iof_channel_t)> = self.cache.keys().filter(|(s, c)| p.matches(s, *c)).cloned().collect();
        let mut out = Vec::new();
        for k in keys {
            if let Some(q) = self.cache.remove(&k) {
                self.cached_bytes.remove(&k);
                out.extend(q.into_iter().map(|c| (k.0.clone(), k.1, c)));
            }
        }
        out
    }
}

// ---- requests from clients and tools ----

/// Where forwarded output comes from, for PMIX_IOF_TAG_DETAILED_OUTPUT.
pub(super) struct Origin<'a> {
    host: &'a str,
    /// 0 when unknown.
    pid: u32,
}

impl<'a> Origin<'a> {
    pub(super) fn new(host: &'a str, pid: u32) -> Origin<'a> {
        Origin { host, pid }
    }
}

#[allow(clippy::too_many_arguments)] // one wire frame's fields, in its order
pub(super) fn send_iof(net: &mut Net, conn: ConnId, handle: u32, source: &Proc, origin: &Origin<'_>, channel: pmix_iof_channel_t, data: &[u8], complete: bool) {
    // (handle, source, channel, bytes, end, origin host, origin pid): the
    // bytes go out from where they lie, between a head and a tail.
    let mut head = Encoder::default();
    head.u32(handle);
    source.encode(&mut head);
    head.u32(channel as u32);
    head.u64(data.len() as u64); // a blob's length; its bytes follow
    let mut tail = Encoder::default();
    tail.u32(complete as u32);
    owned::encode_str(&mut tail, origin.host);
    tail.u32(origin.pid);
    net.send_parts(conn, 0, wire::IOF, &[head.bytes(), data, tail.bytes()]);
}

impl Iof {
    /// PMIx_server_IOF_deliver: forward to every matching pull, else cache
    /// (and count) when `keep`. `origin`: where the source runs, for
    /// detailed output tags.
    #[allow(clippy::too_many_arguments)] // the host's call's fields, and the server's word on keeping
    pub(super) fn deliver(&mut self, net: &mut Net, source: &Proc, channel: pmix_iof_channel_t, data: &[u8], complete: bool, keep: bool, origin: &Origin<'_>) {
        let which = match channel {
            PMIX_FWD_STDOUT_CHANNEL => Some(0),
            PMIX_FWD_STDERR_CHANNEL => Some(1),
            _ => None,
        };
        if let (Some(w), false, true) = (which, data.is_empty(), keep) {
            self.delivered.entry(source.clone()).or_default()[w] += data.len() as u64;
        }
        let targets: Vec<(ConnId, u32)> = self.pulls.iter().filter(|p| p.matches(source, channel)).map(|p| (p.conn, p.handle)).collect();
        if targets.is_empty() {
            if keep {
                self.cache(source, channel, (data.to_vec(), complete));
            }
            return;
        }
        for (conn, handle) in targets {
            send_iof(net, conn, handle, source, origin, channel, data, complete);
        }
    }

    /// The largest backlog of forwarded output any pulling tool has not read
    /// yet: a host that can make its sources wait (pmixrun) throttles on it,
    /// so a slow tool bounds memory instead of growing it.
    pub fn backlog(&self, net: &Net) -> usize {
        self.pulls.iter().map(|p| net.queued(p.conn)).max().unwrap_or(0)
    }

    /// A pull from `who` on `conn`; the host is asked only for the sources
    /// and channels it was not asked for before. What was cached for it
    /// follows the reply (`origin_of` names where each source runs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pull(&mut self, net: &mut Net, host: &mut dyn Host, conn: ConnId, req: u32, who: &Proc, pull: msg::IofPull, origin_of: impl Fn(&Proc) -> (String, u32)) {
        let msg::IofPull { procs, channels, handle, directives } = pull;
        let channels = Channels::from(channels);
        if channels.contains(Channels::STDIN) {
            reply(net, conn, req, Reply::Status(PMIX_ERR_NOT_SUPPORTED));
            return;
        }
        if channels.is_empty() || procs.is_empty() {
            reply(net, conn, req, Reply::Status(PMIX_ERR_BAD_PARAM));
            return;
        }
        let fresh: Vec<Proc> = procs
            .iter()
            .filter(|p| Channels::OUTPUTS.iter().any(|c| channels.contains(*c) && !self.asked.contains(&((*p).clone(), *c))))
            .cloned()
            .collect();
        if !fresh.is_empty() {
            for p in &fresh {
                for c in Channels::OUTPUTS.into_iter().filter(|c| channels.contains(*c)) {
                    self.asked.insert((p.clone(), c));
                }
            }
            let _ = host.iof_pull(&fresh, &directives, channels.raw(), Box::new(|_| {}));
        }
        let id = self.add_pull(conn, handle, who.clone(), procs, channels);
        net.set_send_buffer(conn, PULL_SEND_BUFFER);
        reply(net, conn, req, Reply::IofPull { status: PMIX_SUCCESS, id });
        // Output written before anyone pulled it follows the reply.
        for (src, ch, (data, complete)) in self.take_cached(id) {
            let (host, pid) = origin_of(&src);
            send_iof(net, conn, handle, &src, &Origin { host: &host, pid }, ch, &data, complete);
        }
    }

    pub(super) fn deregister(&mut self, net: &mut Net, conn: ConnId, req: u32, id: u32) {
        let st = if self.remove_pull(conn, id) { PMIX_SUCCESS } else { PMIX_ERR_NOT_FOUND };
        reply(net, conn, req, Reply::Status(st));
    }
}

/// PMIx_IOF_push from a tool: stdin for the targets, through the host.
pub(super) fn push(net: &mut Net, host: &mut dyn Host, conn: ConnId, req: u32, who: &Proc, push: msg::IofPush, done: super::host::Done) {
    let msg::IofPush { targets, data, directives } = push;
    if let Upcall::Now(st) = host.push_stdin(who, &targets, &directives, data.as_deref(), done) {
        reply(net, conn, req, Reply::Status(settled(st)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_bound_and_policies() {
        let src = Proc::new("ns", 1);
        let mut i = Iof { cache_size: 10, ..Default::default() };
        i.cache(&src, PMIX_FWD_STDOUT_CHANNEL, (b"12345".to_vec(), false));
        i.cache(&src, PMIX_FWD_STDOUT_CHANNEL, (b"67890".to_vec(), false));
        i.cache(&src, PMIX_FWD_STDOUT_CHANNEL, (b"abc".to_vec(), false)); // drops the oldest
        let id = i.add_pull(3, 7, Proc::new("tool", 0), vec![Proc::wildcard("ns")], Channels::from(PMIX_FWD_ALL_CHANNELS));
        let got: Vec<u8> = i.take_cached(id).into_iter().flat_map(|(_, _, c)| c.0).collect();
        assert_eq!(got, b"67890abc");
        let mut n = Iof { cache_size: 10, drop_newest: true, ..Default::default() };
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"12345".to_vec(), false));
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"67890".to_vec(), false));
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"abc".to_vec(), false)); // dropped
        let id = n.add_pull(3, 7, Proc::new("tool", 0), vec![Proc::new("ns", 1)], Channels::STDERR);
        let got: Vec<u8> = n.take_cached(id).into_iter().flat_map(|(_, _, c)| c.0).collect();
        assert_eq!(got, b"1234567890");
    }

    /// A deregistered namespace's kept output is dropped, another's kept.
    #[test]
    fn forget_nspace_drops_its_cache() {
        let mut i = Iof::default();
        i.cache(&Proc::new("gone", 0), PMIX_FWD_STDOUT_CHANNEL, (b"old".to_vec(), false));
        i.cache(&Proc::new("gone", 1), PMIX_FWD_STDERR_CHANNEL, (b"old".to_vec(), true));
        i.cache(&Proc::new("live", 0), PMIX_FWD_STDOUT_CHANNEL, (b"new".to_vec(), false));
        i.asked.insert((Proc::new("gone", 0), Channels::STDOUT));
        i.delivered.insert(Proc::new("gone", 0), [3, 0]);
        i.delivered.insert(Proc::new("live", 0), [3, 0]);
        i.forget_nspace("gone");
        assert_eq!((i.cache.len(), i.cached_bytes.len(), i.asked.len(), i.delivered.len()), (1, 1, 0, 1));
        let id = i.add_pull(3, 7, Proc::new("tool", 0), vec![Proc::wildcard("gone"), Proc::wildcard("live")], Channels::from(PMIX_FWD_ALL_CHANNELS));
        let got: Vec<Vec<u8>> = i.take_cached(id).into_iter().map(|(_, _, c)| c.0).collect();
        assert_eq!(got, vec![b"new".to_vec()]);
    }

    #[test]
    fn matching_rules() {
        let p = Pull { id: 1, conn: 2, handle: 3, requester: Proc::new("tool", 0), procs: vec![Proc::new("ns", 2)], channels: Channels::STDOUT };
        assert!(p.matches(&Proc::new("ns", 2), PMIX_FWD_STDOUT_CHANNEL));
        assert!(!p.matches(&Proc::new("ns", 3), PMIX_FWD_STDOUT_CHANNEL));
        assert!(!p.matches(&Proc::new("ns", 2), PMIX_FWD_STDERR_CHANNEL));
    }
}
