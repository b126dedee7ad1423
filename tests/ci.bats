#!/usr/bin/env bats
# What a CI job reads (issue 52): compare-results.sh and history.sh --format junit and markdown,
# export-results.sh --to gab|bmf, each checked by a consumer of its format: xmllint against a
# JUnit XSD, check-jsonschema (lib/schema.sh) against github-action-benchmark's and Bencher's
# formats (tests/fixtures/ci: where each comes from is in the file). Exit codes as without
# --format. No server, no timing; one change-point analysis (the compare step's over 12 files).

load test_helper
bats_require_minimum_version 1.5.0

setup_file() {
  local dir
  dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/barrage ci series.XXXX")
  export SERIES=$dir
  # a 20% step of netty/hello/h1/wrk at the 7th of 12 files
  python3 "$BATS_TEST_DIRNAME/fixtures/history/make-series.py" "$BATS_TEST_DIRNAME/fixtures/results/recorded-quick-3runs-a.json" \
    "$dir/step" --files 12 --series netty/hello/h1/wrk --step-at 7 --step 0.8 --seed 1 >/dev/null
  # too short for a verdict: history.sh runs without the detector (the formats' plumbing)
  python3 "$BATS_TEST_DIRNAME/fixtures/history/make-series.py" "$BATS_TEST_DIRNAME/fixtures/results/recorded-quick-3runs-a.json" \
    "$dir/short" --files 5 --seed 2 >/dev/null
}

teardown_file() { rm -rf "$SERIES"; }

setup() {
  common_setup "barrage ci"
  RESULTS=$ROOT/tests/fixtures/results
  XSD=$ROOT/tests/fixtures/ci/junit.xsd
}

teardown() { common_teardown; }

# junit_valid FILE: xmllint's verdict against the JUnit XSD (its words on failure)
junit_valid() { xmllint --noout --schema "$XSD" "$1"; }

# step_env: the workflow's environment for ci/benchmarks-step.sh: the job summary in
# $TMP/summary.md, the reports in $TMP/reports
step_env() { export GITHUB_STEP_SUMMARY="$TMP/summary.md" BARRAGE_CI_REPORTS="$TMP/reports"; }

# xpath FILE EXPR: xmllint's value of an XPath expression (count(...), string(...))
xpath() { xmllint --xpath "$2" "$1"; }

@test "ci: compare-results.sh --format junit is valid JUnit, a failure per regression with its figures, exit 1 as ever" {
  run -1 "$ROOT/compare-results.sh" --format junit "$RESULTS/single-base.json" "$RESULTS/single-drop20.json"
  printf '%s\n' "$output" >"$TMP/report.xml"
  junit_valid "$TMP/report.xml"
  # 15 rows, 11 relative rows; the one regression (jetty hello h1 wrk, 45,000 -> 36,000) fails
  [ "$(xpath "$TMP/report.xml" 'count(//testsuite[@name="compare-results.absolute"]/testcase)')" -eq 15 ]
  [ "$(xpath "$TMP/report.xml" 'count(//failure)')" -eq 1 ]
  [ "$(xpath "$TMP/report.xml" 'string(/testsuites/@failures)')" -eq 1 ]
  [ "$(xpath "$TMP/report.xml" 'string(//testcase[failure]/@name)')" = jetty ]
  [ "$(xpath "$TMP/report.xml" 'string(//testcase[failure]/@classname)')" = hello.h1.wrk ]
  xpath "$TMP/report.xml" 'string(//failure/@message)' | grep -F 'ok/s 45,000 -> 36,000 (-20.0%)'
  # the relative view's regression does not gate (--gate absolute): said, not failed
  xpath "$TMP/report.xml" 'string(//testsuite[@name="compare-results.relative"]//testcase[@name="jetty"][@classname="hello.h1.wrk"]/system-out)' \
    | grep -F 'not counted by the gate'
  [ "$(xpath "$TMP/report.xml" 'count(//skipped)')" -eq 1 ]
  # --gate relative: the relative row fails instead, the exit is still 1
  run -1 "$ROOT/compare-results.sh" --format junit --gate relative "$RESULTS/single-base.json" "$RESULTS/single-drop20.json"
  printf '%s\n' "$output" >"$TMP/relative.xml"
  [ "$(xpath "$TMP/relative.xml" 'count(//testsuite[@name="compare-results.relative"]//failure)')" -eq 1 ]
  [ "$(xpath "$TMP/relative.xml" 'count(//failure)')" -eq 1 ]
}

@test "ci: compare-results.sh --format junit with no regression exits 0; an unknown format is exit 2" {
  run -0 "$ROOT/compare-results.sh" --format junit "$RESULTS/single-base.json" "$RESULTS/single-base.json"
  printf '%s\n' "$output" >"$TMP/report.xml"
  junit_valid "$TMP/report.xml"
  [ "$(xpath "$TMP/report.xml" 'count(//failure)')" -eq 0 ]
  [ "$(xpath "$TMP/report.xml" 'count(//testcase)')" -gt 15 ]
  run -2 "$ROOT/compare-results.sh" --format xml "$RESULTS/single-base.json" "$RESULTS/single-drop20.json"
  [[ $output == *"--format takes text, markdown, json or junit, got 'xml'"* ]]
}

@test "ci: the JUnit text is escaped: a server name with markup stays one valid attribute" {
  jq '(.results[] | select(.server == "jetty")).server |= "je<t>&\"ty'"'"'\u0001"' "$RESULTS/single-drop20.json" >"$TMP/new.json"
  jq '(.results[] | select(.server == "jetty")).server |= "je<t>&\"ty'"'"'\u0001"' "$RESULTS/single-base.json" >"$TMP/base.json"
  jq -r -L "$ROOT/lib" 'import "compare" as c; import "ci_format" as ci;
    c::compare($base[0]; $new[0]; {threshold: 0.05, p99_threshold: 0.2, error_threshold: 0.001, alpha: 0.05,
      fail_on: ["rps", "p99", "errors"], reference: "java-http", gate: "absolute",
      filters: {tool: [], scenario: [], server: [], protocol: []}, base_file: "b", new_file: "n", noise_floor: null})
    | ci::junit_compare' --slurpfile base "$TMP/base.json" --slurpfile new "$TMP/new.json" -n >"$TMP/report.xml"
  junit_valid "$TMP/report.xml"
  [ "$(xpath "$TMP/report.xml" 'string(//testcase[failure]/@name)')" = "je<t>&\"ty'^A" ]
}

@test "ci: history.sh --format junit runs through the script, exit as without; a bad format is exit 2" {
  run -0 "$ROOT/history.sh" --format junit "$SERIES/short"
  printf '%s\n' "$output" >"$TMP/short.xml"
  junit_valid "$TMP/short.xml"
  [ "$(xpath "$TMP/short.xml" 'count(//testcase/skipped)')" -eq 6 ]
  run -2 "$ROOT/history.sh" --format xml "$SERIES/short"
  [[ $output == *"--format takes text, json, markdown or junit, got 'xml'"* ]]
}

@test "ci: export-results.sh --to gab is github-action-benchmark's custom formats, ok/s and p99 with their interval" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/schema.sh"
  "$ROOT/export-results.sh" "$RESULTS/recorded-quick-3runs-a.json" --to gab >"$TMP/rps.json"
  "$ROOT/export-results.sh" "$RESULTS/recorded-quick-3runs-a.json" --to gab --metric p99 >"$TMP/p99.json"
  schema::validate "$ROOT/tests/fixtures/ci/gab.schema.json" "$TMP/rps.json" "$TMP/p99.json"
  # every row once, with the median of its ok runs and the interval as range
  assert_jq 'length == 6' "$TMP/rps.json"
  assert_jq '.[] | select(.name == "netty/hello/h1/wrk") | .unit == "ok/s" and (.range | startswith("± ")) and (.extra | contains("median of 3 run(s)"))' "$TMP/rps.json"
  local median
  median=$(jq '[.results[] | select(.server == "netty" and .tool == "wrk" and .status == "ok") | .metrics.latency_us.p99] | sort | .[1]' \
    "$RESULTS/recorded-quick-3runs-a.json")
  # shellcheck disable=SC2016 # jq's variable
  assert_jq --argjson m "$median" '.[] | select(.name == "netty/hello/h1/wrk") | .value == $m and .unit == "us"' "$TMP/p99.json"
  # one run: no interval, no range
  "$ROOT/export-results.sh" "$RESULTS/single-base.json" --to gab >"$TMP/one.json"
  schema::validate "$ROOT/tests/fixtures/ci/gab.schema.json" "$TMP/one.json"
  assert_jq '.[] | has("range") | not' "$TMP/one.json"
}

@test "ci: export-results.sh --to bmf is Bencher's Metric Format, bounds around the value; bad input is exit 2 with nothing on stdout" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/schema.sh"
  "$ROOT/export-results.sh" "$RESULTS/recorded-quick-3runs-a.json" --to bmf >"$TMP/bmf.json"
  schema::validate "$ROOT/tests/fixtures/ci/bmf.schema.json" "$TMP/bmf.json"
  assert_jq 'keys | length == 6' "$TMP/bmf.json"
  assert_jq '.[][] | .lower_value <= .value and .value <= .upper_value' "$TMP/bmf.json"
  assert_jq '.["netty/hello/h1/wrk"] | .throughput.value > 0 and .["latency-p99"].value > 1000000' "$TMP/bmf.json"
  # the interval is around the geometric mean: 95 runs at 100 and 5 at 10,000 put it above the
  # median, and the bounds are widened to hold it
  jq -n -L "$ROOT/lib" 'import "export" as ex; [range(95) | 100] + [range(5) | 10000] | ex::_figure' \
    | assert_jq '.value == 100 and .lo == 100 and .hi > 100' -
  run -2 --separate-stderr "$ROOT/export-results.sh" "$RESULTS/bad-not-json.json" --to bmf
  [ -z "$output" ]
  run -2 "$ROOT/export-results.sh" "$RESULTS/single-base.json" --to csv
  [[ $output == *"--to takes gab or bmf, got 'csv'"* ]]
  run -2 "$ROOT/export-results.sh" "$RESULTS/single-base.json" --to bmf --metric p99
}

@test "ci: the example workflow is actionlint clean (a pinned Go module, run-tests.sh deps builds it)" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/deps.sh"
  local actionlint="$ROOT/.cache/go/${DEPS_ACTIONLINT##*/}/actionlint"
  actionlint=${actionlint/@*\//@${DEPS_ACTIONLINT##*@}/}
  [[ -x $actionlint ]] || { echo "no $actionlint: run ./run-tests.sh deps"; return 1; }
  cd "$ROOT"
  run "$actionlint" -config-file .github/actionlint.yaml .github/workflows/benchmarks.yml
  echo "$output"
  [ "$status" -eq 0 ]
  # the gate is the step script, as the tests below run it
  # shellcheck disable=SC2016 # the workflow's text, not expanded
  grep -F 'run: ci/benchmarks-step.sh compare "$NEW_RESULTS" history' .github/workflows/benchmarks.yml
  grep -F 'runs-on: [self-hosted, linux, benchmark]' .github/workflows/benchmarks.yml
}

@test "ci: the workflow's compare step: Markdown to GITHUB_STEP_SUMMARY, JUnit and exports in reports, exit 1 on a regression, the run not kept" {
  step_env
  mkdir -p "$TMP/history"
  cp "$RESULTS/single-base.json" "$TMP/history/"
  run -1 "$ROOT/ci/benchmarks-step.sh" compare "$RESULTS/single-drop20.json" "$TMP/history"
  echo "$output"
  grep -F '## Benchmarks against the previous kept run' "$TMP/summary.md"
  grep -F '| jetty | hello | h1 | wrk | 45,000 | 36,000 | -20.0% |' "$TMP/summary.md"
  junit_valid "$TMP/reports/compare.xml"
  [ "$(xpath "$TMP/reports/compare.xml" 'count(//failure)')" -eq 1 ]
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/schema.sh"
  schema::validate "$ROOT/tests/fixtures/ci/gab.schema.json" "$TMP/reports/ok-per-s.json" "$TMP/reports/p99.json"
  schema::validate "$ROOT/tests/fixtures/ci/bmf.schema.json" "$TMP/reports/bmf.json"
  # a regression does not become the next baseline
  [ "$(find "$TMP/history" -name '*.json' | wc -l)" -eq 1 ]
  # no baseline yet: said, exit 0, the run kept
  rm -f "$TMP/summary.md"
  run -0 "$ROOT/ci/benchmarks-step.sh" compare "$RESULTS/single-drop20.json" "$TMP/empty history"
  grep -F 'No baseline yet' "$TMP/summary.md"
  cmp "$RESULTS/single-drop20.json" "$TMP/empty history/single-drop20.json"
}

@test "ci: the workflow's compare step runs history.sh over the kept files and the run: change points as Markdown and JUnit, exit 1" {
  step_env
  mkdir -p "$TMP/history"
  cp "$SERIES"/step/202610{01,02,03,04,05,06,07,08,09,10,11}T*.json "$TMP/history/"
  # the 12th file against the 11th: both after the step, no regression between them; but over
  # the 12 files history.sh finds netty/hello/h1/wrk's step at the 7th, a regression of ok/s and
  # p99 at its newest change point: the job fails, the run is not kept
  run -1 "$ROOT/ci/benchmarks-step.sh" compare "$SERIES/step/20261012T060000Z.json" "$TMP/history"
  assert_jq '.regressions | length == 2' "$TMP/reports/history.json"
  grep -F '## History of the kept runs' "$TMP/summary.md"
  grep -F '**History:** 12 results files' "$TMP/summary.md"
  grep -E '^\| netty hello h1 wrk \| ok/s \| #7 .* \| \*\*regression \(newest\)\*\* \|$' "$TMP/summary.md"
  grep -E '^\| netty hello h1 wrk \| p99 \| #7 ' "$TMP/summary.md"
  grep -F '**2 regression(s)** at the newest change point (exit 1)' "$TMP/summary.md"
  junit_valid "$TMP/reports/history.xml"
  [ "$(xpath "$TMP/reports/history.xml" 'count(//testcase)')" -eq 6 ]
  [ "$(xpath "$TMP/reports/history.xml" 'count(//testcase[@name="netty"][@classname="hello.h1.wrk"]/failure)')" -eq 2 ]
  [ "$(xpath "$TMP/reports/history.xml" 'count(//failure)')" -eq 2 ]
  xpath "$TMP/reports/history.xml" 'string(//failure[1]/@message)' | grep -E '^regression: ok/s [0-9,]+ -> [0-9,]+ \(-1[0-9]\.[0-9]%, 95% CI .* from file #7 '
  [ ! -f "$TMP/history/20261012T060000Z.json" ]
}

@test "ci: the workflow's run step passes the budget and names the results file in GITHUB_OUTPUT" {
  # a stand-in for run-benchmarks.sh: records its arguments, writes a results file to --output
  cat >"$TMP/fake-run.sh" <<FAKE
#!/usr/bin/env bash
printf '%s\n' "\$@" >"$TMP/args"
while ((\$#)); do [[ \$1 == --output ]] && cp "$RESULTS/single-base.json" "\$2/20261120T100000Z-ci.json"; shift; done
FAKE
  chmod +x "$TMP/fake-run.sh"
  export BARRAGE_CI_RUN_BENCHMARKS="$TMP/fake-run.sh" BARRAGE_CI_RESULTS="$TMP/results dir" BARRAGE_CI_BUDGET=45m
  export GITHUB_OUTPUT="$TMP/output"
  run -0 "$ROOT/ci/benchmarks-step.sh" run --servers jetty
  [ "$(tr '\n' ' ' <"$TMP/args")" = "--budget 45m --label ci --output $TMP/results dir --servers jetty " ]
  [ "$(cat "$GITHUB_OUTPUT")" = "results=$TMP/results dir/20261120T100000Z-ci.json" ]
  [ "${lines[-1]}" = "$TMP/results dir/20261120T100000Z-ci.json" ]
}

@test "ci: a capacity search that met no rate in NEW is a JUnit failure of the capacity suite" {
  local base=$ROOT/tests/fixtures/openloop/base.json
  jq '(.results[] | select(.capacity != null) | .capacity.capacity_rps) = null' "$base" >"$TMP/new.json"
  jq -r -L "$ROOT/lib" 'import "compare" as c; import "ci_format" as ci;
    c::compare($base[0]; $new[0]; {threshold: 0.05, p99_threshold: 0.2, error_threshold: 0.001, alpha: 0.05,
      fail_on: ["rps", "p99", "errors", "capacity"], reference: "java-http", gate: "absolute",
      filters: {tool: [], scenario: [], server: [], protocol: []}, base_file: "b", new_file: "n", noise_floor: null})
    | ci::junit_compare' --slurpfile base "$base" --slurpfile new "$TMP/new.json" -n >"$TMP/report.xml"
  junit_valid "$TMP/report.xml"
  [ "$(xpath "$TMP/report.xml" 'count(//testsuite[@name="compare-results.capacity"]//failure)')" -eq 1 ]
  [ "$(xpath "$TMP/report.xml" 'string(//failure/@message)')" = "regression: capacity (requests/s) 18 -> none met: no rate met" ]
  [ "$(xpath "$TMP/report.xml" 'string(//testcase[failure]/@name)')" = "loaded capacity p99<100ms" ]
}

@test "ci: an SLO regression (met in BASE, broken in NEW) is a JUnit failure, exit 1 as ever" {
  jq '.results |= map(if .load.mode == "capacity" then .metrics.rate.delivered = true | .metrics.latency_us.p99 = 1000 else . end)' \
    "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/base.json"
  jq '.results |= map(if .load.target_rps == 100 then .metrics.latency_us.p99 = 900000 else . end)' \
    "$ROOT/tests/fixtures/openloop/base.json" >"$TMP/new.json"
  run -1 --separate-stderr "$ROOT/compare-results.sh" --format junit --slo 'hello:p99<100ms' "$TMP/base.json" "$TMP/new.json"
  printf '%s\n' "$output" >"$TMP/report.xml"
  junit_valid "$TMP/report.xml"
  [ "$(xpath "$TMP/report.xml" 'count(//failure)')" -eq 1 ]
  [ "$(xpath "$TMP/report.xml" 'string(//testcase[@classname="slo"]/failure/@message)')" = \
    "SLO regression: loaded hello h1 barrage @100/s: p99<100ms" ]
}
