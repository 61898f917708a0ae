//! What a part that owns waits shows of them to a tool (`top.rs`): the
//! parts fill these views, `top` reads them, and neither imports the other
//! for it.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::abi::pmix_rank_t;
use crate::owned::Proc;

/// A collective in progress, as the part that runs it sees it.
pub(super) struct CollectiveView {
    /// fence, connect, disconnect, group-construct, group-destruct.
    pub kind: &'static str,
    /// What names it: the participants (fences), the group's name.
    pub id: String,
    /// Its local participants (served here).
    pub local: BTreeSet<Proc>,
    /// Those that entered, with when.
    pub entered: Vec<(Proc, Instant)>,
    /// Every local participant entered: waiting for the host (other servers).
    pub at_host: bool,
}

/// A local client blocked in a call, with since when.
pub(super) struct BlockedView {
    pub proc: Proc,
    /// "fence", "connect", "group-construct", "get", ...
    pub call: &'static str,
    /// What it waits on: the collective's id, or the key and its peer.
    pub what: String,
    pub since: Instant,
}

/// Ranks as ranges: 0-3,5.
pub fn ranges(ranks: impl IntoIterator<Item = pmix_rank_t>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(u32, u32)> = None;
    let flush = |out: &mut Vec<String>, (a, b): (u32, u32)| out.push(if a == b { a.to_string() } else { format!("{a}-{b}") });
    let mut sorted: Vec<pmix_rank_t> = ranks.into_iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    for r in sorted {
        run = match run {
            Some((a, b)) if b.checked_add(1) == Some(r) => Some((a, r)),
            Some(x) => {
                flush(&mut out, x);
                Some((r, r))
            }
            None => Some((r, r)),
        };
    }
    if let Some(x) = run {
        flush(&mut out, x);
    }
    out.join(",")
}
