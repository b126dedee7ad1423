"""What barrage's integration tests share (tests/integration.py, tests/h2/run.py):
the failure type and checks of a case, the accounting identities every
`barrage --json` record must satisfy, and a free port."""
import os
import socket

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
    """The accounting rules of shared/design/metrics.md hold in every record."""
    st, c = r["status"], r["connections"]
    rules = {
        "started = requests + aborted": r["started"] == r["requests"] + r["aborted"],
        "requests = succeeded + failed": r["requests"] == r["succeeded"] + r["failed"],
        "failed = 4xx + 5xx + errored": r["failed"] == st["4xx"] + st["5xx"] + sum(r["errors"].values()),
        "succeeded = 2xx + 3xx": r["succeeded"] == st["2xx"] + st["3xx"],
        "classes = sum of codes": st["2xx"] + st["3xx"] + st["4xx"] + st["5xx"] == sum(st["codes"].values()),
        "latency recorded iff requests": (r["latency_us"] is None) == (r["requests"] == 0),
        "connect attempts = established + errors + abandoned":
            c["connect_attempts"] == c["established"] + c["connect_errors"] + c["abandoned"],
        "tls_errors <= connect_errors": c["tls_errors"] <= c["connect_errors"],
        "peak <= requested": c["peak"] <= c["requested"],
    }
    broken = [name for name, ok in rules.items() if not ok]
    expect(not broken, "accounting broken: " + ", ".join(broken))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
