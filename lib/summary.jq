# summary: the run summary's fields per results row, for run-benchmarks.sh's table
# (jq -L lib 'import "summary" as summary; .results[] | summary::fields | @tsv').
#
#   fields   row -> [its name (noise::row_name: server, jetty@A, jetty:vt), tool, protocol, scenario, run, status, req/s, p99 µs, errors, note];
#            "-" for a number the row lacks; every string made safe for a terminal (format.jq's
#            safe: no control character, so no tab or newline to split a @tsv field either)
#   note     row -> why a row is skipped or failed, a rate not delivered (a ramp: where delivery
#            first fell short), the capacity found, a
#            broken SLO, a client-bound tool, steal time large enough to lower the figures, a
#            server warm-up that never reached steady state, a drifting series (lib/drift.jq), and
#            a churn row's connections/s and handshakes/s or an idle row's RSS per idle connection
#            ("" when none)
#   pair_lines  results file -> per ranked table of its rounds (lib/rounds.jq) the pairs of
#            neighbours decided, equal and open (the open ones named) and each server's runs,
#            then the total; nothing for a file without rounds
#   warmup_lines  results file -> one line per server start and warmed shape (server_warmups):
#            time to its first correct response, from the start of load to steady state (or
#            why there is no such figure), and the first 5 s of load against the steady rate;
#            nothing for a file without server warm-ups
#   steal_note_pct  the steal share (of all CPUs' time, machine_stats.steal_pct) from which a
#            row is noted: on the development VM requests/s fell with steal (r = -0.81 over
#            30 runs) and every pinned run at 5% or more was below its set's median
#            (docs/statistics.md)

import "format" as fmt;
import "noise" as noise;
import "rounds" as rounds;

def steal_note_pct: 5;

def shown: if type == "number" then floor | tostring else "-" end;

def note:
  [(.reason // empty),
   (.metrics.rate? | select(. != null and .delivered == false) | "not delivered: achieved \(.achieved | floor)/s, backlog \(.backlog_max)"),
   (.metrics.rate.first_short? | select(. != null) | "delivery fell short at \(.target_rate | floor)/s offered (second \(.t_s | floor))"),
   (.capacity? | select(. != null) | if .capacity_rps == null then "no rate met \(.conditions | join(","))"
      else "capacity \(.capacity_rps)/s\(if .confirmed == false then " (not confirmed)" else "" end)" end),
   (.slo? | select(. != null and .met == false) | "SLO not met: " + ([.conditions[] | select(.met == false) | .condition] | join(", "))),
   (select(.client_bound == true) | "client-bound: the tool was busy \(.client_stats | .busy_pct // .cpu_pct)% of \(.client_stats.cores) core(s)"),
   (.machine_stats.steal_pct? | select(. != null and . >= steal_note_pct) | "steal \(.)%: the hypervisor took CPU time from this machine"),
   (.server_warmup? | select(. != null and .steady == false) | "server not in steady state (warm-up cap \(.seconds | floor)s hit)"),
   (.drift? | select(. != null and .status == "drifting") | "drifting: \(.change * 100 | round)% across the window (Mann-Kendall z \(.z))"),
   (.connection? | select(. != null and .mode == "churn")
    | "\(.connections_per_s // "-") conn/s" + (if .handshakes_per_s == null then "" else ", \(.handshakes_per_s) handshakes/s (\(.handshakes_resumed) resumed)" end)),
   (.connection? | select(. != null and .mode == "idle")
    | "\(.idle_open_at_end // "-") idle open, \(.server_rss_kb_per_idle_connection // "-") kB RSS/idle conn, busy p99 \(.busy_latency_p99_us // "-") us")]
  | join("; ");

def fields:
  [noise::row_name, .tool, .protocol,
   .scenario + (if .load.mode == "rate" then " @\(.load.target_rps)/s" elif .load.mode == "capacity" then " capacity"
                elif .load.mode == "stages" then " ramped" else "" end),
   (.run | tostring), .status,
   (.metrics.rps? | shown),
   # a rate not delivered has no latency to show (the note says what was achieved)
   (if .metrics.rate.delivered? == false then "-" else .metrics.latency_us.p99? | shown end),
   (.metrics.failed? | shown), note]
  | map(fmt::safe);

# pair_lines: results file -> one line per ranked table of its rounds (lib/rounds.jq): how many
# pairs of neighbours are decided, equal, open, and which are open; then the total.
def pair_lines:
  (.rounds // null) as $r
  | if $r == null then empty
    else
      ($r.tables[] | select((.cross_check | not) and (.pairs | length) > 0)
       | "\(.scenario) \(.protocol) \(.tool): \(.counts.decided) decided, \(.counts.equal) equal, \(.counts.open) open"
         + (if .counts.open > 0 then " (" + ([.pairs[] | select(.verdict == "open") | "\(.faster)-\(.slower)"] | join(", ")) + ")" else "" end)
         + "; runs: " + ([.entries[] | select(.ok > 0) | "\(.contestant) \(.runs)"] | join(", "))),
      "pairs of neighbours, tie margin \($r.tie_margin * 1000 | round / 10)%: " + ($r | rounds::counts_text)
        + (if $r.ended == "budget" then " (the budget ended)" elif $r.ended == "decided" then " (every pair judged before the budget ended)" else "" end)
    end
  | fmt::safe;

# warmup_lines: results file -> per server start and shape, its time to steady state in words.
def warmup_lines:
  def secs: if . == null then "-" else "\(. * 10 | round / 10) s" end;
  .server_warmups[]? as $w
  | $w.shapes[] | select(.time_to_steady != null) | .time_to_steady as $t
  | "time to steady state: \($w.variant // ($w.server + (if $w.aa_group then "@\($w.aa_group)" else "" end))) \(.protocol) \(.scenario) run \($w.run): "
    + "first response \($w.first_response_s | secs); "
    + (if $t.steady_after_s != null then "steady \($t.steady_after_s | secs) after load began (at \($t.load_started_s | secs))"
       else $t.reason end)
    + (if $t.first_5s_rps == null then ""
       else "; first 5 s \($t.first_5s_rps | floor)/s"
            + (if $t.first_5s_share == null then "" else " = \($t.first_5s_share * 100 | round)% of steady \($t.steady_rps | floor)/s" end) end)
  | fmt::safe;
