#!/usr/bin/env bash
# bench-budget.sh: how honest run-benchmarks.sh's time estimates are (issue 37). Prints figures,
# asserts nothing: an estimate's accuracy depends on the machine and its load, so it is reported
# here, never checked by a test.
#
#   tests/bench-budget.sh RESULTS.json...     the figures of results files already written
#   tests/bench-budget.sh --run OPTION...      a run of ./run-benchmarks.sh OPTION... (its results
#                                              in a temp folder, kept), then its figures
#   tests/bench-budget.sh --fake [BUDGET]      a budgeted run (default 3m) of three fixture servers
#                                              (tests/fixtures/dist-wrk's fake wrk: 1200, 1000 and
#                                              990/s, 1% noise), then its figures
#
# Per file: the plan's estimate when the run began (its first round in a budgeted run, the whole
# plan in a fixed one: results' rounds.estimate_s) against what that took (rounds.first_s), and
# for a budgeted run every turn's estimate against what it took (the ratio's median and range,
# the largest overrun) and the budget against the time spent.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

report() {
  jq -r --arg file "$1" '
    def pct: . * 100 | round | tostring + "%";
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    .rounds as $r
    | if $r == null then "\($file): no rounds (a file written before budgets)"
      else
        "\($file)",
        "  plan: \(if .settings.budget_s == null then "fixed, \(.settings.runs) round(s)" else "budget \(.settings.budget_s) s, \($r.rounds) round(s), ended: \($r.ended)" end)",
        (if $r.estimate_s != null and ($r.first_s // 0) > 0 then
           "  \(if .settings.budget_s == null then "whole plan" else "first round" end): estimated \($r.estimate_s) s, took \($r.first_s) s: estimate / actual \($r.estimate_s / $r.first_s * 100 | round)% (error \(($r.estimate_s - $r.first_s) / $r.first_s | pct))"
         else "  no estimate recorded" end),
        ([$r.turns[] | select(.started and (.took_s // 0) > 0)] as $t
         | if ($t | length) == 0 then empty
           else ([$t[] | .estimate_s / .took_s]) as $ratio
             | "  turns: \($t | length) started, \([$r.turns[] | select(.started | not)] | length) not started; estimate / actual median \($ratio | median * 100 | round)%, range \($ratio | min * 100 | round)%-\($ratio | max * 100 | round)%; largest overrun \([$t[] | .took_s - .estimate_s] | max) s",
               "  later rounds only: estimate / actual median \([$t[] | select(.run > 1) | .estimate_s / .took_s] | median // null | if . == null then "-" else . * 100 | round | tostring + "%" end)"
           end),
        (if $r.budget_s != null then "  budget \($r.budget_s) s, spent \($r.spent_s) s (\($r.spent_s / $r.budget_s | pct) of it)" else empty end)
      end' "$1"
}

fake_run() {
  local budget=${1:-3m} dir name
  dir=$(mktemp -d "${TMPDIR:-/tmp}/bench budget.XXXX")
  export FAKE_DIST_CURRENT=$dir/current FAKE_DIST_fast='1200 0.01' FAKE_DIST_mid='1000 0.01' FAKE_DIST_near='990 0.01'
  for name in fast mid near; do
    mkdir -p "$dir/servers/$name"
    printf 'name=%s\nversion=1.0-bench\nprotocols=h1\n' "$name" >"$dir/servers/$name/server.properties"
    # shellcheck disable=SC2016 # the fixture server's own script
    printf '#!/usr/bin/env bash\necho %s >"$FAKE_DIST_CURRENT"\nexec python3 %q\n' "$name" \
      "$ROOT/tests/fixtures/fake-servers/contract_server.py" >"$dir/servers/$name/start.sh"
    chmod +x "$dir/servers/$name/start.sh"
  done
  PATH="$ROOT/tests/fixtures/dist-wrk:$PATH" BARRAGE_SERVERS_DIR=$dir/servers "$ROOT/run-benchmarks.sh" \
    --output "$dir/out" --duration 1s --warmup 0s --server-warmup 0s --connections 4 --tool wrk --scenarios hello \
    --budget "$budget" --port "$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')" \
    >/dev/null 2>"$dir/stderr" || true
  report "$(find "$dir/out" -maxdepth 1 -name '*.json' | head -n 1)"
  rm -rf -- "$dir"
}

case ${1:-} in
  ''|-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --fake) fake_run "${2:-}" ;;
  --run)
    shift
    out=$(mktemp -d "${TMPDIR:-/tmp}/bench budget.XXXX")
    "$ROOT/run-benchmarks.sh" --output "$out" "$@" >/dev/null || true
    report "$(find "$out" -maxdepth 1 -name '*.json' | head -n 1)"
    echo "(results kept in $out)" ;;
  *) for file in "$@"; do report "$file"; done ;;
esac
