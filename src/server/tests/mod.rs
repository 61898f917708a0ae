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

/// The next upcall, which must be one the fake host answered at once.
fn answered(srv: &Server) -> (&'static str, Vec<Info>) {
    match srv.next_upcall() {
        Seen::Answered(name, infos) => (name, infos),
        _ => panic!("another upcall"),
    }
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

mod barriers;
mod events;
mod groups;
mod lost_and_checkpoints;
mod modex;
mod requests;
mod views;
