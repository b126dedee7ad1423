#!/usr/bin/env bash
# barrage driver (interface: lib/tools/README.md). The bundled C load engine (client/),
# built here with make when needed. HTTP/1.1 and h2c (prior knowledge, the scenario's stream
# count per connection); one request shape per run, so scenarios that rotate several
# requests (mixed) wait for Lua scripting.
# `barrage --json` prints the metrics record itself: nothing is parsed out of text.
#
#   barrage::build
#     Builds client/build/barrage (make; installs its libraries, LuaJIT included, as root when missing);
#     returns 1 with make's output on stderr when it cannot.
#   barrage::parse OUTPUT_FILE
#     Prints the metrics record of a barrage --json run; returns 1 (message on stderr
#     quoting barrage) when the output holds none, e.g. the target was unreachable.
# Depends on lib/log.sh, lib/deps.sh, lib/scenarios.sh, lib/tools.sh.

BARRAGE_CLIENT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/client
BARRAGE_BIN=$BARRAGE_CLIENT_DIR/build/barrage

barrage::build() {
  deps::ensure make:make cc:gcc pkg-config:pkg-config || return 1
  deps::ensure_pkgconfig /usr/include/ev.h:libev-dev /usr/include/nghttp2/nghttp2.h:libnghttp2-dev \
    /usr/include/openssl/ssl.h:libssl-dev luajit:libluajit-5.1-dev /usr/include/zlib.h:zlib1g-dev || return 1
  make -s -C "$BARRAGE_CLIENT_DIR" >&2 || { log::error "barrage does not build (make -C client)"; return 1; }
}

barrage::version() {
  [[ -x $BARRAGE_BIN ]] || barrage::build >/dev/null 2>&1 || return 1
  # "barrage 0.1.0"
  "$BARRAGE_BIN" --version | awk 'NR == 1 {print $2; exit}'
}

barrage::requires() { printf '%s\n' make:make cc:gcc pkg-config:pkg-config; }

barrage::protocols() { printf '%s\n' h1 h2c; }

barrage::request_timeout_s() { echo 2; }

barrage::supports() {
  local scenario=$1 protocol=$2
  if [[ $protocol != h1 && $protocol != h2c ]]; then
    printf 'barrage speaks h1 and h2c here (no %s)\n' "$protocol"
    return 1
  fi
  if scenarios::rotates "$scenario"; then
    printf 'barrage sends one request shape per run until Lua scripting arrives; %s rotates several\n' "$scenario"
    return 1
  fi
}

barrage::parse() {
  local output=$1
  if ! jq -ce 'select(type == "object" and .accounting != null)' "$output" 2>/dev/null; then
    log::error "barrage printed no metrics record: $(grep -vE '^\s*$' "$output" | head -n 3 | tr '\n' ' ')"
    return 1
  fi
}

barrage::run() {
  local out_json=$1 work_dir=$2 base_url=$3 protocol=$4 scenario=$5 threads=$6 connections=$7
  local streams=$8 duration=$9 warmup=${10} cpulist=${11} body rc=0
  barrage::build || return 1
  ((threads <= connections)) || threads=$connections
  local args=(-t "$threads" -c "$connections" -d "${duration}s" --timeout "$(barrage::request_timeout_s)s" --json
    -X "$(scenarios::field "$scenario" method)")
  [[ $protocol == h2c ]] && args+=(--h2 -m "${streams:-1}")
  ((warmup > 0)) && args+=(--warmup "${warmup}s")
  body=$(scenarios::body_file "$scenario")
  [[ -n $body ]] && args+=(-B "$body" -H 'Content-Type: application/json')
  # barrage ends by itself after warm-up + duration + its 2 s grace; the limit is a backstop
  tools::exec "$work_dir/barrage.json" $((warmup + duration + 30)) "$cpulist" \
    "$BARRAGE_BIN" "${args[@]}" "${base_url%/}$(scenarios::field "$scenario" endpoint)" || rc=$?
  ((rc == 0)) || log::warn "barrage exited $rc"
  barrage::parse "$work_dir/barrage.json" >"$out_json"
}
