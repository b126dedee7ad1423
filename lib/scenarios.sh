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
#     it at, barrage --rate-stages' text "100:5s,2000:20s"; "-" or empty for none), group
#     (the group it belongs to, which --scenarios all leaves out unless named: size-sweep, churn, idle; "-" or empty
#     for none) or connection (how its connections behave: "-" or empty, keep-alive for the whole run;
#     churn:N, each connection carries N requests and the client closes it; churn:N:resume,
#     the same with TLS session resumption on the new connections; idle:N, N idle
#     connections beside the busy ones for the whole run; ws:N, WebSocket messages of N bytes
#     to the endpoint's echo). Returns 1 with a message for an unknown scenario or field.
#   scenarios::connection_args NAME PROTOCOL
#     barrage's options for the scenario's connection mode over PROTOCOL, one a line
#     (--requests-per-connection N, --tls-resume, --idle-connections N, --ws-size N); nothing for "-".
#   scenarios::websocket NAME
#     0 when the scenario loads a WebSocket echo (connection ws:N); else 1.
#   scenarios::server_supports SERVER NAME
#     0 when SERVER can serve the scenario (a WebSocket one needs websocket=/ws in its
#     server.properties); else 1 with the reason on stdout. Needs lib/servers.sh.
#   scenarios::tool_supports TOOL NAME PROTOCOL
#     0 when TOOL can run the scenario's connection mode over PROTOCOL (a mode needs the
#     driver's churn, idle or websocket capability; resumption needs a TLS protocol: h1s, h2;
#     WebSocket: h1, the servers' /ws being on their plain port); else 1
#     with the reason on stdout, as a driver's supports.
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

# The table's rows by name, read once per SCENARIOS_DIR (at load, in the main shell: the planner
# asks for fields thousands of times, in subshells that would each read it again).
declare -gA SCENARIOS_ROWS=() # -g: a file sourced inside a function (a test's setup) still makes it global
SCENARIOS_ROWS_FROM=''
scenarios::_load() {
  [[ $SCENARIOS_ROWS_FROM != "$SCENARIOS_DIR" ]] || return 0
  SCENARIOS_ROWS=() SCENARIOS_ROWS_FROM=$SCENARIOS_DIR
  local row
  while IFS= read -r row; do
    [[ -n ${SCENARIOS_ROWS[${row%%$'\t'*}]+set} ]] || SCENARIOS_ROWS[${row%%$'\t'*}]=$row
  done < <(scenarios::_rows 2>/dev/null)
}

scenarios::field() {
  local name=$1 field=$2 column row i
  case $field in
    method) column=2 ;; endpoint) column=3 ;; connections) column=4 ;; streams) column=5 ;;
    body) column=6 ;; rates) column=7 ;; stages) column=8 ;; group) column=9 ;; connection) column=10 ;;
    *) log::error "scenarios::field: unknown field '$field'"; return 1 ;;
  esac
  scenarios::_load
  row=${SCENARIOS_ROWS[$name]:-}
  [[ -n $name && -n $row ]] || { log::error "unknown scenario: $name"; return 1; }
  # the COLUMN-th tab-separated field; empty past the last
  for ((i = 1; i < column; i++)); do
    [[ $row == *$'\t'* ]] || { row=''; break; }
    row=${row#*$'\t'}
  done
  printf '%s\n' "${row%%$'\t'*}"
}

scenarios::_load

scenarios::script() { printf '%s\n' "$SCENARIOS_DIR/$1.lua"; }

scenarios::rotates() { [[ $(scenarios::field "$1" method) == *,* ]]; }

scenarios::body_file() {
  local body
  body=$(scenarios::field "$1" body) || return 1
  [[ $body == - ]] || printf '%s\n' "$SCENARIOS_DIR/$body"
}

scenarios::connection_args() {
  local mode protocol=$2 n
  mode=$(scenarios::field "$1" connection) || return 1
  case $mode in
    churn:*)
      n=${mode#churn:} n=${n%%:*}
      printf '%s\n' --requests-per-connection "$n"
      [[ $mode == *:resume ]] && [[ $protocol == h1s || $protocol == h2 ]] && printf '%s\n' --tls-resume
      ;;
    idle:*) printf '%s\n' --idle-connections "${mode#idle:}" ;;
    ws:*) printf '%s\n' --ws-size "${mode#ws:}" ;;
  esac
  return 0
}

scenarios::websocket() { [[ $(scenarios::field "$1" connection 2>/dev/null) == ws:* ]]; }

scenarios::server_supports() {
  local server=$1 scenario=$2 ws
  scenarios::websocket "$scenario" || return 0
  ws=$(servers::prop "$server" websocket 2>/dev/null) || ws=''
  [[ $ws == /ws ]] && return 0
  echo "$scenario loads a WebSocket echo: $server has none (server.properties: websocket=${ws:-unset})"
  return 1
}

scenarios::tool_supports() {
  local tool=$1 scenario=$2 protocol=$3 mode
  mode=$(scenarios::field "$scenario" connection 2>/dev/null) || mode=''
  case $mode in
    churn:*)
      tools::can "$tool" churn || { echo "$scenario closes each connection after ${mode#churn:} requests: $tool cannot (barrage --requests-per-connection)"; return 1; }
      if [[ $mode == *:resume && $protocol != h1s && $protocol != h2 ]]; then
        echo "$scenario resumes TLS sessions: $protocol has none to resume (h1s, h2)"
        return 1
      fi ;;
    idle:*)
      tools::can "$tool" idle || { echo "$scenario holds ${mode#idle:} idle connections: $tool cannot (barrage --idle-connections)"; return 1; } ;;
    ws:*)
      tools::can "$tool" websocket || { echo "$scenario loads a WebSocket echo: $tool cannot (barrage ws://)"; return 1; }
      # servers/CONTRACT.md asks for /ws on the plain port only
      if [[ $protocol != h1 ]]; then
        echo "$scenario is WebSocket over cleartext HTTP/1.1 (h1): not $protocol (RFC 8441 is not spoken)"
        return 1
      fi ;;
  esac
  return 0
}
