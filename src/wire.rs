//! The client <-> server protocol: message tags and the contact string.
//!
//! Every frame is `(request id, tag, body)` (see `runtime`). Requests from a
//! client carry a fresh id; the server answers with `REPLY` and the same id;
//! server-initiated messages (events) use id 0. Bodies are encoded with
//! `data::pack` primitives; each handler decodes with bounds checks, and a
//! body that does not decode is answered with an error (or, for the hello,
//! closes the connection).

/// Client -> server.
pub const HELLO: u16 = 1;
pub const FINALIZE: u16 = 2;
pub const ABORT: u16 = 3;
pub const COMMIT: u16 = 4;
pub const FENCE: u16 = 5;
pub const GET: u16 = 6;
pub const PUBLISH: u16 = 7;
pub const LOOKUP: u16 = 8;
pub const UNPUBLISH: u16 = 9;
pub const NOTIFY: u16 = 10;
pub const LOG: u16 = 11;
pub const SPAWN: u16 = 12;
pub const CONNECT: u16 = 13;
pub const DISCONNECT: u16 = 14;
pub const QUERY: u16 = 15;
pub const GET_CRED: u16 = 16;
pub const VALIDATE_CRED: u16 = 17;
pub const REGISTER_EVENTS: u16 = 18;
pub const JOB_CONTROL: u16 = 19;
pub const MONITOR: u16 = 20;
/// A tool's hello: it is not a registered client; the server (or its host) names it.
pub const TOOL_HELLO: u16 = 21;
pub const ALLOCATE: u16 = 22;
pub const DEREGISTER_EVENTS: u16 = 23;
/// A heartbeat: no body, no reply (PMIx_Heartbeat is cheap on both sides).
pub const HEARTBEAT: u16 = 24;
pub const IOF_PULL: u16 = 25;
pub const IOF_DEREG: u16 = 26;
pub const IOF_PUSH: u16 = 27;
/// Group operations: group name, procs, directives; the reply carries infos.
pub const GROUP_CONSTRUCT: u16 = 28;
pub const GROUP_DESTRUCT: u16 = 29;
pub const GROUP_LEAVE: u16 = 30;
/// Invitations: name, invitees, directives / name, [leader], directives, u32 accept.
pub const GROUP_INVITE: u16 = 31;
pub const GROUP_JOIN: u16 = 32;
/// PMIx_Session_control: u32 session id, directives; the reply carries infos.
pub const SESSION_CONTROL: u16 = 33;

/// Server -> client.
pub const REPLY: u16 = 100;
pub const EVENT: u16 = 101;
/// Forwarded output: u32 handle, source proc, u32 channel, blob, u32 complete,
/// source host string, u32 source pid (0: unknown). (Protocol 2.)
pub const IOF: u16 = 102;

/// The environment variable holding a rank's connection credential (given
/// by setup_fork, sent after the rank in the hello: server/credential.rs).
pub const CRED_ENV: &str = "PMIX_RPMIX_CRED";

/// Protocol version carried in the hello; a mismatch is refused.
pub const PROTOCOL: u32 = 3;

/// The pull handle on the output of a job the requester spawned with
/// PMIX_FWD_* (no pull of its own has it: those count up from 1). The
/// requester writes it out as it comes.
pub const SPAWNED_OUTPUT: u32 = u32::MAX;

/// The variable carrying an rpmix server's own contact (its Unix socket) to
/// rpmix's clients; the URI variables below carry the contact OpenPMIx's
/// clients can use (TCP) when the server listens for them.
pub const RPMIX_URI_VAR: &str = "PMIX_RPMIX_URI";

/// Environment variables that carry the server contact to clients (the names
/// OpenPMIx uses, so tools that look for them find a server).
pub const URI_VARS: [&str; 5] =
    ["PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI2", "PMIX_SERVER_URI21"];

/// The rpmix contact in this process's environment: PMIX_RPMIX_URI, else
/// the first URI variable holding an rpmix contact (a server of ours that
/// does not listen for OpenPMIx clients puts it there).
pub fn own_contact_from_env() -> Option<String> {
    std::iter::once(RPMIX_URI_VAR).chain(URI_VARS).filter_map(|v| std::env::var(v).ok()).find(|u| parse_contact(u).is_some())
}

/// `<server nspace>.<server rank>;unix:<socket path>`. No '*' or '[' is added
/// (Open MPI's singleton path splits on them).
pub fn contact(nspace: &str, rank: u32, socket: &str) -> String {
    format!("{nspace}.{rank};unix:{socket}")
}

/// The socket path of a contact string (None when it is not ours).
pub fn parse_contact(uri: &str) -> Option<(String, u32, String)> {
    let (who, addr) = uri.split_once(';')?;
    let path = addr.strip_prefix("unix:")?;
    let (ns, rank) = who.rsplit_once('.')?;
    Some((ns.to_string(), rank.parse().ok()?, path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_round_trip() {
        let c = contact("job.1.x", 0, "/tmp/a b/srv");
        assert_eq!(parse_contact(&c), Some(("job.1.x".into(), 0, "/tmp/a b/srv".into())));
        assert_eq!(parse_contact("ns.0;tcp4://127.0.0.1:5"), None);
    }
}
