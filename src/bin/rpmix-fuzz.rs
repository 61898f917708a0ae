//! rpmix-fuzz: a coverage-free mutation fuzzer for the inputs a peer or a
//! caller controls. It needs nothing beyond the stable toolchain.
//!
//!   rpmix-fuzz [--seconds N] [--target T] [--seed S]
//!
//! Targets (default: all, N seconds each, default 15):
//!   decode   the wire decoders of the server's requests: infos, procs,
//!            strings, and every PMIx data type through the generic decoder
//!   unpack   PMIx_Data_unpack of mutated buffers, every type, into caller
//!            storage (what a program gives the library)
//!   openpmix-answers  what an OpenPMIx server sends an rpmix client:
//!            answers of every request kind, events, the job data
//!   openpmix-requests  what an OpenPMIx client or tool sends an rpmix
//!            server: connect messages and every request it translates
//!   cleanup  the cleanup-path parser: whatever it accepts is absolute,
//!            normalised, not "/" and free of ".."
//!   frames   a live server in this process: mutated frames (hellos and
//!            requests of a registered rank, and raw bytes) on fresh
//!            connections; after every batch, a probe must be answered
//!
//!   rpmix-fuzz --write-seeds DIR
//!
//! writes the seed corpus of the coverage-guided targets (fuzz/, cargo
//! fuzz) into DIR/<target>/: captured OpenPMIx requests (src/msg/captures.txt)
//! in both codecs, and the seeds below.
//!
//! Each input starts from a valid seed and gets 1-8 mutations (bit flips,
//! random bytes, boundary integers, inserted, deleted, duplicated or cut
//! ranges). A panic or a failed probe stops the run with exit status 1 and
//! prints the input (hex). The last line counts executions per target.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use pmix::abi::*;
use pmix::data::kind::Kind;
use pmix::data::pack::{Decoder, Encoder};
use pmix::owned::{decode_infos, decode_procs, decode_str, encode_infos, encode_procs, encode_str, Info, Proc, Value};
use pmix::runtime::frame;
use pmix::server::host::Host;

/// xorshift64*: fast, deterministic from a seed (runs can be replayed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Apply 1-8 random mutations to `data`.
fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    const BOUNDS: [u32; 8] = [0, 1, 2, 0x7f, 0xff, 0xffff, 0x7fff_ffff, 0xffff_ffff];
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            2 if len >= 4 => {
                let i = rng.below(len - 3);
                data[i..i + 4].copy_from_slice(&BOUNDS[rng.below(BOUNDS.len())].to_le_bytes());
            }
            3 => {
                let i = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                data.splice(i..i, bytes);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                data.drain(i..i + n);
            }
            5 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                let copy = data[i..i + n].to_vec();
                let at = rng.below(data.len() + 1);
                data.splice(at..at, copy);
            }
            _ => data.truncate(rng.below(len + 1)),
        }
    }
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Infos of several types: the seeds of the info decoders.
fn sample_infos() -> Vec<Info> {
    vec![
        Info::new("k.str", Value::string("a string value")),
        Info::new("k.u32", Value::u32(42)),
        Info::new("k.bool", Value::boolean(true)),
        Info::new("k.proc", Value::proc(&Proc::new("ns.1", 3))),
        Info::new("k.procs", Value::procs(&[Proc::new("ns.1", 0), Proc::new("ns.2", 1)])),
        Info::new("k.infos", Value::infos(&[Info::new("inner", Value::string("x"))])),
    ]
}

fn encoded_infos() -> Vec<u8> {
    let mut e = Encoder::default();
    encode_infos(&mut e, &sample_infos()).expect("seed infos encode");
    e.into_bytes()
}

fn encoded_procs() -> Vec<u8> {
    let mut e = Encoder::default();
    encode_procs(&mut e, &[Proc::new("ns.1", 0), Proc::new("ns.1", PMIX_RANK_WILDCARD)]);
    e.into_bytes()
}

// ---- targets ----

fn decode_one(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut input = seeds[rng.below(seeds.len())].clone();
    mutate(rng, &mut input);
    let mut d = Decoder::new(&input);
    match rng.below(4) {
        0 => drop(decode_infos(&mut d)),
        1 => drop(decode_procs(&mut d)),
        2 => drop(decode_str(&mut d)),
        _ => {
            // the generic decoder, for a kind a peer could name
            let kinds = [Kind::Info, Kind::Proc, Kind::App, Kind::Query, Kind::String];
            let kind = kinds[rng.below(kinds.len())];
            let n = rng.below(5);
            // SAFETY: a new allocation of the decoder's, freed right here.
            if let Ok((p, n)) = unsafe { d.elems(kind, n, 0) } {
                // SAFETY: what elems returned: `n` valid elements of `kind`.
                unsafe { pmix::data::elem::free_array(kind, p, n) };
            }
        }
    }
    input
}

/// OpenPMIx's answers as an rpmix client reads them (client/openpmix.rs).
fn openpmix_answer_one(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut input = seeds[rng.below(seeds.len())].clone();
    mutate(rng, &mut input);
    pmix::client::openpmix::read_as_every_answer(&input, rng.below(8) == 0);
    input
}

fn openpmix_request_one(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut input = seeds[rng.below(seeds.len())].clone();
    mutate(rng, &mut input);
    pmix::server::openpmix::read_as_every_request(&input, rng.below(8) == 0);
    input
}

/// What an OpenPMIx client or tool sends a server: its connect messages
/// (without the header) and requests of every kind rpmix translates.
fn openpmix_request_seeds() -> Vec<Vec<u8>> {
    use pmix::ptl::{cmd, Msg};
    let me = Proc::new("ns", 1);
    let mut seeds = vec![pmix::ptl::connect_message(&me, "4.2.2", false)[16..].to_vec()];
    if let Ok(t) = pmix::ptl::tool_connect_message(None, "4.2.2", false, &sample_infos()) {
        seeds.push(t[16..].to_vec());
    }
    let mut get = Msg::request(cmd::GETNB, false);
    let _ = get.string(Some("ns"));
    get.rank(0);
    let _ = get.infos(&sample_infos());
    let _ = get.string(Some("key"));
    let mut commit = Msg::request(cmd::COMMIT, false);
    let mut inner = Msg::plain(false);
    let _ = inner.kval("k", &Value::string("v").0);
    commit.scope(PMIX_LOCAL);
    let _ = commit.buffer(&inner);
    commit.scope(PMIX_REMOTE);
    let _ = commit.buffer(&inner);
    let mut fence = Msg::request(cmd::FENCENB, false);
    let _ = fence.procs(&[Proc::wildcard("ns")]);
    let _ = fence.infos(&sample_infos());
    let mut lookup = Msg::request(cmd::LOOKUPNB, false);
    lookup.u32(0);
    lookup.size(2);
    let _ = lookup.string(Some("a"));
    let _ = lookup.string(Some("b"));
    let _ = lookup.infos(&[]);
    let mut notify = Msg::request(cmd::NOTIFY, false);
    notify.status(-145);
    notify.range(PMIX_RANGE_LOCAL);
    let _ = notify.infos(&sample_infos());
    let mut reg = Msg::request(cmd::REGEVENTS, false);
    reg.size(1);
    reg.status(4242);
    let _ = reg.infos(&[]);
    let mut pull = Msg::request(cmd::IOF_PULL, false);
    let _ = pull.procs(std::slice::from_ref(&me));
    let _ = pull.infos(&sample_infos());
    pull.channel(PMIX_FWD_STDOUT_CHANNEL);
    pull.size(3);
    let mut push = Msg::request(cmd::IOF_PUSH, false);
    let _ = push.procs(std::slice::from_ref(&me));
    let _ = push.infos(&[]);
    let _ = push.byte_object(b"input");
    let mut abort = Msg::request(cmd::ABORT, false);
    abort.status(3);
    let _ = abort.string(Some("bye"));
    let _ = abort.procs(&[me]);
    for m in [get, commit, fence, lookup, notify, reg, pull, push, abort] {
        seeds.push(m.into_bytes());
    }
    seeds
}

/// Answers an OpenPMIx server gives: a Get's (a proc and its keys in a byte
/// object), a lookup's, an event, job data.
fn openpmix_seeds() -> Vec<Vec<u8>> {
    use pmix::ptl::{cmd, Msg};
    let mut obj = Msg::plain(false);
    obj.proc(&Proc::new("ns", 1));
    let _ = obj.kval("k", &Value::string("v").0);
    let _ = obj.kval("n", &Value::u32(7).0);
    let mut get = Msg::plain(false);
    get.status(0);
    let _ = get.byte_object(obj.bytes());
    let mut ev = Msg::request(cmd::NOTIFY, false);
    ev.status(-145);
    ev.proc(&Proc::new("ns", 0));
    let _ = ev.infos(&sample_infos());
    let mut job = Msg::plain(false);
    let _ = job.string(Some("ns"));
    let _ = job.kval("pmix.job.size", &Value::u32(2).0);
    let _ = job.kval("pmix.node.arr", &Value::infos(&sample_infos()).0);
    let _ = job.kval("pmix.pblob", &{
        let mut b = Msg::plain(false);
        b.rank(1);
        let _ = b.kval("pmix.lrank", &Value::u16(1).0);
        let bo = b.into_bytes();
        // SAFETY: a byte object pointing at `bo`, copied by Value::load.
        unsafe { Value::load(&pmix_byte_object_t { bytes: bo.as_ptr() as *mut core::ffi::c_char, size: bo.len() } as *const _ as *const core::ffi::c_void, PMIX_BYTE_OBJECT).unwrap().0 }
    });
    let mut infos = Msg::plain(false);
    infos.status(0);
    let _ = infos.infos(&sample_infos());
    vec![get.into_bytes(), ev.into_bytes(), job.into_bytes(), infos.into_bytes()]
}

fn unpack_one(rng: &mut Rng, seeds: &[(pmix_data_type_t, Vec<u8>)]) -> Vec<u8> {
    let (t, seed) = &seeds[rng.below(seeds.len())];
    let mut input = seed.clone();
    mutate(rng, &mut input);
    // SAFETY: a zeroed buffer loaded with a copy of our bytes, unpacked into
    // storage of the right type and size, everything freed here.
    unsafe {
        let mut buf: pmix_data_buffer_t = core::mem::zeroed();
        let mut copy = input.clone();
        // (embed copies the bytes: `copy` stays ours)
        let bo = pmix_byte_object_t { bytes: copy.as_mut_ptr() as *mut core::ffi::c_char, size: copy.len() };
        if pmix::ffi::data_buffer::PMIx_Data_embed(&mut buf, &bo) != PMIX_SUCCESS {
            return input;
        }
        let kind = Kind::of(*t).expect("seed types are known");
        let n = 4usize;
        let dest = pmix::data::elem::alloc_array(kind, n).expect("small array");
        let mut count = 1 + rng.below(n) as i32;
        // (all or nothing: on an error nothing was written, and the zeroed
        // elements free as nothing)
        let _ = pmix::ffi::data_buffer::PMIx_Data_unpack(core::ptr::null(), &mut buf, dest as *mut core::ffi::c_void, &mut count, *t);
        pmix::data::elem::free_array(kind, dest, n);
        pmix::ffi::data_objects::PMIx_Data_buffer_destruct(&mut buf);
    }
    input
}

fn cleanup_one(rng: &mut Rng) -> Vec<u8> {
    const PARTS: [&str; 10] = ["/", "tmp", "..", ".", "x", "//", ",", " ", "a/b", "\u{e9}"];
    let mut s = String::new();
    for _ in 0..1 + rng.below(8) {
        s.push_str(PARTS[rng.below(PARTS.len())]);
    }
    let key = ["pmix.reg.cleanup", "pmix.reg.cleanupdir", "pmix.clnup.ignore"][rng.below(3)];
    if let Ok(r) = pmix::server::cleanup::parse(&[Info::new(key, Value::string(&s))]) {
        for p in r.files.iter().chain(r.dirs.iter().map(|d| &d.path)).chain(r.ignores.iter()) {
            let ok = p.is_absolute() && p != std::path::Path::new("/") && !p.components().any(|c| c == std::path::Component::ParentDir);
            assert!(ok, "cleanup accepted {p:?} from {s:?}");
        }
    }
    s.into_bytes()
}

/// A host that answers nothing itself (every upcall: not supported).
struct QuietHost;
impl Host for QuietHost {}

fn hello_body(ns: &str, rank: u32) -> Vec<u8> {
    let mut e = Encoder::default();
    e.u32(pmix::wire::PROTOCOL);
    encode_str(&mut e, ns);
    e.u32(rank);
    e.into_bytes()
}

/// Connect, send, read a little (a reply or the close), give up after `wait`.
fn exchange(path: &std::path::Path, bytes: &[u8], wait: Duration) -> Option<usize> {
    let mut s = UnixStream::connect(path).ok()?;
    s.set_read_timeout(Some(wait)).ok()?;
    let _ = s.write_all(bytes);
    let mut buf = [0u8; 4096];
    let mut got = 0;
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(got),
            Ok(n) => {
                got += n;
                if got >= 14 {
                    return Some(got);
                }
            }
            Err(_) => return if got > 0 { Some(got) } else { None },
        }
    }
}

fn frames(rng: &mut Rng, seconds: u64) -> Result<u64, String> {
    pmix::server::init(Box::new(QuietHost), &[]).map_err(|e| format!("server init: {e}"))?;
    let ns = "fuzz.1";
    let h = pmix::server::handle().ok_or("no server handle")?;
    let (uid, gid) = (nix::unistd::getuid().as_raw(), nix::unistd::getgid().as_raw());
    h.call(move |s, _| {
        s.register_nspace(ns, 2, vec![Info::new("pmix.job.size", Value::u32(2))]);
        s.register_client(&Proc::new(ns, 0), uid, gid, 0);
        s.register_client(&Proc::new(ns, 1), uid, gid, 0);
    })
    .ok_or("register")?;
    let path = pmix::server::SERVER.lock().as_ref().map(|g| g.session.path.join("server.sock")).ok_or("no socket path")?;
    // Seeds: a registered rank's hello followed by requests it may send.
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let hello = frame(1, pmix::wire::HELLO, &hello_body(ns, 0));
    let mut commit = Encoder::default();
    let _ = encode_infos(&mut commit, &sample_infos());
    for (tag, body) in [
        (pmix::wire::COMMIT, commit.into_bytes()),
        (pmix::wire::GET, {
            let mut e = Encoder::default();
            Proc::new(ns, 1).encode(&mut e);
            encode_str(&mut e, "k.str");
            let _ = encode_infos(&mut e, &[]);
            e.into_bytes()
        }),
        (pmix::wire::LOG, encoded_infos()),
        (pmix::wire::PUBLISH, encoded_infos()),
        (pmix::wire::QUERY, vec![1, 0, 0, 0]),
        (pmix::wire::JOB_CONTROL, [encoded_procs(), encoded_infos()].concat()),
        (pmix::wire::GROUP_CONSTRUCT, [hello_body("grp", 0), encoded_procs(), encoded_infos()].concat()),
    ] {
        let mut s = hello.clone();
        s.extend(frame(2, tag, &body));
        seeds.push(s);
    }
    seeds.push(frame(1, pmix::wire::TOOL_HELLO, &encoded_infos()));
    let probe = frame(9, pmix::wire::HELLO, &hello_body(ns, 9999));
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut n = 0u64;
    while Instant::now() < end {
        let mut input = seeds[rng.below(seeds.len())].clone();
        mutate(rng, &mut input);
        // (one read at most: a hello that is accepted keeps the rank connected
        // until this side closes, which frees it for the next input)
        let _ = exchange(&path, &input, Duration::from_millis(3));
        n += 1;
        if n % 64 == 0 && exchange(&path, &probe, Duration::from_secs(5)).is_none() {
            return Err(format!("the server stopped answering after input {}", hex(&input)));
        }
    }
    if exchange(&path, &probe, Duration::from_secs(5)).is_none() {
        return Err("the server stopped answering".into());
    }
    let _ = pmix::server::finalize();
    Ok(n)
}

fn run_for(seconds: u64, mut one: impl FnMut() -> Vec<u8>) -> Result<u64, String> {
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut n = 0u64;
    while Instant::now() < end {
        for _ in 0..256 {
            let mut last = Vec::new();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| last = one()));
            if r.is_err() {
                return Err(format!("panic on input {}", hex(&last)));
            }
            n += 1;
        }
    }
    Ok(n)
}

/// The hex of a captures.txt line as bytes.
fn unhex(h: &str) -> Vec<u8> {
    (0..h.len() / 2).filter_map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok()).collect()
}

/// The seed corpus of the coverage-guided targets (fuzz/fuzz_targets/*.rs:
/// each reads its first bytes as the choices this writes).
fn write_seeds(dir: &std::path::Path, unpack_seeds: &[(pmix_data_type_t, Vec<u8>)]) -> std::io::Result<usize> {
    use pmix::msg::{snapshot, v41, Hello, ToolHello};
    let mut sets: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();
    let who = Proc::new("captured", 0);
    let (mut v41_req, mut rpmix_req) = (Vec::new(), Vec::new());
    for line in include_str!("../msg/captures.txt").lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let Some((form, h)) = line.split_once(' ') else { continue };
        let bytes = unhex(h);
        if let Ok(v41::Incoming::Request(req)) = v41::decode(&bytes, form == "true", &who) {
            if let Ok(body) = req.encode() {
                rpmix_req.push([req.tag().to_le_bytes().to_vec(), body].concat());
            }
        }
        v41_req.push([vec![u8::from(form == "true")], bytes].concat());
    }
    v41_req.extend(openpmix_request_seeds().into_iter().map(|b| [vec![0], b].concat()));
    let mut get = Encoder::default();
    Proc::new("ns", 1).encode(&mut get);
    encode_str(&mut get, "k.str");
    let _ = encode_infos(&mut get, &sample_infos());
    rpmix_req.push([pmix::wire::GET.to_le_bytes().to_vec(), get.into_bytes()].concat());
    rpmix_req.push([pmix::wire::LOG.to_le_bytes().to_vec(), encoded_infos()].concat());
    rpmix_req.push([pmix::wire::JOB_CONTROL.to_le_bytes().to_vec(), encoded_procs(), encoded_infos()].concat());
    sets.push(("rpmix_request", rpmix_req));
    sets.push(("v41_request", v41_req));
    sets.push(("v41_answer", openpmix_seeds().into_iter().flat_map(|b| [[vec![0], b.clone()].concat(), [vec![1], b].concat()]).collect()));
    let mut data = Vec::new();
    for (t, b) in unpack_seeds {
        for sel in [1u8, 2 | (1 << 2), 2 | (3 << 2)] {
            data.push([vec![*t as u8, sel], b.clone()].concat());
        }
    }
    data.push([vec![PMIX_INFO as u8, 1 << 2], encoded_infos()[4..].to_vec()].concat());
    data.push([vec![PMIX_PROC as u8, 2 << 2], encoded_procs()[4..].to_vec()].concat());
    sets.push(("data_unpack", data));
    let mut hellos = vec![
        Hello { protocol: pmix::wire::PROTOCOL, proc: Proc::new("job.1", 3), token: None }.encode(),
        Hello { protocol: pmix::wire::PROTOCOL, proc: Proc::new("job.1", 3), token: Some("a-token".into()) }.encode(),
        ToolHello { protocol: pmix::wire::PROTOCOL, chosen: Some(Proc::new("tool.1", 0)) }.encode(),
        ToolHello { protocol: pmix::wire::PROTOCOL, chosen: None }.encode(),
        pmix::ptl::connect_message(&Proc::new("ns", 1), "4.2.2", false)[16..].to_vec(),
        pmix::ptl::connect_message(&Proc::new("ns", 1), "4.2.2", true)[16..].to_vec(),
    ];
    if let Ok(t) = pmix::ptl::tool_connect_message(None, "4.2.2", false, &sample_infos()) {
        hellos.push(t[16..].to_vec());
    }
    sets.push(("hello", hellos));
    let snap = snapshot::encode(&[(0, b"rank zero".as_slice()), (1, b"one".as_slice()), (7, b"".as_slice())]);
    sets.push(("snapshot", [0u32, 1, 7, 3].iter().map(|r| [r.to_le_bytes().to_vec(), snap.clone()].concat()).collect()));
    let mut n = 0;
    for (target, seeds) in sets {
        let d = dir.join(target);
        std::fs::create_dir_all(&d)?;
        let mut seen = std::collections::HashSet::new();
        for s in seeds {
            if seen.insert(s.clone()) {
                std::fs::write(d.join(format!("seed-{:03}", seen.len())), &s)?;
                n += 1;
            }
        }
    }
    Ok(n)
}

fn main() -> std::process::ExitCode {
    let mut seconds = 15u64;
    let mut seeds_dir: Option<std::path::PathBuf> = None;
    let mut target = "all".to_string();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--seconds" => seconds = v.parse().unwrap_or(seconds),
            "--target" => target = v,
            "--seed" => seed = v.parse().unwrap_or(seed),
            "--write-seeds" => seeds_dir = Some(v.into()),
            other => {
                eprintln!("rpmix-fuzz: unknown argument {other} (see the source's header)");
                return std::process::ExitCode::from(2);
            }
        }
        i += 2;
    }
    let mut rng = Rng(seed | 1);
    let decode_seeds = vec![encoded_infos(), encoded_procs(), {
        let mut e = Encoder::default();
        encode_str(&mut e, "a name");
        e.into_bytes()
    }];
    let mut unpack_seeds = Vec::new();
    for (t, v) in [
        (PMIX_INFO, sample_infos()),
        (PMIX_VALUE, vec![Info::new("v", Value::procs(&[Proc::new("ns", 1)]))]),
        (PMIX_PROC, vec![]),
    ] {
        // SAFETY: packing values of our own into a zeroed buffer we destruct.
        let bytes = unsafe {
            let mut buf: pmix_data_buffer_t = core::mem::zeroed();
            let rc = match t {
                PMIX_INFO => pmix::ffi::data_buffer::PMIx_Data_pack(core::ptr::null(), &mut buf, v.as_ptr() as *mut core::ffi::c_void, v.len() as i32, PMIX_INFO),
                PMIX_VALUE => pmix::ffi::data_buffer::PMIx_Data_pack(core::ptr::null(), &mut buf, &v[0].0.value as *const pmix_value_t as *mut core::ffi::c_void, 1, PMIX_VALUE),
                _ => {
                    let p = Proc::new("ns.9", 7).to_c();
                    pmix::ffi::data_buffer::PMIx_Data_pack(core::ptr::null(), &mut buf, &p as *const pmix_proc_t as *mut core::ffi::c_void, 1, PMIX_PROC)
                }
            };
            assert_eq!(rc, PMIX_SUCCESS, "seed packs");
            let b = std::slice::from_raw_parts(buf.base_ptr as *const u8, buf.bytes_used).to_vec();
            pmix::ffi::data_objects::PMIx_Data_buffer_destruct(&mut buf);
            b
        };
        unpack_seeds.push((t, bytes));
    }
    if let Some(dir) = seeds_dir {
        return match write_seeds(&dir, &unpack_seeds) {
            Ok(n) => {
                println!("rpmix-fuzz: {n} seeds in {}", dir.display());
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("rpmix-fuzz: {}: {e}", dir.display());
                std::process::ExitCode::from(1)
            }
        };
    }
    let mut report = Vec::new();
    let all = target == "all";
    let mut run = |name: &str, r: Result<u64, String>| match r {
        Ok(n) => {
            report.push(format!("{name} {n}"));
            true
        }
        Err(e) => {
            eprintln!("rpmix-fuzz: {name}: {e}");
            false
        }
    };
    let mut ok = true;
    if all || target == "decode" {
        ok &= run("decode", run_for(seconds, || decode_one(&mut rng, &decode_seeds)));
    }
    if all || target == "unpack" {
        ok &= run("unpack", run_for(seconds, || unpack_one(&mut rng, &unpack_seeds)));
    }
    if all || target == "openpmix-answers" {
        let seeds = openpmix_seeds();
        ok &= run("openpmix-answers", run_for(seconds, || openpmix_answer_one(&mut rng, &seeds)));
    }
    if all || target == "openpmix-requests" {
        let seeds = openpmix_request_seeds();
        ok &= run("openpmix-requests", run_for(seconds, || openpmix_request_one(&mut rng, &seeds)));
    }
    if all || target == "cleanup" {
        ok &= run("cleanup", run_for(seconds, || cleanup_one(&mut rng)));
    }
    if all || target == "frames" {
        ok &= run("frames", frames(&mut rng, seconds));
    }
    println!("rpmix-fuzz: executions: {}", report.join(", "));
    if ok {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}
