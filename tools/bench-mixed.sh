#!/usr/bin/env bash
# bench-mixed.sh: rpmix ranks under a server on OpenPMIx 4.2.2 (issue 15),
# next to the two same-library figures, in one run.
#
# c-tests/bench_core.c (a PMIx client, built once against OpenPMIx's headers)
# is run under two hosts, each in three set-ups:
#   (a) OpenPMIx ranks under the host on OpenPMIx  (the reference)
#   (b) rpmix ranks under the same host on OpenPMIx (the mixed path: the host
#       keeps the system's libpmix.so.2, only the ranks get rpmix's)
#   (c) rpmix ranks under the same host on rpmix    (the other same-library
#       figure: LD_LIBRARY_PATH=<rpmix> for the host too)
# Hosts:
#   rm_simple  the project's C resource manager (c-tests/rm_simple.c, built
#              against OpenPMIx's headers); its ranks get their library from
#              a wrapper script (the host's own environment has none)
#   mpirun     Open MPI 4.1.4's mpirun; its ranks get rpmix by
#              `-x LD_LIBRARY_PATH=<rpmix>`, as a user would give it
# Measurements (c-tests/bench_core.c says what each one times, in-process):
# init, fence, get (a job-level key), peerget (the first Get of a peer's key
# after a collecting fence: the mixed path's request per peer) and modex
# (a collecting fence + the Get of all the peers' keys, slowest rank), each
# at -n 2 and -n 8 (oversubscribed on a small machine). Each cell is the
# median of BENCH_RUNS runs (default 5), the set-ups taking turns run by run.
#
# Every run proves which library each process used, and a wrong one aborts
# the bench (exit 1) with a message: each rank reports the libpmix.so.2 it
# loaded (c-tests/which_pmix.c, preloaded into the ranks only), the host's
# mapped libpmix is read from /proc/<parent>/maps by a wrapper in front of
# each rank, and bench_core's "library:" line must name the ranks' library.
# A run that fails otherwise (exit status, time limit) is left out of its
# median; a note below the table says so ("n/a" when every run failed). A run
# that hit its time limit (15 s) is run once more: Open MPI 4.1.4's mpirun
# now and then never reads a rank's first request after the handshake (seen
# with OpenPMIx's ranks as well: a few launches in a hundred at -n 8).
#
# usage: tools/bench-mixed.sh [build-dir]     (default: c-tests/build)
# Environment: BENCH_RUNS (5), OPENPMIX_INC, OPENPMIX_LIB, RPMIX_LIBDIR, CC
# (as in tools/bench-core.sh); BENCH_HOSTS (default "rm mpirun");
# BENCH_VERBOSE=1: one line per run on stderr (its wall time and result).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/tools/benchlib.sh"
builddir=${1:-$root/c-tests/build}
inc=${OPENPMIX_INC:-/usr/lib/x86_64-linux-gnu/pmix2/include}
lib=${OPENPMIX_LIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}
rlibdir=${RPMIX_LIBDIR:-$root/target/release}
cc=${CC:-gcc}
runs=${BENCH_RUNS:-5}
hosts=${BENCH_HOSTS:-rm mpirun}
sizes=(2 8)
measurements=(init fence get peerget modex)

die() { echo "bench-mixed: $*" >&2; exit 1; }
for f in "$inc/pmix.h" "$inc/pmix_server.h" "$lib" "$rlibdir/libpmix.so.2"; do
    [[ -e $f ]] || die "missing $f"
done
[[ " $hosts " == *" mpirun "* ]] && ! command -v mpirun >/dev/null && die "no mpirun (Open MPI) on PATH"
rlibdir=$(cd "$rlibdir" && pwd)
syslib=$(readlink -f "$lib")
ourlib=$(readlink -f "$rlibdir/libpmix.so.2")
[[ $syslib != "$ourlib" ]] || die "$lib and $rlibdir/libpmix.so.2 are the same file"

mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)
rm_bin=$builddir/bench_rm_simple
bc_bin=$builddir/bench_core
which_so=$builddir/bench_which_pmix.so
"$cc" -std=gnu99 -O2 -Wall -Wextra -I "$inc" \
    "$root/c-tests/rm_simple.c" -o "$rm_bin" "$lib" -lpthread
"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I "$inc" \
    "$root/c-tests/bench_core.c" -o "$bc_bin" "$lib"
"$cc" -shared -fPIC -O2 -Wall -Wextra "$root/c-tests/which_pmix.c" -o "$which_so" -ldl

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # bench_core's init measurement exchanges per-rank files there
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The rank wrapper: run-rank <libdir|-|=> <program> [args...]. It records the
# libpmix its parent (the host, which forked it) has mapped, gives the rank
# its library (a dir: LD_LIBRARY_PATH; -: none; =: as the host passed it) and
# the library proof (LD_PRELOAD of which_pmix, appending to BENCH_RANK_PROOF).
wrap=$tmp/run-rank
cat >"$wrap" <<'EOF'
#!/bin/sh
lib=$1; shift
m=$(awk '$6 ~ /\/libpmix\.so/ { print $6; exit }' "/proc/$PPID/maps" 2>/dev/null)
echo "$PPID ${m:-not-mapped}" >>"$BENCH_HOST_PROOF"
case $lib in
    -) unset LD_LIBRARY_PATH ;;
    =) ;;
    *) LD_LIBRARY_PATH=$lib; export LD_LIBRARY_PATH ;;
esac
LD_PRELOAD=$BENCH_WHICH WHICH_PMIX_OUT=$BENCH_RANK_PROOF
export LD_PRELOAD WHICH_PMIX_OUT
exec "$@"
EOF
chmod +x "$wrap"
export BENCH_WHICH=$which_so BENCH_HOST_PROOF=$tmp/host.proof BENCH_RANK_PROOF=$tmp/rank.proof
hostname=$(hostname)

# check_proof <file> <expected library> <expected lines> <what> <exact>: dies
# unless every line of the file names that library and, when <exact> is 1
# (the run succeeded), there are exactly that many lines (a failed run may
# have lost ranks before they reported).
check_proof() {
    local file=$1 want=$2 count=$3 what=$4 exact=$5 n=0 total=0 path
    [[ -f $file || $exact -eq 0 ]] || die "$what: no report at all (expected $count naming $want)"
    [[ -f $file ]] || return 0
    while read -r _ path _; do
        total=$((total + 1))
        [[ -e $path && $(readlink -f "$path") == "$want" ]] && n=$((n + 1))
    done <"$file"
    if [[ $n -ne $total || ($exact -eq 1 && $total -ne $count) ]]; then
        echo "bench-mixed: $what: $n of $count reports name $want ($total reports):" >&2
        sed 's/^/    /' "$file" >&2
        die "wrong library, bench aborted"
    fi
}

# one_run <host> <setup a|b|c> <measurement> <n>: appends
# "<host> <measurement> <n> <setup> <value> <unit>" or "... fail <reason>"
# to $tmp/results.
one_run() {
    local host=$1 s=$2 m=$3 n=$4 out=$tmp/out err=$tmp/err rc=0 hostlib ranklib want line why
    case $s in
        a) hostlib=$syslib ranklib=$syslib want='^library: OpenPMIx' ;;
        b) hostlib=$syslib ranklib=$ourlib want='^library: rpmix' ;;
        c) hostlib=$ourlib ranklib=$ourlib want='^library: rpmix' ;;
    esac
    rm -f "$BENCH_HOST_PROOF" "$BENCH_RANK_PROOF"
    local -a hostenv
    if [[ $s == c ]]; then hostenv=(env LD_LIBRARY_PATH="$rlibdir"); else hostenv=(env -u LD_LIBRARY_PATH); fi
    if [[ $host == rm ]]; then
        local rl=-
        [[ $s != a ]] && rl=$rlibdir
        "${hostenv[@]}" timeout -k 3 15 "$rm_bin" -t 12 -n "$n" "$wrap" "$rl" "$bc_bin" "$m" \
            >"$out" 2>"$err" </dev/null || rc=$?
    else
        local -a x=()
        [[ $s != a ]] && x=(-x LD_LIBRARY_PATH="$rlibdir")
        "${hostenv[@]}" timeout -k 3 15 mpirun --oversubscribe --host "$hostname:$n" -np "$n" "${x[@]}" \
            -x TMPDIR -x BENCH_WHICH -x BENCH_HOST_PROOF -x BENCH_RANK_PROOF "$wrap" = "$bc_bin" "$m" \
            >"$out" 2>"$err" </dev/null || rc=$?
    fi
    local what="$host, set-up ($s), $m -n $n"
    local exact=0
    [[ $rc -eq 0 ]] && exact=1
    check_proof "$BENCH_HOST_PROOF" "$hostlib" "$n" "$what: the host's library (seen by its ranks)" $exact
    check_proof "$BENCH_RANK_PROOF" "$ranklib" "$n" "$what: the ranks' library" $exact
    if grep -q '^library: ' "$out" && ! grep -q "$want" "$out"; then
        die "$what: bench_core says $(grep -m1 '^library: ' "$out"), expected /$want/"
    fi
    line=$(awk -v m="$m" '$1 == m && NF == 3 { print $2, $3; exit }' "$out")
    if [[ $rc -eq 0 && -n $line ]] && grep -q "$want" "$out"; then
        echo "$host $m $n $s $line" >>"$tmp/results"
        return
    fi
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out"
    elif [[ $rc -ne 0 ]]; then why="exit status $rc"
    else why="no result line"; fi
    [[ -s $err ]] && why="$why: $(grep -v '^[[:space:]]*$' "$err" | tail -1)"
    echo "$host $m $n $s fail $why" >>"$tmp/results"
}

# timed_run <run number> <host> <set-up> <measurement> <size>: one_run, its
# time told on stderr with BENCH_VERBOSE.
timed_run() {
    local r=$1 t0
    shift
    t0=$(date +%s%N)
    one_run "$@"
    [[ -z ${BENCH_VERBOSE:-} ]] ||
        echo "bench-mixed: run $r $1 $3 -n $4 ($2): $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(tail -1 "$tmp/results" | cut -d' ' -f5-)" >&2
}

: >"$tmp/results"
start=$(date +%s)
for r in $(seq "$runs"); do
    for host in $hosts; do
        for m in "${measurements[@]}"; do
            for n in "${sizes[@]}"; do
                for s in a b c; do
                    run_retried "$tmp/results" timed_run "$r" "$host" "$s" "$m" "$n"
                done
            done
        done
    done
done
elapsed=$(($(date +%s) - start))

echo "# rpmix ranks under OpenPMIx servers (issue 15): bench_core, median of $runs runs each, $(nproc) CPUs, ${elapsed} s"
echo "# (a) OpenPMIx ranks, host on OpenPMIx  (b) rpmix ranks, same host on OpenPMIx  (c) rpmix ranks, same host on rpmix"
echo "# init: PMIx_Init+Finalize; fence: no data; get: a job-level key; peerget: the first Get of a peer's 1 KiB key after"
echo "# a collecting fence (per peer, rank 0); modex: fence(collect) + Get of every peer's 10 x 1 KiB, slowest rank"
awk -v hosts="$hosts" -v runs="$runs" -v sizes="${sizes[*]}" -v meas="${measurements[*]}" "$BENCH_AWK_MEDIAN"'
    {
        key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
        if ($5 == "fail") {
            why = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ fail /, "", why)
            nfail[key]++; notes[++nn] = sprintf("#   %s: %s -n %s, set-up (%s): %s", $1, $2, $3, $4, why)
        } else {
            vals[key] = vals[key] " " $5; cnt[key]++; unit[$2] = $6
        }
    }
    END {
        nh = split(hosts, H, " "); ns = split(sizes, S, " "); nm = split(meas, M, " ")
        hd[1] = "(a) OpenPMIx"; hd[2] = "(b) mixed"; hd[3] = "(c) rpmix"
        setup[1] = "a"; setup[2] = "b"; setup[3] = "c"
        for (h = 1; h <= nh; h++) {
            title = (H[h] == "rm") ? "host: rm_simple (c-tests/rm_simple.c)" : "host: mpirun (Open MPI 4.1.4)"
            printf "\n%s\n", title
            printf "%-16s | %14s | %14s | %14s | %6s | %6s\n", "measurement", hd[1], hd[2], hd[3], "b/a", "b/c"
            printf "-----------------|----------------|----------------|----------------|--------|-------\n"
            for (i = 1; i <= nm; i++) for (j = 1; j <= ns; j++) {
                m = M[i]; n = S[j]
                for (c = 1; c <= 3; c++) {
                    key = H[h] SUBSEP m SUBSEP n SUBSEP setup[c]
                    if (cnt[key] > 0) {
                        med[c] = median(vals[key])
                        cell[c] = sprintf("%.1f %s%s", med[c], unit[m], (nfail[key] ? "*" : ""))
                    } else {
                        med[c] = ""; cell[c] = "n/a"
                    }
                }
                ba = (med[1] != "" && med[2] != "" && med[1] > 0) ? sprintf("%.2f", med[2] / med[1]) : "n/a"
                bc = (med[3] != "" && med[2] != "" && med[3] > 0) ? sprintf("%.2f", med[2] / med[3]) : "n/a"
                printf "%-16s | %14s | %14s | %14s | %6s | %6s\n", sprintf("%s (-n %s)", m, n), cell[1], cell[2], cell[3], ba, bc
            }
        }
        if (nn > 0) {
            print "# * = some runs failed and are left out of the median (a timed-out run was run again):"
            for (i = 1; i <= nn; i++) print notes[i]
        }
    }
' "$tmp/results"
