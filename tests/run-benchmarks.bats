#!/usr/bin/env bats
# run-benchmarks.sh: options and their errors, the plan, one server's life on fixture servers
# (tests/fixtures/fake-servers: good, wrong (fails verification), broken (dies at start-up),
# unbuildable), a busy port, SIGINT/SIGTERM mid-run, and a --quick run of two real servers.
# Every results file is checked with a real JSON Schema validator (lib/schema.sh).

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  schema::ensure_validator
}

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  RUN=$ROOT/run-benchmarks.sh
  FAKES=$ROOT/tests/fixtures/fake-servers
  TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/barrage test.XXXX")
  PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  HOLDER_PID=''
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/schema.sh"
}

teardown() {
  if [[ -n $HOLDER_PID ]]; then kill "$HOLDER_PID" 2>/dev/null || true; wait "$HOLDER_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}

# fake ARGS...: run-benchmarks.sh on the fixture servers, short runs, results under $TMP/out.
fake() {
  BARRAGE_SERVERS_DIR=$FAKES "$RUN" --port "$PORT" --output "$TMP/out" --duration 1s --warmup 0s \
    --connections 4 "$@"
}

# results_file: the one results file written under $TMP/out.
results_file() { find "$TMP/out" -maxdepth 1 -name '*.json' | head -n 1; }

# valid FILE: schema-valid results file.
valid() { schema::validate "$ROOT/schemas/results.schema.json" "$1"; }

# leftovers: processes still running whose command line mentions this test's port.
leftovers() { pgrep -af -- ":$PORT/|contract_server.py $PORT|--port $PORT" || true; }

@test "options: --help documents every option" {
  run "$RUN" --help
  [ "$status" -eq 0 ]
  local opt
  for opt in --servers --scenarios --tool --protocol --duration --warmup --runs --label --output \
    --description --connections --threads --cpus --quick --list --dry-run --port; do
    [[ $output == *"$opt"* ]] || { echo "missing $opt"; return 1; }
  done
}

@test "options: unknown server, scenario, tool or protocol exit 2 listing the valid names" {
  run fake --servers good,nope --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown server 'nope'"* && $output == *"good"* && $output == *"wrong"* ]]
  run fake --scenarios hello,nope --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown scenario 'nope'"* && $output == *"post-load"* && $output == *"large-file"* ]]
  run fake --tool ab --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown tool 'ab'"* && $output == *"h2load"* && $output == *"wrk"* ]]
  run fake --protocol h3 --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown protocol 'h3'"* && $output == *"h1 h2c"* ]]
}

@test "options: bad values exit 2" {
  local bad
  for bad in "--duration 10x" "--warmup -1" "--runs 0" "--port 99999" "--cpus 0" "--threads x" \
    "--connections 0" "--label a/b" "--bogus 1" "--servers"; do
    # shellcheck disable=SC2086 # each case is an option and its value
    run fake $bad --dry-run
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
  done
}

@test "options: --list shows servers with protocols and the scenario table" {
  BARRAGE_SERVERS_DIR=$FAKES run "$RUN" --list
  [ "$status" -eq 0 ]
  [[ $output == *"good"*"1.0-test"*"h1"* ]]
  [[ $output == *"high-concurrency"*"1000"* ]]
  [[ $output == *"large-file"*"/file?size=1048576"* ]]
  [[ $output == *"wrk"* && $output == *"h2load"* ]]
}

@test "plan: --dry-run lists every run, skips what a tool cannot express, estimates the time" {
  run fake --servers good --scenarios hello,mixed --tool wrk,h2load --duration 30s --warmup 10s --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"good"*"h2load"*"h1"*"mixed"*"skipped: h2load sends one method per run"* ]]
  [[ $output == *"4 planned runs, 30 s each + 10 s warm-up"* ]]
  # 4 x (30 + 10 + 2 s around each run) + 15 s for the server's start and check.
  [[ $output == *"about 4 min"* ]]
  # h2c only for servers that declare it: the fixture servers are h1 only.
  [[ $output != *h2c* ]]
  [ ! -e "$TMP/out" ]
}

@test "plan: h2c for servers that declare it, only with tools that speak it" {
  run "$RUN" --servers jetty,jdk-httpserver --scenarios hello --tool wrk,h2load --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"jetty"*"h2load"*"h2c"*"hello"* ]]
  [ "$(grep -c 'h2c' <<<"$output")" -eq 1 ]
  run "$RUN" --servers jdk-httpserver --protocol h2c --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"0 planned runs"* ]]
  run "$RUN" --servers jdk-httpserver --protocol h2c --port "$PORT" --output "$TMP/out"
  [ "$status" -eq 2 ]
  [[ $output == *"nothing to run"* ]]
}

@test "plan: repeated runs alternate the order of servers" {
  run fake --servers good,wrong --scenarios hello --tool wrk --runs 2 --dry-run
  [ "$status" -eq 0 ]
  [ "$(awk '$3 == "wrk" {printf "%s:%s ", $1, $2}' <<<"$output")" = "1:good 1:wrong 2:wrong 2:good " ]
}

@test "plan: --cpus pins server and tool apart and sets the default threads" {
  run fake --servers good --scenarios hello --tool wrk --cpus 0:1 --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"server on CPUs 0, load tool on CPUs 1"* ]]
  run fake --servers good --scenarios hello --tool wrk --cpus none --list
  [ "$status" -eq 0 ]
  [[ $output == *"threads default to the load tool's CPUs: $(nproc)"* ]]
}

@test "run: a good, a failing-verification, a dying and an unbuildable server" {
  run fake --servers good,wrong,broken,unbuildable --scenarios hello,mixed --tool wrk,h2load --label mix
  echo "$output"
  [ "$status" -eq 1 ]
  local f
  f=$(results_file)
  [[ $f == */20*Z-mix.json ]]
  valid "$f"
  [ "$(jq .complete "$f")" = true ]
  [ "$(jq -r .label "$f")" = mix ]
  [ "$(jq '.results | length' "$f")" -eq 16 ]
  # good: measured, with server stats; mixed skipped for h2load with the reason.
  [ "$(jq '[.results[] | select(.server == "good" and .status == "ok")] | length' "$f")" -eq 3 ]
  [ "$(jq '[.results[] | select(.server == "good" and .status == "ok") | .metrics.requests > 0 and .metrics.failed == 0] | all' "$f")" = true ]
  [ "$(jq '[.results[] | select(.status == "ok") | .server_stats.rss_peak_kb > 0] | all' "$f")" = true ]
  jq -e '.results[] | select(.server == "good" and .tool == "h2load" and .scenario == "mixed") | .status == "skipped" and (.reason | test("one method"))' "$f"
  # wrong: verified, failed, not measured.
  [ "$(jq '[.results[] | select(.server == "wrong") | .status == "failed" and .metrics == null and (.reason | test("contract verification failed"))] | all' "$f")" = true ]
  # broken: failed at start.
  [ "$(jq '[.results[] | select(.server == "broken") | .status == "failed" and (.reason | test("exited before it was ready"))] | all' "$f")" = true ]
  # unbuildable: the build error is recorded and the run went on.
  [ "$(jq '[.results[] | select(.server == "unbuildable") | .status == "failed" and (.reason | startswith("build failed"))] | all' "$f")" = true ]
  # The summary table and the path on stdout.
  [[ $output == *"good"*"wrk"*"hello"*"ok"* ]]
  [[ $output == *"$f"* ]]
  [ -z "$(leftovers)" ]
}

@test "run: the results file records the system, tools, settings and the command" {
  run fake --servers good --scenarios hello --tool wrk --description "test box, it's mine" --cpus 0:1
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r .system.description "$f")" = "test box, it's mine" ]
  [ "$(jq -c .system.cpuPinning "$f")" = '{"server":"0","client":"1"}' ]
  [ "$(jq -r .tools.wrk "$f")" != null ]
  [ "$(jq -c .settings "$f")" = '{"duration_s":1,"warmup_s":0,"runs":1}' ]
  [[ $(jq -r .command "$f") == *run-benchmarks.sh*"--scenarios hello"* ]]
  # quoted as a person would type it, and the shell reads it back as the same words
  [[ $(jq -r .command "$f") == *"--description 'test box, it'\''s mine' --cpus 0:1"* ]]
  local words=()
  eval "words=($(jq -r .command "$f"))"
  [ "${words[-3]}" = "test box, it's mine" ]
  [[ $(jq -r .commit "$f") =~ ^[0-9a-f]{40}(-dirty)?$ ]]
  [ "$(jq -c '.results[0].config' "$f")" = '{"threads":1,"connections":4,"streams":null,"duration_s":1,"warmup_s":0,"endpoint":"/hello","method":"GET"}' ]
  # No side files stay next to the results.
  [ "$(find "$TMP/out" -maxdepth 1 -type f | wc -l)" -eq 1 ]
}

@test "run: --runs 2 measures every entry twice, the second time in reverse server order" {
  run fake --servers good,wrong --scenarios hello --tool wrk --runs 2
  [ "$status" -eq 1 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r '[.results[] | "\(.run):\(.server):\(.status)"] | join(" ")' "$f")" = "1:good:ok 1:wrong:failed 2:wrong:failed 2:good:ok" ]
  [ "$(jq .settings.runs "$f")" -eq 2 ]
}

@test "run: a busy port stops the run with an error naming the holder, which is left alone" {
  python3 -m http.server --bind 127.0.0.1 "$PORT" >/dev/null 2>&1 &
  HOLDER_PID=$!
  for _ in $(seq 50); do curl -s "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done
  run fake --servers good --scenarios hello --tool wrk
  [ "$status" -eq 1 ]
  [[ $output == *"port $PORT is taken by pid $HOLDER_PID"* ]]
  kill -0 "$HOLDER_PID"
  valid "$(results_file)"
}

# interrupt SIGNAL CODE: signal a run after its first finished row; check the partial file.
interrupt() {
  local signal=$1 code=$2 pid f rc=0 i
  # Started from a shell without job control, a background job ignores SIGINT; restore the
  # default so the script's trap sees it, as it would from a terminal.
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    env BARRAGE_SERVERS_DIR="$FAKES" "$RUN" --port "$PORT" --output "$TMP/out" --duration 3s --warmup 0s \
    --connections 4 --servers good --tool wrk --scenarios hello,baseline,post-load,large-file \
    >"$TMP/stdout" 2>"$TMP/stderr" &
  pid=$!
  for ((i = 0; i < 300; i++)); do
    f=$(find "$TMP/out" -maxdepth 1 -name '*.json' 2>/dev/null | head -n 1)
    [[ -n $f ]] && (($(jq '[.results[] | select(.status == "ok")] | length' "$f" 2>/dev/null || echo 0) >= 1)) && break
    sleep 0.1
  done
  sleep 1
  kill "-$signal" "$pid"
  wait "$pid" || rc=$?
  cat "$TMP/stderr"
  [ "$rc" -eq "$code" ]
  valid "$f"
  [ "$(jq .complete "$f")" = false ]
  [ "$(jq '[.results[] | select(.status == "ok")] | length' "$f")" -ge 1 ]
  [ "$(jq '.results | length' "$f")" -lt 4 ]
  [ -z "$(leftovers)" ]
  [ "$(find "$TMP/out" -maxdepth 1 -type f | wc -l)" -eq 1 ]
}

@test "signals: SIGINT mid-run leaves a valid partial file, exits 130, leaves no process" {
  interrupt INT 130
}

@test "signals: SIGTERM mid-run leaves a valid partial file, exits 143, leaves no process" {
  interrupt TERM 143
}

@test "barrage runs mixed over h1 with the scenario's script (no skip), on the fixture server" {
  run fake --servers good --scenarios mixed --tool barrage --dry-run
  [ "$status" -eq 0 ]
  [[ $output != *"skipped"* ]]
  run fake --servers good --scenarios mixed --tool barrage
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r '.results[0] | [.tool, .scenario, .status] | join(" ")' "$f")" = "barrage mixed ok" ]
  [ "$(jq '.results[0].metrics | .succeeded > 0 and .failed == 0' "$f")" = true ]
  [ -z "$(leftovers)" ]
}

@test "e2e: barrage over h2c measures a real server with the scenario's streams" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty
  run "$RUN" --quick --port "$PORT" --output "$TMP/out" --servers jetty --scenarios hello \
    --tool barrage --protocol h2c
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq '.results | length' "$f")" -eq 1 ]
  # as readable as any file the user writes (the umask decides, not mktemp)
  [ "$(stat -c %a "$f")" = "$(printf '%o' $((0666 & ~0$(umask))))" ]
  [ "$(jq -r '.results[0] | [.tool, .protocol, .status, .config.streams] | join(" ")' "$f")" = "barrage h2c ok 10" ]
  # exact accounting: every request in one bucket (a server's slow streams may time out, counted)
  [ "$(jq '.results[0].metrics | .succeeded > 0 and .accounting == "exact"
      and .requests == .succeeded + .failed
      and .failed == .status["4xx"] + .status["5xx"] + ([.errors[]] | add)' "$f")" = true ]
  [ -z "$(leftovers)" ]
}

@test "e2e: --quick, two real servers (one with h2c) x two scenarios x wrk and h2load" {
  source "$ROOT/lib/servers.sh"
  servers::build jdk-httpserver jetty
  run "$RUN" --quick --port "$PORT" --output "$TMP/out" --servers jdk-httpserver,jetty \
    --scenarios hello,post-load --tool wrk,h2load
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq .complete "$f")" = true ]
  # jdk-httpserver: h1 x 2 tools x 2 scenarios; jetty adds h2load over h2c.
  [ "$(jq '.results | length' "$f")" -eq 10 ]
  [ "$(jq '[.results[] | select(.protocol == "h2c")] | length' "$f")" -eq 2 ]
  [ "$(jq '[.results[] | .status == "ok" and .metrics.requests > 0 and .metrics.failed == 0] | all' "$f")" = true ]
  [ "$(jq '[.results[] | .server_stats.cpu_pct > 0 and .server_stats.rss_peak_kb > 0] | all' "$f")" = true ]
  [ "$(jq -r '.results[] | select(.server == "jetty") | .server_version' "$f" | sort -u)" != null ]
  [ -z "$(leftovers)" ]
}
