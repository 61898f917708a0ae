//! Requests as typed messages: every request a client or tool sends its
//! server is one `Request` variant, its fields declared here once, with two
//! codecs: rpmix's own wire format (`rpmix`, between rpmix processes) and
//! OpenPMIx's ptl commands in v41 pack calls (`v41`, to and from OpenPMIx's
//! clients and servers).
//!
//! The client builds `Request`s and its connection encodes them in the
//! server's codec; the server decodes either codec into the same `Request`
//! and matches on it. Adding a request is a variant here, its two codec
//! arms, the server's arm, and the round-trip test (`tests.rs`).
//!
//! The connection handshakes (`Hello`, `ToolHello`) are here too; replies
//! and events keep the per-request layouts their readers declare.

pub mod rpmix;
pub mod snapshot;
pub mod v41;
#[cfg(test)]
pub(crate) mod tests;

use crate::abi::*;
use crate::data::carray::CArray;
use crate::owned::{find, Info, Proc};

/// Which collective a barrier request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collective {
    Fence,
    Connect,
    Disconnect,
}

/// Which group operation a group request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOp {
    Construct,
    Destruct,
    Leave,
    Invite,
    /// An answer to an invitation (its procs: the leader, if named).
    Join { accept: bool },
}

/// One request from a client or tool to its server.
pub enum Request {
    Finalize,
    Abort { status: pmix_status_t, message: String, procs: Vec<Proc> },
    /// The data put since the last commit, each with its scope.
    Commit { puts: Vec<(pmix_scope_t, Info)> },
    Barrier(Barrier),
    /// `key` empty: everything held for the target.
    Get { target: Proc, key: String, info: Vec<Info> },
    Publish { info: Vec<Info> },
    Lookup { keys: Vec<String>, info: Vec<Info> },
    Unpublish { keys: Vec<String>, info: Vec<Info> },
    Notify { status: pmix_status_t, source: Proc, range: pmix_data_range_t, info: Vec<Info> },
    Log { data: Vec<Info>, directives: Vec<Info> },
    Spawn { job_info: Vec<Info>, apps: CArray },
    Query { queries: CArray },
    GetCredential { info: Vec<Info> },
    ValidateCredential { credential: Vec<u8>, info: Vec<Info> },
    RegisterEvents { codes: Vec<pmix_status_t>, info: Vec<Info> },
    DeregisterEvents { codes: Vec<pmix_status_t> },
    JobControl { targets: Vec<Proc>, directives: Vec<Info> },
    /// PMIx_Session_control (PMIx 5): the session's id and what to do.
    SessionControl { session: u32, directives: Vec<Info> },
    Monitor(Box<Monitor>),
    Allocate { directive: pmix_alloc_directive_t, data: Vec<Info> },
    Heartbeat,
    IofPull(IofPull),
    /// `id`: the server's id of the pull.
    IofDeregister { id: u32 },
    IofPush(IofPush),
    Group(Group),
}

/// A fence, connect or disconnect. `collect` and `timeout` are read from
/// `info` (`Request::barrier`).
pub struct Barrier {
    pub collective: Collective,
    pub procs: Vec<Proc>,
    pub collect: bool,
    pub timeout: u32,
    pub info: Vec<Info>,
}

pub struct Monitor {
    pub monitor: Info,
    pub error: pmix_status_t,
    pub directives: Vec<Info>,
}

pub struct IofPull {
    pub procs: Vec<Proc>,
    pub channels: pmix_iof_channel_t,
    /// The requester's id of the pull (its output is tagged so).
    pub handle: u32,
    pub directives: Vec<Info>,
}

pub struct IofPush {
    pub targets: Vec<Proc>,
    /// None: the end of the input.
    pub data: Option<Vec<u8>>,
    pub directives: Vec<Info>,
}

pub struct Group {
    pub op: GroupOp,
    pub name: String,
    pub procs: Vec<Proc>,
    pub directives: Vec<Info>,
}

impl Request {
    /// A barrier request, its collection and timeout read from its infos.
    pub fn barrier(collective: Collective, procs: Vec<Proc>, info: Vec<Info>) -> Request {
        let collect = find(&info, PMIX_COLLECT_DATA).is_some_and(|i| i.truthy());
        let timeout = find(&info, PMIX_TIMEOUT).and_then(|i| i.as_u32()).unwrap_or(0);
        Request::Barrier(Barrier { collective, procs, collect, timeout, info })
    }

    /// The request's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Finalize => "finalize",
            Request::Abort { .. } => "abort",
            Request::Commit { .. } => "commit",
            Request::Barrier(Barrier { collective: Collective::Fence, .. }) => "fence",
            Request::Barrier(Barrier { collective: Collective::Connect, .. }) => "connect",
            Request::Barrier(Barrier { collective: Collective::Disconnect, .. }) => "disconnect",
            Request::Get { .. } => "get",
            Request::Publish { .. } => "publish",
            Request::Lookup { .. } => "lookup",
            Request::Unpublish { .. } => "unpublish",
            Request::Notify { .. } => "notify",
            Request::Log { .. } => "log",
            Request::Spawn { .. } => "spawn",
            Request::Query { .. } => "query",
            Request::GetCredential { .. } => "get credential",
            Request::ValidateCredential { .. } => "validate credential",
            Request::RegisterEvents { .. } => "register events",
            Request::DeregisterEvents { .. } => "deregister events",
            Request::JobControl { .. } => "job control",
            Request::SessionControl { .. } => "session control",
            Request::Monitor(_) => "monitor",
            Request::Allocate { .. } => "allocate",
            Request::Heartbeat => "heartbeat",
            Request::IofPull(_) => "IOF pull",
            Request::IofDeregister { .. } => "IOF deregister",
            Request::IofPush(_) => "IOF push",
            Request::Group(Group { op: GroupOp::Construct, .. }) => "group construct",
            Request::Group(Group { op: GroupOp::Destruct, .. }) => "group destruct",
            Request::Group(Group { op: GroupOp::Leave, .. }) => "group leave",
            Request::Group(Group { op: GroupOp::Invite, .. }) => "group invite",
            Request::Group(Group { op: GroupOp::Join { .. }, .. }) => "group join",
        }
    }

    /// Whether rpmix's server answers it. Those it does not are applied in
    /// order with the connection's later requests, and nobody waits on them.
    pub fn answered(&self) -> bool {
        !matches!(self, Request::Commit { .. } | Request::RegisterEvents { .. } | Request::DeregisterEvents { .. } | Request::Heartbeat)
    }
}

/// A client's hello: who it says it is (the server checks it against the
/// kernel's credentials), and the credential `setup_fork` gave it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub protocol: u32,
    pub proc: Proc,
    pub token: Option<String>,
}

/// A tool's hello: the name it chose (PMIX_TOOL_NSPACE/RANK), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHello {
    pub protocol: u32,
    pub chosen: Option<Proc>,
}
