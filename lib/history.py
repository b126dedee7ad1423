#!/usr/bin/env python3
"""history: change points in a history of results files (history.sh does the checks).

    history.py analyze --opts OPTS.json --out DOC.json FILE...
        FILEs are checked results files (lib/resultfile.sh), in any order. Orders them by their
        "timestamp", makes one series per row (server or A/A label, scenario, protocol, tool,
        variant: a profiler's event, and the row's plan: threads, connections, streams,
        duration, endpoint, method) out of the files that measured it, and finds the change
        points of each metric with Apache Otava (E-divisive means, split and merged by a t-test;
        needs the venv lib/history.sh makes). Writes the document (JSON) to DOC.json.
        Exit 0; 2 on bad input (files from several machines without any_machine, a name in
        no file), the reason on stderr.
    history.py render DOC.json
        The document as text, on stdout.

A point is one file: the median of its ok runs (each file's runs are a sample of that commit; the
median keeps one bad run from moving the point; their spread is kept as min and max). A change
point is the first file after the change: the size of the change is Otava's (mean after / mean
before - 1 over the segments that the neighbouring change points bound), its 95% interval
Welch's t-interval on the log values of the same segments (noise is multiplicative), its p-value
Otava's t-test. A change within the A/A noise floor is no change (Otava's min_magnitude, and
dropped when its own size is within the floor); one within the threshold is "small". A change
point needs MIN_SIDE files on each side (an odd file at an end of the series is no change of
level); those left are judged again by Otava's t-test on the segments they bound. The gate:
per series and gated metric, the newest change point, when it is a regression.

OPTS: alpha (Otava's max_pvalue), window (Otava's window_len), threshold and p99_threshold (fractions), fail_on (["rps",
"p99"]), min_points, noise_floor (null or {file, server, level, rows}), any_machine (bool),
filters {server, scenario, protocol, tool} (lists, empty = all), accept (names of files whose
change points are known: a newest regression at one of them does not gate).

Files are numbered from 1 in time order, as the text's "#N" and the page show them: files[].number,
and file_number beside every "file" (the 0-based index into files) of a change point or a
regression.
"""

import argparse
import datetime
import json
import math
import os
import statistics
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
import fmt  # noqa: E402  (lib/report/fmt.py: numbers as the README writes them)

METRICS = {  # name -> (--fail-on name, higher is better, label)
    "successful_rps": ("rps", True, "ok/s"),
    "p99": ("p99", False, "p99"),
}
MIN_SIDE = 3  # files a change point needs on each side
PLAN_FIELDS = ["threads", "connections", "streams", "duration_s", "endpoint", "method"]


class BadInput(Exception):
    pass


def clean(text):
    """Text from a results file, safe on a terminal: control and format characters (escape
    sequences, carriage returns, bidi overrides) written as \\xNN or \\uNNNN, so that a crafted
    name can neither hide nor fake a verdict."""
    out = []
    for c in str(text):
        if c == "\\":
            out.append("\\\\")
        elif unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append("\\x%02x" % ord(c) if ord(c) < 0x100 else "\\u%04x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


# ---- reading ---------------------------------------------------------------------------------

def successful_rps(m):
    """As lib/stats.jq's successful_rps: the record's, else succeeded / duration."""
    if m.get("successful_rps") is not None:
        return m["successful_rps"]
    if m.get("succeeded") is not None and (m.get("duration_us") or 0) > 0:
        return m["succeeded"] / (m["duration_us"] / 1e6)
    return None


def machine(doc):
    """What says which machine measured a file: the CPU, its cores, memory, architecture and,
    for a lab run, its hosts. A new kernel or JDK on the same machine is the same machine (the
    series notes it), another CPU is not."""
    s = doc["system"]
    parts = ["%s, %d cores, %d GB RAM, %s" % (s["cpuModel"], s["cpuCores"], round(s["ramGB"]), s["arch"])]
    lab = doc.get("lab")
    if lab:
        hosts = sorted("%s %s (%s, %d cores)" % (h["role"], h["host"], h["cpuModel"], h["cpuCores"]) for h in lab["hosts"])
        parts.append("lab: " + "; ".join(hosts))
    return "; ".join(parts)


def row_name(row):
    if (row.get("variant") or {}).get("label"):
        return row["variant"]["label"]
    return row["server"] + ("@" + row["aa_group"] if row.get("aa_group") else "")


def read_files(paths):
    files = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        files.append({"path": path, "doc": doc})
    for f in files:
        # RFC 3339: "Z" or an offset (the schema allows both); compared as instants, not as text
        when = datetime.datetime.fromisoformat(f["doc"]["timestamp"].replace("Z", "+00:00").replace("z", "+00:00"))
        f["when"] = when if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc)
    files.sort(key=lambda f: (f["when"], f["path"]))
    for a, b in zip(files, files[1:]):
        if a["when"] == b["when"]:
            raise BadInput("%s and %s start at the same time (%s): the same run twice? (a series holds each run once)"
                           % (clean(a["path"]), clean(b["path"]), clean(a["doc"]["timestamp"])))
    return files


def file_info(i, f):
    d, s = f["doc"], f["doc"]["system"]
    return {"index": i, "number": i + 1, "path": f["path"], "name": os.path.basename(f["path"]), "timestamp": d["timestamp"],
            "commit": d.get("commit"), "label": d.get("label"), "runs": d["settings"]["runs"],
            "machine": machine(d), "java": s.get("java"), "kernel": s.get("kernel")}


def selected(row, filters):
    for field in ("server", "scenario", "protocol", "tool"):
        allowed = filters.get(field) or []
        if allowed and not (row[field] in allowed or (field == "server" and row_name(row) in allowed)):
            return False
    return True


def series_key(row):
    plan = {k: row["config"].get(k) for k in PLAN_FIELDS}
    variant = (row.get("profile") or {}).get("event")
    return json.dumps([row_name(row), row["scenario"], row["protocol"], row["tool"], variant, plan], sort_keys=True)


def collect(files, filters):
    """Series key -> {key parts, points: {file index -> runs' values}, failed: [file index]}."""
    series = {}
    for i, f in enumerate(files):
        for row in f["doc"]["results"]:
            # rows at a fixed rate or of a capacity search measure something else (compare-results.sh --slo)
            if row.get("load") is not None or not selected(row, filters):
                continue
            key = series_key(row)
            s = series.setdefault(key, {"key": json.loads(key), "runs": {}, "failed": set()})
            if row["status"] != "ok" or not row.get("metrics"):
                if row["status"] == "failed":
                    s["failed"].add(i)
                continue
            m = row["metrics"]
            r = s["runs"].setdefault(i, {"successful_rps": [], "p99": []})
            v = successful_rps(m)
            if v is not None:
                r["successful_rps"].append(v)
            p99 = (m.get("latency_us") or {}).get("p99")
            if p99 is not None:
                r["p99"].append(p99)
    return series


# ---- statistics ------------------------------------------------------------------------------

def log_interval(before, after, level=0.95):
    """Welch's t-interval of mean(log after) - mean(log before), as a ratio - 1; None when a
    side has fewer than 2 values or a value is not positive."""
    from scipy import stats
    if len(before) < 2 or len(after) < 2 or min(before + after) <= 0:
        return None
    lb, la = [math.log(x) for x in before], [math.log(x) for x in after]
    vb, va = statistics.variance(lb) / len(lb), statistics.variance(la) / len(la)
    d = statistics.fmean(la) - statistics.fmean(lb)
    se = math.sqrt(vb + va)
    if se == 0:
        return {"lo": math.exp(d) - 1, "hi": math.exp(d) - 1}
    df = (vb + va) ** 2 / (vb ** 2 / (len(lb) - 1) + va ** 2 / (len(la) - 1))
    t = stats.t.ppf(0.5 + level / 2, df)
    return {"lo": math.exp(d - t * se) - 1, "hi": math.exp(d + t * se) - 1}


def floor_of(noise_floor, key, metric):
    """The A/A run's floor for the series' scenario, protocol and tool, else its largest (as
    compare-results.sh takes it); None without one."""
    if not noise_floor:
        return None
    _, scenario, protocol, tool, _, _ = key
    for r in noise_floor["rows"]:
        if (r["scenario"], r["protocol"], r["tool"]) == (scenario, protocol, tool) and (r.get(metric) or {}).get("floor") is not None:
            return {"floor": r[metric]["floor"], "from": "%s %s %s" % (scenario, protocol, tool)}
    floors = [(r.get(metric) or {}).get("floor") for r in noise_floor["rows"]]
    floors = [x for x in floors if x is not None]
    return {"floor": max(floors), "from": "largest of the A/A run"} if floors else None


def detect(values, alpha, min_magnitude, window):
    """Otava's change points of VALUES: [(index, p-value)], index the first point after."""
    from otava.series import AnalysisOptions, Metric, Series
    options = AnalysisOptions()
    options.window_len = window
    options.max_pvalue = alpha
    options.min_magnitude = min_magnitude
    series = Series("barrage", None, list(range(len(values))), {"m": Metric(1, 1.0)}, {"m": list(values)}, {})
    return [(int(c.index), float(c.pvalue())) for c in series.analyze(options).change_points["m"]]


def ttest_p(before, after, alpha):
    """Otava's own test of a change point: Student's t-test on the two segments."""
    from otava.analysis import TTestSignificanceTester
    return float(TTestSignificanceTester(alpha).compare(before, after).pvalue)


def judge(change, threshold, higher_is_better):
    if abs(change) <= threshold:
        return "small"
    return "improvement" if (change > 0) == higher_is_better else "regression"


def analyze_metric(points, files, metric, opts, floor):
    values = [p[metric]["median"] if p[metric] else None for p in points]
    if any(v is None for v in values):
        # a file whose ok runs lack this metric (a tool without p99): the series has gaps; left out
        kept = [i for i, v in enumerate(values) if v is not None]
    else:
        kept = list(range(len(values)))
    vals = [values[i] for i in kept]
    result = {"floor": floor, "points": len(vals), "change_points": []}
    if len(vals) < opts["min_points"]:
        result["status"] = "too few"
        return result
    result["status"] = "analyzed"
    floor_value = floor["floor"] if floor else 0.0
    found = [at for at, _ in detect(vals, opts["alpha"], floor_value, opts["window"])]
    # A change point needs MIN_SIDE files before and after it in the series: one odd file at either
    # end (the newest run on a noisy day) is not a change of level, and must not gate. Those left are
    # judged again by Otava's own t-test on the segments they bound now; a change within the noise
    # floor is dropped too (what this machine makes from nothing). Until nothing changes.
    found = [at for at in found if MIN_SIDE <= at <= len(vals) - MIN_SIDE]
    while True:
        bounds = [0] + found + [len(vals)]
        judged = []
        for n, at in enumerate(found):
            before, after = vals[bounds[n]:at], vals[at:bounds[n + 2]]
            mb, ma = statistics.fmean(before), statistics.fmean(after)
            change = ma / mb - 1 if mb > 0 else None
            p = ttest_p(before, after, opts["alpha"])
            judged.append((at, before, after, mb, ma, change, p))
        keep = [j for j in judged if j[5] is not None and j[6] < opts["alpha"] and not (floor and abs(j[5]) <= floor_value)]
        if len(keep) == len(judged):
            break
        # drop the weakest one only, then judge the rest again (as Otava's merge step does)
        weakest = max((j for j in judged if j not in keep), key=lambda j: j[6])
        found = [at for at in found if at != weakest[0]]
    _, higher_is_better, _ = METRICS[metric]
    threshold = opts["threshold"] if metric == "successful_rps" else opts["p99_threshold"]
    for at, before, after, mb, ma, change, p in judged:
        point = points[kept[at]]
        f = files[point["file"]]
        result["change_points"].append({
            "point": kept[at], "file": point["file"], "file_number": f["number"], "file_name": f["name"],
            "commit": f["commit"], "timestamp": f["timestamp"],
            "previous_file": points[kept[at - 1]]["file"],
            "before": {"mean": mb, "points": len(before)}, "after": {"mean": ma, "points": len(after)},
            "change": change, "ci": log_interval(before, after), "p": p,
            "verdict": judge(change, threshold, higher_is_better)})
    return result


def environment_changes(files, first, previous):
    """What else changed between two files of a series: its JDK, its kernel."""
    a, b = files[previous], files[first]
    said = []
    for field, name in (("java", "JDK"), ("kernel", "kernel")):
        if a[field] != b[field]:
            said.append("%s %s -> %s" % (name, a[field], b[field]))
    return said


def accepted_files(files, accept):
    """--accept's names -> the indexes of the files they name: a file's path, its name, or its
    commit (7 or more leading characters of it). A name that matches no file is an error; one
    that matches several (a commit measured twice) accepts them all."""
    found = set()
    for name in accept:
        hits = [f["index"] for f in files
                if name in (f["path"], f["name"])
                or (len(name) >= 7 and f["commit"] and f["commit"].startswith(name))]
        if not hits:
            raise BadInput("--accept: '%s' names no file of the history (a results file's path or name, or a commit)" % clean(name))
        found.update(hits)
    return found


def analyze(paths, opts):
    files_read = read_files(paths)
    files = [file_info(i, f) for i, f in enumerate(files_read)]
    accepted = accepted_files(files, opts.get("accept") or [])
    machines = sorted({f["machine"] for f in files}, key=lambda m: [f["machine"] for f in files].index(m))
    if len(machines) > 1 and not opts["any_machine"]:
        counts = ["%s (%d files, first %s)" % (m, sum(f["machine"] == m for f in files),
                                              next(f["name"] for f in files if f["machine"] == m)) for m in machines]
        raise BadInput("the files come from %d machines: %s. A change of machine is not a change of the code: "
                       "give one machine's files, or --any-machine to analyze them as one series anyway"
                       % (len(machines), "; ".join(clean(c) for c in counts)))
    known = {field: sorted({row_name(r) if field == "server" else r[field] for f in files_read for r in f["doc"]["results"]}
                           | ({r["server"] for f in files_read for r in f["doc"]["results"]} if field == "server" else set()))
             for field in ("server", "scenario", "protocol", "tool")}
    for field, names in opts["filters"].items():
        for name in names:
            if name not in known[field]:
                raise BadInput("--%s: '%s' is in no file (known: %s)" % (field, clean(name), ", ".join(clean(k) for k in known[field])))
    collected = collect(files_read, opts["filters"])
    by_name = {}
    for s in collected.values():
        by_name.setdefault(json.dumps(s["key"][:5]), []).append(s)
    series = []
    for key in sorted(collected, key=lambda k: (collected[k]["key"][1], collected[k]["key"][2], collected[k]["key"][3],
                                                 collected[k]["key"][0], k)):
        s = collected[key]
        server, scenario, protocol, tool, variant, plan = s["key"]
        name = "%s %s %s %s" % (server, scenario, protocol, tool) + (" (profiled: %s)" % variant if variant else "")
        siblings = by_name[json.dumps(s["key"][:5])]
        if len(siblings) > 1:
            # the same row measured with several plans: each plan is a series of its own
            differ = [k for k in PLAN_FIELDS if len({json.dumps(x["key"][5][k]) for x in siblings}) > 1]
            name += " [" + ", ".join("%s %s" % (k, plan[k]) for k in differ) + "]"
        points = []
        for i in sorted(s["runs"]):
            r = s["runs"][i]
            point = {"file": i, "runs": max(len(r["successful_rps"]), len(r["p99"]))}
            for metric in METRICS:
                xs = r[metric]
                point[metric] = ({"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}
                                 if xs else None)
            points.append(point)
        entry = {"name": name, "server": server, "scenario": scenario, "protocol": protocol, "tool": tool,
                 "variant": variant, "plan": plan, "files": len(points), "failed_files": sorted(s["failed"]),
                 "metrics": {}}
        for metric in METRICS:
            m = analyze_metric(points, files, metric, opts, floor_of(opts["noise_floor"], s["key"], metric))
            for cp in m["change_points"]:
                cp["environment"] = environment_changes(files, cp["file"], cp["previous_file"])
            if m["change_points"]:
                m["change_points"][-1]["newest"] = True
            entry["metrics"][metric] = m
        entry["points"] = points
        series.append(entry)
    gated = []
    for s in series:
        for metric, m in s["metrics"].items():
            if METRICS[metric][0] not in opts["fail_on"] or not m["change_points"]:
                continue
            newest = m["change_points"][-1]
            if newest["verdict"] != "regression":
                continue
            if newest["file"] in accepted:
                # a known change, accepted: the series is judged from it on (a later one still gates)
                newest["accepted"] = True
                continue
            gated.append({"series": s["name"], "metric": metric, "file": newest["file"], "file_number": newest["file_number"],
                          "file_name": newest["file_name"], "change": newest["change"]})
    analyzed = [s for s in series if any(m["status"] == "analyzed" for m in s["metrics"].values())]
    noise_floor = None
    if opts["noise_floor"]:
        noise_floor = {k: opts["noise_floor"][k] for k in ("file", "server", "level")}
        with open(opts["noise_floor"]["file"], encoding="utf-8") as f:
            floor_machine = machine(json.load(f))
        if floor_machine not in machines:
            noise_floor["other_machine"] = floor_machine
    return {"files": files, "machines": machines,
            "settings": dict({k: opts[k] for k in ("alpha", "threshold", "p99_threshold", "fail_on", "min_points", "window", "any_machine")},
                             accept=sorted(accepted)),
            "noise_floor": noise_floor,
            "series": series, "analyzed_series": len(analyzed),
            "verdict": (None if not analyzed else "regression" if gated else "ok"),
            "regressions": gated}


# ---- text ------------------------------------------------------------------------------------

def value_text(metric, x):
    return fmt.thousands(x) if metric == "successful_rps" else fmt.latency(x)


def short_commit(c):
    if not c:
        return "unknown"
    dirty = c.endswith("-dirty")
    c = c[:-6] if dirty else c
    return clean(c[:12] + ("-dirty" if dirty else ""))


def render(doc):
    out = []
    files, st = doc["files"], doc["settings"]
    out.append("%d results files, %s to %s, on %s" % (
        len(files), clean(files[0]["timestamp"]), clean(files[-1]["timestamp"]),
        clean(doc["machines"][0]) if len(doc["machines"]) == 1 else "%d machines (--any-machine)" % len(doc["machines"])))
    if len(doc["machines"]) > 1:
        for m in doc["machines"]:
            out.append("  machine: %s (%d files)" % (clean(m), sum(f["machine"] == m for f in files)))
    out.append("")
    rows = [["series", "metric", "first file after the change", "commit", "before", "after", "change (95% CI)", "p", "verdict"]]
    too_few, quiet, notes = [], [], []
    for s in doc["series"]:
        found = False
        for metric, m in s["metrics"].items():
            label = METRICS[metric][2]
            if m["status"] == "too few":
                continue
            for cp in m["change_points"]:
                found = True
                f = files[cp["file"]]
                ci = cp["ci"]
                change = fmt.signed_pct(cp["change"]) + (" (%s to %s)" % (fmt.signed_pct(ci["lo"]), fmt.signed_pct(ci["hi"])) if ci else "")
                verdict = cp["verdict"] + (" (newest, accepted)" if cp.get("accepted") else " (newest)" if cp.get("newest") else "")
                rows.append([clean(s["name"]), label, "#%d %s %s" % (cp["file_number"], clean(f["timestamp"]), clean(f["name"])),
                             short_commit(cp["commit"]), value_text(metric, cp["before"]["mean"]),
                             value_text(metric, cp["after"]["mean"]), change, "%.1e" % cp["p"], verdict])
                if cp["environment"]:
                    notes.append("%s: the change at #%d comes with %s" % (clean(s["name"]), cp["file_number"],
                                                                         ", ".join(clean(e) for e in cp["environment"])))
        if all(m["status"] == "too few" for m in s["metrics"].values()):
            too_few.append(s)
        elif not found:
            quiet.append(s)
    if len(rows) > 1:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            out.append("  ".join(c.rjust(w) if i in (4, 5) else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    else:
        out.append("No change point in any series.")
    out.append("")
    if quiet:
        out.append("No change point (%d series): %s" % (len(quiet), ", ".join(clean(s["name"]) for s in quiet)))
    if too_few:
        out.append("Too few files to tell (fewer than %d points; no verdict): %s" % (
            st["min_points"], ", ".join("%s (%d)" % (clean(s["name"]), s["files"]) for s in too_few)))
    partial = [s for s in doc["series"] if 0 < s["files"] < len(files)]
    if partial:
        out.append("Rows not in every file (their series holds only the files that measured them): "
                   + ", ".join("%s (%d of %d files)" % (clean(s["name"]), s["files"], len(files)) for s in partial))
    for s in doc["series"]:
        if s["failed_files"]:
            out.append("%s: failed in %s" % (clean(s["name"]), ", ".join("#%d" % files[i]["number"] for i in s["failed_files"])))
    for n in notes:
        out.append(n)
    if doc["noise_floor"]:
        nf = doc["noise_floor"]
        out.append("Noise floor from %s (A/A run of %s): a change no larger than it is no change" % (clean(nf["file"]), clean(nf["server"] or "?")))
        if nf.get("other_machine"):
            out.append("  measured on another machine (%s): it may not be this machine's noise" % clean(nf["other_machine"]))
        groups = {}  # the floors' text -> the series they apply to, in order
        for s in doc["series"]:
            fl = [(METRICS[k][2], m["floor"]) for k, m in s["metrics"].items() if m["floor"]]
            if fl:
                text = ", ".join("%s ±%s (%s)" % (l, fmt.fixed(f["floor"] * 100, 1) + "%", clean(f["from"])) for l, f in fl)
                groups.setdefault(text, []).append(clean(s["name"]))
        for text, names in groups.items():
            out.append("  %s: %s" % (text, ", ".join(names)))
    out.append("Method: a point per file (the median of its ok runs); change points by Apache Otava (E-divisive means, "
               "t-test at p < %g, windows of %d files); change = mean after / mean before - 1 between neighbouring change points, 95%% CI by "
               "Welch's t on log values; ok/s threshold %s%%, p99 threshold %s%% (a change within it is \"small\"); "
               "gate: the newest change point of each series in %s when it is a regression."
               % (st["alpha"], st["window"], fmt.fixed(st["threshold"] * 100, 1), fmt.fixed(st["p99_threshold"] * 100, 1), ",".join(st["fail_on"])))
    if doc["verdict"] is None:
        out.append("Summary: no verdict: no series has the %d files the detection needs (exit 0)" % st["min_points"])
    elif doc["regressions"]:
        out.append("Summary: %d regression%s at the newest change point: %s (exit 1)" % (
            len(doc["regressions"]), "" if len(doc["regressions"]) == 1 else "s",
            "; ".join("%s %s %s at #%d" % (clean(g["series"]), METRICS[g["metric"]][2], fmt.signed_pct(g["change"]), g["file_number"])
                      for g in doc["regressions"])))
    else:
        out.append("Summary: no regression at the newest change point of any series (exit 0)")
    if st.get("accept"):
        out.append("Accepted (--accept: a regression whose newest change point is at one of them does not gate): %s"
                   % ", ".join("#%d %s" % (files[i]["number"], clean(files[i]["name"])) for i in st["accept"]))
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(prog="history.py")
    sub = parser.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("analyze")
    a.add_argument("--opts", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("files", nargs="+")
    r = sub.add_parser("render")
    r.add_argument("doc")
    args = parser.parse_args(argv)
    if args.mode == "render":
        with open(args.doc, encoding="utf-8") as f:
            sys.stdout.write(render(json.load(f)))
        return 0
    with open(args.opts, encoding="utf-8") as f:
        opts = json.load(f)
    try:
        doc = analyze(args.files, opts)
    except BadInput as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
