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
