#!/usr/bin/env python3
"""barrage at a fixed rate (-R, issue 11), "Truth, measured": the built barrage
against nginx, the test servers (tests/server.py, tests/h2/h2server.py) and a
server with a known delay (delay_server.c). Checks barrage's own arithmetic:
the schedule's counts (exact), latency from the schedule through a server stall
(against its analytic values), a known delay, requests waiting for HTTP/2
stream slots, --control, the timeline, the HdrHistogram interval log and the
whole-run histograms read by HdrHistogram's own Python package, and
tools/merge-records. Every record is checked by harness.check_identities (the
timeline adds up to the totals; scheduled = sent + unsent) and the schemas.
Prints TAP lines; figures (schedule lag) as TAP comments; exits 1 when a case failed.

  python3 tests/rate/run.py --barrage build/barrage --delay-server build/rate_delay_server
                            [--sanitized] [--only NAME]

Rates are ones a loaded 2-core machine carries; nothing asserts a duration
except what the issue asks (BARRAGE_TIMING=1 also asserts the schedule lag
goal: p99 under 100 us at 10,000 requests/s, which a shared VM does not meet).
The `hdrhistogram` package is installed into REPO/.cache/hdrvenv on first use
(as tests/hdr/check.py does); the h2 fault server's `h2` into .cache/h2venv."""
import importlib.machinery
import importlib.util
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import REPO, Failure, expect, expect_eq  # noqa: E402
from server import TestServer  # noqa: E402

_spec = importlib.util.spec_from_file_location("h2run", os.path.join(TESTS, "h2", "run.py"))
h2run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h2run)

HDR_VENV = os.path.join(REPO, ".cache", "hdrvenv")
HDR_PYTHON = os.path.join(HDR_VENV, "bin", "python")
HDR_REQUIREMENT = "hdrhistogram==0.10.8"  # as tests/hdr/check.py
MERGE = os.path.join(os.path.dirname(TESTS), "tools", "merge-records")
HELLO = 'location / { return 200 "hello\\n"; }'
KEEPALIVE = "keepalive_requests 100000000;"


def comment(text):
    print(f"# {text}", flush=True)


def ensure_hdr_venv():
    probe = [HDR_PYTHON, "-c", "import hdrh.log"]
    with harness.venv_lock(HDR_VENV):
        if os.path.exists(HDR_PYTHON) and subprocess.run(probe, capture_output=True).returncode == 0:
            return
        subprocess.run([sys.executable, "-m", "venv", HDR_VENV], check=True, capture_output=True)
        p = subprocess.run([HDR_PYTHON, "-m", "pip", "install", "-q", HDR_REQUIREMENT], capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"cannot install {HDR_REQUIREMENT}: {p.stderr.strip()[-300:]}")


def hdr_read(*args):
    """tests/rate/hdr_read.py under the hdrhistogram venv; its JSON."""
    ensure_hdr_venv()
    p = subprocess.run([HDR_PYTHON, os.path.join(HERE, "hdr_read.py"), *args], capture_output=True, text=True)
    expect(p.returncode == 0, f"hdr_read.py {args[0]}: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def lag_text(r):
    lag = r["schedule_lag_us"]
    return f"p50 {lag['p50']} us, p90 {lag['p90']} us, p99 {lag['p99']} us, max {lag['max']} us"


def near(value, want, tolerance, what):
    expect(abs(value - want) <= tolerance, f"{what} = {value}, want {want} +- {tolerance}")


class DelayServer:
    """delay_server.c answering after delay_us, on a free port; stopped by its pid."""

    def __init__(self, binary, delay_us):
        self.args = [binary, str(delay_us)]

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


class Runner(harness.Runner):
    prefix = "barrage rate"
    delay_server = None
    _certs = None

    def certs(self):
        """The test CA and certificates (tests/h2/run.py's), made once per run."""
        if self._certs is None:
            self._certs = h2run.Certs(self.workdir)
            self._certs.make()
        return self._certs

    def start(self, args, url, stderr_path=None):
        """barrage --json in the background; finish() reads its record."""
        err = open(stderr_path, "w") if stderr_path else subprocess.PIPE
        return subprocess.Popen([self.barrage, "--json", *args, url], stdout=subprocess.PIPE, stderr=err, text=True)

    def finish(self, proc, timeout=120):
        out, err = proc.communicate(timeout=timeout)
        expect(proc.returncode == 0, f"exit {proc.returncode}: {(err or '').strip()[-500:]}")
        return self.keep_record(out, err or "")

    def ok_run(self, args, url, timeout=120):
        return self.finish(self.start(args, url), timeout)


def url_of(port):
    return f"http://127.0.0.1:{port}/"


# ---- the cases ----

def case_rate_5000(t):
    """5,000/s for 5 s: 25,000 requests due in the window, exactly; requests within 1% of it."""
    with h2run.Nginx(t.workdir, "rate 5000", "", HELLO, KEEPALIVE) as ng:
        r = t.ok_run(["-R", "5000", "-d", "5s", "--warmup", "500ms", "-c", "20"], url_of(ng.port))
    comment(f"-R 5000 -d 5s: {r['requests']} requests, achieved {r['rate']['achieved']:.1f}/s, "
            f"backlog max {r['rate']['backlog_max']}, schedule lag {lag_text(r)}")
    expect_eq(r, "rate.scheduled", 25000)
    near(r["requests"], 25000, 250, "requests")
    expect_eq(r, "failed", 0)
    expect(r["latency_uncorrected_us"]["p50"] <= r["latency_us"]["p50"], "uncorrected above corrected")
    expect(len([e for e in r["timeline"] if not e["in_grace"]]) == 5, f"{len(r['timeline'])} timeline entries")
    expect(all(e["target_rate"] == 5000 for e in r["timeline"] if not e["in_grace"]), "target rate in the timeline")


def case_lag_10000(t):
    """10,000/s: the schedule lag is printed (the issue's goal: p99 under 100 us)."""
    with h2run.Nginx(t.workdir, "rate 10000", "", HELLO, KEEPALIVE) as ng:
        r = t.ok_run(["-R", "10000", "-d", "3s", "--warmup", "500ms", "-c", "20"], url_of(ng.port))
    comment(f"-R 10000 -d 3s: schedule lag {lag_text(r)}; {r['requests']} requests")
    expect_eq(r, "rate.scheduled", 30000)
    near(r["requests"], 30000, 300, "requests")
    if os.environ.get("BARRAGE_TIMING") == "1":
        expect(r["schedule_lag_us"]["p99"] < 100, f"schedule lag p99 {r['schedule_lag_us']['p99']} us >= 100 us")


def nginx_worker(ng):
    """The pid of nginx's (one) worker process: the one that serves connections."""
    with open(f"/proc/{ng.proc.pid}/task/{ng.proc.pid}/children") as f:
        children = [int(p) for p in f.read().split()]
    expect(len(children) == 1, f"nginx workers: {children}")
    return children[0]


def case_stall(t):
    """The server stopped (SIGSTOP) for S ~ 1 s in the middle of a run at a fixed rate R.

    Analytic values: a request scheduled at s within the stall [a, a + S) is
    answered when the server resumes, so its latency from the schedule is
    a + S - s (plus the server's normal latency, well under a millisecond, and
    the drain of the backlog, R*S requests over 8 connections: ~10 ms in all,
    1% of S). Those latencies are spread evenly over (0, S]: R * (S - x) of
    them exceed x. Every other request takes the normal latency, far below. Of
    N requests, the p-th percentile is the x with R * (S - x) = (1 - p) * N:
        x_p = S - (1 - p) * N / R
    With R = 400/s, 5 s (N = 2000) and S = 1 s: p90 = 1 - 0.1 * 5 = 0.5 s and
    p99 = 1 - 0.01 * 5 = 0.95 s. The test uses the stall it measured and the
    record's N. From the send, only the 8 requests in flight when the server
    stopped (0.4%) wait: the uncorrected p99 stays near the normal latency."""
    rate, stall_at, stall = 400, 2.5, 1.0
    with h2run.Nginx(t.workdir, "stall", "", HELLO, KEEPALIVE) as ng:
        worker = nginx_worker(ng)
        proc = t.start(["-R", str(rate), "-d", "5s", "--warmup", "500ms", "-c", "8"], url_of(ng.port))
        try:
            time.sleep(stall_at)
            stopped = time.monotonic()
            os.kill(worker, signal.SIGSTOP)
            time.sleep(stall)
        finally:
            os.kill(worker, signal.SIGCONT)
            resumed = time.monotonic()
        r = t.finish(proc)
    s, n = resumed - stopped, r["requests"]
    lat, unc = r["latency_us"], r["latency_uncorrected_us"]
    want = {p: (s - (1 - p / 100) * n / rate) * 1e6 for p in (90, 99)}
    comment(f"stall {s * 1e3:.1f} ms, {n} requests: corrected p90 {lat['p90']} us (analytic {want[90]:.0f}), "
            f"p99 {lat['p99']} us (analytic {want[99]:.0f}); uncorrected p99 {unc['p99']} us, p50 {unc['p50']} us")
    expect_eq(r, "failed", 0)
    for p in (90, 99):
        got = lat[f"p{p}"]
        expect(abs(got - want[p]) <= 0.05 * want[p], f"corrected p{p} {got} us, analytic {want[p]:.0f} us +- 5%")
    expect(unc["p99"] < 50_000, f"uncorrected p99 {unc['p99']} us: not near the normal latency")
    expect(r["rate"]["delivered"] is False and "lag" in r["rate"]["not_delivered"],
           f"a stalled schedule is flagged: {r['rate']}")


def case_known_delay(t):
    """A server answering after 20 ms: p50 within 2% + 50 us of 20 ms, from the schedule and from the send."""
    delay_us = 20000
    with DelayServer(t.delay_server, delay_us) as server:
        r = t.ok_run(["-R", "200", "-d", "3s", "--warmup", "300ms", "-c", "16"], url_of(server.port))
    lat, unc = r["latency_us"], r["latency_uncorrected_us"]
    comment(f"20 ms server: p50 {lat['p50']} us from the schedule, {unc['p50']} us from the send; lag {lag_text(r)}")
    # From the send, barrage's own timing is held to the figure (2% + 50 us; 10% under
    # ASan/UBSan, where every request costs several times its CPU). From the schedule it adds the
    # client's own lateness, which a loaded machine moves and the record reports (schedule_lag_us):
    # allowed up to its p90, unless BARRAGE_TIMING=1 holds it to the figure too.
    tolerance = 0.02 * delay_us + 50 if not t.sanitized else 0.10 * delay_us
    lateness = 0 if os.environ.get("BARRAGE_TIMING") == "1" else r["schedule_lag_us"]["p90"]
    expect(unc["p50"] >= delay_us, f"p50 from the send {unc['p50']} us: below the server's delay")
    expect(lat["p50"] >= unc["p50"], f"p50 from the schedule {lat['p50']} us below the one from the send {unc['p50']} us")
    near(unc["p50"], delay_us, tolerance, "latency_uncorrected_us.p50")
    near(lat["p50"], delay_us, tolerance + lateness, "latency_us.p50 (schedule lag p90 allowed)")
    expect_eq(r, "failed", 0)


def case_busy_sleeps(t):
    """Every connection busy (2 connections, 20 ms answers: 100/s) at 4,000/s: the loop sleeps until a
    connection is free, not once per scheduled request; the due requests wait with their times kept.
    Counted as the voluntary context switches of barrage (a count, not a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
    with DelayServer(t.delay_server, 20000) as server:
        r = t.ok_run(["-R", "4000", "-d", "2s", "--warmup", "0", "-c", "2"], url_of(server.port))
    sleeps = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
    scheduled = r["rate"]["scheduled"]
    comment(f"busy connections: {sleeps} sleeps for {scheduled} scheduled, {r['requests']} sent, "
            f"backlog max {r['rate']['backlog_max']}, corrected p50 {r['latency_us']['p50']} us")
    expect_eq(r, "rate.scheduled", 8000)
    expect(r["rate"]["scheduled"] == r["requests"] + r["rate"]["unsent"], "scheduled = sent + unsent")
    expect(r["rate"]["backlog_max"] > 4000, f"backlog max {r['rate']['backlog_max']}: the line was not kept")
    # ~100 answers and ~100 ticks a second: a few hundred sleeps; one per scheduled request would be 8,000
    expect(sleeps < scheduled / 4, f"{sleeps} sleeps for {scheduled} scheduled requests")


def case_window_sleeps(t):
    """--pace-resolution 5ms at 2,000/s (10 requests a window) against a 3 ms server: the loop
    sleeps once per window, not once per answer (the voluntary context switches of barrage, a
    count), and each answer is timed by its arrival (the kernel's stamp), not by when the loop
    woke to read it: from the send, p50 near 3 ms, where reading at the window's end gives 5."""
    with DelayServer(t.delay_server, 3000) as server:
        # counted before the server (a child too) is waited for
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
        # 40 connections for 10 requests a window: free ones enough even when answers come late
        r = t.ok_run(["-t", "1", "-R", "2000", "-d", "2s", "--warmup", "0", "-c", "40", "--pace-resolution", "5ms"],
                     url_of(server.port))
        sleeps = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
    windows = 2 * 1000 // 5
    unc = r["latency_uncorrected_us"]
    comment(f"5 ms windows: {sleeps} sleeps for {windows} windows and {r['requests']} requests; "
            f"from the send p50 {unc['p50']} us, p99 {unc['p99']} us; lag {lag_text(r)}")
    expect_eq(r, "requests", 4000)
    expect_eq(r, "failed", 0)
    # waking for each answer as well as for each window: 3 or more a window (1,250-1,350 measured)
    expect(sleeps < windows * 3 // 2, f"{sleeps} sleeps for {windows} windows")
    expect(3000 <= unc["p50"] < 4000, f"p50 from the send {unc['p50']} us: not the 3 ms server's")


def case_window_sleeps_tls(t):
    """The same over TLS, h1 and h2 (ALPN), against nginx: one sleep a window, and answers timed by
    their arrival through OpenSSL (its reads stamped): from the send, p50 under 2.5 ms (0.7-1 ms
    measured), where reading at the end of a 5 ms window gives about 5."""
    c = t.certs()
    listen, server = h2run.tls_server(c.path("server.pem"), c.path("server.key"))
    with h2run.Nginx(t.workdir, "tls windows", listen, server, KEEPALIVE) as ng:
        for proto in ("h1", "h2"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
            r = t.ok_run(["-t", "1", "-R", "2000", "-d", "2s", "--warmup", "0", "-c", "40", "--pace-resolution", "5ms",
                          "--" + proto, "--cacert", c.path("ca.pem")],
                         f"https://127.0.0.1:{ng.port}/")
            sleeps = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
            unc = r["latency_uncorrected_us"]
            comment(f"TLS {proto}, 5 ms windows: {sleeps} sleeps for 400 windows; from the send p50 {unc['p50']} us")
            expect_eq(r, "protocol", "http/1.1" if proto == "h1" else "h2")
            expect_eq(r, "requests", 4000)
            expect_eq(r, "failed", 0)
            # a wake or two per connection for its TLS handshake; waking per answer too: 815 (h1)
            expect(sleeps < 400 * 3 // 2 + 2 * 40, f"TLS {proto}: {sleeps} sleeps for 400 windows")
            expect(unc["p50"] < 2500, f"TLS {proto}: p50 from the send {unc['p50']} us")


def case_h2_stream_slots(t):
    """HTTP/2, MAX_CONCURRENT_STREAMS 2 and 20 ms answers (100/s per connection) at 200/s:
    requests wait for a slot with their times kept; none is lost."""
    with h2run.FaultServer(t.workdir, "maxstreams", limit=2, delay_ms=20) as s:
        r = t.ok_run(["--h2", "-R", "200", "-n", "100", "-c", "1", "-m", "10"], url_of(s.port))
        peaks = [e["value"] for e in s.events("max_open")]
        harness.check_sent(r, s.sent())
    comment(f"h2 2 streams: backlog max {r['rate']['backlog_max']}, lag {lag_text(r)}, "
            f"latency max {r['latency_us']['max']} us, uncorrected max {r['latency_uncorrected_us']['max']} us")
    expect_eq(r, "requests", 100)
    expect_eq(r, "succeeded", 100)
    expect_eq(r, "rate.scheduled", 100)
    expect_eq(r, "rate.unsent", 0)
    expect(peaks and max(peaks) == 2, f"most streams open at once: {peaks}")
    expect(r["rate"]["backlog_max"] >= 10, f"backlog max {r['rate']['backlog_max']}: nothing waited")
    # 100 requests offered in 0.5 s to 100/s of capacity: the last waits about 0.5 s for its slot
    expect(r["latency_us"]["max"] > 300_000, f"corrected max {r['latency_us']['max']} us: the wait is missing")
    expect(r["latency_uncorrected_us"]["max"] < 200_000, f"uncorrected max {r['latency_uncorrected_us']['max']} us")
    expect(r["rate"]["delivered"] is False, "the slots could not carry the rate: flagged")


def scheduled_between(changes, start_rate, window_s):
    """Requests due in [0, window_s) of a schedule that starts at start_rate and changes as listed."""
    points = [(0.0, start_rate)] + [(c["at_s"], c["rate"]) for c in changes] + [(window_s, 0)]
    return sum(r * (b - a) for (a, r), (b, _) in zip(points, points[1:]))


def case_control_fifo(t):
    """--control FIFO: 'rate 3000' at ~1.5 s, then 'stop' at ~3.2 s, with 2 threads and --live."""
    fifo = os.path.join(t.workdir, "control fifo")
    os.mkfifo(fifo)
    live = os.path.join(t.workdir, "live stderr")
    with h2run.Nginx(t.workdir, "control", "", HELLO, KEEPALIVE) as ng:
        proc = t.start(["-R", "1000", "-t", "2", "-c", "8", "-d", "8s", "--control", fifo, "--live"], url_of(ng.port),
                       stderr_path=live)
        started = time.monotonic()
        with open(fifo, "w") as f:  # barrage holds the FIFO open: this never blocks
            time.sleep(max(0, started + 1.5 - time.monotonic()))
            f.write("rate 3000\n")
            f.flush()
            time.sleep(max(0, started + 3.2 - time.monotonic()))
            f.write("bogus\nstop\n")
        r = t.finish(proc)
    with open(live) as f:
        lines = f.read().splitlines()
    changes, window = r["rate"]["changes"], r["duration_us"] / 1e6
    comment(f"control: change at {changes[0]['at_s'] if changes else '-'} s, stop at {window:.3f} s, "
            f"scheduled {r['rate']['scheduled']}, sent {r['rate']['sent']}")
    expect(len(changes) == 1 and changes[0]["rate"] == 3000, f"changes {changes}")
    near(changes[0]["at_s"], 1.5, 0.5, "the change's time")
    near(window, 3.2, 0.5, "the window (ended by stop)")
    # the two threads' schedules changed at one moment: their union is the one schedule
    near(r["rate"]["scheduled"], scheduled_between(changes, 1000, window), 3, "requests due in the window")
    timeline = [e for e in r["timeline"] if not e["in_grace"]]
    c = changes[0]["at_s"]
    expect(abs(timeline[0]["target_rate"] - 1000) < 1e-3, f"second 0 target {timeline[0]['target_rate']}")
    whole = int(c)  # the second holding the change: the mean of both rates
    mixed = 1000 * (c - whole) + 3000 * (whole + 1 - c)
    expect(abs(timeline[whole]["target_rate"] - mixed) < 0.5, f"second {whole} target {timeline[whole]['target_rate']}, "
           f"want {mixed:.1f}")
    expect(abs(timeline[whole + 1]["target_rate"] - 3000) < 1e-3 if whole + 1 < len(timeline) - 1 else True,
           "target after the change")
    live_lines = [line for line in lines if line.startswith("[")]
    expect(len(live_lines) == len(r["timeline"]), f"--live printed {len(live_lines)} lines for "
           f"{len(r['timeline'])} seconds: {lines[:3]}")
    expect(any("ignored 'bogus'" in line for line in lines), f"no word on the bad command: {lines}")


def case_control_file(t):
    """--control with a regular file: what it held is no command; 'stop' appended ends the run."""
    path = os.path.join(t.workdir, "control file")
    with open(path, "w") as f:
        f.write("stop\n")
    with h2run.Nginx(t.workdir, "control file", "", HELLO, KEEPALIVE) as ng:
        proc = t.start(["-R", "500", "-c", "4", "-d", "10s", "--control", path], url_of(ng.port))
        time.sleep(1.0)
        with open(path, "a") as f:
            f.write("stop\n")
        r = t.finish(proc)
    near(r["duration_us"] / 1e6, 1.0, 0.5, "the window (stop appended at ~1 s)")
    expect_eq(r, "rate.changes", [])


def case_hdr_log(t):
    """--hdr-log read by HdrHistogram's Python reader: untagged + errors = requests, uncorrected = responses,
    a line per second, and the untagged lines add up to the record's whole-run histogram slot by slot."""
    log = os.path.join(t.workdir, "latency log.hlog")
    server = TestServer("silent-every", every=40).start()
    try:
        # microseconds: the log's slots are then the record's, compared exactly (ns: tests/hdr/check.py)
        r = t.ok_run(["-R", "500", "-d", "3s", "-c", "20", "--timeout", "300ms", "--grace", "1s", "--hdr-log", log,
                      "--hdr-log-unit", "us"],
                     url_of(server.port))
    finally:
        server.stop()
    read = hdr_read("log", log)
    tags = read["tags"]
    errors = sum(r["errors"].values())
    responses = r["requests"] - errors
    expect(errors > 0, "no errors: the errors tag is not exercised")
    expect(tags[""]["total"] + tags["errors"]["total"] == r["requests"],
           f"untagged {tags['']['total']} + errors {tags['errors']['total']} != requests {r['requests']}")
    expect(tags["uncorrected"]["total"] == responses, f"uncorrected {tags['uncorrected']['total']} != {responses}")
    expect(tags[""]["lines"] == len(r["timeline"]) == tags["uncorrected"]["lines"],
           f"{tags['']['lines']} lines for {len(r['timeline'])} seconds")
    starts = tags[""]["starts"]
    expect(all(abs((b - a) - 1000) < 2 for a, b in zip(starts, starts[1:])), f"interval starts {starts[:4]} (ms)")
    whole = hdr_read("decode", r["histograms"]["latency_us"], r["histograms"]["error_latency_us"])
    expect(whole["each"][0]["counts"] == tags[""]["sum"], "the untagged lines do not add up to histograms.latency_us")
    expect(whole["each"][1]["counts"] == tags["errors"]["sum"], "the errors lines do not add up to error_latency_us")


def barrage_percentile(counts, total, p, low, high):
    """hist.c's rule on HdrHistogram's counts: the slot holding rank ceil(p% of total), its highest value,
    within [low, high]. counts: {slot index: count}."""
    rank, seen = max(1, math.ceil(p / 100 * total)), 0
    for i in sorted(counts, key=int):
        seen += counts[i]
        if seen >= rank:
            b = int(i) >> 10
            top = int(i) if b == 0 else (((int(i) & 1023) + 1024) << (b - 1)) + (1 << (b - 1)) - 1
            return min(max(top, low), high)
    return high


def merge_module():
    loader = importlib.machinery.SourceFileLoader("merge_records", MERGE)
    spec = importlib.util.spec_from_loader("merge_records", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def case_merge_every_field(t):
    """tools/merge-records has a rule for every field the schemas give a record (a new field must
    be given one), and fields beyond the counters merge: unexpected, idle_connections, flow, kinds
    (counts), unexpected_examples, jwt; the merged accounting adds up."""
    mr = merge_module()
    schemas = [json.load(open(os.path.join(REPO, "schemas", n)))
               for n in ("metrics.schema.json", "barrage-record.schema.json")]
    fields = {k for s in schemas for k in s["properties"]}
    missing = sorted(fields - set(mr.POLICY))
    expect(not missing, f"fields of the record merge-records has no rule for: {missing}")
    rate_fields = set(schemas[1]["properties"]["rate"]["oneOf"][1]["properties"])
    rate = {"target": 10, "arrival": "even", "seed": None, "scheduled": 10, "sent": 10, "unsent": 0, "achieved": 10.0,
            "backlog_max": 1, "delivered": True, "not_delivered": None, "changes": [], "stages": None, "first_short": None}

    def record(n, users, kind_b):
        kinds = {"a": {"requests": n, "succeeded": n - 1, "failed": 1, "unexpected": 1, "latency_us": {"max": 5}}}
        if kind_b:
            kinds["b"] = {"requests": n, "succeeded": n, "failed": 0, "unexpected": 0, "latency_us": {"max": 7}}
        requests = sum(k["requests"] for k in kinds.values())
        return {"tool": "barrage", "duration_us": 1000000, "started": requests + 1, "requests": requests,
                "succeeded": requests - 1, "failed": 1, "aborted": 1, "unexpected": 1, "rate": dict(rate),
                "idle_connections": {"requested": 2, "established": 3, "peak": 2, "open_at_end": 2, "connect_errors": 0,
                                     "closed": 1, "ping_every_us": 0, "pings": 0},
                "flow": {"users": users, "completed": n, "capture_failed": 1, "broken": 0,
                         "iteration_us": {"p50": n}, "wait_us": {"p50": n}}, "kinds": kinds,
                "unexpected_examples": [{"status": 500, "step": "a", "body": f"from {n}"}] * 2,
                "jwt": {"alg": "HS256", "signed": n, "used": n, "waited": 0, "wait_us_max": n, "stale": 0}}

    records = [record(4, 3, True), record(6, 2, False)]
    m = mr.merge(records)
    expect(set(m["rate"]) == rate_fields, f"merged rate fields {sorted(m['rate'])}, the schema's {sorted(rate_fields)}")
    expect_eq(m, "unexpected", 2)
    expect(m["idle_connections"] == {"requested": 4, "established": 6, "peak": 4, "open_at_end": 4, "connect_errors": 0,
                                     "closed": 2, "ping_every_us": 0, "pings": 0}, f"idle {m['idle_connections']}")
    # a flow's times are summaries without histograms: none for several records, never a sum of percentiles
    expect(m["flow"] == {"users": 5, "completed": 10, "capture_failed": 2, "broken": 0,
                         "iteration_us": None, "wait_us": None}, f"flow {m['flow']}")
    expect(mr.merge(records[:1])["flow"]["iteration_us"] == {"p50": 4}, "one record's flow times kept")
    ws = {"messages": {"sent": 5, "echoed": 4, "failed": 1, "timeout": 0, "closed": 1, "protocol_error": 0, "aborted": 0},
          "message_bytes": 32, "binary": False, "upgraded": 2, "refused": 1, "refused_status": {"403": 1},
          "refused_reasons": {}, "closed_by_server": 1, "server_close_codes": {"1000": 1}, "closed_by_client": 0,
          "client_close_codes": {}, "pings_answered": 3, "protocol_errors": {}}
    mws = mr.merge([dict(records[0], websocket=ws), dict(records[1], websocket=dict(ws, refused_status={"404": 2}))])
    expect(mws["websocket"]["messages"]["sent"] == 10 and mws["websocket"]["refused_status"] == {"403": 1, "404": 2}
           and mws["websocket"]["message_bytes"] == 32 and mws["websocket"]["binary"] is False, f"websocket {mws['websocket']}")
    expect("websocket" not in m, "a record without websocket merged into none")
    expect(m["kinds"]["a"]["requests"] == 10 and m["kinds"]["a"]["latency_us"] is None
           and m["kinds"]["b"] == dict(records[0]["kinds"]["b"]), f"kinds {m['kinds']}")
    expect([e["body"] for e in m["unexpected_examples"]] == ["from 4", "from 4", "from 6"], f"{m['unexpected_examples']}")
    expect(m["jwt"]["signed"] == 10 and m["jwt"]["wait_us_max"] == 6 and m["jwt"]["alg"] == "HS256", f"jwt {m['jwt']}")
    expect(m["started"] == m["requests"] + m["aborted"] and m["requests"] == m["succeeded"] + m["failed"]
           and sum(k["requests"] for k in m["kinds"].values()) == m["requests"]
           and sum(k["unexpected"] for k in m["kinds"].values()) == m["unexpected"], f"accounting {m}")
    try:
        mr.merge([records[0], dict(records[1], flow=None)])
        raise Failure("a record with --flow merged with one without")
    except mr.Unusable:
        pass


def case_merge_records(t):
    """tools/merge-records: counters add up; percentiles are those of HdrHistogram's sum of the records'
    histograms; one record merged alone gives its own percentiles; a record without histograms is refused."""
    records = []
    for mode, params, args in (("statuses", {}, ["-R", "800", "-d", "1s", "-c", "8"]),
                               ("silent-every", {"every": 25}, ["-R", "400", "-d", "1s", "-c", "16", "--timeout", "200ms"]),
                               ("ok", {}, ["-n", "300", "-c", "4"])):
        server = TestServer(mode, **params).start()
        try:
            r = t.ok_run(args, url_of(server.port))
        finally:
            server.stop()
        records.append(t.records[-1])
    loaded = [json.load(open(p)) for p in records]
    p = subprocess.run([MERGE, *records], capture_output=True, text=True)
    expect(p.returncode == 0, f"merge-records: {p.stderr}")
    merged = json.loads(p.stdout)
    for key in ("requests", "succeeded", "failed", "aborted", "started"):
        expect(merged[key] == sum(x[key] for x in loaded), f"merged {key} {merged[key]}")
    expect(merged["status"]["codes"] == {c: sum(x["status"]["codes"].get(c, 0) for x in loaded)
                                         for c in merged["status"]["codes"]}, "codes")
    expect(merged["errors"]["timeout"] == sum(x["errors"]["timeout"] for x in loaded) > 0, "timeouts")
    # the schedule lag too (the fixed-rate records only): a lab's load hosts' lag merges exactly
    for name in ("latency_us", "error_latency_us", "schedule_lag_us"):
        texts = [x["histograms"][name] for x in loaded if x["histograms"][name]]
        summed = hdr_read("decode", *texts)["sum"]
        present = [x[name] for x in loaded if x[name]]
        low, high = min(x["min"] for x in present), max(x["max"] for x in present)
        expect(merged[name]["count"] == summed["total"], f"{name} count {merged[name]['count']}, {summed['total']}")
        for key, pct in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9)):
            want = barrage_percentile(summed["counts"], summed["total"], pct, low, high)
            expect(merged[name][key] == want, f"merged {name}.{key} {merged[name][key]}, HdrHistogram's sum {want}")
    expect(merged["schedule_lag_us"]["count"] == loaded[0]["rate"]["sent"] + loaded[1]["rate"]["sent"], "lag count")
    expect(merged["rate"] is None, "a closed-loop record among them: no merged rate")
    pair = json.loads(subprocess.run([MERGE, *records[:2]], capture_output=True, text=True, check=True).stdout)
    for key in ("target", "scheduled", "sent", "achieved", "backlog_max"):
        expect(pair["rate"][key] == loaded[0]["rate"][key] + loaded[1]["rate"][key], f"merged rate.{key}")
    alone = json.loads(subprocess.run([MERGE, records[0]], capture_output=True, text=True, check=True).stdout)
    for key in ("p50", "p75", "p90", "p99", "p999", "max"):
        expect(alone["latency_us"][key] == loaded[0]["latency_us"][key], f"one record merged: {key} differs")
    old = dict(loaded[0], histograms=None)
    path = os.path.join(t.workdir, "old record.json")
    with open(path, "w") as f:
        json.dump(old, f)
    p = subprocess.run([MERGE, path], capture_output=True, text=True)
    expect(p.returncode == 2 and "no histogram" in p.stderr, f"a record without histograms: exit {p.returncode}")


def case_tls_h2_warmup(t):
    """TLS with ALPN h2, streams, a warm-up: the window's 1,000 requests due exactly, sent."""
    c = t.certs()
    listen, server = h2run.tls_server(c.path("server.pem"), c.path("server.key"))
    with h2run.Nginx(t.workdir, "tls rate", listen, server, KEEPALIVE) as ng:
        r = t.ok_run(["-R", "1000", "--warmup", "300ms", "-d", "1s", "-c", "2", "-m", "8", "--cacert", c.path("ca.pem")],
                     f"https://127.0.0.1:{ng.port}/")
    expect_eq(r, "protocol", "h2")
    expect_eq(r, "rate.scheduled", 1000)
    near(r["requests"], 1000, 10, "requests")
    expect_eq(r, "failed", 0)


def case_requests_and_poisson(t):
    """-n with -R ends after n requests, all scheduled; Poisson draws are recorded and reproduced by --seed."""
    with h2run.Nginx(t.workdir, "poisson", "", HELLO, KEEPALIVE) as ng:
        r = t.ok_run(["-R", "2000", "-n", "500", "-c", "4", "-t", "2"], url_of(ng.port))
        expect_eq(r, "requests", 500)
        expect_eq(r, "rate.scheduled", 500)
        runs = [t.ok_run(["-R", "2000", "--arrival", "poisson", "--seed", seed, "-d", "1s", "-c", "4", "-t", "2"],
                         url_of(ng.port)) for seed in ("7", "7", "8")]
    counts = [x["rate"]["scheduled"] for x in runs]
    comment(f"poisson 2000/s for 1 s: scheduled {counts} (seeds 7, 7, 8)")
    expect(all(x["rate"]["arrival"] == "poisson" for x in runs) and runs[0]["rate"]["seed"] == 7, "seed recorded")
    expect(counts[0] == counts[1], f"the same seed gave {counts[0]} and {counts[1]} requests")
    expect(all(abs(n - 2000) < 5 * math.sqrt(2000) for n in counts), f"Poisson counts {counts}")


def case_rate_far_above(t):
    """A rate far above what 2 connections carry: the due line costs bounded memory (-R 1e8 -d 2s took 2.1 GB,
    one entry per due request, and sent 16 requests), the connections stay busy (at least a tenth of their
    closed-loop rate, measured here), and the record counts every due request: scheduled exactly 2e8 and 2e9
    (-R 1e9 miscounted once the line could not grow), sent + unsent."""
    with h2run.Nginx(t.workdir, "far above", "", HELLO, KEEPALIVE) as ng:
        closed = t.ok_run(["-c", "2", "-d", "1s"], url_of(ng.port))
        records = []
        for rate, scheduled in (("1e8", 200000000), ("1e9", 2000000000)):
            p = subprocess.run([t.barrage, "--json", "-R", rate, "-d", "2s", "-c", "2", url_of(ng.port)],
                               capture_output=True, text=True, timeout=60, **harness.memory_bounded(t.sanitized))
            expect(p.returncode == 0, f"-R {rate}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
            r = t.keep_record(p.stdout, p.stderr)
            records.append(r)
            comment(f"-R {rate} -d 2s -c 2: {r['requests']} requests (closed loop {closed['requests']}/s), "
                    f"scheduled {r['rate']['scheduled']}, unsent {r['rate']['unsent']}, backlog max "
                    f"{r['rate']['backlog_max']}, peak RSS {r['max_rss_kb']} KiB")
            expect_eq(r, "rate.scheduled", scheduled)
            expect(r["rate"]["backlog_max"] >= scheduled * 0.9, f"backlog max {r['rate']['backlog_max']}")
            expect(r["requests"] * 10 >= closed["requests"] * 2, f"-R {rate}: {r['requests']} requests in 2 s, "
                   f"the closed loop {closed['requests']} in 1 s")
            if not t.sanitized:
                expect(r["max_rss_kb"] < 64 * 1024, f"-R {rate}: peak RSS {r['max_rss_kb']} KiB")


# timing cases: what they add is accuracy, which a sanitized build does not measure
CLOCK = "the schedule's accuracy over seconds of the clock; its code runs sanitized in the -n, Poisson, stall and --control cases"

CASES = [
    ("5,000/s for 5 s against nginx: requests within 1% of 25,000", case_rate_5000, CLOCK),
    ("10,000/s: schedule lag printed", case_lag_10000, CLOCK),
    ("server stopped 1 s: corrected p90/p99 within 5% of the analytic values, uncorrected p99 normal", case_stall),
    ("server with a 20 ms delay: p50 within 2% + 50 us", case_known_delay, CLOCK),
    ("HTTP/2 with MAX_CONCURRENT_STREAMS 2: requests wait for slots, none lost", case_h2_stream_slots),
    ("--control FIFO: rate change and stop with 2 threads, in the timeline, --live on stderr", case_control_fifo),
    ("--control regular file: read as it grows", case_control_file),
    ("--hdr-log read by HdrHistogram: counts add up to the requests", case_hdr_log),
    ("tools/merge-records: exact merge against HdrHistogram's", case_merge_records),
    ("tools/merge-records: a rule for every field of the schemas; flow, kinds, idle, unexpected merged", case_merge_every_field),
    ("TLS, h2 streams and warm-up at a fixed rate", case_tls_h2_warmup),
    ("every connection busy: the loop sleeps until one is free", case_busy_sleeps),
    ("--pace-resolution: one sleep a window, answers timed by their arrival", case_window_sleeps),
    ("--pace-resolution over TLS, h1 and h2: one sleep a window, answers timed by their arrival",
     case_window_sleeps_tls),
    ("-n and Poisson arrival with --seed", case_requests_and_poisson),
    ("a rate far above what 2 connections carry: bounded memory, busy connections, every due request counted",
     case_rate_far_above),
]


def main():
    def delay_server_arg(ap):
        ap.add_argument("--delay-server", required=True, help="the built tests/rate/delay_server.c")

    def prepare(t, args):
        h2run.ensure_venv()  # the h2 fault server
        t.delay_server = os.path.abspath(args.delay_server)

    return harness.main("rate", CASES, Runner, needs=("nginx",), prepare=prepare, extra_args=delay_server_arg)


if __name__ == "__main__":
    sys.exit(main())
