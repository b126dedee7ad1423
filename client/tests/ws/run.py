#!/usr/bin/env python3
"""barrage's WebSocket tests (issue 53): the engine against an independent
implementation (Python's `websockets`, pinned, from PyPI into
REPO/.cache/wsvenv, under the venv lock) and against faulty_server.py, the
tests' own server that breaks RFC 6455 on purpose. Every accounting class is
reached: echoed, timeout, closed, protocol error (each of the parser's
refusals), refused upgrades, closes by either side with their codes, pings
answered, and the open loop's latency corrected across a stall. Prints TAP
lines; exits 1 when a case failed.

  python3 tests/ws/run.py --barrage build/barrage [--sanitized] [--only NAME]"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import REPO, Failure, expect, expect_eq  # noqa: E402

VENV = os.path.join(REPO, ".cache", "wsvenv")
WEBSOCKETS_VERSION = "15.0.1"  # lib/contract.sh's CONTRACT_WEBSOCKETS_VERSION too


def ensure_venv():
    """websockets in REPO/.cache/wsvenv (run-tests.sh's deps stage makes it; made here when missing)."""
    python = os.path.join(VENV, "bin", "python")
    with harness.venv_lock(VENV):
        check = f"import importlib.metadata as m, sys; sys.exit(m.version('websockets') != '{WEBSOCKETS_VERSION}')"
        if os.path.exists(python) and subprocess.run([python, "-c", check], capture_output=True).returncode == 0:
            return python
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
        p = subprocess.run([python, "-m", "pip", "install", "-q", f"websockets=={WEBSOCKETS_VERSION}"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"cannot install websockets {WEBSOCKETS_VERSION} from PyPI: {p.stderr.strip()[-300:]}")
    return python


class Server:
    """A server process on a free port of 127.0.0.1, stopped on exit: argv(port_file, log) is its
    command line, writing its port to port_file (and what it saw to log)."""

    def __init__(self, t, argv):
        self.dir = tempfile.mkdtemp(prefix="ws server.", dir=t.workdir)
        self.port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log")
        self.err = os.path.join(self.dir, "err")
        self.proc = subprocess.Popen(argv(self.port_file, self.log), stdout=subprocess.DEVNULL,
                                     stderr=open(self.err, "w"))

    def __enter__(self):
        deadline = time.monotonic() + 20
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"the server did not start: {open(self.err).read()[-400:]}")
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def url(self, path="/ws"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def lines(self):
        return open(self.log).read().split("\n") if os.path.exists(self.log) else []


def echo_server(t, *params):
    """websockets' echo server (echo_server.py PORT_FILE PARAMS)."""
    return Server(t, lambda port_file, log: [t.python, os.path.join(HERE, "echo_server.py"), port_file, *params])


def faulty_server(t, mode, *params):
    """The tests' own faulty server (faulty_server.py MODE PORT_FILE LOG PARAMS)."""
    return Server(t, lambda port_file, log: [sys.executable, os.path.join(HERE, "faulty_server.py"), mode, port_file,
                                             log, *params])


class Runner(harness.Runner):
    prefix = "barrage ws"

    def run(self, args, url, timeout=120, expect_rc=0):
        p = subprocess.run([self.barrage, "--json", *args, url], capture_output=True, text=True, timeout=timeout,
                           **harness.memory_bounded(self.sanitized))
        expect(p.returncode == expect_rc, f"exit {p.returncode}, want {expect_rc}: {p.stderr.strip()[-500:]}")
        record = self.keep_record(p.stdout, p.stderr)
        check_ws(record)
        return record


def check_ws(r):
    """The WebSocket accounting of docs/metrics.md: sent = echoed + failed, failed by class; the
    refusals by status and by reason add up."""
    w = r["websocket"]
    expect(w is not None, "no websocket object")
    expect(w["refused"] == sum(w["refused_status"].values()) + sum(w["refused_reasons"].values()), f"refusals {w}")
    m = w["messages"]
    expect(m["sent"] == r["requests"] and m["echoed"] == r["succeeded"] and m["failed"] == r["failed"],
           f"messages {m} do not match the requests {r['requests']}/{r['succeeded']}/{r['failed']}")
    expect(m["sent"] == m["echoed"] + m["failed"], f"sent != echoed + failed: {m}")
    expect(m["failed"] == m["timeout"] + m["closed"] + m["protocol_error"], f"failed != the classes: {m}")
    expect(r["status"]["codes"].get("200", 0) == m["echoed"], "echoes counted as 200s")


def case_echo_text(t):
    with echo_server(t) as s:
        r = t.run(["-t", "2", "-c", "2", "-m", "4", "-n", "2000"], s.url())
    expect_eq(r, "websocket.messages.echoed", 2000)
    expect_eq(r, "websocket.messages.failed", 0)
    expect_eq(r, "websocket.upgraded", 2)
    expect_eq(r, "protocol", "ws")
    expect(r["latency_us"]["max"] > 0, "latency measured")


def case_echo_binary_sizes(t):
    """Binary, a message from a file (1 KiB), and lengths in the 16-bit and 64-bit forms."""
    body = os.path.join(t.workdir, "msg.bin")
    with open(body, "wb") as f:
        f.write(bytes(range(256)) * 4)
    with echo_server(t) as s:
        r = t.run(["-c", "1", "-n", "200", "--ws-binary", "-B", body], s.url())
        expect_eq(r, "websocket.messages.echoed", 200)
        expect_eq(r, "websocket.binary", True)
        expect_eq(r, "websocket.message_bytes", 1024)
        r = t.run(["-c", "1", "-n", "20", "--ws-size", "70000"], s.url())
        expect_eq(r, "websocket.messages.echoed", 20)
        r = t.run(["-c", "1", "-n", "20", "--ws-size", "0"], s.url())
        expect_eq(r, "websocket.messages.echoed", 20)


def make_certs(workdir):
    """A test CA and a server certificate it signed, for localhost and 127.0.0.1 (openssl)."""
    with open(os.path.join(workdir, "server.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    for args in (["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
                  "-out", "ca.pem", "-days", "2", "-subj", "/CN=barrage ws test CA"],
                 ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key",
                  "-out", "server.csr", "-subj", "/CN=localhost"],
                 ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                  "-out", "server.pem", "-days", "2", "-extfile", "server.ext"]):
        p = subprocess.run(["openssl", *args], cwd=workdir, capture_output=True, text=True)
        if p.returncode:
            raise Failure(f"openssl {args[0]}: {p.stderr[-300:]}")


def case_wss(t):
    """wss://: TLS with --cacert as for https:// (ALPN offers http/1.1 alone); an unknown CA fails
    the handshake (exit 3, tls_errors)."""
    make_certs(t.workdir)
    cert, key, ca = (os.path.join(t.workdir, n) for n in ("server.pem", "server.key", "ca.pem"))
    with echo_server(t, f"cert={cert}", f"key={key}") as s:
        url = f"wss://localhost:{s.port}/ws"
        r = t.run(["-c", "2", "-m", "2", "-n", "500", "-d", "30s", "--cacert", ca], url)
        expect_eq(r, "websocket.messages.echoed", 500)
        expect_eq(r, "protocol", "wss")
        expect(r["tls"]["verified"] is True, "verified")
        p = subprocess.run([t.barrage, "-n", "5", url], capture_output=True, text=True, timeout=60)
        expect(p.returncode == 3, f"an unknown CA: exit {p.returncode}: {p.stderr[-300:]}")


def case_server_closes(t):
    """The server closes (1001) after 5 echoes: the close is counted with its code and echoed, and the
    connection comes back. The message sent before the close arrived fails as closed."""
    with echo_server(t, "close_after=5", "close_code=1001") as s:
        r = t.run(["-c", "1", "-n", "20"], s.url())
    m = r["websocket"]["messages"]
    expect(m["echoed"] >= 15 and m["closed"] == 20 - m["echoed"], f"{m}")
    expect(r["websocket"]["closed_by_server"] >= 3, f"closed by the server: {r['websocket']}")
    expect(r["websocket"]["server_close_codes"].get("1001") == r["websocket"]["closed_by_server"], "code 1001")
    expect(r["websocket"]["upgraded"] >= 4, "reconnected")


def case_client_closes(t):
    """--requests-per-connection 5: the client closes (1000) after 5 echoes, the server answers."""
    with echo_server(t) as s:
        r = t.run(["-c", "1", "-n", "20", "--requests-per-connection", "5"], s.url())
    w = r["websocket"]
    expect_eq(r, "websocket.messages.echoed", 20)
    expect(w["closed_by_client"] >= 3 and w["client_close_codes"].get("1000") == w["closed_by_client"], f"{w}")
    expect(w["upgraded"] >= 4 and w["closed_by_server"] == 0, f"{w}")


BAD_FRAMES = {  # faulty_server mode -> (protocol_errors key, the close code barrage sends)
    "masked": ("masked_frame", "1002"),
    "rsv": ("reserved_bits", "1002"),
    "opcode": ("reserved_opcode", "1002"),
    "control_long": ("control_too_long", "1002"),
    "control_fragmented": ("control_fragmented", "1002"),
    "continuation": ("bad_continuation", "1002"),
    "bad_utf8": ("invalid_utf8", "1007"),
    "close_code": ("bad_close_code", "1002"),
    "close_one_byte": ("bad_close_payload", "1002"),
    "huge": ("message_too_big", "1009"),
    "length_msb": ("bad_length", "1002"),
    "mismatch": ("echo_mismatch", None),
}


def case_bad_frames(t):
    """Each frame RFC 6455 forbids, in place of the echo of message 3: a counted protocol error (the
    message fails as one), the client's close with the right code, never a crash. The 100 MB frame
    header costs no memory (the run is memory-bounded)."""
    for mode, (key, code) in BAD_FRAMES.items():
        with faulty_server(t, mode, "after=2") as s:
            r = t.run(["-c", "1", "-n", "6", "-d", "3s"], s.url())
            lines = s.lines()
        w = r["websocket"]
        expect(w["protocol_errors"].get(key, 0) >= 1, f"{mode}: {key} not counted: {w}")
        expect(w["messages"]["protocol_error"] >= 1, f"{mode}: no message failed as a protocol error: {w}")
        expect(w["messages"]["echoed"] >= 2, f"{mode}: the first echoes: {w}")
        if code:
            expect(w["client_close_codes"].get(code, 0) >= 1, f"{mode}: close {code} not sent: {w}")
            expect(f"close {code}" in lines, f"{mode}: the server did not get close {code}: {lines[:5]}")


def case_unsolicited(t):
    with faulty_server(t, "unsolicited") as s:
        r = t.run(["-c", "1", "-n", "5", "-d", "3s"], s.url())
    expect(r["websocket"]["protocol_errors"].get("unsolicited_message", 0) >= 1, f"{r['websocket']}")


def case_timeout(t):
    with faulty_server(t, "slow", "delay=2") as s:
        r = t.run(["-c", "1", "-n", "2", "--timeout", "300ms", "-d", "1s"], s.url())
    expect(r["websocket"]["messages"]["timeout"] >= 1, f"{r['websocket']}")
    expect(r["websocket"]["client_close_codes"].get("1000", 0) >= 1, "closed after the timeout")


def case_closed(t):
    """Half an echo, then the TCP connection ends: the message fails as closed, the server's close
    without a close frame is 1006; a close frame in place of the echo is the server's 1001."""
    with faulty_server(t, "close_mid") as s:
        r = t.run(["-c", "1", "-n", "3", "-d", "2s"], s.url())
    w = r["websocket"]
    expect(w["messages"]["closed"] >= 1 and w["server_close_codes"].get("1006", 0) >= 1, f"{w}")
    with faulty_server(t, "close_frame") as s:
        r = t.run(["-c", "1", "-n", "3", "-d", "2s"], s.url())
    w = r["websocket"]
    expect(w["messages"]["closed"] >= 1 and w["server_close_codes"].get("1001", 0) >= 1, f"{w}")


def case_refused(t):
    with faulty_server(t, "refuse") as s:
        r = t.run(["-c", "1", "-d", "1s"], s.url())
    w = r["websocket"]
    expect(w["refused"] >= 1 and w["refused_status"].get("403") == w["refused"], f"{w}")
    expect(w["messages"]["sent"] == 0 and w["upgraded"] == 0, f"{w}")
    for mode, reason in (("bad_accept", "bad_accept"), ("extension", "extension_not_offered"),
                         ("hang_up", "closed_before_response")):
        with faulty_server(t, mode) as s:
            r = t.run(["-c", "1", "-d", "1s"], s.url())
        w = r["websocket"]
        expect(w["refused"] >= 1 and w["refused_reasons"].get(reason) == w["refused"] and not w["refused_status"],
               f"{mode}: {w}")


def case_ping_and_fragments(t):
    """Pings are answered (the server logs each pong); an echo in 1-byte fragments with a ping
    between them is one message."""
    with faulty_server(t, "ping") as s:
        r = t.run(["-c", "1", "-n", "10"], s.url())
        time.sleep(0.2)
        pongs = s.lines().count("pong")
    expect_eq(r, "websocket.messages.echoed", 10)
    expect(r["websocket"]["pings_answered"] == 10 and pongs >= 9, f"pings {r['websocket']}, pongs {pongs}")
    with faulty_server(t, "fragments") as s:
        r = t.run(["-c", "1", "-n", "10", "--ws-size", "40"], s.url())
    expect_eq(r, "websocket.messages.echoed", 10)
    expect_eq(r, "websocket.pings_answered", 10)


def case_open_loop_stall(t):
    """-R 50 on one connection: the server stalls 1 s on message 10; the ~50 messages due meanwhile wait
    for the connection, and their latency runs from their scheduled time. Lower bounds only: those
    messages alone add at least 25 s of latency (1 s x 50 / 2), so over the run's at most ~100 messages
    the corrected mean is at least 160 ms; from the send, only the stalled message waited."""
    with faulty_server(t, "stall", "delay=1", "after=9") as s:
        r = t.run(["-c", "1", "-R", "50", "-d", "2s"], s.url())
    corrected, sent = r["latency_us"]["mean"], r["latency_uncorrected_us"]["mean"]
    expect(r["latency_us"]["max"] >= 900_000, f"corrected max {r['latency_us']['max']}")
    expect(corrected >= 150_000, f"corrected mean {corrected}")
    expect(sent < corrected / 2, f"mean from the send {sent}, from the schedule {corrected}")
    expect(r["schedule_lag_us"]["max"] >= 500_000, f"lag max {r['schedule_lag_us']['max']}")
    expect(r["websocket"]["messages"]["failed"] == 0, f"{r['websocket']}")


def case_fail_on_hdr_log_sigint(t):
    """--fail-on with the websocket figures (exit 5), --hdr-log written, --live's lines, and SIGINT as
    for HTTP: the record says interrupted, messages in flight are aborted, the accounting holds."""
    hlog = os.path.join(t.workdir, "ws.hlog")
    with echo_server(t) as s:
        r = t.run(["-c", "1", "-n", "10", "--requests-per-connection", "2", "--hdr-log", hlog,
                   "--fail-on", "websocket.closed_by_client>0,websocket.upgraded<1"], s.url(), expect_rc=5)
        expect(r["fail_on"]["broken"] == 1, f"one broken: {r['fail_on']}")
        expect(open(hlog).read().startswith("#[Histogram log format"), "hdr log written")
        p = subprocess.Popen([t.barrage, "--json", "--live", "-c", "2", "-m", "4", "-d", "60s", s.url()],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        p.send_signal(2)
        out, err = p.communicate(timeout=30)
    expect(p.returncode == 130, f"exit {p.returncode}: {err[-300:]}")
    r = t.keep_record(out, err)
    check_ws(r)
    expect(r["interrupted"] == "SIGINT" and r["websocket"]["messages"]["sent"] > 0, f"{r['interrupted']}")
    expect("[   0.0s] sent " in err, f"--live's lines: {err[-300:]}")


def case_usage(t):
    for args, url in ((["--h2"], "ws://127.0.0.1:1/"), (["--ws-size", "10"], "http://127.0.0.1:1/"),
                      (["-X", "POST"], "ws://127.0.0.1:1/"), (["--ws-size", "5", "-b", "x"], "ws://127.0.0.1:1/")):
        p = subprocess.run([t.barrage, *args, url], capture_output=True, text=True, timeout=30)
        expect(p.returncode == 2, f"{args} {url}: exit {p.returncode}, want 2: {p.stderr}")


CASES = [
    ("ws:// text echo against websockets", case_echo_text),
    ("binary, a message file, 16- and 64-bit lengths, empty", case_echo_binary_sizes),
    ("wss:// with --cacert, an unknown CA refused", case_wss),
    ("the server's close (1001) counted and echoed", case_server_closes),
    ("--requests-per-connection: the client's close (1000)", case_client_closes),
    ("every forbidden frame a counted protocol error with its close code", case_bad_frames),
    ("an unsolicited message", case_unsolicited),
    ("a late echo times out", case_timeout),
    ("closed mid-message and by a close frame", case_closed),
    ("refused upgrades: 403, a wrong accept, an extension not offered, no answer", case_refused),
    ("pings answered, fragmented echoes", case_ping_and_fragments),
    ("open loop corrected across a stall", case_open_loop_stall),
    ("--fail-on websocket figures, --hdr-log, --live, SIGINT", case_fail_on_hdr_log_sigint),
    ("usage errors", case_usage),
]


def prepare(t, args):
    t.python = ensure_venv()


if __name__ == "__main__":
    sys.exit(harness.main("ws", CASES, Runner, prepare=prepare))
