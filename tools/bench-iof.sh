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
# pmixrun and the tool. Two sinks for the tool's stdout: /dev/null, as the
# terminal's; and a pipe read by a checker (iof_tally: the count of bytes
# and of each byte value, the same for any interleaving of the ranks'
# chunks), compared with the ranks' own output written without pmixrun;
# beside it pmixrun's own stdout into the same checker. Nothing lost: every
# checked run must match.
cc -std=gnu99 -O2 -w c-tests/iof_tally.c -o "$B/iof_tally" || exit 1
want=$(for r in 0 1 2 3; do PMIX_RANK=$r "$B/iof_writer" "$MIB"; done | "$B/iof_tally")
gated() {  # gated terminal|tool null|check: seconds from the gate to the end, or fail
    local d; d=$(mktemp -d)
    local out=/dev/null
    if [ "$1$2" = terminalcheck ]; then
        mkfifo "$d/out"
        out=$d/out
        "$B/iof_tally" <"$d/out" >"$d/got" &
    elif [ "$2" = null ]; then
        echo "$want" >"$d/got"
    fi
    LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" --timeout 300 -n 4 "$B/iof_writer" "$MIB" "$d/gate" >"$out" 2>/dev/null & local pid=$!
    for _ in $(seq 1000); do LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl" --pid $pid ps >/dev/null 2>&1 && break; sleep 0.01; done
    if [ "$1" = tool ]; then
        if [ "$2" = null ]; then
            LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl" --pid $pid output --follow 2>"$d/log" >/dev/null &
        else
            LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl" --pid $pid output --follow 2>"$d/log" | "$B/iof_tally" >"$d/got" &
        fi
        for _ in $(seq 1000); do grep -q following "$d/log" 2>/dev/null && break; sleep 0.01; done
    else
        sleep 0.2 # (the ranks are waiting at the gate)
    fi
    t0=$(date +%s.%N); touch "$d/gate"
    wait $pid; local rc=$?; wait
    t1=$(date +%s.%N)
    if [ $rc = 0 ] && [ "$(cat "$d/got")" = "$want" ]; then echo "$t1 - $t0" | bc -l
    else echo "bench-iof: the $1 got $(cat "$d/got"), the ranks wrote $want (pmixrun: $rc)" >&2; echo fail; fi
    rm -rf "$d"
}
# Each kind in turn, N times (the machine's speed drifts).
runs=$(for _ in $(seq "$N"); do
    N=1 time_runs LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixrun" -n 4 "$B/iof_writer" "$MIB" | sed 's/^/launch /'
    gated terminal null | sed 's/^/terminal /'
    gated tool null | sed 's/^/tool /'
    gated terminal check | sed 's/^/terminal_check /'
    gated tool check | sed 's/^/tool_check /'
done)
med_of() { echo "$runs" | awk -v k="$1" '$1 == k { print $2 }' | median; }
# tool / terminal pair by pair (a terminal's run and the tool's after it), then the median
ratio_of() { echo "$runs" | awk -v a="$1" -v b="$2" '$1 == a { t = $2 } $1 == b && t != "" && t != "fail" && $2 != "fail" { print t / $2 }' | median; }
launch=$(med_of launch) ours=$(med_of terminal) tool=$(med_of tool) ours_chk=$(med_of terminal_check) tool_chk=$(med_of tool_check)
mbps() { [ "$1" = fail ] && echo n/a || echo "$(( 4 * MIB )) / $1" | bc -l | xargs printf '%.0f'; }
printf '%-36s | %16s | %16s\n' "stdout, 4 x $MIB MiB (median of $N)" "mpirun (OpenPMIx)" "pmixrun (rpmix)"
printf -- '-------------------------------------|------------------|-----------------\n'
printf '%-36s | %12.3f s    | %12.3f s\n' "wall time (launch included)" "$mpi" "$launch"
printf '%-36s | %10s MiB/s | %10s MiB/s\n' "throughput (launch included)" "$(mbps "$mpi")" "$(mbps "$launch")"
printf '%-36s | %16s | %10s MiB/s\n' "terminal, from the ranks' start" "" "$(mbps "$ours")"
printf '%-36s | %16s | %10s MiB/s\n' "to an attached tool (pmixctl)" "n/a (ORTE IOF)" "$(mbps "$tool")"
printf '%-36s | %16s | %12.2f x\n' "  tool / terminal (median of pairs)" "" "$(ratio_of terminal tool)"
printf '%-36s | %16s | %10s MiB/s\n' "checked: terminal into iof_tally" "" "$(mbps "$ours_chk")"
printf '%-36s | %16s | %10s MiB/s\n' "checked: tool into iof_tally" "" "$(mbps "$tool_chk")"
printf '%-36s | %16s | %12.2f x\n' "  tool / terminal (median of pairs)" "" "$(ratio_of terminal_check tool_check)"
