//! Commits, Gets (answered, parked, by direct modex) and dmodex requests.

use super::*;

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
