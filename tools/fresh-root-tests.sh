#!/bin/bash
# The README's promise, proved from nothing: a clean clone of the project on
# a new Debian 12 machine runs `make demo` and every installing step of
# `make test`.
#
# The new machine is a minimal Debian 12 root made with debootstrap from the
# Debian archive this machine's apt uses (tools/debian-mirror.sh), holding
# only what a new machine has (NEW_MACHINE_PKGS below: gcc, g++, make, git,
# python3, pip, apt, procps, ...) and the machine's own trust store; its Rust toolchain (~/.rustup, ~/.cargo/bin, and
# cargo-nextest) is bound in read-only. That base root is cached outside the work tree
# (${RPMIX_CACHE:-$HOME/.cache/rpmix}/debian12-base) and re-made when missing
# or unfinished; each run starts from a fresh copy of it (an overlay whose
# writable layer is thrown away afterwards), so nothing one run installs is
# seen by the next.
#
# Inside: a clean clone of the committed project (HEAD) at /work/main and a
# copy of ../shared beside it, as on a developer's machine. Everything runs in
# one private mount namespace and one PID namespace started by this script:
# whatever a case leaves running dies with the namespace (its first process
# is ended by PID, pass or fail), and every mount goes with it. Network: the
# machine's own (apt and crates.io).
#
# Cases (RPMIX_CASE, tools/testlib.sh, filters them; each runs the command as
# `make demo` / `make test` runs it, its output in <build>/fresh-root/<case>.log):
#   base-root           the cached base root exists, or is made now
#   clean-clone         a fresh copy of the base, the clone and shared/ in it
#   make-demo           `make demo`: installs the dependencies (OpenPMIx's
#                       reference library, Open MPI, ...), builds, and runs
#                       the 4-rank demo job: each rank's greeting line and
#                       rank 0's event line
#   make-deb            `make deb` after the demo's build: the two Debian
#                       packages (dpkg-deb, binutils and gcc of a new
#                       machine suffice; tools/package-tests.sh tests them)
#   install-slurm       tools/install-slurm.sh as the slurm step calls it:
#                       installs Slurm, munge, Open MPI; srun lists mpi/pmix
#   install-debian13    tools/install-debian13.sh as the newer-consumers step
#                       calls it: a Debian 13 root with Open MPI 5, OpenPMIx 5
#   install-consumers   tools/install-consumers.sh as the consumers step calls
#                       it: mpi4py (Debian's, and its test suite), Intel MPI
#   installers-idempotent  each installer again: exits 0, installs nothing
#   nothing-left        the cases left no process running in the namespace
#                       (an installer must not leave a daemon behind), none
#                       survives it, nothing is mounted under the run's
#                       directory, which is removed
#
# Environment: RPMIX_CACHE (the cache directory), RPMIX_FRESH_REF (the commit
# to clone, default HEAD: e.g. an older commit to show a fault), RPMIX_FRESH_KEEP=1
# (keep the run's directory for a look afterwards).
#
# Usage: tools/fresh-root-tests.sh [build-dir]    (run as root)
set -u
BUILD_SUBDIR=fresh-root
. "$(dirname "$0")/testlib.sh"
mkdir -p "$B" || { echo "cannot create $B"; echo "0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "fresh-root-tests: needs root (debootstrap, chroot, namespaces)"; echo "0 passed, 1 failed"; exit 1; }

CACHE=${RPMIX_CACHE:-$HOME/.cache/rpmix}
BASE=$CACHE/debian12-base
REF=${RPMIX_FRESH_REF:-HEAD}
# What a new machine has, beyond debootstrap's minimal set: the compilers,
# git, python3 with pip, and the everyday tools of the machine's image
# (procps among them: the installers must cope with pgrep finding nothing).
NEW_MACHINE_PKGS=gcc,g++,make,git,python3,python3-pip,ca-certificates,procps,iproute2,hostname,curl,xz-utils
SHARED=$(cd "$ROOT/../shared" 2>/dev/null && pwd || true)

# (the marker holds the package list: a base made with another list is made again)
base_ready() { [ "$(cat "$BASE/.rpmix-complete" 2>/dev/null)" = "$NEW_MACHINE_PKGS" ] && [ -x "$BASE/usr/bin/gcc" ] && [ -x "$BASE/usr/bin/git" ]; }

make_base() {
    local mirror
    if ! command -v debootstrap >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap || {
            apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; } || return 1
    fi
    mirror=$("$ROOT/tools/debian-mirror.sh") || return 1
    if [ -d "$BASE" ]; then
        if grep -q " $BASE/" /proc/mounts; then echo "something is mounted under $BASE; not removing it"; return 1; fi
        rm -rf "$BASE"
    fi
    mkdir -p "$CACHE"
    echo "debootstrap bookworm from the machine's archive, with $NEW_MACHINE_PKGS"
    debootstrap --variant=minbase --include="$NEW_MACHINE_PKGS" bookworm "$BASE" "$mirror" || return 1
    # Like a new machine: no downloaded packages kept.
    rm -f "$BASE"/var/cache/apt/archives/*.deb
    echo "$NEW_MACHINE_PKGS" >"$BASE/.rpmix-complete"
}

# The script run inside the namespaces: mounts the fresh root and runs one
# command per case in it, as root with a clean environment; the case's
# status is written to $RUN/status/<case>.
inside() {
    set -u
    local run=$1 base=$2 rustup=$3 cargobin=$4
    local r=$run/root
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/ovwork" "$r" || exit 1
    mount -t proc proc "$r/proc" || exit 1
    mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" || exit 1
    mount -t sysfs sysfs "$r/sys" 2>/dev/null || mount --rbind /sys "$r/sys" || exit 1
    mount -t tmpfs tmpfs "$r/tmp" || exit 1
    mkdir -p "$r/root/.rustup" "$r/root/.cargo/bin"
    mount --bind "$rustup" "$r/root/.rustup" && mount -o remount,bind,ro "$r/root/.rustup" || exit 1
    mount --bind "$cargobin" "$r/root/.cargo/bin" && mount -o remount,bind,ro "$r/root/.cargo/bin" || exit 1
    # cargo-nextest comes with a new machine's toolchain; this machine keeps
    # it outside ~/.cargo/bin
    local nx; nx=$(command -v cargo-nextest 2>/dev/null)
    if [ -n "$nx" ] && [ "${nx#"$cargobin"/}" = "$nx" ]; then
        touch "$r/usr/local/bin/cargo-nextest" && mount --bind "$nx" "$r/usr/local/bin/cargo-nextest" &&
            mount -o remount,bind,ro "$r/usr/local/bin/cargo-nextest" || exit 1
    fi
    # The machine's own network settings and trust store (a new machine of
    # this kind has them: its registries may be reached through a proxy that
    # presents a local certificate authority).
    cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
    cp /etc/hosts "$r/etc/hosts" 2>/dev/null
    if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$r/usr/local/share/ca-certificates/" &&
        chroot "$r" update-ca-certificates >"$run/log/trust" 2>&1 || exit 1
    fi
    local c
    while read -r c; do
        [ -n "$c" ] || continue
        local t0=$SECONDS
        chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
            PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            /bin/bash -c "cd /work/main && $(cat "$run/cmd/$c")" >"$run/log/$c" 2>&1 </dev/null
        echo $? >"$run/status/$c"
        echo "$c $((SECONDS - t0)) s" >>"$run/times"
    done <"$run/cases"
    # What the cases left running, read from the namespace's own /proc (this
    # script is its process 1); all of it ends with the namespace.
    local p
    for p in "$r"/proc/[0-9]*; do
        p=${p##*/}
        [ "$p" = 1 ] && continue
        echo "$p $(tr '\0' ' ' <"$r/proc/$p/cmdline" 2>/dev/null)"
    done >"$run/leftover"
}
if [ "${1:-}" = --inside ]; then shift; inside "$@"; exit $?; fi

# ---- base-root ----
if selected base-root || true; then
    log=$B/base-root.log
    if base_ready; then
        echo "cached: $BASE" >"$log"; pass base-root
    else
        start=$(date +%s)
        if make_base >"$log" 2>&1; then
            echo "made in $(( $(date +%s) - start )) s" >>"$log"; pass base-root
        else
            fail base-root "the base root could not be made" "$log"; finish
        fi
    fi
fi

# ---- the run's directory: the clone and shared/ go into the overlay's upper layer ----
RUN=$(mktemp -d /var/tmp/rpmix-fresh.XXXXXX)
mkdir -p "$RUN"/{upper,ovwork,root,cmd,log,status}
ns_pid=""
cleanup() {
    [ -n "$ns_pid" ] && kill -KILL "$ns_pid" 2>/dev/null
    if [ -z "${RPMIX_FRESH_KEEP:-}" ] && ! grep -q " $RUN/" /proc/mounts; then rm -rf "$RUN"; fi
}
trap cleanup EXIT

log=$B/clean-clone.log
why=""
{
    mkdir -p "$RUN/upper/work" &&
    git clone -q --no-hardlinks "$ROOT" "$RUN/upper/work/main" &&
    git -C "$RUN/upper/work/main" checkout -q "$(git -C "$ROOT" rev-parse "$REF")" &&
    echo "clone of $(git -C "$RUN/upper/work/main" log -1 --format='%h %s' | cut -c1-100)" &&
    if [ -n "$SHARED" ]; then cp -a "$SHARED" "$RUN/upper/work/shared" && echo "shared/ copied"; else echo "no ../shared beside the checkout"; fi
} >"$log" 2>&1 || why="the clone failed"
if selected clean-clone; then
    if [ -z "$why" ]; then pass clean-clone; else fail clean-clone "$why" "$log"; finish; fi
fi
[ -z "$why" ] || finish

# The cases' commands, in order; each is run only when selected.
: >"$RUN/cases"
fresh_case() {  # fresh_case <name> <command>
    selected "$1" || return 0
    echo "$2" >"$RUN/cmd/$1"; echo "$1" >>"$RUN/cases"
}
fresh_case make-demo 'make demo'
fresh_case make-deb 'make deb'
fresh_case install-slurm 'tools/install-slurm.sh'
fresh_case install-debian13 'tools/install-debian13.sh'
fresh_case install-consumers 'tools/install-consumers.sh'
fresh_case installers-idempotent 'for s in install-deps install-slurm install-debian13 install-consumers; do out=$(tools/$s.sh 2>&1) || { echo "$s failed again: $out"; exit 1; }; echo "$out" | grep -i "install" | grep -v "^/" && { echo "$s installed something the second time"; exit 1; }; echo "$s: nothing to install"; done'

start=$(date +%s)
unshare -m -p -f --propagation private "$ROOT/tools/fresh-root-tests.sh" --inside \
    "$RUN" "$BASE" "$HOME/.rustup" "$HOME/.cargo/bin" >"$B/namespace.log" 2>&1 &
ns_pid=$!
wait "$ns_pid"; ns_status=$?
ns_pid=""
echo "the fresh root's cases took $(( $(date +%s) - start )) s" >>"$B/namespace.log"
# how long each command took on the new machine (the README quotes these)
[ -s "$RUN/times" ] && echo "times: $(paste -sd, "$RUN/times" | sed 's/,/, /g')"

check_case() {  # check_case <name> [<count> <ERE>]...: exit status 0, and <count> lines matching each <ERE>
    local c=$1 log=$B/$1.log st n
    shift
    grep -qx "$c" "$RUN/cases" || return 0
    cp "$RUN/log/$c" "$log" 2>/dev/null || echo "no log: the namespace ended early (see $B/namespace.log)" >"$log"
    st=$(cat "$RUN/status/$c" 2>/dev/null || echo none)
    why=""
    [ "$st" = 0 ] || add "exit status $st"
    while [ $# -ge 2 ]; do
        n=$(grep -cE "$2" "$log")
        [ "$n" = "$1" ] || add "$n lines matching '$2', not $1"
        shift 2
    done
    if [ -z "$why" ]; then pass "$c"; else fail "$c" "$why" "$log"; fi
}
# the demo's 4 ranks each print their neighbour's greeting; rank 0 its event
check_case make-demo 4 '^rank [0-3] of 4 \(local rank [0-3] on .*my neighbour [0-3] says "greetings from rank [0-3]"$' \
    1 '^rank 0: event received from rank'
check_case make-deb 1 '^/work/main/target/debian/rpmix_[^/]*\.deb$' 1 '^/work/main/target/debian/rpmix-system_[^/]*\.deb$'
check_case install-slurm 1 '^install-slurm: installing'
check_case install-debian13 1 '^/.*/debian13$'
check_case install-consumers 1 '^install-consumers: installing python3-mpi4py$' 1 '/consumers$'
check_case installers-idempotent 4 ': nothing to install$'

if selected nothing-left; then
    why=""
    [ "$ns_status" = 0 ] || add "the namespace's first process exited $ns_status"
    # every process started in the PID namespace ended with it
    # what the cases left running in it is a fault (an installer must not
    # leave a daemon behind); the namespace's end has killed them
    if [ -s "$RUN/leftover" ]; then add "processes left by the cases: $(cut -c1-80 "$RUN/leftover" | tr '\n' ';')"; fi
    [ -e "$RUN/leftover" ] || add "the namespace did not list its processes"
    # and nothing of it survives outside
    left=$(pgrep -f -- "$RUN" || true)
    [ -z "$left" ] || add "processes left: $left"
    if grep -q " $RUN" /proc/mounts; then add "mounts left under $RUN"; fi
    cleanup; trap - EXIT
    [ -n "${RPMIX_FRESH_KEEP:-}" ] || [ ! -e "$RUN" ] || add "$RUN not removed"
    if [ -z "$why" ]; then pass nothing-left; else fail nothing-left "$why" "$B/namespace.log"; fi
fi
finish
