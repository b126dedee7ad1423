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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-log", required=True, help="the built tests/hdr/write_log.c")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="barrage hdr ") as tmp:
        log, expected = os.path.join(tmp, "latency log.hlog"), os.path.join(tmp, "expected.json")
        p = subprocess.run([args.write_log, log, expected], capture_output=True, text=True)
        tap(p.returncode == 0, "hdrlog writes the test log", [p.stderr.strip()] if p.returncode else [])
        if p.returncode == 0:
            with open(expected, encoding="utf-8") as f:
                want = json.load(f)
            try:
                check(log, want)
            except Exception as e:  # noqa: BLE001 - a reader's exception is the finding
                tap(False, f"HdrHistogram reads barrage's log and histograms ({type(e).__name__}: {e})")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
