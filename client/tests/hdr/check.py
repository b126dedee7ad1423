#!/usr/bin/env python3
"""HdrHistogram's own Python reader against barrage's encoding (hist_codec.c)
and interval log (hdrlog.c): tests/hdr/write_log.c writes a log and what must
be read from it; this reads the log with HistogramLogReader and the whole-run
histograms with HdrHistogram.decode, and compares counts (exactly) and
percentiles. Prints TAP lines (ok / not ok); exits 1 when a check failed.

  python3 tests/hdr/check.py --write-log build/hdr_write_log

The `hdrhistogram` package is installed from PyPI into REPO/.cache/hdrvenv on
first use (python3-venv and network access to PyPI); the script then runs
itself again with that venv's python."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VENV = os.path.join(REPO, ".cache", "hdrvenv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
REQUIREMENT = "hdrhistogram==0.10.8"
LAST_SLOT_HIGHEST = 4294967295  # where hist_codec counts values above the hour
HIST_HIGHEST_US = 3600000000


def ensure_venv():
    """Runs this script under .cache/hdrvenv's python, installing the package first when missing."""
    if os.environ.get("BARRAGE_HDR_VENV"):  # already re-run there: the import failed anyway
        print(f"not ok - hdrhistogram importable from {VENV}")
        sys.exit(1)
    probe = [VENV_PYTHON, "-c", "import hdrh.log"]
    with harness.venv_lock(VENV):
        if not (os.path.exists(VENV_PYTHON) and subprocess.run(probe, capture_output=True).returncode == 0):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
            p = subprocess.run([VENV_PYTHON, "-m", "pip", "install", "-q", REQUIREMENT], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"not ok - install {REQUIREMENT} from PyPI: {p.stderr.strip()[-300:]}")
                sys.exit(1)
    os.environ["BARRAGE_HDR_VENV"] = "1"
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])


try:
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogReader
except ImportError:
    ensure_venv()

FAILED = 0


def tap(ok, name, problems=()):
    global FAILED
    for p in [] if ok else list(problems)[:10]:
        print(f"# {p}")
    print(f"{'ok' if ok else 'not ok'} - {name}")
    FAILED += not ok


def new_histogram():
    return HdrHistogram(1, HIST_HIGHEST_US, 3)


def count_problems(h, want, what):
    """Every slot of h against barrage's: the same total, the same non-zero slots, the same counts."""
    problems = []
    if h.get_total_count() != want["total"]:
        problems.append(f"{what}: total {h.get_total_count()}, want {want['total']}")
    nonzero = sum(1 for i in range(h.counts_len) if h.get_count_at_index(i))
    if nonzero != len(want["slots"]):
        problems.append(f"{what}: {nonzero} non-zero slots, want {len(want['slots'])}")
    for low, high, count in want["slots"]:
        if h.get_count_at_value(low) != count or h.get_count_at_value(high) != count:
            problems.append(f"{what}: slot {low}..{high} holds {h.get_count_at_value(low)}, want {count}")
    return problems


def percentile_problems(h, want, what):
    """HdrHistogram's percentile is the highest value of the slot barrage's hist_percentile found."""
    problems = []
    for p, c in want["percentiles"]:
        expected = LAST_SLOT_HIGHEST if c > HIST_HIGHEST_US else h.get_highest_equivalent_value(c)
        got = h.get_value_at_percentile(p)
        if got != expected:
            problems.append(f"{what}: p{p} = {got}, barrage {c} (want {expected})")
    return problems


def read_log(path):
    reader = HistogramLogReader(path, new_histogram())
    lines = []
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        lines.append(h)
    start = reader.get_start_time_sec()
    reader.close()
    return start, lines


def check(log, expected):
    start, lines = read_log(log)
    want_lines = expected["lines"]
    tags = [h.get_tag() for h in lines]
    tap(tags == [w["tag"] for w in want_lines],
        f"HistogramLogReader reads all {len(want_lines)} interval lines, tags as written", [f"tags {tags}"])
    start_ms = expected["start_epoch_ms"]
    times = [(h.get_start_time_stamp(), start_ms + round(w["start_us"] / 1000)) for h, w in zip(lines, want_lines)]
    tap(abs(start * 1000 - start_ms) < 0.5 and all(abs(got - want) < 0.5 for got, want in times),
        "StartTime, BaseTime and interval timestamps read as written", [f"start {start}", f"times {times[:3]}"])

    problems = []
    for i, (h, w) in enumerate(zip(lines, want_lines)):
        problems += count_problems(h, w, f"line {i + 1}")
    tap(not problems and len(lines) == len(want_lines), "every interval's counts exact (empty and overflow included)",
        problems)
    problems = []
    for i, (h, w) in enumerate(zip(lines, want_lines)):
        problems += percentile_problems(h, w, f"line {i + 1}")
    tap(not problems, "every interval's percentiles are barrage's", problems)
    overflow = [h.get_count_at_value(LAST_SLOT_HIGHEST) for h in lines if h.get_tag() is None]
    tap(sum(overflow) == 8, "values above the hour read as the last slot, counted",
        [f"last-slot counts {overflow}"])

    for whole in expected["whole"]:
        name = whole["tag"] or "corrected"
        decoded = HdrHistogram.decode(whole["base64"])
        tap(not count_problems(decoded, whole, name) and not percentile_problems(decoded, whole, name),
            f"whole run ({name}): HdrHistogram.decode of barrage's base64 exact, percentiles barrage's",
            count_problems(decoded, whole, name) + percentile_problems(decoded, whole, name))
        added = new_histogram()
        for h in lines:
            if h.get_tag() == whole["tag"]:
                added.add(h)
        same = all(added.get_count_at_index(i) == decoded.get_count_at_index(i) for i in range(added.counts_len))
        tap(same and added.get_total_count() == whole["total"],
            f"whole run ({name}): the intervals add up to it exactly ({added.get_total_count()} values)")


NS_HIGHEST = HIST_HIGHEST_US * 1000
HDR_JAR = os.path.expanduser("~/.m2/repository/org/hdrhistogram/HdrHistogram/2.2.2/HdrHistogram-2.2.2.jar")


def near(ns, us):
    """A nanosecond value read back against barrage's microsecond one: within the microsecond
    slot's width (1 us) or 0.2%."""
    return abs(ns - us * 1000) <= max(1000, 0.002 * us * 1000)


def check_ns(log, expected):
    """--hdr-log-unit ns: the header says nanoseconds, every line's count is barrage's, every
    percentile is barrage's times 1000 (HdrHistogram's tools assume nanoseconds)."""
    with open(log, encoding="utf-8") as f:
        header = f.read(2000)
    tap("#barrage: values are nanoseconds (ns" in header, "ns log: the header names the unit")
    reader = HistogramLogReader(log, HdrHistogram(1, NS_HIGHEST, 3))
    lines = []
    while (h := reader.get_next_interval_histogram()) is not None:
        lines.append(h)
    reader.close()
    problems = []
    for i, (h, w) in enumerate(zip(lines, expected["lines"])):
        if h.get_total_count() != w["total"]:
            problems.append(f"line {i + 1}: total {h.get_total_count()}, want {w['total']}")
        for p, c in w["percentiles"]:
            got = h.get_value_at_percentile(p)
            if c <= HIST_HIGHEST_US and not near(got, c):
                problems.append(f"line {i + 1}: p{p} = {got} ns, barrage {c} us")
    tap(not problems and len(lines) == len(expected["lines"]),
        "ns log: every line's count exact, its percentiles barrage's x 1000", problems)


def check_java(log, expected, unit):
    """HdrHistogram's own HistogramLogProcessor (Java) prints each interval's median in
    milliseconds: right for the ns log, 1000x too small for the us log (why ns is the default)."""
    java = subprocess.run(["java", "-version"], capture_output=True).returncode == 0 if os.path.exists(HDR_JAR) else False
    if not java:
        print(f"ok - HistogramLogProcessor reads the {unit} log # skip no java or no {HDR_JAR}")
        return
    out = log + ".intervals"
    p = subprocess.run(["java", "-cp", HDR_JAR, "org.HdrHistogram.HistogramLogProcessor", "-i", log, "-csv",
                        "-o", out], capture_output=True, text=True, timeout=120)
    rows = []
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            rows = [line.split(",") for line in f if line[0].isdigit()]
    rows = [r for r in rows if int(r[1])]  # Int_Count: the intervals that hold values
    want = [w for w in expected["lines"] if w["tag"] is None and w["total"]]
    medians = [(float(r[2]), dict(w["percentiles"])[50]) for r, w in zip(rows, want)]
    ok = p.returncode == 0 and len(rows) == len(want) and medians and all(
        near(got * 1e6, us) if unit == "ns" else abs(got - us / 1e6) <= 0.0006 for got, us in medians)
    tap(ok, f"HistogramLogProcessor (Java) reads the {unit} log: medians in ms "
        + ("as barrage measured" if unit == "ns" else "1000x too small, as documented"),
        [f"exit {p.returncode}: {p.stderr.strip()[-300:]}", f"(ms, barrage us) {medians[:4]}"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-log", required=True, help="the built tests/hdr/write_log.c")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="barrage hdr ") as tmp:
        log, expected = os.path.join(tmp, "latency log.hlog"), os.path.join(tmp, "expected.json")
        ns_log = os.path.join(tmp, "latency log ns.hlog")
        p = subprocess.run([args.write_log, log, expected, ns_log], capture_output=True, text=True)
        tap(p.returncode == 0, "hdrlog writes the test log", [p.stderr.strip()] if p.returncode else [])
        if p.returncode == 0:
            with open(expected, encoding="utf-8") as f:
                want = json.load(f)
            try:
                check(log, want)
                check_ns(ns_log, want)
                check_java(ns_log, want, "ns")
                check_java(log, want, "us")
            except Exception as e:  # noqa: BLE001 - a reader's exception is the finding
                tap(False, f"HdrHistogram reads barrage's log and histograms ({type(e).__name__}: {e})")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
