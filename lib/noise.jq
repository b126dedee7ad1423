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
#   variants($level; $floor)   results file -> the comparison of each server's variants (a
#     variant run: rows with .variant) with the server's first contestant (settings.variants'
#     order), the way floor() compares A and B: per server, scenario, protocol, tool and
#     contestant {server, label, against, scenario, protocol, tool, runs: {against, label},
#     successful_rps, p99 (_metric: change, lo, hi), verdict}. verdict (of ok/s): "faster" or
#     "slower" when the $level interval excludes 0 (and the change is beyond $floor, an A/A
#     run's noise_floor object or null), "~" when it holds 0 or the change is within the floor,
#     "1 run" when a side has fewer than 2 runs (no interval: the change alone, unjudged). A
#     contestant whose every run got 0 ok/s is -100%, "slower" (not "no runs": it was measured);
#     some runs at 0 on a side: the change alone, "not judged".
#   variant_lines   variants(...)'s rows -> one line each: "jetty:vt against jetty:platform
#     (hello h1 barrage): ok/s +12.0% [+8.0%, +16.0%] faster; p99 -3.1% [-9.0%, +2.2%]", then
#     the startup_text and the finding when the row has them.
#     A row's startup (null when the results have no server_warmups of either contestant):
#     {against, label}, each {starts, first_response_s (median over its starts), steady_after_s
#     (median over the starts whose warm-up of this protocol and scenario reached steady state;
#     null when none did), reached, not_reached}; finding: a text when an aot contestant's ok/s
#     verdict is faster or slower (Leyden does not aim to change steady throughput), else null.
#   startup_text   a row's startup -> "first response 0.6 s against 1.5 s, steady after 3 s
#     against 13 s (not reached in 1 more)".
#   row_name   a results row -> the name it is shown and compared under: its server, in an
#     A/A run "SERVER@LABEL" (jetty@A, jetty@B, as run-benchmarks.sh's summary names them):
#     the two labels are two samples of noise, never one server; in a variant run its
#     contestant's label (jetty:vt, jetty:platform+jdk25: lib/variants.sh).

import "stats" as stats;
import "format" as fmt;

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

# The A/A run's floor of successful requests/s for a row's scenario, protocol and tool (else
# its largest), or null.
def _variant_floor($floor; $row):
  if $floor == null then null
  else ([$floor.rows[]? | select(.scenario == $row.scenario and .protocol == $row.protocol and .tool == $row.tool)
         | .successful_rps.floor? | numbers] | first) // ([$floor.rows[]? | .successful_rps.floor? | numbers] | max)
  end;

# ok/s of a contestant against the first: _metric, except where runs got 0 ok/s (no request
# succeeded: a measured result, not a missing one, but no log ratio). Every run of one side at 0
# and every run of the other above: certain, -100% (or +inf%: change null, faster); mixed:
# the change of the medians alone, unjudged.
def _variant_rps($a; $b; $level):
  ($a | map(numbers)) as $a | ($b | map(numbers)) as $b
  | if ($a | length) == 0 or ($b | length) == 0 then null
    elif all($a[], $b[]; . > 0) then _metric($a; $b; $level)
    elif all($b[]; . == 0) and all($a[]; . > 0) then {change: -1, lo: -1, hi: -1, floor: 1, zero: "label"}
    elif all($a[]; . == 0) and all($b[]; . > 0) then {change: null, lo: null, hi: null, floor: null, zero: "against"}
    else ($a | stats::median) as $ma
      | {change: (if $ma > 0 then ($b | stats::median) / $ma - 1 else null end), lo: null, hi: null, floor: null, zero: "some"}
    end;

def _variant_verdict($floor):
  .successful_rps as $m
  | if $m == null then "no runs"
    elif $m.zero == "label" then "slower"
    elif $m.zero == "against" then "faster"
    elif $m.zero == "some" then "not judged"
    elif $m.lo == null then "1 run"
    elif $floor != null and ($m.change | fabs) <= $floor then "~"
    elif $m.lo > 0 then "faster"
    elif $m.hi < 0 then "slower"
    else "~" end;

# A contestant's start-up figures from the results' server_warmups (the starts that name it in
# variant): first_response_s, the median over its starts (null without one); steady_after_s of
# the row's protocol and scenario: the median over the starts that reached steady state (null when
# none did), with how many did (reached) and did not (not_reached: the cap ended the warm-up).
def _startup($warmups; $name; $row):
  [$warmups[] | select(.variant == $name)] as $starts
  | [$starts[] | .shapes[]? | select(.protocol == $row.protocol and .scenario == $row.scenario)
     | .time_to_steady | select(. != null)] as $tts
  | [$tts[] | select(.verdict == "steady") | .steady_after_s | numbers] as $after
  | {starts: ($starts | length),
     first_response_s: ([$starts[].first_response_s | numbers] | if length > 0 then stats::median else null end),
     steady_after_s: (if ($after | length) > 0 then ($after | stats::median) else null end),
     reached: ($after | length), not_reached: ([$tts[] | select(.verdict == "not reached")] | length)};

def variants($level; $floor):
  [.server_warmups[]? | select(.variant != null)] as $warmups
  | [.results[] | select(.status == "ok" and .variant.label? != null)] as $ok
  | (.settings.variants // [.results[] | .variant.label? // empty]) as $order
  | [$ok | group_by(.server)[] | . as $rows
     | (first($order[] | select(startswith($rows[0].server + ":")))) as $default
     | $rows | group_by([.scenario, .protocol, .tool])[] | . as $g
     | ($g | map(select(.variant.label == $default))) as $a
     | select(($a | length) > 0)
     | ($g | map(.variant.label) | unique - [$default])[] as $contestant
     | ($g | map(select(.variant.label == $contestant))) as $b
     | {server: $g[0].server, "label": $contestant, against: $default, scenario: $g[0].scenario,
        protocol: $g[0].protocol, tool: $g[0].tool, runs: {against: ($a | length), label: ($b | length)},
        successful_rps: _variant_rps([$a[] | .metrics | stats::successful_rps]; [$b[] | .metrics | stats::successful_rps]; $level),
        p99: _metric($a | _values(.latency_us.p99?); $b | _values(.latency_us.p99?); $level)}
     | .verdict = _variant_verdict(_variant_floor($floor; .))
     | .startup = ({against: _startup($warmups; $default; .), "label": _startup($warmups; $contestant; .)}
                   | if .against.starts + .label.starts == 0 then null else . end)
     # Leyden (the aot variant) aims at start-up, not at steady throughput: a decided difference
     # in steady ok/s is a finding, not its purpose.
     | .finding = (if $b[0].variant.name? == "aot" and (.verdict == "faster" or .verdict == "slower")
                   then "a finding: steady ok/s \(.verdict) with aot, which Leyden does not aim to change"
                   else null end)]
  | sort_by(.server, .scenario, .protocol, .tool, .label);

def _pct: fmt::signed_pct(1);
def _metric_text($name):
  if . == null then "\($name) -"
  elif .zero == "against" then "\($name) from 0"
  else "\($name) \(.change | _pct)" + (if .lo == null then "" else " [\(.lo | _pct), \(.hi | _pct)]" end) end;

def _seconds: if . == null then "-" else "\(. * 100 | round / 100) s" end;
def _steady_text:
  if .steady_after_s == null then "not reached in \(.not_reached) start(s)"
  else (.steady_after_s | _seconds) + (if .not_reached > 0 then " (not reached in \(.not_reached) more)" else "" end) end;
def startup_text:
  "first response \(.label.first_response_s | _seconds) against \(.against.first_response_s | _seconds)"
  + (if .label.reached + .label.not_reached + .against.reached + .against.not_reached == 0 then ""
     else ", steady after \(.label | _steady_text) against \(.against | _steady_text)" end);

def variant_lines:
  .[] | "\(.label) against \(.against) (\(.scenario) \(.protocol) \(.tool), \(.runs.label) and \(.runs.against) run(s)): "
        + (.successful_rps | _metric_text("ok/s"))
        + (if .verdict == "1 run" then " (fewer than 2 runs a side: not judged)"
           elif .verdict == "not judged" then " (some runs at 0 ok/s: not judged)"
           elif .successful_rps.zero == "label" then " (every run at 0 ok/s): " + .verdict
           else ": " + .verdict end)
        + "; " + (.p99 | _metric_text("p99"))
        + (if .startup == null then "" else "; " + (.startup | startup_text) end)
        + (if .finding == null then "" else "; " + .finding end);

def row_name:
  if .variant.label? != null then .variant.label
  elif .aa_group != null then "\(.server)@\(.aa_group)" else .server end;
