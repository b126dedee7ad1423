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
#   steady::cap
#     The cap (auto) or length (fixed) of the current start's warm-ups: STEADY_TURN_CAP_S when a
#     budgeted run's later round sized it (lib/rounds.sh), else the settings' server_warmup_s.
#   steady::default_cap QUICK
#     The cap when none was given: STEADY_CAP_S (60) or, with QUICK=1, STEADY_QUICK_CAP_S (15).
#   steady::tool
#     The tool that warms the servers up: the first whose driver declares the capability warmup
#     (lib/tools/README.md: barrage); returns 1 with a warning when none does.
#   steady::warmup_spec SPEC_NAME TOOL
#     Makes the run spec SPEC_NAME (lib/plan.sh: a plan entry's, for its protocol and scenario)
#     the server warm-up's run of TOOL, closed loop: auto, a 1 s measured window after
#     `--warmup auto:CAP` (steady::cap); fixed, server_warmup_s of load (the settings, lib/settings.sh).
#   steady::shape_fields RECORD_FILE LOAD_STARTED_S
#     The warm-up a shape got, from barrage's record: {warmup_s, steady (null when fixed),
#     time_to_steady}; LOAD_STARTED_S: seconds from the server's start to this shape's load.
#     time_to_steady (docs/metrics.md): {load_started_s, steady_after_s (from the start of load
#     to steady state; null unless the rule said steady), verdict (steady, not reached, not
#     judged), reason (why steady_after_s is null), first_5s_rps (successful requests/s over the
#     warm-up's first 5 seconds; null when it was shorter), steady_rps (the median second of the
#     window that passed the rule; null unless steady), first_5s_share (the one over the other),
#     rps_by_second (successful requests in each of its first STEADY_SERIES_S seconds)}.
#   steady::forget FIRST_RESPONSE_S / steady::remember PROTOCOL SCENARIO SHAPE_JSON /
#   steady::row_warmup PROTOCOL SCENARIO
#     The warm-up the current server got per protocol and scenario (forgotten at each start, where
#     FIRST_RESPONSE_S is the seconds from its start to its first correct response), and a row's
#     server_warmup object from it: {mode, seconds, steady, first_response_s, time_to_steady},
#     or null when it got none (no warm-up, or barrage could not send its scenario).
# Reads SETTINGS (lib/settings.sh): server_warmup_mode, server_warmup_s.
# Depends on jq, lib/log.sh, lib/tools.sh, lib/drift.jq (row drift, used by lib/rows.sh).

STEADY_CAP_S=60
STEADY_QUICK_CAP_S=15
# the seconds of load over which the first rate is taken (time_to_steady.first_5s_rps)
STEADY_FIRST_S=5
# the warm-up's first seconds kept per shape (time_to_steady.rps_by_second: the README's chart)
STEADY_SERIES_S=60
declare -gA STEADY_GOT=()
STEADY_FIRST_RESPONSE_S=null
# the current turn's warm-up cap when a budgeted run sized it (lib/rounds.sh); '': the settings'
STEADY_TURN_CAP_S=''

steady::cap() { printf '%s\n' "${STEADY_TURN_CAP_S:-${SETTINGS[server_warmup_s]}}"; }

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
    warm_spec["duration_s"]=1 warm_spec["warmup_s"]=$(steady::cap) warm_spec["warmup_auto"]=1
  else
    warm_spec["duration_s"]=${SETTINGS[server_warmup_s]} warm_spec["warmup_s"]=0 warm_spec["warmup_auto"]=''
  fi
}

steady::shape_fields() {
  jq -c --arg mode "${SETTINGS[server_warmup_mode]}" --argjson fixed "${SETTINGS[server_warmup_s]}" \
    --argjson first "$STEADY_FIRST_S" --argjson load_started "${2:-null}" --argjson series "$STEADY_SERIES_S" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                       else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def r3: . * 1000 | round / 1000;
    (if $mode == "auto" then {warmup_s: .warmup.seconds, steady: .warmup.steady}
     else {warmup_s: $fixed, steady: null} end) as $got
    | [.warmup_timeline[]? | select(.t_s != null)] as $seconds
    | (.warmup.rule.window_s // 5) as $window
    | (if ($seconds | length) >= $first
       then ([$seconds[] | select(.t_s < $first) | .succeeded] | add) / $first | r3 else null end) as $first_rps
    | (if $got.steady == true and ($seconds | length) >= $window
       then [$seconds[-$window:][] | .succeeded] | median else null end) as $steady_rps
    | $got + {time_to_steady: {
        load_started_s: $load_started,
        steady_after_s: (if $got.steady == true then $got.warmup_s else null end),
        verdict: (if $got.steady == true then "steady" elif $got.steady == false then "not reached" else "not judged" end),
        reason: (if $got.steady == true then null
                 elif $got.steady == false then "not in steady state when the warm-up cap (\(.warmup.max_seconds // $fixed) s) ended it"
                 else "a fixed warm-up (\($fixed) s): steady state not judged" end),
        first_5s_rps: $first_rps,
        steady_rps: $steady_rps,
        first_5s_share: (if $first_rps != null and $steady_rps != null and $steady_rps > 0
                         then $first_rps / $steady_rps | r3 else null end),
        rps_by_second: [$seconds[:$series][] | .succeeded]}}' "$1"
}

steady::forget() { STEADY_GOT=(); STEADY_FIRST_RESPONSE_S=${1:-null}; }

steady::remember() { STEADY_GOT["$1/$2"]=$3; }

steady::row_warmup() {
  local shape=${STEADY_GOT["$1/$2"]:-}
  if [[ -z $shape ]]; then echo null; return 0; fi
  jq -c --arg mode "${SETTINGS[server_warmup_mode]}" --argjson first_response "$STEADY_FIRST_RESPONSE_S" \
    'if .status == "ok" then {mode: $mode, seconds: .warmup_s, steady: .steady, first_response_s: $first_response,
                              time_to_steady: .time_to_steady} else null end' <<<"$shape"
}
