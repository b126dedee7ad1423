#!/usr/bin/env python3
"""h3client: a small HTTP/3 client on aioquic, for lib/contract.sh's h3 checks.

It does over HTTP/3 what the contract's curl calls do over HTTP/1.1 and h2c; the server's
certificate is verified against --cacert (never skipped), and IP addresses are matched
against the certificate's IP names.

  h3client.py --cacert CA [--max-time S] [-X METHOD] [--data-binary FILE]
              [-D HEADERS_FILE] [-o BODY_FILE] URL
      One request. Prints `STATUS 3` on stdout; the response header block goes to
      HEADERS_FILE as `HTTP/3 STATUS` then `name: value` lines (curl -D's shape), the
      body to BODY_FILE. With --data-binary the file's bytes are sent with a
      content-length (an empty file sends `content-length: 0`, as curl does).
  h3client.py --cacert CA [--max-time S] --repeat N URL
      N GET URL one after another on one QUIC connection.
  h3client.py --cacert CA [--max-time S] --parallel N URL
      N GET URL at once, N streams in flight on one QUIC connection.
      Both print one line per response, `STATUS BODY_BYTES`, and use one connection.

Exit status: 0 when every request got a response (whatever its status); 28 on timeout
(as curl); 7 when the connection could not be made (handshake, certificate, no server);
2 on bad arguments; 1 otherwise. Errors go to stderr.
"""

import argparse
import asyncio
import contextlib
import ssl
import sys
from urllib.parse import urlsplit

from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, QuicEvent, StreamReset


class Response:
    def __init__(self):
        self.headers = []  # (name, value) as received, pseudo-headers included
        self.body = bytearray()
        self.done = asyncio.get_running_loop().create_future()


class NoPushH3Connection(H3Connection):
    """An H3Connection that never allows server push, so it sends no MAX_PUSH_ID frame: a
    client need not send one (RFC 9114 section 7.2.7), and Jetty 12.1's HTTP/3 server closes
    the connection on it (parser_error)."""

    def _init_connection(self):
        self._max_push_id = None
        super()._init_connection()


class H3Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = NoPushH3Connection(self._quic)
        self.responses = {}

    async def request(self, method, url, body=None):
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
            for response in self.responses.values():
                self._fail(response, f"connection closed: {event.reason_phrase or event.error_code}")
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
            response.done.set_exception(ConnectionError(reason))


def status_of(response):
    for name, value in response.headers:
        if name == b":status":
            return value.decode()
    return "000"


class ConnectFailed(Exception):
    pass


async def run(args):
    parts = urlsplit(args.url)
    if not parts.hostname or not parts.port:
        raise ValueError(f"URL needs a host and a port: {args.url}")
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, verify_mode=ssl.CERT_REQUIRED,
                               server_name=parts.hostname)
    config.load_verify_locations(cafile=args.cacert)
    body = None
    if args.data_binary is not None:
        with open(args.data_binary.removeprefix("@"), "rb") as f:
            body = f.read()
    async with contextlib.AsyncExitStack() as stack:
        try:
            client = await stack.enter_async_context(
                connect(parts.hostname, parts.port, configuration=config, create_protocol=H3Client))
        except ConnectionError as e:  # aioquic raises it bare when the handshake fails
            raise ConnectFailed(str(e) or "QUIC handshake failed (certificate not verified against "
                                f"{args.cacert}, no server on udp port {parts.port}, or no h3 there)") from e
        if args.repeat:
            for _ in range(args.repeat):
                response = await client.request("GET", args.url)
                print(status_of(response), len(response.body))
        elif args.parallel:
            responses = await asyncio.gather(*(client.request("GET", args.url) for _ in range(args.parallel)))
            for response in responses:
                print(status_of(response), len(response.body))
        else:
            response = await client.request(args.request, args.url, body)
            if args.dump_header:
                with open(args.dump_header, "w", encoding="latin-1") as f:
                    f.write(f"HTTP/3 {status_of(response)}\r\n")
                    for name, value in response.headers:
                        if not name.startswith(b":"):
                            f.write(f"{name.decode('latin-1')}: {value.decode('latin-1')}\r\n")
                    f.write("\r\n")
            if args.output:
                with open(args.output, "wb") as f:
                    f.write(response.body)
            print(status_of(response), 3)


def main():
    parser = argparse.ArgumentParser(description="HTTP/3 requests with aioquic (see the module docstring).")
    parser.add_argument("--cacert", required=True, help="CA certificate (PEM) the server's certificate must chain to")
    parser.add_argument("--max-time", type=float, default=20.0)
    parser.add_argument("-X", "--request", default="GET")
    parser.add_argument("--data-binary", help="FILE or @FILE: the request body")
    parser.add_argument("-D", "--dump-header")
    parser.add_argument("-o", "--output")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--repeat", type=int, help="N sequential GETs on one connection")
    group.add_argument("--parallel", type=int, help="N concurrent GETs on one connection")
    parser.add_argument("url")
    args = parser.parse_args()
    try:
        asyncio.run(asyncio.wait_for(run(args), args.max_time))
    except (asyncio.TimeoutError, TimeoutError):
        print(f"h3client: no complete answer within {args.max_time:g} s from {args.url}", file=sys.stderr)
        return 28
    except ConnectFailed as e:
        print(f"h3client: cannot connect to {args.url}: {e}", file=sys.stderr)
        return 7
    except ConnectionError as e:
        print(f"h3client: {e or 'connection lost'}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"h3client: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
