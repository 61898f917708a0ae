//! What the local clients are blocked in, for a tool that asks
//! (`rpmix.qry.top`, docs/user-guide.md "Seeing a running job").
//!
//! Nothing here is kept: each part that owns a wait (the barriers of
//! `Fences`, the operations of `Groups`, the parked Gets of the modex) stores
//! an `Instant` where it already records the request, and hands a read-only
//! view of its waits when a query asks (`Fences::view`, `Groups::view`,
//! `Modex::view`). The answer is built from those views, the
//! namespaces and `/proc`, on the query's turn and never on a fence's or a
//! Get's.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use crate::abi::*;
use crate::owned::{Info, Proc, Value};

use std::collections::HashMap;

use crate::runtime::ConnId;

use super::fence::Fences;
use super::group::Groups;
use super::iof::Iof;
use super::modex::Modex;
use super::nspace::{ExitOf, Nspace};
use super::Peer;

/// The query key (a qualifier PMIX_NSPACE names the job; default the asker's).
pub const QUERY_KEY: &str = "rpmix.qry.top";


pub use super::view::ranges;

/// What /proc says of a local process: its state letter, CPU time and
/// age in ms, resident set in KiB. None where it cannot be read.
pub(super) struct ProcStat {
    pub state: char,
    pub cpu_ms: u64,
    pub age_ms: u64,
    pub rss_kb: u64,
}

fn clock_ticks() -> u64 {
    // SAFETY: sysconf only queries.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as u64 } else { 100 }
}

fn page_kb() -> u64 {
    // SAFETY: sysconf only queries.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as u64 / 1024 } else { 4 }
}

/// Seconds since boot (/proc/uptime), in ms.
fn uptime_ms() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/uptime").ok()?;
    let secs: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some((secs * 1000.0) as u64)
}

pub(super) fn proc_stat(pid: u32, uptime: Option<u64>) -> Option<ProcStat> {
    if pid == 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything: the fields
    // that matter come after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest[0] is field 3 (state); utime 14, stime 15, starttime 22.
    let state = f.first()?.chars().next()?;
    let num = |field: usize| f.get(field - 3).and_then(|x| x.parse::<u64>().ok());
    let hz = clock_ticks();
    let cpu_ms = (num(14)? + num(15)?) * 1000 / hz;
    let start_ms = num(22)? * 1000 / hz;
    let age_ms = uptime.map_or(0, |u| u.saturating_sub(start_ms));
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let rss_pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(ProcStat { state, cpu_ms, age_ms, rss_kb: rss_pages * page_kb() })
}

fn ms(since: Instant, now: Instant) -> Value {
    Value::u32(now.saturating_duration_since(since).as_millis().min(u32::MAX as u128) as u32)
}

/// What a tool's view reads of the role: the namespaces, the peers, and
/// the parts that own waits.
pub(super) struct Ctx<'a> {
    pub nspaces: &'a HashMap<String, Nspace>,
    pub peers: &'a HashMap<ConnId, Peer>,
    pub fences: &'a Fences,
    pub groups: &'a Groups,
    pub modex: &'a Modex,
    pub iof: &'a Iof,
}

impl Ctx<'_> {
    /// The pid of a local process (0: unknown).
    pub(super) fn pid_of(&self, p: &Proc) -> u32 {
        super::pid_of(self.nspaces, self.peers, p)
    }

    /// The answer to `rpmix.qry.top` for namespace `ns` (None: not held here).
    pub(super) fn answer(&self, ns: &str) -> Option<Value> {
        let n = self.nspaces.get(ns).filter(|n| n.registered)?;
        let now = Instant::now();
        let mut colls = self.fences.view();
        colls.extend(self.groups.view(self.nspaces));
        let mut out = vec![Info::new("rpmix.top.nspace", Value::string(ns))];
        if let Some(s) = n.job_size() {
            out.push(Info::new("rpmix.top.size", Value::u32(s)));
        }
        let mut blocked: BTreeMap<pmix_rank_t, (&'static str, String, Instant)> = BTreeMap::new();
        for c in &colls {
            if !c.local.iter().any(|p| p.nspace == ns) && !c.entered.iter().any(|(p, _)| p.nspace == ns) {
                continue;
            }
            let entered: BTreeSet<&Proc> = c.entered.iter().map(|(p, _)| p).collect();
            let missing = ranges(c.local.iter().filter(|p| p.nspace == ns && !entered.contains(p)).map(|p| p.rank));
            let first = c.entered.iter().map(|(_, t)| *t).min().unwrap_or(now);
            let v = vec![
                Info::new("rpmix.top.kind", Value::string(c.kind)),
                Info::new("rpmix.top.id", Value::string(&c.id)),
                Info::new("rpmix.top.nparts", Value::u32(c.local.len() as u32)),
                Info::new("rpmix.top.nin", Value::u32(c.entered.len() as u32)),
                Info::new("rpmix.top.missing", Value::string(&missing)),
                Info::new("rpmix.top.athost", Value::boolean(c.at_host)),
                Info::new("rpmix.top.wait", ms(first, now)),
            ];
            out.push(Info::new("rpmix.top.coll", Value::infos(&v)));
            for (p, t) in &c.entered {
                if p.nspace == ns {
                    blocked.insert(p.rank, (c.kind, c.id.clone(), *t));
                }
            }
        }
        for b in self.modex.view(|c| self.peers.get(&c).map(|p| p.proc.clone())) {
            if b.proc.nspace == ns {
                blocked.insert(b.proc.rank, (b.call, b.what, b.since));
            }
        }
        let uptime = uptime_ms();
        // Ranks that ended and were deregistered are gone from the clients:
        // they are listed as exited (their exit code is the host's to know).
        let ranks: BTreeSet<pmix_rank_t> = n.clients.keys().chain(n.ended.iter()).copied().collect();
        for rank in &ranks {
            // How it ended, where the host said.
            let exit_infos = || match n.exits.get(rank) {
                Some(ExitOf::Code(c)) => vec![Info::new("rpmix.top.exit", Value::int(*c))],
                Some(ExitOf::Signal(s)) => vec![Info::new("rpmix.top.signal", Value::int(*s))],
                None => Vec::new(),
            };
            let Some(reg) = n.clients.get(rank) else {
                let mut v = vec![Info::new("rpmix.top.r", Value::u32(*rank)), Info::new("rpmix.top.state", Value::string("exited"))];
                v.extend(exit_infos());
                out.push(Info::new("rpmix.top.rank", Value::infos(&v)));
                continue;
            };
            let p = Proc::new(ns, *rank);
            let pid = self.pid_of(&p);
            let st = proc_stat(pid, uptime);
            let state = match (&st, reg) {
                // (the host said how it ended: whether or not it ever connected)
                _ if n.exits.contains_key(rank) => "exited",
                (Some(s), _) if s.state == 'T' => "stopped",
                // (stopped by a tracer: a debugger's hold, stop on exec)
                (Some(s), _) if s.state == 't' => "traced",
                (Some(s), _) if s.state == 'Z' || s.state == 'X' => "exited",
                (_, r) if r.finalized => "finalized",
                (_, r) if r.terminated => "exited",
                (Some(_), r) if r.conn.is_some() => "running",
                (Some(_), _) => "started",
                (None, r) if r.conn.is_some() => "running",
                (None, _) if pid > 0 => "exited",
                (None, _) => "not started",
            };
            let mut v = vec![Info::new("rpmix.top.r", Value::u32(*rank)), Info::new("rpmix.top.state", Value::string(state))];
            if state == "exited" {
                v.extend(exit_infos());
            }
            if pid > 0 {
                v.push(Info::new("rpmix.top.pid", Value::u32(pid)));
            }
            if let Some(s) = &st {
                v.push(Info::new("rpmix.top.cpums", Value::u32(s.cpu_ms.min(u32::MAX as u64) as u32)));
                v.push(Info::new("rpmix.top.agems", Value::u32(s.age_ms.min(u32::MAX as u64) as u32)));
                v.push(Info::new("rpmix.top.rsskb", Value::u32(s.rss_kb.min(u32::MAX as u64) as u32)));
            }
            if let Some([out, err]) = self.iof.delivered(&p) {
                v.push(Info::new("rpmix.top.stdout", Value::u64(out)));
                v.push(Info::new("rpmix.top.stderr", Value::u64(err)));
            }
            if let Some((call, what, since)) = blocked.get(rank) {
                v.push(Info::new("rpmix.top.call", Value::string(&format!("{call} {what}"))));
                v.push(Info::new("rpmix.top.callms", ms(*since, now)));
            }
            out.push(Info::new("rpmix.top.rank", Value::infos(&v)));
        }
        Some(Value::infos(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::ranges;

    #[test]
    fn ranks_as_ranges() {
        assert_eq!(ranges([5]), "5");
        assert_eq!(ranges([0, 1, 2, 3, 5]), "0-3,5");
        assert_eq!(ranges([7, 1, 2, 9, 8]), "1-2,7-9");
        assert_eq!(ranges(Vec::<u32>::new()), "");
        assert_eq!(ranges([u32::MAX - 1, u32::MAX]), format!("{}-{}", u32::MAX - 1, u32::MAX));
    }
}
