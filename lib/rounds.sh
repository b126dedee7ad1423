#!/usr/bin/env bash
# rounds: the rounds of a budgeted run (run-benchmarks.sh --budget): the first round measures
# every row; then, round after round, the contestants that are in an open pair of some table
# (lib/rounds.jq: neither decided nor equal within --tie-margin) run again, each with a fresh
# start, in an order drawn from the seed, the entries of those tables only, until every pair
# is decided or equal, or the budget ends. In a round after the first, each contestant's server
# warm-up cap is sized from its time to steady state so far (rounds::_size_warmup,
# docs/steady-state.md "Warm-ups sized from measurement"). Before each turn (one contestant's
# start and its runs in a round) the time left is checked against that turn's estimate: a turn
# that would not fit is not started, so the budget is exceeded by at most what one turn takes
# beyond its estimate.
#
#   rounds::run SERVE_FN
#     The whole budgeted run: SERVE_FN SLOT RUN measures one turn (run-benchmarks.sh's
#     serve_slot). Sets ROUNDS_ENDED (decided: no pair open; budget: the budget ended with pairs
#     open; none: nothing to rank) and records the rounds in the results file (results'
#     rounds: lib/rounds.jq's summary, and every turn with its estimate and what it took).
#   rounds::deadline_left_s
#     Seconds left in the budget (negative past it); nothing outside a budgeted run.
#   rounds::counts_text FILE
#     "N pairs: D decided, E equal, O open" over every ranked table of a results file.
#   rounds::fixed_json
#     The results' rounds of a fixed plan (--runs, --budget none): its tables' pairs too, so
#     that every results file says how far its ranking got.
# Reads SETTINGS' budget_s, tie_margin, seed, cross_check, main_tool, runs, warmup_sized,
# server_warmup_s; PLAN, ROUND_ORDER
# (lib/plan.sh), RESULTS_FILE (lib/results.sh), MEASURE_LAST_* (lib/measure.sh: what the last
# turn took). Its own state: ROUNDS_* below.
# Depends on lib/plan.sh, lib/measure.sh, lib/results.sh, lib/log.sh, jq with lib/rounds.jq.

ROUNDS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Runs a contestant needs before its interval counts (the README's intervals start at 3).
ROUNDS_MIN_RUNS=3
ROUNDS_DEADLINE='' ROUNDS_STARTED='' ROUNDS_ENDED='' ROUNDS_LAST_END='' ROUNDS_GAP_S=0
# the plan's estimate when the run began (the first round of a budgeted run, a fixed plan whole;
# set by run-benchmarks.sh) and what that part took
ROUNDS_ESTIMATE_S='' ROUNDS_FIRST_S=''
ROUNDS_TURNS=()
# the turn being decided: its estimate, and its warm-up's sizing (rounds::_size_warmup; null: the
# fitted cap); STEADY_TURN_CAP_S (lib/steady.sh) is the cap the turn's warm-ups get
ROUNDS_TURN_ESTIMATE=0 ROUNDS_SIZING=null
# what each contestant's last turn took, per part (seconds): the next turn's estimate
declare -gA ROUNDS_SETUP_S=() ROUNDS_SHAPE_S=() ROUNDS_ENTRY_S=()
# and what the last turn of any contestant took: the guess for a contestant not seen yet
ROUNDS_LAST_SETUP_S='' ROUNDS_LAST_SHAPE_S='' ROUNDS_LAST_ENTRY_S=''

rounds::_now() { printf '%s\n' "${EPOCHREALTIME%[.,]*}"; }

rounds::deadline_left_s() {
  [[ -n $ROUNDS_DEADLINE ]] || return 0
  echo $((ROUNDS_DEADLINE - $(rounds::_now)))
}

# rounds::_cross: the tools measured in the first round only, as a JSON array.
rounds::_cross() {
  local tool
  [[ -n ${SETTINGS[cross_check]} ]] || { echo '[]'; return 0; }
  for tool in "${TOOLS[@]}"; do [[ $tool == "${SETTINGS[main_tool]}" ]] || printf '%s\n' "$tool"; done | jq -Rsc 'split("\n") | map(select(. != ""))'
}

# rounds::_jq FILTER FILE: lib/rounds.jq's FILTER on FILE with the run's margin and minimum.
rounds::_jq() {
  jq -r -L "$ROUNDS_LIB_DIR" --argjson margin "${SETTINGS[tie_margin]}" --argjson min "$ROUNDS_MIN_RUNS" \
    --argjson cross "$(rounds::_cross)" --arg ended "${ROUNDS_ENDED:-}" "import \"rounds\" as rounds; $1" "$2"
}

# rounds::_estimate SLOT RUN [SHAPE_S]: the seconds SLOT's turn in RUN should take: from what its
# last turn took when it had one (its start, a warm-up shape, a run), else what the last turn of
# any contestant took, else the plan's guesses; SHAPE_S, when given, is a warm-up shape's.
rounds::_estimate() {
  local slot=$1 run=$2 shape_s=${3:-}
  local -a mine=()
  local entry
  for entry in "${PLAN[@]}"; do [[ $entry == "$run"$'\t'"$slot"$'\t'* ]] && mine+=("$entry"); done
  local PLAN=("${mine[@]}")
  # a contestant not seen yet: what the last turn of any took
  plan::costed | plan::estimate_of "${SETTINGS[duration_s]}" "${SETTINGS[warmup_s]}" "${SETTINGS[server_warmup_s]}" '' '' '' \
    "${ROUNDS_SETUP_S[$slot]:-${ROUNDS_SETUP_S[*]:+$ROUNDS_LAST_SETUP_S}}" "${shape_s:-${ROUNDS_SHAPE_S[$slot]:-${ROUNDS_SHAPE_S[*]:+$ROUNDS_LAST_SHAPE_S}}}" \
    "${ROUNDS_ENTRY_S[$slot]:-${ROUNDS_ENTRY_S[*]:+$ROUNDS_LAST_ENTRY_S}}"
}

# rounds::_shapes SLOT RUN: how many warm-up shapes (protocol and scenario) SLOT's turn in RUN has.
rounds::_shapes() {
  local entry r s proto scenario
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r r s _ proto scenario _ <<<"$entry"
    [[ $r != "$2" || $s != "$1" ]] || printf '%s/%s\n' "$proto" "$scenario"
  done | sort -u | wc -l
}

# rounds::_size_warmup SLOT RUN: the server warm-up cap of SLOT's turn in RUN, into
# STEADY_TURN_CAP_S and ROUNDS_SIZING (the turn's warmup object): in a round after the first,
# when the settings' warmup_sized says so, from the contestant's time to steady state so far
# (lib/rounds.jq's warmup_cap: at most STEADY_CAP_S), lowered to what the budget's time left
# allows for the turn; logged when its need is beyond that (its rows keep ⧗). The turn's
# estimate with that cap into ROUNDS_TURN_ESTIMATE.
rounds::_size_warmup() {
  local slot=$1 run=$2 sized cap need all_steady shapes estimate left allowed over why
  # shellcheck disable=SC2034 # lib/steady.sh's, read by steady::cap
  STEADY_TURN_CAP_S='' ROUNDS_SIZING=null
  if ((run == 1)) || [[ ${SETTINGS[warmup_sized]} != 1 ]]; then
    ROUNDS_TURN_ESTIMATE=$(rounds::_estimate "$slot" "$run")
    return 0
  fi
  # shellcheck disable=SC2016 # jq's variables
  sized=$(jq -c -L "$ROUNDS_LIB_DIR" --arg c "$slot" --argjson base "${SETTINGS[server_warmup_s]}" --argjson max "$STEADY_CAP_S" \
    'import "rounds" as rounds; rounds::warmup_cap($c; $base; $max)' "$RESULTS_FILE")
  read -r cap need all_steady < <(jq -r '"\(.cap_s) \(.need_s // "-") \(.all_steady)"' <<<"$sized")
  shapes=$(rounds::_shapes "$slot" "$run")
  # a contestant whose warm-up reached steady state takes about as long again; one that did not
  # runs to its cap
  if [[ $all_steady == false ]]; then estimate=$(rounds::_estimate "$slot" "$run" "$cap"); else estimate=$(rounds::_estimate "$slot" "$run"); fi
  left=$(rounds::deadline_left_s)
  if [[ $all_steady == false ]] && ((estimate + ROUNDS_GAP_S > left && shapes > 0)); then
    over=$((estimate + ROUNDS_GAP_S - left))
    allowed=$((cap - (over + shapes - 1) / shapes))
    ((allowed >= SETTINGS[server_warmup_s])) || allowed=${SETTINGS[server_warmup_s]}
    cap=$allowed
    sized=$(jq -c --argjson cap "$cap" '.cap_s = $cap | if .need_s != null and .need_s > $cap then .verdict = "beyond" else . end' <<<"$sized")
    estimate=$(rounds::_estimate "$slot" "$run" "$cap")
  fi
  why=$(jq -r .why <<<"$sized")
  if [[ $(jq -r .verdict <<<"$sized") == beyond ]]; then
    log::warn "budget: $slot needs a warm-up of about $need s ($why); the budget allows $cap s: its rows may keep ⧗ (not in steady state)"
  else
    log::info "budget: $slot's warm-up cap in round $run: $cap s ($why)"
  fi
  # shellcheck disable=SC2034 # lib/steady.sh's, read by steady::cap
  STEADY_TURN_CAP_S=$cap ROUNDS_SIZING=$sized ROUNDS_TURN_ESTIMATE=$estimate
}

# rounds::_turn SERVE_FN SLOT RUN: one turn when it fits in the time left (0), else none (1).
rounds::_turn() {
  local serve=$1 slot=$2 run=$3 estimate left started took gap
  rounds::_size_warmup "$slot" "$run"
  estimate=$ROUNDS_TURN_ESTIMATE
  # the suite's own time between two turns (recording, choosing the next round) is part of the
  # estimate: the longest such gap so far
  if [[ -n $ROUNDS_LAST_END ]]; then
    gap=$(($(rounds::_now) - ROUNDS_LAST_END))
    ((gap <= ROUNDS_GAP_S)) || ROUNDS_GAP_S=$gap
  fi
  estimate=$((estimate + ROUNDS_GAP_S))
  left=$(rounds::deadline_left_s)
  if ((estimate > left)); then
    log::info "budget: $slot's turn in round $run (about $(plan::minutes "$estimate") min) does not fit in the $((left > 0 ? left : 0)) s left: not started"
    ROUNDS_TURNS+=("$(jq -cn --arg c "$slot" --argjson run "$run" --argjson e "$estimate" --argjson left "$left" --argjson w "$ROUNDS_SIZING" \
      '{contestant: $c, run: $run, estimate_s: $e, left_s: $left, started: false, took_s: null, warmup: $w}')")
    return 1
  fi
  started=$(rounds::_now)
  MEASURE_LAST_SETUP_S='' MEASURE_LAST_SHAPE_S='' MEASURE_LAST_ENTRY_S=''
  "$serve" "$slot" "$run"
  took=$(($(rounds::_now) - started))
  [[ -z $MEASURE_LAST_SETUP_S ]] || ROUNDS_SETUP_S[$slot]=$MEASURE_LAST_SETUP_S ROUNDS_LAST_SETUP_S=$MEASURE_LAST_SETUP_S
  [[ -z $MEASURE_LAST_SHAPE_S ]] || ROUNDS_SHAPE_S[$slot]=$MEASURE_LAST_SHAPE_S ROUNDS_LAST_SHAPE_S=$MEASURE_LAST_SHAPE_S
  [[ -z $MEASURE_LAST_ENTRY_S ]] || ROUNDS_ENTRY_S[$slot]=$MEASURE_LAST_ENTRY_S ROUNDS_LAST_ENTRY_S=$MEASURE_LAST_ENTRY_S
  ROUNDS_TURNS+=("$(jq -cn --arg c "$slot" --argjson run "$run" --argjson e "$estimate" --argjson left "$left" --argjson took "$took" \
    --argjson w "$ROUNDS_SIZING" '{contestant: $c, run: $run, estimate_s: $e, left_s: $left, started: true, took_s: $took, warmup: $w}')")
  rounds::_record
  ROUNDS_LAST_END=$(rounds::_now)
  return 0
}

# rounds::_record: the rounds so far into the results file.
rounds::_record() {
  local tables turns
  # shellcheck disable=SC2016 # jq's variables
  tables=$(rounds::_jq 'rounds::summary($margin; $min; $cross; $ended)' "$RESULTS_FILE") || return 0
  turns=$(printf '%s\n' "${ROUNDS_TURNS[@]}" | jq -cs .)
  # the rounds measured so far, and each one's order: the settings' runs and order
  results::set settings "$(jq -c --arg order "$(printf '%s\n' "${ROUND_ORDER[@]}")" \
    '.settings | .order = ($order | split("\n") | map(select(. != "") | split(" "))) | .runs = (.order | length)' "$RESULTS_FILE")"
  results::set rounds "$(jq -cn --argjson budget "${SETTINGS[budget_s]:-null}" --argjson margin "${SETTINGS[tie_margin]}" \
    --argjson min "$ROUNDS_MIN_RUNS" --arg ended "${ROUNDS_ENDED:-}" --argjson tables "$tables" --argjson turns "$turns" \
    --argjson spent "$(( $(rounds::_now) - ${ROUNDS_STARTED:-$(rounds::_now)} ))" --argjson rounds "${#ROUND_ORDER[@]}" \
    --argjson estimate "${ROUNDS_ESTIMATE_S:-null}" --argjson first "${ROUNDS_FIRST_S:-null}" \
    '{budget_s: $budget, tie_margin: $margin, min_runs: $min, rounds: $rounds, spent_s: $spent,
      estimate_s: $estimate, first_s: $first,
      ended: (if $ended == "" then null else $ended end), tables: $tables, turns: $turns}')"
}

rounds::run() {
  local serve=$1 run slot wanted any_left
  ROUNDS_STARTED=$(rounds::_now)
  ROUNDS_DEADLINE=$((ROUNDS_STARTED + SETTINGS[budget_s]))
  run=1
  # shellcheck disable=SC2034 # lib/plan.sh's, read by plan::spec
  for slot in ${ROUND_ORDER[0]}; do PLAN_ROUND_REASON["1/$slot"]='first round: every row'; done
  while :; do
    any_left=0
    for slot in ${ROUND_ORDER[run - 1]}; do
      if ! rounds::_turn "$serve" "$slot" "$run"; then
        any_left=1
        # the first round's rows are every row: one that did not fit says so; a later round's
        # turn that did not fit leaves nothing
        if ((run == 1)); then measure::skip_entries "$slot" "$run" "not started: the budget ($(plan::minutes "${SETTINGS[budget_s]}") min) had too little time left"
        else plan::drop_turn "$run" "$slot"; fi
      fi
    done
    ((run > 1)) || ROUNDS_FIRST_S=$(($(rounds::_now) - ROUNDS_STARTED))
    if ((any_left)); then ROUNDS_ENDED=budget; break; fi
    # shellcheck disable=SC2016 # jq's variables
    wanted=$(rounds::_jq 'rounds::wanted($margin; $min; $cross)' "$RESULTS_FILE")
    if [[ -z $wanted ]]; then ROUNDS_ENDED=decided; break; fi
    run=$((run + 1))
    plan::add_round "$run" <<<"$wanted"
    # (an open pair whose rows cannot be measured again would loop without measuring)
    if [[ -z ${ROUND_ORDER[run - 1]:-} ]]; then run=$((run - 1)) ROUNDS_ENDED=decided; break; fi
    log::info "round $run: $(cut -f1 <<<"$wanted" | sort -u | paste -sd' ') again (a pair still open); budget: $(plan::minutes "$(rounds::deadline_left_s)") min left"
  done
  # the runs not started leave no row; the rounds' order keeps what ran
  rounds::_record
  log::info "ranking after $run round(s): $(rounds::counts_text "$RESULTS_FILE") ($(rounds::_ended_text); $(( $(rounds::_now) - ROUNDS_STARTED )) s of the $((SETTINGS[budget_s])) s budget)"
}

rounds::counts_text() {
  jq -r -L "$ROUNDS_LIB_DIR" 'import "rounds" as rounds; .rounds | rounds::counts_text' "$1"
}

# rounds::_ended_text: why the rounds ended, in words.
rounds::_ended_text() {
  case $ROUNDS_ENDED in
    decided) printf 'every pair decided or equal' ;;
    budget) printf 'the budget ended' ;;
    *) printf '%s' "$ROUNDS_ENDED" ;;
  esac
}

rounds::fixed_json() {
  local tables
  # shellcheck disable=SC2016 # jq's variables
  tables=$(rounds::_jq 'rounds::summary($margin; $min; $cross; "fixed")' "$RESULTS_FILE")
  jq -cn --argjson margin "${SETTINGS[tie_margin]}" --argjson min "$ROUNDS_MIN_RUNS" --argjson tables "$tables" \
    --argjson rounds "${SETTINGS[runs]}" --argjson estimate "${ROUNDS_ESTIMATE_S:-null}" --argjson first "${ROUNDS_FIRST_S:-null}" \
    '{budget_s: null, tie_margin: $margin, min_runs: $min, rounds: $rounds, spent_s: $first, estimate_s: $estimate, first_s: $first,
      ended: "fixed", tables: $tables, turns: []}'
}
