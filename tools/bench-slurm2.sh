#!/bin/bash
# Wall time of `srun --mpi=pmix -N 2 -n 4 ./mpi_hello` (Open MPI 4.1.4 hello
# with Allreduce, two tasks on each of two Slurm nodes) with OpenPMIx's
# library and with rpmix's in both slurmstepds and all tasks, median of
# BENCH_RUNS (default 5) each: tools/slurm2-tests.sh's set-up (two nodes in
# network + UTS + mount namespaces, their own munge and Slurm daemons) in
# its bench mode. Needs root.
#
# usage: tools/bench-slurm2.sh [build-dir]     (default: c-tests/build)
set -u
cd "$(dirname "$0")/.."
SLURM2_MODE=bench BENCH_RUNS=${BENCH_RUNS:-5} exec tools/slurm2-tests.sh "${1:-c-tests/build}"
