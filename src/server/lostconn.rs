//! A client lost without finalize, as the host's own event handlers hear it.
//!
//! OpenPMIx 4.2.2 holds such a `PMIX_ERR_LOST_CONNECTION` event for an
//! event window (its `pmix_event_caching_window`, 1 s): each further loss in
//! the window joins the same event (a `PMIX_PROCID` info) and restarts the
//! window, and a server that finalizes first never delivers it. A host whose
//! default handler ends the job on any event (Slurm's slurmstepd kills the
//! step) thereby lets the other ranks finish, or fail on their own, for that
//! long: a task ending without `PMIx_Finalize` while the others still run
//! does not kill the step at once.

use std::time::Duration;

use crate::owned::{Info, Proc, Value};
use crate::runtime::Net;

/// The event being held: the first lost client, the later ones, its timer.
struct Held {
    first: Proc,
    more: Vec<Proc>,
    timer: u64,
}

/// The lost-connection event held for the host's handlers, if any.
#[derive(Default)]
pub(super) struct LostConns(Option<Held>);

/// The window: `PMIX_MCA_pmix_event_caching_window` seconds (OpenPMIx's
/// parameter), 1 by default.
fn window() -> Duration {
    std::env::var("PMIX_MCA_pmix_event_caching_window")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(1), Duration::from_secs)
}

impl LostConns {
    /// Hold (or join) the lost-connection event for `proc`.
    pub(super) fn lost(&mut self, net: &mut Net, proc: &Proc) {
        let after = window();
        match &mut self.0 {
            Some(c) => {
                net.cancel_timer(c.timer);
                c.more.push(proc.clone());
                c.timer = net.timer(after);
            }
            None => {
                let timer = net.timer(after);
                self.0 = Some(Held { first: proc.clone(), more: Vec::new(), timer });
            }
        }
    }

    /// The window ended (when `timer` was its): the event's source and
    /// infos, for the host's handlers.
    pub(super) fn timer(&mut self, timer: u64) -> Option<(Proc, Vec<Info>)> {
        if !self.0.as_ref().is_some_and(|c| c.timer == timer) {
            return None;
        }
        let c = self.0.take()?;
        let mut info: Vec<Info> = c.more.iter().rev().map(|p| Info::new("pmix.procid", Value::proc(p))).collect();
        info.push(Info::new("pmix.evproc", Value::proc(&c.first)));
        Some((c.first, info))
    }

    /// Server finalize: a held event is dropped, as OpenPMIx's is.
    pub(super) fn drop_held(&mut self) {
        self.0 = None;
    }
}
