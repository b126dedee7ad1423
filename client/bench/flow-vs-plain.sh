#!/usr/bin/env bash
# flow-vs-plain.sh: the CPU cost per request of a four-step --flow against the same chain in a Lua
# script and against the same four requests sent plainly (--urls), on the same nginx.
#
#   client/bench/flow-vs-plain.sh [--rounds N] [--duration SECONDS]
#
# Starts nginx (one worker, access log off) on a free 127.0.0.1 port pinned to core 0, answering
# POST /items with 201, a Location and {"id": 7}, GET and PATCH /items/7 with 200 and a JSON body,
# DELETE with 204. Then runs barrage pinned to core 1, -t 1 -c 50 for the duration, three ways, in
# an order that rotates round by round: plain (--urls with the four requests, bodies from files),
# flow (the chain of FLOWS.md: captures from the Location header and the JSON body, ${user} and
# ${seq} in header and body, expect lines on every step, 50 users) and script (the same chain in
# Lua with per-connection tables, bench/scripts/chain.lua). Prints per round and the medians:
# requests/s and CPU microseconds per request (user + sys), and the ratios flow / plain (target:
# within 1.3x) and flow / script.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
DURATION=5

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# api_server PORT: the nginx server block of the chain's four answers.
api_server() {
  cat <<CONF
  server { listen 127.0.0.1:$1;
    default_type application/json;
    location = /items {
      add_header Location /items/7 always;
      return 201 '{"id": 7}';
    }
    location /items/ {
      if (\$request_method = DELETE) { return 204; }
      return 200 '{"id": 7, "name": "ann"}';
    }
  }
CONF
}

# write_inputs DIR: the --urls list, its bodies and the flow
write_inputs() {
  printf '{"user": 1, "name": "ann"}' > "$1/item.json"
  printf '{"seq": 1}' > "$1/patch.json"
  printf 'POST /items @item.json\nGET /items/7\nPATCH /items/7 @patch.json\nDELETE /items/7\n' > "$1/chain.urls"
  cat > "$1/chain.flow" <<'FLOW'
POST /items
  Content-Type: application/json
  X-User: ${user}
  body {"user": ${user}, "name": "ann"}
  expect 201
  capture item = header:Location
  capture id = json:/id
GET ${item}
  expect 200
PATCH /items/${id}
  Content-Type: application/json
  body {"seq": ${seq}}
  expect 200
DELETE /items/${id}
  expect 204
FLOW
}

# run WAY URL: prints "requests rps cpu_seconds" of barrage run that way (in WORKDIR, whose name
# has a blank: the flags name its files relatively)
run() {
  case $1 in
    plain) run_barrage "-c 50 --urls chain.urls -H Content-Type:application/json" "$2" ;;
    flow) run_barrage "-c 50 --flow chain.flow" "$2" ;;
    script) run_barrage "-c 50 -s $ROOT/client/bench/scripts/chain.lua" "$2" ;;
  esac
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
  deps::ensure nginx:nginx-light taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  local port url round way line req rps cpu ways=(plain flow script) order
  declare -A us=() rate=()
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  write_inputs "$WORKDIR"
  start_nginx "$(api_server "$port")" "${url}items/7"
  cd "$WORKDIR"
  log::info "nginx on core 0 at $url; barrage on core 1; -c 50, ${DURATION}s, $ROUNDS rounds"
  printf '%s, %s rounds of %ss\n' "$(date -u +%Y-%m-%d)" "$ROUNDS" "$DURATION"
  printf '%-6s %-8s %12s %12s %10s\n' round way requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    order=("${ways[@]:$(((round - 1) % 3))}" "${ways[@]:0:$(((round - 1) % 3))}")
    for way in "${order[@]}"; do
      line=$(run "$way" "$url")
      read -r req rps cpu <<<"$line"
      # jq 1.6's -e passes an empty file: the answer is compared instead
      [[ $way != flow || $(jq -r '.unexpected == 0 and .flow.capture_failed == 0 and .flow.completed > 0' \
        barrage.out) == true ]] || log::warn "round $round: the flow did not run clean: $(jq -c '{unexpected, flow}' barrage.out)"
      us[$way]+="$(us_per_request "$cpu" "$req") "
      rate[$way]+="$rps "
      printf '%-6s %-8s %12s %12.0f %10s\n' "$round" "$way" "$req" "$rps" "$(us_per_request "$cpu" "$req")"
    done
  done
  local -A med=()
  for way in "${ways[@]}"; do
    med[$way]=$(tr ' ' '\n' <<<"${us[$way]}" | grep . | median)
    printf '%-6s %-8s %12s %12.0f %10s\n' median "$way" - "$(tr ' ' '\n' <<<"${rate[$way]}" | grep . | median)" \
      "${med[$way]}"
  done
  printf 'ratio flow/plain (cpu us per request): %s  (target <= 1.3)\n' "$(ratio "${med[flow]}" "${med[plain]}")"
  printf 'ratio flow/script (cpu us per request): %s\n' "$(ratio "${med[flow]}" "${med[script]}")"
}

main "$@"
