#!/usr/bin/env bash
# run-benchmarks.sh: build, start, verify, warm up and measure every server with every load
# tool, and keep every result in results/<UTC timestamp>[-label].json (see --help).
#
# Each server lives in its own process group and is stopped (TERM, then KILL after 10 s)
# before the next one starts; so does every tool run, contract check and Maven build, each
# recorded in results/<stamp>.logs/pids. SIGINT (Ctrl-C, to the script or its whole process
# group) or SIGTERM stops them all, leaves the results file with every finished run
# ("complete": false) and exits 130 / 143.
set -euo pipefail

# A script's background job starts with SIGINT ignored (POSIX), and bash cannot trap a signal
# ignored when it started: start again with SIGINT restored, so that SIGINT always stops a run.
if (((0x$(awk '/^SigIgn:/ {print $2}' "/proc/$$/status" 2>/dev/null || echo 0) & 2) != 0)); then
  if env --default-signal=INT true 2>/dev/null; then exec env --default-signal=INT "$BASH" "$0" "$@"; fi
  echo "warning: SIGINT is ignored (inherited) and env cannot restore it: stop this run with SIGTERM" >&2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shell_quote ARG: ARG as a person would type it: bare when the shell needs no quotes, else in
# single quotes, so the "reproduce" line in results and README reads naturally (printf %q
# escapes every space and comma).
shell_quote() {
  local squote="'"
  if [[ $1 =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then printf '%s' "$1"
  else printf "'%s'" "${1//$squote/$squote\\$squote$squote}"
  fi
}
COMMAND_LINE=$(shell_quote "$0")
for arg in "$@"; do COMMAND_LINE+=" $(shell_quote "$arg")"; done
unset arg
# Tests point the orchestrator at fixture servers; lib/servers.sh reads SERVERS_DIR.
export SERVERS_DIR=${BARRAGE_SERVERS_DIR:-${SERVERS_DIR:-$ROOT/servers}}
SERVERS=() SCENARIOS=() TOOLS=() PROTOCOLS=()

# shellcheck source=lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=lib/deps.sh
source "$ROOT/lib/deps.sh"
# shellcheck source=lib/servers.sh
source "$ROOT/lib/servers.sh"
# shellcheck source=lib/contract.sh
source "$ROOT/lib/contract.sh"
# shellcheck source=lib/scenarios.sh
source "$ROOT/lib/scenarios.sh"
# shellcheck source=lib/tools.sh
source "$ROOT/lib/tools.sh"
# shellcheck source=lib/system.sh
source "$ROOT/lib/system.sh"
# shellcheck source=lib/schema.sh
source "$ROOT/lib/schema.sh"
# shellcheck source=lib/results.sh
source "$ROOT/lib/results.sh"
tools::load

# Seconds a server gets to answer GET /hello after it starts, and to stop after TERM.
READY_TIMEOUT_S=60
STOP_TIMEOUT_S=10
# Rough per-step costs for the time estimate: a server's start and contract check, and the
# set-up and parsing around each measured run.
SERVER_OVERHEAD_S=15
RUN_OVERHEAD_S=2

usage() {
  cat <<USAGE
Usage: ./run-benchmarks.sh [OPTION]...

Builds every selected server, then for each run and server: starts it in its own process
group, waits until it answers, verifies the contract, and for every tool, protocol and
scenario warms up (discarded) and measures, sampling the server's CPU % and peak RSS.
Results: OUTPUT/<UTC timestamp>[-LABEL].json, rewritten and validated against
schemas/results.schema.json after every run; beside it OUTPUT/<stamp>.logs/ holds server
logs, contract checks, the build log, each run's raw tool output
(<run>-<server>-<tool>-<protocol>-<scenario>/) and the PIDs the run started (pids).
A summary table on stdout at the end.

Selection
  --servers A,B        servers to measure (default: all; see --list)
  --scenarios A,B      scenarios (default: all; table in scenarios/scenarios.tsv)
  --tool T[,T]         $(tools::list | paste -sd'|')|all (default all; one per lib/tools/*.sh)
  --protocol P[,P]     h1|h2c|all (default all). h2c runs only for servers whose
                       server.properties declares it and with tools that speak it
                       (a scenario a tool cannot express is recorded as skipped)
Measurement
  --duration D         measured time per run, e.g. 30s or 2m (default 30s)
  --warmup D           discarded warm-up before each run (default 10s)
  --runs N             repeat everything N times, alternating the server order (default 1)
  --connections N      override every scenario's connection count
  --threads N          load-tool threads (default: the CPUs given to the load tool)
  --cpus SERVER:CLIENT taskset CPU lists, e.g. 0:1 or 0-3:4-7; "none" for no pinning
                       (default with 2+ cores: disjoint halves, server first)
  --port N             server port (default \$BARRAGE_PORT or 8080)
  --quick              a short tour: 3 s runs, 1 s warm-up
Output
  --label NAME         appended to the file name and recorded
  --description TEXT   free text about the machine or the run, recorded
  --output DIR         where results go (default results/)
Other
  --list               servers and scenarios with their settings, then exit
  --dry-run            print the plan and its estimated time, then exit
  -h, --help           this text

Environment: BARRAGE_PORT (default port), BARRAGE_SERVERS_DIR (servers folder, default servers/).

Exit: 0 when every planned run was measured or skipped; 1 when something failed (a
build, a start, a verification, a tool), the results file is not valid against its schema
or the set-up is missing; 2 for a bad option; 130 / 143 when interrupted by SIGINT / SIGTERM.
USAGE
}

# usage_error MSG...: a bad command line (exit 2).
usage_error() {
  log::error "$*"
  log::error "see ./run-benchmarks.sh --help"
  exit 2
}

# seconds_of TEXT OPTION: 30s / 2m / 30 -> seconds; exit 2 otherwise.
seconds_of() {
  [[ $1 =~ ^([0-9]+)([sm]?)$ ]] || usage_error "$2 wants a duration like 30s or 2m, got '$1'"
  if [[ ${BASH_REMATCH[2]} == m ]]; then echo $((BASH_REMATCH[1] * 60)); else echo "$((10#${BASH_REMATCH[1]}))"; fi
}

# pick_names ARRAY KIND REQUESTED VALID...: sets ARRAY to REQUESTED (a comma list, or "all"
# for every valid name) after checking each name; exits 2 listing the valid ones otherwise.
pick_names() {
  local -n picked=$1
  local kind=$2 requested=$3 name
  shift 3
  if [[ $requested == all ]]; then picked=("$@"); return 0; fi
  IFS=, read -r -a picked <<<"$requested"
  ((${#picked[@]})) || usage_error "no $kind given"
  for name in "${picked[@]}"; do
    [[ " $* " == *" $name "* ]] || usage_error "unknown $kind '$name' (valid: $* all)"
  done
}

# Options (globals read by the functions below).
OPT_SERVERS=all OPT_SCENARIOS=all OPT_TOOL=all OPT_PROTOCOL=all
DURATION_S='' WARMUP_S='' RUNS=1 LABEL='' DESCRIPTION='' OUTPUT_DIR=$ROOT/results
CONNECTIONS_OVERRIDE='' THREADS_OVERRIDE='' CPUS='' PORT=${BARRAGE_PORT:-8080}
QUICK=0 LIST=0 DRY_RUN=0

parse_options() {
  while (($#)); do
    local opt=$1
    case $opt in
      -h|--help) usage; exit 0 ;;
      --quick) QUICK=1; shift; continue ;;
      --list) LIST=1; shift; continue ;;
      --dry-run) DRY_RUN=1; shift; continue ;;
      --*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
    esac
    [[ $opt == --* ]] || usage_error "unexpected argument '$opt'"
    (($# >= 2)) || usage_error "$opt needs a value"
    local value=$2
    shift 2
    case $opt in
      --servers) OPT_SERVERS=$value ;;
      --scenarios) OPT_SCENARIOS=$value ;;
      --tool) OPT_TOOL=$value ;;
      --protocol) OPT_PROTOCOL=$value ;;
      --duration) DURATION_S=$(seconds_of "$value" --duration) ;;
      --warmup) WARMUP_S=$(seconds_of "$value" --warmup) ;;
      --runs) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--runs wants a positive integer, got '$value'"; RUNS=$value ;;
      --label) [[ $value =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--label wants letters, digits, . _ -; got '$value'"; LABEL=$value ;;
      --description) DESCRIPTION=$value ;;
      --output) OUTPUT_DIR=$value ;;
      --connections) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--connections wants a positive integer, got '$value'"; CONNECTIONS_OVERRIDE=$value ;;
      --threads) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--threads wants a positive integer, got '$value'"; THREADS_OVERRIDE=$value ;;
      --cpus) [[ $value == none || $value =~ ^[0-9,-]+:[0-9,-]+$ ]] || usage_error "--cpus wants SERVER:CLIENT CPU lists (e.g. 0:1) or none, got '$value'"; CPUS=$value ;;
      --port)
        if ! [[ $value =~ ^[1-9][0-9]{0,4}$ ]] || ((value > 65535)); then usage_error "--port wants 1-65535, got '$value'"; fi
        PORT=$value ;;
      *) usage_error "unknown option '$opt'" ;;
    esac
  done
  # --quick sets the short times; an explicit --duration / --warmup still wins.
  if ((QUICK)); then DURATION_S=${DURATION_S:-3} WARMUP_S=${WARMUP_S:-1}; fi
  DURATION_S=${DURATION_S:-30} WARMUP_S=${WARMUP_S:-10}
  ((DURATION_S > 0)) || usage_error "--duration must be more than 0"

  local valid
  mapfile -t valid < <(servers::list)
  pick_names SERVERS server "$OPT_SERVERS" "${valid[@]}"
  mapfile -t valid < <(scenarios::list)
  pick_names SCENARIOS scenario "$OPT_SCENARIOS" "${valid[@]}"
  mapfile -t valid < <(tools::list)
  pick_names TOOLS tool "$OPT_TOOL" "${valid[@]}"
  pick_names PROTOCOLS protocol "$OPT_PROTOCOL" h1 h2c
  ((${#SERVERS[@]})) || usage_error "no servers found under $SERVERS_DIR"

  SERVER_CPUS='' CLIENT_CPUS=''
  if [[ -z $CPUS ]]; then
    read -r SERVER_CPUS CLIENT_CPUS <<<"$(system::default_pinning)" || true
  elif [[ $CPUS != none ]]; then
    SERVER_CPUS=${CPUS%%:*} CLIENT_CPUS=${CPUS#*:}
  fi
  if [[ -n $THREADS_OVERRIDE ]]; then THREADS=$THREADS_OVERRIDE
  elif [[ -n $CLIENT_CPUS ]]; then THREADS=$(system::count_cpus "$CLIENT_CPUS")
  else THREADS=$(system::cores)
  fi
}

# declared_protocols SERVER: the comma list from its server.properties (h1 when it names none).
declared_protocols() { servers::prop "$1" protocols 2>/dev/null || echo h1; }

# server_protocols SERVER: the selected protocols the server declares, one per line.
server_protocols() {
  local declared proto
  declared=$(declared_protocols "$1")
  for proto in "${PROTOCOLS[@]}"; do
    [[ ",$declared," == *",$proto,"* ]] && printf '%s\n' "$proto"
  done
}

# server_order RUN: the selected servers, reversed on even runs, one per line.
server_order() {
  local i
  if (($1 % 2)); then printf '%s\n' "${SERVERS[@]}"; return 0; fi
  for ((i = ${#SERVERS[@]} - 1; i >= 0; i--)); do printf '%s\n' "${SERVERS[i]}"; done
}

# build_plan: fills PLAN with one "run<TAB>server<TAB>tool<TAB>protocol<TAB>scenario" entry per
# planned row, servers in the given order on odd runs and reversed on even runs.
build_plan() {
  PLAN=()
  local run server tool proto scenario
  for ((run = 1; run <= RUNS; run++)); do
    for server in $(server_order "$run"); do
      for tool in "${TOOLS[@]}"; do
        for proto in $(server_protocols "$server"); do
          "$tool::protocols" | grep -qx "$proto" || continue
          for scenario in "${SCENARIOS[@]}"; do
            PLAN+=("$run"$'\t'"$server"$'\t'"$tool"$'\t'"$proto"$'\t'"$scenario")
          done
        done
      done
    done
  done
}

# estimate_s: seconds the whole plan should take (measured entries plus server start-ups).
estimate_s() {
  local starts
  starts=$(printf '%s\n' "${PLAN[@]}" | cut -f1,2 | sort -u | wc -l)
  echo $((${#PLAN[@]} * (DURATION_S + WARMUP_S + RUN_OVERHEAD_S) + starts * SERVER_OVERHEAD_S))
}

# minutes SECONDS: rounded up, at least 1.
minutes() { echo $((($1 + 59) / 60)); }

# connections_of SCENARIO / streams_of SCENARIO: the table's values, or the override.
connections_of() { if [[ -n $CONNECTIONS_OVERRIDE ]]; then echo "$CONNECTIONS_OVERRIDE"; else scenarios::field "$1" connections; fi; }
streams_of() { scenarios::field "$1" streams; }

print_list() {
  local server scenario
  printf 'Servers (%s):\n' "$SERVERS_DIR"
  printf '  %-16s %-14s %s\n' NAME VERSION PROTOCOLS
  for server in $(servers::list); do
    printf '  %-16s %-14s %s\n' "$server" "$(servers::prop "$server" version 2>/dev/null || echo '?')" \
      "$(declared_protocols "$server")"
  done
  printf '\nScenarios (scenarios/scenarios.tsv; threads default to the load tool'"'"'s CPUs: %s):\n' "$THREADS"
  printf '  %-18s %-9s %-12s %-8s %s\n' NAME METHOD CONNECTIONS STREAMS ENDPOINT
  for scenario in $(scenarios::list); do
    printf '  %-18s %-9s %-12s %-8s %s\n' "$scenario" "$(scenarios::field "$scenario" method)" \
      "$(connections_of "$scenario")" "$(streams_of "$scenario")" "$(scenarios::field "$scenario" endpoint)"
  done
  printf '\nTools:\n'
  local tool
  for tool in $(tools::list); do
    printf '  %-10s %-20s %s\n' "$tool" "$("$tool::version" 2>/dev/null || echo 'not installed')" "$("$tool::protocols" | paste -sd,)"
  done
}

print_plan() {
  local entry run server tool proto scenario reason
  printf '%-4s %-16s %-8s %-5s %-18s %s\n' RUN SERVER TOOL PROTO SCENARIO NOTE
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r run server tool proto scenario <<<"$entry"
    reason=$("$tool::supports" "$scenario" "$proto") && reason='' || reason="skipped: $reason"
    printf '%-4s %-16s %-8s %-5s %-18s %s\n' "$run" "$server" "$tool" "$proto" "$scenario" "$reason"
  done
  printf '%d planned runs, %s s each + %s s warm-up; CPU pinning: %s; about %d min\n' "${#PLAN[@]}" \
    "$DURATION_S" "$WARMUP_S" "$(pinning_text)" "$(minutes "$(estimate_s)")"
}

pinning_text() {
  if [[ -n $SERVER_CPUS ]]; then printf 'server on CPUs %s, load tool on CPUs %s' "$SERVER_CPUS" "$CLIENT_CPUS"
  else printf 'none'; fi
}

# maven_servers: the selected servers built with Maven (those with a pom.xml; script-only
# servers need no build), one per line.
maven_servers() {
  local server
  for server in "${SERVERS[@]}"; do
    [[ -f $SERVERS_DIR/$server/pom.xml ]] && printf '%s\n' "$server"
  done
  return 0
}

# ensure_setup: the commands the selected tools, servers and their contract checks need
# (installed as root on Debian, else the exact command and exit 1), the results file's
# validator, and a JDK 21+ when a server is built with Maven.
ensure_setup() {
  local needs=(jq:jq curl:curl taskset:util-linux setsid:util-linux ss:iproute2 ps:procps) tool server
  for tool in "${TOOLS[@]}"; do mapfile -t -O "${#needs[@]}" needs < <("$tool::requires"); done
  for server in "${SERVERS[@]}"; do
    mapfile -t -O "${#needs[@]}" needs < <(contract::requires "$(declared_protocols "$server")")
  done
  local maven=0
  [[ -n $(maven_servers) ]] && { maven=1; needs+=(mvn:maven); }
  deps::ensure "${needs[@]}" || exit 1
  schema::ensure_validator || exit 1
  # high-concurrency opens 1000 connections: lift the soft open-files limit to the hard one.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || log::warn "open-files limit stays at $(ulimit -n)"
  if ((maven)); then
    JAVA_HOME_FOUND=$(java::home) || exit 1
  else
    JAVA_HOME_FOUND=$(java::home 2>/dev/null) || JAVA_HOME_FOUND=''
  fi
}

# Run state, read by the EXIT trap. SCRATCH_DIR: temp files of contract checks.
SCRATCH_DIR='' EXIT_CODE=0 FINISHED=0

# on_exit: the one EXIT trap: stops every process the run started, by process group (tools,
# contract checks, builds, then the server), writes the results file a last time.
on_exit() {
  local rc=$?
  ((EXIT_CODE)) && rc=$EXIT_CODE
  # A second Ctrl-C must not cut the clean-up short and leave the server running.
  trap '' INT TERM
  procs::stop_all
  system::sample_stop
  if [[ -n $SERVER_PID ]]; then
    log::info "stopping server process group $SERVER_PID"
    servers::stop "$SERVER_PID" "$STOP_TIMEOUT_S" || log::error "process group $SERVER_PID did not stop"
    SERVER_PID=''
  fi
  if [[ -n $RESULTS_FILE ]]; then
    if ((FINISHED)); then results::finish true; else results::finish false; log::warn "partial results: $RESULTS_FILE"; fi
  fi
  [[ -n $SCRATCH_DIR ]] && rm -rf -- "$SCRATCH_DIR"
  exit "$rc"
}

now_utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# suite_commit: the suite's git commit, -dirty when the tree has changes; empty outside git.
suite_commit() {
  local commit
  commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null) || return 0
  [[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null) ]] && commit+=-dirty
  printf '%s\n' "$commit"
}

# config_json SCENARIO PROTOCOL TOOL: the row's config object.
config_json() {
  local scenario=$1 proto=$2 tool=$3 streams=null
  [[ $proto == h2* ]] && streams=$(streams_of "$scenario")
  jq -cn --argjson threads "$THREADS" --argjson connections "$(connections_of "$scenario")" \
    --argjson streams "$streams" --argjson duration "$DURATION_S" --argjson warmup "$WARMUP_S" \
    --arg endpoint "$(scenarios::field "$scenario" endpoint)" --arg method "$(scenarios::field "$scenario" method)" \
    --arg timeout "$("$tool::request_timeout_s")" \
    '{threads: ([$threads, $connections] | min), connections: $connections, streams: $streams,
      duration_s: $duration, warmup_s: $warmup, endpoint: $endpoint, method: $method,
      request_timeout_s: (if $timeout == "" then null else ($timeout | tonumber) end)}'
}

# add_row ENTRY STATUS REASON [STARTED ENDED METRICS_FILE STATS_JSON]: one results row.
add_row() {
  local run server tool proto scenario status=$2 reason=$3 started=${4:-} ended=${5:-}
  local metrics_file=${6:-} stats=${7:-null} metrics=null version
  IFS=$'\t' read -r run server tool proto scenario <<<"$1"
  [[ -n $metrics_file ]] && metrics=$(<"$metrics_file")
  version=$(servers::prop "$server" version 2>/dev/null) || version=''
  results::add "$(jq -cn --arg server "$server" --arg version "$version" --arg tool "$tool" \
    --arg proto "$proto" --arg scenario "$scenario" --argjson run "$run" --arg started "$started" \
    --arg ended "$ended" --argjson config "$(config_json "$scenario" "$proto" "$tool")" \
    --argjson metrics "$metrics" --argjson stats "$stats" --arg status "$status" --arg reason "$reason" '
    def nullable: if . == "" then null else . end;
    {server: $server, server_version: ($version | nullable), tool: $tool, protocol: $proto,
     scenario: $scenario, run: $run, started: ($started | nullable), ended: ($ended | nullable),
     config: $config, metrics: $metrics, server_stats: $stats, status: $status,
     reason: ($reason | nullable)}')"
}

# fail_entries SERVER RUN REASON: a failed row for every entry of SERVER in RUN.
fail_entries() {
  local entry
  for entry in "${PLAN[@]}"; do
    [[ $entry == "$2"$'\t'"$1"$'\t'* ]] || continue
    add_row "$entry" failed "$3"
    DONE_COUNT=$((DONE_COUNT + 1))
  done
  EXIT_CODE_AT_END=1
}

progress() {
  local left=$(( (${#PLAN[@]} - DONE_COUNT) * (DURATION_S + WARMUP_S + RUN_OVERHEAD_S) ))
  log::info "run $((DONE_COUNT + 1)) of ${#PLAN[@]}, about $(minutes "$left") min left: $*"
}

# measure ENTRY: warm-up and one measured run of one plan entry; adds its row.
measure() {
  local entry=$1 run server tool proto scenario reason started ended stats dir rc=0
  IFS=$'\t' read -r run server tool proto scenario <<<"$entry"
  if ! reason=$("$tool::supports" "$scenario" "$proto"); then
    add_row "$entry" skipped "$reason"
    return 0
  fi
  progress "$server $tool $proto $scenario"
  # The tool's raw output stays beside the results, so every number can be checked later.
  dir=$LOG_DIR/$run-$server-$tool-$proto-$scenario
  mkdir -p "$dir"
  started=$(now_utc)
  system::sample_start "$SERVER_PID" "$dir/samples"
  procs::record "$SAMPLER_PID" "cpu sampler"
  "$tool::run" "$dir/metrics.json" "$dir" "http://127.0.0.1:$PORT" "$proto" "$scenario" "$THREADS" \
    "$(connections_of "$scenario")" "$(streams_of "$scenario")" "$DURATION_S" "$WARMUP_S" "$CLIENT_CPUS" \
    2>"$dir/stderr" || rc=$?
  system::sample_stop
  ended=$(now_utc)
  cat "$dir/stderr" >&2
  stats=$(system::stats "$dir/samples" "$DURATION_S")
  if ((rc != 0)); then
    reason=$(grep -m1 -E 'error' "$dir/stderr" | sed 's/^[^:]*: //')
    add_row "$entry" failed "$tool failed: ${reason:-exit $rc}" "$started" "$ended" '' "$stats"
    EXIT_CODE_AT_END=1
  else
    add_row "$entry" ok '' "$started" "$ended" "$dir/metrics.json" "$stats"
  fi
}

# serve SERVER RUN: one server's life for one run: start, ready, verify, measure, stop.
serve() {
  local server=$1 run=$2 holder log
  holder=$(servers::port_holder "$PORT")
  if [[ -n $holder ]]; then
    log::error "port $PORT is taken by $holder before starting $server; free it or pick another with --port"
    EXIT_CODE=1
    exit 1
  fi
  log=$LOG_DIR/$server-run$run.log
  log::info "starting $server on port $PORT (log: $log)"
  if ! servers::start "$server" "$PORT" "$log" "$SERVER_CPUS"; then
    fail_entries "$server" "$run" "start failed: see $log"
    return 0
  fi
  procs::record "$SERVER_PID" "server $server"
  verify_and_measure "$server" "$run" "$log"
  servers::stop "$SERVER_PID" "$STOP_TIMEOUT_S" || log::die "could not stop $server (process group $SERVER_PID)"
  SERVER_PID=''
  servers::wait_port_free "$PORT" "$STOP_TIMEOUT_S" \
    || log::die "port $PORT still taken by $(servers::port_holder "$PORT") after stopping $server"
}

# verify_and_measure SERVER RUN LOG: the started server (SERVER_PID) once it answers and keeps
# the contract: every entry of SERVER in RUN measured; else all of them failed with the reason.
verify_and_measure() {
  local server=$1 run=$2 log=$3 entry protocols tap
  if ! servers::wait_ready "$SERVER_PID" "$PORT" "$READY_TIMEOUT_S"; then
    local tail_line why="no answer to GET /hello within ${READY_TIMEOUT_S}s"
    tail_line=$(grep -v '^\s*$' "$log" 2>/dev/null | tail -n 1)
    servers::alive "$SERVER_PID" || why="exited before it was ready"
    fail_entries "$server" "$run" "start failed: $why${tail_line:+ (log: $tail_line)}"
    return 0
  fi
  protocols=$(declared_protocols "$server")
  tap=$LOG_DIR/$server-run$run.contract.tap
  log::info "verifying $server ($protocols)"
  # In the background, in a process group of its own: a signal stops it and its curl at once.
  if ! TMPDIR=$SCRATCH_DIR procs::run "contract verification $server" \
    contract::verify "$server" "http://127.0.0.1:$PORT" "$protocols" >"$tap"; then
    fail_entries "$server" "$run" "contract verification failed: $(grep -m1 '^not ok' "$tap")"
    return 0
  fi
  for entry in "${PLAN[@]}"; do
    [[ $entry == "$run"$'\t'"$server"$'\t'* ]] || continue
    measure "$entry"
    DONE_COUNT=$((DONE_COUNT + 1))
  done
}

# build_servers: builds the Maven servers among the selected; every server that fails is
# printed as NAME<TAB>reason.
build_servers() {
  local to_build
  mapfile -t to_build < <(maven_servers)
  ((${#to_build[@]})) || return 0
  SERVERS_BUILD_LOG=$LOG_DIR/build.log servers::build "${to_build[@]}" || true
}

# print_summary FILE: one line per row of a results file ("-" for a value a row lacks, also
# when its record is not valid).
print_summary() {
  printf '%-16s %-7s %-5s %-18s %-3s %-8s %12s %10s %8s %s\n' SERVER TOOL PROTO SCENARIO RUN STATUS REQ/S P99_US ERRORS NOTE
  jq -r 'def shown: if type == "number" then floor | tostring else "-" end;
    .results[] | [.server, .tool, .protocol, .scenario, (.run | tostring), .status,
      (.metrics.rps? | shown), (.metrics.latency_us.p99? | shown), (.metrics.failed? | shown),
      (.reason // "")] | @tsv' "$1" |
    while IFS=$'\t' read -r server tool proto scenario run status rps p99 errors note; do
      printf '%-16s %-7s %-5s %-18s %-3s %-8s %12s %10s %8s %s\n' "$server" "$tool" "$proto" "$scenario" \
        "$run" "$status" "$rps" "$p99" "$errors" "$note"
    done
}

main() {
  parse_options "$@"
  if ((LIST)); then print_list; return 0; fi
  build_plan
  if ((DRY_RUN)); then print_plan; return 0; fi
  ((${#PLAN[@]})) || usage_error "nothing to run: no selected server speaks a selected protocol with a selected tool (see --list)"

  trap on_exit EXIT
  trap 'EXIT_CODE=130; exit 130' INT
  trap 'EXIT_CODE=143; exit 143' TERM

  ensure_setup
  log::info "CPU pinning: $(pinning_text); load-tool threads: $THREADS"
  log::info "${#PLAN[@]} planned runs; estimated time about $(minutes "$(estimate_s)") min"

  mkdir -p "$OUTPUT_DIR"
  local stamp base header tools_json tool version jvm_flags='' java_version=''
  stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
  base=$stamp${LABEL:+-$LABEL}
  SCRATCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage run.XXXXXX")
  LOG_DIR=$OUTPUT_DIR/$base.logs
  mkdir -p "$LOG_DIR"
  procs::record_to "$LOG_DIR/pids"
  tools_json=$(for tool in "${TOOLS[@]}"; do
      version=$("$tool::version" 2>/dev/null) || version=''
      printf '%s\t%s\n' "$tool" "$version"
    done | jq -Rnc '[inputs | split("\t") | {(.[0]): (if .[1] == "" then null else .[1] end)}] | add')
  if [[ -n $JAVA_HOME_FOUND ]]; then
    java_version=$(java::version "$JAVA_HOME_FOUND") || java_version=''
    [[ -f $SERVERS_DIR/jvm.options ]] && jvm_flags=$(java::server_options "$SERVERS_DIR/jvm.options" | paste -sd' ')
  fi
  header=$(jq -n --arg timestamp "$(now_utc)" --arg commit "$(suite_commit)" --arg command "$COMMAND_LINE" \
    --arg run_label "$LABEL" --argjson system "$(system::info "$DESCRIPTION" "$java_version" "$jvm_flags" "$SERVER_CPUS" "$CLIENT_CPUS")" \
    --argjson tools "$tools_json" --argjson duration "$DURATION_S" --argjson warmup "$WARMUP_S" --argjson runs "$RUNS" '
    {version: 1, timestamp: $timestamp, commit: (if $commit == "" then null else $commit end),
     command: $command, "label": (if $run_label == "" then null else $run_label end), system: $system,
     tools: $tools, settings: {duration_s: $duration, warmup_s: $warmup, runs: $runs}}')
  results::init "$OUTPUT_DIR/$base.json" "$header"
  log::info "results: $RESULTS_FILE"

  EXIT_CODE_AT_END=0 DONE_COUNT=0
  declare -A BUILD_FAILED=()
  local name reason
  # In this shell, not in a pipe's subshell: the EXIT trap must be able to stop the build.
  build_servers >"$SCRATCH_DIR/build-failures"
  while IFS=$'\t' read -r name reason; do
    [[ -n $name ]] && BUILD_FAILED[$name]=$reason
  done <"$SCRATCH_DIR/build-failures"

  local run server
  for ((run = 1; run <= RUNS; run++)); do
    for server in $(server_order "$run"); do
      if [[ -n ${BUILD_FAILED[$server]:-} ]]; then
        fail_entries "$server" "$run" "build failed: ${BUILD_FAILED[$server]}"
        continue
      fi
      serve "$server" "$run"
    done
  done
  FINISHED=1
  results::finish true
  local path=$RESULTS_FILE
  RESULTS_FILE=''
  print_summary "$path"
  printf '%s\n' "$path"
  if ((RESULTS_INVALID)); then
    log::error "$path is not valid against schemas/results.schema.json (findings above)"
    return 1
  fi
  return "$EXIT_CODE_AT_END"
}

main "$@"
