#!/usr/bin/env python3
"""Check forwarded output of iof_ranks against what each rank wrote.

usage: iof-verify.py DIR NRANKS
DIR holds expect.R.{out,err} (the writer run standalone), tool.R.{out,err}
(what an attached pmixctl received) and term.{out,err} (pmixrun's own
stdout/stderr). Tools must get exactly the bytes (sha256); the terminal must
hold each rank's bytes whole-line-atomic: every line belongs to one rank, and
a rank's lines in order are its bytes (a newline may end its unterminated last
line so the next rank starts on a line of its own)."""
import hashlib, sys, os

d, n = sys.argv[1], int(sys.argv[2])
bad = 0
def sha(b): return hashlib.sha256(b).hexdigest()[:16]
for ch in ("out", "err"):
    term = open(os.path.join(d, f"term.{ch}"), "rb").read()
    per_rank = {r: [] for r in range(n)}
    for line in term.splitlines(keepends=True):
        tag = line.split(b" ", 2)
        try:
            r = int(tag[0][1:])
            assert tag[0][:1] == b"r" and tag[1] == ch.encode() and r in per_rank
        except Exception:
            print(f"term.{ch}: a line of no single rank: {line[:60]!r}")
            bad += 1
            continue
        per_rank[r].append(line)
    for r in range(n):
        want = open(os.path.join(d, f"expect.{r}.{ch}"), "rb").read()
        tool = open(os.path.join(d, f"tool.{r}.{ch}"), "rb").read()
        got = b"".join(per_rank[r])
        if got.endswith(b"\n") and not want.endswith(b"\n"):
            got = got[:-1]
        ok_tool, ok_term = sha(tool) == sha(want), sha(got) == sha(want)
        print(f"rank {r} std{ch}: {len(want)} bytes sha256 {sha(want)}  tool {'ok' if ok_tool else 'DIFFERS ' + sha(tool) + f' ({len(tool)} bytes)'}"
              f"  terminal {'ok' if ok_term else 'DIFFERS ' + sha(got) + f' ({len(got)} bytes)'}")
        bad += (not ok_tool) + (not ok_term)
sys.exit(1 if bad else 0)
