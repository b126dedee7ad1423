#!/usr/bin/env python3
"""h3client: a small HTTP/3 client on aioquic, for lib/contract.sh's h3 checks.

It does over HTTP/3 what the contract's curl calls do over HTTP/1.1 and h2c. The server's
certificate is verified against --cacert (never skipped); an IP address in the URL is
matched against the certificate's IP names, a host name against its DNS names.

  h3client.py --cacert CA [--max-time S] [-X METHOD] [--data-binary [@]FILE]
              [-D HEADERS_FILE] [-o BODY_FILE] URL
      One request. Prints `STATUS 3` on stdout; the response header block goes to
      HEADERS_FILE as `HTTP/3 STATUS` then `name: value` lines (curl -D's shape), the
      body to BODY_FILE. With --data-binary the file's bytes are sent with a
      content-length (an empty file sends `content-length: 0`, as curl does).
  h3client.py --cacert CA [--max-time S] --stdin
      Many such requests on one QUIC connection (made again if it closes), one per line
      of stdin: METHOD, URL, BODY_FILE (empty: no body), HEADERS_FILE, BODY_OUT_FILE,
      separated by tabs. Answers each line on stdout, flushed: `STATUS 3`, or
      `ERR EXIT_STATUS REASON` (the exit statuses below) when that request failed.
  h3client.py --cacert CA [--max-time S] --repeat N URL
      N GET URL one after another on one QUIC connection.
  h3client.py --cacert CA [--max-time S] --parallel N URL
      N GET URL at once, N streams in flight on one QUIC connection.
      Both print one line per response, `STATUS BODY_BYTES`.

--max-time bounds each request (default 20 s), --connect-timeout the QUIC handshake
(default 10 s). Exit status: 0 when every request got a response (whatever its status);
7 when the connection could not be made (handshake failed or timed out: certificate, no
server, no HTTP/3); 28 when a request timed out (as curl); 2 on bad arguments; 1 otherwise.
Errors go to stderr.
"""

import argparse
import asyncio
import contextlib
import logging
import socket
import ssl
import sys
from urllib.parse import urlsplit

from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, QuicEvent, StreamReset


class Failed(Exception):
    """A request that got no response; `status` is the exit status it means."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


class Response:
    def __init__(self):
        self.headers = []  # (name, value) as received, pseudo-headers included
        self.body = bytearray()
        self.done = asyncio.get_running_loop().create_future()

    @property
    def status(self):
        for name, value in self.headers:
            if name == b":status":
                return value.decode()
        return "000"


class NoPushH3Connection(H3Connection):
    """An H3Connection that never allows server push, so it sends no MAX_PUSH_ID frame: a
    client need not send one (RFC 9114 section 7.2.7), and Jetty 12.1's HTTP/3 server closes
    the connection on it (parser_error)."""

    def _init_connection(self):
        self._max_push_id = None
        super()._init_connection()


# The client socket's receive buffer (capped by net.core.rmem_max): with the default 208 KiB,
# the server's datagrams during a 1 MiB upload overflowed it (1,609 dropped in 150 uploads to
# Jetty), an upload took 0.18 s and about one in 1,500 stalled past --max-time (the contract's
# POST /load 1MiB over h3 failed so in a fresh clone's run). With 4 MiB: none dropped, 0.105 s
# an upload, none stalled in 3,000 (2026-12-01).
RECEIVE_BUFFER = 4 << 20


class H3Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = NoPushH3Connection(self._quic)
        self.responses = {}
        self.closed = None  # why the connection ended, once it has

    def connection_made(self, transport):
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # capped by net.core.rmem_max, never refused
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)

    async def request(self, method, url, body=None):
        if self.closed:
            raise Failed(1, self.closed)
        parts = urlsplit(url)
        stream_id = self._quic.get_next_available_stream_id()
        headers = [
            (b":method", method.encode()),
            (b":scheme", b"https"),
            (b":authority", parts.netloc.encode()),
            (b":path", (parts.path or "/").encode() + (b"?" + parts.query.encode() if parts.query else b"")),
            (b"user-agent", b"barrage-h3client"),
        ]
        if body is not None:
            headers += [(b"content-type", b"application/octet-stream"),
                        (b"content-length", str(len(body)).encode())]
        response = self.responses[stream_id] = Response()
        self.h3.send_headers(stream_id, headers, end_stream=body is None)
        if body is not None:
            self.h3.send_data(stream_id, body, end_stream=True)
        self.transmit()
        return await response.done

    def quic_event_received(self, event: QuicEvent):
        if isinstance(event, StreamReset) and event.stream_id in self.responses:
            self._fail(self.responses.pop(event.stream_id), f"stream {event.stream_id} reset (error {event.error_code})")
        elif isinstance(event, ConnectionTerminated):
            self.closed = f"connection closed: {event.reason_phrase or 'error ' + str(event.error_code)}"
            for response in self.responses.values():
                self._fail(response, self.closed)
            self.responses.clear()
        for h3_event in self.h3.handle_event(event):
            response = self.responses.get(getattr(h3_event, "stream_id", None))
            if response is None:
                continue
            if isinstance(h3_event, HeadersReceived):
                response.headers += h3_event.headers  # trailers, if any, come last
            elif isinstance(h3_event, DataReceived):
                response.body += h3_event.data
            if getattr(h3_event, "stream_ended", False):
                self.responses.pop(h3_event.stream_id)
                if not response.done.done():
                    response.done.set_result(response)

    @staticmethod
    def _fail(response, reason):
        if not response.done.done():
            response.done.set_exception(Failed(1, reason))


def host_port(url):
    parts = urlsplit(url)
    if not parts.hostname or not parts.port:
        raise Failed(2, f"URL needs a host and a port: {url}")
    return parts.hostname, parts.port


async def open_connection(stack, url, cacert, timeout):
    """A verified QUIC connection to URL's host and port, closed when STACK unwinds."""
    host, port = host_port(url)
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, verify_mode=ssl.CERT_REQUIRED,
                               server_name=host)
    config.load_verify_locations(cafile=cacert)
    try:
        return await asyncio.wait_for(
            stack.enter_async_context(connect(host, port, configuration=config, create_protocol=H3Client)),
            timeout)
    except (asyncio.TimeoutError, TimeoutError) as e:
        raise Failed(7, f"no QUIC handshake with {host} udp port {port} within {timeout:g} s") from e
    except ConnectionError as e:  # aioquic raises it bare when the handshake fails
        raise Failed(7, str(e) or f"QUIC handshake with {host} udp port {port} failed (certificate not "
                     f"verified against {cacert}, or no HTTP/3 there)") from e


async def fetch(client, method, url, bodyfile, headers_out, body_out, max_time):
    """One request; writes the header block and the body like curl -D and -o."""
    body = None
    if bodyfile:
        with open(bodyfile.removeprefix("@"), "rb") as f:
            body = f.read()
    try:
        response = await asyncio.wait_for(client.request(method, url, body), max_time)
    except (asyncio.TimeoutError, TimeoutError) as e:
        raise Failed(28, f"no complete answer within {max_time:g} s from {method} {url}") from e
    if headers_out:
        with open(headers_out, "w", encoding="latin-1") as f:
            f.write(f"HTTP/3 {response.status}\r\n")
            for name, value in response.headers:
                if not name.startswith(b":"):
                    f.write(f"{name.decode('latin-1')}: {value.decode('latin-1')}\r\n")
            f.write("\r\n")
    if body_out:
        with open(body_out, "wb") as f:
            f.write(response.body)
    return response


async def serve_stdin(args):
    """--stdin: requests from stdin, answers on stdout, one connection while it lasts."""
    loop = asyncio.get_running_loop()
    stack, client = None, None
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        try:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                raise Failed(2, f"want 5 tab-separated fields, got {len(fields)}: {line.strip()!r}")
            method, url, bodyfile, headers_out, body_out = fields
            if client is None or client.closed:
                if stack is not None:
                    await stack.aclose()
                stack = contextlib.AsyncExitStack()
                client = await open_connection(stack, url, args.cacert, args.connect_timeout)
            response = await fetch(client, method, url, bodyfile, headers_out, body_out, args.max_time)
            print(response.status, 3, flush=True)
        except (Failed, OSError) as e:
            status = e.status if isinstance(e, Failed) else 1
            print("ERR", status, str(e).replace("\n", " "), flush=True)
            if status == 28 and client is not None:
                client.closed = client.closed or "a request timed out"  # next request: a new connection
    if stack is not None:
        await stack.aclose()


async def run(args):
    if args.stdin:
        await serve_stdin(args)
        return
    async with contextlib.AsyncExitStack() as stack:
        client = await open_connection(stack, args.url, args.cacert, args.connect_timeout)
        if args.repeat:
            for _ in range(args.repeat):
                response = await fetch(client, "GET", args.url, None, None, None, args.max_time)
                print(response.status, len(response.body))
        elif args.parallel:
            responses = await asyncio.wait_for(
                asyncio.gather(*(client.request("GET", args.url) for _ in range(args.parallel))), args.max_time)
            for response in responses:
                print(response.status, len(response.body))
        else:
            response = await fetch(client, args.request, args.url, args.data_binary, args.dump_header,
                                   args.output, args.max_time)
            print(response.status, 3)


def main():
    parser = argparse.ArgumentParser(description="HTTP/3 requests with aioquic (see the module docstring).")
    parser.add_argument("--cacert", required=True, help="CA certificate (PEM) the server's certificate must chain to")
    parser.add_argument("--max-time", type=float, default=20.0)
    parser.add_argument("--connect-timeout", type=float, default=10.0)
    parser.add_argument("-X", "--request", default="GET")
    parser.add_argument("--data-binary", help="[@]FILE: the request body")
    parser.add_argument("-D", "--dump-header")
    parser.add_argument("-o", "--output")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdin", action="store_true", help="requests from stdin, one per line")
    group.add_argument("--repeat", type=int, help="N sequential GETs on one connection")
    group.add_argument("--parallel", type=int, help="N concurrent GETs on one connection")
    parser.add_argument("url", nargs="?")
    args = parser.parse_args()
    if not args.stdin and not args.url:
        parser.error("a URL is needed (or --stdin)")
    # aioquic logs a failed handshake's alert itself; the reason is in our message already
    logging.basicConfig(level=logging.CRITICAL)
    try:
        asyncio.run(run(args))
    except Failed as e:
        print(f"h3client: {e}", file=sys.stderr)
        return e.status
    except OSError as e:
        print(f"h3client: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
