#!/usr/bin/env python3
"""steady-eval: for the series steady-series.sh printed (TSV: server kind second succeeded p99_us),
the second after which each candidate steady-state rule would end the warm-up, as the
markdown table of docs/steady-state.md. The rule is steady.c's: over the last W seconds,
Theil-Sen change across the window <= T x median and median absolute deviation <= S x median
(each at least the floor, in us of p99, where a candidate has one);
at a fixed rate the watched value is the p99, and a second whose successful rate is more than
10% off the target (RATE, default 20000) is never steady.
Usage: client/bench/steady-eval.py SERIES.tsv [RATE]"""
import math
import statistics as st
import sys

CANDIDATES = [(4, 0.10, 0.10, 0), (5, 0.05, 0.05, 0), (5, 0.10, 0.10, 0), (5, 0.20, 0.20, 0), (5, 0.30, 0.30, 0),
              (5, 0.30, 0.30, 1000), (5, 0.50, 0.50, 0), (6, 0.10, 0.10, 0), (6, 0.30, 0.30, 0)]


def steady(window, trend, spread, floor):
    if any(math.isnan(x) for x in window):
        return False
    n, m = len(window), st.median(window)
    if m <= 0:
        return False
    slopes = [(window[j] - window[i]) / (j - i) for i in range(n) for j in range(i + 1, n)]
    return (abs(st.median(slopes)) * (n - 1) <= max(trend * m, floor)
            and st.median(abs(x - m) for x in window) <= max(spread * m, floor))


def main():
    rate = float(sys.argv[2]) if len(sys.argv) > 2 else 20000
    series = {}
    for line in open(sys.argv[1]):
        server, kind, _, ok, p99 = line.rstrip("\n").split("\t")
        series.setdefault((server, kind), []).append((float(ok), float(p99) if p99 != "-" else math.nan))
    print("| server, load | " + " | ".join(f"W={w} T={t:.2f} S={s:.2f}" + (f" floor {f} us" if f else "") for w, t, s, f in CANDIDATES) + " |")
    print("|---" * (len(CANDIDATES) + 1) + "|")
    for (server, kind), points in series.items():
        if kind == "closed":
            values = [ok for ok, _ in points]
        else:
            values = [p99 if abs(ok - rate) <= 0.1 * rate else math.nan for ok, p99 in points]
        cells = []
        for w, t, s, f in CANDIDATES:
            if f and kind == "closed":  # the floor is in microseconds of p99: fixed rate only
                cells.append("-")
                continue
            end = next((i + 1 for i in range(w - 1, len(values)) if steady(values[i - w + 1:i + 1], t, s, f)), None)
            cells.append(f"{end} s" if end else f"never ({len(values)} s)")
        print(f"| {server}, {'closed loop' if kind == 'closed' else 'fixed rate'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
