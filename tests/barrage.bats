#!/usr/bin/env bats
# barrage's driver for run-benchmarks.sh (lib/tools/barrage.sh): what it supports, parsing of
# recorded outputs (tests/fixtures/barrage/), and one short real run against the C client's
# test server (client/tests/server.py) on a free 127.0.0.1 port.

load test_helper

setup() {
  common_setup
  F=$ROOT/tests/fixtures/barrage
  # shellcheck source=SCRIPTDIR/../lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=SCRIPTDIR/../lib/deps.sh
  source "$ROOT/lib/deps.sh"
  # shellcheck source=SCRIPTDIR/../lib/schema.sh
  source "$ROOT/lib/schema.sh"
  # shellcheck source=SCRIPTDIR/../lib/scenarios.sh
  source "$ROOT/lib/scenarios.sh"
  # shellcheck source=SCRIPTDIR/../lib/tools.sh
  source "$ROOT/lib/tools.sh"
  # shellcheck source=SCRIPTDIR/../lib/tools/barrage.sh
  source "$ROOT/lib/tools/barrage.sh"
}

teardown() { common_teardown; }

@test "barrage driver: h1, h2c, h1s, h2 and h3, every scenario (mixed too: it runs the scenario's script)" {
  run barrage::protocols
  [ "$output" = $'h1\nh2c\nh1s\nh2\nh3' ]
  run barrage::supports mixed h3
  [ "$status" -eq 0 ] # run-tests.sh's deps stage installs the QUIC libraries barrage is built with
  run barrage::supports baseline h1
  [ "$status" -eq 0 ]
  run barrage::supports baseline h2c
  [ "$status" -eq 0 ]
  run barrage::supports baseline h1s
  [ "$status" -eq 0 ]
  run barrage::supports baseline h2
  [ "$status" -eq 0 ]
  run barrage::supports baseline h9
  [ "$status" -eq 1 ]
  [[ $output == *"no h9"* ]]
  run barrage::supports mixed h1
  [ "$status" -eq 0 ]
  run barrage::supports mixed h2c
  [ "$status" -eq 0 ]
}

@test "barrage driver: a barrage built without HTTP/3 has its h3 rows skipped, naming the packages" {
  # what a build without the QUIC libraries prints (client/src/report.c)
  printf '#!/bin/sh\necho "barrage 0.1.0"\necho "protocols: http/1.1 h2c h2 (no h3: built without libngtcp2/libnghttp3)"\n' \
    >"$TMP/barrage"
  chmod +x "$TMP/barrage"
  BARRAGE_BIN=$TMP/barrage run barrage::supports hello h3
  [ "$status" -eq 1 ]
  [[ $output == "barrage was built without HTTP/3: install libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev"* ]]
  BARRAGE_BIN=$TMP/barrage run barrage::supports hello h2c
  [ "$status" -eq 0 ]
  printf '#!/bin/sh\necho "barrage 0.1.0"\necho "protocols: http/1.1 h2c h2 h3 (ngtcp2 0.12.1, nghttp3 0.8.0)"\n' >"$TMP/barrage"
  BARRAGE_BIN=$TMP/barrage run barrage::supports hello h3
  [ "$status" -eq 0 ]
}

@test "barrage driver: builds barrage and reports its version" {
  run barrage::version
  [ "$status" -eq 0 ]
  [[ $output =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "barrage driver: parse passes the --json record through, valid against the schema" {
  run barrage::parse "$F/statuses.json"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" > "$TMP/record one.json"
  schema::validate "$ROOT/schemas/metrics.schema.json" "$TMP/record one.json"
  [ "$(jq -c '.status.codes' "$TMP/record one.json")" = '{"200":100,"301":50,"404":50,"429":50,"500":50,"502":50,"503":50}' ]
  [ "$(jq -r '.started == .requests + .aborted' "$TMP/record one.json")" = true ]
}

@test "barrage driver: parse picks barrage's record out of what the script printed (json-report.lua's wrk-style line)" {
  # recorded: barrage --json -s scenarios/mixed.lua, stdout and stderr in one file as tools::exec writes it
  grep -q '^{"requests":100,.*"accounting":"approximate"' "$F/mixed-script.txt"
  run barrage::parse "$F/mixed-script.txt"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.tool + " " + (.requests | tostring) + " " + .accounting' <<<"$output")" = "barrage 100 exact" ]
  [ "$(wc -l <<<"$output")" -eq 1 ]
}

@test "barrage driver: parse of an unreachable target fails and quotes barrage" {
  run barrage::parse "$F/unreachable.txt"
  [ "$status" -eq 1 ]
  [[ $output == *"cannot connect"* ]]
}

@test "barrage driver: run measures a real server and writes a valid record" {
  test_server ok
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=baseline connections=4
  run barrage::run spec
  [ "$status" -eq 0 ]
  schema::validate "$ROOT/schemas/metrics.schema.json" "$TMP/out.json"
  [ "$(jq -r '.succeeded > 0 and .failed == 0 and .accounting == "exact"' "$TMP/out.json")" = true ]
  # started where a request starts, the buckets where it ends: the identity that can fail
  assert_jq '.started == .requests + .aborted' "$TMP/out.json"
  # what the server sent (GET /_sent): every 200 in the record, short by at most the aborted
  curl -sf "http://127.0.0.1:$PORT/_sent" > "$TMP/sent.json"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --slurpfile sent "$TMP/sent.json" '$sent[0]["status 200"] as $n | ($sent[0] | keys) == ["status 200"]
    and .status.codes == {"200": .succeeded} and .succeeded <= $n and $n - .succeeded <= .aborted' "$TMP/out.json"
}

@test "barrage driver: run measures mixed over h1 with the scenario's script, done()'s output kept in the raw log" {
  contract_server
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=mixed connections=4
  run barrage::run spec
  [ "$status" -eq 0 ]
  schema::validate "$ROOT/schemas/metrics.schema.json" "$TMP/out.json"
  [ "$(jq -r '.succeeded > 0 and .failed == 0 and .accounting == "exact"' "$TMP/out.json")" = true ]
  # the script's done() line (wrk's record format) is in the raw log, beside barrage's record
  grep -q '"accounting":"approximate"' "$TMP/barrage.json"
}

@test "barrage driver: a scenario script that fails is a failed run" {
  mkdir -p "$TMP/scenarios dir"
  printf 'function response() error("broken on purpose") end\n' > "$TMP/scenarios dir/broken.lua"
  scenarios::script() { printf '%s\n' "$TMP/scenarios dir/broken.lua"; }
  test_server ok
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=broken connections=1
  run barrage::run spec
  [ "$status" -eq 1 ]
  [[ $output == *"script failed"* ]]
  grep -q 'broken on purpose' "$TMP/barrage.json"
}

@test "barrage driver: a run a signal interrupted (its record says so, exit 143) is a failed run" {
  test_server ok
  barrage::build
  # barrage, sent SIGTERM a second into its 5 s run (as the time limit's `timeout` does)
  # shellcheck disable=SC2016 # the wrapper's own $@, $! and $pid, expanded when it runs
  printf '#!/usr/bin/env bash\n"%s" "$@" & pid=$!\nsleep 1\nkill -TERM "$pid"\nwait "$pid"\n' \
    "$BARRAGE_BIN" > "$TMP/barrage sigterm"
  chmod +x "$TMP/barrage sigterm"
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=baseline connections=2 duration_s=5 barrage_bin="$TMP/barrage sigterm"
  run barrage::run spec
  [ "$status" -eq 1 ]
  [[ $output == *"interrupted"* ]]
  [ ! -s "$TMP/out.json" ]
  # the record is in the raw output, marked
  grep -q '"interrupted": "SIGTERM"' "$TMP/barrage.json"
}
