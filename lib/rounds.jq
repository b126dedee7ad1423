# rounds: where a budgeted run (run-benchmarks.sh --budget, lib/rounds.sh) still needs runs, as
# a jq module: per table (scenario x protocol x tool, closed loop), each adjacent pair of
# contestants by median successful requests/s is
#   decided  their 95% intervals of successful requests/s are apart (the README ranks them apart:
#            the same stats::log_interval, readme.jq's _summary_ci, with $min_runs or more runs);
#   equal    the 95% interval of the ratio of the two (stats::ratio_interval, Welch's t-interval on
#            log values, compare.jq's and noise.jq's) lies within 1 ± $margin at both ends;
#   open     otherwise (too few runs, or intervals that overlap without being within the margin).
# No statistic of its own: the README's intervals and the comparison's ratio interval.
#
#   contestant   a results row -> the contestant it belongs to: what one server start measures,
#                named as run-benchmarks.sh's slots are (plan::contestants: today the server,
#                NAME@A / NAME@B in an A/A run, SERVER:VARIANT in a variant run). The one place a new kind of contestant plugs in.
#   tables($margin; $min_runs; $cross)   results file -> [{scenario, protocol, tool, profiled,
#                cross_check (the tool is in $cross: it measures the first round only, its pairs
#                are not judged), entries: [{contestant, runs, ok, median, interval}] sorted by
#                median (best first), pairs: [{faster, slower, verdict, ratio: {lo, hi} or null}],
#                counts: {decided, equal, open}}]
#   wanted($margin; $min_runs; $cross)   results file -> one line per contestant and table
#                where it is in an open pair: [contestant, tool, protocol, scenario, reason]
#                (@tsv for lib/rounds.sh)
#   counts_text  a results file's rounds object -> "N pairs: D decided, E equal, O open" over its
#                ranked tables (cross-checks left out)
#   summary($margin; $min_runs; $cross; $ended)   results file -> the results' rounds.tables:
#                tables' pairs and counts, and each entry's runs and why it got them
#   warmup_cap($contestant; $base; $max)   results file -> the server warm-up cap of the
#                contestant's next turn (docs/steady-state.md "Warm-ups sized from
#                measurement"): {cap_s, need_s, verdict, why}. Per shape (protocol, scenario),
#                its latest start: steady after t s needs 1.5 x t; not reached within a cap c,
#                2 x c (steady state is somewhere beyond c); the contestant needs the most of its
#                shapes. cap_s: that need, at least $base (the fitted cap), at most $max;
#                verdict sized (the need fits), beyond ($max is below the need: its rows keep ⧗)
#                or unknown (no time to steady state measured: $base); all_steady: every shape's
#                latest start reached steady state (its warm-ups should take as long again)

import "stats" as stats;
import "noise" as noise;

def level: 0.95;

def contestant: noise::row_name;

def _values: [.[] | select(.status == "ok") | .metrics | stats::successful_rps | select(. != null and . > 0)];

def _entry($min_runs):
  _values as $v
  | {contestant: (.[0] | contestant), runs: length, ok: ($v | length), values: $v, median: ($v | stats::median),
     interval: (if ($v | length) >= $min_runs then $v | stats::log_interval(level) else null end)};

# $a: the faster by median, $b the slower.
def _pair($a; $b; $margin):
  (if ($a.ok >= 2 and $b.ok >= 2) then stats::ratio_interval($a.values; $b.values; level) else null end) as $r
  | {faster: $a.contestant, slower: $b.contestant,
     ratio: (if $r == null then null else {lo: $r.lo, hi: $r.hi} end),
     verdict: (if $a.interval == null or $b.interval == null then "open"
               elif $a.interval.lo > $b.interval.hi then "decided"
               elif $r != null and $r.lo >= 1 - $margin and $r.hi <= 1 + $margin then "equal"
               else "open" end)};

def tables($margin; $min_runs; $cross):
  [.results[] | select(.load == null)]
  | group_by([.scenario, .protocol, .tool, (.profile.event // null)])
  | map((.[0].tool as $tool | ($cross | index([$tool])) != null) as $cross_check
        | {scenario: .[0].scenario, protocol: .[0].protocol, tool: .[0].tool, profiled: (.[0].profile.event // null),
           cross_check: $cross_check,
           entries: (group_by(contestant) | map(_entry($min_runs)) | sort_by(-(.median // 0), .contestant))}
        | (.entries | map(select(.ok > 0))) as $measured
        | .pairs = (if $cross_check then []
                    else [range(0; ($measured | length) - 1) as $i | _pair($measured[$i]; $measured[$i + 1]; $margin)] end)
        | .counts = {decided: ([.pairs[] | select(.verdict == "decided")] | length),
                     equal: ([.pairs[] | select(.verdict == "equal")] | length),
                     open: ([.pairs[] | select(.verdict == "open")] | length)});

def wanted($margin; $min_runs; $cross):
  tables($margin; $min_runs; $cross)[] | . as $t
  | [.pairs[] | select(.verdict == "open")] as $open
  | ([$open[] | .faster, .slower] | unique)[] as $c
  | [$c, $t.tool, $t.protocol, $t.scenario,
     "open against " + ([$open[] | select(.faster == $c or .slower == $c) | if .faster == $c then .slower else .faster end]
                        | unique | join(", ")) + " in \($t.scenario) \($t.protocol) \($t.tool)"]
  | @tsv;

# Why an entry got its runs: the verdicts of its pairs.
def _why($t; $ended):
  . as $e
  | [$t.pairs[] | select(.faster == $e.contestant or .slower == $e.contestant)] as $mine
  | if $t.cross_check then "cross-check: the first round only"
    elif $e.ok == 0 then "not measured"
    elif ($mine | length) == 0 then "no neighbour to rank against"
    elif any($mine[]; .verdict == "open") then
      "open against " + ([$mine[] | select(.verdict == "open") | if .faster == $e.contestant then .slower else .faster end] | join(", "))
      + (if $ended == "budget" then ": the budget ended" elif $ended == "interrupted" then ": the run was interrupted" else "" end)
    else "every neighbour " + ([$mine[] | "\(.verdict) against \(if .faster == $e.contestant then .slower else .faster end)"] | join(", "))
    end;

def summary($margin; $min_runs; $cross; $ended):
  tables($margin; $min_runs; $cross)
  | map(. as $t | .entries |= map({contestant, runs, ok, median, why: _why($t; $ended)}));

def _pairs_word: if . == 1 then "1 pair" else "\(.) pairs" end;

def counts_text:
  [.tables[]? | select(.cross_check | not) | .counts] as $c
  | ([$c[] | .decided] | add // 0) as $d | ([$c[] | .equal] | add // 0) as $e | ([$c[] | .open] | add // 0) as $o
  | "\($d + $e + $o | _pairs_word): \($d) decided, \($e) equal, \($o) open";

# How much longer than its last time to steady state a start's cap is: a JVM's warm-up varies
# from start to start (netty 9-13 s, jetty 9-36 s on the same machine: docs/steady-state.md).
def warmup_margin: 1.5;

def warmup_cap($contestant; $base; $max):
  [.server_warmups[]? | select((.variant // (.server + (if .aa_group then "@\(.aa_group)" else "" end))) == $contestant)
   | .run as $run | .duration_s as $cap | .shapes[] | select(.time_to_steady != null)
   | {shape: "\(.protocol) \(.scenario)", run: $run, cap: $cap, t: .time_to_steady}]
  | group_by(.shape) | map(max_by(.run))
  | map(if .t.verdict == "steady" then {shape, need: (.t.steady_after_s * warmup_margin | ceil), how: "steady after \(.t.steady_after_s | ceil) s"}
        elif .t.verdict == "not reached" then {shape, need: (.cap * 2), how: "not steady within \(.cap) s"}
        else empty end)
  | if length == 0 then {cap_s: $base, need_s: null, verdict: "unknown", why: "no time to steady state measured", all_steady: null}
    else max_by(.need) as $most
      | {need_s: $most.need, why: "\($most.shape): \($most.how)", all_steady: all(.[]; .how | startswith("steady"))}
      | .cap_s = ([(if .need_s > $base then .need_s else $base end), $max] | min)
      | .verdict = (if .need_s > $max then "beyond" else "sized" end)
    end;
