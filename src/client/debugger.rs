//! Stop in init (PMIX_DEBUG_STOP_IN_INIT in the job data): the rank waits
//! in PMIx_Init until a debugger raises PMIX_DEBUGGER_RELEASE, having told
//! the host it waits (PMIX_READY_FOR_DEBUG with PMIX_BREAKPOINT "pmix-init"),
//! as OpenPMIx's client does. The wait ends with the release or with the
//! loss of the server, nothing else.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::abi::*;
use crate::owned::{Info, Proc, Value};

static RELEASED: Mutex<bool> = Mutex::new(false);
static WAKE: Condvar = Condvar::new();

unsafe extern "C" fn on_release(
    _id: usize,
    status: pmix_status_t,
    _source: *const pmix_proc_t,
    _info: *mut pmix_info_t,
    _ninfo: usize,
    _results: *mut pmix_info_t,
    _nresults: usize,
    cbfunc: pmix_event_notification_cbfunc_fn_t,
    cbdata: *mut core::ffi::c_void,
) {
    if status == PMIX_ERR_LOST_CONNECTION {
        crate::pmix_debug!(1, "PMIx_Init: the server went away while waiting for a debugger");
    }
    *RELEASED.lock().unwrap_or_else(|e| e.into_inner()) = true;
    WAKE.notify_all();
    if let Some(f) = cbfunc {
        // SAFETY: the library's completion callback for this event, called once.
        unsafe { f(PMIX_EVENT_ACTION_COMPLETE, core::ptr::null_mut(), 0, None, core::ptr::null_mut(), cbdata) };
    }
}

/// Whether the job data asks `me` to stop in init: the ranks its value
/// names (`Value::ranks_named`: a flag, a rank, or procs).
fn asked(me: &Proc) -> bool {
    let Some(v) = super::cached(&me.nspace, PMIX_RANK_WILDCARD, "pmix.dbg.init") else { return false };
    match v.ranks_named(&me.nspace) {
        crate::owned::RanksNamed::All => true,
        crate::owned::RanksNamed::These(ranks) => ranks.contains(&me.rank),
    }
}

/// Wait here if the job data asks for it (see the module's comment).
pub fn stop_in_init_if_asked(me: &Proc) {
    // (once per process: a second PMIx_Init only counts a reference)
    static ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !asked(me) || ONCE.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    crate::pmix_debug!(2, "PMIx_Init: {me} stops in init until a debugger releases it");
    *RELEASED.lock().unwrap_or_else(|e| e.into_inner()) = false;
    // (the loss of the server ends the wait too: the client raises it)
    let codes = vec![PMIX_DEBUGGER_RELEASE, PMIX_ERR_LOST_CONNECTION];
    let id = super::events_of_client().register(codes, &[Info::new("pmix.evname", Value::string("WAIT-FOR-DEBUGGER"))], Some(on_release));
    let info = vec![Info::new("pmix.evnondef", Value::boolean(true)), Info::new("pmix.brkpnt", Value::string("pmix-init"))];
    super::api::notify(PMIX_READY_FOR_DEBUG, me.clone(), PMIX_RANGE_RM, info, crate::runtime::Completion::on_status(|_| {}));
    let mut released = RELEASED.lock().unwrap_or_else(|e| e.into_inner());
    while !*released {
        released = WAKE.wait_timeout(released, Duration::from_millis(500)).unwrap_or_else(|e| e.into_inner()).0;
    }
    drop(released);
    super::events_of_client().deregister(id);
}
