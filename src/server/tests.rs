//! The server role tested as a unit: a `ServerRole` on its own progress
//! thread, a fake host that records its upcalls and answers them inline or
//! later (as real hosts do), and fake clients speaking rpmix's protocol on
//! the other ends of socket pairs. No process is started.
//!
//! Job "job": 4 ranks, ranks 0 and 1 local (clients here), 2 and 3 on
//! another node (the host's business).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::Duration;

use crate::abi::*;
use crate::data::pack::{Decoder, Encoder};
use crate::msg::{self, Collective, GroupOp, Hello, Request};
use crate::owned::{decode_infos, Info, Proc, Value};
use crate::runtime::{self, Engine};
use crate::wire;

use super::host::{Done, DoneData, DoneInfos, DoneLookup, DoneSpawn, Host, Upcall};
use super::ServerRole;

/// How the fake host answers an upcall it takes.
#[derive(Clone, Copy, PartialEq)]
enum Answer {
    /// Inside the upcall (Slurm and Open MPI's mpirun do this for fences).
    Inline,
    /// Later, from the test's thread.
    Later,
}

/// What the fake host saw, and the completions it holds.
enum Seen {
    /// An upcall the fake host answered at once with success: its name and infos.
    Answered(&'static str, Vec<Info>),
    Fence(Vec<Proc>, DoneData),
    Session(Proc, u32, Vec<Info>, DoneInfos),
    DirectModex(Proc, DoneData),
    Group(pmix_group_operation_t, String, DoneInfos),
}

struct FakeHost {
    answer: Answer,
    /// What was published (PMIx_Publish), for lookups.
    published: Vec<(Proc, Info)>,
    /// Remote ranks' data for direct modex (None: not supported).
    remote: Option<Vec<(Proc, Vec<Info>)>>,
    seen: mpsc::Sender<Seen>,
}

impl Host for FakeHost {
    fn fence_nb(&mut self, procs: &[Proc], _info: &[Info], _data: Vec<u8>, done: DoneData) -> Upcall {
        if self.answer == Answer::Inline {
            done(PMIX_SUCCESS, Vec::new());
            let _ = self.seen.send(Seen::Fence(procs.to_vec(), Box::new(|_, _| {})));
        } else {
            let _ = self.seen.send(Seen::Fence(procs.to_vec(), done));
        }
        Upcall::Pending
    }

    fn direct_modex(&mut self, proc: &Proc, _info: &[Info], done: DoneData) -> Upcall {
        let Some(remote) = &self.remote else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut e = Encoder::default();
        for (p, infos) in remote.iter().filter(|(p, _)| p == proc) {
            super::modex::blob_record(&mut e, p, infos).unwrap();
        }
        let blob = e.into_bytes();
        if self.answer == Answer::Inline {
            done(PMIX_SUCCESS, blob);
            let _ = self.seen.send(Seen::DirectModex(proc.clone(), Box::new(|_, _| {})));
        } else {
            let _ = self.seen.send(Seen::DirectModex(proc.clone(), Box::new(move |st, _| done(st, blob))));
        }
        Upcall::Pending
    }

    fn publish(&mut self, proc: &Proc, info: &[Info], done: Done) -> Upcall {
        self.published.extend(info.iter().filter(|i| !i.key().starts_with("pmix.")).map(|i| (proc.clone(), i.clone())));
        let _ = self.seen.send(Seen::Answered("publish", info.to_vec()));
        done(PMIX_SUCCESS);
        Upcall::Pending
    }

    fn lookup(&mut self, _proc: &Proc, keys: &[String], _info: &[Info], done: DoneLookup) -> Upcall {
        let found: Vec<(Proc, Info)> = self.published.iter().filter(|(_, i)| keys.iter().any(|k| k == i.key())).cloned().collect();
        done(if found.is_empty() { PMIX_ERR_NOT_FOUND } else { PMIX_SUCCESS }, found);
        Upcall::Pending
    }

    fn spawn(&mut self, _proc: &Proc, job_info: &[Info], apps: &crate::data::carray::CArray, done: DoneSpawn) -> Upcall {
        let mut seen = job_info.to_vec();
        seen.push(Info::new("apps", Value::u32(apps.len as u32)));
        let _ = self.seen.send(Seen::Answered("spawn", seen));
        done(PMIX_SUCCESS, "spawned.1".into());
        Upcall::Pending
    }

    fn job_control(&mut self, _requestor: &Proc, targets: &[Proc], directives: &[Info], done: DoneInfos) -> Upcall {
        let mut seen = directives.to_vec();
        seen.push(Info::new("targets", Value::procs(targets)));
        let _ = self.seen.send(Seen::Answered("job_control", seen));
        done(PMIX_SUCCESS, Vec::new());
        Upcall::Pending
    }

    fn abort(&mut self, _proc: &Proc, _server_object: usize, status: i32, msg: &str, _procs: &[Proc], done: Done) -> Upcall {
        let _ = self.seen.send(Seen::Answered("abort", vec![Info::new("status", Value::int(status)), Info::new("msg", Value::string(msg))]));
        done(PMIX_SUCCESS);
        Upcall::Pending
    }

    /// (no directive: refused at once, as a host refuses what it does not do)
    fn session_control(&mut self, requestor: &Proc, session: u32, directives: &[Info], done: DoneInfos) -> Upcall {
        if directives.is_empty() {
            return Upcall::Now(PMIX_ERR_NOT_SUPPORTED);
        }
        let _ = self.seen.send(Seen::Session(requestor.clone(), session, directives.to_vec(), done));
        Upcall::Pending
    }

    fn group(&mut self, op: pmix_group_operation_t, name: &str, _procs: &[Proc], _directives: &[Info], done: DoneInfos) -> Upcall {
        let _ = self.seen.send(Seen::Group(op, name.to_string(), done));
        Upcall::Pending
    }
}

/// One fake client: its end of the connection.
struct Client {
    s: UnixStream,
    me: Proc,
    next_req: u32,
}

/// A reply: its status and body.
struct Reply {
    status: pmix_status_t,
    body: Vec<u8>,
}

impl Client {
    fn send(&mut self, req: &Request) -> u32 {
        self.next_req += 1;
        let frame = runtime::frame(self.next_req, req.tag(), &req.encode().unwrap());
        self.s.write_all(&frame).unwrap();
        self.next_req
    }

    /// The next frame: (request id, tag, body); a test that would hang fails.
    fn frame(&mut self) -> (u32, u16, Vec<u8>) {
        let mut hdr = [0u8; runtime::HEADER];
        self.s.read_exact(&mut hdr).unwrap_or_else(|e| panic!("{}: no frame from the server: {e}", self.me));
        let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize - 6;
        let req = u32::from_le_bytes(hdr[4..8].try_into().unwrap());
        let tag = u16::from_le_bytes(hdr[8..10].try_into().unwrap());
        let mut body = vec![0u8; len];
        self.s.read_exact(&mut body).unwrap();
        (req, tag, body)
    }

    /// The reply to request `req` (events before it are skipped).
    fn reply(&mut self, req: u32) -> Reply {
        loop {
            let (r, tag, body) = self.frame();
            if tag == wire::REPLY && r == req {
                return Reply { status: i32::from_le_bytes(body[..4].try_into().unwrap()), body: body[4..].to_vec() };
            }
        }
    }

    fn call(&mut self, req: &Request) -> Reply {
        let id = self.send(req);
        self.reply(id)
    }
}

struct Server {
    engine: Engine<ServerRole>,
    seen: mpsc::Receiver<Seen>,
    clients: Vec<Client>,
}

impl Server {
    /// The server with job "job" registered (its local ranks as clients),
    /// and `nclients` fake clients connected (ranks 0.., said hello).
    fn start(answer: Answer, remote: Option<Vec<(Proc, Vec<Info>)>>, nclients: u32) -> Server {
        let (tx, seen) = mpsc::channel();
        let host = FakeHost { answer, published: Vec::new(), remote, seen: tx };
        let role = ServerRole::new(Box::new(host), Proc::new("server", 0), "testhost".into());
        let pairs: Vec<(UnixStream, UnixStream)> = (0..nclients).map(|_| UnixStream::pair().unwrap()).collect();
        let (ours, theirs): (Vec<UnixStream>, Vec<UnixStream>) = pairs.into_iter().unzip();
        let theirs = theirs
            .into_iter()
            .map(|s| {
                s.set_nonblocking(true).unwrap();
                mio::net::UnixStream::from_std(s)
            })
            .collect();
        let engine = runtime::start(role, None, theirs, "test-server").unwrap();
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let registered = engine.handle.call(move |s, _| {
            let info = vec![
                Info::new("pmix.job.size", Value::u32(4)),
                Info::new("pmix.lpeers", Value::string("0,1")),
                Info::new("pmix.hname", Value::string("testhost")),
            ];
            s.register_nspace("job", 2, info);
            s.register_client(&Proc::new("job", 0), uid, gid, 0);
            s.register_client(&Proc::new("job", 1), uid, gid, 0);
        });
        assert!(registered.is_some());
        let mut clients = Vec::new();
        for (rank, s) in ours.into_iter().enumerate() {
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            let me = Proc::new("job", rank as u32);
            let mut c = Client { s, me: me.clone(), next_req: 100 };
            let hello = Hello { protocol: wire::PROTOCOL, proc: me, token: None }.encode();
            c.s.write_all(&runtime::frame(1, wire::HELLO, &hello)).unwrap();
            assert_eq!(c.reply(1).status, PMIX_SUCCESS, "hello of rank {rank}");
            clients.push(c);
        }
        Server { engine, seen, clients }
    }

    fn next_upcall(&self) -> Seen {
        self.seen.recv_timeout(Duration::from_secs(20)).expect("an upcall")
    }

    fn no_upcall_yet(&self) -> bool {
        self.seen.try_recv().is_err()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.engine.handle.run(|_, net| net.stop());
    }
}

fn fence(procs: Vec<Proc>) -> Request {
    Request::barrier(Collective::Fence, procs, Vec::new())
}

fn wildcard() -> Vec<Proc> {
    vec![Proc::wildcard("job")]
}

#[test]
fn a_fence_of_local_ranks_needs_no_host() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let local = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let a = srv.clients[0].send(&fence(local.clone()));
    let b = srv.clients[1].send(&fence(local));
    assert_eq!(srv.clients[0].reply(a).status, PMIX_SUCCESS);
    assert_eq!(srv.clients[1].reply(b).status, PMIX_SUCCESS);
    assert!(srv.no_upcall_yet(), "a fence of local ranks went to the host");
}

#[test]
fn a_fence_with_remote_ranks_goes_to_the_host_once_after_every_local_rank() {
    for answer in [Answer::Inline, Answer::Later] {
        let mut srv = Server::start(answer, None, 2);
        let a = srv.clients[0].send(&fence(wildcard()));
        // Rank 1 has not arrived: the host hears nothing yet. (A request
        // answered at once, on the same connection, is read after the fence.)
        let hn = srv.clients[0].call(&Request::Get { target: Proc::new("job", 0), key: "pmix.hname".into(), info: Vec::new() });
        assert_eq!(hn.status, PMIX_SUCCESS);
        assert!(srv.no_upcall_yet(), "the host was asked before every local rank arrived");
        let b = srv.clients[1].send(&fence(wildcard()));
        let Seen::Fence(procs, done) = srv.next_upcall() else { panic!("not a fence") };
        assert_eq!(procs, wildcard());
        if answer == Answer::Later {
            // (from this thread, as a host's own progress thread would)
            done(PMIX_SUCCESS, Vec::new());
        }
        assert_eq!(srv.clients[0].reply(a).status, PMIX_SUCCESS);
        assert_eq!(srv.clients[1].reply(b).status, PMIX_SUCCESS);
        assert!(srv.no_upcall_yet(), "more than one fence_nb upcall");
    }
}

#[test]
fn the_hosts_failure_reaches_every_local_rank() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let a = srv.clients[0].send(&fence(wildcard()));
    let b = srv.clients[1].send(&fence(wildcard()));
    let Seen::Fence(_, done) = srv.next_upcall() else { panic!("not a fence") };
    done(PMIX_ERR_TIMEOUT, Vec::new());
    assert_eq!(srv.clients[0].reply(a).status, PMIX_ERR_TIMEOUT);
    assert_eq!(srv.clients[1].reply(b).status, PMIX_ERR_TIMEOUT);
}

#[test]
fn a_rank_lost_before_the_fence_fails_it_for_the_others() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let lost = srv.clients.pop().unwrap();
    drop(lost);
    // The loss is seen once the server has read the close: a request after
    // it (here, a Get it answers at once) orders the two.
    let r = srv.clients[0].call(&Request::Get { target: Proc::new("job", 0), key: "pmix.hname".into(), info: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    let local = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let st = srv.clients[0].call(&fence(local)).status;
    assert_eq!(st, PMIX_ERR_LOST_CONNECTION);
}

/// A Get of `key` of `target`, and the value's u32 in the answer.
fn get_u32(c: &mut Client, target: Proc, key: &str, info: Vec<Info>) -> Result<u32, pmix_status_t> {
    let r = c.call(&Request::Get { target, key: key.into(), info });
    if r.status != PMIX_SUCCESS {
        return Err(r.status);
    }
    let infos = decode_infos(&mut Decoder::new(&r.body)).unwrap();
    Ok(infos.iter().find(|i| i.key() == key).and_then(|i| i.as_u32()).expect("the key in the answer"))
}

fn commit(c: &mut Client, key: &str, v: u32) {
    c.send(&Request::Commit { puts: vec![(PMIX_GLOBAL, Info::new(key, Value::u32(v)))] });
}

#[test]
fn committed_data_is_served_to_a_peer() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    commit(&mut srv.clients[0], "k", 7);
    assert_eq!(get_u32(&mut srv.clients[1], Proc::new("job", 0), "k", Vec::new()), Ok(7));
}

#[test]
fn a_get_before_the_commit_waits_for_it() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let id = srv.clients[1].send(&Request::Get { target: Proc::new("job", 0), key: "late".into(), info: Vec::new() });
    commit(&mut srv.clients[0], "late", 42);
    let r = srv.clients[1].reply(id);
    assert_eq!(r.status, PMIX_SUCCESS);
    let infos = decode_infos(&mut Decoder::new(&r.body)).unwrap();
    assert_eq!(infos.iter().find(|i| i.key() == "late").and_then(|i| i.as_u32()), Some(42));
}

#[test]
fn a_get_of_a_remote_rank_asks_the_host_once() {
    let remote = vec![(Proc::new("job", 2), vec![Info::new("rk", Value::u32(5)), Info::new("other", Value::u32(6))])];
    for answer in [Answer::Inline, Answer::Later] {
        let mut srv = Server::start(answer, Some(remote.clone()), 2);
        let a = srv.clients[0].send(&Request::Get { target: Proc::new("job", 2), key: "rk".into(), info: Vec::new() });
        let Seen::DirectModex(p, done) = srv.next_upcall() else { panic!("not a direct modex") };
        assert_eq!(p, Proc::new("job", 2));
        // A second Get for the same rank while the first is out waits for the same answer.
        let b = srv.clients[1].send(&Request::Get { target: Proc::new("job", 2), key: "other".into(), info: Vec::new() });
        if answer == Answer::Later {
            done(PMIX_SUCCESS, Vec::new());
        }
        for (c, id, key, want) in [(0, a, "rk", 5), (1, b, "other", 6)] {
            let r = srv.clients[c].reply(id);
            assert_eq!(r.status, PMIX_SUCCESS, "{key}");
            let infos = decode_infos(&mut Decoder::new(&r.body)).unwrap();
            assert_eq!(infos.iter().find(|i| i.key() == key).and_then(|i| i.as_u32()), Some(want));
        }
        // Now held here: no upcall for it again.
        assert_eq!(get_u32(&mut srv.clients[0], Proc::new("job", 2), "other", Vec::new()), Ok(6));
        assert!(srv.no_upcall_yet());
    }
}

#[test]
fn a_host_without_direct_modex_gets_not_found() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    assert_eq!(get_u32(&mut srv.clients[0], Proc::new("job", 3), "rk", Vec::new()), Err(PMIX_ERR_NOT_FOUND));
}

#[test]
fn a_namespace_registered_late_is_served() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    // A Get of a rank whose job this server does not know (yet): its data
    // arrives with its registration, as a launcher registers a spawned job.
    let late = Proc::new("later", 0);
    let none = get_u32(&mut srv.clients[0], late.clone(), "pmix.appnum", vec![Info::new("pmix.immediate", Value::boolean(true))]);
    assert!(none.is_err());
    srv.engine.handle.call(|s, _| {
        s.register_nspace("later", 0, vec![Info::new("pmix.job.size", Value::u32(1)), Info::new("pmix.appnum", Value::u32(3))]);
    });
    assert_eq!(get_u32(&mut srv.clients[0], Proc::wildcard("later"), "pmix.appnum", Vec::new()), Ok(3));
}

/// The answers to a group construction by ranks 0 and 1 of `members`.
fn construct(srv: &mut Server, members: &[Proc], directives: Vec<Info>) -> (u32, u32) {
    let group = || Request::Group(msg::Group { op: GroupOp::Construct, name: "grp".into(), procs: members.to_vec(), directives: directives.clone() });
    let a = srv.clients[0].send(&group());
    let b = srv.clients[1].send(&group());
    (a, b)
}

/// Both ranks' results: status and the infos' keys with their size values.
fn group_results(srv: &mut Server, (a, b): (u32, u32)) -> Vec<(pmix_status_t, Vec<Info>)> {
    [(0, a), (1, b)]
        .into_iter()
        .map(|(c, id)| {
            let r = srv.clients[c].reply(id);
            (r.status, decode_infos(&mut Decoder::new(&r.body)).unwrap_or_default())
        })
        .collect()
}

fn context_id(infos: &[Info]) -> Option<u32> {
    infos.iter().find(|i| i.key() == "pmix.grp.ctxid").and_then(|i| i.as_u32())
}

#[test]
fn a_group_of_local_ranks_is_made_here() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let members = [Proc::new("job", 0), Proc::new("job", 1)];
    let ids = construct(&mut srv, &members, vec![Info::new("pmix.grp.actxid", Value::boolean(true))]);
    let results = group_results(&mut srv, ids);
    for (st, infos) in &results {
        assert_eq!(*st, PMIX_SUCCESS);
        assert!(context_id(infos).is_some(), "no context id");
    }
    assert_eq!(context_id(&results[0].1), context_id(&results[1].1));
    assert!(srv.no_upcall_yet(), "a group of local ranks went to the host");
    // The name is taken now.
    let again = construct(&mut srv, &members, Vec::new());
    assert!(group_results(&mut srv, again).iter().all(|(st, _)| *st == PMIX_ERR_EXISTS));
}

#[test]
fn a_group_with_remote_members_takes_the_hosts_context_id() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let members = [Proc::new("job", 0), Proc::new("job", 1), Proc::new("job", 2)];
    let ids = construct(&mut srv, &members, vec![Info::new("pmix.grp.actxid", Value::boolean(true))]);
    let Seen::Group(op, name, done) = srv.next_upcall() else { panic!("not a group upcall") };
    assert_eq!((op, name.as_str()), (PMIX_GROUP_CONSTRUCT, "grp"));
    done(PMIX_SUCCESS, vec![Info::new("pmix.grp.ctxid", Value::size(11))]);
    for (st, infos) in group_results(&mut srv, ids) {
        assert_eq!(st, PMIX_SUCCESS);
        assert_eq!(context_id(&infos), Some(11));
    }
}

/// The next upcall, which must be one the fake host answered at once.
fn answered(srv: &Server) -> (&'static str, Vec<Info>) {
    match srv.next_upcall() {
        Seen::Answered(name, infos) => (name, infos),
        _ => panic!("another upcall"),
    }
}

#[test]
fn a_publication_carries_the_publishers_kernel_identity_and_is_found() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let st = srv.clients[0].call(&Request::Publish { info: vec![Info::new("svc", Value::string("port-1")), Info::new("pmix.euid", Value::u32(4242))] }).status;
    assert_eq!(st, PMIX_SUCCESS);
    let (name, infos) = answered(&srv);
    assert_eq!(name, "publish");
    // The uid the publisher claimed is replaced by the kernel's.
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let euids: Vec<u32> = infos.iter().filter(|i| i.key() == "pmix.euid").filter_map(|i| i.as_u32()).collect();
    assert_eq!(euids, vec![uid]);
    let r = srv.clients[1].call(&Request::Lookup { keys: vec!["svc".into()], info: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    let mut d = Decoder::new(&r.body);
    assert_eq!(d.u32().unwrap(), 1);
    assert_eq!(Proc::decode(&mut d).unwrap(), Proc::new("job", 0));
    let found = decode_infos(&mut d).unwrap();
    assert_eq!(found[0].as_str().as_deref(), Some("port-1"));
    let missing = srv.clients[1].call(&Request::Lookup { keys: vec!["nothing".into()], info: Vec::new() });
    assert_eq!(missing.status, PMIX_ERR_NOT_FOUND);
}

#[test]
fn a_spawn_goes_to_the_host_and_answers_its_namespace() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    let apps = crate::msg::tests::apps();
    let r = srv.clients[0].call(&Request::Spawn { job_info: vec![Info::new("my.job", Value::u32(1))], apps });
    assert_eq!(r.status, PMIX_SUCCESS);
    assert_eq!(crate::owned::decode_str(&mut Decoder::new(&r.body)).unwrap(), "spawned.1");
    let (name, infos) = answered(&srv);
    assert_eq!(name, "spawn");
    assert!(infos.iter().any(|i| i.key() == "my.job"));
    assert_eq!(infos.iter().find(|i| i.key() == "apps").and_then(|i| i.as_u32()), Some(1));
}

#[test]
fn job_control_acting_on_processes_goes_to_the_host() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    let r = srv.clients[0].call(&Request::JobControl { targets: vec![Proc::new("job", 1)], directives: vec![Info::new("pmix.jctrl.sig", Value::int(10))] });
    assert_eq!(r.status, PMIX_SUCCESS);
    let (name, infos) = answered(&srv);
    assert_eq!(name, "job_control");
    assert!(infos.iter().any(|i| i.key() == "pmix.jctrl.sig"));
}

#[test]
fn a_cleanup_registered_by_a_rank_runs_when_it_is_lost_without_the_host() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let dir = std::env::temp_dir().join(format!("rpmix-unit-cleanup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scratch");
    std::fs::write(&file, b"x").unwrap();
    // (for itself: a registration for its namespace waits for every rank)
    let reg = Request::JobControl { targets: vec![Proc::new("job", 1)], directives: vec![Info::new("pmix.reg.cleanup", Value::string(&file.to_string_lossy()))] };
    assert_eq!(srv.clients[1].call(&reg).status, PMIX_SUCCESS);
    assert!(srv.no_upcall_yet(), "a cleanup registration went to the host");
    assert!(file.exists());
    drop(srv.clients.pop());
    // The rank's loss is read on the server's thread; its cleanup runs there.
    let gone = (0..200).any(|_| {
        if file.exists() {
            std::thread::sleep(Duration::from_millis(25));
            false
        } else {
            true
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(gone, "the registered file outlived its rank");
}

#[test]
fn an_abort_reaches_the_host_with_its_status_and_message() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    let r = srv.clients[0].call(&Request::Abort { status: 7, message: "bye".into(), procs: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    let (name, infos) = answered(&srv);
    assert_eq!(name, "abort");
    assert_eq!(infos[0].as_u32().map(|v| v as i32), Some(7));
    assert_eq!(infos[1].as_str().as_deref(), Some("bye"));
}

#[test]
fn pulled_output_reaches_the_puller_tagged_with_its_handle() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    let pull = Request::IofPull(msg::IofPull { procs: vec![Proc::new("job", 1)], channels: PMIX_FWD_STDOUT_CHANNEL, handle: 5, directives: Vec::new() });
    assert_eq!(srv.clients[0].call(&pull).status, PMIX_SUCCESS);
    srv.engine.handle.call(|s, net| s.iof_deliver(net, &Proc::new("job", 1), PMIX_FWD_STDOUT_CHANNEL, b"hello\n", false));
    // Another rank's output and another channel are not this pull's.
    srv.engine.handle.call(|s, net| s.iof_deliver(net, &Proc::new("job", 0), PMIX_FWD_STDOUT_CHANNEL, b"other\n", false));
    srv.engine.handle.call(|s, net| s.iof_deliver(net, &Proc::new("job", 1), PMIX_FWD_STDERR_CHANNEL, b"err\n", false));
    srv.engine.handle.call(|s, net| s.iof_deliver(net, &Proc::new("job", 1), PMIX_FWD_STDOUT_CHANNEL, b"", true));
    let mut got = Vec::new();
    loop {
        let (_, tag, body) = srv.clients[0].frame();
        if tag != wire::IOF {
            continue;
        }
        let mut d = Decoder::new(&body);
        let handle = d.u32().unwrap();
        let source = Proc::decode(&mut d).unwrap();
        let channel = d.u32().unwrap();
        let data = d.blob().unwrap().to_vec();
        let complete = d.u32().unwrap() != 0;
        assert_eq!((handle, source, channel), (5, Proc::new("job", 1), PMIX_FWD_STDOUT_CHANNEL as u32));
        got.extend(data);
        if complete {
            break;
        }
    }
    assert_eq!(got, b"hello\n");
}

#[test]
fn a_silent_rank_set_a_heartbeat_monitor_is_alerted_and_a_cancel_ends_it() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    let monitor = |id: &str| {
        Request::Monitor(Box::new(msg::Monitor {
            monitor: Info::new("pmix.monitor.mbeat", Value::boolean(true)),
            error: PMIX_MONITOR_HEARTBEAT_ALERT,
            directives: vec![Info::new("pmix.monitor.btime", Value::u32(1)), Info::new("pmix.monitor.id", Value::string(id))],
        }))
    };
    // The fake host does not monitor: the server does.
    assert_eq!(srv.clients[0].call(&monitor("hb")).status, PMIX_SUCCESS);
    assert_eq!(srv.clients[0].call(&monitor("hb")).status, PMIX_ERR_EXISTS, "the same id twice");
    // No heartbeat: the alert comes after a period, naming the monitor.
    let (status, id) = loop {
        let (_, tag, body) = srv.clients[0].frame();
        if tag != wire::EVENT {
            continue;
        }
        let mut d = Decoder::new(&body);
        let status = d.u32().unwrap() as pmix_status_t;
        let _source = Proc::decode(&mut d).unwrap();
        let infos = decode_infos(&mut d).unwrap();
        break (status, infos.iter().find(|i| i.key() == "pmix.monitor.id").and_then(|i| i.as_str()));
    };
    assert_eq!((status, id.as_deref()), (PMIX_MONITOR_HEARTBEAT_ALERT, Some("hb")));
    let cancel = |id: &str| Request::Monitor(Box::new(msg::Monitor { monitor: Info::new("pmix.monitor.cancel", Value::string(id)), error: PMIX_SUCCESS, directives: Vec::new() }));
    assert_eq!(srv.clients[0].call(&cancel("hb")).status, PMIX_SUCCESS);
    assert_eq!(srv.clients[0].call(&cancel("hb")).status, PMIX_ERR_NOT_FOUND);
}

/// The next event `c` receives: its code, source and infos.
fn next_event(c: &mut Client) -> (pmix_status_t, Proc, Vec<Info>) {
    loop {
        let (_, tag, body) = c.frame();
        if tag == wire::EVENT {
            let mut d = Decoder::new(&body);
            let code = d.u32().unwrap() as pmix_status_t;
            let source = Proc::decode(&mut d).unwrap();
            return (code, source, decode_infos(&mut d).unwrap());
        }
    }
}

#[test]
fn an_invitation_accepted_makes_the_group_and_the_leader_hears_each_answer_first() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let (leader, invitee) = (Proc::new("job", 0), Proc::new("job", 1));
    let group = |op, procs: Vec<Proc>| Request::Group(msg::Group { op, name: "inv".into(), procs, directives: Vec::new() });
    let invite = srv.clients[0].send(&group(GroupOp::Invite, vec![invitee.clone()]));
    let (code, source, _) = next_event(&mut srv.clients[1]);
    assert_eq!((code, source), (PMIX_GROUP_INVITED, leader.clone()));
    let join = srv.clients[1].send(&group(GroupOp::Join { accept: true }, vec![leader.clone()]));
    // The leader hears the acceptance before its invitation completes.
    let (code, source, _) = next_event(&mut srv.clients[0]);
    assert_eq!((code, source), (PMIX_GROUP_INVITE_ACCEPTED, invitee.clone()));
    for (c, id) in [(0, invite), (1, join)] {
        let r = srv.clients[c].reply(id);
        assert_eq!(r.status, PMIX_SUCCESS);
        let infos = decode_infos(&mut Decoder::new(&r.body)).unwrap();
        let members = infos.iter().find(|i| i.key() == "pmix.grp.mbrs").map(|i| crate::owned::procs_of_value(i.value_ref()));
        assert_eq!(members, Some(vec![leader.clone(), invitee.clone()]), "rank {c}");
    }
    // Both hear that it is complete.
    for c in 0..2 {
        let (code, _, _) = next_event(&mut srv.clients[c]);
        assert_eq!(code, PMIX_GROUP_CONSTRUCT_COMPLETE, "rank {c}");
    }
    // A declined invitation leaves the leader alone in its group.
    let group2 = |op, procs: Vec<Proc>| Request::Group(msg::Group { op, name: "inv2".into(), procs, directives: Vec::new() });
    let invite = srv.clients[0].send(&group2(GroupOp::Invite, vec![invitee.clone()]));
    let (code, _, _) = next_event(&mut srv.clients[1]);
    assert_eq!(code, PMIX_GROUP_INVITED);
    assert_eq!(srv.clients[1].call(&group2(GroupOp::Join { accept: false }, Vec::new())).status, PMIX_SUCCESS);
    assert_eq!(next_event(&mut srv.clients[0]).0, PMIX_GROUP_INVITE_DECLINED);
    let r = srv.clients[0].reply(invite);
    assert_eq!(r.status, PMIX_SUCCESS);
}

/// The hello's reply to rank 0 of a namespace of `local` ranks, all on this
/// node: (the reply frame's length, the shared snapshot it passed, mapped).
fn hello_of_rank0(local: u32) -> (usize, Option<msg::snapshot::Mapped>) {
    let (tx, _seen) = mpsc::channel();
    let host = FakeHost { answer: Answer::Inline, published: Vec::new(), remote: None, seen: tx };
    let role = ServerRole::new(Box::new(host), Proc::new("server", 0), "testhost".into());
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    let engine = runtime::start(role, None, vec![mio::net::UnixStream::from_std(theirs)], "test-server").unwrap();
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let peers = (0..local).map(|r| r.to_string()).collect::<Vec<_>>().join(",");
    engine.handle.call(move |s, _| {
        let info = vec![Info::new("pmix.job.size", Value::u32(local)), Info::new("pmix.lpeers", Value::string(&peers)), Info::new("pmix.hname", Value::string("testhost"))];
        s.register_nspace("wide", local as i32, info);
        for r in 0..local {
            s.register_client(&Proc::new("wide", r), uid, gid, 0);
        }
    });
    ours.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let hello = Hello { protocol: wire::PROTOCOL, proc: Proc::new("wide", 0), token: None }.encode();
    ours.write_all(&runtime::frame(1, wire::HELLO, &hello)).unwrap();
    let mut hdr = [0u8; runtime::HEADER];
    let fd = runtime::lane::recv_exact_with_fd(std::os::fd::AsFd::as_fd(&ours), &mut hdr).unwrap();
    let len = u32::from_le_bytes(hdr[..4].try_into().unwrap()) as usize;
    let mut body = vec![0u8; len - 6];
    ours.read_exact(&mut body).unwrap();
    assert_eq!(i32::from_le_bytes(body[..4].try_into().unwrap()), PMIX_SUCCESS);
    engine.handle.run(|_, net| net.stop());
    (len, fd.map(|fd| msg::snapshot::Mapped::map(std::os::fd::AsFd::as_fd(&fd)).unwrap()))
}

/// A rank's hello costs the same whatever the number of its local peers:
/// the reply carries its own record; every peer's is in the snapshot the
/// namespace's clients share, made once.
#[test]
fn the_hello_does_not_grow_with_local_peers() {
    let (small, snap_small) = hello_of_rank0(4);
    let (large, snap_large) = hello_of_rank0(256);
    assert_eq!(small, large, "the hello's reply grew with the local peers");
    let (snap_small, snap_large) = (snap_small.expect("a shared snapshot"), snap_large.expect("a shared snapshot"));
    assert!(snap_large.bytes().len() > snap_small.bytes().len());
    // Every local rank's record, and the job level, are in the snapshot.
    for r in [0, 1, 255, PMIX_RANK_WILDCARD] {
        let rec = snap_large.record(r).unwrap_or_else(|| panic!("no record of rank {r}"));
        let infos = decode_infos(&mut Decoder::new(rec)).unwrap();
        let key = if r == PMIX_RANK_WILDCARD { "pmix.job.size" } else { "pmix.lrank" };
        assert!(infos.iter().any(|i| i.key() == key), "rank {r}'s record lacks {key}");
    }
}

/// A query of `keys` with qualifiers `quals`: the reply's status and infos.
fn query(c: &mut Client, keys: &[&str], quals: &[Info]) -> (pmix_status_t, Vec<Info>) {
    let argv = crate::cmem::argv_from(keys);
    // SAFETY: all-zero is a valid query; it borrows `argv` and `quals`
    // (Info is a transparent pmix_info_t) until the copy below.
    let mut q: pmix_query_t = unsafe { core::mem::zeroed() };
    q.keys = argv;
    q.qualifiers = quals.as_ptr() as *mut pmix_info_t;
    q.nqual = quals.len();
    // SAFETY: `q` is a valid query; the copy is deep.
    let queries = unsafe { crate::data::carray::CArray::copy(crate::data::kind::Kind::Query, &q as *const pmix_query_t as *const u8, 1) }.unwrap();
    // SAFETY: made by argv_from, no longer referenced.
    unsafe { crate::cmem::argv_free(argv) };
    let r = c.call(&Request::Query { queries });
    (r.status, decode_infos(&mut Decoder::new(&r.body)).unwrap_or_default())
}

fn string_of(infos: &[Info], key: &str) -> Option<String> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_str())
}

#[test]
fn a_defined_process_set_is_announced_and_answered() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let members = vec![Proc::new("job", 1), Proc::new("job", 3)];
    let m2 = members.clone();
    let st = srv.engine.handle.call(move |s, net| s.define_pset(net, "odd", m2));
    assert_eq!(st, Some(PMIX_SUCCESS));
    // Every local client hears it, with what OpenPMIx's server sends.
    for c in srv.clients.iter_mut() {
        let (code, src, infos) = next_event(c);
        assert_eq!(code, PMIX_PROCESS_SET_DEFINE);
        assert_eq!(src, Proc::new("server", 0));
        assert_eq!(string_of(&infos, "pmix.pset.nm").as_deref(), Some("odd"));
        let mems = infos.iter().find(|i| i.key() == "pmix.pset.mems").map(|i| crate::owned::procs_of_value(i.value_ref()));
        assert_eq!(mems, Some(members.clone()));
        assert!(infos.iter().any(|i| i.key() == "pmix.evnondef" && i.truthy()), "not marked non-default");
    }
    let m3 = vec![Proc::wildcard("job")];
    srv.engine.handle.call(move |s, net| s.define_pset(net, "all", m3));
    // The queries (this host has no query upcall: the server answers).
    // The number alone comes after the names (for Open MPI 5.0.7).
    let (st, infos) = query(&mut srv.clients[0], &["pmix.qry.psetnum"], &[]);
    assert_eq!(st, PMIX_SUCCESS);
    let keys: Vec<&str> = infos.iter().map(|i| i.key()).collect();
    assert_eq!(keys, ["pmix.qry.psets", "pmix.qry.psetnum"]);
    let (st, infos) = query(&mut srv.clients[0], &["pmix.qry.psetnum", "pmix.qry.psets"], &[]);
    assert_eq!(st, PMIX_SUCCESS);
    let num = infos.iter().find(|i| i.key() == "pmix.qry.psetnum").map(|i| (i.value_ref().r#type, i.as_u32()));
    assert_eq!(num, Some((PMIX_SIZE, Some(2))));
    assert_eq!(string_of(&infos, "pmix.qry.psets").as_deref(), Some("odd,all"));
    let (st, infos) = query(&mut srv.clients[0], &["pmix.qry.pmems"], &[Info::new("pmix.pset.nm", Value::string("odd"))]);
    assert_eq!(st, PMIX_SUCCESS);
    let mems = infos.iter().find(|i| i.key() == "pmix.qry.pmems").map(|i| crate::owned::procs_of_value(i.value_ref()));
    assert_eq!(mems, Some(members.clone()));
    // A Get of PMIX_PSET_NAMES: the sets the proc is in.
    let names = |c: &mut Client, rank| {
        let r = c.call(&Request::Get { target: Proc::new("job", rank), key: "pmix.pset.nms".into(), info: Vec::new() });
        (r.status, string_of(&decode_infos(&mut Decoder::new(&r.body)).unwrap_or_default(), "pmix.pset.nms"))
    };
    assert_eq!(names(&mut srv.clients[1], 1), (PMIX_SUCCESS, Some("odd,all".into())));
    assert_eq!(names(&mut srv.clients[1], 0), (PMIX_SUCCESS, Some("all".into())));
    assert_eq!(names(&mut srv.clients[1], 2).0, PMIX_SUCCESS);
    assert_eq!(names(&mut srv.clients[0], 9).1.as_deref(), Some("all"));
    let none = srv.clients[0].call(&Request::Get { target: Proc::new("other", 0), key: "pmix.pset.nms".into(), info: Vec::new() });
    assert_eq!(none.status, PMIX_ERR_NOT_FOUND);
}

#[test]
fn a_deleted_process_set_is_announced_and_gone() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    srv.engine.handle.call(|s, net| s.define_pset(net, "a", vec![Proc::new("job", 0)]));
    assert_eq!(next_event(&mut srv.clients[0]).0, PMIX_PROCESS_SET_DEFINE);
    assert_eq!(srv.engine.handle.call(|s, net| s.delete_pset(net, "a")), Some(PMIX_SUCCESS));
    let (code, _, infos) = next_event(&mut srv.clients[0]);
    assert_eq!(code, PMIX_PROCESS_SET_DELETE);
    assert_eq!(string_of(&infos, "pmix.pset.nm").as_deref(), Some("a"));
    assert!(infos.iter().all(|i| i.key() != "pmix.pset.mems"));
    // Gone: deleting it again, asking for its members.
    assert_eq!(srv.engine.handle.call(|s, net| s.delete_pset(net, "a")), Some(PMIX_ERR_NOT_FOUND));
    let (st, infos) = query(&mut srv.clients[0], &["pmix.qry.psetnum", "pmix.qry.psets"], &[]);
    assert_eq!(st, PMIX_SUCCESS);
    assert_eq!(infos.iter().find(|i| i.key() == "pmix.qry.psetnum").and_then(|i| i.as_u32()), Some(0));
    assert_eq!(string_of(&infos, "pmix.qry.psets").as_deref(), Some(""));
    let (st, _) = query(&mut srv.clients[0], &["pmix.qry.pmems"], &[Info::new("pmix.pset.nm", Value::string("a"))]);
    assert_eq!(st, PMIX_ERR_NOT_FOUND);
    // The membership without the set's name is a bad request.
    let (st, _) = query(&mut srv.clients[0], &["pmix.qry.pmems"], &[]);
    assert_eq!(st, PMIX_ERR_BAD_PARAM);
    // An empty name is refused.
    assert_eq!(srv.engine.handle.call(|s, net| s.define_pset(net, "", Vec::new())), Some(PMIX_ERR_BAD_PARAM));
}

#[test]
fn session_control_goes_to_the_host_and_back() {
    let mut srv = Server::start(Answer::Later, None, 1);
    let dirs = vec![Info::new("pmix.ssn.pause", Value::boolean(true))];
    let id = srv.clients[0].send(&Request::SessionControl { session: 5, directives: dirs });
    let Seen::Session(who, session, directives, done) = srv.next_upcall() else { panic!("not a session upcall") };
    assert_eq!((who, session), (Proc::new("job", 0), 5));
    assert_eq!(directives.iter().map(|i| i.key()).collect::<Vec<_>>(), ["pmix.ssn.pause"]);
    done(PMIX_SUCCESS, vec![Info::new("why", Value::string("paused"))]);
    let r = srv.clients[0].reply(id);
    assert_eq!(r.status, PMIX_SUCCESS);
    assert_eq!(string_of(&decode_infos(&mut Decoder::new(&r.body)).unwrap(), "why").as_deref(), Some("paused"));
    // A host that refuses at once: its answer, at once.
    let r = srv.clients[0].call(&Request::SessionControl { session: 5, directives: Vec::new() });
    assert_eq!(r.status, PMIX_ERR_NOT_SUPPORTED);
}

/// The rows of an `rpmix.qry.top` answer: (collectives, ranks), each its infos.
fn top_of(infos: &[Info]) -> (Vec<Vec<Info>>, Vec<Vec<Info>>) {
    let top = infos.iter().find(|i| i.key() == super::top::QUERY_KEY).expect("the top answer");
    let all = crate::owned::infos_of_array(top);
    let of = |k: &str| all.iter().filter(|i| i.key() == k).map(crate::owned::infos_of_array).collect::<Vec<_>>();
    (of("rpmix.top.coll"), of("rpmix.top.rank"))
}

fn u32_of(infos: &[Info], key: &str) -> Option<u32> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_u32())
}

#[test]
fn a_tool_sees_who_a_fence_waits_for_and_what_each_rank_is_blocked_in() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let local = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let f0 = srv.clients[0].send(&fence(local.clone()));
    // Rank 1 waits for a key rank 0 has not committed, with no timeout.
    let g1 = srv.clients[1].send(&Request::Get { target: Proc::new("job", 0), key: "late".into(), info: vec![Info::new("pmix.timeout", Value::u32(0))] });
    let (st, infos) = query(&mut srv.clients[1], &[super::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    assert_eq!(st, PMIX_SUCCESS);
    let (colls, ranks) = top_of(&infos);
    assert_eq!(colls.len(), 1);
    assert_eq!(string_of(&colls[0], "rpmix.top.kind").as_deref(), Some("fence"));
    assert_eq!(string_of(&colls[0], "rpmix.top.id").as_deref(), Some("job:0-1"));
    assert_eq!(u32_of(&colls[0], "rpmix.top.nparts"), Some(2));
    assert_eq!(u32_of(&colls[0], "rpmix.top.nin"), Some(1));
    assert_eq!(string_of(&colls[0], "rpmix.top.missing").as_deref(), Some("1"));
    assert!(u32_of(&colls[0], "rpmix.top.wait").is_some());
    assert_eq!(ranks.len(), 2);
    assert_eq!(u32_of(&ranks[0], "rpmix.top.r"), Some(0));
    assert_eq!(string_of(&ranks[0], "rpmix.top.call").as_deref(), Some("fence job:0-1"));
    assert!(u32_of(&ranks[0], "rpmix.top.callms").is_some());
    let call1 = string_of(&ranks[1], "rpmix.top.call").unwrap_or_default();
    assert!(call1.starts_with("get late of ") && call1.contains("job"), "{call1}");
    // Both connected through socket pairs: the kernel's pid is this
    // process's, and /proc answers for it.
    assert_eq!(u32_of(&ranks[0], "rpmix.top.pid"), Some(std::process::id()));
    assert!(u32_of(&ranks[0], "rpmix.top.rsskb").is_some_and(|k| k > 0));
    // Rank 0 commits: the Get is answered; rank 1 arrives: the fence ends.
    commit(&mut srv.clients[0], "late", 1);
    assert_eq!(srv.clients[1].reply(g1).status, PMIX_SUCCESS);
    let f1 = srv.clients[1].send(&fence(local));
    assert_eq!(srv.clients[0].reply(f0).status, PMIX_SUCCESS);
    assert_eq!(srv.clients[1].reply(f1).status, PMIX_SUCCESS);
    let (_, infos) = query(&mut srv.clients[1], &[super::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    let (colls, ranks) = top_of(&infos);
    assert!(colls.is_empty());
    assert!(ranks.iter().all(|r| string_of(r, "rpmix.top.call").is_none()));
    // A namespace this server does not hold is the host's to answer.
    let (st, infos) = query(&mut srv.clients[1], &[super::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("nowhere"))]);
    assert_ne!(st, PMIX_SUCCESS);
    assert!(infos.iter().all(|i| i.key() != super::top::QUERY_KEY));
}

#[test]
fn a_tool_sees_a_group_construct_wait_for_its_missing_member() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let members = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let a = srv.clients[0].send(&Request::Group(msg::Group { op: GroupOp::Construct, name: "grp".into(), procs: members.clone(), directives: Vec::new() }));
    let (st, infos) = query(&mut srv.clients[1], &[super::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    assert_eq!(st, PMIX_SUCCESS);
    let (colls, ranks) = top_of(&infos);
    assert_eq!(colls.len(), 1);
    assert_eq!(string_of(&colls[0], "rpmix.top.kind").as_deref(), Some("group-construct"));
    assert_eq!(string_of(&colls[0], "rpmix.top.id").as_deref(), Some("grp"));
    assert_eq!(string_of(&colls[0], "rpmix.top.missing").as_deref(), Some("1"));
    assert_eq!(string_of(&ranks[0], "rpmix.top.call").as_deref(), Some("group-construct grp"));
    assert_eq!(string_of(&ranks[1], "rpmix.top.call"), None);
    let b = srv.clients[1].send(&Request::Group(msg::Group { op: GroupOp::Construct, name: "grp".into(), procs: members, directives: Vec::new() }));
    assert_eq!(srv.clients[0].reply(a).status, PMIX_SUCCESS);
    assert_eq!(srv.clients[1].reply(b).status, PMIX_SUCCESS);
    let (_, infos) = query(&mut srv.clients[1], &[super::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    assert!(top_of(&infos).0.is_empty());
}

// ---- the modex ----

impl Server {
    /// A new fake client connected as `me` (said hello): the registration
    /// may come before, as a launcher's for a spawned job.
    fn connect(&self, me: Proc) -> Client {
        let (ours, theirs) = UnixStream::pair().unwrap();
        theirs.set_nonblocking(true).unwrap();
        let added = self.engine.handle.call(move |_, net| net.add_stream(mio::net::UnixStream::from_std(theirs)).is_ok());
        assert_eq!(added, Some(true));
        ours.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut c = Client { s: ours, me: me.clone(), next_req: 100 };
        let hello = Hello { protocol: wire::PROTOCOL, proc: me, token: None }.encode();
        c.s.write_all(&runtime::frame(1, wire::HELLO, &hello)).unwrap();
        assert_eq!(c.reply(1).status, PMIX_SUCCESS, "hello of {}", c.me);
        c
    }

    /// Register namespace `name` of `n` local ranks now.
    fn register_late(&self, name: &'static str, n: u32) {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let peers = (0..n).map(|r| r.to_string()).collect::<Vec<_>>().join(",");
        self.engine.handle.call(move |s, _| {
            s.register_nspace(name, n as i32, vec![Info::new("pmix.job.size", Value::u32(n)), Info::new("pmix.lpeers", Value::string(&peers))]);
            for r in 0..n {
                s.register_client(&Proc::new(name, r), uid, gid, 0);
            }
        });
    }

    /// PMIx_server_dmodex_request for `proc`: its answers arrive on the receiver.
    fn dmodex_request(&self, proc: Proc) -> mpsc::Receiver<(pmix_status_t, Vec<u8>)> {
        let (tx, rx) = mpsc::channel();
        self.engine.handle.call(move |s, net| {
            s.dmodex_request(net, proc, Box::new(move |st, blob| {
                let _ = tx.send((st, blob));
            }))
        });
        rx
    }
}

fn timeout(secs: u32) -> Vec<Info> {
    vec![Info::new("pmix.timeout", Value::u32(secs))]
}

/// The value of `key` in a dmodex blob's record of `proc`.
fn blob_u32(blob: &[u8], proc: &Proc, key: &str) -> Option<u32> {
    let records = super::modex::parse_blob(blob).unwrap();
    records.iter().filter(|(p, _)| p == proc).flat_map(|(_, i)| i.iter()).find(|i| i.key() == key).and_then(|i| i.as_u32())
}

#[test]
fn a_parked_get_times_out() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    assert_eq!(get_u32(&mut srv.clients[1], Proc::new("job", 0), "never", timeout(1)), Err(PMIX_ERR_TIMEOUT));
    // A commit after the timeout answers nobody twice: a new Get finds it.
    commit(&mut srv.clients[0], "never", 1);
    assert_eq!(get_u32(&mut srv.clients[1], Proc::new("job", 0), "never", Vec::new()), Ok(1));
}

#[test]
fn a_parked_get_ends_at_its_targets_loss() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    // (PMIX_TIMEOUT 0: no timer, it waits for the commit or the end)
    let parked = srv.clients[1].send(&Request::Get { target: Proc::new("job", 0), key: "never".into(), info: timeout(0) });
    // A request after it on the same connection: once answered, the Get is parked.
    assert_eq!(get_u32(&mut srv.clients[1], Proc::new("job", 1), "pmix.job.size", Vec::new()), Ok(4));
    drop(srv.clients.remove(0));
    assert_eq!(srv.clients[0].reply(parked).status, PMIX_ERR_NOT_FOUND);
}

#[test]
fn a_get_of_a_client_registered_late_waits_for_its_connection_and_commit() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    srv.register_late("late", 1);
    // Not connected yet: waited for (no timeout) until it commits.
    let parked = srv.clients[0].send(&Request::Get { target: Proc::new("late", 0), key: "k".into(), info: Vec::new() });
    assert_eq!(get_u32(&mut srv.clients[0], Proc::new("job", 0), "pmix.job.size", Vec::new()), Ok(4));
    let mut late = srv.connect(Proc::new("late", 0));
    commit(&mut late, "k", 9);
    let r = srv.clients[0].reply(parked);
    assert_eq!(r.status, PMIX_SUCCESS);
    let infos = decode_infos(&mut Decoder::new(&r.body)).unwrap();
    assert_eq!(infos.iter().find(|i| i.key() == "k").and_then(|i| i.as_u32()), Some(9));
}

#[test]
fn a_dmodex_request_waits_for_the_commit_or_the_end() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let (r0, r1) = (Proc::new("job", 0), Proc::new("job", 1));
    let rx = srv.dmodex_request(r0.clone());
    assert!(rx.try_recv().is_err(), "answered before rank 0 committed");
    commit(&mut srv.clients[0], "k", 3);
    let (st, blob) = rx.recv_timeout(Duration::from_secs(20)).expect("the answer at the commit");
    assert_eq!(st, PMIX_SUCCESS);
    assert_eq!(blob_u32(&blob, &r0, "k"), Some(3));
    // Committed already: answered within the call.
    let rx = srv.dmodex_request(r0.clone());
    assert_eq!(rx.try_recv().map(|(st, b)| (st, blob_u32(&b, &r0, "k"))), Ok((PMIX_SUCCESS, Some(3))));
    // A rank lost before its commit: answered at its loss, with nothing.
    let rx = srv.dmodex_request(r1.clone());
    assert!(rx.try_recv().is_err());
    drop(srv.clients.pop());
    let (st, blob) = rx.recv_timeout(Duration::from_secs(20)).expect("the answer at the loss");
    assert_eq!(st, PMIX_SUCCESS);
    assert_eq!(blob_u32(&blob, &r1, "k"), None);
}

#[test]
fn a_direct_modex_answer_after_the_gets_timeout_is_kept() {
    let remote = vec![(Proc::new("job", 2), vec![Info::new("rk", Value::u32(5))])];
    let mut srv = Server::start(Answer::Later, Some(remote), 1);
    assert_eq!(get_u32(&mut srv.clients[0], Proc::new("job", 2), "rk", timeout(1)), Err(PMIX_ERR_TIMEOUT));
    let Seen::DirectModex(p, done) = srv.next_upcall() else { panic!("not a direct modex") };
    assert_eq!(p, Proc::new("job", 2));
    // The host answers late: nobody waits, the data is kept.
    done(PMIX_SUCCESS, Vec::new());
    let kept = (0..200).any(|_| {
        let r = get_u32(&mut srv.clients[0], Proc::new("job", 2), "rk", vec![Info::new("pmix.immediate", Value::boolean(true))]);
        r == Ok(5) || {
            std::thread::sleep(Duration::from_millis(25));
            false
        }
    });
    assert!(kept, "the late answer was not kept");
    assert!(srv.no_upcall_yet(), "asked the host again");
}

#[test]
fn a_failed_direct_modex_fails_every_get_waiting_for_it() {
    let mut srv = Server::start(Answer::Later, Some(Vec::new()), 2);
    let a = srv.clients[0].send(&Request::Get { target: Proc::new("job", 3), key: "x".into(), info: Vec::new() });
    let Seen::DirectModex(_, done) = srv.next_upcall() else { panic!("not a direct modex") };
    let b = srv.clients[1].send(&Request::Get { target: Proc::new("job", 3), key: "y".into(), info: Vec::new() });
    // (once this is answered, the second Get waits with the first)
    assert_eq!(get_u32(&mut srv.clients[1], Proc::new("job", 1), "pmix.job.size", Vec::new()), Ok(4));
    done(PMIX_ERR_UNREACH, Vec::new());
    assert_eq!(srv.clients[0].reply(a).status, PMIX_ERR_UNREACH);
    assert_eq!(srv.clients[1].reply(b).status, PMIX_ERR_UNREACH);
    assert!(srv.no_upcall_yet(), "the second Get asked the host again");
}

// ---- lost connections ----

/// What the host's own handler heard: the code, the source, the other procs named.
static HEARD: parking_lot::Mutex<Vec<(pmix_status_t, Proc, Vec<Proc>)>> = parking_lot::Mutex::new(Vec::new());

unsafe extern "C" fn record_event(
    _id: usize,
    status: pmix_status_t,
    source: *const pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    _results: *mut pmix_info_t,
    _nresults: usize,
    cbfunc: pmix_event_notification_cbfunc_fn_t,
    cbdata: *mut core::ffi::c_void,
) {
    // SAFETY: the event's source and infos, valid during the call.
    let (source, infos) = unsafe { (Proc::from_c(&*source), Info::copy_array(info, ninfo).unwrap_or_default()) };
    let more = infos.iter().filter(|i| i.key() == "pmix.procid").flat_map(|i| crate::owned::procs_of_value(i.value_ref())).collect();
    HEARD.lock().push((status, source, more));
    if let Some(f) = cbfunc {
        // SAFETY: the chain's own continuation, called once.
        unsafe { f(PMIX_EVENT_ACTION_COMPLETE, std::ptr::null_mut(), 0, None, std::ptr::null_mut(), cbdata) };
    }
}

#[test]
fn ranks_lost_within_the_window_reach_the_hosts_handlers_as_one_event_after_it() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    srv.engine.handle.call(|s, _| s.events.register(vec![PMIX_ERR_LOST_CONNECTION], &[], Some(record_event)));
    srv.clients.clear();
    // Held for the window (1 s), not delivered at the loss.
    std::thread::sleep(Duration::from_millis(300));
    assert!(HEARD.lock().is_empty(), "heard before the window ended");
    let heard = (0..200).find_map(|_| {
        std::thread::sleep(Duration::from_millis(25));
        HEARD.lock().first().cloned()
    });
    let (code, source, more) = heard.expect("the host's handler heard nothing");
    assert_eq!(code, PMIX_ERR_LOST_CONNECTION);
    let mut all: Vec<Proc> = more.into_iter().chain([source]).collect();
    all.sort();
    assert_eq!(all, vec![Proc::new("job", 0), Proc::new("job", 1)]);
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(HEARD.lock().len(), 1, "one event for both losses");
}

// ---- checkpoints ----

/// Job "`name`" of two ranks registered and connected (checkpoint methods
/// are kept per process for the whole library: each test has its own job).
fn ckpt_job(srv: &Server, name: &'static str) -> (Client, Client) {
    srv.register_late(name, 2);
    (srv.connect(Proc::new(name, 0)), srv.connect(Proc::new(name, 1)))
}

/// `c` registers the checkpoint event as its method.
fn register_event_method(c: &mut Client) {
    let method = Info::new("pmix.jctrl.ckmethod", Value::infos(&[Info::new("pmix.jctrl.ckptev", Value::boolean(true))]));
    let me = c.me.clone();
    assert_eq!(c.call(&Request::JobControl { targets: vec![me], directives: vec![method] }).status, PMIX_SUCCESS);
}

fn checkpoint(c: &mut Client, target: &Proc, more: Vec<Info>) -> u32 {
    let mut directives = vec![Info::new("pmix.jctrl.ckpt", Value::string("c1"))];
    directives.extend(more);
    c.send(&Request::JobControl { targets: vec![target.clone()], directives })
}

#[test]
fn a_checkpoint_completes_when_its_target_reports_it() {
    let srv = Server::start(Answer::Inline, None, 0);
    let (mut a, mut b) = ckpt_job(&srv, "ckpt1");
    register_event_method(&mut b);
    let req = checkpoint(&mut a, &b.me, Vec::new());
    let (code, source, infos) = next_event(&mut b);
    assert_eq!((code, source), (PMIX_JCTRL_CHECKPOINT, a.me.clone()));
    assert_eq!(string_of(&infos, "pmix.jctrl.ckpt").as_deref(), Some("c1"));
    assert!(srv.no_upcall_yet(), "a checkpoint by event went to the host");
    let done = Request::Notify { status: PMIX_JCTRL_CHECKPOINT_COMPLETE, source: b.me.clone(), range: PMIX_RANGE_LOCAL, info: vec![Info::new("pmix.jctrl.ckpt", Value::string("c1"))] };
    assert_eq!(b.call(&done).status, PMIX_SUCCESS);
    assert_eq!(a.reply(req).status, PMIX_SUCCESS);
}

#[test]
fn a_checkpoint_fails_when_its_target_ends_first_times_out_or_is_cancelled() {
    let srv = Server::start(Answer::Inline, None, 0);
    let (mut a, mut b) = ckpt_job(&srv, "ckpt2");
    register_event_method(&mut b);
    // Timed out (PMIX_TIMEOUT 1).
    let req = checkpoint(&mut a, &b.me, vec![Info::new("pmix.timeout", Value::u32(1))]);
    assert_eq!(a.reply(req).status, PMIX_ERR_TIMEOUT);
    // Cancelled by its name: the cancel succeeds, the checkpoint ends.
    let req = checkpoint(&mut a, &b.me, Vec::new());
    let cancel = a.send(&Request::JobControl { targets: Vec::new(), directives: vec![Info::new("pmix.jctrl.cancel", Value::string("c1"))] });
    assert_eq!(a.reply(req).status, PMIX_ERR_JOB_CANCELED);
    assert_eq!(a.reply(cancel).status, PMIX_SUCCESS);
    // Its target lost before it reports.
    let req = checkpoint(&mut a, &b.me, Vec::new());
    // (the third checkpoint's event: it waits for b)
    for _ in 0..3 {
        assert_eq!(next_event(&mut b).0, PMIX_JCTRL_CHECKPOINT);
    }
    drop(b);
    assert_eq!(a.reply(req).status, PMIX_ERR_PROC_CHECKPOINT);
}

#[test]
fn a_checkpoint_of_a_target_without_a_method_is_refused_and_one_by_signal_goes_to_the_host() {
    let srv = Server::start(Answer::Inline, None, 0);
    let (mut a, mut b) = ckpt_job(&srv, "ckpt3");
    let req = checkpoint(&mut a, &b.me, Vec::new());
    assert_eq!(a.reply(req).status, PMIX_ERR_NOT_SUPPORTED);
    let method = Info::new("pmix.jctrl.ckmethod", Value::infos(&[Info::new("pmix.jctrl.ckptsig", Value::u32(12))]));
    let me = b.me.clone();
    assert_eq!(b.call(&Request::JobControl { targets: vec![me], directives: vec![method] }).status, PMIX_SUCCESS);
    let req = checkpoint(&mut a, &b.me, Vec::new());
    // The host is asked to signal the target (and accepts, within the upcall).
    let (name, infos) = answered(&srv);
    assert_eq!(name, "job_control");
    assert_eq!(infos.iter().find(|i| i.key() == "pmix.jctrl.sig").and_then(|i| i.as_u32()), Some(12));
    let done = Request::Notify { status: PMIX_JCTRL_CHECKPOINT_COMPLETE, source: b.me.clone(), range: PMIX_RANGE_LOCAL, info: Vec::new() };
    assert_eq!(b.call(&done).status, PMIX_SUCCESS);
    assert_eq!(a.reply(req).status, PMIX_SUCCESS);
}

/// A connect naming a job that ended here (its namespace deregistered)
/// fails at once with LOST_CONNECTION: it neither waits nor goes to the host
/// as if that job lived elsewhere. The name registered again is served.
#[test]
fn a_connect_to_a_job_that_ended_here_fails_at_once() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    srv.register_late("parents", 1);
    srv.engine.handle.call(|s, net| {
        s.deregister_client(net, &Proc::new("parents", 0));
        s.deregister_nspace(net, "parents");
    });
    let both = vec![Proc::new("job", 0), Proc::wildcard("parents")];
    let r = srv.clients[0].call(&Request::barrier(Collective::Connect, both.clone(), Vec::new()));
    assert_eq!(r.status, PMIX_ERR_LOST_CONNECTION);
    assert!(srv.no_upcall_yet(), "the connect went to the host");
    // Registered again (a host reusing the name): a connect of both jobs
    // completes.
    srv.register_late("parents", 1);
    let mut parent = srv.connect(Proc::new("parents", 0));
    let a = srv.clients[0].send(&Request::barrier(Collective::Connect, both.clone(), Vec::new()));
    let b = parent.send(&Request::barrier(Collective::Connect, both, Vec::new()));
    assert_eq!(srv.clients[0].reply(a).status, PMIX_SUCCESS);
    assert_eq!(parent.reply(b).status, PMIX_SUCCESS);
}
