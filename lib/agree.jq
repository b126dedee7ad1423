# agree: do the load tools tell the same story? For the README (lib/readme.jq, issue 21): per
# scenario and protocol, each tool's successful requests/s on a server against barrage's on the
# same server.
#
#   comparisons   model tables -> one entry per scenario x protocol x tool (not barrage) that
#                 shares servers with barrage's table: {scenario, protocol, tool, pairs: [{server,
#                 ratio (tool / barrage, medians), noise (the pair's noise, a fraction), flagged,
#                 client_bound}]}
#   section       model tables -> the README's Markdown (nothing when there is no pair)
#
# The run's noise for a pair: with confidence intervals (3+ runs), the larger of the two
# medians' relative 95% half-widths (interval.factor - 1); otherwise default_noise, since
# one or two runs cannot measure it. A pair is flagged when |ratio - 1| is beyond that noise
# and neither row was client-bound (a client-bound figure is the tool's ceiling: it says
# nothing about the server).

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
     | {scenario: $b.scenario, protocol: $b.protocol, tool: $t.tool, pairs: $pairs}];

def _protocol_text: {"h1": "HTTP/1.1", "h2c": "h2c", "h1s": "HTTP/1.1 over TLS", "h2": "h2 (TLS)", "h3": "h3"}[.] // .;
def _pct: . * 100 | round | if . > 0 then "+\(.)%" else "\(.)%" end;

def section:
  comparisons as $rows
  | if ($rows | length) == 0 then empty
    else
      "### Do the tools agree?",
      "",
      "Each tool's successful requests/s on a server against barrage's on the same server, scenario and protocol "
      + "(+12% = 12% more than barrage). A pair is flagged ⚑ when it differs by more than the run's noise (the "
      + "larger 95% interval of the two with 3+ runs; \(default_noise * 100 | round)% with fewer, which cannot "
      + "measure it) and neither tool was client-bound (†: the figure is that tool's ceiling). "
      + "\([$rows[].pairs[] | select(.flagged)] | length) of \([$rows[].pairs[]] | length) pairs are flagged. "
      + "Drift is tested on barrage's per-second series only: for the other tools it is unknown.",
      "",
      "| Scenario | Protocol | Tool | Against barrage |",
      "|:--|:--|:--|:--|",
      ($rows[] | "| \(.scenario) | \(.protocol | _protocol_text) | \(.tool) | "
        + ([.pairs[] | "\(.server) \(.ratio - 1 | _pct)\(if .client_bound then " †" elif .flagged then " ⚑" else "" end)"]
           | join(", ")) + " |"),
      ""
    end;
