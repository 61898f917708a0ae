#!/bin/bash
# Newer consumers of libpmix.so.2 (issue 17): programs built against
# OpenPMIx 5.0.7's headers and Open MPI 5.0.7, in a Debian 13 root
# (tools/install-debian13.sh, cached outside the work tree), run on rpmix.
#
# The root is entered with chroot from a private mount namespace (its own
# /proc; /dev and /sys bound read-only where they can be; rpmix's build
# directory bound at /opt/rpmix/lib and the C sources at /opt/rpmix/src).
# Nothing is mounted over the host's own files; every process a case starts
# is ended by its marker.
#
# Cases (RPMIX_CASE, tools/testlib.sh, filters them):
#   helpers-vs-openpmix5  c-tests/v5_helpers.c built against OpenPMIx 5.0.7's
#                         headers (its macros call the functions 4.2.3+ export),
#                         run without a server on OpenPMIx 5.0.7 and on rpmix:
#                         the same lines, valgrind-clean on rpmix
#   exports-vs-openpmix5  c-tests/v5_exports.c, built the same way: calls the
#                         148 functions OpenPMIx 4.2.3-5.0.9 added
#                         (tools/exports-newer.txt) without a server. 143 of
#                         them run on OpenPMIx 5.0.7 and on rpmix: the same
#                         lines. Then, with V5_RPMIX_ONLY=1, rpmix alone under
#                         valgrind (leak-checked): the compared part again,
#                         rpmix's answers to inputs 5.0.7 crashes on (with
#                         PMIx_tool_set_server_module), and the four 5.0.9
#                         list functions (looked up with dlsym)
#   helpers-client        the same program as a client under pmixrun -n 2
#   ompi5/hello, ompi5/pubsub, ompi5/abort, ompi5/spawn (spawn: SKIP when it
#                         fails under Open MPI 5's own mpirun on OpenPMIx too)
#                         Open MPI 5.0.7 programs (c-tests/mpi) under pmixrun
#                         on rpmix; every rank names rpmix as its libpmix
#                         (spawn: 4 parents, 2 children, TCP over loopback)
#   ompi5/psets, opx5/psets
#                         c-tests/mpi/psets.c (MPI Sessions) under pmixrun
#                         with --pset on two app contexts, ranks on rpmix /
#                         on OpenPMIx 5.0.7: each lists its 3 sets, first
#                         and second, then dyn, defined by pmixctl meanwhile
#   prte/psets            the same program under mpirun --pset (one app):
#                         the reference, Open MPI's 3 sets only
#   opx5/hello, opx5/pubsub, opx5/spawn
#                         the same programs under pmixrun on rpmix with the
#                         ranks on the root's OpenPMIx 5.0.7 (issue 16)
#   opx5/tools            OpenPMIx 5.0.7's palloc and pctrl (libpmix-bin)
#                         against a persistent pmixrun: an allocation granted
#                         and one refused; a job paused, resumed, given a
#                         process set and killed
#   py5/bindings          OpenPMIx 5.0.7's Python bindings (python3-pmix)
#                         running c-tests/py/pmix_client.py under pmixrun:
#                         the same values with the ranks on OpenPMIx 5.0.7
#                         and on rpmix
#   prte/hello, prte/pubsub, prte/abort, prte/spawn
#                         the same programs under Open MPI 5's own mpirun
#                         (PRRTE on the root's OpenPMIx 5.0.7), the ranks
#                         alone on rpmix (mpirun -x LD_LIBRARY_PATH), after
#                         a reference run with OpenPMIx ranks (a case the
#                         reference fails is a SKIP)
#   prte/group            OpenPMIx's example group.c (construct with a
#                         context id, destruct), the same way
#   prte/pmixctl-stdin    pmixctl sends a line to rank 0's stdin through
#                         PRRTE (push, then the end of the input); rank 0
#                         reads it, mpirun exits 0
#   prte/alloc            c-tests/alloc_report.c (allocation requests, a
#                         PMIX_QUERY_ALLOC_STATUS query, session control)
#                         under Open MPI 5's own mpirun (PRRTE 3.0.8, no
#                         scheduler attached), the rank on OpenPMIx 5.0.7 and
#                         on rpmix: the statuses PRRTE answers, the same with
#                         either library (docs/compatibility.md)
#   prte/pmixctl          rpmix's pmixctl attached to PRRTE by its pid (the
#                         rendezvous file PRRTE writes under /tmp): `ps`
#                         lists the 2-rank job, `output --follow` receives
#                         the same 16 lines mpirun itself prints
#
# Usage: tools/newer-tests.sh [build-dir]    (run as root)
set -u
MARKER_PREFIX=rpmix-newer
T=${NEWER_TESTS_TIMEOUT:-90}
. "$(dirname "$0")/testlib.sh"
require_lib "$LIBDIR" "$B"

# Everything below the root's making runs inside one private mount namespace.
if [ -z "${RPMIX_NEWER_INSIDE:-}" ]; then
    log=$B/newer-root.log
    if ! R=$("$ROOT/tools/install-debian13.sh" 2>"$log" | tail -n 1) || [ ! -d "$R" ]; then
        fail root "the Debian 13 root could not be made" "$log"
        echo "$passed passed, $failed failed"
        exit 1
    fi
    exec env RPMIX_NEWER_INSIDE=1 RPMIX_NEWER_ROOT="$R" unshare -m --propagation private "$0" "$@"
fi
R=$RPMIX_NEWER_ROOT
pass root
mkdir -p "$R/opt/rpmix/lib" "$R/opt/rpmix/src" "$R/opt/rpmix/build"
mount -t proc proc "$R/proc" &&
mount --rbind /dev "$R/dev" &&
mount --bind /sys "$R/sys" &&
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" &&
mount --bind "$LIBDIR" "$R/opt/rpmix/lib" &&
mount -o remount,bind,ro "$R/opt/rpmix/lib" &&
mount --bind "$ROOT/c-tests" "$R/opt/rpmix/src" || { fail mounts "cannot set up the root's mounts" /dev/null; finish; }

# in_root <cmd...>: run inside the root, a clean environment
IN_ROOT=(chroot "$R" env -i PATH=/usr/bin:/bin HOME=/root)
in_root() { "${IN_ROOT[@]}" "$@"; }
# with_rpmix <cmd...>: inside the root, rpmix's library first
WITH_RPMIX=("${IN_ROOT[@]}" LD_LIBRARY_PATH=/opt/rpmix/lib)
with_rpmix() { "${WITH_RPMIX[@]}" "$@"; }

# ---- build (inside the root: its compilers, OpenPMIx 5.0.7's headers) ----
blog=$B/newer-build.log
: >"$blog"
built=1
in_root gcc -std=gnu99 -Wall -g -O1 -I/usr/lib/x86_64-linux-gnu/pmix2/include /opt/rpmix/src/v5_helpers.c -o /opt/rpmix/build/v5_helpers -lpmix >>"$blog" 2>&1 || built=0
in_root gcc -std=gnu99 -Wall -g -O1 -I/usr/lib/x86_64-linux-gnu/pmix2/include /opt/rpmix/src/v5_exports.c -o /opt/rpmix/build/v5_exports -lpmix -ldl >>"$blog" 2>&1 || built=0
for p in hello pubsub abort spawn psets; do
    in_root mpicc -g -O1 -I/opt/rpmix/src/mpi "/opt/rpmix/src/mpi/$p.c" -o "/opt/rpmix/build/$p" -ldl >>"$blog" 2>&1 || built=0
done
in_root gcc -std=gnu99 -Wall -g -O1 -I/usr/lib/x86_64-linux-gnu/pmix2/include /opt/rpmix/src/alloc_report.c -o /opt/rpmix/build/alloc_report -lpmix -lpthread >>"$blog" 2>&1 || built=0
# OpenPMIx's example group.c (the host's copy, 4.2.2's), against 5.0.7's headers
cp "$OEX_SRC/group.c" "$R/opt/rpmix/build/oex-group.c" &&
    in_root gcc -std=gnu99 -w -g -O1 -I/opt/rpmix/src/openpmix-examples -I/usr/lib/x86_64-linux-gnu/pmix2/include \
        /opt/rpmix/build/oex-group.c -o /opt/rpmix/build/oex-group -lpmix -lpthread >>"$blog" 2>&1 || built=0
if [ $built = 1 ]; then pass build; else fail build "compilation in the root failed" "$blog"; finish; fi
PMIXRUN_IN=/opt/rpmix/lib/pmixrun

# ---- the header helpers, without a server, on both libraries ----
case_helpers() {
    local name=helpers-vs-openpmix5 log=$B/newer-helpers.log
    selected "$name" || return 0
    why=""
    in_root /opt/rpmix/build/v5_helpers >"$B/newer-helpers-openpmix5.txt" 2>&1 || add "the OpenPMIx 5.0.7 run failed"
    with_rpmix /opt/rpmix/build/v5_helpers >"$B/newer-helpers-rpmix.txt" 2>&1 || add "the rpmix run failed"
    { echo "--- OpenPMIx 5.0.7:"; cat "$B/newer-helpers-openpmix5.txt"; echo "--- rpmix:"; cat "$B/newer-helpers-rpmix.txt"; } >"$log"
    grep -q '^done: ok$' "$B/newer-helpers-rpmix.txt" || add "rpmix: not every helper worked"
    diff "$B/newer-helpers-openpmix5.txt" "$B/newer-helpers-rpmix.txt" >>"$log" || add "the outputs differ"
    with_rpmix valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        /opt/rpmix/build/v5_helpers >>"$log" 2>&1 || add "valgrind reported errors on rpmix"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# ---- every function 4.2.3-5.0.9 added, without a server, on both libraries ----
# The OpenPMIx 5.0.7 run and the plain rpmix run must print the same lines;
# the V5_RPMIX_ONLY=1 run (rpmix, under valgrind) adds rpmix's own checks.
case_exports() {
    local name=exports-vs-openpmix5 log=$B/newer-exports.log
    local ref=$B/newer-exports-openpmix5.txt out=$B/newer-exports-rpmix.txt only=$B/newer-exports-rpmix-only.txt
    selected "$name" || return 0
    why=""
    in_root /opt/rpmix/build/v5_exports >"$ref" 2>&1 || add "the OpenPMIx 5.0.7 run failed"
    with_rpmix /opt/rpmix/build/v5_exports >"$out" 2>&1 || add "the rpmix run failed"
    with_rpmix V5_RPMIX_ONLY=1 valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        /opt/rpmix/build/v5_exports >"$only" 2>&1 || add "the rpmix-only run under valgrind failed (exit $?)"
    { echo "--- OpenPMIx 5.0.7:"; cat "$ref"; echo "--- rpmix:"; cat "$out"; echo "--- rpmix, V5_RPMIX_ONLY=1, valgrind:"; cat "$only"; echo "--- diff:"; } >"$log"
    grep -q '^done: ok$' "$ref" || add "OpenPMIx 5.0.7: no 'done: ok'"
    grep -q '^done: ok$' "$out" || add "rpmix: no 'done: ok'"
    grep -q '^rpmix-only: ok$' "$only" || add "rpmix: not every rpmix-only check passed"
    diff "$ref" "$out" >>"$log" || add "the outputs differ"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

case_helpers_client() {
    local name=helpers-client log=$B/newer-helpers-client.log marker; marker=$(new_marker client)
    selected "$name" || return 0
    why=""
    run_timed "$log" "${WITH_RPMIX[@]}" "$PMIXRUN_IN" --timeout 60 -n 2 /opt/rpmix/build/v5_helpers client "$marker"
    [ $RC -eq 0 ] || add "exit $RC"
    [ "$(grep -c '^v5_helpers client [01]/2: ok$' "$log")" = 2 ] || add "not both ranks ok"
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}

# ---- Open MPI 5.0.7 programs under pmixrun ----
# every rank prints its libpmix: rpmix's, from /opt/rpmix/lib
# pmixrun_case <group> <ranks' library: rpmix|openpmix> <name> <expected
# exit> <pattern count> <pattern> <program> [args]: the program, 4 ranks,
# under pmixrun on rpmix in the root; every rank names its library (its
# pmix= line, and its hello-lib line when HELLO_SHOW_LIB prints one).
pmixrun_case() {
    local name=$1/$3 lib=$2 want=$4 count=$5 pattern=$6 prog=$7 log marker
    marker=$(new_marker "$1-$3")
    log=$B/newer-$1-$3.log
    shift 7
    selected "$name" || return 0
    why=""
    local env=("${WITH_RPMIX[@]}") ver='pmix=rpmix'
    if [ "$lib" = openpmix ]; then env=("${IN_ROOT[@]}" OMPI_MCA_btl_tcp_if_include=lo) ver='pmix=OpenPMIx 5\.0\.7'; fi
    run_timed "$log" "${env[@]}" HELLO_SHOW_LIB=1 "$PMIXRUN_IN" --timeout 60 -n 4 "/opt/rpmix/build/$prog" "$@" "$marker"
    [ $RC -eq "$want" ] || add "exit $RC, expected $want"
    [ "$(grep -Ec "$pattern" "$log")" -ge "$count" ] || add "fewer than $count lines matching $pattern"
    if grep -E 'pmix=' "$log" | grep -vq "$ver"; then add "a rank loaded another libpmix"; fi
    if grep -q '^hello-lib' "$log"; then
        if [ "$lib" = rpmix ]; then
            grep '^hello-lib' "$log" | grep -vq '/opt/rpmix/lib/' && add "a rank's libpmix is not rpmix's"
        else
            grep '^hello-lib' "$log" | grep -q '/opt/rpmix/lib/' && add "a rank loaded rpmix's libpmix"
        fi
    fi
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
ompi_case() { pmixrun_case ompi5 rpmix "$@"; }

case_helpers
case_exports
case_helpers_client
ompi_case hello 0 4 '^hello [0-3]/4 pmix=rpmix' hello
ompi_case pubsub 0 1 '^pubsub ok \(both\)' pubsub both pubsub-newer
ompi_case abort 3 0 'never' abort

# MPI_Comm_spawn: parent and child jobs talk over Open MPI's TCP BTL, which
# by default leaves out loopback; on a host with no other IPv4 address (as
# this kind of machine is) they find no path to each other under any
# launcher. So the BTL is told to use loopback. Under pmixrun on rpmix; when
# that fails, the reference (mpirun, OpenPMIx 5.0.7, 30 s) is run, and a
# failure on both is a SKIP, not counted; rpmix alone failing is.
in_our_root() { local p; for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && echo "${p#/proc/}"; done; }
case_spawn() {
    local name=ompi5/spawn log=$B/newer-ompi5-spawn.log reflog=$B/newer-ompi5-spawn-openpmix5.log marker
    marker=$(new_marker ompi5-spawn)
    selected "$name" || return 0
    why=""
    run_timed "$log" "${WITH_RPMIX[@]}" OMPI_MCA_btl_tcp_if_include=lo "$PMIXRUN_IN" --timeout 60 -n 4 /opt/rpmix/build/spawn "$marker"
    if [ $RC -eq 0 ] && grep -Eq '^spawn ok: [0-9]+ parents, 2 children replied pmix=rpmix' "$log"; then
        leftovers "$marker" "$log" || add "processes left running"
        if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
        return
    fi
    T=30 run_timed "$reflog" "${IN_ROOT[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun --allow-run-as-root --oversubscribe --mca btl_tcp_if_include lo -np 4 /opt/rpmix/build/spawn "$marker-ref"
    local refrc=$RC
    # whatever the reference left (mpirun's daemons) inside our root goes
    leftovers "$R" "$reflog" in_our_root >/dev/null 2>&1
    if [ $refrc -ne 0 ] || ! grep -aEq '^spawn ok:' "$reflog"; then
        echo "SKIP: $name (fails on both: under Open MPI 5.0.7's own mpirun on OpenPMIx 5.0.7 too, exit $refrc; logs: $log, $reflog)"
        leftovers "$marker" "$log" >/dev/null 2>&1
        return
    fi
    add "fails on rpmix only (exit $RC), passes under mpirun on OpenPMIx 5.0.7"
    leftovers "$marker" "$log" || add "processes left running"
    fail "$name" "$why" "$log"
}
case_spawn

# OpenPMIx 5.0.7 clients under pmixrun on rpmix (issue 16: its clients
# still offer OpenPMIx 4.1's protocol, which rpmix's server speaks): the
# same Open MPI 5 programs, the ranks on the root's own libpmix (no
# LD_LIBRARY_PATH for them; pmixrun links none).
opx5_case() { pmixrun_case opx5 openpmix "$@"; }
opx5_case hello 0 4 '^hello [0-3]/4 pmix=OpenPMIx 5\.0\.7' hello
opx5_case pubsub 0 1 '^pubsub ok \(both\)' pubsub both pubsub-opx5
opx5_case spawn 0 1 '^spawn ok: 4 parents, 2 children replied pmix=OpenPMIx 5\.0\.7' spawn

# OpenPMIx 5.0.7's Python bindings (Debian 13's python3-pmix) running
# c-tests/py/pmix_client.py under pmixrun, 4 ranks: on the root's OpenPMIx
# 5.0.7 (the reference) and on rpmix; every rank OK, its library named in
# its maps, and the same values on both (the "rank R:" lines).
# (Debian 13's package installs the module inside an egg directory that
# Python does not search: `import pmix` fails out of the box, whatever the
# library; PYTHONPATH names that directory)
PY5_EGG=$(cd "$R" && ls -d usr/lib/python3/dist-packages/pypmix-*.egg 2>/dev/null | head -n 1)
py5_run() {  # py5_run <rpmix|openpmix> <log>
    local env=("${WITH_RPMIX[@]}")
    [ "$1" = openpmix ] && env=("${IN_ROOT[@]}")
    run_timed "$2" "${env[@]}" PYTHONPATH="/$PY5_EGG" "$PMIXRUN_IN" --timeout 60 -n 4 /usr/bin/python3 /opt/rpmix/src/py/pmix_client.py
}
case_py5() {
    local name=py5/bindings log=$B/newer-py5-rpmix.log ref=$B/newer-py5-openpmix5.log
    selected "$name" || return 0
    why=""
    py5_run openpmix "$ref"
    [ $RC = 0 ] && [ "$(grep -c '^rank [0-3]: OK$' "$ref")" = 4 ] || add "the reference (OpenPMIx 5.0.7) failed: exit $RC"
    grep '^info rank' "$ref" | grep -q '/opt/rpmix/lib/' && add "a reference rank loaded rpmix"
    py5_run rpmix "$log"
    [ $RC = 0 ] || add "exit $RC"
    [ "$(grep -c '^rank [0-3]: OK$' "$log")" = 4 ] || add "not 4 ranks OK"
    [ "$(grep '^info rank [0-3]:.*libpmix' "$log" | grep -c '/opt/rpmix/lib/')" = 4 ] || add "not every rank on rpmix's library"
    diff <(grep '^rank ' "$ref" | sort) <(grep '^rank ' "$log" | sort) >>"$log" || add "the values differ from OpenPMIx 5.0.7's"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
case_py5

# MPI Sessions' process sets (c-tests/mpi/psets.c) under pmixrun: two app
# contexts with --pset, then a set defined by pmixctl while the job runs; the
# ranks on rpmix (ompi5/psets) and on OpenPMIx 5.0.7 (opx5/psets). Every
# rank lists the 3 sets Open MPI makes itself, then first and second, then
# dyn too (MPI_Session_get_num_psets, MPI_Session_get_nth_pset). (No groups:
# Open MPI 5.0.7's MPI_Group_from_session_pset overwrites the group's size
# with the length of the set's name, docs/compatibility.md.)
# psets_want <rank> <names after mpix://SHARED...>: the lines of one listing
psets_want() {
    local r=$1 i=3 n; shift
    printf 'psets %s: num %s\n' "$r" $((3 + $#))
    printf 'psets %s: name 0 mpi://WORLD\npsets %s: name 1 mpi://SELF\npsets %s: name 2 mpix://SHARED\n' "$r" "$r" "$r"
    for n in "$@"; do printf 'psets %s: name %s %s\n' "$r" $i "$n"; i=$((i + 1)); done
}
psets_case() {  # psets_case <group> <rpmix|openpmix>
    local name=$1/psets lib=$2 log=$B/newer-$1-psets.log marker pid i r
    marker=$(new_marker "$1-psets")
    selected "$name" || return 0
    why=""
    local env=("${WITH_RPMIX[@]}")
    [ "$lib" = openpmix ] && env=("${IN_ROOT[@]}" OMPI_MCA_btl_tcp_if_include=lo)
    # (pmixrun's own pid: chroot and env exec it)
    "${env[@]}" "$PMIXRUN_IN" --timeout 60 -n 2 --pset first /opt/rpmix/build/psets wait "" "$marker" \
        : -n 2 --pset second /opt/rpmix/build/psets wait "" "$marker" >"$log" 2>&1 &
    pid=$!
    # (each rank says when it has listed the sets and waits for a new one)
    for i in $(seq 300); do [ "$(grep -ac ': ready$' "$log")" = 4 ] && break; sleep 0.1; done
    if [ "$(grep -ac ': ready$' "$log")" = 4 ]; then
        with_rpmix /opt/rpmix/lib/pmixctl --pid "$pid" pset define dyn 0,3 >"$log.ctl" 2>&1 || add "pmixctl pset define: exit $?"
    else
        add "the ranks did not get ready"
    fi
    wait "$pid" || add "pmixrun: exit $?"
    cat "$log.ctl" >>"$log" 2>/dev/null; rm -f "$log.ctl"
    for r in 0 1 2 3; do
        diff <(psets_want $r first second; echo "psets $r: ready"; psets_want $r first second dyn) <(grep -a "^psets $r: " "$log") >>"$log" || add "rank $r: not the sets expected"
    done
    leftovers "$marker" "$log" || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
psets_case ompi5 rpmix
psets_case opx5 openpmix

# ---- OpenPMIx 5.0.7's own tools against a persistent pmixrun ----
# palloc asks for an allocation (one node: granted from this machine's
# CPUs; five: more than there is); pctrl pauses and resumes a job's ranks,
# defines a process set, and kills the job. The tools keep the root's
# OpenPMIx 5.0.7; pmixrun runs on rpmix.
proc_state() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }
case_opx5_tools() {
    local name=opx5/tools log=$B/newer-opx5-tools.log pers job ns i ranks r st
    selected "$name" || return 0
    why=""
    : >"$log"
    for t in palloc pctrl; do in_root sh -c "command -v $t" >/dev/null || add "no $t in the root"; done
    if [ -n "$why" ]; then fail "$name" "$why" "$log"; return; fi
    # (chroot and env exec it: its pid is pmixrun's; a shell function would fork)
    "${WITH_RPMIX[@]}" "$PMIXRUN_IN" --persistent >"$log.pers" 2>&1 &
    pers=$!
    for i in $(seq 100); do ls "$R"/tmp/pmix.*.tool."$pers" >/dev/null 2>&1 && break; sleep 0.1; done
    ls "$R"/tmp/pmix.*.tool."$pers" >/dev/null 2>&1 || { add "the persistent pmixrun left no rendezvous file"; ls -la "$R/tmp" >>"$log"; }
    in_root timeout 30 palloc --pid "$pers" --nodes 1 >"$log.a1" 2>&1
    grep -q 'Allocation .* granted' "$log.a1" || add "palloc --nodes 1: not granted"
    in_root timeout 30 palloc --pid "$pers" --nodes 5 >"$log.a5" 2>&1
    grep -q 'failed: PMIX_ERR_OUT_OF_RESOURCE' "$log.a5" || add "palloc --nodes 5: not refused for resources"
    # a job of two sleeping ranks in it
    "${WITH_RPMIX[@]}" /opt/rpmix/lib/pmixctl --pid "$pers" run -n 2 /bin/sleep 60 >"$log.job" 2>&1 &
    job=$!
    ranks=""
    for i in $(seq 100); do
        ranks=$(pgrep -P "$pers" -x sleep | tr '\n' ' ')
        [ "$(echo $ranks | wc -w)" = 2 ] && break
        sleep 0.1
    done
    ns=$(with_rpmix /opt/rpmix/lib/pmixctl --pid "$pers" ps 2>>"$log" | awk '$1 ~ /\./ && $1 !~ /^rpmixrun\.[0-9]+$/ {print $1; exit}')
    echo "ranks: $ranks; namespace: $ns" >>"$log"
    if [ "$(echo $ranks | wc -w)" != 2 ] || [ -z "$ns" ]; then
        add "the job's ranks or namespace not found"
    else
        in_root timeout 30 pctrl --pid "$pers" --pause --targets "$ns:*" >>"$log" 2>&1
        grep -q 'Job control .* granted\|Job control request .* granted' "$log" || add "pctrl --pause: not granted"
        for r in $ranks; do
            for i in $(seq 50); do [ "$(proc_state "$r")" = T ] && break; sleep 0.1; done
            st=$(proc_state "$r"); [ "$st" = T ] || add "rank $r not stopped by pctrl --pause ($st)"
        done
        in_root timeout 30 pctrl --pid "$pers" --resume --targets "$ns:*" >>"$log" 2>&1
        for r in $ranks; do
            for i in $(seq 50); do [ "$(proc_state "$r")" = S ] && break; sleep 0.1; done
            st=$(proc_state "$r"); [ "$st" = S ] || add "rank $r not resumed by pctrl --resume ($st)"
        done
        in_root timeout 30 pctrl --pid "$pers" --pset tooldef --targets "$ns:0" >"$log.pset" 2>&1
        grep -q 'DEFINE PSET granted' "$log.pset" || add "pctrl --pset: not granted"
        in_root timeout 30 pctrl --pid "$pers" --kill --targets "$ns:*" >>"$log" 2>&1
        for i in $(seq 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$job" 2>/dev/null && add "pctrl --kill: the job did not end"
    fi
    cat "$log.a1" "$log.a5" "$log.pset" "$log.job" >>"$log" 2>/dev/null
    kill "$job" 2>/dev/null; wait "$job" 2>/dev/null
    kill -TERM "$pers" 2>/dev/null; wait "$pers" 2>/dev/null
    cat "$log.pers" >>"$log" 2>/dev/null
    rm -f "$log.a1" "$log.a5" "$log.pset" "$log.job" "$log.pers"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
case_opx5_tools

# ---- under Open MPI 5's own mpirun: PRRTE on OpenPMIx 5.0.7 (issue 15, 17) ----
# The launcher keeps the root's OpenPMIx 5.0.7; only the ranks get rpmix
# (mpirun -x LD_LIBRARY_PATH). Each case runs with OpenPMIx ranks first
# (the reference): a case the reference fails is a SKIP.
MPIRUN_IN=("${IN_ROOT[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --allow-run-as-root --oversubscribe)
# PRTE_OPTS: more mpirun words for every run of the case; PRTE_RPMIX_OPTS:
# for the rpmix run only.
prte_case() {  # prte_case <name> <expected exit> <pattern count> <pattern> <program> [args]
    local name=prte/$1 want=$2 count=$3 pattern=$4 prog=$5 lib log marker ref_why=""
    shift 5
    selected "$name" || return 0
    for lib in openpmix rpmix; do
        log=$B/newer-prte-${name#prte/}.$lib.log
        marker=$(new_marker "prte-$lib")
        local x=(-x HELLO_SHOW_LIB=1) opts
        [ $lib = rpmix ] && x+=(-x LD_LIBRARY_PATH=/opt/rpmix/lib)
        read -ra opts <<<"${PRTE_OPTS:-}"; x+=("${opts[@]}")
        [ $lib = rpmix ] && { read -ra opts <<<"${PRTE_RPMIX_OPTS:-}"; x+=("${opts[@]}"); }
        why=""
        # (4 slots: group.c wants a universe of 4 on this 2-core host)
        T=45 run_timed "$log" "${MPIRUN_IN[@]}" --host "$(hostname):4" "${x[@]}" -np 4 "/opt/rpmix/build/$prog" "$@" "$marker"
        [ $RC -eq "$want" ] || add "exit $RC, expected $want"
        [ "$(grep -aEc "$pattern" "$log")" -ge "$count" ] || add "fewer than $count lines matching $pattern"
        grep -aq 'failed: ' "$log" && add "$(grep -a -m1 'failed: ' "$log")"
        if [ $lib = rpmix ]; then
            if grep -a 'pmix=' "$log" | grep -avq 'pmix=rpmix'; then add "a rank loaded another libpmix"; fi
            if grep -aq '^hello-lib' "$log" && grep -a '^hello-lib' "$log" | grep -avq '/opt/rpmix/lib/'; then add "a rank's libpmix is not rpmix's"; fi
        elif grep -a 'pmix=' "$log" | grep -aq 'pmix=rpmix'; then add "a reference rank loaded rpmix"
        fi
        if ! leftovers "$R" "$log" in_our_root >/dev/null 2>&1 && [ $lib = rpmix ]; then add "processes left running"; fi
        if [ $lib = openpmix ] && [ -n "$why" ]; then
            echo "SKIP: $name (fails with OpenPMIx ranks too: $why; log: $log)"
            return 0
        fi
    done
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "rpmix ranks: $why" "$log"; fi
}
prte_case hello 0 4 '^hello [0-3]/4 pmix=' hello
prte_case pubsub 0 1 '^pubsub ok \(both\)' pubsub both pubsub-prte
prte_case abort 3 0 'never' abort
# MPI_Comm_spawn: PRRTE does not hand mpirun's -x to the spawned job, so the
# children would run on OpenPMIx 5.0.7, and prterun then dies of SIGSEGV in
# the connect (its bug, docs/compatibility.md, "Open MPI 5 and PRRTE"); the parents pass
# the library on with the PMIX_ENVAR spawn key (spawn.c's SPAWN_CHILD_ENV).
# Loopback for the TCP BTL as under pmixrun above.
PRTE_OPTS="--mca btl_tcp_if_include lo" PRTE_RPMIX_OPTS="-x SPAWN_CHILD_ENV=LD_LIBRARY_PATH=/opt/rpmix/lib" \
    prte_case spawn 0 1 '^spawn ok: 4 parents, 2 children replied pmix=' spawn
# PMIx groups: PRRTE has the group upcall (no host on the system's 4.2.2
# does); ranks 0, 2, 3 construct a group with a context id and destruct it
# (5.0's servers want the members back at destruction, 4.2's do not)
prte_case group 0 3 'Group construct complete' oex-group

# The same program under Open MPI 5's mpirun --pset (PRRTE 3.0.8 on OpenPMIx
# 5.0.7; one app context: with --pset on two, prterun dies of SIGSEGV before
# starting them), the ranks on OpenPMIx 5.0.7 and on rpmix: the reference
# for what Open MPI 5.0.7 lists there. Only its own 3 sets: PRRTE answers
# PMIX_QUERY_NUM_PSETS alone, which Open MPI reads into a NULL pointer
# (PMIx_Value_unload refuses it, with either library), so it never asks
# for the names.
case_prte_psets() {
    local lib log marker r
    selected prte/psets || return 0
    why=""
    for lib in openpmix rpmix; do
        log=$B/newer-prte-psets.$lib.log
        marker=$(new_marker "prte-psets-$lib")
        local x=()
        [ $lib = rpmix ] && x=(-x LD_LIBRARY_PATH=/opt/rpmix/lib)
        T=45 run_timed "$log" "${MPIRUN_IN[@]}" --host "$(hostname):4" "${x[@]}" --pset first -np 2 /opt/rpmix/build/psets once "" "$marker"
        [ $RC -eq 0 ] || add "$lib ranks: exit $RC"
        for r in 0 1; do
            diff <(psets_want $r) <(grep -a "^psets $r: " "$log") >>"$log" || add "$lib ranks: rank $r lists other sets"
        done
        leftovers "$R" "$log" in_our_root >/dev/null 2>&1
    done
    if [ -z "$why" ]; then pass prte/psets; else fail prte/psets "$why" "$log"; fi
}
case_prte_psets

# Allocation requests and session control under PRRTE 3.0.8 (Open MPI 5's
# mpirun, no scheduler attached), the rank on OpenPMIx 5.0.7 and on rpmix:
# every request PMIX_ERR_NOT_SUPPORTED (PRRTE hands them to a scheduler and
# has none), the PMIX_QUERY_ALLOC_STATUS query PMIX_ERR_NOT_FOUND ("Query
# for unrecognized attribute"); the status numbers (the names' spelling
# differs between the libraries).
case_prte_alloc() {
    local lib log marker
    selected prte/alloc || return 0
    why=""
    for lib in openpmix rpmix; do
        log=$B/newer-prte-alloc.$lib.log
        marker=$(new_marker "prte-alloc-$lib")
        local x=()
        [ $lib = rpmix ] && x=(-x LD_LIBRARY_PATH=/opt/rpmix/lib)
        T=45 run_timed "$log" "${MPIRUN_IN[@]}" --host "$(hostname):4" "${x[@]}" -np 1 /opt/rpmix/build/alloc_report "$marker"
        [ $RC -eq 0 ] || add "$lib rank: exit $RC"
        diff <(printf '%s\n' 'new 1 cpu: -47' 'new 5 nodes: -47' 'extend: -47' 'query status: -46' 'release: -47' \
                   'session signal 0: -47' 'session preempt: -47') \
             <(sed -En 's/^([a-z0-9 ]+): .*\((-?[0-9]+)\).*$/\1: \2/p' "$log") >>"$log" || add "$lib rank: other statuses"
        if [ $lib = rpmix ]; then grep -aq '^library: rpmix' "$log" || add "the rank did not load rpmix"; fi
        leftovers "$R" "$log" in_our_root >/dev/null 2>&1
    done
    if [ -z "$why" ]; then pass prte/alloc; else fail prte/alloc "$why" "$log"; fi
}
case_prte_alloc

# rpmix's tool (pmixctl) attached to PRRTE, an OpenPMIx 5.0.7 server with
# tool support, found by its pid (PRRTE's rendezvous file, under /tmp): `ps`
# lists the job with its size, `output --follow` receives every line the
# ranks write, the same lines mpirun itself prints.
# prterun_up: waits up to 10 s for the prterun in our root and its tool
# rendezvous file; PRTE_PID and PRTE_FILE (as seen from outside the root).
prterun_up() {
    local i p
    PRTE_PID="" PRTE_FILE=""
    for i in $(seq 100); do
        PRTE_PID=$(for p in $(in_our_root); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = prterun ] && echo "$p"; done | head -n1)
        [ -n "$PRTE_PID" ] && PRTE_FILE=$(ls "$R"/tmp/prterun.*/pmix.*.tool."$PRTE_PID" 2>/dev/null | head -n1) && [ -n "$PRTE_FILE" ] && return 0
        sleep 0.1
    done
    return 1
}
case_prte_tool() {
    local name=prte/pmixctl log=$B/newer-prte-pmixctl.log job=$B/newer-prte-pmixctl.job
    local marker; marker=$(new_marker prte-tool)
    selected "$name" || return 0
    why=""
    printf '#!/bin/sh\n# %s\nfor i in 1 2 3 4 5 6 7 8; do echo "tick $i of rank $OMPI_COMM_WORLD_RANK"; sleep 0.4; done\n' "$marker" >"$R/opt/rpmix/build/tick.sh"
    chmod +x "$R/opt/rpmix/build/tick.sh"
    "${MPIRUN_IN[@]}" -np 2 /opt/rpmix/build/tick.sh "$marker" >"$job" 2>&1 </dev/null &
    local jobpid=$! pid f
    : >"$log"
    if ! prterun_up; then
        add "no PRRTE rendezvous file (prterun pid '${PRTE_PID}')"
    else
        pid=$PRTE_PID f=$PRTE_FILE
        echo "prterun pid $pid, rendezvous file ${f#"$R"}" >>"$log"
        "${WITH_RPMIX[@]}" timeout 20 /opt/rpmix/lib/pmixctl --pid "$pid" ps >"$log.ps" 2>&1 || add "pmixctl ps: exit $?"
        grep -Eq $'^prterun-[^\t]+@1\t2 ranks$' "$log.ps" || add "pmixctl ps did not list the 2-rank job"
        "${WITH_RPMIX[@]}" timeout 20 /opt/rpmix/lib/pmixctl --pid "$pid" output --follow >"$log.out" 2>"$log.err" || add "pmixctl output: exit $?"
        { echo "--- ps:"; cat "$log.ps"; echo "--- output:"; cat "$log.out"; echo "--- stderr:"; cat "$log.err"; } >>"$log"
    fi
    wait "$jobpid" || add "mpirun: exit $?"
    { echo "--- mpirun's own output:"; cat "$job"; } >>"$log"
    local want got
    want=$(grep -a '^tick ' "$job" | sort)
    got=$(grep -a '^tick ' "$log.out" 2>/dev/null | sort)
    [ "$(echo "$want" | grep -c .)" = 16 ] || add "mpirun printed $(echo "$want" | grep -c .) of 16 lines"
    [ "$want" = "$got" ] || add "pmixctl received $(echo "$got" | grep -c .) lines, not mpirun's 16"
    rm -f "$log.ps" "$log.out" "$log.err"
    leftovers "$R" "$log" in_our_root >/dev/null 2>&1 || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
case_prte_tool

# pmixctl feeds rank 0's stdin through PRRTE (IOF push, then the end of the
# input); mpirun's own stdin is held open and silent meanwhile.
case_prte_stdin() {
    local name=prte/pmixctl-stdin log=$B/newer-prte-pmixctl-stdin.log job=$B/newer-prte-pmixctl-stdin.job
    local marker; marker=$(new_marker prte-stdin)
    selected "$name" || return 0
    why=""
    printf '#!/bin/sh\n# %s\nread l; echo "rank $OMPI_COMM_WORLD_RANK read: $l"\n' "$marker" >"$R/opt/rpmix/build/readline.sh"
    chmod +x "$R/opt/rpmix/build/readline.sh"
    local fifo=$B/newer-prte-stdin.fifo
    rm -f "$fifo"; mkfifo "$fifo"
    "${MPIRUN_IN[@]}" -np 1 /opt/rpmix/build/readline.sh "$marker" <"$fifo" >"$job" 2>&1 &
    local jobpid=$! i
    exec 9>"$fifo"   # (held open, silent, until the end)
    if ! prterun_up; then add "no PRRTE rendezvous file (prterun pid '${PRTE_PID}')"
    else
        echo "to rank 0 $marker" | "${WITH_RPMIX[@]}" timeout 20 /opt/rpmix/lib/pmixctl --pid "$PRTE_PID" stdin --rank 0 >"$log" 2>&1 || add "pmixctl stdin: exit $?"
    fi
    for i in $(seq 100); do grep -aq 'read: ' "$job" && break; sleep 0.1; done
    exec 9>&-
    wait "$jobpid" || add "mpirun: exit $?"
    rm -f "$fifo"
    { echo "--- mpirun's output:"; cat "$job"; } >>"$log"
    grep -aq "^rank 0 read: to rank 0 $marker\$" "$job" || add "rank 0 did not read the line pmixctl sent"
    leftovers "$R" "$log" in_our_root >/dev/null 2>&1 || add "processes left running"
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why" "$log"; fi
}
case_prte_stdin

finish
