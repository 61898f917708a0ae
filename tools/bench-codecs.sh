#!/usr/bin/env bash
# bench-codecs.sh: rpmix's two request codecs side by side (examples/codecs.rs):
# each common request encoded and decoded in rpmix's own format and in
# OpenPMIx's v41 form, median of 7 rounds. Why rpmix's peers keep their own
# format: docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
echo "== request codecs: rpmix's own format vs OpenPMIx's v41 (examples/codecs.rs)"
cargo run --quiet --release --example codecs
