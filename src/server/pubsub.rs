//! Publish, lookup and unpublish: relayed to the host, with the caller's
//! identity as the kernel gave it (never what the caller claims).

use crate::abi::*;
use crate::owned::{Info, Proc, Value};
use crate::runtime::{ConnId, Handle, Net};

use super::host::{Done, Host, Upcall};
use super::{reply, settled, ServerRole};
use crate::msg::Reply;

/// What publish, lookup and unpublish need of the server: the connections,
/// the host, the requester's identity from the kernel, and the way back onto
/// the server's thread for the host's answer.
pub(super) struct Ctx<'a> {
    pub net: &'a mut Net,
    pub host: &'a mut dyn Host,
    /// The requester's uid and gid as the kernel gave them.
    pub cred: Option<(u32, u32)>,
    pub handle: Handle<ServerRole>,
}

impl Ctx<'_> {
    /// The requester's identity replaces whatever the request claimed.
    fn vouch(&self, info: &mut Vec<Info>) {
        if let Some((uid, gid)) = self.cred {
            info.retain(|i| !i.is(PMIX_USERID) && !i.is(PMIX_GRPID));
            info.push(Info::new("pmix.euid", Value::u32(uid)));
            info.push(Info::new("pmix.egid", Value::u32(gid)));
        }
    }

    /// A completion that answers (status) on the server's thread.
    fn answer_later(&self, conn: ConnId, req: u32) -> Done {
        let h = self.handle.clone();
        Box::new(move |st| {
            h.run(move |_, net| reply(net, conn, req, Reply::Status(settled(st))));
        })
    }
}

pub(super) fn publish(cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, mut info: Vec<Info>) {
    cx.vouch(&mut info);
    let done = cx.answer_later(conn, req);
    if let Upcall::Now(st) = cx.host.publish(who, &info, done) {
        reply(cx.net, conn, req, Reply::Status(settled(st)));
    }
}

pub(super) fn lookup(cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, keys: Vec<String>, mut info: Vec<Info>) {
    cx.vouch(&mut info);
    let h = cx.handle.clone();
    let u = cx.host.lookup(who, &keys, &info, Box::new(move |st, pdata| {
        h.run(move |_, net| reply(net, conn, req, Reply::Lookup { status: settled(st), found: pdata }));
    }));
    if let Upcall::Now(st) = u {
        // (nothing found, with the host's status)
        reply(cx.net, conn, req, Reply::Lookup { status: settled(st), found: Vec::new() });
    }
}

pub(super) fn unpublish(cx: &mut Ctx<'_>, conn: ConnId, req: u32, who: &Proc, keys: Vec<String>, mut info: Vec<Info>) {
    cx.vouch(&mut info);
    let done = cx.answer_later(conn, req);
    if let Upcall::Now(st) = cx.host.unpublish(who, &keys, &info, done) {
        reply(cx.net, conn, req, Reply::Status(settled(st)));
    }
}
