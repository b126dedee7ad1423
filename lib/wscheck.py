#!/usr/bin/env python3
"""The WebSocket items of servers/CONTRACT.md, checked with Python's `websockets`
(an implementation independent of the servers' and of barrage's): GET /ws upgrades;
a text message and a binary one of 64 KiB come back whole, as the same type; a ping gets its
pong; the client's close (1000) is answered with a close. One TAP line per item,
named `LABEL ws ITEM`; exits 1 when one failed.

  python wscheck.py LABEL ws://HOST:PORT/ws [--timeout SECONDS]"""
import argparse
import sys

from websockets.sync.client import connect

ITEMS = ["upgrade GET /ws", "text echo", "binary echo", "ping answered", "close handshake"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("label")
    ap.add_argument("url")
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    results = {}
    try:
        with connect(a.url, open_timeout=a.timeout, close_timeout=a.timeout, compression=None,
                     max_size=None) as ws:
            results["upgrade GET /ws"] = ""
            text = "hello, 世界 " * 20
            ws.send(text)
            got = ws.recv(timeout=a.timeout)
            results["text echo"] = "" if got == text else f"got {type(got).__name__} {str(got)[:60]!r}"
            data = bytes(range(256)) * 256  # 64 KiB: the largest message CONTRACT.md asks for
            ws.send(data)
            got = ws.recv(timeout=a.timeout)
            results["binary echo"] = "" if got == data else f"got {type(got).__name__} of {len(got)}"
            ws.ping(b"contract").wait(a.timeout) or results.setdefault("ping answered", "no pong")
            results.setdefault("ping answered", "")
            ws.close(1000)
            code = ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None
            results["close handshake"] = "" if code == 1000 else f"the server's close: {code}"
    except Exception as e:  # the items not reached fail with the reason
        for item in ITEMS:
            results.setdefault(item, f"{type(e).__name__}: {e}")
    failed = 0
    for item in ITEMS:
        why = results[item]
        failed += bool(why)
        print(f"{'not ok' if why else 'ok'} - {a.label} ws {item}{': ' + why if why else ''}", flush=True)
    return 1 if failed else 0


sys.exit(main())
