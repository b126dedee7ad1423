"""What barrage's integration tests share (tests/integration.py, tests/h2/run.py):
the failure type and checks of a case, the accounting identities every
`barrage --json` record must satisfy, a free port, and the runner of the cases
(TAP lines, records kept and validated against the JSON Schemas)."""
import argparse
import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = [os.path.join(REPO, "schemas", name) for name in ("metrics.schema.json", "barrage-record.schema.json")]
MiB = 1 << 20


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def expect_eq(record, path, want):
    value = record
    for key in path.split("."):
        value = value[key]
    expect(value == want, f"{path} = {value}, want {want}")


def check_identities(r):
    """The accounting rules of docs/metrics.md hold in every record, and its
    timeline adds up to its totals exactly; in a fixed-rate record every
    scheduled request was sent or is unsent."""
    st, c = r["status"], r["connections"]
    rules = {
        "started = requests + aborted": r["started"] == r["requests"] + r["aborted"],
        "requests = succeeded + failed": r["requests"] == r["succeeded"] + r["failed"],
        "failed = 4xx + 5xx + errored + unexpected":
            r["failed"] == st["4xx"] + st["5xx"] + sum(r["errors"].values()) + r.get("unexpected", 0),
        "succeeded = 2xx + 3xx": r["succeeded"] == st["2xx"] + st["3xx"],
        "classes = sum of codes": st["2xx"] + st["3xx"] + st["4xx"] + st["5xx"] == sum(st["codes"].values()),
        "latency_us iff final responses":
            (r["latency_us"] is None) == (r["succeeded"] + st["4xx"] + st["5xx"] + r.get("unexpected", 0) == 0),
        "error_latency_us iff errored": (r["error_latency_us"] is None) == (sum(r["errors"].values()) == 0),
        "completed_in_grace <= requests": r["completed_in_grace"] <= r["requests"],
        "connect attempts = established + errors + abandoned":
            c["connect_attempts"] == c["established"] + c["connect_errors"] + c["abandoned"],
        "tls_errors <= connect_errors": c["tls_errors"] <= c["connect_errors"],
        "peak <= requested": c["peak"] <= c["requested"],
    }
    timeline = r["timeline"]
    for key in ("requests", "succeeded", "failed", "status_4xx", "status_5xx"):
        total = r[key] if key in r else st[key[len("status_"):]]
        rules[f"timeline {key} adds up"] = sum(e[key] for e in timeline) == total
    for kind, n in r["errors"].items():
        rules[f"timeline errors.{kind} adds up"] = sum(e["errors"][kind] for e in timeline) == n
    rules["timeline seconds in order"] = all(b["t_s"] > a["t_s"] for a, b in zip(timeline, timeline[1:]))
    rate = r["rate"]
    if rate is not None:
        rules["sent = started"] = rate["sent"] == r["started"]
        rules["scheduled = sent + unsent"] = rate["scheduled"] == rate["sent"] + rate["unsent"]
        rules["uncorrected iff latency"] = (r["latency_uncorrected_us"] is None) == (r["latency_us"] is None)
    else:
        rules["closed loop: no uncorrected latency"] = r["latency_uncorrected_us"] is None
    broken = [name for name, ok in rules.items() if not ok]
    expect(not broken, "accounting broken: " + ", ".join(broken))


# what a test server did with a request (server.py kind_for, h2server.py) -> the record's bucket for it
SENT_BUCKETS = {
    "truncated": "errors_detail.closed_mid_response",
    "closed": "errors_detail.closed_before_response",
    "garbage": "errors_detail.bad_status_line",
    "badchunk": "errors_detail.bad_chunk",
    "unanswered": "errors.timeout",
    "reset": "errors.reset",
    "connection error": "errors.protocol",
    "refused": "connections.refused_streams",
}


def bucket_of(kind, buckets):
    if kind in buckets:
        return buckets[kind]
    if kind.startswith("status "):
        code = int(kind.split()[1])
        # not an HTTP status (docs/metrics.md): a protocol error
        return f"status.codes.{code}" if 100 <= code <= 599 else "errors_detail.bad_status_line"
    return SENT_BUCKETS[kind]


def count_at(record, path):
    value = record
    for key in path.split("."):
        value = value.get(key, 0) if isinstance(value, dict) else 0
    return value


def check_sent(record, sent, buckets=None):
    """The record's buckets hold what the test server sent (sent: kind -> count; buckets
    overrides a kind's bucket). Exact, except that a deadline may leave answers the server
    sent unread: then buckets fall short by at most `aborted` in all. The kinds of one case
    go to disjoint buckets, and completed requests are in no other bucket."""
    want = {}
    for kind, n in sent.items():
        path = bucket_of(kind, buckets or {})
        want[path] = want.get(path, 0) + n
    got = {path: count_at(record, path) for path in want}
    over = {p: (got[p], want[p]) for p in want if got[p] > want[p]}
    short = sum(want[p] - got[p] for p in want)
    expect(not over, f"more in the record than the server sent (record, server): {over}")
    expect(short <= record["aborted"], f"record {got}, server sent {want}: {short} missing, {record['aborted']} aborted")
    in_buckets = sum(n for p, n in got.items() if not p.startswith("connections."))
    expect(in_buckets == record["requests"], f"requests {record['requests']}, but {in_buckets} in the buckets {got}")


def memory_bounded(sanitized, limit_mb=1024):
    """subprocess.run/Popen keyword arguments that bound barrage's memory, so that a read or a line without a
    bound fails instead of eating the machine: its address space (RLIMIT_AS), or under AddressSanitizer (whose
    shadow needs terabytes of address space) the RSS ASan's own limit allows."""
    if sanitized:
        options = os.environ.get("ASAN_OPTIONS", "")
        return {"env": dict(os.environ, ASAN_OPTIONS=f"{options}:hard_rss_limit_mb={limit_mb}".lstrip(":"))}
    import resource
    limit = limit_mb << 20
    return {"preexec_fn": lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))}


@contextlib.contextmanager
def venv_lock(venv):
    """Held while a suite checks or installs the venv at the path venv: the plain and the
    sanitized builds' suites run at once (run-tests.sh) and may both find it missing."""
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Skip(Exception):
    pass


class Runner:
    """Runs the cases of a suite as TAP lines named `PREFIX name`, and keeps
    every --json record for the schema check at the end."""
    prefix = "barrage"

    def __init__(self, barrage, sanitized, workdir):
        self.barrage = barrage
        self.sanitized = sanitized
        self.workdir = workdir
        self.failed = 0
        self.records = []

    def keep_record(self, stdout, stderr):
        """The record barrage --json printed, checked against the identities and kept."""
        try:
            record = json.loads(stdout)
        except json.JSONDecodeError as e:
            raise Failure(f"bad JSON ({e}): {stdout[:300]} {stderr[-300:]}")
        check_identities(record)
        path = os.path.join(self.workdir, f"record {len(self.records)}.json")
        with open(path, "w") as f:
            f.write(stdout)
        self.records.append(path)
        return record

    def case(self, name, fn):
        """Runs one case and prints its TAP line, with its time as bats --timing gives it
        ("in N ms"), so that a slow case shows where the test run's time goes."""
        started = time.monotonic()
        took = lambda: f"in {round((time.monotonic() - started) * 1000)}ms"
        try:
            fn(self)
            print(f"ok - {self.prefix} {name} {took()}", flush=True)
        except Skip as e:
            print(f"ok - {self.prefix} {name} {took()} # skip {e}", flush=True)
        except Exception as e:  # a crash of the check itself is a failed case too
            self.failed += 1
            print(f"not ok - {self.prefix} {name} {took()}: {type(e).__name__}: {e}", flush=True)

    def run_cases(self, cases, only, tag):
        """Runs every (name, fn) case whose name or function name contains `only` (all when it is
        None), each as one TAP line ending in `tag`, then the schema check of the kept records.
        A case (name, fn, NOT_SANITIZED) is skipped in the sanitized build, with that reason:
        for cases whose time goes to waiting on the clock (accuracy of rates and warm-ups) and
        whose code runs sanitized in another case; the skip is reported as one."""
        for name, fn, *not_sanitized in cases:
            if only and only not in name and only not in fn.__name__:
                continue
            if self.sanitized and not_sanitized:
                print(f"ok - {self.prefix} {name}{tag} # skip not rerun sanitized: {not_sanitized[0]}", flush=True)
                continue
            self.case(name + tag, fn)
        self.validate_schemas(tag)

    def validate_schemas(self, tag):
        """Every kept record against each schema in SCHEMAS, one TAP line per schema."""
        if not self.records:
            print(f"ok - {self.prefix} --json schema validation{tag} # skip no records", flush=True)
            return
        # one validator process for all the records: its start-up costs about a second
        script = 'source lib/log.sh; source lib/schema.sh; schema::validate "$SCHEMA" "$@"'
        for schema in SCHEMAS:
            p = subprocess.run(["bash", "-c", script, "validate", *self.records], cwd=REPO,
                               env=dict(os.environ, SCHEMA=schema), capture_output=True, text=True)
            ok = p.returncode == 0
            print(f"{'ok' if ok else 'not ok'} - {self.prefix} --json validates against schemas/"
                  f"{os.path.basename(schema)} ({len(self.records)} records){tag}", flush=True)
            if not ok:
                self.failed += 1
                sys.stdout.write("# " + p.stderr.strip().replace("\n", "\n# ") + "\n")


def main(what, cases, make_runner, needs=(), prepare=None, extra_args=None):
    """The command line of every suite of cases (tests/*/run.py, tests/integration.py):
    --barrage, --sanitized, --only, --label (appended to every TAP line: which build this is)
    and the suite's own arguments (extra_args(parser)). A missing command of `needs` is one
    failed line. Makes a work folder, the runner (make_runner(barrage, sanitized, workdir)),
    then prepare(runner, args) (a Failure there is one failed line), runs the cases and
    removes the folder. Returns the exit status: 1 when anything failed."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--barrage", required=True)
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--label", default="", help="appended to every TAP line (which build this is)")
    if extra_args:
        extra_args(ap)
    args = ap.parse_args()
    tag = (" (sanitized)" if args.sanitized else "") + args.label
    missing = [tool for tool in needs if not shutil.which(tool)]
    if missing:
        print(f"not ok - barrage {what} tests{tag}: missing {', '.join(missing)}", flush=True)
        return 1
    workdir = tempfile.mkdtemp(prefix=f"barrage {what} test.")
    try:
        t = make_runner(os.path.abspath(args.barrage), args.sanitized, workdir)
        if prepare:
            try:
                prepare(t, args)
            except (Failure, subprocess.CalledProcessError) as e:
                print(f"not ok - barrage {what} tests{tag}: set-up: {e}", flush=True)
                return 1
        t.run_cases(cases, args.only, tag)
        return 1 if t.failed else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
