#!/bin/bash
# Fault-injection tests of the PMIx server and client (rpmix's libpmix.so.2,
# pmixrun, and the C host c-tests/rm_simple.c).
#
#   tools/fault-tests.sh [BUILD_DIR]        (default: c-tests/build)
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2 (default: target/release of
#                  this repository); also where pmixrun is looked for
#   RPMIX_PMIXRUN  the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   RPMIX_CASE     run only the cases whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. ^garbage-
#   RPMIX_BIN      where the test programs are compiled (default: BUILD_DIR)
#   CC             the C compiler (default: cc)
#
# Cases (every run is wrapped in `timeout 30`; every test program also bounds
# itself with alarm()):
#   killed-launcher
#       pmixrun -n 2 killed with SIGKILL: its ranks die with it (parent-death
#       signal), and the next pmixrun removes the session directory and tool
#       rendezvous file it left (their flocks are free), not a live one's
#   garbage-pmixrun, garbage-rm_simple
#       fault_garbage -n 4: raw garbage on the server socket, then a normal
#       Put/Fence/Get job and a refused duplicate connection; exit 0, no FAIL
#   fence-kill-<launcher>-<mode>
#       fault_fence_kill -n 4: rank 3 SIGKILLs itself around a fence the others
#       enter. The job must end within 15 s with a non-zero exit code; every
#       "fence returned" line must carry an error. pmixrun must report the
#       killed rank; under rm_simple (which never kills the other ranks) the 3
#       survivors must all return from the fence. Modes: now (at once), early
#       (rank 3 dies 1 s before the others enter), late (1 s after).
#       pmixrun-late is not run: whether the survivors' exit or the killed
#       rank is reaped first is a race there, so its report check would flap.
#   server-exit-fence, server-exit-get
#       fault_server_exit under the C host rm_simple -n 3: rank 0 SIGKILLs the
#       host while the ranks wait in a fence / a Get; 3 result lines with
#       LOST_CONNECTION or UNREACH must appear and no rank may be left running
#       (under pmixrun the ranks die with it: killed-launcher)
#   rm_simple-valgrind
#       valgrind (server side only) of rm_simple -n 2 fault_garbage: exit 0
# After every case, processes still carrying the case's unique argv marker
# are reported (a failure) and killed.
#
# Prints PASS: <case> / FAIL: <case> (...) per case, then "N passed, M failed";
# exit status 0 only when every case passed.
set -u

. "$(dirname "$0")/testlib.sh"
T=30             # timeout of every run
FENCE_KILL_MAX=15

MARKER_PREFIX=rpmix-fault

require_lib "$LIBDIR" "$B"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Session directories of killed launchers would stay behind: keep them in a scratch dir.
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-fault.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR=$SCRATCH

# ---- build (into $BIN, once: tools/testlib.sh) ----
build_log=$B/fault-build.log
: >"$build_log"
built=1
for p in fault_garbage fault_fence_kill fault_server_exit; do
    build_c "$p" "$p" -g >>"$build_log" 2>&1 || { built=0; echo "build of $p failed" >>"$build_log"; }
done
build_prog rm_simple >>"$build_log" 2>&1 || { built=0; echo "build of rm_simple failed" >>"$build_log"; }
if [ $built = 1 ]; then pass build; else fail build "compilation failed" "$build_log"; echo "$passed passed, $failed failed"; exit 1; fi
[ -x "$PMIXRUN" ] || echo "note: no launcher at $PMIXRUN: the pmixrun cases will fail"


# ---- fault_garbage ----
garbage_case() {  # garbage_case <name> <launcher cmd...>
    local name=$1; shift
    selected "$name" || return 0
    local log=$B/fault-$name.log marker; marker=$(new_marker "$name")
    run_timed "$log" "$@" "$BIN/fault_garbage" "$marker"
    local why=""
    if [ $RC -ne 0 ]; then why="exit $RC"
    elif grep -q ': FAIL' "$log"; then why="a step failed"
    elif ! grep -Eq '^[0-9]+ passed, 0 failed$' "$log"; then why="no summary line"
    fi
    leftovers "$marker" "$log" || why="${why:+$why, }processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
garbage_case garbage-pmixrun "$PMIXRUN" --timeout 25 -n 4
garbage_case garbage-rm_simple "$BIN/rm_simple" -t 25 -n 4

# ---- fault_fence_kill ----
fence_kill_case() {  # fence_kill_case <launcher name> <mode> <launcher cmd...>
    local lname=$1 mode=$2; shift 2
    local name=fence-kill-$lname-$mode
    selected "$name" || return 0
    local log=$B/fault-$name.log marker; marker=$(new_marker "$name")
    run_timed "$log" "$@" -n 4 "$BIN/fault_fence_kill" "$mode" "$marker"
    local why="" nret
    nret=$(grep -c 'fence returned' "$log")
    if [ $RC -eq 0 ]; then why="exit 0: the job did not fail"
    elif [ $RC -eq 124 ]; then why="exit 124: time limit hit"
    fi
    [ "$MS" -le $((FENCE_KILL_MAX * 1000)) ] || why="${why:+$why, }took $MS ms (limit ${FENCE_KILL_MAX} s)"
    if grep -q 'fence returned SUCCESS' "$log"; then why="${why:+$why, }a fence succeeded although a participant died"; fi
    if grep -Eq 'fault_fence_kill: (PMIx_Init|rank [0-9]+: first fence|needs)' "$log"; then why="${why:+$why, }setup failed"; fi
    if [ "$lname" = pmixrun ]; then
        grep -Eq ':3 was killed by signal 9' "$log" || why="${why:+$why, }pmixrun did not report rank 3 killed by signal 9"
    else
        [ "$nret" -eq 3 ] || why="${why:+$why, }$nret of 3 surviving ranks returned from the fence"
    fi
    leftovers "$marker" "$log" || why="${why:+$why, }processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
fence_kill_case pmixrun now "$PMIXRUN" --timeout 25
fence_kill_case pmixrun early "$PMIXRUN" --timeout 25
fence_kill_case rm_simple now "$BIN/rm_simple" -t 18
fence_kill_case rm_simple late "$BIN/rm_simple" -t 18
fence_kill_case rm_simple early "$BIN/rm_simple" -t 18

# ---- fault_server_exit ----
server_exit_case() {  # server_exit_case fence|get
    local op=$1 name=server-exit-$1
    selected "$name" || return 0
    local log=$B/fault-$name.log res=$B/fault-$name.result marker; marker=$(new_marker "$name")
    rm -f "$res"
    # Under the C host: pmixrun's ranks die with it (killed-launcher), a
    # C host's outlive it and must see the loss of their server.
    run_timed "$log" "$BIN/rm_simple" -t 25 -n 3 "$BIN/fault_server_exit" "$res" "$op" "$marker"
    # The host is dead (rank 0 killed it): the ranks report through the file only.
    local i n=0 why=""
    for i in $(seq 150); do
        n=$( [ -f "$res" ] && wc -l <"$res" || echo 0)
        [ "$n" -ge 3 ] && break
        sleep 0.1
    done
    { echo "--- $res:"; [ -f "$res" ] && cat "$res"; } >>"$log"
    [ $RC -ne 124 ] || why="pmixrun still running after $T s"
    [ "$n" -eq 3 ] || why="${why:+$why, }$n of 3 result lines"
    for r in 0 1 2; do
        if [ -f "$res" ] && ! grep -Eq "^rank $r: $op -> PMIX_ERR_(LOST_CONNECTION|UNREACH) .*: ok$" "$res"; then
            why="${why:+$why, }rank $r: no passing line"
        fi
    done
    leftovers "$marker" "$log" || why="${why:+$why, }processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
server_exit_case fence
server_exit_case get

# ---- valgrind on the server side ----
vg_case() {
    local name=rm_simple-valgrind log=$B/fault-rm_simple-valgrind.log marker; marker=$(new_marker vg)
    selected "$name" || return 0
    if ! command -v valgrind >/dev/null 2>&1; then fail "$name" "valgrind not installed" "$log"; return; fi
    run_timed "$log" valgrind --error-exitcode=9 -q --leak-check=no "$BIN/rm_simple" -t 25 -n 2 "$BIN/fault_garbage" "$marker"
    local why=""
    if [ $RC -eq 9 ]; then why="valgrind reported errors"
    elif [ $RC -ne 0 ]; then why="exit $RC"
    elif grep -q ': FAIL' "$log"; then why="a step failed"
    fi
    leftovers "$marker" "$log" || why="${why:+$why, }processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
vg_case

# ---- pmixrun killed with SIGKILL ----
# Its ranks (not inside any PMIx call) die with it, and the next pmixrun on
# the host removes the session directory and tool rendezvous file the dead
# one left (their locks are free), leaving a live server's alone.
killed_case() {
    local name=killed-launcher log=$B/fault-killed-launcher.log marker pid live tmp=${TMPDIR:-/tmp} host why=""
    marker=$(new_marker killed)
    selected "$name" || return 0
    host=$(hostname)
    : >"$log"
    # a live server whose files must stay
    "$PMIXRUN" --timeout 30 -n 1 sh -c 'sleep 20; true' "$marker-live" >>"$log" 2>&1 & live=$!
    "$PMIXRUN" --timeout 30 -n 2 sh -c 'sleep 20; true' "$marker-dead" >>"$log" 2>&1 & pid=$!
    sleep 1
    [ -d "$tmp/rpmix.$host.$pid" ] || why="no session directory $tmp/rpmix.$host.$pid while it ran"
    kill -KILL $pid
    wait $pid 2>/dev/null
    leftovers "$marker-dead" "$log" || why="${why:+$why, }ranks outlived the killed pmixrun"
    [ -d "$tmp/rpmix.$host.$pid" ] || why="${why:+$why, }the killed pmixrun's session directory vanished by itself?"
    "$PMIXRUN" --timeout 30 -n 1 true >>"$log" 2>&1 || why="${why:+$why, }the next pmixrun failed"
    [ -e "$tmp/rpmix.$host.$pid" ] && why="${why:+$why, }the next pmixrun left the dead one's session directory"
    [ -e "$tmp/pmix.$host.tool.$pid" ] && why="${why:+$why, }the next pmixrun left the dead one's rendezvous file"
    [ -d "$tmp/rpmix.$host.$live" ] || why="${why:+$why, }the live server's session directory was removed"
    [ -e "$tmp/pmix.$host.tool.$live" ] || why="${why:+$why, }the live server's rendezvous file was removed"
    kill -TERM $live 2>/dev/null; wait $live 2>/dev/null
    leftovers "$marker-live" "$log" || why="${why:+$why, }processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
killed_case

finish
