//! Connections: the hello of clients and tools (identity from the kernel),
//! and what a closed or deregistered connection leaves behind.


use crate::abi::*;
use crate::status::Res;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{decode_infos, decode_str, encode_infos, Info, Proc, Value};
use crate::owned;
use crate::runtime::{ConnId, Net, PeerCred};
use crate::wire;

use super::Peer;
use super::host::Upcall;
use super::{reply, settled, ServerRole};

impl ServerRole {
    pub(super) fn on_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, d: &mut Decoder<'_>) {
        let parsed = (|| -> Res<(u32, String, u32)> { Ok((d.u32()?, decode_str(d)?, d.u32()?)) })();
        let Ok((proto, ns, rank)) = parsed else {
            crate::pmix_debug!(1, "connection {conn}: malformed hello; dropping it");
            net.close(conn);
            return;
        };
        // (a credential follows, from clients setup_fork prepared)
        let token = if d.remaining() > 0 { decode_str(d).ok() } else { None };
        let proc = Proc::new(&ns, rank);
        let key = self.cred_key;
        let refuse = |net: &mut Net, why: &str, st: pmix_status_t| {
            crate::pmix_debug!(1, "refusing connection of {proc}: {why}");
            reply(net, conn, req, st, &[]);
            net.close_when_sent(conn);
        };
        if proto != wire::PROTOCOL {
            return refuse(net, "protocol version differs", PMIX_ERR_NOT_SUPPORTED);
        }
        let Some(cred) = net.cred(conn) else {
            return refuse(net, "no peer credentials", PMIX_ERR_INVALID_CRED);
        };
        let Some(ns_entry) = self.nspaces.get_mut(&ns) else {
            return refuse(net, "namespace not registered", PMIX_ERR_NOT_FOUND);
        };
        let Some(reg) = ns_entry.clients.get_mut(&rank) else {
            return refuse(net, "rank not registered", PMIX_ERR_NOT_FOUND);
        };
        if reg.uid != cred.uid || reg.gid != cred.gid {
            return refuse(net, &format!("uid/gid {}/{} differ from the registration", cred.uid, cred.gid), PMIX_ERR_INVALID_CRED);
        }
        match (token.as_deref().filter(|t| !t.is_empty()), key) {
            (Some(t), Some(k)) if !k.verify(&proc, t) => return refuse(net, "its credential does not match", PMIX_ERR_INVALID_CRED),
            (None, _) if ns_entry.cred_required => return refuse(net, "no credential, and its namespace requires one", PMIX_ERR_INVALID_CRED),
            _ => {}
        }
        if reg.conn.is_some_and(|c| net.is_open(c)) {
            return refuse(net, "rank already connected", PMIX_ERR_EXISTS);
        }
        reg.conn = Some(conn);
        reg.finalized = false;
        reg.terminated = false;
        let first = !reg.connected;
        reg.connected = true;
        let obj = reg.server_object;
        self.peers.insert(conn, Peer { proc: proc.clone(), cred, tool: false });
        // The whole namespace's data: the client answers most Gets from it.
        let mut body = Encoder::default();
        owned::encode_str(&mut body, &self.me.nspace);
        body.u32(self.me.rank);
        if ns_entry.encode_snapshot(&mut body).is_err() {
            return refuse(net, "job data does not encode", PMIX_ERR_BAD_PARAM);
        }
        if first {
            let st = self.host.client_connected(&proc, obj);
            if st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED && st != PMIX_ERR_NOT_SUPPORTED {
                return refuse(net, "the host refused it", st);
            }
        }
        reply(net, conn, req, PMIX_SUCCESS, body.bytes());
    }

    /// A tool connects: same user as this server (or root) only. The host's
    /// tool_connected upcall would name it; without one the server does.
    pub(super) fn on_tool_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, d: &mut Decoder<'_>) {
        let ok = d.u32().map(|p| p == wire::PROTOCOL).unwrap_or(false);
        // The name the tool chose (PMIX_TOOL_NSPACE/RANK), if any.
        let chosen = match (owned::decode_str(d), d.u32()) {
            (Ok(ns), Ok(r)) if !ns.is_empty() => Some(Proc::new(&ns, r)),
            _ => None,
        };
        let cred = net.cred(conn);
        let my_uid = nix::unistd::geteuid().as_raw();
        let allowed = cred.is_some_and(|c| c.uid == my_uid || c.uid == 0);
        let taken = chosen.as_ref().is_some_and(|p| self.nspaces.contains_key(&p.nspace) || self.peers.values().any(|x| x.proc == *p));
        let refusal = if !ok {
            Some((PMIX_ERR_NOT_SUPPORTED, "bad hello"))
        } else if !allowed {
            Some((PMIX_ERR_NO_PERMISSIONS, "different user"))
        } else if taken {
            Some((PMIX_ERR_BAD_PARAM, "the name it chose is in use"))
        } else {
            None
        };
        if let Some((st, why)) = refusal {
            crate::pmix_debug!(1, "refusing tool connection {conn}: {why}");
            reply(net, conn, req, st, &[]);
            net.close_when_sent(conn);
            return;
        }
        let cred = cred.unwrap();
        let mut info = vec![
            Info::new("pmix.euid", Value::u32(cred.uid)),
            Info::new("pmix.egid", Value::u32(cred.gid)),
            Info::new("pmix.version", Value::string(env!("CARGO_PKG_VERSION"))),
        ];
        if let Some(p) = &chosen {
            info.push(Info::new("pmix.tool.nspace", Value::string(&p.nspace)));
            info.push(Info::new("pmix.tool.rank", Value::rank(p.rank)));
        }
        let h = self.handle();
        let fallback = chosen.clone();
        let u = self.host.tool_connected(&info, Box::new(move |st, p| {
            h.run(move |s, net| s.tool_named(net, conn, req, cred, settled(st), p.or(fallback)));
        }));
        if let Upcall::Now(_) = u {
            // No host decision: the tool's own name, or one the server gives.
            self.tool_named(net, conn, req, cred, PMIX_SUCCESS, chosen);
        }
    }

    pub(super) fn tool_named(&mut self, net: &mut Net, conn: ConnId, req: u32, cred: PeerCred, st: pmix_status_t, proc: Option<Proc>) {
        if st != PMIX_SUCCESS {
            reply(net, conn, req, st, &[]);
            net.close_when_sent(conn);
            return;
        }
        self.next_tool += 1;
        let proc = proc.unwrap_or_else(|| Proc::new(&format!("{}.tool.{}", self.me.nspace, self.next_tool), 0));
        let mut body = Encoder::default();
        owned::encode_str(&mut body, &self.me.nspace);
        body.u32(self.me.rank);
        owned::encode_str(&mut body, &proc.nspace);
        body.u32(proc.rank);
        self.peers.insert(conn, Peer { proc, cred, tool: true });
        reply(net, conn, req, PMIX_SUCCESS, body.bytes());
    }

    /// (ever connected, finalized) of a registered client.
    pub fn client_state(&self, proc: &Proc) -> Option<(bool, bool)> {
        self.nspaces.get(&proc.nspace).and_then(|n| n.clients.get(&proc.rank)).map(|r| (r.connected, r.finalized))
    }

    /// Close a client's connection because the host deregistered it (no
    /// lost-connection handling), dropping what the connection held.
    pub(super) fn forget_conn(&mut self, net: &mut Net, c: ConnId) {
        self.peers.remove(&c);
        self.iof.drop_conn(c);
        self.drop_checkpoints_of(net, c);
        net.close(c);
    }

    pub(super) fn add_uid(&self, conn: ConnId, info: &mut Vec<Info>) {
        if let Some(p) = self.peers.get(&conn) {
            info.retain(|i| !i.is(PMIX_USERID) && !i.is(PMIX_GRPID));
            info.push(Info::new("pmix.euid", Value::u32(p.cred.uid)));
            info.push(Info::new("pmix.egid", Value::u32(p.cred.gid)));
        }
    }

    /// PMIx_Get_credential: the host's credential for the caller.
    pub(super) fn on_get_credential(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let info = decode_infos(d)?;
        let h = self.handle();
        let u = self.host.get_credential(who, &info, Box::new(move |st, cred, infos| {
            h.run(move |_, net| {
                let mut e = Encoder::default();
                e.blob(&cred);
                let _ = encode_infos(&mut e, &infos);
                reply(net, conn, req, settled(st), e.bytes());
            });
        }));
        if let Upcall::Now(st) = u {
            reply(net, conn, req, settled(st), &[]);
        }
        Ok(())
    }

    /// PMIx_Validate_credential: the host judges it.
    pub(super) fn on_validate_credential(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let cred = d.blob()?.to_vec();
        let info = decode_infos(d)?;
        let u = self.host.validate_credential(who, &cred, &info, self.done_reply_infos(conn, req));
        if let Upcall::Now(st) = u {
            reply(net, conn, req, settled(st), &[]);
        }
        Ok(())
    }
}
