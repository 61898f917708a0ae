#!/bin/bash
# OpenPMIx 4.2.2's own example programs, run on OpenPMIx's libpmix.so.2 and
# on rpmix's, under three hosts, with the outputs compared.
#
#   tools/examples-tests.sh [BUILD_DIR]        (default: c-tests/build)
#
# Environment:
#   RPMIX_LIBDIR        rpmix's library directory (default: target/release);
#                       when it holds only libpmix.so (cargo build without
#                       `make`), a libpmix.so.2 link to it is made in
#                       BUILD_DIR/oex/rpmix-lib and used instead
#   RPMIX_PMIXRUN       the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   RPMIX_CASE          run only the cases (<host>-<example>, e.g. server-hello)
#                       whose name matches this extended regular expression
#                       (tools/testlib.sh), e.g. -hello$ for hello under every host;
#                       a pmixrun case whose mpirun case is not selected still
#                       runs OpenPMIx under mpirun, its reference
#   OPENPMIX_EXAMPLES   the examples' sources (/usr/share/doc/libpmix-dev/examples)
#   OPENPMIX_INCLUDE    OpenPMIx's headers (/usr/lib/x86_64-linux-gnu/pmix2/include)
#   CC                  the C compiler (default: cc)
#
# Build (by c-tests/Makefile, linked into BUILD_DIR/oex: build_example,
# tools/testlib.sh; shared with the other drivers and the Rust tests): every example except pmi1client.c (needs
# PMI-1's pmi.h) against OpenPMIx's headers, -std=gnu99, linked with
# -l:libpmix.so.2 (the loader picks the library at run time from
# LD_LIBRARY_PATH). examples.h is ours (c-tests/openpmix-examples/examples.h,
# Debian does not ship it). server.c, the example resource manager, includes
# OpenPMIx internals; it is built against c-tests/openpmix-shim (shared
# with OpenPMIx's test programs), which provides what it uses (objects,
# lists, argv, output, an event base run by its own thread) on the public
# API and libevent only.
# Case "server-public-api" checks that the built server imports no
# lower-case pmix_* symbol.
#
# Hosts:
#   server   OpenPMIx's server.c: `server -n NP -e ./prog` (namespace "foobar")
#   mpirun   Open MPI 4.1.4: `mpirun --oversubscribe --host <this host>:NP
#            -np NP ./prog` (the --host slots make PMIX_UNIV_SIZE = NP; with
#            rpmix first on LD_LIBRARY_PATH, mpirun's embedded server and
#            the ranks all run on rpmix)
#   pmixrun  rpmix's launcher `pmixrun -n NP ./prog`: rpmix only (it is
#            linked to rpmix's core); the OpenPMIx column says n/a
# Every run: cwd BUILD_DIR/oex (dynamic.c and debugger.c spawn ./client,
# ./debuggerd from there), a scratch TMPDIR, a time limit (T_DEFAULT s or
# the example's own), and a unique EXAMPLES_MARKER environment variable;
# afterwards every process whose environment carries the marker is reported
# and killed by pid (all of a case's descendants inherit it, including ranks
# spawned by mpirun or pmixrun).
#
# Verdict of one run: PASS when the exit status is the expected one (0, or
# "any but a time-out" for examples whose rank 0 exits 1 on purpose), no
# line shows the example's failure messages (failed, FAILED, Error, ERROR,
# "wrong", "WASN'T/WAS NOT RETURNED", "incorrect", "requires a minimum of",
# "Failed to", "PMIX ERROR", "ORTE_ERROR"), minus lines the example treats
# as informational (per example, below), and the example's completion line
# appears as often as expected.
# server.c has a race of its own: it stops when `wakeup` (= nprocs) reaches
# 0, but both a client's finalize upcall and its SIGCHLD decrement it, so it
# can finalize while a client has not even connected (that client then
# prints "PMIx_Init failed: UNREACHABLE", or a later request of a rank
# still running fails). Runs under server.c are therefore tried up to 5 times
# (both libraries alike; 3 were not always enough on a loaded 2-core
# machine) and the first passing attempt counts.
#
# Comparison: for server and mpirun, when both libraries pass, the outputs
# are normalised (pids, host name, namespaces: mpirun's numeric jobids,
# rpmixrun.<pid>.<n>, prterun-*; handler refs, temp paths, times), sorted
# (ranks interleave), and diffed: a difference fails the rpmix run. pmixrun
# has no OpenPMIx run: its rpmix run must pass on its own; its normalised
# output is diffed against OpenPMIx's under mpirun (the closest host: also
# a direct launcher of a plain job) for information only, since pmixrun's
# own messages (log forwarding, exit reports) differ by design.
#
# Final verdict per host x example: FAIL only when OpenPMIx passes and rpmix
# fails (or differs). When both fail, the table says "fails on both" with the
# reason recorded below (BOTH[...]).
#
# Prints one PASS:/FAIL: line per case, the results table, and last
# "N passed, M failed"; exit status 0 only when nothing failed.
set -u

. "$(dirname "$0")/testlib.sh"
T_DEFAULT=15
MARKER_PREFIX=rpmix-oex
EXDIR=$OEX_SRC
PMIX_INC=$REF_INC
OEX=$B/oex
HOSTNAME_=$(hostname)
SRV_TRIES=5

mkdir -p "$OEX" || { echo "cannot create $OEX"; echo "0 passed, 1 failed"; exit 1; }
command -v pgrep >/dev/null 2>&1 || { echo "pgrep (procps) is needed"; echo "0 passed, 1 failed"; exit 1; }
# rpmix's library directory (a libpmix.so.2 must be in it for LD_LIBRARY_PATH)
if [ -e "$LIBDIR/libpmix.so.2" ]; then
    RLIB=$LIBDIR
elif [ -e "$LIBDIR/libpmix.so" ]; then
    RLIB=$OEX/rpmix-lib
    mkdir -p "$RLIB" && ln -sf "$LIBDIR/libpmix.so" "$RLIB/libpmix.so.2"
else
    echo "no $LIBDIR/libpmix.so.2 (build the library, or set RPMIX_LIBDIR)"; echo "0 passed, 1 failed"; exit 1
fi
[ -d "$EXDIR" ] && [ -d "$PMIX_INC" ] || {
    echo "OpenPMIx examples/headers not found ($EXDIR, $PMIX_INC): install libpmix-dev"; echo "0 passed, 1 failed"; exit 1; }
HAVE_MPIRUN=1; command -v mpirun >/dev/null 2>&1 || HAVE_MPIRUN=0
MPIRUN_ROOT=""; [ "$(id -u)" = 0 ] && MPIRUN_ROOT=--allow-run-as-root

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-oex.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT

# ---- the examples ----
# name  np  time-limit  exit(0|any)  completion-regex  count(NP = np)  hosts
# Time limits below T_DEFAULT are for runs that hang on both libraries by
# design (see BOTH), to keep the driver near 3 minutes.
EXAMPLES="
hello         2  10 0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
nodeinfo      2  10 0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
client        2  10 0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
client2       2  10 0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
dmodex        2  10 0   rank.0:PMIx_Finalize.successfully      1   server,mpirun,pmixrun
pub           2  10 0   UNPUBLISH.SUCCEEDED                    1   server,mpirun,pmixrun
pubi          2  10 0   UNPUBLISH.SUCCEEDED                    1   server,mpirun,pmixrun
log           2  8  0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
jctrl         2  10 0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
dynamic       2  8  0   PMIx_Finalize.successfully.completed   4   server,mpirun,pmixrun
alloc         2  5  0   PMIx_Finalize.successfully.completed   NP  server,mpirun,pmixrun
fault         2  8  any DEBUGGER.DAEMON.NOTIFIED.TERMINATED    1   server,mpirun,pmixrun
bad_exit      2  10 any rank.1:PMIx_Finalize.successfully      1   server,mpirun,pmixrun
abi_no_init   2  10 0   ABI..Stable                            NP  server,mpirun,pmixrun
abi_with_init 2  10 0   Namespaces:                            NP  server,mpirun,pmixrun
group         4  10 0   Group.construct.complete               3   server,mpirun,pmixrun
group_dmodex  4  10 0   :[0-9]+.COMPLETE                       NP  server,mpirun,pmixrun
group_lcl_cid 4  10 0   PMIx_Get.LOCAL.CID.for.rank.*SUCCESS   16  server,mpirun,pmixrun
asyncgroup    4  8  0   :[0-9]+.COMPLETE                       NP  server,mpirun,pmixrun
tool          1  5  0   ACTIVE.NSPACES                         1   server,mpirun,pmixrun
launcher      1  5  0   .                                      0   server,mpirun,pmixrun
debugger      1  5  0   .                                      0   server,mpirun,pmixrun
"
# Not run:
#   pmi1client  needs PMI-1's pmi.h (not built)
#   debuggerd   its main() prints "I AM HERE", sleeps 10 s and exits before
#               any PMIx call (the rest is unreachable): it is only the
#               daemon debugger.c spawns, and runs as part of that case
# Tools (tool, launcher, debugger) are run as the single process of a job
# under each host: PMIx_tool_init then finds its server from the job
# environment (PMIX_SERVER_URI*, PMIX_NAMESPACE/RANK) the host gave it, the
# only way server.c (no rendezvous file) can be reached. launcher and
# debugger have no completion line (0): they pass when they exit 0 in time.

# Lines an example prints that are not failures (egrep, per example).
declare -A INFO_RE=(
  # no fabric coordinates exist on one VM; nodeinfo reports that and goes on
  [nodeinfo]='PMIx_Get coordinates.* failed: NOT-FOUND'
)

# Runs that fail on both libraries (host:example -> reason).

declare -A BOTH=(
  [server:dynamic]="server.c's spawn upcall only registers DYNSPACE and never starts procs: PMIx_Spawn never completes"
  [server:fault]="server.c never notifies PMIX_ERR_PROC_ABORTED/JOB_TERMINATED: rank 1 waits for it forever"
  [server:alloc]="rank 1 waits for PMIX_NOTIFY_ALLOC_COMPLETE, which no host sends"
  [mpirun:alloc]="rank 1 waits for PMIX_NOTIFY_ALLOC_COMPLETE, which no host sends"
  [server:jctrl]="server.c has no job_control upcall: OpenPMIx answers NOT_SUPPORTED (-47)"
  [server:log]="OpenPMIx: PMIx_Log under server.c (log upcall answering inside the upcall) never returns"
  [server:group]="server.c has no group upcall: Group_construct NOT_SUPPORTED on OpenPMIx"
  [server:group_dmodex]="server.c has no group upcall: Group_construct NOT_SUPPORTED on OpenPMIx"
  [server:group_lcl_cid]="server.c has no group upcall: Group_construct NOT_SUPPORTED on OpenPMIx"
  [server:asyncgroup]="server.c has no group upcall: Group_invite NOT_SUPPORTED on OpenPMIx"
  [mpirun:group_dmodex]="Open MPI 4.1's ORTE has no PMIx group support: Group_construct NOT_SUPPORTED"
  [mpirun:group_lcl_cid]="Open MPI 4.1's ORTE has no PMIx group support: Group_construct NOT_SUPPORTED"
  [mpirun:group]="Open MPI 4.1's ORTE has no PMIx group support: Group_construct NOT_SUPPORTED"
  [mpirun:asyncgroup]="Open MPI 4.1's ORTE cannot pack the group-invite event (pmix.evrange UNSUPPORTED TYPE)"
  [mpirun:abi_with_init]="ORTE's query upcall fails the whole query (PMIX_ERROR) on the unknown ABI/namespace keys"
  [mpirun:bad_exit]="mpirun aborts the job when rank 0 exits 1, before rank 1 finalizes"
  [mpirun:pubi]="ORTE answers the PMIX_WAIT lookup before rank 0's publish lands: empty nspace (\"wrong nspace\")"
  [mpirun:fault]="ORTE aborts the job when rank 0 exits 1 before rank 1 is notified"
  [server:tool]="tool as a job's only process: see the log"
  [server:bad_exit]="rank 0 exits 1 by design; see the log"
  [mpirun:tool]="OpenPMIx: tool_init/query of namespaces under mpirun never completes (timed out)"
  [server:launcher]="launcher PMIx_Spawns 128 procs of 'app' and waits for their completion event"
  [mpirun:launcher]="launcher PMIx_Spawns 128 procs of 'app' and waits for their completion event"
  [server:debugger]="debugger waits for the spawned job's termination event, which server.c's fake spawn never sends"
  [mpirun:debugger]="OpenPMIx: the debugger under mpirun never completes (timed out)"
)

# ---- build ----
build_log=$OEX/build.log
: >"$build_log"
built=1
for src in "$EXDIR"/*.c; do
    n=$(basename "$src" .c)
    case $n in pmi1client|server) continue ;; esac
    build_example "$n" "$OEX" >>"$build_log" 2>&1 || { built=0; echo "build of $n failed" >>"$build_log"; }
done
# server.c, with the shim of OpenPMIx's internal headers (c-tests/Makefile)
build_example server "$OEX" >>"$build_log" 2>&1 || { built=0; echo "build of server failed" >>"$build_log"; }
if [ $built = 1 ]; then pass build; else fail build "compilation failed" "$build_log"; echo "$passed passed, $failed failed"; exit 1; fi

api_log=$OEX/server-public-api.log
nm -D --undefined-only "$OEX/server" >"$api_log" 2>&1
if grep -Eq '[[:space:]]pmix_' "$api_log"; then
    fail server-public-api "the built server imports pmix_* internals: $(grep -E '[[:space:]]pmix_' "$api_log" | awk '{print $2}' | tr '\n' ' ')" "$api_log"
else
    pass server-public-api
fi
sel_log=$OEX/rpmix-lib-selected.log
LD_LIBRARY_PATH=$RLIB ldd "$OEX/hello" >"$sel_log" 2>&1
if grep -q "libpmix.so.2 => $RLIB/libpmix.so.2" "$sel_log"; then pass rpmix-lib-selected
else fail rpmix-lib-selected "LD_LIBRARY_PATH=$RLIB does not select rpmix's libpmix.so.2" "$sel_log"; fi

# ---- running ----
MARKER_VAR=EXAMPLES_MARKER   # (marker_in_env, tools/testlib.sh)
# normalise <file>: stable text for diffing (sorted)
normalise() {
    # mpirun's numeric namespace (its jobid) may have fewer than 8 digits:
    # learnt from the "ns <jobid> rank" lines and replaced wherever it stands
    local ns ns_rule=()
    ns=$(grep -aoE '\bns [0-9]{5,} rank' "$1" | head -n 1 | awk '{print $2}')
    [ -n "$ns" ] && ns_rule=(-e "s/\\b$ns\\b/NS/g")
    sed -E "${ns_rule[@]}" -e '/^\[attempt [0-9]+\]$/d' -e '/^\[exit [0-9]+ after/d' -e '/^leftover processes:$/,$d' \
        -e "s#$SCRATCH[^ ]*#TMP#g" -e 's#/tmp/[^ ]*#TMP#g' \
        -e "s/\\b$HOSTNAME_\\b/HOST/g" \
        -e 's/rpmixrun\.[0-9]+\.[0-9]+/NS/g' -e 's/prterun-[A-Za-z0-9_.-]*/NS/g' -e 's/\b[0-9]{8,}\b/NS/g' \
        -e 's/pid [0-9]+/pid PID/g' -e 's/^Client [0-9]+: Running/Client PID: Running/' \
        -e 's/^\[[0-9]+\] /[PID] /' -e 's/\[HOST:[0-9]+\]/[HOST:PID]/g' \
        -e 's/ref=[0-9]+/ref=N/g' -e 's/\[\[[0-9]+,[0-9]+\],[0-9]+\]/[[JOB]]/g' \
        -e 's/[0-9]+ ms\b/N ms/g' "$1" | sort
}

FAIL_RE="failed|FAILED|Error|ERROR|wrong|WASN'T RETURNED|WAS NOT RETURNED|incorrect|requires a minimum of|Failed to|PMIX ERROR|ORTE_ERROR"

# judge <log> <example> <np> <exit-kind> <need-re> <need-count> <left>: sets WHY ("" = pass)
judge() {
    local log=$1 ex=$2 np=$3 ek=$4 re=$5 cnt=$6 left=$7 n bad
    WHY=""
    if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then WHY="timed out"
    elif [ "$ek" = 0 ] && [ "$RC" != 0 ]; then WHY="exit $RC"
    fi
    bad=$(grep -E "$FAIL_RE" "$log" | { if [ -n "${INFO_RE[$ex]:-}" ]; then grep -Ev "${INFO_RE[$ex]}"; else cat; fi; } | head -3)
    [ -n "$bad" ] && WHY="${WHY:+$WHY; }$(echo "$bad" | head -1 | cut -c1-110)"
    [ "$cnt" = NP ] && cnt=$np
    n=$(grep -Ec -- "$re" "$log")
    [ "$cnt" -gt 0 ] && [ "$n" -lt "$cnt" ] && [ -z "$WHY" ] && WHY="$n of $cnt completion lines"
    [ "$left" = 1 ] && WHY="${WHY:+$WHY; }processes left running"
    if [ "$CUR_HOST" = server ] && grep -Eq 'UNREACH|LOST[-_ ]CONNECTION|(failed|status):? -25$' "$log"; then
        WHY="${WHY:+$WHY; }server.c finished while a client still needed it (its wakeup race)"
    fi
    return 0
}

# run_case <host> <lib: openpmix|rpmix> <example> <np> <limit> ...: runs once, sets RC, LEFT, LOG
run_once() {
    local host=$1 lib=$2 ex=$3 np=$4 limit=$5 attempt=$6
    local marker; marker=$(new_marker "$host-$ex-$lib")
    LOG=$OEX/$host.$ex.$lib.log
    local tdir; tdir=$(mktemp -d "$SCRATCH/t.XXXXXX")
    local libpath=""
    [ "$lib" = rpmix ] && libpath=$RLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    [ "$lib" = openpmix ] && libpath=${LD_LIBRARY_PATH:-}
    local -a cmd
    case $host in
        server)  cmd=("$OEX/server" -n "$np" -e "./$ex") ;;
        mpirun)  cmd=(mpirun $MPIRUN_ROOT --oversubscribe --host "$HOSTNAME_:$np" -np "$np" "./$ex") ;;
        pmixrun) cmd=("$PMIXRUN" -n "$np" "./$ex") ;;
    esac
    # timeout -k: mpirun sometimes ignores run_timed's SIGTERM; KILL 2 s later
    # (exit 137, judged "timed out"); the outer limit never fires first
    cmd=(timeout -k 2 "$limit" "${cmd[@]}")
    T=$((limit + 5))
    (cd "$OEX" && export TMPDIR=$tdir EXAMPLES_MARKER=$marker LD_LIBRARY_PATH=$libpath \
        && run_timed "$LOG" "${cmd[@]}"; echo "$RC $MS" >"$tdir/.rc") </dev/null
    read -r RC MS <"$tdir/.rc"
    LEFT=0; leftovers "$marker" "$LOG" marker_in_env || LEFT=1
    [ "$attempt" -gt 1 ] && echo "[attempt $attempt]" >>"$LOG"
    rm -rf "$tdir"
}

# run_lib <host> <lib> <ex> <np> <limit> <ek> <re> <cnt>: sets RES (PASS/FAIL) and RWHY
run_lib() {
    local host=$1 lib=$2 ex=$3 np=$4 limit=$5 ek=$6 re=$7 cnt=$8 a tries=1
    [ "$host" = server ] && tries=$SRV_TRIES
    CUR_HOST=$host
    for a in $(seq $tries); do
        run_once "$host" "$lib" "$ex" "$np" "$limit" "$a"
        judge "$LOG" "$ex" "$np" "$ek" "$re" "$cnt" "$LEFT"
        [ -z "$WHY" ] && break
        { [ "$RC" = 124 ] || [ "$RC" = 137 ]; } && break   # a hang does not go away on retry
    done
    if [ -z "$WHY" ]; then RES=PASS; RWHY=""; else RES=FAIL; RWHY=$WHY; fi
    [ "$a" -gt 1 ] && RWHY="${RWHY:+$RWHY; }attempt $a"
    return 0
}

HOSTS="server mpirun pmixrun"
declare -A TOT_O TOT_R OK_O OK_R ORES
for h in $HOSTS; do TOT_O[$h]=0; TOT_R[$h]=0; OK_O[$h]=0; OK_R[$h]=0; done
LINES=()
DETAILS=()

while read -r ex np limit ek re cnt hosts; do
    [ -z "$ex" ] && continue
    # (RPMIX_CASE: an example none of whose cases is selected is left out)
    any=0
    for h in $HOSTS; do
        case ",$hosts," in *",$h,"*) selected "$h-$ex" && any=1 ;; esac
    done
    [ $any = 1 ] || continue
    line=$(printf '%-14s' "$ex")
    for h in $HOSTS; do
        case ",$hosts," in *",$h,"*) ;; *) continue ;; esac
        case_name="$h-$ex"
        selected "$case_name" || continue
        if [ "$h" = mpirun ] && [ $HAVE_MPIRUN = 0 ]; then line+=" | $h: no mpirun"; continue; fi
        O=n/a; OW=""
        # pmixrun's reference is OpenPMIx under mpirun: run it when the mpirun case was not
        if [ "$h" = pmixrun ] && [ -z "${ORES[mpirun:$ex]:-}" ] && [ $HAVE_MPIRUN = 1 ]; then
            case ",$hosts," in *",mpirun,"*)
                run_lib mpirun openpmix "$ex" "$np" "$limit" "$ek" "$re" "$cnt"; ORES[mpirun:$ex]=$RES ;;
            esac
        fi
        if [ "$h" != pmixrun ]; then
            run_lib "$h" openpmix "$ex" "$np" "$limit" "$ek" "$re" "$cnt"; O=$RES; OW=$RWHY; olog=$LOG
            TOT_O[$h]=$((TOT_O[$h] + 1)); [ $O = PASS ] && OK_O[$h]=$((OK_O[$h] + 1))
        fi
        run_lib "$h" rpmix "$ex" "$np" "$limit" "$ek" "$re" "$cnt"; R=$RES; RW=$RWHY; rlog=$LOG
        diffnote=""
        if [ "$h" != pmixrun ] && [ $O = PASS ] && [ $R = PASS ]; then
            # server.c's own "FINALIZED" lines depend on its wakeup race (see above)
            if ! diff <(normalise "$olog" | grep -v '^SERVER: FINALIZED') <(normalise "$rlog" | grep -v '^SERVER: FINALIZED') >"$OEX/$h.$ex.diff" 2>&1; then
                R=DIFF; RW="output differs from OpenPMIx's ($OEX/$h.$ex.diff): $(grep -E '^[<>]' "$OEX/$h.$ex.diff" | head -2 | tr '\n' ' ' | cut -c1-150)"
            fi
        elif [ "$h" = pmixrun ]; then
            ref=$OEX/mpirun.$ex.openpmix.log
            if [ -f "$ref" ]; then
                diff <(normalise "$ref") <(normalise "$rlog") >"$OEX/$h.$ex.diff" 2>&1 \
                    || diffnote=" (differs from OpenPMIx under mpirun: $OEX/$h.$ex.diff, information only)"
            fi
        fi
        TOT_R[$h]=$((TOT_R[$h] + 1)); [ $R = PASS ] && OK_R[$h]=$((OK_R[$h] + 1))
        # final verdict of the case
        refres=$O
        [ "$h" = pmixrun ] && refres=${ORES[mpirun:$ex]:-FAIL}
        if [ $R = PASS ]; then pass "$case_name"; verdict=ok
        elif [ $refres = PASS ]; then fail "$case_name" "rpmix: $RW" "$rlog"; verdict=FAIL
        elif [ "$h" = pmixrun ]; then
            echo "SKIP: $case_name (fails on both; reference: OpenPMIx under mpirun)"; verdict="fails on both (reference: OpenPMIx under mpirun)"
        else
            echo "SKIP: $case_name (fails on both: ${BOTH[$h:$ex]:-no reason recorded; see logs})"; verdict="fails on both: ${BOTH[$h:$ex]:-no reason recorded; see logs}"
        fi
        ORES[$h:$ex]=$O
        line+=" | $h: O=$O R=$R"
        [ "$verdict" != ok ] && DETAILS+=("$ex/$h: $verdict")
        [ -n "$OW" ] && [ "$h" != pmixrun ] && DETAILS+=("$ex/$h OpenPMIx: $OW")
        [ -n "$RW" ] && DETAILS+=("$ex/$h rpmix: $RW")
        [ -n "$diffnote" ] && DETAILS+=("$ex/$h rpmix$diffnote")
    done
    LINES+=("$line")
done <<<"$EXAMPLES"

check_case_filter

echo
echo "=== OpenPMIx examples: results (O = OpenPMIx's libpmix.so.2, R = rpmix's; DIFF = passed but output differs) ==="
printf '%-8s  %-10s  %-10s\n' host OpenPMIx rpmix
for h in $HOSTS; do
    o="${OK_O[$h]}/${TOT_O[$h]}"; [ "$h" = pmixrun ] && o=n/a
    printf '%-8s  %-10s  %-10s\n' "$h" "$o" "${OK_R[$h]}/${TOT_R[$h]}"
done
echo
for l in "${LINES[@]}"; do echo "$l"; done
echo
echo "--- notes ---"
for d in "${DETAILS[@]}"; do echo "  $d"; done
echo
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
