#!/usr/bin/env bats
# report.sh: results files as web pages, checked in a real browser (Debian's chromium, headless,
# driven over the DevTools protocol by lib/report/browser.py): no console error, no network
# request, the expected charts drawn, a screenshot that is not blank, the tables' numbers equal
# to the results file's; an interrupted run, an A/A run and a comparison (compare-results.sh's
# verdicts). Fixtures: tests/fixtures/results, tests/fixtures/openloop.

load test_helper

setup() {
  common_setup "barrage report"
  F=$ROOT/tests/fixtures/results
  REPORT=$ROOT/report.sh
}

teardown() {
  # a generator a failed test left running (by its PID)
  [ -z "${CHILD:-}" ] || kill -KILL "$CHILD" 2>/dev/null || true
  common_teardown
}

need_chromium() { command -v chromium >/dev/null || skip "chromium is not installed (run-tests.sh deps installs it)"; }

# page FIXTURE: copies the fixture into $TMP (its page is written beside it), writes the page
# and prints its path.
page() {
  cp "$1" "$TMP/${1##*/}"
  "$REPORT" "$TMP/${1##*/}" 2>/dev/null
}

# browse PAGE: the browser's findings in $TMP/facts.json (never empty when it succeeds).
browse() {
  python3 "$ROOT/lib/report/browser.py" "$1" --screenshot "$TMP/shot.png" >"$TMP/facts.json"
  [ -s "$TMP/facts.json" ]
}

facts() { jq -r "$@" "$TMP/facts.json"; }

# loads_clean: no console error, no request, every chart drawn (painted pixels on its canvas),
# report.js drew them all, and a screenshot that is not blank.
loads_clean() {
  facts '.console_errors[], .requests[]' >"$TMP/bad"
  if [ -s "$TMP/bad" ]; then cat "$TMP/bad"; return 1; fi
  [ "$(facts '[.charts[] | select(.canvas and .painted > 50)] | length')" = "$(facts '.charts | length')" ]
  [ "$(facts '.charts_drawn')" = "$(facts '.charts | length')" ]
  [ "$(facts '.screenshot.painted_share > 0.03 and .screenshot.colours > 50')" = true ]
}

# expected_charts FILE: per closed-loop table with a successful row: requests/s, latency,
# resources, and over time when a row has a timeline; per open-loop table: p99 against the
# offered rate, and latency by percentile when a fixed rate was measured. "KIND COUNT" lines.
expected_charts() {
  jq -r '
    ([.results[] | select(.load == null)] | group_by([.scenario, .protocol, .tool, (.profile.event // null)])
     | map(select(any(.[]; .status == "ok")))) as $closed
    # a tool without a fixed-rate mode has only skipped rows there: no table, as in the README
    | ([.results[] | select(.load != null)] | group_by([.scenario, .protocol, .tool])
       | map(select(any(.[]; .status == "ok")))) as $open
    | {rps: ($closed | length), latency: (($closed | length) + ($open | map(select(any(.[]; .load.mode == "rate" and .status == "ok"))) | length)),
       resources: ($closed | length),
       timeline: ($closed | map(select(any(.[]; .status == "ok" and (.metrics.timeline | type) == "array"))) | length),
       offered: ($open | length)}
    | to_entries[] | select(.value > 0) | "\(.key) \(.value)"' "$1" | sort
}

drawn_charts() { facts '.charts | group_by(.kind) | .[] | "\(.[0].kind) \(length)"' | sort; }

# slot: a row's server as the page names it (NAME@A in an A/A run, its label in a variant run).
SLOT='(.variant.label? // (.server + (if .aa_group then "@" + .aa_group else "" end)))'

# every ok run's successful requests/s, p99 and requests, as the file and as the page say them
file_runs() {
  jq -r ".results[] | select(.status == \"ok\") | ($SLOT + \"/\" + .scenario + \"/\" + .protocol + \"/\" + .tool + \"/\" + (.run | tostring)) as \$k
    | \"\(\$k) successful_rps \(.metrics.successful_rps)\", \"\(\$k) p99 \(.metrics.latency_us.p99)\", \"\(\$k) requests \(.metrics.requests)\"" "$1" | sort
}
page_runs() {
  facts '.cells[] | select(.table == "runs" and (.field | IN("successful_rps", "p99", "requests")) and .value != null)
    | "\(.key) \(.field) \(.value | tonumber)"' | sort
}
# the ranking tables' successful requests/s: the median of each server's ok runs (odd counts)
file_medians() {
  jq -r "[.results[] | select(.status == \"ok\" and .load == null)] | group_by([$SLOT, .scenario, .protocol, .tool])[]
    | \"\(.[0] | $SLOT)/\(.[0].scenario)/\(.[0].protocol)/\(.[0].tool) \(map(.metrics.successful_rps) | sort | .[length / 2 | floor])\"" "$1" | sort
}
page_medians() { facts '.cells[] | select(.table == "ranking" and .field == "successful_rps") | "\(.key) \(.value | tonumber)"' | sort; }

check_numbers() {
  diff <(file_runs "$1") <(page_runs)
  diff <(file_medians "$1") <(page_medians)
  # the text people read is the value, rounded, with thousands separators
  [ "$(facts '[.cells[] | select(.field == "successful_rps" and .value != null)
                | select((.text | gsub(","; "")) != (.value | tonumber | round | tostring))] | length')" -eq 0 ]
}

@test "report: each fixture's page loads in chromium with no error and no request, its charts drawn, its numbers the file's" {
  need_chromium
  local f p
  for f in "$F/readme-timeline.json" "$F/readme-failures.json" "$F/readme-client-bound.json" "$F/multi-close.json" \
           "$F/recorded-quick-3runs-b.json" "$ROOT/tests/fixtures/openloop/base.json" "$ROOT/tests/fixtures/openloop/new.json"; do
    echo "# $f"
    p=$(page "$f")
    [ "$p" = "$TMP/$(basename "$f" .json).html" ]
    browse "$p"
    loads_clean
    diff <(expected_charts "$f") <(drawn_charts)
    check_numbers "$f"
  done
}

@test "report: the run page leads with the answer, hides empty columns and series, draws requests/s from 0" {
  need_chromium
  browse "$(page "$F/readme-timeline.json")"
  loads_clean
  # the answer first (after the title): per table who leads, by how much over whom, decided or open
  [ "$(facts '.first_section')" = headline ]
  [ "$(facts '.headline | map(.key) | join(" ")')" = "hello/h1/barrage hello/h1/wrk" ]
  facts '.headline[0].text' | grep -qxF 'hello · HTTP/1.1 · barrage: netty leads with 61,000 req/s, 35.6% ahead of jetty (45,000): decided: their 95% intervals are apart'
  # no load tool recorded its CPU: no such column, no such series; java-http not in the run:
  # "vs" is against the table's slowest server, never a column of dashes
  # (barrage's table; wrk's adds Flags: its rows are approximate)
  [ "$(facts '[.tables[] | select(.class == "ranking") | .head | join(",")] | .[0]')" = \
    "Rank,Server,Successful req/s,Interval,vs jetty,p50,p99,p99 interval,p99.9,Errors,Server CPU,Server RSS" ]
  [ "$(facts '[.tables[] | select(.class == "runs") | .head[] | select(startswith("Client"))] | length')" -eq 0 ]
  [ "$(facts '[.charts[] | select(.kind == "resources") | .series | join(",")] | unique | .[]')" = "server CPU %,server RSS MiB" ]
  # a 35% gap drawn as one: the requests/s axis starts at 0
  [ "$(facts '[.charts[] | select(.kind == "rps") | .axes[0].extent[0]] | unique | .[]')" = 0 ]
  # fixed rates: who answered each with the lowest p99 (a second server at twice the latency)
  jq '.results += [.results[] | .server = "other" | .metrics.latency_us |= with_entries(.value *= 2)]' \
    "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/two.json"
  "$REPORT" "$TMP/two.json" >/dev/null 2>&1
  browse "$TMP/two.html"
  facts '.headline[] | select(.key == "hello/h1/barrage/100") | .text' |
    grep -qxF 'hello · HTTP/1.1 · barrage at 100 req/s: loaded has the lowest p99, 18.0 ms, 50.0% below other (36.0 ms); not judged: no interval'
  [ "$(facts '.headline[] | select(.key == "hello/h1/barrage/400") | .verdict')" = none ]
  [ "$(facts '.headline[] | select(.key == "hello/h1/barrage/capacity") | .leader')" = loaded ]
  # where a tool did record its CPU, both are there
  browse "$(page "$F/readme-client-bound.json")"
  [ "$(facts '[.tables[] | select(.class == "ranking") | .head[] | select(. == "Client CPU")] | length')" -ge 1 ]
  [ "$(facts '[.charts[] | select(.kind == "resources") | .series[] | select(. == "load tool CPU %")] | length')" -ge 1 ]
}

@test "report: the page is one self-contained file of a few MiB at most, with its tables in the HTML" {
  local p
  p=$(page "$F/readme-timeline.json")
  [ "$(stat -c %s "$p")" -lt 3000000 ]
  # nothing fetched: no src= or external link in the HTML (scripts' texts aside: the library's own
  # strings hold such markup), its three scripts inline: the data, the library, report.js
  [ "$(perl -0777 -pe 's/(<script\b[^>]*>).*?<\/script>/$1/gs' "$p" | grep -ciE '<(script|img|link|iframe)[^>]* (src|href)=')" -eq 0 ]
  [ "$(perl -0777 -pe 's/(<script\b[^>]*>).*?<\/script>/$1/gs' "$p" | grep -oE '<script[^>]*>' | paste -sd' ')" = '<script type="application/json" id="report-data"> <script> <script> <script>' ]
  grep -qF 'Licensed to the Apache Software Foundation' "$p"
  # tables readable without JavaScript: the ranking is in the HTML as written
  grep -qE '<td class="server">netty</td><td class="num" data-value="61000(\.0)?" data-field="successful_rps">61,000</td>' "$p"
  # the vendored library is the pinned one
  "$ROOT/lib/report/vendor/fetch.sh" --check
}

@test "report: a histogram keeps its buckets (percentiles from HdrHistogram V2 equal barrage's own)" {
  run python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import hdr
for row in json.load(open(sys.argv[2]))["results"]:
    m = row["metrics"] or {}
    h = (m.get("histograms") or {}).get("latency_us")
    if not h: continue
    hist = hdr.decode(h)
    assert hist.total == m["requests"], (hist.total, m["requests"])
    for p, q in (("p50", .5), ("p90", .9), ("p99", .99)):
        # barrage reports the highest value of the bucket, at most the largest value recorded
        value = min(hist.value_at(q), m["latency_us"]["max"])
        assert value == m["latency_us"][p], (p, value, m["latency_us"][p])
    print("ok", row["server"], row["run"])
' "$ROOT/lib/report" "$ROOT/tests/fixtures/openloop/base.json"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^ok ' <<<"$output")" -ge 3 ]
}

@test "report: an interrupted run's page says so and shows what was measured" {
  need_chromium
  local p
  p=$(page "$F/bad-incomplete.json")
  browse "$p"
  loads_clean
  [ "$(facts '[.banners[].id] | join(",")')" = incomplete ]
  facts '.banners[0].text' | grep -q 'interrupted'
  check_numbers "$F/bad-incomplete.json"
  # a complete run has no such banner
  browse "$(page "$F/multi-close.json")"
  [ "$(facts '.banners | length')" -eq 0 ]
}

@test "report: an A/A run's page shows both labels tied and the noise floor the file holds" {
  need_chromium
  local p
  p=$(page "$F/aa-jetty.json")
  browse "$p"
  loads_clean
  [ "$(facts '[.banners[].id] | join(",")')" = aa ]
  [ "$(facts '[.cells[] | select(.table == "ranking" and .field == "successful_rps") | .key] | join(",")')" = "jetty@A/hello/h1/wrk,jetty@B/hello/h1/wrk" ]
  grep -qF '<td class="rank" data-tied="true">=1</td><td class="server">jetty@A</td>' "$p"
  grep -qF '<td class="rank" data-tied="true">=1</td><td class="server">jetty@B</td>' "$p"
  [ "$(facts '[.cells[] | select(.field == "rps_floor") | .value | tonumber] | join(",")')" = "$(jq -r '[.noise_floor.rows[].successful_rps.floor] | join(",")' "$F/aa-jetty.json")" ]
  check_numbers "$F/aa-jetty.json"
}

@test "report: a budgeted run's page says per table how many pairs are decided, equal, open, and each server's runs and why" {
  budgeted_results "$F/multi-base.json" "$TMP/budget.json"
  local p
  p=$(page "$TMP/budget.json")
  grep -qF '<p class="note pairs" data-decided="3" data-equal="0" data-open="1">Pairs of neighbours: 3 decided (intervals apart), 0 equal (within 3%), 1 open.</p>' "$p"
  grep -qF '<tr data-verdict="open"><td>jetty – tomcat</td><td class="verdict">open</td>' "$p"
  grep -qF '<tr><td>tomcat</td><td>3</td><td>open against jetty: the budget ended</td></tr>' "$p"
  # the facts: the budget, and the pairs over every table
  grep -qF 'left out to fit it: scenarios mixed; --budget none brings them back' "$p"
  grep -qF "$(jq -r '[.rounds.tables[].counts] | "\(map(.decided) | add) decided, \(map(.equal) | add) equal, \(map(.open) | add) open"' "$TMP/budget.json")" "$p"
  # a file written before budgets: no pairs
  p=$(page "$F/multi-base.json")
  [ "$(grep -c 'Pairs of neighbours' "$p")" -eq 0 ]
}

@test "report: the flags of the README show on the page (errors, approximate, client-bound, not delivered, SLO, not steady, drifting)" {
  need_chromium
  browse "$(page "$F/readme-client-bound.json")"
  [ "$(facts '[.flags[] | select(. == "client-bound")] | length')" -ge 1 ]
  browse "$(page "$F/readme-failures.json")"
  [ "$(facts '[.flags[] | select(. == "errors")] | length')" -ge 1 ]
  [ "$(facts '[.flags[] | select(. == "approximate")] | length')" -ge 1 ]
  browse "$(page "$ROOT/tests/fixtures/openloop/base.json")"
  [ "$(facts '[.flags[] | select(. == "not delivered")] | length')" -eq 1 ]
  browse "$(page "$ROOT/tests/fixtures/openloop/new.json")"
  [ "$(facts '[.flags[] | select(. == "SLO broken")] | length')" -ge 1 ]
  # a row whose server warm-up hit its cap before steady state (lib/steady.sh), one that drifted (lib/drift.jq)
  jq '.results[0].server_warmup = {mode: "auto", seconds: 60, steady: false} | .results[1].drift = {status: "drifting", test: "mann-kendall", n: 10, z: -3.6, alpha: 0.01, change: -0.12, noise: 0.01, reason: null}' "$F/single-base.json" >"$TMP/steady.json"
  "$REPORT" "$TMP/steady.json" >/dev/null 2>&1
  browse "$TMP/steady.html"
  loads_clean
  [ "$(facts '[.flags[] | select(. == "not steady")] | length')" -eq 1 ]
  [ "$(facts '[.flags[] | select(. == "drifting")] | length')" -eq 1 ]
}

@test "report: a ramped run (--rate-stages): its table's numbers are the file's, p99 against offered rate drawn" {
  need_chromium
  local f=$ROOT/tests/fixtures/openloop/ramp.json
  browse "$(page "$f")"
  loads_clean
  [ "$(drawn_charts)" = "$(expected_charts "$f")" ]
  [ "$(facts '[.cells[] | select(.field == "first_short" or .field == "top_offered") | .value | tonumber] | sort | join(",")')" = \
    "$(jq -r '.results[] | select(.load.mode == "stages") | .metrics
       | [.rate.first_short.target_rate, ([.timeline[] | select(.in_grace | not) | .target_rate] | max)] | sort | join(",")' "$f")" ]
  # the ramp's delivered seconds are a line of the offered chart (20/s and 55/s: 125/s fell short)
  grep -qF 'loaded ramped' "$TMP/ramp.html"
}

@test "report: the response-size sweep: requests/s and MB/s per server and size, the file's numbers, both drawn against size" {
  need_chromium
  local f=$F/readme-sizes.json
  browse "$(page "$f")"
  loads_clean
  # two sweeps (h1 and h2 with barrage), two charts each, besides every table's own
  [ "$(facts '[.charts[] | select(.kind == "sizes")] | length')" -eq 4 ]
  # each cell: the row's successful requests/s, and that x N bytes / 10^6
  diff <(jq -r '.results[] | select(.config.group == "size-sweep") | (.config.endpoint | ltrimstr("/file?size=")) as $n
      | "\(.server)/\(.protocol)/\(.tool) \($n) \(.metrics.successful_rps) \(.metrics.successful_rps * ($n | tonumber) / 1000000)"' "$f" | sort) \
    <(facts '[.cells[] | select(.table == "sizes")] | group_by([.key, (.field | sub("^size_(rps|mbps)_"; ""))])[]
      | "\(.[0].key) \(.[0].field | sub("^size_(rps|mbps)_"; "")) \(map(select(.field | startswith("size_rps_")))[0].value | tonumber) \(map(select(.field | startswith("size_mbps_")))[0].value | tonumber)"' | sort)
  [ "$(facts '[.cells[] | select(.table == "sizes" and .key == "netty/h1/barrage" and .field == "size_mbps_1048576")][0].text')" = 1468.0 ]
  # a file without the group has no sweep
  browse "$(page "$F/single-base.json")"
  [ "$(facts '[.charts[] | select(.kind == "sizes")] | length')" -eq 0 ]
}

@test "report: a comparison page shows compare-results.sh's verdicts, the intervals, each regression side by side" {
  need_chromium
  local base=$F/multi-base.json new=$F/multi-shift10.json p=$TMP/compare.html rc=0
  "$REPORT" -o "$p" "$base" "$new" 2>/dev/null
  "$ROOT/compare-results.sh" --format json "$base" "$new" >"$TMP/doc.json" || rc=$?
  [ "$rc" -eq 1 ]
  [ -s "$TMP/doc.json" ]
  browse "$p"
  loads_clean
  # shellcheck disable=SC2016 # $g and $c are jq's variables
  diff <(jq -r '.rows[] | "\(.server)/\(.scenario)/\(.protocol)/\(.tool) \(.verdict) \(.successful_rps.verdict // "–") \(.p99.verdict // "–")"' "$TMP/doc.json" | sort) \
       <(facts '.cells | group_by(.key)[] | . as $g | (map({(.field): .text}) | add) as $c
                | "\($g[0].key) \($c.verdict) \($c.rps_verdict) \($c.p99_verdict)"' | sort)
  grep -qF 'data-regressions="1"' "$p"
  # every row's table fits the page (1,280 pixels wide): none cut at the right
  [ "$(facts '[.tables[] | select(.class == "compare") | .width <= .room] | (length == 1 and all)')" = true ]
  [ "$(facts '[.charts[] | select(.kind == "change")] | length')" -eq 2 ]
  # the regression's row, base beside new, with its latency curves
  grep -qF '<div class="regression" data-key="tomcat/hello/h1/wrk">' "$p"
  [ "$(facts '[.charts[] | select(.kind == "latency")] | length')" -eq 1 ]
  # a comparison without a regression says so; options reach compare-results.sh
  "$REPORT" -o "$TMP/same.html" --threshold 50 --p99-threshold 50 "$base" "$new" 2>/dev/null
  grep -qF 'data-regressions="0"' "$TMP/same.html"
  grep -qF 'id="no-regression"' "$TMP/same.html"
}

@test "report: the default comparison page goes beside NEW as BASE-vs-NEW.html" {
  cp "$F/single-base.json" "$TMP/a.json"
  cp "$F/single-drop20.json" "$TMP/b.json"
  run "$REPORT" "$TMP/a.json" "$TMP/b.json"
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "$TMP/a-vs-b.html" ]
  [ -s "$TMP/a-vs-b.html" ]
}

@test "report: bad input is refused with a reason and no page" {
  cp "$F/bad-not-json.json" "$TMP/x.json"
  run "$REPORT" "$TMP/x.json"
  [ "$status" -eq 1 ]
  [[ $output == *"truncated: the JSON stops before its end"* ]]
  [ ! -e "$TMP/x.html" ]
  cp "$F/bad-schema-invalid.json" "$TMP/y.json"
  run "$REPORT" "$TMP/y.json"
  [ "$status" -eq 1 ]
  [[ $output == *"not a valid results file"* ]]
  [ ! -e "$TMP/y.html" ]
  # an interrupted run cannot be compared (compare-results.sh refuses it)
  run "$REPORT" -o "$TMP/c.html" "$F/single-base.json" "$F/bad-incomplete.json"
  [ "$status" -eq 1 ]
  [ ! -e "$TMP/c.html" ]
  run "$REPORT"
  [ "$status" -eq 2 ]
  run "$REPORT" --threshold 5 "$F/single-base.json"
  [ "$status" -eq 2 ]
  # a typo in a name is a usage error (exit 2, naming the known ones), not a page
  run "$REPORT" -o "$TMP/r.html" --reference jety "$F/single-base.json" "$F/single-drop7.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--reference: 'jety' is in neither file (known: "*"jetty"* ]]
  run "$REPORT" -o "$TMP/b.html" --baseline jety "$F/single-base.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--baseline: 'jety' is not a server of $F/single-base.json (known: "*"jetty"* ]]
  # the names it lists as a terminal may show them: no escape of a results file raw
  jq '.results[0].server = "jetty\u001b[2K\r"' "$F/single-base.json" >"$TMP/escapes.json"
  run "$REPORT" -o "$TMP/b.html" --baseline jety "$TMP/escapes.json"
  [ "$status" -eq 2 ]
  [[ $output == *"(known: java-http, jdk-httpserver, jetty, jetty^[[2K^M, netty, tomcat)"* ]]
  [[ $output != *$'\e'* && $output != *$'\r'* ]]
  [ ! -e "$TMP/r.html" ] && [ ! -e "$TMP/b.html" ]
  [ "$(find "$TMP" -name '.report.*' | wc -l)" -eq 0 ]
}

@test "report: any string of a results file survives the page: names like <!--<script> or </script> leave every chart drawn" {
  need_chromium
  local f=$F/recorded-quick-3runs-b.json
  # each name can end the page's data early or keep it from ending: every chart would be blank
  jq '.results[] |= (.server |= ({"netty": "<!--<script>", "jetty": "</script><script>document.title = \"pwned\"</script>",
                                  "java-http": "x\u2028y\u2029\"\u0027&amp;<b>\u001b[31m"}[.] // .))
      | .system.description = "<!--" | .label = "<script>"' "$f" >"$TMP/names.json"
  [ "$(jq '[.results[].server | select(test("^(<!--|</script|x)"))] | unique | length' "$TMP/names.json")" -eq 3 ]
  "$REPORT" "$TMP/names.json" >/dev/null 2>&1
  browse "$TMP/names.html"
  loads_clean
  diff <(expected_charts "$TMP/names.json") <(drawn_charts)
  check_numbers "$TMP/names.json"
  [ "$(facts '.title')" = "$(jq -r '"Barrage run \(.timestamp) (\(.label))"' "$TMP/names.json")" ]
  # the names are the tables' text, as written
  [ "$(facts '[.cells[] | select(.table == "ranking") | .key[0:4]] | unique | join(" ")')" = "$(printf '<!-- </sc x\u2028y\u2029')" ]
}

@test "report: links go only to files beside the results file or to http(s) URLs, never to script" {
  need_chromium
  mkdir -p "$TMP/run/flame dir"
  # each exists, so that only its form can keep it from being a link
  : >"$TMP/run/javascript:alert(document.title)"
  : >"$TMP/outside.html"
  : >"$TMP/run/flame dir/cpu#1.html"
  jq '.settings.profile = "cpu" | .results |= [foreach .[] as $r (-1; . + 1; $r + {profile: {event: "cpu", mode: "ctimer",
        fallback_reason: null, samples: 10, top_frames: [], error: null,
        flame_graph: (["javascript:alert(document.title)", "/etc/passwd", "../outside.html", "https://example.com/flame.html",
                       "flame dir/cpu#1.html"][. % 5])}})]' "$F/single-base.json" >"$TMP/run/r.json"
  "$REPORT" "$TMP/run/r.json" >/dev/null 2>&1
  browse "$TMP/run/r.html"
  loads_clean
  # every link: this page's anchors, a file in the results file's folder or below it, an https URL
  # shellcheck disable=SC2016 # $dir is jq's
  facts --arg dir "$TMP/run/" '.links[] | select((.protocol == "file:" and (.path | startswith($dir))) or .protocol == "https:" | not)' >"$TMP/bad links"
  if [ -s "$TMP/bad links" ]; then cat "$TMP/bad links"; false; fi
  # the flame graphs that may be links are: the file named like a script (a file, not script),
  # the one in a folder with a space and a # in its name, the https one
  [ "$(facts '[.links[] | select(.text == "flame graph") | .path] | unique | join(",")')" = \
    "/flame.html,$TMP/run/flame dir/cpu#1.html,$TMP/run/javascript:alert(document.title)" ]
}

@test "report: -o replaces only a regular file: a FIFO or a dangling link is refused (exit 2), a folder gets the page inside" {
  cp "$F/single-base.json" "$TMP/r.json"
  mkfifo "$TMP/fifo"
  run "$REPORT" -o "$TMP/fifo" "$TMP/r.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"$TMP/fifo exists and is not a regular file"* ]]
  [ -p "$TMP/fifo" ]
  ln -s "$TMP/nowhere" "$TMP/link"
  run "$REPORT" -o "$TMP/link" "$TMP/r.json"
  [ "$status" -eq 2 ]
  [ -L "$TMP/link" ] && [ ! -e "$TMP/nowhere" ]
  # a link to a regular file is a link: the rename would replace it; the results file read is no output
  : >"$TMP/page.html" && ln -s "$TMP/page.html" "$TMP/page link.html"
  run "$REPORT" -o "$TMP/page link.html" "$TMP/r.json"
  [ "$status" -eq 2 ]
  [[ $output == *"is a symbolic link"* ]]
  [ -L "$TMP/page link.html" ]
  run "$REPORT" -o "$TMP/r.json" "$TMP/r.json"
  [ "$status" -eq 2 ]
  [[ $output == *"a file this run reads"* ]]
  cmp -s "$TMP/r.json" "$F/single-base.json"
  # a folder: the page inside it, under its default name, nothing hidden left there
  mkdir "$TMP/pages dir"
  run "$REPORT" -o "$TMP/pages dir" "$TMP/r.json"
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "$TMP/pages dir/r.html" ]
  [ -s "$TMP/pages dir/r.html" ]
  run "$REPORT" -o "$TMP/pages dir/" "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "$TMP/pages dir/single-base-vs-single-drop20.html" ]
  [ "$(find "$TMP/pages dir" -mindepth 1 -printf '%f\n' | sort | paste -sd,)" = "r.html,single-base-vs-single-drop20.html" ]
  # a regular file is replaced, as before
  : >"$TMP/old.html"
  run "$REPORT" -o "$TMP/old.html" "$TMP/r.json"
  [ "$status" -eq 0 ]
  [ -s "$TMP/old.html" ]
  [ "$(find "$TMP" -name '.report.*' | wc -l)" -eq 0 ]
}

@test "report: report::page (run-benchmarks.sh's hook) warns and keeps the results file when the page fails" {
  cp "$F/bad-not-json.json" "$TMP/r.json"
  run bash -c "source '$ROOT/lib/log.sh'; source '$ROOT/lib/report.sh'; report::page '$TMP/r.json'"
  [ "$status" -eq 0 ]
  [[ $output == *"could not write the web page"* ]]
  cmp "$TMP/r.json" "$F/bad-not-json.json"
}

@test "report: the README's screenshots come from lib/report/screenshots.sh: PNG, not blank, under 300 KiB" {
  need_chromium
  run "$ROOT/lib/report/screenshots.sh" "$TMP/docs"
  [ "$status" -eq 0 ]
  local png
  for png in "$TMP/docs/report-run.png" "$TMP/docs/report-compare.png"; do
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
    [ "$(stat -c %s "$png")" -lt 307200 ]
    [ "$(stat -c %s "$png")" -gt 30000 ]
  done
  [ "$(find "$TMP/docs" -mindepth 1 -printf '%f\n' | sort | paste -sd,)" = "report-compare.png,report-run.png" ]
  # a FIFO in a picture's place is refused (before any work), not written into (which would
  # block) nor replaced
  rm "$TMP/docs/report-compare.png"
  mkfifo "$TMP/docs/report-compare.png"
  cp "$TMP/docs/report-run.png" "$TMP/run.png"
  run timeout 120 "$ROOT/lib/report/screenshots.sh" "$TMP/docs"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"report-compare.png exists and is not a regular file"* ]]
  [ -p "$TMP/docs/report-compare.png" ]
  cmp "$TMP/run.png" "$TMP/docs/report-run.png"
}

@test "report: a SIGTERM stops the page's generator at once and leaves no file behind (exit 143)" {
  # a run of 30 x 21 rows: its page takes a while to write
  jq '.results |= [range(0; 30) as $k | .[] | .run += 10 * $k]' "$F/recorded-quick-3runs-b.json" >"$TMP/big.json"
  background "$REPORT" "$TMP/big.json" >/dev/null 2>"$TMP/err"
  local pid=$BG_PID i rc=0
  # the generator: the child of report.sh that runs report.py (found among its children)
  CHILD=''
  for ((i = 0; i < 1200 && ${#CHILD} == 0; i++)); do
    CHILD=$(ps -o pid=,args= --ppid "$pid" | awk '/report\.py/ {print $1; exit}')
    [ -n "$CHILD" ] || sleep 0.05
  done
  [ -n "$CHILD" ]
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  [ "$rc" -eq 143 ]
  # gone, not writing on: no hidden page now nor a moment later
  for ((i = 0; i < 20; i++)); do kill -0 "$CHILD" 2>/dev/null || break; sleep 0.1; done
  run kill -0 "$CHILD"
  [ "$status" -ne 0 ]
  CHILD=''
  [ -z "$(find "$TMP" -name '.report.*')" ]
  [ ! -e "$TMP/big.html" ]
}

@test "report: only the main shell removes its work files, not a subshell a signal reaches as it forks" {
  # bash runs inherited traps in such a subshell; cleanup must then leave the files to the run
  # shellcheck disable=SC2016 # expanded by that bash
  run bash -c 'source "$1"; WORK_DIR=$2/work; PAGE_TMP=$2/.page; mkdir "$WORK_DIR"; : >"$PAGE_TMP"
    (cleanup); [[ -d $WORK_DIR && -f $PAGE_TMP ]] && echo "kept by a subshell"
    cleanup; [[ ! -e $WORK_DIR && ! -e $PAGE_TMP ]] && echo "removed by the main shell"' _ "$REPORT" "$TMP"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = $'kept by a subshell\nremoved by the main shell' ]
}

@test "report: a variant run's page has a table per server of its variants against its first, and their chart" {
  need_chromium
  local p f=$F/variants-jetty.json
  p=$(page "$f")
  browse "$p"
  loads_clean
  # the usual charts per table, and one of the variants per server
  diff <( (expected_charts "$f"; echo "variants 1") | sort) <(drawn_charts)
  grep -qF '<a href="#variants">Variants</a>' "$p"
  grep -qF '<td class="server">jetty:vt</td><td>hello · HTTP/1.1 · wrk</td><td>25.0.3</td>' "$p"
  [ "$(facts '[.cells[] | select(.table == "variants" and .field == "rps_change") | .text] | join(",")')" = \
    "–,+10.3% [+3.1%, +19.6%],–,+10.3% [+3.1%, +19.6%]" ]
  [ "$(facts '[.cells[] | select(.table == "variants" and .field == "verdict") | .text] | join(",")')" = "baseline,faster,baseline,faster" ]
  # the rows are the contestants', by label, with the file's numbers
  check_numbers "$f"
}

@test "report: a variant run with start-up figures has a column of them against the default, with aot's finding" {
  local p
  p=$(page "$F/variants-aot.json")
  grep -qF '<th>Start-up vs jetty:platform</th>' "$p"
  grep -qF '<td class="startup" data-field="startup">first response 0.6 s against 1.5 s, steady after 3 s against 13 s (not reached in 1 more); a finding: steady ok/s faster with aot, which Leyden does not aim to change</td>' "$p"
  # the default's own rows have no comparison; a run without the figures has no such column
  [ "$(grep -o 'data-field="startup">–<' "$p" | wc -l)" -eq 2 ]
  p=$(page "$F/variants-jetty.json")
  [ "$(grep -c 'Start-up vs' "$p")" -eq 0 ]
}

@test "report: the server warm-ups give each start's time to steady state, and a dash with the reason where it never came" {
  jq '.server_warmups = [{server: "netty", run: 1, tool: "barrage", mode: "auto", duration_s: 15, started: "2026-11-20T10:00:00Z",
      ended: "2026-11-20T10:00:20Z", first_response_s: 0.8,
      shapes: [{protocol: "h1", scenario: "hello", status: "ok", reason: null, requests: 1000, successful_rps: 100, warmup_s: 9, steady: true,
                time_to_steady: {load_started_s: 1.5, steady_after_s: 9, verdict: "steady", reason: null, first_5s_rps: 30, steady_rps: 100, first_5s_share: 0.3}},
               {protocol: "h1", scenario: "post-load", status: "ok", reason: null, requests: 1000, successful_rps: 100, warmup_s: 15, steady: false,
                time_to_steady: {load_started_s: 11, steady_after_s: null, verdict: "not reached", reason: "not in steady state when the warm-up cap (15 s) ended it",
                                 first_5s_rps: 30, steady_rps: null, first_5s_share: null}}]}]' "$F/single-base.json" >"$TMP/warm.json"
  "$REPORT" "$TMP/warm.json" >/dev/null 2>&1
  grep -qF '<td class="num" data-value="0.8" data-field="first_response_s">0.8</td>' "$TMP/warm.html"
  grep -qF '<td class="num" data-value="9" data-field="steady_after_s">9.0</td><td class="num" data-value="0.3" data-field="first_5s_share">30%</td>' "$TMP/warm.html"
  grep -qF '<td class="num" data-field="steady_after_s" title="not in steady state when the warm-up cap (15 s) ended it">–</td>' "$TMP/warm.html"
}
