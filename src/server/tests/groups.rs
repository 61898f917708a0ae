//! Process groups: construction, context ids, invitations.

use super::*;

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
