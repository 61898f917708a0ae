#!/bin/bash
# Programs of the field that nobody here wrote, each run with its own tests
# on rpmix, under pmixrun and under Open MPI's mpirun (mpirun, its daemons
# and the ranks on rpmix: LD_LIBRARY_PATH), and where a reference is worth
# its time the same run on OpenPMIx 4.2.2. What they need is installed by
# tools/install-consumers.sh (cached outside the work tree).
#
# Every process of a case is preloaded with c-tests/which_pmix.c: every one
# that loaded a libpmix.so.2 must name the library of the case, and at least
# as many as the ranks asked must have loaded one.
#
# Cases (RPMIX_CASE, tools/testlib.sh, filters them):
#   mpi4py/pmixrun/N, mpi4py/mpirun/N (N = 1, 2, 3)
#       mpi4py's whole test suite (test/runtests.py of the source of the
#       version Debian ships) in Debian's python3-mpi4py on Open MPI 4.1:
#       every rank ends "OK", no failure and no error, at least 1,000 tests
#   futures/pmixrun/spawn, futures/mpirun/spawn
#       mpi4py.futures: an MPIPoolExecutor of 2 workers it spawns itself
#       computes 200 squares (c-tests/consumers/futures_pool.py)
#   futures/pmixrun/world, futures/mpirun/world
#       `python3 -m mpi4py.futures` over 3 ranks: the job's other ranks are
#       the pool
#   rixa/mpirun-openpmix/bundled, rixa/pmixrun/bundled, rixa/pmixrun/rpmix,
#   rixa/mpirun/rpmix
#       rixa (PyPI)'s PMIxStore over 2 ranks (c-tests/consumers/rixa_store.py):
#       its wheel's own OpenPMIx 5.0 client under mpirun on OpenPMIx 4.2.2
#       (the reference) and under pmixrun; then rpmix's library copied over
#       the bundled one, under pmixrun and mpirun on rpmix
#   impi/openpmix/N, impi/mpirun/N, impi/pmixrun/N (N = 2, 4)
#       Intel MPI's IMB benchmarks (IMB-MPI1, IMB-P2P, IMB-NBC, IMB-RMA,
#       small messages) with I_MPI_PMI=pmix, I_MPI_PMI_LIBRARY naming the
#       case's library, I_MPI_FABRICS=shm: first under mpirun on OpenPMIx
#       (the reference), then under mpirun and pmixrun on rpmix; each
#       binary exits 0 and lists the same benchmarks as the reference
#
# Usage: tools/consumers-tests.sh [build-dir]
set -u
BUILD_SUBDIR=consumers
MARKER_PREFIX=rpmix-consumers
T=${CONSUMERS_TESTS_TIMEOUT:-600}
. "$(dirname "$0")/testlib.sh"
require_lib "$LIBDIR" "$B"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PY=/usr/bin/python3
OURS=$(readlink -f "$LIBDIR/libpmix.so.2")
REF=$(readlink -f /usr/lib/x86_64-linux-gnu/libpmix.so.2)
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)

log=$B/install.log
if ! CACHE=$("$ROOT/tools/install-consumers.sh" 2>"$log" | tail -n 1) || [ ! -d "$CACHE" ]; then
    fail install "tools/install-consumers.sh failed" "$log"; finish
fi
M4P=$CACHE/mpi4py/test
IMPI=$CACHE/impi
WHICH=$MK/libwhich_pmix.so
if ! make_progs libwhich_pmix.so >"$B/build.log" 2>&1; then
    fail build "which_pmix.c" "$B/build.log"; finish
fi

# launch <launcher> <library> <ranks> <cmd...>: runs cmd under pmixrun or
# mpirun with the case's library and the proof preloaded (RC, MS: run_timed)
launch() {
    local how=$1 lib=$2 n=$3; shift 3
    local libdir=""
    [ "$lib" = "$OURS" ] && libdir=$LIBDIR
    case $how in
    pmixrun)
        run_timed "$out" env LD_LIBRARY_PATH="$libdir${EXTRA_LD:+:$EXTRA_LD}" LD_PRELOAD="$WHICH" WHICH_PMIX_OUT="$proof" \
            "$PMIXRUN" -n "$n" "$@" ;;
    mpirun)
        run_timed "$out" env LD_LIBRARY_PATH="$libdir" LD_PRELOAD="$WHICH" WHICH_PMIX_OUT="$proof" \
            "${MPIRUN[@]}" -np "$n" -x LD_LIBRARY_PATH="$libdir${EXTRA_LD:+:$EXTRA_LD}" -x LD_PRELOAD -x WHICH_PMIX_OUT \
            "${MPI_X[@]}" "$@" ;;
    esac
}

# ---- mpi4py's own test suite ----
for how in pmixrun mpirun; do
    for n in 1 2 3; do
        c=mpi4py/$how/$n
        selected "$c" || continue
        why=""; out=$B/${c//\//-}.log; proof=$out.which; : >"$proof"
        EXTRA_LD="" MPI_X=()
        (cd "$M4P" && launch "$how" "$OURS" "$n" "$PY" runtests.py -q)
        RC=$(sed -n 's/^\[exit \([0-9]*\) after .*/\1/p' "$out" | tail -n 1)
        [ "$RC" = 0 ] || add "exit $RC"
        oks=$(grep -c '^OK' "$out"); [ "$oks" = "$n" ] || add "$oks of $n ranks ended OK"
        ! grep -qE '^FAILED|^(ERROR|FAIL): ' "$out" || add "failures or errors: $(grep -E '^(ERROR|FAIL): ' "$out" | head -n 3 | tr '\n' ';')"
        ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$out" | head -n 1)
        [ "${ran:-0}" -ge 1000 ] || add "only ${ran:-0} tests ran"
        proof_loaded "$proof" "$OURS" "$n"
        if [ -z "$why" ]; then pass "$c"; echo "    $(grep -m1 '^Ran' "$out"), $n ranks, $(sed -n 's/.*after \([0-9]*\) ms.*/\1/p' "$out" | tail -n 1) ms"; else fail "$c" "$why" "$out"; fi
    done
done

# ---- mpi4py.futures ----
for how in pmixrun mpirun; do
    for mode in spawn world; do
        c=futures/$how/$mode
        selected "$c" || continue
        why=""; out=$B/${c//\//-}.log; proof=$out.which; : >"$proof"
        EXTRA_LD="" MPI_X=()
        if [ $mode = spawn ]; then
            launch "$how" "$OURS" 1 "$PY" "$ROOT/c-tests/consumers/futures_pool.py" spawn 2
            want="futures spawn: 200 results right, [12] worker processes, spawned=\[True\]"; procs=3
        else
            launch "$how" "$OURS" 3 "$PY" -m mpi4py.futures "$ROOT/c-tests/consumers/futures_pool.py" world
            want="futures world: 200 results right, 2 worker processes, spawned=\[False\]"; procs=3
        fi
        [ "$RC" = 0 ] || add "exit $RC"
        grep -qE "^$want$" "$out" || add "no line '$want'"
        proof_loaded "$proof" "$OURS" "$procs"
        if [ -z "$why" ]; then pass "$c"; else fail "$c" "$why" "$out"; fi
    done
done

# ---- rixa (PyPI): its PMIx store, on the OpenPMIx 5.0 its wheel bundles
# and on rpmix put in that library's place (a copy of the package) ----
RIXA_OURS=$B/rixa-on-rpmix
rm -rf "$RIXA_OURS" && cp -r "$CACHE/rixa/." "$RIXA_OURS" &&
    for f in "$RIXA_OURS"/rixa.libs/libpmix-*.so*; do cp -L "$LIBDIR/libpmix.so.2" "$f"; done
RIXA_BUNDLED=$(readlink -f "$CACHE"/rixa/rixa.libs/libpmix-*.so*)
# rixa_case <case> <launcher> <package dir> <library the launcher runs on> <library rixa runs on: ours or bundled>
rixa_case() {
    local c=$1 how=$2 pkg=$3 lib=$4 on=$5 maps
    selected "$c" || return 0
    why=""; out=$B/${c//\//-}.log; proof=$out.which; : >"$proof"
    EXTRA_LD="" MPI_X=()
    launch "$how" "$lib" 2 "$PY" "$ROOT/c-tests/consumers/rixa_store.py" "$pkg"
    [ "$RC" = 0 ] || add "exit $RC"
    [ "$(grep -c '^rixa rank [01] of 2, local rank [01]: 2 values right$' "$out")" = 2 ] || add "not 2 ranks with the right values"
    # (rixa's library is not named libpmix.so.2: each rank says what it mapped)
    local want=$RIXA_BUNDLED
    [ "$on" = ours ] && want=$(readlink -f "$RIXA_OURS"/rixa.libs/libpmix-*.so*)
    maps=$(sed -n 's/^rixa rank [01] maps //p' "$out" | xargs -r -n1 readlink -f | sort | uniq -c | tr -s ' ')
    [ "$maps" = " 2 $want" ] || add "the ranks mapped: ${maps:-nothing} (want 2 x $want)"
    if [ "$on" = ours ]; then
        cmp -s "$want" "$LIBDIR/libpmix.so.2" || add "the copy does not hold rpmix's library"
    fi
    if [ -z "$why" ]; then pass "$c"; else fail "$c" "$why" "$out"; fi
}
rixa_case rixa/mpirun-openpmix/bundled mpirun "$CACHE/rixa" "$REF" bundled
rixa_case rixa/pmixrun/bundled pmixrun "$CACHE/rixa" "$OURS" bundled
rixa_case rixa/pmixrun/rpmix pmixrun "$RIXA_OURS" "$OURS" ours
rixa_case rixa/mpirun/rpmix mpirun "$RIXA_OURS" "$OURS" ours

# ---- Intel MPI's IMB ----
IMB_RUNS=(
    "IMB-MPI1 PingPong Sendrecv Allreduce Bcast Barrier -msglog 2:3 -iter 10 -iter_policy off"
    "IMB-P2P PingPong -msglog 2:3 -iter 10 -iter_policy off"
    "IMB-NBC Iallreduce Ibcast -msglog 2:3 -iter 10 -iter_policy off"
    "IMB-RMA Unidir_put Bidir_get -msglog 2:3 -iter 10 -iter_policy off"
)
# imb_case <case> <launcher> <library> <ranks>: each IMB binary; the
# benchmarks each lists go to <out>.list
imb_case() {
    local c=$1 how=$2 lib=$3 n=$4 r b all=""
    why=""; : >"$B/${c//\//-}.list"
    for r in "${IMB_RUNS[@]}"; do
        # shellcheck disable=SC2086
        set -- $r; b=$1; shift
        out=$B/${c//\//-}-$b.log; proof=$out.which; : >"$proof"
        EXTRA_LD=$IMPI/lib
        MPI_X=(-x I_MPI_PMI=pmix -x I_MPI_PMI_LIBRARY="$lib" -x I_MPI_FABRICS=shm)
        I_MPI_PMI=pmix I_MPI_PMI_LIBRARY=$lib I_MPI_FABRICS=shm launch "$how" "$lib" "$n" "$IMPI/bin/$b" "$@"
        [ "$RC" = 0 ] || add "$b exit $RC"
        grep '^# Benchmarking' "$out" | sed "s/^/$b /; s/ *$//" | sort -u >>"$B/${c//\//-}.list"
        proof_loaded "$proof" "$(readlink -f "$lib")" "$n"
        all="$all $out"
    done
    out=${all##* }
}
for n in 2 4; do
    ref=impi/openpmix/$n
    if selected "$ref" || selected "impi/mpirun/$n" || selected "impi/pmixrun/$n"; then
        imb_case "$ref" mpirun "$REF" "$n"
        nb=$(wc -l <"$B/${ref//\//-}.list")
        [ "$nb" -ge 8 ] || add "only $nb benchmarks listed"
        if [ -z "$why" ]; then pass "$ref"; else fail "$ref" "$why" "$out"; fi
        for how in mpirun pmixrun; do
            c=impi/$how/$n
            selected "$c" || continue
            imb_case "$c" "$how" "$OURS" "$n"
            diff "$B/${ref//\//-}.list" "$B/${c//\//-}.list" >"$B/${c//\//-}.diff" || add "benchmarks listed differ from OpenPMIx's ($B/${c//\//-}.diff)"
            if [ -z "$why" ]; then pass "$c"; else fail "$c" "$why" "$out"; fi
        done
    fi
done
finish
