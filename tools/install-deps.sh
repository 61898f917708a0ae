#!/bin/sh
# Install, on Debian, what the tests and benchmarks need, when missing:
# OpenPMIx 4.2.2's headers and library (the reference), pahole (abi-check),
# valgrind, pkg-config, g++, python3, Open MPI, hwloc, ThreadSanitizer's
# runtime, OpenPMIx's examples, tools and Python bindings. Slurm comes with tools/install-slurm.sh (its test driver).
set -e
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
[ -e /usr/include/hwloc.h ] || missing="$missing libhwloc-dev"
# ThreadSanitizer's runtime (the concurrency stress test under it)
[ -e /usr/lib/x86_64-linux-gnu/libtsan.so.2 ] || missing="$missing libtsan2"
# OpenPMIx's example programs (libpmix-dev's docs), tools and Python bindings.
[ -d /usr/share/doc/libpmix-dev/examples ] || missing="$missing libpmix-dev"
command -v pattrs >/dev/null 2>&1 || missing="$missing libpmix-bin"
/usr/bin/python3 -c 'import pmix' >/dev/null 2>&1 || missing="$missing python3-pmix"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing:$missing (run as root, or: apt-get install$missing)" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
