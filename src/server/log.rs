//! PMIx_Log channels the server writes itself when its host has no `log`
//! upcall (Slurm has none), as OpenPMIx does: stdout, stderr and syslog. A
//! request none of whose channels is one of these answers NOT_SUPPORTED.

use std::io::Write;

use crate::abi::*;
use crate::owned::{find, Info, Proc};

/// The text of a log entry: a string, or a byte object's bytes.
pub fn text_of(i: &Info) -> Option<Vec<u8>> {
    if let Some(s) = i.as_str() {
        return Some(s.into_bytes());
    }
    let v = i.value_ref();
    if v.r#type == PMIX_BYTE_OBJECT {
        // SAFETY: a byte object value.
        let b = unsafe { crate::data::value::bo_slice(&v.data.bo) }.ok()?;
        return Some(b.to_vec());
    }
    None
}

enum Channel {
    Stdout,
    Stderr,
    Syslog,
}

fn channel_of(i: &Info) -> Option<Channel> {
    if i.is(PMIX_LOG_STDOUT) {
        Some(Channel::Stdout)
    } else if i.is(PMIX_LOG_STDERR) {
        Some(Channel::Stderr)
    } else if i.is(PMIX_LOG_SYSLOG) || i.is(PMIX_LOG_LOCAL_SYSLOG) || i.is(PMIX_LOG_GLOBAL_SYSLOG) {
        // Global syslog means the gateway's; without a host to reach it,
        // this node's syslog is the nearest.
        Some(Channel::Syslog)
    } else {
        None
    }
}

/// Write `data` to the channels it names. `source` tags the line when the
/// directives ask for it (PMIX_LOG_TAG_OUTPUT); PMIX_LOG_TIMESTAMP_OUTPUT
/// prefixes the time; PMIX_LOG_ONCE stops after the first channel written.
pub fn write_locally(source: &Proc, data: &[Info], directives: &[Info]) -> pmix_status_t {
    let tag = find(directives, PMIX_LOG_TAG_OUTPUT).is_some_and(|i| i.truthy());
    let stamp = find(directives, PMIX_LOG_TIMESTAMP_OUTPUT).is_some_and(|i| i.truthy());
    let once = find(directives, PMIX_LOG_ONCE).is_some_and(|i| i.truthy());
    let priority = find(directives, PMIX_LOG_SYSLOG_PRI).and_then(|i| i.as_u32()).map_or(libc::LOG_ERR, |p| p as i32 & 7);
    let mut written = 0;
    for i in data {
        let (Some(ch), Some(text)) = (channel_of(i), text_of(i)) else { continue };
        let mut line = Vec::new();
        if stamp {
            // SAFETY: time(NULL) has no preconditions.
            line.extend(format!("[{}] ", unsafe { libc::time(std::ptr::null_mut()) }).into_bytes());
        }
        if tag {
            line.extend(format!("[{source}] ").into_bytes());
        }
        line.extend(text);
        match ch {
            Channel::Stdout => {
                let _ = std::io::stdout().lock().write_all(&line).and_then(|_| std::io::stdout().flush());
            }
            Channel::Stderr => {
                let _ = std::io::stderr().lock().write_all(&line);
            }
            Channel::Syslog => {
                line.retain(|b| *b != 0);
                let msg = std::ffi::CString::new(line).unwrap_or_default();
                // SAFETY: a constant format with one C-string argument.
                unsafe { libc::syslog(priority, c"%s".as_ptr(), msg.as_ptr()) };
            }
        }
        written += 1;
        if once {
            break;
        }
    }
    if written == 0 {
        crate::pmix_debug!(5, "PMIx_Log from {source}: no stdout, stderr or syslog entry, and the host has no log upcall");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    PMIX_SUCCESS
}
