# Shared helpers of the test drivers (sourced by fault-tests.sh,
# jobctl-tests.sh and setup-tests.sh, with the driver's arguments).
#
# Counters: pass <case> / fail <case> <why> <log> print one line each and
# count into $passed / $failed. Inside a case, add <why> collects reasons in
# $why (empty: the case passed).
# Needs: $T (seconds every run may take) for run_timed, $MARKER_PREFIX for
# new_marker.

# Paths: ROOT (the checkout), B (the build directory: the driver's first
# argument, default c-tests/build), LIBDIR (RPMIX_LIBDIR, default
# target/release), PMIXRUN (RPMIX_PMIXRUN, default LIBDIR/pmixrun), CC;
# relative paths are taken from the directory the driver was started in.
ORIG_PWD=$PWD
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-$ROOT/c-tests/build}
case $B in /*) ;; *) B=$ORIG_PWD/$B ;; esac
LIBDIR=${RPMIX_LIBDIR:-$ROOT/target/release}
case $LIBDIR in /*) ;; *) LIBDIR=$ORIG_PWD/$LIBDIR ;; esac
PMIXRUN=${RPMIX_PMIXRUN:-$LIBDIR/pmixrun}
CC=${CC:-cc}

passed=0; failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1 ($2; log: $3)"; [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/    /'; failed=$((failed + 1)); }
add() { why="${why:+$why, }$1"; }

# require_lib <libdir> <build dir>: the library is built, pgrep exists, the build dir is made.
require_lib() {
    mkdir -p "$2" || { echo "cannot create $2"; echo "0 passed, 1 failed"; exit 1; }
    if [ ! -e "$1/libpmix.so.2" ]; then
        echo "no $1/libpmix.so.2 (build the library, or set RPMIX_LIBDIR)"; echo "0 passed, 1 failed"; exit 1
    fi
    command -v pgrep >/dev/null 2>&1 || { echo "pgrep (procps) is needed"; echo "0 passed, 1 failed"; exit 1; }
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# new_marker <case>: a unique string to put on a case's command lines.
new_marker() { echo "$MARKER_PREFIX-$$-$1-$RANDOM$RANDOM"; }

# leftovers <marker> <log> [finder]: 0 when no process carries the marker
# (waits up to 5 s), else kill them. `finder <marker>` lists the pids
# (default: the marker on their command line, pgrep -f).
marker_in_args() { pgrep -f -- "$1" || true; }
leftovers() {
    local marker=$1 log=$2 finder=${3:-marker_in_args} i pids
    for i in $(seq 50); do
        pids=$($finder "$marker")
        [ -z "$pids" ] && return 0
        sleep 0.1
    done
    echo "leftover processes:" >>"$log"
    ps -o pid,ppid,etimes,args -p $(echo $pids | tr ' ' ',') >>"$log" 2>&1
    kill -9 $pids 2>/dev/null
    return 1
}

# run_timed <log> <cmd...>: runs under timeout $T, sets RC and MS (elapsed milliseconds).
run_timed() {
    local log=$1; shift
    local t0; t0=$(now_ms)
    # (in a subshell whose stderr is discarded: bash's "Killed" notice for a
    # run whose launcher was SIGKILLed would otherwise land on our output)
    (timeout $T "$@" >"$log" 2>&1; exit $?) 2>/dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    echo "[exit $RC after $MS ms]" >>"$log"
}
