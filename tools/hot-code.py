#!/usr/bin/env python3
"""The library's hot code, placed together at the start of its text.

A rank that loads libpmix.so.2 runs a few hundred of its functions between
PMIx_Init and its exit. Scattered over the library's 2.6 MB of code, they
cost a page fault for each 64 KiB window they touch (the kernel maps a
file's pages around a fault, 16 at a time): about 17 faults of a rank's 47
in PMIx_Init alone, a few microseconds each. Placed together (165 KiB), they
fit in three windows. build.rs hands link/hot-code.txt to the linker
(LLD's --symbol-ordering-file) when the linker takes it.

  hot-code.py generate <libdir> <bindir>
      Run the training programs (c-tests/launch_fence.c: Init, Fence and
      Finalize; c-tests/caller_progress.c: blocking calls, a Get, an event
      handler, the progress thread) under pmixrun (<bindir>) with the
      library of <libdir>, each rank under callgrind, and write every
      function of the library they ran to link/hot-code.txt, sorted.
  hot-code.py check <libpmix.so>
      Exit 1 unless at least 90% of the listed functions are in the library
      (names carry a hash that changes with the compiler, the dependencies
      or the build profile: then `make hot-code` writes the list again) and
      they lie together at the start of its code.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "link", "hot-code.txt")
HEADER = """\
# The library's functions a rank runs from PMIx_Init to its exit, placed
# together at the start of its code by the linker (build.rs). Written by
# `make hot-code` (tools/hot-code.py generate); checked by the test suite
# (tools/hot-code.py check). Mangled names, one a line, sorted.
"""
# (program, cflags, ranks)
TRAINING = [("launch_fence", [], 2), ("caller_progress", ["-D_DEFAULT_SOURCE"], 3)]


def callgrind_functions(path):
    """Functions of an object named like libpmix that a callgrind output file
    records (callgrind names objects and functions once, then by number)."""
    objects, names, current, found = {}, {}, None, set()
    pat = re.compile(r"^(ob|fn|cob|cfn)=\((\d+)\)(?: (.*))?$")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                continue
            kind, ident, name = m.groups()
            table = objects if kind in ("ob", "cob") else names
            if name:
                table[ident] = name
            if kind == "ob":
                current = objects.get(ident, "")
            elif kind == "fn" and "libpmix" in (current or "") and names.get(ident) and not names[ident].startswith("0x"):
                # (an address is code without a symbol, nothing to order by;
                # callgrind marks a recursive call's level with 'N)
                found.add(re.sub(r"'\d+$", "", names[ident]))
    return found


def generate(libdir, bindir):
    functions = set()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LD_LIBRARY_PATH=libdir)
        for prog, cflags, ranks in TRAINING:
            exe = os.path.join(tmp, prog)
            subprocess.run(["cc", "-std=gnu99", "-O2", *cflags, "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "c-tests"),
                            os.path.join(ROOT, "c-tests", prog + ".c"), "-o", exe, "-L" + libdir, "-l:libpmix.so.2", "-lpthread"], check=True)
            out = os.path.join(tmp, prog + ".%p.cg")
            subprocess.run([os.path.join(bindir, "pmixrun"), "-n", str(ranks), "valgrind", "-q", "--tool=callgrind", "--demangle=no",
                            "--callgrind-out-file=" + out, exe], env=env, check=True, timeout=300, stdout=subprocess.DEVNULL)
            files = glob.glob(os.path.join(tmp, prog + ".*.cg"))
            if len(files) != ranks:
                sys.exit(f"hot-code: {prog}: {len(files)} callgrind outputs for {ranks} ranks")
            for f in files:
                functions |= callgrind_functions(f)
    if len(functions) < 50:
        sys.exit(f"hot-code: only {len(functions)} functions of the library recorded")
    os.makedirs(os.path.dirname(LIST), exist_ok=True)
    with open(LIST, "w") as f:
        f.write(HEADER)
        f.writelines(n + "\n" for n in sorted(functions))
    print(f"hot-code: {len(functions)} functions written to {os.path.relpath(LIST, ROOT)}")


def listed():
    with open(LIST) as f:
        return [l.split("#", 1)[0].strip() for l in f if l.split("#", 1)[0].strip()]


def check(lib):
    wanted = listed()
    nm = subprocess.run(["nm", "-S", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            syms.setdefault(parts[3], (int(parts[0], 16), int(parts[1], 16)))
    text = subprocess.run(["readelf", "-SW", lib], check=True, capture_output=True, text=True).stdout
    m = re.search(r"\.text\s+PROGBITS\s+([0-9a-f]+)", text)
    text_start = int(m.group(1), 16) if m else 0
    found = [syms[n] for n in wanted if n in syms]
    share = len(found) / max(1, len(wanted))
    print(f"hot-code: {len(found)} of {len(wanted)} listed functions in {lib}")
    if share < 0.9:
        print("hot-code: the list is stale (the compiler, a dependency or the build profile changed the names): run `make hot-code`")
        return 1
    size = sum(s for _, s in found)
    end = max(a + s for a, s in found)
    # Together at the start: the listed code (with alignment padding) and
    # nothing much else before its end.
    print(f"hot-code: {size} bytes of listed code end {end - text_start} bytes into the text")
    if end - text_start > 1.25 * size + 4096:
        print("hot-code: the listed functions are not together at the start of the text (did the linker take link/hot-code.txt? see build.rs)")
        return 1
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "generate":
        generate(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
