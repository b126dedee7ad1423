#!/usr/bin/env python3
"""A WebSocket echo server from the `websockets` library (PyPI): the
independent implementation barrage's WebSocket client is checked against.
Each message is sent back whole, as the same type; pings are answered by the
library. Writes its port to PORT_FILE once listening on 127.0.0.1.

  python echo_server.py PORT_FILE [close_after=N] [close_code=C]

close_after=N: the server closes each connection (code C, default 1001)
after echoing N messages. cert=PEM key=PEM: wss:// (TLS) with that certificate."""
import asyncio
import os
import ssl
import sys

from websockets.asyncio.server import serve


async def main():
    port_file = sys.argv[1]
    params = dict(a.split("=", 1) for a in sys.argv[2:])
    close_after = int(params.get("close_after", "0"))
    close_code = int(params.get("close_code", "1001"))

    async def echo(ws):
        n = 0
        async for message in ws:
            await ws.send(message)
            n += 1
            if close_after and n >= close_after:
                await ws.close(close_code, "enough")
                return

    tls = None
    if "cert" in params:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(params["cert"], params["key"])
    # compression=None: permessage-deflate off, as barrage offers none
    async with serve(echo, "127.0.0.1", 0, compression=None, max_size=None, ssl=tls) as server:
        port = server.sockets[0].getsockname()[1]
        with open(port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.rename(port_file + ".tmp", port_file)
        await asyncio.Future()


asyncio.run(main())
