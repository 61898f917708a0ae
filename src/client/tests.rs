//! The client core as units: the cache, the table of requests awaiting an
//! answer, and what the client under an OpenPMIx server sends and reads.

use crate::abi::*;
use crate::data::pack::Encoder;
use crate::msg::{self, v41, AnswerKind, Collective, GroupOp, Reply, Request};
use crate::owned::{encode_infos, Info, Proc, Value};
use crate::ptl::Msg;

use super::link::Pending;
use super::openpmix::{self, Reading, Shape};
use super::waiter::Waiter;
use super::Cache;

#[test]
fn the_cache_answers_a_rank_then_its_job() {
    let c = Cache::default();
    let r1 = Proc::new("job", 1);
    c.put(&r1, vec![Info::new("k", Value::u32(1))]);
    c.put(&Proc::wildcard("job"), vec![Info::new("k", Value::u32(9)), Info::new("pmix.job.size", Value::u32(4))]);
    assert_eq!(c.get(&r1, "k").and_then(|v| v.as_u32()), Some(1));
    // A key the rank does not hold is its job's.
    assert_eq!(c.get(&r1, "pmix.job.size").and_then(|v| v.as_u32()), Some(4));
    assert_eq!(c.get(&Proc::new("job", 2), "k").and_then(|v| v.as_u32()), Some(9));
    assert!(c.get(&Proc::new("other", 0), "k").is_none());
    // A key put again is replaced (a rank's data is what it last put).
    c.put(&r1, vec![Info::new("k", Value::u32(2))]);
    assert_eq!(c.get(&r1, "k").and_then(|v| v.as_u32()), Some(2));
    let all = c.all_of(&r1);
    assert_eq!(all.iter().map(|i| i.key()).collect::<Vec<_>>(), ["k"]);
}

#[test]
fn an_encoded_record_is_decoded_on_first_use_and_a_bad_one_is_a_miss() {
    let c = Cache::default();
    let mut e = Encoder::default();
    encode_infos(&mut e, &[Info::new("late", Value::string("x"))]).unwrap();
    c.put_encoded("job", 3, e.bytes());
    c.put_encoded("job", 4, &[0xff, 0xff, 0xff, 0x7f]);
    assert_eq!(c.get(&Proc::new("job", 3), "late").and_then(|v| v.as_str()).as_deref(), Some("x"));
    assert!(c.get(&Proc::new("job", 4), "late").is_none());
    assert_eq!(c.all_of(&Proc::new("job", 3)).len(), 1);
}

#[test]
fn pending_requests_have_their_own_ids_and_are_all_answered_at_close() {
    let mut p = Pending::default();
    let plain = || Waiter::Plain(Box::new(|_| {}));
    let rpmix = || Reading::Rpmix(AnswerKind::Status);
    let a = p.add(rpmix(), plain()).ok().unwrap();
    let b = p.add(rpmix(), plain()).ok().unwrap();
    assert_ne!(a, b);
    // (ids below it are OpenPMIx's tags for what a server sends unasked)
    assert!(a >= crate::ptl::FIRST_REQUEST_TAG && b >= crate::ptl::FIRST_REQUEST_TAG);
    assert!(p.take(a).is_some());
    assert!(p.take(a).is_none(), "an answer is taken once");
    let left = p.close();
    assert_eq!(left.len(), 1);
    assert!(p.add(rpmix(), plain()).is_err(), "nothing waits on a closed table");
}

/// What `req` becomes for an OpenPMIx 4 server, read back.
fn sent_to_openpmix(req: Request, me: &Proc) -> Result<Request, pmix_status_t> {
    let (bytes, _) = openpmix::for_openpmix(req, false, me, 4)?;
    match v41::decode(&bytes, false, me)? {
        v41::Incoming::Request(r) => Ok(r),
        v41::Incoming::JobData => panic!("a job data request"),
    }
}

#[test]
fn what_openpmix_s_client_does_to_a_request_is_done_before_it_goes() {
    let me = Proc::new("job", 2);
    // A fence naming nobody names the caller's namespace.
    let Ok(Request::Barrier(b)) = sent_to_openpmix(Request::barrier(Collective::Fence, Vec::new(), Vec::new()), &me) else { panic!() };
    assert_eq!(b.procs, vec![Proc::wildcard("job")]);
    // Keys that only order handlers here stay here.
    let reg = Request::RegisterEvents { codes: vec![-1], info: vec![Info::new("pmix.evfirst", Value::boolean(true)), Info::new("my.key", Value::u32(1))] };
    let Ok(Request::RegisterEvents { info, .. }) = sent_to_openpmix(reg, &me) else { panic!() };
    assert_eq!(info.iter().map(|i| i.key()).collect::<Vec<_>>(), ["my.key"]);
    // An OpenPMIx server misreads a pull naming no source: refused here.
    let pull = Request::IofPull(msg::IofPull { procs: Vec::new(), channels: PMIX_FWD_STDOUT_CHANNEL, handle: 1, directives: Vec::new() });
    assert_eq!(sent_to_openpmix(pull, &me).err(), Some(PMIX_ERR_BAD_PARAM));
    // What OpenPMIx 4.2's protocol has no command for.
    let leave = Request::Group(msg::Group { op: GroupOp::Leave, name: "g".into(), procs: Vec::new(), directives: Vec::new() });
    assert_eq!(sent_to_openpmix(leave, &me).err(), Some(PMIX_ERR_NOT_SUPPORTED));
    // A group's destruction names its members to an OpenPMIx 5 server:
    // only a group constructed here can be destructed there.
    let destruct = Request::Group(msg::Group { op: GroupOp::Destruct, name: "never-made".into(), procs: Vec::new(), directives: Vec::new() });
    assert_eq!(openpmix::for_openpmix(destruct, false, &me, 5).err(), Some(PMIX_ERR_NOT_FOUND));
}

#[test]
fn openpmix_answers_read_back_as_replies() {
    let me = Proc::new("job", 0);
    // A count and infos.
    let mut m = Msg::plain(false);
    m.status(PMIX_SUCCESS);
    m.infos(&[Info::new("pmix.qry.ns", Value::string("a,b"))]).unwrap();
    let r = openpmix::answer(m.bytes(), &Shape::Infos, false, &me);
    assert_eq!(r.status(), PMIX_SUCCESS);
    assert_eq!(r.into_infos()[0].as_str().as_deref(), Some("a,b"));
    // The server's own failure is its status alone.
    let mut m = Msg::plain(false);
    m.status(PMIX_ERR_NOT_FOUND);
    assert_eq!(openpmix::answer(m.bytes(), &Shape::Infos, false, &me).status(), PMIX_ERR_NOT_FOUND);
    // An answer that does not decode is an error, not a success.
    assert_ne!(openpmix::answer(&[0xff], &Shape::Infos, false, &me).status(), PMIX_SUCCESS);
}

/// What rpmix's server writes for an OpenPMIx client (`msg::v41`) reads
/// back, by the client under an OpenPMIx server, as the answer it was.
#[test]
fn the_servers_openpmix_answers_read_back_as_they_were() {
    let me = Proc::new("job.1", 5);
    for described in [false, true] {
        for reply in msg::tests::every_reply() {
            let shape = match &reply {
                Reply::Status(_) => Shape::Status,
                // (an answer for an undefined rank names the asker: its data is cached as the asker's)
                Reply::Get { target, .. } if target.rank == PMIX_RANK_UNDEF => continue,
                Reply::Get { target, .. } => Shape::Get { target: target.clone() },
                Reply::Infos { .. } => Shape::Infos,
                Reply::Lookup { .. } => Shape::Lookup,
                Reply::Spawn { .. } => Shape::Spawn,
                Reply::IofPull { .. } => Shape::IofPull,
                Reply::Credential { .. } => Shape::Credential,
                // (a barrier's data, and the job data, reach the cache, not the waiter)
                Reply::Barrier { .. } | Reply::ToolWelcome { .. } | Reply::JobData(_) => continue,
            };
            let bytes = v41::encode_reply(&reply, described, &me, &[]).unwrap();
            let back = openpmix::answer(&bytes, &shape, described, &me);
            // (what OpenPMIx's form drops of a failed answer, rpmix's reader drops too)
            let want = if reply.status() == PMIX_SUCCESS { reply.encode() } else { Reply::Status(reply.status()).encode() };
            assert_eq!(Reply::decode(&reply.kind(), &back.encode().unwrap()).unwrap().encode().unwrap(), Reply::decode(&reply.kind(), &want.unwrap()).unwrap().encode().unwrap(), "{:?} (described: {described})", reply.kind());
        }
    }
}

/// How many times `count_event` ran.
static RAN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn count_event(
    _id: usize,
    _status: pmix_status_t,
    _source: *const pmix_proc_t,
    _info: *mut pmix_info_t,
    _ninfo: usize,
    _results: *mut pmix_info_t,
    _nresults: usize,
    cbfunc: pmix_event_notification_cbfunc_fn_t,
    cbdata: *mut core::ffi::c_void,
) {
    RAN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    if let Some(f) = cbfunc {
        // SAFETY: the chain's own continuation, called once.
        unsafe { f(PMIX_SUCCESS, std::ptr::null_mut(), 0, None, std::ptr::null_mut(), cbdata) };
    }
}

/// An event no handler took is kept (as `chain_or_keep` does), and a
/// handler registered afterwards for its code runs it once: it is checked
/// out as it comes due. A default handler takes what is not marked
/// non-default; the oldest go past `events::KEEP`.
#[test]
fn a_handler_registered_after_an_event_arrived_runs_it_once() {
    use crate::events::{self, Registry};
    let mut r = Registry::new();
    let src = Proc::new("server", 0);
    let info = vec![Info::new("pmix.alloc.id", Value::string("A"))];
    let inline: events::Poster = std::sync::Arc::new(|f| f());
    assert!(r.chain_for(PMIX_NOTIFY_ALLOC_COMPLETE, &info).is_empty());
    r.keep(PMIX_NOTIFY_ALLOC_COMPLETE, &src, &info);
    r.keep(PMIX_PROCESS_SET_DEFINE, &src, &[Info::new("pmix.evnondef", Value::boolean(true))]);
    // A handler of another code takes neither.
    r.register(vec![PMIX_ERR_PROC_ABORTED], &[], Some(count_event));
    assert!(r.take_due().is_empty());
    let id = r.register(vec![PMIX_NOTIFY_ALLOC_COMPLETE], &[], Some(count_event));
    let due = r.take_due();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].0.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id]);
    assert_eq!((due[0].1.status, &due[0].1.source), (PMIX_NOTIFY_ALLOC_COMPLETE, &src));
    for (chain, k) in due {
        events::notify(chain, k.status, &k.source, &k.info, inline.clone());
    }
    assert_eq!(RAN.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Delivered once: a second handler of the code gets nothing kept.
    r.register(vec![PMIX_NOTIFY_ALLOC_COMPLETE], &[], Some(count_event));
    assert!(r.take_due().is_empty());
    // A default handler does not take the event marked non-default.
    r.register(Vec::new(), &[], Some(count_event));
    assert!(r.take_due().is_empty());
    assert_eq!(r.kept(), 1);
    // Bounded: the most recent KEEP.
    let mut r = Registry::new();
    for n in 0..(events::KEEP as u32 + 5) {
        r.keep(PMIX_NOTIFY_ALLOC_COMPLETE, &src, &[Info::new("n", Value::u32(n))]);
    }
    assert_eq!(r.kept(), events::KEEP);
    r.register(vec![PMIX_NOTIFY_ALLOC_COMPLETE], &[], Some(count_event));
    let due = r.take_due();
    assert_eq!(due.len(), events::KEEP);
    assert_eq!(due[0].1.info[0].as_u32(), Some(5), "the oldest went first");
    assert_eq!(r.kept(), 0);
}
