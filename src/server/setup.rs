//! Resource-manager setup (the network-support RFC): pluggable backends that
//! precondition an application (PMIx_server_setup_application), prepare the
//! local node (PMIx_server_setup_local_support), add to every child's
//! environment (PMIx_server_setup_fork), and clean up after each child and
//! after each application.
//!
//! Backends are selected with `PMIX_MCA_pnet` (comma list; `^name` excludes;
//! default: all built-in ones but `test`). Built in:
//! - `transport`: a job-unique 128-bit key per application, given to every
//!   rank as `OMPI_MCA_orte_precondition_transports` (what PSM/PSM2/OFI read)
//!   and as the job-level key `rpmix.transport.key`;
//! - `env`: forwards the server's own `PMIX_MCA_*` settings to the application;
//! - `test`: records every hook call, one line each, in the file named by
//!   `RPMIX_PNET_TEST_LOG` (for the test suite).
//!
//! Environment directives (PMIX_SET_ENVAR, _ADD_, _UNSET_, _PREPEND_,
//! _APPEND_) that the host passes to register_nspace are applied by
//! setup_fork to each child's environment here, in the library, so every
//! host gets them right (the RFC leaves it to the RM; OpenPMIx never does it).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use crate::abi::*;
use crate::cmem::EnvOp;
use crate::status::Res;
use crate::forksafe::Published;
use crate::owned::{Info, Proc, Value};

/// The hooks of a network-support backend.
pub trait Backend: Send + Sync {
    fn name(&self) -> &'static str;
    /// Head node, once per application: infos for the launch message.
    fn setup_application(&self, _nspace: &str, _info: &[Info]) -> Res<Vec<Info>> {
        Ok(Vec::new())
    }
    /// This node, before any local process of `nspace` is forked.
    fn setup_local(&self, _nspace: &str, _info: &[Info]) -> Res {
        Ok(())
    }
    /// Extra environment for one child.
    fn child_env(&self, _proc: &Proc) -> Vec<EnvOp> {
        Vec::new()
    }
    fn child_finalized(&self, _proc: &Proc) {}
    fn app_finalized(&self, _nspace: &str) {}
}

fn envar_info(key: &str, name: &str, value: &str, sep: char) -> Info {
    let n = crate::owned::c_string(name);
    let v = crate::owned::c_string(value);
    let e = pmix_envar_t { envar: n.as_ptr() as *mut _, value: v.as_ptr() as *mut _, separator: sep as core::ffi::c_char };
    // SAFETY: e points at live strings; load copies them.
    let val = unsafe { Value::load(&e as *const pmix_envar_t as *const core::ffi::c_void, PMIX_ENVAR) }.expect("out of memory");
    Info::new(key, val)
}

struct Transport;
impl Backend for Transport {
    fn name(&self) -> &'static str {
        "transport"
    }
    fn setup_application(&self, _nspace: &str, _info: &[Info]) -> Res<Vec<Info>> {
        let mut k = [0u8; 16];
        // SAFETY: getrandom fills the buffer.
        let n = unsafe { libc::getrandom(k.as_mut_ptr() as *mut libc::c_void, k.len(), 0) };
        if n != 16 {
            return Err(PMIX_ERR_OUT_OF_RESOURCE);
        }
        let hi = u64::from_be_bytes(k[..8].try_into().unwrap());
        let lo = u64::from_be_bytes(k[8..].try_into().unwrap());
        let key = format!("{hi:016x}-{lo:016x}");
        Ok(vec![
            envar_info("pmix.envar.set", "OMPI_MCA_orte_precondition_transports", &key, ':'),
            Info::new("rpmix.transport.key", Value::string(&key)),
        ])
    }
}

struct Env;
impl Backend for Env {
    fn name(&self) -> &'static str {
        "env"
    }
    fn setup_application(&self, _nspace: &str, _info: &[Info]) -> Res<Vec<Info>> {
        let mut v: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with("PMIX_MCA_") && k != "PMIX_MCA_pnet").collect();
        v.sort();
        Ok(v.iter().map(|(k, val)| envar_info("pmix.envar.set", k, val, ':')).collect())
    }
}

struct Recorder {
    path: String,
}
impl Recorder {
    fn log(&self, line: &str) {
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&self.path) {
            let _ = writeln!(f, "{line}");
        }
    }
}
impl Backend for Recorder {
    fn name(&self) -> &'static str {
        "test"
    }
    fn setup_application(&self, nspace: &str, info: &[Info]) -> Res<Vec<Info>> {
        self.log(&format!("setup_application {nspace} {}", info.len()));
        Ok(vec![Info::new("rpmix.test.marker", Value::string(nspace))])
    }
    fn setup_local(&self, nspace: &str, _info: &[Info]) -> Res {
        self.log(&format!("setup_local {nspace}"));
        Ok(())
    }
    fn child_env(&self, proc: &Proc) -> Vec<EnvOp> {
        self.log(&format!("child_env {proc}"));
        vec![EnvOp::Set("RPMIX_PNET_TEST".into(), proc.to_string())]
    }
    fn child_finalized(&self, proc: &Proc) {
        self.log(&format!("child_finalized {proc}"));
    }
    fn app_finalized(&self, nspace: &str) {
        self.log(&format!("app_finalized {nspace}"));
    }
}

const BUILTIN: [&str; 3] = ["transport", "env", "test"];

fn make(name: &str) -> Option<Box<dyn Backend>> {
    match name {
        "transport" => Some(Box::new(Transport)),
        "env" => Some(Box::new(Env)),
        "test" => Some(Box::new(Recorder { path: std::env::var("RPMIX_PNET_TEST_LOG").unwrap_or_else(|_| "/dev/null".into()) })),
        _ => None,
    }
}

/// The backends named by a `PMIX_MCA_pnet`-style selection (None = default).
pub fn select(spec: Option<&str>) -> Res<Vec<Box<dyn Backend>>> {
    let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(BUILTIN.iter().filter(|n| **n != "test").filter_map(|n| make(n)).collect());
    };
    let (exclude, list) = match spec.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let names: Vec<&str> = list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if let Some(bad) = names.iter().find(|n| !BUILTIN.contains(n)) {
        crate::pmix_debug!(1, "PMIX_MCA_pnet: unknown network backend '{bad}' (known: {})", BUILTIN.join(", "));
        return Err(PMIX_ERR_NOT_FOUND);
    }
    Ok(if exclude {
        BUILTIN.iter().filter(|n| **n != "test" && !names.contains(n)).filter_map(|n| make(n)).collect()
    } else {
        names.iter().filter_map(|n| make(n)).collect()
    })
}

/// What setup_fork needs, published for lock-free reads (a host may call
/// setup_fork in a fork child): the server's own variables, its backends, and
/// the environment edits registered per namespace.
#[derive(Clone)]
pub struct Setup {
    fork_vars: Vec<(String, String)>,
    /// The key of the ranks' connection credentials (credential.rs).
    cred_key: Option<super::credential::Key>,
    backends: Arc<Vec<Box<dyn Backend>>>,
    env: HashMap<String, Vec<EnvOp>>,
}

static SETUP: Published<Setup> = Published::new();

/// At server init: the backends and the variables every child gets.
pub fn start(backends: Vec<Box<dyn Backend>>, fork_vars: Vec<(String, String)>, cred_key: Option<super::credential::Key>) {
    SETUP.update(|_| Some(Setup { fork_vars, cred_key, backends: Arc::new(backends), env: HashMap::new() }));
}

pub fn stop() {
    SETUP.update(|_| None);
}

fn with<R>(f: impl FnOnce(&Setup) -> R) -> Option<R> {
    SETUP.read(|s| s.map(f))
}

/// Names of the active backends (for logs and tests).
pub fn active() -> Vec<&'static str> {
    with(|s| s.backends.iter().map(|b| b.name()).collect()).unwrap_or_default()
}

pub fn setup_application(nspace: &str, info: &[Info]) -> Res<Vec<Info>> {
    let run = |backends: &[Box<dyn Backend>]| -> Res<Vec<Info>> {
        let mut out = Vec::new();
        for b in backends {
            out.extend(b.setup_application(nspace, info)?);
        }
        Ok(out)
    };
    // In a process that started no server (a launcher tool), the backends
    // PMIX_MCA_pnet selects answer all the same, as OpenPMIx's do there.
    with(|s| run(&s.backends)).unwrap_or_else(|| run(&select(std::env::var("PMIX_MCA_pnet").ok().as_deref())?))
}

pub fn setup_local(nspace: &str, info: &[Info]) -> Res {
    with(|s| {
        for b in s.backends.iter() {
            b.setup_local(nspace, info)?;
        }
        Ok(())
    })
    .unwrap_or(Err(PMIX_ERR_INIT))
}

pub fn child_finalized(proc: &Proc) {
    with(|s| s.backends.iter().for_each(|b| b.child_finalized(proc)));
}

pub fn app_finalized(nspace: &str) {
    with(|s| s.backends.iter().for_each(|b| b.app_finalized(nspace)));
    SETUP.update(|s| {
        let mut s = s?.clone();
        s.env.remove(nspace);
        Some(s)
    });
}

/// The string form `NAME=VALUE` of an envar directive.
fn split_assign(s: &str) -> Option<(String, String)> {
    let (k, v) = s.split_once('=')?;
    (!k.is_empty() && !k.contains('\0')).then(|| (k.to_string(), v.to_string()))
}

/// An envar directive's (name, value, separator): a PMIX_ENVAR, or a
/// "NAME=VALUE" string (separator ':').
fn envar_of(i: &Info) -> Res<(String, String, char)> {
    let v = i.value_ref();
    match v.r#type {
        PMIX_ENVAR => {
            // SAFETY: a PMIX_ENVAR value holds an inline envar.
            let e = unsafe { &v.data.envar };
            // SAFETY: strings of the envar are NULL or C strings.
            let name = unsafe { crate::cmem::cstr_bytes(e.envar) }.map(|b| String::from_utf8_lossy(b).into_owned());
            // SAFETY: as above.
            let val = unsafe { crate::cmem::cstr_bytes(e.value) }.map(|b| String::from_utf8_lossy(b).into_owned());
            match (name, val) {
                (Some(n), Some(val)) if !n.is_empty() && !n.contains('=') => {
                    let sep = if e.separator == 0 { ':' } else { e.separator as u8 as char };
                    Ok((n, val, sep))
                }
                _ => Err(PMIX_ERR_BAD_PARAM),
            }
        }
        PMIX_STRING => {
            let s = i.as_str().ok_or(PMIX_ERR_BAD_PARAM)?;
            let (k, val) = split_assign(&s).ok_or(PMIX_ERR_BAD_PARAM)?;
            Ok((k, val, ':'))
        }
        _ => Err(PMIX_ERR_BAD_PARAM),
    }
}

/// Split register_nspace's info into environment edits and everything else.
/// A malformed envar directive fails the whole registration.
pub fn take_env_directives(info: Vec<Info>) -> Res<(Vec<EnvOp>, Vec<Info>)> {
    let mut ops = Vec::new();
    let mut rest = Vec::new();
    for i in info {
        let op = if i.is(PMIX_SET_ENVAR) {
            let (k, v, _) = envar_of(&i)?;
            Some(EnvOp::Set(k, v))
        } else if i.is(PMIX_ADD_ENVAR) {
            let (k, v, _) = envar_of(&i)?;
            Some(EnvOp::Add(k, v))
        } else if i.is(PMIX_UNSET_ENVAR) {
            // A variable name (a string), or a PMIX_ENVAR whose name is used.
            let name = if i.value_ref().r#type == PMIX_STRING {
                i.as_str().filter(|s| !s.is_empty() && !s.contains('='))
            } else {
                envar_of(&i).ok().map(|(k, _, _)| k)
            };
            let Some(name) = name else {
                crate::pmix_debug!(1, "register_nspace: malformed PMIX_UNSET_ENVAR");
                return Err(PMIX_ERR_BAD_PARAM);
            };
            Some(EnvOp::Unset(name))
        } else if i.is(PMIX_PREPEND_ENVAR) {
            let (k, v, s) = envar_of(&i)?;
            Some(EnvOp::Prepend(k, v, s))
        } else if i.is(PMIX_APPEND_ENVAR) {
            let (k, v, s) = envar_of(&i)?;
            Some(EnvOp::Append(k, v, s))
        } else {
            None
        };
        match op {
            Some(o) => ops.push(o),
            None => rest.push(i),
        }
    }
    Ok((ops, rest))
}

pub fn set_env_ops(nspace: &str, ops: Vec<EnvOp>) {
    SETUP.update(|s| {
        let mut s = s?.clone();
        s.env.insert(nspace.to_string(), ops);
        Some(s)
    });
}

/// A child's variables to set, then the edits to apply.
pub type ChildEnv = (Vec<(String, String)>, Vec<EnvOp>);

/// The environment of one child (PMIx_server_setup_fork): the server's
/// variables to set, then the edits (the namespace's directives, then the
/// backends'). Takes no lock and needs no other thread, so a host may call it
/// in a fork child; it asks nothing of the registration of `proc` (OpenPMIx
/// does not either: hosts call it before PMIx_server_register_client).
pub fn child_env(proc: &Proc) -> Res<ChildEnv> {
    with(|s| {
        let mut vars = vec![("PMIX_NAMESPACE".to_string(), proc.nspace.clone()), ("PMIX_RANK".to_string(), proc.rank.to_string())];
        vars.extend(s.fork_vars.iter().cloned());
        if let Some(k) = &s.cred_key {
            vars.push((super::credential::ENV.to_string(), k.token(proc)));
        }
        let mut ops = s.env.get(&proc.nspace).cloned().unwrap_or_default();
        for b in s.backends.iter() {
            ops.extend(b.child_env(proc));
        }
        (vars, ops)
    })
    .ok_or(PMIX_ERR_INIT)
}

/// Apply edits to a list of (name, value).
pub fn apply(env: &mut Vec<(String, String)>, ops: &[EnvOp]) {
    for op in ops {
        match op {
            EnvOp::Set(k, v) => {
                env.retain(|(n, _)| n != k);
                env.push((k.clone(), v.clone()));
            }
            EnvOp::Add(k, v) => {
                if !env.iter().any(|(n, _)| n == k) {
                    env.push((k.clone(), v.clone()));
                }
            }
            EnvOp::Unset(k) => env.retain(|(n, _)| n != k),
            EnvOp::Prepend(k, v, s) | EnvOp::Append(k, v, s) => {
                let prepend = matches!(op, EnvOp::Prepend(..));
                match env.iter_mut().find(|(n, _)| n == k) {
                    Some((_, cur)) if !cur.is_empty() => {
                        *cur = if prepend { format!("{v}{s}{cur}") } else { format!("{cur}{s}{v}") };
                    }
                    Some((_, cur)) => *cur = v.clone(),
                    None => env.push((k.clone(), v.clone())),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection() {
        assert_eq!(select(None).unwrap().iter().map(|b| b.name()).collect::<Vec<_>>(), vec!["transport", "env"]);
        assert_eq!(select(Some("test")).unwrap().iter().map(|b| b.name()).collect::<Vec<_>>(), vec!["test"]);
        assert_eq!(select(Some("^env")).unwrap().iter().map(|b| b.name()).collect::<Vec<_>>(), vec!["transport"]);
        assert_eq!(select(Some("transport,nosuch")).err(), Some(PMIX_ERR_NOT_FOUND));
    }

    #[test]
    fn directives_apply_in_order() {
        let info = vec![
            envar_info("pmix.envar.set", "A", "1", ':'),
            Info::new("pmix.envar.unset", Value::string("B")),
            envar_info("pmix.envar.prepnd", "PATH", "/opt/bin", ':'),
            envar_info("pmix.envar.appnd", "LIST", "z", ','),
            Info::new("pmix.envar.set", Value::string("C=3")),
            Info::new("pmix.job.size", Value::u32(2)),
        ];
        let (ops, rest) = take_env_directives(info).unwrap();
        assert_eq!(rest.len(), 1);
        let mut env = vec![("B".into(), "x".into()), ("PATH".into(), "/usr/bin".into()), ("LIST".into(), "a".into())];
        apply(&mut env, &ops);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("A").as_deref(), Some("1"));
        assert_eq!(get("B"), None);
        assert_eq!(get("PATH").as_deref(), Some("/opt/bin:/usr/bin"));
        assert_eq!(get("LIST").as_deref(), Some("a,z"));
        assert_eq!(get("C").as_deref(), Some("3"));
    }

    #[test]
    fn malformed_directives_are_refused() {
        assert_eq!(take_env_directives(vec![Info::new("pmix.envar.set", Value::string("no-equals"))]).err(), Some(PMIX_ERR_BAD_PARAM));
        assert_eq!(take_env_directives(vec![Info::new("pmix.envar.prepnd", Value::u32(1))]).err(), Some(PMIX_ERR_BAD_PARAM));
        assert_eq!(take_env_directives(vec![Info::new("pmix.envar.unset", Value::string("A=1"))]).err(), Some(PMIX_ERR_BAD_PARAM));
    }

    #[test]
    fn transport_keys_differ_between_applications() {
        let t = Transport;
        let a = t.setup_application("a", &[]).unwrap();
        let b = t.setup_application("b", &[]).unwrap();
        assert_ne!(a[1].as_str(), b[1].as_str());
        assert_eq!(a[1].as_str().unwrap().len(), 33);
    }
}
