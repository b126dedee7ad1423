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
# a header (target: barrage <= 0.7x wrk), against the same response and against one that
# carries the headers a production response typically does (15: caching, security, a cookie,
# a request id), where wrk's table per response costs the most. Prints per round and the
# median: requests/s and CPU microseconds per request (user + sys of the tool), and the
# ratio barrage / wrk.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
DURATION=5

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# production_headers_server URL: an nginx server block at URL's port answering "Hello world"
# with the headers a production response typically carries (15 with nginx's own).
production_headers_server() {
  local port=${1##*:}
  port=${port%/}
  cat <<CONF
  server { listen 127.0.0.1:$port;
    location / {
      add_header Cache-Control "no-cache, no-store, must-revalidate" always;
      add_header X-Content-Type-Options nosniff always;
      add_header X-Frame-Options DENY always;
      add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;
      add_header Referrer-Policy no-referrer always;
      add_header Content-Security-Policy "default-src 'self'" always;
      add_header X-Request-Id 4f2a9c1e-5b7d-4e3a-9f1c-2d8e6b0a7c3f always;
      add_header Vary Accept-Encoding always;
      add_header ETag '"5f3c-1a2b"' always;
      add_header Set-Cookie "session=abc123; Path=/; HttpOnly" always;
      return 200 "Hello world";
    }
  }
CONF
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
  deps::ensure nginx:nginx-light wrk:wrk taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  local port url scripts headers_url
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  headers_url="http://127.0.0.1:$(free_port)/"
  scripts=$ROOT/client/bench/scripts
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }
$(production_headers_server "$headers_url")" "$url"
  log::info "nginx on core 0 at $url; load tools on core 1; -c 50, ${DURATION}s, $ROUNDS rounds"

  compare "request() returns a prebuilt string" wrk "-s $scripts/prebuilt.lua" "-c 50 -s $scripts/prebuilt.lua" \
    "$url" "target <= 1.0"
  compare "response() defined" wrk "-s $scripts/response.lua" "-c 50 -s $scripts/response.lua" "$url" \
    "target <= 0.7"
  compare "response() defined, 15 response headers" wrk "-s $scripts/response.lua" \
    "-c 50 -s $scripts/response.lua" "$headers_url" "target <= 0.7"
}

main "$@"
