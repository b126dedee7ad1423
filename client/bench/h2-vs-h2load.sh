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

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# start_h2_nginx H2C_PORT TLS_PORT: h2c on one, TLS (HTTP/1.1, a self-signed certificate made here) on the other
start_h2_nginx() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORKDIR/key.pem" -out "$WORKDIR/cert.pem" -days 1 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
  start_nginx "  http2_max_concurrent_streams 1000;
  server { listen 127.0.0.1:$1 http2; location / { return 200 \"Hello world\"; } }
  server {
    listen 127.0.0.1:$2 ssl;
    ssl_certificate \"$WORKDIR/cert.pem\";
    ssl_certificate_key \"$WORKDIR/key.pem\";
    location / { return 200 \"Hello world\"; }
  }" "https://127.0.0.1:$2/"
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
  start_h2_nginx "$h2c_port" "$tls_port"
  log::info "nginx on core 0 (h2c :$h2c_port, TLS :$tls_port); load tools on core 1"

  local h2c_url="http://127.0.0.1:$h2c_port/" tls_url="https://127.0.0.1:$tls_port/"
  compare "h2c -c 50 -m 10" h2load "-c 50 -m 10" "--h2 -c 50 -m 10" "$h2c_url" "target <= 1.0, goal 0.5"
  compare "h2c -c 10 -m 100" h2load "-c 10 -m 100" "--h2 -c 10 -m 100" "$h2c_url" "target <= 1.0, goal 0.5"
  compare "HTTPS HTTP/1.1 -c 50" wrk "" "-c 50" "$tls_url" "target <= 1.0"
}

main "$@"
