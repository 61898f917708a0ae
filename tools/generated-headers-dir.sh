#!/bin/sh
# Print the directory where build.rs last wrote the generated headers (by the
# headers' own time: a directory's time does not change when a file in it is
# rewritten).
f=$(ls -t target/release/build/rpmix-*/out/include/pmix.h 2>/dev/null | head -1)
[ -n "$f" ] || { echo "no generated headers: run 'cargo build --release' first" >&2; exit 1; }
dirname "$f"
