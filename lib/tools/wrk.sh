#!/usr/bin/env bash
# wrk driver (interface: lib/tools/README.md). HTTP/1.1 only; runs scenarios/<name>.lua, whose
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

wrk::protocols() { printf '%s\n' h1; }

wrk::request_timeout_s() { echo 2; }

wrk::supports() {
  local protocol=$2
  [[ $protocol == h1 ]] && return 0
  printf 'wrk speaks HTTP/1.1 only (no %s)\n' "$protocol"
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

# wrk::_invoke OUTPUT_FILE URL SCENARIO THREADS CONNECTIONS SECONDS CPULIST: one wrk run.
wrk::_invoke() {
  local output=$1 url=$2 scenario=$3 threads=$4 connections=$5 seconds=$6 cpulist=$7
  tools::exec "$output" $((seconds + 30)) "$cpulist" \
    wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout "$(wrk::request_timeout_s)s" \
    -s "$(scenarios::script "$scenario")" "$url"
}

wrk::run() {
  local out_json=$1 work_dir=$2 base_url=$3 _protocol=$4 scenario=$5 threads=$6 connections=$7
  local _streams=$8 duration=$9 warmup=${10} cpulist=${11} rc=0
  # The Lua script sets the path; wrk still wants a URL.
  local url=${base_url%/}/
  ((threads <= connections)) || threads=$connections
  if ((warmup > 0)); then
    wrk::_invoke "$work_dir/wrk-warmup.txt" "$url" "$scenario" "$threads" "$connections" "$warmup" "$cpulist" \
      || log::warn "wrk warm-up exited $? (see $work_dir/wrk-warmup.txt)"
  fi
  wrk::_invoke "$work_dir/wrk.txt" "$url" "$scenario" "$threads" "$connections" "$duration" "$cpulist" || rc=$?
  ((rc == 0)) || log::warn "wrk exited $rc"
  wrk::parse "$work_dir/wrk.txt" >"$out_json"
}
