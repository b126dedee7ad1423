# readme: a results file -> the README's performance section and its gnuplot charts
# (update-readme.sh), as a jq module.
#
#   model($baseline)       results file -> {tables, rps_charts, servers, timeouts, warmups, meta}: one
#                          table per scenario x protocol x tool, servers sorted by median
#                          successful requests/s; with 3+ runs, ranked by the 95% confidence
#                          intervals of successful requests/s (overlapping ones share a rank)
#                          In a variant run (rows with .variant: lib/variants.sh), variants: per
#                          server, its contestants against its first (noise::variants: the change
#                          of successful requests/s and its 95% interval, the verdict) per
#                          scenario, protocol and tool, and a chart of their successful requests/s
#   section($charts; $source)   model -> the Markdown between the performance markers;
#                          $charts is the charts directory relative to the README; no
#                          control character (format.jq's safe)
#   chart_scripts($dir)    model -> [{file, script, data_file, data}]: one gnuplot script per
#                          chart writing a PNG file into $dir; data inline, or for the chart
#                          over time in data_file (written before the script runs; "" if none);
#                          every string of the results file a single-quoted literal
#                          (format.jq's gp_string, gp_datum): no command of its own
#
# Over time: when barrage's rows carry their per-second `timeline`, the first table of the
# README's order that has them (the headline scenario) gets a chart of successful requests/s
# and p99 per second, one line per server: the run whose successful requests/s is the median
# of its runs (a real run, not a blend of seconds from different runs), seconds of the
# measured window only (not the grace).
#   chart_scripts($dir)    model -> [{file, script}]: one gnuplot script per chart, data inline,
#                          writing PNG files into $dir
#   Rows at a fixed rate or of a capacity search (load) are left out of the tables above and
#   make a part of their own: model's openloop, lib/readme_openloop.jq.
#   The response-size sweep's rows (scenario group size-sweep) keep their tables and also make
#   a part of their own, requests/s and MB/s against size: model's sizes, lib/readme_sizes.jq.
#
# Failed requests are not throughput: tables, ranking, "vs" and charts use successful
# requests/s; the error rate is shown apart and marks the row, as does a tool whose
# accounting is approximate (wrk), and so does a load tool that was busy on 90% or more of the
# cores it could use (client-bound: the figure is the tool's ceiling). With several runs, every
# figure is the median of the successful runs; successful requests/s and p99 also show the
# 95% confidence interval (3+ runs: a t-interval on log values, lib/stats.jq says why) or the
# range (2 runs).

import "stats" as stats;
import "format" as fmt;
import "second_opinion" as second;
import "agree" as agree;
import "noise" as noise;
import "rounds" as rounds;
# Rows at a fixed rate or of a capacity search (run-benchmarks.sh --rates, --capacity) have a
# part of their own; the tables here are the closed-loop rows.
import "readme_openloop" as openloop;
import "profile" as profile;
# The response-size sweep (the size-sweep scenario group) has a part of its own too.
import "readme_sizes" as sizes;
# The section opens with the verdict per protocol and the time to steady state.
import "readme_verdict" as verdict;

def _scenario_rank:
  . as $scenario
  | ["baseline", "hello", "post-load", "large-file", "high-concurrency", "mixed"] as $known
  | ($known | index([$scenario])) // ($known | length);

def _slug: gsub("[^A-Za-z0-9_.-]"; "_");

def _summary: map(select(. != null)) | stats::summary;

# _summary plus, with 3+ values, the 95% confidence interval of the typical value.
def _summary_ci:
  map(select(. != null)) as $values
  | ($values | stats::summary)
  | if . != null and .n >= 3 then .interval = ($values | stats::log_interval(0.95)) else . end;

# A load tool is client-bound when it was busy (on a CPU or waiting for one) for 90% or more
# of the cores it could use: its figure is its own ceiling, not the server's.
def _client_share: if . == null or .cores == null or .cores == 0 then null else (.busy_pct // .cpu_pct) as $b | if $b == null then null else $b / (100 * .cores) end end;

# A row's request timeout as the README says it: "2 s", "none" (null: the tool has none),
# or null when the results file does not say (older files have no request_timeout_s).
def _timeout_label:
  if (.config | has("request_timeout_s")) | not then null
  elif .config.request_timeout_s == null then "none"
  else "\(.config.request_timeout_s) s" end;

def _server_entry:
  (map(select(.status == "ok"))) as $ok
  | ($ok | map(.metrics | stats::failures | select(. != null))) as $failures
  | {server: .[0].server, runs: length, ok: ($ok | length),
     reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique,
     successful_rps: ($ok | map(.metrics | stats::successful_rps) | _summary_ci),
     client_bound_runs: ($ok | map(select(.client_bound == true)) | length),
     client_share: ($ok | map(.client_stats | _client_share) | max),
     client_cores: ($ok | map(.client_stats.cores? // empty) | max),
     error_rate: ($failures | stats::error_rate),
     # failures per second over all the successful runs' windows (as error_rate: all runs'
     # failures together; a median of runs would say 0/s where one run of three had some)
     errors_per_s: ($ok | map(select(.metrics.failed != null and (.metrics.duration_us // 0) > 0))
                    | if length == 0 then null
                      else (map(.metrics.failed) | add) / (map(.metrics.duration_us) | add) * 1000000 end),
     approximate: any($ok[]; .metrics.accounting == "approximate"),
     slo_failed: any($ok[]; .slo.met == false),
     not_steady_runs: ($ok | map(select(.server_warmup.steady? == false)) | length),
     drifting_runs: ($ok | map(select(.drift.status? == "drifting")) | length),
     timeouts: ($ok | map(_timeout_label) | unique),
     cpu_pct: ($ok | map(.server_stats.cpu_pct?) | _summary),
     rss_peak_kb: ($ok | map(.server_stats.rss_peak_kb?) | _summary),
     # a churn or idle scenario's row (lib/churn.sh): connections/s, handshakes/s, RSS per idle connection
     connections_per_s: ($ok | map(.connection.connections_per_s?) | _summary),
     handshakes_per_s: ($ok | map(.connection.handshakes_per_s?) | _summary),
     rss_per_idle_kb: ($ok | map(.connection.server_rss_kb_per_idle_connection?) | _summary),
     latency: (["p50", "p75", "p90", "p99", "p999", "p9999"]
               | map(. as $p | {key: $p, value: ($ok | map(.metrics.latency_us[$p]?) | if $p == "p99" then _summary_ci else _summary end)})
               | from_entries)};

# Ranks of measured servers: groups of servers whose successful requests/s intervals overlap,
# directly or through another (a server without an interval is a point at its median), share
# the rank of the group's best place and are "tied"; the groups are disjoint stretches of the
# axis, so the ranks never contradict an interval. In: entries sorted by median, best first.
def _rank:
  def span: (.successful_rps // {median: 0}) as $s
    | if $s.interval then [$s.interval.lo, $s.interval.hi] else [$s.median, $s.median] end;
  sort_by(-(span[1]), -(.successful_rps.median // 0), .server)
  | reduce .[] as $e ({groups: [], low: null};
      ($e | span) as $sp
      | if .low != null and $sp[1] >= .low
        then .groups[-1] += [$e] | .low = ([.low, $sp[0]] | min)
        else .groups += [[$e]] | .low = $sp[0] end)
  | .groups
  | reduce .[] as $g ({rank: 1, out: []};
      .rank as $r
      | .out += ($g | sort_by(-(.successful_rps.median // 0), .server)
                 | map(.rank = $r | .tied = (($g | length) > 1)))
      | .rank += ($g | length))
  | .out;

def _table($baseline):
  {scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool, profiled: (.[0].profile.event // null),
   slug: ("\(.[0].scenario)-\(.[0].protocol)-\(.[0].tool)" | _slug),
   entries: (group_by(.server) | map(_server_entry))}
  | .measured = ([.entries[] | select(.ok > 0)] | sort_by(-(.successful_rps.median // 0), .server) | _rank)
  | .ranked = any(.measured[]; .successful_rps.interval != null)
  | .unmeasured = ([.entries[] | select(.ok == 0)] | sort_by(.server))
  | .partial = ([.entries[] | select(.ok > 0 and .ok < .runs)] | sort_by(.server))
  # the "vs" column's server: $baseline, or where it has no figure in this table (java-http
  # speaks no HTTP/2; h2load cannot count its HTTP/1.1 answers) the table's slowest server with one
  | ([.measured[] | select((.successful_rps.median // 0) > 0)] | sort_by(.successful_rps.median, .server)) as $with_rps
  # (none with fewer than two figures: a server against itself says nothing)
  | (if ($with_rps | length) < 2 then null elif any($with_rps[]; .server == $baseline) then $baseline
     else $with_rps[0].server end) as $vs
  | .baseline = $vs
  | (.measured | map(select(.server == $vs)) | .[0].successful_rps.median) as $base_rps
  | .measured |= map(.vs_baseline = (if $base_rps != null and $base_rps > 0 and .successful_rps != null
                                     then .successful_rps.median / $base_rps else null end))
  | .timeouts = ([.measured[].timeouts[]] | unique)
  | del(.entries);

# The table's pairs of neighbours as the run's rounds left them (lib/rounds.jq; results'
# rounds): {counts, pairs, entries (runs and why), tie_margin, budget_s}, or null when the file
# has no rounds (written before them) or the table is a cross-check.
def _with_rounds($rounds):
  . as $t
  | .rounds = (if $rounds == null then null
               else first($rounds.tables[]? | select(.scenario == $t.scenario and .protocol == $t.protocol
                                                   and .tool == $t.tool and (.profiled // null) == $t.profiled)
                          | select(.cross_check | not)
                          | {counts, pairs, entries, tie_margin: $rounds.tie_margin, budget_s: $rounds.budget_s}) // null end);

# An A/A run's table: its two labels are shown as such (jetty@A, jetty@B), not ranked (their
# difference is noise by construction), with the noise floor the results file holds for it.
def _aa_table($floor):
  . as $table
  | .ranked = false
  | .aa = {floor: ([$floor.rows[]? | select(.scenario == $table.scenario and .protocol == $table.protocol
                                           and .tool == $table.tool)] | .[0])};

# The run of a server with the median successful requests/s (the lower middle one of an even
# number): its timeline, one point per second of the window.
def _timeline_series:
  sort_by(.metrics | stats::successful_rps // 0) | .[(length - 1) / 2 | floor] as $run
  | {server: $run.server, run: $run.run, runs: length,
     points: [$run.metrics.timeline[] | select((.in_grace | not) and .length_s > 0)
              | {t_s, successful_rps: (.succeeded / .length_s), p99_us: .latency_us.p99?}]};

# The chart over time of the first table (in README order) whose rows carry a timeline, or null.
def _timeline_chart($tables; $results):
  first($tables[] | select((.measured | length) > 0) | . as $table
        | [$results[] | select(.status == "ok" and .load == null and (.profile.event // null) == $table.profiled
                               and .scenario == $table.scenario and .protocol == $table.protocol
                               and .tool == $table.tool and ((.metrics.timeline? // null) | type) == "array")]
        | select(length > 0)
        | {scenario: $table.scenario, protocol: $table.protocol, tool: $table.tool,
           slug: ("timeline-\($table.slug)" | _slug),
           series: (group_by(.server) | map(_timeline_series) | map(select((.points | length) > 0)))}
        | select((.series | length) > 0))
  // null;

# A variant run's part: per server (in settings.variants' order), each contestant's median
# successful requests/s and p99 per scenario, protocol and tool, its comparison with the server's
# first contestant (noise::variants; with startup_text: its start-up figures and aot's finding as
# one text, null without them), and the data of a chart (the shape _rps_script draws: a
# cluster of bars per scenario, protocol and tool, a bar per contestant).
def _variants_model:
  noise::variants(0.95; null) as $cmp
  | (.settings.variants // []) as $order
  | [.results[] | select(.load == null and .variant.label? != null)] as $rows
  | if ($rows | length) == 0 then []
    else
      [$rows | group_by(.server)[] | . as $server_rows
       | ([$order[] | select(startswith($server_rows[0].server + ":"))]
          + ([$server_rows[].variant.label] | unique) | reduce .[] as $l ([]; if index([$l]) then . else . + [$l] end)) as $labels
       | ($server_rows | group_by([.scenario, .protocol, .tool]) | sort_by((.[0].scenario | _scenario_rank), .[0].scenario, .[0].protocol, .[0].tool)) as $shapes
       | {server: $server_rows[0].server, default: $labels[0], contestants: $labels,
          slug: ("variants-\($server_rows[0].server)" | _slug),
          rows: [$shapes[] | . as $g
                 | $labels[] as $l
                 | ($g | map(select(.variant.label == $l))) as $mine
                 | select(($mine | length) > 0)
                 | ($mine | map(select(.status == "ok"))) as $ok
                 | ([$cmp[] | select(.label == $l and .scenario == $g[0].scenario and .protocol == $g[0].protocol
                                     and .tool == $g[0].tool)] | first) as $c
                 | {"label": $l, scenario: $g[0].scenario, protocol: $g[0].protocol, tool: $g[0].tool,
                    runs: ($mine | length), ok: ($ok | length),
                    reasons: [$mine[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique,
                    jdk_version: ([$mine[].variant.jdk_version | select(. != null)] | first),
                    successful_rps: ($ok | map(.metrics | stats::successful_rps) | _summary),
                    p99: ($ok | map(.metrics.latency_us.p99?) | _summary),
                    against: (if $l == $labels[0] or $c == null then null
                              else $c | .startup_text = ([(.startup | select(. != null) | noise::startup_text), (.finding // empty)]
                                                         | if length == 0 then null else join("; ") end) end)}],
          chart: {slug: ("variants-\($server_rows[0].server)" | _slug),
                  title: "\($server_rows[0].server): successful requests per second of its variants (higher is better)",
                  xlabel: "scenario, protocol, tool",
                  scenarios: [$shapes[] | "\(.[0].scenario) \(.[0].protocol) \(.[0].tool)"],
                  servers: $labels,
                  values: [$shapes[] | map(select(.status == "ok")) | group_by(.variant.label)
                           | map({key: .[0].variant.label, value: (map(.metrics | stats::successful_rps) | _summary | .median)})
                           | from_entries]}}]
    end;

def model($baseline):
  _variants_model as $variants
  | .results |= map(.server = noise::row_name)
  | . as $doc
  | ([.results[] | .server] | unique) as $servers
  # A profiled row never shares a table with an unprofiled one: the profiler slows the server.
  | ([.results[] | select(.load == null)] | group_by([.scenario, .protocol, .tool, (.profile.event // null)])
     | map(_table($baseline))
     | map(if $doc.settings.aa == true then _aa_table($doc.noise_floor) else . end)
     | map(_with_rounds($doc.rounds))
     | map(select((.measured | length) > 0 or (.unmeasured | length) > 0))
     | sort_by((.scenario | _scenario_rank), .scenario, .protocol, .tool)) as $tables
  | {meta: ($doc | del(.results)), baseline: $baseline, servers: $servers, tables: $tables,
     openloop: ($doc | openloop::model),
     sizes: ($doc | sizes::model),
     where_time_goes: ($doc | profile::readme_lines($ARGS.named.results_link // "."; _scenario_rank)),
     timeouts: ([$tables[].timeouts[]] | unique),
     warmups: ($doc | verdict::warmup_model),
     warmup_chart: ($doc | verdict::warmup_chart),
     timeline_chart: _timeline_chart($tables; $doc.results),
     variants: $variants,
     # the churn and idle scenarios' tables stay out of the chart across scenarios (not the ranking's)
     rps_charts: ($tables | map(select((.measured | length) > 0
                                       and all(.measured[]; .connections_per_s == null and .rss_per_idle_kb == null)))
                  | group_by([.protocol, .tool])
                  | map({protocol: .[0].protocol, tool: .[0].tool,
                         slug: ("rps-\(.[0].protocol)-\(.[0].tool)" | _slug),
                         scenarios: map(.scenario),
                         servers: ([.[].measured[].server] | unique),
                         values: map(.measured | map({key: .server, value: .successful_rps.median}) | from_entries)})
                  | sort_by(.protocol, .tool))};

# ---- Markdown ---------------------------------------------------------------------------

def _protocol_name:
  {"h1": "HTTP/1.1", "h2c": "HTTP/2 cleartext (h2c)", "h1s": "HTTP/1.1 over TLS", "h2": "HTTP/2 over TLS",
   "h3": "HTTP/3 over QUIC (h3)"}[.] // .;

# The interval's half-width as a percentage: one decimal below 10%.
def _interval_pct: (.factor - 1) * 100 | if . < 10 then fmt::fixed(1) else fmt::fixed(0) end;

# The median, then the 95% interval (3+ runs) or the range min–max (2 runs). One style per
# column ($bounds: _bounds_column): ±N% while every interval of the column is within ±25%; when
# one is wider (being multiplicative it is then lopsided), each as its bounds.
def _with_spread(format; $bounds):
  if . == null then fmt::dash
  elif .interval != null and ($bounds | not) then "\(.median | format) ±\(.interval | _interval_pct)%"
  elif .interval != null then "\(.median | format)<br><sub>95%: \(.interval.lo | format)–\(.interval.hi | format)</sub>"
  elif .n > 1 then "\(.median | format)<br><sub>range \(.min | format)–\(.max | format)</sub>"
  else .median | format end;

# Whether a column of summaries (successful_rps, latency.p99) shows its intervals as bounds.
def _bounds_column: any(.[]; (.interval.factor? // 1) > 1.25);

# Failures per second: two significant digits below 10/s, "<0.01" below that (0.0011% of
# 70,000/s is not "0/s").
def _per_s:
  if . == null then fmt::dash
  elif . == 0 then "0"
  elif . < 0.01 then "<0.01"
  elif . < 1 then fmt::fixed(if . < 0.1 then 3 else 2 end) | sub("0+$"; "") | sub("[.]$"; "")
  elif . < 10 then fmt::fixed(1)
  else fmt::thousands end;

def _median(format): if . == null then fmt::dash else .median | format end;

def _md_escape: gsub("\\|"; "\\|") | gsub("<"; "&lt;");

# Markers after a server's name, explained under its table by _legend.
def _has_errors: (.error_rate // 0) > 0;
def _markers:
  (if _has_errors then " ⚠" else "" end) + (if .approximate then " ≈" else "" end)
  + (if .client_bound_runs > 0 then " †" else "" end) + (if .slo_failed then " ✗" else "" end)
  + (if (.not_steady_runs // 0) > 0 then " ⧗" else "" end) + (if (.drifting_runs // 0) > 0 then " ↘" else "" end)
  + (if .note then " ‡" else "" end);

# Each measured row with its server's note for the table's protocol, if any ($notes:
# {"SERVER": {"PROTOCOL": "TEXT"}}, lib/readme.sh's readme::notes); _markers marks it ‡.
def with_notes($notes):
  .tables |= map(.protocol as $protocol | .measured |= map(.note = ($notes[.server][$protocol]? // null)));

def _rank_cell: if .tied then "=\(.rank)" else "\(.rank)" end;

# Errors: "0", or the share of requests that failed and the failures per second.
def _errors_cell:
  if .error_rate == null then fmt::dash
  elif .error_rate == 0 then "0"
  else "\(.error_rate | fmt::share) (\(.errors_per_s | _per_s)/s)" end;

# A churn or idle scenario's table (lib/churn.sh) adds Conn/s, Handshakes/s (TLS) or RSS/idle conn
# beside Successful/s: the columns its measured servers have figures for.
def _table_md:
  .baseline as $baseline
  | ([.measured[].successful_rps] | _bounds_column) as $rps_bounds
  | ([.measured[].latency.p99] | _bounds_column) as $p99_bounds
  | (if .ranked then "| # " else "" end) as $rank_head
  | .ranked as $ranked
  | (any(.measured[]; .connections_per_s != null)) as $conn
  | (any(.measured[]; .handshakes_per_s != null)) as $hs
  | (any(.measured[]; .rss_per_idle_kb != null)) as $idle
  | ((if $conn then " Conn/s |" else "" end) + (if $hs then " Handshakes/s |" else "" end)
     + (if $idle then " RSS/idle conn |" else "" end)) as $extra_head
  | "\($rank_head)| Server | Successful/s |\($extra_head) Errors | p50 | p99 | p99.9 | Server CPU | Peak RSS |"
    + (if $baseline then " vs \($baseline) |" else "" end),
  "\(if $ranked then "|--:" else "" end)|:--|--:|\($extra_head | gsub("[^|]"; "") | gsub("[|]"; "--:|"))--:|--:|--:|--:|--:|--:|"
    + (if $baseline then "--:|" else "" end),
  (.measured[]
   | ((if $conn then " \(.connections_per_s | _median(fmt::thousands)) |" else "" end)
      + (if $hs then " \(.handshakes_per_s | _median(fmt::thousands)) |" else "" end)
      + (if $idle then " \(.rss_per_idle_kb | _median(fmt::fixed(1) + " KiB")) |" else "" end)) as $extra
   | "\(if $ranked then "| \(_rank_cell) " else "" end)| \(.server | _md_escape)\(_markers) | \(.successful_rps | _with_spread(fmt::thousands; $rps_bounds)) |\($extra) \(_errors_cell)"
     + " | \(.latency.p50 | _median(fmt::latency)) | \(.latency.p99 | _with_spread(fmt::latency; $p99_bounds))"
     + " | \(.latency.p999 | _median(fmt::latency))"
     + " | \(.cpu_pct | _median(fmt::fixed(0) + "%")) | \(.rss_peak_kb | _median(fmt::kib))"
     + " |" + (if $baseline then " \(if .vs_baseline == null then fmt::dash else (.vs_baseline * 100 | fmt::fixed(0)) + "%" end) |" else "" end));

def _legend:
  (if any(.measured[]; _has_errors) then
     "", "⚠ Some requests failed: Errors is their share of all requests (4xx, 5xx, timeouts, resets) "
       + "and their rate; failed requests are not in Successful/s, the ranking or \"vs\"."
   else empty end),
  (if any(.measured[]; .approximate) then
     if .tool == "h2load" then
       "", "≈ Approximate accounting (h2load): h2load could not read the status line of some responses "
         + "(HTTP/1.1 without a reason phrase), so which requests succeeded is unknown: Successful/s and Errors are not given."
     else
       "", "≈ Approximate accounting (\(.tool)): the tool counts socket errors rather than failed requests "
         + "and gives no status codes, so Successful/s and Errors can be off by the requests those errors cut short."
     end
   else empty end),
  (if any(.measured[]; .client_bound_runs > 0) then
     "", "† Client-bound: \(.tool) was busy (on a CPU or waiting for one) for 90% or more of the cores it could use, "
       + "so the figure is the load tool's ceiling, not the server's: "
       + ([.measured[] | select(.client_bound_runs > 0)
           | "\(.server | _md_escape) (\(.client_bound_runs) of \(.ok) runs; busiest: \(.client_share * 100 | fmt::fixed(0))% of \(.client_cores) core\(if .client_cores == 1 then "" else "s" end))"]
          | join(", ")) + "."
   else empty end),
  (if .aa != null then
     "", "A/A run: one server measured under two labels (@A, @B), interleaved, so any difference between them "
       + "is the machine's noise; they are not ranked."
       + (if .aa.floor == null or .aa.floor.successful_rps == null then ""
          else " Noise floor (the largest change these runs are consistent with): successful requests/s "
            + "±\(.aa.floor.successful_rps.floor * 100 | fmt::fixed(1))%"
            + (if .aa.floor.p99 == null then "" else ", p99 ±\(.aa.floor.p99.floor * 100 | fmt::fixed(1))%" end) + "." end)
     else empty end),
  (if any(.measured[]; .slo_failed) then
     "", "✗ SLO not met: a run broke a condition of `--slo` (the results file says which, in `slo`)."
   else empty end),
  (if any(.measured[]; (.not_steady_runs // 0) > 0) then
     "", "⧗ Not in steady state: the server's warm-up for this scenario and protocol hit its cap before its load "
       + "was steady (docs/steady-state.md), so the figure may still include warming up: "
       + ([.measured[] | select(.not_steady_runs > 0) | "\(.server | _md_escape) (\(.not_steady_runs) of \(.ok) runs)"] | join(", ")) + "."
   else empty end),
  (if any(.measured[]; (.drifting_runs // 0) > 0) then
     "", "↘ Drifting: the per-second successful requests/s still trended inside the measured window (Mann-Kendall, "
       + "beyond the run's own noise), so the figure is not a steady-state one: "
       + ([.measured[] | select(.drifting_runs > 0) | "\(.server | _md_escape) (\(.drifting_runs) of \(.ok) runs)"] | join(", ")) + "."
   else empty end),
  (if any(.measured[]; .note) then
     "", "‡ Known about this server: "
       + ([.measured[] | select(.note) | "\(.server | _md_escape): \(.note | _md_escape)"] | join(" "))
   else empty end),
  (if .ranked and any(.measured[]; .tied) then
     "", "=N: tied: the 95% confidence intervals of these servers' successful requests/s overlap (directly "
       + "or through a server between them), so the order among them is not a ranking."
   else empty end);

def _timeout_text: if . == "none" then "none (requests are waited for until the end of the run)" else . end;

# "Request timeout: ..." under a table heading, when the tools' request timeouts differ
# ($all: every timeout label of the file); nothing for rows that do not record theirs.
def _timeout_line($all):
  if ($all | length) < 2 then empty
  else
    . as $table
    | [.timeouts[] | select(. != null)] as $known
    | if ($known | length) == 0 then empty
      elif (.timeouts | length) == 1 then "Request timeout: \($known[0] | _timeout_text).", ""
      else "Request timeout: "
           + ([.timeouts[] as $t
               | "\($t // "not recorded" | _timeout_text) for "
                 + ([$table.measured[] | select(.timeouts | index([$t])) | .server] | join(", "))]
              | join("; ")) + ".", ""
      end
  end;

# The intro's sentence on request timeouts: the one timeout of every row, or a pointer to
# the tables when they differ; nothing when the file does not record them.
def _timeouts_sentence:
  if . == [null] or . == [] then ""
  elif length > 1 then " Request timeouts differ between the tools: each table gives its own."
  elif .[0] == "none" then " No request had a timeout."
  else " Every request had a timeout of \(.[0])." end;

# Under a table: how far its ranking got (the run's rounds, lib/rounds.jq): pairs of neighbours
# decided, equal within the tie margin, open; each server's runs, and the open pairs named.
def _pairs_line:
  .rounds as $r
  | if $r == null or ($r.pairs | length) == 0 then empty
    else
      ($r.counts) as $c
      | ($r.tie_margin * 1000 | round / 10) as $m
      | "",
        "Pairs of neighbours: \($c.decided) decided (intervals apart), \($c.equal) equal (within \($m)%), \($c.open) open"
        + (if $c.open > 0 then " (" + ([$r.pairs[] | select(.verdict == "open") | "\(.faster | _md_escape)–\(.slower | _md_escape)"] | join(", ")) + ")" else "" end)
        + ". Runs: " + ([$r.entries[] | select(.ok > 0) | "\(.contestant | _md_escape) \(.runs)"] | join(", ")) + "."
    end;

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
    "| Tools | \([$m.tools | to_entries[] | select(.value != null) | .key as $k | if (.value | startswith($k)) then .value else "\($k) \(.value)" end] | join(", ") | _md_escape) |",
    (if $m.settings.budget_s? != null then
       "| Runs | a budget of \($m.settings.budget_s / 60 | ceil) min: \($m.settings.runs) rounds of \($m.settings.duration_s) s after \($m.settings.warmup_s) s of warm-up, more rounds only where a pair was open (tie margin \($m.settings.tie_margin * 1000 | round / 10)%)"
       + (if $m.settings.left_out then "; left out to fit it: \($m.settings.left_out | _md_escape)" else "" end) + " |"
     else "| Runs | \($m.settings.runs) × \($m.settings.duration_s) s after \($m.settings.warmup_s) s of warm-up |" end),
    (if $m.settings.server_warmup_s? == null then empty
     elif $m.settings.server_warmup_s == 0 then "| Server warm-up | none |"
     elif $m.settings.server_warmup_mode? == "auto" then "| Server warm-up | barrage on each freshly started server, per protocol and scenario, until steady state (at most \($m.settings.server_warmup_s) s) |"
     else "| Server warm-up | \($m.settings.server_warmup_s) s of barrage on each freshly started server, per protocol and scenario |" end),
    "| Suite commit | \($m.commit // "unknown" | if . == "unknown" then . else "`\(.)`" end) |",
    "| Reproduce | `\($m.command)` |";

# A variant run's part: per server a table of its contestants (median successful requests/s,
# p99, the JDK the process ran on) with the change against its first contestant and the verdict,
# and the chart of their successful requests/s.
def _variants_md($charts):
  def change: if . == null then fmt::dash
    else (.change | fmt::signed_pct(1)) + (if .lo == null then "" else " [\(.lo | fmt::signed_pct(1)), \(.hi | fmt::signed_pct(1))]" end) end;
  def verdict: if . == null then "baseline" elif .verdict == "1 run" then "not judged (1 run a side)" else .verdict end;
  if (.variants | length) == 0 then empty
  else
    "### Variants",
    "",
    "Each server's contestants (servers/NAME/variants.tsv crossed with --jdk, --gc, --heap, --server-cpus) against its "
    + "first: the change of the median successful requests/s and p99, with the 95% interval of the change (Welch's "
    + "t-interval on log values, as an A/A run measures noise: `./compare-results.sh --variants FILE`); faster or "
    + "slower when the interval excludes 0, ~ when it holds 0; with fewer than 2 runs a side the change is not judged.",
    "",
    (.variants[] | . as $v
     | "#### \(.server | _md_escape)",
       "",
       "| Variant | Scenario · protocol · tool | JDK | Successful req/s | p99 | vs \(.default | _md_escape): ok/s | p99 | Verdict |",
       "|---|---|---|---:|---:|---:|---:|---|",
       (.rows[] | "| \(.label | _md_escape) | \(.scenario) · \(.protocol | _protocol_name) · \(.tool) | \(.jdk_version // fmt::dash) | "
         + (if .ok == 0 then "\(.reasons | join("; ") | _md_escape) | | | | |"
            else "\(.successful_rps | _median(fmt::thousands)) | \(.p99 | _median(fmt::latency)) | "
              + "\(.against.successful_rps | change) | \(.against.p99 | change) | \(.against | verdict) |" end)),
       # start-up (time to first response, to steady state) and aot's finding, against the first
       ([.rows[] | select(.against.startup_text != null)] as $startup
        | if ($startup | length) == 0 then empty
          else "", "Start-up against \($v.default | _md_escape) (medians over each contestant's starts; steady state over the starts that reached it):", "",
            ($startup[] | "- \(.label | _md_escape) (\(.scenario) · \(.protocol | _protocol_name) · \(.tool)): "
               + (.against.startup_text | _md_escape))
          end),
       "",
       "![Successful requests/s of \(.server)'s variants](\($charts)/\(.slug).png)",
       "")
  end;

def _section($charts; $source):
  .baseline as $baseline
  | .meta.settings.runs as $runs
  | .timeouts as $all_timeouts
  | "<!-- Generated by ./update-readme.sh from \($source); edits between the markers are overwritten. -->",
    "",
    (verdict::section(.tables; .warmups // []; .warmup_chart; $charts; _protocol_name)),
    "Measured \(.meta.timestamp) on \(.meta.system.cpuModel | _md_escape) (\(.meta.system.cpuCores) cores). "
    + (if .meta.settings.budget_s? != null then
         "A budgeted run (`--budget` \(.meta.settings.budget_s / 60 | ceil) min): the first round measured every row, then "
         + "\(.meta.rounds.rounds // $runs) rounds in all went to the servers whose interval still overlapped a neighbour's, "
         + "until each pair of neighbours was decided, equal within \(.meta.settings.tie_margin * 1000 | round / 10)% or the budget ended"
         + (if .meta.rounds != null then ": " + (.meta.rounds | rounds::counts_text) else "" end)
         + ". Figures are the median of each server's runs (the table says how many); successful requests/s and p99 show ± the 95% confidence "
         + "interval of the typical value (docs/statistics.md), and servers whose intervals overlap share a rank (=). "
       elif $runs > 2 then "Figures are the median of \($runs) runs; successful requests/s and p99 show ± the 95% confidence "
         + "interval of the typical value (a t-interval on log values: docs/statistics.md), and servers whose intervals "
         + "overlap share a rank (=). "
       elif $runs > 1 then "Figures are the median of \($runs) runs; successful requests/s and p99 show the range (min–max) below. "
       else "One run per row: a single run cannot tell a difference from noise. " end)
    + "Servers are ranked by **successful requests/s**: final responses with a status of 100-399 per second "
    + "of the measured window; failed requests (4xx, 5xx, timeouts, resets) are not counted, and Errors is their "
    + "share of all requests. Latency is the time from a request's start to its final response, whatever its status; "
    + "requests that ended in an error are not in it (the results file keeps them apart, in `error_latency_us`). "
    + "Server CPU is percent of one core; \"vs \($baseline)\" is successful requests/s relative to \($baseline) "
    + "in the same table" + (if any(.tables[]; .baseline != null and .baseline != $baseline)
                              then " (where \($baseline) has no figure, to the table's slowest server, which its column names)"
                              else "" end)
    + "." + (.timeouts | _timeouts_sentence),
    "",
    (.rps_charts[] | "![Successful requests/s per server and scenario, \(.protocol | _protocol_name), \(.tool)](\($charts)/\(.slug).png)", ""),
    (.timeline_chart // empty
     | "Over time, \(.scenario) · \(.protocol | _protocol_name) · \(.tool): successful requests/s and p99 in each second "
       + "of the measured window, per server (its run with the median successful requests/s), so that warm-up, GC pauses "
       + "and stalls show instead of being averaged away.",
       "",
       "![Successful requests/s and p99 per second, \(.scenario), \(.protocol), \(.tool)](\($charts)/\(.slug).png)", ""),
    (.tables[]
     | "### \(.scenario) · \(.protocol | _protocol_name) · \(.tool)\(if .profiled then " · profiled (\(.profiled))" else "" end)",
       "",
       _timeout_line($all_timeouts),
       (if (.measured | length) > 0 then _table_md, _legend else "No server was measured." end),
       _pairs_line,
       _not_measured,
       "",
       (if (.measured | length) > 0
        then "![Latency by percentile, \(.scenario), \(.protocol), \(.tool)](\($charts)/latency-\(.slug).png)", ""
        else empty end)),
    _variants_md($charts),
    (.tables | second::section("jdk-client"; "barrage")),
    agree::section,
    (.openloop | openloop::section($charts)),
    (.sizes // [] | sizes::section($charts; _protocol_name)),
    .where_time_goes[],
    _footer;

# Every line passes fmt::safe: a control character of a results file (a newline in a server's
# name) would split a table's row, or reach the terminal of whoever reads the README.
def section($charts; $source): _section($charts; $source) | fmt::safe;

# ---- gnuplot ----------------------------------------------------------------------------

# One colour per server, the same in every chart (index in the sorted list of all servers).
def _palette: ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
def _colour($servers): . as $s | _palette[(($servers | index([$s])) // 0) % (_palette | length)];
def _gp_string: fmt::gp_string;

def _gp_common($file; $title):
  "set terminal pngcairo size 1000,560 noenhanced font \"Sans,11\"",
  "set output \(($file) | _gp_string)",
  "set title \($title | _gp_string) font \"Sans,14\"",
  "set key outside right top vertical box opaque",
  "set grid ytics lc rgb \"#dddddd\"",
  "set border 3",
  "set tics nomirror";

def _rps_script($dir; $servers; $median):
  . as $chart
  | "\($dir)/\(.slug).png" as $file
  | _gp_common($file; .title // "Successful requests per second by scenario: \(.protocol | _protocol_name), \(.tool) (higher is better)"),
    "set ylabel \"successful requests/s\(if $median != "" then " (\($median))" else "" end)\"",
    "set xlabel \((.xlabel // "scenario") | _gp_string)",
    # Headroom above the tallest bar for its value label.
    "set yrange [0:\([.values[][]] | max * 1.15)]",
    "set format y \"%.0s%c\"",
    "set style data histograms",
    "set style histogram clustered gap 1",
    "set style fill solid 0.9 border -1",
    "set datafile missing \"?\"",
    "$rps << EOD",
    (range(0; .scenarios | length) as $i
     | ([$chart.scenarios[$i] | fmt::gp_datum] + [$chart.servers[] | $chart.values[$i][.] // "?" | tostring]) | join(" ")),
    "EOD",
    # Value labels over the bars keep small bars (large files) readable; bar j of a cluster
    # of n with a gap of 1 sits at x + (j - (n-1)/2) / (n+1).
    (.servers | length) as $n
    | "plot " + ([range(0; $n) as $j
                  | "$rps using \($j + 2):xtic(1) title \($chart.servers[$j] | _gp_string) lc rgb \"\($chart.servers[$j] | _colour($servers))\""]
                 + [range(0; $n) as $j
                  | "$rps using ($0 + \(($j - ($n - 1) / 2) / ($n + 1))):\($j + 2):(gprintf(\"%.1s%c\", column(\($j + 2)))) with labels rotate by 90 left offset 0,0.4 font \",8\" notitle"]
                 | join(", \\\n     "));

def _latency_script($dir; $servers; $median):
  . as $table
  | "\($dir)/latency-\(.slug).png" as $file
  | [["p50", 2], ["p75", 4], ["p90", 10], ["p99", 100], ["p999", 1000], ["p9999", 10000]] as $points
  | _gp_common($file; "Latency by percentile: \(.scenario), \(.protocol | _protocol_name), \(.tool) (lower is better)"),
    "set xlabel \"percentile (log scale of 1/(1-p))\"",
    # A linear latency axis, as HdrHistogram plots have, unless one tail dwarfs the rest:
    # then a log axis keeps the other servers' lines apart.
    ([.measured[].latency[] | .median? // empty | select(. > 0)]) as $all
    | (($all | length) > 0 and ($all | max) / ($all | min) > 100) as $log_y
    | (if $median != "" then ", \($median)" else "" end) as $suffix
    | (if $log_y then "set ylabel \"latency (ms, log scale\($suffix))\"", "set logscale y 10", "set yrange [*:*]"
       else "set ylabel \"latency (ms\($suffix))\"", "set yrange [0:*]" end),
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

# The chart over time's data file: per server a block (two blank lines apart, for gnuplot's
# `index`) of "second successful_rps p99_ms" lines under a comment naming the server and run.
def _timeline_data:
  [.series[]
   | "# \(.server | fmt::safe): run \(.run) of \(.runs) (median successful requests/s); second, successful requests/s, p99 ms",
     (.points[] | "\(.t_s) \(.successful_rps) \(if .p99_us == null then "?" else .p99_us / 1000 end)"),
     "", ""]
  | join("\n");

# Two panels, one above the other, sharing the time axis: successful requests/s, then p99.
def _timeline_script($dir; $servers):
  . as $chart
  | "\($dir)/\(.slug).png" as $file
  | "\($dir)/\(.slug).dat" as $data
  | (.series | length) as $n
  | def plot($column):
      "plot " + ([range(0; $n) as $i
                  | "\($data | _gp_string) index \($i) using 1:\($column) with linespoints lw 2 pt 7 ps 0.6 "
                    + "lc rgb \"\($chart.series[$i].server | _colour($servers))\" title \($chart.series[$i].server | _gp_string)"]
                 | join(", \\\n     "));
    "set terminal pngcairo size 1000,720 noenhanced font \"Sans,11\"",
    "set output \($file | _gp_string)",
    "set datafile missing \"?\"",
    "set grid ytics lc rgb \"#dddddd\"",
    "set border 3",
    "set tics nomirror",
    "set key outside right top vertical box opaque",
    # The same left margin in both panels keeps their time axes aligned.
    "set lmargin 10",
    "set multiplot layout 2,1 title \("Over time: \(.scenario), \(.protocol | _protocol_name), \(.tool) (one run per server: its median run)" | _gp_string) font \"Sans,14\"",
    "set ylabel \"successful requests/s\"",
    "set format y \"%.0s%c\"",
    "set yrange [0:*]",
    "set format x \"\"",
    plot(2),
    "set ylabel \"p99 latency (ms)\"",
    "set format y \"%g\"",
    "set xlabel \"second of the measured window\"",
    "set format x \"%g\"",
    plot(3),
    "unset multiplot";

def chart_scripts($dir):
  .servers as $servers
  # a budgeted run gave each server its own number of runs (the tables say how many)
  | (if .meta.settings.budget_s? != null then "median of each server's runs"
     elif .meta.settings.runs > 1 then "median of \(.meta.settings.runs) runs" else "" end) as $median
  | [(.rps_charts[] | {file: "\(.slug).png", script: ([_rps_script($dir; $servers; $median)] | join("\n") + "\n")}),
     (.timeline_chart // empty
      | {file: "\(.slug).png", script: ([_timeline_script($dir; $servers)] | join("\n") + "\n"),
         data_file: "\(.slug).dat", data: _timeline_data}),
     (.warmup_chart // empty | verdict::warmup_chart_script($dir; _colour($servers))),
     (.tables[] | select((.measured | length) > 0)
      | {file: "latency-\(.slug).png", script: ([_latency_script($dir; $servers; $median)] | join("\n") + "\n")}),
     (.openloop | openloop::chart_scripts($dir; _colour($servers))),
     (.sizes // [] | sizes::chart_scripts($dir; _colour($servers))),
     (.variants[].chart | select((.scenarios | length) > 0)
      | {file: "\(.slug).png", script: ([_rps_script($dir; $servers; $median)] | join("\n") + "\n")})]
  | map({data_file: "", data: ""} + .);
