#!/usr/bin/env python3
"""HTTP/2 (h2c, prior knowledge) test server for the faults nginx cannot make,
built on the `h2` package from PyPI. One thread per connection; 127.0.0.1 only.

  h2server.py MODE PORTFILE LOGFILE [key=value...]

Writes its port to PORTFILE once listening, then serves until killed. Every
event the tests count goes to LOGFILE as one JSON line (flushed at once).
Requests are numbered across all connections from 0, in arrival order.
What the server does with each request is logged as {"event": "sent", "kind":
K} just before it does it (the kinds of tests/harness.py check_sent): "status
NNN" (a whole response), "reset", "refused", "unanswered", "connection error".

Modes:
  ok          200 "hello" to every request
  status      a response with :status `code` (200) to every request
  timeout     requests with index % every == 0 (every=10) are never answered
  reset       RST_STREAM(INTERNAL_ERROR) for index % every == 0 (every=4)
  refuse      RST_STREAM(REFUSED_STREAM) for index % every == 0 (every=5)
  goaway      wait_ms (30) after a connection's first request: answer its
              first `keep` (4) streams, send GOAWAY with the last of them as
              last-stream-id, never answer the others, close the connection
  maxstreams  SETTINGS_MAX_CONCURRENT_STREAMS=limit (limit=2); answers after
              delay_ms (20); logs the most streams ever open at once
  headers     a response with `count` headers of `size` bytes each (count=1,
              size=1000): large header blocks go out as HEADERS + CONTINUATION
  garbage     answers the first request with bytes that are not HTTP/2
  badframe    answers the first request with a HEADERS frame whose header
              block cannot be decoded (an HPACK index that does not exist)
"""
import json
import os
import select
import socket
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

HELLO = b"hello"


class Server:
    def __init__(self, mode, params, log_path):
        self.mode = mode
        self.params = params
        self.log_file = open(log_path, "a", buffering=1)
        self.lock = threading.RLock()
        self.index = 0
        self.open_streams = 0
        self.max_open = 0

    def param(self, name, default):
        return int(self.params.get(name, default))

    def log(self, **event):
        with self.lock:
            self.log_file.write(json.dumps(event) + "\n")

    def next_index(self):
        with self.lock:
            i = self.index
            self.index += 1
            return i

    def serve(self, port_file):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        # renamed so a reader never sees a half-written port
        os.replace(port_file + ".tmp", port_file)
        while True:
            sock, _ = listener.accept()
            threading.Thread(target=Connection(self, sock).run, daemon=True).start()


class Connection:
    def __init__(self, server, sock):
        self.server = server
        self.sock = sock
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
        if server.mode == "headers":
            # literal strings without Huffman coding (as valid): pure-Python Huffman takes
            # ~0.13 s per 80,000 bytes, most of that mode's time
            encoder = self.conn.encoder
            encoder.encode = lambda headers, huffman=True: type(encoder).encode(encoder, headers, huffman=False)
        self.requests_here = 0
        self.stream_ids = []
        self.pending = []  # (due time, stream id)
        self.silent = set()  # streams never answered
        self.closing = False

    def send(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def respond(self, stream_id, extra=(), status=b"200"):
        headers = [(b":status", status), (b"content-length", str(len(HELLO)).encode()), *extra]
        self.server.log(event="sent", kind="status " + status.decode())
        self.conn.send_headers(stream_id, headers)
        self.conn.send_data(stream_id, HELLO, end_stream=True)

    def run(self):
        s = self.server
        if s.mode == "maxstreams":
            # in the first SETTINGS frame, before any request
            self.conn.local_settings = h2.settings.Settings(
                client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: s.param("limit", 2)})
        self.conn.initiate_connection()
        self.send()
        try:
            while True:
                data = None
                # a short wait, so delayed answers go out on time
                if select.select([self.sock], [], [], 0.005)[0]:
                    data = self.sock.recv(65536)
                    if not data:
                        return
                if data:
                    for event in self.conn.receive_data(data):
                        self.on_event(event)
                now = time.monotonic()
                due = [p for p in self.pending if p[0] <= now]
                for p in due:
                    self.pending.remove(p)
                    self.finish(p[1])
                self.send()
                if self.closing and not self.pending:
                    return
        except (ConnectionError, OSError):
            return
        except h2.exceptions.ProtocolError as e:
            s.log(event="server_protocol_error", error=str(e))
        finally:
            self.sock.close()

    def finish(self, stream_id):
        if stream_id is None:
            self.goaway()
            return
        if self.server.mode == "maxstreams":
            with self.server.lock:
                self.server.open_streams -= 1
        self.respond(stream_id)

    def reset(self, stream_id, code, kind):
        self.server.log(event="sent", kind=kind)
        self.conn.reset_stream(stream_id, code)

    def break_connection(self, data):
        """Sends bytes that end the connection with an error (one for all its streams in flight)."""
        self.server.log(event="sent", kind="connection error")
        self.sock.sendall(data)
        self.closing = True

    def on_event(self, event):
        s = self.server
        if isinstance(event, h2.events.PingReceived):
            s.log(event="ping")
            return
        if isinstance(event, h2.events.StreamReset):
            s.log(event="rst_received", stream=event.stream_id, code=int(event.error_code))
            return
        if isinstance(event, h2.events.DataReceived):
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            s.log(event="data", stream=event.stream_id, length=len(event.data))
            return
        if not isinstance(event, h2.events.RequestReceived):
            return
        sid = event.stream_id
        i = s.next_index()
        self.requests_here += 1
        self.stream_ids.append(sid)
        s.log(event="request", index=i, stream=sid,
              headers=[[k.decode(), v.decode()] for k, v in event.headers])
        mode = s.mode
        if mode == "timeout" and i % s.param("every", 10) == 0:
            s.log(event="sent", kind="unanswered")
            return
        if mode == "reset" and i % s.param("every", 4) == 0:
            self.reset(sid, h2.errors.ErrorCodes.INTERNAL_ERROR, "reset")
            return
        if mode == "refuse" and i % s.param("every", 5) == 0:
            self.reset(sid, h2.errors.ErrorCodes.REFUSED_STREAM, "refused")
            return
        if mode == "status":
            self.respond(sid, status=str(s.param("code", 200)).encode())
            return
        if mode == "goaway":
            if self.requests_here == 1:
                self.pending.append((time.monotonic() + s.param("wait_ms", 30) / 1000, None))
            return
        if mode == "maxstreams":
            with s.lock:
                s.open_streams += 1
                if s.open_streams > s.max_open:
                    s.max_open = s.open_streams
                    s.log(event="max_open", value=s.max_open)
            self.pending.append((time.monotonic() + s.param("delay_ms", 20) / 1000, sid))
            return
        if mode == "headers":
            size, count = s.param("size", 1000), s.param("count", 1)
            self.respond(sid, [(b"x-big-%d" % n, b"h" * size) for n in range(count)])
            return
        if mode == "garbage":
            self.break_connection(b"GARBAGE GARBAGE GARBAGE GARBAGE\r\n\r\n")
            return
        if mode == "badframe":
            # HEADERS, END_HEADERS|END_STREAM, on this stream: indexed field 126 (not in any table)
            block = bytes([0x80 | 0x7E])
            self.break_connection(len(block).to_bytes(3, "big") + bytes([0x01, 0x05]) + sid.to_bytes(4, "big") + block)
            return
        self.respond(sid)

    def goaway(self):
        answered = self.stream_ids[:self.server.param("keep", 4)]
        for sid in answered:
            self.respond(sid)
        # streams above the last-stream-id were never processed
        for _ in self.stream_ids[len(answered):]:
            self.server.log(event="sent", kind="refused")
        self.conn.close_connection(last_stream_id=answered[-1])
        self.server.log(event="goaway", last_stream_id=answered[-1], answered=len(answered),
                        unanswered=len(self.stream_ids) - len(answered))
        self.closing = True


def main():
    mode, port_file, log_path = sys.argv[1:4]
    params = dict(arg.split("=", 1) for arg in sys.argv[4:])
    Server(mode, params, log_path).serve(port_file)


if __name__ == "__main__":
    main()
