#!/bin/bash
# Install, on Debian, what the tests and benchmarks need, when missing:
# OpenPMIx 4.2.2's headers and library (the reference), pahole (abi-check),
# valgrind, pkg-config, g++, python3, Open MPI, hwloc, ThreadSanitizer's
# runtime, OpenPMIx's examples, tools and Python bindings, procps and
# iproute2 (the drivers' pgrep and ip), groff (the manual pages), and
# cargo-nextest (the system tests' runner). Slurm comes with
# tools/install-slurm.sh (its test driver), the Debian 13 root with
# tools/install-debian13.sh. apt's output goes to
# ${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-deps.log; a failure names the
# command and shows the log's end.
set -eE
trap 'echo "install-deps: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
missing=""
[ -d /usr/lib/x86_64-linux-gnu/pmix2/include ] || missing="$missing libpmix-dev"
command -v pahole >/dev/null 2>&1 || missing="$missing dwarves"
command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v gdb >/dev/null 2>&1 || missing="$missing gdb"
command -v mpicc >/dev/null 2>&1 || missing="$missing libopenmpi-dev"
command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
command -v bc >/dev/null 2>&1 || missing="$missing bc"
command -v pgrep >/dev/null 2>&1 || missing="$missing procps"
command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
# groff renders the manual pages (step man-pages checks they render cleanly)
command -v groff >/dev/null 2>&1 || missing="$missing groff-base"
[ -e /usr/include/hwloc.h ] || missing="$missing libhwloc-dev"
# ThreadSanitizer's runtime (the concurrency stress test under it)
[ -e /usr/lib/x86_64-linux-gnu/libtsan.so.2 ] || missing="$missing libtsan2"
# AddressSanitizer's runtime (the library's ASan build under the C programs)
[ -e /usr/lib/x86_64-linux-gnu/libasan.so.8 ] || missing="$missing libasan8"
# OpenPMIx's example programs (libpmix-dev's docs), tools and Python bindings.
[ -d /usr/share/doc/libpmix-dev/examples ] || missing="$missing libpmix-dev"
command -v pattrs >/dev/null 2>&1 || missing="$missing libpmix-bin"
/usr/bin/python3 -c 'import pmix' >/dev/null 2>&1 || missing="$missing python3-pmix"
# cargo-nextest runs the system tests (make test); from crates.io when missing
if ! cargo nextest --version >/dev/null 2>&1; then
    mkdir -p "${RPMIX_CACHE:-$HOME/.cache/rpmix}"
    echo "install-deps: cargo-nextest (cargo install, a few minutes)" >&2
    cargo install --locked cargo-nextest >"${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-nextest.log" 2>&1 ||
        { echo "install-deps: cargo install cargo-nextest failed; log: ${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-nextest.log" >&2; exit 1; }
fi
if [ -z "$missing" ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing:$missing (run as root, or: apt-get install$missing)" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
LOG=${RPMIX_CACHE:-$HOME/.cache/rpmix}/install-deps.log
INSTALLER=install-deps
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
. "$(dirname "$0")/installlib.sh"
run_logged "apt-get update" apt-get update -q
run_logged "apt-get install$missing" apt-get install -y -q $missing
