#!/usr/bin/env bash
# fuzz-coverage.sh [SECONDS] [TARGET...]: the coverage-guided fuzz targets
# (fuzz/fuzz_targets/*.rs: libFuzzer through cargo fuzz, with the library
# built under AddressSanitizer) for SECONDS each (default 300), on the stable
# toolchain with RUSTC_BOOTSTRAP=1. Each target starts from the seeds kept
# in fuzz/corpus/<target>/ (rpmix-fuzz --write-seeds writes them); what it
# finds goes to fuzz/work/<target>/ (not kept), a crash to
# fuzz/artifacts/<target>/ and the run fails. cargo-fuzz comes from
# crates.io when missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-300}
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
    mkdir -p "${RPMIX_CACHE:-$HOME/.cache/rpmix}"
    echo "fuzz-coverage: cargo-fuzz (cargo install, a few minutes)" >&2
    cargo install --locked cargo-fuzz >"${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-cargo-fuzz.log" 2>&1 ||
        { echo "fuzz-coverage: cargo install cargo-fuzz failed; log: ${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-cargo-fuzz.log" >&2; exit 1; }
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi
export RUSTC_BOOTSTRAP=1
# (std is not rebuilt with the sanitizer: the stable toolchain's is used)
export RUSTFLAGS="${RUSTFLAGS:-} -Cunsafe-allow-abi-mismatch=sanitizer"
log=fuzz/work/log
mkdir -p fuzz/work
for t in "${targets[@]}"; do
    mkdir -p "fuzz/work/$t" "fuzz/corpus/$t"
    echo "== fuzz-coverage: $t, ${seconds}s"
    rc=0
    cargo fuzz run --release "$t" "fuzz/work/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 >"$log" 2>&1 || rc=$?
    grep -E '^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|Test unit written)|panicked' "$log" || true
    if [ "$rc" != 0 ]; then
        tail -60 "$log" >&2
        echo "fuzz-coverage: $t failed (exit $rc); the input is in fuzz/artifacts/$t, the log in $log" >&2
        exit 1
    fi
done
