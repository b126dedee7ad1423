# export: a results file's figures in the JSON that benchmark dashboards read (issue 52), for
# export-results.sh. Import with: jq -L lib 'import "export" as ex; ...'.
#
# Each closed-loop row (server, scenario, protocol, tool; an A/A run's labels and a variant
# run's contestants apart, as compare-results.sh groups them) with at least one ok run gives
# one benchmark named "SERVER/SCENARIO/PROTOCOL/TOOL": its successful requests/s ("ok/s":
# failed requests are not throughput) and its p99 latency, each the median of the ok runs,
# with the 95% interval of the typical value (stats::log_interval: a t-interval on log
# values) when there are 2 runs or more. Rows at a fixed rate or of a capacity search are left
# out (their figure is not a throughput).
#
#   rows            results file -> [{name, runs, rps: {value, lo, hi}, p99: {...}}] (lo and hi
#                   null with one run); p99 in microseconds
#   gab($metric)    results file -> github-action-benchmark's custom tool input: an array of
#                   {name, unit, value, range?, extra}. $metric "rps": customBiggerIsBetter,
#                   unit "ok/s"; "p99": customSmallerIsBetter, unit "us". range: "± H", H half
#                   the interval's width (same unit); extra: the interval and the run count.
#   bmf             results file -> Bencher Metric Format: {NAME: {throughput: {value,
#                   lower_value?, upper_value?}, "latency-p99": {...}}}, throughput in ok/s,
#                   latency-p99 in nanoseconds (Bencher's latency unit).
# Depends on lib/stats.jq, lib/noise.jq.

import "stats" as stats;
import "noise" as noise;

# the interval is around the runs' geometric mean: widened to hold the median if need be, so
# that lower <= value <= upper, as Bencher wants its bounds
def _figure:
  (stats::median) as $median
  | (stats::log_interval(0.95)) as $i
  | {value: $median, lo: (if $i == null then null else [$i.lo, $median] | min end),
     hi: (if $i == null then null else [$i.hi, $median] | max end)};

def rows:
  [.results[] | select(.load == null) | .server = noise::row_name]
  | group_by([.server, .scenario, .protocol, .tool])
  | map(map(select(.status == "ok")) as $ok
        | select(($ok | length) > 0)
        | {name: "\(.[0].server)/\(.[0].scenario)/\(.[0].protocol)/\(.[0].tool)", runs: ($ok | length),
           rps: ([$ok[] | .metrics | stats::successful_rps | select(. != null)] | if length > 0 then _figure else null end),
           p99: ([$ok[] | .metrics.latency_us.p99 | select(. != null)] | if length > 0 then _figure else null end)});

def _round3: . * 1000 | round / 1000;

def gab($metric):
  {rps: {unit: "ok/s", what: "successful requests/s"}, p99: {unit: "us", what: "p99 latency"}}[$metric] as $m
  | [rows[] | .runs as $runs | .name as $name | .[$metric] | select(. != null)
     | {name: $name, unit: $m.unit, value: (.value | _round3)}
       + (if .lo != null then {range: "± \((.hi - .lo) / 2 | _round3)"} else {} end)
       + {extra: ("\($m.what), median of \($runs) run(s)"
                  + (if .lo != null then "; 95% interval \(.lo | _round3) to \(.hi | _round3) \($m.unit)" else "" end))}];

def _bmf_metric($scale):
  {value: (.value * $scale)}
  + (if .lo != null then {lower_value: (.lo * $scale), upper_value: (.hi * $scale)} else {} end);

def bmf:
  [rows[] | {key: .name,
             value: ({}
                     + (if .rps != null then {throughput: (.rps | _bmf_metric(1))} else {} end)
                     + (if .p99 != null then {"latency-p99": (.p99 | _bmf_metric(1000))} else {} end))}]
  | from_entries;
