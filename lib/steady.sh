#!/usr/bin/env bash
# steady: the suite's side of steady state (issue 21, docs/steady-state.md): the server warm-up
# that lasts until barrage's load is in steady state, what each row got of it, and the row's
# drift (lib/drift.jq).
#
#   steady::parse_server_warmup VALUE
#     --server-warmup's value: auto (until steady state, at most the cap), auto:CAP (30s, 2m),
#     or a fixed duration (5s; 0 for none). Sets SERVER_WARMUP_MODE (auto or fixed) and, for
#     auto:CAP and a fixed one, SERVER_WARMUP_S (the cap or the duration). Returns 1 (nothing
#     set) for anything else (more than 12 digits included: out of any range).
#   steady::defaults QUICK
#     The cap when none was given: STEADY_CAP_S (60) or, with QUICK=1, STEADY_QUICK_CAP_S (15).
#   steady::tool
#     The tool that warms the servers up: the first whose driver declares the capability warmup
#     (lib/tools/README.md: barrage); returns 1 with a warning when none does.
#   steady::warmup_spec SPEC_NAME TOOL
#     Makes the run spec SPEC_NAME (lib/plan.sh: a plan entry's, for its protocol and scenario)
#     the server warm-up's run of TOOL, closed loop: auto, a 1 s measured window after
#     `--warmup auto:SERVER_WARMUP_S`; fixed, SERVER_WARMUP_S of load.
#   steady::shape_fields RECORD_FILE
#     The warm-up a shape got, from barrage's record: {warmup_s, steady} (steady null when fixed).
#   steady::forget / steady::remember PROTOCOL SCENARIO SHAPE_JSON / steady::row_warmup PROTOCOL SCENARIO
#     The warm-up the current server got per protocol and scenario (forgotten at each start),
#     and a row's server_warmup object from it: {mode, seconds, steady}, or null when it got
#     none (no warm-up, or barrage could not send its scenario).
# Depends on jq, lib/log.sh, lib/tools.sh, lib/drift.jq (row drift, used by lib/rows.sh).

STEADY_CAP_S=60
STEADY_QUICK_CAP_S=15
SERVER_WARMUP_MODE=${SERVER_WARMUP_MODE:-auto}
declare -gA STEADY_GOT=()

steady::parse_server_warmup() {
  local value=$1
  if [[ $value == auto ]]; then
    SERVER_WARMUP_MODE=auto
  elif [[ $value =~ ^auto:([0-9]+)([sm]?)$ ]]; then
    ((10#${BASH_REMATCH[1]} > 0)) || return 1
    SERVER_WARMUP_MODE=auto
    SERVER_WARMUP_S=$((10#${BASH_REMATCH[1]}))
    [[ ${BASH_REMATCH[2]} != m ]] || SERVER_WARMUP_S=$((SERVER_WARMUP_S * 60))
  elif [[ $value =~ ^([0-9]+)([sm]?)$ ]]; then
    SERVER_WARMUP_MODE=fixed
    if [[ ${BASH_REMATCH[2]} == m ]]; then SERVER_WARMUP_S=$((10#${BASH_REMATCH[1]} * 60)); else SERVER_WARMUP_S=$((10#${BASH_REMATCH[1]})); fi
  else
    return 1
  fi
}

steady::defaults() {
  if (($1)); then SERVER_WARMUP_S=${SERVER_WARMUP_S:-$STEADY_QUICK_CAP_S}; else SERVER_WARMUP_S=${SERVER_WARMUP_S:-$STEADY_CAP_S}; fi
}

steady::tool() {
  local tools
  mapfile -t tools < <(tools::with warmup)
  if ((${#tools[@]} == 0)); then log::warn "no load tool declares the capability warmup: no server warm-up"; return 1; fi
  printf '%s\n' "${tools[0]}"
}

steady::warmup_spec() {
  local -n warm_spec=$1
  # shellcheck disable=SC2034 # a run spec, filled by name (lib/plan.sh)
  warm_spec["tool"]=$2 warm_spec["request_timeout_s"]=$("$2::request_timeout_s")
  warm_spec["load"]='' warm_spec["rate"]='' warm_spec["stages"]=''
  # shellcheck disable=SC2034
  if [[ $SERVER_WARMUP_MODE == auto ]]; then
    warm_spec["duration_s"]=1 warm_spec["warmup_s"]=$SERVER_WARMUP_S warm_spec["warmup_auto"]=1
  else
    warm_spec["duration_s"]=$SERVER_WARMUP_S warm_spec["warmup_s"]=0 warm_spec["warmup_auto"]=''
  fi
}

steady::shape_fields() {
  jq -c --arg mode "$SERVER_WARMUP_MODE" --argjson fixed "$SERVER_WARMUP_S" '
    if $mode == "auto" then {warmup_s: .warmup.seconds, steady: .warmup.steady}
    else {warmup_s: $fixed, steady: null} end' "$1"
}

steady::forget() { STEADY_GOT=(); }

steady::remember() { STEADY_GOT["$1/$2"]=$3; }

steady::row_warmup() {
  local shape=${STEADY_GOT["$1/$2"]:-}
  if [[ -z $shape ]]; then echo null; return 0; fi
  jq -c --arg mode "$SERVER_WARMUP_MODE" \
    'if .status == "ok" then {mode: $mode, seconds: .warmup_s, steady: .steady} else null end' <<<"$shape"
}
