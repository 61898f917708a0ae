#!/usr/bin/env python3
"""The manual pages (man/*.1) against the programs' --help.

  man-check.py BINDIR

For pmixrun and pmixctl: every option `--help` prints is documented in the
man page's OPTIONS (and COMMANDS) sections, and every option documented
there is printed by `--help`; for pmixctl, the same for the commands. Each
page must also render without a warning (groff -man -ww), when groff is
installed. Exit 1 on any difference.

The help text (a constant in each program) and the man page (roff, with
more: environment, files, exit status, examples) are kept by hand; this
check is what keeps them saying the same thing.
"""
import re
import shutil
import subprocess
import sys

PAGES = {"pmixrun": "man/pmixrun.1", "pmixctl": "man/pmixctl.1"}
OPTION = re.compile(r"(?<![\w\-\\])(--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)")


def roff_text(line):
    """A roff line as text: the macro name dropped, escapes resolved."""
    if line.startswith(".\\\""):
        return ""
    if line.startswith("."):
        line = line.split(None, 1)[1] if " " in line else ""
    line = re.sub(r"\\f(\[[^\]]*\]|.)", "", line)
    line = line.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    return line.replace('"', " ")


def sections(path):
    """{section name: [roff lines]}"""
    out, cur = {}, None
    for line in open(path).read().splitlines():
        m = re.match(r"\.SH\s+\"?([^\"]+)\"?", line)
        if m:
            cur = m.group(1).strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


def man_options(secs):
    text = "\n".join(roff_text(l) for s in ("OPTIONS", "COMMANDS") for l in secs.get(s, []))
    return set(OPTION.findall(text))


def man_commands(secs):
    """The first word of each item (.TP / .TQ) under COMMANDS."""
    lines = secs.get("COMMANDS", [])
    out = set()
    for i, l in enumerate(lines):
        if l.startswith((".TP", ".TQ")) and i + 1 < len(lines):
            words = roff_text(lines[i + 1]).split()
            if words:
                out.add(words[0])
    return out


def help_commands(text):
    """The command words of the help's Commands: section (two-space indent;
    `a | b | c` names several)."""
    m = re.search(r"^Commands:\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    out = set()
    for line in (m.group(1).splitlines() if m else []):
        if not re.match(r"  \S", line):
            continue
        words = line.split()
        out.add(words[0])
        for i, w in enumerate(words[:-1]):
            if w == "|":
                out.add(words[i + 1])
    return out


def main():
    bindir = sys.argv[1] if len(sys.argv) > 1 else "target/release"
    bad = 0
    groff = shutil.which("groff")
    for prog, page in PAGES.items():
        help_text = subprocess.run([f"{bindir}/{prog}", "--help"], capture_output=True, text=True, check=True).stdout
        secs = sections(page)
        h, m = set(OPTION.findall(help_text)), man_options(secs)
        for o in sorted(h - m):
            print(f"man-check: {prog} --help prints {o}, which {page} does not document")
            bad += 1
        for o in sorted(m - h):
            print(f"man-check: {page} documents {o}, which {prog} --help does not print")
            bad += 1
        hc, mc = help_commands(help_text), man_commands(secs)
        if hc or "COMMANDS" in secs:
            for c in sorted(hc - mc):
                print(f"man-check: {prog} --help lists the command {c}, which {page} does not document")
                bad += 1
            for c in sorted(mc - hc):
                print(f"man-check: {page} documents the command {c}, which {prog} --help does not list")
                bad += 1
        if groff:
            r = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", page], capture_output=True, text=True)
            if r.returncode != 0 or r.stderr.strip():
                print(f"man-check: {page} does not render cleanly:\n{r.stderr}")
                bad += 1
        print(f"man-check: {prog}: {len(h)} options" + (f", {len(hc)} commands" if hc else "") + f" in --help and {page}" + ("" if groff else " (not rendered: no groff)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
