#!/usr/bin/env bats
# run-benchmarks.sh --metrics (lib/prom.sh): a real Prometheus (Debian's, installed by
# ./run-tests.sh deps) and node exporter started on free ports with the config and data in a
# folder, barrage's driver run with --metrics-listen on the address it chose, a JVM started
# with the JMX exporter's agent as a server's start adds it (lib/place/local.sh), the machine's,
# barrage's and the JVM's series stored, a TSDB snapshot that promtool reads holding barrage's
# final count, and all stopped; without Prometheus and not root, what to install.

load test_helper

setup() {
  common_setup "barrage prom test"
  # shellcheck source=SCRIPTDIR/../lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=SCRIPTDIR/../lib/deps.sh
  source "$ROOT/lib/deps.sh"
  # shellcheck source=SCRIPTDIR/../lib/procs.sh
  source "$ROOT/lib/procs.sh"
  # shellcheck source=SCRIPTDIR/../lib/scenarios.sh
  source "$ROOT/lib/scenarios.sh"
  # shellcheck source=SCRIPTDIR/../lib/tools.sh
  source "$ROOT/lib/tools.sh"
  # shellcheck source=SCRIPTDIR/../lib/tools/barrage.sh
  source "$ROOT/lib/tools/barrage.sh"
  # shellcheck source=SCRIPTDIR/../lib/prom.sh
  source "$ROOT/lib/prom.sh"
  # shellcheck source=SCRIPTDIR/../lib/java.sh
  source "$ROOT/lib/java.sh"
  # shellcheck source=SCRIPTDIR/../lib/jvm.sh
  source "$ROOT/lib/jvm.sh"
  procs::record_to "$TMP/pids"
}

teardown() {
  prom::stop
  # the test's JVM too when the test failed before stopping it
  procs::stop_all
  common_teardown
}

# query PROMQL: the first result's value of an instant query ("" when none)
query() {
  curl -fsG "$PROM_URL/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'
}

@test "--metrics: Prometheus scrapes barrage's run, the machine and a server's JVM; the snapshot beside the results holds the final count" {
  prom::start "$TMP/prometheus dir"
  [[ $PROM_URL == http://127.0.0.1:* && $PROM_BARRAGE_LISTEN == 127.0.0.1:* ]]
  grep -q "targets: \['$PROM_BARRAGE_LISTEN'\]" "$TMP/prometheus dir/prometheus.yml"
  # a JVM standing for a server, with the options a server's start gets (self-stopping in 60 s)
  prom::ensure_jvm_agent "$ROOT/.cache" "$(java::home)"
  printf '%s\n' 'class Idle { public static void main(String[] a) throws Exception { System.gc(); Thread.sleep(60000); } }' >"$TMP/Idle.java"
  local options jvm_pid
  options=$(jvm::launcher_options "" "$(prom::jvm_agent_option "some server")")
  JDK_JAVA_OPTIONS=$options procs::spawn "jvm" "$(java::home)/bin/java" "$TMP/Idle.java" 2>"$TMP/jvm.log"
  jvm_pid=$PROCS_PID
  test_server ok
  local -A spec
  run_spec spec url="http://127.0.0.1:$PORT" scenario=baseline connections=2 duration_s=2
  run barrage::run spec
  [ "$status" -eq 0 ]
  local succeeded finished='' i
  succeeded=$(jq -er '.succeeded' "$TMP/out.json")
  ((succeeded > 0))
  # barrage served its final figures before it exited (--metrics-linger); stored just after
  for i in $(seq 50); do
    finished=$(query 'max_over_time(barrage_run_finished[5m])')
    [[ $finished == 1 ]] && break
    sleep 0.2
  done
  [ "$finished" = 1 ]
  [ "$(query 'sum(max_over_time(barrage_requests_total[5m]))')" = "$succeeded" ]
  [ "$(query 'max_over_time(up{job="node"}[5m])')" = 1 ]
  [ -n "$(query 'count(node_cpu_seconds_total)')" ]
  # the JVM's series, labelled with its server: heap used, GC counts, threads
  local heap=''
  for i in $(seq 100); do
    heap=$(query 'sum(jvm_memory_used_bytes{job="jvm",server="some server",area="heap"})')
    [[ -n $heap ]] && break
    sleep 0.2
  done
  # Prometheus may print a large value as 1.2e+07: compared as numbers by awk
  awk -v heap="$heap" 'BEGIN { exit !(heap > 0) }'
  [ -n "$(query 'sum(jvm_gc_collection_seconds_count{job="jvm",server="some server"})')" ]
  awk -v threads="$(query 'max(jvm_threads_current{job="jvm",server="some server"})')" 'BEGIN { exit !(threads > 0) }'
  procs::stop "$jvm_pid"
  prom::snapshot "$TMP/run.prometheus"
  prom::stop
  # promtool reads the kept data: barrage's final count among its samples
  promtool tsdb dump --match='barrage_requests_total{outcome="success"}' "$TMP/run.prometheus" > "$TMP/dump"
  [ "$(awk '{print $(NF-1)}' "$TMP/dump" | sort -g | tail -n 1)" = "$succeeded" ]
  # both stopped: their process groups are gone
  local pid _
  while IFS=$'\t' read -r pid _; do ! kill -0 "$pid" 2>/dev/null; done <"$TMP/pids"
}

@test "--metrics without Prometheus, not as root: says what to install" {
  # shellcheck disable=SC2317 # called by lib/deps.sh: a user that is not root
  id() { echo 1000; }
  # a PATH with sort (lib/deps.sh uses it) and neither prometheus nor apt-get
  mkdir -p "$TMP/no tools"
  ln -s "$(command -v sort)" "$TMP/no tools/sort"
  PATH="$TMP/no tools" run prom::ensure
  [ "$status" -eq 1 ]
  [[ $output == *"sudo apt-get install -y prometheus prometheus-node-exporter"* ]]
}
