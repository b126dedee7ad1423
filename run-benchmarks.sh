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
# Tests point the orchestrator at fixture servers; lib/servers.sh reads SERVERS_DIR.
export SERVERS_DIR=${BARRAGE_SERVERS_DIR:-${SERVERS_DIR:-$ROOT/servers}}

# shellcheck source=lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=lib/settings.sh
source "$ROOT/lib/settings.sh"
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
# shellcheck source=lib/churn.sh
source "$ROOT/lib/churn.sh"
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
# shellcheck source=lib/plan.sh
source "$ROOT/lib/plan.sh"
# shellcheck source=lib/rows.sh
source "$ROOT/lib/rows.sh"
# shellcheck source=lib/measure.sh
source "$ROOT/lib/measure.sh"
# shellcheck source=lib/steady.sh
source "$ROOT/lib/steady.sh"
# shellcheck source=lib/spec.sh
source "$ROOT/lib/spec.sh"
tools::load

# Seconds a server gets to answer GET /hello after it starts, and to stop after TERM.
READY_TIMEOUT_S=60
STOP_TIMEOUT_S=10

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
  --protocol P[,P]     h1|h2c|h3|all (default all). h2c and h3 run only for servers whose
                       server.properties declares them and with tools that speak them
                       (a scenario a tool cannot express is recorded as skipped). h3:
                       HTTP/3 over QUIC, measured by barrage (built with Debian's QUIC
                       libraries), the certificate made with openssl (lib/certs.sh); in a
                       lab run too (README "Running on lab hardware": a certificate for the
                       server's address, the contract's h3 checks from the first load host)
Measurement
  --duration D         measured time per run, e.g. 30s or 2m (default 30s)
  --warmup D           discarded warm-up before each run (default 10s)
  --runs N             repeat everything N times (rounds); each round starts every server
                       afresh, in an order shuffled once by the seed and rotated by one
                       place per round, so that drift on the machine spreads evenly
                       (default 1; 3+ gives confidence intervals and significance tests)
  --seed N             seed of the server order (default: drawn at random); the seed and
                       every round's order are recorded in the results (settings)
  --server-warmup W    barrage load on each freshly started server before its first measured
                       run, closed loop, for each protocol and scenario it is measured with
                       (the scenario's shape), whichever tool comes first. auto (the default):
                       until the load is in steady state (docs/steady-state.md), at most 60s
                       (--quick: 15s) per protocol and scenario; auto:CAP another cap; a
                       duration (5s) a fixed one; 0 for none. Recorded in the results
                       (server_warmups, and each row's server_warmup: seconds, steady or not)
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
  --quick              a short tour: 3 s runs, 1 s warm-up, server warm-ups capped at 15s
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
  --rate-stages S      also measure every scenario at a ramped rate, as barrage --rate-stages
                       takes it: 100:5s,2000:20s starts at 100/s and ramps linearly to
                       2000/s over 20 s (the run lasts the stages); without it, at the
                       scenario table's stages column. The README draws p99 against the
                       offered rate from each server's ramped run
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
                       search's row is not gated: its run is at the edge of its conditions);
                       a scenario not in scenarios/scenarios.tsv is refused (exit 2)
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
or the set-up is missing; 2 for a bad option (a name given twice, or a value beyond what
barrage takes: the run spec's ranges, lib/spec.tsv); 3 when everything ran but a row broke
an --slo condition (1 wins over 3); 130 / 143 when interrupted by SIGINT / SIGTERM.
USAGE
}

# usage_error MSG...: a bad command line (exit 2).
usage_error() {
  log::error "$*"
  log::error "see ./run-benchmarks.sh --help"
  exit 2
}

# within_range OPTION KEY VALUE [AS_GIVEN [UNIT]]: exit 2 unless VALUE is within the range of
# the run spec's KEY (lib/spec.tsv: barrage's own limits), so that no value accepted here is
# refused by a tool in the middle of the run.
within_range() {
  spec::in_range "$2" "$3" && return 0
  local min max
  read -r min max <<<"$(spec::range "$2")"
  usage_error "$1 wants $min to $max ${5:-$(spec::unit "$2")} (barrage's limit), got '${4:-$3}'"
}

# A taskset CPU list: 0-3,6.
CPU_LIST_RE='[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*'

# seconds_of TEXT OPTION KEY: 30s / 2m / 30 -> seconds; exit 2 otherwise, and above the most
# the run spec's KEY takes (0 is left to the caller).
seconds_of() {
  [[ $1 =~ ^([0-9]+)([sm]?)$ ]] || usage_error "$2 wants a duration like 30s or 2m, got '$1'"
  local n=${BASH_REMATCH[1]} seconds
  # (digits too many for shell arithmetic stay text: out of range)
  if ((${#n} > 12)); then seconds=$n
  elif [[ ${BASH_REMATCH[2]} == m ]]; then seconds=$((10#$n * 60))
  else seconds=$((10#$n)); fi
  [[ $seconds == 0 ]] || within_range "$2" "$3" "$seconds" "$1"
  echo "$seconds"
}

# pick_names ARRAY KIND REQUESTED VALID...: sets ARRAY to REQUESTED (a comma list, or "all"
# for every valid name) after checking each name; exits 2 listing the valid ones otherwise,
# and for a name given twice (it would be measured twice, its rows under one key).
pick_names() {
  local -n picked=$1
  local kind=$2 requested=$3 name seen=' '
  shift 3
  if [[ $requested == all ]]; then picked=("$@"); return 0; fi
  IFS=, read -r -a picked <<<"$requested"
  ((${#picked[@]})) || usage_error "no $kind given"
  for name in "${picked[@]}"; do
    [[ " $* " == *" $name "* ]] || usage_error "unknown $kind '$name' (valid: $* all)"
    [[ $seen != *" $name "* ]] || usage_error "$kind '$name' given twice in '$requested'"
    seen+="$name "
  done
}

# parse_options ARG...: the command line into SETTINGS and SERVERS, SCENARIOS, TOOLS and
# PROTOCOLS (lib/settings.sh), then read-only; exit 2 (usage_error) for a bad one.
parse_options() {
  local why seconds
  while (($#)); do
    local opt=$1
    case $opt in
      -h|--help) usage; exit 0 ;;
      --quick) SETTINGS[quick]=1; shift; continue ;;
      --list) SETTINGS[list]=1; shift; continue ;;
      --dry-run) SETTINGS[dry_run]=1; shift; continue ;;
      --aa) SETTINGS[aa]=1; shift; continue ;;
      --strict) SETTINGS[strict]=1; shift; continue ;;
      --no-gc-log) SETTINGS[gc_log]=0; shift; continue ;;
      --profile)
        SETTINGS[profile]=cpu
        if [[ ${2:-} != -* ]] && (($# >= 2)); then
          grep -qx -- "$2" <<<"$(profile::events)" || usage_error "--profile wants $(profile::events | paste -sd'|'), got '$2'"
          SETTINGS[profile]=$2; shift
        fi
        shift; continue ;;
      --*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
    esac
    [[ $opt == --* ]] || usage_error "unexpected argument '$opt'"
    (($# >= 2)) || usage_error "$opt needs a value"
    local value=$2
    shift 2
    case $opt in
      --servers) SETTINGS[servers]=$value ;;
      --scenarios) SETTINGS[scenarios]=$value ;;
      --tool) SETTINGS[tools]=$value ;;
      --protocol) SETTINGS[protocols]=$value ;;
      --duration) SETTINGS[duration_s]=$(seconds_of "$value" --duration duration_s) ;;
      --warmup) SETTINGS[warmup_s]=$(seconds_of "$value" --warmup warmup_s) ;;
      --server-warmup) why=$(steady::parse_server_warmup "$value") ||
          usage_error "--server-warmup wants auto, auto:CAP (e.g. auto:30s) or a duration like 5s, got '$value'"
        read -r 'SETTINGS[server_warmup_mode]' seconds <<<"$why"
        # a plain auto keeps a cap given before it
        [[ -z $seconds ]] || SETTINGS[server_warmup_s]=$seconds
        # the cap (barrage --warmup auto:CAP) or the fixed warm-up's length (-d)
        within_range --server-warmup warmup_s "${SETTINGS[server_warmup_s]:-0}" "$value" ;;
      --seed) [[ $value =~ ^[0-9]{1,9}$ ]] || usage_error "--seed wants a whole number below 10^9, got '$value'"; SETTINGS[seed]=$((10#$value)) ;;
      --runs) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--runs wants a positive integer, got '$value'"; SETTINGS[runs]=$value ;;
      --label) [[ $value =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--label wants letters, digits, . _ -; got '$value'"; SETTINGS[label]=$value ;;
      --description) SETTINGS[description]=$value ;;
      --output) SETTINGS[output_dir]=$value ;;
      --connections) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--connections wants a positive integer, got '$value'"
        within_range --connections connections "$value"; SETTINGS[connections]=$value ;;
      --threads) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--threads wants a positive integer, got '$value'"
        within_range --threads threads "$value"; SETTINGS[threads_option]=$value ;;
      --cpus) [[ $value == none || $value =~ ^$CPU_LIST_RE:$CPU_LIST_RE$ ]] || usage_error "--cpus wants SERVER:CLIENT CPU lists (e.g. 0:1) or none, got '$value'"; SETTINGS[cpus]=$value ;;
      --server-host) SETTINGS[server_host]=$value ;;
      --load-hosts) SETTINGS[load_hosts]=$value ;;
      --lab) SETTINGS[lab_file]=$value ;;
      --lab-dir) SETTINGS[lab_dir]=$value ;;
      --rates) why=$(openloop::parse_rates "$value" 2>&1 >/dev/null) ||
          usage_error "--rates wants whole requests/s like 500,1000, got '$value' (${why#"${LOG_RED}error:${LOG_RESET} "})"
        SETTINGS[rates]=$value ;;
      --rate-stages) why=$(openloop::stages_seconds "$value" 2>/dev/null) ||
          usage_error "--rate-stages wants RATE:DURATION,... like 100:5s,2000:20s (the first rate above 0), got '$value'"
        # no more stages than barrage takes, lasting no longer than a run may
        within_range --rate-stages stages "$(($(tr -cd , <<<"$value" | wc -c) + 1))" "$value" stages
        within_range --rate-stages duration_s "$why" "$value" 's in all'
        SETTINGS[stages]=$value ;;
      --capacity) SETTINGS[capacity]=$(openloop::conditions "$value" 2>&1) || usage_error "--capacity: ${SETTINGS[capacity]#jq: error*: }" ;;
      --capacity-precision) [[ $value =~ ^0?\.[0-9]*[1-9][0-9]*$ ]] || usage_error "--capacity-precision wants a fraction like 0.02, got '$value'"
        SETTINGS[capacity_precision]=$value ;;
      --capacity-start) [[ $value =~ ^[1-9][0-9]{0,6}$ ]] || usage_error "--capacity-start wants a positive whole rate, got '$value'"
        SETTINGS[capacity_start]=$value ;;
      --slo) SETTINGS[slo]=$(openloop::gates "$value" 2>&1) || usage_error "--slo: ${SETTINGS[slo]#jq: error*: }" ;;
      --port)
        if ! [[ $value =~ ^[1-9][0-9]{0,4}$ ]] || ((value > 65535)); then usage_error "--port wants 1-65535, got '$value'"; fi
        SETTINGS[port]=$value ;;
      *) usage_error "unknown option '$opt'" ;;
    esac
  done
  # --quick sets the short times; an explicit --duration / --warmup still wins.
  if ((SETTINGS[quick])); then SETTINGS[duration_s]=${SETTINGS[duration_s]:-3} SETTINGS[warmup_s]=${SETTINGS[warmup_s]:-1}; fi
  SETTINGS[duration_s]=${SETTINGS[duration_s]:-30} SETTINGS[warmup_s]=${SETTINGS[warmup_s]:-10}
  SETTINGS[server_warmup_s]=${SETTINGS[server_warmup_s]:-$(steady::default_cap "${SETTINGS[quick]}")}
  # Drawn, not fixed: a fixed default would always favour the same server; recorded to repeat.
  SETTINGS[seed]=${SETTINGS[seed]:-$(((RANDOM << 15 | RANDOM) % 1000000))}
  ((SETTINGS[duration_s] > 0)) || usage_error "--duration must be more than 0"

  local valid
  mapfile -t valid < <(servers::list)
  pick_names SERVERS server "${SETTINGS[servers]}" "${valid[@]}"
  # all: the scenarios in no group; a grouped one (churn, idle: never in the ranking) by name
  if [[ ${SETTINGS[scenarios]} == all ]]; then mapfile -t valid < <(scenarios::default)
  else mapfile -t valid < <(scenarios::list); fi
  pick_names SCENARIOS scenario "${SETTINGS[scenarios]}" "${valid[@]}"
  # a gate on a misspelt scenario would gate nothing: refused before anything starts
  local gate_scenario
  while IFS= read -r gate_scenario; do
    [[ " ${valid[*]} " == *" $gate_scenario "* ]] || usage_error "--slo: unknown scenario '$gate_scenario' (valid: ${valid[*]})"
  done < <(if [[ -n ${SETTINGS[slo]} ]]; then jq -r '.[].scenario // empty' <<<"${SETTINGS[slo]}"; fi)
  mapfile -t valid < <(tools::list)
  pick_names TOOLS tool "${SETTINGS[tools]}" "${valid[@]}"
  ((${#SERVERS[@]})) || usage_error "no servers found under $SERVERS_DIR"
  if ((SETTINGS[aa] && ${#SERVERS[@]} != 1)); then
    usage_error "--aa measures one server as two labels: pick it with --servers NAME (got ${#SERVERS[@]})"
  fi

  lab::configure "${SETTINGS[server_host]}" "${SETTINGS[load_hosts]}" "${SETTINGS[lab_file]}" "${SETTINGS[lab_dir]}" "${SETTINGS[strict]}" || usage_error "bad lab set-up"
  load_place
  # "all" is every protocol this place measures; a named one is checked there
  pick_names PROTOCOLS protocol "${SETTINGS[protocols]}" h1 h2c h3
  [[ ${SETTINGS[protocols]} == all ]] && mapfile -t PROTOCOLS < <(place::protocols)
  why=$(place::check_options) || usage_error "$why"
  SETTINGS[server_cpus]='' SETTINGS[client_cpus]=''
  if [[ -z ${SETTINGS[cpus]} ]]; then
    read -r 'SETTINGS[server_cpus]' 'SETTINGS[client_cpus]' <<<"$(place::default_pinning)" || true
  elif [[ ${SETTINGS[cpus]} != none ]]; then
    SETTINGS[server_cpus]=${SETTINGS[cpus]%%:*} SETTINGS[client_cpus]=${SETTINGS[cpus]#*:}
  fi
  if [[ -n ${SETTINGS[threads_option]} ]]; then SETTINGS[threads]=${SETTINGS[threads_option]}
  elif [[ -n ${SETTINGS[client_cpus]} ]]; then SETTINGS[threads]=$(system::count_cpus "${SETTINGS[client_cpus]}")
  else SETTINGS[threads]=$(system::cores)
  fi
  # a machine with more cores than barrage takes threads: as many as it takes
  spec::in_range threads "${SETTINGS[threads]}" || read -r _ 'SETTINGS[threads]' <<<"$(spec::range threads)"
  SETTINGS[output_dir]=${SETTINGS[output_dir]:-$ROOT/results}
  # read-only from here: the libraries read the settings, never write them
  readonly SETTINGS SERVERS SCENARIOS TOOLS PROTOCOLS
}

# load_place: where the run happens, the one of lib/place/*.sh that defines the place::
# functions: lab.sh when a lab is configured (lib/lab.sh), else local.sh.
load_place() {
  if lab::active; then PLACE=lab; else PLACE=local; fi
  # shellcheck source=lib/place/local.sh
  source "$ROOT/lib/place/$PLACE.sh"
}

# ensure_setup: the commands the selected tools, servers and their contract checks need
# (installed as root on Debian, else the exact command and exit 1), the results file's
# validator, and a JDK 21+ when a server is built with Maven.
ensure_setup() {
  local needs=(jq:jq curl:curl taskset:util-linux setsid:util-linux ss:iproute2 ps:procps) tool server
  for tool in "${TOOLS[@]}"; do mapfile -t -O "${#needs[@]}" needs < <("$tool::requires"); done
  # the server warm-up's tool (lib/steady.sh)
  if ((SETTINGS[server_warmup_s] > 0)) && tool=$(steady::tool); then mapfile -t -O "${#needs[@]}" needs < <("$tool::requires"); fi
  for server in "${SERVERS[@]}"; do
    mapfile -t -O "${#needs[@]}" needs < <(contract::requires "$(plan::verified_protocols "$server")")
  done
  local maven=0
  [[ -n $(plan::maven_servers) ]] && { maven=1; needs+=(mvn:maven); }
  deps::ensure "${needs[@]}" || exit 1
  schema::ensure_validator || exit 1
  # high-concurrency opens 1000 connections: lift the soft open-files limit to the hard one.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || log::warn "open-files limit stays at $(ulimit -n)"
  # what caps the churn and idle scenarios here: TIME_WAIT reuse, the port range, the file limits
  [[ -n ${SETTINGS[load_hosts]} ]] || churn::preflight_local
  if ((maven)); then
    JAVA_HOME_FOUND=$(java::home) || exit 1
  else
    JAVA_HOME_FOUND=$(java::home 2>/dev/null) || JAVA_HOME_FOUND=''
  fi
}

# build_servers: builds the Maven servers among the selected; every server that fails is
# printed as NAME<TAB>reason.
build_servers() {
  local to_build
  mapfile -t to_build < <(plan::maven_servers)
  ((${#to_build[@]})) || return 0
  SERVERS_BUILD_LOG=$LOG_DIR/build.log servers::build "${to_build[@]}" || true
}

# Run state, read by the EXIT trap. SCRATCH_DIR: temp files of contract checks.
SCRATCH_DIR='' EXIT_CODE=0 FINISHED=0 JAVA_HOME_FOUND=''

# on_exit: the one EXIT trap: stops every process the run started, by process group (tools,
# contract checks, builds, then what the place started: the server, a lab's remote processes),
# writes the results file a last time.
on_exit() {
  local rc=$?
  # Only this shell cleans up. A subshell (a sampler, a command substitution) that a signal
  # reaches an instant after its fork, before bash has reset the traps it inherited, runs
  # them: it would stop the server and rewrite the results under the running measurement
  # (seen: a tool that ended at once, its sampler stopped as it started).
  [[ $BASHPID == "$$" ]] || exit "$rc"
  ((EXIT_CODE)) && rc=$EXIT_CODE
  # A second Ctrl-C must not cut the clean-up short and leave the server running.
  trap '' INT TERM
  procs::stop_all
  system::sample_stop
  system::group_sample_stop
  place::cleanup
  if [[ -n $RESULTS_FILE ]]; then
    if ((FINISHED)); then results::finish true; else results::finish false; log::warn "partial results: $RESULTS_FILE"; fi
    report::page "$RESULTS_FILE"
  fi
  [[ -n $SCRATCH_DIR ]] && rm -rf -- "$SCRATCH_DIR"
  exit "$rc"
}

# install_traps: on_exit at exit, and INT/TERM end the run with 130/143 through it.
install_traps() {
  trap on_exit EXIT
  trap 'EXIT_CODE=130; exit 130' INT
  trap 'EXIT_CODE=143; exit 143' TERM
}

main() {
  # A script's background job starts with SIGINT ignored (POSIX), and bash cannot trap a signal
  # ignored when it started: start again with SIGINT restored, so that SIGINT always stops a run.
  if (((0x$(awk '/^SigIgn:/ {print $2}' "/proc/$$/status" 2>/dev/null || echo 0) & 2) != 0)); then
    if env --default-signal=INT true 2>/dev/null; then exec env --default-signal=INT "$BASH" "$0" "$@"; fi
    echo "warning: SIGINT is ignored (inherited) and env cannot restore it: stop this run with SIGTERM" >&2
  fi
  local arg
  SETTINGS[command_line]=$(shell_quote "$0")
  for arg in "$@"; do SETTINGS[command_line]+=" $(shell_quote "$arg")"; done

  parse_options "$@"
  if ((SETTINGS[list])); then plan::print_list; return 0; fi
  plan::build
  if ((SETTINGS[dry_run])); then plan::print_plan; return 0; fi
  ((${#PLAN[@]})) || usage_error "nothing to run: no selected server speaks a selected protocol with a selected tool (see --list)"

  install_traps
  ensure_setup
  place::connect
  if [[ -n ${SETTINGS[profile]} ]]; then
    profile::ensure "$ROOT/.cache" "${JAVA_HOME_FOUND:-$(java::home)}" || exit 1
  fi
  log::info "CPU pinning: $(plan::pinning_text); load-tool threads: ${SETTINGS[threads]}"
  log::info "${#PLAN[@]} planned runs; estimated time about $(plan::minutes "$(plan::estimate_s)") min"

  mkdir -p "${SETTINGS[output_dir]}"
  local base
  base=$(date -u +%Y-%m-%dT%H-%M-%SZ)${SETTINGS[label]:+-${SETTINGS[label]}}
  SCRATCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage run.XXXXXX")
  LOG_DIR=${SETTINGS[output_dir]}/$base.logs
  mkdir -p "$LOG_DIR"
  procs::record_to "$LOG_DIR/pids"
  results::init "${SETTINGS[output_dir]}/$base.json" "$(rows::header_json)"
  log::info "results: $RESULTS_FILE"

  declare -A BUILD_FAILED=()
  local name reason tool server built=()
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
  for server in "${SERVERS[@]}"; do [[ -n ${BUILD_FAILED[$server]:-} ]] || built+=("$server"); done
  place::prepare "${built[@]}"

  local run slot
  for ((run = 1; run <= SETTINGS[runs]; run++)); do
    for slot in ${ROUND_ORDER[run - 1]}; do
      server=$(plan::slot_server "$slot")
      if [[ -n ${BUILD_FAILED[$server]:-} ]]; then
        measure::fail_entries "$slot" "$run" "build failed: ${BUILD_FAILED[$server]}"
        continue
      fi
      measure::serve "$slot" "$run"
    done
  done
  if ((SETTINGS[aa])); then
    results::set noise_floor "$(jq -L "$ROOT/lib" 'import "noise" as noise; noise::floor(0.95)' "$RESULTS_FILE")"
  fi
  FINISHED=1
  results::finish true
  local path=$RESULTS_FILE
  RESULTS_FILE=''
  report::page "$path"
  rows::print_summary "$path"
  printf '%s\n' "$path"
  if ((RESULTS_INVALID)); then
    log::error "$path is not valid against schemas/results.schema.json (findings above)"
    return 1
  fi
  if measure::any_failed; then return 1; fi
  openloop::slo_exit_status "$path"
}

# Tests source this file to call its functions (and lib/plan.sh's); only a run executes main.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
