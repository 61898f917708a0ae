//! Fences and connect/disconnect barriers: local arrival, the host's
//! fence_nb upcall, and the data a collecting fence brings back.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{Info, Proc, Value};
use crate::runtime::{ConnId, Handle, Net};
use crate::msg::{self, Collective};

use super::host::{Host, Upcall};
use super::modex::{blob_record, read_blob_record};
use super::nspace::Nspace;
use super::view::CollectiveView;
use super::{reply, reply_all, settled, ServerRole};
use crate::msg::Reply;

/// The ranks of one namespace taking part in a barrier.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Ranks {
    All,
    Some(BTreeSet<pmix_rank_t>),
}

impl Ranks {
    fn contains(&self, r: pmix_rank_t) -> bool {
        match self {
            Ranks::All => true,
            Ranks::Some(s) => s.contains(&r),
        }
    }
}

/// Who takes part in a barrier, per namespace, never expanded rank by rank:
/// a fence of a million-rank namespace costs what its local ranks cost.
/// Naming every rank and naming the wildcard give the same value, so both
/// forms of the same fence meet.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Members(BTreeMap<String, Ranks>);

impl Members {
    fn of(procs: &[Proc], nspaces: &HashMap<String, Nspace>) -> Members {
        let mut m: BTreeMap<String, Ranks> = BTreeMap::new();
        for p in procs {
            let e = m.entry(p.nspace.clone()).or_insert_with(|| Ranks::Some(BTreeSet::new()));
            match e {
                _ if p.rank == PMIX_RANK_WILDCARD => *e = Ranks::All,
                Ranks::All => {}
                Ranks::Some(s) => {
                    s.insert(p.rank);
                }
            }
        }
        for (ns, r) in m.iter_mut() {
            let size = nspaces.get(ns).and_then(|n| n.job_size());
            if let (Ranks::Some(s), Some(n)) = (&*r, size) {
                if s.len() == n as usize && s.iter().all(|x| *x < n) {
                    *r = Ranks::All;
                }
            }
        }
        Members(m)
    }

    /// The participants as a tool reads them: `ns:all`, `ns:0-3,5`.
    fn describe(&self) -> String {
        let each: Vec<String> = self
            .0
            .iter()
            .map(|(ns, r)| match r {
                Ranks::All => format!("{ns}:all"),
                Ranks::Some(s) => format!("{ns}:{}", super::view::ranges(s.iter().copied())),
            })
            .collect();
        each.join(";")
    }

    fn contains(&self, p: &Proc) -> bool {
        self.0.get(&p.nspace).is_some_and(|r| r.contains(p.rank))
    }

    /// Members served by this server.
    fn local(&self, nspaces: &HashMap<String, Nspace>) -> BTreeSet<Proc> {
        let mut out = BTreeSet::new();
        for (name, r) in &self.0 {
            let Some(ns) = nspaces.get(name) else { continue };
            // (is_local is exactly membership of local_ranks: one walk covers both forms)
            out.extend(ns.local_ranks().into_iter().filter(|rank| r.contains(*rank)).map(|rank| Proc::new(name, rank)));
        }
        out
    }

    /// Every member is served here (nobody else takes part).
    fn all_local(&self, nspaces: &HashMap<String, Nspace>) -> bool {
        self.0.iter().all(|(name, r)| {
            nspaces.get(name).is_some_and(|ns| match r {
                Ranks::All => ns.all_local(),
                Ranks::Some(s) => s.iter().all(|x| ns.is_local(*x)),
            })
        })
    }

    /// A member that can never arrive: one registered here that ended
    /// (lost, finalized, deregistered), or one of a job whose namespace was
    /// deregistered here (`gone`).
    fn any_ended(&self, nspaces: &HashMap<String, Nspace>, gone: &super::nspace::Gone) -> bool {
        self.0.iter().any(|(name, r)| match nspaces.get(name) {
            Some(ns) => ns.clients.iter().any(|(rank, reg)| reg.terminated && r.contains(*rank)),
            None => gone.contains(name),
        })
    }

    /// Members that hold data here (committed, registered, or learnt).
    fn with_data(&self, nspaces: &HashMap<String, Nspace>) -> Vec<Proc> {
        let mut out = Vec::new();
        for (name, r) in &self.0 {
            let Some(ns) = nspaces.get(name) else { continue };
            let ranks: BTreeSet<pmix_rank_t> = ns.committed.keys().chain(ns.procs.keys()).copied().filter(|x| r.contains(*x)).collect();
            out.extend(ranks.into_iter().map(|x| Proc::new(name, x)));
        }
        out
    }
}

/// A fence (or connect/disconnect barrier) in progress.
struct Barrier {
    kind: Collective,
    /// Participants as the callers named them (passed to the host).
    procs: Vec<Proc>,
    /// The participants: the barrier's identity.
    members: Members,
    collect: bool,
    info: Vec<Info>,
    local_needed: BTreeSet<Proc>,
    /// Local participants not arrived yet: the barrier's local part is done
    /// when it is empty (kept as they come, not recounted per arrival).
    missing: BTreeSet<Proc>,
    /// Who arrived, and when: the `Instant` is stored where the arrival is
    /// already recorded (no other cost on a fence's path); read only when a
    /// tool asks (`view`).
    arrived: Vec<(ConnId, u32, Proc, Instant)>,
    timer: Option<u64>,
    at_host: bool,
    id: u64,
}

/// The barriers in progress (fences, connects, disconnects): this part's
/// state. What it needs of the rest of the server comes in a `Ctx`.
#[derive(Default)]
pub(super) struct Fences {
    barriers: Vec<Barrier>,
    next_id: u64,
    /// Fences across nodes that lost a local participant: this node's
    /// contribution, owed to the host once per fence.
    owed: Vec<Owed>,
}

/// A fence across nodes that a local participant can no longer reach
/// (it ended): its local survivors are answered LOST_CONNECTION as they
/// arrive, and the host still gets this node's contribution, once, when
/// the last of them has arrived or ended, so the other nodes' part of the
/// fence ends (Slurm's ring would wait for this node until the step is
/// killed).
struct Owed {
    members: Members,
    procs: Vec<Proc>,
    info: Vec<Info>,
    collect: bool,
    /// The local survivors, whose records the contribution carries.
    survivors: BTreeSet<Proc>,
    /// Survivors not arrived yet.
    pending: BTreeSet<Proc>,
    /// The contribution already went to the host (when the loss came
    /// during the fence), before some survivors arrived.
    sent: bool,
}

/// What a barrier needs of the server around it: the connections, the host,
/// the namespaces (who is local, committed data), and the way back onto the
/// server's thread for the host's answer.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub nspaces: &'a mut HashMap<String, Nspace>,
    /// Namespaces deregistered here (their jobs ended).
    pub gone: &'a super::nspace::Gone,
    pub handle: Handle<ServerRole>,
}

impl Fences {
    /// `who` arrives at a barrier (its procs named, groups expanded).
    pub(super) fn arrive(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, request: msg::Barrier) {
        let msg::Barrier { collective, procs, collect, timeout, info } = request;
        let members = Members::of(&procs, cx.nspaces);
        if !members.contains(who) {
            reply(cx.net, conn, req, Reply::Status(PMIX_ERR_BAD_PARAM));
            return;
        }
        // A participant that already ended (or whose whole job did) can never arrive.
        if members.any_ended(cx.nspaces, cx.gone) {
            crate::pmix_debug!(2, "{collective:?} of {who} names a participant that has ended: LOST_CONNECTION");
            reply(cx.net, conn, req, Reply::Status(PMIX_ERR_LOST_CONNECTION));
            if collective == Collective::Fence && !members.all_local(cx.nspaces) {
                self.owe(cx, who, members, procs, info, collect);
            }
            return;
        }
        let idx = match self.barriers.iter().position(|b| b.kind == collective && b.members == members && !b.at_host) {
            Some(i) => i,
            None => {
                let local_needed = members.local(cx.nspaces);
                self.next_id += 1;
                let id = self.next_id;
                self.barriers.push(Barrier {
                    kind: collective,
                    procs,
                    members,
                    collect,
                    info,
                    missing: local_needed.clone(),
                    local_needed,
                    arrived: Vec::new(),
                    timer: None,
                    at_host: false,
                    id,
                });
                self.barriers.len() - 1
            }
        };
        let b = &mut self.barriers[idx];
        b.collect |= collect;
        if timeout > 0 && b.timer.is_none() {
            b.timer = Some(cx.net.timer(Duration::from_secs(timeout as u64)));
        }
        b.arrived.push((conn, req, who.clone(), Instant::now()));
        b.missing.remove(who);
        if b.missing.is_empty() {
            self.local_part_done(cx, idx);
        }
    }

    /// Every local participant arrived: finish here, or ask the host when others take part.
    fn local_part_done(&mut self, cx: &mut Ctx<'_>, idx: usize) {
        if self.barriers[idx].members.all_local(cx.nspaces) {
            let b = self.barriers.remove(idx);
            finish(cx.net, cx.nspaces, b, PMIX_SUCCESS);
            return;
        }
        let b = &mut self.barriers[idx];
        b.at_host = true;
        let (procs, mut info, kind, id, local, collect) = (b.procs.clone(), b.info.clone(), b.kind, b.id, b.local_needed.clone(), b.collect);
        // The host's answer comes back to this part on the server's thread.
        let back = |h: Handle<ServerRole>| move |st: pmix_status_t, data: Vec<u8>| {
            h.run(move |s, net| s.fence_host_done(net, id, st, &data));
        };
        let u = if kind == Collective::Fence {
            let blob = contribution(cx.nspaces, &local, collect);
            fence_info(&mut info, collect);
            cx.host.fence_nb(&procs, &info, blob, Box::new(back(cx.handle.clone())))
        } else {
            let done = back(cx.handle.clone());
            let done: super::host::Done = Box::new(move |st| done(st, Vec::new()));
            if kind == Collective::Connect {
                cx.host.connect(&procs, &info, done)
            } else {
                cx.host.disconnect(&procs, &info, done)
            }
        };
        if let Upcall::Now(st) = u {
            self.host_done(cx, id, settled(st), &[]);
        }
    }

    /// The host's answer to barrier `id`: the other servers' data, and the end.
    pub(super) fn host_done(&mut self, cx: &mut Ctx<'_>, id: u64, st: pmix_status_t, data: &[u8]) {
        let Some(idx) = self.barriers.iter().position(|b| b.id == id) else { return };
        let b = self.barriers.remove(idx);
        if st == PMIX_SUCCESS {
            // Ingest the other servers' data (records of procs not local here).
            let mut d = Decoder::new(data);
            while d.remaining() > 0 {
                match read_blob_record(&mut d) {
                    // (an empty record stands for a participant with nothing to share)
                    Ok((_, infos)) if infos.is_empty() => {}
                    Ok((p, infos)) => {
                        let ns = cx.nspaces.entry(p.nspace.clone()).or_insert_with(|| Nspace::new(&p.nspace));
                        if !ns.is_local(p.rank) {
                            let c = ns.committed.entry(p.rank).or_default();
                            for i in infos {
                                c.retain(|(_, x)| x.key() != i.key());
                                c.push((PMIX_GLOBAL, i));
                            }
                            ns.has_committed.insert(p.rank);
                        }
                    }
                    Err(_) => {
                        crate::pmix_debug!(1, "fence: host returned data that does not decode; ignoring the rest");
                        break;
                    }
                }
            }
        }
        finish(cx.net, cx.nspaces, b, settled(st));
    }

    /// `proc` can never arrive (lost, finalized, deregistered): every
    /// barrier it takes part in ends with `st` for the others.
    pub(super) fn fail_of(&mut self, cx: &mut Ctx<'_>, proc: &Proc, st: pmix_status_t) {
        let (hit, keep): (Vec<Barrier>, Vec<Barrier>) = std::mem::take(&mut self.barriers).into_iter().partition(|b| b.members.contains(proc));
        self.barriers = keep;
        for b in hit {
            let arrived: Vec<(ConnId, u32, Proc, Instant)> = b.arrived.iter().filter(|(_, _, p, _)| p != proc).cloned().collect();
            let b = Barrier { arrived, ..b };
            if let Some(owed) = contribute_without(cx, &b, proc) {
                self.owed.push(owed);
            }
            finish(cx.net, cx.nspaces, b, st);
        }
        // (a survivor that ends pays its part of what is owed: nothing)
        for o in &mut self.owed {
            o.pending.remove(proc);
        }
        self.settle_owed(cx);
    }

    /// `who` arrived at a fence across nodes that names a participant that
    /// ended: it counts towards the fence this node still owes the host
    /// (the oldest such fence it has not arrived at), or starts one.
    fn owe(&mut self, cx: &mut Ctx<'_>, who: &Proc, members: Members, procs: Vec<Proc>, info: Vec<Info>, collect: bool) {
        if let Some(o) = self.owed.iter_mut().find(|o| o.members == members && o.pending.contains(who)) {
            o.pending.remove(who);
            o.collect |= collect;
        } else {
            let survivors: BTreeSet<Proc> = members.local(cx.nspaces).into_iter().filter(|p| !ended(cx.nspaces, p)).collect();
            let mut pending = survivors.clone();
            pending.remove(who);
            self.owed.push(Owed { members, procs, info, collect, survivors, pending, sent: false });
        }
        self.settle_owed(cx);
    }

    /// The owed fences every local survivor has reached (or ended before
    /// reaching): their contribution goes to the host now, if not yet.
    fn settle_owed(&mut self, cx: &mut Ctx<'_>) {
        let (done, keep): (Vec<Owed>, Vec<Owed>) = std::mem::take(&mut self.owed).into_iter().partition(|o| o.pending.is_empty());
        self.owed = keep;
        for o in done.into_iter().filter(|o| !o.sent) {
            let survivors: BTreeSet<Proc> = o.survivors.into_iter().filter(|p| !ended(cx.nspaces, p)).collect();
            contribute_unanswered(cx, &o.procs, &o.info, o.collect, &survivors);
        }
    }

    /// The barriers in progress, read-only, for a tool's query.
    pub(super) fn view(&self) -> Vec<CollectiveView> {
        self.barriers
            .iter()
            .map(|b| CollectiveView {
                kind: match b.kind {
                    Collective::Fence => "fence",
                    Collective::Connect => "connect",
                    Collective::Disconnect => "disconnect",
                },
                id: b.members.describe(),
                local: b.local_needed.clone(),
                entered: b.arrived.iter().map(|(_, _, p, t)| (p.clone(), *t)).collect(),
                at_host: b.at_host,
            })
            .collect()
    }

    /// The server stops: every barrier ends with `st`.
    pub(super) fn fail_all(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, st: pmix_status_t) {
        for b in std::mem::take(&mut self.barriers) {
            finish(net, nspaces, b, st);
        }
    }

    /// A barrier's timeout: true if `timer` was one (it fails with TIMEOUT).
    pub(super) fn timer(&mut self, net: &mut Net, nspaces: &HashMap<String, Nspace>, timer: u64) -> bool {
        let Some(i) = self.barriers.iter().position(|b| b.timer == Some(timer)) else { return false };
        let mut b = self.barriers.remove(i);
        b.timer = None;
        finish(net, nspaces, b, PMIX_ERR_TIMEOUT);
        true
    }
}

/// This node's contribution to a fence: only a collecting fence carries
/// data, and only what the local participants committed for other nodes
/// (as OpenPMIx): without it, peers fetch what they need on demand (direct
/// modex). Every local participant has a record, empty or not: a host may
/// choose its algorithm by the contribution's size (Slurm: its ring with
/// data, its tree without, and a node that puts nothing must not take the
/// tree while the others wait in the ring); OpenPMIx's contribution to a
/// collecting fence is never empty.
fn contribution(nspaces: &HashMap<String, Nspace>, local: &BTreeSet<Proc>, collect: bool) -> Vec<u8> {
    let mut blob = Encoder::default();
    if collect {
        for p in local {
            let data = nspaces.get(&p.nspace).map(|ns| ns.committed_for(p.rank, false)).unwrap_or_default();
            if blob_record(&mut blob, p, &data).is_err() {
                continue;
            }
        }
    }
    blob.into_bytes()
}

/// A fence across nodes that lost a local participant before this node
/// contributed: the host still gets this node's contribution, the local
/// survivors' records (what each committed so far, whether it had entered
/// the fence or not), so that the other nodes' part of the collective ends
/// instead of waiting for this node (Slurm's ring would wait until the
/// step is killed). The host's answer is not waited for: the local
/// survivors hear of the loss at once. Survivors that had not entered the
/// fence yet are owed it: when they do, they are answered at once and the
/// host hears nothing more of this fence (`Owed`, sent).
fn contribute_without(cx: &mut Ctx<'_>, b: &Barrier, dead: &Proc) -> Option<Owed> {
    if b.kind != Collective::Fence || b.at_host || b.members.all_local(cx.nspaces) {
        return None;
    }
    let local: BTreeSet<Proc> = b.local_needed.iter().filter(|p| *p != dead && !ended(cx.nspaces, p)).cloned().collect();
    if local.is_empty() {
        return None;
    }
    contribute_unanswered(cx, &b.procs, &b.info, b.collect, &local);
    let arrived: BTreeSet<Proc> = b.arrived.iter().map(|(_, _, p, _)| p.clone()).collect();
    let pending: BTreeSet<Proc> = local.difference(&arrived).cloned().collect();
    (!pending.is_empty()).then(|| Owed {
        members: b.members.clone(),
        procs: b.procs.clone(),
        info: b.info.clone(),
        collect: b.collect,
        survivors: local,
        pending,
        sent: true,
    })
}

/// This node's contribution (the records of `survivors`) to a fence that
/// lost a participant, handed to the host without waiting for its answer:
/// the survivors here were answered already.
fn contribute_unanswered(cx: &mut Ctx<'_>, procs: &[Proc], info: &[Info], collect: bool, survivors: &BTreeSet<Proc>) {
    let blob = contribution(cx.nspaces, survivors, collect);
    let mut info = info.to_vec();
    fence_info(&mut info, collect);
    let _ = cx.host.fence_nb(procs, &info, blob, Box::new(|_, _| {}));
}

/// A local participant that ended (lost, finalized, deregistered).
fn ended(nspaces: &HashMap<String, Nspace>, p: &Proc) -> bool {
    nspaces.get(&p.nspace).and_then(|ns| ns.clients.get(&p.rank)).map_or(true, |reg| reg.terminated)
}

/// Answer every participant of `b` with `st` (and, on success, the data a
/// collecting fence or a connect brings).
fn finish(net: &mut Net, nspaces: &HashMap<String, Nspace>, b: Barrier, st: pmix_status_t) {
    if let Some(t) = b.timer {
        net.cancel_timer(t);
    }
    let mut records: Vec<(Proc, Vec<Info>)> = Vec::new();
    if st == PMIX_SUCCESS && (b.collect || b.kind == Collective::Connect) {
        // Data of every participant, plus job data of their namespaces for connect.
        // (Only members with data: what the maps say about the others,
        // every client derives itself.)
        for p in b.members.with_data(nspaces) {
            if let Some(ns) = nspaces.get(&p.nspace) {
                let data = ns.data_for(p.rank, true);
                records.push((p, data));
            }
        }
        if b.kind == Collective::Connect {
            for n in b.members.0.keys() {
                if let Some(ns) = nspaces.get(n) {
                    records.push((Proc::wildcard(n), ns.job.clone()));
                }
            }
        }
    }
    let answer = Reply::Barrier { status: st, collective: b.kind, records };
    reply_all(net, b.arrived.iter().map(|(conn, req, _, _)| (*conn, *req)), &answer);
}

/// The host hears whether to collect, once, either way (as from OpenPMIx).
fn fence_info(info: &mut Vec<Info>, collect: bool) {
    info.retain(|i| !i.is(PMIX_COLLECT_DATA));
    info.push(Info::new("pmix.collect", Value::boolean(collect)));
}
