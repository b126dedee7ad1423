#!/usr/bin/env python3
"""barrage's checks on a run against nginx: --fail-on thresholds and the exit
status they set (5 when one breaks, 0 when all hold, 2 for a bad expression),
and --log's per-request CSV lines (every request with its status, a seeded
sample, whole lines after a SIGINT). nginx answers 200 "hello" on / and 503
on /bad; a --urls list of nine / and one /bad sent in order over one
connection makes exactly 10% 5xx. Prints TAP lines; exits 1 when a case failed.
  python3 tests/checks/run.py --barrage build/barrage [--sanitized] [--only NAME]"""
import collections
import csv
import importlib.util
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "h2"))
_spec = importlib.util.spec_from_file_location("sources_run", os.path.join(TESTS, "sources", "run.py"))
sources = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sources)
import harness  # noqa: E402
from harness import expect, expect_eq  # noqa: E402

EXIT_THRESHOLD = 5
LOG_FORMAT = "log_format rec '$request_uri $status';"


class Server(sources.h2run.Nginx):
    """nginx: 200 "hello" on /, 503 on /bad; logs `target status` per request."""

    def __init__(self, workdir, name, listen=""):
        log = os.path.join(workdir, f"nginx {name}", "access.log")
        super().__init__(workdir, name, listen,
                         f'access_log "{log}" rec;\n    location / {{ return 200 "hello"; }}\n'
                         f'    location /bad {{ return 503 "no"; }}', LOG_FORMAT)
        self.log = log

    def url(self):
        return f"http://127.0.0.1:{self.port}/"


class ChecksRunner(harness.Runner):
    def run(self, args, url, json=True, timeout=120):
        """(exit status, record or None, stdout, stderr); the record kept when barrage printed one."""
        command = [self.barrage, *(["--json"] if json else []), *args, url]
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        record = self.keep_record(p.stdout, p.stderr) if json and p.returncode in (0, EXIT_THRESHOLD) else None
        return p.returncode, record, p.stdout, p.stderr

    def write(self, name, text):
        path = os.path.join(self.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tenth_bad(self):
        """A --urls list: nine / and one /bad."""
        return self.write("tenth bad.txt", "/\n" * 9 + "/bad\n")


# ---- --fail-on ----

def case_fail_on_breaks(t):
    """10% 5xx against status.5xx>5%: exit 5, the record's fail_on says which broke and its value, stderr too;
    the threshold that held is said to hold."""
    with Server(t.workdir, "breaks") as ng:
        rc, r, _, err = t.run(["-c", "1", "-n", "100", "--urls", t.tenth_bad(),
                               "--fail-on", "status.5xx>5%,p99>10s", "--fail-on", "failed>=11"], ng.url())
    expect(rc == EXIT_THRESHOLD, f"exit {rc}, want {EXIT_THRESHOLD}: {err[-400:]}")
    expect_eq(r, "status.5xx", 10)
    fo = r["fail_on"]
    expect(fo["broken"] == 1 and len(fo["thresholds"]) == 3, f"fail_on {fo}")
    first, second, third = fo["thresholds"]
    expect(first == {"item": "status.5xx>5%", "figure": "status.5xx", "op": ">", "limit": 5, "unit": "percent",
                     "value": 10.0, "broken": True}, f"the broken one: {first}")
    expect(second["unit"] == "us" and second["limit"] == 10e6 and not second["broken"]
           and second["value"] == r["latency_us"]["p99"], f"p99>10s held: {second} (p99 {r['latency_us']['p99']})")
    expect(third["unit"] == "count" and third["value"] == 10 and not third["broken"], f"failed>=11 held: {third}")
    expect("--fail-on: threshold status.5xx>5% broken: status.5xx 10.000%" in err, f"stderr: {err[-400:]}")
    expect("p99>10s" not in err, f"a threshold that held is on stderr: {err[-400:]}")


def case_fail_on_holds(t):
    """The same run against thresholds it meets: exit 0, every threshold held, nothing on stderr."""
    with Server(t.workdir, "holds") as ng:
        rc, r, _, err = t.run(["-c", "1", "-n", "100", "--urls", t.tenth_bad(),
                               "--fail-on", "status.5xx>10%, failed>10 ,rps<1,p99>=10s,errors>0"], ng.url())
    expect(rc == 0, f"exit {rc}: {err[-400:]}")
    fo = r["fail_on"]
    expect(fo["broken"] == 0 and [x["broken"] for x in fo["thresholds"]] == [False] * 5, f"fail_on {fo}")
    expect(fo["thresholds"][0]["value"] == 10.0 and fo["thresholds"][1]["item"] == "failed>10", f"fail_on {fo}")
    expect("--fail-on" not in err, f"stderr: {err[-400:]}")


def case_fail_on_text(t):
    """The text report says which threshold broke and which held; exit 5 (and with -q, stderr says it)."""
    with Server(t.workdir, "text") as ng:
        rc, _, out, err = t.run(["-c", "1", "-n", "50", "--urls", t.tenth_bad(),
                                 "--fail-on", "status.5xx>=10%,rps<1"], ng.url(), json=False)
        rcq, _, outq, errq = t.run(["-q", "-c", "1", "-n", "50", "--urls", t.tenth_bad(),
                                    "--fail-on", "status.5xx>=10%"], ng.url(), json=False)
    expect(rc == EXIT_THRESHOLD and rcq == EXIT_THRESHOLD, f"exit {rc} and {rcq} (-q): {err[-300:]} {errq[-300:]}")
    expect("Thresholds (--fail-on): 1 of 2 BROKEN (exit 5)" in out, f"report: {out[-600:]}")
    expect("BROKEN status.5xx>=10%: status.5xx 10.000%" in out, f"report: {out[-600:]}")
    expect("held   rps<1: rps " in out, f"report: {out[-600:]}")
    expect(outq == "" and "threshold status.5xx>=10% broken" in errq, f"-q: stdout {outq!r}, stderr {errq[-300:]}")


def case_fail_on_absent(t):
    """Without --fail-on a run with 5xx exits 0 as before, fail_on null."""
    with Server(t.workdir, "absent") as ng:
        rc, r, _, err = t.run(["-c", "1", "-n", "20", "--urls", t.tenth_bad()], ng.url())
    expect(rc == 0 and r["fail_on"] is None and r["status"]["5xx"] == 2, f"exit {rc}, fail_on {r and r['fail_on']}")


def case_fail_on_unmeasured(t):
    """A figure the run did not measure (error latency with no error) cannot hold: exit 5, value null."""
    with Server(t.workdir, "unmeasured") as ng:
        rc, r, _, err = t.run(["-c", "1", "-n", "20", "--fail-on", "error_latency.p99>1s"], ng.url())
    expect(rc == EXIT_THRESHOLD, f"exit {rc}: {err[-300:]}")
    th = r["fail_on"]["thresholds"][0]
    expect(th["value"] is None and th["broken"], f"{th}")
    expect("error_latency.p99 not measured" in err, f"stderr: {err[-300:]}")


def case_fail_on_usage(t):
    """A bad expression is a usage error before anything is sent, saying what is allowed; a fixed-rate
    figure needs -R. Nothing listens on the URL: exit 2, not 3, shows the expression was judged first."""
    url = f"http://127.0.0.1:{harness.free_port()}/"
    for expr, want in (("bogus>1", "unknown figure 'bogus'"), ("p99>20", "a duration needs its unit"),
                       ("failed>1,", "an empty item"), ("rps<10%", "a rate is N or N/s"),
                       ("schedule_lag.p99>1ms", "measured at a fixed rate only"),
                       ("connections.handshakes_full>5", "measured over TLS only (https://)")):
        rc, _, out, err = t.run(["-n", "10", "--fail-on", expr], url)
        expect(rc == 2 and want in err and out == "", f"--fail-on '{expr}': exit {rc}, stderr {err[-300:]}")
        if "fixed rate" not in want and "TLS" not in want:
            expect("e.g. failed>0.1%,p99>20ms,rps<1000" in err and "errors.timeout" in err and "ttfb" in err,
                   f"--fail-on '{expr}': what is allowed is not said: {err[-600:]}")
    rc, _, _, err = t.run(["-R", "100", "-n", "10", "--fail-on", "schedule_lag.p99>1ms"], url)
    expect(rc == 3, f"with -R the fixed-rate figure is accepted (then unreachable, exit 3): exit {rc} {err[-200:]}")
    rc, _, _, err = t.run(["-n", "10", "--fail-on", "connections.handshakes_resumed<1"], url.replace("http:", "https:"))
    expect(rc == 3, f"over https the TLS figure is accepted (then unreachable, exit 3): exit {rc} {err[-200:]}")


# ---- --log ----

LOG_HEADER = "start_unix_us,thread,connection,step,status,error,latency_us,body_bytes,user,iteration"


def read_log(path):
    """The log's rows as dicts; the file must end with a newline and every line have the header's fields."""
    with open(path, newline="") as f:
        text = f.read()
    expect(text.endswith("\n"), f"the log does not end with a newline: {text[-80:]!r}")
    lines = text.split("\n")[:-1]
    expect(lines and lines[0] == LOG_HEADER, f"header {lines[:1]}")
    rows = list(csv.DictReader(lines))
    bad = [r for r in rows if None in r or None in r.values()]
    expect(not bad, f"{len(bad)} lines without the 10 fields, e.g. {bad[:2]}")
    return rows


def check_rows(rows, record, before_us, after_us):
    """The rows hold the record's requests: one each, their statuses the record's codes, times in the run."""
    expect(len(rows) == record["requests"], f"{len(rows)} lines, the record has {record['requests']} requests")
    codes = collections.Counter(r["status"] for r in rows if r["status"] and r["error"] != "unexpected")
    want = {k: v for k, v in record["status"]["codes"].items()}
    expect(dict(codes) == want, f"statuses in the log {dict(codes)}, in the record {want}")
    errors = collections.Counter(r["error"] for r in rows if r["error"] and r["error"] != "unexpected")
    expect(sum(r["error"] == "unexpected" for r in rows) == record["unexpected"], "unexpected lines")
    expect(dict(errors) == {k: v for k, v in record["errors"].items() if v}, f"errors {dict(errors)}")
    expect(all((r["status"] == "") != (r["error"] in ("", "unexpected")) for r in rows),
           "a line with both (but unexpected) or neither status and error")
    starts = [int(r["start_unix_us"]) for r in rows]
    expect(before_us <= min(starts) and max(starts) <= after_us, f"start times {min(starts)}..{max(starts)} outside "
           f"the run {before_us}..{after_us}")
    expect(all(int(r["latency_us"]) >= 0 for r in rows), "a negative latency")


def case_log_every_request(t):
    """--log with every request: a line per request of the record (2 threads, 4 connections), statuses and
    steps as sent (GET / and GET /bad in the list's proportions, a body of 5 bytes for "hello"), over HTTP/1.1
    and HTTP/2 (the step from the request's text, then from its header fields)."""
    for listen, flags in (("", []), ("http2", ["--h2"])):
        log = os.path.join(t.workdir, f"every {listen}.csv")
        with Server(t.workdir, f"every {listen}", listen) as ng:
            before = time.time_ns() // 1000
            rc, r, _, err = t.run(["-t", "2", "-c", "4", "-n", "1000", "--urls", t.tenth_bad(), "--log", log, *flags],
                                  ng.url())
            after = time.time_ns() // 1000
        expect(rc == 0, f"{flags}: exit {rc}: {err[-300:]}")
        rows = read_log(log)
        check_rows(rows, r, before, after)
        steps = collections.Counter(row["step"] for row in rows)
        expect(steps == {"GET /": 900, "GET /bad": 100}, f"{flags}: steps {steps}")
        expect({row["thread"] for row in rows} == {"0", "1"} and
               {row["connection"] for row in rows} == {"0", "1"}, f"{flags}: threads and connections "
               f"{collections.Counter((row['thread'], row['connection']) for row in rows)}")
        expect(all(row["body_bytes"] == ("5" if row["status"] == "200" else row["body_bytes"]) for row in rows),
               f"{flags}: body bytes of 200s: {collections.Counter(row['body_bytes'] for row in rows)}")


def case_log_sample(t):
    """--log-sample 0.2 --seed 7: about a fifth of 10,000 requests (within 5 sigma), the same seed the same
    requests (the list's targets in the same order), another seed others."""
    lst = t.write("ten.txt", "".join(f"/n{i}\n" for i in range(10)))
    runs = []
    with Server(t.workdir, "sample") as ng:
        for seed in ("7", "7", "8"):
            log = os.path.join(t.workdir, f"sample {len(runs)}.csv")
            rc, r, _, err = t.run(["-c", "1", "-n", "10000", "--urls", lst, "--log", log, "--log-sample", "0.2",
                                   "--seed", seed], ng.url())
            expect(rc == 0 and r["requests"] == 10000, f"exit {rc}: {err[-300:]}")
            runs.append([row["step"] for row in read_log(log)])
    n = len(runs[0])
    sigma = math.sqrt(10000 * 0.2 * 0.8)
    print(f"# --log-sample 0.2 of 10000 requests: {n}, {len(runs[1])}, {len(runs[2])} lines")
    expect(abs(n - 2000) < 5 * sigma, f"{n} lines of 10000 at 0.2")
    expect(runs[0] == runs[1], "the same seed logged other requests")
    expect(runs[0] != runs[2], "another seed logged the same requests")
    # the sequence of steps tells which requests were drawn: each /nI about as often
    counts = collections.Counter(runs[0])
    expect(len(counts) == 10 and all(abs(c - n / 10) < 5 * math.sqrt(n * 0.1 * 0.9) for c in counts.values()),
           f"steps drawn {counts}")


def case_log_sigint(t):
    """A SIGINT in the middle of a run: exit 130, the record of the window so far, and the log whole: every line
    complete, one per request of the record."""
    log = os.path.join(t.workdir, "sigint.csv")
    with Server(t.workdir, "sigint") as ng:
        before = time.time_ns() // 1000
        p = subprocess.Popen([t.barrage, "--json", "-t", "2", "-c", "8", "-d", "30s", "--log", log, ng.url()],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # the signal in the middle of the run: once its first second's lines are written (however
        # slowly the loaded machine starts it), and half a second more
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and p.poll() is None and \
                (not os.path.exists(log) or os.path.getsize(log) <= len(LOG_HEADER) + 1):
            time.sleep(0.05)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        after = time.time_ns() // 1000
    expect(p.returncode == 128 + signal.SIGINT, f"exit {p.returncode}: {err[-300:]}")
    r = t.keep_record(out, err)
    expect(r["interrupted"] == "SIGINT" and r["requests"] > 100, f"interrupted {r['interrupted']}, {r['requests']}")
    check_rows(read_log(log), r, before, after)


def case_log_usage(t):
    """Bad --log and --log-sample values are usage errors (exit 2) saying why."""
    url = f"http://127.0.0.1:{harness.free_port()}/"
    log = os.path.join(t.workdir, "usage.csv")
    for args, want in ((["--log", log, "--log-sample", "0"], "bad --log-sample '0'"),
                       (["--log", log, "--log-sample", "1.5"], "more than 0 and at most 1"),
                       (["--log", log, "--log-sample", "x"], "bad --log-sample 'x'"),
                       (["--log-sample", "0.5"], "--log-sample needs --log"),
                       (["--log", ""], "bad --log ''")):
        rc, _, out, err = t.run(["-n", "10", *args], url)
        expect(rc == 2 and want in err, f"{args}: exit {rc}, stderr {err[-300:]}")
    with Server(t.workdir, "usage") as ng:
        bad = os.path.join(t.workdir, "no such folder", "log.csv")
        rc, _, out, err = t.run(["-n", "10", "--log", bad], ng.url())
    expect(rc == 2 and f"--log {bad}: No such file or directory" in err, f"exit {rc}: {err[-300:]}")


def case_log_reader_gone(t):
    """--log to a FIFO whose reader leaves after the first bytes: the log stops, the run does not (no SIGPIPE):
    the whole window measured, exit 1 saying how many lines were lost."""
    fifo = os.path.join(t.workdir, "log fifo")
    os.mkfifo(fifo)
    with Server(t.workdir, "reader gone") as ng:
        # the reader is open before barrage starts (its non-blocking open needs one); it takes the
        # first bytes barrage writes (the header line) and leaves
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        p = subprocess.Popen([t.barrage, "-c", "2", "-d", "2s", "--log", fifo, ng.url()],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got, deadline = b"", time.monotonic() + 20
        while not got and time.monotonic() < deadline and p.poll() is None:
            try:
                got = os.read(reader, 100)
            except BlockingIOError:
                time.sleep(0.01)
        os.close(reader)
        out, err = p.communicate(timeout=60)
        rc = p.returncode
    expect(got.startswith(b"start_unix_us,"), f"the reader got {got!r}")
    expect(rc == 1, f"exit {rc} (141: killed by SIGPIPE): {err[-300:]}")
    expect("could not be written whole" in err and "lines lost" in err, f"stderr: {err[-300:]}")
    expect("requests in 2.00s" in out, f"no report of the whole window: {out[-300:]}")


CASES = [
    ("--fail-on breaks: exit 5, which one in the record and on stderr", case_fail_on_breaks),
    ("--fail-on holds: exit 0", case_fail_on_holds),
    ("--fail-on in the text report and with -q", case_fail_on_text),
    ("no --fail-on: exit 0 whatever the responses", case_fail_on_absent),
    ("--fail-on on a figure not measured breaks", case_fail_on_unmeasured),
    ("--fail-on bad expressions: exit 2 saying what is allowed", case_fail_on_usage),
    ("--log: every request, its status and step, h1 and h2", case_log_every_request),
    ("--log-sample: the share drawn, seeded", case_log_sample),
    ("--log after a SIGINT: whole lines, one per request", case_log_sigint),
    ("--log, --log-sample: bad values exit 2", case_log_usage),
    ("--log to a FIFO whose reader left: the run goes on, exit 1 with the lines lost", case_log_reader_gone),
]


if __name__ == "__main__":
    sys.exit(harness.main("checks", CASES, ChecksRunner, needs=("nginx",)))
