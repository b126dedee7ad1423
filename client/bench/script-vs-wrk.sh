#!/usr/bin/env bash
# script-vs-wrk.sh: barrage against wrk running the same Lua script on the same nginx, CPU cost
# per request.
#
#   client/bench/script-vs-wrk.sh [--rounds N] [--duration SECONDS]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) on a free 127.0.0.1 port
# pinned to core 0, then runs wrk and barrage in turn pinned to core 1, each -t 1 -c 50 -s SCRIPT
# for the duration, several rounds, the order alternating (common.sh's compare). Scripts
# (client/bench/scripts/): prebuilt.lua, request() returning a string built in init (target:
# barrage <= 1.0x wrk), and response.lua, the same with a response() that reads the status and
# a header (target: barrage <= 0.7x wrk). Prints per round and the median: requests/s and CPU
# microseconds per request (user + sys of the tool), and the ratio barrage / wrk.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
DURATION=5

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light wrk:wrk taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  local port url scripts
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  scripts=$ROOT/client/bench/scripts
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  log::info "nginx on core 0 at $url; load tools on core 1; -c 50, ${DURATION}s, $ROUNDS rounds"

  compare "request() returns a prebuilt string" wrk "-s $scripts/prebuilt.lua" "-c 50 -s $scripts/prebuilt.lua" \
    "$url" "target <= 1.0"
  compare "response() defined" wrk "-s $scripts/response.lua" "-c 50 -s $scripts/response.lua" "$url" \
    "target <= 0.7"
}

main "$@"
