//! rpmix's two request codecs side by side, on the requests a job sends
//! most: each request encoded and decoded again, median of 7 rounds
//! (`make bench`, tools/bench-codecs.sh). The question it answers: could
//! rpmix's peers speak OpenPMIx's v41 form among themselves and drop
//! rpmix's own pack format?

use std::time::Instant;

use pmix::msg::v41::{self, Form};
use pmix::msg::{Collective, Request};
use pmix::owned::{Info, Proc, Value};

fn infos(n: usize) -> Vec<Info> {
    (0..n)
        .map(|i| if i % 2 == 0 { Info::new(&format!("key.{i}"), Value::u32(i as u32)) } else { Info::new(&format!("key.{i}"), Value::string("a string of thirty-two bytes....")) })
        .collect()
}

fn workloads() -> Vec<(&'static str, Request)> {
    let kib = vec![7u8; 1024];
    vec![
        ("fence, 8 procs, 2 infos", Request::barrier(Collective::Fence, (0..8).map(|r| Proc::new("job.1", r)).collect(), infos(2))),
        ("get, 1 info", Request::Get { target: Proc::new("job.1", 3), key: "pmix.hname".into(), info: infos(1) }),
        ("commit, 10 x 1 KiB", Request::Commit { puts: (0..10).map(|i| (pmix::abi::PMIX_GLOBAL, Info::new(&format!("blob.{i}"), Value::bytes(&kib)))).collect() }),
        ("job control, 16 infos", Request::JobControl { targets: vec![Proc::wildcard("job.1")], directives: infos(16) }),
    ]
}

/// Median ns per encode+decode over 7 rounds of `n`.
fn time(n: u32, mut f: impl FnMut()) -> f64 {
    let mut rounds: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    rounds.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rounds[3]
}

fn main() {
    let me = Proc::new("job.1", 0);
    let form = Form { described: false, server_major: 4, uid: 0 };
    println!("{:<26} | {:>12} {:>7} | {:>12} {:>7} | ratio", "request (encode+decode)", "rpmix ns", "bytes", "v41 ns", "bytes");
    println!("{:-<26}-|-{:-<12}-{:-<7}-|-{:-<12}-{:-<7}-|------", "", "", "", "", "");
    for (name, req) in workloads() {
        let ours = req.encode().unwrap();
        let theirs = v41::encode(&req, form).unwrap();
        let n = 20_000;
        let a = time(n, || {
            let b = req.encode().unwrap();
            std::hint::black_box(Request::decode(req.tag(), &b).unwrap());
        });
        let b = time(n, || {
            let b = v41::encode(&req, form).unwrap();
            std::hint::black_box(v41::decode(&b, false, &me).unwrap());
        });
        println!("{:<26} | {:>12.0} {:>7} | {:>12.0} {:>7} | {:.2}", name, a, ours.len(), b, theirs.len(), b / a);
    }
    println!("(ratio: v41 / rpmix's own; above 1, OpenPMIx's form costs more)");
}
