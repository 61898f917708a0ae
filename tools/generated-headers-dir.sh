#!/bin/sh
# Print the directory where build.rs last wrote the generated headers.
d=$(ls -td target/release/build/rpmix-*/out/include 2>/dev/null | head -1)
[ -n "$d" ] || { echo "no generated headers: run 'cargo build --release' first" >&2; exit 1; }
echo "$d"
