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
# measures: the server's name, in an A/A run NAME@A and NAME@B, in a variant run (--variants or
# a matrix option: lib/variants.sh) a contestant's label, NAME:VARIANT[+jdkN...].
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
#     Seconds the whole PLAN should take: each server start (PLAN_SERVER_OVERHEAD_S), its
#     warm-up shapes (at most --server-warmup's cap each), and each run that is not skipped
#     (--duration + --warmup + PLAN_RUN_OVERHEAD_S; a capacity search's guessed steps, a ramp's
#     stages). A row a tool cannot run is skipped and costs nothing; Maven builds are not in it.
#   plan::costed
#     PLAN's entries, each with two more columns for the estimate: COST (1: measured, 0:
#     skipped) and EXTRA ("" or capacity:STEPS or stages:SECONDS), one a line; then a line
#     "RUN<TAB>SLOT<TAB>TOOL<TAB>PROTOCOL<TAB>SCENARIO<TAB>bracket<TAB>1<TAB>bracket" for each window of
#     the reference tool that brackets TOOL's row (plan::turn_order; --duration without --warmup).
#   plan::estimate_of DURATION WARMUP SERVER_WARMUP SCENARIOS PROTOCOLS TOOLS [SETUP_S SHAPE_S ENTRY_S]
#     The estimate of plan::costed's lines on stdin with those settings, counting only the
#     entries of the space-separated SCENARIOS, PROTOCOLS and TOOLS ("" for all); SETUP_S, SHAPE_S,
#     ENTRY_S replace the per-start, per-shape and per-run guesses by what was observed
#     (lib/rounds.sh: a contestant's last turn).
#   plan::contestants
#     What a round is made of, one a line: the contestants a round starts afresh, each a slot
#     (a server; in an A/A run NAME@A and NAME@B; in a variant run SERVER:VARIANT labels,
#     PLAN_CONTESTANTS). lib/rounds.jq's contestant names a results row's contestant the same
#     way (noise::row_name): the two are the one place a new kind of contestant plugs in.
#   plan::add_round RUN
#     A round of a budgeted run (lib/rounds.sh), from lines "CONTESTANT<TAB>TOOL<TAB>PROTOCOL<TAB>
#     SCENARIO<TAB>REASON" on stdin: each contestant's closed-loop entries of the first round
#     for those tables again, as round RUN, in an order drawn from the seed and RUN; each
#     contestant's REASON (why it runs again) kept in PLAN_ROUND_REASON[RUN/CONTESTANT]. RUN's
#     order is left unset when no contestant has anything to measure again.
#   plan::drop_turn RUN SLOT
#     Takes a turn that will not run (the budget) out of PLAN and of RUN's order (a round left
#     with no turn is no round).
#   plan::turn_order RUN SLOT
#     The order in which SLOT's turn in RUN measures its entries, one a line "KIND<TAB>ENTRY":
#     row (measured as planned), lead (the reference tool's row of a protocol and scenario that
#     other tools measure on this start too), checked (another tool's row of it), bracket (one
#     more window of the reference tool after each checked row: no row of its own, kept in the
#     results' cross_checks). Every other tool's window lies between two of the reference
#     tool's on the same JVM (barrage, h2load, barrage, wrk, barrage...), so that a difference
#     between them is the tools' and not the JIT's from one start to the next.
#   plan::reference_tool
#     The tool the others are compared with: the main tool of a default budgeted plan, else
#     barrage.
#   plan::minutes SECONDS
#     Rounded up, at least 1.
#   plan::print_list / plan::print_plan
#     What --list and --dry-run print.
#   plan::budget_text
#     A budgeted run's plan in words (--dry-run and the run's first lines).
#   plan::slot_server SLOT / plan::slot_label SLOT / plan::slot_variant SLOT
#     A slot's server / its A/A label (nothing outside an A/A run) / the variant part of its
#     contestant label (vt+jdk25; nothing outside a variant run).
#   plan::variant_run
#     0 when the run measures variants (--variants, --jdk, --gc, --heap or --server-cpus given).
#   plan::jdk_short SLOT PROTOCOL
#     Why SLOT (a contestant on an older --jdk than its server's PROTOCOL_min_jdk) cannot be
#     measured over PROTOCOL; returns 1 when it can.
#   plan::contestant SLOT
#     The contestant of a variant run's slot (lib/variants.sh: variants::contestants' JSON);
#     nothing for another slot. PLAN_CONTESTANTS (filled by plan::build) lists them in order.
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
# Depends on lib/servers.sh, lib/scenarios.sh, lib/openloop.sh, lib/variants.sh and the tool drivers
# (tools::load).

# Rough per-step costs for the time estimate: a server's start and contract check, the set-up
# and parsing around each measured run, and the steps a capacity search takes.
PLAN_SERVER_OVERHEAD_S=15
PLAN_RUN_OVERHEAD_S=2
PLAN_CAPACITY_STEPS_GUESS=10
# A budgeted run's default budget, and the scenario the other tools cross-check in its default plan.
# shellcheck disable=SC2034 # read by run-benchmarks.sh
PLAN_DEFAULT_BUDGET_S=3600 PLAN_CROSS_CHECK=hello
PLAN=() ROUND_ORDER=() PLAN_CONTESTANTS=()
declare -gA PLAN_SERVER_VERSION=() PLAN_REQUEST_TIMEOUT=() PLAN_ROUND_REASON=() PLAN_CONTESTANT=()

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

plan::slot_server() { local server=${1%@*}; printf '%s\n' "${server%%:*}"; }
plan::slot_label() { [[ $1 == *@* ]] && printf '%s\n' "${1##*@}"; return 0; }
plan::slot_variant() { [[ $1 == *:* ]] && printf '%s\n' "${1#*:}"; return 0; }

plan::variant_run() {
  [[ -n ${SETTINGS[variants]}${SETTINGS[jdks]}${SETTINGS[gcs]}${SETTINGS[heaps]}${SETTINGS[server_cpu_counts]} ]]
}

# plan::jdk_short SLOT PROTOCOL: the reason, on stdout, when SLOT is a contestant whose JDK (--jdk)
# is older than the server declares PROTOCOL needs (server.properties: PROTOCOL_min_jdk=N); else
# returns 1. Such entries are skipped with the reason, and the protocol is left out of the
# contestant's contract check and warm-up.
plan::jdk_short() {
  local contestant jdk server min
  contestant=$(plan::contestant "$1")
  [[ -n $contestant ]] || return 1
  jdk=$(jq -r '.jdk // ""' <<<"$contestant")
  server=$(plan::slot_server "$1")
  [[ -n $jdk ]] && min=$(servers::prop "$server" "${2}_min_jdk" 2>/dev/null) && ((jdk < min)) || return 1
  printf '%s\n' "$server's $2 needs JDK $min or newer (server.properties: ${2}_min_jdk); this contestant runs JDK $jdk"
}

plan::contestant() { [[ -n ${PLAN_CONTESTANT[$1]:-} ]] && printf '%s\n' "${PLAN_CONTESTANT[$1]}"; return 0; }

# plan::_contestants: fills PLAN_CONTESTANTS (labels, in order) and PLAN_CONTESTANT (label ->
# JSON) from the settings: the variants picked (each selected server's default when only the
# matrix is given) crossed with the matrix.
plan::_contestants() {
  local picked json label
  PLAN_CONTESTANTS=() PLAN_CONTESTANT=()
  plan::variant_run || return 0
  picked=$(variants::select "${SETTINGS[variants]:-*}" "${SERVERS[@]}") || { log::error "--variants: $picked"; return 1; }
  while IFS= read -r json; do
    label=$(jq -r .label <<<"$json")
    PLAN_CONTESTANTS+=("$label") PLAN_CONTESTANT[$label]=$json
  done < <(variants::contestants "$picked" "${SETTINGS[jdks]}" "${SETTINGS[gcs]}" "${SETTINGS[heaps]}" "${SETTINGS[server_cpu_counts]}")
}

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
  mapfile -t slots < <(plan::contestants)
  mapfile -t base < <(plan::_shuffled "${SETTINGS[seed]}" "${slots[@]}")
  n=${#base[@]}
  ROUND_ORDER=()
  for ((run = 1; run <= runs; run++)); do
    order=()
    for ((i = 0; i < n; i++)); do order+=("${base[(i + run - 1) % n]}"); done
    ROUND_ORDER+=("${order[*]}")
  done
}

plan::contestants() {
  if [[ ${SETTINGS[aa]} == 1 ]]; then printf '%s\n' "${SERVERS[0]}@A" "${SERVERS[0]}@B"
  elif plan::variant_run; then printf '%s\n' "${PLAN_CONTESTANTS[@]}"
  else printf '%s\n' "${SERVERS[@]}"; fi
}

# plan::_measures TOOL SCENARIO: 0 when the plan has TOOL measure SCENARIO: always, but in a
# default budgeted plan, where the tools other than the main one measure the cross-check
# scenarios only (SETTINGS' main_tool, cross_check).
plan::_measures() {
  [[ -z ${SETTINGS[cross_check]} || $1 == "${SETTINGS[main_tool]}" || " ${SETTINGS[cross_check]} " == *" $2 "* ]]
}

plan::build() {
  PLAN=() PLAN_SERVER_VERSION=() PLAN_REQUEST_TIMEOUT=()
  plan::_contestants
  plan::_round_orders
  local run slot server tool proto scenario load runs=${SETTINGS[runs]}
  for server in "${SERVERS[@]}"; do
    PLAN_SERVER_VERSION[$server]=$(servers::prop "$server" version 2>/dev/null) || PLAN_SERVER_VERSION[$server]=''
  done
  local -A speaks=() loads_of=()
  # asked once per scenario, not per entry (it reads the scenarios table: ~0.1 s a call, a
  # thousand entries in the default plan); the same words whatever the server, tool or protocol
  for scenario in "${SCENARIOS[@]}"; do loads_of[$scenario]=$(openloop::loads "$scenario") || true; done
  # the server warm-up's tool, asked once for every estimate (plan::estimate_of)
  PLAN_WARMUP_TOOL=$(steady::tool 2>/dev/null) || PLAN_WARMUP_TOOL=''
  for tool in "${TOOLS[@]}"; do
    PLAN_REQUEST_TIMEOUT[$tool]=$("$tool::request_timeout_s")
    speaks[$tool]=" $("$tool::protocols" | paste -sd' ') "
  done
  for ((run = 1; run <= runs; run++)); do
    for slot in ${ROUND_ORDER[run - 1]}; do
      server=$(plan::slot_server "$slot")
      for tool in "${TOOLS[@]}"; do
        for proto in $(plan::_server_protocols "$server"); do
          # asked once per tool (not `"$tool::protocols" | grep -q` per entry: under pipefail, grep
          # leaving at the first match can fail the pipeline, the writer's SIGPIPE, and drop it)
          [[ ${speaks[$tool]} == *" $proto "* ]] || continue
          for scenario in "${SCENARIOS[@]}"; do
            plan::_measures "$tool" "$scenario" || continue
            for load in '' ${loads_of[$scenario]}; do
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
    [aa_group]=$(plan::slot_label "$slot") [variant]=$(plan::slot_variant "$slot")
    [round_reason]=${PLAN_ROUND_REASON[$run/$slot]:-}
    [tool]=$tool [request_timeout_s]=${PLAN_REQUEST_TIMEOUT[$tool]:-} [protocol]=$proto [scenario]=$scenario [load]=$load
    [rate]=$rate [stages]=$stages
    [connections]=$(plan::connections_of "$scenario") [streams]=$(plan::streams_of "$scenario")
    [threads]=${SETTINGS[threads]} [duration_s]=$duration [warmup_s]=${SETTINGS[warmup_s]} [warmup_auto]='' [cpus]=${SETTINGS[client_cpus]}
    [dir]='' [out]='' [url]='' [cacert]='' [samples]='' [start_at]='' [barrage_bin]='')
}

plan::costed() {
  local entry run slot tool proto scenario load cost extra reference checked=()
  local -A supported=() leads=()
  reference=$(plan::reference_tool)
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r run slot tool proto scenario load <<<"$entry"
    extra=''
    # asked once per kind of entry
    if [[ -z ${supported[$tool/$proto/$scenario/$load]:-} ]]; then
      cost=1
      "$tool::supports" "$scenario" "$proto" >/dev/null || cost=0
      [[ -z $load ]] || openloop::supports "$tool" "$load" >/dev/null || cost=0
      supported[$tool/$proto/$scenario/$load]=$cost
    fi
    cost=${supported[$tool/$proto/$scenario/$load]}
    if ((cost)) && [[ $load == capacity ]]; then extra=capacity:$PLAN_CAPACITY_STEPS_GUESS
    elif ((cost)) && [[ $load == stages ]]; then extra=stages:$(openloop::stages_seconds "$(openloop::stages_of "$scenario")")
    fi
    if ((cost)) && [[ -z $load ]]; then
      if [[ $tool == "$reference" ]]; then leads[$run/$slot/$proto/$scenario]=1
      else checked+=("$run"$'\t'"$slot"$'\t'"$tool"$'\t'"$proto"$'\t'"$scenario"); fi
    fi
    printf '%s\t%s\t%s\n' "$entry" "$cost" "$extra"
  done
  # the reference tool's window after each cross-checked row (plan::turn_order), counted with
  # the tool it brackets (left out with it when the estimate leaves that tool out)
  for entry in "${checked[@]}"; do
    IFS=$'\t' read -r run slot tool proto scenario <<<"$entry"
    [[ -z ${leads[$run/$slot/$proto/$scenario]:-} ]] || printf '%s\tbracket\t1\tbracket\n' "$entry"
  done
}

plan::reference_tool() { printf '%s\n' "${SETTINGS[main_tool]:-barrage}"; }

# plan::_checkable ENTRY: 0 when ENTRY is a closed-loop entry its tool can measure on its slot.
plan::_checkable() {
  local slot tool proto scenario load
  IFS=$'\t' read -r _ slot tool proto scenario load <<<"$1"
  [[ -z $load ]] && ! plan::jdk_short "$slot" "$proto" >/dev/null && scenarios::tool_supports "$tool" "$scenario" "$proto" >/dev/null \
    && "$tool::supports" "$scenario" "$proto" >/dev/null
}

plan::turn_order() {
  local run=$1 slot=$2 entry tool proto scenario load reference mine=()
  local -A lead_of=() checked_of=() placed=()
  reference=$(plan::reference_tool)
  for entry in "${PLAN[@]}"; do [[ $entry == "$run"$'\t'"$slot"$'\t'* ]] && mine+=("$entry"); done
  for entry in "${mine[@]}"; do
    IFS=$'\t' read -r _ _ tool proto scenario load <<<"$entry"
    plan::_checkable "$entry" || continue
    if [[ $tool == "$reference" ]]; then lead_of[$proto/$scenario]=$entry
    else checked_of[$proto/$scenario]+=$entry$'\n'; fi
  done
  for entry in "${mine[@]}"; do
    [[ -z ${placed[$entry]:-} ]] || continue
    IFS=$'\t' read -r _ _ tool proto scenario load <<<"$entry"
    if [[ -n ${lead_of[$proto/$scenario]:-} && -n ${checked_of[$proto/$scenario]:-} ]] && plan::_checkable "$entry"; then
      # the whole alternation at the place of the first of its entries
      local first=${lead_of[$proto/$scenario]} other
      printf 'lead\t%s\n' "$first"
      placed[$first]=1
      while IFS= read -r other; do
        [[ -n $other ]] || continue
        printf 'checked\t%s\nbracket\t%s\n' "$other" "$first"
        placed[$other]=1
      done <<<"${checked_of[$proto/$scenario]}"
      continue
    fi
    printf 'row\t%s\n' "$entry"
  done
}

plan::estimate_of() {
  # no warm-up tool, no server warm-up
  local server_warmup=$3
  # PLAN_WARMUP_TOOL: plan::build's answer (unset before a build: asked here)
  if ((server_warmup > 0)); then
    if [[ -n ${PLAN_WARMUP_TOOL+set} ]]; then [[ -n $PLAN_WARMUP_TOOL ]] || server_warmup=0
    elif ! steady::tool >/dev/null 2>&1; then server_warmup=0; fi
  fi
  awk -F'\t' -v d="$1" -v w="$2" -v sw="$server_warmup" -v scen=" $4 " -v protos=" $5 " -v tools=" $6 " \
    -v setup="${7:-$PLAN_SERVER_OVERHEAD_S}" -v shape="${8:-}" -v per="${9:-}" -v over="$PLAN_RUN_OVERHEAD_S" '
    (scen == "  " || index(scen, " " $5 " ")) && (protos == "  " || index(protos, " " $4 " ")) \
      && (tools == "  " || index(tools, " " $3 " ")) {
      start = $1 SUBSEP $2
      if (!(start in starts)) { starts[start] = 1; total += setup }
      # the warm-up shapes: every protocol and scenario a start measures (at most the cap each)
      if (sw > 0 && !((start, $4, $5) in shapes)) { shapes[start, $4, $5] = 1; total += (shape == "" ? sw : shape) }
      if ($7 == 0) next
      run = (per == "" ? d + w + over : per)
      if ($8 == "bracket") total += (per == "" ? d + over : per)
      else if ($8 ~ /^capacity:/) { split($8, c, ":"); total += c[2] * run }
      else if ($8 ~ /^stages:/) { split($8, c, ":"); total += run + c[2] - d }
      else total += run
    }
    END { printf "%d\n", total + 0.5 }'
}

plan::estimate_s() {
  plan::costed | plan::estimate_of "${SETTINGS[duration_s]}" "${SETTINGS[warmup_s]}" "${SETTINGS[server_warmup_s]}" '' '' ''
}

# A budgeted plan's fit: the timings tried, longest first (--duration --warmup --server-warmup
# cap, seconds), the scenarios in the order they are kept, the share of the budget the first
# PLAN_FIT_ROUNDS rounds may take (the rest goes to the rounds where the ranking is open).
PLAN_FIT_TIMINGS=('10 3 15' '8 3 10' '5 2 10')
PLAN_FIT_SCENARIOS='hello post-load mixed large-file high-concurrency baseline'
# the protocols left out, one more at a time, when the plan does not fit (h1 is kept)
PLAN_FIT_DROP='h3 h1s h2 h2c'
PLAN_FIT_ROUNDS=3
PLAN_FIT_SHARE=0.6

# plan::_first_rounds_s D W SW SCENARIOS PROTOCOLS: plan::costed's lines on stdin -> the
# seconds PLAN_FIT_ROUNDS rounds of them take: the first round whole (but the cross-check's
# bracket windows), the others without the cross-check rows (the other tools measure them in
# the first round only).
plan::_first_rounds_s() {
  local lines first rest=0 main=''
  # the cross-check's extra windows of the reference tool (plan::turn_order) are left out of the
  # fit: a fixed cost of the first round, they would otherwise cost the default its h2 tables
  # (the estimate printed, plan::estimate_s, counts them)
  lines=$(grep -v $'\tbracket$' || true)
  first=$(plan::estimate_of "$1" "$2" "$3" "$4" "$5" '' <<<"$lines")
  [[ -z ${SETTINGS[cross_check]} ]] || main=${SETTINGS[main_tool]}
  rest=$(plan::estimate_of "$1" "$2" "$3" "$4" "$5" "$main" <<<"$lines")
  echo $((first + (PLAN_FIT_ROUNDS - 1) * rest))
}

# plan::fit BUDGET_S FIXED_TIMING FIXED_SCENARIOS FIXED_PROTOCOLS: PLAN (built with every
# candidate) fitted to BUDGET_S: the longest timing of PLAN_FIT_TIMINGS, the most scenarios
# (PLAN_FIT_SCENARIOS' order) and protocols (PLAN_FIT_DROP's order) whose first
# PLAN_FIT_ROUNDS rounds take at most PLAN_FIT_SHARE of the budget; what is FIXED (1: given
# on the command line) is kept as it is. Prints "DURATION WARMUP SERVER_WARMUP<TAB>SCENARIOS<TAB>
# PROTOCOLS<TAB>SECONDS" (space-separated names; SECONDS: those rounds' estimate); the
# smallest plan when none fits.
plan::fit() {
  local budget=$1 lines timing timings=() scenario ordered=() sets=() protos proto proto_sets=() i seconds limit
  lines=$(plan::costed)
  limit=$(awk -v b="$budget" -v s="$PLAN_FIT_SHARE" 'BEGIN {printf "%d", b * s}')
  if (($2)); then timings=("${SETTINGS[duration_s]} ${SETTINGS[warmup_s]} ${SETTINGS[server_warmup_s]}")
  else timings=("${PLAN_FIT_TIMINGS[@]}"); fi
  if (($3)); then sets=("${SCENARIOS[*]}")
  else
    for scenario in $PLAN_FIT_SCENARIOS; do [[ " ${SCENARIOS[*]} " == *" $scenario "* ]] && ordered+=("$scenario"); done
    for scenario in "${SCENARIOS[@]}"; do [[ " ${ordered[*]} " == *" $scenario "* ]] || ordered+=("$scenario"); done
    for ((i = ${#ordered[@]}; i >= 1; i--)); do sets+=("${ordered[*]:0:i}"); done
  fi
  proto_sets=("${PROTOCOLS[*]}")
  if ! (($4)); then
    protos=" ${PROTOCOLS[*]} "
    for proto in $PLAN_FIT_DROP; do
      [[ $protos == *" $proto "* ]] || continue
      protos=${protos/ $proto / }
      [[ -n ${protos// /} ]] && proto_sets+=("$(xargs <<<"$protos")")
    done
  fi
  for protos in "${proto_sets[@]}"; do
    for scenario in "${sets[@]}"; do
      for timing in "${timings[@]}"; do
        # shellcheck disable=SC2086 # the timing's three numbers
        seconds=$(plan::_first_rounds_s $timing "$scenario" "$protos" <<<"$lines")
        if ((seconds <= limit)); then printf '%s\t%s\t%s\t%s\n' "$timing" "$scenario" "$protos" "$seconds"; return 0; fi
      done
    done
  done
  printf '%s\t%s\t%s\t%s\n' "$timing" "$scenario" "$protos" "$seconds"
}

plan::add_round() {
  local run=$1 slot tool proto scenario reason entry r s t p sc load slots=() seen=' '
  declare -A wanted=()
  while IFS=$'\t' read -r slot tool proto scenario reason; do
    [[ -n $slot ]] || continue
    wanted[$slot/$tool/$proto/$scenario]=1
    [[ $seen == *" $slot "* ]] || { slots+=("$slot"); seen+="$slot "; }
    PLAN_ROUND_REASON[$run/$slot]=$reason
  done
  ((${#slots[@]})) || return 0
  mapfile -t slots < <(plan::_shuffled "$((SETTINGS[seed] + run))" "${slots[@]}")
  local order=() added
  for slot in "${slots[@]}"; do
    added=0
    for entry in "${PLAN[@]}"; do
      IFS=$'\t' read -r r s t p sc load <<<"$entry"
      [[ $r == 1 && $s == "$slot" && -z $load && -n ${wanted[$slot/$t/$p/$sc]:-} ]] || continue
      PLAN+=("$run"$'\t'"$slot"$'\t'"$t"$'\t'"$p"$'\t'"$sc"$'\t')
      added=1
    done
    # a contestant with nothing to measure again gets no turn
    ((added == 0)) || order+=("$slot")
  done
  ((${#order[@]} == 0)) || ROUND_ORDER[run - 1]="${order[*]}"
}

plan::drop_turn() {
  local entry kept=() slot order=()
  for entry in "${PLAN[@]}"; do [[ $entry == "$1"$'\t'"$2"$'\t'* ]] || kept+=("$entry"); done
  PLAN=("${kept[@]}")
  for slot in ${ROUND_ORDER[$1 - 1]}; do [[ $slot == "$2" ]] || order+=("$slot"); done
  if ((${#order[@]})); then ROUND_ORDER[$1 - 1]="${order[*]}"; else unset 'ROUND_ORDER[$1 - 1]'; fi
}

plan::minutes() { echo $((($1 + 59) / 60)); }

plan::connections_of() { if [[ -n ${SETTINGS[connections]} ]]; then echo "${SETTINGS[connections]}"; else scenarios::field "$1" connections; fi; }
plan::streams_of() { scenarios::field "$1" streams; }

plan::print_list() {
  local server scenario tool variant
  printf 'Servers (%s):\n' "$SERVERS_DIR"
  printf '  %-16s %-14s %s\n' NAME VERSION PROTOCOLS
  for server in $(servers::list); do
    printf '  %-16s %-14s %s\n' "$server" "$(servers::prop "$server" version 2>/dev/null || echo '?')" \
      "$(plan::declared_protocols "$server")"
  done
  printf '\nVariants (servers/NAME/variants.tsv; the first is the default; pick with --variants SERVER:VARIANT):\n'
  for server in $(servers::list); do
    while IFS= read -r variant; do
      printf '  %-28s %s\n' "$server:$variant" "$(variants::field "$server" "$variant" description)"
    done < <(variants::names "$server")
  done
  printf '\nScenarios (scenarios/scenarios.tsv; threads default to the load tool'"'"'s CPUs: %s):\n' "${SETTINGS[threads]}"
  printf '  %-18s %-9s %-12s %-8s %-28s %s\n' NAME METHOD CONNECTIONS STREAMS ENDPOINT GROUP
  for scenario in $(scenarios::list); do
    printf '  %-18s %-9s %-12s %-8s %-28s %s\n' "$scenario" "$(scenarios::field "$scenario" method)" \
      "$(plan::connections_of "$scenario")" "$(plan::streams_of "$scenario")" "$(scenarios::field "$scenario" endpoint)" \
      "$(scenarios::field "$scenario" group | sed 's/^-$//')"
  done
  printf '  (--scenarios all: those in no group; a GROUP by its name, e.g. all,size-sweep)\n'
  printf '\nTools:\n'
  for tool in $(tools::list); do
    printf '  %-10s %-20s %s\n' "$tool" "$("$tool::version" 2>/dev/null || echo 'not installed')" "$("$tool::protocols" | paste -sd,)"
  done
}

plan::print_plan() {
  local entry run server tool proto scenario load reason runs=${SETTINGS[runs]} width=16 slot
  # the totals first (what it costs), then the table of runs
  printf '%d planned runs, %s s each + %s s warm-up; CPU pinning: %s; about %d min\n' "${#PLAN[@]}" \
    "${SETTINGS[duration_s]}" "${SETTINGS[warmup_s]}" "$(plan::pinning_text)" "$(plan::minutes "$(plan::estimate_s)")"
  printf 'server warm-up: %s\n' "$(plan::server_warmup_text)"
  local label
  for label in "${PLAN_CONTESTANTS[@]}"; do
    printf 'contestant %s: %s\n' "$label" "$(jq -r '[(.jvm_options | join(" ")), (.env | to_entries | map("\(.key)=\(.value)") | join(" ")),
      (.properties | to_entries | map("-D\(.key)=\(.value)") | join(" ")), (.jdk // empty | "JDK \(.)"), (.gc // empty | "GC \(.)"),
      (.heap // empty | "heap \(.)"), (.server_cpus // empty | "\(.) core(s)")] | map(select(. != "")) | if length == 0 then "as the server is" else join(", ") end' <<<"${PLAN_CONTESTANT[$label]}")"
  done
  for ((run = 1; run <= runs; run++)); do
    printf 'round %d order (seed %s): %s\n' "$run" "${SETTINGS[seed]}" "${ROUND_ORDER[run - 1]}"
  done
  [[ -z ${SETTINGS[budget_s]} ]] || printf '%s\n' "$(plan::budget_text)"
  printf '\n'
  # as wide as the longest slot (a variant's label)
  for slot in ${ROUND_ORDER[0]:-}; do ((${#slot} <= width)) || width=${#slot}; done
  printf '%-4s %-*s %-10s %-5s %-18s %-13s %s\n' RUN "$width" SERVER TOOL PROTO SCENARIO LOAD NOTE
  local -A notes=()
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r run server tool proto scenario load <<<"$entry"
    # asked once per kind of entry
    if [[ ! -v notes[$tool/$proto/$scenario/$load] ]]; then
      reason=$(scenarios::tool_supports "$tool" "$scenario" "$proto" && "$tool::supports" "$scenario" "$proto") && reason='' || reason="skipped: $reason"
      [[ -z $load || -n $reason ]] || { reason=$(openloop::supports "$tool" "$load") && reason='' || reason="skipped: $reason"; }
      [[ $load != stages || -n $reason ]] || reason="ramped: $(openloop::stages_of "$scenario")"
      notes[$tool/$proto/$scenario/$load]=$reason
    fi
    reason=${notes[$tool/$proto/$scenario/$load]}
    printf '%-4s %-*s %-10s %-5s %-18s %-13s %s\n' "$run" "$width" "$server" "$tool" "$proto" "$scenario" "${load:-closed loop}" "$reason"
  done
}

# plan::budget_text: a budgeted run's plan in words: the budget, the first round, what the rest
# of the time goes to, what the fit left out and the option that brings it back.
plan::budget_text() {
  local budget=${SETTINGS[budget_s]} first
  first=$(plan::estimate_s)
  printf 'budget: %s min%s (--budget none: a fixed plan); the planned runs are the first round, about %s min with server starts and warm-ups; then, until the budget ends, more rounds (fresh starts, random order) for the servers whose interval overlaps a neighbour'"'"'s in some table, until each adjacent pair is decided or equal within %s%% (--tie-margin): about %s min in all at most' \
    "$(plan::minutes "$budget")" "$([[ ${SETTINGS[budget]} == default ]] && printf ' (the default)')" "$(plan::minutes "$first")" \
    "$(awk -v m="${SETTINGS[tie_margin]}" 'BEGIN {print m * 100}')" "$(plan::minutes "$budget")"
  [[ -z ${SETTINGS[cross_check]} ]] || printf '; the tools other than %s cross-check %s in the first round, taking turns with %s on each server'"'"'s JVM (%s, another tool, %s again...)' \
    "${SETTINGS[main_tool]}" "${SETTINGS[cross_check]}" "${SETTINGS[main_tool]}" "${SETTINGS[main_tool]}" "${SETTINGS[main_tool]}"
  if [[ ${SETTINGS[warmup_sized]} == 1 ]]; then
    printf '\nwarm-ups sized from measurement: the first round measures each server'"'"'s time to steady state (cap %s s); in later rounds its cap is 1.5 x that time, or twice the cap it did not reach steady state within, at least %s s and at most %s s or what the time left allows; a server that needs more says so and its rows may keep ⧗ (docs/steady-state.md)' \
      "${SETTINGS[server_warmup_s]}" "${SETTINGS[server_warmup_s]}" "$STEADY_CAP_S"
  fi
  [[ -z ${SETTINGS[left_out]} ]] || printf '\nleft out to fit the budget: %s' "${SETTINGS[left_out]}"
  printf '\n'
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
