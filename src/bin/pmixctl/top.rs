//! `pmixctl top`: what each rank of a job is doing and which collective
//! waits for whom, from the server's answer to `rpmix.qry.top`
//! (docs/user-guide.md, "Seeing a running job"): one screen (`--once`), the
//! same as JSON (`--json`), or a full-screen view refreshed every second.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::time::{Duration, Instant};

use pmix::abi::*;
use pmix::owned::{infos_of_array, Info, Proc, Value};
use pmix::runtime::Oneshot;

/// A collective in progress.
struct Coll {
    kind: String,
    id: String,
    parts: u32,
    entered: u32,
    missing: String,
    at_host: bool,
    wait_ms: u32,
}

/// One local rank.
#[derive(Clone)]
struct Rank {
    rank: u32,
    state: String,
    pid: Option<u32>,
    cpu_ms: Option<u32>,
    age_ms: Option<u32>,
    rss_kb: Option<u32>,
    call: Option<String>,
    call_ms: Option<u32>,
    /// Bytes of stdout and stderr its host forwarded so far.
    out_bytes: Option<u64>,
    err_bytes: Option<u64>,
    /// CPU % over the last interval (the first sample: over its life).
    cpu_pct: Option<f64>,
}

/// One answer of the server.
struct Sample {
    nspace: String,
    size: Option<u32>,
    colls: Vec<Coll>,
    ranks: Vec<Rank>,
    /// How long the query took.
    took: Duration,
}

fn u32_of(infos: &[Info], key: &str) -> Option<u32> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_u32())
}

fn u64_of(infos: &[Info], key: &str) -> Option<u64> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_u64())
}

fn i32_of(infos: &[Info], key: &str) -> Option<i32> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_i32())
}

fn str_of(infos: &[Info], key: &str) -> Option<String> {
    infos.iter().find(|i| i.key() == key).and_then(|i| i.as_str())
}

/// Ask the server for `ns`.
fn sample(ns: &str) -> Result<Sample, String> {
    let start = Instant::now();
    let keys = pmix::cmem::argv_from(&[pmix::server::top::QUERY_KEY]);
    let (quals, nqual) = pmix::owned::infos_to_c(&[Info::new("pmix.nspace", Value::string(ns))]);
    // SAFETY: all-zero is a valid query; it only borrows `keys` and `quals` below.
    let mut one: pmix_query_t = unsafe { core::mem::zeroed() };
    one.keys = keys;
    one.qualifiers = quals;
    one.nqual = nqual;
    // SAFETY: `one` is a valid query; CArray::copy deep-copies it.
    let q = unsafe { pmix::data::carray::CArray::copy(pmix::data::kind::Kind::Query, &one as *const pmix_query_t as *const u8, 1) };
    // SAFETY: made by argv_from and infos_to_c, no longer referenced.
    unsafe {
        pmix::cmem::argv_free(keys);
        pmix::owned::free_c_infos(quals, nqual);
    }
    let q = q.map_err(|e| pmix::strings::error_name(e).to_string())?;
    let done = Oneshot::new();
    let d = done.clone();
    pmix::facade::query(&q, pmix::runtime::Completion::new(move |st, r| d.set((st, r))));
    let (st, r) = done.wait().ok_or("lost the server")?;
    let Some(top) = r.iter().find(|i| i.key() == pmix::server::top::QUERY_KEY) else {
        return Err(format!("the server does not answer {} for {ns}: {}", pmix::server::top::QUERY_KEY, pmix::strings::error_name(st)));
    };
    let all = infos_of_array(top);
    let mut s = Sample { nspace: str_of(&all, "rpmix.top.nspace").unwrap_or_else(|| ns.to_string()), size: u32_of(&all, "rpmix.top.size"), colls: Vec::new(), ranks: Vec::new(), took: Duration::ZERO };
    for i in &all {
        match i.key() {
            "rpmix.top.coll" => {
                let c = infos_of_array(i);
                s.colls.push(Coll {
                    kind: str_of(&c, "rpmix.top.kind").unwrap_or_default(),
                    id: str_of(&c, "rpmix.top.id").unwrap_or_default(),
                    parts: u32_of(&c, "rpmix.top.nparts").unwrap_or(0),
                    entered: u32_of(&c, "rpmix.top.nin").unwrap_or(0),
                    missing: str_of(&c, "rpmix.top.missing").unwrap_or_default(),
                    at_host: c.iter().find(|x| x.key() == "rpmix.top.athost").is_some_and(|x| x.truthy()),
                    wait_ms: u32_of(&c, "rpmix.top.wait").unwrap_or(0),
                });
            }
            "rpmix.top.rank" => {
                let r = infos_of_array(i);
                let Some(rank) = u32_of(&r, "rpmix.top.r") else { continue };
                s.ranks.push(Rank {
                    rank,
                    state: match (str_of(&r, "rpmix.top.state"), i32_of(&r, "rpmix.top.exit"), i32_of(&r, "rpmix.top.signal")) {
                        (Some(s), Some(code), _) if s == "exited" => format!("exited {code}"),
                        (Some(s), _, Some(sig)) if s == "exited" => format!("signal {sig}"),
                        (s, _, _) => s.unwrap_or_else(|| "unknown".into()),
                    },
                    pid: u32_of(&r, "rpmix.top.pid"),
                    cpu_ms: u32_of(&r, "rpmix.top.cpums"),
                    age_ms: u32_of(&r, "rpmix.top.agems"),
                    rss_kb: u32_of(&r, "rpmix.top.rsskb"),
                    call: str_of(&r, "rpmix.top.call"),
                    call_ms: u32_of(&r, "rpmix.top.callms"),
                    out_bytes: u64_of(&r, "rpmix.top.stdout"),
                    err_bytes: u64_of(&r, "rpmix.top.stderr"),
                    cpu_pct: None,
                });
            }
            _ => {}
        }
    }
    s.took = start.elapsed();
    Ok(s)
}

/// CPU % of each rank: over the interval since `prev` (rank -> (cpu ms,
/// when)), else over the rank's life.
fn cpu_percent(s: &mut Sample, prev: &mut HashMap<u32, (u32, Instant)>) {
    let now = Instant::now();
    for r in &mut s.ranks {
        let Some(cpu) = r.cpu_ms else { continue };
        r.cpu_pct = match prev.get(&r.rank) {
            Some((c0, t0)) if now > *t0 && cpu >= *c0 => Some((cpu - c0) as f64 * 100.0 / now.duration_since(*t0).as_millis().max(1) as f64),
            _ => r.age_ms.filter(|a| *a > 0).map(|a| cpu as f64 * 100.0 / a as f64),
        };
        prev.insert(r.rank, (cpu, now));
    }
}

/// A byte count, short (`-`: unknown).
fn bytes(b: Option<u64>) -> String {
    match b {
        None => "-".into(),
        Some(b) if b >= 1 << 30 => format!("{:.1}G", b as f64 / (1u64 << 30) as f64),
        Some(b) if b >= 1 << 20 => format!("{:.1}M", b as f64 / (1u64 << 20) as f64),
        Some(b) if b >= 1 << 10 => format!("{:.1}K", b as f64 / 1024.0),
        Some(b) => format!("{b}B"),
    }
}

fn rss(kb: Option<u32>) -> String {
    match kb {
        None => "unknown".into(),
        Some(k) if k >= 1 << 20 => format!("{:.1}G", k as f64 / (1u64 << 20) as f64),
        Some(k) if k >= 1 << 10 => format!("{:.1}M", k as f64 / 1024.0),
        Some(k) => format!("{k}K"),
    }
}

fn header(s: &Sample) -> Vec<String> {
    let mut out = vec![format!(
        "job {}: {} ranks, {} here (sampled in {} ms)",
        s.nspace,
        s.size.map_or("?".into(), |n| n.to_string()),
        s.ranks.len(),
        s.took.as_millis()
    )];
    if s.colls.is_empty() {
        out.push("no collective in progress".into());
    }
    for c in &s.colls {
        let missing = if c.missing.is_empty() { "none here".to_string() } else { c.missing.clone() };
        let host = if c.at_host { " (all here entered: waiting for the other servers)" } else { "" };
        out.push(format!("{} {}: entered {}/{}, missing {}, waiting {} ms{host}", c.kind, c.id, c.entered, c.parts, missing, c.wait_ms));
    }
    out.push(String::new());
    out.push(format!("{:>6}  {:<10} {:>8} {:>6} {:>8} {:>7} {:>7}  {:<40} {:>9}", "RANK", "STATE", "PID", "CPU%", "RSS", "STDOUT", "STDERR", "BLOCKED IN", "FOR (ms)"));
    out
}

fn row(r: &Rank) -> String {
    let mut call = r.call.clone().unwrap_or_else(|| "-".into());
    if call.chars().count() > 40 {
        call = call.chars().take(39).collect::<String>() + "~";
    }
    format!(
        "{:>6}  {:<10} {:>8} {:>6} {:>8} {:>7} {:>7}  {:<40} {:>9}",
        r.rank,
        r.state,
        r.pid.map_or("unknown".into(), |p| p.to_string()),
        r.cpu_pct.map_or("unknown".into(), |c| format!("{c:.1}")),
        rss(r.rss_kb),
        bytes(r.out_bytes),
        bytes(r.err_bytes),
        call,
        r.call_ms.map_or("-".into(), |m| m.to_string())
    )
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_opt<T: ToString>(v: Option<T>) -> String {
    v.map_or("null".into(), |x| x.to_string())
}

fn json(s: &Sample) -> String {
    let mut o = String::new();
    let _ = write!(o, "{{\"nspace\":{},\"size\":{},\"sample_ms\":{},\"collectives\":[", json_str(&s.nspace), json_opt(s.size), s.took.as_millis());
    for (k, c) in s.colls.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"kind\":{},\"id\":{},\"participants\":{},\"entered\":{},\"missing\":{},\"at_host\":{},\"wait_ms\":{}}}",
            if k > 0 { "," } else { "" },
            json_str(&c.kind),
            json_str(&c.id),
            c.parts,
            c.entered,
            json_str(&c.missing),
            c.at_host,
            c.wait_ms
        );
    }
    o.push_str("],\"ranks\":[");
    for (k, r) in s.ranks.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"rank\":{},\"state\":{},\"pid\":{},\"cpu_percent\":{},\"rss_kb\":{},\"stdout_bytes\":{},\"stderr_bytes\":{},\"blocked_in\":{},\"blocked_ms\":{}}}",
            if k > 0 { "," } else { "" },
            r.rank,
            json_str(&r.state),
            json_opt(r.pid),
            json_opt(r.cpu_pct.map(|c| format!("{c:.1}"))),
            json_opt(r.rss_kb),
            json_opt(r.out_bytes),
            json_opt(r.err_bytes),
            r.call.as_deref().map_or("null".into(), json_str),
            json_opt(r.call_ms)
        );
    }
    o.push_str("]}");
    o
}

/// `pmixctl top`: `--json` or `--once` print one sample; else the view.
pub fn run(ns: &str, once: bool, as_json: bool) -> Result<(), String> {
    let mut prev = HashMap::new();
    if once || as_json {
        let mut s = sample(ns)?;
        cpu_percent(&mut s, &mut prev);
        let mut out = String::new();
        if as_json {
            out = json(&s);
            out.push('\n');
        } else {
            for l in header(&s).iter().chain(s.ranks.iter().map(row).collect::<Vec<_>>().iter()) {
                out.push_str(l);
                out.push('\n');
            }
        }
        let _ = std::io::stdout().write_all(out.as_bytes());
        return Ok(());
    }
    View::new(ns).run(&mut prev)
}

// ---------------------------------------------------------------- the view

/// The terminal in raw mode for as long as this lives.
struct Raw {
    saved: libc::termios,
}

impl Raw {
    fn enter() -> Result<Raw, String> {
        // SAFETY: all-zero is a valid termios to be filled by tcgetattr.
        let mut t: libc::termios = unsafe { core::mem::zeroed() };
        // SAFETY: fd 0 and a termios this function owns.
        if unsafe { libc::tcgetattr(0, &mut t) } != 0 {
            return Err("top: stdin is not a terminal (use --once or --json)".into());
        }
        let saved = t;
        // SAFETY: `t` is a valid termios.
        unsafe { libc::cfmakeraw(&mut t) };
        // Output as usual (\n is a new line), input byte by byte.
        t.c_oflag |= libc::OPOST;
        // SAFETY: fd 0 and a valid termios.
        if unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) } != 0 {
            return Err("top: cannot set the terminal's mode".into());
        }
        // The alternate screen, cursor hidden.
        let _ = std::io::stdout().write_all(b"\x1b[?1049h\x1b[?25l");
        Ok(Raw { saved })
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = std::io::stdout().write_all(b"\x1b[?25h\x1b[?1049l");
        let _ = std::io::stdout().flush();
        // SAFETY: fd 0 and the termios saved at entry.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &self.saved) };
    }
}

/// The terminal's size (rows, columns); 24x80 when it does not say.
fn term_size() -> (usize, usize) {
    // SAFETY: all-zero is a valid winsize to be filled by the ioctl.
    let mut w: libc::winsize = unsafe { core::mem::zeroed() };
    // SAFETY: TIOCGWINSZ on fd 1 writes a winsize into `w`.
    let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut w) } == 0;
    if ok && w.ws_row > 0 && w.ws_col > 0 { (w.ws_row as usize, w.ws_col as usize) } else { (24, 80) }
}

#[derive(Clone, Copy, PartialEq)]
enum Sort {
    Rank,
    State,
    Wait,
}

struct View {
    ns: String,
    /// The jobs `J` moves between (the server's, as last listed).
    jobs: Vec<String>,
    sort: Sort,
    /// The selected rank (by rank number, so it stays when the order changes).
    selected: Option<u32>,
    /// The first row shown.
    top: usize,
    message: String,
    /// The signal being typed after `S` (Enter sends it, Escape drops it).
    prompt: Option<String>,
}

/// What a key press asks.
enum Key {
    Quit,
    Sort,
    Down,
    Up,
    PageDown,
    PageUp,
    Pause,
    Resume,
    Kill,
    /// Ask for a signal to send to the selected rank.
    Signal,
    NextJob,
    Other,
}

/// The key at the start of `bytes`, and how many bytes it took.
fn key_of(bytes: &[u8]) -> (Key, usize) {
    match bytes {
        [0x1b, b'[', b'A', ..] => (Key::Up, 3),
        [0x1b, b'[', b'B', ..] => (Key::Down, 3),
        [0x1b, b'[', b'5', b'~', ..] => (Key::PageUp, 4),
        [0x1b, b'[', b'6', b'~', ..] => (Key::PageDown, 4),
        [b'q', ..] | [3, ..] => (Key::Quit, 1),
        [b's', ..] => (Key::Sort, 1),
        [b'j', ..] => (Key::Down, 1),
        [b'k', ..] => (Key::Up, 1),
        [b' ', ..] => (Key::PageDown, 1),
        [b'p', ..] => (Key::Pause, 1),
        [b'r', ..] => (Key::Resume, 1),
        [b'K', ..] => (Key::Kill, 1),
        [b'S', ..] => (Key::Signal, 1),
        [b'J', ..] | [b'\t', ..] => (Key::NextJob, 1),
        _ => (Key::Other, 1),
    }
}

fn state_order(s: &str) -> u8 {
    match s {
        "stopped" | "traced" => 0,
        "running" => 1,
        "started" => 2,
        "not started" => 3,
        "finalized" => 4,
        _ => 5,
    }
}

impl View {
    fn new(ns: &str) -> View {
        View { ns: ns.to_string(), jobs: vec![ns.to_string()], sort: Sort::Rank, selected: None, top: 0, message: String::new(), prompt: None }
    }

    /// The next job the server runs after the one shown (the list is asked
    /// again each time: a persistent launcher's jobs come and go).
    fn next_job(&mut self) -> Option<String> {
        match crate::jobs() {
            Ok(jobs) if !jobs.is_empty() => self.jobs = jobs,
            Ok(_) => return None,
            Err(e) => {
                self.message = e;
                return None;
            }
        }
        let at = self.jobs.iter().position(|j| *j == self.ns).map_or(0, |i| (i + 1) % self.jobs.len());
        Some(self.jobs[at].clone())
    }

    /// A byte typed at the signal prompt; Some(signal) when Enter ends it.
    fn prompt_byte(&mut self, b: u8) -> Option<String> {
        let text = self.prompt.as_mut()?;
        match b {
            b'\r' | b'\n' => return self.prompt.take(),
            0x1b | 3 => self.prompt = None,
            0x7f | 8 => {
                text.pop();
            }
            b if b.is_ascii_alphanumeric() && text.len() < 16 => text.push(b as char),
            _ => {}
        }
        None
    }

    /// Send `sig` (a name or number) to the selected rank.
    fn send_signal(&mut self, sig: &str) {
        let Some(r) = self.selected else {
            self.message = "select a rank first (j/k or the arrows)".into();
            return;
        };
        let Some(n) = crate::signal_number(sig) else {
            self.message = format!("signal: '{sig}' is not a signal (a name such as TERM or USR1, or a number)");
            return;
        };
        self.message = match crate::job_control(&Proc::new(&self.ns, r), vec![crate::signal_directive(n)]) {
            Ok(()) => format!("signal {sig} to rank {r}: done"),
            Err(e) => format!("signal {sig} to rank {r}: {e}"),
        };
    }

    fn order(&self, ranks: &mut [Rank]) {
        match self.sort {
            Sort::Rank => ranks.sort_by_key(|r| r.rank),
            Sort::State => ranks.sort_by_key(|r| (state_order(&r.state), r.rank)),
            Sort::Wait => ranks.sort_by_key(|r| (std::cmp::Reverse(r.call_ms.unwrap_or(0)), r.rank)),
        }
    }

    fn run(mut self, prev: &mut HashMap<u32, (u32, Instant)>) -> Result<(), String> {
        let _raw = Raw::enter()?;
        if let Ok(jobs) = crate::jobs() {
            if jobs.contains(&self.ns) {
                self.jobs = jobs;
            }
        }
        let mut s = sample(&self.ns)?;
        cpu_percent(&mut s, prev);
        let mut next = Instant::now() + Duration::from_secs(1);
        loop {
            self.order(&mut s.ranks);
            self.draw(&s);
            // Keys until the next refresh.
            let left = next.saturating_duration_since(Instant::now());
            let mut pfd = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
            // SAFETY: one pollfd this function owns.
            let n = unsafe { libc::poll(&mut pfd, 1, left.as_millis().min(1000) as i32) };
            if n > 0 {
                let mut buf = [0u8; 64];
                // SAFETY: reads at most buf.len() bytes into `buf`.
                let got = unsafe { libc::read(0, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
                if got <= 0 {
                    return Ok(());
                }
                let mut bytes = &buf[..got as usize];
                while !bytes.is_empty() {
                    if self.prompt.is_some() {
                        if let Some(sig) = self.prompt_byte(bytes[0]) {
                            self.send_signal(&sig);
                        }
                        bytes = &bytes[1..];
                        continue;
                    }
                    let (k, used) = key_of(bytes);
                    bytes = &bytes[used..];
                    match k {
                        Key::Quit => return Ok(()),
                        Key::NextJob => {
                            if let Some(ns) = self.next_job() {
                                self.ns = ns;
                                self.selected = None;
                                self.top = 0;
                                prev.clear();
                                next = Instant::now();
                            }
                        }
                        Key::Signal if self.selected.is_none() => self.message = "select a rank first (j/k or the arrows)".into(),
                        Key::Signal => self.prompt = Some(String::new()),
                        k => self.key(k, &s),
                    }
                }
                if Instant::now() < next {
                    continue;
                }
            }
            if Instant::now() >= next {
                match sample(&self.ns) {
                    Ok(mut n) => {
                        cpu_percent(&mut n, prev);
                        s = n;
                    }
                    Err(e) => self.message = e,
                }
                next = Instant::now() + Duration::from_secs(1);
            }
        }
    }

    /// Act on a key that acts on the sample shown.
    fn key(&mut self, k: Key, s: &Sample) {
        let pos = self.selected.and_then(|sel| s.ranks.iter().position(|r| r.rank == sel));
        let (rows, _) = term_size();
        let page = rows.saturating_sub(header(s).len() + 2).max(1);
        let step = |d: isize| -> Option<u32> {
            if s.ranks.is_empty() {
                return None;
            }
            let p = match pos {
                Some(p) => (p as isize + d).clamp(0, s.ranks.len() as isize - 1) as usize,
                None => 0,
            };
            Some(s.ranks[p].rank)
        };
        match k {
            Key::Sort => {
                self.sort = match self.sort {
                    Sort::Rank => Sort::State,
                    Sort::State => Sort::Wait,
                    Sort::Wait => Sort::Rank,
                };
                self.top = 0;
            }
            Key::Down => self.selected = step(1),
            Key::Up => self.selected = step(-1),
            Key::PageDown => self.selected = step(page as isize),
            Key::PageUp => self.selected = step(-(page as isize)),
            Key::Pause | Key::Resume | Key::Kill => {
                let Some(r) = self.selected else {
                    self.message = "select a rank first (j/k or the arrows)".into();
                    return;
                };
                let (what, key) = match k {
                    Key::Pause => ("pause", "pmix.jctrl.pause"),
                    Key::Resume => ("resume", "pmix.jctrl.resume"),
                    _ => ("kill", "pmix.jctrl.kill"),
                };
                self.message = match crate::job_control(&Proc::new(&self.ns, r), vec![Info::new(key, Value::boolean(true))]) {
                    Ok(()) => format!("{what} rank {r}: done"),
                    Err(e) => format!("{what} rank {r}: {e}"),
                };
            }
            Key::Quit | Key::Signal | Key::NextJob | Key::Other => {}
        }
    }

    fn draw(&mut self, s: &Sample) {
        let (rows, cols) = term_size();
        let head = header(s);
        let sort = match self.sort {
            Sort::Rank => "rank",
            Sort::State => "state",
            Sort::Wait => "wait",
        };
        let foot = match &self.prompt {
            Some(text) => format!("signal to rank {} (name or number, Enter sends, Esc cancels): {text}", self.selected.unwrap_or(0)),
            None if self.jobs.len() > 1 => format!("q quit  s sort ({sort})  j/k select  p pause  r resume  K kill  S signal  J job {}/{}   {}", self.jobs.iter().position(|j| *j == self.ns).map_or(0, |i| i + 1), self.jobs.len(), self.message),
            None => format!("q quit  s sort ({sort})  j/k select  p pause  r resume  K kill  S signal  J job   {}", self.message),
        };
        let room = rows.saturating_sub(head.len() + 1).max(1);
        // Keep the selected row on the screen.
        if let Some(p) = self.selected.and_then(|sel| s.ranks.iter().position(|r| r.rank == sel)) {
            if p < self.top {
                self.top = p;
            } else if p >= self.top + room {
                self.top = p + 1 - room;
            }
        }
        self.top = self.top.min(s.ranks.len().saturating_sub(room));
        let cut = |l: &str| -> String { l.chars().take(cols).collect() };
        let mut out = String::from("\x1b[H\x1b[2J");
        for l in &head {
            out.push_str(&cut(l));
            out.push_str("\r\n");
        }
        for r in s.ranks.iter().skip(self.top).take(room) {
            let line = cut(&row(r));
            if Some(r.rank) == self.selected {
                let _ = write!(out, "\x1b[7m{line}\x1b[0m\r\n");
            } else {
                out.push_str(&line);
                out.push_str("\r\n");
            }
        }
        let shown = format!("{}  (ranks {}-{} of {})", foot, self.top, (self.top + room).min(s.ranks.len()).saturating_sub(1), s.ranks.len());
        let _ = write!(out, "\x1b[{rows};1H{}", cut(&shown));
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(out.as_bytes());
        let _ = o.flush();
    }
}
