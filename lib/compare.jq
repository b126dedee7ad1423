# compare: the comparison of two results files (compare-results.sh), as a jq module.
#
#   compare($base; $new; $opts) -> the comparison document:
#     {base, new: facts of each file; settings: $opts;
#      rows: one per (scenario, protocol, tool, server) with side ("both", "base only",
#        "new only"), the base and new run values, the judgements successful_rps and p99
#        {base, new, change, p, ci (3+ runs a side: the 95% interval of new / base - 1 as
#        {lo, hi}), noise_floor ({floor, from} when --noise-floor gave one), within_floor,
#        floor_decided (the floor, not the test or the threshold, made it "~"), test, verdict} and error_rate {base, new: {failed, requests,
#        rate}, change (new rate - base rate), p, test, verdict, new_errors}, and the row's
#        verdict;
#      relative: the same judgement of successful requests/s as a share of the reference server;
#      capacity: the capacity searches of both files (server, scenario, protocol, tool,
#        conditions, base and new runs' capacity_rps, threshold, judgement, verdict);
#      counts, relative_counts: verdict -> rows; regressions: what decides the exit status, a list
#      (_regressions says its entries; empty: exit 0)}.
#     $base and $new are results files; $opts holds threshold, p99_threshold, error_threshold,
#     alpha (fractions), reference, gate, fail_on (array of "rps": successful_rps, "p99",
#     "errors": error_rate, "capacity": the capacity rows), filters {tool, scenario, server, protocol} (arrays, empty = all),
#     base_file and new_file (names to print), noise_floor (null, or an A/A run's noise_floor
#     object plus its file: a change within the floor is noise, "~", never a regression).
#
# Failed requests are never throughput: requests/s is judged as successful requests/s
# (successful_rps, or succeeded / duration for a record without it), and the share of
# requests that failed is judged on its own (_judge_errors says how).
#   machine   a results file -> the text that tells its machine apart (as history.sh's)
#   render_text, render_text($details), render_markdown   comparison document -> the report as
#     text lines, every string of the files made safe for a terminal (format.jq's safe); the
#     text's table is the narrow one (the changes) unless $details (each side's values, p, CI)

import "stats" as stats;
import "format" as fmt;
import "noise" as noise;

def _key: [.scenario, .protocol, .tool, .server];
# Groups -> an object from each group's key (as JSON text) to the group.
def _by_key: map({key: (_key | tojson), value: .}) | from_entries;

# --server selects by the server's name (both labels of an A/A run, every contestant of a variant
# run: server_name, the server of a group whose server is its label) or by a label (jetty:vt).
def _selected($filters):
  . as $row
  | all(["tool", "scenario", "server", "protocol"][];
        . as $field | ($filters[$field] // []) as $allowed
        | (if $field == "server" then [$row.server_name // $row.server, $row.server] else [$row[$field]] end) as $values
        | ($allowed | length) == 0 or any($values[]; . as $value | $allowed | index([$value]) != null));

# Rows of a results file grouped by (scenario, protocol, tool, server): run values of ok runs.
# The rows of an A/A run's labels are two groups (noise::row_name: jetty@A, jetty@B).
def _groups($filters):
  # rows at a fixed rate or of a capacity search are judged by --slo only (lib/slo.jq)
  [.results[] | select(.load == null and _selected($filters)) | .server_name = .server | .server = noise::row_name]
  | group_by(_key)
  | map(map(select(.status == "ok")) as $ok
    | {
      server: .[0].server, server_name: .[0].server_name, scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool,
      planned: length,
      ok: $ok | length,
      successful_rps: [$ok[] | .metrics | stats::successful_rps | select(. != null)],
      p99: [$ok[] | .metrics.latency_us.p99 | select(. != null)],
      failures: [$ok[] | .metrics | stats::failures | select(. != null)],
      statuses: [.[] | .status] | unique,
      reasons: [.[] | select(.status != "ok") | "\(.status): \(.reason)"] | unique
    });

# stats::summary with the values and the spread: the largest distance of a run from the
# median, as a fraction of it.
def _summary:
  . as $values
  | stats::summary
  | if . == null then null
    else . + {values: $values, spread: (if .median > 0 then ([.median - .min, .max - .median] | max) / .median else null end)}
    end;

# Verdict for one metric. $higher_is_better: rps yes, p99 no. $floor: the machine's noise
# floor for this metric ({floor, from}) or null.
# Both sides with 3+ runs: Welch's t-test on logs (lib/stats.jq says why) and the 95%
# interval of the ratio; not significant at alpha -> "~"; significant but within the
# threshold -> "unchanged" (real but too small to matter); within the noise floor an A/A
# run measured -> "~" (this machine makes changes that large from nothing); otherwise
# regression or improvement. Fewer runs: the threshold and the floor alone.
def _judge($b; $n; $threshold; $alpha; $higher_is_better; $floor):
  if ($b | length) == 0 or ($n | length) == 0 then null
  else
    ($b | stats::median) as $mb | ($n | stats::median) as $mn
    | (if $mb > 0 then $mn / $mb - 1 else null end) as $change
    | (($b | length) >= 3 and ($n | length) >= 3 and all($b[], $n[]; . > 0)) as $tested
    | (if $tested then stats::welch_log_p($b; $n) else null end) as $p
    | (if $tested then stats::ratio_interval($b; $n; 0.95) | {lo: (.lo - 1), hi: (.hi - 1)} else null end) as $ci
    | ($floor != null and $change != null and ($change | fabs) <= $floor.floor) as $within_floor
    | (if $change == null then "unchanged"
       elif $p != null and $p >= $alpha then "~"
       elif ($change | fabs) <= $threshold then "unchanged"
       elif $within_floor then "~"
       elif ($change > 0) == $higher_is_better then "improvement"
       else "regression" end) as $verdict
    | {base: ($b | _summary), new: ($n | _summary), change: $change, p: $p, ci: $ci,
       noise_floor: $floor, within_floor: $within_floor,
       floor_decided: ($within_floor and ($p == null or $p < $alpha) and ($change | fabs) > $threshold),
       test: (if $p == null then "threshold" else "welch-log" end), verdict: $verdict}
  end;

# The noise floor of one metric ("successful_rps" or "p99") for a row: the A/A run's row of
# the same scenario, protocol and tool, else the largest floor the A/A run measured (a
# cautious stand-in); null without --noise-floor.
def _floor($nf; $row; $metric):
  if $nf == null then null
  else
    ([$nf.rows[] | select(.scenario == $row.scenario and .protocol == $row.protocol and .tool == $row.tool)
      | .[$metric].floor? | numbers] | first) as $same
    | if $same != null then {floor: $same, from: "\($row.scenario) \($row.protocol) \($row.tool)"}
      else ([$nf.rows[] | .[$metric].floor? | numbers] | max) as $largest
        | if $largest == null then null else {floor: $largest, from: "largest of the A/A run"} end
      end
  end;

# Verdict for the error rate (failed / requests). The base and new rates are pooled over
# the runs (all failed / all requests). A regression, however small the numbers:
#   - any failed request where the base had none (a server that starts failing has changed,
#     whatever the share);
#   - a rise of the rate by more than $threshold (a fraction of the requests: 0.001 is 0.1
#     points), and with 3+ runs on both sides a significant one (Welch's t-test on the
#     runs' rates at alpha; not significant: "~"). Error counts jump from run to run (one
#     stall times out every request in flight), so with 3+ runs their spread decides whether
#     a rise beyond the threshold is real; with 1 or 2 runs the threshold alone decides.
# A rise within the threshold is noise ("unchanged"): 1 timeout in 10^6 requests more
# does not fail the gate. A fall beyond the threshold is an improvement.
def _judge_errors($b; $n; $threshold; $alpha):
  def totals: {failed: (map(.failed) | add), requests: (map(.requests) | add), rate: stats::error_rate};
  def rates: map(.failed / .requests);
  if ($b | length) == 0 or ($n | length) == 0 then null
  else
    ($b | totals) as $bt | ($n | totals) as $nt
    | ($nt.rate - $bt.rate) as $change
    | ($bt.failed == 0 and $nt.failed > 0) as $new_errors
    | (if ($b | length) >= 3 and ($n | length) >= 3 then stats::welch_p($b | rates; $n | rates) else null end) as $p
    | {base: $bt, new: $nt, change: $change, p: $p, new_errors: $new_errors,
       test: (if $p == null then "threshold" else "welch" end),
       verdict: (if $new_errors then "regression"
                 elif ($change | fabs) <= $threshold then "unchanged"
                 elif $p != null and $p >= $alpha then "~"
                 elif $change > 0 then "regression"
                 else "improvement" end)}
  end;

def _metrics: ["successful_rps", "p99", "error_rate"];
# --fail-on's names -> the judgements.
def _judgement: {rps: "successful_rps", p99: "p99", errors: "error_rate"}[.];

def _row_verdict($fail_on):
  if .side == "base only" then "removed"
  elif .side == "new only" then "added"
  elif .new.ok == 0 then
    (if (.new.statuses | index(["failed"])) == null then "skipped"
     elif .base.ok > 0 then "failed"
     else "still failed" end)
  elif .base.ok == 0 then "recovered"
  else
    . as $row
    | [_metrics[] | $row[.].verdict?] as $verdicts
    | if any($fail_on[] | _judgement | values; $row[.].verdict? == "regression") then "regression"
      elif any($verdicts[]; . == "improvement") then "improvement"
      elif any($verdicts[]; . == "~") then "~"
      else "unchanged" end
  end;

def _side($g): if $g == null then null else $g | del(.server, .server_name, .scenario, .protocol, .tool) end;

def _rows($base_groups; $new_groups; $opts):
  ($base_groups | _by_key) as $b
  | ($new_groups | _by_key) as $n
  | [($b | keys[]), ($n | keys[])] | unique
  | map(. as $k | ($b[$k] // $n[$k]) as $any
      | {server: $any.server, scenario: $any.scenario, protocol: $any.protocol, tool: $any.tool,
         side: (if $b[$k] == null then "new only" elif $n[$k] == null then "base only" else "both" end),
         base: _side($b[$k]), new: _side($n[$k])}
      | . as $row
      | .successful_rps = (if .side == "both" then _judge(.base.successful_rps; .new.successful_rps; $opts.threshold; $opts.alpha; true;
                                                             _floor($opts.noise_floor; $row; "successful_rps")) else null end)
      | .p99 = (if .side == "both" then _judge(.base.p99; .new.p99; $opts.p99_threshold; $opts.alpha; false;
                                               _floor($opts.noise_floor; $row; "p99")) else null end)
      | .error_rate = (if .side == "both" then _judge_errors(.base.failures; .new.failures; $opts.error_threshold; $opts.alpha) else null end)
      | .verdict = _row_verdict($opts.fail_on))
  | sort_by(.scenario, .protocol, .tool, .server);

# Machine-independent view: each server's successful requests/s divided by the median of
# the reference server in the same file, scenario, protocol and tool; then the same verdict
# rules on those ratios. The reference's own run-to-run spread is not propagated (its median
# is taken as exact), which makes the test slightly optimistic; the threshold guards that.
def _relative($base_groups; $new_groups; $base_refs; $new_refs; $opts):
  def refs: map(select(.server == $opts.reference and (.successful_rps | stats::median // 0) > 0)
                | {key: ([.scenario, .protocol, .tool] | tojson), value: (.successful_rps | stats::median)})
            | from_entries;
  ($base_refs | refs) as $rb | ($new_refs | refs) as $rn
  | ($new_groups | _by_key) as $n
  | [$base_groups[]
     | select(.server != $opts.reference and (.successful_rps | length) > 0)
     | ([.scenario, .protocol, .tool] | tojson) as $ck
     | select($rb[$ck] != null and $rn[$ck] != null)
     | $n[_key | tojson] as $other
     | select($other != null and ($other.successful_rps | length) > 0)
     | {server, scenario, protocol, tool}
       + (_judge(.successful_rps | map(. / $rb[$ck]); $other.successful_rps | map(. / $rn[$ck]); $opts.threshold; $opts.alpha; true; null))]
  | sort_by(.scenario, .protocol, .tool, .server);

# Capacity searches (--capacity): per (scenario, protocol, tool, server, conditions) the
# capacity each ok run found (null: no rate met the conditions), and the search's precision.
def _capacity_groups($filters):
  [.results[] | select(.load.mode? == "capacity" and .status == "ok" and .capacity != null and _selected($filters))
   | .server_name = .server | .server = noise::row_name]
  | group_by(_key + [.capacity.conditions])
  | map({key: (.[0] | _key + [.capacity.conditions] | tojson),
         value: ((.[0] | {server, scenario, protocol, tool, conditions: .capacity.conditions})
                 + {precision: ([.[].capacity.precision] | max), runs: [.[].capacity.capacity_rps]})})
  | from_entries;

# Capacity rows in both files, judged like successful requests/s (higher is better; 3+ runs a
# side: the test; else the threshold), where the least change that counts is the larger of
# --threshold and the searches' precision (a search finds the edge only to within it). A
# search that met no rate in a run of NEW where every run of BASE met one is a regression;
# one that met none in BASE is not judged.
def _capacity($base; $new; $opts):
  ($base | _capacity_groups($opts.filters)) as $b
  | [($new | _capacity_groups($opts.filters)) | to_entries[] | select($b[.key] != null)
     | .value as $n | $b[.key] as $o
     | ([$opts.threshold, $o.precision, $n.precision] | max) as $threshold
     | ($n | del(.runs, .precision)) + {base: $o.runs, new: $n.runs, threshold: $threshold}
     | if any($o.runs[]; . == null) then . + {judgement: null, verdict: "not judged"}
       elif any($n.runs[]; . == null) then . + {judgement: null, verdict: "regression", why: "no rate met"}
       else _judge($o.runs; $n.runs; $threshold; $opts.alpha; true; null) as $j
         | . + {judgement: $j, verdict: $j.verdict} end]
  | sort_by(.scenario, .protocol, .tool, .server);

# A results file -> what says which machine measured it, as history.sh (lib/history.py's
# machine) decides: the CPU, its cores, memory (GB, rounded), architecture and a lab run's hosts.
# A new kernel or JDK on the same machine is the same machine.
def machine:
  .system as $s
  | (["\($s.cpuModel), \($s.cpuCores) cores, \($s.ramGB | round) GB RAM, \($s.arch)"]
     + (if (.lab.hosts? // []) | length > 0
        then ["lab: " + ([.lab.hosts[] | "\(.role) \(.host) (\(.cpuModel), \(.cpuCores) cores)"] | sort | join("; "))]
        else [] end))
  | join("; ");

def _file_info($doc; $name):
  {file: $name, timestamp: $doc.timestamp, commit: $doc.commit, runs: $doc.settings.runs,
   machine: "\($doc.system.cpuModel), \($doc.system.cpuCores) cores",
   aa_labels: (if $doc.settings.aa == true then [$doc.results[] | select(.aa_group != null) | noise::row_name] | unique else null end)};

def _counts: group_by(.verdict) | map({key: .[0].verdict, value: length}) | from_entries;

# What decides the exit status, as a list (as history.sh's regressions): one entry per row and
# regressed metric of --fail-on, {series, server, scenario, protocol, tool, view, metric, change}.
# view: "absolute" or "relative" (the --gate view), "capacity" (gated in the absolute view only:
# capacity is this machine's own), or "slo" (added by compare-results.sh). A row that failed in
# NEW (ok in BASE) is a regression in either view, metric "status".
def _regressions($rows; $relative; $capacity; $opts):
  def entry($view; $metric; $change):
    {series: "\(.server) \(.scenario) \(.protocol) \(.tool)", server, scenario, protocol, tool,
     view: $view, metric: $metric, change: $change};
  [$rows[] | select(.verdict == "failed") | entry($opts.gate; "status"; null)]
  + (if $opts.gate == "relative"
     then [$relative[] | select(.verdict == "regression") | entry("relative"; "successful_rps_share"; .change)]
     else [$rows[] | select(.verdict == "regression") | . as $row
           | $opts.fail_on[] | _judgement | values | select($row[.].verdict? == "regression")
           | . as $metric | $row | entry("absolute"; $metric; $row[$metric].change)] end)
  + (if $opts.gate == "absolute" and ($opts.fail_on | index(["capacity"])) != null
     then [$capacity[] | select(.verdict == "regression") | entry("capacity"; "capacity_rps"; .judgement.change?)] else [] end);

def compare($base; $new; $opts):
  # Grouped once with every server, as the reference counts even when --server leaves it
  # out of the rows; the rows are the groups the filters select.
  ($opts.filters | .server = []) as $reference_filters
  | ($base | _groups($reference_filters)) as $base_all
  | ($new | _groups($reference_filters)) as $new_all
  | ($base_all | map(select(_selected($opts.filters)))) as $bg
  | ($new_all | map(select(_selected($opts.filters)))) as $ng
  | _rows($bg; $ng; $opts) as $rows
  | _relative($bg; $ng; $base_all; $new_all; $opts) as $relative
  | _capacity($base; $new; $opts) as $capacity
  | (_regressions($rows; $relative; $capacity; $opts)) as $regressions
  | {base: _file_info($base; $opts.base_file), new: _file_info($new; $opts.new_file),
     settings: ($opts | del(.base_file, .new_file, .noise_floor)),
     noise_floor: (if $opts.noise_floor == null then null else $opts.noise_floor | {file, server, level} end),
     compared_rows: [$rows[] | select(.side == "both" and .base.ok > 0 and .new.ok > 0)] | length,
     single_run_rows: [$rows[] | select(.side == "both" and (.base.ok == 1 or .new.ok == 1))] | length,
     rows: $rows, relative: $relative, capacity: $capacity,
     counts: ($rows | _counts), relative_counts: ($relative | _counts),
     regressions: $regressions};

# ---- rendering ------------------------------------------------------------------------

def _value_cell(format):
  if . == null then fmt::dash
  # all runs at 0 (no request succeeded): no spread relative to a median of 0
  elif .n > 1 and .spread != null then (.median | format) + " ±" + (.spread * 100 | fmt::fixed(0)) + "%"
  else .median | format end;

def _change_cell:
  if . == null or .change == null then fmt::dash
  elif .p != null then (.change | fmt::signed_pct(1)) + " (p=" + (.p | fmt::fixed(3))
    + (if .ci != null then ", 95% CI \(.ci.lo | fmt::signed_pct(1)) to \(.ci.hi | fmt::signed_pct(1))" else "" end) + ")"
  else .change | fmt::signed_pct(1) end;

def _side_rps($side): if $side == null then fmt::dash elif $side.ok == 0 then ($side.statuses | join("/")) else $side.successful_rps | _summary | _value_cell(fmt::thousands) end;
def _side_p99($side): if $side == null or $side.ok == 0 then fmt::dash else $side.p99 | _summary | _value_cell(fmt::latency) end;
# The side's error rate, pooled over its runs (as _judge_errors pools it).
def _side_errors($side):
  if $side == null or ($side.failures | length) == 0 then fmt::dash
  else $side.failures | stats::error_rate | fmt::share end;

def _error_change_cell:
  if . == null then fmt::dash
  elif .p != null then (.change | fmt::signed_points) + " (p=" + (.p | fmt::fixed(3)) + ")"
  else .change | fmt::signed_points end;

def _cells:
  [.server, .scenario, .protocol, .tool,
   _side_rps(.base), _side_rps(.new), (.successful_rps | _change_cell),
   _side_p99(.base), _side_p99(.new), (.p99 | _change_cell),
   _side_errors(.base), _side_errors(.new), (.error_rate | _error_change_cell), .verdict];

def _header: ["server", "scenario", "protocol", "tool", "base ok/s", "new ok/s", "ok/s Δ",
              "base p99", "new p99", "p99 Δ", "base err", "new err", "err Δ", "verdict"];

# The narrow table (text without --details): the changes alone, p-values, intervals and each
# side's p99 and error rate behind --details; a row of 3-run files fits in 100 characters.
def _narrow_cells:
  def change: if . == null or .change == null then fmt::dash else .change | fmt::signed_pct(1) end;
  [.server, .scenario, .protocol, .tool, _side_rps(.base), _side_rps(.new), (.successful_rps | change),
   (.p99 | change), (if .error_rate == null then fmt::dash else .error_rate.change | fmt::signed_points | rtrimstr(" pt") end),
   .verdict];

def _narrow_header: ["server", "scenario", "proto", "tool", "base ok/s", "new ok/s", "ok/s Δ", "p99 Δ", "err pt", "verdict"];

def _relative_cells:
  [.server, .scenario, .protocol, .tool,
   (.base | _value_cell(. * 100 | fmt::fixed(1) + "%")),
   (.new | _value_cell(. * 100 | fmt::fixed(1) + "%")), _change_cell, .verdict];

def _relative_header($ref): ["server", "scenario", "protocol", "tool", "base % of \($ref)", "new % of \($ref)", "Δ", "verdict"];

def _capacity_cells:
  def runs: if . == null then fmt::dash elif any(.[]; . == null) then "none met"
            else _summary | _value_cell(fmt::thousands + "/s") end;
  [.server, .scenario, .protocol, .tool, (.conditions | join(",")), (.base | runs), (.new | runs),
   (if .judgement != null then .judgement | _change_cell else .why // fmt::dash end), .verdict];

def _capacity_header: ["server", "scenario", "protocol", "tool", "conditions", "base capacity", "new capacity", "Δ", "verdict"];

def _capacity_title:
  "Capacity (the highest rate meeting the conditions; a change counts beyond the larger of the threshold and the search's precision):";

def _notes:
  [.rows[] | . as $r
   | ((.base.reasons // []) | map("base " + .)) + ((.new.reasons // []) | map("new " + .))
   | select(length > 0)
   | "\($r.server) \($r.scenario) \($r.protocol) \($r.tool): " + join("; ")];

# One line per row whose error rate regressed: the row, base and new rate, and why.
def _error_notes:
  [.rows[] | select(.error_rate.verdict? == "regression") | .error_rate as $e
   | "\(.server) \(.scenario) \(.protocol) \(.tool): error rate \($e.base.rate | fmt::share) -> \($e.new.rate | fmt::share) ("
     + (if $e.new_errors then "the base had none"
        else ($e.change | fmt::signed_points) + (if $e.p != null then ", p=\($e.p | fmt::fixed(3))" else "" end) end)
     + ": \($e.base.failed | fmt::thousands) of \($e.base.requests | fmt::thousands) -> "
     + "\($e.new.failed | fmt::thousands) of \($e.new.requests | fmt::thousands) requests failed)"];

# What the noise floor did: its file, the floors used (by the A/A row they came from), then one
# line per change it kept from being a regression or an improvement.
def _floor_notes:
  if .noise_floor == null then []
  else
    ["from \(.noise_floor.file) (A/A run of \(.noise_floor.server // "?"), \(.noise_floor.level * 100 | fmt::fixed(0))% intervals; absolute view only):"]
    + ([.rows[] | [.successful_rps, .p99] | select(.[0].noise_floor != null or .[1].noise_floor != null)
        | "ok/s ±\(.[0].noise_floor.floor * 100 | fmt::fixed(1))%, p99 ±\(.[1].noise_floor.floor * 100 | fmt::fixed(1))% for "
          + (.[0].noise_floor.from // .[1].noise_floor.from
             | if . == "largest of the A/A run" then "rows the A/A run did not measure (its largest floors)" else "rows of \(.)" end)]
       | unique)
    + [.rows[] | . as $r
       | (["successful_rps", "ok/s"], ["p99", "p99"]) as [$k, $name]
       | $r[$k] | select(. != null and .floor_decided)
       | "\($r.server) \($r.scenario) \($r.protocol) \($r.tool): \($name) \(.change | fmt::signed_pct(1)) is within the floor "
         + "±\(.noise_floor.floor * 100 | fmt::fixed(1))%: not called a "
         + (if (.change > 0) == ($k == "successful_rps") then "improvement" else "regression" end) + " (~)"]
  end;

# Said plainly when a side has one run: a single run holds no spread to judge noise by.
def _single_run_line:
  if .single_run_rows == 0 then empty
  else (if .single_run_rows == .compared_rows then "1 run on a side: this comparison cannot separate noise from change"
        else "\(.single_run_rows) of \(.compared_rows) compared rows have 1 run on a side: for them noise and change cannot be separated" end)
    + "; the verdicts only apply the thresholds" + (if .noise_floor != null then " and the noise floor" else "" end)
    + " (measure with --runs 3 or more for a significance test and a confidence interval)" end;

# Said when a file is an A/A run: its labels are compared as what they are, two samples of
# one server, not merged into one.
def _aa_lines:
  (["base", .base], ["new", .new]) as [$side, $info]
  | $info.aa_labels // empty
  | "\($side) is an A/A run (--aa): its labels \(join(" and ")) are rows of their own, not one server "
    + "(their difference is the machine's noise; use it with --noise-floor)";

def _count_words:
  . as $c
  | [["regression", "regression", "regressions"], ["failed", "newly failed"], ["improvement", "improvement", "improvements"],
     ["unchanged", "unchanged"], ["~", "not significant (~)"], ["added", "added"], ["removed", "removed"],
     ["skipped", "skipped"], ["still failed", "still failed"], ["recovered", "recovered"]]
  | map(select($c[.[0]] != null) | "\($c[.[0]]) " + (if $c[.[0]] == 1 then .[1] else .[-1] end))
  | if length == 0 then "nothing to compare" else join(", ") end;

def _summary_line:
  (.counts | _count_words)
  + (if (.capacity | length) > 0 then "; capacity: " + (.capacity | _counts | _count_words) else "" end)
  + (if (.relative | length) > 0 then "; relative to \(.settings.reference): " + (.relative_counts | _count_words) else "" end)
  + " (gate: \(.settings.gate), exit \(if (.regressions | length) > 0 then 1 else 0 end))";

def _legend_line:
  "ok/s: successful requests/s (failed requests are not throughput); err: share of requests that failed "
  + "(4xx, 5xx, errors), Δ in percentage points (pt)";

def _method_line:
  "ok/s threshold \(.settings.threshold * 100 | fmt::fixed(1))%, p99 threshold \(.settings.p99_threshold * 100 | fmt::fixed(1))%, "
  + "error rate threshold \(.settings.error_threshold | fmt::signed_points | ltrimstr("+")) (any errors where the base had none regress); "
  + "3+ runs per side: Welch's t-test at alpha \(.settings.alpha) on log values and the 95% CI of the change "
  + "(error rate: the test on the runs' rates; ~ = not significant or within the noise floor); "
  + "fail on: \(.settings.fail_on | join(","))";

def _table_text($rows_given):
  # cells made safe before they are measured: a column keeps its width
  ($rows_given | map(map(fmt::safe))) as $rows
  | ($rows | map(map(length)) | transpose | map(max)) as $w
  | $rows[]
  | [to_entries[] | . as {key: $k, value: $v}
     | if $k < 4 or $k == ($w | length) - 1 then $v | fmt::pad($w[$k]) else $v | fmt::lpad($w[$k]) end]
  | join("  ") | sub(" +$"; "");

# A line of prose folded at $width characters (at spaces), the next lines indented by two.
def _wrap($width):
  reduce (split(" ")[]) as $word ([""];
    if (.[-1] | length) == 0 then .[-1] = $word
    elif (.[-1] | length) + 1 + ($word | length) > $width then . + ["  " + $word]
    else .[-1] += " " + $word end)
  | .[];

def _render_text($details):
  (["base", .base], ["new", .new]) as [$side, $f]
  | "\($side):" + (if $side == "new" then "  " else " " end) + $f.file,
    "      \($f.timestamp), commit \($f.commit // "unknown" | if $details or length <= 18 then . else .[:12] + (if endswith("-dirty") then "-dirty" else "" end) end), \($f.runs) run(s), \($f.machine)"
  ;
def _render_text_body($details):
  "",
  (if $details then _table_text([_header] + (.rows | map(_cells)))
   else _table_text([_narrow_header] + (.rows | map(_narrow_cells))),
     "(--details: each side's p99 and error rate, the p-values and 95% intervals)" end),
  "",
  (if (.relative | length) > 0 then
     "Relative to \(.settings.reference) in the same file (machine-independent):",
     _table_text([_relative_header(.settings.reference)]
                 + (.relative | map(_relative_cells | if $details then . else .[6] |= (split(" (p=")[0]) end))),
     ""
   else "No relative view: \(.settings.reference) was not measured in both files.", "" end),
  (if (.capacity | length) > 0 then _capacity_title, _table_text([_capacity_header] + (.capacity | map(_capacity_cells))), ""
   else empty end),
  (_error_notes | if length > 0 then ("Error rates that regressed:", map("  " + .)[], "") else empty end),
  (_notes | if length > 0 then ("Failed or skipped runs:", map("  " + .)[], "") else empty end),
  (_floor_notes | if length > 0 then ("Noise floor:", map("  " + .)[], "") else empty end),
  (_legend_line, _method_line | if $details then . else _wrap(100) end),
  _single_run_line,
  _aa_lines,
  "Summary: " + _summary_line;

# Every line passes fmt::safe: no string of a results file reaches a terminal raw.
def render_text($details): (_render_text($details), _render_text_body($details)) | fmt::safe;
def render_text: render_text(false);

def _table_md($rows_given):
  ($rows_given | map(map(fmt::safe))) as $rows
  | ("| " + ($rows[0] | join(" | ")) + " |"),
  ("|" + ($rows[0] | to_entries | map(if .key < 4 or .key == (($rows[0] | length) - 1) then "---" else "---:" end) | join("|")) + "|"),
  ($rows[1:][] | "| " + (map(gsub("\\|"; "\\|")) | join(" | ")) + " |");

def _render_markdown:
  "**Base:** `\(.base.file)` (\(.base.timestamp), commit `\(.base.commit // "unknown")`, \(.base.runs) run(s), \(.base.machine))  ",
  "**New:** `\(.new.file)` (\(.new.timestamp), commit `\(.new.commit // "unknown")`, \(.new.runs) run(s), \(.new.machine))",
  "",
  _table_md([_header] + (.rows | map(_cells))),
  "",
  (if (.relative | length) > 0 then
     "Relative to **\(.settings.reference)** in the same file (machine-independent):", "",
     _table_md([_relative_header(.settings.reference)] + (.relative | map(_relative_cells))), ""
   else "No relative view: \(.settings.reference) was not measured in both files.", "" end),
  (if (.capacity | length) > 0 then _capacity_title, "", _table_md([_capacity_header] + (.capacity | map(_capacity_cells))), ""
   else empty end),
  (_error_notes | if length > 0 then ("Error rates that regressed:", "", map("- " + .)[], "") else empty end),
  (_notes | if length > 0 then ("Failed or skipped runs:", "", map("- " + .)[], "") else empty end),
  (_floor_notes | if length > 0 then ("Noise floor:", "", map("- " + .)[], "") else empty end),
  "_\(_legend_line)._  ",
  "_\(_method_line)_",
  (_single_run_line | "", "**\(.)**"),
  (_aa_lines | "", "_\(.)._"),
  "",
  "**Summary:** " + _summary_line;

def render_markdown: _render_markdown | fmt::safe;
