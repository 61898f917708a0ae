//! A tool's view of what the clients wait in (rpmix.qry.top).

use super::*;

#[test]
fn a_tool_sees_who_a_fence_waits_for_and_what_each_rank_is_blocked_in() {
    let mut srv = Server::start(Answer::Inline, None, 2);
    let local = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let f0 = srv.clients[0].send(&fence(local.clone()));
    // Rank 1 waits for a key rank 0 has not committed, with no timeout.
    let g1 = srv.clients[1].send(&Request::Get { target: Proc::new("job", 0), key: "late".into(), info: vec![Info::new("pmix.timeout", Value::u32(0))] });
    let (st, infos) = query(&mut srv.clients[1], &[crate::server::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
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
    let (_, infos) = query(&mut srv.clients[1], &[crate::server::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    let (colls, ranks) = top_of(&infos);
    assert!(colls.is_empty());
    assert!(ranks.iter().all(|r| string_of(r, "rpmix.top.call").is_none()));
    // A namespace this server does not hold is the host's to answer.
    let (st, infos) = query(&mut srv.clients[1], &[crate::server::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("nowhere"))]);
    assert_ne!(st, PMIX_SUCCESS);
    assert!(infos.iter().all(|i| i.key() != crate::server::top::QUERY_KEY));
}

#[test]
fn a_tool_sees_a_group_construct_wait_for_its_missing_member() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let members = vec![Proc::new("job", 0), Proc::new("job", 1)];
    let a = srv.clients[0].send(&Request::Group(msg::Group { op: GroupOp::Construct, name: "grp".into(), procs: members.clone(), directives: Vec::new() }));
    let (st, infos) = query(&mut srv.clients[1], &[crate::server::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
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
    let (_, infos) = query(&mut srv.clients[1], &[crate::server::top::QUERY_KEY], &[Info::new("pmix.nspace", Value::string("job"))]);
    assert!(top_of(&infos).0.is_empty());
}
