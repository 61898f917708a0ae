#!/bin/bash
# Job control and monitoring costs: PAUSE latency (pmixrun, rpmix only: no
# OpenPMIx host implements pause) and the server's CPU per heartbeat for 64
# monitored ranks beating every 100 ms (under the C resource manager, with
# OpenPMIx's library and with rpmix's).
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}
LIBDIR=${RPMIX_LIBDIR:-$PWD/target/release}
REF_INC=/usr/lib/x86_64-linux-gnu/pmix2/include
mkdir -p "$B"
cc -std=gnu99 -O2 -w -I"$REF_INC" c-tests/bench_jctl.c -o "$B/bench_jctl" -l:libpmix.so.2 || exit 1
cc -std=gnu99 -O2 -w -I"$REF_INC" c-tests/rm_simple.c -o "$B/bench_jctl_rm" -l:libpmix.so.2 -lpthread || exit 1
pause=$(LD_LIBRARY_PATH="$LIBDIR" timeout 120 "$LIBDIR/pmixrun" -n 2 "$B/bench_jctl" pause 2>/dev/null | sed -n 's/^pause latency \([0-9.]*\) us/\1/p')
# hb_cost <lib path or empty> <mode>: the server's CPU over the window per beat (us)
hb_cost() { LD_LIBRARY_PATH="$1" timeout 120 "$B/bench_jctl_rm" -n 64 "$B/bench_jctl" "$2" 2>/dev/null | sed -n 's/^heartbeat cost \([0-9.]*\) us.*/\1/p'; }
# per beat = (window with beats - the same window idle) / beats
net() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
hb_ref=$(net "$(hb_cost "" hb)" "$(hb_cost "" idle)")
hb_ours=$(net "$(hb_cost "$LIBDIR" hb)" "$(hb_cost "$LIBDIR" idle)")
printf '%-40s | %14s | %10s\n' "measurement" "OpenPMIx 4.2.2" "rpmix"
printf -- '-----------------------------------------|----------------|-----------\n'
printf '%-40s | %14s | %8s us\n' "Job_control(PAUSE) -> target stopped" "n/a (no host)" "${pause:-n/a}"
printf '%-40s | %11s us | %8s us\n' "server CPU per heartbeat (64 ranks)" "${hb_ref:-n/a}" "${hb_ours:-n/a}"
