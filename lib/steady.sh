#!/usr/bin/env bash
# steady: the suite's side of steady state (issue 21, docs/steady-state.md): the server warm-up
# that lasts until barrage's load is in steady state, what each row got of it, and the row's
# drift (lib/drift.jq).
#
#   steady::parse_server_warmup VALUE
#     --server-warmup's value: auto (until steady state, at most the cap), auto:CAP (30s, 2m),
#     or a fixed duration (5s; 0 for none). Prints "MODE SECONDS": MODE auto or fixed, SECONDS
#     the cap or the duration (nothing for a plain auto: steady::default_cap's). Returns 1
#     (nothing printed) for anything else (more than 12 digits included: out of any range).
#   steady::default_cap QUICK
#     The cap when none was given: STEADY_CAP_S (60) or, with QUICK=1, STEADY_QUICK_CAP_S (15).
#   steady::tool
#     The tool that warms the servers up: the first whose driver declares the capability warmup
#     (lib/tools/README.md: barrage); returns 1 with a warning when none does.
#   steady::warmup_spec SPEC_NAME TOOL
#     Makes the run spec SPEC_NAME (lib/plan.sh: a plan entry's, for its protocol and scenario)
#     the server warm-up's run of TOOL, closed loop: auto, a 1 s measured window after
#     `--warmup auto:server_warmup_s`; fixed, server_warmup_s of load (the settings, lib/settings.sh).
#   steady::shape_fields RECORD_FILE
#     The warm-up a shape got, from barrage's record: {warmup_s, steady} (steady null when fixed).
#   steady::forget / steady::remember PROTOCOL SCENARIO SHAPE_JSON / steady::row_warmup PROTOCOL SCENARIO
#     The warm-up the current server got per protocol and scenario (forgotten at each start),
#     and a row's server_warmup object from it: {mode, seconds, steady}, or null when it got
#     none (no warm-up, or barrage could not send its scenario).
# Reads SETTINGS (lib/settings.sh): server_warmup_mode, server_warmup_s.
# Depends on jq, lib/log.sh, lib/tools.sh, lib/drift.jq (row drift, used by lib/rows.sh).

STEADY_CAP_S=60
STEADY_QUICK_CAP_S=15
declare -gA STEADY_GOT=()

steady::parse_server_warmup() {
  local value=$1 n
  if [[ $value == auto ]]; then
    echo auto
  elif [[ $value =~ ^auto:([0-9]+)([sm]?)$ ]]; then
    n=$((10#${BASH_REMATCH[1]}))
    ((n > 0)) || return 1
    [[ ${BASH_REMATCH[2]} != m ]] || n=$((n * 60))
    echo "auto $n"
  elif [[ $value =~ ^([0-9]+)([sm]?)$ ]]; then
    n=$((10#${BASH_REMATCH[1]}))
    [[ ${BASH_REMATCH[2]} != m ]] || n=$((n * 60))
    echo "fixed $n"
  else
    return 1
  fi
}

steady::default_cap() { if (($1)); then echo "$STEADY_QUICK_CAP_S"; else echo "$STEADY_CAP_S"; fi; }

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
  if [[ ${SETTINGS[server_warmup_mode]} == auto ]]; then
    warm_spec["duration_s"]=1 warm_spec["warmup_s"]=${SETTINGS[server_warmup_s]} warm_spec["warmup_auto"]=1
  else
    warm_spec["duration_s"]=${SETTINGS[server_warmup_s]} warm_spec["warmup_s"]=0 warm_spec["warmup_auto"]=''
  fi
}

steady::shape_fields() {
  jq -c --arg mode "${SETTINGS[server_warmup_mode]}" --argjson fixed "${SETTINGS[server_warmup_s]}" '
    if $mode == "auto" then {warmup_s: .warmup.seconds, steady: .warmup.steady}
    else {warmup_s: $fixed, steady: null} end' "$1"
}

steady::forget() { STEADY_GOT=(); }

steady::remember() { STEADY_GOT["$1/$2"]=$3; }

steady::row_warmup() {
  local shape=${STEADY_GOT["$1/$2"]:-}
  if [[ -z $shape ]]; then echo null; return 0; fi
  jq -c --arg mode "${SETTINGS[server_warmup_mode]}" \
    'if .status == "ok" then {mode: $mode, seconds: .warmup_s, steady: .steady} else null end' <<<"$shape"
}
