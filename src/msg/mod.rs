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
//! Replies are typed the same way: the server builds a `Reply` and the
//! connection's codec writes it (rpmix's, `Reply::encode`; OpenPMIx's,
//! `v41::encode_reply`); the client reads rpmix's form back with
//! `Reply::decode`, told what kind of answer its request waits for
//! (`Request::answer_kind`).
//!
//! The connection handshakes (`Hello`, `ToolHello`, and the client's
//! answer, `Welcome`) are here too; events and forwarded output keep the
//! layouts their readers declare.

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

/// One answer of the server to a request. The status comes first in both
/// codecs; a failed request's answer is its status alone whatever it asked
/// for (OpenPMIx's form), and rpmix's reader gives such an answer the
/// variant's empty fields.
#[derive(Clone)]
pub enum Reply {
    /// The status alone.
    Status(pmix_status_t),
    /// A Get's data: what the server holds of `target` (OpenPMIx's form
    /// names the target; rpmix's leaves it to the requester, who knows it).
    Get { status: pmix_status_t, target: Proc, data: Vec<Info> },
    /// Infos: a query's, job control's, a monitor's, an allocation's, a
    /// session control's, a group operation's results.
    Infos { status: pmix_status_t, infos: Vec<Info> },
    /// The publications a lookup found.
    Lookup { status: pmix_status_t, found: Vec<(Proc, Info)> },
    /// A spawn's new namespace (empty: none).
    Spawn { status: pmix_status_t, nspace: String },
    /// The server's id of an IO forwarding pull.
    IofPull { status: pmix_status_t, id: u32 },
    /// A fence's, connect's or disconnect's end: the data collected (each
    /// participant's record with data, and for a connect the job data of
    /// its namespaces). OpenPMIx's form of a connect carries instead the
    /// other namespaces' job data as it was at the connect's arrival,
    /// which the OpenPMIx connection keeps (`v41::encode_reply`).
    Barrier { status: pmix_status_t, collective: Collective, records: Vec<(Proc, Vec<Info>)> },
    /// A credential and the infos describing it.
    Credential { status: pmix_status_t, credential: Vec<u8>, info: Vec<Info> },
    /// A tool's welcome: the server's name and the one the tool goes by.
    ToolWelcome { server: Proc, name: Proc },
    /// OpenPMIx's job data of a client, already in OpenPMIx's form (its
    /// first request after the handshake; rpmix's clients get theirs with
    /// the hello).
    JobData(Vec<u8>),
}

/// What kind of answer a request waits for: what rpmix's reader needs to
/// know to read an answer's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnswerKind {
    Status,
    Get { target: Proc },
    Infos,
    Lookup,
    Spawn,
    IofPull,
    Barrier(Collective),
    Credential,
    ToolWelcome,
    JobData,
}

impl Reply {
    /// The answer's status.
    pub fn status(&self) -> pmix_status_t {
        match self {
            Reply::Status(status)
            | Reply::Get { status, .. }
            | Reply::Infos { status, .. }
            | Reply::Lookup { status, .. }
            | Reply::Spawn { status, .. }
            | Reply::IofPull { status, .. }
            | Reply::Barrier { status, .. }
            | Reply::Credential { status, .. } => *status,
            Reply::ToolWelcome { .. } | Reply::JobData(_) => PMIX_SUCCESS,
        }
    }

    /// The kind of answer it is (the reader's side of it).
    pub fn kind(&self) -> AnswerKind {
        match self {
            Reply::Status(_) => AnswerKind::Status,
            Reply::Get { target, .. } => AnswerKind::Get { target: target.clone() },
            Reply::Infos { .. } => AnswerKind::Infos,
            Reply::Lookup { .. } => AnswerKind::Lookup,
            Reply::Spawn { .. } => AnswerKind::Spawn,
            Reply::IofPull { .. } => AnswerKind::IofPull,
            Reply::Barrier { collective, .. } => AnswerKind::Barrier(*collective),
            Reply::Credential { .. } => AnswerKind::Credential,
            Reply::ToolWelcome { .. } => AnswerKind::ToolWelcome,
            Reply::JobData(_) => AnswerKind::JobData,
        }
    }

    /// The variant of `kind` with `status` and nothing else (a failed
    /// request's answer as rpmix's reader gives it).
    pub fn empty(kind: &AnswerKind, status: pmix_status_t) -> Reply {
        match kind {
            AnswerKind::Status | AnswerKind::ToolWelcome | AnswerKind::JobData => Reply::Status(status),
            AnswerKind::Get { target } => Reply::Get { status, target: target.clone(), data: Vec::new() },
            AnswerKind::Infos => Reply::Infos { status, infos: Vec::new() },
            AnswerKind::Lookup => Reply::Lookup { status, found: Vec::new() },
            AnswerKind::Spawn => Reply::Spawn { status, nspace: String::new() },
            AnswerKind::IofPull => Reply::IofPull { status, id: 0 },
            AnswerKind::Barrier(collective) => Reply::Barrier { status, collective: *collective, records: Vec::new() },
            AnswerKind::Credential => Reply::Credential { status, credential: Vec::new(), info: Vec::new() },
        }
    }

    /// The infos an info-style answer carries (a Get's data, results), else none.
    pub fn into_infos(self) -> Vec<Info> {
        match self {
            Reply::Get { data: infos, .. } | Reply::Infos { infos, .. } | Reply::Credential { info: infos, .. } => infos,
            _ => Vec::new(),
        }
    }
}

impl Request {
    /// The kind of answer the server sends to it.
    pub fn answer_kind(&self) -> AnswerKind {
        match self {
            Request::Get { target, .. } => AnswerKind::Get { target: target.clone() },
            Request::Barrier(b) => AnswerKind::Barrier(b.collective),
            Request::Lookup { .. } => AnswerKind::Lookup,
            Request::Spawn { .. } => AnswerKind::Spawn,
            Request::Query { .. }
            | Request::JobControl { .. }
            | Request::SessionControl { .. }
            | Request::Monitor(_)
            | Request::Allocate { .. }
            | Request::ValidateCredential { .. }
            | Request::Group(_) => AnswerKind::Infos,
            Request::GetCredential { .. } => AnswerKind::Credential,
            Request::IofPull(_) => AnswerKind::IofPull,
            _ => AnswerKind::Status,
        }
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

/// The server's answer to a client's hello: its name, and the client's job
/// data as records (a rank, or the job level as the wildcard rank, with its
/// infos encoded once, `Nspace::records`): every record of the namespace,
/// or, when `mapped`, only the client's own, the others being in the sealed
/// snapshot passed with the answer (`snapshot`). A refusal is a status
/// alone (`Reply::Status`).
pub struct Welcome<'a> {
    pub server: Proc,
    pub records: Vec<(pmix_rank_t, &'a [u8])>,
    pub mapped: bool,
}

/// A tool's hello: the name it chose (PMIX_TOOL_NSPACE/RANK), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHello {
    pub protocol: u32,
    pub chosen: Option<Proc>,
}
