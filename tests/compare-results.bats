#!/usr/bin/env bats
# compare-results.sh: joins, verdicts (threshold and Welch's t-test), relative view, exit codes.
# Fixtures: tests/fixtures/results (written by generate.py there).

load test_helper
bats_require_minimum_version 1.5.0

setup() {
  common_setup
  F=$ROOT/tests/fixtures/results
  COMPARE=$ROOT/compare-results.sh
}

teardown() { common_teardown; }

# verdict JSON ROW_SELECTOR: the verdict of the one row the jq selector picks.
verdict() { jq -r "[.rows[] | select($2)] | if length == 1 then .[0].verdict else \"\(length) rows\" end" <<<"$1"; }

@test "compare: --help explains the verdicts and exit codes" {
  run "$COMPARE" --help
  [ "$status" -eq 0 ]
  [[ $output == *"Welch's t-test"* ]]
  [[ $output == *"Mann-Whitney"* ]]
  [[ $output == *"--noise-floor FILE"* && $output == *"cannot separate noise from change"* ]]
  [[ $output == *"Exit status: 0 no regression, 1 at least one regression, 2 usage or input error."* ]]
}

@test "compare: identical single-run files exit 0 and every measured row is unchanged" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].verdict] | unique | join(",")' <<<"$output")" = "skipped,unchanged" ]
  [ "$(jq -r '[.rows[] | select(.verdict == "unchanged")] | length' <<<"$output")" -eq 14 ]
  [ "$(jq -r '.regressions | length' <<<"$output")" -eq 0 ]
  run "$COMPARE" "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
  [[ $output == *"Summary: 14 unchanged, 1 skipped"* ]]
}

@test "compare: a 20% drop of one row exits 1 and only that row regressed" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "jetty" and .scenario == "hello" and .tool == "wrk"')" = regression ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression")] | length' <<<"$output")" -eq 1 ]
  [ "$(jq -r '.rows[] | select(.server == "jetty" and .scenario == "hello" and .tool == "wrk") | .successful_rps.change * 100 | round' <<<"$output")" -eq -20 ]
  run "$COMPARE" "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  [[ $output =~ jetty\ +hello\ +h1\ +wrk\ +45,000\ +36,000\ +-20.0%.*regression ]]
}

@test "compare: improvement only exits 0 and says improvement" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-improve.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[] | select(.server == "netty") | .verdict] | unique | join(",")' <<<"$output")" = improvement ]
  [ "$(jq -r '[.rows[] | select(.server != "netty") | .verdict] | unique | join(",")' <<<"$output")" = "skipped,unchanged" ]
}

@test "compare: rows on one side only are added or removed, not regressions" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-added-removed.json"
  [ "$status" -eq 0 ]
  [ "$(verdict "$output" '.server == "netty" and .scenario == "post-load"')" = removed ]
  [ "$(jq -r '[.rows[] | select(.scenario == "large-file") | .verdict] | unique | join(",")' <<<"$output")" = added ]
  [ "$(jq -r '[.rows[] | select(.scenario == "large-file")] | length' <<<"$output")" -eq 5 ]
  run "$COMPARE" "$F/single-base.json" "$F/single-added-removed.json"
  [[ $output =~ netty\ +post-load\ +h1\ +wrk\ +37,820\ +–.*removed ]]
  [[ $output == *"5 added, 1 removed"* ]]
}

@test "compare: mixed tools are joined per tool, and --tool filters them" {
  run "$COMPARE" --format json "$F/mixed-base.json" "$F/mixed-barrage-drop.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "netty" and .tool == "barrage"')" = regression ]
  [ "$(verdict "$output" '.server == "netty" and .tool == "wrk"')" = unchanged ]
  [ "$(verdict "$output" '.server == "netty" and .tool == "h2load"')" = unchanged ]
  run "$COMPARE" --tool wrk,h2load --format json "$F/mixed-base.json" "$F/mixed-barrage-drop.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].tool] | unique | join(",")' <<<"$output")" = h2load,wrk ]
  run "$COMPARE" --tool barrage --server netty --format json "$F/mixed-base.json" "$F/mixed-barrage-drop.json"
  [ "$status" -eq 1 ]
  [ "$(jq '.rows | length' <<<"$output")" -eq 1 ]
}

@test "compare: filters by scenario and protocol" {
  run "$COMPARE" --scenario post-load --format json "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].scenario] | unique | join(",")' <<<"$output")" = post-load ]
  run "$COMPARE" --protocol h2c --format json "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].protocol] | unique | join(",")' <<<"$output")" = h2c ]
}

@test "compare: 3-run files that differ only by noise raise no alarm (~, not significant)" {
  run "$COMPARE" --format json "$F/multi-base.json" "$F/multi-noise.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[] | select(.verdict != "skipped") | .verdict] | unique | join(",")' <<<"$output")" = "~" ]
  # every measured row was tested (a p of its own) and none is significant
  assert_jq '.rows[] | select(.verdict != "skipped") | .successful_rps | .test == "welch-log" and .p >= 0.05' - <<<"$output"
}

@test "compare: 3-run files whose medians differ by 6% but whose runs overlap are ~, not a regression" {
  # The single-run rule would call -6% a regression; the test sees the runs overlap.
  run "$COMPARE" --format json "$F/multi-loud-a.json" "$F/multi-loud-b.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].successful_rps.change * 100 | round] | unique | join(",")' <<<"$output")" = "-6" ]
  [ "$(jq -r '[.rows[].verdict] | unique | join(",")' <<<"$output")" = "~" ]
  run "$COMPARE" --details "$F/multi-loud-a.json" "$F/multi-loud-b.json"
  [[ $output =~ jetty\ +hello\ +h1\ +wrk\ +45,000\ ±8%\ +42,300\ ±9%\ +-6.0%\ \(p=0\.[1-9] ]]
}

@test "compare: 3-run files with a real 10% shift are detected (p < alpha), the rest is not" {
  run "$COMPARE" --format json "$F/multi-base.json" "$F/multi-shift10.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "tomcat" and .scenario == "hello" and .tool == "wrk"')" = regression ]
  [ "$(jq -r '.rows[] | select(.server == "tomcat" and .scenario == "hello" and .tool == "wrk") | .successful_rps.p < 0.05' <<<"$output")" = true ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression")] | length' <<<"$output")" -eq 1 ]
  [ "$(jq -r '[.relative[] | select(.verdict == "regression") | .server] | join(",")' <<<"$output")" = tomcat ]
}

@test "compare: a stricter alpha or a larger threshold lets the 10% shift pass" {
  run "$COMPARE" --alpha 0.0001 "$F/multi-base.json" "$F/multi-shift10.json"
  [ "$status" -eq 0 ]
  run "$COMPARE" --threshold 15 --p99-threshold 15 "$F/multi-base.json" "$F/multi-shift10.json"
  [ "$status" -eq 0 ]
}

@test "compare: --fail-on picks the metrics that fail the comparison" {
  # jetty: rps -20%, p99 +25%. Only p99 gates, and its threshold is above 25%: exit 0.
  run "$COMPARE" --fail-on p99 --p99-threshold 30 "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 0 ]
  run "$COMPARE" --fail-on p99 "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  run "$COMPARE" --fail-on rps --threshold 25 "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 0 ]
}

@test "compare: files from two machines are refused on the absolute gate, as history.sh refuses them; --any-machine gates anyway" {
  run "$COMPARE" "$F/single-base.json" "$F/single-other-machine.json"
  [ "$status" -eq 2 ]
  [[ $output == *"BASE and NEW come from two machines (BASE: AMD EPYC 7B13, 2 cores, 8 GB RAM, x86_64; NEW: Intel Xeon E5-2680 v4, 4 cores"*"--gate relative"*"--any-machine"* ]]
  [[ $output != *Summary* ]]
  run "$COMPARE" --any-machine "$F/single-base.json" "$F/single-other-machine.json"
  [ "$status" -eq 1 ]
  [[ $output == *"warning: BASE and NEW come from two machines"*"Summary:"* ]]
  # another kernel or JDK on the same machine is the same machine
  jq '.system.kernel = "6.12.0" | .system.java = "openjdk 25"' "$F/single-base.json" >"$TMP/new kernel.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/new kernel.json"
  [ "$status" -eq 0 ]
  [[ $output != *"two machines"* ]]
}

@test "compare: the relative view compares two machines; --gate relative decides on it" {
  run --separate-stderr "$COMPARE" --gate relative --format json "$F/single-base.json" "$F/single-other-machine.json"
  [ "$status" -eq 1 ]
  [[ ${stderr:-} == *"two machines"*"the relative view decides"* ]]
  [ "$(jq -r '[.relative[] | select(.verdict == "regression") | .server] | unique | join(",")' <<<"$output")" = jetty ]
  [ "$(jq -r '[.relative[] | select(.server == "netty") | .verdict] | unique | join(",")' <<<"$output")" = unchanged ]
  run "$COMPARE" --gate relative "$F/single-base.json" "$F/single-other-machine.json"
  [[ $output =~ jetty\ +hello\ +h1\ +wrk\ +86\.5%\ +73\.6%\ +-15\.0%\ +regression ]]
  run "$COMPARE" --gate relative --server netty,tomcat "$F/single-base.json" "$F/single-other-machine.json"
  [ "$status" -eq 0 ]
  [[ $output == *"Relative to java-http in the same file"* ]]
  run "$COMPARE" --gate relative --reference netty --server java-http,netty "$F/single-base.json" "$F/single-other-machine.json"
  [ "$status" -eq 0 ]
  [[ $output == *"% of netty"* ]]
}

@test "compare: a server that ran in BASE and failed in NEW is a regression" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/bad-no-ok-rows.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "jetty" and .scenario == "hello" and .tool == "wrk"')" = failed ]
  run "$COMPARE" "$F/single-base.json" "$F/bad-no-ok-rows.json"
  [[ $output == *"new failed: connection refused"* ]]
}

@test "compare: markdown output is a table" {
  run "$COMPARE" --format markdown "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  [[ $output == *"| server | scenario | protocol | tool | base ok/s | new ok/s | ok/s Δ | base p99 | new p99 | p99 Δ | base err | new err | err Δ | verdict |"* ]]
  [[ $output == *"| jetty | hello | h1 | wrk | 45,000 | 36,000 | -20.0% | 2.45 ms | 3.06 ms | +25.0% | 0% | 0% | 0 pt | regression |"* ]]
}

@test "compare: bad input exits 2 with a message" {
  run "$COMPARE" "$F/single-base.json" "$TMP/missing.json"
  [ "$status" -eq 2 ]; [[ $output == *"no such file"* ]]
  run "$COMPARE" "$F/bad-not-json.json" "$F/single-base.json"
  [ "$status" -eq 2 ]; [[ $output == *"truncated: the JSON stops before its end"* ]]
  run "$COMPARE" "$F/single-base.json" "$F/bad-schema-invalid.json"
  [ "$status" -eq 2 ]; [[ $output == *"not a valid results file"* ]]
  run "$COMPARE" "$F/single-base.json" "$F/bad-incomplete.json"
  [ "$status" -eq 2 ]; [[ $output == *"incomplete"* ]]
  run "$COMPARE" "$F/single-base.json" "$TMP"
  [ "$status" -eq 2 ]; [[ $output == *"is a directory"* ]]
}

@test "compare: usage errors exit 2" {
  run "$COMPARE" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" --format yaml "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" --threshold ten "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" --alpha 2 "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" --fail-on cpu "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" --bogus "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  run "$COMPARE" "$F/single-base.json" "$F/single-base.json" --tool
  [ "$status" -eq 2 ]
}

@test "stats: Welch's t-test and the median match reference values" {
  p() { jq -n -L "$ROOT/lib" "import \"stats\" as s; $1 * 10000 | round"; }
  # Two-sided p at the 5% critical values of Student's t (df 4: 2.776445; df 2: 4.302653).
  [ "$(p 's::betai(2; 0.5; 4 / (4 + 2.776445 * 2.776445))')" -eq 500 ]
  [ "$(p 's::betai(1; 0.5; 2 / (2 + 4.302653 * 4.302653))')" -eq 500 ]
  # R: t.test(c(1,2,3), c(4,5,6)) -> p-value = 0.02131
  [ "$(p 's::welch_p([1,2,3]; [4,5,6])')" -eq 213 ]
  [ "$(p 's::welch_p([1,2,3]; [1,2,3])')" -eq 10000 ]
  [ "$(p 's::welch_p([5,5,5]; [6,6,6])')" -eq 0 ]
  [ "$(jq -nc -L "$ROOT/lib" 'import "stats" as s; [([3,1,2] | s::median), ([4,1,3,2] | s::median), ([] | s::median)]')" = "[2,2.5,null]" ]
}

@test "compare: two recorded 3-run results of the same build: no alarm but their one error; halving netty is caught" {
  # Throughput and p99 differ by noise only. java-http/wrk had one read error (1 of 8,655
  # requests) in one run of b and none in a: errors where the base had none regress.
  run "$COMPARE" --format json "$F/recorded-quick-3runs-a.json" "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r '[.rows[] | .successful_rps.verdict, .p99.verdict] | unique | join(",")' <<<"$output")" = "~" ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression") | "\(.server)/\(.tool) \(.error_rate.new.failed)"] | join(",")' <<<"$output")" = "java-http/wrk 1" ]
  run "$COMPARE" --fail-on rps,p99 --format json "$F/recorded-quick-3runs-a.json" "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[].verdict] | unique | join(",")' <<<"$output")" = "~" ]
  # The same runs with netty at half the requests/s and twice the latency.
  jq '(.results[] | select(.server == "netty" and .status == "ok") | .metrics)
        |= (.rps /= 2 | .successful_rps /= 2 | .latency_us.p99 *= 2)' \
    "$F/recorded-quick-3runs-a.json" >"$TMP/netty half.json"
  run "$COMPARE" --format json "$F/recorded-quick-3runs-a.json" "$TMP/netty half.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression") | .server] | unique | join(",")' <<<"$output")" = netty ]
}

@test "compare: a server that answers 503 fast is a regression named by its error rate, not an improvement" {
  # jetty/hello/h2load: 45,000 -> 75,000 requests/s, of which 42% are fast 503s: 43,500
  # successful requests/s (-3.3%, within the threshold) and a lower p99.
  row='.server == "jetty" and .scenario == "hello" and .tool == "h2load"'
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-503-fast.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" "$row")" = regression ]
  [ "$(jq -r "[.rows[] | select(.verdict == \"regression\")] | length" <<<"$output")" -eq 1 ]
  [ "$(jq -r ".rows[] | select($row) | .successful_rps.change * 1000 | round" <<<"$output")" -eq -33 ]
  [ "$(jq -r ".rows[] | select($row) | [.successful_rps.verdict, .p99.verdict, .error_rate.verdict] | join(\",\")" <<<"$output")" \
    = "unchanged,improvement,regression" ]
  run "$COMPARE" --details "$F/single-base.json" "$F/single-503-fast.json"
  [ "$status" -eq 1 ]
  [[ $output =~ jetty\ +hello\ +h2c\ +h2load\ +45,000\ +43,500\ +-3.3%.*\ 0%\ +42.0%\ .*regression ]]
  [[ $output == *"jetty hello h2c h2load: error rate 0% -> 42.0% (the base had none: 0 of 450,000 -> 315,000 of 750,000 requests failed)"* ]]
  # Without the error gate, nothing else regressed.
  run "$COMPARE" --fail-on rps,p99 "$F/single-base.json" "$F/single-503-fast.json"
  [ "$status" -eq 0 ]
  # A record without successful_rps: succeeded / duration, the same verdicts.
  jq '(.results[] | select(.metrics != null) | .metrics.successful_rps) = null' \
    "$F/single-503-fast.json" >"$TMP/no successful_rps.json"
  run "$COMPARE" --format json "$F/single-base.json" "$TMP/no successful_rps.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r ".rows[] | select($row) | .successful_rps.new.median" <<<"$output")" = 43500 ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression")] | length' <<<"$output")" -eq 1 ]
}

@test "compare: errors where the base had none are a regression, however few" {
  # tomcat/hello/h2load: 4 timeouts in 380,000 requests; requests/s and p99 unchanged.
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-new-errors.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "tomcat" and .scenario == "hello" and .tool == "h2load"')" = regression ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression")] | length' <<<"$output")" -eq 1 ]
  run "$COMPARE" "$F/single-base.json" "$F/single-new-errors.json"
  [ "$status" -eq 1 ]
  [[ $output == *"tomcat hello h2c h2load: error rate 0% -> 0.0011% (the base had none: 0 of 380,000 -> 4 of 380,000 requests failed)"* ]]
  # The other way round the errors are gone: not a regression.
  run "$COMPARE" "$F/single-new-errors.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
}

@test "compare: with one run, a rise of the error rate within --error-threshold is noise, beyond it a regression" {
  # tomcat/hello/h2load had 0.010% errors: 0.015% is noise, 1.2% a clear rise.
  row='.server == "tomcat" and .scenario == "hello" and .tool == "h2load"'
  run "$COMPARE" --format json "$F/single-errors-base.json" "$F/single-errors-noise.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r ".rows[] | select($row) | .error_rate.verdict" <<<"$output")" = unchanged ]
  run "$COMPARE" --format json "$F/single-errors-base.json" "$F/single-errors-rise.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r ".rows[] | select($row) | [.error_rate.verdict, .error_rate.test] | join(\",\")" <<<"$output")" = regression,threshold ]
  [ "$(verdict "$output" "$row")" = regression ]
  run "$COMPARE" "$F/single-errors-base.json" "$F/single-errors-rise.json"
  [[ $output == *"tomcat hello h2c h2load: error rate 0.010% -> 1.2% (+1.2 pt: 38 of 380,000 -> 4,598 of 380,000 requests failed)"* ]]
  run "$COMPARE" --error-threshold 2 "$F/single-errors-base.json" "$F/single-errors-rise.json"
  [ "$status" -eq 0 ]
  run "$COMPARE" --error-threshold lots "$F/single-errors-base.json" "$F/single-errors-rise.json"
  [ "$status" -eq 2 ]
}

@test "compare: with 3 runs, error rates whose runs overlap are ~, a significant rise is a regression" {
  row='.server == "jetty" and .scenario == "hello" and .tool == "wrk"'
  # Runs at 0.1/0.9/0.2% then 0.2/1.2/0.4%: the rate rose by more than the threshold, but
  # the runs overlap; one run against one would have flagged it.
  run "$COMPARE" --format json "$F/multi-errors-base.json" "$F/multi-errors-overlap.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r ".rows[] | select($row) | .error_rate | [.verdict, .test, (.p > 0.05), (.change > 0.001)] | map(tostring) | join(\",\")" <<<"$output")" \
    = "~,welch,true,true" ]
  # Runs at 2.1/2.9/2.2%: significant and beyond the threshold.
  run "$COMPARE" --format json "$F/multi-errors-base.json" "$F/multi-errors-rise.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r ".rows[] | select($row) | .error_rate | [.verdict, (.p < 0.05)] | map(tostring) | join(\",\")" <<<"$output")" = regression,true ]
  [ "$(jq -r '[.rows[] | select(.verdict == "regression")] | length' <<<"$output")" -eq 1 ]
}

@test "compare: a results file from before error_latency_us and completed_in_grace existed is still read" {
  jq '.results |= map(if .metrics then .metrics |= del(.error_latency_us, .completed_in_grace) else . end)' \
    "$F/single-base.json" >"$TMP/old base.json"
  [ "$(jq '[.results[].metrics | select(.) | has("error_latency_us")] | any' "$TMP/old base.json")" = false ]
  run "$COMPARE" --format json "$TMP/old base.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '[.rows[] | select(.verdict == "unchanged")] | length' <<<"$output")" -eq 14 ]
}

@test "stats: t critical values, and the 95% intervals of synthetic runs with a known spread" {
  p() { jq -n -L "$ROOT/lib" "import \"stats\" as s; $1 * 10000 | round"; }
  # Student's t at 97.5%: df 1, 2, 4 (tables: 12.7062, 4.3027, 2.7764)
  [ "$(p 's::t_critical(1; 0.05)')" -eq 127062 ]
  [ "$(p 's::t_critical(2; 0.05)')" -eq 43027 ]
  [ "$(p 's::t_critical(4; 0.05)')" -eq 27764 ]
  # 100, 110, 90: sd of the logs 0.100377, so the interval is the geometric mean 99.666
  # times / divided by exp(4.302653 * 0.100377 / sqrt(3)) = 1.28319
  [ "$(p '[100, 110, 90] | s::log_interval(0.95) | .factor')" -eq 12832 ]
  [ "$(p '[100, 110, 90] | s::log_interval(0.95) | .center')" -eq 996655 ]
  [ "$(p '[100, 110, 90] | s::log_interval(0.95) | .lo * .hi / .center / .center')" -eq 10000 ]
  # no spread: an interval of width 0; fewer than 2 runs or a value <= 0: none
  [ "$(p '[5, 5, 5] | s::log_interval(0.95) | .factor')" -eq 10000 ]
  [ "$(jq -nc -L "$ROOT/lib" 'import "stats" as s; [([7] | s::log_interval(0.95)), ([1, 0, 2] | s::log_interval(0.95))]')" = "[null,null]" ]
  # the ratio of 90/92/88 to 100/102/98: 0.89997, Welch df 3.9564, interval 0.8577-0.9444
  [ "$(p 's::ratio_interval([100, 102, 98]; [90, 92, 88]; 0.95) | .ratio')" -eq 9000 ]
  [ "$(p 's::ratio_interval([100, 102, 98]; [90, 92, 88]; 0.95) | .lo')" -eq 8577 ]
  [ "$(p 's::ratio_interval([100, 102, 98]; [90, 92, 88]; 0.95) | .hi')" -eq 9444 ]
  # a wider spread, a wider interval
  [ "$(jq -n -L "$ROOT/lib" 'import "stats" as s; s::ratio_interval([100, 110, 90]; [90, 99, 81]; 0.95) | .lo < 0.8577 and .hi > 0.9444')" = true ]
}

@test "compare: 3+ runs per side: the significance test and the change's 95% confidence interval" {
  row='.server == "tomcat" and .scenario == "hello" and .tool == "wrk"'
  run "$COMPARE" --format json "$F/multi-base.json" "$F/multi-shift10.json"
  [ "$status" -eq 1 ]
  # tomcat -10%: the interval holds the change and excludes 0, as the test says
  [ "$(jq -r ".rows[] | select($row) | .successful_rps | .ci.lo < .change and .change < .ci.hi and .ci.hi < 0 and .p < 0.05" <<<"$output")" = true ]
  # noise only: every interval holds 0
  assert_jq '.rows[] | select(.server != "tomcat" or .scenario != "hello" or .tool != "wrk") | select(.verdict != "skipped")
    | .successful_rps.ci | type == "object" and .lo < 0 and .hi > 0' - <<<"$output"
  run "$COMPARE" --details "$F/multi-base.json" "$F/multi-shift10.json"
  [[ $output =~ tomcat\ +hello\ +h1\ +wrk\ .*-10\.[0-9]%\ \(p=0\.[0-9]+,\ 95%\ CI\ -1[0-9]\.[0-9]%\ to\ -[0-9]+\.[0-9]%\) ]]
  [[ $output != *"cannot separate noise from change"* ]]
  # the overlapping loud runs: an interval wide enough to hold both 0 and the -6%
  run "$COMPARE" --details "$F/multi-loud-a.json" "$F/multi-loud-b.json"
  [[ $output =~ jetty\ +hello\ +h1\ +wrk\ .*-6\.0%\ \(p=0\.[1-9][0-9]*,\ 95%\ CI\ -[0-9.]+%\ to\ \+[0-9.]+%\) ]]
}

@test "compare: with 1 run per side it says it cannot separate noise from change" {
  run "$COMPARE" "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  [[ $output == *"1 run on a side: this comparison cannot separate noise from change; the verdicts only apply the thresholds"* ]]
  run "$COMPARE" --format markdown "$F/single-base.json" "$F/single-drop20.json"
  [[ $output == *"**1 run on a side: this comparison cannot separate noise from change"* ]]
  # some rows with one run: it counts them
  jq '.results |= map(select(.tool == "wrk" and .scenario == "hello" and .run == 1))' "$F/multi-base.json" >"$TMP/one run.json"
  jq '.results |= map(select(.tool != "wrk" or .scenario != "hello" or .run == 1))' "$F/multi-noise.json" >"$TMP/some.json"
  run "$COMPARE" "$F/multi-base.json" "$TMP/some.json"
  [[ $output == *"5 of 14 compared rows have 1 run on a side: for them noise and change cannot be separated"* ]]
}

@test "compare: --noise-floor: a change within an A/A run's floor is not a regression, and the floor is printed" {
  # jetty/hello/wrk 7% slower in one run: beyond the 5% threshold, so a regression alone
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-drop7.json"
  [ "$status" -eq 1 ]
  [ "$(verdict "$output" '.server == "jetty" and .scenario == "hello" and .tool == "wrk"')" = regression ]
  # aa-jetty.json measured jetty against itself: its floor for hello h1 wrk is 7.9%
  run "$COMPARE" --format json --noise-floor "$F/aa-jetty.json" "$F/single-base.json" "$F/single-drop7.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.rows[] | select(.server == "jetty" and .scenario == "hello" and .tool == "wrk") | .successful_rps
      | [.verdict, .floor_decided, (.noise_floor.floor * 1000 | round), .noise_floor.from] | map(tostring) | join(",")' <<<"$output")" \
    = "~,true,79,hello h1 wrk" ]
  run "$COMPARE" --noise-floor "$F/aa-jetty.json" "$F/single-base.json" "$F/single-drop7.json"
  [ "$status" -eq 0 ]
  [[ $output == *"from $F/aa-jetty.json (A/A run of jetty, 95% intervals; absolute view only):"* ]]
  [[ $output == *"ok/s ±7.9%, p99 ±8.6% for rows of hello h1 wrk"* ]]
  [[ $output == *"jetty hello h1 wrk: ok/s -7.0% is within the floor ±7.9%: not called a regression (~)"* ]]
  # a 20% drop is beyond the floor: still a regression
  run "$COMPARE" --noise-floor "$F/aa-jetty.json" "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  # rows the A/A run did not measure get its largest floor
  run "$COMPARE" --format json --noise-floor "$F/aa-jetty.json" "$F/single-base.json" "$F/single-drop7.json"
  [ "$(jq -r '.rows[] | select(.server == "netty" and .tool == "h2load") | .p99.noise_floor.from' <<<"$output")" = "largest of the A/A run" ]
  # a results file without a noise floor is refused
  run "$COMPARE" --noise-floor "$F/single-base.json" "$F/single-base.json" "$F/single-drop7.json"
  [ "$status" -eq 2 ]
  [[ $output == *"holds no noise floor"*"run-benchmarks.sh --aa"* ]]
}

@test "compare: an A/A results file's labels are rows of their own (jetty@A, jetty@B), not one server" {
  run "$COMPARE" --format json "$F/aa-jetty.json" "$F/aa-jetty.json"
  [ "$status" -eq 0 ]
  # three runs a label, each label its own row (merged, it would be one row of six runs)
  [ "$(jq -c '[.rows[] | [.server, (.base.successful_rps | length)]]' <<<"$output")" = '[["jetty@A",3],["jetty@B",3]]' ]
  [ "$(jq -c '.base.aa_labels' <<<"$output")" = '["jetty@A","jetty@B"]' ]
  # --server names the server: both labels; against a plain file they are other rows
  run "$COMPARE" --format json --server jetty --tool wrk --scenario hello "$F/aa-jetty.json" "$F/multi-base.json"
  [ "$(jq -c '[.rows[] | "\(.server):\(.verdict)"]' <<<"$output")" = '["jetty:added","jetty@A:removed","jetty@B:removed"]' ]
  run "$COMPARE" "$F/aa-jetty.json" "$F/multi-base.json"
  [[ $output == *"base is an A/A run (--aa): its labels jetty@A and jetty@B are rows of their own, not one server"* ]]
  [[ $output != *"new is an A/A run"* ]]
}

@test "compare: a name in neither file is a usage error naming the known ones, not a pass" {
  # --reference: a typo would leave the relative gate with nothing to compare
  run "$COMPARE" --gate relative --reference jetyy "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--reference: 'jetyy' is in neither file (known: java-http, jdk-httpserver, jetty, netty, tomcat)"* ]]
  # --slo: a gate on a misspelt scenario gates nothing
  run "$COMPARE" --slo 'helo:p99<1us' "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--slo: 'helo' is in neither file (known: hello, post-load)"* ]]
  # the filters: each name of a comma list
  run "$COMPARE" --server netty,tomcta "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--server: 'tomcta' is in neither file"* ]]
  run "$COMPARE" --scenario hello --scenario post-lod "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--scenario: 'post-lod' is in neither file"* ]]
  # known names still pass, and the default reference need not be in the files
  run "$COMPARE" --reference netty --slo 'hello:p99<10s' --server netty,tomcat "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
  # an A/A run's labels are known names too
  run "$COMPARE" --format json --reference jetty@A "$F/aa-jetty.json" "$F/aa-jetty.json"
  [ "$status" -eq 0 ]
}

@test "compare: a file with no rows is an input error (exit 2), not a pass" {
  jq '.results = []' "$F/single-base.json" >"$TMP/no rows.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/no rows.json"
  [ "$status" -eq 2 ]
  [[ $output == *"no rows.json: no rows: nothing was measured"* ]]
  run "$COMPARE" "$TMP/no rows.json" "$F/single-base.json"
  [ "$status" -eq 2 ]
}

@test "compare: an empty, truncated, NaN, huge or duplicated-row file each gets its own message (exit 2)" {
  : >"$TMP/empty.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/empty.json"
  [ "$status" -eq 2 ]; [[ $output == *"empty.json: empty: no JSON at all"* ]]
  head -c 2000 "$F/single-base.json" >"$TMP/cut short.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/cut short.json"
  [ "$status" -eq 2 ]; [[ $output == *"cut short.json: truncated: the JSON stops before its end"* ]]
  # jq 1.6 reads NaN as null: the file must not pass as a run without that value
  jq -c '.results[0].metrics.successful_rps = "NAN"' "$F/single-base.json" | sed 's/"NAN"/NaN/' >"$TMP/nan.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/nan.json"
  [ "$status" -eq 2 ]; [[ $output == *"nan.json: NaN at .results[0].metrics.successful_rps: JSON has no NaN or Infinity"* ]]
  jq -c '.results[0].metrics.successful_rps = "HUGE"' "$F/single-base.json" | sed 's/"HUGE"/1e999/' >"$TMP/inf.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/inf.json"
  [ "$status" -eq 2 ]; [[ $output == *"inf.json: a number too large for a double at .results[0].metrics.successful_rps"* ]]
  jq '.results[0].metrics.successful_rps = 1e17' "$F/single-base.json" >"$TMP/huge.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/huge.json"
  [ "$status" -eq 2 ]; [[ $output == *"huge.json: 1e+17 at .results[0].metrics.successful_rps is beyond 2^53"* ]]
  [[ $output != *"1e,+17"* ]]
  # a row twice is not a second run
  jq '.results += [.results[0]]' "$F/single-base.json" >"$TMP/twice.json"
  run "$COMPARE" "$F/single-base.json" "$TMP/twice.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"twice.json: the same run recorded more than once: $(jq -r '.results[0] | "\(.server) \(.scenario) \(.protocol) \(.tool) run \(.run)"' "$F/single-base.json") (rows 1, $(jq '.results | length + 1' "$F/single-base.json"))"* ]]
}

@test "compare: a file validated once is not validated again, unless it changed" {
  # a validator that counts its calls and then does the real work
  mkdir -p "$TMP/venv/bin"
  printf '#!/bin/sh\necho call >>"%s"\nexec "%s" "$@"\n' "$TMP/calls" "$ROOT/.cache/venv/bin/check-jsonschema" \
    >"$TMP/venv/bin/check-jsonschema"
  chmod +x "$TMP/venv/bin/check-jsonschema"
  cp "$F/single-base.json" "$TMP/base.json"
  BARRAGE_VENV=$TMP/venv run "$COMPARE" "$TMP/base.json" "$TMP/base.json"
  [ "$status" -eq 0 ]
  [ "$(wc -l <"$TMP/calls")" -eq 1 ] # the second read of the same file is remembered
  BARRAGE_VENV=$TMP/venv run "$COMPARE" "$TMP/base.json" "$TMP/base.json"
  [ "$status" -eq 0 ]
  [ "$(wc -l <"$TMP/calls")" -eq 1 ]
  # the same name with other contents is validated anew, and refused
  jq '.results[0].status = 42' "$F/single-base.json" >"$TMP/base.json"
  BARRAGE_VENV=$TMP/venv run "$COMPARE" "$TMP/base.json" "$TMP/base.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"not a valid results file"* ]]
  [ "$(wc -l <"$TMP/calls")" -eq 2 ]
}

@test "compare: a validator that cannot run is said to be one, not an invalid file (exit 2)" {
  # a validator that crashes without a verdict
  mkdir -p "$TMP/venv/bin"
  printf '#!/bin/sh\necho "Traceback (most recent call last): ImportError" >&2\nexit 1\n' >"$TMP/venv/bin/check-jsonschema"
  chmod +x "$TMP/venv/bin/check-jsonschema"
  BARRAGE_VENV=$TMP/venv run "$COMPARE" "$F/single-base.json" "$F/single-base.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"the schema validator ($TMP/venv/bin/check-jsonschema) could not run (exit 1)"* ]]
  [[ $output == *"single-base.json: could not be checked: the schema validator could not run"* ]]
  [[ $output != *"not a valid results file"* ]]
  # one that cannot be installed
  : >"$TMP/not a dir"
  BARRAGE_VENV="$TMP/not a dir/venv" run "$COMPARE" "$F/single-base.json" "$F/single-base.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"could not be checked: the schema validator could not run"* ]]
  [[ $output != *"not a valid results file"* ]]
}

# raw_controls: the lines of stdin that hold a control character (C0 but the newline, DEL, C1)
# or an invisible character that reorders or breaks a line (bidi overrides, U+2028/9).
raw_controls() { perl -CSD -ne 'print if /[\x00-\x09\x0b-\x1f\x7f-\x9f\x{200e}\x{200f}\x{2028}-\x{202e}\x{2066}-\x{2069}]/'; }

@test "compare: control characters of a results file never reach the terminal raw: a crafted name cannot hide a regression" {
  # jetty regresses; its name, moved up a line and cleared, would erase the row that says so
  local crafted='.results[] |= (if .server == "jetty" then .server = "jetty\u001b[1A\u001b[2K\r\u009b2K\u202e\u0000" else . end)
    | .system.cpuModel += "\u001b]0;title\u0007" | .commit = "c0ffee\r\u001b[31m"'
  jq "$crafted" "$F/single-base.json" >"$TMP/base.json"
  jq "$crafted" "$F/single-drop20.json" >"$TMP/new.json"
  local format
  for format in text markdown; do
    run "$COMPARE" --format "$format" --slo 'hello:p99<2.6ms' "$TMP/base.json" "$TMP/new.json"
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" | raw_controls >"$TMP/raw"
    if [ -s "$TMP/raw" ]; then cat -v "$TMP/raw"; false; fi
    # the row still says it regressed, its name shown with its control characters made visible
    [[ $output == *"jetty^[[1A^[[2K^M<U+009B>2K<U+202E>^@"*"regression"* ]]
    # the SLO regression lines too
    grep -qE '^(  |- )?jetty\^\[\[1A\^\[\[2K\^M<U\+009B>2K<U\+202E>.* p99<2\.6ms' <<<"$output"
  done
  # the table keeps its columns: the escaped name is padded like the others
  run "$COMPARE" "$TMP/base.json" "$TMP/new.json"
  [ "$(perl -CSD -ne 'print index($_, " hello "), "\n" if / hello +h1 +wrk +[0-9]/' <<<"$output" | sort -u | wc -l)" -eq 1 ]
  # a usage error names the known servers: made visible too
  jq '.results[] |= (if .server == "tomcat" then .server = "tomcat\u001b[2K\r" else . end)' "$TMP/new.json" >"$TMP/tomcat.json"
  run "$COMPARE" --server jety "$TMP/base.json" "$TMP/tomcat.json"
  [ "$status" -eq 2 ]
  printf '%s\n' "$output" | raw_controls >"$TMP/raw"
  if [ -s "$TMP/raw" ]; then cat -v "$TMP/raw"; false; fi
  [[ $output == *"known: "*"tomcat^[[2K^M"* ]]
  # an input error names the rows: made visible too (lib/resultfile.sh)
  jq '.results += [.results[] | select(.server | startswith("tomcat"))][0:1]' "$TMP/tomcat.json" >"$TMP/twice.json"
  run "$COMPARE" "$TMP/base.json" "$TMP/twice.json"
  [ "$status" -eq 2 ]
  printf '%s\n' "$output" | raw_controls >"$TMP/raw"
  if [ -s "$TMP/raw" ]; then cat -v "$TMP/raw"; false; fi
  [[ $output == *"the same run recorded more than once: tomcat^[[2K^M hello h1 wrk run 1"* ]]
  # the run summary of run-benchmarks.sh (lib/summary.jq): one line a row, nothing raw
  jq '.results[0].reason = "bad\u001b[2K\nline" | .results[0].scenario += "\u009b"' "$TMP/new.json" >"$TMP/summary.json"
  jq -L "$ROOT/lib" -r 'import "summary" as summary; .results[] | summary::fields | @tsv' "$TMP/summary.json" >"$TMP/summary.tsv"
  tr '\t' ' ' <"$TMP/summary.tsv" | raw_controls >"$TMP/raw"
  if [ -s "$TMP/raw" ]; then cat -v "$TMP/raw"; false; fi
  [ "$(tr -cd '\t\n' <"$TMP/summary.tsv" | tr -d '\n' | wc -c)" -eq $((9 * $(jq '.results | length' "$TMP/summary.json"))) ]
  grep -qF 'bad^[[2K^Jline' "$TMP/summary.tsv"
}

@test "compare: a device or a pipe for a results file is refused at once (exit 2), never read" {
  mkfifo "$TMP/a pipe"
  # bounded: unfixed, /dev/zero was read until memory ran out and a FIFO nobody writes blocked for ever
  run bash -c 'ulimit -v 4000000; timeout 20 "$1" /dev/zero "$2"' _ "$COMPARE" "$F/single-base.json"
  [ "$status" -eq 2 ]
  [[ $output == *"/dev/zero: not a regular file"* ]]
  run timeout 20 "$COMPARE" "$F/single-base.json" "$TMP/a pipe"
  [ "$status" -eq 2 ]
  [[ $output == *"a pipe: not a regular file"* ]]
}

# zero_rows FILE JQ_ROW_SELECTOR OUT: FILE with the selected rows' runs at 0 ok/s (every request failed).
zero_rows() {
  jq "(.results[] | select($2) | .metrics) |= (.successful_rps = 0 | .succeeded = 0 | .failed = .requests)" "$1" >"$3"
}

@test "compare: a row whose 3 runs all got 0 ok/s is rendered: -100%, a regression (no jq error)" {
  zero_rows "$F/multi-base.json" '.server == "jetty" and .scenario == "hello" and .tool == "wrk"' "$TMP/all zero.json"
  run "$COMPARE" "$F/multi-base.json" "$TMP/all zero.json"
  [ "$status" -eq 1 ]
  [[ $output =~ jetty\ +hello\ +h1\ +wrk\ +45,000\ ±2%\ +0\ +-100\.0%.*regression ]]
  run "$COMPARE" "$TMP/all zero.json" "$TMP/all zero.json"
  [ "$status" -eq 0 ]
}

@test "compare --variants: a contestant whose runs all got 0 ok/s is -100%, slower, not 'no runs'" {
  zero_rows "$F/variants-jetty.json" '.variant.label == "jetty:vt" and .scenario == "hello"' "$TMP/vt zero.json"
  run "$COMPARE" --variants "$TMP/vt zero.json"
  [ "$status" -eq 0 ]
  [[ $output == *"jetty:vt against jetty:platform (hello h1 wrk, 3 and 3 run(s)): ok/s -100.0%"*"(every run at 0 ok/s): slower;"* ]]
  [[ $output != *"no runs"* ]]
  run "$COMPARE" --variants "$TMP/vt zero.json" --format json
  assert_jq '[.[] | select(.scenario == "hello")] | .[0].verdict == "slower" and .[0].successful_rps.change == -1' - <<<"$output"
}

@test "compare: the JSON's regressions is a list of rows and metrics (as history.sh's); empty exits 0" {
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-drop20.json"
  [ "$status" -eq 1 ]
  assert_jq '.regressions | map([.series, .view, .metric]) == [["jetty hello h1 wrk", "absolute", "p99"], ["jetty hello h1 wrk", "absolute", "successful_rps"]]' - <<<"$output"
  run "$COMPARE" --format json "$F/single-base.json" "$F/single-base.json"
  [ "$status" -eq 0 ]
  assert_jq '.regressions == []' - <<<"$output"
}

@test "compare: a reader that stops early (| head -1) leaves the exit status the verdict" {
  # true reads nothing: every write after it exits meets a closed pipe (SIGPIPE)
  "$COMPARE" "$F/single-base.json" "$F/single-drop20.json" | true
  [ "${PIPESTATUS[0]}" -eq 1 ]
  "$COMPARE" "$F/single-base.json" "$F/single-base.json" | head -1 >/dev/null
  [ "${PIPESTATUS[0]}" -eq 0 ]
  "$COMPARE" --variants "$F/variants-jetty.json" | true
  [ "${PIPESTATUS[0]}" -eq 0 ]
  # a write that fails otherwise is an error
  local rc=0
  "$COMPARE" "$F/single-base.json" "$F/single-base.json" >/dev/full 2>"$TMP/err" || rc=$?
  [ "$rc" -eq 2 ]
  grep -q "could not write the comparison" "$TMP/err"
}

@test "compare: the default text table is narrow (3-run files: every line of it within 100 characters); --details adds p, intervals and each side's values" {
  run "$COMPARE" "$F/recorded-quick-3runs-a.json" "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 1 ]
  local line wide=0
  # every line but the summary and the quoted notes (a row's name can be long), in characters
  while IFS= read -r line; do
    [[ $line == Summary:* || $line == "  java-http hello h1 wrk: error rate"* ]] && continue
    ((${#line} <= 100)) || { echo "${#line}: $line"; wide=1; }
  done <<<"$output"
  ((wide == 0))
  [[ $output =~ java-http\ +hello\ +h1\ +wrk\ +8,387\ ±77%\ +4,894\ ±43%\ +-41\.6%\ +\+781\.8%\ +\+0\.0023\ +regression ]]
  [[ $output != *"(p="* && $output == *"--details"* ]]
  run "$COMPARE" --details "$F/recorded-quick-3runs-a.json" "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 1 ]
  [[ $output == *"(p="*"95% CI"* && $output == *"base p99"* ]]
}

@test "compare --variants: aot against its default by time to first response and to steady state; a steady ok/s difference is a finding" {
  # variants-aot.json: jetty:aot's starts answer in 0.5-1.5 s and are steady after 2-11 s;
  # jetty:platform's in 1.4-1.6 s, steady after 12 and 14 s, not reached in its third start
  run "$COMPARE" --variants "$F/variants-aot.json"
  [ "$status" -eq 0 ]
  [[ $output == *"jetty:aot against jetty:platform (hello h1 wrk, 3 and 3 run(s)): "*"; first response 0.6 s against 1.5 s, steady after 3 s against 13 s (not reached in 1 more); a finding: steady ok/s faster with aot"* ]]
  # a shape without a warm-up of its own has no time to steady state, never a number
  [[ $output == *"(post-load h1 wrk, 3 and 3 run(s)): "*"; first response 0.6 s against 1.5 s; a finding"* ]]
  run "$COMPARE" --variants "$F/variants-aot.json" --format json
  assert_jq '.[] | select(.scenario == "hello") | .startup == {against: {starts: 3, first_response_s: 1.5, steady_after_s: 13, reached: 2, not_reached: 1},
                                                               label: {starts: 3, first_response_s: 0.6, steady_after_s: 3, reached: 3, not_reached: 0}}
                                                    and (.finding | startswith("a finding: steady ok/s faster"))' - <<<"$output"
  # not aot (jetty:vt) or not decided (~): no finding; no server_warmups: no start-up figures
  run "$COMPARE" --variants "$F/variants-jetty.json" --format json
  assert_jq 'length == 2 and all(.[]; .finding == null and .startup == null)' - <<<"$output"
}
