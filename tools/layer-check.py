#!/usr/bin/env python3
"""Fail when a module under src/ refers to a layer above its own (or the
client and server roles refer to each other).

Layers, top down (ARCHITECTURE.md explains them). A module may use its own
layer and any layer below. Every `crate::<module>` path counts, in `use`
lines and inline, and so do `$crate::<module>` paths in macros; comments
and string literals do not.
"""
import pathlib, re, sys

LAYERS = [
    ["ffi"],
    ["facade"],
    ["tool"],
    ["client", "server"],
    ["events", "topology", "hwloc", "layout", "wire", "ptl", "rendezvous", "msg"],
    ["runtime"],
    ["owned", "data"],
    ["cmem", "strings", "debug", "forksafe", "status", "flags", "guard", "hwlib"],
    ["abi"],
]
LEVEL = {m: i for i, layer in enumerate(LAYERS) for m in layer}
# Modules of one layer that must not use each other either: the client and
# server roles meet only in the facade (a process can be both).
APART = {"client", "server"}

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

def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    src = root / "src"
    bad, unknown = [], set()
    for path in sorted(src.rglob("*.rs")):
        own = module_of(path, src)
        if own in ("lib", "bin"):
            continue
        if own not in LEVEL:
            unknown.add(own)
            continue
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
    for b in bad:
        print(b)
    if unknown:
        print("modules with no layer (add them to tools/layer-check.py):", ", ".join(sorted(unknown)))
    if bad or unknown:
        print(f"layer-check: {len(bad)} upward references")
        return 1
    print(f"layer-check: no upward references in {sum(1 for _ in src.rglob('*.rs'))} files")
    return 0

sys.exit(main())
