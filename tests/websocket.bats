#!/usr/bin/env bats
# The WebSocket scenarios (scenarios.tsv's connection ws:N, lib/scenarios.sh): opt-in (group
# websocket, never in `--scenarios all`); planned for barrage over h1, skipped for tools
# without the websocket capability and for other protocols; skipped on servers that declare
# websocket=none; end to end on two real servers, their rows counting messages.

load test_helper
bats_require_minimum_version 1.5.0

setup_file() { run_setup_file; }

setup() { run_setup "barrage websocket test"; }

teardown() { run_teardown; }

# sourced CODE ARGS...: CODE in a bash that sourced run-benchmarks.sh and parsed ARGS (fixture servers).
sourced() {
  # shellcheck disable=SC2016 # expanded by that bash
  BARRAGE_SERVERS_DIR=$FAKES bash -c 'source "$1"; parse_options --port "$2" "${@:4}"; eval "$3"' \
    _ "$RUN" "$PORT" "$@"
}

@test "websocket: the scenarios are opt-in; named, barrage runs them over h1, other tools and h2c are skipped" {
  # shellcheck disable=SC2016 # expanded by the sourcing bash
  run -0 sourced 'printf "%s\n" "${SCENARIOS[@]}"' --servers good --scenarios all
  [[ $output == *hello* && $output != *ws-echo* ]]
  # shellcheck disable=SC2016 # expanded by the sourcing bash
  run -0 sourced 'printf "%s\n" "${SCENARIOS[@]}"' --servers good --scenarios websocket
  [ "$output" = $'ws-echo\nws-echo-1k' ]
  run -0 env BARRAGE_SERVERS_DIR="$FAKES" "$RUN" --port "$PORT" --servers good --scenarios ws-echo \
    --tool barrage,wrk --dry-run
  echo "$output"
  [[ $(grep -E '^1 +good +barrage +h1 +ws-echo ' <<<"$output") != *skipped* ]]
  grep -E '^1 +good +wrk +h1 +ws-echo .*skipped: ws-echo loads a WebSocket echo: wrk cannot' <<<"$output"
  run -1 sourced 'scenarios::tool_supports barrage ws-echo h2c' --servers good
  [[ $output == *"ws-echo is WebSocket over cleartext HTTP/1.1 (h1): not h2c"* ]]
  run -1 sourced 'scenarios::tool_supports barrage ws-echo h1s' --servers good
  run -0 sourced 'scenarios::tool_supports barrage ws-echo h1' --servers good
}

@test "websocket: barrage's options, and the servers that declare no WebSocket endpoint" {
  source "$ROOT/lib/scenarios.sh"
  source "$ROOT/lib/servers.sh"
  [ "$(scenarios::connection_args ws-echo h1 | paste -sd' ')" = "--ws-size 32" ]
  [ "$(scenarios::connection_args ws-echo-1k h1s | paste -sd' ')" = "--ws-size 1024" ]
  scenarios::websocket ws-echo
  run ! scenarios::websocket hello
  scenarios::server_supports jetty ws-echo
  scenarios::server_supports jdk-httpserver hello
  run -1 scenarios::server_supports jdk-httpserver ws-echo
  [[ $output == *"ws-echo loads a WebSocket echo: jdk-httpserver has none (server.properties: websocket=none)"* ]]
}

@test "e2e: ws-echo and ws-echo-1k on two real servers: rows of echoed messages, none failed" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty undertow
  run env "$RUN" --quick --duration 1s --warmup 0s --server-warmup 0s --port "$PORT" \
    --output "$TMP/out" --servers jetty,undertow --scenarios ws-echo,ws-echo-1k --tool barrage --protocol h1
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq '.results | length' "$f")" -eq 4 ]
  jq -c '.results[] | [.server, .scenario, .status, .metrics.websocket.messages, .metrics.websocket.upgraded]' "$f"
  # no warm-up: every upgrade is measured, but a connection established late may still be upgrading
  assert_jq '.results[] | .status == "ok" and .metrics.protocol == "ws" and .metrics.requests > 0
    and .metrics.websocket.messages.echoed == .metrics.succeeded and .metrics.websocket.messages.failed == 0
    and .metrics.websocket.upgraded >= 1 and .metrics.websocket.upgraded <= .metrics.connections.established' "$f"
  assert_jq '.results[] | select(.scenario == "ws-echo-1k") | .metrics.websocket.message_bytes == 1024' "$f"
  no_process_left
}
