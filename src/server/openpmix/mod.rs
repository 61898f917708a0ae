//! OpenPMIx clients of this server: a TCP listener on loopback, OpenPMIx's
//! connect handshake (docs/openpmix-ptl-protocol.md, 2), the peer's uid
//! from the kernel; the peer's requests are read by `msg::v41` and served
//! as any client's, our answers written in its form (answers.rs; the job
//! data: jobdata.rs).
//!
//! Identity: OpenPMIx's "native" credential is a uid and gid the client
//! states. Here the stated uid must be the one the kernel gives as the
//! owner of the peer's end of the loopback connection (peer.rs: the socket
//! found by its four addresses); the gid cannot be learnt that way and is
//! taken as stated, then both are compared with the registration, as for
//! rpmix's own clients. Where the namespace requires rpmix's per-rank
//! credential (pmixrun's jobs), the process holding the peer's socket (a
//! process of the stated uid with that socket's inode among its
//! descriptors, /proc/<pid>/fd) must carry that rank's credential in the
//! environment setup_fork gave it (/proc/<pid>/environ): another process
//! of the same user cannot pass for a rank it was not started as.
//!
//! Why so: the owner and inode come from one NETLINK_SOCK_DIAG question
//! about that one socket (the kernel's hash lookup), not from reading the
//! whole socket table, /proc/net/tcp, which stays only as the fallback
//! where sock_diag cannot be asked. The holder is looked for first in the
//! pid the host registered for the rank claimed (PMIX_PROC_PID), then its
//! children (a wrapper that forked the program), and only then among every
//! process of that user: reading each one's descriptors per connection made
//! a launch of n OpenPMIx ranks quadratic. Where it is found changes
//! nothing of the rule: the process must hold that socket and be the
//! stated uid's, and the credential is read from its environment alone.

mod jobdata;
mod answers;
mod peer;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use crate::abi::*;
use crate::owned::Proc;
use crate::msg::{self, Reply, Request};
use crate::ptl;
use crate::runtime::{ConnId, Framing, Handle, Net, PeerCred, Stream};

use std::collections::HashMap;

use super::nspace::Nspace;
use super::{Peer, ServerRole};

pub use answers::Link;

/// How long a new connection may take to send its connect message.
const HANDSHAKE_WAIT: Duration = Duration::from_secs(2);

/// Handshakes read at once (each on a thread of its own); more connections
/// meanwhile are closed at once.
const MAX_HANDSHAKES: usize = 256;
static HANDSHAKES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The running listener: its port, and what stops it.
pub struct Listener {
    pub addr: SocketAddr,
    stop: Arc<std::sync::atomic::AtomicBool>,
    fd: std::os::fd::RawFd,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// Listen on a free loopback port; each connection's handshake is read
    /// on the listener's thread (bounded by HANDSHAKE_WAIT), then handed to
    /// the progress thread of `server`.
    pub fn start(server: Handle<ServerRole>) -> std::io::Result<Listener> {
        let l = TcpListener::bind("127.0.0.1:0")?;
        let addr = l.local_addr()?;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let fd = std::os::fd::AsRawFd::as_raw_fd(&l);
        let stop2 = stop.clone();
        let thread = std::thread::Builder::new().name("pmix-tcp-accept".into()).spawn(move || {
            for s in l.incoming() {
                if stop2.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                match s {
                    Ok(s) => {
                        // Each handshake on its own thread: a peer that is
                        // slow to speak delays no one else.
                        if HANDSHAKES.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= MAX_HANDSHAKES {
                            HANDSHAKES.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                            crate::pmix_debug!(1, "OpenPMIx connection refused: {MAX_HANDSHAKES} handshakes already under way");
                            continue;
                        }
                        let server = server.clone();
                        let spawned = std::thread::Builder::new().name("pmix-tcp-hello".into()).spawn(move || {
                            handshake(s, addr, &server);
                            HANDSHAKES.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                        });
                        if spawned.is_err() {
                            HANDSHAKES.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                    Err(e) => crate::pmix_debug!(5, "OpenPMIx listener: accept: {e}"),
                }
            }
        })?;
        Ok(Listener { addr, stop, fd, thread: Some(thread) })
    }

    /// The contact OpenPMIx clients read from PMIX_SERVER_URI41.
    pub fn contact(&self, me: &Proc) -> String {
        format!("{}.{};tcp4://{}", me.nspace, me.rank, self.addr)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: our own listening descriptor, still open (the thread owns
        // the listener until it returns); shutdown wakes its accept.
        unsafe { libc::shutdown(self.fd, libc::SHUT_RDWR) };
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Read and check one connect message; a peer that passes goes to the
/// progress thread. Every refusal closes the connection without a byte,
/// as OpenPMIx's server does, and says why at PMIX_DEBUG.
fn handshake(mut s: TcpStream, ours: SocketAddr, server: &Handle<ServerRole>) {
    let refuse = |why: &str| crate::pmix_debug!(1, "OpenPMIx connection refused: {why}");
    let Ok(peer_addr) = s.peer_addr() else { return };
    let _ = s.set_read_timeout(Some(HANDSHAKE_WAIT));
    let _ = s.set_nodelay(true);
    let mut hdr = [0u8; crate::runtime::PTL_HEADER];
    if s.read_exact(&mut hdr).is_err() {
        return refuse("no connect message");
    }
    // (the length is in the sender's host order, as OpenPMIx reads it raw)
    let n = u32::from_ne_bytes(hdr[8..12].try_into().unwrap()) as usize;
    if n > ptl::MAX_CONNECT_BODY {
        return refuse(&format!("connect message of {n} bytes"));
    }
    let mut body = vec![0u8; n];
    if s.read_exact(&mut body).is_err() {
        return refuse("truncated connect message");
    }
    let c = match ptl::parse_connect(&body) {
        Ok(c) => c,
        Err(_) => return refuse("malformed connect message"),
    };
    if c.bfrops != "v41" {
        return refuse(&format!("it speaks serialisation '{}'; only v41 (OpenPMIx 4.1 and later) is spoken here", c.bfrops));
    }
    if c.psec != "native" {
        return refuse(&format!("security module '{}'; only native is spoken here", c.psec));
    }
    if c.gds != "hash" {
        return refuse(&format!("data store '{}'; only hash is served (PMIX_GDS_MODULE=hash)", c.gds));
    }
    if c.buffer_type != 1 && c.buffer_type != 2 {
        return refuse(&format!("buffer type {}", c.buffer_type));
    }
    let Some((uid, gid)) = c.claimed else { return refuse("no native credential") };
    let who = c.name.as_ref().map_or_else(|| "a tool".to_string(), |p| p.to_string());
    // The kernel's word on the peer's end: its owner, and its inode (to
    // find the process holding it).
    let owner = match peer::socket_owner(peer_addr, ours) {
        Some(o) if o.uid == uid => o,
        Some(o) => return refuse(&format!("{who} claims uid {uid}; the kernel says its socket is uid {}'s", o.uid)),
        None => return refuse(&format!("{who}: the kernel does not know its end of the connection")),
    };
    let described = c.buffer_type == 2;
    if c.flag == ptl::TOOL_NEEDS_ID || c.flag == ptl::TOOL_GIVEN_ID {
        // (its pid: programs it spawns by relative path run where it runs)
        let pid = peer::holder(owner.inode, uid, None).map_or(0, |p| p.pid);
        let cred = PeerCred { pid, uid, gid };
        let needs_id = c.flag == ptl::TOOL_NEEDS_ID;
        server.call(move |role, net| role.conn_ctx().admit_openpmix_tool(net, s, c.name, needs_id, cred, described));
        return;
    }
    let Some(name) = c.name else { return refuse("no name") };
    if c.flag != ptl::SIMPLE_CLIENT {
        return refuse(&format!("connection type {} (launchers are not served)", c.flag));
    }
    // The process behind the socket (the pid the host registered for the
    // rank it claims, if it holds the socket), and the credential
    // setup_fork gave it.
    let known = {
        let name = name.clone();
        server.call(move |role, _| role.pid_of(&name)).and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0)
    };
    let holder = peer::holder(owner.inode, uid, known);
    let token = holder.as_ref().and_then(|p| p.environ_var(crate::wire::CRED_ENV));
    let cred = PeerCred { pid: holder.map_or(0, |p| p.pid), uid, gid };
    server.call(move |role, net| role.conn_ctx().admit_openpmix(net, s, name, cred, token, described));
}

impl super::conn::Ctx<'_> {
    /// A connect message that passed the listener's checks: the same
    /// checks as rpmix's hello against the registration, then the answer
    /// (status and index), and the connection joins the progress loop with
    /// its translation.
    fn admit_openpmix(&mut self, net: &mut Net, s: TcpStream, proc: Proc, cred: PeerCred, token: Option<String>, described: bool) {
        let refuse = |why: &str| crate::pmix_debug!(1, "OpenPMIx client {proc} refused: {why}");
        if let Some((_, why)) = self.client_refusal(net, &proc, cred, token.as_deref()) {
            return refuse(&why);
        }
        let index = *self.openpmix_index;
        let mut answer = Vec::with_capacity(8);
        answer.extend_from_slice(&(PMIX_SUCCESS as u32).to_be_bytes());
        answer.extend_from_slice(&index.to_be_bytes());
        let conn = match self.join_openpmix(net, s, &answer, &proc, cred, described) {
            Ok(c) => c,
            Err(why) => return refuse(why),
        };
        *self.openpmix_index += 1;
        let (first, obj) = self.mark_connected(conn, &proc, cred);
        super::ensure_procdir(self.session_dir, self.nspaces, &proc);
        crate::pmix_debug!(5, "OpenPMIx client {proc} connected (index {index}, {} buffers)", if described { "described" } else { "plain" });
        if let Err(st) = self.host_accepts(&proc, first, obj) {
            crate::pmix_debug!(1, "OpenPMIx client {proc}: the host refused it ({st})");
            self.openpmix.remove(&conn);
            self.peers.remove(&conn);
            if let Some(r) = self.nspaces.get_mut(&proc.nspace).and_then(|n| n.clients.get_mut(&proc.rank)) {
                r.conn = None;
            }
            net.close(conn);
        }
    }

    /// Send the handshake's `answer` on `s`, then serve the connection in the
    /// progress loop with OpenPMIx's framing and `proc`'s translation.
    fn join_openpmix(&mut self, net: &mut Net, mut s: TcpStream, answer: &[u8], proc: &Proc, cred: PeerCred, described: bool) -> Result<ConnId, &'static str> {
        if s.write_all(answer).is_err() || s.set_nonblocking(true).is_err() {
            return Err("gone during the handshake");
        }
        let conn = net
            .add(Stream::Tcp(mio::net::TcpStream::from_std(s)), Framing::Ptl { index: 0 }, Some(cred))
            .map_err(|_| "cannot watch its connection")?;
        let link = Link::new(described, proc.clone());
        net.set_rewrite(conn, Box::new(link.clone()));
        self.openpmix.insert(conn, link);
        Ok(conn)
    }

    /// An OpenPMIx tool that passed the listener's checks: the same user as
    /// this server (or root) only, as rpmix's tools; the host's
    /// tool_connected may name it, else its own name or one given here.
    fn admit_openpmix_tool(&mut self, net: &mut Net, s: TcpStream, chosen: Option<Proc>, needs_id: bool, cred: PeerCred, described: bool) {
        if let Some((_, why)) = self.tool_refusal(cred, chosen.as_ref()) {
            return crate::pmix_debug!(1, "OpenPMIx tool of uid {} refused: {why}", cred.uid);
        }
        let info = Self::tool_infos(cred, chosen.as_ref(), None);
        // The stream waits with the decision (the host may answer later).
        let pending = Arc::new(parking_lot::Mutex::new(Some(s)));
        let h = self.handle.clone();
        let (p2, fallback) = (pending.clone(), chosen.clone());
        let u = self.host.tool_connected(&info, Box::new(move |st, p| {
            h.run(move |role, net| {
                if let Some(s) = p2.lock().take() {
                    role.conn_ctx().openpmix_tool_named(net, s, super::settled(st), p.or(fallback), needs_id, cred, described);
                }
            });
        }));
        if let super::host::Upcall::Now(_) = u {
            if let Some(s) = pending.lock().take() {
                self.openpmix_tool_named(net, s, PMIX_SUCCESS, chosen, needs_id, cred, described);
            }
        }
    }

    /// Answer an OpenPMIx tool's connect message (docs/openpmix-ptl-commands.md
    /// 14.4: a status, the name given when it asked for one, ours, a status)
    /// and serve it from then on.
    #[allow(clippy::too_many_arguments)] // one handshake's state
    fn openpmix_tool_named(&mut self, net: &mut Net, s: TcpStream, st: pmix_status_t, proc: Option<Proc>, needs_id: bool, cred: PeerCred, described: bool) {
        if st != PMIX_SUCCESS {
            return crate::pmix_debug!(1, "OpenPMIx tool refused by the host ({st})");
        }
        let proc = self.tool_name(proc);
        let name = |out: &mut Vec<u8>, p: &Proc| {
            let mut field = [0u8; ptl::NSPACE_FIELD];
            let n = p.nspace.len().min(ptl::NSPACE_FIELD - 1);
            field[..n].copy_from_slice(&p.nspace.as_bytes()[..n]);
            out.extend_from_slice(&field);
            out.extend_from_slice(&p.rank.to_be_bytes());
        };
        let mut answer = Vec::with_capacity(8 + 2 * (ptl::NSPACE_FIELD + 4));
        answer.extend_from_slice(&(PMIX_SUCCESS as u32).to_be_bytes());
        if needs_id {
            name(&mut answer, &proc);
        }
        name(&mut answer, self.me);
        answer.extend_from_slice(&(PMIX_SUCCESS as u32).to_be_bytes());
        let conn = match self.join_openpmix(net, s, &answer, &proc, cred, described) {
            Ok(c) => c,
            Err(why) => return crate::pmix_debug!(1, "OpenPMIx tool {proc}: {why}"),
        };
        crate::pmix_debug!(5, "OpenPMIx tool {proc} connected");
        self.peers.insert(conn, Peer { proc, cred, tool: true });
    }
}

/// One request of an OpenPMIx client (`tool`: a tool's): answered here
/// (the job data), or put into rpmix's form, to be served as any client's:
/// the request id to serve it under, the request, and whether OpenPMIx's
/// client waits for an answer rpmix's does not send (then acknowledged).
#[allow(clippy::too_many_arguments)] // one frame's fields
pub(super) fn incoming(net: &mut Net, jobs: &HashMap<String, Nspace>, hostname: &str, tool: bool, conn: ConnId, req: u32, who: &Proc, link: &Link, body: &[u8]) -> Option<(u32, Request, bool)> {
    if req == ptl::TAG_HEARTBEAT {
        return Some((0, Request::Heartbeat, false));
    }
    // (each request's bytes, at the level above every other: how the
    // codec's test captures of OpenPMIx's own requests are taken)
    crate::pmix_debug!(9, "OpenPMIx request from {who}: described {} bytes {}", link.described(), crate::strings::hex(body));
    let request = match msg::v41::decode(body, link.described(), who) {
        Ok(msg::v41::Incoming::Request(r)) => r,
        Ok(msg::v41::Incoming::JobData) => {
            let answer = match jobs.get(&who.nspace) {
                Some(ns) => Some(jobdata::encode(ns, hostname, link.described())),
                // A tool has no job: its name alone.
                None if tool => Some(jobdata::name_only(&who.nspace, link.described())),
                None => None,
            };
            match answer {
                Some(Ok(bytes)) => super::reply(net, conn, req, Reply::JobData(bytes)),
                _ => super::reply(net, conn, req, Reply::Status(PMIX_ERR_NOT_FOUND)),
            }
            return None;
        }
        Err(st) => {
            crate::pmix_debug!(1, "OpenPMIx client {who}: a request does not decode ({st}); answering with an error");
            super::reply(net, conn, req, Reply::Status(st));
            return None;
        }
    };
    if !answers::served(&request) {
        crate::pmix_debug!(1, "OpenPMIx client {who}: {} is not served", request.name());
        super::reply(net, conn, req, Reply::Status(PMIX_ERR_NOT_SUPPORTED));
        return None;
    }
    // Its client expects no answer.
    if !msg::v41::answered(&request) {
        return Some((0, request, false));
    }
    if let Some(nspaces) = answers::connect_nspaces(&request, who) {
        // The other jobs' data as they are now (the answer comes when
        // all have arrived; their commits are asked for with Gets, as
        // from OpenPMIx's server).
        let objects = nspaces.iter().filter_map(|n| jobs.get(n).and_then(|ns| jobdata::encode(ns, hostname, link.described()).ok())).collect();
        link.connecting(req, objects);
    }
    // (OpenPMIx's client waits for an answer rpmix's does not send)
    let ack = !request.answered();
    Some((req, request, ack))
}

/// `answer` in OpenPMIx's form when `conn` is an OpenPMIx client's (None:
/// it is rpmix's).
pub(super) fn answer(net: &mut Net, conn: ConnId, req: u32, answer: &Reply) -> Option<Vec<u8>> {
    net.rewrite::<Link>(conn).map(|l| l.answer(req, answer))
}

/// Read `body` as a connect message and as every request an OpenPMIx
/// client or tool sends, in both buffer forms (the fuzzer's entry point:
/// any bytes, an error at worst).
pub fn read_as_every_request(body: &[u8], described: bool) {
    let _ = ptl::parse_connect(body);
    let _ = msg::v41::decode(body, described, &Proc::new("fuzz", 0));
}

/// Keep the connection's link type reachable for the role's map.
pub type Links = std::collections::HashMap<ConnId, Link>;
