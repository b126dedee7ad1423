#!/usr/bin/env python3
"""barrage's TLS connection tests against real nginx (issue 39): session
resumption (--tls-resume: tickets and session IDs, TLS 1.3 and 1.2, and a
server that refuses it), client certificates (--cert/--key against
ssl_verify_client on, the certificate signed by the suite's CA from
lib/certs.sh), the new connections per second of the timeline, and
--idle-connections. nginx and the certificates come from tests/h2/run.py's
helpers. Prints TAP lines; exits 1 when a case failed.

  python3 tests/tls/run.py --barrage build/barrage [--sanitized] [--only NAME]"""
import importlib.util
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import REPO, Failure, expect, expect_eq  # noqa: E402

_spec = importlib.util.spec_from_file_location("h2_run", os.path.join(os.path.dirname(HERE), "h2", "run.py"))
h2_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h2_run)
Nginx, Certs, FaultServer = h2_run.Nginx, h2_run.Certs, h2_run.FaultServer

HELLO = 'location / { return 200 "hello\\n"; }'


class Runner(h2_run.Runner):
    prefix = "barrage tls"

    def __init__(self, barrage, sanitized, workdir):
        super().__init__(barrage, sanitized, workdir)
        self._suite_ca = None

    def suite_ca(self):
        """The suite's CA and server certificate (lib/certs.sh, in a folder of the test's), and a
        client certificate signed by that CA with openssl (extendedKeyUsage clientAuth)."""
        if self._suite_ca is None:
            d = os.path.join(self.workdir, "suite certs")
            subprocess.run(["bash", "-c", 'source lib/log.sh; source lib/certs.sh; certs::ensure "$1"', "certs", d],
                           cwd=REPO, check=True, capture_output=True)
            ext = os.path.join(d, "client.ext")
            with open(ext, "w") as f:
                f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                        "extendedKeyUsage=clientAuth\n")
            for args in (["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-subj", "/CN=barrage client", "-keyout", "client.key", "-out", "client.csr"],
                         ["x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                          "-CAcreateserial", "-days", "2", "-out", "client.pem", "-extfile", ext],
                         ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-subj", "/CN=stranger", "-days", "2", "-keyout", "stranger.key", "-out", "stranger.pem"]):
                p = subprocess.run(["openssl", *args], cwd=d, capture_output=True, text=True)
                if p.returncode:
                    raise Failure(f"openssl {args[0]}: {p.stderr[-300:]}")
            self._suite_ca = d
        return self._suite_ca


def tls_nginx(t, name, protocols, extra="", http2=False):
    """nginx serving hello over TLS with only `protocols` (e.g. TLSv1.3), plus extra directives."""
    c = t.certs()
    listen = "ssl http2" if http2 else "ssl"
    server = (f'ssl_certificate "{c.path("server.pem")}"; ssl_certificate_key "{c.path("server.key")}"; '
              f"ssl_protocols {protocols}; {extra} {HELLO}")
    return Nginx(t.workdir, name, listen, server, "keepalive_requests 10000;")


def churn(t, port, resume, n=20, extra=()):
    """n requests, one per connection, on one connection slot."""
    args = ["--cacert", t.certs().path("ca.pem"), "-c", "1", "-t", "1", "--requests-per-connection", "1",
            "-n", str(n), *extra] + (["--tls-resume"] if resume else [])
    r, _ = t.ok_run(args, f"https://localhost:{port}/")
    expect_eq(r, "succeeded", n)
    expect_eq(r, "connections.established", n)
    c = r["connections"]
    expect(c["handshakes_full"] + c["handshakes_resumed"] == c["established"], f"handshakes don't add up: {c}")
    expect(sum(e["new_connections"] for e in r["timeline"]) == n, f"timeline new_connections: {r['timeline']}")
    return r


def resumed_after_first(t, name, protocols, extra=""):
    with tls_nginx(t, name, protocols, extra) as ng:
        r = churn(t, ng.port, True)
    expect_eq(r, "connections.handshakes_full", 1)
    expect_eq(r, "connections.handshakes_resumed", 19)
    expect_eq(r, "tls.version", protocols)


def case_resume_tls13_tickets(t):
    resumed_after_first(t, "tickets 1.3", "TLSv1.3")


def case_resume_tls12_tickets(t):
    resumed_after_first(t, "tickets 1.2", "TLSv1.2")


def case_resume_tls12_session_ids(t):
    resumed_after_first(t, "ids 1.2", "TLSv1.2", "ssl_session_tickets off; ssl_session_cache shared:SSL:1m;")


def case_resume_tls13_server_cache(t):
    resumed_after_first(t, "cache 1.3", "TLSv1.3", "ssl_session_tickets off; ssl_session_cache shared:SSL:1m;")


def case_resume_refused(t):
    for protocols in ("TLSv1.3", "TLSv1.2"):
        with tls_nginx(t, "refuses " + protocols, protocols, "ssl_session_tickets off; ssl_session_cache off;") as ng:
            r = churn(t, ng.port, True)
        expect_eq(r, "connections.handshakes_full", 20)
        expect_eq(r, "connections.handshakes_resumed", 0)


def case_resume_off_by_default(t):
    with tls_nginx(t, "default", "TLSv1.2 TLSv1.3") as ng:
        r = churn(t, ng.port, False)
    expect_eq(r, "connections.handshakes_full", 20)
    expect_eq(r, "connections.handshakes_resumed", 0)


def case_resume_h2_concurrent(t):
    """Two connection slots over HTTP/2: both connect before any session exists (full), every
    later connection resumes; a timed run stays consistent (full + resumed = established)."""
    with tls_nginx(t, "h2", "TLSv1.3", http2=True) as ng:
        r, _ = t.ok_run(["--cacert", t.certs().path("ca.pem"), "-c", "2", "-t", "1", "-m", "2",
                         "--requests-per-connection", "4", "-n", "40", "--tls-resume"], f"https://localhost:{ng.port}/")
        expect_eq(r, "protocol", "h2")
        expect_eq(r, "succeeded", 40)
        # 10 connections carry the requests; one more may open as the last ones end
        c = r["connections"]
        expect(c["established"] in (10, 11), f"established {c['established']}")
        expect_eq(r, "connections.handshakes_full", 2)
        expect_eq(r, "connections.handshakes_resumed", c["established"] - 2)
        r, _ = t.ok_run(["--cacert", t.certs().path("ca.pem"), "-c", "4", "-t", "2", "--requests-per-connection",
                         "1", "-d", "1s", "--warmup", "200ms", "--tls-resume"], f"https://localhost:{ng.port}/")
        c = r["connections"]
        expect(c["handshakes_full"] + c["handshakes_resumed"] == c["established"] > 0, f"{c}")
        expect(c["handshakes_resumed"] > c["handshakes_full"], f"few resumed: {c}")


def case_fail_on_handshakes(t):
    """--fail-on takes the handshake counts: a share of resumed handshakes under 50% breaks (exit 5)
    against a server that refuses resumption, and holds against one that resumes."""
    item = "connections.handshakes_resumed<50%"
    args = ["--cacert", t.certs().path("ca.pem"), "-c", "1", "-t", "1", "--requests-per-connection", "1",
            "-n", "20", "--tls-resume", "--fail-on", item]
    with tls_nginx(t, "fail-on refuses", "TLSv1.3", "ssl_session_tickets off; ssl_session_cache off;") as ng:
        rc, r, err = t.run(args, f"https://localhost:{ng.port}/")
    expect(rc == 5 and item in err, f"refused resumption: exit {rc}, want 5 naming {item}: {err.strip()[-300:]}")
    expect_eq(r, "connections.handshakes_resumed", 0)
    with tls_nginx(t, "fail-on resumes", "TLSv1.3") as ng:
        rc, r, err = t.run(args, f"https://localhost:{ng.port}/")
    expect(rc == 0, f"resumed: exit {rc}, want 0: {err.strip()[-300:]}")
    expect_eq(r, "connections.handshakes_resumed", 19)


def case_cleartext_no_handshakes(t):
    with Nginx(t.workdir, "cleartext", "", HELLO, "keepalive_requests 10000;") as ng:
        r, _ = t.ok_run(["-c", "1", "--requests-per-connection", "2", "-n", "10"], f"http://127.0.0.1:{ng.port}/")
    expect_eq(r, "connections.established", 5)
    expect_eq(r, "connections.handshakes_full", None)
    expect_eq(r, "connections.handshakes_resumed", None)
    expect(sum(e["new_connections"] for e in r["timeline"]) == 5, f"timeline {r['timeline']}")


def mtls_nginx(t, name, d):
    server = (f'ssl_certificate "{d}/server.pem"; ssl_certificate_key "{d}/server.key"; '
              f'ssl_verify_client on; ssl_client_certificate "{d}/ca.pem"; {HELLO}')
    return Nginx(t.workdir, name, "ssl http2", server)


def case_client_certificate(t):
    d = t.suite_ca()
    base = ["--cacert", f"{d}/ca.pem", "-c", "2", "-n", "20"]
    with mtls_nginx(t, "mtls", d) as ng:
        url = f"https://localhost:{ng.port}/"
        for proto in ("--h1", "--h2"):
            r, _ = t.ok_run(base + [proto, "--cert", f"{d}/client.pem", "--key", f"{d}/client.key"], url)
            expect_eq(r, "status.codes", {"200": 20})
            # nginx answers 400 ("No required SSL certificate was sent" / "certificate error")
            r, _ = t.ok_run(base + [proto], url)
            expect_eq(r, "succeeded", 0)
            expect_eq(r, "failed", 20)
            expect_eq(r, "status.codes", {"400": 20})
            r, _ = t.ok_run(base + [proto, "--cert", f"{d}/stranger.pem", "--key", f"{d}/stranger.key"], url)
            expect_eq(r, "status.codes", {"400": 20})


def case_client_certificate_usage(t):
    d = t.suite_ca()
    url = "https://localhost:1/"
    for args, says in ((["--cert", f"{d}/client.pem"], "--cert and --key go together"),
                       (["--cert", f"{d}/client.pem", "--key", f"{d}/stranger.key"], "is not the key of --cert"),
                       (["--cert", f"{d}/missing.pem", "--key", f"{d}/client.key"], "--cert"),
                       (["--tls-resume"], None)):
        target = "http://127.0.0.1:1/" if args == ["--tls-resume"] else url
        p = subprocess.run([t.barrage, "-n", "1", *args, target], capture_output=True, text=True, timeout=30)
        expect(p.returncode == 2, f"{args}: exit {p.returncode}, want 2: {p.stderr[-300:]}")
        expect(says is None or says in p.stderr, f"{args}: {p.stderr[-300:]}")
    # an encrypted key: refused at once, never a prompt on the terminal (under a pty, as CI's
    # `script` or `ssh -t`, OpenSSL's default callback waited there for good), HTTP/3 (GnuTLS) alike
    enc = os.path.join(d, "encrypted.key")
    if not os.path.exists(enc):
        subprocess.run(["openssl", "pkey", "-in", f"{d}/client.key", "-aes256", "-passout", "pass:secret", "-out", enc],
                       check=True, capture_output=True)
    for proto in ("--h1", "--h2", "--h3"):
        cmd = shlex.join([t.barrage, proto, "-n", "1", "--cert", f"{d}/client.pem", "--key", enc, url])
        try:
            p = subprocess.run(["script", "-qec", cmd, "/dev/null"], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=30)
        except subprocess.TimeoutExpired:
            raise Failure(f"{proto} with an encrypted --key: still running after 30 s (a pass-phrase prompt?)")
        if proto == "--h3" and "built without HTTP/3" in p.stdout:
            continue  # a build without HTTP/3
        expect(p.returncode == 2 and "is encrypted (it needs a pass phrase): not supported" in p.stdout,
               f"{proto} with an encrypted --key: exit {p.returncode}: {p.stdout[-300:]}")


def idle_nginx(t, name, listen):
    """nginx closing a connection after 1 s without a request (HTTP/1.1: client_header_timeout
    before the first; HTTP/2: keepalive_timeout without a frame)."""
    return Nginx(t.workdir, name, listen, HELLO,
                 "keepalive_timeout 1s; client_header_timeout 1s; keepalive_requests 100000000;")


def idle_run(t, args, url):
    r, _ = t.ok_run(["-c", "1", "-d", "2500ms", *args], url)
    expect_eq(r, "connections.established", 1)  # the busy connection alone
    expect_eq(r, "connections.peak", 1)
    expect(all(e["open_connections"] <= 1 for e in r["timeline"]), f"timeline counts idle ones: {r['timeline']}")
    return r, r["idle_connections"]


def case_idle_connections_h2(t):
    """--idle-connections over h2c: every 300 ms each idle connection sends a PING (the h2 fault
    server logs those it gets); nginx closes idle h2 connections after keepalive_timeout whatever
    PINGs come (its rule), and they are counted closed and opened again."""
    with FaultServer(t.workdir, "ok") as s:
        _, idle = idle_run(t, ["--h2", "--idle-connections", "6", "--idle-ping", "300ms"], f"http://127.0.0.1:{s.port}/")
        got = len(s.events("ping"))
    expect(idle["requested"] == idle["established"] == idle["open_at_end"] == idle["peak"] == 6, f"{idle}")
    expect(idle["closed"] == 0 and idle["pings"] >= 6 * 5, f"{idle}")
    expect(idle["pings"] - 6 <= got <= idle["pings"], f"the server got {got} PINGs, barrage sent {idle['pings']}")
    with idle_nginx(t, "idle h2", "http2") as ng:
        _, idle = idle_run(t, ["--h2", "--idle-connections", "6", "--idle-ping", "0"], f"http://127.0.0.1:{ng.port}/")
    expect(idle["closed"] >= 6 and idle["established"] >= 12 and idle["pings"] == 0, f"{idle}")


def case_idle_closed_at_once(t):
    """A server that closes idle connections at once (nginx: 10 ms without a request): each is
    opened again after a back-off that doubles (10 ms .. 1 s), never in a loop that starves the
    busy connection (it reopened them at once: thousands a second)."""
    for listen, proto in (("http2", ["--h2"]), ("", [])):
        with Nginx(t.workdir, f"idle closed {listen}", listen, HELLO,
                   "keepalive_timeout 10ms; client_header_timeout 10ms; keepalive_requests 100000000;") as ng:
            r, _ = t.ok_run([*proto, "-c", "1", "-d", "2s", "--idle-connections", "4", "--idle-ping", "0"],
                            f"http://127.0.0.1:{ng.port}/")
        idle = r["idle_connections"]
        # 10 + 20 + 40 + ... ms: at most 9 opens of each in 2 s (and the first)
        expect(idle["closed"] >= 4 and idle["established"] <= 4 * 10, f"{proto}: {idle}")
        expect(r["succeeded"] > 0, f"{proto}: the busy connection: {r['succeeded']} requests")


def case_idle_connections_h1(t):
    """HTTP/1.1 has no ping: nginx closes idle connections after keepalive_timeout; each is
    counted closed and opened again, never in the load's counts. Over TLS too."""
    with idle_nginx(t, "idle h1", "") as ng:
        _, idle = idle_run(t, ["--idle-connections", "4"], f"http://127.0.0.1:{ng.port}/")
    expect(idle["closed"] >= 4 and idle["established"] >= 8 and idle["open_at_end"] <= 4, f"{idle}")
    with tls_nginx(t, "idle tls", "TLSv1.3", "keepalive_requests 100000000;", http2=True) as ng:
        r, idle = idle_run(t, ["--cacert", t.certs().path("ca.pem"), "--idle-connections", "5"],
                           f"https://localhost:{ng.port}/")
    expect(idle["open_at_end"] == 5 and idle["closed"] == 0, f"{idle}")
    expect_eq(r, "connections.handshakes_full", 1)


def case_idle_file_limit(t):
    """The soft open-file limit is raised to fit -c + --idle-connections; a hard limit below
    that is a usage error (exit 2) that says so, and so is more connections than local ports
    (ip_local_port_range)."""
    import resource

    def limit(soft, hard):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with Nginx(t.workdir, "idle fds", "", HELLO, "keepalive_timeout 60s;") as ng:
        url = f"http://127.0.0.1:{ng.port}/"
        p = subprocess.run([t.barrage, "--json", "-c", "1", "-d", "1s", "--idle-connections", "300", url],
                           capture_output=True, text=True, timeout=60, preexec_fn=limit(64, 1024))
        expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]}")
        idle = t.keep_record(p.stdout, p.stderr)["idle_connections"]
        expect(idle["open_at_end"] == 300 and idle["connect_errors"] == 0, f"{idle}")
        p = subprocess.run([t.barrage, "-c", "1", "-d", "1s", "--idle-connections", "300", url],
                           capture_output=True, text=True, timeout=60, preexec_fn=limit(64, 128))
        expect(p.returncode == 2 and "--idle-connections 300 needs" in p.stderr and "hard limit" in p.stderr,
               f"exit {p.returncode}: {p.stderr[-300:]}")
        # more connections than local ports to one address: said before the file limit
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = map(int, f.read().split())
        p = subprocess.run([t.barrage, "-c", "1", "-d", "1s", "--idle-connections", str(high - low + 1), url],
                           capture_output=True, text=True, timeout=60)
        expect(p.returncode == 2 and "ip_local_port_range" in p.stderr and f"holds {high - low + 1}" in p.stderr,
               f"exit {p.returncode}: {p.stderr[-300:]}")


CASES = [
    ("--tls-resume TLS 1.3 session tickets: the first handshake full, every later one resumed",
     case_resume_tls13_tickets),
    ("--tls-resume TLS 1.2 session tickets: the first handshake full, every later one resumed",
     case_resume_tls12_tickets),
    ("--tls-resume TLS 1.2 session IDs (tickets off, server cache): the first full, the rest resumed",
     case_resume_tls12_session_ids),
    ("--tls-resume TLS 1.3 stateful tickets (server cache): the first full, the rest resumed",
     case_resume_tls13_server_cache),
    ("--tls-resume against a server that refuses (tickets and cache off), 1.3 and 1.2: all full",
     case_resume_refused),
    ("without --tls-resume every handshake is full", case_resume_off_by_default),
    ("--tls-resume over h2, two slots and two threads: full + resumed = established", case_resume_h2_concurrent),
    ("--fail-on connections.handshakes_resumed<50%: breaks (exit 5) where resumption is refused, holds where not",
     case_fail_on_handshakes),
    ("cleartext: handshakes null, timeline new_connections add up", case_cleartext_no_handshakes),
    ("--cert/--key against ssl_verify_client on (suite CA): 200 with it, 400 without or a stranger's",
     case_client_certificate),
    ("--cert/--key and --tls-resume usage errors: exit 2", case_client_certificate_usage),
    ("--idle-connections over h2c: a PING every --idle-ping each, not counted as load; nginx closes them",
     case_idle_connections_h2),
    ("--idle-connections over HTTP/1.1 (closed and reopened) and TLS (kept)", case_idle_connections_h1),
    ("--idle-connections a server closes at once: reopened after a back-off, no spin", case_idle_closed_at_once),
    ("--idle-connections: the soft file limit raised to fit; a hard limit or port range too small is exit 2",
     case_idle_file_limit),
]


if __name__ == "__main__":
    sys.exit(harness.main("tls", CASES, Runner, needs=("nginx", "openssl"),
                          prepare=lambda t, args: h2_run.ensure_venv()))
