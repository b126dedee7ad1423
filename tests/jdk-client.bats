#!/usr/bin/env bats
# jdk-client (clients/jdk-client/, driver lib/tools/jdk-client.sh): what it supports, the
# requests it rotates, exact counts against client/tests/server.py (which counts what it sent:
# GET /_sent), each error bucket, h2c by Upgrade (and a server that will not upgrade), and one
# run through run-benchmarks.sh end to end on a real server. Runs are short and bounded, on
# 127.0.0.1 and free ports.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own process: setting PORT in one is meant to stay there

load test_helper

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/java.sh
  source "$ROOT/lib/java.sh"
  # shellcheck source=lib/procs.sh
  source "$ROOT/lib/procs.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  # shellcheck source=lib/tools/jdk-client.sh
  source "$ROOT/lib/tools/jdk-client.sh"
  # built once (Maven is skipped when the jar is up to date); a failure shows in every run test
  jdk-client::build >&2 || true
  schema::ensure_validator
}

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  common_setup "jdk client test"
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/java.sh
  source "$ROOT/lib/java.sh"
  # shellcheck source=lib/procs.sh
  source "$ROOT/lib/procs.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  # shellcheck source=lib/scenarios.sh
  source "$ROOT/lib/scenarios.sh"
  # shellcheck source=lib/tools.sh
  source "$ROOT/lib/tools.sh"
  # shellcheck source=lib/tools/jdk-client.sh
  source "$ROOT/lib/tools/jdk-client.sh"
  JAVA=$(java::home)/bin/java
}

teardown() { common_teardown; }

# counting_server MODE [PARAM=VALUE...]: client/tests/server.py in MODE; sets PORT, SERVER_PID.
counting_server() { test_server "$@"; }

# sent: what the counting server did, by kind ({"status 200": N, "unanswered": N, ...}).
sent() { curl -sf "http://127.0.0.1:$PORT/_sent"; }

# client ARGS...: the client jar against the counting server; its record in $TMP/record.json.
# A 30 s request timeout unless ARGS give one (the last wins): a loaded machine is no timeout.
client() {
  "$JAVA" -jar "$JDK_CLIENT_JAR" --url "http://127.0.0.1:$PORT" --timeout 30 "$@" >"$TMP/record.json"
}

# exact FILE: the record is valid against the schema and keeps the identities of docs/metrics.md.
exact() {
  schema::validate "$ROOT/schemas/metrics.schema.json" "$1"
  assert_jq '.accounting == "exact" and .started == .requests + .aborted
    and .requests == .succeeded + .failed
    and .failed == .status["4xx"] + .status["5xx"] + ([.errors[]] | add)
    and ([.status.codes[]] | add // 0) == .status["2xx"] + .status["3xx"] + .status["4xx"] + .status["5xx"]' "$1" >/dev/null
}

@test "jdk-client driver: h1, h2c, h1s and h2, every scenario but high-concurrency over h2c and h2 (with the reason)" {
  [ "$(jdk-client::protocols | paste -sd,)" = h1,h2c,h1s,h2 ]
  local scenario
  for scenario in $(scenarios::list); do
    jdk-client::supports "$scenario" h1
  done
  run jdk-client::supports high-concurrency h2c
  [ "$status" -eq 1 ]
  [[ $output == *"HttpClient (a selector thread) per h2c connection: 1000 is more than 256"* ]]
  jdk-client::supports mixed h2c
  jdk-client::supports mixed h2
  jdk-client::supports high-concurrency h1s
  run jdk-client::supports high-concurrency h2
  [ "$status" -eq 1 ]
  [[ $output == *"per h2 connection: 1000 is more than 256"* ]]
  run jdk-client::supports baseline h3
  [ "$status" -eq 1 ]
  [[ $output == *"no h3"* ]]
  [[ $(jdk-client::version) =~ ^[0-9.]+\ \(java\ [0-9]+ ]]
}

@test "jdk-client driver: mixed rotates the five requests mixed.lua builds; a script the table does not list is refused" {
  run jdk-client::requests mixed
  [ "$status" -eq 0 ]
  [ "$output" = $'GET /\nGET /no-read\nGET /hello\nGET /file?size=1024\nPOST /load' ]
  [ "$(jdk-client::requests post-load)" = "POST /load" ]
  # a copy of the scenarios whose mixed script sends a request its table row does not list
  mkdir -p "$TMP/scenarios"
  cp "$ROOT"/scenarios/* "$TMP/scenarios/"
  sed -i 's|wrk.format("GET", "/hello")|wrk.format("DELETE", "/hello")|' "$TMP/scenarios/mixed.lua"
  SCENARIOS_DIR=$TMP/scenarios
  run jdk-client::supports mixed h1
  [ "$status" -eq 1 ]
  [[ $output == *'mixed rotates "DELETE /hello", which scenarios.tsv does not list'* ]]
}

@test "jdk-client: a request count against a counting server: every response the server sent is counted once" {
  counting_server statuses
  client --request 'GET /' --connections 4 --requests 400
  exact "$TMP/record.json"
  sent >"$TMP/sent.json"
  # the priming request (GET /, the server's request 0: a 200) is outside the count
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --slurpfile sent "$TMP/sent.json" '$sent[0] as $s
    | .requests == 400 and .aborted == 0 and .prime_requests == 1
    and ($s | to_entries | map(select(.key | startswith("status ")) | {key: (.key | ltrimstr("status ")), value})
         | from_entries) == (.status.codes | .["200"] += 1)
    and ($s | keys | all(startswith("status ")))
    and .response_versions == {"HTTP/1.1": 400, "HTTP/2": 0}
    and .latency_us.p50 > 0 and .error_latency_us == null and .completed_in_grace == null' "$TMP/record.json"
}

@test "jdk-client: a timed run with warm-up: started = requests + aborted, warm-up requests not counted" {
  # every answer takes at least 0.1 s: in the 1 s window a slot ends at most 11 requests (10,
  # and one from before the deadline in the grace); counting the 0.5 s warm-up would add ~5
  counting_server slow delay=0.1
  client --request 'GET /' --connections 3 --duration 1 --warmup 0.5
  exact "$TMP/record.json"
  sent >"$TMP/sent.json"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --slurpfile sent "$TMP/sent.json" '.duration_us == 1000000 and .requests > 0
    and .succeeded == .requests and .requests <= 3 * 11 and .completed_in_grace <= 3
    and $sent[0]["status 200"] >= .requests + .prime_requests' "$TMP/record.json"
}

@test "jdk-client: --warmup auto warms up until the suite's steady state, at most its cap, and says how long it took" {
  # whether a loaded machine lets it steady within 8 s is not asserted: what it decided and its
  # account of it are (steady: at least the rule's 5 whole seconds, and at most the second that
  # ends at the cap, which may be the one that passes the rule: a fresh clone's run saw 8.0x s;
  # else the cap)
  counting_server slow delay=0.01
  client --request 'GET /' --connections 3 --duration 1 --warmup auto:8
  exact "$TMP/record.json"
  assert_jq '.warmup.mode == "auto" and .warmup.max_seconds == 8
    and .warmup.rule == {watched: "successful_rps", window_s: 5, trend: 0.1, spread: 0.1, floor: 0}
    and (.warmup.successful_rps | length) == (.warmup.seconds | floor)
    and (if .warmup.steady then .warmup.seconds >= 5 and .warmup.seconds < 9 else .warmup.seconds >= 8 end)' "$TMP/record.json"
  # a cap shorter than the rule's window: never steady, ended by the cap, said so
  client --request 'GET /' --connections 3 --duration 1 --warmup auto:2
  exact "$TMP/record.json"
  assert_jq '.warmup.steady == false and .warmup.seconds >= 2 and (.warmup.successful_rps | length) == 2' "$TMP/record.json"
  # a fixed warm-up is what it was
  client --request 'GET /' --connections 3 --duration 1 --warmup 0.5
  assert_jq '.warmup == {mode: "fixed", seconds: 0.5, max_seconds: null, steady: null, rule: null, successful_rps: null}' "$TMP/record.json"
  run "$JAVA" -jar "$JDK_CLIENT_JAR" --url "http://127.0.0.1:$PORT" --request 'GET /' --duration 1 --warmup auto:0
  [ "$status" -eq 2 ]
  [[ $output == *"--warmup auto:MAX needs a MAX above 0"* ]]
}

@test "jdk-client::build skips Maven while the jar is newer than the pom and the sources, and stops trying after a failure" {
  # a copy of the client with its jar; a "mvn" that records its call and fails
  mkdir -p "$TMP/client copy/target" "$TMP/bin"
  cp -r "$ROOT/clients/jdk-client/pom.xml" "$ROOT/clients/jdk-client/src" "$TMP/client copy/"
  touch "$TMP/client copy/target/jdk-client.jar"
  printf '#!/bin/sh\necho called >>"%s"\nexit 1\n' "$TMP/mvn calls" >"$TMP/bin/mvn"
  chmod +x "$TMP/bin/mvn"
  PATH=$TMP/bin:$PATH JDK_CLIENT_DIR="$TMP/client copy" JDK_CLIENT_JAR="$TMP/client copy/target/jdk-client.jar"
  jdk-client::build
  [ ! -e "$TMP/mvn calls" ]
  touch -d '+1 minute' "$TMP/client copy/src/main/java/dev/barrage/jdkclient/Main.java"
  run jdk-client::build
  [ "$status" -eq 1 ]
  [[ $output == *"jdk-client does not build"* ]]
  [ "$(wc -l <"$TMP/mvn calls")" -eq 1 ]
  # in the shell where it failed (not run's subshell), a failed build is not tried again per run
  jdk-client::build || true
  [ "$JDK_CLIENT_BUILD_FAILED" -eq 1 ]
  run jdk-client::build
  [ "$status" -eq 1 ]
  [ "$(wc -l <"$TMP/mvn calls")" -eq 2 ]
}

@test "jdk-client: errors land in their buckets: timeouts, closed connections, bad status lines" {
  # every 5th request is never answered: the priming request (number 0) and 4 of the 20; on a
  # loaded machine an answer may also come later than the 1 s timeout: a timeout too
  counting_server silent-every every=5
  client --request 'GET /' --connections 2 --requests 20 --timeout 1
  exact "$TMP/record.json"
  sent >"$TMP/sent.json"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --slurpfile sent "$TMP/sent.json" '$sent[0] as $s
    | ($s | keys) == ["status 200", "unanswered"] and $s.unanswered == 5
    and $s["status 200"] + $s.unanswered == .requests + .prime_requests
    and .errors.timeout >= 4 and .succeeded + .errors.timeout == 20 and .failed == .errors.timeout
    and .error_latency_us.min >= 900000' "$TMP/record.json"
  stop_background "$SERVER_PID"
  # half a body, then the connection closes: read errors
  counting_server truncated
  client --request 'GET /' --connections 2 --requests 20
  exact "$TMP/record.json"
  [ "$(sent)" = '{"truncated": 21}' ]
  assert_jq '.errors.read == 20 and .succeeded == 0 and .latency_us == null' "$TMP/record.json"
  stop_background "$SERVER_PID"
  counting_server garbage
  client --request 'GET /' --connections 2 --requests 20
  exact "$TMP/record.json"
  [ "$(sent)" = '{"garbage": 21}' ]
  assert_jq '.errors.protocol == 20 and (.exceptions | keys[0] | test("Invalid status line"))' "$TMP/record.json"
}

@test "jdk-client: java.net.http resends a GET whose kept-alive connection closed unanswered: the server counts it, the record does not" {
  # drop-second closes every second request's connection instead of answering: the JDK sends
  # that GET again on a new connection (once; MultiExchange, idempotent requests), so the
  # server's "closed" exceed the record's read errors; every 200 is still counted exactly once
  counting_server drop-second
  client --request 'GET /' --connections 2 --requests 40
  exact "$TMP/record.json"
  sent >"$TMP/sent.json"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --slurpfile sent "$TMP/sent.json" '$sent[0] as $s
    | $s["status 200"] == .succeeded + 1 and .requests == 40
    and $s.closed > .errors.read and .succeeded + .errors.read == 40' "$TMP/record.json"
}

@test "jdk-client: POST bodies and the rotation reach the server (mixed over h1 on the contract server)" {
  contract_server
  local args=() line
  while read -r line; do args+=(--request "$line"); done < <(jdk-client::requests mixed)
  # one slot, so that 100 requests are exactly 20 rounds of the 5 (slots share the count)
  client "${args[@]}" --body "$ROOT/scenarios/load-body.json" --connections 1 --requests 100
  exact "$TMP/record.json"
  # a 405 or 404 would mean a wrong method or path; bodies: 20 x (11 for /hello + 1024 for
  # /file + the 88 base64 bytes of the JSON body /load echoes)
  assert_jq '.succeeded == 100 and .status.codes == {"200": 100}
    and .body_bytes_received == 20 * (11 + 1024 + 88)' "$TMP/record.json"
}

@test "jdk-client: h2c against a server that does not upgrade stops with the reason, no record" {
  counting_server ok
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" protocol=h2c scenario=baseline connections=2 streams=2
  run jdk-client::run spec
  [ "$status" -eq 1 ]
  [[ $output == *"exited 5"*"did not upgrade to h2c"*"java.net.http speaks h2c only by Upgrade"* ]]
  [ ! -s "$TMP/out.json" ]
}

@test "jdk-client: h1s and h2 over TLS against netty, the suite's CA trusted: exact records by HTTP version; another CA refused" {
  # shellcheck source=lib/servers.sh
  source "$ROOT/lib/servers.sh"
  servers::build netty >&2
  PORT=$(free_port)
  local tls_port
  tls_port=$(free_port)
  TLS_PORT=$tls_port servers::start netty "$PORT" "$TMP/netty.log"
  BACKGROUND_PIDS+=("$SERVER_PID")
  servers::wait_ready "$SERVER_PID" "$PORT" 60
  local ca
  ca=$(certs::dir)/ca.pem
  "$JAVA" -jar "$JDK_CLIENT_JAR" --url "https://127.0.0.1:$tls_port" --protocol h1s --cacert "$ca" --timeout 30 \
    --connections 2 --requests 40 --request 'GET /hello' >"$TMP/h1s.json"
  exact "$TMP/h1s.json"
  assert_jq '.protocol == "h1s" and .succeeded == 40 and .response_versions == {"HTTP/1.1": 40, "HTTP/2": 0}' "$TMP/h1s.json"
  "$JAVA" -jar "$JDK_CLIENT_JAR" --url "https://127.0.0.1:$tls_port" --protocol h2 --cacert "$ca" --timeout 30 \
    --connections 2 --streams 3 --requests 60 --request 'GET /hello' >"$TMP/h2.json"
  exact "$TMP/h2.json"
  assert_jq '.protocol == "h2" and .succeeded == 60 and .response_versions == {"HTTP/1.1": 0, "HTTP/2": 60}' "$TMP/h2.json"
  # the certificate is verified: a CA that did not sign it fails the connection, no record
  certs::ensure "$TMP/other ca"
  run "$JAVA" -jar "$JDK_CLIENT_JAR" --url "https://127.0.0.1:$tls_port" --protocol h2 --cacert "$TMP/other ca/ca.pem" \
    --timeout 30 --connections 1 --requests 5 --request 'GET /hello'
  [ "$status" -eq 5 ]
  [[ $output == *"SSLHandshakeException"* && $output != *'{"tool"'* ]]
  # an https:// URL is asked for over TLS, an http:// one in cleartext
  run "$JAVA" -jar "$JDK_CLIENT_JAR" --url "http://127.0.0.1:$tls_port" --protocol h1s --requests 1 --request 'GET /hello'
  [ "$status" -eq 2 ]
  [[ $output == *"--url https://HOST:PORT is required (--protocol h1s)"* ]]
  servers::stop "$SERVER_PID" 10
}

@test "jdk-client: nothing listening: exit 3, 'cannot connect', no record" {
  PORT=$(free_port)
  # shellcheck disable=SC2034 # filled by run_spec, read by jdk-client::run
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=baseline connections=2
  run jdk-client::run spec
  [ "$status" -eq 1 ]
  [[ $output == *"exited 3: jdk-client: cannot connect to http://127.0.0.1:$PORT"* ]]
  run jdk-client::parse "$TMP/jdk-client.json"
  [ "$status" -eq 1 ]
  [[ $output == *"printed no metrics record: jdk-client: cannot connect"* ]]
}

@test "e2e: run-benchmarks.sh --tool jdk-client --quick measures a real server over h2c (mixed), record exact" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty
  local port
  port=$(free_port)
  # a fixed 1 s server warm-up (the steady-state one is tested in run-benchmarks.bats), a 1 s run
  run "$ROOT/run-benchmarks.sh" --quick --duration 1s --port "$port" --output "$TMP/out" --servers jetty --scenarios mixed \
    --tool jdk-client --protocol h2c --server-warmup 1s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(find "$TMP/out" -maxdepth 1 -name '*.json' | head -n 1)
  schema::validate "$ROOT/schemas/results.schema.json" "$f"
  [ "$(jq -r '.results | length' "$f")" -eq 1 ]
  [ "$(jq -r '.results[0] | [.tool, .protocol, .scenario, .status, .metrics.tool, .config.streams] | join(" ")' "$f")" = \
    "jdk-client h2c mixed ok jdk-client 10" ]
  assert_jq '.tools["jdk-client"] | test("java")' "$f"
  jq '.results[0].metrics' "$f" >"$TMP/metrics.json"
  exact "$TMP/metrics.json"
  # every measured response came over HTTP/2 streams; 100 connections upgraded before the window
  assert_jq '.succeeded > 0 and .prime_requests == 100 and .response_versions["HTTP/1.1"] == 0
    and .response_versions["HTTP/2"] == .succeeded + .status["4xx"] + .status["5xx"]' "$TMP/metrics.json"
  [ -s "$(find "$TMP/out" -path '*jdk-client-h2c-mixed/jdk-client.json' | head -n 1)" ]
}

# second_opinion_fixture FILE: tests/fixtures/results/mixed-base.json plus jdk-client rows:
# h1/hello copies barrage's with netty at 40,000 successful requests/s (barrage: 61,000, first)
# and jdk-httpserver skipped; h2c/hello for both tools copies h2load's rows (the same order).
second_opinion_fixture() {
  jq '.tools["jdk-client"] = "1.0 (java 25)"
    | [.results[] | select(.tool == "barrage" and .protocol == "h1" and .scenario == "hello")] as $b
    | [.results[] | select(.tool == "h2load" and .protocol == "h2c" and .scenario == "hello" and .status == "ok")] as $h
    | .results += [$b[] | .tool = "jdk-client"
        | if .server == "netty" then .metrics.successful_rps = 40000 | .metrics.succeeded = 400000 | .metrics.requests = 400000
          elif .server == "jdk-httpserver" then .status = "skipped" | .reason = "for the test" | .metrics = null | .server_stats = null
          else . end]
    | .results += [$h[] | .tool = "barrage"] + [$h[] | .tool = "jdk-client"]' \
    "$ROOT/tests/fixtures/results/mixed-base.json" >"$1"
}

@test "update-readme: jdk-client's ranking against barrage's for the same servers: agrees / differs, and which pairs" {
  second_opinion_fixture "$TMP/results.json"
  schema::validate "$ROOT/schemas/results.schema.json" "$TMP/results.json"
  printf '# Project\n' >"$TMP/README.md"
  run "$ROOT/update-readme.sh" --file "$TMP/results.json" --readme "$TMP/README.md" --charts "$TMP/charts"
  [ "$status" -eq 0 ]
  local part
  part=$(sed -n '/^### Second opinion: jdk-client against barrage$/,/^### /p' "$TMP/README.md")
  echo "$part"
  [[ $part == *"The relative ranking agrees in 1 of the 2 scenario and protocol pairs that can check."* ]]
  # jdk-httpserver is left out of h1: jdk-client did not measure it
  [[ $part == *"| hello | HTTP/1.1 | netty > java-http > jetty > tomcat | java-http > jetty > netty > tomcat | differs (java-http / netty, jetty / netty) |"* ]]
  [[ $part == *"| hello | h2c | netty > java-http > jetty > tomcat | netty > java-http > jetty > tomcat | agrees |"* ]]
  # jdk-client's own tables are there too
  grep -q '^### hello · HTTP/1.1 · jdk-client$' "$TMP/README.md"
}

@test "second opinion: a server on which a tool was client-bound never enters the ranking comparison" {
  # jdk-client is its own limit on a (its ceiling ranks a last): a is left out, b and c agree
  jq -en -L "$ROOT/lib" 'import "second_opinion" as so;
    [{tool: "barrage", scenario: "hello", protocol: "h1",
      measured: [{server: "a", rank: 1, client_bound_runs: 0}, {server: "b", rank: 2, client_bound_runs: 0}, {server: "c", rank: 3, client_bound_runs: 0}]},
     {tool: "jdk-client", scenario: "hello", protocol: "h1",
      measured: [{server: "b", rank: 1, client_bound_runs: 0}, {server: "c", rank: 2, client_bound_runs: 0}, {server: "a", rank: 3, client_bound_runs: 2}]}]
    | so::comparisons("jdk-client"; "barrage")
    | . == [{scenario: "hello", protocol: "h1", servers: ["b", "c"], order: "b > c", reference_order: "b > c",
             agrees: true, differing: [], client_bound: ["a"]}]'
  # client-bound on all but one: nothing left to rank, said so, not counted as agreeing or differing
  jq -en -L "$ROOT/lib" 'import "second_opinion" as so;
    [{tool: "barrage", scenario: "hello", protocol: "h1", measured: [{server: "a", client_bound_runs: 0}, {server: "b", client_bound_runs: 0}]},
     {tool: "jdk-client", scenario: "hello", protocol: "h1", measured: [{server: "b", client_bound_runs: 1}, {server: "a", client_bound_runs: 0}]}]
    | [so::section("jdk-client"; "barrage")] as $md
    | ($md | map(select(test("agrees in 0 of the 0 scenario and protocol pairs that can check; 1 cannot \\(client-bound\\)"))) | length == 1)
      and ($md | map(select(test("^\\| hello \\| HTTP/1.1 \\| a \\| a \\| cannot check: client-bound; left out, client-bound: b \\|$"))) | length == 1)'
}

@test "update-readme: servers a tool ranks tied are not a difference; nothing to compare, no part" {
  # barrage ties a and b (overlapping intervals), jdk-client orders them b, a: that agrees
  jq -en -L "$ROOT/lib" 'import "second_opinion" as so;
    [{tool: "barrage", scenario: "hello", protocol: "h1",
      measured: [{server: "a", rank: 1, tied: true}, {server: "b", rank: 1, tied: true}, {server: "c", rank: 3}]},
     {tool: "jdk-client", scenario: "hello", protocol: "h1",
      measured: [{server: "b", rank: 1}, {server: "a", rank: 2}, {server: "c", rank: 3}]}]
    | so::comparisons("jdk-client"; "barrage")
    | . == [{scenario: "hello", protocol: "h1", servers: ["b", "a", "c"], order: "b > a > c",
             reference_order: "a = b > c", agrees: true, differing: [], client_bound: []}]'
  jq -en -L "$ROOT/lib" 'import "second_opinion" as so;
    [{tool: "barrage", scenario: "hello", protocol: "h1", measured: [{server: "a"}, {server: "b"}]},
     {tool: "jdk-client", scenario: "hello", protocol: "h1", measured: [{server: "b"}, {server: "a"}]},
     {tool: "jdk-client", scenario: "mixed", protocol: "h1", measured: [{server: "b"}, {server: "a"}]}]
    | [so::section("jdk-client"; "barrage")] | length > 0
      and (map(select(test("^\\| mixed"))) | length == 0)
      and (map(select(test("^\\| hello \\| HTTP/1.1 \\| a > b \\| b > a \\| differs \\(b / a\\)"))) | length == 1)'
  jq -en -L "$ROOT/lib" 'import "second_opinion" as so;
    [{tool: "barrage", scenario: "hello", protocol: "h1", measured: [{server: "a"}, {server: "b"}]}]
    | [so::section("jdk-client"; "barrage")] == []'
}
