//! Connections: the hello of clients and tools (identity from the kernel),
//! and what a closed or deregistered connection leaves behind.


use crate::abi::*;
use crate::msg::{Hello, Reply, ToolHello, Welcome};
use crate::status::Res;
use crate::owned::{Info, Proc, Value};
use std::collections::HashMap;

use crate::runtime::{ConnId, Handle, Net, PeerCred};
use crate::wire;

use super::host::{Host, Upcall};
use super::nspace::Nspace;
use super::{credential, done_reply_infos, openpmix, reply, settled, Peer, ServerRole};

/// What a connection's hello needs of the role: the registrations it is
/// checked against, the peers it joins, the host that may refuse or name it.
pub(super) struct Ctx<'a> {
    pub host: &'a mut dyn Host,
    pub handle: Handle<ServerRole>,
    pub me: &'a Proc,
    pub nspaces: &'a mut HashMap<String, Nspace>,
    pub peers: &'a mut HashMap<ConnId, Peer>,
    pub cred_key: Option<credential::Key>,
    /// Tools named here so far.
    pub tools: &'a mut u32,
    /// The OpenPMIx clients' connections, and the index the next one is told.
    pub openpmix: &'a mut openpmix::Links,
    pub openpmix_index: &'a mut u32,
    /// Where the ranks' own directories are made (`ensure_procdir`).
    pub session_dir: Option<&'a super::session::SessionDir>,
}

impl Ctx<'_> {
    pub(super) fn on_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, body: &[u8]) {
        let Ok(Hello { protocol: proto, proc, token }) = Hello::decode(body) else {
            crate::pmix_debug!(1, "connection {conn}: malformed hello; dropping it");
            net.close(conn);
            return;
        };
        let ns = proc.nspace.clone();
        let refuse = |net: &mut Net, why: &str, st: pmix_status_t| {
            crate::pmix_debug!(1, "refusing connection of {proc}: {why}");
            reply(net, conn, req, Reply::Status(st));
            net.close_when_sent(conn);
        };
        if proto != wire::PROTOCOL {
            return refuse(net, "protocol version differs", PMIX_ERR_NOT_SUPPORTED);
        }
        let Some(cred) = net.cred(conn) else {
            return refuse(net, "no peer credentials", PMIX_ERR_INVALID_CRED);
        };
        if let Some((st, why)) = self.client_refusal(net, &proc, cred, token.as_deref()) {
            return refuse(net, &why, st);
        }
        let (first, obj) = self.mark_connected(conn, &proc, cred);
        // The namespace's job data: the client answers most Gets from it.
        // Shared: the sealed snapshot's descriptor goes with the reply, which
        // carries only this rank's own record, so a hello costs the same
        // whatever the number of local peers. Inline (a snapshot that cannot
        // be made or passed): every record in the reply.
        let Some(nsd) = self.nspaces.get_mut(&ns) else { return refuse(net, "namespace not registered", PMIX_ERR_NOT_FOUND) };
        let shared = nsd.shared_snapshot().ok();
        // (copied: the host is asked before it is sent)
        let own: Option<Vec<u8>> = match nsd.own_record(proc.rank) {
            Ok(rec) => rec.map(<[u8]>::to_vec),
            Err(_) => return refuse(net, "job data does not encode", PMIX_ERR_BAD_PARAM),
        };
        if let Err(st) = self.host_accepts(&proc, first, obj) {
            return refuse(net, "the host refused it", st);
        }
        let server = self.me.clone();
        if let Some(fd) = shared {
            let records = own.as_deref().map(|rec| (proc.rank, rec)).into_iter().collect();
            let body = Welcome { server: server.clone(), records, mapped: true }.encode();
            if net.send_with_fd(conn, req, wire::REPLY, &body, std::os::fd::AsFd::as_fd(&*fd)) {
                return;
            }
        }
        let Some(Ok(records)) = self.nspaces.get_mut(&ns).map(|n| n.records()) else {
            return refuse(net, "job data does not encode", PMIX_ERR_BAD_PARAM);
        };
        let body = Welcome { server, records, mapped: false }.encode();
        if !net.send(conn, req, wire::REPLY, &body) {
            reply(net, conn, req, Reply::Status(PMIX_ERR_OUT_OF_RESOURCE));
        }
    }

    /// Why a client may not connect as `proc` (None: it may), whatever the
    /// protocol it speaks: its namespace and rank registered, with the uid
    /// and gid it has, the credential setup_fork gave it (`token`) where one
    /// is presented or its namespace requires one, not already connected.
    pub(super) fn client_refusal(&self, net: &Net, proc: &Proc, cred: PeerCred, token: Option<&str>) -> Option<(pmix_status_t, String)> {
        let Some(ns) = self.nspaces.get(&proc.nspace) else { return Some((PMIX_ERR_NOT_FOUND, "namespace not registered".into())) };
        let Some(reg) = ns.clients.get(&proc.rank) else { return Some((PMIX_ERR_NOT_FOUND, "rank not registered".into())) };
        if reg.uid != cred.uid || reg.gid != cred.gid {
            return Some((PMIX_ERR_INVALID_CRED, format!("uid/gid {}/{} differ from the registration", cred.uid, cred.gid)));
        }
        match (token.filter(|t| !t.is_empty()), self.cred_key) {
            (Some(t), Some(k)) if !k.verify(proc, t) => return Some((PMIX_ERR_INVALID_CRED, "its credential does not match".into())),
            (None, _) if ns.cred_required => return Some((PMIX_ERR_INVALID_CRED, "no credential, and its namespace requires one".into())),
            _ => {}
        }
        if reg.conn.is_some_and(|c| net.is_open(c)) {
            return Some((PMIX_ERR_EXISTS, "rank already connected".into()));
        }
        None
    }

    /// A client admitted on `conn` (client_refusal said none): its
    /// registration marked connected, the connection its peer. Returns
    /// (its first connection, the host's server object for it).
    pub(super) fn mark_connected(&mut self, conn: ConnId, proc: &Proc, cred: PeerCred) -> (bool, usize) {
        let mut seen = (false, 0);
        if let Some(reg) = self.nspaces.get_mut(&proc.nspace).and_then(|n| n.clients.get_mut(&proc.rank)) {
            reg.conn = Some(conn);
            reg.finalized = false;
            reg.terminated = false;
            seen = (!reg.connected, reg.server_object);
            reg.connected = true;
        }
        self.peers.insert(conn, Peer { proc: proc.clone(), cred, tool: false });
        seen
    }

    /// The host's client_connected upcall, on a client's first connection:
    /// Err(its status) when it refuses the client.
    pub(super) fn host_accepts(&mut self, proc: &Proc, first: bool, obj: usize) -> Result<(), pmix_status_t> {
        if !first {
            return Ok(());
        }
        match self.host.client_connected(proc, obj) {
            PMIX_SUCCESS | PMIX_OPERATION_SUCCEEDED | PMIX_ERR_NOT_SUPPORTED => Ok(()),
            st => Err(st),
        }
    }

    /// Why a tool may not connect (None: it may): another user than this
    /// server's (root excepted), or a name it chose that is in use.
    pub(super) fn tool_refusal(&self, cred: PeerCred, chosen: Option<&Proc>) -> Option<(pmix_status_t, &'static str)> {
        let my_uid = nix::unistd::geteuid().as_raw();
        if cred.uid != my_uid && cred.uid != 0 {
            return Some((PMIX_ERR_NO_PERMISSIONS, "different user"));
        }
        if chosen.is_some_and(|p| self.nspaces.contains_key(&p.nspace) || self.peers.values().any(|x| x.proc == *p)) {
            return Some((PMIX_ERR_BAD_PARAM, "the name it chose is in use"));
        }
        None
    }

    /// What the host's tool_connected upcall is told of a tool.
    pub(super) fn tool_infos(cred: PeerCred, chosen: Option<&Proc>, version: Option<&str>) -> Vec<Info> {
        let mut info = vec![Info::new("pmix.euid", Value::u32(cred.uid)), Info::new("pmix.egid", Value::u32(cred.gid))];
        if let Some(v) = version {
            info.push(Info::new("pmix.version", Value::string(v)));
        }
        if let Some(p) = chosen {
            info.push(Info::new("pmix.tool.nspace", Value::string(&p.nspace)));
            info.push(Info::new("pmix.tool.rank", Value::rank(p.rank)));
        }
        info
    }

    /// A tool's name: the one it or the host chose, else a new one.
    pub(super) fn tool_name(&mut self, chosen: Option<Proc>) -> Proc {
        *self.tools += 1;
        chosen.unwrap_or_else(|| Proc::new(&format!("{}.tool.{}", self.me.nspace, self.tools), 0))
    }

    /// A tool connects: same user as this server (or root) only. The host's
    /// tool_connected upcall would name it; without one the server does.
    pub(super) fn on_tool_hello(&mut self, net: &mut Net, conn: ConnId, req: u32, body: &[u8]) {
        let hello = ToolHello::decode(body);
        let ok = hello.as_ref().is_ok_and(|h| h.protocol == wire::PROTOCOL);
        // The name the tool chose (PMIX_TOOL_NSPACE/RANK), if any.
        let chosen = hello.ok().and_then(|h| h.chosen);
        let cred = net.cred(conn);
        let refusal = match cred {
            _ if !ok => Some((PMIX_ERR_NOT_SUPPORTED, "bad hello")),
            None => Some((PMIX_ERR_NO_PERMISSIONS, "different user")),
            Some(c) => self.tool_refusal(c, chosen.as_ref()),
        };
        if let Some((st, why)) = refusal {
            crate::pmix_debug!(1, "refusing tool connection {conn}: {why}");
            reply(net, conn, req, Reply::Status(st));
            net.close_when_sent(conn);
            return;
        }
        let cred = cred.unwrap();
        let info = Self::tool_infos(cred, chosen.as_ref(), Some(env!("CARGO_PKG_VERSION")));
        let h = self.handle.clone();
        let fallback = chosen.clone();
        let u = self.host.tool_connected(&info, Box::new(move |st, p| {
            h.run(move |s, net| s.conn_ctx().tool_named(net, conn, req, cred, settled(st), p.or(fallback)));
        }));
        if let Upcall::Now(_) = u {
            // No host decision: the tool's own name, or one the server gives.
            self.tool_named(net, conn, req, cred, PMIX_SUCCESS, chosen);
        }
    }

    pub(super) fn tool_named(&mut self, net: &mut Net, conn: ConnId, req: u32, cred: PeerCred, st: pmix_status_t, proc: Option<Proc>) {
        if st != PMIX_SUCCESS {
            reply(net, conn, req, Reply::Status(st));
            net.close_when_sent(conn);
            return;
        }
        let proc = self.tool_name(proc);
        let welcome = Reply::ToolWelcome { server: self.me.clone(), name: proc.clone() };
        self.peers.insert(conn, Peer { proc, cred, tool: true });
        reply(net, conn, req, welcome);
    }

    /// PMIx_Get_credential: the host's credential for the caller.
    pub(super) fn on_get_credential(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, info: Vec<Info>) -> Res {
        let h = self.handle.clone();
        let u = self.host.get_credential(who, &info, Box::new(move |st, cred, infos| {
            h.run(move |_, net| reply(net, conn, req, Reply::Credential { status: settled(st), credential: cred, info: infos }));
        }));
        if let Upcall::Now(st) = u {
            reply(net, conn, req, Reply::Status(settled(st)));
        }
        Ok(())
    }

    /// PMIx_Validate_credential: the host judges it.
    pub(super) fn on_validate_credential(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, cred: Vec<u8>, info: Vec<Info>) -> Res {
        let u = self.host.validate_credential(who, &cred, &info, done_reply_infos(self.handle.clone(), conn, req));
        if let Upcall::Now(st) = u {
            reply(net, conn, req, Reply::Status(settled(st)));
        }
        Ok(())
    }
}
