#!/bin/bash
# IO forwarding end to end (RFC0025) under pmixrun, with pmixctl and a C tool:
#  - 8 ranks x IOF_TEST_MIB (default 50) MiB on stdout and on stderr: 16
#    attached tools get exactly each rank's bytes (sha256 per rank and
#    channel) and pmixrun's terminal holds the same bytes, line-atomic;
#  - stdin reaches rank 0 (default), a chosen rank, all ranks;
#  - a rank that closes its output early does not stall the others;
#  - output written before a tool pulls is cached under each drop policy;
#  - a slow tool throttles the ranks instead of growing pmixrun's memory;
#  - the IOF API's error codes and callbacks from a C tool.
#
#   tools/iof-tests.sh [BUILD_DIR]        (default: c-tests/build/iof)
#
# Prints "ok   <check>" or "FAIL <check>" per check, then "N passed, M
# failed"; exit 0 if all pass.
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2, pmixrun and pmixctl
#                  (default: target/release of this repository)
#   RPMIX_PMIXRUN  the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   IOF_TEST_MIB   MiB each rank writes per stream in the big check (default 50)
#   RPMIX_CASE     run only the checks whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. ^stdin_targets$
#   RPMIX_BIN      where the test programs are compiled (default: BUILD_DIR)
#   CC             the C compiler (default: cc)
set -u
BUILD_SUBDIR=iof
. "$(dirname "$0")/testlib.sh"
cd "$ROOT"
MIB=${IOF_TEST_MIB:-50}
N=8
export LD_LIBRARY_PATH="$LIBDIR"
RUN=$PMIXRUN CTL=$LIBDIR/pmixctl
mkdir -p "$B" "$BIN"
check() {
    selected "$1" || return 0
    if "$@"; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}

build_once "$BIN/iof_ranks" $CC -std=gnu99 -O2 -Wall -Wextra -Werror "$ROOT/c-tests/iof_ranks.c" -o "$BIN/iof_ranks" || exit 1
build_c tool_iof tool_iof || exit 1

big_output_to_tools_and_terminal() {
    local d="$B/big" gate="$B/big/gate" pid tools=() r i
    rm -rf "$d"; mkdir -p "$d"
    for r in $(seq 0 $((N - 1))); do PMIX_RANK=$r "$BIN/iof_ranks" "$MIB" >"$d/expect.$r.out" 2>"$d/expect.$r.err"; done
    "$RUN" --timeout 300 -n $N "$BIN/iof_ranks" "$MIB" "$gate" >"$d/term.out" 2>"$d/term.err" & pid=$!
    for i in $(seq 100); do "$CTL" --pid $pid ps >/dev/null 2>&1 && break; sleep 0.1; done
    for r in $(seq 0 $((N - 1))); do
        timeout 300 "$CTL" --pid $pid output --follow --rank $r >"$d/tool.$r.out" 2>"$d/tool.$r.out.log" & tools+=($!)
        timeout 300 "$CTL" --pid $pid output --follow --rank $r --stderr >"$d/tool.$r.err" 2>"$d/tool.$r.err.log" & tools+=($!)
    done
    # Start writing once every tool has its pull registered.
    for i in $(seq 300); do
        [ "$(cat "$d"/tool.*.log 2>/dev/null | grep -c following)" = $((2 * N)) ] && break
        sleep 0.1
    done
    touch "$gate"
    wait $pid || { echo "pmixrun exit $?"; kill "${tools[@]}" 2>/dev/null; return 1; }
    for t in "${tools[@]}"; do wait $t || { echo "a pmixctl failed: $(cat "$d"/tool.*.log | grep -v following)"; return 1; }; done
    python3 tools/iof-verify.py "$d" $N || return 1
    rm -rf "$d"
}

stdin_targets() {
    local got
    got=$(echo hi | timeout 30 "$RUN" -n 3 sh -c 'read x; echo "$PMIX_RANK:$x"' | sort | tr '\n' ' ')
    [ "$got" = "0:hi 1: 2: " ] || { echo "default: '$got'"; return 1; }
    got=$(echo hi | timeout 30 "$RUN" --stdin 2 -n 3 sh -c 'read x; echo "$PMIX_RANK:$x"' | sort | tr '\n' ' ')
    [ "$got" = "0: 1: 2:hi " ] || { echo "--stdin 2: '$got'"; return 1; }
    got=$(echo hi | timeout 30 "$RUN" --stdin all -n 3 sh -c 'read x; echo "$PMIX_RANK:$x"' | sort | tr '\n' ' ')
    [ "$got" = "0:hi 1:hi 2:hi " ] || { echo "--stdin all: '$got'"; return 1; }
    got=$(echo hi | timeout 30 "$RUN" --stdin none -n 2 sh -c 'read x; echo "$PMIX_RANK:$x"' | sort | tr '\n' ' ')
    [ "$got" = "0: 1: " ] || { echo "--stdin none: '$got'"; return 1; }
}

early_close_does_not_stall() {
    # rank 0 closes stdout at once and keeps running; rank 1's first line must
    # reach the terminal long before rank 1 ends.
    local t0 first
    t0=$(date +%s.%N)
    first=$(timeout 30 "$RUN" -n 2 sh -c 'if [ $PMIX_RANK = 0 ]; then exec >&-; sleep 4; else echo first; sleep 4; echo last; fi' |
        { read -r l; echo "$l $(date +%s.%N)"; cat >/dev/null; })
    set -- $first
    [ "$1" = first ] && [ "$(echo "$2 - $t0 < 3" | bc -l)" = 1 ] || { echo "first line: '$first' (start $t0)"; return 1; }
}

cache_before_pull() {
    # Output written before any tool pulls is kept (per rank and stream, up
    # to --iof-cache bytes) and delivered to the first pull; beyond the bound
    # the oldest or the newest chunks go, as asked.
    local policy want got pid
    for policy in oldest newest; do
        "$RUN" --iof-cache "12,$policy" -n 1 sh -c 'printf "aaaa\n"; sleep 0.2; printf "bbbb\n"; sleep 0.2; printf "cccc\n"; sleep 3' >/dev/null & pid=$!
        sleep 1.2
        got=$("$CTL" --pid $pid output | tr '\n' ' ')
        wait $pid
        [ $policy = oldest ] && want="bbbb cccc " || want="aaaa bbbb "
        [ "$got" = "$want" ] || { echo "$policy: got '$got', want '$want'"; return 1; }
    done
}

slow_tool_bounds_memory() {
    # One rank writes 4 x MIB MiB while an attached tool's reader stalls for
    # 3 s: pmixrun throttles the rank instead of queueing, so its peak memory
    # stays far below what was written, and the tool still gets every byte.
    local d="$B/slow" pid tool hwm=0 h
    rm -rf "$d"; mkdir -p "$d"
    PMIX_RANK=0 "$BIN/iof_ranks" $((4 * MIB)) >"$d/expect" 2>/dev/null
    "$RUN" --timeout 300 -n 1 "$BIN/iof_ranks" $((4 * MIB)) "$d/gate" >/dev/null 2>&1 & pid=$!
    for i in $(seq 100); do "$CTL" --pid $pid ps >/dev/null 2>&1 && break; sleep 0.1; done
    # (PMIX_DEBUG=1: if the attach fails, the log says why)
    { PMIX_DEBUG=1 timeout 300 "$CTL" --pid $pid output --follow 2>"$d/log" | { sleep 3; cat; } >"$d/got"; } & tool=$!
    for i in $(seq 100); do grep -q following "$d/log" 2>/dev/null && break; sleep 0.1; done
    touch "$d/gate"
    while kill -0 $pid 2>/dev/null; do
        h=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null); [ -n "$h" ] && hwm=$h
        sleep 0.2
    done
    wait $pid; wait $tool
    echo "    wrote $((4 * MIB)) MiB; pmixrun peak RSS $((hwm / 1024)) MiB"
    cmp -s "$d/expect" "$d/got" || { echo "tool bytes differ ($(wc -c <"$d/got") of $(wc -c <"$d/expect"))"; sed "s/^/    tool: /" "$d/log"; return 1; }
    [ $((hwm / 1024)) -lt $((MIB < 16 ? 48 : 2 * MIB)) ] || { echo "peak RSS too high"; return 1; }
    rm -rf "$d"
}

iof_api_from_a_c_tool() {
    local pid out
    "$RUN" --timeout 30 -n 3 sh -c 'sleep 1.5; echo hello-$PMIX_RANK; echo err >&2; exec >&- 2>&-; sleep 3' >/dev/null 2>&1 & pid=$!
    sleep 0.5
    out=$(timeout 20 "$BIN/tool_iof" $pid 3); rc=$?
    wait $pid
    echo "$out" | sed 's/^/    /'
    [ $rc = 0 ]
}

# Tags with host and pid, stderr merged into stdout, output directory; then
# rank tags into one file only (tool_iof's "detailed" and "fileonly" modes).
iof_directives_from_a_c_tool() {
    local pid out mode dir=$(mktemp -d) ok=0
    for mode in detailed fileonly; do
        "$RUN" --timeout 30 -n 3 sh -c 'sleep 1; echo hello-$PMIX_RANK-$$; echo err-$PMIX_RANK >&2; exec >&- 2>&-; sleep 2' >/dev/null 2>&1 & pid=$!
        sleep 0.3
        local target=$dir/tree; [ $mode = fileonly ] && target=$dir/all.txt
        out=$(timeout 20 "$BIN/tool_iof" $pid 3 $mode "$target"); rc=$?
        wait $pid
        echo "$out" | sed 's/^/    /'
        [ $rc = 0 ] || ok=1
    done
    rm -rf "$dir"
    return $ok
}

check big_output_to_tools_and_terminal
check stdin_targets
check early_close_does_not_stall
check cache_before_pull
check slow_tool_bounds_memory
check iof_api_from_a_c_tool
check iof_directives_from_a_c_tool
finish
