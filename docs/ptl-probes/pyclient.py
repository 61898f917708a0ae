#!/usr/bin/python3
"""Independent minimal PMIx client speaking OpenPMIx 4.2.2's ptl/tcp + v41 wire protocol.
Written from /tmp/ptl-protocol.md to validate it.  Modes (env PYCLI_MODE):
  ok (default) | badbfrops | badpsec | badver | baduid | fullydesc | badgds | v3"""
import os, socket, struct, sys

MODE = os.environ.get("PYCLI_MODE", "ok")
def log(*a): print(f"[py {os.environ.get('PMIX_RANK')}]", *a, file=sys.stderr, flush=True)

# ---------------- v41 codec (NON_DESC, flex128) ----------------
def vu(x):
    out = bytearray()
    for i in range(8):
        if x < 0x80:
            out.append(x); return bytes(out)
        out.append((x & 0x7f) | 0x80); x >>= 7
    out.append(x & 0xff); return bytes(out)
def vs(x):  # int32/int64 zigzag
    return vu(((x << 1) ^ (x >> 63)) & 0xffffffffffffffff)
def pstr(s):
    if s is None: return vs(0)
    b = s.encode() + b"\0"; return vs(len(b)) + b
FD = MODE == "fullydesc"
def pack(t, *elems):
    """one PMIx_Data_pack call: [type tag] count [type tag] elements"""
    body = b"".join(elems)
    if FD:
        return vu(9) + vs(len(elems)) + vu(t) + body
    return vs(len(elems)) + body
T_BOOL, T_STRING, T_SIZE, T_UINT32, T_STATUS, T_PROC, T_INFO, T_BUFFER, T_KVAL, T_SCOPE, T_COMMAND, T_RANK = \
    1, 3, 4, 14, 20, 22, 24, 26, 28, 32, 34, 40
def val(t, payload): return vu(t) + payload
def kval(k, t, payload): return pstr(k) + val(t, payload)
def info(k, t, payload, flags=0): return pstr(k) + vu(flags) + val(t, payload)
def proc(ns, rank): return pstr(ns) + vu(rank)
WILDCARD = 0xfffffffe

class Rd:
    def __init__(s, b): s.b, s.p = b, 0
    def left(s): return len(s.b) - s.p
    def raw(s, n):
        if s.p + n > len(s.b): raise EOFError
        r = s.b[s.p:s.p + n]; s.p += n; return r
    def vu(s):
        v = sh = 0
        for i in range(9):
            c = s.raw(1)[0]
            if i == 8: return v | (c << 56)
            v |= (c & 0x7f) << sh; sh += 7
            if not c & 0x80: return v
    def vs(s):
        u = s.vu(); return (u >> 1) ^ -(u & 1)
    def str(s):
        n = s.vs(); return None if n <= 0 else s.raw(n)[:-1].decode()
    def hdr(s, t):  # consume count (+tags) of one pack call, return count
        if FD: assert s.vu() == 9
        n = s.vs()
        if FD: assert s.vu() == t
        return n
    def value(s):
        t = s.vu()
        if t in (1, 2, 7, 12, 30, 32, 33, 34): return t, s.raw(1)[0]
        if t == 3: return t, s.str()
        if t in (4, 13, 14, 15, 40): return t, s.vu()
        if t in (6, 8, 9, 10, 11, 20): return t, s.vs()
        if t == 22: return t, (s.str(), s.vu())
        if t == 27: n = s.vu(); return t, s.raw(n)
        if t == 24: k = s.str(); s.vu(); return t, (k, s.value())
        if t == 39:
            et = s.vu(); n = s.vu()
            items = []
            for _ in range(n):
                if et == 24: k = s.str(); s.vu(); items.append((k, s.value()))
                else: raise ValueError(f"darray of {et}")
            return t, items
        raise ValueError(f"value type {t}")
    def kval(s): return s.str(), s.value()

# ---------------- transport ----------------
def recvall(sk, n):
    b = b""
    while len(b) < n:
        c = sk.recv(n - len(b))
        if not c: raise ConnectionError(f"EOF after {len(b)} of {n} bytes")
        b += c
    return b

def main():
    ns = os.environ["PMIX_NAMESPACE"]; rank = int(os.environ["PMIX_RANK"])
    uri = None
    for v in ("PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"):
        if v in os.environ: uri = os.environ[v]; break
    srvid, addr = uri.split(";", 1)
    srv_ns, srv_rank = srvid.rsplit(".", 1)
    host, port = addr[len("tcp4://"):].rsplit(":", 1)
    sk = socket.create_connection((host, int(port)))
    psec = {"badpsec": "munge"}.get(MODE, "native")
    uid, gid = os.geteuid(), os.getegid()
    if MODE == "baduid": uid += 1
    cred = struct.pack("<II", uid, gid)  # host byte order uid_t, gid_t
    version = {"badver": "garbage", "v3": "3.2.3"}.get(MODE, "4.2.2")
    bfrops = {"badbfrops": "v99", "v3": "v3"}.get(MODE, "v41")
    gds = {"badgds": "nosuch"}.get(MODE, "hash")
    btype = 2 if FD else 1
    body = (psec.encode() + b"\0" + struct.pack(">I", len(cred)) + cred + bytes([0])
            + ns.encode() + b"\0" + struct.pack(">I", rank)
            + version.encode() + b"\0" + bfrops.encode() + b"\0" + bytes([btype]) + gds.encode() + b"\0")
    # handshake header: pindex=-1, tag=0xffffffff, nbytes in HOST (little-endian) order, padding 0
    sk.sendall(struct.pack("<iIII", -1, 0xffffffff, len(body), 0) + body)
    try:
        status = struct.unpack(">i", recvall(sk, 4))[0]
    except ConnectionError as e:
        log("handshake: server closed connection:", e); return 2
    if status != 0:
        log("handshake status", status); return 3
    pindex = struct.unpack(">i", recvall(sk, 4))[0]
    log(f"connected to {srv_ns}:{srv_rank}, my index {pindex}")
    tag = [100]

    def sendrecv(payload):
        tag[0] += 1
        sk.sendall(struct.pack(">iIII", pindex, tag[0], len(payload), 0) + payload)
        while True:
            h = recvall(sk, 16)
            _pidx, rtag, nb, _pad = struct.unpack(">iIII", h)
            data = recvall(sk, nb)
            if rtag == tag[0]:
                return Rd(data)
            log(f"unsolicited message tag {rtag}: {data.hex()}")

    def status_of(r):
        assert r.hdr(T_STATUS) == 1
        return r.vs()

    # ---- PMIx_Init: REQ job info
    r = sendrecv(pack(T_COMMAND, bytes([0])))
    dd = os.environ.get("PYCLI_DUMPDIR")
    if dd:
        open(f"{dd}/req_reply_rank{rank}.bin", "wb").write(r.b)
        open(f"{dd}/env_rank{rank}.txt", "w").write("".join(f"{k}={v}\n" for k, v in sorted(os.environ.items()) if k.startswith(("PMIX", "OMPI_", "PMIX_"))))
    if r.left() < 16 and r.hdr(T_STRING) == 1 and False: pass
    r.hdr(T_STRING); jns = r.str()
    jobdata, procdata = {}, {}
    while r.left():
        r.hdr(T_KVAL); k, (t, v) = r.kval()
        if k == "pmix.pblob":
            br = Rd(v); br.hdr(T_RANK); rk = br.vu()
            while br.left():
                br.hdr(T_KVAL); kk, vv = br.kval(); procdata.setdefault(rk, {})[kk] = vv
        else:
            jobdata[k] = (t, v)
    log("job nspace", jns, "job.size", jobdata.get("pmix.job.size"), "my lrank", procdata.get(rank, {}).get("pmix.lrank"))
    # ---- Put + Commit: LOCAL bucket then REMOTE bucket, each a PMIX_BUFFER of packed KVALs
    mine = f"py{rank}"
    local = pack(T_KVAL, kval("kg", T_STRING, pstr(mine))) + pack(T_KVAL, kval("kl", T_UINT32, vu(100 + rank)))
    remote = pack(T_KVAL, kval("kg", T_STRING, pstr(mine))) + pack(T_KVAL, kval("kr", T_UINT32, vu(200 + rank)))
    def buffer(b): return bytes([btype]) + vu(len(b)) + b
    msg = (pack(T_COMMAND, bytes([2])) + pack(T_SCOPE, bytes([1])) + pack(T_BUFFER, buffer(local))
           + pack(T_SCOPE, bytes([2])) + pack(T_BUFFER, buffer(remote)))
    log("commit status", status_of(sendrecv(msg)))
    # ---- Fence (collect)
    fence = (pack(T_COMMAND, bytes([3])) + pack(T_SIZE, vu(1)) + pack(T_PROC, proc(ns, WILDCARD))
             + pack(T_SIZE, vu(1)) + pack(T_INFO, info("pmix.collect", T_BOOL, b"\x01")))
    log("fence status", status_of(sendrecv(fence)))
    # ---- Get peer's key
    peer = (rank + 1) % 2
    get = (pack(T_COMMAND, bytes([4])) + pack(T_STRING, pstr(ns)) + pack(T_RANK, vu(peer))
           + pack(T_SIZE, vu(0)) + pack(T_STRING, pstr("kg")))
    r = sendrecv(get); st = status_of(r)
    got = {}
    while st == 0 and r.left():
        r.hdr(27); n = r.vu(); br = Rd(r.raw(n))
        br.hdr(T_PROC); pns = br.str(); prk = br.vu()
        while br.left():
            br.hdr(T_KVAL); k, v = br.kval(); got[k] = v
    log("get peer", peer, "status", st, "data", got)
    # ---- barrier, finalize
    log("fence2 status", status_of(sendrecv(pack(T_COMMAND, bytes([3])) + pack(T_SIZE, vu(1))
                                              + pack(T_PROC, proc(ns, WILDCARD)) + pack(T_SIZE, vu(0)))))
    log("finalize status", status_of(sendrecv(pack(T_COMMAND, bytes([5])))))
    sk.close()
    return 0

sys.exit(main())
