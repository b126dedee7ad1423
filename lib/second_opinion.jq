# second_opinion: does a second load tool rank the servers as the reference tool does? For the
# README (lib/readme.jq): jdk-client, the Java client, against barrage, per scenario and protocol.
#
#   comparisons($tool; $reference)   model tables -> one entry per scenario x protocol that both
#                          tools measured with 2+ servers in common: {scenario, protocol,
#                          servers (those in common that can be compared), order,
#                          reference_order (best first, by each table's rank), agrees,
#                          differing (pairs the two tools put in opposite orders), client_bound
#                          (the servers left out: a tool was client-bound on them)}; agrees is
#                          null when fewer than 2 servers are left to compare
#   section($tool; $reference)   model tables -> the README's Markdown for them (nothing when
#                          there is nothing to compare)
#
# Only the order of the servers both tools measured counts (the figures differ by design: the
# tools differ). A pair counts as differing only when each tool separates it: with 3+ runs,
# servers a table ranks tied (=, overlapping 95% intervals) are not ordered by that tool.
# A server on which either tool was its own limit (client-bound in some run: lib/rows.sh
# rows::client_bound) never enters the comparison: that figure is the tool's ceiling, and
# ranking ceilings against servers says nothing about the servers (issue 47).

# _places: a table's measured servers -> {server: place}; tied servers share their rank.
def _places:
  if any(.measured[]; .rank != null)
  then [.measured[] | {key: .server, value: .rank}] | from_entries
  else [.measured | to_entries[] | {key: .value.server, value: (.key + 1)}] | from_entries end;

# _order($places; $servers): the servers best first, "a > b" or "a = b" (tied) between them.
def _order($places; $servers):
  [$servers[] | {server: ., place: $places[.]}] | sort_by(.place, .server)
  | reduce .[] as $s ({text: "", last: null};
      .text += (if .last == null then "" elif .last == $s.place then " = " else " > " end) + $s.server
      | .last = $s.place)
  | .text;

def comparisons($tool; $reference):
  . as $tables
  | [$tables[] | select(.tool == $tool) | . as $t
     | $tables[] | select(.tool == $reference and .scenario == $t.scenario and .protocol == $t.protocol) | . as $r
     | ($t | _places) as $tp
     | ($r | _places) as $rp
     | ([$t.measured[], $r.measured[] | select(.client_bound_runs? > 0) | .server] | unique) as $bound
     | [$t.measured[].server | select($rp[.] != null)] as $shared
     | select(($shared | length) >= 2)
     | [$shared[] | select(. as $s | $bound | index([$s]) | not)] as $common
     | [range(0; $common | length) as $i | range($i + 1; $common | length) as $j
        | [$common[$i], $common[$j]]
        | select(($tp[.[0]] - $tp[.[1]]) * ($rp[.[0]] - $rp[.[1]]) < 0)] as $differing
     | {scenario: $t.scenario, protocol: $t.protocol, servers: $common,
        order: _order($tp; $common), reference_order: _order($rp; $common),
        agrees: (if ($common | length) < 2 then null else ($differing | length == 0) end), differing: $differing,
        client_bound: [$shared[] | select(. as $s | $bound | index([$s]))]}];

def _protocol_text: {"h1": "HTTP/1.1", "h2c": "h2c", "h1s": "HTTP/1.1 over TLS", "h2": "h2 (TLS)", "h3": "h3"}[.] // .;

def section($tool; $reference):
  comparisons($tool; $reference) as $rows
  | if ($rows | length) == 0 then empty
    else
      "### Second opinion: \($tool) against \($reference)",
      "",
      "The same servers through another client: \($tool) (Java, `java.net.http` on virtual threads) against "
      + "\($reference). Only the order of the servers both measured is compared; a pair counts as differing when "
      + "the two tools put it in opposite orders (servers a table ranks tied are not ordered). Over h2c, "
      + "\($tool) reaches HTTP/2 by an Upgrade request per connection, made before the measured window. "
      + "A server on which either tool was its own limit (client-bound: the figure is the tool's ceiling) is left out of "
      + "the comparison; with fewer than two servers left, the pair cannot check the ranking. "
      + "The relative ranking agrees in \([$rows[] | select(.agrees == true)] | length) of the "
      + "\([$rows[] | select(.agrees != null)] | length) scenario and protocol pairs that can check"
      + ([$rows[] | select(.agrees == null)] | length | if . > 0 then "; \(.) cannot (client-bound)" else "" end) + ".",
      "",
      "| Scenario | Protocol | \($reference) | \($tool) | Relative ranking |",
      "|:--|:--|:--|:--|:--|",
      ($rows[] | "| \(.scenario) | \(.protocol | _protocol_text) | \(.reference_order) | \(.order) | "
        + (if .agrees == null then "cannot check: client-bound"
           elif .agrees then "agrees"
           else "differs (\(.differing | map(join(" / ")) | join(", ")))" end)
        + (if (.client_bound | length) > 0 then "; left out, client-bound: \(.client_bound | join(", "))" else "" end) + " |"),
      ""
    end;
