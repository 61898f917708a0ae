#!/bin/bash
# OpenPMIx 4.2.2's own test programs (test/simple/*.c of tag v4.2.2, and
# bindings/python/tests/python/client.py) on both libraries, case by case.
#
#   tools/openpmix-simple-tests.sh [BUILD_DIR]   (default: c-tests/build/opxsimple)
#
# The C sources are not in this repository: tools/install-consumers.sh
# takes them from Debian's source package of the installed OpenPMIx (the
# upstream 4.2.2 release) into its cache, outside the work tree
# ($OPENPMIX_SRC overrides the directory), and they are compiled here
# against OpenPMIx's installed headers plus c-tests/openpmix-shim/ (our
# own minimal stand-ins for the internal headers they include: objects,
# lists, pmix_output, pmix_globals, progress threads over libevent). Every
# program links only public PMIx_* symbols of libpmix.so.2: the build checks
# it (nm: no pmix_* symbol undefined or exported). The loader picks the
# library at run time.
#
# Launchers (a case is <launcher>/<program>[-variant]):
#   mpirun/*    Open MPI 4.1.4's mpirun --allow-run-as-root --oversubscribe
#               -n N; OpenPMIx run: plain; rpmix run: LD_LIBRARY_PATH=rpmix
#               for mpirun and the ranks
#   pmixrun/*   rpmix's pmixrun -n N: rpmix only; its reference (the
#               OpenPMIx column) is the same program under mpirun on OpenPMIx
#   simptest/*  OpenPMIx's simptest (a server) starting N clients itself
#               (-n N -e ./<client>), the whole tree on one library
#   single/*    programs that are servers or tools started alone (simpfabric,
#               simpsched, simpvni, hybrid, gwtest+gwclient, stability, ...)
#   attach/*    simptool attaching to a running simptest (private TMPDIR)
#   py/*        client.py of the Python bindings (python3-pmix) under
#               mpirun and pmixrun
# Every run has a time limit ($SIMPLE_TIMEOUT, default 60 s) and its
# processes (marked through the environment) are ended afterwards. Each
# process proves its library: c-tests/which_pmix.c preloaded appends
# "<pid> <libpmix.so.2 loaded> <version>" and every report must name the
# run's library.
#
# Verdicts: a case FAILS only when it passes on OpenPMIx and fails on rpmix
# (a regression); a case failing on OpenPMIx too is "SKIP (fails on OpenPMIx
# too: ...)". After the cases, a table: case, outcome on OpenPMIx, outcome on
# rpmix, verdict (also written to BUILD_DIR/results.tsv). Logs:
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
PY=/usr/bin/python3
SHIM=$ROOT/c-tests/openpmix-shim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$B"
if [ -z "${OPENPMIX_SRC:-}" ]; then
    if ! cache=$("$ROOT/tools/install-consumers.sh" 2>"$B/install.log" | tail -n 1) || [ ! -d "$cache/openpmix-src/test/simple" ]; then
        fail install "tools/install-consumers.sh failed" "$B/install.log"; finish
    fi
    OPENPMIX_SRC=$cache/openpmix-src
fi
require_lib "$LIBDIR" "$B"
SRC=$B/src BINS=$B/bin LOGS=$B/logs W=$B/wrap
mkdir -p "$SRC" "$BINS" "$LOGS" "$W"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-opxs.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
SYSLIB=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
SYSLIB=$(readlink -f "${SYSLIB:-/usr/lib/x86_64-linux-gnu/libpmix.so.2}")
OURLIB=$(readlink -f "$LIBDIR/libpmix.so.2")

# ---- sources (only rewritten when they changed: build_once compares dates) ----
extract() {  # extract <path in OpenPMIx's source tree> <file>
    [ -f "$OPENPMIX_SRC/$1" ] || return 1
    cmp -s "$OPENPMIX_SRC/$1" "$2" || cp "$OPENPMIX_SRC/$1" "$2"
}
PROGS="simptest simpclient simppub simpdyn simpft simpdmodex test_pmix simptool simpdie simptimeout
       gwtest gwclient stability quietclient simpjctrl simpio simpsched simpcoord simpcycle doubleget
       simpfabric get_put_example simpvni hybrid"
blog=$B/build.log
: >"$blog"
ok=1
extract test/simple/simptest.h "$SRC/simptest.h" || ok=0
extract test/simple/netconfig.txt "$SRC/netconfig.txt" || ok=0
extract bindings/python/tests/python/client.py "$SRC/client.py" || ok=0
for p in $PROGS; do extract "test/simple/$p.c" "$SRC/$p.c" || { echo "cannot extract $p.c" >>"$blog"; ok=0; }; done

# ---- build ----
make_progs libwhich_pmix.so >>"$blog" 2>&1 || ok=0
for p in $PROGS; do
    build_once "$BINS/$p" $CC -std=gnu99 -g -O1 -w -I"$SHIM" -I"$REF_INC" -I"$SRC" "$SRC/$p.c" "$SHIM/shim.c" \
        -o "$BINS/$p" -l:libpmix.so.2 -levent_core -levent_pthreads -lpthread >>"$blog" 2>&1 || { echo "build of $p failed" >>"$blog"; ok=0; }
    # only public PMIx_* symbols of the library; no pmix_* symbol of ours exported
    if [ -x "$BINS/$p" ]; then
        bad=$(nm -u "$BINS/$p" | awk '{print $NF}' | grep -i '^pmix' | grep -v '^PMIx_')
        bad="$bad$(nm -D --defined-only "$BINS/$p" | awk '{print $NF}' | grep -i '^pmix')"
        [ -z "$bad" ] || { echo "$p: internal symbols: $bad" >>"$blog"; ok=0; }
    fi
done
cp -f "$SRC/netconfig.txt" "$BINS/netconfig.txt" 2>/dev/null
if [ $ok = 1 ]; then pass build; else fail build "extraction or compilation failed" "$blog"; finish; fi
HAVE_PY=1; $PY -c 'import pmix' >/dev/null 2>&1 || HAVE_PY=0

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

# ---- judging: each sets why ("" = passed) ----
cnt() { grep -Eac -- "$1" "$LOG"; }
# lines that report a failure (those both libraries print for a missing
# optional value are not)
BAD='failed|FAILED|ERROR|wrong|incorrect'
BENIGN='CREDENTIAL failed|Register fabric failed with error NOT-SUPPORTED'
bad_lines() { grep -Ea -- "$BAD" "$LOG" | grep -Eav -- "$BENIGN" | head -1; }
timed_out() { [ "$RC" = 124 ] || [ "$RC" = 137 ]; }
need_rc() { [ "$RC" = "$1" ] || { if timed_out; then add "timeout (${T}s)"; else add "exit $RC, expected $1"; fi; }; }
need() { local n; n=$(cnt "$1"); [ "$n" -ge "$2" ] || add "$n of $2 lines /$1/"; }
no_bad() { local l; l=$(bad_lines); [ -z "$l" ] || add "printed: $(echo "$l" | cut -c1-110)"; }
# j_final <n>: exit 0, n "successfully completed" lines, no failure line
j_final() { need_rc 0; need 'PMIx_Finalize successfully completed' "$1"; no_bad; }
# j_abort: the job ends on its own with a non-zero status (the abort)
j_abort() {
    if timed_out; then add "timeout (${T}s)"; elif [ "$RC" = 0 ]; then add "exit 0 after an abort"; fi
}
# j_notified <n>: n survivors say "NOTIFIED", no hang
j_notified() { timed_out && add "timeout (${T}s)"; need 'NOTIFIED with status' "$1"; }
j_simptest() { need_rc 0; need '^Test finished OK!' 1; }
judge() {  # judge <spec word> <n>: the program's own rule
    local spec=$1 n=$2
    case $spec in
        final) j_final "$n" ;;
        final2x) j_final $((2 * n)) ;;
        dyn) j_final $((n + 2)); need 'job .* size 2' 1 ;;
        dmodex) need_rc 0; need 'PMIx_Finalize successfully completed' "$n"; no_bad ;;
        abort) j_abort ;;
        die) j_notified $((n - 1)) ;;
        quiet) need_rc 0; no_bad ;;
        doubleget) need_rc 0; no_bad ;;
        getput) need_rc 0; need 'Get complete and successful' "$n"; no_bad ;;
        testpmix) need_rc 0; need '^I am rank' "$n" ;;
        hybrid) need_rc 0; need '^Test completed' "$n"; need '^Entered parallel_region_OMP_cb' "$n"; need '^Entered parallel_region_MPI_cb' "$n" ;;
        tool) need 'Client received result foobar:0' 1; need 'Client received result spastic:1' 1; need 'PMIx_Finalize successfully completed' 1; no_bad ;;
        py) need_rc 0; need '^12 / 12 TESTS PASSED' "$n"
            local f; f=$(grep -Ea 'TEST FAILED' "$LOG" | sort -u | tr '\n' ';' | cut -c1-120)
            [ -z "$f" ] || add "$f" ;;
        fabric) need_rc 0; need '^Test finished OK!' 1 ;;
        sched) need_rc 0; need '^Test finished OK!' 1 ;;
        vni) need_rc 0; need '^VNI: ' 1 ;;
        gw) need_rc 0; need '^Test finished OK!' 1; need 'PMIx_Finalize successfully completed' "$n" ;;
        stability) need_rc 0; need '^Test finished OK!' 1 ;;
        st_final|st_final2x|st_dyn|st_dmodex|st_quiet)
            j_simptest; no_bad
            case $spec in st_final|st_dmodex) need 'PMIx_Finalize successfully completed' "$n" ;;
                st_final2x) need 'PMIx_Finalize successfully completed' $((2 * n)) ;;
                st_dyn) need 'PMIx_Finalize successfully completed' $((n + 2)) ;; esac ;;
        st_getput) j_simptest; need 'Get complete and successful' "$n"; no_bad ;;
        st_abort) j_simptest; need 'SERVER: ABORT' 1 ;;
        st_die) timed_out && add "timeout (${T}s)"; need 'NOTIFIED with status' $((n - 1)) ;;
        *) add "no rule for $spec" ;;
    esac
}
# proof_ok <lib> <min>: every report names the run's library, at least <min>
proof_ok() {
    if [ "$1" = rpmix ]; then proof_loaded "$PROOF" "$OURLIB" "$2"; else proof_loaded "$PROOF" "$SYSLIB" "$2"; fi
}

# ---- results ----
RES=$B/results.tsv
: >"$RES"
declare -A OUT_OPX   # reference outcomes by program key (mpirun on OpenPMIx, for pmixrun)
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
    OUT_OPX[$c]=$o
    record "$c" "$o" "$r"
}
# rpmix_only <case> <reference case> <spec> <n> <min proofs> <command...>
rpmix_only() {
    local c=$1 ref=$2 spec=$3 n=$4 minp=$5; shift 5
    selected "$c" || return 0
    local o r
    if [ -n "${OUT_OPX[$ref]:-}" ]; then o=${OUT_OPX[$ref]}
    else
        # the reference was not selected: run it now
        one_lib "$ref" openpmix "$spec" "$n" "$minp" "${REFCMD[@]}"; o=$OUTCOME; OUT_OPX[$ref]=$o
    fi
    one_lib "$c" rpmix "$spec" "$n" "$minp" "$@"; r=$OUTCOME
    [ "$o" = pass ] || o="$o [as $ref]"
    record "$c" "$o" "$r"
}

MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
# The clients: <program> <variant args> <N> <rule>
CLIENTS=(
    "simpclient||2|final"
    "simpclient-abort|-abort|2|abort"
    "simppub||2|final"
    "simpdyn||2|dyn"
    "simpft||2|abort"
    "simpdmodex||2|dmodex"
    "simptimeout||2|final"
    "simpdie||2|die"
    "quietclient||2|quiet"
    "simpio||2|final"
    "simpcoord||2|final"
    "simpcycle||2|final2x"
    "simpjctrl||2|final"
    "doubleget||2|doubleget"
    "get_put_example||2|getput"
    "test_pmix||2|testpmix"
    "hybrid||2|hybrid"
)
for spec in "${CLIENTS[@]}"; do
    IFS='|' read -r name args n rule <<<"$spec"
    prog=${name%%-*}
    # (word splitting of $args is meant: a program's arguments)
    # shellcheck disable=SC2086
    {
        REFCMD=("${MPIRUN[@]}" -n "$n" "$W/proof" ./$prog $args)
        both "mpirun/$name" "$rule" "$n" "$n" "${REFCMD[@]}"
        rpmix_only "pmixrun/$name" "mpirun/$name" "$rule" "$n" "$n" "$PMIXRUN" -n "$n" "$W/proof" ./$prog $args
        # simptest starts the clients itself (a server and its children)
        case $name in hybrid|test_pmix|doubleget|simpjctrl) ;; *)
            both "simptest/$name" "st_$rule" "$n" $((n + 1)) "$W/proof" ./simptest -n "$n" -e ./$prog $args ;;
        esac
    }
done

# ---- servers and tools started alone ----
both single/simpfabric fabric 1 1 "$W/proof" ./simpfabric
both single/simpsched sched 1 1 "$W/proof" ./simpsched
both single/simpvni vni 1 1 "$W/proof" ./simpvni
both single/hybrid hybrid 1 1 "$W/proof" ./hybrid
both single/gwtest gw 2 3 "$W/proof" ./gwtest -n 2
both single/stability stability 1 2 "$W/proof" ./stability -n 2 -reps 3
# simptool as simptest's child (it connects to its parent, which answers the query)
both simptest/simptool tool 1 2 "$W/proof" ./simptest -n 1 -e ./simptool

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

# ---- the Python client ----
if [ $HAVE_PY = 1 ]; then
    REFCMD=("${MPIRUN[@]}" -n 2 "$W/proof" "$PY" "$SRC/client.py")
    both mpirun/py-client py 2 2 "${REFCMD[@]}"
    rpmix_only pmixrun/py-client mpirun/py-client py 2 2 "$PMIXRUN" -n 2 "$W/proof" "$PY" "$SRC/client.py"
else
    echo "SKIP: py-client (no python3-pmix for $PY)"
fi

# ---- the table ----
echo
printf '%-28s | %-44s | %-44s | %s\n' CASE OpenPMIx rpmix VERDICT
while IFS=$'\t' read -r c o r v; do
    printf '%-28s | %-44s | %-44s | %s\n' "$c" "$o" "$r" "$v"
done <"$RES"
echo
finish
