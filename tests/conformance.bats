#!/usr/bin/env bats
# Conformance: every server under servers/ keeps servers/CONTRACT.md over every protocol
# it declares (lib/contract.sh, the same checks run-benchmarks.sh runs before measuring),
# and stops on SIGTERM within 5 s, freeing its port. First, the lifecycle and contract
# libraries themselves, against stand-in servers (tests/fixtures/servers-conformance/).
# shellcheck disable=SC2030,SC2031 # each @test runs in its own process: setting PORT or SERVER_PID in one is meant to stay there

load test_helper
bats_require_minimum_version 1.5.0

FIXTURES="$BATS_TEST_DIRNAME/fixtures/servers-conformance"

setup_file() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
  CONFORMANCE_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/barrage test.XXXXXX")
  export CONFORMANCE_TMP
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/servers.sh
  source lib/servers.sh
  # Build once; each server's own "builds" test reports its failure by name.
  # shellcheck disable=SC2119 # no names: build every server
  servers::build >"$CONFORMANCE_TMP/build-failures" 2>"$CONFORMANCE_TMP/build-log" || true
}

teardown_file() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/servers.sh
  source lib/servers.sh
  local state pid
  for state in "$CONFORMANCE_TMP"/shared*; do
    [[ -f $state ]] || continue
    pid=$(head -n 1 "$state")
    servers::stop "$pid" 5 || true
  done
  rm -rf -- "$CONFORMANCE_TMP"
}

setup() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/servers.sh
  source lib/servers.sh
  # shellcheck source=lib/contract.sh
  source lib/contract.sh
  # shellcheck source=lib/variants.sh
  source lib/variants.sh
  common_setup
  SERVER_PID=''
}

teardown() {
  if [[ -n ${SERVER_PID:-} ]]; then servers::stop "$SERVER_PID" 5 || true; fi
  common_teardown
}

# start NAME: start a server on a free port (PORT), its HTTPS on another (TLS_PORT, for a
# server that declares h1s or h2), wait until it answers (bounded).
start() {
  PORT=$(free_port)
  TLS_PORT=$(free_port)
  LOG="$CONFORMANCE_TMP/$1 $PORT.log"
  TLS_PORT=$TLS_PORT servers::start "$1" "$PORT" "$LOG"
  servers::wait_ready "$SERVER_PID" "$PORT" 60
}

# start_shared NAME: as start, but the server started once for the file's contract tests (h1,
# h2c, h1s, h2, h3, barrage over h3 all talk to one instance started with its TLS port), kept
# running (its PID, ports and log in $CONFORMANCE_TMP/shared NAME; bats' fd 3 closed, else bats
# waits for it) and stopped in teardown_file; started again when it died. Starting each server
# once instead of once a protocol saves some twenty JVM starts. SERVER_PID stays empty:
# teardown leaves it running.
start_shared() {
  local state="$CONFORMANCE_TMP/shared $1" fields
  if [[ -s $state ]]; then
    mapfile -t fields <"$state"
    if servers::alive "${fields[0]}"; then
      PORT=${fields[1]} TLS_PORT=${fields[2]} LOG=${fields[3]}
      return 0
    fi
    echo "the shared $1 (pid ${fields[0]}) is gone; starting another"
  fi
  start "$1" 3>&-
  printf '%s\n' "$SERVER_PID" "$PORT" "$TLS_PORT" "$LOG" >"$state"
  SERVER_PID=''
}

# require_built NAME: fail, naming the server, when its build failed in setup_file.
require_built() {
  local failure
  failure=$(grep -P "^$1\t" "$CONFORMANCE_TMP/build-failures" || true)
  if [[ -n $failure ]]; then
    echo "server $1 did not build: ${failure#*$'\t'}"
    return 1
  fi
}

# conforms NAME PROTOCOL [required]: the contract over PROTOCOL (skipped when NAME does not
# declare it; with `required`, failed: issue #23's h3 servers must keep declaring h3).
conforms() {
  local name=$1 protocol=$2 required=${3:-} protocols
  protocols=$(servers::prop "$name" protocols)
  if [[ ,$protocols, != *,"$protocol",* ]]; then
    [[ -z $required ]] || { echo "$name must declare $protocol (server.properties: protocols=$protocols)"; return 1; }
    skip "$name declares only $protocols"
  fi
  require_built "$name"
  # a variant's settings (SERVERS_START_ENV) get a server of their own
  if [[ -n ${SERVERS_START_ENV+set} ]]; then start "$name"; else start_shared "$name"; fi
  run contract::verify "$name" "http://127.0.0.1:$PORT" "$protocol" "https://127.0.0.1:$TLS_PORT"
  # On failure bats shows this output: each failed item, with the server's name.
  grep -E '^not ok' <<<"$output" || true
  [ "$status" -eq 0 ]
  [[ $output == *"ok - $name $protocol GET /hello"* ]]
}

# conforms_ws NAME: the WebSocket items (contract::verify_ws) of a server that declares
# websocket=/ws; skipped for one that declares websocket=none, failed for one that declares neither.
conforms_ws() {
  local name=$1 ws
  ws=$(servers::prop "$name" websocket) || { echo "$name declares no websocket= (/ws or none)"; return 1; }
  [[ $ws != none ]] || skip "$name declares no WebSocket endpoint"
  [[ $ws == /ws ]] || { echo "$name: websocket=$ws, want /ws or none"; return 1; }
  require_built "$name"
  start_shared "$name"
  run contract::verify_ws "$name" "http://127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"ok - $name ws close handshake"* ]]
}

# conforms_tls NAME PROTOCOL: the contract over h1s or h2 (TLS over TCP on the server's
# TLS_PORT, the certificate verified against the suite's CA), required of every server (h2 of
# those that speak HTTP/2: declare h2c); its start-up line names the port.
conforms_tls() {
  local name=$1 protocol=$2 protocols
  protocols=$(servers::prop "$name" protocols)
  if [[ $protocol == h2 && ,$protocols, != *,h2c,* ]]; then
    [[ ,$protocols, != *,h2,* ]] || { echo "$name declares h2 but not h2c"; return 1; }
    skip "$name speaks no HTTP/2 ($protocols)"
  fi
  conforms "$name" "$protocol" required
  grep -q " tls=tcp:$TLS_PORT" "$LOG" || { echo "$name's start-up line does not name tls=tcp:$TLS_PORT:"; cat "$LOG"; return 1; }
}

# conforms_tls_variant NAME VARIANT PROTOCOL PROVIDER: conforms_tls with the environment of
# NAME's VARIANT (servers/NAME/variants.tsv), as a variant run starts it (SERVERS_START_ENV),
# whose start-up line must name its TLS stack: tls_provider=PROVIDER (issue #39's native TLS).
conforms_tls_variant() {
  local name=$1 variant=$2 protocol=$3 provider=$4 env
  env=$(variants::field "$name" "$variant" env) || { echo "$name declares no variant $variant"; return 1; }
  local -a SERVERS_START_ENV
  read -ra SERVERS_START_ENV <<<"$env"
  conforms_tls "$name" "$protocol"
  grep -q " tls_provider=$provider\b" "$LOG" || { echo "$name's start-up line does not name tls_provider=$provider:"; cat "$LOG"; return 1; }
}

# openssl_or_exit NAME VARIANT: NAME's VARIANT where OpenSSL cannot load (netty-tcnative told
# not to: -Dio.netty.handler.ssl.noOpenSsl=true, through VARIANT_JVM_OPTIONS as a variant run
# passes them) exits 2 within 30 s, naming the cause, rather than serve HTTPS on JSSE.
openssl_or_exit() {
  local name=$1 variant=$2 env pid rc=0 deadline log
  require_built "$name"
  certs::ensure
  env=$(variants::field "$name" "$variant" env) || { echo "$name declares no variant $variant"; return 1; }
  local -a words
  read -ra words <<<"$env"
  log="$CONFORMANCE_TMP/$name $variant no openssl.log"
  background env "${words[@]}" VARIANT_JVM_OPTIONS=-Dio.netty.handler.ssl.noOpenSsl=true \
    TLS_CERT="$(certs::dir)/server.pem" TLS_KEY="$(certs::dir)/server.key" TLS_PORT="$(free_port)" PORT="$(free_port)" \
    setsid "servers/$name/start.sh" >"$log" 2>&1
  pid=$BG_PID
  deadline=$((SECONDS + 30))
  while servers::alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::alive "$pid"; then
    SERVER_PID=$pid
    echo "$name ($variant) still running 30 s after starting without OpenSSL:"
    cat "$log"
    return 1
  fi
  wait "$pid" || rc=$?
  ((rc == 2)) || { echo "$name ($variant) exited $rc without OpenSSL, not 2:"; cat "$log"; return 1; }
  grep -q 'OpenSSL.*not available: .*noOpenSsl' "$log" || { echo "$name did not name the cause:"; cat "$log"; return 1; }
}

# barrage_h3 NAME: the second client of the h3 contract, barrage --h3 (certificate verified
# against the suite's CA): GET /hello 200 times over 2 connections x 4 streams and POST /load
# with 300 bytes 50 times, every one answered 200 with its body, counted exactly.
barrage_h3() {
  local name=$1 record
  require_built "$name"
  [[ $("$ROOT/client/build/barrage" --version) == *" h3 ("* ]] || { echo "barrage was built without HTTP/3"; return 1; }
  start_shared "$name"
  head -c 300 /dev/urandom >"$CONFORMANCE_TMP/body 300"
  run "$ROOT/client/build/barrage" --h3 --cacert "$(certs::dir)/ca.pem" -c 2 -m 4 -n 200 --timeout 10s --json \
    "https://127.0.0.1:$PORT/hello"
  echo "$output"
  [ "$status" -eq 0 ]
  record=$output
  assert_jq '.protocol == "h3" and .requests == 200 and .succeeded == 200 and .status.codes == {"200": 200}
    and .body_bytes == 200 * 11 and .quic.handshake_failures == 0 and .connections.established >= 2' - <<<"$record"
  run "$ROOT/client/build/barrage" --h3 --cacert "$(certs::dir)/ca.pem" -c 1 -m 4 -n 50 --timeout 10s --json \
    -X POST -B "$CONFORMANCE_TMP/body 300" "https://127.0.0.1:$PORT/load"
  echo "$output"
  [ "$status" -eq 0 ]
  # /load answers the body's base64: 400 bytes for 300
  assert_jq '.requests == 50 and .succeeded == 50 and .status.codes == {"200": 50} and .body_bytes == 50 * 400' - <<<"$output"
}

# jetty_private_quiche: jetty loads quiche's native library from a directory of its own,
# removed when it stops. Jetty extracts it to java.io.tmpdir/linux-x86-64/libquiche.so,
# overwriting the file in place: shared, a second Jetty starting made a running one crash.
jetty_private_quiche() {
  local lib dir
  require_built jetty
  start jetty
  # quiche is loaded when the first QUIC packets come (whatever becomes of the request)
  "$ROOT/client/build/barrage" --h3 --cacert "$(certs::dir)/ca.pem" -c 1 -n 1 -d 10s --timeout 10s \
    "https://127.0.0.1:$PORT/hello" >/dev/null 2>&1 || true
  lib=$(awk '$NF ~ /libquiche\.so$/ {print $NF; exit}' "/proc/$SERVER_PID/maps")
  echo "jetty maps quiche from: ${lib:-nothing}"
  [[ $lib == "${TMPDIR:-/tmp}"/barrage-jetty-native-*/linux-x86-64/libquiche.so ]]
  dir=${lib%/linux-x86-64/libquiche.so}
  servers::stop "$SERVER_PID" 5
  SERVER_PID=''
  [ ! -e "$dir" ]
}

# stops_on_sigterm NAME: SIGTERM to the JVM alone; gone and port free within 5 s.
stops_on_sigterm() {
  local name=$1 pid deadline remaining
  require_built "$name"
  start "$name"
  pid=$SERVER_PID
  kill -TERM "$pid"
  deadline=$((SECONDS + 5))
  while servers::alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::alive "$pid"; then
    echo "$name (pid $pid) still running 5 s after SIGTERM"
    return 1
  fi
  SERVER_PID=''
  remaining=$((deadline - SECONDS))
  ((remaining > 0)) || remaining=0
  servers::wait_port_free "$PORT" "$remaining" || {
    echo "$name: port $PORT still held by $(servers::port_holder "$PORT") after SIGTERM"
    return 1
  }
  # an h3 server's UDP socket on the same port number is gone too (the process is)
  if [[ -n $(ss -lunH "sport = :$PORT" 2>/dev/null) ]]; then
    echo "$name: UDP port $PORT still bound after SIGTERM: $(ss -lunpH "sport = :$PORT")"
    return 1
  fi
}

# tls_env NAME: the TLS_CERT=… TLS_KEY=… words servers::start gives NAME when it declares h3.
tls_env() {
  local dir
  [[ ,$(servers::prop "$1" protocols), == *,h3,* ]] || return 0
  certs::ensure || return 1
  dir=$(certs::dir)
  printf '%s\n' "TLS_CERT=$dir/server.pem" "TLS_KEY=$dir/server.key"
}

# exits_when_port_taken NAME [tcp|udp|tls]: a server that cannot listen must exit non-zero
# within 30 s (not run on without its port), so that run-benchmarks.sh fails it at once.
# udp: the port number is taken on UDP only (what an h3 server listens on besides TCP); tls:
# its HTTPS port (TLS_PORT) is taken, its cleartext port free.
exits_when_port_taken() {
  local name=$1 kind=${2:-tcp} holder_pid port pid rc=0 deadline tls
  require_built "$name"
  mapfile -t tls < <(tls_env "$name")
  if [[ $kind == tls ]]; then
    certs::ensure
    tls=("TLS_CERT=$(certs::dir)/server.pem" "TLS_KEY=$(certs::dir)/server.key")
  fi
  background python3 -c 'import socket, sys, time
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
s = socket.socket(socket.AF_INET, kind); s.bind(("127.0.0.1", 0))
if kind == socket.SOCK_STREAM: s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' "${kind/tls/tcp}" >"$CONFORMANCE_TMP/holder-$name"
  holder_pid=$BG_PID
  for _ in $(seq 50); do [[ -s $CONFORMANCE_TMP/holder-$name ]] && break; sleep 0.1; done
  port=$(<"$CONFORMANCE_TMP/holder-$name")
  if [[ $kind == tls ]]; then
    background env "${tls[@]}" TLS_PORT="$port" PORT="$(free_port)" setsid "servers/$name/start.sh" >"$CONFORMANCE_TMP/$name taken.log" 2>&1
  else
    background env "${tls[@]}" PORT="$port" setsid "servers/$name/start.sh" >"$CONFORMANCE_TMP/$name taken.log" 2>&1
  fi
  pid=$BG_PID
  deadline=$((SECONDS + 30))
  while servers::alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::alive "$pid"; then
    SERVER_PID=$pid
    stop_background "$holder_pid"
    echo "$name still running 30 s after failing to listen on taken $kind port $port"
    return 1
  fi
  wait "$pid" || rc=$?
  stop_background "$holder_pid"
  ((rc != 0)) || { echo "$name exited 0 without its $kind port"; return 1; }
  # it failed for the port, not for something else (a missing certificate, say)
  grep -qiE 'listen|bind|address already in use' "$CONFORMANCE_TMP/$name taken.log" ||
    { echo "$name exited $rc, but not saying it could not listen:"; cat "$CONFORMANCE_TMP/$name taken.log"; return 1; }
}

# starts_without_cert NAME: a server declaring h3, started by hand without TLS_CERT and TLS_KEY
# (as the README shows), serves HTTP/1.1 and h2c, says in one line of its log that HTTP/3 is
# off for want of a certificate and listens on no UDP port; given a certificate that cannot be
# read, it says what it needs and exits non-zero within 30 s.
starts_without_cert() {
  local name=$1 pid rc=0 deadline log
  require_built "$name"
  PORT=$(free_port)
  log="$CONFORMANCE_TMP/$name no cert.log"
  background env -u TLS_CERT -u TLS_KEY PORT="$PORT" setsid "servers/$name/start.sh" >"$log" 2>&1
  SERVER_PID=$BG_PID
  servers::wait_ready "$SERVER_PID" "$PORT" 60 || { echo "$name did not start without a certificate:"; cat "$log"; return 1; }
  run contract::verify "$name" "http://127.0.0.1:$PORT" h1,h2c
  grep -E '^not ok' <<<"$output" || true
  [ "$status" -eq 0 ]
  grep -E 'h3|HTTP/3|TLS_' "$log" >"$CONFORMANCE_TMP/$name h3 lines" || true
  [ "$(wc -l <"$CONFORMANCE_TMP/$name h3 lines")" -eq 1 ] || { echo "not one line on h3:"; cat "$log"; return 1; }
  grep -q 'h3=off (no certificate: set TLS_CERT and TLS_KEY for HTTP/3)' "$log" || { cat "$log"; return 1; }
  [[ -z $(ss -lunH "sport = :$PORT" 2>/dev/null) ]] || { echo "$name listens on UDP $PORT without a certificate"; return 1; }
  servers::stop "$SERVER_PID" 5
  SERVER_PID=''
  log="$CONFORMANCE_TMP/$name bad cert.log"
  background env TLS_CERT="$CONFORMANCE_TMP/no such.pem" TLS_KEY="$CONFORMANCE_TMP/no such.key" PORT="$(free_port)" \
    setsid "servers/$name/start.sh" >"$log" 2>&1
  pid=$BG_PID
  deadline=$((SECONDS + 30))
  while servers::alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::alive "$pid"; then
    SERVER_PID=$pid
    echo "$name still running 30 s after starting with a certificate it cannot read"
    return 1
  fi
  wait "$pid" || rc=$?
  ((rc != 0)) || { echo "$name exited 0 with a certificate it cannot read"; return 1; }
  grep -q 'TLS_CERT and TLS_KEY' "$log" || { echo "$name did not say what it needs:"; cat "$log"; return 1; }
}

# tls_needs_cert NAME: started by hand without TLS_PORT, a server says tls=off and opens no
# HTTPS port; given TLS_PORT without TLS_CERT and TLS_KEY, it says what it needs and exits
# non-zero within 30 s (rather than run on without the HTTPS it was asked for).
tls_needs_cert() {
  local name=$1 pid rc=0 deadline log
  require_built "$name"
  PORT=$(free_port)
  log="$CONFORMANCE_TMP/$name no tls.log"
  background env -u TLS_PORT -u TLS_CERT -u TLS_KEY PORT="$PORT" setsid "servers/$name/start.sh" >"$log" 2>&1
  SERVER_PID=$BG_PID
  servers::wait_ready "$SERVER_PID" "$PORT" 60 || { echo "$name did not start without TLS_PORT:"; cat "$log"; return 1; }
  grep -q ' tls=off' "$log" || { echo "$name's start-up line does not say tls=off:"; cat "$log"; return 1; }
  servers::stop "$SERVER_PID" 5
  SERVER_PID=''
  log="$CONFORMANCE_TMP/$name tls no cert.log"
  background env -u TLS_CERT -u TLS_KEY TLS_PORT="$(free_port)" PORT="$(free_port)" setsid "servers/$name/start.sh" >"$log" 2>&1
  pid=$BG_PID
  deadline=$((SECONDS + 30))
  while servers::alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::alive "$pid"; then
    SERVER_PID=$pid
    echo "$name still running 30 s after starting with TLS_PORT and no certificate"
    return 1
  fi
  wait "$pid" || rc=$?
  ((rc != 0)) || { echo "$name exited 0 with TLS_PORT and no certificate"; return 1; }
  grep -q 'TLS_CERT and TLS_KEY' "$log" || { echo "$name did not say what it needs:"; cat "$log"; return 1; }
}

# --- the libraries, against stand-ins --------------------------------------------

@test "java::home: JAVA_HOME when it is 21+, else the newest JDK with javac under JVM_ROOT" {
  JVM_ROOT="$FIXTURES/jvm" JAVA_HOME="$FIXTURES/jvm/jdk-21" run java::home
  [ "$status" -eq 0 ]
  [ "$output" = "$FIXTURES/jvm/jdk-21" ]
  JVM_ROOT="$FIXTURES/jvm" JAVA_HOME="$FIXTURES/jvm/jdk-17" run java::home
  [ "$output" = "$FIXTURES/jvm/jdk-25" ]
  JVM_ROOT="$FIXTURES/jvm" JAVA_HOME='' run java::home
  [ "$output" = "$FIXTURES/jvm/jdk-25" ]
  run java::version "$FIXTURES/jvm/jdk-25"
  [ "$output" = "25.0.3" ]
}

@test "java::home: no JDK 21+ fails with a message saying what to install" {
  JVM_ROOT="$CONFORMANCE_TMP/no jvm here" JAVA_HOME="$FIXTURES/jvm/jdk-17" run java::home
  [ "$status" -eq 1 ]
  [[ $output == *"no JDK 21+ found"* ]]
  [[ $output == *install* ]]
}

@test "servers::list and servers::prop read server.properties" {
  SERVERS_DIR="$FIXTURES/fleet" run servers::list
  [ "$output" = $'broken\ndies\nstubborn' ]
  SERVERS_DIR="$FIXTURES/fleet" run servers::prop stubborn protocols
  [ "$output" = "h1,h2c" ]
  SERVERS_DIR="$FIXTURES/fleet" run servers::prop stubborn no-such-key
  [ "$status" -eq 1 ]
  run servers::list
  [ "$output" = $'helidon\njava-http\njdk-httpserver\njetty\nnetty\ntomcat\nundertow\nvertx' ]
}

@test "contract::verify names the server, protocol and item of every broken check" {
  SERVERS_DIR="$FIXTURES/fleet"
  start broken
  mkdir "$CONFORMANCE_TMP/contract tmp"
  TMPDIR="$CONFORMANCE_TMP/contract tmp" run contract::verify broken "http://127.0.0.1:$PORT" h1
  [ "$status" -eq 1 ]
  [[ $output == *"not ok - broken h1 GET /hello: "* ]]
  [[ $output == *"not ok - broken h1 /file?size=abc is 400: got status 200"* ]]
  [[ $output == *"not ok - broken h1 POST /load 300B: "* ]]
  [[ $output == *"not ok - broken h1 GET /: no Server header"* ]]
  # Its temp files are gone.
  [ -z "$(ls -A "$CONFORMANCE_TMP/contract tmp")" ]
}

@test "servers::wait_ready fails early when the server dies, with its log" {
  SERVERS_DIR="$FIXTURES/fleet"
  PORT=$(free_port)
  servers::start dies "$PORT" "$CONFORMANCE_TMP/dies.log"
  local began=$SECONDS
  run -1 servers::wait_ready "$SERVER_PID" "$PORT" 30
  ((SECONDS - began < 10))
  [[ $output == *"exited before it was ready"* ]]
  [[ $output == *"cannot start (on purpose)"* ]]
}

@test "servers::start refuses a port that is taken, naming the holder" {
  SERVERS_DIR="$FIXTURES/fleet"
  start broken
  run servers::port_holder "$PORT"
  [[ $output =~ ^pid\ [0-9]+\ \(python3\)$ ]]
  local first=$SERVER_PID
  run -1 servers::start broken "$PORT" "$CONFORMANCE_TMP/second.log"
  [[ $output == *"port $PORT is taken by pid"* ]]
  SERVER_PID=$first
}

@test "servers::stop sends KILL to a server that ignores TERM, and frees the port" {
  SERVERS_DIR="$FIXTURES/fleet"
  PORT=$(free_port)
  servers::start stubborn "$PORT" "$CONFORMANCE_TMP/stubborn.log"
  local pid=$SERVER_PID
  for _ in $(seq 50); do [[ -n $(servers::port_holder "$PORT") ]] && break; sleep 0.1; done
  [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
  run -0 servers::stop "$pid" 1
  [[ $output == *"sending KILL"* ]]
  run -1 servers::alive "$pid"
  servers::wait_port_free "$PORT" 5
  SERVER_PID=''
}

@test "certs::ensure makes a CA and a server certificate it signed, for localhost and 127.0.0.1, once" {
  local dir="$CONFORMANCE_TMP/certs dir" before
  certs::ensure "$dir"
  for f in ca.pem ca.key server.pem server.key; do [ -s "$dir/$f" ]; done
  openssl verify -CAfile "$dir/ca.pem" "$dir/server.pem"
  openssl x509 -in "$dir/server.pem" -noout -checkhost localhost | grep -q 'does match'
  openssl x509 -in "$dir/server.pem" -noout -checkip 127.0.0.1 | grep -q 'does match'
  grep -q 'BEGIN PRIVATE KEY' "$dir/server.key" # PKCS#8, what both servers read
  [ "$(stat -c %a "$dir/server.key")" = 600 ]
  # kept while valid; remade when the names asked for change
  before=$(sha256sum <"$dir/server.pem")
  certs::ensure "$dir"
  [ "$(sha256sum <"$dir/server.pem")" = "$before" ]
  BARRAGE_CERT_SANS=bench.example,10.1.2.3 certs::ensure "$dir"
  [ "$(sha256sum <"$dir/server.pem")" != "$before" ]
  openssl x509 -in "$dir/server.pem" -noout -checkip 10.1.2.3 | grep -q 'does match'
  openssl x509 -in "$dir/server.pem" -noout -checkhost bench.example | grep -q 'does match'
}

@test "contract::verify over h3 verifies the certificate: another CA's fails every item, at once" {
  require_built netty
  start netty
  local other="$CONFORMANCE_TMP/other ca"
  certs::ensure "$other"
  local began=$SECONDS
  TLS_CA="$other/ca.pem" run contract::verify netty "http://127.0.0.1:$PORT" h3
  [ "$status" -eq 1 ]
  [[ $output == *"not ok - netty h3 GET /: h3client: 7 QUIC handshake with 127.0.0.1 udp port $PORT failed (certificate not verified"* ]]
  [[ $output == *"not ok - netty h3 50 concurrent requests: not tried: "* ]]
  [[ $output != *$'\nok - '* && $output != 'ok - '* ]]
  ((SECONDS - began < 15))
}

@test "servers::build skips Maven when every artifact is up to date" {
  require_built jdk-httpserver
  mkdir -p "$CONFORMANCE_TMP/no maven"
  printf '#!/bin/sh\necho "mvn must not run" >&2\nexit 1\n' >"$CONFORMANCE_TMP/no maven/mvn"
  chmod +x "$CONFORMANCE_TMP/no maven/mvn"
  PATH="$CONFORMANCE_TMP/no maven:$PATH" run servers::build jdk-httpserver
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

# --- the fleet ---------------------------------------------------------------------

@test "jdk-httpserver: builds" { require_built jdk-httpserver; }
@test "jdk-httpserver: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws jdk-httpserver; }
@test "jdk-httpserver: contract over h1" { conforms jdk-httpserver h1; }
@test "jdk-httpserver: contract over h2c (prior knowledge and Upgrade)" { conforms jdk-httpserver h2c; }
@test "jdk-httpserver: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm jdk-httpserver; }
@test "jdk-httpserver: exits non-zero at once when its port is taken" { exits_when_port_taken jdk-httpserver; }
@test "jdk-httpserver: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls jdk-httpserver h1s; }
@test "jdk-httpserver: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls jdk-httpserver h2; }
@test "jdk-httpserver: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert jdk-httpserver; }
@test "jdk-httpserver: exits non-zero at once when its TLS port is taken" { exits_when_port_taken jdk-httpserver tls; }

@test "jetty: builds" { require_built jetty; }
@test "jetty: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws jetty; }
@test "jetty: contract over h1" { conforms jetty h1; }
@test "jetty: contract over h2c (prior knowledge and Upgrade)" { conforms jetty h2c; }
@test "jetty: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm jetty; }
@test "jetty: exits non-zero at once when its port is taken" { exits_when_port_taken jetty; }
@test "jetty: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls jetty h1s; }
@test "jetty: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls jetty h2; }
@test "jetty: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert jetty; }
@test "jetty: exits non-zero at once when its TLS port is taken" { exits_when_port_taken jetty tls; }
@test "jetty: contract over h3 (QUIC on the same port number, certificate verified)" { conforms jetty h3 required; }
@test "jetty: barrage --h3 gets /hello and POST /load answered, counted exactly" { barrage_h3 jetty; }
@test "jetty: exits non-zero at once when its port number is taken on UDP" { exits_when_port_taken jetty udp; }
@test "jetty: quiche's native library is its own copy (not the shared one another Jetty overwrites), removed on stop" { jetty_private_quiche; }
@test "jetty: started by hand without TLS_CERT and TLS_KEY, serves h1 and h2c and says h3 is off" { starts_without_cert jetty; }

@test "netty: builds" { require_built netty; }
@test "netty: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws netty; }
@test "netty: contract over h1" { conforms netty h1; }
@test "netty: contract over h2c (prior knowledge and Upgrade)" { conforms netty h2c; }
@test "netty: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm netty; }
@test "netty: exits non-zero at once when its port is taken" { exits_when_port_taken netty; }
@test "netty: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls netty h1s; }
@test "netty: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls netty h2; }
@test "netty: openssl variant: contract over h1s on OpenSSL (netty-tcnative), named tls_provider=openssl" { conforms_tls_variant netty openssl h1s openssl; }
@test "netty: openssl variant: contract over h2 on OpenSSL (netty-tcnative), named tls_provider=openssl" { conforms_tls_variant netty openssl h2 openssl; }
@test "netty: openssl variant: exits 2 naming the cause when OpenSSL does not load (no fall-back to JSSE)" { openssl_or_exit netty openssl; }
@test "netty: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert netty; }
@test "netty: exits non-zero at once when its TLS port is taken" { exits_when_port_taken netty tls; }
@test "netty: contract over h3 (QUIC on the same port number, certificate verified)" { conforms netty h3 required; }
@test "netty: barrage --h3 gets /hello and POST /load answered, counted exactly" { barrage_h3 netty; }
@test "netty: exits non-zero at once when its port number is taken on UDP" { exits_when_port_taken netty udp; }
@test "netty: started by hand without TLS_CERT and TLS_KEY, serves h1 and h2c and says h3 is off" { starts_without_cert netty; }

@test "tomcat: builds" { require_built tomcat; }
@test "tomcat: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws tomcat; }
@test "tomcat: contract over h1" { conforms tomcat h1; }
@test "tomcat: contract over h2c (prior knowledge and Upgrade)" { conforms tomcat h2c; }
@test "tomcat: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm tomcat; }
@test "tomcat: exits non-zero at once when its port is taken" { exits_when_port_taken tomcat; }
@test "tomcat: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls tomcat h1s; }
@test "tomcat: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls tomcat h2; }
@test "tomcat: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert tomcat; }
@test "tomcat: exits non-zero at once when its TLS port is taken" { exits_when_port_taken tomcat tls; }

@test "java-http: builds" { require_built java-http; }
@test "java-http: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws java-http; }
@test "java-http: contract over h1" { conforms java-http h1; }
@test "java-http: contract over h2c (prior knowledge and Upgrade)" { conforms java-http h2c; }
@test "java-http: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm java-http; }
@test "java-http: exits non-zero at once when its port is taken" { exits_when_port_taken java-http; }
@test "java-http: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls java-http h1s; }
@test "java-http: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls java-http h2; }
@test "java-http: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert java-http; }
@test "java-http: exits non-zero at once when its TLS port is taken" { exits_when_port_taken java-http tls; }

@test "undertow: builds" { require_built undertow; }
@test "undertow: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws undertow; }
@test "undertow: contract over h1" { conforms undertow h1; }
@test "undertow: contract over h2c (prior knowledge and Upgrade)" { conforms undertow h2c; }
@test "undertow: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm undertow; }
@test "undertow: exits non-zero at once when its port is taken" { exits_when_port_taken undertow; }
@test "undertow: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls undertow h1s; }
@test "undertow: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls undertow h2; }
@test "undertow: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert undertow; }
@test "undertow: exits non-zero at once when its TLS port is taken" { exits_when_port_taken undertow tls; }

@test "vertx: builds" { require_built vertx; }
@test "vertx: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws vertx; }
@test "vertx: contract over h1" { conforms vertx h1; }
@test "vertx: contract over h2c (prior knowledge and Upgrade)" { conforms vertx h2c; }
@test "vertx: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm vertx; }
@test "vertx: exits non-zero at once when its port is taken" { exits_when_port_taken vertx; }
@test "vertx: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls vertx h1s; }
@test "vertx: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls vertx h2; }
@test "vertx: openssl variant: contract over h1s on OpenSSL (netty-tcnative), named tls_provider=openssl" { conforms_tls_variant vertx openssl h1s openssl; }
@test "vertx: openssl variant: contract over h2 on OpenSSL (netty-tcnative), named tls_provider=openssl" { conforms_tls_variant vertx openssl h2 openssl; }
@test "vertx: openssl variant: exits 2 naming the cause when OpenSSL does not load (no fall-back to JSSE)" { openssl_or_exit vertx openssl; }
@test "vertx: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert vertx; }
@test "vertx: exits non-zero at once when its TLS port is taken" { exits_when_port_taken vertx tls; }

@test "helidon: builds" { require_built helidon; }
@test "helidon: WebSocket echo at /ws (upgrade, text, binary, ping, close), or none declared" { conforms_ws helidon; }
@test "helidon: contract over h1" { conforms helidon h1; }
@test "helidon: contract over h2c (prior knowledge and Upgrade)" { conforms helidon h2c; }
@test "helidon: stops on SIGTERM within 5 s and frees its port" { stops_on_sigterm helidon; }
@test "helidon: exits non-zero at once when its port is taken" { exits_when_port_taken helidon; }
@test "helidon: contract over h1s (HTTP/1.1 over TLS, certificate verified)" { conforms_tls helidon h1s; }
@test "helidon: contract over h2 (HTTP/2 over TLS by ALPN, certificate verified)" { conforms_tls helidon h2; }
@test "helidon: says tls=off without TLS_PORT, and exits when TLS_PORT has no certificate" { tls_needs_cert helidon; }
@test "helidon: exits non-zero at once when its TLS port is taken" { exits_when_port_taken helidon tls; }
