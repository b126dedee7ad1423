#!/usr/bin/env bats
# run-benchmarks.sh on lab hardware (lib/lab.sh): three "hosts" on this machine, network
# namespaces with a real sshd each (tests/fixtures/lab/netns.sh; keys made here, traffic only
# on their own bridge): srv runs the server, ld1 and ld2 the load. The server is the counting
# fixture (tests/fixtures/lab-servers/counting), which prints how many requests the load tools
# sent it when it stops, so the merged count is held against the server's own. Skipped, and
# counted as skipped by run-tests.sh, where namespaces cannot be made (not root, no sshd).

load test_helper
bats_require_minimum_version 1.5.0

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  # shellcheck source=tests/fixtures/lab/netns.sh
  source "$ROOT/tests/fixtures/lab/netns.sh"
  export LAB_SKIP='' NETNS_PREFIX NETNS_BRIDGE NETNS_SUBNET
  export LAB_TMP
  LAB_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/barrage lab.XXXX")
  if ! LAB_SKIP=$(netns::available); then return 0; fi
  schema::ensure_validator
  make -s -C "$ROOT/client" >&2
  netns::up "$LAB_TMP" >&2
}

teardown_file() {
  source "$ROOT/tests/fixtures/lab/netns.sh"
  netns::down "$LAB_TMP"
  rm -rf "$LAB_TMP"
}

setup() {
  if [[ -n $LAB_SKIP && $BATS_TEST_DESCRIPTION != *"option errors"* && $BATS_TEST_DESCRIPTION != *"labhost::server"* ]]; then
    skip "no network namespaces here: $LAB_SKIP"
  fi
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  RUN=$ROOT/run-benchmarks.sh
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/schema.sh"
  source "$ROOT/tests/fixtures/lab/netns.sh"
  common_setup "barrage lab test"
}

teardown() { common_teardown; }

# lab_conf SERVER_HOST LOAD_HOSTS: a lab file for the namespaces, the suite copied under $TMP.
lab_conf() {
  cat >"$TMP/lab.conf" <<CONF
# the test lab (tests/fixtures/lab/netns.sh)
server_host = $1
server_address = $NETNS_SUBNET.2   # what the load hosts connect to
load_hosts = $2
ssh_config = $LAB_TMP/ssh_config
lab_dir = $TMP/remote
CONF
}

# lab_run ARGS...: run-benchmarks.sh on the counting fixture over the lab, one short barrage run.
lab_run() {
  BARRAGE_SERVERS_DIR=$ROOT/tests/fixtures/lab-servers "$RUN" --lab "$TMP/lab.conf" --servers counting \
    --tool barrage --protocol h1 --scenarios hello --port 18080 --output "$TMP/out" "$@"
}

# no_process_left: nothing but sshd in any namespace (a second for the last stops to land).
no_process_left() {
  local role i left
  for ((i = 0; i < 50; i++)); do
    left=''
    for role in "${NETNS_ROLES[@]}"; do left+=$(netns::pids "$role"); done
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  for role in "${NETNS_ROLES[@]}"; do
    for i in $(netns::pids "$role"); do echo "left in $role: $(tr '\0' ' ' <"/proc/$i/cmdline")"; done
  done
  return 1
}

@test "lab: a --quick run across the namespaces: barrage on both load hosts, merged counts exact and equal to the server's" {
  lab_conf srv ld1,ld2
  run lab_run --quick --warmup 0s --server-warmup 0s --connections 5 --threads 1
  echo "$output"
  [ "$status" -eq 0 ]
  local f row server_count
  f=$(results_file)
  valid "$f"
  row=$(jq -c '.results[0]' "$f")
  [ "$(jq -r .status <<<"$row")" = ok ]
  # both load hosts ran their share: 3 + 2 connections
  [ "$(jq -c '[.lab_hosts[] | [.host, .connections]]' <<<"$row")" = '[["ld1",3],["ld2",2]]' ]
  # the merged record is the sum of the hosts' records, to the request
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.metrics as $m | [.lab_hosts[].metrics] as $h
    | $m.merged_from == 2 and $m.requests > 0 and $m.aborted == 0
    and $m.requests == ($h | map(.requests) | add) and $m.succeeded == ($h | map(.succeeded) | add)
    and $m.status["2xx"] == ($h | map(.status["2xx"]) | add)
    and $m.latency_us.max == ($h | map(.latency_us.max) | max)
    and $m.latency_us.min == ($h | map(.latency_us.min) | min)' - <<<"$row"
  # ... and the server counted exactly as many (it prints its count when it stops)
  server_count=$(sed -n 's/^requests=//p' "${f%.json}.logs/counting-run1.log")
  [ "$server_count" -eq "$(jq .metrics.requests <<<"$row")" ]
  # the hosts started together (barrage --start-at, ssh'd in one after the other ahead of it):
  # each one's first request reached the server at the start time, not before, not long after
  local host start first
  for host in 1 2; do
    start=$(jq ".lab_hosts[$((host - 1))].start_at_ms" <<<"$row")
    first=$(sed -n "s/^first=$NETNS_SUBNET\.$((host + 2)) //p" "${f%.json}.logs/counting-run1.log")
    echo "ld$host: start at $start, first request at $first"
    [[ $start =~ ^[0-9]+$ && $first =~ ^[0-9]+$ ]]
    ((first >= start - 5 && first <= start + 500))
  done
  # every host's facts; the server host's JDK
  [ "$(jq -c '[.lab.hosts[] | [.host, .role]]' "$f")" = '[["srv","server"],["ld1","load"],["ld2","load"]]' ]
  assert_jq '.lab.hosts[0].java | test("^[0-9]")' "$f"
  assert_jq '.lab.hosts[1:][] | .clock_offset_us != null and .rtt_us != null' "$f"
  # the server's CPU and memory, sampled on the server host
  assert_jq '.server_stats.rss_peak_kb > 0' - <<<"$row"
  grep -qP '^srv\t[0-9]+\tserver counting$' "${f%.json}.logs/lab-pids"
  [ "$(grep -cP '^ld[12]\t[0-9]+\ttool barrage$' "${f%.json}.logs/lab-pids")" -eq 2 ]
  no_process_left
}

@test "lab: a fixed rate split across both load hosts by their connections: schedules, lag and counts merged exactly" {
  lab_conf srv ld1,ld2
  # 301/s over 3 + 2 connections: 180.6 + 120.4, whole shares adding up to 301
  run lab_run --quick --warmup 0s --server-warmup 0s --connections 5 --threads 1 --rates 301
  echo "$output"
  [ "$status" -eq 0 ]
  local f row closed server_count
  f=$(results_file)
  valid "$f"
  closed=$(jq -c '.results[] | select(.load == null)' "$f")
  row=$(jq -c '.results[] | select(.load.target_rps == 301)' "$f")
  [ "$(jq -r .status <<<"$row")" = ok ]
  [ "$(jq -c '[.lab_hosts[] | [.host, .connections, .rate]]' <<<"$row")" = '[["ld1",3,181],["ld2",2,120]]' ]
  # each host ran its share on a schedule of its own; the merged schedule is their sum
  assert_jq '.lab_hosts[] | .metrics.rate.target == .rate' - <<<"$row"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.metrics as $m | [.lab_hosts[].metrics] as $h
    | $m.merged_from == 2 and $m.rate.target == 301
    and $m.rate.scheduled == ($h | map(.rate.scheduled) | add)
    and $m.rate.sent == ($h | map(.rate.sent) | add)
    and $m.rate.delivered == ($h | all(.rate.delivered))
    and $m.requests == ($h | map(.requests) | add) and $m.requests > 0
    and $m.schedule_lag_us.max == ($h | map(.schedule_lag_us.max) | max)
    and $m.latency_uncorrected_us.max == ($h | map(.latency_uncorrected_us.max) | max)' - <<<"$row"
  # a --quick run is 3 s: about 903 requests scheduled in all (each host rounds its own)
  assert_jq '.metrics.rate.scheduled >= 895 and .metrics.rate.scheduled <= 905' - <<<"$row"
  # the server saw both runs' requests, closed loop and fixed rate, and no more
  server_count=$(sed -n 's/^requests=//p' "${f%.json}.logs/counting-run1.log")
  [ "$server_count" -eq $(($(jq .metrics.requests <<<"$closed") + $(jq .metrics.requests <<<"$row"))) ]
  # the row says whether the busiest load host's tool was the limit, and which host that was
  assert_jq '(.client_bound | type) == "boolean" and (.client_stats.host | test("^ld[12]$"))' - <<<"$row"
  no_process_left
}

@test "lab: --server-warmup auto reaches the load hosts as barrage --warmup auto: until steady state, said in the rows" {
  lab_conf srv ld1,ld2
  run lab_run --quick --warmup 0s --server-warmup auto:8s --connections 4 --threads 1
  echo "$output"
  [ "$status" -eq 0 ]
  local f host
  f=$(results_file)
  valid "$f"
  # each load host ran barrage's own steady-state warm-up (not a fixed one at the cap)
  for host in ld1 ld2; do
    assert_jq '.warmup.mode == "auto" and .warmup.max_seconds == 8 and (.warmup.steady | type) == "boolean"' \
      "${f%.json}.logs/1-counting-warmup-h1-hello/hosts/$host/metrics.json"
  done
  # the warm-up says whether the server got steady, and so does its row
  assert_jq '.server_warmups[0] | .mode == "auto" and .duration_s == 8
    and (.shapes[0] | .status == "ok" and (.steady | type) == "boolean" and .warmup_s <= 9)' "$f"
  assert_jq '.results[0].server_warmup | .mode == "auto" and (.steady | type) == "boolean"' "$f"
  # steady on both hosts or not, as the row says: the longest host's warm-up, steady when both were
  # shellcheck disable=SC2016 # jq's variables
  jq -s '[.[].warmup] | {seconds: (map(.seconds) | max), steady: all(.steady)}' \
    "${f%.json}".logs/1-counting-warmup-h1-hello/hosts/ld{1,2}/metrics.json >"$TMP/hosts.json"
  [ "$(jq -c '{seconds, steady}' "$TMP/hosts.json")" = "$(jq -c '.server_warmups[0].shapes[0] | {seconds: .warmup_s, steady}' "$f")" ]
  no_process_left
}

@test "lab: --cpus pins the server on the server host and barrage on each load host" {
  lab_conf srv ld1,ld2
  background lab_run --quick --warmup 0s --server-warmup 0s --connections 2 --cpus 1:0 >"$TMP/stdout" 2>"$TMP/stderr"
  local pid=$BG_PID proc argv0 line seen='' rc=0 f
  # The namespaces share this PID space: barrage's CPUs while it runs on the load hosts, looked
  # for as long as the run lasts (a loaded machine takes long to reach the measured run, and its
  # 3 s can fall between two scans: each scan reads /proc with builtins only, no fork per
  # process; it failed once on a busy machine with a scan that forked two tools per process and
  # stopped looking after 300 scans)
  while [[ -z $seen ]] && kill -0 "$pid" 2>/dev/null; do
    for proc in /proc/[0-9]*; do
      argv0=''
      { IFS= read -r -d '' argv0 <"$proc/cmdline"; } 2>/dev/null || [[ -n $argv0 ]] || continue
      [[ $argv0 == "$TMP/remote/ld"*"/client/build/barrage" ]] || continue
      while IFS= read -r line; do
        [[ $line == Cpus_allowed_list:* ]] && seen+="$(tr -d '[:space:]' <<<"${line#*:}") "
      done <"$proc/status" 2>/dev/null || true
    done
    sleep 0.05
  done
  wait "$pid" || rc=$?
  cat "$TMP/stderr"
  [ "$rc" -eq 0 ]
  echo "barrage's CPUs: $seen"
  [[ $seen =~ ^(0 )+$ ]]
  f=$(results_file)
  valid "$f"
  # the server's own CPUs, as it printed them at start
  grep -q ' cpus=1$' "${f%.json}.logs/counting-run1.log"
  # one CPU: one thread on each host
  [ "$(jq -c '[.results[0].lab_hosts[] | .threads]' "$f")" = '[1,1]' ]
  no_process_left
}

@test "lab: Ctrl-C while barrage runs on the load hosts: exit 130, partial results, no process left in any namespace" {
  lab_conf srv ld1,ld2
  # In a process group of its own, which gets the SIGINT as from a terminal's Ctrl-C.
  background env BARRAGE_SERVERS_DIR="$ROOT/tests/fixtures/lab-servers" setsid "$RUN" --lab "$TMP/lab.conf" --servers counting \
    --tool barrage --protocol h1 --scenarios hello --port 18080 --output "$TMP/out" --duration 60s \
    --warmup 0s --server-warmup 0s --connections 4 --threads 1 >"$TMP/stdout" 2>"$TMP/stderr"
  local run_pid=$BG_PID i pids='' rc=0
  for ((i = 0; i < 900; i++)); do
    pids=$(find "$TMP/out" -name lab-pids 2>/dev/null | head -n 1)
    [[ -n $pids ]] && (($(grep -c 'tool barrage' "$pids") == 2)) && break
    sleep 0.1
  done
  [[ -n $pids ]] && (($(grep -c 'tool barrage' "$pids") == 2)) || { cat "$TMP/stderr"; return 1; }
  sleep 1
  kill -INT -- "-$run_pid"
  for ((i = 0; i < 600; i++)); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$run_pid" || rc=$?
  cat "$TMP/stderr"
  [ "$rc" -eq 130 ]
  valid "$(results_file)"
  [ "$(jq .complete "$(results_file)")" = false ]
  # (the clean-up's messages land where the interrupted step's stderr went: its run folder)
  grep -rq 'lab: stopping process group [0-9]* on ld2' "$TMP/out"
  no_process_left
}

@test "lab: an unreachable load host: a clear error, exit 1, nothing copied or started" {
  lab_conf srv "ld1, $NETNS_SUBNET.99"
  run lab_run --quick --connections 2
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"cannot reach lab host $NETNS_SUBNET.99 over ssh"* ]]
  [ ! -e "$TMP/remote" ]
  [[ $output != *"starting counting"* ]]
  no_process_left
}

@test "lab: a server host without a JDK: a clear error before any server starts" {
  lab_conf srv-nojdk ld1,ld2
  run lab_run --quick --connections 2
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"server host srv-nojdk has no JDK 21+: no JDK 21+ found"* ]]
  [[ $output != *"starting counting"* ]]
  [ ! -s "$(find "$TMP/out" -name lab-pids | head -n 1)" ]
  no_process_left
}

@test "lab: a --cpus list a host cannot pin to: a clear error before any server starts" {
  lab_conf srv ld1,ld2
  # the namespaces share this machine's CPUs: none has CPU $(nproc)
  run lab_run --quick --connections 2 --cpus "0:$(nproc)"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"load host ld1 cannot pin to CPUs $(nproc) (--cpus): "* ]]
  [[ $output == *"load host ld2 cannot pin to CPUs $(nproc) (--cpus): "* ]]
  [[ $output != *"server host srv cannot pin"* && $output != *"starting counting"* ]]
  no_process_left
}

@test "lab: --strict stops before starting anything when the pre-flight warns (a busy process here)" {
  lab_conf srv ld1,ld2
  # Every namespace shares this PID space: a busy loop is an "other busy process" on each host.
  # The loop is the process killed below (under `timeout` only timeout died and the loop ran on,
  # holding bats' output open), ends by itself after 120 s, and does not keep bats' fd 3.
  # shellcheck disable=SC2016 # expanded by the child bash
  background bash -c 'end=$((SECONDS + 120)); while ((SECONDS < end)); do :; done' >/dev/null 2>&1
  local busy_pid=$BG_PID
  sleep 1
  run lab_run --quick --connections 2 --strict
  stop_background "$busy_pid"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"pre-flight: srv: other busy processes: "* ]]
  [[ $output == *"--strict: "*"pre-flight warning(s) above"* ]]
  [[ $output != *"starting counting"* ]]
  no_process_left
}

@test "lab: churn scenarios: the pre-flight says the new connections/s a load host's tcp_tw_reuse and port range allow" {
  lab_conf srv ld1
  # a namespace's tcp_tw_reuse is Linux's default (2: loopback only): over the bridge it caps churn
  run lab_run --quick --connections 2 --strict --scenarios churn-1
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"pre-flight: ld1: tcp_tw_reuse="*"ephemeral ports (ip_local_port_range "*"): at most about "*" new connections/s"* ]]
  [[ $output != *"pre-flight: srv: tcp_tw_reuse"* ]] # the server host's ports are not the ones churn uses
  [[ $output == *"--strict: "*"pre-flight warning(s) above"* ]]
  no_process_left
}

@test "lab: option errors: load hosts without a server host, an unknown lab file key (exit 2)" {
  run -2 "$RUN" --load-hosts ld1 --dry-run
  [[ $output == *"load hosts without a server host"* ]]
  printf 'server_host = srv\nload_host = ld1\n' >"$TMP/bad.conf"
  run -2 "$RUN" --lab "$TMP/bad.conf" --dry-run
  [[ $output == *"unknown key 'load_host'"* ]]
}

@test "lab: option errors: a load host given twice, a host name that begins with - or holds white space (exit 2)" {
  local bad
  for bad in "--server-host srv --load-hosts ld1,ld2,ld1" "--server-host srv --load-hosts ld1,root@ld1,ld1" \
    "--server-host -oProxyCommand=x --load-hosts ld1" "--server-host srv --load-hosts ld1,-F/tmp/x"; do
    # shellcheck disable=SC2086 # options and their values
    run "$RUN" $bad --dry-run
    echo "$bad: $output"
    [ "$status" -eq 2 ]
  done
  run "$RUN" --server-host srv --load-hosts ld1,ld2,ld1 --dry-run
  [[ $output == *"load host 'ld1' given twice"* ]]
  run "$RUN" --server-host -oProxyCommand=x --load-hosts ld1 --dry-run
  [[ $output == *"lab host '-oProxyCommand=x' begins with '-'"* ]]
  run -2 "$RUN" --server-host 'srv x' --load-hosts ld1 --dry-run
  [[ $output == *"lab host 'srv x' holds white space"* ]]
  run -2 "$RUN" --server-host srv --load-hosts $'ld1\tld2' --dry-run
  [[ $output == *"holds white space"* ]]
  # two names, one work folder on a host that shares its home: as bad as one name twice
  run -2 "$RUN" --server-host srv --load-hosts 'u@ld1,u:ld1' --dry-run
  [[ $output == *"lab hosts 'u@ld1' and 'u:ld1' would share the work folder barrage-lab/u_ld1"* ]]
  # in a lab file too
  printf 'server_host = srv\nload_hosts = ld1, ld2, ld2\n' >"$TMP/twice.conf"
  run -2 "$RUN" --lab "$TMP/twice.conf" --dry-run
  [[ $output == *"load host 'ld2' given twice"* ]]
}

@test "lab: a server that declares h3, h1s or h2 gets the certificate staged for it on the server host, h1s/h2 the TLS port (labhost::server)" {
  local lab="$TMP/lab dir" s
  mkdir -p "$lab/servers/quic" "$lab/servers/plain" "$lab/servers/https"
  cp -r "$ROOT/lib" "$lab/lib"
  printf 'name=quic\nprotocols=h1,h2c,h3\n' >"$lab/servers/quic/server.properties"
  printf 'name=plain\nprotocols=h1,h2c\n' >"$lab/servers/plain/server.properties"
  printf 'name=https\nprotocols=h1,h1s\n' >"$lab/servers/https/server.properties"
  for s in quic plain https; do
    cat >"$lab/servers/$s/start.sh" <<'START'
#!/bin/sh
echo "PORT=$PORT BIND=$BIND TLS_CERT=${TLS_CERT:-none} TLS_KEY=${TLS_KEY:-none} TLS_PORT=${TLS_PORT:-none}"
START
    chmod +x "$lab/servers/$s/start.sh"
  done
  # nothing staged (lib/lab.sh copies certs/): a clear error, the server not started
  # shellcheck disable=SC2016 # expanded by the child bash
  run bash -c 'cd "$1" && source lib/labhost.sh && labhost::server "$2" 18080 0.0.0.0' _ "$lab" quic
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"no certs/server.pem and server.key in $lab"* && $output != *PORT=* ]]
  mkdir "$lab/certs"
  echo certificate >"$lab/certs/server.pem"
  echo key >"$lab/certs/server.key"
  # shellcheck disable=SC2016 # expanded by the child bash
  run bash -c 'cd "$1" && source lib/labhost.sh && labhost::server "$2" 18080 0.0.0.0 2>/dev/null' _ "$lab" quic
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "PORT=18080 BIND=0.0.0.0 TLS_CERT=$lab/certs/server.pem TLS_KEY=$lab/certs/server.key TLS_PORT=none" ]
  # shellcheck disable=SC2016 # expanded by the child bash
  run bash -c 'cd "$1" && source lib/labhost.sh && labhost::server "$2" 18080 0.0.0.0 2>/dev/null' _ "$lab" plain
  [ "$output" = "PORT=18080 BIND=0.0.0.0 TLS_CERT=none TLS_KEY=none TLS_PORT=none" ]
  # HTTPS over TCP: the certificate and the port after PORT (servers::tls_port's rule)
  # shellcheck disable=SC2016 # expanded by the child bash
  run bash -c 'cd "$1" && source lib/labhost.sh && labhost::server "$2" 18080 0.0.0.0 2>/dev/null' _ "$lab" https
  [ "$output" = "PORT=18080 BIND=0.0.0.0 TLS_CERT=$lab/certs/server.pem TLS_KEY=$lab/certs/server.key TLS_PORT=18081" ]
}

@test "lab: HTTP/3 across the namespaces: netty over QUIC to the server address, a certificate made for it, verified from the load host" {
  source "$ROOT/lib/servers.sh"
  servers::build netty
  lab_conf srv ld1,ld2
  # the first load host's h3 checks run in the suite's venv (the namespaces reach no PyPI)
  source "$ROOT/lib/contract.sh"
  contract::ensure_h3client
  printf 'h3_venv = %s\n' "$CONTRACT_H3_VENV" >>"$TMP/lab.conf"
  run "$RUN" --lab "$TMP/lab.conf" --servers netty --tool barrage --protocol h3 --scenarios hello --port 18080 \
    --output "$TMP/out" --quick --duration 1s --warmup 0s --server-warmup 0s --connections 4 --threads 1
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"verifying netty (h1,h3)"* ]]
  local f row
  f=$(results_file)
  valid "$f"
  row=$(jq -c '.results[0]' "$f")
  [ "$(jq -r '[.tool, .protocol, .status] | join(" ")' <<<"$row")" = "barrage h3 ok" ]
  # both load hosts measured over QUIC; the merged record keeps the QUIC counters, exact
  [ "$(jq -c '[.lab_hosts[] | [.host, .connections]]' <<<"$row")" = '[["ld1",2],["ld2",2]]' ]
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.metrics as $m | [.lab_hosts[].metrics] as $h
    | $m.merged_from == 2 and $m.succeeded > 0 and $m.failed == 0 and $m.quic != null
    and $m.requests == ($h | map(.requests) | add) and ($h | all(.quic != null))
    and $m.started == $m.requests + $m.aborted' - <<<"$row"
  # the contract's h3 checks passed from ld1, against the certificate made for the run's address
  grep -q "^ok - netty h3 GET /hello" "${f%.json}.logs/netty-run1.contract.tap"
  [ "$(grep -c '^not ok' "${f%.json}.logs/netty-run1.contract.tap")" -eq 0 ]
  no_process_left
}
