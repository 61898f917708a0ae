"""A pool of mpi4py.futures workers computes 200 squares.

    futures_pool.py spawn N   MPIPoolExecutor(max_workers=N) in a one-rank
                              job: the workers are spawned (MPI_Comm_spawn)
    futures_pool.py world     run as `python3 -m mpi4py.futures`: the workers
                              are the job's other ranks

Prints one line: the results' check, how many distinct worker processes
answered and whether they were spawned; exits 1 on any mismatch.
"""
import os
import sys

from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor


def square(x):
    spawned = MPI.Comm.Get_parent() != MPI.COMM_NULL
    return x * x, os.getpid(), spawned


def main():
    mode = sys.argv[1]
    workers = int(sys.argv[2]) if mode == "spawn" else None
    with MPIPoolExecutor(max_workers=workers) as pool:
        answers = list(pool.map(square, range(200)))
    values = [a[0] for a in answers]
    pids = {a[1] for a in answers}
    spawned = {a[2] for a in answers}
    ok = values == [x * x for x in range(200)] and os.getpid() not in pids
    ok = ok and spawned == {mode == "spawn"}
    if mode == "spawn":
        ok = ok and 1 <= len(pids) <= workers
    print("futures %s: %d results %s, %d worker processes, spawned=%s"
          % (mode, len(values), "right" if ok else "WRONG", len(pids), sorted(spawned)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
