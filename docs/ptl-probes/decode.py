#!/usr/bin/env python3
"""Decode a proxy capture (cap.connN.jsonl) of an OpenPMIx 4.2.2 client<->server TCP connection.
usage: decode.py <cap.connN.jsonl> [--raw]
Assumes v41 bfrops, NON_DESC buffers, flex128 integers."""
import json, struct, sys

TYPES = {0: "UNDEF", 1: "BOOL", 2: "BYTE", 3: "STRING", 4: "SIZE", 5: "PID", 6: "INT", 7: "INT8", 8: "INT16",
         9: "INT32", 10: "INT64", 11: "UINT", 12: "UINT8", 13: "UINT16", 14: "UINT32", 15: "UINT64",
         16: "FLOAT", 17: "DOUBLE", 18: "TIMEVAL", 19: "TIME", 20: "STATUS", 21: "VALUE", 22: "PROC",
         24: "INFO", 27: "BYTE_OBJECT", 28: "KVAL", 30: "PERSIST", 32: "SCOPE", 33: "DATA_RANGE",
         34: "COMMAND", 39: "DATA_ARRAY", 40: "PROC_RANK", 42: "COMPRESSED_STRING", 49: "REGEX",
         60: "PROC_NSPACE"}
CMDS = ["REQ", "ABORT", "COMMIT", "FENCENB", "GETNB", "FINALIZE", "PUBLISHNB", "LOOKUPNB", "UNPUBLISHNB",
        "SPAWNNB", "CONNECTNB", "DISCONNECTNB", "NOTIFY", "REGEVENTS", "DEREGEVENTS", "QUERY", "LOG",
        "ALLOC", "JOB_CONTROL", "MONITOR", "GET_CREDENTIAL", "VALIDATE_CRED", "IOF_PULL", "IOF_PUSH",
        "GROUP_CONSTRUCT", "GROUP_JOIN", "GROUP_INVITE", "GROUP_LEAVE", "GROUP_DESTRUCT", "IOF_DEREG",
        "FABRIC_REGISTER", "FABRIC_UPDATE", "COMPUTE_DEVICE_DISTANCES"]
SCOPES = {0: "UNDEF", 1: "LOCAL", 2: "REMOTE", 3: "GLOBAL", 4: "INTERNAL"}


class End(Exception):
    pass


class R:
    def __init__(s, b):
        s.b, s.p = b, 0

    def left(s):
        return len(s.b) - s.p

    def raw(s, n):
        if s.p + n > len(s.b):
            raise End()
        r = s.b[s.p:s.p + n]; s.p += n; return r

    def vu(s):
        v = sh = 0
        for i in range(9):
            c = s.raw(1)[0]
            if i == 8:
                return v | (c << 56)
            v |= (c & 0x7f) << sh; sh += 7
            if not c & 0x80:
                return v
        return v

    def vs(s):
        u = s.vu(); return (u >> 1) ^ -(u & 1)

    def string(s):
        n = s.vs()
        if n <= 0:
            return None
        return s.raw(n)[:-1].decode(errors="replace")

    def count(s):
        return s.vs()

    def rank(s):
        r = s.vu()
        return {0xfffffffe: "WILDCARD", 0xffffffff: "UNDEF", 0xfffffffd: "LOCAL_NODE"}.get(r, r)

    def proc(s):
        ns = s.string(); return f"{ns}:{s.rank()}"

    def payload(s, t):
        if t == 0: return None
        if t in (1, 2, 7, 12, 30, 32, 33, 34): return s.raw(1)[0]
        if t in (3, 16, 17): return s.string()
        if t in (4, 13, 14, 15, 19): return s.vu()
        if t in (6, 8, 9, 10, 11, 20): return s.vs()
        if t == 5: s.vu(); return s.vu()
        if t == 18: return (s.vs(), s.vs())
        if t == 22: return s.proc()
        if t == 40: return s.rank()
        if t == 60: return s.string()
        if t in (27, 42, 59):
            n = s.vu(); return "bytes[%d]:%s" % (n, s.raw(n).hex())
        if t == 49:  # regex: raw NUL-terminated string, no length
            e = s.b.index(0, s.p); r = s.b[s.p:e].decode(); s.p = e + 1; return "regex:" + r
        if t == 24: return s.info()
        if t == 39:
            et = s.vu(); n = s.vu()
            return {"darray": TYPES.get(et, et), "items": [s.payload(et) for _ in range(n)]}
        if t == 21:
            vt = s.vu(); return (TYPES.get(vt, vt), s.payload(vt))
        raise ValueError(f"type {t} not handled at {s.p}")

    def value(s):
        t = s.vu(); return (TYPES.get(t, t), s.payload(t))

    def info(s):
        k = s.string(); fl = s.vu(); v = s.value()
        return (k, v) if fl == 0 else (k, v, "flags=%#x" % fl)

    def kval(s):
        k = s.string(); return (k, s.value())

    # one PMIx_Data_pack-style call: count prefix then n elements
    def packed(s, fn):
        n = s.count(); return [fn() for _ in range(n)]


def segments(path):
    """yield (dir, bytes) messages: handshake parts first, then framed messages."""
    c2s = bytearray(); s2c = bytearray(); order = []
    for l in open(path):
        j = json.loads(l)
        if "hex" in j:
            (c2s if j["dir"] == "c2s" else s2c).extend(bytes.fromhex(j["hex"]))
            order.append((j["t"], j["dir"]))
    return bytes(c2s), bytes(s2c)


def show_hs(c):
    r = R(c)
    pidx, tag, nb, pad = struct.unpack("<iIII", r.raw(16))
    print(f"  HANDSHAKE header (host/LE order!): pindex={pidx} tag={tag:#x} nbytes={nb} pad={pad}")
    body = R(r.raw(nb))
    def cstr():
        e = body.b.index(0, body.p); v = body.b[body.p:e].decode(); body.p = e + 1; return v
    print("   psec      =", repr(cstr()))
    cl = struct.unpack(">I", body.raw(4))[0]
    cred = body.raw(cl)
    print(f"   credlen   = {cl} (BE)  cred={cred.hex()}" + (f"  -> uid={struct.unpack('<I',cred[:4])[0]} gid={struct.unpack('<I',cred[4:8])[0]} (host order)" if cl == 8 else ""))
    fl = body.raw(1)[0]; print("   flag      =", fl)
    if fl in (3, 6):
        print("   uid,gid   =", struct.unpack(">II", body.raw(8)))
    elif fl in (1, 2):
        print("   uid,gid   =", struct.unpack(">II", body.raw(8)))
    else:
        if fl != 0:
            print("   uid,gid   =", struct.unpack(">II", body.raw(8)))
        print("   nspace    =", repr(cstr()), " rank =", struct.unpack(">I", body.raw(4))[0], "(BE)")
    print("   version   =", repr(cstr()))
    print("   bfrops    =", repr(cstr()))
    print("   buftype   =", body.raw(1)[0])
    print("   gds       =", repr(cstr()))
    print("   trailing  =", body.b[body.p:].hex())
    return 16 + nb


def frames(b, off):
    out = []
    while off + 16 <= len(b):
        pidx, tag, nb, pad = struct.unpack(">iIII", b[off:off + 16])
        out.append((pidx, tag, nb, pad, b[off + 16:off + 16 + nb])); off += 16 + nb
    return out


def decode_body(d, body, reqcmd):
    r = R(body)
    try:
        if d == "c2s":
            cmd = r.packed(lambda: r.raw(1)[0])[0]
            name = CMDS[cmd] if cmd < len(CMDS) else cmd
            print(f"    cmd {cmd} = {name}")
            if cmd == 2:  # COMMIT
                while r.left():
                    sc = r.packed(lambda: r.raw(1)[0])[0]
                    # PMIX_BUFFER: type byte, size, bytes
                    bufs = r.packed(lambda: (r.raw(1)[0], r.raw(r.vu())))
                    for bt, inner in bufs:
                        print(f"    scope {SCOPES[sc]}  BUFFER(type={bt}, {len(inner)} bytes):")
                        ir = R(inner)
                        while ir.left():
                            print("        ", ir.packed(ir.kval))
            elif cmd == 3:
                print("    nprocs", r.packed(r.vu), " procs", r.packed(r.proc))
                ni = r.packed(r.vu)[0]; print("    ninfo", ni)
                if ni: print("    info", r.packed(r.info))
            elif cmd == 4:
                print("    nspace", r.packed(r.string), "rank", r.packed(r.rank))
                ni = r.packed(r.vu)[0]; print("    ninfo", ni)
                if ni: print("    info", r.packed(r.info))
                if r.left(): print("    key", r.packed(r.string))
            return cmd
        else:
            if reqcmd == 0:
                print("    nspace", r.packed(r.string))
                while r.left():
                    kv = r.packed(r.kval)
                    for k, v in kv:
                        if k in ("pmix.pblob", "pmix.mblob"):
                            print(f"     KVAL {k} {v[0]}:")
                            hx = v[1].split(":", 1)[1]
                            ir = R(bytes.fromhex(hx))
                            if k == "pmix.pblob":
                                print("         rank", ir.packed(ir.rank))
                            while ir.left():
                                print("         ", ir.packed(ir.kval))
                        else:
                            print("     KVAL", k, v)
            else:
                print("    status", r.packed(r.vs))
                while r.left():
                    for bo in r.packed(lambda: r.raw(r.vu())):
                        ir = R(bo)
                        print("     BYTE_OBJECT: proc", ir.packed(ir.proc))
                        while ir.left():
                            print("         ", ir.packed(ir.kval))
    except End:
        print("    <ran past end>")
    except Exception as e:
        print("    <decode error>", e, "at", r.p, body[r.p:].hex())
    if r.left():
        print("    <leftover>", body[r.p:].hex())


def main():
    path = sys.argv[1]
    c, s = segments(path)
    off = show_hs(c)
    print("  SERVER handshake reply: status(BE)=%d" % struct.unpack(">i", s[:4])[0],
          " then client index(BE)=%d" % struct.unpack(">i", s[4:8])[0] if len(s) >= 8 else "")
    cf = frames(c, off); sf = frames(s, 8)
    pending = {}
    # interleave by tag
    for (pidx, tag, nb, pad, body) in cf:
        print(f"\n>> c2s hdr pindex={pidx} tag={tag} nbytes={nb} pad={pad}  body={body.hex()}")
        pending[tag] = decode_body("c2s", body, None)
        for (p2, t2, n2, pd2, b2) in sf:
            if t2 == tag:
                print(f"<< s2c hdr pindex={p2} tag={t2} nbytes={n2} pad={pd2}  body={b2.hex() if n2 < 120 else b2[:120].hex() + '...'}")
                decode_body("s2c", b2, pending[tag])
    others = [f for f in sf if f[1] not in pending]
    for (p2, t2, n2, pd2, b2) in others:
        print(f"<< s2c UNSOLICITED hdr pindex={p2} tag={t2} nbytes={n2} body={b2.hex()}")


main()
