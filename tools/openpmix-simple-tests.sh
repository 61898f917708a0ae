#!/bin/bash
# OpenPMIx 4.2.2's simptool attached to a running simptest, on both
# libraries (the other cases of OpenPMIx's own test programs are
# systests/tests/openpmix.rs's simple_*, which describes them).
#
#   tools/openpmix-simple-tests.sh [BUILD_DIR]   (default: c-tests/build/opxsimple)
#
#   attach/simptool  simptest runs 1 client (simpdmodex -s 6); simptool,
#                    started alone in the same private TMPDIR, finds that
#                    server and queries it
# The programs are built by c-tests/Makefile (simple_<name>) from the
# sources tools/install-consumers.sh unpacks ($OPENPMIX_SRC overrides the
# directory). The run has a time limit ($SIMPLE_TIMEOUT, default 60 s) and
# its processes (marked through the environment) are ended afterwards. Each
# process proves its library (c-tests/which_pmix.c preloaded). The case
# FAILS only when it passes on OpenPMIx and fails on rpmix; failing on
# OpenPMIx too it is "SKIP (fails on OpenPMIx too: ...)". Logs:
# BUILD_DIR/logs/<case>.<lib>.log.
#
# Environment: OPENPMIX_SRC, SIMPLE_TIMEOUT, RPMIX_LIBDIR, RPMIX_CASE,
# OPENPMIX_INCLUDE, CC (tools/testlib.sh). Last line: "N passed, M failed".
set -u
BUILD_SUBDIR=opxsimple
. "$(dirname "$0")/testlib.sh"
MARKER_PREFIX=rpmix-opxsimple
MARKER_VAR=OPXS_MARKER
T=${SIMPLE_TIMEOUT:-60}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$B"
if [ -z "${OPENPMIX_SRC:-}" ]; then
    if ! cache=$("$ROOT/tools/install-consumers.sh" 2>"$B/install.log" | tail -n 1) || [ ! -d "$cache/openpmix-src/test/simple" ]; then
        fail install "tools/install-consumers.sh failed" "$B/install.log"; finish
    fi
    OPENPMIX_SRC=$cache/openpmix-src
fi
require_lib "$LIBDIR" "$B"
BINS=$B/bin LOGS=$B/logs W=$B/wrap
mkdir -p "$BINS" "$LOGS" "$W"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-opxs.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
SYSLIB=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
SYSLIB=$(readlink -f "${SYSLIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}")
OURLIB=$(readlink -f "$LIBDIR/libpmix.so.2")

# ---- build (c-tests/Makefile), the programs under their own names in $BINS ----
blog=$B/build.log
ok=1
make_progs libwhich_pmix.so simple_simptest simple_simpdmodex simple_simptool >"$blog" 2>&1 || ok=0
for p in simptest simpdmodex simptool; do ln -sfn "$MK/simple_$p" "$BINS/$p" || ok=0; done
cp -f "$OPENPMIX_SRC/test/simple/netconfig.txt" "$BINS/netconfig.txt" 2>>"$blog" || ok=0
if [ $ok = 1 ]; then pass build; else fail build "compilation failed" "$blog"; finish; fi

# proof <command...>: runs the command with which_pmix preloaded (reports to
# $PROOF_OUT) and the run's library (RUN_LIB=rpmix: LD_LIBRARY_PATH).
{
    echo '#!/bin/sh'
    echo 'if [ "$RUN_LIB" = rpmix ]; then LD_LIBRARY_PATH='"'$LIBDIR'"'; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi'
    echo "LD_PRELOAD='$MK/libwhich_pmix.so'; WHICH_PMIX_OUT=\$PROOF_OUT; export LD_PRELOAD WHICH_PMIX_OUT"
    echo 'exec "$@"'
} >"$W/proof"
chmod +x "$W/proof"

# ---- one run ----
# run_case <lib> <log> <command...>: in $BINS (the programs spawn ./simpclient
# and the like), with a private TMPDIR, the library of <lib> for the launcher
# and everything it starts; sets RC, MS, PROOF.
run_case() {
    local lib=$1 log=$2; shift 2
    local marker; marker=$(new_marker "$lib")
    PROOF=$log.proof
    : >"$PROOF"
    rm -rf "$SCRATCH/tmp"; mkdir -p "$SCRATCH/tmp"
    (
        cd "$BINS" || exit 1
        export OPXS_MARKER=$marker RUN_LIB=$lib PROOF_OUT=$PROOF TMPDIR=$SCRATCH/tmp
        if [ "$lib" = rpmix ]; then export LD_LIBRARY_PATH=$LIBDIR; else unset LD_LIBRARY_PATH; fi
        run_timed "$log" timeout -k 3 "$T" "$@"
        echo "$RC $MS" >"$SCRATCH/rc"
    ) </dev/null
    read -r RC MS <"$SCRATCH/rc"
    leftovers "$marker" "$log" marker_in_env || echo "processes left running" >>"$log"
}

# ---- judging: sets why ("" = passed) ----
cnt() { grep -Eac -- "$1" "$LOG"; }
# lines that report a failure (those both libraries print for a missing
# optional value are not)
BAD='failed|FAILED|ERROR|wrong|incorrect'
BENIGN='CREDENTIAL failed|Register fabric failed with error NOT-SUPPORTED'
bad_lines() { grep -Ea -- "$BAD" "$LOG" | grep -Eav -- "$BENIGN" | head -1; }
need() { local n; n=$(cnt "$1"); [ "$n" -ge "$2" ] || add "$n of $2 lines /$1/"; }
no_bad() { local l; l=$(bad_lines); [ -z "$l" ] || add "printed: $(echo "$l" | cut -c1-110)"; }
judge() {  # judge tool: simptool's answers
    need 'Client received result foobar:0' 1; need 'Client received result spastic:1' 1; need 'PMIx_Finalize successfully completed' 1; no_bad
}
# proof_ok <lib> <min>: every report names the run's library, at least <min>
proof_ok() {
    if [ "$1" = rpmix ]; then proof_loaded "$PROOF" "$OURLIB" "$2"; else proof_loaded "$PROOF" "$SYSLIB" "$2"; fi
}

# ---- results ----
RES=$B/results.tsv
: >"$RES"
outcome() {  # the outcome word and reason of the last judged run
    if [ -z "$why" ]; then echo "pass"
    elif [[ $why == timeout* ]]; then echo "timeout${why#timeout (*s)}" | sed 's/^timeout, /timeout: /'

    else echo "fail: $why"; fi
}
record() {  # record <case> <openpmix outcome> <rpmix outcome>
    local c=$1 o=$2 r=$3 v
    if [[ $o != pass ]]; then
        v="SKIP"; echo "SKIP: $c (fails on OpenPMIx too: $o; rpmix: $r)"
    elif [[ $r == pass ]]; then
        v="PASS"; pass "$c"
    else
        v="FAIL"; fail "$c" "passes on OpenPMIx, rpmix: $r" "$LOGS/${c//\//_}.rpmix.log"
    fi
    printf '%s\t%s\t%s\t%s\n' "$c" "$o" "$r" "$v" >>"$RES"
}
# one_lib <case> <lib> <spec> <n> <min proofs> <command...>: runs and judges; sets OUTCOME
one_lib() {
    local c=$1 lib=$2 spec=$3 n=$4 minp=$5; shift 5
    LOG=$LOGS/${c//\//_}.$lib.log
    run_case "$lib" "$LOG" "$@"
    why=""
    judge "$spec" "$n"
    grep -q "processes left running" "$LOG" && add "processes left running"
    proof_ok "$lib" "$minp"
    OUTCOME=$(outcome)
}
# both <case> <spec> <n> <min proofs> <command...>: OpenPMIx then rpmix
both() {
    local c=$1 spec=$2 n=$3 minp=$4; shift 4
    selected "$c" || return 0
    local o r
    one_lib "$c" openpmix "$spec" "$n" "$minp" "$@"; o=$OUTCOME
    one_lib "$c" rpmix "$spec" "$n" "$minp" "$@"; r=$OUTCOME
    record "$c" "$o" "$r"
}
# attach/simptool: simptest runs 1 client that sleeps; simptool, started
# alone in the same private TMPDIR, finds that server and queries it.
{
    echo '#!/bin/bash'
    echo '"$@" & sp=$!'
    echo 'for i in $(seq 100); do ls "$TMPDIR"/pmix.*.tool.* >/dev/null 2>&1 && break; sleep 0.1; done'
    echo 'sleep 1'
    echo 'echo "--- simptool:"; ./simptool 2>&1; echo "--- simptool exit $?"'
    echo 'wait $sp; echo "--- server exit $?"'
} >"$W/attach"
chmod +x "$W/attach"
both attach/simptool tool 1 2 "$W/proof" "$W/attach" ./simptest -n 1 -e ./simpdmodex -s 6

# ---- the table ----
echo
printf '%-28s | %-44s | %-44s | %s\n' CASE OpenPMIx rpmix VERDICT
while IFS=$'\t' read -r c o r v; do
    printf '%-28s | %-44s | %-44s | %s\n' "$c" "$o" "$r" "$v"
done <"$RES"
echo
finish
