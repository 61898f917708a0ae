#!/bin/bash
# Job control, process monitoring and cleanup, end to end (rpmix's
# libpmix.so.2, pmixrun, and the C host c-tests/rm_simple.c).
#
#   tools/jobctl-tests.sh [BUILD_DIR]        (default: c-tests/build)
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2 (default: target/release of
#                  this repository); also where pmixrun is looked for
#   RPMIX_PMIXRUN  the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   CC             the C compiler (default: cc)
#   JOBCTL_REPEAT  run every case this many times (default 1)
#   RPMIX_CASE     run only the cases whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. ^stall-
#   RPMIX_BIN      where the test programs are compiled (default: BUILD_DIR)
#
# Cases (every run is wrapped in `timeout`; every test program also bounds
# itself with alarm(); every path is under a fresh mktemp -d):
#   jctl-signals-pmixrun
#                    pmixrun -n 3 jctl_signals: pause/resume (/proc state),
#                    signal, checkpoint by signal and by event completing on
#                    PMIX_JCTRL_CHECKPOINT_COMPLETE, on timeout, on cancel,
#                    restart and provision refused, preemptible query, and at
#                    last PMIX_JOB_CTRL_KILL of rank 2: exit code 137,
#                    "0 failed", "kill: ok", pmixrun reports rank 2 killed by
#                    signal 9; the file and directory rank 2 registered for
#                    cleanup are gone although it was killed
#   jctl-signals-rm_simple-direct, -defer
#                    the same through the C resource manager (its job_control
#                    upcall answering at once / later from its main loop):
#                    the same checks, the checkpoint of rank 1 reaches the C
#                    host as PMIX_JOB_CTRL_SIGNAL 12, rm_simple logs rank 2
#                    exiting with 137
#   monitor-hb       pmixrun --on-stall report -n 2 monitor_hb: exit 0,
#                    "0 failed"; pmixrun reports hb1's stall exactly once and
#                    never hb2's (PMIX_MONITOR_APP_CONTROL)
#   monitor-file     pmixrun --on-stall report -n 1 monitor_file: exit 0,
#                    "0 failed"; pmixrun reports "still" once, "grow" never
#   monitors-rm_simple
#                    monitor_hb -n 2 and monitor_file -n 1 under rm_simple
#                    (monitoring inside the library, a C host): exit 0 and
#                    "0 failed" each
#   tool-monitor-self
#                    a tool (tool_monitor_self) sets a heartbeat monitor on
#                    itself and leaves: pmixrun --on-stall terminate exits 0
#   stall-terminate  pmixrun --on-stall terminate -n 2 monitor_hb stall: rank 1
#                    never beats: non-zero exit (not the timeout's) within 5 s,
#                    pmixrun names <ns>:1 as stalled on stderr
#   stall-default    the same without --on-stall (terminate is the default)
#   stall-kill       --on-stall kill: exit 137 within 5 s, rank 1 named
#   cleanup-pmixrun, cleanup-rm_simple
#                    cleanup_rules -n 1 (see its header): exit 0, "0 failed",
#                    then the disk is checked entry by entry
#   ctrlc-pmixrun    pmixrun -n 2 cleanup_rules sleep (each rank registers a
#                    directory, rank 0 one more for the namespace, then they
#                    sleep 30 s); SIGINT to pmixrun once both registered (and
#                    at least 1 s after the start): pmixrun must exit within
#                    5 s with 130 and the registered directories be gone
#   preempt-quick    pmixrun --preempt-notice 20 -n 3 jctl_preempt (see its
#                    header): SIGTERM to pmixrun once all are ready: ranks 0
#                    and 1 (preemptible) get PMIX_JCTRL_PREEMPT_ALERT with
#                    PMIX_TIMEOUT 20, rank 2 does not; rank 0 reports its
#                    checkpoint complete, rank 1 exits: pmixrun stops the job
#                    within 5 s with 143
#   preempt-stay     the same with --preempt-notice 2 and rank 1 never
#                    ready: the job stops after the notice (1.8 to 7 s), 143
#   pmixctl-checkpoint
#                    pmixctl checkpoint against pmixrun -n 3 jctl_preempt ckpt:
#                    ranks 0 and 1 (event method) each get their checkpoint
#                    with its id and complete it; a checkpoint of all ranks
#                    is refused (NOT-SUPPORTED: rank 2 registered no method)
#                    and reaches nobody
# After every case, processes still carrying the case's unique argv marker
# are reported (a failure) and killed.
#
# Prints PASS: <case> / FAIL: <case> (...) per case, then "N passed, M failed";
# exit status 0 only when every case passed.
set -u

. "$(dirname "$0")/testlib.sh"
REPEAT=${JOBCTL_REPEAT:-1}
T=45             # timeout of every run

MARKER_PREFIX=rpmix-jobctl

require_lib "$LIBDIR" "$B"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-jobctl.XXXXXX") || exit 1
chmod 755 "$SCRATCH"
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR=$SCRATCH

# ---- build (into $BIN, once: tools/testlib.sh) ----
build_log=$B/jobctl-build.log
: >"$build_log"
built=1
for p in jctl_signals jctl_preempt monitor_hb monitor_file cleanup_rules rm_simple tool_monitor_self; do
    build_prog "$p" >>"$build_log" 2>&1 || { built=0; echo "build of $p failed" >>"$build_log"; }
done
if [ $built = 1 ]; then pass build; else fail build "compilation failed" "$build_log"; echo "$passed passed, $failed failed"; exit 1; fi
[ -x "$PMIXRUN" ] || echo "note: no launcher at $PMIXRUN: the pmixrun cases will fail"

scratch() { mktemp -d "$SCRATCH/case.XXXXXX"; }

# summary_ok <log> <name>: the program's "<name>: N passed, 0 failed" with N > 0 and no FAIL line
why=""
summary_ok() {
    grep -Eq "^$2: [1-9][0-9]* passed, 0 failed\$" "$1" || add "no \"$2: N passed, 0 failed\" line"
    if grep -q ': FAIL' "$1"; then add "$(grep -c ': FAIL' "$1") failed checks"; fi
}

# ---- job control ----
case_jctl_signals() {  # case_jctl_signals pmixrun|rm_simple-<mode>
    local host=$1 name=jctl-signals-$1 log=$B/jobctl-jctl-signals-$1.log marker; marker=$(new_marker jctl)
    selected "$name" || return 0
    D=$(scratch)
    why=""
    if [ "$host" = pmixrun ]; then
        run_timed "$log" "$PMIXRUN" --timeout 40 -n 3 "$BIN/jctl_signals" "$D" "$marker"
    else
        run_timed "$log" "$BIN/rm_simple" -v -m "${host#rm_simple-}" -t 40 -n 3 "$BIN/jctl_signals" "$D" "$marker"
    fi
    absent r2.file r2.dir
    [ $RC -eq 137 ] || add "exit $RC, expected 137 (rank 2 killed)"
    summary_ok "$log" jctl_signals
    grep -q '^jctl_signals: kill: ok$' "$log" || add "no \"kill: ok\" line"
    if [ "$host" = pmixrun ]; then
        grep -Eq '^pmixrun: [^ ]+:2 was killed by signal 9$' "$log" || add "pmixrun did not report rank 2 killed by signal 9"
    else
        # The C host saw the checkpoint of rank 1 as its registered signal (SIGUSR2 = 12).
        grep -q 'upcall job_control .*pmix.jctrl.sig=12.*ckpt-r1' "$log" || add "rm_simple was not asked for rank 1's checkpoint signal"
        grep -q '^rm_simple: rank 2 exited with 137$' "$log" || add "rm_simple did not see rank 2 killed"
    fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# ---- monitoring ----
case_monitor_hb() {
    local name=monitor-hb log=$B/jobctl-monitor-hb.log marker; marker=$(new_marker hb)
    selected "$name" || return 0
    why=""
    run_timed "$log" "$PMIXRUN" --timeout 40 --on-stall report -n 2 "$BIN/monitor_hb" "$marker"
    [ $RC -eq 0 ] || add "exit $RC"
    summary_ok "$log" monitor_hb
    local n1 n2 nall
    n1=$(grep -Ec '^pmixrun: [^ ]+:1 stalled \(monitor hb1\)$' "$log")
    n2=$(grep -c 'monitor hb2' "$log")
    nall=$(grep -c 'stalled' "$log")
    [ "$n1" -eq 1 ] || add "pmixrun reported hb1's stall $n1 times, expected once"
    [ "$n2" -eq 0 ] || add "pmixrun reported hb2 (PMIX_MONITOR_APP_CONTROL) $n2 times"
    [ "$nall" -eq "$n1" ] || add "$nall stall reports in all"
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

case_monitor_file() {
    local name=monitor-file log=$B/jobctl-monitor-file.log marker d; marker=$(new_marker file); d=$(scratch)
    selected "$name" || return 0
    why=""
    run_timed "$log" "$PMIXRUN" --timeout 40 --on-stall report -n 1 "$BIN/monitor_file" "$d" "$marker"
    [ $RC -eq 0 ] || add "exit $RC"
    summary_ok "$log" monitor_file
    local n1 n2
    n1=$(grep -Ec '^pmixrun: [^ ]+:0 stalled \(monitor still\)$' "$log")
    n2=$(grep -c 'monitor grow' "$log")
    [ "$n1" -eq 1 ] || add "pmixrun reported the stall of \"still\" $n1 times, expected once"
    [ "$n2" -eq 0 ] || add "pmixrun reported \"grow\" $n2 times"
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# The monitors inside the library, under a C host without a monitor upcall:
# the programs' own checks (alerts reach the rank and its peers in their
# windows, cancel, drops, file growth) must all pass.
case_monitor_rm_simple() {
    local name=monitors-rm_simple log=$B/jobctl-monitors-rm_simple.log marker d; marker=$(new_marker mon); d=$(scratch)
    selected "$name" || return 0
    why=""
    run_timed "$log" "$BIN/rm_simple" -t 40 -n 2 "$BIN/monitor_hb" "$marker"
    [ $RC -eq 0 ] || add "monitor_hb: exit $RC"
    summary_ok "$log" monitor_hb
    run_timed "$log.file" "$BIN/rm_simple" -t 40 -n 1 "$BIN/monitor_file" "$d" "$marker"
    cat "$log.file" >>"$log"; rm -f "$log.file"
    [ $RC -eq 0 ] || add "monitor_file: exit $RC"
    summary_ok "$log" monitor_file
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

case_stall() {  # case_stall <action|default>
    local action=$1 name=stall-$1 log=$B/jobctl-stall-$1.log marker; marker=$(new_marker "stall-$1")
    selected "$name" || return 0
    local opt=(--on-stall "$action"); [ "$action" = default ] && opt=()
    why=""
    run_timed "$log" "$PMIXRUN" --timeout 40 "${opt[@]}" -n 2 "$BIN/monitor_hb" stall "$marker"
    if [ "$action" = kill ]; then
        [ $RC -eq 137 ] || add "exit $RC, expected 137 (rank 1 killed)"
    else
        [ $RC -ne 0 ] || add "exit 0: the job did not fail"
        [ $RC -ne 124 ] || add "exit 124: pmixrun's own time limit hit"
    fi
    [ $RC -ne 124 ] || add "timeout"
    [ "$MS" -le 5000 ] || add "took $MS ms (limit 5 s)"
    grep -q '^monitor_hb: rank 1 stall monitor: SUCCESS$' "$log" || add "rank 1 could not start its monitor"
    grep -Eq '^pmixrun: [^ ]+:1 stalled' "$log" || add "pmixrun did not name rank 1 as stalled"
    if grep -q 'still running after 20 s' "$log"; then add "a rank slept to the end"; fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# A tool that set a heartbeat monitor on itself and left: the job it
# attached to goes on (its monitor ended with its connection).
case_tool_monitor() {
    local name=tool-monitor-self log=$B/jobctl-tool-monitor-self.log marker pid; marker=$(new_marker toolmon)
    selected "$name" || return 0
    why=""
    "$PMIXRUN" --timeout 30 --on-stall terminate -n 1 sh -c 'sleep 4; true' "$marker" >"$log" 2>&1 & pid=$!
    sleep 0.5
    timeout 20 "$BIN/tool_monitor_self" $pid >>"$log" 2>&1 || add "the tool's attach or monitor request failed"
    wait $pid; RC=$?
    [ $RC -eq 0 ] || add "pmixrun exited $RC: the job was stopped for the tool's monitor"
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# ---- cleanup ----
# disk checks relative to $D, reasons appended to $why
D=""
absent() { local p; for p in "$@"; do if [ -e "$D/$p" ] || [ -L "$D/$p" ]; then add "$p still there"; fi; done; }
present_file() {
    local p; for p in "$@"; do
        if [ -L "$D/$p" ] || [ ! -f "$D/$p" ]; then add "$p missing (or not a plain file)"
        elif [ "$(cat "$D/$p")" != precious ]; then add "$p content changed"; fi
    done
}
present_dir() { local p; for p in "$@"; do [ -d "$D/$p" ] && [ ! -L "$D/$p" ] || add "directory $p missing"; done; }

case_cleanup() {  # case_cleanup pmixrun|rm_simple
    local lname=$1 name=cleanup-$1 log=$B/jobctl-cleanup-$1.log marker; marker=$(new_marker "cleanup-$1")
    selected "$name" || return 0
    D=$(scratch)
    why=""
    if [ "$lname" = pmixrun ]; then
        run_timed "$log" "$PMIXRUN" --timeout 40 -n 1 "$BIN/cleanup_rules" "$D" rules pmixrun "$marker"
    else
        run_timed "$log" "$BIN/rm_simple" -t 40 -n 1 "$BIN/cleanup_rules" "$D" rules rm_simple "$marker"
    fi
    [ $RC -eq 0 ] || add "exit $RC"
    summary_ok "$log" cleanup_rules
    { echo "--- disk after the job:"; (cd "$D" && find . -exec ls -ld {} + | sort -k9); } >>"$log" 2>&1
    absent tree/a tree/sub/b tree/sub/deeper tree/link tree/dirlink files/f nsdir
    present_file outside/target outside/dir/file conflict/f1 conflict/d/x rel/f perm/f perm/g
    present_dir outside/dir conflict/d
    if [ "$(id -u)" = 0 ]; then
        present_file tree/foreign tree/sub/foreign2
        present_dir tree tree/sub
        [ "$(stat -c %u:%g "$D/tree/foreign" 2>/dev/null)" = 65534:65534 ] || add "tree/foreign changed owner"
    else
        absent tree
    fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# signal_launcher <sig> <log> <min ms> <ready file...>: pmixrun runs (under
# timeout, started by the caller as `timeout ... &` with its pid in $tp) until
# every ready file exists and at least <min ms> passed since $t0; then <sig>
# goes to pmixrun itself. Sets RCS (exit status) and MS (ms from the signal to the exit).
signal_launcher() {
    local sig=$1 log=$2 min=$3 i f ready pp t1; shift 3
    for i in $(seq 100); do
        ready=1
        for f in "$@"; do [ -e "$D/$f" ] || ready=0; done
        [ $ready = 1 ] && [ $(( $(now_ms) - t0 )) -ge "$min" ] && break
        sleep 0.1
    done
    [ $ready = 1 ] || add "the ranks were not ready within 10 s"
    pp=$(pgrep -P "$tp" | head -n 1)
    if [ -n "$pp" ]; then
        echo "[SIG$sig to pmixrun pid $pp after $(( $(now_ms) - t0 )) ms]" >>"$log"
        kill -"$sig" "$pp"
    else
        add "no pmixrun process under timeout pid $tp"
    fi
    t1=$(now_ms)
    wait "$tp" 2>/dev/null; RCS=$?
    MS=$(( $(now_ms) - t1 ))
    echo "[exit $RCS, $MS ms after SIG$sig]" >>"$log"
}

case_ctrlc() {
    local name=ctrlc-pmixrun log=$B/jobctl-ctrlc-pmixrun.log marker; marker=$(new_marker ctrlc)
    selected "$name" || return 0
    local envcmd=(env --default-signal=INT)
    env --default-signal=INT true 2>/dev/null || envcmd=(env)
    D=$(scratch)
    why=""
    t0=$(now_ms)
    # As after Ctrl-C in a terminal: SIGINT with its default disposition, sent to pmixrun only.
    timeout $T "${envcmd[@]}" "$PMIXRUN" -v -n 2 "$BIN/cleanup_rules" "$D" sleep "$marker" >"$log" 2>&1 &
    tp=$!
    signal_launcher INT "$log" 1000 ready.0 ready.1
    { echo "--- disk after the job:"; (cd "$D" && find . -exec ls -ld {} + | sort -k9); } >>"$log" 2>&1
    [ $RCS -ne 124 ] || add "pmixrun still running after $T s"
    [ $RCS -eq 130 ] || add "exit $RCS, expected 130 (128 + SIGINT)"
    [ "$MS" -le 5000 ] || add "pmixrun took $MS ms to exit after SIGINT (limit 5 s)"
    if grep -q ': FAIL' "$log"; then add "a registration failed"; fi
    absent ctrlc/r0 ctrlc/r1 ctrlc/ns
    if grep -q 'woke up' "$log"; then add "a rank slept to the end"; fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# ---- preemption ----
case_preempt() {  # case_preempt quick|stay
    local mode=$1 name=preempt-$1 log=$B/jobctl-preempt-$1.log marker; marker=$(new_marker "preempt-$1")
    selected "$name" || return 0
    local notice=20; [ "$mode" = stay ] && notice=2
    D=$(scratch)
    why=""
    t0=$(now_ms)
    timeout $T "$PMIXRUN" -v --preempt-notice $notice -n 3 "$BIN/jctl_preempt" "$D" "$mode" "$marker" >"$log" 2>&1 &
    tp=$!
    signal_launcher TERM "$log" 0 ready.0 ready.1 ready.2
    local rcs=$RCS ms=$MS
    [ $rcs -eq 143 ] || add "exit $rcs, expected 143 (128 + SIGTERM)"
    if grep -q 'FAIL' "$log"; then add "a rank failed"; fi
    [ -f "$D/alert.0" ] && [ -f "$D/alert.1" ] || add "rank 0 or 1 (preemptible) got no alert"
    [ -e "$D/alert.2" ] && add "rank 2 (not preemptible) was alerted"
    [ "$(cat "$D/alert.0" 2>/dev/null)" = "$notice" ] || add "the alert carried PMIX_TIMEOUT '$(cat "$D/alert.0" 2>/dev/null)', expected $notice"
    if [ "$mode" = quick ]; then
        # rank 0 reported its checkpoint complete and rank 1 exited: no need to wait for the notice
        [ "$ms" -le 5000 ] || add "pmixrun took $ms ms to stop although every alerted rank was ready"
    else
        # rank 1 never got ready: the whole notice (2 s), then the stop
        [ "$ms" -ge 1800 ] || add "pmixrun stopped after $ms ms, before the 2 s notice ran out"
        [ "$ms" -le 7000 ] || add "pmixrun took $ms ms to stop (notice 2 s, grace 2 s)"
    fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# pmixctl checkpoint against a live job (jctl_preempt's "ckpt" mode).
case_pmixctl_checkpoint() {
    local name=pmixctl-checkpoint log=$B/jobctl-pmixctl-checkpoint.log marker; marker=$(new_marker ckpt)
    selected "$name" || return 0
    local C=$LIBDIR/pmixctl pid i out
    D=$(scratch)
    why=""
    "$PMIXRUN" --timeout 30 -n 3 "$BIN/jctl_preempt" "$D" ckpt "$marker" >"$log" 2>&1 & pid=$!
    for i in $(seq 100); do
        [ -e "$D/ready.0" ] && [ -e "$D/ready.1" ] && [ -e "$D/ready.2" ] && break
        sleep 0.1
    done
    "$C" --pid $pid checkpoint ck1 --rank 0 --timeout 10 >>"$log" 2>&1 || add "checkpoint of rank 0 failed"
    [ "$(cat "$D/ckpt.0" 2>/dev/null)" = ck1 ] || add "rank 0 did not get checkpoint ck1"
    # rank 2 registered no method: the request is refused and nobody is asked
    out=$("$C" --pid $pid checkpoint ck2 --timeout 10 2>&1) && add "checkpoint of all ranks succeeded although rank 2 has no method"
    echo "$out" >>"$log"
    echo "$out" | grep -q NOT-SUPPORTED || add "no NOT-SUPPORTED for a checkpoint including rank 2: $out"
    [ -e "$D/ckpt.1" ] && add "rank 1 was asked to checkpoint by the refused request"
    "$C" --pid $pid checkpoint ck3 --rank 1 --timeout 10 >>"$log" 2>&1 || add "checkpoint of rank 1 failed"
    [ "$(cat "$D/ckpt.1" 2>/dev/null)" = ck3 ] || add "rank 1 did not get checkpoint ck3"
    kill -INT $pid 2>/dev/null
    wait $pid 2>/dev/null
    if grep -q 'FAIL' "$log"; then add "a rank failed"; fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

for round in $(seq "$REPEAT"); do
    [ "$REPEAT" -gt 1 ] && echo "--- round $round of $REPEAT"
    case_jctl_signals pmixrun
    case_jctl_signals rm_simple-direct
    case_jctl_signals rm_simple-defer
    case_monitor_hb
    case_monitor_file
    case_monitor_rm_simple
    case_stall terminate
    case_stall default
    case_stall kill
    case_tool_monitor
    case_cleanup pmixrun
    case_cleanup rm_simple
    case_ctrlc
    case_preempt quick
    case_preempt stay
    case_pmixctl_checkpoint
done

finish
