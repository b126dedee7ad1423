#!/usr/bin/env python3
"""barrage --h3 integration tests against the aioquic test server
(h3server.py, one per case, with its fault mode). Certificates are made with
openssl at test time in a temporary folder. Prints TAP lines (ok / not ok);
exits 1 when a case failed.

  python3 tests/h3/run.py --barrage build/barrage [--sanitized] [--only NAME]

The server needs `aioquic` from PyPI: installed into REPO/.cache/h3venv on
first use (python3-venv and network access to PyPI). A barrage built without
HTTP/3 (no QUIC libraries) makes every case a skip but the usage one."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import MiB, REPO, Failure, Skip, check_sent, expect, expect_eq, free_port  # noqa: E402

VENV = os.path.join(REPO, ".cache", "h3venv")
AIOQUIC_REQUIREMENT = "aioquic>=1.0,<2"
SERVER = os.path.join(HERE, "h3server.py")


def ensure_venv():
    """aioquic in REPO/.cache/h3venv, installed from PyPI when missing."""
    python = os.path.join(VENV, "bin", "python")
    with harness.venv_lock(VENV):
        if os.path.exists(python) and subprocess.run([python, "-c", "import aioquic"], capture_output=True).returncode == 0:
            return python
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
        p = subprocess.run([python, "-m", "pip", "install", "-q", AIOQUIC_REQUIREMENT], capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"cannot install {AIOQUIC_REQUIREMENT} from PyPI: {p.stderr.strip()[-300:]}")
    return python


def openssl(workdir, *args):
    p = subprocess.run(["openssl", *args], cwd=workdir, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"openssl {args[0]} failed: {p.stderr.strip()[-300:]}")


def make_certs(workdir):
    """A test CA and a server certificate it signed, for localhost, 127.0.0.1 and ::1."""
    with open(os.path.join(workdir, "server.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n")
    openssl(workdir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=barrage h3 test CA")
    openssl(workdir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    openssl(workdir, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "server.ext")


class H3Server:
    """h3server.py MODE on a free UDP port (of 127.0.0.1, or host=ADDRESS); its log's events in .events()."""

    def __init__(self, t, mode, **params):
        self.host = params.get("host", "127.0.0.1")
        self.dir = tempfile.mkdtemp(prefix=f"h3 {mode}.", dir=t.workdir)
        self.port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log")
        cert, key = os.path.join(t.workdir, "server.pem"), os.path.join(t.workdir, "server.key")
        args = [f"{k}={v}" for k, v in params.items()]
        self.proc = subprocess.Popen([t.python, SERVER, mode, cert, key, self.port_file, self.log, *args],
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "err"), "w"))

    def __enter__(self):
        deadline = time.monotonic() + 20
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"h3server did not start: {open(os.path.join(self.dir, 'err')).read()[-400:]}")
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())
        self.url = f"https://[{self.host}]:{self.port}/" if ":" in self.host else f"https://{self.host}:{self.port}/"
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def events(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def sent(self):
        out = {}
        for e in self.events():
            if e["event"] == "sent":
                out[e["kind"]] = out.get(e["kind"], 0) + 1
        return out

    def count(self, event):
        return sum(1 for e in self.events() if e["event"] == event)


class Runner(harness.Runner):
    prefix = "barrage h3"
    python = None
    has_h3 = True

    def run(self, args, url, timeout=120):
        """barrage --json --h3 ARGS URL: (exit code, record or None, stderr)."""
        p = subprocess.run([self.barrage, "--json", "--h3", *args, url], capture_output=True, text=True,
                           timeout=timeout)
        record = self.keep_record(p.stdout, p.stderr) if p.returncode == 0 or (p.returncode == 3 and p.stdout) else None
        return p.returncode, record, p.stderr

    def ok_run(self, args, url, timeout=120):
        rc, record, err = self.run(["--cacert", os.path.join(self.workdir, "ca.pem"), *args], url, timeout)
        expect(rc == 0, f"exit {rc}: {err.strip()[-500:]}")
        return record

    def needs_h3(self):
        if not self.has_h3:
            raise Skip("barrage built without HTTP/3")


# SENT_BUCKETS for this server: a connection it closed leaves its open requests read errors
BUCKETS = {"closed": "errors_detail.closed_before_response"}


def check_quic(r):
    q = r["quic"]
    expect(q is not None and q["ngtcp2"] and q["nghttp3"], f"no library versions in the record: {q}")
    expect_eq(r, "protocol", "h3")


def case_exact(t):
    t.needs_h3()
    with H3Server(t, "ok") as s:
        r = t.ok_run(["-c", "2", "-m", "4", "-n", "300"], s.url)
        check_quic(r)
        expect_eq(r, "succeeded", 300)
        expect_eq(r, "body_bytes", 300 * 6)
        expect_eq(r, "streams", 4)
        expect_eq(r, "server_max_streams", 128)
        expect_eq(r, "tls.verified", True)
        expect_eq(r, "connections.established", 2)
        check_sent(r, s.sent(), BUCKETS)


def case_ipv6(t):
    t.needs_h3()
    with H3Server(t, "ok", host="::1") as s:
        r = t.ok_run(["-c", "2", "-m", "2", "-n", "100"], s.url)
        check_quic(r)
        expect_eq(r, "succeeded", 100)
        expect_eq(r, "tls.verified", True)
        check_sent(r, s.sent(), BUCKETS)


def case_duration_warmup_timeline_hdrlog(t):
    t.needs_h3()
    log = os.path.join(t.workdir, "h3.hlog")
    with H3Server(t, "ok") as s:
        r = t.ok_run(["-c", "2", "-m", "2", "-d", "1500ms", "--warmup", "500ms", "--hdr-log", log], s.url)
        check_quic(r)
        expect(r["requests"] > 0 and r["failed"] == 0, f"requests {r['requests']}, failed {r['failed']}")
        expect(len(r["timeline"]) >= 1, "no timeline")
        lines = [x for x in open(log) if x[:1].isdigit()]
        expect(len(lines) >= 1, "no interval in the --hdr-log")


def case_max_streams(t):
    t.needs_h3()
    with H3Server(t, "ok", streams=2) as s:
        r = t.ok_run(["-c", "1", "-m", "8", "-n", "100"], s.url)
        expect_eq(r, "server_max_streams", 2)
        expect_eq(r, "succeeded", 100)
        # never a stream above the limit (ngtcp2 would refuse to open it: counted as refused)
        expect_eq(r, "connections.refused_streams", 0)


def case_headers_limit(t):
    t.needs_h3()
    with H3Server(t, "headers", count=10, size=1000) as s:
        r = t.ok_run(["-c", "1", "-m", "2", "-n", "10", "--max-header-size", "20000"], s.url)
        expect_eq(r, "succeeded", 10)
        r = t.ok_run(["-c", "1", "-m", "2", "-n", "10", "--max-header-size", "5000"], s.url)
        # over the limit: a protocol error each, the stream reset by us (not counted as the server's reset)
        expect_eq(r, "errors_detail.header_too_large", 10)
        expect_eq(r, "errors.protocol", 10)
        expect_eq(r, "quic.stream_resets", {})


def case_stream_reset(t):
    t.needs_h3()
    with H3Server(t, "reset", every=4, code=0x102) as s:
        r = t.ok_run(["-c", "2", "-m", "4", "-n", "200"], s.url)
        check_sent(r, s.sent(), BUCKETS)
        expect(r["errors"]["reset"] >= 40, f"resets {r['errors']}")
        expect_eq(r, "quic.stream_resets.H3_INTERNAL_ERROR", r["errors"]["reset"])


def case_refused(t):
    t.needs_h3()
    with H3Server(t, "refuse", every=5) as s:
        r = t.ok_run(["-c", "2", "-m", "4", "-n", "200"], s.url)
        # a refused request is sent again: every one of the 200 succeeds in the end
        expect_eq(r, "succeeded", 200)
        expect_eq(r, "connections.refused_streams", s.sent()["refused"])
        expect_eq(r, "quic.stream_resets", {})


def case_close_application(t):
    t.needs_h3()
    with H3Server(t, "close", keep=3, code=0x102) as s:
        r = t.ok_run(["-c", "1", "-m", "1", "-n", "40"], s.url)
        check_sent(r, s.sent(), BUCKETS)
        expect(r["quic"]["closed_application"] == s.count("close") > 0, f"closes {r['quic']} vs {s.count('close')}")
        expect_eq(r, "quic.closed_transport", 0)
        expect(r["connections"]["established"] > 5, "no reconnection after the closes")


def case_merge_records(t):
    """tools/merge-records on h3 records: the quic counters added code by code, the library
    versions kept; an h3 record merged with one of another protocol is refused (exit 2)."""
    t.needs_h3()
    paths = []
    for n in (40, 60):
        with H3Server(t, "reset", every=4, code=0x102) as s:
            t.ok_run(["-c", "1", "-m", "2", "-n", str(n)], s.url)
            paths.append(t.records[-1])
    merge = os.path.join(REPO, "client", "tools", "merge-records")
    p = subprocess.run([merge, *paths], capture_output=True, text=True)
    expect(p.returncode == 0, f"merge-records: {p.stderr}")
    merged, loaded = json.loads(p.stdout)["quic"], [json.load(open(x))["quic"] for x in paths]
    resets = sum(q["stream_resets"].get("H3_INTERNAL_ERROR", 0) for q in loaded)
    expect(resets > 0 and merged["stream_resets"] == {"H3_INTERNAL_ERROR": resets}, f"resets {merged} of {loaded}")
    expect(merged["ngtcp2"] == loaded[0]["ngtcp2"] and merged["nghttp3"] == loaded[0]["nghttp3"], f"{merged}")
    for key in ("handshake_failures", "idle_timeouts", "closed_transport", "closed_application", "goaways"):
        expect(merged[key] == sum(q[key] for q in loaded), f"{key}: {merged} of {loaded}")
    other = os.path.join(t.workdir, "h1 record.json")
    with open(other, "w") as f:
        json.dump(dict(json.load(open(paths[0])), quic=None), f)
    p = subprocess.run([merge, paths[0], other], capture_output=True, text=True)
    expect(p.returncode == 2 and "h3 and over another protocol" in p.stderr, f"mixed: {p.returncode} {p.stderr}")


def case_close_transport(t):
    t.needs_h3()
    with H3Server(t, "close", keep=3, code=0x0a, transport=1) as s:
        r = t.ok_run(["-c", "1", "-m", "1", "-n", "20"], s.url)
        check_sent(r, s.sent(), BUCKETS)
        expect(r["quic"]["closed_transport"] == s.count("close") > 0, f"closes {r['quic']} vs {s.count('close')}")
        expect_eq(r, "quic.closed_application", 0)


def case_goaway(t):
    t.needs_h3()
    with H3Server(t, "goaway", keep=4) as s:
        r = t.ok_run(["-c", "2", "-m", "4", "-n", "100"], s.url)
        # what GOAWAY allowed finished, what it refused went out again on a new connection
        expect_eq(r, "succeeded", 100)
        sent = s.sent()
        expect_eq(r, "connections.refused_streams", sent.get("refused", 0))
        expect(r["quic"]["goaways"] == s.count("goaway") > 0, f"goaways {r['quic']} vs {s.count('goaway')}")
        expect(r["connections"]["established"] >= 100 // 4, "no reconnection after GOAWAY")


def case_timeout(t):
    t.needs_h3()
    with H3Server(t, "timeout", every=4) as s:
        r = t.ok_run(["-c", "1", "-m", "4", "-n", "40", "--timeout", "300ms"], s.url)
        check_sent(r, s.sent(), BUCKETS)
        expect_eq(r, "errors.timeout", 10)


def case_idle_timeout(t):
    t.needs_h3()
    with H3Server(t, "silent") as s:
        # the idle timeout is twice --timeout: the requests time out, then the connection
        # is ended by it, reconnected, counted
        r = t.ok_run(["-c", "1", "-m", "2", "-d", "1500ms", "--timeout", "300ms"], s.url)
        expect(r["errors"]["timeout"] >= 2, f"no request timeout: {r['errors']}")
        expect(r["quic"]["idle_timeouts"] >= 1, f"no idle timeout: {r['quic']}")
        expect(r["connections"]["established"] >= 2, f"no reconnection: {r['connections']}")


def case_certificate(t):
    t.needs_h3()
    with H3Server(t, "ok") as s:
        rc, r, err = t.run(["-c", "2", "-d", "500ms"], s.url)
        expect(rc == 3 and r is not None, f"exit {rc}, want 3: {err}")
        expect("no QUIC handshake completed" in err, f"no reason: {err!r}")
        expect(err.count("certificate verify failed") == 1, f"reason not shown exactly once: {err!r}")
        c = r["connections"]
        expect(r["requests"] == 0 and c["tls_errors"] > 0, f"unverified server accepted: {r}")
        expect(c["tls_errors"] == c["connect_errors"] == r["quic"]["handshake_failures"], f"{c} {r['quic']}")
        # bounded by -n alone: no handshake ever completes, so the run stops (it would wait for ever)
        rc, r, err = t.run(["-c", "2", "-n", "50"], s.url, timeout=30)
        expect(rc == 3 and r is not None and r["requests"] == 0, f"-n 50: exit {rc}, want 3: {err}")
        expect("no QUIC handshake completed" in err and err.count("certificate verify failed") == 1, f"-n: {err!r}")
        rc, r, err = t.run(["-c", "2", "-n", "50", "--insecure"], s.url)
        expect(rc == 0, f"--insecure: exit {rc}: {err}")
        expect_eq(r, "succeeded", 50)
        expect_eq(r, "tls.verified", False)
        r = t.ok_run(["-c", "1", "-n", "20"], f"https://localhost:{s.port}/")
        expect_eq(r, "succeeded", 20)
        expect_eq(r, "tls.verified", True)


def case_unreachable(t):
    t.needs_h3()
    rc, r, err = t.run(["-c", "1", "-d", "500ms", "--connect-timeout", "200ms"], f"https://127.0.0.1:{free_port()}/")
    expect(rc == 3 and r is not None, f"exit {rc}, want 3: {err}")
    expect(r["connections"]["established"] == 0 and r["connections"]["connect_errors"] > 0, f"{r['connections']}")
    for warmup in ([], ["--warmup", "500ms"]):  # a warm-up's failures are not counted: the next ones are
        rc, r, err = t.run(["-c", "2", "-n", "10", "--connect-timeout", "200ms", *warmup],
                           f"https://127.0.0.1:{free_port()}/", timeout=30)
        expect(rc == 3 and r is not None and r["requests"] == 0, f"-n 10 {warmup}: exit {rc}, want 3: {err}")
    # a UDP peer that never answers, -d shorter than --connect-timeout: the handshakes were still waiting (exit 0 before)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        rc, r, err = t.run(["-c", "2", "-d", "500ms"], f"https://127.0.0.1:{silent.getsockname()[1]}/")
    expect(rc == 3 and r is not None and "no QUIC handshake completed" in err, f"a silent peer: exit {rc}, want 3: {err}")
    expect(r["requests"] == 0 and r["connections"]["established"] == 0, f"{r['connections']}")


def case_large_bodies(t):
    t.needs_h3()
    with H3Server(t, "ok", size=MiB) as s:
        r = t.ok_run(["-c", "1", "-m", "2", "-n", "20", "--timeout", "60s"], s.url)
        expect_eq(r, "succeeded", 20)
        expect_eq(r, "body_bytes", 20 * MiB)
        small = r["max_rss_kb"]
    if t.sanitized:
        return  # ASan's shadow memory makes RSS no measure of ours
    with H3Server(t, "ok", size=50 * MiB) as s:
        # aioquic sends 50 MiB at a few MB/s on a loaded machine: one body (~5 s here), and a
        # timeout that leaves it the time
        r = t.ok_run(["-c", "1", "-n", "1", "--timeout", "120s"], s.url, timeout=300)
        expect(r["succeeded"] == 1, f"succeeded {r['succeeded']}, errors {r['errors']}, aborted {r['aborted']}")
        expect_eq(r, "body_bytes", 50 * MiB)
        # bodies are counted, not kept: 50 MiB read in memory that stays flat
        expect(r["max_rss_kb"] < small + 16 * 1024, f"rss {r['max_rss_kb']} KiB after 50 MiB bodies, {small} after 1 MiB")


def case_fixed_rate(t):
    t.needs_h3()
    with H3Server(t, "ok") as s:
        r = t.ok_run(["-c", "2", "-m", "2", "-R", "200", "-d", "2s", "--warmup", "500ms"], s.url)
        rate = r["rate"]
        expect(rate is not None and r["latency_uncorrected_us"] is not None, "no fixed-rate fields")
        expect(350 <= rate["sent"] <= 450, f"sent {rate['sent']} at 200/s for 2 s")
        expect(r["failed"] == 0, f"failed {r['failed']}")


def case_script(t):
    t.needs_h3()
    script = os.path.join(t.workdir, "post.lua")
    with open(script, "w") as f:
        f.write('request = function() return wrk.format("POST", "/submit", {["X-Test"] = "1"}, "0123456789") end\n'
                'response = function(status, headers, body)\n'
                '  io.stderr:write("RESPONSE " .. status .. " " .. tostring(headers["content-length"]) .. " " .. body)\n'
                'end\n')
    with H3Server(t, "ok") as s:
        rc, r, err = t.run(["--cacert", os.path.join(t.workdir, "ca.pem"), "-c", "2", "-m", "2", "-n", "50", "-s", script],
                           s.url)
        expect(rc == 0, f"exit {rc}: {err[-400:]}")
        expect_eq(r, "succeeded", 50)
        # response() got each response's status, header fields and body
        expect(err.count("RESPONSE 200 6 hello\n") == 50, f"response() calls: {err[-300:]!r}")
        got = [e for e in s.events() if e["event"] == "request"]
        expect(len(got) == 50, f"the server got {len(got)} requests")
        bad = [e for e in got if e["method"] != "POST" or e["body"] != 10 or "x-test" not in e["headers"]]
        expect(not bad, f"requests not as the script made them: {bad[:2]}")


# prints the jti of each token on stdin (one a line) that verifies as ES256 with audience "api" against the key
VERIFY_JWT = """import json, sys, jwt
key = open(sys.argv[1], "rb").read()
print(json.dumps([jwt.decode(t, key, algorithms=["ES256"], audience="api")["jti"] for t in sys.stdin.read().split()]))"""


def verified_jtis(tokens, public_key, workdir):
    """Each token's jti, verified by PyJWT (Debian's python3-jwt: this python's, else /usr/bin/python3's)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([python, "-c", "import jwt.api_jwt"], capture_output=True, cwd=workdir).returncode == 0:
            p = subprocess.run([python, "-c", VERIFY_JWT, public_key], input="\n".join(tokens), capture_output=True,
                               text=True, cwd=workdir)
            expect(p.returncode == 0, f"a token does not verify: {p.stderr.strip()[-400:]}")
            return json.loads(p.stdout)
    raise Failure("PyJWT missing (apt-get install python3-jwt python3-cryptography)")


def case_sources(t):
    """--urls (in order, a method and a body file), --rand-url (seeded) and --jwt-key (ES256 at a fixed rate: every
    token verified with PyJWT, jti distinct) over HTTP/3."""
    t.needs_h3()
    d = lambda name: os.path.join(t.workdir, name)  # noqa: E731
    with open(d("body.bin"), "wb") as f:
        f.write(b"abc")
    with open(d("list.txt"), "w") as f:
        f.write("/a\nPOST /b @body.bin\n/c?x=1\n")
    for args in (["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", d("ec.pem")],
                 ["pkey", "-in", d("ec.pem"), "-pubout", "-out", d("ec.pub")]):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    with H3Server(t, "ok") as s:
        requests = lambda: [e for e in s.events() if e["event"] == "request"]  # noqa: E731
        t.ok_run(["-c", "1", "-n", "6", "--urls", d("list.txt")], s.url)
        got = [(e["method"], e["path"], e["body"]) for e in requests()]
        expect(got == [("GET", "/a", 0), ("POST", "/b", 3), ("GET", "/c?x=1", 0)] * 2, f"--urls: {got}")
        drawn = []
        for _ in range(2):
            t.ok_run(["-c", "1", "-n", "20", "--seed", "4", "--rand-url", "/item/[0-9]{3}"], s.url)
            drawn.append([e["path"] for e in requests()[-20:]])
        expect(all(len(p) == 9 and p[:6] == "/item/" and p[6:].isdigit() for p in drawn[0]), f"--rand-url: {drawn[0]}")
        expect(drawn[0] == drawn[1] and len(set(drawn[0])) > 10, f"the same seed, another sequence: {drawn}")
        r = t.ok_run(["-c", "2", "-m", "2", "-R", "100", "-n", "40", "--jwt-key", d("ec.pem"), "--jwt-aud", "api"], s.url)
        tokens = [e["authorization"] for e in requests()[-40:]]
    expect_eq(r, "succeeded", 40)
    j = r["jwt"]
    expect(j["alg"] == "ES256" and j["used"] >= 40 and j["signed"] >= j["used"], f"the record's jwt: {j}")
    expect(all(tok.startswith("Bearer ") for tok in tokens), f"authorization: {tokens[:2]}")
    jtis = verified_jtis([tok[7:] for tok in tokens], d("ec.pub"), t.workdir)
    expect(len(set(jtis)) == 40, f"{len(set(jtis))} distinct jti in 40 requests")


def case_usage(t):
    for args, why in ((["--h3", "http://127.0.0.1:1/"], "needs an https://"),
                      (["--h3", "--h2", "https://127.0.0.1:1/"], "--h3 excludes --h1 and --h2"),
                      (["--h1", "--h3", "https://127.0.0.1:1/"], "--h3 excludes --h1 and --h2")):
        p = subprocess.run([t.barrage, *args], capture_output=True, text=True, timeout=30)
        if not t.has_h3 and args == ["--h3", "http://127.0.0.1:1/"]:
            why = "apt-get install -y libngtcp2-dev"
        expect(p.returncode == 2 and why in p.stderr, f"{args}: exit {p.returncode}: {p.stderr!r}")
    v = subprocess.run([t.barrage, "--version"], capture_output=True, text=True).stdout
    expect(("h3 (ngtcp2 " in v) == t.has_h3, f"--version: {v!r}")


def case_client_certificate(t):
    """--cert/--key over QUIC: aioquic asks for a client certificate (client_cert=1) and logs the
    subject of the one it got (it checks the client holds the key, not the chain: no HTTP/3 server
    here verifies clients against a CA)."""
    t.needs_h3()
    w = t.workdir
    if not os.path.exists(os.path.join(w, "client.pem")):
        openssl(w, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "client.key", "-out", "client.csr", "-subj", "/CN=barrage client")
        openssl(w, "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "client.pem", "-days", "2")
    with H3Server(t, "ok", client_cert=1) as s:
        r = t.ok_run(["-c", "2", "-n", "10", "--cert", os.path.join(w, "client.pem"),
                      "--key", os.path.join(w, "client.key")], s.url)
        expect_eq(r, "status.codes", {"200": 10})
        got = [e["subject"] for e in s.events() if e["event"] == "client_certificate"]
        expect(got and all(x == "CN=barrage client" for x in got), f"client certificates seen: {got}")
        r = t.ok_run(["-c", "1", "-n", "5"], s.url)
        got = [e["subject"] for e in s.events() if e["event"] == "client_certificate"]
        expect(got[-1] is None, f"without --cert the server saw {got[-1]}")


def case_idle_connections(t):
    """--idle-connections over QUIC: with a PING whenever silent 300 ms they outlive a 1 s idle
    timeout on both sides (the server's idle=1, barrage's twice --timeout); without pings they time
    out, are counted closed and opened again. Never in the load's counts."""
    t.needs_h3()
    with H3Server(t, "ok", idle=1) as s:
        base = ["-c", "1", "-d", "2500ms", "--timeout", "500ms", "--idle-connections", "3"]
        r = t.ok_run(base + ["--idle-ping", "300ms"], s.url)
        idle = r["idle_connections"]
        expect(idle["established"] == idle["open_at_end"] == 3 and idle["closed"] == 0, f"{idle}")
        expect_eq(r, "connections.established", 1)
        expect_eq(r, "connections.handshakes_full", 1)
        expect(s.count("connection") == 4, f"{s.count('connection')} connections")
        r = t.ok_run(base + ["--idle-ping", "0"], s.url)
        idle = r["idle_connections"]
        expect(idle["closed"] >= 3 and idle["established"] >= 6, f"{idle}")
        expect_eq(r, "connections.established", 1)


CASES = [
    ("usage: --h3 needs https://, excludes --h2; --version lists h3", case_usage),
    ("-c 2 -m 4 -n 300: exact, versions and MAX_STREAMS in the record", case_exact),
    ("IPv6: https://[::1]:PORT, the certificate's IP:::1 verified", case_ipv6),
    ("-d with --warmup: timeline and --hdr-log", case_duration_warmup_timeline_hdrlog),
    ("MAX_STREAMS 2 caps -m 8", case_max_streams),
    ("headers over --max-header-size: protocol errors (header_too_large)", case_headers_limit),
    ("RESET_STREAM H3_INTERNAL_ERROR: errors.reset, code counted", case_stream_reset),
    ("RESET_STREAM H3_REQUEST_REJECTED: refused, sent again", case_refused),
    ("CONNECTION_CLOSE (HTTP/3 code): read errors, closed_application, reconnect", case_close_application),
    ("CONNECTION_CLOSE (transport code): closed_transport", case_close_transport),
    ("tools/merge-records: quic counters added, a mix with another protocol refused", case_merge_records),
    ("GOAWAY: allowed ones finish, refused ones sent again, reconnect", case_goaway),
    ("unanswered requests: errors.timeout", case_timeout),
    ("a silent server: idle timeout counted, reconnect", case_idle_timeout),
    ("certificate: unverified exit 3 once-reasoned; --insecure, --cacert pass", case_certificate),
    ("nothing listens, or a UDP peer never answers within -d: exit 3", case_unreachable),
    ("1 MiB and 50 MiB bodies exact, memory flat", case_large_bodies),
    ("-R 200: fixed rate, corrected and uncorrected latency", case_fixed_rate),
    ("a wrk script over h3: request() POSTs, response() reads", case_script),
    ("--urls, --rand-url and --jwt-key over h3", case_sources),
    ("--cert/--key: the client certificate sent when the server asks", case_client_certificate),
    ("--idle-connections: QUIC PINGs keep them past a 1 s idle timeout; without, reopened", case_idle_connections),
]


def main():
    def prepare(t, args):
        version = subprocess.run([t.barrage, "--version"], capture_output=True, text=True).stdout
        t.has_h3 = "h3 (ngtcp2" in version
        if not t.has_h3:
            return  # the usage case runs, the rest skip
        if not shutil.which("openssl"):
            raise Failure("missing openssl")
        t.python = ensure_venv()
        make_certs(t.workdir)

    return harness.main("h3", CASES, Runner, prepare=prepare)


if __name__ == "__main__":
    sys.exit(main())
