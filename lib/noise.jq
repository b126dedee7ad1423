# noise: the machine's noise floor from an A/A results file (run-benchmarks.sh --aa: one
# server measured under two labels, A and B, interleaved), as a jq module.
#
#   floor($level)   A/A results file -> its noise_floor object:
#     {server, level, rows: [{scenario, protocol, tool, runs: {A, B} (successful runs),
#      successful_rps, p99: {change (median B / median A - 1), lo, hi (the $level confidence
#      interval of B / A - 1, Welch's t-interval on log values; null with fewer than 2 runs a
#      side), floor}}]}
#     A/A differences are noise by construction. A metric's floor is the largest change the
#     A/A runs are consistent with: the farther end of the interval from 0, or the observed
#     change itself with fewer than 2 runs a side (a weak floor: one run against one).
#     compare-results.sh --noise-floor does not call a smaller change a regression.
#   row_name   a results row -> the name it is shown and compared under: its server, or in an
#     A/A run "SERVER@LABEL" (jetty@A, jetty@B, as run-benchmarks.sh's summary names them):
#     the two labels are two samples of noise, never one server.

import "stats" as stats;

def _metric($a; $b; $level):
  if ($a | length) == 0 or ($b | length) == 0 then null
  else
    (($b | stats::median) / ($a | stats::median) - 1) as $change
    | stats::ratio_interval($a; $b; $level) as $ci
    | {change: $change,
       lo: (if $ci == null then null else $ci.lo - 1 end),
       hi: (if $ci == null then null else $ci.hi - 1 end)}
    | .floor = ([($change | fabs), (.lo // 0 | fabs), (.hi // 0 | fabs)] | max)
  end;

# The runs of one A/A group (a row of the same scenario, protocol and tool) per label.
def _side($group): map(select(.aa_group == $group));
def _values(f): [.[] | .metrics | f | select(. != null and . > 0)];

def floor($level):
  [.results[] | select(.status == "ok" and .aa_group != null)] as $ok
  | {server: ($ok[0].server // null), level: $level,
     rows: ($ok | group_by([.scenario, .protocol, .tool])
            | map(_side("A") as $a | _side("B") as $b
                  | {scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool,
                     runs: {A: ($a | length), B: ($b | length)},
                     successful_rps: _metric($a | _values(stats::successful_rps); $b | _values(stats::successful_rps); $level),
                     p99: _metric($a | _values(.latency_us.p99?); $b | _values(.latency_us.p99?); $level)}))};

def row_name: if .aa_group != null then "\(.server)@\(.aa_group)" else .server end;
