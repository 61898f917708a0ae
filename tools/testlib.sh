# Shared helpers of the test drivers: sourced, with the driver's arguments,
# by every tools/*-tests.sh (each case of theirs is a system test:
# systests/src/lib.rs, driver_case).
#
# Selecting cases (the same in every driver):
#   RPMIX_CASE=<ERE>  run only the cases whose name (as on its PASS:/FAIL:/ok
#                     line: garbage-pmixrun, mpirun/rpmix/hello, server-hello,
#                     twohost/spawn, ...) matches this extended regular
#                     expression (bash =~, unanchored: ^name$ for exactly one).
#                     Builds and set-up checks always run. When no case of the
#                     driver matches, the driver fails with a "case-filter"
#                     line naming its cases. `make test ONLY=<step>/<ERE>`
#                     The system tests run each case this way.
# selected <case>: whether <case> is to run (every name asked is remembered);
# check_case_filter: the "case-filter" failure when RPMIX_CASE matched none
# (and, with RPMIX_CASES_SEEN=<file>, every case name asked appended to it as
# "<driver><TAB><case>");
# require_some_case <case...>: that failure at once (before a costly set-up)
# when none of the given cases matches; finish: check_case_filter, the last
# line "N passed, M failed", exit 0 only when nothing failed.
#
# Counters: pass <case> / fail <case> <why> [<log>] print one line each
# ("PASS: <case>", "FAIL: <case> (<why>; log: <log>)" then the log's last
# $FAIL_TAIL lines, default 20) and count into $passed / $failed ($failures
# lists the failed names). Inside a case, add <why> collects reasons in $why
# (empty: the case passed).
# Needs: $T (seconds every run may take) for run_timed, $MARKER_PREFIX for
# new_marker, $MARKER_VAR for marker_in_env.
#
# Paths: ROOT (the checkout), B (the build directory: the driver's first
# argument, default c-tests/build[/$BUILD_SUBDIR], BUILD_SUBDIR being set by
# the driver before sourcing), BIN (RPMIX_BIN, default B: where the C
# programs of c-tests/*.c are compiled; the system tests set it to
# c-tests/build, so every driver shares one copy of each program), LIBDIR
# (RPMIX_LIBDIR, default target/release), PMIXRUN (RPMIX_PMIXRUN, default
# LIBDIR/pmixrun), REF_INC (OPENPMIX_INCLUDE, default OpenPMIx 4.2.2's
# headers of Debian's libpmix-dev), OEX_SRC (OPENPMIX_EXAMPLES, OpenPMIx's
# example sources), CC; relative paths are taken from the directory the
# driver was started in.
#
# Compiling: the programs of c-tests/*.c and OpenPMIx's examples are
# built by c-tests/Makefile (make_progs, below). build_once is for the
# Slurm and two-host drivers' own builds (into their hosts' directories, with
# their own flags, some inside the Debian 13 root):
# build_once [--stderr <file>] <out> <command...> runs the compile
# <command> (which writes <out>) only when <out> is not up to date: it must
# have been written by this very command (kept in <out>.cmd) and be newer
# than the .c files of the command, the .h files next to them, under its -I
# directories, in include/ and c-tests/, and, when it links -L<dir>
# -l:libpmix.so.2, than <dir>/libpmix.so.2. So each program is compiled once
# per run however many steps and drivers need it, and a step run alone
# still compiles what it needs.
ORIG_PWD=$PWD
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-$ROOT/c-tests/build${BUILD_SUBDIR:+/$BUILD_SUBDIR}}
case $B in /*) ;; *) B=$ORIG_PWD/$B ;; esac
BIN=${RPMIX_BIN:-$B}
case $BIN in /*) ;; *) BIN=$ORIG_PWD/$BIN ;; esac
LIBDIR=${RPMIX_LIBDIR:-$ROOT/target/release}
case $LIBDIR in /*) ;; *) LIBDIR=$ORIG_PWD/$LIBDIR ;; esac
PMIXRUN=${RPMIX_PMIXRUN:-$LIBDIR/pmixrun}
REF_INC=${OPENPMIX_INCLUDE:-/usr/lib/x86_64-linux-gnu/pmix2/include}
OEX_SRC=${OPENPMIX_EXAMPLES:-/usr/share/doc/libpmix-dev/examples}
CC=${CC:-cc}

passed=0; failed=0; failures=""
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() {
    local d=${2:-}
    [ -n "${3:-}" ] && d="${d:+$d; }log: $3"
    echo "FAIL: $1${d:+ ($d)}"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n "${FAIL_TAIL:-20}" "$3" | sed 's/^/    /'
    failed=$((failed + 1)); failures="$failures $1"
}
add() { why="${why:+$why, }$1"; }

# ---- case selection (RPMIX_CASE) ----
if [ -n "${RPMIX_CASE:-}" ]; then
    [[ x =~ $RPMIX_CASE ]]
    if [ $? = 2 ]; then
        echo "RPMIX_CASE='$RPMIX_CASE' is not a valid extended regular expression"; echo "0 passed, 1 failed"; exit 1
    fi
fi
selected_n=0; CASE_NAMES=()
selected() {
    case " ${CASE_NAMES[*]-} " in *" $1 "*) ;; *) CASE_NAMES+=("$1") ;; esac
    [ -z "${RPMIX_CASE:-}" ] && return 0
    [[ $1 =~ $RPMIX_CASE ]] || return 1
    selected_n=$((selected_n + 1))
}
check_case_filter() {
    # (the system tests' summary checks every case a driver knows has a test)
    if [ -n "${RPMIX_CASES_SEEN:-}" ] && [ ${#CASE_NAMES[@]} -gt 0 ]; then
        printf "$(basename "$0")\t%s\n" "${CASE_NAMES[@]}" >>"$RPMIX_CASES_SEEN" 2>/dev/null
    fi
    if [ -n "${RPMIX_CASE:-}" ] && [ "$selected_n" = 0 ]; then
        fail case-filter "no case matches RPMIX_CASE='$RPMIX_CASE'; the cases: ${CASE_NAMES[*]-}"
    fi
    return 0
}
require_some_case() {
    local c ok=0
    for c in "$@"; do selected "$c" && ok=1; done
    [ $ok = 1 ] && return 0
    check_case_filter; echo "$passed passed, $failed failed"; exit 1
}
finish() { check_case_filter; echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }

# require_lib <libdir> <build dir>: the library is built, pgrep exists, the build dir is made.
require_lib() {
    mkdir -p "$2" "$BIN" || { echo "cannot create $2"; echo "0 passed, 1 failed"; exit 1; }
    if [ ! -e "$1/libpmix.so.2" ]; then
        echo "no $1/libpmix.so.2 (build the library, or set RPMIX_LIBDIR)"; echo "0 passed, 1 failed"; exit 1
    fi
    command -v pgrep >/dev/null 2>&1 || { echo "pgrep (procps) is needed"; echo "0 passed, 1 failed"; exit 1; }
}

# ---- compiling once (see the header) ----
build_once() {
    # Drivers may run side by side (the system tests): one compile of a
    # program at a time, the others then find it up to date.
    local out=$1 fd rc
    [ "$1" = --stderr ] && out=$3
    mkdir -p "$(dirname "$out")" || return 1
    exec {fd}>"$out.lock" || return 1
    flock "$fd"
    build_once_unlocked "$@"; rc=$?
    exec {fd}>&-
    return $rc
}
build_once_unlocked() {
    local errf=""
    if [ "$1" = --stderr ]; then errf=$2; shift 2; fi
    local out=$1; shift
    local stamp=$out.cmd cmd w prev="" f stale=1 pmix=0
    local -a srcs=() idirs=() sdirs=("$ROOT/include" "$ROOT/c-tests") ldirs=()
    cmd=$(printf '%q ' "$@")
    for w in "$@"; do
        case $prev in -I) idirs+=("$w") ;; -L) ldirs+=("$w") ;; esac
        case $w in
            -I?*) idirs+=("${w#-I}") ;;
            -L?*) ldirs+=("${w#-L}") ;;
            -l:libpmix.so.2) pmix=1 ;;
            -*) ;;
            *.c|*.cc|*.cpp) srcs+=("$w"); sdirs+=("$(dirname "$w")") ;;
        esac
        prev=$w
    done
    if [ -x "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$cmd" ] && ! [ "$out" -nt "$stamp" ]; then
        stale=0
        for f in "${srcs[@]}"; do [ "$f" -nt "$out" ] && stale=1; done
        if [ $pmix = 1 ]; then
            for f in "${ldirs[@]}"; do [ "$f/libpmix.so.2" -nt "$out" ] && stale=1; done
        fi
        if [ $stale = 0 ]; then
            [ -n "$(find "${sdirs[@]}" -maxdepth 1 -name '*.h' -newer "$out" -print -quit 2>/dev/null)" ] && stale=1
        fi
        if [ $stale = 0 ] && [ ${#idirs[@]} -gt 0 ]; then
            [ -n "$(find "${idirs[@]}" -maxdepth 4 -name '*.h' -newer "$out" -print -quit 2>/dev/null)" ] && stale=1
        fi
    fi
    [ $stale = 0 ] && return 0
    rm -f "$stamp"
    mkdir -p "$(dirname "$out")" || return 1
    if [ -n "$errf" ]; then "$@" 2>"$errf"; else "$@"; fi || { rm -f "$out"; return 1; }
    printf '%s' "$cmd" >"$stamp"
}

# make_progs <target...>: programs of c-tests/ built by c-tests/Makefile into
# $MK (= $BIN/make, where the system tests' c_prog builds them too), each
# again only when its source, a header or the Makefile changed: <prog>_ours
# (strict C99 against include/, linked with $LIBDIR's library), <prog>_ref
# (against OpenPMIx's headers, -l:libpmix.so.2), lib<prog>.so (to preload),
# oex_<name> (OpenPMIx's example <name>.c), simple_<name> (OpenPMIx's test
# program, from $OPENPMIX_SRC when set), mpi_<name>; see the Makefile.
MK=$BIN/make
make_progs() {
    local t a=()
    for t in "$@"; do a+=("$MK/$t"); done
    mkdir -p "$MK" || return 1
    flock "$MK/.lock" make -s -C "$ROOT/c-tests" BIN="$MK" LIBDIR="$LIBDIR" REF_INC="$REF_INC" \
        OEX_SRC="$OEX_SRC" ${OPENPMIX_SRC:+OPENPMIX_SRC="$OPENPMIX_SRC"} CC="$CC" "${a[@]}"
}
# build_example <name> <dir>: OpenPMIx's example <name>.c as <dir>/<name>
# (a link to $MK/oex_<name>: the examples find each other by name in their
# directory).
build_example() { make_progs "oex_$1" && mkdir -p "$2" && ln -sfn "$MK/oex_$1" "$2/$1"; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# new_marker <case>: a unique string to put on a case's command lines.
new_marker() { echo "$MARKER_PREFIX-$$-$1-$RANDOM$RANDOM"; }

# leftovers <marker> <log> [finder]: 0 when no process carries the marker
# (waits up to 5 s), else kill them. `finder <marker>` lists the pids
# (default: the marker on their command line, pgrep -f).
marker_in_args() { pgrep -f -- "$1" || true; }
# marker_in_env <marker>: pids of processes (not this shell) whose
# environment holds $MARKER_VAR=<marker> (inherited by every descendant,
# whatever its command line)
marker_in_env() {
    grep -lzx -- "$MARKER_VAR=$1" /proc/[0-9]*/environ 2>/dev/null \
        | sed -e 's#^/proc/##' -e 's#/environ$##' | grep -vx "$$"
}
leftovers() {
    local marker=$1 log=$2 finder=${3:-marker_in_args} i pids
    # An empty marker would match every process on the machine.
    if [ ${#marker} -lt 8 ]; then echo "leftovers: refusing a marker as short as '$marker'" >>"$log"; return 1; fi
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

# proof_loaded <proof> <library path> <min>: adds to why unless every
# report of c-tests/which_pmix.c in <proof> whose process loaded a
# libpmix.so.2 names <library>, and at least <min> did (processes that
# loaded none, e.g. a launcher's helpers, do not count).
proof_loaded() {
    local proof=$1 want=$2 min=$3 n=0 other="" path
    while read -r _ path _; do
        [ "$path" = not-loaded ] && continue
        if [ "$(readlink -f "$path")" = "$want" ]; then n=$((n + 1)); else other="$other $path"; fi
    done <"$proof"
    [ -z "$other" ] || add "processes on another library:$other"
    [ "$n" -ge "$min" ] || add "$n processes on $want, fewer than $min"
    return 0
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

# ---- a one-node Slurm of a test's own (tools/slurm-tests.sh, tools/package-tests.sh) ----
# Every file in <dir> (logs in <dir>/log); the caller starts slurmctld and
# slurmd (-D -f $CONF) and ends every daemon by its PID.
# slurm_munged <dir>: munged (foreground) with a new key, its socket
# $MSOCK = <dir>/munge.sock; sets MUNGED_PID (also on failure: end it);
# returns 1 (SLURM_WHY, SLURM_LOG) unless a munge/unmunge round trip works.
# slurm_write_conf <dir>: <dir>/slurm.conf ($CONF, exported as SLURM_CONF)
# for one node (this host at 127.0.0.1, $(nproc) CPUs, 90% of the memory,
# two free ports, SlurmUser root, proctrack/linuxproc, task/none,
# MpiDefault=none, state/spool/pid/log/TmpFS under <dir>) and its
# cgroup.conf; SlurmdDebug from RPMIX_SLURMD_DEBUG (default debug).
# slurm_wait_idle <seconds> <log>: the node shows idle in sinfo, else its
# last state goes to <log> and it returns 1.
slurm_port_free() { ! ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q .; }
slurm_munged() {
    local d=$1 i
    mkdir -p "$d/log"
    dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none
    chmod 400 "$d/munge.key"
    MSOCK=$d/munge.sock
    munged -F -f --key-file="$d/munge.key" --socket="$MSOCK" --pid-file="$d/munged.pid" \
        --log-file="$d/log/munged.log" --seed-file="$d/munged.seed" >"$d/log/munged.out" 2>&1 &
    MUNGED_PID=$!
    for i in $(seq 50); do [ -S "$MSOCK" ] && break; sleep 0.1; done
    [ -S "$MSOCK" ] || { SLURM_WHY="munged did not start"; SLURM_LOG=$d/log/munged.out; return 1; }
    if ! munge -S "$MSOCK" -n | unmunge -S "$MSOCK" >"$d/log/munge-check.log" 2>&1; then
        SLURM_WHY="munge/unmunge round trip failed"; SLURM_LOG=$d/log/munge-check.log; return 1
    fi
}
slurm_write_conf() {
    local TESTDIR=$1 i p
    mkdir -p "$TESTDIR/state" "$TESTDIR/spool" "$TESTDIR/log" "$TESTDIR/tmp"
    HOST=$(hostname -s)
    NCPU=$(nproc)
    MEM_MB=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
    P1=0; P2=0
    for i in $(seq 50); do
        p=$(( 20000 + RANDOM % 30000 ))
        if slurm_port_free $p && slurm_port_free $((p + 1)); then P1=$p; P2=$((p + 1)); break; fi
    done
    [ $P1 = 0 ] && { SLURM_WHY="no free ports"; return 1; }
    CONF=$TESTDIR/slurm.conf
    cat >"$CONF" <<EOF
ClusterName=rpmixtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MSOCK
StateSaveLocation=$TESTDIR/state
SlurmdSpoolDir=$TESTDIR/spool
SlurmctldPidFile=$TESTDIR/slurmctld.pid
SlurmdPidFile=$TESTDIR/slurmd.pid
SlurmctldLogFile=$TESTDIR/log/slurmctld.log
SlurmdLogFile=$TESTDIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=${RPMIX_SLURMD_DEBUG:-debug}
TmpFS=$TESTDIR/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
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
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$NCPU RealMemory=$MEM_MB State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE OverSubscribe=YES State=UP
EOF
    # slurmd 22.05 always initialises a cgroup plugin (reading cgroup.conf next
    # to slurm.conf); "CgroupPlugin=disabled" only exists from 23.02 on. No
    # cgroup-based plugin is configured, so cgroup/v1 (this machine's hierarchy)
    # is loaded but creates nothing (checked from outside: no .../slurm dirs).
    printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$TESTDIR/cgroup.conf"
    export SLURM_CONF=$CONF
}
# slurm_stop_daemons <tries> <pid...>: SIGTERM to each, then (after up to
# <tries> tenths of a second) SIGKILL to those still there.
slurm_stop_daemons() {
    local tries=$1 p i left=""
    shift
    for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
    for i in $(seq "$tries"); do
        left=""
        for p in "$@"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    return 0
}
slurm_wait_idle() {
    local i st
    for i in $(seq $(( $1 * 5 ))); do
        st=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1)
        case $st in idle) return 0 ;; esac
        sleep 0.2
    done
    echo "node state: '$st'" >>"$2"
    return 1
}

# ---- "hosts": network + UTS + mount namespaces (tools/twohost-tests.sh,
# tools/slurm2-tests.sh) ----
# A host is one long-lived `sleep` started with
#   unshare --net --uts --mount --propagation private
# (no named netns: nothing is left in /run/netns; a namespace disappears with
# its last process). nsh_start <host> <lifetime s> <hosts file> [dir...]
# starts it (NSH_PID[host], NSH_NET[host]: its net namespace), sets its
# hostname, bind-mounts <hosts file> over /etc/hosts, gives it a private
# tmpfs on /tmp and /dev/shm (each host's session directories and sockets
# are its own, as on two machines; a <dir> under /tmp is bound back in,
# with what is mounted below it) and
# brings its loopback up -- everything inside its own mount namespace: the
# system's /etc/hosts and /tmp are never touched.
# nsh_in <host> <cmd...> runs a command in the host's namespaces (in
# $NSH_WD, default /); nsh_procs <net ns> lists the pids in that network
# namespace (holders included); nsh_kill_all kills by pid every process in
# the hosts' network namespaces, then the holders (which removes the
# namespaces, their mounts and veths).
declare -A NSH_PID=() NSH_NET=()
nsh_start() {
    local h=$1 lifetime=$2 hosts=$3 pid i
    shift 3
    unshare --net --uts --mount --propagation private -- sleep "$lifetime" </dev/null >/dev/null 2>&1 &
    pid=$!
    # (not a job of the shell: no "Killed" notice when it is ended)
    disown "$pid" 2>/dev/null
    NSH_PID[$h]=$pid
    for ((i = 0; i < 50; i++)); do
        [[ $(readlink "/proc/$pid/ns/net" 2>/dev/null) != "$(readlink /proc/self/ns/net)" ]] && break
        sleep 0.05
    done
    NSH_NET[$h]=$(readlink "/proc/$pid/ns/net" 2>/dev/null)
    [[ -n ${NSH_NET[$h]} && ${NSH_NET[$h]} != "$(readlink /proc/self/ns/net)" ]] || return 1
    nsenter -t "$pid" -u -- hostname "$h" || return 1
    nsenter -t "$pid" -m -- mount --bind "$hosts" /etc/hosts || return 1
    # (the old /tmp is bound on the new /dev/shm for a moment, and the dirs
    # under /tmp are bound from there into the new /tmp)
    nsenter -t "$pid" -m -- sh -e -c '
        mount -t tmpfs -o mode=1777,size=256m nshost-shm /dev/shm
        mkdir /dev/shm/.old-tmp
        mount --rbind /tmp /dev/shm/.old-tmp
        mount -t tmpfs -o mode=1777,size=256m nshost-tmp /tmp
        for d in "$@"; do
            case $d/ in /tmp/*) mkdir -p "$d"; mount --rbind "/dev/shm/.old-tmp/${d#/tmp/}" "$d" ;; esac
        done
        umount -R /dev/shm/.old-tmp
        rmdir /dev/shm/.old-tmp' sh "$@" || return 1
    nsenter -t "$pid" -n -- ip link set lo up || return 1
}
nsh_in() {
    local h=$1
    shift
    nsenter -t "${NSH_PID[$h]}" -n -u -m --wd="${NSH_WD:-/}" -- "$@"
}
nsh_procs() {
    local f
    for f in /proc/[0-9]*/ns/net; do
        [[ $(readlink "$f" 2>/dev/null) == "$1" ]] || continue
        f=${f#/proc/}
        echo "${f%%/*}"
    done
}
nsh_kill_all() {
    local h p
    for h in "${!NSH_PID[@]}"; do
        for p in $(nsh_procs "${NSH_NET[$h]}"); do kill -KILL "$p" 2>/dev/null; done
    done
    local i
    for h in "${!NSH_PID[@]}"; do kill -KILL "${NSH_PID[$h]}" 2>/dev/null; done
    for h in "${!NSH_PID[@]}"; do
        for ((i = 0; i < 50; i++)); do [[ -e /proc/${NSH_PID[$h]} ]] || break; sleep 0.05; done
    done
    return 0
}
