//! IO forwarding in the server (RFC0025): the host delivers what its
//! processes write (PMIx_server_IOF_deliver); clients and tools that pulled a
//! source and channel receive it; what nobody pulled yet is cached per source
//! and channel, bounded in bytes with a drop policy, and delivered on the
//! first matching pull (the spawn race).

use std::collections::{HashMap, VecDeque};

use crate::abi::*;
use crate::owned::Proc;
use crate::runtime::ConnId;

/// One registration of a PMIx_IOF_pull.
pub struct Pull {
    pub id: u32,
    pub conn: ConnId,
    /// The requester's own handle (echoed in every delivery).
    pub handle: u32,
    pub requester: Proc,
    pub procs: Vec<Proc>,
    pub channels: pmix_iof_channel_t,
}

impl Pull {
    pub fn matches(&self, source: &Proc, channel: pmix_iof_channel_t) -> bool {
        self.channels & channel != 0
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
}

impl Default for Iof {
    fn default() -> Self {
        Iof { pulls: Vec::new(), next_id: 1, cache: HashMap::new(), cached_bytes: HashMap::new(), cache_size: 1 << 20, drop_newest: false }
    }
}

impl Iof {
    pub fn add_pull(&mut self, conn: ConnId, handle: u32, requester: Proc, procs: Vec<Proc>, channels: pmix_iof_channel_t) -> u32 {
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
        let id = i.add_pull(3, 7, Proc::new("tool", 0), vec![Proc::wildcard("ns")], PMIX_FWD_ALL_CHANNELS);
        let got: Vec<u8> = i.take_cached(id).into_iter().flat_map(|(_, _, c)| c.0).collect();
        assert_eq!(got, b"67890abc");
        let mut n = Iof { cache_size: 10, drop_newest: true, ..Default::default() };
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"12345".to_vec(), false));
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"67890".to_vec(), false));
        n.cache(&src, PMIX_FWD_STDERR_CHANNEL, (b"abc".to_vec(), false)); // dropped
        let id = n.add_pull(3, 7, Proc::new("tool", 0), vec![Proc::new("ns", 1)], PMIX_FWD_STDERR_CHANNEL);
        let got: Vec<u8> = n.take_cached(id).into_iter().flat_map(|(_, _, c)| c.0).collect();
        assert_eq!(got, b"1234567890");
    }

    #[test]
    fn matching_rules() {
        let p = Pull { id: 1, conn: 2, handle: 3, requester: Proc::new("tool", 0), procs: vec![Proc::new("ns", 2)], channels: PMIX_FWD_STDOUT_CHANNEL };
        assert!(p.matches(&Proc::new("ns", 2), PMIX_FWD_STDOUT_CHANNEL));
        assert!(!p.matches(&Proc::new("ns", 3), PMIX_FWD_STDOUT_CHANNEL));
        assert!(!p.matches(&Proc::new("ns", 2), PMIX_FWD_STDERR_CHANNEL));
    }
}
