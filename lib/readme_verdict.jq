# readme_verdict: the opening of the README's performance section (lib/readme.jq): per
# protocol, who leads, who is tied within the tie margin, which pairs of neighbours are still
# open and what would decide each; then the servers' time to steady state. As a jq module.
#
#   warmup_model   results file -> per protocol, scenario and server, its warm-ups
#                  (server_warmups' shapes, docs/metrics.md "Time to steady state") in medians
#                  over the server's starts: [{protocol, scenario, server, starts, first_response_s,
#                  steady_after_s (over the starts that reached it), steady_starts, not_steady
#                  (starts whose cap came first) and not_steady_caps (their caps), not_judged
#                  (fixed warm-ups), first_5s_share, cap_s}] sorted by protocol, scenario, server;
#                  [] without server warm-ups
#   decider($margin)  a pair of neighbours (a table's rounds.pairs entry, with .runs: the fewer
#                  runs of its two, and .not_steady: its contestants whose rows are ⧗) -> what
#                  would decide it, in words (below)
#   warmup_chart   results file -> the chart of successful requests/s over the first seconds of
#                  load, one line per server: its first start's warm-up of the first shape in the
#                  README's order that has per-second counts (time_to_steady.rps_by_second), or null:
#                  {protocol, scenario, slug, series: [{server, run, steady_after_s, points}]}
#   warmup_chart_script($dir; colour)   that chart -> {file, script, data_file, data} (gnuplot)
#   section($tables; $warmups; $chart; protocol_name)   the model's tables, warmup_model and
#                  warmup_chart -> the Markdown lines of the summary ("### Summary"); nothing
#                  when no table has rounds and there are no warm-ups
#
# What decides an open pair: the 95% interval of the ratio of the two (lib/rounds.jq) shrinks
# as 1/sqrt(runs). Decided needs the two intervals apart: about the ratio's half-width (in log)
# below the gap between the medians divided by sqrt(2) (two intervals of the same width are
# apart when each is narrower than half the gap; the ratio's is sqrt(2) times one of them).
# Equal needs it below the margin less the gap. The easier of the two gives the runs needed,
# n x (half-width / target)^2; no more than 3 times the runs so far: "a longer budget"; a pair
# with a contestant not in steady state: "longer warm-ups" first (its spread is partly the JIT);
# beyond: "a quieter machine". A pair with too few runs for an interval: "more runs".

import "format" as fmt;

def _median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                    else (.[length / 2 - 1] + .[length / 2]) / 2 end;

def _name: .variant // (.server + (if .aa_group then "@\(.aa_group)" else "" end));

def warmup_model:
  [.server_warmups[]? as $w | $w.shapes[] | select(.time_to_steady != null)
   | {protocol, scenario, server: ($w | _name), cap_s: $w.duration_s, first_response_s: $w.first_response_s} + .time_to_steady]
  | group_by([.protocol, .scenario, .server])
  | map({protocol: .[0].protocol, scenario: .[0].scenario, server: .[0].server, starts: length, cap_s: .[0].cap_s,
         first_response_s: ([.[].first_response_s | numbers] | _median),
         steady_after_s: ([.[].steady_after_s | numbers] | _median),
         steady_starts: ([.[] | select(.verdict == "steady")] | length),
         not_steady: ([.[] | select(.verdict == "not reached")] | length),
         not_steady_caps: ([.[] | select(.verdict == "not reached") | .cap_s] | unique),
         not_judged: ([.[] | select(.verdict == "not judged")] | length),
         first_5s_share: ([.[].first_5s_share | numbers] | _median)});

def _runs_word: if . == 1 then "1 run" else "\(.) runs" end;

def decider($margin):
  if .ratio == null then "more runs: each needs at least 3 for an interval"
  else
    ((.ratio.lo * .ratio.hi | sqrt) as $mid | if $mid > 1 then $mid else 1 / $mid end | log) as $gap
    | ((.ratio.hi / .ratio.lo | log) / 2) as $half
    | ([$gap / (2 | sqrt), ((1 + $margin) | log) - $gap] | max) as $target
    | (if $target <= 0 then null else .runs * ($half / $target) * ($half / $target) | ceil end) as $needed
    | ($needed - .runs) as $more
    | if (.not_steady | length) > 0 and ($needed == null or $more > 2 * .runs) then
        "longer warm-ups: \(.not_steady | join(", ")) not in steady state (⧗), so the spread is partly the JIT's"
      elif $needed != null and $more <= 2 * .runs then
        "about \([$more, 1] | max | _runs_word) more each (\(.runs | _runs_word) now): a longer budget"
      else "a quieter machine: at this spread, about \($needed // "many" | tostring) runs each (\(.runs | _runs_word) now)" end
  end;

def _verdict_sign: {"decided": " > ", "equal": " = ", "open": " ? "}[.];

# one table's line: its order with the verdict between neighbours, who leads, what is open
def _table_lines:
  .rounds as $r
  | ($r.tie_margin * 1000 | round / 10) as $m
  | [.measured[] | select(.successful_rps.median != null)] as $measured
  | ([$measured[] | select(.not_steady_runs > 0) | .server]) as $unsteady
  | ([$r.entries[]? | {key: .contestant, value: .runs}] | from_entries) as $runs
  | ($r.pairs[0]) as $top
  | "- \(.scenario) · \(.tool): "
    + (if $top == null then "**\($measured[0].server)** alone"
       elif $top.verdict == "decided" then "**\($top.faster)** leads"
       elif $top.verdict == "equal" then "**\($top.faster)** and **\($top.slower)** are tied within \($m)%"
       else "**\($top.faster)** ahead of **\($top.slower)** by its median, not yet decided" end)
    + (if ($r.pairs | length) > 0 then
         ". Order: " + ([$r.pairs[0].faster] + [$r.pairs[] | (.verdict | _verdict_sign) + .slower] | join(""))
         + " (> decided, = equal within \($m)%, ? open)"
       else "" end)
    + ".",
    ($r.pairs[] | select(.verdict == "open")
     | . + {runs: ([$runs[.faster], $runs[.slower]] | map(numbers) | min // 0),
            not_steady: ([.faster, .slower] - ([.faster, .slower] - $unsteady))}
     | "  - open: \(.faster)–\(.slower): \(decider($r.tie_margin))");

def _caps: if length == 1 then "cap \(.[0]) s" else "caps \(map(tostring) | join(", ")) s" end;

def _warmup_lines($rows):
  ([$rows[] | select(.steady_after_s != null)] | sort_by(.steady_after_s)) as $steady
  | ([$rows[] | select(.not_steady > 0)]) as $never
  | if ($rows | length) == 0 then empty
    else
      "- Time to steady state (from the start of load; Warm-up below): "
      + (if ($steady | length) == 0 then "no server reached it"
         elif ($steady | length) == 1 then "\($steady[0].server) (\($steady[0].scenario), \($steady[0].steady_after_s | fmt::fixed(0)) s)"
         else "fastest \($steady[0].server) (\($steady[0].scenario), \($steady[0].steady_after_s | fmt::fixed(0)) s), "
           + "slowest \($steady[-1].server) (\($steady[-1].scenario), \($steady[-1].steady_after_s | fmt::fixed(0)) s)" end)
      + (if ($never | length) == 0 then ""
         else "; not within the cap: " + ([$never[] | "\(.server) (\(.scenario), \(.not_steady) of \(.starts) starts, \(.not_steady_caps | _caps))"] | join(", ")) end)
      + "."
    end;

def warmup_chart:
  [.server_warmups[]? as $w | $w.shapes[] | select((.time_to_steady.rps_by_second // []) | length > 0)
   | {protocol, scenario, server: ($w | _name), run: $w.run, steady_after_s: .time_to_steady.steady_after_s,
      points: .time_to_steady.rps_by_second}]
  | if length == 0 then null
    else (sort_by((if .scenario == "hello" then 0 else 1 end), ({"h1": 0, "h2c": 1, "h2": 2, "h1s": 3, "h3": 4}[.protocol] // 5),
                  .scenario, .protocol) | .[0]) as $first
      | [.[] | select(.protocol == $first.protocol and .scenario == $first.scenario)]
      | {protocol: $first.protocol, scenario: $first.scenario,
         slug: ("warmup-\($first.scenario)-\($first.protocol)" | gsub("[^A-Za-z0-9_.-]"; "_")),
         series: (group_by(.server) | map(min_by(.run)) | sort_by(.server))}
    end;

def warmup_chart_script($dir; colour):
  . as $chart
  | "\($dir)/\(.slug).png" as $file
  | "\($dir)/\(.slug).dat" as $data
  | {file: "\(.slug).png", data_file: "\(.slug).dat",
     data: ([.series[] | "# \(.server | fmt::safe): run \(.run); second of load, successful requests/s",
             (.points | to_entries[] | "\(.key) \(.value)"), "", ""] | join("\n")),
     script: ([
       "set terminal pngcairo size 1000,560 noenhanced font \"Sans,11\"",
       "set output \($file | fmt::gp_string)",
       "set title \("The first seconds of load: \(.scenario), \(.protocol) (each server's first start)" | fmt::gp_string) font \"Sans,14\"",
       "set key outside right top vertical box opaque",
       "set grid ytics lc rgb \"#dddddd\"",
       "set border 3",
       "set tics nomirror",
       "set ylabel \"successful requests/s\"",
       "set xlabel \"second of load (server warm-up)\"",
       "set format y \"%.0f\"",
       "set yrange [0:*]",
       "plot " + ([range(0; .series | length) as $i
                   | "\($data | fmt::gp_string) index \($i) using 1:2 with linespoints lw 2 pt 7 ps 0.6 "
                     + "lc rgb \"\($chart.series[$i].server | colour)\" title \($chart.series[$i].server | fmt::gp_string)"]
                  | join(", \\\n     "))] | join("\n") + "\n")};

def section($tables; $warmups; $chart; $charts; protocol_name):
  ([$tables[] | select(.rounds != null and (.aa | not) and any(.measured[]; .successful_rps.median != null))]) as $ranked
  | if ($ranked | length) == 0 and ($warmups | length) == 0 then empty
    else
      "### Summary",
      "",
      "The verdict first: per protocol, who leads, who is tied within the tie margin (a pair of neighbours is "
      + "decided when the 95% intervals of its successful requests/s are apart, equal when the interval of its "
      + "ratio lies within the margin), which pairs are still open and what would decide them (docs/statistics.md), "
      + "and how long the servers took to reach steady state.",
      "",
      ([$ranked[].protocol, $warmups[].protocol] | unique[] as $p
       | "**\($p | protocol_name)**",
         "",
         ($ranked[] | select(.protocol == $p) | _table_lines),
         _warmup_lines([$warmups[] | select(.protocol == $p)]),
         ""),
      (if ($warmups | length) == 0 then empty
       else
         "#### Warm-up",
         "",
         "Medians over each server's starts: from its start to its first correct response (GET /hello), from the "
         + "start of load to steady state (barrage's rule, docs/steady-state.md; over the starts that reached it), and "
         + "the successful requests/s of the first 5 s of load against the steady rate. Not steady: starts whose "
         + "warm-up cap came first (their rows are ⧗); they have no time to steady state, not the cap's.",
         "",
         "| Protocol | Scenario | Server | Starts | First response | Load → steady | Not steady | First 5 s vs steady |",
         "|:--|:--|:--|--:|--:|--:|--:|--:|",
         ($warmups[]
          | "| \(.protocol | protocol_name) | \(.scenario) | \(.server | gsub("\\|"; "\\|")) | \(.starts)"
            + " | \(if .first_response_s == null then fmt::dash else "\(.first_response_s | fmt::fixed(1)) s" end)"
            + " | \(if .steady_after_s == null then fmt::dash else "\(.steady_after_s | fmt::fixed(0)) s" end)"
            + " | \(if .not_judged > 0 then "not judged (fixed)" elif .not_steady == 0 then "0" else "\(.not_steady) of \(.starts) (\(.not_steady_caps | _caps))" end)"
            + " | \(if .first_5s_share == null then fmt::dash else "\(.first_5s_share * 100 | fmt::fixed(0))%" end) |"),
         "",
         ($chart // empty
          | "![Successful requests/s over the first seconds of load, \(.scenario), \(.protocol)](\($charts)/\(.slug).png)", "")
       end)
    end;
