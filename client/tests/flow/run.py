#!/usr/bin/env python3
"""barrage --flow integration tests against the fixture API (api.py), which
checks each chain's order itself: POST creates an item (Location and a JSON
id), then GET, PATCH and DELETE of that item, in that order, with the user's
header and the iteration's number in the bodies. Over HTTP/1.1 and h2c
(tcpserver.py, `h2` from PyPI in REPO/.cache/h2venv) and HTTP/3 (h3server.py,
aioquic in REPO/.cache/h3venv, as tests/h2 and tests/h3 install them).
Prints TAP lines; exits 1 when a case failed.

  python3 tests/flow/run.py --barrage build/barrage [--sanitized] [--only NAME]"""
import csv
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import Failure, Skip, expect  # noqa: E402

NAMES = ["ann", "bob", "cid"]


def same(got, want, what):
    expect(got == want, f"{what}: {got!r}, want {want!r}")

CHAIN = """# create, read, change, delete one item
POST /items
  Content-Type: application/json
  X-User: ${user}
  body {"user": ${user}, "seq": ${seq}, "name": "${csv:users.csv:name}"}
  expect 201
  capture item = header:Location
  capture id = json:/id
  step create
GET ${item}
  X-User: ${user}
  expect 200
  expect body ~ "id": *${id}, .*"user": ${user}[,}]
  step read
PATCH /items/${id}
  X-User: ${user}
  body {"seq": ${seq}}
  expect 2xx
  step change
DELETE /items/${id}
  X-User: ${user}
  expect 204
  step delete
"""
STEPS = ["create", "read", "change", "delete"]
METHOD = {"create": "POST", "read": "GET", "change": "PATCH", "delete": "DELETE"}


class Server:
    """The fixture API (tcpserver.py, or h3server.py with h3=True) with api.Api's parameters; its
    counts in .stats once stopped (SIGTERM makes it write them)."""

    def __init__(self, t, h3=False, **params):
        self.dir = tempfile.mkdtemp(prefix="api server.", dir=t.workdir)
        self.port_file, self.stats_file = os.path.join(self.dir, "port"), os.path.join(self.dir, "stats")
        args = [f"{k}={v}" for k, v in {"names": ",".join(NAMES), **params}.items()]
        if h3:
            cert, key = os.path.join(t.workdir, "server.pem"), os.path.join(t.workdir, "server.key")
            cmd = [t.h3_python, os.path.join(HERE, "h3server.py"), cert, key, self.port_file, self.stats_file]
        else:
            cmd = [t.h2_python, os.path.join(HERE, "tcpserver.py"), self.port_file, self.stats_file]
        self.err = open(os.path.join(self.dir, "err"), "w")
        self.proc = subprocess.Popen(cmd + args, stdout=subprocess.DEVNULL, stderr=self.err)
        self.stats = None

    def __enter__(self):
        deadline = time.monotonic() + 20
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"the API server did not start: {open(os.path.join(self.dir, 'err')).read()[-400:]}")
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())
        return self

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.stats is None and os.path.exists(self.stats_file):
            self.stats = json.load(open(self.stats_file))
        return self.stats

    def __exit__(self, *exc):
        self.stop()
        self.err.close()


class Runner(harness.Runner):
    prefix = "barrage flow"

    def flow_file(self, text, name="chain.flow"):
        with open(os.path.join(self.workdir, "users.csv"), "w") as f:
            f.write("name,role\n" + "".join(f"{n},r\n" for n in NAMES))
        path = os.path.join(self.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run(self, *args, timeout=60):
        p = subprocess.run([self.barrage, *args], capture_output=True, text=True, timeout=timeout,
                           **harness.memory_bounded(self.sanitized))
        return p

    def record(self, *args):
        p = self.run("--json", *args)
        if p.returncode != 0:
            raise Failure(f"barrage {' '.join(args)}: exit {p.returncode}: {p.stderr[-500:]}")
        return self.keep_record(p.stdout, p.stderr)


def check_chains(r, stats, users, unexpected_read=None):
    """What the server saw against the record: no chain out of order, each step's requests as many as the
    server answered of its method, started = requests + aborted, unexpected = the server's 500s."""
    same(stats["violations"], 0, f"order violations ({stats['examples']})")
    same(r["started"], r["requests"] + r["aborted"], "started = requests + aborted")
    kinds = r["kinds"]
    same(list(kinds), STEPS, "the steps, in order, by name")
    for step in STEPS:
        served = stats["counts"][METHOD[step]]
        # a request aborted at the end may have reached the server: at most `aborted` more there
        expect(kinds[step]["requests"] <= served <= kinds[step]["requests"] + r["aborted"],
               f"{step}: {kinds[step]['requests']} in the record, {served} served, {r['aborted']} aborted")
    same(sum(k["requests"] for k in kinds.values()), r["requests"], "the steps add up to the requests")
    fails = stats["answers"].get("GET 500", 0)
    expect(r["unexpected"] <= fails <= r["unexpected"] + r["aborted"], f"unexpected {r['unexpected']}, served 500s {fails}")
    same(kinds["read"]["unexpected"], r["unexpected"], "every unexpected response is a read")
    same(r["status"]["5xx"], 0, "an unexpected 500 is in no status class")
    same(r["failed"], r["unexpected"], "nothing else failed")
    if unexpected_read is not None:
        expect(r["unexpected"] > 0 and r["unexpected_examples"][0] == {"status": 500, "step": "read", "body": "boom"},
               f"examples: {r.get('unexpected_examples')}")
    completed = r["flow"]["completed"]
    expect(completed > 0 and completed <= stats["answers"].get("DELETE 204", 0) <= completed + r["aborted"],
           f"completed {completed}, deleted {stats['answers'].get('DELETE 204')}")
    same(r["flow"]["users"], users, "users")
    abandoned = r["flow"]["capture_failed"]  # created, then left when a capture found nothing
    expect(sum(stats["left"].values()) - abandoned <= users, f"items left {stats['left']}: at most one per user")


def run_chain(t, proto_args, users, h3=False):
    flow = t.flow_file(CHAIN)
    with Server(t, h3=h3, fail_get=7) as srv:
        scheme = "https" if h3 else "http"
        r = t.record("--flow", flow, "--users", str(users), "-n", "1200", *proto_args,
                     f"{scheme}://127.0.0.1:{srv.port}/")
        stats = srv.stop()
    same(r["aborted"], 0, "-n: nothing aborted")
    check_chains(r, stats, users, unexpected_read=True)
    for step in STEPS:  # -n: every request the server answered is in the record
        same(r["kinds"][step]["requests"], stats["counts"][METHOD[step]], f"{step} exact")
    return r


def case_h1(t):
    r = run_chain(t, ["-c", "4"], users=10)
    same(r["protocol"], "http/1.1", "protocol")


def case_h2(t):
    r = run_chain(t, ["--h2", "-c", "2", "-m", "8"], users=24)
    same(r["protocol"], "h2c", "protocol")


def case_h3(t):
    if not t.has_h3:
        raise Skip("barrage built without HTTP/3")
    r = run_chain(t, ["--h3", "--cacert", os.path.join(t.workdir, "ca.pem"), "-c", "2", "-m", "4"], users=12, h3=True)
    same(r["protocol"], "h3", "protocol")


def case_default_users_threads(t):
    flow = t.flow_file(CHAIN)
    with Server(t, fail_get=5) as srv:
        r = t.record("--flow", flow, "-t", "2", "-c", "4", "-m", "2", "--h2", "-n", "800", f"http://127.0.0.1:{srv.port}/")
        stats = srv.stop()
    check_chains(r, stats, users=8, unexpected_read=True)  # the threads' counts and examples merged
    same(len(r["unexpected_examples"]), 3, "the first three examples")


def case_missing_capture(t):
    flow = t.flow_file(CHAIN)
    with Server(t, drop_location=5) as srv:
        r = t.record("--flow", flow, "-c", "3", "--users", "6", "-n", "900", f"http://127.0.0.1:{srv.port}/")
        stats = srv.stop()
    check_chains(r, stats, users=6)
    dropped = stats["created"] // 5
    same(r["flow"]["capture_failed"], dropped, "a capture that found nothing per POST without Location")
    expect(stats["left"].get("created", 0) >= dropped, f"the abandoned items stay created: {stats['left']}")
    same(r["flow"]["broken"], 0, "no error")


def case_fixed_rate(t):
    flow = t.flow_file(CHAIN)
    with Server(t, fail_get=7) as srv:
        r = t.record("--flow", flow, "-c", "2", "--users", "8", "-R", "400", "-d", "2", f"http://127.0.0.1:{srv.port}/")
        stats = srv.stop()
    check_chains(r, stats, users=8)
    rate = r["rate"]
    # the schedule is of requests (every step of every user): 400/s for 2 s, however many chains that is
    expect(rate["scheduled"] == 800 and rate["sent"] == r["started"] and rate["sent"] + rate["unsent"] == 800,
           f"-R 400 -d 2: {rate}")


def case_think(t):
    # 2 users thinking 100 ms after each answer: at most 2 x (1 s / 100 ms + 1) requests in 1 s
    flow = t.flow_file("GET /items/0\n  think 100ms\n  expect 409\n", "think.flow")
    with Server(t) as srv:
        r = t.record("--flow", flow, "-c", "2", "--users", "2", "-d", "1", f"http://127.0.0.1:{srv.port}/")
    expect(2 <= r["requests"] <= 22, f"{r['requests']} requests in 1 s with 100 ms think times")
    same(r["unexpected"], 0, "an expected 409 is not unexpected")
    same(r["status"]["4xx"], r["requests"], "... and is counted by its status")


def case_expect_status_plain(t):
    with Server(t) as srv:
        r = t.record("--expect-status", "2xx", "-c", "2", "-n", "40", f"http://127.0.0.1:{srv.port}/nope")
    same(r["unexpected"], 40, "--expect-status 2xx: every 409 unexpected")
    same(r["succeeded"] + r["status"]["4xx"], 0, "counted once: not a success, in no class")
    same(r["unexpected_examples"][0], {"status": 409, "step": None, "body": "GET /nope: no such route"}, "example")


def case_fail_on_unexpected(t):
    """--fail-on takes the unexpected figure: a step answering 500 now and then breaks unexpected>0 (exit 5,
    the item named), and a limit above what happened holds (exit 0)."""
    flow = t.flow_file(CHAIN)
    with Server(t, fail_get=7) as srv:
        url = f"http://127.0.0.1:{srv.port}/"
        broke = t.run("--json", "--flow", flow, "--users", "10", "-c", "4", "-n", "600", "--fail-on", "unexpected>0", url)
        held = t.run("--json", "--flow", flow, "--users", "10", "-c", "4", "-n", "600", "--fail-on", "unexpected>50%", url)
        srv.stop()
    same(broke.returncode, 5, f"unexpected>0 broken: exit 5 ({broke.stderr[-300:]})")
    r = json.loads(broke.stdout)
    expect(r["unexpected"] > 0 and "unexpected>0" in broke.stderr, f"the item named: {broke.stderr[-300:]}")
    same(held.returncode, 0, f"unexpected>50% holds: exit 0 ({held.stderr[-300:]})")


def case_fail_on_flow_and_steps(t):
    """A capture that never matches (no POST has a Location) fails every iteration: flow.capture_failed>0
    breaks (exit 5) where failed>0 holds (every answer was a 201); a step's figures gate by its name
    (read.failed>0 with the 500s of fail_get; create.p95 and read.requests hold)."""
    flow = t.flow_file(CHAIN)
    with Server(t, drop_location=1) as srv:
        p = t.run("--json", "--flow", flow, "--users", "4", "-c", "2", "-n", "200",
                  "--fail-on", "failed>0,flow.capture_failed>0,flow.failed>=100%", f"http://127.0.0.1:{srv.port}/")
    same(p.returncode, 5, f"capture failures gated: exit 5 ({p.stderr[-300:]})")
    r = json.loads(p.stdout)
    verdicts = {v["item"]: v for v in r["fail_on"]["thresholds"]}
    expect(r["failed"] == 0 and not verdicts["failed>0"]["broken"], f"failed>0 holds: {verdicts['failed>0']}")
    expect(verdicts["flow.capture_failed>0"]["broken"] and verdicts["flow.capture_failed>0"]["value"] == 200,
           f"every POST's capture failed: {verdicts['flow.capture_failed>0']}")
    expect(verdicts["flow.failed>=100%"]["value"] == 100, f"flow.failed in %: {verdicts['flow.failed>=100%']}")
    with Server(t, drop_location=1) as srv:
        p = t.run("--flow", flow, "--users", "4", "-c", "2", "-n", "20", f"http://127.0.0.1:{srv.port}/")
    line = [line for line in p.stdout.splitlines() if line.startswith("  Flow:")]
    want = "  Flow: 4 users; iterations 20: completed 0, FAILED 20 (a capture that found nothing 20, a request error 0)"
    same(line, [want], "the report's Flow line says the iterations failed")
    with Server(t, fail_get=5) as srv:
        p = t.run("--json", "--flow", flow, "--users", "4", "-c", "2", "-n", "400",
                  "--fail-on", "read.failed>0,read.requests<1,create.p95>60s", f"http://127.0.0.1:{srv.port}/")
    same(p.returncode, 5, f"read.failed>0 broken: exit 5 ({p.stderr[-300:]})")
    r = json.loads(p.stdout)
    got = [(v["item"], v["broken"]) for v in r["fail_on"]["thresholds"]]
    same(got, [("read.failed>0", True), ("read.requests<1", False), ("create.p95>60s", False)], "verdicts")
    expect(r["fail_on"]["thresholds"][0]["value"] == r["kinds"]["read"]["failed"] > 0, "read.failed is the step's")


def case_text_unexpected_classes(t):
    """The text report of a flow whose server answered 500s: the Status line shows them by class and code
    as unexpected (never "5xx 0" alone), as many as the step's unexpected count."""
    flow = t.flow_file(CHAIN)
    with Server(t, fail_get=5) as srv:
        p = t.run("--flow", flow, "--users", "4", "-c", "2", "-n", "200", f"http://127.0.0.1:{srv.port}/")
    status = [line for line in p.stdout.splitlines() if line.startswith("  Status:")]
    read = [line for line in p.stdout.splitlines() if line.startswith("  Step read:")]
    expect(p.returncode == 0 and len(status) == 1 and len(read) == 1, f"exit {p.returncode}: {p.stdout[-600:]}")
    n = int(read[0].split("(unexpected ")[1].split(")")[0])
    want = f"; unexpected (failed a check, in no class above): 2xx 0, 3xx 0, 4xx 0, 5xx {n}; codes: 500={n}"
    expect(n > 0 and status[0].endswith(want), f"{status[0]!r}, want it to end {want!r}")


def case_log_users(t):
    """--log in a flow: each line names its step, user and iteration; a user's steps run in the chain's
    order within an iteration; a response that failed a check has its status and the error 'unexpected',
    as many lines as the record's unexpected."""
    flow = t.flow_file(CHAIN)
    log = os.path.join(t.workdir, "flow log.csv")
    with Server(t, fail_get=5) as srv:
        r = t.record("--flow", flow, "--users", "4", "-c", "2", "-n", "200", "--log", log, f"http://127.0.0.1:{srv.port}/")
    with open(log, newline="") as f:
        rows = list(csv.DictReader(f))
    same(len(rows), r["requests"], "a line per request")
    expect(all(row["user"] in ("1", "2", "3", "4") and row["iteration"].isdigit() for row in rows),
           f"users and iterations: {rows[:2]}")
    unexpected = [row for row in rows if row["error"] == "unexpected"]
    expect(len(unexpected) == r["unexpected"] > 0 and all(row["status"] == "500" and row["step"] == "read"
                                                          for row in unexpected), f"unexpected lines {unexpected[:2]}")
    chains = {}
    for row in sorted(rows, key=lambda row: int(row["start_unix_us"])):
        chains.setdefault((row["user"], row["iteration"]), []).append(row["step"])
    bad = [c for c in chains.values() if c != STEPS[:len(c)]]
    expect(not bad, f"iterations out of the chain's order: {bad[:3]}")
    for user in ("1", "2", "3", "4"):  # ${seq}'s numbers: from 0, one after the other
        seen = sorted(int(i) for u, i in chains if u == user)
        same(seen, list(range(len(seen))), f"user {user}'s iterations")


def case_queueing(t):
    """--users 20 -c 2 over HTTP/1.1: ten users queue on each connection. Each request waits for about nine
    others (the record's flow.wait_us, above the requests' own latency, which runs from the send), an
    iteration holds its three waits and steps, and --fail-on names both (flow.wait.p99>0us breaks)."""
    flow = t.flow_file("GET /items/0\n  expect 409\n  step a\nGET /items/0\n  expect 409\n  step b\n"
                       "GET /items/0\n  expect 409\n  step c\n", "three.flow")
    with Server(t) as srv:
        p = t.run("--json", "--flow", flow, "--users", "20", "-c", "2", "-n", "600",
                  "--fail-on", "flow.wait.p99>0us,flow.iteration.max>3600s", f"http://127.0.0.1:{srv.port}/")
    same(p.returncode, 5, f"flow.wait.p99>0us broken: exit 5 ({p.stderr[-300:]})")
    r = json.loads(p.stdout)
    wait, iteration, latency = r["flow"]["wait_us"], r["flow"]["iteration_us"], r["latency_us"]
    expect(wait and iteration and wait["p50"] > latency["p50"], f"wait {wait}, latency {latency}")
    expect(iteration["min"] >= latency["min"] * 3, f"an iteration holds its three steps: {iteration}")
    same([v["broken"] for v in r["fail_on"]["thresholds"]], [True, False], "verdicts")
    with Server(t) as srv:
        r = t.record("--flow", flow, "--users", "2", "-c", "2", "-n", "2", f"http://127.0.0.1:{srv.port}/")
    expect(r["flow"]["wait_us"] is None and r["flow"]["iteration_us"] is None,
           f"a user's first request has no wait; no iteration completed: {r['flow']}")


def case_jwt(t):
    flow = t.flow_file(CHAIN)
    key = os.path.join(t.workdir, "secret")
    with open(key, "wb") as f:
        f.write(b"flow test secret")
    with Server(t, jwt=1) as srv:
        r = t.record("--flow", flow, "--jwt-key", key, "--jwt-alg", "HS256",
                     "--h2", "-c", "2", "-m", "4", "-n", "400", f"http://127.0.0.1:{srv.port}/")
        stats = srv.stop()
    check_chains(r, stats, users=8)
    same(stats["tokens"], r["requests"], "a token of its own in every request")


def case_seed(t):
    # the 409s' bodies name the item asked for: the first three, drawn by ${rand}, are the examples
    flow = t.flow_file("GET /items/${rand:1-1000000000}\n  expect 200\n", "rand.flow")
    with Server(t) as srv:
        draws = []
        for seed in ("7", "7", "8"):
            r = t.record("--flow", flow, "--seed", seed, "-c", "1", "-n", "3", f"http://127.0.0.1:{srv.port}/")
            draws.append([e["body"] for e in r["unexpected_examples"]])
    expect(len(draws[0]) == 3 and draws[0] == draws[1] != draws[2], f"--seed 7, 7, 8 drew {draws}")


def case_usage(t):
    flow = t.flow_file("GET /a\n  expect 2yx\n", "bad.flow")
    for args, why in [
        (["--flow", flow], "bad.flow:2: expect: '2yx'"),
        (["--users", "3"], "--users needs --flow"),
        (["--flow", t.flow_file(CHAIN), "-X", "POST"], "not with -X, -b or -B"),
        (["--flow", t.flow_file(CHAIN), "--users", "1", "-t", "2", "-c", "2"], "--users (1) must be at least --threads"),
        (["--expect-status", "200,"], "bad --expect-status"),
        (["--fail-on", "flow.capture_failed>0"], "flow.capture_failed is measured in a flow only (--flow)"),
        (["--fail-on", "read.p99>1ms"], "names a step 'read': steps are a flow's (--flow) or a script's kinds"),
        (["--flow", t.flow_file(CHAIN), "--fail-on", "raed.p99>1ms"],
         "the flow has no step 'raed' (name one with a 'step NAME' line); its steps: 'create', 'read', 'change', 'delete'"),
        (["--flow", "/dev/zero"], "not a regular file"),
    ]:
        p = t.run(*args, "http://127.0.0.1:9/")
        expect(p.returncode == 2 and why in p.stderr, f"{args}: exit {p.returncode}: {p.stderr!r}")


CASES = [
    ("HTTP/1.1: chains in order, captures, variables, 500s unexpected, counts exact", case_h1),
    ("h2c: 24 users on 2x8 streams, in order, exact", case_h2),
    ("HTTP/3: chains in order, exact", case_h3),
    ("default users (connections x -m) over 2 threads", case_default_users_threads),
    ("a capture that finds nothing ends the iteration, counted", case_missing_capture),
    ("-R 400: the rate counts requests; started = requests + aborted", case_fixed_rate),
    ("think times hold a user; an expected 409 is no unexpected", case_think),
    ("--expect-status on a plain run: unexpected, counted once", case_expect_status_plain),
    ("--fail-on unexpected>0: a step answering 500 now and then breaks it (exit 5); a higher limit holds", case_fail_on_unexpected),
    ("--fail-on flow.capture_failed and a step's figures (read.failed, create.p95)", case_fail_on_flow_and_steps),
    ("text report: unexpected 500s by class and code on the Status line", case_text_unexpected_classes),
    ("--log: step, user and iteration columns; unexpected answers in the error column", case_log_users),
    ("--users 20 -c 2: the users' wait for a connection and the iterations' time, gated", case_queueing),
    ("--jwt-key: a token of its own in every step's request", case_jwt),
    ("--seed: the same seed draws the same ${rand}", case_seed),
    ("usage errors: FILE:LINE, --users, -X, --expect-status, a device", case_usage),
]


def suite(name):
    """tests/NAME/run.py as a module (its venv and certificate helpers)."""
    spec = importlib.util.spec_from_file_location(f"{name}_run", os.path.join(os.path.dirname(HERE), name, "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ensure_venvs(t):
    """h2 for tcpserver.py (as tests/h2 installs it); with HTTP/3 built in, aioquic and certificates (as tests/h3)."""
    h2 = suite("h2")
    h2.ensure_venv()
    t.h2_python = os.path.join(h2.VENV, "bin", "python")
    version = subprocess.run([t.barrage, "--version"], capture_output=True, text=True).stdout
    t.has_h3 = "h3 (ngtcp2" in version
    if t.has_h3:
        h3 = suite("h3")
        t.h3_python = h3.ensure_venv()
        h3.make_certs(t.workdir)


def main():
    return harness.main("flow", CASES, Runner, prepare=lambda t, args: ensure_venvs(t))


if __name__ == "__main__":
    sys.exit(main())
