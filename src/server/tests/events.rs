//! Events kept for peers that register for them later (evcache.rs).

use super::*;

const CODE: pmix_status_t = PMIX_NOTIFY_ALLOC_COMPLETE;

/// An event of the server to every rank of namespace `ns` (pmixrun's
/// PMIX_NOTIFY_ALLOC_COMPLETE), numbered `n`.
fn to_namespace(srv: &Server, code: pmix_status_t, ns: &'static str, n: u32) {
    srv.engine.handle.call(move |s, net| {
        let info = vec![Info::new("pmix.evrange", Value::procs(&[Proc::wildcard(ns)])), Info::new("n", Value::u32(n))];
        s.deliver_event(net, code, &Proc::new("server", 0), PMIX_RANGE_CUSTOM, &info);
    });
}

fn register(c: &mut Client, codes: &[pmix_status_t]) {
    c.send(&Request::RegisterEvents { codes: codes.to_vec(), info: Vec::new() });
}

/// The events `c` receives before the answer to a request sent now (each
/// its code and its `n`).
fn events_until_answered(c: &mut Client) -> Vec<(pmix_status_t, u32)> {
    let req = c.send(&Request::Get { target: Proc::wildcard("job"), key: "pmix.job.size".into(), info: Vec::new() });
    let mut out = Vec::new();
    loop {
        let (r, tag, body) = c.frame();
        if tag == wire::REPLY && r == req {
            return out;
        }
        if tag == wire::EVENT {
            let mut d = Decoder::new(&body);
            let code = d.u32().unwrap() as pmix_status_t;
            let _source = Proc::decode(&mut d).unwrap();
            let infos = decode_infos(&mut d).unwrap();
            out.push((code, u32_of(&infos, "n").unwrap_or(u32::MAX)));
        }
    }
}

/// (events kept, their bytes, procs recorded as having had them).
fn kept(srv: &Server) -> (usize, usize, usize) {
    srv.engine.handle.call(|s, _| s.evcache.size()).unwrap()
}

#[test]
fn a_peer_connected_after_an_event_gets_it_when_it_registers_and_only_once() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    to_namespace(&srv, CODE, "job", 1);
    // Rank 0, connected, has it at once (registered or not).
    assert_eq!(next_event(&mut srv.clients[0]).0, CODE);
    // Rank 1 connects afterwards: nothing until it registers for the code.
    let mut late = srv.connect(Proc::new("job", 1));
    assert!(events_until_answered(&mut late).is_empty());
    // A default handler gets none kept (as with OpenPMIx's server).
    register(&mut late, &[]);
    assert!(events_until_answered(&mut late).is_empty(), "a default registration");
    register(&mut late, &[PMIX_ERR_PROC_ABORTED]);
    assert!(events_until_answered(&mut late).is_empty(), "an event of another code");
    register(&mut late, &[PMIX_ERR_PROC_ABORTED, CODE]);
    assert_eq!(events_until_answered(&mut late), vec![(CODE, 1)]);
    // Never twice: neither to it nor to rank 0, which had it.
    register(&mut late, &[CODE]);
    assert!(events_until_answered(&mut late).is_empty());
    register(&mut srv.clients[0], &[CODE]);
    assert!(events_until_answered(&mut srv.clients[0]).is_empty());
}

#[test]
fn kept_events_follow_their_range_and_never_go_back_to_the_rank_that_raised_them() {
    let srv = Server::start(Answer::Inline, None, 0);
    srv.register_late("other", 1);
    to_namespace(&srv, CODE, "job", 1);
    // Rank 0 raises one to its namespace: it has it (sent back, as to every rpmix peer in range).
    let mut r0 = srv.connect(Proc::new("job", 0));
    let notify = Request::Notify { status: CODE, source: r0.me.clone(), range: PMIX_RANGE_NAMESPACE, info: vec![Info::new("n", Value::u32(2))] };
    // (the event comes back before the answer, which skips it)
    assert_eq!(r0.call(&notify).status, PMIX_SUCCESS);
    // Another namespace's rank is in neither range.
    let mut other = srv.connect(Proc::new("other", 0));
    register(&mut other, &[CODE]);
    assert!(events_until_answered(&mut other).is_empty());
    // Rank 0 gets the first only: it raised the second.
    register(&mut r0, &[CODE]);
    assert_eq!(events_until_answered(&mut r0), vec![(CODE, 1)]);
    let mut r1 = srv.connect(Proc::new("job", 1));
    register(&mut r1, &[CODE]);
    assert_eq!(events_until_answered(&mut r1), vec![(CODE, 1), (CODE, 2)]);
}

#[test]
fn the_cache_keeps_the_most_recent_events_and_forgets_a_deregistered_namespace() {
    let srv = Server::start(Answer::Inline, None, 0);
    let extra = 10;
    for n in 0..(super::super::evcache::MAX_EVENTS as u32 + extra) {
        to_namespace(&srv, CODE, "job", n);
    }
    assert_eq!(kept(&srv).0, super::super::evcache::MAX_EVENTS);
    let mut late = srv.connect(Proc::new("job", 1));
    register(&mut late, &[CODE]);
    let got = events_until_answered(&mut late);
    assert_eq!(got.len(), super::super::evcache::MAX_EVENTS);
    assert_eq!(got.first(), Some(&(CODE, extra)), "the oldest went first");
    assert_eq!(got.last(), Some(&(CODE, super::super::evcache::MAX_EVENTS as u32 + extra - 1)));
    let (_, _, had) = kept(&srv);
    assert_eq!(had, super::super::evcache::MAX_EVENTS);
    // A second namespace's events, and the first's, go with their namespaces.
    srv.register_late("two", 1);
    let mut two = srv.connect(Proc::new("two", 0));
    srv.engine.handle.call(|s, net| s.deliver_event(net, CODE, &Proc::new("two", 0), PMIX_RANGE_GLOBAL, &[]));
    assert_eq!(next_event(&mut two).0, CODE);
    srv.engine.handle.call(|s, net| s.deregister_nspace(net, "job"));
    let (n, bytes, had) = kept(&srv);
    assert_eq!((n, had), (1, 1), "only namespace two's event, had by its rank");
    assert!(bytes > 0);
    srv.engine.handle.call(|s, net| s.deregister_nspace(net, "two"));
    assert_eq!(kept(&srv), (0, 0, 0));
}

#[test]
fn an_openpmix_peer_is_registered_for_what_it_named() {
    let mut c = super::super::evcache::EvCache::default();
    let conn: crate::runtime::ConnId = 7;
    assert!(!c.registered_for(conn, CODE, false));
    c.registered(conn, &[]);
    assert!(c.registered_for(conn, CODE, false), "a default handler");
    assert!(!c.registered_for(conn, CODE, true), "not for an event marked non-default");
    c.registered(conn, &[CODE]);
    assert!(c.registered_for(conn, CODE, true));
    c.deregistered(conn, &[CODE]);
    c.deregistered(conn, &[]);
    assert!(!c.registered_for(conn, CODE, false));
    c.registered(conn, &[CODE]);
    c.drop_conn(conn);
    assert!(!c.registered_for(conn, CODE, false), "its connection ended");
}

#[test]
fn a_tools_events_go_with_its_connection() {
    let mut c = super::super::evcache::EvCache::default();
    let tool = Proc::new("tool.3", 0);
    let to_tool = vec![Info::new("pmix.evrange", Value::procs(std::slice::from_ref(&tool)))];
    let to_job = vec![Info::new("pmix.evrange", Value::procs(&[Proc::wildcard("job")]))];
    c.keep(CODE, &Proc::new("server", 0), PMIX_RANGE_CUSTOM, &to_tool, b"one", [tool.clone()].into_iter().collect());
    c.keep(CODE, &Proc::new("server", 0), PMIX_RANGE_CUSTOM, &to_job, b"two", [tool.clone()].into_iter().collect());
    assert_eq!(c.size(), (2, 6, 2));
    c.forget_tool(&tool);
    assert_eq!(c.size(), (1, 3, 0), "only the job's event stays, had by nobody");
}
