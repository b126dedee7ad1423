#!/usr/bin/env python3
"""A WebSocket server of the tests' own that misbehaves on purpose (plain
Python, no library): it upgrades (or refuses), reads the client's masked
frames and answers each message as MODE says. Writes its port to PORT_FILE
once listening on 127.0.0.1; logs what it saw to LOG (one word a line:
"pong" for each pong received, "close CODE" for the client's close).

  python3 faulty_server.py MODE PORT_FILE LOG [delay=SECONDS] [after=N]

Modes (each message is echoed first for `after` messages, default 0):
  masked, rsv, opcode, control_long, control_fragmented, continuation,
  bad_utf8, close_code, close_one_byte, huge (a 100 MB frame header, then
  nothing), length_msb: a frame RFC 6455 forbids in place of the echo;
  mismatch: an echo with one byte changed; unsolicited: two echoes;
  slow: each echo after `delay` seconds; stall: message after+1's echo
  after `delay` seconds (the connection stalls once), the others at once;
  close_mid: half of the echo, then the TCP connection closes;
  close_frame: a close frame (1001) in place of the echo;
  ping: a ping before each echo (the pong is logged);
  fragments: the echo in 1-byte fragments with a ping between them;
  refuse: 403 to the upgrade; bad_accept: a 101 with a wrong accept key; extension: a 101 with
  permessage-deflate (not offered); hang_up: the connection closed, the upgrade unanswered."""
import base64
import hashlib
import os
import socket
import struct
import sys
import threading
import time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload, fin=True, rsv=0, mask=False, length=None):
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    m = 0x80 if mask else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 65536:
        head += bytes([m | 126]) + struct.pack("!H", n)
    else:
        head += bytes([m | 127]) + struct.pack("!Q", n)
    if mask:
        key = b"\x01\x02\x03\x04"
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        head += key
    return head + payload


def read_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_frame(conn):
    b0, b1 = read_exact(conn, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", read_exact(conn, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", read_exact(conn, 8))[0]
    key = read_exact(conn, 4) if b1 & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ key[i % 4] for i, b in enumerate(read_exact(conn, n)))
    return b0 & 0x80, b0 & 0x0F, payload


def upgrade(conn, mode):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            raise EOFError
        head += chunk
    if mode == "hang_up":
        raise EOFError
    if mode == "refuse":
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")
        raise EOFError
    key = [line.split(b":", 1)[1].strip() for line in head.split(b"\r\n") if line.lower().startswith(b"sec-websocket-key:")][0]
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    if mode == "bad_accept":
        accept = base64.b64encode(hashlib.sha1(b"wrong").digest())
    extension = b"Sec-WebSocket-Extensions: permessage-deflate\r\n" if mode == "extension" else b""
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + extension +
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")


BAD = {
    "masked": lambda p: frame(1, p, mask=True),
    "rsv": lambda p: frame(1, p, rsv=0x40),
    "opcode": lambda p: frame(3, p),
    "control_long": lambda p: frame(9, b"x" * 126),
    "control_fragmented": lambda p: frame(9, b"x", fin=False),
    "continuation": lambda p: frame(0, p),
    "bad_utf8": lambda p: frame(1, b"\xc3\x28"),
    "close_code": lambda p: frame(8, struct.pack("!H", 1004)),
    "close_one_byte": lambda p: frame(8, b"\x03"),
    "huge": lambda p: frame(2, b"", length=100 * 1024 * 1024),
    "length_msb": lambda p: bytes([0x82, 127]) + b"\x80" + b"\0" * 7,
}


def serve(conn, mode, params, log):
    delay = float(params.get("delay", "1"))
    after = int(params.get("after", "0"))
    upgrade(conn, mode)
    n = 0
    while True:
        fin, op, payload = read_frame(conn)
        if op == 0xA:
            log("pong")
            continue
        if op == 0x8:
            log("close %d" % (struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005))
            conn.sendall(frame(8, payload[:2]))
            return
        n += 1
        if n <= after:
            conn.sendall(frame(op, payload))
            continue
        if mode in BAD:
            conn.sendall(BAD[mode](payload))
        elif mode == "mismatch":
            conn.sendall(frame(op, payload[:-1] + bytes([payload[-1] ^ 1])))
        elif mode == "unsolicited":
            conn.sendall(frame(op, payload) + frame(op, payload))
        elif mode == "slow":
            time.sleep(delay)
            conn.sendall(frame(op, payload))
        elif mode == "stall":
            if n == after + 1:
                time.sleep(delay)
            conn.sendall(frame(op, payload))
        elif mode == "close_mid":
            whole = frame(op, payload)
            conn.sendall(whole[:len(whole) // 2])
            return
        elif mode == "close_frame":
            conn.sendall(frame(8, struct.pack("!H", 1001)))
        elif mode == "ping":
            conn.sendall(frame(9, b"hi") + frame(op, payload))
        elif mode == "fragments":
            parts = [payload[i:i + 1] for i in range(len(payload))] or [b""]
            out = b""
            for i, part in enumerate(parts):
                out += frame(op if i == 0 else 0, part, fin=i == len(parts) - 1)
                if i == 0:
                    out += frame(9, b"mid")
            conn.sendall(out)
        else:
            conn.sendall(frame(op, payload))


def handle(conn, mode, params, log):
    try:
        serve(conn, mode, params, log)
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def main():
    mode, port_file, log_path = sys.argv[1:4]
    params = dict(a.split("=", 1) for a in sys.argv[4:])
    lock = threading.Lock()
    log_file = open(log_path, "a")

    def log(line):
        with lock:
            log_file.write(line + "\n")
            log_file.flush()

    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn, mode, params, log), daemon=True).start()


main()
