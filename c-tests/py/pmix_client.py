#!/usr/bin/python3
# A PMIx client written against Debian's Python bindings (python3-pmix,
# module `pmix`, Cython over libpmix.so.2), run by systests/tests/consumers.rs (py_*) under
# pmixrun and under Open MPI's mpirun, with OpenPMIx's and with rpmix's
# library.
#
#   pmixrun -n 4 /usr/bin/python3 c-tests/py/pmix_client.py
#
# Steps: init, Get of job data (PMIX_JOB_SIZE, PMIX_LOCAL_SIZE with the
# wildcard rank; PMIX_LOCAL_RANK, PMIX_NODE_RANK, PMIX_APPNUM of this rank),
# Put of a string key unique to this rank, Commit, Fence with
# PMIX_COLLECT_DATA, Get of every peer's key (and its value checked), Finalize.
#
# Output: lines "rank R: ..." that do not depend on the library or the
# launcher (the test compares them between runs), "info rank R: ..." lines
# naming the loaded library (PMIx_Get_version and the libpmix path from
# /proc/self/maps; the launcher's, i.e. the parent's, from /proc/PPID/maps),
# "rank R: FAIL ..." on an error, "rank R: OK" at the end.
# Exit status 0 only when every step succeeded.
#
# Conventions of the bindings (pmix.pyx of OpenPMIx 4.2.2): values are dicts
# {'value': v, 'val_type': PMIX_xxx}; info arrays are lists of dicts
# {'key': k, 'value': v, 'val_type': t}; procs are dicts {'nspace', 'rank'};
# init returns (rc, {'nspace', 'rank'}), get returns (rc, value dict), the
# other calls return rc. Attribute constants (PMIX_JOB_SIZE...) are bytes.
# Keys given as str must not begin with 'b' (the bindings strip a "b'...'"
# repr from such keys).
import io
import os
import signal
import sys
import warnings

warnings.simplefilter("ignore")  # the bindings use the deprecated Thread.setDaemon

import pmix  # noqa: E402

TIMEOUT = int(os.environ.get("PY_PMIX_TIMEOUT", "60"))
signal.alarm(TIMEOUT)  # bound ourselves: SIGALRM kills the process

rank = "?"


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def fail(what):
    out("rank %s: FAIL %s" % (rank, what))
    sys.stdout.flush()
    os._exit(1)


def libpmix_path(pid="self"):
    """The libpmix mapped into process pid (resolved path), or "none"."""
    try:
        with open("/proc/%s/maps" % pid) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and "libpmix.so" in fields[5]:
                    return os.path.realpath(fields[5])
    except OSError:
        pass
    return "none"


def value_of(client, proc, key, what):
    rc, val = client.get(proc, key, [])
    if rc != pmix.PMIX_SUCCESS:
        fail("get %s: rc=%d (%s)" % (what, rc, client.error_string(rc)))
    if not isinstance(val, dict) or "value" not in val:
        fail("get %s: unexpected result %r" % (what, val))
    return val


def main():
    global rank
    client = pmix.PMIxClient()
    version = client.get_version()
    if isinstance(version, bytes):
        version = version.decode("ascii", "replace")

    # init prints "CLIENT STARTING THREAD"/"CLIENT THREAD STARTED" (a print
    # per line part, which interleaves with other ranks' output): keep those
    # off stdout.
    saved, sys.stdout = sys.stdout, io.StringIO()
    try:
        rc, me = client.init([])
    finally:
        sys.stdout = saved
    if rc != pmix.PMIX_SUCCESS:
        fail("init: rc=%d" % rc)
    if not client.initialized():
        fail("initialized() is false after init")
    ns, rank = me["nspace"], me["rank"]
    out("info rank %d: version=%s" % (rank, version))
    out("info rank %d: lib=%s" % (rank, libpmix_path()))
    out("info rank %d: nspace=%s" % (rank, ns))
    ppid = os.getppid()
    try:
        with open("/proc/%d/comm" % ppid) as f:
            pcomm = f.read().strip()
    except OSError:
        pcomm = "?"
    out("info rank %d: parent=%s parent_lib=%s" % (rank, pcomm, libpmix_path(ppid)))

    wild = {"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}
    mine = {"nspace": ns, "rank": rank}

    v = value_of(client, wild, pmix.PMIX_JOB_SIZE, "PMIX_JOB_SIZE")
    job_size = v["value"]
    out("rank %d: job_size=%s type=%s" % (rank, job_size, v["val_type"]))
    v = value_of(client, wild, pmix.PMIX_LOCAL_SIZE, "PMIX_LOCAL_SIZE")
    out("rank %d: local_size=%s type=%s" % (rank, v["value"], v["val_type"]))
    v = value_of(client, mine, pmix.PMIX_LOCAL_RANK, "PMIX_LOCAL_RANK")
    out("rank %d: local_rank=%s type=%s" % (rank, v["value"], v["val_type"]))
    v = value_of(client, mine, pmix.PMIX_NODE_RANK, "PMIX_NODE_RANK")
    out("rank %d: node_rank=%s type=%s" % (rank, v["value"], v["val_type"]))
    v = value_of(client, mine, pmix.PMIX_APPNUM, "PMIX_APPNUM")
    out("rank %d: appnum=%s type=%s" % (rank, v["value"], v["val_type"]))
    if not isinstance(job_size, int) or job_size < 1 or not 0 <= rank < job_size:
        fail("bad job size %r for rank %r" % (job_size, rank))

    key = "pyclient.r%d" % rank
    mine_val = "hello from rank %d of %d" % (rank, job_size)
    rc = client.put(pmix.PMIX_GLOBAL, key, {"value": mine_val, "val_type": pmix.PMIX_STRING})
    if rc != pmix.PMIX_SUCCESS:
        fail("put: rc=%d" % rc)
    rc = client.commit()
    if rc != pmix.PMIX_SUCCESS:
        fail("commit: rc=%d" % rc)
    out("rank %d: put %s" % (rank, key))

    rc = client.fence([], [{"key": pmix.PMIX_COLLECT_DATA, "value": True,
                            "val_type": pmix.PMIX_BOOL}])
    if rc != pmix.PMIX_SUCCESS:
        fail("fence: rc=%d (%s)" % (rc, client.error_string(rc)))
    out("rank %d: fence done" % rank)

    for p in range(job_size):
        pkey = "pyclient.r%d" % p
        v = value_of(client, {"nspace": ns, "rank": p}, pkey, pkey)
        want = "hello from rank %d of %d" % (p, job_size)
        if v["val_type"] != pmix.PMIX_STRING or v["value"] != want:
            fail("peer %d: got %r, want %r" % (p, v, want))
        out("rank %d: got peer %d value=%s" % (rank, p, v["value"]))

    rc = client.finalize([])
    if rc != pmix.PMIX_SUCCESS:
        fail("finalize: rc=%d" % rc)
    out("rank %d: OK" % rank)
    return 0


if __name__ == "__main__":
    sys.exit(main())
