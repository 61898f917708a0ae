#!/usr/bin/env python3
"""The end of `make test`: what cargo-nextest ran, counted by case.

  test-summary.py <nextest's JUnit report> <run start stamp> [--filtered]

Reads the JUnit report nextest wrote (target/nextest/<profile>/junit.xml)
and prints:
- the cases that did not run here and why (a case calls skip(): its output
  holds "SKIP: <case>: <why>");
- the cases that failed once and passed on their retry (flaky);
- the ten slowest cases;
- the failed cases, each with its verdict (the panic) and the end of its
  output;
- unless --filtered (only some cases ran): every case a bash driver knows that has
  no test (the drivers append the names they know to
  target/nextest/driver-cases.txt; systests/tests/*.rs name the ones they run, or
  run a driver whole as one scenario), and
  the session directories left behind by servers that ended (a directory
  /tmp/rpmix.<host>.<pid> newer than the stamp whose process is gone);
  each is a failure, counted as a case;
- last, the line "N passed, M failed" (skipped cases are not in N).
Exit 1 when anything failed.
"""
import glob
import os
import re
import socket
import sys
import xml.etree.ElementTree as ET


def main():
    report, stamp = sys.argv[1], sys.argv[2]
    whole = "--filtered" not in sys.argv[3:]
    store = os.path.dirname(os.path.dirname(os.path.abspath(report)))
    if not os.path.exists(report):
        print(f"test-summary: no report {report} (nextest did not run)")
        print("0 passed, 1 failed")
        return 1
    passed, failed, skipped, times, flaky = [], [], [], [], []
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '').split('::')[-1]}::{case.get('name')}"
        times.append((float(case.get("time") or 0), name))
        out = "".join((e.text or "") for e in case if e.tag in ("system-out", "system-err"))
        bad = [e for e in case if e.tag in ("failure", "error")]
        flaked = [e for e in case if e.tag in ("flakyFailure", "flakyError")]
        if flaked and not bad:
            flaky.append((name, (flaked[0].get("message") or "") + "\n" + (flaked[0].text or "")))
        if bad:
            failed.append((name, (bad[0].get("message") or "") + "\n" + (bad[0].text or "") + out))
            continue
        m = re.search(r"^SKIP: (.*)$", out, re.M)
        (skipped if m else passed).append((name, m.group(1) if m else ""))

    extra_failures = []
    if whole:
        extra_failures += unmapped_driver_cases(store)
        extra_failures += session_leftovers(stamp)

    if flaky:
        print(f"\n{len(flaky)} cases failed once and passed on their retry (.config/nextest.toml says whose):")
        for name, text in flaky:
            print(f"  FLAKY {name}")
            # (the driver's verdict lines say what failed; else the message)
            said = list(dict.fromkeys(ln.strip() for ln in text.splitlines() if ln.lstrip().startswith("FAIL")))
            for line in (said[:4] or failure_lines(text)[:8]):
                print(f"      {line.strip()[:300]}")
    if skipped:
        print(f"\n{len(skipped)} cases did not run here:")
        for name, why in skipped:
            print(f"  SKIP {name}: {why}")
    print("\nslowest cases:")
    for t, name in sorted(times, reverse=True)[:10]:
        print(f"  {t:7.1f} s  {name}")
    # (failures last, beside the count: a reader of the run's tail sees them)
    if failed:
        print("\nfailed cases:")
        for name, text in failed:
            print(f"FAIL: {name}")
            for line in failure_lines(text):
                print(f"    {line[:400]}")
    for what in extra_failures:
        print(f"FAIL: {what}")
    nfail = len(failed) + len(extra_failures)
    print(f"\n{len(passed)} passed, {nfail} failed")
    return 1 if nfail else 0


def failure_lines(text):
    """What a failed case said: its panic (the case's verdict) first, then
    the end of its output."""
    lines = text.strip().splitlines()
    start = next((i for i, ln in enumerate(lines) if "panicked at" in ln), None)
    verdict = []
    if start is not None:
        for ln in lines[start:start + 16]:
            if ln.startswith("note: run with"):
                break
            verdict.append(ln)
    tail = [ln for ln in lines[-12:] if ln not in verdict]
    return verdict + (["..."] if verdict and tail else []) + tail


def unmapped_driver_cases(store):
    """Cases a driver knows that no test runs."""
    known = set()
    try:
        with open(os.path.join(store, "driver-cases.txt")) as f:
            for line in f:
                if "\t" in line:
                    known.add(tuple(line.rstrip("\n").split("\t", 1)))
    except OSError:
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    tested, scenarios = set(), set()
    for path in glob.glob(os.path.join(here, "..", "systests", "tests", "*.rs")):
        src = open(path).read()
        for m in re.finditer(r'driver_cases!\("([^"]+)".*?\{(.*?)\}\);', src, re.S):
            for c in re.findall(r'^\s*\w+: "([^"]+)",', m.group(2), re.M):
                tested.add((m.group(1), c))
        # a macro that lists a driver's cases under a prefix
        # (`name: concat!($prefix, "/case")`), invoked as name!("prefix", ...)
        for m in re.finditer(r'macro_rules!\s*(\w+)\s*\{.*?driver_cases!\("([^"]+)"(.*?)\}\);', src, re.S):
            suffixes = re.findall(r'concat!\(\$prefix, "([^"]+)"\)', m.group(3))
            for prefix in re.findall(m.group(1) + r'!\("([^"]+)"', src):
                tested.update((m.group(2), prefix + s) for s in suffixes)
        scenarios.update(re.findall(r'driver_scenario\("([^"]+)"', src))
    # a driver's set-up steps (build, root, ...) run with every case
    setup = {"build", "case-filter"}
    return [f"{d} case {c} has no test in systests/tests/ (add it to the driver_cases! of its area)"
            for d, c in sorted(known - tested) if c not in setup and d not in scenarios]


def session_leftovers(stamp):
    """Session directories of servers that ended, made during the run."""
    left = []
    try:
        since = os.stat(stamp).st_mtime
    except OSError:
        return []
    for d in glob.glob(f"/tmp/rpmix.{socket.gethostname()}.*"):
        try:
            pid = int(d.rsplit(".", 1)[1])
            if os.stat(d).st_mtime < since:
                continue
        except (ValueError, OSError):
            continue
        if not os.path.exists(f"/proc/{pid}"):
            left.append(f"no-session-leftovers: {d} was left behind by a server that ended")
    return left


if __name__ == "__main__":
    sys.exit(main())
