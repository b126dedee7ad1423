#!/usr/bin/env bash
# contract: check a running server against servers/CONTRACT.md over HTTP, with curl.
#
#   contract::verify LABEL BASE_URL PROTOCOLS [TLS_BASE_URL]
#     LABEL names the server in the output; BASE_URL like http://127.0.0.1:PORT;
#     PROTOCOLS like `h1`, `h1,h2c` or `h3`. Runs every contract item over each mode the
#     protocols imply: h1 (HTTP/1.1), h2c (HTTP/2 with prior knowledge),
#     h2c-upgrade (HTTP/1.1 Upgrade: h2c), h3 (HTTP/3 over QUIC on the same port
#     number, UDP, with lib/h3client.py), h1s (HTTP/1.1 over TLS, curl offering only
#     http/1.1 by ALPN) and h2 (HTTP/2 over TLS, curl offering h2 by ALPN) at TLS_BASE_URL
#     (default https://HOST:PORT+1, servers::tls_port's); every TLS mode verifies the
#     server's certificate against $TLS_CA, default certs::dir's ca.pem. Prints one TAP-like line per item on
#     stdout (`ok - LABEL MODE ITEM` / `not ok - LABEL MODE ITEM: reason`).
#     Returns 0 when every item passed, 1 otherwise. Every curl call is bounded
#     (--max-time $CONTRACT_MAX_TIME, default 20 s). Temp files live in a mktemp dir
#     removed at the end. Stopping the server (SIGTERM) is the caller's check.
#   contract::requires PROTOCOLS
#     Prints the COMMAND:DEBIAN_PACKAGE lines (for deps::ensure) that verifying PROTOCOLS
#     needs: curl always, h2load when they include h2c or h2, python3 with venv and openssl
#     when they include h3, so that a missing tool is a set-up error before anything
#     starts instead of a server failing its verification.
#   contract::verify_ws LABEL BASE
#     The WebSocket items of servers/CONTRACT.md at BASE's /ws (ws:// for BASE's http://), by
#     lib/wscheck.py on Python's websockets (.cache/wsvenv): upgrade, text and binary echo,
#     ping, close. TAP lines `LABEL ws ITEM` on stdout; returns 1 when one failed.
#   contract::ensure_wsclient
#     Makes the virtual environment of Python's websockets ($BARRAGE_WS_VENV, default
#     .cache/wsvenv, git-ignored) with websockets $CONTRACT_WEBSOCKETS_VERSION from PyPI, unless
#     it is there already: client/tests/ws's echo server. Prints nothing on stdout; returns 1
#     (with a message) if it cannot.
#   contract::ensure_h3client
#     Makes the virtual environment lib/h3client.py runs in ($BARRAGE_H3_VENV, default
#     .cache/h3venv, git-ignored) with aioquic $CONTRACT_AIOQUIC_VERSION from PyPI, unless
#     it is there already. Prints nothing on stdout; returns 1 (with a message) if it cannot.
# Needs curl (with HTTP/2), h2load (nghttp2-client) for h2c, base64, sha256sum, timeout;
# for h3 python3 (with venv) and aioquic. Sources lib/certs.sh (certs::dir for the CA).

CONTRACT_MAX_TIME=${CONTRACT_MAX_TIME:-20}
CONTRACT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/certs.sh
source "$CONTRACT_LIB_DIR/certs.sh"
# shellcheck source=lib/deps.sh
source "$CONTRACT_LIB_DIR/deps.sh"
CONTRACT_H3_VENV=${BARRAGE_H3_VENV:-$(dirname "$CONTRACT_LIB_DIR")/.cache/h3venv}
CONTRACT_AIOQUIC_VERSION=1.7.2
CONTRACT_WS_VENV=${BARRAGE_WS_VENV:-$(dirname "$CONTRACT_LIB_DIR")/.cache/wsvenv}
CONTRACT_WEBSOCKETS_VERSION=15.0.1 # client/tests/ws/run.py's WEBSOCKETS_VERSION too
CONTRACT_H3_CONNECT_TIME=${CONTRACT_H3_CONNECT_TIME:-10}
# /file's content: byte i is 'a' + i % 26 (see servers/CONTRACT.md); this is the
# SHA-256 of the default 1048576 bytes.
CONTRACT_FILE_1MIB_SHA256=8816f31ba2861e2a7ad907085905efdea5b458d26ed6fe4929ae21467ba1fa97

# State of the current verify run (set by contract::verify and contract::_fetch).
CONTRACT_TMP='' CONTRACT_BASE='' CONTRACT_STATUS='' CONTRACT_VERSION='' CONTRACT_REASON=''
# h3 mode: the https:// form of the base URL and the CA the certificate is verified against.
CONTRACT_H3_BASE='' CONTRACT_CA=''
# h3 mode: the h3client coprocess's pipes, and why it cannot connect (then nothing is tried).
CONTRACT_H3_IN='' CONTRACT_H3_OUT='' CONTRACT_H3_DOWN=''
# 1: in h2c-upgrade mode, each request rides a connection a GET /hello upgraded first.
CONTRACT_UPGRADE_FIRST=1
# The current mode's curl options for TLS (h1s, h2): --cacert CONTRACT_CA; none otherwise.
CONTRACT_CURL_TLS=()

contract::requires() {
  printf '%s\n' curl:curl
  [[ ,$1, == *,h2c,* || ,$1, == *,h2,* ]] && printf '%s\n' h2load:nghttp2-client
  [[ ,$1, == *,h3,* ]] && printf '%s\n' python3:python3 openssl:openssl
  return 0
}

contract::ensure_wsclient() {
  deps::ensure_venv "$CONTRACT_WS_VENV" websockets "$CONTRACT_WEBSOCKETS_VERSION" "for the WebSocket tests"
}

contract::verify_ws() {
  local label=$1 base=${2%/}
  if ! contract::ensure_wsclient; then
    printf 'not ok - %s ws: no WebSocket client (websockets in %s)\n' "$label" "$CONTRACT_WS_VENV"
    return 1
  fi
  timeout $((CONTRACT_MAX_TIME * 2)) "$CONTRACT_WS_VENV/bin/python" "$CONTRACT_LIB_DIR/wscheck.py" "$label" \
    "ws://${base#*://}/ws" --timeout "$CONTRACT_MAX_TIME"
}

contract::ensure_h3client() {
  deps::ensure_venv "$CONTRACT_H3_VENV" aioquic "$CONTRACT_AIOQUIC_VERSION" "for the h3 checks"
}

# contract::_h3client ARGS...: lib/h3client.py, bounded, verifying against CONTRACT_CA.
contract::_h3client() {
  "$CONTRACT_H3_VENV/bin/python" "$CONTRACT_LIB_DIR/h3client.py" --cacert "$CONTRACT_CA" \
    --max-time "$CONTRACT_MAX_TIME" --connect-timeout "$CONTRACT_H3_CONNECT_TIME" "$@"
}

# contract::_h3_open: h3 mode's single requests all go to one lib/h3client.py --stdin, a
# coprocess keeping one QUIC connection (one interpreter start and one handshake in all).
contract::_h3_open() {
  CONTRACT_H3_DOWN=''
  coproc CONTRACT_H3 { contract::_h3client --stdin 2>>"$CONTRACT_TMP/h3-err"; }
  CONTRACT_H3_IN=${CONTRACT_H3[1]} CONTRACT_H3_OUT=${CONTRACT_H3[0]}
}

# contract::_h3_close: ends the coprocess (EOF on its stdin; KILL if it lingers).
contract::_h3_close() {
  local fd=$CONTRACT_H3_IN pid=${CONTRACT_H3_PID:-} i
  [[ -n $fd ]] && exec {fd}>&-
  CONTRACT_H3_IN=''
  [[ -n $pid ]] || return 0
  for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# contract::_h3_fetch METHOD PATH [BODYFILE]: contract::_fetch over HTTP/3, by the coprocess.
# Once a connection cannot be made, later requests fail at once with that reason.
contract::_h3_fetch() {
  local method=$1 path=$2 bodyfile=${3:-} answer=''
  [[ -z $CONTRACT_H3_DOWN ]] || { CONTRACT_REASON="not tried: $CONTRACT_H3_DOWN"; return 1; }
  # (a write to a pipe with no reader would kill this shell with SIGPIPE: check it runs first)
  if [[ -z $CONTRACT_H3_IN ]] || ! kill -0 "${CONTRACT_H3_PID:-0}" 2>/dev/null ||
    ! printf '%s\t%s\t%s\t%s\t%s\n' "$method" "$CONTRACT_H3_BASE$path" "$bodyfile" \
      "$CONTRACT_TMP/all-headers" "$CONTRACT_TMP/body" 1>&"$CONTRACT_H3_IN" 2>/dev/null ||
    ! read -r -t "$((CONTRACT_MAX_TIME + CONTRACT_H3_CONNECT_TIME + 5))" answer <&"$CONTRACT_H3_OUT"; then
    CONTRACT_H3_DOWN="h3client stopped: $(tail -c 300 "$CONTRACT_TMP/h3-err" 2>/dev/null | tr '\n' ' ')"
    CONTRACT_REASON=$CONTRACT_H3_DOWN
    return 1
  fi
  if [[ $answer == ERR\ * ]]; then
    CONTRACT_REASON="h3client: ${answer#ERR }"
    [[ $answer == 'ERR 7 '* ]] && CONTRACT_H3_DOWN=$CONTRACT_REASON
    return 1
  fi
  read -r CONTRACT_STATUS CONTRACT_VERSION <<<"$answer"
  tr -d '\r' <"$CONTRACT_TMP/all-headers" >"$CONTRACT_TMP/headers"
}

# contract::_curl_mode MODE: curl's protocol option for a mode.
contract::_curl_mode() {
  case $1 in
    h1) printf '%s\n' --http1.1 ;;
    h2c) printf '%s\n' --http2-prior-knowledge ;;
    h2c-upgrade|h2) printf '%s\n' --http2 ;;
    h1s) printf '%s\n' --http1.1 ;;
  esac
}

# contract::_fetch MODE METHOD PATH [BODYFILE]: one request. The final response's
# headers go to $CONTRACT_TMP/headers, its body to $CONTRACT_TMP/body; sets
# CONTRACT_STATUS and CONTRACT_VERSION. Returns 1 (CONTRACT_REASON set) if curl failed.
contract::_fetch() {
  local mode=$1 method=$2 path=$3 bodyfile=${4:-} out rc=0
  [[ $mode == h3 ]] && { contract::_h3_fetch "$method" "$path" "$bodyfile"; return; }
  local args=(-sS --max-time "$CONTRACT_MAX_TIME" "$(contract::_curl_mode "$mode")" "${CONTRACT_CURL_TLS[@]}" -X "$method"
    -D "$CONTRACT_TMP/all-headers" -o "$CONTRACT_TMP/body" -w '%{http_code} %{http_version}')
  [[ -n $bodyfile ]] && args+=(--data-binary "@$bodyfile" -H 'Content-Type: application/octet-stream')
  if [[ $mode == h2c-upgrade ]] && ((CONTRACT_UPGRADE_FIRST)); then
    # Upgrade with a small GET first, then send the request on the upgraded connection:
    # curl 7.88 fails when more than 32 KiB of HTTP/2 data follows the 101 response
    # ("connection buffer size is too small"), and a server may decline to upgrade a
    # request that has a body (RFC 7540 section 3.2).
    args=(-sS --max-time "$CONTRACT_MAX_TIME" --http2 -o /dev/null -w '%{http_code} %{http_version}\n'
      "$CONTRACT_BASE/hello" --next "${args[@]}")
  fi
  out=$(curl "${args[@]}" "$CONTRACT_BASE$path" 2>"$CONTRACT_TMP/curl-err") || rc=$?
  if ((rc != 0)); then
    CONTRACT_REASON="curl failed (exit $rc): $(head -c 200 "$CONTRACT_TMP/curl-err")"
    return 1
  fi
  read -r CONTRACT_STATUS CONTRACT_VERSION <<<"${out##*$'\n'}"
  # After an Upgrade, curl records the 101 response too: keep the last header block.
  awk '/^HTTP\//{n++} {block[n]=block[n] $0 "\n"} END{printf "%s", block[n]}' \
    "$CONTRACT_TMP/all-headers" | tr -d '\r' >"$CONTRACT_TMP/headers"
}

# contract::_header NAME: the value of a header of the last response (first occurrence).
contract::_header() {
  awk -v name="$1" 'BEGIN{IGNORECASE=1} index(tolower($0), tolower(name) ":") == 1 {
    sub(/^[^:]*:[ \t]*/, ""); print; exit }' "$CONTRACT_TMP/headers"
}

# contract::_response MODE STATUS: the last response has STATUS, the mode's HTTP
# version, Date and Server headers and consistent framing.
contract::_response() {
  local mode=$1 want=$2 size length encoding
  if [[ $CONTRACT_STATUS != "$want" ]]; then
    CONTRACT_REASON="got status $CONTRACT_STATUS, want $want (body: $(head -c 120 "$CONTRACT_TMP/body" | tr -c '[:print:]' ' '))"
    return 1
  fi
  local version=2
  [[ $mode == h1 || $mode == h1s ]] && version=1.1
  [[ $mode == h3 ]] && version=3
  [[ $CONTRACT_VERSION == "$version" ]] || { CONTRACT_REASON="got HTTP/$CONTRACT_VERSION, want HTTP/$version"; return 1; }
  [[ -n $(contract::_header date) ]] || { CONTRACT_REASON="no Date header"; return 1; }
  [[ -n $(contract::_header server) ]] || { CONTRACT_REASON="no Server header"; return 1; }
  size=$(wc -c <"$CONTRACT_TMP/body")
  length=$(contract::_header content-length)
  encoding=$(contract::_header transfer-encoding)
  if [[ -n $length ]]; then
    [[ $length == "$size" ]] || { CONTRACT_REASON="Content-Length $length but $size body bytes"; return 1; }
  elif [[ ($mode == h1 || $mode == h1s) && ${encoding,,} != *chunked* ]]; then
    CONTRACT_REASON="neither Content-Length nor chunked framing"
    return 1
  elif [[ $mode == h3 ]]; then
    CONTRACT_REASON="no Content-Length"
    return 1
  fi
}

# contract::_expect_body MODE METHOD PATH BODYFILE STATUS EXPECTED_FILE: the response
# has STATUS and exactly the bytes of EXPECTED_FILE.
contract::_expect_body() {
  local mode=$1 method=$2 path=$3 bodyfile=$4 status=$5 expected=$6
  contract::_fetch "$mode" "$method" "$path" "$bodyfile" || return 1
  contract::_response "$mode" "$status" || return 1
  cmp -s "$expected" "$CONTRACT_TMP/body" && return 0
  CONTRACT_REASON="body differs: got $(wc -c <"$CONTRACT_TMP/body") bytes starting '$(head -c 40 "$CONTRACT_TMP/body" | tr -c '[:print:]' '.')', want $(wc -c <"$expected") bytes starting '$(head -c 40 "$expected" | tr -c '[:print:]' '.')'"
  return 1
}

# contract::_expect_hello MODE: GET /hello is 200 `Hello world` as text/plain.
contract::_expect_hello() {
  local mode=$1 type
  contract::_expect_body "$mode" GET /hello '' 200 "$CONTRACT_TMP/hello" || return 1
  type=$(contract::_header content-type)
  [[ ${type,,} =~ ^text/plain([[:space:]]*\;.*)?$ ]] && return 0
  CONTRACT_REASON="Content-Type '$type', want text/plain"
  return 1
}

# contract::_expect_upgrade: a lone GET /hello with Upgrade: h2c is answered over HTTP/2.
contract::_expect_upgrade() {
  local rc=0
  CONTRACT_UPGRADE_FIRST=0
  contract::_expect_hello h2c-upgrade || rc=1
  CONTRACT_UPGRADE_FIRST=1
  return "$rc"
}

# contract::_expect_file MODE QUERY SIZE SHA256: GET /file?QUERY is 200 with SIZE bytes
# of the contract's pattern.
contract::_expect_file() {
  local mode=$1 query=$2 size=$3 want=$4 got
  contract::_fetch "$mode" GET "/file$query" || return 1
  contract::_response "$mode" 200 || return 1
  got=$(wc -c <"$CONTRACT_TMP/body")
  [[ $got == "$size" ]] || { CONTRACT_REASON="got $got bytes, want $size"; return 1; }
  got=$(sha256sum <"$CONTRACT_TMP/body")
  got=${got%% *}
  [[ $got == "$want" ]] || { CONTRACT_REASON="sha256 $got, want $want"; return 1; }
}

# contract::_expect_bad_size MODE QUERY: GET /file?QUERY is 400 with a one-line reason.
contract::_expect_bad_size() {
  local mode=$1 query=$2 text
  contract::_fetch "$mode" GET "/file$query" || return 1
  contract::_response "$mode" 400 || return 1
  text=$(<"$CONTRACT_TMP/body")
  if [[ -z ${text//[[:space:]]/} || $text == *$'\n'* ]]; then
    CONTRACT_REASON="want a one-line reason, got $(wc -l <"$CONTRACT_TMP/body") lines: '$(head -c 80 "$CONTRACT_TMP/body")'"
    return 1
  fi
}

# contract::_expect_status MODE METHOD PATH STATUS: only the status line and headers matter.
contract::_expect_status() {
  contract::_fetch "$1" "$2" "$3" || return 1
  contract::_response "$1" "$4"
}

# contract::_h2load COUNT STREAMS: COUNT GET /hello over one HTTP/2 connection (h2c with
# prior knowledge, or h2 by ALPN on https://), STREAMS at a time, all answered 2xx. h2load
# rather than curl: curl 7.88 (Debian 12) cannot reuse a prior-knowledge connection
# (curl/curl#10634, fixed in 8.0), and over TLS it opens a new connection now and then when a
# TLS 1.3 session ticket arrives after a response (seen with Jetty: 3 to 28 for 100).
contract::_h2load() {
  local count=$1 streams=$2 out rc=0
  out=$(timeout "$CONTRACT_MAX_TIME" h2load -n "$count" -c 1 -m "$streams" "$CONTRACT_BASE/hello" 2>&1) || rc=$?
  ((rc == 0)) || { CONTRACT_REASON="h2load failed (exit $rc): $(tail -n 3 <<<"$out" | tr '\n' ' ')"; return 1; }
  if ! grep -q "^requests: $count total, $count started, $count done, $count succeeded" <<<"$out" ||
    ! grep -q "^status codes: $count 2xx" <<<"$out"; then
    CONTRACT_REASON="h2load: $(grep -E '^(requests|status codes):' <<<"$out" | tr '\n' ' ')"
    return 1
  fi
}

# contract::_h3_many --repeat|--parallel COUNT: COUNT GET /hello over one QUIC connection,
# one after another or all at once, each answered 200 `Hello world`.
contract::_h3_many() {
  local how=$1 count=$2 out rc=0 ok
  [[ -z $CONTRACT_H3_DOWN ]] || { CONTRACT_REASON="not tried: $CONTRACT_H3_DOWN"; return 1; }
  out=$(contract::_h3client "$how" "$count" "$CONTRACT_H3_BASE/hello" 2>"$CONTRACT_TMP/curl-err") || rc=$?
  ((rc == 0)) || { CONTRACT_REASON="h3client failed (exit $rc): $(tail -c 300 "$CONTRACT_TMP/curl-err" | tr '\n' ' ')"; return 1; }
  ok=$(grep -c '^200 11$' <<<"$out" || true)
  ((ok == count)) || { CONTRACT_REASON="$ok of $count answered 200 'Hello world'"; return 1; }
}

# contract::_expect_keepalive MODE COUNT: COUNT GET /hello on one connection.
contract::_expect_keepalive() {
  local mode=$1 count=$2 args=() i out rc=0 opened ok
  [[ $mode == h2c || $mode == h2 ]] && { contract::_h2load "$count" 1; return; }
  [[ $mode == h3 ]] && { contract::_h3_many --repeat "$count"; return; }
  for ((i = 0; i < count; i++)); do args+=(-o /dev/null "$CONTRACT_BASE/hello"); done
  out=$(curl -sS --max-time "$CONTRACT_MAX_TIME" "$(contract::_curl_mode "$mode")" "${CONTRACT_CURL_TLS[@]}" \
    -w '%{http_code} %{num_connects}\n' "${args[@]}" 2>"$CONTRACT_TMP/curl-err") || rc=$?
  ((rc == 0)) || { CONTRACT_REASON="curl failed (exit $rc): $(head -c 200 "$CONTRACT_TMP/curl-err")"; return 1; }
  ok=$(grep -c '^200 ' <<<"$out" || true)
  opened=$(awk '{n += $2} END{print n + 0}' <<<"$out")
  ((ok == count)) || { CONTRACT_REASON="$ok of $count answered 200"; return 1; }
  ((opened == 1)) || { CONTRACT_REASON="$opened connections opened for $count requests, want 1"; return 1; }
}

# contract::_expect_concurrent MODE COUNT: COUNT GET /hello in flight at once.
contract::_expect_concurrent() {
  local mode=$1 count=$2 args=() i out rc=0 ok
  [[ $mode == h2c || $mode == h2 ]] && { contract::_h2load "$count" "$count"; return; }
  [[ $mode == h3 ]] && { contract::_h3_many --parallel "$count"; return; }
  for ((i = 0; i < count; i++)); do args+=(-o /dev/null "$CONTRACT_BASE/hello"); done
  out=$(curl -sS --max-time "$CONTRACT_MAX_TIME" "$(contract::_curl_mode "$mode")" "${CONTRACT_CURL_TLS[@]}" \
    --parallel --parallel-max "$count" -w '%{http_code} %{size_download}\n' "${args[@]}" \
    2>"$CONTRACT_TMP/curl-err") || rc=$?
  ((rc == 0)) || { CONTRACT_REASON="curl failed (exit $rc): $(head -c 200 "$CONTRACT_TMP/curl-err")"; return 1; }
  ok=$(grep -c '^200 11$' <<<"$out" || true)
  ((ok == count)) || { CONTRACT_REASON="$ok of $count answered 200 'Hello world'"; return 1; }
}

# contract::_item LABEL MODE ITEM CHECK ARGS...: run one check, print its TAP-like line.
contract::_item() {
  local label=$1 mode=$2 item=$3
  shift 3
  CONTRACT_REASON=''
  if "$@"; then
    printf 'ok - %s %s %s\n' "$label" "$mode" "$item"
    return 0
  fi
  printf 'not ok - %s %s %s: %s\n' "$label" "$mode" "$item" "${CONTRACT_REASON:-failed}"
  return 1
}

# contract::_prepare DIR: the request bodies and expected responses every mode uses.
contract::_prepare() {
  local dir=$1 size
  printf 'Hello world' >"$dir/hello"
  : >"$dir/empty"
  printf 'a' >"$dir/file-1"
  head -c 1024 /dev/urandom >"$dir/body-1KiB"
  for size in 0 1 300 1048576; do
    head -c "$size" /dev/urandom >"$dir/load-$size"
    base64 -w0 <"$dir/load-$size" >"$dir/load-$size.b64"
  done
}

# contract::_verify_mode LABEL MODE: every item over one mode; returns 1 if any failed.
contract::_verify_mode() {
  local label=$1 mode=$2 failed=0 t=$CONTRACT_TMP size
  local item=(contract::_item "$label" "$mode")
  [[ $mode == h2c-upgrade ]] && { "${item[@]}" 'GET /hello upgrades to HTTP/2' contract::_expect_upgrade || failed=1; }
  "${item[@]}" 'GET /' contract::_expect_body "$mode" GET / '' 200 "$t/empty" || failed=1
  "${item[@]}" 'GET / with a 1 KiB body' contract::_expect_body "$mode" GET / "$t/body-1KiB" 200 "$t/empty" || failed=1
  "${item[@]}" 'GET /no-read' contract::_expect_body "$mode" GET /no-read '' 200 "$t/empty" || failed=1
  "${item[@]}" 'GET /hello' contract::_expect_hello "$mode" || failed=1
  "${item[@]}" '/file?size=0' contract::_expect_body "$mode" GET '/file?size=0' '' 200 "$t/empty" || failed=1
  "${item[@]}" '/file?size=1' contract::_expect_body "$mode" GET '/file?size=1' '' 200 "$t/file-1" || failed=1
  "${item[@]}" '/file?size=1048576' contract::_expect_file "$mode" '?size=1048576' 1048576 "$CONTRACT_FILE_1MIB_SHA256" || failed=1
  "${item[@]}" '/file (default size)' contract::_expect_file "$mode" '' 1048576 "$CONTRACT_FILE_1MIB_SHA256" || failed=1
  "${item[@]}" '/file?size=-1 is 400' contract::_expect_bad_size "$mode" '?size=-1' || failed=1
  "${item[@]}" '/file?size=abc is 400' contract::_expect_bad_size "$mode" '?size=abc' || failed=1
  "${item[@]}" '/file?size=104857601 is 400' contract::_expect_bad_size "$mode" '?size=104857601' || failed=1
  for size in 0 1 300 1048576; do
    "${item[@]}" "POST /load $( ((size == 1048576)) && echo 1MiB || echo "${size}B")" \
      contract::_expect_body "$mode" POST /load "$t/load-$size" 200 "$t/load-$size.b64" || failed=1
  done
  "${item[@]}" 'GET /no-such-path is 404' contract::_expect_status "$mode" GET /no-such-path 404 || failed=1
  "${item[@]}" 'POST /hello is 405' contract::_expect_status "$mode" POST /hello 405 || failed=1
  "${item[@]}" 'GET /load is 405' contract::_expect_status "$mode" GET /load 405 || failed=1
  "${item[@]}" '100 requests on one connection' contract::_expect_keepalive "$mode" 100 || failed=1
  "${item[@]}" '50 concurrent requests' contract::_expect_concurrent "$mode" 50 || failed=1
  return "$failed"
}

# contract::_tls_base BASE_URL: https:// at the same host, on the suite's TLS port (PORT + 1).
contract::_tls_base() {
  local hostport=${1#*://} port
  hostport=${hostport%%/*}
  port=${hostport##*:}
  printf 'https://%s:%s\n' "${hostport%:*}" "$((port + 1))"
}

contract::verify() {
  local label=$1 base=$2 protocols=$3 tls_base=${4:-} proto_list=() modes=() proto mode failed=0
  IFS=, read -r -a proto_list <<<"$protocols"
  for proto in "${proto_list[@]}"; do
    case $proto in
      h1) modes+=(h1) ;;
      h2c) modes+=(h2c h2c-upgrade) ;;
      h3) modes+=(h3) ;;
      h1s) modes+=(h1s) ;;
      h2) modes+=(h2) ;;
      *) printf 'not ok - %s %s: unknown protocol\n' "$label" "$proto"; failed=1 ;;
    esac
  done
  CONTRACT_BASE=${base%/}
  CONTRACT_H3_BASE=https://${CONTRACT_BASE#*://}
  CONTRACT_CA=${TLS_CA:-$(certs::dir)/ca.pem}
  if [[ " ${modes[*]} " == *' h3 '* ]] && ! contract::ensure_h3client; then
    printf 'not ok - %s h3: no HTTP/3 client (aioquic in %s)\n' "$label" "$CONTRACT_H3_VENV"
    return 1
  fi
  CONTRACT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/barrage contract.XXXXXX")
  contract::_prepare "$CONTRACT_TMP"
  [[ -n $tls_base ]] || tls_base=$(contract::_tls_base "$CONTRACT_BASE")
  for mode in "${modes[@]}"; do
    [[ $mode == h3 ]] && contract::_h3_open
    CONTRACT_CURL_TLS=()
    if [[ $mode == h1s || $mode == h2 ]]; then
      CONTRACT_CURL_TLS=(--cacert "$CONTRACT_CA")
      CONTRACT_BASE=${tls_base%/} contract::_verify_mode "$label" "$mode" || failed=1
    else
      contract::_verify_mode "$label" "$mode" || failed=1
    fi
    [[ $mode == h3 ]] && contract::_h3_close
  done
  CONTRACT_CURL_TLS=()
  rm -rf -- "$CONTRACT_TMP"
  CONTRACT_TMP=''
  return "$failed"
}
