#!/usr/bin/env bash
# openloop: servers compared at the same offered load: fixed-rate runs (--rates), the capacity
# search under a latency target (--capacity) and the SLO gates (--slo) of run-benchmarks.sh.
# Only a tool whose driver declares the capability rate (barrage) measures at a fixed rate (see
# openloop::supports for why not wrk or h2load).
#
#   openloop::parse_rates TEXT
#     Prints TEXT ("500,1000,2000") as one rate per line (positive whole requests/s, each
#     once); returns 1 with a message for anything else.
#   openloop::conditions TEXT / openloop::gates TEXT
#     Prints the conditions (lib/slo.jq conditions) or gates (lib/slo.jq gates; TEXT may be
#     the path of a file holding them) as compact JSON; returns 1 with jq's message when bad.
#   openloop::stages_seconds TEXT
#     Prints how many whole seconds barrage --rate-stages TEXT lasts ("100:5s,2000:20s": each
#     stage RATE:DURATION, RATE whole requests/s (the first above 0: the ramp starts from it),
#     DURATION like 500ms, 10s, 2m); returns 1 with a message for anything else.
#   openloop::stages_of SCENARIO
#     The stages to measure SCENARIO at: SETTINGS[stages] (--rate-stages, lib/settings.sh), else the scenario
#     table's stages column; nothing for none.
#   openloop::loads SCENARIO
#     The open-loop entries to plan for SCENARIO, one a line: "rate=N" for each rate of
#     SETTINGS[rates] (--rates) or else of the scenario table's rates column, "stages" when it
#     has stages (openloop::stages_of), then "capacity" when SETTINGS[capacity] (the
#     conditions' JSON) is set. Nothing for a closed-loop-only run.
#   openloop::supports TOOL [LOAD]
#     0 when TOOL can run the plan entry's LOAD: a fixed rate (rate=N, capacity: its driver
#     declares the capability rate) or a ramped one (stages: stages); else 1 and prints why.
#   openloop::load_json LOAD SCENARIO
#     The row's "load" object for a plan entry's load field: {mode: "rate", target_rps},
#     {mode: "stages", stages} or {mode: "capacity", conditions, precision}; "null" for a
#     closed-loop entry.
#   openloop::slo_json SCENARIO METRICS_FILE
#     The row's "slo" object (lib/slo.jq check) when SETTINGS[slo] (the gates' JSON) has
#     conditions for SCENARIO; "null" otherwise.
#   openloop::slo_regressions BASE NEW GATES_JSON
#     One line per row of results file NEW that breaks a gate the same row of BASE met
#     (lib/slo.jq regressions): "  ROW: CONDITION, ..."; nothing when there is none.
#   openloop::slo_exit_status RESULTS_FILE
#     0, or 3 (printing which rows) when a row's SLO was not met.
#   openloop::capacity SPEC_NAME DIR STEP_FN ROW_FN
#     The capacity search of one plan entry, the run spec SPEC_NAME: fixed-rate steps
#     (STEP_FN SPEC_NAME RATE STEP_DIR runs one, writing STEP_DIR/metrics.json; returns
#     non-zero when the tool failed) from SETTINGS[capacity_start], doubled until a condition
#     fails (halved while the first fails), then bisected until (fail - pass) / pass <=
#     SETTINGS[capacity_precision], then the rate found measured again to confirm. After every
#     step ROW_FN SPEC_NAME FIRST_STEP_DIR REPLACE STATUS REASON METRICS_FILE CAPACITY_JSON
#     writes the row (REPLACE 1: over the previous step's; 0 for the first), so that an
#     interrupted search keeps its steps.
# Depends on lib/log.sh, lib/scenarios.sh (openloop::loads), lib/tools.sh (openloop::supports), jq, lib/slo.jq next to this file.

OPENLOOP_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OPENLOOP_STEP=''
# Bounds of the search: a rate no load generator here reaches, and steps enough for it.
OPENLOOP_CAPACITY_MAX_RPS=10000000 OPENLOOP_CAPACITY_MAX_STEPS=40
# The exit status of a run whose results break an SLO (beside 0, 1, 2, 130, 143).
OPENLOOP_SLO_EXIT=3

openloop::parse_rates() {
  local rate rates=() seen=' '
  IFS=, read -r -a rates <<<"$1"
  ((${#rates[@]})) || { log::error "no rate given"; return 1; }
  for rate in "${rates[@]}"; do
    [[ $rate =~ ^[1-9][0-9]{0,7}$ ]] || { log::error "a rate is a whole number of requests/s (1 to 10^8), got '$rate'"; return 1; }
    # (measured twice, both rows under one key)
    [[ $seen != *" $rate "* ]] || { log::error "rate $rate given twice"; return 1; }
    seen+="$rate "
    printf '%s\n' "$rate"
  done
}

openloop::stages_seconds() {
  local stage stages=() ms=0 rate n first=1
  IFS=, read -r -a stages <<<"$1"
  ((${#stages[@]})) || { log::error "no stage given"; return 1; }
  for stage in "${stages[@]}"; do
    [[ $stage =~ ^([0-9]{1,8}):([0-9]{1,6})(ms|s|m)$ ]] ||
      { log::error "a stage is RATE:DURATION (whole requests/s, then 500ms, 10s or 2m), got '$stage'"; return 1; }
    rate=$((10#${BASH_REMATCH[1]})) n=$((10#${BASH_REMATCH[2]}))
    ((rate > 0 || !first)) || { log::error "the first stage's rate must be above 0: the ramp starts from it"; return 1; }
    case ${BASH_REMATCH[3]} in ms) ms=$((ms + n)) ;; s) ms=$((ms + n * 1000)) ;; m) ms=$((ms + n * 60000)) ;; esac
    first=0
  done
  ((ms > 0)) || { log::error "the stages last no time"; return 1; }
  echo $(((ms + 999) / 1000))
}

openloop::stages_of() {
  local text=${SETTINGS[stages]}
  [[ -n $text ]] || text=$(scenarios::field "$1" stages 2>/dev/null) || text=''
  [[ $text == - ]] || printf '%s\n' "$text"
}

openloop::conditions() { jq -nc -L "$OPENLOOP_LIB" --arg t "$1" 'import "slo" as slo; $t | slo::conditions'; }

openloop::gates() {
  local text=$1
  [[ -f $text ]] && text=$(<"$text")
  jq -nc -L "$OPENLOOP_LIB" --arg t "$text" 'import "slo" as slo; $t | slo::gates'
}

openloop::loads() {
  local rates rate
  rates=${SETTINGS[rates]}
  [[ -n $rates ]] || rates=$(scenarios::field "$1" rates 2>/dev/null) || rates=''
  [[ $rates == - ]] && rates=''
  if [[ -n $rates ]]; then
    for rate in $(openloop::parse_rates "$rates"); do printf 'rate=%s\n' "$rate"; done
  fi
  [[ -z $(openloop::stages_of "$1") ]] || echo stages
  [[ -z ${SETTINGS[capacity]} ]] || echo capacity
}

openloop::supports() {
  local capability=rate
  [[ ${2:-} != stages ]] || capability=stages
  tools::can "$1" "$capability" && return 0
  # wrk is closed loop only; h2load --rps opens connections at a rate, and each connection
  # then waits for its answers: neither keeps a schedule or measures from it.
  printf '%s has no fixed-rate (open-loop) mode: fixed-rate runs and capacity searches use barrage -R\n' "$1"
  return 1
}

openloop::load_json() {
  case $1 in
    '') echo null ;;
    rate=*) jq -cn --argjson r "${1#rate=}" '{mode: "rate", target_rps: $r}' ;;
    stages) jq -cn --arg s "$(openloop::stages_of "$2")" '{mode: "stages", stages: $s}' ;;
    capacity) jq -cn --argjson c "${SETTINGS[capacity]}" --argjson p "${SETTINGS[capacity_precision]}" \
      '{mode: "capacity", conditions: [$c[].text], precision: $p}' ;;
  esac
}

openloop::slo_json() {
  [[ -n ${SETTINGS[slo]} && -s $2 ]] || { echo null; return 0; }
  jq -c -L "$OPENLOOP_LIB" --argjson gates "${SETTINGS[slo]}" --arg scenario "$1" '
    import "slo" as slo;
    slo::for_scenario($gates; $scenario) as $c
    | if ($c | length) == 0 then null else slo::check($c) end' "$2"
}

openloop::slo_regressions() {
  jq -nr -L "$OPENLOOP_LIB" --slurpfile base "$1" --slurpfile new "$2" --argjson gates "$3" '
    import "slo" as slo; slo::regressions($base[0]; $new[0]; $gates)[] | "  \(.row): \(.broken | join(", "))"'
}

openloop::slo_exit_status() {
  local broken
  # names from the results file made fit for a terminal (fmt::safe): a crafted one cannot hide the verdict
  broken=$(jq -r -L "$OPENLOOP_LIB" 'import "format" as fmt;
    .results[] | select(.slo.met == false)
    | "\(.server) \(.tool) \(.protocol) \(.scenario)\(if .load.mode == "rate" then " at \(.load.target_rps)/s" else "" end): "
      + ([.slo.conditions[] | select(.met == false) | "\(.condition) (\(.value // "–"))"] | join(", "))
    | fmt::safe' "$1")
  [[ -n $broken ]] || return 0
  log::error "SLO not met (exit $OPENLOOP_SLO_EXIT):"
  printf '%s\n' "$broken" | sed 's/^/  /' >&2
  return "$OPENLOOP_SLO_EXIT"
}

# openloop::_step_json RATE PHASE METRICS_FILE: one step of a capacity search: its rate,
# phase, whether every condition held (pass) and the figures they read.
openloop::_step_json() {
  jq -c -L "$OPENLOOP_LIB" --argjson rate "$1" --arg phase "$2" --argjson c "${SETTINGS[capacity]}" '
    import "slo" as slo;
    slo::check($c) as $check
    | {rate: $rate, phase: $phase, pass: $check.met,
       why: ([$check.conditions[] | select(.met == false)
              | if .condition == "delivered" then "not delivered (achieved \(.value // 0 | floor)/s)"
                else "\(.condition): \(.value)" end] | join(", ") | if . == "" then null else . end),
       achieved_rps: .rate.achieved, delivered: .rate.delivered, backlog_max: .rate.backlog_max,
       requests: .requests, failed: .failed,
       latency_us: (.latency_us // {} | {p50, p99, p999, max})}' "$3"
}

# openloop::_failed_step RATE PHASE WHY: a step whose run failed (no record): a failed condition.
openloop::_failed_step() {
  jq -cn --argjson rate "$1" --arg phase "$2" --arg why "$3" \
    '{rate: $rate, phase: $phase, pass: false, why: $why, achieved_rps: null, delivered: null,
      backlog_max: null, requests: null, failed: null, latency_us: null}'
}

# openloop::_close_enough PASS FAIL: 0 when the bracket is within the precision.
openloop::_close_enough() {
  awk -v lo="$1" -v hi="$2" -v p="${SETTINGS[capacity_precision]}" 'BEGIN {exit !((hi - lo) <= p * lo || hi - lo <= 1)}'
}

openloop::capacity() {
  local spec=$1 dir=$2 step_fn=$3 row_fn=$4 steps=() pass=0 fail=0 rate=${SETTINGS[capacity_start]} phase=raise
  local n=0 step last_metrics='' pass_metrics='' confirmed=null fail_why='' summary first_dir=$2/step-1-${SETTINGS[capacity_start]}
  while ((n < OPENLOOP_CAPACITY_MAX_STEPS)); do
    n=$((n + 1))
    # In this shell, not in a command substitution's subshell: the step's processes must be
    # known to the caller's signal trap (a step's result is in its STEP_DIR, for ROW_FN).
    openloop::_run_step "$spec" "$dir/step-$n-$rate" "$step_fn" "$rate" "$phase" || return 1
    step=$OPENLOOP_STEP
    steps+=("$step")
    [[ -s $dir/step-$n-$rate/metrics.json ]] && last_metrics=$dir/step-$n-$rate/metrics.json
    if [[ $phase == confirm ]]; then
      confirmed=$(jq '.pass' <<<"$step")
      break
    fi
    if [[ $(jq '.pass' <<<"$step") == true ]]; then
      pass=$rate pass_metrics=$last_metrics
    else
      fail=$rate fail_why=$(jq -r '.why' <<<"$step")
    fi
    "$row_fn" "$spec" "$first_dir" $((n > 1)) failed "capacity search interrupted after $n step(s): the steps so far are in capacity.steps" \
      "$last_metrics" "$(openloop::_capacity_json "$pass" "$fail" "$fail_why" null "${steps[@]}")"
    if ((fail == 0)); then
      ((rate * 2 <= OPENLOOP_CAPACITY_MAX_RPS)) || break
      rate=$((rate * 2)) phase=raise
    elif ((pass == 0)); then
      ((rate > 1)) || break
      rate=$((rate / 2)) phase=lower
    elif openloop::_close_enough "$pass" "$fail"; then
      rate=$pass phase=confirm
    else
      rate=$(((pass + fail) / 2)) phase=bisect
    fi
  done
  summary=$(openloop::_capacity_json "$pass" "$fail" "$fail_why" "$confirmed" "${steps[@]}")
  # The row's record: the confirming run at the capacity found, else the last step's.
  [[ $confirmed == null ]] || pass_metrics=$last_metrics
  "$row_fn" "$spec" "$first_dir" 1 ok '' "${pass_metrics:-$last_metrics}" "$summary"
}

# openloop::_run_step SPEC_NAME STEP_DIR STEP_FN RATE PHASE: runs one step; sets OPENLOOP_STEP
# to its JSON.
openloop::_run_step() {
  local spec=$1 step_dir=$2 step_fn=$3 rate=$4 phase=$5 rc=0
  mkdir -p "$step_dir"
  log::info "capacity search: $phase step at $rate/s"
  "$step_fn" "$spec" "$rate" "$step_dir" || rc=$?
  if ((rc != 0)) || [[ ! -s $step_dir/metrics.json ]]; then
    OPENLOOP_STEP=$(openloop::_failed_step "$rate" "$phase" "the tool failed (exit $rc): see $step_dir")
  else
    OPENLOOP_STEP=$(openloop::_step_json "$rate" "$phase" "$step_dir/metrics.json")
  fi
}

# openloop::_capacity_json PASS FAIL FAIL_WHY CONFIRMED STEP_JSON...: the row's capacity
# object: the highest rate that met every condition (null when none did), the lowest that
# failed and why, whether the confirming run met them again, and every step in order.
openloop::_capacity_json() {
  local pass=$1 fail=$2 why=$3 confirmed=$4
  shift 4
  printf '%s\n' "$@" | jq -cs --argjson pass "$pass" --argjson fail "$fail" --arg why "$why" \
    --argjson confirmed "$confirmed" --argjson c "${SETTINGS[capacity]}" --argjson p "${SETTINGS[capacity_precision]}" '
    {conditions: [$c[].text], precision: $p,
     capacity_rps: (if $pass == 0 then null else $pass end), confirmed: $confirmed,
     failed_step: (if $fail == 0 then null else {rate: $fail, why: $why} end),
     steps: .}'
}
