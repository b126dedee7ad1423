#!/usr/bin/env bash
# bench-decisive.sh: how decided a run's answer is, against issue 47's targets. Prints figures,
# asserts nothing: what a run reaches depends on the machine and its load, so it is read after a
# run, never checked by a test.
#
#   tests/bench-decisive.sh RESULTS.json...
#
# Per file:
#   pairs   the share of pairs of neighbours decided or equal, over the ranked tables (the
#           results' rounds, lib/rounds.jq; computed with a 3% margin for a file without them);
#           target: at least 80%
#   ⧗ rows  the share of measured rows whose server warm-up hit its cap before steady state
#           (server_warmup.steady false); target: at most 10%
#   tools   the share of tool pairs flagged by "Do the tools agree?" (lib/agree.jq) among those
#           that can check (neither row client-bound); target: at most 10%
#   warm-up the median time to steady state and the starts that never reached it (server_warmups)
# Exit status 2 for a usage error or a file that is not a results file; 0 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

report() {
  jq -r -L "$ROOT/lib" --arg file "$1" '
    import "rounds" as rounds;
    import "readme" as readme;
    import "agree" as agree;
    def pct($n; $d): if $d == 0 then "-" else "\($n * 1000 / $d | round / 10)%" end;
    def met($ok): if $ok == null then "" elif $ok then " (target met)" else " (target not met)" end;
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    (.rounds.tables // rounds::tables(.settings.tie_margin // 0.03; 3; [])) as $tables
    | [$tables[] | select(.cross_check | not) | .counts] as $c
    | ([$c[].decided] | add // 0) as $d | ([$c[].equal] | add // 0) as $e | ([$c[].open] | add // 0) as $o
    | [.results[] | select(.status == "ok")] as $ok
    | ([$ok[] | select(.server_warmup.steady? == false)] | length) as $unsteady
    | ([readme::model("") | .tables | agree::comparisons[] | .pairs[] | select(.client_bound | not)]) as $can
    | ([$can[] | select(.flagged)] | length) as $flagged
    | [.server_warmups[]?.shapes[]? | .time_to_steady // empty] as $tts
    | "\($file)",
      "  pairs of neighbours decided or equal: \($d + $e) of \($d + $e + $o) (\(pct($d + $e; $d + $e + $o)); \($d) decided, \($e) equal, \($o) open)"
        + met(if $d + $e + $o == 0 then null else ($d + $e) / ($d + $e + $o) >= 0.8 end),
      "  rows not in steady state (⧗): \($unsteady) of \($ok | length) (\(pct($unsteady; $ok | length)))"
        + met(if ($ok | length) == 0 then null else $unsteady / ($ok | length) <= 0.1 end),
      "  tool pairs flagged among those that can check: \($flagged) of \($can | length) (\(pct($flagged; $can | length)))"
        + met(if ($can | length) == 0 then null else $flagged / ($can | length) <= 0.1 end),
      (if ($tts | length) == 0 then "  time to steady state: none recorded"
       else "  time to steady state: median \([$tts[].steady_after_s | numbers] | median | if . == null then "-" else . * 10 | round / 10 end) s after load began over \([$tts[] | select(.verdict == "steady")] | length) warm-ups; "
         + "\([$tts[] | select(.verdict == "not reached")] | length) of \($tts | length) not within their cap" end)' "$1"
}

if (($# == 0)) || [[ $1 == -h || $1 == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
for file in "$@"; do
  if ! jq -e 'type == "object" and has("results")' "$file" >/dev/null 2>&1 || [[ ! -s $file ]]; then
    echo "bench-decisive: $file: not a results file" >&2
    exit 2
  fi
  report "$file"
done
