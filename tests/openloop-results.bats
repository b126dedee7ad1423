#!/usr/bin/env bats
# What update-readme.sh and compare-results.sh make of fixed-rate rows, capacity searches and
# SLOs (--rates, --capacity, --slo), from the recorded files under tests/fixtures/openloop/
# (base.json and new.json) and variants of them made here. No server, no load: these run
# beside the other files that time nothing (run-tests.sh's BATS_PARALLEL_FILES); the runs
# that make such rows are tested in openloop.bats.

load test_helper

setup() { common_setup; }

teardown() { common_teardown; }

@test "update-readme: fixed-rate tables (not delivered: no latency), capacity beside peak, SLO marks, their charts" {
  local readme=$TMP/README.md charts=$TMP/charts section
  printf '# P\n' >"$readme"
  run "$ROOT/update-readme.sh" --file "$ROOT/tests/fixtures/openloop/base.json" --readme "$readme" --charts "$charts"
  echo "$output"
  [ "$status" -eq 0 ]
  section=$(<"$readme")
  # the closed-loop table holds the closed-loop row only
  [ "$(sed -n '/^### hello · HTTP\/1.1 · barrage/,/^###/p' "$readme" | grep -c '^| loaded')" -eq 1 ]
  [[ $section == *"| loaded | 100 | 100 | 7.53 ms | 18.0 ms | 24.4 ms | 0% |"* ]]
  grep -qxF '| loaded | 400 | 45 | not delivered: backlog up to 710 requests | – | – | 0% |' "$readme"
  [[ $section == *"the highest rate with p99&lt;100ms"* ]]
  grep -qxF '| loaded | 18 (not confirmed) | 168 | 19/s: not delivered (achieved 19/s) |' "$readme"
  local chart
  for chart in rates-latency-hello-h1-barrage rates-p99-hello-h1-barrage capacity-hello-h1-barrage; do
    [[ $section == *"(charts/$chart.png)"* ]]
    [ "$(head -c 4 "$charts/$chart.png" | tail -c 3)" = PNG ]
  done
  # a file whose rows broke their SLO: marked in both kinds of table, explained
  run "$ROOT/update-readme.sh" --file "$ROOT/tests/fixtures/openloop/new.json" --readme "$readme" --charts "$charts"
  [ "$status" -eq 0 ]
  grep -q '^| loaded ✗ | 100 | 100 | not delivered' "$readme"
  grep -q '^| loaded ✗ | 222 | ' "$readme"
  # wrk's rate rows were skipped: no fixed-rate table of wrk
  if grep -q '^#### hello · h1 · wrk' "$readme"; then return 1; fi
  grep -qF '✗ SLO not met' "$readme"
}

@test "compare-results --slo: a row that breaks a condition the base met is a regression, whatever the statistics say" {
  run "$ROOT/compare-results.sh" "$ROOT/tests/fixtures/openloop/base.json" "$ROOT/tests/fixtures/openloop/new.json"
  [ "$status" -eq 0 ]
  [[ $output != *"SLO"* ]]
  run "$ROOT/compare-results.sh" --slo 'hello:p99<100ms' "$ROOT/tests/fixtures/openloop/base.json" "$ROOT/tests/fixtures/openloop/new.json"
  echo "$output"
  [ "$status" -eq 1 ]
  # base met it at 100/s (delivered, p99 18 ms); new did not deliver 100/s. 400/s broke it in both.
  [[ $output == *"SLO regressions"*"loaded hello h1 barrage @100/s: delivered"* ]]
  [[ $output != *"@400/s:"* ]]
  [[ $output == *"(gate: absolute, exit 1)"* ]]
  run "$ROOT/compare-results.sh" --format json --slo 'hello:p99<100ms' "$ROOT/tests/fixtures/openloop/base.json" "$ROOT/tests/fixtures/openloop/new.json"
  [ "$status" -eq 1 ]
  [ "$(jq -c .slo_regressions <<<"$output")" = '["loaded hello h1 barrage @100/s: delivered"]' ]
  run "$ROOT/compare-results.sh" --slo 'hello:p99<' "$ROOT/tests/fixtures/openloop/base.json" "$ROOT/tests/fixtures/openloop/new.json"
  [ "$status" -eq 2 ]
}

@test "compare-results: a capacity that fell beyond the threshold and the search's precision is a regression" {
  # capacity FILE RATE [PRECISION]: the fixture's capacity search with that capacity (and precision)
  capacity() {
    jq --argjson rate "$2" --argjson precision "${3:-0.05}" '.results |= map(if .load.mode? == "capacity"
      then .capacity.capacity_rps = $rate | .capacity.precision = $precision | .load.precision = $precision else . end)' \
      "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/$1.json"
  }
  verdict() { jq -r '.capacity[0].verdict' <<<"$output"; }
  capacity base 100
  capacity new 90
  run "$ROOT/compare-results.sh" "$TMP/base.json" "$TMP/new.json"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"Capacity"*"loaded  hello     h1        barrage"*"100/s"*"90/s"*"-10.0%"*"regression"* ]]
  [[ $output == *"capacity: 1 regression (gate: absolute, exit 1)"* ]]
  # within the 5% threshold: unchanged
  capacity new 96
  run "$ROOT/compare-results.sh" --format json "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 0 ]
  [ "$(verdict)" = unchanged ]
  # a search as coarse as 12% cannot tell 10% apart
  capacity base 100 0.12
  capacity new 90 0.12
  run "$ROOT/compare-results.sh" --format json "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 0 ]
  [ "$(verdict)" = unchanged ]
  [ "$(jq '.capacity[0].threshold' <<<"$output")" = 0.12 ]
  # no rate met in NEW where BASE met one; none met in BASE: not judged
  capacity base 100
  capacity new null
  run "$ROOT/compare-results.sh" --format json "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 1 ]
  [ "$(verdict)" = regression ]
  [ "$(jq -r '.capacity[0].why' <<<"$output")" = "no rate met" ]
  run "$ROOT/compare-results.sh" --format json "$TMP/new.json" "$TMP/base.json"
  [ "$status" -eq 0 ]
  [ "$(verdict)" = "not judged" ]
  # shown, but not gating, when --fail-on leaves capacity out or the relative view gates
  capacity new 50
  run "$ROOT/compare-results.sh" --fail-on rps,p99,errors "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 0 ]
  [[ $output == *"-50.0%"*"regression"* ]]
  run "$ROOT/compare-results.sh" --gate relative "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 0 ]
  run "$ROOT/compare-results.sh" --format markdown "$TMP/base.json" "$TMP/new.json"
  [ "$status" -eq 1 ]
  [[ $output == *"| loaded | hello | h1 | barrage | p99<100ms | 100/s | 50/s | -50.0% | regression |"* ]]
}

@test "compare-results --slo: a capacity search's row is not gated (its run is at the edge of its own conditions)" {
  # The same file twice but for the capacity row and the @100/s row: both within the gate in
  # BASE, far beyond it in NEW. The @100/s row shows the gate was applied; only it regressed.
  jq '.results |= map(if .load.mode == "capacity" then .metrics.rate.delivered = true | .metrics.latency_us.p99 = 1000 else . end)' \
    "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/base.json"
  jq '.results |= map(if .load.mode == "capacity" or .load.target_rps == 100 then .metrics.latency_us.p99 = 900000 else . end)' \
    "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/new.json"
  run "$ROOT/compare-results.sh" --format json --slo 'hello:p99<100ms' "$TMP/base.json" "$TMP/new.json"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(jq -c .slo_regressions <<<"$output")" = '["loaded hello h1 barrage @100/s: p99<100ms"]' ]
}

@test "openloop: the SLO lines of the exit status show a results file's control characters, never print them raw" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/openloop.sh"
  # a server name that would clear the line and print a clean verdict over it
  jq '(.results[] | select(.slo.met == false) | .server) |= "net\u001b[2K\rty"' \
    "$ROOT/tests/fixtures/openloop/new.json" >"$TMP/crafted.json"
  run openloop::slo_exit_status "$TMP/crafted.json"
  [ "$status" -eq 3 ]
  [[ $output == *"SLO not met (exit 3)"* ]]
  [[ $output == *'net^[[2K^Mty'* ]]
  [[ $output != *$'\e'* && $output != *$'\r'* ]]
}
