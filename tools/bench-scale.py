#!/usr/bin/env python3
"""bench-scale.py: how rpmix and OpenPMIx 4.2.2 cost at job sizes of 1K, 64K
and 1M ranks, side by side in one run (issue 18).

The host (c-tests/scale_host.c, written against pmix_server.h only) registers
one namespace of N ranks of which 8 live on this machine, the rest spread over
other (absent) nodes; the node and process maps come from
PMIx_generate_regex/_ppn; every upcall completes inline. Each of the 8 clients
(c-tests/scale_client.c) inits, reads the job size, resolves the host of the
first and last rank and its local peers, fences the whole namespace and
finalizes. Both programs are built once against OpenPMIx's headers and run on
each library (LD_LIBRARY_PATH), so they are the same binaries.

Tables:
  1. per job size: client RSS and PSS after PMIx_Init (mean of 8), client
     init, resolve and fence time (median of 8), server register time and
     RSS after it; 128 ranks per remote node at 1M (8,192 nodes), 8 below.
  2. PMIx_generate_regex / _ppn for 1M ranks on 8,192 and 32,768 nodes.
  3. a long-lived server: 1,000 register/deregister cycles, RSS after the
     first and after the last.
  4. pmixrun -n 64 .. 1024 of the same client on this machine: wall time.
OpenPMIx is capped by a time limit (OPENPMIX_CAP seconds, default 120) at
the largest sizes: the table says what it reached.

usage: tools/bench-scale.py [build-dir]      (default c-tests/build)
Environment: OPENPMIX_INC, RPMIX_LIBDIR, CC, OPENPMIX_CAP.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "c-tests", "build"))
INC = os.environ.get("OPENPMIX_INC", "/usr/lib/x86_64-linux-gnu/pmix2/include")
RLIB = os.path.abspath(os.environ.get("RPMIX_LIBDIR", os.path.join(ROOT, "target", "release")))
CC = os.environ.get("CC", "gcc")
CAP = int(os.environ.get("OPENPMIX_CAP", "120"))
HOST = os.path.join(BUILD, "bench_scale_host")
CLIENT = os.path.join(BUILD, "bench_scale_client")
LIBS = ("openpmix", "rpmix")


def build():
    os.makedirs(BUILD, exist_ok=True)
    for src, out in (("scale_host", HOST), ("scale_client", CLIENT)):
        subprocess.run([CC, "-std=gnu99", "-O2", "-Wall", "-Wextra", "-I", INC, os.path.join(ROOT, "c-tests", src + ".c"),
                        "-o", out, "-l:libpmix.so.2"], check=True)


def env_for(lib):
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    if lib == "rpmix":
        e["LD_LIBRARY_PATH"] = RLIB
    return e


def fields(line):
    """The key=value words of a line (its leading tag, e.g. "host", has no "=")."""
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def run_job(lib, n, ppn, extra=()):
    """(host fields, [client fields], why-not) of one scale_host run."""
    cap = CAP if lib == "openpmix" else 600
    cmd = [HOST, "-N", str(n), "-p", str(ppn), "-c", "8", "-t", str(cap), *extra, "--", CLIENT]
    try:
        p = subprocess.run(cmd, env=env_for(lib), capture_output=True, text=True, timeout=cap + 10)
    except subprocess.TimeoutExpired:
        return None, [], f"over {cap} s"
    host, clients = None, []
    for line in p.stdout.splitlines():
        if line.startswith("host "):
            host = fields(line)
        elif line.startswith("rank="):
            clients.append(fields(line))
    if p.returncode != 0 or host is None or len(clients) != 8:
        why = "time limit" if p.returncode == 124 else f"exit {p.returncode}"
        return host, clients, why + (": " + p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "")
    return host, clients, None


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "MB":
        return f"{v / 1024:.1f} MB"
    if unit == "s":
        if v < 0.001:
            return f"{v * 1e6:.0f} us"
        return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"
    return str(v)


def ratio(a, b):
    return f"{b / a:.2g}" if a and b is not None and a > 0 else "-"


def header(first, second):
    print(f"{first:<10} {second:<40} {'OpenPMIx':>12} {'rpmix':>12} {'ratio':>7}")


def row(first, label, a, b, unit):
    """One measurement on both libraries (a: OpenPMIx, b: rpmix; None: not measured)."""
    return f"{first:<10} {label:<40} {fmt(a, unit):>12} {fmt(b, unit):>12} {ratio(a, b):>7}"


def both(res, key, conv):
    """(OpenPMIx's, rpmix's) value of `key` in each library's fields, or None."""
    return tuple(conv(res[lib][key]) if res[lib] else None for lib in LIBS)


def table_jobs():
    sizes = [(1024, 8), (65536, 8), (1048576, 128)]
    rows = []
    notes = []
    for n, ppn in sizes:
        res = {}
        for lib in LIBS:
            host, clients, why = run_job(lib, n, ppn)
            if why:
                notes.append(f"N={n} {lib}: {why}")
            res[lib] = (host, clients)
        for label, unit, get in (
            ("client RSS after init", "MB", lambda h, c: statistics.mean(int(x["rss_kb"]) for x in c)),
            ("client PSS after init", "MB", lambda h, c: statistics.mean(int(x["pss_kb"]) for x in c)),
            ("client PMIx_Init", "s", lambda h, c: statistics.median(float(x["init_s"]) for x in c)),
            ("client resolve (2 Gets + Resolve_peers)", "s", lambda h, c: statistics.median(float(x["resolve_s"]) for x in c)),
            ("whole-namespace fence", "s", lambda h, c: statistics.median(float(x["fence_s"]) for x in c)),
            ("server register_nspace", "s", lambda h, c: float(h["register_s"])),
            ("server RSS after register", "MB", lambda h, c: int(h["rss_kb"])),
        ):
            vals = {}
            for lib in LIBS:
                h, c = res[lib]
                try:
                    vals[lib] = get(h, c) if h is not None and (len(c) == 8 or "server" in label) else None
                except (KeyError, ValueError, statistics.StatisticsError):
                    vals[lib] = None
            rows.append(row(f"N={n}", label, vals["openpmix"], vals["rpmix"], unit))
    print("1. One namespace of N ranks, 8 of them here (host completes upcalls inline)")
    header("size", "measurement")
    for r in rows:
        print(r)
    for note in notes:
        print("   note:", note)
    print()


def table_regex():
    print("2. PMIx_generate_regex / PMIx_generate_ppn, 1,048,576 ranks")
    header("nodes", "call")
    for ppn in (128, 32):
        res = {}
        for lib in LIBS:
            host, _, why = run_job(lib, 1048576, ppn)
            res[lib] = host
            if host is None:
                print(f"   note: {lib} at {ppn} per node: {why}")
        nodes = next((h["nodes"] for h in res.values() if h), "?")
        for key, call in (("regex_s", "PMIx_generate_regex"), ("ppn_s", "PMIx_generate_ppn")):
            print(row(nodes, call, *both(res, key, float), "s"))
    print()


def table_cycles():
    print("3. A long-lived server: 1,000 register/deregister cycles of a namespace")
    header("size", "RSS")
    for n in (1024,):
        res = {}
        for lib in LIBS:
            try:
                p = subprocess.run([HOST, "-N", str(n), "-R", "1000"], env=env_for(lib), capture_output=True, text=True, timeout=CAP * 3)
                line = next((l for l in p.stdout.splitlines() if l.startswith("cycles ")), None)
                res[lib] = fields(line) if line else None
            except subprocess.TimeoutExpired:
                res[lib] = None
        for key, label in (("rss_first_kb", "after the first cycle"), ("rss_last_kb", "after the last cycle")):
            print(row(f"N={n}", label, *both(res, key, int), "MB"))
    print()


def table_pmixrun():
    print("4. pmixrun -n N of the same client (init, resolve, fence, finalize), this machine")
    print(f"{'ranks':<10} {'wall time':>12} {'per rank':>12}")
    pmixrun = os.path.join(RLIB, "pmixrun")
    for n in (64, 128, 256, 512, 1024):
        t0 = time.monotonic()
        p = subprocess.run([pmixrun, "-n", str(n), CLIENT], env=env_for("rpmix"), capture_output=True, text=True, timeout=600)
        dt = time.monotonic() - t0
        ok = p.returncode == 0 and sum(1 for l in p.stdout.splitlines() if l.startswith("rank=")) == n
        print(f"{n:<10} {fmt(dt, 's') if ok else 'failed (exit %d)' % p.returncode:>12} {fmt(dt / n, 's') if ok else '':>12}")
    print()


def main():
    build()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TMPDIR"] = tmp
        table_jobs()
        table_regex()
        table_cycles()
        table_pmixrun()
    print("ratio = rpmix / OpenPMIx (lower is better); n/a: the run did not finish (see notes)")


if __name__ == "__main__":
    main()
