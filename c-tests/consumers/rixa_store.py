"""rixa's PMIxStore (a PMIx key-value store for PyTorch/NVSHMEM jobs) over
all ranks: each sets one key, waits for every rank's, reads them back.

    rixa_store.py <directory holding the unpacked rixa package>

Prints, per rank, the values' check and the libpmix file the process has
mapped (rixa's is not named libpmix.so.2); exits 1 on a wrong value.
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
from rixa import PMIxStore  # noqa: E402


def main():
    s = PMIxStore(30)
    rank, size, local = s.get_rank(), s.get_world(), s.get_local_rank()
    s.set("rank-%d" % rank, b"value of %d" % rank)
    s.wait(["rank-%d" % i for i in range(size)], 30)
    got = [s.get("rank-%d" % i) for i in range(size)]
    ok = got == [b"value of %d" % i for i in range(size)]
    with open("/proc/self/maps") as maps:
        libs = sorted({line.split()[-1] for line in maps if "/libpmix" in line})
    lines = ["rixa rank %d of %d, local rank %d: %d values %s"
             % (rank, size, local, len(got), "right" if ok else "WRONG %r" % got)]
    lines += ["rixa rank %d maps %s" % (rank, lib) for lib in libs]
    # One write per line: a launcher's output forwarding may hand on a line's
    # text and its newline separately (seen under mpirun on OpenPMIx), so the
    # two ranks' lines could interleave.
    for line in lines:
        os.write(1, (line + "\n").encode())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
