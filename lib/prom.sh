#!/usr/bin/env bash
# prom: a Prometheus watching a suite run (run-benchmarks.sh --metrics): Debian's prometheus,
# its own config and data folder under the run's logs, on a free 127.0.0.1 port, scraping
# every second barrage's --metrics-listen (a fixed free port each barrage run listens on;
# between runs the target is down) and the machine (Debian's prometheus-node-exporter, on a
# free port). At the end a TSDB snapshot is kept beside the results and both are stopped.
# The servers' JVMs (a JVM exporter) and the report page's series are not here yet; a lab
# run's load hosts are not scraped (only this machine's barrage runs are).
#
#   prom::ensure
#     Installs prometheus and prometheus-node-exporter when missing (as root), else says
#     what to run; returns 1 then.
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

prom::ensure() {
  deps::ensure prometheus:prometheus prometheus-node-exporter:prometheus-node-exporter
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
