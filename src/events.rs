//! Event handlers (PMIx_Register_event_handler / Deregister / notification
//! chains), shared by every role.
//!
//! Handlers run on the role's progress thread. A notification walks the chain
//! of matching handlers: handlers registered for the code first, then default
//! handlers, each in registration order (PMIX_EVENT_HDLR_FIRST / _PREPEND put a
//! handler at the front of its group, _LAST / _APPEND at the end). Each handler
//! gets a `cbfunc` to call when done; the chain goes on unless it answers
//! PMIX_EVENT_ACTION_COMPLETE. The next step is always posted back to the
//! progress thread, so a handler may call cbfunc from any thread or inline.

use core::ffi::c_void;

use crate::abi::*;
use crate::owned::{find, infos_to_c, free_c_infos, Info, Proc};

#[derive(Clone)]
pub struct Handler {
    pub id: usize,
    pub codes: Vec<pmix_status_t>,
    pub func: pmix_notification_fn_t,
    pub name: Option<String>,
    /// PMIX_EVENT_RETURN_OBJECT given at registration (0: none): handed
    /// back to the handler among the event's infos, as OpenPMIx does.
    pub return_object: usize,
    /// PMIX_EVENT_AFFECTED_PROC(S) given at registration: the handler only
    /// hears events that name one of these procs among theirs (or name none).
    pub affected: Option<Vec<Proc>>,
}

/// An event no handler took, kept for a handler registered later.
pub struct Kept {
    pub status: pmix_status_t,
    pub source: Proc,
    pub info: Vec<Info>,
}

/// The most events a registry keeps for handlers registered later (the
/// oldest go first), as OpenPMIx's `max_events`.
pub const KEEP: usize = 512;

/// A kept event's turn: the chain registered when it came due.
pub type Due = (Vec<Handler>, Kept);

#[derive(Default)]
pub struct Registry {
    handlers: Vec<Handler>,
    next_id: usize,
    /// Events no handler took (a client's: `keep`), oldest first.
    kept: std::collections::VecDeque<Kept>,
    /// Kept events a handler registered since matched, checked out of
    /// `kept`, each with its chain, for the role to run (`take_due`).
    due: Vec<Due>,
}

impl Registry {
    pub const fn new() -> Registry {
        Registry { handlers: Vec::new(), next_id: 0, kept: std::collections::VecDeque::new(), due: Vec::new() }
    }

    /// Keep an event that no handler took (the caller checked that this
    /// process is among its targets), for a handler registered later.
    pub fn keep(&mut self, status: pmix_status_t, source: &Proc, info: &[Info]) {
        if find(info, PMIX_EVENT_DO_NOT_CACHE).is_some_and(|i| i.truthy()) {
            return;
        }
        while self.kept.len() >= KEEP {
            self.kept.pop_front();
        }
        self.kept.push_back(Kept { status, source: source.clone(), info: info.to_vec() });
    }

    /// How many events are kept.
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    /// The kept events handler `id` (just registered) matches, checked out,
    /// each with the chain registered now (a single run: it is delivered
    /// once).
    fn check_kept(&mut self, id: usize) {
        let Some(h) = self.handlers.iter().find(|h| h.id == id).cloned() else { return };
        let mut i = 0;
        while i < self.kept.len() {
            let k = &self.kept[i];
            let code = if h.codes.is_empty() { !non_default(&k.info) } else { h.codes.contains(&k.status) };
            if !code || !interested(&h, &affected_procs(&k.info)) {
                i += 1;
                continue;
            }
            let Some(k) = self.kept.remove(i) else { break };
            let chain = self.chain_for(k.status, &k.info);
            self.due.push((chain, k));
        }
    }

    /// The kept events that came due since last asked, with their chains.
    pub fn take_due(&mut self) -> Vec<Due> {
        std::mem::take(&mut self.due)
    }

    /// Register; returns the reference id the caller gets back.
    pub fn register(&mut self, codes: Vec<pmix_status_t>, info: &[Info], func: pmix_notification_fn_t) -> usize {
        let id = self.next_id;
        self.next_id += 1;
        let flag = |k| find(info, k).is_some_and(|i| i.truthy());
        let first = flag(PMIX_EVENT_HDLR_FIRST) || flag(PMIX_EVENT_HDLR_PREPEND) || flag(PMIX_EVENT_HDLR_FIRST_IN_CATEGORY);
        let name = find(info, PMIX_EVENT_HDLR_NAME).and_then(|i| i.as_str());
        let before = find(info, PMIX_EVENT_HDLR_BEFORE).and_then(|i| i.as_str());
        let after = find(info, PMIX_EVENT_HDLR_AFTER).and_then(|i| i.as_str());
        let return_object = find(info, PMIX_EVENT_RETURN_OBJECT)
            .filter(|i| i.value_ref().r#type == PMIX_POINTER)
            // SAFETY: a pointer value, per the type check.
            .map_or(0, |i| unsafe { i.value_ref().data.ptr } as usize);
        let affected = affected_procs(info);
        let h = Handler { id, codes, func, name, return_object, affected };
        let pos_of = |n: &str| self.handlers.iter().position(|x| x.name.as_deref() == Some(n));
        let at = if first {
            0
        } else if let Some(p) = before.as_deref().and_then(pos_of) {
            p
        } else if let Some(p) = after.as_deref().and_then(pos_of) {
            p + 1
        } else {
            self.handlers.len() // PMIX_EVENT_HDLR_LAST / _APPEND / default: in registration order
        };
        self.handlers.insert(at, h);
        self.check_kept(id);
        id
    }

    pub fn deregister(&mut self, id: usize) -> bool {
        let before = self.handlers.len();
        self.handlers.retain(|h| h.id != id);
        self.handlers.len() != before
    }

    /// The handlers a notification of `code` reaches, in call order. Events
    /// marked non-default (PMIX_EVENT_NON_DEFAULT) skip the default handlers.
    /// A handler registered with affected procs hears only events naming one
    /// of them (as OpenPMIx's do; an event that names none reaches it).
    pub fn chain_for(&self, code: pmix_status_t, info: &[Info]) -> Vec<Handler> {
        let named = affected_procs(info);
        let mut v: Vec<Handler> = self.handlers.iter().filter(|h| h.codes.contains(&code) && interested(h, &named)).cloned().collect();
        if !non_default(info) {
            v.extend(self.handlers.iter().filter(|h| h.codes.is_empty() && interested(h, &named)).cloned());
        }
        v
    }
}

/// Whether an event is marked PMIX_EVENT_NON_DEFAULT (default handlers skip it).
fn non_default(info: &[Info]) -> bool {
    find(info, PMIX_EVENT_NON_DEFAULT).is_some_and(|i| i.truthy())
}

/// Whether handler `h` hears an event naming the procs `named`: one
/// registered with affected procs hears only events naming one of them (or
/// naming none).
fn interested(h: &Handler, named: &Option<Vec<Proc>>) -> bool {
    match (&h.affected, named) {
        (Some(want), Some(got)) => got.iter().any(|g| want.iter().any(|w| same_proc(w, g))),
        _ => true,
    }
}

/// The procs PMIX_EVENT_AFFECTED_PROC or _PROCS name, if either is given
/// (at registration: whom the handler cares for; on an event: whom it is about).
pub fn affected_procs(info: &[Info]) -> Option<Vec<Proc>> {
    [PMIX_EVENT_AFFECTED_PROC, PMIX_EVENT_AFFECTED_PROCS].iter().find_map(|k| find(info, k)).map(|i| crate::owned::procs_of_value(i.value_ref()))
}

/// The same process, a rank of WILDCARD on either side matching any.
pub fn same_proc(a: &Proc, b: &Proc) -> bool {
    a.nspace == b.nspace && (a.rank == b.rank || a.rank == PMIX_RANK_WILDCARD || b.rank == PMIX_RANK_WILDCARD)
}

/// Posts a closure to the progress thread that owns the registry.
pub type Poster = std::sync::Arc<dyn Fn(Box<dyn FnOnce() + Send>) + Send + Sync>;

/// One notification walking its chain.
pub struct Chain {
    handlers: Vec<Handler>,
    next: usize,
    status: pmix_status_t,
    source: pmix_proc_t,
    info: (*mut pmix_info_t, usize),
    /// The event's infos, for a handler that gets its return object among them.
    infos: Vec<Info>,
    /// The C infos given to the current handler when they differ from `info`.
    call_info: (*mut pmix_info_t, usize),
    results: Vec<Info>,
    /// The C copy of `results` given to the current handler.
    results_c: (*mut pmix_info_t, usize),
    post: Poster,
    /// Run once the chain is done (the last handler answered, or one
    /// answered PMIX_EVENT_ACTION_COMPLETE): a local notification's own
    /// callback, which OpenPMIx fires only then.
    finally: Option<Box<dyn FnOnce() + Send>>,
}

// SAFETY: the chain owns its C arrays; it moves between threads only as a whole.
unsafe impl Send for Chain {}

impl Drop for Chain {
    fn drop(&mut self) {
        if let Some(f) = self.finally.take() {
            f();
        }
        // SAFETY: both arrays came from infos_to_c.
        unsafe {
            free_c_infos(self.info.0, self.info.1);
            free_c_infos(self.call_info.0, self.call_info.1);
            free_c_infos(self.results_c.0, self.results_c.1);
        }
    }
}

/// Start delivering an event to `handlers` (on the progress thread).
pub fn notify(handlers: Vec<Handler>, status: pmix_status_t, source: &Proc, info: &[Info], post: Poster) {
    notify_then(handlers, status, source, info, post, None)
}

/// `notify`, then `finally` once the chain is done (at once when no handler
/// matches).
pub fn notify_then(handlers: Vec<Handler>, status: pmix_status_t, source: &Proc, info: &[Info], post: Poster, finally: Option<Box<dyn FnOnce() + Send>>) {
    if handlers.is_empty() {
        if let Some(f) = finally {
            f();
        }
        return;
    }
    let chain = Box::new(Chain {
        handlers,
        next: 0,
        status,
        source: source.to_c(),
        info: infos_to_c(info),
        infos: info.to_vec(),
        call_info: (core::ptr::null_mut(), 0),
        results: Vec::new(),
        results_c: (core::ptr::null_mut(), 0),
        post,
        finally,
    });
    run_next(chain);
}

fn run_next(mut chain: Box<Chain>) {
    while chain.next < chain.handlers.len() {
        let h = chain.handlers[chain.next].clone();
        chain.next += 1;
        let Some(f) = h.func else { continue };
        // SAFETY: previous C copy of the results is no longer referenced.
        unsafe { free_c_infos(chain.results_c.0, chain.results_c.1) };
        chain.results_c = infos_to_c(&chain.results);
        // SAFETY: the previous handler's copy is no longer referenced.
        unsafe { free_c_infos(chain.call_info.0, chain.call_info.1) };
        chain.call_info = (core::ptr::null_mut(), 0);
        let mut info = chain.info;
        if h.return_object != 0 {
            let mut with = chain.infos.clone();
            with.push(Info::new("pmix.evobject", crate::owned::Value::pointer(h.return_object as *mut c_void)));
            chain.call_info = infos_to_c(&with);
            info = chain.call_info;
        }
        let (status, src, (ip, ni), (rp, nr)) = (chain.status, chain.source, info, chain.results_c);
        let raw = Box::into_raw(chain);
        crate::pmix_debug!(10, "event {status}: calling handler {}", h.id);
        // SAFETY: the handler gets pointers owned by the chain, which stays
        // alive until the handler calls back (`raw` is reclaimed there).
        unsafe {
            f(h.id, status, &src, ip, ni, rp, nr, Some(handler_done), raw as *mut c_void);
        }
        return;
    }
}

/// The `pmix_event_notification_cbfunc_fn_t` handed to each handler.
///
/// # Safety
/// Called by an event handler with the `cbdata` this library gave it (a live chain step), and `results` valid for `nresults` during the call.
unsafe extern "C" fn handler_done(
    status: pmix_status_t,
    results: *mut pmix_info_t,
    nresults: usize,
    cbfunc: pmix_op_cbfunc_t,
    thiscbdata: *mut c_void,
    notification_cbdata: *mut c_void,
) {
    crate::guard::catch("handler_done", || {
        // SAFETY: the caller upholds the contract above: Called by an event handler with the `cbdata` this library gave it (a live chain step), and `results` valid for `nresults` during the call.
        unsafe {
            if notification_cbdata.is_null() {
                return;
            }
            // SAFETY: notification_cbdata is the chain leaked in run_next, returned once.
            let mut chain = Box::from_raw(notification_cbdata as *mut Chain);
            // SAFETY: the handler's results array is valid for this call.
            if let Ok(mut r) = Info::copy_array(results, nresults) {
                chain.results.append(&mut r);
            }
            if let Some(cb) = cbfunc {
                // The handler's own results may be released now that we copied them.
                cb(PMIX_SUCCESS, thiscbdata);
            }
            if status == PMIX_EVENT_ACTION_COMPLETE {
                return;
            }
            let post = chain.post.clone();
            post(Box::new(move || run_next(chain)));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::Value;

    unsafe extern "C" fn nothing(
        _: usize,
        _: pmix_status_t,
        _: *const pmix_proc_t,
        _: *mut pmix_info_t,
        _: usize,
        _: *mut pmix_info_t,
        _: usize,
        _: pmix_event_notification_cbfunc_fn_t,
        _: *mut c_void,
    ) {
    }

    #[test]
    fn affected_procs_given_at_registration_filter_events() {
        let mut r = Registry::new();
        let mine = Proc::wildcard("tool.1");
        let only_mine = r.register(vec![PMIX_EVENT_JOB_END], &[Info::new("pmix.evproc", Value::proc(&mine))], Some(nothing));
        let any = r.register(vec![PMIX_EVENT_JOB_END], &[], Some(nothing));
        let ids = |info: &[Info]| r.chain_for(PMIX_EVENT_JOB_END, info).iter().map(|h| h.id).collect::<Vec<_>>();
        // Another job's end: only the handler with no interest named hears it.
        assert_eq!(ids(&[Info::new("pmix.evproc", Value::proc(&Proc::wildcard("job.2")))]), vec![any]);
        // One rank of its job: a wildcard registration matches it.
        assert_eq!(ids(&[Info::new("pmix.evproc", Value::proc(&Proc::new("tool.1", 3)))]), vec![only_mine, any]);
        // An event that names no proc reaches both, as with OpenPMIx.
        assert_eq!(ids(&[]), vec![only_mine, any]);
    }
}
