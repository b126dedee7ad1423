#!/usr/bin/env bash
# h2load driver (interface: lib/tools/README.md). HTTP/1.1 (--h1) and h2c (prior knowledge); over
# TLS h1s (--h1: ALPN http/1.1) and h2 (ALPN h2) on the https:// url.
# h2load 1.52 prints totals but no percentiles and no status codes: both come from its --log-file
# (one line per request done in the measured phase: start time, status, duration in µs), read
# with h2load's own totals (src/h2load.cc at v1.52.0):
#   - "done" counts streams closed in the measured phase, responses and streams closed with an
#     error (HTTP/2 RST_STREAM, a refused stream, nghttp2's own stream error); the log writes -1
#     as the status of the latter. h2load's output does not say which: they are errors.read and
#     errors.reset is null.
#   - "succeeded" is h2load's: a response with a status below 400, or one whose header came in
#     the warm-up (logged with status 0; its status is unknown). Statuses and their classes
#     come from the log, so each done request's status is counted once.
#   - A status outside 100-599 is a protocol error (docs/metrics.md); h2load counts 600-999 as
#     failed in no class and 1-99 as succeeded: both are moved to failed, errors.protocol.
#   - HTTP/1.1: h2load never reads the status of a status line without a reason phrase
#     ("HTTP/1.1 200 ", as Tomcat sends it); it counts the response failed and logs status 0.
#     Such responses have no known outcome: succeeded, failed and successful_rps are null and
#     the record is "approximate".
#   - Started, not done: h2load's timeouts (-N; errors.timeout) and the rest. Timed run (-D):
#     the rest is aborted: in flight at the deadline, or lost with a failed connection, which
#     h2load counts nowhere (it drops the client) and so cannot be told apart; a request started
#     in the warm-up and done in the window is in done, not in started, so aborted can be
#     short by those. Request-count run (-n): the rest were lost with their connection:
#     errors.read; requests never sent are not counted at all. (h2load 1.52 aborts a timed run
#     in which -N fired, without totals.)
#   - errors.write and errors.reset are null: h2load does not tell them apart.
#   - latency_us: log lines of responses (status 0 and 100-599); error_latency_us: log lines
#     of streams closed with an error and of statuses outside 100-599. h2load logs nothing for
#     a request lost with its connection, so those are in neither.
#
#   h2load::parse OUTPUT_FILE LOG_FILE [DURATION_S]
#     Prints the metrics record from h2load's text output and its complete request log.
#     DURATION_S is the measured phase (-D); without it, the "finished in" time. Returns 1
#     (message on stderr) when the output has no totals or the log does not match them.
# Depends on lib/log.sh, lib/scenarios.sh, lib/tools.sh.

h2load::version() {
  command -v h2load >/dev/null 2>&1 || return 1
  # "h2load nghttp2/1.52.0"
  h2load --version 2>&1 | awk 'NR == 1 {sub(/^nghttp2\//, "", $2); print $2; exit}'
}

h2load::requires() { printf '%s\n' h2load:nghttp2-client; }

h2load::protocols() { printf '%s\n' h1 h2c h1s h2; }

# h2load has no per-request timeout (only connection-level ones).
h2load::request_timeout_s() { :; }

# none of lib/tools/README.md's capabilities: closed loop, totals only, one host
h2load::capabilities() { :; }

h2load::supports() {
  local scenario=$1 protocol=$2
  case $protocol in
    h1|h2c|h1s|h2) ;;
    *) printf 'h2load is driven over h1, h2c, h1s and h2 only (no %s)\n' "$protocol"; return 1 ;;
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

# h2load::_latency: durations (µs, one a line) on stdin as a latency object: min, mean, stdev,
# max and percentiles by the nearest-rank method; "null" when there are none.
h2load::_latency() {
  LC_ALL=C sort -n | awk '
    { v[NR] = $1; sum += $1; sq += $1 * $1 }
    function rank(p,   r) { r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1; return v[r] }
    END {
      if (NR == 0) { print "null"; exit }
      mean = sum / NR; var = sq / NR - mean * mean; if (var < 0) var = 0
      printf "{\"min\":%d,\"mean\":%.3f,\"stdev\":%.3f,\"p50\":%d,\"p75\":%d,\"p90\":%d,", v[1], mean, sqrt(var), rank(50), rank(75), rank(90)
      printf "\"p99\":%d,\"p999\":%d,\"p9999\":%d,\"max\":%d,\"overflow\":0}\n", rank(99), rank(99.9), rank(99.99), v[NR]
    }'
}

# h2load::_log_counts LOG_FILE: the request log's lines by status as one JSON object: lines,
# closed (-1), unread (0), interim (100-199), codes (200-599, by code), below_100 (1-99),
# above_599.
h2load::_log_counts() {
  awk -F'\t' '
    $2 == -1 { closed++; next }
    $2 == 0 { unread++; next }
    $2 < 100 { below++; next }
    $2 < 200 { interim++; next }
    $2 < 600 { code[$2]++; next }
    { above++ }
    END {
      printf "{\"lines\":%d,\"closed\":%d,\"unread\":%d,\"interim\":%d,\"below_100\":%d,\"above_599\":%d,\"codes\":{", NR, closed, unread, interim, below, above
      sep = ""; for (c in code) { printf "%s\"%s\":%d", sep, c, code[c]; sep = "," }
      print "}}"
    }' "$1"
}

h2load::parse() {
  local output=$1 log=$2 duration=${3:-} requests statuses traffic finished timed=false
  local counts latency error_latency record
  requests=$(grep -m1 -E '^requests: ' "$output") || requests=''
  statuses=$(grep -m1 -E '^status codes: ' "$output") || statuses=''
  traffic=$(grep -m1 -E '^traffic: ' "$output") || traffic=''
  [[ -n $requests && -n $statuses && -n $traffic ]] || {
    log::error "h2load printed no totals: $(grep -vE '^\s*$' "$output" | tail -n 3 | tr '\n' ' ')"
    return 1
  }
  grep -q 'Timing-based test' "$output" && timed=true
  if [[ -z $duration ]]; then
    finished=$(grep -m1 -E '^finished in ' "$output" | awk '{sub(/,$/, "", $3); print $3}')
    duration=$(h2load::_seconds "$finished")
  fi
  # No log at all (h2load could not start a request) reads as an empty one.
  [[ -f $log ]] || log=/dev/null
  counts=$(h2load::_log_counts "$log")
  latency=$(awk -F'\t' '$2 == 0 || ($2 >= 100 && $2 <= 599) {print $3}' "$log" | h2load::_latency)
  error_latency=$(awk -F'\t' '$2 != 0 && ($2 < 100 || $2 > 599) {print $3}' "$log" | h2load::_latency)
  record=$(jq -cn --arg requests "$requests" --arg traffic "$traffic" --argjson timed "$timed" \
    --argjson duration "$duration" --argjson log "$counts" \
    --argjson latency "$latency" --argjson error_latency "$error_latency" '
    def num($line; $re): $line | capture($re).n | tonumber;
    def class($d): [$log.codes | to_entries[] | select(.key | startswith($d)) | .value] | add // 0;
    # requests: T total, S started, D done, OK succeeded, F failed, E errored, TO timeout
    num($requests; "(?<n>[0-9]+) started") as $started
    | num($requests; "(?<n>[0-9]+) done") as $done
    | num($requests; "(?<n>[0-9]+) succeeded") as $ok
    | num($requests; "(?<n>[0-9]+) timeout") as $timeouts
    | if $log.lines != $done then
        error("the request log has \($log.lines) lines, h2load counted \($done) done")
      else . end
    # Started, not done: timed out, lost with their connection or (timed run) in flight at the
    # deadline. Only a request-count run tells the lost ones apart (see the header).
    | ([$started - $done, 0] | max) as $unanswered
    | ([$timeouts, $unanswered] | min) as $timeout
    | (if $timed then $timeout else $unanswered end) as $lost
    | (class("2") + class("3") + $log.below_100 + $log.interim) as $ok_read
    # Responses with no status in the log that h2load counted succeeded (header in the warm-up)
    # and failed (HTTP/1.1 status line without a reason phrase).
    | ($ok - $ok_read) as $ok_unread
    | if $ok_unread < 0 or $ok_unread > $log.unread then
        error("h2load counted \($ok) succeeded, its request log \($ok_read) (+ \($log.unread) without a status)")
      else . end
    | ($log.unread - $ok_unread) as $failed_unread
    | ($done + $lost) as $requests_n
    | (if $failed_unread > 0 then null else $ok - $log.below_100 end) as $succeeded
    | ($duration * 1000000 | floor) as $duration_us
    | {
        requests: $requests_n, succeeded: $succeeded,
        failed: (if $succeeded == null then null else $requests_n - $succeeded end),
        aborted: ($unanswered - $lost),
        status: {"2xx": class("2"), "3xx": class("3"), "4xx": class("4"), "5xx": class("5"),
                 codes: $log.codes},
        errors: {timeout: $timeout, read: ($log.closed + $lost - $timeout), write: null,
                 protocol: ($log.below_100 + $log.above_599), reset: null},
        connections: {connect_attempts: null, connect_errors: null, established: null, peak: null,
                      tls_errors: null, refused_streams: null},
        duration_us: $duration_us,
        rps: (if $duration > 0 then $requests_n / $duration else 0 end),
        successful_rps: (if $succeeded == null then null elif $duration > 0 then $succeeded / $duration else 0 end),
        completed_in_grace: null,
        bytes_received: num($traffic; "\\((?<n>[0-9]+)\\) total"), bytes_sent: null,
        latency_us: $latency, error_latency_us: $error_latency,
        accounting: (if $succeeded == null then "approximate" else "exact" end)
      }') || {
    log::error "h2load's output and request log do not add up ($output, $log)"
    return 1
  }
  [[ $(jq '.succeeded' <<<"$record") != null ]] \
    || log::warn "h2load could not read the status of some responses (HTTP/1.1 status line without a reason phrase): succeeded and failed are unknown"
  printf '%s\n' "$record"
}

h2load::run() {
  local -n h2load_spec=$1
  local work_dir=${h2load_spec[dir]} scenario=${h2load_spec[scenario]} threads=${h2load_spec[threads]}
  local connections=${h2load_spec[connections]} duration=${h2load_spec[duration_s]} warmup=${h2load_spec[warmup_s]}
  local body rc=0
  local args=(-c "$connections" -D "$duration")
  ((threads <= connections)) || threads=$connections
  args+=(-t "$threads")
  ((warmup > 0)) && args+=(--warm-up-time "$warmup")
  # h1s and h2: the https:// url; --h1 makes ALPN offer http/1.1, else h2 (h2load verifies no
  # certificate: the spec's cacert is not used)
  if [[ ${h2load_spec[protocol]} == h1 || ${h2load_spec[protocol]} == h1s ]]; then
    args+=(--h1 -m 1)
  else
    args+=(-m "${h2load_spec[streams]}")
  fi
  body=$(scenarios::body_file "$scenario")
  [[ -n $body ]] && args+=(-d "$body" -H 'content-type: application/json')
  rm -f "$work_dir/h2load.log"
  tools::exec "$1" "$work_dir/h2load.txt" $((duration + warmup + 30)) \
    h2load "${args[@]}" --log-file "$work_dir/h2load.log" \
    "${h2load_spec[url]%/}$(scenarios::field "$scenario" endpoint)" || rc=$?
  ((rc == 0)) || log::warn "h2load exited $rc"
  rc=0
  h2load::parse "$work_dir/h2load.txt" "$work_dir/h2load.log" "$duration" >"${h2load_spec[out]}" || rc=$?
  # the request log has a line per request (millions in a long run): kept compressed
  [[ -f $work_dir/h2load.log ]] && gzip -f "$work_dir/h2load.log"
  return "$rc"
}
