# common.sh: what the bench scripts share, sourced by them: nginx pinned to core 0
# for the run, a load tool timed on core 1, and a round-by-round comparison of
# barrage with another tool. The sourcing script sets ROUNDS and DURATION, then
# WORKDIR and BARRAGE before it calls start_nginx or compare.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=SCRIPTDIR/../../lib/deps.sh
source "$ROOT/lib/deps.sh"

NGINX_PID=
WORKDIR=
BARRAGE=

cleanup() {
  if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  if [[ -n $WORKDIR ]]; then rm -rf "$WORKDIR"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

# start_nginx SERVERS PROBE_URL: nginx (one worker, access log off) with SERVERS
# inside its http block, pinned to core 0; returns once PROBE_URL answers.
start_nginx() {
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
$1
}
CONF
  taskset -c 0 nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" &
  NGINX_PID=$!
  for _ in $(seq 50); do
    curl -fsk "$2" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  log::die "nginx did not start (see $WORKDIR/error.log)"
}

# timed NAME CMD...: runs CMD on core 1, stdout to $WORKDIR/NAME.out and stderr to
# $WORKDIR/NAME.err; prints its user + sys seconds. The tool's stderr never reaches the
# file the time is read from, so a tool that prints a warning does not become its CPU time.
timed() {
  local name=$1 TIMEFORMAT='%3U %3S'
  shift
  { time taskset -c 1 "$@" > "$WORKDIR/$name.out" 2> "$WORKDIR/$name.err"; } 2> "$WORKDIR/$name.time"
  awk 'END {print $1 + $2}' "$WORKDIR/$name.time"
}

# run_h2load FLAGS URL: prints "requests rps cpu_seconds"
run_h2load() {
  local cpu
  # shellcheck disable=SC2086 # FLAGS is a list of options
  cpu=$(timed h2load h2load -t 1 $1 -D "$DURATION" "$2")
  awk -v cpu="$cpu" '/^requests:/ {req = $8} /^finished in/ {rps = $4} END {print req, rps, cpu}' \
    "$WORKDIR/h2load.out"
}

# run_wrk FLAGS URL: prints "requests rps cpu_seconds" (FLAGS: e.g. "-s script.lua")
run_wrk() {
  local cpu
  # shellcheck disable=SC2086 # FLAGS is a list of options
  cpu=$(timed wrk wrk -t 1 -c 50 $1 -d "${DURATION}s" "$2")
  awk -v cpu="$cpu" '/requests in/ {req = $1} /^Requests\/sec:/ {rps = $2} END {print req, rps, cpu}' \
    "$WORKDIR/wrk.out"
}

# run_barrage FLAGS URL: prints "requests rps cpu_seconds"; https:// verifies with $WORKDIR/cert.pem
run_barrage() {
  local cpu tls=()
  [[ $2 == https://* ]] && tls=(--cacert "$WORKDIR/cert.pem")
  # shellcheck disable=SC2086 # FLAGS is a list of options
  cpu=$(timed barrage "$BARRAGE" -t 1 $1 "${tls[@]}" -d "${DURATION}s" --json "$2")
  echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage.out") $cpu"
}

median() { sort -g | awk '{v[NR]=$1} END {printf "%.2f\n", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

us_per_request() { awk -v c="$1" -v n="$2" 'BEGIN {printf "%.2f", (n > 0 ? c * 1e6 / n : 0)}'; }

# ratio A B: A / B to two decimals (0 when B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

# compare TITLE OTHER_TOOL OTHER_FLAGS BARRAGE_FLAGS URL TARGET: ROUNDS rounds of
# OTHER_TOOL (h2load with OTHER_FLAGS, or wrk -c 50 with OTHER_FLAGS) and barrage, the other tool first in odd
# rounds and barrage first in even ones (so drift and warm-up do not favour one), and the medians;
# leaves them in COMPARED (other tool's median, barrage's, the ratio) for a summary
# shellcheck disable=SC2034 # read by the sourcing script
COMPARED=()
compare() {
  local title=$1 other=$2 other_flags=$3 barrage_flags=$4 url=$5 target=$6
  local round tool line req rps cpu order other_us=() barrage_us=() other_rps=() barrage_rps=()
  printf '\n%s (%s rounds of %ss)\n' "$title" "$ROUNDS" "$DURATION"
  printf '%-6s %-8s %12s %12s %10s\n' round tool requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    order=("$other" barrage)
    ((round % 2)) || order=(barrage "$other")
    for tool in "${order[@]}"; do
      case $tool in
        barrage) line=$(run_barrage "$barrage_flags" "$url") ;;
        h2load) line=$(run_h2load "$other_flags" "$url") ;;
        *) line=$(run_wrk "$other_flags" "$url") ;;
      esac
      read -r req rps cpu <<<"$line"
      if [[ $tool == barrage ]]; then
        barrage_us+=("$(us_per_request "$cpu" "$req")")
        barrage_rps+=("$rps")
      else
        other_us+=("$(us_per_request "$cpu" "$req")")
        other_rps+=("$rps")
      fi
      printf '%-6s %-8s %12s %12.0f %10s\n' "$round" "$tool" "$req" "$rps" "$(us_per_request "$cpu" "$req")"
    done
  done
  local om bm
  om=$(printf '%s\n' "${other_us[@]}" | median)
  bm=$(printf '%s\n' "${barrage_us[@]}" | median)
  printf '%-6s %-8s %12s %12.0f %10s\n' median "$other" - "$(printf '%s\n' "${other_rps[@]}" | median)" "$om"
  printf '%-6s %-8s %12s %12.0f %10s\n' median barrage - "$(printf '%s\n' "${barrage_rps[@]}" | median)" "$bm"
  printf 'ratio barrage/%s (cpu us per request): %s  (%s)\n' "$other" \
    "$(ratio "$bm" "$om")" "$target"
  # shellcheck disable=SC2034 # read by the sourcing script
  COMPARED=("$om" "$bm" "$(ratio "$bm" "$om")")
}
