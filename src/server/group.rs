//! Process groups: PMIx_Group_construct / _destruct (collectives among the
//! members) and PMIx_Group_leave. The server completes an operation whose
//! members are all its own clients; when others take part it asks the host's
//! `group` upcall, as it does for fences. Constructed groups are kept by name
//! (membership, context id) and answered to PMIx_Query_info; a member that
//! leaves, or ends while the group asked for PMIX_GROUP_NOTIFY_TERMINATION,
//! is announced to the others (PMIX_GROUP_LEFT, PMIX_GROUP_MEMBER_FAILED).
//!
//! Invitations: PMIx_Group_invite sends PMIX_GROUP_INVITED to each invitee
//! (the leader is the source); each answers with PMIx_Group_join (accept or
//! decline; the leader hears PMIX_GROUP_INVITE_ACCEPTED / _DECLINED, or
//! _FAILED for an invitee that ends first or has not answered by the
//! leader's PMIX_TIMEOUT). Once every invitee has answered, the group is the
//! leader and those who accepted; the leader's invite and the accepted joins
//! complete with its membership (and context id), and the members hear
//! PMIX_GROUP_CONSTRUCT_COMPLETE. Invitations stay on one server.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::msg::{self, GroupOp as Op};
use crate::owned::{find, Info, Proc, Value};
use crate::runtime::{ConnId, Handle, Net};
use crate::server::host::{Host, Upcall};
use crate::server::nspace::{self, Nspace};
use crate::msg::Reply;
use crate::server::{settled, ServerRole};
use crate::server::view::CollectiveView;

/// A constructed group.
#[derive(Clone, Debug)]
pub struct Group {
    pub members: Vec<Proc>,
    pub context_id: Option<usize>,
    pub notify_termination: bool,
}

/// A construct or destruct in progress.
struct GroupOp {
    seq: u64,
    op: pmix_group_operation_t,
    name: String,
    /// As the first participant gave them, and expanded (sorted).
    procs: Vec<Proc>,
    members: Vec<Proc>,
    directives: Vec<Info>,
    /// Who arrived, and when: the `Instant` is stored with the arrival it
    /// records (no other cost), read only when a tool asks (`view`).
    arrived: Vec<(ConnId, u32, Proc, Instant)>,
    timer: Option<u64>,
    /// Waiting for the host (other servers' members).
    at_host: bool,
    assign_context_id: bool,
    notify_termination: bool,
    /// Each arrived member's PMIX_GROUP_INFO (stored under the context id).
    member_info: Vec<(Proc, Vec<Info>)>,
}

/// An invitation in progress.
struct Invitation {
    seq: u64,
    name: String,
    leader: Proc,
    leader_conn: ConnId,
    leader_req: u32,
    /// Invited, not answered yet.
    pending: Vec<Proc>,
    /// Accepted: answered when the group is complete.
    joined: Vec<(ConnId, u32, Proc)>,
    timer: Option<u64>,
    assign_context_id: bool,
    notify_termination: bool,
}

#[derive(Default)]
pub struct Groups {
    pub known: BTreeMap<String, Group>,
    ops: Vec<GroupOp>,
    invitations: Vec<Invitation>,
    next_seq: u64,
    next_context_id: usize,
    /// Members' PMIX_GROUP_INFO by (member, context id): what PMIx_Get of a
    /// key of that member answers with a PMIX_GROUP_CONTEXT_ID qualifier. Kept
    /// after the group's destruct (the id stays unique), until the member's
    /// namespace goes.
    pub qualified: BTreeMap<(Proc, usize), Vec<Info>>,
}

/// What the group part needs of the server around it: the connections
/// (answers and events go out in order when the part returns), the host,
/// the namespaces, and the way back onto the server's thread.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    pub nspaces: &'a HashMap<String, Nspace>,
    pub handle: Handle<ServerRole>,
    /// Answers and events, in the order they were made.
    pub out: Vec<Out>,
}

/// An answer or an event the part made (the role sends them).
pub(super) enum Out {
    Reply { conn: ConnId, req: u32, answer: Reply },
    Event { code: pmix_status_t, source: Proc, range: pmix_data_range_t, info: Vec<Info> },
}

impl Ctx<'_> {
    fn reply_infos(&mut self, conn: ConnId, req: u32, status: pmix_status_t, infos: &[Info]) {
        self.out.push(Out::Reply { conn, req, answer: Reply::Infos { status, infos: infos.to_vec() } });
    }

    fn event(&mut self, code: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info]) {
        self.out.push(Out::Event { code, source: source.clone(), range, info: info.to_vec() });
    }
}

/// The infos of a PMIX_GROUP_INFO value (a data array of infos).
fn group_info_of(directives: &[Info]) -> Vec<Info> {
    let Some(i) = find(directives, PMIX_GROUP_INFO) else { return Vec::new() };
    let v = i.value_ref();
    // SAFETY: union fields read per the type tags; the array holds `size` infos.
    unsafe {
        if v.r#type != PMIX_DATA_ARRAY || v.data.darray.is_null() || (*v.data.darray).r#type != PMIX_INFO {
            return Vec::new();
        }
        let da = &*v.data.darray;
        Info::copy_array(da.array as *const pmix_info_t, da.size).unwrap_or_default()
    }
}

/// A PMIX_SIZE (or other unsigned) value as usize.
pub(super) fn size_of_info(i: &Info) -> Option<usize> {
    let v = i.value_ref();
    if v.r#type == PMIX_SIZE {
        // SAFETY: a PMIX_SIZE value.
        return Some(unsafe { v.data.size });
    }
    i.as_u32().map(|x| x as usize)
}

fn flag(directives: &[Info], key: &core::ffi::CStr) -> bool {
    find(directives, key).is_some_and(|i| i.truthy())
}

impl Groups {
    /// The operations in progress, read-only, for a tool's query.
    pub(super) fn view(&self, nspaces: &HashMap<String, Nspace>) -> Vec<CollectiveView> {
        self.ops
            .iter()
            .map(|o| CollectiveView {
                kind: if o.op == PMIX_GROUP_CONSTRUCT { "group-construct" } else { "group-destruct" },
                id: o.name.clone(),
                local: o.members.iter().filter(|p| nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank))).cloned().collect(),
                entered: o.arrived.iter().map(|(_, _, p, t)| (p.clone(), *t)).collect(),
                at_host: o.at_host,
            })
            .collect()
    }

    /// GROUP_CONSTRUCT / GROUP_DESTRUCT / GROUP_LEAVE from a client.
    pub(super) fn on_request(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, request: msg::Group) {
        let msg::Group { op, name, procs, directives } = request;
        let answer = |cx: &mut Ctx<'_>, st: pmix_status_t, infos: &[Info]| cx.reply_infos(conn, req, st, infos);
        if name.is_empty() || name.len() > PMIX_MAX_NSLEN {
            crate::pmix_debug!(1, "{who}: group name {name:?} is empty or too long");
            answer(cx, PMIX_ERR_BAD_PARAM, &[]);
            return;
        }
        if op == Op::Leave {
            let st = self.leave_group(cx, who, &name);
            answer(cx, st, &[]);
            return;
        }
        if op == Op::Invite {
            if let Err(st) = self.invite(cx, conn, req, who, &name, &procs, &directives) {
                answer(cx, st, &[]);
            }
            return;
        }
        if let Op::Join { accept } = op {
            if let Err(st) = self.join(cx, conn, req, who, &name, procs.first(), accept) {
                answer(cx, st, &[]);
            }
            return;
        }
        let (op, members) = if op == Op::Construct {
            if self.group_name_taken(&name) {
                crate::pmix_debug!(5, "{who}: group {name} exists already");
                answer(cx, PMIX_ERR_EXISTS, &[]);
                return;
            }
            (PMIX_GROUP_CONSTRUCT, nspace::expand(&procs, cx.nspaces))
        } else {
            match self.known.get(&name) {
                Some(g) => (PMIX_GROUP_DESTRUCT, g.members.clone()),
                None => {
                    crate::pmix_debug!(5, "{who}: no group {name} to destruct");
                    answer(cx, PMIX_ERR_NOT_FOUND, &[]);
                    return;
                }
            }
        };
        if !members.contains(who) {
            crate::pmix_debug!(1, "{who}: not a member of group {name}");
            answer(cx, PMIX_ERR_BAD_PARAM, &[]);
            return;
        }
        let gone = members.iter().any(|p| cx.nspaces.get(&p.nspace).and_then(|ns| ns.clients.get(&p.rank)).is_some_and(|r| r.terminated));
        if gone {
            answer(cx, PMIX_ERR_LOST_CONNECTION, &[]);
            return;
        }
        if self.ops.iter().any(|o| o.op == op && o.name == name && o.arrived.iter().any(|(_, _, p, _)| p == who)) {
            crate::pmix_debug!(1, "{who}: group {name}: already taking part in this operation");
            answer(cx, PMIX_ERR_BAD_PARAM, &[]);
            return;
        }
        let idx = match self.ops.iter().position(|o| o.op == op && o.name == name && !o.at_host) {
            Some(i) if self.ops[i].members != members => {
                crate::pmix_debug!(1, "{who}: group {name}: members differ from the other participants'");
                answer(cx, PMIX_ERR_BAD_PARAM, &[]);
                return;
            }
            Some(i) => i,
            None => {
                self.next_seq += 1;
                let procs = if op == PMIX_GROUP_CONSTRUCT { procs } else { members.clone() };
                self.ops.push(GroupOp {
                    seq: self.next_seq,
                    op,
                    name: name.clone(),
                    procs,
                    members,
                    directives: directives.clone(),
                    arrived: Vec::new(),
                    timer: None,
                    at_host: false,
                    assign_context_id: false,
                    notify_termination: false,
                    member_info: Vec::new(),
                });
                self.ops.len() - 1
            }
        };
        let o = &mut self.ops[idx];
        o.assign_context_id |= flag(&directives, PMIX_GROUP_ASSIGN_CONTEXT_ID);
        o.notify_termination |= flag(&directives, PMIX_GROUP_NOTIFY_TERMINATION);
        if let Some(t) = find(&directives, PMIX_TIMEOUT).and_then(|i| i.as_u32()).filter(|t| *t > 0) {
            if o.timer.is_none() {
                o.timer = Some(cx.net.timer(Duration::from_secs(t as u64)));
            }
        }
        let mine = group_info_of(&directives);
        if !mine.is_empty() {
            o.member_info.push((who.clone(), mine));
        }
        o.arrived.push((conn, req, who.clone(), Instant::now()));
        self.group_check_arrivals(cx, idx);
    }

    /// Operation `idx` completes its local part once every local member arrived.
    fn group_check_arrivals(&mut self, cx: &mut Ctx<'_>, idx: usize) {
        let o = &self.ops[idx];
        if o.at_host {
            return;
        }
        let local: Vec<&Proc> = o.members.iter().filter(|p| cx.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank))).collect();
        if local.iter().all(|p| o.arrived.iter().any(|(_, _, a, _)| a == *p)) {
            self.group_local_part_done(cx, idx);
        }
    }

    /// A constructed group or an invitation has this name.
    fn group_name_taken(&self, name: &str) -> bool {
        self.known.contains_key(name) || self.invitations.iter().any(|i| i.name == name)
    }

    fn is_local_client(cx: &Ctx<'_>, p: &Proc) -> bool {
        cx.nspaces.get(&p.nspace).and_then(|ns| ns.clients.get(&p.rank)).is_some_and(|c| !c.terminated)
    }

    /// PMIx_Group_invite: the leader `who` invites `procs` into group `name`.
    #[allow(clippy::too_many_arguments)]
    fn invite(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, name: &str, procs: &[Proc], directives: &[Info]) -> Result<(), pmix_status_t> {
        if self.group_name_taken(name) || self.ops.iter().any(|o| o.name == name) {
            crate::pmix_debug!(5, "{who}: group {name} exists already");
            return Err(PMIX_ERR_EXISTS);
        }
        let invitees: Vec<Proc> = nspace::expand(procs, cx.nspaces).into_iter().filter(|p| p != who).collect();
        if invitees.is_empty() {
            return Err(PMIX_ERR_BAD_PARAM);
        }
        if let Some(p) = invitees.iter().find(|p| !cx.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank))) {
            crate::pmix_debug!(5, "{who}: group {name}: {p} is not a client of this server; invitations stay on one server");
            return Err(PMIX_ERR_NOT_SUPPORTED);
        }
        self.next_seq += 1;
        let seq = self.next_seq;
        let timer = find(directives, PMIX_TIMEOUT).and_then(|i| i.as_u32()).filter(|t| *t > 0).map(|t| cx.net.timer(Duration::from_secs(t as u64)));
        self.invitations.push(Invitation {
            seq,
            name: name.to_string(),
            leader: who.clone(),
            leader_conn: conn,
            leader_req: req,
            pending: invitees.clone(),
            joined: Vec::new(),
            timer,
            assign_context_id: flag(directives, PMIX_GROUP_ASSIGN_CONTEXT_ID),
            notify_termination: flag(directives, PMIX_GROUP_NOTIFY_TERMINATION),
        });
        for p in &invitees {
            if Self::is_local_client(cx, p) {
                let info = vec![Info::new("pmix.evrange", Value::procs(std::slice::from_ref(p))), Info::new("pmix.grp.id", Value::string(name))];
                cx.event(PMIX_GROUP_INVITED, who, PMIX_RANGE_CUSTOM, &info);
            } else {
                self.invitee_answered(cx, seq, p, None);
            }
        }
        Ok(())
    }

    /// PMIx_Group_join: `who` accepts or declines the invitation to `name`.
    #[allow(clippy::too_many_arguments)]
    fn join(&mut self, cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, name: &str, leader: Option<&Proc>, accept: bool) -> Result<(), pmix_status_t> {
        let Some(inv) = self.invitations.iter().find(|i| i.name == name && i.pending.contains(who)) else {
            crate::pmix_debug!(5, "{who}: no pending invitation to group {name}");
            return Err(PMIX_ERR_NOT_FOUND);
        };
        if leader.is_some_and(|l| l.rank != PMIX_RANK_WILDCARD && *l != inv.leader) {
            crate::pmix_debug!(5, "{who}: group {name} was offered by {}, not {}", inv.leader, leader.unwrap());
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let seq = inv.seq;
        if accept {
            self.invitee_answered(cx, seq, who, Some((conn, req)));
        } else {
            cx.reply_infos(conn, req, PMIX_SUCCESS, &[]);
            self.invitee_answered(cx, seq, who, None);
        }
        Ok(())
    }

    /// Invitee `p` of invitation `seq` answered: accepted (its join waits in
    /// `joined`), declined (None, alive) or failed (None, ended).
    fn invitee_answered(&mut self, cx: &mut Ctx<'_>, seq: u64, p: &Proc, joined: Option<(ConnId, u32)>) {
        let alive = Self::is_local_client(cx, p);
        let Some(inv) = self.invitations.iter_mut().find(|i| i.seq == seq) else { return };
        if !inv.pending.contains(p) {
            return;
        }
        inv.pending.retain(|x| x != p);
        let code = match (joined, alive) {
            (Some((c, r)), _) => {
                inv.joined.push((c, r, p.clone()));
                PMIX_GROUP_INVITE_ACCEPTED
            }
            (None, true) => PMIX_GROUP_INVITE_DECLINED,
            (None, false) => PMIX_GROUP_INVITE_FAILED,
        };
        let (leader, name, done) = (inv.leader.clone(), inv.name.clone(), inv.pending.is_empty());
        let info = vec![Info::new("pmix.evrange", Value::procs(std::slice::from_ref(&leader))), Info::new("pmix.grp.id", Value::string(&name))];
        cx.event(code, p, PMIX_RANGE_CUSTOM, &info);
        if done {
            self.finish_invitation(cx, seq, PMIX_SUCCESS);
        }
    }

    /// Every invitee answered (or the time is up): the group is the leader and
    /// those who accepted. `st` other than success drops the invitation.
    fn finish_invitation(&mut self, cx: &mut Ctx<'_>, seq: u64, st: pmix_status_t) {
        let Some(i) = self.invitations.iter().position(|x| x.seq == seq) else { return };
        let inv = self.invitations.remove(i);
        if let Some(t) = inv.timer {
            cx.net.cancel_timer(t);
        }
        let mut results = Vec::new();
        let mut members: Vec<Proc> = inv.joined.iter().map(|(_, _, p)| p.clone()).collect();
        if st == PMIX_SUCCESS {
            members.push(inv.leader.clone());
            members.sort();
            let context_id = inv.assign_context_id.then(|| {
                self.next_context_id += 1;
                self.next_context_id
            });
            if let Some(c) = context_id {
                results.push(Info::new("pmix.grp.ctxid", Value::size(c)));
            }
            results.push(Info::new("pmix.grp.mbrs", Value::procs(&members)));
            self.known.insert(inv.name.clone(), Group { members: members.clone(), context_id, notify_termination: inv.notify_termination });
        }
        crate::pmix_debug!(5, "group {} invitation by {}: {} ({} members)", inv.name, inv.leader, crate::strings::error_name(st), members.len());
        cx.reply_infos(inv.leader_conn, inv.leader_req, st, &results);
        for (c, r, _) in &inv.joined {
            cx.reply_infos(*c, *r, st, &results);
        }
        if st == PMIX_SUCCESS {
            let mut info = vec![Info::new("pmix.evrange", Value::procs(&members)), Info::new("pmix.grp.id", Value::string(&inv.name))];
            info.extend(results);
            cx.event(PMIX_GROUP_CONSTRUCT_COMPLETE, &inv.leader, PMIX_RANGE_CUSTOM, &info);
        }
    }

    /// Every local member arrived: complete here, or ask the host when others take part.
    fn group_local_part_done(&mut self, cx: &mut Ctx<'_>, idx: usize) {
        let o = &self.ops[idx];
        let all_local = o.members.iter().all(|p| cx.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank)));
        if all_local {
            let seq = o.seq;
            self.finish_group_op(cx, seq, PMIX_SUCCESS, Vec::new());
            return;
        }
        let (op, name, procs, directives, seq) = (o.op, o.name.clone(), o.procs.clone(), o.directives.clone(), o.seq);
        self.ops[idx].at_host = true;
        let h = cx.handle.clone();
        let u = cx.host.group(op, &name, &procs, &directives, Box::new(move |st, infos| {
            h.run(move |s, net| s.group_host_done(net, seq, settled(st), infos));
        }));
        if let Upcall::Now(st) = u {
            if st == PMIX_ERR_NOT_SUPPORTED {
                crate::pmix_debug!(5, "group {name}: members on other servers, and the host has no group support");
            }
            self.finish_group_op(cx, seq, settled(st), Vec::new());
        }
    }

    /// Answer every participant of operation `seq` (and record the result).
    pub(super) fn finish_group_op(&mut self, cx: &mut Ctx<'_>, seq: u64, st: pmix_status_t, host_infos: Vec<Info>) {
        let Some(i) = self.ops.iter().position(|o| o.seq == seq) else { return };
        let o = self.ops.remove(i);
        if let Some(t) = o.timer {
            cx.net.cancel_timer(t);
        }
        let mut results = Vec::new();
        if st == PMIX_SUCCESS {
            if o.op == PMIX_GROUP_CONSTRUCT {
                // A context id the host assigned (groups across servers), else
                // ours, which is unique only when every member is ours.
                let from_host = find(&host_infos, PMIX_GROUP_CONTEXT_ID).and_then(size_of_info);
                let all_local = o.members.iter().all(|p| cx.nspaces.get(&p.nspace).is_some_and(|ns| ns.is_local(p.rank)));
                let context_id = from_host.or_else(|| {
                    (o.assign_context_id && all_local).then(|| {
                        self.next_context_id += 1;
                        self.next_context_id
                    })
                });
                if o.assign_context_id && context_id.is_none() {
                    crate::pmix_debug!(1, "group {}: the host assigned no context id", o.name);
                }
                if let Some(c) = context_id {
                    results.push(Info::new("pmix.grp.ctxid", Value::size(c)));
                    for (p, infos) in &o.member_info {
                        self.qualified.insert((p.clone(), c), infos.clone());
                    }
                } else if !o.member_info.is_empty() {
                    crate::pmix_debug!(5, "group {}: PMIX_GROUP_INFO without a context id to qualify it is dropped", o.name);
                }
                results.push(Info::new("pmix.grp.mbrs", Value::procs(&o.members)));
                self.known.insert(o.name.clone(), Group { members: o.members.clone(), context_id, notify_termination: o.notify_termination });
            } else {
                self.known.remove(&o.name);
            }
        }
        crate::pmix_debug!(5, "group {} {}: {}", o.name, if o.op == PMIX_GROUP_CONSTRUCT { "construct" } else { "destruct" }, crate::strings::error_name(st));
        for (conn, req, _, _) in &o.arrived {
            cx.reply_infos(*conn, *req, st, &results);
        }
    }

    /// A timer fired: true when it was a group operation's.
    pub(super) fn timer(&mut self, cx: &mut Ctx<'_>, timer: u64) -> bool {
        if let Some(inv) = self.invitations.iter_mut().find(|i| i.timer == Some(timer)) {
            // The invitees that have not answered failed to.
            inv.timer = None;
            let (seq, late) = (inv.seq, inv.pending.clone());
            for p in late {
                if let Some(inv) = self.invitations.iter_mut().find(|i| i.seq == seq) {
                    inv.pending.retain(|x| *x != p);
                    let leader = inv.leader.clone();
                    let info = vec![Info::new("pmix.evrange", Value::procs(std::slice::from_ref(&leader))), Info::new("pmix.grp.id", Value::string(&inv.name))];
                    cx.event(PMIX_GROUP_INVITE_FAILED, &p, PMIX_RANGE_CUSTOM, &info);
                }
            }
            self.finish_invitation(cx, seq, PMIX_SUCCESS);
            return true;
        }
        let Some(o) = self.ops.iter_mut().find(|o| o.timer == Some(timer)) else { return false };
        o.timer = None;
        let seq = o.seq;
        self.finish_group_op(cx, seq, PMIX_ERR_TIMEOUT, Vec::new());
        true
    }

    fn leave_group(&mut self, cx: &mut Ctx<'_>, who: &Proc, name: &str) -> pmix_status_t {
        let Some(g) = self.known.get_mut(name) else { return PMIX_ERR_NOT_FOUND };
        if !g.members.contains(who) {
            return PMIX_ERR_NOT_FOUND;
        }
        g.members.retain(|p| p != who);
        let rest = g.members.clone();
        if rest.is_empty() {
            self.known.remove(name);
        }
        self.tell_group(cx, PMIX_GROUP_LEFT, who, name, &rest);
        // A destruct in progress no longer waits for it (and its own call, if
        // it made one, is done: it is out of the group).
        let pending: Vec<u64> = self.ops.iter().filter(|o| o.op == PMIX_GROUP_DESTRUCT && o.name == name && o.members.contains(who)).map(|o| o.seq).collect();
        for seq in pending {
            let Some(i) = self.ops.iter().position(|o| o.seq == seq) else { continue };
            let o = &mut self.ops[i];
            o.members.retain(|p| p != who);
            o.procs.retain(|p| p != who);
            let mine: Vec<(ConnId, u32)> = o.arrived.iter().filter(|(_, _, p, _)| p == who).map(|(c, r, _, _)| (*c, *r)).collect();
            o.arrived.retain(|(_, _, p, _)| p != who);
            for (c, r) in mine {
                cx.reply_infos(c, r, PMIX_SUCCESS, &[]);
            }
            if self.ops[i].arrived.is_empty() {
                self.finish_group_op(cx, seq, PMIX_SUCCESS, Vec::new());
            } else {
                self.group_check_arrivals(cx, i);
            }
        }
        PMIX_SUCCESS
    }

    /// An event about `subject` for the remaining members of group `name`.
    fn tell_group(&mut self, cx: &mut Ctx<'_>, code: pmix_status_t, subject: &Proc, name: &str, members: &[Proc]) {
        if members.is_empty() {
            return;
        }
        let info = vec![Info::new("pmix.evrange", Value::procs(members)), Info::new("pmix.grp.id", Value::string(name))];
        cx.event(code, subject, PMIX_RANGE_CUSTOM, &info);
    }

    /// A local process ended: operations waiting for it fail, and the groups
    /// it belonged to lose it (announced where PMIX_GROUP_NOTIFY_TERMINATION asked).
    pub(super) fn member_ended(&mut self, cx: &mut Ctx<'_>, proc: &Proc) {
        // Invitations: a leader that ends takes its invitation along; an
        // invitee that ends has failed to answer.
        let led: Vec<u64> = self.invitations.iter().filter(|i| i.leader == *proc).map(|i| i.seq).collect();
        for seq in led {
            self.finish_invitation(cx, seq, PMIX_ERR_LOST_CONNECTION);
        }
        let invited: Vec<u64> = self.invitations.iter().filter(|i| i.pending.contains(proc)).map(|i| i.seq).collect();
        for seq in invited {
            self.invitee_answered(cx, seq, proc, None);
        }
        for inv in self.invitations.iter_mut() {
            inv.joined.retain(|(_, _, p)| p != proc);
        }
        let failed: Vec<u64> = self.ops.iter().filter(|o| o.members.contains(proc)).map(|o| o.seq).collect();
        for seq in failed {
            if let Some(o) = self.ops.iter_mut().find(|o| o.seq == seq) {
                o.arrived.retain(|(_, _, p, _)| p != proc);
            }
            self.finish_group_op(cx, seq, PMIX_ERR_LOST_CONNECTION, Vec::new());
        }
        let mut notices = Vec::new();
        for (name, g) in self.known.iter_mut() {
            if g.members.contains(proc) {
                g.members.retain(|p| p != proc);
                if g.notify_termination {
                    notices.push((name.clone(), g.members.clone()));
                }
            }
        }
        self.known.retain(|_, g| !g.members.is_empty());
        for (name, rest) in notices {
            self.tell_group(cx, PMIX_GROUP_MEMBER_FAILED, proc, &name, &rest);
        }
    }

    /// Replace each group name in `procs` (as a namespace with rank wildcard)
    /// by the group's members: a fence over a group is a fence over them.
    pub(super) fn expand(&self, procs: Vec<Proc>, nspaces: &HashMap<String, Nspace>) -> Vec<Proc> {
        let mut out = Vec::with_capacity(procs.len());
        for p in procs {
            match self.known.get(&p.nspace) {
                Some(g) if p.rank == PMIX_RANK_WILDCARD && !nspaces.contains_key(&p.nspace) => out.extend(g.members.iter().cloned()),
                _ => out.push(p),
            }
        }
        out
    }

    /// A member's PMIX_GROUP_INFO values under context id `cid`.
    pub(super) fn qualified_data(&self, target: &Proc, cid: usize, key: &str) -> Vec<Info> {
        self.qualified.get(&(target.clone(), cid)).map(|v| v.iter().filter(|i| key.is_empty() || i.key() == key).cloned().collect()).unwrap_or_default()
    }

    /// Answers to the group queries (None: not a group query).
    pub(super) fn query(&self, key: &str, quals: &[Info]) -> Option<Info> {
        match key {
            "pmix.qry.pgrpnum" => Some(Info::new(key, Value::size(self.known.len()))),
            "pmix.qry.pgrp" => {
                let names: Vec<&str> = self.known.keys().map(|s| s.as_str()).collect();
                Some(Info::new(key, Value::string(&names.join(","))))
            }
            "pmix.qry.pgrpmems" => {
                let name = find(quals, PMIX_GROUP_ID).and_then(|i| i.as_str())?;
                let g = self.known.get(&name)?;
                Some(Info::new(key, Value::procs(&g.members)))
            }
            _ => None,
        }
    }
}
