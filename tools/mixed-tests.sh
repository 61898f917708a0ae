#!/bin/bash
# rpmix's tools attached to a server on OpenPMIx 4.2.2 (the other cases of
# rpmix ranks under hosts on OpenPMIx are systests/tests/openpmix.rs's
# mixed_*).
#
#   tools/mixed-tests.sh [BUILD_DIR]        (default: c-tests/build/mixed)
#
# Tools (issue 15, test 4): rpmix's pmixctl attached to a server on
# OpenPMIx 4.2.2. The host is rm_simple -T (tool support: the
# tool_connected, query and iof_pull upcalls, and the ranks' output handed
# to PMIx_server_IOF_deliver), on OpenPMIx, 2 ranks of a script ($W/tick)
# that writes "tick <i> of rank <r>" 8 times 0.4 s apart, closes its stdout,
# writes one line on stderr and stays 2 s more. The tools find the host by
# its pid (OpenPMIx's rendezvous file pmix.<host>.tool.<pid> in the host's
# TMPDIR) while the ranks tick; the output follower first (its first lines
# come from the server's cache, the rest live), then the others:
#   rm/pmixctl-ps      `pmixctl --pid <pid> ps` prints exactly
#                      "rm.<pid><TAB>2 ranks"
#   rm/pmixctl-output  `pmixctl --pid <pid> output --follow` prints exactly
#                      the 16 tick lines (as a set: the ones rm_simple
#                      echoed) and nothing of stderr, and ends on the ranks'
#                      PMIX_IOF_COMPLETE, while the host still runs
#   rm/pps             OpenPMIx's own pps lists the same namespace
#                      ("Active nspaces: rm.<pid>"; pps 4.2.2 ignores --pid
#                      and takes the only server in its TMPDIR)
#   rm/pquery          OpenPMIx's pquery --pid <pid> PMIX_QUERY_NAMESPACES
#                      names it too; Debian's pquery 4.2.2 dies of SIGFPE in
#                      pmix_init_registered_attrs before connecting (with no
#                      server too): then a SKIP
#   rm/pmixctl-rpmix-host  the ps and output checks with the host on rpmix
#                      (LD_LIBRARY_PATH for the host too): the same-library
#                      reference
# Each host's -v trace must name the library it runs on; every process of a
# run carries its marker and is ended by it. Logs: BUILD_DIR/tools.<lib>/.
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
W=$B/wrap
mkdir -p "$W"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-mixed.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT

# ---- build ----
build_log=$B/build.log
if make_progs rm_simple_ref >"$build_log" 2>&1; then pass build; else fail build "compilation failed" "$build_log"; finish; fi
RB=$MK

# ---- tools attached to rm_simple -T (issue 15, test 4; see the header) ----
cat >"$W/tick" <<'TICK'
#!/bin/sh
# tick [count] [interval] [linger]: "tick <i> of rank <r>" on stdout, count
# times; then stdout is closed, one line goes to stderr, and the rank stays
# linger seconds more (so a tool's stream ends before the job does)
n=${1:-8}; d=${2:-0.4}; l=${3:-0}; i=1
while [ $i -le $n ]; do
    echo "tick $i of rank $PMIX_RANK"
    sleep $d
    i=$((i + 1))
done
exec >&-
echo "stdout closed: rank $PMIX_RANK" >&2
sleep $l
TICK
chmod +x "$W/tick"
TICKS=$(for r in 0 1; do for i in 1 2 3 4 5 6 7 8; do echo "tick $i of rank $r"; done; done | sort)

# tool_host <lib>: rm_simple -T on <lib> in the background, 2 ranks of tick,
# its logs in TL=$B/tools.<lib>, its TMPDIR TD (where OpenPMIx writes its
# rendezvous files); HOST_JOB: its timeout's pid; HP: rm_simple's pid, once
# its ranks ticked ("" if not within 10 s).
tool_host() {
    local lib=$1 i
    TL=$B/tools.$lib TD=$SCRATCH/tools.$lib
    rm -rf "$TL" "$TD"; mkdir -p "$TL" "$TD"
    TOOL_MARKER=$(new_marker "tools-$lib")
    (
        cd "$TD" || exit 1
        if [ "$lib" = rpmix ]; then export LD_LIBRARY_PATH=$LIBDIR; else unset LD_LIBRARY_PATH; fi
        export MIXED_MARKER=$TOOL_MARKER TMPDIR=$TD
        exec timeout -k 3 30 "$RB/rm_simple_ref" -T -v -n 2 "$W/tick" 8 0.4 2 >"$TL/host.out" 2>"$TL/host.err" </dev/null
    ) &
    HOST_JOB=$! HP=""
    for i in $(seq 100); do
        [ -z "$HP" ] && HP=$(pgrep -P "$HOST_JOB" -x rm_simple_ref)
        [ -n "$HP" ] && grep -q '^tick 1 ' "$TL/host.out" 2>/dev/null && return 0
        sleep 0.1
    done
    HP=""
}
# tool <name> <limit> <command...>: a tool run against the host (the run's
# marker and the host's TMPDIR in its environment), under a time limit; its
# stdout and stderr in $TL/<name>.out/.err; sets RC and MS.
tool() {
    local name=$1 lim=$2 t0; shift 2
    t0=$(now_ms)
    # (bash's notice of a tool killed by a signal goes to /dev/null, as in run_timed)
    (export MIXED_MARKER=$TOOL_MARKER TMPDIR=$TD; timeout -k 2 "$lim" "$@" >"$TL/$name.out" 2>"$TL/$name.err" </dev/null; exit $?) 2>/dev/null
    RC=$? MS=$(( $(now_ms) - t0 ))
}
PMIXCTL=(env LD_LIBRARY_PATH="$LIBDIR" "$LIBDIR/pmixctl")
OPENPMIX_TOOL=(env -u LD_LIBRARY_PATH)
# tool_session <lib> <pps: 0/1> <pquery: 0/1>: the host, the output
# follower, pmixctl ps (and pps, pquery), the end of it all; sets PS_RC
# PS_MS OUT_RC OUT_MS OUT_BEFORE_HOST (1: the follower ended while the host
# ran) HOST_RC HOST_MS PPS_RC PPS_MS PQ_RC PQ_MS; why: what went wrong
# around the runs.
tool_session() {
    local lib=$1 do_pps=$2 do_pq=$3 t0 fj
    why=""
    PS_RC=- OUT_RC=- PPS_RC=- PQ_RC=- OUT_BEFORE_HOST=0 PS_MS=0 OUT_MS=0 PPS_MS=0 PQ_MS=0
    t0=$(now_ms)
    tool_host "$lib"
    if [ -z "$HP" ]; then
        add "rm_simple -T did not start ticking within 10 s"
    else
        (export MIXED_MARKER=$TOOL_MARKER TMPDIR=$TD
         exec timeout -k 2 20 "${PMIXCTL[@]}" --pid "$HP" output --follow >"$TL/output.out" 2>"$TL/output.err" </dev/null) &
        fj=$!
        tool ps 10 "${PMIXCTL[@]}" --pid "$HP" ps; PS_RC=$RC PS_MS=$MS
        if [ "$do_pps" = 1 ]; then tool pps 10 "${OPENPMIX_TOOL[@]}" pps --pid "$HP"; PPS_RC=$RC PPS_MS=$MS; fi
        if [ "$do_pq" = 1 ]; then tool pquery 10 "${OPENPMIX_TOOL[@]}" pquery --pid "$HP" PMIX_QUERY_NAMESPACES; PQ_RC=$RC PQ_MS=$MS; fi
        wait "$fj"; OUT_RC=$?; OUT_MS=$(( $(now_ms) - t0 ))
        kill -0 "$HP" 2>/dev/null && OUT_BEFORE_HOST=1
    fi
    wait "$HOST_JOB"; HOST_RC=$?; HOST_MS=$(( $(now_ms) - t0 ))
    echo "[exit $HOST_RC after $HOST_MS ms]" >>"$TL/host.err"
    leftovers "$TOOL_MARKER" "$TL/host.err" marker_in_env || add "processes left running"
    return 0
}
# judge_ps / judge_output: add to why what is wrong with pmixctl ps / output.
judge_ps() {
    [ "$PS_RC" = 0 ] || add "pmixctl ps exit $PS_RC ($(head -c 300 "$TL/ps.err" | tr '\n' ' '))"
    [ "$(cat "$TL/ps.out")" = "rm.$HP	2 ranks" ] ||
        add "pmixctl ps printed '$(head -c 300 "$TL/ps.out" | tr '\n\t' '|>')', not 'rm.$HP>2 ranks'"
}
judge_output() {
    local got echoed
    got=$(sort "$TL/output.out") echoed=$(grep '^tick ' "$TL/host.out" | sort)
    [ "$OUT_RC" = 0 ] || add "pmixctl output exit $OUT_RC ($(head -c 300 "$TL/output.err" | tr '\n' ' '))"
    [ "$got" = "$TICKS" ] ||
        add "pmixctl output: $(wc -l <"$TL/output.out") lines, not the 16 ticks (diff: $(diff <(echo "$TICKS") <(echo "$got") | grep '^[<>]' | head -5 | tr '\n' ' '))"
    for r in 0 1; do
        [ "$(sed -n "s/^tick \([0-9]*\) of rank $r\$/\1/p" "$TL/output.out" | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 " ] ||
            add "pmixctl output: rank $r's lines out of order"
    done
    [ "$echoed" = "$TICKS" ] || add "rm_simple echoed $(grep -c '^tick ' "$TL/host.out") tick lines, not the 16"
    [ "$(grep -c '^stdout closed: rank [01]$' "$TL/host.err")" = 2 ] || add "rm_simple did not echo the ranks' stderr lines"
    [ "$OUT_BEFORE_HOST" = 1 ] || add "pmixctl output ended only when the host did (no PMIX_IOF_COMPLETE seen)"
}
# judge_host <lib>: the host's exit, and the library its trace names.
judge_host() {
    local want="(rpmix "
    [ "$1" = openpmix ] && want="(OpenPMIx 4.2"
    [ "$HOST_RC" = 0 ] || add "rm_simple -T exit $HOST_RC"
    grep -qF "rm_simple: server up $want" "$TL/host.err" ||
        add "the host's trace does not name $1 ('$(grep -m1 'server up' "$TL/host.err")')"
}
tool_times() {
    echo "    host on $1: pmixctl ps ${PS_MS} ms; output --follow done ${OUT_MS} ms after the host's start, the host ${HOST_MS} ms; $(sed -n 's/^rm_simple: tools: /host upcalls: /p' "$TL/host.err")"
}
sel_ps=0 sel_out=0 sel_pps=0 sel_pq=0 sel_ref=0
selected rm/pmixctl-ps && sel_ps=1
selected rm/pmixctl-output && sel_out=1
selected rm/pps && sel_pps=1
selected rm/pquery && sel_pq=1
selected rm/pmixctl-rpmix-host && sel_ref=1
if [ $sel_pps = 1 ] && ! command -v pps >/dev/null; then echo "SKIP: rm/pps (no pps: Debian's libpmix-bin)"; sel_pps=0; fi
if [ $sel_pq = 1 ] && ! command -v pquery >/dev/null; then echo "SKIP: rm/pquery (no pquery: Debian's libpmix-bin)"; sel_pq=0; fi
if [ $((sel_ps + sel_out + sel_pps + sel_pq)) -gt 0 ]; then
    tool_session openpmix $sel_pps $sel_pq
    judge_host openpmix; base_why=$why
    if [ $sel_ps = 1 ]; then
        why=$base_why; judge_ps
        if [ -z "$why" ]; then pass rm/pmixctl-ps; else fail rm/pmixctl-ps "$why" "$TL/host.err"; fi
    fi
    if [ $sel_out = 1 ]; then
        why=$base_why; judge_output
        if [ -z "$why" ]; then pass rm/pmixctl-output; else fail rm/pmixctl-output "$why" "$TL/host.err"; fi
    fi
    if [ $((sel_ps + sel_out)) -gt 0 ]; then tool_times "OpenPMIx 4.2.2"; fi
    if [ $sel_pps = 1 ]; then
        # pps prints on stderr: "Active nspaces: <comma-separated list>"
        why=$base_why
        pps_ns=$(sed -n 's/^Active nspaces: //p' "$TL/pps.err")
        ctl_ns=$(cut -f1 "$TL/ps.out" | paste -sd, -)
        [ "$PPS_RC" = 0 ] || add "pps exit $PPS_RC ($(head -c 300 "$TL/pps.err" | tr '\n' ' '))"
        [ "$pps_ns" = "rm.$HP" ] || add "pps lists '$pps_ns', not 'rm.$HP'"
        [ "$pps_ns" = "$ctl_ns" ] || add "pps lists '$pps_ns', pmixctl ps '$ctl_ns'"
        if [ -z "$why" ]; then pass rm/pps; else fail rm/pps "$why" "$TL/pps.err"; fi
        echo "    pps ($PPS_MS ms): Active nspaces: $pps_ns; pmixctl ps ($PS_MS ms): $(tr '\t' ' ' <"$TL/ps.out" | paste -sd';' -)"
    fi
    if [ $sel_pq = 1 ]; then
        # pquery prints the key on stdout, the value on stderr
        pq_ns=$(grep -ohE "rm\.$HP" "$TL/pquery.err" | head -1)
        if [ "$PQ_RC" = 0 ] && [ "$pq_ns" = "rm.$HP" ]; then
            pass rm/pquery
        elif [ "$PQ_RC" = 136 ] && [ "$(grep -c 'upcall tool_connected' "$TL/host.err")" = $((2 + sel_pps)) ]; then
            # (the host saw only the other tools: pmixctl output and ps, pps)
            echo "SKIP: rm/pquery (OpenPMIx's pquery died of SIGFPE (exit 136) after $PQ_MS ms without connecting: its own crash in pmix_init_registered_attrs, with or without a server)"
        else
            fail rm/pquery "pquery exit $PQ_RC, namespace '$pq_ns' (expected rm.$HP)" "$TL/pquery.err"
        fi
    fi
fi
if [ $sel_ref = 1 ]; then
    tool_session rpmix 0 0
    judge_host rpmix; judge_ps; judge_output
    if [ -z "$why" ]; then pass rm/pmixctl-rpmix-host; else fail rm/pmixctl-rpmix-host "$why" "$TL/host.err"; fi
    tool_times rpmix
fi

finish
