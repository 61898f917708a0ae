//! The server's upcalls to its host, behind one trait with two
//! implementations: the C `pmix_server_module_t` table (`cmodule.rs`) and
//! pmixrun's Rust host. The core never calls a C function pointer itself.
//!
//! Every upcall returns `Upcall::Pending` (the host will call `done` exactly
//! once, from any thread) or `Upcall::Now(status)` (finished; `done` was
//! dropped unused). A host that does not provide an upcall answers
//! `Now(PMIX_ERR_NOT_SUPPORTED)`: the default of every method.

use crate::abi::*;
use crate::data::carray::CArray;
use crate::owned::{Info, Proc};

pub enum Upcall {
    Pending,
    Now(pmix_status_t),
}

pub type Done = Box<dyn FnOnce(pmix_status_t) + Send>;
pub type DoneData = Box<dyn FnOnce(pmix_status_t, Vec<u8>) + Send>;
pub type DoneInfos = Box<dyn FnOnce(pmix_status_t, Vec<Info>) + Send>;
pub type DoneLookup = Box<dyn FnOnce(pmix_status_t, Vec<(Proc, Info)>) + Send>;
pub type DoneSpawn = Box<dyn FnOnce(pmix_status_t, String) + Send>;
/// A credential's bytes and the infos that describe it.
pub type DoneCredential = Box<dyn FnOnce(pmix_status_t, Vec<u8>, Vec<Info>) + Send>;

/// What the server may ask of its host. Defaults: not supported.
#[allow(unused_variables)]
pub trait Host: Send {
    /// A client finished its first PMIx_Init. The answer is final (no callback).
    fn client_connected(&mut self, proc: &Proc, server_object: usize) -> pmix_status_t {
        PMIX_SUCCESS
    }
    /// A client's last PMIx_Finalize: its finalize is acknowledged only after this completes.
    fn client_finalized(&mut self, proc: &Proc, server_object: usize, done: Done) -> Upcall {
        Upcall::Now(PMIX_SUCCESS)
    }
    fn abort(&mut self, proc: &Proc, server_object: usize, status: i32, msg: &str, procs: &[Proc], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// A fence with participants outside this server; `data` is this server's
    /// self-delimiting blob; the answer is the concatenation of all servers' blobs.
    fn fence_nb(&mut self, procs: &[Proc], info: &[Info], data: Vec<u8>, done: DoneData) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn direct_modex(&mut self, proc: &Proc, info: &[Info], done: DoneData) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn publish(&mut self, proc: &Proc, info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn lookup(&mut self, proc: &Proc, keys: &[String], info: &[Info], done: DoneLookup) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn unpublish(&mut self, proc: &Proc, keys: &[String], info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn spawn(&mut self, proc: &Proc, job_info: &[Info], apps: &CArray, done: DoneSpawn) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn connect(&mut self, procs: &[Proc], info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn disconnect(&mut self, procs: &[Proc], info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn register_events(&mut self, codes: &[pmix_status_t], info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn deregister_events(&mut self, codes: &[pmix_status_t], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// A tool connects; the host may name it (done(status, Some(proc))).
    fn tool_connected(&mut self, info: &[Info], done: Box<dyn FnOnce(pmix_status_t, Option<Proc>) + Send>) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// A tool's connection ended (whether it finalized or not): a launcher
    /// ends or releases what the tool left behind. Rust hosts only.
    fn tool_disconnected(&mut self, tool: &Proc) {}
    /// Someone pulls output of these procs/channels the server has not asked for yet.
    fn iof_pull(&mut self, procs: &[Proc], directives: &[Info], channels: pmix_iof_channel_t, done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// Data for the stdin of `targets` (from PMIx_IOF_push); empty + complete closes it.
    fn push_stdin(&mut self, source: &Proc, targets: &[Proc], directives: &[Info], data: Option<&[u8]>, done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// Job-control requests (pause, resume, kill, signal, checkpoint, ...).
    fn job_control(&mut self, requestor: &Proc, targets: &[Proc], directives: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// A group construct / destruct with members on other servers (this
    /// server's members have all arrived); the answer may carry
    /// PMIX_GROUP_CONTEXT_ID.
    fn group(&mut self, op: pmix_group_operation_t, name: &str, procs: &[Proc], directives: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// Monitoring requests; without this upcall the server monitors itself.
    fn monitor(&mut self, requestor: &Proc, monitor: &Info, error: pmix_status_t, directives: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    /// The server's own monitor raised an alert for `proc` (the application did
    /// not ask to handle it itself): the host decides what to do.
    fn monitor_alert(&mut self, proc: &Proc, error: pmix_status_t, id: Option<&str>) {}
    /// PMIx_Session_control (PMIx 5's session_control upcall; the C table of
    /// 4.2.2 has no such slot, so C hosts never get it): pause, resume,
    /// terminate, signal, ... every job of session `session`.
    fn session_control(&mut self, requestor: &Proc, session: u32, directives: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn allocate(&mut self, proc: &Proc, directive: pmix_alloc_directive_t, data: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn notify_event(&mut self, code: pmix_status_t, source: &Proc, range: pmix_data_range_t, info: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn query(&mut self, proc: &Proc, queries: &CArray, done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn log(&mut self, proc: &Proc, data: &[Info], directives: &[Info], done: Done) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn get_credential(&mut self, proc: &Proc, directives: &[Info], done: DoneCredential) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
    fn validate_credential(&mut self, proc: &Proc, cred: &[u8], directives: &[Info], done: DoneInfos) -> Upcall {
        Upcall::Now(PMIX_ERR_NOT_SUPPORTED)
    }
}
