//! Lost connections and checkpoints.

use super::*;

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
