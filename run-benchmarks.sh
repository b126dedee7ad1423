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
# shellcheck source=lib/lab.sh
source "$ROOT/lib/lab.sh"
# shellcheck source=lib/openloop.sh
source "$ROOT/lib/openloop.sh"
# shellcheck source=lib/jvm.sh
source "$ROOT/lib/jvm.sh"
# shellcheck source=lib/profile.sh
source "$ROOT/lib/profile.sh"
# shellcheck source=lib/report.sh
source "$ROOT/lib/report.sh"
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

Builds every selected server, then for each run (round) and server, in a seeded order that
rotates from round to round: starts it in its own process group, waits until it answers,
verifies the contract, warms it up with barrage (the same load whichever tool comes first),
and for every tool, protocol and scenario warms up (discarded) and measures, sampling the
server's CPU % and peak RSS and the load tool's CPU (a row where the tool was busy on 90% or
more of the cores it could use is marked client_bound: the figure is the tool's ceiling),
and the machine's load averages, steal time and CPU load not ours (machine_stats; the CPU
frequency governor is in system.cpuScaling).
Results: OUTPUT/<UTC timestamp>[-LABEL].json, rewritten and validated against
schemas/results.schema.json after every run; beside it OUTPUT/<stamp>.logs/ holds server
logs, contract checks, the build log, each run's raw tool output
(<run>-<server>-<tool>-<protocol>-<scenario>/) and the PIDs the run started (pids).
A summary table on stdout at the end; its note says why a row is skipped or failed, and
marks client-bound rows and rows measured while the hypervisor took 5% or more of the CPU
(steal).

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
  --runs N             repeat everything N times (rounds); each round starts every server
                       afresh, in an order shuffled once by the seed and rotated by one
                       place per round, so that drift on the machine spreads evenly
                       (default 1; 3+ gives confidence intervals and significance tests)
  --seed N             seed of the server order (default: drawn at random); the seed and
                       every round's order are recorded in the results (settings)
  --server-warmup D    barrage load on each freshly started server before its first measured
                       run: closed loop, D for each protocol and scenario it is measured with
                       (the scenario's shape), whichever tool comes first; 0 for none
                       (default 5s; --quick: 1s). Recorded in the results (server_warmups)
  --aa                 A/A run: the one server of --servers measured as two labels, A and
                       B, interleaved round by round; the spread between them is the
                       machine's noise floor, stored in the results (noise_floor) for
                       compare-results.sh --noise-floor
  --connections N      override every scenario's connection count
  --threads N          load-tool threads (default: the CPUs given to the load tool)
  --cpus SERVER:CLIENT taskset CPU lists, e.g. 0:1 or 0-3:4-7; "none" for no pinning
                       (default with 2+ cores: disjoint halves, server first; in a lab
                       run SERVER is on the server host, CLIENT on each load host, and
                       the default is no pinning)
  --port N             server port (default \$BARRAGE_PORT or 8080)
  --quick              a short tour: 3 s runs, 1 s warm-up, 1 s server warm-up
Lab hardware (README "Running on lab hardware"; without these, everything runs here)
  --server-host [USER@]HOST   the host that runs the servers (over ssh)
  --load-hosts H1,H2,...      the hosts that run the load: barrage on all of them, started
                       together, each with its share of the connections (and of the rate,
                       at a fixed rate), merged exactly; wrk and h2load on the first
  --lab FILE           the same in a file (KEY = VALUE lines: server_host, server_address,
                       load_hosts, lab_dir, ssh_config); the options above override it
  --lab-dir DIR        the suite's directory on each host (default barrage-lab, under the
                       ssh user's home; one sub-directory per host name)
  --strict             stop before starting anything when the pre-flight warns
Same load for every server (open loop, barrage -R; wrk and h2load rows are skipped: no
fixed-rate mode), each run after the same --warmup at its rate, beside the closed-loop runs
  --rates R1,R2        also measure every scenario at these offered rates (requests/s); without
                       it, at the rates of the scenario table's rates column. A rate the server
                       could not take is recorded as not delivered (achieved rate, backlog)
  --capacity COND      also search the highest rate at which every condition holds, e.g.
                       'p99<10ms' or 'p99.9<50ms,errors<0.1%' (p50 p75 p90 p99 p99.9 p99.99
                       max mean: us/ms/s; errors: %): doubled from --capacity-start until one
                       fails, bisected to --capacity-precision, the rate found measured again
                       to confirm; every step is kept in the row (capacity.steps)
  --capacity-precision F  bracket width that ends the bisection, relative (default 0.02)
  --capacity-start N   first rate of the search, requests/s (default 100)
  --slo GATES          service-level objectives checked after every measured run, e.g.
                       'hello:p99<5ms,errors<0.1%;post-load:p99<20ms' (no "scenario:" for
                       every scenario), or a file of them (one group a line, # comments);
                       a row that breaks one is marked, and the run exits 3 (a capacity
                       search's row is not gated: its run is at the edge of its conditions)
Profiles and JVM facts (docs/profiling.md)
  --profile [EVENT]    async-profiler on each server during its measured runs only:
                       $(profile::events | paste -sd'|') (default cpu; cpu falls back to the
                       timer-based ctimer where perf events are unavailable, and the row
                       says which ran); a flame graph per run in the logs folder and the top
                       frames by self time in each row, which is marked as profiled
  --no-gc-log          start the servers without their GC log (-Xlog:gc*): no GC and JVM
                       facts in the rows (only to measure what the log costs)
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
or the set-up is missing; 2 for a bad option; 3 when everything ran but a row broke an --slo
condition (1 wins over 3); 130 / 143 when interrupted by SIGINT / SIGTERM.
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
DURATION_S='' WARMUP_S='' SERVER_WARMUP_S='' RUNS=1 SEED='' LABEL='' DESCRIPTION='' OUTPUT_DIR=$ROOT/results
CONNECTIONS_OVERRIDE='' THREADS_OVERRIDE='' CPUS='' PORT=${BARRAGE_PORT:-8080}
QUICK=0 LIST=0 DRY_RUN=0 AA=0 PROFILE='' GC_LOG=1
LAB_SERVER_OPT='' LAB_LOADS_OPT='' LAB_FILE_OPT='' LAB_DIR_OPT='' STRICT=0
# A load tool busy (on a CPU or waiting for one) for this share of the cores it could use is
# client-bound: what it measured is its own ceiling.
CLIENT_BOUND_SHARE=0.9

parse_options() {
  while (($#)); do
    local opt=$1
    case $opt in
      -h|--help) usage; exit 0 ;;
      --quick) QUICK=1; shift; continue ;;
      --list) LIST=1; shift; continue ;;
      --dry-run) DRY_RUN=1; shift; continue ;;
      --aa) AA=1; shift; continue ;;
      --strict) STRICT=1; shift; continue ;;
      --no-gc-log) GC_LOG=0; shift; continue ;;
      --profile)
        PROFILE=cpu
        if [[ ${2:-} != -* ]] && (($# >= 2)); then
          profile::events | grep -qx -- "$2" || usage_error "--profile wants $(profile::events | paste -sd'|'), got '$2'"
          PROFILE=$2; shift
        fi
        shift; continue ;;
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
      --server-warmup) SERVER_WARMUP_S=$(seconds_of "$value" --server-warmup) ;;
      --seed) [[ $value =~ ^[0-9]{1,9}$ ]] || usage_error "--seed wants a whole number below 10^9, got '$value'"; SEED=$((10#$value)) ;;
      --runs) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--runs wants a positive integer, got '$value'"; RUNS=$value ;;
      --label) [[ $value =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--label wants letters, digits, . _ -; got '$value'"; LABEL=$value ;;
      --description) DESCRIPTION=$value ;;
      --output) OUTPUT_DIR=$value ;;
      --connections) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--connections wants a positive integer, got '$value'"; CONNECTIONS_OVERRIDE=$value ;;
      --threads) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--threads wants a positive integer, got '$value'"; THREADS_OVERRIDE=$value ;;
      --cpus) [[ $value == none || $value =~ ^[0-9,-]+:[0-9,-]+$ ]] || usage_error "--cpus wants SERVER:CLIENT CPU lists (e.g. 0:1) or none, got '$value'"; CPUS=$value ;;
      --server-host) LAB_SERVER_OPT=$value ;;
      --load-hosts) LAB_LOADS_OPT=$value ;;
      --lab) LAB_FILE_OPT=$value ;;
      --lab-dir) LAB_DIR_OPT=$value ;;
      --rates) openloop::parse_rates "$value" >/dev/null 2>&1 || usage_error "--rates wants whole requests/s like 500,1000, got '$value'"
        OPENLOOP_RATES=$value ;;
      --capacity) OPENLOOP_CAPACITY=$(openloop::conditions "$value" 2>&1) || usage_error "--capacity: ${OPENLOOP_CAPACITY#jq: error*: }" ;;
      --capacity-precision) [[ $value =~ ^0?\.[0-9]*[1-9][0-9]*$ ]] || usage_error "--capacity-precision wants a fraction like 0.02, got '$value'"
        OPENLOOP_CAPACITY_PRECISION=$value ;;
      --capacity-start) [[ $value =~ ^[1-9][0-9]{0,6}$ ]] || usage_error "--capacity-start wants a positive whole rate, got '$value'"
        OPENLOOP_CAPACITY_START=$value ;;
      --slo) OPENLOOP_SLO=$(openloop::gates "$value" 2>&1) || usage_error "--slo: ${OPENLOOP_SLO#jq: error*: }" ;;
      --port)
        if ! [[ $value =~ ^[1-9][0-9]{0,4}$ ]] || ((value > 65535)); then usage_error "--port wants 1-65535, got '$value'"; fi
        PORT=$value ;;
      *) usage_error "unknown option '$opt'" ;;
    esac
  done
  # --quick sets the short times; an explicit --duration / --warmup still wins.
  if ((QUICK)); then DURATION_S=${DURATION_S:-3} WARMUP_S=${WARMUP_S:-1} SERVER_WARMUP_S=${SERVER_WARMUP_S:-1}; fi
  DURATION_S=${DURATION_S:-30} WARMUP_S=${WARMUP_S:-10} SERVER_WARMUP_S=${SERVER_WARMUP_S:-5}
  # Drawn, not fixed: a fixed default would always favour the same server; recorded to repeat.
  SEED=${SEED:-$(((RANDOM << 15 | RANDOM) % 1000000))}
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
  if ((AA && ${#SERVERS[@]} != 1)); then
    usage_error "--aa measures one server as two labels: pick it with --servers NAME (got ${#SERVERS[@]})"
  fi

  lab::configure "$LAB_SERVER_OPT" "$LAB_LOADS_OPT" "$LAB_FILE_OPT" "$LAB_DIR_OPT" "$STRICT" || usage_error "bad lab set-up"
  SERVER_CPUS='' CLIENT_CPUS=''
  if lab::active; then
    # Dedicated hosts: nothing shared, so no pinning unless asked (then on the lab hosts).
    [[ -z $CPUS || $CPUS == none ]] || SERVER_CPUS=${CPUS%%:*} CLIENT_CPUS=${CPUS#*:}
    [[ -z $PROFILE ]] || usage_error "--profile attaches to a server on this machine; not in a lab run"
  elif [[ -z $CPUS ]]; then
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

# A slot is what one server start measures: the server's name, or in an A/A run NAME@A and
# NAME@B (the same server under two labels). slot_server SLOT / slot_label SLOT: its parts.
slot_server() { printf '%s\n' "${1%@*}"; }
slot_label() { [[ $1 == *@* ]] && printf '%s\n' "${1##*@}"; return 0; }

# shuffled SEED ITEM...: the items in an order drawn from SEED (Fisher-Yates on a 31-bit
# linear congruential generator: the same seed gives the same order on every machine).
shuffled() {
  local state=$1 i j tmp
  shift
  local items=("$@")
  for ((i = ${#items[@]} - 1; i > 0; i--)); do
    state=$(((state * 1103515245 + 12345) & 0x7fffffff))
    j=$((state % (i + 1)))
    tmp=${items[i]} items[i]=${items[j]} items[j]=$tmp
  done
  printf '%s\n' "${items[@]}"
}

# round_orders: fills ROUND_ORDER (index RUN-1: the slots of that round, space-separated):
# the slots shuffled once by SEED, then rotated by one place per round. Rotating a shuffled
# order puts every server in every place equally often over as many rounds as servers (a
# fresh shuffle per round can put one server first every time), and interleaves the rounds,
# so slow drift on the machine (heat, other tenants) does not land on one server.
round_orders() {
  local slots=() base=() run i n order
  if ((AA)); then slots=("${SERVERS[0]}@A" "${SERVERS[0]}@B"); else slots=("${SERVERS[@]}"); fi
  mapfile -t base < <(shuffled "$SEED" "${slots[@]}")
  n=${#base[@]}
  ROUND_ORDER=()
  for ((run = 1; run <= RUNS; run++)); do
    order=()
    for ((i = 0; i < n; i++)); do order+=("${base[(i + run - 1) % n]}"); done
    ROUND_ORDER+=("${order[*]}")
  done
}

# build_plan: fills ROUND_ORDER and PLAN, one "run<TAB>slot<TAB>tool<TAB>protocol<TAB>scenario
# <TAB>load" entry per planned row, round by round in each round's order; load is empty for a
# closed-loop run, else rate=N or capacity (lib/openloop.sh).
build_plan() {
  PLAN=()
  round_orders
  local run slot server tool proto scenario load
  for ((run = 1; run <= RUNS; run++)); do
    for slot in ${ROUND_ORDER[run - 1]}; do
      server=$(slot_server "$slot")
      for tool in "${TOOLS[@]}"; do
        for proto in $(server_protocols "$server"); do
          "$tool::protocols" | grep -qx "$proto" || continue
          for scenario in "${SCENARIOS[@]}"; do
            for load in '' $(openloop::loads "$scenario"); do
              PLAN+=("$run"$'\t'"$slot"$'\t'"$tool"$'\t'"$proto"$'\t'"$scenario"$'\t'"$load")
            done
          done
        done
      done
    done
  done
}

# estimate_s: seconds the whole plan should take (measured entries, a capacity search as
# CAPACITY_STEPS_GUESS of them, server start-ups and their warm-ups: one per protocol and
# scenario of each start).
CAPACITY_STEPS_GUESS=10
estimate_s() {
  local starts shapes searches
  starts=$(printf '%s\n' "${PLAN[@]}" | cut -f1,2 | sort -u | wc -l)
  shapes=$(printf '%s\n' "${PLAN[@]}" | cut -f1,2,4,5 | sort -u | wc -l)
  searches=$(printf '%s\n' "${PLAN[@]}" | grep -c $'^[^\t]*\t[^\t]*\tbarrage\t.*\tcapacity$' || true)
  echo $(((${#PLAN[@]} + searches * (CAPACITY_STEPS_GUESS - 1)) * (DURATION_S + WARMUP_S + RUN_OVERHEAD_S) + starts * SERVER_OVERHEAD_S
    + shapes * SERVER_WARMUP_S))
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
  local entry run server tool proto scenario load reason
  printf '%-4s %-16s %-10s %-5s %-18s %-13s %s\n' RUN SERVER TOOL PROTO SCENARIO LOAD NOTE
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r run server tool proto scenario load <<<"$entry"
    reason=$("$tool::supports" "$scenario" "$proto") && reason='' || reason="skipped: $reason"
    [[ -z $load || -n $reason ]] || { reason=$(openloop::supports "$tool") && reason='' || reason="skipped: $reason"; }
    printf '%-4s %-16s %-10s %-5s %-18s %-13s %s\n' "$run" "$server" "$tool" "$proto" "$scenario" "${load:-closed loop}" "$reason"
  done
  printf '%d planned runs, %s s each + %s s warm-up; CPU pinning: %s; about %d min\n' "${#PLAN[@]}" \
    "$DURATION_S" "$WARMUP_S" "$(pinning_text)" "$(minutes "$(estimate_s)")"
  printf 'server warm-up: %s\n' "$(server_warmup_text)"
  local run
  for ((run = 1; run <= RUNS; run++)); do
    printf 'round %d order (seed %s): %s\n' "$run" "$SEED" "${ROUND_ORDER[run - 1]}"
  done
}

server_warmup_text() {
  if ((SERVER_WARMUP_S > 0)); then
    printf '%s s of barrage per protocol and scenario on each freshly started server' "$SERVER_WARMUP_S"
  else printf 'none'; fi
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
  ((SERVER_WARMUP_S > 0)) && mapfile -t -O "${#needs[@]}" needs < <(barrage::requires)
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
# The running server's GC log (empty: none); the JVM and profile facts of the row being added.
SERVER_GC_LOG='' ROW_EXTRA=''

# on_exit: the one EXIT trap: stops every process the run started, by process group (tools,
# contract checks, builds, then the server), writes the results file a last time.
on_exit() {
  local rc=$?
  ((EXIT_CODE)) && rc=$EXIT_CODE
  # A second Ctrl-C must not cut the clean-up short and leave the server running.
  trap '' INT TERM
  procs::stop_all
  system::sample_stop
  system::group_sample_stop
  lab::cleanup
  if [[ -n $SERVER_PID ]]; then
    log::info "stopping server process group $SERVER_PID"
    servers::stop "$SERVER_PID" "$STOP_TIMEOUT_S" || log::error "process group $SERVER_PID did not stop"
    SERVER_PID=''
  fi
  if [[ -n $RESULTS_FILE ]]; then
    if ((FINISHED)); then results::finish true; else results::finish false; log::warn "partial results: $RESULTS_FILE"; fi
    report::page "$RESULTS_FILE"
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

# client_cores SCENARIO: the cores the load tool can use: its threads (one event loop each),
# at most the CPUs it is pinned to (all of them when it is not pinned).
client_cores() {
  local cpus threads=$THREADS connections
  connections=$(connections_of "$1")
  ((connections < threads)) && threads=$connections
  if [[ -n $CLIENT_CPUS ]]; then cpus=$(system::count_cpus "$CLIENT_CPUS"); else cpus=$(system::cores); fi
  echo $((threads < cpus ? threads : cpus))
}

# add_row ENTRY STATUS REASON [STARTED ENDED METRICS_FILE STATS_JSON CLIENT_STATS_JSON
# MACHINE_STATS_JSON CAPACITY_JSON]: one results row (in an A/A run with its label, aa_group;
# an open-loop entry with its load, a capacity search with its capacity, a gated scenario with
# its slo check). ADD_ROW_REPLACES=1 replaces the last row instead (a capacity search, step
# after step).
add_row() {
  local run slot server tool proto scenario load status=$2 reason=$3 started=${4:-} ended=${5:-}
  local metrics_file=${6:-} stats=${7:-null} client=${8:-null} machine=${9:-null} capacity=${10:-null}
  local metrics=null version slo=null
  IFS=$'\t' read -r run slot tool proto scenario load <<<"$1"
  # A capacity search's record is the run at the edge of its own conditions by construction:
  # the gates judge closed-loop and fixed-rate rows.
  [[ $status == ok && $load != capacity ]] && slo=$(openloop::slo_json "$scenario" "$metrics_file")
  server=$(slot_server "$slot")
  [[ -n $metrics_file ]] && metrics=$(<"$metrics_file")
  version=$(servers::prop "$server" version 2>/dev/null) || version=''
  local write=results::add
  [[ -z ${ADD_ROW_REPLACES:-} ]] || write=results::replace_last
  "$write" "$(jq -cn --arg server "$server" --arg version "$version" --arg tool "$tool" \
    --argjson load "$(openloop::load_json "$load")" --argjson capacity "$capacity" --argjson slo "$slo" \
    --arg aa_group "$(slot_label "$slot")" --argjson client "$client" --argjson bound "$CLIENT_BOUND_SHARE" \
    --arg proto "$proto" --arg scenario "$scenario" --argjson run "$run" --arg started "$started" \
    --arg ended "$ended" --argjson config "$(config_json "$scenario" "$proto" "$tool")" \
    --argjson metrics "$metrics" --argjson stats "$stats" --arg status "$status" --arg reason "$reason" \
    --argjson machine "$machine" \
    --argjson lab_hosts "$(if [[ -n $metrics_file ]]; then lab::row_hosts "$metrics_file"; else echo null; fi)"  \
    --argjson extra "${ROW_EXTRA:-"{}"}" '
    def nullable: if . == "" then null else . end;
    {server: $server, server_version: ($version | nullable), tool: $tool, protocol: $proto,
     scenario: $scenario, run: $run, started: ($started | nullable), ended: ($ended | nullable),
     config: $config, metrics: $metrics, server_stats: $stats, status: $status,
     reason: ($reason | nullable)}
    + (if $aa_group == "" then {} else {aa_group: $aa_group} end)
    + (if $machine == null then {} else {machine_stats: $machine} end)
    + (if $lab_hosts == null then {} else {lab_hosts: $lab_hosts} end)
    + (if $load == null then {} else {load: $load} end)
    + (if $capacity == null then {} else {capacity: $capacity} end)
    + (if $slo == null then {} else {slo: $slo} end)
    + $extra
    + (if $client == null then {} else
        {client_stats: $client,
         client_bound: (($client.busy_pct // $client.cpu_pct) as $busy
                        | if $busy == null then null else $busy >= $bound * 100 * $client.cores end)} end)')"
}

# fail_entries SLOT RUN REASON: a failed row for every entry of SLOT in RUN.
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

# run_load TOOL DIR PROTOCOL SCENARIO DURATION_S WARMUP_S [RATE]: one run of TOOL against the
# started server (open loop at RATE requests/s when given), its record in DIR/metrics.json: here
# over loopback, or from the lab's load hosts.
run_load() {
  local tool=$1 dir=$2 proto=$3 scenario=$4 duration=$5 warmup=$6 rate=${7:-}
  if lab::active; then
    lab::run_tool "$tool" "$dir/metrics.json" "$dir" "$proto" "$scenario" "$THREADS_OVERRIDE" \
      "$(connections_of "$scenario")" "$(streams_of "$scenario")" "$duration" "$warmup" "$CLIENT_CPUS" \
      ${rate:+"$rate"}
  else
    "$tool::run" "$dir/metrics.json" "$dir" "http://127.0.0.1:$PORT" "$proto" "$scenario" "$THREADS" \
      "$(connections_of "$scenario")" "$(streams_of "$scenario")" "$duration" "$warmup" "$CLIENT_CPUS" \
      ${rate:+"$rate"}
  fi
}

# measure ENTRY: warm-up and one measured run of one plan entry (a capacity search: its
# steps, lib/openloop.sh); adds its row.
measure() {
  local entry=$1 run slot tool proto scenario load reason dir rc=0
  IFS=$'\t' read -r run slot tool proto scenario load <<<"$entry"
  if ! reason=$("$tool::supports" "$scenario" "$proto") || { [[ -n $load ]] && ! reason=$(openloop::supports "$tool"); }; then
    add_row "$entry" skipped "$reason"
    return 0
  fi
  progress "$slot $tool $proto $scenario${load:+ $load}"
  # The tool's raw output stays beside the results, so every number can be checked later.
  dir=$LOG_DIR/$run-$slot-$tool-$proto-$scenario${load:+-$load}
  MEASURED_ENTRY=$entry
  if [[ $load == capacity ]]; then
    CAPACITY_ROW_WRITTEN='' CAPACITY_STARTED=$(now_utc)
    openloop::capacity "$dir" measure_step capacity_row
    return 0
  fi
  measure_step "${load#rate=}" "$dir" || rc=$?
  if ((rc != 0)); then
    reason=$(grep -m1 -E 'error' "$dir/stderr" | sed 's/^[^:]*: //')
    add_row "$entry" failed "$tool failed: ${reason:-exit $rc}" "$STEP_STARTED" "$STEP_ENDED" '' "$STEP_STATS" "$STEP_CLIENT" "$STEP_MACHINE"
    EXIT_CODE_AT_END=1
  else
    add_row "$entry" ok '' "$STEP_STARTED" "$STEP_ENDED" "$dir/metrics.json" "$STEP_STATS" "$STEP_CLIENT" "$STEP_MACHINE"
  fi
  ROW_EXTRA=''
}

# capacity_row STATUS REASON METRICS_FILE CAPACITY_JSON: the row of the capacity search of
# MEASURED_ENTRY, written after each step over the one before (from its first step's start;
# server and tool stats of the last step).
capacity_row() {
  ADD_ROW_REPLACES=${CAPACITY_ROW_WRITTEN:-} add_row "$MEASURED_ENTRY" "$1" "$2" "$CAPACITY_STARTED" "$STEP_ENDED" \
    "$3" "$STEP_STATS" "$STEP_CLIENT" "$STEP_MACHINE" "$4"
  CAPACITY_ROW_WRITTEN=1
  [[ $1 != ok ]] || CAPACITY_ROW_WRITTEN=''
}

# measure_step RATE DIR: one run of MEASURED_ENTRY's tool (open loop at RATE requests/s, closed
# loop when RATE is empty) into DIR/metrics.json, sampling the server and the tool; sets
# STEP_STARTED, STEP_ENDED, STEP_STATS, STEP_CLIENT, STEP_MACHINE and ROW_EXTRA (the JVM's facts
# in the window, the profile); returns the tool's status.
measure_step() {
  local rate=$1 dir=$2 run slot tool proto scenario window_from window_to rc=0
  IFS=$'\t' read -r run slot tool proto scenario _ <<<"$MEASURED_ENTRY"
  mkdir -p "$dir"
  STEP_STARTED=$(now_utc)
  window_from=$(($(jvm::now_ms) + WARMUP_S * 1000))
  [[ -n $PROFILE ]] && profile::begin "$SERVER_PID" "$PROFILE" "$WARMUP_S" "$dir"
  if lab::active; then lab::sample_start
  else
    system::sample_start "$SERVER_PID" "$dir/samples"
    procs::record "$SAMPLER_PID" "cpu sampler"
  fi
  TOOLS_SAMPLES=$dir/tool-samples
  run_load "$tool" "$dir" "$proto" "$scenario" "$DURATION_S" "$WARMUP_S" "$rate" 2>"$dir/stderr" || rc=$?
  TOOLS_SAMPLES=''
  if lab::active; then lab::sample_stop "$dir/samples"; else system::sample_stop; fi
  STEP_ENDED=$(now_utc)
  window_to=$(jvm::now_ms)
  ROW_EXTRA=$(jq -cn --argjson jvm "$(jvm::facts "$SERVER_GC_LOG" "$window_from" "$window_to")" '{jvm: $jvm}')
  if [[ -n $PROFILE ]]; then
    ROW_EXTRA=$(jq -c --argjson profile "$(profile::end "$SERVER_PID" "$PROFILE" "$dir" \
      "${dir#"$OUTPUT_DIR/"}/flame.html" "$slot $tool $proto $scenario${rate:+ @$rate/s}")" '. + {profile: $profile}' <<<"$ROW_EXTRA")
  fi
  cat "$dir/stderr" >&2
  STEP_STATS=$(system::stats "$dir/samples" "$DURATION_S")
  if lab::active; then STEP_CLIENT=$(lab::client_json "$dir")
  else STEP_CLIENT=$(system::group_stats "$dir/tool-samples" "$DURATION_S" "$(client_cores "$scenario")")
  fi
  # (in a lab the samples are the server host's, where no load tool runs)
  STEP_MACHINE=$(system::machine_stats "$dir/samples" "$DURATION_S" "$STEP_STATS" \
    "$(if lab::active; then echo '{"cpu_pct": 0}'; else echo "$STEP_CLIENT"; fi)")
  return "$rc"
}

# warm_up SLOT RUN: the same load for every freshly started server, before its first measured
# run whichever tool comes first: barrage, closed loop, SERVER_WARMUP_S for each protocol and
# scenario the slot is measured with in RUN (the scenario's connections, streams, method and
# body; a scenario barrage cannot send is left out: the others warm its paths). Kept in the
# results' server_warmups; a warm-up that fails is a warning, the measurement goes on.
warm_up() {
  local slot=$1 run=$2 entry r s tool proto scenario seen=' ' shapes=() dir reason started rc
  ((SERVER_WARMUP_S > 0)) || return 0
  started=$(now_utc)
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r r s tool proto scenario _ <<<"$entry"
    [[ $r == "$run" && $s == "$slot" && $seen != *" $proto/$scenario "* ]] || continue
    seen+="$proto/$scenario "
    dir=$LOG_DIR/$run-$slot-warmup-$proto-$scenario
    mkdir -p "$dir"
    if ! reason=$(barrage::supports "$scenario" "$proto"); then
      shapes+=("$(jq -cn --arg p "$proto" --arg s "$scenario" --arg r "$reason" \
        '{protocol: $p, scenario: $s, status: "skipped", reason: $r, requests: null, successful_rps: null}')")
      continue
    fi
    log::info "warming up $slot: barrage $proto $scenario for ${SERVER_WARMUP_S}s"
    rc=0
    run_load barrage "$dir" "$proto" "$scenario" "$SERVER_WARMUP_S" 0 2>"$dir/stderr" || rc=$?
    if ((rc == 0)); then
      shapes+=("$(jq -c --arg p "$proto" --arg s "$scenario" \
        '{protocol: $p, scenario: $s, status: "ok", reason: null, requests, successful_rps}' "$dir/metrics.json")")
    else
      reason=$(grep -m1 -E 'error' "$dir/stderr" | sed 's/^[^:]*: //')
      log::warn "warm-up of $slot ($proto $scenario) failed: ${reason:-exit $rc}; measuring anyway"
      shapes+=("$(jq -cn --arg p "$proto" --arg s "$scenario" --arg r "barrage failed: ${reason:-exit $rc}" \
        '{protocol: $p, scenario: $s, status: "failed", reason: $r, requests: null, successful_rps: null}')")
    fi
  done
  ((${#shapes[@]})) || return 0
  results::add_warmup "$(printf '%s\n' "${shapes[@]}" | jq -cs --arg server "$(slot_server "$slot")" \
    --arg aa_label "$(slot_label "$slot")" --argjson run "$run" --argjson duration "$SERVER_WARMUP_S" \
    --arg started "$started" --arg ended "$(now_utc)" '
    {server: $server, run: $run, tool: "barrage", duration_s: $duration, started: $started,
     ended: $ended, shapes: .}
    + (if $aa_label == "" then {} else {aa_group: $aa_label} end)')"
}

# serve SLOT RUN: one server's life for one run: start, ready, verify, warm up, measure, stop.
serve() {
  local slot=$1 run=$2 server holder log
  server=$(slot_server "$slot")
  log=$LOG_DIR/$slot-run$run.log
  if lab::active; then
    log::info "starting $slot on $LAB_SERVER port $PORT (log: $log)"
    lab::start_server "$server" "$PORT" "$log" "$SERVER_CPUS" || { fail_entries "$slot" "$run" "start failed on $LAB_SERVER"; return 0; }
    verify_and_measure "$slot" "$run" "$log"
    lab::stop_server || log::die "could not stop $server on $LAB_SERVER"
    return 0
  fi
  holder=$(servers::port_holder "$PORT")
  if [[ -n $holder ]]; then
    log::error "port $PORT is taken by $holder before starting $server; free it or pick another with --port"
    EXIT_CODE=1
    exit 1
  fi
  log::info "starting $slot on port $PORT (log: $log)"
  SERVER_GC_LOG=''
  ((GC_LOG)) && SERVER_GC_LOG=$LOG_DIR/$slot-run$run.gc.log
  local launcher_options
  launcher_options=$(jvm::launcher_options "$SERVER_GC_LOG" ${PROFILE:+"-agentpath:$PROFILE_LIB"}) || exit 1
  if ! JDK_JAVA_OPTIONS=$launcher_options servers::start "$server" "$PORT" "$log" "$SERVER_CPUS"; then
    fail_entries "$slot" "$run" "start failed: see $log"
    return 0
  fi
  procs::record "$SERVER_PID" "server $server"
  verify_and_measure "$slot" "$run" "$log"
  servers::stop "$SERVER_PID" "$STOP_TIMEOUT_S" || log::die "could not stop $server (process group $SERVER_PID)"
  SERVER_PID=''
  servers::wait_port_free "$PORT" "$STOP_TIMEOUT_S" \
    || log::die "port $PORT still taken by $(servers::port_holder "$PORT") after stopping $server"
}

# server_ready / server_alive / verify_contract NAME PROTOCOLS: the started server answers
# GET /hello / still runs / keeps the contract (TAP on stdout); here, or from the lab's first
# load host.
server_ready() {
  if lab::active; then lab::wait_ready "$PORT" "$READY_TIMEOUT_S"
  else servers::wait_ready "$SERVER_PID" "$PORT" "$READY_TIMEOUT_S"; fi
}
server_alive() { if lab::active; then lab::server_alive; else servers::alive "$SERVER_PID"; fi; }
verify_contract() {
  if lab::active; then lab::contract "$1" "$PORT" "$2"; return; fi
  # In the background, in a process group of its own: a signal stops it and its curl at once.
  TMPDIR=$SCRATCH_DIR procs::run "contract verification $1" contract::verify "$1" "http://127.0.0.1:$PORT" "$2"
}

# verify_and_measure SLOT RUN LOG: the started server (SERVER_PID) once it answers and keeps
# the contract: warmed up, then every entry of SLOT in RUN measured; else all of them failed
# with the reason.
verify_and_measure() {
  local slot=$1 run=$2 log=$3 server entry protocols tap
  server=$(slot_server "$slot")
  if ! server_ready; then
    local tail_line why="no answer to GET /hello within ${READY_TIMEOUT_S}s"
    tail_line=$(grep -v '^\s*$' "$log" 2>/dev/null | tail -n 1)
    server_alive || why="exited before it was ready"
    fail_entries "$slot" "$run" "start failed: $why${tail_line:+ (log: $tail_line)}"
    return 0
  fi
  protocols=$(declared_protocols "$server")
  tap=$LOG_DIR/$slot-run$run.contract.tap
  log::info "verifying $server ($protocols)"
  if ! verify_contract "$server" "$protocols" >"$tap"; then
    fail_entries "$slot" "$run" "contract verification failed: $(grep -m1 '^not ok' "$tap")"
    return 0
  fi
  warm_up "$slot" "$run"
  for entry in "${PLAN[@]}"; do
    [[ $entry == "$run"$'\t'"$slot"$'\t'* ]] || continue
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

# lab_prepare: barrage (built here) and the servers that built, copied to the lab's hosts,
# their facts and pre-flight in the results (lab); exit 1 when the lab is not usable.
lab_prepare() {
  local server built=()
  barrage::build || exit 1
  for server in "${SERVERS[@]}"; do [[ -n ${BUILD_FAILED[$server]:-} ]] || built+=("$server"); done
  lab::record_to "$LOG_DIR/lab-pids"
  lab::prepare "${built[@]}" || exit 1
  results::set lab "$(lab::header_json)"
}

# print_summary FILE: one line per row of a results file ("-" for a value a row lacks, also
# when its record is not valid); the scenario says an open-loop row's load; the note
# (lib/summary.jq) is the reason, a rate not delivered, the capacity found, a broken SLO, a
# client-bound row or steal time that lowered the figures.
print_summary() {
  printf '%-16s %-10s %-5s %-26s %-3s %-8s %12s %10s %8s %s\n' SERVER TOOL PROTO SCENARIO RUN STATUS REQ/S P99_US ERRORS NOTE
  jq -L "$ROOT/lib" -r 'import "summary" as summary; .results[] | summary::fields | @tsv' "$1" |
    while IFS=$'\t' read -r server tool proto scenario run status rps p99 errors note; do
      printf '%-16s %-10s %-5s %-26s %-3s %-8s %12s %10s %8s %s\n' "$server" "$tool" "$proto" "$scenario" \
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
  if lab::active; then lab::connect || exit 1; fi
  if [[ -n $PROFILE ]]; then
    profile::ensure "$ROOT/.cache" "${JAVA_HOME_FOUND:-$(java::home)}" || exit 1
  fi
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
    --argjson tools "$tools_json" --argjson duration "$DURATION_S" --argjson warmup "$WARMUP_S" --argjson runs "$RUNS" \
    --argjson server_warmup "$SERVER_WARMUP_S" --argjson seed "$SEED" --argjson aa "$AA" \
    --arg profile "$PROFILE" --argjson gc_log "$GC_LOG" \
    --arg order "$(printf '%s\n' "${ROUND_ORDER[@]}")" '
    {version: 1, timestamp: $timestamp, commit: (if $commit == "" then null else $commit end),
     command: $command, "label": (if $run_label == "" then null else $run_label end), system: $system,
     tools: $tools,
     settings: {duration_s: $duration, warmup_s: $warmup, runs: $runs, server_warmup_s: $server_warmup,
                seed: $seed, order: ($order | split("\n") | map(split(" "))), aa: ($aa == 1),
                profile: (if $profile == "" then null else $profile end), gc_log: ($gc_log == 1)}}')
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
  # A tool that must be built first (a driver's optional <tool>::prepare: jdk-client's Maven
  # build) is built now, not inside a measured run; if it fails, its runs fail and say why.
  for tool in "${TOOLS[@]}"; do
    if declare -F "$tool::prepare" >/dev/null && ! "$tool::prepare"; then log::warn "$tool is not ready: its runs will fail"; fi
  done
  if lab::active; then lab_prepare; fi

  local run slot server
  for ((run = 1; run <= RUNS; run++)); do
    for slot in ${ROUND_ORDER[run - 1]}; do
      server=$(slot_server "$slot")
      if [[ -n ${BUILD_FAILED[$server]:-} ]]; then
        fail_entries "$slot" "$run" "build failed: ${BUILD_FAILED[$server]}"
        continue
      fi
      serve "$slot" "$run"
    done
  done
  if ((AA)); then
    results::set noise_floor "$(jq -L "$ROOT/lib" 'import "noise" as noise; noise::floor(0.95)' "$RESULTS_FILE")"
  fi
  FINISHED=1
  results::finish true
  local path=$RESULTS_FILE
  RESULTS_FILE=''
  report::page "$path"
  print_summary "$path"
  printf '%s\n' "$path"
  if ((RESULTS_INVALID)); then
    log::error "$path is not valid against schemas/results.schema.json (findings above)"
    return 1
  fi
  ((EXIT_CODE_AT_END)) || openloop::slo_exit_status "$path" || return
  return "$EXIT_CODE_AT_END"
}

main "$@"
