#!/usr/bin/env bash
# bench-compare.sh: build c-tests/bench_data.c once (against OpenPMIx's headers),
# run it against OpenPMIx 4.2.2 (the system libpmix.so.2) and against rpmix
# (target/release/libpmix.so.2), and print a side-by-side table.
#
# usage: tools/bench-compare.sh [build-dir]     (default: c-tests/build)
#
# Environment overrides:
#   OPENPMIX_INC  OpenPMIx include dir   (default /usr/lib/x86_64-linux-gnu/pmix2/include)
#   OPENPMIX_LIB  OpenPMIx libpmix.so.2  (default /usr/lib/x86_64-linux-gnu/libpmix.so.2)
#   RPMIX_LIBDIR  dir holding rpmix's libpmix.so.2 (default <repo>/target/release)
#   CC            C compiler             (default gcc)
#
# ratio = rpmix ns/op / OpenPMIx ns/op (below 1: rpmix is faster).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=${1:-$root/c-tests/build}
inc=${OPENPMIX_INC:-/usr/lib/x86_64-linux-gnu/pmix2/include}
lib=${OPENPMIX_LIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}
rlibdir=${RPMIX_LIBDIR:-$root/target/release}
cc=${CC:-gcc}

for f in "$inc/pmix.h" "$lib" "$rlibdir/libpmix.so.2"; do
    if [[ ! -e $f ]]; then
        echo "bench-compare: missing $f" >&2
        exit 1
    fi
done

mkdir -p "$builddir"
bin=$builddir/bench_data
"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I "$inc" \
    "$root/c-tests/bench_data.c" -o "$bin" "$lib"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# OpenPMIx: no LD_LIBRARY_PATH (an inherited one is dropped); rpmix: ours first.
env -u LD_LIBRARY_PATH "$bin" >"$tmp/openpmix.txt"
LD_LIBRARY_PATH=$rlibdir "$bin" >"$tmp/rpmix.txt"

# Make sure each run used the library it was meant to.
if ! grep -q '^library: OpenPMIx' "$tmp/openpmix.txt"; then
    echo "bench-compare: the OpenPMIx run did not load OpenPMIx:" >&2
    head -1 "$tmp/openpmix.txt" >&2
    exit 1
fi
if ! grep -q '^library: rpmix' "$tmp/rpmix.txt"; then
    echo "bench-compare: the rpmix run did not load rpmix:" >&2
    head -1 "$tmp/rpmix.txt" >&2
    exit 1
fi

sed -n '1s/^library: /# OpenPMIx run: /p' "$tmp/openpmix.txt"
sed -n '1s/^library: /# rpmix run:    /p' "$tmp/rpmix.txt"

# Lines after the first are "<operation> <ns/op>"; join them by operation
# (in the OpenPMIx run's order) and print the table.
awk '
    FNR == 1 { next }                          # the library: line
    NR == FNR { order[++n] = $1; a[$1] = $NF; next }
    { b[$1] = $NF }
    END {
        w = length("operation")
        for (i = 1; i <= n; i++) if (length(order[i]) > w) w = length(order[i])
        h1 = "OpenPMIx 4.2.2 ns/op"; h2 = "rpmix ns/op"
        printf "%-*s | %*s | %*s | %s\n", w, "operation", length(h1), h1, length(h2), h2, "ratio"
        line = ""
        for (i = 0; i < w; i++) line = line "-"
        printf "%s-|-%s-|-%s-|-%s\n", line, substr("--------------------------------", 1, length(h1)), \
            substr("--------------------------------", 1, length(h2)), "-----"
        for (i = 1; i <= n; i++) {
            op = order[i]
            if (!(op in b)) { printf "%-*s | %*s | %*s | %s\n", w, op, length(h1), a[op], length(h2), "missing", "-"; continue }
            r = (a[op] > 0) ? sprintf("%.2f", b[op] / a[op]) : "-"
            printf "%-*s | %*s | %*s | %s\n", w, op, length(h1), a[op], length(h2), b[op], r
        }
    }
' "$tmp/openpmix.txt" "$tmp/rpmix.txt"
