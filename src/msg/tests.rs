//! Every request through both codecs: rpmix's format gives back the same
//! bytes after a decode; OpenPMIx's gives back the same request (compared
//! in rpmix's format, which carries every field) for every request its
//! protocol carries whole.

use super::v41::{self, Form, Incoming};
use super::*;
use crate::data::kind::Kind;
use crate::owned::Value;

fn infos() -> Vec<Info> {
    vec![Info::new("pmix.timeout", Value::u32(7)), Info::new("my.key", Value::string("a value"))]
}

fn procs() -> Vec<Proc> {
    vec![Proc::new("job.1", 0), Proc::new("job.1", 3), Proc::wildcard("job.2")]
}

/// One app (`cmd`, argv, no env) in an owned array.
pub(crate) fn apps() -> CArray {
    let size = Kind::App.size();
    let ptr = crate::cmem::calloc_array(1, size) as *mut u8;
    assert!(!ptr.is_null());
    // SAFETY: a zeroed app of ours, given malloc'd strings; the CArray frees it.
    unsafe {
        let a = &mut *(ptr as *mut pmix_app_t);
        a.cmd = crate::cmem::strdup_bytes(b"/bin/true");
        a.argv = crate::cmem::argv_from(&["true", "-x"]);
        a.maxprocs = 4;
    }
    CArray { kind: Kind::App, ptr, len: 1 }
}

/// One query with two keys and no qualifiers, in an owned array.
fn queries() -> CArray {
    let size = Kind::Query.size();
    let ptr = crate::cmem::calloc_array(1, size) as *mut u8;
    assert!(!ptr.is_null());
    // SAFETY: a zeroed query of ours, given a malloc'd argv; the CArray frees it.
    unsafe {
        let q = &mut *(ptr as *mut pmix_query_t);
        q.keys = crate::cmem::argv_from(&["pmix.qry.ns", "pmix.qry.nsinfo"]);
    }
    CArray { kind: Kind::Query, ptr, len: 1 }
}

/// One of each request, as a client builds them.
fn every_request() -> Vec<Request> {
    let me = Proc::new("job.1", 3);
    let mut all = vec![
        Request::Finalize,
        Request::Abort { status: -25, message: "bye".into(), procs: procs() },
        Request::Commit {
            puts: vec![
                (PMIX_LOCAL, Info::new("l", Value::u32(1))),
                (PMIX_GLOBAL, Info::new("g", Value::string("x"))),
                (PMIX_REMOTE, Info::new("r", Value::bytes(b"\x00\x01"))),
            ],
        },
    ];
    for c in [Collective::Fence, Collective::Connect, Collective::Disconnect] {
        all.push(Request::barrier(c, procs(), vec![Info::new("pmix.collect", Value::boolean(true)), Info::new("pmix.timeout", Value::u32(9))]));
    }
    all.extend([
        Request::Get { target: Proc::new("job.1", 2), key: "pmix.hname".into(), info: infos() },
        Request::Get { target: Proc::new("job.1", 2), key: String::new(), info: Vec::new() },
        Request::Publish { info: infos() },
        Request::Lookup { keys: vec!["a".into(), "b".into()], info: infos() },
        Request::Unpublish { keys: vec!["a".into()], info: Vec::new() },
        Request::Notify { status: -150, source: me.clone(), range: PMIX_RANGE_SESSION, info: infos() },
        Request::Log { data: infos(), directives: vec![Info::new("pmix.log.stderr", Value::boolean(true))] },
        Request::Spawn { job_info: infos(), apps: apps() },
        Request::Query { queries: queries() },
        Request::GetCredential { info: infos() },
        Request::ValidateCredential { credential: b"cred\x00bytes".to_vec(), info: infos() },
        Request::RegisterEvents { codes: vec![-1, -150, 7], info: infos() },
        Request::DeregisterEvents { codes: vec![-150, 7] },
        Request::JobControl { targets: procs(), directives: infos() },
        Request::SessionControl { session: 7, directives: infos() },
        Request::Monitor(Box::new(Monitor { monitor: Info::new("pmix.monitor.hb", Value::boolean(true)), error: -1, directives: infos() })),
        Request::Allocate { directive: PMIX_ALLOC_EXTEND, data: infos() },
        Request::Heartbeat,
        Request::IofPull(IofPull { procs: procs(), channels: PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, handle: 12, directives: infos() }),
        Request::IofDeregister { id: 5 },
        Request::IofPush(IofPush { targets: procs(), data: Some(b"input\n".to_vec()), directives: Vec::new() }),
        Request::IofPush(IofPush { targets: procs(), data: None, directives: Vec::new() }),
        Request::Group(Group { op: GroupOp::Construct, name: "grp".into(), procs: procs(), directives: infos() }),
        Request::Group(Group { op: GroupOp::Destruct, name: "grp".into(), procs: Vec::new(), directives: infos() }),
        Request::Group(Group { op: GroupOp::Leave, name: "grp".into(), procs: Vec::new(), directives: Vec::new() }),
        Request::Group(Group { op: GroupOp::Invite, name: "grp".into(), procs: procs(), directives: infos() }),
        Request::Group(Group { op: GroupOp::Join { accept: true }, name: "grp".into(), procs: vec![me.clone()], directives: Vec::new() }),
        Request::Group(Group { op: GroupOp::Join { accept: false }, name: "grp".into(), procs: Vec::new(), directives: Vec::new() }),
    ]);
    all
}

#[test]
fn every_request_round_trips_in_rpmix_form() {
    let all = every_request();
    let mut tags: Vec<u16> = all.iter().map(Request::tag).collect();
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 31, "one tag per kind of request");
    for req in &all {
        let bytes = req.encode().unwrap();
        let back = Request::decode(req.tag(), &bytes).unwrap_or_else(|st| panic!("{} does not decode: {st}", req.name()));
        assert_eq!(back.tag(), req.tag());
        assert_eq!(back.name(), req.name());
        assert_eq!(back.encode().unwrap(), bytes, "{} changed in a round trip", req.name());
    }
}

#[test]
fn every_openpmix_command_round_trips() {
    let me = Proc::new("job.1", 3);
    for described in [false, true] {
        let form = Form { described, server_major: 4, uid: 0 };
        let mut carried = 0;
        for req in every_request() {
            let Ok(bytes) = v41::encode(&req, form) else {
                // Only what OpenPMIx 4.2's protocol has no command for.
                assert!(matches!(req, Request::Heartbeat | Request::SessionControl { .. } | Request::Group(Group { op: GroupOp::Leave | GroupOp::Invite | GroupOp::Join { .. }, .. })), "{}", req.name());
                continue;
            };
            let Ok(Incoming::Request(back)) = v41::decode(&bytes, described, &me) else {
                panic!("{} does not decode from OpenPMIx's form (described: {described})", req.name())
            };
            assert_eq!(back.name(), req.name());
            assert_eq!(back.encode().unwrap(), req.encode().unwrap(), "{} changed in OpenPMIx's form (described: {described})", req.name());
            carried += 1;
        }
        assert_eq!(carried, 28);
    }
}

#[test]
fn group_destruct_names_members_only_to_openpmix_5() {
    let req = Request::Group(Group { op: GroupOp::Destruct, name: "g".into(), procs: procs(), directives: Vec::new() });
    let v4 = v41::encode(&req, Form { described: false, server_major: 4, uid: 0 }).unwrap();
    let v5 = v41::encode(&req, Form { described: false, server_major: 5, uid: 0 }).unwrap();
    assert!(v5.len() > v4.len());
    let Ok(Incoming::Request(Request::Group(Group { procs, .. }))) = v41::decode(&v4, false, &Proc::new("x", 0)) else { panic!() };
    assert!(procs.is_empty());
}

#[test]
fn a_job_data_request_and_unknown_commands() {
    let me = Proc::new("job.1", 0);
    let req = crate::ptl::Msg::request(crate::ptl::cmd::REQ, false).into_bytes();
    assert!(matches!(v41::decode(&req, false, &me), Ok(Incoming::JobData)));
    let unknown = crate::ptl::Msg::request(77, false).into_bytes();
    assert_eq!(v41::decode(&unknown, false, &me).err(), Some(PMIX_ERR_NOT_SUPPORTED));
    assert_eq!(Request::decode(999, &[]).err(), Some(PMIX_ERR_NOT_SUPPORTED));
}

#[test]
fn truncated_bodies_are_errors_not_guesses() {
    for req in every_request() {
        let bytes = req.encode().unwrap();
        for cut in 0..bytes.len() {
            // Every strict prefix either fails or (for trailing optional
            // fields) decodes to something that encodes within the prefix.
            if let Ok(back) = Request::decode(req.tag(), &bytes[..cut]) {
                assert!(back.encode().unwrap().len() <= cut, "{} read past a cut at {cut}", req.name());
            }
        }
    }
    // A count larger than the body is refused before any allocation.
    let mut e = crate::data::pack::Encoder::default();
    e.u32(u32::MAX);
    assert_eq!(Request::decode(crate::wire::QUERY, e.bytes()).err(), Some(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER));
}

#[test]
fn hellos_round_trip() {
    let h = Hello { protocol: crate::wire::PROTOCOL, proc: Proc::new("job.1", 4), token: Some("t0k".into()) };
    assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
    let h = Hello { token: None, ..h };
    assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
    let t = ToolHello { protocol: 3, chosen: Some(Proc::new("tool", 0)) };
    assert_eq!(ToolHello::decode(&t.encode()).unwrap(), t);
    let t = ToolHello { protocol: 3, chosen: None };
    assert_eq!(ToolHello::decode(&t.encode()).unwrap(), t);
    for mapped in [false, true] {
        let w = Welcome { server: Proc::new("srv", 0), records: vec![(PMIX_RANK_WILDCARD, b"job".as_slice()), (4, b"mine")], mapped };
        let bytes = w.encode();
        let back = Welcome::decode(&bytes).unwrap();
        assert_eq!((back.server, back.records, back.mapped), (w.server, w.records, mapped));
    }
    // A refusal is the status alone.
    assert_eq!(Welcome::decode(&Reply::Status(PMIX_ERR_INVALID_CRED).encode().unwrap()).err(), Some(PMIX_ERR_INVALID_CRED));
}

/// OpenPMIx 4.2.2's clients' own requests (tools/capture-v41.sh, run as
/// root: publications carry uid 0): each one
/// rpmix reads gives back, encoded again, the very bytes OpenPMIx wrote.
#[test]
fn openpmix_requests_byte_for_byte() {
    let who = Proc::new("captured", 0);
    let mut commands = std::collections::BTreeSet::new();
    for line in include_str!("captures.txt").lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (form, hex) = line.split_once(' ').unwrap();
        let described = form == "true";
        let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        match v41::decode(&bytes, described, &who) {
            Ok(Incoming::JobData) => {}
            Ok(Incoming::Request(req)) => {
                let again = v41::encode(&req, Form { described, server_major: 4, uid: 0 }).unwrap();
                assert_eq!(crate::strings::hex(&again), hex, "{} differs from OpenPMIx's", req.name());
                commands.insert(req.name());
            }
            Err(st) => panic!("OpenPMIx's request {hex} does not decode: {st}"),
        }
    }
    assert!(commands.len() >= 15, "captures of {commands:?}");
}

/// One of each answer, as the server builds them.
pub(crate) fn every_reply() -> Vec<Reply> {
    let found = vec![(Proc::new("job.1", 0), Info::new("a", Value::string("x"))), (Proc::new("job.2", 1), Info::new("b", Value::u32(2)))];
    let records = vec![(Proc::new("job.1", 0), infos()), (Proc::wildcard("job.2"), vec![Info::new("pmix.job.size", Value::u32(4))])];
    vec![
        Reply::Status(PMIX_SUCCESS),
        Reply::Status(PMIX_ERR_NOT_FOUND),
        Reply::Get { status: PMIX_SUCCESS, target: Proc::new("job.1", 2), data: infos() },
        Reply::Get { status: PMIX_SUCCESS, target: Proc::new("job.1", PMIX_RANK_UNDEF), data: infos() },
        Reply::Infos { status: PMIX_SUCCESS, infos: infos() },
        Reply::Infos { status: PMIX_SUCCESS, infos: Vec::new() },
        Reply::Infos { status: PMIX_QUERY_PARTIAL_SUCCESS, infos: infos() },
        Reply::Lookup { status: PMIX_SUCCESS, found },
        Reply::Lookup { status: PMIX_ERR_NOT_FOUND, found: Vec::new() },
        Reply::Spawn { status: PMIX_SUCCESS, nspace: "job.3".into() },
        Reply::Spawn { status: PMIX_ERR_NOT_SUPPORTED, nspace: String::new() },
        Reply::IofPull { status: PMIX_SUCCESS, id: 9 },
        Reply::Barrier { status: PMIX_SUCCESS, collective: Collective::Fence, records: records.clone() },
        Reply::Barrier { status: PMIX_SUCCESS, collective: Collective::Connect, records },
        Reply::Barrier { status: PMIX_ERR_TIMEOUT, collective: Collective::Disconnect, records: Vec::new() },
        Reply::Credential { status: PMIX_SUCCESS, credential: b"cred\x00".to_vec(), info: infos() },
        Reply::ToolWelcome { server: Proc::new("srv", 0), name: Proc::new("tool.1", 0) },
        Reply::JobData(b"\x01\x02 OpenPMIx's own".to_vec()),
    ]
}

#[test]
fn every_reply_round_trips_in_rpmix_form() {
    for reply in every_reply() {
        let bytes = reply.encode().unwrap();
        assert_eq!(&bytes[..4], &reply.status().to_le_bytes());
        let back = Reply::decode(&reply.kind(), &bytes).unwrap_or_else(|st| panic!("{:?} does not decode: {st}", reply.kind()));
        assert_eq!(back.kind(), reply.kind());
        assert_eq!(back.encode().unwrap(), bytes, "{:?} changed in a round trip", reply.kind());
    }
}

#[test]
fn a_status_alone_reads_as_any_answer() {
    let alone = Reply::Status(PMIX_ERR_TIMEOUT).encode().unwrap();
    for reply in every_reply() {
        let back = Reply::decode(&reply.kind(), &alone).unwrap();
        assert_eq!(back.status(), PMIX_ERR_TIMEOUT);
        assert!(back.into_infos().is_empty());
    }
    assert!(Reply::decode(&AnswerKind::Status, &[1, 2]).is_err(), "no status");
}

#[test]
fn truncated_answers_are_errors_not_guesses() {
    for reply in every_reply() {
        let bytes = reply.encode().unwrap();
        for cut in 5..bytes.len() {
            // A cut past the status either fails or reads what it holds.
            if let Ok(back) = Reply::decode(&reply.kind(), &bytes[..cut]) {
                assert!(back.encode().unwrap().len() <= cut, "{:?} read past a cut at {cut}", reply.kind());
            }
        }
    }
}

#[test]
fn answers_in_openpmix_form() {
    let asker = Proc::new("job.1", 5);
    for described in [false, true] {
        for reply in every_reply() {
            let out = v41::encode_reply(&reply, described, &asker, &[b"job".to_vec()]);
            match &reply {
                Reply::ToolWelcome { .. } => assert_eq!(out.err(), Some(PMIX_ERR_NOT_SUPPORTED)),
                Reply::JobData(b) => assert_eq!(&out.unwrap(), b),
                r => {
                    let out = out.unwrap();
                    let mut m = crate::ptl::Msg::plain(described);
                    m.status(r.status());
                    // A failed request's answer, and a fence's, is the status alone.
                    let alone = r.status() != PMIX_SUCCESS || matches!(r, Reply::Status(_) | Reply::Barrier { collective: Collective::Fence | Collective::Disconnect, .. });
                    assert_eq!(out == m.bytes(), alone, "{:?} (described: {described})", r.kind());
                }
            }
        }
    }
    // A Get's answer names the asker where the target's rank is undefined.
    let get = |rank| v41::encode_reply(&Reply::Get { status: PMIX_SUCCESS, target: Proc::new("job.1", rank), data: Vec::new() }, false, &asker, &[]).unwrap();
    assert_eq!(get(PMIX_RANK_UNDEF), get(5));
}
