//! The `Host` of a C resource manager: its `pmix_server_module_t` table.
//!
//! Arguments handed to an upcall (info arrays, procs, strings) stay alive
//! until the host fires the callback, as the Standard promises. The callback
//! context is reference counted so that a host answering inline, from another
//! thread, or not at all (an error return) is handled without leaks or
//! double frees.

use core::ffi::{c_char, c_void};
use std::ffi::CString;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use parking_lot::Mutex;

use super::host::*;
use crate::data::carray::CArray;
use crate::abi::*;
use crate::owned::{free_c_infos, infos_to_c, Info, Proc};

/// C data kept alive for the duration of one upcall.
#[derive(Default)]
struct Keep {
    infos: Vec<(*mut pmix_info_t, usize)>,
    procs: Vec<Vec<pmix_proc_t>>,
    strings: Vec<CString>,
    ptrs: Vec<Vec<*mut c_char>>,
    bytes: Vec<Vec<u8>>,
    // Boxed: the C side holds pointers to them while the Vec grows.
    #[allow(clippy::vec_box)]
    boxes: Vec<Box<pmix_byte_object_t>>,
}

impl Keep {
    fn infos(&mut self, v: &[Info]) -> (*mut pmix_info_t, usize) {
        let a = infos_to_c(v);
        self.infos.push(a);
        a
    }
    fn procs(&mut self, v: &[Proc]) -> (*const pmix_proc_t, usize) {
        let p: Vec<pmix_proc_t> = v.iter().map(|p| p.to_c()).collect();
        let r = (if p.is_empty() { core::ptr::null() } else { p.as_ptr() }, p.len());
        self.procs.push(p);
        r
    }
    fn proc(&mut self, p: &Proc) -> *const pmix_proc_t {
        self.procs(std::slice::from_ref(p)).0
    }
    fn string(&mut self, s: &str) -> *const c_char {
        let c = crate::owned::c_string(s);
        let p = c.as_ptr();
        self.strings.push(c);
        p
    }
    /// A NULL-terminated argv of `items`.
    fn argv(&mut self, items: &[String]) -> *mut *mut c_char {
        let mut v: Vec<*mut c_char> = items.iter().map(|s| self.string(s) as *mut c_char).collect();
        v.push(core::ptr::null_mut());
        let p = v.as_mut_ptr();
        self.ptrs.push(v);
        p
    }
}

impl Drop for Keep {
    fn drop(&mut self) {
        for (p, n) in self.infos.drain(..) {
            // SAFETY: made by infos_to_c.
            unsafe { free_c_infos(p, n) };
        }
    }
}

// SAFETY: Keep owns all it points to.
unsafe impl Send for Keep {}

struct Ctx<F: ?Sized> {
    done: Box<F>,
    _keep: Keep,
}

/// Upcalls whose callback has not fired yet, by the id handed to the host as
/// cbdata. An id, not a pointer: a host that fires a callback twice, late, or
/// with a stale cbdata finds nothing and is ignored, instead of freeing
/// memory twice.
static PENDING: Mutex<Option<HashMap<usize, Box<dyn Any + Send>>>> = Mutex::new(None);
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// Start an upcall: the id (as a pointer) is the callback's cbdata.
fn ctx<F: ?Sized + Send + 'static>(done: Box<F>, keep: Keep) -> (usize, *mut c_void) {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let c: Box<dyn Any + Send> = Box::new(Ctx { done, _keep: keep });
    PENDING.lock().get_or_insert_with(HashMap::new).insert(id, c);
    (id, id as *mut c_void)
}

fn remove(id: usize) -> Option<Box<dyn Any + Send>> {
    PENDING.lock().as_mut()?.remove(&id)
}

/// After the upcall returned `rc`: SUCCESS means the callback will fire (or
/// already did, inline); the result is queued to the progress thread either way.
fn settle(rc: pmix_status_t, id: usize, _raw: *mut c_void) -> Upcall {
    if rc == PMIX_SUCCESS {
        return Upcall::Pending;
    }
    if remove(id).is_some() {
        // The callback will not fire: the upcall is over.
        Upcall::Now(rc)
    } else {
        Upcall::Pending // it fired inline despite the error return
    }
}

/// Take the completion in a callback (None if it already fired, or never was
/// ours): `cbdata` is only compared as a number, never dereferenced.
fn take<F: ?Sized + Send + 'static>(cbdata: *mut c_void) -> Option<Box<F>> {
    let Some(c) = remove(cbdata as usize) else {
        crate::pmix_debug!(1, "host callback with unknown or already completed cbdata {cbdata:p}: ignored");
        return None;
    };
    match c.downcast::<Ctx<F>>() {
        Ok(c) => Some(c.done),
        Err(_) => {
            crate::pmix_debug!(1, "host callback of the wrong kind for cbdata {cbdata:p}: ignored");
            None
        }
    }
}

/// The host's release function for data it handed to a callback, called
/// later on our progress thread (a thread of its own when there is none),
/// never on the host's stack. A host may hold a lock of its own while it
/// calls our callback and take that lock again in its release function:
/// Slurm's ring fence does (its coll lock, non-recursive), so a release run
/// inline deadlocks the fence across nodes. OpenPMIx thread-shifts these
/// callbacks and releases from its progress thread too. The data is copied
/// before the callback returns, so a later release frees nothing we use.
fn release_later(release_fn: pmix_release_cbfunc_t, release_cbdata: *mut c_void) {
    struct Release(unsafe extern "C" fn(*mut c_void), usize);
    let Some(r) = release_fn else { return };
    let rel = Release(r, release_cbdata as usize);
    crate::runtime::later(super::handle().as_ref(), move || {
        let Release(f, cbdata) = rel;
        // SAFETY: the host's release function with the cbdata it gave us,
        // called once, as the callback contract asks.
        crate::guard::catch("release_fn", || unsafe { f(cbdata as *mut c_void) })
    });
}

type OpF = dyn FnOnce(pmix_status_t) + Send;
type DataF = dyn FnOnce(pmix_status_t, Vec<u8>) + Send;
type InfosF = dyn FnOnce(pmix_status_t, Vec<Info>) + Send;
type LookupF = dyn FnOnce(pmix_status_t, Vec<(Proc, Info)>) + Send;
type SpawnF = dyn FnOnce(pmix_status_t, String) + Send;
type CredF = dyn FnOnce(pmix_status_t, Vec<u8>, Vec<Info>) + Send;

unsafe extern "C" fn op_cb(status: pmix_status_t, cbdata: *mut c_void) {
    crate::guard::catch("op_cb", || {
        if let Some(f) = take::<OpF>(cbdata) {
            f(status);
        }
    })
}

/// The host completes a fence or direct-modex upcall (pmix_modex_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
unsafe extern "C" fn modex_cb(
    status: pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::guard::catch("modex_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
        unsafe {
            let bytes = if data.is_null() || ndata == 0 || ndata > isize::MAX as usize {
                Vec::new()
            } else {
                core::slice::from_raw_parts(data as *const u8, ndata).to_vec()
            };
            release_later(release_fn, release_cbdata);
            if let Some(f) = take::<DataF>(cbdata) {
                f(status, bytes);
            }
        }
    })
}

/// The host completes an upcall answered with infos (pmix_info_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
unsafe extern "C" fn info_cb(
    status: pmix_status_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::guard::catch("info_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
        unsafe {
            let infos = Info::copy_array(info, ninfo).unwrap_or_default();
            release_later(release_fn, release_cbdata);
            if let Some(f) = take::<InfosF>(cbdata) {
                f(status, infos);
            }
        }
    })
}

/// The host completes a lookup upcall (pmix_lookup_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
unsafe extern "C" fn lookup_cb(status: pmix_status_t, data: *mut pmix_pdata_t, ndata: usize, cbdata: *mut c_void) {
    crate::guard::catch("lookup_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
        unsafe {
            let mut out = Vec::new();
            if !data.is_null() {
                for i in 0..ndata {
                    let pd = &*data.add(i);
                    let mut info: pmix_info_t = core::mem::zeroed();
                    info.key = pd.key;
                    if crate::data::value::xfer(&mut info.value, &pd.value, 0).is_ok() {
                        out.push((Proc::from_c(&pd.proc), Info(info)));
                    }
                }
            }
            if let Some(f) = take::<LookupF>(cbdata) {
                f(status, out);
            }
        }
    })
}

/// The host completes a spawn upcall with the new namespace (pmix_spawn_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call. `nspace` is NULL or NUL-terminated.
unsafe extern "C" fn spawn_cb(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void) {
    crate::guard::catch("spawn_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call. `nspace` is NULL or NUL-terminated.
        unsafe {
            let ns = crate::cmem::bounded_cstr(nspace, PMIX_MAX_NSLEN + 1).map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            if let Some(f) = take::<SpawnF>(cbdata) {
                f(status, ns);
            }
        }
    })
}

/// The host completes a get-credential upcall (pmix_credential_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
unsafe extern "C" fn cred_cb(status: pmix_status_t, cred: *mut pmix_byte_object_t, info: *mut pmix_info_t, ninfo: usize, cbdata: *mut c_void) {
    crate::guard::catch("cred_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
        unsafe {
            let bytes = cred.as_ref().and_then(|bo| crate::data::value::bo_slice(bo).ok()).map(|b| b.to_vec()).unwrap_or_default();
            let infos = Info::copy_array(info, ninfo).unwrap_or_default();
            if let Some(f) = take::<CredF>(cbdata) {
                f(status, bytes, infos);
            }
        }
    })
}

type ToolF = dyn FnOnce(pmix_status_t, Option<Proc>) + Send;

/// The host completes a tool-connected upcall with the tool's identity (pmix_tool_connection_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call. `proc` is NULL or a valid proc.
unsafe extern "C" fn tool_cb(status: pmix_status_t, proc: *mut pmix_proc_t, cbdata: *mut c_void) {
    crate::guard::catch("tool_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call. `proc` is NULL or a valid proc.
        unsafe {
            let p = proc.as_ref().map(Proc::from_c);
            if let Some(f) = take::<ToolF>(cbdata) {
                f(status, p);
            }
        }
    })
}

/// The host completes a validate-credential upcall (pmix_validation_cbfunc_t).
///
/// # Safety
/// The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
unsafe extern "C" fn validation_cb(status: pmix_status_t, info: *mut pmix_info_t, ninfo: usize, cbdata: *mut c_void) {
    crate::guard::catch("validation_cb", || {
        // SAFETY: the caller upholds the contract above: The host calls it with the `cbdata` it was given (an id of ours, or a pointer it may have lost track of: the id registry ignores unknown and repeated ones) and with its arrays valid for their counts during the call.
        unsafe {
            let infos = Info::copy_array(info, ninfo).unwrap_or_default();
            if let Some(f) = take::<InfosF>(cbdata) {
                f(status, infos);
            }
        }
    })
}

/// The C module table, copied at PMIx_server_init.
pub struct CModule(pub pmix_server_module_t);

// SAFETY: function pointers of the host; the Standard allows upcalls from the library's thread.
unsafe impl Send for CModule {}

macro_rules! op_upcall {
    ($self:ident, $field:ident, $done:ident, $keep:ident, |$f:ident, $cb:ident, $cbd:ident| $call:expr) => {{
        let Some($f) = $self.0.$field else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let (ours, raw) = ctx::<OpF>($done, $keep);
        let $cb: pmix_op_cbfunc_t = Some(op_cb);
        let $cbd = raw;
        // SAFETY: host function with arguments that live until the callback.
        let rc = unsafe { $call };
        settle(rc, ours, raw)
    }};
}

impl Host for CModule {
    fn client_connected(&mut self, proc: &Proc, server_object: usize) -> pmix_status_t {
        let p = proc.to_c();
        if let Some(f) = self.0.client_connected {
            // SAFETY: OpenPMIx 4.2.2 passes no callback here; the answer is the return value.
            return unsafe { f(&p, server_object as *mut c_void, None, core::ptr::null_mut()) };
        }
        if let Some(f) = self.0.client_connected2 {
            // SAFETY: as above.
            return unsafe { f(&p, server_object as *mut c_void, core::ptr::null_mut(), 0, None, core::ptr::null_mut()) };
        }
        PMIX_SUCCESS
    }

    fn client_finalized(&mut self, proc: &Proc, server_object: usize, done: Done) -> Upcall {
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        op_upcall!(self, client_finalized, done, keep, |f, cb, cbd| f(
            p,
            server_object as *mut c_void,
            cb,
            cbd
        ))
    }

    fn abort(&mut self, proc: &Proc, server_object: usize, status: i32, msg: &str, procs: &[Proc], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let m = keep.string(msg);
        let (pp, np) = keep.procs(procs);
        op_upcall!(self, abort, done, keep, |f, cb, cbd| f(
            p,
            server_object as *mut c_void,
            status,
            m,
            pp as *mut pmix_proc_t,
            np,
            cb,
            cbd
        ))
    }

    fn fence_nb(&mut self, procs: &[Proc], info: &[Info], data: Vec<u8>, done: DoneData) -> Upcall {
        let Some(f) = self.0.fence_nb else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let (pp, np) = keep.procs(procs);
        let (ip, ni) = keep.infos(info);
        // The host takes ownership of the blob (hosts free it, as they must with
        // OpenPMIx): hand over a malloc'd copy and keep no reference to it.
        let (dp, dn) = (crate::cmem::dup_bytes(&data), data.len());
        let (ours, raw) = ctx::<DataF>(done, keep);
        // SAFETY: arguments live in the context until the callback.
        let rc = unsafe { f(pp, np, ip, ni, dp, dn, Some(modex_cb), raw) };
        settle(rc, ours, raw)
    }

    fn direct_modex(&mut self, proc: &Proc, info: &[Info], done: DoneData) -> Upcall {
        let Some(f) = self.0.direct_modex else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(info);
        let (ours, raw) = ctx::<DataF>(done, keep);
        // SAFETY: as above.
        let rc = unsafe { f(p, ip, ni, Some(modex_cb), raw) };
        settle(rc, ours, raw)
    }

    fn publish(&mut self, proc: &Proc, info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(info);
        op_upcall!(self, publish, done, keep, |f, cb, cbd| f(p, ip, ni, cb, cbd))
    }

    fn lookup(&mut self, proc: &Proc, keys: &[String], info: &[Info], done: DoneLookup) -> Upcall {
        let Some(f) = self.0.lookup else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let k = keep.argv(keys);
        let (ip, ni) = keep.infos(info);
        let (ours, raw) = ctx::<LookupF>(done, keep);
        // SAFETY: as above.
        let rc = unsafe { f(p, k, ip, ni, Some(lookup_cb), raw) };
        settle(rc, ours, raw)
    }

    fn unpublish(&mut self, proc: &Proc, keys: &[String], info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let k = keep.argv(keys);
        let (ip, ni) = keep.infos(info);
        op_upcall!(self, unpublish, done, keep, |f, cb, cbd| f(p, k, ip, ni, cb, cbd))
    }

    fn spawn(&mut self, proc: &Proc, job_info: &[Info], apps: &CArray, done: DoneSpawn) -> Upcall {
        let Some(f) = self.0.spawn else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(job_info);
        let a = apps.apps();
        let (ours, raw) = ctx::<SpawnF>(done, keep);
        // SAFETY: `apps` outlives this call; hosts copy what they keep (the Standard's rule).
        let rc = unsafe { f(p, ip, ni, a.as_ptr(), a.len(), Some(spawn_cb), raw) };
        settle(rc, ours, raw)
    }

    fn connect(&mut self, procs: &[Proc], info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let (pp, np) = keep.procs(procs);
        let (ip, ni) = keep.infos(info);
        op_upcall!(self, connect, done, keep, |f, cb, cbd| f(pp, np, ip, ni, cb, cbd))
    }

    fn disconnect(&mut self, procs: &[Proc], info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let (pp, np) = keep.procs(procs);
        let (ip, ni) = keep.infos(info);
        op_upcall!(self, disconnect, done, keep, |f, cb, cbd| f(pp, np, ip, ni, cb, cbd))
    }

    fn register_events(&mut self, codes: &[pmix_status_t], info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let (ip, ni) = keep.infos(info);
        let mut c = codes.to_vec();
        let cp = if c.is_empty() { core::ptr::null_mut() } else { c.as_mut_ptr() };
        let n = c.len();
        let r = op_upcall!(self, register_events, done, keep, |f, cb, cbd| f(cp, n, ip, ni, cb, cbd));
        drop(c);
        r
    }

    fn deregister_events(&mut self, codes: &[pmix_status_t], done: Done) -> Upcall {
        let keep = Keep::default();
        let mut c = codes.to_vec();
        let cp = if c.is_empty() { core::ptr::null_mut() } else { c.as_mut_ptr() };
        let n = c.len();
        let r = op_upcall!(self, deregister_events, done, keep, |f, cb, cbd| f(cp, n, cb, cbd));
        drop(c);
        r
    }

    fn tool_connected(&mut self, info: &[Info], done: Box<ToolF>) -> Upcall {
        let Some(f) = self.0.tool_connected else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let (ip, ni) = keep.infos(info);
        let (_ours, raw) = ctx::<ToolF>(done, keep);
        // SAFETY: the upcall returns nothing: it always calls back.
        unsafe { f(ip, ni, Some(tool_cb), raw) };
        Upcall::Pending
    }

    fn iof_pull(&mut self, procs: &[Proc], directives: &[Info], channels: pmix_iof_channel_t, done: Done) -> Upcall {
        let mut keep = Keep::default();
        let (pp, np) = keep.procs(procs);
        let (ip, ni) = keep.infos(directives);
        op_upcall!(self, iof_pull, done, keep, |f, cb, cbd| f(pp, np, ip, ni, channels, cb, cbd))
    }

    fn push_stdin(&mut self, source: &Proc, targets: &[Proc], directives: &[Info], data: Option<&[u8]>, done: Done) -> Upcall {
        let Some(f) = self.0.push_stdin else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let s = keep.proc(source);
        let (tp, tn) = keep.procs(targets);
        let (ip, ni) = keep.infos(directives);
        keep.bytes.push(data.map(|d| d.to_vec()).unwrap_or_default());
        let bo = Box::new(pmix_byte_object_t { bytes: keep.bytes[0].as_mut_ptr() as *mut c_char, size: keep.bytes[0].len() });
        let bop: *const pmix_byte_object_t = if data.is_some() { &*bo } else { core::ptr::null() };
        keep.boxes.push(bo);
        let (ours, raw) = ctx::<OpF>(done, keep);
        // SAFETY: arguments live in the context until the callback.
        let rc = unsafe { f(s, tp, tn, ip, ni, bop, Some(op_cb), raw) };
        settle(rc, ours, raw)
    }

    fn job_control(&mut self, requestor: &Proc, targets: &[Proc], directives: &[Info], done: DoneInfos) -> Upcall {
        let Some(f) = self.0.job_control else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let r = keep.proc(requestor);
        let (tp, tn) = keep.procs(targets);
        let (ip, ni) = keep.infos(directives);
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: arguments live in the context until the callback.
        let rc = unsafe { f(r, tp, tn, ip, ni, Some(info_cb), raw) };
        settle(rc, ours, raw)
    }

    fn group(&mut self, op: pmix_group_operation_t, name: &str, procs: &[Proc], directives: &[Info], done: DoneInfos) -> Upcall {
        let Some(f) = self.0.group else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let g = keep.string(name);
        let (pp, pn) = keep.procs(procs);
        let (ip, ni) = keep.infos(directives);
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: arguments live in the context until the callback.
        let rc = unsafe { f(op, g as *mut c_char, pp, pn, ip, ni, Some(info_cb), raw) };
        settle(rc, ours, raw)
    }

    fn monitor(&mut self, requestor: &Proc, monitor: &Info, error: pmix_status_t, directives: &[Info], done: DoneInfos) -> Upcall {
        let Some(f) = self.0.monitor else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let r = keep.proc(requestor);
        let (mp, _) = keep.infos(std::slice::from_ref(monitor));
        let (ip, ni) = keep.infos(directives);
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: as above.
        let rc = unsafe { f(r, mp, error, ip, ni, Some(info_cb), raw) };
        settle(rc, ours, raw)
    }

    fn allocate(&mut self, proc: &Proc, directive: pmix_alloc_directive_t, data: &[Info], done: DoneInfos) -> Upcall {
        let Some(f) = self.0.allocate else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(data);
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: as above.
        let rc = unsafe { f(p, directive, ip, ni, Some(info_cb), raw) };
        settle(rc, ours, raw)
    }

    fn notify_event(&mut self, code: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info], done: Done) -> Upcall {
        let mut keep = Keep::default();
        let s = keep.proc(source);
        let (ip, ni) = keep.infos(info);
        op_upcall!(self, notify_event, done, keep, |f, cb, cbd| f(
            code, s, range, ip, ni, cb, cbd
        ))
    }

    fn query(&mut self, proc: &Proc, queries: &CArray, done: DoneInfos) -> Upcall {
        let Some(f) = self.0.query else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc) as *mut pmix_proc_t;
        let q = queries.queries();
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: as for spawn.
        let rc = unsafe { f(p, q.as_ptr() as *mut pmix_query_t, q.len(), Some(info_cb), raw) };
        settle(rc, ours, raw)
    }

    fn log(&mut self, proc: &Proc, data: &[Info], directives: &[Info], done: Done) -> Upcall {
        let Some(f) = self.0.log else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (dp, dn) = keep.infos(data);
        let (ip, ni) = keep.infos(directives);
        let (_ours, raw) = ctx::<OpF>(done, keep);
        // SAFETY: the log upcall returns nothing: it always calls back.
        unsafe { f(p, dp, dn, ip, ni, Some(op_cb), raw) };
        Upcall::Pending
    }

    fn get_credential(&mut self, proc: &Proc, directives: &[Info], done: Box<CredF>) -> Upcall {
        let Some(f) = self.0.get_credential else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(directives);
        let (ours, raw) = ctx::<CredF>(done, keep);
        // SAFETY: as above.
        let rc = unsafe { f(p, ip, ni, Some(cred_cb), raw) };
        settle(rc, ours, raw)
    }

    fn validate_credential(&mut self, proc: &Proc, cred: &[u8], directives: &[Info], done: DoneInfos) -> Upcall {
        let Some(f) = self.0.validate_credential else { return Upcall::Now(PMIX_ERR_NOT_SUPPORTED) };
        let mut keep = Keep::default();
        let p = keep.proc(proc);
        let (ip, ni) = keep.infos(directives);
        keep.bytes.push(cred.to_vec());
        let bo = pmix_byte_object_t { bytes: keep.bytes[0].as_mut_ptr() as *mut c_char, size: keep.bytes[0].len() };
        let bo = Box::new(bo);
        let bop: *const pmix_byte_object_t = &*bo;
        let (ours, raw) = ctx::<InfosF>(done, keep);
        // SAFETY: bo lives until after the call; hosts copy the credential if they keep it.
        let rc = unsafe { f(p, bop, ip, ni, Some(validation_cb), raw) };
        drop(bo);
        settle(rc, ours, raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    // A host like Slurm's ring fence: it calls our callback holding a lock
    // that its release function takes.
    static HOST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    static RELEASED: AtomicBool = AtomicBool::new(false);
    unsafe extern "C" fn host_release(_cbdata: *mut c_void) {
        let _g = HOST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        RELEASED.store(true, Ordering::SeqCst);
    }

    #[test]
    fn modex_release_runs_after_the_hosts_call() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _g = HOST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
            let data = b"blob";
            // SAFETY: valid data for its length; the cbdata is no upcall of
            // ours (ignored), the release function is ours.
            unsafe {
                modex_cb(PMIX_SUCCESS, data.as_ptr() as *const c_char, data.len(), usize::MAX as *mut c_void,
                         Some(host_release), core::ptr::null_mut())
            };
            let _ = tx.send(RELEASED.load(Ordering::SeqCst));
        });
        let inline = rx.recv_timeout(Duration::from_secs(10))
            .expect("modex_cb did not return: the release ran inline, under the host's lock");
        assert!(!inline, "released before the host's call returned");
        let t0 = Instant::now();
        while !RELEASED.load(Ordering::SeqCst) {
            assert!(t0.elapsed() < Duration::from_secs(10), "never released");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
