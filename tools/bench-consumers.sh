#!/bin/bash
# mpi4py's own test suite (Debian's python3-mpi4py on Open MPI 4.1.4, the
# suite of the same version: tools/install-consumers.sh) as a whole-program
# benchmark: its wall time under mpirun on OpenPMIx 4.2.2 and on rpmix, and
# under pmixrun, at 1 and 2 ranks. One run each (a run is 15 s to minutes);
# OpenPMIx's runs are capped (BENCH_M4P_CAP seconds, default 600) and
# reported as "timed out" past it: the suite then hangs on OpenPMIx.
# Also the failures each run reports.
set -u
cd "$(dirname "$0")/.."
LIBDIR=${RPMIX_LIBDIR:-$PWD/target/release}
CAP=${BENCH_M4P_CAP:-600}
CACHE=$(tools/install-consumers.sh 2>/dev/null | tail -n 1) || { echo "bench-consumers: tools/install-consumers.sh failed"; exit 1; }
# (absolute: the runs happen in mpi4py's test directory)
OUT=$(realpath -m "${1:-c-tests/build}")/bench-consumers
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$CACHE/mpi4py/test" || exit 1

# run <label> <n> <lib dir or empty> <launcher...>: one line of the table
run() {
    local label=$1 n=$2 libdir=$3 log="$OUT/${1//[^a-zA-Z0-9.]/_}-$2.log" t0 t1 rc res
    shift 3
    t0=$(date +%s.%N)
    timeout -k 5 "$CAP" env LD_LIBRARY_PATH="$libdir" "$@" /usr/bin/python3 runtests.py -q >"$log" 2>&1; rc=$?
    t1=$(date +%s.%N)
    if [ $rc = 124 ] || [ $rc = 137 ]; then res="timed out after $CAP s (hangs)"
    else
        res="exit $rc, $(grep -c '^OK' "$log") of $n ranks OK, $(grep -m1 -o '^Ran [0-9]* tests' "$log")"
        grep -q '^FAILED' "$log" && res="$res, $(grep -m1 '^FAILED' "$log")"
    fi
    printf '%-32s | %2d | %9.1f s | %s\n' "$label" "$n" "$(echo "$t1 - $t0" | bc -l)" "$res"
}
printf '%-32s | %2s | %11s | %s\n' "mpi4py 3.1.4's suite, one run" "n" "wall time" "outcome"
printf -- '---------------------------------|----|-------------|--------\n'
for n in 1 2; do
    run "mpirun on OpenPMIx 4.2.2" "$n" "" mpirun --oversubscribe -np "$n"
    run "mpirun on rpmix" "$n" "$LIBDIR" mpirun --oversubscribe -np "$n" -x LD_LIBRARY_PATH
    run "pmixrun (rpmix)" "$n" "$LIBDIR" "$LIBDIR/pmixrun" -n "$n"
done
