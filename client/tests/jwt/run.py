#!/usr/bin/env python3
"""barrage --jwt-key against nginx, whose access log records every request it
answers with its token (tests/sources/run.py's Recorder with another log
format): every token verifies against the public key with PyJWT (an
independent verifier), every jti is distinct, the claims are as given; for
ES256, RS256 and HS256, on HTTP/1.1 and HTTP/2, closed loop and at a fixed
rate; with --jwt-header, -H, -b, --rand-url and a script (-s); bad keys are usage errors
before anything is sent. The keys are made here with openssl. Prints TAP lines;
exits 1 when a case failed.
  python3 tests/jwt/run.py --barrage build/barrage [--sanitized] [--only NAME]
PyJWT and cryptography are Debian's python3-jwt and python3-cryptography:
when this python cannot import them, the script runs itself again with
/usr/bin/python3."""
import collections
import importlib.util
import os
import subprocess
import sys

try:
    import jwt as pyjwt
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    print("not ok - barrage jwt tests: PyJWT missing (apt-get install python3-jwt python3-cryptography)")
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "h2"))
_spec = importlib.util.spec_from_file_location("sources_run", os.path.join(TESTS, "sources", "run.py"))
sources = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sources)
import harness  # noqa: E402
from harness import expect, expect_eq  # noqa: E402

# the Authorization field last: its value holds a space
LOG_FORMAT = "log_format rec '$server_protocol $request_uri $http_x_test $http_x_jwt $http_authorization';"
CLAIMS = ["--jwt-kid", "key-1", "--jwt-iss", "barrage-test", "--jwt-sub", "user \"42\"", "--jwt-aud", "api",
          "--jwt-exp", "1h"]


class Recorder(sources.Recorder):
    def __init__(self, workdir, name, listen=""):
        super().__init__(workdir, name, listen, log_format=LOG_FORMAT)

    def requests(self):
        """Every logged request as (protocol, target, x_test, x_jwt, authorization); '-' when absent."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [tuple(line.split(" ", 4)) for line in f.read().splitlines()]


def make_keys(workdir):
    """alg -> (private key file, what verifies it): EC P-256 and RSA 2048 PEM from openssl, an HS256 secret."""
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    d = lambda name: os.path.join(workdir, name)  # noqa: E731
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", d("ec.pem"))
    openssl("pkey", "-in", d("ec.pem"), "-pubout", "-out", d("ec.pub"))
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", d("rsa.pem"))
    openssl("pkey", "-in", d("rsa.pem"), "-pubout", "-out", d("rsa.pub"))
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", d("p384.pem"))
    secret = os.urandom(32) + b"\n"  # the file's bytes as they are, a newline included
    with open(d("hs.key"), "wb") as f:
        f.write(secret)
    read = lambda name: open(d(name), "rb").read()  # noqa: E731
    return {"ES256": (d("ec.pem"), read("ec.pub")), "RS256": (d("rsa.pem"), read("rsa.pub")),
            "HS256": (d("hs.key"), secret)}


def verify_all(tokens, alg, verify_key):
    """Every token verifies (signature, exp, aud, iss) with PyJWT; the claims as given; jti distinct."""
    jtis = set()
    for tok in tokens:
        try:
            claims = pyjwt.decode(tok, verify_key, algorithms=[alg], audience="api", issuer="barrage-test",
                                  options={"require": ["exp", "iat", "jti"]})
        except pyjwt.PyJWTError as e:
            raise AssertionError(f"{alg} token does not verify ({type(e).__name__}: {e}): {tok}")
        header = pyjwt.get_unverified_header(tok)
        expect(header == {"alg": alg, "typ": "JWT", "kid": "key-1"}, f"header {header}")
        expect(claims["sub"] == 'user "42"' and claims["exp"] - claims["iat"] == 3600, f"claims {claims}")
        jtis.add(claims["jti"])
    expect(len(jtis) == len(tokens), f"{len(tokens) - len(jtis)} repeated jti among {len(tokens)} tokens")


def bearer_tokens(reqs):
    bad = [r for r in reqs if not r[4].startswith("Bearer ")]
    expect(not bad, f"requests without 'Authorization: Bearer': {bad[:2]}")
    return [r[4][len("Bearer "):] for r in reqs]


def check_record(r, alg, reqs, fixed_rate):
    expect(r["requests"] == len(reqs) and r["succeeded"] == len(reqs), f"{r['requests']} requests, nginx answered {len(reqs)}")
    j = r["jwt"]
    expect(j["alg"] == alg and j["used"] >= len(reqs) and j["signed"] >= j["used"], f"record jwt {j}")
    # prefilled before the run with more tokens than these runs send: nothing waits
    expect(j["waited"] == 0 and j["wait_us_max"] == 0, f"sending waited for a signature: {j}")
    if fixed_rate:
        expect(r["rate"] is not None, "not at a fixed rate")


def case_matrix(alg, proto, loop):
    def case(t):
        key, verify_key = t.keys[alg]
        listen, extra = ("http2", ["--h2"]) if proto == "h2" else ("", [])
        load = ["-R", "300", "-d", "1s"] if loop == "fixed rate" else ["-n", "400"]
        load += ["--jwt-alg", "HS256"] if alg == "HS256" else []  # ES256 and RS256: from the key
        with Recorder(t.workdir, f"{alg} {proto} {loop}", listen) as ng:
            r = t.ok_run(["-c", "4", "-t", "2", *extra, *load, "--jwt-key", key, *CLAIMS], sources.url_of(ng.port))
            reqs = ng.requests()
        expect(reqs and all(q[0] == ("HTTP/2.0" if proto == "h2" else "HTTP/1.1") for q in reqs), f"protocol: {reqs[:1]}")
        check_record(r, alg, reqs, loop == "fixed rate")
        verify_all(bearer_tokens(reqs), alg, verify_key)
    return case


def case_short_exp(t):
    """--jwt-exp 1s at 30/s: every token reaches the server (nginx's $msec, the same clock) at least the margin
    (100 ms, jwt.h's JWT_EXP_MARGIN_US, less 20 ms for the way there) before its exp; none expired (27 to 37 of
    90 did: iat is whole seconds, the pool's age limit ran from the signing moment)."""
    key, verify_key = t.keys["ES256"]
    log_format = "log_format rec '$msec $http_authorization';"
    with sources.Recorder(t.workdir, "short exp", log_format=log_format) as ng:
        r = t.ok_run(["-c", "2", "-R", "30", "-d", "3s", "--jwt-key", key, "--jwt-exp", "1s"], sources.url_of(ng.port))
        with open(ng.log) as f:
            reqs = [line.split(" ", 1) for line in f.read().splitlines()]
    expect(r["requests"] == len(reqs) and len(reqs) >= 80, f"{r['requests']} requests, nginx answered {len(reqs)}")
    late = []
    for arrived, auth in reqs:
        claims = pyjwt.decode(auth[len("Bearer "):], verify_key, algorithms=["ES256"],
                              options={"verify_exp": False, "require": ["exp", "iat"]})
        expect(claims["exp"] - claims["iat"] == 1, f"claims {claims}")
        if float(arrived) > claims["exp"] - 0.1 + 0.02:
            late.append(round(claims["exp"] - float(arrived), 3))
    expect(not late, f"{len(late)} of {len(reqs)} tokens arrived within the margin of exp (s before exp: {late[:8]})")


def case_header_sources(t):
    """--jwt-header X-JWT: 'X-JWT: <token>' and no Authorization, with -H, -b and --rand-url (h1 and h2)."""
    key, verify_key = t.keys["ES256"]
    for listen, extra in (("", []), ("http2", ["--h2", "-R", "200"])):
        with Recorder(t.workdir, f"header {listen}", listen) as ng:
            t.ok_run(["-c", "2", "-n", "200", *extra, "--jwt-key", key, "--jwt-header", "X-JWT", *CLAIMS,
                      "-H", "X-Test: yes", "-X", "POST", "-b", "body", "--rand-url", "/item/[0-9]{4}", "--seed", "3"],
                     sources.url_of(ng.port))
            reqs = ng.requests()
        expect(len(reqs) == 200, f"{len(reqs)} requests")
        expect(all(q[2] == "yes" and q[4] == "-" and q[1].startswith("/item/") for q in reqs), f"fields: {reqs[:2]}")
        expect(len({q[1] for q in reqs}) > 100, "the targets were not drawn")
        verify_all([q[3] for q in reqs], "ES256", verify_key)


def case_urls_prefix(t):
    """--urls with --jwt-header 'Authorization: Token': that prefix; HS256; the list's targets in order."""
    key, verify_key = t.keys["HS256"]
    lst = t.write("list.txt", "/a\n/b\n")
    with Recorder(t.workdir, "urls prefix") as ng:
        t.ok_run(["-c", "1", "-n", "50", "--urls", lst, "--jwt-key", key, "--jwt-alg", "HS256",
                  "--jwt-header", "Authorization: Token", *CLAIMS], sources.url_of(ng.port))
        reqs = ng.requests()
    expect([q[1] for q in reqs] == ["/a", "/b"] * 25, f"targets {[q[1] for q in reqs][:4]}")
    expect(all(q[4].startswith("Token ") for q in reqs), f"prefix: {reqs[:1]}")
    verify_all([q[4][len("Token "):] for q in reqs], "HS256", verify_key)


SIGNED_SCRIPT = """
local n = 0
request = function()
  n = n + 1
  if n % 3 == 0 then
    -- two requests pipelined in one text; the first has an Authorization of its own
    return wrk.format("GET", "/p/" .. n, {["Authorization"] = "Bearer stale", ["X-Test"] = "pipe"})
        .. wrk.format("POST", "/q/" .. n, {["X-Test"] = "pipe"}, "body")
  end
  return wrk.format("GET", "/s/" .. n, {["X-Test"] = "yes"})
end
"""


def case_script(t):
    """--jwt-key with -s (it was refused): every request of the script's texts carries a fresh token, pipelined
    ones too, on h1 and h2 with 2 threads; the script's other fields kept and its own Authorization replaced;
    every token verifies, every jti distinct. With --jwt-header X-JWT its Authorization is left as written."""
    key, verify_key = t.keys["ES256"]
    script = t.write("signed.lua", SIGNED_SCRIPT)
    for listen, extra in (("", []), ("http2", ["--h2"])):
        with Recorder(t.workdir, f"script {listen}", listen) as ng:
            r = t.ok_run(["-c", "4", "-t", "2", "-n", "300", *extra, "--jwt-key", key, *CLAIMS, "-s", script],
                         sources.url_of(ng.port))
            reqs = ng.requests()
        expect(r["requests"] == len(reqs) >= 300 and r["succeeded"] == len(reqs),
               f"{extra}: {r['requests']} requests, nginx answered {len(reqs)}")
        targets = collections.Counter(q[1].split("/")[1] for q in reqs)
        expect(set(targets) == {"p", "q", "s"} and targets["p"] > 20, f"{extra}: targets {targets}")
        expect(all(q[2] == ("yes" if q[1].startswith("/s/") else "pipe") for q in reqs), f"{extra}: X-Test {reqs[:3]}")
        verify_all(bearer_tokens(reqs), "ES256", verify_key)
        j = r["jwt"]
        expect(j["used"] >= len(reqs) and j["waited"] == 0, f"{extra}: record jwt {j}")
    with Recorder(t.workdir, "script x-jwt") as ng:
        t.ok_run(["-c", "2", "-n", "60", "--jwt-key", key, *CLAIMS, "--jwt-header", "X-JWT", "-s", script],
                 sources.url_of(ng.port))
        reqs = ng.requests()
    expect(all(q[4] == ("Bearer stale" if q[1].startswith("/p/") else "-") for q in reqs), f"Authorization {reqs[:3]}")
    verify_all([q[3] for q in reqs], "ES256", verify_key)


def case_no_jwt(t):
    """Without --jwt-key the record's jwt is null and no Authorization is sent."""
    with Recorder(t.workdir, "none") as ng:
        r = t.ok_run(["-c", "1", "-n", "5"], sources.url_of(ng.port))
        reqs = ng.requests()
    expect_eq(r, "jwt", None)
    expect(all(q[4] == "-" for q in reqs), "an Authorization header was sent")


def case_bad_keys(t):
    """A bad key file, an unsupported key, a key/alg mismatch: exit 2 with the reason, nothing sent."""
    ec, rsa, hs = t.keys["ES256"][0], t.keys["RS256"][0], t.keys["HS256"][0]
    garbage = t.write("garbage.pem", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
    cases = [([garbage], "not a PEM private key"),
             ([os.path.join(t.workdir, "absent.pem")], "absent.pem"),
             ([os.path.join(t.workdir, "p384.pem")], "ES256 needs P-256"),
             ([ec.replace("ec.pem", "ec.pub")], "not a PEM private key"),
             ([rsa, "--jwt-alg", "ES256"], "does not sign --jwt-alg ES256"),
             ([ec, "--jwt-alg", "HS256"], "takes a file of secret bytes"),
             ([hs], "needs --jwt-alg HS256"),
             ([ec, "--jwt-alg", "PS256"], "bad --jwt-alg")]
    with Recorder(t.workdir, "bad keys") as ng:
        for args, want in cases:
            rc, _, err = t.run(["-c", "1", "-n", "5", "--jwt-key", *args], sources.url_of(ng.port))
            expect(rc == 2 and want in err, f"--jwt-key {' '.join(args)}: exit {rc}: {err.strip()} (want {want})")
        expect(ng.requests() == [], "a request was sent")


# Sanitized, each algorithm runs once (h1, closed loop) and ES256 in every combination: the
# signing code is per algorithm, the pool's and the sources' code the same for all three.
CASES = []
for alg in ("ES256", "RS256", "HS256"):
    for proto in ("h1", "h2"):
        for loop in ("closed loop", "fixed rate"):
            case = (f"--jwt-key {alg} {proto} {loop}: every token verifies, jti distinct, claims as given",
                    case_matrix(alg, proto, loop))
            if alg != "ES256" and (proto, loop) != ("h1", "closed loop"):
                case += (f"{alg}'s signing runs sanitized on h1 in closed loop, every protocol and loop with ES256",)
            CASES.append(case)
CASES += [("--jwt-header NAME with -H, -b, --rand-url on h1 and h2", case_header_sources),
          ("--jwt-header 'NAME: PREFIX' with --urls, HS256", case_urls_prefix),
          ("--jwt-exp 1s: no token sent within the margin of its exp", case_short_exp),
          ("--jwt-key with -s: a token in every request of the script's texts, h1 and h2", case_script),
          ("without --jwt-key: jwt null", case_no_jwt),
          ("bad keys are usage errors before the run", case_bad_keys)]


def main():
    def prepare(t, args):
        t.keys = make_keys(t.workdir)

    return harness.main("jwt", CASES, sources.SourceRunner, needs=("nginx", "openssl"), prepare=prepare)


if __name__ == "__main__":
    sys.exit(main())
