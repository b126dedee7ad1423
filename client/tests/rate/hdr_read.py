#!/usr/bin/env python3
"""HdrHistogram's own Python reader (the `hdrhistogram` package) on what barrage
wrote, for tests/rate/run.py, which runs this with the package's venv python.
Prints JSON; counts are sparse {slot index: count} so the caller compares exactly.

  hdr_read.py log FILE          every interval line of an interval log, by tag ("" untagged)
  hdr_read.py decode B64...     each base64 histogram decoded, and their sum"""
import json
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

HIST_HIGHEST_US = 3600000000


def sparse(h):
    return {i: h.get_count_at_index(i) for i in range(h.counts_len) if h.get_count_at_index(i)}


def read_log(path):
    reader = HistogramLogReader(path, HdrHistogram(1, HIST_HIGHEST_US, 3))
    tags = {}
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        tag = tags.setdefault(h.get_tag() or "", {"lines": 0, "total": 0, "starts": [], "sum": HdrHistogram(1, HIST_HIGHEST_US, 3)})
        tag["lines"] += 1
        tag["total"] += h.get_total_count()
        tag["starts"].append(h.get_start_time_stamp())
        tag["sum"].add(h)
    start = reader.get_start_time_sec()
    reader.close()
    return {"start_sec": start, "tags": {k: dict(v, sum=sparse(v["sum"])) for k, v in tags.items()}}


def decode(texts):
    total = HdrHistogram(1, HIST_HIGHEST_US, 3)
    each = []
    for text in texts:
        h = HdrHistogram.decode(text)
        each.append({"total": h.get_total_count(), "counts": sparse(h)})
        total.add(h)
    return {"each": each, "sum": {"total": total.get_total_count(), "counts": sparse(total)}}


def main():
    if sys.argv[1] == "log":
        out = read_log(sys.argv[2])
    else:
        out = decode(sys.argv[2:])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
