#!/usr/bin/env python3
"""HTTP/3 test server for barrage --h3, on aioquic (PyPI). 127.0.0.1, UDP.

  h3server.py MODE CERT KEY PORTFILE LOGFILE [key=value...]

Writes its UDP port to PORTFILE once listening, then serves until killed.
Requests are numbered across all connections from 0, in arrival order. What
the server does with each request is logged to LOGFILE as one JSON line
{"event": "sent", "kind": K} just before it does it (the kinds of
tests/harness.py check_sent): "status NNN" (a whole response), "reset",
"refused", "unanswered", "closed" (the connection closed before its answer).
Each request is logged as it arrives whole: {"event": "request", "method": M,
"headers": [names], "body": length, "path": P, "authorization": value or ""}. Connection events are logged too: {"event": "connection"}, {"event":
"goaway", "id": N}, {"event": "close", "code": C, "transport": bool}.

Modes:
  ok        200 with a body of `size` bytes (6: "hello\\n") to every request;
            `streams` (128) is the initial MAX_STREAMS for bidirectional streams
  reset     RESET_STREAM with HTTP/3 error `code` (0x102, H3_INTERNAL_ERROR)
            for index % every == 0 (every=4), 200 to the others
  refuse    RESET_STREAM H3_REQUEST_REJECTED (0x10b) for index % every == 0 (every=5)
  timeout   requests with index % every == 0 (every=10) are never answered
  close     each connection answers its first `keep` (3) requests, then on
            its next one closes the connection with `code` (0x102) as an
            HTTP/3 (application) error, or as a transport error with transport=1
  goaway    each connection answers its first `keep` (4) requests, then sends
            GOAWAY with the stream id after the last of them and never answers
            the others (refused); it closes the connection once they are done
  headers   200 with `count` (1) header fields of `size` (1000) bytes each
  silent    after the handshake, every packet is dropped: the client's idle
            timeout ends the connection
"""
import asyncio
import json
import os
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.buffer import encode_uint_var
from aioquic.h3.connection import H3_ALPN, FrameType, H3Connection, encode_frame
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import HandshakeCompleted, ProtocolNegotiated

H3_REQUEST_REJECTED = 0x10B


class State:
    def __init__(self, mode, params, log_path):
        self.mode = mode
        self.params = params
        self.log_file = open(log_path, "a", buffering=1)
        self.index = 0

    def param(self, name, default):
        v = self.params.get(name)
        return default if v is None else int(v, 0)

    def log(self, **event):
        self.log_file.write(json.dumps(event) + "\n")

    def next_index(self):
        i = self.index
        self.index += 1
        return i


STATE = None


class Protocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._http = None
        self._answered = 0  # on this connection
        self._goaway_id = None
        self._closing = False
        self._silent = False
        self._requests = {}  # stream id -> [method, header names, body bytes]
        limit = self._quic._local_max_streams_bidi  # announced in the handshake, raised as streams end
        limit.value = limit.sent = STATE.param("streams", 128)
        STATE.log(event="connection")

    def datagram_received(self, data, addr):
        if self._silent:
            return
        super().datagram_received(data, addr)

    def quic_event_received(self, event):
        if isinstance(event, ProtocolNegotiated):
            self._http = H3Connection(self._quic)
        if isinstance(event, HandshakeCompleted) and STATE.param("client_cert", 0):
            # aioquic checks the client's CertificateVerify (it holds the key), not its chain:
            # the subject logged is what the test checks
            peer = self._quic.tls._peer_certificate
            STATE.log(event="client_certificate", subject=peer.subject.rfc4514_string() if peer else None)
        if isinstance(event, HandshakeCompleted) and STATE.mode == "silent":
            self._silent = True
        if self._http is None:
            return
        for ev in self._http.handle_event(event):
            if isinstance(ev, HeadersReceived):
                fields = dict(ev.headers)
                self._requests[ev.stream_id] = [fields.get(b":method", b"").decode(),
                                                sorted(k.decode() for k in fields), 0,
                                                fields.get(b":path", b"").decode(),
                                                fields.get(b"authorization", b"").decode()]
            elif isinstance(ev, DataReceived) and ev.stream_id in self._requests:
                self._requests[ev.stream_id][2] += len(ev.data)
            if getattr(ev, "stream_ended", False):
                method, names, body, path, auth = self._requests.pop(ev.stream_id, ["", [], 0, "", ""])
                STATE.log(event="request", method=method, headers=names, body=body, path=path, authorization=auth)
                self.request(ev.stream_id)

    def respond(self, stream_id, size):
        STATE.log(event="sent", kind="status 200")
        body = (b"hello\n" * (size // 6 + 1))[:size]
        extra = []
        if STATE.mode == "headers":
            value = b"v" * STATE.param("size", 1000)
            extra = [(f"x-big-{i}".encode(), value) for i in range(STATE.param("count", 1))]
            body, size = b"hello\n", 6
        self._http.send_headers(stream_id, [(b":status", b"200"), (b"content-length", str(size).encode())] + extra)
        self._http.send_data(stream_id, body, end_stream=True)
        self._answered += 1

    def request(self, stream_id):
        if self._closing:
            return
        i = STATE.next_index()
        mode = STATE.mode
        every = STATE.param("every", {"reset": 4, "refuse": 5, "timeout": 10}.get(mode, 1))
        if mode == "reset" and i % every == 0:
            STATE.log(event="sent", kind="reset")
            self._quic.reset_stream(stream_id, STATE.param("code", 0x102))
        elif mode == "refuse" and i % every == 0:
            STATE.log(event="sent", kind="refused")
            self._quic.reset_stream(stream_id, H3_REQUEST_REJECTED)
        elif mode == "timeout" and i % every == 0:
            STATE.log(event="sent", kind="unanswered")
        elif mode == "close" and self._answered >= STATE.param("keep", 3):
            self.close_now()
        elif mode == "goaway" and self._answered >= STATE.param("keep", 4):
            self.goaway(stream_id)
        else:
            self.respond(stream_id, STATE.param("size", 6))
        self.transmit()

    def close_now(self):
        code, transport = STATE.param("code", 0x102), STATE.param("transport", 0)
        # every request still open on this connection ends unanswered
        STATE.log(event="sent", kind="closed")
        STATE.log(event="close", code=code, transport=bool(transport))
        self._closing = True
        self._quic.close(error_code=code, frame_type=0 if transport else None, reason_phrase="test close")

    def goaway(self, stream_id):
        if self._goaway_id is None:
            self._goaway_id = stream_id
            STATE.log(event="goaway", id=stream_id)
            frame = encode_frame(FrameType.GOAWAY, encode_uint_var(stream_id))
            self._quic.send_stream_data(self._http._local_control_stream_id, frame)
        STATE.log(event="sent", kind="refused")


def request_client_certificate():
    """client_cert=1: the server's TLS asks for a client certificate (aioquic's switch for it is
    an attribute of its TLS context, set on each one made)."""
    import aioquic.tls
    init = aioquic.tls.Context.__init__

    def asking(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._request_client_certificate = True
    aioquic.tls.Context.__init__ = asking


async def main():
    global STATE
    mode, cert, key, port_file, log_path = sys.argv[1:6]
    params = dict(a.split("=", 1) for a in sys.argv[6:])
    STATE = State(mode, params, log_path)
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, idle_timeout=float(params.get("idle", 30)),
                               max_stream_data=4 << 20, max_data=16 << 20)
    config.load_cert_chain(cert, key)
    if STATE.param("client_cert", 0):
        request_client_certificate()
    server = await serve(params.get("host", "127.0.0.1"), 0, configuration=config, create_protocol=Protocol)
    port = server._transport.get_extra_info("sockname")[1]
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    os.replace(port_file + ".tmp", port_file)  # a reader never sees a half-written port
    await asyncio.Future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
