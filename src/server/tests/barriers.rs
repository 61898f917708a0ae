//! Fences and connects.

use super::*;

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

/// A rank lost in a fence across nodes before every local rank entered it:
/// the others hear of the loss at once, and the host still gets this node's
/// contribution, once, so the other nodes' part ends. (A survivor entering
/// the fence afterwards is answered at once, its member being gone:
/// `a_rank_lost_before_the_fence_fails_it_for_the_others`.)
#[test]
fn a_rank_lost_in_a_fence_across_nodes_still_lets_the_host_finish_it() {
    let mut srv = Server::start(Answer::Later, None, 2);
    let a = srv.clients[0].send(&fence(wildcard()));
    // (the fence is in: a request answered at once orders the two)
    let r = srv.clients[0].call(&Request::Get { target: Proc::new("job", 0), key: "pmix.hname".into(), info: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    assert!(srv.no_upcall_yet(), "the host was asked before every local rank arrived");
    drop(srv.clients.pop());
    let Seen::Fence(procs, done) = srv.next_upcall() else { panic!("not a fence") };
    assert_eq!(procs, wildcard());
    assert_eq!(srv.clients[0].reply(a).status, PMIX_ERR_LOST_CONNECTION);
    // (the host's late answer changes nothing)
    done(PMIX_SUCCESS, Vec::new());
    let r = srv.clients[0].call(&Request::Get { target: Proc::new("job", 0), key: "pmix.hname".into(), info: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    assert!(srv.no_upcall_yet(), "a second contribution to the same fence");
}

/// A fence across nodes that names a rank lost before any local rank
/// entered it: each survivor is answered at once, and the host still gets
/// this node's contribution once the last survivor arrived (one per
/// fence: the next fence is the next contribution).
#[test]
fn a_fence_across_nodes_naming_a_rank_lost_before_it_still_reaches_the_host() {
    let mut srv = Server::start(Answer::Later, None, 2);
    drop(srv.clients.pop());
    let r = srv.clients[0].call(&Request::Get { target: Proc::new("job", 0), key: "pmix.hname".into(), info: Vec::new() });
    assert_eq!(r.status, PMIX_SUCCESS);
    for _fence in 0..2 {
        assert_eq!(srv.clients[0].call(&fence(wildcard())).status, PMIX_ERR_LOST_CONNECTION);
        let Seen::Fence(procs, _done) = srv.next_upcall() else { panic!("not a fence") };
        assert_eq!(procs, wildcard());
        assert!(srv.no_upcall_yet(), "more than one contribution to a fence");
    }
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
