# readme_openloop: the README's part for servers compared at the same load (run-benchmarks.sh
# --rates, --capacity), as a jq module imported by lib/readme.jq.
#
#   model        results file -> {rate_tables, ramp_tables, capacity_tables}: per scenario x
#                protocol x tool, each server at each offered rate (medians over the runs of
#                p50/p99/p99.9 and the error share; delivered only when every run delivered the
#                rate, else the achieved rate and backlog instead of a latency), each server's
#                ramped runs (--rate-stages: every whole second's offered rate and p99, and
#                where delivery first fell short), and each server's capacity beside its peak
#                successful requests/s (the closed-loop rows of the same tool)
#   section($charts)   model part -> Markdown lines (empty when the file has no open-loop row)
#   chart_scripts($dir; $colour)   model part -> [{file, script}]: latency by percentile on a
#                "nines" axis (one curve per server and delivered rate), p99 against the offered
#                rate (from the fixed rates, and from each ramped run's seconds), capacity bars
#                beside peak requests/s. $colour: server -> "#rrggbb".

import "stats" as stats;
import "format" as fmt;

def _slug: gsub("[^A-Za-z0-9_.-]"; "_");
def _median: map(select(. != null)) | if length == 0 then null else stats::summary.median end;
def _percentiles: ["p50", "p75", "p90", "p99", "p999", "p9999"];

def _rate_entry:
  map(select(.status == "ok")) as $ok
  | {server: .[0].server, rate: .[0].load.target_rps, runs: length, ok: ($ok | length),
     delivered: (($ok | length) > 0 and all($ok[]; .metrics.rate.delivered != false)),
     achieved: ($ok | map(.metrics.rate.achieved) | _median),
     backlog_max: ($ok | map(.metrics.rate.backlog_max) | max),
     latency: (_percentiles | map(. as $p | {key: $p, value: ($ok | map(.metrics.latency_us[$p]?) | _median)}) | from_entries),
     error_rate: ($ok | map(.metrics | stats::failures | select(. != null)) | stats::error_rate),
     slo_failed: any(.[]; .slo.met == false),
     reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique};

def _capacity_entry($peaks):
  map(select(.status == "ok")) as $ok
  | {server: .[0].server, runs: length,
     capacity_rps: ($ok | map(.capacity.capacity_rps) | _median),
     confirmed: (($ok | length) > 0 and all($ok[]; .capacity.confirmed == true)),
     failed_step: ($ok | map(.capacity.failed_step | select(. != null)) | first),
     peak_rps: $peaks[.[0].server],
     slo_failed: any(.[]; .slo.met == false),
     reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique};

# A ramped run's whole seconds in the window: offered (the target) against p99; a second whose
# sent requests fell below 95% of its target is marked short (the offered rate did not go out).
def _ramp_points:
  [.metrics.timeline[]? | select((.in_grace | not) and .length_s >= 0.9 and .target_rate != null
                                 and (.latency_us.p99? // 0) > 0)
   | {offered: .target_rate, p99_us: .latency_us.p99, short: (.sent / .length_s < 0.95 * .target_rate)}];

def _ramp_entry:
  map(select(.status == "ok")) as $ok
  | {server: .[0].server, runs: length, ok: ($ok | length),
     points: [$ok[] | _ramp_points[]] | sort_by(.offered),
     first_short: ($ok | map(.metrics.rate.first_short.target_rate? | select(. != null)) | min),
     top_offered: ($ok | map(.metrics.timeline[]? | select(.in_grace | not) | .target_rate // empty) | max),
     error_rate: ($ok | map(.metrics | stats::failures | select(. != null)) | stats::error_rate),
     slo_failed: any(.[]; .slo.met == false),
     reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique};

def model:
  [.results[] | select(.load.mode == "rate" or .load.mode == "stages" or .load.mode == "capacity")] as $open
  | [.results[] | select(.load == null and .status == "ok")] as $closed
  | {rate_tables: ([$open[] | select(.load.mode == "rate")] | group_by([.scenario, .protocol, .tool])
       | map({scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool,
              slug: ("\(.[0].scenario)-\(.[0].protocol)-\(.[0].tool)" | _slug),
              rates: ([.[].load.target_rps] | unique),
              entries: (group_by([.server, .load.target_rps]) | map(_rate_entry) | sort_by(.server, .rate))})
       # a tool without a fixed-rate mode has only skipped rows here: no table
       | map(select(any(.entries[]; .ok > 0)))),
     ramp_tables: ([$open[] | select(.load.mode == "stages")] | group_by([.scenario, .protocol, .tool])
       | map({scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool, stages: .[0].load.stages,
              slug: ("\(.[0].scenario)-\(.[0].protocol)-\(.[0].tool)" | _slug),
              entries: (group_by(.server) | map(_ramp_entry) | sort_by(.server))})
       | map(select(any(.entries[]; .ok > 0)))),
     capacity_tables: ([$open[] | select(.load.mode == "capacity")] | group_by([.scenario, .protocol, .tool])
       | map(.[0] as $first
             | ($closed | map(select(.scenario == $first.scenario and .protocol == $first.protocol and .tool == $first.tool))
                | group_by(.server) | map({key: .[0].server, value: (map(.metrics | stats::successful_rps) | _median)})
                | from_entries) as $peaks
             | {scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool,
                slug: ("\(.[0].scenario)-\(.[0].protocol)-\(.[0].tool)" | _slug),
                conditions: .[0].load.conditions, precision: .[0].load.precision,
                entries: (group_by(.server) | map(_capacity_entry($peaks)) | sort_by(-(.capacity_rps // -1), .server))}))};

def _md_escape: gsub("\\|"; "\\|") | gsub("<"; "&lt;");
def _slo_mark: if .slo_failed then " ✗" else "" end;

def _rate_row:
  if .ok == 0 then "| \(.server) | \(.rate | fmt::thousands) | – | \(.reasons | join("; ") | _md_escape) | | | |"
  elif .delivered | not then
    "| \(.server)\(_slo_mark) | \(.rate | fmt::thousands) | \(.achieved | fmt::thousands) | not delivered: backlog up to \(.backlog_max | fmt::thousands) requests | – | – | \(.error_rate | fmt::share) |"
  else
    "| \(.server)\(_slo_mark) | \(.rate | fmt::thousands) | \(.achieved | fmt::thousands) | \(.latency.p50 | fmt::latency) | \(.latency.p99 | fmt::latency) | \(.latency.p999 | fmt::latency) | \(.error_rate | fmt::share) |"
  end;

def _ramp_row:
  if .ok == 0 then "| \(.server) | – | \(.reasons | join("; ") | _md_escape) | | |"
  else
    "| \(.server)\(_slo_mark) | \(.top_offered | fmt::thousands) | "
    + (if .first_short == null then "never" else "at \(.first_short | fmt::thousands)/s" end)
    + " | \([.points[] | select(.short | not) | .p99_us] | max | fmt::latency) | \(.error_rate | fmt::share) |"
  end;

def _capacity_row:
  "| \(.server)\(_slo_mark) | "
  + (if .capacity_rps == null then "none" else (.capacity_rps | fmt::thousands) + (if .confirmed then "" else " (not confirmed)" end) end)
  + " | \(.peak_rps | fmt::thousands) | "
  + (if .failed_step == null then (.reasons | join("; ") | _md_escape)
     else "\(.failed_step.rate | fmt::thousands)/s: \(.failed_step.why | _md_escape)" end) + " |";

def section($charts):
  if (.rate_tables | length) == 0 and (.ramp_tables | length) == 0 and (.capacity_tables | length) == 0 then empty
  else
    "### At the same load: fixed rates and capacity",
    "",
    "Every server offered the same requests/s on a schedule (barrage -R, open loop, after the same warm-up): "
    + "latency runs from each request's scheduled time, so a stall counts as users see it. A rate a server "
    + "could not take (fewer than 99% of the requests sent, or sent late) shows the rate achieved and the "
    + "backlog, never a latency. ✗: a run broke an `--slo` condition.",
    "",
    (.rate_tables[]
     | "#### \(.scenario) · \(.protocol) · \(.tool) at fixed rates",
       "",
       "| Server | Offered req/s | Achieved req/s | p50 | p99 | p99.9 | Errors |",
       "|---|---:|---:|---:|---:|---:|---:|",
       (.entries[] | _rate_row),
       "",
       "![Latency by percentile at each offered rate, \(.scenario), \(.protocol)](\($charts)/rates-latency-\(.slug).png)",
       "![p99 latency against the offered rate, \(.scenario), \(.protocol)](\($charts)/rates-p99-\(.slug).png)",
       ""),
    (.ramp_tables[]
     | "#### \(.scenario) · \(.protocol) · \(.tool), ramped: \(.stages)",
       "",
       "One run per server whose offered rate ramps linearly through the stages (barrage --rate-stages): "
       + "each whole second gives its offered rate and its p99, so one run draws p99 against the offered "
       + "rate. Delivery fell short where a second sent fewer than 95% of its target; the highest p99 is "
       + "over the seconds that were delivered.",
       "",
       "| Server | Top offered req/s | Delivery fell short | Highest p99 (delivered seconds) | Errors |",
       "|---|---:|---:|---:|---:|",
       (.entries[] | _ramp_row),
       "",
       "![p99 against the offered rate, one ramped run, \(.scenario), \(.protocol)](\($charts)/ramp-p99-\(.slug).png)",
       ""),
    (.capacity_tables[]
     | "#### Capacity: \(.scenario) · \(.protocol) · \(.tool), the highest rate with \(.conditions | join(", ") | _md_escape)",
       "",
       "Found by doubling the rate until a condition failed, then bisecting to \(.precision * 100)% and measuring the rate "
       + "found once more; re-check it with `--rates`. Peak is the closed-loop successful requests/s of the same run.",
       "",
       "| Server | Capacity req/s | Peak req/s | First failing rate: why |",
       "|---|---:|---:|---|",
       (.entries[] | _capacity_row),
       "",
       "![Capacity beside peak requests/s, \(.scenario), \(.protocol)](\($charts)/capacity-\(.slug).png)",
       "")
  end;

def _gp_string: fmt::gp_string;
def _gp_head($file; $title):
  "set terminal pngcairo size 1000,560 noenhanced font \"Sans,11\"",
  "set output \($file | _gp_string)",
  "set title \($title | _gp_string) font \"Sans,14\"",
  "set key outside right top vertical box opaque",
  "set grid ytics lc rgb \"#dddddd\"",
  "set border 3",
  "set tics nomirror";

# Latency by percentile, HdrHistogram style: x is 1/(1-p) on a log axis (50% ... 99.99%).
def _percentile_script($dir; colour):
  [.entries[] | select(.delivered)] as $curves
  | [["p50", 2], ["p75", 4], ["p90", 10], ["p99", 100], ["p999", 1000], ["p9999", 10000]] as $points
  | _gp_head("\($dir)/rates-latency-\(.slug).png"; "Latency by percentile at fixed rates: \(.scenario), \(.protocol), \(.tool) (lower is better)"),
    "set xlabel \"percentile\"",
    "set ylabel \"latency (ms, log scale)\"",
    "set logscale x 10", "set logscale y 10", "set xrange [1.7:12000]",
    "set xtics (\"50%%\" 2, \"90%%\" 10, \"99%%\" 100, \"99.9%%\" 1000, \"99.99%%\" 10000)",
    (range(0; $curves | length) as $i
     | "$c\($i) << EOD",
       ($curves[$i].latency as $lat | $points[] | select(($lat[.[0]] // 0) > 0) | "\(.[1]) \($lat[.[0]] / 1000)"),
       "EOD"),
    if ($curves | length) == 0 then "set label \"no rate was delivered\" at graph 0.5, 0.5 center", "plot [1:2] [1:2] NaN notitle"
    else "plot " + ([range(0; $curves | length) as $i | $curves[$i]
                     | "$c\($i) using 1:2 with linespoints lc rgb \"\(.server | colour)\" dt \(($i % 5) + 1) lw 2 pt 7 ps 0.8 title \("\(.server) @ \(.rate)/s" | _gp_string)"]
                    | join(", \\\n     ")) end;

# p99 against the offered rate, one line per server; rates not delivered are left out.
def _p99_script($dir; colour):
  ([.entries[] | select(.delivered and (.latency.p99 // 0) > 0)] | group_by(.server)) as $servers
  | _gp_head("\($dir)/rates-p99-\(.slug).png"; "p99 latency against the offered rate: \(.scenario), \(.protocol), \(.tool) (lower is better)"),
    "set xlabel \"offered requests/s\"",
    "set ylabel \"p99 latency (ms, log scale)\"",
    "set logscale y 10", "set xrange [0:*]",
    (range(0; $servers | length) as $i
     | "$s\($i) << EOD", ($servers[$i][] | "\(.rate) \(.latency.p99 / 1000)"), "EOD"),
    if ($servers | length) == 0 then "set label \"no rate was delivered\" at graph 0.5, 0.5 center", "plot [1:2] [1:2] NaN notitle"
    else "plot " + ([range(0; $servers | length) as $i
                     | "$s\($i) using 1:2 with linespoints lc rgb \"\($servers[$i][0].server | colour)\" lw 2 pt 7 title \($servers[$i][0].server | _gp_string)"]
                    | join(", \\\n     ")) end;

# p99 against the offered rate from ramped runs: one line per server through its seconds in
# the order of the offered rate; seconds that fell short are left out.
def _ramp_script($dir; colour):
  [.entries[] | select(any(.points[]; .short | not))] as $servers
  | _gp_head("\($dir)/ramp-p99-\(.slug).png"; "p99 against the offered rate, ramped \(.stages): \(.scenario), \(.protocol), \(.tool) (lower is better)"),
    "set xlabel \"offered requests/s\"",
    "set ylabel \"p99 latency (ms, log scale)\"",
    "set logscale y 10", "set xrange [0:*]",
    (range(0; $servers | length) as $i
     | "$r\($i) << EOD", ($servers[$i].points[] | select(.short | not) | "\(.offered) \(.p99_us / 1000)"), "EOD"),
    if ($servers | length) == 0 then "set label \"no second was delivered\" at graph 0.5, 0.5 center", "plot [1:2] [1:2] NaN notitle"
    else "plot " + ([range(0; $servers | length) as $i
                     | "$r\($i) using 1:2 with linespoints lc rgb \"\($servers[$i].server | colour)\" lw 2 pt 7 ps 0.6 title \($servers[$i].server | _gp_string)"]
                    | join(", \\\n     ")) end;

# Capacity beside peak successful requests/s, two bars per server.
def _capacity_script($dir):
  _gp_head("\($dir)/capacity-\(.slug).png"; "Capacity (\(.conditions | join(", "))) beside peak requests/s: \(.scenario), \(.protocol), \(.tool) (higher is better)"),
  "set ylabel \"requests/s\"",
  "set yrange [0:*]",
  "set style data histograms",
  "set style histogram clustered gap 1",
  "set style fill solid 0.9 border -1",
  "set datafile missing \"?\"",
  "$d << EOD",
  (.entries[] | "\(.server | fmt::gp_datum) \(.capacity_rps // "?") \(.peak_rps // "?")"),
  "EOD",
  "plot $d using 2:xtic(1) title \"capacity\" lc rgb \"#1f77b4\", $d using 3 title \"peak (closed loop)\" lc rgb \"#bbbbbb\"";

def chart_scripts($dir; colour):
  (.rate_tables[] | {file: "rates-latency-\(.slug).png", script: ([_percentile_script($dir; colour)] | join("\n") + "\n")},
                    {file: "rates-p99-\(.slug).png", script: ([_p99_script($dir; colour)] | join("\n") + "\n")}),
  (.ramp_tables[] | {file: "ramp-p99-\(.slug).png", script: ([_ramp_script($dir; colour)] | join("\n") + "\n")}),
  (.capacity_tables[] | {file: "capacity-\(.slug).png", script: ([_capacity_script($dir)] | join("\n") + "\n")});
