//! Process monitoring inside the server (RFC0015): heartbeats and file
//! monitors, with drops, ids and cancel.
//!
//! A heartbeat monitor checks every HEARTBEAT_TIME seconds whether a beat
//! arrived; a file monitor checks every CHECK_TIME seconds whether the file's
//! size / access time / modification time changed. More than DROPS
//! consecutive periods without progress (default 0: the first missed period)
//! raise the caller's error code as an event with the monitored process as
//! source, once per stall (progress re-arms it). Monitors end with their
//! process, and PMIX_MONITOR_CANCEL stops one id or all of a requester's.

use std::path::PathBuf;
use std::time::Duration;

use crate::abi::*;
use crate::msg;
use crate::status::Res;
use crate::owned::{find, Info, Proc};
use crate::runtime::Net;

use super::host::{DoneInfos, Host, Upcall};
use super::settled;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileWatch {
    pub size: bool,
    pub access: bool,
    pub modify: bool,
}

#[derive(Clone, Debug)]
pub enum Kind {
    Heartbeat,
    File { path: PathBuf, watch: FileWatch, last: Option<(u64, i64, i64)> },
}

#[derive(Clone, Debug)]
pub struct Monitor {
    pub id: Option<String>,
    pub target: Proc,
    pub kind: Kind,
    pub period: Duration,
    pub drops: u32,
    pub error: pmix_status_t,
    pub range: pmix_data_range_t,
    /// The host acts on alerts itself unless the application asked to (APP_CONTROL).
    pub app_control: bool,
    pub misses: u32,
    pub alerted: bool,
    pub beats: u64,
    pub seen_beats: u64,
    pub timer: u64,
}

/// What a PMIx_Process_monitor request asks.
pub enum Request {
    Beat,
    Cancel(Option<String>),
    Start(Monitor),
}

fn secs(i: Option<&Info>, default: u32) -> u32 {
    i.and_then(|i| i.as_u32()).unwrap_or(default)
}

/// Parse (monitor info, directives) of a request from `who`.
pub fn parse(monitor: &Info, error: pmix_status_t, directives: &[Info], who: &Proc) -> Res<Request> {
    if monitor.is(PMIX_SEND_HEARTBEAT) {
        return Ok(Request::Beat);
    }
    if monitor.is(PMIX_MONITOR_CANCEL) {
        let id = monitor.as_str().filter(|s| !s.is_empty());
        return Ok(Request::Cancel(id));
    }
    let id = find(directives, PMIX_MONITOR_ID).and_then(|i| i.as_str());
    let range = find(directives, PMIX_RANGE).map(|i| i.value_ref()).filter(|v| v.r#type == PMIX_DATA_RANGE || v.r#type == PMIX_UINT8);
    // SAFETY: a one-byte range value, per the type check.
    let range = range.map(|v| unsafe { v.data.range }).unwrap_or(PMIX_RANGE_NAMESPACE);
    let app_control = find(directives, PMIX_MONITOR_APP_CONTROL).is_some_and(|i| i.truthy());
    let base = |kind, period: u32, drops: u32| Monitor {
        id: id.clone(),
        target: who.clone(),
        kind,
        period: Duration::from_secs(period.max(1) as u64),
        drops,
        error,
        range,
        app_control,
        misses: 0,
        alerted: false,
        beats: 0,
        seen_beats: 0,
        timer: 0,
    };
    if monitor.is(PMIX_MONITOR_HEARTBEAT) {
        let t = secs(find(directives, PMIX_MONITOR_HEARTBEAT_TIME), 0);
        if t == 0 {
            crate::pmix_debug!(1, "monitor: PMIX_MONITOR_HEARTBEAT_TIME missing or 0");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        return Ok(Request::Start(base(Kind::Heartbeat, t, secs(find(directives, PMIX_MONITOR_HEARTBEAT_DROPS), 0))));
    }
    if monitor.is(PMIX_MONITOR_FILE) {
        let path = monitor.as_str().filter(|p| p.starts_with('/')).ok_or(PMIX_ERR_BAD_PARAM)?;
        let flag = |k| find(directives, k).is_some_and(|i| i.truthy());
        let mut watch = FileWatch { size: flag(PMIX_MONITOR_FILE_SIZE), access: flag(PMIX_MONITOR_FILE_ACCESS), modify: flag(PMIX_MONITOR_FILE_MODIFY) };
        if !watch.size && !watch.access && !watch.modify {
            watch.size = true; // the natural default: a file that keeps growing
        }
        let t = secs(find(directives, PMIX_MONITOR_FILE_CHECK_TIME), 0);
        if t == 0 {
            crate::pmix_debug!(1, "monitor: PMIX_MONITOR_FILE_CHECK_TIME missing or 0");
            return Err(PMIX_ERR_BAD_PARAM);
        }
        let kind = Kind::File { path: PathBuf::from(path), watch, last: None };
        return Ok(Request::Start(base(kind, t, secs(find(directives, PMIX_MONITOR_FILE_DROPS), 0))));
    }
    crate::pmix_debug!(1, "monitor: unknown monitor '{}'", monitor.key());
    Err(PMIX_ERR_NOT_SUPPORTED)
}

fn file_state(path: &PathBuf) -> Option<(u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(path).ok()?;
    Some((md.size(), md.atime() * 1_000_000_000 + md.atime_nsec(), md.mtime() * 1_000_000_000 + md.mtime_nsec()))
}

impl Monitor {
    /// One period elapsed: true when an alert must be raised now.
    pub fn check(&mut self) -> bool {
        let progressed = match &mut self.kind {
            Kind::Heartbeat => {
                let p = self.beats != self.seen_beats;
                self.seen_beats = self.beats;
                p
            }
            Kind::File { path, watch, last } => {
                let now = file_state(path);
                let p = match (&now, &last) {
                    (Some(n), Some(l)) => (watch.size && n.0 != l.0) || (watch.access && n.1 != l.1) || (watch.modify && n.2 != l.2),
                    (Some(_), None) => true, // first sight of the file
                    _ => false,
                };
                *last = now;
                p
            }
        };
        if progressed {
            self.misses = 0;
            self.alerted = false;
            return false;
        }
        self.misses += 1;
        if self.misses > self.drops && !self.alerted {
            self.alerted = true;
            return true;
        }
        false
    }
}

// ---- the part: the monitors this server runs itself ----

/// The monitors this server runs itself (when its host does not): this
/// part's state.
#[derive(Default)]
pub(super) struct Monitors {
    list: Vec<Monitor>,
}

impl Monitors {
    /// PMIx_Process_monitor from `who`: the host monitors when it can,
    /// unless the server was asked to (`here`). Some(status): the answer now;
    /// None: the host answers through `done`.
    pub(super) fn request(&mut self, net: &mut Net, host: &mut dyn Host, here: bool, who: &Proc, request: msg::Monitor, done: DoneInfos) -> Option<pmix_status_t> {
        let msg::Monitor { monitor, error, directives } = request;
        if !here && !monitor.is(PMIX_SEND_HEARTBEAT) {
            match host.monitor(who, &monitor, error, &directives, done) {
                Upcall::Pending => return None,
                Upcall::Now(st) if st != PMIX_ERR_NOT_SUPPORTED => return Some(settled(st)),
                Upcall::Now(_) => {} // not supported by the host: monitor here
            }
        }
        Some(match parse(&monitor, error, &directives, who) {
            Err(e) => e,
            Ok(Request::Beat) => {
                self.beat(who);
                PMIX_SUCCESS
            }
            Ok(Request::Cancel(id)) => {
                let before = self.list.len();
                let gone: Vec<u64> = self.list.iter().filter(|m| m.target == *who && (id.is_none() || m.id == id)).map(|m| m.timer).collect();
                self.list.retain(|m| !(m.target == *who && (id.is_none() || m.id == id)));
                for t in gone {
                    net.cancel_timer(t);
                }
                if self.list.len() < before {
                    PMIX_SUCCESS
                } else {
                    PMIX_ERR_NOT_FOUND
                }
            }
            Ok(Request::Start(mut m)) => {
                if m.id.as_ref().is_some_and(|id| self.list.iter().any(|x| x.target == *who && x.id.as_ref() == Some(id))) {
                    return Some(PMIX_ERR_EXISTS);
                }
                m.timer = net.timer(m.period);
                self.list.push(m);
                PMIX_SUCCESS
            }
        })
    }

    /// A heartbeat of `who` counts for every monitor watching it.
    pub(super) fn beat(&mut self, who: &Proc) {
        for m in self.list.iter_mut().filter(|m| m.target == *who) {
            m.beats += 1;
        }
    }

    /// Monitors end with their process.
    pub(super) fn forget(&mut self, proc: &Proc) {
        self.list.retain(|m| m.target != *proc);
    }

    /// A monitor's period ended (None: `timer` is not a monitor's): it is
    /// armed again, and gives the monitor when an alert is due now.
    pub(super) fn expired(&mut self, net: &mut Net, timer: u64) -> Option<Option<Monitor>> {
        let i = self.list.iter().position(|m| m.timer == timer)?;
        let alert = self.list[i].check();
        self.list[i].timer = net.timer(self.list[i].period);
        Some(alert.then(|| self.list[i].clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::Value;

    fn hb(drops: u32) -> Monitor {
        let m = Info::new("pmix.monitor.mbeat", Value::boolean(true));
        let d = vec![Info::new("pmix.monitor.btime", Value::u32(1)), Info::new("pmix.monitor.bdrop", Value::u32(drops))];
        match parse(&m, PMIX_MONITOR_HEARTBEAT_ALERT, &d, &Proc::new("ns", 0)).unwrap() {
            Request::Start(m) => m,
            _ => panic!(),
        }
    }

    #[test]
    fn drops_are_honoured_and_alerts_once_per_stall() {
        let mut m = hb(2);
        assert!(!m.check()); // miss 1
        assert!(!m.check()); // miss 2
        assert!(m.check()); // miss 3 > 2 drops: alert
        assert!(!m.check()); // still stalled: no second alert
        m.beats += 1;
        assert!(!m.check()); // progress re-arms
        let mut m0 = hb(0);
        assert!(m0.check(), "default 0 drops: the first missed period alerts");
    }

    #[test]
    fn file_monitor_sees_growth() {
        let p = std::env::temp_dir().join(format!("rpmix-mon-{}", std::process::id()));
        std::fs::write(&p, b"a").unwrap();
        let m = Info::new("pmix.monitor.fmon", Value::string(p.to_str().unwrap()));
        let d = vec![Info::new("pmix.monitor.ftime", Value::u32(1)), Info::new("pmix.monitor.fsize", Value::boolean(true))];
        let Request::Start(mut mon) = parse(&m, PMIX_MONITOR_FILE_ALERT, &d, &Proc::new("ns", 0)).unwrap() else { panic!() };
        assert!(!mon.check()); // first sight
        std::fs::write(&p, b"ab").unwrap();
        assert!(!mon.check()); // grew
        assert!(mon.check()); // did not grow
        let _ = std::fs::remove_file(&p);
        let bad = Info::new("pmix.monitor.fmon", Value::string("relative"));
        assert!(parse(&bad, 0, &d, &Proc::new("ns", 0)).is_err());
    }
}
