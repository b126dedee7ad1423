#!/usr/bin/env bash
# h2-vs-h2load.sh: barrage against h2load over h2c, and against wrk over HTTPS
# HTTP/1.1, on the same nginx: CPU cost per request.
#
#   client/bench/h2-vs-h2load.sh [--rounds N] [--duration SECONDS]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) pinned to
# core 0 on two free 127.0.0.1 ports: h2c, and TLS (HTTP/1.1 only, a self-signed
# certificate made here). The load tools run in turn pinned to core 1, one
# thread each, several rounds of the duration:
#   h2c  -c 50 -m 10 and -c 10 -m 100: barrage --h2 vs h2load (same flags)
#   TLS  -c 50: barrage (verifying with --cacert) vs wrk
# Prints per round and the median: requests/s and the load tool's CPU
# microseconds per request (user + sys of the child), and the ratios
# barrage / h2load and barrage / wrk (target <= 1.0; goal 0.5 for h2c).
# nginx is the bottleneck in requests/s, so CPU per request is what counts.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=SCRIPTDIR/../../lib/deps.sh
source "$ROOT/lib/deps.sh"

ROUNDS=3
DURATION=5
NGINX_PID=
WORKDIR=
BARRAGE=

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

cleanup() {
  if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  if [[ -n $WORKDIR ]]; then rm -rf "$WORKDIR"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

# start_nginx H2C_PORT TLS_PORT
start_nginx() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORKDIR/key.pem" -out "$WORKDIR/cert.pem" -days 1 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
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
  http2_max_concurrent_streams 1000;
  server { listen 127.0.0.1:$1 http2; location / { return 200 "Hello world"; } }
  server {
    listen 127.0.0.1:$2 ssl;
    ssl_certificate "$WORKDIR/cert.pem";
    ssl_certificate_key "$WORKDIR/key.pem";
    location / { return 200 "Hello world"; }
  }
}
CONF
  taskset -c 0 nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" &
  NGINX_PID=$!
  for _ in $(seq 50); do
    curl -fsk "https://127.0.0.1:$2/" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  log::die "nginx did not start (see $WORKDIR/error.log)"
}

# timed NAME CMD...: runs CMD on core 1, stdout to $WORKDIR/NAME.out; prints user + sys seconds
timed() {
  local name=$1 TIMEFORMAT='%3U %3S'
  shift
  { time taskset -c 1 "$@" > "$WORKDIR/$name.out"; } 2> "$WORKDIR/$name.time"
  awk '{print $1 + $2}' "$WORKDIR/$name.time"
}

# run_h2load FLAGS URL: prints "requests rps cpu_seconds"
run_h2load() {
  local cpu
  # shellcheck disable=SC2086 # FLAGS is a list of options
  cpu=$(timed h2load h2load -t 1 $1 -D "$DURATION" "$2")
  awk -v cpu="$cpu" '/^requests:/ {req = $8} /^finished in/ {rps = $4} END {print req, rps, cpu}' \
    "$WORKDIR/h2load.out"
}

# run_wrk URL: prints "requests rps cpu_seconds"
run_wrk() {
  local cpu
  cpu=$(timed wrk wrk -t 1 -c 50 -d "${DURATION}s" "$1")
  awk -v cpu="$cpu" '/requests in/ {req = $1} /^Requests\/sec:/ {rps = $2} END {print req, rps, cpu}' \
    "$WORKDIR/wrk.out"
}

# run_barrage FLAGS URL: prints "requests rps cpu_seconds"; https:// verifies with the test certificate
run_barrage() {
  local cpu tls=()
  [[ $2 == https://* ]] && tls=(--cacert "$WORKDIR/cert.pem")
  # shellcheck disable=SC2086 # FLAGS is a list of options
  cpu=$(timed barrage "$BARRAGE" -t 1 $1 "${tls[@]}" -d "${DURATION}s" --json "$2")
  echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage.out") $cpu"
}

median() { sort -g | awk '{v[NR]=$1} END {printf "%.2f\n", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
us_per_request() { awk -v c="$1" -v n="$2" 'BEGIN {printf "%.2f", (n > 0 ? c * 1e6 / n : 0)}'; }

# compare TITLE OTHER_TOOL OTHER_FLAGS BARRAGE_FLAGS URL TARGET
compare() {
  local title=$1 other=$2 other_flags=$3 barrage_flags=$4 url=$5 target=$6
  local round line req rps cpu other_us=() barrage_us=() other_rps=() barrage_rps=()
  printf '\n%s (%s rounds of %ss)\n' "$title" "$ROUNDS" "$DURATION"
  printf '%-6s %-8s %12s %12s %10s\n' round tool requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    if [[ $other == h2load ]]; then line=$(run_h2load "$other_flags" "$url"); else line=$(run_wrk "$url"); fi
    read -r req rps cpu <<<"$line"
    other_us+=("$(us_per_request "$cpu" "$req")")
    other_rps+=("$rps")
    printf '%-6s %-8s %12s %12.0f %10s\n' "$round" "$other" "$req" "$rps" "${other_us[-1]}"
    line=$(run_barrage "$barrage_flags" "$url")
    read -r req rps cpu <<<"$line"
    barrage_us+=("$(us_per_request "$cpu" "$req")")
    barrage_rps+=("$rps")
    printf '%-6s %-8s %12s %12.0f %10s\n' "$round" barrage "$req" "$rps" "${barrage_us[-1]}"
  done
  local om bm
  om=$(printf '%s\n' "${other_us[@]}" | median)
  bm=$(printf '%s\n' "${barrage_us[@]}" | median)
  printf '%-6s %-8s %12s %12.0f %10s\n' median "$other" - "$(printf '%s\n' "${other_rps[@]}" | median)" "$om"
  printf '%-6s %-8s %12s %12.0f %10s\n' median barrage - "$(printf '%s\n' "${barrage_rps[@]}" | median)" "$bm"
  printf 'ratio barrage/%s (cpu us per request): %s  (%s)\n' "$other" \
    "$(awk -v b="$bm" -v o="$om" 'BEGIN {printf "%.2f", (o > 0 ? b / o : 0)}')" "$target"
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light h2load:nghttp2-client wrk:wrk taskset:util-linux jq:jq curl:curl \
    make:make openssl:openssl || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage h2 bench.XXXX")
  local h2c_port tls_port
  h2c_port=$(free_port)
  tls_port=$(free_port)
  start_nginx "$h2c_port" "$tls_port"
  log::info "nginx on core 0 (h2c :$h2c_port, TLS :$tls_port); load tools on core 1"

  local h2c_url="http://127.0.0.1:$h2c_port/" tls_url="https://127.0.0.1:$tls_port/"
  compare "h2c -c 50 -m 10" h2load "-c 50 -m 10" "--h2 -c 50 -m 10" "$h2c_url" "target <= 1.0, goal 0.5"
  compare "h2c -c 10 -m 100" h2load "-c 10 -m 100" "--h2 -c 10 -m 100" "$h2c_url" "target <= 1.0, goal 0.5"
  compare "HTTPS HTTP/1.1 -c 50" wrk "" "-c 50" "$tls_url" "target <= 1.0"
}

main "$@"
