# agree: do the load tools tell the same story? For the README (lib/readme.jq, issues 21 and
# 47): each tool's successful requests/s on a server against barrage's on the same server JVM.
#
#   same_jvm        results' cross_checks -> one entry per scenario x protocol x tool (not the
#                   reference) with its pairs: {scenario, protocol, tool, same_jvm: true, pairs:
#                   [{server, ratio (tool / the mean of the reference windows before and after
#                   it; the median over the starts), noise, windows (starts compared),
#                   client_bound, flagged}]}
#   comparisons     model tables -> the same from each table's medians, for results files
#                   without cross_checks (tools measured one after the other, whole tables
#                   apart): same_jvm false
#   section         the README model ({tables, meta}) -> the README's Markdown (nothing when there
#                   is no pair): from meta.cross_checks when the file has them, else comparisons
#
# On one JVM (lib/measure.sh) the reference tool measures before and after each other tool's
# window, so a difference is the tools' and not the JIT's from one start to the next. A pair's
# noise is the larger of default_noise and how far the two reference windows around the tool's
# differ (the server's own drift over that time). From tables, it is the larger of the two
# medians' relative 95% half-widths with 3+ runs, else default_noise. A pair is flagged when
# |ratio - 1| is beyond its noise. A pair where a tool was client-bound (its own limit:
# lib/rows.sh rows::client_bound) cannot check throughput: it is shown (†), never flagged
# and not counted among the pairs that can check.

def default_noise: 0.10;

def _noise($a; $b):
  [$a, $b | .successful_rps.interval.factor? // null | select(. != null) | . - 1] as $n
  | if ($n | length) == 2 then ($n | max) else default_noise end;

def comparisons:
  . as $tables
  | [$tables[] | select(.tool == "barrage") | . as $b
     | $tables[] | select(.tool != "barrage" and .scenario == $b.scenario and .protocol == $b.protocol) | . as $t
     | ([$b.measured[] | {key: .server, value: .}] | from_entries) as $bs
     | [$t.measured[] | select($bs[.server] != null and .successful_rps.median != null
                               and ($bs[.server].successful_rps.median // 0) > 0) | . as $e
        | $bs[$e.server] as $be
        | ($e.successful_rps.median / $be.successful_rps.median) as $ratio
        | _noise($e; $be) as $noise
        | ($e.client_bound_runs > 0 or $be.client_bound_runs > 0) as $bound
        | {server: $e.server, ratio: $ratio, noise: $noise, client_bound: $bound,
           flagged: ((($ratio - 1) | fabs) > $noise and ($bound | not))}] as $pairs
     | select(($pairs | length) > 0)
     | {scenario: $b.scenario, protocol: $b.protocol, tool: $t.tool, same_jvm: false, pairs: $pairs}];

def _median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# _triples: one cross_checks entry -> each checked window with the reference windows around it:
# {server, scenario, protocol, tool, ratio, drift, client_bound}; windows that failed are left out.
def _triples:
  . as $c
  | .windows as $w
  | range(1; ($w | length) - 1) as $i
  | select($w[$i].role == "checked")
  | [$w[$i - 1], $w[$i], $w[$i + 1]] as [$before, $tool, $after]
  | select(all($before, $tool, $after; .status == "ok" and .successful_rps != null)
           and $before.successful_rps + $after.successful_rps > 0)
  | (($before.successful_rps + $after.successful_rps) / 2) as $reference
  | {server: $c.contestant, scenario: $c.scenario, protocol: $c.protocol, tool: $tool.tool,
     ratio: ($tool.successful_rps / $reference),
     drift: ((($before.successful_rps - $after.successful_rps) | fabs) / $reference),
     client_bound: any($before, $tool, $after; .client_bound == true)};

def same_jvm:
  [.[] | _triples]
  | group_by([.scenario, .protocol, .tool])
  | map(. as $g
        | {scenario: $g[0].scenario, protocol: $g[0].protocol, tool: $g[0].tool, same_jvm: true,
           pairs: ($g | group_by(.server)
                   | map((map(.ratio) | _median) as $ratio
                         | ([default_noise] + map(.drift) | max) as $noise
                         | any(.[]; .client_bound) as $bound
                         | {server: .[0].server, ratio: $ratio, noise: $noise, windows: length, client_bound: $bound,
                            flagged: ((($ratio - 1) | fabs) > $noise and ($bound | not))}))});

def _protocol_text: {"h1": "HTTP/1.1", "h2c": "h2c", "h1s": "HTTP/1.1 over TLS", "h2": "h2 (TLS)", "h3": "h3"}[.] // .;
def _pct: . * 100 | round | if . > 0 then "+\(.)%" else "\(.)%" end;

def _counts($rows):
  [$rows[].pairs[] | select(.client_bound | not)] as $can
  | "\([$can[] | select(.flagged)] | length) of the \($can | length) pairs that can check are flagged"
    + ([$rows[].pairs[] | select(.client_bound)] | length
       | if . > 0 then "; \(.) cannot check throughput (†: a tool was its own limit, client-bound)" else "" end)
    + ".";

def section:
  (.meta.cross_checks // []) as $checks
  | (if ($checks | length) > 0 then $checks | same_jvm else .tables | comparisons end) as $rows
  | if ($rows | length) == 0 then empty
    else
      "### Do the tools agree?",
      "",
      (if ($checks | length) > 0
       then "Each tool's successful requests/s on a server against barrage's on the same server JVM, scenario and protocol "
         + "(+12% = 12% more than barrage): after the server's warm-up, barrage and the other tools take turns on one "
         + "start (barrage, tool, barrage, next tool, barrage...; the run's log says the order), and each tool's window is "
         + "compared with the mean of barrage's two windows around it, so that a difference is the tools' and not the "
         + "JIT's from one start to the next. A pair is flagged ⚑ when it differs by more than \(default_noise * 100 | round)% "
         + "or than barrage's two windows differ from each other, whichever is larger. A tool that was its own limit "
         + "(client-bound, †) measured its ceiling, not the server: such a pair cannot check throughput and is not counted. "
       else "Each tool's successful requests/s on a server against barrage's on the same server, scenario and protocol "
         + "(+12% = 12% more than barrage), from each table's medians. This results file predates the tools' turns on one "
         + "JVM: each tool measured its own windows, whole tables apart, so a flag mixes the tools' difference with the "
         + "server's from one window to the next. A pair is flagged ⚑ when it differs by more than the run's noise (the "
         + "larger 95% interval of the two with 3+ runs; \(default_noise * 100 | round)% with fewer, which cannot "
         + "measure it); a pair where a tool was client-bound (†: the figure is that tool's ceiling) cannot check throughput. "
       end)
      + _counts($rows)
      + " Drift is tested on barrage's per-second series only: for the other tools it is unknown.",
      "",
      "| Scenario | Protocol | Tool | Against barrage |",
      "|:--|:--|:--|:--|",
      ($rows[] | "| \(.scenario) | \(.protocol | _protocol_text) | \(.tool) | "
        + ([.pairs[] | "\(.server) \(.ratio - 1 | _pct)\(if .client_bound then " †" elif .flagged then " ⚑" else "" end)"]
           | join(", ")) + " |"),
      ""
    end;
