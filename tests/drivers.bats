#!/usr/bin/env bats
# The load-tool drivers (lib/tools/*.sh) and the scenarios: parsers on recorded outputs of real
# runs (tests/fixtures/{wrk,h2load}, re-recorded by tests/fixtures/fake-servers/record-tool-outputs.sh),
# what each tool supports, and every scenario script run by wrk against a local contract server.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  F=$ROOT/tests/fixtures
  common_setup
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  # shellcheck source=lib/scenarios.sh
  source "$ROOT/lib/scenarios.sh"
  # shellcheck source=lib/tools.sh
  source "$ROOT/lib/tools.sh"
  tools::load
}

teardown() { common_teardown; }

# field JSON PATH: one value of a record.
field() { jq -c "$2" <<<"$1"; }

# started OUTPUT: h2load's "started" count.
started() { sed -nE 's/^requests: .* ([0-9]+) started.*/\1/p' "$1"; }

# log_max LOG STATUS_REGEX: the longest logged duration among lines whose status matches.
log_max() { awk -F'\t' -v re="^($2)\$" '$2 ~ re {print $3}' "$1" | sort -n | tail -n1; }

# identities RECORD: the accounting identities of docs/metrics.md hold on an exact record.
identities() {
  assert_jq '.accounting != "exact" or (
      .requests == .succeeded + .failed
      and .failed == .status["4xx"] + .status["5xx"] + ([.errors[] | values] | add)
      and ([.status.codes[]] | add // 0) == .status["2xx"] + .status["3xx"] + .status["4xx"] + .status["5xx"])' - <<<"$1"
}

@test "drivers: tools are discovered from lib/tools/*.sh and each defines the whole interface" {
  tools::list | grep -qx wrk
  tools::list | grep -qx h2load
  [ "$(tools::list | wc -l)" -eq "$(find "$ROOT/lib/tools" -name '*.sh' | wc -l)" ]
  local tool fn
  for tool in $(tools::list); do
    for fn in version requires protocols request_timeout_s capabilities supports run parse; do
      declare -F "$tool::$fn" >/dev/null || { echo "missing $tool::$fn"; return 1; }
    done
  done
}

@test "drivers: each declares its capabilities in the words lib/tools/README.md defines; the rest asks them" {
  local tool word known=' warmup timeline rate stages multihost churn idle websocket '
  for tool in $(tools::list); do
    for word in $("$tool::capabilities"); do
      [[ $known == *" $word "* ]] || { echo "$tool declares '$word', not in lib/tools/README.md"; return 1; }
      grep -q "| \`$word\` |" "$ROOT/lib/tools/README.md" || { echo "'$word' not documented"; return 1; }
    done
  done
  [ "$(tools::with rate | paste -sd,)" = barrage ]
  [ "$(tools::with warmup | paste -sd,)" = barrage ]
  tools::can barrage timeline
  run -1 tools::can wrk rate
  # A driver that declares a capability is asked, not named: another tool that can run at a
  # fixed rate is planned for it.
  wrk::capabilities() { echo rate; }
  source "$ROOT/lib/openloop.sh"
  openloop::supports wrk rate=100
  run -1 openloop::supports h2load stages
  [[ $output == *"h2load has no fixed-rate"* ]]
  # No file outside lib/tools/ tests for a tool by its name: they ask the driver.
  run grep -nE '(==|!=) *"?barrage\b|\\tbarrage\\t|tool: "barrage"' "$ROOT"/run-benchmarks.sh "$ROOT"/lib/*.sh \
    "$ROOT"/lib/place/*.sh "$ROOT/lib/drift.jq" "$ROOT/lib/stats.jq" "$ROOT/lib/noise.jq" "$ROOT/lib/slo.jq"
  [ "$status" -eq 1 ] || { echo "a tool's name compared outside lib/tools/: $output"; return 1; }
}

@test "drivers: versions, protocols and what each tool cannot express" {
  [[ $(wrk::version) =~ 4\.1 ]]
  [[ $(h2load::version) =~ ^1\.[0-9]+\.[0-9]+$ ]]
  [ "$(wrk::protocols | paste -sd,)" = h1,h1s ]
  [ "$(h2load::protocols | paste -sd,)" = h1,h2c,h1s,h2 ]
  # over TLS (#39): each driver that speaks h1s and h2 supports them
  for tool in barrage h2load jdk-client; do "$tool::supports" hello h2 && "$tool::supports" hello h1s; done
  wrk::supports hello h1s
  run wrk::supports hello h2
  [ "$status" -eq 1 ]
  run wrk::supports hello h2c
  [ "$status" -eq 1 ]
  [[ $output == *"HTTP/1.1 only"* ]]
  run h2load::supports mixed h1
  [ "$status" -eq 1 ]
  [[ $output == *"one method per run"* ]]
  h2load::supports post-load h2c
  wrk::supports mixed h1
}

@test "drivers: wrk record of a clean run (json-report.lua)" {
  run wrk::parse "$F/wrk/ok.txt"
  [ "$status" -eq 0 ]
  [ "$(field "$output" .requests)" -gt 1000 ]
  [ "$(field "$output" .failed)" -eq 0 ]
  [ "$(field "$output" '.requests == .succeeded')" = true ]
  [ "$(field "$output" .accounting)" = '"approximate"' ]
  [ "$(field "$output" .errors.status)" -eq 0 ]
  [ "$(field "$output" '.latency_us | [.p50, .p75, .p90, .p99, .p999, .p9999, .max] | . == sort')" = true ]
  [ "$(field "$output" '.status.codes')" = null ]
  [ "$(field "$output" '.bytes_received > 0')" = true ]
  # wrk records no time for socket errors and has no grace period: null, present.
  [ "$(field "$output" '[has("error_latency_us"), .error_latency_us, has("completed_in_grace"), .completed_in_grace]')" = '[true,null,true,null]' ]
}

@test "drivers: wrk non-2xx answers are failed requests and errors.status" {
  run wrk::parse "$F/wrk/non2xx.txt"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.requests > 0 and .errors.status == .requests and .failed == .requests and .succeeded == 0')" = true ]
  grep -q 'Non-2xx or 3xx responses' "$F/wrk/non2xx.txt"
}

@test "drivers: wrk timeouts and socket errors; no latency samples is null, not 0" {
  # wrk 4.1 has no request timer: a "timeout" is a response later than --timeout (1 s; /slow
  # answers after 3 s), counted in requests and errors.timeout, not in the latency histogram.
  run wrk::parse "$F/wrk/timeouts.txt"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.errors.timeout > 0 and .errors.timeout == .requests')" = true ]
  [ "$(field "$output" '.succeeded')" -eq 0 ]
  [ "$(field "$output" '.latency_us.p99')" = null ]
  run wrk::parse "$F/wrk/socket-errors.txt"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.errors.read > 0 and .failed == .errors.read and .requests == 0')" = true ]
  [ "$(field "$output" '.latency_us.min')" = null ]
}

@test "drivers: wrk that could not connect yields no record and says why" {
  run wrk::parse "$F/wrk/connect-errors.txt"
  [ "$status" -eq 1 ]
  [[ $output == *"unable to connect"* ]]
}

@test "drivers: h2load clean run: exact counts, percentiles from the request log" {
  run h2load::parse "$F/h2load/ok.txt" "$F/h2load/ok.tsv" 2
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.requests')" -eq "$(started "$F/h2load/ok.txt")" ]
  [ "$(field "$output" '.failed + .aborted')" -eq 0 ]
  [ "$(field "$output" '.status.codes == {"200": .requests} and .status["2xx"] == .requests')" = true ]
  [ "$(field "$output" '.error_latency_us')" = null ]
  [ "$(field "$output" .accounting)" = '"exact"' ]
  [ "$(field "$output" .duration_us)" -eq 2000000 ]
  [ "$(field "$output" '.rps == .requests / 2')" = true ]
  # Percentiles by nearest rank over the logged durations (column 3).
  local p50
  p50=$(cut -f3 "$F/h2load/ok.tsv" | sort -n | awk '{v[NR]=$1} END{print v[int(NR*0.5+0.999999)]}')
  [ "$(field "$output" .latency_us.p50)" -eq "$p50" ]
  [ "$(field "$output" .latency_us.max)" -eq "$(cut -f3 "$F/h2load/ok.tsv" | sort -n | tail -n1)" ]
  [ "$(field "$output" '.latency_us | [.min, .p50, .p75, .p90, .p99, .p999, .p9999, .max] | . == sort')" = true ]
}

@test "drivers: h2load requests in flight when -D ends are aborted, not failed" {
  run h2load::parse "$F/h2load/inflight.txt" "$F/h2load/inflight.tsv" 2
  [ "$status" -eq 0 ]
  # 2 clients on /slow (3 s) for -D 4: one answer each, the second request in flight at 4 s.
  [ "$(field "$output" '[.requests, .aborted, .failed]')" = '[2,2,0]' ]
  [ "$(field "$output" '.requests + .aborted')" -eq "$(started "$F/h2load/inflight.txt")" ]
}

@test "drivers: h2load non-2xx, timeouts and socket errors land in their buckets" {
  run h2load::parse "$F/h2load/non2xx.txt" "$F/h2load/non2xx.tsv" 2
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.status["4xx"] > 0 and .failed == .status["4xx"] and .failed == .requests - .succeeded')" = true ]
  [ "$(field "$output" '.status.codes == {"404": .requests}')" = true ]
  # Request-count runs (-n): started, not done = lost with the connection (timeout or read).
  run h2load::parse "$F/h2load/timeouts.txt" "$F/h2load/timeouts.tsv"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '[.requests, .errors.timeout, .errors.read, .failed]')" = '[4,4,0,4]' ]
  [ "$(field "$output" '[.latency_us, .error_latency_us]')" = '[null,null]' ]
  run h2load::parse "$F/h2load/socket-errors.txt" "$F/h2load/socket-errors.tsv"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '[.requests, .errors.timeout, .errors.read, .failed]')" = '[4,0,4,4]' ]
}

@test "drivers: h2load streams the server resets are failed (errors.read), not succeeded" {
  # h2server.py was told to reset every 4th request: 10 of the 40 of a -n 40 run.
  run h2load::parse "$F/h2load/reset.txt" "$F/h2load/reset.tsv"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '[.requests, .succeeded, .failed, .status["2xx"], .errors.read, .errors.reset]')" = '[40,30,10,30,10,null]' ]
  [ "$(field "$output" .accounting)" = '"exact"' ]
  # Latency of responses and of reset streams (logged with status -1) kept apart.
  [ "$(field "$output" .latency_us.max)" -eq "$(log_max "$F/h2load/reset.tsv" 200)" ]
  [ "$(field "$output" .error_latency_us.max)" -eq "$(log_max "$F/h2load/reset.tsv" -1)" ]
  # Timed run: h2load's own succeeded, its errored streams in errors.read, a quarter of them.
  run h2load::parse "$F/h2load/reset-timed.txt" "$F/h2load/reset-timed.tsv" 2
  [ "$status" -eq 0 ]
  [ "$(field "$output" .succeeded)" -eq "$(sed -nE 's/^requests: .* ([0-9]+) succeeded.*/\1/p' "$F/h2load/reset-timed.txt")" ]
  [ "$(field "$output" .errors.read)" -eq "$(sed -nE 's/^requests: .* ([0-9]+) errored.*/\1/p' "$F/h2load/reset-timed.txt")" ]
  [ "$(field "$output" '.requests > 0 and .errors.read * 4 == .requests')" = true ]
  identities "$output"
}

@test "drivers: h2load status outside 100-599 is a protocol error, in no class" {
  # status_line_server.py answered "HTTP/1.1 700 Weird" to all 20 requests.
  run h2load::parse "$F/h2load/status700.txt" "$F/h2load/status700.tsv"
  [ "$status" -eq 0 ]
  [ "$(field "$output" '[.requests, .succeeded, .failed, .errors.protocol, .status.codes]')" = '[20,0,20,20,{}]' ]
  [ "$(field "$output" '[.status["2xx"], .status["3xx"], .status["4xx"], .status["5xx"]] | add')" -eq 0 ]
  [ "$(field "$output" .latency_us)" = null ]
  [ "$(field "$output" .error_latency_us.max)" -eq "$(log_max "$F/h2load/status700.tsv" 700)" ]
  identities "$output"
}

@test "drivers: h2load responses whose status it cannot read have no known outcome (null, approximate)" {
  # status_line_server.py answered "HTTP/1.1 200 " (no reason phrase, as Tomcat does): h2load
  # never reads that status and counts all 20 failed.
  grep -q '0 succeeded, 20 failed' "$F/h2load/no-reason.txt"
  run h2load::parse "$F/h2load/no-reason.txt" "$F/h2load/no-reason.tsv"
  [ "$status" -eq 0 ]
  [[ $output == *"could not read the status"* ]]
  local record
  record=$(tail -n 1 <<<"$output")
  [ "$(field "$record" '[.requests, .succeeded, .failed, .successful_rps, .accounting]')" = '[20,null,null,null,"approximate"]' ]
  [ "$(field "$record" '.latency_us.max')" -eq "$(log_max "$F/h2load/no-reason.tsv" 0)" ]
}

@test "drivers: every h2load record: identities, started = requests + aborted, null for what h2load does not give" {
  local f record
  for f in "$F"/h2load/*.txt; do
    record=$(h2load::parse "$f" "${f%.txt}.tsv" 2 2>/dev/null)
    echo "$f: $record"
    identities "$record"
    [ "$(field "$record" '.requests + .aborted')" -eq "$(started "$f")" ]
    [ "$(field "$record" '[.errors.write, .errors.reset, .bytes_sent, .completed_in_grace, .connections[]] | unique')" = '[null]' ]
  done
}

@test "drivers: h2load request log that does not match its totals is an error" {
  head -n 100 "$F/h2load/ok.tsv" >"$TMP/short.tsv"
  run h2load::parse "$F/h2load/ok.txt" "$TMP/short.tsv" 2
  [ "$status" -eq 1 ]
  [[ $output == *"100 lines, h2load counted 800 done"* ]]
}

@test "drivers: h2load over h2c" {
  run h2load::parse "$F/h2load/h2c.txt" "$F/h2load/h2c.tsv" 2
  [ "$status" -eq 0 ]
  [ "$(field "$output" '.requests > 0 and .failed == 0 and .status["2xx"] == .requests')" = true ]
}

@test "drivers: h2load over h2 (TLS, ALPN): its TLS lines do not disturb the totals" {
  # recorded: h2load -c 2 -m 4 -D 2 --log-file ... https://127.0.0.1:PORT/hello (netty, TLS_PORT)
  grep -q '^Application protocol: h2$' "$F/h2load/h2-tls.txt"
  run h2load::parse "$F/h2load/h2-tls.txt" "$F/h2load/h2-tls.tsv" 2
  [ "$status" -eq 0 ]
  assert_jq '.requests == 120 and .succeeded == 120 and .aborted == 8 and .status["2xx"] == 120
    and .bytes_received == 4386 and .accounting == "exact"' - <<<"$output"
  identities "$output"
}

@test "drivers: h2load output without totals is an error" {
  printf 'h2load: could not connect\n' >"$TMP/out.txt"
  run h2load::parse "$TMP/out.txt" "$TMP/missing.tsv" 2
  [ "$status" -eq 1 ]
  [[ $output == *"no totals"* ]]
}

@test "drivers: every parsed fixture is a valid metrics record (check-jsonschema)" {
  local f n=0
  for f in "$F"/wrk/*.txt; do
    wrk::parse "$f" >"$TMP/wrk-$(basename "$f" .txt).json" 2>/dev/null || rm -f "$TMP/wrk-$(basename "$f" .txt).json"
  done
  for f in "$F"/h2load/*.txt; do
    h2load::parse "$f" "${f%.txt}.tsv" 2 >"$TMP/h2load-$(basename "$f" .txt).json"
  done
  n=$(find "$TMP" -name '*.json' | wc -l)
  [ "$n" -eq 15 ]
  schema::ensure_validator
  "$SCHEMA_VENV/bin/check-jsonschema" --schemafile "$ROOT/schemas/metrics.schema.json" "$TMP"/*.json
}

@test "scenarios: the table and the Lua scripts match one to one" {
  local name
  for name in $(scenarios::list); do
    [ -f "$ROOT/scenarios/$name.lua" ] || { echo "no $name.lua"; return 1; }
    [[ $(scenarios::field "$name" connections) =~ ^[1-9][0-9]*$ ]]
    [[ $(scenarios::field "$name" streams) =~ ^[1-9][0-9]*$ ]]
  done
  for name in "$ROOT"/scenarios/*.lua; do
    name=$(basename "$name" .lua)
    [[ $name == json-report ]] && continue
    scenarios::list | grep -qx "$name" || { echo "$name.lua not in scenarios.tsv"; return 1; }
  done
  [ "$(scenarios::field high-concurrency connections)" -eq 1000 ]
  [ "$(scenarios::field large-file endpoint)" = '/file?size=1048576' ]
  run scenarios::field nope method
  [ "$status" -eq 1 ]
  scenarios::rotates mixed
  run scenarios::rotates hello
  [ "$status" -eq 1 ]
}

@test "scenarios: each script, run by wrk against a contract server, prints a clean record" {
  local name out
  contract_server
  for name in $(scenarios::list); do
    out=$(timeout 20 wrk -t1 -c2 -d1s -s "$(scenarios::script "$name")" "http://127.0.0.1:$PORT/" | grep '^{')
    echo "$name: $out"
    [ "$(jq '.requests > 0 and .failed == 0 and .errors.status == 0' <<<"$out")" = true ]
    [ "$(jq -c '[has("error_latency_us"), .error_latency_us, has("completed_in_grace"), .completed_in_grace]' <<<"$out")" = '[true,null,true,null]' ]
  done
}
