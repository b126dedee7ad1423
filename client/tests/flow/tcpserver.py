#!/usr/bin/env python3
"""The flow tests' API server (api.py) over TCP: HTTP/1.1 and h2c (prior
knowledge, told apart by the connection's first bytes), one thread per
connection, on 127.0.0.1. HTTP/2 runs on the `h2` package (PyPI).

  tcpserver.py PORTFILE STATSFILE [key=value...]   (the parameters of api.Api)

Writes its port to PORTFILE once listening, then serves until SIGTERM, when
it writes the API's counts (api.Api.stats) to STATSFILE as JSON and exits."""
import json
import os
import signal
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api  # noqa: E402

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
REASONS = {200: "OK", 201: "Created", 204: "No Content", 404: "Not Found", 409: "Conflict", 500: "Internal Server Error"}


def serve_h1(conn, app, data):
    while True:
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                return
            data += more
        head, data = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(data) < length:
            more = conn.recv(65536)
            if not more:
                return
            data += more
        body, data = data[:length], data[length:]
        status, hdrs, out = app.handle(method, target, headers, body)
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'X')}"] + [f"{k}: {v}" for k, v in hdrs]
        if status != 204:
            lines.append(f"Content-Length: {len(out)}")
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + out)
        if headers.get("connection", "").lower() == "close":
            return


def serve_h2(conn, app, data):
    import h2.config
    import h2.connection
    import h2.events

    h2c = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    h2c.initiate_connection()
    conn.sendall(h2c.data_to_send())
    streams = {}
    while True:
        for ev in h2c.receive_data(data):
            if isinstance(ev, h2.events.RequestReceived):
                streams[ev.stream_id] = [dict(ev.headers), b""]
            elif isinstance(ev, h2.events.DataReceived):
                streams[ev.stream_id][1] += ev.data
                h2c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            if isinstance(ev, (h2.events.StreamEnded,)) and ev.stream_id in streams:
                headers, body = streams.pop(ev.stream_id)
                status, hdrs, out = app.handle(headers[":method"], headers[":path"],
                                               {k: v for k, v in headers.items() if not k.startswith(":")}, body)
                fields = [(":status", str(status))] + hdrs + ([("content-length", str(len(out)))] if status != 204 else [])
                h2c.send_headers(ev.stream_id, fields, end_stream=not out)
                if out:
                    h2c.send_data(ev.stream_id, out, end_stream=True)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                conn.sendall(h2c.data_to_send())
                return
        conn.sendall(h2c.data_to_send())
        data = conn.recv(65536)
        if not data:
            return


def serve(conn, app):
    try:
        data = b""
        while len(data) < len(PREFACE) and PREFACE.startswith(data):
            more = conn.recv(65536)
            if not more:
                return
            data += more
        (serve_h2 if data.startswith(PREFACE) else serve_h1)(conn, app, data)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def main():
    port_file, stats_file, params = sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:])
    app = api.Api(params)

    def stop(_signum, _frame):
        with app.lock, open(stats_file + ".tmp", "w") as f:
            json.dump(app.stats(), f)
        os.replace(stats_file + ".tmp", stats_file)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    while True:
        conn, _ = sock.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(conn, app), daemon=True).start()


if __name__ == "__main__":
    main()
