#!/usr/bin/env bash
# rate-vs-h2load.sh: barrage at a fixed rate (-R) against barrage in closed loop
# and against h2load --rps and oha, on the same nginx: CPU per request and schedule lag.
#
#   client/bench/rate-vs-h2load.sh [--rounds N] [--duration SECONDS] [--rate N]
#                                  [--connections N] [--pace-resolution LIST] [--sweep]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) pinned to
# core 0; the load tools run pinned to core 1, one thread each, HTTP/1.1, -c N
# (default 50), in rounds whose order rotates (so drift and warm-up favour none):
#   closed   barrage -c N                (as fast as nginx answers)
#   fixed    barrage -c N -R RATE        (default 20000/s)
#   h2load   h2load --h1 -c N --rps RATE/N (h2load paces each connection)
#   oha      oha -c N -q RATE --latency-correction (when oha is on the PATH or in
#            ~/.cargo/bin: `cargo install oha --locked`; skipped with a note if not)
#   paced:T  barrage -c N -R RATE --pace-resolution T, for each T of --pace-resolution
#            LIST (comma-separated, e.g. 100us,1ms; none by default)
# Prints per round and the medians: requests/s, the tool's CPU microseconds per
# request (user + sys), barrage's schedule lag p50 and p99 and corrected latency p50
# (what a window adds to it); then the ratios fixed/closed
# (issue 11: at most 1.1), fixed/h2load and fixed/oha (at most 1.0). Each round also
# runs timer-floor.c (built here) on core 1: a bare timerfd loop at the rate, how late
# this machine wakes a sleeping thread; barrage's lag cannot be below it.
# Then the shape of each open-loop tool's load, one run each against a second
# nginx server that logs every request's millisecond ($msec): how many of the
# run's milliseconds saw a request and the busiest millisecond, against an even
# schedule's RATE/1000 per millisecond, and the share of requests sent in a millisecond
# that saw more than twice that (bursts). A tool that sends its requests in bursts
# wakes less often and pays less CPU per request for a different load (h2load's
# --rps: each connection on its own coarse timer; measured 2026-11-23 at 2,000/s,
# -c 50: 98% of its requests in bursts of 20+ in one millisecond, barrage and oha
# 2 or so in every millisecond).
# --sweep: also the highest rate each open-loop tool sustains on one thread:
# rates going up until barrage flags its target not delivered (rate.delivered)
# or h2load or oha achieves under 99% of it.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5
RATE=20000
CONNECTIONS=50
SWEEP=0
PACE_RESOLUTIONS=()

OHA=

usage() { sed -n '2,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# find_oha: sets OHA to oha's path if it is installed (never installs it)
find_oha() {
  OHA=$(command -v oha || true)
  if [[ -z $OHA && -x $HOME/.cargo/bin/oha ]]; then OHA=$HOME/.cargo/bin/oha; fi
  if [[ -z $OHA ]]; then log::info "oha not installed (cargo install oha --locked): compared with h2load only"; fi
}

# run_oha RATE URL: prints "requests rps cpu_seconds" (requests: responses plus errors)
run_oha() {
  local cpu
  cpu=$(timed oha "$OHA" --no-tui --output-format json -z "${DURATION}s" -c "$CONNECTIONS" -q "$1" \
    --latency-correction "$2")
  jq -r '"\(([.statusCodeDistribution[]] + [.errorDistribution[]?]) | add // 0) \(.summary.requestsPerSec)"' \
    "$WORKDIR/oha.out" | awk -v cpu="$cpu" '{print $1, $2, cpu}'
}

# one TOOL URL [RATE]: prints "requests rps cpu_seconds lag_p50_us lag_p99_us latency_p50_us"
# (lag and latency - but for barrage -R)
one() {
  local tool=$1 url=$2 rate=${3:-$RATE} line
  case $tool in
    closed) line=$(run_barrage "-c $CONNECTIONS" "$url"); echo "$line - - -" ;;
    fixed|paced:*)
      local flags="-c $CONNECTIONS -R $rate"
      [[ $tool == paced:* ]] && flags+=" --pace-resolution ${tool#paced:}"
      line=$(run_barrage "$flags" "$url")
      echo "$line $(jq -r '"\(.schedule_lag_us.p50) \(.schedule_lag_us.p99) \(.latency_us.p50)"' "$WORKDIR/barrage.out")" ;;
    h2load)
      line=$(run_h2load "--h1 -c $CONNECTIONS --rps $(awk -v r="$rate" -v c="$CONNECTIONS" 'BEGIN {printf "%g", r / c}')" "$url")
      echo "$line - - -" ;;
    oha) echo "$(run_oha "$rate" "$url") - - -" ;;
  esac
}

# the open-loop tools measured: barrage exact, barrage at each --pace-resolution, h2load, oha
open_loop_tools() {
  local t
  echo fixed
  for t in "${PACE_RESOLUTIONS[@]}"; do echo "paced:$t"; done
  echo h2load
  [[ -n $OHA ]] && echo oha
  return 0
}

compare_rate() {
  local url=$1 round i tool req rps cpu lag50 lag99 lat50 us
  local -A cpu_us=() rates=()
  local tools floors=
  mapfile -t tools < <(echo closed; open_loop_tools)
  printf '\nHTTP/1.1 -c %s, fixed rate %s/s (%s rounds of %ss)\n' "$CONNECTIONS" "$RATE" "$ROUNDS" "$DURATION"
  printf '%-6s %-12s %10s %12s %10s %10s %10s %10s\n' round tool requests "requests/s" "cpu us/req" \
    "lag p50" "lag p99" "lat p50"
  for round in $(seq "$ROUNDS"); do
    for i in "${!tools[@]}"; do
      tool=${tools[$(((i + round) % ${#tools[@]}))]}
      read -r req rps cpu lag50 lag99 lat50 <<<"$(one "$tool" "$url")"
      us=$(us_per_request "$cpu" "$req")
      cpu_us[$tool]+="$us "
      rates[$tool]+="$rps "
      printf '%-6s %-12s %10s %12.0f %10s %10s %10s %10s\n' "$round" "$tool" "$req" "$rps" "$us" "$lag50" "$lag99" "$lat50"
    done
    read -r lag50 _ lag99 _ <<<"$(taskset -c 1 "$WORKDIR/timer-floor" "$RATE" "$DURATION")"
    floors+="$lag99 "
    printf '%-6s %-12s %10s %12s %10s %10s %10s %10s\n' "$round" floor - - - "$lag50" "$lag99" -
  done
  local -A med=()
  for tool in "${tools[@]}"; do
    med[$tool]=$(xargs -n1 <<<"${cpu_us[$tool]}" | median)
    printf '%-6s %-12s %10s %12.0f %10s\n' median "$tool" - "$(xargs -n1 <<<"${rates[$tool]}" | median)" "${med[$tool]}"
  done
  printf 'timer floor (a bare timerfd loop at %s/s): wake-up lateness p99 %s us (median of rounds)\n' "$RATE" \
    "$(xargs -n1 <<<"$floors" | median)"
  printf 'ratio fixed/closed (cpu us per request): %s  (target <= 1.1)\n' \
    "$(ratio "${med[fixed]}" "${med[closed]}")"
  for tool in h2load oha; do
    [[ -n ${med[$tool]:-} ]] || continue
    printf 'ratio fixed/%s (cpu us per request): %s  (target <= 1.0)\n' "$tool" \
      "$(ratio "${med[fixed]}" "${med[$tool]}")"
  done
  for tool in "${tools[@]}"; do
    [[ $tool == paced:* ]] || continue
    printf 'ratio %s/closed %s' "$tool" "$(ratio "${med[$tool]}" "${med[closed]}")"
    [[ -n ${med[oha]:-} ]] && printf ', %s/oha %s (issue 24: at most 0.5 at oha'"'"'s 1ms)' "$tool" \
      "$(ratio "${med[$tool]}" "${med[oha]}")"
    printf '\n'
  done
}

# shape URL LOG: for each open-loop tool, one run against URL (whose nginx server writes
# each request's $msec to LOG): milliseconds of the run with a request, and the busiest one
shape() {
  local url=$1 log=$2 tool req rps cpu lag
  local tools
  mapfile -t tools < <(open_loop_tools)
  printf '
shape of the load at %s/s (-c %s, %ss; an even schedule: %s per ms in every ms)
' "$RATE" \
    "$CONNECTIONS" "$DURATION" "$(awk -v r="$RATE" 'BEGIN {printf "%g", r / 1000}')"
  printf '%-12s %10s %18s %12s %14s
' tool requests "ms with requests" "busiest ms" "in bursts >2x"
  for tool in "${tools[@]}"; do
    : >"$log"
    read -r req rps cpu lag <<<"$(one "$tool" "$url")"
    sleep 0.2 # nginx writes the last lines
    # the window: first to last request's millisecond; a burst: a millisecond with more than
    # twice the even schedule's share (RATE/1000)
    awk -v tool="$tool" -v even="$(awk -v r="$RATE" 'BEGIN {print r / 1000}')" \
      '{ms = $1; n[ms]++; if (first == "" || ms < first) first = ms; if (ms > last) last = ms}
      END {for (k in n) {used++; if (n[k] > peak) peak = n[k]; total += n[k]; if (n[k] > 2 * even) burst += n[k]}
           printf "%-12s %10d %17.1f%% %12d %13.1f%%\n", tool, total, 100 * used / ((last - first) * 1000 + 1), peak,
             100 * burst / (total ? total : 1)}' "$log"
  done
}

# sweep URL: the highest rate (in steps of 10,000/s) each open-loop tool sustains on one thread
sweep() {
  local url=$1 rate req rps cpu lag tool barrage_max=-
  local -A peer_max=([h2load]=- [oha]=-)
  printf '\nhighest rate sustained on one thread (-c %s, %ss per step)\n' "$CONNECTIONS" "$DURATION"
  for rate in $(seq 10000 10000 200000); do
    read -r req rps cpu lag <<<"$(one fixed "$url" "$rate")"
    [[ $(jq -r '.rate.delivered' "$WORKDIR/barrage.out") == true ]] || break
    barrage_max=$rate
    printf 'barrage %7s/s delivered (lag p99 %s us)\n' "$rate" "$lag"
  done
  for tool in h2load oha; do
    [[ $tool == oha && -z $OHA ]] && continue
    for rate in $(seq 10000 10000 200000); do
      read -r req rps cpu lag <<<"$(one "$tool" "$url" "$rate")"
      awk -v a="$rps" -v r="$rate" 'BEGIN {exit !(a >= 0.99 * r)}' || break
      peer_max[$tool]=$rate
      printf '%-7s %7s/s achieved %.0f/s\n' "$tool" "$rate" "$rps"
    done
  done
  printf 'highest sustained: barrage %s/s, h2load %s/s, oha %s/s\n' "$barrage_max" "${peer_max[h2load]}" \
    "${peer_max[oha]}"
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      --rate) RATE=$2; shift 2 ;;
      --connections) CONNECTIONS=$2; shift 2 ;;
      --pace-resolution) IFS=, read -r -a PACE_RESOLUTIONS <<<"$2"; shift 2 ;;
      --sweep) SWEEP=1; shift ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light h2load:nghttp2-client taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  find_oha
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage rate bench.XXXX")
  "${CC:-cc}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$WORKDIR/timer-floor" \
    "$ROOT/client/bench/timer-floor.c" || log::die "timer-floor.c does not build"
  local port url shape_port
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  shape_port=$(free_port)
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }
  log_format arrival '\$msec';
  server { listen 127.0.0.1:$shape_port; access_log \"$WORKDIR/arrivals.log\" arrival;
    location / { return 200 \"Hello world\"; } }" "$url"
  log::info "nginx on core 0 at $url; load tools on core 1"
  compare_rate "$url"
  shape "http://127.0.0.1:$shape_port/" "$WORKDIR/arrivals.log"
  if ((SWEEP)); then sweep "$url"; fi
}

main "$@"
