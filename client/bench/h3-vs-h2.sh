#!/usr/bin/env bash
# h3-vs-h2.sh: barrage --h3 (HTTP/3 over QUIC) against barrage --h2 (HTTP/2
# over TLS) on the same server, and against oha's HTTP/3: CPU cost per request.
#
#   client/bench/h3-vs-h2.sh --url https://HOST:PORT/PATH [--cacert FILE | --insecure]
#                            [--h2-url URL] [--rounds N] [--duration SECONDS] [-c N] [-m N]
#
# The server must speak HTTP/2 over TLS on TCP and HTTP/3 on UDP at the same
# host and port (the suite's h3 servers, Caddy, nginx built with http_v3):
# Debian 12's nginx has no HTTP/3, so this script starts no server of its
# own. A server without TLS on TCP (the suite's netty and jetty: h1 and h2c
# there) is compared with its h2c instead: --h2-url http://HOST:PORT/PATH (the
# h2 lane then runs without TLS and is named h2c). The load tools run pinned to
# core 1 (keep the server off it), one thread, -c 10 -m 10 by default, in turn
# (the order rotates each round), for several rounds of the duration:
#   h2       barrage --h2 -c N -m M
#   h3       barrage --h3 -c N -m M
#   oha-h3   oha --http-version 3 -c N -p M (when an oha built with its http3
#            feature is on the PATH or in ~/.cargo/bin:
#            `cargo install oha --locked --features http3`; skipped with a note if not)
# Prints per round and the median: requests/s and the tool's CPU microseconds
# per request (user + sys), and the ratios h3/h2 and h3/oha-h3. QUIC does in
# user space what TCP and TLS records do in the kernel and OpenSSL, so h3/h2
# above 1 is expected; the figure says by how much, on this machine, for this
# server. h3/oha-h3 is the issue's target: at most 1.
# Not part of run-tests.sh: speed is measured here, never asserted in tests.
set -euo pipefail

# shellcheck source=SCRIPTDIR/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROUNDS=3
DURATION=5
CONNECTIONS=10
STREAMS=10

OHA=
H2_URL=

usage() { sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# run_tool TOOL TLS_FLAGS URL: prints "requests rps cpu_seconds" (oha: responses plus errors)
run_tool() {
  local cpu
  case $1 in
    h2|h2c)
      local h2_tls=$2
      [[ $H2_URL == https://* ]] || h2_tls=
      # shellcheck disable=SC2086 # TLS_FLAGS is a list of options
      cpu=$(timed barrage-h2 "$BARRAGE" --h2 -t 1 -c "$CONNECTIONS" -m "$STREAMS" $h2_tls -d "${DURATION}s" --json "$H2_URL")
      echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage-h2.out") $cpu" ;;
    h3)
      # shellcheck disable=SC2086 # TLS_FLAGS is a list of options
      cpu=$(timed barrage-h3 "$BARRAGE" --h3 -t 1 -c "$CONNECTIONS" -m "$STREAMS" $2 -d "${DURATION}s" --json "$3")
      echo "$(jq -r '"\(.requests) \(.rps)"' "$WORKDIR/barrage-h3.out") $cpu" ;;
    oha-h3)
      # shellcheck disable=SC2086 # TLS_FLAGS is a list of options (the same names in oha)
      cpu=$(timed oha "$OHA" --no-tui --output-format json --http-version 3 -c "$CONNECTIONS" -p "$STREAMS" \
        $2 -z "${DURATION}s" "$3")
      # requests/s over the duration asked for: oha's own figure divides by its whole run, which
      # over h3 goes on for about 30 s after the last request (measured 2026-11-26, oha 1.16.0)
      jq -r '([.statusCodeDistribution[]] + [.errorDistribution[]?]) | add // 0' "$WORKDIR/oha.out" \
        | awk -v cpu="$cpu" -v d="$DURATION" '{print $1, $1 / d, cpu}' ;;
  esac
}

# find_oha: sets OHA to an oha that speaks HTTP/3 (its --help lists version 3), if one is installed
find_oha() {
  OHA=$(command -v oha || true)
  if [[ -z $OHA && -x $HOME/.cargo/bin/oha ]]; then OHA=$HOME/.cargo/bin/oha; fi
  if [[ -n $OHA ]] && ! "$OHA" --help | grep -q 'Available values 0.9, 1.0, 1.1, 2, 3'; then
    log::info "$OHA has no HTTP/3 (built without its http3 feature): compared with barrage's h2 only"
    OHA=
  elif [[ -z $OHA ]]; then
    log::info "oha not installed (cargo install oha --locked --features http3): compared with barrage's h2 only"
  fi
}

main() {
  local url="" tls_flags=""
  while (($#)); do
    case $1 in
      --url) url=$2; shift 2 ;;
      --h2-url) H2_URL=$2; shift 2 ;;
      --cacert) tls_flags="--cacert $2"; shift 2 ;;
      --insecure) tls_flags="--insecure"; shift ;;
      --rounds) ROUNDS=$2; shift 2 ;;
      --duration) DURATION=$2; shift 2 ;;
      -c) CONNECTIONS=$2; shift 2 ;;
      -m) STREAMS=$2; shift 2 ;;
      -h|--help) usage; return 0 ;;
      *) log::error "unknown argument: $1"; usage >&2; return 2 ;;
    esac
  done
  [[ $url == https://* ]] || { log::error "--url https://... is required"; usage >&2; return 2; }
  deps::ensure taskset:util-linux jq:jq make:make || return 1
  make -s -C "$ROOT/client" >&2 || log::die "barrage does not build"
  BARRAGE=$ROOT/client/build/barrage
  "$BARRAGE" --version | grep -q ' h3 ' || log::die "barrage was built without HTTP/3 (see client/README.md, HTTP/3)"
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage h3 bench.XXXX")

  find_oha

  H2_URL=${H2_URL:-$url}
  local round i tool req rps cpu us h2=h2 tools
  [[ $H2_URL == https://* ]] || h2=h2c
  tools=("$h2" h3)
  local -A cpu_us=() rates=() med=()
  [[ -n $OHA ]] && tools+=(oha-h3)
  printf '\nh3 vs h2 -c %s -m %s @ %s (%s rounds of %ss)\n' "$CONNECTIONS" "$STREAMS" "$url" "$ROUNDS" "$DURATION"
  printf '%-6s %-7s %12s %12s %10s\n' round tool requests "requests/s" "cpu us/req"
  for round in $(seq "$ROUNDS"); do
    for i in "${!tools[@]}"; do
      tool=${tools[$(((i + round) % ${#tools[@]}))]}
      read -r req rps cpu <<<"$(run_tool "$tool" "$tls_flags" "$url")"
      us=$(us_per_request "$cpu" "$req")
      cpu_us[$tool]+="$us "
      rates[$tool]+="$rps "
      printf '%-6s %-7s %12s %12.0f %10s\n' "$round" "$tool" "$req" "$rps" "$us"
    done
  done
  for tool in "${tools[@]}"; do
    med[$tool]=$(xargs -n1 <<<"${cpu_us[$tool]}" | median)
    printf '%-6s %-7s %12s %12.0f %10s\n' median "$tool" - "$(xargs -n1 <<<"${rates[$tool]}" | median)" "${med[$tool]}"
  done
  printf 'ratio h3/%s (barrage cpu us per request): %s\n' "$h2" \
    "$(ratio "${med[h3]}" "${med[$h2]}")"
  [[ -z $OHA ]] || printf 'ratio h3/oha-h3 (cpu us per request): %s  (target <= 1.0)\n' \
    "$(ratio "${med[h3]}" "${med[oha-h3]}")"
}

main "$@"
