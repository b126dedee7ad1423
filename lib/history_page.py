#!/usr/bin/env python3
"""history_page: history.sh's document -> the trend page, one self-contained HTML file.

    history_page.py --doc DOC.json --page PAGE.html --out OUT

Every series over time (ok/s and p99, a point per results file, the runs' spread in its
tooltip), its change points marked (red: a regression, green: an improvement, grey: small),
each point linking to its run's page (RESULTS.html beside the results file, as report.sh writes
it; the results file itself when there is no page). Tables of the change points and of the
files are HTML, readable without JavaScript. PAGE is where the page will be (the links are
relative to it); OUT is where it is written (history.sh renames it into place).

Styles and the charting library are lib/report/'s (report.css, the vendored Apache ECharts);
the drawing is lib/history_page.js. Every string from a results file is HTML-escaped in the
tables and embedded in the page's data as JSON with <, >, & and the line separators written
as \\u escapes: a server named "<!--<script>" stays text. Exit 0, or 1 with the reason.
"""

import argparse
import gzip
import html
import json
import math
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "report"))
import fmt  # noqa: E402  (lib/report/fmt.py)

METRIC_LABEL = {"successful_rps": "ok/s", "p99": "p99"}


def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def tag(name, body="", **attrs):
    """<name attrs>body</name>; body is HTML already; attrs with a None value are left out."""
    text = "".join(' %s="%s"' % (k.rstrip("_").replace("_", "-"), esc(v)) for k, v in attrs.items() if v is not None)
    return "<%s%s>%s</%s>" % (name, text, body, name)


def read(path):
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        return f.read()


def script_json(data):
    """JSON that stays one text inside <script type="application/json">: no "</script>", no
    "<!--" (which would change how the HTML parser reads the rest), whatever the strings hold."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for c, e in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(c, e)
    return text


def inline_script(text):
    """Script text that cannot end its <script> element early."""
    return text.replace("</", "<\\/")


def link_of(f, page_dir):
    """The run's page beside its results file, else the file: a URL relative to the trend page."""
    html_path = os.path.splitext(os.path.abspath(f["path"]))[0] + ".html"
    target = html_path if os.path.isfile(html_path) else os.path.abspath(f["path"])
    rel = os.path.relpath(target, page_dir)
    return urllib.parse.quote(rel.replace(os.sep, "/")), target == html_path


def short_commit(c):
    if not c:
        return "unknown"
    return c[:12] + ("-dirty" if c.endswith("-dirty") else "")


def num(text, value, field):
    return tag("td", esc(text), class_="num", data_value=None if value is None else repr(value), data_field=field)


def series_median(values):
    """The median of VALUES (the mean of the middle two), None when there are none."""
    v = sorted(values)
    if not v:
        return None
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def shared_scale(widest):
    """The half-height of every trend chart's axis, as a fraction: the widest change from a
    series' median, rounded up to 5%, at least ±10% (so that ±3% of noise fills under a third
    of a chart, where an axis of its own would stretch it to the full height)."""
    return max(0.10, math.ceil(round(widest * 100, 6) / 5) * 0.05)


def build(doc, page_path):
    page_dir = os.path.dirname(os.path.abspath(page_path))
    files = doc["files"]
    links = [link_of(f, page_dir) for f in files]
    st = doc["settings"]
    title = "Barrage history: %d results files, %s to %s" % (len(files), files[0]["timestamp"], files[-1]["timestamp"])
    banners = []
    if doc["verdict"] == "regression":
        banners.append(tag("p", esc("Regression at the newest change point: " + "; ".join(
            "%s %s %s at #%d" % (g["series"], METRIC_LABEL[g["metric"]], fmt.signed_pct(g["change"]), g["file"] + 1)
            for g in doc["regressions"])), class_="banner bad", id="regression"))
    elif doc["verdict"] is None:
        banners.append(tag("p", esc("No verdict: no series has the %d files the detection needs." % st["min_points"]),
                           class_="banner incomplete", id="no-verdict"))
    else:
        banners.append(tag("p", "No regression at the newest change point of any series.", class_="banner good", id="no-regression"))
    if len(doc["machines"]) > 1:
        banners.append(tag("p", esc("Files from %d machines (--any-machine): %s" % (len(doc["machines"]), "; ".join(doc["machines"]))),
                           class_="banner bad", id="machines"))

    # change points
    rows = []
    for s in doc["series"]:
        for metric, m in s["metrics"].items():
            for cp in m["change_points"]:
                f = files[cp["file"]]
                href, _ = links[cp["file"]]
                ci = cp["ci"]
                cls = {"regression": "verdict bad", "improvement": "verdict good"}.get(cp["verdict"], "verdict")
                rows.append(tag("tr", "".join([
                    tag("td", esc(s["name"]), class_="series"),
                    tag("td", esc(METRIC_LABEL[metric]), data_field="metric"),
                    tag("td", tag("a", esc("#%d %s" % (cp["file"] + 1, f["timestamp"])), href=href), data_field="file",
                        data_value=str(cp["file"] + 1)),
                    tag("td", tag("code", esc(short_commit(cp["commit"]))), data_field="commit", data_value=cp["commit"] or ""),
                    num(fmt.signed_pct(cp["change"]), cp["change"], "change"),
                    tag("td", esc("%s to %s" % (fmt.signed_pct(ci["lo"]), fmt.signed_pct(ci["hi"])) if ci else fmt.DASH), class_="num"),
                    num("%.1e" % cp["p"], cp["p"], "p"),
                    tag("td", esc(cp["verdict"] + (" (newest)" if cp.get("newest") else "")), class_=cls, data_field="verdict"),
                ]), data_key="%s/%s" % (s["name"], METRIC_LABEL[metric])))
    head = ["series", "metric", "first file after the change", "commit", "change", "95% CI", "p", "verdict"]
    cp_table = (tag("table", tag("thead", tag("tr", "".join(tag("th", esc(h)) for h in head))) + tag("tbody", "".join(rows)),
                    class_="changes") if rows else tag("p", "No change point in any series.", class_="note", id="no-change"))

    # one chart per series
    charts, data_series = [], []
    # series with a change point first, the rest in the document's order
    ordered = sorted(doc["series"], key=lambda s: not any(m["change_points"] for m in s["metrics"].values()))
    widest = 0.0
    for n, s in enumerate(ordered):
        chart_id = "s%d" % (n + 1)
        points = []
        for p in s["points"]:
            f = files[p["file"]]
            points.append({"file": p["file"], "t": f["timestamp"], "runs": p["runs"],
                           "rps": p["successful_rps"], "p99": p["p99"]})
        base = {key: series_median([p[key]["median"] for p in points if p[key] and p[key].get("median")]) for key in ("rps", "p99")}
        for key in ("rps", "p99"):
            if base[key]:
                widest = max([widest] + [abs(p[key]["median"] / base[key] - 1) for p in points if p[key] and p[key].get("median")])
        cps = [{"metric": metric, "file": cp["file"], "t": files[cp["file"]]["timestamp"], "change": cp["change"],
                "verdict": cp["verdict"]} for metric, m in s["metrics"].items() for cp in m["change_points"]]
        status = {k: m["status"] for k, m in s["metrics"].items()}
        data_series.append({"id": chart_id, "name": s["name"], "points": points, "change_points": cps, "status": status,
                            "base": base})
        note = "" if status["successful_rps"] == "analyzed" else tag(
            "p", esc("%d files: too few for the detection (%d needed): no verdict." % (s["files"], st["min_points"])), class_="note")
        charts.append(tag("h3", esc(s["name"])) + note
                      + tag("div", "", class_="chart", id=chart_id, data_kind="trend", style="height:300px"))

    file_rows = []
    for f, (href, is_page) in zip(files, links):
        file_rows.append(tag("tr", "".join([
            num(str(f["index"] + 1), f["index"] + 1, "index"),
            tag("td", tag("a", esc(f["name"]), href=href) + ("" if is_page else esc(" (no page: ./report.sh writes it)")),
                data_field="link", data_value=href),
            tag("td", esc(f["timestamp"])), tag("td", tag("code", esc(short_commit(f["commit"])))),
            tag("td", esc(f["label"] or "")), num(str(f["runs"]), f["runs"], "runs"),
            tag("td", esc("%s; JDK %s; kernel %s" % (f["machine"], f["java"] or "?", f["kernel"]))),
        ]), data_key="file/%d" % (f["index"] + 1)))
    files_table = tag("table", tag("thead", tag("tr", "".join(tag("th", h) for h in
                      ["#", "results file (its page)", "timestamp", "commit", "label", "runs", "machine"])))
                      + tag("tbody", "".join(file_rows)), class_="files")

    method = ("A point per results file: the median of its ok runs (ok/s: successful requests/s; p99 latency). "
              "Change points by Apache Otava (E-divisive means with a t-test, p < %g), one metric at a time; a change "
              "beyond %s%% (ok/s) or %s%% (p99) is a regression or an improvement, within it small. "
              "Each chart draws ok/s and p99 as their change from the series' median, every chart on the same "
              "axis (%s), so that the noise of a few percent looks as small as it is. "
              "Click a point to open its run's page." % (st["alpha"], fmt.fixed(st["threshold"] * 100, 1),
                                                          fmt.fixed(st["p99_threshold"] * 100, 1),
                                                          "±%d%%" % round(shared_scale(widest) * 100)))
    if doc["noise_floor"]:
        method += " Changes within the noise floor of %s (A/A run) are no change." % doc["noise_floor"]["file"]
    body = (tag("h1", esc(title)) + "".join(banners) + tag("p", esc(method), class_="note")
            + tag("h2", "Change points") + tag("div", cp_table, class_="wide")
            + tag("h2", "Series") + "".join(charts)
            + tag("h2", "Files") + tag("div", files_table, class_="wide"))
    data = {"series": data_series, "links": [h for h, _ in links], "scale": shared_scale(widest)}
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>%s</title><style>%s</style></head><body>%s"
            "<footer>Written by history.sh (Barrage). Charts: Apache ECharts, embedded (Apache-2.0).</footer>"
            "<script type=\"application/json\" id=\"history-data\">%s</script>"
            "<script>%s</script><script>%s</script><script>%s</script></body></html>\n"
            % (esc(title), read(os.path.join(HERE, "report", "report.css")), body, script_json(data),
               inline_script(read(os.path.join(HERE, "report", "vendor", "echarts.min.js.gz"))),
               inline_script(read(os.path.join(HERE, "report", "format.js"))),
               inline_script(read(os.path.join(HERE, "history_page.js")))))


def main(argv):
    parser = argparse.ArgumentParser(prog="history_page.py")
    parser.add_argument("--doc", required=True)
    parser.add_argument("--page", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        with open(args.doc, encoding="utf-8") as f:
            text = build(json.load(f), args.page)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("history_page.py: could not write the page: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
