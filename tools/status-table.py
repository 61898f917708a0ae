#!/usr/bin/env python3
"""The API status table of docs/api-status.md, derived from src/ffi/*.rs.

An entry whose body is `not_yet!(...)` / `not_yet_void!(...)` answers
PMIX_ERR_NOT_SUPPORTED (or does nothing, for void) and is "not yet";
everything else is "implemented".

  status-table.py print      print the table (markdown)
  status-table.py check      exit 1 when docs/api-status.md's table differs from the sources
"""
import glob
import re
import sys

# Every file of src/ffi (one per API family): OpenPMIx 4.2.2's functions and,
# beside them, the ones OpenPMIx 4.2.3-5.0.9 add (tools/exports-newer.txt).
# Those may be made by macros, so a newer name counts as implemented unless
# its body is a stub.
FILES = sorted(glob.glob("src/ffi/*.rs"))
NEWER_FILES = FILES
NEWER_LIST = "tools/exports-newer.txt"
DOC = "docs/api-status.md"
BEGIN, END = "<!-- status-table:begin -->", "<!-- status-table:end -->"

# The area of each group (by name prefix), named for a stub; first match wins.
PLAN = [
    ("PMIx_Job_control", "job control"), ("PMIx_Process_monitor", "monitoring"),
    ("PMIx_IOF", "IO forwarding"), ("PMIx_server_IOF", "IO forwarding"),
    ("PMIx_tool", "tools"), ("PMIx_server_setup", "setup APIs"),
    ("PMIx_server", "server core"), ("PMIx_generate", "server core"),
    ("PMIx_Store_internal", "server core"),
    ("PMIx_Group", "groups"), ("PMIx_Fabric", "fabric (not planned yet)"),
    ("PMIx_Compute_distances", "hwloc device distances"),
    ("PMIx_Get_cpuset", "topology (not planned yet)"), ("PMIx_Get_relative_locality", "topology (not planned yet)"),
    ("PMIx_Register_attributes", "attribute registration (not planned yet)"),
    ("PMIx_", "client core"),
]


def stubs(files):
    """Names whose body is only not_yet!()."""
    out = set()
    for f in files:
        text = open(f).read()
        for m in re.finditer(r'pub unsafe extern "C" fn (PMIx_\w+)\([^{]*\{(.*?)\n\}\n', text, re.S):
            # (its last expression: a stub may first answer INIT before init)
            if re.search(r"not_yet(_void)?!\(\"%s\"\)\s*$" % m.group(1), m.group(2)):
                out.add(m.group(1))
    return out


def newer_entries():
    names = [l.strip() for l in open(NEWER_LIST) if l.strip() and not l.startswith("#")]
    stubbed = stubs(NEWER_FILES)
    return sorted((n, n in stubbed) for n in names)


def newer_names():
    return {l.strip() for l in open(NEWER_LIST) if l.strip() and not l.startswith("#")}


def entries():
    out = []
    newer = newer_names()
    for f in FILES:
        text = open(f).read()
        for m in re.finditer(r'pub unsafe extern "C" fn (PMIx_\w+)\([^{]*\{(.*?)\n\}\n', text, re.S):
            name, body = m.group(1), m.group(2)
            if name in newer:
                continue
            stub = re.fullmatch(r"\s*not_yet(_void)?!\(\"%s\"\)\s*" % name, body) is not None
            out.append((name, stub))
    return sorted(out)


def table():
    rows = ["| function | status |", "|---|---|"]
    done = 0
    for name, stub in entries():
        if stub:
            plan = next(p for pre, p in PLAN if name.startswith(pre))
            rows.append(f"| `{name}` | not yet: returns `PMIX_ERR_NOT_SUPPORTED`, no callback — {plan} |")
        else:
            done += 1
            rows.append(f"| `{name}` | implemented |")
    total = len(entries())
    head = f"{done} of {total} exported functions implemented; the others answer `PMIX_ERR_NOT_SUPPORTED` (void ones do nothing) and fire no callback.\n\n"
    newer = newer_entries()
    ndone = sum(1 for _, stub in newer if not stub)
    nrows = ["| function (OpenPMIx 4.2.3-5.0.9) | status |", "|---|---|"]
    for name, stub in newer:
        nrows.append(f"| `{name}` | " + ("not yet: returns `PMIX_ERR_NOT_SUPPORTED`, no callback |" if stub else "implemented |"))
    tail = (f"\nThe functions newer OpenPMIx releases export (not in rpmix's 4.2.2 headers, "
            f"for binaries built against newer ones): {ndone} of {len(newer)} implemented.\n\n")
    return head + "\n".join(rows) + "\n" + tail + "\n".join(nrows) + "\n"


def main():
    if sys.argv[1:] == ["print"]:
        sys.stdout.write(table())
        return 0
    doc = open(DOC).read()
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), doc, re.S)
    if not m:
        print(f"status-table: {DOC} has no status table markers")
        return 1
    if m.group(1) != table():
        print(f"status-table: {DOC}'s table differs from src/ffi (run tools/status-table.py print)")
        return 1
    n, newer = len(entries()), len(newer_entries())
    if n != 141:
        print(f"status-table: {n} exported functions, expected 141")
        return 1
    print(f"status-table: {DOC} matches src/ffi ({n} functions of 4.2.2, {newer} newer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
