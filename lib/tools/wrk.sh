#!/usr/bin/env bash
# wrk driver (interface: lib/tools/README.md). HTTP/1.1 only, in cleartext (h1) and over TLS (h1s:
# the https:// url; Debian's wrk is built with OpenSSL, offers no ALPN and verifies no
# certificate, so the spec's cacert is not used); runs scenarios/<name>.lua, whose
# done() (scenarios/json-report.lua) prints the metrics record as the last JSON line.
#
#   wrk::parse OUTPUT_FILE
#     Prints the metrics record found in wrk's output; returns 1 (message on stderr naming
#     wrk's complaint) when there is none, e.g. when wrk could not connect at all.
# Depends on lib/log.sh, lib/scenarios.sh, lib/tools.sh.

wrk::version() {
  command -v wrk >/dev/null 2>&1 || return 1
  # `wrk -v` prints "wrk debian/4.1.0-3+b2 [epoll] Copyright ..." and its usage.
  { wrk -v 2>&1 || true; } | awk 'NR == 1 {print $2; exit}'
}

wrk::requires() { printf '%s\n' wrk:wrk; }

wrk::protocols() { printf '%s\n' h1 h1s; }

wrk::request_timeout_s() { echo 2; }

# none of lib/tools/README.md's capabilities: closed loop, totals only, one host
wrk::capabilities() { :; }

wrk::supports() {
  local protocol=$2
  [[ $protocol == h1 || $protocol == h1s ]] && return 0
  printf 'wrk speaks HTTP/1.1 only, in cleartext and over TLS (no %s)\n' "$protocol"
  return 1
}

wrk::parse() {
  local output=$1 record
  record=$(grep -E '^\{' "$output" | tail -n 1)
  if [[ -z $record ]] || ! jq -ce . <<<"$record" 2>/dev/null; then
    log::error "wrk printed no metrics record: $(grep -vE '^\s*$' "$output" | head -n 3 | tr '\n' ' ')"
    return 1
  fi
}

# wrk::_invoke SPEC_NAME OUTPUT_FILE SECONDS: one wrk run of the spec for SECONDS.
wrk::_invoke() {
  local -n invoke_spec=$1
  local threads=${invoke_spec[threads]} connections=${invoke_spec[connections]}
  ((threads <= connections)) || threads=$connections
  # The Lua script sets the path; wrk still wants a URL.
  tools::exec "$1" "$2" $(($3 + 30)) \
    wrk -t "$threads" -c "$connections" -d "${3}s" --timeout "$(wrk::request_timeout_s)s" \
    -s "$(scenarios::script "${invoke_spec[scenario]}")" "${invoke_spec[url]%/}/"
}

wrk::run() {
  local -n wrk_spec=$1
  local work_dir=${wrk_spec[dir]} warmup=${wrk_spec[warmup_s]} rc=0
  if ((warmup > 0)); then
    wrk::_invoke "$1" "$work_dir/wrk-warmup.txt" "$warmup" \
      || log::warn "wrk warm-up exited $? (see $work_dir/wrk-warmup.txt)"
  fi
  wrk::_invoke "$1" "$work_dir/wrk.txt" "${wrk_spec[duration_s]}" || rc=$?
  ((rc == 0)) || log::warn "wrk exited $rc"
  wrk::parse "$work_dir/wrk.txt" >"${wrk_spec[out]}"
}
