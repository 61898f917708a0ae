#!/bin/bash
# A Debian 13 (trixie) root for the newer-consumer tests: Open MPI 5.0.7,
# OpenPMIx 5.0.7 (libpmix-dev, headers and library; libpmix-bin, its tools;
# python3-pmix, its Python
# bindings), libhwloc15, gcc, make, valgrind. Made with debootstrap into ${RPMIX_CACHE:-$HOME/.cache/rpmix}/debian13
# (outside the work tree) and reused while it is complete; re-made when
# missing or unfinished. The first run takes several minutes (about 6 on the
# development machine: downloading and unpacking some 250 packages).
#
# Prints the root's path on its last line; exit status 0 when the root holds
# mpicc and OpenPMIx 5's library; a failure names the command and shows the
# end of its log. The archive is the one this machine's apt uses
# (tools/debian-mirror.sh; RPMIX_DEBIAN_MIRROR overrides it).
set -eE
trap 'echo "install-debian13: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
CACHE=${RPMIX_CACHE:-$HOME/.cache/rpmix}
ROOT=$CACHE/debian13
PKGS="openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin libhwloc15 gcc libc6-dev make valgrind procps python3-pmix"

# (the marker holds the package list: a root made with another list is made again)
ready() {
    [ "$(cat "$ROOT/.rpmix-complete" 2>/dev/null)" = "$PKGS" ] && [ -x "$ROOT/usr/bin/mpicc" ] &&
        ls "$ROOT"/usr/lib/x86_64-linux-gnu/libpmix.so.2* >/dev/null 2>&1
}

if ready; then
    echo "$ROOT"
    exit 0
fi

MIRROR=$("$(dirname "$0")/debian-mirror.sh")
mkdir -p "$CACHE"
if ! command -v debootstrap >/dev/null 2>&1; then
    LOG=$CACHE/debian13.log
    INSTALLER=install-debian13
    : >"$LOG"
    . "$(dirname "$0")/installlib.sh"
    DEBIAN_FRONTEND=noninteractive apt_install apt-get install -y -q debootstrap
fi
# An unfinished root (interrupted run) is made again from scratch.
if [ -d "$ROOT" ]; then
    # (nothing may still be mounted inside it)
    if grep -q " $ROOT/" /proc/mounts; then
        echo "install-debian13: something is mounted under $ROOT; not removing it" >&2
        exit 1
    fi
    rm -rf "$ROOT"
fi
start=$(date +%s)
debootstrap --variant=minbase trixie "$ROOT" "$MIRROR" >"$CACHE/debian13.log" 2>&1 || {
    echo "install-debian13: debootstrap failed (log: $CACHE/debian13.log)" >&2
    tail -n 20 "$CACHE/debian13.log" >&2
    exit 1
}
# The packages through apt inside the root (it resolves what debootstrap's
# --include does not), in a private mount namespace with its own /proc.
unshare -m --propagation private sh -c '
    mount -t proc proc "$1/proc" &&
    chroot "$1" env DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $2"
' sh "$ROOT" "$PKGS" >>"$CACHE/debian13.log" 2>&1 || {
    echo "install-debian13: apt-get in the root failed (log: $CACHE/debian13.log)" >&2
    tail -n 20 "$CACHE/debian13.log" >&2
    exit 1
}
ready_parts=1
[ -x "$ROOT/usr/bin/mpicc" ] || ready_parts=0
ls "$ROOT"/usr/lib/x86_64-linux-gnu/libpmix.so.2* >/dev/null 2>&1 || ready_parts=0
if [ $ready_parts = 0 ]; then
    echo "install-debian13: the root lacks mpicc or libpmix (log: $CACHE/debian13.log)" >&2
    exit 1
fi
echo "$PKGS" >"$ROOT/.rpmix-complete"
echo "install-debian13: made in $(( $(date +%s) - start )) s" >&2
echo "$ROOT"
