#!/usr/bin/env bash
# prom: a Prometheus watching a suite run (run-benchmarks.sh --metrics): Debian's prometheus,
# its own config and data folder under the run's logs, on a free 127.0.0.1 port, scraping
# every second barrage's --metrics-listen (a fixed free port each barrage run listens on;
# between runs the target is down) and the machine (Debian's prometheus-node-exporter, on a
# free port) and each server's JVM (the Prometheus JMX exporter's Java agent from Maven
# Central, on a fixed free port each server start listens on, labelled with the server). At
# the end a TSDB snapshot is kept beside the results and both are stopped. The report page's
# series are not here yet; a lab run's hosts are not scraped (only this machine's runs are).
#
#   prom::ensure
#     Installs prometheus and prometheus-node-exporter when missing (as root), else says
#     what to run; returns 1 then.
#   prom::ensure_jvm_agent CACHE_DIR JAVA_HOME
#     Fetches the JMX exporter's agent jar into CACHE_DIR with Maven (once); sets
#     PROM_JVM_AGENT (its path). Returns 1 with a message on failure.
#   prom::jvm_agent_option SERVER
#     After prom::start and prom::ensure_jvm_agent: points the `jvm` job at the agent's port
#     with the label server=SERVER (a file Prometheus watches) and prints the JVM option that
#     attaches the agent (-javaagent:JAR=ADDR:PORT:CONFIG) for that server's start.
#   prom::start DIR
#     Writes DIR/prometheus.yml, starts the node exporter and Prometheus (process groups
#     recorded with lib/procs.sh; data in DIR/data, admin API on for the snapshot) and waits
#     until Prometheus is ready and scrapes its targets (the node exporter scraped once). Sets PROM_URL (http://127.0.0.1:PORT) and
#     PROM_BARRAGE_LISTEN (ADDR:PORT for barrage --metrics-listen). Returns 1 with a message
#     when either does not start.
#   prom::snapshot DEST
#     Asks Prometheus for a TSDB snapshot and moves it to DEST (a folder `promtool tsdb
#     list DEST` reads, or `prometheus --storage.tsdb.path=DEST` serves). Returns 1 when
#     none was made.
#   prom::stop
#     Stops Prometheus and the node exporter (by their process groups).

PROM_URL='' PROM_BARRAGE_LISTEN='' PROM_PID='' PROM_NODE_PID='' PROM_DIR=''
# io.prometheus.jmx:jmx_prometheus_javaagent: the newest Maven Central serves here
PROM_JMX_VERSION=1.0.1
PROM_JVM_AGENT='' PROM_JVM_LISTEN=''

prom::ensure() {
  deps::ensure prometheus:prometheus prometheus-node-exporter:prometheus-node-exporter
}

prom::ensure_jvm_agent() {
  local cache=$1/jmx-exporter-$PROM_JMX_VERSION java_home=$2
  PROM_JVM_AGENT=$cache/jmx_prometheus_javaagent-$PROM_JMX_VERSION.jar
  [[ -f $PROM_JVM_AGENT ]] && return 0
  mkdir -p "$cache"
  log::info "fetching the Prometheus JMX exporter's agent $PROM_JMX_VERSION from Maven Central into $cache"
  if ! JAVA_HOME=$java_home mvn -B -q -Dstyle.color=never dependency:copy \
    "-Dartifact=io.prometheus.jmx:jmx_prometheus_javaagent:$PROM_JMX_VERSION" "-DoutputDirectory=$cache" >&2 ||
    [[ ! -f $PROM_JVM_AGENT ]]; then
    log::error "--metrics: Maven could not fetch io.prometheus.jmx:jmx_prometheus_javaagent:$PROM_JMX_VERSION"
    return 1
  fi
}

prom::jvm_agent_option() {
  local server=$1
  # written whole, then renamed: Prometheus reads the file when it changes
  jq -n --arg target "$PROM_JVM_LISTEN" --arg server "$server" \
    '[{targets: [$target], labels: {server: $server}}]' >"$PROM_DIR/jvm-targets.json.new"
  mv -- "$PROM_DIR/jvm-targets.json.new" "$PROM_DIR/jvm-targets.json"
  printf '%s\n' "-javaagent:$PROM_JVM_AGENT=$PROM_JVM_LISTEN:$PROM_DIR/jmx-exporter.yml"
}

# prom::_free_port: a port nothing listens on now, on 127.0.0.1
prom::_free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

# prom::_wait_ready URL: 0 once URL answers 200, within 30 s
prom::_wait_ready() {
  local i
  for i in $(seq 150); do
    curl -fs -o /dev/null "$1" && return 0
    ((i > 0)) && sleep 0.2
  done
  return 1
}

prom::start() {
  PROM_DIR=$1
  mkdir -p "$PROM_DIR/data"
  local prom_port node_port barrage_port
  prom_port=$(prom::_free_port)
  node_port=$(prom::_free_port)
  barrage_port=$(prom::_free_port)
  PROM_BARRAGE_LISTEN=127.0.0.1:$barrage_port
  PROM_JVM_LISTEN=127.0.0.1:$(prom::_free_port)
  # The agent's own JVM collectors (jvm_gc_collection_seconds, jvm_memory_*, jvm_threads_*,
  # jvm_memory_pool_allocated_bytes_total); of the JMX beans, only the runtime's few
  cat >"$PROM_DIR/jmx-exporter.yml" <<'YML'
# written by run-benchmarks.sh --metrics (lib/prom.sh)
includeObjectNames: ["java.lang:type=Runtime"]
YML
  echo '[]' >"$PROM_DIR/jvm-targets.json"
  cat >"$PROM_DIR/prometheus.yml" <<YML
# written by run-benchmarks.sh --metrics (lib/prom.sh)
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: barrage
    static_configs:
      - targets: ['$PROM_BARRAGE_LISTEN']
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$node_port']
  - job_name: jvm
    file_sd_configs:
      - files: ['$PROM_DIR/jvm-targets.json']
YML
  procs::spawn "prometheus-node-exporter" prometheus-node-exporter "--web.listen-address=127.0.0.1:$node_port" \
    2>"$PROM_DIR/node-exporter.log"
  # shellcheck disable=SC2153 # PROCS_PID: set by procs::spawn (lib/procs.sh)
  PROM_NODE_PID=$PROCS_PID
  procs::spawn "prometheus" prometheus "--config.file=$PROM_DIR/prometheus.yml" "--storage.tsdb.path=$PROM_DIR/data" \
    "--web.listen-address=127.0.0.1:$prom_port" --web.enable-admin-api 2>"$PROM_DIR/prometheus.log"
  PROM_PID=$PROCS_PID
  PROM_URL=http://127.0.0.1:$prom_port
  if ! prom::_wait_ready "$PROM_URL/-/ready"; then
    log::error "Prometheus did not start (see $PROM_DIR/prometheus.log)"
    return 1
  fi
  # Prometheus hands its targets to the scrapers some seconds after it is ready (its discovery
  # updates at most every 5 s): the first barrage run must not start before they are scraped
  local i
  for i in $(seq 150); do
    curl -fs "$PROM_URL/api/v1/targets" |
      jq -e '[.data.activeTargets[] | select(.labels.job == "node" and .health != "unknown")] | length > 0' \
        >/dev/null 2>&1 && return 0
    ((i > 0)) && sleep 0.2
  done
  log::warn "Prometheus did not scrape prometheus-node-exporter in 30 s (see $PROM_DIR/node-exporter.log): no machine series"
}

prom::snapshot() {
  local dest=$1 name
  name=$(curl -fs -X POST "$PROM_URL/api/v1/admin/tsdb/snapshot" | jq -r '.data.name // empty') || name=''
  if [[ -z $name || ! -d $PROM_DIR/data/snapshots/$name ]]; then
    log::error "Prometheus made no snapshot (see $PROM_DIR/prometheus.log)"
    return 1
  fi
  rm -rf -- "$dest"
  mv -- "$PROM_DIR/data/snapshots/$name" "$dest"
  # promtool tsdb dump opens the folder as a database, which has a write-ahead log (empty here)
  mkdir -p "$dest/wal"
}

prom::stop() {
  [[ -z $PROM_PID ]] || procs::stop "$PROM_PID" 10 || true
  [[ -z $PROM_NODE_PID ]] || procs::stop "$PROM_NODE_PID" || true
  PROM_PID='' PROM_NODE_PID=''
}
