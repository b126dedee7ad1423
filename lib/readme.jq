# readme: a results file -> the README's performance section and its gnuplot charts
# (update-readme.sh), as a jq module.
#
#   model($baseline)       results file -> {tables, rps_charts, servers, meta}: one table per
#                          scenario x protocol x tool, servers sorted by median requests/s
#   section($charts; $source)   model -> the Markdown between the performance markers;
#                          $charts is the charts directory relative to the README
#   chart_scripts($dir)    model -> [{file, script}]: one gnuplot script per chart, data inline,
#                          writing PNG files into $dir
#
# With several runs, every figure is the median of the successful runs; requests/s and p99
# also show the spread (min–max).

import "stats" as stats;
import "format" as fmt;

def _scenario_rank:
  . as $scenario
  | ["baseline", "hello", "post-load", "large-file", "high-concurrency", "mixed"] as $known
  | ($known | index([$scenario])) // ($known | length);

def _slug: gsub("[^A-Za-z0-9_.-]"; "_");

def _summary: map(select(. != null)) | stats::summary;

def _server_entry:
  (map(select(.status == "ok"))) as $ok
  | {server: .[0].server, runs: length, ok: ($ok | length),
     reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique,
     rps: ($ok | map(.metrics.rps) | _summary),
     successful_rps: ($ok | map(.metrics.successful_rps) | _summary),
     errors_per_s: ($ok | map(if .metrics.failed == null or .metrics.duration_us == 0 then null
                              else .metrics.failed / (.metrics.duration_us / 1000000) end) | _summary),
     cpu_pct: ($ok | map(.server_stats.cpu_pct?) | _summary),
     rss_peak_kb: ($ok | map(.server_stats.rss_peak_kb?) | _summary),
     latency: (["p50", "p75", "p90", "p99", "p999", "p9999"]
               | map(. as $p | {key: $p, value: ($ok | map(.metrics.latency_us[$p]?) | _summary)})
               | from_entries)};

def _table($baseline):
  {scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool,
   slug: ("\(.[0].scenario)-\(.[0].protocol)-\(.[0].tool)" | _slug),
   entries: (group_by(.server) | map(_server_entry))}
  | .measured = ([.entries[] | select(.ok > 0)] | sort_by(-.rps.median, .server))
  | .unmeasured = ([.entries[] | select(.ok == 0)] | sort_by(.server))
  | .partial = ([.entries[] | select(.ok > 0 and .ok < .runs)] | sort_by(.server))
  | (.measured | map(select(.server == $baseline)) | .[0].rps.median) as $base_rps
  | .measured |= map(.vs_baseline = (if $base_rps != null and $base_rps > 0 then .rps.median / $base_rps else null end))
  | del(.entries);

def model($baseline):
  . as $doc
  | ([.results[] | .server] | unique) as $servers
  | ([.results[]] | group_by([.scenario, .protocol, .tool]) | map(_table($baseline))
     | map(select((.measured | length) > 0 or (.unmeasured | length) > 0))
     | sort_by((.scenario | _scenario_rank), .scenario, .protocol, .tool)) as $tables
  | {meta: ($doc | del(.results)), baseline: $baseline, servers: $servers, tables: $tables,
     rps_charts: ($tables | map(select((.measured | length) > 0)) | group_by([.protocol, .tool])
                  | map({protocol: .[0].protocol, tool: .[0].tool,
                         slug: ("rps-\(.[0].protocol)-\(.[0].tool)" | _slug),
                         scenarios: map(.scenario),
                         servers: ([.[].measured[].server] | unique),
                         values: map(.measured | map({key: .server, value: .rps.median}) | from_entries)})
                  | sort_by(.protocol, .tool))};

# ---- Markdown ---------------------------------------------------------------------------

def _protocol_name:
  {"h1": "HTTP/1.1", "h2c": "HTTP/2 cleartext (h2c)", "h1-tls": "HTTP/1.1 over TLS", "h2": "HTTP/2 over TLS"}[.] // .;

def _with_spread(format):
  if . == null then fmt::dash
  elif .n > 1 then "\(.median | format)<br><sub>\(.min | format)–\(.max | format)</sub>"
  else .median | format end;

def _median(format): if . == null then fmt::dash else .median | format end;

def _md_escape: gsub("\\|"; "\\|") | gsub("<"; "&lt;");

def _table_md($baseline):
  "| Server | Requests/s | Successful/s | p50 | p99 | p99.9 | Errors/s | Server CPU | Peak RSS | vs \($baseline) |",
  "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  (.measured[]
   | "| \(.server | _md_escape) | \(.rps | _with_spread(fmt::thousands)) | \(.successful_rps | _median(fmt::thousands))"
     + " | \(.latency.p50 | _median(fmt::latency)) | \(.latency.p99 | _with_spread(fmt::latency))"
     + " | \(.latency.p999 | _median(fmt::latency)) | \(.errors_per_s | _median(fmt::thousands))"
     + " | \(.cpu_pct | _median(fmt::fixed(0) + "%")) | \(.rss_peak_kb | _median(fmt::kib))"
     + " | \(if .vs_baseline == null then fmt::dash else (.vs_baseline * 100 | fmt::fixed(0)) + "%" end) |");

def _not_measured:
  (if (.unmeasured | length) > 0 then
     "", (.unmeasured[] | "- **\(.server | _md_escape)** not measured: \(.reasons | join("; ") | _md_escape)")
   else empty end),
  (if (.partial | length) > 0 then
     "", (.partial[] | "- **\(.server | _md_escape)**: \(.runs - .ok) of \(.runs) runs not counted: \(.reasons | join("; ") | _md_escape)")
   else empty end);

def _footer:
  .meta as $m
  | "### Test environment",
    "",
    "| | |",
    "|:--|:--|",
    "| Date | \($m.timestamp) |",
    "| Machine | \($m.system.cpuModel | _md_escape), \($m.system.cpuCores) cores, \($m.system.ramGB) GB RAM (\($m.system.arch)) |",
    "| OS | \($m.system.os | _md_escape), kernel \($m.system.kernel | _md_escape) |",
    "| Java | \($m.system.java // "unknown" | _md_escape)\(if $m.system.jvmFlags then " (`\($m.system.jvmFlags)`)" else "" end) |",
    (if $m.system.cpuPinning then "| CPU pinning | server: \($m.system.cpuPinning.server), client: \($m.system.cpuPinning.client) |" else empty end),
    (if $m.system.description then "| Notes | \($m.system.description | _md_escape) |" else empty end),
    "| Tools | \([$m.tools | to_entries[] | select(.value != null) | "\(.key) \(.value)"] | join(", ") | _md_escape) |",
    "| Runs | \($m.settings.runs) × \($m.settings.duration_s) s after \($m.settings.warmup_s) s of warm-up |",
    "| Suite commit | \($m.commit // "unknown" | if . == "unknown" then . else "`\(.)`" end) |",
    "| Reproduce | `\($m.command)` |";

def section($charts; $source):
  .baseline as $baseline
  | .meta.settings.runs as $runs
  | "<!-- Generated by ./update-readme.sh from \($source); edits between the markers are overwritten. -->",
    "",
    "Measured \(.meta.timestamp) on \(.meta.system.cpuModel | _md_escape) (\(.meta.system.cpuCores) cores). "
    + (if $runs > 1 then "Figures are the median of \($runs) runs; requests/s and p99 show the range (min–max) below. "
       else "One run per row. " end)
    + "Latency is the time to the full response; Server CPU is percent of one core; "
    + "\"vs \($baseline)\" is requests/s relative to \($baseline) in the same table.",
    "",
    (.rps_charts[] | "![Requests/s per server and scenario, \(.protocol | _protocol_name), \(.tool)](\($charts)/\(.slug).png)", ""),
    (.tables[]
     | "### \(.scenario) · \(.protocol | _protocol_name) · \(.tool)",
       "",
       (if (.measured | length) > 0 then _table_md($baseline) else "No server was measured." end),
       _not_measured,
       "",
       (if (.measured | length) > 0
        then "![Latency by percentile, \(.scenario), \(.protocol), \(.tool)](\($charts)/latency-\(.slug).png)", ""
        else empty end)),
    _footer;

# ---- gnuplot ----------------------------------------------------------------------------

# One colour per server, the same in every chart (index in the sorted list of all servers).
def _palette: ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
def _colour($servers): . as $s | _palette[(($servers | index([$s])) // 0) % (_palette | length)];
def _gp_string: "\"" + (gsub("\\\\"; "\\\\") | gsub("\""; "\\\"")) + "\"";

def _gp_common($file; $title):
  "set terminal pngcairo size 1000,560 noenhanced font \"Sans,11\"",
  "set output \(($file) | _gp_string)",
  "set title \($title | _gp_string) font \"Sans,14\"",
  "set key outside right top vertical box opaque",
  "set grid ytics lc rgb \"#dddddd\"",
  "set border 3",
  "set tics nomirror";

def _rps_script($dir; $servers; $runs):
  . as $chart
  | "\($dir)/\(.slug).png" as $file
  | _gp_common($file; "Requests per second by scenario: \(.protocol | _protocol_name), \(.tool) (higher is better)"),
    "set ylabel \"requests/s\(if $runs > 1 then " (median of \($runs) runs)" else "" end)\"",
    "set xlabel \"scenario\"",
    # Headroom above the tallest bar for its value label.
    "set yrange [0:\([.values[][]] | max * 1.15)]",
    "set format y \"%.0s%c\"",
    "set style data histograms",
    "set style histogram clustered gap 1",
    "set style fill solid 0.9 border -1",
    "set datafile missing \"?\"",
    "$rps << EOD",
    (range(0; .scenarios | length) as $i
     | ([$chart.scenarios[$i] | _gp_string] + [$chart.servers[] | $chart.values[$i][.] // "?" | tostring]) | join(" ")),
    "EOD",
    # Value labels over the bars keep small bars (large files) readable; bar j of a cluster
    # of n with a gap of 1 sits at x + (j - (n-1)/2) / (n+1).
    (.servers | length) as $n
    | "plot " + ([range(0; $n) as $j
                  | "$rps using \($j + 2):xtic(1) title \($chart.servers[$j] | _gp_string) lc rgb \"\($chart.servers[$j] | _colour($servers))\""]
                 + [range(0; $n) as $j
                  | "$rps using ($0 + \(($j - ($n - 1) / 2) / ($n + 1))):\($j + 2):(gprintf(\"%.1s%c\", column(\($j + 2)))) with labels rotate by 90 left offset 0,0.4 font \",8\" notitle"]
                 | join(", \\\n     "));

def _latency_script($dir; $servers; $runs):
  . as $table
  | "\($dir)/latency-\(.slug).png" as $file
  | [["p50", 2], ["p75", 4], ["p90", 10], ["p99", 100], ["p999", 1000], ["p9999", 10000]] as $points
  | _gp_common($file; "Latency by percentile: \(.scenario), \(.protocol | _protocol_name), \(.tool) (lower is better)"),
    "set xlabel \"percentile (log scale of 1/(1-p))\"",
    # A linear latency axis, as HdrHistogram plots have, unless one tail dwarfs the rest:
    # then a log axis keeps the other servers' lines apart.
    ([.measured[].latency[] | .median? // empty | select(. > 0)]) as $all
    | (($all | length) > 0 and ($all | max) / ($all | min) > 100) as $log_y
    | (if $runs > 1 then ", median of \($runs) runs" else "" end) as $median
    | (if $log_y then "set ylabel \"latency (ms, log scale\($median))\"", "set logscale y 10", "set yrange [*:*]"
       else "set ylabel \"latency (ms\($median))\"", "set yrange [0:*]" end),
    "set logscale x 10",
    "set xrange [1.7:12000]",
    "set xtics (\"50%%\" 2, \"75%%\" 4, \"90%%\" 10, \"99%%\" 100, \"99.9%%\" 1000, \"99.99%%\" 10000)",
    (range(0; .measured | length) as $i
     | "$server\($i) << EOD",
       ($table.measured[$i].latency as $lat
        | $points[] | select($lat[.[0]] != null) | "\(.[1]) \($lat[.[0]].median / 1000)"),
       "EOD"),
    "plot " + ([range(0; .measured | length) as $i
                | "$server\($i) using 1:2 with linespoints lc rgb \"\($table.measured[$i].server | _colour($servers))\" lw 2 pt 7 ps 0.8 title \($table.measured[$i].server | _gp_string)"]
               | join(", \\\n     "));

def chart_scripts($dir):
  .servers as $servers
  | .meta.settings.runs as $runs
  | [(.rps_charts[] | {file: "\(.slug).png", script: ([_rps_script($dir; $servers; $runs)] | join("\n") + "\n")}),
     (.tables[] | select((.measured | length) > 0)
      | {file: "latency-\(.slug).png", script: ([_latency_script($dir; $servers; $runs)] | join("\n") + "\n")})];
