//! A tool's (or client's) IO forwarding registrations: what PMIx_IOF_pull's
//! directives ask of the output before it reaches the callback.
//!
//! - PMIX_IOF_TAG_OUTPUT and PMIX_IOF_TAG_FULLNAME_OUTPUT: each line
//!   prefixed "[nspace,rank]<stdout>: " (rpmix has no separate local job id:
//!   the namespace is the job's name);
//! - PMIX_IOF_TAG_DETAILED_OUTPUT: "[nspace,rank][host:pid]<stdout>: " (pid
//!   as the source's server knows it, "?" when it does not);
//! - PMIX_IOF_RANK_OUTPUT: "[rank]<stdout>: ";
//! - PMIX_IOF_TIMESTAMP_OUTPUT: each line prefixed "[seconds.micros]";
//! - PMIX_IOF_XML_OUTPUT: each line as `<stdout rank="R">text</stdout>`,
//!   text escaped (a partial line waits for its end, or for the stream's);
//! - PMIX_IOF_MERGE_STDERR_STDOUT: stderr is pulled with stdout and
//!   delivered as stdout;
//! - PMIX_IOF_OUTPUT_TO_FILE: also written to "<file>.<rank>" (stdout and
//!   stderr together; with PMIX_IOF_FILE_PATTERN to "<file>" itself, every
//!   source together); PMIX_IOF_OUTPUT_TO_DIRECTORY: also written to
//!   "<dir>/<nspace>/rank.<rank>/stdout|stderr|stddiag"; PMIX_IOF_FILE_ONLY:
//!   to the files and not to the callback;
//! - PMIX_IOF_BUFFERING_SIZE: output held until that many bytes are there;
//! - PMIX_IOF_BUFFERING_TIME: ...or until the oldest held byte is that many
//!   seconds old.
//!
//! Held output is always delivered: at the stream's end (PMIX_IOF_COMPLETE),
//! at deregistration, and when the connection ends.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::flags::Channels;
use crate::owned::{find, Info, Proc, Value};

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Tag {
    #[default]
    None,
    /// [nspace,rank]
    Name,
    /// [nspace,rank][host:pid]
    Detailed,
    /// [rank]
    Rank,
}

#[derive(Default, Clone, Copy)]
struct Format {
    tag: Tag,
    timestamp: bool,
    xml: bool,
    /// stderr delivered as stdout.
    merge: bool,
}

/// Files a pull writes its output to, besides (or instead of) the callback.
#[derive(Default)]
struct Files {
    /// PMIX_IOF_OUTPUT_TO_FILE, and whether it is used as is (PMIX_IOF_FILE_PATTERN).
    file: Option<(String, bool)>,
    dir: Option<String>,
    only: bool,
    open: HashMap<std::path::PathBuf, std::fs::File>,
    /// Paths that could not be opened (logged once, then left out).
    failed: std::collections::HashSet<std::path::PathBuf>,
}

impl Files {
    fn wanted(&self) -> bool {
        self.file.is_some() || self.dir.is_some()
    }

    fn paths(&self, src: &Proc, ch: pmix_iof_channel_t) -> Vec<std::path::PathBuf> {
        let mut v = Vec::new();
        if let Some((f, pattern)) = &self.file {
            v.push(if *pattern { f.into() } else { format!("{f}.{}", src.rank).into() });
        }
        if let Some(d) = &self.dir {
            v.push(std::path::Path::new(d).join(&src.nspace).join(format!("rank.{}", src.rank)).join(channel_name(ch)));
        }
        v
    }

    /// Append `data` to the files of this source and channel. A file that
    /// cannot be written is logged and left out from then on.
    fn write(&mut self, src: &Proc, ch: pmix_iof_channel_t, data: &[u8]) {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        for path in self.paths(src, ch) {
            if self.failed.contains(&path) {
                continue;
            }
            if !self.open.contains_key(&path) {
                if let Some(parent) = path.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                let f = std::fs::OpenOptions::new().create(true).append(true).custom_flags(libc::O_NOFOLLOW).mode(0o644).open(&path);
                match f {
                    Ok(f) => {
                        self.open.insert(path.clone(), f);
                    }
                    Err(e) => {
                        crate::pmix_debug!(1, "IOF: cannot write output to {}: {e}", path.display());
                        self.failed.insert(path);
                        continue;
                    }
                }
            }
            if let Some(f) = self.open.get_mut(&path) {
                if let Err(e) = f.write_all(data) {
                    crate::pmix_debug!(1, "IOF: writing output to {}: {e}", path.display());
                }
            }
        }
    }
}

/// Output of one source and channel not delivered yet.
#[derive(Default)]
struct Held {
    /// Formatted bytes waiting for the buffering bound.
    ready: Vec<u8>,
    since: Option<Instant>,
    /// Unformatted rest of a line (XML needs whole lines).
    partial: Vec<u8>,
    /// The next byte starts a line (for tags and timestamps).
    mid_line: bool,
}

/// One chunk for the callback: source, channel, bytes, end of stream.
pub type Ready = (Proc, pmix_iof_channel_t, Vec<u8>, bool);

pub struct Pull {
    pub server_id: u32,
    pub cb: pmix_iof_cbfunc_t,
    fmt: Format,
    files: Files,
    bsize: usize,
    btime: Option<Duration>,
    held: HashMap<(Proc, pmix_iof_channel_t), Held>,
    /// host:pid of each source, as its server reported them.
    origins: HashMap<Proc, (String, u32)>,
    /// Merging: the sources whose stdout or stderr ended (the merged stream
    /// ends when both have).
    half_ended: HashMap<Proc, pmix_iof_channel_t>,
}

/// The channels to ask the server for: stderr too when it is merged into stdout.
pub fn channels_to_pull(channels: pmix_iof_channel_t, directives: &[Info]) -> pmix_iof_channel_t {
    let merge = find(directives, PMIX_IOF_MERGE_STDERR_STDOUT).is_some_and(|i| i.truthy());
    let channels = Channels::from(channels);
    if merge && channels.contains(Channels::STDOUT) {
        (channels | Channels::STDERR).raw()
    } else {
        channels.raw()
    }
}

fn channel_name(ch: pmix_iof_channel_t) -> &'static str {
    match ch {
        PMIX_FWD_STDERR_CHANNEL => "stderr",
        PMIX_FWD_STDDIAG_CHANNEL => "stddiag",
        _ => "stdout",
    }
}

/// One line as `<channel rank="R">prefix text</channel>`, text escaped.
fn xml_line(out: &mut Vec<u8>, ch: pmix_iof_channel_t, rank: pmix_rank_t, prefix: &[u8], text: &[u8]) {
    out.extend_from_slice(format!("<{} rank=\"{}\">", channel_name(ch), rank).as_bytes());
    out.extend_from_slice(prefix);
    xml_escape(out, text);
    out.extend_from_slice(format!("</{}>\n", channel_name(ch)).as_bytes());
}

fn xml_escape(out: &mut Vec<u8>, text: &[u8]) {
    for &b in text {
        match b {
            b'&' => out.extend_from_slice(b"&amp;"),
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'"' => out.extend_from_slice(b"&quot;"),
            b'\'' => out.extend_from_slice(b"&apos;"),
            _ => out.push(b),
        }
    }
}

impl Pull {
    pub fn new(server_id: u32, cb: pmix_iof_cbfunc_t, directives: &[Info]) -> Pull {
        let on = |k| find(directives, k).is_some_and(|i| i.truthy());
        let text = |k| find(directives, k).and_then(|i| i.as_str()).filter(|s| !s.is_empty());
        let tag = if on(PMIX_IOF_TAG_DETAILED_OUTPUT) {
            Tag::Detailed
        } else if on(PMIX_IOF_TAG_OUTPUT) || on(PMIX_IOF_TAG_FULLNAME_OUTPUT) {
            Tag::Name
        } else if on(PMIX_IOF_RANK_OUTPUT) {
            Tag::Rank
        } else {
            Tag::None
        };
        let fmt = Format { tag, timestamp: on(PMIX_IOF_TIMESTAMP_OUTPUT), xml: on(PMIX_IOF_XML_OUTPUT), merge: on(PMIX_IOF_MERGE_STDERR_STDOUT) };
        let files = Files { file: text(PMIX_IOF_OUTPUT_TO_FILE).map(|f| (f, on(PMIX_IOF_FILE_PATTERN))), dir: text(PMIX_IOF_OUTPUT_TO_DIRECTORY), only: on(PMIX_IOF_FILE_ONLY), open: HashMap::new(), failed: Default::default() };
        let bsize = find(directives, PMIX_IOF_BUFFERING_SIZE).and_then(|i| i.as_u32()).unwrap_or(0) as usize;
        let btime = find(directives, PMIX_IOF_BUFFERING_TIME).and_then(|i| i.as_u32()).filter(|&s| s > 0).map(|s| Duration::from_secs(s as u64));
        Pull { server_id, cb, fmt, files, bsize, btime, held: HashMap::new(), origins: HashMap::new(), half_ended: HashMap::new() }
    }

    /// The wait before held output is due, when time-buffering.
    pub fn buffering_time(&self) -> Option<Duration> {
        self.btime
    }

    fn prefix(&self, src: &Proc, ch: pmix_iof_channel_t) -> Vec<u8> {
        let mut p = String::new();
        if self.fmt.timestamp {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            p.push_str(&format!("[{}.{:06}]", t.as_secs(), t.subsec_micros()));
        }
        match self.fmt.tag {
            Tag::None => {}
            Tag::Name => p.push_str(&format!("[{},{}]<{}>: ", src.nspace, src.rank, channel_name(ch))),
            Tag::Rank => p.push_str(&format!("[{}]<{}>: ", src.rank, channel_name(ch))),
            Tag::Detailed => {
                let (host, pid) = self.origins.get(src).map(|(h, p)| (h.as_str(), *p)).unwrap_or(("?", 0));
                let pid = if pid == 0 { "?".to_string() } else { pid.to_string() };
                p.push_str(&format!("[{},{}][{host}:{pid}]<{}>: ", src.nspace, src.rank, channel_name(ch)));
            }
        }
        p.into_bytes()
    }

    /// Where the next output of `src` comes from (host, pid; pid 0: unknown).
    pub fn set_origin(&mut self, src: &Proc, host: &str, pid: u32) {
        if self.fmt.tag == Tag::Detailed && self.origins.get(src).map_or(true, |(h, p)| h != host || *p != pid) {
            self.origins.insert(src.clone(), (host.to_string(), pid));
        }
    }

    /// Hand chunks to the files and (unless PMIX_IOF_FILE_ONLY) the callback.
    pub fn emit(&mut self, handle: u32, chunks: Vec<Ready>) {
        if self.files.wanted() {
            for (src, ch, data, _) in &chunks {
                if !data.is_empty() {
                    self.files.write(src, *ch, data);
                }
            }
            if self.files.only {
                return;
            }
        }
        deliver(handle, self.cb, chunks);
    }

    /// Format `data` as the directives ask (prefixes at line starts).
    fn format(&mut self, src: &Proc, ch: pmix_iof_channel_t, data: &[u8], end: bool) -> Vec<u8> {
        let prefix = self.prefix(src, ch);
        let fmt = self.fmt;
        let h = self.held.entry((src.clone(), ch)).or_default();
        if fmt.xml {
            h.partial.extend_from_slice(data);
            let cut = if end { h.partial.len() } else { h.partial.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) };
            let lines: Vec<u8> = h.partial.drain(..cut).collect();
            let mut out = Vec::new();
            for l in lines.split_inclusive(|&b| b == b'\n') {
                xml_line(&mut out, ch, src.rank, &prefix, l.strip_suffix(b"\n").unwrap_or(l));
            }
            return out;
        }
        if prefix.is_empty() {
            return data.to_vec();
        }
        let mut out = Vec::with_capacity(data.len() + 32);
        for piece in data.split_inclusive(|&b| b == b'\n') {
            if !h.mid_line {
                out.extend_from_slice(&prefix);
            }
            out.extend_from_slice(piece);
            h.mid_line = !piece.ends_with(b"\n");
        }
        out
    }

    /// Output arrived from the server: to the callback (and files) as the
    /// directives ask. Output that needs no formatting, holding or files
    /// goes to the callback straight from the frame it came in (no copy).
    pub fn forward(&mut self, handle: u32, src: Proc, ch: pmix_iof_channel_t, data: &[u8], end: bool) {
        let plain = !self.fmt.merge && self.fmt.tag == Tag::None && !self.fmt.timestamp && !self.fmt.xml && !self.files.wanted() && self.bsize == 0 && self.btime.is_none();
        if plain && (!data.is_empty() || end) && !self.held.contains_key(&(src.clone(), ch)) {
            deliver_one(handle, self.cb, &src, ch, data, end);
            return;
        }
        let ready = self.accept(src, ch, data, end);
        self.emit(handle, ready);
    }

    /// Output arrived from the server: what is ready for the callback now.
    pub fn accept(&mut self, src: Proc, ch: pmix_iof_channel_t, data: &[u8], end: bool) -> Vec<Ready> {
        // Merged: stderr is stdout from here on; the stream ends when both have.
        let (ch, end) = if self.fmt.merge && (ch == PMIX_FWD_STDERR_CHANNEL || ch == PMIX_FWD_STDOUT_CHANNEL) {
            let both = end && match self.half_ended.get(&src) {
                Some(other) if *other != ch => {
                    self.half_ended.remove(&src);
                    true
                }
                _ => {
                    self.half_ended.insert(src.clone(), ch);
                    false
                }
            };
            (PMIX_FWD_STDOUT_CHANNEL, both)
        } else {
            (ch, end)
        };
        if data.is_empty() && !end {
            return Vec::new();
        }
        let formatted = self.format(&src, ch, data, end);
        let (bsize, timed) = (self.bsize, self.btime.is_some());
        let h = self.held.entry((src.clone(), ch)).or_default();
        if !formatted.is_empty() && h.since.is_none() {
            h.since = Some(Instant::now());
        }
        h.ready.extend_from_slice(&formatted);
        let hold = !end && (h.ready.len() < bsize || (bsize == 0 && timed));
        if hold {
            return Vec::new();
        }
        h.since = None;
        let bytes = std::mem::take(&mut h.ready);
        if end {
            self.held.remove(&(src.clone(), ch));
        }
        if bytes.is_empty() && !end {
            return Vec::new();
        }
        vec![(src, ch, bytes, end)]
    }

    /// Held output whose time is up (all of it with `all`).
    pub fn due(&mut self, all: bool) -> Vec<Ready> {
        let btime = self.btime.unwrap_or(Duration::ZERO);
        let mut out = Vec::new();
        let keys: Vec<(Proc, pmix_iof_channel_t)> = self.held.keys().cloned().collect();
        for (src, ch) in keys {
            let unended = all && self.held.get(&(src.clone(), ch)).is_some_and(|h| !h.partial.is_empty());
            let prefix = if unended { self.prefix(&src, ch) } else { Vec::new() };
            let Some(h) = self.held.get_mut(&(src.clone(), ch)) else { continue };
            if unended {
                // An XML line that never ended: delivered as it is.
                let rest = std::mem::take(&mut h.partial);
                xml_line(&mut h.ready, ch, src.rank, &prefix, &rest);
            }
            let old = h.since.is_some_and(|t| t.elapsed() >= btime);
            if !h.ready.is_empty() && (all || old) {
                h.since = None;
                out.push((src, ch, std::mem::take(&mut h.ready), false));
            }
        }
        out
    }
}

/// Hand ready chunks to the pull's callback.
pub fn deliver(handle: u32, cb: pmix_iof_cbfunc_t, chunks: Vec<Ready>) {
    for (src, ch, data, end) in chunks {
        deliver_one(handle, cb, &src, ch, &data, end);
    }
}

/// Hand one chunk to the pull's callback.
fn deliver_one(handle: u32, cb: pmix_iof_cbfunc_t, src: &Proc, ch: pmix_iof_channel_t, data: &[u8], end: bool) {
    let Some(cb) = cb else { return };
    let mut srcm = src.to_c();
    // The payload is the library's, lent for the call (the standard's
    // callback reads it and keeps nothing): passed where it lies.
    let mut bo = pmix_byte_object_t { bytes: data.as_ptr() as *mut core::ffi::c_char, size: data.len() };
    let (ip, ni) = if end { crate::owned::infos_to_c(&[Info::new("pmix.iof.cmp", Value::boolean(true))]) } else { (std::ptr::null_mut(), 0) };
    // SAFETY: the caller's callback; every pointer lives through the call
    // (the payload is only read: PMIx's callbacks do not own or write it).
    unsafe { cb(handle as usize, ch, &mut srcm, &mut bo, ip, ni) };
    if !ip.is_null() {
        // SAFETY: made by infos_to_c.
        unsafe { crate::owned::free_c_infos(ip, ni) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pull(dirs: Vec<Info>) -> Pull {
        Pull::new(1, None, &dirs)
    }
    fn bytes(r: Vec<Ready>) -> Vec<u8> {
        r.into_iter().flat_map(|c| c.2).collect()
    }

    #[test]
    fn tags_at_line_starts_across_chunks() {
        let mut p = pull(vec![Info::new("pmix.iof.tag", Value::boolean(true))]);
        let s = Proc::new("ns", 3);
        let mut got = bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"a\nb", false));
        got.extend(bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"c\n", true)));
        assert_eq!(got, b"[ns,3]<stdout>: a\n[ns,3]<stdout>: bc\n");
    }

    #[test]
    fn xml_whole_lines_escaped() {
        let mut p = pull(vec![Info::new("pmix.iof.xml", Value::boolean(true))]);
        let s = Proc::new("ns", 0);
        assert!(bytes(p.accept(s.clone(), PMIX_FWD_STDERR_CHANNEL, b"x<y", false)).is_empty());
        let got = bytes(p.accept(s.clone(), PMIX_FWD_STDERR_CHANNEL, b"&z\nlast", true));
        assert_eq!(got, b"<stderr rank=\"0\">x&lt;y&amp;z</stderr>\n<stderr rank=\"0\">last</stderr>\n");
    }

    #[test]
    fn tag_variants() {
        let s = Proc::new("ns", 2);
        let mut p = pull(vec![Info::new("pmix.iof.rank", Value::boolean(true))]);
        assert_eq!(bytes(p.accept(s.clone(), PMIX_FWD_STDERR_CHANNEL, b"x\n", false)), b"[2]<stderr>: x\n");
        let mut p = pull(vec![Info::new("pmix.iof.tagfull", Value::boolean(true))]);
        assert_eq!(bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"x\n", false)), b"[ns,2]<stdout>: x\n");
        let mut p = pull(vec![Info::new("pmix.iof.tagdet", Value::boolean(true))]);
        assert_eq!(bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"x\n", false)), b"[ns,2][?:?]<stdout>: x\n");
        p.set_origin(&s, "node7", 4242);
        assert_eq!(bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"y\n", false)), b"[ns,2][node7:4242]<stdout>: y\n");
    }

    #[test]
    fn merge_delivers_stderr_as_stdout() {
        let dirs = vec![Info::new("pmix.iof.mrg", Value::boolean(true))];
        assert_eq!(channels_to_pull(PMIX_FWD_STDOUT_CHANNEL, &dirs), PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL);
        assert_eq!(channels_to_pull(PMIX_FWD_STDOUT_CHANNEL, &[]), PMIX_FWD_STDOUT_CHANNEL);
        let mut p = pull(dirs);
        let s = Proc::new("ns", 0);
        let got = p.accept(s.clone(), PMIX_FWD_STDERR_CHANNEL, b"err\n", true);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, PMIX_FWD_STDOUT_CHANNEL);
        assert!(!got[0].3, "the end of stderr alone does not end the merged stream");
        let got = p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"out\n", true);
        assert_eq!(bytes(got.clone()), b"out\n");
        assert!(got[0].3, "stdout's end after stderr's ends the merged stream");
    }

    #[test]
    fn files_by_rank_and_directory() {
        let d = std::env::temp_dir().join(format!("rpmix-iof-unit-{}", std::process::id()));
        let base = d.join("out").to_string_lossy().into_owned();
        let dir = d.join("tree").to_string_lossy().into_owned();
        let mut p = pull(vec![
            Info::new("pmix.iof.file", Value::string(&base)),
            Info::new("pmix.iof.dir", Value::string(&dir)),
            Info::new("pmix.iof.fonly", Value::boolean(true)),
        ]);
        let s = Proc::new("ns", 1);
        let r = p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"a\n", false);
        p.emit(1, r);
        let r = p.accept(s.clone(), PMIX_FWD_STDERR_CHANNEL, b"b\n", true);
        p.emit(1, r);
        assert_eq!(std::fs::read(format!("{base}.1")).unwrap(), b"a\nb\n");
        assert_eq!(std::fs::read(d.join("tree/ns/rank.1/stdout")).unwrap(), b"a\n");
        assert_eq!(std::fs::read(d.join("tree/ns/rank.1/stderr")).unwrap(), b"b\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn size_buffering_holds_then_flushes() {
        let mut p = pull(vec![Info::new("pmix.iof.bsize", Value::u32(10))]);
        let s = Proc::new("ns", 0);
        assert!(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"12345", false).is_empty());
        assert_eq!(bytes(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"67890", false)), b"1234567890");
        assert!(p.accept(s.clone(), PMIX_FWD_STDOUT_CHANNEL, b"ab", false).is_empty());
        assert_eq!(bytes(p.due(true)), b"ab"); // deregistration flushes
        assert!(p.due(true).is_empty());
    }
}
