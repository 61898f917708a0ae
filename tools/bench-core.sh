#!/usr/bin/env bash
# bench-core.sh: client/server benchmark of rpmix vs OpenPMIx 4.2.2.
#
# Builds c-tests/rm_simple.c (the resource manager, PMIx server API) and
# c-tests/bench_core.c (the PMIx client) once, against OpenPMIx's headers, then
# runs every measurement of bench_core under rm_simple twice: with OpenPMIx's
# libpmix.so.2 (no LD_LIBRARY_PATH) and with rpmix's (LD_LIBRARY_PATH=
# $RPMIX_LIBDIR, inherited by the clients, so server and clients always use the
# same library). Prints one side-by-side table.
#
# usage: tools/bench-core.sh [build-dir]     (default: c-tests/build)
#
# Environment overrides:
#   OPENPMIX_INC  OpenPMIx include dir   (default /usr/lib/x86_64-linux-gnu/pmix2/include)
#   OPENPMIX_LIB  OpenPMIx libpmix.so.2  (default /usr/lib/x86_64-linux-gnu/libpmix.so.2)
#   RPMIX_LIBDIR  dir holding rpmix's libpmix.so.2 (default <repo>/target/release)
#   CC            C compiler             (default gcc)
#
# ratio = rpmix / OpenPMIx (every measurement: lower is better, so below 1
# means rpmix is faster or smaller). A measurement that fails with a library
# shows "n/a", and a note below the table says why.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=${1:-$root/c-tests/build}
inc=${OPENPMIX_INC:-/usr/lib/x86_64-linux-gnu/pmix2/include}
lib=${OPENPMIX_LIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}
rlibdir=${RPMIX_LIBDIR:-$root/target/release}
cc=${CC:-gcc}

for f in "$inc/pmix.h" "$inc/pmix_server.h" "$lib" "$rlibdir/libpmix.so.2"; do
    if [[ ! -e $f ]]; then
        echo "bench-core: missing $f" >&2
        exit 1
    fi
done
rlibdir=$(cd "$rlibdir" && pwd)

mkdir -p "$builddir"
rm_bin=$builddir/bench_rm_simple
bc_bin=$builddir/bench_core
"$cc" -std=gnu99 -O2 -Wall -Wextra -I "$inc" \
    "$root/c-tests/rm_simple.c" -o "$rm_bin" "$lib" -lpthread
"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I "$inc" \
    "$root/c-tests/bench_core.c" -o "$bc_bin" "$lib"

# The server binary must resolve libpmix.so.2 to the intended file in each run
# (bench_core's "library:" line covers the clients).
resolved() { # resolved <LD_LIBRARY_PATH or empty>
    if [[ -n $1 ]]; then
        LD_LIBRARY_PATH=$1 ldd "$rm_bin"
    else
        env -u LD_LIBRARY_PATH ldd "$rm_bin"
    fi | awk '$1 == "libpmix.so.2" { print $3 }'
}
if [[ $(readlink -f "$(resolved "")") != $(readlink -f "$lib") ]]; then
    echo "bench-core: without LD_LIBRARY_PATH rm_simple loads $(resolved "") instead of $lib" >&2
    exit 1
fi
if [[ $(readlink -f "$(resolved "$rlibdir")") != $(readlink -f "$rlibdir/libpmix.so.2") ]]; then
    echo "bench-core: with LD_LIBRARY_PATH=$rlibdir rm_simple loads $(resolved "$rlibdir")" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # bench_core's init measurement exchanges per-rank files there

# measurement and job size, in table order
measurements=(get:2 fence:8 modex:16 init:8 rss:4)

# run <measurement> <nprocs> <tag: openpmix|rpmix>: appends
# "<measurement> <nprocs> <tag> <value> <unit>" or "... n/a <reason>" to $tmp/results
run() {
    local m=$1 n=$2 tag=$3 out=$tmp/$1.$3.out err=$tmp/$1.$3.err rc=0 want line why
    if [[ $tag == openpmix ]]; then
        env -u LD_LIBRARY_PATH timeout 150 "$rm_bin" -t 130 -n "$n" "$bc_bin" "$m" >"$out" 2>"$err" || rc=$?
        want='^library: OpenPMIx'
    else
        LD_LIBRARY_PATH=$rlibdir timeout 150 "$rm_bin" -t 130 -n "$n" "$bc_bin" "$m" >"$out" 2>"$err" || rc=$?
        want='^library: rpmix'
    fi
    if grep -q '^library: ' "$out" && ! grep -q "$want" "$out"; then
        echo "bench-core: the $tag run of '$m' loaded the wrong library:" >&2
        grep '^library: ' "$out" | head -1 >&2
        exit 1
    fi
    line=$(awk -v m="$m" '$1 == m && NF == 3 { print $2, $3; exit }' "$out")
    if [[ $rc -eq 0 && -n $line ]] && grep -q "$want" "$out"; then
        echo "$m $n $tag $line" >>"$tmp/results"
        return
    fi
    if [[ $rc -eq 124 ]]; then
        why="timed out"
    elif [[ $rc -ne 0 ]]; then
        why="exit status $rc"
    else
        why="no result line"
    fi
    if [[ -s $err ]]; then
        why="$why: $(grep -v '^[[:space:]]*$' "$err" | tail -1)"
    fi
    echo "$m $n $tag n/a $why" >>"$tmp/results"
}

: >"$tmp/results"
for mn in "${measurements[@]}"; do
    run "${mn%%:*}" "${mn##*:}" openpmix
    run "${mn%%:*}" "${mn##*:}" rpmix
done

# the library lines of the first runs that printed one
awk 'sub(/^library: /, "# OpenPMIx run: ") { print; exit }' "$tmp"/*.openpmix.out
awk 'sub(/^library: /, "# rpmix run:    ") { print; exit }' "$tmp"/*.rpmix.out
echo "# $(nproc) CPUs; get/fence/modex/init/rss: see c-tests/bench_core.c"

awk '
    {
        key = $1
        if (!(key in seen)) { seen[key] = 1; order[++n] = key; label[key] = sprintf("%s (-n %s)", $1, $2) }
        if ($4 == "n/a") {
            val[key, $3] = "n/a"
            why = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ n\/a /, "", why)
            notes[++nn] = sprintf("# n/a: %s with %s: %s", $1, ($3 == "openpmix" ? "OpenPMIx" : "rpmix"), why)
        } else {
            val[key, $3] = $4 " " $5; num[key, $3] = $4
        }
    }
    END {
        h0 = "measurement"; h1 = "OpenPMIx 4.2.2"; h2 = "rpmix"; h3 = "ratio (rpmix/OpenPMIx)"
        w0 = length(h0); w1 = length(h1); w2 = length(h2)
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (length(label[k]) > w0) w0 = length(label[k])
            if (length(val[k, "openpmix"]) > w1) w1 = length(val[k, "openpmix"])
            if (length(val[k, "rpmix"]) > w2) w2 = length(val[k, "rpmix"])
        }
        printf "%-*s | %*s | %*s | %s\n", w0, h0, w1, h1, w2, h2, h3
        dash = "----------------------------------------"
        printf "%s-|-%s-|-%s-|-%s\n", substr(dash, 1, w0), substr(dash, 1, w1), substr(dash, 1, w2), substr(dash, 1, length(h3))
        for (i = 1; i <= n; i++) {
            k = order[i]
            a = val[k, "openpmix"]; b = val[k, "rpmix"]
            r = "n/a"
            if (a != "n/a" && b != "n/a" && num[k, "openpmix"] > 0)
                r = sprintf("%.2f", num[k, "rpmix"] / num[k, "openpmix"])
            printf "%-*s | %*s | %*s | %s\n", w0, label[k], w1, a, w2, b, r
        }
        for (i = 1; i <= nn; i++) print notes[i]
    }
' "$tmp/results"
