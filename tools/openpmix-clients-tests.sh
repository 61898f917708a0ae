#!/bin/bash
# OpenPMIx clients under rpmix servers (issue 16): programs linked to the
# system's OpenPMIx 4.2.2 run as ranks of pmixrun and of the C host
# rm_simple on rpmix. They find the server through PMIX_SERVER_URI41 (a
# tcp4:// contact), connect over loopback with OpenPMIx's handshake and speak
# its protocol (src/server/openpmix/).
#
#   tools/openpmix-clients-tests.sh [BUILD_DIR]   (default: c-tests/build/opxclients)
#
# Every case runs twice: with rpmix ranks (the same-library reference) and
# with OpenPMIx ranks (LD_LIBRARY_PATH unset for them; pmixrun needs no
# libpmix). Both must give the expected exit status and lines; a case the
# reference fails is a SKIP. Each rank proves its library: c-tests/which_pmix.c,
# preloaded, appends "<pid> <loaded libpmix.so.2> <version>" at start, and
# every line must name the run's library.
#
#   pmixrun/client_basic   job data, Put/Commit/Fence/Get (local peers, scopes,
#                          missing keys with timeouts), events, publish/lookup
#   pmixrun/client_events  event handlers, chains, ranges (every check)
#   pmixrun/jctl_signal    job control: rank 0 has pmixrun signal rank 1
#   pmixrun/jctl_signals   job control at length (c-tests/jctl_signals.c: pause,
#                          resume, signal, checkpoint by signal and by event)
#   pmixrun/monitor_hb     heartbeat monitoring (c-tests/monitor_hb.c)
#   pmixrun/client_spawn   PMIx_Spawn, PMIX_PARENT_ID, connect, data across
#                          the two jobs, disconnect (c-tests/client_spawn.c)
#   pmixrun/client_abort   PMIx_Abort: pmixrun exits with its status
#   pmixrun/oex/<ex>       OpenPMIx's examples hello client client2 dmodex
#                          nodeinfo pub pubi (built against its headers)
#   pmixrun/mpi/<prog>     Open MPI 4.1.4 hello (Allreduce), spawn, abort
#   rm/<prog>              client_basic (inline and deferred answers),
#                          client_events, jctl_signal, client_abort under
#                          rm_simple on rpmix
#   mixed/client_basic     one job, even ranks on rpmix and odd ranks on
#                          OpenPMIx: fence, modex and Gets across them
#   tcp/identity           raw connect messages (c-tests/ptl_probe.py): a
#                          rank claiming another uid is refused; a process of
#                          another user (nobody) claiming root is refused; a
#                          client announcing OpenPMIx 3's serialisation (v3)
#                          is refused with a log line saying so; the rank's
#                          own claim is accepted
#   tcp/fuzz               200 garbage connect messages (random, truncated,
#                          bit-flipped, huge lengths) at the listener, then
#                          OpenPMIx's hello connects and finalizes in the
#                          same job
#   tools/pps              OpenPMIx's pps (Debian's libpmix-bin) lists a live
#                          pmixrun job's namespace
#   tools/pquery           OpenPMIx's pquery names it (a SKIP when Debian's
#                          pquery dies of SIGFPE before connecting, as it does)
#   tools/pevent           OpenPMIx's pevent raises an event (code 4242, range
#                          local); both ranks (OpenPMIx, c-tests/client_await_event.c)
#                          receive it, from the tool
#   tools/iof              an OpenPMIx tool (c-tests/tool_pull.c on the system
#                          library) pulls the ranks' stdout: every rank's line,
#                          then every stream's PMIX_IOF_COMPLETE
# The tools run with a private TMPDIR shared with that pmixrun alone (pps and
# pevent take the one server they find there).
#
# Environment: RPMIX_LIBDIR, RPMIX_CASE, OPENPMIX_INCLUDE, OPENPMIX_EXAMPLES, CC
# (tools/testlib.sh). Last line: "N passed, M failed".
set -u
BUILD_SUBDIR=opxclients
. "$(dirname "$0")/testlib.sh"
MARKER_PREFIX=rpmix-opxclients
MARKER_VAR=OPX_MARKER
require_lib "$LIBDIR" "$B"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PY=/usr/bin/python3
OEX=$BIN/oex
W=$B/wrap
mkdir -p "$OEX" "$W"
SYSLIB=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
SYSLIB=$(readlink -f "${SYSLIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}")
OURLIB=$(readlink -f "$LIBDIR/libpmix.so.2")
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-opx.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT

# ---- build ----
blog=$B/build.log
: >"$blog"
ok=1
make_progs libwhich_pmix.so rm_simple_ref client_basic_ref client_events_ref client_jctl_signal_ref client_await_event_ref \
    tool_pull_ref jctl_signals_ref monitor_hb_ref client_spawn_ref client_abort_ref >>"$blog" 2>&1 || ok=0
for ex in hello client client2 dmodex nodeinfo pub pubi; do
    build_example "$ex" "$OEX" >>"$blog" 2>&1 || ok=0
done
make_progs mpi_hello mpi_spawn mpi_abort >>"$blog" 2>&1 || ok=0
if [ $ok = 1 ]; then pass build; else fail build "compilation failed" "$blog"; finish; fi

# proof: runs its arguments on the run's library (RANK_LIB: rpmix gets
# LD_LIBRARY_PATH, openpmix none, whatever the host's), the proof preloaded.
{
    echo '#!/bin/sh'
    echo 'if [ "$RANK_LIB" = rpmix ]; then LD_LIBRARY_PATH='"'$LIBDIR'"'; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi'
    echo "LD_PRELOAD='$MK/libwhich_pmix.so'; export LD_PRELOAD"
    echo 'exec "$@"'
} >"$W/proof"
# alternate: even ranks on rpmix, odd ranks on OpenPMIx
{
    echo '#!/bin/sh'
    echo 'if [ $((PMIX_RANK % 2)) = 0 ]; then LD_LIBRARY_PATH='"'$LIBDIR'"'; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi'
    echo "LD_PRELOAD='$MK/libwhich_pmix.so'; export LD_PRELOAD"
    echo 'exec "$@"'
} >"$W/alternate"
chmod +x "$W/proof" "$W/alternate"

# run_job <lib> <log> <proof> <command...>: the command (pmixrun or
# rm_simple, on rpmix) with the ranks on <lib>; every process carrying the
# run's marker is ended afterwards.
run_job() {
    local lib=$1 log=$2 proof=$3; shift 3
    local marker; marker=$(new_marker "$lib")
    T=60
    : >"$proof"
    (
        export WHICH_PMIX_OUT=$proof OPX_MARKER=$marker RANK_LIB=$lib
        if [ "$lib" = rpmix ]; then export LD_LIBRARY_PATH=$LIBDIR; else unset LD_LIBRARY_PATH; fi
        run_timed "$log" "$@"
        echo "$RC" >"$SCRATCH/rc"
    ) </dev/null
    read -r RC <"$SCRATCH/rc"
    leftovers "$marker" "$log" marker_in_env || echo "processes left running" >>"$log"
}

# judge <log> <proof> <lib> <ranks MIN[-MAX] | pmix=N> <exit> <regex> <count>: sets why.
# pmix=N: Open MPI programs, which load libpmix late and unload it before
# exit (so the preloaded proof may find none): N lines of their own output
# name the library (pmix=<PMIx_Get_version()>), and none names another.
judge() {
    local log=$1 proof=$2 lib=$3 ranks=$4 ec=$5 re=$6 cnt=$7 n want
    why=""
    [ "$RC" = "$ec" ] || add "exit $RC, expected $ec"
    grep -q "processes left running" "$log" && add "processes left running"
    n=$(grep -Eac -- "$re" "$log")
    [ "$n" -ge "$cnt" ] || add "$n of $cnt lines /$re/"
    if [[ $ranks == pmix=* ]]; then
        local name; if [ "$lib" = rpmix ]; then name=rpmix; else name=OpenPMIx; fi
        n=$(grep -ac "pmix=$name " "$log")
        [ "$n" -ge "${ranks#pmix=}" ] || add "$n of ${ranks#pmix=} lines name $name"
        grep -a 'pmix=' "$log" | grep -avq "pmix=$name " && add "a process names another library"
        return 0
    fi
    if [ "$lib" = rpmix ]; then want=$OURLIB; else want=$SYSLIB; fi
    proof_ranks "$proof" "$want" "$ranks"
    return 0
}

# both <name> <ranks> <exit> <regex> <count> <command...>: the reference
# (rpmix ranks), then OpenPMIx ranks.
both() {
    local name=$1 ranks=$2 ec=$3 re=$4 cnt=$5; shift 5
    selected "$name" || return 0
    local lib log proof
    for lib in rpmix openpmix; do
        log=$B/${name//\//_}.$lib.log; proof=$B/${name//\//_}.$lib.proof
        run_job "$lib" "$log" "$proof" "$@"
        judge "$log" "$proof" "$lib" "$ranks" "$ec" "$re" "$cnt"
        if [ $lib = rpmix ] && [ -n "$why" ]; then
            echo "SKIP: $name (fails with rpmix ranks too: $why; log: $log)"
            return 0
        fi
    done
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "OpenPMIx ranks: $why" "$log"; fi
}

P=("$PMIXRUN" --timeout 50)
both pmixrun/client_basic 4 0 '^client_basic: 4 ranks, all checks passed' 1 "${P[@]}" -n 4 "$W/proof" "$MK/client_basic_ref" 4
both pmixrun/client_events 3 0 '^client_events: [0-9]+ passed, 0 failed' 1 "${P[@]}" -n 3 "$W/proof" "$MK/client_events_ref"
both pmixrun/jctl_signal 2 0 '^client_jctl_signal: rank 1 got SIGUSR1' 1 "${P[@]}" -n 2 "$W/proof" "$MK/client_jctl_signal_ref"
# (it ends with a kill of rank 2: pmixrun says 137)
both pmixrun/jctl_signals 3 137 '^jctl_signals: [1-9][0-9]* passed, 0 failed$' 1 "${P[@]}" -n 3 "$W/proof" "$MK/jctl_signals_ref" "$SCRATCH"
both pmixrun/monitor_hb 2 0 '^monitor_hb: [1-9][0-9]* passed, 0 failed$' 1 "${P[@]}" --on-stall report -n 2 "$W/proof" "$MK/monitor_hb_ref"
# (the children are started by pmixrun without the wrapper: parents proven)
both pmixrun/client_spawn 2-4 0 '^client_spawn: [1-9][0-9]* passed, 0 failed$' 1 "${P[@]}" -n 2 "$W/proof" "$MK/client_spawn_ref"
both pmixrun/client_abort 0-4 7 '.' 0 "${P[@]}" -n 4 "$W/proof" "$MK/client_abort_ref"
for spec in "hello PMIx_Finalize.successfully.completed 2" "client PMIx_Finalize.successfully.completed 2" \
    "client2 PMIx_Finalize.successfully.completed 2" "dmodex rank.0:PMIx_Finalize.successfully 1" \
    "nodeinfo PMIx_Finalize.successfully.completed 2" "pub UNPUBLISH.SUCCEEDED 1" "pubi UNPUBLISH.SUCCEEDED 1"; do
    read -r ex re cnt <<<"$spec"
    # (an example that fails writes "failed" on its output: none may)
    both "pmixrun/oex/$ex" 2 0 "$re" "$cnt" "${P[@]}" -n 2 "$W/proof" "$OEX/$ex"
    for lib in rpmix openpmix; do
        f=$B/pmixrun_oex_$ex.$lib.log
        if [ -f "$f" ] && grep -q 'failed' "$f" && ! grep -q 'coordinates' "$f"; then
            fail "pmixrun/oex/$ex-output" "$lib ranks printed a failure" "$f"
        fi
    done
done
both pmixrun/mpi/hello pmix=4 0 '^hello [0-3]/4 pmix=' 4 "${P[@]}" -n 4 "$W/proof" "$MK/mpi_hello"
# (parent rank 0 and both children name their library)
both pmixrun/mpi/spawn pmix=3 0 '^spawn ok: 4 parents, 2 children' 1 "${P[@]}" -n 4 "$W/proof" "$MK/mpi_spawn"
both pmixrun/mpi/abort 0-4 3 '.' 0 "${P[@]}" -n 4 "$W/proof" "$MK/mpi_abort"
RM=(env LD_LIBRARY_PATH="$LIBDIR" "$MK/rm_simple_ref" -t 45)
both rm/client_basic 4 0 '^client_basic: 4 ranks, all checks passed' 1 "${RM[@]}" -n 4 "$W/proof" "$MK/client_basic_ref" 4
both rm/client_basic-deferred 4 0 '^client_basic: 4 ranks, all checks passed' 1 "${RM[@]}" -m defer -n 4 "$W/proof" "$MK/client_basic_ref" 4
both rm/client_events 3 0 '^client_events: [0-9]+ passed, 0 failed' 1 "${RM[@]}" -n 3 "$W/proof" "$MK/client_events_ref"
both rm/jctl_signal 2 0 '^client_jctl_signal: rank 1 got SIGUSR1' 1 "${RM[@]}" -n 2 "$W/proof" "$MK/client_jctl_signal_ref"
both rm/client_abort 0-4 7 '.' 0 "${RM[@]}" -n 4 "$W/proof" "$MK/client_abort_ref"

# One job, both libraries.
if selected mixed/client_basic; then
    log=$B/mixed_client_basic.log proof=$B/mixed_client_basic.proof
    run_job rpmix "$log" "$proof" "${P[@]}" -n 4 "$W/alternate" "$MK/client_basic_ref" 4
    why=""
    [ "$RC" = 0 ] || add "exit $RC"
    grep -q '^client_basic: 4 ranks, all checks passed' "$log" || add "not every check passed"
    n_ours=0 n_sys=0
    while read -r _ path _; do
        case $(readlink -f "$path") in "$OURLIB") n_ours=$((n_ours + 1)) ;; "$SYSLIB") n_sys=$((n_sys + 1)) ;; esac
    done <"$proof"
    [ "$n_ours" = 2 ] && [ "$n_sys" = 2 ] || add "$n_ours ranks on rpmix and $n_sys on OpenPMIx, expected 2 and 2"
    if [ -z "$why" ]; then pass mixed/client_basic; else fail mixed/client_basic "$why" "$log"; fi
fi

# Identity: the probe is a rank of pmixrun (its environment names the
# listener and holds its credential).
if selected tcp/identity; then
    log=$B/tcp_identity.log
    pr="$PY $ROOT/c-tests/ptl_probe.py"
    printf '#!/bin/sh\n%s claim 4242\nsetpriv --reuid=65534 --regid=65534 --clear-groups %s claim 0\n%s bfrops v3\n%s claim "$(id -u)"\n' \
        "$pr" "$pr" "$pr" "$pr" >"$W/identity"
    chmod +x "$W/identity"
    (export PMIX_DEBUG=1; run_job rpmix "$log" "$SCRATCH/identity.proof" "${P[@]}" -n 1 "$W/identity") 2>/dev/null
    # (the accepted raw connection ends without finalize: pmixrun says so)
    why=""
    [ "$(grep -c '^refused$' "$log")" = 3 ] || add "$(grep -c '^refused$' "$log") of 3 false claims refused"
    grep -q "speaks serialisation 'v3'; only v41" "$log" || add "no log line for the v3 client"
    grep -q '^accepted$' "$log" || add "the rank's own claim was not accepted"
    grep -q 'claims uid 4242; the kernel says its socket is uid' "$log" || add "no log line for the false uid"
    grep -q 'claims uid 0; the kernel says its socket is uid 65534' "$log" || add "no log line for nobody's claim"
    if [ -z "$why" ]; then pass tcp/identity; else fail tcp/identity "$why" "$log"; fi
fi

if selected tcp/fuzz; then
    log=$B/tcp_fuzz.log proof=$B/tcp_fuzz.proof
    printf '#!/bin/sh\nunset LD_LIBRARY_PATH\n%s %s fuzz 200 || exit 9\nexec %s %s\n' "$PY" "$ROOT/c-tests/ptl_probe.py" "$W/proof" "$OEX/hello" >"$W/fuzz"
    chmod +x "$W/fuzz"
    run_job openpmix "$log" "$proof" "${P[@]}" -n 1 "$W/fuzz"
    why=""
    [ "$RC" = 0 ] || add "exit $RC"
    grep -q '^fuzz done 200' "$log" || add "the fuzzer did not finish"
    grep -q 'PMIx_Finalize successfully completed' "$log" || add "hello did not complete after the fuzzing"
    if [ -z "$why" ]; then pass tcp/fuzz; else fail tcp/fuzz "$why" "$log"; fi
fi
# ---- OpenPMIx's tools against a live pmixrun job ----
# tool_job <name> <ranks> <rank command...>: pmixrun in the background with
# a private TMPDIR; sets TJ_PID, TJ_TMP, TJ_LOG.
tool_job() {
    local name=$1 n=$2; shift 2
    TJ_TMP=$SCRATCH/$name; TJ_LOG=$B/tools_$name.job.log
    rm -rf "$TJ_TMP"; mkdir -p "$TJ_TMP"
    TJ_MARK=$(new_marker "tools-$name")
    (export TMPDIR=$TJ_TMP OPX_MARKER=$TJ_MARK; unset LD_LIBRARY_PATH; exec "${P[@]}" -n "$n" "$@" >"$TJ_LOG" 2>&1 </dev/null) &
    TJ_PID=$!
    local i
    for i in $(seq 100); do
        [ -e "$TJ_TMP/pmix.$(hostname).tool.$TJ_PID" ] && return 0
        sleep 0.1
    done
    return 1
}
tool_job_end() {  # waits for the job (at most 30 s); sets TJ_RC
    local i
    for i in $(seq 300); do kill -0 "$TJ_PID" 2>/dev/null || break; sleep 0.1; done
    wait "$TJ_PID"; TJ_RC=$?
    leftovers "$TJ_MARK" "$TJ_LOG" marker_in_env || add "processes left running"
}
if selected tools/pps; then
    why=""
    if ! command -v pps >/dev/null; then echo "SKIP: tools/pps (no pps: Debian's libpmix-bin)"
    else
        log=$B/tools_pps.log
        if tool_job pps 2 sleep 3; then
            (export TMPDIR=$TJ_TMP; unset LD_LIBRARY_PATH; timeout 15 pps) >"$log" 2>&1 || add "pps: exit $?"
            grep -q "Active nspaces: rpmixrun\.$TJ_PID\.1\b" "$log" || add "pps did not list rpmixrun.$TJ_PID.1"
        else add "no rendezvous file"; fi
        tool_job_end
        if [ -z "$why" ]; then pass tools/pps; else fail tools/pps "$why" "$log"; fi
    fi
fi
# pquery (Debian's 4.2.2) dies of SIGFPE before it connects, with or
# without a server (tools/mixed-tests.sh, rm/pquery): then a SKIP.
if selected tools/pquery; then
    why="" log=$B/tools_pquery.log
    if ! command -v pquery >/dev/null; then echo "SKIP: tools/pquery (no pquery: Debian's libpmix-bin)"
    else
        if tool_job pquery 2 sleep 3; then
            # (bash's notice of the signal goes nowhere)
            { (export TMPDIR=$TJ_TMP; unset LD_LIBRARY_PATH; timeout 15 pquery --pid "$TJ_PID" PMIX_QUERY_NAMESPACES) >"$log" 2>&1; pq=$?; } 2>/dev/null
        else add "no rendezvous file"; pq=1; fi
        tool_job_end
        if [ "$pq" = 136 ]; then echo "SKIP: tools/pquery (OpenPMIx's pquery died of SIGFPE: its own crash in pmix_init_registered_attrs)"
        else
            grep -q "rpmixrun\.$TJ_PID\.1" "$log" || add "pquery (exit $pq) did not name rpmixrun.$TJ_PID.1"
            if [ -z "$why" ]; then pass tools/pquery; else fail tools/pquery "$why" "$log"; fi
        fi
    fi
fi
if selected tools/pevent; then
    why=""
    if ! command -v pevent >/dev/null; then echo "SKIP: tools/pevent (no pevent: Debian's libpmix-bin)"
    else
        log=$B/tools_pevent.log
        ready=$SCRATCH/pevent-ready; rm -rf "$ready"; mkdir -p "$ready"
        if tool_job pevent 2 "$W/proof" "$MK/client_await_event_ref" 4242 "$ready"; then
            for i in $(seq 100); do [ -e "$ready/ready.0" ] && [ -e "$ready/ready.1" ] && break; sleep 0.1; done
            (export TMPDIR=$TJ_TMP; unset LD_LIBRARY_PATH; timeout 15 pevent --event 4242 --range 2) >"$log" 2>&1 || add "pevent: exit $?"
        else add "no rendezvous file"; fi
        tool_job_end
        cat "$TJ_LOG" >>"$log"
        [ "$TJ_RC" = 0 ] || add "job exit $TJ_RC"
        [ "$(grep -c "^client_await_event: rank [01] got 4242 from rpmixrun\.$TJ_PID\.tool\." "$log")" = 2 ] || add "not both ranks got the event from the tool"
        if [ -z "$why" ]; then pass tools/pevent; else fail tools/pevent "$why" "$log"; fi
    fi
fi
if selected tools/iof; then
    why="" log=$B/tools_iof.log
    if tool_job iof 3 sh -c 'sleep 2; echo "line-of-$PMIX_RANK"; exec >&- 2>&-; sleep 2'; then
        (export TMPDIR=$TJ_TMP; unset LD_LIBRARY_PATH; LD_PRELOAD=$MK/libwhich_pmix.so WHICH_PMIX_OUT=$SCRATCH/iof.proof \
            timeout 25 "$MK/tool_pull_ref" "$TJ_PID" 3) >"$log" 2>&1 || add "tool_pull: exit $?"
    else add "no rendezvous file"; fi
    tool_job_end
    for r in 0 1 2; do grep -q "^tool_pull: rank $r: line-of-$r\$" "$log" || add "rank $r's line missing"; done
    grep -q '^tool_pull: 3 streams complete' "$log" || add "not every stream completed"
    read -r _ path _ <"$SCRATCH/iof.proof" 2>/dev/null
    [ "$(readlink -f "${path:-none}")" = "$SYSLIB" ] || add "the tool did not run on OpenPMIx (${path:-no report})"
    if [ -z "$why" ]; then pass tools/iof; else fail tools/iof "$why" "$log"; fi
fi
finish
