#!/bin/bash
# The cases not yet written as system tests of their own (systests/tests/*.rs):
# each step here is one test there (legacy_step in systests/src/lib.rs, in
# the area file's `step` module), which runs this script for that step alone.
# A step prints PASS/FAIL; the last line is "N passed, M failed".
#
#   tools/run-tests.sh [BUILD_DIR]     every step (BUILD_DIR: c-tests/build)
#   tools/run-tests.sh --list          the step names, one per line
#   tools/run-tests.sh --check         only check RPMIX_ONLY names a step
#
# Environment:
#   RPMIX_ONLY=<step>  run that step only; an unknown step fails at once,
#                   listing the steps
#   RPMIX_LIBDIR, RPMIX_PMIXRUN, CC: as in tools/testlib.sh
# The C test programs are compiled once (build_once, tools/testlib.sh) into
# $RPMIX_BIN (default BUILD_DIR).
set -u
MODE=run
case ${1:-} in
    --list) MODE=list; shift ;;
    --check) MODE=check; shift ;;
    -*) echo "usage: $0 [--list | --check] [BUILD_DIR]"; exit 2 ;;
esac
. "$(dirname "$0")/testlib.sh" "$@"
cd "$ROOT"
LIB=$LIBDIR/libpmix.so.2
REF_LIB=/usr/lib/x86_64-linux-gnu/libpmix.so.2
STRICT="-Wall -Wextra -pedantic -Werror -g"
VALGRIND="valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite"
FAIL_TAIL=30
ONLY_STEP=""
STEP_NAMES=()

step() {  # step <name> <command...>: runs it (all, or RPMIX_ONLY's step), its output in $B/<name>.log
    local name=$1; shift
    case $MODE in list|names) STEP_NAMES+=("$name"); return 0 ;; esac
    [ -n "$ONLY_STEP" ] && [ "$name" != "$ONLY_STEP" ] && return 0
    local log="$B/$name.log"
    if "$@" >"$log" 2>&1; then pass "$name"; else fail "$name" "" "$log"; fi
}

# C programs: built against our headers (strict C99) and against OpenPMIx's (gnu99:
# OpenPMIx's headers use strdup without asking for it), each once (build_once).
build_ours() { build_c "$1_ours" "$1" -g; }
build_ref()  { build_once --stderr "$B/$1_ref.warnings" "$BIN/$1_ref" $CC -std=gnu99 -Wall -Wextra -I"$REF_INC" "$ROOT/c-tests/$1.c" -o "$BIN/$1_ref" -l:libpmix.so.2 -g; }
with_ours()  { LD_LIBRARY_PATH="$LIBDIR" "$@"; }


# ---- multi-process: the C resource manager and pmixrun ----
build_mp() {  # the C host and clients, against both header sets (as the other drivers build them)
    local p
    for p in rm_simple client_basic client_abort client_missing client_semantics demo_job client_cred; do
        build_prog "$p" || return 1
        build_prog_refh "$p" 2>/dev/null || return 1
    done
}
t_rm_openpmix() {
    # The C resource manager, built against OpenPMIx's headers, on OpenPMIx's library.
    build_mp && timeout 60 "$BIN/rm_simple_refh" -n 4 "$BIN/client_basic_refh" 4
}
t_rm_rpmix() {
    # The same C resource manager on rpmix, in every answering style, 8 ranks.
    build_mp || return 1
    for mode in "-m direct" "-m imm" "-m defer" "-m direct -s"; do
        with_ours timeout 60 "$BIN/rm_simple" $mode -n 8 "$BIN/client_basic" 8 || { echo "mode $mode failed"; return 1; }
        with_ours timeout 60 "$BIN/rm_simple_refh" $mode -n 8 "$BIN/client_basic_refh" 8 || { echo "mode $mode (OpenPMIx headers) failed"; return 1; }
    done
    # credentials through the host's get/validate upcalls (rm_simple's toy scheme)
    local n
    n=$(with_ours timeout 60 "$BIN/rm_simple" -n 4 "$BIN/client_cred" | grep -c '^client_cred: rank [0-3]: all checks passed')
    [ "$n" = 4 ] || { echo "client_cred: $n of 4 ranks passed"; return 1; }
}
t_rm_abort() {
    build_mp || return 1
    with_ours timeout 60 "$BIN/rm_simple" -n 4 "$BIN/client_abort"; rc=$?
    [ $rc = 7 ] || { echo "exit code $rc, expected 7"; return 1; }
}
t_rm_missing() {
    # The same cases on both libraries, answers and timings compared. One
    # difference on purpose (docs/differences.md): a key of one's own rank that was never
    # put answers NOT_FOUND at once on rpmix (OpenPMIx waits for a commit of
    # the caller's own, then TIMEOUT).
    build_mp || return 1
    timeout 60 "$BIN/rm_simple_refh" -n 2 "$BIN/client_missing_refh" | grep '^client_missing' >"$B/missing_openpmix.txt" || return 1
    with_ours timeout 60 "$BIN/rm_simple" -n 2 "$BIN/client_missing" | grep '^client_missing' | tee "$B/missing_rpmix.txt" || return 1
    local own='own rank, key missing.nokey'
    diff <(grep -v "$own" "$B/missing_openpmix.txt") <(grep -v "$own" "$B/missing_rpmix.txt") || { echo "answers differ from OpenPMIx's"; return 1; }
    [ "$(grep -c "$own" "$B/missing_rpmix.txt")" -ge 5 ] && ! grep "$own" "$B/missing_rpmix.txt" | grep -vq 'NOT-FOUND (fast)' || { echo "own-rank answers"; return 1; }
    echo "same answers as OpenPMIx but for the own-rank missing key (NOT_FOUND at once)"
}
t_rm_inline_16() {
    # A host that completes every upcall inside the upcall, 16 ranks; and a
    # faulty one that completes each twice (the duplicate is ignored).
    build_mp || return 1
    for mode in direct twice; do
        with_ours timeout 90 "$BIN/rm_simple" -m $mode -n 16 "$BIN/client_basic" 16 >"$B/inline_$mode.out" 2>&1 || { echo "mode $mode failed:"; tail "$B/inline_$mode.out"; return 1; }
        with_ours timeout 90 "$BIN/rm_simple_refh" -m $mode -n 16 "$BIN/client_basic_refh" 16 >>"$B/inline_$mode.out" 2>&1 || { echo "mode $mode (OpenPMIx headers) failed"; return 1; }
    done
    echo "16 ranks, every upcall completed inline (and twice): passed"
}
t_scale() {
    # Issue 18: one namespace of 65,536 ranks, 8 of them here, on a C host
    # that completes every upcall inline and registers each client just
    # before starting it. Each client reports the job size, the host of the
    # first and of the last rank, its local peers, and fences the whole
    # namespace. The values must be the expected ones and the same on both
    # libraries. Then on rpmix alone (OpenPMIx takes minutes there): 64 ranks
    # five times (clients fenced before their peers were registered, which
    # lost whole fences before), with -d (upcalls answered
    # OPERATION_SUCCEEDED), and 1,048,576 ranks (8 here, 128 on each of 8,192
    # other nodes). Values only: the timings are `make bench`'s.
    build_ref scale_host && build_ref scale_client || return 1
    local host lib out n want last
    host=$(hostname)
    values() { sed -n 's/^\(rank=[0-9]*\) \(size=[0-9]* first_host=[^ ]* last_host=[^ ]* local_peers=[0-9]*\) .*/\1 \2/p' "$1" | sort -t= -k2 -n; }
    expect() { # expect <out> <nprocs> <last host>: 8 clients, every value right
        local i w=""
        for i in 0 1 2 3 4 5 6 7; do w+="rank=$i size=$2 first_host=$host last_host=$3 local_peers=8"$'\n'; done
        diff <(printf '%s' "$w") <(values "$1") || { echo "$1: values differ from the expected ones"; return 1; }
    }
    for lib in openpmix rpmix; do
        out=$B/scale_64k_$lib.out
        if [ $lib = rpmix ]; then
            with_ours timeout 300 "$BIN/scale_host_ref" -N 65536 -t 240 -- "$BIN/scale_client_ref" >"$out" 2>"$out.err"
        else
            env -u LD_LIBRARY_PATH timeout 300 "$BIN/scale_host_ref" -N 65536 -t 240 -- "$BIN/scale_client_ref" >"$out" 2>"$out.err"
        fi || { echo "N=65536 on $lib: exit $?"; tail "$out.err"; return 1; }
        expect "$out" 65536 sn008191 || return 1
    done
    diff <(values "$B/scale_64k_openpmix.out") <(values "$B/scale_64k_rpmix.out") || { echo "the libraries answer differently"; return 1; }
    echo "N=65536: the same values on both libraries:"; values "$B/scale_64k_rpmix.out"
    for n in 1 2 3 4 5 d; do
        out=$B/scale_64_$n.out
        with_ours timeout 60 "$BIN/scale_host_ref" -N 64 -t 50 $([ $n = d ] && echo -d) -- "$BIN/scale_client_ref" >"$out" 2>"$out.err" || { echo "N=64 run $n: exit $?"; tail "$out.err"; return 1; }
        expect "$out" 64 sn000007 || return 1
    done
    echo "N=64: 6 runs, every fence completed"
    out=$B/scale_1m.out
    with_ours timeout 300 "$BIN/scale_host_ref" -N 1048576 -p 128 -t 240 -- "$BIN/scale_client_ref" >"$out" 2>"$out.err" || { echo "N=1048576: exit $?"; tail "$out.err"; return 1; }
    last=$(sed -n 's/^host .*last_host=\([^ ]*\).*/\1/p' "$out")
    [ "$last" = sn008192 ] || { echo "N=1048576: the host says the last node is '$last'"; return 1; }
    expect "$out" 1048576 "$last" || return 1
    echo "N=1048576: every value right"
    # A collecting fence whose answer is larger than a default frame (64
    # MiB): 4 clients of a 4,096-rank job each put 17 MiB, and each reads
    # back and checks every byte of all 4 (rpmix takes answers up to 64 MiB
    # plus 4 KiB a rank). OpenPMIx 4.2.2 fails that fence (UNREACHABLE; it
    # passes at 3 MiB a rank); the same program with 1 MiB a rank passes on both.
    blob() { # blob <lib> <bytes each>
        local out=$B/scale_blob_$1.out
        if [ "$1" = rpmix ]; then
            SCALE_BLOB_BYTES=$2 with_ours timeout 120 "$BIN/scale_host_ref" -N 4096 -c 4 -t 100 -- "$BIN/scale_client_ref" >"$out" 2>"$out.err"
        else
            SCALE_BLOB_BYTES=$2 env -u LD_LIBRARY_PATH timeout 120 "$BIN/scale_host_ref" -N 4096 -c 4 -t 100 -- "$BIN/scale_client_ref" >"$out" 2>"$out.err"
        fi || { echo "fence of 4 x $2 bytes on $1: exit $?"; tail "$out.err"; return 1; }
        [ "$(grep -c "^blob rank=[0-3] bytes=$2 peers_checked=4 " "$out")" = 4 ] || { echo "fence of 4 x $2 bytes on $1: not every client checked its 4 peers"; cat "$out"; return 1; }
        echo "$1: a collecting fence of 4 x $2 bytes, every byte checked by every client"
    }
    blob openpmix $((1 << 20)) && blob rpmix $((1 << 20)) && blob rpmix $((17 << 20))
}
t_semantics() {
    # Call orders and inputs as OpenPMIx answers them, under the C host (which
    # has no log, group or query upcall): the same lines on both libraries.
    # rpmix also writes the PMIX_LOG_STDERR line to the host's stderr
    # (OpenPMIx 4.2.2 answers SUCCESS and writes nothing).
    build_mp || return 1
    timeout 60 "$BIN/rm_simple_refh" -n 2 "$BIN/client_semantics_refh" >"$B/semantics_openpmix.txt" 2>"$B/semantics_openpmix.err" || { echo "OpenPMIx run failed"; return 1; }
    with_ours timeout 60 "$BIN/rm_simple" -n 2 "$BIN/client_semantics" >"$B/semantics_rpmix.txt" 2>"$B/semantics_rpmix.err" || { echo "rpmix run failed"; cat "$B/semantics_rpmix.txt"; return 1; }
    [ "$(grep -c '^client_semantics: [a-z-]*:' "$B/semantics_openpmix.txt")" = 7 ] || { echo "OpenPMIx run incomplete:"; cat "$B/semantics_openpmix.txt"; return 1; }
    # (sorted: both ranks print their reserved-peer-key line at the same time)
    diff <(grep '^client_semantics: [a-z-]*:' "$B/semantics_openpmix.txt" | sort) <(grep '^client_semantics: [a-z-]*:' "$B/semantics_rpmix.txt" | sort) || { echo "answers differ"; return 1; }
    grep -q '^client_semantics: a line logged by rank 0$' "$B/semantics_rpmix.err" || { echo "the logged line did not reach the host's stderr"; return 1; }
    cat "$B/semantics_rpmix.txt"
}
t_callbacks() {
    # _nb callbacks never run inside the call, fire once on success and never
    # on an error; a blocking Register_event_handler returns the reference.
    # A singleton (no server) on both libraries: rpmix must print "ok" for
    # every call; OpenPMIx 4.2.2 runs some callbacks inline (docs/differences.md).
    build_ref client_callbacks || return 1
    env -i PATH="$PATH" timeout 60 "$BIN/client_callbacks_ref" >"$B/callbacks_openpmix.txt" 2>&1 || { echo "OpenPMIx run failed"; cat "$B/callbacks_openpmix.txt"; return 1; }
    env -i PATH="$PATH" LD_LIBRARY_PATH="$LIBDIR" timeout 60 "$BIN/client_callbacks_ref" >"$B/callbacks_rpmix.txt" 2>&1 || { echo "rpmix run failed"; cat "$B/callbacks_rpmix.txt"; return 1; }
    echo "OpenPMIx 4.2.2:"; cat "$B/callbacks_openpmix.txt"; echo "rpmix:"; cat "$B/callbacks_rpmix.txt"
    # the same calls on both, and every one right on rpmix
    diff <(cut -d: -f1 "$B/callbacks_openpmix.txt") <(cut -d: -f1 "$B/callbacks_rpmix.txt") || { echo "not the same calls"; return 1; }
    [ "$(grep -c ': ok$' "$B/callbacks_rpmix.txt")" = 7 ] || { echo "rpmix: a callback misbehaved"; return 1; }
    grep -qx 'Register_event_handler blocking: a reference' "$B/callbacks_rpmix.txt" &&
    grep -qx 'Register_event_handler blocking: a reference' "$B/callbacks_openpmix.txt" || { echo "blocking registration differs"; return 1; }
}
t_modex() {
    # What a fence carries to the host and when peers' data is fetched on
    # demand (rm_simple -p: a phantom rank on a second node), upcall by upcall
    # as the host logs them, on both libraries: a fence without
    # PMIX_COLLECT_DATA carries no data (ndata=0), a collecting one carries
    # the committed data, and a Get of the phantom's key is one direct_modex.
    build_c_refh client_modex_refh client_modex -Werror -lpthread || return 1
    build_mp || return 1
    pattern() {  # the host's upcalls, payload sizes as zero / non-zero
        grep -E 'upcall (fence_nb|direct_modex)|all ranks done|^client_modex' "$1" |
            sed -E -e 's/rm\.[0-9]+/rm.N/g' -e 's/ndata=[1-9][0-9]*/ndata>0/' -e 's/ninfo=[0-9]+ \[.*pmix\.collect=(true|false).*\]/collect=\1/' -e 's/^rm_simple: //'
    }
    local m
    for m in nocollect collect; do
        timeout 60 "$BIN/rm_simple_refh" -p -v -n 2 "$BIN/client_modex_refh" $m >"$B/modex_$m.openpmix" 2>&1 || { echo "OpenPMIx, $m: failed"; tail "$B/modex_$m.openpmix"; return 1; }
        with_ours timeout 60 "$BIN/rm_simple" -p -v -n 2 "$BIN/client_modex_refh" $m >"$B/modex_$m.rpmix" 2>&1 || { echo "rpmix, $m: failed"; tail "$B/modex_$m.rpmix"; return 1; }
        diff <(pattern "$B/modex_$m.openpmix") <(pattern "$B/modex_$m.rpmix") || { echo "$m: the upcalls differ from OpenPMIx's"; return 1; }
        pattern "$B/modex_$m.rpmix"
    done
}
t_load_topology() {
    # PMIx_Load_topology walked with hwloc by a client built against
    # OpenPMIx's headers, and PMIx_Compute_distances[_nb] from its CPUs to
    # the machine's devices: the same lines on both libraries (rpmix's run
    # under valgrind); the hwloc object offsets rpmix reads match hwloc.h; then, on rpmix only, a load after the destruct (OpenPMIx
    # 4.2.2 hands back the topology it destroyed and crashes).
    build_c_refh client_topology_refh client_topology -Werror -g -lhwloc || return 1
    build_mp || return 1
    timeout 60 "$BIN/rm_simple_refh" -n 1 "$BIN/client_topology_refh" >"$B/topology_openpmix.txt" || { echo "OpenPMIx run failed"; cat "$B/topology_openpmix.txt"; return 1; }
    with_ours timeout 120 "$BIN/rm_simple" -n 1 $VALGRIND "$BIN/client_topology_refh" >"$B/topology_rpmix.txt" || { echo "rpmix run failed (or valgrind found errors)"; cat "$B/topology_rpmix.txt"; return 1; }
    # (no GPU here: rpmix answers NOT-FOUND; OpenPMIx 4.2.2 then asks its
    # server, fails to pack the request and answers ERROR)
    diff <(grep -v 'distances GPU only' "$B/topology_openpmix.txt") <(grep -v 'distances GPU only' "$B/topology_rpmix.txt") || { echo "differs from OpenPMIx"; return 1; }
    grep -q '^client_topology: distances (own hwloc bitmap) SUCCESS n=[1-9]' "$B/topology_rpmix.txt" || grep -q '^client_topology: distances (own hwloc bitmap) NOT-FOUND n=0' "$B/topology_openpmix.txt" || { echo "no distances where OpenPMIx has some"; return 1; }
    grep -qx 'client_topology: distances GPU only \(NOT-FOUND n=0\|SUCCESS n=[1-9][0-9]*\)' "$B/topology_rpmix.txt" || { echo "GPU-only distances: $(grep 'GPU only' "$B/topology_rpmix.txt")"; return 1; }
    # the hwloc object offsets src/hwlib.rs declares, as hwloc.h has them
    local want
    want="client_topology: hwloc object layout $(sed -n '/^pub mod obj {/,/^}/s/.*pub const \([A-Z_]*\): usize = \([0-9]*\);/\L\1\E=\2/p' "$ROOT/src/hwlib.rs" | tr '\n' ' ' | sed 's/ $//')"
    grep -qxF "$want" "$B/topology_rpmix.txt" || { echo "hwloc.h's layout differs from src/hwlib.rs: want '$want'"; grep layout "$B/topology_rpmix.txt"; return 1; }
    # A topology the host gives: as hwloc XML in the job data (rm_simple -X,
    # PMIX_HWLOC_XML_V2), and as an hwloc topology at server init
    # (topo_host: PMIX_TOPOLOGY2, shared with PMIX_SERVER_SHARE_TOPOLOGY).
    # Synthetic (2 packages x 3 cores x 2 PUs), so it cannot be mistaken for
    # this machine's: the clients must see 6 cores and 12 PUs on both
    # libraries, and the host's own load must return its own pointer.
    build_once "$BIN/topo_xml" $CC -std=gnu99 -Wall -Wextra -Werror "$ROOT/c-tests/topo_xml.c" -o "$BIN/topo_xml" -lhwloc || return 1
    build_c_refh topo_host_refh topo_host -Werror -lhwloc || return 1
    "$BIN/topo_xml" >"$B/synthetic.xml" || return 1
    local lib out
    for lib in openpmix rpmix; do
        if [ $lib = rpmix ]; then
            out=$(with_ours timeout 60 "$BIN/rm_simple" -X "$B/synthetic.xml" -n 1 "$BIN/client_topology_refh" 2>&1)
        else
            out=$(timeout 60 "$BIN/rm_simple_refh" -X "$B/synthetic.xml" -n 1 "$BIN/client_topology_refh" 2>&1)
        fi
        echo "$out" | grep -qx 'client_topology: cores=6 pus=12' || { echo "$lib: the job data's XML topology was not the one loaded:"; echo "$out"; return 1; }
        if [ $lib = rpmix ]; then
            out=$(with_ours timeout 60 "$BIN/topo_host_refh" -- "$BIN/client_topology_refh" 2>&1)
        else
            out=$(timeout 60 "$BIN/topo_host_refh" -- "$BIN/client_topology_refh" 2>&1)
        fi
        echo "$out" | grep -qx 'topo_host: own load SUCCESS same pointer: yes' && echo "$out" | grep -qx 'client_topology: cores=6 pus=12' ||
            { echo "$lib: the host's topology was not the one loaded:"; echo "$out"; return 1; }
        echo "$lib: a host's topology (XML in the job data, PMIX_TOPOLOGY2 at init) is what the clients load"
    done
    # PMIX_TOPO values holding an hwloc topology: pack/unpack (as XML),
    # copy and value load (each a topology of its own), print; the same
    # lines on both libraries, rpmix's under valgrind
    build_c_refh topo_data_refh topo_data -Werror -lhwloc || return 1
    timeout 60 "$BIN/topo_data_refh" "$B/synthetic.xml" >"$B/topo_data_openpmix.txt" 2>&1 || { echo "OpenPMIx: topo_data failed"; cat "$B/topo_data_openpmix.txt"; return 1; }
    with_ours timeout 120 $VALGRIND "$BIN/topo_data_refh" "$B/synthetic.xml" >"$B/topo_data_rpmix.txt" || { echo "rpmix: topo_data failed (or valgrind found errors)"; cat "$B/topo_data_rpmix.txt"; return 1; }
    diff "$B/topo_data_openpmix.txt" "$B/topo_data_rpmix.txt" || { echo "PMIX_TOPO values differ from OpenPMIx"; return 1; }
    cat "$B/topo_data_rpmix.txt"
    with_ours timeout 60 "$PMIXRUN" -n 1 "$BIN/client_topology_refh" reload >"$B/topology_reload.txt" || { echo "reload failed"; cat "$B/topology_reload.txt"; return 1; }
    grep -q '^client_topology: reload SUCCESS pus=[1-9]' "$B/topology_reload.txt" || { cat "$B/topology_reload.txt"; return 1; }
    cat "$B/topology_rpmix.txt" "$B/topology_reload.txt"
}
t_pmixrun_basic() {
    build_mp || return 1
    for i in 1 2 3 4 5; do
        with_ours timeout 60 "$PMIXRUN" -n 8 "$BIN/client_basic" 8 || { echo "run $i failed"; return 1; }
    done
    # binary drop-in: clients built against OpenPMIx's headers
    with_ours timeout 60 "$PMIXRUN" -n 8 "$BIN/client_basic_refh" 8
}
t_pmixrun_exits() {
    build_mp || return 1
    with_ours timeout 60 "$PMIXRUN" -n 4 "$BIN/client_abort"; rc=$?; [ $rc = 7 ] || { echo "abort: $rc, expected 7"; return 1; }
    # a negative status exits as exit(3) takes it (mpirun on OpenPMIx: the same 255)
    CLIENT_ABORT_STATUS=-1 with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/client_abort"; rc=$?; [ $rc = 255 ] || { echo "abort(-1): $rc, expected 255"; return 1; }
    timeout 30 "$PMIXRUN" -n 2 sh -c 'exit 5'; rc=$?; [ $rc = 5 ] || { echo "exit 5: got $rc"; return 1; }
    timeout 30 "$PMIXRUN" -n 1 sh -c 'kill -9 $$'; rc=$?; [ $rc = 137 ] || { echo "SIGKILL: got $rc"; return 1; }
    timeout 30 "$PMIXRUN" --timeout 1 -n 2 sleep 30; rc=$?; [ $rc = 124 ] || { echo "timeout: got $rc"; return 1; }
    out=$(FOO=bar timeout 30 "$PMIXRUN" -x FOO -x BAZ=qux -n 1 sh -c 'echo $FOO$BAZ$PMIX_RANK') && [ "$out" = "barqux0" ] ||
        { echo "-x: got '$out'"; return 1; }
    out=$(timeout 30 "$PMIXRUN" -n 1 sh -c 'echo a$PMIX_RANK' : -n 2 sh -c 'echo b$PMIX_RANK' | sort | tr '\n' ' ') &&
        [ "$out" = "a0 b1 b2 " ] || { echo "app contexts: got '$out'"; return 1; }
    timeout 30 "$PMIXRUN" -n 1 /nonexistent/prog 2>/dev/null; rc=$?; [ $rc != 0 ] || { echo "missing program: exit 0"; return 1; }
    # more ranks than CPUs: Open MPI's ranks are told to yield (as mpirun does); not otherwise
    local over=$(( $(nproc) + 1 ))
    out=$(env -u OMPI_MCA_mpi_yield_when_idle timeout 30 "$PMIXRUN" -n $over sh -c 'echo "y$OMPI_MCA_mpi_yield_when_idle"' | sort -u)
    [ "$out" = y1 ] || { echo "$over ranks on $(nproc) CPUs: yield_when_idle '$out'"; return 1; }
    out=$(env -u OMPI_MCA_mpi_yield_when_idle timeout 30 "$PMIXRUN" -n 1 sh -c 'echo "y$OMPI_MCA_mpi_yield_when_idle"')
    [ "$out" = y ] || { echo "1 rank: yield_when_idle '$out'"; return 1; }
}
t_pmixrun_signal() {
    # SIGTERM to pmixrun reaches the ranks; nothing is left behind.
    marker="rpmix-sig-$$"
    timeout 30 "$PMIXRUN" -n 3 sh -c "exec sleep 60 # $marker" & pid=$!
    sleep 1
    kill -TERM $pid; wait $pid; rc=$?
    sleep 0.3
    if pgrep -f "$marker" >/dev/null; then echo "ranks left running"; pkill -9 -f "$marker"; return 1; fi
    [ $rc = 143 ] || { echo "exit $rc, expected 143"; return 1; }
}
t_demo() { build_mp && with_ours timeout 60 "$PMIXRUN" -n 4 "$BIN/demo_job" | grep -q 'event received'; }
t_tool() {
    build_c tool_query tool_query || return 1
    build_c tool_servers tool_servers || return 1
    LD_LIBRARY_PATH="$LIBDIR" "$PMIXRUN" -n 3 sleep 12 & pid=$!
    sleep 0.5
    out=$(with_ours timeout 20 "$BIN/tool_query" $pid 2>&1); rc=$?
    out2=$(with_ours timeout 20 "$BIN/tool_query" "${TMPDIR:-/tmp}/pmix.$(hostname).tool.$pid" 2>&1); rc2=$?
    # by the server's namespace; system server first (there is none), then by pid
    out4=$(with_ours timeout 20 "$BIN/tool_query" "ns:rpmixrun.$pid" 2>&1); rc4=$?
    out5=$(with_ours timeout 20 "$BIN/tool_query" "sysfirst:$pid" 2>&1); rc5=$?
    # retries: the rendezvous file appears 1.5 s after the tool started (5 retries, 1 s apart);
    # without retries a missing one fails at once
    local rv="$B/tool_rv.$$"; rm -f "$rv"
    (sleep 1.5; cp "${TMPDIR:-/tmp}/pmix.$(hostname).tool.$pid" "$rv") &
    out6=$(with_ours timeout 20 "$BIN/tool_query" "$rv" 5 2>&1); rc6=$?
    out7=$(with_ours timeout 20 "$BIN/tool_query" "$rv.none" 2>&1); rc7=$?
    rm -f "$rv"
    # attach / two servers at once / get_servers / set_server / disconnect / re-attach / connect_to_server
    LD_LIBRARY_PATH="$LIBDIR" "$PMIXRUN" -n 1 sleep 3 & pid2=$!
    sleep 0.5
    out3=$(with_ours timeout 20 "$BIN/tool_servers" $pid $pid2 2>&1); rc3=$?
    kill -TERM $pid 2>/dev/null   # done with the first server (it would sleep on)
    wait $pid $pid2
    echo "$out"; echo "$out2"; echo "$out3"; echo "$out4"; echo "$out5"; echo "$out6"; echo "$out7"
    [ $rc4 = 0 ] && echo "$out4" | grep -q 'has 3 ranks' && [ $rc5 = 0 ] && echo "$out5" | grep -q 'has 3 ranks' &&
        [ $rc6 = 0 ] && echo "$out6" | grep -q 'has 3 ranks' && [ $rc7 != 0 ] && echo "$out7" | grep -q UNREACHABLE &&
    [ $rc = 0 ] && echo "$out" | grep -q 'has 3 ranks' && [ $rc2 = 0 ] && echo "$out2" | grep -q 'has 3 ranks' &&
        [ $rc3 = 0 ] && [ ! -e "${TMPDIR:-/tmp}/pmix.$(hostname).tool.$pid" ]
}
t_scope() {
    build_c client_scope client_scope &&
    with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/client_scope"
}
t_events_spawn() {
    build_c client_events client_events || return 1
    build_c client_spawn client_spawn || return 1
    build_mp || return 1
    with_ours timeout 60 "$PMIXRUN" -n 3 "$BIN/client_events" || { echo "events under pmixrun failed"; return 1; }
    with_ours timeout 60 "$BIN/rm_simple" -n 3 "$BIN/client_events" || { echo "events under rm_simple failed"; return 1; }
    with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/client_spawn" || { echo "spawn + connect failed"; return 1; }
    # A spawn with a NULL argv runs; one of a missing program answers
    # JOB_EXE_NOT_FOUND and the caller's job goes on (pmixrun exits 0).
    build_c spawn_errors spawn_errors || return 1
    with_ours timeout 60 "$PMIXRUN" -n 1 "$BIN/spawn_errors" || { echo "spawn errors: pmixrun exited $?"; return 1; }
    # PMIx_Finalize inside an event handler answers at once (no deadlock).
    build_c finalize_in_handler finalize_in_handler || return 1
    with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/finalize_in_handler" || { echo "finalize in a handler: pmixrun exited $?"; return 1; }
    # A client that forks after init (children exit, _exit, exec, and one
    # calls PMIx_Fence, which fails at once): nothing hangs and the parent's
    # connection works on, under both launchers.
    build_c fork_after_init fork_after_init || return 1
    with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/fork_after_init" || { echo "fork after init: pmixrun exited $?"; return 1; }
    with_ours timeout 60 "$BIN/rm_simple" -n 2 "$BIN/fork_after_init" || { echo "fork after init: rm_simple exited $?"; return 1; }
}
t_stress() {
    # 16 threads of each client at once (Get, Put/Commit, event handlers,
    # notifications, queries) while another thread fences: no crash, no hang,
    # every answer right, under pmixrun and the C host.
    build_c stress_threads stress_threads -lpthread || return 1
    with_ours timeout 120 "$PMIXRUN" -n 2 "$BIN/stress_threads" || { echo "under pmixrun: exit $?"; return 1; }
    with_ours timeout 120 "$BIN/rm_simple" -n 2 "$BIN/stress_threads" || { echo "under rm_simple: exit $?"; return 1; }
}
t_stress_tsan() {
    # The same 16-thread stress under ThreadSanitizer: rpmix built with
    # -Zsanitizer=thread (stable toolchain, RUSTC_BOOTSTRAP; its own target
    # directory), run in the C program with Debian's ThreadSanitizer runtime
    # preloaded (and c-tests/tsan_shim.c for three entry points it lacks).
    # First without suppressions: the reports of std's Arc (see
    # tools/tsan.supp) must appear, which shows the detector sees rpmix's
    # code; then with tools/tsan.supp: no report at all, every answer right.
    local rt tsandir out
    rt=$(gcc -print-file-name=libtsan.so.2)
    [ -e "$rt" ] || { echo "no ThreadSanitizer runtime (libtsan2): tools/install-deps.sh installs it"; return 1; }
    rt=$(readlink -f "$rt")
    build_c stress_threads stress_threads -lpthread || return 1
    build_once "$BIN/libtsan_shim.so" $CC -shared -fPIC -O1 -fno-builtin "$ROOT/c-tests/tsan_shim.c" -o "$BIN/libtsan_shim.so" || return 1
    (cd "$ROOT" && RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zsanitizer=thread -Cunsafe-allow-abi-mismatch=sanitizer" \
        cargo build -q --release --lib --target x86_64-unknown-linux-gnu --target-dir "$ROOT/target/tsan") || { echo "the ThreadSanitizer build failed"; return 1; }
    tsandir=$B/tsan-lib
    mkdir -p "$tsandir" && ln -sf "$ROOT/target/tsan/x86_64-unknown-linux-gnu/release/libpmix.so" "$tsandir/libpmix.so.2" || return 1
    run_tsan() { # run_tsan <TSAN_OPTIONS>: the two ranks' output and reports
        with_ours timeout 300 "$PMIXRUN" -n 2 env LD_PRELOAD="$rt $BIN/libtsan_shim.so" LD_LIBRARY_PATH="$tsandir" \
            TSAN_OPTIONS="$1" "$BIN/stress_threads" 2>&1
    }
    out=$(run_tsan "halt_on_error=0 exitcode=0")
    echo "$out" | grep -q 'WARNING: ThreadSanitizer' && echo "$out" | grep -q 'drop_slow' ||
        { echo "without suppressions ThreadSanitizer reported nothing: is it running?"; echo "$out" | tail; return 1; }
    echo "without suppressions: $(echo "$out" | grep -c 'WARNING: ThreadSanitizer') reports (std's Arc, as expected)"
    out=$(run_tsan "halt_on_error=0 exitcode=66 suppressions=$ROOT/tools/tsan.supp print_suppressions=1") || { echo "$out" | grep -A30 'WARNING: ThreadSanitizer' | head -80; return 1; }
    ! echo "$out" | grep -q 'WARNING: ThreadSanitizer' || { echo "$out" | head -80; return 1; }
    [ "$(echo "$out" | grep -Ec '^stress_threads [01]: ok$')" = 2 ] || { echo "$out" | tail; return 1; }
    echo "$out" | grep -E '^stress_threads|Matched|race:'
}
t_groups() {
    # Group construct/destruct/leave among the ranks of one job, completed by
    # the server itself (OpenPMIx 4.2.2 needs a host group upcall even then).
    build_c client_groups client_groups -lpthread || return 1
    build_mp || return 1
    local out
    for run in "$PMIXRUN -n 4" "$BIN/rm_simple -n 4" "$BIN/rm_simple -m defer -n 4"; do
        out=$(with_ours timeout 60 $run "$BIN/client_groups" 2>&1) || { echo "$run: $out"; return 1; }
        echo "$out"
        [ "$(echo "$out" | grep -Ec '^client_groups rank [0-3]: [1-9][0-9]* passed, 0 failed$')" = 4 ] || { echo "$run: not 4 clean summaries"; return 1; }
    done
}
t_topology() {
    # Locality strings and cpuset strings: the same as OpenPMIx's (hwloc) on
    # this machine, for each CPU and for all of them; our relative locality
    # answers PMIX_SUCCESS with the levels the strings share (OpenPMIx 4.2.2
    # answers TAKE-NEXT-OPTION even when it computed one); PMIx_Get_cpuset is
    # the binding taskset gave.
    build_c topology topology || return 1
    build_once "$BIN/topology_ref" $CC -std=gnu99 -I"$REF_INC" "$ROOT/c-tests/topology.c" -o "$BIN/topology_ref" -l:libpmix.so.2 || return 1
    local args="hwloc:0-$(( $(nproc) - 1 ))" c ours ref
    for c in $(seq 0 $(( $(nproc) - 1 ))); do args="$args hwloc:$c"; done
    ours=$(with_ours "$BIN/topology" $args) || return 1
    ref=$(TMPDIR=$B "$BIN/topology_ref" $args) || return 1
    echo "$ours"; echo "--- OpenPMIx:"; echo "$ref"
    [ "$(echo "$ours" | grep -E '^(loc|str|cpuset) ')" = "$(echo "$ref" | grep -E '^(loc|str|cpuset) ')" ] || { echo "differs from OpenPMIx"; return 1; }
    echo "$ours" | grep -q '^loc .* SUCCESS SK' || { echo "no locality string"; return 1; }
    [ -z "$(echo "$ours" | grep '^rel ' | grep -v ' SUCCESS ')" ] || { echo "a relative locality failed"; return 1; }
    # a string against itself shares every level it names (here at least node + package)
    echo "$ours" | grep -Eq '^rel 0 0 SUCCESS [0-9]+$' || return 1
    [ $(( $(echo "$ours" | sed -n 's/^rel 0 0 SUCCESS //p') & 16416 )) = 16416 ] || { echo "rel 0 0 lacks node/package"; return 1; }
    [ "$(with_ours taskset -c 0 "$BIN/topology" | grep '^cpuset')" = "cpuset SUCCESS hwloc:0" ] || { echo "Get_cpuset under taskset -c 0"; return 1; }
}
t_binding() {
    # pmixrun --bind-to core: ranks bound round robin over the cores, their
    # PMIX_CPUSET / PMIX_LOCALITY_STRING in the job data match what the
    # library computes, and relative locality shows which ranks share a core.
    build_c client_locality client_locality || return 1
    local cores out n
    cores=$(lscpu -p=CORE,SOCKET | grep -v '^#' | sort -u | wc -l)
    n=$(( cores + 1 ))   # one core holds two ranks
    out=$(with_ours timeout 60 "$PMIXRUN" --bind-to core -n $n "$BIN/client_locality" bound "$cores" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    [ "$(echo "$out" | grep -Ec '^client_locality rank [0-9]+: [1-9][0-9]* passed, 0 failed$')" = "$n" ] || return 1
    out=$(with_ours timeout 60 "$PMIXRUN" -n 2 "$BIN/client_locality" unbound 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    [ "$(echo "$out" | grep -Ec '^client_locality rank [0-9]+: [1-9][0-9]* passed, 0 failed$')" = 2 ]
}
t_rfc_examples() {
    # The design documents' example programs, unchanged, under pmixrun.
    local d="$B/rfc" root="$B/rfc/root"
    mkdir -p "$d"
    for f in rfc0015_jctrl_monitor rfc0027_cleanup; do
        build_once --stderr "$d/$f.warnings" "$d/$f" $CC -I"$ROOT/include" "$ROOT/../shared/examples/$f.c" -o "$d/$f" -L"$LIBDIR" -l:libpmix.so.2 -lpthread || return 1
    done
    out=$(with_ours timeout 60 "$PMIXRUN" -n 2 "$d/rfc0015_jctrl_monitor" 2>&1) || { echo "$out"; return 1; }
    [ "$(echo "$out" | grep -c 'PMIx_Finalize successfully completed')" = 2 ] || { echo "$out"; return 1; }
    # rfc0027 uses absolute paths of its own: only run it where we may create them (root, as in CI).
    [ "$(id -u)" = 0 ] || { echo "rfc0027: skipped (needs root for /mytmpdir)"; return 0; }
    rm -rf /mytmpdir /myjobtmpdir /tmp/dev_shm
    mkdir -p /mytmpdir/subdir/deep /myjobtmpdir/a/b /tmp/dev_shm
    touch /mytmpdir/f1 /mytmpdir/output-124.txt /mytmpdir/subdir/contact.info /mytmpdir/subdir/x \
          /mytmpdir/subdir/deep/y /myjobtmpdir/a/b/z /tmp/dev_shm/mybackfile /tmp/dev_shm/other
    with_ours timeout 60 "$PMIXRUN" -n 2 "$d/rfc0027_cleanup" || return 1
    got=$(find /mytmpdir /myjobtmpdir /tmp/dev_shm 2>/dev/null | sort | tr '\n' ' ')
    want="/mytmpdir /mytmpdir/output-124.txt /mytmpdir/subdir /mytmpdir/subdir/contact.info /tmp/dev_shm /tmp/dev_shm/other "
    rm -rf /mytmpdir /myjobtmpdir /tmp/dev_shm
    [ "$got" = "$want" ] || { echo "left on disk: $got"; echo "expected:     $want"; return 1; }
}
t_pmixctl() {
    # A tool against a live pmixrun: list, output (cached + live), pause/resume, signal, stdin.
    local C=$LIBDIR/pmixctl out
    "$PMIXRUN" -n 2 sh -c 'for i in 1 2 3 4 5 6; do echo "r$PMIX_RANK line $i"; sleep 0.3; done' >"$B/ctl_job.out" & pid=$!
    sleep 0.8
    "$C" --pid $pid ps | grep -q '2 ranks' || { echo "ps failed"; return 1; }
    out=$("$C" --pid $pid output --follow | sort | tr '\n' ' ')
    wait $pid
    want="r0 line 1 r0 line 2 r0 line 3 r0 line 4 r0 line 5 r0 line 6 r1 line 1 r1 line 2 r1 line 3 r1 line 4 r1 line 5 r1 line 6 "
    [ "$out" = "$want" ] || { echo "tool output: '$out'"; return 1; }
    [ "$(sort "$B/ctl_job.out" | tr '\n' ' ')" = "$want" ] || { echo "terminal output differs"; return 1; }
    "$PMIXRUN" -n 2 sleep 5 & pid=$!
    sleep 0.7
    "$C" --pid $pid pause --rank 1 || return 1
    sleep 0.2
    states=$(for c in $(pgrep -P $pid); do awk '{print $3}' /proc/$c/stat; done | sort | tr -d '\n')
    [ "$states" = "ST" ] || { echo "after pause: $states"; kill $pid; return 1; }
    "$C" --pid $pid resume || return 1
    sleep 0.2
    states=$(for c in $(pgrep -P $pid); do awk '{print $3}' /proc/$c/stat; done | sort | tr -d '\n')
    [ "$states" = "SS" ] || { echo "after resume: $states"; kill $pid; return 1; }
    "$C" --pid $pid signal TERM || return 1
    wait $pid; rc=$?
    [ $rc = 143 ] || { echo "after signal TERM: exit $rc"; return 1; }
    # pmixrun's own stdin stays open and silent (sleep), so only the tool feeds the ranks
    sleep 3 | "$PMIXRUN" --stdin all -n 2 sh -c 'read x; echo "got[$x]"' >"$B/ctl_stdin.out" & pid=$!
    sleep 0.5
    echo "via-tool" | "$C" --pid $pid stdin || { kill $pid; return 1; }
    wait $pid
    [ "$(grep -c 'got\[via-tool\]' "$B/ctl_stdin.out")" = 2 ] || { echo "stdin: $(cat "$B/ctl_stdin.out")"; return 1; }
    t_pmixctl_pset || return 1
    t_pmixctl_session || return 1
    t_pmixrun_alloc || return 1
    t_pmixctl_info
}
t_pmixrun_alloc() {
    # PMIx_Allocation_request from a rank: pmixrun grants this node's CPUs
    # (new, extend, release) and refuses more than it has (c-tests/client_alloc.c)
    build_c client_alloc client_alloc -lpthread || return 1
    with_ours timeout 60 "$PMIXRUN" -n 1 "$BIN/client_alloc" >"$B/ctl_alloc.out" 2>&1 || { echo "allocations:"; cat "$B/ctl_alloc.out"; return 1; }
    grep -q '^client_alloc: [0-9]* passed, 0 failed$' "$B/ctl_alloc.out" || { cat "$B/ctl_alloc.out"; return 1; }
}
# rank_states <pid>: the process states of pmixrun's children (its ranks), sorted
rank_states() { local c; for c in $(pgrep -P "$1"); do awk '{print $3}' "/proc/$c/stat"; done | sort | tr -d '\n'; }
# until_states <pid> <want>: waits (15 s at most) for them
until_states() { local i; for i in $(seq 300); do [ "$(rank_states "$1")" = "$2" ] && return 0; sleep 0.05; done; return 1; }
t_pmixctl_session() {
    # Session control (PMIx_Session_control): pause, resume, signal,
    # terminate every rank pmixrun runs; a persistent pmixrun ends its jobs
    # and goes on.
    local C=$LIBDIR/pmixctl pid T p run rc i
    "$PMIXRUN" -n 1 sleep 20 : -n 1 sleep 20 & pid=$!
    until_states $pid SS || { echo "session: the ranks did not start"; kill $pid; return 1; }
    "$C" --pid $pid session pause || { kill $pid; return 1; }
    until_states $pid TT || { echo "session pause: $(rank_states $pid)"; kill $pid; return 1; }
    "$C" --pid $pid session resume || { kill $pid; return 1; }
    until_states $pid SS || { echo "session resume: $(rank_states $pid)"; kill $pid; return 1; }
    "$C" --pid $pid session terminate || { kill $pid; return 1; }
    wait $pid; rc=$?
    [ $rc = 143 ] || { echo "session terminate: pmixrun exit $rc"; return 1; }
    "$PMIXRUN" -n 2 sleep 20 & pid=$!
    until_states $pid SS || { echo "session: the ranks did not start"; kill $pid; return 1; }
    "$C" --pid $pid session signal USR1 || { kill $pid; return 1; }
    wait $pid; rc=$?
    [ $rc = $((128 + 10)) ] || { echo "session signal USR1: pmixrun exit $rc"; return 1; }
    # a persistent pmixrun (its own TMPDIR): its job ends, it goes on
    T=$(mktemp -d "$B/ctl_session.XXXXXX")
    TMPDIR=$T "$PMIXRUN" --persistent & p=$!
    for i in $(seq 300); do TMPDIR=$T "$C" --pid $p ps 2>&1 | grep -q "runs no job" && break; sleep 0.05; done
    TMPDIR=$T "$C" --pid $p run -n 2 sleep 30 >/dev/null 2>&1 & run=$!
    for i in $(seq 300); do [ "$(pgrep -P $p | wc -l)" = 2 ] && break; sleep 0.05; done
    TMPDIR=$T "$C" --pid $p session terminate || { kill $p $run; return 1; }
    wait $run; rc=$?
    [ $rc != 0 ] || { echo "session terminate: the persistent pmixrun's job ended with 0"; kill $p; return 1; }
    kill -0 $p 2>/dev/null || { echo "session terminate: the persistent pmixrun ended"; return 1; }
    TMPDIR=$T "$C" --pid $p stop || { kill $p; return 1; }
    wait $p; rc=$?
    [ $rc = 0 ] || { echo "persistent pmixrun: exit $rc after stop"; return 1; }
    rm -rf "$T"
}
t_pmixctl_pset() {
    # Process sets: two app contexts with --pset, then a set defined and
    # deleted by pmixctl while the job runs (c-tests/client_psets.c): every
    # rank sees the queries' answers, the events and PMIX_PSET_NAMES.
    local C=$LIBDIR/pmixctl out=$B/ctl_pset.out pid i r want own in
    build_c client_psets client_psets -lpthread || return 1
    LD_LIBRARY_PATH="$LIBDIR" "$PMIXRUN" --timeout 90 -n 2 --pset first "$BIN/client_psets" wait : -n 2 --pset second "$BIN/client_psets" wait >"$out" 2>&1 & pid=$!
    # (the ranks say when their handlers are registered)
    for i in $(seq 600); do [ "$(grep -c ': ready$' "$out")" = 4 ] && break; sleep 0.05; done
    [ "$(grep -c ': ready$' "$out")" = 4 ] || { echo "pset: the ranks did not get ready:"; cat "$out"; kill $pid; return 1; }
    # refused: a rank that does not run, a name with ',', a set never defined
    [ "$("$C" --pid $pid pset define bad 0,7 2>&1)" = "pmixctl: pset define bad: NOT-FOUND" ] || { echo "pset: a set of a rank that does not run"; kill $pid; return 1; }
    [ "$("$C" --pid $pid pset define a,b 0 2>&1)" = "pmixctl: pset define a,b: BAD-PARAM" ] || { echo "pset: a name with ','"; kill $pid; return 1; }
    [ "$("$C" --pid $pid pset delete nosuch 2>&1)" = "pmixctl: pset delete nosuch: NOT-FOUND" ] || { echo "pset: deleting an unknown set"; kill $pid; return 1; }
    "$C" --pid $pid pset define dyn 0,3 || { echo "pset define failed"; kill $pid; return 1; }
    # (deleted once every rank has listed it)
    for i in $(seq 600); do [ "$(grep -c ': listed$' "$out")" = 4 ] && break; sleep 0.05; done
    "$C" --pid $pid pset delete dyn || { echo "pset delete failed"; kill $pid; return 1; }
    wait $pid || { echo "pset: the job failed (exit $?)"; cat "$out"; return 1; }
    for r in 0 1 2 3; do
        if [ $r -lt 2 ]; then own=first; else own=second; fi
        if [ $r = 0 ] || [ $r = 3 ]; then in=$own,dyn; else in=$own; fi
        want="rank $r: own $own
rank $r: psets 2 first,second
rank $r: members first 0,1
rank $r: members second 2,3
rank $r: ready
rank $r: defined dyn 0,3
rank $r: in $in
rank $r: psets 3 first,second,dyn
rank $r: members first 0,1
rank $r: members second 2,3
rank $r: members dyn 0,3
rank $r: listed
rank $r: deleted dyn
rank $r: psets 2 first,second
rank $r: members first 0,1
rank $r: members second 2,3"
        [ "$(grep "^rank $r: " "$out")" = "$want" ] || { echo "pset: rank $r saw:"; grep "^rank $r: " "$out"; return 1; }
    done
}
t_pmixctl_info() {
    # pmixctl info: the library's own version, this machine's features, and
    # the servers of this node (a private TMPDIR: only this case's servers).
    local C=$LIBDIR/pmixctl T out want scope p q
    T=$(mktemp -d "$B/ctl_info.XXXXXX")
    out=$(TMPDIR=$T "$C" info) || { echo "info failed"; return 1; }
    want=$(python3 -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1]); l.PMIx_Get_version.restype = ctypes.c_char_p
print(l.PMIx_Get_version().decode())' "$LIB") || return 1
    [ "$(sed -n 's/^version: *//p' <<<"$out")" = "$want" ] || { echo "info version differs from PMIx_Get_version ($want):"; echo "$out"; return 1; }
    [ "$(sed -n 's/^library: *//p' <<<"$out")" = "$(cd "$LIBDIR" && pwd -P)/libpmix.so.2" ] || { echo "info library:"; echo "$out"; return 1; }
    grep -q '^ABI: *OpenPMIx 4.2.2 ' <<<"$out" || { echo "info ABI:"; echo "$out"; return 1; }
    grep -q "^ABI additions: *the $(grep -cv '^#' tools/exports-newer.txt) functions OpenPMIx 4.2.3 to 5.0.9" <<<"$out" || { echo "info ABI additions:"; echo "$out"; return 1; }
    if ldconfig -p | grep -q 'libhwloc\.so\.15 '; then want=yes; else want=no; fi
    grep -q "^hwloc: *$want" <<<"$out" || { echo "info hwloc (want $want):"; echo "$out"; return 1; }
    scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)
    if [ -n "$scope" ]; then
        grep -q "^stop on exec: .*(Yama ptrace_scope $scope)" <<<"$out" || { echo "info ptrace_scope (want $scope):"; echo "$out"; return 1; }
    fi
    # (what pmixrun's queries say: stop on exec is offered when PTRACE_TRACEME is)
    if [ "$scope" = 3 ]; then want=no; else want=yes; fi
    grep -q "^stop on exec: *$want" <<<"$out" || { echo "info stop on exec (want $want):"; echo "$out"; return 1; }
    grep -q '^servers: *0$' <<<"$out" || { echo "info in an empty TMPDIR:"; echo "$out"; return 1; }
    # a persistent pmixrun (the system server) and a job's pmixrun are listed, by pid
    TMPDIR=$T "$PMIXRUN" --persistent & p=$!
    TMPDIR=$T "$PMIXRUN" -n 1 sleep 30 & q=$!
    sleep 0.8
    out=$(TMPDIR=$T "$C" info)
    grep -q '^servers: *2$' <<<"$out" \
        && grep -q "^  pid $p pmixrun uid $(id -u) .*rpmix: system server, tool support" <<<"$out" \
        && grep -q "^  pid $q pmixrun uid $(id -u) .*rpmix: tool support, namespace rpmixrun\.$q" <<<"$out" \
        || { echo "info with two servers ($p, $q):"; echo "$out"; kill $p $q; return 1; }
    # a server killed with SIGKILL leaves its files, which are not listed
    kill -9 $q; wait $q 2>/dev/null
    out=$(TMPDIR=$T "$C" info)
    grep -q '^servers: *1$' <<<"$out" && grep -q "^  pid $p " <<<"$out" || { echo "info after SIGKILL of $q:"; echo "$out"; kill $p; return 1; }
    # root sees another user's server too (its rendezvous files, its owner)
    if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
        chmod 1777 "$T" && cp "$PMIXRUN" "$T/pmixrun" && chmod 755 "$T/pmixrun" || { kill $p; return 1; }
        TMPDIR=$T runuser -u nobody -- "$T/pmixrun" -n 1 sleep 30 & q=$!
        sleep 0.8
        local np; np=$(pgrep -P $q -x pmixrun || echo $q)
        out=$(TMPDIR=$T "$C" info)
        grep -q '^servers: *2$' <<<"$out" \
            && grep -q "^  pid $np pmixrun uid $(id -u nobody) (nobody) rpmix: tool support, namespace rpmixrun\.$np" <<<"$out" \
            || { echo "info with a server of nobody's ($np):"; echo "$out"; kill $p; pkill -P $q; return 1; }
        kill $np; wait $q 2>/dev/null
    fi
    TMPDIR=$T "$C" stop || { kill $p; return 1; }
    wait $p
    out=$(TMPDIR=$T "$C" info)
    grep -q '^servers: *0$' <<<"$out" || { echo "info after stop:"; echo "$out"; return 1; }
    rm -rf "$T"
}
# The README's two commands from nothing: a fresh Debian 12 root, a clean
# clone, `make demo` and every installer of `make test` (tools/fresh-root-tests.sh).
t_fresh_root() { tools/fresh-root-tests.sh "$B/fresh-root"; }
# The Debian packages (make deb) on a fresh Debian 12 root with OpenPMIx's
# consumers: rpmix beside OpenPMIx, `module load rpmix`, the system switch
# (rpmix-system) on and off, purge leaves the root as it was
# (tools/package-tests.sh).
t_package() { tools/package-tests.sh "$B/package"; }


all_steps() {
    step rm-simple-on-openpmix t_rm_openpmix
    step rm-simple-on-rpmix t_rm_rpmix
    step rm-simple-abort t_rm_abort
    step rm-simple-missing-keys t_rm_missing
    step host-completes-inline-16-ranks t_rm_inline_16
    step scale-64k-1m-host-inline t_scale
    step semantics-vs-openpmix t_semantics
    step load-topology-vs-openpmix t_load_topology
    step modex-upcalls-vs-openpmix t_modex
    step callbacks-never-inline t_callbacks
    step pmixrun-8-ranks t_pmixrun_basic
    step pmixrun-exit-codes t_pmixrun_exits
    step pmixrun-signals t_pmixrun_signal
    step demo-job t_demo
    step events-and-spawn t_events_spawn
    step pmixctl-tool t_pmixctl
    step rfc-example-programs t_rfc_examples
    step get-data-scope t_scope
    step tool-attach-switch-disconnect t_tool
    step groups t_groups
    step threads-stress-16 t_stress
    step threads-stress-16-tsan t_stress_tsan
    step topology-vs-openpmix t_topology
    step pmixrun-bind-to-core t_binding
    step fresh-machine-setup t_fresh_root
    step package-deploy t_package
}

# The step names; --list prints them, --check and a run check RPMIX_ONLY against them.
MODE_ASKED=$MODE; MODE=names; all_steps; MODE=$MODE_ASKED
if [ $MODE = list ]; then printf '%s\n' "${STEP_NAMES[@]}"; exit 0; fi
if [ -n "${RPMIX_ONLY:-}" ]; then
    ONLY_STEP=${RPMIX_ONLY%%/*}
    case " ${STEP_NAMES[*]} " in
        *" $ONLY_STEP "*) ;;
        *) echo "run-tests: no step named '$ONLY_STEP' (RPMIX_ONLY / make test ONLY=$RPMIX_ONLY); the steps are:"
           printf '  %s\n' "${STEP_NAMES[@]}"
           echo "0 passed, 1 failed"; exit 1 ;;
    esac
    # <step>/<ERE>: the ERE selects the cases of the step's sub-driver
    case $RPMIX_ONLY in */*) export RPMIX_CASE=${RPMIX_ONLY#*/} ;; esac
fi
[ $MODE = check ] && exit 0

mkdir -p "$B" "$BIN" || { echo "cannot create $B"; echo "0 passed, 1 failed"; exit 1; }
# the sub-drivers compile into (and reuse) the same directory
export RPMIX_BIN=$BIN
touch "$B/.start"
all_steps

echo
[ -z "$failures" ] || echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
