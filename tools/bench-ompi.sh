#!/bin/bash
# Wall time of `mpirun -np 4 ./hello` (median of 7) with OpenPMIx's library
# and with rpmix's, and of `pmixrun -n 4 ./hello` (rpmix), side by side.
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}/mpi
LIBDIR=${RPMIX_LIBDIR:-$PWD/target/release}
N=${BENCH_RUNS:-7}
mkdir -p "$B"
mpicc -O2 c-tests/mpi/hello.c -o "$B/bench_hello" -ldl 2>/dev/null || mpicc -O2 c-tests/mpi/hello.c -o "$B/bench_hello" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_runs() {  # time_runs <env...> -- <cmd...>: median wall seconds of N runs
    local t
    for _ in $(seq "$N"); do
        t0=$(date +%s.%N)
        env "$@" >/dev/null 2>&1 || { echo "failed" >&2; }
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc -l
    done | median
}
ref=$(time_runs LD_LIBRARY_PATH= mpirun --oversubscribe -np 4 "$B/bench_hello")
ours=$(time_runs LD_LIBRARY_PATH="$LIBDIR" mpirun --oversubscribe -np 4 "$B/bench_hello")
direct=$(time_runs LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" -n 4 "$B/bench_hello")
printf '%-28s | %14s | %10s | %s\n' "launch (median of $N)" "OpenPMIx 4.2.2" "rpmix" "ratio"
printf -- '-----------------------------|----------------|------------|------\n'
printf '%-28s | %12.3f s | %8.3f s | %.2f\n' "mpirun -np 4 ./hello" "$ref" "$ours" "$(echo "$ours / $ref" | bc -l)"
printf '%-28s | %14s | %8.3f s | %.2f (vs mpirun on rpmix)\n' "pmixrun -n 4 ./hello" "-" "$direct" "$(echo "$direct / $ours" | bc -l)"
