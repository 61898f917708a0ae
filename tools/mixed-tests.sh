#!/bin/bash
# rpmix ranks under servers running on OpenPMIx 4.2.2 (issue 15): the host
# keeps the system's libpmix.so.2, only the ranks are given rpmix's (as a
# user can change their program's library but not the resource manager's).
#
#   tools/mixed-tests.sh [BUILD_DIR]        (default: c-tests/build/mixed)
#
# Hosts, all on OpenPMIx (LD_LIBRARY_PATH removed):
#   rm       the project's C resource manager c-tests/rm_simple.c, built
#            against OpenPMIx's headers
#   server   OpenPMIx's own example server (server.c, built as
#            tools/examples-tests.sh builds it)
#   mpirun   Open MPI 4.1.4's mpirun (its MPI programs are in ompi-tests.sh,
#            cases mpirun/mixed/*; here PMIx C programs)
# Each case runs twice: ranks on OpenPMIx (the reference) and ranks on rpmix
# (LD_LIBRARY_PATH given to the ranks alone: a wrapper script, or mpirun's
# -x). Both runs must give the expected exit status and the expected lines;
# a case the reference fails is a SKIP with its reason. Each rank proves
# which library it ran on: c-tests/which_pmix.c, preloaded into the ranks
# only, appends "<pid> <path of the loaded libpmix.so.2> <PMIx_Get_version()>"
# at start; the rpmix run must show one line per rank, each naming rpmix's
# library, and the reference one per rank naming OpenPMIx's.
#
# Environment: RPMIX_LIBDIR, RPMIX_CASE, OPENPMIX_INCLUDE, OPENPMIX_EXAMPLES, CC
# (tools/testlib.sh). Last line: "N passed, M failed".
set -u
BUILD_SUBDIR=mixed
. "$(dirname "$0")/testlib.sh"
MARKER_PREFIX=rpmix-mixed
MARKER_VAR=MIXED_MARKER   # (marker_in_env, tools/testlib.sh)
require_lib "$LIBDIR" "$B"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OEX=$BIN/oex
OEXSRC=$ROOT/c-tests/openpmix-examples
W=$B/wrap
mkdir -p "$OEX" "$W"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-mixed.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
SYSLIB=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
SYSLIB=$(readlink -f "${SYSLIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}")

# ---- build ----
build_log=$B/build.log
: >"$build_log"
ok=1
build_once "$BIN/libwhich_pmix.so" $CC -shared -fPIC -Wall -Wextra "$ROOT/c-tests/which_pmix.c" -o "$BIN/libwhich_pmix.so" -ldl >>"$build_log" 2>&1 || ok=0
for p in rm_simple client_basic client_abort client_events; do
    build_prog_refh "$p" >>"$build_log" 2>&1 || ok=0
done
for ex in hello client client2 dmodex nodeinfo pub pubi; do
    build_example "$ex" "$OEX" >>"$build_log" 2>&1 || ok=0
done
build_once "$OEX/server" $CC -std=gnu99 -g -O1 -w -I"$OEXSRC/shim" -I"$OEXSRC/shim/src" -I"$OEXSRC" -I"$REF_INC" \
    "$OEX_SRC/server.c" "$OEXSRC/shim/exshim.c" -o "$OEX/server" -l:libpmix.so.2 -lpthread >>"$build_log" 2>&1 || ok=0
if [ $ok = 1 ]; then pass build; else fail build "compilation failed" "$build_log"; finish; fi

# run-<lib>: runs its arguments as a rank on <lib>, with the proof preloaded.
for lib in openpmix rpmix; do
    {
        echo '#!/bin/sh'
        [ $lib = rpmix ] && echo "LD_LIBRARY_PATH='$LIBDIR'; export LD_LIBRARY_PATH"
        [ $lib = openpmix ] && echo 'unset LD_LIBRARY_PATH'
        echo "LD_PRELOAD='$BIN/libwhich_pmix.so'; export LD_PRELOAD"
        echo 'exec "$@"'
    } >"$W/run-$lib"
    chmod +x "$W/run-$lib"
done
# server.c takes one program path (-e): one wrapper per example and library.
for ex in hello client client2 dmodex nodeinfo pub pubi; do
    for lib in openpmix rpmix; do
        printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$W/run-$lib" "$OEX/$ex" >"$W/$ex.$lib"
        chmod +x "$W/$ex.$lib"
    done
done

# ---- one run ----
# run_host <lib> <log> <proof> <host words...>: the host on OpenPMIx, under a
# time limit; every process carrying the run's marker is ended afterwards.
run_host() {
    local lib=$1 log=$2 proof=$3; shift 3
    local marker; marker=$(new_marker "$lib")
    T=60
    : >"$proof"
    (cd "$OEX" && unset LD_LIBRARY_PATH && export WHICH_PMIX_OUT=$proof MIXED_MARKER=$marker TMPDIR=$SCRATCH \
        && run_timed "$log" timeout -k 3 "$LIMIT" "$@"; echo "$RC" >"$SCRATCH/rc") </dev/null
    read -r RC <"$SCRATCH/rc"
    leftovers "$marker" "$log" marker_in_env || echo "processes left running" >>"$log"
}

# judge <log> <proof> <lib> <ranks> <exit> <regex> <count>: sets why ("" = as expected).
# <ranks>: how many ranks must report, N or MIN-MAX (a job that aborts may
# kill a rank before it has loaded any library); every report must name <lib>.
judge() {
    local log=$1 proof=$2 lib=$3 ranks=$4 ec=$5 re=$6 cnt=$7 want n total min=${4%-*} max=${4#*-}
    why=""
    [ "$RC" = "$ec" ] || add "exit $RC, expected $ec"
    grep -q "processes left running" "$log" && add "processes left running"
    n=$(grep -Ec -- "$re" "$log")
    [ "$n" -ge "$cnt" ] || add "$n of $cnt lines /$re/"
    if [ "$lib" = rpmix ]; then want=$(readlink -f "$LIBDIR/libpmix.so.2"); else want=$SYSLIB; fi
    n=0
    while read -r _ path _; do
        [ "$(readlink -f "$path")" = "$want" ] && n=$((n + 1))
    done <"$proof"
    total=$(wc -l <"$proof")
    [ "$n" = "$total" ] && [ "$n" -ge "$min" ] && [ "$n" -le "$max" ] ||
        add "$n of $ranks ranks ran on $want ($total reports: $(cut -d' ' -f2 "$proof" | sort | uniq -c | tr '\n' ' '))"
    return 0
}

# mixed_case <name> <ranks> <exit> <regex> <count> <tries> <command for lib ...: RUN stands for the wrapper>
mixed_case() {
    local name=$1 ranks=$2 ec=$3 re=$4 cnt=$5 tries=$6; shift 6
    selected "$name" || return 0
    local lib a ref_why="" log proof w args
    for lib in openpmix rpmix; do
        log=$B/${name//\//_}.$lib.log; proof=$B/${name//\//_}.$lib.proof
        for a in $(seq "$tries"); do
            args=()
            for w in "$@"; do args+=("${w//@LIB@/$lib}"); done
            run_host "$lib" "$log" "$proof" "${args[@]}"
            judge "$log" "$proof" "$lib" "$ranks" "$ec" "$re" "$cnt"
            [ -z "$why" ] && break
            [ "$RC" = 124 ] && [ "$RETRY_HANGS" = 0 ] && break
        done
        [ "$a" -gt 1 ] && echo "[attempt $a]" >>"$log"
        if [ $lib = openpmix ] && [ -n "$why" ]; then
            echo "SKIP: $name (fails with OpenPMIx ranks too: $why; log: $log)"
            return 0
        fi
        [ $lib = rpmix ] && [ -n "$why" ] && { fail "$name" "rpmix ranks: $why" "$log"; return 0; }
    done
    pass "$name"
}

RB=$BIN
# Each run's time limit (s), and whether a run that hit it is tried again.
LIMIT=45 RETRY_HANGS=0
# The C resource manager on OpenPMIx; its clients built against OpenPMIx's headers.
mixed_case rm/client_basic 4 0 '^client_basic: 4 ranks, all checks passed' 1 1 \
    "$RB/rm_simple_refh" -n 4 "$W/run-@LIB@" "$RB/client_basic_refh" 4
mixed_case rm/client_basic-deferred 4 0 '^client_basic: 4 ranks, all checks passed' 1 1 \
    "$RB/rm_simple_refh" -m defer -n 4 "$W/run-@LIB@" "$RB/client_basic_refh" 4
# client_events fails some checks on OpenPMIx ranks (default handlers that
# its 4.2.2 server never feeds): rpmix ranks must fail none of the others.
if selected rm/client_events; then
    for lib in openpmix rpmix; do
        run_host $lib "$B/events.$lib.log" "$B/events.$lib.proof" "$RB/rm_simple_refh" -n 3 "$W/run-$lib" "$RB/client_events_refh"
        judge "$B/events.$lib.log" "$B/events.$lib.proof" $lib 3 "$RC" '^client_events: [0-9]+ passed' 1
        [ -z "$why" ] || break
        sed -nE 's/^rank [0-9]+: (.*): FAIL.*/\1/p' "$B/events.$lib.log" | sort -u >"$B/events.$lib.failed"
    done
    if [ -n "$why" ]; then fail rm/client_events "$lib ranks: $why" "$B/events.$lib.log"
    elif extra=$(comm -13 "$B/events.openpmix.failed" "$B/events.rpmix.failed") && [ -n "$extra" ]; then
        fail rm/client_events "rpmix ranks fail checks OpenPMIx ranks pass: $(echo $extra)" "$B/events.rpmix.log"
    else
        pass rm/client_events
        echo "    OpenPMIx ranks: $(grep -E '^client_events:' "$B/events.openpmix.log"); rpmix ranks: $(grep -E '^client_events:' "$B/events.rpmix.log")"
    fi
fi
# (the host kills the other ranks when one aborts, some maybe before they start)
mixed_case rm/client_abort 1-4 7 '.' 0 1 \
    "$RB/rm_simple_refh" -n 4 "$W/run-@LIB@" "$RB/client_abort_refh"
# OpenPMIx's example server, retried: its wakeup race (examples-tests.sh)
# lets it finalize while a rank still runs. A rank's request then fails, or
# the server hangs: its finalize joins its progress thread while that
# thread waits for the library's lock inside a query from the rank (seen
# with OpenPMIx ranks too, 1 run in 40 of hello). So a hang is retried here
# as well, under a short limit (each example takes under a second).
LIMIT=10 RETRY_HANGS=1
for spec in "hello 2 PMIx_Finalize.successfully.completed 2" "client 2 PMIx_Finalize.successfully.completed 2" \
    "client2 2 PMIx_Finalize.successfully.completed 2" "dmodex 2 rank.0:PMIx_Finalize.successfully 1" \
    "nodeinfo 2 PMIx_Finalize.successfully.completed 2" "pub 2 UNPUBLISH.SUCCEEDED 1" "pubi 2 UNPUBLISH.SUCCEEDED 1"; do
    read -r ex np re cnt <<<"$spec"
    mixed_case "server/$ex" "$np" 0 "$re" "$cnt" 5 "$OEX/server" -n "$np" -e "$W/$ex.@LIB@"
done
LIMIT=45 RETRY_HANGS=0
# OpenPMIx's examples under Open MPI's mpirun (on OpenPMIx), the ranks given their library by -x.
H=$(hostname)
for spec in "hello 2 PMIx_Finalize.successfully.completed 2" "client 2 PMIx_Finalize.successfully.completed 2" \
    "dmodex 2 rank.0:PMIx_Finalize.successfully 1" "nodeinfo 2 PMIx_Finalize.successfully.completed 2" "pub 2 UNPUBLISH.SUCCEEDED 1"; do
    read -r ex np re cnt <<<"$spec"
    mixed_case "mpirun/$ex" "$np" 0 "$re" "$cnt" 1 mpirun --allow-run-as-root --oversubscribe --host "$H:$np" -np "$np" \
        -x MIXED_MARKER -x WHICH_PMIX_OUT "$W/run-@LIB@" "$OEX/$ex"
done
finish
