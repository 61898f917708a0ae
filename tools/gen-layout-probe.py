#!/usr/bin/env python3
"""Write a C program that prints the ABI facts of the PMIx headers it is
compiled against: sizeof/offsetof of every struct member and the value of
every constant and attribute key that rpmix defines (read from src/abi/*.rs).

Compiled once against rpmix's include/ and once against OpenPMIx's headers,
the two outputs must be identical (make test does the diff). It depends on
nothing outside this repository.

usage: gen-layout-probe.py <repo root> <output .c>
"""
import os
import re
import sys

root, out = sys.argv[1], sys.argv[2]
abi = os.path.join(root, "src", "abi")


def read(name):
    return open(os.path.join(abi, name)).read()


lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <string.h>",
         "#include <pmix.h>", "#include <pmix_server.h>", "#include <pmix_tool.h>",
         "#define S(t) printf(\"sizeof %s %zu\\n\", #t, sizeof(t));",
         "#define O(t, m) printf(\"offsetof %s.%s %zu\\n\", #t, #m, offsetof(t, m));",
         "#define I(c) printf(\"const %s %lld\\n\", #c, (long long)(c));",
         "#define K(c, s) printf(\"key %s %s\\n\", #c, strcmp(c, s) == 0 ? \"same\" : \"DIFFERENT\");",
         "int main(void) {"]

# structs and their members
for fname in ("types.rs", "server_types.rs"):
    text = read(fname)
    aliases = dict(re.findall(r"pub type (\w+) = (\w+);", text))
    alias_of = {v: k for k, v in aliases.items()}
    for m in re.finditer(r"pub (?:struct) (\w+) \{(.*?)\n\}", text, re.S):
        rust_name, body = m.group(1), m.group(2)
        cname = alias_of.get(rust_name, rust_name)
        lines.append(f"  S({cname})")
        for fm in re.finditer(r"pub (?:r#)?(\w+):", body):
            lines.append(f"  O({cname}, {fm.group(1)})")
# the value union's members, reached through pmix_value_t.data
text = read("types.rs")
body = re.search(r"pub union pmix_value_data \{(.*?)\n\}", text, re.S).group(1)
for fm in re.finditer(r"pub (\w+):", body):
    lines.append(f"  O(pmix_value_t, data.{fm.group(1)})")
# scalar typedef sizes
for t in re.findall(r"^pub type (pmix_\w+_t) = (?:u8|u16|u32|u64|c_int|\[c_char; \d+\]);", text, re.M):
    lines.append(f"  S({t})")
# integer constants
for fname in ("version.rs", "constants.rs", "deprecated.rs", "types.rs"):
    for c in re.findall(r"^pub const (PMIX_\w+):", read(fname), re.M):
        lines.append(f"  I({c})")
# attribute keys
for fname in ("attr_keys.rs", "deprecated_keys.rs"):
    for c, s in re.findall(r'^\s*(PMIX_\w+) => "([^"]*)";', read(fname), re.M):
        lines.append(f'  K({c}, "{s}")')
lines += ["  return 0;", "}"]
open(out, "w").write("\n".join(lines) + "\n")
