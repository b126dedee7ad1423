#!/usr/bin/env bats
# run-benchmarks.sh at the same load for every server (lib/openloop.sh): --rates, --capacity,
# --slo, on the fixture servers: good, and loaded (tests/fixtures/fake-servers/loaded: one
# request at a time in 1/FAKE_CAPACITY s, so latency grows with load past a known capacity);
# Ctrl-C during a capacity search; an end-to-end --quick run on jetty (what update-readme.sh and
# compare-results.sh make of such rows: openloop-results.bats). Load goes to 127.0.0.1
# only, on a random free port, and every run ends by itself.

load test_helper

setup_file() { run_setup_file; }

setup() { run_setup; }

teardown() { run_teardown; }

# fake ARGS...: run-benchmarks.sh on the fixture servers, barrage only, 2 s steps.
fake() {
  BARRAGE_SERVERS_DIR=$FAKES "$RUN" --port "$PORT" --output "$TMP/out" --duration 2s --warmup 1s \
    --server-warmup 0s --tool barrage "$@"
}

@test "openloop: --help documents --rates, --capacity, --capacity-precision, --capacity-start, --slo and exit 3" {
  run "$RUN" --help
  [ "$status" -eq 0 ]
  local opt
  for opt in --rates --capacity --capacity-precision --capacity-start --slo "3 when"; do
    [[ $output == *"$opt"* ]] || { echo "missing $opt"; return 1; }
  done
}

@test "openloop: bad rates, conditions and gates exit 2 with the reason" {
  local bad
  for bad in "--rates 0" "--rates 10,x" "--rates ,," "--capacity p99<10" "--capacity foo<1ms" \
    "--capacity errors<1" "--capacity p99>1ms" "--slo hello:p99<" "--capacity-precision 2" \
    "--capacity-precision 0" "--capacity-start 0" "--rate-stages 0:2s" "--rate-stages 10:2x" \
    "--rate-stages 10:2s,,20:1s" "--rate-stages 10"; do
    # shellcheck disable=SC2086 # each case is an option and its value
    run fake $bad --dry-run
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
  done
  run fake --capacity 'p99<10' --dry-run
  [[ $output == *"a latency wants a unit"* ]]
}

@test "openloop: --slo on a scenario that is not in the table is refused before anything starts" {
  run fake --servers good --scenarios hello --slo 'hello:p99<5s;helo:p99<5ms' --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"--slo: unknown scenario 'helo' (valid: "*"hello"*")"* ]]
  [[ $output != *"planned runs"* ]]
  [ ! -e "$TMP/out" ]
  # a known scenario that is not selected, and a gate for every scenario, are fine
  run fake --servers good --scenarios hello --slo 'post-load:p99<5ms;errors<1%' --dry-run
  [ "$status" -eq 0 ]
}

@test "openloop: the plan adds a run per rate and a capacity search; wrk's are skipped with the reason" {
  run fake --servers good --scenarios hello --tool barrage,wrk --rates 100,200 --capacity 'p99<10ms' --dry-run
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"8 planned runs"* ]]
  [[ $output == *"barrage"*"hello"*"rate=100"* && $output == *"barrage"*"hello"*"rate=200"* ]]
  [[ $output == *"barrage"*"hello"*"capacity"* ]]
  [ "$(grep -c 'wrk.*skipped: wrk has no fixed-rate' <<<"$output")" -eq 3 ]
}

@test "openloop: rates per scenario from the table's rates column; a table without it plans none" {
  mkdir -p "$TMP/scenarios"
  cp "$ROOT"/scenarios/* "$TMP/scenarios/"
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --servers jetty --scenarios hello,baseline --tool barrage --protocol h1 --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"2 planned runs"* ]]
  awk -F'\t' -v OFS='\t' '$1 == "hello" {$7 = "50,70"} {print}' "$ROOT/scenarios/scenarios.tsv" >"$TMP/scenarios/scenarios.tsv"
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --servers jetty --scenarios hello,baseline --tool barrage --protocol h1 --dry-run
  echo "$output"
  [[ $output == *"4 planned runs"* && $output == *"hello"*"rate=50"* && $output == *"hello"*"rate=70"* ]]
  [[ $output != *"baseline"*"rate="* ]]
  # --rates wins over the column
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --servers jetty --scenarios hello --tool barrage --protocol h1 --rates 9 --dry-run
  [[ $output == *"2 planned runs"* && $output == *"rate=9"* && $output != *"rate=50"* ]]
}

@test "openloop: ramped rates from --rate-stages or the table's stages column; the plan says so and counts their time" {
  mkdir -p "$TMP/scenarios"
  cp "$ROOT"/scenarios/* "$TMP/scenarios/"
  awk -F'\t' -v OFS='\t' '$1 == "hello" {$7 = "-"; $8 = "10:1m,100:2m"} {print}' "$ROOT/scenarios/scenarios.tsv" >"$TMP/scenarios/scenarios.tsv"
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --servers jetty --scenarios hello,baseline --tool barrage,wrk --protocol h1 \
    --duration 10s --warmup 0s --server-warmup 0 --dry-run
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"6 planned runs"* ]]
  [ "$(grep -c 'barrage.*hello.*stages.*ramped: 10:1m,100:2m' <<<"$output")" -eq 1 ]
  [ "$(grep -c 'wrk.*hello.*stages.*skipped: wrk has no fixed-rate' <<<"$output")" -eq 1 ]
  [ "$(grep -c 'baseline.*stages' <<<"$output")" -eq 0 ]
  # 4 runs of 10 s and barrage's ramp of 180 s (wrk's ramp is skipped: it costs nothing), 2 s of overhead each, a
  # server start of 15 s: 245 s, about 5 min (2 without the ramp's length)
  [[ $output == *"about 5 min"* ]]
  # --rate-stages wins over the column
  run env SCENARIOS_DIR="$TMP/scenarios" "$RUN" --servers jetty --scenarios hello --tool barrage --protocol h1 \
    --rate-stages 5:1s,9:1s --dry-run
  [[ $output == *"ramped: 5:1s,9:1s"* && $output != *"10:1m"* ]]
}

@test "openloop: a ramp past the server's capacity: the row keeps the stages, where delivery fell short, and the README draws p99 against offered rate" {
  # one request at a time in 10 ms: 100/s at most; the ramp goes from 20/s to 300/s in 4 s
  FAKE_CAPACITY=100 run fake --servers loaded --scenarios hello --connections 8 --rate-stages 20:1s,300:4s --warmup 0s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  # (jq prints nothing for an empty file: only "true" passes)
  [ "$(jq '[.results[] | select(.load.mode == "stages")] | length == 1 and (.[0] | .status == "ok"
    and .load.stages == "20:1s,300:4s" and .metrics.rate.stages.points == [{rate: 20, duration_s: 1}, {rate: 300, duration_s: 4}]
    and .metrics.rate.first_short.target_rate > 60 and .metrics.rate.first_short.target_rate < 300
    and .drift.status == "unknown" and .drift.reason == "a ramped rate trends by design")' "$f")" = true ]
  [[ $output =~ hello\ ramped\ +1\ +ok.*delivery\ fell\ short\ at\ [0-9]+/s\ offered ]]
  no_process_left
  local readme=$TMP/README.md
  printf '# P\n' >"$readme"
  run "$ROOT/update-readme.sh" --file "$f" --readme "$readme" --charts "$TMP/charts"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -qxF '#### hello · h1 · barrage, ramped: 20:1s,300:4s' "$readme"
  grep -qE '^\| loaded \| 2[0-9]{2} \| at [0-9]+/s \| [0-9.]+ ms \| ' "$readme"
  grep -qF '(charts/ramp-p99-hello-h1-barrage.png)' "$readme"
  [ "$(head -c 4 "$TMP/charts/ramp-p99-hello-h1-barrage.png" | tail -c 3)" = PNG ]
  # the ramped row is not in the closed-loop table
  [ "$(sed -n '/^### hello · HTTP\/1.1 · barrage/,/^###/p' "$readme" | grep -c '^| loaded')" -eq 1 ]
}

@test "openloop: a rate the server cannot take is recorded as not delivered, with the achieved rate and backlog" {
  run fake --servers good --scenarios hello --connections 1 --rates 20000 --warmup 0s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  assert_jq '.results[] | select(.load.mode == "rate") | .load.target_rps == 20000 and .status == "ok"
    and .metrics.rate.delivered == false and .metrics.rate.achieved < 20000 and .metrics.rate.backlog_max > 0' "$f"
  # the summary line: no latency for it, what was achieved instead
  [[ $output =~ hello\ @20000/s\ +1\ +ok\ +[0-9]+\ +-\ +[0-9]+\ +not\ delivered:\ achieved\ [0-9]+/s,\ backlog ]]
  no_process_left
}

@test "openloop: a server that breaks an SLO: the row is marked and the run exits 3; one that meets it exits 0" {
  FAKE_CAPACITY=100 run fake --servers loaded --scenarios hello --connections 16 --rates 130 \
    --slo 'hello:p99<100ms,errors<1%;post-load:p99<1ms'
  echo "$output"
  [ "$status" -eq 3 ]
  local f
  f=$(results_file)
  valid "$f"
  assert_jq '[.results[] | select(.load.mode == "rate") | .slo.met == false
          and ([.slo.conditions[] | select(.met == false) | .condition] | index("p99<100ms") != null)] | all and length == 1' "$f"
  # post-load's condition is not hello's
  assert_jq '[.results[].slo.conditions[].condition] | index("p99<1ms") == null' "$f"
  [[ $output == *"hello @130/s"*"SLO not met: "*"p99<100ms"* ]]
  [[ $output == *"SLO not met (exit 3)"* ]]
  no_process_left
  rm -rf "$TMP/out"
  run fake --servers good --scenarios hello --connections 4 --slo 'p99<5s'
  [ "$status" -eq 0 ]
  assert_jq '.results[0].slo == {met: true, conditions: [{condition: "p99<5s", value: .results[0].metrics.latency_us.p99, met: true}]}' "$(results_file)"
}

@test "openloop: the capacity search finds a known capacity within the precision and keeps every step" {
  # no warm-up before each step: the fake has no JIT to warm, and the search's steps are many
  FAKE_CAPACITY=100 run fake --servers loaded --scenarios hello --connections 16 --warmup 0s \
    --capacity 'p99<100ms' --capacity-start 25 --capacity-precision 0.05
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  jq -c '.results[] | select(.capacity) | .capacity | del(.steps), (.steps[] | [.rate, .phase, .pass, .why])' "$f"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '(.results[] | select(.load == null) | .server_stats) as $closed_loop_stats
    | .results[] | select(.load.mode == "capacity") | .capacity as $c
    | .status == "ok" and .load.conditions == ["p99<100ms"]
      and $c.capacity_rps != null
      # never above the known capacity (a queue past it fails the target within a second or
      # two), and not far below it: the machine running the tests is shared, and a loaded one
      # slows the Python fake itself (a fresh-clone run found 24/s, the step at 25/s late)
      and $c.capacity_rps <= 115 and $c.capacity_rps >= 10
      # bisected to the precision, against the step that failed, which says why
      and ($c.failed_step.rate - $c.capacity_rps) <= ([0.05 * $c.capacity_rps, 1] | max)
      and ($c.failed_step.why | length > 0)
      # every step kept, in order: raised from the start, then bisected, then confirmed
      and $c.steps[0].rate == 25 and ($c.steps | length) >= 4
      and $c.steps[-1].phase == "confirm" and $c.steps[-1].rate == $c.capacity_rps
      and $c.confirmed == $c.steps[-1].pass
      and ([$c.steps[] | select(.pass) | .rate] | max) == $c.capacity_rps
      # the stats of its last step (run in the shell that writes the row), not those left
      # from the closed-loop run before it
      and .ended >= .started and .server_stats.cpu_pct > 0 and .server_stats != $closed_loop_stats' "$f"
  [[ $output == *"hello capacity"*"capacity "*"/s"* ]]
  no_process_left
}

@test "openloop: Ctrl-C during a capacity search keeps the steps so far, exits 130, leaves no process" {
  local i rc=0 f
  background env FAKE_CAPACITY=100 BARRAGE_SERVERS_DIR="$FAKES" setsid "$RUN" --port "$PORT" --output "$TMP/out" \
    --duration 2s --warmup 1s --server-warmup 0s --tool barrage --servers loaded --scenarios hello \
    --connections 16 --capacity 'p99<100ms' --capacity-start 25 >"$TMP/stdout" 2>"$TMP/stderr"
  local run_pid=$BG_PID
  # Ctrl-C during the second step, whichever it is: on a loaded machine the Python fake can
  # miss 25/s, and the search then lowers the rate instead of raising it (a run waiting for
  # the raise saw the search end before its Ctrl-C)
  for ((i = 0; i < 900; i++)); do
    (($(grep -c 'capacity search: [a-z]* step at' "$TMP/stderr") >= 2)) && break
    sleep 0.1
  done
  sleep 1
  kill -INT -- "-$run_pid"
  for ((i = 0; i < 300; i++)); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$run_pid" || rc=$?
  cat "$TMP/stderr"
  [ "$rc" -eq 130 ]
  f=$(results_file)
  valid "$f"
  [ "$(jq .complete "$f")" = false ]
  assert_jq '.results[] | select(.load.mode == "capacity") | .status == "failed"
    and (.reason | test("interrupted after 1 step")) and .capacity.steps[0].rate == 25
    and (.capacity.steps | length) == 1' "$f"
  no_process_left
  # the results file, its page (marked incomplete) and its logs folder, no side files
  grep -qF 'id="incomplete"' "${f%.json}.html"
  [ "$(find "$TMP/out" -maxdepth 1 -type f | wc -l)" -eq 2 ]
}

@test "e2e: --quick on jetty with --rates and --capacity, one scenario" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty
  # a fixed 1 s server warm-up (the steady-state one is tested in run-benchmarks.bats); each
  # rate and capacity step keeps --quick's warm-up: without one, a step's first second holds
  # barrage's 100 connects and the server's colder paths (schedule lag up to 4.5 ms at 200/s
  # here, against the 10 ms "delivered" limit); CI failed this test so (its search found 125/s)
  run "$RUN" --quick --duration 1s --server-warmup 1s --port "$PORT" --output "$TMP/out" --servers jetty --scenarios hello \
    --tool barrage --protocol h1 --rates 200 --capacity 'p99<200ms' --capacity-start 2000 \
    --capacity-precision 0.5 --slo 'hello:errors<100%'
  echo "$output"
  local f late
  f=$(results_file)
  valid "$f"
  # 200/s for 1 s is 200 requests: a loaded machine that wakes barrage's loop over 10 ms late for
  # two of them breaks "delivered" (schedule lag p99), which the run rightly reports as an unmet
  # SLO (exit 3). That is the machine's doing, not the suite's: the rest is still checked, and
  # the test then says it could not judge delivery (a reported skip) rather than pass or fail.
  late=$(jq -r '.results[] | select(.load.mode == "rate") | .metrics.rate.not_delivered // empty' "$f")
  if [[ $status -eq 3 && $late == "requests left late: schedule lag p99"* ]]; then late=1; else late=0; [ "$status" -eq 0 ]; fi
  [ "$(jq '.results | length' "$f")" -eq 3 ]
  assert_jq '.results[] | select(.load.mode == "rate") | .metrics.rate.target == 200 and .metrics.requests > 0
    and (.slo.met or .metrics.rate.delivered == false)' "$f"
  assert_jq '.results[] | select(.load.mode == "capacity") | .status == "ok" and (.capacity.steps | length) >= 2
    and .capacity.steps[-1].phase == "confirm" and .capacity.capacity_rps > 0' "$f"
  no_process_left
  if ((late)); then skip "the machine woke barrage over 10 ms late (schedule lag p99 at 200/s): delivery not judged"; fi
}
