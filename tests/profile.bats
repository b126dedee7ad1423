#!/usr/bin/env bats
# GC and JVM facts (lib/jvm.sh, lib/gclog.jq) and profiles (lib/profile.sh, lib/profile.jq,
# lib/hotspot_attach.py): the GC log read for a window on fixture logs, the launcher options,
# a real server profiled under load (its flame graph names the server's classes), the ctimer
# fallback recorded, GC facts of all eight servers from a --quick run, a non-JVM server left
# alone, and profiled rows kept apart in the README and in comparisons.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own process: PORT set in setup stays there

load test_helper

setup_file() { run_setup_file; }

setup() {
  run_setup "barrage profile test"
  LOGS=$ROOT/tests/fixtures/gc-logs
  source "$ROOT/lib/java.sh"
  source "$ROOT/lib/jvm.sh"
}

teardown() { run_teardown; }

# facts LOG FROM TO: lib/jvm.sh's facts of a fixture log.
facts() { jvm::facts "$LOGS/$1" "$2" "$3"; }

# flame_frames HTML: every frame name of an async-profiler HTML flame graph, one a line (the
# page keeps them in `cpool`, each sharing a prefix with the one before: its first character
# minus 32 says how long).
flame_frames() {
  python3 - "$1" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
body = text.split("const cpool = [", 1)[1].split("];", 1)[0]
names = []
for line in body.strip().splitlines():
    item = line.strip().rstrip(",")[1:-1].replace("\\'", "'").replace("\\\\", "\\")
    names.append(item if not names else names[-1][: ord(item[0]) - 32] + item[1:])
print("\n".join(names))
PY
}

@test "gc log: collector, version, flags, CPUs and heap from the start-up lines; pauses of the window only" {
  run facts serial.log 0 9999999999999
  [ "$status" -eq 0 ]
  echo "$output"
  [ "$(jq -c '[.collector, .version, .cpus_available, .heap_mib.max, (.flags | test("-Xmx64m"))]' <<<"$output")" = '["Serial","25.0.3+9-LTS",1,64,true]' ]
  # two pauses (12.917 + 18.172 ms); 21M before the second less 4M after the first, over 4.501 s
  [ "$(jq -c '.gc | [.pauses, .pause_total_ms, .pause_max_ms, .pause_p99_ms, .allocation_mib_per_s]' <<<"$output")" = '[2,31.089,18.172,18.172,3.777]' ]
  # a window around the first pause only (it ended at ...624897 ms): one pause, no rate
  run facts serial.log 1795465624000 1795465625000
  [ "$(jq -c '.gc | [.pauses, .pause_total_ms, .pause_max_ms, .allocation_mib_per_s, .window_ms]' <<<"$output")" = '[1,12.917,12.917,null,1000]' ]
  # a window without pauses: a count of 0, a total of 0, no maximum
  run facts serial.log 1795465625000 1795465626000
  [ "$(jq -c '.gc | [.pauses, .pause_total_ms, .pause_max_ms, .pause_p99_ms]' <<<"$output")" = '[0,0,null,null]' ]
  # a full 16 MiB heap (jetty under load): full collections back to back, 14M->14M, in whole MiB;
  # nothing filled at the log's resolution is no rate (null), not 0 MiB/s
  run facts serial-full.log 1795759379630 1795759379760
  [ "$(jq -c '.gc | [.pauses, .allocation_mib_per_s]' <<<"$output")" = '[4,null]' ]
  # the same log from GC(12) to GC(15): 13M before GC(13) less 9M after GC(12), then 4M and 1M:
  # 9 MiB over the 0.351 s from the first pause's end to the last's
  run facts serial-full.log 1795759379270 1795759379630
  [ "$(jq -c '.gc | [.pauses, .allocation_mib_per_s]' <<<"$output")" = '[4,25.641]' ]
  # G1: its pause line, not the gc,start line nor the phases
  run facts g1.log 0 9999999999999
  [ "$(jq -c '[.collector, .gc.pauses, .gc.pause_total_ms]' <<<"$output")" = '["G1",1,5.767]' ]
}

@test "gc log: none, missing or not a HotSpot log gives null" {
  [ "$(jvm::facts '' 0 1)" = null ]
  [ "$(jvm::facts "$TMP/none.log" 0 1)" = null ]
  printf 'server=fake port=1\n' >"$TMP/other.log"
  [ "$(jvm::facts "$TMP/other.log" 0 1)" = null ]
}

@test "launcher options: the GC log (a path with spaces, quoted), extra options, then JDK_JAVA_OPTIONS; quotes refused" {
  run env JDK_JAVA_OPTIONS=-Dmine=1 bash -c "source '$ROOT/lib/log.sh'; source '$ROOT/lib/jvm.sh'; jvm::launcher_options '$TMP/a b/gc.log' '-agentpath:/x y/l.so'"
  [ "$status" -eq 0 ]
  [ "$output" = "'-Xlog:gc*,arguments:file=\"$TMP/a b/gc.log\":timemillis,uptimemillis,level,tags:filecount=0' '-agentpath:/x y/l.so' -Dmine=1" ]
  # the java launcher takes the GC log's option whole and writes the log where it was asked to
  mkdir "$TMP/a b"
  run env JDK_JAVA_OPTIONS="$(jvm::launcher_options "$TMP/a b/gc.log") -Dmine=1" "$(java::home)/bin/java" -version
  echo "$output"
  [ "$status" -eq 0 ]
  [ -n "$(jvm::facts "$TMP/a b/gc.log" 0 9999999999999)" ]
  [ "$(jvm::facts "$TMP/a b/gc.log" 0 9999999999999 | jq -r .flags)" != null ]
  [ "$(bash -c "source '$ROOT/lib/log.sh'; source '$ROOT/lib/jvm.sh'; jvm::launcher_options ''")" = '' ]
  run bash -c "source '$ROOT/lib/log.sh'; source '$ROOT/lib/jvm.sh'; jvm::launcher_options \"/tmp/it's/gc.log\""
  [ "$status" -eq 1 ]
  [[ $output == *"cannot pass a quote"* ]]
}

@test "top frames: self time from collapsed stacks, most samples first, with their share" {
  source "$ROOT/lib/procs.sh"
  source "$ROOT/lib/profile.sh"
  printf '%s\n' 'main;a;b 5' 'main;a 3' 'main;c;b 2' 'other;x 1' >"$TMP/stacks"
  run profile::top_frames "$TMP/stacks" 2
  [ "$status" -eq 0 ]
  [ "$output" = '{"samples":11,"top_frames":[{"frame":"b","samples":7,"share":0.6364},{"frame":"a","samples":3,"share":0.2727}]}' ]
}

@test "attach: a process that is not a HotSpot JVM is left alone (no SIGQUIT)" {
  background sleep 30
  local pid=$BG_PID
  run python3 "$ROOT/lib/hotspot_attach.py" "$pid" /nonexistent/lib.so status
  stop_background "$pid"
  [ "$status" -eq 2 ]
  [[ $output == *"not a HotSpot JVM"* ]]
  [ ! -e "/proc/$pid/cwd/.attach_pid$pid" ]
}

@test "e2e: --profile cpu of netty under load: a flame graph naming io.netty, top frames and the mode in the row" {
  source "$ROOT/lib/servers.sh"
  servers::build netty
  # a fixed 1 s server warm-up here and below: the steady-state one is tested in run-benchmarks.bats
  run "$RUN" --quick --server-warmup 1s --duration 1s --warmup 0s --port "$PORT" --output "$TMP/out" --servers netty \
    --scenarios hello --tool barrage --protocol h1 --profile
  echo "$output"
  [ "$status" -eq 0 ]
  local f row flame
  f=$(results_file)
  valid "$f"
  [ "$(jq -r .settings.profile "$f")" = cpu ]
  row=$(jq -c '.results[0]' "$f")
  [ "$(jq -r .status <<<"$row")" = ok ]
  [ "$(jq -c '.profile | [.event, .error]' <<<"$row")" = '["cpu",null]' ]
  # this VM may or may not give perf events: either mode, and a reason exactly when it fell back
  [ "$(jq '.profile | (.mode == "perf_events" and .fallback_reason == null) or (.mode == "ctimer" and .fallback_reason != null)' <<<"$row")" = true ]
  [ "$(jq '.profile | .samples > 0 and (.top_frames | length) > 0 and all(.top_frames[]; .samples > 0 and .share <= 1)' <<<"$row")" = true ]
  flame=$(dirname "$f")/$(jq -r .profile.flame_graph <<<"$row")
  [ -s "$flame" ]
  flame_frames "$flame" | grep '^io\.netty\.' >/dev/null
  # the profiler ran in the measured window only: not during the server's warm-up
  [ ! -e "$(dirname "$f")/$(basename "$f" .json).logs/1-netty-warmup-h1-hello/flame.html" ]
  # GC facts too, the agent among the JVM's flags
  [ "$(jq '.jvm | .collector != null and (.flags | test("-agentpath:.*libasyncProfiler.so"))' <<<"$row")" = true ]
  no_process_left
}

@test "e2e: where perf events are unavailable, --profile cpu falls back to ctimer and the row says so; --no-gc-log" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty
  # a perf event that cannot open anywhere stands for a machine without perf events
  PROFILE_PERF_EVENT=trace:barrage_no_such_event run "$RUN" --quick --server-warmup 1s --duration 1s --warmup 0s \
    --port "$PORT" --output "$TMP/out" --servers jetty --scenarios hello --tool barrage --protocol h1 --profile cpu --no-gc-log
  echo "$output"
  [ "$status" -eq 0 ]
  local f row
  f=$(results_file)
  valid "$f"
  row=$(jq -c '.results[0]' "$f")
  [ "$(jq -r '.profile.mode' <<<"$row")" = ctimer ]
  [[ $(jq -r '.profile.fallback_reason' <<<"$row") == *"trace:barrage_no_such_event"* ]]
  [ "$(jq '.profile.samples > 0' <<<"$row")" = true ]
  flame_frames "$(dirname "$f")/$(jq -r .profile.flame_graph <<<"$row")" | grep '^org\.eclipse\.jetty\.' >/dev/null
  # without the GC log: no facts, and the settings say why
  [ "$(jq -c '[.settings.gc_log, .results[0].jvm]' "$f")" = '[false,null]' ]
  [ -z "$(find "$TMP/out" -name '*.gc.log')" ]
  no_process_left
}

@test "e2e: GC and JVM facts of every measured run, plausible for each of the eight servers" {
  source "$ROOT/lib/servers.sh"
  local servers
  servers=$(servers::list | paste -sd,)
  [ "$servers" = "helidon,java-http,jdk-httpserver,jetty,netty,tomcat,undertow,vertx" ]
  servers::build
  # A small heap (JAVA_OPTS replaces servers/jvm.options), so that the windows hold pauses.
  JAVA_OPTS='-Xms32m -Xmx32m -XX:+ExitOnOutOfMemoryError' run "$RUN" --quick --server-warmup 1s --port "$PORT" --output "$TMP/out" \
    --servers "$servers" --scenarios hello --tool barrage --protocol h1 --duration 1s --warmup 0s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq '[.results[] | select(.status == "ok")] | length' "$f")" -eq 8 ]
  [ "$(jq -r .settings.gc_log "$f")" = true ]
  jq -c '.results[] | {server, jvm}' "$f"
  # the heap asked for; the JDK that ran them; a known collector; a window as long as the run
  # (1 s, plus the tool's start and grace); pauses that fit in it
  [ "$(jq --arg version "$(java::version "$(java::home)")" '[.results[] | .jvm
      | (.collector | IN("Serial", "G1", "Parallel", "Z", "Shenandoah")) and (.version | startswith($version))
        and (.flags | test("-Xmx32m")) and .heap_mib.max == 32 and .cpus_available >= 1
        and .gc.window_ms >= 1000 and .gc.window_ms < 30000
        and .gc.pauses >= 0 and .gc.pause_total_ms >= 0 and .gc.pause_total_ms < .gc.window_ms
        and (.gc.pauses == 0 or (.gc.pause_max_ms > 0 and .gc.pause_max_ms <= .gc.pause_total_ms))]
      | length == 8 and all' "$f")" = true ]
  # a 32 MiB heap under load collects: pauses in some window, with an allocation rate where two
  # bound it and the log's whole MiB show what filled the heap between them (never 0 MiB/s)
  [ "$(jq '[.results[].jvm.gc.pauses] | add > 0' "$f")" = true ]
  [ "$(jq '[.results[].jvm.gc.allocation_mib_per_s | select(. != null)] | length > 0' "$f")" = true ]
  assert_jq '.results[].jvm.gc | select(.allocation_mib_per_s != null) | .pauses >= 2 and .allocation_mib_per_s > 0' "$f"
  # one GC log per server start, beside the server's log
  [ "$(find "$TMP/out" -name '*-run1.gc.log' | wc -l)" -eq 8 ]
  [ "$(jq '[.results[] | has("profile")] | any' "$f")" = false ]
  no_process_left
}

@test "e2e: a server that is not a JVM has no JVM facts, and --profile leaves it alone with the reason in the row" {
  run env BARRAGE_SERVERS_DIR="$ROOT/tests/fixtures/fake-servers" "$RUN" --port "$PORT" --output "$TMP/out" \
    --servers good --scenarios hello --tool barrage --protocol h1 --duration 2s --warmup 1s --server-warmup 0s \
    --connections 2 --profile
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '.results[0] | [.status, .jvm, .profile.mode, .profile.flame_graph, (.profile.error | test("did not start"))]' "$f")" = '["ok",null,null,null,true]' ]
  grep -q 'not a HotSpot JVM' "$(dirname "$f")"/*.logs/1-good-barrage-h1-hello/profiler-start.txt
  no_process_left
}

@test "readme: profiled rows get tables of their own and a 'Where the time goes' part linking the flame graphs" {
  source "$ROOT/lib/readme.sh"
  local base=$ROOT/tests/fixtures/results/multi-base.json
  # the same file measured twice over: once as it is, once with a profiler on hello's rows
  jq '.settings.profile = "cpu" | .results += [.results[] | select(.scenario == "hello" and .status == "ok")
      | .profile = {event: "cpu", mode: "ctimer", fallback_reason: "perf event cpu-clock: [ERROR] Perf events unavailable",
                    flame_graph: "x.logs/\(.run)-\(.server)-\(.tool)-\(.protocol)-hello/flame.html", samples: 100,
                    top_frames: [range(6) as $i | {frame: "pkg.\(.server).Frame|\($i)", samples: (30 - $i), share: ((30 - $i) / 100)}],
                    error: null}]' "$base" >"$TMP/profiled.json"
  valid "$TMP/profiled.json"
  readme::model "$TMP/profiled.json" java-http "../results" >"$TMP/model.json"
  readme::section docs/charts profiled.json <"$TMP/model.json" >"$TMP/section.md"
  cat "$TMP/section.md"
  # every hello table twice: unprofiled and profiled, never one table holding both
  local plain profiled
  plain=$(grep -c '^### hello · .*[^)]$' "$TMP/section.md")
  profiled=$(grep -c '^### hello · .* · profiled (cpu)$' "$TMP/section.md")
  [ "$plain" -ge 1 ]
  [ "$plain" -eq "$profiled" ]
  grep -q '^### Where the time goes$' "$TMP/section.md"
  grep -q 'mode: ctimer (timer-based: perf event cpu-clock' "$TMP/section.md"
  # five frames per server (the sixth is left out), a | in a frame escaped, the flame graph linked
  local server
  for server in $(jq -r '[.results[] | select(.profile) | .server] | unique[]' "$TMP/profiled.json"); do
    grep -q "^| $server | \`pkg.$server.Frame\\\\|0\` 30%<br>.*\`pkg.$server.Frame\\\\|4\` 26% | \[flame graph\](../results/x.logs/1-$server-[a-z0-9]*-h1-hello/flame.html) |$" "$TMP/section.md"
    if grep -q "pkg.$server.Frame\\\\|5" "$TMP/section.md"; then return 1; fi
  done
  # an unprofiled file has no such part
  readme::model "$base" java-http "../results" | readme::section docs/charts base.json >"$TMP/plain.md"
  if grep -q 'Where the time goes\|profiled' "$TMP/plain.md"; then return 1; fi
}

@test "compare: a profiled file is compared only with one profiled alike" {
  local base=$ROOT/tests/fixtures/results/multi-base.json
  jq '.settings.profile = "cpu"' "$base" >"$TMP/cpu.json"
  jq '.settings.profile = "alloc"' "$base" >"$TMP/alloc.json"
  run "$ROOT/compare-results.sh" "$base" "$TMP/cpu.json"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"measured with profiler: none"*"profiler: cpu"* ]]
  run "$ROOT/compare-results.sh" "$TMP/cpu.json" "$TMP/alloc.json"
  [ "$status" -eq 2 ]
  run "$ROOT/compare-results.sh" "$TMP/cpu.json" "$TMP/cpu.json"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "options: --profile takes an event or defaults to cpu; anything else exits 2" {
  local fakes=$ROOT/tests/fixtures/fake-servers
  run env BARRAGE_SERVERS_DIR="$fakes" "$RUN" --profile bogus --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"--profile wants cpu|alloc|wall|lock, got 'bogus'"* ]]
  run env BARRAGE_SERVERS_DIR="$fakes" "$RUN" --servers good --profile --dry-run
  [ "$status" -eq 0 ]
  run env BARRAGE_SERVERS_DIR="$fakes" "$RUN" --servers good --dry-run --profile=lock
  [ "$status" -eq 0 ]
  "$RUN" --help | grep -q -- '--profile \[EVENT\]'
  "$RUN" --help | grep -q -- '--no-gc-log'
}
