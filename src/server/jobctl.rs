//! What processes register about themselves through PMIx_Job_control:
//! preemptibility and checkpoint methods (RFC0015). Kept per process until it
//! ends; hosts read it to carry out checkpoints and preemption, and clients
//! can query it.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::abi::*;
use crate::owned::{find, Info, Proc};
use crate::server::nspace::infos_of_array;

#[derive(Clone, Debug, Default)]
pub struct Registration {
    pub preemptible: Option<bool>,
    /// Checkpoint by this signal.
    pub signal: Option<i32>,
    /// Checkpoint by this event (normally PMIX_JCTRL_CHECKPOINT).
    pub event: Option<pmix_status_t>,
}

pub static REGISTRY: Mutex<Option<HashMap<Proc, Registration>>> = Mutex::new(None);

pub fn is_registration_key(i: &Info) -> bool {
    i.is(PMIX_JOB_CTRL_PREEMPTIBLE) || i.is(PMIX_JOB_CTRL_CHECKPOINT_METHOD)
}

/// The registration carried by a request's directives, if any.
pub fn registration(directives: &[Info]) -> Option<Registration> {
    let pre = find(directives, PMIX_JOB_CTRL_PREEMPTIBLE).map(|i| i.truthy());
    let method = find(directives, PMIX_JOB_CTRL_CHECKPOINT_METHOD).map(infos_of_array);
    if pre.is_none() && method.is_none() {
        return None;
    }
    let mut r = Registration { preemptible: pre, ..Default::default() };
    for m in method.unwrap_or_default() {
        if m.is(PMIX_JOB_CTRL_CHECKPOINT_SIGNAL) {
            r.signal = m.as_u32().map(|s| s as i32);
        } else if m.is(PMIX_JOB_CTRL_CHECKPOINT_EVENT) {
            // The header says bool, the RFC's example passes the status code.
            let v = m.value_ref();
            r.event = Some(if v.r#type == PMIX_STATUS {
                // SAFETY: a PMIX_STATUS value.
                unsafe { v.data.status }
            } else {
                PMIX_JCTRL_CHECKPOINT
            });
        }
    }
    Some(r)
}

pub fn register(p: &Proc, r: Registration) {
    let mut g = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let e = g.get_or_insert_with(HashMap::new).entry(p.clone()).or_default();
    if r.preemptible.is_some() {
        e.preemptible = r.preemptible;
    }
    if r.signal.is_some() || r.event.is_some() {
        e.signal = r.signal;
        e.event = r.event;
    }
}

pub fn lookup(p: &Proc) -> Option<Registration> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner()).as_ref()?.get(p).cloned()
}

pub fn forget(p: &Proc) {
    if let Some(m) = REGISTRY.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        m.remove(p);
    }
}
