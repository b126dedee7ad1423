#!/usr/bin/env python3
"""Test server for barrage's integration tests: one asyncio HTTP/1.1 server with
a misbehaviour per mode, on 127.0.0.1 and a free port.

Standalone: python3 server.py MODE [key=value...]  (prints {"port": N} then serves)
In tests: TestServer(mode, **params).start() runs it on a background thread.
Responses are built by response_for(), so tests can compute exact byte counts.
Timing modes: slow (delay=S before every answer), silent (never answers),
silent-every (every=N: requests 0, N, 2N... never answered), hold-one (after=S,
hold=S: the first request arriving `after` s after the first one waits `hold` s).
shaped (start=S, settled=S, ramp=S, growth=G: see _shaped_delay).
close-extra answers with Connection: close followed by a second whole response (bytes no
request asked for) and closes once the client is quiet.

The server counts what it did with each request it read, by kind (kind_for():
"status NNN" for a whole final response, "truncated", "garbage", "badchunk",
"closed" for a connection closed instead of an answer, "unanswered"), each
counted just before it happens: TestServer.sent, or GET /_sent (JSON; that
request itself is not counted) when it runs standalone."""
import asyncio
import collections
import json
import sys
import threading
import time

HELLO = b"Hello world"
STATUS_CYCLE = [200, 301, 404, 500, 503, 429, 200, 502]
REASONS = {100: "Continue", 103: "Early Hints", 200: "OK", 204: "No Content", 301: "Moved Permanently",
           304: "Not Modified", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable"}


def head(status, headers, version="1.1"):
    lines = [f"HTTP/{version} {status} {REASONS.get(status, 'X')}"] + [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def ok(body=HELLO, status=200, extra=()):
    return head(status, [("Content-Length", len(body)), *extra]) + body


def chunked(total, chunk=65536):
    """A chunked body of `total` bytes with chunk extensions and trailers."""
    parts = []
    sent = 0
    while sent < total:
        n = min(chunk, total - sent)
        parts.append(b"%x;ext=1\r\n" % n + b"c" * n + b"\r\n")
        sent += n
    parts.append(b"0;last=yes\r\nX-Trailer: done\r\nX-Other: 1\r\n\r\n")
    return head(200, [("Transfer-Encoding", "chunked")]) + b"".join(parts)


def response_for(mode, index, params):
    """The bytes answering request number `index` (global, from 0) in `mode`."""
    if mode == "close10":
        return head(200, [("Content-Type", "text/plain")], version="1.0") + HELLO
    if mode == "truncated":
        return head(200, [("Content-Length", 100)]) + b"t" * 50
    if mode == "garbage":
        return b"GARBAGE\r\n\r\n"
    if mode == "badchunk":
        return head(200, [("Transfer-Encoding", "chunked")]) + b"zz\r\nhello\r\n0\r\n\r\n"
    if mode == "bigheader":
        return head(200, [("X-Big", "b" * params.get("header_size", 100 * 1024)), ("Content-Length", 2)]) + b"ok"
    if mode == "big":
        return ok(b"L" * params["size"])
    if mode == "bigchunked":
        return chunked(params["size"])
    if mode == "interim":
        return (head(100, []) + head(103, [("Link", "</style.css>; rel=preload")]) + ok())
    if mode == "nobody":
        status = params["status"]
        # a 304 may announce the length of the body it does not send
        return head(status, [("Content-Length", 100)] if status == 304 else [])
    if mode == "statuses":
        return ok(status=STATUS_CYCLE[index % len(STATUS_CYCLE)])
    if mode == "status":
        return ok(status=params["code"])
    if mode == "big-first":  # params["big"] big bodies of params["size"] bytes, then small ones
        return ok(b"L" * params["size"] if index < params["big"] else b"small")
    if mode == "varied":
        return ok(b"v" * (index % 7))
    if mode == "close-extra":
        # Connection: close, then bytes that look like the answer to the next pipelined request
        return ok(extra=[("Connection", "close")]) + ok(b"extra")
    return ok()


async def _drain_requests(reader):
    """Reads what the client sent until it is quiet for 50 ms, so that closing sends a FIN,
    not the RST that unread data would cause (the client must see the bytes before the close)."""
    try:
        while await asyncio.wait_for(reader.read(65536), 0.05):
            pass
    except (asyncio.TimeoutError, ConnectionError):
        pass


def kind_for(mode, index, params, on_connection):
    """What the server does with request number `index` (the kinds of TestServer.sent)."""
    if mode == "silent" or (mode == "silent-every" and index % params["every"] == 0):
        return "unanswered"
    if mode == "drop-second" and on_connection % 2 == 0:
        return "closed"
    if mode in ("truncated", "garbage", "badchunk"):
        return mode
    if mode == "statuses":
        return f"status {STATUS_CYCLE[index % len(STATUS_CYCLE)]}"
    if mode == "nobody":
        return f"status {params['status']}"
    if mode == "status":
        return f"status {params['code']}"
    return "status 200"


class TestServer:
    def __init__(self, mode, **params):
        self.mode = mode
        self.params = params
        self.count = 0
        self.sent = collections.Counter()  # kind_for() -> how many
        self.first_request_at = None  # loop time, for mode hold
        self.first_request_wall = None  # time.time() of the first request read
        self.held = False
        self.requests = []  # (head, body) of the first requests, for checks
        self.port = None
        self.loop = asyncio.new_event_loop()
        self.writers = set()
        self.server = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.blob_cache = {}

    def start(self):
        self.thread.start()
        self.ready.wait(10)
        return self

    def stop(self):
        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(10)
            asyncio.run_coroutine_threadsafe(self._cancel_handlers(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        if "unix" in self.params:
            self.server = self.loop.run_until_complete(
                asyncio.start_unix_server(self._handle, self.params["unix"], limit=1 << 20))
        else:
            self.server = self.loop.run_until_complete(
                asyncio.start_server(self._handle, self.params.get("host", "127.0.0.1"), 0, limit=1 << 20))
            self.port = self.server.sockets[0].getsockname()[1]
        if self.mode == "die":
            self.loop.call_later(self.params["after"], lambda: asyncio.ensure_future(self._shutdown()))
        self.ready.set()
        self.loop.run_forever()

    async def _shutdown(self):
        if self.server:
            self.server.close()
        for w in list(self.writers):
            w.transport.abort()

    async def _cancel_handlers(self):
        tasks = [t for t in asyncio.all_tasks(self.loop) if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _hold_one(self):
        """Mode hold-one: the first request that arrives `after` s after the first one waits `hold` s."""
        now = self.loop.time()
        if self.first_request_at is None:
            self.first_request_at = now
        if not self.held and now - self.first_request_at >= self.params["after"]:
            self.held = True
            await asyncio.sleep(self.params["hold"])

    def _shaped_delay(self):
        """Mode shaped: the delay of an answer `t` s after the first request: from `start` down to
        `settled` over the first `ramp` s (linearly), then `settled`, times 1 + growth * t (a
        server that keeps slowing down). A known shape for the steady-state warm-up."""
        now = self.loop.time()
        if self.first_request_at is None:
            self.first_request_at = now
        t = now - self.first_request_at
        p = self.params
        settled = p["settled"]
        delay = settled + (p.get("start", settled) - settled) * max(0.0, 1 - t / p.get("ramp", 1.0))
        return delay * (1 + p.get("growth", 0.0) * t)

    def _response(self, index):
        key = (index % 56 if self.mode in ("statuses", "varied")
               else min(index, self.params["big"]) if self.mode == "big-first" else 0)
        if key not in self.blob_cache:
            self.blob_cache[key] = response_for(self.mode, index, self.params)
        return self.blob_cache[key]

    async def _read_request(self, reader):
        """Reads one request; returns (method, target)."""
        req_head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in req_head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await reader.readexactly(length) if length else b""
        if self.first_request_wall is None:
            self.first_request_wall = time.time()
        if len(self.requests) < 10:
            self.requests.append((req_head, body))
        method, target = req_head.split(b" ", 2)[:2]
        return method, target

    async def _handle(self, reader, writer):
        self.writers.add(writer)
        on_connection = 0
        try:
            while True:
                method, target = await self._read_request(reader)
                if target == b"/_sent":
                    writer.write(ok(json.dumps(self.sent, sort_keys=True).encode()))
                    continue
                index = self.count
                self.count += 1
                on_connection += 1
                if not await self._answer(reader, writer, method, index, on_connection):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            # CancelledError: the test is over (stop()); the handler ends quietly
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    async def _answer(self, reader, writer, method, index, on_connection):
        """Sends the answer; False when the connection must close."""
        mode = self.mode
        kind = kind_for(mode, index, self.params, on_connection)
        if kind == "unanswered":
            self.sent[kind] += 1
            return True
        if kind == "closed":
            self.sent[kind] += 1
            return False
        if mode == "slow":
            await asyncio.sleep(self.params["delay"])
        if mode == "hold-one":
            await self._hold_one()
        if mode == "shaped":
            await asyncio.sleep(self._shaped_delay())
        data = self._response(index)
        self.sent[kind] += 1
        if method == b"HEAD":
            data = data[:data.index(b"\r\n\r\n") + 4]
        writer.write(data)
        await writer.drain()
        if mode == "close-extra":
            await _drain_requests(reader)
        return mode not in ("close10", "truncated", "garbage", "badchunk", "close-extra")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    params = {}
    for arg in sys.argv[2:]:
        key, value = arg.split("=", 1)
        params[key] = float(value) if "." in value else int(value)
    server = TestServer(mode, **params).start()
    print(json.dumps({"port": server.port}), flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
