#!/usr/bin/env bash
# h3-vs-h2.sh: barrage --h3 (HTTP/3 over QUIC) against barrage --h2 (HTTP/2
# over TLS) on the same server: CPU cost per request.
#
#   client/bench/h3-vs-h2.sh --url https://HOST:PORT/PATH [--cacert FILE | --insecure]
#                            [--rounds N] [--duration SECONDS] [-c N] [-m N]
#
# The server must speak HTTP/2 over TLS on TCP and HTTP/3 on UDP at the same
# host and port (the suite's h3 servers, Caddy, nginx built with http_v3):
# Debian 12's nginx has no HTTP/3, so this script starts no server of its
# own. barrage runs pinned to core 1 (keep the server off it), one thread,
# -c 10 -m 10 by default, both protocols in turn (h2 first in odd rounds, h3
# first in even ones) for several rounds of the duration. Prints per round and
# the median: requests/s and barrage's CPU microseconds per request (user +
# sys), and the ratio h3 / h2. QUIC does in user space what TCP and TLS
# records do in the kernel and OpenSSL, so a ratio above 1 is expected; the
# figure says by how much, on this machine, for this server.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5
CONNECTIONS=10
STREAMS=10

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# run_protocol PROTO TLS_FLAGS URL: prints "requests rps cpu_seconds"
run_protocol() {
  local cpu
  # shellcheck disable=SC2086 # TLS_FLAGS is a list of options
  cpu=$(timed "barrage-$1" "$BARRAGE" "--$1" -t 1 -c "$CONNECTIONS" -m "$STREAMS" $2 -d "${DURATION}s" --json "$3")
  echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage-$1.out") $cpu"
}

main() {
  local url="" tls_flags=""
  while (($#)); do
    case $1 in
      --url) url=$2; shift 2 ;;
      --cacert) tls_flags="--cacert $2"; shift 2 ;;
      --insecure) tls_flags="--insecure"; shift ;;
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -c) CONNECTIONS=$2; shift 2 ;;
      -m) STREAMS=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  [[ $url == https://* ]] || { log::error "--url https://... is required"; usage >&2; return 2; }
  deps::ensure taskset:util-linux jq:jq make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  "$BARRAGE" --version | grep -q ' h3 ' || log::die "barrage was built without HTTP/3 (see client/README.md, HTTP/3)"
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage h3 bench.XXXX")

  local round proto line req rps cpu order h2_us=() h3_us=() h2_rps=() h3_rps=()
  printf '\nh3 vs h2 -c %s -m %s @ %s (%s rounds of %ss)\n' "$CONNECTIONS" "$STREAMS" "$url" "$ROUNDS" "$DURATION"
  printf '%-6s %-6s %12s %12s %10s\n' round proto requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    order=(h2 h3)
    ((round % 2)) || order=(h3 h2)
    for proto in "${order[@]}"; do
      line=$(run_protocol "$proto" "$tls_flags" "$url")
      read -r req rps cpu <<<"$line"
      if [[ $proto == h3 ]]; then
        h3_us+=("$(us_per_request "$cpu" "$req")")
        h3_rps+=("$rps")
      else
        h2_us+=("$(us_per_request "$cpu" "$req")")
        h2_rps+=("$rps")
      fi
      printf '%-6s %-6s %12s %12.0f %10s\n' "$round" "$proto" "$req" "$rps" "$(us_per_request "$cpu" "$req")"
    done
  done
  local m2 m3
  m2=$(printf '%s\n' "${h2_us[@]}" | median)
  m3=$(printf '%s\n' "${h3_us[@]}" | median)
  printf '%-6s %-6s %12s %12.0f %10s\n' median h2 - "$(printf '%s\n' "${h2_rps[@]}" | median)" "$m2"
  printf '%-6s %-6s %12s %12.0f %10s\n' median h3 - "$(printf '%s\n' "${h3_rps[@]}" | median)" "$m3"
  printf 'ratio h3/h2 (barrage cpu us per request): %s\n' \
    "$(awk -v a="$m3" -v b="$m2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
}

main "$@"
