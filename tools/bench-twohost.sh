#!/bin/bash
# Wall time of Open MPI's `mpirun --host twohost-a:2,twohost-b:2 -np 4 ./twohost hello`
# across two hosts (median of BENCH_RUNS, default 5) with OpenPMIx's library
# and with rpmix's, side by side. The two hosts are the network + UTS + mount
# namespaces of tools/twohost-tests.sh (its TWOHOST_MODE=bench: same setup,
# same cleanup; needs root). Each run is timed from the nsenter that starts
# mpirun on twohost-a to its exit, including the orted's start on twohost-b
# through the rsh agent.
#
# usage: tools/bench-twohost.sh [build-dir]     (default: c-tests/build; uses <build-dir>/mpi)
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}/mpi
TWOHOST_MODE=bench BENCH_RUNS=${BENCH_RUNS:-5} exec tools/twohost-tests.sh "$B"
