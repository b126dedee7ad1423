#!/usr/bin/env bash
# barrage driver (interface: lib/tools/README.md). The bundled C load engine (client/),
# built here with make when needed. HTTP/1.1, h2c (prior knowledge, the scenario's stream
# count per connection), h1s and h2 (HTTP/1.1 and HTTP/2 over TLS, by ALPN: --h1 / --h2 on
# the https:// url) and h3 (HTTP/3 over QUIC, in a build with Debian's QUIC libraries); over
# TLS the spec's cacert is the CA that verifies the server's certificate (lib/certs.sh), running scenarios/<name>.lua as wrk does (barrage -s: the wrk
# scripting API, client/SCRIPTING.md), so every scenario runs, mixed included.
# `barrage --json` prints the metrics record itself: nothing is parsed out of text. The raw
# output (barrage.json in the work dir) holds the record on stdout and, on stderr, what the
# script printed (json-report.lua's done() line, wrk's record format) and barrage's messages.
#
#   barrage::build
#     Builds client/build/barrage (make; installs its libraries, LuaJIT included, as root when missing);
#     returns 1 with make's output on stderr when it cannot. The QUIC libraries are installed
#     when they can be (as root); without them barrage builds without HTTP/3, with a warning.
#   barrage::has_h3
#     0 when the built barrage speaks HTTP/3 (its --version lists h3).
#   barrage::parse OUTPUT_FILE
#     Prints the metrics record of a barrage --json run: the object that starts on a line
#     holding only `{` and has "tool": "barrage" (lines a script printed are skipped);
#     returns 1 (message on stderr quoting barrage) when the output holds none, e.g. the
#     target was unreachable.
# barrage::run reads two keys of the run spec besides those every driver reads: start_at (ms
# since the epoch; barrage begins then, --start-at: a lab's load hosts start together) and
# barrage_bin (a barrage built elsewhere and copied, as on a lab's load host: run as it is,
# nothing built). Depends on lib/log.sh, lib/deps.sh, lib/scenarios.sh, lib/tools.sh.

BARRAGE_CLIENT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/client
BARRAGE_BIN=$BARRAGE_CLIENT_DIR/build/barrage

# the Debian 12 packages barrage's --h3 is built with (client/Makefile checks their versions)
BARRAGE_H3_PACKAGES=(libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev)

barrage::build() {
  deps::ensure make:make cc:gcc pkg-config:pkg-config || return 1
  deps::ensure_pkgconfig /usr/include/ev.h:libev-dev /usr/include/nghttp2/nghttp2.h:libnghttp2-dev \
    /usr/include/openssl/ssl.h:libssl-dev luajit:libluajit-5.1-dev /usr/include/zlib.h:zlib1g-dev || return 1
  # HTTP/3 is optional: everything else measures without it
  if ! deps::ensure_packages "${BARRAGE_H3_PACKAGES[@]}" 2>/dev/null; then
    log::warn "barrage builds without HTTP/3 (--protocol h3): sudo apt-get install -y ${BARRAGE_H3_PACKAGES[*]}"
  fi
  make -s -C "$BARRAGE_CLIENT_DIR" >&2 || { log::error "barrage does not build (make -C client)"; return 1; }
}

barrage::has_h3() {
  local built
  [[ -x $BARRAGE_BIN ]] || barrage::build >/dev/null 2>&1 || return 1
  # "protocols: http/1.1 h2c h2 h3 (ngtcp2 ..., nghttp3 ...)", or "... h2 (no h3: built without ...)"
  built=$("$BARRAGE_BIN" --version 2>/dev/null | sed -n 's/^protocols: \([^(]*\).*/\1/p')
  [[ " $built " == *" h3 "* ]]
}

barrage::version() {
  [[ -x $BARRAGE_BIN ]] || barrage::build >/dev/null 2>&1 || return 1
  # "barrage 0.1.0"
  "$BARRAGE_BIN" --version | awk 'NR == 1 {print $2; exit}'
}

barrage::requires() { printf '%s\n' make:make cc:gcc pkg-config:pkg-config; }

barrage::protocols() { printf '%s\n' h1 h2c h1s h2 h3; }

barrage::request_timeout_s() { echo 2; }

# warmup: --warmup auto (the server warm-up until steady state); timeline: a per-second series
# (row drift); rate, stages: -R and --rate-stages (fixed-rate runs, capacity searches, ramps);
# multihost: several load hosts started together (--start-at), their records merged exactly.
# churn, idle: the scenarios' connection modes (scenarios.tsv's connection column:
# --requests-per-connection, --tls-resume, --idle-connections); websocket: ws:N scenarios (ws://).
barrage::capabilities() { printf '%s\n' warmup timeline rate stages multihost churn idle websocket; }

barrage::supports() {
  local protocol=$2
  [[ $protocol == h1 || $protocol == h2c || $protocol == h1s || $protocol == h2 ]] && return 0
  if [[ $protocol == h3 ]]; then
    barrage::has_h3 && return 0
    printf 'barrage was built without HTTP/3: install %s (make -C client then builds it with HTTP/3)\n' "${BARRAGE_H3_PACKAGES[*]}"
    return 1
  fi
  printf 'barrage speaks h1, h2c, h1s, h2 and h3 here (no %s)\n' "$protocol"
  return 1
}

barrage::parse() {
  local output=$1 record
  # barrage prints its record from a line "{" to a line "}"; a script's own lines never start one
  record=$(awk '/^\{$/ {take = 1; text = ""} take {text = text $0 "\n"} /^\}$/ && take {last = text; take = 0}
                END {printf "%s", last}' "$output" | jq -c 'select(type == "object" and .tool == "barrage")' 2>/dev/null)
  if [[ -n $record ]]; then
    printf '%s\n' "$record"
  else
    log::error "barrage printed no metrics record: $(grep -vE '^\s*$' "$output" | head -n 3 | tr '\n' ' ')"
    return 1
  fi
}

barrage::run() {
  local -n barrage_spec=$1
  local work_dir=${barrage_spec[dir]} scenario=${barrage_spec[scenario]} threads=${barrage_spec[threads]}
  local connections=${barrage_spec[connections]} duration=${barrage_spec[duration_s]} warmup=${barrage_spec[warmup_s]}
  local rate=${barrage_spec[rate]:-} start_at=${barrage_spec[start_at]:-} bin=${barrage_spec[barrage_bin]:-} rc=0
  if [[ -n $bin ]]; then
    [[ -x $bin ]] || { log::error "no barrage binary at $bin"; return 1; }
  else
    barrage::build || return 1
    bin=$BARRAGE_BIN
  fi
  ((threads <= connections)) || threads=$connections
  # the scenario's script sets method, path, headers and body, as under wrk; a WebSocket one
  # sends messages to the endpoint's echo (ws:// for http://), -m in flight
  local args=(-t "$threads" -c "$connections" -d "${duration}s" --timeout "$(barrage::request_timeout_s)s" --json)
  local url=${barrage_spec[url]%/}/
  if scenarios::websocket "$scenario"; then
    url=ws${url#http}
    url=${url%/}$(scenarios::field "$scenario" endpoint)
    args+=(-m "${barrage_spec[streams]:-1}")
  else
    args+=(-s "$(scenarios::script "$scenario")")
  fi
  case ${barrage_spec[protocol]} in
    h2c) args+=(--h2 -m "${barrage_spec[streams]:-1}") ;;
    # TLS over TCP (an https:// url): ALPN offers http/1.1 only (--h1), or h2 (--h2)
    h1s) args+=(--h1 --cacert "${barrage_spec[cacert]}") ;;
    h2) args+=(--h2 -m "${barrage_spec[streams]:-1}" --cacert "${barrage_spec[cacert]}") ;;
    h3) args+=(--h3 -m "${barrage_spec[streams]:-1}" --cacert "${barrage_spec[cacert]}") ;;
  esac
  # the scenario's connection mode: churn (N requests a connection, TLS resumption), idle connections
  mapfile -t -O "${#args[@]}" args < <(scenarios::connection_args "$scenario" "${barrage_spec[protocol]}")
  if [[ -n ${barrage_spec[warmup_auto]:-} ]]; then args+=(--warmup "auto:${warmup}s") # lib/steady.sh
  elif ((warmup > 0)); then args+=(--warmup "${warmup}s"); fi
  # --metrics (lib/prom.sh): this machine's barrage serves its figures to the run's Prometheus,
  # and lingers until the final ones are scraped (at most 3 s: the scrape interval is 1 s)
  if [[ -n ${PROM_BARRAGE_LISTEN:-} && -z ${barrage_spec[barrage_bin]:-} ]]; then
    args+=(--metrics-listen "$PROM_BARRAGE_LISTEN" --metrics-linger 3s)
  fi
  # open loop: the schedule runs through the warm-up too, latency from each scheduled time
  [[ -n $rate ]] && args+=(-R "$rate")
  # a ramped rate (lib/openloop.sh): the run lasts the stages (the spec's duration_s)
  [[ -n ${barrage_spec[stages]:-} ]] && args+=(--rate-stages "${barrage_spec[stages]}")
  # a lab's load hosts begin together (lib/lab.sh): start_at, ms since the epoch
  local wait_s=0
  if [[ -n $start_at ]]; then
    args+=(--start-at "$start_at")
    wait_s=$(((start_at - ${EPOCHREALTIME/[.,]/} / 1000) / 1000 + 1))
    ((wait_s > 0)) || wait_s=0
  fi
  # barrage ends by itself after warm-up + duration + its 2 s grace; the limit is a backstop
  tools::exec "$1" "$work_dir/barrage.json" $((wait_s + warmup + duration + 30)) \
    "$bin" "${args[@]}" "$url" || rc=$?
  if ((rc == 4)); then
    log::error "barrage: the scenario's script failed (see $work_dir/barrage.json)"
    return 1
  fi
  # 130/143: a signal (Ctrl-C, or the time limit's SIGTERM) cut the run short; its record says
  # "interrupted" and covers part of the window only: never a result
  if ((rc == 130 || rc == 143)); then
    log::error "barrage: interrupted (exit $rc): its record covers part of the run only (see $work_dir/barrage.json)"
    return 1
  fi
  ((rc == 0)) || log::warn "barrage exited $rc"
  local record
  record=$(barrage::parse "$work_dir/barrage.json") || return 1
  if [[ $(jq -r '.interrupted // empty' <<<"$record") != "" ]]; then
    log::error "barrage: the run was interrupted: its record covers part of the run only"
    return 1
  fi
  printf '%s\n' "$record" >"${barrage_spec[out]}"
}
