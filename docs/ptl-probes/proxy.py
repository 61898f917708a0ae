#!/usr/bin/env python3
"""Logging TCP relay. usage: proxy.py <listen-port> <upstream-file> <logprefix>
Each accepted connection N is relayed to the host:port in upstream-file (tcp4://ip:port),
every chunk is appended to <logprefix>.connN.jsonl as {"t":..,"dir":"c2s"|"s2c","hex":..}."""
import json, socket, sys, threading, time

port, upfile, prefix = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(16)
t0 = time.time(); lock = threading.Lock()

def pump(src, dst, d, log):
    while True:
        try:
            b = src.recv(65536)
        except OSError:
            b = b""
        if not b:
            with lock:
                log.write(json.dumps({"t": round(time.time() - t0, 6), "dir": d, "eof": True}) + "\n"); log.flush()
            try: dst.shutdown(socket.SHUT_WR)
            except OSError: pass
            return
        with lock:
            log.write(json.dumps({"t": round(time.time() - t0, 6), "dir": d, "hex": b.hex()}) + "\n"); log.flush()
        dst.sendall(b)

n = 0
while True:
    c, _ = ls.accept()
    uri = open(upfile).read().strip()
    hp = uri.split("://", 1)[1]; host, p = hp.rsplit(":", 1)
    s = socket.create_connection((host, int(p)))
    log = open(f"{prefix}.conn{n}.jsonl", "w"); n += 1
    threading.Thread(target=pump, args=(c, s, "c2s", log), daemon=True).start()
    threading.Thread(target=pump, args=(s, c, "s2c", log), daemon=True).start()
