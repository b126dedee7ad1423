#!/usr/bin/env bats
# history.sh: change points over a history of results files (Apache Otava), the gate on the newest
# one, bad input, and the trend page in headless chromium (lib/report/browser.py). The series are
# made from a real results file (tests/fixtures/results/recorded-quick-3runs-a.json: java-http,
# netty and jetty, hello, h1, wrk and h2load, 3 runs) by tests/fixtures/history/make-series.py:
# every run scaled by 1 + N(0, 2%) (seeded), one row stepped from the K-th file on.

load test_helper
bats_require_minimum_version 1.5.0

setup_file() {
  local dir make=$BATS_TEST_DIRNAME/fixtures/history/make-series.py
  local source=$BATS_TEST_DIRNAME/fixtures/results/recorded-quick-3runs-a.json
  dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/barrage history series.XXXX")
  export SERIES=$dir
  # a 20% step of jetty/hello/h1/wrk at the 13th of 25 files
  python3 "$make" "$source" "$dir/step" --files 25 --series jetty/hello/h1/wrk --step-at 13 --step 0.8 --seed 1
  # noise only
  python3 "$make" "$source" "$dir/noise" --files 12 --seed 2
  # a 6% step: beyond the 5% threshold, within the 7.9% floor of tests/fixtures/results/aa-jetty.json
  python3 "$make" "$source" "$dir/small" --files 12 --series jetty/hello/h1/wrk --step-at 7 --step 0.94 --seed 3
  # netty/h2load 20% faster from the 7th file on
  python3 "$make" "$source" "$dir/improve" --files 12 --series netty/hello/h1/h2load --step-at 7 --step 1.2 --seed 4
}

teardown_file() { rm -rf "$SERIES"; }

setup() {
  common_setup "barrage history"
  HISTORY=$ROOT/history.sh
}

teardown() { common_teardown; }

# series_files DIR: its results files in time order (their names are their timestamps), into the array FILES.
series_files() { mapfile -t FILES < <(find "$1" -maxdepth 1 -name '*.json' | sort); }

need_chromium() { command -v chromium >/dev/null || skip "chromium is not installed (run-tests.sh deps installs it)"; }

@test "history: a 20% step at the 13th of 25 files is found there, with its commit, size and interval, and gates (exit 1)" {
  run --separate-stderr "$HISTORY" --format json "$SERIES/step"
  echo "stderr: ${stderr:-}"
  [ "$status" -eq 1 ]
  echo "$output" >"$TMP/doc.json"
  local thirteenth commit
  series_files "$SERIES/step"
  thirteenth=${FILES[12]}
  commit=$(jq -r .commit "$thirteenth")
  # exactly one series changed, in both metrics, at the 13th file, by about -20% ok/s
  assert_jq '[.series[] | select(any(.metrics[]; (.change_points | length) > 0)) | .name] == ["jetty hello h1 wrk"]' "$TMP/doc.json"
  # shellcheck disable=SC2016 # $commit, $path: jq's
  assert_jq --arg commit "$commit" --arg path "$thirteenth" '.series[] | select(.name == "jetty hello h1 wrk") | .metrics.successful_rps.change_points
    | length == 1 and .[0].file == 12 and .[0].commit == $commit and .[0].verdict == "regression" and .[0].newest
      and .[0].change > -0.22 and .[0].change < -0.18 and .[0].ci.lo < .[0].change and .[0].change < .[0].ci.hi
      and .[0].ci.hi < -0.15 and .[0].p < 0.001' "$TMP/doc.json"
  # shellcheck disable=SC2016 # jq's $path
  assert_jq --arg path "$thirteenth" '.files[12].path == $path' "$TMP/doc.json"
  assert_jq '.series[] | select(.name == "jetty hello h1 wrk") | .metrics.p99.change_points | length == 1 and .[0].file == 12 and .[0].verdict == "regression"' "$TMP/doc.json"
  assert_jq '.verdict == "regression" and (.regressions | map(.metric) | sort) == ["p99", "successful_rps"]' "$TMP/doc.json"
  # files numbered from 1 as the text's #13 (file: the 0-based index into files)
  # shellcheck disable=SC2016 # jq's $path
  assert_jq --arg path "$thirteenth" '.files[12].number == 13
    and all(.regressions[]; .file_number == 13 and .file == 12 and .file_name == ($path | split("/") | last))' "$TMP/doc.json"
  # the text says where, which commit, how much, and the gate
  run "$HISTORY" "$SERIES/step"
  [ "$status" -eq 1 ]
  echo "$output"
  grep -E "^jetty hello h1 wrk +ok/s +#13 2026-10-13T06:00:00Z 20261013T060000Z.json +${commit:0:12} .* -1[89]\.[0-9]% \(-[0-9.]+% to -[0-9.]+%\) +[0-9.]+e-[0-9]+ +regression \(newest\)$" <<<"$output"
  [[ ${lines[-1]} == "Summary: 2 regressions at the newest change point: jetty hello h1 wrk ok/s -1"*" at #13; jetty hello h1 wrk p99 +2"*" at #13 (exit 1)" ]]
}

@test "history: pure noise finds no change point (exit 0)" {
  run "$HISTORY" "$SERIES/noise"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"No change point in any series."* ]]
  [[ ${lines[-1]} == "Summary: no regression at the newest change point of any series (exit 0)" ]]
}

@test "history: a step within the A/A noise floor finds none; without the floor it is found and gates" {
  run "$HISTORY" "$SERIES/small"
  echo "$output"
  [ "$status" -eq 1 ]
  grep -E '^jetty hello h1 wrk +ok/s +#7 .* -[56]\.[0-9]% .* regression \(newest\)$' <<<"$output"
  # --fail-on leaves ok/s out of the gate, not out of the report
  run "$HISTORY" --fail-on p99 "$SERIES/small"
  [ "$status" -eq 0 ]
  grep -E '^jetty hello h1 wrk +ok/s +#7 .* regression \(newest\)$' <<<"$output"
  run "$HISTORY" --noise-floor "$ROOT/tests/fixtures/results/aa-jetty.json" "$SERIES/small"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"No change point in any series."* ]]
  [[ $output == *"  ok/s ±7.9% (hello h1 wrk), p99 ±8.6% (hello h1 wrk): java-http hello h1 wrk, jetty hello h1 wrk, netty hello h1 wrk"* ]]
  # (aa-jetty.json was made by tests/fixtures/results/generate.py, on another "machine")
  [[ $output == *"measured on another machine"* ]]
  # a results file without a noise floor is refused as one
  run "$HISTORY" --noise-floor "$ROOT/tests/fixtures/results/single-base.json" "$SERIES/small"
  [ "$status" -eq 2 ]
  [[ $output == *"holds no noise floor"* ]]
}

@test "history: one odd newest file is not a change point and does not gate (3 files on each side needed)" {
  series_files "$SERIES/noise"
  mkdir "$TMP/odd"
  cp "${FILES[@]}" "$TMP/odd/"
  jq '(.results[] | select(.server == "jetty" and .tool == "wrk") | .metrics) |= (.successful_rps *= 0.7 | .rps *= 0.7)' \
    "${FILES[-1]}" >"$TMP/odd/${FILES[-1]##*/}"
  run "$HISTORY" "$TMP/odd"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"No change point in any series."* ]]
}

@test "history: an improvement is reported, not gated (exit 0)" {
  run "$HISTORY" "$SERIES/improve"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -E '^netty hello h1 h2load +ok/s +#7 .* \+(19|20|21)\.[0-9]% .* improvement \(newest\)$' <<<"$output"
  [[ ${lines[-1]} == "Summary: no regression at the newest change point of any series (exit 0)" ]]
}

@test "history: a regression undone by a later improvement does not gate; one left alone does" {
  # jetty/hello/h1/wrk 20% slower from the 4th to the 7th of 12 files, then back
  local f i=0
  mkdir "$TMP/back"
  series_files "$SERIES/improve"
  for f in "${FILES[@]}"; do
    i=$((i + 1))
    if ((i >= 4 && i <= 7)); then
      jq '(.results[] | select(.server == "jetty" and .tool == "wrk") | .metrics) |= (.successful_rps *= 0.8 | .rps *= 0.8)' "$f" >"$TMP/back/${f##*/}"
    else cp "$f" "$TMP/back/"; fi
  done
  run --separate-stderr "$HISTORY" --fail-on rps --format json "$TMP/back"
  echo "stderr: ${stderr:-}"
  [ "$status" -eq 0 ]
  assert_jq '.series[] | select(.name == "jetty hello h1 wrk") | .metrics.successful_rps.change_points | map([.file, .verdict]) == [[3, "regression"], [7, "improvement"]]' - <<<"$output"
  # without the files after the recovery, the regression is the newest change point: it gates
  rm "$TMP/back/"2026100{8,9}T*.json "$TMP/back/"2026101{0,1,2}T*.json
  run "$HISTORY" --fail-on rps "$TMP/back"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ ${lines[-1]} == "Summary: 1 regression at the newest change point: jetty hello h1 wrk ok/s -"*" at #4 (exit 1)" ]]
}

@test "history: fewer files than the detection needs: said, no verdict, exit 0" {
  mkdir "$TMP/few"
  series_files "$SERIES/step"
  cp "${FILES[@]: -5}" "$TMP/few/"
  run "$HISTORY" "$TMP/few"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"Too few files to tell (fewer than 6 points; no verdict): java-http hello h1 h2load (5)"* ]]
  [[ ${lines[-1]} == "Summary: no verdict: no series has the 6 files the detection needs (exit 0)" ]]
  run --separate-stderr "$HISTORY" --format json "$TMP/few"
  echo "stderr: ${stderr:-}"
  assert_jq '.verdict == null and all(.series[].metrics[]; .status == "too few")' - <<<"$output"
}

@test "history: files from another machine are refused (exit 2) unless --any-machine, which names them" {
  python3 "$ROOT/tests/fixtures/history/make-series.py" "$ROOT/tests/fixtures/results/recorded-quick-3runs-a.json" "$TMP/two" \
    --files 8 --seed 5 --other-machine-at 5
  run "$HISTORY" "$TMP/two"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"the files come from 2 machines: AMD EPYC, 2 cores, 24 GB RAM, x86_64 (4 files, first 20261001T060000Z.json); Intel(R) Xeon(R) Gold 6338, 8 cores, 24 GB RAM, x86_64 (4 files, first 20261005T060000Z.json)"* ]]
  run "$HISTORY" --any-machine "$TMP/two"
  echo "$output"
  [ "$status" -le 1 ]
  [[ $output == *"on 2 machines (--any-machine)"* ]]
  [[ $output == *"  machine: Intel(R) Xeon(R) Gold 6338, 8 cores, 24 GB RAM, x86_64 (4 files)"* ]]
}

@test "history: files with different plans: a row in some files has only those, another plan is another series" {
  python3 "$ROOT/tests/fixtures/history/make-series.py" "$ROOT/tests/fixtures/results/recorded-quick-3runs-a.json" "$TMP/plans" \
    --files 12 --seed 6 --series netty/hello/h1/wrk --drop-at 7
  local f i=0
  series_files "$TMP/plans"
  for f in "${FILES[@]}"; do
    i=$((i + 1))
    ((i >= 9)) || continue
    jq '(.results[] | select(.server == "jetty" and .tool == "h2load") | .config.connections) = 256' "$f" >"$f.new" && mv "$f.new" "$f"
  done
  run --separate-stderr "$HISTORY" --format json "$TMP/plans"
  echo "stderr: ${stderr:-}"
  [ "$status" -le 1 ]
  echo "$output" >"$TMP/doc.json"
  assert_jq '.series[] | select(.name == "netty hello h1 wrk") | .files == 6' "$TMP/doc.json"
  assert_jq '[.series[] | select(.server == "jetty" and .tool == "h2load") | [.name, .files]] == [["jetty hello h1 h2load [connections 100]", 8], ["jetty hello h1 h2load [connections 256]", 4]]' "$TMP/doc.json"
  run "$HISTORY" "$TMP/plans"
  [[ $output == *"Rows not in every file (their series holds only the files that measured them): "*"netty hello h1 wrk (6 of 12 files)"* ]]
  [[ $output == *"jetty hello h1 h2load [connections 256] (4)"* ]]
}

@test "history: malformed files are refused (exit 2) or skipped with --skip-invalid; a run still going in DIR is skipped" {
  mkdir "$TMP/bad"
  series_files "$SERIES/noise"
  cp "${FILES[@]:0:4}" "$TMP/bad/"
  cp "$ROOT/tests/fixtures/results/bad-not-json.json" "$TMP/bad/zz-truncated.json"
  run "$HISTORY" "$TMP/bad"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"zz-truncated.json: truncated: the JSON stops before its end"* ]]
  run "$HISTORY" --skip-invalid "$TMP/bad"
  [ "$status" -eq 0 ]
  [[ $output == *"zz-truncated.json: skipped (--skip-invalid)"* ]]
  [[ $output == *"4 results files"* ]]
  rm "$TMP/bad/zz-truncated.json"
  # a schema-invalid file, named
  run "$HISTORY" "$TMP/bad" "$ROOT/tests/fixtures/results/bad-schema-invalid.json"
  [ "$status" -eq 2 ]
  [[ $output == *"not a valid results file"* ]]
  # an incomplete run: skipped in DIR, refused when named
  jq '.complete = false | .timestamp = "2026-12-01T00:00:00Z"' "${FILES[0]}" >"$TMP/bad/running.json"
  run "$HISTORY" "$TMP/bad"
  [ "$status" -eq 0 ]
  [[ $output == *"running.json: skipped: incomplete"* ]]
  [[ $output == *"4 results files"* ]]
  run "$HISTORY" "$TMP/bad/running.json" "$TMP/bad"
  [ "$status" -eq 2 ]
  rm "$TMP/bad/running.json"
  # the same run twice
  cp "${FILES[0]}" "$TMP/bad/copy.json"
  run "$HISTORY" "$TMP/bad"
  [ "$status" -eq 2 ]
  [[ $output == *"start at the same time (2026-10-01T06:00:00Z): the same run twice?"* ]]
  # the same instant written with an offset is the same time
  rm "$TMP/bad/copy.json"
  jq '.timestamp = "2026-10-01T08:00:00+02:00"' "${FILES[1]}" >"$TMP/bad/${FILES[1]##*/}"
  run "$HISTORY" "$TMP/bad"
  [ "$status" -eq 2 ]
  [[ $output == *"the same run twice?"* ]]
  # usage: nothing to read, an empty folder, a bad option, a name in no file
  mkdir "$TMP/empty"
  run "$HISTORY"
  [ "$status" -eq 2 ]
  run "$HISTORY" "$TMP/empty"
  [ "$status" -eq 2 ]
  [[ $output == *"no results files (*.json) in it"* ]]
  run "$HISTORY" --threshold x "$SERIES/noise"
  [ "$status" -eq 2 ]
  run "$HISTORY" --fail-on errors "$SERIES/noise"
  [ "$status" -eq 2 ]
  run "$HISTORY" --min-files 5 "$SERIES/noise"
  [ "$status" -eq 2 ]
  run "$HISTORY" --server jety "$SERIES/noise"
  [ "$status" -eq 2 ]
  [[ $output == *"--server: 'jety' is in no file (known: "*"jetty"* ]]
  run "$HISTORY" --help
  [ "$status" -eq 0 ]
  [[ $output == *"Exit status: 0 no regression"* ]]
}

@test "history: control characters in a name are escaped in the text: a crafted name cannot hide the verdict" {
  local evil=$'jetty\r\e[2Kjetty hello h1 wrk ok/s no change\u202e'
  python3 "$ROOT/tests/fixtures/history/make-series.py" "$ROOT/tests/fixtures/results/recorded-quick-3runs-a.json" "$TMP/evil" \
    --files 12 --seed 7 --series jetty/hello/h1/wrk --step-at 7 --step 0.8 --rename "jetty=$evil"
  run "$HISTORY" --server "$evil" "$TMP/evil"
  [ "$status" -eq 1 ]
  # no raw control or bidi character anywhere in the report; the names written escaped
  local report=$output
  run python3 -c 'import sys, unicodedata; bad = [hex(ord(c)) for c in sys.stdin.read() if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")]; print(bad); sys.exit(1 if bad else 0)' <<<"$report"
  echo "$output"
  [ "$status" -eq 0 ]
  output=$report
  [[ $output == *'jetty\x0d\x1b[2Kjetty hello h1 wrk ok/s no change\u202e hello h1 wrk'*'regression (newest)'* ]]
}

@test "history: the trend page: every series drawn, change points listed as found, links to each run's page, names escaped" {
  need_chromium
  mkdir "$TMP/runs"
  local name='<!--<script>x</script>"&'
  python3 "$ROOT/tests/fixtures/history/make-series.py" "$ROOT/tests/fixtures/results/recorded-quick-3runs-a.json" "$TMP/runs" \
    --files 12 --seed 8 --series jetty/hello/h1/wrk --step-at 7 --step 0.8 --rename "jetty=$name"
  # one run with its page (report.sh), the others without: linked to their results file
  local first
  series_files "$TMP/runs"
  first=${FILES[0]}
  "$ROOT/report.sh" "$first" >/dev/null 2>&1
  local rc=0
  "$HISTORY" --html "$TMP/trend page.html" --format json "$TMP/runs" >"$TMP/doc.json" || rc=$?
  [ "$rc" -eq 1 ]
  [ -s "$TMP/trend page.html" ]
  python3 "$ROOT/lib/report/browser.py" "$TMP/trend page.html" --screenshot "$TMP/shot.png" >"$TMP/facts.json"
  # no error, no request, every series a chart with paint on it
  assert_jq '(.console_errors | length) == 0 and (.requests | length) == 0' "$TMP/facts.json"
  [ "$(jq '.series | length' "$TMP/doc.json")" -eq 6 ]
  assert_jq '(.charts | length) == 6 and .charts_drawn == "6" and all(.charts[]; .canvas and .painted > 50)' "$TMP/facts.json"
  assert_jq '.screenshot.painted_share > 0.03 and .screenshot.colours > 50' "$TMP/facts.json"
  assert_jq '[.banners[].id] == ["regression"]' "$TMP/facts.json"
  # one honest scale: every chart the same axis, change from the series' median, centred on 0,
  # at least ±10% (±2% of noise is not drawn as a swing) and wide enough for the 20% step
  [ "$(jq -c '[.charts[].axes[] | select(.dim == "yAxis") | .extent] | unique' "$TMP/facts.json")" = '[[-0.2,0.2]]' ]
  [ "$(jq '[.charts[].axes[] | select(.dim == "yAxis")] | length' "$TMP/facts.json")" -eq 6 ]
  # the change points table is the document's (as the page's reader sees it: the name intact)
  diff <(jq -r '.series[] | .name as $n | .metrics | to_entries[] | .key as $m | .value.change_points[]
                | "\($n)/\(if $m == "p99" then "p99" else "ok/s" end) \(.file + 1) \(.commit) \(.verdict)"' "$TMP/doc.json" | sort) \
       <(jq -r '.cells | map(select(.table == "changes")) | group_by(.key)[] | (map({(.field): .value}) | add) as $c
                | (map({(.field): .text}) | add) as $t | "\(.[0].key) \($c.file) \($c.commit) \($t.verdict | sub(" \\(newest\\)"; ""))"' "$TMP/facts.json" | sort)
  jq -r '.cells[] | select(.table == "changes") | .key' "$TMP/facts.json" | grep -qF "$name hello h1 wrk/ok/s"
  # every file linked: the one with a page to its page, the others to their results file
  [ "$(jq '[.cells[] | select(.field == "link")] | length' "$TMP/facts.json")" -eq 12 ]
  [ "$(jq -r '.cells[] | select(.key == "file/1" and .field == "link") | .value' "$TMP/facts.json")" = "runs/$(basename "$first" .json).html" ]
  [ "$(jq -r '.cells[] | select(.key == "file/2" and .field == "link") | .value' "$TMP/facts.json")" = "runs/${FILES[1]##*/}" ]
  # the name is text: in the page's data as JSON with < escaped, never raw inside a script
  [ "$(grep -cF '<!--<script>x' "$TMP/trend page.html")" -eq 0 ]
  grep -qF '\u003c!--\u003cscript\u003ex\u003c/script\u003e' "$TMP/trend page.html"
  grep -qF '&lt;!--&lt;script&gt;x&lt;/script&gt;&quot;&amp; hello h1 wrk' "$TMP/trend page.html"
  # a page that cannot be written leaves nothing behind and says so
  run "$HISTORY" --html "$TMP/no such dir/trend.html" "$TMP/runs"
  [ "$status" -eq 2 ]
  [ "$(find "$TMP" -name '.history.*' | wc -l)" -eq 0 ]
}

@test "history: only the main shell removes its work files, not a subshell a signal reaches as it forks" {
  # shellcheck disable=SC2016 # expanded by that bash
  run bash -c 'source "$1"; WORK_DIR=$2/work; PAGE_TMP=$2/.page; mkdir "$WORK_DIR"; : >"$PAGE_TMP"
    (cleanup); [[ -d $WORK_DIR && -f $PAGE_TMP ]] && echo "kept by a subshell"
    cleanup; [[ ! -e $WORK_DIR && ! -e $PAGE_TMP ]] && echo "removed by the main shell"' _ "$HISTORY" "$TMP"
  [ "$status" -eq 0 ]
  [ "$output" = $'kept by a subshell\nremoved by the main shell' ]
}

@test "history: results files' names reach stderr escaped: an escape sequence in a name cannot drive the terminal" {
  mkdir "$TMP/names"
  series_files "$SERIES/noise"
  local evil=$'\e]0;owned\a\e[2K\rrunning\u202e.json'
  jq '.complete = false' "${FILES[0]}" >"$TMP/names/$evil"
  cp "$ROOT/tests/fixtures/results/bad-not-json.json" "$TMP/names/"$'\e[31mtruncated.json'
  run --separate-stderr "$HISTORY" --skip-invalid "$TMP/names"
  [ "$status" -eq 2 ]
  echo "${stderr:-}"
  [[ ${stderr:-} == *'^[]0;owned^G^[[2K^Mrunning<U+202E>.json: skipped: incomplete'* ]]
  [[ ${stderr:-} == *'^[[31mtruncated.json: skipped (--skip-invalid)'* ]]
  run python3 -c 'import sys, unicodedata; bad = [hex(ord(c)) for c in sys.stdin.read() if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")]; print(bad); sys.exit(1 if bad else 0)' <<<"${stderr:-}"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "history: --accept a known change point: it no longer gates; a name of no file is a usage error" {
  series_files "$SERIES/step"
  local thirteenth=${FILES[12]##*/} commit
  commit=$(jq -r .commit "${FILES[12]}")
  run --separate-stderr "$HISTORY" --accept "$thirteenth" "$SERIES/step"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"regression (newest, accepted)"* ]]
  [[ $output == *"Summary: no regression at the newest change point of any series (exit 0)"* ]]
  [[ $output == *"Accepted (--accept"*"#13 $thirteenth"* ]]
  # by its commit, in JSON: accepted, no regression left
  run --separate-stderr "$HISTORY" --format json --accept "${commit:0:10}" "$SERIES/step"
  [ "$status" -eq 0 ]
  assert_jq '.verdict == "ok" and .regressions == [] and .settings.accept == [12]
    and (.series[] | select(.name == "jetty hello h1 wrk") | .metrics.successful_rps.change_points[-1].accepted)' - <<<"$output"
  # a name that is no file of the history: a usage error, not a silent pass
  run --separate-stderr "$HISTORY" --accept no-such-run.json "$SERIES/step"
  [ "$status" -eq 2 ]
  [[ ${stderr:-} == *"--accept: 'no-such-run.json' names no file of the history"* ]]
}

@test "history: --html writes a regular file only: a FIFO, a device, a symlink or a results file it reads is refused (exit 2), left as it was" {
  series_files "$SERIES/noise"
  mkfifo "$TMP/fifo"
  run "$HISTORY" --html "$TMP/fifo" "$SERIES/noise"
  [ "$status" -eq 2 ]
  [[ $output == *"--html: $TMP/fifo exists and is not a regular file"* ]]
  [ -p "$TMP/fifo" ]
  run "$HISTORY" --html /dev/null "$SERIES/noise"
  [ "$status" -eq 2 ]
  [ -c /dev/null ]
  : >"$TMP/page.html" && ln -s "$TMP/page.html" "$TMP/trend link.html"
  run "$HISTORY" --html "$TMP/trend link.html" "$SERIES/noise"
  [ "$status" -eq 2 ]
  [[ $output == *"is a symbolic link"* ]]
  [ -L "$TMP/trend link.html" ]
  cp "${FILES[0]}" "$TMP/copy.json"
  run "$HISTORY" --html "$TMP/copy.json" "$SERIES/noise" "$TMP/copy.json"
  [ "$status" -eq 2 ]
  [[ $output == *"a file this run reads"* ]]
  cmp -s "$TMP/copy.json" "${FILES[0]}"
}

@test "log: every message and a tool's lines (log::lines) reach stderr with control characters made visible, one line each" {
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  run --separate-stderr log::warn $'a\e[2Kb\rc\nd\x7f e\u202ef'
  [ "${stderr:-}" = 'warning: a^[[2Kb^Mc^Jd^? e<U+202E>f' ]
  run --separate-stderr log::lines <<<$'plain é line\n\e]0;title\a\n\tat a.B(B.java:1)'
  [ "${stderr:-}" = $'plain é line\n^[]0;title^G\n\tat a.B(B.java:1)' ]
}
