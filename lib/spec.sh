#!/usr/bin/env bash
# spec: the run spec, declared once. A run spec is the associative array one measured run (or
# a server warm-up's run) is made of: plan::spec fills it, measuring and the place add to it,
# the tool's driver reads it (lib/tools/README.md). Its keys are declared in lib/spec.tsv
# beside this file (each key's unit, range, who sets it, who reads it, what it means); a key
# set anywhere must be declared there (tests/run-benchmarks.bats checks the code).
#
#   spec::keys
#     The declared keys, one a line, in the declaration's order.
#   spec::unit KEY
#     What a value of KEY is (its unit).
#   spec::range KEY
#     "MIN MAX" of a whole-number key (barrage's own limits); nothing for a key without one.
#   spec::in_range KEY VALUE
#     0 when VALUE is a whole number within KEY's range (or KEY has none); else 1.
#   spec::check SPEC_NAME
#     0 when every key of SPEC_NAME is declared; else 1, naming the others on stderr.
#   spec::serialize SPEC_NAME ARRAY_NAME
#     Fills the indexed array ARRAY_NAME with one KEY=VALUE word for every key of SPEC_NAME,
#     in the declaration's order: the whole spec, as arguments (what lib/lab.sh sends to a
#     load host). 1 (nothing filled) when SPEC_NAME holds a key not declared.
#   spec::deserialize SPEC_NAME KEY=VALUE...
#     Fills the associative array SPEC_NAME (declared by the caller, emptied first) from such
#     words; 1 with a message for a word that is not KEY=VALUE of a declared key.
# Depends on lib/log.sh.

SPEC_TSV=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/spec.tsv

spec::keys() { awk -F'\t' '!/^#/ && NR > 1 && $1 != "key" {print $1}' "$SPEC_TSV"; }

spec::unit() { awk -F'\t' -v key="$1" '$1 == key {print $2}' "$SPEC_TSV"; }

spec::range() {
  awk -F'\t' -v key="$1" '$1 == key && $3 ~ /^[0-9]+\.\.[0-9]+$/ {split($3, r, /\.\./); print r[1], r[2]}' "$SPEC_TSV"
}

spec::in_range() {
  local min max
  read -r min max <<<"$(spec::range "$1")"
  [[ -n $min ]] || return 0
  # more digits than the maximum has: out of range (and too long for shell arithmetic)
  [[ $2 =~ ^[0-9]+$ ]] && ((${#2} <= ${#max})) && ((10#$2 >= min && 10#$2 <= max))
}

# spec::_declared KEY: 0 when KEY is declared (the keys read once per shell).
SPEC_KEYS=''
spec::_declared() {
  [[ -n $SPEC_KEYS ]] || SPEC_KEYS=" $(spec::keys | paste -sd' ') "
  [[ $1 =~ ^[a-z_]+$ && $SPEC_KEYS == *" $1 "* ]]
}

spec::check() {
  local -n checked_spec=$1
  local key bad=()
  for key in "${!checked_spec[@]}"; do spec::_declared "$key" || bad+=("$key"); done
  ((${#bad[@]} == 0)) && return 0
  log::error "run spec key(s) not declared in lib/spec.tsv: ${bad[*]}"
  return 1
}

spec::serialize() {
  local -n serialized_spec=$1 serialized_words=$2
  local key
  spec::check "$1" || return 1
  serialized_words=()
  for key in $(spec::keys); do
    [[ -v serialized_spec[$key] ]] && serialized_words+=("$key=${serialized_spec[$key]}")
  done
  return 0
}

spec::deserialize() {
  local -n deserialized_spec=$1
  local word
  shift
  deserialized_spec=()
  for word in "$@"; do
    if [[ $word != *=* ]] || ! spec::_declared "${word%%=*}"; then
      log::error "not KEY=VALUE of a run spec key (lib/spec.tsv): '$word'"
      return 1
    fi
    # shellcheck disable=SC2034 # a nameref: the caller's array
    deserialized_spec[${word%%=*}]=${word#*=}
  done
}
