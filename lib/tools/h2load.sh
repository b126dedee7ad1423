#!/usr/bin/env bash
# h2load driver (interface: lib/tools/README.md). HTTP/1.1 (--h1) and h2c (prior knowledge).
# h2load 1.52 prints totals but no percentiles: latencies come from its --log-file (one line
# per completed request: start time, status, duration in µs). Its counts are exact.
#
#   h2load::parse OUTPUT_FILE LOG_FILE [DURATION_S]
#     Prints the metrics record from h2load's text output and request log. DURATION_S is the
#     measured phase (-D); without it, the "finished in" time. Returns 1 (message on stderr)
#     when the output has no totals.
# Depends on lib/log.sh, lib/scenarios.sh, lib/tools.sh.

h2load::version() {
  command -v h2load >/dev/null 2>&1 || return 1
  # "h2load nghttp2/1.52.0"
  h2load --version 2>&1 | awk 'NR == 1 {sub(/^nghttp2\//, "", $2); print $2; exit}'
}

h2load::requires() { printf '%s\n' h2load:nghttp2-client; }

h2load::protocols() { printf '%s\n' h1 h2c; }

# h2load has no per-request timeout (only connection-level ones).
h2load::request_timeout_s() { :; }

h2load::supports() {
  local scenario=$1 protocol=$2
  case $protocol in
    h1|h2c) ;;
    *) printf 'h2load is driven over h1 and h2c only (no %s)\n' "$protocol"; return 1 ;;
  esac
  if scenarios::rotates "$scenario"; then
    printf 'h2load sends one method per run; %s alternates %s\n' "$scenario" "$(scenarios::field "$scenario" method)"
    return 1
  fi
}

# h2load::_seconds TEXT: h2load's "3.00s" / "1.55ms" / "120us" as seconds.
h2load::_seconds() {
  awk -v t="$1" 'BEGIN {
    if (t ~ /us$/) { sub(/us$/, "", t); print t / 1e6 }
    else if (t ~ /ms$/) { sub(/ms$/, "", t); print t / 1e3 }
    else { sub(/s$/, "", t); print t + 0 } }'
}

h2load::parse() {
  local output=$1 log=$2 duration=${3:-} requests statuses traffic finished latency
  requests=$(grep -m1 -E '^requests: ' "$output") || requests=''
  statuses=$(grep -m1 -E '^status codes: ' "$output") || statuses=''
  traffic=$(grep -m1 -E '^traffic: ' "$output") || traffic=''
  [[ -n $requests && -n $statuses && -n $traffic ]] || {
    log::error "h2load printed no totals: $(grep -vE '^\s*$' "$output" | tail -n 3 | tr '\n' ' ')"
    return 1
  }
  if [[ -z $duration ]]; then
    finished=$(grep -m1 -E '^finished in ' "$output" | awk '{sub(/,$/, "", $3); print $3}')
    duration=$(h2load::_seconds "$finished")
  fi
  # Latency of every logged request (column 3, µs): min, mean, stdev, max and percentiles
  # by the nearest-rank method over the sorted durations.
  latency=$(cut -f3 "$log" 2>/dev/null | grep -E '^[0-9]+$' | LC_ALL=C sort -n | awk '
    { v[NR] = $1; sum += $1; sq += $1 * $1 }
    function rank(p,   r) { r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1; return v[r] }
    END {
      if (NR == 0) { print "null"; exit }
      mean = sum / NR; var = sq / NR - mean * mean; if (var < 0) var = 0
      printf "{\"min\":%d,\"mean\":%.3f,\"stdev\":%.3f,\"p50\":%d,\"p75\":%d,\"p90\":%d,", v[1], mean, sqrt(var), rank(50), rank(75), rank(90)
      printf "\"p99\":%d,\"p999\":%d,\"p9999\":%d,\"max\":%d,\"overflow\":0}\n", rank(99), rank(99.9), rank(99.99), v[NR]
    }')
  jq -n --arg requests "$requests" --arg statuses "$statuses" --arg traffic "$traffic" \
    --argjson duration "$duration" --argjson latency "$latency" '
    def num($line; $re): $line | capture($re).n | tonumber;
    # requests: T total, S started, D done, OK succeeded, F failed, E errored, TO timeout
    num($requests; "(?<n>[0-9]+) started") as $started
    | num($requests; "(?<n>[0-9]+) done") as $done
    | num($requests; "(?<n>[0-9]+) errored") as $errored
    | num($requests; "(?<n>[0-9]+) timeout") as $timeouts
    | num($statuses; "(?<n>[0-9]+) 2xx") as $s2
    | num($statuses; "(?<n>[0-9]+) 3xx") as $s3
    | num($statuses; "(?<n>[0-9]+) 4xx") as $s4
    | num($statuses; "(?<n>[0-9]+) 5xx") as $s5
    # A started request ends done (a response), errored (timeout, or its connection failed),
    # or still in flight when -D ended: aborted. h2load also counts requests that were never
    # sent after their connection failed as errored; those are not counted at all.
    | ([$started - $done, 0] | max) as $unanswered
    | ([$timeouts, $unanswered] | min) as $timeout
    | ([([$errored - $timeout, $unanswered - $timeout] | min), 0] | max) as $read
    | ($unanswered - $timeout - $read) as $aborted
    | ([$s4 + $s5, $done] | min) as $rejected
    | ($duration * 1000000 | floor) as $duration_us
    | ($started - $aborted) as $requests_n
    | ($done - $rejected) as $succeeded
    | {
        requests: $requests_n, succeeded: $succeeded, failed: ($rejected + $timeout + $read), aborted: $aborted,
        status: {"2xx": $s2, "3xx": $s3, "4xx": $s4, "5xx": $s5, codes: null},
        errors: {timeout: $timeout, read: $read, write: 0, protocol: 0, reset: 0},
        connections: {connect_attempts: null, connect_errors: null, established: null, peak: null,
                      tls_errors: null, refused_streams: null},
        duration_us: $duration_us,
        rps: (if $duration > 0 then $requests_n / $duration else 0 end),
        successful_rps: (if $duration > 0 then $succeeded / $duration else 0 end),
        bytes_received: num($traffic; "\\((?<n>[0-9]+)\\) total"), bytes_sent: null,
        latency_us: ($latency // {min: null, mean: null, stdev: null, p50: null, p75: null, p90: null,
                                  p99: null, p999: null, p9999: null, max: null, overflow: null}),
        accounting: "exact"
      }'
}

h2load::run() {
  local out_json=$1 work_dir=$2 base_url=$3 protocol=$4 scenario=$5 threads=$6 connections=$7
  local streams=$8 duration=$9 warmup=${10} cpulist=${11} body rc=0
  local args=(-c "$connections" -D "$duration")
  ((threads <= connections)) || threads=$connections
  args+=(-t "$threads")
  ((warmup > 0)) && args+=(--warm-up-time "$warmup")
  if [[ $protocol == h1 ]]; then
    args+=(--h1 -m 1)
  else
    args+=(-m "$streams")
  fi
  body=$(scenarios::body_file "$scenario")
  [[ -n $body ]] && args+=(-d "$body" -H 'content-type: application/json')
  rm -f "$work_dir/h2load.log"
  tools::exec "$work_dir/h2load.txt" $((duration + warmup + 30)) "$cpulist" \
    h2load "${args[@]}" --log-file "$work_dir/h2load.log" \
    "${base_url%/}$(scenarios::field "$scenario" endpoint)" || rc=$?
  ((rc == 0)) || log::warn "h2load exited $rc"
  h2load::parse "$work_dir/h2load.txt" "$work_dir/h2load.log" "$duration" >"$out_json"
}
