#!/usr/bin/env bats
# run-tests.sh's own honesty: a failed set-up fails its stage, skips are counted apart from
# passes, and the bench scripts' CPU figures and tool order (client/bench/common.sh).
# run-tests.sh is sourced in a child bash (it defines its functions without running main).
# shellcheck disable=SC2016 # the snippets in single quotes run in a child bash: their $ expand there

load test_helper

setup() { common_setup; }

teardown() { common_teardown; }

# in_run_tests SCRIPT: SCRIPT in a bash that has sourced run-tests.sh.
in_run_tests() {
  bash -c 'source "$1"; eval "$2"' in_run_tests "$ROOT/run-tests.sh" "$1"
}

@test "run-tests: a dependency that cannot be installed fails the deps stage" {
  run in_run_tests '
    deps::ensure() { echo "missing packages: wrk" >&2; return 1; }
    deps::ensure_packages() { return 0; }
    run_stage deps stage_deps
    echo "failed=$FAILED passed=$PASSED"'
  [[ $output == *"not ok - dependencies present"* ]]
  [[ $output != *$'\nok - dependencies present'* ]]
  [[ $output == *"failed=1 passed=0"* ]]
}

@test "run-tests: a missing development package fails the deps stage too" {
  run in_run_tests '
    deps::ensure() { return 0; }
    deps::ensure_packages() { return 1; }
    run_stage deps stage_deps
    echo "failed=$FAILED"'
  [[ $output == *"not ok - dependencies present"* && $output == *"failed=1"* ]]
}

@test "run-tests: history.sh's detector (apache-otava) that cannot be installed fails the deps stage" {
  run in_run_tests '
    deps::ensure() { return 0; }
    deps::ensure_packages() { return 0; }
    contract::ensure_h3client() { return 0; }
    history::ensure_otava() { echo "pip could not install apache-otava" >&2; return 1; }
    run_stage deps stage_deps
    echo "failed=$FAILED"'
  [[ $output == *"not ok - dependencies present"* && $output == *"failed=1"* ]]
}

@test "run-tests: actionlint (a pinned Go module) that cannot be built fails the deps stage" {
  run in_run_tests '
    deps::ensure() { return 0; }
    deps::ensure_packages() { return 0; }
    contract::ensure_h3client() { return 0; }
    history::ensure_otava() { return 0; }
    java::install() { return 0; }
    deps::ensure_go_tool() { echo "go install $2 failed" >&2; return 1; }
    run_stage deps stage_deps
    echo "failed=$FAILED"'
  [[ $output == *"go install github.com/rhysd/actionlint/cmd/actionlint@v"*" failed"* ]]
  [[ $output == *"not ok - dependencies present"* && $output == *"failed=1"* ]]
}

@test "run-tests: skipped tests are counted apart, never as passed" {
  run in_run_tests '
    stage_bats() {
      printf "%s\n" "1..5" "ok 1 - runs" "ok 2 - also runs" "ok 3 - h2c # skip declares only h1" \
        "ok 4 - other # SKIP no records" "not ok 5 - broken"
    }
    main bats'
  [ "$status" -eq 1 ]
  [ "${lines[-1]}" = "2 passed, 1 failed, 2 skipped" ]
}

@test "run-tests: the closing line counts skips even when none were skipped" {
  run in_run_tests 'stage_bats() { echo "ok 1 - runs"; }; main bats'
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
}

@test "run-tests: stages see BARRAGE_REQUIRE_BUILT=1, so a test that needs a built server fails instead of skipping" {
  run in_run_tests 'stage_bats() { echo "ok 1 - require=${BARRAGE_REQUIRE_BUILT:-unset}"; }; main bats'
  [[ $output == *"require=1"* ]]
  grep -q 'BARRAGE_REQUIRE_BUILT' "$ROOT/client/tests/h2/run.py"
}

@test "run-tests: bats runs every file once, the parallel ones (which start no server) two at a time" {
  run in_run_tests '
    bats() { echo "bats $*" | sed "s|tests/||g; s|\.bats||g"; }
    stage_bats'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  [[ ${lines[0]} == *"--jobs 2 --no-parallelize-within-files"* ]]
  [[ ${lines[1]} != *"--jobs"* ]]
  # every file exactly once, over both lines
  diff <(tr ' ' '\n' <<<"${lines[0]} ${lines[1]}" | grep -vE '^(bats|--.*|2|)$' | sort) \
    <(cd "$ROOT/tests" && printf '%s\n' *.bats | sed 's|\.bats$||' | sort)
  # the parallel files exist and time nothing: no measured run of the suite, no Java server
  local name together=${lines[0]}
  for name in $(bash -c 'source "$1"; echo "${BATS_PARALLEL_FILES[*]}"' _ "$ROOT/run-tests.sh"); do
    [ -f "$ROOT/tests/$name.bats" ]
    [[ $together == *" $name"* ]]
    [[ $name == run-tests ]] && continue # this test names the patterns
    run grep -nE 'servers::build|"\$RUN"|run-benchmarks\.sh"' "$ROOT/tests/$name.bats"
    [ "$status" -eq 1 ]
  done
}

@test "run-tests: c-sanitize runs beside c-tests: at once, its output after c-tests's, both counted" {
  # each stage waits (10 s at most) for the other's mark: only side by side do both find it
  export T=$TMP
  run in_run_tests '
    wait_for() { for _ in $(seq 100); do [[ -e $1 ]] && return 0; sleep 0.1; done; return 1; }
    stage_c_tests() { touch "$T/plain"; wait_for "$T/asan" && echo "ok 1 - plain saw asan"; echo "ok 2 - plain"; }
    stage_c_sanitize() { touch "$T/asan"; wait_for "$T/plain" && echo "ok 1 - asan saw plain"; echo "not ok 2 - asan"; }
    main c-sanitize c-tests'
  echo "$output"
  [ "$status" -eq 1 ]
  [ "${lines[-1]}" = "3 passed, 1 failed, 0 skipped" ]
  [[ $output == *"ok 1 - plain saw asan"*"ok 2 - plain"*"ok 1 - asan saw plain"*"not ok 2 - asan"* ]]
  [[ $output == *"not ok 2 - asan"*"failed:"* ]]
}

@test "run-tests: a stage beside c-tests that exits non-zero without a failed test counts as one failure" {
  run in_run_tests '
    stage_c_tests() { echo "ok 1 - plain"; }
    stage_c_sanitize() { echo "ok 1 - built"; return 2; }
    main c-tests c-sanitize'
  [ "$status" -eq 1 ]
  [[ $output == *"not ok - stage c-sanitize exited 2"* ]]
  [ "${lines[-1]}" = "2 passed, 1 failed, 0 skipped" ]
}

@test "run-tests: only one of the pair asked for runs alone, as before" {
  run in_run_tests '
    stage_c_tests() { echo "ok 1 - plain"; }
    stage_c_sanitize() { echo "ok 1 - asan"; }
    main c-sanitize'
  [ "$status" -eq 0 ]
  [[ $output == *"ok 1 - asan"* && $output != *"plain"* ]]
  [ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
}

@test "run-tests: SIGTERM to the run while c-sanitize runs beside c-tests stops both, c-sanitize's process group whole, and removes the logs" {
  # the run in a process group of its own, signalled whole as a terminal's Ctrl-C or a CI timeout would
  setsid bash -c 'source "$1"; T=$2
    stage_c_sanitize() { sleep 60 & echo $! >"$T/child"; echo $BASHPID >"$T/stage"; wait; }
    stage_c_tests() { echo "$LOG_DIR" >"$T/logs"; sleep 60; }
    main c-tests c-sanitize' _ "$ROOT/run-tests.sh" "$TMP" >"$TMP/out" 2>&1 &
  local run=$! rc=0 stage child logs
  for _ in $(seq 100); do [[ -s $TMP/child && -s $TMP/logs ]] && break; sleep 0.1; done
  kill -TERM -- "-$run"
  wait "$run" || rc=$?
  cat "$TMP/out"
  [ "$rc" -eq 143 ]
  stage=$(<"$TMP/stage") child=$(<"$TMP/child") logs=$(<"$TMP/logs")
  for _ in $(seq 50); do [[ -z $(ps -o pid= -p "$child") ]] && break; sleep 0.1; done
  [ -z "$(ps -o pid= -p "$stage")" ]
  [ -z "$(ps -o pid= -p "$child")" ]
  [[ -n $logs && ! -e $logs ]]
}

@test "bench: a tool's stderr is kept apart from its CPU time" {
  run bash -c 'source "$1"; WORKDIR=$2; taskset() { shift 2; "$@"; }
    timed noisy bash -c "echo \"99 99 warning from the tool\" >&2; echo out"
    echo "err=$(<"$WORKDIR/noisy.err") out=$(<"$WORKDIR/noisy.out")"' bench "$ROOT/client/bench/common.sh" "$TMP"
  [ "$status" -eq 0 ]
  # the CPU time of a bash that prints two lines: far below the 198 "seconds" its stderr reads as
  awk -v t="${lines[0]}" 'BEGIN { exit !(t >= 0 && t < 5) }'
  [[ ${lines[1]} == "err=99 99 warning from the tool out=out" ]]
}

@test "bench: compare alternates which tool runs first from round to round" {
  run bash -c 'source "$1"; ROUNDS=4 DURATION=1 ORDER=$2/order
    run_wrk() { echo wrk >> "$ORDER"; echo "100 100 0.1"; }
    run_barrage() { echo barrage >> "$ORDER"; echo "100 100 0.1"; }
    compare title wrk "" "" http://127.0.0.1:1/ target >/dev/null
    paste -sd, "$ORDER"' bench "$ROOT/client/bench/common.sh" "$TMP"
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "wrk,barrage,barrage,wrk,wrk,barrage,barrage,wrk" ]
}

@test "test_helper: common_teardown stops what background started (a setsid group whole) and removes TMP" {
  local tmp=$TMP plain group child
  background sleep 60
  plain=$BG_PID
  background setsid bash -c 'sleep 60 & echo $! >"$1/child"; wait' _ "$TMP"
  group=$BG_PID
  for _ in $(seq 50); do [[ -s $TMP/child ]] && break; sleep 0.1; done
  child=$(<"$TMP/child")
  kill -0 "$plain" && kill -0 "$group" && kill -0 "$child"
  common_teardown
  [ -z "$(ps -o pid= -p "$plain")" ]
  [ -z "$(ps -o pid= -p "$group")" ]
  # the group's child is stopped too (a zombie until init reaps it counts as stopped)
  for _ in $(seq 20); do [[ $(ps -o stat= -p "$child" 2>/dev/null) == Z* || -z $(ps -o pid= -p "$child") ]] && break; sleep 0.1; done
  [[ -z $(ps -o pid= -p "$child") || $(ps -o stat= -p "$child") == Z* ]]
  [ ! -e "$tmp" ]
  [[ $tmp == *" "* ]]
}
