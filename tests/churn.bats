#!/usr/bin/env bats
# The scenarios with a connection mode (scenarios.tsv's connection column, lib/scenarios.sh):
# churn (each connection carries N requests and the client closes it; TLS resumption) and idle
# (idle connections beside the busy ones): opt-in, never in `--scenarios all`; planned for the
# tools with the capability, skipped for the others; barrage's options per protocol; the rows'
# connection figures (lib/churn.sh) from real runs of two real servers; the pre-flight's texts
# (TIME_WAIT reuse and the port range's ceiling, the open-file limits).

load test_helper
bats_require_minimum_version 1.5.0

setup_file() { run_setup_file; }

setup() { run_setup "barrage churn test"; }

teardown() { run_teardown; }

# sourced CODE ARGS...: CODE in a bash that sourced run-benchmarks.sh and parsed ARGS (fixture servers).
sourced() {
  # shellcheck disable=SC2016 # expanded by that bash
  BARRAGE_SERVERS_DIR=$FAKES bash -c 'source "$1"; parse_options --port "$2" "${@:4}"; eval "$3"' \
    _ "$RUN" "$PORT" "$@"
}

@test "churn: the opt-in scenarios are not in --scenarios all; named, barrage runs them and other tools are skipped" {
  # shellcheck disable=SC2016 # expanded by the sourcing bash
  run -0 sourced 'printf "%s\n" "${SCENARIOS[@]}"' --servers good --scenarios all
  [[ $output == *hello* && $output != *churn* && $output != *idle* ]]
  # shellcheck disable=SC2016 # expanded by the sourcing bash
  run -0 sourced 'printf "%s\n" "${SCENARIOS[@]}"' --servers good --scenarios churn-1,idle-10k
  [ "$output" = $'churn-1\nidle-10k' ]
  run -0 env BARRAGE_SERVERS_DIR="$FAKES" "$RUN" --port "$PORT" --servers good --scenarios churn-1,churn-1-resume,idle-10k \
    --tool barrage,wrk --dry-run
  echo "$output"
  [[ $(grep -E '^1 +good +barrage +h1 +churn-1 ' <<<"$output") != *skipped* ]]
  [[ $(grep -E '^1 +good +barrage +h1 +idle-10k ' <<<"$output") != *skipped* ]]
  grep -E '^1 +good +wrk +h1 +churn-1 .*skipped: churn-1 closes each connection after 1 requests: wrk cannot' <<<"$output"
  grep -E '^1 +good +wrk +h1 +idle-10k .*skipped: idle-10k holds 10000 idle connections: wrk cannot' <<<"$output"
  # cleartext has no TLS session to resume
  grep -E '^1 +good +barrage +h1 +churn-1-resume .*skipped: churn-1-resume resumes TLS sessions: h1 has none' <<<"$output"
}

@test "churn: barrage's options for each connection mode and protocol" {
  source "$ROOT/lib/scenarios.sh"
  [ "$(scenarios::connection_args churn-1 h1 | paste -sd' ')" = "--requests-per-connection 1" ]
  [ "$(scenarios::connection_args churn-10-resume h2 | paste -sd' ')" = "--requests-per-connection 10 --tls-resume" ]
  [ "$(scenarios::connection_args churn-1-resume h1s | paste -sd' ')" = "--requests-per-connection 1 --tls-resume" ]
  [ "$(scenarios::connection_args idle-10k h2c | paste -sd' ')" = "--idle-connections 10000" ]
  [ -z "$(scenarios::connection_args hello h1)" ]
  [ "$(scenarios::field churn-1 connection)" = churn:1 ]
  [ "$(scenarios::field hello connection)" = "" ]
}

@test "churn: the pre-flight's ceiling from tcp_tw_reuse and the port range, and the open-file limits" {
  source "$ROOT/lib/churn.sh"
  run -0 churn::ceiling_text 0 "32768 60999" 1
  [[ $output == *"tcp_tw_reuse=0 and 28232 ephemeral ports (ip_local_port_range 32768-60999): at most about 470 new connections/s"* ]]
  # 2 (Linux's default): TIME_WAIT reuse over loopback only
  run -0 churn::ceiling_text 2 "32768 60999" 1
  [ -z "$output" ]
  run -0 churn::ceiling_text 2 "32768 60999" 0
  [[ $output == *"at most about 470 new connections/s"* ]]
  run -0 churn::ceiling_text 1 "32768 60999" 0
  [ -z "$output" ]
  run -0 churn::fds_text 10164 1024 4096
  [[ $output == *"hard limit 4096 is below the 10164 files"* ]]
  run -0 churn::fds_text 10164 1024 1048576
  [[ $output == *"soft limit 1024 is below the 10164 files"*"raised to the hard limit 1048576"* ]]
  run -0 churn::fds_text 10164 unlimited unlimited
  [ -z "$output" ]
  run -0 churn::host_facts
  [[ $output == *$'tcp_tw_reuse\t'* && $output == *$'port_range\t'[0-9]*' '[0-9]* && $output == *$'nofile_hard\t'* ]]
  # the files the selected scenarios need: the largest connections + idle, and the margin
  run -0 sourced 'churn::fds_needed' --servers good --scenarios hello,idle-10k
  [ "$output" = $((100 + 10000 + 64)) ]
}

@test "e2e: churn and idle scenarios on two real servers: connections/s, handshakes, RSS per idle connection in the rows" {
  source "$ROOT/lib/servers.sh"
  servers::build jdk-httpserver jetty
  # the scenario table with a smaller idle scenario (100 idle connections: quick here)
  cp -r "$ROOT/scenarios" "$TMP/scenarios"
  sed -i 's/\tidle:10000$/\tidle:100/' "$TMP/scenarios/scenarios.tsv"
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --quick --duration 2s --warmup 2s --server-warmup 0s --port "$PORT" \
    --output "$TMP/out" --servers jdk-httpserver,jetty --scenarios churn-1,churn-10,idle-10k --tool barrage --protocol h1
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq '.results | length' "$f")" -eq 6 ]
  assert_jq '.results[] | .status == "ok" and .metrics.requests > 0' "$f"
  # churn: every connection the client's, N requests each; per second of the window
  assert_jq '.results[] | select(.scenario == "churn-1") | .connection
    | .mode == "churn" and .requests_per_connection == 1 and .connections_per_s > 0
      and .handshakes_per_s == null and .handshakes_full == null' "$f"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.results[] | select(.scenario == "churn-1") | .metrics as $m
    | ($m.connections.established - $m.requests | fabs) <= $m.connections.requested' "$f"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.results[] | select(.scenario == "churn-10") | .metrics as $m
    | .connection.requests_per_connection == 10
      and ($m.connections.established * 10 - $m.requests | fabs) <= 10 * $m.connections.requested' "$f"
  jq -c '.results[] | [.server, .scenario, .connection, .metrics.connections, .metrics.idle_connections]' "$f"
  # idle: 100 idle connections held open, not load; the server's RSS per idle connection (so few
  # need not raise the RSS measurably: the figure is checked against its parts)
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.results[] | select(.scenario == "idle-10k") | .connection as $c | .metrics as $m
    | $c.mode == "idle" and $c.idle_connections == 100 and $c.idle_open_at_end == 100
      and $c.server_rss_before_kb > 0 and $c.server_rss_peak_kb >= $c.server_rss_before_kb
      and $c.server_rss_kb_per_idle_connection == (($c.server_rss_peak_kb - $c.server_rss_before_kb) / 100 * 100 | round / 100)
      and $c.busy_latency_p99_us == $m.latency_us.p99 and $m.connections.peak <= $m.connections.requested
      and $m.idle_connections.open_at_end == 100' "$f"
  # the README's tables: connections/s and RSS per idle connection beside successful requests/s,
  # out of the chart across scenarios
  printf '# P\n' >"$TMP/README.md"
  run -0 "$ROOT/update-readme.sh" --file "$f" --readme "$TMP/README.md" --charts "$TMP/charts"
  grep -A2 -x '### churn-10 · HTTP/1.1 · barrage' "$TMP/README.md" | grep -qxE '\| Server \| Successful/s \| Conn/s \| Errors \| p50 \| p99 \| p99\.9 \| Server CPU \| Peak RSS \| vs (jetty|jdk-httpserver) \|'
  grep -A2 -x '### idle-10k · HTTP/1.1 · barrage' "$TMP/README.md" | grep -qxE '\| Server \| Successful/s \| RSS/idle conn \| Errors \| p50 \| p99 \| p99\.9 \| Server CPU \| Peak RSS \| vs (jetty|jdk-httpserver) \|'
  run ! grep -q 'Successful requests/s per server and scenario' "$TMP/README.md"
  # the summary says it beside requests/s
  # shellcheck disable=SC2016 # expanded by that bash
  run -0 bash -c 'source "$1/lib/rows.sh"; rows::print_summary "$2"' _ "$ROOT" "$f"
  echo "$output"
  [[ $(grep -c ' conn/s' <<<"$output") -eq 4 ]]
  [[ $(grep -c 'kB RSS/idle conn' <<<"$output") -eq 2 ]]
  no_process_left
}
