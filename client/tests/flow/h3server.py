#!/usr/bin/env python3
"""The flow tests' API server (api.py) over HTTP/3, on aioquic (PyPI), UDP on
127.0.0.1.

  h3server.py CERT KEY PORTFILE STATSFILE [key=value...]   (the parameters of api.Api)

Writes its port to PORTFILE once listening, then serves until SIGTERM, when
it writes the API's counts (api.Api.stats) to STATSFILE as JSON and exits."""
import asyncio
import json
import os
import signal
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api  # noqa: E402

APP = None


class Protocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._http = None
        self._requests = {}  # stream id -> [fields, body]

    def quic_event_received(self, event):
        if isinstance(event, ProtocolNegotiated):
            self._http = H3Connection(self._quic)
        if self._http is None:
            return
        for ev in self._http.handle_event(event):
            if isinstance(ev, HeadersReceived):
                self._requests[ev.stream_id] = [{k.decode(): v.decode() for k, v in ev.headers}, b""]
            elif isinstance(ev, DataReceived) and ev.stream_id in self._requests:
                self._requests[ev.stream_id][1] += ev.data
            if getattr(ev, "stream_ended", False) and ev.stream_id in self._requests:
                fields, body = self._requests.pop(ev.stream_id)
                headers = {k: v for k, v in fields.items() if not k.startswith(":")}
                status, hdrs, out = APP.handle(fields.get(":method", ""), fields.get(":path", ""), headers, body)
                extra = [] if status == 204 else [(b"content-length", str(len(out)).encode())]
                self._http.send_headers(ev.stream_id, [(b":status", str(status).encode())] +
                                        [(k.encode(), v.encode()) for k, v in hdrs] + extra, end_stream=not out)
                if out:
                    self._http.send_data(ev.stream_id, out, end_stream=True)
                self.transmit()


async def main():
    global APP
    cert, key, port_file, stats_file = sys.argv[1:5]
    APP = api.Api(dict(a.split("=", 1) for a in sys.argv[5:]))
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, idle_timeout=30.0)
    config.load_cert_chain(cert, key)
    server = await serve("127.0.0.1", 0, configuration=config, create_protocol=Protocol)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server._transport.get_extra_info("sockname")[1]))
    os.replace(port_file + ".tmp", port_file)
    stopped = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set_result, None)
    await stopped
    with open(stats_file + ".tmp", "w") as f:
        json.dump(APP.stats(), f)
    os.replace(stats_file + ".tmp", stats_file)


if __name__ == "__main__":
    asyncio.run(main())
