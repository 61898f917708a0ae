#!/bin/bash
# slurm2-tests.sh: Slurm 22.05 (Debian) across two nodes, `srun --mpi=pmix -N 2`,
# with OpenPMIx 4.2.2 and with rpmix in every slurmstepd (the PMIx server of
# each node) and every task; the values seen are compared between the two.
#
#   tools/slurm2-tests.sh [BUILD_DIR]            (default: c-tests/build)
#   SLURM2_MODE=bench tools/slurm2-tests.sh      (tools/bench-slurm2.sh)
#
# SLURM2_SLURM=24.11: the same with Slurm 24.11.5 and OpenPMIx 5.0.7 as the
# reference (Debian 13): slurmd, slurmctld, slurm-client and munge installed
# into an overlay on tools/install-debian13.sh's root (the overlay's upper
# layer kept in ${RPMIX_CACHE:-~/.cache/rpmix}/debian13-slurm, the root left
# as it is); the driver re-executes itself in a private mount namespace that
# mounts the overlay (with /proc, /dev, /sys, a /tmp and the work tree at its
# own path), the nodes get their /tmp, /dev/shm and hosts inside the root
# too, and every daemon, build, srun and task runs chrooted there; rpmix is
# bind-mounted over the root's pmix2/lib/libpmix.so.2 (what 24.11's plugin
# dlopen()s). Cases named slurm2-24.11/<case>; Intel MPI's runtime (the
# cache's, below) is bound read-only into the root at its own path, and its
# tasks load the root's libpmix.so.2 (OpenPMIx 5.0.7, or rpmix over it);
# status names are compared without OpenPMIx 5's "PMIX_" prefix.
# Needs root (installs Slurm and munge with tools/install-slurm.sh). Time:
# ~35 s here on two nodes (setup ~2 s, 18 sruns of 0.1-4 s, a slurmd restart,
# and fence-kill-data's 20 s on OpenPMIx), ~20 s on three, ~12 s with Slurm
# 24.11, each ~15 s more for chaos's 6 + 2 rounds (once its overlay is made: ~1 min); bounded: each srun gets SLURM2_TIMEOUT s (default 30), no srun
# starts once SLURM2_BUDGET s (default 150) have passed (its case fails), and
# the namespace holders end by themselves after 600 s whatever happens.
#
# The nodes: slurm2-n1 and slurm2-n2 (SLURM2_NODES=3 adds slurm2-n3), each a
# network + UTS + mount namespace (tools/testlib.sh's nsh_start: own
# hostname, generated /etc/hosts, private /tmp and /dev/shm), joined by veth
# pairs to a bridge in slurm2-n1's network namespace, subnet
# $SLURM2_SUBNET.0/24 (default 10.214.0). One munged (a generated key, its
# socket in the work directory, which every node sees), slurmctld on
# slurm2-n1, one slurmd per node (SlurmdSpoolDir and TmpFS on the node's
# private /tmp), all started through nsenter into the node's namespaces and
# stopped by pid; srun runs on slurm2-n1. The work directory is
# BUILD_DIR/slurm2/w.XXXXXX (outside /tmp: all nodes see it).
# Phase 1 runs every case on OpenPMIx. Then the slurmds are stopped, rpmix's
# library (a copy in the work directory) is bind-mounted over
# /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so (what Slurm's mpi/pmix
# plugin dlopen()s; the mount covers libpmix.so.2 too) in each node's mount
# namespace only, the slurmds are started again, and phase 2 runs every case
# on rpmix. The tasks load the same file (their loader finds libpmix.so.2
# there).
# Which library ran: every slurmstepd is started with LD_PRELOAD of
# c-tests/slurm/upcall_count.c (slurmd's environment), which records at
# PMIx_server_init the version of the library the plugin loaded; every task
# prints the PMIx_Get_version() it runs on (slurm2_client, the MPI programs;
# Intel MPI's through c-tests/which_pmix.c). A case whose slurmstepd or task
# ran another library fails.
# Host upcalls: the same preload counts, per case, the fence_nb and
# direct_modex upcalls each library makes to slurmstepd and Slurm's
# PMIx_server_dmodex_request calls into it (lines "upcalls <case>: ...").
# Checked in every case both libraries ran (a case fails on "host upcalls:
# ..." otherwise): fence_nb as often on both, one per node per fence;
# direct_modex as often on both (none but in dmodex and absent), each answered by one
# dmodex_request; in dmodex rpmix makes one per node (see dmodex).
#
# Cases (2 tasks per node, 4 on two nodes, unless said):
#   client       c-tests/slurm/slurm2_client.c info: job size, universe size,
#                local size, number of nodes, local peers, own host, local and
#                node rank, node id, the node map (PMIx_Resolve_nodes and
#                PMIx_Resolve_peers of each node), every rank's host,
#                Put/Commit/Fence(collect)/Get of every rank (2 of them on the
#                other node). The sorted value lines must be the same on both
#                libraries, and name both nodes
#   dmodex       slurm2_client dmodex: Put/Commit, a Get of a rank on the
#                other node without a fence (the server fetches it: direct
#                modex, then Slurm's PMIx_server_dmodex_request on the other
#                node); same values on both libraries. Each node's two
#                ranks ask for the same remote rank: rpmix makes one
#                direct_modex upcall per node (one per proc in flight),
#                OpenPMIx as many or one more (when its two ranks ask at once)
#   partial      slurm2_client partial: only the ranks on slurm2-n1 Put, then
#                a collecting fence (PMIX_TIMEOUT 10 s) and a Get of rank 0's
#                value everywhere: every node's contribution must take
#                Slurm's same algorithm (its ring for data, its tree for
#                none: a node contributing nothing used to take the tree
#                while the others waited in the ring)
#   absent       slurm2_client absent: Put/Commit/Fence(collect), then each
#                rank Gets a key rank R+2 (on the next node) never put:
#                NOT_FOUND on both libraries, and, as that rank's fenced data
#                is here but not the key, both ask the host (one
#                direct_modex per rank, the same count on both: checked
#                with every case's upcalls); then its fenced value
#   mpi-hello    c-tests/mpi/twohost.c hello (Open MPI 4.1.4, btl tcp,vader,self):
#                Allreduce, ring Sendrecv, Barrier; each rank's host
#   mpi-abort    c-tests/mpi/abort.c: rank 1 MPI_Abort(3); srun's exit status
#                must be OpenPMIx's
#   fence-kill   c-tests/fault_fence_kill.c late: the last rank (on the last node) dies
#                1 s after the others entered a fence without data. Every
#                survivor's status is read, per node. Compared with
#                OpenPMIx: srun's exit status and the statuses on every node
#                but the dead rank's (SUCCESS on both: Slurm runs a fence
#                without data through its tree, which is node-local here,
#                the header below). Required of rpmix besides: the dead
#                rank's node's survivor LOST_CONNECTION (rpmix answers it
#                itself, docs/differences.md; OpenPMIx passes the fence to
#                Slurm without the dead rank and answers Slurm's SUCCESS).
#                The statuses of both are shown
#   fence-kill-data  the same with a collecting fence (FENCE_KILL_COLLECT):
#                Slurm takes its ring for a fence with data (collect and
#                ndata > 0), its tree otherwise. rpmix's server on the dead
#                rank's node still contributes its survivors' part, so every
#                node takes the ring and the other node's ranks pass the
#                fence (required: SUCCESS there, LOST_CONNECTION for the
#                dead rank's node's survivor). OpenPMIx's contributes no
#                data (NULL, 0) when it loses the rank, so that node takes
#                the tree, completes alone and its survivor cannot unpack
#                the result (UNPACK-PAST-END), while the other node's ranks
#                wait in the ring until their alarm (20 s): a case that
#                passes on rpmix only. Run with Slurm 22.05 on two nodes
#                only (else SKIP)
#   chaos        seeded rounds (SLURM2_CHAOS_ROUNDS, default 6; the seed
#                SLURM2_CHAOS_SEED, default from the clock, printed;
#                SLURM2_CHAOS_ROUND=R replays round R alone): each an
#                `srun -N <nodes> -n <2-4 per node> -O -m block` of
#                c-tests/slurm/slurm2_chaos.c, 4-6 fences of the job (the
#                first with data, the last without, the others as the seed
#                says; a Get of the next rank's value after each with data),
#                and at fence 1..NF-1 a random task is struck: SIGKILL (it
#                never enters that fence: it dies 300-1000 ms after every
#                other task is about to enter it, each making a file in a
#                directory of the work directory first), or SIGSTOP 0-300
#                ms after it entered it
#                and SIGCONT 50-1500 ms later. Each round: srun ends within
#                SLURM2_CHAOS_BOUND s (15) plus the stop; no FAIL line; the
#                nodes' tasks as asked (the host each prints); one fence_nb
#                per node per fence reached and no direct_modex. A stop:
#                every fence SUCCESS, every task done, srun exit 0. A kill:
#                srun exit 137 (as fence-kill), the fences before SUCCESS,
#                every survivor's status of the struck fence printed (none
#                stuck until its alarm), on rpmix LOST_CONNECTION on the dead
#                rank's node and SUCCESS on every other (with data and
#                without: docs/compatibility.md, Slurm across nodes). Then
#                nothing left: no task (the marker), no slurmstepd, nothing
#                new in any node's /tmp (TmpFS: Slurm's spool, the session
#                directories, the tasks' TMPDIR) or /dev/shm. All rounds run
#                on rpmix; on OpenPMIx only the first SLURM2_CHAOS_OPENPMIX
#                (1) stops and as many kills in a fence without data, whose
#                srun exit and statuses (but on the dead rank's node) are
#                compared: a kill in a fence with data leaves OpenPMIx's
#                other nodes' tasks in Slurm's ring until their alarm
#                (fence-kill-data). ~1.2 s a round.
#                SLURM2_CHAOS_KILL_DELAY=0 kills the victim at once instead
#                (without waiting for the others), often before all its
#                node's other tasks entered the fence: the node still owes
#                Slurm its contribution, once (docs/testing.md)
#   spawn        twohost.c spawn: 2 parents MPI_Comm_spawn 2 children. Slurm
#                22.05's plugin answers the spawn upcall PMIX_ERR_NOT_SUPPORTED
#                (seen in slurmd's log), so this fails on both: SKIP
#   impi         Intel MPI's IMB-MPI1 (PingPong, Allreduce) with I_MPI_PMI=pmix,
#                one task per node, libfabric's tcp provider (the system's
#                libfabric; Debian 13's with Slurm 24.11); SKIP when the
#                runtime is not installed ($IMPI: tools/install-consumers.sh)
# The Open MPI cases (mpi-hello, mpi-abort, spawn; not bench mode's runs,
# whose figures stay comparable) have Slurm take its ring for every fence (srun
# --export=ALL,SLURM_PMIX_FENCE=ring): Slurm's tree, its choice for a fence
# without data (Open MPI's barrier at the end of MPI_Init), is built with
# TreeWidth (22.05's default: 50), and when that is more than the step's
# nodes every node is a root of its own (Slurm's reverse_tree_info: no tree
# then; seen in slurmd's log as child_cntr=0 and "local delivery" on every
# node, 22.05 and 24.11), so that fence only waits for the node's own tasks
# (also why fence-kill's other node passes it, above). A node whose ring (the
# modex fence) ended first then ran MPI_Allreduce while a rank on the node
# it ended last on was still in MPI_Init's modex fence, before ob1 had
# registered its receive callbacks: that rank's btl/tcp called a NULL
# callback (SIGSEGV, srun exit 139; 1 run in 15 to 30 under load, on OpenPMIx
# and rpmix alike).
# Verdict per case: PASS when it passes on rpmix (and on OpenPMIx, with the
# same values); FAIL when it passes on OpenPMIx and not on rpmix, or the
# values differ; "SKIP: ... (fails on both)" otherwise. cleanup: nothing
# left running, no mount or veth visible outside, the work directory gone.
# Last line "N passed, M failed"; exit 0 only when none failed.
#
# Environment:
#   RPMIX_LIBDIR     rpmix's library (default target/release)
#   RPMIX_CASE       ERE selecting cases (slurm2/<case>)
#   SLURM2_NODES     2 (default) or 3
#   SLURM2_SLURM     22.05 (default: this machine's) or 24.11 (Debian 13's)
#   SLURM2_TIMEOUT, SLURM2_BUDGET, SLURM2_SUBNET (see above)
#   SLURM2_CHAOS_ROUNDS, SLURM2_CHAOS_SEED, SLURM2_CHAOS_ROUND,
#   SLURM2_CHAOS_OPENPMIX, SLURM2_CHAOS_BOUND, SLURM2_CHAOS_KILL_DELAY
#   (case chaos, above)
#   SLURM2_MODE      test | bench: `srun -N 2 -n 4 ./mpi_hello`, BENCH_RUNS
#                    (default 5) per library, medians printed side by side
set -uo pipefail
ulimit -c 0

BUILD_SUBDIR=
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
# Slurm 22.05 (this machine's) or 24.11 (the Debian 13 root's, below)
SLV=${SLURM2_SLURM:-22.05}
case $SLV in
22.05) TAG=slurm2 SB=$B/slurm2 ;;
24.11) TAG=slurm2-24.11 SB=$B/slurm2-24.11 ;;
*) echo "SLURM2_SLURM must be 22.05 or 24.11"; echo "0 passed, 1 failed"; exit 1 ;;
esac
LOGS=$SB/logs
tmo=${SLURM2_TIMEOUT:-30}
budget=${SLURM2_BUDGET:-150}
net=${SLURM2_SUBNET:-10.214.0}
nnodes=${SLURM2_NODES:-2}
mode=${SLURM2_MODE:-test}
bench_runs=${BENCH_RUNS:-5}
# RR: the root the Slurm daemons and the tasks run in ('' or the Debian 13
# root, mounted at $SB/root); IN: the prefix that enters it
RR= IN=()
# Open MPI's shared-memory transport: vader in 4.1, sm in 5.0
BTL=tcp,vader,self
[[ $SLV == 24.11 ]] && BTL=tcp,sm,self
# srun's options for an Open MPI program: every fence through Slurm's ring
# (its tree fence is node-local here: the header)
OMPI_SRUN=(--export=ALL,SLURM_PMIX_FENCE=ring)
IMPI=${RPMIX_CACHE:-$HOME/.cache/rpmix}/consumers/impi
MARKER_PREFIX=rpmix-slurm2
MARKER_VAR=RPMIX_SLURM2_CASE
start_s=$SECONDS
NODES=()
for ((i = 1; i <= nnodes; i++)); do NODES+=("slurm2-n$i"); done
N1=${NODES[0]}
NT=$((2 * nnodes))   # tasks: 2 per node
LASTN=${NODES[$((nnodes - 1))]}

CASES=(client dmodex partial absent mpi-hello mpi-abort fence-kill fence-kill-data chaos spawn impi)
die_setup() {
    fail "$TAG/setup" "$1" "${2:-}"
    echo "$passed passed, $failed failed"
    exit 1
}
[[ $mode != test ]] || require_some_case "${CASES[@]/#/$TAG/}"
[[ $(id -u) == 0 ]] || die_setup "needs root (Slurm daemons, network, UTS and mount namespaces)"
[[ $nnodes == 2 || $nnodes == 3 ]] || die_setup "SLURM2_NODES must be 2 or 3"
mkdir -p "$LOGS" || die_setup "cannot create $LOGS"
SB=$(cd "$SB" && pwd -P) LOGS=$SB/logs
rm -f "$LOGS"/*
if [[ $SLV == 22.05 ]]; then
    if ! "$ROOT/tools/install-slurm.sh" >"$SB/install.log" 2>&1; then
        die_setup "tools/install-slurm.sh failed" "$SB/install.log"
    fi
    for t in mpicc munged slurmctld slurmd srun sinfo; do
        command -v "$t" >/dev/null || die_setup "missing $t"
    done
elif [[ -z ${SLURM2_INSIDE:-} ]]; then
    # Slurm 24.11 and munge go into an overlay on the Debian 13 root
    # (tools/install-debian13.sh), kept in the cache and made again when the
    # root is: the root itself is left as it is.
    R13=$("$ROOT/tools/install-debian13.sh" 2>"$SB/install.log" | tail -n 1)
    [[ -d $R13 ]] || die_setup "the Debian 13 root could not be made" "$SB/install.log"
    OV=${RPMIX_CACHE:-$HOME/.cache/rpmix}/debian13-slurm
    want="$(cat "$R13/.rpmix-complete" 2>/dev/null) + slurmd slurmctld slurm-client munge"
    if [[ $(cat "$OV/upper/.rpmix-slurm-complete" 2>/dev/null) != "$want" ]]; then
        rm -rf "$OV" && mkdir -p "$OV/upper" "$OV/work" "$OV/merged" || die_setup "cannot create $OV"
        unshare -m --propagation private sh -c '
            mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged" &&
            mount -t proc proc "$2/merged/proc" && mount -t tmpfs tmpfs "$2/merged/tmp" &&
            chroot "$2/merged" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive sh -c \
                "apt-get install -y -q --no-install-recommends slurmd slurmctld slurm-client munge ||
                 { apt-get update -q && apt-get install -y -q --no-install-recommends slurmd slurmctld slurm-client munge; }"
        ' sh "$R13" "$OV" >>"$SB/install.log" 2>&1 || die_setup "installing Slurm 24.11 in an overlay of the Debian 13 root failed" "$SB/install.log"
        echo "$want" >"$OV/upper/.rpmix-slurm-complete"
    fi
    exec env SLURM2_INSIDE=1 SLURM2_R13="$R13" SLURM2_OV="$OV" unshare -m --propagation private "$0" "$@"
else
    # (inside a private mount namespace) the root: the overlay, /proc, /dev,
    # /sys, a /tmp, and the work tree at the same path as outside
    RR=$SB/root IN=(chroot "$SB/root")
    mkdir -p "$RR"
    { mount -t overlay overlay -o "lowerdir=$SLURM2_R13,upperdir=$SLURM2_OV/upper,workdir=$SLURM2_OV/work" "$RR" &&
        mount -t proc proc "$RR/proc" && mount --rbind /dev "$RR/dev" && mount --bind /sys "$RR/sys" &&
        mount -t tmpfs -o mode=1777 tmpfs "$RR/tmp" && mkdir -p "$RR$ROOT" && mount --bind "$ROOT" "$RR$ROOT"; } >>"$SB/install.log" 2>&1 ||
        die_setup "cannot mount the Debian 13 root" "$SB/install.log"
    case $SB/ in "$ROOT"/*) ;; *) mkdir -p "$RR$SB" && mount --bind "$SB" "$RR$SB" || die_setup "cannot bind $SB into the root" ;; esac
    case $LIBDIR/ in "$ROOT"/*) ;; *) mkdir -p "$RR$LIBDIR" && mount --bind "$LIBDIR" "$RR$LIBDIR" || die_setup "cannot bind $LIBDIR into the root" ;; esac
    # Intel MPI's runtime (tools/install-consumers.sh: PyPI's impi-rt
    # unpacked in the cache), read-only at the same path, when it is there
    if [[ -x $IMPI/bin/IMB-MPI1 ]]; then
        case $IMPI/ in "$ROOT"/*) ;; *) { mkdir -p "$RR$IMPI" && mount --bind "$IMPI" "$RR$IMPI" && mount -o remount,bind,ro "$RR$IMPI"; } >>"$SB/install.log" 2>&1 ||
            die_setup "cannot bind $IMPI into the root" "$SB/install.log" ;; esac
    fi
    for t in mpicc gcc munged slurmctld slurmd srun sinfo; do
        "${IN[@]}" sh -c "command -v $t" >/dev/null || die_setup "missing $t in the Debian 13 root"
    done
fi
for t in unshare nsenter ip timeout pgrep; do
    command -v "$t" >/dev/null || die_setup "missing $t"
done
# the library Slurm's mpi/pmix plugin dlopen()s (22.05: libpmix.so, 24.11:
# libpmix.so.2; both links to the library file, which a mount covers)
PMIX_LIB_PATH=$RR/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so
[[ $SLV == 24.11 ]] && PMIX_LIB_PATH=$RR/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2
RLIB=$LIBDIR/libpmix.so
[[ -e $RLIB ]] || RLIB=$LIBDIR/libpmix.so.2
[[ -e $RLIB ]] || die_setup "no $LIBDIR/libpmix.so (build the library, or set RPMIX_LIBDIR)"

# ---- build (against OpenPMIx's headers; each once) ----
blog=$SB/build.log
: >"$blog"
CF="-std=gnu99 -g -O1 -Wall"
if [[ $SLV == 24.11 ]]; then
    # inside the root: its compilers, OpenPMIx 5.0.7's headers, Open MPI 5.0.7
    I5=/usr/lib/x86_64-linux-gnu/pmix2/include
    {
        build_once "$SB/slurm2_client" "${IN[@]}" gcc $CF -I$I5 "$ROOT/c-tests/slurm/slurm2_client.c" -o "$SB/slurm2_client" -lpmix &&
        build_once "$SB/libupcall_count.so" "${IN[@]}" gcc -shared -fPIC -Wall -Wextra -I$I5 "$ROOT/c-tests/slurm/upcall_count.c" -o "$SB/libupcall_count.so" -ldl &&
        build_once "$SB/fault_fence_kill" "${IN[@]}" gcc $CF -I$I5 "$ROOT/c-tests/fault_fence_kill.c" -o "$SB/fault_fence_kill" -lpmix &&
        build_once "$SB/slurm2_chaos" "${IN[@]}" gcc $CF -I$I5 "$ROOT/c-tests/slurm/slurm2_chaos.c" -o "$SB/slurm2_chaos" -lpmix &&
        build_once "$SB/twohost" "${IN[@]}" mpicc -O2 -Wall -Wextra -o "$SB/twohost" "$ROOT/c-tests/mpi/twohost.c" &&
        build_once "$SB/mpi_hello" "${IN[@]}" mpicc -O1 -g -I"$ROOT/c-tests/mpi" "$ROOT/c-tests/mpi/hello.c" -o "$SB/mpi_hello" -ldl &&
        build_once "$SB/mpi_abort" "${IN[@]}" mpicc -O1 -g "$ROOT/c-tests/mpi/abort.c" -o "$SB/mpi_abort" &&
        build_once "$SB/libwhich_pmix.so" "${IN[@]}" gcc -shared -fPIC -Wall -Wextra "$ROOT/c-tests/which_pmix.c" -o "$SB/libwhich_pmix.so" -ldl
    } >>"$blog" 2>&1 || die_setup "compilation in the Debian 13 root failed" "$blog"
else {
    build_once "$SB/slurm2_client" $CC $CF -I"$REF_INC" "$ROOT/c-tests/slurm/slurm2_client.c" -o "$SB/slurm2_client" -l:libpmix.so.2 &&
    build_once "$SB/libupcall_count.so" $CC -shared -fPIC -Wall -Wextra -I"$REF_INC" "$ROOT/c-tests/slurm/upcall_count.c" -o "$SB/libupcall_count.so" -ldl &&
    build_once "$SB/fault_fence_kill" $CC $CF -I"$REF_INC" "$ROOT/c-tests/fault_fence_kill.c" -o "$SB/fault_fence_kill" -l:libpmix.so.2 &&
    build_once "$SB/slurm2_chaos" $CC $CF -I"$REF_INC" "$ROOT/c-tests/slurm/slurm2_chaos.c" -o "$SB/slurm2_chaos" -l:libpmix.so.2 &&
    build_once "$SB/twohost" mpicc -O2 -Wall -Wextra -o "$SB/twohost" "$ROOT/c-tests/mpi/twohost.c" &&
    build_once "$SB/mpi_hello" mpicc -O1 -g -I"$ROOT/c-tests/mpi" "$ROOT/c-tests/mpi/hello.c" -o "$SB/mpi_hello" -ldl &&
    build_once "$SB/mpi_abort" mpicc -O1 -g "$ROOT/c-tests/mpi/abort.c" -o "$SB/mpi_abort" &&
    build_once "$SB/libwhich_pmix.so" $CC -shared -fPIC -Wall -Wextra "$ROOT/c-tests/which_pmix.c" -o "$SB/libwhich_pmix.so" -ldl
} >>"$blog" 2>&1 || die_setup "compilation failed" "$blog"
fi

# ---- the work directory, the nodes ----
work=$(mktemp -d "$SB/w.XXXXXX") || die_setup "mktemp failed"
chmod 700 "$work"
PIDS_DAEMONS=()
declare -A SLURMD_PID=()
MOUNTED=()
cleanup() {
    local p h i left
    trap - EXIT INT TERM
    for p in "${SLURMD_PID[@]}" "${PIDS_DAEMONS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for ((i = 0; i < 30; i++)); do
        left=
        for p in "${SLURMD_PID[@]}" "${PIDS_DAEMONS[@]}"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [[ -z $left ]] && break
        sleep 0.1
    done
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    for h in "${MOUNTED[@]}"; do nsh_in "$h" umount "$PMIX_LIB_PATH" 2>/dev/null; done
    for f in "$work"/log/*; do [[ -f $f ]] && cp "$f" "$LOGS/daemons.$(basename "$f")"; done
    nsh_kill_all
    wait 2>/dev/null
    # (24.11: the Debian 13 root's overlay and what is mounted in it)
    [[ -n $RR ]] && umount -R "$RR" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM
mkdir -p "$work/log" "$work/state" "$work/proof"

{
    echo "127.0.0.1 localhost"
    for ((i = 0; i < nnodes; i++)); do echo "$net.$((i + 1)) ${NODES[$i]}"; done
} >"$work/hosts"
NSH_WD=$SB
setup_log=$LOGS/setup.log
: >"$setup_log"
setup_nodes() {
    local h i
    for h in "${NODES[@]}"; do
        nsh_start "$h" 600 "$work/hosts" "$SB" "$LIBDIR" "$IMPI" || return 1
        # in the Debian 13 root too: the node's own /tmp, /dev/shm and hosts
        if [[ -n $RR ]]; then
            # (a work tree under /tmp is bound in again over the node's /tmp)
            nsenter -t "${NSH_PID[$h]}" -m -- sh -e -c 'r=$1; mount -t tmpfs -o mode=1777 nshost-tmp "$r/tmp"
                mount -t tmpfs -o mode=1777 nshost-shm "$r/dev/shm"; mount --bind "$2" "$r/etc/hosts"
                shift 2
                for d in "$@"; do
                    case $d/ in /tmp/*) mkdir -p "$r$d"; mount --rbind "$d" "$r$d" ;; esac
                done' sh "$RR" "$work/hosts" "$SB" "$LIBDIR" "$IMPI" || return 1
        fi
    done
    # a bridge on slurm2-n1 holding its address; a veth from every other node to it
    nsh_in "$N1" ip link add br0 type bridge &&
        nsh_in "$N1" ip addr add "$net.1/24" dev br0 && nsh_in "$N1" ip link set br0 up || return 1
    for ((i = 1; i < nnodes; i++)); do
        h=${NODES[$i]}
        ip link add eth0 netns "${NSH_PID[$h]}" type veth peer name "v$i" netns "${NSH_PID[$N1]}" &&
            nsh_in "$N1" ip link set "v$i" master br0 && nsh_in "$N1" ip link set "v$i" up &&
            nsh_in "$h" ip addr add "$net.$((i + 1))/24" dev eth0 && nsh_in "$h" ip link set eth0 up || return 1
    done
    # (the link itself is proven by every slurmd registering with slurmctld on slurm2-n1)
    for h in "${NODES[@]}"; do nsh_in "$h" sh -c 'echo "$(hostname): $(ip -br addr | tr -s " " | tr "\n" ";")"'; done
}
setup_nodes >>"$setup_log" 2>&1 || die_setup "could not create the nodes' namespaces" "$setup_log"
for h in "${NODES[@]}"; do
    [[ $(nsh_in "$h" hostname) == "$h" ]] || die_setup "hostname of $h not set" "$setup_log"
done

# ---- munge, slurm.conf, the daemons ----
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge.key"
MSOCK=$work/munge.sock
nsh_in "$N1" "${IN[@]}" munged -F -f --key-file="$work/munge.key" --socket="$MSOCK" --pid-file="$work/munged.pid" \
    --log-file="$work/log/munged.log" --seed-file="$work/munged.seed" >"$work/log/munged.out" 2>&1 &
PIDS_DAEMONS+=($!)
for ((i = 0; i < 50; i++)); do [[ -S $MSOCK ]] && break; sleep 0.1; done
[[ -S $MSOCK ]] || die_setup "munged did not start" "$work/log/munged.out"

NCPU=2
MEM_MB=1024
CONF=$work/slurm.conf
nodelist="slurm2-n[1-$nnodes]"
cat >"$CONF" <<EOF
ClusterName=rpmix2
SlurmctldHost=$N1($net.1)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MSOCK
StateSaveLocation=$work/state
SlurmdSpoolDir=/tmp/slurmd-spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=/tmp/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=debug
TmpFS=/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
$([[ $SLV == 22.05 ]] && echo SwitchType=switch/none)
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=2
MessageTimeout=10
SlurmdTimeout=120
SlurmdParameters=config_overrides
EOF
for ((i = 0; i < nnodes; i++)); do
    echo "NodeName=${NODES[$i]} NodeAddr=$net.$((i + 1)) CPUs=$NCPU RealMemory=$MEM_MB State=UNKNOWN" >>"$CONF"
done
echo "PartitionName=test Nodes=$nodelist Default=YES MaxTime=INFINITE OverSubscribe=YES State=UP" >>"$CONF"
# (as tools/slurm-tests.sh: 22.05's slurmd loads a cgroup plugin whatever
# the configuration; cgroup/v1 creates nothing here)
# (24.11 has CgroupPlugin=disabled)
if [[ $SLV == 22.05 ]]; then printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$work/cgroup.conf"
else echo CgroupPlugin=disabled >"$work/cgroup.conf"; fi
export SLURM_CONF=$CONF
UPLOG=$work/upcalls.log
: >"$UPLOG"

nsh_in "$N1" "${IN[@]}" slurmctld -D -i -f "$CONF" >>"$work/log/slurmctld.out" 2>&1 &
PIDS_DAEMONS+=($!)
start_slurmds() {
    local h
    for h in "${NODES[@]}"; do
        # (slurmstepd inherits slurmd's environment: the upcall counter)
        nsh_in "$h" env LD_PRELOAD="$SB/libupcall_count.so" RPMIX_UPCALL_LOG="$UPLOG" \
            "${IN[@]}" slurmd -D -f "$CONF" >>"$work/log/slurmd.$h.out" 2>&1 &
        SLURMD_PID[$h]=$!
    done
}
stop_slurmds() {
    local h i
    for h in "${NODES[@]}"; do kill -TERM "${SLURMD_PID[$h]}" 2>/dev/null; done
    for h in "${NODES[@]}"; do
        for ((i = 0; i < 50; i++)); do kill -0 "${SLURMD_PID[$h]}" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "${SLURMD_PID[$h]}" 2>/dev/null
        wait "${SLURMD_PID[$h]}" 2>/dev/null
    done
}
# wait_idle <s>: every node idle in sinfo (asked on slurm2-n1)
wait_idle() {
    local i st
    for ((i = 0; i < $1 * 5; i++)); do
        st=$(nsh_in "$N1" "${IN[@]}" sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
        [[ $(grep -c ' idle$' <<<"$st") == "$nnodes" ]] && return 0
        sleep 0.2
    done
    echo "node states: $st" >>"$setup_log"
    return 1
}
start_slurmds
if ! wait_idle 30; then
    cat "$work"/log/*.out >>"$setup_log" 2>/dev/null
    tail -n 20 "$work"/log/*.log >>"$setup_log" 2>/dev/null
    die_setup "the nodes did not become idle in 30 s" "$setup_log"
fi
echo "$TAG: Slurm $SLV, ${NODES[*]} ($net.0/24) idle after $((SECONDS - start_s)) s; logs in $LOGS"

# ---- one srun ----
over_budget() { ((SECONDS - start_s > budget)); }
# stepd_pids: the slurmstepd processes (not zombies) of the nodes
stepd_pids() {
    local p h n
    for p in $(pgrep -x slurmstepd); do
        [[ $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) == Z ]] && continue
        n=$(readlink "/proc/$p/ns/net" 2>/dev/null)
        for h in "${NODES[@]}"; do [[ $n == "${NSH_NET[$h]}" ]] && echo "$p"; done
    done
}
# run_srun <log> <srun args...> -- <prog args...>: srun on slurm2-n1; sets RC,
# MS, LEFT (processes of the case killed after 5 s), STEPD_LEFT (a
# slurmstepd still there 5 s after srun), UPC (the upcall lines of the run)
run_srun() {
    local log=$1 t0 marker up0 i p pids
    shift
    local -a sargs=()
    while [[ $1 != -- ]]; do sargs+=("$1"); shift; done
    shift
    marker=$(new_marker x)
    up0=$(wc -l <"$UPLOG")
    t0=$(now_ms)
    (nsh_in "$N1" "${IN[@]}" env SLURM_CONF="$CONF" "$MARKER_VAR=$marker" OMPI_MCA_pml=ob1 OMPI_MCA_btl="$BTL" \
        OMPI_MCA_btl_tcp_if_include="$net.0/24" OMPI_MCA_mpi_yield_when_idle=1 \
        timeout -k 3 "$tmo" srun --mpi=pmix -t 2 "${sargs[@]}" "$@" </dev/null >"$log" 2>&1; exit $?) 2>/dev/null
    RC=$?
    MS=$(($(now_ms) - t0))
    echo "[exit $RC after $MS ms]" >>"$log"
    LEFT=
    leftovers "$marker" "$log" marker_in_env || LEFT=1
    STEPD_LEFT=
    for ((i = 0; i < 50; i++)); do
        pids=$(stepd_pids)
        [[ -z $pids ]] && break
        sleep 0.1
    done
    if [[ -n $pids ]]; then
        STEPD_LEFT=$pids
        { echo "slurmstepd still running 5 s after srun:"; ps -o pid,args -p "$(echo $pids | tr ' ' ',')"; } >>"$log" 2>&1
        kill -KILL $pids 2>/dev/null
    fi
    UPC=$(tail -n +"$((up0 + 1))" "$UPLOG")
    { echo "--- upcall counter (slurmstepd):"; echo "$UPC"; } >>"$log"
}

# upcall_summary: "fence_nb=F direct_modex=D dmodex_request=R" of $UPC
upcall_summary() {
    local e out=
    for e in fence_nb direct_modex dmodex_request; do
        out="$out $e=$(grep -c " $e " <<<"$UPC ")"
    done
    echo "${out# }"
}
# check_stepd_lib <want>: every slurmstepd's PMIx server ran the library <want>
check_stepd_lib() {
    local n bad
    n=$(grep -c ' server_init ' <<<"$UPC")
    ((n >= 2)) || add "$n slurmstepd PMIx servers seen (the upcall counter), fewer than 2"
    bad=$(grep ' server_init ' <<<"$UPC" | grep -v " version=$1" | head -n1)
    [[ -z $bad ]] || add "WRONG LIBRARY in slurmstepd: $bad"
}
# check_versions <log> <want> <n>: n version lines, all of <want>
check_versions() {
    local got bad
    got=$(grep -cE "(: version |pmix=)$2" "$1")
    bad=$(grep -E '(: version |pmix=)' "$1" | grep -vE "(: version |pmix=)$2" | head -n1)
    [[ -z $bad ]] || add "WRONG LIBRARY in a task: $bad"
    ((got >= $3)) || add "$got of $3 tasks printed a $2 version"
}

declare -A RES=() VALS=() RCS=() UPS=() LOGF=() NOTE=()
libname() { [[ $1 == rpmix ]] && echo rpmix || echo OpenPMIx; }

case_client() {  # client, dmodex, partial and absent
    local c=$1 lib=$2 want log=$LOGS/$1.$2.log h
    want=$(libname "$lib")
    run_srun "$log" -N "$nnodes" -n "$NT" -- "$SB/slurm2_client" "$([[ $c == client ]] && echo info || echo "$c")" "$NT"
    ((RC == 0)) || add "srun exit $RC"
    [[ $(grep -c ': done$' "$log") == "$NT" ]] || add "$(grep -c ': done$' "$log") of $NT ranks done"
    grep -q ': FAIL ' "$log" && add "$(grep -m1 ': FAIL ' "$log")"
    check_versions "$log" "$want" "$NT"
    check_stepd_lib "$want"
    # the values, without the version lines
    # (status names without OpenPMIx 5's "PMIX_" prefix: 4.2's names, rpmix's)
    VALS[$c.$lib]=$(grep -E '^[0-9]+: [^ =]+=' "$log" | sed -E 's/([=<])PMIX_/\1/g' | sort)
    if [[ $c == client ]]; then
        for h in "${NODES[@]}"; do
            grep -q "^0: peers@$h=" "$log" || add "no peers of $h in the node map"
        done
        grep -q "^0: fence-get\[$((NT - 1))\]=fence-rank$((NT - 1))@$LASTN" "$log" || add "rank 0 did not get rank $((NT - 1))'s value from $LASTN"
    elif [[ $c == partial ]]; then
        [[ $(grep -cE "^[0-9]+: partial-get\[0\]=partial-rank0@$N1\$" "$log") == "$NT" ]] || add "not every rank got rank 0's value"
    elif [[ $c == absent ]]; then
        # (PMIX_ERR_NOT_FOUND is -46 in OpenPMIx 4 and 5)
        [[ $(grep -cE '^[0-9]+: absent-get\[[0-9]+\]=-46$' "$log") == "$NT" ]] || add "not every Get of the absent key ended NOT_FOUND (-46)"
        [[ $(grep -cE '^[0-9]+: absent-fenced\[[0-9]+\]=absent-rank[0-9]+@slurm2-n' "$log") == "$NT" ]] || add "not every rank got its remote peer's fenced value"
    else
        [[ $(grep -cE '^[0-9]+: dmodex-get\[[0-9]+\]=dmodex-rank[0-9]+@slurm2-n' "$log") == "$NT" ]] || add "not every rank got its remote peer's value"
    fi
}
case_mpi_hello() {
    local lib=$1 want log=$LOGS/mpi-hello.$1.log
    want=$(libname "$lib")
    run_srun "$log" -N "$nnodes" -n "$NT" "${OMPI_SRUN[@]}" -- "$SB/twohost" hello
    ((RC == 0)) || add "srun exit $RC"
    grep -q "^hello ok: $NT ranks, allreduce $NT" "$log" || add "no 'hello ok' line"
    check_versions "$log" "$want" "$NT"
    check_stepd_lib "$want"
    VALS[mpi-hello.$lib]=$(grep -oE "^proc rank [0-9]+/$NT host=[^ ]+" "$log" | sort)
    [[ $(grep -c "^proc rank [0-9]/$NT host=$LASTN " "$log") == 2 ]] || add "not 2 ranks on $LASTN"
}
case_mpi_abort() {
    local lib=$1 log=$LOGS/mpi-abort.$1.log
    run_srun "$log" -N "$nnodes" -n "$NT" "${OMPI_SRUN[@]}" -- "$SB/mpi_abort"
    ((RC != 0)) || add "srun exit 0"
    grep -q 'passed the barrier' "$log" && add "MPI_Abort did not kill the job"
    grep -q 'calling MPI_Abort' "$log" || add "rank 1 did not reach MPI_Abort"
    check_stepd_lib "$(libname "$lib")"
    VALS[mpi-abort.$lib]="srun exit $RC"
}
case_fence_kill() {  # case_fence_kill <case> <lib>
    local c=$1 lib=$2 log=$LOGS/$1.$2.log r st k h own other=
    local -a data=()
    [[ $c == fence-kill-data ]] && data=(env FENCE_KILL_COLLECT=1)
    run_srun "$log" -N "$nnodes" -n "$NT" -- "${data[@]}" "$SB/fault_fence_kill" late
    ((RC != 0)) || add "srun exit 0"
    grep -q 'PMIx_Init failed\|first fence failed' "$log" && add "$(grep -m1 'PMIx_Init failed\|first fence failed' "$log")"
    # each survivor's fence status (rank r runs on node r/2: block
    # distribution, 2 tasks per node), without OpenPMIx 5's "PMIX_" prefix;
    # "none" when its fence never returned
    for ((k = 0; k < nnodes; k++)); do
        h=${NODES[$k]} own=
        for ((r = 2 * k; r < 2 * k + 2 && r < NT - 1; r++)); do
            st=$(grep -m1 -o "rank $r fence returned .*" "$log" | sed -e 's/.* fence returned //' -e 's/^PMIX_//')
            [[ -n $st ]] || add "survivor rank $r: no fence status"
            own="$own, $r ${st:-none}"
        done
        own=${own#, }
        if [[ $h == "$LASTN" ]]; then
            # the dead rank's node: rpmix answers its survivor LOST_CONNECTION
            # (docs/differences.md, "A rank killed in a fence"); OpenPMIx
            # answers what the host answered its loss-time fence_nb
            [[ $lib == rpmix && $own != "$((NT - 2)) LOST_CONNECTION" ]] && add "the dead rank's node ($h): $own, not $((NT - 2)) LOST_CONNECTION"
        else
            other="$other; $h: $own"
            # on rpmix every other node's survivors pass the fence (Slurm 22.05's
            # and 24.11's tree fence is node-local here; the ring gets every
            # node's part, the survivors' of the dead rank's node too)
            [[ $lib == rpmix && $own != "$((2 * k)) SUCCESS, $((2 * k + 1)) SUCCESS" ]] && add "node $h: $own, not SUCCESS"
        fi
        NOTE[$c.$lib]="${NOTE[$c.$lib]:+${NOTE[$c.$lib]}; }$h: $own"
    done
    check_stepd_lib "$(libname "$lib")"
    # compared: srun's status and the survivors' fence statuses on every
    # node but the dead rank's (there rpmix answers LOST_CONNECTION: above)
    VALS[$c.$lib]="srun exit $RC$other"
}
case_spawn() {
    local lib=$1 log=$LOGS/spawn.$1.log n0 n1
    # (Slurm's spawn upcall logs "_spawn_fn: ... called" at SlurmdDebug=debug)
    n0=$(cat "$work"/log/slurmd.*.log 2>/dev/null | grep -c '_spawn_fn: .*called')
    run_srun "$log" -N "$nnodes" -n 2 "${OMPI_SRUN[@]}" -- "$SB/twohost" spawn
    n1=$(cat "$work"/log/slurmd.*.log 2>/dev/null | grep -c '_spawn_fn: .*called')
    ((RC == 0)) || add "srun exit $RC"
    grep -qE '^spawn ok: 2 parents' "$log" || add "no 'spawn ok' line"
    ((n1 > n0)) && add "the library made the spawn upcall, which Slurm $SLV's mpi/pmix answers PMIX_ERR_NOT_SUPPORTED"
    check_stepd_lib "$(libname "$lib")"
}
case_impi() {
    local lib=$1 log=$LOGS/impi.$1.log proof=$work/proof/impi.$1 want n
    want=$(libname "$lib")
    : >"$proof"
    run_srun "$log" -N "$nnodes" -n "$nnodes" --ntasks-per-node=1 -- env LD_LIBRARY_PATH="$IMPI/lib" I_MPI_PMI=pmix \
        I_MPI_PMI_LIBRARY=/usr/lib/x86_64-linux-gnu/libpmix.so.2 I_MPI_FABRICS=shm:ofi FI_PROVIDER=tcp \
        I_MPI_OFI_LIBRARY_INTERNAL=0 FI_TCP_IFACE=eth0 FI_PROVIDER_PATH=/usr/lib/x86_64-linux-gnu/libfabric \
        LD_PRELOAD="$SB/libwhich_pmix.so" WHICH_PMIX_OUT="$proof" \
        "$IMPI/bin/IMB-MPI1" PingPong Allreduce -msglog 2:3 -iter 10 -iter_policy off
    ((RC == 0)) || add "srun exit $RC"
    [[ $(grep -c '^# Benchmarking' "$log") -ge 2 ]] || add "$(grep -c '^# Benchmarking' "$log") benchmarks listed"
    grep -q 'All processes entering MPI_Finalize' "$log" || add "no 'All processes entering MPI_Finalize'"
    n=$(awk '$2 != "not-loaded"' "$proof" | grep -c " $want")
    [[ $(awk '$2 != "not-loaded"' "$proof" | grep -vc " $want") == 0 ]] || add "WRONG LIBRARY in a task: $(grep -v " $want" "$proof" | head -n1)"
    ((n >= nnodes)) || add "$n of $nnodes tasks loaded $want's libpmix.so.2"
    check_stepd_lib "$want"
    { echo "which_pmix reports:"; cat "$proof"; } >>"$log"
}

# ---- chaos: seeded rounds (case chaos) ----
# Round R's plan comes from bash's RANDOM seeded with the seed and R, so
# SLURM2_CHAOS_SEED=S SLURM2_CHAOS_ROUND=R replays it alone, on both
# libraries.
chaos_seed=${SLURM2_CHAOS_SEED:-$(($(date +%s) % 1000000))}
chaos_rounds=${SLURM2_CHAOS_ROUNDS:-6}
chaos_opx=${SLURM2_CHAOS_OPENPMIX:-1}
chaos_bound=${SLURM2_CHAOS_BOUND:-15}
# chaos_plan <round>: K tasks per node (2-4), NF fences (4-6; MASK: which
# collect data, the first does, the last does not), the strike at fence AT
# (1..NF-1: every task is connected by then) of rank VIC: KIND kill (the
# victim dies DELAY 300-1000 ms after every other task is about to enter
# the fence, or SLURM2_CHAOS_KILL_DELAY ms after it reached it) or stop
# (SIGSTOP DELAY 0-300 ms after it entered, SIGCONT STOPMS 50-1500 ms later)
chaos_plan() {
    RANDOM=$(((chaos_seed * 7919 + $1) % 2147483647))
    K=$((2 + RANDOM % 3))
    NF=$((4 + RANDOM % 3))
    MASK=$(((RANDOM % (1 << NF) | 1) & ~(1 << (NF - 1))))
    AT=$((1 + RANDOM % (NF - 1)))
    VIC=$((RANDOM % (nnodes * K)))
    if ((RANDOM % 2)); then KIND=kill DELAY=$((300 + RANDOM % 701)) STOPMS=0; DELAY=${SLURM2_CHAOS_KILL_DELAY:-$DELAY}
    else KIND=stop DELAY=$((RANDOM % 301)) STOPMS=$((50 + RANDOM % 1451)); fi
    RANDOM=$(($(date +%s%N) % 2147483647))
}
# chaos_tmp: what is in every node's /tmp (its TmpFS: Slurm's spool, the
# plugin's and the libraries' session directories, the tasks' TMPDIR) and
# /dev/shm, three levels down, one "node:path" a line (but slurmd's own:
# its pid file, written a while after it starts, and its credential state,
# written now and then)
chaos_tmp() {
    local h
    for h in "${NODES[@]}"; do
        nsh_in "$h" sh -c 'cd "$1/tmp" 2>/dev/null && find . -mindepth 1 -maxdepth 3 | sed "s|^\.|$2:/tmp|"
            cd "$1/dev/shm" 2>/dev/null && find . -mindepth 1 -maxdepth 3 | sed "s|^\.|$2:/dev/shm|"' sh "$RR" "$h"
    done | grep -vE ':/tmp/(slurmd-spool/cred_state|slurmd\.pid$)' | sort
}
# the fence status of rank <q> at fence <i> in <log>, without OpenPMIx 5's
# "PMIX_" prefix ('' when it printed none)
chaos_status() { grep -m1 -E "^$1: fence $2 returned " "$3" | sed -E -e 's/.* returned //' -e 's/^PMIX_(ERR_)?//'; }
case_chaos() {
    local lib=$1 want r first=0 last=$((chaos_rounds - 1)) log nt data cmp ostop=0 okill=0 why0=$why before after new
    local k q h vh st own other n fnb sync dmx desc nrun=0 nbad=0 kills=0 stops=0
    want=$(libname "$lib")
    [[ -n ${SLURM2_CHAOS_ROUND:-} ]] && first=$SLURM2_CHAOS_ROUND last=$SLURM2_CHAOS_ROUND
    echo "  chaos on $want: seed $chaos_seed, rounds $first-$last (SLURM2_CHAOS_SEED=$chaos_seed SLURM2_CHAOS_ROUND=R replays round R)"
    VALS[chaos.$lib]= LEFT= STEPD_LEFT= RC=0 MS=0 UPC=
    for ((r = first; r <= last; r++)); do
        chaos_plan "$r"
        nt=$((nnodes * K)) data=$(((MASK >> AT) & 1)) cmp=
        # compared with OpenPMIx: the first SLURM2_CHAOS_OPENPMIX stops and
        # the first as many kills in a fence without data (OpenPMIx ends
        # those; a kill in a fence with data leaves the other nodes' tasks
        # in Slurm's ring until their alarm: fence-kill-data)
        if [[ $KIND == stop ]]; then ((ostop < chaos_opx)) && cmp=1 ostop=$((ostop + 1))
        elif ((data == 0)); then ((okill < chaos_opx)) && cmp=1 okill=$((okill + 1)); fi
        [[ $lib == openpmix && -z $cmp ]] && continue
        if over_budget; then why=$why0; add "round $r and later not run: over the ${budget}s budget"; why0=$why; break; fi
        why=
        log=$LOGS/chaos.$lib.$r.log
        desc="$KIND rank $VIC at fence $AT of $NF (data=$data, mask $MASK), $nnodes x $K tasks, $([[ $KIND == kill ]] && echo "${DELAY} ms late" || echo "stopped after $DELAY ms for $STOPMS ms")"
        before=$(chaos_tmp)
        # (a kill: the victim waits until every other task is about to enter
        # the fence, each making a file in sync first; not with
        # SLURM2_CHAOS_KILL_DELAY)
        sync=() && rm -rf "$work/sync" && mkdir "$work/sync" || add "cannot make $work/sync"
        [[ -z ${SLURM2_CHAOS_KILL_DELAY:-} ]] && sync=("$work/sync")
        run_srun "$log" -N "$nnodes" -n "$nt" -O -m block -- "$SB/slurm2_chaos" "$NF" "$MASK" "$AT" "$VIC" "$KIND" "$DELAY" "$STOPMS" "${sync[@]}"
        ((MS <= chaos_bound * 1000 + STOPMS)) || add "srun took $MS ms (bound $((chaos_bound * 1000 + STOPMS)) ms)"
        grep -q ': FAIL ' "$log" && add "$(grep -m1 ': FAIL ' "$log")"
        check_versions "$log" "$want" "$nt"
        check_stepd_lib "$want"
        for h in "${NODES[@]}"; do
            n=$(grep -cE "^[0-9]+: host $h\$" "$log")
            ((n == K)) || add "$n tasks on $h, not $K"
        done
        fnb=$(grep -c ' fence_nb ' <<<"$UPC") dmx=$(grep -c ' direct_modex ' <<<"$UPC")
        ((dmx == 0)) || add "$dmx direct_modex upcalls (the Gets follow collecting fences)"
        other=
        if [[ $KIND == stop ]]; then
            stops=$((stops + 1))
            ((RC == 0)) || add "srun exit $RC"
            n=$(grep -cE '^[0-9]+: fence [0-9]+ returned (PMIX_)?SUCCESS$' "$log")
            ((n == nt * NF)) || add "$n of $((nt * NF)) fences returned SUCCESS"
            n=$(grep -c ': done$' "$log")
            ((n == nt)) || add "$n of $nt tasks done"
            ((fnb == nnodes * NF)) || add "$fnb fence_nb upcalls, not $((nnodes * NF)) (one per node per fence)"
            other="all $((nt * NF)) SUCCESS"
        else
            kills=$((kills + 1))
            # 137: the killed task (as fence-kill; the survivors exit 3)
            ((RC == 137)) || add "srun exit $RC, not 137"
            n=$(grep -cE "^[0-9]+: fence [0-9]+ returned (PMIX_)?SUCCESS$" <(grep -vE "^[0-9]+: fence $AT returned" "$log"))
            ((n == nt * AT)) || add "$n of $((nt * AT)) fences before fence $AT returned SUCCESS"
            # every survivor's status, per node (the host each task printed)
            vh=$(grep -m1 -oE "^$VIC: host .*" "$log" | cut -d' ' -f3)
            for ((k = 0; k < nnodes; k++)); do
                h=${NODES[$k]} own=
                for q in $(grep -E "^[0-9]+: host $h\$" "$log" | cut -d: -f1 | sort -n); do
                    ((q == VIC)) && continue
                    st=$(chaos_status "$q" "$AT" "$log")
                    [[ -n $st ]] || add "survivor rank $q: no fence status"
                    own="$own, $q ${st:-none}"
                    # rpmix (docs/compatibility.md, Slurm across nodes): the
                    # dead rank's node's survivors LOST_CONNECTION, every
                    # other node's SUCCESS, with data or without
                    if [[ $lib == rpmix ]]; then
                        if [[ $h == "$vh" ]]; then [[ $st == LOST_CONNECTION ]] || add "rank $q on the dead rank's node $h: ${st:-none}, not LOST_CONNECTION"
                        else [[ $st == SUCCESS ]] || add "rank $q on $h: ${st:-none}, not SUCCESS"; fi
                    fi
                done
                [[ $h == "$vh" ]] && desc="$desc; $h (dead rank's node):${own#,}" || { desc="$desc; $h:${own#,}"; other="$other; $h:${own#,}"; }
            done
            ((fnb == nnodes * (AT + 1))) || add "$fnb fence_nb upcalls, not $((nnodes * (AT + 1))) (one per node per fence)"
        fi
        after=$(chaos_tmp)
        { echo "--- the nodes' TmpFS and /dev/shm after the round:"; echo "$after"; } >>"$log"
        new=$(comm -13 <(echo "$before") <(echo "$after") | head -n 3 | tr '\n' ' ')
        [[ -z $new ]] || add "left in the nodes' TmpFS: $new"
        [[ -n $LEFT ]] && add "task processes left running"
        [[ -n $STEPD_LEFT ]] && add "slurmstepd did not exit within 5 s"
        # compared: srun's status, and the statuses but on the dead rank's node
        [[ -n $cmp ]] && VALS[chaos.$lib]+="${VALS[chaos.$lib]:+$'\n'}round $r: srun exit $RC; ${other#; }"
        nrun=$((nrun + 1))
        printf '    round %-3s %-8s exit %-3s %5d ms  %s%s\n' "$r" "$lib" "$RC" "$MS" "$desc" "${why:+  (FAILED: $why)}"
        [[ -n $why ]] && { nbad=$((nbad + 1)); why0="${why0:+$why0, }round $r: $why"; }
        why=$why0
    done
    echo "  chaos on $want: $nrun rounds ($kills kills, $stops stops), $nbad failed; seed $chaos_seed"
}

run_case() {  # run_case <case> <lib>
    local c=$1 lib=$2
    why=
    LOGF[$c.$lib]=$LOGS/$c.$lib.log
    if over_budget; then
        RES[$c.$lib]="not run: over the ${budget}s budget"; UPS[$c.$lib]=; return
    fi
    if [[ $c == fence-kill-data ]] && { ((nnodes != 2)) || [[ $SLV != 22.05 ]]; }; then
        RES[$c.$lib]="not run: a case of Slurm 22.05 on two nodes (its 2 x 20 s once are enough)"; UPS[$c.$lib]=; return
    fi
    if [[ $c == impi && ! -x $IMPI/bin/IMB-MPI1 ]]; then
        RES[$c.$lib]="not run: Intel MPI's runtime is not installed (tools/install-consumers.sh)"; UPS[$c.$lib]=; return
    fi
    case $c in
    client | dmodex | partial | absent) case_client "$c" "$lib" ;;
    mpi-hello) case_mpi_hello "$lib" ;;
    mpi-abort) case_mpi_abort "$lib" ;;
    fence-kill | fence-kill-data) case_fence_kill "$c" "$lib" ;;
    chaos) case_chaos "$lib" ;;
    spawn) case_spawn "$lib" ;;
    impi) case_impi "$lib" ;;
    esac
    [[ -n $LEFT ]] && add "processes left running"
    [[ -n $STEPD_LEFT ]] && add "slurmstepd did not exit within 5 s"
    RES[$c.$lib]=${why:-ok}
    RCS[$c.$lib]=$RC
    UPS[$c.$lib]=$(upcall_summary)
    printf '  %-10s %-8s exit %-3s %5d ms  upcalls: %s  %s\n' "$c" "$lib" "$RC" "$MS" "${UPS[$c.$lib]}" "${why:+($why)}"
}

# ---- bench mode ----
if [[ $mode == bench ]]; then
    declare -A med=()
    for lib in openpmix rpmix; do
        if [[ $lib == rpmix ]]; then
            stop_slurmds
            cp -L "$RLIB" "$work/libpmix.so"
            for h in "${NODES[@]}"; do nsh_in "$h" mount --bind "$work/libpmix.so" "$PMIX_LIB_PATH" && MOUNTED+=("$h"); done
            start_slurmds
            wait_idle 30 || die_setup "the nodes did not come back with rpmix mounted" "$setup_log"
        fi
        for ((k = 1; k <= bench_runs; k++)); do
            run_srun "$LOGS/bench.$lib.$k.log" -N "$nnodes" -n "$NT" -- "$SB/mpi_hello"
            if ((RC == 0)) && [[ $(grep -c "pmix=$(libname $lib)" "$LOGS/bench.$lib.$k.log") == "$NT" ]]; then echo "$MS"; else echo "failed run $k: $LOGS/bench.$lib.$k.log" >&2; fi
        done >"$work/times-$lib"
        med[$lib]=$(sort -n "$work/times-$lib" | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "")}')
        echo "  $lib runs (ms): $(tr '\n' ' ' <"$work/times-$lib")"
    done
    [[ -n ${med[openpmix]} && -n ${med[rpmix]} ]] || { echo "bench-slurm2: no figures"; exit 1; }
    printf '%-36s | %14s | %10s | %s\n' "Slurm, 2 nodes, median of $bench_runs" "OpenPMIx 4.2.2" "rpmix" "ratio"
    printf -- '-------------------------------------|----------------|------------|------\n'
    printf '%-36s | %12.3f s | %8.3f s | %.2f\n' "srun --mpi=pmix -N $nnodes -n $NT ./hello" \
        "$(awk -v a="${med[openpmix]}" 'BEGIN { print a / 1000 }')" "$(awk -v a="${med[rpmix]}" 'BEGIN { print a / 1000 }')" \
        "$(awk -v a="${med[rpmix]}" -v b="${med[openpmix]}" 'BEGIN { print a / b }')"
    exit 0
fi

# ---- phase 1: OpenPMIx; phase 2: rpmix ----
echo "== OpenPMIx ($(readlink -f "$PMIX_LIB_PATH"))"
for c in "${CASES[@]}"; do selected "$TAG/$c" && run_case "$c" openpmix; done

cp -L "$RLIB" "$work/libpmix.so" || die_setup "cannot copy rpmix's library"
grep -q '^rpmix ' < <(strings "$work/libpmix.so") || die_setup "$RLIB is not rpmix's library"
stop_slurmds
ri=$(stat -c %i "$work/libpmix.so")
for h in "${NODES[@]}"; do
    nsh_in "$h" mount --bind "$work/libpmix.so" "$PMIX_LIB_PATH" || die_setup "mount --bind on $h failed"
    MOUNTED+=("$h")
    for f in "$PMIX_LIB_PATH" "$RR/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2" "$RR/usr/lib/x86_64-linux-gnu/libpmix.so.2"; do
        [[ $(nsh_in "$h" stat -L -c %i "$f") == "$ri" ]] || die_setup "$f is not rpmix on $h after the mount"
    done
done
[[ $(stat -L -c %i "$PMIX_LIB_PATH") != "$ri" ]] || die_setup "the mount is visible outside the nodes"
start_slurmds
wait_idle 30 || die_setup "the nodes did not come back with rpmix mounted" "$setup_log"
echo "== rpmix (bind-mounted over $PMIX_LIB_PATH on ${NODES[*]})"
for c in "${CASES[@]}"; do selected "$TAG/$c" && run_case "$c" rpmix; done

# ---- verdicts ----
# upcall_check <case>: what is wrong with the host upcalls of the case's two
# runs (the same programs on both libraries), '' if nothing: fence_nb as
# often on both, and one per node of the step per fence (a multiple of its
# nodes; spawn's step has 2 tasks, so 2 nodes); every direct_modex answered
# by one PMIx_server_dmodex_request (on the other node), on both; direct_modex
# as often on both, but for dmodex, where rpmix makes one per remote proc
# asked for (each node's two ranks ask for the same one: one per node) and
# OpenPMIx at least as many (one more now and then, when its two ranks ask
# at once)
upc() { grep -o "$2=[0-9]*" <<<"${UPS[$1]:-}" | cut -d= -f2; }
upcall_check() {
    local c=$1 sn=$nnodes l fo fr do_ dr out=
    # (chaos: its rounds differ per library; each round checks its own)
    [[ $c == chaos ]] && return
    [[ $c == spawn ]] && sn=2
    fo=$(upc "$c.openpmix" fence_nb) fr=$(upc "$c.rpmix" fence_nb)
    do_=$(upc "$c.openpmix" direct_modex) dr=$(upc "$c.rpmix" direct_modex)
    [[ -n $fo && -n $fr && -n $do_ && -n $dr ]] || { echo "no upcall counts"; return; }
    ((fr == fo)) || out="$out, fence_nb: rpmix $fr, OpenPMIx $fo"
    ((fr > 0 && fr % sn == 0)) || out="$out, fence_nb $fr is not one per node per fence ($sn nodes)"
    for l in openpmix rpmix; do
        [[ $(upc "$c.$l" direct_modex) == "$(upc "$c.$l" dmodex_request)" ]] ||
            out="$out, $(libname $l): direct_modex $(upc "$c.$l" direct_modex), dmodex_request $(upc "$c.$l" dmodex_request)"
    done
    if [[ $c == dmodex ]]; then
        ((dr == nnodes)) || out="$out, rpmix made $dr direct_modex upcalls, not one per remote proc asked for ($nnodes)"
        ((dr <= do_)) || out="$out, rpmix made more direct_modex upcalls ($dr) than OpenPMIx ($do_)"
    else
        ((dr == do_)) || out="$out, direct_modex: rpmix $dr, OpenPMIx $do_"
    fi
    echo "${out#, }"
}
skipped=0
for c in "${CASES[@]}"; do
    selected "$TAG/$c" || continue
    o=${RES[$c.openpmix]} r=${RES[$c.rpmix]}
    if [[ $o == "not run"* || $r == "not run"* ]]; then
        if [[ $o == *"not installed"* || $o == *"a case of Slurm 22.05 on two nodes"* ]]; then echo "SKIP: $TAG/$c (${o#not run: })"; skipped=$((skipped + 1))
        else fail "$TAG/$c" "OpenPMIx: $o; rpmix: $r"; fi
        continue
    fi
    uw=$(upcall_check "$c")
    if [[ -n $uw ]]; then
        # (the log's tail: the upcalls, each direct_modex with the rank and key asked for)
        fail "$TAG/$c" "host upcalls: $uw (OpenPMIx ${UPS[$c.openpmix]}; rpmix ${UPS[$c.rpmix]})" "${LOGF[$c.rpmix]}"
        continue
    fi
    if [[ $r == ok && $o == ok ]]; then
        if [[ "${VALS[$c.openpmix]:-}" != "${VALS[$c.rpmix]:-}" ]]; then
            diff <(echo "${VALS[$c.openpmix]:-}") <(echo "${VALS[$c.rpmix]:-}") >"$LOGS/$c.values.diff"
            fail "$TAG/$c" "the values differ (< OpenPMIx, > rpmix)" "$LOGS/$c.values.diff"
        else
            note=
            [[ -n ${NOTE[$c.rpmix]:-} ]] && note="; fence statuses: OpenPMIx ${NOTE[$c.openpmix]}; rpmix ${NOTE[$c.rpmix]}"
            pass "$TAG/$c (values as on OpenPMIx: $(echo "${VALS[$c.rpmix]:-run ok}" | wc -l) lines${RCS[$c.rpmix]:+, srun exit ${RCS[$c.rpmix]}}$note)"
        fi
    elif [[ $r == ok ]]; then
        pass "$TAG/$c (on OpenPMIx it fails: $o${NOTE[$c.rpmix]:+; fence statuses: OpenPMIx ${NOTE[$c.openpmix]}; rpmix ${NOTE[$c.rpmix]}})"
    elif [[ $o == ok ]]; then
        fail "$TAG/$c" "rpmix: $r" "${LOGF[$c.rpmix]}"
    else
        echo "SKIP: $TAG/$c (fails on both: OpenPMIx: $o; rpmix: $r)"
        skipped=$((skipped + 1))
    fi
done
# the host upcalls, per case and library
for c in "${CASES[@]}"; do
    [[ -n ${UPS[$c.openpmix]:-} || -n ${UPS[$c.rpmix]:-} ]] &&
        echo "upcalls $c: OpenPMIx ${UPS[$c.openpmix]:-(not run)}; rpmix ${UPS[$c.rpmix]:-(not run)}"
done
# ---- clean-up, checked from outside ----
nets=("${NSH_NET[@]}")
cleanup
why=
for ((i = 0; i < 30; i++)); do
    left=$(for n in "${nets[@]}"; do nsh_procs "$n"; done)
    left="$left $(marker_in_args "$work")"
    [[ -z ${left// /} ]] && break
    sleep 0.1
done
[[ -z ${left// /} ]] || { add "processes left:$left"; kill -KILL $left 2>/dev/null; }
grep -q "$PMIX_LIB_PATH\|$work" /proc/self/mountinfo && add "a mount of the test is visible outside"
[[ -n $RR ]] && grep -q " $RR[ /]" /proc/self/mountinfo && add "the Debian 13 root is still mounted"
ip -br link | grep -qE '^(br0|v[0-9])@' && add "a veth or bridge of the test in the root namespace"
[[ -e $work ]] && add "$work not removed"
if [[ -z $why ]]; then pass "$TAG/cleanup"; else fail "$TAG/cleanup" "$why"; fi
echo "$TAG: $((SECONDS - start_s)) s${skipped:+, $skipped skipped}"
finish
