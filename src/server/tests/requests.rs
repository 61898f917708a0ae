//! Requests the role hands to its host or answers: pub/sub, spawn, job control, cleanup, abort, IOF, monitors, process sets, session control, the hello.

use super::*;

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

/// Output of a job that ended here, delivered after its namespace was
/// deregistered (its last lines can come that late), is not kept: a pull
/// made afterwards gets none of it, and the server holds no count of it.
#[test]
fn output_of_a_job_that_ended_here_is_not_kept() {
    let mut srv = Server::start(Answer::Inline, None, 1);
    srv.register_late("ended", 1);
    srv.engine.handle.call(|s, net| {
        s.deregister_client(net, &Proc::new("ended", 0));
        s.deregister_nspace(net, "ended");
        s.iof_deliver(net, &Proc::new("ended", 0), PMIX_FWD_STDOUT_CHANNEL, b"late\n", false);
        // (a live job's output before any pull is kept, as ever)
        s.iof_deliver(net, &Proc::new("job", 1), PMIX_FWD_STDOUT_CHANNEL, b"kept\n", false);
    });
    assert_eq!(srv.engine.handle.call(|s, _| s.iof.delivered(&Proc::new("ended", 0))), Some(None));
    let pull = Request::IofPull(msg::IofPull { procs: vec![Proc::wildcard("ended"), Proc::new("job", 1)], channels: PMIX_FWD_STDOUT_CHANNEL, handle: 9, directives: Vec::new() });
    assert_eq!(srv.clients[0].call(&pull).status, PMIX_SUCCESS);
    let (_, tag, body) = loop {
        let f = srv.clients[0].frame();
        if f.1 == wire::IOF {
            break f;
        }
    };
    assert_eq!(tag, wire::IOF);
    let mut d = Decoder::new(&body);
    let _handle = d.u32().unwrap();
    let source = Proc::decode(&mut d).unwrap();
    let _channel = d.u32().unwrap();
    assert_eq!((source, d.blob().unwrap().to_vec()), (Proc::new("job", 1), b"kept\n".to_vec()), "the first output the pull gets");
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
