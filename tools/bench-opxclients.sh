#!/usr/bin/env bash
# bench-opxclients.sh: OpenPMIx ranks under pmixrun (issue 16), next to
# OpenPMIx ranks under Open MPI 4.1.4's mpirun (OpenPMIx 4.2.2 both ends),
# and rpmix ranks under pmixrun on either protocol, in one run.
#
# c-tests/bench_core.c, built once against OpenPMIx's headers, runs as the
# ranks of four set-ups:
#   (a) OpenPMIx ranks under mpirun                 (the reference)
#   (b) OpenPMIx ranks under pmixrun                (OpenPMIx's protocol, TCP)
#   (c) rpmix ranks under pmixrun                   (rpmix's protocol, Unix socket)
#   (d) rpmix ranks under pmixrun on OpenPMIx's protocol (PMIX_RPMIX_URI
#       removed from their environment: they take PMIX_SERVER_URI41, as
#       under an OpenPMIx server)
# (c) against (d) is what decides whether rpmix keeps its own protocol
# between its own peers (docs/benchmarks.md, "Which protocol between rpmix's own peers").
# Measurements as in tools/bench-mixed.sh (bench_core.c says what each
# times): init, fence, get, peerget, modex, at -n 2 and -n 8; each cell the
# median of BENCH_RUNS runs (default 5), set-ups taking turns. Every rank
# proves its library (which_pmix preloaded, and bench_core's "library:"
# line); a wrong one aborts the bench.
#
# usage: tools/bench-opxclients.sh [build-dir]    (default: c-tests/build)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/tools/benchlib.sh"
builddir=${1:-$root/c-tests/build}
inc=${OPENPMIX_INC:-/usr/lib/x86_64-linux-gnu/pmix2/include}
lib=${OPENPMIX_LIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}
rlibdir=$(cd "${RPMIX_LIBDIR:-$root/target/release}" && pwd)
cc=${CC:-gcc}
runs=${BENCH_RUNS:-5}
sizes=(2 8)
measurements=(init fence get peerget modex)
die() { echo "bench-opxclients: $*" >&2; exit 1; }
command -v mpirun >/dev/null || die "no mpirun (Open MPI) on PATH"
syslib=$(readlink -f "$lib")
ourlib=$(readlink -f "$rlibdir/libpmix.so.2")
pmixrun=$rlibdir/pmixrun

mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)
bc_bin=$builddir/bench_core
which_so=$builddir/bench_which_pmix.so
"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I "$inc" "$root/c-tests/bench_core.c" -o "$bc_bin" "$lib"
"$cc" -shared -fPIC -O2 -Wall -Wextra "$root/c-tests/which_pmix.c" -o "$which_so" -ldl

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# run-rank <libdir|-> <keep-rpmix-uri 0|1> <program...>
wrap=$tmp/run-rank
cat >"$wrap" <<'EOF'
#!/bin/sh
lib=$1; keep=$2; shift 2
if [ "$lib" = - ]; then unset LD_LIBRARY_PATH; else LD_LIBRARY_PATH=$lib; export LD_LIBRARY_PATH; fi
[ "$keep" = 1 ] || unset PMIX_RPMIX_URI
LD_PRELOAD=$BENCH_WHICH WHICH_PMIX_OUT=$BENCH_RANK_PROOF
export LD_PRELOAD WHICH_PMIX_OUT
exec "$@"
EOF
chmod +x "$wrap"
export BENCH_WHICH=$which_so BENCH_RANK_PROOF=$tmp/rank.proof
hostname=$(hostname)

one_run() {  # one_run <setup> <measurement> <n>
    local s=$1 m=$2 n=$3 out=$tmp/out err=$tmp/err rc=0 want ranklib line why
    rm -f "$BENCH_RANK_PROOF"
    case $s in
        a) ranklib=$syslib want='^library: OpenPMIx'
           env -u LD_LIBRARY_PATH timeout -k 3 15 mpirun --oversubscribe --host "$hostname:$n" -np "$n" \
               -x TMPDIR -x BENCH_WHICH -x BENCH_RANK_PROOF "$wrap" - 1 "$bc_bin" "$m" >"$out" 2>"$err" </dev/null || rc=$? ;;
        b) ranklib=$syslib want='^library: OpenPMIx'
           timeout -k 3 15 "$pmixrun" -n "$n" "$wrap" - 1 "$bc_bin" "$m" >"$out" 2>"$err" </dev/null || rc=$? ;;
        c|d) ranklib=$ourlib want='^library: rpmix'
           local keep=1; [[ $s == d ]] && keep=0
           timeout -k 3 15 "$pmixrun" -n "$n" "$wrap" "$rlibdir" "$keep" "$bc_bin" "$m" >"$out" 2>"$err" </dev/null || rc=$? ;;
    esac
    local path total=0 good=0
    if [[ -f $BENCH_RANK_PROOF ]]; then
        while read -r _ path _; do
            total=$((total + 1))
            [[ $(readlink -f "$path") == "$ranklib" ]] && good=$((good + 1))
        done <"$BENCH_RANK_PROOF"
    fi
    [[ $good -eq $total ]] || die "set-up ($s), $m -n $n: $good of $total ranks on $ranklib"
    [[ $rc -ne 0 || $total -eq $n ]] || die "set-up ($s), $m -n $n: $total reports for $n ranks"
    if grep -q '^library: ' "$out" && ! grep -q "$want" "$out"; then die "set-up ($s): $(grep -m1 '^library: ' "$out")"; fi
    line=$(awk -v m="$m" '$1 == m && NF == 3 { print $2, $3; exit }' "$out")
    if [[ $rc -eq 0 && -n $line ]]; then echo "$m $n $s $line" >>"$tmp/results"; return; fi
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out"; elif [[ $rc -ne 0 ]]; then why="exit status $rc"; else why="no result line"; fi
    [[ -s $err ]] && why="$why: $(grep -v '^[[:space:]]*$' "$err" | tail -1)"
    echo "$m $n $s fail $why" >>"$tmp/results"
}

: >"$tmp/results"
start=$(date +%s)
for r in $(seq "$runs"); do
    for m in "${measurements[@]}"; do
        for n in "${sizes[@]}"; do
            for s in a b c d; do
                run_retried "$tmp/results" one_run "$s" "$m" "$n"
            done
        done
    done
done
elapsed=$(($(date +%s) - start))

echo "# OpenPMIx ranks under rpmix servers (issue 16): bench_core, median of $runs runs each, $(nproc) CPUs, ${elapsed} s"
echo "# (a) OpenPMIx ranks, mpirun  (b) OpenPMIx ranks, pmixrun  (c) rpmix ranks, pmixrun, own protocol  (d) rpmix ranks, pmixrun, OpenPMIx's protocol"
awk -v sizes="${sizes[*]}" -v meas="${measurements[*]}" "$BENCH_AWK_MEDIAN"'
    {
        key = $1 SUBSEP $2 SUBSEP $3
        if ($4 == "fail") { why = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ fail /, "", why); nfail[key]++; notes[++nn] = sprintf("#   %s -n %s, set-up (%s): %s", $1, $2, $3, why) }
        else { vals[key] = vals[key] " " $4; cnt[key]++; unit[$1] = $5 }
    }
    END {
        ns = split(sizes, S, " "); nm = split(meas, M, " ")
        split("a b c d", setup, " ")
        printf "%-16s | %13s | %13s | %13s | %13s | %6s | %6s\n", "measurement", "(a) mpirun", "(b) pmixrun", "(c) rpmix own", "(d) rpmix ptl", "b/a", "d/c"
        printf "-----------------|---------------|---------------|---------------|---------------|--------|-------\n"
        for (i = 1; i <= nm; i++) for (j = 1; j <= ns; j++) {
            m = M[i]; n = S[j]
            for (c = 1; c <= 4; c++) {
                key = m SUBSEP n SUBSEP setup[c]
                if (cnt[key] > 0) { med[c] = median(vals[key]); cell[c] = sprintf("%.1f %s%s", med[c], unit[m], (nfail[key] ? "*" : "")) }
                else { med[c] = ""; cell[c] = "n/a" }
            }
            ba = (med[1] != "" && med[2] != "" && med[1] > 0) ? sprintf("%.2f", med[2] / med[1]) : "n/a"
            dc = (med[3] != "" && med[4] != "" && med[3] > 0) ? sprintf("%.2f", med[4] / med[3]) : "n/a"
            printf "%-16s | %13s | %13s | %13s | %13s | %6s | %6s\n", sprintf("%s (-n %s)", m, n), cell[1], cell[2], cell[3], cell[4], ba, dc
        }
        if (nn > 0) { print "# * = some runs failed and are left out of the median:"; for (i = 1; i <= nn; i++) print notes[i] }
    }
' "$tmp/results"
