#!/usr/bin/env bats
# update-readme.sh: the performance section, its charts (real gnuplot), idempotence, and
# bad inputs that must leave the README and the charts untouched.
# Fixtures: tests/fixtures/results (written by generate.py there).

load test_helper

setup() {
  common_setup
  F=$ROOT/tests/fixtures/results
  UPDATE=$ROOT/update-readme.sh
  README=$TMP/README.md
  CHARTS=$TMP/docs/charts
  printf '# Project\n\nIntro text.\n\n## Usage\n\nRun it.\n' >"$README"
}

teardown() {
  # what a failed test left running under update-readme.sh (by PID)
  local p
  for p in ${UNDER:-}; do kill -KILL "$p" 2>/dev/null || true; done
  common_teardown
}

update() { run "$UPDATE" --readme "$README" --charts "$CHARTS" "$@"; }

# section: the lines between the markers.
section() { sed -n '/^<!-- performance:start -->$/,/^<!-- performance:end -->$/p' "$README"; }

# servers HEADING: the servers of the table under "### HEADING", in their order (markers and
# the rank column dropped).
servers() {
  section | awk -v h="### $1" '$0 == h {on = 1; next} /^### / {on = 0}
    on && /^\| (=?[0-9]+ \| )?[a-z]/ {sub(/^\| (=?[0-9]+ \| )?/, ""); print $1}' | paste -sd,
}

# ranks HEADING: "rank:server" of the table under "### HEADING", in their order.
ranks() {
  section | awk -v h="### $1" '$0 == h {on = 1; next} /^### / {on = 0}
    on && /^\| =?[0-9]+ \| / {print $2 ":" $4}' | paste -sd' '
}

# is_png FILE: PNG signature, and an image of sensible size.
is_png() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
  [ "$(stat -c %s "$1")" -gt 10000 ]
  [ "$(stat -c %s "$1")" -lt 2000000 ]
}

@test "update-readme: --help describes the options" {
  run "$UPDATE" --help
  [ "$status" -eq 0 ]
  [[ $output == *"--baseline SERVER"* && $output == *"--charts DIR"* && $output == *"--readme PATH"* ]]
}

@test "update-readme: creates a ## Performance section with markers when there is none" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^<!-- performance:start -->$' "$README")" -eq 1 ]
  [ "$(grep -c '^<!-- performance:end -->$' "$README")" -eq 1 ]
  [ "$(grep -c '^## Performance$' "$README")" -eq 1 ]
  # The text before stays as it was.
  [ "$(head -n 7 "$README")" = "$(printf '# Project\n\nIntro text.\n\n## Usage\n\nRun it.')" ]
  [ "$(sed -n 9p "$README")" = "## Performance" ]
}

@test "update-readme: puts the markers under an existing ## Performance heading" {
  printf '# P\n\n## Performance\n\n## Later\n\ntext\n' >"$README"
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(sed -n 3,5p "$README")" = "$(printf '## Performance\n\n<!-- performance:start -->')" ]
  [ "$(tail -n 3 "$README")" = "$(printf '## Later\n\ntext')" ]
}

@test "update-readme: replaces only what lies between the markers" {
  printf '# P\n\nbefore\n\n## Performance\n\n<!-- performance:start -->\nold table\n<!-- performance:end -->\n\nafter\n' >"$README"
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(grep -c 'old table' "$README")" -eq 0 ]
  [ "$(head -n 7 "$README")" = "$(printf '# P\n\nbefore\n\n## Performance\n\n<!-- performance:start -->')" ]
  [ "$(tail -n 3 "$README")" = "$(printf '<!-- performance:end -->\n\nafter')" ]
}

@test "update-readme: run twice on the same input, README and charts are byte-identical" {
  local file
  for file in readme-failures.json readme-errors-rank.json; do
    update --file "$F/$file"
    [ "$status" -eq 0 ]
    cp "$README" "$TMP/first.md"
    (cd "$CHARTS" && md5sum ./*.png) >"$TMP/first.md5"
    update --file "$F/$file"
    [ "$status" -eq 0 ]
    cmp "$README" "$TMP/first.md"
    (cd "$CHARTS" && md5sum -c --quiet "$TMP/first.md5")
  done
}

@test "update-readme: one table per scenario x protocol x tool, servers sorted by successful requests/s" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c '^### .* · ')" -eq 3 ]
  section | grep -qx '### hello · HTTP/1.1 · wrk'
  section | grep -qx '### hello · HTTP/2 cleartext (h2c) · h2load'
  section | grep -qx '### post-load · HTTP/1.1 · wrk'
  section | grep -qx '| Server | Successful/s | Errors | p50 | p99 | p99.9 | Server CPU | Peak RSS | vs java-http |'
  [ "$(servers 'hello · HTTP/1.1 · wrk')" = "netty,java-http,jetty,tomcat,jdk-httpserver" ]
  section | grep -qxF '| netty ≈ | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 117% |'
  section | grep -qxF '| java-http ≈ | 52,000 | 0 | 610 µs | 2.13 ms | 4.27 ms | 202% | 227 MiB | 100% |'
}

@test "update-readme: --baseline changes the vs column" {
  update --file "$F/single-base.json" --baseline netty
  [ "$status" -eq 0 ]
  section | grep -q '| vs netty |$'
  section | grep -qF '| netty ≈ | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 100% |'
}

@test "update-readme: failed and skipped servers are listed with their reason; errors and nulls shown" {
  update --file "$F/readme-failures.json"
  [ "$status" -eq 0 ]
  section | grep -qxF -- '- **tomcat** not measured: failed: server did not answer /health within 30 s'
  section | grep -qxF -- '- **jdk-httpserver** not measured: skipped: server does not support h2c'
  # jetty's post-load run had 2% errors: 558 errors/s and fewer successful requests/s.
  section | grep -qF '| jetty ⚠ ≈ | 27,342 | 2.0% (558/s) | 900 µs | 3.15 ms | 6.30 ms |'
  # netty's h2load run has no server stats: rendered as a dash.
  section | grep -qF '| netty | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | – | – | 117% |'
}

@test "update-readme: 3+ runs show the median and ± the 95% confidence interval; 2 runs the range" {
  update --file "$F/multi-shift10.json"
  [ "$status" -eq 0 ]
  section | grep -q 'Figures are the median of 3 runs; successful requests/s and p99 show ± the 95% confidence interval'
  section | grep -qF 'docs/statistics.md'
  # runs at 0.991, 1.009, 1.003 of 34,200: sd of the logs 0.00917, so the interval is
  # exp(4.3027 * 0.00917 / sqrt(3)) = ±2.3% around the geometric mean
  section | grep -qF '| 4 | tomcat ≈ | 34,303 ±2.3% | 0 |'
  section | grep -qF '| 919 µs | 3.22 ms ±2.3% | 6.44 ms |'
  # A failed run is left out of the figures and listed under the table; 2 runs: the range.
  jq '(.results[] | select(.server == "tomcat" and .scenario == "hello" and .tool == "wrk" and .run == 1))
        |= (.status = "failed" | .reason = "connection refused" | .metrics = null | .server_stats = null)' \
    "$F/multi-shift10.json" >"$TMP/one-failed.json"
  update --file "$TMP/one-failed.json"
  [ "$status" -eq 0 ]
  section | grep -qF '| 4 | tomcat ≈ | 34,405<br><sub>range 34,303–34,508</sub> | 0 |'
  section | grep -qxF -- '- **tomcat**: 1 of 3 runs not counted: failed: connection refused'
  # a wide interval (noise of 2x) shows its bounds, not a symmetric ±
  update --file "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 0 ]
  section | grep -qF '| =1 | netty | 16,981<br><sub>95%: 9,686–30,006</sub> |'
}

@test "update-readme: servers whose intervals overlap share a rank, marked tied; the others are ranked" {
  # netty and java-http 0.5% apart with 1.5% of noise: tied; the rest far apart
  update --file "$F/multi-close.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| # | Server | Successful/s | Errors | p50 | p99 | p99.9 | Server CPU | Peak RSS | vs java-http |'
  [ "$(ranks 'hello · HTTP/1.1 · wrk')" = "=1:java-http =1:netty 3:jetty 4:tomcat 5:jdk-httpserver" ]
  section | grep -qxF "=N: tied: the 95% confidence intervals of these servers' successful requests/s overlap (directly or through a server between them), so the order among them is not a ranking."
  # separated intervals: a plain ranking, no tie note
  update --file "$F/multi-base.json"
  [ "$status" -eq 0 ]
  [ "$(ranks 'hello · HTTP/1.1 · wrk')" = "1:netty 2:java-http 3:jetty 4:tomcat 5:jdk-httpserver" ]
  [ "$(section | grep -c '^=N: tied')" -eq 0 ]
  # runs spread by 8%: four servers within each other's reach are tied
  update --file "$F/multi-loud-a.json"
  [ "$status" -eq 0 ]
  [ "$(ranks 'hello · HTTP/1.1 · wrk')" = "=1:netty =1:java-http =1:jetty =1:tomcat 5:jdk-httpserver" ]
  # one run: no intervals, no rank column, and the text says a run cannot tell noise apart
  update --file "$F/single-base.json"
  [ "$(section | grep -c '^| # |')" -eq 0 ]
  section | grep -qF 'One run per row: a single run cannot tell a difference from noise.'
}

@test "update-readme: a client-bound row is marked, with the tool's figures under the table" {
  update --file "$F/readme-client-bound.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| netty ≈ † | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 117% |'
  # netty under wrk in hello and post-load: two marked rows, two notes
  [ "$(section | grep -c '†')" -eq 4 ]
  section | grep -qxF "† Client-bound: wrk was busy (on a CPU or waiting for one) for 90% or more of the cores it could use, so the figure is the load tool's ceiling, not the server's: netty (1 of 1 runs; busiest: 99% of 1 core)."
  # h2load was at 40%: no marker in its tables
  [ "$(section | sed -n '/^### hello · HTTP\/2 cleartext (h2c) · h2load$/,/^### /p' | grep -c '†')" -eq 0 ]
}

@test "update-readme: a server's note for a protocol (note.PROTOCOL= in its server.properties) marks its rows of that protocol" {
  export README_SERVERS_DIR=$TMP/servers
  mkdir -p "$README_SERVERS_DIR/jetty" "$README_SERVERS_DIR/netty"
  printf 'name=jetty\nprotocols=h1,h2c\nnote.h2c=its h2c is | odd <here>.\n' >"$README_SERVERS_DIR/jetty/server.properties"
  printf 'name=netty\nprotocols=h1,h2c\n' >"$README_SERVERS_DIR/netty/server.properties"
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  local h2c h1
  h2c=$(section | sed -n '/^### hello · HTTP\/2 cleartext (h2c) · h2load$/,/^### /p')
  h1=$(section | sed -n '/^### hello · HTTP\/1.1 · wrk$/,/^### /p')
  grep -q '^| jetty ‡ | ' <<<"$h2c"
  grep -qxF '‡ Known about this server: jetty: its h2c is \| odd &lt;here>.' <<<"$h2c"
  [ "$(grep -c '‡' <<<"$h2c")" -eq 2 ]
  # the note is for h2c: not in jetty's HTTP/1.1 rows, nor on the servers without one
  grep -q '^| jetty ≈ | ' <<<"$h1"
  [ "$(grep -c '‡' <<<"$h1")" -eq 0 ]
  [ "$(section | grep -c '‡')" -eq 2 ]
}

@test "update-readme: footer with date, machine, OS, Java, commit and the command" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| Date | 2026-11-20T10:00:00Z |'
  section | grep -qxF '| Machine | AMD EPYC 7B13, 2 cores, 7.8 GB RAM (x86_64) |'
  section | grep -qxF '| OS | Debian GNU/Linux 12 (bookworm), kernel 6.1.0-18-amd64 |'
  section | grep -qF '| Java | openjdk 17.0.9 2023-10-17'
  section | grep -qxF "| Suite commit | \`0123abc\` |"
  section | grep -qxF "| Reproduce | \`./run-benchmarks.sh --quick\` |"
}

@test "update-readme: charts are rendered by gnuplot as PNG and linked relative to the README" {
  update --file "$F/readme-failures.json"
  [ "$status" -eq 0 ]
  for chart in rps-h1-wrk rps-h2c-h2load latency-hello-h1-wrk latency-hello-h2c-h2load latency-post-load-h1-wrk; do
    is_png "$CHARTS/$chart.png"
    section | grep -qF "(docs/charts/$chart.png)"
  done
  # the five charts and the manifest of what this tool made there
  [ "$(find "$CHARTS" -type f | wc -l)" -eq 6 ]
  [ "$(sort "$CHARTS/.update-readme-manifest" | paste -sd,)" = "latency-hello-h1-wrk.png,latency-hello-h2c-h2load.png,latency-post-load-h1-wrk.png,rps-h1-wrk.png,rps-h2c-h2load.png" ]
  # file(1) is one of run-tests.sh's dependencies: no silent pass when it is missing
  [[ $(file -b "$CHARTS/rps-h1-wrk.png") == "PNG image data, 1000 x 560,"* ]]
  # Charts of a run that drew fewer are replaced, not left behind.
  update --file "$F/multi-loud-a.json"
  [ "$status" -eq 0 ]
  [ "$(find "$CHARTS" -mindepth 1 -printf '%f\n' | sort | paste -sd,)" = ".update-readme-manifest,latency-hello-h1-wrk.png,rps-h1-wrk.png" ]
}

@test "update-readme: a chart that cannot be put in place changes nothing: README, charts and the charts it links stay" {
  update --file "$F/readme-failures.json"
  [ "$status" -eq 0 ]
  cp "$README" "$TMP/before.md"
  (cd "$CHARTS" && find . -type f -exec md5sum {} + | sort) >"$TMP/before.md5"
  [ "$(grep -c '\.png$' "$TMP/before.md5")" -eq 5 ]
  # the next run draws other charts (three of these would go) and one of its names is taken by
  # a directory that holds a directory of that name: no file can be put in its place
  mkdir -p "$CHARTS/rps-h1-barrage.png/rps-h1-barrage.png"
  update --file "$F/readme-timeline.json"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"rps-h1-barrage.png is a directory"* && $output == *"README and charts unchanged"* ]]
  cmp "$README" "$TMP/before.md"
  [ "$(cd "$CHARTS" && find . -type f -exec md5sum {} + | sort)" = "$(cat "$TMP/before.md5")" ]
  # every chart the README links is there
  local link
  [ "$(section | grep -cF '(docs/charts/')" -ge 5 ]
  for link in $(section | grep -oE '\(docs/charts/[^)]+\)' | tr -d '()'); do [ -f "$TMP/$link" ]; done
  [ -d "$CHARTS/rps-h1-barrage.png/rps-h1-barrage.png" ]
  # a FIFO in a chart's place: not replaced (nor deleted with the charts replaced)
  rm -r "$CHARTS/rps-h1-barrage.png"
  mkfifo "$CHARTS/rps-h1-barrage.png"
  update --file "$F/readme-timeline.json"
  [ "$status" -eq 1 ]
  [[ $output == *"rps-h1-barrage.png is not a regular file"* && $output == *"README and charts unchanged"* ]]
  [ -p "$CHARTS/rps-h1-barrage.png" ]
  cmp "$README" "$TMP/before.md"
  [ "$(cd "$CHARTS" && find . -type f -exec md5sum {} + | sort)" = "$(cat "$TMP/before.md5")" ]
  # nothing staged is left behind, next to the README or among the charts
  [ -z "$(find "$TMP" -name '.update-readme.*' -o -name '.README.*')" ]
}

@test "update-readme: --charts DIR keeps the files it did not make there; it deletes only its own" {
  mkdir -p "$CHARTS"
  printf 'mine\n' >"$CHARTS/rps-my-own.png"
  printf 'mine\n' >"$CHARTS/latency-notes.png"
  printf 'mine\n' >"$CHARTS/timeline-x.dat"
  update --file "$F/readme-timeline.json"
  [ "$status" -eq 0 ]
  [ -f "$CHARTS/timeline-hello-h1-barrage.dat" ] && [ -f "$CHARTS/rps-h1-barrage.png" ]
  # a run that draws fewer: its own earlier charts go, the user's files stay
  update --file "$F/multi-loud-a.json"
  [ "$status" -eq 0 ]
  [ "$(find "$CHARTS" -mindepth 1 -printf '%f\n' | sort | paste -sd,)" = \
    ".update-readme-manifest,latency-hello-h1-wrk.png,latency-notes.png,rps-h1-wrk.png,rps-my-own.png,timeline-x.dat" ]
  [ "$(cat "$CHARTS/rps-my-own.png" "$CHARTS/latency-notes.png" "$CHARTS/timeline-x.dat")" = "$(printf 'mine\nmine\nmine')" ]
}

@test "update-readme: a charts directory from before manifests: the charts the README links are its own" {
  update --file "$F/readme-timeline.json"
  [ "$status" -eq 0 ]
  rm "$CHARTS/.update-readme-manifest"
  printf 'mine\n' >"$CHARTS/rps-my-own.png"
  update --file "$F/multi-loud-a.json"
  [ "$status" -eq 0 ]
  [ "$(find "$CHARTS" -mindepth 1 -printf '%f\n' | sort | paste -sd,)" = \
    ".update-readme-manifest,latency-hello-h1-wrk.png,rps-h1-wrk.png,rps-my-own.png" ]
}

@test "update-readme: a symlinked README is written through the link, which stays a link" {
  mkdir "$TMP/real"
  mv "$README" "$TMP/real/README.md"
  ln -s real/README.md "$README"
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ -L "$README" ]
  [ "$(readlink "$README")" = real/README.md ]
  [ "$(grep -c '^<!-- performance:start -->$' "$TMP/real/README.md")" -eq 1 ]
  # the links stay relative to the README as it was named
  section | grep -qF '(docs/charts/rps-h1-wrk.png)'
  [ -z "$(find "$TMP" -name '.README.*')" ]
}


@test "update-readme: without --file, the newest complete file by its timestamp field" {
  mkdir "$TMP/results"
  cp "$F/single-base.json" "$TMP/results/a.json"          # 2026-11-20T10:00
  cp "$F/multi-shift10.json" "$TMP/results/b.json"        # 2026-11-21T10:00: the newest
  cp "$F/bad-incomplete.json" "$TMP/results/c.json"       # 2026-11-22, but incomplete
  echo 'not json' >"$TMP/results/d.json"
  touch -d '2020-01-01' "$TMP/results/b.json"             # file times must not matter
  update --results "$TMP/results"
  [ "$status" -eq 0 ]
  section | grep -q 'from b.json'
}

@test "update-readme: every bad input fails and leaves README and charts untouched" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  cp "$README" "$TMP/before.md"
  (cd "$CHARTS" && md5sum ./*.png) >"$TMP/before.md5"
  mkdir "$TMP/empty-results"
  # numbers no measurement has: said so, never printed as 1e,+17 (written outside $TMP: the
  # test checks that nothing is left next to the README)
  jq '.results[0].metrics.successful_rps = 1e17' "$F/single-base.json" >"$BATS_TEST_TMPDIR/huge.json"
  jq -c '.results[0].metrics.successful_rps = "NAN"' "$F/single-base.json" | sed 's/"NAN"/NaN/' >"$BATS_TEST_TMPDIR/nan.json"
  # option, value, expected message
  local cases=(
    --file "$TMP/missing.json" "no such file"
    --file "$F/bad-not-json.json" "truncated: the JSON stops before its end"
    --file "$F/bad-schema-invalid.json" "not a valid results file"
    --file "$F/bad-no-ok-rows.json" "no successful rows"
    --file "$F/bad-incomplete.json" "incomplete"
    --file "$TMP" "is a directory"
    --file "$BATS_TEST_TMPDIR/huge.json" "1e+17 at .results[0].metrics.successful_rps is beyond 2^53"
    --file "$BATS_TEST_TMPDIR/nan.json" "NaN at .results[0].metrics.successful_rps"
    --results "$TMP/empty-results" "no complete results file"
  )
  if [[ $(id -u) -ne 0 ]]; then  # root reads a mode-000 file anyway
    cp "$F/single-base.json" "$TMP/unreadable.json"
    chmod 000 "$TMP/unreadable.json"
    cases+=(--file "$TMP/unreadable.json" "not readable")
  fi
  local i
  for ((i = 0; i < ${#cases[@]}; i += 3)); do
    update "${cases[i]}" "${cases[i + 1]}"
    echo "case ${cases[i + 1]}: status $status, output: $output"
    [ "$status" -eq 1 ]
    [[ $output == *"error: "*"${cases[i + 2]}"* ]]
    cmp "$README" "$TMP/before.md"
    (cd "$CHARTS" && md5sum -c --quiet "$TMP/before.md5")
  done
  rm -f "$TMP/unreadable.json"
  # No temporary files left next to the README.
  [ "$(find "$TMP" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | paste -sd,)" = "README.md,before.md,before.md5,docs,empty-results" ]
}

@test "update-readme: broken markers fail and leave the README untouched" {
  printf '# P\n\n<!-- performance:start -->\nno end marker\n' >"$README"
  cp "$README" "$TMP/before.md"
  update --file "$F/single-base.json"
  [ "$status" -eq 1 ]
  [[ $output == *"markers are broken"* ]]
  cmp "$README" "$TMP/before.md"
  [ ! -e "$CHARTS" ]
}

@test "update-readme: a missing README or a bad option is an error" {
  run "$UPDATE" --readme "$TMP/nope.md" --charts "$CHARTS" --file "$F/single-base.json"
  [ "$status" -eq 1 ]
  [ ! -e "$CHARTS" ]
  run "$UPDATE" --bogus
  [ "$status" -eq 2 ]
  run "$UPDATE" --file
  [ "$status" -eq 2 ]
}

@test "update-readme: a recorded run-benchmarks.sh results file renders tables and charts" {
  update --file "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c '^### hello · ')" -eq 2 ]
  section | grep -q 'Figures are the median of 3 runs'
  for chart in rps-h1-wrk rps-h1-h2load latency-hello-h1-wrk latency-hello-h1-h2load; do
    is_png "$CHARTS/$chart.png"
  done
}

@test "update-readme: ranked by successful requests/s: the server with the most requests/s but errors ranks below" {
  # netty/hello/h2load: 61,000 requests/s, 40% of them 503s: 36,600 successful, below tomcat.
  update --file "$F/readme-errors-rank.json"
  [ "$status" -eq 0 ]
  [ "$(servers 'hello · HTTP/2 cleartext (h2c) · h2load')" = "java-http,jetty,tomcat,netty" ]
  section | grep -qxF '| netty ⚠ | 36,600 | 40.0% (24,400/s) | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 70% |'
  section | grep -qxF '| java-http | 52,000 | 0 | 610 µs | 2.13 ms | 4.27 ms | 202% | 227 MiB | 100% |'
  section | grep -qF '⚠ Some requests failed: Errors is their share of all requests (4xx, 5xx, timeouts, resets) and their rate; failed requests are not in Successful/s, the ranking or "vs".'
  # The chart draws successful requests/s too.
  run jq -L "$ROOT/lib" -r 'import "readme" as r; r::model("java-http") | r::chart_scripts("d")[] | select(.file == "rps-h2c-h2load.png") | .script' \
    "$F/readme-errors-rank.json"
  [[ $output == *"'Successful requests per second by scenario: HTTP/2 cleartext (h2c), h2load (higher is better)'"* ]]
  [[ $output == *$'\n"hello" 52000 45000 36600 38000\n'* ]]
}

@test "update-readme: wrk rows are marked approximate; the text says what is ranked and what latency is" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| netty ≈ | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 117% |'
  # h2load counts exactly: no marker.
  section | grep -qxF '| netty | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 117% |'
  [ "$(section | grep -c '^≈ Approximate accounting (wrk)')" -eq 2 ]
  section | grep -qF 'ranked by **successful requests/s**'
  section | grep -qF 'Latency is the time from a request'"'"'s start to its final response, whatever its status'
  section | grep -qF "\`error_latency_us\`"
  [ "$(section | grep -c 'time to the full response')" -eq 0 ]
}

@test "update-readme: each table says its request timeout when the tools' differ, the text when they agree" {
  # wrk ran with a 2 s request timeout, h2load with none.
  update --file "$F/readme-errors-rank.json"
  [ "$status" -eq 0 ]
  [ "$(section | sed -n '/^### hello · HTTP\/1.1 · wrk$/,/^|/p' | grep -c '^Request timeout: 2 s\.$')" -eq 1 ]
  [ "$(section | sed -n '/^### hello · HTTP\/2 cleartext (h2c) · h2load$/,/^|/p' \
        | grep -c '^Request timeout: none (requests are waited for until the end of the run)\.$')" -eq 1 ]
  section | grep -qF 'Request timeouts differ between the tools'
  # Only wrk: one timeout, said once.
  jq '.results |= map(select(.tool == "wrk"))' "$F/readme-errors-rank.json" >"$TMP/wrk only.json"
  update --file "$TMP/wrk only.json"
  [ "$status" -eq 0 ]
  section | grep -qF 'Every request had a timeout of 2 s.'
  [ "$(section | grep -c '^Request timeout')" -eq 0 ]
  # Older results without config.request_timeout_s: nothing is claimed.
  update --file "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c 'Request timeout\|request had a timeout\|no request had')" -eq 0 ]
}

@test "update-readme: h2load rows whose status lines it could not read say so, and one run ranks no ties" {
  # two h2load rows as h2load reports an HTTP/1.1 server without a reason phrase: outcome unknown
  jq '.results |= map(if .tool == "h2load" and (.server == "tomcat" or .server == "jetty") and .metrics
        then .metrics |= (.succeeded = null | .failed = null | .successful_rps = null | .accounting = "approximate")
        else . end)' "$F/readme-errors-rank.json" >"$TMP/unread statuses.json"
  update --file "$TMP/unread statuses.json"
  [ "$status" -eq 0 ]
  section | grep -qF '≈ Approximate accounting (h2load): h2load could not read the status line of some responses'
  if section | grep -qF 'Approximate accounting (h2load): the tool counts socket errors'; then return 1; fi
  # one run a row: no intervals, so two unknowns are not "tied"
  if section | grep -qF '=N: tied'; then return 1; fi
}

@test "update-readme: an A/A results file shows its two labels, unranked, with the noise floor" {
  update --file "$F/aa-jetty.json"
  [ "$status" -eq 0 ]
  [ "$(servers 'hello · HTTP/1.1 · wrk')" = "jetty@A,jetty@B" ]
  # each label's own three runs: the medians of A and of B, not of the six together
  section | grep -qF '| jetty@A ≈ | 45,000 ±'
  section | grep -qF '| jetty@B ≈ | 44,325 ±'
  # no rank column: the difference between the labels is noise, not a ranking
  [ -z "$(ranks 'hello · HTTP/1.1 · wrk')" ]
  section | grep -qF "A/A run: one server measured under two labels (@A, @B), interleaved"
  section | grep -qF "Noise floor (the largest change these runs are consistent with): successful requests/s ±7.9%, p99 ±8.6%."
}

@test "update-readme: barrage's per-second timeline is drawn for the headline scenario, from the timeline's own numbers" {
  update --file "$F/readme-timeline.json"
  [ "$status" -eq 0 ]
  local data=$CHARTS/timeline-hello-h1-barrage.dat
  is_png "$CHARTS/timeline-hello-h1-barrage.png"
  section | grep -qF '](docs/charts/timeline-hello-h1-barrage.png)'
  section | grep -qF 'Over time, hello · HTTP/1.1 · barrage: successful requests/s and p99 in each second'
  # what gnuplot plotted: per server its median run (run 1 of NOISE_A), each second of the
  # window (not the grace): succeeded per second and p99 in ms, the stall in second 4 too
  [ "$(grep '^#' "$data" | cut -d'(' -f1 | paste -sd,)" = "# jetty: run 1 of 3 ,# netty: run 1 of 3 " ]
  [ "$(grep -v '^#' "$data" | grep -v '^$')" = "$(jq -r '[.results[] | select(.tool == "barrage" and .run == 1)]
      | sort_by(.server)[] | .metrics.timeline[] | select(.in_grace | not)
      | "\(.t_s) \(.succeeded / .length_s) \(.latency_us.p99 / 1000)"' "$F/readme-timeline.json")" ]
  [ "$(awk '$1 == 4 {print $2}' "$data" | paste -sd' ')" = "9782 13260" ]
  # a results file without timelines draws none, and the old chart goes
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ ! -e "$CHARTS/timeline-hello-h1-barrage.png" ]
  [ ! -e "$data" ]
  if section | grep -qF 'Over time'; then return 1; fi
}

@test "update-readme: the response-size sweep: requests/s and MB/s against size, a table and a chart per protocol and tool" {
  update --file "$F/readme-sizes.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '### Response size sweep'
  # a column per size, ascending; a row per server: successful requests/s · MB/s of bodies
  # (N bytes x requests/s / 10^6)
  section | grep -qxF '| Server | 1 KiB | 16 KiB | 64 KiB | 256 KiB | 1 MiB |'
  [ "$(section | sed -n '/^#### HTTP\/1.1 · barrage$/,/^!\[/p' | grep -F '| netty |')" = \
    '| netty | 40,000 · 41.0 | 30,000 · 491.5 | 15,000 · 983.0 | 5,000 · 1310.7 | 1,400 · 1468.0 |' ]
  [ "$(section | sed -n '/^#### HTTP\/2 over TLS · barrage$/,/^!\[/p' | grep -F '| jetty |')" = \
    '| jetty | 28,000 · 28.7 | 22,400 · 367.0 | 11,200 · 734.0 | 3,600 · 943.7 | 960 · 1006.6 |' ]
  section | grep -qF '![Successful requests/s and MB/s against response size, HTTP/1.1, barrage](docs/charts/sizes-h1-barrage.png)'
  is_png "$CHARTS/sizes-h1-barrage.png"
  is_png "$CHARTS/sizes-h2-barrage.png"
  # the swept scenarios keep their own tables too; hello (no group) is not a point of the sweep
  section | grep -qxF '### size-64k · HTTP/1.1 · barrage'
  [ "$(section | sed -n '/^### Response size sweep$/,/^### Test environment$/p' | grep -c 'hello')" -eq 0 ]
  # a results file without the group draws no sweep, and its old chart goes
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  [ ! -e "$CHARTS/sizes-h1-barrage.png" ]
  if section | grep -qF 'Response size sweep'; then return 1; fi
}

@test "update-readme: rows not in steady state and drifting rows are marked; the tools-agree lines flag a pair beyond the noise" {
  update --file "$F/readme-steady.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| netty ↘ | 61,000 | 0 | 520 µs | 1.82 ms | 3.64 ms | 211% | 235 MiB | 117% |'
  section | grep -qxF '| jetty ⧗ | 45,000 | 0 | 700 µs | 2.45 ms | 4.90 ms | 195% | 220 MiB | 87% |'
  # the marks belong to barrage h1 only, each explained once under its table
  [ "$(section | grep -c '⧗')" -eq 2 ]
  [ "$(section | grep -c '↘')" -eq 2 ]
  section | grep -q '^⧗ Not in steady state: .*: jetty (1 of 1 runs)\.$'
  section | grep -q '^↘ Drifting: .*: netty (1 of 1 runs)\.$'
  # tools agree: h2load's +40% on java-http is flagged; wrk's +30% on netty is not (client-bound)
  section | grep -qxF '| hello | HTTP/1.1 | wrk | netty +30% †, java-http 0%, jetty 0%, tomcat -3%, jdk-httpserver 0% |'
  section | grep -qxF '| hello | h2c | h2load | java-http +40% ⚑, netty 0%, jetty 0%, tomcat 0% |'
  section | grep -qF '1 of the 8 pairs that can check are flagged; 1 cannot check throughput'
  section | grep -qxF '| Server warm-up | barrage on each freshly started server, per protocol and scenario, until steady state (at most 60 s) |'
}

@test "tools agree: each tool against barrage's windows around it on the same JVM; a client-bound pair cannot check" {
  # x: h2load +40% between two equal barrage windows (flagged); wrk -30% but client-bound (†,
  # not counted); y: h2load +5%; z: h2load +20%, but barrage itself moved 40% around it (not flagged)
  jq -rn -L "$ROOT/lib" 'import "agree" as agree;
    def w($tool; $role; $rps; $bound): {tool: $tool, role: $role, status: "ok", successful_rps: $rps, latency_us: null, client_bound: $bound};
    {tables: [], meta: {cross_checks: [
      {server: "x", contestant: "x", run: 1, protocol: "h1", scenario: "hello", order: [],
       windows: [w("barrage"; "lead"; 1000; false), w("h2load"; "checked"; 1400; false), w("barrage"; "bracket"; 1000; false),
                 w("wrk"; "checked"; 700; true), w("barrage"; "bracket"; 1000; false)]},
      {server: "y", contestant: "y", run: 1, protocol: "h1", scenario: "hello", order: [],
       windows: [w("barrage"; "lead"; 2000; false), w("h2load"; "checked"; 2100; false), w("barrage"; "bracket"; 2000; false)]},
      {server: "z", contestant: "z", run: 1, protocol: "h1", scenario: "hello", order: [],
       windows: [w("barrage"; "lead"; 1200; false), w("h2load"; "checked"; 1200; false), w("barrage"; "bracket"; 800; false)]}]}}
    | agree::section' >"$TMP/agree.md"
  cat "$TMP/agree.md"
  grep -qxF '| hello | HTTP/1.1 | h2load | x +40% ⚑, y +5%, z +20% |' "$TMP/agree.md"
  grep -qxF '| hello | HTTP/1.1 | wrk | x -30% † |' "$TMP/agree.md"
  grep -qF '1 of the 3 pairs that can check are flagged; 1 cannot check throughput' "$TMP/agree.md"
  grep -qF 'barrage and the other tools take turns on one start' "$TMP/agree.md"
}

# chart_labels RESULTS: the y-axis labels of the charts update-readme.sh draws from RESULTS, one a line
chart_labels() {
  # shellcheck disable=SC2016 # expanded by that bash
  bash -c 'source "$1/lib/log.sh"; source "$1/lib/readme.sh"; readme::model "$2" netty .' _ "$ROOT" "$1" \
    | jq -r -L "$ROOT/lib" 'import "readme" as r; r::chart_scripts("/x")[].script' | grep 'set ylabel'
}

@test "update-readme: a budgeted run says per table how many pairs are decided, equal and open, and each server's runs" {
  budgeted_results "$F/multi-base.json" "$TMP/budget.json"
  update --file "$TMP/budget.json"
  [ "$status" -eq 0 ]
  # the intro: the budget, the rounds and the pairs over every table
  local counts
  counts=$(jq -r -L "$ROOT/lib" 'import "rounds" as rounds; .rounds | rounds::counts_text' "$TMP/budget.json")
  [[ $counts == *"1 open"* ]]
  section | grep -qF "A budgeted run (\`--budget\` 60 min): the first round measured every row"
  section | grep -qF "or the budget ended: $counts."
  # under hello · HTTP/1.1 · wrk: its own pairs, the open one named, every server's runs
  section | awk '/^### hello · HTTP\/1.1 · wrk$/ {on = 1; next} /^### / {on = 0} on' >"$TMP/hello"
  grep -qxF "Pairs of neighbours: 3 decided (intervals apart), 0 equal (within 3%), 1 open (jetty–tomcat). Runs: netty 3, java-http 3, jetty 3, tomcat 3, jdk-httpserver 3." "$TMP/hello"
  section | grep -qF "| Runs | a budget of 60 min: 3 rounds of 10 s after 2 s of warm-up, more rounds only where a pair was open (tie margin 3%); left out to fit it: scenarios mixed; --budget none brings them back |"
  # the charts' axes do not claim the rounds' count for every server: each got its own runs
  chart_labels "$TMP/budget.json" >"$TMP/labels"
  [ "$(grep -c "(median of each server's runs)" "$TMP/labels")" -ge 1 ]
  [ "$(grep -c 'median of [0-9]' "$TMP/labels")" -eq 0 ]
  # a file without rounds (written before budgets) has no such line
  update --file "$F/multi-base.json"
  [ "$(section | grep -c 'Pairs of neighbours')" -eq 0 ]
  chart_labels "$F/multi-base.json" | grep -q '(median of 3 runs)'
}

@test "update-readme: only the main shell removes its work files, not a subshell a signal reaches as it forks" {
  # bash runs inherited traps in such a subshell; cleanup must then leave the files to the run
  # shellcheck disable=SC2016 # expanded by that bash
  run bash -c 'source "$1"; WORK_DIR=$2/work; STAGE_DIR=$2/stage; README_TMP=$2/.README
    mkdir "$WORK_DIR" "$STAGE_DIR"; : >"$README_TMP"
    (cleanup); [[ -d $WORK_DIR && -d $STAGE_DIR && -f $README_TMP ]] && echo "kept by a subshell"
    cleanup; [[ ! -e $WORK_DIR && ! -e $STAGE_DIR && ! -e $README_TMP ]] && echo "removed by the main shell"' \
    _ "$UPDATE" "$TMP"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = $'kept by a subshell\nremoved by the main shell' ]
}

@test "update-readme: a name with a newline, backquotes, quotes or escapes runs nothing: charts drawn, the README's rows whole" {
  # gnuplot runs `...` inside a double-quoted string and reads a new line as a new command
  # shellcheck disable=SC2016 # the backquotes are the name's own, for gnuplot, not for bash
  local name='net
ty`touch ra-pwned`"q'"'"'\x'
  local f
  # backquotes alone: the README would be written, the command run
  jq '.results[] |= (if .server == "netty" then .server = "net`touch ra-pwned`ty" else . end)' "$F/single-base.json" >"$TMP/names.json"
  (cd "$TMP" && "$UPDATE" --readme "$README" --charts "$CHARTS" --file "$TMP/names.json") >"$TMP/out" 2>&1 || { cat "$TMP/out"; false; }
  [ ! -e "$TMP/ra-pwned" ]
  for f in "$F/single-base.json" "$F/readme-timeline.json" "$ROOT/tests/fixtures/openloop/base.json"; do
    jq --arg name "$name" '.results[] |= (if .server == "netty" or .server == "loaded" then .server = $name + "\u001b[31m" else . end)' \
      "$f" >"$TMP/names.json"
    (cd "$TMP" && "$UPDATE" --readme "$README" --charts "$CHARTS" --file "$TMP/names.json") >"$TMP/out" 2>&1 || { cat "$TMP/out"; false; }
    [ ! -e "$TMP/ra-pwned" ]
    # the name is one row's cell, its control characters made visible, in every table it is in
    # shellcheck disable=SC2016 # the name's backquotes, as the README shows them
    [ "$(section | grep -cF '| net^Jty`touch ra-pwned`"q'"'"'\x^[[31m')" -ge 1 ]
    [ "$(section | grep -c '^ty')" -eq 0 ]
    ! section | grep -q $'\e'
    while IFS= read -r chart; do is_png "$CHARTS/$chart"; done < <(grep '\.png$' "$CHARTS/.update-readme-manifest")
  done
  # the chart over time's data file names the server on its comment line
  jq --arg name "$name" '.results[] |= (if .server == "netty" then .server = $name else . end)' "$F/readme-timeline.json" >"$TMP/names.json"
  update --file "$TMP/names.json"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^# net^Jty' "$CHARTS"/timeline-*.dat)" -eq 1 ]
}

@test "update-readme: gnuplot failing is said plainly (exit 1); README and charts stay as they were" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  cp "$README" "$TMP/before.md"
  (cd "$CHARTS" && md5sum ./*.png) >"$TMP/before.md5"
  # a gnuplot that fails as it starts (a broken install, a missing font or library)
  mkdir "$TMP/bin"
  printf '#!/bin/sh\necho "gnuplot: error while loading shared libraries" >&2\nexit 127\n' >"$TMP/bin/gnuplot"
  chmod +x "$TMP/bin/gnuplot"
  PATH=$TMP/bin:$PATH update --file "$F/multi-loud-a.json"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"error: could not draw the charts (gnuplot's words above); README and charts unchanged"* ]]
  [[ $output == *"error while loading shared libraries"* ]]
  [[ $output != *"bad array subscript"* ]]
  cmp "$README" "$TMP/before.md"
  (cd "$CHARTS" && md5sum -c --quiet "$TMP/before.md5")
  [ -z "$(find "$TMP" -name '.update-readme.*' -o -name '.README.*')" ]
}

# descendants PID: every process under PID, one PID a line.
descendants() {
  ps -e -o pid=,ppid= | awk -v top="$1" '{parent[$1] = $2} END {
    for (p in parent) { q = parent[p]; while (q != "" && q != top && q in parent && q != 1) q = parent[q]; if (q == top) print p } }'
}

@test "update-readme: a SIGTERM while the charts are drawn stops gnuplot and leaves nothing behind (exit 143)" {
  update --file "$F/single-base.json"
  [ "$status" -eq 0 ]
  cp "$README" "$TMP/before.md"
  (cd "$CHARTS" && md5sum ./*.png) >"$TMP/before.md5"
  # a gnuplot as slow as on a loaded machine: what the signal finds running would run on
  mkdir "$TMP/bin"
  printf '#!/bin/sh\nsleep 2\nexec %s "$@"\n' "$(command -v gnuplot)" >"$TMP/bin/gnuplot"
  chmod +x "$TMP/bin/gnuplot"
  background env PATH="$TMP/bin:$PATH" "$UPDATE" --readme "$README" --charts "$CHARTS" --file "$F/readme-timeline.json" >/dev/null 2>"$TMP/err"
  local pid=$BG_PID i rc=0 drawing='' left p
  # wait for a gnuplot under it: the charts are being drawn
  for ((i = 0; i < 1200 && ${#drawing} == 0; i++)); do
    drawing=$(descendants "$pid" | while read -r p; do
                if [[ $(cat "/proc/$p/comm" 2>/dev/null) == gnuplot ]]; then echo "$p"; fi; done)
    [ -n "$drawing" ] || sleep 0.05
  done
  [ -n "$drawing" ]
  UNDER=$(descendants "$pid")
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  [ "$rc" -eq 143 ]
  # what ran under it is gone as it exits (a zombie is gone), not running on into files it
  # removed, and nothing it wrote is left
  left=$(for p in $UNDER; do ps -o pid=,stat=,args= -p "$p" | awk '$2 !~ /^Z/'; done)
  echo "left: $left"
  [ -z "$left" ]
  UNDER=''
  sleep 0.5
  [ -z "$(find "$TMP" -name '.update-readme.*' -o -name '.README.*')" ]
  cmp "$README" "$TMP/before.md"
  (cd "$CHARTS" && md5sum -c --quiet "$TMP/before.md5")
}

@test "update-readme: a variant run gets a table per server of its variants against its first, with verdicts, and a chart" {
  update --file "$F/variants-jetty.json"
  [ "$status" -eq 0 ]
  section >"$TMP/section"
  grep -qx '### Variants' "$TMP/section"
  grep -qx '#### jetty' "$TMP/section"
  grep -qF '| Variant | Scenario · protocol · tool | JDK | Successful req/s | p99 | vs jetty:platform: ok/s | p99 | Verdict |' "$TMP/section"
  grep -qE '^\| jetty:platform \| hello · HTTP/1.1 · wrk \| 25.0.3 \| [0-9,]+ \| [0-9.]+ ms \| – \| – \| baseline \|$' "$TMP/section"
  grep -qE '^\| jetty:vt \| hello · HTTP/1.1 · wrk \| 25.0.3 \| [0-9,]+ \| [0-9.]+ ms \| \+10\.3% \[\+3\.1%, \+19\.6%\] \| -9\.4% \[[^]]+\] \| faster \|$' "$TMP/section"
  grep -qE '^\| jetty:vt \| post-load · HTTP/1.1 · wrk \|' "$TMP/section"
  # the contestants are the rows of the usual tables too, under their labels
  [ "$(servers 'hello · HTTP/1.1 · wrk')" = "jetty:vt,jetty:platform" ]
  grep -qF '![Successful requests/s of jetty'"'"'s variants](docs/charts/variants-jetty.png)' "$TMP/section"
  is_png "$CHARTS/variants-jetty.png"
  # a file without variants has no such part
  update --file "$F/aa-jetty.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c '^### Variants$')" -eq 0 ]
  [ ! -e "$CHARTS/variants-jetty.png" ]
}

@test "update-readme: one interval style per column, failures below 1/s not shown as 0/s, a 'vs' in every table" {
  # jetty's first run at half the rate: its interval is wider than ±25%, so the whole column
  # gives bounds (netty's too), while the p99 column, all narrow, keeps ±
  jq '(.results[] | select(.server == "jetty" and .scenario == "hello" and .tool == "wrk" and .run == 1) | .metrics)
        |= (.successful_rps = 22500 | .succeeded = 225000 | .requests = 225000)
      | .results |= map(select(.server != "java-http" or .protocol != "h2c"))' "$F/multi-base.json" >"$TMP/mixed.json"
  update --file "$TMP/mixed.json"
  [ "$status" -eq 0 ]
  section | awk '/^### hello · HTTP\/1.1 · wrk$/ {on = 1; next} /^### / {on = 0} on && /^\| [0-9=]/' >"$TMP/h1"
  [ "$(wc -l <"$TMP/h1")" -eq 5 ]
  [ "$(grep -c '^| [0-9=]* | [a-z-]* ≈ | [0-9,]*<br><sub>95%: ' "$TMP/h1")" -eq 5 ]
  [ "$(grep -c ' | [0-9.]* [mµ]s ±[0-9.]*% | ' "$TMP/h1")" -eq 5 ]
  # java-http speaks no h2c here: that table's "vs" is its slowest server, named in its head
  section | awk '/^### hello · HTTP\/2 cleartext \(h2c\) · h2load$/ {on = 1; next} /^### / {on = 0} on && /^\|/' >"$TMP/h2c"
  grep -q '| vs tomcat |$' "$TMP/h2c"
  grep -q '^| 1 | netty | .* | 161% |$' "$TMP/h2c"
  grep -q '^| 3 | tomcat | .* | 100% |$' "$TMP/h2c"
  section | grep -qF "(where java-http has no figure, to the table's slowest server, which its column names)"
  # a tool's version that holds its name is said once ("wrk 4.1.0", not "wrk wrk 4.1.0")
  section | grep -qxF '| Tools | wrk 4.1.0, h2load nghttp2/1.52.0, barrage 0.1.0 |'
  # one server alone: no "vs" column (it would be 100% against itself)
  update --file "$ROOT/tests/fixtures/openloop/base.json"
  [ "$status" -eq 0 ]
  section | grep -qxF '| Server | Successful/s | Errors | p50 | p99 | p99.9 | Server CPU | Peak RSS |'
  section | grep -qxF '| loaded | 168 | 0 | 96.4 ms | 209 ms | 292 ms | 6% | 22 MiB |'
  # 2 failures in 3 runs of 3 s at ~5,000/s: 0.0023%, 0.11 a second (not "0/s")
  update --file "$F/recorded-quick-3runs-b.json"
  [ "$status" -eq 0 ]
  section | grep -qF '| 0.0023% (0.11/s) |'
  [ "$(section | grep -cF '(0/s)')" -eq 0 ]
}

# warmed_results OUT [UNSTEADY]: multi-base.json as a budgeted run (budgeted_results) whose
# servers' starts have time-to-steady figures (server_warmups): netty steady after 9-11 s, jetty
# not within its 15 s cap in 2 of 3 starts; with UNSTEADY 1, jetty's hello h1 rows are ⧗.
warmed_results() {
  budgeted_results "$F/multi-base.json" "$TMP/budget.json"
  jq --argjson unsteady "${2:-0}" '
    def shape($steady; $after; $share): {protocol: "h1", scenario: "hello", status: "ok", reason: null, requests: 1000,
      successful_rps: 100, warmup_s: ($after // 15), steady: $steady,
      time_to_steady: {load_started_s: 1.5, steady_after_s: $after, verdict: (if $steady then "steady" else "not reached" end),
                       reason: (if $steady then null else "not in steady state when the warm-up cap (15 s) ended it" end),
                       first_5s_rps: 50, steady_rps: (if $steady then 100 else null end), first_5s_share: (if $steady then $share else null end),
                       rps_by_second: [10, 30, 50, 70, 90, 100, 100, 101, 99, 100]}};
    def start($server; $run; $first; $shape): {server: $server, run: $run, tool: "barrage", mode: "auto", duration_s: 15,
      started: "2026-11-20T10:00:00Z", ended: "2026-11-20T10:00:20Z", first_response_s: $first, shapes: [$shape]};
    .server_warmups = [start("netty"; 1; 0.8; shape(true; 9; 0.3)), start("netty"; 2; 0.9; shape(true; 10; 0.32)),
                       start("netty"; 3; 0.7; shape(true; 11; 0.28)), start("jetty"; 1; 1.4; shape(false; null; null)),
                       start("jetty"; 2; 1.6; shape(true; 14; 0.5)), start("jetty"; 3; 1.5; shape(false; null; null))]
    | if $unsteady == 1 then .results |= map(if .server == "jetty" and .scenario == "hello" and .protocol == "h1"
                                             then .server_warmup = {mode: "auto", seconds: 15, steady: false} else . end)
      else . end' "$TMP/budget.json" >"$1"
}

@test "update-readme: the section opens with the verdict per protocol, what would decide each open pair, and the warm-up figures" {
  warmed_results "$TMP/warmed.json"
  update --file "$TMP/warmed.json"
  [ "$status" -eq 0 ]
  # the summary comes first, before the run's description and the tables
  [ "$(section | grep -m2 -nE '^### Summary$|^Measured ' | cut -d: -f2 | cut -c1-10 | paste -sd,)" = '### Summar,Measured 2' ]
  section | grep -qxF '**HTTP/1.1**'
  section | grep -qxF -- '- hello · wrk: **netty** leads. Order: netty > java-http > jetty ? tomcat > jdk-httpserver (> decided, = equal within 3%, ? open).'
  section | grep -qxF -- '- hello · h2load: **netty** leads. Order: netty > java-http > jetty > tomcat (> decided, = equal within 3%, ? open).'
  # jetty and tomcat 0.5% apart with about 3% of spread: neither a few more runs nor warm-ups decide it
  section | grep -qxF -- '  - open: jetty–tomcat: a quieter machine: at this spread, about 60 runs each (3 runs now)'
  # the time to steady state: medians over the starts that reached it; a start whose cap came
  # first counts as not steady, never as the cap
  section | grep -qxF -- '- Time to steady state (from the start of load; Warm-up below): fastest netty (hello, 10 s), slowest jetty (hello, 14 s); not within the cap: jetty (hello, 2 of 3 starts, cap 15 s).'
  section | grep -qxF '| HTTP/1.1 | hello | netty | 3 | 0.8 s | 10 s | 0 | 30% |'
  section | grep -qxF '| HTTP/1.1 | hello | jetty | 3 | 1.5 s | 14 s | 2 of 3 (cap 15 s) | 50% |'
  # the first seconds of load per server, drawn from each one's first start
  section | grep -qxF '![Successful requests/s over the first seconds of load, hello, h1](docs/charts/warmup-hello-h1.png)'
  [ -s "$CHARTS/warmup-hello-h1.png" ]
  [ "$(grep -c '^# ' "$CHARTS/warmup-hello-h1.dat")" -eq 2 ]
  grep -qxF '# netty: run 1; second of load, successful requests/s' "$CHARTS/warmup-hello-h1.dat"
  # jetty's rows ⧗: longer warm-ups come first
  warmed_results "$TMP/warmed.json" 1
  update --file "$TMP/warmed.json"
  [ "$status" -eq 0 ]
  section | grep -qxF -- '  - open: jetty–tomcat: longer warm-ups: jetty not in steady state (⧗), so the spread is partly the JIT'"'"'s'
  # a file without rounds or warm-ups has no summary
  update --file "$F/multi-base.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c '^### Summary$')" -eq 0 ]
}

@test "update-readme: what decides an open pair: more runs without an interval, a few more runs when they shrink it enough, else a quieter machine" {
  decider() { jq -nr -L "$ROOT/lib" --argjson pair "$1" 'import "readme_verdict" as v; $pair | v::decider(0.03)'; }
  [ "$(decider '{"ratio": null, "runs": 2, "not_steady": []}')" = "more runs: each needs at least 3 for an interval" ]
  # 10% apart, a ratio interval of ±8% after 3 runs: (0.08 / (0.095 / 1.41))^2 x 3 = about 5 runs
  [ "$(decider '{"ratio": {"lo": 0.834, "hi": 0.982}, "runs": 3, "not_steady": []}')" = "about 2 runs more each (3 runs now): a longer budget" ]
  # 1% apart, ±10%: hundreds of runs
  [[ $(decider '{"ratio": {"lo": 0.90, "hi": 1.10}, "runs": 3, "not_steady": []}') == "a quieter machine: at this spread, about "*" runs each (3 runs now)" ]]
}

@test "update-readme: --readme that is the results file itself is refused (exit 2), the file left as it was" {
  cp "$ROOT/tests/fixtures/results/single-base.json" "$TMP/r.json"
  run "$UPDATE" --readme "$TMP/r.json" --charts "$CHARTS" --file "$TMP/r.json"
  [ "$status" -eq 2 ]
  [[ $output == *"--readme $TMP/r.json is the results file it would be made from"* ]]
  cmp -s "$TMP/r.json" "$ROOT/tests/fixtures/results/single-base.json"
}

@test "update-readme: a variant run's start-up figures (aot against its default) are listed under its table, with aot's finding" {
  update --file "$F/variants-aot.json"
  [ "$status" -eq 0 ]
  section >"$TMP/section"
  grep -qx 'Start-up against jetty:platform (medians over each contestant'"'"'s starts; steady state over the starts that reached it):' "$TMP/section"
  grep -qxF -- '- jetty:aot (hello · HTTP/1.1 · wrk): first response 0.6 s against 1.5 s, steady after 3 s against 13 s (not reached in 1 more); a finding: steady ok/s faster with aot, which Leyden does not aim to change' "$TMP/section"
  grep -qxF -- '- jetty:aot (post-load · HTTP/1.1 · wrk): first response 0.6 s against 1.5 s; a finding: steady ok/s faster with aot, which Leyden does not aim to change' "$TMP/section"
  # no start-up figures, no finding (jetty:vt is no aot): no such list
  update --file "$F/variants-jetty.json"
  [ "$status" -eq 0 ]
  [ "$(section | grep -c '^Start-up against')" -eq 0 ]
}
