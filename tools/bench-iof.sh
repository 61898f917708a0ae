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
N=${BENCH_RUNS:-5}
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
# To an attached tool: pmixctl pulls the 4 ranks' stdout while pmixrun also
# writes it to /dev/null; timed from the moment the ranks start writing (they
# wait on a gate file until the tool's pull is registered) to the end of both
# pmixrun and the tool. Nothing lost: the tool's bytes are counted and tallied
# by byte value (iof_tally: the same for any interleaving of the ranks'
# chunks) against the ranks' own output, written without pmixrun.
cc -std=gnu99 -O2 -w c-tests/iof_tally.c -o "$B/iof_tally" || exit 1
want=$(for r in 0 1 2 3; do PMIX_RANK=$r "$B/iof_writer" "$MIB"; done | "$B/iof_tally")
to_tool() {
    local d; d=$(mktemp -d)
    LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" --timeout 300 -n 4 "$B/iof_writer" "$MIB" "$d/gate" >/dev/null 2>&1 & local pid=$!
    for _ in $(seq 100); do LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl" --pid $pid ps >/dev/null 2>&1 && break; sleep 0.1; done
    LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl" --pid $pid output --follow 2>"$d/log" | "$B/iof_tally" >"$d/got" &
    for _ in $(seq 100); do grep -q following "$d/log" 2>/dev/null && break; sleep 0.1; done
    t0=$(date +%s.%N); touch "$d/gate"
    wait $pid; local rc=$?; wait
    t1=$(date +%s.%N)
    if [ $rc = 0 ] && [ "$(cat "$d/got")" = "$want" ]; then echo "$t1 - $t0" | bc -l
    else echo "bench-iof: the tool got $(cat "$d/got"), the ranks wrote $want (pmixrun: $rc)" >&2; echo fail; fi
    rm -rf "$d"
}
# The terminal's run and the tool's in turn (the machine's speed drifts).
runs=$(for _ in $(seq "$N"); do
    N=1 time_runs LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" -n 4 "$B/iof_writer" "$MIB" | sed 's/^/terminal /'
    to_tool | sed 's/^/tool /'
done)
ours=$(echo "$runs" | awk '$1 == "terminal" { print $2 }' | median)
tool=$(echo "$runs" | awk '$1 == "tool" { print $2 }' | median)
mbps() { [ "$1" = fail ] && echo n/a || echo "$(( 4 * MIB )) / $1" | bc -l | xargs printf '%.0f'; }
printf '%-36s | %16s | %16s\n' "stdout, 4 x $MIB MiB (median of $N)" "mpirun (OpenPMIx)" "pmixrun (rpmix)"
printf -- '-------------------------------------|------------------|-----------------\n'
printf '%-36s | %12.3f s    | %12.3f s\n' "wall time" "$mpi" "$ours"
printf '%-36s | %10s MiB/s | %10s MiB/s\n' "throughput" "$(mbps "$mpi")" "$(mbps "$ours")"
printf '%-36s | %16s | %10s MiB/s\n' "to an attached tool (pmixctl)" "n/a (ORTE IOF)" "$(mbps "$tool")"
if [ "$tool" != fail ] && [ "$ours" != fail ]; then
    echo "$ours / $tool" | bc -l | xargs printf '%-36s | %16s | %12.2f x\n' "  tool's / terminal's throughput" ""
fi
