#!/usr/bin/env bash
# handshake-vs-h2load.sh: barrage's CPU per full and per resumed TLS handshake against
# h2load's, on the same nginx (issue 39).
#
#   client/bench/handshake-vs-h2load.sh [--rounds N] [--handshakes N] [--clients N] [--insecure]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) pinned to core 0 on
# two free 127.0.0.1 ports, TLS 1.3 and 1.2 offered, HTTP/1.1, each connection closed after
# one request (keepalive_requests 1): one that resumes sessions (nginx's session tickets,
# its default) and one that refuses (ssl_session_tickets off; ssl_session_cache off). The load
# tools run in turn pinned to core 1, one thread and --clients connections each (default 10),
# --handshakes requests each (default 2000: -n, as h2load 1.52's -D does not end against a
# server that closes every connection), several rounds, the order alternating round by round:
#   full     barrage --requests-per-connection 1           vs h2load --h1, on the refusing server
#   resumed  barrage --requests-per-connection 1 --tls-resume vs h2load --h1, on the resuming one
# (h2load resumes the session of its client's last connection when it reconnects; it does not
# share sessions between clients). A connection carries one request, so every request is one
# handshake: the figure is the load tool's CPU (user + sys) per handshake in microseconds,
# per round and the median, and the ratios barrage / h2load. barrage's own record says which
# handshakes it made (handshakes_full, handshakes_resumed); a round whose handshakes are not
# what it measures is flagged. The date and the load average are printed with the figures.
# barrage verifies the server's certificate on every full handshake (--cacert) and h2load does
# not: --insecure runs barrage without verification, for the like-for-like figure.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
HANDSHAKES=2000
CLIENTS=10
VERIFY=(--cacert)  # --insecure: barrage skips certificate verification, as h2load does

usage() { sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# start_tls_nginx FULL_PORT RESUME_PORT: the refusing server on one, the resuming one on the other
start_tls_nginx() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORKDIR/key.pem" \
    -out "$WORKDIR/cert.pem" -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
  local common="ssl_certificate \"$WORKDIR/cert.pem\"; ssl_certificate_key \"$WORKDIR/key.pem\";
    ssl_protocols TLSv1.2 TLSv1.3; keepalive_requests 1; location / { return 200 \"Hello world\"; }"
  start_nginx "  server { listen 127.0.0.1:$1 ssl; ssl_session_tickets off; ssl_session_cache off; $common }
  server { listen 127.0.0.1:$2 ssl; $common }" "https://127.0.0.1:$2/"
}

# handshake_h2load URL: "handshakes cpu_seconds" (one request a connection: requests = handshakes)
handshake_h2load() {
  local cpu
  cpu=$(timed h2load h2load --h1 -t 1 -c "$CLIENTS" -n "$HANDSHAKES" "$1")
  awk -v cpu="$cpu" '/^requests:/ {done = $8} END {print done + 0, cpu}' "$WORKDIR/h2load.out"
}

# handshake_barrage URL RESUME: "handshakes cpu_seconds full resumed"
handshake_barrage() {
  local cpu resume_flag=()
  (($2)) && resume_flag=(--tls-resume)
  cpu=$(timed barrage "$BARRAGE" --h1 -t 1 -c "$CLIENTS" --requests-per-connection 1 "${resume_flag[@]}" \
    "${VERIFY[@]}" -n "$HANDSHAKES" --json "$1")
  jq -r --arg cpu "$cpu" '.connections | "\(.established) \($cpu) \(.handshakes_full) \(.handshakes_resumed)"' \
    "$WORKDIR/barrage.out"
}

# measure KIND URL RESUME: ROUNDS rounds of both tools, h2load first in odd rounds; the medians
# of cpu us per handshake into MEDIANS (h2load, barrage, ratio)
MEDIANS=()
measure() {
  local kind=$1 url=$2 resume=$3 round tool n cpu full resumed note us order h2_us=() b_us=()
  printf '\n%s handshakes (%s rounds of -n %s, -c %s)\n' "$kind" "$ROUNDS" "$HANDSHAKES" "$CLIENTS"
  printf '%-6s %-8s %12s %12s  %s\n' round tool handshakes "cpu us/hs" "barrage's record"
  for round in $(seq "$ROUNDS"); do
    order=(h2load barrage)
    ((round % 2)) || order=(barrage h2load)
    for tool in "${order[@]}"; do
      note=''
      if [[ $tool == h2load ]]; then
        read -r n cpu <<<"$(handshake_h2load "$url")"
      else
        read -r n cpu full resumed <<<"$(handshake_barrage "$url" "$resume")"
        note="full $full, resumed $resumed"
        if { ((resume)) && ((resumed < n - CLIENTS)); } || { ((!resume)) && ((resumed > 0)); }; then note+=" (NOT all $kind)"; fi
      fi
      us=$(us_per_request "$cpu" "$n")
      if [[ $tool == h2load ]]; then h2_us+=("$us"); else b_us+=("$us"); fi
      printf '%-6s %-8s %12s %12s  %s\n' "$round" "$tool" "$n" "$us" "$note"
    done
  done
  local hm bm
  hm=$(printf '%s\n' "${h2_us[@]}" | median)
  bm=$(printf '%s\n' "${b_us[@]}" | median)
  printf '%-6s %-8s %12s %12s\n' median h2load - "$hm"
  printf '%-6s %-8s %12s %12s\n' median barrage - "$bm"
  printf 'ratio barrage/h2load (cpu us per %s handshake): %s\n' "$kind" "$(ratio "$bm" "$hm")"
  MEDIANS=("$hm" "$bm" "$(ratio "$bm" "$hm")")
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --handshakes) HANDSHAKES=$2; shift 2 ;;
      --clients) CLIENTS=$2; shift 2 ;;
      --insecure) VERIFY=(--insecure); shift ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light h2load:nghttp2-client taskset:util-linux jq:jq curl:curl make:make openssl:openssl || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage handshake bench.XXXX")
  [[ ${VERIFY[0]} == --insecure ]] || VERIFY=(--cacert "$WORKDIR/cert.pem")
  local full_port resume_port load_before
  full_port=$(free_port)
  resume_port=$(free_port)
  start_tls_nginx "$full_port" "$resume_port"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  log::info "nginx on core 0 (refusing resumption :$full_port, resuming :$resume_port); load tools on core 1"
  printf '%s, load average before %s, nginx %s, %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$load_before" \
    "$(nginx -v 2>&1 | sed 's/.*nginx\///')" "$(h2load --version | head -n 1)"

  local summary=()
  measure full "https://127.0.0.1:$full_port/" 0
  summary+=("$(printf '%-8s %10s %10s %6s' full "${MEDIANS[@]}")")
  measure resumed "https://127.0.0.1:$resume_port/" 1
  summary+=("$(printf '%-8s %10s %10s %6s' resumed "${MEDIANS[@]}")")

  printf '\nside by side: medians of %s rounds of -n %s, cpu us per handshake; load average after %s\n' \
    "$ROUNDS" "$HANDSHAKES" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-8s %10s %10s %6s\n' handshake h2load barrage ratio
  printf '%s\n' "${summary[@]}"
}

main "$@"
