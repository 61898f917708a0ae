//! Where the ranks of a job live: the node map (PMIX_NODE_MAP) and the
//! process map (PMIX_PROC_MAP), kept compact and answered on demand.
//!
//! A job of a million ranks over thousands of nodes must not cost every
//! client a record per rank, so neither the server nor the client expands
//! the maps: `Layout` holds runs of node names and runs of ranks, and
//! resolves rank -> node -> host name when asked (binary search).
//!
//! The strings `PMIx_generate_regex` / `PMIx_generate_ppn` return are
//! rpmix's own compact form, behind the `rpmix2:` prefix:
//! - node map: names separated by ',', where `prefix[W:a-b]` stands for
//!   prefix+a .. prefix+b with numbers zero-padded to W digits (W = 0: not
//!   padded). `sn[6:1-8191]` is sn000001 .. sn008191.
//! - process map: nodes separated by ';', each a ',' list of ranks and
//!   ranges `a-b`; a node that is one range may end in `*k`: it and the next
//!   k-1 nodes each hold the next block of the same length. `0-7;8-135*8191`
//!   is 8 ranks on the first node, then 128 on each of 8191 nodes.
//!
//! Plain lists (`n1,n2` and `0,1;2,3`), the older `rpmix:` prefix and
//! OpenPMIx's `raw:` form parse too. The format is read back only by this
//! module: OpenPMIx's own regex (`pmix[...]`) is not understood, as with
//! every other library's private format.

use crate::abi::{pmix_rank_t, PMIX_RANK_WILDCARD};
use crate::owned::{Info, Value};

/// The per-proc keys the maps answer, and the job-level one.
const PROC_KEYS: [&str; 4] = ["pmix.hname", "pmix.nodeid", "pmix.lrank", "pmix.nrank"];
const NODE_LIST: &str = "pmix.nlist";

/// Prefix of the compact forms.
pub const PREFIX: &str = "rpmix2:";
/// Largest job a map may describe, and most ranks one node may hold: a map is
/// refused beyond them rather than allocating what it declares.
const MAX_RANKS: u64 = 1 << 31;
const MAX_RANKS_PER_NODE: u64 = 1 << 24;
/// Longest run of digits in a node name taken as a number.
const MAX_DIGITS: usize = 18;

/// A run of node names.
#[derive(Debug, Clone, PartialEq)]
enum NodeRun {
    One(String),
    /// prefix + (first .. first+count), zero-padded to `width` (0: not padded)
    Numbered { prefix: String, width: usize, first: u64, count: u32 },
}

impl NodeRun {
    fn len(&self) -> u32 {
        match self {
            NodeRun::One(_) => 1,
            NodeRun::Numbered { count, .. } => *count,
        }
    }
}

fn numbered(prefix: &str, width: usize, n: u64) -> String {
    format!("{prefix}{n:0width$}")
}

/// Ranks `first + j*len .. first + (j+1)*len` live on node `node + j`, for
/// j in 0..repeat, from local rank `local` on.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seg {
    first: u32,
    len: u32,
    node: u32,
    local: u32,
    repeat: u32,
}

impl Seg {
    fn end(&self) -> u64 {
        self.first as u64 + self.len as u64 * self.repeat as u64
    }
}

/// A job's node and process maps, compact.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    runs: Vec<NodeRun>,
    /// Index of the first node of each run.
    run_start: Vec<u32>,
    nnodes: u32,
    /// Sorted by first rank, disjoint.
    segs: Vec<Seg>,
    /// Ranks in the process map.
    size: u32,
}

fn body(s: &str) -> (&str, bool) {
    if let Some(b) = s.strip_prefix(PREFIX) {
        return (b, true);
    }
    (s.strip_prefix("rpmix:").or_else(|| s.strip_prefix("raw:")).unwrap_or(s), false)
}

/// The trailing digits of a name: (prefix, digits).
fn split_number(name: &str) -> (&str, &str) {
    let cut = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    name.split_at(cut)
}

/// The padding a run starting with these digits has (0: none).
fn width_of(digits: &str) -> usize {
    if digits.len() > 1 && digits.starts_with('0') {
        digits.len()
    } else {
        0
    }
}

/// Does `digits` continue a run of this width?
fn fits(width: usize, digits: &str) -> bool {
    if width == 0 {
        digits.len() == 1 || !digits.starts_with('0')
    } else {
        digits.len() == width
    }
}

/// PMIx_generate_regex: a comma-separated node list in the compact form.
pub fn generate_nodes(list: &str) -> String {
    let names: Vec<&str> = list.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
    if names.iter().any(|n| n.contains(['[', ']', '*', ';'])) {
        return format!("rpmix:{list}"); // not compressible safely: the plain list
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let (prefix, digits) = split_number(names[i]);
        if digits.is_empty() || digits.len() > MAX_DIGITS {
            out.push(names[i].to_string());
            i += 1;
            continue;
        }
        let width = width_of(digits);
        let first: u64 = digits.parse().unwrap_or(0);
        let mut last = first;
        let mut j = i + 1;
        while j < names.len() {
            let (p, d) = split_number(names[j]);
            if p != prefix || d.is_empty() || d.len() > MAX_DIGITS || !fits(width, d) || d.parse::<u64>().ok() != Some(last + 1) {
                break;
            }
            last += 1;
            j += 1;
        }
        if j - i == 1 {
            out.push(names[i].to_string());
        } else {
            out.push(format!("{prefix}[{width}:{first}-{last}]"));
        }
        i = j;
    }
    format!("{PREFIX}{}", out.join(","))
}

/// One node's ranks as ranges (first, len), from a ',' list.
fn parse_node_ranks(node: &str) -> Option<Vec<(u32, u32)>> {
    let mut v: Vec<(u32, u32)> = Vec::new();
    for item in node.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (a, b) = match item.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let r = item.parse::<u32>().ok()?;
                (r, r)
            }
        };
        if b < a || (b - a) as u64 >= MAX_RANKS_PER_NODE {
            return None;
        }
        match v.last_mut() {
            Some((f, l)) if *f as u64 + *l as u64 == a as u64 => *l += b - a + 1,
            _ => v.push((a, b - a + 1)),
        }
    }
    Some(v)
}

/// PMIx_generate_ppn: a ';'-separated list of per-node rank lists in the
/// compact form. None when the input is not such a list.
pub fn generate_procs(input: &str) -> Option<String> {
    // (first, len) as `first` or `first-last`
    let range = |f: u32, l: u32| if l == 1 { f.to_string() } else { format!("{f}-{}", f as u64 + l as u64 - 1) };
    let mut out: Vec<String> = Vec::new();
    // the previous node, when it was one range: (first, len, repeat so far)
    let mut block: Option<(u32, u32, u32)> = None;
    let flush = |out: &mut Vec<String>, b: Option<(u32, u32, u32)>| {
        if let Some((f, l, k)) = b {
            out.push(if k > 1 { format!("{}*{k}", range(f, l)) } else { range(f, l) });
        }
    };
    for node in input.split(';') {
        let ranges = parse_node_ranks(node)?;
        if let [(f, l)] = ranges[..] {
            match block {
                Some((bf, bl, k)) if bl == l && bf as u64 + bl as u64 * k as u64 == f as u64 => block = Some((bf, bl, k + 1)),
                _ => {
                    flush(&mut out, block.take());
                    block = Some((f, l, 1));
                }
            }
            continue;
        }
        flush(&mut out, block.take());
        out.push(ranges.iter().map(|&(f, l)| range(f, l)).collect::<Vec<_>>().join(","));
    }
    flush(&mut out, block);
    Some(format!("{PREFIX}{}", out.join(";")))
}

fn parse_node_runs(s: &str, compact: bool) -> Option<Vec<NodeRun>> {
    let mut runs = Vec::new();
    for item in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if compact && item.ends_with(']') {
            if let Some((prefix, rest)) = item[..item.len() - 1].split_once('[') {
                let (w, range) = rest.split_once(':')?;
                let (a, b) = range.split_once('-')?;
                let (width, first, last) = (w.parse::<usize>().ok()?, a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
                if last < first || last - first >= MAX_RANKS || width > MAX_DIGITS {
                    return None;
                }
                runs.push(NodeRun::Numbered { prefix: prefix.to_string(), width, first, count: (last - first + 1) as u32 });
                continue;
            }
        }
        runs.push(NodeRun::One(item.to_string()));
    }
    Some(runs)
}

impl Layout {
    /// The layout of a job from its node map and process map (either may be
    /// missing: then ranks have no node, or nodes no ranks). None when a map
    /// does not parse or describes more than this library accepts.
    pub fn parse(node_map: Option<&str>, proc_map: Option<&str>) -> Option<Layout> {
        let mut l = Layout::default();
        if let Some(nm) = node_map {
            let (b, compact) = body(nm);
            l.runs = parse_node_runs(b, compact)?;
            let mut n: u64 = 0;
            for r in &l.runs {
                l.run_start.push(n as u32);
                n += r.len() as u64;
                if n > MAX_RANKS {
                    return None;
                }
            }
            l.nnodes = n as u32;
        }
        if let Some(pm) = proc_map {
            let (b, compact) = body(pm);
            let mut node: u64 = 0;
            let mut total: u64 = 0;
            for entry in b.split(';') {
                let (ranks, repeat) = match entry.rsplit_once('*') {
                    Some((r, k)) if compact => (r, k.trim().parse::<u32>().ok().filter(|k| *k >= 1)?),
                    _ => (entry, 1),
                };
                let ranges = parse_node_ranks(ranks)?;
                if repeat > 1 && ranges.len() != 1 {
                    return None;
                }
                let mut local: u64 = 0;
                for (f, len) in ranges {
                    l.segs.push(Seg { first: f, len, node: node as u32, local: local as u32, repeat });
                    local += len as u64;
                    total += len as u64 * repeat as u64;
                }
                if local > MAX_RANKS_PER_NODE || total > MAX_RANKS {
                    return None;
                }
                node += repeat as u64;
                if node > MAX_RANKS {
                    return None;
                }
            }
            l.segs.sort_by_key(|s| s.first);
            // ranks appear once
            if l.segs.windows(2).any(|w| w[0].end() > w[1].first as u64) {
                return None;
            }
            if l.segs.iter().any(|s| s.end() > u32::MAX as u64) {
                return None;
            }
            l.size = total as u32;
            // a process map with more nodes than the node map has names: they are unnamed
            l.nnodes = l.nnodes.max(node as u32);
        }
        Some(l)
    }

    /// Ranks in the process map.
    pub fn size(&self) -> u32 {
        self.size
    }

    pub fn num_nodes(&self) -> u32 {
        self.nnodes
    }

    pub fn has_procs(&self) -> bool {
        !self.segs.is_empty()
    }

    /// The name of node `i`, when the node map names it.
    pub fn node_name(&self, i: u32) -> Option<String> {
        let r = self.run_start.partition_point(|&s| s <= i).checked_sub(1)?;
        match &self.runs[r] {
            NodeRun::One(n) => (i == self.run_start[r]).then(|| n.clone()),
            NodeRun::Numbered { prefix, width, first, count } => {
                let off = i - self.run_start[r];
                (off < *count).then(|| numbered(prefix, *width, first + off as u64))
            }
        }
    }

    /// The index of the node named `name`.
    pub fn node_index(&self, name: &str) -> Option<u32> {
        for (r, run) in self.runs.iter().enumerate() {
            match run {
                NodeRun::One(n) if n == name => return Some(self.run_start[r]),
                NodeRun::One(_) => {}
                NodeRun::Numbered { prefix, width, first, count } => {
                    let Some(digits) = name.strip_prefix(prefix.as_str()) else { continue };
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || !fits(*width, digits) {
                        continue;
                    }
                    let Ok(n) = digits.parse::<u64>() else { continue };
                    if n >= *first && n - first < *count as u64 {
                        return Some(self.run_start[r] + (n - first) as u32);
                    }
                }
            }
        }
        None
    }

    /// Every node name, comma-separated (PMIX_NODE_LIST).
    pub fn node_list(&self) -> String {
        (0..self.nnodes).filter_map(|i| self.node_name(i)).collect::<Vec<_>>().join(",")
    }

    /// (node index, local rank) of `rank`.
    pub fn place(&self, rank: pmix_rank_t) -> Option<(u32, u32)> {
        let i = self.segs.partition_point(|s| s.first <= rank).checked_sub(1)?;
        let s = &self.segs[i];
        if (rank as u64) >= s.end() {
            return None;
        }
        let off = rank - s.first;
        Some((s.node + off / s.len, s.local + off % s.len))
    }

    /// The ranks on node `node`, in local-rank order.
    pub fn ranks_on(&self, node: u32) -> Vec<pmix_rank_t> {
        let mut parts: Vec<(u32, u32, u32)> = Vec::new(); // (local, first, len)
        for s in &self.segs {
            if node >= s.node && ((node - s.node) as u64) < s.repeat as u64 {
                parts.push((s.local, s.first + (node - s.node) * s.len, s.len));
            }
        }
        parts.sort_unstable();
        parts.iter().flat_map(|&(_, f, l)| f..f + l).collect()
    }

    /// How many ranks node `node` holds.
    pub fn node_size(&self, node: u32) -> u32 {
        self.segs.iter().filter(|s| node >= s.node && ((node - s.node) as u64) < s.repeat as u64).map(|s| s.len).sum()
    }
}

impl Layout {
    /// The value of `key` for `rank` (WILDCARD: for the job) that the maps
    /// give: a rank's host name, node id, local and node rank (one node per
    /// job here, so they are equal), and the job's node list.
    pub fn derived(&self, rank: pmix_rank_t, key: &str) -> Option<Value> {
        if rank == PMIX_RANK_WILDCARD {
            return (key == NODE_LIST && self.nnodes > 0 && !self.runs.is_empty()).then(|| Value::string(&self.node_list()));
        }
        if !PROC_KEYS.contains(&key) {
            return None;
        }
        let (node, local) = self.place(rank)?;
        match key {
            "pmix.hname" => self.node_name(node).map(|n| Value::string(&n)),
            "pmix.nodeid" => Some(Value::u32(node)),
            _ => u16::try_from(local).ok().map(Value::u16),
        }
    }

    /// Every key `derived` answers for one rank.
    pub fn derived_all(&self, rank: pmix_rank_t) -> Vec<Info> {
        PROC_KEYS.iter().filter_map(|k| self.derived(rank, k).map(|v| Info::new(k, v))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ppn(s: &str) -> String {
        generate_procs(s).unwrap()
    }

    #[test]
    fn node_runs_compress_and_expand() {
        let list = "vm,sn000001,sn000002,sn000003,x,n8,n9,n10,n11,a07,a08";
        let g = generate_nodes(list);
        assert_eq!(g, "rpmix2:vm,sn[6:1-3],x,n[0:8-11],a[2:7-8]");
        let l = Layout::parse(Some(&g), None).unwrap();
        assert_eq!(l.num_nodes(), 11);
        assert_eq!(l.node_list(), list);
        assert_eq!(l.node_index("sn000003"), Some(3));
        assert_eq!(l.node_index("sn3"), None);
        assert_eq!(l.node_index("n10"), Some(7));
        assert_eq!(l.node_index("a08"), Some(10));
        assert_eq!(l.node_index("nope"), None);
        assert_eq!(l.node_name(11), None);
    }

    #[test]
    fn proc_blocks_compress_and_resolve() {
        let g = ppn("0,1,2;3,4,5;6,7,8;9,11;10");
        assert_eq!(g, "rpmix2:0-2*3;9,11;10");
        let l = Layout::parse(Some(&generate_nodes("a,b,c,d,e")), Some(&g)).unwrap();
        assert_eq!(l.size(), 12);
        assert_eq!(l.place(0), Some((0, 0)));
        assert_eq!(l.place(4), Some((1, 1)));
        assert_eq!(l.place(8), Some((2, 2)));
        assert_eq!(l.place(11), Some((3, 1)));
        assert_eq!(l.place(10), Some((4, 0)));
        assert_eq!(l.place(12), None);
        assert_eq!(l.ranks_on(1), vec![3, 4, 5]);
        assert_eq!(l.ranks_on(3), vec![9, 11]);
        assert_eq!(l.node_size(2), 3);
        assert_eq!(l.node_name(l.place(11).unwrap().0).as_deref(), Some("d"));
    }

    #[test]
    fn million_ranks_stay_small() {
        let mut s = String::from("0-7");
        for n in 0..8191u32 {
            s.push_str(&format!(";{}-{}", 8 + n * 128, 8 + n * 128 + 127));
        }
        let g = ppn(&s);
        assert_eq!(g, "rpmix2:0-7;8-135*8191");
        let l = Layout::parse(None, Some(&g)).unwrap();
        assert_eq!(l.size(), 8 + 8191 * 128);
        assert_eq!(l.place(l.size() - 1), Some((8191, 127)));
        assert_eq!(l.ranks_on(0), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn older_forms_parse() {
        let l = Layout::parse(Some("rpmix:h1,h2"), Some("rpmix:0,1;2-4")).unwrap();
        assert_eq!(l.ranks_on(1), vec![2, 3, 4]);
        let l = Layout::parse(Some("raw:h1"), Some("raw:0,1,2,3")).unwrap();
        assert_eq!(l.node_name(0).as_deref(), Some("h1"));
        assert_eq!(l.size(), 4);
        // a name with brackets is not compressed
        assert_eq!(generate_nodes("a[1],b"), "rpmix:a[1],b");
    }

    #[test]
    fn hostile_maps_are_refused() {
        assert!(Layout::parse(None, Some("rpmix2:0-4294967295")).is_none());
        assert!(Layout::parse(None, Some("rpmix2:0-1*4000000000")).is_none());
        assert!(Layout::parse(None, Some("0,1;1,2")).is_none()); // rank twice
        assert!(Layout::parse(Some("rpmix2:a[0:0-99999999999]"), None).is_none());
        assert!(Layout::parse(None, Some("0,x")).is_none());
        assert!(generate_procs("0,x").is_none());
    }
}
