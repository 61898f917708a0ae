#!/usr/bin/env python3
"""ptl_probe: raw OpenPMIx connect messages against the TCP listener of the
server that launched this process (PMIX_SERVER_URI41), written from
docs/openpmix-ptl-protocol.md section 2 alone.

  ptl_probe.py claim <uid> [label]
                             connect as this process's own rank, claiming
                             uid <uid> (gid: ours): prints "accepted" (the
                             server answered status 0 and an index) or
                             "refused" (closed without a byte), after
                             "<label> " when given
  ptl_probe.py bfrops <name> connect as this process's own rank announcing
                             serialisation <name> (e.g. v3, OpenPMIx 3's):
                             prints "accepted" or "refused"
  ptl_probe.py fuzz <n>      <n> connections of garbage: random bytes,
                             truncated and bit-flipped connect messages, huge
                             declared lengths; prints "fuzz done <n>" when
                             every one was closed or answered (none hangs
                             past 5 s)

Exit status 0 when the probe ran (the caller judges the printed outcome).
"""
import os
import random
import socket
import struct
import sys


def contact():
    uri = os.environ["PMIX_SERVER_URI41"]
    addr = uri.split(";", 1)[1]
    assert addr.startswith("tcp4://"), uri
    host, port = addr[len("tcp4://"):].rsplit(":", 1)
    return host, int(port)


def connect_message(uid, gid, nspace, rank, bfrops="v41"):
    body = b"native\0" + struct.pack(">I", 8) + struct.pack("=II", uid, gid)
    body += b"\0" + nspace.encode() + b"\0" + struct.pack(">I", rank)
    body += b"4.2.2\0" + bfrops.encode() + b"\0" + b"\x01" + b"hash\0"
    header = struct.pack(">ii", -1, -1) + struct.pack("=I", len(body)) + b"\0\0\0\0"
    return header + body


def answer(msg, timeout=5.0, full=True):
    """What the server sent back before closing (or within `timeout`)."""
    s = socket.create_connection(contact(), timeout=timeout)
    got = b""
    try:
        s.sendall(msg)
        if not full:
            # (the end of what it says: a server must not wait for more)
            s.shutdown(socket.SHUT_WR)
        while len(got) < 8:
            chunk = s.recv(8 - len(got))
            if not chunk:
                break
            got += chunk
    except OSError:
        # (reset, broken pipe, or not connected any more: the server may
        # close on a bad message before this end has even shut down)
        pass
    finally:
        s.close()
    return got


def claim(uid, bfrops="v41", label=None):
    me = (os.environ["PMIX_NAMESPACE"], int(os.environ["PMIX_RANK"]))
    got = answer(connect_message(uid, os.getegid(), *me, bfrops=bfrops))
    if len(got) == 8 and struct.unpack(">i", got[:4])[0] == 0:
        outcome = "accepted"
    elif got == b"":
        outcome = "refused"
    else:
        outcome = "unexpected answer %r" % got
    print(outcome if label is None else "%s %s" % (label, outcome))


def fuzz(n):
    rnd = random.Random(16)
    good = connect_message(os.geteuid(), os.getegid(), os.environ["PMIX_NAMESPACE"], int(os.environ["PMIX_RANK"]))
    for i in range(n):
        kind = i % 4
        if kind == 0:
            msg = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 300)))
        elif kind == 1:
            msg = good[: rnd.randrange(1, len(good))]
        elif kind == 2:
            b = bytearray(good)
            for _ in range(rnd.randrange(1, 6)):
                b[rnd.randrange(16, len(b))] ^= 1 << rnd.randrange(8)
            # (never a message the server would accept: the rank's own
            # connection is kept for its real PMIx_Init)
            b[16:23] = b"nativX\0"
            msg = bytes(b)
        else:
            msg = good[:8] + struct.pack("=I", rnd.choice([0xFFFFFFFF, 131073, 1 << 30])) + good[12:]
        answer(msg, full=False)
    print("fuzz done %d" % n)


if __name__ == "__main__":
    if sys.argv[1] == "claim":
        claim(int(sys.argv[2]), label=sys.argv[3] if len(sys.argv) > 3 else None)
    elif sys.argv[1] == "bfrops":
        claim(os.geteuid(), sys.argv[2])
    elif sys.argv[1] == "fuzz":
        fuzz(int(sys.argv[2]))
    sys.exit(0)
