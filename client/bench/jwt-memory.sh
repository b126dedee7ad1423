#!/usr/bin/env bash
# jwt-memory.sh: barrage's resident memory while it signs a JWT per request (--jwt-key).
#
#   client/bench/jwt-memory.sh [--requests N] [--max-duration SECONDS] [--interval SECONDS]
#                              [--alg ES256|RS256|HS256] [--connections N] [--cpus LIST] [--rate N] [--baseline]
#
# Makes a key with openssl (in a temporary directory, removed at the end), starts nginx
# (one worker, `return 200`) on a free 127.0.0.1 port pinned to core 0 and runs barrage
# -t 1 -c CONNECTIONS (default 50) -n REQUESTS (default 1000000) --jwt-key KEY on the cores
# of --cpus (default 1; barrage's signer thread runs there too), at most MAX-DURATION seconds
# (default 600), closed loop or at --rate N requests/s. Every INTERVAL seconds (default 2) it samples barrage's VmRSS from /proc.
# Prints each sample, then: requests, the record's jwt object, RSS at the first sample, at
# the end of the first sixth of the run, the highest after it and the last, and the growth
# after the first sixth per request (bytes per request). Flat means: no growth beyond a few
# hundred KiB, far under a byte per request (a token is over 200 bytes: keeping them would
# show as hundreds of MiB). --baseline runs barrage once more without --jwt-key to compare.
# Not part of run-tests.sh: memory is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REQUESTS=1000000
MAX_DURATION=600
INTERVAL=2
ALG=ES256
CONNECTIONS=50
CPUS=1
BASELINE=0
RATE_ARGS=()

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# make_key: the key file for ALG in $WORKDIR, and the barrage options that use it.
make_key() {
  case $ALG in
    ES256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORKDIR/key" 2>/dev/null
           KEY_ARGS=(--jwt-key "$WORKDIR/key") ;;
    RS256) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORKDIR/key" 2>/dev/null
           KEY_ARGS=(--jwt-key "$WORKDIR/key") ;;
    HS256) head -c 32 /dev/urandom > "$WORKDIR/key"
           KEY_ARGS=(--jwt-key "$WORKDIR/key" --jwt-alg HS256) ;;
    *) log::die "unknown --alg $ALG (ES256, RS256, HS256)" ;;
  esac
}

# sample_run NAME ARGS...: barrage ARGS --json in the background, its VmRSS every INTERVAL s
# into $WORKDIR/NAME.rss ("seconds KiB"), then the summary line.
sample_run() {
  local name=$1 pid start now kb
  shift
  taskset -c "$CPUS" "$BARRAGE" -t 1 -c "$CONNECTIONS" -n "$REQUESTS" -d "${MAX_DURATION}s" "${RATE_ARGS[@]}" --json "$@" \
    > "$WORKDIR/$name.json" 2> "$WORKDIR/$name.err" &
  pid=$!
  start=$(date +%s.%N)
  : > "$WORKDIR/$name.rss"
  while kill -0 "$pid" 2>/dev/null; do
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $kb ]] || break
    now=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
    printf '%s %s\n' "$now" "$kb" >> "$WORKDIR/$name.rss"
    printf '%-8s %7ss  RSS %8s KiB\n' "$name" "$now" "$kb" >&2
    sleep "$INTERVAL"
  done
  wait "$pid" || log::die "$name: barrage failed: $(tail -n 3 "$WORKDIR/$name.err")"
  summarize "$name"
}

summarize() {
  local name=$1 requests seconds
  requests=$(jq -r '.requests' "$WORKDIR/$name.json")
  seconds=$(jq -r '.duration_us / 1e6' "$WORKDIR/$name.json")
  awk -v name="$name" -v requests="$requests" -v secs="$seconds" '
    { t[NR] = $1; kb[NR] = $2 }
    END {
      if (NR < 3) { printf "%-8s too few samples (%d)\n", name, NR; exit }
      settle = t[NR] / 6
      for (i = 1; i <= NR; i++) if (t[i] >= settle) { base = kb[i]; bt = t[i]; first = i; break }
      high = base
      for (i = first; i <= NR; i++) if (kb[i] > high) high = kb[i]
      after = requests * (t[NR] - bt) / t[NR]
      printf "%-8s %d requests in %.1f s (%.0f/s); RSS first %d KiB, at %.0fs %d KiB, highest after %d KiB, last %d KiB; growth %+d KiB, %.4f bytes/request\n",
        name, requests, secs, requests / secs, kb[1], bt, base, high, kb[NR], high - base,
        (after > 0 ? (high - base) * 1024 / after : 0)
    }' "$WORKDIR/$name.rss"
}

main() {
  while (($#)); do
    case $1 in
      --requests) REQUESTS=$2; shift 2 ;;
      --max-duration) MAX_DURATION=$2; shift 2 ;;
      --interval) INTERVAL=$2; shift 2 ;;
      --alg) ALG=$2; shift 2 ;;
      --connections) CONNECTIONS=$2; shift 2 ;;
      --cpus) CPUS=$2; shift 2 ;;
      --rate) RATE_ARGS=(-R "$2"); shift 2 ;;
      --baseline) BASELINE=1; shift ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light taskset:util-linux jq:jq curl:curl make:make openssl:openssl || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  make_key
  local port url
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  log::info "nginx on core 0 at $url; barrage -t 1 -c $CONNECTIONS -n $REQUESTS on cores $CPUS with $ALG; RSS every ${INTERVAL}s"
  local summaries=()
  summaries+=("$(sample_run jwt "${KEY_ARGS[@]}" --jwt-iss bench --jwt-sub user --jwt-aud api --jwt-exp 1h "$url")")
  summaries+=("         jwt record: $(jq -c '.jwt' "$WORKDIR/jwt.json"); max_rss_kb $(jq -r '.max_rss_kb' "$WORKDIR/jwt.json")")
  if ((BASELINE)); then
    summaries+=("$(sample_run plain "$url")")
    summaries+=("         max_rss_kb $(jq -r '.max_rss_kb' "$WORKDIR/plain.json")")
  fi
  printf '\nbarrage -t 1 -c %s -n %s %s(at most %s s), %s, RSS every %s s\n' "$CONNECTIONS" "$REQUESTS" \
    "${RATE_ARGS[*]:+${RATE_ARGS[*]} }" "$MAX_DURATION" "$ALG" "$INTERVAL"
  printf '%s\n' "${summaries[@]}"
}

main "$@"
