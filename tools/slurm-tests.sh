#!/bin/bash
# Slurm 22.05 (Debian) `srun --mpi=pmix` jobs, with OpenPMIx 4.2.2 on both
# sides, with OpenPMIx in slurmstepd and rpmix in the tasks only ("mixed":
# issue 15, a user giving only their program rpmix's library), and with
# rpmix on both sides: slurmstepd's PMIx server (Slurm's mpi/pmix plugin
# dlopen()s /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so) and the tasks.
#
#   tools/slurm-tests.sh [BUILD_DIR]        (default: c-tests/build)
#
# Needs root (Slurm daemons, a mount namespace). Installs what is missing
# with tools/install-slurm.sh.
# Cases besides the PMIx clients and Open MPI programs: impi-2 and impi-4,
# Intel MPI's IMB-MPI1 (PingPong, Allreduce, Bcast) over 2 and 4 tasks.
# Time: typically ~30 s (33 sruns of 0.2 to 2.3 s, 11 cases in 3 phases).
# Bounded: the namespace part (daemons, the three phases, its clean-up) is
# killed by `timeout -k 5 170`; inside, every srun gets min(30 s, what is
# left of a 150 s budget) (cases left without budget are "not run" and
# fail), so the clean-up fits. With the build (~5 s) and the final check
# (<= 11 s) the driver never takes more than ~3 min 10 s.
#
# Environment:
#   RPMIX_LIBDIR        rpmix's library directory (default: target/release)
#   RPMIX_SLURM_DEBUG   PMIX_DEBUG level given to slurmd (so slurmstepd's
#                       PMIx server) and to the tasks, e.g. 5 (default: none);
#                       slurmstepd's stderr up to the tasks' launch (later
#                       it is the job's: the server's lines are then in the
#                       case logs) goes to
#                       BUILD_DIR/slurm/logs/daemons.slurmstepd.stderr (a
#                       wrapper bind-mounted over /usr/sbin/slurmstepd, in
#                       the namespace only)
#   RPMIX_SLURMD_DEBUG  SlurmdDebug (default: debug; debug2 for details)
#   RPMIX_CASE          run only the cases whose name matches this extended
#                       regular expression (tools/testlib.sh), e.g. ^mpi-hello$
#   RPMIX_SLURM_BENCH   N: after each phase's cases, time N runs of
#                       `srun --mpi=pmix -n 2 ./mpi_hello` and print the
#                       medians side by side on the "bench:" line, OpenPMIx
#                       and rpmix (tools/bench-slurm.sh), and the mixed
#                       phase's on a line of its own, "bench (mixed):"
#   CC                  the C compiler (default: cc)
#
# How:
#   * The test programs are built against OpenPMIx's headers into
#     BUILD_DIR/slurm, OpenPMIx's examples linked into BUILD_DIR/oex (built
#     by c-tests/Makefile: build_example; -l:libpmix.so.2: the loader picks
#     the library), each once (build_once, tools/testlib.sh), and
#     c-tests/which_pmix.c (the mixed phase's proof, below) into
#     BUILD_DIR/slurm/libwhich_pmix.so.
#   * The script re-executes itself inside a private mount namespace
#     (`unshare -m --propagation private`), where everything runs: munged
#     (a generated key, socket/pid/log/seed files in the test folder
#     /tmp/rpmix-slurm.XXXXXX), slurmctld and slurmd (foreground, -f a
#     generated one-node slurm.conf: NodeName=<hostname> CPUs=$(nproc),
#     RealMemory from /proc/meminfo, proctrack/linuxproc, task/none, no
#     cgroup plugin (22.05's slurmd loads one anyway: cgroup.conf names
#     cgroup/v1, which creates nothing -- checked), SlurmUser=root, state/spool/pid/log/TmpFS in the test folder,
#     MpiDefault=none, select/cons_tres, one partition, free ports).
#   * Phase 1, OpenPMIx: every case, nothing mounted.
#   * rpmix's libpmix.so is then copied into the test folder (a rebuild
#     cannot change it mid-run) as libpmix.so, hard-linked as
#     mixlib/libpmix.so.2: phases 2 and 3 run the same file.
#   * Phase 2, mixed: the same slurmd as phase 1, nothing mounted (checked
#     in the namespace's mountinfo), so slurmstepd's PMIx server is on
#     OpenPMIx; only the tasks get rpmix: each runs as `srun ... env
#     LD_LIBRARY_PATH=<test folder>/mixlib LD_PRELOAD=libwhich_pmix.so
#     WHICH_PMIX_OUT=<proof file> <program>` (env execs the program, whose
#     parent is still slurmstepd). c-tests/which_pmix.c appends "<pid>
#     <loaded libpmix.so.2> <version>" per task (at start when the program
#     links the library, at exit when Open MPI loads it later); every report
#     must name the copy (its inode; otherwise the case ran on the wrong
#     library), and there must be as many as the case's tasks (4, or 2 for
#     oex-*), except mpi-abort (0 to 4: a killed MPI rank never reaches
#     its exit report). The proof is appended to the case's log.
#   * Phase 3, rpmix: slurmd is stopped, the copy is bind-mounted
#     over /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so (mount follows the
#     symlink and covers libpmix.so.2.6.2, hence also libpmix.so.2 and
#     /usr/lib/x86_64-linux-gnu/libpmix.so.2 in the namespace: checked),
#     slurmd is restarted (slurmstepd, exec'd per step, loads the plugin and
#     the library at job time; slurmctld never loads them), every case again. Nothing outside the namespace
#     sees the mount (checked from outside at the end).
#   * Each run: `timeout <=30 srun --mpi=pmix -O -N1 -n N ...` with a unique
#     RPMIX_SLURM_CASE marker in the environment (the tasks inherit it);
#     afterwards any process carrying the marker is reported and killed.
#   * Every task prints PMIx_Get_version() of the library it runs on: it
#     must start with "OpenPMIx" in phase 1 and "rpmix" in phases 2 and 3,
#     and in the basic case rank 0 reports its parent slurmstepd's mapped
#     libpmix, whose inode must be OpenPMIx's file (phases 1 and 2) or
#     rpmix's copy (phase 3). A wrong library fails the case outright.
#   * Clean-up (inside): the daemons are stopped by PID, then every process
#     left in the namespace (stuck tasks, slurmstepd) is killed by PID, the
#     mount removed. Outside: any process still in the namespace or with the
#     test folder on its command line is killed and fails the "cleanup"
#     case, as does a libpmix mount visible outside; logs are copied to
#     BUILD_DIR/slurm/logs, the test folder removed.
#
# Cases (N = 4 tasks unless said; each run with OpenPMIx, mixed, then rpmix):
#   basic        c-tests/slurm/slurm_client.c basic: job data after init,
#                Put/Commit/Fence(collect)/Get of every rank, an event from
#                the last rank to rank 0 (PMIX_EVENT_NON_DEFAULT), the
#                slurmstepd's mapped libpmix (see above)
#   event-host   slurm_client event-host: the last rank notifies an event,
#                range NAMESPACE, without PMIX_EVENT_NON_DEFAULT. OpenPMIx's
#                server runs its own handlers for every event a client
#                notifies; slurmstepd's default handler then logs "Error
#                handler invoked: status = -3011" and kills the step. The
#                case passes when that line appears (OpenPMIx's behaviour).
#   abort        slurm_client abort: rank 1 PMIx_Abort(7); srun ends in time
#                with a non-zero status; the mixed and the rpmix srun status
#                must equal OpenPMIx's (7 with Slurm 22.05)
#   fence-kill   c-tests/fault_fence_kill.c (now): rank 3 SIGKILLs itself
#                while the others fence; srun must end in time, non-zero,
#                and its status equal OpenPMIx's; the survivors' fence
#                statuses are shown when they differ from OpenPMIx's
#   mpi-hello    c-tests/mpi/hello.c (Open MPI 4.1.4): Allreduce, Barrier;
#                every rank prints the PMIx_Get_version() it loaded
#   mpi-abort    c-tests/mpi/abort.c: MPI_Abort(3); status compared as abort
#   oex-<name>   OpenPMIx's examples (hello, nodeinfo, client, client2,
#                dmodex; -n 2) built with c-tests/openpmix-examples/examples.h;
#                exit 0, the example's completion line, no failure message
# After every run, the step's slurmstepd (the PMIx server) must exit within
# 5 s; the mixed or rpmix one not exiting when phase 1's did fails the case
# (the reverse is shown as a note: OpenPMIx's slurmstepd sometimes hangs in
# fini after an abort).
# Verdict, one line per case (the table has a column per phase: openpmix,
# mixed, rpmix): a case FAILS when it passes on OpenPMIx and fails mixed or
# on rpmix, or when any phase ran on the wrong library; one failing on
# OpenPMIx and mixed or on rpmix too is reported as "SKIP: <case> (fails on
# OpenPMIx and ...: <why>)" and does not fail the driver; one failing on
# OpenPMIx only passes. A line "(per phase: ...)" counts the cases each
# phase passed (after the srun-status and slurmstepd comparisons).
#
# Prints PASS:/FAIL:/SKIP: lines, a table, and last "N passed, M failed";
# exit status 0 only when nothing failed.
set -u
# No core files in the work tree: OpenPMIx 4.2.2's slurmstepd sometimes
# crashes in PMIx_server_finalize at the end of a step (seen in its backtrace).
ulimit -c 0

INSIDE=0
if [ "${1:-}" = --inside ]; then
    INSIDE=1; TESTDIR=$2; shift 2
fi
. "$(dirname "$0")/testlib.sh" "$@"

HARD_LIMIT=170   # seconds, the whole namespace part (hard)
BUDGET=150       # seconds for the cases, from the start of the inside part
T_CASE=30        # per srun
PMIX_LIB_PATH=/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so
SB=$B/slurm
OEXB=$B/oex
MARKER_PREFIX=rpmix-slurm
OEX_LIST="hello nodeinfo client client2 dmodex"
# the cases (RPMIX_CASE selects among them)
CASES=""
# Intel MPI's runtime (tools/install-consumers.sh, cached outside the work tree)
IMPI=${RPMIX_CACHE:-$HOME/.cache/rpmix}/consumers/impi
for c in basic event-host abort fence-kill mpi-hello mpi-abort $(printf 'oex-%s ' $OEX_LIST) impi-2 impi-4; do
    selected "$c" && CASES="$CASES $c"
done

# pids_in_ns <ns>: the live (not zombie) processes whose mount namespace is
# <ns> ("mnt:[N]"), one `ls` for all of /proc.
pids_in_ns() {
    local p
    for p in $(ls -l /proc/[0-9]*/ns/mnt 2>/dev/null | awk -v ns="$1" '$NF == ns { split($(NF-2), a, "/"); print a[3] }'); do
        # not this (sub)shell; gone ones ('': the ls|awk helpers) and zombies neither
        [ "$p" = "$BASHPID" ] && continue
        case $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) in Z|'') continue ;; esac
        echo "$p"
    done
}

# ======================================================================
# Outside: build, then run the inside part in a private mount namespace.
# ======================================================================
if [ $INSIDE = 0 ]; then
    if [ -z "$CASES" ]; then check_case_filter; echo "$passed passed, $failed failed"; exit 1; fi
    if [ "$(id -u)" != 0 ]; then
        echo "slurm-tests: needs root (Slurm daemons, mount namespace)"; echo "0 passed, 1 failed"; exit 1
    fi
    mkdir -p "$SB/logs" || { echo "cannot create $SB"; echo "0 passed, 1 failed"; exit 1; }
    if ! "$ROOT/tools/install-slurm.sh" >"$SB/install.log" 2>&1; then
        fail install "tools/install-slurm.sh failed" "$SB/install.log"; echo "$passed passed, $failed failed"; exit 1
    fi
    case " $CASES " in *" impi-"*)
        if ! "$ROOT/tools/install-consumers.sh" >"$SB/install-consumers.log" 2>&1; then
            fail install "tools/install-consumers.sh failed" "$SB/install-consumers.log"; echo "$passed passed, $failed failed"; exit 1
        fi ;;
    esac
    RLIB=$LIBDIR/libpmix.so
    [ -e "$RLIB" ] || RLIB=$LIBDIR/libpmix.so.2
    if [ ! -e "$RLIB" ]; then
        echo "no $LIBDIR/libpmix.so (build the library, or set RPMIX_LIBDIR)"; echo "0 passed, 1 failed"; exit 1
    fi
    command -v pgrep >/dev/null 2>&1 || { echo "pgrep (procps) is needed"; echo "0 passed, 1 failed"; exit 1; }

    # ---- build (against OpenPMIx's headers; each once: build_once) ----
    blog=$SB/build.log; : >"$blog"; built=1
    CF="-std=gnu99 -g -O1 -Wall"
    build_once "$SB/slurm_client" $CC $CF -I"$REF_INC" "$ROOT/c-tests/slurm/slurm_client.c" -o "$SB/slurm_client" -l:libpmix.so.2 >>"$blog" 2>&1 || built=0
    build_once "$SB/fault_fence_kill" $CC $CF -I"$REF_INC" "$ROOT/c-tests/fault_fence_kill.c" -o "$SB/fault_fence_kill" -l:libpmix.so.2 >>"$blog" 2>&1 || built=0
    build_once "$SB/mpi_hello" mpicc -O1 -g -I"$ROOT/c-tests/mpi" "$ROOT/c-tests/mpi/hello.c" -o "$SB/mpi_hello" -ldl >>"$blog" 2>&1 || built=0
    build_once "$SB/mpi_abort" mpicc -O1 -g "$ROOT/c-tests/mpi/abort.c" -o "$SB/mpi_abort" >>"$blog" 2>&1 || built=0
    build_once "$SB/libwhich_pmix.so" $CC -shared -fPIC -Wall -Wextra "$ROOT/c-tests/which_pmix.c" -o "$SB/libwhich_pmix.so" -ldl >>"$blog" 2>&1 || built=0
    for n in $OEX_LIST; do
        build_example "$n" "$OEXB" >>"$blog" 2>&1 || { built=0; echo "build of $n failed" >>"$blog"; }
    done
    if [ $built = 1 ]; then pass build; else fail build "compilation failed" "$blog"; echo "$passed passed, $failed failed"; exit 1; fi

    CG_BEFORE=$(ls -d /sys/fs/cgroup/*/slurm /sys/fs/cgroup/*/system.slice/slurm* 2>/dev/null)
    daemon_pids() { local n; for n in slurmd slurmctld slurmstepd munged; do pgrep -x "$n"; done; }
    DAEMONS_BEFORE=$(daemon_pids)
    TESTDIR=$(mktemp -d /tmp/rpmix-slurm.XXXXXX) || exit 1
    chmod 700 "$TESTDIR"
    OUTER_NS=$(readlink /proc/self/ns/mnt)
    t0=$(now_ms)
    OUTER_NS=$OUTER_NS timeout -k 5 $HARD_LIMIT unshare -m --propagation private "$0" --inside "$TESTDIR" "$@"
    irc=$?
    echo "(namespace part: exit $irc after $(( ($(now_ms) - t0) / 1000 )) s)"

    # ---- clean-up check, from outside ----
    why=""; clog=$SB/logs/cleanup.log; : >"$clog"
    NS=$(cat "$TESTDIR/mntns" 2>/dev/null || true)
    left=""
    if [ ! -f "$TESTDIR/counts" ]; then
        # the namespace part was killed before its own clean-up: keep its logs
        for f in "$TESTDIR"/log/*; do [ -f "$f" ] && cp "$f" "$SB/logs/daemons.$(basename "$f")"; done
    fi
    # (when the namespace part finished, everything should be gone at once)
    for i in $(seq 10); do
        left=""
        [ -n "$NS" ] && left=$(pids_in_ns "$NS")
        # (the pattern "...[.]..." does not match grep's own command line)
        left="$left $(grep -lE -- "${TESTDIR//./[.]}" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 | grep -vx $$)"
        left=$(echo $left | tr ' ' '\n' | sort -un | tr '\n' ' ')
        [ -z "${left// /}" ] && { left=""; break; }
        sleep 0.2
    done
    if [ -n "$left" ]; then
        add "processes left running:$left"
        ps -o pid,ppid,args -p "$(echo $left | tr ' ' ',')" >>"$clog" 2>&1
        kill -9 $left 2>/dev/null
    fi
    if grep -Eq 'libpmix|slurmstepd' /proc/self/mountinfo; then
        add "a mount of the test is visible outside the namespace"; grep -E 'libpmix|slurmstepd' /proc/self/mountinfo >>"$clog"
    fi
    # cgroup/v1 is loaded by slurmd but must not have created anything
    for d in /sys/fs/cgroup/*/slurm /sys/fs/cgroup/*/system.slice/slurm*; do
        [ -e "$d" ] && [ -z "$CG_BEFORE" ] && { echo "created: $d" >>"$clog"; rmdir "$d" 2>/dev/null; }
    done
    stray=$(pgrep -f -- "$TESTDIR" || true)
    [ -n "$stray" ] && { add "processes with the test folder remain: $stray"; kill -9 $stray 2>/dev/null; }
    # the OpenPMIx library outside is untouched
    if ! strings "$PMIX_LIB_PATH" 2>/dev/null | grep -q 'OpenPMIx'; then add "$PMIX_LIB_PATH is not OpenPMIx's outside"; fi
    # no slurm/munge process (zombies aside) that was not there before
    for i in $(seq 25); do
        new=""
        for p in $(daemon_pids); do
            case " $(echo $DAEMONS_BEFORE) " in *" $p "*) continue ;; esac
            [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" = Z ] && continue
            new="$new $p"
        done
        [ -z "$new" ] && break
        sleep 0.2
    done
    if [ -n "$new" ]; then
        add "slurm/munge processes left:$new"
        # (not ours provably -- neither in the namespace nor naming the test
        # folder, those were killed above -- so only reported)
        ps -o pid,ppid,stat,args -p "$(echo $new | tr ' ' ',')" >>"$clog" 2>&1
    fi

    # counters of the inside part
    ip=0; if_=1; ib=0
    [ -f "$TESTDIR/counts" ] && read -r ip if_ ib <"$TESTDIR/counts"
    [ -f "$TESTDIR/counts" ] || echo "FAIL: the namespace part did not finish (exit $irc; timed out?)"
    rm -rf "$TESTDIR"
    [ -e "$TESTDIR" ] && add "cannot remove $TESTDIR"
    if [ -z "$why" ]; then pass cleanup; else fail cleanup "$why" "$clog"; fi
    passed=$((passed + ip)); failed=$((failed + if_))
    [ "$ib" -gt 0 ] && echo "($ib case(s) fail on OpenPMIx and mixed or on rpmix too: not counted)"
    echo "$passed passed, $failed failed"
    [ $failed = 0 ]
    exit $?
fi

# ======================================================================
# Inside the private mount namespace.
# ======================================================================
START=$(now_ms)
NS=$(readlink /proc/self/ns/mnt)
echo "$NS" >"$TESTDIR/mntns"
if [ -z "${OUTER_NS:-}" ] || [ "$NS" = "$OUTER_NS" ]; then
    echo "FAIL: not in a private mount namespace ($NS)"; echo "0 1 0" >"$TESTDIR/counts"; exit 1
fi
# nothing of the caller's PMIx/Slurm/loader setup may leak into the jobs
unset LD_LIBRARY_PATH LD_PRELOAD $(env | sed -n 's/^\(\(PMIX\|SLURM\|OMPI\|PRTE\|SQUEUE\|SINFO\|SRUN\|SALLOC\)_[A-Za-z0-9_]*\)=.*/\1/p')
export TMPDIR=$TESTDIR/tmp
mkdir -p "$TMPDIR" "$TESTDIR/state" "$TESTDIR/spool" "$TESTDIR/log"
LOGS=$SB/logs
rm -f "$LOGS"/*.log "$LOGS"/daemons.* 2>/dev/null
mkdir -p "$LOGS"
both=0
PIDS_DAEMONS=""
MOUNTED=0
STEPD_WRAPPED=0
# the mixed phase: the tasks' library directory and proof file (run_srun)
TASK_LIBDIR=""
PROOF=""

remaining() { echo $(( BUDGET - ($(now_ms) - START) / 1000 )); }

# kill_ns_procs: every process of this namespace but this shell (and its
# subshells) -- stuck tasks, slurmstepd, srun -- by PID.
kill_ns_procs() {
    local sig=$1 p list=""
    for p in $(pids_in_ns "$NS"); do
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
        [ -e "/proc/$p" ] || continue
        # our own short-lived helpers (ls, awk, subshells) are children of this shell
        [ "$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)" = $$ ] && continue
        [ "$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)" = "$BASHPID" ] && continue
        list="$list $p"
    done
    if [ -n "$list" ]; then
        ps -o pid,ppid,stat,args -p "$(echo $list | tr ' ' ',')" >>"$TESTDIR/log/leftovers.$sig" 2>&1
        kill "-$sig" $list 2>/dev/null
    fi
    echo "$list"
}

cleanup_inside() {
    local left
    trap - EXIT INT TERM
    # (unquoted: one pid a word)
    slurm_stop_daemons 30 $PIDS_DAEMONS
    kill_ns_procs TERM >/dev/null
    sleep 0.3
    left=$(kill_ns_procs KILL)
    [ -n "$left" ] && echo "(killed leftover processes in the namespace:$left)"
    wait 2>/dev/null
    [ $MOUNTED = 1 ] && umount "$PMIX_LIB_PATH" 2>/dev/null
    [ $STEPD_WRAPPED = 1 ] && umount /usr/sbin/slurmstepd 2>/dev/null
    # keep the daemons' logs
    for f in "$TESTDIR"/log/*; do [ -f "$f" ] && cp "$f" "$LOGS/daemons.$(basename "$f")"; done
    cp "$TESTDIR/slurm.conf" "$LOGS/daemons.slurm.conf" 2>/dev/null
    echo "$passed $failed $both" >"$TESTDIR/counts"
}
trap cleanup_inside EXIT
trap 'exit 1' INT TERM

die_setup() {  # die_setup <why> <log>
    fail setup "$1" "$2"
    exit 1
}

# ---- munge, slurm.conf (tools/testlib.sh) ----
slurm_munged "$TESTDIR"; st=$?
PIDS_DAEMONS="$PIDS_DAEMONS $MUNGED_PID"
[ $st = 0 ] || die_setup "$SLURM_WHY" "$SLURM_LOG"
slurm_write_conf "$TESTDIR" || die_setup "$SLURM_WHY" /dev/null

start_slurmctld() {
    slurmctld -D -i -f "$CONF" >>"$TESTDIR/log/slurmctld.out" 2>&1 &
    SLURMCTLD_PID=$!
    PIDS_DAEMONS="$PIDS_DAEMONS $SLURMCTLD_PID"
}
start_slurmd() {
    local dbg=()
    [ -n "${RPMIX_SLURM_DEBUG:-}" ] && dbg=(env PMIX_DEBUG="$RPMIX_SLURM_DEBUG")
    "${dbg[@]}" slurmd -D -f "$CONF" >>"$TESTDIR/log/slurmd.out" 2>&1 &
    SLURMD_PID=$!
    PIDS_DAEMONS="$PIDS_DAEMONS $SLURMD_PID"
}
wait_idle() { slurm_wait_idle "$1" "$TESTDIR/log/slurmd.out"; }
# With RPMIX_SLURM_DEBUG, slurmstepd's stderr (a pipe slurmd does not keep)
# goes to log/slurmstepd.stderr, so the PMIx server's PMIX_DEBUG lines are
# kept: a wrapper is bind-mounted over /usr/sbin/slurmstepd in this
# namespace only, exec'ing a copy of the real binary.
if [ -n "${RPMIX_SLURM_DEBUG:-}" ]; then
    cp /usr/sbin/slurmstepd "$TESTDIR/slurmstepd.real"
    printf '#!/bin/sh\nexec 2>>"%s"\nexec "%s" "$@"\n' "$TESTDIR/log/slurmstepd.stderr" "$TESTDIR/slurmstepd.real" >"$TESTDIR/slurmstepd-wrap"
    chmod 755 "$TESTDIR/slurmstepd-wrap"
    mount --bind "$TESTDIR/slurmstepd-wrap" /usr/sbin/slurmstepd && STEPD_WRAPPED=1
fi
start_slurmctld
start_slurmd
if ! wait_idle 30; then
    cat "$TESTDIR/log/slurmctld.out" "$TESTDIR/log/slurmd.out" >"$LOGS/setup.log" 2>/dev/null
    tail -n 20 "$TESTDIR/log/slurmctld.log" "$TESTDIR/log/slurmd.log" >>"$LOGS/setup.log" 2>/dev/null
    die_setup "the node did not become idle in 30 s" "$LOGS/setup.log"
fi
echo "(slurm up after $(( ($(now_ms) - START) / 1000 )) s: node $HOST, $NCPU CPUs, ${MEM_MB} MB, ports $P1/$P2)"

# ---- running one case ----
# run_srun <log> <ntasks> <prog args...>: sets RC, MS; marker in the environment.
run_srun() {
    local log=$1 n=$2; shift 2
    local t=$T_CASE rem; rem=$(remaining)
    [ "$rem" -lt "$t" ] && t=$rem
    if [ "$t" -lt 5 ]; then echo "[not run: time budget exhausted]" >"$log"; RC=125; MS=0; return; fi
    local marker; marker=$(new_marker x)
    local stepd_before; stepd_before=$(stepd_pids)
    local t0; t0=$(now_ms)
    local dbg=(); [ -n "${RPMIX_SLURM_DEBUG:-}" ] && dbg=(PMIX_DEBUG="$RPMIX_SLURM_DEBUG")
    # the mixed phase: rpmix's library (and the proof) for the tasks alone
    local wrap=()
    [ -n "$TASK_LIBDIR" ] && wrap=(env LD_LIBRARY_PATH="$TASK_LIBDIR" LD_PRELOAD="$SB/libwhich_pmix.so" WHICH_PMIX_OUT="$PROOF")
    ( cd "$SB" && env "${dbg[@]}" RPMIX_SLURM_CASE=$marker OMPI_MCA_mpi_yield_when_idle=1 \
        timeout -k 3 "$t" srun --mpi=pmix -O -N 1 -n "$n" -t 2 "${wrap[@]}" "$@" >"$log" 2>&1; exit $? ) 2>/dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    TIMEDOUT=0
    [ $RC = 124 ] || [ "$MS" -ge $(( t * 1000 - 200 )) ] && TIMEDOUT=1
    echo "[exit $RC after $MS ms$([ $TIMEDOUT = 1 ] && echo ", timed out (limit $t s)")]" >>"$log"
    LEFT=""
    local i pids
    for i in $(seq 30); do
        pids=$(grep -l -a -F -- "$marker" /proc/[0-9]*/environ 2>/dev/null | sed 's,/proc/\([0-9]*\)/environ,\1,' | grep -vx -e $$ -e "$BASHPID" || true)
        [ -z "$pids" ] && break
        sleep 0.1
    done
    if [ -n "$pids" ]; then
        LEFT=$pids
        echo "leftover processes:" >>"$log"; ps -o pid,ppid,args -p "$(echo $pids | tr ' ' ',')" >>"$log" 2>&1
        kill -9 $pids 2>/dev/null
    fi
    # the step's slurmstepd (the PMIx server) must exit after the step
    local p new
    STEPD_LEFT=""
    for i in $(seq 50); do
        new=""
        for p in $(stepd_pids); do
            case " $stepd_before " in *" $p "*) ;; *) new="$new $p" ;; esac
        done
        [ -z "$new" ] && break
        sleep 0.1
    done
    if [ -n "$new" ]; then
        STEPD_LEFT=$new
        echo "slurmstepd still running 5 s after srun ended:" >>"$log"
        ps -o pid,ppid,stat,args -p "$(echo $new | tr ' ' ',')" >>"$log" 2>&1
        for p in $new; do echo "  stack of $p:"; cat /proc/$p/task/*/wchan 2>/dev/null | sort | uniq -c; echo; done >>"$log" 2>&1
    fi
}
# slurmstepd processes (not zombies) of this namespace
stepd_pids() {
    local p
    for p in $(pgrep -x slurmstepd); do
        [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" = Z ] && continue
        [ "$(readlink /proc/$p/ns/mnt 2>/dev/null)" = "$NS" ] && echo "$p"
    done
}

# check_versions <log> <want prefix> <expected count>: every "version" line
# (slurm_client, "pmix=" for MPI) names the right library.
check_versions() {
    local log=$1 want=$2 cnt=$3 got bad
    got=$(grep -cE "(: version |pmix=)$want" "$log")
    bad=$(grep -E '(: version |pmix=)' "$log" | grep -vE "(: version |pmix=)$want" | head -n1)
    [ -n "$bad" ] && { add "WRONG LIBRARY: $bad"; LIBWRONG=1; }
    [ "$got" -lt "$cnt" ] && add "$got of $cnt tasks printed a $want version"
}

# check_proof <log> <min> <max>: the mixed phase's which_pmix reports (one
# per task that loaded the library) all name rpmix's copy, and there are
# <min> to <max> of them; they are appended to <log> (after the case's own
# checks have read it).
check_proof() {
    local log=$1 min=$2 max=$3 n=0 total=0 pid path ver want
    want=$(stat -c %i "$TESTDIR/mixlib/libpmix.so.2")
    while read -r pid path ver; do
        total=$((total + 1))
        if [ "$(stat -L -c %i "$path" 2>/dev/null)" = "$want" ]; then n=$((n + 1))
        elif [ "$path" = not-loaded ]; then add "task $pid loaded no libpmix.so.2"
        else add "WRONG LIBRARY: task $pid loaded $path ($ver)"; LIBWRONG=1; fi
    done <"$PROOF"
    if [ "$total" -lt "$min" ] || [ "$total" -gt "$max" ]; then
        add "$total which_pmix reports, expected $min$([ "$min" != "$max" ] && echo " to $max")"
    fi
    { echo "which_pmix reports ($n of $total naming rpmix's copy, inode $want):"; sed 's/^/  /' "$PROOF"; } >>"$log"
}

declare -A RES WHY RCS TIMES STEPD
# case_basic <lib> <want>
case_basic() {
    local lib=$1 want=$2 log=$LOGS/basic.$1.log
    why=""
    run_srun "$log" 4 ./slurm_client basic 4
    [ $RC = 0 ] || add "srun exit $RC"
    [ "$(grep -c ': OK$' "$log")" = 4 ] || add "$(grep -c ': OK$' "$log") of 4 ranks OK"
    grep -q 'FAIL' "$log" && add "$(grep -m1 FAIL "$log")"
    check_versions "$log" "$want" 4
    # slurmstepd's libpmix
    local sl ino_want
    sl=$(grep -m1 'stepd-lib' "$log")
    # (mixed: slurmstepd is on OpenPMIx, as in phase 1)
    if [ "$lib" = rpmix ]; then ino_want=$(stat -c %i "$TESTDIR/libpmix.so"); else ino_want=$(stat -L -c %i "$PMIX_LIB_PATH"); fi
    if [ -z "$sl" ]; then add "no stepd-lib line"
    elif [ "$(echo "$sl" | awk '{print $5}')" != "$ino_want" ]; then add "WRONG LIBRARY in slurmstepd: $sl (want inode $ino_want)"; LIBWRONG=1
    fi
    [ -n "$LEFT" ] && add "processes left running"
}
case_abort() {
    local lib=$1 want=$2 log=$LOGS/abort.$1.log
    why=""
    run_srun "$log" 4 ./slurm_client abort 4
    [ $TIMEDOUT = 1 ] && add "timed out"
    [ $RC = 0 ] && add "srun exit 0"
    grep -q 'still alive' "$log" && add "$(grep -m1 'still alive' "$log")"
    check_versions "$log" "$want" 4
    [ -n "$LEFT" ] && add "processes left running"
}
case_event_host() {
    local lib=$1 want=$2 log=$LOGS/event-host.$1.log
    why=""
    run_srun "$log" 4 ./slurm_client event-host 4
    [ $TIMEDOUT = 1 ] && add "timed out"
    grep -q 'notified event' "$log" || add "the last rank did not notify"
    grep -q 'Error handler invoked: status = -3011' "$log" ||
        add "slurmstepd's default event handler was not invoked (no 'Error handler invoked: status = -3011'; srun exit $RC, $(grep -c ': done$' "$log") of 4 ranks finished normally)"
    check_versions "$log" "$want" 4
    [ -n "$LEFT" ] && add "processes left running"
}
case_fence_kill() {
    local lib=$1 want=$2 log=$LOGS/fence-kill.$1.log
    why=""
    run_srun "$log" 4 ./fault_fence_kill now
    [ $TIMEDOUT = 1 ] && add "timed out"
    [ $RC = 0 ] && add "srun exit 0"
    grep -q 'PMIx_Init failed\|first fence failed' "$log" && add "$(grep -m1 'PMIx_Init failed\|first fence failed' "$log")"
    [ -n "$LEFT" ] && add "processes left running"
}
case_mpi_hello() {
    local lib=$1 want=$2 log=$LOGS/mpi-hello.$1.log
    why=""
    run_srun "$log" 4 ./mpi_hello
    [ $RC = 0 ] || add "srun exit $RC"
    [ "$(grep -c '^hello [0-3]/4 pmix=' "$log")" = 4 ] || add "$(grep -c '^hello [0-3]/4 pmix=' "$log") of 4 hello lines"
    check_versions "$log" "$want" 4
    [ -n "$LEFT" ] && add "processes left running"
}
case_mpi_abort() {
    local lib=$1 want=$2 log=$LOGS/mpi-abort.$1.log
    why=""
    run_srun "$log" 4 ./mpi_abort
    [ $TIMEDOUT = 1 ] && add "timed out"
    [ $RC = 0 ] && add "srun exit 0"
    grep -q 'passed the barrier' "$log" && add "MPI_Abort did not kill the job"
    grep -q 'calling MPI_Abort' "$log" || add "rank 1 did not reach MPI_Abort"
    [ -n "$LEFT" ] && add "processes left running"
}
# oex: name -> completion regex and count (of 2 tasks)
declare -A OEX_RE=(
  [hello]='PMIx_Finalize successfully completed' [nodeinfo]='PMIx_Finalize successfully completed'
  [client]='PMIx_Finalize successfully completed' [client2]='PMIx_Finalize successfully completed'
  [dmodex]='rank 0:PMIx_Finalize successfully'
)
declare -A OEX_N=([hello]=2 [nodeinfo]=2 [client]=2 [client2]=2 [dmodex]=1)
case_oex() {
    local name=$1 lib=$2 log=$LOGS/oex-$1.$2.log
    why=""
    run_srun "$log" 2 "$OEXB/$name"
    [ $RC = 0 ] || add "srun exit $RC"
    local c; c=$(grep -cE "${OEX_RE[$name]}" "$log")
    [ "$c" -ge "${OEX_N[$name]}" ] || add "$c of ${OEX_N[$name]} completion lines"
    local e; e=$(grep -E 'failed|FAILED|Error|ERROR|wrong|WAS NOT RETURNED|incorrect|Failed to|PMIX ERROR' "$log" | grep -v 'coordinates.* failed: NOT-FOUND' | head -n1)
    [ -n "$e" ] && add "$e"
    [ -n "$LEFT" ] && add "processes left running"
}

# case_impi <ranks> <lib>: Intel MPI's IMB-MPI1 (I_MPI_PMI=pmix, the
# library named by I_MPI_PMI_LIBRARY: the system's path, which is rpmix in
# phase 3, rpmix's copy in the mixed phase); every task that loaded a
# libpmix.so.2 loaded the phase's (which_pmix, by inode)
case_impi() {
    local n=$1 lib=$2 log=$LOGS/impi-$1.$2.log proof=$TESTDIR/proof/impi-$1.$2 pl want path total=0
    why=""
    pl=/usr/lib/x86_64-linux-gnu/libpmix.so.2
    [ -n "$TASK_LIBDIR" ] && pl=$TASK_LIBDIR/libpmix.so.2
    mkdir -p "$TESTDIR/proof" && : >"$proof"
    run_srun "$log" "$n" env LD_LIBRARY_PATH="$IMPI/lib${TASK_LIBDIR:+:$TASK_LIBDIR}" I_MPI_PMI=pmix I_MPI_PMI_LIBRARY="$pl" \
        I_MPI_FABRICS=shm LD_PRELOAD="$SB/libwhich_pmix.so" WHICH_PMIX_OUT="$proof" \
        "$IMPI/bin/IMB-MPI1" PingPong Allreduce Bcast -msglog 2:3 -iter 10 -iter_policy off
    [ $RC = 0 ] || add "srun exit $RC"
    [ "$(grep -c '^# Benchmarking' "$log")" -ge 3 ] || add "$(grep -c '^# Benchmarking' "$log") benchmarks listed"
    grep -q 'All processes entering MPI_Finalize' "$log" || add "no 'All processes entering MPI_Finalize'"
    want=$(stat -L -c %i "$pl")
    while read -r _ path _; do
        [ "$path" = not-loaded ] && continue
        total=$((total + 1))
        [ "$(stat -L -c %i "$path" 2>/dev/null)" = "$want" ] || { add "WRONG LIBRARY: a task loaded $path"; LIBWRONG=1; }
    done <"$proof"
    [ "$total" -ge "$n" ] || add "$total of $n tasks loaded a libpmix.so.2"
    [ -n "$LEFT" ] && add "processes left running"
}

run_case() {  # run_case <case> <lib> <want>: sets RES/WHY/RCS/TIMES[<case>.<lib>]
    local c=$1 lib=$2 want=$3
    LIBWRONG=0
    if [ "$lib" = mixed ]; then PROOF=$TESTDIR/proof/$c; : >"$PROOF"; fi
    case $c in
        basic) case_basic "$lib" "$want" ;;
        abort) case_abort "$lib" "$want" ;;
        fence-kill) case_fence_kill "$lib" "$want" ;;
        event-host) case_event_host "$lib" "$want" ;;
        mpi-hello) case_mpi_hello "$lib" "$want" ;;
        mpi-abort) case_mpi_abort "$lib" "$want" ;;
        oex-*) case_oex "${c#oex-}" "$lib" ;;
        impi-*) case_impi "${c#impi-}" "$lib" ;;
    esac
    if [ "$lib" = mixed ] && [ $RC != 125 ]; then
        local log=$LOGS/$c.mixed.log
        case $c in
            mpi-abort) check_proof "$log" 0 4 ;;
            oex-*) check_proof "$log" 2 2 ;;
            impi-*) ;;
            *) check_proof "$log" 4 4 ;;
        esac
    fi
    [ $RC = 125 ] && why="not run: time budget exhausted"
    if [ -z "$why" ]; then RES[$c.$lib]=pass; else RES[$c.$lib]=fail; fi
    [ $LIBWRONG = 1 ] && RES[$c.$lib]=wronglib
    WHY[$c.$lib]=$why; RCS[$c.$lib]=$RC; TIMES[$c.$lib]=$MS; STEPD[$c.$lib]=$STEPD_LEFT
    printf '  %-14s %-8s %-4s exit %-3s %5d ms %s%s\n' "$c" "$lib" "${RES[$c.$lib]}" "$RC" "$MS" "${why:+($why)}" \
        "${STEPD_LEFT:+ [slurmstepd$STEPD_LEFT still running 5 s after srun]}"
}

# bench_hello <lib>: median srun wall time (ms) of RPMIX_SLURM_BENCH runs of a
# 2-task MPI hello, "failed" when none succeeded.
declare -A BENCH
bench_hello() {
    [ -n "${RPMIX_SLURM_BENCH:-}" ] || return 0
    BENCH[$1]=$(for i in $(seq "$RPMIX_SLURM_BENCH"); do
        run_srun "$LOGS/bench.$1.$i.log" 2 ./mpi_hello
        [ $RC = 0 ] && echo "$MS"
    done | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "failed")}')
}

# ---- phase 1: OpenPMIx ----
echo "== phase 1: OpenPMIx ($(readlink -f "$PMIX_LIB_PATH"))"
for c in $CASES; do run_case "$c" openpmix OpenPMIx; done
bench_hello openpmix

# ---- rpmix's library, one copy for phases 2 and 3 ----
cp "$LIBDIR/libpmix.so" "$TESTDIR/libpmix.so" 2>/dev/null || cp -L "$LIBDIR/libpmix.so.2" "$TESTDIR/libpmix.so" ||
    die_setup "cannot copy rpmix's library" /dev/null
mkdir -p "$TESTDIR/mixlib" "$TESTDIR/proof"
ln "$TESTDIR/libpmix.so" "$TESTDIR/mixlib/libpmix.so.2" || die_setup "cannot link $TESTDIR/mixlib/libpmix.so.2" /dev/null
strings "$TESTDIR/libpmix.so" | grep -q '^rpmix ' || die_setup "$TESTDIR/libpmix.so (from $LIBDIR) is not rpmix's library" /dev/null

# ---- phase 2: mixed: slurmstepd on OpenPMIx, the tasks on rpmix ----
if grep -q libpmix /proc/self/mountinfo; then
    die_setup "a libpmix mount in the namespace before the mixed phase" /dev/null
fi
[ "$(stat -L -c %i "$PMIX_LIB_PATH")" != "$(stat -c %i "$TESTDIR/libpmix.so")" ] ||
    die_setup "$PMIX_LIB_PATH is rpmix's copy before the mixed phase" /dev/null
echo "== phase 2: mixed (slurmstepd on $(readlink -f "$PMIX_LIB_PATH"), nothing mounted; the tasks: env LD_LIBRARY_PATH=$TESTDIR/mixlib)"
TASK_LIBDIR=$TESTDIR/mixlib
for c in $CASES; do run_case "$c" mixed rpmix; done
bench_hello mixed
TASK_LIBDIR=""

# ---- phase 3: rpmix ----
kill -TERM "$SLURMD_PID" 2>/dev/null
for i in $(seq 50); do kill -0 "$SLURMD_PID" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$SLURMD_PID" 2>/dev/null
wait "$SLURMD_PID" 2>/dev/null
if ! mount --bind "$TESTDIR/libpmix.so" "$PMIX_LIB_PATH"; then
    die_setup "mount --bind failed" /dev/null
fi
MOUNTED=1
ri=$(stat -c %i "$TESTDIR/libpmix.so")
for f in "$PMIX_LIB_PATH" /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2 /usr/lib/x86_64-linux-gnu/libpmix.so.2; do
    [ "$(stat -L -c %i "$f")" = "$ri" ] || die_setup "$f is not rpmix inside the namespace after the mount" /dev/null
done
echo "== phase 3: rpmix (bind-mounted over $PMIX_LIB_PATH -> $(readlink -f "$PMIX_LIB_PATH"); covers libpmix.so.2)"
start_slurmd
if ! wait_idle 30; then
    cp "$TESTDIR/log/slurmd.out" "$LOGS/setup.log" 2>/dev/null
    die_setup "slurmd did not come back with rpmix mounted" "$LOGS/setup.log"
fi
for c in $CASES; do run_case "$c" rpmix rpmix; done
bench_hello rpmix
if [ -n "${RPMIX_SLURM_BENCH:-}" ]; then
    echo "bench: srun --mpi=pmix -n 2 ./mpi_hello, median of $RPMIX_SLURM_BENCH: OpenPMIx ${BENCH[openpmix]} ms, rpmix ${BENCH[rpmix]} ms"
    echo "bench (mixed): srun --mpi=pmix -n 2 ./mpi_hello, median of $RPMIX_SLURM_BENCH, slurmstepd on OpenPMIx and the tasks on rpmix: ${BENCH[mixed]} ms"
fi

# ---- verdicts ----
# judge_phase <case> <lib>: <lib>'s (mixed or rpmix) verdict against phase
# 1's: sets V (pass, fail, wronglib) and appends to note; a failure found
# here is recorded in WHY[<case>.<lib>].
judge_phase() {
    local c=$1 lib=$2 o=${RES[$1.openpmix]} label=$2 so sr
    V=${RES[$c.$lib]}
    if [ "$o" = pass ] && [ "$V" = pass ]; then
        case $c in abort|mpi-abort|fence-kill)
            if [ "${RCS[$c.openpmix]}" != "${RCS[$c.$lib]}" ]; then
                V=fail; WHY[$c.$lib]="srun exit ${RCS[$c.$lib]}, OpenPMIx's ${RCS[$c.openpmix]}"
            fi ;;
        esac
        if [ $c = fence-kill ]; then
            so=$(grep -o 'fence returned .*' "$LOGS/fence-kill.openpmix.log" | sort | uniq -c | tr -s ' ' | paste -sd';')
            sr=$(grep -o 'fence returned .*' "$LOGS/fence-kill.$lib.log" | sort | uniq -c | tr -s ' ' | paste -sd';')
            [ "$so" != "$sr" ] && note="$note; $label survivors' fence:$sr (OpenPMIx:$so)"
        fi
    fi
    # a slurmstepd (PMIx server) that does not exit: compared like the rest
    if [ -n "${STEPD[$c.$lib]}" ]; then
        if [ -z "${STEPD[$c.openpmix]}" ] && [ "$V" = pass ]; then
            V=fail; WHY[$c.$lib]="slurmstepd did not exit within 5 s after the step (phase 1's did)"
        else note="$note; $label: slurmstepd did not exit after the step"; fi
    fi
    return 0
}
echo "== verdicts"
printf '%-14s %-10s %-10s %-10s %s\n' case openpmix mixed rpmix note
declare -A NPASS=([openpmix]=0 [mixed]=0 [rpmix]=0)
ncases=0
for c in $CASES; do
    o=${RES[$c.openpmix]} note=""
    [ -n "${STEPD[$c.openpmix]}" ] && note="OpenPMIx's slurmstepd did not exit after the step"
    judge_phase "$c" mixed; m=$V
    judge_phase "$c" rpmix; r=$V
    case $c in abort|mpi-abort|fence-kill)
        [ "$o" = pass ] && [ "${RCS[$c.openpmix]}" = "${RCS[$c.mixed]}" ] && [ "${RCS[$c.openpmix]}" = "${RCS[$c.rpmix]}" ] &&
            note="srun exit ${RCS[$c.openpmix]} in every phase; ${note#; }" ;;
    esac
    note=${note#; }; note=${note%; }
    printf '%-14s %-10s %-10s %-10s %s\n' "$c" "$o" "$m" "$r" "$note"
    ncases=$((ncases + 1))
    [ "$o" = pass ] && NPASS[openpmix]=$((NPASS[openpmix] + 1))
    [ "$m" = pass ] && NPASS[mixed]=$((NPASS[mixed] + 1))
    [ "$r" = pass ] && NPASS[rpmix]=$((NPASS[rpmix] + 1))
    if [ "$o" = wronglib ] || [ "$m" = wronglib ] || [ "$r" = wronglib ]; then
        wl=openpmix; [ "$m" = wronglib ] && wl=mixed; [ "$r" = wronglib ] && wl=rpmix
        fail "$c" "ran on the wrong library: OpenPMIx: ${WHY[$c.openpmix]:-ok}; mixed: ${WHY[$c.mixed]:-ok}; rpmix: ${WHY[$c.rpmix]:-ok}" "$LOGS/$c.$wl.log"
    elif [ "$o" = pass ]; then
        if [ "$m" = pass ] && [ "$r" = pass ]; then pass "$c"
        elif [ "$m" = pass ]; then fail "$c" "rpmix: ${WHY[$c.rpmix]}" "$LOGS/$c.rpmix.log"
        elif [ "$r" = pass ]; then fail "$c" "mixed: ${WHY[$c.mixed]}" "$LOGS/$c.mixed.log"
        else fail "$c" "mixed: ${WHY[$c.mixed]}; rpmix: ${WHY[$c.rpmix]}" "$LOGS/$c.mixed.log"
        fi
    elif [ "$m" = pass ] && [ "$r" = pass ]; then
        pass "$c (fails on OpenPMIx only: ${WHY[$c.openpmix]})"
    else
        w="OpenPMIx: ${WHY[$c.openpmix]}"; also=""
        [ "$m" = pass ] || { w="$w; mixed: ${WHY[$c.mixed]}"; also="mixed"; }
        [ "$r" = pass ] || { w="$w; rpmix: ${WHY[$c.rpmix]}"; also="${also:+$also and }on rpmix"; }
        echo "SKIP: $c (fails on OpenPMIx and $also: $w)"
        both=$((both + 1))
    fi
done
echo "(per phase: OpenPMIx ${NPASS[openpmix]} of $ncases cases pass, mixed ${NPASS[mixed]} of $ncases, rpmix ${NPASS[rpmix]} of $ncases)"
echo "(inside: $(( ($(now_ms) - START) / 1000 )) s)"
exit 0
