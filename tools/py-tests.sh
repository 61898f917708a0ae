#!/bin/bash
# Tests of Debian's Python bindings for PMIx (python3-pmix: module `pmix`,
# Cython over libpmix.so.2) with OpenPMIx's library and with rpmix's.
#
#   tools/py-tests.sh [BUILD_DIR]        (default: c-tests/build; logs go there)
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2 (default: target/release of
#                  this repository); also where pmixrun is looked for. When it
#                  has only libpmix.so (a bare `cargo build`), a scratch
#                  directory with a libpmix.so.2 link to it is used instead.
#   RPMIX_PMIXRUN  the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   PY_TESTS_TIMEOUT  seconds every launch may take (default 90)
#   RPMIX_CASE     run only the cases whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. ^pmixrun/; a
#                  selected compare/<run> also makes that run and the reference
#
# The client is c-tests/py/pmix_client.py (init, Get of job data, Put,
# Commit, Fence collecting data, Get of every peer's key, Finalize), 4 ranks
# of /usr/bin/python3 each. Cases:
#   mpirun/openpmix   Open MPI's mpirun with the system library (no
#                     LD_LIBRARY_PATH): the reference run
#   pmixrun/rpmix     rpmix's pmixrun, LD_LIBRARY_PATH=$RPMIX_LIBDIR
#   mpirun/rpmix      mpirun with LD_LIBRARY_PATH=$RPMIX_LIBDIR: mpirun (its
#                     embedded PMIx server) and the ranks load rpmix
# A run passes when it exits 0, every rank prints "rank R: OK" and no FAIL,
# and every rank reports the expected library: its PMIx_Get_version string
# (begins with "OpenPMIx" / "rpmix"), the libpmix mapped into it, and, under
# mpirun, the libpmix mapped into its parent (mpirun).
#   compare/<rpmix run>  the sorted "rank R: ..." lines of an rpmix run equal
#                        those of mpirun/openpmix (job data, types, peers' values)
# After every run, processes still carrying the run's argv marker are
# reported (a failure) and killed.
#
# Prints PASS: <case> / FAIL: <case> (...) per case, then "N passed, M failed";
# exit status 0 only when every case passed.
set -u

. "$(dirname "$0")/testlib.sh"
T=${PY_TESTS_TIMEOUT:-90}
NP=4
PY=/usr/bin/python3
CLIENT=$ROOT/c-tests/py/pmix_client.py
MARKER_PREFIX=rpmix-py

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-py.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT

# The library: LIBDIR/libpmix.so.2, or a link to LIBDIR/libpmix.so.
RLIB=$LIBDIR
if [ ! -e "$LIBDIR/libpmix.so.2" ] && [ -e "$LIBDIR/libpmix.so" ]; then
    RLIB=$SCRATCH/lib
    mkdir -p "$RLIB" && ln -s "$LIBDIR/libpmix.so" "$RLIB/libpmix.so.2"
    echo "note: no $LIBDIR/libpmix.so.2; using $RLIB/libpmix.so.2 -> $LIBDIR/libpmix.so"
fi
require_lib "$RLIB" "$B"
RPMIX_REAL=$(readlink -f "$RLIB/libpmix.so.2")

# Session directories of killed launchers would stay behind: keep them in the scratch dir.
mkdir -p "$SCRATCH/tmp"
export TMPDIR=$SCRATCH/tmp
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The system library must not see rpmix through an inherited path.
unset LD_LIBRARY_PATH

# ---- prerequisites ----
pre_log=$B/py-prereq.log
: >"$pre_log"
have_py=1 have_mpirun=1
if ! "$PY" -W ignore -c 'import pmix; pmix.PMIxClient' >>"$pre_log" 2>&1; then
    have_py=0; echo "$PY cannot import the module pmix (Debian package python3-pmix)" >>"$pre_log"
fi
[ -f "$CLIENT" ] || { have_py=0; echo "no $CLIENT" >>"$pre_log"; }
command -v mpirun >/dev/null 2>&1 || { have_mpirun=0; echo "no mpirun (Debian package openmpi-bin)" >>"$pre_log"; }
[ -x "$PMIXRUN" ] || echo "no launcher at $PMIXRUN: pmixrun/rpmix will fail" >>"$pre_log"
if [ $have_py = 1 ]; then pass prerequisites; else fail prerequisites "python3-pmix missing" "$pre_log"; fi

# rank_lines <log>: the library-independent "rank R: ..." lines, sorted.
rank_lines() { grep -oE '(info )?rank [0-9]+: .*' "$1" | grep -v '^info ' | LC_ALL=C sort; }

# check_run <log> <lib: openpmix|rpmix> <launcher: mpirun|pmixrun>: sets $why.
check_run() {
    local log=$1 lib=$2 launcher=$3 r line ver path plib
    why=""
    [ $RC -eq 0 ] || add "exit $RC"
    grep -qE 'rank [0-9?]+: FAIL' "$log" && add "a rank failed: $(grep -m1 -oE 'rank [0-9?]+: FAIL.*' "$log")"
    for r in $(seq 0 $((NP - 1))); do
        rank_lines "$log" | grep -qx "rank $r: OK" || { add "no 'rank $r: OK'"; continue; }
        ver=$(grep -m1 -oE "info rank $r: version=.*" "$log" | sed 's/^[^=]*=//')
        path=$(grep -m1 -oE "info rank $r: lib=.*" "$log" | sed 's/^[^=]*=//')
        line=$(grep -m1 -oE "info rank $r: parent=.*" "$log")
        plib=${line##*parent_lib=}
        case $lib in
            openpmix)
                case $ver in OpenPMIx*) ;; *) add "rank $r: version '$ver' is not OpenPMIx's" ;; esac
                { [ -n "$path" ] && [ "$path" != none ] && [ "$path" != "$RPMIX_REAL" ]; } \
                    || add "rank $r: loaded '$path', not the system libpmix"
                ;;
            rpmix)
                case $ver in rpmix*) ;; *) add "rank $r: version '$ver' is not rpmix's" ;; esac
                [ "$path" = "$RPMIX_REAL" ] || add "rank $r: loaded '$path', not $RPMIX_REAL"
                ;;
        esac
        case $launcher in
            mpirun)
                case $line in *"parent=mpirun "*) ;; *) add "rank $r: parent is not mpirun ($line)" ;; esac
                [ "$plib" = "$path" ] || add "rank $r: mpirun has '$plib', the rank '$path'"
                ;;
            pmixrun)
                case $line in *"parent=pmixrun "*) ;; *) add "rank $r: parent is not pmixrun ($line)" ;; esac
                ;;
        esac
    done
    [ "$(rank_lines "$log" | wc -l)" -eq $((NP * (8 + NP))) ] \
        || add "$(rank_lines "$log" | wc -l) rank lines, expected $((NP * (8 + NP)))"
}

# wanted <run>: the run is selected, or a selected comparison needs it
wanted() {
    selected "$1" && return 0
    case $1 in
        mpirun/openpmix) selected compare/pmixrun/rpmix || selected compare/mpirun/rpmix ;;
        *) selected "compare/$1" ;;
    esac
}

# run_case <name> <lib> <launcher> <env/cmd...>: runs the client with a marker argument.
declare -A LOGOK
run_case() {
    local name=$1 lib=$2 launcher=$3; shift 3
    wanted "$name" || return 0
    local log=$B/py-${name//\//-}.log marker; marker=$(new_marker "${name//\//-}")
    LOGOK[$name]=0
    if [ $have_py = 0 ]; then fail "$name" "python3-pmix missing" "$pre_log"; return; fi
    if [ "$launcher" = mpirun ] && [ $have_mpirun = 0 ]; then fail "$name" "no mpirun" "$pre_log"; return; fi
    run_timed "$log" "$@" "$PY" "$CLIENT" "$marker"
    check_run "$log" "$lib" "$launcher"
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; LOGOK[$name]=1; else fail "$name" "$why" "$log"; fi
}

MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np $NP)
run_case mpirun/openpmix openpmix mpirun env -u LD_LIBRARY_PATH "${MPIRUN[@]}"
run_case pmixrun/rpmix rpmix pmixrun env LD_LIBRARY_PATH="$RLIB" "$PMIXRUN" -n $NP
run_case mpirun/rpmix rpmix mpirun env LD_LIBRARY_PATH="$RLIB" "${MPIRUN[@]}"

# ---- the rpmix runs print what the OpenPMIx run printed ----
ref_log=$B/py-mpirun-openpmix.log
for name in pmixrun/rpmix mpirun/rpmix; do
    selected "compare/$name" || continue
    log=$B/py-${name//\//-}.log
    cmp_log=$B/py-compare-${name//\//-}.log
    if [ "${LOGOK[mpirun/openpmix]:-0}" != 1 ]; then
        fail "compare/$name" "the reference run mpirun/openpmix failed" "$ref_log"; continue
    fi
    if [ ! -f "$log" ]; then fail "compare/$name" "no run" "$pre_log"; continue; fi
    if diff <(rank_lines "$ref_log") <(rank_lines "$log") >"$cmp_log" 2>&1; then
        pass "compare/$name"
    else
        fail "compare/$name" "output differs from mpirun/openpmix (< openpmix, > rpmix)" "$cmp_log"
    fi
done

finish
