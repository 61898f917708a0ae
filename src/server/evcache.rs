//! Events kept for handlers registered later (the part `EvCache`).
//!
//! The server sends an event at once to every connected rpmix peer in its
//! range, and to the OpenPMIx peers in range that registered for it
//! (`Sink::deliver`, by OpenPMIx's server's rule: `registered_for`), and
//! keeps it here too, as OpenPMIx's server keeps its notifications: a peer
//! that did not get it then (not connected yet, or an OpenPMIx client not
//! registered for it) gets it when it registers for the event's code
//! (`Request::RegisterEvents`), once.
//!
//! Bounds: the `MAX_EVENTS` most recent events, at most `MAX_BYTES` of
//! them encoded (the oldest go first); an event marked
//! PMIX_EVENT_DO_NOT_CACHE, or for its source alone (PMIX_RANGE_PROC_LOCAL),
//! is not kept. What a namespace's deregistration ends goes with it
//! (`forget_nspace`): the events it raised, those only its procs could
//! get, and its procs in every record of who had an event; likewise a
//! tool's, when its connection ends (`forget_tool`).

use std::collections::{HashMap, HashSet, VecDeque};

use crate::abi::*;
use crate::events;
use crate::owned::{find, procs_of_value, Info, Proc};
use crate::runtime::ConnId;

/// The most events kept (OpenPMIx's default `max_events` is 512 too).
pub(super) const MAX_EVENTS: usize = 512;
/// The most bytes of kept events, encoded.
pub(super) const MAX_BYTES: usize = 4 << 20;

/// Whether an event of `range` from `source` (with custom targets
/// `custom`) reaches `p`: the rule `Sink::deliver` sends by.
pub(super) fn reaches(range: pmix_data_range_t, source: &Proc, custom: Option<&[Proc]>, p: &Proc) -> bool {
    match range {
        PMIX_RANGE_PROC_LOCAL => p == source,
        PMIX_RANGE_NAMESPACE => p.nspace == source.nspace,
        PMIX_RANGE_CUSTOM => custom.is_some_and(|c| c.iter().any(|x| x.names(p))),
        _ => true,
    }
}

/// PMIX_EVENT_CUSTOM_RANGE's procs, if given.
pub(super) fn custom_targets(info: &[Info]) -> Option<Vec<Proc>> {
    find(info, PMIX_EVENT_CUSTOM_RANGE).map(|i| procs_of_value(i.value_ref()))
}

/// Whether an event is marked PMIX_EVENT_NON_DEFAULT.
pub(super) fn non_default(info: &[Info]) -> bool {
    find(info, PMIX_EVENT_NON_DEFAULT).is_some_and(|i| i.truthy())
}

struct Kept {
    status: pmix_status_t,
    source: Proc,
    range: pmix_data_range_t,
    custom: Option<Vec<Proc>>,
    /// PMIX_EVENT_AFFECTED_PROC(S) of the event.
    affected: Option<Vec<Proc>>,
    /// As sent (rpmix's form; an OpenPMIx peer's link rewrites it).
    body: Vec<u8>,
    /// The procs that had it (and may not get it again).
    had: HashSet<Proc>,
}

/// What an OpenPMIx peer registered for: its server sends it only those
/// events (OpenPMIx's client keeps one that no handler takes and, when a
/// handler registers later, runs it with its own name as the source).
#[derive(Default)]
struct Interest {
    codes: HashSet<pmix_status_t>,
    default: bool,
}

#[derive(Default)]
pub struct EvCache {
    kept: VecDeque<Kept>,
    bytes: usize,
    interest: HashMap<ConnId, Interest>,
}

impl EvCache {
    /// Whether the (OpenPMIx) peer on `conn` registered for an event of
    /// `status`: for its code, or a default handler (for an event not
    /// marked non-default).
    pub(super) fn registered_for(&self, conn: ConnId, status: pmix_status_t, non_default: bool) -> bool {
        self.interest.get(&conn).is_some_and(|i| i.codes.contains(&status) || (i.default && !non_default))
    }

    /// Keep an event sent now to the procs `had`.
    pub(super) fn keep(&mut self, status: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info], body: &[u8], had: HashSet<Proc>) {
        let no_cache = find(info, PMIX_EVENT_DO_NOT_CACHE).is_some_and(|i| i.truthy());
        if no_cache || range == PMIX_RANGE_PROC_LOCAL || body.len() > MAX_BYTES {
            return;
        }
        while self.kept.len() >= MAX_EVENTS || self.bytes + body.len() > MAX_BYTES {
            let Some(old) = self.kept.pop_front() else { break };
            self.bytes -= old.body.len();
        }
        self.bytes += body.len();
        let affected = events::affected_procs(info);
        self.kept.push_back(Kept { status, source: source.clone(), range, custom: custom_targets(info), affected, body: body.to_vec(), had });
    }

    /// The peer on `conn` registered for `codes` (none: a default handler).
    pub(super) fn registered(&mut self, conn: ConnId, codes: &[pmix_status_t]) {
        let i = self.interest.entry(conn).or_default();
        if codes.is_empty() {
            i.default = true;
        }
        i.codes.extend(codes);
    }

    /// The peer on `conn` has no handler left for `codes` (none: its default one).
    pub(super) fn deregistered(&mut self, conn: ConnId, codes: &[pmix_status_t]) {
        if let Some(i) = self.interest.get_mut(&conn) {
            if codes.is_empty() {
                i.default = false;
            }
            i.codes.retain(|c| !codes.contains(c));
        }
    }

    /// The kept events `who` gets now that it registered for `codes` with
    /// `affected` (PMIX_EVENT_AFFECTED_PROC(S) of the registration), oldest
    /// first: those of these codes in its range that it has not had (one
    /// it raised itself counts as had). A default handler (no codes) gets
    /// none, as with OpenPMIx's server (its default registration checks no
    /// cached notification).
    pub(super) fn replay(&mut self, who: &Proc, codes: &[pmix_status_t], affected: Option<&[Proc]>) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for k in self.kept.iter_mut() {
            if !codes.contains(&k.status) || k.had.contains(who) {
                continue;
            }
            if !reaches(k.range, &k.source, k.custom.as_deref(), who) {
                continue;
            }
            if let (Some(want), Some(got)) = (affected, &k.affected) {
                if !got.iter().any(|g| want.iter().any(|w| events::same_proc(w, g))) {
                    continue;
                }
            }
            k.had.insert(who.clone());
            out.push(k.body.clone());
        }
        out
    }

    /// Namespace `name` was deregistered: its events, those only its procs
    /// could get, and its procs among who had each event go.
    pub(super) fn forget_nspace(&mut self, name: &str) {
        self.kept.retain(|k| {
            let only_its = k.range == PMIX_RANGE_CUSTOM && k.custom.as_ref().map_or(true, |c| c.iter().all(|p| p.nspace == name));
            k.source.nspace != name && !only_its
        });
        for k in self.kept.iter_mut() {
            k.had.retain(|p| p.nspace != name);
        }
        self.bytes = self.kept.iter().map(|k| k.body.len()).sum();
    }

    /// Tool `p`'s connection ended (a tool is named anew each time): the
    /// events only it could get (a custom range naming only it: a job's
    /// end, its allocation's completion), and it in every record of who
    /// had an event, go.
    pub(super) fn forget_tool(&mut self, p: &Proc) {
        self.kept.retain(|k| k.range != PMIX_RANGE_CUSTOM || !k.custom.as_ref().is_some_and(|c| !c.is_empty() && c.iter().all(|t| t.names(p) || p.names(t))));
        for k in self.kept.iter_mut() {
            k.had.remove(p);
        }
        self.bytes = self.kept.iter().map(|k| k.body.len()).sum();
    }

    /// A connection ended: what it registered goes.
    pub(super) fn drop_conn(&mut self, conn: ConnId) {
        self.interest.remove(&conn);
    }

    /// (events kept, their bytes, procs recorded as having had them): for tests.
    #[cfg(test)]
    pub(super) fn size(&self) -> (usize, usize, usize) {
        (self.kept.len(), self.bytes, self.kept.iter().map(|k| k.had.len()).sum())
    }
}
