#!/bin/bash
# Output forwarding throughput: 4 ranks each write MIB MiB of 100-byte lines
# to stdout, the launcher forwards them to its own stdout (/dev/null).
# mpirun forwards through ORTE's IOF (the same with either PMIx library);
# pmixrun forwards through rpmix's server (line-atomic per rank).
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}
LIBDIR=${RPMIX_LIBDIR:-$PWD/target/release}
MIB=${BENCH_IOF_MIB:-64}
N=${BENCH_RUNS:-3}
mkdir -p "$B"
cc -std=gnu99 -O2 -w c-tests/iof_writer.c -o "$B/iof_writer" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_runs() {  # median wall seconds of N runs; "fail" if a run fails
    for _ in $(seq "$N"); do
        t0=$(date +%s.%N)
        timeout 300 env "$@" >/dev/null 2>&1 || { echo fail; continue; }
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc -l
    done | median
}
mpi=$(time_runs LD_LIBRARY_PATH= mpirun --oversubscribe -np 4 "$B/iof_writer" "$MIB")
ours=$(time_runs LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" -n 4 "$B/iof_writer" "$MIB")
mbps() { [ "$1" = fail ] && echo n/a || echo "$(( 4 * MIB )) / $1" | bc -l | xargs printf '%.0f'; }
printf '%-36s | %16s | %16s\n' "stdout, 4 x $MIB MiB (median of $N)" "mpirun (OpenPMIx)" "pmixrun (rpmix)"
printf -- '-------------------------------------|------------------|-----------------\n'
printf '%-36s | %12.3f s    | %12.3f s\n' "wall time" "$mpi" "$ours"
printf '%-36s | %10s MiB/s | %10s MiB/s\n' "throughput" "$(mbps "$mpi")" "$(mbps "$ours")"
