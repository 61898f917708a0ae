#!/bin/bash
# Launch cost (issue 37): pmixrun -n N of a program that only exits
# (/bin/true) and of PMIx_Init + Fence + Finalize (c-tests/launch_fence.c),
# beside bare process creation of the same count in the same run
# (c-tests/spawn_bare.c: posix_spawn N children and wait, the physical
# limit). Medians of BENCH_LAUNCH_RUNS runs (default 5) per figure, the
# commands taking turns, at N = 64, 256, 1024 (BENCH_LAUNCH_SIZES).
#
# The session directory pmixrun makes (a directory per rank) lives under
# TMPDIR; its file system's cost is part of a launch, so the last column
# repeats init+fence+finalize with TMPDIR on /dev/shm (tmpfs) when there is one.
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}
LIBDIR=${RPMIX_LIBDIR:-$PWD/target/release}
RUNS=${BENCH_LAUNCH_RUNS:-5}
SIZES=${BENCH_LAUNCH_SIZES:-64 256 1024}
. tools/benchlib.sh
mkdir -p "$B"
cc -std=gnu99 -O2 -Wall c-tests/spawn_bare.c -o "$B/spawn_bare" || exit 1
cc -std=gnu99 -O2 -Wall -Iinclude c-tests/launch_fence.c -o "$B/launch_fence" -L"$LIBDIR" -l:libpmix.so.2 || exit 1
cc -std=gnu99 -O2 -Wall -Iinclude c-tests/tool_jobs.c -o "$B/tool_jobs" -L"$LIBDIR" -l:libpmix.so.2 -lpthread || exit 1
export LD_LIBRARY_PATH="$LIBDIR"
PMIXRUN="$LIBDIR/pmixrun"
SHM=
[ -d /dev/shm ] && [ -w /dev/shm ] && SHM=/dev/shm

# secs <command...>: its wall time in seconds, or "fail" when it failed.
secs() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo fail; return; }
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}
med() { awk "$BENCH_AWK_MEDIAN"'{ print (index($0, "fail") ? "fail" : median($0)) }' <<<"$1"; }
# cell <seconds> <bare seconds> <n>: "s (x bare, us/rank)"
cell() {
    [ "$1" = fail ] && { echo "fail"; return; }
    awk -v s="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.3f s (%.2fx, %d us/rank)", s, s / b, s / n * 1e6 }'
}

echo "Launch: medians of $RUNS runs each on $(nproc) CPUs (x = against bare posix_spawn of /bin/true, the same count)"
echo "(launch_fence bare: the same program started by posix_spawn without a launcher: it loads the library, its PMIx_Init finds no server and it exits)"
printf '%6s | %22s | %32s | %32s | %32s | %32s\n' N "bare posix_spawn+wait" "pmixrun: program that exits" "launch_fence bare" "pmixrun: Init+Fence+Finalize" "the same, TMPDIR on tmpfs"
printf -- '-------|------------------------|----------------------------------|----------------------------------|----------------------------------|---------------------------------\n'
for n in $SIZES; do
    bare="" exit_only="" fence_bare="" fence="" fence_shm=""
    for _ in $(seq "$RUNS"); do
        bare+=" $(secs "$B/spawn_bare" -n "$n")"
        exit_only+=" $(secs timeout 300 "$PMIXRUN" -n "$n" /bin/true)"
        fence_bare+=" $(secs "$B/spawn_bare" -n "$n" -a "$B/launch_fence")"
        fence+=" $(secs timeout 300 "$PMIXRUN" -n "$n" "$B/launch_fence")"
        [ -n "$SHM" ] && fence_shm+=" $(secs env TMPDIR="$SHM" timeout 300 "$PMIXRUN" -n "$n" "$B/launch_fence")"
    done
    b=$(med "$bare")
    printf '%6s | %22s | %32s | %32s | %32s | %32s\n' "$n" "$(awk -v s="$b" -v n="$n" 'BEGIN { printf "%.3f s (%d us/rank)", s, s / n * 1e6 }')" \
        "$(cell "$(med "$exit_only")" "$b" "$n")" "$(cell "$(med "$fence_bare")" "$b" "$n")" "$(cell "$(med "$fence")" "$b" "$n")" \
        "$( [ -n "$SHM" ] && cell "$(med "$fence_shm")" "$b" "$n" || echo n/a)"
done

# Open MPI 4.1's mpirun at BENCH_LAUNCH_MPIRUN ranks (default 256) of the
# same program, mpirun and ranks on OpenPMIx 4.2.2 and on rpmix, in turn:
# wall time and the CPU of the whole launch (mpirun and its children).
NM=${BENCH_LAUNCH_MPIRUN:-256}
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # wall_cpu <libdir or empty> : "wall cpu" of one mpirun launch, or "fail"
    wall_cpu() {
        local out
        out=$( { TIMEFORMAT='%R %U %S'; time env LD_LIBRARY_PATH="$1" timeout 300 mpirun --oversubscribe -np "$NM" "$B/launch_fence" >/dev/null 2>&1 || echo fail >&2; } 2>&1 )
        case "$out" in *fail*) echo fail ;; *) awk '{ printf "%.3f %.3f", $1, $2 + $3 }' <<<"$out" ;; esac
    }
    ref_w="" ref_c="" our_w="" our_c="" opx_w=""
    for _ in $(seq "$RUNS"); do
        read -r w c <<<"$(wall_cpu "")"; ref_w+=" $w" ref_c+=" $c"
        read -r w c <<<"$(wall_cpu "$LIBDIR")"; our_w+=" $w" our_c+=" $c"
        # pmixrun serving ranks that run on OpenPMIx's library (over TCP)
        opx_w+=" $(secs env LD_LIBRARY_PATH= timeout 300 "$PMIXRUN" -n "$NM" "$B/launch_fence")"
    done
    echo
    echo "mpirun --oversubscribe -np $NM launch_fence (Open MPI 4.1, mpirun and ranks on one library), medians of $RUNS:"
    awk -v rw="$(med "$ref_w")" -v rc="$(med "$ref_c")" -v ow="$(med "$our_w")" -v oc="$(med "$our_c")" 'BEGIN {
        if (rw == "fail" || ow == "fail") { print "  fail"; exit }
        printf "  OpenPMIx 4.2.2: %.3f s wall, %.3f s CPU\n  rpmix:          %.3f s wall (%.2fx), %.3f s CPU (%.2fx)\n", rw, rc, ow, ow / rw, oc, oc / rc }'
    echo "  pmixrun -n $NM, the ranks on OpenPMIx 4.2.2's library: $(med "$opx_w") s wall"
fi

# One-rank jobs through a persistent pmixrun (`pmixctl run -n 1`, start to
# end event, the tool's own start included): one after another, and 100
# tools at once. In a TMPDIR of its own, so no other server is found.
PMIXCTL="$LIBDIR/pmixctl"
T=$(mktemp -d)
TMPDIR=$T "$PMIXRUN" --persistent >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do TMPDIR=$T "$PMIXCTL" run -n 1 /bin/true >/dev/null 2>&1 && break; sleep 0.05; done
seq_runs="" par_runs="" tool_seq="" tool_par=""
# tools_at_once <tools> <jobs each>: "<jobs/s> <ms of the slowest job>" over
# the span from the first spawn to the last end event (tool_jobs prints its
# own first and last CLOCK_MONOTONIC times), or "fail"
tools_at_once() {
    local out
    out=$(for _ in $(seq "$1"); do TMPDIR=$T timeout 120 "$B/tool_jobs" "$2" /bin/true & done; wait)
    awk -v n="$1" -v j="$2" '/^tool_jobs:/ { k++; if (!f || $4 < f) f = $4; if ($5 > l) l = $5; if ($6 > s) s = $6 }
        END { if (k != n || l <= f) print "fail"; else printf "%.1f %.2f", n * j / ((l - f) / 1e9), s / 1e6 }' <<<"$out"
}
for _ in $(seq "$RUNS"); do
    seq_runs+=" $(secs env TMPDIR="$T" bash -c 'for i in $(seq 50); do "$0" run -n 1 /bin/true || exit 1; done' "$PMIXCTL")"
    par_runs+=" $(secs env TMPDIR="$T" bash -c 'for i in $(seq 100); do { "$0" run -n 1 /bin/true || echo x >>"$1"; } & done; wait; [ ! -s "$1" ]' "$PMIXCTL" "$T/failed")"
    read -r rate _ <<<"$(tools_at_once 1 100)"; tool_seq+=" $rate"
    read -r rate slow <<<"$(tools_at_once 100 10)"; tool_par+=" $rate"
done
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
rm -rf "$T"
s=$(med "$seq_runs") p=$(med "$par_runs")
echo
echo "One-rank jobs through pmixrun --persistent (pmixctl run -n 1 /bin/true), medians of $RUNS:"
[ "$s" = fail ] && echo "  one after another: fail" || awk -v s="$s" 'BEGIN { printf "  one after another: %.1f ms a job (50 in %.3f s)\n", s / 50 * 1000, s }'
[ "$p" = fail ] && echo "  100 tools at once: fail" || awk -v p="$p" 'BEGIN { printf "  100 tools at once: %.0f jobs/s (%.3f s)\n", 100 / p, p }'
# The same jobs from tools already connected (c-tests/tool_jobs.c: spawn,
# then wait for the job's end event), the tools' own start left out:
# the launcher's job throughput.
echo "One-rank jobs from connected tools (tool_jobs: PMIx_Spawn to the job's end event), medians of $RUNS:"
s=$(med "$tool_seq") p=$(med "$tool_par")
[ "$s" = fail ] && echo "  one tool, one job after another: fail" || awk -v s="$s" 'BEGIN { printf "  one tool, one job after another: %.2f ms a job\n", 1000 / s }'
[ "$p" = fail ] && echo "  100 tools at once, 10 jobs each: fail" || awk -v p="$p" 'BEGIN { printf "  100 tools at once, 10 jobs each: %.0f jobs/s\n", p }'
