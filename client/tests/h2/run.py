#!/usr/bin/env python3
"""barrage HTTP/2 and TLS integration tests against real peers: nginx (h2c,
TLS with ALPN, GOAWAY from keepalive_requests, large static files) and the
h2-based fault server (h2server.py) for what nginx cannot do. Certificates are
made with openssl at test time. Prints TAP lines (ok / not ok); exits 1 when a
case failed.

  python3 tests/h2/run.py --barrage build/barrage [--sanitized] [--only NAME]

The fault server needs the `h2` package: it is installed from PyPI into
REPO/.cache/h2venv on first use (python3-venv and network access to PyPI)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import MiB, REPO, Failure, Skip, check_sent, expect, expect_eq, free_port  # noqa: E402

VENV = os.path.join(REPO, ".cache", "h2venv")
SCRIPTS = os.path.join(os.path.dirname(HERE), "scripts", "run")
H2_REQUIREMENT = "h2>=4.1,<5"
BODY = b"hello\n"


def wait_port(port, proc, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Failure(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise Failure(f"nothing listens on {port} after {seconds}s")


def stop(proc):
    """Stops a server we started, by its PID."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---- peers ----

class Nginx:
    """nginx on a free 127.0.0.1 port with its own prefix; `server` is the body
    of the server block (the listen line is added)."""

    def __init__(self, workdir, name, listen, server, http_extra=""):
        self.dir = os.path.join(workdir, f"nginx {name}")
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        self.port = free_port()
        user = "user root;" if os.geteuid() == 0 else ""  # workers must read the test files
        temp = "".join(f"  {t}_temp_path \"{self.dir}/tmp/{t}\";\n"
                       for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        conf = f"""{user}
worker_processes 1;
daemon off;
pid "{self.dir}/nginx.pid";
error_log "{self.dir}/error.log" warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
{temp}  {http_extra}
  server {{
    listen 127.0.0.1:{self.port} {listen};
    {server}
  }}
}}
"""
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen(["nginx", "-p", self.dir, "-e", os.path.join(self.dir, "error.log"),
                                      "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_port(self.port, self.proc)
        except Failure:
            stop(self.proc)
            raise Failure(f"nginx did not start: {self.proc.stderr.read().decode(errors='replace')[-400:]}")
        return self

    def __exit__(self, *exc):
        stop(self.proc)
        self.proc.stderr.close()


class FaultServer:
    """h2server.py in one mode; events() reads what it logged."""

    def __init__(self, workdir, mode, **params):
        self.mode = mode
        n = len(os.listdir(workdir))
        self.port_file = os.path.join(workdir, f"h2server {n}.port")
        self.log = os.path.join(workdir, f"h2server {n}.log")
        self.args = [os.path.join(VENV, "bin", "python"), os.path.join(HERE, "h2server.py"), mode,
                     self.port_file, self.log] + [f"{k}={v}" for k, v in params.items()]
        self.proc = None
        self.port = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop(self.proc)
                raise Failure(f"h2server did not start: {self.proc.stderr.read().decode(errors='replace')[-400:]}")
            time.sleep(0.02)
        with open(self.port_file) as f:
            self.port = int(f.read())
        return self

    def __exit__(self, *exc):
        stop(self.proc)
        self.proc.stderr.close()

    def events(self, kind):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [e for e in map(json.loads, f) if e["event"] == kind]

    def sent(self):
        """What the server did with the requests, by kind (for harness.check_sent)."""
        counts = {}
        for e in self.events("sent"):
            counts[e["kind"]] = counts.get(e["kind"], 0) + 1
        return counts


def ensure_venv():
    """The h2 package in REPO/.cache/h2venv, installed from PyPI when missing."""
    python = os.path.join(VENV, "bin", "python")
    with harness.venv_lock(VENV):
        if os.path.exists(python) and subprocess.run([python, "-c", "import h2"], capture_output=True).returncode == 0:
            return
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
        p = subprocess.run([python, "-m", "pip", "install", "-q", H2_REQUIREMENT], capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"cannot install {H2_REQUIREMENT} from PyPI: {p.stderr.strip()[-300:]}")


# ---- certificates ----

class Certs:
    """A test CA, server certificates signed by it (valid, expired, for another
    name) and a self-signed one, for localhost and 127.0.0.1."""

    def __init__(self, workdir):
        self.dir = os.path.join(workdir, "certs dir")
        os.makedirs(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def openssl(self, *args, stdin=None):
        p = subprocess.run(["openssl", *args], cwd=self.dir, capture_output=True, text=True, input=stdin)
        if p.returncode != 0:
            raise Failure(f"openssl {args[0]} failed: {p.stderr.strip()[-300:]}")

    def make(self):
        d = self.dir
        ext = self.path("server.ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
        with open(self.path("other.ext"), "w") as f:
            f.write("subjectAltName=DNS:other.example\nbasicConstraints=CA:FALSE\n")
        self.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                     "-days", "2", "-subj", "/CN=barrage test CA")
        self.openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                     "-subj", "/CN=localhost")
        self.openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-out", "server.pem", "-days", "2", "-extfile", ext)
        self.openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-out", "other.pem", "-days", "2", "-extfile", self.path("other.ext"))
        self.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "self.key", "-out", "self.pem",
                     "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
        # x509 -days cannot go back in time: `openssl ca` takes explicit dates
        os.makedirs(os.path.join(d, "newcerts"))
        open(self.path("index.txt"), "w").close()
        with open(self.path("serial"), "w") as f:
            f.write("1000\n")
        with open(self.path("ca.cnf"), "w") as f:
            f.write(f"""[ca]
default_ca = test
[test]
dir = {d}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
serial = $dir/serial
certificate = $dir/ca.pem
private_key = $dir/ca.key
default_md = sha256
policy = anything
copy_extensions = none
x509_extensions = server
[anything]
commonName = supplied
[server]
subjectAltName = DNS:localhost,IP:127.0.0.1
basicConstraints = CA:FALSE
""")
        self.openssl("ca", "-batch", "-config", "ca.cnf", "-in", "server.csr", "-out", "expired.pem",
                     "-startdate", "20200101000000Z", "-enddate", "20200102000000Z")


def tls_server(cert, key, http2=True):
    listen = "ssl http2" if http2 else "ssl"
    return listen, f'ssl_certificate "{cert}"; ssl_certificate_key "{key}"; location / {{ return 200 "hello\\n"; }}'


# ---- runner ----

class Runner(harness.Runner):
    prefix = "barrage h2"

    def __init__(self, barrage, sanitized, workdir):
        super().__init__(barrage, sanitized, workdir)
        self._certs = None

    def certs(self):
        if self._certs is None:
            self._certs = Certs(self.workdir)
            self._certs.make()
        return self._certs

    def run(self, args, url, timeout=120):
        """Runs barrage --json; returns (exit code, record or None, stderr)."""
        p = subprocess.run([self.barrage, "--json", *args, url], capture_output=True, text=True, timeout=timeout)
        # exit 3 after a run (no connection ever made it) and 5 (a --fail-on threshold broke) still print the record
        record = self.keep_record(p.stdout, p.stderr) if p.returncode in (0, 5) or (p.returncode == 3 and p.stdout) else None
        return p.returncode, record, p.stderr

    def ok_run(self, args, url, timeout=120):
        rc, record, err = self.run(args, url, timeout)
        expect(rc == 0, f"exit {rc}: {err.strip()[-500:]}")
        return record, err

    def script_run(self, script, args, url, after=(), env=None, timeout=120):
        """barrage --json -s SCRIPT ARGS URL AFTER...: (exit code, record or None, stderr, wall
        seconds); the record of a run stopped by a script error (exit 4) is kept too."""
        t0 = time.monotonic()
        p = subprocess.run([self.barrage, "--json", "-s", script, *args, url, *after], capture_output=True,
                           text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
        wall = time.monotonic() - t0
        record = self.keep_record(p.stdout, p.stderr) if p.returncode in (0, 4) else None
        return p.returncode, record, p.stderr, wall


def h2c(port):
    return f"http://127.0.0.1:{port}/"


HELLO_SERVER = 'location / { return 200 "hello\\n"; }'


def case_h2c_exact(t):
    with Nginx(t.workdir, "h2c", "http2", HELLO_SERVER) as ng:
        r, _ = t.ok_run(["--h2", "-c", "4", "-m", "10", "-n", "2000"], h2c(ng.port))
    expect_eq(r, "protocol", "h2c")
    expect_eq(r, "requests", 2000)
    expect_eq(r, "succeeded", 2000)
    expect_eq(r, "status.codes", {"200": 2000})
    expect_eq(r, "body_bytes", 2000 * len(BODY))
    expect_eq(r, "connections.established", 4)
    expect_eq(r, "streams", 10)
    expect_eq(r, "server_max_streams", 128)  # nginx's http2_max_concurrent_streams default
    hc = r["header_compression"]
    expect(hc["wire_bytes"] > 0 and 0 < hc["savings_percent"] < 100, f"header compression {hc}")


def case_h2c_duration(t):
    with Nginx(t.workdir, "h2c timed", "http2", HELLO_SERVER, "keepalive_requests 10000000;") as ng:
        r, _ = t.ok_run(["--h2", "-c", "8", "-t", "2", "-m", "20", "-d", "1s"], h2c(ng.port))
    expect(r["succeeded"] > 1000, f"only {r['succeeded']} succeeded in 1s")
    expect_eq(r, "failed", 0)
    expect_eq(r, "connections.established", 8)


def case_goaway_nginx(t):
    # nginx ends each connection with a GOAWAY after keepalive_requests requests
    with Nginx(t.workdir, "goaway", "http2", HELLO_SERVER, "keepalive_requests 50;") as ng:
        r, _ = t.ok_run(["--h2", "-c", "4", "-m", "10", "-n", "3000"], h2c(ng.port))
    expect_eq(r, "requests", 3000)
    expect_eq(r, "succeeded", 3000)
    expect_eq(r, "failed", 0)
    expect(r["connections"]["established"] >= 3000 // 50, f"established {r['connections']['established']}")


def case_goaway_refused(t):
    # each connection: 10 streams sent, 4 answered, the rest above the last-stream-id
    with FaultServer(t.workdir, "goaway", keep=4) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "10", "-n", "40"], h2c(s.port))
        goaways = s.events("goaway")
        check_sent(r, s.sent())
    expect_eq(r, "succeeded", 40)
    expect_eq(r, "failed", 0)
    expect_eq(r, "started", 40)
    expect_eq(r, "connections.established", 10)
    expect_eq(r, "connections.refused_streams", sum(g["unanswered"] for g in goaways))
    expect_eq(r, "connections.refused_streams", 6 * 8 + 4)


def case_timeout(t):
    with FaultServer(t.workdir, "timeout", every=10) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "10", "-n", "100", "--timeout", "300ms"], h2c(s.port))
        time.sleep(0.2)
        resets = s.events("rst_received")
        check_sent(r, s.sent())
    expect_eq(r, "errors.timeout", 10)
    # the answers' latency without the timeouts in it, and the timeouts' apart
    expect(r["latency_us"]["max"] < 300000, f"answers' latency max {r['latency_us']['max']} us: timeouts in it")
    expect(r["error_latency_us"]["min"] >= 300000, f"timeouts' latency min {r['error_latency_us']['min']} us")
    expect_eq(r, "succeeded", 90)
    expect_eq(r, "requests", 100)
    expect_eq(r, "connections.established", 1)
    expect(len(resets) == 10 and all(e["code"] == 8 for e in resets), f"RST_STREAM(CANCEL) seen: {resets}")


def case_reset(t):
    with FaultServer(t.workdir, "reset", every=4) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "5", "-n", "100"], h2c(s.port))
        check_sent(r, s.sent())
    expect_eq(r, "errors.reset", 25)
    # reset at once (the default --timeout is 10 s): near 0, nowhere near a timeout
    expect(r["error_latency_us"]["max"] < 1_000_000, f"resets' latency {r['error_latency_us']}")
    expect_eq(r, "succeeded", 75)
    expect_eq(r, "connections.established", 1)


def case_refused(t):
    # server indexes 0, 5, 10... are refused and sent again: 125 arrive for 100 answers
    with FaultServer(t.workdir, "refuse", every=5) as s:
        r, _ = t.ok_run(["--h2", "-c", "2", "-m", "4", "-n", "100"], h2c(s.port))
        arrived = len(s.events("request"))
        check_sent(r, s.sent())
    expect_eq(r, "succeeded", 100)
    expect_eq(r, "failed", 0)
    expect_eq(r, "connections.refused_streams", 25)
    expect(arrived == 125, f"{arrived} requests arrived, want 125")


def case_request_shape(t):
    args = ["--h2", "-c", "1", "-n", "3", "-X", "POST", "-H", "X-Test: 1", "-H", "Host: example.test",
            "-H", "Connection: keep-alive", "-b", "hello"]
    with FaultServer(t.workdir, "ok") as s:
        r, _ = t.ok_run(args, h2c(s.port))
        time.sleep(0.1)
        requests, data = s.events("request"), s.events("data")
        check_sent(r, s.sent())
    expect_eq(r, "succeeded", 3)
    want = [[":method", "POST"], [":scheme", "http"], [":authority", "example.test"], [":path", "/"],
            ["x-test", "1"], ["content-length", "5"]]
    expect(len(requests) == 3 and all(q["headers"] == want for q in requests), f"requests: {requests[:1]}")
    expect(sum(d["length"] for d in data) == 15, f"body bytes: {data}")


def case_max_streams(t):
    with FaultServer(t.workdir, "maxstreams", limit=2, delay_ms=20) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "10", "-n", "60"], h2c(s.port))
        peaks = [e["value"] for e in s.events("max_open")]
        errors = s.events("server_protocol_error")
        check_sent(r, s.sent())
    expect_eq(r, "succeeded", 60)
    expect_eq(r, "failed", 0)
    expect(peaks and max(peaks) == 2, f"most streams open at once: {peaks}")
    expect(r["streams"] == 10 and r["server_max_streams"] == 2, f"streams {r['streams']}, server {r.get('server_max_streams')}")
    expect(not errors, f"server saw protocol errors: {errors}")


def case_headers_near_limit(t):
    # 6 x 10,000 bytes: under the 65,536-byte limit, sent as HEADERS + CONTINUATION
    with FaultServer(t.workdir, "headers", count=6, size=10000) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "4", "-n", "20"], h2c(s.port))
        check_sent(r, s.sent())
    expect_eq(r, "succeeded", 20)
    expect(r["header_compression"]["decoded_bytes"] >= 20 * 60000, "header bytes not counted")


def case_headers_over_limit(t):
    with FaultServer(t.workdir, "headers", count=8, size=10000) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-m", "4", "-n", "20"], h2c(s.port))
        check_sent(r, s.sent(), {"status 200": "errors_detail.header_too_large"})
    expect_eq(r, "errors.protocol", 20)
    expect_eq(r, "errors_detail.header_too_large", 20)
    expect_eq(r, "connections.established", 1)  # a stream error: the connection stays
    with FaultServer(t.workdir, "headers", count=1, size=100000) as s:
        r, _ = t.ok_run(["--h2", "-c", "1", "-n", "5", "--max-header-size", "200000"], h2c(s.port))
    expect_eq(r, "requests", 5)
    expect_eq(r, "succeeded", 0)


def case_garbage(t):
    for mode in ("garbage", "badframe"):
        with FaultServer(t.workdir, mode) as s:
            r, _ = t.ok_run(["--h2", "-c", "1", "-n", "5"], h2c(s.port), timeout=60)
            check_sent(r, s.sent())
        expect(r["errors"]["protocol"] == 5, f"{mode}: protocol errors {r['errors']}")
        expect(r["connections"]["established"] == 5, f"{mode}: established {r['connections']['established']}")


def case_bad_status(t):
    # nghttp2 passes on any three digits but 101: 600-999 are no HTTP status (docs/metrics.md)
    for code in (600, 999):
        with FaultServer(t.workdir, "status", code=code) as s:
            r, _ = t.ok_run(["--h2", "-c", "1", "-m", "4", "-n", "20"], h2c(s.port))
            check_sent(r, s.sent())
        expect_eq(r, "errors.protocol", 20)
        expect_eq(r, "errors_detail.bad_status_line", 20)
        expect_eq(r, "status.codes", {})
        expect_eq(r, "connections.established", 1)


def case_not_h2(t):
    # an HTTP/1.1-only server answers the HTTP/2 preface with an error: every request fails, counted
    with Nginx(t.workdir, "h1 only", "", HELLO_SERVER) as ng:
        r, _ = t.ok_run(["--h2", "-c", "1", "-n", "5", "--verbose"], h2c(ng.port), timeout=60)
    expect_eq(r, "requests", 5)
    expect_eq(r, "succeeded", 0)
    expect(sum(r["errors"].values()) == 5, f"errors {r['errors']}")


def case_large_bodies(t):
    files = os.path.join(t.workdir, "static files")
    os.makedirs(files)
    sizes = {"1m": MiB, "50m": 50 * MiB}
    for name, size in sizes.items():
        with open(os.path.join(files, name), "wb") as f:
            f.truncate(size)
    rss = {}
    with Nginx(t.workdir, "static", "http2", f'root "{files}";') as ng:
        for name, size in sizes.items():
            r, _ = t.ok_run(["--h2", "-c", "1", "-m", "2", "-n", "4", "--window-bits", "16",
                             "--connection-window-bits", "16", "--timeout", "60s"],
                            f"http://127.0.0.1:{ng.port}/{name}")
            expect_eq(r, "succeeded", 4)
            expect(r["body_bytes"] == 4 * size, f"{name}: body_bytes {r['body_bytes']}, want {4 * size}")
            rss[name] = r["max_rss_kb"]
    expect(rss["50m"] - rss["1m"] < 8 * 1024, f"memory grows with the body: peak RSS {rss} KiB")


def case_tls_verification(t):
    c = t.certs()
    url = lambda port: f"https://127.0.0.1:{port}/"
    with Nginx(t.workdir, "tls ca", *tls_server(c.path("server.pem"), c.path("server.key"))) as ng:
        # no handshake ever completes: exit 3 (unreachable) with the record, not 0
        rc, r, err = t.run(["-c", "2", "-d", "500ms"], url(ng.port))
        expect(rc == 3 and r is not None, f"exit {rc}, want 3: {err}")
        expect("no TLS handshake completed" in err, f"no reason: {err!r}")
        expect(r["requests"] == 0 and r["connections"]["tls_errors"] > 0, f"unverified server accepted: {r}")
        expect(r["connections"]["tls_errors"] == r["connections"]["connect_errors"], "tls errors not connect errors")
        expect(err.count("certificate verify failed") == 1, f"reason not shown exactly once: {err!r}")
        r, _ = t.ok_run(["-c", "2", "-m", "4", "-n", "200", "--cacert", c.path("ca.pem")], url(ng.port))
        expect_eq(r, "succeeded", 200)
        expect_eq(r, "protocol", "h2")
        expect_eq(r, "tls.verified", True)
        expect(r["tls"]["version"] in ("TLSv1.3", "TLSv1.2"), f"tls {r['tls']}")
        r, _ = t.ok_run(["-c", "2", "-n", "100", "--insecure"], url(ng.port))
        expect_eq(r, "succeeded", 100)
        expect_eq(r, "tls.verified", False)
        r, _ = t.ok_run(["-c", "2", "-n", "100", "--h1", "--cacert", c.path("ca.pem")], url(ng.port))
        expect_eq(r, "protocol", "http/1.1")
        expect_eq(r, "succeeded", 100)
        r, _ = t.ok_run(["-c", "1", "-n", "10", "--cacert", c.path("ca.pem")], f"https://localhost:{ng.port}/")
        expect_eq(r, "succeeded", 10)


def case_tls_self_signed(t):
    c = t.certs()
    url = lambda port: f"https://127.0.0.1:{port}/"
    with Nginx(t.workdir, "tls self", *tls_server(c.path("self.pem"), c.path("self.key"))) as ng:
        rc, r, err = t.run(["-c", "1", "-d", "300ms"], url(ng.port))
        expect(rc == 3 and r["requests"] == 0 and r["connections"]["tls_errors"] > 0, f"exit {rc}: {err}")
        expect("self-signed" in err, f"no clear reason: {err!r}")
        r, _ = t.ok_run(["-c", "1", "-n", "50", "--cacert", c.path("self.pem")], url(ng.port))
        expect_eq(r, "succeeded", 50)
        r, _ = t.ok_run(["-c", "1", "-n", "50", "--insecure"], url(ng.port))
        expect_eq(r, "succeeded", 50)
        # -n alone with a failing handshake would never end: exit 3 with the reason
        rc, _, err = t.run(["-c", "1", "-n", "5"], url(ng.port))
        expect(rc == 3 and "self-signed" in err, f"exit {rc}: {err!r}")


def case_tls_expired_and_name(t):
    c = t.certs()
    url = lambda port: f"https://127.0.0.1:{port}/"
    with Nginx(t.workdir, "tls expired", *tls_server(c.path("expired.pem"), c.path("server.key"))) as ng:
        rc, r, err = t.run(["-c", "1", "-d", "300ms", "--cacert", c.path("ca.pem")], url(ng.port))
        expect(rc == 3 and r["requests"] == 0 and r["connections"]["tls_errors"] > 0, f"exit {rc}: {err}")
        expect("expired" in err, f"no clear reason: {err!r}")
    with Nginx(t.workdir, "tls other name", *tls_server(c.path("other.pem"), c.path("server.key"))) as ng:
        rc, r, err = t.run(["-c", "1", "-d", "300ms", "--cacert", c.path("ca.pem")], url(ng.port))
        expect(rc == 3 and r["connections"]["tls_errors"] > 0, f"exit {rc}: {err}")
        expect("mismatch" in err, f"no clear reason: {err!r}")


def case_alpn_http11_only(t):
    c = t.certs()
    with Nginx(t.workdir, "tls h1", *tls_server(c.path("server.pem"), c.path("server.key"), http2=False)) as ng:
        r, _ = t.ok_run(["-c", "2", "-m", "2", "-n", "100", "--cacert", c.path("ca.pem")],
                        f"https://127.0.0.1:{ng.port}/")
    expect_eq(r, "protocol", "http/1.1")
    expect_eq(r, "succeeded", 100)
    expect_eq(r, "body_bytes", 100 * len(BODY))


# ---- scripts (-s) over HTTP/2 and TLS ----

ECHO = ('add_header X-Path $uri always; add_header X-Port $server_port always; '
        'return 200 "$request_method $uri $http_x_test $content_length $http_host\\n";')


def echo_nginx(t, name, listen, tls_lines=""):
    """nginx answering /echo/ with what it received, on two ports; returns (nginx, second port)."""
    second = free_port()
    server = f'listen 127.0.0.1:{second} {listen}; {tls_lines} location /echo/ {{ {ECHO} }}'
    return Nginx(t.workdir, name, listen, server, "keepalive_requests 1000000;"), second


def case_ipv6_nginx(t):
    """HTTP/1.1 and h2c to nginx on [::1]: the Host header (and :authority) in brackets, so
    nginx answers 200, not 400 (a Host of ::1:PORT is invalid)."""
    h1, h2c = free_port(), free_port()
    server = f'listen [::1]:{h1}; listen [::1]:{h2c} http2; location /echo/ {{ {ECHO} }}'
    with Nginx(t.workdir, "ipv6", "", server, "keepalive_requests 1000000;"):
        for proto, port in (([], h1), (["--h2"], h2c)):
            r, _ = t.ok_run(["-c", "2", "-n", "50", *proto], f"http://[::1]:{port}/echo/x")
            expect(r["succeeded"] == 50 and r["status"]["codes"] == {"200": 50},
                   f"{proto or 'http/1.1'}: codes {r['status']['codes']}")


def check_api(r, err, first, second, host, kinds_exact):
    """What api.lua saw and the record say the same, for both threads and their ports."""
    expect(r["failed"] == 0 and r["succeeded"] == r["requests"] >= 200, f"{r['succeeded']} of {r['requests']}")
    kinds = r["kinds"]
    expect(set(kinds) == {"get", "pair", "head"}, f"kinds {list(kinds)}")
    expect(sum(k["requests"] for k in kinds.values()) == r["requests"], f"kinds {kinds}")
    if kinds_exact:  # HTTP/1.1: a text's requests go out together
        expect(kinds["pair"]["requests"] % 2 == 0, f"pair {kinds['pair']}")
    want = {f"200 /echo/a|GET /echo/a tag  {host}", f"200 /echo/b|POST /echo/b tag 7 {host}",
            f"200 /echo/c|GET /echo/c tag  {host}", "200 /echo/d|"}
    seen, total = {}, 0
    for line in err.splitlines():
        if line.startswith("answer "):
            _, thread, rest = line.split(" ", 2)
            key, n = rest.rsplit(" ", 1)
            body, port = key.rsplit("|", 1)
            seen.setdefault(thread, set()).add(body)
            expect(port == str(first if thread == "1" else second), f"thread {thread} answered from port {port}")
            total += int(n)
    expect(seen.get("1") == want and seen.get("2") == want, f"answers seen {seen}, want {want}")
    expect(total == r["succeeded"], f"response() called {total} times for {r['succeeded']} responses")
    expect(err.count("bad_conn 0\n") == 2, f"per-connection tables: {err!r}")
    # #requests counts the non-empty buckets of the threads' requests/s: 2, or 1 when both threads'
    # rates fell into one bucket (seen under ASan, where the two run alike)
    expect(f"summary {r['succeeded']} 0 true 2\n" in err or f"summary {r['succeeded']} 0 true 1\n" in err,
           f"done(): {err[-300:]!r}")


def case_script_api(t):
    """api.lua on HTTP/1.1, h2c, TLS h2 and TLS http/1.1: texts, pipelined pairs (streams on
    HTTP/2), HEAD, kinds, response() headers in any case and bodies, conn tables, delay,
    thread.addr, done()."""
    c = t.certs()
    tls = f'ssl_certificate "{c.path("server.pem")}"; ssl_certificate_key "{c.path("server.key")}";'
    modes = [("h1", "", "", [], "http/1.1"), ("h2c", "http2", "", ["--h2", "-m", "4"], "h2c"),
             ("tls h2", "ssl http2", tls, ["--cacert", c.path("ca.pem"), "-m", "4"], "h2"),
             ("tls h1", "ssl http2", tls, ["--cacert", c.path("ca.pem"), "--h1"], "http/1.1")]
    for name, listen, tls_lines, flags, protocol in modes:
        ng, second = echo_nginx(t, "api " + name, listen, tls_lines)
        scheme = "https" if tls_lines else "http"
        with ng:
            rc, r, err, _ = t.script_run(os.path.join(SCRIPTS, "api.lua"), ["-t", "2", "-c", "4", "-n", "200", *flags],
                                         f"{scheme}://127.0.0.1:{ng.port}/", after=["tag"],
                                         env={"BARRAGE_SECOND_PORT": str(second)})
        try:
            expect(rc == 0, f"exit {rc}: {err[-500:]}")
            expect_eq(r, "protocol", protocol)
            check_api(r, err, ng.port, second, f"127.0.0.1:{ng.port}", protocol == "http/1.1")
        except Failure as e:
            raise Failure(f"{name}: {e}")


def case_script_delay_streams(t):
    """delay() holds the next stream: 5 requests 100 ms apart on one connection with 10 streams."""
    with Nginx(t.workdir, "delay", "http2", HELLO_SERVER) as ng:
        rc, r, err, wall = t.script_run(os.path.join(SCRIPTS, "delay.lua"), ["--h2", "-c", "1", "-m", "10", "-n", "5"],
                                        h2c(ng.port), after=["100"])
    expect(rc == 0 and r["succeeded"] == 5, f"exit {rc}: {err[-300:]}")
    expect(wall >= 0.5 and r["duration_us"] >= 500_000, f"took {wall:.2f}s: the streams were not held")


def case_script_stop_error_h2(t):
    """thread:stop() and a runtime error in response() over h2c and TLS."""
    c = t.certs()
    with Nginx(t.workdir, "stop", "http2", HELLO_SERVER) as ng:
        rc, r, err, wall = t.script_run(os.path.join(SCRIPTS, "stop.lua"), ["--h2", "-c", "1", "-d", "20s"],
                                        h2c(ng.port))
        expect(rc == 0 and r["started"] == 4 and wall < 10, f"stop: exit {rc}, started {r and r['started']}")
        rc, r, err, wall = t.script_run(os.path.join(SCRIPTS, "fail_response.lua"),
                                        ["--h2", "-t", "2", "-c", "2", "-m", "4", "-d", "20s"], h2c(ng.port))
        expect(rc == 4 and "boom in response 200" in r["error"] and "stack traceback" in err and wall < 10,
               f"h2c error: exit {rc}, {wall:.1f}s: {err[-300:]!r}")
        expect(r["succeeded"] >= 5 and r["started"] == r["requests"] + r["aborted"], f"record {r['succeeded']}")
    with Nginx(t.workdir, "tls error", *tls_server(c.path("server.pem"), c.path("server.key"))) as ng:
        rc, r, err, _ = t.script_run(os.path.join(SCRIPTS, "fail_response.lua"),
                                     ["-c", "2", "-d", "20s", "--cacert", c.path("ca.pem")],
                                     f"https://127.0.0.1:{ng.port}/")
        expect(rc == 4 and "boom in response 200" in r["error"], f"TLS error: exit {rc}: {err[-300:]!r}")


def case_script_scenarios_h2c(t):
    """The suite's scenarios/*.lua unmodified over h2c, against nginx standing in for the
    contract's endpoints (/, /no-read, /hello, /file?size=N, POST /load)."""
    files = os.path.join(t.workdir, "contract files")
    os.makedirs(files, exist_ok=True)
    for size in (1024, 1048576):
        with open(os.path.join(files, f"file-{size}"), "wb") as f:
            f.write(bytes(ord("a") + i % 26 for i in range(size)))
    server = (f'root "{files}"; location = / {{ return 200 ""; }} location = /no-read {{ return 200 ""; }} '
              'location = /hello { return 200 "Hello world"; } '
              'location = /file { try_files /file-$arg_size =404; } location = /load { return 200 "ok"; }')
    with Nginx(t.workdir, "contract", "http2", server, "keepalive_requests 1000000;") as ng:
        for name in ("baseline", "hello", "post-load", "large-file", "high-concurrency", "mixed"):
            n = 10 if name == "large-file" else 100
            rc, r, err, _ = t.script_run(os.path.join(REPO, "scenarios", name + ".lua"),
                                         ["--h2", "-c", "2", "-m", "10", "-n", str(n)], h2c(ng.port))
            expect(rc == 0 and r["succeeded"] == n and r["failed"] == 0,
                   f"{name}: exit {rc}, {r and r['succeeded']} succeeded, {r and r['status']}: {err[-300:]!r}")
            lines = [json.loads(x) for x in err.splitlines() if x.startswith("{")]
            expect(lines and lines[-1]["requests"] == n, f"{name}: done() printed {err[-300:]!r}")
            if name == "large-file":
                expect_eq(r, "body_bytes", n * 1048576)


def suite_certificate():
    """(server.pem, server.key) that lib/certs.sh makes (once) for the servers that declare h3:
    they refuse to start without it, whatever protocol the test speaks to them."""
    script = 'source lib/log.sh && source lib/certs.sh && certs::ensure && certs::dir'
    p = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"lib/certs.sh could not make the servers' certificate: {p.stderr.strip()}")
    folder = p.stdout.strip()
    return os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")


def java_h2c_servers():
    """(name, directory) of the suite's servers that declare h2c and are built."""
    servers = os.path.join(REPO, "servers")
    found = []
    for name in sorted(os.listdir(servers)):
        props = os.path.join(servers, name, "server.properties")
        if not os.path.exists(props):
            continue
        with open(props) as f:
            fields = dict(line.strip().split("=", 1) for line in f if "=" in line)
        if "h2c" in fields.get("protocols", "").split(","):
            found.append((name, os.path.join(servers, name)))
    return found


def case_java_h2c(t):
    servers = java_h2c_servers()
    expect(servers, "no server declares h2c")
    built = [(n, d) for n, d in servers if os.path.exists(os.path.join(d, "target", "server.jar"))]
    if not built:
        why = "no h2c server is built (run-tests.sh builds them in its build stage)"
        # under run-tests.sh the build stage ran: a missing jar is a failure there, not a skip
        if os.environ.get("BARRAGE_REQUIRE_BUILT") == "1":
            raise Failure(why)
        raise Skip(why)
    cert, key = suite_certificate()
    for name, directory in built:
        port = free_port()
        env = dict(os.environ, PORT=str(port), BIND="127.0.0.1", TLS_CERT=cert, TLS_KEY=key)
        proc = subprocess.Popen([os.path.join(directory, "start.sh")], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            wait_port(port, proc, seconds=60)
            r, _ = t.ok_run(["--h2", "-c", "4", "-m", "10", "-n", "2000"], f"http://127.0.0.1:{port}/hello")
            expect(r["succeeded"] == 2000 and r["body_bytes"] == 2000 * 11, f"{name}: {r['succeeded']} succeeded, "
                   f"{r['body_bytes']} body bytes")
            r, _ = t.ok_run(["--h2", "-c", "1", "-m", "4", "-n", "20"], f"http://127.0.0.1:{port}/file?size=1048576")
            expect(r["succeeded"] == 20 and r["body_bytes"] == 20 * MiB, f"{name} /file: {r['succeeded']} "
                   f"succeeded, {r['body_bytes']} body bytes")
        except Failure as e:
            raise Failure(f"{name}: {e}")
        finally:
            stop(proc)
            proc.stderr.close()


CASES = [
    ("h2c against nginx: exact counts, bytes, header compression", case_h2c_exact),
    ("h2c timed run with 2 threads", case_h2c_duration),
    ("GOAWAY from nginx keepalive_requests: every request completes", case_goaway_nginx),
    ("GOAWAY mid-run: streams above last-stream-id refused and sent again", case_goaway_refused),
    ("per-request timeout: RST_STREAM(CANCEL), counted once, connection kept", case_timeout),
    ("RST_STREAM from the server: reset", case_reset),
    ("RST_STREAM(REFUSED_STREAM): refused and sent again", case_refused),
    ("-X, -H (Host as :authority, Connection dropped) and -b make the request", case_request_shape),
    ("IPv6: HTTP/1.1 and h2c to nginx on [::1] answer 200 (Host in brackets)", case_ipv6_nginx),
    ("SETTINGS_MAX_CONCURRENT_STREAMS below -m: respected", case_max_streams),
    ("headers near the limit with CONTINUATION: accepted", case_headers_near_limit),
    ("headers over the limit: header_too_large, bounded", case_headers_over_limit),
    ("garbage and a bad frame: protocol error, reconnect", case_garbage),
    (":status 600 and 999: protocol errors (bad_status_line)", case_bad_status),
    ("--h2 against a server without HTTP/2: requests fail, counted", case_not_h2),
    ("1 MiB and 50 MiB through a 65,535-byte window: exact, memory flat", case_large_bodies),
    ("TLS: verification, --cacert, --insecure, --h1, reason shown once", case_tls_verification),
    ("TLS: self-signed certificate", case_tls_self_signed),
    ("TLS: expired certificate, wrong name", case_tls_expired_and_name),
    ("TLS: ALPN falls back to http/1.1", case_alpn_http11_only),
    ("the suite's Java servers that declare h2c: exact counts", case_java_h2c,
     "starts every Java server (about 18 s); barrage's h2 code runs sanitized against nginx and the fault server"),
    ("script: every API item over HTTP/1.1, h2c, TLS h2 and TLS http/1.1", case_script_api),
    ("script: delay() holds the next stream", case_script_delay_streams),
    ("script: thread:stop() and a runtime error over h2c and TLS", case_script_stop_error_h2),
    ("script: scenarios/*.lua over h2c", case_script_scenarios_h2c),
]


def main():
    return harness.main("h2", CASES, Runner, needs=("nginx", "openssl"), prepare=lambda t, args: ensure_venv())


if __name__ == "__main__":
    sys.exit(main())
