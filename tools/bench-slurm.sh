#!/bin/bash
# Wall time of `srun --mpi=pmix -n 2 ./mpi_hello` (Open MPI 4.1.4 hello with
# Allreduce) under Slurm 22.05, with OpenPMIx's library and with rpmix's in
# slurmstepd and the tasks (median of 7 each): tools/slurm-tests.sh's set-up
# (private mount namespace, its own munge and Slurm daemons), its mpi-hello
# case only.
set -u
cd "$(dirname "$0")/.."
B=${1:-c-tests/build}
N=${BENCH_RUNS:-7}
line=$(RPMIX_SLURM_BENCH=$N RPMIX_CASE='^mpi-hello$' tools/slurm-tests.sh "$B" 2>&1 | grep '^bench: srun')
set -- $(echo "$line" | sed -E 's/.*OpenPMIx ([0-9a-z]+) ms, rpmix ([0-9a-z]+) ms.*/\1 \2/')
[ $# = 2 ] && [ "$1" != failed ] && [ "$2" != failed ] || { echo "bench-slurm: no figures (${line:-the Slurm set-up failed; see $B/slurm/logs})"; exit 1; }
printf '%-32s | %14s | %10s | %s\n' "srun (median of $N)" "OpenPMIx 4.2.2" "rpmix" "ratio"
printf -- '---------------------------------|----------------|------------|------\n'
printf '%-32s | %12.3f s | %8.3f s | %.2f\n' "srun --mpi=pmix -n 2 ./hello" "$(echo "$1 / 1000" | bc -l)" "$(echo "$2 / 1000" | bc -l)" "$(echo "$2 / $1" | bc -l)"
