#!/usr/bin/env bash
# jdk-client driver (interface: lib/tools/README.md). The suite's Java load client
# (clients/jdk-client/: java.net.http.HttpClient, a virtual thread per request in flight, closed
# loop), a second opinion beside the C tools: it prints the metrics record itself (exact
# accounting, HdrHistogram latencies), so nothing is parsed out of text.
# HTTP/1.1: one HttpClient, whose pool opens a connection per request in flight. h2c:
# java.net.http has no prior knowledge; it asks for h2c with an HTTP/1.1 Upgrade request, and
# keeps one HTTP/2 connection per client and origin. So the client opens one HttpClient per
# connection, upgrades each with one request before the run (outside the window:
# "prime_requests" in the record), then keeps STREAMS requests in flight on each: the
# connections x streams shape of h2load and barrage, reached by Upgrade instead of prior
# knowledge. A server that does not upgrade would get HTTP/1.1 silently (java.net.http falls
# back): the client stops instead (exit 5), and the record counts responses by version.
# Scenarios: the method, endpoint and body of scenarios/scenarios.tsv; mixed rotates the
# requests its script (scenarios/mixed.lua) builds with wrk.format, checked against the table.
# Over TLS: h1s (HTTP/1.1) as h1, h2 (HTTP/2 by ALPN) as h2c but with one request per client
# to make its connection; both on the https:// url, trusting the spec's cacert (--cacert).
# Its own JVM is measured too: a run with a warm-up warms the client up to steady state (the
# suite's rule: --warmup auto, docs/steady-state.md), at most JDK_CLIENT_WARMUP_CAP_S (or the
# spec's warm-up when longer); the record's warmup says how long it took and whether it got there.
#
#   jdk-client::build
#     Builds clients/jdk-client/target/jdk-client.jar with Maven under java::home's JDK (in a
#     process group of its own, lib/procs.sh), unless the jar is newer than the pom and every
#     source; Maven's output goes to $JDK_CLIENT_BUILD_LOG (default
#     clients/jdk-client/target/build.log), its tail to stderr on failure. Returns 1 when it
#     cannot build; once that happened, returns 1 at once for the rest of the shell's life.
#   jdk-client::prepare
#     What run-benchmarks.sh calls before the runs when the tool is selected: the build.
#   jdk-client::requests SCENARIO
#     The scenario's requests, "METHOD PATH" one a line, in the order each in-flight request
#     rotates through them. Returns 1 with the reason when the scenario's script and its row
#     in scenarios.tsv do not agree.
#   jdk-client::parse OUTPUT_FILE
#     Prints the record (the line that starts {"tool":"jdk-client"); returns 1 with what the
#     client said on stderr when there is none.
# Depends on lib/log.sh, lib/java.sh, lib/procs.sh, lib/scenarios.sh, lib/tools.sh.

JDK_CLIENT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/clients/jdk-client
JDK_CLIENT_JAR=$JDK_CLIENT_DIR/target/jdk-client.jar
# h2c needs an HttpClient (a selector thread, an Upgrade) per connection: above this many the
# run would measure the client's own threads (high-concurrency: 1000).
JDK_CLIENT_MAX_H2C_CONNECTIONS=256
# The cap of its steady-state warm-up: on one core against nginx it made 6,800/s after 2 s of
# warm-up and 19,800/s after 20 s (issue 47).
JDK_CLIENT_WARMUP_CAP_S=20
JDK_CLIENT_BUILD_FAILED=0

# jdk-client::_fresh: 0 when the jar is newer than the pom and every source.
jdk-client::_fresh() {
  [[ -f $JDK_CLIENT_JAR && ! $JDK_CLIENT_DIR/pom.xml -nt $JDK_CLIENT_JAR ]] || return 1
  [[ -z $(find "$JDK_CLIENT_DIR/src" -newer "$JDK_CLIENT_JAR" -print -quit 2>/dev/null) ]]
}

jdk-client::build() {
  local java_home log
  ((JDK_CLIENT_BUILD_FAILED == 0)) || { log::error "jdk-client did not build (see above)"; return 1; }
  jdk-client::_fresh && return 0
  java_home=$(java::home) || { JDK_CLIENT_BUILD_FAILED=1; return 1; }
  log=${JDK_CLIENT_BUILD_LOG:-$JDK_CLIENT_DIR/target/build.log}
  mkdir -p "$(dirname "$log")"
  log::info "building jdk-client with $java_home; log: $log"
  if ! JAVA_HOME=$java_home procs::run "maven build jdk-client" mvn -B -Dstyle.color=never \
    -f "$JDK_CLIENT_DIR/pom.xml" package >"$log" 2>&1 || ! jdk-client::_fresh; then
    tail -n 20 "$log" | log::lines
    log::error "jdk-client does not build (mvn -f clients/jdk-client/pom.xml package; log: $log)"
    JDK_CLIENT_BUILD_FAILED=1
    return 1
  fi
}

jdk-client::prepare() { jdk-client::build; }

# The pom's version and the JDK's, e.g. "1.0 (java 25.0.1+8-LTS)": known before the build.
jdk-client::version() {
  local java_home
  java_home=$(java::home 2>/dev/null) || return 1
  printf '%s (java %s)\n' "$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$JDK_CLIENT_DIR/pom.xml")" \
    "$(java::version "$java_home")"
}

jdk-client::requires() { printf '%s\n' mvn:maven; }

jdk-client::protocols() { printf '%s\n' h1 h2c h1s h2; }

jdk-client::request_timeout_s() { echo 2; }

# none of lib/tools/README.md's capabilities: closed loop, totals only, one host
jdk-client::capabilities() { :; }

jdk-client::requests() {
  local scenario=$1 method endpoint requests line
  method=$(scenarios::field "$scenario" method) || return 1
  endpoint=$(scenarios::field "$scenario" endpoint) || return 1
  if ! scenarios::rotates "$scenario"; then
    printf '%s %s\n' "$method" "$endpoint"
    return 0
  fi
  # wrk.format("METHOD", "PATH"...): the requests the script rotates, in its order
  requests=$(sed -nE 's/.*wrk\.format\("([A-Z]+)", *"([^"]+)".*/\1 \2/p' "$(scenarios::script "$scenario")")
  while read -r line; do
    [[ ",$method," == *",${line%% *},"* && ",$endpoint," == *",${line#* },"* ]] || {
      printf '%s rotates "%s", which scenarios.tsv does not list\n' "$scenario" "$line"; return 1; }
  done <<<"$requests"
  if [[ $(printf '%s\n' "$requests" | cut -d' ' -f2 | paste -sd,) != "$endpoint" ]]; then
    printf "%s's script rotates %s, scenarios.tsv lists %s\n" "$scenario" \
      "$(printf '%s\n' "$requests" | cut -d' ' -f2 | paste -sd,)" "$endpoint"
    return 1
  fi
  printf '%s\n' "$requests"
}

jdk-client::supports() {
  local scenario=$1 protocol=$2 connections reason
  case $protocol in
    h1|h2c|h1s|h2) ;;
    *) printf 'jdk-client speaks h1, h2c, h1s and h2 here (no %s)\n' "$protocol"; return 1 ;;
  esac
  reason=$(jdk-client::requests "$scenario") || { printf '%s\n' "$reason"; return 1; }
  connections=$(scenarios::field "$scenario" connections) || return 1
  if [[ $protocol == h2c || $protocol == h2 ]] && ((connections > JDK_CLIENT_MAX_H2C_CONNECTIONS)); then
    printf 'jdk-client opens an HttpClient (a selector thread) per %s connection: %s is more than %s\n' \
      "$protocol" "$connections" "$JDK_CLIENT_MAX_H2C_CONNECTIONS"
    return 1
  fi
}

jdk-client::parse() {
  local output=$1 record
  record=$(grep -m1 '^{"tool":"jdk-client"' "$output" | jq -c 'select(type == "object")' 2>/dev/null) || record=''
  if [[ -n $record ]]; then
    printf '%s\n' "$record"
  else
    log::error "jdk-client printed no metrics record: $(grep -vE '^\s*$' "$output" | head -n 3 | tr '\n' ' ')"
    return 1
  fi
}

jdk-client::run() {
  local -n jdk_spec=$1
  local work_dir=${jdk_spec[dir]} protocol=${jdk_spec[protocol]} scenario=${jdk_spec[scenario]} threads=${jdk_spec[threads]}
  local connections=${jdk_spec[connections]} duration=${jdk_spec[duration_s]} warmup=${jdk_spec[warmup_s]}
  local java_home body line rc=0
  jdk-client::build || return 1
  java_home=$(java::home) || return 1
  ((threads <= connections)) || threads=$connections
  # threads: the carrier threads that run the virtual threads
  # a warm-up is one to steady state, capped (a spec's longer warm-up is the cap)
  local warmup_arg=0
  ((warmup == 0)) || { ((warmup >= JDK_CLIENT_WARMUP_CAP_S)) || warmup=$JDK_CLIENT_WARMUP_CAP_S; warmup_arg=auto:$warmup; }
  local args=("$java_home/bin/java" "-Djdk.virtualThreadScheduler.parallelism=$threads" -jar "$JDK_CLIENT_JAR"
    --url "${jdk_spec[url]%/}" --protocol "$protocol" --connections "$connections" --duration "$duration"
    --warmup "$warmup_arg" --timeout "$(jdk-client::request_timeout_s)")
  [[ $protocol == h2c || $protocol == h2 ]] && args+=(--streams "${jdk_spec[streams]:-1}")
  # h1s and h2: the https:// url, the server's certificate verified against the suite's CA
  [[ -n ${jdk_spec[cacert]:-} && ($protocol == h1s || $protocol == h2) ]] && args+=(--cacert "${jdk_spec[cacert]}")
  while read -r line; do args+=(--request "$line"); done < <(jdk-client::requests "$scenario")
  body=$(scenarios::body_file "$scenario")
  [[ -n $body ]] && args+=(--body "$body")
  # ends by itself after the priming requests, warm-up, duration and its 2 s grace; the
  # limit is a backstop (h2c primes one connection after another)
  tools::exec "$1" "$work_dir/jdk-client.json" $((warmup + duration + 60)) "${args[@]}" || rc=$?
  if ((rc != 0)); then
    log::error "jdk-client exited $rc: $(grep -m1 '^jdk-client: ' "$work_dir/jdk-client.json" || tail -n 1 "$work_dir/jdk-client.json")"
    return 1
  fi
  jdk-client::parse "$work_dir/jdk-client.json" >"${jdk_spec[out]}" || return 1
  ((warmup == 0)) || log::info "$(jq -r '.warmup | "jdk-client warmed its JVM up for \(.seconds) s: "
    + (if .steady then "steady state" else "NOT in steady state at the \(.max_seconds) s cap" end)' "${jdk_spec[out]}")"
}
