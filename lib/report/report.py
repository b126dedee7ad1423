#!/usr/bin/env python3
"""report: results files -> one self-contained HTML page (report.sh does the checks and the jq).

    report.py run --results FILE --model MODEL --out OUT
        The page of one run. MODEL: lib/readme.jq's model of FILE (the README's tables: ranks,
        intervals, ties, flags), so the page and the README never disagree.
    report.py compare --base FILE --new FILE --document DOC --text TEXT --out OUT
        The page of a comparison. DOC: compare-results.sh's JSON document of BASE and NEW (its
        verdicts, shown as they are), TEXT: its text report.

Tables are HTML written here (readable without JavaScript); charts are Apache ECharts options
in the page's data, drawn by report.js in the browser. The library, the styles and the data are
inside the page: it opens from disk with no network. Series are kept small: a latency curve has
a point per non-empty histogram bucket (at most MAX_CURVE_POINTS), a timeline at most
MAX_TIMELINE_POINTS points (longer ones merged: requests/s averaged, p99 the seconds' highest).
Writes OUT (the caller renames it into place). Exit 0, or 1 with the reason on stderr.
"""

import argparse
import gzip
import html
import json
import math
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmt  # noqa: E402
import hdr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_CURVE_POINTS = 300
MAX_TIMELINE_POINTS = 300
PERCENTILES = [("p50", 0.5), ("p75", 0.75), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999)]
PROTOCOLS = {"h1": "HTTP/1.1", "h2c": "HTTP/2 cleartext (h2c)", "h1s": "HTTP/1.1 over TLS",
             "h2": "HTTP/2 over TLS", "h3": "HTTP/3 over QUIC (h3)"}


def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def tag(name, body="", **attrs):
    """<name attrs>body</name>; body is HTML already; attrs with a None value are left out."""
    text = "".join(' %s="%s"' % (k.rstrip("_").replace("_", "-"), esc(v)) for k, v in attrs.items() if v is not None)
    return "<%s%s>%s</%s>" % (name, text, body, name)


def num(text, value, field=None, title=None):
    """A table cell holding a number: its text for people, its value for machines (data-value)."""
    raw = None if value is None else repr(value) if isinstance(value, float) else str(value)
    return tag("td", esc(text), class_="num", data_value=raw, data_field=field, title=title)


def table(head, rows, cls=None, caption=None):
    thead = tag("thead", tag("tr", "".join(tag("th", esc(h)) for h in head)))
    return tag("table", (tag("caption", esc(caption)) if caption else "") + thead + tag("tbody", "".join(rows)),
               class_=cls)


EMPTY_CELLS = {"", fmt.DASH, "%s (%s)" % (fmt.DASH, fmt.DASH)}


def cell_text(cell):
    """A cell's text without its tags (what a reader sees of it)."""
    return html.unescape(re.sub(r"<[^>]*>", "", cell)).strip()


def sparse_table(head, rows, optional, cls=None, caption=None):
    """table() of ROWS, [(cells, tr attributes)], without the OPTIONAL columns (by heading)
    that are empty in every row ("–" or nothing: java-http's "vs" where java-http is not in
    the run, a client CPU no tool recorded): a column of dashes answers nothing."""
    keep = [i for i, h in enumerate(head)
            if h not in optional or any(cell_text(cells[i]) not in EMPTY_CELLS for cells, _ in rows)]
    return table([head[i] for i in keep], [tag("tr", "".join(cells[i] for i in keep), **attrs) for cells, attrs in rows],
                 cls=cls, caption=caption)


def has_data(series):
    """A chart series with at least one value: an empty one would only add a legend entry."""
    def present(d):
        if isinstance(d, dict):
            d = d.get("value")
        if isinstance(d, list):
            return bool(d) and d[-1] is not None
        return d is not None
    return any(present(d) for d in series.get("data") or [])


def slot(row):
    """A row's server as the README names it: NAME@A / NAME@B in an A/A run, its variant's label (jetty:vt) in a variant run."""
    if (row.get("variant") or {}).get("label"):
        return row["variant"]["label"]
    return row["server"] + ("@" + row["aa_group"] if row.get("aa_group") else "")


def successful_rps(metrics):
    if metrics is None:
        return None
    if metrics.get("successful_rps") is not None:
        return metrics["successful_rps"]
    if metrics.get("succeeded") is None or not metrics.get("duration_us"):
        return None
    return metrics["succeeded"] / (metrics["duration_us"] / 1e6)


def median_run(rows):
    """The run with the median successful requests/s (the lower middle one), as the README picks it."""
    ok = sorted((r for r in rows if r["status"] == "ok" and r.get("metrics")),
                key=lambda r: successful_rps(r["metrics"]) or 0)
    return ok[(len(ok) - 1) // 2] if ok else None


def not_steady(row):
    """The row's server warm-up hit its cap before the load was steady (lib/steady.sh)."""
    warm = row.get("server_warmup") if isinstance(row.get("server_warmup"), dict) else {}
    return warm.get("steady") is False


def drifting(row):
    """The row's per-second series still trended in its measured window (lib/drift.jq)."""
    drift = row.get("drift") if isinstance(row.get("drift"), dict) else {}
    return drift.get("status") == "drifting"


def safe_href(target, folder):
    """TARGET as a link's address, or None: an http(s) URL with a host as it is; a path relative
    to FOLDER without "..", a leading "/", a backslash or a control character, naming a file
    that exists, as "./" + its percent-encoded form (no scheme can be read into it)."""
    if not isinstance(target, str) or not target or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in target):
        return None
    if target.split(":", 1)[0].lower() in ("http", "https"):
        url = urllib.parse.urlsplit(target)
        return target if url.scheme in ("http", "https") and url.hostname else None
    parts = target.split("/")
    if "\\" in target or any(p in ("", ".", "..") for p in parts):  # "" first: an absolute path
        return None
    if not os.path.exists(os.path.join(folder, *parts)):
        return None
    return "./" + urllib.parse.quote(target, safe="/")


# ---- chart series -----------------------------------------------------------------------------

def thin_log(points):
    """At most MAX_CURVE_POINTS of a curve over a log x axis, evenly spread in log x, the last kept."""
    if len(points) <= MAX_CURVE_POINTS:
        return points
    span = math.log10(points[-1][0]) - math.log10(points[0][0])
    step = span / MAX_CURVE_POINTS
    out, last = [], None
    for x, y in points[:-1]:
        lx = math.log10(x)
        if last is None or lx - last >= step:
            out.append([x, y])
            last = lx
    return out + [points[-1]]


def latency_curve(metrics, key="latency_us"):
    """[[x, µs]] on the "nines" axis (x = 1 / (1 - quantile)): from the whole run's histogram
    when the record has it (every bucket), else the record's percentiles; None when neither."""
    summary = (metrics or {}).get(key)
    encoded = ((metrics or {}).get("histograms") or {}).get(key)
    if encoded:
        try:
            hist = hdr.decode(encoded)
        except ValueError:
            hist = None
        if hist is not None and hist.total > 0:
            top = summary.get("max") if summary else None
            points = []
            for q, value in hist.percentile_curve():
                x = hist.total if q >= 1 else 1 / (1 - q)
                points.append([round(x, 4), min(value, top) if top is not None else value])
            return thin_log(points)
    if not summary:
        return None
    points = [[round(1 / (1 - q), 4), summary.get(p)] for p, q in PERCENTILES if summary.get(p) is not None]
    return points or None


def timeline_points(metrics):
    """{t, rps, p99, grace} per second of barrage's timeline (merged when long), or None."""
    seconds = [s for s in (metrics or {}).get("timeline") or [] if s.get("length_s", 0) > 0]
    if not seconds:
        return None
    group = max(1, math.ceil(len(seconds) / MAX_TIMELINE_POINTS))
    out = []
    for i in range(0, len(seconds), group):
        part = seconds[i:i + group]
        length = sum(s["length_s"] for s in part)
        p99 = [s["latency_us"]["p99"] for s in part if s.get("latency_us")]
        out.append({"t": part[0]["t_s"], "rps": round(sum(s["succeeded"] for s in part) / length, 2),
                    "p99": max(p99) if p99 else None, "grace": all(s.get("in_grace") for s in part)})
    return {"points": out, "merged": group}


def size_text(size):
    """1024 -> "1 KiB", 1048576 -> "1 MiB" (as lib/readme_sizes.jq says them)."""
    if size >= 1048576 and size % 1048576 == 0:
        return "%d MiB" % (size // 1048576)
    if size >= 1024 and size % 1024 == 0:
        return "%d KiB" % (size // 1024)
    return "%d B" % size


def nines_axis():
    return {"type": "log", "name": "percentile", "nameLocation": "middle", "nameGap": 28, "min": 1,
            "_format": "nines", "minorSplitLine": {"show": False}}


def latency_axis(name="latency"):
    return {"type": "log", "name": name, "_format": "us", "nameGap": 12}


def base_option(title, subtitle=None):
    return {"title": {"text": title, "subtext": subtitle or "", "left": "left", "textStyle": {"fontSize": 14}},
            "legend": {"top": 44, "left": 60, "right": 90, "type": "scroll"},
            "grid": {"left": 70, "right": 70, "top": 95, "bottom": 50, "containLabel": False},
            "tooltip": {"trigger": "item"}, "toolbox": {"feature": {"dataZoom": {}, "restore": {}}},
            "animation": False}


def latency_chart(title, curves, subtitle=None):
    """curves: [(name, points)] -> latency by percentile on a nines axis."""
    option = base_option(title, subtitle or "from the whole run's HDR histogram where the record has one, "
                         "else its percentiles; x: 1/(1 − percentile)")
    option["xAxis"] = nines_axis()
    option["yAxis"] = latency_axis()
    option["tooltip"] = {"trigger": "item", "_format": "nines_us"}
    option["series"] = [{"name": name, "type": "line", "step": False, "showSymbol": len(points) <= 12,
                         "symbolSize": 5, "data": points} for name, points in curves if points]
    return option


# ---- the run page ------------------------------------------------------------------------------

class RunPage:
    def __init__(self, doc, model, results_path):
        self.doc = doc
        self.model = model
        self.results_dir = os.path.dirname(os.path.abspath(results_path))
        self.stem = os.path.splitext(os.path.basename(results_path))[0]
        self.charts = {}

    def chart(self, kind, option, height=340):
        if isinstance(option.get("series"), list):
            option["series"] = [x for x in option["series"] if has_data(x)]
        chart_id = "c%d" % (len(self.charts) + 1)
        self.charts[chart_id] = option
        return tag("div", "", class_="chart", id=chart_id, data_kind=kind, style="height:%dpx" % height)

    def rows_of(self, scenario, protocol, tool, profiled=None, load=False):
        return [r for r in self.doc["results"]
                if r["scenario"] == scenario and r["protocol"] == protocol and r["tool"] == tool
                and (r.get("load") is not None) == load
                and (load or ((r.get("profile") or {}).get("event")) == profiled)]

    def link(self, target, text):
        """A link to what a results file names (a run's logs, a flame graph): only an http(s)
        URL, or a relative path to a file that exists in the results file's folder or below it,
        percent-encoded (a file named "javascript:..." stays a file); nothing for anything else
        (another scheme, an absolute path, "..")."""
        href = safe_href(target, self.results_dir)
        return tag("a", esc(text), href=href) if href else ""

    def row_links(self, row):
        logs = self.stem + ".logs"
        load = row.get("load") or {}
        suffix = {"rate": "-rate=%s" % load.get("target_rps"), "capacity": "-capacity"}.get(load.get("mode"), "")
        run_dir = "%s/%d-%s-%s-%s-%s%s" % (logs, row["run"], slot(row), row["tool"], row["protocol"],
                                            row["scenario"], suffix)
        links = [self.link(run_dir, "raw output"),
                 self.link("%s/%s-run%d.log" % (logs, slot(row), row["run"]), "server log"),
                 self.link("%s/%s-run%d.gc.log" % (logs, slot(row), row["run"]), "GC log"),
                 self.link((row.get("profile") or {}).get("flame_graph"), "flame graph")]
        return " ".join(link for link in links if link)

    # -- top: facts ------------------------------------------------------------------------------
    def facts(self):
        d, s, st = self.doc, self.doc["system"], self.doc["settings"]
        items = [("Date", d["timestamp"]), ("Label", d.get("label")),
                 ("Suite commit", d.get("commit") or "unknown"),
                 ("Machine", "%s, %s cores, %s GB RAM (%s)" % (s["cpuModel"], s["cpuCores"], s["ramGB"], s["arch"])),
                 ("OS", "%s, kernel %s" % (s["os"], s["kernel"])),
                 ("Java", (s.get("java") or "unknown") + (" (%s)" % s["jvmFlags"] if s.get("jvmFlags") else ""))]
        if s.get("cpuPinning"):
            items.append(("CPU pinning", "server: %s, client: %s" % (s["cpuPinning"]["server"], s["cpuPinning"]["client"])))
        scaling = s.get("cpuScaling")
        if scaling:
            items.append(("CPU scaling", scaling.get("note") or "governor %s, driver %s, %s–%s kHz, boost %s%s" % (
                scaling.get("governor"), scaling.get("driver"), scaling.get("min_khz"), scaling.get("max_khz"),
                scaling.get("boost"), ", virtualized" if scaling.get("virtualized") else "")))
        if s.get("description"):
            items.append(("Notes", s["description"]))
        items.append(("Tools", ", ".join(v if v.startswith(k) else "%s %s" % (k, v) for k, v in d["tools"].items() if v is not None)))
        runs = "%s × %s s after %s s of warm-up" % (st["runs"], st["duration_s"], st["warmup_s"])
        if st.get("server_warmup_s") and st.get("server_warmup_mode") == "auto":
            runs += "; server warm-up per shape until steady state, at most %s s" % st["server_warmup_s"]
        elif st.get("server_warmup_s"):
            runs += "; %s s of server warm-up per shape" % st["server_warmup_s"]
        items.append(("Runs", runs))
        rounds = d.get("rounds")
        if st.get("budget_s") is not None:
            budget = "%d min, tie margin %s%%; %d rounds; ended: %s" % (
                -(-st["budget_s"] // 60), round(st.get("tie_margin", 0) * 100, 1), st["runs"],
                {"decided": "every pair of neighbours decided or equal", "budget": "the budget ended with pairs open",
                 None: "still going"}.get((rounds or {}).get("ended"), (rounds or {}).get("ended")))
            if rounds and rounds.get("spent_s") is not None:
                budget += " (%d s spent)" % rounds["spent_s"]
            if st.get("left_out"):
                budget += "; left out to fit it: %s" % st["left_out"]
            items.append(("Budget", budget))
        if rounds:
            ranked = [t for t in rounds.get("tables", []) if not t.get("cross_check")]
            total = {k: sum(t["counts"][k] for t in ranked) for k in ("decided", "equal", "open")}
            items.append(("Pairs of neighbours", "%d decided, %d equal, %d open (in %d table%s)" % (
                total["decided"], total["equal"], total["open"], len(ranked), "" if len(ranked) == 1 else "s")))
        extra = []
        if st.get("seed") is not None:
            extra.append("seed %s" % st["seed"])
        if st.get("aa"):
            extra.append("A/A run")
        if st.get("profile"):
            extra.append("profiled: %s" % st["profile"])
        if st.get("gc_log") is False:
            extra.append("no GC log")
        if extra:
            items.append(("Settings", ", ".join(extra)))
        if st.get("order"):
            items.append(("Server order", " / ".join(" ".join(r) for r in st["order"])))
        lab = d.get("lab")
        if lab:
            items.append(("Lab", "server %s, load %s%s" % (lab["server_host"], ", ".join(lab["load_hosts"]),
                                                           "; warnings: " + "; ".join(lab["warnings"]) if lab["warnings"] else "")))
        body = "".join(tag("tr", tag("th", esc(k)) + tag("td", esc(v))) for k, v in items if v is not None)
        body += tag("tr", tag("th", "Reproduce") + tag("td", tag("code", esc(d["command"]))))
        return tag("table", tag("tbody", body), class_="facts", id="facts")

    # -- the answer first ------------------------------------------------------------------------
    def headline(self, tables):
        """Per ranked table, the answer before the details: who leads, by how much over the
        next, and whether that is decided (the rounds' verdict of the pair, or the 95% intervals:
        apart or overlapping) or still open; an A/A table has no leader (its gap is noise)."""
        items = []
        for i, t in enumerate(tables):
            if t.get("aa"):
                continue
            name = "%s · %s · %s" % (t["scenario"], PROTOCOLS.get(t["protocol"], t["protocol"]), t["tool"])
            ranked = [e for e in t["measured"] if (e.get("successful_rps") or {}).get("median")]
            if not ranked:
                continue
            first = ranked[0]
            rps = first["successful_rps"]
            if len(ranked) == 1:
                text, verdict = "%s alone measured: %s req/s" % (first["server"], fmt.thousands(rps["median"])), "alone"
            else:
                second = ranked[1]
                gap = rps["median"] / second["successful_rps"]["median"] - 1
                pair = next((p for p in (t.get("rounds") or {}).get("pairs") or []
                             if p["faster"] == first["server"] and p["slower"] == second["server"]), None)
                if pair:
                    verdict = pair["verdict"]
                elif rps.get("interval") and second["successful_rps"].get("interval"):
                    verdict = "open" if first.get("tied") else "decided"
                else:
                    verdict = "not judged"
                why = {"decided": "decided: their 95% intervals are apart",
                       "equal": "equal: within the tie margin",
                       "open": "open: their 95% intervals overlap, more runs could tell",
                       "not judged": "not judged: %s, no 95%% interval (3 runs give one)" % (
                           "1 run" if min(rps.get("n", 1), second["successful_rps"].get("n", 1)) == 1 else "2 runs")}.get(verdict, verdict)
                if round(gap, 3) == 0:
                    text = "%s and %s level at %s req/s: %s" % (first["server"], second["server"], fmt.thousands(rps["median"]), why)
                else:
                    text = "%s leads with %s req/s, %s ahead of %s (%s): %s" % (
                        first["server"], fmt.thousands(rps["median"]), fmt.signed_pct(gap).lstrip("+"), second["server"],
                        fmt.thousands(second["successful_rps"]["median"]), why)
            items.append(tag("li", tag("a", esc(name), href="#t%d" % i) + esc(": " + text), class_="verdict-" + verdict.replace(" ", "-"),
                             data_key="/".join([t["scenario"], t["protocol"], t["tool"]]), data_verdict=verdict,
                             data_leader=first["server"]))
        items += self.openloop_headline()
        if not items:
            return ""
        return tag("section", tag("h2", "The answer", id="answer") + tag("ul", "".join(items)), class_="headline", id="headline")

    def openloop_headline(self):
        """At each fixed rate, which server answered it with the lowest p99 and by how much
        (the runs have no interval: not judged), which did not deliver it; per capacity search,
        the highest capacity found."""
        ol = self.model.get("openloop") or {}
        items = []

        def item(t, text, verdict, leader, rate=None):
            name = "%s · %s · %s" % (t["scenario"], PROTOCOLS.get(t["protocol"], t["protocol"]), t["tool"])
            key = "/".join([t["scenario"], t["protocol"], t["tool"]] + ([str(rate)] if rate is not None else ["capacity"]))
            return tag("li", tag("a", esc(name), href="#o-%s-%s-%s" % (t["scenario"], t["protocol"], t["tool"])) + esc(text),
                       class_="verdict-" + verdict.replace(" ", "-"), data_key=key, data_verdict=verdict, data_leader=leader)
        for t in ol.get("rate_tables", []):
            for rate in t["rates"]:
                entries = [e for e in t["entries"] if e["rate"] == rate]
                ok = sorted((e for e in entries if e["delivered"] and (e.get("latency") or {}).get("p99")),
                            key=lambda e: (e["latency"]["p99"], e["server"]))
                missed = [e["server"] for e in entries if not e["delivered"]]
                tail = "; not delivered by %s" % ", ".join(missed) if missed and ok else ""
                if not ok:
                    items.append(item(t, " at %s req/s: no server delivered it" % fmt.thousands(rate), "none", "", rate))
                elif len(ok) == 1:
                    items.append(item(t, " at %s req/s: %s%s delivered it, p99 %s" % (
                        fmt.thousands(rate), "only " if missed else "", ok[0]["server"], fmt.latency(ok[0]["latency"]["p99"]))
                        + tail, "alone", ok[0]["server"], rate))
                else:
                    a, b = ok[0], ok[1]
                    items.append(item(t, " at %s req/s: %s has the lowest p99, %s, %s below %s (%s); not judged: no interval"
                                      % (fmt.thousands(rate), a["server"], fmt.latency(a["latency"]["p99"]),
                                         fmt.signed_pct(1 - a["latency"]["p99"] / b["latency"]["p99"]).lstrip("+"), b["server"],
                                         fmt.latency(b["latency"]["p99"])) + tail, "not judged", a["server"], rate))
        for t in ol.get("capacity_tables", []):
            found = sorted((e for e in t["entries"] if e.get("capacity_rps")), key=lambda e: (-e["capacity_rps"], e["server"]))
            if not found:
                continue
            text = " capacity (%s): highest %s, %s req/s%s" % (
                ", ".join(t["conditions"]), found[0]["server"], fmt.thousands(found[0]["capacity_rps"]),
                "" if found[0].get("confirmed") else " (not confirmed)")
            if len(found) > 1:
                text += "; next %s, %s req/s" % (found[1]["server"], fmt.thousands(found[1]["capacity_rps"]))
            items.append(item(t, text, "not judged" if len(found) > 1 else "alone", found[0]["server"]))
        return items

    # -- closed-loop tables ----------------------------------------------------------------------
    def flags(self, entry, rows):
        marks = []
        if (entry.get("error_rate") or 0) > 0:
            marks.append(("⚠", "errors", "some requests failed: %s of all" % fmt.share(entry["error_rate"])))
        if entry.get("approximate"):
            marks.append(("≈", "approximate", "approximate accounting (the tool does not count failed requests exactly)"))
        if entry.get("client_bound_runs"):
            marks.append(("†", "client-bound", "client-bound in %d of %d runs: the load tool was busy on 90%% or more "
                          "of its cores; the figure is the tool's ceiling" % (entry["client_bound_runs"], entry["ok"])))
        if entry.get("delivered") is False:
            marks.append(("↯", "not delivered", "the offered rate was not delivered"))
        if entry.get("slo_failed"):
            marks.append(("✗", "SLO broken", "a run broke an --slo condition"))
        if any(not_steady(r) for r in rows):
            marks.append(("~", "not steady", "the server was not steady after its warm-up"))
        if any(drifting(r) for r in rows):
            marks.append(("↗", "drifting", "the server's figures drifted during the run"))
        return "".join(tag("span", esc(sym) + " " + esc(word), class_="flag", data_flag=word, title=why)
                       for sym, word, why in marks)

    def spread(self, summary, formatter):
        if not summary:
            return fmt.DASH
        if summary.get("interval"):
            return "95%%: %s–%s" % (formatter(summary["interval"]["lo"]), formatter(summary["interval"]["hi"]))
        if summary.get("n", 1) > 1:
            return "range %s–%s" % (formatter(summary["min"]), formatter(summary["max"]))
        return "1 run"

    def closed_table(self, t, index):
        rows = self.rows_of(t["scenario"], t["protocol"], t["tool"], t.get("profiled"))
        by_server = {}
        for r in rows:
            by_server.setdefault(slot(r), []).append(r)
        title = "%s · %s · %s%s" % (t["scenario"], PROTOCOLS.get(t["protocol"], t["protocol"]), t["tool"],
                                    " · profiled (%s)" % t["profiled"] if t.get("profiled") else "")
        out = [tag("h2", esc(title), id="t%d" % index)]
        if t.get("aa"):
            floor = (t["aa"] or {}).get("floor")
            out.append(tag("p", esc("A/A run: one server measured under two labels; their difference is noise. "
                                    + ("Noise floor of successful requests/s: %s (change %s), of p99: %s."
                                       % (fmt.signed_pct(floor["successful_rps"]["floor"]), fmt.signed_pct(floor["successful_rps"]["change"]),
                                          fmt.signed_pct(floor["p99"]["floor"]) if floor.get("p99") else fmt.DASH)
                                       if floor and floor.get("successful_rps") else "")), class_="note aa"))
        vs = "vs " + (t.get("baseline") or self.model.get("baseline", ""))
        head = ["Rank", "Server", "Successful req/s", "Interval", vs, "p50", "p99",
                "p99 interval", "p99.9", "Errors", "Server CPU", "Server RSS", "Client CPU", "Flags"]
        body = []
        for e in t["measured"]:
            srows = by_server.get(e["server"], [])
            ok = [r for r in srows if r["status"] == "ok"]
            client = [r["client_stats"].get("busy_pct") if r["client_stats"].get("busy_pct") is not None
                      else r["client_stats"].get("cpu_pct") for r in ok if r.get("client_stats")]
            client = sorted(c for c in client if c is not None)
            client_median = client[(len(client) - 1) // 2] if client else None
            lat = e.get("latency") or {}
            med = lambda p: (lat.get(p) or {}).get("median")  # noqa: E731
            rank = ("=%d" if e.get("tied") else "%d") % e["rank"]
            body.append(([
                tag("td", esc(rank), class_="rank", data_tied="true" if e.get("tied") else "false"),
                tag("td", esc(e["server"]), class_="server"),
                num(fmt.thousands((e.get("successful_rps") or {}).get("median")), (e.get("successful_rps") or {}).get("median"), "successful_rps"),
                tag("td", esc(self.spread(e.get("successful_rps"), fmt.thousands)), class_="spread"),
                num(fmt.fixed(e.get("vs_baseline"), 2) + ("×" if e.get("vs_baseline") is not None else ""), e.get("vs_baseline"), "vs_baseline"),
                num(fmt.latency(med("p50")), med("p50"), "p50"),
                num(fmt.latency(med("p99")), med("p99"), "p99"),
                tag("td", esc(self.spread(lat.get("p99"), fmt.latency)), class_="spread"),
                num(fmt.latency(med("p999")), med("p999"), "p999"),
                num(fmt.share(e.get("error_rate")), e.get("error_rate"), "error_rate"),
                num(fmt.pct((e.get("cpu_pct") or {}).get("median")), (e.get("cpu_pct") or {}).get("median"), "cpu_pct"),
                num(fmt.kib((e.get("rss_peak_kb") or {}).get("median")), (e.get("rss_peak_kb") or {}).get("median"), "rss_peak_kb"),
                num(fmt.pct(client_median), client_median, "client_busy_pct"),
                tag("td", self.flags(e, srows), class_="flags")],
                {"data_server": e["server"], "data_key": "/".join([e["server"], t["scenario"], t["protocol"], t["tool"]])}))
        if body:
            out.append(sparse_table(head, body, {"Interval", vs, "p99 interval", "p99.9", "Server CPU", "Server RSS",
                                                 "Client CPU", "Flags"}, cls="ranking"))
            client_shown = any((r.get("client_stats") or {}).get("cpu_pct") is not None
                               or (r.get("client_stats") or {}).get("busy_pct") is not None for r in rows if r["status"] == "ok")
            out.append(tag("p", esc("Ranked by successful requests/s (status 100–399 per second of the measured window); "
                                    "figures are medians of the successful runs. Servers whose 95% intervals overlap share "
                                    "a rank (=). CPU: percent of one core" + ("; client CPU: the load tool busy (on a CPU or "
                                                                              "waiting for one)." if client_shown else ".")),
                               class_="note"))
        else:
            out.append(tag("p", "No server was measured.", class_="note"))
        out.append(self.pairs(t))
        for e in t.get("unmeasured", []):
            out.append(tag("p", esc("%s: not measured (%s)" % (e["server"], "; ".join(e["reasons"]) or "no run")), class_="unmeasured"))
        for e in t.get("partial", []):
            out.append(tag("p", esc("%s: %d of %d runs not counted: %s" % (e["server"], e["runs"] - e["ok"], e["runs"],
                                                                          "; ".join(e["reasons"]))), class_="partial"))
        if t["measured"]:
            out.append(self.closed_charts(t, by_server))
        out.append(self.runs_table(rows))
        return tag("section", "".join(out), class_="table-section")

    def pairs(self, t):
        """How far the table's ranking got (the results' rounds, lib/rounds.jq): its pairs of
        neighbours decided, equal, open, each with the interval of their ratio, and each server's
        runs and why it got them."""
        r = t.get("rounds")
        if not r or not r.get("pairs"):
            return ""
        c = r["counts"]
        margin = round(r["tie_margin"] * 100, 1)
        head = tag("p", esc("Pairs of neighbours: %d decided (intervals apart), %d equal (within %s%%), %d open."
                            % (c["decided"], c["equal"], ("%g" % margin), c["open"])), class_="note pairs",
                   data_decided=str(c["decided"]), data_equal=str(c["equal"]), data_open=str(c["open"]))
        rows = [tag("tr", "".join([
            tag("td", esc("%s – %s" % (p["faster"], p["slower"]))),
            tag("td", esc(p["verdict"]), class_="verdict"),
            tag("td", esc("%s–%s" % (fmt.fixed(p["ratio"]["lo"], 3), fmt.fixed(p["ratio"]["hi"], 3)) if p.get("ratio") else fmt.DASH))]),
            data_verdict=p["verdict"]) for p in r["pairs"]]
        runs = [tag("tr", "".join([tag("td", esc(e["contestant"])), tag("td", esc(str(e["runs"]))), tag("td", esc(e["why"]))]))
                for e in r["entries"]]
        return (head + table(["Pair", "Verdict", "slower / faster, 95%"], rows, cls="pairs")
                + table(["Server", "Runs", "Why"], runs, cls="runs-why"))

    def closed_charts(self, t, by_server):
        servers = [e["server"] for e in t["measured"]]
        charts = []
        # successful requests/s: box = 95% interval (or the range), whiskers = the runs' extremes
        option = base_option("Successful requests/s", "box: 95% interval (2 runs: range); whiskers: lowest and highest run")
        option["grid"]["left"] = 130
        option["yAxis"] = {"type": "category", "data": servers[::-1]}
        # from 0: a bar's length is then its requests/s, and a 35% gap looks like one (an axis
        # from the lowest run drew it as a factor of four)
        option["xAxis"] = {"type": "value", "name": "req/s", "_format": "rps", "min": 0}
        option["tooltip"] = {"trigger": "item", "_format": "rps"}
        boxes, points = [], []
        for e in t["measured"][::-1]:
            s = e.get("successful_rps") or {}
            lo = (s.get("interval") or {}).get("lo", s.get("min"))
            hi = (s.get("interval") or {}).get("hi", s.get("max"))
            boxes.append([s.get("min"), lo, s.get("median"), hi, s.get("max")])
            for r in by_server.get(e["server"], []):
                if r["status"] == "ok":
                    points.append([successful_rps(r["metrics"]), e["server"]])
        option["series"] = [{"name": "median and interval", "type": "boxplot", "data": boxes, "layout": "horizontal"},
                            {"name": "runs", "type": "scatter", "data": points, "symbolSize": 7}]
        charts.append(self.chart("rps", option, height=max(180, 70 + 36 * len(servers))))
        # latency by percentile, one curve per server (its median run)
        curves = [(s, latency_curve((median_run(by_server.get(s, [])) or {}).get("metrics"))) for s in servers]
        charts.append(self.chart("latency", latency_chart("Latency by percentile (each server's median run)", curves)))
        # over time, when barrage recorded a timeline
        lines = [(s, median_run(by_server.get(s, []))) for s in servers]
        lines = [(s, r, timeline_points(r["metrics"])) for s, r in lines if r]
        lines = [(s, r, tl) for s, r, tl in lines if tl]
        if lines:
            charts.append(self.chart("timeline", self.timeline_option(lines), height=380))
        # resources
        def client(server):
            vals = sorted(r["client_stats"].get("cpu_pct") for r in by_server.get(server, [])
                          if r["status"] == "ok" and r.get("client_stats") and r["client_stats"].get("cpu_pct") is not None)
            return vals[(len(vals) - 1) // 2] if vals else None
        option = base_option("Server CPU and memory" + (", load tool CPU" if any(client(s) is not None for s in servers) else ""),
                             "medians of the runs; CPU: % of one core")
        option["xAxis"] = {"type": "category", "data": servers}
        option["yAxis"] = [{"type": "value", "name": "CPU %"}, {"type": "value", "name": "RSS MiB"}]
        option["tooltip"] = {"trigger": "axis"}
        option["series"] = [
            {"name": "server CPU %", "type": "bar", "data": [(e.get("cpu_pct") or {}).get("median") for e in t["measured"]]},
            {"name": "load tool CPU %", "type": "bar", "data": [client(s) for s in servers]},
            {"name": "server RSS MiB", "type": "bar", "yAxisIndex": 1,
             "data": [None if (e.get("rss_peak_kb") or {}).get("median") is None else round(e["rss_peak_kb"]["median"] / 1024, 1)
                      for e in t["measured"]]}]
        if any(has_data(x) for x in option["series"]):
            charts.append(self.chart("resources", option, height=300))
        return tag("div", "".join(charts), class_="charts")

    def timeline_option(self, lines):
        warmup = lines[0][1]["config"]["warmup_s"]
        duration = lines[0][1]["config"]["duration_s"]
        merged = max(tl["merged"] for _, _, tl in lines)
        gc = []
        for s, r, _ in lines:
            g = ((r.get("jvm") or {}).get("gc") or {})
            if g.get("pauses") is not None:
                gc.append("%s: %d GC pauses, longest %s ms" % (s, g["pauses"], fmt.fixed(g.get("pause_max_ms"), 1)))
        subtitle = ("each server's median run; shaded: warm-up (not recorded) and grace"
                    + ("; %d s per point (p99: the highest second)" % merged if merged > 1 else "")
                    + ("\n" + "; ".join(gc) if gc else ""))
        option = base_option("Successful requests/s and p99 per second", subtitle)
        option["grid"]["top"] = 95 if not gc else 110
        option["legend"]["top"] = 44 if not gc else 60
        option["xAxis"] = {"type": "value", "name": "s", "min": -warmup if warmup else 0}
        option["yAxis"] = [{"type": "value", "name": "req/s", "_format": "rps"}, latency_axis("p99")]
        option["tooltip"] = {"trigger": "axis", "_format": "timeline"}
        option["dataZoom"] = [{"type": "inside"}, {"type": "slider", "height": 18, "bottom": 6}]
        option["grid"]["bottom"] = 60
        series = []
        for i, (s, r, tl) in enumerate(lines):
            rps = {"name": s + " req/s", "type": "line", "showSymbol": False, "data": [[p["t"], p["rps"]] for p in tl["points"]]}
            if i == 0:
                areas = []
                if warmup:
                    areas.append([{"name": "warm-up", "xAxis": -warmup}, {"xAxis": 0}])
                grace = [p["t"] for p in tl["points"] if p["grace"]]
                if grace:
                    areas.append([{"name": "grace", "xAxis": min(duration, grace[0])}, {"xAxis": grace[-1] + 1}])
                if areas:
                    rps["markArea"] = {"silent": True, "itemStyle": {"color": "rgba(140,140,140,0.15)"}, "data": areas}
            series.append(rps)
            series.append({"name": s + " p99", "type": "line", "yAxisIndex": 1, "showSymbol": False,
                           "lineStyle": {"type": "dashed"},
                           "data": [[p["t"], p["p99"]] for p in tl["points"] if p["p99"]]})
        option["series"] = series
        return option

    def runs_table(self, rows):
        head = ["Server", "Run", "Status", "Successful req/s", "Requests", "Failed", "p50", "p99", "max",
                "Server CPU", "Server RSS", "Client CPU (busy)", "GC pauses", "Links"]
        body = []
        for r in sorted(rows, key=lambda r: (slot(r), r["run"])):
            m = r.get("metrics") or {}
            lat = m.get("latency_us") or {}
            ss = r.get("server_stats") or {}
            cs = r.get("client_stats") or {}
            gc = ((r.get("jvm") or {}).get("gc") or {})
            key = "/".join([slot(r), r["scenario"], r["protocol"], r["tool"], str(r["run"])])
            status = r["status"] + (": " + r["reason"] if r.get("reason") else "")
            body.append(([
                tag("td", esc(slot(r))), num(str(r["run"]), r["run"], "run"),
                tag("td", esc(status), class_="status-" + r["status"]),
                num(fmt.thousands(successful_rps(m) if m else None), successful_rps(m) if m else None, "successful_rps"),
                num(fmt.thousands(m.get("requests")), m.get("requests"), "requests"),
                num(fmt.thousands(m.get("failed")), m.get("failed"), "failed"),
                num(fmt.latency(lat.get("p50")), lat.get("p50"), "p50"),
                num(fmt.latency(lat.get("p99")), lat.get("p99"), "p99"),
                num(fmt.latency(lat.get("max")), lat.get("max"), "max"),
                num(fmt.pct(ss.get("cpu_pct")), ss.get("cpu_pct"), "cpu_pct"),
                num(fmt.kib(ss.get("rss_peak_kb")), ss.get("rss_peak_kb"), "rss_peak_kb"),
                num("%s (%s)" % (fmt.pct(cs.get("cpu_pct")), fmt.pct(cs.get("busy_pct"))), cs.get("cpu_pct"), "client_cpu_pct"),
                num("%s, max %s ms" % (gc["pauses"], fmt.fixed(gc.get("pause_max_ms"), 1)) if gc.get("pauses") is not None else fmt.DASH,
                    gc.get("pauses"), "gc_pauses"),
                tag("td", self.row_links(r), class_="links")], {"data_key": key}))
        return tag("details", tag("summary", "Every run (%d rows)" % len(rows))
                   + sparse_table(head, body, {"Failed", "max", "Server CPU", "Server RSS", "Client CPU (busy)", "GC pauses", "Links"},
                                  cls="runs"))

    # -- fixed rates and capacity ----------------------------------------------------------------
    def openloop(self):
        ol = self.model.get("openloop") or {}
        groups = {}
        for t in ol.get("rate_tables", []):
            groups.setdefault((t["scenario"], t["protocol"], t["tool"]), {})["rate"] = t
        for t in ol.get("ramp_tables", []):
            groups.setdefault((t["scenario"], t["protocol"], t["tool"]), {})["ramp"] = t
        for t in ol.get("capacity_tables", []):
            groups.setdefault((t["scenario"], t["protocol"], t["tool"]), {})["capacity"] = t
        out = []
        for (scenario, protocol, tool), g in sorted(groups.items()):
            rows = self.rows_of(scenario, protocol, tool, load=True)
            part = [tag("h2", esc("Same load: %s · %s · %s" % (scenario, PROTOCOLS.get(protocol, protocol), tool)),
                        id="o-%s-%s-%s" % (scenario, protocol, tool))]
            if "rate" in g:
                body = []
                for e in g["rate"]["entries"]:
                    lat = e.get("latency") or {}
                    delivered = e["delivered"]
                    body.append(tag("tr", "".join([
                        tag("td", esc(e["server"])), num(fmt.thousands(e["rate"]), e["rate"], "rate"),
                        num(fmt.thousands(e.get("achieved")), e.get("achieved"), "achieved"),
                        num(fmt.latency(lat.get("p50")) if delivered else fmt.DASH, lat.get("p50") if delivered else None, "p50"),
                        num(fmt.latency(lat.get("p99")) if delivered else fmt.DASH, lat.get("p99") if delivered else None, "p99"),
                        num(fmt.latency(lat.get("p999")) if delivered else fmt.DASH, lat.get("p999") if delivered else None, "p999"),
                        num(fmt.share(e.get("error_rate")), e.get("error_rate"), "error_rate"),
                        tag("td", esc("not delivered: backlog up to %s requests" % fmt.thousands(e.get("backlog_max")))
                            if not delivered else "", class_="delivery"),
                        tag("td", self.flags(e, [r for r in rows if slot(r) == e["server"] and (r.get("load") or {}).get("target_rps") == e["rate"]]),
                            class_="flags")]), data_server=e["server"],
                    data_key="/".join([e["server"], scenario, protocol, tool, str(e["rate"])])))
                part.append(table(["Server", "Offered req/s", "Achieved req/s", "p50", "p99", "p99.9", "Errors", "Delivery", "Flags"],
                                  body, cls="rates"))
                part.append(tag("p", esc("Every server was offered the same requests/s on a schedule (open loop); latency from "
                                         "each request's scheduled time. A rate not delivered shows its achieved rate and "
                                         "backlog, never a latency."), class_="note"))
            if "ramp" in g:
                part.append(self.ramp_table(g["ramp"]))
            if "capacity" in g:
                body = []
                for e in g["capacity"]["entries"]:
                    fs = e.get("failed_step") or {}
                    body.append(tag("tr", "".join([
                        tag("td", esc(e["server"])), num(fmt.thousands(e.get("capacity_rps")), e.get("capacity_rps"), "capacity_rps"),
                        tag("td", "yes" if e.get("confirmed") else "no"),
                        tag("td", esc("%s/s: %s" % (fmt.thousands(fs.get("rate")), fs.get("why")) if fs else fmt.DASH)),
                        num(fmt.thousands(e.get("peak_rps")), e.get("peak_rps"), "peak_rps"),
                        tag("td", self.flags(e, []), class_="flags")]), data_server=e["server"]))
                part.append(table(["Server", "Capacity req/s", "Confirmed", "Lowest failing step", "Peak req/s (closed loop)", "Flags"],
                                  body, cls="capacity",
                                  caption="Capacity: the highest rate meeting %s (precision %s)" % (
                                      ", ".join(g["capacity"]["conditions"]), fmt.signed_pct(g["capacity"]["precision"]).lstrip("+"))))
            part.append(tag("div", self.openloop_charts(g, rows), class_="charts"))
            part.append(self.runs_table(rows))
            out.append(tag("section", "".join(part), class_="table-section"))
        return "".join(out)

    def ramp_table(self, t):
        """A ramped run per server (--rate-stages): how far the offered rate went, where delivery fell short."""
        body = []
        for e in t["entries"]:
            delivered = [p["p99_us"] for p in e["points"] if not p["short"]]
            top = max(delivered) if delivered else None
            body.append(tag("tr", "".join([
                tag("td", esc(e["server"])), num(fmt.thousands(e.get("top_offered")), e.get("top_offered"), "top_offered"),
                num("never" if e.get("first_short") is None else fmt.thousands(e["first_short"]), e.get("first_short"), "first_short"),
                num(fmt.latency(top), top, "p99_max"),
                num(fmt.share(e.get("error_rate")), e.get("error_rate"), "error_rate"),
                tag("td", self.flags(e, []), class_="flags")]), data_server=e["server"]))
        return table(["Server", "Top offered req/s", "Delivery fell short at req/s", "Highest p99 (delivered seconds)", "Errors", "Flags"],
                     body, cls="ramp", caption="Ramped: %s (barrage --rate-stages; each second's offered rate against its p99)" % t["stages"])

    def openloop_charts(self, g, rows):
        charts = []
        option = base_option("p99 against the offered rate", "lines: rates delivered; crosses: capacity search steps "
                             "(filled: passed); vertical lines: capacity found")
        option["xAxis"] = {"type": "value", "name": "offered req/s", "_format": "rps", "scale": True}
        option["yAxis"] = latency_axis("p99")
        option["tooltip"] = {"trigger": "item", "_format": "rate_us"}
        series = []
        if "rate" in g:
            servers = sorted({e["server"] for e in g["rate"]["entries"]})
            for s in servers:
                entries = [e for e in g["rate"]["entries"] if e["server"] == s]
                series.append({"name": s, "type": "line", "symbolSize": 7,
                               "data": [[e["rate"], e["latency"]["p99"]] for e in entries
                                        if e["delivered"] and (e.get("latency") or {}).get("p99")]})
                missed = [[e["rate"], e["latency"]["p99"]] for e in entries if not e["delivered"] and (e.get("latency") or {}).get("p99")]
                if missed:
                    series.append({"name": s + " not delivered", "type": "scatter", "symbol": "triangle", "symbolSize": 10,
                                   "data": missed})
        for e in (g.get("ramp") or {}).get("entries", []):
            series.append({"name": e["server"] + " ramped", "type": "line", "showSymbol": False,
                           "data": [[p["offered"], p["p99_us"]] for p in e["points"] if not p["short"]]})
        if "capacity" in g:
            for e in g["capacity"]["entries"]:
                steps = []
                for r in rows:
                    if slot(r) == e["server"] and r.get("capacity"):
                        steps += [{"value": [st["rate"], (st.get("latency_us") or {}).get("p99")],
                                   "symbol": "circle" if st["pass"] else "emptyCircle", "why": st.get("why"),
                                   "phase": st.get("phase")}
                                  for st in r["capacity"]["steps"] if (st.get("latency_us") or {}).get("p99")]
                s = {"name": e["server"] + " capacity search", "type": "scatter", "symbolSize": 9, "data": steps}
                if e.get("capacity_rps"):
                    s["markLine"] = {"symbol": "none", "data": [{"xAxis": e["capacity_rps"], "name": "capacity %s" % e["server"]}],
                                     "label": {"formatter": "capacity " + fmt.thousands(e["capacity_rps"])}}
                series.append(s)
        option["series"] = series
        charts.append(self.chart("offered", option))
        if "rate" in g:
            curves = []
            for e in g["rate"]["entries"]:
                if not e["delivered"]:
                    continue
                run = median_run([r for r in rows if slot(r) == e["server"] and (r.get("load") or {}).get("target_rps") == e["rate"]])
                if run:
                    curves.append(("%s @ %s/s" % (e["server"], fmt.thousands(e["rate"])), latency_curve(run["metrics"])))
            charts.append(self.chart("latency", latency_chart("Latency by percentile at each delivered rate", curves,
                                                              "from the scheduled time (coordinated omission corrected)")))
        return "".join(charts)

    def sizes(self):
        """The response-size sweep (lib/readme_sizes.jq's model, as the README shows it): per
        protocol and tool a table of each server's successful requests/s and MB/s of response
        bodies at each size, and both against the size (log axis)."""
        out = []
        for sw in self.model.get("sizes") or []:
            label = "%s · %s" % (PROTOCOLS.get(sw["protocol"], sw["protocol"]), sw["tool"])
            body = []
            for server in sw["servers"]:
                cells = [tag("td", esc(server))]
                for size in sw["sizes"]:
                    c = (sw["cells"].get(server) or {}).get(str(size)) or {}
                    cells.append(num(fmt.thousands(c.get("rps")), c.get("rps"), "size_rps_%d" % size))
                    cells.append(num(fmt.fixed(c.get("mbps"), 1), c.get("mbps"), "size_mbps_%d" % size))
                body.append(tag("tr", "".join(cells), data_key="/".join([server, sw["protocol"], sw["tool"]])))
            head = ["Server"] + [h for size in sw["sizes"] for h in ("%s req/s" % size_text(size), "MB/s")]
            charts = []
            for field, title, axis in (("rps", "Successful requests/s against response size", "rps"),
                                       ("mbps", "MB/s of response bodies against response size", None)):
                option = base_option("%s: %s" % (title, label), "median of the successful runs; MB/s: N bytes × requests/s / 10^6")
                option["xAxis"] = {"type": "log", "logBase": 2, "name": "response size", "nameLocation": "middle",
                                   "nameGap": 28, "_format": "bytes", "min": sw["sizes"][0], "max": sw["sizes"][-1]}
                option["yAxis"] = {"type": "value", "name": "successful req/s" if field == "rps" else "MB/s",
                                   "_format": axis} if axis else {"type": "value", "name": "MB/s"}
                option["series"] = [{"name": server, "type": "line", "symbolSize": 7,
                                     "data": [[size, ((sw["cells"].get(server) or {}).get(str(size)) or {}).get(field)]
                                              for size in sw["sizes"]
                                              if ((sw["cells"].get(server) or {}).get(str(size)) or {}).get(field) is not None]}
                                    for server in sw["servers"]]
                charts.append(self.chart("sizes", option))
            out.append(tag("section", tag("h2", esc("Response size sweep: " + label),
                                          id="s-%s-%s" % (sw["protocol"], sw["tool"]))
                           + tag("p", esc("GET /file?size=N at each size of the size-sweep scenario group, on the same "
                                          "connections: successful requests/s and MB/s of response bodies (N bytes a "
                                          "response, 1 MB = 10^6 bytes)."), class_="note")
                           + table(head, body, cls="sizes") + "".join(charts)))
        return "".join(out)

    def warmups(self):
        warmups = self.doc.get("server_warmups") or []
        if not warmups:
            return ""
        body = []
        for w in warmups:
            for s in w["shapes"]:
                # time to steady state (docs/metrics.md): null with its reason when there is no such figure
                tts = s.get("time_to_steady") or {}
                share = tts.get("first_5s_share")
                body.append(tag("tr", "".join([
                    tag("td", esc(w.get("variant") or w["server"] + ("@" + w["aa_group"] if w.get("aa_group") else ""))), num(str(w["run"]), w["run"]),
                    tag("td", esc("%s %s" % (s["protocol"], s["scenario"]))), tag("td", esc(s["status"] + (": " + s["reason"] if s.get("reason") else ""))),
                    num(fmt.thousands(s.get("successful_rps")), s.get("successful_rps"), "successful_rps"),
                    num(fmt.fixed(s.get("warmup_s"), 1), s.get("warmup_s"), "warmup_s"),
                    tag("td", esc("steady" if s.get("steady") else "not steady" if s.get("steady") is False else "")),
                    num(fmt.fixed(w.get("first_response_s"), 1), w.get("first_response_s"), "first_response_s"),
                    num(fmt.fixed(tts.get("steady_after_s"), 1), tts.get("steady_after_s"), "steady_after_s", title=tts.get("reason")),
                    num(fmt.DASH if share is None else "%d%%" % round(share * 100), share, "first_5s_share")])))
        return tag("section", tag("h2", "Server warm-ups", id="warmups")
                   + tag("p", esc("Time to steady state: from the server's start to its first correct response, from the start "
                                  "of load to steady state (a dash: not reached within the cap, or a fixed warm-up), and the "
                                  "successful requests/s of the first 5 s of load against the steady rate."), class_="note")
                   + tag("details", tag("summary", "%d shapes" % len(body))
                   + table(["Server", "Run", "Shape", "Status", "Successful req/s", "Seconds", "", "First response (s)",
                            "Load to steady (s)", "First 5 s vs steady"], body, cls="warmups")))

    def render(self):
        d = self.doc
        title = "Barrage run %s%s" % (d["timestamp"], " (%s)" % d["label"] if d.get("label") else "")
        banners = []
        if not d["complete"]:
            banners.append(tag("p", "Incomplete: this run was interrupted or is still going (\"complete\": false). "
                               "The page shows what was measured until then; planned rows that never ran are missing.",
                               class_="banner incomplete", id="incomplete"))
        if d["settings"].get("aa"):
            banners.append(tag("p", esc("A/A run: one server (%s) measured under two labels, A and B, to measure this machine's "
                                        "noise. Differences between the labels are noise by construction."
                                        % ((d.get("noise_floor") or {}).get("server") or "?")), class_="banner aa", id="aa"))
        tables = [t for t in self.model["tables"]]
        nav = [tag("li", tag("a", esc("%s · %s · %s" % (t["scenario"], t["protocol"], t["tool"])), href="#t%d" % i))
               for i, t in enumerate(tables)]
        if self.model.get("variants"):
            nav.append(tag("li", tag("a", "Variants", href="#variants")))
        sections = [self.closed_table(t, i) for i, t in enumerate(tables)]
        body = (tag("h1", esc(title)) + "".join(banners) + self.headline(tables) + self.facts() + self.noise_floor()
                + (tag("nav", tag("ul", "".join(nav))) if nav else "")
                + "".join(sections) + self.sizes() + self.variants() + self.openloop() + self.where_time_goes() + self.warmups())
        if not tables and not any(self.model.get("openloop", {}).get(k) for k in ("rate_tables", "ramp_tables", "capacity_tables")):
            body += tag("p", "No rows measured yet.", class_="note")
        return page(title, body, {"charts": self.charts})

    # -- variants ------------------------------------------------------------------------------
    def variants(self):
        """A variant run's part (the model's variants: lib/readme.jq): per server a table of its
        contestants with the change of successful requests/s and p99 against its first (the 95%
        interval, as an A/A run measures noise) and the verdict, and a bar chart of their
        successful requests/s per scenario, protocol and tool."""
        servers = self.model.get("variants") or []
        if not servers:
            return ""

        def change(m):
            if not m or m.get("change") is None:
                return fmt.DASH
            text = fmt.signed_pct(m["change"])
            if m.get("lo") is not None:
                text += " [%s, %s]" % (fmt.signed_pct(m["lo"]), fmt.signed_pct(m["hi"]))
            return text

        out = [tag("h2", "Variants", id="variants"),
               tag("p", esc("Each server's contestants (servers/NAME/variants.tsv crossed with --jdk, --gc, --heap, "
                            "--server-cpus) against its first: the change of the medians with its 95% interval (Welch's "
                            "t-interval on log values, as an A/A run measures noise); faster or slower when the interval "
                            "excludes 0, ~ when it holds 0; with fewer than 2 runs a side the change is not judged."), class_="note")]
        for v in servers:
            head = ["Variant", "Shape", "JDK", "Successful req/s", "p99", "vs %s: ok/s" % v["default"], "p99", "Verdict"]
            # start-up figures (time to first response, to steady state) and aot's finding, when the run has them
            startup = any((r.get("against") or {}).get("startup_text") for r in v["rows"])
            if startup:
                head.append("Start-up vs %s" % v["default"])
            body = []
            for r in v["rows"]:
                against = r.get("against")
                verdict = "baseline" if against is None else ("not judged (1 run a side)" if against["verdict"] == "1 run" else against["verdict"])
                shape = "%s · %s · %s" % (r["scenario"], PROTOCOLS.get(r["protocol"], r["protocol"]), r["tool"])
                rps = (r.get("successful_rps") or {}).get("median")
                p99 = (r.get("p99") or {}).get("median")
                if r["ok"] == 0:
                    cells = [tag("td", esc(r["label"]), class_="server"), tag("td", esc(shape)), tag("td", esc(r.get("jdk_version") or fmt.DASH)),
                             tag("td", esc("; ".join(r["reasons"])), colspan="6" if startup else "5")]
                else:
                    cells = [tag("td", esc(r["label"]), class_="server"), tag("td", esc(shape)),
                             tag("td", esc(r.get("jdk_version") or fmt.DASH)),
                             num(fmt.thousands(rps), rps, "successful_rps"), num(fmt.latency(p99), p99, "p99"),
                             tag("td", esc(change((against or {}).get("successful_rps"))), class_="change", data_field="rps_change"),
                             tag("td", esc(change((against or {}).get("p99"))), class_="change", data_field="p99_change"),
                             tag("td", esc(verdict), class_="verdict", data_field="verdict")]
                    if startup:
                        cells.append(tag("td", esc((against or {}).get("startup_text") or fmt.DASH), class_="startup", data_field="startup"))
                body.append(tag("tr", "".join(cells), data_key="/".join([r["label"], r["scenario"], r["protocol"], r["tool"]])))
            chart = v["chart"]
            option = base_option("Successful requests/s of %s's variants" % v["server"], "median of the successful runs")
            option["xAxis"] = {"type": "category", "data": chart["scenarios"]}
            option["yAxis"] = {"type": "value", "name": "req/s", "_format": "rps"}
            option["tooltip"] = {"trigger": "axis"}
            option["series"] = [{"name": label, "type": "bar", "data": [values.get(label) for values in chart["values"]]}
                                for label in chart["servers"]]
            out.append(tag("section", tag("h3", esc(v["server"])) + table(head, body, cls="variants")
                           + tag("div", self.chart("variants", option, height=340), class_="charts"),
                           class_="variants-section", data_server=v["server"]))
        return tag("section", "".join(out), class_="variants-part")

    def noise_floor(self):
        nf = self.doc.get("noise_floor")
        if not nf:
            return ""
        body = [tag("tr", "".join([tag("td", esc("%s · %s · %s" % (r["scenario"], r["protocol"], r["tool"]))),
                                   tag("td", esc("%d / %d" % (r["runs"]["A"], r["runs"]["B"]))),
                                   num(fmt.signed_pct((r.get("successful_rps") or {}).get("change")), (r.get("successful_rps") or {}).get("change"), "rps_change"),
                                   num(fmt.signed_pct((r.get("successful_rps") or {}).get("floor")).lstrip("+"), (r.get("successful_rps") or {}).get("floor"), "rps_floor"),
                                   num(fmt.signed_pct((r.get("p99") or {}).get("change")), (r.get("p99") or {}).get("change"), "p99_change"),
                                   num(fmt.signed_pct((r.get("p99") or {}).get("floor")).lstrip("+"), (r.get("p99") or {}).get("floor"), "p99_floor")]))
                for r in nf["rows"]]
        return tag("section", tag("h2", "Noise floor (A/A)", id="noise-floor")
                   + table(["Shape", "Runs A / B", "Req/s change B/A", "Req/s floor", "p99 change B/A", "p99 floor"], body, cls="noise-floor")
                   + tag("p", esc("The largest change of successful requests/s and p99 these runs are consistent with (%d%% level): "
                                  "compare-results.sh --noise-floor reads it." % round(nf["level"] * 100)), class_="note"))

    def where_time_goes(self):
        lines = self.model.get("where_time_goes") or []
        if not lines:
            return ""
        return tag("section", tag("h2", "Where the time goes (profiles)", id="profiles")
                   + tag("pre", esc("\n".join(lines)), class_="profiles"))


# ---- the comparison page -------------------------------------------------------------------------

VERDICT_CLASS = {"regression": "bad", "failed": "bad", "improvement": "good", "recovered": "good"}


class ComparePage:
    def __init__(self, base, new, doc, text, base_path, new_path):
        self.base, self.new, self.doc, self.text = base, new, doc, text
        self.base_path, self.new_path = base_path, new_path
        self.charts = {}

    chart = RunPage.chart

    def side(self, label, side, doc):
        s = doc["system"]
        return tag("tr", "".join([tag("th", esc(label)), tag("td", esc(os.path.basename(side.get("file") or ""))), tag("td", esc(side.get("timestamp"))),
                                  tag("td", esc(side.get("commit") or "unknown")), num(str(side.get("runs")), side.get("runs")),
                                  tag("td", esc(side.get("machine"))), tag("td", esc("%s, kernel %s" % (s["os"], s["kernel"]))),
                                  tag("td", tag("code", esc(doc["command"])))]))

    def metric_cells(self, m, formatter, field):
        if not m:
            return [tag("td", fmt.DASH)] * 4 + [tag("td", fmt.DASH, class_="verdict", data_field=field + "_verdict")]
        b, n = m.get("base") or {}, m.get("new") or {}

        def val(x):
            """The median, its runs' spread on a line of its own (the table then fits a page)."""
            if not x:
                return esc(fmt.DASH)
            text = esc(formatter(x.get("median")))
            return text + (tag("span", esc("±%s" % fmt.signed_pct(x["spread"]).lstrip("+")), class_="spread")
                           if x.get("n", 1) > 1 and x.get("spread") is not None else "")

        def cell(html_text, value, name):
            raw = None if value is None else repr(value) if isinstance(value, float) else str(value)
            return tag("td", html_text, class_="num", data_value=raw, data_field=name)
        ci = m.get("ci")
        cls = VERDICT_CLASS.get(m.get("verdict"), "")
        return [cell(val(b), b.get("median"), field + "_base"), cell(val(n), n.get("median"), field + "_new"),
                num(fmt.signed_pct(m.get("change")), m.get("change"), field + "_change"),
                tag("td", esc("%s to %s" % (fmt.signed_pct(ci["lo"]), fmt.signed_pct(ci["hi"])) if ci else
                              ("floor ±%s" % fmt.signed_pct(m["noise_floor"]["floor"]).lstrip("+") if m.get("noise_floor") else fmt.DASH)),
                    class_="ci"),
                tag("td", esc(m.get("verdict") or fmt.DASH), class_="verdict " + cls, data_field=field + "_verdict")]

    def rows_table(self):
        """Every row: its name in one cell, then successful requests/s, p99 and errors, each
        base, new, change, interval and verdict under a heading of its own: 15 columns that fit
        a page of 1,200 pixels (18 with a heading each ran 1,640 wide and were cut)."""
        groups = [("", ["Row"]), ("Successful requests/s", ["base", "new", "change", "95% CI", "verdict"]),
                  ("p99", ["base", "new", "change", "95% CI", "verdict"]), ("Errors", ["base", "new", "verdict"]),
                  ("", ["Verdict"])]
        thead = tag("thead", tag("tr", "".join(tag("th", esc(g), colspan=str(len(cols)) if len(cols) > 1 else None,
                                                    class_="group") for g, cols in groups))
                    + tag("tr", "".join(tag("th", esc(c)) for _, cols in groups for c in cols)))
        body = []
        for r in self.doc["rows"]:
            er = r.get("error_rate") or {}
            cells = [tag("td", tag("b", esc(r["server"])) + " " + tag("span", esc("%s · %s · %s" % (r["scenario"], r["protocol"], r["tool"])),
                                                                   class_="shape"), class_="row-name")]
            cells += self.metric_cells(r.get("successful_rps"), fmt.thousands, "rps")
            cells += self.metric_cells(r.get("p99"), fmt.latency, "p99")
            cells += [num(fmt.share((er.get("base") or {}).get("rate")), (er.get("base") or {}).get("rate"), "errors_base"),
                      num(fmt.share((er.get("new") or {}).get("rate")), (er.get("new") or {}).get("rate"), "errors_new"),
                      tag("td", esc(er.get("verdict") or fmt.DASH), class_="verdict " + VERDICT_CLASS.get(er.get("verdict"), ""),
                          data_field="errors_verdict"),
                      tag("td", esc(r["verdict"]), class_="verdict row-verdict " + VERDICT_CLASS.get(r["verdict"], ""), data_field="verdict")]
            body.append(tag("tr", "".join(cells), data_key="/".join([r["server"], r["scenario"], r["protocol"], r["tool"]]),
                            data_verdict=r["verdict"]))
        return tag("table", thead + tag("tbody", "".join(body)), class_="compare")

    def change_chart(self, metric, title):
        rows = [r for r in self.doc["rows"] if r.get(metric) and r[metric].get("change") is not None]
        if not rows:
            return ""
        names = ["%s · %s · %s · %s" % (r["server"], r["scenario"], r["protocol"], r["tool"]) for r in rows]
        threshold = self.doc["settings"]["threshold" if metric == "successful_rps" else "p99_threshold"]
        option = base_option(title, "box: 95%% confidence interval of the change (3+ runs a side); "
                             "band: ±threshold %s; red: regression, green: improvement" % fmt.signed_pct(threshold).lstrip("+"))
        option["grid"]["left"] = 280
        option["yAxis"] = {"type": "category", "data": names, "inverse": True}
        option["xAxis"] = {"type": "value", "name": "change", "_format": "pct"}
        option["tooltip"] = {"trigger": "item", "_format": "pct"}
        colour = {"regression": "#d62728", "improvement": "#2ca02c"}
        boxes, points, floors = [], [], []
        for r in rows:
            m = r[metric]
            ci = m.get("ci") or {"lo": m["change"], "hi": m["change"]}
            c = colour.get(m.get("verdict"), "#7f7f7f")
            boxes.append({"value": [ci["lo"], ci["lo"], m["change"], ci["hi"], ci["hi"]],
                          "itemStyle": {"borderColor": c, "color": "rgba(0,0,0,0)"}})
            points.append({"value": [m["change"], names[len(points)]], "itemStyle": {"color": c}, "verdict": m.get("verdict")})
            if m.get("noise_floor"):
                floors += [[-m["noise_floor"]["floor"], names[len(points) - 1]], [m["noise_floor"]["floor"], names[len(points) - 1]]]
        series = [{"name": "95% interval", "type": "boxplot", "layout": "horizontal", "data": boxes,
                   "markArea": {"silent": True, "itemStyle": {"color": "rgba(120,120,120,0.12)"},
                                "data": [[{"xAxis": -threshold}, {"xAxis": threshold}]]}},
                  {"name": "change of the medians", "type": "scatter", "symbolSize": 9, "data": points}]
        if floors:
            series.append({"name": "noise floor", "type": "scatter", "symbol": "diamond", "symbolSize": 8, "data": floors})
        option["series"] = series
        return self.chart("change", option, height=max(200, 90 + 24 * len(rows)))

    def find_rows(self, doc, r):
        return [x for x in doc["results"] if x["server"] == r["server"] and x["scenario"] == r["scenario"]
                and x["protocol"] == r["protocol"] and x["tool"] == r["tool"] and x.get("load") is None]

    def side_by_side(self):
        regressions = [r for r in self.doc["rows"] if r["verdict"] in ("regression", "failed")]
        if not regressions:
            return tag("p", "No regression.", class_="note", id="no-regression")
        out = []
        for r in regressions:
            name = "%s · %s · %s · %s" % (r["server"], r["scenario"], r["protocol"], r["tool"])
            b, n = r.get("base") or {}, r.get("new") or {}
            er = r.get("error_rate") or {}

            def runs(side, key, formatter):
                return ", ".join(formatter(v) for v in side.get(key) or []) or fmt.DASH
            lines = [("Runs ok / planned", "%s / %s" % (b.get("ok"), b.get("planned")), "%s / %s" % (n.get("ok"), n.get("planned"))),
                     ("Successful req/s of each run", runs(b, "successful_rps", fmt.thousands), runs(n, "successful_rps", fmt.thousands)),
                     ("p99 of each run", runs(b, "p99", fmt.latency), runs(n, "p99", fmt.latency)),
                     ("Error rate", fmt.share((er.get("base") or {}).get("rate")), fmt.share((er.get("new") or {}).get("rate"))),
                     ("Status", ", ".join(b.get("statuses") or []) + (" (%s)" % "; ".join(b["reasons"]) if b.get("reasons") else ""),
                      ", ".join(n.get("statuses") or []) + (" (%s)" % "; ".join(n["reasons"]) if n.get("reasons") else ""))]
            body = [tag("tr", tag("th", esc(k)) + tag("td", esc(x)) + tag("td", esc(y))) for k, x, y in lines]
            curves = []
            for label, doc in (("base", self.base), ("new", self.new)):
                run = median_run(self.find_rows(doc, r))
                if run:
                    curves.append(("%s (%s)" % (label, r["server"]), latency_curve(run["metrics"])))
            chart = self.chart("latency", latency_chart("Latency by percentile, base and new (median runs)", curves)) if curves else ""
            out.append(tag("div", tag("h3", esc(name)) + table(["", "Base", "New"], body, cls="side-by-side") + chart,
                           class_="regression", data_key="/".join([r["server"], r["scenario"], r["protocol"], r["tool"]])))
        return "".join(out)

    def render(self):
        d = self.doc
        # a list of (row, metric) entries: counted by row, as the verdicts are
        regressions = len({(r["view"], r["series"]) for r in d.get("regressions", [])})
        title = "Barrage comparison: %s → %s" % (os.path.basename(self.base_path), os.path.basename(self.new_path))
        st = d["settings"]
        verdict = tag("p", esc(("%d regression%s: compare-results.sh exits 1" % (regressions, "" if regressions == 1 else "s"))
                               if regressions else "No regression: compare-results.sh exits 0"),
                      class_="banner " + ("bad" if regressions else "good"), id="gate", data_regressions=str(regressions))
        counts = ", ".join("%s %d" % (k, v) for k, v in sorted(d.get("counts", {}).items()))
        settings = ("threshold %s, p99 threshold %s, error threshold %s, alpha %s, fail on %s, gate %s, reference %s"
                    % (fmt.signed_pct(st["threshold"]).lstrip("+"), fmt.signed_pct(st["p99_threshold"]).lstrip("+"),
                       fmt.share(st["error_threshold"]), st["alpha"], ",".join(st["fail_on"]), st["gate"], st["reference"]))
        facts = tag("table", tag("thead", tag("tr", "".join(tag("th", h) for h in ["", "File", "Date", "Commit", "Runs", "Machine", "OS", "Command"])))
                    + tag("tbody", self.side("Base", d["base"], self.base) + self.side("New", d["new"], self.new)), class_="facts", id="facts")
        notes = [tag("p", esc("Settings: " + settings)), tag("p", esc("Rows: " + counts))]
        if d.get("single_run_rows"):
            notes.append(tag("p", esc("%d rows have one run on a side: one run cannot separate noise from change; only the "
                                      "threshold (and the noise floor) decide." % d["single_run_rows"]), class_="note"))
        if d.get("noise_floor"):
            notes.append(tag("p", esc("Noise floor from %s (%s)." % (d["noise_floor"].get("file"), d["noise_floor"].get("server"))), class_="note"))
        extra = ""
        if d.get("slo_regressions"):
            extra += tag("h2", "SLO regressions") + tag("ul", "".join(tag("li", esc(x)) for x in d["slo_regressions"]))
        if d.get("capacity"):
            body = [tag("tr", "".join([tag("td", esc("%s · %s · %s · %s" % (c.get("server"), c.get("scenario"), c.get("protocol"), c.get("tool")))),
                                       tag("td", esc(c.get("verdict")), class_="verdict " + VERDICT_CLASS.get(c.get("verdict"), ""))]))
                    for c in d["capacity"]]
            extra += tag("h2", "Capacity") + table(["Row", "Verdict"], body, cls="capacity-compare")
        body = (tag("h1", esc(title)) + verdict + facts + "".join(notes)
                + tag("div", self.change_chart("successful_rps", "Change of successful requests/s")
                      + self.change_chart("p99", "Change of p99"), class_="charts")
                + tag("h2", "Regressions side by side", id="regressions") + self.side_by_side()
                + tag("h2", "Every row", id="rows") + tag("div", self.rows_table(), class_="wide")
                + extra
                + tag("details", tag("summary", "compare-results.sh's report") + tag("pre", esc(self.text)), id="text-report"))
        return page(title, body, {"charts": self.charts})


# ---- the page ------------------------------------------------------------------------------------

def read(name):
    """A file of lib/report/ as text; NAME.gz decompressed (the vendored library is kept
    compressed in git: under 1 MiB)."""
    path = os.path.join(HERE, name)
    with (gzip.open(path, "rt", encoding="utf-8") if name.endswith(".gz") else open(path, encoding="utf-8")) as f:
        return f.read()


def inline_script(text):
    """Script text that cannot end its <script> element early."""
    return text.replace("</", "<\\/")


def script_json(data):
    """DATA as JSON that any string survives inside a <script> element: no "<" (so no "</script"
    or "<!--" that would change how the element ends), no ">" or "&", and ASCII only (a lone
    surrogate stays an escape); JSON.parse reads it back as it was."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(title, body, data):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>%s</title><style>%s</style></head><body>%s"
            "<footer>Written by report.sh (Barrage). Charts: Apache ECharts, embedded (Apache-2.0).</footer>"
            "<script type=\"application/json\" id=\"report-data\">%s</script>"
            "<script>%s</script><script>%s</script><script>%s</script></body></html>\n"
            % (esc(title), read("report.css"), body, script_json(data),
               inline_script(read("vendor/echarts.min.js.gz")),
               inline_script(read("format.js")), inline_script(read("report.js"))))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    parser = argparse.ArgumentParser(prog="report.py")
    sub = parser.add_subparsers(dest="mode", required=True)
    run = sub.add_parser("run")
    run.add_argument("--results", required=True)
    run.add_argument("--model", required=True)
    run.add_argument("--out", required=True)
    cmp_ = sub.add_parser("compare")
    for name in ("--base", "--new", "--document", "--text", "--out"):
        cmp_.add_argument(name, required=True)
    args = parser.parse_args(argv)
    try:
        if args.mode == "run":
            text = RunPage(load(args.results), load(args.model), args.results).render()
        else:
            with open(args.text, encoding="utf-8") as f:
                report = f.read()
            text = ComparePage(load(args.base), load(args.new), load(args.document), report, args.base, args.new).render()
        # a lone surrogate (a "\\ud800" of a results file) has no UTF-8: written as "?"
        with open(args.out, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(fmt.safe("report.py: could not write the page: %s: %s" % (type(e).__name__, e)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
