#!/usr/bin/env bash
# scenarios: the scenario table (scenarios/scenarios.tsv) that says what each scenario sends.
#
#   scenarios::list
#     Scenario names in table order, one per line.
#   scenarios::default
#     What `--scenarios all` measures: the scenarios in no group, in table order.
#   scenarios::groups
#     The group names (the table's group column), each once, in table order.
#   scenarios::group_members GROUP
#     The scenarios of GROUP, in table order; nothing for an unknown group.
#   scenarios::field NAME FIELD
#     One value of a scenario: method, endpoint, connections, streams, body (a file name
#     under scenarios/, or "-"), rates (fixed rates to measure it at, "500,1000"; "-" or
#     empty, as in a table without that column, for none) or stages (a ramped rate to measure
#     it at, barrage --rate-stages' text "100:5s,2000:20s"; "-" or empty for none) or group
#     (the group it belongs to; "-" or empty for none). Returns 1
#     with a message for an unknown scenario or field.
#   scenarios::script NAME
#     The path of the scenario's wrk Lua script (scenarios/NAME.lua).
#   scenarios::body_file NAME
#     The path of the request body file, or nothing when the scenario sends none.
#   scenarios::rotates NAME
#     0 when the scenario rotates several methods (mixed: "GET,POST"), which a tool that
#     sends one request shape per run cannot express; 1 otherwise.
# SCENARIOS_DIR (default: the repo's scenarios/) says where the table and scripts are.
# Depends on lib/log.sh.

SCENARIOS_DIR=${SCENARIOS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scenarios}

# scenarios::_rows: the table without comments and blank lines.
scenarios::_rows() { grep -vE '^[[:space:]]*(#|$)' "$SCENARIOS_DIR/scenarios.tsv"; }

scenarios::list() { scenarios::_rows | cut -f1; }

scenarios::default() { scenarios::_rows | awk -F'\t' '$9 == "" || $9 == "-" {print $1}'; }

scenarios::groups() { scenarios::_rows | awk -F'\t' '$9 != "" && $9 != "-" && !seen[$9]++ {print $9}'; }

scenarios::group_members() { scenarios::_rows | awk -F'\t' -v group="$1" '$9 == group {print $1}'; }

scenarios::field() {
  local name=$1 field=$2 column row
  case $field in
    method) column=2 ;; endpoint) column=3 ;; connections) column=4 ;; streams) column=5 ;;
    body) column=6 ;; rates) column=7 ;; stages) column=8 ;; group) column=9 ;;
    *) log::error "scenarios::field: unknown field '$field'"; return 1 ;;
  esac
  row=$(scenarios::_rows | awk -F'\t' -v name="$name" '$1 == name')
  [[ -n $row ]] || { log::error "unknown scenario: $name"; return 1; }
  cut -f"$column" <<<"$row"
}

scenarios::script() { printf '%s\n' "$SCENARIOS_DIR/$1.lua"; }

scenarios::rotates() { [[ $(scenarios::field "$1" method) == *,* ]]; }

scenarios::body_file() {
  local body
  body=$(scenarios::field "$1" body) || return 1
  [[ $body == - ]] || printf '%s\n' "$SCENARIOS_DIR/$body"
}
