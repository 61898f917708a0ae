#!/bin/bash
# OpenPMIx clients under rpmix servers (issue 16): programs linked to the
# system's OpenPMIx 4.2.2 run as ranks of pmixrun and of the C host
# rm_simple on rpmix. They find the server through PMIX_SERVER_URI41 (a
# tcp4:// contact), connect over loopback with OpenPMIx's handshake and speak
# its protocol (src/server/openpmix/).
#
#   tools/openpmix-clients-tests.sh [BUILD_DIR]   (default: c-tests/build/opxclients)
#
# OpenPMIx's tools against a live pmixrun job (the other cases of OpenPMIx
# ranks under rpmix's servers are systests/tests/openpmix.rs's opx_*):
#
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
W=$B/wrap
mkdir -p "$W"
SYSLIB=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
SYSLIB=$(readlink -f "${SYSLIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}")
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-opx.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT

# ---- build ----
blog=$B/build.log
if make_progs libwhich_pmix.so client_await_event_ref tool_pull_ref >"$blog" 2>&1; then pass build; else fail build "compilation failed" "$blog"; finish; fi

# proof: runs its arguments on OpenPMIx, the proof preloaded.
printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nLD_PRELOAD=%s; export LD_PRELOAD\nexec "$@"\n' "'$MK/libwhich_pmix.so'" >"$W/proof"
chmod +x "$W/proof"
P=("$PMIXRUN" --timeout 50)

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
