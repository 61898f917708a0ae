#!/usr/bin/env python3
"""The module map of src/, and the checks that keep to it.

Fails when
- a module refers to a layer above its own (or the client and server roles
  refer to each other): every `crate::<module>` path counts, in `use` lines
  and inline, and so do `$crate::<module>` paths in macros; comments and
  string literals do not;
- a module has no place in the map;
- the files of one module import each other in a circle (a file naming its
  module's mod.rs does not count: that is an arrow up to the parent);
- ARCHITECTURE.md's layer diagram is not the one this map prints.

  layer-check.py [ROOT]                 all the checks (ROOT defaults to .)
  layer-check.py [ROOT] --strict        also fail on KNOWN_CIRCLES
  layer-check.py [ROOT] --map           print the layer diagram
  layer-check.py [ROOT] --write-map     write it into ARCHITECTURE.md
"""
import pathlib, re, sys, textwrap

# The module map, top down: the one place it is kept (ARCHITECTURE.md's
# diagram is printed from it; README.md and lib.rs point there). A module may
# use its own layer and any layer below. A listed module with no source yet
# is allowed (it is on its way).
LAYERS = [
    [("ffi", 'every extern "C" fn, one file per API family: check arguments, catch panics, '
             "C <-> Rust conversion, call below. No decisions")],
    [("facade", "the one place that chooses which role answers a call (Get, Notify, Log, Query, "
                "event registry, Store_internal, Resolve_peers/nodes): client first, else this "
                "process's server")],
    [("tool", "finding servers and attaching (rendezvous, retries)")],
    [("client", "the client role: requests, cache, events, IO forwarding pulls; the same requests "
                "to an OpenPMIx server"),
     ("server", "the server role: namespaces, connections, fences, modex, job control, monitors, "
                "cleanup, groups, IOF, setup APIs, and the Host trait with its C module table")],
    [("events", "event handler registry and chains"),
     ("topology", "bindings and locality strings (sysfs)"),
     ("hwloc", "PMIx_Load_topology's topology, device distances"),
     ("layout", "node and process maps, compact: rank -> node -> host on demand"),
     ("wire", "rpmix's frame tags"),
     ("ptl", "OpenPMIx's protocol: contacts, connect message, command codes, message bodies as "
             "v41 pack calls (Msg, Reader)"),
     ("rendezvous", "host name, tmpdirs, rendezvous files"),
     ("msg", "every request and every reply as a typed message (fields declared once), "
             "and their two codecs: rpmix's wire format; OpenPMIx's ptl commands in v41")],
    [("runtime", "the mio progress engine: one thread per role, commands, timers, connections "
                 "and their kernel credentials; a connection is a Unix or TCP stream with "
                 "rpmix's or OpenPMIx's framing (transport.rs), written through its lane (lane.rs)")],
    [("owned", "owned C values (Value, Info, Proc) and their wire encoding"),
     ("data", "the type-generic copy / free / compare / pack / print of every PMIx data type, "
              "buffers, CArray (owned C arrays of apps/queries)")],
    [("cmem", "libc memory, C strings and argv, environment edits (EnvOp)"),
     ("strings", "names of codes and enumerations"),
     ("debug", "PMIX_DEBUG output"),
     ("forksafe", "lock-free snapshots a fork child can read"),
     ("status", "Res<T>"),
     ("flags", "typed flag sets (IOF channels, info directives)"),
     ("guard", "the panic boundary of every function C calls"),
     ("hwlib", "libhwloc opened on first use: topologies as values")],
    [("abi", "#[repr(C)] layouts, constants, keys, callback types")],
]
LEVEL = {m: i for i, layer in enumerate(LAYERS) for m, _ in layer}
# Modules of one layer that must not use each other either: the client and
# server roles meet only in the facade (a process can be both).
APART = {"client", "server"}
# Import circles known and being removed elsewhere: listed, not failed on
# (unless --strict). Drop an entry once its circle is gone.
KNOWN_CIRCLES: list = []
MAP_FILE = "ARCHITECTURE.md"
MAP_BEGIN, MAP_END = "<!-- module-map:begin (tools/layer-check.py --write-map) -->", "<!-- module-map:end -->"


def layer_diagram():
    """The layers as ARCHITECTURE.md shows them: number, module, what it holds."""
    out = ["```"]
    for i, layer in enumerate(LAYERS):
        for j, (name, what) in enumerate(layer):
            lead = f"{str(i + 1) if j == 0 else '':<3}{name:<11}"
            out += textwrap.wrap(what, 78, initial_indent=lead, subsequent_indent=" " * 14)
    out.append("```")
    return "\n".join(out) + "\n"


def check_map(root):
    """Problems with ARCHITECTURE.md's diagram (None when there is no such file)."""
    path = root / MAP_FILE
    if not path.is_file():
        return None
    text = path.read_text()
    m = re.search(re.escape(MAP_BEGIN) + r"\n(.*?)" + re.escape(MAP_END), text, re.S)
    if not m:
        return [f"{MAP_FILE}: no module map markers ({MAP_BEGIN} ... {MAP_END})"]
    if m.group(1) != layer_diagram():
        return [f"{MAP_FILE}: the layer diagram differs from tools/layer-check.py's LAYERS "
                "(run tools/layer-check.py --write-map)"]
    return []


def write_map(root):
    path = root / MAP_FILE
    text = path.read_text()
    m = re.search(re.escape(MAP_BEGIN) + r"\n(.*?)" + re.escape(MAP_END), text, re.S)
    if not m:
        sys.exit(f"{MAP_FILE}: no module map markers")
    path.write_text(text[:m.start(1)] + layer_diagram() + text[m.end(1):])


def strip(text):
    """Source without comments and string/char literals (good enough for paths)."""
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "''", text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    return re.sub(r"//[^\n]*", "", text)

def module_of(path, src):
    rel = path.relative_to(src).parts
    return rel[0][:-3] if rel[0].endswith(".rs") else rel[0]

def use_paths(text):
    """Every path a file names from `crate::`, `$crate::`, `super::` or `self::`,
    use groups expanded (`use super::{a, b::{c, d}}` gives super::a, super::b::c,
    super::b::d), each as a list of segments."""
    out = []
    for m in re.finditer(r"(?<![\w:])(\$?crate|super|self)\b", text):
        paths, _ = _tree(text, m.start(), [])
        out += paths
    return out

def _tree(text, i, prefix):
    """Parse a use tree at text[i:]: `a::b::c`, `a::{...}`, `a::*`."""
    segs = list(prefix)
    n = len(text)
    while True:
        m = re.compile(r"\s*(\$?\w+)").match(text, i)
        if not m:
            break
        segs.append(m.group(1).lstrip("$"))
        i = m.end()
        m = re.compile(r"\s*::\s*").match(text, i)
        if not m:
            return [segs], i
        i = m.end()
        if i < n and text[i] == "{":
            paths, i = [], i + 1
            while i < n and text[i] != "}":
                sub, i = _tree(text, i, segs)
                paths += sub
                m = re.compile(r"\s*,?\s*").match(text, i)
                i = m.end()
                if i < n and text[i] not in "}" and not re.match(r"[\w$]", text[i]):
                    break
            return paths or [segs], i + 1
        if i < n and text[i] == "*":
            return [segs], i + 1
    return [segs], i

def module_path(path, src):
    """The module path of a source file: src/data/elem.rs -> [data, elem],
    src/data/mod.rs -> [data], src/wire.rs -> [wire]."""
    parts = list(path.relative_to(src).parts)
    parts[-1] = parts[-1][:-3]
    return parts[:-1] if parts[-1] == "mod" else parts

def file_of(mod, src):
    """The file that defines module path `mod`, or None."""
    base = src.joinpath(*mod) if mod else src
    for f in (base.with_suffix(".rs"), base / "mod.rs"):
        if f.is_file():
            return f
    return None

def circles(src):
    """Circles among the files of each top-level module (its mod.rs left out:
    a child naming its parent is an upward arrow, not a circle), each as a
    sorted list of paths relative to src."""
    graph = {}
    for path in sorted(src.rglob("*.rs")):
        if path.name == "mod.rs" or path.parent == src or "bin" == path.relative_to(src).parts[0]:
            continue
        me = module_path(path, src)
        edges = graph.setdefault(path, set())
        for segs in use_paths(strip(path.read_text())):
            head, rest = segs[0], segs[1:]
            if head == "crate":
                base = []
            elif head == "self":
                base = me
            else:
                base = me[:-1]
                while rest and rest[0] == "super":
                    base, rest = base[:-1], rest[1:]
            # the deepest module the path names
            target, mod = file_of(base, src), list(base)
            for s in rest:
                f = file_of(mod + [s], src)
                if f is None:
                    break
                mod.append(s)
                target = f
            if target is None or target == path or target.name == "mod.rs" or target.parent == src:
                continue
            if target.relative_to(src).parts[0] != path.relative_to(src).parts[0]:
                continue
            edges.add(target)
    # strongly connected components (Tarjan)
    index, low, stack, on, found = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(str(p.relative_to(src)) for p in comp))
    for v in list(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def upward_references(root, src):
    bad, unknown, present = [], set(), set()
    for path in sorted(src.rglob("*.rs")):
        own = module_of(path, src)
        if own in ("lib", "bin"):
            continue
        if own not in LEVEL:
            unknown.add(own)
            continue
        present.add(own)
        text = strip(path.read_text())
        refs = [(m.start(), m.group(1)) for m in re.finditer(r"(?<![\w:])\$?crate::(\w+)", text)]
        # `use crate::{a, b::c}`: each top-level name of the group
        for m in re.finditer(r"(?<![\w:])crate::\{([^}]*)\}", text):
            refs += [(m.start(), n) for n in re.findall(r"(?:^|,)\s*(\w+)", m.group(1))]
        for start, target in refs:
            if target not in LEVEL:
                if not target[0].isupper() and target not in ("pmix_debug",):
                    unknown.add(target)
                continue
            if own in APART and target in APART and target != own:
                line = text.count("\n", 0, start) + 1
                bad.append(f"{path.relative_to(root)}:{line}: {own} uses crate::{target} (roles meet only in the facade)")
            elif LEVEL[target] < LEVEL[own]:
                line = text.count("\n", 0, start) + 1
                bad.append(f"{path.relative_to(root)}:{line}: {own} (layer {LEVEL[own] + 1}) uses crate::{target} (layer {LEVEL[target] + 1})")
    return bad, unknown, present


def main():
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith("--")}
    rest = [a for a in args if not a.startswith("--")]
    if flags - {"--strict", "--map", "--write-map"}:
        sys.exit(__doc__)
    root = pathlib.Path(rest[0] if rest else ".")
    src = root / "src"
    if "--map" in flags:
        sys.stdout.write(layer_diagram())
        return 0
    if "--write-map" in flags:
        write_map(root)
        return 0
    failed = False

    bad, unknown, present = upward_references(root, src)
    for b in bad:
        print(b)
    if unknown:
        print("modules with no layer (add them to tools/layer-check.py):", ", ".join(sorted(unknown)))
    absent = sorted(set(LEVEL) - present)
    if absent:
        print("layer-check: listed, no source yet:", ", ".join(absent))
    if bad or unknown:
        print(f"layer-check: {len(bad)} upward references")
        failed = True
    else:
        print(f"layer-check: no upward references in {sum(1 for _ in src.rglob('*.rs'))} files")

    found = circles(src)
    known = [sorted(c) for c in KNOWN_CIRCLES]
    for c in found:
        tag = " (known: KNOWN_CIRCLES)" if c in known else ""
        print(f"layer-check: import circle among {', '.join('src/' + f for f in c)}{tag}")
        if tag == "" or "--strict" in flags:
            failed = True
    for c in known:
        if c not in found:
            print(f"layer-check: no longer a circle, drop it from KNOWN_CIRCLES: {', '.join(c)}")
    if not found:
        print("layer-check: no import circles")

    problems = check_map(root)
    if problems is None:
        print(f"layer-check: no {MAP_FILE} here, its diagram not checked")
    else:
        for p in problems:
            print(p)
        failed |= bool(problems)
        if not problems:
            print(f"layer-check: {MAP_FILE}'s layer diagram matches the map")
    return 1 if failed else 0


sys.exit(main())
