#!/usr/bin/env bash
# memory-over-time.sh: barrage's resident memory over a long run, sampled.
#
#   client/bench/memory-over-time.sh [--duration SECONDS] [--interval SECONDS] [--rate N] [--connections N]
#                                    [--runs "full rate script"]
#
# Starts nginx (one worker, `return 200 "Hello world"`) on a free 127.0.0.1 port pinned
# to core 0 and runs barrage -t 1 -c CONNECTIONS (default 1000) on core 1 three times, each
# for DURATION seconds (default 600): at full speed, at a fixed rate (-R, default 20000/s)
# and at full speed with a script that keeps no state (bench/scripts/stateless.lua: a new
# request string and a response() call per request). Every INTERVAL seconds (default 5)
# it samples barrage's VmRSS from /proc. Prints each sample, then per run: RSS at the
# end of the first minute (or of the first sixth of a shorter run), the highest after it,
# the last, the growth after the first minute (KiB and %) and that growth per request
# (bytes per request, from the requests the record counts after that point in time).
# Flat means: growth within a few percent, well under a byte per request. A rate above what
# nginx and barrage sustain here grows a backlog of due requests (memory that is the backlog's,
# reported in the record's rate.backlog_max): pick one they sustain to see the steady state.
# Not part of run-tests.sh: memory is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DURATION=600
INTERVAL=5
RATE=20000
CONNECTIONS=1000

RUNS="full rate script"

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# sample_run NAME ARGS...: runs barrage ARGS --json in the background on core 1, samples its
# VmRSS every INTERVAL s into $WORKDIR/NAME.rss ("seconds KiB"), then prints the summary.
sample_run() {
  local name=$1 pid start now kb
  shift
  taskset -c 1 "$BARRAGE" -t 1 -c "$CONNECTIONS" -d "${DURATION}s" --json "$@" \
    > "$WORKDIR/$name.json" 2> "$WORKDIR/$name.err" &
  pid=$!
  start=$(date +%s)
  : > "$WORKDIR/$name.rss"
  while kill -0 "$pid" 2>/dev/null; do
    sleep "$INTERVAL"
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $kb ]] || break
    now=$(date +%s)
    printf '%s %s\n' "$((now - start))" "$kb" >> "$WORKDIR/$name.rss"
    printf '%-10s %5ss  RSS %8s KiB\n' "$name" "$((now - start))" "$kb" >&2
  done
  wait "$pid" || log::die "$name: barrage failed: $(tail -n 3 "$WORKDIR/$name.err")"
  summarize "$name"
}

# summarize NAME: the summary line of one run from its samples and record.
summarize() {
  local name=$1 requests settle
  requests=$(jq -r '.requests' "$WORKDIR/$name.json")
  settle=$((DURATION >= 360 ? 60 : DURATION / 6))
  awk -v name="$name" -v settle="$settle" -v duration="$DURATION" -v requests="$requests" '
    { t[NR] = $1; kb[NR] = $2 }
    END {
      for (i = 1; i <= NR; i++) if (t[i] >= settle) { base = kb[i]; bt = t[i]; first = i; break }
      if (!first) { printf "%-10s too few samples\n", name; exit }
      high = base
      for (i = first; i <= NR; i++) if (kb[i] > high) high = kb[i]
      last = kb[NR]
      after = requests * (t[NR] - bt) / duration   # requests made after the base sample (even pace)
      printf "%-10s requests %d; RSS at %ds %d KiB, highest after %d KiB, last %d KiB; growth %+d KiB (%+.1f%%), %.4f bytes/request\n",
        name, requests, bt, base, high, last, high - base, (high - base) * 100 / base,
        (after > 0 ? (high - base) * 1024 / after : 0)
    }' "$WORKDIR/$name.rss"
}

main() {
  while (($#)); do
    case $1 in
      --duration) DURATION=$2; shift 2 ;;
      --interval) INTERVAL=$2; shift 2 ;;
      --rate) RATE=$2; shift 2 ;;
      --connections) CONNECTIONS=$2; shift 2 ;;
      --runs) RUNS=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  deps::ensure nginx:nginx-light taskset:util-linux jq:jq curl:curl make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage bench.XXXX")
  local port url
  port=$(free_port)
  url="http://127.0.0.1:$port/"
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  log::info "nginx on core 0 at $url; barrage -t 1 -c $CONNECTIONS on core 1; ${DURATION}s each, RSS every ${INTERVAL}s"
  local summaries=() run
  for run in $RUNS; do
    case $run in
      full) summaries+=("$(sample_run full "$url")") ;;
      rate) summaries+=("$(sample_run rate -R "$RATE" "$url") (backlog_max $(jq -r '.rate.backlog_max' "$WORKDIR/rate.json"))") ;;
      script) summaries+=("$(sample_run script -s "$ROOT/client/bench/scripts/stateless.lua" "$url")") ;;
      *) log::die "unknown run '$run' (full, rate, script)" ;;
    esac
  done
  printf '\nbarrage -t 1 -c %s, %s s per run, RSS every %s s (fixed rate: %s/s)\n' "$CONNECTIONS" "$DURATION" \
    "$INTERVAL" "$RATE"
  printf '%s\n' "${summaries[@]}"
}

main "$@"
