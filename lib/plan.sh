#!/usr/bin/env bash
# plan: what a run of run-benchmarks.sh will do: servers x tools x protocols x scenarios x
# loads, round by round in a seeded order; its time estimate, --list and --dry-run; and the
# run spec of one plan entry. Pure functions of the settings below (no process started, no
# file written), so that tests source this file and call them.
#
# Settings read (lib/settings.sh: run-benchmarks.sh's options): SERVERS TOOLS PROTOCOLS
# SCENARIOS (arrays) and SETTINGS' runs, seed, aa, duration_s, warmup_s, server_warmup_s,
# server_warmup_mode, connections, threads, server_cpus, client_cpus; SERVERS_DIR
# (lib/servers.sh).
#
# A plan entry is one line "RUN<TAB>SLOT<TAB>TOOL<TAB>PROTOCOL<TAB>SCENARIO<TAB>LOAD": LOAD is
# empty for a closed-loop run, else rate=N, stages (the scenario's, openloop::stages_of) or
# capacity. A slot is what one server start
# measures: the server's name, or in an A/A run NAME@A and NAME@B.
#
#   plan::build
#     Fills ROUND_ORDER (index RUN-1: that round's slots, space-separated) and PLAN (the
#     entries, round by round in each round's order), and reads once what every entry's spec
#     repeats: each selected server's version (server.properties) and each selected tool's
#     request timeout (<tool>::request_timeout_s).
#   plan::spec SPEC_NAME ENTRY
#     Fills the associative array SPEC_NAME (declared by the caller: `local -A NAME`) with the
#     run spec of ENTRY: every key lib/spec.tsv declares (what each means, who sets and who
#     reads it), those measuring and the place set later (dir, out, url, cacert, samples,
#     start_at, barrage_bin) empty.
#   plan::estimate_s
#     Seconds the whole PLAN should take.
#   plan::minutes SECONDS
#     Rounded up, at least 1.
#   plan::print_list / plan::print_plan
#     What --list and --dry-run print.
#   plan::slot_server SLOT / plan::slot_label SLOT
#     A slot's server / its A/A label (nothing outside an A/A run).
#   plan::declared_protocols SERVER
#     The comma list from its server.properties (h1 when it names none).
#   plan::verified_protocols SERVER
#     The declared protocols whose contract a run checks before measuring: h1 (what the
#     readiness probe and every server speak) and each other one the plan (PLAN, built)
#     measures SERVER over. A protocol no run uses is not waited for (h2c's checks take
#     seconds, h3's need the QUIC client), nor are the tools its checks need.
#   plan::connections_of SCENARIO / plan::streams_of SCENARIO
#     The scenario table's values, or --connections.
#   plan::maven_servers
#     The selected servers built with Maven (with a pom.xml), one per line.
#   plan::pinning_text / plan::server_warmup_text
#     The CPU pinning and the server warm-up, in words.
# Depends on lib/servers.sh, lib/scenarios.sh, lib/openloop.sh and the tool drivers (tools::load).

# Rough per-step costs for the time estimate: a server's start and contract check, the set-up
# and parsing around each measured run, and the steps a capacity search takes.
PLAN_SERVER_OVERHEAD_S=15
PLAN_RUN_OVERHEAD_S=2
PLAN_CAPACITY_STEPS_GUESS=10
PLAN=() ROUND_ORDER=()
declare -gA PLAN_SERVER_VERSION=() PLAN_REQUEST_TIMEOUT=()

plan::declared_protocols() { servers::prop "$1" protocols 2>/dev/null || echo h1; }

plan::verified_protocols() {
  local declared proto out=() entry slot entry_proto measured=' h1 '
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r _ slot _ entry_proto _ <<<"$entry"
    [[ $(plan::slot_server "$slot") == "$1" ]] && measured+="$entry_proto "
  done
  declared=$(plan::declared_protocols "$1")
  IFS=, read -r -a declared <<<"$declared"
  for proto in "${declared[@]}"; do
    [[ $measured == *" $proto "* ]] && out+=("$proto")
  done
  (IFS=,; printf '%s\n' "${out[*]}")
}

# plan::_server_protocols SERVER: the selected protocols the server declares, one per line.
plan::_server_protocols() {
  local declared proto
  declared=$(plan::declared_protocols "$1")
  for proto in "${PROTOCOLS[@]}"; do
    [[ ",$declared," == *",$proto,"* ]] && printf '%s\n' "$proto"
  done
}

plan::slot_server() { printf '%s\n' "${1%@*}"; }
plan::slot_label() { [[ $1 == *@* ]] && printf '%s\n' "${1##*@}"; return 0; }

# plan::_shuffled SEED ITEM...: the items in an order drawn from SEED (Fisher-Yates on a
# 31-bit linear congruential generator: the same seed gives the same order on every machine).
plan::_shuffled() {
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

# plan::_round_orders: fills ROUND_ORDER: the slots shuffled once by SEED, then rotated by one
# place per round. Rotating a shuffled order puts every server in every place equally often
# over as many rounds as servers (a fresh shuffle per round can put one server first every
# time), and interleaves the rounds, so slow drift on the machine (heat, other tenants) does
# not land on one server.
plan::_round_orders() {
  local slots=() base=() run i n order runs=${SETTINGS[runs]}
  if [[ ${SETTINGS[aa]} == 1 ]]; then slots=("${SERVERS[0]}@A" "${SERVERS[0]}@B"); else slots=("${SERVERS[@]}"); fi
  mapfile -t base < <(plan::_shuffled "${SETTINGS[seed]}" "${slots[@]}")
  n=${#base[@]}
  ROUND_ORDER=()
  for ((run = 1; run <= runs; run++)); do
    order=()
    for ((i = 0; i < n; i++)); do order+=("${base[(i + run - 1) % n]}"); done
    ROUND_ORDER+=("${order[*]}")
  done
}

plan::build() {
  PLAN=() PLAN_SERVER_VERSION=() PLAN_REQUEST_TIMEOUT=()
  plan::_round_orders
  local run slot server tool proto scenario load runs=${SETTINGS[runs]}
  for server in "${SERVERS[@]}"; do
    PLAN_SERVER_VERSION[$server]=$(servers::prop "$server" version 2>/dev/null) || PLAN_SERVER_VERSION[$server]=''
  done
  for tool in "${TOOLS[@]}"; do PLAN_REQUEST_TIMEOUT[$tool]=$("$tool::request_timeout_s"); done
  for ((run = 1; run <= runs; run++)); do
    for slot in ${ROUND_ORDER[run - 1]}; do
      server=$(plan::slot_server "$slot")
      for tool in "${TOOLS[@]}"; do
        for proto in $(plan::_server_protocols "$server"); do
          # not `"$tool::protocols" | grep -q`: under pipefail, grep leaving at the first match can
          # fail the pipeline (the writer's SIGPIPE) and drop the entry
          grep -qx "$proto" <<<"$("$tool::protocols")" || continue
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

plan::spec() {
  local -n plan_spec=$1
  local run slot tool proto scenario load rate='' stages='' duration=${SETTINGS[duration_s]}
  IFS=$'\t' read -r run slot tool proto scenario load <<<"$2"
  [[ $load == rate=* ]] && rate=${load#rate=}
  if [[ $load == stages ]]; then
    stages=$(openloop::stages_of "$scenario")
    duration=$(openloop::stages_seconds "$stages")
  fi
  local server
  server=$(plan::slot_server "$slot")
  # shellcheck disable=SC2034 # a nameref: the caller's array
  plan_spec=([run]=$run [slot]=$slot [server]=$server [server_version]=${PLAN_SERVER_VERSION[$server]:-}
    [aa_group]=$(plan::slot_label "$slot")
    [tool]=$tool [request_timeout_s]=${PLAN_REQUEST_TIMEOUT[$tool]:-} [protocol]=$proto [scenario]=$scenario [load]=$load
    [rate]=$rate [stages]=$stages
    [connections]=$(plan::connections_of "$scenario") [streams]=$(plan::streams_of "$scenario")
    [threads]=${SETTINGS[threads]} [duration_s]=$duration [warmup_s]=${SETTINGS[warmup_s]} [warmup_auto]='' [cpus]=${SETTINGS[client_cpus]}
    [dir]='' [out]='' [url]='' [cacert]='' [samples]='' [start_at]='' [barrage_bin]='')
}

plan::estimate_s() {
  local starts shapes searches=0 ramps=0 entry tool scenario load
  local duration=${SETTINGS[duration_s]} warmup=${SETTINGS[warmup_s]} server_warmup=${SETTINGS[server_warmup_s]}
  starts=$(printf '%s\n' "${PLAN[@]}" | cut -f1,2 | sort -u | wc -l)
  shapes=$(printf '%s\n' "${PLAN[@]}" | cut -f1,2,4,5 | sort -u | wc -l)
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r _ _ tool _ scenario load <<<"$entry"
    # a capacity search takes steps; a ramped run lasts its stages, not --duration (the tools
    # that cannot run them skip them)
    if [[ $load == capacity ]] && tools::can "$tool" rate; then searches=$((searches + 1))
    elif [[ $load == stages ]] && tools::can "$tool" stages; then
      ramps=$((ramps + $(openloop::stages_seconds "$(openloop::stages_of "$scenario")") - duration))
    fi
  done
  echo $(((${#PLAN[@]} + searches * (PLAN_CAPACITY_STEPS_GUESS - 1)) * (duration + warmup + PLAN_RUN_OVERHEAD_S)
    + ramps + starts * PLAN_SERVER_OVERHEAD_S + shapes * server_warmup))
}

plan::minutes() { echo $((($1 + 59) / 60)); }

plan::connections_of() { if [[ -n ${SETTINGS[connections]} ]]; then echo "${SETTINGS[connections]}"; else scenarios::field "$1" connections; fi; }
plan::streams_of() { scenarios::field "$1" streams; }

plan::print_list() {
  local server scenario tool
  printf 'Servers (%s):\n' "$SERVERS_DIR"
  printf '  %-16s %-14s %s\n' NAME VERSION PROTOCOLS
  for server in $(servers::list); do
    printf '  %-16s %-14s %s\n' "$server" "$(servers::prop "$server" version 2>/dev/null || echo '?')" \
      "$(plan::declared_protocols "$server")"
  done
  printf '\nScenarios (scenarios/scenarios.tsv; threads default to the load tool'"'"'s CPUs: %s):\n' "${SETTINGS[threads]}"
  printf '  %-18s %-9s %-12s %-8s %s\n' NAME METHOD CONNECTIONS STREAMS ENDPOINT
  for scenario in $(scenarios::list); do
    printf '  %-18s %-9s %-12s %-8s %s\n' "$scenario" "$(scenarios::field "$scenario" method)" \
      "$(plan::connections_of "$scenario")" "$(plan::streams_of "$scenario")" "$(scenarios::field "$scenario" endpoint)"
  done
  printf '\nTools:\n'
  for tool in $(tools::list); do
    printf '  %-10s %-20s %s\n' "$tool" "$("$tool::version" 2>/dev/null || echo 'not installed')" "$("$tool::protocols" | paste -sd,)"
  done
}

plan::print_plan() {
  local entry run server tool proto scenario load reason runs=${SETTINGS[runs]}
  printf '%-4s %-16s %-10s %-5s %-18s %-13s %s\n' RUN SERVER TOOL PROTO SCENARIO LOAD NOTE
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r run server tool proto scenario load <<<"$entry"
    reason=$(scenarios::tool_supports "$tool" "$scenario" "$proto" && "$tool::supports" "$scenario" "$proto") && reason='' || reason="skipped: $reason"
    [[ -z $load || -n $reason ]] || { reason=$(openloop::supports "$tool" "$load") && reason='' || reason="skipped: $reason"; }
    [[ $load != stages || -n $reason ]] || reason="ramped: $(openloop::stages_of "$scenario")"
    printf '%-4s %-16s %-10s %-5s %-18s %-13s %s\n' "$run" "$server" "$tool" "$proto" "$scenario" "${load:-closed loop}" "$reason"
  done
  printf '%d planned runs, %s s each + %s s warm-up; CPU pinning: %s; about %d min\n' "${#PLAN[@]}" \
    "${SETTINGS[duration_s]}" "${SETTINGS[warmup_s]}" "$(plan::pinning_text)" "$(plan::minutes "$(plan::estimate_s)")"
  printf 'server warm-up: %s\n' "$(plan::server_warmup_text)"
  for ((run = 1; run <= runs; run++)); do
    printf 'round %d order (seed %s): %s\n' "$run" "${SETTINGS[seed]}" "${ROUND_ORDER[run - 1]}"
  done
}

plan::server_warmup_text() {
  if [[ ${SETTINGS[server_warmup_s]} == 0 ]]; then printf 'none'
  elif [[ ${SETTINGS[server_warmup_mode]} == auto ]]; then
    printf 'barrage per protocol and scenario on each freshly started server until steady state, at most %s s' "${SETTINGS[server_warmup_s]}"
  else printf '%s s of barrage per protocol and scenario on each freshly started server' "${SETTINGS[server_warmup_s]}"; fi
}

plan::pinning_text() {
  if [[ -n ${SETTINGS[server_cpus]} ]]; then printf 'server on CPUs %s, load tool on CPUs %s' "${SETTINGS[server_cpus]}" "${SETTINGS[client_cpus]}"
  else printf 'none'; fi
}

plan::maven_servers() {
  local server
  for server in "${SERVERS[@]}"; do
    [[ -f $SERVERS_DIR/$server/pom.xml ]] && printf '%s\n' "$server"
  done
  return 0
}
