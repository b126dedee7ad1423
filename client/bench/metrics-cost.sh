#!/usr/bin/env bash
# metrics-cost.sh: what --metrics-listen costs barrage, CPU per request with and without a scrape.
#
#   client/bench/metrics-cost.sh [--rounds N] [--duration SECONDS] [-c N]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) on a free
# 127.0.0.1 port pinned to core 0, then runs barrage pinned to core 1, -t 1 -c 50
# (or -c N) for the duration: without --metrics-listen (none), with it and never
# scraped (listen), and with it scraped by curl once a second (scraped), the order
# rotated each round so that drift and warm-up favour none. Prints per round and
# the median: requests/s and barrage's CPU microseconds per request (user + sys:
# the listener's thread and the once-a-second rendering included), each as a ratio
# to the run without, the scrapes served, the date and the load average (figures
# for client/README.md). Not part of run-tests.sh: speed is measured here, never
# asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
DURATION=5
CONNECTIONS=50
SCRAPER_PID=

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

stop_scraper() {
  if [[ -n $SCRAPER_PID ]]; then kill "$SCRAPER_PID" 2>/dev/null || true; wait "$SCRAPER_PID" 2>/dev/null || true; fi
  SCRAPER_PID=
}

# start_scraper PORT: a GET of /metrics once a second, at most DURATION + 5 times (it stops
# itself), each served scrape a line in $WORKDIR/scrapes; off core 1, where barrage runs
start_scraper() {
  : > "$WORKDIR/scrapes"
  (
    for _ in $(seq $((DURATION + 5))); do
      taskset -c 0 curl -fs -o /dev/null "http://127.0.0.1:$1/metrics" && echo ok >> "$WORKDIR/scrapes"
      sleep 1
    done
  ) &
  SCRAPER_PID=$!
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -c) CONNECTIONS=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  trap 'stop_scraper; cleanup' EXIT
  local port url
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  printf '%s, load average %s; nginx on core 0, barrage on core 1; -t 1 -c %s, %ss, %s rounds\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)" "$CONNECTIONS" "$DURATION" "$ROUNDS"
  printf '%-6s %-8s %12s %12s %10s %8s\n' round variant requests "requests/s" "cpu us/req" scrapes
  local -A us=() rps=()
  local variants=(none listen scraped) round i v req r cpu flags mport scrapes
  for round in $(seq "$ROUNDS"); do
    for i in 0 1 2; do
      v=${variants[$(((i + round) % 3))]}
      flags="-c $CONNECTIONS"
      scrapes=-
      if [[ $v != none ]]; then
        mport=$(free_port)
        flags+=" --metrics-listen 127.0.0.1:$mport"
      fi
      [[ $v == scraped ]] && start_scraper "$mport"
      read -r req r cpu <<<"$(run_barrage "$flags" "$url")"
      if [[ $v == scraped ]]; then
        stop_scraper
        scrapes=$(wc -l < "$WORKDIR/scrapes")
      fi
      us[$v]+="$(us_per_request "$cpu" "$req") "
      rps[$v]+="$r "
      printf '%-6s %-8s %12s %12.0f %10s %8s\n' "$round" "$v" "$req" "$r" "$(us_per_request "$cpu" "$req")" "$scrapes"
    done
  done
  local base m
  base=$(tr ' ' '\n' <<<"${us[none]}" | grep . | median)
  for v in "${variants[@]}"; do
    m=$(tr ' ' '\n' <<<"${us[$v]}" | grep . | median)
    printf '%-6s %-8s %12s %12.0f %10s   ratio to none %s\n' median "$v" - \
      "$(tr ' ' '\n' <<<"${rps[$v]}" | grep . | median)" "$m" "$(ratio "$m" "$base")"
  done
  printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

main "$@"
