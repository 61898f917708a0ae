#!/usr/bin/env bash
# ompi-tests.sh: Debian's Open MPI 4.1.4 on rpmix versus on OpenPMIx 4.2.2.
#
# usage: tools/ompi-tests.sh [build-dir]        (default: c-tests/build/mpi)
#
# Builds c-tests/mpi/*.c with mpicc into the build dir, then runs the
# scenarios of /work/shared/reference/openmpi-4.1-contract.md:
#   (a) hello       mpirun -np 4: MPI_Init/Allreduce/Barrier/Finalize
#   (b) spawn       mpirun -np 4: MPI_Comm_spawn of 2 children, Bcast/Send, disconnect
#   (c) pubsub      mpirun -np 2: Open_port/Publish/Accept vs Lookup/Connect
#   (d) abort       mpirun -np 4: rank 1 MPI_Abort(MPI_COMM_WORLD, 3) -> rc 3
#   (e) nofinalize  mpirun -np 4: rank 2 exit(0) without MPI_Finalize -> rc != 0, no hang
#   (f) singleton   ./hello without a launcher -> "hello 0/1"
#   (c2) twojobs    ompi-server + two mpiruns with --ompi-server file:<uri>
# each once with OpenPMIx's libpmix (LD_LIBRARY_PATH removed) and once with
# rpmix's (LD_LIBRARY_PATH=$RPMIX_LIBDIR, which mpirun, orted, ompi-server and
# the ranks all inherit); then (a)-(e) once more with mpirun on OpenPMIx and
# only its ranks (and spawned children) on rpmix ("mixed": mpirun's -x
# LD_LIBRARY_PATH=$RPMIX_LIBDIR; rpmix speaks OpenPMIx's protocol to its
# server); then 20 consecutive (a) runs on rpmix; then every
# program launched directly by rpmix's own launcher, `pmixrun -n 4 ./prog`
# (Open MPI's ranks then run ess/pmi as under `srun --mpi=pmix`; pmixrun
# sets JSM_JSRUN_PORT so Open MPI recognises the direct launch).
#
# Each case prints "PASS: <name>" or "FAIL: <name>" plus the reason and the
# last lines of its output; full logs are kept in <build-dir>/logs/.  The last
# line is "N passed, M failed"; the exit code is 0 only if all passed.
#
# Environment:
#   RPMIX_LIBDIR        dir holding rpmix's libpmix.so.2 (default <repo>/target/release)
#   PMIXRUN             rpmix's launcher (default $RPMIX_PMIXRUN, else $RPMIX_LIBDIR/pmixrun)
#   OMPI_TESTS_TIMEOUT  seconds per launch (default 60)
#   OMPI_TESTS_REPEAT   number of consecutive hello runs on rpmix (default 20)
#   OMPI_TESTS_MPIRUN_ARGS  extra mpirun arguments, e.g.
#                       "-mca btl self,vader -mca pml ob1" (not needed on this machine:
#                       the default UCX/OFI probing works, it only costs ~200 ms)
#   RPMIX_CASE          run only the cases whose name matches this extended
#                       regular expression (tools/testlib.sh), e.g. ^pmixrun/
#   OMPI_TESTS_DIRECT_ENV  variables put in pmixrun's environment (and so the
#                       ranks' and spawned children's) for the direct launches;
#                       default: none needed (pmixrun's own hint).
#                       Open MPI 4.1.4 does NOT look at PMIX_NAMESPACE to decide
#                       it was direct-launched: its schizo framework only knows
#                       mpirun (OMPI_MCA_orte_hnp_uri...), SLURM (SLURM_JOBID +
#                       SLURM_NODELIST + SLURM_STEP_ID), Flux (FLUX_JOB_ID) and
#                       JSM (JSM_JSRUN_PORT); otherwise every rank becomes a
#                       singleton (ess/singleton forks its own orted, "hello 0/1").
set -uo pipefail

pmixrun=${PMIXRUN:-}
BUILD_SUBDIR=mpi
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
root=$ROOT
builddir=$B
mkdir -p "$builddir"
logdir=$builddir/logs
rlibdir=$LIBDIR
pmixrun=${pmixrun:-$PMIXRUN}
tmo=${OMPI_TESTS_TIMEOUT:-60}
repeat=${OMPI_TESTS_REPEAT:-20}
# pmixrun sets JSM_JSRUN_PORT itself (see pmixrun --help), so nothing is needed by default.
read -r -a direct_env <<<"${OMPI_TESTS_DIRECT_ENV:-OMPI_TESTS_DIRECT=1}"
read -r -a extra_mpirun_args <<<"${OMPI_TESTS_MPIRUN_ARGS:-}"
mpirun_args=(--allow-run-as-root --oversubscribe "${extra_mpirun_args[@]}")

# We run as root; direct launches (pmixrun, singleton) need these too.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for f in "$rlibdir/libpmix.so.2" "$pmixrun"; do
    if [[ ! -e $f ]]; then
        echo "ompi-tests: missing $f" >&2
        exit 1
    fi
done
for t in mpicc mpirun ompi-server timeout; do
    if ! command -v "$t" >/dev/null; then
        echo "ompi-tests: missing $t (apt-get install openmpi-bin libopenmpi-dev)" >&2
        exit 1
    fi
done

mkdir -p "$logdir"

# fail <name> <reason> <log>... (this driver's own: the last lines of several logs)
fail() {
    local name=$1 why=$2 f
    shift 2
    echo "FAIL: $name ($why)"
    for f in "$@"; do
        [[ -e $f ]] || continue
        echo "  --- last lines of $f:"
        tail -n 15 "$f" | sed 's/^/  | /'
    done
    failed=$((failed + 1))
}

# --- build (once: build_once, tools/testlib.sh) ---------------------------------
progs=(hello spawn pubsub abort nofinalize)
build_ok=1
for p in "${progs[@]}"; do
    if ! build_once "$builddir/$p" mpicc -O2 -Wall -Wextra -o "$builddir/$p" "$root/c-tests/mpi/$p.c" \
        >"$logdir/build-$p.log" 2>&1; then
        fail "build/$p" "mpicc failed" "$logdir/build-$p.log"
        build_ok=0
    fi
done
if ((build_ok == 0)); then
    echo "$passed passed, $failed failed"
    exit 1
fi

# --- running ------------------------------------------------------------------
# Every launch carries a unique tag in its environment; whatever still carries
# it after the launch returned (ranks, orted, ompi-server left behind by a
# hang) is killed by pid.
tag_base="rpmix-ompi-tests-$$"
tag_seq=0
cur_tag=

new_tag() {
    tag_seq=$((tag_seq + 1))
    cur_tag="$tag_base-$tag_seq"
}

kill_tagged() {
    local tag=$1 f pid
    for f in $(grep -lzx "RPMIX_OMPI_TEST_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${f#/proc/}
        pid=${pid%/environ}
        kill -KILL "$pid" 2>/dev/null
    done
}

# libenv <lib>: prints the env(1) arguments that select a libpmix
libenv() {
    case $1 in
    openpmix | mixed) echo "-u LD_LIBRARY_PATH" ;;
    rpmix) echo "LD_LIBRARY_PATH=$rlibdir" ;;
    esac
}

# launch <log> <lib> cmd...: runs cmd under timeout with the library selected,
# output in <log>; sets $rc and $elapsed (seconds, float).
launch() {
    local log=$1 lib=$2 t0 t1
    shift 2
    new_tag
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    env $(libenv "$lib") RPMIX_OMPI_TEST_TAG="$cur_tag" \
        timeout -k 5 "$tmo" "$@" </dev/null >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    kill_tagged "$cur_tag"
}

# expected library name in PMIx_Get_version()
libname() {
    case $1 in
    openpmix) echo "OpenPMIx" ;;
    rpmix | mixed) echo "rpmix" ;;
    esac
}

# check_hello <log> <n> <lib>: n lines "hello r/n pmix=<libname>..." for r = 0..n-1
check_hello() {
    local log=$1 n=$2 lib=$3 name r lines
    name=$(libname "$lib")
    lines=$(grep -cE "^hello [0-9]+/$n pmix=" "$log")
    if ((lines != n)); then
        why="$lines of $n hello lines"
        return 1
    fi
    for ((r = 0; r < n; r++)); do
        if ! grep -qE "^hello $r/$n pmix=" "$log"; then
            why="no hello line for rank $r/$n"
            return 1
        fi
    done
    if grep -E "^hello [0-9]+/$n pmix=" "$log" | grep -qv "pmix=$name "; then
        why="a hello line does not name $name"
        return 1
    fi
    return 0
}

# check_lines <log> <lib> <regex>...: each regex matches a line that names the library
check_lines() {
    local log=$1 lib=$2 re name
    shift 2
    name=$(libname "$lib")
    for re in "$@"; do
        if ! grep -qE "$re" "$log"; then
            why="no line matching /$re/"
            return 1
        fi
        if grep -E "$re" "$log" | grep -q 'pmix=' && grep -E "$re" "$log" | grep 'pmix=' | grep -qv "pmix=$name "; then
            why="a line /$re/ does not name $name"
            return 1
        fi
    done
    return 0
}

timed_out() { ((rc == 124 || rc == 137)); }

# --- scenario runners -----------------------------------------------------------
# Each takes <case name> <lib> <launcher words...> where the launcher words
# precede the program path, e.g. "mpirun --allow-run-as-root ... -np 4" or
# "pmixrun --timeout 60 -n 4".

case_hello() {
    local name=$1 lib=$2 n=$3 log
    shift 3
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$@" "$builddir/hello"
    if timed_out; then fail "$name" "timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc != 0)); then fail "$name" "rc $rc" "$log"
    elif ! check_hello "$log" "$n" "$lib"; then fail "$name" "$why" "$log"
    else pass "$name"; fi
}

case_spawn() {
    local name=$1 lib=$2 log
    shift 2
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$@" "$builddir/spawn"
    if timed_out; then fail "$name" "timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc != 0)); then fail "$name" "rc $rc" "$log"
    elif ! check_lines "$log" "$lib" '^child 0/2 got 4242 pmix=' '^child 1/2 got 4242 pmix=' \
        '^spawn ok: [0-9]+ parents, 2 children replied pmix='; then fail "$name" "$why" "$log"
    else pass "$name"; fi
}

case_pubsub() {
    local name=$1 lib=$2 pairs=$3 log k res
    shift 3
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$@" "$builddir/pubsub" both "pubsub-$cur_tag"
    res=('^pubsub ok \(both\)')
    for ((k = 0; k < pairs; k++)); do
        res+=("^pubsub server $k ok pmix=" "^pubsub client $k ok pmix=")
    done
    if timed_out; then fail "$name" "timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc != 0)); then fail "$name" "rc $rc" "$log"
    elif ! check_lines "$log" "$lib" "${res[@]}"; then fail "$name" "$why" "$log"
    else pass "$name"; fi
}

case_abort() {
    local name=$1 lib=$2 log
    shift 2
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$@" "$builddir/abort"
    # Only the exit code counts: the MPI_ABORT banner has a known race in
    # stock Open MPI (contract 5d).
    if timed_out; then fail "$name" "timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc != 3)); then fail "$name" "rc $rc, expected 3" "$log"
    elif grep -q 'passed the barrier' "$log"; then fail "$name" "a rank survived MPI_Abort" "$log"
    else pass "$name"; fi
}

case_nofinalize() {
    local name=$1 lib=$2 log
    shift 2
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$@" "$builddir/nofinalize"
    if timed_out; then fail "$name" "hang: timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc == 0)); then fail "$name" "rc 0, expected non-zero" "$log"
    else pass "$name"; fi
}

case_singleton() {
    local name=$1 lib=$2 log
    selected "$name" || return 0
    log=$logdir/${name//\//_}.log
    launch "$log" "$lib" "$builddir/hello"
    if timed_out; then fail "$name" "timed out after ${elapsed}s (rc $rc)" "$log"
    elif ((rc != 0)); then fail "$name" "rc $rc" "$log"
    elif ! check_hello "$log" 1 "$lib"; then fail "$name" "$why" "$log"
    else pass "$name"; fi
}

# (c2) ompi-server + two mpiruns: the server job publishes and accepts, the
# client job looks up (retrying) and connects.
case_twojobs() {
    local name=$1 lib=$2 base uri slog clog olog sp jp src crc i why=
    selected "$name" || return 0
    base=$logdir/${name//\//_}
    uri=$base.uri slog=$base.server.log clog=$base.client.log olog=$base.ompi-server.log
    rm -f "$uri"
    new_tag
    # shellcheck disable=SC2046
    env $(libenv "$lib") RPMIX_OMPI_TEST_TAG="$cur_tag" \
        timeout -k 5 "$((tmo + 20))" ompi-server --no-daemonize -r "$uri" </dev/null >"$olog" 2>&1 &
    sp=$!
    for ((i = 0; i < 100; i++)); do
        [[ -s $uri ]] && break
        kill -0 "$sp" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -s $uri ]]; then
        kill "$sp" 2>/dev/null
        wait "$sp" 2>/dev/null
        kill_tagged "$cur_tag"
        fail "$name" "ompi-server wrote no URI file" "$olog"
        return
    fi
    # shellcheck disable=SC2046
    env $(libenv "$lib") RPMIX_OMPI_TEST_TAG="$cur_tag" \
        timeout -k 5 "$tmo" mpirun "${mpirun_args[@]}" -np 1 --ompi-server "file:$uri" \
        "$builddir/pubsub" server "tj-$cur_tag" </dev/null >"$slog" 2>&1 &
    jp=$!
    sleep 0.5
    # shellcheck disable=SC2046
    env $(libenv "$lib") RPMIX_OMPI_TEST_TAG="$cur_tag" \
        timeout -k 5 "$tmo" mpirun "${mpirun_args[@]}" -np 1 --ompi-server "file:$uri" \
        "$builddir/pubsub" client "tj-$cur_tag" </dev/null >"$clog" 2>&1
    crc=$?
    wait "$jp"
    src=$?
    kill "$sp" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        kill -0 "$sp" 2>/dev/null || break
        sleep 0.1
    done
    wait "$sp" 2>/dev/null
    kill_tagged "$cur_tag"
    if ((src == 124 || src == 137 || crc == 124 || crc == 137)); then
        why="timed out (server job rc $src, client job rc $crc)"
    elif ((src != 0 || crc != 0)); then
        why="server job rc $src, client job rc $crc"
    elif ! check_lines "$slog" "$lib" '^pubsub server 0 ok pmix=' '^pubsub ok \(server\)'; then
        why="server job: $why"
    elif ! check_lines "$clog" "$lib" '^pubsub client 0 ok pmix=' '^pubsub ok \(client\)'; then
        why="client job: $why"
    fi
    if [[ -n $why ]]; then fail "$name" "$why" "$slog" "$clog" "$olog"
    else pass "$name"; fi
}

# --- the cases --------------------------------------------------------------------
for lib in openpmix rpmix; do
    M=(mpirun "${mpirun_args[@]}")
    case_hello "mpirun/$lib/hello" "$lib" 4 "${M[@]}" -np 4
    case_spawn "mpirun/$lib/spawn" "$lib" "${M[@]}" -np 4
    case_pubsub "mpirun/$lib/pubsub" "$lib" 1 "${M[@]}" -np 2
    case_abort "mpirun/$lib/abort" "$lib" "${M[@]}" -np 4
    case_nofinalize "mpirun/$lib/nofinalize" "$lib" "${M[@]}" -np 4
    case_singleton "singleton/$lib/hello" "$lib"
    case_twojobs "twojobs/$lib/pubsub" "$lib"
done

# Mixed: mpirun (and its server) on OpenPMIx, the ranks on rpmix.
M=(mpirun "${mpirun_args[@]}" -x LD_LIBRARY_PATH="$rlibdir")
case_hello "mpirun/mixed/hello" mixed 4 "${M[@]}" -np 4
case_spawn "mpirun/mixed/spawn" mixed "${M[@]}" -np 4
case_pubsub "mpirun/mixed/pubsub" mixed 1 "${M[@]}" -np 2
case_abort "mpirun/mixed/abort" mixed "${M[@]}" -np 4
case_nofinalize "mpirun/mixed/nofinalize" mixed "${M[@]}" -np 4

# (a) 20 consecutive runs on rpmix: any failure or hang fails the case.
name="mpirun/rpmix/hello-x$repeat"
if selected "$name"; then
    log=$logdir/${name//\//_}.log
    ok=1
    for ((i = 1; i <= repeat; i++)); do
        launch "$log" rpmix mpirun "${mpirun_args[@]}" -np 4 "$builddir/hello"
        if timed_out; then why="run $i/$repeat timed out after ${elapsed}s (rc $rc)"; ok=0
        elif ((rc != 0)); then why="run $i/$repeat: rc $rc"; ok=0
        elif ! check_hello "$log" 4 rpmix; then why="run $i/$repeat: $why"; ok=0; fi
        ((ok)) || break
    done
    if ((ok)); then pass "$name"; else fail "$name" "$why" "$log"; fi
fi

# Every program launched directly by pmixrun (rpmix is the resource manager).
P=(env "${direct_env[@]}" "$pmixrun" --timeout "$((tmo > 10 ? tmo - 5 : tmo))")
case_hello "pmixrun/hello" rpmix 4 "${P[@]}" -n 4
case_hello "pmixrun/hello-bound" rpmix 3 "${P[@]}" --bind-to core -n 3
case_spawn "pmixrun/spawn" rpmix "${P[@]}" -n 4
case_pubsub "pmixrun/pubsub" rpmix 2 "${P[@]}" -n 4
case_abort "pmixrun/abort" rpmix "${P[@]}" -n 4
case_nofinalize "pmixrun/nofinalize" rpmix "${P[@]}" -n 4

finish
