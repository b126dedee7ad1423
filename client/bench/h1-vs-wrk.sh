#!/usr/bin/env bash
# h1-vs-wrk.sh: barrage against wrk on the same nginx, CPU cost per request.
#
#   client/bench/h1-vs-wrk.sh [--rounds N] [--duration SECONDS] [--long]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) on a free
# 127.0.0.1 port pinned to core 0, then runs wrk and barrage in turn pinned to
# core 1, each -t 1 -c 50 for the duration, several rounds. Prints per round and
# the median: requests/s and the load tool's CPU microseconds per request
# (user + sys of the child), and the ratio barrage / wrk (target <= 1.0, goal 0.75).
# Then barrage's peak RSS at -c 1000 for 10 s (must stay under 32 MiB); with
# --long also for 60 s, and whether it stayed flat (within 5%).
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=SCRIPTDIR/../../lib/deps.sh
source "$ROOT/lib/deps.sh"

ROUNDS=3
DURATION=5
LONG=0
NGINX_PID=
WORKDIR=

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

cleanup() {
  if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  if [[ -n $WORKDIR ]]; then rm -rf "$WORKDIR"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

start_nginx() {
  local port=$1
  cat > "$WORKDIR/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid "$WORKDIR/nginx.pid";
error_log "$WORKDIR/error.log";
events { worker_connections 4096; }
http {
  access_log off;
  # measure the load tools, not reconnections every 1000 requests
  keepalive_requests 100000000;
  server { listen 127.0.0.1:$port; location / { return 200 "Hello world"; } }
}
CONF
  taskset -c 0 nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" &
  NGINX_PID=$!
  for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  log::die "nginx did not start (see $WORKDIR/error.log)"
}

# cpu_of FILE: user + sys seconds from bash's time output "U S".
cpu_of() { awk '{print $1 + $2}' "$1"; }

# run_wrk URL: prints "requests rps cpu_seconds"
run_wrk() {
  local TIMEFORMAT='%3U %3S'
  { time taskset -c 1 wrk -t 1 -c 50 -d "${DURATION}s" "$1" > "$WORKDIR/wrk.out"; } 2> "$WORKDIR/wrk.time"
  local requests rps
  requests=$(awk '/requests in/ {print $1}' "$WORKDIR/wrk.out")
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$WORKDIR/wrk.out")
  echo "$requests $rps $(cpu_of "$WORKDIR/wrk.time")"
}

# run_barrage URL: prints "requests rps cpu_seconds"
run_barrage() {
  local TIMEFORMAT='%3U %3S'
  { time taskset -c 1 "$BARRAGE" -t 1 -c 50 -d "${DURATION}s" --json "$1" > "$WORKDIR/barrage.json"; } \
    2> "$WORKDIR/barrage.time"
  echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage.json") $(cpu_of "$WORKDIR/barrage.time")"
}

median() { sort -g | awk '{v[NR]=$1} END {printf "%.2f\n", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

# peak_rss URL SECONDS: barrage's peak RSS in KiB at -c 1000
peak_rss() {
  taskset -c 1 "$BARRAGE" -t 1 -c 1000 -d "${2}s" --json "$1" | jq -r '.max_rss_kb'
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      --long) LONG=1; shift ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light wrk:wrk taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  local port url
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  start_nginx "$port"
  log::info "nginx on core 0 at $url; load tools on core 1; -c 50, ${DURATION}s, $ROUNDS rounds"

  local round wrk_line barrage_line wrk_us=() barrage_us=() wrk_rps=() barrage_rps=()
  printf '%-6s %-8s %12s %12s %10s\n' round tool requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    wrk_line=$(run_wrk "$url")
    barrage_line=$(run_barrage "$url")
    read -r wreq wrps wcpu <<<"$wrk_line"
    read -r breq brps bcpu <<<"$barrage_line"
    wrk_us+=("$(awk -v c="$wcpu" -v n="$wreq" 'BEGIN {printf "%.2f", c * 1e6 / n}')")
    barrage_us+=("$(awk -v c="$bcpu" -v n="$breq" 'BEGIN {printf "%.2f", c * 1e6 / n}')")
    wrk_rps+=("$wrps")
    barrage_rps+=("$brps")
    printf '%-6s %-8s %12s %12.0f %10s\n' "$round" wrk "$wreq" "$wrps" "${wrk_us[-1]}"
    printf '%-6s %-8s %12s %12.0f %10s\n' "$round" barrage "$breq" "$brps" "${barrage_us[-1]}"
  done
  local wm bm
  wm=$(printf '%s\n' "${wrk_us[@]}" | median)
  bm=$(printf '%s\n' "${barrage_us[@]}" | median)
  printf '%-6s %-8s %12s %12.0f %10s\n' median wrk - "$(printf '%s\n' "${wrk_rps[@]}" | median)" "$wm"
  printf '%-6s %-8s %12s %12.0f %10s\n' median barrage - "$(printf '%s\n' "${barrage_rps[@]}" | median)" "$bm"
  printf 'ratio barrage/wrk (cpu us per request): %s  (target <= 1.0, goal 0.75)\n' \
    "$(awk -v b="$bm" -v w="$wm" 'BEGIN {printf "%.2f", b / w}')"

  local rss10 rss60
  rss10=$(peak_rss "$url" 10)
  printf 'barrage peak RSS at -c 1000, 10 s: %s KiB (limit 32768)\n' "$rss10"
  if ((LONG)); then
    rss60=$(peak_rss "$url" 60)
    printf 'barrage peak RSS at -c 1000, 60 s: %s KiB; growth over 10 s: %s%% (limit 5%%)\n' "$rss60" \
      "$(awk -v a="$rss10" -v b="$rss60" 'BEGIN {printf "%.1f", (b - a) * 100 / a}')"
  fi
}

main "$@"
