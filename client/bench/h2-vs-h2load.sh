#!/usr/bin/env bash
# h2-vs-h2load.sh: barrage against h2load over h2c and over TLS, and against
# wrk over HTTPS HTTP/1.1, on the same nginx: CPU cost per request.
#
#   client/bench/h2-vs-h2load.sh [--rounds N] [--duration SECONDS] [--callgrind]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) pinned to
# core 0 on three free 127.0.0.1 ports: h2c, HTTP/1.1 over TLS and HTTP/2 over
# TLS (a self-signed certificate made here). The load tools run
# in turn pinned to core 1, one thread each, several rounds of the duration:
#   h2c  -c 50 -m 10 and -c 10 -m 100: barrage --h2 vs h2load (same flags)
#   h2   -c 50 -m 10 over TLS: barrage --h2 (verifying with --cacert) vs h2load
#   TLS  -c 50 HTTP/1.1: barrage (verifying with --cacert) vs wrk
# Prints per round and the median: requests/s and the load tool's CPU
# microseconds per request (user + sys of the child), the ratios barrage /
# h2load and barrage / wrk, and both h2c shapes side by side (target <= 0.9
# of h2load's, issue 42). nginx is the bottleneck in requests/s, so CPU per
# request is what counts.
# --callgrind: also counts the instructions per request of barrage and h2load
# at both h2c shapes under valgrind (-n 120000 less -n 20000, so start-up
# cancels out): repeatable where CPU time is not, user space only (no kernel
# time). Barrage's figure includes its once-a-second work, which weighs about
# 50 times more under valgrind's slowdown than in a real run.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5
CALLGRIND=0
H2C_SHAPES=("-c 50 -m 10" "-c 10 -m 100")

usage() { sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# start_h2_nginx H2C_PORT TLS_PORT H2_TLS_PORT: h2c, HTTP/1.1 over TLS and HTTP/2 over TLS (a
# self-signed certificate made here), each on its own port: the HTTP/1.1 server stays the one the
# wrk comparison always had (an http2 listener makes nginx's TLS writes differ)
start_h2_nginx() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORKDIR/key.pem" -out "$WORKDIR/cert.pem" -days 1 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
  local certs="ssl_certificate \"$WORKDIR/cert.pem\"; ssl_certificate_key \"$WORKDIR/key.pem\";"
  start_nginx "  http2_max_concurrent_streams 1000;
  server { listen 127.0.0.1:$1 http2; location / { return 200 \"Hello world\"; } }
  server { listen 127.0.0.1:$2 ssl; $certs location / { return 200 \"Hello world\"; } }
  server { listen 127.0.0.1:$3 ssl http2; $certs location / { return 200 \"Hello world\"; } }" "https://127.0.0.1:$2/"
}

# instructions TOOL SHAPE URL N: the instructions valgrind counts for one run of -n N
instructions() {
  local tool=$1 shape=$2 url=$3 n=$4 cmd
  if [[ $tool == barrage ]]; then cmd=("$BARRAGE" --h2); else cmd=(h2load); fi
  # shellcheck disable=SC2086 # SHAPE is a list of options
  taskset -c 1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "${cmd[@]}" -t 1 $shape -n "$n" "$url" \
    >/dev/null 2>"$WORKDIR/callgrind.err"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORKDIR/callgrind.err"
}

# count_instructions URL: instructions per request of both tools at each h2c shape
count_instructions() {
  local shape tool small large per=()
  printf '\ninstructions per request under callgrind (-n 120000 less -n 20000)\n'
  printf '%-16s %10s %10s %6s\n' shape h2load barrage ratio
  for shape in "${H2C_SHAPES[@]}"; do
    per=()
    for tool in h2load barrage; do
      small=$(instructions "$tool" "$shape" "$1" 20000)
      large=$(instructions "$tool" "$shape" "$1" 120000)
      per+=("$(awk -v a="$small" -v b="$large" 'BEGIN {printf "%.0f", (b - a) / 100000}')")
    done
    printf '%-16s %10s %10s %6s\n' "$shape" "${per[0]}" "${per[1]}" "$(ratio "${per[1]}" "${per[0]}")"
  done
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      --callgrind) CALLGRIND=1; shift ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light h2load:nghttp2-client wrk:wrk taskset:util-linux jq:jq curl:curl \
    make:make openssl:openssl || return 1
  if ((CALLGRIND)); then deps::ensure valgrind:valgrind || return 1; fi
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage h2 bench.XXXX")
  local h2c_port tls_port h2_tls_port
  h2c_port=$(free_port)
  tls_port=$(free_port)
  h2_tls_port=$(free_port)
  start_h2_nginx "$h2c_port" "$tls_port" "$h2_tls_port"
  log::info "nginx on core 0 (h2c :$h2c_port, TLS :$tls_port, h2 over TLS :$h2_tls_port); load tools on core 1"

  local h2c_url="http://127.0.0.1:$h2c_port/" tls_url="https://127.0.0.1:$tls_port/" shape summary=()
  local h2_tls_url="https://127.0.0.1:$h2_tls_port/"
  for shape in "${H2C_SHAPES[@]}"; do
    compare "h2c $shape" h2load "$shape" "--h2 $shape" "$h2c_url" "target <= 0.9"
    summary+=("$(printf '%-16s %10s %10s %6s' "$shape" "${COMPARED[@]}")")
  done
  compare "h2 over TLS -c 50 -m 10" h2load "-c 50 -m 10" "--h2 -c 50 -m 10" "$h2_tls_url" "no target"
  compare "HTTPS HTTP/1.1 -c 50" wrk "" "-c 50" "$tls_url" "target <= 1.0"

  printf '\nh2c side by side: medians of %s rounds of %ss, cpu us per request (target <= 0.9)\n' "$ROUNDS" "$DURATION"
  printf '%-16s %10s %10s %6s\n' shape h2load barrage ratio
  printf '%s\n' "${summary[@]}"
  if ((CALLGRIND)); then count_instructions "$h2c_url"; fi
}

main "$@"
