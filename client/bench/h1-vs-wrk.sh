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

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5
LONG=0

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

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
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  log::info "nginx on core 0 at $url; load tools on core 1; -c 50, ${DURATION}s, $ROUNDS rounds"

  compare "HTTP/1.1 -c 50" wrk "" "-c 50" "$url" "target <= 1.0, goal 0.75"

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
