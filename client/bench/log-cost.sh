#!/usr/bin/env bash
# log-cost.sh: what --log costs barrage, CPU per request with and without it.
#
#   client/bench/log-cost.sh [--rounds N] [--duration SECONDS] [-c N]
#
# Starts nginx (one worker, access log off, `return 200 "Hello world"`) on a free
# 127.0.0.1 port pinned to core 0, then runs barrage pinned to core 1, -t 1 -c 50
# (or -c N) for the duration: without --log, with --log FILE (every request), and
# with --log FILE --log-sample 0.01, the order rotated each round so that drift
# and warm-up favour none. Prints per round and the median: requests/s and
# barrage's CPU microseconds per request (user + sys), each with --log as a ratio
# to the run without (target: within this VM's noise, 4-8%), the log's lines and
# bytes, the date and the load average (figures for client/README.md).
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=5
DURATION=5
CONNECTIONS=50

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# variant_flags NAME: barrage's flags for a variant
variant_flags() {
  case $1 in
    none) echo "-c $CONNECTIONS" ;;
    all) echo "-c $CONNECTIONS --log log.csv" ;;
    sampled) echo "-c $CONNECTIONS --log log.csv --log-sample 0.01 --seed 1" ;;
  esac
}

main() {
  while (($#)); do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -c) CONNECTIONS=$2; shift 2 ;;
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
  cd "$WORKDIR" # the flags are a word list: the log's path is relative, without the folder's space
  start_nginx "  server { listen 127.0.0.1:$port; location / { return 200 \"Hello world\"; } }" "$url"
  printf '%s, load average %s; nginx on core 0, barrage on core 1; -t 1 -c %s, %ss, %s rounds\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)" "$CONNECTIONS" "$DURATION" "$ROUNDS"
  printf '%-6s %-8s %12s %12s %10s %10s %12s\n' round variant requests "requests/s" "cpu us/req" "log lines" "log bytes"
  local -A us=() rps=()
  local variants=(none all sampled) round i v req r cpu lines bytes
  for round in $(seq "$ROUNDS"); do
    for i in 0 1 2; do
      v=${variants[$(((i + round) % 3))]}
      rm -f "$WORKDIR/log.csv"
      read -r req r cpu <<<"$(run_barrage "$(variant_flags "$v")" "$url")"
      lines=-
      bytes=-
      if [[ -f $WORKDIR/log.csv ]]; then
        lines=$(($(wc -l < "$WORKDIR/log.csv") - 1))
        bytes=$(wc -c < "$WORKDIR/log.csv")
      fi
      us[$v]+="$(us_per_request "$cpu" "$req") "
      rps[$v]+="$r "
      printf '%-6s %-8s %12s %12.0f %10s %10s %12s\n' "$round" "$v" "$req" "$r" "$(us_per_request "$cpu" "$req")" \
        "$lines" "$bytes"
    done
  done
  local base m
  base=$(tr ' ' '\n' <<<"${us[none]}" | grep . | median)
  for v in "${variants[@]}"; do
    m=$(tr ' ' '\n' <<<"${us[$v]}" | grep . | median)
    printf '%-6s %-8s %12s %12.0f %10s   ratio to none %s\n' median "$v" - "$(tr ' ' '\n' <<<"${rps[$v]}" | grep . | median)" "$m" \
      "$(ratio "$m" "$base")"
  done
  printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

main "$@"
