#!/usr/bin/env bash
# measure: one server's life in a run of run-benchmarks.sh (start, ready, contract, warm-up,
# every plan entry of its slot measured, stop), one measured run and a capacity search. Where
# the server and the tools run is the place loaded (lib/place/local.sh or lib/place/lab.sh).
#
#   measure::serve SLOT RUN
#     One server start for SLOT in round RUN: started, once it answers and keeps the contract
#     warmed up, then every entry of the slot in RUN measured (a row each); when it cannot
#     start, answer or keep the contract, every entry of the slot gets a failed row with the
#     reason. Stopped at the end.
#   measure::fail_entries SLOT RUN REASON
#     A failed row for every entry of SLOT in RUN.
#   measure::skip_entries SLOT RUN REASON
#     A skipped row for every entry of SLOT in RUN (a budgeted run's first-round turn that did
#     not fit in the time left).
#   measure::any_failed
#     0 when a row so far failed (a build, a start, a contract check, a tool): the run exits 1.
#   measure::step SPEC_NAME
#     One measured run of the run spec SPEC_NAME (lib/plan.sh; its dir set): the tool's
#     warm-up and measured run, the server's and the tool's CPU sampled meanwhile. Its result
#     is one JSON object, written to DIR/step.json: started, ended (UTC), metrics_file
#     (DIR/metrics.json, the tool's record; "" when the tool wrote none), server_stats,
#     client_stats, machine_stats and extra (the row's jvm facts and profile). Returns the
#     tool's exit status.
# Reads the settings (lib/settings.sh: SETTINGS' duration_s, warmup_s, server_warmup_s,
# server_warmup_mode, profile, output_dir) and the run's state: PLAN, LOG_DIR, READY_TIMEOUT_S. Its own state: MEASURE_DONE (the entries done, for the progress line),
# MEASURE_FAILED (1 once a row failed; measure::any_failed), MEASURE_STARTED_MS and
# MEASURE_FIRST_RESPONSE_S (the running server's start, and the seconds from it to its first
# correct response: GET /hello answered 200, polled every 0.1 s; null before), SERVER_JDK (the running
# contestant's JDK, read by rows::_json) and what measure::serve's last
# turn took, for the next turn's estimate (lib/rounds.sh): MEASURE_LAST_SETUP_S (the
# server's start, contract check and stop), MEASURE_LAST_SHAPE_S (a warm-up shape, on
# average), MEASURE_LAST_ENTRY_S (a measured run, on average); "" when there was none.
# Depends on lib/churn.sh, lib/plan.sh, lib/spec.sh, lib/rows.sh, lib/openloop.sh, lib/jvm.sh, lib/profile.sh,
# lib/system.sh and a place.

MEASURE_DONE=0 MEASURE_FAILED=0
# The running server's JDK ({version, home}: place::server_jdk) in a variant run, else null.
SERVER_JDK=null
MEASURE_LAST_SETUP_S='' MEASURE_LAST_SHAPE_S='' MEASURE_LAST_ENTRY_S=''
MEASURE_SHAPES=0 MEASURE_RAN=0 MEASURE_TURN_MS=(0 0 0)
# the running server's start (ms, measure::_ms) and the seconds to its first correct response
MEASURE_STARTED_MS=0 MEASURE_FIRST_RESPONSE_S=null

measure::any_failed() { ((MEASURE_FAILED)); }

# measure::_ms: the wall clock in milliseconds.
measure::_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

# measure::_progress WHAT: the run's progress and time left, on stderr; in a budgeted run, the
# runs planned so far (later rounds add theirs) and the budget's time left.
measure::_progress() {
  local duration=${SETTINGS[duration_s]} warmup=${SETTINGS[warmup_s]} budget_left
  local left=$(( (${#PLAN[@]} - MEASURE_DONE) * (duration + warmup + PLAN_RUN_OVERHEAD_S) ))
  budget_left=$(rounds::deadline_left_s)
  log::info "run $((MEASURE_DONE + 1)) of ${#PLAN[@]}${budget_left:+ so far}, about $(plan::minutes "$left") min left${budget_left:+ in this round; budget: $(plan::minutes "$((budget_left > 0 ? budget_left : 0))") min left}: $*"
}

# measure::_run_tool SPEC_NAME: one run of the spec's tool (its record in DIR/metrics.json,
# its messages in DIR/stderr); the tool's status.
measure::_run_tool() {
  local -n tool_spec=$1
  mkdir -p "${tool_spec[dir]}"
  tool_spec["out"]=${tool_spec[dir]}/metrics.json
  # a key lib/spec.tsv does not declare is a mistake in this code: the run fails saying so
  spec::check "$1" 2>"${tool_spec[dir]}/stderr" || return 1
  place::run_tool "$1" 2>"${tool_spec[dir]}/stderr"
}

# measure::_error_of DIR: the first error line the tool printed, without its prefix.
measure::_error_of() { grep -m1 -E 'error' "$1/stderr" | sed 's/^[^:]*: //'; }

measure::step() {
  local -n step_spec=$1
  local dir=${step_spec[dir]} warmup=${step_spec[warmup_s]} started ended window_from window_to rc=0
  local extra stats collected machine
  mkdir -p "$dir"
  started=$(rows::now_utc)
  window_from=$(jvm::now_ms)
  window_from=$((window_from + warmup * 1000))
  [[ -n ${SETTINGS[profile]} ]] && profile::begin "$SERVER_PID" "${SETTINGS[profile]}" "$warmup" "$dir"
  place::sample_start "$dir"
  step_spec["samples"]=$dir/tool-samples
  measure::_run_tool "$1" || rc=$?
  step_spec["samples"]=''
  place::sample_stop "$dir"
  ended=$(rows::now_utc)
  window_to=$(jvm::now_ms)
  extra=$(jq -cn --argjson jvm "$(jvm::facts "$SERVER_GC_LOG" "$window_from" "$window_to")" '{jvm: $jvm}')
  if [[ -n ${SETTINGS[profile]} ]]; then
    extra=$(jq -c --argjson profile "$(profile::end "$SERVER_PID" "${SETTINGS[profile]}" "$dir" "${dir#"${SETTINGS[output_dir]}/"}/flame.html" \
      "${step_spec[slot]} ${step_spec[tool]} ${step_spec[protocol]} ${step_spec[scenario]}${step_spec[rate]:+ @${step_spec[rate]}/s}")" \
      '. + {profile: $profile}' <<<"$extra")
  fi
  log::lines <"$dir/stderr"
  # a churn or idle scenario's connection figures (lib/churn.sh)
  local connection
  connection=$(churn::row_json "${step_spec[scenario]}" "$dir/metrics.json" "$dir/samples")
  [[ $connection == null ]] || extra=$(jq -c --argjson c "$connection" '. + {connection: $c}' <<<"$extra")
  stats=$(system::stats "$dir/samples" "${step_spec[duration_s]}")
  collected=$(place::collect "$1")
  machine=$(system::machine_stats "$dir/samples" "${step_spec[duration_s]}" "$stats" "$(jq -c .here <<<"$collected")")
  jq -cn --arg started "$started" --arg ended "$ended" --arg metrics "$([[ -s $dir/metrics.json ]] && echo "$dir/metrics.json")" \
    --argjson stats "$stats" --argjson collected "$collected" --argjson machine "$machine" --argjson extra "$extra" \
    '{started: $started, ended: $ended, metrics_file: $metrics, server_stats: $stats,
      client_stats: $collected.client, machine_stats: $machine, extra: $extra}' >"$dir/step.json"
  return "$rc"
}

# measure::_entry ENTRY: warm-up and one measured run of one plan entry (a capacity search:
# its steps, lib/openloop.sh); adds its row.
measure::_entry() {
  local -A ENTRY_SPEC
  local reason rc=0
  plan::spec ENTRY_SPEC "$1"
  if reason=$(plan::jdk_short "${ENTRY_SPEC[slot]}" "${ENTRY_SPEC[protocol]}"); then
    rows::add ENTRY_SPEC skipped "$reason"
    return 0
  fi
  if ! reason=$(scenarios::tool_supports "${ENTRY_SPEC[tool]}" "${ENTRY_SPEC[scenario]}" "${ENTRY_SPEC[protocol]}") \
    || ! reason=$(scenarios::server_supports "${ENTRY_SPEC[server]}" "${ENTRY_SPEC[scenario]}") \
    || ! reason=$("${ENTRY_SPEC[tool]}::supports" "${ENTRY_SPEC[scenario]}" "${ENTRY_SPEC[protocol]}") \
    || { [[ -n ${ENTRY_SPEC[load]} ]] && ! reason=$(openloop::supports "${ENTRY_SPEC[tool]}" "${ENTRY_SPEC[load]}"); }; then
    rows::add ENTRY_SPEC skipped "$reason"
    return 0
  fi
  MEASURE_RAN=$((MEASURE_RAN + 1))
  measure::_progress "${ENTRY_SPEC[slot]} ${ENTRY_SPEC[tool]} ${ENTRY_SPEC[protocol]} ${ENTRY_SPEC[scenario]}${ENTRY_SPEC[load]:+ ${ENTRY_SPEC[load]}}"
  # The tool's raw output stays beside the results, so every number can be checked later.
  ENTRY_SPEC["dir"]=$LOG_DIR/${ENTRY_SPEC[run]}-${ENTRY_SPEC[slot]}-${ENTRY_SPEC[tool]}-${ENTRY_SPEC[protocol]}-${ENTRY_SPEC[scenario]}${ENTRY_SPEC[load]:+-${ENTRY_SPEC[load]}}
  if [[ ${ENTRY_SPEC[load]} == capacity ]]; then
    openloop::capacity ENTRY_SPEC "${ENTRY_SPEC[dir]}" measure::_capacity_step measure::_capacity_row
    return 0
  fi
  measure::step ENTRY_SPEC || rc=$?
  if ((rc != 0)); then
    reason=$(measure::_error_of "${ENTRY_SPEC[dir]}")
    rows::add ENTRY_SPEC failed "${ENTRY_SPEC[tool]} failed: ${reason:-exit $rc}" \
      "$(jq -c '.metrics_file = ""' "${ENTRY_SPEC[dir]}/step.json")"
    MEASURE_FAILED=1
  else
    rows::add ENTRY_SPEC ok '' "$(<"${ENTRY_SPEC[dir]}/step.json")"
  fi
}

# measure::_capacity_step SPEC_NAME RATE STEP_DIR: one step of the capacity search of the run
# spec SPEC_NAME (openloop::capacity's STEP_FN): measured at RATE, its dir STEP_DIR.
measure::_capacity_step() {
  local -n capacity_spec=$1
  # shellcheck disable=SC2034 # a nameref: the caller's spec, read by measure::step
  capacity_spec["rate"]=$2 capacity_spec["dir"]=$3
  measure::step "$1"
}

# measure::_capacity_row SPEC_NAME FIRST_STEP_DIR REPLACE STATUS REASON METRICS_FILE CAPACITY_JSON:
# the row of the capacity search of SPEC_NAME (openloop::capacity's ROW_FN), added (REPLACE 0)
# or written over the one before (1): from its first step's start to its last step's (the
# spec's dir) end, with the server's and the tool's stats of the last step and the record
# METRICS_FILE.
measure::_capacity_row() {
  local -n capacity_row_spec=$1
  local step write=rows::add
  ((${3})) && write=rows::replace_last
  step=$(jq -c --slurpfile first "$2/step.json" --arg metrics "$6" '.started = $first[0].started | .metrics_file = $metrics' \
    "${capacity_row_spec[dir]}/step.json")
  "$write" "$1" "$4" "$5" "$step" "$7"
}

# measure::_warm_up SLOT RUN: the same load for every freshly started server, before its first
# measured run whichever tool comes first: the warm-up tool (steady::tool: barrage), closed
# loop, until steady state (at most SERVER_WARMUP_S) or for SERVER_WARMUP_S (lib/steady.sh), for
# each protocol and scenario the slot is measured with in RUN (the scenario's connections,
# streams, method and body; a scenario it cannot send is left out: the others warm its paths).
# Kept in the results' server_warmups; a warm-up that fails is a warning, the measurement goes on.
measure::_warm_up() {
  local slot=$1 run=$2 entry r s proto scenario seen=' ' shapes=() reason started rc tool load_started
  local -A WARMUP_SPEC
  steady::forget "$MEASURE_FIRST_RESPONSE_S"
  [[ ${SETTINGS[server_warmup_s]} != 0 ]] || return 0
  tool=$(steady::tool) || return 0
  started=$(rows::now_utc)
  for entry in "${PLAN[@]}"; do
    IFS=$'\t' read -r r s _ proto scenario _ <<<"$entry"
    [[ $r == "$run" && $s == "$slot" && $seen != *" $proto/$scenario "* ]] || continue
    ! plan::jdk_short "$slot" "$proto" >/dev/null || continue
    seen+="$proto/$scenario "
    plan::spec WARMUP_SPEC "$entry"
    steady::warmup_spec WARMUP_SPEC "$tool"
    WARMUP_SPEC["dir"]=$LOG_DIR/$run-$slot-warmup-$proto-$scenario
    mkdir -p "${WARMUP_SPEC[dir]}"
    if ! reason=$(scenarios::tool_supports "$tool" "$scenario" "$proto") || ! reason=$("$tool::supports" "$scenario" "$proto") \
      || ! reason=$(scenarios::server_supports "${WARMUP_SPEC[server]}" "$scenario"); then
      shapes+=("$(jq -cn --arg p "$proto" --arg s "$scenario" --arg r "$reason" \
        '{protocol: $p, scenario: $s, status: "skipped", reason: $r, requests: null, successful_rps: null,
          warmup_s: null, steady: null}')")
      continue
    fi
    if [[ ${SETTINGS[server_warmup_mode]} == auto ]]; then
      log::info "warming up $slot: $tool $proto $scenario until steady state (at most $(steady::cap)s)"
    else log::info "warming up $slot: $tool $proto $scenario for ${SETTINGS[server_warmup_s]}s"; fi
    rc=0
    load_started=$(measure::_seconds $(($(measure::_ms) - MEASURE_STARTED_MS)))
    measure::_run_tool WARMUP_SPEC || rc=$?
    if ((rc == 0)); then
      shapes+=("$(jq -c --arg p "$proto" --arg s "$scenario" --argjson got "$(steady::shape_fields "${WARMUP_SPEC[out]}" "$load_started")" \
        '{protocol: $p, scenario: $s, status: "ok", reason: null, requests, successful_rps} + $got' "${WARMUP_SPEC[out]}")")
      [[ $(jq -r .steady <<<"${shapes[-1]}") != false ]] ||
        log::warn "$slot ($proto $scenario) did not reach steady state in $(steady::cap)s: its rows are marked"
    else
      reason=$(measure::_error_of "${WARMUP_SPEC[dir]}")
      log::warn "warm-up of $slot ($proto $scenario) failed: ${reason:-exit $rc}; measuring anyway"
      shapes+=("$(jq -cn --arg p "$proto" --arg s "$scenario" --arg r "$tool failed: ${reason:-exit $rc}" \
        '{protocol: $p, scenario: $s, status: "failed", reason: $r, requests: null, successful_rps: null,
          warmup_s: null, steady: null}')")
    fi
    steady::remember "$proto" "$scenario" "${shapes[-1]}"
    MEASURE_SHAPES=$((MEASURE_SHAPES + 1))
  done
  ((${#shapes[@]})) || return 0
  results::add_warmup "$(printf '%s\n' "${shapes[@]}" | jq -cs --arg server "$(plan::slot_server "$slot")" \
    --arg aa_label "$(plan::slot_label "$slot")" --arg variant "$([[ -z $(plan::contestant "$slot") ]] || printf '%s' "$slot")" --argjson run "$run" --argjson duration "$(steady::cap)" \
    --arg started "$started" --arg ended "$(rows::now_utc)" --arg mode "${SETTINGS[server_warmup_mode]}" --arg tool "$tool" \
    --argjson first_response "$MEASURE_FIRST_RESPONSE_S" '
    {server: $server, run: $run, tool: $tool, mode: $mode, duration_s: $duration, started: $started,
     ended: $ended, first_response_s: $first_response, shapes: .}
    + (if $aa_label == "" then {} else {aa_group: $aa_label} end)
    + (if $variant == "" then {} else {variant: $variant} end)')"
}

measure::skip_entries() {
  local entry
  # shellcheck disable=SC2034 # filled and read by name (plan::spec, rows::add)
  local -A SKIPPED_SPEC
  for entry in "${PLAN[@]}"; do
    [[ $entry == "$2"$'\t'"$1"$'\t'* ]] || continue
    plan::spec SKIPPED_SPEC "$entry"
    rows::add SKIPPED_SPEC skipped "$3"
    MEASURE_DONE=$((MEASURE_DONE + 1))
  done
}

measure::fail_entries() {
  local entry
  # shellcheck disable=SC2034 # filled and read by name (plan::spec, rows::add)
  local -A FAILED_SPEC
  for entry in "${PLAN[@]}"; do
    [[ $entry == "$2"$'\t'"$1"$'\t'* ]] || continue
    plan::spec FAILED_SPEC "$entry"
    rows::add FAILED_SPEC failed "$3"
    MEASURE_DONE=$((MEASURE_DONE + 1))
  done
  MEASURE_FAILED=1
}

measure::serve() {
  local slot=$1 run=$2 server log reason='' started
  server=$(plan::slot_server "$slot")
  SERVER_JDK=null
  log=$LOG_DIR/$slot-run$run.log
  started=$(measure::_ms)
  MEASURE_TURN_MS=(0 0 0) MEASURE_SHAPES=0 MEASURE_RAN=0 MEASURE_STARTED_MS=$started MEASURE_FIRST_RESPONSE_S=null
  if ! place::start_server "$slot" "$log" reason; then
    measure::fail_entries "$slot" "$run" "$reason"
    measure::_took "$started"
    return 0
  fi
  measure::_verify_and_measure "$slot" "$run" "$log"
  place::stop_server "$server"
  measure::_took "$started"
}

# measure::_took STARTED_MS: what the turn started at STARTED_MS took, into MEASURE_LAST_*:
# MEASURE_TURN_MS holds the milliseconds of its warm-ups and of its measured runs.
# shellcheck disable=SC2034 # read by lib/rounds.sh
measure::_took() {
  local total=$(($(measure::_ms) - $1))
  MEASURE_LAST_SETUP_S=$(measure::_seconds $((total - MEASURE_TURN_MS[0] - MEASURE_TURN_MS[1])))
  MEASURE_LAST_SHAPE_S='' MEASURE_LAST_ENTRY_S=''
  ((MEASURE_SHAPES == 0)) || MEASURE_LAST_SHAPE_S=$(measure::_seconds $((MEASURE_TURN_MS[0] / MEASURE_SHAPES)))
  ((MEASURE_RAN == 0)) || MEASURE_LAST_ENTRY_S=$(measure::_seconds $((MEASURE_TURN_MS[1] / MEASURE_RAN)))
}

# measure::_seconds MS: MS milliseconds as seconds with three decimals.
measure::_seconds() { printf '%d.%03d\n' $(($1 / 1000)) $(($1 % 1000)); }

# measure::_verify_and_measure SLOT RUN LOG: the started server once it answers and keeps the
# contract: warmed up, then every entry of SLOT in RUN measured; else all of them failed with
# the reason.
measure::_verify_and_measure() {
  local slot=$1 run=$2 log=$3 server entry protocols tap
  server=$(plan::slot_server "$slot")
  if ! place::wait_ready; then
    local tail_line why="no answer to GET /hello within ${READY_TIMEOUT_S}s"
    tail_line=$(grep -v '^\s*$' "$log" 2>/dev/null | tail -n 1)
    place::server_alive || why="exited before it was ready"
    measure::fail_entries "$slot" "$run" "start failed: $why${tail_line:+ (log: $tail_line)}"
    return 0
  fi
  MEASURE_FIRST_RESPONSE_S=$(measure::_seconds $(($(measure::_ms) - MEASURE_STARTED_MS)))
  # the JDK the process runs on, for a contestant's rows (rows::_json)
  # shellcheck disable=SC2034 # read by rows::_json (lib/rows.sh)
  [[ -z $(plan::contestant "$slot") ]] || SERVER_JDK=$(place::server_jdk)
  protocols=$(plan::verified_protocols "$server")
  # a contestant whose JDK a protocol needs a newer one of: that protocol is not checked (its
  # rows are skipped, saying why); h1 always is
  local proto kept=() verified=()
  IFS=, read -r -a verified <<<"$protocols"
  for proto in "${verified[@]}"; do
    [[ $proto == h1 ]] || ! plan::jdk_short "$slot" "$proto" >/dev/null || continue
    kept+=("$proto")
  done
  protocols=$(IFS=,; printf '%s' "${kept[*]}")
  tap=$LOG_DIR/$slot-run$run.contract.tap
  log::info "verifying $server ($protocols)"
  if ! place::verify_contract "$server" "$protocols" >"$tap"; then
    measure::fail_entries "$slot" "$run" "contract verification failed: $(grep -m1 '^not ok' "$tap")"
    return 0
  fi
  local from
  from=$(measure::_ms)
  measure::_warm_up "$slot" "$run"
  MEASURE_TURN_MS[0]=$(($(measure::_ms) - from))
  from=$(measure::_ms)
  local order=() line kind windows=() brackets=0 shape=''
  # read whole first: a tool reading stdin must not eat the order
  mapfile -t order < <(plan::turn_order "$run" "$slot")
  for line in "${order[@]}"; do
    kind=${line%%$'\t'*} entry=${line#*$'\t'}
    if [[ $kind == lead ]]; then
      measure::_cross_check "$slot" "$run" "$shape" "${windows[@]}"
      windows=() brackets=0 shape=$(cut -f4,5 <<<"$entry")
      measure::_order_text "$entry" "${order[@]}"
    fi
    if [[ $kind == bracket ]]; then
      brackets=$((brackets + 1))
      measure::_bracket "$entry" "$brackets"
      MEASURE_RAN=$((MEASURE_RAN + 1))
      windows+=("$(measure::_window_json "$entry" bracket "$(measure::_dir_of "$entry")-bracket$brackets")")
      continue
    fi
    measure::_entry "$entry"
    MEASURE_DONE=$((MEASURE_DONE + 1))
    [[ $kind == row ]] || windows+=("$(measure::_window_json "$entry" "$kind" "$(measure::_dir_of "$entry")")")
  done
  measure::_cross_check "$slot" "$run" "$shape" "${windows[@]}"
  MEASURE_TURN_MS[1]=$(($(measure::_ms) - from))
}

# measure::_dir_of ENTRY: where the measured run of a plan entry keeps its raw output.
measure::_dir_of() {
  local run slot tool proto scenario load
  IFS=$'\t' read -r run slot tool proto scenario load <<<"$1"
  printf '%s\n' "$LOG_DIR/$run-$slot-$tool-$proto-$scenario${load:+-$load}"
}

# measure::_order_text LEAD_ENTRY ORDER_LINE...: the alternation LEAD_ENTRY opens, in words, to
# the log: the tools in the order they will measure on this JVM.
measure::_order_text() {
  local lead=$1 line kind tools=() slot proto scenario tool p sc
  shift
  IFS=$'\t' read -r _ slot _ proto scenario _ <<<"$lead"
  for line in "$@"; do
    kind=${line%%$'\t'*}
    IFS=$'\t' read -r _ _ tool p sc _ <<<"${line#*$'\t'}"
    [[ $kind != row && $p == "$proto" && $sc == "$scenario" ]] && tools+=("$tool")
  done
  log::info "cross-check on one JVM ($slot $proto $scenario): the tools alternate: ${tools[*]}"
}

# measure::_bracket ENTRY N: the reference tool's Nth window after a cross-checked row (ENTRY:
# its own row's entry), measured as that row was but without the tool's warm-up; no row of its own.
measure::_bracket() {
  local -A BRACKET_SPEC
  plan::spec BRACKET_SPEC "$1"
  # the server is warm and barrage has no JIT to warm: its window alone (what the estimate counts)
  BRACKET_SPEC["dir"]=$(measure::_dir_of "$1")-bracket$2 BRACKET_SPEC["warmup_s"]=0
  log::info "cross-check window $2 (no row): ${BRACKET_SPEC[slot]} ${BRACKET_SPEC[tool]} ${BRACKET_SPEC[protocol]} ${BRACKET_SPEC[scenario]}"
  measure::step BRACKET_SPEC || log::warn "${BRACKET_SPEC[tool]}'s cross-check window $2 on ${BRACKET_SPEC[slot]} failed: $(measure::_error_of "${BRACKET_SPEC[dir]}")"
}

# measure::_window_json ENTRY ROLE DIR: one window of a cross-check, from the measured run's
# output in DIR: {tool, role, status (ok: the tool wrote a record), successful_rps, latency_us
# (p50, p99), client_bound}.
measure::_window_json() {
  local tool metrics='null' client='null' bound='null'
  IFS=$'\t' read -r _ _ tool _ _ _ <<<"$1"
  [[ -s $3/metrics.json ]] && metrics=$(<"$3/metrics.json")
  [[ -s $3/step.json ]] && client=$(jq -c '.client_stats // null' "$3/step.json")
  [[ $client == null ]] || bound=$(rows::client_bound "$client")
  jq -cn -L "$ROWS_LIB_DIR" --arg tool "$tool" --arg role "$2" --argjson m "$metrics" --argjson bound "$bound" '
    import "stats" as stats;
    {tool: $tool, role: $role, status: (if $m == null then "failed" else "ok" end),
     successful_rps: (if $m == null then null else ($m | stats::successful_rps) end),
     latency_us: (if $m == null then null else {p50: $m.latency_us.p50?, p99: $m.latency_us.p99?} end),
     client_bound: $bound}'
}

# measure::_cross_check SLOT RUN "PROTOCOL<TAB>SCENARIO" WINDOW_JSON...: the windows of one
# alternation into the results' cross_checks (nothing when there are none).
measure::_cross_check() {
  local slot=$1 run=$2 proto scenario
  IFS=$'\t' read -r proto scenario <<<"$3"
  shift 3
  (($#)) || return 0
  results::add_cross_check "$(printf '%s\n' "$@" | jq -cs --arg server "$(plan::slot_server "$slot")" --arg slot "$slot" \
    --argjson run "$run" --arg proto "$proto" --arg scenario "$scenario" '
    {server: $server, contestant: $slot, run: $run, protocol: $proto, scenario: $scenario,
     order: map(.tool), windows: .}')"
}
